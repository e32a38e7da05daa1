"""torch.nn.functional.interpolate against real PyTorch: a generated table of mode x align_corners x input
shape x (output size | scale factor, recompute_scale_factor) x dtype, comparing the output and the gradient of
sum(output * w) for a fixed random w. Inputs have batch and channels > 1 and non-square spatial shapes, and the
table covers both upsampling and downsampling. Inputs and gradients holding NaN and +-inf must give non-finite
values exactly where torch does."""
import itertools
import math
import zlib

import numpy as np
import pytest

import mindnlp_shim.torch as mt
from conftest import SUBPROCESS_FLAG, real_torch, subprocess_fallback

rt = real_torch()
if rt is None:
    globals()[SUBPROCESS_FLAG] = True
    test_whole_module_in_subprocess = subprocess_fallback(__file__)

TOL = {"float32": dict(rtol=1e-5, atol=1e-5), "float64": dict(rtol=1e-12, atol=1e-12)}

SHAPES_2D = [(1, 1), (4, 4), (5, 7), (8, 3), (2, 9), (13, 6)]
SIZES_2D = [(9, 4), (1, 1), (4, 11), (16, 16), (3, 2), (13, 6)]
# scalar and per-axis factors, up and down, with products in*factor that are and are not whole numbers
FACTORS_2D = [2.0, 0.5, 1.0, (1.5, 0.75), (0.3, 2.5), (3.0, 1.7), (0.65, 1.3)]
SHAPES_1D = [(1,), (5,), (12,)]
SIZES_1D = [(1,), (7,), (3,), (20,)]
FACTORS_1D = [2.0, 0.5, 1.3, 0.4]


def _out_sizes(shape, factor):
    factors = factor if isinstance(factor, tuple) else (factor,) * len(shape)
    return tuple(math.floor(n * f) for n, f in zip(shape, factors))


def _cases():
    modes = [("bicubic", SHAPES_2D, SIZES_2D, FACTORS_2D, (False, True)),
             ("bilinear", SHAPES_2D, SIZES_2D, FACTORS_2D, (False, True)),
             ("nearest", SHAPES_2D, SIZES_2D, FACTORS_2D, (None,)),
             ("linear", SHAPES_1D, SIZES_1D, FACTORS_1D, (False, True)),
             ("nearest", SHAPES_1D, SIZES_1D, FACTORS_1D, (None,))]
    out = []
    for mode, shapes, sizes, factors, corners in modes:
        for ac, shape in itertools.product(corners, shapes):
            targets = [dict(size=s) for s in sizes]
            for f in factors:
                if min(_out_sizes(shape, f)) < 1:
                    continue  # torch refuses an empty output
                targets += [dict(scale_factor=f), dict(scale_factor=f, recompute_scale_factor=True)]
            for kw in targets:
                for dtype in ("float32", "float64"):
                    name = f"{mode}-ac{ac}-{'x'.join(map(str, shape))}-" + "-".join(
                        f"{k}{v}" for k, v in kw.items()) + f"-{dtype}"
                    out.append(pytest.param(mode, ac, shape, kw, dtype, id=name.replace(" ", "")))
    return out


def _run(T, x, w, mode, ac, kw):
    t = T.tensor(x, requires_grad=True)
    kwargs = dict(kw, mode=mode) if ac is None else dict(kw, mode=mode, align_corners=ac)
    out = T.nn.functional.interpolate(t, **kwargs)
    (out * T.tensor(w)).sum().backward()
    return np.array(out.detach().numpy()), np.array(t.grad.numpy()), str(out.dtype)


@pytest.mark.parametrize("mode,ac,shape,kw,dtype", _cases())
def test_interpolate_matches_torch(mode, ac, shape, kw, dtype):
    rng = np.random.default_rng(zlib.crc32(repr((mode, ac, shape, kw, dtype)).encode()))
    x = rng.standard_normal((2, 3) + shape).astype(dtype)
    out_shape = tuple(rt.nn.functional.interpolate(rt.tensor(x), mode=mode, **kw,
                                                   **({} if ac is None else {"align_corners": ac})).shape)
    w = rng.standard_normal(out_shape).astype(dtype)
    ref_out, ref_grad, ref_dtype = _run(rt, x, w, mode, ac, kw)
    out, grad, got_dtype = _run(mt, x, w, mode, ac, kw)
    assert got_dtype == ref_dtype
    assert out.shape == ref_out.shape
    np.testing.assert_allclose(out, ref_out, err_msg="output", **TOL[dtype])
    np.testing.assert_allclose(grad, ref_grad, err_msg="gradient", **TOL[dtype])


@pytest.mark.parametrize("mode", ["bicubic", "bilinear"])
def test_antialias_is_refused_not_ignored(mode):
    x = mt.tensor(np.ones((1, 1, 8, 8), np.float32))
    with pytest.raises(NotImplementedError, match="antialias"):
        mt.nn.functional.interpolate(x, size=(3, 3), mode=mode, antialias=True)


def test_align_corners_with_nearest_is_refused_like_torch():
    x = np.ones((1, 1, 4, 4), np.float32)
    for T in (rt, mt):
        with pytest.raises(ValueError, match="align_corners"):
            T.nn.functional.interpolate(T.tensor(x), scale_factor=1.5, mode="nearest", align_corners=False)


# (mode, align_corners, input spatial shape, target): upsampling, downsampling, an unchanged axis, a scale
# factor, and samples at whole source coordinates (taps of weight 0, which torch still multiplies)
NONFINITE_CASES = [
    ("bicubic", False, (6, 7), dict(size=(11, 13))),
    ("bicubic", True, (6, 7), dict(size=(11, 13))),
    ("bicubic", False, (9, 8), dict(size=(4, 3))),
    ("bicubic", False, (6, 7), dict(size=(6, 7))),
    ("bicubic", True, (7, 7), dict(size=(13, 4))),
    ("bicubic", False, (6, 7), dict(scale_factor=2.0)),
    ("bilinear", False, (6, 7), dict(size=(11, 13))),
    ("bilinear", True, (7, 7), dict(size=(13, 13))),
    ("bilinear", False, (9, 8), dict(size=(4, 3))),
    ("bilinear", False, (6, 7), dict(size=(6, 14))),
    ("bilinear", True, (6, 7), dict(size=(6, 7))),
    ("bilinear", False, (6, 7), dict(scale_factor=(1.0, 1.5))),
    ("linear", False, (9,), dict(size=20)),
    ("linear", True, (7,), dict(size=13)),
    ("linear", False, (9,), dict(size=4)),
    ("linear", False, (9,), dict(size=9)),
    ("linear", False, (9,), dict(scale_factor=2.5)),
]


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("mode,ac,shape,kw", NONFINITE_CASES,
                         ids=[f"{m}-ac{a}-{'x'.join(map(str, s))}-{k}".replace(" ", "")
                              for m, a, s, k in NONFINITE_CASES])
def test_nonfinite_input_reaches_only_the_outputs_whose_taps_read_it(mode, ac, shape, kw, dtype):
    rng = np.random.default_rng(zlib.crc32(repr((mode, ac, shape, kw, dtype)).encode()))
    x = rng.standard_normal((2, 3) + shape).astype(dtype)
    # one NaN and one inf (a -inf in another channel) away from each other and from the borders
    nan_at = (0, 1) + tuple(n // 3 for n in shape)
    inf_at = (1, 2) + tuple(n - 2 for n in shape)
    x[nan_at], x[inf_at] = np.nan, np.inf
    x[(0, 0) + tuple(n // 2 for n in shape)] = -np.inf
    out_shape = tuple(rt.nn.functional.interpolate(rt.tensor(x), mode=mode, align_corners=ac, **kw).shape)
    w = rng.standard_normal(out_shape).astype(dtype)
    ref_out, ref_grad, _ = _run(rt, x, w, mode, ac, kw)
    out, grad, _ = _run(mt, x, w, mode, ac, kw)
    assert not np.isfinite(ref_out).all() and np.isfinite(ref_out).any()  # the case tests what it means to
    np.testing.assert_array_equal(np.isnan(out), np.isnan(ref_out), err_msg="NaN positions")
    np.testing.assert_array_equal(np.isposinf(out), np.isposinf(ref_out), err_msg="+inf positions")
    np.testing.assert_array_equal(np.isneginf(out), np.isneginf(ref_out), err_msg="-inf positions")
    np.testing.assert_allclose(out, ref_out, equal_nan=True, err_msg="output", **TOL[dtype])
    np.testing.assert_allclose(grad, ref_grad, equal_nan=True, err_msg="gradient", **TOL[dtype])


@pytest.mark.parametrize("mode,shape,size", [("bicubic", (6, 7), (11, 13)), ("bilinear", (6, 7), (11, 13)),
                                              ("bilinear", (6, 7), (6, 14)), ("linear", (9,), (20,))])
def test_nonfinite_gradient_reaches_only_the_inputs_its_taps_read(mode, shape, size):
    rng = np.random.default_rng(7)
    x = rng.standard_normal((1, 2) + shape)
    w = rng.standard_normal((1, 2) + size)
    w[(0, 1) + tuple(n // 3 for n in size)] = np.nan
    w[(0, 0) + tuple(n // 2 for n in size)] = np.inf
    ref_out, ref_grad, _ = _run(rt, x, w, mode, False, dict(size=size))
    out, grad, _ = _run(mt, x, w, mode, False, dict(size=size))
    assert np.isnan(ref_grad).any() and not np.isnan(ref_grad).all()
    np.testing.assert_array_equal(np.isnan(grad), np.isnan(ref_grad), err_msg="NaN positions")
    np.testing.assert_allclose(grad, ref_grad, equal_nan=True, err_msg="gradient", **TOL["float64"])
