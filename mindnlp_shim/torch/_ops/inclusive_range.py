"""torch.range: the deprecated inclusive arange, in a module of its own (its name shadows Python's range)."""
import math

import numpy as np
import mindspore

from .. import _dtype
from . import creation
from ._util import no_kernel, write_out


def range(start, end, step=1, *, out=None, dtype=None, layout=None, device=None, requires_grad=False):
    """start, start + step, ... up to and including end, in the default float dtype."""
    if out is not None:  # (computed in out's dtype, resized without a warning: a factory's out=)
        from ._util import out_dtype

        value = range(start, end, step, dtype=dtype or out_dtype(out, "range"))
        return write_out(out, value, "range", warn_resize=False, differentiable=False)
    if dtype in _dtype.COMPLEX or dtype == mindspore.bool_:
        raise no_kernel("range_cpu", dtype)
    if step == 0:
        raise RuntimeError("step must be nonzero")
    n = int(math.floor((end - start) / step)) + 1
    values = start + step * np.arange(max(n, 0), dtype=np.float64)
    result = creation.tensor(values, dtype=dtype or _dtype.get_default_dtype(), device=device,
                             requires_grad=requires_grad)
    return result
