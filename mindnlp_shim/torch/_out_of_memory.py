"""Allocation failures as `torch.OutOfMemoryError`, with the size that was asked for.

MindSpore's PyNative ops raise a plain `RuntimeError("Allocate memory failed ...")` that names neither the op nor
the size, and the shim's host-side arrays raise NumPy's `MemoryError`. Code written for torch recognises neither:
accelerate's `find_executable_batch_size` (behind transformers' `auto_find_batch_size`) retries with a smaller
batch only for a RuntimeError whose message contains " out of memory." (or torch's CPU allocator message). Here
such failures become `torch.OutOfMemoryError` (a RuntimeError, as in torch) whose message says how many bytes the
failing op asked for, read from the op's own arguments in the traceback.

The conversion runs only on the exception path (a module call, a backward), so it costs nothing otherwise.
"""
import math

import mindspore

_MINDSPORE_MESSAGE = "Allocate memory failed"
_MATMULS = frozenset({"MatMul", "BatchMatMul", "MatMulExt", "BatchMatMulExt", "Bmm", "BmmExt", "Matmul"})


def is_allocation_failure(exc):
    from ._functions import OutOfMemoryError  # (here: that module imports the tensor module, which imports this)

    if isinstance(exc, OutOfMemoryError):
        return False
    if isinstance(exc, MemoryError):
        return hasattr(exc, "_total_size")  # NumPy's, which knows its size
    return (isinstance(exc, RuntimeError) and len(exc.args) >= 1 and isinstance(exc.args[0], str)
            and exc.args[0].lstrip().startswith(_MINDSPORE_MESSAGE))


def as_out_of_memory(exc):
    """The OutOfMemoryError that stands for `exc` (a MindSpore or NumPy allocation failure), or None."""
    if not is_allocation_failure(exc):
        return None
    from ._functions import OutOfMemoryError

    if isinstance(exc, MemoryError):
        size, what = int(exc._total_size), f"a host array of shape {tuple(exc.shape)} and dtype {exc.dtype}"
        source = "NumPy"
    else:
        size, what = _failed_request(exc.__traceback__)
        source = "MindSpore"
    device = mindspore.get_context("device_target")
    if size is None:
        asked = "MindSpore did not report the size of the failed allocation"
    else:
        asked = f"Tried to allocate {_readable(size)} ({size} bytes)"
    return OutOfMemoryError(f"{device} out of memory. {asked} for {what}. ({source}: "
                            f"{str(exc).strip().splitlines()[0]})")


def reraise_if_out_of_memory(exc):
    """Raise the OutOfMemoryError that stands for `exc`, if it is an allocation failure; else return."""
    error = as_out_of_memory(exc)
    if error is not None:
        raise error.with_traceback(exc.__traceback__) from None


def _readable(size):
    for unit, scale in (("GiB", 1 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10)):
        if size >= scale:
            return f"{size / scale:.2f} {unit}"
    return f"{size} bytes"


def _failed_request(traceback):
    """(bytes, description) of the output the innermost MindSpore primitive call in `traceback` failed to
    allocate, or (None, a description) when no primitive call with tensor arguments is found (a backward run in
    MindSpore's C++ engine)."""
    frames = []
    while traceback is not None:
        frames.append(traceback.tb_frame)
        traceback = traceback.tb_next
    for frame in reversed(frames):
        primitive = frame.f_locals.get("self")
        if isinstance(primitive, mindspore.ops.Primitive):
            arguments = _arguments(frame)
            tensors = [a for a in arguments if isinstance(a, mindspore.Tensor)]
            if tensors:
                shape, dtype = _output(primitive, arguments, tensors)
                size = math.prod(shape) * _itemsize(dtype)
                return size, f"the output of {primitive.name}, shape {shape} of {dtype}"
    return None, "an op of the backward"


def _arguments(frame):
    code = frame.f_code
    names = code.co_varnames[1:code.co_argcount]  # after self
    values = [frame.f_locals.get(name) for name in names]
    if code.co_flags & 0x04:  # *args
        values.extend(frame.f_locals.get(code.co_varnames[code.co_argcount + code.co_kwonlyargcount], ()))
    flattened = []
    for value in values:
        flattened.extend(value if isinstance(value, (list, tuple)) and value and
                         all(isinstance(v, mindspore.Tensor) for v in value) else [value])
    return flattened


def _output(primitive, arguments, tensors):
    """The output's shape and dtype by the op's shape rule: matrix products, tiling, concatenation, else the
    broadcast of the tensor arguments (elementwise ops, softmax, casts of one tensor ...)."""
    dtype = max((t.dtype for t in tensors), key=_itemsize)
    shapes = [tuple(t.shape) for t in tensors]
    name = primitive.name
    if name in _MATMULS and len(shapes) >= 2 and len(shapes[0]) >= 2 and len(shapes[1]) >= 2:
        a, b = shapes[0], shapes[1]
        rows = a[-1] if getattr(primitive, "transpose_a", False) else a[-2]
        columns = b[-2] if getattr(primitive, "transpose_b", False) else b[-1]
        return _broadcast([a[:-2], b[:-2]]) + (rows, columns), dtype
    if name == "Tile":
        multiples = next((a for a in arguments if isinstance(a, (tuple, list))), None)
        if multiples is not None:
            shape = (1,) * (len(multiples) - len(shapes[0])) + shapes[0]
            return tuple(s * m for s, m in zip(shape, multiples)), dtype
    if name == "Concat" and len(set(len(s) for s in shapes)) == 1:
        axis = getattr(primitive, "axis", 0) % len(shapes[0])
        shape = list(shapes[0])
        shape[axis] = sum(s[axis] for s in shapes)
        return tuple(shape), dtype
    return _broadcast(shapes), dtype


def _broadcast(shapes):
    rank = max(len(s) for s in shapes)
    padded = [(1,) * (rank - len(s)) + tuple(s) for s in shapes]
    return tuple(max(sizes) for sizes in zip(*padded))


def _itemsize(dtype):
    return mindspore.dtype_to_nptype(dtype)().itemsize if dtype != mindspore.bfloat16 else 2
