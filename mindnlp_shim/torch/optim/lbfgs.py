"""torch.optim.LBFGS: limited-memory BFGS over all parameters as one flat vector, driven by a closure.

Each step runs up to `max_iter` iterations: the two-loop recursion over the last `history_size` curvature pairs
(s, y) gives the direction, the first iteration's step is min(1, 1/|g|_1) * lr and later ones lr, and the loop
stops on torch's conditions (gradient or change below tolerance, max_iter, max_eval). The vectors live on the
host as NumPy arrays in the parameters' dtype; between steps the state (`d`, `t`, `old_dirs`, `old_stps`, `ro`,
`H_diag`, `prev_flat_grad`, `prev_loss`, `n_iter`, `func_evals`) holds them as tensors under torch's names, so
`state_dict()` saves what torch's does. The strong-Wolfe line search is not
implemented: line_search_fn='strong_wolfe' raises."""
import numpy as np
import mindspore

from . import _storage
from .optimizer import Optimizer

__all__ = ["LBFGS"]


def _dot(a, b):
    return a.dtype.type(np.dot(a, b))


class LBFGS(Optimizer):
    def __init__(self, params, lr=1, max_iter=20, max_eval=None, tolerance_grad=1e-7, tolerance_change=1e-9,
                 history_size=100, line_search_fn=None):
        if not 0.0 <= _storage.as_float(lr):
            raise ValueError(f"Invalid learning rate: {lr}")
        if max_eval is None:
            max_eval = max_iter * 5 // 4
        defaults = dict(lr=lr, max_iter=max_iter, max_eval=max_eval, tolerance_grad=tolerance_grad,
                        tolerance_change=tolerance_change, history_size=history_size, line_search_fn=line_search_fn)
        super().__init__(params, defaults)
        if len(self.param_groups) != 1:
            raise ValueError("LBFGS doesn't support per-parameter options (parameter groups)")
        if line_search_fn is not None and line_search_fn != "strong_wolfe":
            raise RuntimeError("only 'strong_wolfe' is supported")
        self._params = self.param_groups[0]["params"]
        self._numel_cache = None

    def _gather_flat_grad(self):
        parts = []
        for p in self._params:
            if p.grad is None:
                parts.append(np.zeros(p.numel(), dtype=_np_dtype(p)))
            else:
                parts.append(p.grad.asnumpy().reshape(-1).astype(_np_dtype(p), copy=False))
        return np.concatenate(parts)

    def _add_grad(self, step_size, update):
        offset = 0
        for p in self._params:
            count = p.numel()
            piece = update[offset:offset + count].reshape(tuple(p.shape))
            values = p.asnumpy() + p.asnumpy().dtype.type(step_size) * piece
            _storage.assign(p, mindspore.Tensor.from_numpy(np.ascontiguousarray(values)))
            offset += count

    def _evaluate(self, closure):
        with _storage.enable_grad():
            return float(closure())

    def step(self, closure):
        """Perform one optimization step; `closure` re-evaluates the model and returns the loss."""
        if closure is None:
            raise RuntimeError("LBFGS requires a closure")
        group = self.param_groups[0]
        lr = _storage.as_float(group["lr"])
        max_iter, max_eval = group["max_iter"], group["max_eval"]
        tolerance_grad, tolerance_change = group["tolerance_grad"], group["tolerance_change"]
        history_size, line_search_fn = group["history_size"], group["line_search_fn"]
        if line_search_fn is not None:
            raise NotImplementedError("torch.optim.LBFGS(line_search_fn='strong_wolfe') is not supported by "
                                      "mindnlp-shim: the strong-Wolfe line search is not implemented")
        state = self.state[self._params[0]]
        state.setdefault("func_evals", 0)
        state.setdefault("n_iter", 0)

        with _storage.enable_grad():
            orig_loss = closure()
        loss = float(orig_loss)
        current_evals = 1
        state["func_evals"] += 1
        flat_grad = self._gather_flat_grad()
        if np.abs(flat_grad).max() <= tolerance_grad:
            return orig_loss

        d, t = _host(state.get("d")), _host(state.get("t"))
        old_dirs, old_stps, ro = (_host_list(state.get(name)) for name in ("old_dirs", "old_stps", "ro"))
        h_diag, prev_flat_grad = _host(state.get("H_diag")), _host(state.get("prev_flat_grad"))
        prev_loss = state.get("prev_loss")
        with _storage.no_grad():
            n_iter = 0
            while n_iter < max_iter:
                n_iter += 1
                state["n_iter"] += 1
                if state["n_iter"] == 1:
                    d = -flat_grad
                    old_dirs, old_stps, ro = [], [], []
                    h_diag = flat_grad.dtype.type(1)
                else:
                    y = flat_grad - prev_flat_grad
                    s = d * flat_grad.dtype.type(t)
                    ys = _dot(y, s)
                    if ys > 1e-10:  # keep the pair only under positive curvature
                        if len(old_dirs) == history_size:
                            old_dirs.pop(0)
                            old_stps.pop(0)
                            ro.pop(0)
                        old_dirs.append(y)
                        old_stps.append(s)
                        ro.append(ys.dtype.type(1.0) / ys)
                        h_diag = ys / _dot(y, y)
                    # two-loop recursion: d = -H g
                    alphas = [None] * len(old_dirs)
                    q = -flat_grad
                    for i in range(len(old_dirs) - 1, -1, -1):
                        alphas[i] = _dot(old_stps[i], q) * ro[i]
                        q = q - alphas[i] * old_dirs[i]
                    d = r = q * h_diag
                    for i in range(len(old_dirs)):
                        beta = _dot(old_dirs[i], r) * ro[i]
                        r = r + (alphas[i] - beta) * old_stps[i]
                    d = r
                prev_flat_grad = flat_grad.copy()
                prev_loss = loss
                if state["n_iter"] == 1:
                    t = min(1.0, 1.0 / float(np.abs(flat_grad).sum())) * lr
                else:
                    t = lr
                gtd = _dot(flat_grad, d)
                if gtd > -tolerance_change:  # not a descent direction
                    break
                ls_func_evals = 0
                self._add_grad(t, d)
                if n_iter != max_iter:
                    loss = self._evaluate(closure)
                    flat_grad = self._gather_flat_grad()
                    ls_func_evals = 1
                opt_cond = np.abs(flat_grad).max() <= tolerance_grad
                current_evals += ls_func_evals
                state["func_evals"] += ls_func_evals
                if n_iter == max_iter or current_evals >= max_eval or opt_cond:
                    break
                if np.abs(d * flat_grad.dtype.type(t)).max() <= tolerance_change:
                    break
                if abs(loss - prev_loss) < tolerance_change:
                    break
        state.update(d=_tensor(d), t=t, old_dirs=_tensor_list(old_dirs), old_stps=_tensor_list(old_stps),
                     ro=_tensor_list(ro), H_diag=_tensor(h_diag), prev_flat_grad=_tensor(prev_flat_grad),
                     prev_loss=prev_loss)
        return orig_loss


def _tensor(value):
    """A host value of the iteration as the tensor torch keeps in the state (NumPy scalars as 0-d tensors)."""
    if isinstance(value, (np.ndarray, np.generic)):
        return _storage.host_tensor(np.array(value))
    return value


def _host(value):
    """A state tensor back as the NumPy array (or scalar, for 0-d) the iteration computes with."""
    if isinstance(value, mindspore.Tensor):
        array = value.asnumpy()
        return array[()] if array.ndim == 0 else array
    return value


def _tensor_list(values):
    return None if values is None else [_tensor(v) for v in values]


def _host_list(values):
    return None if values is None else [_host(v) for v in values]


def _np_dtype(param):
    return np.float64 if param.dtype == mindspore.float64 else np.float32
