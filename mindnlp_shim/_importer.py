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


def adopt_torch_names(module):
    """The classes a loaded shim module defines say torch's module (`<class 'torch.nn.modules.rnn.LSTM'>`,
    torch.typename, warnings that name a class), as under torch. Names of functions stay: the shim's own op
    registries select functions by module. (sys.modules gets the module's torch name from install_hook or from
    the import of that name: registering it here, while `import torch.<sub>` is finding the module, would make
    importlib load the file a second time.)"""
    if module.__name__ != SHIM and not module.__name__.startswith(SHIM + "."):
        return
    torch_name = TORCH + module.__name__[len(SHIM):]
    pending = [value for value in vars(module).values() if isinstance(value, type)]
    while pending:
        cls = pending.pop()
        if cls.__dict__.get("__module__") != module.__name__:
            continue  # imported from elsewhere, or already renamed
        try:
            cls.__module__ = _public_module(cls, torch_name)
        except TypeError:
            continue  # a static (C) type
        pending.extend(value for value in vars(cls).values() if isinstance(value, type))
    if hasattr(module, "__path__"):
        _adopt_exports(module, torch_name)


def _adopt_exports(package, torch_name):
    """A package loads its private submodules before it exports their classes: once it has, those classes say
    the package (torch.distributed._stores.DistError is torch.distributed.DistError)."""
    private = torch_name + "._"
    for name, value in list(vars(package).items()):
        if isinstance(value, type) and value.__name__ == name and "." not in value.__qualname__ and \
                value.__module__.startswith(private) and "." not in value.__module__[len(private):]:
            value.__module__ = torch_name


def _public_module(cls, torch_name):
    """A class of a private module (torch._device) that its public package exports under its own name says
    that package (torch.device), as torch's classes do."""
    parts = torch_name.split(".")
    private = next((i for i, part in enumerate(parts) if part.startswith("_")), None)
    if private is None:
        return torch_name
    package = sys.modules.get(".".join([SHIM] + parts[1:private]))
    if "." not in cls.__qualname__ and getattr(package, cls.__name__, None) is cls:
        return ".".join(parts[:private])
    return torch_name


class _AdoptingLoader(importlib.abc.Loader):
    """Loads a shim submodule imported after the shim package itself (lazily, by its shim name) and then
    gives its classes torch's module names (adopt_torch_names)."""

    def __init__(self, loader):
        self._loader = loader

    def create_module(self, spec):
        return self._loader.create_module(spec)

    def exec_module(self, module):
        self._loader.exec_module(module)
        adopt_torch_names(module)

    def __getattr__(self, name):  # get_source, get_filename, is_package ... of the file loader
        return getattr(self._loader, name)


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
        if fullname.startswith(SHIM + ".") and _shim_loaded:
            spec = importlib.machinery.PathFinder.find_spec(fullname, path)
            if spec is not None and spec.loader is not None:
                spec.loader = _AdoptingLoader(spec.loader)
            return spec
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
# set once the shim package has finished importing: renaming its classes earlier would hide them from the
# package's own export steps, which select what a module defines by `__module__`
_shim_loaded = False


def is_hook_installed():
    return _finder is not None and _finder in sys.meta_path


def install_hook():
    global _finder, _shim_loaded
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
        if name == SHIM or name.startswith(SHIM + "."):
            sys.modules.setdefault(TORCH + name[len(SHIM):], module)
            adopt_torch_names(module)
    _shim_loaded = True
    from . import patches

    patches.apply_all()
