"""nn.Module.register_backward_hook (torch's deprecated module backward hook): the hook's grad_input and
grad_output, the gradients after a hook returns replacements, torch's FutureWarning and errors, compared with
real torch on a generated table of Linear, activation, Sequential cases; modules whose last torch node the shim
does not reproduce refuse with NotImplementedError."""
import os
import random

os.environ.setdefault("GLOG_v", "3")

import numpy as np  # noqa: E402
import pytest  # noqa: E402

import mindnlp_shim.torch as torch  # noqa: E402

from oracle import scenario_answer, scenario_answers  # noqa: E402

# Runs unchanged under the shim (torch = mindnlp_shim.torch) and under real torch.
SCENARIO = r'''
import warnings

def build(torch, case):
    nn = torch.nn
    g = torch.Generator().manual_seed(case["seed"])
    def linear(n_in, n_out, bias):
        m = nn.Linear(n_in, n_out, bias=bias)
        with torch.no_grad():
            m.weight.copy_(torch.randn(n_out, n_in, generator=g))
            if bias:
                m.bias.copy_(torch.randn(n_out, generator=g))
        return m
    act = {"relu": nn.ReLU, "tanh": nn.Tanh, "sigmoid": nn.Sigmoid, "gelu": nn.GELU, "silu": nn.SiLU,
           "softmax": lambda: nn.Softmax(dim=-1), "logsoftmax": lambda: nn.LogSoftmax(dim=-1)}
    kind = case["module"]
    if kind == "linear":
        module = linear(3, 4, case["bias"])
    elif kind == "seq":
        module = nn.Sequential(linear(3, 4, case["bias"]), act[case["act"]]())
    elif kind == "seq_linear":
        module = nn.Sequential(act[case["act"]](), linear(3, 4, case["bias"]))
    else:
        module = act[kind]()
    width = 4 if kind in act else 3
    x = torch.randn(*case["batch"], width, generator=g)
    if case["x_grad"]:
        x.requires_grad_(True)
    if case.get("frozen"):
        for p in module.parameters():
            p.requires_grad_(False)
    return module, x

def run(torch, case):
    module, x = build(torch, case)
    seen = []
    def hook(m, grad_input, grad_output):
        seen.append({"module": type(m).__name__,
                     "grad_input": [None if t is None else t.tolist() for t in grad_input],
                     "grad_output": [None if t is None else t.tolist() for t in grad_output]})
        if case["scale"] is not None:
            return tuple(None if t is None else t * case["scale"] for t in grad_input)
    hooked = [module] + ([module[-1]] if case.get("hook_last") else [])
    for m in hooked:
        m.register_backward_hook(hook)
    inp = x * 1.5 if case["nonleaf"] and x.requires_grad else x
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        out = module(inp)
    weights = torch.arange(out.numel(), dtype=out.dtype).reshape(out.shape) / 7 - 1
    if out.requires_grad:
        (out * weights).sum().backward()
    grads = {"x": None if x.grad is None else x.grad.tolist()}
    for name, p in module.named_parameters():
        grads[name] = None if p.grad is None else p.grad.tolist()
    return {"seen": seen, "grads": grads,
            "warnings": [(w.category.__name__, str(w.message)) for w in caught if "backward hook" in str(w.message)]}
'''


def _cases():
    rng = random.Random(20261205)
    acts = ["relu", "tanh", "sigmoid", "gelu", "silu", "softmax", "logsoftmax"]
    cases = []
    for i in range(40):
        module = rng.choice(["linear", "linear", "seq", "seq_linear"] + acts)
        batch = rng.choice([[2], [1], [5], [2, 3], [2, 1, 2], []])
        if module in ("linear", "seq", "seq_linear") and batch == [] and rng.random() < 0.5:
            batch = [2]
        case = {"seed": i, "module": module, "batch": batch, "bias": rng.random() < 0.7,
                "x_grad": rng.random() < 0.8, "nonleaf": rng.random() < 0.5, "frozen": rng.random() < 0.15,
                "scale": rng.choice([None, None, 2.0, -0.5]), "act": rng.choice(acts),
                "hook_last": module.startswith("seq") and rng.random() < 0.4}
        if module in ("linear", "seq", "seq_linear") and batch == [] and not case["bias"]:
            case["bias"] = True  # a vector through Linear without bias ends in torch's mv node: refused (below)
        cases.append(case)
    return cases


CASES = _cases()


@pytest.fixture(scope="module")
def torch_answers():
    return scenario_answers(SCENARIO, CASES)


def _close(a, b):
    if a is None or b is None:
        return a is None and b is None
    return np.allclose(np.array(a, dtype=np.float64), np.array(b, dtype=np.float64), rtol=1e-5, atol=1e-6)


def _same(ours, theirs):
    assert len(ours["seen"]) == len(theirs["seen"])
    for a, b in zip(ours["seen"], theirs["seen"]):
        assert a["module"] == b["module"]
        for key in ("grad_input", "grad_output"):
            assert len(a[key]) == len(b[key]), key
            for x, y in zip(a[key], b[key]):
                assert (None if x is None else np.shape(x)) == (None if y is None else np.shape(y)), key
                assert _close(x, y), key
    assert ours["grads"].keys() == theirs["grads"].keys()
    for name in ours["grads"]:
        assert _close(ours["grads"][name], theirs["grads"][name]), name
    assert ours["warnings"] == theirs["warnings"]


@pytest.mark.parametrize("index", range(len(CASES)))
def test_hook_arguments_replacements_and_warnings_match_torch(torch_answers, index):
    _same(scenario_answer(SCENARIO, torch, CASES[index]), torch_answers[index])


def test_handle_removes_the_hook_and_mixing_with_full_hooks_is_refused():
    m = torch.nn.Linear(2, 2)
    calls = []
    handle = m.register_backward_hook(lambda *a: calls.append(1))
    assert len(m._backward_hooks) == 1 and m._is_full_backward_hook is False
    m(torch.randn(3, 2)).sum().backward()
    handle.remove()
    m(torch.randn(3, 2)).sum().backward()
    assert calls == [1] and not m._backward_hooks


def test_wrong_replacements_raise_torch_errors():
    m = torch.nn.Linear(3, 4)
    m.register_backward_hook(lambda mod, gi, go: gi[:1])
    with pytest.raises(RuntimeError, match=r"incorrect number of values \(got 1, but expected 3\)"):
        m(torch.randn(2, 3, requires_grad=True)).sum().backward()
    m = torch.nn.Linear(3, 4)
    m.register_backward_hook(lambda mod, gi, go: (gi[0], gi[1], gi[2].t()))
    with pytest.raises(RuntimeError, match="has changed the size of value"):
        m(torch.randn(2, 3, requires_grad=True)).sum().backward()


class _EndsInAdd(torch.nn.Module):
    def forward(self, a, b):
        return a * 2 + b


def test_modules_whose_last_node_is_not_reproduced_refuse():
    m = _EndsInAdd()
    m.register_backward_hook(lambda *a: None)
    a = torch.randn(2, 3, requires_grad=True)
    with pytest.raises(NotImplementedError, match="register_backward_hook on _EndsInAdd"):
        m(a, a)
    lin = torch.nn.Linear(3, 4, bias=False)
    lin.register_backward_hook(lambda *a: None)
    with pytest.raises(NotImplementedError, match="matrix-vector"):
        lin(torch.randn(3, requires_grad=True))


def test_no_grad_forward_registers_nothing():
    m = torch.nn.Sequential(torch.nn.Linear(3, 4), torch.nn.ReLU())
    calls = []
    m.register_backward_hook(lambda *a: calls.append(1))
    with torch.no_grad():
        out = m(torch.randn(2, 3))
    assert out.grad_fn is None and calls == []
