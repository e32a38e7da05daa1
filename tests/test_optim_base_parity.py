"""torch.optim.Optimizer as a base class and torch.optim.swap_in_optimizer_params_and_state against real PyTorch
in-process: the same code runs with T = the shim and T = real torch, and parameters, state and state_dicts are
compared."""
import numpy as np
import pytest

import mindnlp_shim.torch as mt
from conftest import SUBPROCESS_FLAG, real_torch, subprocess_fallback

rt = real_torch()
if rt is None:
    globals()[SUBPROCESS_FLAG] = True
    test_whole_module_in_subprocess = subprocess_fallback(__file__)

_rng = np.random.default_rng(21)
P0, P1, P2 = (_rng.standard_normal(s).astype(np.float32) for s in [(3, 2), (4,), (2,)])
GRADS = [[_rng.standard_normal(p.shape).astype(np.float32) for p in (P0, P1, P2)] for _ in range(3)]


def _heavy_ball(T):
    """A user optimizer written against the public Optimizer API (defaults, groups, per-parameter state)."""

    class HeavyBall(T.optim.Optimizer):
        def __init__(self, params, lr=0.1, momentum=0.5):
            super().__init__(params, {"lr": lr, "momentum": momentum})

        @T.no_grad()
        def step(self, closure=None):
            loss = None if closure is None else closure()
            for group in self.param_groups:
                for p in group["params"]:
                    if p.grad is None:
                        continue
                    state = self.state[p]
                    if not state:
                        state["velocity"] = T.zeros_like(p)
                        state["count"] = 0
                    state["velocity"].mul_(group["momentum"]).add_(p.grad)
                    state["count"] += 1
                    p.add_(state["velocity"], alpha=-group["lr"])
            return loss

    return HeavyBall


def _run_subclass(T):
    params = [T.nn.Parameter(T.tensor(p)) for p in (P0, P1, P2)]
    opt = _heavy_ball(T)([params[0], params[1]], lr=0.2)
    opt.add_param_group({"params": [params[2]], "momentum": 0.9})
    for grads in GRADS:
        opt.zero_grad()
        for p, g in zip(params, grads):
            p.grad = T.tensor(g)
        opt.step()
    sd = opt.state_dict()
    state = {i: {k: (v.numpy().copy() if isinstance(v, T.Tensor) else v) for k, v in s.items()}
             for i, s in sd["state"].items()}
    return [p.detach().numpy().copy() for p in params], state, sd["param_groups"], opt.defaults


def test_optimizer_subclass_matches_torch():
    ours, theirs = _run_subclass(mt), _run_subclass(rt)
    for a, b in zip(ours[0], theirs[0]):
        np.testing.assert_allclose(a, b, rtol=1e-6, atol=1e-7)
    assert ours[1].keys() == theirs[1].keys()
    for i in theirs[1]:
        assert ours[1][i]["count"] == theirs[1][i]["count"]
        np.testing.assert_allclose(ours[1][i]["velocity"], theirs[1][i]["velocity"], rtol=1e-6, atol=1e-7)
    assert ours[2] == theirs[2] and ours[3] == theirs[3]


def _run_swap_in(T):
    live = [T.nn.Parameter(T.tensor(p)) for p in (P0, P1)]
    opt = T.optim.Adam(live, lr=0.05)
    for p, g in zip(live, GRADS[0]):
        p.grad = T.tensor(g)
    opt.step()
    live_after_one = [p.detach().numpy().copy() for p in live]
    # the swapped-in copies: other values, a state one step further on
    swap_params = {"a": T.nn.Parameter(T.tensor(P0 * 2)), "b": T.nn.Parameter(T.tensor(P1 - 1))}
    sd = opt.state_dict()
    swap_state = {"state": {i: {k: v.clone() * (1.5 if k != "step" else 1.0) for k, v in s.items()}
                            for i, s in sd["state"].items()},
                  "param_groups": [{**sd["param_groups"][0], "lr": 0.01}]}
    with T.optim.swap_in_optimizer_params_and_state(opt, swap_params, swap_state):
        inside_lr = opt.param_groups[0]["lr"]
        for p, g in zip(swap_params.values(), GRADS[1]):
            p.grad = T.tensor(g)
        opt.step()
    # the live optimizer is untouched and carries on
    untouched = all(np.array_equal(p.detach().numpy(), q) for p, q in zip(live, live_after_one))
    live_state_step = float(opt.state[live[0]]["step"])
    return (inside_lr, untouched, live_state_step, [p.detach().numpy().copy() for p in swap_params.values()],
            {i: {k: v.numpy().copy() for k, v in s.items()} for i, s in swap_state["state"].items()})


def test_swap_in_optimizer_params_and_state_matches_torch():
    ours, theirs = _run_swap_in(mt), _run_swap_in(rt)
    assert ours[:3] == theirs[:3] == (0.01, True, 1.0)
    for a, b in zip(ours[3], theirs[3]):
        np.testing.assert_allclose(a, b, rtol=1e-6, atol=1e-7)
    assert ours[4].keys() == theirs[4].keys()
    for i in theirs[4]:
        assert ours[4][i].keys() == theirs[4][i].keys()
        for k in theirs[4][i]:
            np.testing.assert_allclose(ours[4][i][k], theirs[4][i][k], rtol=1e-6, atol=1e-7)


def test_swap_in_refuses_a_different_parameter_count():
    p = mt.nn.Parameter(mt.zeros(2))
    opt = mt.optim.SGD([p], lr=0.1)
    with pytest.raises(ValueError):
        with mt.optim.swap_in_optimizer_params_and_state(opt, {}, opt.state_dict()):
            pass


# what this module compares with real torch (read by tests/api_census.py)
API_CENSUS = {
    "torch.optim.Optimizer": "test_optimizer_subclass_matches_torch",
    "torch.optim.swap_in_optimizer_params_and_state": "test_swap_in_optimizer_params_and_state_matches_torch",
}
