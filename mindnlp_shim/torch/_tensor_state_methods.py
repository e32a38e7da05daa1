"""Tensor methods about what a tensor holds rather than what it computes: `module_load` (how
nn.Module.load_state_dict turns a state-dict value into the parameter's new value), `dequantize` (the tensor
as float32: no tensor is quantized here; also torch.dequantize) and the leaf-only
`grad_dtype` property (the dtype .grad takes: the tensor's own; another one would need the engine to cast
gradients, which it does not, so setting one is refused)."""
import mindspore

Tensor = mindspore.Tensor

__all__ = ["dequantize"]


def module_load(self, other, assign=False):
    """`other` detached when `assign`, else `other` copied into `self` and `self` detached."""
    return other.detach() if assign else self.copy_(other).detach()


def dequantize(tensor):
    if isinstance(tensor, (list, tuple)):  # (torch's list form has only a quantized kernel)
        raise NotImplementedError("torch.dequantize of a list of tensors needs quantized tensors, which "
                                  "mindnlp-shim does not provide (as torch, it has no kernel for float tensors)")
    return tensor.float()  # (a tensor that is not quantized dequantizes to float32, as in torch)


def _leaf_only(self, verb):
    if not self.is_leaf:
        raise RuntimeError(f"grad_dtype can only be {verb} on leaf tensors.")


def _get_grad_dtype(self):
    _leaf_only(self, "accessed")
    return self.dtype


def _set_grad_dtype(self, value):
    _leaf_only(self, "set")
    if value != self.dtype:
        raise NotImplementedError(f"setting torch.Tensor.grad_dtype to {value} (the tensor is {self.dtype}) is not "
                                  f"supported by mindnlp-shim: the autograd engine does not cast gradients")


def install():
    Tensor.module_load = module_load
    Tensor.dequantize = dequantize
    Tensor.grad_dtype = property(_get_grad_dtype, _set_grad_dtype)
