"""torch.distributed.fsdp.FullyShardedDataParallel against real torch's FSDP on a one-process gloo group (a
HashStore, as peft's tests set it up), in the same process: generated small models, wrapped with and without an
auto-wrap policy, give torch's parameter, module and buffer names, state-dict keys (in order), repr, forward
outputs, clipped gradient norms and parameters after AdamW steps; state dicts and optimizer state dicts round-trip;
the options not provided raise NotImplementedError."""
import functools
import warnings

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import mindnlp_shim.torch as mt
import mindnlp_shim.torch.distributed.fsdp.wrap  # noqa: F401
from conftest import SUBPROCESS_FLAG, real_torch, subprocess_fallback

rt = real_torch()
if rt is None:
    globals()[SUBPROCESS_FLAG] = True
    test_whole_module_in_subprocess = subprocess_fallback(__file__)
else:
    import torch.distributed.fsdp.wrap  # noqa: F401

POLICIES = ["none", "module", "transformer", "size", "lambda", "always", "custom"]


@pytest.fixture(autouse=True, scope="module")
def one_process_groups():
    if rt is None:
        yield
        return
    for T in (rt, mt):
        T.distributed.init_process_group("gloo", store=T.distributed.HashStore(), rank=0, world_size=1)
    try:
        yield
    finally:
        for T in (rt, mt):
            T.distributed.destroy_process_group()


def build(T, spec):
    """A small network (embedding layer, blocks, head, a buffer) of `spec` and its Block class."""
    nn = T.nn

    class Block(nn.Module):
        def __init__(self, width, bias, norm, buffer):
            super().__init__()
            self.proj = nn.Linear(width, width, bias=bias)
            self.norm = nn.LayerNorm(width) if norm else None
            if buffer:
                self.register_buffer("shift", T.full((width,), 0.25))
            else:
                self.shift = None

        def forward(self, x):
            h = x if self.norm is None else self.norm(x)
            x = x + T.relu(self.proj(h))
            return x if self.shift is None else x + self.shift

    class Net(nn.Module):
        def __init__(self):
            super().__init__()
            self.embed = nn.Linear(spec["inputs"], spec["width"])
            self.blocks = nn.ModuleList([Block(spec["width"], *b) for b in spec["blocks"]])
            self.head = nn.Linear(spec["width"], spec["outputs"])
            self.register_buffer("offset", T.linspace(-1.0, 1.0, spec["outputs"]))

        def forward(self, x):
            x = self.embed(x)
            for block in self.blocks:
                x = block(x)
            return self.head(x) + self.offset

    return Net, Block


def policy_for(T, name, block_cls, min_params):
    wrap = T.distributed.fsdp.wrap
    return {
        "none": None,
        "module": wrap.ModuleWrapPolicy({block_cls}),
        "transformer": functools.partial(wrap.transformer_auto_wrap_policy, transformer_layer_cls={block_cls}),
        "size": functools.partial(wrap.size_based_auto_wrap_policy, min_num_params=min_params),
        "lambda": functools.partial(wrap.lambda_auto_wrap_policy,
                                    lambda_fn=lambda m: isinstance(m, T.nn.Linear) and m.bias is not None),
        "always": wrap.always_wrap_policy,
        "custom": wrap.CustomPolicy(lambda m: isinstance(m, T.nn.LayerNorm)),
    }[name]


def make_pair(spec, policy="none", min_params=10, freeze=False):
    """The same network (real torch's initial weights in both) wrapped by real torch's FSDP and the shim's."""
    rt.manual_seed(spec.get("seed", 0))
    nets = {}
    for T in (rt, mt):
        Net, Block = build(T, spec)
        nets[T] = (Net(), Block)
    nets[mt][0].load_state_dict({k: mt.tensor(v.numpy()) for k, v in nets[rt][0].state_dict().items()})
    models = {}
    for T, (net, Block) in nets.items():
        if freeze:
            net.embed.bias.requires_grad_(False)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            models[T] = T.distributed.fsdp.FullyShardedDataParallel(
                net, use_orig_params=True, device_id="cpu",
                auto_wrap_policy=policy_for(T, policy, Block, min_params))
    return models[rt], models[mt]


blocks = st.lists(st.tuples(st.booleans(), st.booleans(), st.booleans()), min_size=1, max_size=3)
specs = st.fixed_dictionaries({"inputs": st.integers(1, 4), "width": st.integers(3, 6), "outputs": st.integers(1, 3),
                               "blocks": blocks, "seed": st.integers(0, 2**16)})


def numpy(t):
    return np.array(t.detach().float().numpy())


def names(pairs):
    return [name for name, _ in pairs]


@settings(max_examples=30, deadline=None)
@given(specs, st.sampled_from(POLICIES), st.integers(1, 60))
def test_names_keys_and_structure_match_torch(spec, policy, min_params):
    theirs, ours = make_pair(spec, policy, min_params)
    assert names(ours.named_parameters()) == names(theirs.named_parameters())
    assert names(ours.named_modules()) == names(theirs.named_modules())
    assert names(ours.named_buffers()) == names(theirs.named_buffers())
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert list(ours.state_dict()) == list(theirs.state_dict())
    assert repr(ours) == repr(theirs)
    FSDP_rt, FSDP_mt = rt.distributed.fsdp.FullyShardedDataParallel, mt.distributed.fsdp.FullyShardedDataParallel
    assert len(FSDP_mt.fsdp_modules(ours)) == len(FSDP_rt.fsdp_modules(theirs))
    assert len(FSDP_mt.fsdp_modules(ours, root_only=True)) == len(FSDP_rt.fsdp_modules(theirs, root_only=True)) == 1
    with FSDP_rt.summon_full_params(theirs), FSDP_mt.summon_full_params(ours):
        assert names(ours.named_parameters()) == names(theirs.named_parameters())
        assert names(ours.named_buffers()) == names(theirs.named_buffers())


@settings(max_examples=20, deadline=None, derandomize=True, database=None)
@given(specs, st.sampled_from(POLICIES), st.sampled_from([0.05, 0.5, 100.0]),
       st.sampled_from([2.0, 1.0, float("inf"), 3.0]), st.booleans())
def test_forward_clipping_and_adamw_steps_match_torch(spec, policy, max_norm, norm_type, freeze):
    theirs, ours = make_pair(spec, policy, min_params=12, freeze=freeze)
    # the same network unwrapped, trained with torch.nn.utils.clip_grad_norm_: FSDP must change no number
    Net, _ = build(mt, spec)
    plain = Net()
    plain.load_state_dict(ours.state_dict())
    if freeze:
        plain.embed.bias.requires_grad_(False)
    x = np.random.default_rng(spec["seed"]).standard_normal((3, spec["inputs"])).astype(np.float32)
    # AdamW moves a parameter by about lr * g / (|g| + eps): with torch's eps of 1e-8 a gradient near zero (a sum
    # that cancels) moves it by up to lr whatever its rounding; eps=1e-3 keeps that move in proportion
    adamw = dict(lr=0.05, weight_decay=0.01, eps=1e-3)
    optims = {rt: rt.optim.AdamW(theirs.parameters(), **adamw), mt: mt.optim.AdamW(ours.parameters(), **adamw),
              "plain": mt.optim.AdamW(plain.parameters(), **adamw)}
    for step in range(2):
        atol = 1e-6 if step == 0 else 1e-5
        results = {}
        for key, T, model in ((rt, rt, theirs), (mt, mt, ours), ("plain", mt, plain)):
            out = model(T.tensor(x))
            loss = (out * out).mean()
            loss.backward()
            if key == "plain":
                norm = mt.nn.utils.clip_grad_norm_(plain.parameters(), max_norm, norm_type=norm_type)
            else:
                norm = model.clip_grad_norm_(max_norm, norm_type=norm_type)
            grads = {n.replace("_fsdp_wrapped_module.", ""): numpy(p.grad)
                     for n, p in model.named_parameters() if p.grad is not None}
            optims[key].step()
            optims[key].zero_grad()
            results[key] = (numpy(out), float(norm), grads)
        np.testing.assert_allclose(results[mt][0], results[rt][0], rtol=1e-5, atol=atol)
        # after a step, AdamW's g / (|g| + eps) turns one float32 ulp of a small gradient into up to ~250x that in the
        # parameters (measured: a second-step norm 1.2e-5 relative apart): step 1 on is compared to 5e-5
        assert results[mt][1] == pytest.approx(results[rt][1], rel=1e-5 if step == 0 else 5e-5, abs=1e-7)
        assert results[mt][2].keys() == results[rt][2].keys() == results["plain"][2].keys()
        for name in results[rt][2]:
            np.testing.assert_allclose(results[mt][2][name], results[rt][2][name], rtol=1e-5, atol=atol)
            np.testing.assert_array_equal(results[mt][2][name], results["plain"][2][name])
        np.testing.assert_array_equal(results[mt][0], results["plain"][0])
        assert results[mt][1] == results["plain"][1]
    plain_params = dict(plain.named_parameters())
    for (name, p_rt), (name_mt, p_mt) in zip(theirs.named_parameters(), ours.named_parameters()):
        assert name == name_mt
        np.testing.assert_allclose(numpy(p_mt), numpy(p_rt), rtol=1e-5, atol=1e-5, err_msg=name)
        np.testing.assert_array_equal(numpy(p_mt), numpy(plain_params[name.replace("_fsdp_wrapped_module.", "")]))
    with rt.no_grad(), mt.no_grad():
        # (two AdamW steps in: see the step-1 tolerance above; a drawn case's output was 1.2e-5 apart at 0.156)
        np.testing.assert_allclose(numpy(ours(mt.tensor(x))), numpy(theirs(rt.tensor(x))), rtol=5e-5, atol=5e-5)


SPEC = {"inputs": 3, "width": 4, "outputs": 2, "blocks": [(True, True, True), (False, False, True)], "seed": 3}


@pytest.mark.parametrize("policy", ["none", "module"])
def test_state_dict_round_trip_and_load_errors_match_torch(policy):
    theirs, ours = make_pair(SPEC, policy)
    x = np.linspace(-1, 1, 6, dtype=np.float32).reshape(2, 3)
    state = ours.state_dict()
    # the full state dict loads into the unwrapped network and gives the wrapped one's outputs
    Net, _ = build(mt, SPEC)
    plain = Net()
    plain.load_state_dict(state)
    with mt.no_grad():
        np.testing.assert_allclose(numpy(plain(mt.tensor(x))), numpy(ours(mt.tensor(x))), rtol=0, atol=0)
    # and the wrapped one takes the clean keys back; missing and unexpected keys are named as torch names them
    answers = {}
    for T, model in ((rt, theirs), (mt, ours)):
        full = dict(model.state_dict())
        model.load_state_dict(full)
        del full["blocks.0.proj.weight"]
        full["blocks.9.extra"] = T.ones(1)
        result = model.load_state_dict(full, strict=False)
        with pytest.raises(RuntimeError) as error:
            model.load_state_dict(full)
        answers[T] = (sorted(result.missing_keys), sorted(result.unexpected_keys),
                      str(error.value).replace("\t", "").splitlines()[1:])
    assert answers[mt] == answers[rt]
    assert answers[mt][0] == ["blocks.0.proj.weight"]


def test_state_dict_values_are_copies_of_parameters_and_share_buffers_as_in_torch():
    """Also with keep_vars=True, and under a prefix."""
    answers = {}
    for T, model in zip((rt, mt), make_pair(SPEC)):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            state = model.state_dict()
        with T.no_grad():
            state["embed.weight"].fill_(7.0)
            state["offset"].fill_(3.0)
        kept = model.state_dict(keep_vars=True, prefix="outer.")
        answers[T] = (float(model.module.embed.weight[0, 0]), float(model.module.offset[0]),
                      state["embed.weight"].requires_grad, state["embed.weight"].is_leaf, list(kept),
                      [v.requires_grad for v in kept.values()], kept["outer.embed.weight"] is model.module.embed.weight)
    assert answers[mt] == answers[rt]
    assert answers[mt][0] != 7.0 and answers[mt][1] == 3.0


def test_state_dict_type_settings_match_torch():
    answers = {}
    for T, model in zip((rt, mt), make_pair(SPEC, "module")):
        F = T.distributed.fsdp
        FSDP = F.FullyShardedDataParallel
        record = [repr(FSDP.get_state_dict_type(model))]
        with FSDP.state_dict_type(model, F.StateDictType.FULL_STATE_DICT, F.FullStateDictConfig(offload_to_cpu=True),
                                  F.FullOptimStateDictConfig(rank0_only=True)):
            record.append(repr(FSDP.get_state_dict_type(model)))
            record.append(list(model.state_dict()))
        record.append(repr(FSDP.get_state_dict_type(model)))
        previous = FSDP.set_state_dict_type(model, F.StateDictType.FULL_STATE_DICT,
                                            F.FullStateDictConfig(rank0_only=True))
        record += [repr(previous), repr(FSDP.get_state_dict_type(model))]
        # with one process torch's units are NO_SHARD, and every kind of state dict is the full one
        for kind in (F.StateDictType.SHARDED_STATE_DICT, F.StateDictType.LOCAL_STATE_DICT):
            with FSDP.state_dict_type(model, kind), warnings.catch_warnings(record=True) as caught:
                warnings.simplefilter("always")
                state = model.state_dict()
                record.append((list(state), [type(v) is T.Tensor for v in state.values()],
                               any("full_state_dict will be returned" in str(w.message) for w in caught)))
        record.append([str(e) for e in (F.ShardingStrategy.NO_SHARD, model.sharding_strategy,
                                        F.BackwardPrefetch.BACKWARD_PRE, F.StateDictType.LOCAL_STATE_DICT)])
        record.append(repr(F.CPUOffload()) + repr(F.ShardedStateDictConfig()) + repr(F.FullOptimStateDictConfig()))
        record.append(repr(F.MixedPrecision()).split(", _module_classes_to_ignore")[0])
        answers[T] = record
    assert answers[mt] == answers[rt]


def test_optimizer_state_dict_by_name_matches_torch():
    pair = make_pair(SPEC, "module", freeze=True)
    x = np.ones((2, 3), np.float32)
    answers = {}
    for T, model in zip((rt, mt), pair):
        FSDP = T.distributed.fsdp.FullyShardedDataParallel
        optim = T.optim.AdamW(model.parameters(), lr=0.1)
        model(T.tensor(x)).sum().backward()
        optim.step()
        state = FSDP.optim_state_dict(model, optim)
        back = FSDP.optim_state_dict_to_load(model, optim, state)
        optim.load_state_dict(back)
        answers[T] = (
            {name: {k: numpy(v).tolist() for k, v in entry.items()} for name, entry in state["state"].items()},
            list(state["state"]), [g["params"] for g in state["param_groups"]],
            {i: sorted(entry) for i, entry in back["state"].items()}, [g["params"] for g in back["param_groups"]])
    assert answers[mt][1:] == answers[rt][1:]
    for name, entry in answers[rt][0].items():
        for key, value in entry.items():
            np.testing.assert_allclose(answers[mt][0][name][key], value, rtol=1e-5, atol=1e-7)


def test_forwarding_summon_and_no_sync_match_torch():
    answers = {}
    for T, model in zip((rt, mt), make_pair(SPEC)):
        FSDP = T.distributed.fsdp.FullyShardedDataParallel
        record = [model.module is model._fsdp_wrapped_module, type(model.blocks).__name__, model.head.out_features,
                  model.check_is_root()]
        with pytest.raises(AttributeError) as error:
            model.not_an_attribute
        record.append(str(error.value))
        # one process: torch's NO_SHARD units keep what is written inside summon_full_params, writeback or not
        with FSDP.summon_full_params(model, writeback=False), T.no_grad():
            model.module.head.bias.add_(1.0)
        record.append(numpy(model.module.head.bias).round(5).tolist())
        with pytest.raises(NotImplementedError):
            with FSDP.summon_full_params(model, rank0_only=True, writeback=True):
                pass
        x = T.ones(2, 3)
        with model.no_sync():
            model(x).sum().backward()
        model(x).sum().backward()
        record.append(numpy(model.module.head.bias.grad).tolist())
        answers[T] = record
    assert answers[mt] == answers[rt]


def test_enable_wrap_matches_torch():
    answers = {}
    for T in (rt, mt):
        wrap = T.distributed.fsdp.wrap
        FSDP = T.distributed.fsdp.FullyShardedDataParallel
        with wrap.enable_wrap(wrapper_cls=FSDP, use_orig_params=True, device_id="cpu"), \
                warnings.catch_warnings():
            warnings.simplefilter("ignore")
            inner = wrap.wrap(T.nn.Linear(2, 2))
            outer = wrap.wrap(T.nn.Sequential(inner, T.nn.ReLU()))
        answers[T] = (names(outer.named_parameters()), list(outer.state_dict()), wrap.wrap(T.nn.ReLU()).__class__.__name__)
    assert answers[mt] == answers[rt]


def test_a_cpu_module_without_device_id_fails_as_in_torch():
    for T in (rt, mt):
        with pytest.raises(RuntimeError, match="non-CPU accelerator"), warnings.catch_warnings():
            warnings.simplefilter("ignore")
            T.distributed.fsdp.FullyShardedDataParallel(T.nn.Linear(2, 2), use_orig_params=True)


@pytest.mark.parametrize("kwargs, what", [
    ({"use_orig_params": False}, "use_orig_params=False"),
    ({"sharding_strategy": "HYBRID_SHARD"}, "hybrid"),
])
def test_options_not_provided_raise(kwargs, what):
    F = mt.distributed.fsdp
    kwargs = {"use_orig_params": True, "device_id": "cpu", **kwargs}
    if "sharding_strategy" in kwargs:
        kwargs["sharding_strategy"] = getattr(F.ShardingStrategy, kwargs["sharding_strategy"])
    with pytest.raises(NotImplementedError, match=f"FullyShardedDataParallel.*{what}"):
        F.FullyShardedDataParallel(mt.nn.Linear(2, 2), **kwargs)


def test_other_parts_not_provided_raise():
    F = mt.distributed.fsdp
    model = F.FullyShardedDataParallel(mt.nn.Linear(2, 2), use_orig_params=True, device_id="cpu")
    with pytest.raises(NotImplementedError, match="register_comm_hook"):
        model.register_comm_hook(None, None)
    with pytest.raises(NotImplementedError, match="fully_shard"):
        F.fully_shard(mt.nn.Linear(2, 2))
    # a unit that torch shards (more than one process) has no full state dict of another kind here
    model.sharding_strategy = F.ShardingStrategy.FULL_SHARD
    with F.FullyShardedDataParallel.state_dict_type(model, F.StateDictType.SHARDED_STATE_DICT):
        with pytest.raises(NotImplementedError, match="SHARDED_STATE_DICT"):
            model.state_dict()


def _mixed_precision_run(T, spec, policy_kwargs, wrap_policy):
    """Two accumulated backwards and one SGD step of the network under MixedPrecision(**policy_kwargs) (SGD: the
    first AdamW step moves each parameter by lr times its gradient's sign, which half precision may flip for a
    gradient near zero)."""
    F = T.distributed.fsdp
    rt.manual_seed(spec["seed"])
    Net, Block = build(rt, spec)
    weights = {k: v.numpy() for k, v in Net().state_dict().items()}
    Net, Block = build(T, spec)
    net = Net()
    net.load_state_dict({k: T.tensor(v) for k, v in weights.items()})
    policy = F.MixedPrecision(**{k: getattr(T, v) if isinstance(v, str) else v for k, v in policy_kwargs.items()})
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        model = F.FullyShardedDataParallel(net, use_orig_params=True, device_id="cpu", mixed_precision=policy,
                                           auto_wrap_policy=policy_for(T, wrap_policy, Block, 10))
    optim = T.optim.SGD(model.parameters(), lr=0.05)
    x = np.random.default_rng(spec["seed"]).standard_normal((3, spec["inputs"])).astype(np.float32)
    outs = []
    for _ in range(2):
        out = model(T.tensor(x))
        outs.append((str(out.dtype).replace("torch.", ""), numpy(out)))
        (out.float() ** 2).mean().backward()
    grads = {n: (str(p.grad.dtype).replace("torch.", ""), numpy(p.grad)) for n, p in model.named_parameters()}
    optim.step()
    state = model.state_dict()
    return {"outs": outs, "grads": grads, "params": {n: numpy(p) for n, p in model.named_parameters()},
            "buffers": {n: str(b.dtype).replace("torch.", "") for n, b in model.named_buffers()},
            "state": {k: str(v.dtype).replace("torch.", "") for k, v in state.items()}}


@settings(max_examples=12, deadline=None)
@given(specs, st.sampled_from(["bfloat16", "float16"]), st.booleans(), st.sampled_from([None, "float32"]),
       st.sampled_from(["none", "module"]))
def test_mixed_precision_matches_torch(spec, low, cast_buffers, reduce_dtype, wrap_policy):
    policy = {"param_dtype": low, "buffer_dtype": low if cast_buffers else None, "reduce_dtype": reduce_dtype}
    # without layer norms: a half-precision norm over a few elements cancels, and torch's CPU kernels (one rounding
    # at the end) and the shim's then differ by more than a rounding (the bit-for-bit test below has a norm); a
    # float32 buffer added inside a block would promote its output, which torch's next half product refuses
    spec = {**spec, "blocks": [(bias, False, buffer and cast_buffers) for bias, _, buffer in spec["blocks"]]}
    theirs, ours = (_mixed_precision_run(T, spec, policy, wrap_policy) for T in (rt, mt))
    assert ours["buffers"] == theirs["buffers"] and ours["state"] == theirs["state"]
    tol = {"rtol": 2e-2, "atol": 2e-2}  # half precision: one rounding apart is allowed
    for (dtype, value), (their_dtype, their_value) in zip(ours["outs"], theirs["outs"]):
        assert dtype == their_dtype
        np.testing.assert_allclose(value, their_value, **tol)
    assert ours["grads"].keys() == theirs["grads"].keys()
    for name, (dtype, value) in theirs["grads"].items():
        assert ours["grads"][name][0] == dtype
        np.testing.assert_allclose(ours["grads"][name][1], value, **tol, err_msg=name)
    for name, value in theirs["params"].items():
        np.testing.assert_allclose(ours["params"][name], value, **tol, err_msg=name)


def test_mixed_precision_computes_in_param_dtype_and_keeps_parameters_full():
    """The gradient of a MixedPrecision forward is the one of the same network cast to param_dtype, cast to the
    parameters' float32 (torch's answer, bit for bit on its side; the shim's own bf16 network the reference)."""
    spec = {**SPEC, "seed": 5}
    answers = {}
    for T in (rt, mt):
        F = T.distributed.fsdp
        Net, _ = build(T, spec)
        T.manual_seed(1)
        net = Net()
        low = Net()
        low.load_state_dict(net.state_dict())
        low = low.to(T.bfloat16)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            model = F.FullyShardedDataParallel(net, use_orig_params=True, device_id="cpu",
                                               mixed_precision=F.MixedPrecision(param_dtype=T.bfloat16,
                                                                                buffer_dtype=T.bfloat16))
        x = T.linspace(-1, 1, 6).reshape(2, 3)
        out, ref = model(x), low(x.to(T.bfloat16))
        out.float().sum().backward()
        ref.float().sum().backward()
        answers[T] = (T.equal(out, ref), [p.dtype == T.float32 for p in model.parameters()],
                      all(T.equal(p.grad, q.grad.float()) for p, q in zip(model.parameters(), low.parameters())))
    assert answers[mt] == answers[rt] == (True, [True] * len(answers[rt][1]), True)


@pytest.mark.parametrize("policy", [{"reduce_dtype": "bfloat16"}, {"param_dtype": "bfloat16",
                                                                     "keep_low_precision_grads": True}])
def test_mixed_precision_options_not_provided_raise(policy):
    F = mt.distributed.fsdp
    policy = F.MixedPrecision(**{k: getattr(mt, v) if isinstance(v, str) else v for k, v in policy.items()})
    with pytest.raises(NotImplementedError, match="mixed_precision"):
        F.FullyShardedDataParallel(mt.nn.Linear(2, 2), use_orig_params=True, device_id="cpu",
                                   mixed_precision=policy)
