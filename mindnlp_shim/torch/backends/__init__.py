"""torch.backends: capability flags answered for MindSpore's device targets."""
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
mps = _Flags(is_available=_stand_ins.answer(False, "MindSpore has no Apple MPS target."),
             is_built=_stand_ins.answer(False, "MindSpore has no Apple MPS target."))
mkldnn = _Flags(is_available=_stand_ins.answer(False, "Kernels are MindSpore's, not oneDNN's."), enabled=False)
openmp = _Flags(is_available=_stand_ins.answer(False, "MindSpore manages its own CPU threads."))
mha = _Flags(get_fastpath_enabled=lambda: False, set_fastpath_enabled=lambda value: None)
opt_einsum = _Flags(is_available=lambda: False, enabled=False)
cpu = _Flags(get_cpu_capability=lambda: "DEFAULT")
