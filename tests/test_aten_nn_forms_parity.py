"""torch.<name> operator-level forms of nn functions (mindnlp_shim/torch/_ops/aten_nn_forms.py) and
torch.narrow_copy against real PyTorch in-process: values, dtypes and shapes of every output, and gradients of
sum(out * w) for every floating input (the comparison of tests/test_tensor_method_parity.py)."""
import numpy as np
import pytest

import mindnlp_shim.torch as mt
from conftest import SUBPROCESS_FLAG, real_torch, subprocess_fallback
from test_tensor_method_parity import _run, _same, const  # (the comparison this module shares)

rt = real_torch()
if rt is None:
    globals()[SUBPROCESS_FLAG] = True
    test_whole_module_in_subprocess = subprocess_fallback(__file__)

_rng = np.random.default_rng(23)


def randn(*shape):
    return _rng.standard_normal(shape).astype(np.float32)


def _seeded(fn):
    """`fn` after seeding torch's generator alike on both sides (dropout masks are its draws)."""
    def run(T, *args):
        T.manual_seed(5)
        return fn(T, *args)
    return run


def _update_stats(T, x):
    running_mean, running_var = T.zeros(3), T.ones(3)
    return T.batch_norm_update_stats(x, running_mean, running_var, 0.1), running_mean, running_var


def _log_probs(T, x):
    return x.log_softmax(-1)


CASES = {
    "celu_": (lambda T, a: T.celu_(a.clone(), 0.7), [randn(3, 4)]),
    "selu_": (lambda T, a: T.selu_(a.clone()), [randn(3, 4)]),
    "rrelu_": (lambda T, a: T.rrelu_(a.clone(), 0.1, 0.3), [randn(3, 4)]),
    "threshold_": (lambda T, a: T.threshold_(a.clone(), 0.2, -1.0), [randn(3, 4)]),
    "dropout_": (_seeded(lambda T, a: T.dropout_(a.clone(), 0.4, True)), [randn(4, 5)]),
    "feature_dropout": (_seeded(lambda T, a: (T.feature_dropout(a, 0.5, True), T.feature_dropout(a[0], 0.5, True))),
                        [randn(3, 4, 2, 2)]),
    "feature_dropout_": (_seeded(lambda T, a: T.feature_dropout_(a.clone(), 0.3, True)), [randn(3, 6, 5)]),
    "alpha_dropout_": (_seeded(lambda T, a: T.alpha_dropout_(a.clone(), 0.3, True)), [randn(4, 5)]),
    "feature_alpha_dropout": (_seeded(lambda T, a: (T.feature_alpha_dropout(a, 0.4, True),
                                                    T.feature_alpha_dropout(a, 0.4, False))), [randn(3, 4, 2, 2)]),
    "feature_alpha_dropout_": (_seeded(lambda T, a: T.feature_alpha_dropout_(a.clone(), 0.2, True)), [randn(3, 6, 5)]),
    "bilinear": (lambda T, a, b, w, bias: T.bilinear(a, b, w, bias), [randn(2, 5, 3), randn(2, 5, 4), randn(2, 3, 4),
                                                                      randn(2)]),
    "ctc_loss": (lambda T, x: T.ctc_loss(_log_probs(T, x), T.tensor([[1, 2, 2], [3, 1, 0]]), [6, 5], [3, 2], 0, 2,
                                         True), [randn(6, 2, 4)]),
    "grid_sampler": (lambda T, x, g: (T.grid_sampler(x, g.tanh(), 0, 1, False),
                                      T.grid_sampler(x, g.tanh(), 0, 0, True)),
                     [randn(1, 2, 4, 5), randn(1, 3, 2, 2)]),
    "grid_sampler_2d": (lambda T, x, g: T.grid_sampler_2d(x, g.tanh(), 0, 2, True), [randn(1, 2, 4, 5),
                                                                                      randn(1, 3, 2, 2)]),
    "affine_grid_generator": (lambda T, theta: T.affine_grid_generator(theta, [2, 1, 3, 4], False), [randn(2, 2, 3)]),
    "native_layer_norm": (lambda T, x, w, b: T.native_layer_norm(x, [3, 4], w, b, 1e-5),
                          [randn(2, 3, 4), randn(3, 4), randn(3, 4)]),
    "native_group_norm": (lambda T, x, w, b: T.native_group_norm(x, w, b, 2, 4, 6, 2, 1e-5),
                          [randn(2, 4, 2, 3), randn(4), randn(4)]),
    "native_batch_norm": (lambda T, x, w, b: (T.native_batch_norm(x, w, b, T.zeros(3), T.ones(3), True, 0.1, 1e-5),
                                              T.native_batch_norm(x, w, b, T.zeros(3), T.ones(3), False, 0.1, 1e-5)),
                          [randn(4, 3, 2), randn(3), randn(3)]),
    "native_dropout": (_seeded(lambda T, a: (T.native_dropout(a, 0.4, True), T.native_dropout(a, 0.4, False))),
                       [randn(4, 6)]),
    "convolution": (lambda T, x, w, b, y, wt, z, wz, u, wu: (
        T.convolution(x, w, b, [2], [1], [1], False, [0], 1),
        T.convolution(y, wt, None, [2, 1], [1, 0], [1, 1], True, [1, 0], 1),
        T.convolution(z, wz, None, [1, 2, 1], [1, 0, 1], [1, 1, 2], False, [0, 0, 0], 1),
        T.convolution(u, wu, None, [2, 1, 1], [1, 0, 0], [1, 1, 1], True, [1, 0, 0], 2)),
                    [randn(2, 3, 9), randn(4, 3, 3), randn(4), randn(1, 2, 4, 3), randn(2, 3, 3, 2),
                     randn(1, 2, 4, 5, 5), randn(3, 2, 3, 2, 2), randn(1, 4, 3, 3, 2), randn(4, 1, 2, 2, 2)]),
    "batch_norm_update_stats": (lambda T, x: _update_stats(T, x), [const(randn(4, 3, 5))]),
    "rnn_tanh_cell": (lambda T, x, h, wi, wh, bi, bh: T.rnn_tanh_cell(x, h, wi, wh, bi, bh),
                      [randn(2, 3), randn(2, 4), randn(4, 3), randn(4, 4), randn(4), randn(4)]),
    "rnn_relu_cell": (lambda T, x, h, wi, wh: T.rnn_relu_cell(x, h, wi, wh), [randn(2, 3), randn(2, 4), randn(4, 3),
                                                                               randn(4, 4)]),
    "lstm_cell": (lambda T, x, h, c, wi, wh, bi, bh: T.lstm_cell(x, (h, c), wi, wh, bi, bh),
                  [randn(2, 3), randn(2, 4), randn(2, 4), randn(16, 3), randn(16, 4), randn(16), randn(16)]),
    "gru_cell": (lambda T, x, h, wi, wh, bi, bh: T.gru_cell(x, h, wi, wh, bi, bh),
                 [randn(2, 3), randn(2, 4), randn(12, 3), randn(12, 4), randn(12), randn(12)]),
    "view_as_complex_copy": (lambda T, x: T.view_as_real(T.view_as_complex_copy(x)), [const(randn(3, 2))]),
    "narrow_copy": (lambda T, x: (T.narrow_copy(x, 1, 1, 2), T.narrow_copy(x, 0, 2, 1)), [randn(3, 4)]),
}


@pytest.mark.parametrize("name", list(CASES))
def test_form_matches_torch(name):
    fn, arrays = CASES[name]
    (ours, our_grads), (theirs, their_grads) = _run(mt, fn, arrays), _run(rt, fn, arrays)
    _same(ours, theirs)
    assert (our_grads is None) == (their_grads is None)
    for i, (a, b) in enumerate(zip(our_grads or [], their_grads or [])):
        if b is None or a is None:
            other = a if b is None else b
            assert other is None or not np.any(other[3]), f"grad[{i}]"
        else:
            _same(a, b, f"grad[{i}]")


def test_grid_sampler_2d_refuses_other_ranks_like_torch():
    for T in (rt, mt):
        with pytest.raises(RuntimeError):
            T.grid_sampler_2d(T.zeros(1, 1, 2, 2, 2), T.zeros(1, 1, 1, 1, 3), 0, 0, False)


def _recurrent(name, layers, bidirectional, batch_first, biases):
    """torch.<name> called with the flat parameter list of a layer of that shape."""
    gates = {"lstm": 4, "gru": 3}.get(name, 1)
    directions = 2 if bidirectional else 1
    shapes = []
    for layer in range(layers):
        for _ in range(directions):
            inputs = 3 if layer == 0 else 4 * directions
            shapes += [(gates * 4, inputs), (gates * 4, 4)] + ([(gates * 4,), (gates * 4,)] if biases else [])
    arrays = [randn(2, 5, 3) if batch_first else randn(5, 2, 3), randn(layers * directions, 2, 4)]
    if name == "lstm":
        arrays.append(randn(layers * directions, 2, 4))
    arrays += [randn(*shape) * 0.5 for shape in shapes]

    def call(T, x, *rest):
        states, params = (rest[:2], rest[2:]) if name == "lstm" else (rest[0], rest[1:])
        return getattr(T, name)(x, states, list(params), biases, layers, 0.0, False, bidirectional, batch_first)
    return call, arrays


RECURRENT = {
    "lstm": _recurrent("lstm", 2, True, True, True),
    "lstm_unidirectional": _recurrent("lstm", 1, False, False, False),
    "gru": _recurrent("gru", 2, True, False, True),
    "rnn_tanh": _recurrent("rnn_tanh", 1, True, True, True),
    "rnn_relu": _recurrent("rnn_relu", 2, False, False, True),
}


@pytest.mark.parametrize("name", list(RECURRENT))
def test_recurrent_layer_matches_torch(name):
    fn, arrays = RECURRENT[name]
    (ours, our_grads), (theirs, their_grads) = _run(mt, fn, arrays), _run(rt, fn, arrays)
    _same(ours, theirs)
    assert len(our_grads) == len(their_grads)
    for i, (a, b) in enumerate(zip(our_grads, their_grads)):
        _same(a, b, f"grad[{i}]")


def test_every_form_has_a_case():
    from mindnlp_shim.torch._ops import aten_nn_forms

    assert set(aten_nn_forms.__all__) | {"narrow_copy"} == set(CASES)


# what this module compares with real torch (read by tests/api_census.py)
API_CENSUS = {
    ('torch.celu_', 'torch.selu_', 'torch.rrelu_', 'torch.threshold_', 'torch.dropout_', 'torch.feature_dropout',
     'torch.feature_dropout_', 'torch.alpha_dropout_', 'torch.feature_alpha_dropout', 'torch.feature_alpha_dropout_',
     'torch.bilinear', 'torch.ctc_loss', 'torch.grid_sampler', 'torch.grid_sampler_2d',
     'torch.affine_grid_generator', 'torch.native_layer_norm', 'torch.native_group_norm', 'torch.native_batch_norm',
     'torch.rnn_tanh_cell', 'torch.rnn_relu_cell', 'torch.lstm_cell', 'torch.gru_cell',
     'torch.view_as_complex_copy', 'torch.narrow_copy', 'torch.native_dropout', 'torch.convolution',
     'torch.batch_norm_update_stats'): "test_form_matches_torch",
    ("torch.lstm", "torch.gru", "torch.rnn_tanh", "torch.rnn_relu"): "test_recurrent_layer_matches_torch",
}
