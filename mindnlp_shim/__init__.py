"""mindnlp-shim: the PyTorch API implemented on MindSpore, installed under the name `torch`."""
import os as _os

__version__ = "0.1.0"

# Installed, `patches/` lives inside the package as `mindnlp_shim/patches`. In a source checkout it is the
# top-level `patches/` folder beside this package: let `mindnlp_shim.patches` find it there too.
_source_root = _os.path.dirname(_os.path.dirname(_os.path.abspath(__file__)))
if not _os.path.isdir(_os.path.join(__path__[0], "patches")) and _os.path.isfile(
    _os.path.join(_source_root, "patches", "__init__.py")
):
    __path__.append(_source_root)


def install():
    """Make `import torch` (and every `torch.*` submodule) resolve to `mindnlp_shim.torch`. Idempotent."""
    from . import _importer

    _importer.install_hook()


def is_installed():
    from . import _importer

    return _importer.is_hook_installed()
