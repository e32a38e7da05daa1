"""transformers.TrainingArguments: reject, at construction, optimizers and back ends that cannot run on MindSpore.

Upstream validates `optim` only as a name; a missing or unusable package surfaces when `Trainer.train()` builds
the optimizer, after the model and data are loaded (and for some packages only inside their kernels). The
optimizers below are implemented as compiled extensions of real PyTorch (or of its XLA/Ascend/torchao
back ends), which the shim cannot load, so no install makes them work here. This patch raises a
NotImplementedError naming the option, the package and why, as soon as `TrainingArguments` is built, and
points at the optimizers that do run. Pure-Python optimizer packages (GaLore, LOMO, schedule-free, GrokAdamW,
APOLLO, torch-optimi) are left to upstream's own checks.

The same holds for the multi-process and kernel-library fields (`fsdp`, `deepspeed`, `parallelism_config`,
`ddp_backend`, `use_liger_kernel`): upstream fails on them deep inside accelerate or at the first step, with an
import error about a torch internal; here they fail at construction saying what is missing.

Written against transformers 5.23 (`TrainingArguments.__post_init__`, `OptimizerNames`); applied for 5.x only.
"""
import wrapt

SUPPORTED_MAJOR = 5

_BITSANDBYTES = ("bitsandbytes", "its optimizers run native kernels registered with real PyTorch's operator "
                 "library")
_TORCHAO = ("torchao", "its low-bit optimizer states are real PyTorch tensor subclasses built for torch.compile")

# optim value -> (package, why it cannot run on MindSpore)
UNSUPPORTED_OPTIMS = {
    **{name: _BITSANDBYTES for name in (
        "adamw_bnb_8bit", "adamw_8bit", "ademamix", "ademamix_8bit", "lion_8bit", "lion_32bit", "paged_adamw_32bit",
        "paged_adamw_8bit", "paged_ademamix_32bit", "paged_ademamix_8bit", "paged_lion_32bit", "paged_lion_8bit",
        "rmsprop_bnb", "rmsprop_bnb_8bit", "rmsprop_bnb_32bit", "galore_adamw_8bit",
        "galore_adamw_8bit_layerwise")},
    "adamw_torch_4bit": _TORCHAO,
    "adamw_torch_8bit": _TORCHAO,
    "adamw_torch_xla": ("torch_xla", "it steps tensors of real PyTorch's XLA back end"),
    "adamw_torch_npu_fused": ("torch_npu", "it is real PyTorch's Ascend adapter (on Ascend, "
                                           "optim='adamw_torch_fused' runs on MindSpore's own kernels)"),
    "adamw_anyprecision": ("torchdistx", "its AnyPrecisionAdamW is a C++ extension of real PyTorch"),
}

SUPPORTED_HINT = "adamw_torch_fused (the default), adamw_torch, adafactor, sgd, adagrad or rmsprop"


def _major(version):
    try:
        return int(str(version).split(".")[0])
    except ValueError:
        return None


def _optim_value(optim):
    return getattr(optim, "value", optim)


_NO_DISTRIBUTED = "torch.distributed, which mindnlp-shim does not implement (train in a single process)"

# field -> (is the field set?, why it cannot run on MindSpore)
UNSUPPORTED_FIELDS = {
    "fsdp": (bool, "the Trainer's FSDP runs through accelerate's FSDP plugin, which is not verified on MindSpore "
                   "(accelerate takes a CPU job as MULTI_CPU and uses DDP); torch.distributed.fsdp."
                   "FullyShardedDataParallel itself is provided (docs/distributed.md)"),
    "deepspeed": (lambda v: v is not None,
                  "DeepSpeed is a set of CUDA/C++ extensions of real PyTorch, which mindnlp-shim cannot load"),
    "parallelism_config": (lambda v: v is not None,
                           f"tensor/context/data-shard parallelism builds device meshes with {_NO_DISTRIBUTED}"),
    "ddp_backend": (lambda v: v is not None, f"a DDP backend starts process groups with {_NO_DISTRIBUTED}"),
    "use_liger_kernel": (bool, "Liger kernels are Triton GPU kernels written for real PyTorch tensors"),
}


def _reject_unsupported_fields(instance):
    for field, (is_set, reason) in UNSUPPORTED_FIELDS.items():
        value = getattr(instance, field, None)
        if is_set(value):
            raise NotImplementedError(f"TrainingArguments({field}={value!r}) is not supported on MindSpore: {reason}.")


def _reject_what_cannot_run(wrapped, instance, args, kwargs):
    _reject_unsupported_fields(instance)  # before upstream's checks, which try to set these up
    result = wrapped(*args, **kwargs)
    name = _optim_value(instance.optim)
    if name in UNSUPPORTED_OPTIMS:
        package, reason = UNSUPPORTED_OPTIMS[name]
        raise NotImplementedError(
            f"TrainingArguments(optim={name!r}) is not supported on MindSpore: it needs {package}, and {reason}; "
            f"mindnlp-shim cannot load that. Use optim={SUPPORTED_HINT}.")
    return result


def apply(module):
    import transformers

    if _major(transformers.__version__) != SUPPORTED_MAJOR or not hasattr(module.TrainingArguments, "__post_init__"):
        return
    wrapt.wrap_function_wrapper(module, "TrainingArguments.__post_init__", _reject_what_cannot_run)
