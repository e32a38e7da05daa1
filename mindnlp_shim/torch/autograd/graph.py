"""torch.autograd.graph: saved-tensor hooks and graph node types."""
import threading

import mindspore
from mindspore import ops

from .. import _stand_ins
from ... import _mindspore as _ms


# module names of the shim's own classes (torch.* once `import mindnlp` has given them torch's names)
_SHIM_MODULES = ("mindnlp_shim.", "torch.")


class saved_tensors_hooks:
    """torch's context manager: `pack_hook(tensor)` for each tensor the autograd engine saves for the backward
    inside it, `unpack_hook(packed)` when the backward reads it; the gradient is computed from what unpack returns.

    On MindSpore's autograd (2.7.2+). A custom Function's saved tensors are what its forward gave
    `save_for_backward`, as in torch. A built-in op (some are the shim's own Functions) saves what MindSpore's
    backward of it needs, which can be other tensors than torch's (linear saves the weight where torch saves its
    transpose, relu a mask where torch saves the result): the hooks see other tensors, and a hook that changes
    values would change another gradient than under torch. So for those saves, unpack must give back the values
    pack received (offloading, measuring, logging hooks); otherwise the backward raises NotImplementedError
    instead of a gradient torch would not compute."""

    def __init__(self, pack_hook, unpack_hook):
        self.pack_hook, self.unpack_hook = pack_hook, unpack_hook
        self._entered = threading.local()

    def __enter__(self):
        contexts = self._entered.__dict__.setdefault("stack", [])
        context = _ms.saved_tensors_hooks(self._pack, self._unpack)
        context.__enter__()
        contexts.append(context)
        return self

    def __exit__(self, *exc):
        return self._entered.stack.pop().__exit__(*exc)

    def _pack(self, tensor):
        function = _ms.custom_function_packing(depth=1)
        # the user's Functions save what torch saves; the shim's own (its ops' backwards) save what they need
        exact = function is not None and not function.__module__.startswith(_SHIM_MODULES)
        return _Packed(self.pack_hook(tensor), None if exact else _fingerprint(tensor))

    def _unpack(self, packed):
        tensor = self.unpack_hook(packed.value)
        if packed.fingerprint is not None and _fingerprint(tensor) != packed.fingerprint:
            raise NotImplementedError(
                "torch.autograd.graph.saved_tensors_hooks: unpack_hook returned other values than pack_hook was "
                "given, for a tensor a built-in op saved. MindSpore's autograd saves other tensors than torch's for "
                "some ops, so the gradient computed from changed values would not be torch's; mindnlp-shim supports "
                "hooks that give the saved values back (offloading, measuring) and value-changing hooks only for the "
                "tensors of custom autograd Functions")
        return tensor


class _Packed:
    """What MindSpore keeps for a saved tensor: the pack hook's result and, for a built-in op's save, the
    tensor's fingerprint to check the unpacked values against."""

    __slots__ = ("value", "fingerprint")

    def __init__(self, value, fingerprint):
        self.value, self.fingerprint = value, fingerprint


def _fingerprint(tensor):
    """Shape, dtype and two sums (as text, so NaN equals NaN): equal for the same values. float32 sums: every
    target has their kernels, and the same values on the same device sum to the same bits."""
    if not hasattr(tensor, "shape") or not hasattr(tensor, "dtype"):
        return (type(tensor).__name__,)
    values = ops.stop_gradient(tensor)
    if values.is_complex():
        values = ops.view_as_real(values)
    flat = values.astype(mindspore.float32).reshape(-1)
    # the plain sum, and one that weighs each position differently (sum of the running sums)
    return (tuple(tensor.shape), str(tensor.dtype), repr(float(flat.sum())), repr(float(ops.cumsum(flat, 0).sum())))


class save_on_cpu(saved_tensors_hooks):
    """Offloads saved activations to host memory: each saved tensor is packed as its copy on the CPU and moved
    back to its device when the backward reads it (on the CPU target both are the tensor itself). On a MindSpore
    release without saved-tensor hooks (2.7.1) the activations stay where they are: the same results, only the
    memory placement differs."""

    def __init__(self, pin_memory=False, device_type="cuda"):
        def pack(tensor):
            return tensor.device, tensor.cpu()

        def unpack(packed):
            device, tensor = packed
            return tensor.to(device)

        super().__init__(pack, unpack)

    def __enter__(self):
        return super().__enter__() if _ms.HAS_SAVED_TENSORS_HOOKS else self

    def __exit__(self, *exc):
        return super().__exit__(*exc) if _ms.HAS_SAVED_TENSORS_HOOKS else False


Node = _stand_ins.placeholder_type("torch.autograd.graph.Node")
GradientEdge = _stand_ins.placeholder_type("torch.autograd.graph.GradientEdge")
