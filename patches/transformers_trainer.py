"""transformers.Trainer: resume a checkpoint that real PyTorch wrote.

`Trainer._load_rng_state` restores the CPU generator with `torch.random.set_rng_state(state["cpu"])`, with no
guard. A checkpoint written by PyTorch holds PyTorch's Mersenne-Twister state, which the shim's generator
(NumPy PCG64, `mindnlp_shim/torch/random.py`) cannot take, so resuming such a checkpoint would stop there even
though the model, optimizer and scheduler files load fine. Transformers already treats a device RNG state it
cannot restore as a logged error ("This won't yield the same results as if the training had not been
interrupted.") and carries on; this patch gives a foreign CPU state the same treatment. Python's and NumPy's
states are restored before that point as usual; states written by the shim itself are restored exactly.

Written against transformers 5.23 (`Trainer._load_rng_state(self, checkpoint)`); applied for 5.x only.
"""
import wrapt

SUPPORTED_MAJOR = 5


def _major(version):
    try:
        return int(str(version).split(".")[0])
    except ValueError:
        return None


def _skip_foreign_cpu_rng_state(wrapped, instance, args, kwargs):
    from mindnlp_shim.torch.random import ForeignRNGStateError

    try:
        return wrapped(*args, **kwargs)
    except ForeignRNGStateError as error:
        import transformers.trainer

        transformers.trainer.logger.error(
            "Didn't manage to set back the RNG state of the CPU (nor of any accelerator) from the checkpoint, "
            f"which was written by another PyTorch implementation:\n {error}\nThis won't yield the same results "
            "as if the training had not been interrupted.")
        return None


def apply(module):
    import transformers

    if _major(transformers.__version__) != SUPPORTED_MAJOR or not hasattr(module.Trainer, "_load_rng_state"):
        return
    wrapt.wrap_function_wrapper(module, "Trainer._load_rng_state", _skip_foreign_cpu_rng_state)
