"""torch.optim.swa_utils (AveragedModel with SWA/EMA averaging, SWALR, update_bn) and SparseAdam against real
PyTorch: averaged weights and buffers after several updates, the learning-rate sequence, recomputed BatchNorm
statistics."""
import io

import numpy as np
import pytest

import mindnlp_shim.torch as mt
from conftest import SUBPROCESS_FLAG, real_torch, subprocess_fallback

rt = real_torch()
if rt is None:
    globals()[SUBPROCESS_FLAG] = True
    test_whole_module_in_subprocess = subprocess_fallback(__file__)

# what this module compares with real torch (read by tests/api_census.py)
API_CENSUS = {
    (
      'torch.optim.SparseAdam',
    ): ['test_sparse_adam_refuses_dense_gradients_like_torch'],
    (
      'torch.optim.LBFGS',
    ): ['test_lbfgs_trajectory_matches_torch'],
}


_rng = np.random.default_rng(9)
STATES = [{"w": _rng.standard_normal((3, 4)), "b": _rng.standard_normal(3), "rm": _rng.standard_normal(3)}
          for _ in range(4)]


def _model(T):
    model = T.nn.Sequential(T.nn.Linear(4, 3), T.nn.BatchNorm1d(3))
    return model


def _load(T, model, state):
    with T.no_grad():
        model[0].weight.copy_(T.tensor(state["w"].astype(np.float32)))
        model[0].bias.copy_(T.tensor(state["b"].astype(np.float32)))
        model[1].running_mean.copy_(T.tensor(state["rm"].astype(np.float32)))


AVERAGING = {
    "swa": lambda T: {},
    "ema_multi": lambda T: {"multi_avg_fn": T.optim.swa_utils.get_ema_multi_avg_fn(0.9)},
    "ema_fn": lambda T: {"avg_fn": T.optim.swa_utils.get_ema_avg_fn(0.8)},
    "swa_fn": lambda T: {"avg_fn": T.optim.swa_utils.get_swa_avg_fn()},
    "swa_buffers": lambda T: {"use_buffers": True},
}


@pytest.mark.parametrize("name", list(AVERAGING))
def test_averaged_model_matches_torch(name):
    def run(T):
        model = _model(T)
        averaged = T.optim.swa_utils.AveragedModel(model, **AVERAGING[name](T))
        for state in STATES:
            _load(T, model, state)
            averaged.update_parameters(model)
        out = {k: v.detach().numpy() for k, v in averaged.state_dict().items()}
        averaged.eval()  # (the averaged running statistics, not the batch's)
        out["forward"] = averaged(T.tensor(STATES[0]["w"][:2].astype(np.float32))).detach().numpy()
        return out

    ours, theirs = run(mt), run(rt)
    assert list(ours) == list(theirs)
    for key in theirs:
        np.testing.assert_allclose(ours[key], theirs[key], rtol=1e-6, atol=1e-7, err_msg=key)


@pytest.mark.parametrize("strategy, anneal_epochs", [("cos", 3), ("linear", 4), ("cos", 0)])
def test_swalr_rates_match_torch(strategy, anneal_epochs):
    def run(T):
        params = [T.nn.Parameter(T.zeros(2)), T.nn.Parameter(T.zeros(2))]
        opt = T.optim.SGD([{"params": params[:1]}, {"params": params[1:], "lr": 0.3}], lr=0.1)
        scheduler = T.optim.swa_utils.SWALR(opt, swa_lr=[0.05, 0.01], anneal_epochs=anneal_epochs,
                                            anneal_strategy=strategy)
        rates = []
        for _ in range(7):
            opt.step()
            scheduler.step()
            rates.append([g["lr"] for g in opt.param_groups])
        return rates, scheduler.get_last_lr()

    ours, theirs = run(mt), run(rt)
    np.testing.assert_allclose(ours[0], theirs[0], rtol=1e-12)
    np.testing.assert_allclose(ours[1], theirs[1], rtol=1e-12)


def test_swalr_argument_errors():
    opt = mt.optim.SGD([mt.nn.Parameter(mt.zeros(2))], lr=0.1)
    with pytest.raises(ValueError, match="anneal_strategy"):
        mt.optim.swa_utils.SWALR(opt, 0.05, anneal_strategy="step")
    with pytest.raises(ValueError, match="anneal_epochs"):
        mt.optim.swa_utils.SWALR(opt, 0.05, anneal_epochs=-1)


def test_update_bn_matches_torch():
    batches = [_rng.standard_normal((5, 4)).astype(np.float32) * (i + 1) for i in range(3)]

    def run(T):
        model = _model(T)
        _load(T, model, STATES[0])
        model.eval()
        loader = [(T.tensor(b), T.zeros(5)) for b in batches]
        T.optim.swa_utils.update_bn(loader, model)
        bn = model[1]
        return (bn.running_mean.numpy(), bn.running_var.numpy(), int(bn.num_batches_tracked), bn.momentum,
                model.training)

    ours, theirs = run(mt), run(rt)
    np.testing.assert_allclose(ours[0], theirs[0], rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(ours[1], theirs[1], rtol=1e-5, atol=1e-6)
    assert ours[2:] == theirs[2:]


def test_sparse_adam_refuses_dense_gradients_like_torch():
    for T in (mt, rt):
        p = T.nn.Parameter(T.zeros(3))
        opt = T.optim.SparseAdam([p], lr=0.1)
        p.grad = T.ones(3)
        with pytest.raises(RuntimeError, match="dense gradients"):
            opt.step()
        with pytest.raises(ValueError):
            T.optim.SparseAdam([T.nn.Parameter(T.zeros(3))], eps=0.0)


# ---------------------------------------------------------------- LBFGS
LBFGS_CONFIGS = {
    "default": dict(),
    "small_history_lr": dict(lr=0.5, history_size=3, max_iter=7),
    "tolerances": dict(lr=0.8, max_iter=30, tolerance_grad=1e-4, tolerance_change=1e-6),
}


def _quadratic_problem(T, dtype):
    # a least-squares fit: smooth, with curvature in every direction
    rng = np.random.default_rng(2)
    a = T.tensor(rng.standard_normal((8, 5)).astype(dtype))
    b = T.tensor(rng.standard_normal(8).astype(dtype))
    w = T.nn.Parameter(T.tensor(np.zeros(5, dtype)))
    c = T.nn.Parameter(T.tensor(np.ones(1, dtype)))

    def loss_fn():
        return (((a @ w + c - b) ** 2).sum() + 0.1 * (w ** 4).sum())

    return [w, c], loss_fn


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("name", list(LBFGS_CONFIGS))
def test_lbfgs_trajectory_matches_torch(name, dtype):
    def run(T):
        params, loss_fn = _quadratic_problem(T, dtype)
        opt = T.optim.LBFGS(params, **LBFGS_CONFIGS[name])

        def closure():
            opt.zero_grad()
            loss = loss_fn()
            loss.backward()
            return loss

        losses = [float(opt.step(closure)) for _ in range(3)]
        state = opt.state[params[0]]
        # the state holds tensors, as torch's does (state_dict() saves what torch saves)
        assert all(isinstance(state[k], T.Tensor) for k in ("d", "H_diag", "prev_flat_grad"))
        assert all(isinstance(v, T.Tensor) for k in ("old_dirs", "old_stps", "ro") for v in state[k])
        return losses, [p.detach().numpy() for p in params], state["n_iter"], state["func_evals"]

    ours, theirs = run(mt), run(rt)
    rtol = 1e-5 if dtype == np.float32 else 1e-9
    np.testing.assert_allclose(ours[0], theirs[0], rtol=rtol)
    for a, b in zip(ours[1], theirs[1]):
        np.testing.assert_allclose(a, b, rtol=rtol, atol=rtol)
    if dtype == np.float32 and name == "default":
        # tolerance_change=1e-9 is below float32's resolution of the loss (~2.7: one ulp is 2.4e-7), so the last
        # iteration stops when two losses are bitwise equal, which rests on the kernels' summation order; both
        # stop at the same point within one iteration of each other
        assert all(abs(a - b) <= 1 for a, b in zip(ours[2:], theirs[2:])), (ours[2:], theirs[2:])
    else:
        assert ours[2:] == theirs[2:]


def test_lbfgs_state_dict_resumes_the_same_run():
    def problem_and_optimizer():
        params, loss_fn = _quadratic_problem(mt, np.float64)
        opt = mt.optim.LBFGS(params, history_size=4, max_iter=3)

        def closure():
            opt.zero_grad()
            loss = loss_fn()
            loss.backward()
            return loss

        return params, opt, closure

    params, opt, closure = problem_and_optimizer()
    opt.step(closure)
    saved = io.BytesIO()
    mt.save({"opt": opt.state_dict(), "params": [p.detach().clone() for p in params]}, saved)
    opt.step(closure)
    uninterrupted = [p.detach().numpy().copy() for p in params]

    saved.seek(0)
    checkpoint = mt.load(saved)  # weights_only: the state holds only tensors and numbers
    params2, opt2, closure2 = problem_and_optimizer()
    with mt.no_grad():
        for p, v in zip(params2, checkpoint["params"]):
            p.copy_(v)
    opt2.load_state_dict(checkpoint["opt"])
    opt2.step(closure2)
    for a, b in zip(uninterrupted, params2):
        np.testing.assert_array_equal(a, b.detach().numpy())


def test_lbfgs_refuses_what_torch_refuses_and_the_line_search():
    p = mt.nn.Parameter(mt.zeros(2))
    with pytest.raises(ValueError):
        mt.optim.LBFGS([{"params": [p]}, {"params": [mt.nn.Parameter(mt.zeros(1))]}])
    with pytest.raises(RuntimeError):
        mt.optim.LBFGS([p], line_search_fn="armijo")
    with pytest.raises(NotImplementedError, match="strong_wolfe"):
        mt.optim.LBFGS([p], line_search_fn="strong_wolfe").step(lambda: p.sum())
