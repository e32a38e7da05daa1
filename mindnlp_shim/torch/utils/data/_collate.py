"""default_collate / default_convert: how the DataLoader turns samples into batches (torch's documented rules).

default_collate: tensors are stacked along a new first dim; NumPy arrays and NumPy scalars become tensors and
are stacked; Python floats become a float64 tensor, ints an int64 tensor, bools a bool tensor; strings and
bytes stay a list; dicts, namedtuples, tuples and lists are collated element-wise (tuples give lists).
default_convert (used when automatic batching is off) only converts NumPy arrays/scalars to tensors.
"""
import collections.abc
import copy
import re

import numpy as np
import mindspore

Tensor = mindspore.Tensor

__all__ = ["default_collate", "default_convert", "collate", "default_collate_fn_map"]

_STRING_OR_OBJECT = re.compile(r"[SaUO]")
_COLLATE_ERROR = ("default_collate: batch must contain tensors, numpy arrays, numbers, dicts or lists; found {}")


def _as_tensor(value):
    from ... import as_tensor

    return as_tensor(value)


def _is_numpy_value(value):
    return type(value).__module__ == "numpy" and not isinstance(value, (np.str_, np.bytes_))


def _is_namedtuple(value):
    return isinstance(value, tuple) and hasattr(value, "_fields")


def default_convert(data):
    """Convert NumPy arrays and scalars inside `data` (recursively) to tensors; leave everything else."""
    if isinstance(data, Tensor):
        return data
    if _is_numpy_value(data):
        if isinstance(data, np.ndarray) and _STRING_OR_OBJECT.search(data.dtype.str) is not None:
            return data
        return _as_tensor(np.asarray(data) if not isinstance(data, np.ndarray) else data)
    if isinstance(data, collections.abc.Mapping):
        converted = {key: default_convert(value) for key, value in data.items()}
        return _rebuild_mapping(data, converted)
    if _is_namedtuple(data):
        return type(data)(*(default_convert(d) for d in data))
    if isinstance(data, tuple):
        return [default_convert(d) for d in data]
    if isinstance(data, collections.abc.Sequence) and not isinstance(data, (str, bytes)):
        converted = [default_convert(d) for d in data]
        try:
            return type(data)(converted)
        except TypeError:
            return converted
    return data


def _rebuild_mapping(original, values):
    """The collated values in a mapping of the sample's own type when it can be rebuilt, else a dict."""
    if isinstance(original, collections.abc.MutableMapping):
        clone = copy.copy(original)
        clone.update(values)
        return clone
    try:
        return type(original)(values)
    except TypeError:
        return values


def _stack_tensors(batch):
    from ... import stack
    from ..._device import PROCESS_DEVICE_TYPE

    shape = tuple(batch[0].shape)
    for i, tensor in enumerate(batch):
        if tuple(tensor.shape) != shape:
            raise RuntimeError(f"stack expects each tensor to be equal size, but got {list(shape)} at entry 0 and "
                               f"{list(tensor.shape)} at entry {i}")
    if PROCESS_DEVICE_TYPE == "cpu" and len({t.dtype for t in batch}) == 1 and \
            not any(t.requires_grad for t in batch):
        # stacked by NumPy from the tensors' memory: no MindSpore kernel runs, so a forked DataLoader worker
        # cannot hang on a kernel thread pool whose lock another thread of the parent held at the fork
        from ... import _memory

        return Tensor.from_numpy(np.stack([_memory.host_view(t) for t in batch]))
    return stack(batch, 0)


def _collate_tensors(batch, *, collate_fn_map=None):
    return _stack_tensors(batch)


def _collate_numpy_arrays(batch, *, collate_fn_map=None):
    if _STRING_OR_OBJECT.search(batch[0].dtype.str) is not None:
        raise TypeError(_COLLATE_ERROR.format(batch[0].dtype))
    return _as_tensor(np.stack(batch))


def _collate_numpy_scalars(batch, *, collate_fn_map=None):
    return _as_tensor(np.asarray(batch))


def _collate_floats(batch, *, collate_fn_map=None):
    return _as_tensor(np.asarray(batch, dtype=np.float64))


def _collate_ints(batch, *, collate_fn_map=None):
    if all(isinstance(b, bool) for b in batch):
        return _as_tensor(np.asarray(batch, dtype=np.bool_))
    return _as_tensor(np.asarray(batch, dtype=np.int64))


def _collate_strings(batch, *, collate_fn_map=None):
    return batch


default_collate_fn_map = {
    Tensor: _collate_tensors,
    np.ndarray: _collate_numpy_arrays,
    np.memmap: _collate_numpy_arrays,
    (np.bool_, np.number, np.object_): _collate_numpy_scalars,
    float: _collate_floats,
    int: _collate_ints,
    str: _collate_strings,
    bytes: _collate_strings,
}


def collate(batch, *, collate_fn_map=None):
    """Collate `batch` (a list of samples) by the rules of `collate_fn_map` ({type: fn}), recursing into
    mappings and sequences; `default_collate` is this with `default_collate_fn_map`."""
    elem = batch[0]
    elem_type = type(elem)
    if collate_fn_map is not None:
        if elem_type in collate_fn_map:
            return collate_fn_map[elem_type](batch, collate_fn_map=collate_fn_map)
        for collate_type, fn in collate_fn_map.items():
            if isinstance(elem, collate_type):
                return fn(batch, collate_fn_map=collate_fn_map)
    if isinstance(elem, collections.abc.Mapping):
        collated = {key: collate([sample[key] for sample in batch], collate_fn_map=collate_fn_map) for key in elem}
        return _rebuild_mapping(elem, collated)
    if _is_namedtuple(elem):
        return elem_type(*(collate(list(samples), collate_fn_map=collate_fn_map) for samples in zip(*batch)))
    if isinstance(elem, collections.abc.Sequence) and not isinstance(elem, (str, bytes)):
        size = len(elem)
        if not all(len(sample) == size for sample in batch):
            raise RuntimeError("each element in list of batch should be of equal size")
        transposed = [collate(list(samples), collate_fn_map=collate_fn_map) for samples in zip(*batch)]
        if isinstance(elem, tuple):
            return transposed  # torch returns a list for tuples
        if isinstance(elem, collections.abc.MutableSequence):
            clone = copy.copy(elem)
            for i, value in enumerate(transposed):
                clone[i] = value
            return clone
        try:
            return elem_type(transposed)
        except TypeError:
            return transposed
    raise TypeError(_COLLATE_ERROR.format(elem_type))


def default_collate(batch):
    """Stack a list of samples into a batch (see the module docstring for the rules)."""
    return collate(batch, collate_fn_map=default_collate_fn_map)
