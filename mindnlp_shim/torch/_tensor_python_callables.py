"""torch.Tensor.apply_, map_ and map2_: a Python callable applied element by element, written into the receiver
(torch offers them for CPU tensors only, outside autograd; so here: on the host, through NumPy)."""
import numpy as np


def _write(self, values):
    from .autograd.grad_mode import no_grad

    with no_grad():
        self.copy_(_as_tensor(values, self))
    return self


def _as_tensor(values, like):
    from . import tensor

    return tensor(np.asarray(values).astype(like.numpy().dtype, copy=False))


def _elementwise(fn, *arrays, dtype):
    return np.vectorize(fn, otypes=[dtype])(*arrays) if arrays[0].size else arrays[0].copy()


def apply_(self, callable):
    host = self.detach().numpy()
    return _write(self, _elementwise(callable, host, dtype=host.dtype))


def map_(self, tensor, callable):
    host = self.detach().numpy()
    other = np.broadcast_to(tensor.detach().numpy(), host.shape)
    return _write(self, _elementwise(callable, host, other, dtype=host.dtype))


def map2_(self, x, y, callable):
    host = self.detach().numpy()
    xs, ys = (np.broadcast_to(t.detach().numpy(), host.shape) for t in (x, y))
    return _write(self, _elementwise(callable, host, xs, ys, dtype=host.dtype))


def install(Tensor):
    for fn in (apply_, map_, map2_):
        if fn.__name__ not in vars(Tensor):
            setattr(Tensor, fn.__name__, fn)
