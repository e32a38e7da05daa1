"""The memory layout of elementwise results (mindnlp_shim/torch/_ops/result_layout.py) against real torch.

torch lays out an elementwise result, a clone and a dtype conversion like their operands (TensorIterator's rule,
preserve_format): `a.t() + b.t()` is transposed, `x.t().clone()` too. Hypothesis draws operands laid out
contiguously, permuted, sliced with a step (not dense), expanded (stride 0), broadcast (fewer or size-1 dims),
0-d or a Python number, in float32, float64 or bfloat16, some of them leaves that require grad (parameters),
and each op of OPS runs on several such pairs; the same scenario runs under real torch (a subprocess) and the
shim, and the result's strides (those of dims longer than 1: a size-1 dim addresses nothing), values and the
operands' gradients must be torch's. In-place ops on such results, writes into them and out= are compared the
same way. Inside the autograd graph (an operand with a history) the shim's results stay row-major, by design:
the last tests pin that down."""
import os

os.environ.setdefault("GLOG_v", "3")

import pytest  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

import mindnlp_shim.torch as torch  # noqa: E402

from oracle import drawn_cases, scenario_answer, scenario_answers  # noqa: E402

# Each op: an expression (or statements setting `r`) over operands `a` and `b`, positive values in [0.5, 2).
OPS = {
    "a + b": "a + b", "torch.add(a, b, alpha=2)": "torch.add(a, b, alpha=2)", "a - b": "a - b", "b - a": "b - a",
    "a * b": "a * b", "a / b": "a / b", "a.add(b)": "a.add(b)", "torch.mul(a, b)": "torch.mul(a, b)",
    "torch.sub(a, b)": "torch.sub(a, b)", "torch.div(a, b)": "torch.div(a, b)", "torch.rsub(a, b)": "torch.rsub(a, b)",
    "a // b": "a // b", "a % b": "a % b", "a ** b": "a ** b", "torch.maximum(a, b)": "torch.maximum(a, b)",
    "torch.minimum(a, b)": "torch.minimum(a, b)", "torch.atan2(a, b)": "torch.atan2(a, b)",
    "torch.hypot(a, b)": "torch.hypot(a, b)", "a > b": "a > b", "a == b": "a == b", "torch.le(a, b)": "torch.le(a, b)",
    "torch.where(a > 1, a, b)": "torch.where(a > 1, a, b)", "torch.lerp(a, b, 0.25)": "torch.lerp(a, b, 0.25)",
    "torch.addcmul(a, b, b, value=0.5)": "torch.addcmul(a, b, b, value=0.5)",
    "torch.addcdiv(b, a, a)": "torch.addcdiv(b, a, a)", "torch.clamp(a, min=b)": "torch.clamp(a, min=b)",
    "torch.logical_and(a > 1, b > 1)": "torch.logical_and(a > 1, b > 1)",
    "-a": "-a", "a.abs()": "a.abs()", "torch.exp(a)": "torch.exp(a)", "a.log()": "a.log()", "a.sqrt()": "a.sqrt()",
    "a.rsqrt()": "a.rsqrt()", "a.sin()": "a.sin()", "a.tanh()": "a.tanh()", "torch.sigmoid(a)": "torch.sigmoid(a)",
    "a.erf()": "a.erf()", "a.floor()": "a.floor()", "a.round(decimals=1)": "a.round(decimals=1)",
    "a.reciprocal()": "a.reciprocal()", "a.square()": "a.square()", "a.relu()": "a.relu()", "a.sign()": "a.sign()",
    "a.isnan()": "a.isnan()", "torch.logical_not(a > 1)": "torch.logical_not(a > 1)",
    "a.nan_to_num()": "a.nan_to_num()", "a.clamp(0.75, 1.5)": "a.clamp(0.75, 1.5)", "a ** 2": "a ** 2",
    "2 ** a": "2 ** a", "1 - a": "1 - a", "1 / a": "1 / a", "a * 3": "a * 3",
    "a.clone()": "a.clone()", "torch.clone(a, memory_format=torch.preserve_format)":
        "torch.clone(a, memory_format=torch.preserve_format)",
    "a.clone(memory_format=torch.contiguous_format)": "a.clone(memory_format=torch.contiguous_format)",
    "a.to(torch.float64)": "a.to(torch.float64)", "a.to(torch.float32)": "a.to(torch.float32)",
    "a.double()": "a.double()", "a.float()": "a.float()", "a.half()": "a.half()", "(a * 3).long()": "(a * 3).long()",
    "(a - 1).bool()": "(a - 1).bool()", "a.type(torch.float64)": "a.type(torch.float64)",
    "a.to(a.dtype, copy=True)": "a.to(a.dtype, copy=True)",
    "a.to(torch.float64, memory_format=torch.contiguous_format)":
        "a.to(torch.float64, memory_format=torch.contiguous_format)",
    "a.to(memory_format=torch.contiguous_format)": "a.to(memory_format=torch.contiguous_format)",
    "a.masked_fill(a > 1, 0.0)": "a.masked_fill(a > 1, 0.0)",
    "torch.lgamma(a)": "torch.lgamma(a)", "torch.asinh(a)": "torch.asinh(a)", "torch.copysign(a, b)":
        "torch.copysign(a, b.detach() - 1)", "torch.float_power(a, 2)": "torch.float_power(a, 2)",
    "torch.float_power(2, a)": "torch.float_power(2, a)", "torch.mvlgamma(a + 1, 2)": "torch.mvlgamma(a + 1, 2)",
    "F.gelu(a)": "torch.nn.functional.gelu(a)", "F.silu(a)": "torch.nn.functional.silu(a)",
    "F.leaky_relu(a - 1, 0.1)": "torch.nn.functional.leaky_relu(a - 1, 0.1)",
    "F.softplus(a)": "torch.nn.functional.softplus(a)", "F.hardtanh(a, 0.75, 1.5)":
        "torch.nn.functional.hardtanh(a, 0.75, 1.5)",
    "F.silu(a * 1, inplace=True)": "r = a * 1\nassert torch.nn.functional.silu(r, inplace=True) is r",
    "F.elu(a - 1, 1.0, True)": "r = a - 1\nassert torch.nn.functional.elu(r, 1.0, True) is r",
    # in place on a result laid out like `a` (then written, also through a view), and out=
    "(a * 1).add_(b)": "r = a * 1\nr.add_(b)", "(a * 1).mul_(b)": "r = a * 1\nr.mul_(b)",
    "r = a + 0; r += b": "r = a + 0\nr += b", "a.clone().exp_()": "r = a.clone()\nr.exp_()",
    "a.clone().clamp_(0.75, 1.5)": "r = a.clone()\nr.clamp_(0.75, 1.5)",
    "(a * 2)[0] = 5": "r = a * 2\nr[0] = 5.0", "(a * 2)[0].mul_(3)": "r = a * 2\nr[0].mul_(3)",
    "(a * 2).copy_(b)": "r = a * 2\nr.copy_(b)",
    "torch.add(a, b, out=contiguous)": "r = torch.empty(torch.broadcast_shapes(a.shape, b.shape), dtype=a.dtype)\n"
                                       "torch.add(a, b, out=r)",
}
# ops that apply an op to a result computed from `a`: where `a` requires grad, that result is an activation of the
# autograd graph, and the shim keeps the second op's result row-major (test_activations_in_the_graph_...)
CHAINED = {"(a - 1).bool()", "(a * 3).long()", "F.leaky_relu(a - 1, 0.1)"}
# the ops whose operand `b` may be a Python number (torch refuses one elsewhere, and so must the shim)
TAKES_NUMBER_B = {"a + b", "torch.add(a, b, alpha=2)", "a - b", "b - a", "a * b", "a / b", "a.add(b)",
                  "torch.mul(a, b)", "torch.sub(a, b)", "torch.div(a, b)", "torch.rsub(a, b)", "a // b", "a % b",
                  "a ** b", "a > b", "a == b", "torch.le(a, b)", "torch.where(a > 1, a, b)", "torch.clamp(a, min=b)",
                  "(a * 1).add_(b)", "(a * 1).mul_(b)", "r = a + 0; r += b"}

# Runs unchanged under the shim and under real torch.
SCENARIO = r'''
import warnings
import numpy as np

def operand(torch, spec, dtype):
    """(the operand, the leaf its gradient is read from or None) for spec (see _operand in the test)."""
    if spec["kind"] == "number":
        return spec["value"], None
    shape, kind = tuple(spec["shape"]), spec["kind"]
    stored = list(shape)
    if kind == "slice":
        stored[spec["dim"]] *= 2
    if kind == "expand":
        stored[spec["dim"]] = 1
    order = spec.get("perm") or list(range(len(shape)))
    values = np.random.default_rng(spec["seed"]).uniform(0.5, 2.0, [stored[d] for d in order])
    base = torch.tensor(values, dtype=torch.float64).to(getattr(torch, dtype))
    t = base.permute([order.index(d) for d in range(len(shape))]) if shape else base
    if kind == "slice":
        t = t[(slice(None),) * spec["dim"] + (slice(None, None, 2),)]  # (every other element: not dense)
    if kind == "expand":
        t = t.expand(shape)
    if spec["grad"]:  # a leaf with the layout (a parameter); see test_activations_in_the_graph_give_row_major
        t = t.detach().requires_grad_()
        return t, t
    return t, None

def run(torch, case):
    warnings.simplefilter("ignore")
    a, leaf_a = operand(torch, case["a"], case["dtype"])
    b, leaf_b = operand(torch, case["b"], case["dtype"])
    space = {"torch": torch, "a": a, "b": b}
    try:
        if "\n" in case["code"]:
            exec(case["code"], space)
            r = space["r"]
        else:
            r = eval(case["code"], space)
    except Exception as e:
        return {"error": type(e).__name__}
    out = {"shape": list(r.shape), "dtype": str(r.dtype),
           "strides": [s if n > 1 else None for s, n in zip(r.stride(), r.shape)],
           "contiguous": r.is_contiguous(),
           "values": r.detach().to(torch.float64).flatten().tolist() if r.dtype is not torch.bool
           else r.flatten().tolist()}
    if r.requires_grad:
        w = torch.tensor(np.random.default_rng(7).uniform(-1, 1, list(r.shape)), dtype=torch.float64)
        try:
            (r.to(torch.float64) * w).sum().backward()
        except Exception as e:  # (torch has no derivative for some: floor_divide)
            out["grads"] = type(e).__name__
            return out
        out["grads"] = [None if l is None or l.grad is None else l.grad.to(torch.float64).flatten().tolist()
                        for l in (leaf_a, leaf_b)]
    return out
'''


def _broadcast_partner(draw, shape):
    """A shape that broadcasts with `shape` to `shape`: leading dims dropped, some dims 1."""
    keep = draw(st.integers(0, len(shape)))
    return [1 if draw(st.booleans()) and n > 1 else n for n in shape[len(shape) - keep:]]


@st.composite
def _operand(draw, shape, partner):
    kind = draw(st.sampled_from(["contiguous", "perm", "perm", "perm", "slice", "expand", "0d", "number"]
                                if partner else ["contiguous", "perm", "perm", "perm", "slice", "expand"]))
    if kind == "number":
        return {"kind": "number", "value": draw(st.sampled_from([1.5, 2, 0.75]))}
    own = [] if kind == "0d" else list(shape)
    if partner and own and draw(st.booleans()):
        own = _broadcast_partner(draw, own)
    spec = {"kind": kind, "shape": own, "seed": draw(st.integers(0, 99)), "grad": draw(st.booleans())}
    if kind in ("perm", "slice") and len(own) >= 2:
        spec["perm"] = draw(st.permutations(list(range(len(own)))))
    if kind == "slice" and own:
        spec["dim"] = draw(st.integers(0, len(own) - 1))
    elif kind == "slice":
        spec["kind"] = "contiguous"
    if kind == "expand":
        wide = [d for d, n in enumerate(own) if n > 1]
        if wide:
            spec["dim"] = draw(st.sampled_from(wide))
        else:
            spec["kind"] = "contiguous"
    return spec


@st.composite
def _operands(draw):
    shape = draw(st.lists(st.integers(1, 4), min_size=2, max_size=4))
    a = draw(_operand(shape, partner=False))
    b = draw(_operand(shape, partner=True))
    dtype = draw(st.sampled_from(["float32", "float32", "float64", "bfloat16"]))
    if dtype == "bfloat16":  # (stepped slices and expansions of bfloat16 tensors are copies in the shim: not drawn)
        a, b = ({**s, "kind": "perm"} if s["kind"] in ("slice", "expand") else s for s in (a, b))
    return {"dtype": dtype, "a": a, "b": b}


def _with_op(operands, op):
    case = dict(operands, op=op, code=OPS[op])
    if case["b"]["kind"] == "number" and op not in TAKES_NUMBER_B:
        case["b"] = {**case["a"], "seed": case["a"]["seed"] + 1, "kind": "contiguous", "perm": None}
    return case


_OP_NAMES = sorted(OPS)
CASES = [_with_op(operands, _OP_NAMES[i % len(_OP_NAMES)])  # (each op on 6 different drawn operand pairs)
         for i, operands in enumerate(drawn_cases(_operands(), 6 * len(_OP_NAMES)))]


@pytest.fixture(scope="module")
def torch_answers():
    return scenario_answers(SCENARIO, CASES, timeout=900)


def _close(ours, theirs, dtype):
    rtol = {"float32": 1e-5, "float64": 1e-12}.get(dtype, 1.6e-2)
    if len(ours) != len(theirs):
        return False
    for x, y in zip(ours, theirs):
        if isinstance(y, bool) or x != x and y != y:
            if x != y and not (x != x and y != y):
                return False
        elif abs(x - y) > rtol * max(abs(y), 1.0):
            return False
    return True


@pytest.mark.parametrize("index", range(len(CASES)))
def test_result_layout_matches_torch(torch_answers, index):
    case = CASES[index]
    ours = scenario_answer(SCENARIO, torch, case)
    theirs = torch_answers[index]
    assert ours.keys() == theirs.keys(), (case, ours, theirs)
    if "error" in theirs:
        return
    assert (ours["shape"], ours["dtype"]) == (theirs["shape"], theirs["dtype"]), case
    if not (case["op"] in CHAINED and case["a"].get("grad")):
        assert (ours["strides"], ours["contiguous"]) == (theirs["strides"], theirs["contiguous"]), (case, ours, theirs)
    assert _close(ours["values"], theirs["values"], case["dtype"]), (case, ours["values"], theirs["values"])
    if isinstance(theirs.get("grads"), str):
        assert ours["grads"] == theirs["grads"], case
        return
    for mine, real in zip(ours.get("grads", ()), theirs.get("grads", ())):
        assert (mine is None) == (real is None) or not any(mine or real), case
        if mine is not None and real is not None:
            assert _close(mine, real, case["dtype"]), (case, mine, real)


def test_cases_cover_the_layouts():
    """The drawn cases hold every operand layout, with non-contiguous results among them (the rule is reached)."""
    kinds = {c[side]["kind"] for c in CASES for side in "ab"}
    assert kinds >= {"contiguous", "perm", "slice", "expand", "0d", "number"}
    assert {c["op"] for c in CASES} == set(OPS)


def test_few_cases_end_in_an_error(torch_answers):
    """Errors (torch's refusals, which the shim must share) are compared too, but most cases must compute."""
    errors = [c["op"] for c, answer in zip(CASES, torch_answers) if "error" in answer]
    assert len(errors) < len(CASES) // 10, errors


def test_contiguous_operands_skip_the_rule(monkeypatch):
    """The common case (contiguous operands) never computes an order: one C call per operand decides."""
    from mindnlp_shim.torch._ops import result_layout

    def refuse(*_):
        raise AssertionError("memory_order called for contiguous operands")

    monkeypatch.setattr(result_layout, "memory_order", refuse)
    x = torch.randn(4, 5)
    for r in (x + x, x * 2, x.exp(), torch.add(x, 1.0), x.clone(), x.double(), x > 0, torch.where(x > 0, x, 0.0)):
        assert r.is_contiguous()


def test_transposed_sum_is_one_dense_kernel_call():
    """`a.t() + b.t()` runs the kernel on the dense tensors behind the views (no strided copy) and is torch's."""
    a, b = torch.randn(300, 200), torch.randn(300, 200)
    r = a.t() + b.t()
    assert r.stride() == (1, 200) and r.t().is_contiguous()
    assert torch.equal(r.t(), a + b)


@pytest.mark.parametrize("fmt, order", [("channels_last", (0, 2, 3, 1))])
def test_channels_last_clone_and_conversion(fmt, order):
    x = torch.randn(2, 3, 4, 5)
    for r in (x.clone(memory_format=getattr(torch, fmt)), x.to(memory_format=getattr(torch, fmt)),
              x.to(torch.float64, memory_format=getattr(torch, fmt))):
        assert r.permute(order).is_contiguous() and torch.equal(r.float(), x)
    with pytest.raises(RuntimeError, match="required rank 4"):
        torch.randn(2, 3).clone(memory_format=torch.channels_last)


def test_activations_in_the_graph_give_row_major_results():
    """The documented subset: an operand with an autograd history (an activation, grad mode on) keeps the result
    row-major (MindSpore's kernels copy strided operands: following torch's layout there made Llama's rotary
    embedding block 15% slower); values and gradients are torch's all the same (the drawn cases above), and
    outside the graph the same call follows the operand."""
    w = torch.randn(4, 6, requires_grad=True)
    h = (w * 1).t()  # an activation, transposed
    for r in (h * 2, h + h, h.exp(), h.clone(), h.double()):
        assert r.is_contiguous()
    with torch.no_grad():
        assert (h * 2).stride() == (1, 6) and h.clone().stride() == (1, 6)
    leaf = torch.randn(4, 6).t().detach().requires_grad_()  # a permuted parameter: the rule applies
    assert (leaf * 2).stride() == (1, 6)


def test_peft_miss_merge_sequence_gives_a_contiguous_weight():
    """peft's MiSS merge (get_delta_weight_miss): a frozen weight's blocks permuted, plus the trainable block (a
    leaf that requires grad), permuted back and reshaped, is contiguous in torch; safetensors refuses anything
    else."""
    weight = torch.randn(20, 10)
    miss_b = torch.randn(2, 20, requires_grad=True)
    blocks = weight.clone().reshape(-1, 5, 2).permute(1, 2, 0)
    merged = (blocks + 1 * miss_b).permute(2, 0, 1).reshape(20, 10)
    assert merged.is_contiguous() and merged.stride() == (10, 1)
    assert torch.allclose(merged, (weight.reshape(-1, 5, 2).permute(1, 2, 0) + miss_b).permute(2, 0, 1).reshape(20, 10))
