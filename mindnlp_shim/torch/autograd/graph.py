"""torch.autograd.graph: saved-tensor hooks and graph node types."""
from .. import _stand_ins


class saved_tensors_hooks:
    def __init__(self, pack_hook, unpack_hook):
        self.pack_hook, self.unpack_hook = pack_hook, unpack_hook

    def __enter__(self):
        raise NotImplementedError("torch.autograd.graph.saved_tensors_hooks is not supported on MindSpore: the tape "
                                  "engine does not expose its saved tensors")

    def __exit__(self, *exc):
        return False


class save_on_cpu:
    """Offloads saved activations to host memory. On the CPU target they already are there; on device targets
    they stay on the device (the results are the same, only the memory placement differs)."""

    def __init__(self, pin_memory=False, device_type="cuda"):
        pass

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False


Node = _stand_ins.placeholder_type("torch.autograd.graph.Node")
GradientEdge = _stand_ins.placeholder_type("torch.autograd.graph.GradientEdge")
