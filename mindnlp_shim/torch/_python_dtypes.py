"""Python's scalar types as dtype arguments, read as torch reads them.

torch accepts `bool`, `int`, `float` and `complex` wherever an API takes a dtype, as torch.bool, torch.int64,
torch.float64 and torch.complex128 (`torch.tensor(0, dtype=int)`, `x.sum(dtype=float)`, `x.to(float)`);
transformers' StaticCache builds its counters with `torch.tensor(0, dtype=int)`. The shim's ops take dtype
objects, so the public functions and Tensor methods whose signature has a `dtype` parameter are wrapped here,
once at import, to turn such a type into its dtype before the op sees it. `Tensor.to`, `Tensor.view`,
`nn.Module.to` and the dtype queries (`finfo`, `iinfo`, `promote_types`, `can_cast`) parse their own
arguments and call `_dtype.resolve` themselves. `Tensor.type(int)` stays an error, as in torch.
"""
import inspect

from ._dtype import resolve

_NOT_WRAPPED = frozenset({"type"})  # torch refuses Python types there (ValueError: invalid type)
_wrappers = {}  # id(function) -> its wrapper, so a function bound under several names gets one wrapper


def _dtype_position(fn):
    """The index of `fn`'s `dtype` parameter among its positional ones, len(positional) when it is
    keyword-only, or None when `fn` (seen through functools.wraps wrappers) has no such parameter."""
    code = getattr(inspect.unwrap(fn), "__code__", None)
    if code is None:
        return None
    positional = code.co_varnames[:code.co_argcount]
    if "dtype" in positional:
        return positional.index("dtype")
    if "dtype" in code.co_varnames[code.co_argcount:code.co_argcount + code.co_kwonlyargcount]:
        return len(positional)
    return None


def accepting_python_types(fn):
    """`fn`, wrapped to read a Python type given as its `dtype` argument as torch does; `fn` itself when it has
    no `dtype` parameter."""
    wrapper = _wrappers.get(id(fn))
    if wrapper is not None:
        return wrapper
    if getattr(fn, "__accepts_python_dtypes__", False) or not inspect.isfunction(inspect.unwrap(fn)):
        return fn
    position = _dtype_position(fn)
    if position is None:
        return fn

    def op(*args, **kwargs):
        # (`x.__class__ is type` is false for None and for dtype objects: two attribute reads on the common path)
        if kwargs and kwargs.get("dtype").__class__ is type:
            kwargs["dtype"] = resolve(kwargs["dtype"])
        if position < len(args) and args[position].__class__ is type:
            args = args[:position] + (resolve(args[position]),) + args[position + 1:]
        return fn(*args, **kwargs)

    for attribute in ("__module__", "__name__", "__qualname__", "__doc__"):
        try:
            setattr(op, attribute, getattr(fn, attribute))
        except AttributeError:
            pass
    op.__wrapped__ = fn
    op.__accepts_python_dtypes__ = True
    _wrappers[id(fn)] = op
    _wrappers[id(op)] = op
    return op


def install(namespace):
    """Wrap, in `namespace` (a module's globals), each public function with a `dtype` parameter."""
    for name, value in list(namespace.items()):
        if not name.startswith("_") and name not in _NOT_WRAPPED and inspect.isfunction(value):
            namespace[name] = accepting_python_types(value)


def install_methods(cls, registries=()):
    """The same for the torch methods the shim gives `cls` (Tensor): MindSpore's own methods keep its
    reading of their arguments, for its internal callers. `registries`: dicts of name -> installed method
    (the attribute audit's) that must go on naming what is installed."""
    for name, value in list(vars(cls).items()):
        if not name.startswith("_") and name not in _NOT_WRAPPED and inspect.isfunction(value) and \
                getattr(value, "__module__", "").startswith("mindnlp_shim."):
            wrapped = accepting_python_types(value)
            if wrapped is not value:
                setattr(cls, name, wrapped)
                for registry in registries:
                    if registry.get(name) is value:
                        registry[name] = wrapped
