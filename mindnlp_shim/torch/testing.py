"""torch.testing: `assert_close` with torch's default tolerances per dtype, compared in NumPy."""
import collections.abc
import math

import numpy as np

# torch's defaults (rtol, atol) by dtype; integer and bool dtypes compare exactly.
_DEFAULT_TOLERANCES = {"float16": (1e-3, 1e-5), "bfloat16": (1.6e-2, 1e-5), "float32": (1.3e-6, 1e-5),
                       "float64": (1e-7, 1e-7), "complex64": (1.3e-6, 1e-5), "complex128": (1e-7, 1e-7)}


def _is_tensor(x):
    import mindspore

    return isinstance(x, mindspore.Tensor)


def _dtype_name(t):
    return str(t.dtype).replace("torch.", "").lower()


def _to_numpy(t):
    t = t.detach()
    if _dtype_name(t) == "bfloat16":
        t = t.float()
    return np.asarray(t.numpy())


def _compare_tensors(actual, expected, rtol, atol, equal_nan, check_dtype, msg, path):
    if tuple(actual.shape) != tuple(expected.shape):
        raise AssertionError(msg or f"The values for attribute 'shape' do not match: {tuple(actual.shape)} != "
                                    f"{tuple(expected.shape)}{path}.")
    if check_dtype and actual.dtype != expected.dtype:
        raise AssertionError(msg or f"The values for attribute 'dtype' do not match: {actual.dtype} != "
                                    f"{expected.dtype}{path}.")
    if rtol is None:
        rtol, atol = max(_DEFAULT_TOLERANCES.get(_dtype_name(actual), (0.0, 0.0)),
                         _DEFAULT_TOLERANCES.get(_dtype_name(expected), (0.0, 0.0)))
    a, e = _to_numpy(actual), _to_numpy(expected)
    if a.dtype == np.bool_ or e.dtype == np.bool_:
        close = a == e
    else:
        a64, e64 = a.astype(np.float64), e.astype(np.float64)
        close = np.isclose(a64, e64, rtol=rtol, atol=atol, equal_nan=equal_nan)
    if close.all():
        return
    bad = int((~close).sum())
    if msg:
        raise AssertionError(msg)
    diff = np.abs(a.astype(np.float64) - e.astype(np.float64))
    raise AssertionError(f"Tensor-likes are not close!{path}\n\nMismatched elements: {bad} / {close.size} "
                         f"({100.0 * bad / max(close.size, 1):.1f}%)\nGreatest absolute difference: "
                         f"{np.nanmax(diff) if diff.size else 0} (up to {atol} allowed)\n"
                         f"Relative tolerance: {rtol}")


def _compare(actual, expected, rtol, atol, equal_nan, check_dtype, msg, path):
    if _is_tensor(actual) and _is_tensor(expected):
        return _compare_tensors(actual, expected, rtol, atol, equal_nan, check_dtype, msg, path)
    if _is_tensor(actual) != _is_tensor(expected):
        raise AssertionError(msg or f"Type mismatch: {type(actual).__name__} vs {type(expected).__name__}{path}")
    if isinstance(actual, collections.abc.Mapping) and isinstance(expected, collections.abc.Mapping):
        if set(actual) != set(expected):
            raise AssertionError(msg or f"Keys do not match: {sorted(map(str, actual))} != "
                                        f"{sorted(map(str, expected))}{path}")
        for key in actual:
            _compare(actual[key], expected[key], rtol, atol, equal_nan, check_dtype, msg, f"{path}[{key!r}]")
        return
    if (isinstance(actual, collections.abc.Sequence) and isinstance(expected, collections.abc.Sequence)
            and not isinstance(actual, str) and not isinstance(expected, str)):
        if len(actual) != len(expected):
            raise AssertionError(msg or f"Sequence lengths do not match: {len(actual)} != {len(expected)}{path}")
        for i, (a, e) in enumerate(zip(actual, expected)):
            _compare(a, e, rtol, atol, equal_nan, check_dtype, msg, f"{path}[{i}]")
        return
    if isinstance(actual, (bool, int, float, complex)) and isinstance(expected, (bool, int, float, complex)):
        if check_dtype and type(actual) is not type(expected):
            raise AssertionError(msg or f"Type mismatch: {type(actual).__name__} vs {type(expected).__name__}")
        r, t = (rtol, atol) if rtol is not None else ((1.3e-6, 1e-5) if isinstance(actual, float) else (0, 0))
        if equal_nan and isinstance(actual, float) and math.isnan(actual) and math.isnan(expected):
            return
        if not abs(actual - expected) <= t + r * abs(expected):
            raise AssertionError(msg or f"Scalars are not close!{path}\n\nExpected {expected} but got {actual}.")
        return
    if actual != expected:
        raise AssertionError(msg or f"Objects are not equal: {actual!r} != {expected!r}{path}")


def assert_close(actual, expected, *, allow_subclasses=True, rtol=None, atol=None, equal_nan=False,
                 check_device=True, check_dtype=True, check_layout=True, check_stride=False, msg=None):
    """Raise AssertionError unless `actual` and `expected` (tensors, numbers, or nested sequences/mappings
    of them) are close: |actual - expected| <= atol + rtol * |expected| elementwise."""
    if (rtol is None) != (atol is None):
        raise ValueError("Both 'rtol' and 'atol' must be either specified or omitted, "
                         f"but got no {'rtol' if rtol is None else 'atol'}.")
    _compare(actual, expected, rtol, atol, equal_nan, check_dtype, msg, "")


def assert_allclose(actual, expected, rtol=None, atol=None, equal_nan=True, msg=""):
    """The deprecated spelling: like assert_close without the dtype check."""
    assert_close(actual, expected, rtol=rtol, atol=atol, equal_nan=equal_nan, check_dtype=False, msg=msg or None)
