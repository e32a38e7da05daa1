"""torch.Tensor methods and properties against real PyTorch in-process: each case runs the same expression with
T = the shim and T = real torch on the same inputs; tensors are compared by dtype, shape and values (and the
gradients of sum(out * w) for every floating input that takes one), other results (sizes, dtypes, devices,
flags, Python numbers and lists) by equality."""
import numpy as np
import pytest

import mindnlp_shim.torch as mt
from conftest import SUBPROCESS_FLAG, real_torch, subprocess_fallback

rt = real_torch()
if rt is None:
    globals()[SUBPROCESS_FLAG] = True
    test_whole_module_in_subprocess = subprocess_fallback(__file__)

TOL = (1e-5, 1e-6)
_rng = np.random.default_rng(17)


def randn(*shape):
    return _rng.standard_normal(shape).astype(np.float32)


def distinct(*shape):
    """Values without ties (order statistics and their indices are then unambiguous)."""
    n = int(np.prod(shape))
    return (_rng.permutation(n).reshape(shape) / n * 4 - 2).astype(np.float32)


def ints(low, high, *shape):
    return _rng.integers(low, high, shape).astype(np.int64)


class const(np.ndarray):
    """A floating input that takes no gradient."""

    def __new__(cls, array):
        return np.asarray(array).view(cls)


def _spd(T, a):
    return a @ a.mT + 3 * T.eye(a.shape[-1])


def _lower(T, a):
    return a.tril() + 3 * T.eye(a.shape[-1])


def _backward_then_grad(T, a):
    leaf = a.detach().clone().requires_grad_()
    (leaf * leaf).sum().backward()
    return leaf.grad


def _hooked_grad(T, a):
    leaf = a.detach().clone().requires_grad_()
    leaf.register_hook(lambda g: g * 3)
    (leaf * 2).sum().backward()
    return leaf.grad


def _retained_grad(T, a):
    leaf = a.detach().clone().requires_grad_()
    mid = leaf * 2
    mid.retain_grad()
    (mid * mid).sum().backward()
    return mid.grad, mid.is_leaf, leaf.is_leaf, mid.requires_grad, leaf.requires_grad


def _in_place(method, *args):
    """A copy of the input changed in place by `method` (the result is the copy)."""
    def run(T, a, *tensors):
        out = a.clone()
        getattr(out, method)(*tensors, *args)
        return out
    return run


CASES = {
    "H": (lambda T, a: a.H, [randn(3, 4)]),
    "T": (lambda T, a: a.T, [randn(3, 4)]),
    "mT": (lambda T, a: a.mT, [randn(2, 3, 4)]),
    "mH": (lambda T, a: a.mH, [randn(2, 3, 4)]),
    "adjoint": (lambda T, a: a.adjoint(), [randn(2, 3, 4)]),
    "addbmm": (lambda T, a, b, c: a.addbmm(b, c, beta=0.5, alpha=2), [randn(3, 4), randn(2, 3, 5), randn(2, 5, 4)]),
    "addmv": (lambda T, a, m, v: a.addmv(m, v, alpha=0.5), [randn(3), randn(3, 4), randn(4)]),
    "addr": (lambda T, a, u, v: a.addr(u, v, beta=2), [randn(3, 4), randn(3), randn(4)]),
    "backward": (_backward_then_grad, [const(randn(3, 4))]),
    "bincount": (lambda T, i, w: (i.bincount(), i.bincount(w, minlength=9)), [ints(0, 6, 10), const(randn(10))]),
    "bitwise_left_shift": (lambda T, a, b: a.bitwise_left_shift(b), [ints(-50, 50, 3, 4), ints(0, 5, 3, 4)]),
    "bitwise_right_shift": (lambda T, a, b: a.bitwise_right_shift(b), [ints(-50, 50, 3, 4), ints(0, 5, 3, 4)]),
    "cholesky": (lambda T, a: _spd(T, a).cholesky(), [randn(3, 3)]),
    "cholesky_inverse": (lambda T, a: _lower(T, a).cholesky_inverse(), [randn(3, 3)]),
    "cholesky_solve": (lambda T, b, a: b.cholesky_solve(_lower(T, a)), [randn(3, 2), randn(3, 3)]),
    "cov": (lambda T, a: (a.cov(), a.cov(correction=0)), [randn(3, 5)]),
    "cummax": (lambda T, a: a.cummax(1), [distinct(3, 5)]),
    "cummin": (lambda T, a: a.cummin(0), [distinct(3, 5)]),
    "data": (lambda T, a: a.data * 2, [randn(3, 4)]),
    "det": (lambda T, a: a.det(), [randn(2, 3, 3)]),
    "logdet": (lambda T, a: _spd(T, a).logdet(), [randn(3, 3)]),
    "slogdet": (lambda T, a: a.slogdet(), [randn(3, 3)]),
    "inverse": (lambda T, a: _spd(T, a).inverse(), [randn(3, 3)]),
    "matrix_power": (lambda T, a: (a.matrix_power(3), a.matrix_power(0)), [randn(3, 3)]),
    "trace": (lambda T, a: a.trace(), [randn(3, 4)]),
    "svd": (lambda T, a: a.svd()[1], [randn(4, 3)]),
    "diag": (lambda T, a, v: (a.diag(), a.diag(1), v.diag(-1)), [randn(3, 4), randn(3)]),
    "diagflat": (lambda T, v: v.diagflat(1), [randn(2, 2)]),
    "diagonal_scatter": (lambda T, a, d: a.diagonal_scatter(d, 1), [randn(3, 4), randn(3)]),
    "select_scatter": (lambda T, a, s: a.select_scatter(s, 1, 2), [randn(3, 4), randn(3)]),
    "dsplit": (lambda T, a: a.dsplit([1, 3]), [randn(2, 2, 4)]),
    "hsplit": (lambda T, a: a.hsplit(2), [randn(3, 4)]),
    "vsplit": (lambda T, a: a.vsplit([1]), [randn(3, 4)]),
    "fill_diagonal_": (_in_place("fill_diagonal_", 2.5), [const(randn(3, 4))]),
    "index_copy_": (lambda T, a, s: a.clone().index_copy_(0, T.tensor([2, 0]), s), [randn(3, 4), randn(2, 4)]),
    "index_put": (lambda T, a, v: a.index_put((T.tensor([0, 2]), T.tensor([1, 3])), v), [randn(3, 4), randn(2)]),
    "index_put_": (lambda T, a, v: a.clone().index_put_((T.tensor([0, 2, 0]),), v, accumulate=True),
                   [randn(3, 4), randn(3, 4)]),
    "put_": (lambda T, a, v: a.clone().put_(T.tensor([0, 5, 11]), v), [randn(3, 4), randn(3)]),
    "take": (lambda T, a: a.take(T.tensor([[0, 7], [11, 3]])), [randn(3, 4)]),
    "gcd": (lambda T, a, b: a.gcd(b), [ints(-30, 30, 3, 4), ints(-30, 30, 3, 4)]),
    "lcm": (lambda T, a, b: a.lcm(b), [ints(-30, 30, 3, 4), ints(-30, 30, 3, 4)]),
    "ger": (lambda T, u, v: u.ger(v), [randn(3), randn(4)]),
    "inner": (lambda T, a, b: a.inner(b), [randn(2, 4), randn(3, 4)]),
    "histc": (lambda T, a: a.histc(5, -1, 1), [const(randn(20))]),
    "kthvalue": (lambda T, a: a.kthvalue(2, 1), [distinct(3, 5)]),
    "logcumsumexp": (lambda T, a: a.logcumsumexp(1), [randn(3, 5)]),
    "median": (lambda T, a: (a.median(), a.median(1)), [distinct(3, 5)]),
    "nanmedian": (lambda T, a: (a.nanmedian(), a.nanmedian(0)), [distinct(3, 5)]),
    "nanmean": (lambda T, a: a.nanmean(1), [randn(3, 5)]),
    "quantile": (lambda T, a: a.quantile(T.tensor([0.25, 0.6]), dim=1), [distinct(3, 5)]),
    "nanquantile": (lambda T, a: a.nanquantile(0.3), [distinct(3, 5)]),
    "mvlgamma": (lambda T, a: a.mvlgamma(2), [const(np.abs(randn(3, 4)) + 1.5)]),
    "renorm": (lambda T, a: a.renorm(2, 0, 1.0), [randn(3, 4)]),
    "rot90": (lambda T, a: (a.rot90(), a.rot90(2, [0, 1])), [randn(3, 4)]),
    "ravel": (lambda T, a: a.ravel(), [randn(3, 4)]),
    "sum_to_size": (lambda T, a: a.sum_to_size(1, 4), [randn(3, 4)]),
    "unfold": (lambda T, a: a.unfold(1, 2, 1), [randn(3, 4)]),
    "triangular_solve": (lambda T, b, a: b.triangular_solve(_lower(T, a)), [randn(3, 2), randn(3, 3)]),
    "register_hook": (_hooked_grad, [const(randn(3, 4))]),
    "retain_grad": (_retained_grad, [const(randn(3, 4))]),
    "new_full": (lambda T, a: a.new_full((2, 3), 1.5), [const(randn(3, 4))]),
    "new_ones": (lambda T, a: a.new_ones(2, 3), [const(randn(3, 4))]),
    "new_zeros": (lambda T, a: a.new_zeros((2, 3), dtype=T.float64), [const(randn(3, 4))]),
    "new_tensor": (lambda T, a: a.new_tensor([[1, 2], [3, 4]]), [const(randn(3, 4))]),
    "new_empty": (lambda T, a: (tuple(a.new_empty((2, 5)).shape), a.new_empty(2).dtype), [const(randn(3, 4))]),
    # queries and properties
    "dim": (lambda T, a: (a.dim(), a.ndim, a.ndimension()), [const(randn(3, 4, 2))]),
    "size": (lambda T, a: (a.size(), a.size(1), a.shape, a.numel(), a.nelement()), [const(randn(3, 4, 2))]),
    "dtype": (lambda T, a: (a.dtype, a.is_floating_point(), a.is_complex(), a.is_signed()), [const(randn(3))]),
    "element_size": (lambda T, a: (a.element_size(), a.itemsize, a.nbytes, a.double().nbytes), [const(randn(3, 4))]),
    "device": (lambda T, a: (a.device, a.is_cpu, a.is_cuda, a.is_meta, a.get_device()), [const(randn(3))]),
    "layout": (lambda T, a: (a.layout, a.is_sparse, a.is_quantized, a.is_mkldnn, a.is_nested), [const(randn(3))]),
    "is_leaf": (lambda T, a: (a.is_leaf, (a * 2).is_leaf, a.requires_grad, (a * 2).requires_grad), [randn(3)]),
    "is_contiguous": (lambda T, a: (a.is_contiguous(), a.t().is_contiguous(), a.t().contiguous().is_contiguous()),
                      [const(randn(3, 4))]),
    "stride": (lambda T, a: (a.stride(), a.t().stride(), a.stride(1)), [const(randn(3, 4))]),
    "storage_offset": (lambda T, a: (a.storage_offset(), a[1].storage_offset(), a[:, 2:].storage_offset()),
                       [const(randn(3, 4))]),
    "item": (lambda T, a: (a[1, 2].item(), a.tolist()), [const(randn(3, 4))]),
    "numpy": (lambda T, a: a.numpy().sum(axis=0).tolist(), [const(randn(3, 4))]),
    "type": (lambda T, a: (a.type(), a.type(T.float64).dtype, a.int().type()), [const(randn(3))]),
    "real": (lambda T, a, b: (T.complex(a, b).real, T.complex(a, b).imag), [const(randn(3)), const(randn(3))]),
    "is_shared": (lambda T, a: a.is_shared(), [const(randn(3))]),
    "is_pinned": (lambda T, a: a.is_pinned(), [const(randn(3))]),
    "requires_grad": (lambda T, a: (a.requires_grad, a.detach().requires_grad), [randn(3)]),
    "grad": (lambda T, a: _backward_then_grad(T, a) * 1, [const(randn(3))]),
    # methods that are the torch.* function of the same name
    "kron": (lambda T, a, b: a.kron(b), [randn(2, 3), randn(3, 2)]),
    "mv": (lambda T, m, v: m.mv(v), [randn(3, 4), randn(4)]),
    "dist": (lambda T, a, b: (a.dist(b), a.dist(b, 1), a.dist(b, 3)), [randn(3, 4), randn(3, 4)]),
    "corrcoef": (lambda T, a: a.corrcoef(), [randn(3, 6)]),
    "vdot": (lambda T, a, b: a.vdot(b), [randn(5), randn(5)]),
    "matrix_exp": (lambda T, a: (a * 0.5).matrix_exp(), [randn(3, 3)]),
    "pinverse": (lambda T, a: a.pinverse(), [randn(4, 3)]),
    "frexp": (lambda T, a: a.frexp(), [const(randn(3, 4) * 40)]),
    "histogram": (lambda T, a, w: a.histogram(5, range=(-2.0, 2.0), weight=w), [const(randn(20)), const(randn(20))]),
    "scatter_reduce": (lambda T, a, s: a.scatter_reduce(1, T.tensor([[0, 1, 0, 2], [2, 2, 1, 0]]), s, "sum"),
                       [randn(2, 3), randn(2, 4)]),
    "scatter_reduce_": (lambda T, a, s: a.clone().scatter_reduce_(0, T.tensor([[1, 0, 1]]), s, "amax",
                                                                  include_self=False),
                        [distinct(2, 3), distinct(1, 3)]),
    "conj_physical": (lambda T, a: a.conj_physical(), [randn(3, 4)]),
    "conj_physical_": (_in_place("conj_physical_"), [randn(3, 4)]),
    "lu": (lambda T, a: a.lu(), [randn(3, 3)]),
    "polygamma": (lambda T, a: (a.polygamma(1), a.polygamma(2)), [np.abs(randn(3, 4)) + 0.5]),
    "polygamma_": (_in_place("polygamma_", 1), [np.abs(randn(3, 4)) + 0.5]),
    "stft": (lambda T, a: a.stft(8, 4, window=T.hann_window(8), return_complex=False), [randn(32)]),
    "nonzero_static": (lambda T, a: (a.nonzero_static(size=6), a.nonzero_static(size=2, fill_value=-3)),
                       [ints(0, 2, 3, 4)]),
    # ties among the most frequent values: the smallest wins, at its last occurrence
    "mode": (lambda T, a: (a.mode(1), T.mode(a, 0, keepdim=True), a.mode()),
             [np.array([[1., 2, 2, 3, 3, 0], [5, 5, 1, 1, 1, 5], [4, 0, 4, 0, 7, 7]], dtype=np.float32)]),
    "index_reduce": (lambda T, a, s: (a.index_reduce(0, T.tensor([0, 2, 0]), s, "prod"),
                                      T.index_reduce(a, 1, T.tensor([1, 1]), s, "mean", include_self=False)),
                     [randn(3, 2), randn(3, 2)]),
    "index_reduce_": (lambda T, a, s: a.clone().index_reduce_(0, T.tensor([2, 0, 2]), s, "amax"),
                      [distinct(3, 4), distinct(3, 4)]),
    "apply_": (lambda T, a: a.clone().apply_(lambda v: v * v - 1.0), [const(randn(3, 4))]),
    "map_": (lambda T, a, b: a.clone().map_(b, lambda p, q: p * 2 + q), [const(randn(3, 4)), const(randn(4))]),
    "map2_": (lambda T, a, b, c: a.clone().map2_(b, c, lambda p, q, r: p - q * r),
              [const(randn(3, 4)), const(randn(3, 4)), const(randn(1, 4))]),
    "dim_order": (lambda T, a: (a.dim_order(), a.permute(2, 0, 1).dim_order(), a[:, :1].transpose(0, 1).dim_order(),
                                a.transpose(1, 2).dim_order()), [const(randn(2, 3, 4))]),
}

# several names answered by one case
ALSO = {"imag": "real", "ndim": "dim", "ndimension": "dim", "shape": "size", "numel": "size", "nelement": "size",
        "is_floating_point": "dtype", "is_complex": "dtype", "is_signed": "dtype", "itemsize": "element_size",
        "nbytes": "element_size", "is_cpu": "device", "is_cuda": "device", "is_meta": "device",
        "get_device": "device", "is_sparse": "layout", "is_quantized": "layout", "is_mkldnn": "layout",
        "is_nested": "layout", "tolist": "item"}


def _as_python(T, value):
    """What is compared: tensors as (dtype, shape, array); sizes, dtypes, devices and layouts by their text."""
    if isinstance(value, T.Tensor):
        return ("tensor", str(value.dtype), tuple(value.shape), value.detach().numpy())
    if isinstance(value, (tuple, list)) and not isinstance(value, T.Size):
        return type(value).__name__ if not hasattr(value, "_fields") else "tuple", [_as_python(T, v) for v in value]
    if isinstance(value, (T.Size, T.dtype, T.device, T.layout)):
        return str(tuple(value) if isinstance(value, T.Size) else value)
    return value


def _same(ours, theirs, where="output"):
    if isinstance(theirs, tuple) and theirs and theirs[0] == "tensor":
        assert isinstance(ours, tuple) and ours[0] == "tensor", f"{where}: {ours!r} vs a tensor"
        assert ours[1:3] == theirs[1:3], f"{where}: {ours[1:3]} vs torch {theirs[1:3]}"
        if theirs[3].dtype.kind in "fc":
            np.testing.assert_allclose(ours[3], theirs[3], rtol=TOL[0], atol=TOL[1], err_msg=where)
        else:
            np.testing.assert_array_equal(ours[3], theirs[3], err_msg=where)
    elif isinstance(theirs, tuple) and len(theirs) == 2 and isinstance(theirs[1], list):
        assert isinstance(ours, tuple) and len(ours[1]) == len(theirs[1]), f"{where}: {ours!r} vs {theirs!r}"
        for i, (a, b) in enumerate(zip(ours[1], theirs[1])):
            _same(a, b, f"{where}[{i}]")
    elif isinstance(theirs, float):
        assert isinstance(ours, float) and np.isclose(ours, theirs, rtol=TOL[0], atol=TOL[1]), f"{where}"
    else:
        assert ours == theirs and type(ours) is type(theirs), f"{where}: {ours!r} vs torch {theirs!r}"


def _tensors(value, T):
    if isinstance(value, T.Tensor):
        return [value]
    if isinstance(value, (tuple, list)):
        return [t for v in value for t in _tensors(v, T)]
    return []


def _run(T, fn, arrays):
    leaves = []
    args = []
    for a in arrays:
        t = T.tensor(np.asarray(a))
        if a.dtype.kind == "f" and not isinstance(a, const):
            t.requires_grad_()
            leaves.append(t)
        args.append(t)
    out = fn(T, *args)
    grads = None
    diffable = [o for o in _tensors(out, T) if o.requires_grad and o.is_floating_point()]
    if leaves and diffable:
        total = sum((o.double() * T.tensor(np.random.default_rng(3 + i).standard_normal(tuple(o.shape)))).sum()
                    for i, o in enumerate(diffable))
        grads = T.autograd.grad(total, leaves, allow_unused=True)
        grads = [None if g is None else _as_python(T, g) for g in grads]
    return _as_python(T, out), grads


# disagreements with torch, kept visible (a fix turns them into failures: strict)
XFAIL = {}


@pytest.mark.parametrize("name", [pytest.param(n, marks=pytest.mark.xfail(strict=True, reason=XFAIL[n]))
                                  if n in XFAIL else n for n in CASES])
def test_method_matches_torch(name):
    fn, arrays = CASES[name]
    (ours, our_grads), (theirs, their_grads) = _run(mt, fn, arrays), _run(rt, fn, arrays)
    _same(ours, theirs)
    assert (our_grads is None) == (their_grads is None)
    for i, (a, b) in enumerate(zip(our_grads or [], their_grads or [])):
        if b is None or a is None:  # an unused input: None on one side, zeros (or None) on the other
            other = a if b is None else b
            assert other is None or not np.any(other[3]), f"grad[{i}]"
        else:
            _same(a, b, f"grad[{i}]")


@pytest.mark.parametrize("call, error", [
    (lambda T: T.zeros(3, 2).index_reduce(0, T.tensor([0, 1]), T.ones(2, 2), "sum"), RuntimeError),
    (lambda T: T.zeros(3, 2).index_reduce(0, T.tensor([0, 1]), T.ones(2, 3), "prod"), RuntimeError),
    (lambda T: T.zeros(3, 2).index_reduce(0, T.tensor([0]), T.ones(2, 2), "amax"), RuntimeError),
    (lambda T: T.zeros(3, 2).index_reduce(0, T.tensor([[0, 1]]), T.ones(2, 2), "amax"), IndexError),
], ids=["reduce", "shape", "count", "index_rank"])
def test_index_reduce_refuses_like_torch(call, error):
    for T in (rt, mt):
        with pytest.raises(error):
            call(T)


def test_every_method_named_here_has_a_case():
    assert set(ALSO.values()) <= set(CASES)
    named = {n.rsplit(".", 1)[1] for key in API_CENSUS for n in ((key,) if isinstance(key, str) else key)
             if n.startswith("torch.Tensor.")}
    assert named == (set(CASES) | set(ALSO)) - set(XFAIL)

# what this module compares with real torch (read by tests/api_census.py)
API_CENSUS = {
    (
        'torch.Tensor.H', 'torch.Tensor.T', 'torch.Tensor.mT', 'torch.Tensor.mH', 'torch.Tensor.adjoint',
        'torch.Tensor.addbmm', 'torch.Tensor.addmv', 'torch.Tensor.addr', 'torch.Tensor.backward',
        'torch.Tensor.bincount', 'torch.Tensor.bitwise_left_shift', 'torch.Tensor.bitwise_right_shift',
        'torch.Tensor.cholesky', 'torch.Tensor.cholesky_inverse', 'torch.Tensor.cholesky_solve', 'torch.Tensor.cov',
        'torch.Tensor.cummax',
        'torch.Tensor.cummin', 'torch.Tensor.det', 'torch.Tensor.logdet', 'torch.Tensor.slogdet',
        'torch.Tensor.inverse', 'torch.Tensor.matrix_power', 'torch.Tensor.trace', 'torch.Tensor.svd',
        'torch.Tensor.diag', 'torch.Tensor.diagflat', 'torch.Tensor.diagonal_scatter',
        'torch.Tensor.select_scatter', 'torch.Tensor.dsplit', 'torch.Tensor.hsplit', 'torch.Tensor.vsplit',
        'torch.Tensor.fill_diagonal_', 'torch.Tensor.index_copy_', 'torch.Tensor.index_put',
        'torch.Tensor.index_put_', 'torch.Tensor.put_', 'torch.Tensor.take', 'torch.Tensor.gcd', 'torch.Tensor.lcm',
        'torch.Tensor.ger', 'torch.Tensor.inner', 'torch.Tensor.histc', 'torch.Tensor.kthvalue',
        'torch.Tensor.logcumsumexp', 'torch.Tensor.median', 'torch.Tensor.nanmedian', 'torch.Tensor.nanmean',
        'torch.Tensor.quantile', 'torch.Tensor.nanquantile', 'torch.Tensor.mvlgamma', 'torch.Tensor.renorm',
        'torch.Tensor.rot90', 'torch.Tensor.ravel', 'torch.Tensor.sum_to_size', 'torch.Tensor.unfold',
        'torch.Tensor.triangular_solve', 'torch.Tensor.register_hook', 'torch.Tensor.retain_grad',
        'torch.Tensor.new_full', 'torch.Tensor.new_ones', 'torch.Tensor.new_zeros', 'torch.Tensor.new_tensor',
        'torch.Tensor.new_empty', 'torch.Tensor.dim', 'torch.Tensor.size', 'torch.Tensor.dtype',
        'torch.Tensor.element_size', 'torch.Tensor.device', 'torch.Tensor.layout', 'torch.Tensor.is_leaf',
        'torch.Tensor.is_contiguous', 'torch.Tensor.stride', 'torch.Tensor.storage_offset', 'torch.Tensor.item',
        'torch.Tensor.numpy', 'torch.Tensor.type', 'torch.Tensor.real', 'torch.Tensor.is_shared',
        'torch.Tensor.is_pinned', 'torch.Tensor.requires_grad', 'torch.Tensor.grad', 'torch.Tensor.kron',
        'torch.Tensor.mv', 'torch.Tensor.dist', 'torch.Tensor.corrcoef', 'torch.Tensor.vdot',
        'torch.Tensor.matrix_exp', 'torch.Tensor.pinverse', 'torch.Tensor.frexp', 'torch.Tensor.histogram',
        'torch.Tensor.scatter_reduce', 'torch.Tensor.scatter_reduce_', 'torch.Tensor.conj_physical',
        'torch.Tensor.conj_physical_', 'torch.Tensor.lu', 'torch.Tensor.polygamma', 'torch.Tensor.polygamma_',
        'torch.Tensor.stft', 'torch.Tensor.nonzero_static', 'torch.Tensor.mode', 'torch.Tensor.index_reduce',
        'torch.Tensor.index_reduce_', 'torch.Tensor.apply_', 'torch.Tensor.map_', 'torch.Tensor.map2_',
        'torch.Tensor.dim_order', 'torch.Tensor.imag', 'torch.Tensor.ndim', 'torch.Tensor.ndimension',
        'torch.Tensor.shape', 'torch.Tensor.numel', 'torch.Tensor.nelement', 'torch.Tensor.is_floating_point',
        'torch.Tensor.is_complex', 'torch.Tensor.is_signed', 'torch.Tensor.itemsize', 'torch.Tensor.nbytes',
        'torch.Tensor.is_cpu', 'torch.Tensor.is_cuda', 'torch.Tensor.is_meta', 'torch.Tensor.get_device',
        'torch.Tensor.is_sparse', 'torch.Tensor.is_quantized', 'torch.Tensor.is_mkldnn', 'torch.Tensor.is_nested',
        'torch.Tensor.tolist', 'torch.Tensor.data',
    ): "test_method_matches_torch",
    ("torch.mode", "torch.index_reduce"): "test_method_matches_torch",
}
