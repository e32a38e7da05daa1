"""torch.nn.RNN/LSTM/GRU and their cells against real PyTorch, from identical weights: outputs, final states and
the gradients of sum(out * w) with respect to the input, the initial states and every weight; parameter names and
shapes; packed sequences; argument errors."""
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
      'torch.nn.RNN', 'torch.nn.LSTM', 'torch.nn.GRU',
    ): ['test_layer_matches_torch', 'test_packed_sequence_matches_torch'],
    (
      'torch.nn.RNNCell', 'torch.nn.LSTMCell', 'torch.nn.GRUCell',
    ): ['test_cell_matches_torch'],
    ('torch.nn.RNNBase', 'torch.nn.RNNCellBase'): ['test_base_classes_match_torch'],
}


TOL = {"float32": (2e-5, 2e-6), "float64": (1e-10, 1e-12)}

LAYERS = {
    "rnn_tanh": ("RNN", dict(input_size=3, hidden_size=4)),
    "rnn_relu_2layers": ("RNN", dict(input_size=3, hidden_size=4, num_layers=2, nonlinearity="relu")),
    "rnn_bidirectional_nobias": ("RNN", dict(input_size=3, hidden_size=4, bidirectional=True, bias=False)),
    "lstm": ("LSTM", dict(input_size=3, hidden_size=5)),
    "lstm_2layers_bidirectional": ("LSTM", dict(input_size=3, hidden_size=4, num_layers=2, bidirectional=True)),
    "lstm_proj_batch_first": ("LSTM", dict(input_size=3, hidden_size=5, proj_size=2, batch_first=True)),
    "gru": ("GRU", dict(input_size=3, hidden_size=4)),
    "gru_2layers_bidirectional_batch_first": ("GRU", dict(input_size=3, hidden_size=4, num_layers=2,
                                                          bidirectional=True, batch_first=True)),
}


def _same_weights(ours, theirs, dtype):
    names_ours = [n for n, _ in ours.named_parameters()]
    names_theirs = [n for n, _ in theirs.named_parameters()]
    assert names_ours == names_theirs
    for (_, p), (_, q) in zip(ours.named_parameters(), theirs.named_parameters()):
        assert tuple(p.shape) == tuple(q.shape)
        with mt.no_grad():
            p.copy_(mt.tensor(q.detach().numpy().astype(dtype)))
    return ours


def _pair(kind, kwargs, dtype):
    theirs = getattr(rt.nn, kind)(**kwargs).to(getattr(rt, np.dtype(dtype).name))
    ours = _same_weights(getattr(mt.nn, kind)(**kwargs, dtype=getattr(mt, np.dtype(dtype).name)), theirs, dtype)
    return ours, theirs


def _flat(result):
    out = []
    for r in (result if isinstance(result, (tuple, list)) else (result,)):
        out.extend(_flat(r) if isinstance(r, (tuple, list)) else [r])
    return out


def _compare(module_pair, inputs, dtype, call=lambda m, *a: m(*a)):
    results = []
    for T, module in zip((mt, rt), module_pair):
        leaves = [T.tensor(a.astype(dtype), requires_grad=True) for a in inputs]
        outs = _flat(call(module, *leaves))
        total = None
        for i, o in enumerate(outs):
            w = np.random.default_rng(i).standard_normal(tuple(o.shape))
            term = (o.double() * T.tensor(w)).sum()
            total = term if total is None else total + term
        total.backward()
        grads = [l.grad.numpy() for l in leaves] + [p.grad.numpy() for p in module.parameters()]
        results.append(([o.detach().numpy() for o in outs], grads))
    (m_outs, m_grads), (r_outs, r_grads) = results
    rtol, atol = TOL[np.dtype(dtype).name]
    assert [o.shape for o in m_outs] == [o.shape for o in r_outs]
    for a, b in zip(m_outs + m_grads, r_outs + r_grads):
        np.testing.assert_allclose(a, b, rtol=rtol, atol=atol)


_rng = np.random.default_rng(4)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("name", list(LAYERS))
def test_layer_matches_torch(name, dtype):
    kind, kwargs = LAYERS[name]
    pair = _pair(kind, kwargs, dtype)
    batch_first = kwargs.get("batch_first", False)
    x = _rng.standard_normal((2, 5, 3) if batch_first else (5, 2, 3))
    _compare(pair, [x], dtype)


@pytest.mark.parametrize("name", ["rnn_tanh", "lstm_proj_batch_first", "gru_2layers_bidirectional_batch_first"])
def test_layer_with_initial_state_matches_torch(name):
    kind, kwargs = LAYERS[name]
    pair = _pair(kind, kwargs, np.float64)
    d = 2 if kwargs.get("bidirectional") else 1
    layers = kwargs.get("num_layers", 1) * d
    out = kwargs.get("proj_size") or kwargs["hidden_size"]
    x = _rng.standard_normal((2, 4, 3) if kwargs.get("batch_first") else (4, 2, 3))
    h0 = _rng.standard_normal((layers, 2, out))
    if kind == "LSTM":
        c0 = _rng.standard_normal((layers, 2, kwargs["hidden_size"]))
        _compare(pair, [x, h0, c0], np.float64, call=lambda m, x, h, c: m(x, (h, c)))
    else:
        _compare(pair, [x, h0], np.float64)


@pytest.mark.parametrize("name", ["rnn_relu_2layers", "lstm", "gru"])
def test_unbatched_input_matches_torch(name):
    kind, kwargs = LAYERS[name]
    _compare(_pair(kind, kwargs, np.float64), [_rng.standard_normal((6, 3))], np.float64)


@pytest.mark.parametrize("name", ["lstm_2layers_bidirectional", "gru", "rnn_bidirectional_nobias"])
def test_packed_sequence_matches_torch(name):
    kind, kwargs = LAYERS[name]
    pair = _pair(kind, kwargs, np.float64)
    lengths = [3, 5, 2]

    def call(module, x):
        T = mt if isinstance(module, mt.nn.Module) else rt
        packed = T.nn.utils.rnn.pack_padded_sequence(x, T.tensor(lengths), enforce_sorted=False)
        output, state = module(packed)
        padded, out_lengths = T.nn.utils.rnn.pad_packed_sequence(output)
        assert [int(n) for n in out_lengths] == lengths
        return padded, state

    _compare(pair, [_rng.standard_normal((5, 3, 3))], np.float64, call=call)


CELLS = {"RNNCell": dict(nonlinearity="tanh"), "RNNCell_relu": dict(nonlinearity="relu"), "LSTMCell": {},
         "GRUCell": {}, "GRUCell_nobias": dict(bias=False)}


@pytest.mark.parametrize("name", list(CELLS))
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_cell_matches_torch(name, dtype):
    kind = name.split("_")[0]
    pair = _pair(kind, dict(input_size=3, hidden_size=4, **CELLS[name]), dtype)
    x = _rng.standard_normal((2, 3))
    h = _rng.standard_normal((2, 4))
    if kind == "LSTMCell":
        c = _rng.standard_normal((2, 4))
        _compare(pair, [x, h, c], dtype, call=lambda m, x, h, c: m(x, (h, c)))
    else:
        _compare(pair, [x, h], dtype)
    _compare(pair, [_rng.standard_normal(3)], dtype)  # unbatched, zero initial state


def test_base_classes_match_torch():
    for kind in ("RNN", "LSTM", "GRU"):
        assert issubclass(getattr(mt.nn, kind), mt.nn.RNNBase) == issubclass(getattr(rt.nn, kind), rt.nn.RNNBase)
    for kind in ("RNNCell", "LSTMCell", "GRUCell"):
        assert issubclass(getattr(mt.nn, kind), mt.nn.RNNCellBase)
        assert issubclass(getattr(rt.nn, kind), rt.nn.RNNCellBase)
    ours = mt.nn.RNNBase("LSTM", 3, 4, num_layers=2)
    theirs = rt.nn.RNNBase("LSTM", 3, 4, num_layers=2)
    assert list(ours.state_dict()) == list(theirs.state_dict())


def test_state_dict_and_repr_match_torch():
    for kind, kwargs in LAYERS.values():
        ours, theirs = getattr(mt.nn, kind)(**kwargs), getattr(rt.nn, kind)(**kwargs)
        assert list(ours.state_dict()) == list(theirs.state_dict())
        assert repr(ours) == repr(theirs)
        bound = 1 / np.sqrt(kwargs["hidden_size"])
        assert all(float(p.abs().max()) <= bound for p in ours.parameters())
        ours.flatten_parameters()


@pytest.mark.parametrize("kind, kwargs, error", [
    ("LSTM", dict(input_size=3, hidden_size=4, proj_size=4), ValueError),
    ("RNN", dict(input_size=3, hidden_size=4, nonlinearity="gelu"), ValueError),
    ("GRU", dict(input_size=3, hidden_size=4, dropout=1.5), ValueError),
    ("GRU", dict(input_size=3, hidden_size=0), ValueError),
])
def test_constructor_errors_match_torch(kind, kwargs, error):
    for T in (mt, rt):
        with pytest.raises(error):
            getattr(T.nn, kind)(**kwargs)


def test_forward_errors_match_torch():
    for T in (mt, rt):
        lstm = T.nn.LSTM(3, 4)
        with pytest.raises(RuntimeError):
            lstm(T.zeros(5, 2, 4))  # wrong input size
        with pytest.raises(RuntimeError):
            lstm(T.zeros(5, 2, 3), (T.zeros(1, 3, 4), T.zeros(1, 3, 4)))  # wrong batch in the state
