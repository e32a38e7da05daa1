"""The torch names trl, sentence-transformers and safetensors need, against real PyTorch: torch.frombuffer,
torch.nn.utils.rnn (padding and packing, values and gradients), Tensor.to_dense, torch.cosine_similarity,
torch.utils.checkpoint's CheckpointPolicy / selective contexts / device RNG states, and torch.Stream."""
import array

import numpy as np
import pytest

import mindnlp_shim.torch as mt
from conftest import SUBPROCESS_FLAG, real_torch, subprocess_fallback

rt = real_torch()
if rt is None:
    globals()[SUBPROCESS_FLAG] = True
    test_whole_module_in_subprocess = subprocess_fallback(__file__)

_rng = np.random.default_rng(11)


def _outcome(fn):
    try:
        return "ok", fn()
    except Exception as exc:  # the same exception type and message as torch's
        return type(exc).__name__, str(exc)


# ---------------------------------------------------------------- frombuffer
FROMBUFFER_CASES = [
    (np.arange(6, dtype=np.float32).tobytes(), "float32", {}),
    (np.arange(6, dtype=np.float32).tobytes(), "float32", {"offset": 8}),
    (np.arange(6, dtype=np.float32).tobytes(), "float32", {"count": 2, "offset": 4}),
    (np.arange(5, dtype=np.int64).tobytes(), "int64", {"count": 3}),
    (np.arange(9, dtype=np.uint8).tobytes(), "uint8", {"offset": 1}),
    (np.array([1.5, -2.25], dtype=np.float16).tobytes(), "float16", {}),
    (np.array([True, False, True]).tobytes(), "bool", {}),
    (b"", "float32", {}),
    (bytes(8), "float32", {"offset": 8}),
    (bytes(8), "float32", {"offset": -1}),
    (bytes(7), "float32", {}),
    (bytes(8), "float32", {"count": 3}),
    (bytes(8), "float32", {"count": 0}),
]


@pytest.mark.parametrize("raw,dtype,kwargs", FROMBUFFER_CASES)
def test_frombuffer_values_and_errors_match_torch(raw, dtype, kwargs):
    expected = _outcome(lambda: rt.frombuffer(raw, dtype=getattr(rt, dtype), **kwargs).numpy())
    got = _outcome(lambda: mt.frombuffer(raw, dtype=getattr(mt, dtype), **kwargs).numpy())
    assert got[0] == expected[0]
    if expected[0] == "ok":
        assert got[1].dtype == expected[1].dtype
        np.testing.assert_array_equal(got[1], expected[1])
    else:
        assert got[1] == expected[1]


def test_frombuffer_shares_a_writable_buffer_and_takes_requires_grad():
    buffer = bytearray(np.arange(4, dtype=np.float32).tobytes())
    tensor = mt.frombuffer(buffer, dtype=mt.float32, offset=4)
    buffer[4:8] = np.float32(9).tobytes()
    assert tensor.tolist() == [9.0, 2.0, 3.0]
    tensor[2] = 7.0
    assert np.frombuffer(buffer, dtype=np.float32).tolist() == [0.0, 9.0, 2.0, 7.0]
    assert mt.frombuffer(array.array("i", [1, 2, 3]), dtype=mt.int32, offset=4).tolist() == [2, 3]
    assert mt.frombuffer(bytes(8), dtype=mt.float32, requires_grad=True).requires_grad
    with pytest.raises(ValueError, match="buffer protocol"):
        mt.frombuffer([1, 2], dtype=mt.float32)


SAFETENSORS_BYTES = """
import json
import numpy as np
import mindnlp
import torch
from safetensors.numpy import save
from safetensors.torch import load
rng = np.random.default_rng(3)
arrays = {"w": rng.standard_normal((3, 4)).astype(np.float32), "i": np.arange(5, dtype=np.int64),
          "h": rng.standard_normal(6).astype(np.float16), "empty": np.zeros((0, 2), np.float32)}
loaded = load(save(arrays))
print(json.dumps({name: [type(t).__module__, str(t.dtype), list(t.shape), bool((t.numpy() == arrays[name]).all())]
                  for name, t in loaded.items()}))
"""


def test_safetensors_load_of_bytes_round_trips_under_the_shim():
    from shim_runner import run_shim_json

    result = run_shim_json(["-c", SAFETENSORS_BYTES], timeout=300)
    assert result == {"w": ["mindspore.common.tensor", "torch.float32", [3, 4], True],
                      "i": ["mindspore.common.tensor", "torch.int64", [5], True],
                      "h": ["mindspore.common.tensor", "torch.float16", [6], True],
                      "empty": ["mindspore.common.tensor", "torch.float32", [0, 2], True]}


# ---------------------------------------------------------------- nn.utils.rnn
def _sequences(T, lengths, trailing=(3,)):
    data = [_rng.standard_normal((n,) + trailing).astype(np.float32) for n in lengths]
    return data


PAD_CASES = [
    ([3, 1, 4], (3,), {}),
    ([3, 1, 4], (3,), {"batch_first": True}),
    ([2, 5], (), {"batch_first": True, "padding_value": -1.5}),
    ([2, 5, 5], (2, 2), {"padding_side": "left"}),
    ([4], (3,), {"batch_first": True, "padding_side": "left", "padding_value": 7.0}),
]


@pytest.mark.parametrize("lengths,trailing,kwargs", PAD_CASES)
def test_pad_sequence_values_and_gradients_match_torch(lengths, trailing, kwargs):
    data = _sequences(None, lengths, trailing)
    results = {}
    for T in (rt, mt):
        leaves = [T.tensor(a, requires_grad=True) for a in data]
        out = T.nn.utils.rnn.pad_sequence(leaves, **kwargs)
        weight = T.tensor(np.arange(np.prod(tuple(out.shape)), dtype=np.float32).reshape(tuple(out.shape)))
        (out * weight).sum().backward()
        results[T] = out.detach().numpy(), [leaf.grad.numpy() for leaf in leaves]
    np.testing.assert_array_equal(results[mt][0], results[rt][0])
    for got, expected in zip(results[mt][1], results[rt][1]):
        np.testing.assert_array_equal(got, expected)


def test_pad_sequence_rejects_a_bad_side_like_torch():
    for T in (rt, mt):
        with pytest.raises(RuntimeError, match="padding_side"):
            T.nn.utils.rnn.pad_sequence([T.ones(2)], padding_side="middle")


@pytest.mark.parametrize("lengths,enforce_sorted", [([4, 3, 1], True), ([2, 4, 1, 3], False), ([3], True)])
@pytest.mark.parametrize("batch_first", [False, True])
def test_packing_round_trips_like_torch(lengths, enforce_sorted, batch_first):
    data = _sequences(None, lengths)
    packed = {}
    for T in (rt, mt):
        rnn = T.nn.utils.rnn
        padded = rnn.pad_sequence([T.tensor(a) for a in data], batch_first=batch_first)
        pack = rnn.pack_padded_sequence(padded, T.tensor(lengths), batch_first=batch_first,
                                        enforce_sorted=enforce_sorted)
        unpacked, out_lengths = rnn.pad_packed_sequence(pack, batch_first=batch_first, total_length=6)
        listed = rnn.unpack_sequence(rnn.pack_sequence([T.tensor(a) for a in data], enforce_sorted=False))
        packed[T] = (pack.data.numpy(), pack.batch_sizes.numpy(),
                     None if pack.sorted_indices is None else pack.sorted_indices.numpy(),
                     unpacked.numpy(), out_lengths.numpy(), [t.numpy() for t in listed])
    got, expected = packed[mt], packed[rt]
    for g, e in zip(got[:5], expected[:5]):
        if e is None:
            assert g is None
        else:
            np.testing.assert_array_equal(g, e)
    for g, e in zip(got[5], expected[5]):
        np.testing.assert_array_equal(g, e)


def test_pack_padded_sequence_checks_order_like_torch():
    for T in (rt, mt):
        with pytest.raises(RuntimeError, match="sorted in decreasing order"):
            T.nn.utils.rnn.pack_padded_sequence(T.zeros(3, 2), [1, 3])


def test_unpad_sequence_inverts_right_padding():
    data = _sequences(None, [2, 4, 3])
    padded = mt.nn.utils.rnn.pad_sequence([mt.tensor(a) for a in data], batch_first=True)
    restored = mt.nn.utils.rnn.unpad_sequence(padded, mt.tensor([2, 4, 3]), batch_first=True)
    for got, expected in zip(restored, data):
        np.testing.assert_array_equal(got.numpy(), expected)


# ---------------------------------------------------------------- to_dense, cosine_similarity
def test_to_dense_is_identity_or_a_differentiable_cast():
    x = mt.tensor([1.0, 2.0], requires_grad=True)
    assert x.to_dense() is x
    assert x.to_dense(mt.float32) is x
    y = x.to_dense(mt.float64)
    assert y.dtype == mt.float64
    (y * mt.tensor([3.0, 4.0], dtype=mt.float64)).sum().backward()
    assert x.grad.tolist() == [3.0, 4.0]
    assert mt.ones(2, dtype=mt.int64).to_dense(mt.float32).dtype == mt.float32
    assert not hasattr(mt, "to_dense") and not hasattr(rt, "to_dense")


def test_torch_cosine_similarity_is_the_functional_one_and_matches_torch():
    assert mt.cosine_similarity is mt.nn.functional.cosine_similarity
    a, b = _rng.standard_normal((4, 5)).astype(np.float32), _rng.standard_normal((1, 5)).astype(np.float32)
    values = {}
    for T in (rt, mt):
        x, y = T.tensor(a, requires_grad=True), T.tensor(b, requires_grad=True)
        out = T.cosine_similarity(x, y)
        out.sum().backward()
        values[T] = out.detach().numpy(), x.grad.numpy(), y.grad.numpy()
    for got, expected in zip(values[mt], values[rt]):
        np.testing.assert_allclose(got, expected, rtol=1e-5, atol=1e-6)


# ---------------------------------------------------------------- checkpoint additions, Stream
def test_checkpoint_policy_members_match_torch():
    from torch.utils import checkpoint as real_checkpoint  # noqa: F401  (rt is real torch here)
    from mindnlp_shim.torch.utils import checkpoint as shim_checkpoint

    assert [(p.name, p.value) for p in shim_checkpoint.CheckpointPolicy] == \
        [(p.name, p.value) for p in rt.utils.checkpoint.CheckpointPolicy]


def test_selective_checkpoint_contexts_give_the_gradients_of_plain_checkpointing():
    from functools import partial

    from mindnlp_shim.torch.utils import checkpoint as shim_checkpoint

    def policy(ctx, op, *args, **kwargs):
        return shim_checkpoint.CheckpointPolicy.PREFER_RECOMPUTE

    weight = _rng.standard_normal((3, 3)).astype(np.float32)
    grads = {}
    for T, module in ((rt, rt.utils.checkpoint), (mt, shim_checkpoint)):
        w = T.tensor(weight, requires_grad=True)
        x = T.tensor(np.ones((2, 3), np.float32), requires_grad=True)
        if T is rt:
            def real_policy(ctx, op, *args, **kwargs):
                return rt.utils.checkpoint.CheckpointPolicy.PREFER_RECOMPUTE
            context_fn = partial(module.create_selective_checkpoint_contexts, real_policy)
        else:
            context_fn = partial(module.create_selective_checkpoint_contexts, policy)
        out = module.checkpoint(lambda v: T.tanh(v @ w) * 2, x, use_reentrant=False, context_fn=context_fn)
        out.sum().backward()
        grads[T] = w.grad.numpy(), x.grad.numpy()
    for got, expected in zip(grads[mt], grads[rt]):
        np.testing.assert_allclose(got, expected, rtol=1e-5, atol=1e-6)
    with pytest.raises(TypeError):
        shim_checkpoint.create_selective_checkpoint_contexts(3)


def test_device_states_on_cpu_tensors_are_empty_like_torch():
    from mindnlp_shim.torch.utils import checkpoint as shim_checkpoint

    assert shim_checkpoint.get_device_states(mt.ones(2), 3) == rt.utils.checkpoint.get_device_states(rt.ones(2), 3)
    shim_checkpoint.set_device_states([], [])  # nothing to restore; must not raise


def test_stream_is_a_type_nothing_is_an_instance_of():
    assert isinstance(mt.Stream, type)
    assert not isinstance(mt.ones(1), mt.Stream)
    with pytest.raises(NotImplementedError, match="torch.Stream"):
        mt.Stream()


# ---------------------------------------------------------------- out= inside an autocast region
@pytest.mark.parametrize("inputs,out_dtype", [("bfloat16", "bfloat16"), ("float32", "float32"),
                                              ("float32", "bfloat16"), ("bfloat16", "float32")])
def test_out_calls_are_not_autocast_like_torch(inputs, out_dtype):
    """trl's chunked log-prob kernel writes `torch.mm(a, b, out=tile)` in autocast's dtype inside a CPU
    bfloat16 region: torch does not autocast calls given out=, so only the out dtype rule applies."""
    a = _rng.standard_normal((2, 3)).astype(np.float32)
    b = _rng.standard_normal((3, 4)).astype(np.float32)
    outcomes = []
    for T in (rt, mt):
        out = T.empty(2, 4, dtype=getattr(T, out_dtype))
        with T.autocast("cpu", dtype=T.bfloat16):
            x, y = (T.tensor(v).to(getattr(T, inputs)) for v in (a, b))
            outcome = _outcome(lambda: T.mm(x, y, out=out))
        outcomes.append((outcome[0], out.float().numpy() if outcome[0] == "ok" else None))
    assert outcomes[0][0] == outcomes[1][0]
    if outcomes[0][0] == "ok":
        np.testing.assert_allclose(outcomes[1][1], outcomes[0][1], rtol=1e-2, atol=1e-2)


# ---------------------------------------------------------------- print options
def test_print_options_state_follows_torch():
    import mindnlp_shim.torch._tensor_str as ours

    theirs = rt._tensor_str
    assert ours.get_printoptions() == theirs.get_printoptions()
    try:
        for kwargs in ({"profile": "short"}, {"precision": 6}, {"profile": "full", "edgeitems": 1, "sci_mode": True},
                       {"threshold": 5, "linewidth": 120}, {"profile": "default"}):
            mt.set_printoptions(**kwargs)
            rt.set_printoptions(**kwargs)
            assert ours.get_printoptions() == theirs.get_printoptions(), kwargs
        with ours.printoptions(precision=2, sci_mode=False), theirs.printoptions(precision=2, sci_mode=False):
            assert ours.get_printoptions() == theirs.get_printoptions()
        assert ours.get_printoptions() == theirs.get_printoptions()
        with pytest.raises(ValueError):
            mt.set_printoptions(profile="huge")
    finally:
        mt.set_printoptions(profile="default")
        rt.set_printoptions(profile="default")


def test_repr_follows_the_print_options():
    x = mt.tensor([1.23456789, 100.0])
    try:
        with mt._tensor_str.printoptions(precision=2):
            assert "1.23" in repr(x) and "1.2346" not in repr(x)
        assert "1.2346" in repr(x)
        with mt._tensor_str.printoptions(sci_mode=True, precision=3):
            assert "1.235e+00" in repr(x) and "1.000e+02" in repr(x)
        with mt._tensor_str.printoptions(threshold=4, edgeitems=1):
            assert "..." in repr(mt.arange(10))
        assert "..." not in repr(mt.arange(10))
    finally:
        mt.set_printoptions(profile="default")


# what this module compares with real torch (read by tests/api_census.py)
API_CENSUS = {
    "torch.frombuffer": "test_frombuffer_values_and_errors_match_torch",
    "torch.set_printoptions": "test_print_options_state_follows_torch",
}
