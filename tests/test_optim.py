"""torch.optim optimizers and torch.nn.utils.clip_grad: update rules against real PyTorch, state_dict format and
interchange with real PyTorch both ways, the device-kernel path, half precision, hooks, and argument errors."""
import json
import importlib
import math
import os
import threading

os.environ.setdefault("GLOG_v", "3")

import mindspore  # noqa: E402
import numpy as np  # noqa: E402
import pytest  # noqa: E402

import mindnlp_shim.torch as torch  # noqa: E402
from mindnlp_shim.torch import optim  # noqa: E402
from mindnlp_shim.torch.nn.utils import clip_grad_norm_, clip_grad_value_, get_total_norm  # noqa: E402
from mindnlp_shim.torch.optim import _storage, _work  # noqa: E402

adam_module = importlib.import_module("mindnlp_shim.torch.optim.adam")

from oracle import require_torch, run_torch_json  # noqa: E402

SHAPES = [(4, 3), (5,)]
STEPS = 3

CONFIGS = {
    "adamw": ("AdamW", {"lr": 1e-2}),
    "adamw_fused": ("AdamW", {"lr": 1e-2, "weight_decay": 0.1, "fused": True}),
    "adamw_amsgrad_maximize": ("AdamW", {"lr": 1e-2, "weight_decay": 0.1, "amsgrad": True, "maximize": True}),
    "adam_l2": ("Adam", {"lr": 1e-2, "weight_decay": 0.1}),
    "adam_amsgrad": ("Adam", {"lr": 1e-2, "amsgrad": True, "betas": [0.8, 0.99], "eps": 1e-6}),
    "sgd": ("SGD", {"lr": 0.1}),
    "sgd_momentum": ("SGD", {"lr": 0.1, "momentum": 0.9, "dampening": 0.1, "weight_decay": 0.01}),
    "sgd_nesterov": ("SGD", {"lr": 0.1, "momentum": 0.9, "nesterov": True, "weight_decay": 0.01, "maximize": True}),
    "adagrad": ("Adagrad", {"lr": 0.1, "lr_decay": 0.01, "weight_decay": 0.01, "initial_accumulator_value": 0.1}),
    "rmsprop": ("RMSprop", {"lr": 0.01}),
    "rmsprop_centered_momentum": ("RMSprop", {"lr": 0.01, "alpha": 0.9, "momentum": 0.5, "centered": True,
                                              "weight_decay": 0.01}),
}

CLIP_CASES = {"l2": (0.5, 2.0), "l1": (0.5, 1.0), "inf": (0.5, math.inf), "l3": (0.5, 3.0), "noclip": (1e6, 2.0)}


def _inputs():
    rng = np.random.default_rng(0)
    data = {f"p{i}": rng.standard_normal(s).astype(np.float32) for i, s in enumerate(SHAPES)}
    for step in range(STEPS):
        for i, s in enumerate(SHAPES):
            data[f"g{step}_{i}"] = (rng.standard_normal(s) * 0.5).astype(np.float32)
    return data


def _tensor(array):
    return mindspore.Tensor.from_numpy(np.array(array, copy=True))


def _params(data, dtype=None):
    params = [torch.nn.Parameter(_tensor(data[f"p{i}"])) for i in range(len(SHAPES))]
    if dtype is not None:
        params = [torch.nn.Parameter(p.detach().to(dtype)) for p in params]
    return params


def _set_grads(params, data, step):
    for i, p in enumerate(params):
        p.grad = _tensor(data[f"g{step}_{i}"]).astype(p.dtype)


def _build(name, params):
    cls_name, kwargs = CONFIGS[name]
    kwargs = dict(kwargs)
    if "betas" in kwargs:
        kwargs["betas"] = tuple(kwargs["betas"])
    return getattr(optim, cls_name)(params, **kwargs)


def _run(name, data, steps=STEPS, dtype=None):
    params = _params(data, dtype)
    opt = _build(name, params)
    for step in range(steps):
        _set_grads(params, data, step)
        opt.step()
    return params, opt


ORACLE = r"""
import json, math, numpy as np, torch
folder = FOLDER
configs = json.loads(CONFIGS)
data = dict(np.load(folder + "/inputs.npz"))
out = {}

def params_from(prefix, arrays):
    return [torch.nn.Parameter(torch.from_numpy(arrays[f"{prefix}{i}"].copy())) for i in range(NPARAMS)]

def set_grads(params, step):
    for i, p in enumerate(params):
        p.grad = torch.from_numpy(data[f"g{step}_{i}"].copy())

def build(name, params):
    cls_name, kwargs = configs[name]
    if "betas" in kwargs:
        kwargs["betas"] = tuple(kwargs["betas"])
    return getattr(torch.optim, cls_name)(params, **kwargs)

for name in configs:
    params = params_from("p", data)
    opt = build(name, params)
    for step in range(STEPS):
        set_grads(params, step)
        opt.step()
    for i, p in enumerate(params):
        out[f"{name}/p{i}"] = p.detach().numpy()
    for idx, st in opt.state_dict()["state"].items():
        for key, value in st.items():
            out[f"{name}/state{idx}/{key}"] = value.numpy()

# our AdamW state_dict, written by our torch.save, loaded into real torch's AdamW
saved = torch.load(folder + "/ours.pt", weights_only=True)
params = [torch.nn.Parameter(t.clone()) for t in saved["params"]]
opt = torch.optim.AdamW(params, lr=1e-2)
opt.load_state_dict(saved["optim"])
sd = opt.state_dict()
checks = {"step_dtype": str(sd["state"][0]["step"].dtype), "step_dim": sd["state"][0]["step"].dim(),
          "step": sd["state"][0]["step"].item(), "group": {k: v for k, v in sd["param_groups"][0].items()}}
set_grads(params, STEPS - 1)
opt.step()
for i, p in enumerate(params):
    out[f"ours_in_torch/p{i}"] = p.detach().numpy()

# real torch's state_dict for our loader
params = params_from("p", data)
opt = torch.optim.AdamW(params, lr=1e-2, amsgrad=True)
for step in range(STEPS - 1):
    set_grads(params, step)
    opt.step()
torch.save({"params": [p.detach() for p in params], "optim": opt.state_dict()}, folder + "/theirs.pt")
set_grads(params, STEPS - 1)
opt.step()
for i, p in enumerate(params):
    out[f"theirs/p{i}"] = p.detach().numpy()

# clip_grad_norm_
clip = json.loads(CLIP)
for name, (max_norm, norm_type) in clip.items():
    grads = [torch.from_numpy(data[f"g0_{i}"].copy()) for i in range(NPARAMS)]
    params = [torch.nn.Parameter(torch.zeros_like(g)) for g in grads]
    for p, g in zip(params, grads):
        p.grad = g
    total = torch.nn.utils.clip_grad_norm_(params, max_norm, norm_type=norm_type)
    out[f"clip_{name}/total"] = total.numpy()
    for i, p in enumerate(params):
        out[f"clip_{name}/g{i}"] = p.grad.numpy()
np.savez(folder + "/outputs.npz", **out)
checks["group"]["betas"] = list(checks["group"]["betas"])
print(json.dumps(checks))
"""


@pytest.fixture(scope="module")
def oracle(tmp_path_factory):
    require_torch()
    folder = tmp_path_factory.mktemp("optim_oracle")
    data = _inputs()
    np.savez(folder / "inputs.npz", **data)
    params, opt = _run("adamw", data, steps=STEPS - 1)
    torch.save({"params": [p.detach() for p in params], "optim": opt.state_dict()}, str(folder / "ours.pt"))
    clip = {k: [v[0], v[1] if math.isfinite(v[1]) else "inf"] for k, v in CLIP_CASES.items()}
    code = (ORACLE.replace("FOLDER", repr(str(folder))).replace("CONFIGS", repr(json.dumps(CONFIGS)))
            .replace("NPARAMS", str(len(SHAPES))).replace("STEPS", str(STEPS))
            .replace("CLIP", repr(json.dumps(clip))))
    checks = run_torch_json(code)
    outputs = dict(np.load(folder / "outputs.npz"))
    return {"data": data, "out": outputs, "checks": checks, "folder": folder}


def _assert_close(actual, expected, rtol=1e-6, atol=1e-7):
    np.testing.assert_allclose(np.asarray(actual, dtype=np.float64), np.asarray(expected, dtype=np.float64),
                               rtol=rtol, atol=atol)


def _compare_with_oracle(name, params, opt, out, rtol=1e-6, atol=1e-7):
    for i, p in enumerate(params):
        _assert_close(p.asnumpy(), out[f"{name}/p{i}"], rtol, atol)
    state = opt.state_dict()["state"]
    expected_keys = {k for k in out if k.startswith(f"{name}/state")}
    actual_keys = {f"{name}/state{idx}/{key}" for idx, st in state.items() for key in st}
    assert actual_keys == expected_keys
    for idx, st in state.items():
        for key, value in st.items():
            assert isinstance(value, mindspore.Tensor)
            _assert_close(value.asnumpy(), out[f"{name}/state{idx}/{key}"], rtol, atol)


@pytest.mark.parametrize("name", list(CONFIGS))
def test_three_steps_match_torch(oracle, name):
    params, opt = _run(name, oracle["data"])
    _compare_with_oracle(name, params, opt, oracle["out"])


@pytest.mark.parametrize("name", ["adamw", "adamw_amsgrad_maximize", "adam_l2"])
def test_adam_updates_in_slices_give_the_same_values(oracle, monkeypatch, name):
    # a large parameter is updated slice by slice (small scratch space); slices of 5 elements split every
    # parameter here, and each element's arithmetic is unchanged
    whole, whole_opt = _run(name, oracle["data"])
    monkeypatch.setattr(_work, "SLICE_ELEMENTS", 5)
    assert len(_work.WorkBuffers.slices(12)) == 3
    sliced, sliced_opt = _run(name, oracle["data"])
    for a, b in zip(whole, sliced):
        np.testing.assert_array_equal(a.detach().numpy(), b.detach().numpy())
    _compare_with_oracle(name, sliced, sliced_opt, oracle["out"])


@pytest.mark.parametrize("threads", [1, 3])
def test_sliced_updates_on_several_threads_give_the_same_values(oracle, monkeypatch, threads):
    # the slices of one parameter are shared out over torch.get_num_threads() threads, each with its own
    # scratch array; every element is computed once, so the values are the single-threaded ones
    whole, _ = _run("adamw", oracle["data"])
    monkeypatch.setattr(_work, "SLICE_ELEMENTS", 2)
    seen = set()
    update_slice = adam_module._update_slice

    def noting_thread(*args, **kwargs):
        seen.add(threading.get_ident())
        return update_slice(*args, **kwargs)

    monkeypatch.setattr(adam_module, "_update_slice", noting_thread)
    previous = torch.get_num_threads()
    torch.set_num_threads(threads)
    try:
        sliced, sliced_opt = _run("adamw", oracle["data"])
    finally:
        torch.set_num_threads(previous)
    # (a helper that is done may take the next lane too, so 3 threads show as 2 or 3)
    assert len(seen) == 1 if threads == 1 else len(seen) >= 2
    for a, b in zip(whole, sliced):
        np.testing.assert_array_equal(a.detach().numpy(), b.detach().numpy())
    _compare_with_oracle("adamw", sliced, sliced_opt, oracle["out"])


def test_an_error_in_a_helper_thread_reaches_the_caller(monkeypatch):
    monkeypatch.setattr(_work, "SLICE_ELEMENTS", 1)
    buffers = _work.WorkBuffers()
    done = []

    def update(part, tmp):
        assert tmp.shape == (1,)
        if part.start == 1:
            raise ValueError("slice 1 failed")
        done.append(part.start)

    previous = torch.get_num_threads()
    torch.set_num_threads(2)
    try:
        with pytest.raises(ValueError, match="slice 1 failed"):
            buffers.over_slices(4, np.float32, update)
    finally:
        torch.set_num_threads(previous)
    assert sorted(done) == [0, 2]  # the calling thread's slices ran; the helper stopped at its first


@pytest.mark.parametrize("value, message", [(0, "positive integer"), (-2, "positive integer"),
                                            (1.5, "expects an int, but got float"),
                                            (True, "expects an int, but got bool")])
def test_set_num_threads_refuses_what_torch_refuses(value, message):
    with pytest.raises(RuntimeError, match=message):
        torch.set_num_threads(value)


@pytest.mark.parametrize("name", ["adamw", "adam_l2", "adamw_amsgrad_maximize", "sgd_nesterov", "adagrad",
                                  "rmsprop_centered_momentum"])
def test_device_kernel_path_matches_torch(oracle, name):
    with _storage.device_kernels():
        params, opt = _run(name, oracle["data"])
    _compare_with_oracle(name, params, opt, oracle["out"], rtol=2e-5, atol=1e-6)


def test_state_step_is_zero_dim_float32_and_shares_memory():
    data = _inputs()
    params, opt = _run("adamw", data, steps=2)
    state = opt.state[params[0]]
    assert state["step"].shape == () and state["step"].dtype == mindspore.float32
    assert float(state["step"]) == 2.0
    sd = opt.state_dict()
    assert sd["state"][0]["exp_avg"] is state["exp_avg"]  # torch returns references, not copies
    _set_grads(params, data, 2)
    opt.step()
    assert float(sd["state"][0]["step"]) == 3.0


def test_our_state_dict_loads_in_real_torch(oracle):
    checks = oracle["checks"]
    assert checks["step_dtype"] == "torch.float32" and checks["step_dim"] == 0 and checks["step"] == STEPS - 1
    group = checks["group"]
    assert group["params"] == [0, 1] and group["decoupled_weight_decay"] is True and group["lr"] == 1e-2
    params, _ = _run("adamw", oracle["data"])
    for i, p in enumerate(params):
        _assert_close(p.asnumpy(), oracle["out"][f"ours_in_torch/p{i}"])


def test_real_torch_state_dict_loads_in_ours(oracle):
    saved = torch.load(str(oracle["folder"] / "theirs.pt"))
    params = [torch.nn.Parameter(t.clone()) for t in saved["params"]]
    opt = optim.AdamW(params, lr=1e-2, amsgrad=True)
    opt.load_state_dict(saved["optim"])
    assert float(opt.state[params[0]]["step"]) == STEPS - 1
    assert opt.state[params[0]]["exp_avg"] is not saved["optim"]["state"][0]["exp_avg"]
    _set_grads(params, oracle["data"], STEPS - 1)
    opt.step()
    for i, p in enumerate(params):
        _assert_close(p.asnumpy(), oracle["out"][f"theirs/p{i}"])


@pytest.mark.parametrize("name", list(CONFIGS))
def test_state_dict_round_trip_continues_identically(name):
    data = _inputs()
    params, opt = _run(name, data, steps=2)
    clone_params = [torch.nn.Parameter(_tensor(p.asnumpy())) for p in params]
    clone = _build(name, clone_params)
    clone.load_state_dict(opt.state_dict())
    assert clone.param_groups[0]["params"][0] is clone_params[0]
    for opt_, params_ in ((opt, params), (clone, clone_params)):
        _set_grads(params_, data, 2)
        opt_.step()
    for a, b in zip(params, clone_params):
        np.testing.assert_array_equal(a.asnumpy(), b.asnumpy())


def test_load_state_dict_casts_state_to_param_dtype():
    data = _inputs()
    params, opt = _run("adamw", data, steps=1)
    half_params = [torch.nn.Parameter(p.detach().to(torch.float16)) for p in params]
    half = optim.AdamW(half_params, lr=1e-2)
    half.load_state_dict(opt.state_dict())
    state = half.state[half_params[0]]
    assert state["exp_avg"].dtype == mindspore.float16
    assert state["step"].dtype == mindspore.float32


def test_load_state_dict_rejects_mismatched_groups():
    data = _inputs()
    _, opt = _run("adamw", data, steps=1)
    other = optim.AdamW([torch.nn.Parameter(_tensor(data["p0"]))])
    with pytest.raises(ValueError, match="doesn't match the size"):
        other.load_state_dict(opt.state_dict())


@pytest.mark.parametrize("dtype", [torch.float16, torch.bfloat16])
def test_half_precision_params_update_in_float32(dtype):
    data = _inputs()
    reference, _ = _run("adamw", data)
    params, opt = _run("adamw", data, dtype=dtype)
    assert params[0].dtype == dtype and opt.state[params[0]]["exp_avg"].dtype == dtype
    tol = 1e-2 if dtype == torch.bfloat16 else 2e-3
    for p, ref in zip(params, reference):
        np.testing.assert_allclose(p.float().asnumpy(), ref.asnumpy(), rtol=tol, atol=tol)
        assert not np.array_equal(p.float().asnumpy(), _params(data)[0].asnumpy()[: p.shape[0]])


def test_params_without_grad_are_skipped_and_zero_grad():
    data = _inputs()
    params = _params(data)
    opt = optim.AdamW(params, lr=0.1)
    params[0].grad = _tensor(data["g0_0"])
    before = params[1].asnumpy().copy()
    opt.step()
    np.testing.assert_array_equal(params[1].asnumpy(), before)
    assert params[1] not in opt.state and params[0] in opt.state
    opt.zero_grad(set_to_none=False)
    np.testing.assert_array_equal(params[0].grad.asnumpy(), np.zeros(SHAPES[0], np.float32))
    opt.zero_grad()
    assert params[0].grad is None


def test_training_loop_with_autograd_and_closure():
    torch.manual_seed(0)
    model = torch.nn.Linear(3, 1)
    x = torch.randn(8, 3)
    y = x.sum(dim=1, keepdim=True)
    opt = optim.SGD(model.parameters(), lr=0.1)
    weight = model.weight

    def closure():
        opt.zero_grad()
        loss = ((model(x) - y) ** 2).mean()
        loss.backward()
        return loss

    first = float(closure())
    expected = weight.asnumpy() - 0.1 * weight.grad.asnumpy()
    opt.step()
    np.testing.assert_allclose(weight.asnumpy(), expected, rtol=1e-6)
    assert model.weight is weight
    losses = [float(opt.step(closure)) for _ in range(20)]
    assert losses[-1] < first * 0.5


def test_param_groups_defaults_and_add_param_group():
    data = _inputs()
    a, b = _params(data)
    opt = optim.SGD([{"params": [a]}, {"params": b, "lr": 0.5}], lr=0.1, momentum=0.9)
    assert opt.param_groups[0]["lr"] == 0.1 and opt.param_groups[1]["lr"] == 0.5
    assert opt.param_groups[1]["params"] == [b] and opt.param_groups[1]["momentum"] == 0.9
    assert opt.defaults["momentum"] == 0.9
    with pytest.raises(ValueError, match="more than one parameter group"):
        opt.add_param_group({"params": [a]})
    c = torch.nn.Parameter(_tensor(data["p1"]))
    opt.add_param_group({"params": c, "dampening": 0.5})
    assert opt.param_groups[2]["lr"] == 0.1 and opt.param_groups[2]["dampening"] == 0.5
    assert "Parameter Group 2" in repr(opt)


def test_named_parameters_are_accepted():
    data = _inputs()
    a, b = _params(data)
    opt = optim.AdamW([("a", a), ("b", b)])
    assert opt.param_groups[0]["param_names"] == ["a", "b"]
    assert opt.state_dict()["param_groups"][0]["param_names"] == ["a", "b"]


def test_argument_errors():
    p = torch.nn.Parameter(torch.zeros(2))
    with pytest.raises(ValueError, match="Invalid learning rate"):
        optim.AdamW([p], lr=-1)
    with pytest.raises(ValueError, match="Invalid beta parameter at index 1"):
        optim.Adam([p], betas=(0.9, 1.0))
    with pytest.raises(ValueError, match="Nesterov momentum requires"):
        optim.SGD([p], lr=0.1, nesterov=True)
    with pytest.raises(ValueError, match="empty parameter list"):
        optim.AdamW([])
    with pytest.raises(TypeError, match="iterable of Tensors"):
        optim.AdamW(p)
    with pytest.raises(TypeError, match="ordered collections"):
        optim.AdamW([{"params": {p}}])
    with pytest.raises(RuntimeError, match="cannot be `True` together"):
        optim.AdamW([p], fused=True, foreach=True)
    with pytest.raises(NotImplementedError, match="differentiable=True"):
        optim.AdamW([p], differentiable=True)
    with pytest.raises(ValueError, match="Invalid alpha value"):
        optim.RMSprop([p], alpha=-1)
    with pytest.raises(ValueError, match="Invalid lr_decay value"):
        optim.Adagrad([p], lr_decay=-1)


def test_step_hooks_run_around_step_and_can_be_removed():
    data = _inputs()
    params = _params(data)
    opt = optim.SGD(params, lr=0.1)
    calls = []
    pre = opt.register_step_pre_hook(lambda o, args, kwargs: calls.append(("pre", float(params[0][0, 0]))))
    post = opt.register_step_post_hook(lambda o, args, kwargs: calls.append(("post", float(params[0][0, 0]))))
    global_pre = optim.optimizer.register_optimizer_step_pre_hook(lambda o, a, k: calls.append(("global", None)))
    _set_grads(params, data, 0)
    opt.step()
    assert [c[0] for c in calls] == ["global", "pre", "post"]
    assert calls[1][1] != calls[2][1]  # the post hook saw the updated parameter
    pre.remove(), post.remove(), global_pre.remove()
    opt.step()
    assert len(calls) == 3


def test_step_stays_a_plain_bound_method_that_can_be_wrapped():
    p = torch.nn.Parameter(torch.ones(2))
    opt = optim.AdamW([p])
    original = opt.step
    seen = []

    def wrapped(*args, **kwargs):
        seen.append(True)
        return original(*args, **kwargs)

    opt.step = wrapped
    p.grad = torch.ones(2)
    opt.step()
    assert seen == [True] and opt._opt_called


def test_custom_subclass_gets_hooks_once():
    class Doubling(optim.SGD):
        def step(self, closure=None):
            return super().step(closure)

    p = torch.nn.Parameter(torch.ones(2))
    opt = Doubling([p], lr=0.5)
    count = []
    opt.register_step_pre_hook(lambda *a: count.append(1))
    p.grad = torch.ones(2)
    opt.step()
    assert count == [1]
    np.testing.assert_allclose(p.asnumpy(), [0.5, 0.5])


def test_a_dense_view_is_updated_in_place_and_a_strided_one_through_a_copy():
    # a row of a matrix is dense: its host array is the base's memory; a column is not: the update works on a
    # dense copy that release writes back. Either way the base sees the update, as torch's in-place ops give.
    base = mindspore.Tensor(np.ones((2, 3), np.float32))
    row = base[1]
    array, is_copy = _storage.host_array(row)
    assert not is_copy
    array += 1
    column = base.T[2]
    array, is_copy = _storage.host_array(column)
    assert is_copy and array.flags.c_contiguous
    array += 10
    _storage.release(column, array, is_copy)
    np.testing.assert_array_equal(base.asnumpy(), [[1, 1, 11], [2, 2, 12]])


def test_dense_tensor_is_updated_through_a_zero_copy_view():
    dense = mindspore.Tensor(np.ones((2, 3), np.float32))
    array, is_copy = _storage.host_array(dense)
    assert not is_copy
    array += 1  # no release needed: the array is the tensor's own storage
    np.testing.assert_array_equal(dense.asnumpy(), np.full((2, 3), 2, np.float32))


@pytest.mark.parametrize("name", ["adamw", "sgd_momentum", "rmsprop_centered_momentum", "adagrad"])
def test_a_backward_that_saved_a_parameter_before_the_step_raises(name):
    # torch's optimizers write parameters in place and raise their version counters: a graph that saved the
    # old values refuses to run backward instead of differentiating at the new ones
    kind, options = CONFIGS[name]
    p = torch.nn.Parameter(torch.ones(3))
    opt = getattr(optim, kind)([p], **options)
    (p * p).sum().backward()
    pending = (p * p).sum()
    opt.step()
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        pending.backward()


# ---------------------------------------------------------------------------------- clip_grad
def _grad_params(data):
    params = [torch.nn.Parameter(torch.zeros(*s)) for s in SHAPES]
    for i, p in enumerate(params):
        p.grad = _tensor(data[f"g0_{i}"])
    return params


@pytest.mark.parametrize("name", list(CLIP_CASES))
def test_clip_grad_norm_matches_torch(oracle, name):
    max_norm, norm_type = CLIP_CASES[name]
    params = _grad_params(oracle["data"])
    grad_objects = [p.grad for p in params]
    total = clip_grad_norm_(params, max_norm, norm_type=norm_type)
    assert isinstance(total, mindspore.Tensor) and total.shape == () and total.dtype == mindspore.float32
    _assert_close(total.asnumpy(), oracle["out"][f"clip_{name}/total"])
    for i, p in enumerate(params):
        _assert_close(p.grad.asnumpy(), oracle["out"][f"clip_{name}/g{i}"])
        # scaled in place: a reference taken before clipping sees the new values
        _assert_close(grad_objects[i].asnumpy(), oracle["out"][f"clip_{name}/g{i}"])


def test_clip_grad_norm_device_path_and_edge_cases(oracle):
    with _storage.device_kernels():
        params = _grad_params(oracle["data"])
        total = clip_grad_norm_(params, 0.5)
    _assert_close(total.asnumpy(), oracle["out"]["clip_l2/total"], rtol=1e-5)
    _assert_close(params[0].grad.asnumpy(), oracle["out"]["clip_l2/g0"], rtol=1e-5)
    empty = clip_grad_norm_([torch.nn.Parameter(torch.zeros(2))], 1.0)
    assert float(empty) == 0.0
    p = torch.nn.Parameter(torch.zeros(2))
    p.grad = torch.tensor([float("nan"), 1.0])
    with pytest.raises(RuntimeError, match="non-finite"):
        clip_grad_norm_([p], 1.0, error_if_nonfinite=True)
    single = torch.nn.Parameter(torch.zeros(2))
    single.grad = torch.tensor([3.0, 4.0])
    assert abs(float(clip_grad_norm_(single, 1.0)) - 5.0) < 1e-6  # a lone tensor is accepted
    assert abs(float(get_total_norm([torch.tensor([3.0, 4.0])])) - 5.0) < 1e-6


def test_clip_grad_value():
    p = torch.nn.Parameter(torch.zeros(4))
    p.grad = torch.tensor([-3.0, -0.5, 0.5, 3.0])
    clip_grad_value_([p], 1.0)
    np.testing.assert_array_equal(p.grad.asnumpy(), [-1.0, -0.5, 0.5, 1.0])


# what this module compares with real torch (read by tests/api_census.py)
API_CENSUS = {
    ("torch.optim.Adam", "torch.optim.AdamW", "torch.optim.SGD", "torch.optim.Adagrad", "torch.optim.RMSprop"):
        ["test_three_steps_match_torch", "test_device_kernel_path_matches_torch"],
}
