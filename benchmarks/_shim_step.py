"""Child process: the transformers training step under this project's shim (`import mindnlp` first)."""
import os
import sys

# Measure the checkout this file belongs to, not whatever else is importable.
sys.path.insert(1, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

import _common
import _hf_step


def body(args):
    import mindnlp  # noqa: F401  (installs the torch redirection; must come before torch and transformers)
    import torch

    return _hf_step.measure(torch, args)


if __name__ == "__main__":
    _common.run_child("ours", body)
