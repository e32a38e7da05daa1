"""Inputs torch refuses are refused here too, with torch's exception type, where MindSpore's kernels or the
shim's own compositions would compute an answer: a matrix product of tensors of the wrong rank, a narrow that
does not fit, a maximum of nothing, labels outside [0, 1], an arange whose step points away from its end. Each case
is run with real torch and with the shim; both must return the same shape, or both raise the same type."""
import warnings

import pytest

import mindnlp_shim.torch as mt
from conftest import SUBPROCESS_FLAG, real_torch, subprocess_fallback

rt = real_torch()
if rt is None:
    globals()[SUBPROCESS_FLAG] = True
    test_whole_module_in_subprocess = subprocess_fallback(__file__)

CASES = {
    # matrix products: MindSpore's MatMul broadcasts a vector or a batch, a product of elements broadcasts anything
    "mm_of_a_vector": lambda T: T.mm(T.ones(3), T.ones(3, 2)),
    "mm_by_a_vector": lambda T: T.mm(T.ones(2, 3), T.ones(3)),
    "mm_of_a_batch": lambda T: T.mm(T.ones(1, 2, 3), T.ones(3, 2)),
    "mm": lambda T: T.mm(T.ones(2, 3), T.ones(3, 4)),
    "bmm_of_matrices": lambda T: T.bmm(T.ones(2, 3), T.ones(3, 2)),
    "bmm_by_a_matrix": lambda T: T.bmm(T.ones(1, 2, 3), T.ones(3, 2)),
    "bmm_batches_differ": lambda T: T.bmm(T.ones(2, 2, 3), T.ones(3, 3, 2)),
    "bmm_inner_sizes_differ": lambda T: T.bmm(T.ones(2, 2, 3), T.ones(2, 4, 2)),
    "bmm": lambda T: T.bmm(T.ones(2, 2, 3), T.ones(2, 3, 4)),
    "dot_of_matrices": lambda T: T.dot(T.ones(2, 3), T.ones(2, 3)),
    "dot_sizes_differ": lambda T: T.dot(T.ones(3), T.ones(2)),
    "dot_dtypes_differ": lambda T: T.dot(T.ones(3), T.ones(3, dtype=T.float64)),
    "dot_broadcast_scalar": lambda T: T.dot(T.ones(3), T.ones(1)),
    "dot": lambda T: T.dot(T.ones(3), T.ones(3)),
    "outer_of_a_matrix": lambda T: T.outer(T.ones(2, 3), T.ones(2)),
    "outer_of_a_scalar": lambda T: T.outer(T.tensor(1.0), T.ones(2)),
    "ger_by_a_matrix": lambda T: T.ger(T.ones(2), T.ones(2, 1)),
    "outer": lambda T: T.outer(T.ones(2), T.ones(3)),
    # narrow and what crops with it: slicing would clamp a range that does not fit, or wrap a negative length
    "narrow_negative_length": lambda T: T.arange(3.0).narrow(0, 0, -1),
    "narrow_past_the_end": lambda T: T.arange(3.0).narrow(0, 1, 3),
    "narrow_start_out_of_range": lambda T: T.arange(3.0).narrow(0, 4, 0),
    "narrow_negative_start_out_of_range": lambda T: T.arange(3.0).narrow(0, -4, 1),
    "narrow_of_a_scalar": lambda T: T.tensor(1.0).narrow(0, 0, 1),
    "narrow_empty_at_the_end": lambda T: T.arange(3.0).narrow(0, 3, 0),
    "narrow_negative_start": lambda T: T.arange(3.0).narrow(0, -3, 2),
    "pad_crops_more_than_the_dim": lambda T: T.nn.functional.pad(T.ones(2, 3), (-4, 0)),
    "pad_crops_all": lambda T: T.nn.functional.pad(T.ones(2, 3), (-2, -1)),
    # reductions of nothing: MindSpore answers -inf/+inf or a dtype's extreme
    "amax_of_empty": lambda T: T.ones(0, 3).amax(),
    "amin_of_empty": lambda T: T.ones(0, 3).amin(),
    "amax_over_an_empty_dim": lambda T: T.ones(0, 3).amax(0),
    "amax_over_a_full_dim_of_empty": lambda T: T.ones(0, 3).amax(1),
    "aminmax_over_an_empty_dim": lambda T: T.aminmax(T.ones(0, 3), dim=0),
    "sum_of_empty_dim_out_of_range": lambda T: T.ones(0, 3, 4).sum(-4),
    "mean_of_empty_dim_out_of_range": lambda T: T.ones(0).mean(1),
    "sum_of_empty_over_dim": lambda T: T.ones(0, 3).sum(-2),
    # an integer dtype= for a reduction of an input autograd records: torch refuses, the kernel's result left the graph
    "sum_to_long_of_a_grad_input": lambda T: T.ones(3, requires_grad=True).sum(dtype=T.int64),
    "sum_to_long_of_an_empty_grad_input": lambda T: T.ones(0, 2, requires_grad=True).sum(1, dtype=T.int64),
    "prod_to_long_of_a_grad_input": lambda T: T.ones(3, requires_grad=True).prod(dtype=T.int64),
    "cumsum_to_long_of_a_grad_input": lambda T: T.ones(3, requires_grad=True).cumsum(0, dtype=T.int64),
    "cumprod_to_int_of_a_grad_input": lambda T: T.ones(3, requires_grad=True).cumprod(0, dtype=T.int32),
    "sum_to_double_of_a_grad_input": lambda T: T.ones(3, requires_grad=True).sum(dtype=T.float64),
    "sum_to_long_without_grad": lambda T: T.ones(3).sum(dtype=T.int64),
    # dims a scalar does not have
    "flatten_scalar_end_dim": lambda T: T.tensor(1.0).flatten(0, -2),
    "flatten_scalar": lambda T: T.tensor(1.0).flatten(0, -1),
    "cummax_scalar_dim": lambda T: T.cummax(T.tensor(1.0), 1),
    "cummin_scalar_dim": lambda T: T.cummin(T.tensor(1.0), -2),
    "cummax_scalar": lambda T: T.cummax(T.tensor(1.0), 0).values,
    # shapes and values a function is not defined for
    "glu_of_an_odd_dim": lambda T: T.nn.functional.glu(T.ones(2, 3), 1),
    "glu_of_a_scalar": lambda T: T.nn.functional.glu(T.tensor(1.0), 0),
    "glu": lambda T: T.nn.functional.glu(T.ones(2, 4), -1),
    "renorm_of_a_vector": lambda T: T.renorm(T.ones(3), 2, 0, 1.0),
    "arange_step_away_from_end": lambda T: T.arange(0, 5, -1),
    "arange_end_below_start": lambda T: T.arange(5, 0, 1),
    "arange_float_step_away": lambda T: T.arange(0.0, 1.0, -0.5),
    "arange_empty": lambda T: T.arange(5, 5, -1),
    "arange_zero_step": lambda T: T.arange(0, 5, 0),
    "relu_of_bools": lambda T: T.relu(T.ones(3, dtype=T.bool)),
    "functional_relu_of_bools": lambda T: T.nn.functional.relu(T.ones(3, dtype=T.bool)),
    "plus_of_bools": lambda T: +T.ones(3, dtype=T.bool),
    "plus": lambda T: +T.ones(3),
    # binary cross-entropy of values that are no probabilities
    "bce_target_above_one": lambda T: T.nn.functional.binary_cross_entropy(T.tensor([0.5]), T.tensor([2.0])),
    "bce_target_below_zero": lambda T: T.nn.functional.binary_cross_entropy(T.tensor([0.5]), T.tensor([-0.5])),
    "bce_input_above_one": lambda T: T.nn.functional.binary_cross_entropy(T.tensor([1.5]), T.tensor([1.0])),
    "bce_input_nan": lambda T: T.nn.functional.binary_cross_entropy(T.tensor([float("nan")]), T.tensor([1.0])),
    "bce_module_logits": lambda T: T.nn.BCELoss()(T.tensor([[-0.3, 2.0]]), T.tensor([[0.0, 1.0]])),
    "bce_at_the_bounds": lambda T: T.nn.functional.binary_cross_entropy(T.tensor([0.0, 1.0]), T.tensor([0.0, 1.0])),
    "bce_empty": lambda T: T.nn.functional.binary_cross_entropy(T.ones(0), T.ones(0), reduction="sum"),
}


def _outcome(T, case):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            out = CASES[case](T)
        except Exception as exc:  # noqa: BLE001 - the exception's type is what is compared
            return ("raises", type(exc).__name__)
    out = out[0] if isinstance(out, tuple) else out
    return ("returns", tuple(out.shape))


@pytest.mark.parametrize("case", sorted(CASES))
def test_refused_as_torch_refuses(case):
    assert _outcome(mt, case) == _outcome(rt, case)


def test_values_where_both_accept():
    """The checks do not change what valid inputs give."""
    import numpy as np

    for case in ("narrow_negative_start", "pad_crops_all", "glu", "bce_at_the_bounds", "dot", "outer", "bmm"):
        ours, theirs = CASES[case](mt), CASES[case](rt)
        np.testing.assert_allclose(ours.numpy(), theirs.numpy(), rtol=1e-6, err_msg=case)


@pytest.mark.parametrize("name", ["conv1d", "conv2d", "conv_transpose1d", "conv_transpose2d", "module"])
def test_float64_convolutions_are_refused_naming_the_api(name):
    """MindSpore's CPU convolution has no float64 kernel: a NotImplementedError that names the torch API, not
    MindSpore's TypeError about its primitive."""
    F, f64 = mt.nn.functional, mt.float64
    calls = {
        "conv1d": lambda: F.conv1d(mt.ones(1, 2, 5, dtype=f64), mt.ones(3, 2, 2, dtype=f64)),
        "conv2d": lambda: F.conv2d(mt.ones(1, 2, 5, 5, dtype=f64), mt.ones(3, 2, 2, 2, dtype=f64)),
        "conv_transpose1d": lambda: F.conv_transpose1d(mt.ones(1, 2, 5, dtype=f64), mt.ones(2, 3, 2, dtype=f64)),
        "conv_transpose2d": lambda: F.conv_transpose2d(mt.ones(1, 2, 5, 5, dtype=f64), mt.ones(2, 3, 2, 2, dtype=f64)),
        "module": lambda: mt.nn.Conv2d(2, 3, 2).double()(mt.ones(1, 2, 5, 5, dtype=f64)),
    }
    with pytest.raises(NotImplementedError, match=r"torch\.nn\.functional\.conv.*float64"):
        calls[name]()
    assert tuple(F.conv1d(mt.ones(1, 2, 5), mt.ones(3, 2, 2)).shape) == (1, 3, 4)  # float32 is computed
