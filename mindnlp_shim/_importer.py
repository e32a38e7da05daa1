"""The import hook: `torch` and `torch.<sub>` resolve to `mindnlp_shim.torch` and `mindnlp_shim.torch.<sub>`.

Both names refer to the same module objects, so `torch.nn is mindnlp_shim.torch.nn`. The hook also answers
`importlib.metadata` queries for the `torch` distribution, so libraries that check the installed torch
version (transformers' `is_torch_available`, accelerate's version gates) see the API level we implement.

Installing is refused with the fix when it is too late (see _import_order). The user-facing install's stand-in
`torch` package calls `install()` when it is imported first and is then replaced by the shim.
"""
import importlib
import importlib.abc
import importlib.machinery
import importlib.metadata
import sys

from . import _import_order

TORCH = "torch"
SHIM = "mindnlp_shim.torch"
# The torch release whose API this shim implements and against which it is tested.
TORCH_API_VERSION = "2.13.0"


class _AliasLoader(importlib.abc.Loader):
    """Hands out the already-imported shim module instead of executing anything."""

    def __init__(self, module):
        self._module = module

    def create_module(self, spec):
        return self._module

    def exec_module(self, module):
        # the shim submodules this package already imported get their torch names now: importing one later
        # under its torch name would set it as the package's attribute, over a function of the same name
        # (torch.multiprocessing.spawn is a function and a module)
        prefix = module.__name__ + "."
        for name, submodule in list(sys.modules.items()):
            if name.startswith(prefix):
                sys.modules.setdefault(TORCH + name[len(SHIM):], submodule)


class _TorchDistribution(importlib.metadata.Distribution):
    """Metadata of the `torch` distribution as implemented by the shim."""

    _METADATA = f"Metadata-Version: 2.1\nName: torch\nVersion: {TORCH_API_VERSION}\nSummary: PyTorch API on MindSpore (mindnlp-shim)\n"

    def read_text(self, filename):
        if filename == "METADATA":
            return self._METADATA
        if filename == "top_level.txt":
            return "torch\n"
        return None

    def locate_file(self, path):
        import os

        return os.path.join(os.path.dirname(__file__), "torch", str(path))


class TorchRedirectFinder(importlib.abc.MetaPathFinder):
    def find_spec(self, fullname, path=None, target=None):
        if fullname != TORCH and not fullname.startswith(TORCH + "."):
            return None
        shim_name = SHIM + fullname[len(TORCH):]
        try:
            module = importlib.import_module(shim_name)
        except ModuleNotFoundError as exc:
            if exc.name == shim_name:
                return None  # torch has it, we do not: a plain ModuleNotFoundError for `fullname`
            raise
        spec = importlib.machinery.ModuleSpec(fullname, _AliasLoader(module), is_package=hasattr(module, "__path__"))
        if hasattr(module, "__path__"):
            spec.submodule_search_locations = list(module.__path__)
        return spec

    def find_distributions(self, context=importlib.metadata.DistributionFinder.Context()):
        if context.name is not None and context.name.lower() == TORCH:
            return iter([_TorchDistribution()])
        return iter(())


_finder = None


def is_hook_installed():
    return _finder is not None and _finder in sys.meta_path


def install_hook():
    global _finder
    if is_hook_installed():
        return
    _import_order.check()
    if _import_order.is_stand_in(sys.modules.get(TORCH)):
        # `import torch` came first and runs the stand-in now: the shim takes its name (set below), and the
        # import statement that loaded the stand-in returns whatever sys.modules holds when it finishes
        del sys.modules[TORCH]
    _finder = TorchRedirectFinder()
    sys.meta_path.insert(0, _finder)
    import mindnlp_shim.torch as shim_torch  # noqa: F401  (import now: errors surface at `import mindnlp`)

    sys.modules[TORCH] = shim_torch
    for name, module in list(sys.modules.items()):
        if name.startswith(SHIM + "."):
            sys.modules.setdefault(TORCH + name[len(SHIM):], module)
    from . import patches

    patches.apply_all()
