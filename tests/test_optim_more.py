"""Adamax, NAdam, RAdam, Adadelta, ASGD, Rprop, SparseAdam and swa_utils against real PyTorch: parameter and
state trajectories over several steps (float32 and float64), on the NumPy path and the device-kernel path."""
import json
import os

os.environ.setdefault("GLOG_v", "3")

import mindspore  # noqa: E402
import numpy as np  # noqa: E402
import pytest  # noqa: E402

import mindnlp_shim.torch as torch  # noqa: E402
from mindnlp_shim.torch import optim  # noqa: E402
from mindnlp_shim.torch.optim import _storage  # noqa: E402

from oracle import require_torch, run_torch_json  # noqa: E402

# what this module compares with real torch (read by tests/api_census.py)
API_CENSUS = {
    (
      'torch.optim.Adamax', 'torch.optim.NAdam', 'torch.optim.RAdam', 'torch.optim.Adadelta', 'torch.optim.ASGD',
      'torch.optim.Rprop',
    ): ['test_trajectory_matches_torch', 'test_device_kernel_path_matches_torch'],
}


SHAPES = [(4, 3), (5,)]
STEPS = 6

CONFIGS = {
    "adamax": ("Adamax", {}),
    "adamax_wd_maximize": ("Adamax", {"lr": 0.01, "betas": [0.8, 0.95], "weight_decay": 0.1, "maximize": True}),
    "nadam": ("NAdam", {"lr": 0.01}),
    "nadam_l2": ("NAdam", {"lr": 0.01, "weight_decay": 0.1, "momentum_decay": 0.01}),
    "nadam_decoupled_maximize": ("NAdam", {"lr": 0.01, "weight_decay": 0.1, "decoupled_weight_decay": True,
                                           "maximize": True, "foreach": True}),
    # beta2 small enough that rho_t passes 5 within the run: both branches are taken
    "radam_rectified": ("RAdam", {"lr": 0.01, "betas": [0.9, 0.8]}),
    "radam_l2": ("RAdam", {"lr": 0.01, "weight_decay": 0.1}),
    "radam_decoupled_maximize": ("RAdam", {"lr": 0.01, "betas": [0.9, 0.7], "weight_decay": 0.1,
                                           "decoupled_weight_decay": True, "maximize": True}),
    "adadelta": ("Adadelta", {}),
    "adadelta_options": ("Adadelta", {"lr": 0.5, "rho": 0.8, "eps": 1e-5, "weight_decay": 0.1, "maximize": True}),
    "asgd": ("ASGD", {"lr": 0.05}),
    # t0 inside the run: the averaging starts (mu < 1)
    "asgd_averaging": ("ASGD", {"lr": 0.05, "lambd": 0.01, "alpha": 0.5, "t0": 2, "weight_decay": 0.1,
                                "maximize": True}),
    "rprop": ("Rprop", {}),
    "rprop_options": ("Rprop", {"lr": 0.05, "etas": [0.3, 1.5], "step_sizes": [0.01, 0.07], "maximize": True}),
}


def _inputs():
    rng = np.random.default_rng(1)
    data = {f"p{i}": rng.standard_normal(s).astype(np.float32) for i, s in enumerate(SHAPES)}
    for step in range(STEPS):
        for i, s in enumerate(SHAPES):
            g = rng.standard_normal(s) * 0.5
            if step == 2:  # some exact zeros (Rprop's sign 0, Adamax's eps floor)
                g[..., 0] = 0.0
            data[f"g{step}_{i}"] = g.astype(np.float32)
    return data


ORACLE = r"""
import json, numpy as np, torch
folder = FOLDER
configs = json.loads(CONFIGS)
data = dict(np.load(folder + "/inputs.npz"))
out = {}
for dtype in ("float32", "float64"):
    for name, (cls_name, kwargs) in configs.items():
        kwargs = {k: tuple(v) if isinstance(v, list) else v for k, v in kwargs.items()}
        params = [torch.nn.Parameter(torch.from_numpy(data[f"p{i}"].astype(dtype))) for i in range(NPARAMS)]
        opt = getattr(torch.optim, cls_name)(params, **kwargs)
        for step in range(STEPS):
            for i, p in enumerate(params):
                p.grad = torch.from_numpy(data[f"g{step}_{i}"].astype(dtype))
            opt.step()
        for i, p in enumerate(params):
            out[f"{dtype}/{name}/p{i}"] = p.detach().numpy()
        for idx, st in opt.state_dict()["state"].items():
            for key, value in st.items():
                out[f"{dtype}/{name}/state{idx}/{key}"] = value.numpy()
np.savez(folder + "/outputs.npz", **out)
print(json.dumps({"ok": True}))
"""


@pytest.fixture(scope="module")
def oracle(tmp_path_factory):
    require_torch()
    folder = tmp_path_factory.mktemp("optim_more_oracle")
    data = _inputs()
    np.savez(folder / "inputs.npz", **data)
    code = (ORACLE.replace("FOLDER", repr(str(folder))).replace("CONFIGS", repr(json.dumps(CONFIGS)))
            .replace("NPARAMS", str(len(SHAPES))).replace("STEPS", str(STEPS)))
    run_torch_json(code)
    return {"data": data, "out": dict(np.load(folder / "outputs.npz"))}


def _run(name, data, dtype):
    cls_name, kwargs = CONFIGS[name]
    kwargs = {k: tuple(v) if isinstance(v, list) else v for k, v in kwargs.items()}
    np_dtype = np.dtype(dtype)
    params = [torch.nn.Parameter(mindspore.Tensor.from_numpy(data[f"p{i}"].astype(np_dtype)))
              for i in range(len(SHAPES))]
    opt = getattr(optim, cls_name)(params, **kwargs)
    for step in range(STEPS):
        for i, p in enumerate(params):
            p.grad = mindspore.Tensor.from_numpy(data[f"g{step}_{i}"].astype(np_dtype))
        opt.step()
    return params, opt


def _compare(prefix, params, opt, out, rtol):
    for i, p in enumerate(params):
        np.testing.assert_allclose(p.asnumpy(), out[f"{prefix}/p{i}"], rtol=rtol, atol=rtol * 0.1)
    state = opt.state_dict()["state"]
    expected = {k for k in out if k.startswith(f"{prefix}/state")}
    assert {f"{prefix}/state{idx}/{key}" for idx, st in state.items() for key in st} == expected
    for idx, st in state.items():
        for key, value in st.items():
            reference = out[f"{prefix}/state{idx}/{key}"]
            assert value.asnumpy().dtype == reference.dtype, key
            np.testing.assert_allclose(value.asnumpy(), reference, rtol=rtol, atol=rtol * 0.1)


@pytest.mark.parametrize("name", list(CONFIGS))
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_trajectory_matches_torch(oracle, name, dtype):
    params, opt = _run(name, oracle["data"], dtype)
    _compare(f"{dtype}/{name}", params, opt, oracle["out"], rtol=1e-6 if dtype == "float32" else 1e-12)


@pytest.mark.parametrize("name", list(CONFIGS))
def test_device_kernel_path_matches_torch(oracle, name):
    with _storage.device_kernels():
        params, opt = _run(name, oracle["data"], "float32")
    _compare(f"float32/{name}", params, opt, oracle["out"], rtol=2e-6)


@pytest.mark.parametrize("cls_name, kwargs, message", [
    ("Adamax", {"betas": (1.0, 0.9)}, "Invalid beta parameter at index 0"),
    ("NAdam", {"momentum_decay": -1.0}, "Invalid momentum_decay value"),
    ("RAdam", {"eps": -1.0}, "Invalid epsilon value"),
    ("Adadelta", {"rho": 1.5}, "Invalid rho value"),
    ("ASGD", {"weight_decay": -0.1}, "Invalid weight_decay value"),
    ("Rprop", {"etas": (1.2, 0.5)}, "Invalid eta values"),
])
def test_invalid_arguments_raise_torchs_errors(cls_name, kwargs, message):
    with pytest.raises(ValueError, match=message):
        getattr(optim, cls_name)([torch.nn.Parameter(torch.zeros(2))], **kwargs)


def test_state_dict_round_trip_continues_the_same_trajectory(oracle):
    data = oracle["data"]
    params, opt = _run("nadam_l2", data, "float32")
    fresh = [torch.nn.Parameter(p.detach().clone()) for p in params]
    other = optim.NAdam(fresh, **CONFIGS["nadam_l2"][1])
    other.load_state_dict(opt.state_dict())
    for a, b in zip(params, fresh):
        a.grad = mindspore.Tensor.from_numpy(np.ones(a.shape, np.float32))
        b.grad = mindspore.Tensor.from_numpy(np.ones(b.shape, np.float32))
    opt.step()
    other.step()
    for a, b in zip(params, fresh):
        np.testing.assert_array_equal(a.asnumpy(), b.asnumpy())
