from .... import _stand_ins

_REASON = "DistributedDataParallel communication hooks are not supported on MindSpore"
powerSGD_hook = _stand_ins.unsupported("distributed.algorithms.ddp_comm_hooks.powerSGD_hook.powerSGD_hook", _REASON)
batched_powerSGD_hook = _stand_ins.unsupported(
    "distributed.algorithms.ddp_comm_hooks.powerSGD_hook.batched_powerSGD_hook", _REASON)
PowerSGDState = _stand_ins.placeholder_type("torch.distributed.algorithms.ddp_comm_hooks.powerSGD_hook.PowerSGDState")
