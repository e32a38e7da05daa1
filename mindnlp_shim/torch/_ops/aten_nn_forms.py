"""More torch.<name> operator-level forms of nn functions, under the conventions of torch's own operators (as
aten_forms.py): in-place activations and dropouts with a positional `train`, integer reduction, interpolation and
padding codes, the `native_*` norms that also return their statistics, and the single-step recurrent cells.
nn.functional is imported on first call."""
__all__ = ["celu_", "selu_", "rrelu_", "threshold_", "dropout_", "feature_dropout", "feature_dropout_",
           "alpha_dropout_", "feature_alpha_dropout", "feature_alpha_dropout_", "bilinear", "ctc_loss", "grid_sampler",
           "grid_sampler_2d", "affine_grid_generator", "native_layer_norm", "native_group_norm", "native_batch_norm",
           "rnn_tanh_cell", "rnn_relu_cell", "lstm_cell", "gru_cell", "view_as_complex_copy", "convolution",
           "native_dropout", "batch_norm_update_stats"]

_REDUCTIONS = {0: "none", 1: "mean", 2: "sum"}
_INTERPOLATIONS = {0: "bilinear", 1: "nearest", 2: "bicubic"}
_PADDINGS = {0: "zeros", 1: "border", 2: "reflection"}


def _F():
    from ..nn import functional

    return functional


def _torch():
    import importlib

    return importlib.import_module(__package__.rsplit(".", 1)[0])


def _code(table, code, what):
    if code not in table:
        raise RuntimeError(f"{code} is not a valid value for {what}")
    return table[code]


# ---------------------------------------------------------------- in-place activations and dropouts
def celu_(input, alpha=1.0):
    return _F().celu_(input, alpha)


def selu_(input):
    return _F().selu_(input)


def rrelu_(input, lower=0.125, upper=1.0 / 3.0, training=False, generator=None):
    return _F().rrelu_(input, lower, upper, training)


def threshold_(input, threshold, value):
    return _F().threshold_(input, threshold, value)


def dropout_(input, p, train):
    return _F().dropout(input, p, train, inplace=True)


def _feature_dropout(input, p, train, inplace):
    # one draw per (sample, channel), shared over the remaining dims (F's channel dropout for 3-5 dims)
    if input.ndim < 2:
        raise RuntimeError("Feature dropout requires at least 2 dimensions in the input")
    if input.ndim == 2:
        return _F().dropout(input, p, train, inplace)
    return _F().dropout2d(input, p, train, inplace)


def feature_dropout(input, p, train):
    return _feature_dropout(input, p, train, False)


def feature_dropout_(input, p, train):
    return _feature_dropout(input, p, train, True)


def alpha_dropout_(input, p, train):
    return _F().alpha_dropout(input, p, train, inplace=True)


def feature_alpha_dropout(input, p, train):
    return _F().feature_alpha_dropout(input, p, train)


def feature_alpha_dropout_(input, p, train):
    return _F().feature_alpha_dropout(input, p, train, inplace=True)


def native_dropout(input, p, train):
    """(output, mask): the mask is True where an element is kept (torch's draws, as F.dropout's)."""
    torch = _torch()
    F = _F()
    if not train or p == 0.0:
        return input.clone(), torch.ones(tuple(input.shape), dtype=torch.bool)
    if p == 1.0:
        return input * 0.0, torch.zeros(tuple(input.shape), dtype=torch.bool)
    keep = torch.tensor(F._keep_bools(tuple(input.shape), p))
    return input * keep.to(input.dtype) * (1.0 / (1.0 - p)), keep


# ---------------------------------------------------------------- layers and losses
def convolution(input, weight, bias, stride, padding, dilation, transposed, output_padding, groups):
    """torch's convolution entry point: 1-d, 2-d or 3-d, direct or transposed, by the weight's rank."""
    F = _F()
    spatial = weight.ndim - 2
    if spatial not in (1, 2, 3):
        raise RuntimeError(f"convolution: expected a weight of 3, 4 or 5 dimensions, got {weight.ndim}")
    if transposed:
        call = (F.conv_transpose1d, F.conv_transpose2d, F.conv_transpose3d)[spatial - 1]
        return call(input, weight, bias, tuple(stride), tuple(padding), tuple(output_padding), groups,
                    tuple(dilation))
    call = (F.conv1d, F.conv2d, F.conv3d)[spatial - 1]
    return call(input, weight, bias, tuple(stride), tuple(padding), tuple(dilation), groups)


def bilinear(input1, input2, weight, bias=None):
    return _F().bilinear(input1, input2, weight, bias)


def ctc_loss(log_probs, targets, input_lengths, target_lengths, blank=0, reduction=1, zero_infinity=False):
    return _F().ctc_loss(log_probs, targets, input_lengths, target_lengths, blank,
                         _code(_REDUCTIONS, reduction, "reduction"), zero_infinity)


def grid_sampler(input, grid, interpolation_mode, padding_mode, align_corners):
    return _F().grid_sample(input, grid, _code(_INTERPOLATIONS, interpolation_mode, "interpolation_mode"),
                            _code(_PADDINGS, padding_mode, "padding_mode"), align_corners)


def grid_sampler_2d(input, grid, interpolation_mode, padding_mode, align_corners):
    if input.ndim != 4:
        raise RuntimeError(f"grid_sampler_2d(): expected 4D input, but got input with sizes {list(input.shape)}")
    return grid_sampler(input, grid, interpolation_mode, padding_mode, align_corners)


def affine_grid_generator(theta, size, align_corners):
    return _F().affine_grid(theta, list(size), align_corners)


# ---------------------------------------------------------------- norms with their statistics
def native_layer_norm(input, normalized_shape, weight, bias, eps):
    """(output, mean, rstd): the statistics keep the normalized dims as size 1."""
    dims = tuple(range(input.ndim - len(normalized_shape), input.ndim))
    stats = input.detach()
    mean = stats.mean(dims, keepdim=True)
    rstd = (stats.var(dims, unbiased=False, keepdim=True) + eps).rsqrt()
    return _F().layer_norm(input, tuple(normalized_shape), weight, bias, eps), mean, rstd


def native_group_norm(input, weight, bias, N, C, HxW, group, eps):
    """(output, mean, rstd), the statistics of shape (N, group); torch records them too (their gradients reach
    the input), unlike native_layer_norm's."""
    grouped = input.reshape(N, group, -1)
    mean = grouped.mean(-1)
    rstd = (grouped.var(-1, unbiased=False) + eps).rsqrt()
    return _F().group_norm(input, group, weight, bias, eps), mean, rstd


def native_batch_norm(input, weight, bias, running_mean, running_var, training, momentum, eps):
    """(output, save_mean, save_invstd): the batch statistics per channel when training, empty otherwise."""
    torch = _torch()
    out = _F().batch_norm(input, running_mean, running_var, weight, bias, training, momentum, eps)
    if not training:
        empty = torch.empty(0, dtype=input.dtype)
        return out, empty, empty.clone()
    dims = (0,) + tuple(range(2, input.ndim))
    stats = input.detach()
    mean = stats.mean(dims)
    invstd = (stats.var(dims, unbiased=False) + eps).rsqrt()
    return out, mean, invstd


def batch_norm_update_stats(input, running_mean, running_var, momentum):
    """(mean, biased var) of the batch per channel; the running statistics move towards them in place (the
    running variance towards the unbiased one, as batch_norm's)."""
    torch = _torch()
    dims = (0,) + tuple(range(2, input.ndim))
    stats = input.detach()
    mean, var = stats.mean(dims), stats.var(dims, unbiased=False)
    count = stats.numel() // stats.shape[1]
    with torch.no_grad():
        if running_mean is not None:
            running_mean.mul_(1 - momentum).add_(mean * momentum)
        if running_var is not None:
            running_var.mul_(1 - momentum).add_(var * (count / max(count - 1, 1)) * momentum)
    return mean, var


# ---------------------------------------------------------------- recurrent cells (one time step)
def _gates(input, hx, w_ih, w_hh, b_ih, b_hh):
    F = _F()
    return F.linear(input, w_ih, b_ih), F.linear(hx, w_hh, b_hh)


def rnn_tanh_cell(input, hx, w_ih, w_hh, b_ih=None, b_hh=None):
    x, h = _gates(input, hx, w_ih, w_hh, b_ih, b_hh)
    return (x + h).tanh()


def rnn_relu_cell(input, hx, w_ih, w_hh, b_ih=None, b_hh=None):
    x, h = _gates(input, hx, w_ih, w_hh, b_ih, b_hh)
    return (x + h).relu()


def lstm_cell(input, hx, w_ih, w_hh, b_ih=None, b_hh=None):
    h, c = hx
    x, hh = _gates(input, h, w_ih, w_hh, b_ih, b_hh)
    i, f, g, o = (x + hh).chunk(4, -1)
    c_next = f.sigmoid() * c + i.sigmoid() * g.tanh()
    return o.sigmoid() * c_next.tanh(), c_next


def gru_cell(input, hx, w_ih, w_hh, b_ih=None, b_hh=None):
    x, h = _gates(input, hx, w_ih, w_hh, b_ih, b_hh)
    x_r, x_z, x_n = x.chunk(3, -1)
    h_r, h_z, h_n = h.chunk(3, -1)
    r, z = (x_r + h_r).sigmoid(), (x_z + h_z).sigmoid()
    n = (x_n + r * h_n).tanh()
    return n + z * (hx - n)


def view_as_complex_copy(input):
    return _torch().view_as_complex(input).clone()
