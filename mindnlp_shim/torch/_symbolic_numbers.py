"""torch.sym_* on plain Python numbers. No symbolic shapes are traced under the shim (there is no torch graph
compiler), so these only ever meet ints, floats and bools, and answer as torch's eager versions do for them."""
import math

__all__ = ["sym_int", "sym_float", "sym_max", "sym_min", "sym_not", "sym_ite", "sym_sqrt", "sym_sum"]


def sym_int(a):
    """int(a), truncating toward zero."""
    return int(a)


def sym_float(a):
    return float(a)


def _widened(a, b, value):
    return float(value) if isinstance(a, float) or isinstance(b, float) else value


def sym_max(a, b):
    return _widened(a, b, max(a, b))


def sym_min(a, b):
    return _widened(a, b, min(a, b))


def sym_not(a):
    return not a


def sym_ite(b, t, f):
    return t if b else f


def sym_sqrt(a):
    return math.sqrt(a)


def sym_sum(args):
    return sum(args)
