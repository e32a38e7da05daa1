"""torch.fx: symbolic tracing, graph editing and GraphModules, compared with real torch.fx.

Generated programs (chains of torch functions, functional calls, methods, operators, leaf modules, parameter
and buffer reads) are traced by both; the graphs' nodes (op, name, target) must be torch's, and the traced
module must compute what the module computes. The graph-editing steps are accelerate's own hook test's."""
import operator

import numpy as np
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

import mindnlp_shim.torch as mt
from conftest import real_torch

rt = real_torch()
pytestmark = pytest.mark.skipif(rt is None, reason="needs real torch in-process")

# steps of a forward: (name, fn(T, module, h, x) -> new h)
_STEPS = {
    "relu": lambda T, m, h, x: T.relu(h),
    "functional gelu": lambda T, m, h, x: T.nn.functional.gelu(h),
    "softmax method": lambda T, m, h, x: h.softmax(dim=-1),
    "add operator": lambda T, m, h, x: h + x,
    "radd scalar": lambda T, m, h, x: 2.0 + h,
    "mul parameter": lambda T, m, h, x: h * m.scale,
    "matmul parameter": lambda T, m, h, x: h @ m.weight,
    "buffer": lambda T, m, h, x: h - m.offset,
    "linear module": lambda T, m, h, x: m.linear(h),
    "sequential": lambda T, m, h, x: m.block(h),
    "getitem": lambda T, m, h, x: T.cat([h[:, :2], h[:, 2:]], dim=1),
    "transpose twice": lambda T, m, h, x: h.transpose(0, 1).transpose(0, 1),
    "neg": lambda T, m, h, x: -h,
    "linalg norm": lambda T, m, h, x: h / (T.linalg.vector_norm(h, dim=-1, keepdim=True) + 1),
    "reshape shape": lambda T, m, h, x: h.reshape(h.shape[0], -1),
    "tanh method": lambda T, m, h, x: h.tanh(),
}


def _module(T, steps):
    class Program(T.nn.Module):
        def __init__(self):
            super().__init__()
            self.scale = T.nn.Parameter(T.ones(4) * 0.5)
            self.weight = T.nn.Parameter(T.eye(4) * 0.9)
            self.register_buffer("offset", T.full((4,), 0.25))
            self.linear = T.nn.Linear(4, 4)
            self.block = T.nn.Sequential(T.nn.Linear(4, 4), T.nn.ReLU(), T.nn.LayerNorm(4))

        def forward(self, x, bias=1.0):
            h = x
            for name in steps:
                h = _STEPS[name](T, self, h, x)
            return h + bias

    return Program()


def _same_weights(shim_module, torch_module):
    state = {k: mt.tensor(v.detach().numpy()) for k, v in torch_module.state_dict().items()}
    shim_module.load_state_dict(state)


def _nodes(graph):
    return [(n.op, n.name, n.target if isinstance(n.target, str) else n.target.__name__,
             [a.name for a in n.all_input_nodes]) for n in graph.nodes]


@settings(max_examples=30, deadline=None)
@given(steps=st.lists(st.sampled_from(sorted(_STEPS)), min_size=1, max_size=5), seed=st.integers(0, 2**16))
@example(steps=["sequential", "sequential"], seed=0)  # (a module called twice: torch's numbering of names)
def test_traced_programs_are_torchs(steps, seed):
    rt.manual_seed(seed)
    want_module = _module(rt, steps).eval()
    got_module = _module(mt, steps).eval()
    _same_weights(got_module, want_module)
    want, got = rt.fx.symbolic_trace(want_module), mt.fx.symbolic_trace(got_module)
    assert _nodes(got.graph) == _nodes(want.graph)
    x = np.random.default_rng(seed).standard_normal((3, 4)).astype(np.float32)
    expected = want(rt.tensor(x), bias=0.5).detach().numpy()
    out = got(mt.tensor(x), bias=0.5)
    np.testing.assert_allclose(out.detach().numpy(), expected, rtol=1e-5, atol=1e-6)
    np.testing.assert_array_equal(out.detach().numpy(), got_module(mt.tensor(x), bias=0.5).detach().numpy())


def _model_for_test(T):
    class ModelForTest(T.nn.Module):
        def __init__(self):
            super().__init__()
            self.linear1 = T.nn.Linear(3, 4)
            self.batchnorm = T.nn.BatchNorm1d(4)
            self.linear2 = T.nn.Linear(4, 5)

        def forward(self, x):
            return self.linear2(self.batchnorm(self.linear1(x)))

    return ModelForTest()


def _edit(T, graph_model):
    """accelerate's test_add_remove_hook_fx_graph_module: a sigmoid node after linear2, the output rewired."""
    graph = graph_model.graph
    linear2 = next(n for n in graph.nodes if n.name == "linear2")
    graph.inserting_after(linear2)  # (without `with`: the insert point stays)
    new = graph.create_node(op="call_function", target=T.sigmoid, args=(linear2,), name="relu")
    output = next(n for n in graph.nodes if n.name == "output")
    output.replace_input_with(linear2, new)
    graph.lint()
    graph_model.recompile()
    return new


def test_graph_edits_change_the_forward_as_in_torch():
    results = {}
    for T in (rt, mt):
        T.manual_seed(0)
        model = _model_for_test(T).eval()
        if T is mt:
            _same_weights(model, reference)
        else:
            reference = model
        x = T.tensor(np.arange(6, dtype=np.float32).reshape(2, 3) / 5)
        with T.no_grad():
            graph_model = T.fx.symbolic_trace(model)
            before = graph_model(x)
            _edit(T, graph_model)
            after = graph_model(x)
        # (accelerate's hooks tell a GraphModule by this name; the type's __name__ is the traced class's)
        assert "GraphModuleImpl" in str(type(graph_model)) and type(graph_model).__name__ == "ModelForTest"
        results[T] = (before.numpy(), after.numpy(), _nodes(graph_model.graph))
    for got, want in zip(results[mt], results[rt]):
        if isinstance(want, list):
            assert got == want
        else:
            np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6)
    assert not np.allclose(results[mt][0], results[mt][1])


def test_control_flow_on_a_traced_value_raises_torchs_error():
    class Branchy(mt.nn.Module):
        def forward(self, x):
            return x if x.sum() > 0 else -x

    with pytest.raises(mt.fx.proxy.TraceError, match="control flow"):
        mt.fx.symbolic_trace(Branchy())


def test_graph_building_by_hand_and_dead_code():
    def build(T):
        graph = T.fx.Graph()
        x = graph.placeholder("x")
        y = graph.call_function(operator.mul, (x, 3))
        unused = graph.call_method("exp", (x,))
        z = graph.call_function(T.add, (y, x), {"alpha": 2})
        graph.output(z)
        removed = graph.eliminate_dead_code()
        module = T.fx.GraphModule(T.nn.Module(), graph)
        with pytest.raises(RuntimeError):
            graph.erase_node(y)  # (it still has users)
        return removed, _nodes(graph), module(T.tensor([1.0, -2.0])).tolist(), unused.name

    assert build(mt) == build(rt)


def test_interpreter_runs_the_graph():
    rt.manual_seed(1)
    reference = _model_for_test(rt).eval()
    model = _model_for_test(mt).eval()
    _same_weights(model, reference)
    graph_model = mt.fx.symbolic_trace(model)
    x = np.random.default_rng(0).standard_normal((2, 3)).astype(np.float32)
    got = mt.fx.Interpreter(graph_model).run(mt.tensor(x))
    np.testing.assert_allclose(got.detach().numpy(), reference(rt.tensor(x)).detach().numpy(), rtol=1e-5,
                               atol=1e-6)


def test_lint_finds_a_use_before_definition():
    graph = mt.fx.Graph()
    x = graph.placeholder("x")
    y = graph.call_function(operator.neg, (x,))
    with graph.inserting_before(y):
        graph.call_function(operator.abs, (y,))  # (uses y before y is defined)
    graph.output(y)
    with pytest.raises(RuntimeError, match="used before it has been defined"):
        graph.lint()


def test_varargs_forward_is_refused_clearly():
    class Varargs(mt.nn.Module):
        def forward(self, *xs):
            return xs[0]

    with pytest.raises(NotImplementedError, match="symbolic_trace"):
        mt.fx.symbolic_trace(Varargs())
