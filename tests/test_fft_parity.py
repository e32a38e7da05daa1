"""torch.fft against real torch: every transform on real and complex inputs (float32/complex64 and
float64/complex128), with signal sizes that trim and pad, each dim choice and each norm; values and the
gradients of sum(real(out) * w + imag(out) * v) with respect to real and complex inputs; the frequency functions
and the shifts."""
import numpy as np
import pytest

import mindnlp_shim.torch as mt
from conftest import SUBPROCESS_FLAG, real_torch, subprocess_fallback
from parity_check import check

rt = real_torch()
if rt is None:
    globals()[SUBPROCESS_FLAG] = True
    test_whole_module_in_subprocess = subprocess_fallback(__file__)

_rng = np.random.default_rng(5)
DTYPES = ["float32", "float64"]
NORMS = [None, "backward", "ortho", "forward"]
ONE_DIM = ("fft", "ifft", "rfft", "irfft", "hfft", "ihfft")
TWO_DIM = ("fft2", "ifft2", "rfft2", "irfft2", "hfft2", "ihfft2")
N_DIM = ("fftn", "ifftn", "rfftn", "irfftn", "hfftn", "ihfftn")
REAL_INPUT_ONLY = ("rfft", "ihfft", "rfft2", "ihfft2", "rfftn", "ihfftn")

API_CENSUS = {
    ("torch.fft.fft", "torch.fft.ifft", "torch.fft.rfft", "torch.fft.irfft", "torch.fft.hfft", "torch.fft.ihfft"):
        "test_one_dim_matches_torch",
    ("torch.fft.fft2", "torch.fft.ifft2", "torch.fft.rfft2", "torch.fft.irfft2", "torch.fft.hfft2",
     "torch.fft.ihfft2"): "test_two_dim_matches_torch",
    ("torch.fft.fftn", "torch.fft.ifftn", "torch.fft.rfftn", "torch.fft.irfftn", "torch.fft.hfftn",
     "torch.fft.ihfftn"): "test_n_dim_matches_torch",
    ("torch.fft.fftfreq", "torch.fft.rfftfreq"): "test_frequencies_match_torch",
    ("torch.fft.fftshift", "torch.fft.ifftshift"): "test_shifts_match_torch",
    "torch.fft.Tensor": "test_tensor_is_torch_tensor",
}


def _signal(shape, complex_):
    x = _rng.standard_normal(shape)
    return x + 1j * _rng.standard_normal(shape) if complex_ else x


def _inputs(name, shape):
    kinds = [False] if name in REAL_INPUT_ONLY else [False, True]
    return [_signal(shape, c) for c in kinds]


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("name", ONE_DIM)
def test_one_dim_matches_torch(name, dtype):
    for x in _inputs(name, (3, 6)):
        for n, dim, norm in [(None, -1, None), (4, -1, "ortho"), (9, 0, "forward"), (None, 0, "backward"),
                             (5, 1, None)]:
            check(rt, mt, lambda T, a: getattr(T.fft, name)(a, n=n, dim=dim, norm=norm), [x], dtype)
    check(rt, mt, lambda T, a: getattr(T.fft, name)(a), [_signal((7,), False)], dtype)  # odd length, 1-d


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("name", TWO_DIM)
def test_two_dim_matches_torch(name, dtype):
    for x in _inputs(name, (2, 4, 5)):
        for s, dim, norm in [(None, (-2, -1), None), ((3, 6), (-2, -1), "ortho"), (None, (0, 2), "forward"),
                             ((2, 4), (1, 0), None)]:
            check(rt, mt, lambda T, a: getattr(T.fft, name)(a, s=s, dim=dim, norm=norm), [x], dtype)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("name", N_DIM)
def test_n_dim_matches_torch(name, dtype):
    for x in _inputs(name, (2, 3, 4)):
        for s, dim, norm in [(None, None, None), ((4, 4), (0, 2), "ortho"), (None, (1,), "forward"),
                             ((3, 2, 6), None, None)]:
            check(rt, mt, lambda T, a: getattr(T.fft, name)(a, s=s, dim=dim, norm=norm), [x], dtype)


def test_integer_input_transforms_in_the_default_dtype():
    check(rt, mt, lambda T, a: T.fft.fft(a), [np.arange(6)], "int64", grad=False)
    check(rt, mt, lambda T, a: T.fft.rfft(a), [np.arange(6)], "int64", grad=False)


def test_frequencies_match_torch():
    for n in (1, 4, 7):
        for d in (1.0, 0.25):
            for T_name in ("fftfreq", "rfftfreq"):
                r = getattr(rt.fft, T_name)(n, d)
                m = getattr(mt.fft, T_name)(n, d)
                assert str(m.dtype) == str(r.dtype)
                np.testing.assert_allclose(m.numpy(), r.numpy(), rtol=1e-7)
                r64 = getattr(rt.fft, T_name)(n, d, dtype=rt.float64)
                m64 = getattr(mt.fft, T_name)(n, d, dtype=mt.float64)
                assert str(m64.dtype) == "torch.float64"
                np.testing.assert_allclose(m64.numpy(), r64.numpy(), rtol=1e-15)


@pytest.mark.parametrize("dtype", DTYPES)
def test_shifts_match_torch(dtype):
    for shape in [(5,), (4, 7), (2, 3, 4)]:
        for name in ("fftshift", "ifftshift"):
            for dim in (None, 0, -1, (0, -1)):
                check(rt, mt, lambda T, a: getattr(T.fft, name)(a, dim=dim), [_signal(shape, False)], dtype)
            check(rt, mt, lambda T, a: getattr(T.fft, name)(a), [_signal(shape, True)], dtype)


def test_tensor_is_torch_tensor():
    assert mt.fft.Tensor is mt.Tensor and rt.fft.Tensor is rt.Tensor


def test_out_argument():
    x = _signal((6,), False)
    r_out, m_out = rt.empty(4, dtype=rt.complex64), mt.empty(4, dtype=mt.complex64)
    rt.fft.rfft(rt.tensor(x.astype(np.float32)), out=r_out)
    m = mt.fft.rfft(mt.tensor(x.astype(np.float32)), out=m_out)
    assert m is m_out
    np.testing.assert_allclose(m_out.numpy(), r_out.numpy(), rtol=1e-5, atol=1e-6)


def test_bad_norm_and_half_precision_raise():
    with pytest.raises(ValueError):
        mt.fft.fft(mt.ones(4), norm="sideways")
    with pytest.raises(NotImplementedError, match="fft"):
        mt.fft.fft(mt.ones(4, dtype=mt.float16))
