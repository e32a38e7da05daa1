from .... import _stand_ins

_REASON = "DistributedDataParallel communication hooks are not supported on MindSpore"
fp16_compress_hook = _stand_ins.unsupported("distributed.algorithms.ddp_comm_hooks.default_hooks.fp16_compress_hook",
                                            _REASON)
bf16_compress_hook = _stand_ins.unsupported("distributed.algorithms.ddp_comm_hooks.default_hooks.bf16_compress_hook",
                                            _REASON)
fp16_compress_wrapper = _stand_ins.unsupported(
    "distributed.algorithms.ddp_comm_hooks.default_hooks.fp16_compress_wrapper", _REASON)
bf16_compress_wrapper = _stand_ins.unsupported(
    "distributed.algorithms.ddp_comm_hooks.default_hooks.bf16_compress_wrapper", _REASON)
allreduce_hook = _stand_ins.unsupported("distributed.algorithms.ddp_comm_hooks.default_hooks.allreduce_hook",
                                        _REASON)
