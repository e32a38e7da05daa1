"""torch's legacy tensor-type classes (`torch.FloatTensor`, `torch.LongTensor`, ...).

Each is a class whose instances, by `isinstance`, are the CPU tensors of its dtype; calling it builds such a
tensor (from data, from a size, or from a tensor of that dtype); `Tensor.type(cls)` converts to it, and
`Tensor.type()` answers its name. Shim tensors all live on the process device, so the CPU classes are the ones
that exist (as on a CPU-only torch build).
"""
import mindspore

from ._size import Size

# dtype -> the name `Tensor.type()` answers (also for dtypes that have no class of their own, as in torch)
TYPE_NAMES = {
    mindspore.float32: "torch.FloatTensor", mindspore.float64: "torch.DoubleTensor",
    mindspore.float16: "torch.HalfTensor", mindspore.bfloat16: "torch.BFloat16Tensor",
    mindspore.int64: "torch.LongTensor", mindspore.int32: "torch.IntTensor", mindspore.int16: "torch.ShortTensor",
    mindspore.int8: "torch.CharTensor", mindspore.uint8: "torch.ByteTensor", mindspore.bool_: "torch.BoolTensor",
    mindspore.complex64: "torch.ComplexFloatTensor", mindspore.complex128: "torch.ComplexDoubleTensor",
    mindspore.uint16: "torch.UInt16Tensor", mindspore.uint32: "torch.UInt32Tensor",
    mindspore.uint64: "torch.UInt64Tensor",
}


class tensortype(type):
    """The metaclass: `isinstance(t, torch.FloatTensor)` is a dtype check on a tensor."""

    def __instancecheck__(cls, obj):
        return isinstance(obj, mindspore.Tensor) and obj.dtype == cls.dtype

    def __repr__(cls):
        return f"<class 'torch.{cls.__name__}'>"


def construct(dtype, args, device=None, alias_any_dtype=False):
    """torch's legacy constructor of `dtype`: no argument an empty tensor, ints or a Size an uninitialised one of
    that size, a tensor an alias of it (of another dtype only where `alias_any_dtype`: `torch.Tensor(t)`), a
    sequence or array its data converted to `dtype`."""
    from ._ops.creation import empty, tensor
    from ._device import check_reachable

    if device is not None:
        check_reachable(device)
    if not args:
        return empty(0, dtype=dtype)
    if all(isinstance(a, int) and not isinstance(a, bool) for a in args):
        return empty(*args, dtype=dtype)  # FloatTensor(2, 3): uninitialized, of that size
    if len(args) == 1 and isinstance(args[0], Size):
        return empty(*args[0], dtype=dtype)
    if len(args) == 1 and isinstance(args[0], mindspore.Tensor):
        if args[0].dtype != dtype and not alias_any_dtype:
            raise TypeError(f"expected {TYPE_NAMES.get(dtype)} (got {TYPE_NAMES.get(args[0].dtype)})")
        return args[0].view(tuple(args[0].shape))  # another tensor object over the same storage, as torch's
    if len(args) == 1:
        if isinstance(args[0], (int, float, complex, bool)):
            raise TypeError(f"new(): data must be a sequence (got {type(args[0]).__name__})")
        return tensor(args[0], dtype=dtype)
    raise TypeError(f"new() received an invalid combination of arguments - got "
                    f"({', '.join(type(a).__name__ for a in args)})")


def _construct(cls, *args, device=None):
    return construct(cls.dtype, args, device)


def _legacy_class(dtype):
    name = TYPE_NAMES[dtype][len("torch."):]
    return tensortype(name, (), {"dtype": dtype, "is_cuda": False, "is_sparse": False, "__module__": "torch",
                                 "__new__": _construct})


def dtype_of(type_argument):
    """The dtype `Tensor.type(x)` converts to: x is a legacy class, its name ('torch.FloatTensor') or a dtype."""
    if isinstance(type_argument, tensortype):
        return type_argument.dtype
    if isinstance(type_argument, str):
        for dtype, name in TYPE_NAMES.items():
            if name == type_argument:
                return dtype
        raise ValueError(f"invalid type: '{type_argument}'")
    if isinstance(type_argument, mindspore.dtype.Type):
        return type_argument
    raise ValueError(f"invalid type: '{getattr(type_argument, '__name__', type_argument)}'")


FloatTensor = _legacy_class(mindspore.float32)
DoubleTensor = _legacy_class(mindspore.float64)
HalfTensor = _legacy_class(mindspore.float16)
BFloat16Tensor = _legacy_class(mindspore.bfloat16)
LongTensor = _legacy_class(mindspore.int64)
IntTensor = _legacy_class(mindspore.int32)
ShortTensor = _legacy_class(mindspore.int16)
CharTensor = _legacy_class(mindspore.int8)
ByteTensor = _legacy_class(mindspore.uint8)
BoolTensor = _legacy_class(mindspore.bool_)
