"""torch.nn.DataParallel: one process driving several devices. On one device (or none given) it is the module
itself, as in torch; over several devices it raises: MindSpore runs one device per process, so use
DistributedDataParallel with one process per device (`python -m mindnlp.run --nproc_per_node N`)."""
from ..modules.module import Module


class DataParallel(Module):
    def __init__(self, module, device_ids=None, output_device=None, dim=0):
        super().__init__()
        devices = list(device_ids) if device_ids is not None else []
        if len(devices) > 1:
            raise NotImplementedError(
                f"torch.nn.DataParallel over {len(devices)} devices is not supported on MindSpore: one process "
                "drives one device; use DistributedDataParallel with one process per device "
                "(python -m mindnlp.run --nproc_per_node N)")
        self.module = module
        self.device_ids = devices
        self.output_device = output_device
        self.dim = dim

    def forward(self, *inputs, **kwargs):
        return self.module(*inputs, **kwargs)


def data_parallel(module, inputs, device_ids=None, output_device=None, dim=0, module_kwargs=None):
    """Functional DataParallel: on one device, `module(*inputs, **module_kwargs)`."""
    inputs = inputs if isinstance(inputs, tuple) else (inputs,)
    return DataParallel(module, device_ids, output_device, dim)(*inputs, **(module_kwargs or {}))
