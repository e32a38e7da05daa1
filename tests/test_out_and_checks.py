"""`out=` arguments and bad-input checks, compared with real PyTorch.

Two generated tables:
- every op that takes `out=` x the out tensor it is given (result's dtype, a castable dtype, a dtype the result
  cannot be cast to, another shape, an empty tensor, a non-tensor, inputs that require grad): both libraries
  must raise the same exception type, or both return the very `out` object holding the same values;
- bad inputs (indices out of range, negative class labels, integer division by zero, wrong index dtypes and
  shapes) x op: both raise, with the same exception type; and the valid neighbours of each bad input (the
  ignored label -100, int32 indices, ...) give the same values.
"""
import warnings

import numpy as np
import pytest

import mindnlp_shim.torch as mt
from conftest import SUBPROCESS_FLAG, real_torch, subprocess_fallback

rt = real_torch()
if rt is None:
    globals()[SUBPROCESS_FLAG] = True
    test_whole_module_in_subprocess = subprocess_fallback(__file__)

_rng = np.random.default_rng(7)


def f32(*shape, low=-2.0, high=2.0):
    return _rng.uniform(low, high, size=shape).astype(np.float32)


def i64(low, high, *shape):
    return _rng.integers(low, high, size=shape).astype(np.int64)


X, Y, POS = f32(3, 4), f32(3, 4), f32(3, 4, low=0.2, high=1.5)
UNIT = f32(3, 4, low=-0.9, high=0.9)
SQ = f32(4, 4)
A, B = f32(2, 3, 4), f32(2, 4, 5)
M34, M45, M35 = f32(3, 4), f32(4, 5), f32(3, 5)
IA, IB = i64(1, 9, 3, 4), i64(1, 4, 3, 4)
MASK = _rng.random((3, 4)) < 0.5
PD = (SQ @ SQ.T + 4 * np.eye(4)).astype(np.float32)
PROBS = f32(3, 4, low=0.1, high=1.0)


# ---------------------------------------------------------------- the out= table
# name -> (call(T, *inputs, **out), inputs, compare values); every op of the shim that takes `out=`
OUT_OPS = {}


def _op(name, call, *inputs, values=True):
    OUT_OPS[name] = (call, inputs, values)


for _n in ["neg", "abs", "exp", "exp2", "expm1", "sin", "cos", "tan", "atan", "sinh", "cosh", "tanh", "sigmoid",
           "erf", "erfc", "floor", "ceil", "trunc", "frac", "sign", "square", "round", "relu", "reciprocal"]:
    _op(_n, (lambda n: lambda T, x, **o: getattr(T, n)(x, **o))(_n), X)
for _n in ["log", "log2", "log10", "log1p", "sqrt", "rsqrt"]:
    _op(_n, (lambda n: lambda T, x, **o: getattr(T, n)(x, **o))(_n), POS)
for _n in ["asin", "acos", "erfinv"]:
    _op(_n, (lambda n: lambda T, x, **o: getattr(T, n)(x, **o))(_n), UNIT)
for _n in ["isnan", "isinf", "isfinite", "isneginf", "isposinf", "logical_not"]:
    _op(_n, (lambda n: lambda T, x, **o: getattr(T, n)(x, **o))(_n), X)
_op("bitwise_not", lambda T, x, **o: T.bitwise_not(x, **o), IA)
for _n in ["add", "sub", "mul", "div", "eq", "ne", "lt", "le", "gt", "ge", "maximum", "minimum", "fmax", "fmin",
           "atan2", "hypot", "logical_and", "logical_or", "logical_xor", "remainder", "fmod", "floor_divide"]:
    _op(_n, (lambda n: lambda T, x, y, **o: getattr(T, n)(x, y, **o))(_n), X, Y)
for _n in ["bitwise_and", "bitwise_or", "bitwise_xor"]:
    _op(_n, (lambda n: lambda T, x, y, **o: getattr(T, n)(x, y, **o))(_n), IA, IB)
_op("add_int", lambda T, x, y, **o: T.add(x, y, **o), IA, IB)
_op("floor_divide_int", lambda T, x, y, **o: T.floor_divide(x, y, **o), IA, IB)
_op("div_trunc", lambda T, x, y, **o: T.div(x, y, rounding_mode="trunc", **o), IA, IB)
_op("pow", lambda T, x, **o: T.pow(x, 2.0, **o), X)
_op("clamp", lambda T, x, **o: T.clamp(x, -0.5, 0.5, **o), X)
_op("where", lambda T, x, y, **o: T.where(T.tensor(MASK), x, y, **o), X, Y)
_op("lerp", lambda T, x, y, **o: T.lerp(x, y, 0.3, **o), X, Y)
_op("addcmul", lambda T, x, y, z, **o: T.addcmul(x, y, z, value=0.5, **o), X, Y, POS)
_op("addcdiv", lambda T, x, y, z, **o: T.addcdiv(x, y, z, value=0.5, **o), X, Y, POS)
_op("nan_to_num", lambda T, x, **o: T.nan_to_num(x, **o), X)
_op("sum", lambda T, x, **o: T.sum(x, 1, **o), X)
_op("mean", lambda T, x, **o: T.mean(x, 0, **o), X)
_op("max_dim", lambda T, x, **o: T.max(x, 1, **o), X)
_op("min_dim", lambda T, x, **o: T.min(x, 1, **o), X)
_op("amax", lambda T, x, **o: T.amax(x, 1, **o), X)
_op("amin", lambda T, x, **o: T.amin(x, 0, **o), X)
_op("all", lambda T, x, **o: T.all(x, 1, **o), MASK)
_op("any", lambda T, x, **o: T.any(x, 0, **o), MASK)
_op("var", lambda T, x, **o: T.var(x, 1, **o), X)
_op("std", lambda T, x, **o: T.std(x, 1, **o), X)
_op("cumsum", lambda T, x, **o: T.cumsum(x, 1, **o), X)
_op("cumprod", lambda T, x, **o: T.cumprod(x, 1, **o), X)
_op("topk", lambda T, x, **o: T.topk(x, 2, **o), X)
_op("sort", lambda T, x, **o: T.sort(x, 1, **o), X)
_op("norm", lambda T, x, **o: T.norm(x, 2, 1, **o), X)
_op("matmul", lambda T, x, y, **o: T.matmul(x, y, **o), M34, M45)
_op("mm", lambda T, x, y, **o: T.mm(x, y, **o), M34, M45)
_op("bmm", lambda T, x, y, **o: T.bmm(x, y, **o), A, B)
_op("baddbmm", lambda T, c, x, y, **o: T.baddbmm(c, x, y, beta=0.5, alpha=2, **o), f32(2, 3, 5), A, B)
_op("addmm", lambda T, c, x, y, **o: T.addmm(c, x, y, beta=0.5, alpha=2, **o), M35, M34, M45)
_op("cat", lambda T, x, y, **o: T.cat([x, y], 1, **o), X, Y)
_op("stack", lambda T, x, y, **o: T.stack([x, y], 0, **o), X, Y)
_op("tril", lambda T, x, **o: T.tril(x, **o), X)
_op("triu", lambda T, x, **o: T.triu(x, 1, **o), X)
_op("index_select", lambda T, x, **o: T.index_select(x, 1, T.tensor([2, 0]), **o), X)
_op("gather", lambda T, x, **o: T.gather(x, 1, T.tensor([[0, 1], [3, 3], [2, 0]]), **o), X)
_op("zeros", lambda T, **o: T.zeros(2, 3, **o))
_op("ones", lambda T, **o: T.ones((2, 3), **o))
_op("empty", lambda T, **o: T.empty(2, 3, **o), values=False)
_op("full", lambda T, **o: T.full((2, 3), 1.5, **o))
_op("arange", lambda T, **o: T.arange(0, 6, **o))
_op("linspace", lambda T, **o: T.linspace(0, 1, 5, **o))
_op("logspace", lambda T, **o: T.logspace(0, 1, 5, **o))
_op("eye", lambda T, **o: T.eye(3, **o))
_op("rand", lambda T, **o: T.rand(2, 3, **o), values=False)
_op("randn", lambda T, **o: T.randn(2, 3, **o), values=False)
_op("randint", lambda T, **o: T.randint(0, 5, (2, 3), **o), values=False)
_op("randperm", lambda T, **o: T.randperm(5, **o), values=False)
_op("normal", lambda T, x, **o: T.normal(x, 1.0, **o), X, values=False)
_op("bernoulli", lambda T, p, **o: T.bernoulli(p, **o), PROBS, values=False)
_op("multinomial", lambda T, p, **o: T.multinomial(p, 2, **o), PROBS, values=False)
_op("normalize", lambda T, x, **o: T.nn.functional.normalize(x, dim=1, **o), X)
_op("cholesky", lambda T, x, **o: T.linalg.cholesky(x, **o), PD)
_op("cholesky_ex", lambda T, x, **o: T.linalg.cholesky_ex(x, **o), PD)
_op("prod", lambda T, x, **o: T.prod(x, 1, **o), X)
_op("nansum", lambda T, x, **o: T.nansum(x, 1, **o), X)
_op("argmax", lambda T, x, **o: T.argmax(x, 1, **o), X)
_op("argmin", lambda T, x, **o: T.argmin(x, **o), X)
_op("logsumexp", lambda T, x, **o: T.logsumexp(x, 1, **o), X)
_op("outer", lambda T, x, y, **o: T.outer(x, y, **o), X[0], Y[1])
_op("dot", lambda T, x, y, **o: T.dot(x, y, **o), X[0], Y[1])
_op("masked_select", lambda T, x, **o: T.masked_select(x, T.tensor(MASK), **o), X)
_op("nonzero", lambda T, x, **o: T.nonzero(x, **o), MASK)
_op("clamp_min", lambda T, x, **o: T.clamp_min(x, 0.1, **o), X)
_op("clamp_max", lambda T, x, **o: T.clamp_max(x, 0.1, **o), X)
_op("take_along_dim", lambda T, x, **o: T.take_along_dim(x, T.tensor([[0], [3], [1]]), 1, **o), X)
_op("index_add", lambda T, x, **o: T.index_add(x, 0, T.tensor([2, 0]), T.ones(2, 4), **o), X)
_op("searchsorted", lambda T, x, **o: T.searchsorted(T.tensor([0.0, 0.5, 1.0]), x, **o), X)
_op("bucketize", lambda T, x, **o: T.bucketize(x, T.tensor([0.0, 0.5, 1.0]), **o), X)
_op("cross", lambda T, x, y, **o: T.cross(x[:, :3], y[:, :3], dim=1, **o), X, Y)
_op("linalg_cross", lambda T, x, y, **o: T.linalg.cross(x[:, :3], y[:, :3], **o), X, Y)
_op("aminmax", lambda T, x, **o: T.aminmax(x, dim=1, **o), X)
_op("hstack", lambda T, x, y, **o: T.hstack([x, y], **o), X, Y)
_op("vstack", lambda T, x, y, **o: T.vstack([x, y], **o), X, Y)
_op("diff", lambda T, x, **o: T.diff(x, dim=1, **o), X)
_op("vector_norm", lambda T, x, **o: T.linalg.vector_norm(x, 3, dim=1, **o), X)
_op("linalg_norm", lambda T, x, **o: T.linalg.norm(x, dim=1, **o), X)
_op("diag", lambda T, x, **o: T.diag(x, **o), X[0])
_op("inverse", lambda T, x, **o: T.inverse(x, **o), PD)
_op("linalg_inv", lambda T, x, **o: T.linalg.inv(x, **o), PD)
_op("inner", lambda T, x, y, **o: T.inner(x, y, **o), X, Y)
_op("addmv", lambda T, c, m, v, **o: T.addmv(c, m, v, beta=0.5, **o), X[:, 0], M34, X[0])
_op("addr", lambda T, c, a, b, **o: T.addr(c, a, b, alpha=2, **o), X, X[:, 0], Y[0])
_op("addbmm", lambda T, c, a, b, **o: T.addbmm(c, a, b, **o), f32(3, 5), A, B)
_op("cholesky_legacy", lambda T, x, **o: T.cholesky(x, **o), PD)
_op("cholesky_inverse", lambda T, x, **o: T.cholesky_inverse(x, **o), np.linalg.cholesky(PD).astype(np.float32))
_op("cholesky_solve", lambda T, b, f, **o: T.cholesky_solve(b, f, **o), f32(4, 2),
    np.linalg.cholesky(PD).astype(np.float32))
_op("nanmean", lambda T, x, **o: T.nanmean(x, 1, **o), X)
_op("quantile", lambda T, x, **o: T.quantile(x, 0.3, dim=1, **o), X)
_op("nanquantile", lambda T, x, **o: T.nanquantile(x, 0.3, dim=1, **o), X)
_op("histc", lambda T, x, **o: T.histc(x, bins=5, min=-2, max=2, **o), X)
_op("svdvals", lambda T, x, **o: T.linalg.svdvals(x, **o), PD, values=False)
_op("linalg_svd", lambda T, x, **o: T.linalg.svd(x, **o), PD, values=False)
_op("gcd", lambda T, x, y, **o: T.gcd(x, y, **o), IA, IB)
_op("lcm", lambda T, x, y, **o: T.lcm(x, y, **o), IA, IB)
_op("bitwise_right_shift", lambda T, x, y, **o: T.bitwise_right_shift(x, y, **o), IA, IB)
_op("bitwise_left_shift", lambda T, x, y, **o: T.bitwise_left_shift(x, y, **o), IA, IB)
_op("signbit", lambda T, x, **o: T.signbit(x, **o), X)
_op("nextafter", lambda T, x, y, **o: T.nextafter(x, y, **o), X, Y)
# bfloat16 inputs (computed in float32 on the CPU, the result written under torch's rule for a bf16 result)
_op("mm_bf16", lambda T, x, y, **o: T.mm(x.bfloat16(), y.bfloat16(), **o), M34, M45)
_op("add_bf16", lambda T, x, y, **o: T.add(x.bfloat16(), y.bfloat16(), **o), X, Y)
_op("exp_bf16", lambda T, x, **o: T.exp(x.bfloat16(), **o), X)
_op("abs_bf16", lambda T, x, **o: T.abs(x.bfloat16(), **o), X)
_op("gt_bf16", lambda T, x, y, **o: T.gt(x.bfloat16(), y.bfloat16(), **o), X, Y)
_op("sum_bf16", lambda T, x, **o: T.sum(x.bfloat16(), 1, **o), X)
_op("cumsum_bf16", lambda T, x, **o: T.cumsum(x.bfloat16(), 1, **o), X)
_op("max_dim_bf16", lambda T, x, **o: T.max(x.bfloat16(), 1, **o), X)
_op("sort_bf16", lambda T, x, **o: T.sort(x.bfloat16(), 1, **o), X)
_op("tril_bf16", lambda T, x, **o: T.tril(x.bfloat16(), **o), X)
_op("cat_bf16", lambda T, x, y, **o: T.cat([x.bfloat16(), y.bfloat16()], 1, **o), X, Y)
_op("where_bf16", lambda T, x, y, **o: T.where(T.tensor(MASK), x.bfloat16(), y.bfloat16(), **o), X, Y)
# torch.linalg and torch.special rows
_op("linalg_cond", lambda T, x, **o: T.linalg.cond(x, **o), PD)
_op("linalg_eigvals", lambda T, x, **o: T.linalg.eigvals(x, **o), PD, values=False)  # (1-ulp LAPACK differences)
_op("linalg_eigvalsh", lambda T, x, **o: T.linalg.eigvalsh(x, **o), PD)
_op("linalg_inv_ex", lambda T, x, **o: T.linalg.inv_ex(x, **o), PD)
_op("linalg_matrix_norm", lambda T, x, **o: T.linalg.matrix_norm(x, **o), X)
_op("linalg_matrix_rank", lambda T, x, **o: T.linalg.matrix_rank(x, **o), X)
_op("linalg_pinv", lambda T, x, **o: T.linalg.pinv(x, **o), X)
_op("linalg_qr", lambda T, x, **o: T.linalg.qr(x, **o), X)
_op("linalg_eig", lambda T, x, **o: T.linalg.eig(x, **o), PD, values=False)  # (vectors: up to phase)
_op("linalg_eigh", lambda T, x, **o: T.linalg.eigh(x, **o), PD, values=False)  # (vectors: up to sign)
_op("linalg_multi_dot", lambda T, x, y, **o: T.linalg.multi_dot([x, y], **o), M34, M45)
_op("linalg_solve", lambda T, a, b, **o: T.linalg.solve(a, b, **o), PD, f32(4, 2))
_op("linalg_solve_ex", lambda T, a, b, **o: T.linalg.solve_ex(a, b, **o), PD, f32(4, 2))
_op("linalg_solve_triangular", lambda T, a, b, **o: T.linalg.solve_triangular(a, b, upper=True, **o), PD,
    f32(4, 2))
_op("linalg_tensorinv", lambda T, x, **o: T.linalg.tensorinv(x.reshape(2, 2, 4), **o), PD)
_op("linalg_tensorsolve", lambda T, a, b, **o: T.linalg.tensorsolve(a, b, **o), PD, f32(4))
_op("linalg_vecdot", lambda T, x, y, **o: T.linalg.vecdot(x, y, **o), X, Y)
_op("special_entr", lambda T, x, **o: T.special.entr(x, **o), POS)
_op("special_ndtr", lambda T, x, **o: T.special.ndtr(x, **o), POS)
_op("special_log_ndtr", lambda T, x, **o: T.special.log_ndtr(x, **o), POS)
_op("special_erfcx", lambda T, x, **o: T.special.erfcx(x, **o), POS)
_op("special_i0e", lambda T, x, **o: T.special.i0e(x, **o), POS)
_op("special_i1", lambda T, x, **o: T.special.i1(x, **o), POS)
_op("special_i1e", lambda T, x, **o: T.special.i1e(x, **o), POS)
_op("special_bessel_j0", lambda T, x, **o: T.special.bessel_j0(x, **o), POS)
_op("special_bessel_j1", lambda T, x, **o: T.special.bessel_j1(x, **o), POS)
_op("special_bessel_y0", lambda T, x, **o: T.special.bessel_y0(x, **o), POS)
_op("special_bessel_y1", lambda T, x, **o: T.special.bessel_y1(x, **o), POS)
_op("special_modified_bessel_i0", lambda T, x, **o: T.special.modified_bessel_i0(x, **o), POS)
_op("special_modified_bessel_i1", lambda T, x, **o: T.special.modified_bessel_i1(x, **o), POS)
_op("special_modified_bessel_k0", lambda T, x, **o: T.special.modified_bessel_k0(x, **o), POS)
_op("special_modified_bessel_k1", lambda T, x, **o: T.special.modified_bessel_k1(x, **o), POS)
_op("special_scaled_modified_bessel_k0", lambda T, x, **o: T.special.scaled_modified_bessel_k0(x, **o), POS)
_op("special_scaled_modified_bessel_k1", lambda T, x, **o: T.special.scaled_modified_bessel_k1(x, **o), POS)
_op("special_spherical_bessel_j0", lambda T, x, **o: T.special.spherical_bessel_j0(x, **o), POS)
_op("special_airy_ai", lambda T, x, **o: T.special.airy_ai(x, **o), POS)
_op("special_ndtri", lambda T, x, **o: T.special.ndtri(x, **o), UNIT)
_op("special_polygamma", lambda T, x, **o: T.special.polygamma(1, x, **o), POS)
_op("special_xlog1py", lambda T, x, y, **o: T.special.xlog1py(x, y, **o), X, POS)
_op("special_zeta", lambda T, x, y, **o: T.special.zeta(x + 1, y, **o), POS, POS)
_op("special_chebyshev_polynomial_t", lambda T, x, **o: T.special.chebyshev_polynomial_t(x, 3, **o), X)
_op("special_chebyshev_polynomial_u", lambda T, x, **o: T.special.chebyshev_polynomial_u(x, 3, **o), X)
_op("special_chebyshev_polynomial_v", lambda T, x, **o: T.special.chebyshev_polynomial_v(x, 3, **o), X)
_op("special_chebyshev_polynomial_w", lambda T, x, **o: T.special.chebyshev_polynomial_w(x, 3, **o), X)
_op("special_shifted_chebyshev_polynomial_t", lambda T, x, **o: T.special.shifted_chebyshev_polynomial_t(x, 3, **o), X)
_op("special_shifted_chebyshev_polynomial_u", lambda T, x, **o: T.special.shifted_chebyshev_polynomial_u(x, 3, **o), X)
_op("special_shifted_chebyshev_polynomial_v", lambda T, x, **o: T.special.shifted_chebyshev_polynomial_v(x, 3, **o), X)
_op("special_shifted_chebyshev_polynomial_w", lambda T, x, **o: T.special.shifted_chebyshev_polynomial_w(x, 3, **o), X)
_op("special_hermite_polynomial_h", lambda T, x, **o: T.special.hermite_polynomial_h(x, 3, **o), X)
_op("special_hermite_polynomial_he", lambda T, x, **o: T.special.hermite_polynomial_he(x, 3, **o), X)
_op("special_laguerre_polynomial_l", lambda T, x, **o: T.special.laguerre_polynomial_l(x, 3, **o), X)
_op("special_legendre_polynomial_p", lambda T, x, **o: T.special.legendre_polynomial_p(x, 3, **o), X)
# top-level compositions and copying forms of view ops
_op("alias_copy", lambda T, x, **o: T.alias_copy(x, **o), X)
_op("detach_copy", lambda T, x, **o: T.detach_copy(x, **o), X)
_op("diagonal_copy", lambda T, x, **o: T.diagonal_copy(x, **o), X)
_op("expand_copy", lambda T, x, **o: T.expand_copy(x[0], (2, 4), **o), X)
_op("permute_copy", lambda T, x, **o: T.permute_copy(x, (1, 0), **o), X)
_op("select_copy", lambda T, x, **o: T.select_copy(x, 1, 2, **o), X)
_op("slice_copy", lambda T, x, **o: T.slice_copy(x, 1, 0, 3, **o), X)
_op("squeeze_copy", lambda T, x, **o: T.squeeze_copy(x[:1], **o), X)
_op("t_copy", lambda T, x, **o: T.t_copy(x, **o), X)
_op("transpose_copy", lambda T, x, **o: T.transpose_copy(x, 0, 1, **o), X)
_op("unfold_copy", lambda T, x, **o: T.unfold_copy(x, 1, 2, 1, **o), X)
_op("unsqueeze_copy", lambda T, x, **o: T.unsqueeze_copy(x, 0, **o), X)
_op("view_copy", lambda T, x, **o: T.view_copy(x, (4, 3), **o), X)
_op("view_as_real_copy", lambda T, x, y, **o: T.view_as_real_copy(T.complex(x, y), **o), X, Y)
_op("chain_matmul", lambda T, x, y, **o: T.chain_matmul(x, y, **o), M34, M45)
_op("column_stack", lambda T, x, y, **o: T.column_stack([x, y], **o), X, Y)
_op("dstack", lambda T, x, y, **o: T.dstack([x, y], **o), X, Y)
_op("complex", lambda T, x, y, **o: T.complex(x, y, **o), X, Y)
_op("polar", lambda T, x, y, **o: T.polar(x, y, **o), POS, Y)
_op("conj_physical", lambda T, x, **o: T.conj_physical(x, **o), X)
_op("frexp", lambda T, x, **o: T.frexp(x, **o), X)
_op("kron", lambda T, x, y, **o: T.kron(x, y, **o), X, Y)
_op("mv", lambda T, m, v, **o: T.mv(m, v, **o), M34, X[0])
_op("vdot", lambda T, x, y, **o: T.vdot(x, y, **o), X[0], Y[1])
_op("tensordot", lambda T, x, y, **o: T.tensordot(x, y, 1, **o), M34, M45)
_op("range", lambda T, **o: T.range(0, 4, **o))
_op("scatter_reduce", lambda T, x, y, **o: T.scatter_reduce(x, 1, T.tensor([[0, 1], [2, 0], [1, 1]]), y, "amax", **o), X, Y)
_op("index_reduce", lambda T, x, y, **o: T.index_reduce(x, 0, T.tensor([1, 1]), y[:2], "amax", **o), X, Y)
_op("linalg_lu_factor", lambda T, x, **o: T.linalg.lu_factor(x, **o), PD)
_op("linalg_lu_factor_ex", lambda T, x, **o: T.linalg.lu_factor_ex(x, **o), PD)
_op("linalg_lu", lambda T, x, **o: T.linalg.lu(x, **o), PD)
_op("linalg_lu_solve", lambda T, x, b, **o: T.linalg.lu_solve(*T.linalg.lu_factor(x), b, **o), PD, f32(4, 2))
_op("lu_unpack", lambda T, x, **o: T.lu_unpack(*T.linalg.lu_factor(x), **o), PD)
_op("lu_solve_legacy", lambda T, x, b, **o: T.lu_solve(b, *T.linalg.lu_factor(x), **o), PD, f32(4, 2))
_op("histogram", lambda T, x, **o: T.histogram(x, 4, **o), X)
_op("linalg_householder_product", lambda T, a, t, **o: T.linalg.householder_product(a, t, **o), M34.T.copy(),
    X[0, :3])
_op("geqrf", lambda T, a, **o: T.geqrf(a, **o), M34.T.copy())
_op("ormqr", lambda T, a, t, c, **o: T.ormqr(a, t, c, **o), M34.T.copy(), X[0, :3], f32(4, 2))
_op("as_strided_copy", lambda T, x, **o: T.as_strided_copy(x, (2, 2), (1, 2), 1, **o), X)
# ops the shim exposes without `out=` in torch's API for them: both must refuse it
_op("argsort", lambda T, x, **o: T.argsort(x, 1, **o), X)
_op("embedding", lambda T, x, **o: T.nn.functional.embedding(T.tensor([1, 0]), x, **o), X)
_op("isclose", lambda T, x, y, **o: T.isclose(x, y, **o), X, Y)
_op("var_mean", lambda T, x, **o: T.var_mean(x, 1, **o), X)
_op("std_mean", lambda T, x, **o: T.std_mean(x, 1, **o), X)

# how the out tensor differs from the result it receives: (dtype rule, shape rule)
_CAST_UP = {"bool": "int64", "int": "float32", "float": "float64"}
_CAST_DOWN = {"int": "bool", "float": "int64"}
VARIANTS = ["same", "cast", "invalid_cast", "resized", "empty", "not_a_tensor", "requires_grad", "no_grad"]


def _kind(dtype_name):
    return "bool" if dtype_name == "bool" else "float" if "float" in dtype_name else "int"


def _dtype_name(t):
    return str(t.dtype).replace("torch.", "")


def _inputs(T, arrays, requires_grad=False):
    out = []
    for a in arrays:
        t = T.tensor(a)
        if requires_grad and a.dtype.kind == "f" and not out:
            t.requires_grad_()
        out.append(t)
    return out


def _out_spec(natural, variant):
    """[(shape, dtype name)] for each tensor of the result `natural` (real torch's, computed without out=), or
    None when the variant does not apply to this op."""
    results = list(natural) if isinstance(natural, tuple) else [natural]
    specs = [(tuple(r.shape), _dtype_name(r)) for r in results]
    shape, dt = specs[0]
    if variant == "cast":
        specs[0] = (shape, _CAST_UP[_kind(dt)] if dt not in ("float64", "int64") or _kind(dt) != "float"
                    else "float32")
    elif variant == "invalid_cast":
        if _kind(dt) == "bool":
            return None
        specs[0] = (shape, _CAST_DOWN[_kind(dt)])
    elif variant == "resized":
        specs = [((7,), d) for _, d in specs]
    elif variant == "empty":
        specs = [((0,), d) for _, d in specs]
    return specs


def _make_out(T, specs):
    outs = tuple(T.full(s, 3, dtype=getattr(T, d)) for s, d in specs)
    return outs if len(outs) > 1 else outs[0]


def _call(T, name, variant, specs):
    call, arrays, _ = OUT_OPS[name]
    grad = variant == "requires_grad" or variant == "no_grad"
    inputs = _inputs(T, arrays, requires_grad=grad)
    out = [1.0, 2.0] if variant == "not_a_tensor" else _make_out(T, specs)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            if variant == "no_grad":
                with T.no_grad():
                    result = call(T, *inputs, out=out)
            else:
                result = call(T, *inputs, out=out)
        except Exception as e:  # noqa: BLE001  (the type is what is compared)
            return ("raised", type(e), str(e)), out, False
    resized_warning = any("resized" in str(w.message) for w in caught)
    return ("returned", result), out, resized_warning


def _np(t):
    return np.array(t.detach().float().numpy() if str(t.dtype) == "torch.bfloat16" else t.detach().numpy())


def _out_cases():
    cases = []
    for name in OUT_OPS:
        for variant in VARIANTS:
            cases.append(pytest.param(name, variant, id=f"{name}-{variant}"))
    return cases


@pytest.mark.parametrize("name,variant", _out_cases())
def test_out_argument_matches_torch(name, variant):
    call, arrays, compare_values = OUT_OPS[name]
    try:
        natural = call(rt, *_inputs(rt, arrays))
    except TypeError:
        natural = None  # torch has no such function
    if natural is None or not isinstance(natural, (rt.Tensor, tuple)):
        pytest.skip("not a tensor-returning torch function")
    specs = _out_spec(natural, variant)
    if specs is None:
        pytest.skip("no dtype below bool")
    rt.manual_seed(0)
    r_res, r_out, r_warned = _call(rt, name, variant, specs)
    m_res, m_out, m_warned = _call(mt, name, variant, specs)
    if r_res[0] == "raised":
        assert m_res[0] == "raised", f"torch raised {r_res[1].__name__}: {r_res[2]!r}; the shim returned"
        assert issubclass(m_res[1], r_res[1]), (f"torch raised {r_res[1].__name__} ({r_res[2]!r}), the shim "
                                                f"{m_res[1].__name__} ({m_res[2]!r})")
        return
    assert m_res[0] == "returned", f"the shim raised {m_res[1].__name__}: {m_res[2]}"
    r_outs = r_out if isinstance(r_out, tuple) else (r_out,)
    m_outs = m_out if isinstance(m_out, tuple) else (m_out,)
    r_ret = r_res[1] if isinstance(r_res[1], tuple) else (r_res[1],)
    m_ret = m_res[1] if isinstance(m_res[1], tuple) else (m_res[1],)
    assert [a is b for a, b in zip(r_ret, r_outs)] == [a is b for a, b in zip(m_ret, m_outs)], \
        "the returned tensors are not the out tensors"
    assert m_warned == r_warned, f"resize warning: torch {r_warned}, shim {m_warned}"
    for i, (m, r) in enumerate(zip(m_outs, r_outs)):
        assert tuple(m.shape) == tuple(r.shape), f"out[{i}] shape {tuple(m.shape)} != torch {tuple(r.shape)}"
        assert _dtype_name(m) == _dtype_name(r), f"out[{i}] dtype {m.dtype} != torch {r.dtype}"
        if compare_values:
            a, b = _np(m), _np(r)
            if a.dtype.kind == "f":
                tol = 1e-5 if "bf16" not in name else 1.6e-2  # (bf16: torch rounds partial sums, the shim not)
                np.testing.assert_allclose(a, b, rtol=tol, atol=tol, equal_nan=True, err_msg=f"out[{i}]")
            else:
                np.testing.assert_array_equal(a, b, err_msg=f"out[{i}]")


def _covered_ops():
    """The functions the out= table calls (`T.<name>(`, `T.linalg.<name>(`, ...), read from this file."""
    import re

    source = open(__file__).read()
    called = re.findall(r'_op\("[^"]+", lambda [^:]*: T\.((?:linalg\.|special\.|nn\.functional\.)?\w+)\(', source)
    looped = re.findall(r'"(\w+)"', " ".join(re.findall(r"for _n in \[([^\]]*)\]", source)))
    return set(called) | set(looped)


def _shim_fn(dotted):
    obj = mt
    for part in dotted.split("."):
        obj = getattr(obj, part)
    return obj


def test_every_op_taking_out_is_in_the_table():
    """An op that grows an `out=` parameter must be in the out= table (an ignored out is the bug it catches)."""
    import inspect

    covered = _covered_ops()
    missing = []
    for prefix, namespace in [("", mt), ("nn.functional.", mt.nn.functional), ("linalg.", mt.linalg),
                              ("special.", mt.special)]:
        for name in dir(namespace):
            fn = getattr(namespace, name)
            if name.startswith("_") or not callable(fn) or isinstance(fn, type):
                continue
            try:
                takes_out = "out" in inspect.signature(fn).parameters
            except (TypeError, ValueError):
                continue
            # an alias (torch.absolute of torch.abs) is covered through the function it names
            same = [n for n in covered if inspect.unwrap(_shim_fn(n)) is inspect.unwrap(fn)]
            if takes_out and prefix + name not in covered and not same:
                missing.append(prefix + name)
    assert not missing, f"ops taking out= without a row in the out= table: {missing}"


def test_out_keeps_identity_and_aliases_for_logits_buffer():
    """The measured case: a logits buffer filled with `torch.mm(..., out=buffer)` must hold the product."""
    x, w = mt.tensor(M34), mt.tensor(M45)
    buffer = mt.zeros(3, 5)
    ident = id(buffer)
    returned = mt.mm(x, w, out=buffer)
    assert returned is buffer and id(buffer) == ident
    np.testing.assert_allclose(buffer.numpy(), M34 @ M45, rtol=1e-5, atol=1e-5)


def _out_uses(T):
    """out= in the ways model code uses it: a slice of a larger buffer, an input as its own out, an out with a
    view of it alive, an out that is a leaf requiring grad."""
    seen = {}
    buf = T.zeros(4, 5)
    T.mm(T.tensor(M34), T.tensor(M45), out=buf[1:])
    seen["slice_of_buffer"] = buf.numpy().copy()
    x = T.tensor(X[0])
    seen["input_is_out"] = (T.add(x, T.tensor(Y[0]), out=x) is x, x.numpy().copy())
    o = T.zeros(3, 4)
    flat = o.view(12)
    T.mul(T.tensor(X), 2, out=o)
    seen["view_of_out"] = flat.numpy().copy()
    leaf = T.zeros(3, 4, requires_grad=True)
    try:
        T.mul(T.tensor(X), 2, out=leaf)
        seen["leaf_requiring_grad"] = "returned"
    except RuntimeError as e:
        seen["leaf_requiring_grad"] = "out=" in str(e)
    with T.no_grad():
        T.mul(T.tensor(X), 2, out=leaf)
    seen["leaf_under_no_grad"] = leaf.detach().numpy().copy()
    return seen


def test_out_as_model_code_uses_it():
    r, m = _out_uses(rt), _out_uses(mt)
    assert r.keys() == m.keys()
    for key in r:
        a, b = (m[key], r[key]) if not isinstance(r[key], tuple) else (m[key][1], r[key][1])
        if isinstance(r[key], tuple):
            assert m[key][0] == r[key][0], key
        if isinstance(b, np.ndarray):
            np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-5, err_msg=key)
        else:
            assert a == b, key


# ---------------------------------------------------------------- the bad-input table
W10 = f32(10, 4)
LOGITS = f32(3, 5)
CW = f32(5, low=0.5, high=2.0)
LOGITS3 = f32(2, 5, 3)


def _F(T):
    return T.nn.functional


BAD = {
    # class labels
    "cross_entropy_neg_label": lambda T: _F(T).cross_entropy(T.tensor(LOGITS), T.tensor([0, -1, 2])),
    "cross_entropy_label_too_big": lambda T: _F(T).cross_entropy(T.tensor(LOGITS), T.tensor([0, 5, 2])),
    "cross_entropy_neg_label_none": lambda T: _F(T).cross_entropy(T.tensor(LOGITS), T.tensor([0, -1, 2]),
                                                                  reduction="none"),
    "cross_entropy_neg_label_sum": lambda T: _F(T).cross_entropy(T.tensor(LOGITS), T.tensor([0, -1, 2]),
                                                                 reduction="sum"),
    "cross_entropy_neg_label_smoothing": lambda T: _F(T).cross_entropy(T.tensor(LOGITS), T.tensor([0, -1, 2]),
                                                                       label_smoothing=0.1),
    "cross_entropy_neg_label_weight": lambda T: _F(T).cross_entropy(T.tensor(LOGITS), T.tensor([0, -1, 2]),
                                                                    weight=T.tensor(CW)),
    "cross_entropy_label_3d": lambda T: _F(T).cross_entropy(T.tensor(LOGITS3), T.tensor([[0, 1, 7], [2, 2, 2]])),
    "cross_entropy_float_label": lambda T: _F(T).cross_entropy(T.tensor(LOGITS), T.tensor([0.0, 1.0, 2.0])),
    "cross_entropy_int32_label": lambda T: _F(T).cross_entropy(T.tensor(LOGITS), T.tensor([0, 1, 2], dtype=T.int32)),
    "cross_entropy_batch_mismatch": lambda T: _F(T).cross_entropy(T.tensor(LOGITS), T.tensor([0, 1])),
    "cross_entropy_module_neg_label": lambda T: T.nn.CrossEntropyLoss()(T.tensor(LOGITS), T.tensor([0, -1, 2])),
    "nll_loss_neg_label": lambda T: _F(T).nll_loss(T.tensor(LOGITS), T.tensor([0, -1, 2])),
    "nll_loss_label_too_big_none": lambda T: _F(T).nll_loss(T.tensor(LOGITS), T.tensor([0, 5, 2]), reduction="none"),
    "nll_loss_weight_size": lambda T: _F(T).nll_loss(T.tensor(LOGITS), T.tensor([0, 1, 2]), weight=T.ones(4)),
    "nll_loss_1d_neg": lambda T: _F(T).nll_loss(T.tensor(LOGITS[0]), T.tensor(-2)),
    # embeddings and index_select
    "embedding_neg": lambda T: _F(T).embedding(T.tensor([[1, -1]]), T.tensor(W10)),
    "embedding_too_big": lambda T: _F(T).embedding(T.tensor([[1, 10]]), T.tensor(W10)),
    "embedding_float_index": lambda T: _F(T).embedding(T.tensor([[1.0, 2.0]]), T.tensor(W10)),
    "embedding_module_too_big": lambda T: T.nn.Embedding(10, 4)(T.tensor([[3, 10]])),
    "embedding_module_neg": lambda T: T.nn.Embedding(10, 4, padding_idx=0)(T.tensor([[3, -1]])),
    "index_select_neg": lambda T: T.index_select(T.tensor(W10), 0, T.tensor([-1])),
    "index_select_too_big": lambda T: T.index_select(T.tensor(W10), 1, T.tensor([4])),
    "index_select_float_index": lambda T: T.index_select(T.tensor(W10), 0, T.tensor([1.0])),
    "index_select_2d_index": lambda T: T.index_select(T.tensor(W10), 0, T.tensor([[1]])),
    "index_select_method_neg": lambda T: T.tensor(W10).index_select(0, T.tensor([2, -3])),
    # gathers and scatters
    "gather_neg": lambda T: T.gather(T.tensor(W10), 1, T.tensor([[-1]])),
    "gather_too_big": lambda T: T.gather(T.tensor(W10), 1, T.tensor([[4]])),
    "gather_float_index": lambda T: T.gather(T.tensor(W10), 1, T.tensor([[1.0]])),
    "gather_ndim": lambda T: T.gather(T.tensor(W10), 1, T.tensor([1])),
    "gather_index_larger": lambda T: T.gather(T.tensor(W10), 1, T.zeros(11, 1, dtype=T.long)),
    "take_along_dim_flat_too_big": lambda T: T.take_along_dim(T.tensor(W10), T.tensor([40])),
    "take_along_dim_flat_neg": lambda T: T.take_along_dim(T.tensor(W10), T.tensor([-1])),
    "scatter_inplace_neg": lambda T: T.zeros(3, 4).scatter_(1, T.tensor([[-1]]), 1.0),
    "scatter_too_big": lambda T: T.zeros(3, 4).scatter(1, T.tensor([[4]]), T.ones(1, 1)),
    "scatter_fn_too_big": lambda T: T.scatter(T.zeros(3, 4), 0, T.tensor([[3]]), T.ones(1, 1)),
    "scatter_float_index": lambda T: T.zeros(3, 4).scatter(1, T.tensor([[1.0]]), T.ones(1, 1)),
    "scatter_src_dtype": lambda T: T.zeros(3, 4).scatter(1, T.tensor([[1]]), T.ones(1, 1, dtype=T.float64)),
    "scatter_add_too_big": lambda T: T.zeros(3, 4).scatter_add(1, T.tensor([[4]]), T.ones(1, 1)),
    "scatter_add_neg": lambda T: T.zeros(3, 4).scatter_add_(1, T.tensor([[-1]]), T.ones(1, 1)),
    "scatter_add_index_larger_than_src": lambda T: T.zeros(3, 4).scatter_add(1, T.zeros(2, 2, dtype=T.long),
                                                                             T.ones(1, 1)),
    "index_add_neg": lambda T: T.zeros(3, 4).index_add(0, T.tensor([-1]), T.ones(1, 4)),
    "index_add_too_big": lambda T: T.zeros(3, 4).index_add_(0, T.tensor([3]), T.ones(1, 4)),
    "index_add_count_mismatch": lambda T: T.zeros(3, 4).index_add(0, T.tensor([1, 2]), T.ones(1, 4)),
    "index_add_float_index": lambda T: T.zeros(3, 4).index_add(0, T.tensor([1.0]), T.ones(1, 4)),
    "index_fill_too_big": lambda T: T.zeros(3, 4).index_fill(0, T.tensor([3]), 1.0),
    "index_fill_too_neg": lambda T: T.zeros(3, 4).index_fill_(0, T.tensor([-4]), 1.0),
    "index_fill_float_index": lambda T: T.zeros(3, 4).index_fill(0, T.tensor([1.0]), 1.0),
    "gather_dim_out_of_range": lambda T: T.gather(T.tensor(W10), 2, T.tensor([[1]])),
    "index_select_dim_out_of_range": lambda T: T.index_select(T.tensor(W10), -3, T.tensor([1])),
    "scatter_index_ndim": lambda T: T.zeros(3, 4).scatter(1, T.tensor([1]), T.ones(1, 1)),
    "scatter_value_float_index": lambda T: T.zeros(3, 4).scatter(1, T.tensor([[1.0]]), 2.0),
    "scatter_add_src_smaller": lambda T: T.zeros(3, 4).scatter_add(1, T.zeros(2, 2, dtype=T.long), T.ones(2, 1)),
    "index_add_source_shape": lambda T: T.zeros(3, 4).index_add(0, T.tensor([1]), T.ones(1, 5)),
    "index_add_source_dtype": lambda T: T.zeros(3, 4).index_add(0, T.tensor([1]), T.ones(1, 4, dtype=T.float64)),
    "index_fill_2d_index": lambda T: T.zeros(3, 4).index_fill(0, T.tensor([[1]]), 1.0),
    "take_along_dim_float_index": lambda T: T.take_along_dim(T.tensor(W10), T.tensor([[1.0]]), 1),
    "embedding_module_int32_too_big": lambda T: T.nn.Embedding(10, 4)(T.tensor([[3, 12]], dtype=T.int32)),
    "nll_loss_spatial_mismatch": lambda T: _F(T).nll_loss(T.tensor(LOGITS3), T.tensor([[0, 1], [2, 2]])),
    "nll_loss_3d_label_too_big": lambda T: _F(T).nll_loss(T.tensor(LOGITS3), T.tensor([[0, 1, 5], [2, 2, 2]])),
    "cross_entropy_probabilities_shape": lambda T: _F(T).cross_entropy(T.tensor(LOGITS), T.tensor(LOGITS[:2])),
    # one_hot
    "one_hot_class_too_big": lambda T: _F(T).one_hot(T.tensor([0, 3]), 3),
    "one_hot_neg": lambda T: _F(T).one_hot(T.tensor([0, -1]), 3),
    "one_hot_neg_inferred": lambda T: _F(T).one_hot(T.tensor([0, -1])),
    "one_hot_float": lambda T: _F(T).one_hot(T.tensor([0.0, 1.0])),
    "one_hot_int32": lambda T: _F(T).one_hot(T.tensor([0, 1], dtype=T.int32), 3),
    "one_hot_empty_inferred": lambda T: _F(T).one_hot(T.tensor([], dtype=T.long)),
    # integer division by zero
    "floordiv_operator": lambda T: T.tensor([5, 6]) // T.tensor([1, 0]),
    "floordiv_scalar": lambda T: T.tensor([5, 6]) // 0,
    "rfloordiv_scalar": lambda T: 5 // T.tensor([1, 0]),
    "floor_divide": lambda T: T.floor_divide(T.tensor([5, 6]), T.tensor([1, 0])),
    "floor_divide_inplace": lambda T: T.tensor([5, 6]).floor_divide_(T.tensor([1, 0])),
    "div_floor": lambda T: T.div(T.tensor([5, 6]), T.tensor([1, 0]), rounding_mode="floor"),
    "div_trunc": lambda T: T.div(T.tensor([5, 6]), T.tensor([1, 0]), rounding_mode="trunc"),
    "div_trunc_int32": lambda T: T.div(T.tensor([5, 6], dtype=T.int32), T.tensor([1, 0], dtype=T.int32),
                                       rounding_mode="trunc"),
    "remainder": lambda T: T.remainder(T.tensor([5, 6]), T.tensor([1, 0])),
    "mod_operator_scalar": lambda T: T.tensor([5, 6]) % 0,
    "rmod_scalar": lambda T: 5 % T.tensor([1, 0]),
    "imod": lambda T: T.tensor([5, 6]).__imod__(T.tensor([0, 1])),
    "fmod": lambda T: T.fmod(T.tensor([5, 6]), T.tensor([1, 0])),
    "fmod_scalar": lambda T: T.fmod(T.tensor([5, 6]), 0),
    "remainder_uint8": lambda T: T.remainder(T.tensor([3], dtype=T.uint8), T.tensor([0], dtype=T.uint8)),
}

# valid neighbours of the bad inputs: same values as torch
GOOD = {
    "cross_entropy_ignored": lambda T: _F(T).cross_entropy(T.tensor(LOGITS), T.tensor([0, -100, 2])),
    "cross_entropy_ignored_none": lambda T: _F(T).cross_entropy(T.tensor(LOGITS), T.tensor([0, -100, 2]),
                                                                reduction="none"),
    "cross_entropy_ignored_sum": lambda T: _F(T).cross_entropy(T.tensor(LOGITS), T.tensor([0, -100, 2]),
                                                               reduction="sum"),
    "cross_entropy_ignored_smoothing": lambda T: _F(T).cross_entropy(T.tensor(LOGITS), T.tensor([0, -100, 2]),
                                                                     label_smoothing=0.1),
    "cross_entropy_ignored_smoothing_weight": lambda T: _F(T).cross_entropy(
        T.tensor(LOGITS), T.tensor([0, -100, 4]), weight=T.tensor(CW), label_smoothing=0.2),
    "cross_entropy_ignored_weight_none": lambda T: _F(T).cross_entropy(
        T.tensor(LOGITS), T.tensor([0, -100, 4]), weight=T.tensor(CW), reduction="none"),
    "cross_entropy_custom_ignore_neg": lambda T: _F(T).cross_entropy(T.tensor(LOGITS), T.tensor([0, -1, 2]),
                                                                     ignore_index=-1),
    "cross_entropy_custom_ignore_big": lambda T: _F(T).cross_entropy(T.tensor(LOGITS), T.tensor([0, 9, 2]),
                                                                     ignore_index=9, label_smoothing=0.1),
    "cross_entropy_all_ignored": lambda T: _F(T).cross_entropy(T.tensor(LOGITS), T.tensor([-100, -100, -100])),
    "cross_entropy_uint8_label": lambda T: _F(T).cross_entropy(T.tensor(LOGITS), T.tensor([0, 1, 4], dtype=T.uint8)),
    "cross_entropy_3d": lambda T: _F(T).cross_entropy(T.tensor(LOGITS3), T.tensor([[0, 1, -100], [2, 4, 2]])),
    "nll_loss_ignored": lambda T: _F(T).nll_loss(T.tensor(LOGITS), T.tensor([0, -100, 2]), reduction="none"),
    "embedding_int32": lambda T: _F(T).embedding(T.tensor([[1, 9]], dtype=T.int32), T.tensor(W10)),
    "embedding_last_row": lambda T: T.nn.Embedding.from_pretrained(T.tensor(W10))(T.tensor([[0, 9]])),
    "index_select_int32": lambda T: T.index_select(T.tensor(W10), 0, T.tensor([9, 0], dtype=T.int32)),
    "gather_int32": lambda T: T.gather(T.tensor(W10), 1, T.tensor([[3], [0]], dtype=T.int32)),
    "index_fill_neg_in_range": lambda T: T.zeros(3, 4).index_fill(0, T.tensor([-1]), 1.0),
    "scatter_int32": lambda T: T.zeros(3, 4).scatter(1, T.tensor([[3]], dtype=T.int32), T.ones(1, 1)),
    "scatter_add_ok": lambda T: T.zeros(3, 4).scatter_add(1, T.tensor([[3, 3]]), T.ones(1, 2)),
    "index_add_ok": lambda T: T.zeros(3, 4).index_add(0, T.tensor([2, 2]), T.ones(2, 4)),
    "one_hot_ok": lambda T: _F(T).one_hot(T.tensor([0, 2]), 3),
    "one_hot_inferred": lambda T: _F(T).one_hot(T.tensor([[0, 4], [1, 1]])),
    "float_floordiv_by_zero": lambda T: T.tensor([5.0, -6.0]) // T.tensor([1.0, 0.0]),
    "float_remainder_by_zero": lambda T: T.remainder(T.tensor([5.0, 6.0]), T.tensor([1.0, 0.0])),
    "int_true_div_by_zero": lambda T: T.div(T.tensor([5, 6]), T.tensor([1, 0])),
    "int_floordiv": lambda T: T.tensor([5, -7]) // T.tensor([2, 2]),
    "int_remainder": lambda T: T.remainder(T.tensor([5, -7]), T.tensor([3, 3])),
    "int_fmod": lambda T: T.fmod(T.tensor([5, -7]), T.tensor([3, 3])),
}


@pytest.mark.parametrize("name", list(BAD))
def test_bad_input_raises_like_torch(name):
    fn = BAD[name]
    with pytest.raises(Exception) as r_info:
        fn(rt)
    try:
        value = fn(mt)
    except Exception as e:  # noqa: BLE001
        assert isinstance(e, r_info.type), (f"torch raised {r_info.type.__name__} ({r_info.value}), the shim "
                                            f"{type(e).__name__} ({e})")
        assert str(e), "the error says nothing"
        return
    pytest.fail(f"torch raised {r_info.type.__name__} ({r_info.value}); the shim returned {value!r}")


def test_take_along_dim_checks_its_indices():
    """torch's CPU take_along_dim(dim=...) reads outside the input for an out-of-range index (its result is
    undefined); the shim raises as gather does."""
    with pytest.raises(RuntimeError, match="out of bounds"):
        mt.take_along_dim(mt.tensor(W10), mt.full((10, 1), 4), 1)
    with pytest.raises(RuntimeError, match="out of bounds"):
        mt.take_along_dim(mt.tensor(W10), mt.full((1, 1), -1), 1)


@pytest.mark.parametrize("name", list(GOOD))
def test_valid_neighbour_matches_torch(name):
    r, m = GOOD[name](rt), GOOD[name](mt)
    assert tuple(m.shape) == tuple(r.shape)
    assert _dtype_name(m) == _dtype_name(r)
    np.testing.assert_allclose(_np(m), _np(r), rtol=1e-5, atol=1e-5, equal_nan=True)
