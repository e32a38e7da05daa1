"""torch.nn.parallel.DistributedDataParallel: each rank runs the whole module on its share of the batch; after
every backward the gradients are averaged over the ranks, so all ranks take the same optimizer step.

How the averaging happens here: the module's outputs carry a gradient hook; when the backward pass reaches them,
the hook queues a callback that runs once the pass has finished (`autograd.engine.queue_callback`). The callback
packs the gradients into buckets (about `bucket_cap_mb` each, one dtype per bucket, parameters in reverse
order as torch's reducer does), scales each by 1/world_size and sums the buckets with one all-reduce apiece.
"""
import contextlib

import numpy as np
import mindspore
from mindspore import ops

from ... import distributed as dist
from ...autograd import engine
from ...autograd.grad_mode import is_grad_enabled, no_grad
from ..modules.module import Module

_DEFAULT_BUCKET_MB = 25


def _tensors_in(value):
    """The tensors inside a module's output (tensor, tuple/list, dict or ModelOutput)."""
    if hasattr(value, "register_hook") and hasattr(value, "requires_grad"):
        yield value
    elif isinstance(value, dict):
        for item in value.values():
            yield from _tensors_in(item)
    elif isinstance(value, (tuple, list)):
        for item in value:
            yield from _tensors_in(item)


class DistributedDataParallel(Module):
    """Wraps `module` for data-parallel training over the ranks of `process_group` (default: the world).

    At construction the parameters and buffers of rank 0 are broadcast to all ranks. `forward` runs
    `module`; the backward that follows averages `.grad` over the ranks. Inside `no_sync()` gradients only
    accumulate locally (the next synchronized backward averages the sum)."""

    def __init__(self, module, device_ids=None, output_device=None, dim=0, broadcast_buffers=True,
                 init_sync=True, process_group=None, bucket_cap_mb=None, find_unused_parameters=False,
                 check_reduction=False, gradient_as_bucket_view=False, static_graph=False,
                 delay_all_reduce_named_params=None, param_to_hook_all_reduce=None, mixed_precision=None,
                 device_mesh=None, skip_all_reduce_unused_params=False):
        super().__init__()
        if mixed_precision is not None or device_mesh is not None:
            raise NotImplementedError("DistributedDataParallel(mixed_precision=..., device_mesh=...) is not "
                                      "supported on MindSpore")
        self.module = module
        self.process_group = dist._process_group.resolve(process_group)
        self.device_ids = device_ids
        self.output_device = output_device
        self.dim = dim
        self.broadcast_buffers = broadcast_buffers
        self.find_unused_parameters = find_unused_parameters
        self.static_graph = static_graph
        self.gradient_as_bucket_view = gradient_as_bucket_view
        self.require_backward_grad_sync = True
        self.require_forward_param_sync = True
        self.bucket_bytes_cap = int((bucket_cap_mb or _DEFAULT_BUCKET_MB) * 1024 * 1024)
        self._sync_queued = False
        self.reducer = _Reducer(self)
        if init_sync:
            self._broadcast_from_rank0(list(module.parameters()) + list(module.buffers()))

    # ------------------------------------------------------------ state from rank 0
    def _broadcast_from_rank0(self, tensors):
        with no_grad():
            for tensor in tensors:
                dist.broadcast(tensor, src=self.process_group.ranks[0], group=self.process_group)

    def forward(self, *inputs, **kwargs):
        if self.broadcast_buffers and self.require_forward_param_sync and self.process_group.size() > 1:
            self._broadcast_from_rank0(list(self.module.buffers()))
        output = self.module(*inputs, **kwargs)
        if is_grad_enabled() and self.require_backward_grad_sync and self.process_group.size() > 1:
            self._hook_outputs(output)
        return output

    def _hook_outputs(self, output):
        hooked = False
        for tensor in _tensors_in(output):
            if tensor.requires_grad:
                tensor.register_hook(self._on_output_grad)
                hooked = True
        if not hooked and not self.find_unused_parameters:
            # torch's reducer would fail at the next iteration; say it now
            raise RuntimeError("DistributedDataParallel: the module's output has no tensor that requires grad, so "
                               "no gradient can be averaged")

    def _on_output_grad(self, grad):
        self._queue_averaging()
        return None

    def _queue_averaging(self):
        if not self._sync_queued:
            self._sync_queued = True
            engine.queue_callback(self._average_gradients)

    # ------------------------------------------------------------ gradient averaging
    def _average_gradients(self):
        self._sync_queued = False
        params = [p for p in self.module.parameters() if p.requires_grad]
        used = None
        if self.find_unused_parameters:
            used = self._used_anywhere(params)  # (every rank takes part, whether or not it has unused ones)
        elif any(p.grad is None for p in params):
            names = [n for n, p in self.module.named_parameters() if p.requires_grad and p.grad is None]
            raise RuntimeError("DistributedDataParallel: parameters received no gradient in this backward: "
                               f"{names[:8]}{' ...' if len(names) > 8 else ''}. Pass find_unused_parameters=True "
                               "if some parameters are unused in forward.")
        scale = 1.0 / self.process_group.size()
        for bucket in self._buckets(params):
            self._reduce_bucket(bucket, scale, used)

    def _used_anywhere(self, params):
        """Whether each parameter got a gradient on any rank (its grad then exists everywhere after averaging)."""
        flags = _as_tensor(np.array([p.grad is not None for p in params], np.float32))
        dist.all_reduce(flags, group=self.process_group)
        return {id(p): bool(v) for p, v in zip(params, flags.asnumpy())}

    def _buckets(self, params):
        """Parameters in reverse registration order (gradients become ready roughly in that order), cut into
        buckets of one dtype and about `bucket_bytes_cap` bytes."""
        bucket, size, dtype = [], 0, None
        for p in reversed(params):
            nbytes = p.numel() * p.element_size()
            if bucket and (p.dtype != dtype or size + nbytes > self.bucket_bytes_cap):
                yield bucket
                bucket, size = [], 0
            bucket.append(p)
            size += nbytes
            dtype = p.dtype
        if bucket:
            yield bucket

    def _reduce_bucket(self, bucket, scale, used):
        if used is not None:
            bucket = [p for p in bucket if used[id(p)]]
            if not bucket:
                return
        arrays = [np.zeros(tuple(p.shape), _wire_dtype(p)) if p.grad is None else _grad_array(p) for p in bucket]
        flat = np.concatenate([a.reshape(-1) for a in arrays])
        # scale first, then sum: what torch's reducer does, so the sum of N scaled gradients rounds the same way
        flat = flat * flat.dtype.type(scale)
        buffer = _as_tensor(flat)
        dist.all_reduce(buffer, group=self.process_group)
        averaged = buffer.asnumpy()
        offset = 0
        for p, a in zip(bucket, arrays):
            piece = averaged[offset:offset + a.size].reshape(a.shape)
            offset += a.size
            value = _as_tensor(piece, p.dtype)
            if p.grad is None:
                p.grad = value
            else:
                with no_grad():
                    p.grad.copy_(value)

    # ------------------------------------------------------------ torch's controls
    @contextlib.contextmanager
    def no_sync(self):
        """Gradients of backward passes inside accumulate locally; the first one after it averages them."""
        previous = self.require_backward_grad_sync
        self.require_backward_grad_sync = False
        try:
            yield
        finally:
            self.require_backward_grad_sync = previous

    def register_comm_hook(self, state, hook):
        raise NotImplementedError("DistributedDataParallel.register_comm_hook is not supported on MindSpore: "
                                  "gradients are averaged by one all-reduce per bucket")

    def join(self, *args, **kwargs):
        raise NotImplementedError("DistributedDataParallel.join (uneven inputs) is not supported on MindSpore")

    def _set_static_graph(self):
        self.static_graph = True

    def extra_repr(self):
        return f"world_size={self.process_group.size()}, find_unused_parameters={self.find_unused_parameters}"


class _Reducer:
    """`DistributedDataParallel.reducer`, the one call of torch's reducer that libraries make:
    `prepare_for_backward(outputs)` makes the next backward average the gradients even when the forward ran
    under `no_sync()` (accelerate's `trigger_sync_in_backward` calls it with no outputs)."""

    def __init__(self, ddp):
        self._ddp = ddp

    def prepare_for_backward(self, outputs):
        if self._ddp.process_group.size() > 1:
            self._ddp._queue_averaging()  # (queued callbacks run when the next backward finishes)


def _wire_dtype(param):
    """The NumPy dtype a parameter's gradient is averaged in (bfloat16 as float32, which holds it exactly)."""
    return np.float32 if param.dtype == mindspore.bfloat16 else mindspore.dtype_to_nptype(param.dtype)


def _grad_array(param):
    grad = param.grad
    if grad.dtype == mindspore.bfloat16:
        grad = ops.cast(grad, mindspore.float32)
    return grad.asnumpy()


def _as_tensor(array, dtype=None):
    tensor = mindspore.Tensor.from_numpy(np.ascontiguousarray(array))
    return tensor if dtype is None or tensor.dtype == dtype else ops.cast(tensor, dtype)
