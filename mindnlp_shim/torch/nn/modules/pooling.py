"""Pooling modules: MaxPool, AvgPool, LPPool, AdaptiveMaxPool, AdaptiveAvgPool3d and MaxUnpool over 1-3 spatial
dimensions; each forwards to the functional of the same name with its stored options.

Shapes: input (N, C, *spatial) or (C, *spatial); output (N, C, *out) with out per dimension
floor((size + 2 padding - dilation (kernel - 1) - 1) / stride) + 1 (ceil with ceil_mode)."""
from .. import _pool_functions as P
from .module import Module


class _MaxPoolNd(Module):
    _function = None

    def __init__(self, kernel_size, stride=None, padding=0, dilation=1, return_indices=False, ceil_mode=False):
        super().__init__()
        self.kernel_size = kernel_size
        self.stride = stride if stride is not None else kernel_size
        self.padding, self.dilation = padding, dilation
        self.return_indices, self.ceil_mode = return_indices, ceil_mode

    def forward(self, input):
        return type(self)._function(input, self.kernel_size, self.stride, self.padding, self.dilation,
                                    ceil_mode=self.ceil_mode, return_indices=self.return_indices)

    def extra_repr(self):
        return (f"kernel_size={self.kernel_size}, stride={self.stride}, padding={self.padding}, "
                f"dilation={self.dilation}, ceil_mode={self.ceil_mode}")


class MaxPool1d(_MaxPoolNd):
    _function = staticmethod(P.max_pool1d)


class MaxPool2d(_MaxPoolNd):
    _function = staticmethod(P.max_pool2d)


class MaxPool3d(_MaxPoolNd):
    _function = staticmethod(P.max_pool3d)


class AvgPool1d(Module):
    def __init__(self, kernel_size, stride=None, padding=0, ceil_mode=False, count_include_pad=True):
        super().__init__()
        self.kernel_size = _single(kernel_size)
        self.stride = _single(stride if stride is not None else kernel_size)
        self.padding = _single(padding)
        self.ceil_mode, self.count_include_pad = ceil_mode, count_include_pad

    def forward(self, input):
        return P.avg_pool1d(input, self.kernel_size, self.stride, self.padding, self.ceil_mode,
                            self.count_include_pad)

    def extra_repr(self):
        return f"kernel_size={self.kernel_size}, stride={self.stride}, padding={self.padding}"


def _n_tuple(value, n):
    return tuple(value) if isinstance(value, (tuple, list)) else (value,) * n


def _single(value):
    return tuple(value) if isinstance(value, (tuple, list)) else (value,)


class _AvgPoolNd(Module):
    _function = None

    def __init__(self, kernel_size, stride=None, padding=0, ceil_mode=False, count_include_pad=True,
                 divisor_override=None):
        super().__init__()
        self.kernel_size = kernel_size
        self.stride = stride if stride is not None else kernel_size
        self.padding, self.ceil_mode = padding, ceil_mode
        self.count_include_pad, self.divisor_override = count_include_pad, divisor_override

    def forward(self, input):
        return type(self)._function(input, self.kernel_size, self.stride, self.padding, self.ceil_mode,
                                    self.count_include_pad, self.divisor_override)

    def extra_repr(self):
        return f"kernel_size={self.kernel_size}, stride={self.stride}, padding={self.padding}"


class AvgPool2d(_AvgPoolNd):
    _function = staticmethod(P.avg_pool2d)


class AvgPool3d(_AvgPoolNd):
    _function = staticmethod(P.avg_pool3d)


class _LPPoolNd(Module):
    _function = None

    def __init__(self, norm_type, kernel_size, stride=None, ceil_mode=False):
        super().__init__()
        self.norm_type, self.kernel_size, self.stride, self.ceil_mode = norm_type, kernel_size, stride, ceil_mode

    def forward(self, input):
        return type(self)._function(input, float(self.norm_type), self.kernel_size, self.stride, self.ceil_mode)

    def extra_repr(self):
        return (f"norm_type={self.norm_type}, kernel_size={self.kernel_size}, stride={self.stride}, "
                f"ceil_mode={self.ceil_mode}")


class LPPool1d(_LPPoolNd):
    _function = staticmethod(P.lp_pool1d)


class LPPool2d(_LPPoolNd):
    _function = staticmethod(P.lp_pool2d)


class LPPool3d(_LPPoolNd):
    _function = staticmethod(P.lp_pool3d)


class _AdaptiveMaxPoolNd(Module):
    _function = None

    def __init__(self, output_size, return_indices=False):
        super().__init__()
        self.output_size, self.return_indices = output_size, return_indices

    def forward(self, input):
        return type(self)._function(input, self.output_size, self.return_indices)

    def extra_repr(self):
        return f"output_size={self.output_size}"


class AdaptiveMaxPool1d(_AdaptiveMaxPoolNd):
    _function = staticmethod(P.adaptive_max_pool1d)


class AdaptiveMaxPool2d(_AdaptiveMaxPoolNd):
    _function = staticmethod(P.adaptive_max_pool2d)


class AdaptiveMaxPool3d(_AdaptiveMaxPoolNd):
    _function = staticmethod(P.adaptive_max_pool3d)


class AdaptiveAvgPool3d(Module):
    def __init__(self, output_size):
        super().__init__()
        self.output_size = output_size

    def forward(self, input):
        return P.adaptive_avg_pool3d(input, self.output_size)

    def extra_repr(self):
        return f"output_size={self.output_size}"


class _MaxUnpoolNd(Module):
    _function = None

    _dims = 1

    def __init__(self, kernel_size, stride=None, padding=0):
        super().__init__()
        # as tuples of the pooled dimensions, as torch keeps them (and prints them)
        self.kernel_size = _n_tuple(kernel_size, self._dims)
        self.stride = _n_tuple(stride if stride is not None else kernel_size, self._dims)
        self.padding = _n_tuple(padding, self._dims)

    def forward(self, input, indices, output_size=None):
        return type(self)._function(input, indices, self.kernel_size, self.stride, self.padding, output_size)

    def extra_repr(self):
        return f"kernel_size={self.kernel_size}, stride={self.stride}, padding={self.padding}"


class MaxUnpool1d(_MaxUnpoolNd):
    _function = staticmethod(P.max_unpool1d)


class MaxUnpool2d(_MaxUnpoolNd):
    _function = staticmethod(P.max_unpool2d)
    _dims = 2


class MaxUnpool3d(_MaxUnpoolNd):
    _function = staticmethod(P.max_unpool3d)
    _dims = 3
