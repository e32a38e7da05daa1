"""torch.optim.Adafactor against real PyTorch in-process: parameters of one, two and three dimensions updated for
several steps from the same gradients; parameters and every state tensor compared after each step, and the
state_dict's layout."""
import numpy as np
import pytest

import mindnlp_shim.torch as mt
from conftest import SUBPROCESS_FLAG, real_torch, subprocess_fallback

rt = real_torch()
if rt is None:
    globals()[SUBPROCESS_FLAG] = True
    test_whole_module_in_subprocess = subprocess_fallback(__file__)

SHAPES = [(3, 4), (5,), (2, 3, 4), ()]
STEPS = 4
CONFIGS = {
    "default": {},
    "decay_maximize": {"lr": 0.05, "weight_decay": 0.1, "maximize": True},
    "clipping_eps": {"lr": 0.3, "d": 2.0, "eps": (1e-6, 1e-2), "beta2_decay": -0.5},
    "small_lr": {"lr": 1e-3},
}


def _data():
    rng = np.random.default_rng(3)
    params = [rng.standard_normal(s).astype(np.float32) for s in SHAPES]
    grads = [[np.asarray(rng.standard_normal(s) * (0.1 + k), dtype=np.float32) for s in SHAPES] for k in range(STEPS)]
    return params, grads


def _trajectory(T, config):
    params, grads = _data()
    leaves = [T.nn.Parameter(T.tensor(p)) for p in params]
    opt = T.optim.Adafactor(leaves, **config)
    history = []
    for step_grads in grads:
        for leaf, g in zip(leaves, step_grads):
            leaf.grad = T.tensor(g)
        opt.step()
        history.append({"params": [leaf.detach().numpy().copy() for leaf in leaves],
                        "state": [{k: np.asarray(v.numpy()).copy() for k, v in opt.state[leaf].items()}
                                  for leaf in leaves]})
    return history, opt.state_dict()


@pytest.mark.parametrize("name", list(CONFIGS))
def test_adafactor_trajectory_matches_torch(name):
    ours, ours_sd = _trajectory(mt, CONFIGS[name])
    theirs, theirs_sd = _trajectory(rt, CONFIGS[name])
    for step, (a, b) in enumerate(zip(ours, theirs)):
        for i, (pa, pb) in enumerate(zip(a["params"], b["params"])):
            np.testing.assert_allclose(pa, pb, rtol=2e-5, atol=2e-6, err_msg=f"step {step} param {i}")
        for i, (sa, sb) in enumerate(zip(a["state"], b["state"])):
            assert sorted(sa) == sorted(sb)
            for key in sb:
                assert sa[key].shape == sb[key].shape and sa[key].dtype == sb[key].dtype, key
                np.testing.assert_allclose(sa[key], sb[key], rtol=2e-5, atol=1e-7, err_msg=f"{key} {i}")
    assert ours_sd["param_groups"][0].keys() == theirs_sd["param_groups"][0].keys()


@pytest.mark.parametrize("kwargs", [{"lr": -1.0}, {"beta2_decay": 0.5}, {"eps": (-1.0, 1e-3)}, {"d": 0.5},
                                    {"weight_decay": -0.1}])
def test_adafactor_rejects_what_torch_rejects(kwargs):
    for T in (rt, mt):
        with pytest.raises(ValueError):
            T.optim.Adafactor([T.nn.Parameter(T.zeros(2))], **kwargs)


# what this module compares with real torch (read by tests/api_census.py)
API_CENSUS = {
    "torch.optim.Adafactor": "test_adafactor_trajectory_matches_torch",
}
