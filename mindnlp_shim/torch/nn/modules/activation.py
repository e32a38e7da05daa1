"""Activation modules; each forwards to the functional of the same name."""
from .. import functional as F
from .module import Module


def _simple(name, fn, doc):
    """A module without arguments that applies `fn`."""
    def forward(self, input):
        return fn(input)

    return type(name, (Module,), {"forward": forward, "__doc__": doc})


def _with_inplace(name, fn, doc, shows_inplace=True):
    """A module whose one argument, `inplace`, is passed on to `fn` (which then writes into its input and returns
    it, as torch's does); `shows_inplace`: its repr says `inplace=True` when set (torch's Hardsigmoid and
    Hardswish do not)."""
    def __init__(self, inplace=False):
        Module.__init__(self)
        self.inplace = inplace

    def forward(self, input):
        return fn(input, inplace=self.inplace)

    namespace = {"__init__": __init__, "forward": forward, "__doc__": doc}
    if shows_inplace:
        namespace["extra_repr"] = lambda self: "inplace=True" if self.inplace else ""
    return type(name, (Module,), namespace)


def _inplace_suffix(module):
    return ", inplace=True" if module.inplace else ""


Tanh = _simple("Tanh", F.tanh, "Elementwise tanh.")
Sigmoid = _simple("Sigmoid", F.sigmoid, "Elementwise logistic sigmoid.")
Softsign = _simple("Softsign", F.softsign, "x / (1 + |x|).")
LogSigmoid = _simple("LogSigmoid", F.logsigmoid, "log(sigmoid(x)).")
Tanhshrink = _simple("Tanhshrink", lambda x: x - F.tanh(x), "x - tanh(x).")
SiLU = _with_inplace("SiLU", F.silu, "x * sigmoid(x).")
Mish = _with_inplace("Mish", F.mish, "x * tanh(softplus(x)).")
ReLU = _with_inplace("ReLU", F.relu, "max(x, 0).")
ReLU6 = _with_inplace("ReLU6", F.relu6, "min(max(x, 0), 6).")
SELU = _with_inplace("SELU", F.selu, "Scaled ELU.")
Hardsigmoid = _with_inplace("Hardsigmoid", F.hardsigmoid, "Piecewise-linear sigmoid.", shows_inplace=False)
Hardswish = _with_inplace("Hardswish", F.hardswish, "x * hardsigmoid(x).", shows_inplace=False)


class GELU(Module):
    def __init__(self, approximate="none"):
        super().__init__()
        self.approximate = approximate

    def forward(self, input):
        return F.gelu(input, approximate=self.approximate)

    def extra_repr(self):
        return f"approximate={self.approximate!r}"


class LeakyReLU(Module):
    def __init__(self, negative_slope=0.01, inplace=False):
        super().__init__()
        self.negative_slope, self.inplace = negative_slope, inplace

    def forward(self, input):
        return F.leaky_relu(input, self.negative_slope, self.inplace)

    def extra_repr(self):
        return f"negative_slope={self.negative_slope}{_inplace_suffix(self)}"


class ELU(Module):
    def __init__(self, alpha=1.0, inplace=False):
        super().__init__()
        self.alpha, self.inplace = alpha, inplace

    def forward(self, input):
        return F.elu(input, self.alpha, self.inplace)

    def extra_repr(self):
        return f"alpha={self.alpha}{_inplace_suffix(self)}"


class Hardtanh(Module):
    def __init__(self, min_val=-1.0, max_val=1.0, inplace=False):
        super().__init__()
        self.min_val, self.max_val, self.inplace = min_val, max_val, inplace

    def forward(self, input):
        return F.hardtanh(input, self.min_val, self.max_val, self.inplace)

    def extra_repr(self):
        return f"min_val={self.min_val}, max_val={self.max_val}{_inplace_suffix(self)}"


class Softplus(Module):
    def __init__(self, beta=1.0, threshold=20.0):
        super().__init__()
        self.beta, self.threshold = beta, threshold

    def forward(self, input):
        return F.softplus(input, self.beta, self.threshold)

    def extra_repr(self):
        return f"beta={self.beta}, threshold={self.threshold}"


class GLU(Module):
    def __init__(self, dim=-1):
        super().__init__()
        self.dim = dim

    def forward(self, input):
        return F.glu(input, self.dim)

    def extra_repr(self):
        return f"dim={self.dim}"


class _DimModule(Module):
    def __init__(self, dim=None):
        super().__init__()
        self.dim = dim

    def extra_repr(self):
        return f"dim={self.dim}"


class Softmax(_DimModule):
    def forward(self, input):
        return F.softmax(input, self.dim)


class LogSoftmax(_DimModule):
    def forward(self, input):
        return F.log_softmax(input, self.dim)


class Softmin(_DimModule):
    def forward(self, input):
        return F.softmin(input, self.dim)
