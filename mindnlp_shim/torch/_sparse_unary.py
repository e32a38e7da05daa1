"""torch's elementwise functions of a sparse COO tensor that map zero to zero (`torch.sin(s)`, `s.abs()`,
`torch.isnan(s)` ...).

torch computes them on the coalesced tensor: the result has its indices and the dense function of its
values, is coalesced, and keeps an entry where the function gives zero (torch's measured behaviour, also for
the functions that are linear). The dtype is the dense function's (an integer tensor's sin is float, isnan
is bool). Gradients reach the values through the dense function. `torch.neg` keeps the entries as they are
(SparseCooTensor.neg); the other functions, and the in-place forms, refuse a sparse tensor.
"""
from ._sparse_coo import SparseCooTensor

# torch's sparse kernels of these coalesce first (measured against torch 2.13)
ZERO_PRESERVING = (
    "abs", "absolute", "asin", "arcsin", "asinh", "arcsinh", "atan", "arctan", "atanh", "arctanh", "ceil", "floor",
    "round", "trunc", "fix", "frac", "deg2rad", "rad2deg", "erf", "erfinv", "expm1", "log1p", "sgn", "sign",
    "signbit", "sin", "sinh", "sqrt", "square", "tan", "tanh", "relu", "isnan", "isinf", "isposinf", "isneginf",
    "nan_to_num",
)


def _zero_preserving(name, dense):
    def on_values(input, *args, **kwargs):
        coalesced = input.coalesce()
        values = dense(coalesced._vals, *args, **kwargs)
        return SparseCooTensor(coalesced._idx, values, coalesced._size, True)

    on_values.__name__ = on_values.__qualname__ = name
    return on_values


def install(namespace, guarded):
    """`torch.<name>` of a sparse tensor and `SparseCooTensor.<name>` for each function above; `guarded(fn,
    name, sparse_answer)` sends a call with a sparse operand to `sparse_answer`."""
    for name in ZERO_PRESERVING:
        dense = namespace[name]
        sparse_answer = _zero_preserving(name, dense)
        setattr(SparseCooTensor, name, sparse_answer)
        namespace[name] = guarded(dense, name, sparse_answer)
    SparseCooTensor.__abs__ = SparseCooTensor.abs
    for name in ("neg", "negative"):  # linear: torch keeps the entries, duplicates too
        namespace[name] = guarded(namespace[name], name, SparseCooTensor.neg)
