"""torch dtypes are MindSpore's dtype objects; this module adds torch's dtype API to them.

`torch.float32 is mindspore.float32`, so a tensor's `.dtype` compares equal to torch's names with no
translation on the hot path. `torch.dtype` is MindSpore's dtype base type, given torch's attributes here.
"""
import threading

import numpy as np
import mindspore
from mindspore.common import dtype as _ms_dtype
from .. import _mindspore as _ms

dtype = _ms.DtypeType

# torch name -> MindSpore dtype; aliases point at the same object.
TORCH_NAMES = {
    "float32": mindspore.float32, "float": mindspore.float32,
    "float64": mindspore.float64, "double": mindspore.float64,
    "float16": mindspore.float16, "half": mindspore.float16,
    "bfloat16": mindspore.bfloat16,
    "int64": mindspore.int64, "long": mindspore.int64,
    "int32": mindspore.int32, "int": mindspore.int32,
    "int16": mindspore.int16, "short": mindspore.int16,
    "int8": mindspore.int8,
    "uint8": mindspore.uint8, "uint16": mindspore.uint16, "uint32": mindspore.uint32, "uint64": mindspore.uint64,
    "bool": mindspore.bool_,
    "complex64": mindspore.complex64, "cfloat": mindspore.complex64,
    "complex128": mindspore.complex128, "cdouble": mindspore.complex128,
    "float8_e4m3fn": mindspore.float8_e4m3fn, "float8_e5m2": mindspore.float8_e5m2,
}
# torch reads Python's scalar types as dtypes wherever it takes one: torch.tensor(0, dtype=int) is int64
PYTHON_TYPES = {bool: mindspore.bool_, int: mindspore.int64, float: mindspore.float64, complex: mindspore.complex128}


def resolve(d):
    """`d` itself, or the dtype torch reads the Python type `d` as (bool, int, float, complex)."""
    return PYTHON_TYPES.get(d, d) if d.__class__ is type else d


_INTEGER_BITS = {mindspore.int8: (8, True), mindspore.int16: (16, True), mindspore.int32: (32, True),
                 mindspore.int64: (64, True), mindspore.uint8: (8, False), mindspore.uint16: (16, False),
                 mindspore.uint32: (32, False), mindspore.uint64: (64, False)}


def real_scalar(value, dtype):
    """A Python number as torch writes it into `dtype` once `check_fits` passed it: a complex one's real part
    into a real type, its truth into bool; other values unchanged."""
    if type(value) is complex and dtype not in _COMPLEX_DTYPES:
        return bool(value) if dtype is mindspore.bool_ else value.real
    return value


# the largest finite value of each floating dtype whose range a Python scalar is checked against, and the C type
# torch names in its error (complex64's parts are floats)
_FLOAT_LIMITS = {mindspore.float32: (3.4028234663852886e38, "float"),
                 mindspore.complex64: (3.4028234663852886e38, "c10::complex<float>"),
                 mindspore.float16: (65504.0, "c10::Half"), mindspore.bfloat16: (3.3895313892515355e38, "c10::BFloat16")}
HALF_FLOATS = (mindspore.float16, mindspore.bfloat16)  # (the half-precision floating dtypes)
_INF = float("inf")
_COMPLEX_DTYPES = (mindspore.complex64, mindspore.complex128)


class _Bfloat16Computation(threading.local):
    """Set while an op computes bfloat16 tensors in float32 (the CPU backend's fallback, _backend.upcast_bf16):
    a scalar written into the float32 stand-in is checked as torch checks it against bfloat16."""
    active = False


BFLOAT16_IN_FLOAT32 = _Bfloat16Computation()


def check_fits(value, dtype, narrow_floats=False):
    """Raise torch's error when the Python number `value` cannot be written into `dtype`, as torch checks a
    scalar it converts (fill_, full, x[i] = v, masked_fill, clamp's bounds, where, alpha):

    - into an integer type, a float must lie in the type's range (127.9 does not fit int8, -0.5 not uint8); an
      int too, except that an unsigned type takes negative ints down to minus its maximum (-255 in uint8 is 1,
      as a cast wraps it);
    - into float32 (and complex64's parts), a finite value must not exceed its largest finite value (1e39 is an
      error, not inf); into float16 and bfloat16 only where torch checks that too (`narrow_floats`: masked_fill,
      clamp, alpha), since its fill_, full and where round such a value to inf;
    - a complex value into a real type must have no imaginary part.

    A NaN or an infinity fits no integer type; into a floating type, and bools anywhere, they pass."""
    if type(value) is complex:
        if dtype is mindspore.bool_:
            return  # (any complex number is a bool: nonzero is True)
        if dtype not in _COMPLEX_DTYPES:
            if value.imag:
                raise RuntimeError(f"value cannot be converted to type {_c_name(dtype)} without overflow")
            value = value.real
        else:
            check_fits(value.real, dtype)
            check_fits(value.imag, dtype)
            return
    bits = _INTEGER_BITS.get(dtype)
    if bits is None:
        if dtype is mindspore.float32 and BFLOAT16_IN_FLOAT32.active:
            dtype = mindspore.bfloat16
        limit = _FLOAT_LIMITS.get(dtype)
        if limit is None or type(value) is bool or not isinstance(value, (int, float)) or \
                not narrow_floats and dtype in HALF_FLOATS:
            return
        if limit[0] < abs(value) < _INF:  # (NaN compares false)
            raise RuntimeError(f"value cannot be converted to type {limit[1]} without overflow")
        return
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return
    width, signed = bits
    low, high = (-(1 << (width - 1)), (1 << (width - 1)) - 1) if signed else (0, (1 << width) - 1)
    if not signed and isinstance(value, int):
        low = -high
    if not low <= value <= high:  # (inf and NaN fail it too)
        raise RuntimeError(f"value cannot be converted to type {_c_name(dtype)} without overflow")


def _c_name(dtype):
    """The C type torch's conversion errors name (uint8_t, int, long, float, c10::Half, ...)."""
    return _C_NAMES.get(dtype) or _CANONICAL.get(dtype, str(dtype))


def wrapped_to(value, dtype):
    """The Python int `value` cast to the integer `dtype` as C casts it (two's complement, wrapping), or the
    Python float `value` rounded to float16/bfloat16: what torch compares such a tensor with. Other values and
    dtypes come back unchanged; int64 too (a value past it is an error there)."""
    if type(value) is float:
        if dtype is mindspore.float32 and BFLOAT16_IN_FLOAT32.active:
            dtype = mindspore.bfloat16  # (a bfloat16 comparison computed in float32)
        if dtype is mindspore.float16:
            with np.errstate(over="ignore"):  # (past float16's range: inf, as the cast gives)
                return float(np.float16(value))
        if dtype is mindspore.bfloat16:
            from ._generator.sampling import to_bfloat16

            return float(to_bfloat16(np.float32(value)).reshape(()))
        return value
    bits = _INTEGER_BITS.get(dtype)
    if bits is None or type(value) is not int or bits[0] == 64:
        return value
    width, signed = bits
    value &= (1 << width) - 1
    return value - (1 << width) if signed and value >= 1 << (width - 1) else value


# the canonical torch name of each dtype (what `repr(torch.float32)` prints)
_CANONICAL = {}
for _name, _dt in TORCH_NAMES.items():
    _CANONICAL.setdefault(_dt, _name)
_C_NAMES = {mindspore.int8: "int8_t", mindspore.uint8: "uint8_t", mindspore.int16: "int16_t", mindspore.int32: "int",
            mindspore.int64: "int64_t", mindspore.uint16: "uint16_t", mindspore.uint32: "uint32_t",
            mindspore.uint64: "uint64_t", mindspore.float64: "double",
            **{d: name for d, (_, name) in _FLOAT_LIMITS.items()}}

FLOATING = frozenset({mindspore.float16, mindspore.bfloat16, mindspore.float32, mindspore.float64,
                      mindspore.float8_e4m3fn, mindspore.float8_e5m2})
COMPLEX = frozenset({mindspore.complex64, mindspore.complex128})
UNSIGNED = frozenset({mindspore.uint8, mindspore.uint16, mindspore.uint32, mindspore.uint64, mindspore.bool_})
INTEGRAL = frozenset({mindspore.int8, mindspore.int16, mindspore.int32, mindspore.int64, mindspore.uint8,
                      mindspore.uint16, mindspore.uint32, mindspore.uint64})
ITEMSIZE = {mindspore.float16: 2, mindspore.bfloat16: 2, mindspore.float32: 4, mindspore.float64: 8,
            mindspore.int8: 1, mindspore.int16: 2, mindspore.int32: 4, mindspore.int64: 8, mindspore.uint8: 1,
            mindspore.uint16: 2, mindspore.uint32: 4, mindspore.uint64: 8, mindspore.bool_: 1,
            mindspore.complex64: 8, mindspore.complex128: 16, mindspore.float8_e4m3fn: 1, mindspore.float8_e5m2: 1}
# torch's storage class names, used by the serialization format
STORAGE_NAMES = {mindspore.float32: "FloatStorage", mindspore.float64: "DoubleStorage",
                 mindspore.float16: "HalfStorage", mindspore.bfloat16: "BFloat16Storage",
                 mindspore.int64: "LongStorage", mindspore.int32: "IntStorage", mindspore.int16: "ShortStorage",
                 mindspore.int8: "CharStorage", mindspore.uint8: "ByteStorage", mindspore.bool_: "BoolStorage",
                 mindspore.complex64: "ComplexFloatStorage", mindspore.complex128: "ComplexDoubleStorage"}

_NUMPY = {mindspore.float32: np.dtype(np.float32), mindspore.float64: np.dtype(np.float64),
          mindspore.float16: np.dtype(np.float16), mindspore.bfloat16: np.dtype(_ms_dtype.np_bfloat16),
          mindspore.int64: np.dtype(np.int64), mindspore.int32: np.dtype(np.int32),
          mindspore.int16: np.dtype(np.int16), mindspore.int8: np.dtype(np.int8), mindspore.uint8: np.dtype(np.uint8),
          mindspore.uint16: np.dtype(np.uint16), mindspore.uint32: np.dtype(np.uint32),
          mindspore.uint64: np.dtype(np.uint64), mindspore.bool_: np.dtype(np.bool_),
          mindspore.complex64: np.dtype(np.complex64), mindspore.complex128: np.dtype(np.complex128)}
_FROM_NUMPY = {v: k for k, v in _NUMPY.items()}


def to_numpy_dtype(dt):
    try:
        return _NUMPY[dt]
    except KeyError:
        if dt in (mindspore.float8_e4m3fn, mindspore.float8_e5m2):
            from ._float8 import unsupported_here

            raise unsupported_here() from None
        raise TypeError(f"torch dtype {dt!r} has no NumPy equivalent") from None


def from_numpy_dtype(np_dt):
    try:
        return _FROM_NUMPY[np.dtype(np_dt)]
    except KeyError:
        raise TypeError(f"NumPy dtype {np_dt} has no torch equivalent") from None


_default_float = mindspore.float32


def get_default_dtype():
    return _default_float


def set_default_dtype(d):
    global _default_float
    if d not in (mindspore.float32, mindspore.float64, mindspore.float16, mindspore.bfloat16):
        raise TypeError(f"torch.set_default_dtype: only floating point dtypes are supported, got {d!r}")
    _default_float = d


def _category(d):
    return 0 if d == mindspore.bool_ else 1 if d in INTEGRAL else 2 if d in FLOATING else 3


def promote_types(a, b):
    """torch's rule: the higher category (bool < integer < floating < complex) wins; within a category the
    wider type (float16 with bfloat16 gives float32)."""
    a, b = resolve(a), resolve(b)
    if a == b:
        return a
    ca, cb = _category(a), _category(b)
    if {ca, cb} == {2, 3}:  # complex with float: complex, as wide as the wider of the two (float64 -> complex128)
        wide = mindspore.complex128 in (a, b) or mindspore.float64 in (a, b)
        return mindspore.complex128 if wide else mindspore.complex64
    if ca != cb:
        return a if ca > cb else b
    if {a, b} == {mindspore.float16, mindspore.bfloat16}:
        return mindspore.float32
    if mindspore.bfloat16 in (a, b):
        return b if a == mindspore.bfloat16 else a
    return from_numpy_dtype(np.promote_types(to_numpy_dtype(a), to_numpy_dtype(b)))


class finfo:
    """Machine limits of a floating point dtype (torch.finfo)."""

    _BF16 = dict(bits=16, eps=0.0078125, max=3.3895313892515355e38, min=-3.3895313892515355e38,
                 tiny=1.1754943508222875e-38, smallest_normal=1.1754943508222875e-38, resolution=0.01)
    _F8 = {mindspore.float8_e4m3fn: dict(bits=8, eps=0.125, max=448.0, min=-448.0, tiny=0.015625,
                                         smallest_normal=0.015625, resolution=1.0),
           mindspore.float8_e5m2: dict(bits=8, eps=0.25, max=57344.0, min=-57344.0, tiny=6.103515625e-05,
                                       smallest_normal=6.103515625e-05, resolution=1.0)}

    def __init__(self, type=None):
        type = _default_float if type is None else resolve(type)
        if type not in FLOATING and type not in COMPLEX:
            raise TypeError(f"torch.finfo() requires a floating point input type, got {type!r}")
        type = _COMPLEX_PARTS.get(type, type)  # a complex dtype's limits are those of its parts, and so is .dtype
        self.dtype = _CANONICAL[type]
        if type == mindspore.bfloat16:
            values = self._BF16
        elif type in self._F8:
            values = self._F8[type]
        else:
            info = np.finfo(to_numpy_dtype(type))
            values = dict(bits=info.bits, eps=float(info.eps), max=float(info.max), min=float(info.min),
                          tiny=float(info.tiny), smallest_normal=float(info.tiny), resolution=10.0 ** -info.precision)
        self.__dict__.update(values)

    def __repr__(self):
        # (the numbers as C++'s stream writes them by default, six significant digits: Python's "g")
        return (f"finfo(resolution={self.resolution:g}, min={self.min:g}, max={self.max:g}, eps={self.eps:g}, "
                f"smallest_normal={self.smallest_normal:g}, tiny={self.tiny:g}, dtype={self.dtype})")


_COMPLEX_PARTS = {mindspore.complex64: mindspore.float32, mindspore.complex128: mindspore.float64}


class iinfo:
    """Limits of an integer dtype (torch.iinfo; torch refuses bool)."""

    def __init__(self, type):
        type = resolve(type)
        if type == mindspore.bool_:
            raise TypeError("torch.bool is not supported by torch.iinfo")
        if type not in INTEGRAL:
            raise TypeError(f"torch.iinfo() requires an integer input type, got {type!r}")
        info = np.iinfo(to_numpy_dtype(type))
        self.bits, self.min, self.max = info.bits, int(info.min), int(info.max)
        self.dtype = _CANONICAL[type]

    def __repr__(self):
        return f"iinfo(min={self.min:g}, max={self.max:g}, dtype={self.dtype})"


def _install_fast_comparisons():
    """MindSpore's dtype `==` costs ~5 us (so `x.dtype in (a, b, c)` costs ~20 us), and dtype checks sit on every
    op's path. Tensors always carry the same singleton dtype objects, and two different singletons are never
    equal, so comparisons between singletons are decided by identity; anything else (e.g. an unpickled dtype)
    falls back to MindSpore's own comparison. Hashes are MindSpore's, cached per singleton."""
    singletons = {id(d): d for d in set(TORCH_NAMES.values())}
    ms_eq, ms_hash = dtype.__eq__, dtype.__hash__
    hashes = {key: ms_hash(d) for key, d in singletons.items()}

    def __eq__(self, other):
        if self is other:
            return True
        if id(self) in singletons and id(other) in singletons:
            return False
        return ms_eq(self, other)

    def __ne__(self, other):
        result = __eq__(self, other)
        return result if result is NotImplemented else not result

    def __hash__(self):
        h = hashes.get(id(self))
        return ms_hash(self) if h is None else h

    dtype.__eq__, dtype.__ne__, dtype.__hash__ = __eq__, __ne__, __hash__


def _install_dtype_api():
    """torch's dtype attributes and printing on MindSpore's dtype type."""
    dtype.is_floating_point = property(lambda self: self in FLOATING)
    dtype.is_complex = property(lambda self: self in COMPLEX)
    dtype.is_signed = property(lambda self: self not in UNSIGNED)
    dtype.itemsize = property(lambda self: ITEMSIZE[self])
    dtype.to_real = lambda self: {mindspore.complex64: mindspore.float32,
                                  mindspore.complex128: mindspore.float64}.get(self, self)
    dtype.to_complex = lambda self: {mindspore.float32: mindspore.complex64, mindspore.float64: mindspore.complex128,
                                     mindspore.float16: mindspore.complex64}.get(self, self)
    ms_str = dtype.__str__

    def torch_repr(self):
        name = _CANONICAL.get(self)
        return "torch." + (name if name is not None else ms_str(self).lower())

    dtype.__repr__ = torch_repr
    dtype.__str__ = dtype.__repr__


_install_fast_comparisons()
_install_dtype_api()
