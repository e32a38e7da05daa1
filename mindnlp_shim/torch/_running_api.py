"""Which public torch API the shim is running, read from the call stack: for errors raised deep inside an op
(a sparse tensor asked for a dense tensor's attribute) to name what the user called (`torch.cat`), not the
internal attribute. Only error paths call this; it costs nothing otherwise.
"""
import sys

# where torch's public callables live, under the names torch gives them
_NAMESPACES = ("torch", "torch.nn.functional", "torch.linalg", "torch.special", "torch.fft")
_SHIM = __name__.rpartition(".")[0]  # mindnlp_shim.torch

_functions_by_code = None


def _levels(fn):
    """`fn` and the functions it wraps (`__wrapped__`), outermost first."""
    seen = set()
    while fn is not None and id(fn) not in seen:
        seen.add(id(fn))
        yield fn
        fn = getattr(fn, "__wrapped__", None)


def _public_functions():
    """code object -> {public name: the function (or wrapped function) of that name running that code}."""
    global _functions_by_code
    if _functions_by_code is None:
        import importlib

        import mindspore

        tables = [(name, vars(importlib.import_module(_SHIM + name[len("torch"):]))) for name in _NAMESPACES]
        tables.append(("torch.Tensor", vars(mindspore.Tensor)))
        found = {}
        for prefix, table in tables:
            for attr, value in list(table.items()):
                if attr.startswith("_") and not attr.startswith("__") or not callable(value) or isinstance(value, type):
                    continue
                for level in _levels(value):
                    code = getattr(level, "__code__", None)
                    if code is not None:
                        found.setdefault(code, {})[f"{prefix}.{attr}"] = level
        _functions_by_code = found
    return _functions_by_code


def _runs(fn, frame):
    """Whether `frame` may be running `fn` (a function of the frame's code): its closure is the frame's."""
    cells = fn.__closure__ or ()
    local = frame.f_locals
    return all(name in local and local[name] is cell.cell_contents
               for name, cell in zip(fn.__code__.co_freevars, cells))


def _name_of(frame):
    named = _public_functions().get(frame.f_code)
    if not named:
        return None
    if len({id(f) for f in named.values()}) > 1:
        # a code several functions share (a factory's): those whose closure is this frame's, which are the same
        # function made twice if more than one (torch.abs_ and torch.absolute_)
        named = {name: f for name, f in named.items() if _runs(f, frame)}
        if not named:
            return None
    return min(named, key=lambda n: (n.count("."), len(n), n))  # torch.abs over torch.Tensor.abs, absolute


def torch_api_running(depth=1):
    """The public torch name of the outermost shim function running above the caller's caller, or None."""
    frame = sys._getframe(depth + 1)
    frames = []
    while frame is not None:
        module = frame.f_globals.get("__name__", "")
        if module.startswith(_SHIM):
            frames.append(frame)
        elif not module.startswith(("mindspore", "functools")):
            break  # the user's (or a library's) frame: the call into torch
        frame = frame.f_back
    for frame in reversed(frames):
        name = _name_of(frame)
        if name is not None:
            return name
    return None
