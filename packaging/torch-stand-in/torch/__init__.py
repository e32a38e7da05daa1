"""The `torch` package of mindnlp-shim's user-facing install: importing it installs the PyTorch API on MindSpore.

`import torch` before `import mindnlp` (or a library such as accelerate or datasets importing torch first)
runs this module, which does what `import mindnlp` does and then gives way: when the import finishes,
`torch` is `mindnlp_shim.torch`. Without mindnlp-shim it raises an ImportError naming what is missing.
"""
__mindnlp_stand_in__ = True  # lets mindnlp_shim tell this module from real PyTorch while it replaces it

try:
    import mindnlp_shim as _shim
except ImportError as _missing:
    raise ImportError(
        "This `torch` is mindnlp-shim's stand-in (torch 2.13.0+mindspore): it provides the PyTorch API on "
        "MindSpore through the mindnlp-shim package, which is not installed here. Install mindnlp-shim in this "
        "environment, or replace the stand-in with real PyTorch (pip uninstall torch, then pip install torch)."
    ) from _missing

_shim.install()
