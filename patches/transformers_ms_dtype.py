"""transformers model loading: accept MindNLP's `ms_dtype=` keyword as `dtype=`.

MindNLP documents `from_pretrained(..., ms_dtype=mindspore.float16)` for choosing the dtype a model loads in;
scripts written for it pass that keyword. transformers knows only `dtype=` (and the older `torch_dtype=`), so it
hands `ms_dtype` on to the model's `__init__`, which raises TypeError. No torch API can change how transformers
reads its own keyword arguments, so this patch renames it: `ms_dtype` means exactly what `dtype` means (under
the shim a MindSpore dtype *is* the torch dtype of the same name, so either kind is accepted, as are the strings
`dtype` accepts). Given together with a different `dtype`/`torch_dtype`, it raises ValueError.

Applied to `PreTrainedModel.from_pretrained` and `PreTrainedModel._from_config` (the Auto classes'
`from_pretrained`/`from_config` reach these with the keyword unchanged). Written against transformers 5.23;
applied for 5.x only.
"""
import wrapt

SUPPORTED_MAJOR = 5
_WRAPPED = ("from_pretrained", "_from_config")


def _major(version):
    try:
        return int(str(version).split(".")[0])
    except ValueError:
        return None


def as_dtype_keyword(kwargs):
    """`kwargs` with `ms_dtype` renamed to `dtype` (checked against a `dtype`/`torch_dtype` also given)."""
    if "ms_dtype" not in kwargs:
        return kwargs
    kwargs = dict(kwargs)
    ms_dtype = kwargs.pop("ms_dtype")
    for other in ("dtype", "torch_dtype"):
        given = kwargs.get(other)
        if given is not None and ms_dtype is not None and given != ms_dtype:
            raise ValueError(f"from_pretrained got ms_dtype={ms_dtype} and {other}={given}: they mean the same "
                             f"setting, pass one of them")
    if ms_dtype is not None and kwargs.get("torch_dtype") is None:
        kwargs["dtype"] = ms_dtype
    return kwargs


def _rename_ms_dtype(wrapped, instance, args, kwargs):
    return wrapped(*args, **as_dtype_keyword(kwargs))


def apply(module):
    import transformers

    model_class = getattr(module, "PreTrainedModel", None)
    if _major(transformers.__version__) != SUPPORTED_MAJOR or model_class is None or \
            not all(hasattr(model_class, name) for name in _WRAPPED):
        return
    for name in _WRAPPED:
        wrapt.wrap_function_wrapper(module, f"PreTrainedModel.{name}", _rename_ms_dtype)
