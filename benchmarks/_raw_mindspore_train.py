"""What both raw-MindSpore floors share: thread settings, the tape-engine backward, clipping and AdamW in NumPy.

Gradients come from MindSpore's tape engine (`run_backward`, reading each leaf's `_grad`); the global grad norm,
the clipping and torch's AdamW update run in NumPy, in place, on zero-copy `asnumpy()` views, the fastest way
measured on MindSpore's CPU backend (MindSpore 2.10 CPU reference, section 3).
"""
import math
import os
import sys

import numpy as np

import _common

_configured = False


def configure_mindspore():
    """Thread settings must be applied before the first op runs (and only once); the grad flag turns on recording."""
    global _configured
    if _configured:
        return
    _configured = True
    import mindspore
    from mindspore import _c_expression
    from mindspore.common.api import _pynative_executor

    _c_expression.disable_multi_thread()
    mindspore.device_context.cpu.op_tuning.threads_num(2)
    _pynative_executor.set_grad_flag(True)
    pin_threads_as_the_shim_does()


def pin_threads_as_the_shim_does():
    """The shim's placement of MindSpore's own threads (a runtime setting, not a kernel): without it a floor
    would lose the time the shim saves there. Imports only `mindnlp_shim._cpu_threads`, never the shim."""
    repo_root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    if repo_root not in sys.path:
        sys.path.insert(1, repo_root)
    from mindnlp_shim._cpu_threads import pin_kernel_threads

    pin_kernel_threads()


def leaf_parameters(arrays):
    """Leaf tensors over private float32 copies; AdamW later writes into these arrays through asnumpy() views."""
    import mindspore

    params = {}
    for name, array in arrays.items():
        tensor = mindspore.Tensor.from_numpy(np.array(array, dtype=np.float32, copy=True))
        tensor.requires_grad_(True)
        params[name] = tensor
    return params


class NumpyAdamW:
    """torch.optim.AdamW's update (decoupled weight decay, bias correction), in place on NumPy views."""

    def __init__(self, params):
        self.params = params
        self.exp_avg = [np.zeros(t.shape, np.float32) for t in params]
        self.exp_avg_sq = [np.zeros(t.shape, np.float32) for t in params]
        self.scratch = [np.empty(t.shape, np.float32) for t in params]
        self.step_count = 0

    def step(self, grads, lr):
        beta1, beta2 = _common.BETAS
        self.step_count += 1
        bias_correction1 = 1 - beta1 ** self.step_count
        sqrt_bias_correction2 = math.sqrt(1 - beta2 ** self.step_count)
        step_size = lr / bias_correction1
        for tensor, grad, m, v, tmp in zip(self.params, grads, self.exp_avg, self.exp_avg_sq, self.scratch):
            param = tensor.asnumpy()  # re-fetched every step: a view taken earlier may be stale
            param *= 1 - lr * _common.WEIGHT_DECAY
            m *= beta1
            np.multiply(grad, 1 - beta1, out=tmp)
            m += tmp
            v *= beta2
            np.multiply(grad, grad, out=tmp)
            tmp *= 1 - beta2
            v += tmp
            np.sqrt(v, out=tmp)
            tmp /= sqrt_bias_correction2
            tmp += _common.ADAM_EPS
            np.divide(m, tmp, out=tmp)
            tmp *= step_size
            param -= tmp


def clip_grad_norm(grads, max_norm):
    """torch.nn.utils.clip_grad_norm_ (2-norm over all grads), in place; returns the norm before clipping."""
    total = math.sqrt(sum(float(np.dot(g.ravel(), g.ravel())) for g in grads))
    coefficient = max_norm / (total + 1e-6)
    if coefficient < 1.0:
        for g in grads:
            g *= np.float32(coefficient)
    return total


def make_step(loss_of, params, total_steps):
    """One optimizer step as a callable: loss_of(training) builds the loss tensor; step(update, training) runs
    forward, backward, clipping, AdamW, the linear schedule and zero_grad, and returns the loss."""
    from mindspore import _c_expression, ops

    optimizer = NumpyAdamW(params)
    schedule_steps = [0]

    def step(update=True, training=True):
        loss = loss_of(training)
        value = float(loss.asnumpy())
        if not update:
            return value
        # (the initial gradient given: MindSpore 2.7 makes none for a scalar loss)
        _c_expression.run_backward((loss,), (ops.ones((), loss.dtype),), False, False, ())
        grads = [t._grad.asnumpy() for t in params]
        clip_grad_norm(grads, _common.MAX_GRAD_NORM)
        lr = _common.LR * _common.linear_schedule_factor(schedule_steps[0], total_steps)
        optimizer.step(grads, lr)
        schedule_steps[0] += 1
        for t in params:
            t._grad = None  # zero_grad(set_to_none=True)
        return value

    return step


def run_body(args, build):
    """The child's body for either floor: build(args) -> (loss_of, params); then --check losses or timed steps."""
    configure_mindspore()
    loss_of, params = build(args)
    if args.check:
        step = make_step(loss_of, params, _common.CHECK_STEPS)
        return {"check_losses": _common.check_losses(lambda update=True: step(update, training=False))}
    step = make_step(loss_of, params, args.warmup + args.steps)
    return _common.timing_result(*_common.time_steps(step, args.warmup, args.steps))
