"""Padding modules: Zero, Constant, Reflection, Replication and Circular padding over the last 1-3 dimensions.

`padding` is an int (the same on every side) or torch's tuple (left, right[, top, bottom[, front, back]]),
last dimension first."""
import numpy as np

from .... import torch
from .. import functional as F
from .module import Module


def _source_positions(mode, size, left, right):
    """For each position of a dimension padded by (left, right), the input position it copies."""
    if mode == "reflect" and (left >= size or right >= size):
        raise RuntimeError(f"Argument #4: Padding size should be less than the corresponding input dimension, but "
                           f"got: padding ({left}, {right}) at dimension of size {size}")
    if mode == "circular" and (left > size or right > size):
        raise ValueError("Padding value causes wrapping around more than once.")
    positions = np.arange(-left, size + right)
    if mode == "reflect":
        period = 2 * (size - 1) if size > 1 else 1
        positions = np.abs(positions) % period
        positions = np.where(positions >= size, period - positions, positions)
    elif mode == "replicate":
        positions = np.clip(positions, 0, size - 1)
    else:  # circular
        positions = positions % size
    return positions.astype(np.int64)


class _PadNd(Module):
    _dims = 1
    _mode = "constant"

    def _set_padding(self, padding):
        self.padding = (padding,) * (2 * self._dims) if isinstance(padding, int) else tuple(padding)
        if len(self.padding) != 2 * self._dims:
            raise ValueError(f"expected padding of {2 * self._dims} values, got {len(self.padding)}")

    def forward(self, input):
        if self._mode == "constant":
            return F.pad(input, self.padding, "constant", self.value)
        if input.dim() not in (self._dims + 1, self._dims + 2):
            raise ValueError(f"expected {self._dims + 1}D or {self._dims + 2}D input (got {input.dim()}D input)")
        # one index_select per padded dimension: the same for 1-3 dimensions, and its gradient adds up the
        # copies of each border element
        out = input
        for i in range(self._dims):
            dim = input.dim() - 1 - i
            left, right = self.padding[2 * i], self.padding[2 * i + 1]
            index = _source_positions(self._mode, input.shape[dim], left, right)
            out = out.index_select(dim, torch.tensor(index))
        return out

    def extra_repr(self):
        return f"padding={self.padding}, value={self.value}" if self._mode == "constant" else f"{self.padding}"


class _ConstantPadNd(_PadNd):
    def __init__(self, padding, value):
        super().__init__()
        self._set_padding(padding)
        self.value = value


class _ZeroPadNd(_ConstantPadNd):
    def __init__(self, padding):
        super().__init__(padding, 0.0)

    def extra_repr(self):
        return f"{self.padding}"


class _ModePadNd(_PadNd):
    def __init__(self, padding):
        super().__init__()
        self._set_padding(padding)


_KINDS = {"Zero": (_ZeroPadNd, "constant", "zeros"), "Constant": (_ConstantPadNd, "constant", "a constant value"),
          "Reflection": (_ModePadNd, "reflect", "the input reflected at its border (border excluded)"),
          "Replication": (_ModePadNd, "replicate", "copies of the border element"),
          "Circular": (_ModePadNd, "circular", "the input wrapped around")}
__all__ = []
for _kind, (_base, _mode, _what) in _KINDS.items():
    for _dims in (1, 2, 3):
        _name = f"{_kind}Pad{_dims}d"
        globals()[_name] = type(_name, (_base,), {"_dims": _dims, "_mode": _mode, "__module__": __name__,
                                                  "__doc__": f"Pads the last {_dims} dimension(s) with {_what}."})
        __all__.append(_name)
del _kind, _base, _mode, _what, _dims, _name
