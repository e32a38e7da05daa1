"""torch.backends: capability flags answered for MindSpore's device targets."""
import contextlib
import types

from .._runtime import DEVICE_TARGET
from .. import _stand_ins


class _Flags(types.SimpleNamespace):
    pass


def _sdp_flag(enabled):
    return _stand_ins.answer(enabled, "Attention runs as matmul/softmax on MindSpore; no fused SDPA kernels.")


cuda = _Flags(
    is_built=_stand_ins.answer(DEVICE_TARGET == "GPU", "CUDA support means MindSpore's GPU target."),
    matmul=_Flags(allow_tf32=False, allow_fp16_reduced_precision_reduction=True,
                  allow_bf16_reduced_precision_reduction=True),
    flash_sdp_enabled=_sdp_flag(False), mem_efficient_sdp_enabled=_sdp_flag(False), math_sdp_enabled=_sdp_flag(True),
    cudnn_sdp_enabled=_sdp_flag(False), enable_flash_sdp=lambda enabled: None,
    enable_mem_efficient_sdp=lambda enabled: None, enable_math_sdp=lambda enabled: None,
    preferred_linalg_library=lambda backend=None: None,
)
cudnn = _Flags(enabled=DEVICE_TARGET == "GPU", benchmark=False, deterministic=False, allow_tf32=False,
               is_available=_stand_ins.answer(DEVICE_TARGET == "GPU", "cuDNN only with MindSpore's GPU target."),
               version=_stand_ins.answer(None, "No cuDNN is loaded by the shim."))


@contextlib.contextmanager
def _cudnn_flags(enabled=False, benchmark=False, benchmark_limit=10, deterministic=False, allow_tf32=True,
                 fp32_precision="none"):
    """torch.backends.cudnn.flags: the flags hold these values inside the block (Wav2Vec2ForCTC computes its CTC
    loss with cuDNN disabled); they select no kernel on MindSpore, so this only sets and restores them."""
    names = ("enabled", "benchmark", "deterministic", "allow_tf32")
    saved = {name: getattr(cudnn, name) for name in names}
    vars(cudnn).update(zip(names, (enabled, benchmark, deterministic, allow_tf32)))
    try:
        yield
    finally:
        vars(cudnn).update(saved)


cudnn.flags = _cudnn_flags
mps = _Flags(is_available=_stand_ins.answer(False, "MindSpore has no Apple MPS target."),
             is_built=_stand_ins.answer(False, "MindSpore has no Apple MPS target."))
mkldnn = _Flags(is_available=_stand_ins.answer(False, "Kernels are MindSpore's, not oneDNN's."), enabled=False)
openmp = _Flags(is_available=_stand_ins.answer(False, "MindSpore manages its own CPU threads."))
mha = _Flags(get_fastpath_enabled=lambda: False, set_fastpath_enabled=lambda value: None)
opt_einsum = _Flags(is_available=lambda: False, enabled=False)
cpu = _Flags(get_cpu_capability=lambda: "DEFAULT")
