"""Mixed precision on the shim: torch.autocast and torch.amp.GradScaler behave as real PyTorch's (same script,
both sides, compared field by field), a float16 autocast + GradScaler training loop tracks the float32 loop and
skips exactly the overflowing steps, and the unmodified Trainer runs with fp16=True and bf16=True.

On the CPU target accelerate (upstream, for real torch as well) runs fp16=True without autocast or a
GradScaler, and bf16=True (which needs use_cpu=True there) under autocast("cpu", bfloat16); MindSpore has no
bfloat16 matmul kernels on the CPU, so the shim computes that region in float32.
"""
import json

import pytest

from oracle import require_torch, run_torch
from shim_runner import run_shim, run_shim_json, script

AMP_SEMANTICS = script("amp_semantics.py")
PRECISION_RUN = script("precision_memory_run.py")


@pytest.fixture(scope="module")
def semantics():
    require_torch()
    torch_out = run_torch(f"""
        import runpy, sys
        sys.argv = [{AMP_SEMANTICS!r}, "--side", "torch"]
        runpy.run_path({AMP_SEMANTICS!r}, run_name="__main__")
    """, timeout=300)
    torch_report = json.loads(torch_out.strip().splitlines()[-1])
    shim_report = run_shim_json([AMP_SEMANTICS, "--side", "shim"], timeout=600)
    return torch_report, shim_report


@pytest.fixture(scope="module")
def trainer_runs():
    return run_shim_json([PRECISION_RUN, "trainer", "fp32", "fp16", "bf16"], timeout=900)


@pytest.fixture(scope="module")
def amp_loop():
    return run_shim_json([PRECISION_RUN, "amp_loop"], timeout=900)


# ---------------------------------------------------------------- autocast
def test_autocast_state_and_nesting_match_torch(semantics):
    torch_report, shim_report = semantics
    ours = shim_report["autocast_states"]
    assert ours == torch_report["autocast_states"]
    # and the things that matter, spelled out
    assert ours["outer"] == [True, "torch.bfloat16"] and ours["inner_disabled"] == [False, "torch.bfloat16"]
    assert ours["inner_fp16"] == [True, "torch.float16"] and ours["after"] == [False, "torch.bfloat16"]
    assert ours["no_arg"] is False and ours["outer_no_arg"] is False  # no argument means "cuda"
    assert ours["float32_region"][0] == [False, "torch.float32"] and ours["float32_region"][1]


def test_autocast_op_dtypes_match_torch(semantics):
    torch_report, shim_report = semantics
    ours = shim_report["autocast_ops"]
    assert ours == torch_report["autocast_ops"]
    assert ours["linear"] == ours["matmul"] == ours["bmm"] == "torch.float16"
    assert ours["cross_entropy"] == "torch.float32" and ours["grad_dtypes"] == ["torch.float32"] * 2
    assert ours["linear_close_to_fp16_rounded"]


def test_custom_fwd_and_bwd_match_torch(semantics):
    torch_report, shim_report = semantics
    assert shim_report["custom_function"] == torch_report["custom_function"]
    assert shim_report["custom_function"]["forward_input_dtype"] == "torch.float32"


def test_bf16_region_computes_in_float32_on_cpu():
    """No bfloat16 matmul kernels on MindSpore's CPU: the region is on, the results are float32; with the
    native-kernel table emptied, a float16 region falls back to float32 the same way."""
    out = run_shim(["-c", """
import json
import mindnlp, torch
from mindnlp_shim.torch.amp import autocast_policy
x, w = torch.randn(3, 4), torch.randn(2, 4)
seen = {}
with torch.autocast("cpu"):
    seen["enabled"] = [torch.is_autocast_enabled("cpu"), str(torch.get_autocast_dtype("cpu"))]
    seen["linear"] = str(torch.nn.functional.linear(x, w).dtype)
    seen["bf16_inputs"] = str(torch.nn.functional.linear(x.bfloat16(), w.bfloat16()).dtype)
    seen["value"] = float((torch.nn.functional.linear(x, w) - x @ w.t()).abs().max())
native, autocast_policy._native = autocast_policy._native, ()
with torch.autocast("cpu", dtype=torch.float16):
    seen["fp16_without_kernels"] = str(torch.nn.functional.linear(x.half(), w).dtype)
autocast_policy._native = native
with torch.autocast("cpu", dtype=torch.float16):
    seen["fp16_with_kernels"] = str(torch.nn.functional.linear(x, w).dtype)
print(json.dumps(seen))
"""], timeout=300)
    seen = json.loads(out.strip().splitlines()[-1])
    assert seen["enabled"] == [True, "torch.bfloat16"]
    assert seen["linear"] == seen["bf16_inputs"] == "torch.float32"
    assert seen["value"] == 0.0
    assert seen["fp16_without_kernels"] == "torch.float32"
    assert seen["fp16_with_kernels"] == "torch.float16"


def test_accelerator_policy_runs_float32_ops_in_float32():
    """GPU/Ascend's op lists (exercised here on the CPU's float16 kernels): softmax and exp are in torch's CUDA
    float32 list, linear in the low-precision list, relu in neither."""
    out = run_shim(["-c", """
import json
import mindnlp, torch
from mindnlp_shim.torch.amp import autocast_policy
autocast_policy._float32_here = autocast_policy.FLOAT32["cuda"]
seen = {}
def probe(name):
    return autocast_policy.wrap(name, lambda *a, **k: [str(t.dtype) for t in a if isinstance(t, torch.Tensor)])
x, h = torch.randn(2, 3), torch.randn(2, 3).half()
with torch.autocast("cpu", dtype=torch.float16):
    seen["softmax"] = probe("softmax")(h, -1)
    seen["exp"] = probe("exp")(h)
    seen["linear"] = probe("linear")(x, x.double())
    seen["relu"] = probe("relu")(h)
seen["softmax_outside"] = probe("softmax")(h, -1)
print(json.dumps(seen))
"""], timeout=300)
    seen = json.loads(out.strip().splitlines()[-1])
    assert seen == {"softmax": ["torch.float32"], "exp": ["torch.float32"],
                    "linear": ["torch.float16", "torch.float64"], "relu": ["torch.float16"],
                    "softmax_outside": ["torch.float16"]}


# ---------------------------------------------------------------- GradScaler
def test_grad_scaler_inf_sequence_matches_torch(semantics):
    """Scaled losses, unscaled gradients, which steps ran (parameters), scale and growth tracker after every
    update: identical to real torch over a sequence with inf and nan gradients."""
    torch_report, shim_report = semantics
    ours = shim_report["scaler_sequence"]
    assert ours == torch_report["scaler_sequence"]
    params = [row["param"] for row in ours]
    skipped = [i for i in range(1, len(params)) if params[i] == params[i - 1]]
    assert skipped == [1, 5, 6]  # the inf, nan and -inf iterations
    scales = [row["scale"] for row in ours]
    assert scales[1] == scales[0] / 2 and max(scales) > scales[1]  # backed off, and grew again later


@pytest.mark.parametrize("part", ["scaler_rounding", "scaler_interval_change", "scaler_scale_outputs",
                                  "scaler_errors", "scaler_states"])
def test_grad_scaler_matches_torch(semantics, part):
    torch_report, shim_report = semantics
    assert shim_report[part] == torch_report[part]


def test_grad_scaler_device_kernel_path_matches_host_path():
    """The unscale that GPU/Ascend use (device kernels) gives what the CPU's NumPy path gives."""
    out = run_shim(["-c", """
import json
import mindnlp, torch
from mindnlp_shim.torch.optim import _storage

def run():
    p = torch.nn.Parameter(torch.tensor([1.0, -2.0, 3.0]))
    opt = torch.optim.SGD([p], lr=0.5)
    scaler = torch.amp.GradScaler("cpu", init_scale=8.0, growth_interval=2)
    rows = []
    for g in [[8.0, 16.0, -8.0], [1.0, float("inf"), 0.0], [4.0, 4.0, 4.0], [float("nan"), 1.0, 2.0], [2.0, 2.0, 6.0]]:
        scaler.scale(p.sum())
        p.grad = torch.tensor(g)
        scaler.unscale_(opt)
        grad = [x if x == x and abs(x) != float("inf") else None for x in p.grad.numpy().tolist()]
        scaler.step(opt)
        scaler.update()
        rows.append([grad, p.detach().numpy().tolist(), scaler.get_scale()])
    return rows

host = run()
with _storage.device_kernels():
    device = run()
print(json.dumps({"host": host, "device": device}))
"""], timeout=300)
    seen = json.loads(out.strip().splitlines()[-1])
    assert seen["device"] == seen["host"]
    assert seen["host"][1][1] == seen["host"][0][1]  # the inf step was skipped


# ---------------------------------------------------------------- training
def test_fp16_autocast_loop_with_grad_scaler_tracks_float32(amp_loop):
    """torch.amp's recipe by hand on the CPU: float16 matmuls under autocast, GradScaler around backward/step."""
    fp32, fp16 = amp_loop["fp32"], amp_loop["fp16"]
    assert fp16["logits_dtypes"] == ["torch.float16"] and fp32["logits_dtypes"] == ["torch.float32"]
    assert fp16["param_dtypes"] == ["torch.float32"]  # master weights stay float32
    assert fp16["skipped_steps"] == [] and all(fp16["param_changed"])
    assert fp32["losses"][-1] < 0.8 * fp32["losses"][0]  # it learns
    assert abs(fp16["losses"][-1] - fp32["losses"][-1]) <= 0.05 * fp32["losses"][-1]
    assert fp16["losses"][0] != fp32["losses"][0]  # really computed in float16
    assert abs(fp16["losses"][0] - fp32["losses"][0]) < 1e-3


def test_grad_scaler_skips_overflowing_steps_in_training(amp_loop):
    run = amp_loop["fp16_overflowing"]
    skipped = run["skipped_steps"]
    assert skipped and skipped == list(range(len(skipped)))  # 2**24 overflows float16 grads until backed off
    assert run["param_changed"] == [i not in skipped for i in range(len(run["param_changed"]))]
    scales = run["scales"]
    for i in skipped:
        assert scales[i + 1] == scales[i] / 2
    first_clean = len(skipped)
    assert scales[first_clean + 3] == 2 * scales[first_clean]  # growth_interval=3 clean steps, then growth


def test_trainer_fp16_and_bf16_reach_the_float32_loss(trainer_runs):
    fp32, fp16, bf16 = trainer_runs["fp32"], trainer_runs["fp16"], trainer_runs["bf16"]
    for run in (fp32, fp16, bf16):
        assert run["global_step"] == 16 and len(run["losses"]) == 16
        assert run["param_dtypes"] == ["torch.float32"]
    assert fp32["losses"][-1] < fp32["losses"][0]
    for run in (fp16, bf16):
        assert abs(run["losses"][-1] - fp32["losses"][-1]) <= 0.05 * fp32["losses"][-1]
        assert abs(run["training_loss"] - fp32["training_loss"]) <= 0.05 * fp32["training_loss"]


def test_trainer_mixed_precision_setup_is_upstreams(trainer_runs):
    """What accelerate decides on a CPU device, as it does for real torch: fp16 gets no autocast and no scaler;
    bf16 wraps the forward in autocast("cpu", bfloat16), which the model's layers see."""
    fp16, bf16 = trainer_runs["fp16"], trainer_runs["bf16"]
    assert fp16["mixed_precision"] == "fp16" and fp16["native_amp"] is False and fp16["scaler"] is None
    assert bf16["mixed_precision"] == "bf16" and bf16["native_amp"] is True and bf16["scaler"] is None
    states = [json.loads(s) for s in bf16["forward_states"]]
    assert states == [{"autocast_cpu": True, "autocast_dtype": "torch.bfloat16", "grad_enabled": True,
                       "dtype": "torch.float32"}]
    assert [json.loads(s)["autocast_cpu"] for s in fp16["forward_states"]] == [False]
