"""torch.lstm, torch.gru, torch.rnn_tanh and torch.rnn_relu: the operator-level recurrent layers over a padded
sequence, written as the single-step cells (aten_nn_forms.py) run over time, layer by layer and in both
directions. `params` is torch's flat list: per layer, per direction, w_ih, w_hh (and b_ih, b_hh with biases).
Dropout between layers (train=True, dropout > 0) uses F.dropout. Packed sequences (the data/batch_sizes form)
are not supported here: nn.LSTM/GRU/RNN take those."""
from . import aten_nn_forms as cells

__all__ = ["lstm", "gru", "rnn_tanh", "rnn_relu"]


def _F():
    from ..nn import functional

    return functional


def _torch():
    import importlib

    return importlib.import_module(__package__.rsplit(".", 1)[0])


def _run(step, input, states, params, has_biases, num_layers, dropout, train, bidirectional, batch_first):
    """Outputs of the last layer (time-major or batch-first as given) and the final states, one per layer and
    direction, stacked like torch's h_n (and c_n)."""
    torch = _torch()
    if not isinstance(params, (list, tuple)) or not params:
        raise RuntimeError("the recurrent params must be a non-empty list of tensors")
    per_cell = 4 if has_biases else 2
    directions = 2 if bidirectional else 1
    if len(params) != per_cell * directions * num_layers:
        raise RuntimeError(f"expected {per_cell * directions * num_layers} recurrent parameters, got {len(params)}")
    unbatched = input.ndim == 2
    x = input.unsqueeze(1) if unbatched else (input.transpose(0, 1) if batch_first else input)
    states = [s.unsqueeze(1) if unbatched else s for s in states]
    finals = [[] for _ in states]
    for layer in range(num_layers):
        outputs = []
        for direction in range(directions):
            index = layer * directions + direction
            weights = params[index * per_cell:(index + 1) * per_cell]
            w_ih, w_hh = weights[0], weights[1]
            b_ih, b_hh = (weights[2], weights[3]) if has_biases else (None, None)
            state = tuple(s[index] for s in states)
            steps = range(x.shape[0] - 1, -1, -1) if direction else range(x.shape[0])
            seq = [None] * x.shape[0]
            for t in steps:
                state = step(x[t], state, w_ih, w_hh, b_ih, b_hh)
                seq[t] = state[0]
            outputs.append(torch.stack(seq))
            for keep, s in zip(finals, state):
                keep.append(s)
        x = outputs[0] if directions == 1 else torch.cat(outputs, -1)
        if dropout > 0 and train and layer < num_layers - 1:
            x = _F().dropout(x, dropout, True)
    out = x.squeeze(1) if unbatched else (x.transpose(0, 1) if batch_first else x)
    finals = [torch.stack(f) for f in finals]
    return (out, *[f.squeeze(1) if unbatched else f for f in finals])


def lstm(input, hx, params, has_biases, num_layers, dropout, train, bidirectional, batch_first):
    """(output, h_n, c_n)."""

    def step(x, state, *weights):
        return cells.lstm_cell(x, state, *weights)

    return _run(step, input, list(hx), params, has_biases, num_layers, dropout, train, bidirectional, batch_first)


def _single_state(cell):
    def step(x, state, *weights):
        return (cell(x, state[0], *weights),)
    return step


def gru(input, hx, params, has_biases, num_layers, dropout, train, bidirectional, batch_first):
    """(output, h_n)."""
    return _run(_single_state(cells.gru_cell), input, [hx], params, has_biases, num_layers, dropout, train,
                bidirectional, batch_first)


def rnn_tanh(input, hx, params, has_biases, num_layers, dropout, train, bidirectional, batch_first):
    return _run(_single_state(cells.rnn_tanh_cell), input, [hx], params, has_biases, num_layers, dropout, train,
                bidirectional, batch_first)


def rnn_relu(input, hx, params, has_biases, num_layers, dropout, train, bidirectional, batch_first):
    return _run(_single_state(cells.rnn_relu_cell), input, [hx], params, has_biases, num_layers, dropout, train,
                bidirectional, batch_first)
