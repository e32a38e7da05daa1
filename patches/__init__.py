"""Small, named patches on third-party functions whose behaviour the torch API alone cannot reach.

Each module patches one package, says in its docstring why each patch exists, and guards on the upstream
version it was written against. Patches are applied lazily, when the target module is imported.
"""
import importlib
import sys

import wrapt

# target module -> patch modules (inside this package), in order, whose `apply(module)` patches it
_PATCHES = {}


def register(target_module, patch_module):
    _PATCHES.setdefault(target_module, []).append(patch_module)


def _apply_one(target_name, module):
    for patch_name in _PATCHES[target_name]:
        importlib.import_module(f"{__name__}.{patch_name}").apply(module)


def apply_all():
    """Patch each target now if it is already imported, otherwise the moment it is imported."""
    for target_name in _PATCHES:
        if target_name in sys.modules:
            _apply_one(target_name, sys.modules[target_name])
        else:
            wrapt.register_post_import_hook(lambda module, name=target_name: _apply_one(name, module), target_name)


register("transformers.training_args", "transformers_training_args")  # optimizers that cannot run: fail early
# checkpoint folders complete or absent; resume takes the newest complete one
register("transformers.trainer_utils", "transformers_checkpoints")
register("transformers.trainer", "transformers_checkpoints")
register("transformers.modeling_utils", "transformers_ms_dtype")  # MindNLP's from_pretrained(ms_dtype=...)
# Hub kernels are real PyTorch extensions: kernelize keeps the layers' own forward, loaders say why they cannot
register("kernels._internals.backends", "kernels_hub")  # kernels 0.19
register("kernels.backends", "kernels_hub")  # kernels 0.18
