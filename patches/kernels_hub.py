"""kernels (the Hub kernel loader): no kernel build loads on MindSpore; `kernelize` keeps the layers' own forward.

Why: the `kernels` package downloads compiled kernels from the Hugging Face Hub and swaps them in for the forward
of layers that transformers marks (`use_kernel_forward_from_hub`: RMSNorm, activations, rotary embeddings, ...).
Every build it can load is an extension of real PyTorch (C++/CUDA/ROCm/Metal code linked against libtorch, or
Triton kernels that take real PyTorch GPU tensors), picked by `_backend()` (`kernels._internals.backends` from
0.19, `kernels.backends` before) from the torch build it runs under. Since transformers 5.25, which requires
`kernels`, every `from_pretrained` kernelizes the model by default (`use_kernels` unset means on), and
`model.train()`/`model.eval()` kernelize again for the new mode. Under the shim `_backend()` stops on `torch._C`
(not provided); on the CPU target the Hub mapping has no CPU entries, so nothing is loaded and the models run, but
on the GPU target (device `cuda`) the mapped layers (Llama's RMSNorm, GPT-2's and BERT's GELU, ...) reach
`_backend()` and `from_pretrained` fails with an AttributeError about `torch._C`. No torch API answer can make a
libtorch extension run on MindSpore.

What this patch does: `_backend()` raises `NoKernelBuild`, a FileNotFoundError (what `kernels` raises when a
kernel has no build for the running system) that is also a NotImplementedError, naming the reason. So:
- `kernelize` as transformers calls it (fallback `KernelizeFallback.ALL`, which covers a kernel that cannot be
  loaded) keeps each layer's own forward, the torch code the shim runs, on every device. `from_pretrained`,
  `train()` and `eval()` work as on the CPU target, with `model.use_kernels` true as transformers sets it.
- `kernels.get_kernel`, `get_local_kernel`, `has_kernel` and `kernelize(..., use_fallback=False)` raise it with
  the message, before any download.

Written against kernels 0.19 (transformers 5.25 requires >=0.19.1,<0.20) and 0.18 (transformers 5.24 uses
>=0.18.2,<0.19 when it is installed); applied while the backends module has `_backend`, for 0.x releases.
"""
import sys

import wrapt

SUPPORTED_MAJOR = 0
# modules beside the backends module that bind `_backend` by name at import (kernels 0.18 and 0.19)
_BINDERS = ("validate", "python_deps", "cli.benchmark")


class NoKernelBuild(FileNotFoundError, NotImplementedError):
    """No build of a Hub kernel can load under mindnlp-shim."""


MESSAGE = ("Hub kernels cannot be loaded on MindSpore: every build of a kernel is an extension of real PyTorch "
           "(C++/CUDA/ROCm code linked against libtorch, or Triton kernels on real PyTorch GPU tensors), which "
           "mindnlp-shim cannot load. Layers that a kernel would replace keep their own forward, which runs on "
           "MindSpore; use the model without use_kernels/kernel_config, or an attn_implementation such as "
           "'sdpa' or 'eager'.")


def _major(version):
    try:
        return int(str(version).split(".")[0])
    except ValueError:
        return None


def _no_backend(wrapped, instance, args, kwargs):
    raise NoKernelBuild(MESSAGE)


def apply(module):
    from importlib import metadata

    try:
        version = metadata.version("kernels")
    except metadata.PackageNotFoundError:
        version = getattr(sys.modules.get("kernels"), "__version__", None)
    if _major(version) != SUPPORTED_MAJOR or not callable(getattr(module, "_backend", None)):
        return
    if isinstance(module._backend, wrapt.FunctionWrapper):
        return
    original = module._backend
    wrapt.wrap_function_wrapper(module, "_backend", _no_backend)
    package = module.__name__.rpartition(".")[0]
    for name in _BINDERS:  # imported before this patch (kernels imported ahead of mindnlp): rebind their name
        binder = sys.modules.get(f"{package}.{name}")
        if binder is not None and getattr(binder, "_backend", None) is original:
            binder._backend = module._backend
