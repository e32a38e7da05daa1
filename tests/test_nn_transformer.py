"""torch.nn.Transformer and its encoder/decoder stacks and layers against real PyTorch, from identical weights:
outputs and gradients (training mode, dropout 0), post-norm and pre-norm, relu/gelu, causal and padding masks,
batch_first; and in evaluation under no_grad the zeros torch's nested-tensor path leaves at padded positions."""
import numpy as np
import pytest

import mindnlp_shim.torch as mt
from conftest import SUBPROCESS_FLAG, real_torch, subprocess_fallback

rt = real_torch()
if rt is None:
    globals()[SUBPROCESS_FLAG] = True
    test_whole_module_in_subprocess = subprocess_fallback(__file__)

# what this module compares with real torch (read by tests/api_census.py)
API_CENSUS = {
    (
      'torch.nn.Transformer', 'torch.nn.TransformerEncoder', 'torch.nn.TransformerDecoder', 'torch.nn.TransformerEncoderLayer',
      'torch.nn.TransformerDecoderLayer',
    ): ['test_matches_torch_in_training'],
}


E, H, FF = 8, 2, 16


def _copy_weights(ours, theirs):
    theirs_state = theirs.state_dict()
    assert list(ours.state_dict()) == list(theirs_state)
    rng = np.random.default_rng(0)
    with mt.no_grad(), rt.no_grad():
        for (name, p), (_, q) in zip(ours.named_parameters(), theirs.named_parameters()):
            values = rng.standard_normal(tuple(q.shape)) * 0.3 + (1.0 if "norm" in name and "weight" in name else 0)
            q.copy_(rt.tensor(values.astype(np.float64)))
            p.copy_(mt.tensor(values.astype(np.float64)))


def _pair(build):
    # built in float64 (not converted with .double(): the shim's Module.double() leaves float32 gradients on
    # Linear weights, a separate defect)
    ours, theirs = build(mt), build(rt)
    _copy_weights(ours, theirs)
    return ours, theirs


def _padding(T, batch=2, length=5):
    mask = np.zeros((batch, length), bool)
    mask[0, -2:] = True
    return T.tensor(mask)


CASES = {
    "encoder_layer_post_relu": (lambda T: T.nn.TransformerEncoderLayer(E, H, FF, dropout=0.0, dtype=T.float64),
                                lambda T, m, x: m(x, src_mask=T.nn.Transformer.generate_square_subsequent_mask(5,
                                                  dtype=T.float64))),
    "encoder_layer_pre_gelu_batch_first": (
        lambda T: T.nn.TransformerEncoderLayer(E, H, FF, dropout=0.0, activation="gelu", norm_first=True,
                                               batch_first=True, dtype=T.float64),
        lambda T, m, x: m(x.transpose(0, 1), src_key_padding_mask=_padding(T))),
    "decoder_layer": (lambda T: T.nn.TransformerDecoderLayer(E, H, FF, dropout=0.0, dtype=T.float64),
                      lambda T, m, x: m(x[:4], x, tgt_mask=T.nn.Transformer.generate_square_subsequent_mask(
                          4, dtype=T.float64), memory_key_padding_mask=_padding(T))),
    "decoder_layer_pre_norm": (lambda T: T.nn.TransformerDecoderLayer(E, H, FF, dropout=0.0, norm_first=True, dtype=T.float64),
                               lambda T, m, x: m(x[:3], x)),
    "encoder_stack": (lambda T: T.nn.TransformerEncoder(T.nn.TransformerEncoderLayer(E, H, FF, dropout=0.0, dtype=T.float64), 2,
                                                        norm=T.nn.LayerNorm(E, dtype=T.float64)),
                      lambda T, m, x: m(x, src_key_padding_mask=_padding(T))),
    "decoder_stack": (lambda T: T.nn.TransformerDecoder(T.nn.TransformerDecoderLayer(E, H, FF, dropout=0.0,
                                                                                  dtype=T.float64), 2),
                      lambda T, m, x: m(x[:4], x, tgt_key_padding_mask=_padding(T, length=4))),
    "transformer": (lambda T: T.nn.Transformer(E, H, 2, 2, FF, dropout=0.0, dtype=T.float64),
                    lambda T, m, x: m(x, x[:4], tgt_mask=T.nn.Transformer.generate_square_subsequent_mask(
                        4, dtype=T.float64))),
}


@pytest.mark.parametrize("name", list(CASES))
def test_matches_torch_in_training(name):
    build, call = CASES[name]
    pair = _pair(build)
    x = np.random.default_rng(1).standard_normal((5, 2, E))
    results = []
    for T, module in zip((mt, rt), pair):
        module.train()
        leaf = T.tensor(x, requires_grad=True)
        out = call(T, module, leaf)
        (out * T.tensor(np.random.default_rng(2).standard_normal(tuple(out.shape)))).sum().backward()
        results.append((out.detach().numpy(), leaf.grad.numpy(), [p.grad.numpy() for p in module.parameters()]))
    (o1, g1, p1), (o2, g2, p2) = results
    np.testing.assert_allclose(o1, o2, rtol=1e-9, atol=1e-10)
    np.testing.assert_allclose(g1, g2, rtol=1e-9, atol=1e-10)
    for a, b in zip(p1, p2):
        np.testing.assert_allclose(a, b, rtol=1e-9, atol=1e-10)


@pytest.mark.parametrize("left_aligned", [True, False])
def test_encoder_inference_with_padding_matches_torch(left_aligned):
    pair = _pair(lambda T: T.nn.TransformerEncoder(T.nn.TransformerEncoderLayer(E, H, FF, batch_first=True,
                                                                                        dtype=T.float64), 2))
    x = np.random.default_rng(3).standard_normal((2, 5, E))
    mask = np.zeros((2, 5), bool)
    mask[0, 3:] = True
    if not left_aligned:
        mask[1, 0] = True
    outs = []
    for T, module in zip((mt, rt), pair):
        module.eval()
        with T.no_grad():
            outs.append(module(T.tensor(x), src_key_padding_mask=T.tensor(mask)).numpy())
    np.testing.assert_allclose(outs[0], outs[1], rtol=1e-6, atol=1e-7)
    if left_aligned:
        assert np.all(outs[0][0, 3:] == 0)


def test_square_subsequent_mask_and_errors_match_torch():
    np.testing.assert_array_equal(mt.nn.Transformer.generate_square_subsequent_mask(4).numpy(),
                                  rt.nn.Transformer.generate_square_subsequent_mask(4).numpy())
    for T in (mt, rt):
        model = T.nn.Transformer(E, H, 1, 1, FF)
        with pytest.raises(RuntimeError):
            model(T.zeros(5, 2, E), T.zeros(4, 3, E))
        with pytest.raises(RuntimeError):
            T.nn.TransformerEncoderLayer(E, H, activation="tanh")
