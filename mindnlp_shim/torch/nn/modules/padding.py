"""Padding modules: Zero, Constant, Reflection, Replication and Circular padding over the last 1-3 dimensions.

`padding` is an int (the same on every side) or torch's tuple (left, right[, top, bottom[, front, back]]),
last dimension first."""
from .. import functional as F
from .module import Module


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
        # the non-constant kernels take a batch dimension: an unbatched input gets one for the call
        unbatched = input.dim() == self._dims + 1
        out = F.pad(input.unsqueeze(0) if unbatched else input, self.padding, self._mode)
        return out.squeeze(0) if unbatched else out

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
