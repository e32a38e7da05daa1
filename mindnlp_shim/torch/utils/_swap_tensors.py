"""torch.utils.swap_tensors: two tensors exchange their contents and keep their identities.

Each Python object keeps its identity (so a module's parameter, an optimizer's reference and any dict holding it
see the new contents), and the two exchange storage (shape, dtype and memory: views of one now alias the other),
`requires_grad`, `.grad` and their Python attributes, as torch's does. peft's hotswapping grows an adapter's rank
with it.

Differences from torch: tensors inside the autograd graph (results of recorded ops) are refused with
NotImplementedError, as MindSpore's tape cannot move an autograd node to another tensor object; torch's refusal of
tensors with weak references is not made, because the shim itself keeps weak references to tensors (a detached
tensor to its source, a base to its views), so a caller's cannot be told apart."""
import mindspore

from mindspore import ops

from .. import _inplace

Tensor = mindspore.Tensor


def swap_tensors(t1, t2):
    for name, t in (("t1", t1), ("t2", t2)):
        if not isinstance(t, Tensor):
            raise TypeError(f"Expected {name} to be a torch.Tensor, but got {type(t).__name__}")
        if not t._is_leaf:
            raise NotImplementedError(
                "torch.utils.swap_tensors of a tensor computed inside the autograd graph is not supported by "
                "mindnlp-shim: MindSpore's tape keeps each autograd node on its tensor object")
    if t1 is t2:
        return
    grads = t1._grad, t2._grad
    requires = t1._requires_grad, t2._requires_grad
    contents1, contents2 = _alias(t1), _alias(t2)  # (handles on the two storages while they are moved)
    _inplace.swap_data(t1, contents2)
    _inplace.swap_data(t2, contents1)
    attributes1, attributes2 = dict(t1.__dict__), dict(t2.__dict__)
    t1.__dict__.clear()
    t1.__dict__.update(attributes2)
    t2.__dict__.clear()
    t2.__dict__.update(attributes1)
    for t, wants_grad, grad in ((t1, requires[1], grads[1]), (t2, requires[0], grads[0])):
        t.requires_grad_(wants_grad)
        t._grad = grad


def _alias(t):
    """A new tensor object over `t`'s storage (its shape, dtype and memory), outside autograd."""
    return ops.stop_gradient(t)
