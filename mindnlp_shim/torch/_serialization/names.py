"""The globals a checkpoint's pickle may name, resolved by their module/name strings.

A pickle refers to classes and functions as "module name" pairs (`torch._utils _rebuild_tensor_v2`,
`torch FloatStorage`, `torch float32`). They are resolved here from the strings alone, so loading does not
depend on the `torch` import hook being installed and never imports real PyTorch.
"""
import _codecs
import _compat_pickle
import importlib
import pickle
import sys
from collections import Counter, OrderedDict

import mindspore

from .. import _dtype
from . import rebuild

_SHIM = __package__.rpartition(".")[0]  # "mindnlp_shim.torch"


def py3_name(module, name):
    """Pickles of protocol 0-2 written by Python 3 name builtins the Python 2 way (`__builtin__ set`)."""
    if (module, name) in _compat_pickle.NAME_MAPPING:
        return _compat_pickle.NAME_MAPPING[(module, name)]
    return _compat_pickle.IMPORT_MAPPING.get(module, module), name


_LAYOUT_NAMES = frozenset({"strided", "sparse_coo", "sparse_csr", "sparse_csc", "sparse_bsr", "sparse_bsc",
                           "_mkldnn", "jagged"})


def get_layout(name):
    """torch.serialization._get_layout("torch.strided"): the layout object of that name. Only layout names are
    looked up: the function is reachable from weights_only pickles and must not hand out other attributes."""
    short = name.rpartition(".")[2] if isinstance(name, str) else None
    layout = getattr(sys.modules.get(_SHIM), short, None) if short in _LAYOUT_NAMES else None
    if layout is None:
        raise NotImplementedError(f"torch.load: layout {name!r} is not available on MindSpore")
    return layout


def _torch_table():
    table = {f"torch._utils.{name}": fn for name, fn in rebuild.TORCH_UTILS.items()}
    table["torch._tensor._rebuild_from_type_v2"] = rebuild.rebuild_from_type_v2
    for name, storage_type in rebuild.STORAGE_TYPES.items():
        table[f"torch.{name}"] = storage_type
        table[f"torch.cuda.{name}"] = storage_type  # checkpoints written from CUDA tensors by torch < 2.0
    table["torch.storage.UntypedStorage"] = rebuild.UNTYPED_STORAGE
    table["torch.UntypedStorage"] = rebuild.UNTYPED_STORAGE
    for name, dt in _dtype.TORCH_NAMES.items():
        table[f"torch.{name}"] = dt
    table["torch.Tensor"] = mindspore.Tensor
    table["torch.serialization._get_layout"] = get_layout
    return table


_TORCH = _torch_table()
# Shim objects that live in modules which may import heavier parts of the shim: imported on first use.
_TORCH_LAZY = {
    "torch.device": ("_device", "device"),
    "torch.Size": ("_size", "Size"),
    "torch.nn.parameter.Parameter": ("nn.parameter", "Parameter"),
}

# Text encodings a weights_only pickle may name in `_codecs.encode` (protocol 2 writes bytes as
# `_codecs.encode(text, "latin1")`). Other codec names ("zlib", "rot13", ...) would import codec modules.
_TEXT_ENCODINGS = frozenset({"latin1", "latin-1", "latin_1", "iso-8859-1", "iso8859-1", "utf-8", "utf8", "utf_8",
                             "ascii"})


def encode_text(obj, encoding="utf-8", errors="strict"):
    """`_codecs.encode` as a weights_only pickle may call it: str to bytes with a plain text encoding."""
    if type(obj) is not str or type(encoding) is not str or encoding.lower() not in _TEXT_ENCODINGS \
            or type(errors) is not str:
        raise pickle.UnpicklingError(
            f"Weights only load failed: _codecs.encode may only turn a str into bytes with a text encoding "
            f"({', '.join(sorted(_TEXT_ENCODINGS))}); the checkpoint calls it on {type(obj).__name__} with "
            f"encoding {encoding!r}. Load with weights_only=False only if you trust the source of the file.")
    return _codecs.encode(obj, encoding, errors)


# Plain Python globals that `weights_only=True` allows: torch's list, plus `bytes` (protocol 2 writes b"" as
# `bytes()`, and files this package writes may hold it).
_SAFE_PYTHON = {
    "collections.OrderedDict": OrderedDict,
    "collections.Counter": Counter,
    "builtins.set": set,
    "builtins.complex": complex,
    "builtins.bytearray": bytearray,
    "builtins.bytes": bytes,
    "_codecs.encode": encode_text,
}


def torch_global(full_name):
    """The shim object a pickled torch global stands for, or None if it is not one of the known names."""
    obj = _TORCH.get(full_name)
    if obj is not None:
        return obj
    lazy = _TORCH_LAZY.get(full_name)
    if lazy is not None:
        module, attr = lazy
        return getattr(importlib.import_module(f"{_SHIM}.{module}"), attr)
    return None


def safe_global(full_name):
    """The object for a global that `weights_only=True` allows by default, or None."""
    obj = torch_global(full_name)
    if obj is None:
        return _SAFE_PYTHON.get(full_name)
    dtype_name = full_name[len("torch."):]
    if dtype_name in _dtype.TORCH_NAMES and _dtype._CANONICAL[obj] != dtype_name:
        return None  # torch allows a dtype only under its canonical name ("torch.float32", not "torch.float")
    return obj


def default_safe_globals():
    """Name -> object for every global `weights_only=True` allows by default (dtypes under their canonical
    names, storage classes, rebuild functions, classes)."""
    table = {name: safe_global(name) for name in (*_TORCH, *_TORCH_LAZY, *_SAFE_PYTHON)}
    return {name: obj for name, obj in table.items() if obj is not None}


def shim_attribute(module, name):
    """Any other `torch.<module>` global (only for `weights_only=False`): the same path under the shim."""
    try:
        obj = importlib.import_module(_SHIM + module[len("torch"):])
        for part in name.split("."):
            obj = getattr(obj, part)
    except (ImportError, AttributeError) as exc:
        raise NotImplementedError(
            f"torch.load: the checkpoint refers to {module}.{name}, which the MindSpore shim does not provide "
            f"({exc})") from exc
    return obj
