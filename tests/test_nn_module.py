"""torch.nn.Module, Parameter, Buffer and the containers: registration, naming, state_dict save/load (strict
errors, assign, overrides, hooks), forward hooks, conversions that keep parameter identity, copies."""
import copy
import os
import pickle
import warnings
from collections import OrderedDict

os.environ.setdefault("GLOG_v", "3")

import numpy as np  # noqa: E402
import pytest  # noqa: E402

import mindnlp_shim.torch as torch  # noqa: E402
from mindnlp_shim.torch.nn.modules.container import (ModuleDict, ModuleList, ParameterDict,  # noqa: E402
                                                     ParameterList, Sequential)
from mindnlp_shim.torch.nn.modules.module import Module, _IncompatibleKeys  # noqa: E402
from mindnlp_shim.torch.nn.parameter import Buffer, Parameter  # noqa: E402

from oracle import require_torch, run_torch  # noqa: E402


def arr(t):
    return np.array(t.asnumpy())


class Affine(Module):
    """x @ weight.T + bias, written with plain tensor math."""

    def __init__(self, n_in, n_out, bias=True):
        super().__init__()
        self.weight = Parameter(torch.randn(n_out, n_in))
        if bias:
            self.bias = Parameter(torch.zeros(n_out))
        else:
            self.register_parameter("bias", None)

    def forward(self, x):
        y = x @ self.weight.T
        return y if self.bias is None else y + self.bias

    def extra_repr(self):
        return f"in_features={self.weight.shape[1]}, out_features={self.weight.shape[0]}"


class Net(Module):
    def __init__(self):
        super().__init__()
        self.scale = Parameter(torch.ones(2, 2))
        self.register_buffer("running", torch.zeros(2))
        self.register_buffer("cache", torch.zeros(2), persistent=False)
        self.encoder = Affine(2, 3)
        self.head = Sequential(Affine(3, 3), Affine(3, 1))

    def forward(self, x):
        return self.head(self.encoder(x))


# ---------------------------------------------------------------- Parameter and Buffer

def test_parameter_is_a_marked_leaf_sharing_storage():
    data = torch.zeros(2, 3)
    p = Parameter(data)
    assert isinstance(p, Parameter) and isinstance(p, torch.Tensor)
    assert not isinstance(data, Parameter)
    assert p.requires_grad and p.is_leaf and p.grad_fn is None
    p.asnumpy()[0, 0] = 5.0  # a write through the parameter is seen by the data it was built from
    assert arr(data)[0, 0] == 5.0
    assert not Parameter(torch.ones(2), requires_grad=False).requires_grad
    empty = Parameter()
    assert tuple(empty.shape) == (0,) and empty.dtype == torch.float32 and isinstance(empty, Parameter)
    assert issubclass(Parameter, torch.Tensor)


def test_parameter_of_integer_data_cannot_require_grad():
    with pytest.raises(RuntimeError, match="floating point and complex"):
        Parameter(torch.ones(2, dtype=torch.int64))
    assert not Parameter(torch.ones(2, dtype=torch.int64), requires_grad=False).requires_grad


def test_parameter_gets_gradients():
    p = Parameter(torch.ones(3))
    (p * torch.tensor([1.0, 2.0, 3.0])).sum().backward()
    np.testing.assert_allclose(arr(p.grad), [1.0, 2.0, 3.0])


def test_deepcopy_and_pickle_keep_parameters():
    p = Parameter(torch.ones(2))
    q = copy.deepcopy(p)
    assert isinstance(q, Parameter) and q.requires_grad and q is not p
    q.asnumpy()[0] = 7.0
    assert arr(p)[0] == 1.0
    r = pickle.loads(pickle.dumps(Parameter(torch.ones(2), requires_grad=False)))
    assert isinstance(r, Parameter) and not r.requires_grad


def test_buffer_marker():
    b = Buffer(torch.ones(2), persistent=False)
    assert isinstance(b, Buffer) and not isinstance(b, Parameter) and b.persistent is False
    assert not isinstance(torch.ones(2), Buffer)
    with pytest.raises(TypeError):
        Buffer(torch.ones(2), False)  # persistent is keyword-only


# ---------------------------------------------------------------- registration and naming

def test_nested_registration_and_names():
    net = Net()
    assert list(net._parameters) == ["scale"]
    assert list(net._buffers) == ["running", "cache"]
    assert net._non_persistent_buffers_set == {"cache"}
    assert list(net._modules) == ["encoder", "head"]
    assert [n for n, _ in net.named_parameters()] == [
        "scale", "encoder.weight", "encoder.bias", "head.0.weight", "head.0.bias", "head.1.weight", "head.1.bias"]
    assert [n for n, _ in net.named_parameters(recurse=False)] == ["scale"]
    assert [n for n, _ in net.named_parameters(prefix="model")][1] == "model.encoder.weight"
    assert [n for n, _ in net.named_buffers()] == ["running", "cache"]
    assert [n for n, _ in net.named_modules()] == ["", "encoder", "head", "head.0", "head.1"]
    assert [n for n, _ in net.named_children()] == ["encoder", "head"]
    assert list(net.children()) == [net.encoder, net.head]
    assert len(list(net.modules())) == 5
    assert net.get_submodule("head.1") is net.head[1]
    assert net.get_parameter("head.0.bias") is net.head[0].bias
    assert net.get_buffer("running") is net.running
    assert net.encoder.weight is net._modules["encoder"]._parameters["weight"]


def test_shared_parameters_and_modules_listed_once():
    net = Net()
    net.head[1].weight = net.head[0].weight  # tied (different shapes do not matter for naming)
    shared = Affine(3, 3)
    net.extra = Sequential(shared, shared)
    names = [n for n, _ in net.named_parameters()]
    assert "head.1.weight" not in names and names.count("extra.0.weight") == 1 and "extra.1.weight" not in names
    all_names = [n for n, _ in net.named_parameters(remove_duplicate=False)]
    assert "head.1.weight" in all_names and "extra.1.weight" in all_names
    assert [n for n, _ in net.named_modules()].count("extra.1") == 0
    assert "extra.1" in [n for n, _ in net.named_modules(remove_duplicate=False)]


def test_setattr_routes_and_reassignment_rules():
    net = Net()
    net.plain = 3
    assert net.__dict__["plain"] == 3
    net.scale = None  # a registered parameter may be set to None
    assert net._parameters["scale"] is None and net.scale is None
    with pytest.raises(TypeError, match=r"cannot assign 'torch.FloatTensor' as parameter 'encoder'|"
                                        r"cannot assign 'torch.FloatTensor' as child module 'encoder'"):
        net.encoder = torch.ones(2)
    with pytest.raises(TypeError, match=r"cannot assign 'int' as buffer 'running' \(torch.nn.Buffer, "
                                        r"torch.Tensor or None expected\)"):
        net.running = 3
    net.running = torch.ones(2)  # a plain tensor replaces a buffer and stays a (persistent) buffer
    assert net._buffers["running"] is net.running and "running" in net.state_dict()
    net.cache = torch.ones(2)
    assert "cache" in net._non_persistent_buffers_set
    net.newbuf = Buffer(torch.ones(2), persistent=False)
    assert "newbuf" in net._buffers and "newbuf" in net._non_persistent_buffers_set
    net.p2 = Parameter(torch.ones(1))
    assert "p2" in net._parameters
    with pytest.raises(TypeError, match="cannot assign 'torch.FloatTensor' as parameter 'p2'"):
        net.p2 = torch.ones(1)
    # a module assigned over a plain attribute removes the attribute
    net.plain = Affine(1, 1)
    assert "plain" not in net.__dict__ and "plain" in net._modules
    del net.plain
    del net.p2
    del net.running
    assert "plain" not in net._modules and "p2" not in net._parameters and "running" not in net._buffers
    with pytest.raises(AttributeError, match="'Net' object has no attribute 'nothing'"):
        net.nothing


def test_registration_errors():
    net = Net()
    with pytest.raises(KeyError, match="attribute 'scale' already exists"):
        net.register_buffer("scale", torch.ones(1))
    with pytest.raises(KeyError, match="parameter name can.*contain"):
        net.register_parameter("a.b", Parameter(torch.ones(1)))
    with pytest.raises(KeyError, match="empty string"):
        net.register_buffer("", torch.ones(1))
    with pytest.raises(TypeError, match=r"cannot assign 'torch.FloatTensor' object to parameter 'x' "
                                        r"\(torch.nn.Parameter or None required\)"):
        net.register_parameter("x", torch.ones(2))
    with pytest.raises(TypeError, match="int is not a Module subclass"):
        net.add_module("m", 3)
    with pytest.raises(TypeError, match="object to buffer"):
        net.register_buffer("b2", [1, 2])
    with pytest.raises(AttributeError, match="Affine has no attribute `nope`"):
        net.get_submodule("encoder.nope")
    with pytest.raises(AttributeError, match="`weight` is not an nn.Module"):
        net.get_submodule("encoder.weight")
    with pytest.raises(AttributeError, match="`running` is not an nn.Parameter"):
        net.get_parameter("running")
    with pytest.raises(AttributeError, match="`scale` is not a buffer"):
        net.get_buffer("scale")

    class Early(Module):
        def __init__(self):
            self.w = Parameter(torch.ones(1))

    with pytest.raises(AttributeError, match=r"cannot assign parameters before Module.__init__\(\) call"):
        Early()
    with pytest.raises(TypeError, match="takes 1 positional argument"):
        Module(3)
    with pytest.raises(NotImplementedError, match='missing the required "forward" function'):
        Module()(1)


def test_set_submodule_and_register_module():
    net = Net()
    new = Affine(3, 1)
    net.set_submodule("head.1", new)
    assert net.head[1] is new
    with pytest.raises(ValueError, match="not an nn.Module"):
        net.set_submodule("head.1", 3)
    with pytest.raises(AttributeError, match="has no attribute"):
        net.set_submodule("head.missing", Affine(1, 1), strict=True)
    net.register_module("tail", Affine(1, 1))
    assert "tail" in net._modules


def test_dir_lists_members():
    names = dir(Net())
    for expected in ("scale", "running", "encoder", "head", "forward", "state_dict"):
        assert expected in names
    assert "0" not in dir(Sequential(Affine(1, 1)))


# ---------------------------------------------------------------- modes, grads

def test_train_eval_apply_recurse():
    net = Net()
    assert net.training and net.head[0].training
    assert net.eval() is net
    assert not any(m.training for m in net.modules())
    net.train()
    assert all(m.training for m in net.modules())
    with pytest.raises(ValueError, match="training mode is expected to be boolean"):
        net.train(1)
    visited = []
    assert net.apply(lambda m: visited.append(type(m).__name__)) is net
    assert visited == ["Affine", "Affine", "Affine", "Sequential", "Net"]  # children first, like torch


def test_requires_grad_and_zero_grad():
    net = Net()
    net.requires_grad_(False)
    assert not any(p.requires_grad for p in net.parameters())
    net.requires_grad_()
    assert all(p.requires_grad for p in net.parameters())
    net(torch.randn(4, 2)).sum().backward()
    assert net.encoder.weight.grad is not None
    w = net.encoder.weight
    net.zero_grad(set_to_none=False)
    assert w.grad is not None and not arr(w.grad).any()
    net.zero_grad()
    assert all(p.grad is None for p in net.parameters())


def test_forward_gradients_flow_to_all_parameters():
    net = Net()
    x = torch.randn(5, 2)
    net(x).sum().backward()
    expected = {"encoder.weight", "encoder.bias", "head.0.weight", "head.0.bias", "head.1.weight", "head.1.bias"}
    assert {n for n, p in net.named_parameters() if p.grad is not None} == expected
    # head.1.bias gets d(sum)/d(bias) = number of rows
    np.testing.assert_allclose(arr(net.head[1].bias.grad), [5.0])


# ---------------------------------------------------------------- state_dict

def test_state_dict_contents_and_metadata():
    net = Net()
    sd = net.state_dict()
    assert isinstance(sd, OrderedDict)
    assert list(sd) == ["scale", "running", "encoder.weight", "encoder.bias", "head.0.weight", "head.0.bias",
                        "head.1.weight", "head.1.bias"]
    assert "cache" not in sd  # non-persistent buffer
    assert sd._metadata == OrderedDict([("", {"version": 1}), ("encoder", {"version": 1}), ("head", {"version": 1}),
                                        ("head.0", {"version": 1}), ("head.1", {"version": 1})])
    # detached values that share storage with the parameters
    assert sd["scale"] is not net.scale and not isinstance(sd["scale"], Parameter) and not sd["scale"].requires_grad
    net.scale.asnumpy()[0, 0] = 9.0
    assert arr(sd["scale"])[0, 0] == 9.0
    kept = net.state_dict(keep_vars=True)
    assert kept["scale"] is net.scale and kept["running"] is net.running
    prefixed = net.state_dict(prefix="model.")
    assert "model.encoder.weight" in prefixed and "model" in prefixed._metadata


def test_state_dict_hooks():
    net = Net()
    calls = []
    pre = net.register_state_dict_pre_hook(lambda m, prefix, keep_vars: calls.append(("pre", prefix, keep_vars)))

    def post(module, state_dict, prefix, local_metadata):
        calls.append(("post", prefix))
        state_dict[prefix + "added"] = torch.ones(1)

    net.encoder.register_state_dict_post_hook(post)
    sd = net.state_dict()
    assert ("pre", "", False) in calls and ("post", "encoder.") in calls and "encoder.added" in sd
    pre.remove()
    calls.clear()
    net.state_dict()
    assert [c[0] for c in calls] == ["post"]

    net2 = Net()
    net2._register_state_dict_hook(lambda m, sd, prefix, meta: OrderedDict(only=torch.ones(1)))
    assert list(net2.state_dict()) == ["only"]  # the private hook may replace the dict

    net3 = Net()
    net3.register_state_dict_post_hook(lambda m, sd, prefix, meta: {})
    with pytest.raises(RuntimeError, match="state_dict post-hook must return None"):
        net3.state_dict()


def test_extra_state_round_trip():
    class WithExtra(Affine):
        def __init__(self):
            super().__init__(1, 1)
            self.note = "a"

        def get_extra_state(self):
            return {"note": self.note}

        def set_extra_state(self, state):
            self.note = state["note"]

    src = WithExtra()
    src.note = "b"
    sd = src.state_dict()
    assert sd["_extra_state"] == {"note": "b"}
    dst = WithExtra()
    dst.load_state_dict(sd)
    assert dst.note == "b"
    with pytest.raises(RuntimeError, match=r'Missing key\(s\) in state_dict: "_extra_state"'):
        dst.load_state_dict({"weight": torch.ones(1, 1), "bias": torch.ones(1)})


# ---------------------------------------------------------------- load_state_dict

def test_load_copies_into_existing_parameters():
    src, dst = Net(), Net()
    scale, weight = dst.scale, dst.encoder.weight
    result = dst.load_state_dict(src.state_dict())
    assert isinstance(result, _IncompatibleKeys) and result == ([], [])
    assert repr(result) == "<All keys matched successfully>"
    assert dst.scale is scale and dst.encoder.weight is weight  # same objects, new values
    np.testing.assert_array_equal(arr(dst.encoder.weight), arr(src.encoder.weight))
    assert dst.encoder.weight.requires_grad and isinstance(dst.encoder.weight, Parameter)


def test_load_casts_to_parameter_dtype():
    dst = Affine(2, 2)
    dst.load_state_dict({"weight": torch.ones(2, 2, dtype=torch.float64), "bias": torch.zeros(2, dtype=torch.float64)})
    assert dst.weight.dtype == torch.float32
    np.testing.assert_array_equal(arr(dst.weight), np.ones((2, 2), np.float32))


def test_strict_load_error_message_matches_torch_wording():
    net = Net()
    with pytest.raises(RuntimeError) as info:
        net.load_state_dict({"scale": torch.ones(3), "extra": torch.ones(1)})
    assert str(info.value) == (
        "Error(s) in loading state_dict for Net:\n"
        '\tMissing key(s) in state_dict: "running", "encoder.weight", "encoder.bias", "head.0.weight", '
        '"head.0.bias", "head.1.weight", "head.1.bias". \n'
        '\tUnexpected key(s) in state_dict: "extra". \n'
        "\tsize mismatch for scale: copying a param with shape torch.Size([3]) from checkpoint, the shape in "
        "current model is torch.Size([2, 2]).")


def test_strict_load_message_equals_real_torch():
    require_torch()
    expected = run_torch("""
        import torch
        from torch import nn
        class Affine(nn.Module):
            def __init__(self, i, o):
                super().__init__()
                self.weight = nn.Parameter(torch.randn(o, i)); self.bias = nn.Parameter(torch.zeros(o))
        class Net(nn.Module):
            def __init__(self):
                super().__init__()
                self.scale = nn.Parameter(torch.ones(2, 2))
                self.register_buffer("running", torch.zeros(2))
                self.register_buffer("cache", torch.zeros(2), persistent=False)
                self.encoder = Affine(2, 3)
                self.head = nn.Sequential(Affine(3, 3), Affine(3, 1))
        try:
            Net().load_state_dict({"scale": torch.ones(3), "encoder.weight": "x", "head.2.bias": torch.ones(1)})
        except RuntimeError as e:
            print(repr(str(e)))
        print(repr(Net().load_state_dict({"scale": torch.ones(2, 2), "zzz": torch.ones(1)}, strict=False)))
    """).splitlines()
    net = Net()
    with pytest.raises(RuntimeError) as info:
        net.load_state_dict({"scale": torch.ones(3), "encoder.weight": "x", "head.2.bias": torch.ones(1)})
    assert repr(str(info.value)) == expected[0]
    assert repr(Net().load_state_dict({"scale": torch.ones(2, 2), "zzz": torch.ones(1)}, strict=False)) == expected[1]


def test_non_strict_load_reports_keys():
    net = Net()
    result = net.load_state_dict({"scale": torch.zeros(2, 2), "bogus.key": torch.ones(1)}, strict=False)
    assert result.unexpected_keys == ["bogus.key"]
    assert "encoder.weight" in result.missing_keys and "running" in result.missing_keys
    assert not arr(net.scale).any()
    # torch reports missing/unexpected keys only in strict mode, so non-strict loading stays silent about them
    with pytest.raises(TypeError, match="Expected state_dict to be dict-like"):
        net.load_state_dict([("scale", torch.ones(2, 2))])


def test_assign_load_replaces_parameters_and_keeps_requires_grad():
    net = Affine(2, 2)
    net.weight.requires_grad_(False)
    old_weight = net.weight
    new_weight, new_bias = torch.full((2, 2), 3.0), torch.full((2,), 4.0)
    net.load_state_dict({"weight": new_weight, "bias": new_bias}, assign=True)
    assert net.weight is not old_weight and isinstance(net.weight, Parameter) and isinstance(net.bias, Parameter)
    assert not net.weight.requires_grad and net.bias.requires_grad
    new_weight.asnumpy()[0, 0] = 8.0  # assign shares the checkpoint tensor's storage, as torch does
    assert arr(net.weight)[0, 0] == 8.0


def test_load_from_state_dict_override_is_honoured():
    class Renamed(Affine):
        """Accepts an old checkpoint layout where the weight was called 'w'."""

        def _load_from_state_dict(self, state_dict, prefix, local_metadata, strict, missing_keys,
                                  unexpected_keys, error_msgs):
            if prefix + "w" in state_dict:
                state_dict[prefix + "weight"] = state_dict.pop(prefix + "w")
            super()._load_from_state_dict(state_dict, prefix, local_metadata, strict, missing_keys,
                                          unexpected_keys, error_msgs)

    outer = Sequential(Renamed(2, 2))
    outer.load_state_dict({"0.w": torch.full((2, 2), 2.0), "0.bias": torch.zeros(2)})
    np.testing.assert_array_equal(arr(outer[0].weight), np.full((2, 2), 2.0, np.float32))


def test_load_hooks():
    net = Net()
    seen = []

    def pre(module, state_dict, prefix, local_metadata, strict, missing, unexpected, errors):
        seen.append(("pre", type(module).__name__, prefix, local_metadata.get("version")))
        state_dict.pop(prefix + "obsolete", None)

    def old_style_pre(state_dict, prefix, local_metadata, strict, missing, unexpected, errors):
        seen.append(("old", prefix))

    def post(module, incompatible):
        seen.append(("post", type(module).__name__))
        incompatible.unexpected_keys.clear()  # a post hook may forgive keys in place

    net.encoder.register_load_state_dict_pre_hook(pre)
    net.encoder._register_load_state_dict_pre_hook(old_style_pre)
    net.register_load_state_dict_post_hook(post)
    sd = net.state_dict()
    sd["encoder.obsolete"] = torch.ones(1)
    sd["stray"] = torch.ones(1)
    result = net.load_state_dict(sd)
    assert result.unexpected_keys == []
    assert ("pre", "Affine", "encoder.", 1) in seen and ("old", "encoder.") in seen and ("post", "Net") in seen

    net.register_load_state_dict_post_hook(lambda m, keys: "not none")
    with pytest.raises(RuntimeError, match="not expected to return new values"):
        net.load_state_dict(net.state_dict())


# ---------------------------------------------------------------- forward hooks and calling

def test_forward_pre_hooks_and_hooks():
    net = Affine(2, 2)
    order = []
    h1 = net.register_forward_pre_hook(lambda m, args: (args[0] * 0,))
    h2 = net.register_forward_hook(lambda m, args, out: out + 1)
    net.register_forward_hook(lambda m, args, out: order.append("second"))
    net.register_forward_hook(lambda m, args, out: order.append("first"), prepend=True)
    out = net(torch.ones(1, 2))
    np.testing.assert_allclose(arr(out), np.ones((1, 2)) + arr(net.bias))  # input zeroed, output + 1
    assert order == ["first", "second"]
    h1.remove()
    h2.remove()
    np.testing.assert_allclose(arr(net(torch.zeros(1, 2))), arr(net.bias)[None])


def test_forward_hooks_with_kwargs():
    class Scaled(Module):
        def forward(self, x, scale=1.0):
            return x * scale

    m = Scaled()
    m.register_forward_pre_hook(lambda mod, args, kwargs: (args, {"scale": 3.0}), with_kwargs=True)
    captured = {}
    m.register_forward_hook(lambda mod, args, kwargs, out: captured.update(kwargs=kwargs), with_kwargs=True)
    np.testing.assert_allclose(arr(m(torch.ones(2), scale=2.0)), [3.0, 3.0])
    assert captured["kwargs"] == {"scale": 3.0}
    m.register_forward_pre_hook(lambda mod, args, kwargs: "bad", with_kwargs=True)
    with pytest.raises(RuntimeError, match="forward pre-hook must return None or a tuple"):
        m(torch.ones(2))


def test_always_call_hook_runs_when_forward_raises():
    class Failing(Module):
        def forward(self, x):
            raise ValueError("boom")

    m = Failing()
    calls = []
    m.register_forward_hook(lambda mod, args, out: calls.append("always"), always_call=True)
    m.register_forward_hook(lambda mod, args, out: calls.append("normal"))
    with pytest.raises(ValueError, match="boom"):
        m(torch.ones(1))
    assert calls == ["always"]


def test_instance_forward_override_is_called():
    net = Affine(2, 2)
    net.forward = lambda x: x * 10  # accelerate's hooks replace forward on the instance
    np.testing.assert_allclose(arr(net(torch.ones(2))), [10.0, 10.0])


def test_global_legacy_backward_hook_raises_clearly():
    # (full backward hooks: tests/test_full_backward_hooks.py)
    with pytest.raises(NotImplementedError, match="register_module_backward_hook"):
        torch.nn.modules.module.register_module_backward_hook(lambda *a: None)


# ---------------------------------------------------------------- conversions

def test_dtype_conversion_keeps_parameter_objects_and_grads():
    net = Net()
    net(torch.randn(3, 2)).sum().backward()
    weight = net.encoder.weight
    assert net.double() is net
    assert net.encoder.weight is weight and isinstance(weight, Parameter) and weight.requires_grad
    assert weight.dtype == torch.float64 and weight.grad.dtype == torch.float64
    assert net.running.dtype == torch.float64 and net.cache.dtype == torch.float64
    # training continues in the new dtype, accumulating into the converted grad
    before = arr(weight.grad).copy()
    net(torch.randn(3, 2, dtype=torch.float64)).sum().backward()
    assert weight.grad.dtype == torch.float64 and not np.allclose(arr(weight.grad), before)
    net.half()
    assert weight.dtype == torch.float16
    # every op sees the new dtype, including MindSpore primitives that infer from cached tensor types
    rows = torch.tensor([0, 1])
    assert weight[rows].dtype == torch.float16 and weight.mean().dtype == torch.float16
    assert torch.nn.functional.embedding(rows, weight).dtype == torch.float16
    net.to(torch.float32)
    assert weight.dtype == torch.float32
    net.to(dtype=torch.bfloat16)
    assert weight.dtype == torch.bfloat16
    net.float()
    assert weight.dtype == torch.float32 and net.encoder.weight is weight


def test_to_leaves_integer_buffers_and_rejects_integer_dtypes():
    net = Net()
    net.register_buffer("steps", torch.zeros(1, dtype=torch.int64))
    net.to(torch.float64)
    assert net.steps.dtype == torch.int64 and net.scale.dtype == torch.float64
    with pytest.raises(TypeError, match="nn.Module.to only accepts floating point or complex dtypes, but got "
                                        "desired dtype=torch.int64"):
        net.to(torch.int64)
    assert net.to("cpu") is net and net.cpu() is net
    assert net.to(torch.zeros(1, dtype=torch.float32)).scale.dtype == torch.float32
    assert net.share_memory() is net


def test_to_empty_keeps_parameters():
    net = Affine(3, 2)
    weight = net.weight
    assert net.to_empty(device="cpu") is net
    assert net.weight is weight and tuple(weight.shape) == (2, 3) and isinstance(weight, Parameter)


def test_type_converts_all_tensors():
    net = Affine(2, 2)
    net.type(torch.float64)
    assert net.weight.dtype == torch.float64 and isinstance(net.weight, Parameter)


# ---------------------------------------------------------------- copies and pickling

def test_deepcopy_module_gives_independent_parameters():
    net = Net()
    net.encoder.weight.grad = torch.ones(3, 2)
    clone = copy.deepcopy(net)
    for (name, p), (_, q) in zip(net.named_parameters(), clone.named_parameters()):
        assert isinstance(q, Parameter) and q is not p and q.requires_grad == p.requires_grad, name
        np.testing.assert_array_equal(arr(p), arr(q))
    clone.encoder.weight.asnumpy()[...] = 0.0
    assert arr(net.encoder.weight).any()
    assert clone._non_persistent_buffers_set == {"cache"}
    # tied weights stay tied inside the copy
    net.head[1].weight = net.head[0].weight
    tied = copy.deepcopy(net)
    assert tied.head[1].weight is tied.head[0].weight


def test_pickle_module_round_trip():
    net = Net()
    back = pickle.loads(pickle.dumps(net))
    assert isinstance(back.encoder.weight, Parameter) and back.encoder.weight.requires_grad
    np.testing.assert_array_equal(arr(back.encoder.weight), arr(net.encoder.weight))
    np.testing.assert_allclose(arr(back(torch.ones(1, 2))), arr(net(torch.ones(1, 2))), rtol=1e-6)


# ---------------------------------------------------------------- repr

def test_repr_format():
    assert repr(Net()) == (
        "Net(\n"
        "  (encoder): Affine(in_features=2, out_features=3)\n"
        "  (head): Sequential(\n"
        "    (0): Affine(in_features=3, out_features=3)\n"
        "    (1): Affine(in_features=3, out_features=1)\n"
        "  )\n"
        ")")
    assert repr(Sequential()) == "Sequential()"
    assert repr(ModuleList([Affine(1, 1), Affine(1, 1), Affine(2, 1), Affine(1, 1)])) == (
        "ModuleList(\n"
        "  (0-1): 2 x Affine(in_features=1, out_features=1)\n"
        "  (2): Affine(in_features=2, out_features=1)\n"
        "  (3): Affine(in_features=1, out_features=1)\n"
        ")")


# ---------------------------------------------------------------- containers

def test_sequential():
    a, b, c = Affine(2, 2), Affine(2, 2), Affine(2, 2)
    seq = Sequential(a, b)
    assert len(seq) == 2 and seq[0] is a and seq[-1] is b and list(seq) == [a, b]
    x = torch.randn(1, 2)
    np.testing.assert_allclose(arr(seq(x)), arr(b(a(x))), rtol=1e-6)
    seq.append(c)
    assert seq[2] is c
    sliced = seq[1:]
    assert isinstance(sliced, Sequential) and list(sliced) == [b, c] and list(sliced._modules) == ["1", "2"]
    seq.insert(0, c)
    assert list(seq) == [c, a, b, c] and list(seq._modules) == ["0", "1", "2", "3"]
    del seq[0]
    assert list(seq) == [a, b, c] and list(seq._modules) == ["0", "1", "2"]
    seq[1] = c
    assert seq[1] is c
    assert seq.pop(1) is c and len(seq) == 2
    combined = seq + Sequential(b)
    assert list(combined) == [a, c, b] and len(seq) == 2
    with pytest.raises(ValueError, match="add operator supports only objects of Sequential class"):
        seq + 3
    seq.extend([b])
    assert len(seq) == 3
    with pytest.raises(IndexError, match="index 5 is out of range"):
        seq[5]
    named = Sequential(OrderedDict([("first", a), ("second", b)]))
    assert named.first is a and [n for n, _ in named.named_children()] == ["first", "second"]
    assert len(Sequential(a) * 3) == 3


def test_module_list():
    mods = [Affine(1, 1) for _ in range(3)]
    ml = ModuleList(mods[:2])
    ml.append(mods[2])
    assert len(ml) == 3 and list(ml) == mods and ml[-1] is mods[2]
    assert [n for n, _ in ml.named_parameters()][:2] == ["0.weight", "0.bias"]
    extra = Affine(1, 1)
    ml.insert(1, extra)
    assert list(ml) == [mods[0], extra, mods[1], mods[2]]
    del ml[1]
    assert list(ml) == mods and list(ml._modules) == ["0", "1", "2"]
    assert isinstance(ml[1:], ModuleList) and list(ml[1:]) == mods[1:]
    ml += [Affine(1, 1)]
    assert len(ml) == 4
    ml[0] = extra
    assert ml[0] is extra
    assert len(ml + ModuleList([Affine(1, 1)])) == 5
    with pytest.raises(IndexError):
        ml[10]
    with pytest.raises(TypeError, match="ModuleList.extend should be called with an iterable"):
        ml.extend(3)
    with pytest.raises(NotImplementedError):
        ml(torch.ones(1))


def test_module_dict():
    a, b = Affine(1, 1), Affine(1, 1)
    md = ModuleDict({"a": a})
    md["b"] = b
    assert "a" in md and len(md) == 2 and list(md) == ["a", "b"] and md["b"] is b
    assert list(md.keys()) == ["a", "b"] and list(md.values()) == [a, b]
    assert [n for n, _ in md.named_parameters()] == ["a.weight", "a.bias", "b.weight", "b.bias"]
    assert md.pop("a") is a and list(md) == ["b"]
    md.update([("c", Affine(1, 1))])
    assert list(md) == ["b", "c"]
    with pytest.raises(ValueError, match="has length 3; 2 is required"):
        md.update([("x", 1, 2)])
    md.clear()
    assert len(md) == 0


def test_parameter_list():
    pl = ParameterList([Parameter(torch.ones(2, 3)), torch.zeros(2, dtype=torch.float64)])
    assert len(pl) == 2 and all(isinstance(p, Parameter) for p in pl)  # tensors are wrapped as parameters
    assert [n for n, _ in pl.named_parameters()] == ["0", "1"]
    pl.append(torch.ones(1))
    assert len(pl) == 3 and isinstance(pl[-1], Parameter)
    pl.extend([torch.ones(1)])
    assert len(pl) == 4
    assert repr(ParameterList([Parameter(torch.ones(2, 3)), Parameter(torch.ones(2, dtype=torch.float64))])) == (
        "ParameterList(\n"
        "    (0): Parameter containing: [torch.float32 of size 2x3]\n"
        "    (1): Parameter containing: [torch.float64 of size 2]\n"
        ")")
    with pytest.raises(RuntimeError, match="ParameterList should not be called"):
        pl()


def test_parameter_dict():
    pd = ParameterDict({"b": Parameter(torch.ones(1)), "a": torch.ones(2)})
    assert list(pd) == ["a", "b"]  # plain dicts are taken in sorted key order, as in torch
    assert isinstance(pd["a"], Parameter) and "a" in pd and len(pd) == 2
    pd["c"] = torch.zeros(3)
    assert [n for n, _ in pd.named_parameters()] == ["a", "b", "c"]
    assert [k for k, _ in pd.items()] == ["a", "b", "c"]
    assert pd.get("zz") is None and pd.pop("c").shape == (3,)
    assert "c" not in pd and "c" not in pd._parameters
    with pytest.raises(TypeError, match="not a string"):
        pd[1] = torch.ones(1)
    assert repr(ParameterDict({"a": Parameter(torch.ones(2, 3))})) == (
        "ParameterDict(  (a): Parameter containing: [torch.FloatTensor of size 2x3])")


def test_container_state_dict_round_trip():
    src = ModuleDict({"x": Sequential(Affine(2, 2)), "y": ModuleList([Affine(2, 1)])})
    dst = ModuleDict({"x": Sequential(Affine(2, 2)), "y": ModuleList([Affine(2, 1)])})
    assert list(src.state_dict()) == ["x.0.weight", "x.0.bias", "y.0.weight", "y.0.bias"]
    dst.load_state_dict(src.state_dict())
    np.testing.assert_array_equal(arr(dst["y"][0].weight), arr(src["y"][0].weight))


def test_state_dict_positional_args_warn():
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        sd = Affine(1, 1).state_dict(None, "p.")
    assert "p.weight" in sd and any(issubclass(w.category, FutureWarning) for w in caught)
