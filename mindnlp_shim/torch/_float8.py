"""float8 tensors (torch.float8_e4m3fn, torch.float8_e5m2) on a CPU without float8 kernels.

MindSpore has the two dtypes, but its CPU Cast, creation and arithmetic kernels do not take them, and NumPy has
no float8 type. A float8 tensor here is a MindSpore float8 tensor over its bytes: conversions encode and decode
those bytes on the host, with torch's rounding (to nearest, ties to even, through float32 as torch's converters
take a float), its overflow (e4m3fn, which has no infinity, saturates to +-448, infinities included; e5m2
overflows to infinity) and NaN (the format's NaN with the input's sign). Views, reshapes and the dtype view
keep the bytes; every op that would compute on the values raises NotImplementedError (`_backend`).
"""
import numpy as np
import mindspore

from .. import _mindspore as _ms

E4M3FN, E5M2 = mindspore.float8_e4m3fn, mindspore.float8_e5m2
FLOAT8 = frozenset({E4M3FN, E5M2})

# exponent bits, mantissa bits, bias, NaN code, the largest finite value, what a larger magnitude becomes
# (measured on torch 2.13: e4m3fn saturates to its largest value, e5m2 overflows to infinity)
_FORMATS = {E4M3FN: (4, 3, 7, 0x7F, 448.0, 0x7E), E5M2: (5, 2, 15, 0x7F, 57344.0, 0x7C)}


def _decode_table(dtype):
    exp_bits, man_bits, bias, nan_code, _, _ = _FORMATS[dtype]
    codes = np.arange(256)
    sign = np.where(codes & 0x80, -1.0, 1.0)
    exp = (codes >> man_bits) & ((1 << exp_bits) - 1)
    man = codes & ((1 << man_bits) - 1)
    normal = (1.0 + man / (1 << man_bits)) * np.exp2(exp.astype(np.float64) - bias)
    subnormal = (man / (1 << man_bits)) * 2.0 ** (1 - bias)
    values = (sign * np.where(exp == 0, subnormal, normal)).astype(np.float32)
    if dtype is E5M2:  # the top exponent holds infinity and NaNs, as in IEEE formats
        top = exp == (1 << exp_bits) - 1
        values = np.where(top & (man == 0), (sign * np.inf).astype(np.float32), values)
        nan = top & (man != 0)
    else:  # e4m3fn: only all-ones is NaN; the top exponent's other codes are finite
        nan = (codes & 0x7F) == nan_code
    # a NaN becomes float32's quiet NaN with the sign and the mantissa bits at the top, as torch decodes it
    nan_bits = ((codes & 0x80).astype(np.uint32) << 24) | 0x7FC00000 | (man.astype(np.uint32) << (23 - man_bits))
    return np.where(nan, nan_bits.view(np.float32), values).astype(np.float32)


_DECODE = {dt: _decode_table(dt) for dt in _FORMATS}


def decode(codes, dtype):
    """float32 values of a uint8 array of `dtype`'s codes."""
    return _DECODE[dtype][codes]


def encode(values, dtype):
    """uint8 codes of `dtype` for a float32 array, rounded as torch rounds."""
    _, man_bits, bias, nan_code, largest, overflow_code = _FORMATS[dtype]
    values = np.asarray(values, dtype=np.float32)
    sign = (values.view(np.uint32) >> 31).astype(np.uint8) << 7
    magnitude = np.abs(values.astype(np.float64))
    finite = np.isfinite(magnitude)
    safe = np.where(finite, magnitude, 0.0)
    _, exponent = np.frexp(safe)  # safe = m * 2**exponent, 0.5 <= m < 1
    quantum_exp = np.maximum(exponent - 1, 1 - bias) - man_bits  # the spacing of the format's values there
    steps = np.rint(np.ldexp(safe, -quantum_exp)).astype(np.int64)  # ties to even; exact (a power-of-2 scale)
    # value = steps * 2**quantum_exp; rounding up may carry into the next binade (steps = 2**(man_bits+1))
    carry = steps >> (man_bits + 1)
    steps, quantum_exp = steps >> carry, quantum_exp + carry
    overflow = ~finite | (np.ldexp(steps.astype(np.float64), quantum_exp) > largest)
    normal = steps >= (1 << man_bits)
    exp_field = np.where(normal, quantum_exp + man_bits + bias, 0)
    man_field = np.where(normal, steps - (1 << man_bits), steps)
    codes = np.where(overflow, overflow_code, (exp_field << man_bits) | man_field)
    codes = np.where(np.isnan(magnitude), nan_code, codes)
    return codes.astype(np.uint8) | sign


class Float8Unsupported(NotImplementedError, TypeError):
    """An op on float8 values the shim cannot compute (a TypeError too, as torch's `numpy()` of float8 is)."""


def unsupported(what):
    return Float8Unsupported(
        f"{what} on float8 tensors is not supported on MindSpore's CPU: it has no float8 kernels, and "
        f"mindnlp-shim only converts float8 tensors (Tensor.to and back, view(dtype), views and reshapes, "
        f"element_size, torch.finfo, safetensors files)")


def unsupported_here():
    """`unsupported` naming the torch entry point being run: the outermost function of mindnlp_shim.torch on the
    stack (for ops that reach a NumPy conversion)."""
    import sys

    frame, name = sys._getframe(1), None
    while frame is not None:
        module = frame.f_globals.get("__name__", "")
        if module.startswith("mindnlp_shim.torch") and not frame.f_code.co_name.startswith("<"):
            name = frame.f_code.co_name
        frame = frame.f_back
    what = f"torch's {name}" if name else "this operation"
    return unsupported(f"{what} (computed on the host through NumPy, which has no float8 type)")


def _require_views():
    if not _ms.FLOAT8_BYTES_VIEWED:
        raise NotImplementedError(f"float8 tensors need MindSpore's dtype view (MindSpore 2.8 or newer); this "
                                  f"is MindSpore {_ms.VERSION_TEXT}")


def codes_of(x):
    """A NumPy uint8 array (a copy, C order) of float8 tensor `x`'s codes."""
    _require_views()
    from ._memory import host_view

    return np.array(host_view(_ms.view_dtype(x, mindspore.uint8)), dtype=np.uint8, order="C")


def from_codes(codes, dtype):
    """A float8 tensor of `dtype` over a copy of the uint8 array `codes`."""
    _require_views()
    return _ms.view_dtype(mindspore.Tensor.from_numpy(np.ascontiguousarray(codes, dtype=np.uint8)), dtype)


def cast(x, dtype, convert):
    """`x` converted to `dtype` where either is float8; `convert(t, dtype)` casts between the other dtypes."""
    if _ms.grad_enabled() and x._requires_grad:
        raise unsupported("Tensor.to (a conversion autograd records)")
    if x._dtype in FLOAT8:
        values = mindspore.Tensor.from_numpy(decode(codes_of(x), x._dtype))
        return values if dtype is mindspore.float32 else (
            cast(values, dtype, convert) if dtype in FLOAT8 else convert(values, dtype))
    if x._dtype in (mindspore.complex64, mindspore.complex128):
        raise unsupported("Tensor.to from a complex dtype")
    if x._dtype is not mindspore.float32:
        x = convert(x, mindspore.float32)
    from ._memory import host_view

    return from_codes(encode(host_view(x), dtype), dtype)
