"""The frame torch puts around every dropout variant (dropout, dropout1d/2d/3d, alpha_dropout and its feature
form): p checked, the input itself outside training or at p == 0, zeros at p == 1, otherwise the variant's own
masking; with inplace the result is written into the input."""
from mindspore import ops


def apply_dropout(input, p, training, inplace, mask_input):
    """`mask_input(input, p)` is called only for 0 < p < 1 in training."""
    if p < 0.0 or p > 1.0:
        raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")
    if not training or p == 0.0:
        return input
    # at p == 1 every element is dropped: the 1 / (1 - p) rescaling would be inf, and 0 * inf NaN
    out = ops.mul(input, 0.0) if p == 1.0 else mask_input(input, p)
    if inplace:
        from .._inplace import assign

        return assign(input, out, value_is_fresh=True)
    return out
