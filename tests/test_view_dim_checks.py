"""The dims of transpose and permute are checked as torch checks them, on tensors of every rank: a 0-d or 1-d
tensor takes dims -1 and 0 only, a permutation must name each dim once. Compared with real torch: the same
result shape, or an exception of the same type."""
import pytest

import mindnlp_shim.torch as mt
from conftest import SUBPROCESS_FLAG, real_torch, subprocess_fallback

rt = real_torch()
if rt is None:
    globals()[SUBPROCESS_FLAG] = True
    test_whole_module_in_subprocess = subprocess_fallback(__file__)

SHAPES = [(), (3,), (2, 3), (2, 3, 4)]
TRANSPOSE_DIMS = [(0, 0), (0, 1), (-1, 0), (0, -2), (1, 1), (-3, 2), (2, 0), (3, 0), (0, -4)]
PERMUTE_DIMS = [(), (0,), (-1,), (1,), (0, 0), (1, 0), (0, 1), (-1, -2), (1, -1), (0, 2), (1, 0, 2), (2, 0, 1),
                (0, 0, 1), (2, 1, 0, 3)]


def _outcome(fn):
    try:
        return ("shape", tuple(fn().shape))
    except Exception as exc:  # noqa: BLE001 - the exception's type is what is compared
        return ("raises", type(exc).__name__)


@pytest.mark.parametrize("shape", SHAPES, ids=str)
@pytest.mark.parametrize("dims", TRANSPOSE_DIMS, ids=str)
@pytest.mark.parametrize("form", ["method", "function", "swapaxes"])
def test_transpose_dims_as_torch(shape, dims, form):
    def call(torch):
        x = torch.zeros(shape)
        if form == "method":
            return lambda: x.transpose(*dims)
        if form == "function":
            return lambda: torch.transpose(x, *dims)
        return lambda: x.swapaxes(*dims)

    assert _outcome(call(mt)) == _outcome(call(rt))


@pytest.mark.parametrize("shape", SHAPES, ids=str)
@pytest.mark.parametrize("dims", PERMUTE_DIMS, ids=str)
def test_permute_dims_as_torch(shape, dims):
    def call(torch, as_tuple):
        x = torch.zeros(shape)
        return (lambda: x.permute(dims)) if as_tuple else (lambda: x.permute(*dims))

    for as_tuple in (False, True):
        assert _outcome(call(mt, as_tuple)) == _outcome(call(rt, as_tuple)), as_tuple


def test_permute_function_form_as_torch():
    for shape in SHAPES:
        for dims in PERMUTE_DIMS:
            ours = _outcome(lambda: mt.permute(mt.zeros(shape), dims))
            theirs = _outcome(lambda: rt.permute(rt.zeros(shape), dims))
            assert ours == theirs, (shape, dims)


def test_transposed_values_and_memory_are_torch_s():
    """The cheaper kernel call keeps the view: same values as torch, and a write through it reaches the base."""
    import numpy as np

    values = np.arange(24, dtype=np.float32).reshape(2, 3, 4)
    ours, theirs = mt.tensor(values), rt.tensor(values)
    for fn in (lambda x: x.transpose(0, 2), lambda x: x.permute(2, 0, 1), lambda x: x.unsqueeze(1),
               lambda x: x.view(6, 4), lambda x: x[:, 1:], lambda x: x[..., :2]):
        np.testing.assert_array_equal(fn(ours).numpy(), fn(theirs).numpy())
        assert fn(ours).stride() == fn(theirs).stride()
    view = ours.transpose(0, 2)
    view[0, 0, 0] = 100.0
    assert float(ours[0, 0, 0]) == 100.0


@pytest.mark.parametrize("shape", SHAPES, ids=str)
@pytest.mark.parametrize("form", ["mT", "mH", "adjoint_method", "adjoint_function"])
def test_matrix_transposes_as_torch(shape, form):
    """mT, mH and adjoint swap the last two dims, refuse a 1-d tensor (RuntimeError) and give a 0-d one as is."""
    import warnings

    def call(torch):
        x = torch.zeros(shape)
        return {"mT": lambda: x.mT, "mH": lambda: x.mH, "adjoint_method": lambda: x.adjoint(),
                "adjoint_function": lambda: torch.adjoint(x)}[form]

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # (torch deprecates them on 0-d tensors)
        assert _outcome(call(mt)) == _outcome(call(rt))
