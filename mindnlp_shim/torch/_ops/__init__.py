"""torch op implementations by family. Each op is defined once here; `torch.<op>`, `Tensor.<op>` and the
dunder/in-place variants bind to these functions (see `_bindings.py`)."""
