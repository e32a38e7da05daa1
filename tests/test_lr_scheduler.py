"""torch.optim.lr_scheduler against real PyTorch: the same scenario code runs here with the shim and in the oracle
with real torch; learning-rate (and momentum) sequences, state_dict keys, and scheduler.pt files in both directions."""
import functools
import os
import warnings

os.environ.setdefault("GLOG_v", "3")

import pytest  # noqa: E402

import mindnlp_shim.torch as torch  # noqa: E402
from mindnlp_shim.torch.optim import lr_scheduler  # noqa: E402

from oracle import require_torch, run_torch_json  # noqa: E402

STEPS = 10

# Runs unchanged with `torch` bound to the shim or to real PyTorch.
SCENARIOS = r'''
import functools, math, warnings

METRICS = [1.0, 0.9, 0.95, 0.96, 0.97, 0.98, 0.85, 0.9, 0.91, 0.92, 0.93, 0.94]


def make_optimizer(torch, kind):
    p, q = torch.nn.Parameter(torch.zeros(2)), torch.nn.Parameter(torch.zeros(2))
    groups = [{"params": [p]}, {"params": [q], "lr": 0.5}]
    if kind == "adam":
        return torch.optim.Adam(groups, lr=0.1)
    return torch.optim.SGD(groups, lr=0.1, momentum=0.9)


def _warmup(step, warmup, total):
    if step < warmup:
        return step / max(1, warmup)
    return max(0.0, (total - step) / max(1, total - warmup))


def scenarios(torch):
    L = torch.optim.lr_scheduler
    return {
        "lambda": ("sgd", lambda o: [L.LambdaLR(o, lambda e: 0.95 ** e)]),
        "lambda_list": ("sgd", lambda o: [L.LambdaLR(o, [lambda e: 1.0 / (e + 1), lambda e: 0.9 ** e])]),
        "lambda_partial": ("sgd", lambda o: [L.LambdaLR(o, functools.partial(_warmup, warmup=3, total=10))]),
        "multiplicative": ("sgd", lambda o: [L.MultiplicativeLR(o, lambda e: 0.9)]),
        "step": ("sgd", lambda o: [L.StepLR(o, step_size=3, gamma=0.5)]),
        "multistep": ("sgd", lambda o: [L.MultiStepLR(o, milestones=[2, 5, 5], gamma=0.5)]),
        "constant": ("sgd", lambda o: [L.ConstantLR(o, factor=0.5, total_iters=4)]),
        "linear": ("sgd", lambda o: [L.LinearLR(o, start_factor=0.25, end_factor=1.0, total_iters=6)]),
        "exponential": ("sgd", lambda o: [L.ExponentialLR(o, gamma=0.9)]),
        "cosine": ("sgd", lambda o: [L.CosineAnnealingLR(o, T_max=4, eta_min=0.01)]),
        "warm_restarts": ("sgd", lambda o: [L.CosineAnnealingWarmRestarts(o, T_0=3, T_mult=2, eta_min=0.001)]),
        "polynomial": ("sgd", lambda o: [L.PolynomialLR(o, total_iters=6, power=2.0)]),
        "onecycle_sgd": ("sgd", lambda o: [L.OneCycleLR(o, max_lr=[1.0, 2.0], total_steps=12)]),
        "onecycle_adam": ("adam", lambda o: [L.OneCycleLR(o, max_lr=1.0, total_steps=11, three_phase=True,
                                                          anneal_strategy="linear", pct_start=0.25)]),
        "sequential": ("sgd", lambda o: [L.SequentialLR(o, [L.ConstantLR(o, factor=0.5, total_iters=2),
                                                            L.ExponentialLR(o, gamma=0.9)], milestones=[3])]),
        "chained": ("sgd", lambda o: [L.ChainedScheduler([L.ConstantLR(o, factor=0.5, total_iters=4),
                                                          L.ExponentialLR(o, gamma=0.9)])]),
        "two_on_one_optimizer": ("sgd", lambda o: [L.StepLR(o, step_size=2, gamma=0.5),
                                                   L.CosineAnnealingLR(o, T_max=5)]),
        "plateau": ("sgd", lambda o: [L.ReduceLROnPlateau(o, patience=1, factor=0.5, cooldown=1, min_lr=0.01)]),
        "plateau_max_abs": ("sgd", lambda o: [L.ReduceLROnPlateau(o, mode="max", threshold_mode="abs",
                                                                  threshold=0.05, patience=0, factor=0.5)]),
    }


def momenta(optimizer):
    return [g["betas"][0] if "betas" in g else g["momentum"] for g in optimizer.param_groups]


def run(torch, name, steps):
    kind, make = scenarios(torch)[name]
    optimizer = make_optimizer(torch, kind)
    schedulers = make(optimizer)
    lrs = [[g["lr"] for g in optimizer.param_groups]]
    moms = [momenta(optimizer)]
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # stepping in the right order must not warn
        for i in range(steps):
            optimizer.step()
            for s in schedulers:
                s.step(METRICS[i]) if name.startswith("plateau") else s.step()
            lrs.append([g["lr"] for g in optimizer.param_groups])
            moms.append(momenta(optimizer))
    state = schedulers[0].state_dict()
    return {"lrs": lrs, "momenta": moms, "last": [float(x) for x in schedulers[0].get_last_lr()],
            "keys": sorted(state), "last_epoch": state.get("last_epoch")}
'''

ORACLE = r"""
import json, torch
SCENARIO_CODE
names = NAMES
print(json.dumps({name: run(torch, name, STEPS) for name in names}))
"""

NAMES = ["lambda", "lambda_list", "lambda_partial", "multiplicative", "step", "multistep", "constant", "linear",
         "exponential", "cosine", "warm_restarts", "polynomial", "onecycle_sgd", "onecycle_adam", "sequential",
         "chained", "two_on_one_optimizer", "plateau", "plateau_max_abs"]

_scenario_namespace = {}
exec(SCENARIOS, _scenario_namespace)


@pytest.fixture(scope="module")
def oracle():
    require_torch()
    code = (ORACLE.replace("SCENARIO_CODE", SCENARIOS).replace("NAMES", repr(NAMES))
            .replace("STEPS", str(STEPS)))
    return run_torch_json(code)


def _assert_sequences_close(actual, expected):
    assert len(actual) == len(expected)
    for row_a, row_e in zip(actual, expected):
        assert row_a == pytest.approx(row_e, rel=1e-9, abs=1e-12)


@pytest.mark.parametrize("name", NAMES)
def test_schedule_matches_torch(oracle, name):
    ours = _scenario_namespace["run"](torch, name, STEPS)
    theirs = oracle[name]
    _assert_sequences_close(ours["lrs"], theirs["lrs"])
    _assert_sequences_close(ours["momenta"], theirs["momenta"])
    assert ours["last"] == pytest.approx(theirs["last"], rel=1e-9)
    assert ours["keys"] == theirs["keys"]
    assert ours["last_epoch"] == theirs["last_epoch"]


def _optimizer():
    return _scenario_namespace["make_optimizer"](torch, "sgd")


def test_scheduler_state_dict_excludes_optimizer_and_functions():
    opt = _optimizer()

    class Halving:
        def __init__(self):
            self.factor = 0.5

        def __call__(self, epoch):
            return self.factor ** epoch

    sched = lr_scheduler.LambdaLR(opt, [lambda e: 1.0, Halving()])
    state = sched.state_dict()
    assert "optimizer" not in state
    assert state["lr_lambdas"] == [None, {"factor": 0.5}]
    fresh = lr_scheduler.LambdaLR(_optimizer(), [lambda e: 1.0, Halving()])
    state["lr_lambdas"][1] = {"factor": 0.25}
    fresh.load_state_dict(state)
    assert fresh.lr_lambdas[1].factor == 0.25


RESUME = r"""
import json, functools, torch
SCENARIO_CODE
folder = FOLDER
saved = torch.load(folder + "/ours_sched.pt", weights_only=True)
opt = make_optimizer(torch, "sgd")
opt.load_state_dict(saved["optimizer"])
sched = torch.optim.lr_scheduler.LambdaLR(opt, functools.partial(_warmup, warmup=3, total=10))
sched.load_state_dict(saved["scheduler"])
lrs = []
for _ in range(4):
    opt.step(); sched.step(); lrs.append([g["lr"] for g in opt.param_groups])
opt = make_optimizer(torch, "sgd")
sched = torch.optim.lr_scheduler.StepLR(opt, step_size=2, gamma=0.5)
for _ in range(3):
    opt.step(); sched.step()
torch.save({"optimizer": opt.state_dict(), "scheduler": sched.state_dict()}, folder + "/theirs_sched.pt")
after = []
for _ in range(4):
    opt.step(); sched.step(); after.append([g["lr"] for g in opt.param_groups])
print(json.dumps({"resumed": lrs, "theirs_after": after}))
"""


def test_scheduler_files_move_between_shim_and_real_torch(tmp_path):
    require_torch()
    opt = _optimizer()
    sched = lr_scheduler.LambdaLR(opt, functools.partial(_scenario_namespace["_warmup"], warmup=3, total=10))
    for _ in range(3):
        opt.step()
        sched.step()
    torch.save({"optimizer": opt.state_dict(), "scheduler": sched.state_dict()}, str(tmp_path / "ours_sched.pt"))
    expected_resumed = []
    for _ in range(4):
        opt.step()
        sched.step()
        expected_resumed.append([g["lr"] for g in opt.param_groups])
    code = RESUME.replace("SCENARIO_CODE", SCENARIOS).replace("FOLDER", repr(str(tmp_path)))
    result = run_torch_json(code)
    _assert_sequences_close(expected_resumed, result["resumed"])

    saved = torch.load(str(tmp_path / "theirs_sched.pt"))
    opt = _optimizer()
    opt.load_state_dict(saved["optimizer"])
    sched = lr_scheduler.StepLR(opt, step_size=2, gamma=0.5)  # built fresh, then loaded (as transformers does)
    sched.load_state_dict(saved["scheduler"])
    after = []
    for _ in range(4):
        opt.step()
        sched.step()
        after.append([g["lr"] for g in opt.param_groups])
    _assert_sequences_close(after, result["theirs_after"])


def test_resuming_with_last_epoch_keeps_current_rates():
    opt = _optimizer()
    sched = lr_scheduler.ExponentialLR(opt, gamma=0.5)
    for _ in range(3):
        opt.step()
        sched.step()
    rates = [g["lr"] for g in opt.param_groups]
    rebuilt = lr_scheduler.ExponentialLR(opt, gamma=0.5, last_epoch=sched.last_epoch)
    assert [g["lr"] for g in opt.param_groups] == rates
    opt.step()
    rebuilt.step()
    assert [g["lr"] for g in opt.param_groups] == pytest.approx([r * 0.5 for r in rates])


def test_step_with_epoch_uses_closed_form_and_warns():
    opt = _optimizer()
    sched = lr_scheduler.StepLR(opt, step_size=2, gamma=0.1)
    opt.step()
    with pytest.warns(UserWarning, match="deprecated"):
        sched.step(5)
    assert sched.get_last_lr() == pytest.approx([0.1 * 0.01, 0.5 * 0.01])


def test_warnings_and_errors():
    opt = _optimizer()
    sched = lr_scheduler.StepLR(opt, step_size=2)
    with pytest.warns(UserWarning, match="before `optimizer.step\\(\\)`"):
        sched.step()
    with pytest.warns(UserWarning, match="get_last_lr"):
        sched.get_lr()
    with pytest.raises(TypeError, match="is not an Optimizer"):
        lr_scheduler.StepLR(object(), step_size=2)
    with pytest.raises(KeyError, match="initial_lr"):
        lr_scheduler.StepLR(_optimizer(), step_size=2, last_epoch=3)
    with pytest.raises(ValueError, match="Expected 2 lr_lambdas"):
        lr_scheduler.LambdaLR(_optimizer(), [lambda e: 1.0])
    with pytest.raises(ValueError, match="Factor should be < 1.0"):
        lr_scheduler.ReduceLROnPlateau(_optimizer(), factor=1.0)
    with pytest.raises(ValueError, match="Tried to step"):
        opt = _optimizer()
        one = lr_scheduler.OneCycleLR(opt, max_lr=1.0, total_steps=2)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            for _ in range(3):
                one.step()
    with pytest.raises(NotImplementedError, match="CyclicLR"):
        lr_scheduler.CyclicLR(_optimizer(), 0.1, 1.0)
    assert lr_scheduler._LRScheduler is lr_scheduler.LRScheduler
