"""Observable behaviour of torch.autocast and torch.amp.GradScaler, printed as one JSON line.

Runs unchanged on real PyTorch (`--side torch`, the oracle) and on the shim (`--side shim`); tests/test_amp.py
compares the two reports. Everything here runs on the CPU: autocast("cpu"), GradScaler("cpu").
"""
import argparse
import json
import sys
import warnings

parser = argparse.ArgumentParser()
parser.add_argument("--side", choices=["shim", "torch"], required=True)
args = parser.parse_args()
if args.side == "shim":
    import mindnlp  # noqa: F401
import numpy as np  # noqa: E402
import torch  # noqa: E402

assert torch.__name__.startswith("mindnlp_shim") == (args.side == "shim"), torch.__name__


def error_of(fn):
    try:
        fn()
    except BaseException as exc:  # noqa: BLE001  (AssertionError is part of GradScaler's contract)
        return [type(exc).__name__, str(exc)]
    return None


def warnings_of(fn):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        result = fn()
    return result, [str(w.message).splitlines()[0] for w in caught if issubclass(w.category, UserWarning)]


def state(device="cpu"):
    return [torch.is_autocast_enabled(device), str(torch.get_autocast_dtype(device))]


# ---------------------------------------------------------------- autocast: state and nesting
def autocast_states():
    seen = {"default": state(), "default_cuda": state("cuda"), "no_arg": torch.is_autocast_enabled()}
    with torch.autocast("cpu") as region:
        seen["entered_returns_self"] = isinstance(region, torch.autocast)
        seen["outer"] = state()
        seen["outer_no_arg"] = torch.is_autocast_enabled()
        with torch.autocast("cpu", enabled=False):
            seen["inner_disabled"] = state()
        with torch.autocast("cpu", dtype=torch.float16):
            seen["inner_fp16"] = state()
            with torch.autocast("cpu"):
                seen["inner_inner_default_dtype"] = state()
        seen["after_inner"] = state()
    seen["after"] = state()

    @torch.autocast("cpu", dtype=torch.float16)
    def decorated():
        return state()

    seen["decorated"] = decorated()
    seen["after_decorated"] = state()
    try:
        with torch.autocast("cpu", dtype=torch.float16):
            raise KeyError("inside")
    except KeyError:
        seen["after_exception"] = state()

    def unsupported():
        with torch.autocast("cpu", dtype=torch.float32):
            return state()

    seen["float32_region"] = warnings_of(unsupported)

    def cuda_region():
        with torch.autocast("cuda"):
            return state("cuda")

    seen["cuda_region_without_cuda"] = warnings_of(cuda_region)
    seen["fast_dtype"] = str(torch.autocast("cpu", dtype=torch.float16).fast_dtype)
    seen["device_not_str"] = error_of(lambda: torch.autocast(torch.device("cpu")))[0]
    seen["unknown_device"] = error_of(lambda: torch.autocast("foo"))[0]
    seen["enabled_not_bool"] = error_of(lambda: torch.autocast("cpu", enabled="yes").__enter__())[0]
    seen["enabled_not_bool_state"] = state()
    seen["available"] = [torch.amp.is_autocast_available("cpu")]
    return seen


# ---------------------------------------------------------------- autocast: what ops compute in
def autocast_ops():
    torch.manual_seed(0)
    x = torch.tensor(np.random.RandomState(0).randn(4, 6).astype(np.float32), requires_grad=True)
    w = torch.tensor(np.random.RandomState(1).randn(5, 6).astype(np.float32), requires_grad=True)
    target = torch.tensor([0, 1, 2, 3])
    seen = {}
    with torch.autocast("cpu", dtype=torch.float16):
        y = torch.nn.functional.linear(x, w)
        seen["linear"] = str(y.dtype)
        seen["matmul"] = str(torch.matmul(x, w.t()).dtype)
        seen["operator_matmul"] = str((x @ w.t()).dtype)
        seen["bmm"] = str(torch.bmm(x[None], w.t()[None]).dtype)
        seen["float64_linear"] = str(torch.nn.functional.linear(x.double(), w.double()).dtype)
        seen["int_matmul"] = str((target[:2, None] @ target[None, :2]).dtype)
        seen["softmax_of_fp16"] = str(torch.softmax(y, -1).dtype)
        seen["add_fp16_fp32"] = str((y + x[:, :5]).dtype)
        loss = torch.nn.functional.cross_entropy(y, target)
        seen["cross_entropy"] = str(loss.dtype)
        seen["mse_loss"] = str(torch.nn.functional.mse_loss(y, torch.zeros(4, 5)).dtype)
        with torch.autocast("cpu", enabled=False):
            seen["linear_in_disabled"] = str(torch.nn.functional.linear(x, w).dtype)
    seen["linear_after"] = str(torch.nn.functional.linear(x, w).dtype)
    loss.backward()
    seen["grad_dtypes"] = [str(x.grad.dtype), str(w.grad.dtype)]
    ref = x.detach().numpy().astype(np.float16).astype(np.float32) @ \
        w.detach().numpy().astype(np.float16).astype(np.float32).T
    seen["linear_close_to_fp16_rounded"] = bool(np.allclose(y.detach().float().numpy(), ref, rtol=2e-3, atol=2e-3))
    return seen


# ---------------------------------------------------------------- custom_fwd / custom_bwd
def custom_function():
    seen = {}

    class Double(torch.autograd.Function):
        @staticmethod
        @torch.amp.custom_fwd(device_type="cpu", cast_inputs=torch.float32)
        def forward(ctx, a):
            seen["forward_state"] = state()
            seen["forward_input_dtype"] = str(a.dtype)
            return a * 2

        @staticmethod
        @torch.amp.custom_bwd(device_type="cpu")
        def backward(ctx, grad):
            seen["backward_state"] = state()
            return grad * 2

    class Plain(torch.autograd.Function):
        @staticmethod
        @torch.amp.custom_fwd(device_type="cpu")
        def forward(ctx, a):
            seen["plain_forward_state"] = state()
            return a * 3

        @staticmethod
        @torch.amp.custom_bwd(device_type="cpu")
        def backward(ctx, grad):
            seen["plain_backward_state"] = state()
            return grad * 3

    a = torch.ones(3, dtype=torch.float16, requires_grad=True)
    with torch.autocast("cpu", dtype=torch.float16):
        out = Double.apply(a)
        plain = Plain.apply(a)
    seen["output_dtype"] = str(out.dtype)
    (out.float().sum() + plain.float().sum()).backward()
    seen["missing_device_type"] = error_of(lambda: torch.amp.custom_fwd(lambda ctx: 0))[0]
    return seen


# ---------------------------------------------------------------- GradScaler
def sgd(values):
    param = torch.nn.Parameter(torch.tensor(values, dtype=torch.float32))
    return param, torch.optim.SGD([param], lr=0.5)


def scaler_report(scaler):
    return {"scale": scaler.get_scale(), "tracker": scaler._get_growth_tracker(), "state": scaler.state_dict()}


def scaler_sequence():
    """A crafted sequence of gradients, some holding inf or nan: which steps run, the scale and growth tracker
    after each update, the parameters and the unscaled gradients."""
    param, opt = sgd([1.0, -2.0, 3.0])
    scaler = torch.amp.GradScaler("cpu", init_scale=8.0, growth_factor=2.0, backoff_factor=0.5, growth_interval=3)
    inf, nan = float("inf"), float("nan")
    grads = [[8.0, 16.0, -8.0], [8.0, inf, 0.0], [4.0, 4.0, 4.0], [1.0, 2.0, 3.0], [0.5, 0.25, 2.0], [nan, 1.0, 1.0],
             [-inf, 0.0, 0.0], [2.0, 2.0, 2.0], [3.0, 1.0, 0.0], [1.0, 1.0, 1.0], [6.0, 6.0, 6.0]]
    rows = []
    for i, g in enumerate(grads):
        loss = scaler.scale(param.sum())
        loss_value = float(loss.item())
        param.grad = torch.tensor(g, dtype=torch.float32)
        if i % 2:
            scaler.unscale_(opt)  # explicit unscale (as for clipping) before step on odd iterations
        result = scaler.step(opt)
        unscaled = [None if not np.isfinite(v) else float(v) for v in param.grad.detach().numpy().tolist()]
        scaler.update()
        rows.append({"scaled_loss": loss_value, "step_returned": result, "unscaled_grad": unscaled,
                     "param": param.detach().numpy().tolist(), **scaler_report(scaler)})
    return rows


def scaler_rounding():
    """Factors that are not powers of two: the scale follows torch's float32 arithmetic exactly."""
    param, opt = sgd([0.0])
    scaler = torch.amp.GradScaler("cpu", init_scale=3.0, growth_factor=1.7, backoff_factor=0.3, growth_interval=1)
    scales = []
    for g in [1.0, float("inf"), 1.0, 1.0, float("inf")]:
        scaler.scale(param.sum())
        param.grad = torch.tensor([g])
        scaler.step(opt)
        scaler.update()
        scales.append(scaler.get_scale())
    tiny = torch.amp.GradScaler("cpu", init_scale=0.1)
    before = tiny.get_scale()
    tiny.scale(param.sum())
    param.grad = torch.tensor([1.0])
    tiny.unscale_(opt)
    tiny_grad = float(param.grad.item())
    big = torch.amp.GradScaler("cpu", init_scale=2.0 ** 127, growth_interval=1)
    big.scale(param.sum())
    param.grad = torch.tensor([1.0])
    big.step(opt)
    big.update()
    half = torch.amp.GradScaler("cpu", init_scale=0.5)
    half.scale(param.sum())
    param.grad = torch.tensor([3e38])  # finite going in, inf after unscaling: not an overflow for torch
    stepped = half.step(opt)
    half.update()
    return {"scales": scales, "tiny_before": before, "tiny_after": tiny.get_scale(),
            "tiny_unscaled_grad": tiny_grad,
            "growth_overflow": [big.get_scale(), big._get_growth_tracker()],
            "finite_input_overflow_scale": half.get_scale(), "finite_input_overflow_stepped": stepped is None}


def scaler_interval_change():
    param, opt = sgd([0.0])
    scaler = torch.amp.GradScaler("cpu", init_scale=4.0, growth_interval=4)
    seen = []
    for i in range(6):
        if i == 3:
            scaler.set_growth_interval(2)
        scaler.scale(param.sum())
        param.grad = torch.tensor([1.0])
        scaler.step(opt)
        scaler.update()
        seen.append([scaler.get_scale(), scaler._get_growth_tracker()])
    return seen


def scaler_scale_outputs():
    scaler = torch.amp.GradScaler("cpu", init_scale=4.0)
    nested = scaler.scale([torch.tensor(1.0), (torch.tensor([2.0]), torch.tensor(3.0))])
    half = scaler.scale(torch.tensor([2.0], dtype=torch.float16))
    return {"nested": [float(nested[0].item()), type(nested[1]).__name__, float(nested[1][0].item()),
                       float(nested[1][1].item())],
            "types": [type(nested).__name__],
            "generator": type(scaler.scale(iter([torch.tensor(1.0)]))).__name__,
            "fp16": [str(half.dtype), list(half.shape), float(half.item())],
            "scalar_loss_shape": list(scaler.scale(torch.tensor(2.0)).shape),
            "not_a_tensor": error_of(lambda: scaler.scale(3.0))}


def scaler_errors():
    seen = {}
    param, opt = sgd([1.0])
    fresh = torch.amp.GradScaler("cpu")
    seen["update_before_scale"] = error_of(fresh.update)
    seen["step_before_scale"] = error_of(lambda: fresh.step(opt))
    scaler = torch.amp.GradScaler("cpu")
    scaler.scale(param.sum())
    seen["update_without_inf_checks"] = error_of(scaler.update)
    seen["step_without_grads"] = error_of(lambda: scaler.step(opt))
    seen["unscale_after_failed_step"] = error_of(lambda: scaler.unscale_(opt))
    scaler = torch.amp.GradScaler("cpu")
    scaler.scale(param.sum())
    param.grad = torch.tensor([1.0])
    scaler.unscale_(opt)
    seen["unscale_twice"] = error_of(lambda: scaler.unscale_(opt))
    scaler.step(opt)
    seen["step_twice"] = error_of(lambda: scaler.step(opt))
    seen["unscale_after_step"] = error_of(lambda: scaler.unscale_(opt))
    seen["closure"] = error_of(lambda: scaler.step(opt, closure=lambda: 0))
    scaler.update()
    seen["bad_new_scale"] = error_of(lambda: scaler.update(torch.tensor([1.0, 2.0])))
    scaler.update(8.0)
    seen["new_scale_float"] = scaler.get_scale()
    scaler.update(torch.tensor(16.0))
    seen["new_scale_tensor"] = scaler.get_scale()
    p16 = torch.nn.Parameter(torch.ones(2, dtype=torch.float16))
    p16.grad = torch.ones(2, dtype=torch.float16)
    scaler.scale(param.sum())
    seen["fp16_grads"] = error_of(lambda: scaler.unscale_(torch.optim.SGD([p16], lr=1.0)))
    seen["growth_factor_not_above_1"] = error_of(lambda: torch.amp.GradScaler("cpu", growth_factor=1.0))
    seen["empty_state_dict"] = error_of(lambda: torch.amp.GradScaler("cpu").load_state_dict({}))
    return seen


def scaler_states():
    seen = {}
    scaler = torch.amp.GradScaler("cpu", init_scale=0.1, growth_interval=7)
    seen["before_scale"] = scaler.state_dict()
    scaler.scale(torch.tensor(1.0))
    seen["after_scale"] = scaler.state_dict()
    other = torch.amp.GradScaler("cpu")
    other.load_state_dict({"scale": 32.0, "growth_factor": 3.0, "backoff_factor": 0.25, "growth_interval": 5,
                           "_growth_tracker": 2})
    seen["loaded"] = other.state_dict()
    seen["loaded_getters"] = [other.get_scale(), other.get_growth_factor(), other.get_backoff_factor(),
                              other.get_growth_interval()]
    disabled = torch.amp.GradScaler("cpu", enabled=False)
    x = torch.tensor(3.0)
    param, opt = sgd([1.0])
    param.grad = torch.tensor([2.0])
    seen["disabled"] = [disabled.state_dict(), disabled.get_scale(), disabled.scale(x) is x, disabled.is_enabled(),
                        disabled.step(opt), param.detach().numpy().tolist()]
    cuda, warned = warnings_of(lambda: torch.amp.GradScaler("cuda"))
    seen["cuda_without_cuda"] = [cuda.is_enabled(), warned]
    return seen


if __name__ == "__main__":
    report = {"autocast_states": autocast_states(), "autocast_ops": autocast_ops(),
              "custom_function": custom_function(), "scaler_sequence": scaler_sequence(),
              "scaler_rounding": scaler_rounding(), "scaler_interval_change": scaler_interval_change(),
              "scaler_scale_outputs": scaler_scale_outputs(), "scaler_errors": scaler_errors(),
              "scaler_states": scaler_states()}
    sys.stdout.flush()
    print(json.dumps(report, default=str))
