"""Is it too late to install the torch API? What was imported before `import mindnlp`, and the message naming the fix.

Two orders cannot be repaired in the running process and are refused with an ImportError:
- real PyTorch is already imported (by the script, or by a library such as accelerate or peft that imports it
  at its own import): the modules holding it would keep computing on PyTorch beside the MindSpore-backed API;
- a library imported earlier looked for torch, found none and recorded it as missing (datasets'
  `config.TORCH_AVAILABLE`, transformers' cached `is_torch_available()`): it would fail much later with
  "PyTorch needs to be installed", although `import torch` now works.
A library imported earlier that found a torch distribution (the stand-in or real PyTorch) but has not imported
torch yet is fine: its later `import torch` gets the shim.
"""
import importlib.metadata
import sys

TORCH = "torch"
SHIM = "mindnlp_shim.torch"
STAND_IN_MARK = "__mindnlp_stand_in__"

FIX = ("Put `import mindnlp` first in the script, before torch and before any library that imports torch "
       "(transformers, accelerate, peft, datasets, evaluate, sentence-transformers, ...).")


def is_stand_in(module):
    """The `torch` package of the user-facing install, which installs the shim when imported."""
    return bool(getattr(module, STAND_IN_MARK, False))


def _is_shim(module):
    name = getattr(module, "__name__", "") or ""
    return name == SHIM or name.startswith(SHIM + ".")


def imported_real_torch():
    """The real PyTorch module if this process has imported one, else None."""
    module = sys.modules.get(TORCH)
    if module is None or _is_shim(module) or is_stand_in(module):
        return None
    return module


def _holders(module):
    """Top-level packages (and `__main__`) with a module-level reference to `module`: who imported it."""
    names = set()
    for name, candidate in list(sys.modules.items()):
        if candidate is None or name in (TORCH, "__mp_main__") or name.startswith(TORCH + "."):
            continue
        try:
            values = list(vars(candidate).values())
        except TypeError:
            continue
        if any(value is module for value in values):
            names.add(name.split(".")[0])
    return sorted(names)


def _real_torch_message(module):
    try:
        version = importlib.metadata.version(TORCH)
    except importlib.metadata.PackageNotFoundError:
        version = getattr(module, "__version__", "?")
    holders = ["your script" if name == "__main__" else name for name in _holders(module)]
    who = f"it is held by: {', '.join(holders)}" if holders else "by the script or a library imported before mindnlp"
    return (f"Real PyTorch {version} ({getattr(module, '__file__', '?')}) was imported before mindnlp ({who}). "
            f"mindnlp cannot replace it in this process: every module that imported it keeps real PyTorch, and "
            f"mixing its tensors and modules with the MindSpore-backed torch API would run part of the program "
            f"on PyTorch and fail or give wrong results. {FIX} Then `import torch` gives the MindSpore-backed "
            f"API, even where real PyTorch is installed.")


def libraries_that_recorded_torch_missing():
    """[(library, what it recorded)] for libraries imported earlier that concluded torch is not installed."""
    found = []
    config = sys.modules.get("datasets.config")
    if config is not None and getattr(config, "TORCH_AVAILABLE", None) is False:
        found.append(("datasets", "datasets.config.TORCH_AVAILABLE = False"))
    import_utils = sys.modules.get("transformers.utils.import_utils")
    if import_utils is not None:
        check = getattr(import_utils, "is_torch_available", None)
        cached = getattr(check, "cache_info", None)
        if cached is not None and cached().currsize and check() is False:  # a cached answer, not a new probe
            found.append(("transformers", "transformers.utils.is_torch_available() = False, cached"))
        elif getattr(import_utils, "_torch_available", None) is False:
            found.append(("transformers", "transformers.utils.import_utils._torch_available = False"))
    return found


def _recorded_missing_message(found):
    libraries = ", ".join(name for name, _ in found)
    details = "; ".join(detail for _, detail in found)
    return (f"{libraries} {'was' if len(found) == 1 else 'were'} imported before mindnlp, found no usable PyTorch "
            f"then and recorded it as missing ({details}). {'It' if len(found) == 1 else 'They'} would fail later "
            f"with \"PyTorch needs to be installed\" although mindnlp now provides torch. {FIX}")


def check():
    """Raise ImportError naming the fix when it is too late to install the torch API in this process."""
    real = imported_real_torch()
    if real is not None:
        raise ImportError(_real_torch_message(real))
    found = libraries_that_recorded_torch_missing()
    if found:
        raise ImportError(_recorded_missing_message(found))
