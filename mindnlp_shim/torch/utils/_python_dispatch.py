"""torch.utils._python_dispatch: tensor subclasses with __torch_dispatch__ do not exist here."""
from .. import _stand_ins

is_traceable_wrapper_subclass = _stand_ins.answer(False, "Tensors are MindSpore tensors; no dispatch subclasses.")


class TorchDispatchMode:
    def __init__(self, *args, **kwargs):
        raise NotImplementedError("torch.utils._python_dispatch.TorchDispatchMode is not supported on MindSpore")
