"""nn.Module.register_full_backward_hook / register_full_backward_pre_hook and their global forms
(torch.nn.modules.module.register_module_full_backward_hook / _pre_hook): the hooks' grad_input and grad_output,
their call order and count, replacements returned by hooks and pre-hooks, handle removal, torch's warnings, and
the resulting .grad, compared with real torch on a generated table of modules x hook kinds; torch's errors for
in-place writes into a hooked module's output or input, wrong replacements and mixing with legacy hooks."""
import json
import os
import random

os.environ.setdefault("GLOG_v", "3")

import numpy as np  # noqa: E402
import pytest  # noqa: E402

import mindnlp_shim.torch as torch  # noqa: E402

from oracle import require_torch, run_torch_json, scenario_answer, scenario_answers  # noqa: E402

# Runs unchanged under the shim (torch = mindnlp_shim.torch) and under real torch.
SCENARIO = r'''
import warnings

def build(torch, case):
    nn = torch.nn
    g = torch.Generator().manual_seed(case["seed"])
    kind = case["module"]

    class TwoInputs(nn.Module):  # a second input that may not require grad, and a non-tensor argument
        def __init__(self):
            super().__init__()
            self.lin = nn.Linear(3, 3)
        def forward(self, x, y, scale):
            return self.lin(x) * y * scale

    class TupleOut(nn.Module):
        def __init__(self):
            super().__init__()
            self.lin = nn.Linear(3, 4)
        def forward(self, x):
            h = self.lin(x)
            return h.tanh(), h.sum(-1), torch.zeros(2, dtype=torch.long)

    class ViewOut(nn.Module):  # the output is a view of the input
        def forward(self, x):
            return x.transpose(0, 1)[:2]

    if kind == "linear":
        module, shape = nn.Linear(3, 4, bias=case["bias"]), (2, 3)
    elif kind == "conv2d":
        module, shape = nn.Conv2d(2, 3, 3, padding=1, bias=case["bias"]), (2, 2, 4, 4)
    elif kind == "layernorm":
        module, shape = nn.LayerNorm(5, elementwise_affine=case["bias"]), (3, 5)
    elif kind in ("mlp", "nested"):
        module, shape = nn.Sequential(nn.Linear(3, 5), nn.ReLU(), nn.Linear(5, 2)), (4, 3)
    elif kind == "two_inputs":
        module, shape = TwoInputs(), (2, 3)
    elif kind == "tuple_out":
        module, shape = TupleOut(), (2, 3)
    else:
        module, shape = ViewOut(), (3, 4)
    with torch.no_grad():
        for _, p in sorted(module.named_parameters()):
            p.copy_(torch.randn(p.shape, generator=g))
    x = torch.randn(*shape, generator=g)
    if case["x_grad"]:
        x.requires_grad_(True)
    args = (x,)
    if kind == "two_inputs":
        y = torch.randn(2, 3, generator=g)
        if case["y_grad"]:
            y.requires_grad_(True)
        args = (x, y, 0.5)
    return module, args

def _listed(ts):
    return [None if t is None else t.tolist() for t in ts]

def run(torch, case):
    module, args = build(torch, case)
    mm = torch.nn.modules.module
    seen, handles = [], []
    def hook(tag, replace):
        def full(m, grad_input, grad_output):
            seen.append({"tag": tag, "module": type(m).__name__, "grad_input": _listed(grad_input),
                         "grad_output": _listed(grad_output)})
            if replace:
                return tuple(None if t is None else t * 2 - 1 for t in grad_input)
        return full
    def pre_hook(tag, replace):
        def pre(m, grad_output):
            seen.append({"tag": tag, "module": type(m).__name__, "grad_output": _listed(grad_output)})
            if replace:
                return tuple(None if t is None else t * -3 for t in grad_output)
        return pre
    kind = case["hooks"]
    targets = [module]
    if case["module"] == "nested":
        targets.append(module[2])
    for n, target in enumerate(targets):
        if kind in ("observe", "replace", "remove"):
            handles.append(target.register_full_backward_hook(hook(f"full{n}", kind == "replace")))
        if kind in ("pre", "pre_replace", "remove"):
            handles.append(target.register_full_backward_pre_hook(pre_hook(f"pre{n}", kind == "pre_replace")))
        if kind == "prepend":
            handles.append(target.register_full_backward_hook(hook(f"a{n}", False)))
            handles.append(target.register_full_backward_hook(hook(f"b{n}", True), prepend=True))
            handles.append(target.register_full_backward_pre_hook(pre_hook(f"c{n}", False)))
            handles.append(target.register_full_backward_pre_hook(pre_hook(f"d{n}", True), prepend=True))
    if kind == "global":
        handles.append(mm.register_module_full_backward_hook(hook("global", False)))
        handles.append(mm.register_module_full_backward_pre_hook(pre_hook("global_pre", False)))
    if kind == "remove":
        for h in handles:
            h.remove()
    result = {}
    try:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            out = module(*args)
            outs = out if isinstance(out, tuple) else (out,)
            loss = 0
            for i, o in enumerate(outs):
                if o.is_floating_point() and i < case["outputs_used"]:
                    w = torch.arange(o.numel(), dtype=o.dtype).reshape(o.shape) / 7 - 1
                    loss = loss + (o * w).sum()
            if getattr(loss, "requires_grad", False):
                for _ in range(case["backwards"]):
                    loss.backward(retain_graph=True)
        result["warnings"] = sorted(set((w.category.__name__, str(w.message)) for w in caught
                                        if "hook" in str(w.message)))
    finally:
        for h in handles:
            h.remove()
    grads = {f"arg{i}": None if getattr(a, "grad", None) is None else a.grad.tolist() for i, a in enumerate(args)}
    for name, p in module.named_parameters():
        grads[name] = None if p.grad is None else p.grad.tolist()
    result.update(seen=seen, grads=grads)
    return result
'''

MODULES = ["linear", "conv2d", "layernorm", "mlp", "two_inputs", "tuple_out", "view_out", "nested"]
HOOKS = ["observe", "replace", "pre", "pre_replace", "remove", "prepend", "global"]


def _cases():
    """Every module with every hook kind, the other parameters drawn from a seeded generator."""
    rng = random.Random(20261206)
    cases = []
    for module in MODULES:
        for hooks in HOOKS:
            cases.append({"seed": len(cases), "module": module, "hooks": hooks, "bias": rng.random() < 0.7,
                          "x_grad": rng.random() < 0.75, "y_grad": rng.random() < 0.5,
                          "outputs_used": rng.choice([1, 3, 3]) if module == "tuple_out" else 1,
                          "backwards": rng.choice([1, 1, 2])})
    return cases


CASES = _cases()


@pytest.fixture(scope="module")
def torch_answers():
    return scenario_answers(SCENARIO, CASES)


def _close(a, b):
    if a is None or b is None:
        return a is None and b is None
    return np.shape(a) == np.shape(b) and np.allclose(np.array(a, dtype=np.float64), np.array(b, dtype=np.float64),
                                                      rtol=1e-5, atol=1e-5)


def _same(ours, theirs):
    assert [(s["tag"], s["module"]) for s in ours["seen"]] == [(s["tag"], s["module"]) for s in theirs["seen"]]
    for a, b in zip(ours["seen"], theirs["seen"]):
        for key in ("grad_input", "grad_output"):
            assert (key in a) == (key in b)
            if key in a:
                assert len(a[key]) == len(b[key]), key
                for x, y in zip(a[key], b[key]):
                    assert _close(x, y), (a["tag"], key)
    assert ours["grads"].keys() == theirs["grads"].keys()
    for name in ours["grads"]:
        assert _close(ours["grads"][name], theirs["grads"][name]), name
    assert ours["warnings"] == theirs["warnings"]


@pytest.mark.parametrize("index", range(len(CASES)), ids=[f"{c['module']}-{c['hooks']}" for c in CASES])
def test_hook_arguments_order_replacements_and_grads_match_torch(torch_answers, index):
    _same(scenario_answer(SCENARIO, torch, CASES[index]), torch_answers[index])


def test_table_calls_hooks():
    # the table is not vacuous: most cases see hook calls and replacements change gradients
    assert sum(c["hooks"] != "remove" for c in CASES) > 40


INPLACE = r'''
def run(torch):
    nn = torch.nn
    answers = []
    def attempt(fn):
        try:
            fn()
            answers.append("ok")
        except RuntimeError as e:
            answers.append(str(e).split(" is a view")[1][:60] if " is a view" in str(e) else "other " + str(e)[:40])
    lin = nn.Linear(3, 3)
    lin.register_full_backward_hook(lambda m, gi, go: None)
    x = torch.randn(2, 3)
    attempt(lambda: lin(x).add_(1))
    attempt(lambda: lin(x)[0].mul_(2))
    attempt(lambda: nn.functional.relu(lin(x), inplace=True))
    attempt(lambda: nn.ReLU(inplace=True)(lin(x)))
    relu = nn.ReLU(inplace=True)
    relu.register_full_backward_pre_hook(lambda m, go: None)
    attempt(lambda: relu(torch.randn(2, 3, requires_grad=True) * 1))
    attempt(lambda: relu(torch.randn(2, 3)))  # nothing requires grad: no Function, no error
    with torch.no_grad():
        attempt(lambda: lin(x).add_(1))
    attempt(lambda: lin(x).clone().add_(1))
    return answers
'''


def test_inplace_writes_into_hooked_outputs_and_inputs_raise_as_in_torch():
    require_torch()
    theirs = run_torch_json(INPLACE + "\nimport json, torch\nprint(json.dumps(run(torch)))")
    namespace = {}
    exec(INPLACE, namespace)
    assert namespace["run"](torch) == theirs
    assert theirs.count("ok") == 3


WRONG = r'''
def run(torch):
    nn = torch.nn
    answers = []
    def attempt(fn):
        try:
            fn()
            answers.append("ok")
        except RuntimeError as e:
            answers.append(str(e)[:90])
    x = torch.randn(2, 3, requires_grad=True)
    m = nn.Linear(3, 4)
    m.register_full_backward_hook(lambda mod, gi, go: gi + gi)
    attempt(lambda: m(x).sum().backward())
    m = nn.Linear(3, 4)
    m.register_full_backward_pre_hook(lambda mod, go: go + go)
    attempt(lambda: m(x).sum().backward())
    m = nn.Linear(3, 4)
    m.register_full_backward_hook(lambda mod, gi, go: (torch.ones(1, 2),))
    attempt(lambda: m(x).sum().backward())
    m = nn.Linear(3, 4)
    m.register_full_backward_hook(lambda mod, gi, go: (torch.ones(2, 3),))
    attempt(lambda: m(torch.randn(2, 3)).sum().backward())  # no input requires grad: must return None
    m = nn.Linear(3, 4)
    m.register_backward_hook(lambda *a: None)
    attempt(lambda: m.register_full_backward_hook(lambda *a: None))
    m = nn.Linear(3, 4)
    m.register_full_backward_hook(lambda *a: None)
    attempt(lambda: m.register_backward_hook(lambda *a: None))
    return answers
'''


def test_wrong_replacements_and_mixing_with_legacy_hooks_raise_torch_errors():
    require_torch()
    theirs = run_torch_json(WRONG + "\nimport json, torch\nprint(json.dumps(run(torch)))")
    namespace = {}
    exec(WRONG, namespace)
    ours = namespace["run"](torch)
    assert "ok" not in theirs
    assert ours == theirs


KWARGS = r'''
def run(torch):
    nn = torch.nn
    class AddMul(nn.Module):
        def forward(self, a, b=None):
            return a * b
    seen = []
    m = AddMul()
    m.register_full_backward_hook(lambda mod, gi, go: seen.append([None if g is None else g.tolist() for g in gi]))
    a = torch.tensor([1.0, 2.0], requires_grad=True)
    b = torch.tensor([3.0, -1.0], requires_grad=True)
    m(a, b=b).sum().backward()   # b given as a keyword: not among grad_input
    m(a, b).sum().backward()
    with torch.no_grad():
        m(a, b)
    out = {}
    def pre(mod, go):
        out["go"] = [g.tolist() for g in go]
    h = m.register_full_backward_pre_hook(pre)
    y = m(a, b)
    (y * torch.tensor([2.0, 5.0])).sum().backward()
    h.remove()
    return {"seen": seen, "go": out["go"], "a": a.grad.tolist(), "b": b.grad.tolist()}
'''


def test_keyword_inputs_get_no_grad_input_and_no_grad_forward_fires_nothing():
    require_torch()
    theirs = run_torch_json(KWARGS + "\nimport json, torch\nprint(json.dumps(run(torch)))")
    namespace = {}
    exec(KWARGS, namespace)
    assert namespace["run"](torch) == theirs
    assert len(theirs["seen"]) == 3


def test_modules_without_hooks_take_the_plain_path():
    # the hook machinery is reached only through the hook dicts: a module without hooks calls forward directly
    m = torch.nn.Linear(3, 3)
    out = m(torch.randn(2, 3, requires_grad=True))
    from mindnlp_shim.torch._autograd_views import HOOK_FUNCTION_OUTPUT
    assert getattr(out, HOOK_FUNCTION_OUTPUT, None) is None
    m.register_full_backward_hook(lambda *a: None)
    assert getattr(m(torch.randn(2, 3, requires_grad=True)), HOOK_FUNCTION_OUTPUT, None) == 0


CHECKPOINT = r'''
def run(torch):
    nn = torch.nn
    from torch.utils.checkpoint import checkpoint
    res = {}
    identity, calls = nn.Identity(), []
    identity.register_full_backward_hook(lambda m, gi, go: calls.append((gi[0].tolist(), go[0].tolist())))
    z = torch.tensor([1.0, 2.0], requires_grad=True)
    (identity(z) * 3).sum().backward()
    res["identity"] = calls
    seq = nn.Sequential(nn.Linear(3, 3), nn.Tanh())
    with torch.no_grad():
        seq[0].weight.copy_(torch.arange(9.).reshape(3, 3) / 10 - 0.3)
        seq[0].bias.fill_(0.1)
    seen = []
    seq[0].register_full_backward_hook(lambda m, gi, go: seen.append(gi[0].tolist()))
    for reentrant in (True, False):
        x = torch.tensor([[0.5, -1.0, 2.0]], requires_grad=True)
        checkpoint(seq, x, use_reentrant=reentrant).sum().backward()
        res[str(reentrant)] = (len(seen), x.grad.tolist(), seen[-1])
    return res
'''


def test_identity_module_and_gradient_checkpointing_match_torch():
    # (a module returning its input as is; hooks inside torch.utils.checkpoint, reentrant or not: the forward
    # under no_grad makes no Function, the recomputation does)
    require_torch()
    theirs = run_torch_json(CHECKPOINT + "\nimport json, torch\nprint(json.dumps(run(torch)))")
    namespace = {}
    exec(CHECKPOINT, namespace)
    ours = json.loads(json.dumps(namespace["run"](torch)))
    assert ours["identity"] == theirs["identity"]
    for key in ("True", "False"):
        assert ours[key][0] == theirs[key][0]
        assert _close(ours[key][1], theirs[key][1]) and _close(ours[key][2], theirs[key][2])
