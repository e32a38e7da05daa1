"""Recurrent layers: RNN (tanh/relu), LSTM (with proj_size) and GRU over several layers and both directions, and
their single-step cells, with torch's parameter names, shapes, gate order and initialisation.

Shapes: input (L, N, H_in), or (N, L, H_in) with batch_first, or unbatched (L, H_in); h_0 (D * num_layers, N,
H_out) with D = 2 when bidirectional; output (L, N, D * H_out). A PackedSequence input runs each sequence over
its own length (the states stop at its end, the reverse direction starts there) and returns a PackedSequence.
The time loop is written with the shim's ops, so MindSpore's tape records it and computes the gradients."""
import math

from .... import torch
from .. import functional as F
from ..parameter import Parameter
from .module import Module

_GATES = {"RNN_TANH": 1, "RNN_RELU": 1, "LSTM": 4, "GRU": 3}


def _rnn_step(activation):
    def step(x_proj, h, w_hh, b_hh):
        return activation(x_proj + F.linear(h, w_hh, b_hh))

    return step


def _lstm_step(x_proj, state, w_hh, b_hh, w_hr=None):
    h, c = state
    gates = x_proj + F.linear(h, w_hh, b_hh)
    i, f, g, o = gates.chunk(4, -1)
    c = torch.sigmoid(f) * c + torch.sigmoid(i) * torch.tanh(g)
    h = torch.sigmoid(o) * torch.tanh(c)
    if w_hr is not None:
        h = F.linear(h, w_hr)
    return h, c


def _gru_step(x_proj, h, w_hh, b_hh):
    x_r, x_z, x_n = x_proj.chunk(3, -1)
    h_r, h_z, h_n = F.linear(h, w_hh, b_hh).chunk(3, -1)
    r = torch.sigmoid(x_r + h_r)
    z = torch.sigmoid(x_z + h_z)
    n = torch.tanh(x_n + r * h_n)
    return (1 - z) * n + z * h


class RNNBase(Module):
    def __init__(self, mode, input_size, hidden_size, num_layers=1, bias=True, batch_first=False, dropout=0.0,
                 bidirectional=False, proj_size=0, device=None, dtype=None):
        super().__init__()
        if mode not in _GATES:
            raise ValueError(f"Unrecognized RNN mode: {mode}")
        if not isinstance(dropout, (int, float)) or not 0 <= dropout <= 1 or isinstance(dropout, bool):
            raise ValueError("dropout should be a number in range [0, 1] representing the probability of an "
                             "element being zeroed")
        if not isinstance(hidden_size, int) or hidden_size <= 0:
            raise ValueError("hidden_size must be an integer greater than zero")
        if num_layers <= 0:
            raise ValueError("num_layers must be greater than zero")
        if proj_size < 0 or (proj_size and mode != "LSTM"):
            raise ValueError("proj_size should be a positive integer (LSTM only)")
        if proj_size >= hidden_size:
            raise ValueError("proj_size has to be smaller than hidden_size")
        self.mode, self.input_size, self.hidden_size, self.num_layers = mode, input_size, hidden_size, num_layers
        self.bias, self.batch_first, self.dropout = bias, batch_first, float(dropout)
        self.bidirectional, self.proj_size = bidirectional, proj_size
        directions = 2 if bidirectional else 1
        gate_size = _GATES[mode] * hidden_size
        real_hidden = proj_size if proj_size > 0 else hidden_size
        self._flat_weights_names = []
        for layer in range(num_layers):
            for direction in range(directions):
                layer_input = input_size if layer == 0 else real_hidden * directions
                suffix = f"_l{layer}{'_reverse' if direction == 1 else ''}"
                shapes = [("weight_ih", (gate_size, layer_input)), ("weight_hh", (gate_size, real_hidden))]
                if bias:
                    shapes += [("bias_ih", (gate_size,)), ("bias_hh", (gate_size,))]
                if proj_size > 0:
                    shapes.append(("weight_hr", (proj_size, hidden_size)))
                for name, shape in shapes:
                    setattr(self, name + suffix, Parameter(torch.empty(shape, dtype=dtype)))
                    self._flat_weights_names.append(name + suffix)
        self.reset_parameters()

    def reset_parameters(self):
        bound = 1.0 / math.sqrt(self.hidden_size) if self.hidden_size > 0 else 0
        for weight in self.parameters():
            torch.nn.init.uniform_(weight, -bound, bound)

    def flatten_parameters(self):
        """Nothing to compact: the weights are used as separate tensors (torch's cuDNN layout does not exist)."""

    @property
    def all_weights(self):
        return [[getattr(self, name) for name in self._layer_names(layer, d)]
                for layer in range(self.num_layers) for d in range(2 if self.bidirectional else 1)]

    def _layer_names(self, layer, direction):
        suffix = f"_l{layer}{'_reverse' if direction == 1 else ''}"
        names = ["weight_ih", "weight_hh"] + (["bias_ih", "bias_hh"] if self.bias else [])
        names += ["weight_hr"] if self.proj_size > 0 else []
        return [name + suffix for name in names]

    def extra_repr(self):
        s = f"{self.input_size}, {self.hidden_size}"
        if self.proj_size:
            s += f", proj_size={self.proj_size}"
        if self.num_layers != 1:
            s += f", num_layers={self.num_layers}"
        if not self.bias:
            s += ", bias=False"
        if self.batch_first:
            s += ", batch_first=True"
        if self.dropout:
            s += f", dropout={self.dropout}"
        if self.bidirectional:
            s += ", bidirectional=True"
        return s

    # ---------------------------------------------------------------- forward
    def _step(self):
        if self.mode == "LSTM":
            return _lstm_step
        if self.mode == "GRU":
            return _gru_step
        return _rnn_step(torch.tanh if self.mode == "RNN_TANH" else torch.relu)

    def _initial_states(self, hx, batch, dtype, is_batched):
        directions = 2 if self.bidirectional else 1
        out_size = self.proj_size if self.proj_size > 0 else self.hidden_size
        if hx is None:
            h = torch.zeros((self.num_layers * directions, batch, out_size), dtype=dtype)
            if self.mode == "LSTM":
                return h, torch.zeros((self.num_layers * directions, batch, self.hidden_size), dtype=dtype)
            return h
        states = hx if self.mode == "LSTM" else (hx,)
        expected_dims = 3 if is_batched else 2
        for state in states:
            if state.dim() != expected_dims:
                raise RuntimeError(f"For {'batched' if is_batched else 'unbatched'} {expected_dims - 1}-D input, hx "
                                   f"should also be {expected_dims}-D but got {state.dim()}-D tensor")
        states = tuple(s if is_batched else s.unsqueeze(1) for s in states)
        expected = [(self.num_layers * directions, batch, out_size)]
        if self.mode == "LSTM":
            expected.append((self.num_layers * directions, batch, self.hidden_size))
        for state, shape in zip(states, expected):
            if tuple(state.shape) != shape:
                raise RuntimeError(f"Expected hidden size {shape}, got {list(state.shape)}")
        return states if self.mode == "LSTM" else states[0]

    def forward(self, input, hx=None):
        from ..utils.rnn import PackedSequence, pack_padded_sequence, pad_packed_sequence

        packed = isinstance(input, PackedSequence)
        if packed:
            padded, lengths = pad_packed_sequence(input)  # (L, N, H), lengths in the original batch order
            lengths = [int(n) for n in lengths]
            x, is_batched = padded, True
        else:
            if input.dim() not in (2, 3):
                raise ValueError(f"{type(self).__name__}: Expected input to be 2D or 3D, got {input.dim()}D instead")
            is_batched = input.dim() == 3
            x = input if is_batched else input.unsqueeze(1)
            if is_batched and self.batch_first:
                x = x.transpose(0, 1)
            lengths = None
        if x.shape[-1] != self.input_size:
            raise RuntimeError(f"input.size(-1) must be equal to input_size. Expected {self.input_size}, got "
                               f"{x.shape[-1]}")
        states = self._initial_states(hx, x.shape[1], x.dtype, is_batched)
        output, final = self._run_layers(x, states, lengths)
        if packed:
            output = pack_padded_sequence(output, torch.tensor(lengths), enforce_sorted=False)
        elif is_batched and self.batch_first:
            output = output.transpose(0, 1)
        elif not is_batched:
            output = output.squeeze(1)
            final = tuple(s.squeeze(1) for s in final) if self.mode == "LSTM" else final.squeeze(1)
        return output, final

    def _run_layers(self, x, states, lengths):
        directions = 2 if self.bidirectional else 1
        lstm = self.mode == "LSTM"
        finals_h, finals_c = [], []
        for layer in range(self.num_layers):
            outputs = []
            for direction in range(directions):
                index = layer * directions + direction
                state = (states[0][index], states[1][index]) if lstm else states[index]
                out, last = self._run_direction(x, state, layer, direction, lengths)
                outputs.append(out)
                if lstm:
                    finals_h.append(last[0])
                    finals_c.append(last[1])
                else:
                    finals_h.append(last)
            x = outputs[0] if directions == 1 else torch.cat(outputs, -1)
            if self.dropout and self.training and layer < self.num_layers - 1:
                x = F.dropout(x, self.dropout, True)
        h_n = torch.stack(finals_h, 0)
        return x, ((h_n, torch.stack(finals_c, 0)) if lstm else h_n)

    def _run_direction(self, x, state, layer, direction, lengths):
        names = self._layer_names(layer, direction)
        weights = {name.split("_l")[0]: getattr(self, name) for name in names}
        step = self._step()
        extra = (weights["weight_hr"],) if "weight_hr" in weights else ()
        # the input projection of every time step at once
        x_proj = F.linear(x, weights["weight_ih"], weights.get("bias_ih"))
        steps = x.shape[0]
        order = range(steps - 1, -1, -1) if direction == 1 else range(steps)
        masks = None
        if lengths is not None:
            valid = torch.tensor([[t < n for n in lengths] for t in range(steps)]).unsqueeze(-1)  # (L, N, 1)
            masks = valid.to(x.dtype)
        outputs = [None] * steps
        for t in order:
            new = step(x_proj[t], state, weights["weight_hh"], weights.get("bias_hh"), *extra)
            if masks is not None:
                # a finished sequence keeps its state (its reverse pass starts at its own last element)
                keep = masks[t]
                new = (tuple(keep * n + (1 - keep) * s for n, s in zip(new, state)) if isinstance(new, tuple)
                       else keep * new + (1 - keep) * state)
            state = new
            h = state[0] if isinstance(state, tuple) else state
            outputs[t] = h if masks is None else h * masks[t]
        return torch.stack(outputs, 0), state


class RNN(RNNBase):
    def __init__(self, input_size, hidden_size, num_layers=1, nonlinearity="tanh", bias=True, batch_first=False,
                 dropout=0.0, bidirectional=False, device=None, dtype=None):
        if nonlinearity not in ("tanh", "relu"):
            raise ValueError(f"Unknown nonlinearity '{nonlinearity}'. Select from 'tanh' or 'relu'.")
        self.nonlinearity = nonlinearity
        super().__init__("RNN_TANH" if nonlinearity == "tanh" else "RNN_RELU", input_size, hidden_size, num_layers,
                         bias, batch_first, dropout, bidirectional, 0, device, dtype)


class LSTM(RNNBase):
    def __init__(self, input_size, hidden_size, num_layers=1, bias=True, batch_first=False, dropout=0.0,
                 bidirectional=False, proj_size=0, device=None, dtype=None):
        super().__init__("LSTM", input_size, hidden_size, num_layers, bias, batch_first, dropout, bidirectional,
                         proj_size, device, dtype)


class GRU(RNNBase):
    def __init__(self, input_size, hidden_size, num_layers=1, bias=True, batch_first=False, dropout=0.0,
                 bidirectional=False, device=None, dtype=None):
        super().__init__("GRU", input_size, hidden_size, num_layers, bias, batch_first, dropout, bidirectional, 0,
                         device, dtype)


class RNNCellBase(Module):
    _gates = 1

    def __init__(self, input_size, hidden_size, bias=True, num_chunks=None, device=None, dtype=None):
        super().__init__()
        chunks = num_chunks or self._gates
        self.input_size, self.hidden_size, self.bias = input_size, hidden_size, bias
        self.weight_ih = Parameter(torch.empty((chunks * hidden_size, input_size), dtype=dtype))
        self.weight_hh = Parameter(torch.empty((chunks * hidden_size, hidden_size), dtype=dtype))
        if bias:
            self.bias_ih = Parameter(torch.empty(chunks * hidden_size, dtype=dtype))
            self.bias_hh = Parameter(torch.empty(chunks * hidden_size, dtype=dtype))
        else:
            self.register_parameter("bias_ih", None)
            self.register_parameter("bias_hh", None)
        self.reset_parameters()

    def reset_parameters(self):
        bound = 1.0 / math.sqrt(self.hidden_size) if self.hidden_size > 0 else 0
        for weight in self.parameters():
            torch.nn.init.uniform_(weight, -bound, bound)

    def extra_repr(self):
        s = f"{self.input_size}, {self.hidden_size}"
        if not self.bias:
            s += ", bias=False"
        if getattr(self, "nonlinearity", "tanh") != "tanh":
            s += f", nonlinearity={self.nonlinearity}"
        return s

    def _batched(self, input, hx, count):
        if input.dim() not in (1, 2):
            raise ValueError(f"{type(self).__name__}: Expected input to be 1D or 2D, got {input.dim()}D instead")
        batched = input.dim() == 2
        x = input if batched else input.unsqueeze(0)
        if hx is None:
            zeros = torch.zeros((x.shape[0], self.hidden_size), dtype=x.dtype)
            states = (zeros,) * count
        else:
            states = tuple(hx) if count > 1 else (hx,)
            states = tuple(s if batched else s.unsqueeze(0) for s in states)
        return x, states, batched


class RNNCell(RNNCellBase):
    def __init__(self, input_size, hidden_size, bias=True, nonlinearity="tanh", device=None, dtype=None):
        self.nonlinearity = nonlinearity
        super().__init__(input_size, hidden_size, bias, 1, device, dtype)
        if nonlinearity not in ("tanh", "relu"):
            raise ValueError(f"Unknown nonlinearity: {nonlinearity}")

    def forward(self, input, hx=None):
        x, (h,), batched = self._batched(input, hx, 1)
        step = _rnn_step(torch.tanh if self.nonlinearity == "tanh" else torch.relu)
        out = step(F.linear(x, self.weight_ih, self.bias_ih), h, self.weight_hh, self.bias_hh)
        return out if batched else out.squeeze(0)


class LSTMCell(RNNCellBase):
    _gates = 4

    def __init__(self, input_size, hidden_size, bias=True, device=None, dtype=None):
        super().__init__(input_size, hidden_size, bias, 4, device, dtype)

    def forward(self, input, hx=None):
        x, (h, c), batched = self._batched(input, hx, 2)
        h, c = _lstm_step(F.linear(x, self.weight_ih, self.bias_ih), (h, c), self.weight_hh, self.bias_hh)
        return (h, c) if batched else (h.squeeze(0), c.squeeze(0))


class GRUCell(RNNCellBase):
    _gates = 3

    def __init__(self, input_size, hidden_size, bias=True, device=None, dtype=None):
        super().__init__(input_size, hidden_size, bias, 3, device, dtype)

    def forward(self, input, hx=None):
        x, (h,), batched = self._batched(input, hx, 1)
        out = _gru_step(F.linear(x, self.weight_ih, self.bias_ih), h, self.weight_hh, self.bias_hh)
        return out if batched else out.squeeze(0)
