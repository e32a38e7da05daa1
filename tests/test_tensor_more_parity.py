"""More torch.Tensor methods (and the torch functions they share a definition with) against real PyTorch
in-process: the in-place random fills cauchy_ / log_normal_ / geometric_ bit for bit from the same seed, the QR
family in Householder form (qr, geqrf, orgqr, ormqr) and lu_solve with their gradients, the linear algebra
functions torch removed in 1.9 and the removed Variable attributes (torch's errors, values and warnings), and the
storage queries (data_ptr offsets, untyped_storage, grad_fn, pin_memory) on views and results."""
import os
import warnings

import numpy as np
import pytest

import mindnlp_shim.torch as mt
from conftest import SUBPROCESS_FLAG, real_torch, subprocess_fallback
from test_tensor_method_parity import _run, _same, const  # (the comparison this module shares)

rt = real_torch()
if rt is None:
    globals()[SUBPROCESS_FLAG] = True
    test_whole_module_in_subprocess = subprocess_fallback(__file__)

_rng = np.random.default_rng(41)


def randn(*shape, dtype=np.float32):
    return _rng.standard_normal(shape).astype(dtype)


# ---------------------------------------------------------------- random fills, bit for bit
FILLS = {
    "cauchy_": [(), (0.5, 2.0), (-3.0, 0.25)],
    "log_normal_": [(), (0.1, 0.5), (-1.0, 0.3)],
    "geometric_": [(0.2,), (0.9,), (1e-3,)],
}
FLOAT_DTYPES = ("float32", "float64", "float16", "bfloat16")


def _draws(T, method, args, dtype, sizes):
    """The fills of one method on tensors of several sizes from one seed, then a randn that shows the generator
    state the fills leave (log_normal_ takes and leaves the cached normal)."""
    T.manual_seed(2024)
    out = []
    for size in sizes:
        t = T.empty(size, dtype=getattr(T, dtype))
        result = getattr(t, method)(*args)
        assert result is t
        out.append(t.double().numpy().copy())
    out.append(T.randn(3, dtype=T.float64).numpy().copy())
    return out


@pytest.mark.parametrize("dtype", FLOAT_DTYPES)
@pytest.mark.parametrize("method", list(FILLS))
def test_random_fill_draws_torch_numbers_bit_for_bit(method, dtype):
    for args in FILLS[method]:
        ours = _draws(mt, method, args, dtype, [(7,), (3, 5), (33,), (1,)])
        theirs = _draws(rt, method, args, dtype, [(7,), (3, 5), (33,), (1,)])
        for i, (a, b) in enumerate(zip(ours, theirs)):
            assert a.tobytes() == b.tobytes(), f"{method}{args} {dtype} draw {i}: {a} vs torch {b}"


@pytest.mark.parametrize("dtype", ["int64", "int32", "uint8", "int16"])
def test_geometric_fills_integer_tensors_like_torch(dtype):
    ours = _draws(mt, "geometric_", (0.35,), dtype, [(20,), (2, 9)])
    theirs = _draws(rt, "geometric_", (0.35,), dtype, [(20,), (2, 9)])
    for a, b in zip(ours, theirs):
        np.testing.assert_array_equal(a, b)


def test_random_fills_use_a_given_generator_like_torch():
    def draws(T):
        g = T.Generator().manual_seed(77)
        T.manual_seed(1)  # the global generator must not be the one used
        x = T.empty(9).cauchy_(1.0, 3.0, generator=g)
        y = T.empty(4, dtype=T.float64).log_normal_(generator=g)
        z = T.empty(6).geometric_(0.5, generator=g)
        return [t.double().numpy() for t in (x, y, z, T.rand(2))]

    for a, b in zip(draws(mt), draws(rt)):
        assert a.tobytes() == b.tobytes()


def test_random_fills_write_through_views_like_torch():
    def filled(T):
        T.manual_seed(5)
        base = T.zeros(3, 4)
        base[1].cauchy_()
        base[:, 2].log_normal_()
        base[0, :2].geometric_(0.3)
        return base.numpy().copy()

    np.testing.assert_array_equal(filled(mt), filled(rt))


@pytest.mark.parametrize("call", [
    lambda T: T.empty(3).cauchy_(0.0, 0.0), lambda T: T.empty(3).cauchy_(0.0, -1.0),
    lambda T: T.empty(3, dtype=T.int64).cauchy_(),
    lambda T: T.empty(3).log_normal_(0.0, 0.0), lambda T: T.empty(3, dtype=T.int64).log_normal_(),
    lambda T: T.empty(3).geometric_(0.0), lambda T: T.empty(3).geometric_(1.0), lambda T: T.empty(3).geometric_(1.5),
    lambda T: T.empty(3, dtype=T.bool).geometric_(0.5),
], ids=["cauchy_sigma0", "cauchy_sigma<0", "cauchy_int", "log_normal_std0", "log_normal_int", "geometric_0",
        "geometric_1", "geometric_1.5", "geometric_bool"])
def test_random_fill_errors_match_torch(call):
    with pytest.raises(Exception) as theirs:
        call(rt)
    with pytest.raises(Exception) as ours:
        call(mt)
    assert type(ours.value) is type(theirs.value), (ours.value, theirs.value)
    if "expects" in str(theirs.value):
        assert str(ours.value) == str(theirs.value)


def _poisson_draws(T):
    T.manual_seed(3)
    rates = T.tensor([0.5, 3.0, 9.9, 10.0, 25.0, 100.0, 0.0, 1e4] * 3)
    draws = [T.poisson(rates), T.poisson(rates.double()), T.poisson(T.arange(6.0).reshape(2, 3).t()),
             T.poisson(T.full((2, 2), 3.0)), T.poisson(T.tensor([1.0, 4.0], dtype=T.float16)),
             T.poisson(T.tensor([1.0, 30.0], dtype=T.bfloat16)),
             T.poisson(T.tensor([2.0, 12.0]), generator=T.Generator().manual_seed(1)), T.poisson(T.ones(0, 2)),
             T.rand(3)]
    return [(str(d.dtype), tuple(d.shape), d.float().numpy().tolist()) for d in draws]


def test_poisson_draws_torch_numbers_bit_for_bit():
    assert _poisson_draws(mt) == _poisson_draws(rt)


def test_poisson_gradient_and_errors_match_torch():
    grads = []
    for T in (mt, rt):
        rates = T.tensor([2.0, 3.0], requires_grad=True)
        counts = T.poisson(rates)
        grads.append((counts.requires_grad, T.autograd.grad((counts * 2).sum(), rates)[0].tolist()))
        for bad, error in ((T.tensor([-1.0]), RuntimeError), (T.tensor([float("nan")]), RuntimeError),
                           (T.tensor([1]), NotImplementedError)):
            with pytest.raises(error):
                T.poisson(bad)
    assert grads[0] == grads[1]


# ---------------------------------------------------------------- QR in Householder form, lu_solve
def _geqrf(T, a):
    return T.geqrf(a), a.geqrf()


def _orgqr(T, a, tau):
    return a.orgqr(tau), T.orgqr(a, tau)


def _lu_solve(T, b, a):
    LU, pivots = T.linalg.lu_factor(a)
    return b.lu_solve(LU, pivots), T.lu_solve(b, LU, pivots)


def _ormqr(left, transpose):
    def run(T, a, tau, other):
        return a.ormqr(tau, other, left, transpose), T.ormqr(a, tau, other, left=left, transpose=transpose)
    return run


_tall, _tau = randn(5, 3).astype(np.float64), randn(3).astype(np.float64)
CASES = {
    "qr": (lambda T, a: a.qr(), [randn(4, 3).astype(np.float64)]),
    "qr_batched_float32": (lambda T, a: a.qr(some=True), [randn(2, 3, 3)]),
    "qr_complete": (lambda T, a: (a.qr(some=False), a.mT.qr()), [const(randn(4, 3).astype(np.float64))]),
    "geqrf_tall": (_geqrf, [const(randn(5, 3).astype(np.float64))]),
    "geqrf_wide_batched": (_geqrf, [const(randn(2, 3, 4).astype(np.float64))]),
    "geqrf_float32": (_geqrf, [const(randn(4, 4))]),
    "orgqr": (_orgqr, [_tall, _tau]),
    "orgqr_batched": (_orgqr, [randn(2, 4, 4).astype(np.float64), randn(2, 3).astype(np.float64)]),
    "ormqr_left": (_ormqr(True, False), [_tall, _tau, randn(5, 2).astype(np.float64)]),
    "ormqr_left_transpose": (_ormqr(True, True), [_tall, _tau, randn(5, 2).astype(np.float64)]),
    "ormqr_right": (_ormqr(False, False), [_tall, _tau, randn(2, 5).astype(np.float64)]),
    "ormqr_right_transpose": (_ormqr(False, True), [_tall, _tau, randn(2, 5).astype(np.float64)]),
    "ormqr_of_geqrf": (lambda T, a, other: T.ormqr(*T.geqrf(a), other, transpose=True),
                       [const(randn(4, 3).astype(np.float64)), randn(4, 2).astype(np.float64)]),
    "cholesky_upper": (lambda T, a: (T.cholesky(a @ a.mT + 3 * T.eye(3), upper=True),
                                     (a @ a.mT + 3 * T.eye(3)).cholesky(True)), [randn(3, 3).astype(np.float64)]),
    "lu_solve": (_lu_solve, [randn(3, 2).astype(np.float64), randn(3, 3).astype(np.float64)]),
    "lu_solve_batched": (_lu_solve, [randn(2, 4, 1).astype(np.float64), randn(2, 4, 4).astype(np.float64)]),
}


@pytest.mark.parametrize("name", list(CASES))
def test_householder_family_matches_torch(name):
    fn, arrays = CASES[name]
    (ours, our_grads), (theirs, their_grads) = _run(mt, fn, arrays), _run(rt, fn, arrays)
    _same(ours, theirs)
    assert (our_grads is None) == (their_grads is None)
    for i, (a, b) in enumerate(zip(our_grads or [], their_grads or [])):
        _same(a, b, f"grad[{i}]")


def test_geqrf_reconstructs_the_input_and_has_no_gradient_like_torch():
    a = randn(4, 3).astype(np.float64)
    for T in (mt, rt):
        x = T.tensor(a, requires_grad=True)
        factors, tau = T.geqrf(x)
        Q = T.linalg.householder_product(factors, tau)
        np.testing.assert_allclose((Q @ factors.detach().triu()[:3]).detach().numpy(), a, atol=1e-12)
        with pytest.raises(RuntimeError):
            (factors.sum() + tau.sum()).backward()


@pytest.mark.parametrize("call", [
    lambda T: T.geqrf(T.ones(3)), lambda T: T.geqrf(T.ones(2, 2, dtype=T.int64)),
    lambda T: T.ormqr(T.ones(4, 3), T.ones(3), T.ones(3, 2)),
    lambda T: T.ormqr(T.ones(4, 3), T.ones(3), T.ones(2, 3), left=False),
    lambda T: T.ormqr(T.ones(4, 3), T.ones(5), T.ones(4, 2)),
], ids=["geqrf_1d", "geqrf_int", "ormqr_rows", "ormqr_cols", "ormqr_tau"])
def test_householder_family_refuses_what_torch_refuses(call):
    with pytest.raises(Exception) as theirs:
        call(rt)
    with pytest.raises(Exception) as ours:
        call(mt)
    assert type(ours.value) is type(theirs.value), (ours.value, theirs.value)


def test_geqrf_and_ormqr_out_match_torch():
    a, other = randn(4, 3).astype(np.float64), randn(4, 2).astype(np.float64)
    seen = []
    for T in (mt, rt):
        fa, ft, fo = T.empty(0, dtype=T.float64), T.empty(0, dtype=T.float64), T.empty(0, dtype=T.float64)
        result = T.geqrf(T.tensor(a), out=(fa, ft))
        assert result[0] is fa and result[1] is ft
        assert T.ormqr(fa, ft, T.tensor(other), out=fo) is fo
        seen.append([fa.numpy().copy(), ft.numpy().copy(), fo.numpy().copy()])
    for x, y in zip(*seen):
        np.testing.assert_allclose(x, y, rtol=1e-10, atol=1e-12)


# ---------------------------------------------------------------- what torch removed
REMOVED_FUNCTIONS = {
    "solve": lambda T, a: T.solve(a, a), "eig": lambda T, a: T.eig(a), "symeig": lambda T, a: T.symeig(a),
    "lstsq": lambda T, a: T.lstsq(a, a), "matrix_rank": lambda T, a: T.matrix_rank(a),
    "Tensor.solve": lambda T, a: a.solve(a), "Tensor.eig": lambda T, a: a.eig(),
    "Tensor.symeig": lambda T, a: a.symeig(eigenvectors=True), "Tensor.lstsq": lambda T, a: a.lstsq(a),
}


@pytest.mark.parametrize("name", list(REMOVED_FUNCTIONS))
def test_removed_linalg_functions_raise_torchs_error(name):
    messages = []
    for T in (rt, mt):
        with pytest.raises(RuntimeError) as err:
            REMOVED_FUNCTIONS[name](T, T.eye(3))
        messages.append(str(err.value))
    first = "This function was deprecated since version 1.9 and is now removed."
    assert messages[0].startswith(first) and messages[1].startswith(first)
    name = name.split(".")[-1]
    if name != "symeig":  # (torch's own message names the replacement function; so must ours)
        assert f"torch.linalg.{name}" in messages[0] and f"torch.linalg.{name}" in messages[1]


def test_removed_variable_attributes_answer_like_torch():
    def seen(T):
        x = T.ones(2)
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            volatile = x.volatile
            x.volatile = True
            after = x.volatile
        with pytest.raises(RuntimeError) as err:
            x.reinforce(1.0)
        with pytest.raises(AttributeError):
            x.name = "weights"
        return (volatile, after, x.name, (x * 2).name, [(str(w.message), w.category) for w in caught],
                str(err.value).splitlines()[0])

    assert seen(mt) == seen(rt)


# ---------------------------------------------------------------- storage queries
def _views(T):
    x = T.arange(24.0).reshape(4, 6)
    return x, {"self": x, "view": x.view(6, 4), "rows": x[1:], "column": x[:, 2], "t": x.t(), "row": x[3],
               "narrow": x.narrow(1, 2, 3), "expand": x[:1].expand(5, 6), "unsqueeze": x.unsqueeze(0),
               "diagonal": x.diagonal(), "reshape": x.reshape(2, 12), "flatten": x.flatten()}


def _storage_layout(T):
    base, views = _views(T)
    origin = base.data_ptr()
    out = {}
    for name, v in views.items():
        storage = v.untyped_storage()
        out[name] = (v.data_ptr() - origin, storage.data_ptr() - origin, storage.nbytes(), storage.size(),
                     len(storage), str(storage.device))
    fresh = {"clone": base.clone(), "contiguous": base.t().contiguous(), "sum": base.sum(0)}
    for name, v in fresh.items():
        storage = v.untyped_storage()
        out[name] = (v.data_ptr() != origin, storage.data_ptr() == v.data_ptr(), storage.nbytes())
    return out


def test_data_ptr_and_untyped_storage_of_views_match_torch():
    assert _storage_layout(mt) == _storage_layout(rt)


def test_grad_fn_is_set_exactly_where_torch_sets_it():
    def seen(T):
        leaf = T.ones(2, 3, requires_grad=True)
        plain = T.ones(2, 3)
        with T.no_grad():
            quiet = leaf * 2
        results = {"leaf": leaf, "plain": plain, "op": leaf * 2, "op_of_plain": plain * 2, "no_grad": quiet,
                   "detach": (leaf * 2).detach(), "view": (leaf * 2)[0], "sum": leaf.sum(),
                   "compare": leaf > 0, "argmax": leaf.argmax(), "cast": leaf.double(), "int_cast": leaf.long()}
        return {name: t.grad_fn is None for name, t in results.items()}

    assert seen(mt) == seen(rt)


def _sharing(T):
    x = T.arange(6.0)
    v = x[2:]
    seen = [x.is_shared(), v.is_shared()]
    assert x.share_memory_() is x
    seen += [x.is_shared(), v.is_shared(), x.tolist(), v.data_ptr() - x.data_ptr()]
    x[3] = 100.0
    x.add_(1)
    seen += [v.tolist(), (x * 2).is_shared(), x.clone().is_shared(), x.view(2, 3).is_shared()]
    empty = T.ones(0)
    empty.share_memory_()
    seen.append(empty.is_shared())
    p = T.nn.Parameter(T.arange(3.0))
    p.share_memory_()
    (p * p).sum().backward()
    seen += [p.is_shared(), p.requires_grad, p.grad.tolist(), p.untyped_storage().nbytes()]
    return seen


def test_share_memory_moves_the_storage_with_its_views_like_torch():
    from mindnlp_shim import _mindspore as ms_release

    if not ms_release.SHARING_MOVES_VIEWS:  # (2.8 would leave the views behind, 2.7 cannot share: refused, naming it)
        x = mt.arange(6.0)
        view = x[2:]
        with pytest.raises(NotImplementedError, match=f"is not supported on MindSpore {ms_release.VERSION_TEXT}"):
            x.share_memory_()
        with pytest.raises(NotImplementedError, match=f"is not supported on MindSpore {ms_release.VERSION_TEXT}"):
            view.share_memory_()
        assert _not_shared(mt) == _not_shared(rt)
        assert _sharing_without_views(mt) == _sharing_without_views(rt)
        return
    assert _sharing(mt) == _sharing(rt)
    assert _sharing_without_views(mt) == _sharing_without_views(rt)


def _sharing_without_views(T):
    # a tensor that no view reads (as `datasets` shares an epoch counter), then views of it, and a forked
    # process's write seen by the parent
    x = T.arange(6.0).reshape(2, 3)
    seen = [x.is_shared(), x.share_memory_() is x, x.is_shared(), x.tolist(), x.share_memory_() is x]
    view = x[1]
    seen += [view.is_shared(), x.t().is_shared(), x.clone().is_shared()]
    counter = T.tensor(0).share_memory_()
    pid = os.fork()
    if pid == 0:
        try:
            counter.add_(7)
            view.fill_(-1.0)
        finally:
            os._exit(0)
    os.waitpid(pid, 0)
    return seen + [counter.item(), x.tolist(), counter.dtype == T.int64]


def _not_shared(T):
    # what torch answers of storages nothing moved into shared memory, and of an empty one "moved" there
    x = T.arange(6.0)
    empty = T.ones(0)
    seen = [x.is_shared(), x[2:].is_shared(), x.view(2, 3).t().is_shared(), empty.is_shared()]
    empty.share_memory_()
    return seen + [empty.is_shared(), (x * 2).is_shared()]


def test_pin_memory_without_an_accelerator_fails_like_torch():
    for T in (rt, mt):
        with pytest.raises(RuntimeError, match="accelerator"):
            T.ones(3).pin_memory()


# ---------------------------------------------------------------- storage geometry: as_strided, resize_, set_
STRIDED = {
    "as_strided": (lambda T, a: a.as_strided((3, 2), (4, 1), 1), [randn(12)]),
    "as_strided_transposing": (lambda T, a: T.as_strided(a, (2, 3), (1, 2)), [randn(6).astype(np.float64)]),
    "as_strided_of_a_view": (lambda T, a: a[2:].as_strided((2, 2), (3, 1)), [randn(12)]),
    "as_strided_offset_of_a_view": (lambda T, a: a[1:].as_strided((2, 3), (1, 1), 0), [randn(7)]),
    "as_strided_overlapping": (lambda T, a: a.as_strided((3, 3), (1, 1)), [randn(6)]),
    "as_strided_of_rows": (lambda T, a: a[:, 1:].as_strided((2, 2), (4, 1), 1), [randn(3, 4)]),
    "as_strided_int": (lambda T, a: a.as_strided((2, 2), (1, 2)), [np.arange(6)]),
    "as_strided_copy": (lambda T, a: T.as_strided_copy(a, (2, 2), (1, 2), 1), [randn(6)]),
    "as_strided_scatter_values_and_src_grad": (
        lambda T, a, src: T.as_strided_scatter(a, src, (2, 2), (3, 1), 1), [const(randn(6)), randn(2, 2)]),
    "as_strided_scatter_overlapping": (
        lambda T, a, src: a.as_strided_scatter(src, (2, 2), (1, 1)), [const(randn(6)), const(randn(2, 2))]),
    "as_strided_scatter_cast": (
        lambda T, a, src: T.as_strided_scatter(a, src, (2,), (2,), 0), [const(randn(4)), randn(2).astype(np.float64)]),
    "resize": (lambda T, a: a.resize(3, 2), [randn(2, 3)]),
    "resize_as": (lambda T, a, b: a.resize_as(b), [randn(2, 3), const(randn(6))]),
}


@pytest.mark.parametrize("name", list(STRIDED))
def test_strided_views_match_torch(name):
    fn, arrays = STRIDED[name]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # (torch's deprecation notice of resize / resize_as)
        (ours, our_grads), (theirs, their_grads) = _run(mt, fn, arrays), _run(rt, fn, arrays)
    _same(ours, theirs)
    assert (our_grads is None) == (their_grads is None)
    for i, (a, b) in enumerate(zip(our_grads or [], their_grads or [])):
        if b is None or a is None:
            other = a if b is None else b
            assert other is None or not np.any(other[3]), f"grad[{i}]"
        else:
            _same(a, b, f"grad[{i}]")


def test_as_strided_scatter_input_gradient_is_the_finite_difference():
    """The gradient for `input` is 1 where input's element is kept, 0 where src replaced it. Real torch 2.13
    returns the complement (its own gradcheck fails on this op), so the shim is compared with the definition."""
    a, src, w = randn(6).astype(np.float64), randn(2, 2).astype(np.float64), randn(6).astype(np.float64)
    x = mt.tensor(a, requires_grad=True)
    out = mt.as_strided_scatter(x, mt.tensor(src), (2, 2), (3, 1), 1)
    grad, = mt.autograd.grad((out * mt.tensor(w)).sum(), x)
    kept = np.ones(6)
    kept[[1, 2, 4, 5]] = 0
    np.testing.assert_array_equal(grad.numpy(), w * kept)
    assert not rt.autograd.gradcheck(lambda t: rt.as_strided_scatter(t, rt.tensor(src), (2, 2), (3, 1), 1),
                                     rt.tensor(a, requires_grad=True), raise_exception=False), \
        "real torch's gradient for input now passes its gradcheck: compare with torch instead"


def _aliasing(T):
    """Views of the storage see writes made through a geometry the receiver took in place."""
    seen = {}
    a = T.arange(6.0)
    v = a.as_strided((2, 2), (1, 2))
    v.mul_(10)
    seen["as_strided write"] = a.tolist()
    b = T.arange(6.0)
    w = b.view(2, 3)
    assert b.resize_(2, 2) is b
    b[1, 1] = 77
    seen["resize_ shrink"] = (b.tolist(), w.tolist(), b.stride(), b.storage_offset())
    c = T.arange(4.0)
    tail = c[1:]
    c.resize_(3, 3)
    c[0, 1] = -1
    seen["resize_ grow keeps the old elements"] = (c.reshape(-1)[:4].tolist(), tail.tolist(), tuple(c.shape),
                                                   c.untyped_storage().nbytes())
    d = T.arange(6.0)
    T.resize_as_(d, T.ones(2, 2))
    seen["resize_as_"] = (d.tolist(), d.stride())
    e, src = T.zeros(3), T.arange(5.0)
    assert e.set_(src) is e
    e[0] = 9
    seen["set_ shares"] = (e.tolist(), src.tolist(), e.data_ptr() == src.data_ptr())
    seen["set_ empty"] = (tuple(T.ones(3).set_().shape), str(T.ones(3).set_().dtype))
    base = T.arange(12.0)
    f = T.zeros(1).set_(base, 2, (2, 3))
    g = T.zeros(1).set_(base, 2, (2, 3), (1, 2))
    base[3] = -5
    seen["set_ geometry"] = (f.tolist(), g.tolist(), g.stride(), g.storage_offset())
    grown = T.arange(12.0)
    h = T.zeros(1).set_(grown, 2, (4, 3))
    seen["set_ past the end grows the storage"] = (h.reshape(-1)[:10].tolist(), grown.untyped_storage().nbytes())
    seen["set_ storage"] = T.zeros(1).set_(T.arange(6.0).untyped_storage()).tolist()
    seen["set_ storage geometry"] = T.zeros(1).set_(T.arange(6.0).untyped_storage(), 1, (2, 2)).tolist()
    i = T.arange(6.0)
    assert i.as_strided_((2, 2), (2, 1), 1) is i
    seen["as_strided_"] = (i.tolist(), i.stride(), i.storage_offset())
    f = T.arange(8.0)
    assert T.as_strided_(f, (3,), (2,), 1) is f
    seen["torch.as_strided_"] = (f.tolist(), f.stride(), f.storage_offset())
    j = T.arange(6.0).reshape(2, 3)
    k = j.resize(3, 2)
    k[0, 0] = 50
    seen["resize aliases a contiguous input"] = j.tolist()
    return seen


def test_in_place_geometry_and_aliasing_match_torch():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ours, theirs = _aliasing(mt), _aliasing(rt)
    assert ours == theirs


@pytest.mark.parametrize("call", [
    lambda T: T.arange(12.0).as_strided((3, 4), (4, 1), 1), lambda T: T.arange(12.0).as_strided((3,), (-1,), 5),
    lambda T: T.arange(12.0).as_strided((3, 2), (1,)), lambda T: T.ones(1).expand(3).as_strided((2,), (1,)),
    lambda T: T.ones(3, requires_grad=True).resize_(2), lambda T: (T.ones(3, requires_grad=True) * 2).resize_(2),
    lambda T: T.ones(3, requires_grad=True).set_(T.ones(2)), lambda T: T.ones(2).set_(T.ones(2, dtype=T.float64)),
    lambda T: T.ones(3, requires_grad=True).as_strided_((2,), (1,)),
    lambda T: T.arange(6.0).reshape(2, 3).resize(4),
    lambda T: T.as_strided_scatter(T.zeros(6), T.ones(2), (2, 2), (3, 1), 1),
    lambda T: T.as_strided_scatter(T.zeros(6), T.ones(2, 2), (2, 2), (3, 1), 3),
], ids=["out_of_bounds", "negative_stride", "stride_length", "expanded_storage", "resize_leaf_grad",
        "resize_non_leaf", "set_leaf_grad", "set_dtype", "as_strided__leaf_grad", "resize_count",
        "scatter_src_size", "scatter_out_of_bounds"])
def test_storage_geometry_errors_match_torch(call):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with pytest.raises(Exception) as theirs:
            call(rt)
        with pytest.raises(Exception) as ours:
            call(mt)
    assert type(ours.value) is type(theirs.value), (ours.value, theirs.value)
    assert str(ours.value) == str(theirs.value)


def test_resize_warns_like_torch():
    for name, call in {"resize": lambda T, x: x.resize(6), "resize_as": lambda T, x: x.resize_as(T.ones(6))}.items():
        messages = []
        for T in (mt, rt):
            with warnings.catch_warnings(record=True) as caught:
                warnings.simplefilter("always")
                call(T, T.ones(2, 3))
            messages.append([str(w.message) for w in caught])
        assert messages[0] == messages[1], name


def test_torch_conj_physical__is_the_in_place_method():
    for T in (mt, rt):
        x = T.tensor([1.5, -2.0])
        assert T.conj_physical_(x) is x and x.tolist() == [1.5, -2.0]
    assert mt.conj_physical_ is mt.Tensor.conj_physical_


# ---------------------------------------------------------------- istft
def _spectrogram(T, signal, n_fft, hop, window, **kw):
    return T.stft(signal, n_fft, hop_length=hop, window=window, return_complex=True, **kw)


ISTFT = {  # (the spectrograms come from const signals: the shim's complex stft takes no gradient)
    "round_trip_batched": (lambda T, s, w: T.istft(_spectrogram(T, s, 8, 2, w.detach()), 8, hop_length=2, window=w),
                           [const(randn(2, 40).astype(np.float64)), np.hanning(10)[1:-1].astype(np.float64)]),
    "unbatched_length": (lambda T, s, w: _spectrogram(T, s, 8, 2, w).istft(8, 2, window=w, length=37),
                         [const(randn(40).astype(np.float64)), const(np.hanning(10)[1:-1].astype(np.float64))]),
    "short_window_normalized": (
        lambda T, s, w: T.istft(_spectrogram(T, s, 8, 3, w.detach(), win_length=6, normalized=True), 8,
                                hop_length=3, win_length=6, window=w, normalized=True),
        [const(randn(33).astype(np.float64)), np.hanning(8)[1:-1].astype(np.float64)]),
    "two_sided_not_centred": (
        lambda T, s, w: T.istft(_spectrogram(T, s, 8, 4, w, onesided=False, center=False), 8, hop_length=4,
                                window=w, onesided=False, center=False),
        [const(randn(36).astype(np.float64)), const(np.full(8, 0.8))]),
    "spectrum_gradient": (
        lambda T, re, im, w: T.istft(T.complex(re, im), 8, hop_length=2, window=w, length=30),
        [randn(5, 13).astype(np.float64), randn(5, 13).astype(np.float64), np.hanning(10)[1:-1].astype(np.float64)]),
}


@pytest.mark.parametrize("name", list(ISTFT))
def test_istft_matches_torch(name):
    fn, arrays = ISTFT[name]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        (ours, our_grads), (theirs, their_grads) = _run(mt, fn, arrays), _run(rt, fn, arrays)
    _same(ours, theirs)
    assert (our_grads is None) == (their_grads is None)
    for i, (a, b) in enumerate(zip(our_grads or [], their_grads or [])):
        _same(a, b, f"grad[{i}]")


@pytest.mark.parametrize("call", [
    lambda T, x: T.istft(T.view_as_real(x), 8), lambda T, x: T.istft(x[0, 0], 8), lambda T, x: T.istft(x[None], 8),
    lambda T, x: T.istft(x, 8, hop_length=9), lambda T, x: T.istft(x, 8, win_length=9),
    lambda T, x: T.istft(x, 10), lambda T, x: T.istft(x, 8, onesided=False),
    lambda T, x: T.istft(x, 8, window=T.ones(5)),
    lambda T, x: T.istft(x, 8, center=False, window=T.hann_window(8)),
    lambda T, x: T.istft(x, 8, window=T.ones(8, dtype=T.complex64)),
], ids=["real", "1d", "4d", "hop", "win_length", "freqs", "two_sided", "window_size", "envelope", "complex_window"])
def test_istft_refuses_what_torch_refuses(call):
    def spectrogram(T):
        return T.stft(T.tensor(np.linspace(-1, 1, 80, dtype=np.float32).reshape(2, 40)), 8, window=T.ones(8),
                      return_complex=True)

    with pytest.raises(Exception) as theirs:
        call(rt, spectrogram(rt))
    with pytest.raises(Exception) as ours:
        call(mt, spectrogram(mt))
    assert type(ours.value) is type(theirs.value), (ours.value, theirs.value)


# ---------------------------------------------------------------- SVD gradients in float64
def _gauge_free(T, U, S, Vh):
    """Functions of the factors that do not depend on the sign of each singular pair."""
    w = T.tensor(np.linspace(-1, 1, U.shape[-2] * Vh.shape[-1]).reshape(U.shape[-2], Vh.shape[-1]))
    return (S * S.flip(-1)).sum() + ((U * S.unsqueeze(-2)) @ Vh * w).sum() + ((U @ U.mH) * (U @ U.mH)).sum()


SVD_GRADIENTS = {
    "tall": (lambda T, a: _gauge_free(T, *T.linalg.svd(a, full_matrices=False)), (6, 4)),
    "wide": (lambda T, a: _gauge_free(T, *T.linalg.svd(a, full_matrices=False)), (3, 5)),
    "batched": (lambda T, a: _gauge_free(T, *T.linalg.svd(a, full_matrices=False)), (2, 4, 4)),
    "full_matrices": (lambda T, a: T.linalg.svd(a)[1].sum() + T.linalg.svd(a).U[:, :3].abs().sum(), (5, 3)),
    "svdvals": (lambda T, a: (T.linalg.svdvals(a) ** 3).sum(), (4, 6)),
    "torch_svd": (lambda T, a: _gauge_free(T, *(lambda u, s, v: (u, s, v.mH))(*T.svd(a))), (5, 4)),
    "singular_values_only": (lambda T, a: (T.svd(a, compute_uv=False).S * T.arange(1.0, 4.0)).sum(), (3, 4)),
}


@pytest.mark.parametrize("name", list(SVD_GRADIENTS))
def test_float64_svd_gradients_match_torch(name):
    fn, shape = SVD_GRADIENTS[name]
    a = np.random.default_rng(7).standard_normal(shape)
    grads = []
    for T in (mt, rt):
        x = T.tensor(a, requires_grad=True)
        grads.append(T.autograd.grad(fn(T, x), x)[0].numpy())
    np.testing.assert_allclose(grads[0], grads[1], rtol=1e-10, atol=1e-12)


# ---------------------------------------------------------------- randomized low-rank SVD
LOWRANK = {
    "svd_tall": (lambda T, a: T.svd_lowrank(a, q=3), randn(7, 5).astype(np.float64)),
    "svd_wide_float32": (lambda T, a: T.svd_lowrank(a, q=2, niter=1), randn(3, 9)),
    "svd_with_M": (lambda T, a: T.svd_lowrank(a, q=4, niter=0, M=a.mean(0, keepdim=True)),
                   randn(6, 5).astype(np.float64)),
    "svd_batched": (lambda T, a: T.svd_lowrank(a, q=2), randn(2, 6, 4).astype(np.float64)),
    "pca": (lambda T, a: T.pca_lowrank(a, q=2), randn(8, 5).astype(np.float64)),
    "pca_uncentred": (lambda T, a: T.pca_lowrank(a, center=False, niter=3), randn(5, 7).astype(np.float64)),
}


def _lowrank(T, name, a, grad):
    fn, _ = LOWRANK[name]
    T.manual_seed(123)
    x = T.tensor(a, requires_grad=grad)
    U, S, V = fn(T, x)
    after = T.rand(3).numpy()  # (the generator has made the same draws)
    return x, U, S, V, after


@pytest.mark.parametrize("name", list(LOWRANK))
def test_randomized_svd_matches_torch_for_a_seed(name):
    """Singular values as torch's; singular vectors as torch's up to the sign of each (u_i, v_i) pair, the
    freedom torch documents; the gradient of a sign-free function of the factors as torch's."""
    a = LOWRANK[name][1]
    _, U, S, V, after = _lowrank(mt, name, a, False)
    _, rU, rS, rV, rafter = _lowrank(rt, name, a, False)
    tol = dict(rtol=1e-4, atol=1e-5) if a.dtype == np.float32 else dict(rtol=1e-9, atol=1e-10)
    np.testing.assert_allclose(S.numpy(), rS.numpy(), **tol)
    signs = np.sign((U.numpy() * rU.numpy()).sum(-2, keepdims=True))
    np.testing.assert_allclose(U.numpy() * signs, rU.numpy(), **tol)
    np.testing.assert_allclose(V.numpy() * signs, rV.numpy(), **tol)
    np.testing.assert_array_equal(after, rafter)
    grads = []
    for T in (mt, rt):
        x, U, S, V, _ = _lowrank(T, name, a, True)
        w = T.tensor(np.linspace(-1, 1, U.shape[-2] * V.shape[-2]).reshape(U.shape[-2], V.shape[-2]),
                     dtype=x.dtype)
        loss = (S * S).sum() + ((U * S.unsqueeze(-2)) @ V.mH * w).sum()
        grads.append(T.autograd.grad(loss, x)[0].numpy())
    np.testing.assert_allclose(grads[0], grads[1], **tol)


def test_pca_lowrank_refuses_what_torch_refuses():
    for call in (lambda T: T.pca_lowrank(T.ones(3, 4), q=5), lambda T: T.pca_lowrank(T.ones(3, 4), niter=-1)):
        for T in (rt, mt):
            with pytest.raises(ValueError):
                call(T)


# ---------------------------------------------------------------- hashing, loading and dequantizing
HASHES = [
    (lambda T: T.tensor([1.0, 2.0, 3.0]), {}), (lambda T: T.tensor([[1, 2], [3, 4]]), dict(dim=1, keepdim=True)),
    (lambda T: T.tensor([1, 2, 3], dtype=T.int32), {}), (lambda T: T.tensor([True, False]), {}),
    (lambda T: T.tensor([1.5], dtype=T.float16), {}), (lambda T: T.tensor([-1]), {}),
    (lambda T: T.arange(24.0).reshape(2, 3, 4), dict(dim=[0, 2])), (lambda T: T.arange(6).reshape(2, 3), dict(dim=-1)),
    (lambda T: T.tensor([1.1], dtype=T.bfloat16), {}), (lambda T: T.tensor([200], dtype=T.uint8), {}),
    (lambda T: T.tensor(3.5), {}), (lambda T: T.tensor([float("nan"), -0.0]), {}),
    (lambda T: T.ones(2, 0), dict(dim=0)),
    (lambda T: T.ones(2, 3, dtype=T.float64, requires_grad=True), dict(dim=(0, 1), keepdim=True)),
]


@pytest.mark.parametrize("case", range(len(HASHES)))
def test_hash_tensor_matches_torch(case):
    make, kwargs = HASHES[case]
    ours, theirs = mt.hash_tensor(make(mt), **kwargs), make(rt).hash_tensor(**kwargs)
    assert (str(ours.dtype), tuple(ours.shape), ours.requires_grad) == \
        (str(theirs.dtype), tuple(theirs.shape), theirs.requires_grad)
    assert np.asarray(ours.numpy()).tolist() == np.asarray(theirs.numpy()).tolist()
    assert np.asarray(make(mt).hash_tensor(**kwargs).numpy()).tolist() == np.asarray(ours.numpy()).tolist()


@pytest.mark.parametrize("call", [
    lambda T: T.ones(2).hash_tensor(mode=1), lambda T: T.ones(2, dtype=T.complex64).hash_tensor(),
    lambda T: T.ones(0).hash_tensor(), lambda T: T.ones(0, 3).hash_tensor(0), lambda T: T.ones(2).hash_tensor(1),
], ids=["mode", "complex", "empty", "empty_dim", "dim_range"])
def test_hash_tensor_refuses_what_torch_refuses(call):
    with pytest.raises(Exception) as theirs:
        call(rt)
    with pytest.raises(Exception) as ours:
        call(mt)
    assert type(ours.value) is type(theirs.value) and str(ours.value) == str(theirs.value)


def _loading(T):
    seen = []
    target, value = T.zeros(2, 3), T.arange(6.0).reshape(2, 3)
    loaded = target.module_load(value)
    seen += [loaded.tolist(), target.tolist(), loaded.data_ptr() == target.data_ptr(), loaded.requires_grad]
    kept = T.ones(2, requires_grad=True)
    assigned = T.zeros(2).module_load(kept, assign=True)
    seen += [assigned.tolist(), assigned.requires_grad, assigned.data_ptr() == kept.data_ptr()]
    param = T.nn.Parameter(T.zeros(2))
    with T.no_grad():
        seen.append(param.module_load(T.ones(2)).tolist())
    with pytest.raises(RuntimeError):
        param.module_load(T.ones(2))
    x = T.ones(3)
    seen += [x.dequantize() is x, T.dequantize(x) is x]
    with pytest.raises(NotImplementedError):
        T.dequantize([x, x])
    leaf = T.ones(2, requires_grad=True)
    seen += [str(leaf.grad_dtype), str(T.ones(2, dtype=T.int64).grad_dtype), str(T.ones(2, dtype=T.float16).grad_dtype)]
    leaf.grad_dtype = T.float32
    (leaf * 2).sum().backward()
    seen += [str(leaf.grad_dtype), str(leaf.grad.dtype)]
    for verb, call in (("accessed", lambda: (leaf * 2).grad_dtype), ("set", lambda: setattr(leaf * 2, "grad_dtype",
                                                                                             T.float32))):
        with pytest.raises(RuntimeError, match=f"grad_dtype can only be {verb} on leaf tensors"):
            call()
    return seen


def test_module_load_dequantize_and_grad_dtype_match_torch():
    assert _loading(mt) == _loading(rt)


def test_grad_dtype_other_than_the_tensors_is_refused():
    with pytest.raises(NotImplementedError, match="grad_dtype"):
        mt.ones(2, requires_grad=True).grad_dtype = mt.float64


SPARSE_ACCESSORS = ("indices", "values", "coalesce", "is_coalesced", "crow_indices", "col_indices", "ccol_indices",
                    "row_indices")


@pytest.mark.parametrize("name", SPARSE_ACCESSORS)
def test_sparse_accessors_on_a_strided_tensor_fail_like_torch(name):
    messages = []
    for T in (rt, mt):
        for t in (T.ones(2, 3), T.ones(2, requires_grad=True), T.tensor(3)):
            with pytest.raises(RuntimeError) as err:
                getattr(t, name)()
            messages.append(str(err.value))
    assert messages[:3] == messages[3:]
    assert messages[0] == f"{name} expected " + messages[0].split(" expected ", 1)[1]



def test_output_nr_of_tensors_without_a_grad_fn_is_torchs_and_others_refuse():
    for T in (mt, rt):
        leaf = T.tensor(randn(3), requires_grad=True)
        with T.no_grad():
            made_without_grad = leaf * 2
        assert (leaf.output_nr, T.zeros(2).output_nr, made_without_grad.output_nr, (leaf * 2).detach().output_nr) \
            == (0, 0, 0, 0)
    assert rt.tensor([1.0, 2.0], requires_grad=True).unbind()[1].output_nr == 1  # what the shim cannot know
    with pytest.raises(NotImplementedError, match="output_nr"):
        mt.tensor([1.0, 2.0], requires_grad=True).unbind()[1].output_nr

# what this module compares with real torch (read by tests/api_census.py)
API_CENSUS = {
    ("torch.Tensor.cauchy_", "torch.Tensor.log_normal_", "torch.Tensor.geometric_"): (
        "test_random_fill_draws_torch_numbers_bit_for_bit", "test_random_fill_errors_match_torch"),
    ("torch.Tensor.qr", "torch.Tensor.geqrf", "torch.Tensor.orgqr", "torch.Tensor.ormqr", "torch.Tensor.lu_solve",
     "torch.geqrf", "torch.ormqr"): "test_householder_family_matches_torch",
    ("torch.solve", "torch.eig", "torch.symeig", "torch.lstsq", "torch.matrix_rank", "torch.Tensor.solve",
     "torch.Tensor.eig", "torch.Tensor.symeig", "torch.Tensor.lstsq"):
        "test_removed_linalg_functions_raise_torchs_error",
    ("torch.Tensor.volatile", "torch.Tensor.reinforce", "torch.Tensor.name"):
        "test_removed_variable_attributes_answer_like_torch",
    ("torch.Tensor.data_ptr", "torch.Tensor.untyped_storage"): "test_data_ptr_and_untyped_storage_of_views_match_torch",
    "torch.Tensor.grad_fn": "test_grad_fn_is_set_exactly_where_torch_sets_it",
    "torch.Tensor.pin_memory": "test_pin_memory_without_an_accelerator_fails_like_torch",
    "torch.Tensor.share_memory_": "test_share_memory_moves_the_storage_with_its_views_like_torch",
    ("torch.as_strided", "torch.Tensor.as_strided", "torch.as_strided_copy", "torch.as_strided_scatter",
     "torch.Tensor.as_strided_scatter", "torch.Tensor.resize", "torch.Tensor.resize_as"): (
        "test_strided_views_match_torch", "test_storage_geometry_errors_match_torch"),
    ("torch.Tensor.as_strided_", "torch.as_strided_", "torch.Tensor.resize_", "torch.resize_as_",
     "torch.Tensor.resize_as_", "torch.Tensor.set_"): ("test_in_place_geometry_and_aliasing_match_torch",
                            "test_storage_geometry_errors_match_torch"),
    "torch.conj_physical_": "test_torch_conj_physical__is_the_in_place_method",
    ("torch.svd_lowrank", "torch.pca_lowrank"): "test_randomized_svd_matches_torch_for_a_seed",
    ("torch.linalg.svd", "torch.linalg.svdvals", "torch.svd"): "test_float64_svd_gradients_match_torch",
    ("torch.hash_tensor", "torch.Tensor.hash_tensor"): ("test_hash_tensor_matches_torch",
                                                        "test_hash_tensor_refuses_what_torch_refuses"),
    ("torch.Tensor.module_load", "torch.Tensor.dequantize", "torch.dequantize", "torch.Tensor.grad_dtype"):
        "test_module_load_dequantize_and_grad_dtype_match_torch",
    "torch.poisson": ("test_poisson_draws_torch_numbers_bit_for_bit", "test_poisson_gradient_and_errors_match_torch"),
    ("torch.Tensor.indices", "torch.Tensor.values", "torch.Tensor.coalesce", "torch.Tensor.is_coalesced",
     "torch.Tensor.crow_indices", "torch.Tensor.col_indices", "torch.Tensor.ccol_indices",
     "torch.Tensor.row_indices"): "test_sparse_accessors_on_a_strided_tensor_fail_like_torch",
    ("torch.istft", "torch.Tensor.istft"): ("test_istft_matches_torch", "test_istft_refuses_what_torch_refuses"),
}
