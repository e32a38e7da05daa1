"""torch.optim.Adafactor (Shazeer & Stern, 2018) with torch's update rule:

    g = -grad if maximize else grad;  t += 1;  beta2_t = 1 - t**beta2_decay;  rho = min(lr, 1/sqrt(t))
    alpha = max(eps2, RMS(p)) * rho;  p *= 1 - lr*weight_decay
    matrices (and higher): row/column second moments along the last two dims, each an EMA of the mean of
      g**2 over the other dim; v = row_var @ col_var / max(mean(row_var over rows), eps1)
    vectors: v = EMA of g**2
    u = g / sqrt(max(v, eps1**2));  p -= alpha / max(1, RMS(u)/d) * u

eps1 defaults to the parameter dtype's machine epsilon. State: `step` (0-dim float32) and `row_var`/`col_var`
(shaped like the gradient with a 1 in the last or the second-to-last dim) or `variance` (vectors, scalars).
The update is not elementwise (norms, a matrix product), so it runs in NumPy on every target, in the
parameter's precision (float32 for half-precision parameters), and is written back in place.
"""
import numpy as np

from . import _storage
from .optimizer import Optimizer, check_implementation_flags

__all__ = ["Adafactor"]


class Adafactor(Optimizer):
    def __init__(self, params, lr=1e-2, beta2_decay=-0.8, eps=(None, 1e-3), d=1.0, weight_decay=0.0, *,
                 foreach=None, maximize=False):
        if isinstance(lr, _storage.Tensor) and lr.numel() != 1:
            raise ValueError("Tensor lr must be 1-element")
        if not 0.0 <= _storage.as_float(lr):
            raise ValueError(f"Learning rate should be >= 0 but is: {lr}")
        if not 0.0 >= beta2_decay:
            raise ValueError(f"beta2_decay should be <= 0 but is: {beta2_decay}")
        if not (eps[0] is None or 0.0 <= eps[0]):
            raise ValueError(f"epsilon1 should be >= 0 but is: {eps[0]}")
        if not 0.0 <= eps[1]:
            raise ValueError(f"epsilon2 should be >= 0 but is: {eps[1]}")
        if not 1.0 <= d:
            raise ValueError(f"Clipping threshold d should be >= 1 but is: {d}")
        if not 0.0 <= weight_decay:
            raise ValueError(f"weight_decay should be >= 0 but is: {weight_decay}")
        check_implementation_flags(type(self).__name__, foreach, None, False)
        super().__init__(params, dict(lr=lr, beta2_decay=beta2_decay, eps=eps, d=d, weight_decay=weight_decay,
                                      foreach=foreach, maximize=maximize))

    def step(self, closure=None):
        """Perform one optimization step; `closure` re-evaluates the model and returns the loss."""
        loss = self._call_closure(closure)
        with _storage.no_grad():
            for group in self.param_groups:
                for param in group["params"]:
                    if param._grad is not None:
                        self._update(param, param._grad, self.state[param], group)
        return loss

    @staticmethod
    def _update(param, grad, state, group):
        _storage.check_real(param, "Adafactor")
        p_host = param.asnumpy()
        dtype = _storage.compute_dtype(p_host)
        p = p_host.astype(dtype)
        g = grad.asnumpy().astype(dtype)
        if group["maximize"]:
            g = -g
        factored = g.ndim > 1
        if len(state) == 0:
            state["step"] = _storage.step_tensor(0.0)
            if factored:
                state["row_var"] = _storage.host_tensor(np.zeros(g.shape[:-1] + (1,), dtype=p_host.dtype))
                state["col_var"] = _storage.host_tensor(np.zeros(g.shape[:-2] + (1,) + g.shape[-1:],
                                                                 dtype=p_host.dtype))
            else:
                state["variance"] = _storage.host_tensor(np.zeros(g.shape, dtype=p_host.dtype))
        t = _storage.advance_step_on_host(state["step"]) if _storage.uses_host_math() else \
            _storage.advance_step_on_device(state["step"])
        lr, (eps1, eps2) = _storage.as_float(group["lr"]), group["eps"]
        if eps1 is None:
            eps1 = float(np.finfo(p_host.dtype if p_host.dtype.kind == "f" else dtype).eps)
        one_minus_beta2 = t ** group["beta2_decay"]
        rho = min(lr, 1.0 / t ** 0.5)
        alpha = max(eps2, float(np.linalg.norm(p.ravel())) / p.size ** 0.5) * rho
        if group["weight_decay"] != 0:
            p = p * dtype(1 - lr * group["weight_decay"])
        if factored:
            row_var = state["row_var"].asnumpy().astype(dtype)
            col_var = state["col_var"].asnumpy().astype(dtype)
            square = g * g
            row_var = row_var + (square.mean(axis=-1, keepdims=True) - row_var) * dtype(one_minus_beta2)
            col_var = col_var + (square.mean(axis=-2, keepdims=True) - col_var) * dtype(one_minus_beta2)
            estimate = np.matmul(row_var, col_var) / np.maximum(row_var.mean(axis=-2, keepdims=True), dtype(eps1))
            _store(state["row_var"], row_var)
            _store(state["col_var"], col_var)
        else:
            variance = state["variance"].asnumpy().astype(dtype)
            variance = variance + (g * g - variance) * dtype(one_minus_beta2)
            estimate = variance
            _store(state["variance"], variance)
        update = g / np.sqrt(np.maximum(estimate, dtype(eps1 * eps1)))
        denom = max(1.0, float(np.linalg.norm(update.ravel())) / (update.size ** 0.5 * group["d"]))
        _store(param, p - dtype(alpha / denom) * update)


def _store(tensor, value):
    """Write `value` into `tensor` in place, in the tensor's own dtype."""
    _storage.assign(tensor, _storage.host_tensor(np.asarray(value).astype(tensor.asnumpy().dtype)))
