"""Top-level torch functions against real torch: the compositions of _ops/composites.py, the other names and
in-place function forms of _function_forms.py (values, gradients of sum(out * w), the receiver of an in-place
form written and returned)."""
import numpy as np
import pytest

import mindnlp_shim.torch as mt
from conftest import SUBPROCESS_FLAG, real_torch, subprocess_fallback
from parity_check import check, compare

rt = real_torch()
if rt is None:
    globals()[SUBPROCESS_FLAG] = True
    test_whole_module_in_subprocess = subprocess_fallback(__file__)

_rng = np.random.default_rng(17)
DTYPES = ["float32", "float64"]
TOL = {"float32": (1e-5, 1e-6), "float64": (1e-9, 1e-12)}
SVD_TOL = {"float32": (1e-4, 1e-5), "float64": (1e-9, 1e-11)}  # (as tests/test_linalg_parity.py)
FLOAT32_ONLY = {"conv1d", "conv2d", "conv_transpose1d", "conv_transpose2d", "conv3d", "conv_transpose3d"}  # nn.functional's convolutions
# take no float64 on MindSpore's CPU kernels (they raise TypeError; tests/differential/known.py)


def randn(*shape):
    return _rng.standard_normal(shape)


def unit(*shape):
    return _rng.uniform(0.2, 0.9, shape)


# name -> list of (fn(T, *inputs), inputs[, grad])
CASES = {
    "block_diag": [(lambda T, a, b, c: T.block_diag(a, b, c), [randn(2, 2), randn(3), randn(2, 1)])],
    "cartesian_prod": [(lambda T, a, b: T.cartesian_prod(a, b), [randn(3), randn(2)]),
                       (lambda T, a: T.cartesian_prod(a), [randn(3)])],
    "combinations": [(lambda T, a: T.combinations(a), [randn(4)]),
                     (lambda T, a: T.combinations(a, 3, with_replacement=True), [randn(3)])],
    "kron": [(lambda T, a, b: T.kron(a, b), [randn(2, 3), randn(3, 2)]),
             (lambda T, a, b: T.kron(a, b), [randn(2), randn(2, 2)])],
    "tensordot": [(lambda T, a, b: T.tensordot(a, b), [randn(2, 3, 4), randn(3, 4, 2)]),
                  (lambda T, a, b: T.tensordot(a, b, dims=([1, 0], [0, 2])), [randn(2, 3, 4), randn(3, 5, 2)])],
    "vdot": [(lambda T, a, b: T.vdot(a, b), [randn(4), randn(4)])],
    "mv": [(lambda T, a, b: T.mv(a, b), [randn(3, 4), randn(4)])],
    "chain_matmul": [(lambda T, a, b, c: T.chain_matmul(a, b, c), [randn(2, 3), randn(3, 4), randn(4, 2)])],
    "dist": [(lambda T, a, b: T.dist(a, b), [randn(3, 4), randn(4)]),
             (lambda T, a, b: T.dist(a, b, 1), [randn(3, 4), randn(3, 4)])],
    "cdist": [(lambda T, a, b: T.cdist(a, b), [randn(3, 4), randn(5, 4)]),
              (lambda T, a, b: T.cdist(a, b, p=1.0), [randn(2, 3, 4), randn(2, 2, 4)])],
    "trapezoid": [(lambda T, y: T.trapezoid(y), [randn(3, 5)]),
                  (lambda T, y, x: T.trapezoid(y, x), [randn(3, 5), np.sort(randn(5))]),
                  (lambda T, y: T.trapezoid(y, dx=0.5, dim=0), [randn(3, 5)])],
    "trapz": [(lambda T, y: T.trapz(y, dx=2.0), [randn(4)]), (lambda T, y, x: T.trapz(y, x), [randn(4), randn(4)])],
    "cumulative_trapezoid": [(lambda T, y: T.cumulative_trapezoid(y), [randn(3, 5)]),
                             (lambda T, y, x: T.cumulative_trapezoid(y, x, dim=0), [randn(4, 2), np.sort(randn(4))])],
    "corrcoef": [(lambda T, a: T.corrcoef(a), [randn(3, 6)])],
    "complex": [(lambda T, a, b: T.complex(a, b), [randn(3), randn(2, 3)])],
    "polar": [(lambda T, a, b: T.polar(a, b), [unit(4), randn(4)])],
    "atleast_2d": [(lambda T, a: T.atleast_2d(a), [randn(3)]), (lambda T, a, b: T.atleast_2d(a, b), [randn(3), randn(2, 2)])],
    "atleast_3d": [(lambda T, a: T.atleast_3d(a), [randn(3)]), (lambda T, a: T.atleast_3d(a), [randn(2, 3)])],
    "column_stack": [(lambda T, a, b: T.column_stack([a, b]), [randn(3), randn(3, 2)])],
    "dstack": [(lambda T, a, b: T.dstack([a, b]), [randn(2, 3), randn(2, 3)])],
    # (real torch's vander backward fails: "modified by an inplace operation"; values only)
    "vander": [(lambda T, a: T.vander(a), [randn(4)], False),
               (lambda T, a: T.vander(a, 3, increasing=True), [randn(4)], False)],
    "pinverse": [(lambda T, a: T.pinverse(a), [randn(4, 3)])],
    "divide": [(lambda T, a, b: T.divide(a, b), [randn(3), unit(3)]),
               (lambda T, a, b: T.divide(a, b, rounding_mode="floor"), [randn(3), unit(3)], False)],
    "multiply": [(lambda T, a, b: T.multiply(a, b), [randn(3), randn(2, 3)])],
    "subtract": [(lambda T, a, b: T.subtract(a, b, alpha=2), [randn(3), randn(3)])],
    "true_divide": [(lambda T, a, b: T.true_divide(a, b), [randn(3), unit(3)])],
    "row_stack": [(lambda T, a, b: T.row_stack((a, b)), [randn(3), randn(2, 3)])],
    "unsafe_chunk": [(lambda T, a: T.unsafe_chunk(a, 2, 1), [randn(2, 5)])],
    "unsafe_split": [(lambda T, a: T.unsafe_split(a, 2), [randn(5, 2)])],
    "unsafe_split_with_sizes": [(lambda T, a: T.unsafe_split_with_sizes(a, [1, 4], 1), [randn(2, 5)])],
    "matrix_exp": [(lambda T, a: T.matrix_exp(a), [randn(3, 3)])],
    "polygamma": [(lambda T, a: T.polygamma(1, a), [unit(4) + 1])],
    "conv1d": [(lambda T, x, w: T.conv1d(x, w, None, 1, 1), [randn(2, 3, 7), randn(4, 3, 3)])],
    "conv2d": [(lambda T, x, w, b: T.conv2d(x, w, b, 2), [randn(1, 2, 5, 5), randn(3, 2, 3, 3), randn(3)])],
    "conv_transpose1d": [(lambda T, x, w: T.conv_transpose1d(x, w, None, 2), [randn(1, 3, 4), randn(3, 2, 3)])],
    "conv_transpose2d": [(lambda T, x, w: T.conv_transpose2d(x, w), [randn(1, 2, 3, 3), randn(2, 3, 2, 2)])],
    "conv3d": [(lambda T, x, w, b: T.conv3d(x, w, b, 2), [randn(1, 2, 5, 5, 4), randn(3, 2, 3, 3, 2), randn(3)])],
    "conv_transpose3d": [(lambda T, x, w: T.conv_transpose3d(x, w, stride=2),
                          [randn(1, 2, 3, 3, 2), randn(2, 3, 2, 2, 2)])],
    "avg_pool1d": [(lambda T, x: T.avg_pool1d(x, 2), [randn(2, 3, 6)])],
    "pixel_shuffle": [(lambda T, x: T.pixel_shuffle(x, 2), [randn(1, 8, 2, 3)])],
    "pixel_unshuffle": [(lambda T, x: T.pixel_unshuffle(x, 2), [randn(1, 2, 4, 6)])],
    "prelu": [(lambda T, x, w: T.prelu(x, w), [randn(2, 3, 4), unit(3)])],
    "pdist": [(lambda T, x: T.pdist(x), [randn(4, 3)])],
    "gradient": [(lambda T, a: T.gradient(a), [randn(4, 5)]),
                 (lambda T, a: T.gradient(a, spacing=0.5, dim=1), [randn(3, 5)]),
                 (lambda T, a: T.gradient(a, spacing=[2.0], dim=0, edge_order=2), [randn(4, 3)]),
                 (lambda T, a: T.gradient(a, spacing=(1.0, 0.25), edge_order=2), [randn(3, 4)])],
    "cosine_similarity": [(lambda T, a, b: T.cosine_similarity(a, b), [randn(3, 4), randn(3, 4)]),
                          (lambda T, a, b: T.cosine_similarity(a, b, 0, 1e-6), [randn(3, 4), randn(3, 1)])],
    "pairwise_distance": [(lambda T, a, b: T.pairwise_distance(a, b), [randn(4, 3), randn(4, 3)])],
    "alias_copy": [(lambda T, a: T.alias_copy(a), [randn(2, 3)])],
    "detach_copy": [(lambda T, a: T.detach_copy(a), [randn(2, 3)], False)],
    "diagonal_copy": [(lambda T, a: T.diagonal_copy(a, 1), [randn(3, 4)])],
    "expand_copy": [(lambda T, a: T.expand_copy(a, (2, 3)), [randn(3)])],
    "permute_copy": [(lambda T, a: T.permute_copy(a, (2, 0, 1)), [randn(2, 3, 4)])],
    "select_copy": [(lambda T, a: T.select_copy(a, 1, -1), [randn(2, 3)])],
    "slice_copy": [(lambda T, a: T.slice_copy(a, 1, 1, 4, 2), [randn(2, 5)])],
    "split_copy": [(lambda T, a: T.split_copy(a, 2, 1), [randn(2, 5)])],
    "split_with_sizes_copy": [(lambda T, a: T.split_with_sizes_copy(a, [2, 3], 1), [randn(2, 5)])],
    "squeeze_copy": [(lambda T, a: T.squeeze_copy(a), [randn(2, 1, 3)]), (lambda T, a: T.squeeze_copy(a, 1), [randn(2, 1, 3)])],
    "t_copy": [(lambda T, a: T.t_copy(a), [randn(2, 3)])],
    "transpose_copy": [(lambda T, a: T.transpose_copy(a, 0, 2), [randn(2, 3, 4)])],
    "unbind_copy": [(lambda T, a: T.unbind_copy(a, 1), [randn(2, 3)])],
    "unfold_copy": [(lambda T, a: T.unfold_copy(a, 1, 2, 1), [randn(2, 4)])],
    "unsqueeze_copy": [(lambda T, a: T.unsqueeze_copy(a, -1), [randn(2, 3)])],
    "view_copy": [(lambda T, a: T.view_copy(a, (3, 2)), [randn(2, 3)])],
    "view_as_real_copy": [(lambda T, a, b: T.view_as_real_copy(T.complex(a, b)), [randn(3), randn(3)])],
    # operator-level forms (_ops/aten_forms.py)
    "layer_norm": [(lambda T, x, w, b: T.layer_norm(x, [4], w, b, 1e-5, True), [randn(2, 3, 4), randn(4), randn(4)])],
    "group_norm": [(lambda T, x, w, b: T.group_norm(x, 2, w, b), [randn(2, 4, 3), randn(4), randn(4)])],
    "rms_norm": [(lambda T, x, w: T.rms_norm(x, [4], w, 1e-6), [randn(2, 3, 4), randn(4)])],
    "batch_norm": [(lambda T, x, w, b: T.batch_norm(x, w, b, None, None, True, 0.1, 1e-5, False),
                    [randn(4, 3, 2), randn(3), randn(3)])],
    "instance_norm": [(lambda T, x: T.instance_norm(x, None, None, None, None, True, 0.1, 1e-5, False),
                       [randn(2, 3, 5)])],
    "embedding": [(lambda T, w: T.embedding(w, T.tensor([[0, 2], [1, 0]])), [randn(3, 4)]),
                  (lambda T, w: T.embedding(w, T.tensor([0, 2, 0]), 0), [randn(3, 4)])],
    "kl_div": [(lambda T, a, b: T.kl_div(a, b, r), [randn(2, 3), unit(2, 3)]) for r in (0, 1, 2)]
              + [(lambda T, a, b: T.kl_div(a, b, 2, log_target=True), [randn(2, 3), randn(2, 3)])],
    "binary_cross_entropy_with_logits": [(lambda T, a, b: T.binary_cross_entropy_with_logits(a, b, None, None, r),
                                          [randn(2, 3), unit(2, 3)]) for r in (0, 1, 2)],
    "margin_ranking_loss": [(lambda T, a, b: T.margin_ranking_loss(a, b, T.tensor([1.0, -1.0, 1.0]).to(a.dtype),
                                                                   0.1, 2), [randn(3), randn(3)])],
    "hinge_embedding_loss": [(lambda T, a: T.hinge_embedding_loss(a, T.tensor([1.0, -1.0, 1.0]).to(a.dtype), 1.0, 0),
                              [randn(3)])],
    "cosine_embedding_loss": [(lambda T, a, b: T.cosine_embedding_loss(a, b, T.tensor([1.0, -1.0]).to(a.dtype), 0.0, 1),
                               [randn(2, 4), randn(2, 4)])],
    "triplet_margin_loss": [(lambda T, a, b, c: T.triplet_margin_loss(a, b, c, 1.0, 2.0, 1e-6, False, 1),
                             [randn(3, 4), randn(3, 4), randn(3, 4)])],
    "poisson_nll_loss": [(lambda T, a, b: T.poisson_nll_loss(a, b, True, False, 1e-8, 1), [randn(2, 3), unit(2, 3)])],
    "selu": [(lambda T, a: T.selu(a), [randn(2, 3)])],
    "celu": [(lambda T, a: T.celu(a, 0.5), [randn(2, 3)])],
    "rrelu": [(lambda T, a: T.rrelu(a, 0.1, 0.3, False), [randn(2, 3)])],
    "threshold": [(lambda T, a: T.threshold(a, 0.1, -2.0), [randn(2, 3)])],
    "max_pool1d": [(lambda T, a: T.max_pool1d(a, 2), [randn(2, 3, 6)])],
    "max_pool2d": [(lambda T, a: T.max_pool2d(a, 2, 1), [randn(1, 2, 4, 4)])],
    "max_pool3d": [(lambda T, a: T.max_pool3d(a, 2), [randn(1, 1, 4, 4, 4)])],
    "max_pool1d_with_indices": [(lambda T, a: T.max_pool1d_with_indices(a, 2), [randn(2, 3, 6)])],
    "adaptive_avg_pool1d": [(lambda T, a: T.adaptive_avg_pool1d(a, 3), [randn(2, 3, 6)])],
    "adaptive_max_pool1d": [(lambda T, a: T.adaptive_max_pool1d(a, 3), [randn(2, 3, 6)])],
    "constant_pad_nd": [(lambda T, a: T.constant_pad_nd(a, [1, 2, 0, 1], 0.5), [randn(2, 3)])],
    "channel_shuffle": [(lambda T, a: T.channel_shuffle(a, 2), [randn(1, 4, 3)])],
    # (torch defines no derivative for native_channel_shuffle: values only)
    "native_channel_shuffle": [(lambda T, a: T.native_channel_shuffle(a, 3), [randn(2, 6, 2, 2)], False)],
    "norm_except_dim": [(lambda T, a: T.norm_except_dim(a, 2, 0), [randn(3, 4, 2)]),
                        (lambda T, a: T.norm_except_dim(a, 2, 1), [randn(3, 4)]),
                        (lambda T, a: T.norm_except_dim(a, 2, -1), [randn(3, 4)])],
    "frobenius_norm": [(lambda T, a: T.frobenius_norm(a, (0, 1)), [randn(3, 4)]),
                       (lambda T, a: T.frobenius_norm(a, [1], True), [randn(3, 4)])],
    "nuclear_norm": [(lambda T, a: T.nuclear_norm(a), [randn(3, 4)]),
                     (lambda T, a: T.nuclear_norm(a, True), [randn(3, 4)]),
                     (lambda T, a: T.nuclear_norm(a, (0, 2)), [randn(3, 2, 4)])],
    "fill": [(lambda T, a: T.fill(a, 2.5), [randn(2, 3)], False),
             (lambda T, a, v: T.fill(a, v), [randn(2, 3), np.array(1.5)])],
    "conj_physical": [(lambda T, a: T.conj_physical(a), [randn(3)]),
                      (lambda T, a, b: T.conj_physical(T.complex(a, b)), [randn(3), randn(3)])],
    "view_as_complex": [(lambda T, a: T.view_as_complex(a), [randn(3, 2)]),
                        # (MindSpore's complex Mul has no gradient; its FFTs do)
                        (lambda T, a: T.fft.fft(T.view_as_complex(a)), [randn(2, 4, 2)])],
}
WINDOWS = ("bartlett_window", "blackman_window", "hamming_window", "kaiser_window", "hann_window")
INPLACE = {  # name -> extra arguments (the receiver: values in (0.2, 0.9))
    **{n: () for n in ("abs_", "acos_", "arccos_", "arcsin_", "arctan_", "asin_", "atan_", "asinh_", "arcsinh_",
                       "atanh_", "arctanh_", "ceil_", "cos_", "cosh_", "deg2rad_", "detach_", "erf_", "erfc_",
                       "exp2_", "exp_", "expm1_", "fix_", "floor_", "frac_", "i0_", "log10_", "log1p_", "log2_",
                       "log_", "logit_", "nan_to_num_", "neg_", "negative_", "rad2deg_", "reciprocal_", "relu_",
                       "rsqrt_", "round_", "sigmoid_", "sin_", "sinc_", "sinh_", "sqrt_", "square_", "tan_",
                       "tanh_", "trunc_", "zero_")},
    "acosh_": "plus_one", "arccosh_": "plus_one", "clamp_": (0.25, 0.625), "clip_": (0.25, 0.625), "clamp_max_": (0.5,),
    "clamp_min_": (0.5,), "fill_": (2.5,), "xlogy_": "other", "ldexp_": "int_other",
}
INTEGER_INPLACE = ("gcd_", "lcm_")

API_CENSUS = {
    ("torch.block_diag", "torch.cartesian_prod", "torch.combinations", "torch.kron", "torch.tensordot",
     "torch.vdot", "torch.mv", "torch.chain_matmul", "torch.dist", "torch.cdist", "torch.trapezoid", "torch.trapz",
     "torch.cumulative_trapezoid", "torch.corrcoef", "torch.complex", "torch.polar", "torch.atleast_2d",
     "torch.atleast_3d", "torch.column_stack", "torch.dstack", "torch.vander", "torch.pinverse", "torch.divide",
     "torch.multiply", "torch.subtract", "torch.true_divide", "torch.row_stack", "torch.unsafe_chunk",
     "torch.unsafe_split", "torch.unsafe_split_with_sizes", "torch.matrix_exp", "torch.polygamma", "torch.conv1d",
     "torch.conv2d", "torch.conv_transpose1d", "torch.conv_transpose2d", "torch.conv3d", "torch.conv_transpose3d", "torch.avg_pool1d", "torch.pixel_shuffle",
     "torch.pixel_unshuffle", "torch.prelu", "torch.pdist", "torch.pairwise_distance", "torch.cosine_similarity", "torch.gradient", "torch.alias_copy",
     "torch.detach_copy", "torch.diagonal_copy", "torch.expand_copy", "torch.permute_copy", "torch.select_copy",
     "torch.slice_copy", "torch.split_copy", "torch.split_with_sizes_copy", "torch.squeeze_copy", "torch.t_copy",
     "torch.transpose_copy", "torch.unbind_copy", "torch.unfold_copy", "torch.unsqueeze_copy", "torch.view_copy",
     "torch.view_as_real_copy", "torch.layer_norm", "torch.group_norm", "torch.rms_norm", "torch.batch_norm",
     "torch.instance_norm", "torch.embedding", "torch.kl_div", "torch.binary_cross_entropy_with_logits",
     "torch.margin_ranking_loss", "torch.hinge_embedding_loss", "torch.cosine_embedding_loss",
     "torch.triplet_margin_loss", "torch.poisson_nll_loss", "torch.selu", "torch.celu", "torch.rrelu",
     "torch.threshold", "torch.max_pool1d", "torch.max_pool2d", "torch.max_pool3d", "torch.max_pool1d_with_indices",
     "torch.adaptive_avg_pool1d", "torch.adaptive_max_pool1d", "torch.constant_pad_nd", "torch.channel_shuffle",
     "torch.native_channel_shuffle", "torch.norm_except_dim", "torch.frobenius_norm", "torch.nuclear_norm",
     "torch.fill", "torch.conj_physical", "torch.view_as_complex"):
        "test_function_matches_torch",
    ("torch.bartlett_window", "torch.blackman_window", "torch.hamming_window", "torch.kaiser_window",
     "torch.hann_window"):
        "test_windows_match_torch",
    ("torch.abs_", "torch.acos_", "torch.arccos_", "torch.arcsin_", "torch.arctan_", "torch.asin_", "torch.atan_",
     "torch.asinh_", "torch.arcsinh_", "torch.atanh_", "torch.arctanh_", "torch.ceil_", "torch.cos_",
     "torch.cosh_", "torch.deg2rad_", "torch.detach_", "torch.erf_", "torch.erfc_", "torch.exp2_", "torch.exp_",
     "torch.expm1_", "torch.fix_", "torch.floor_", "torch.frac_", "torch.i0_", "torch.log10_", "torch.log1p_",
     "torch.log2_", "torch.log_", "torch.logit_", "torch.nan_to_num_", "torch.neg_", "torch.negative_",
     "torch.rad2deg_", "torch.reciprocal_", "torch.relu_", "torch.rsqrt_", "torch.round_", "torch.sigmoid_",
     "torch.sin_", "torch.sinc_", "torch.sinh_", "torch.sqrt_", "torch.square_", "torch.tan_", "torch.tanh_",
     "torch.trunc_", "torch.zero_", "torch.acosh_", "torch.arccosh_", "torch.clamp_", "torch.clip_",
     "torch.clamp_max_", "torch.clamp_min_", "torch.fill_", "torch.xlogy_", "torch.ldexp_", "torch.gcd_",
     "torch.lcm_"): "test_inplace_function_form_matches_torch",
    ("torch.tril_indices", "torch.triu_indices"): "test_triangle_indices_match_torch",
    "torch.unravel_index": "test_unravel_index_matches_torch",
    "torch.frexp": "test_frexp_matches_torch",
    ("torch.is_conj", "torch.is_neg", "torch.is_signed", "torch.is_same_size", "torch.resolve_conj",
     "torch.resolve_neg"): "test_predicates_match_torch",
    "torch.memory_format": "test_memory_format_is_the_type_of_the_formats",
    ("torch.dropout", "torch.alpha_dropout"): "test_dropout_forms_match_torch",
    "torch.nonzero_static": "test_nonzero_static_matches_torch",
    ("torch.sym_int", "torch.sym_float", "torch.sym_max", "torch.sym_min", "torch.sym_not", "torch.sym_ite",
     "torch.sym_sqrt", "torch.sym_sum"): "test_sym_functions_match_torch",
    ("torch.cond", "torch.while_loop"): "test_control_flow_matches_torch",
    "torch.scatter_reduce": "test_scatter_reduce_matches_torch",
    "torch.histogram": "test_histogram_matches_torch",
    ("torch.addmv_", "torch.index_put_"): "test_inplace_forms_with_operands_match_torch",
    ("torch.is_storage", "torch.is_warn_always_enabled"): "test_storage_and_warning_queries_match_torch",
    ("torch.get_device_module", "torch.is_vulkan_available", "torch.GradScaler"): "test_module_queries_match_torch",
    "torch.layout": "test_layout_is_the_type_of_the_layouts",
    ("torch.get_device", "torch.is_distributed"): "test_device_queries_match_torch",
    "torch.range": "test_range_matches_torch",
    ("torch.set_deterministic_debug_mode", "torch.get_deterministic_debug_mode",
     "torch.use_deterministic_algorithms", "torch.are_deterministic_algorithms_enabled",
     "torch.is_deterministic_algorithms_warn_only_enabled"): "test_deterministic_settings_match_torch",
    "torch.set_flush_denormal": "test_flush_denormal_answers_false",
    ("torch.set_default_tensor_type", "torch.get_default_dtype", "torch.set_default_dtype"):
        "test_default_dtype_settings_match_torch",
    ("torch.finfo", "torch.iinfo"): "test_type_info_matches_torch",
    ("torch.no_grad", "torch.enable_grad", "torch.set_grad_enabled", "torch.is_grad_enabled"):
        "test_grad_modes_match_torch",
    ("torch.device", "torch.get_default_device", "torch.can_cast", "torch.Size",
     "torch.strided", "torch.sparse_coo", "torch.channels_last", "torch.channels_last_3d",
     "torch.contiguous_format", "torch.preserve_format", "torch.OutOfMemoryError", "torch.dtype"):
        "test_types_and_queries_match_torch",
    ("torch.get_float32_matmul_precision", "torch.set_float32_matmul_precision"):
        "test_matmul_precision_setting_matches_torch",
    ("torch.is_autocast_enabled", "torch.get_autocast_dtype", "torch.get_autocast_gpu_dtype"):
        "test_autocast_queries_match_torch",
    "torch.svd": "test_svd_matches_torch",
}


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("name", sorted(CASES))
def test_function_matches_torch(name, dtype):
    if dtype == "float64" and name in FLOAT32_ONLY:
        pytest.skip("float64 convolutions raise TypeError on MindSpore's CPU kernels")
    for fn, inputs, *grad in CASES[name]:
        check(rt, mt, fn, inputs, dtype, grad=grad[0] if grad else True,
              tol=(SVD_TOL if name == "pinverse" else TOL)[dtype])


@pytest.mark.parametrize("name", WINDOWS)
def test_windows_match_torch(name):
    for length in (0, 1, 2, 7):
        for periodic in (True, False):
            r = getattr(rt, name)(length, periodic)
            m = getattr(mt, name)(length, periodic)
            compare(m, r, TOL["float32"])
            compare(getattr(mt, name)(length, periodic, dtype=mt.float64),
                    getattr(rt, name)(length, periodic, dtype=rt.float64), TOL["float64"])
    if name == "hamming_window":
        compare(mt.hamming_window(6, True, 0.5, 0.5), rt.hamming_window(6, True, 0.5, 0.5), TOL["float32"])
    if name == "kaiser_window":
        compare(mt.kaiser_window(6, False, 5.0), rt.kaiser_window(6, False, 5.0), TOL["float32"])


def _inplace_call(T, name, x, extra):
    if extra == "plus_one":
        x = x + 1
        extra = ()
    if extra == "other":
        return getattr(T, name)(x, T.tensor(np.array([0.5, 1.5, 2.0], dtype=x.numpy().dtype))), x
    if extra == "int_other":
        return getattr(T, name)(x, T.tensor([1, -1, 2])), x
    return getattr(T, name)(x, *extra), x


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("name", sorted(INPLACE) + list(INTEGER_INPLACE))
def test_inplace_function_form_matches_torch(name, dtype):
    if name in INTEGER_INPLACE:
        values, extra = np.array([12, 18, 7]), (None,)
        results = []
        for T in (rt, mt):
            x = T.tensor(values)
            result = getattr(T, name)(x, T.tensor([8, 12, 21]))
            assert result is x
            results.append(x)
        compare(results[1], results[0], TOL["float32"])
        return
    values = _rng.uniform(0.2, 0.9, 3).astype(dtype)
    outs = []
    for T in (rt, mt):
        result, receiver = _inplace_call(T, name, T.tensor(values.copy()), INPLACE[name])
        assert result is receiver, f"torch.{name} must return its receiver"
        outs.append(receiver)
    compare(outs[1], outs[0], TOL[dtype])


def test_clamp_float64_keeps_double_bounds():
    x = np.array([0.5, 0.7])
    ours, theirs = mt.clamp(mt.tensor(x), 0.3, 0.6), rt.clamp(rt.tensor(x), 0.3, 0.6)
    assert ours.tolist() == theirs.tolist() == [0.5, 0.6]  # the bound itself, not its float32 rounding


def test_triangle_indices_match_torch():
    for args in [(3, 3), (4, 3, 1), (3, 5, -1), (0, 2), (2, 4, 10)]:
        compare(mt.tril_indices(*args), rt.tril_indices(*args), TOL["float32"])
        compare(mt.triu_indices(*args), rt.triu_indices(*args), TOL["float32"])


def test_unravel_index_matches_torch():
    for indices, shape in [([0, 5, 11, -1], (3, 4)), (7, (2, 2, 2)), ([[1, 2], [3, 4]], 6)]:
        r = rt.unravel_index(rt.tensor(indices), shape)
        m = mt.unravel_index(mt.tensor(indices), shape)
        compare(tuple(m), tuple(r), TOL["float32"])


def test_frexp_matches_torch():
    for dtype in DTYPES:
        x = np.array([0.0, 1.0, -3.5, 1e-3, 1e8, 0.75]).astype(dtype)
        compare(mt.frexp(mt.tensor(x)), rt.frexp(rt.tensor(x)), TOL[dtype])


def test_predicates_match_torch():
    x = randn(3)
    for T_name in ("is_conj", "is_neg", "is_signed"):
        assert getattr(mt, T_name)(mt.tensor(x)) == getattr(rt, T_name)(rt.tensor(x))
    assert mt.is_signed(mt.tensor([1], dtype=mt.uint8)) is rt.is_signed(rt.tensor([1], dtype=rt.uint8)) is False
    assert mt.is_same_size(mt.ones(2, 3), mt.zeros(2, 3)) and not mt.is_same_size(mt.ones(2, 3), mt.ones(3, 2))
    compare(mt.resolve_conj(mt.tensor(x)), rt.resolve_conj(rt.tensor(x)), TOL["float64"])
    compare(mt.resolve_neg(mt.tensor(x)), rt.resolve_neg(rt.tensor(x)), TOL["float64"])


def test_memory_format_is_the_type_of_the_formats():
    assert isinstance(mt.channels_last, mt.memory_format) and isinstance(mt.contiguous_format, mt.memory_format)
    assert isinstance(rt.channels_last, rt.memory_format)


def test_dropout_forms_match_torch():
    x = randn(4, 50).astype(np.float32)
    for name in ("dropout", "alpha_dropout"):
        for T in (rt, mt):  # not training, or p = 0: the input itself
            np.testing.assert_array_equal(getattr(T, name)(T.tensor(x), 0.5, False).numpy(), x)
            np.testing.assert_array_equal(getattr(T, name)(T.tensor(x), 0.0, True).numpy(), x)
    out = mt.dropout(mt.tensor(x), 0.5, True).numpy()  # training: zeros or x / (1 - p)
    kept = out != 0
    np.testing.assert_allclose(out[kept], x[kept] * 2, rtol=1e-6)
    assert 0.3 < kept.mean() < 0.7


def test_nonzero_static_matches_torch():
    x = np.array([[0, 1, 0], [2, 0, 3]])
    for size, fill in ((2, -1), (5, -1), (3, 7), (0, -1)):
        compare(mt.nonzero_static(mt.tensor(x), size=size, fill_value=fill),
                rt.nonzero_static(rt.tensor(x), size=size, fill_value=fill), TOL["float32"])


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("reduce", ["sum", "prod", "mean", "amax", "amin"])
def test_scatter_reduce_matches_torch(reduce, dtype):
    index2 = np.array([[0, 1, 0], [2, 0, 0]])
    for include_self in (True, False):
        # distinct values, also between x and src (ties share the gradient: tested below with equal values)
        x, src = _rng.permutation(12).reshape(3, 4) * 0.25 + 0.5, _rng.permutation(6).reshape(2, 3) * 0.3 + 0.41
        check(rt, mt, lambda T, a, b: T.scatter_reduce(a, 0, T.tensor(index2), b, reduce, include_self=include_self),
              [x, src], dtype, tol=TOL[dtype])
        check(rt, mt, lambda T, a, b: T.scatter_reduce(a, 1, T.tensor(index2), b, reduce, include_self=include_self),
              [x[:2], src], dtype, tol=TOL[dtype])
    if reduce in ("amax", "amin"):  # ties share the gradient
        check(rt, mt, lambda T, a, b: T.scatter_reduce(a, 0, T.tensor([0, 0, 1]), b, reduce),
              [np.array([1.0, 2.0]), np.array([1.0, 1.0, 2.0])], dtype, tol=TOL[dtype])
    ints = [np.array([5, -7, 3]), np.array([2, -3, 4, 1])]
    r = rt.scatter_reduce(rt.tensor(ints[0]), 0, rt.tensor([0, 1, 1, 2]), rt.tensor(ints[1]), reduce)
    m = mt.scatter_reduce(mt.tensor(ints[0]), 0, mt.tensor([0, 1, 1, 2]), mt.tensor(ints[1]), reduce)
    compare(m, r, TOL["float32"])


@pytest.mark.parametrize("dtype", DTYPES)
def test_histogram_matches_torch(dtype):
    x = np.array([0.05, 0.3, 0.31, 0.77, 1.4, 1.9, 2.2, 0.9]).astype(dtype)  # (no value on a bin edge)
    w = np.array([1.0, 2.0, 0.5, 1.0, 3.0, 1.0, 1.0, 2.0]).astype(dtype)
    for bins, kwargs in [(4, {}), (3, {"range": (0.0, 3.0)}), (5, {"density": True}), (2, {"weight": w})]:
        rk = {k: (rt.tensor(v) if isinstance(v, np.ndarray) else v) for k, v in kwargs.items()}
        mk = {k: (mt.tensor(v) if isinstance(v, np.ndarray) else v) for k, v in kwargs.items()}
        compare(mt.histogram(mt.tensor(x), bins, **mk), rt.histogram(rt.tensor(x), bins, **rk), TOL[dtype])
    edges = np.array([0.0, 0.5, 1.0, 2.5]).astype(dtype)
    compare(mt.histogram(mt.tensor(x), mt.tensor(edges)), rt.histogram(rt.tensor(x), rt.tensor(edges)), TOL[dtype])


@pytest.mark.parametrize("dtype", DTYPES)
def test_inplace_forms_with_operands_match_torch(dtype):
    v, m, x = randn(3).astype(dtype), randn(3, 4).astype(dtype), randn(4).astype(dtype)
    outs = []
    for T in (rt, mt):
        receiver = T.tensor(v)
        assert T.addmv_(receiver, T.tensor(m), T.tensor(x), beta=0.5, alpha=2.0) is receiver
        target = T.tensor(m.copy())
        assert T.index_put_(target, (T.tensor([0, 2]),), T.tensor(x), accumulate=True) is target
        outs.append((receiver, target))
    compare(outs[1][0], outs[0][0], TOL[dtype])
    compare(outs[1][1], outs[0][1], TOL[dtype])


def test_storage_and_warning_queries_match_torch():
    for T in (rt, mt):
        assert T.is_storage(T.ones(2)) is False and T.is_storage(T.ones(2).untyped_storage()) is True
        assert T.is_warn_always_enabled() is False


def test_sym_functions_match_torch():
    cases = [("sym_int", (2.7,)), ("sym_int", (-2.7,)), ("sym_float", (3,)), ("sym_max", (2, 3.5)),
             ("sym_max", (2, 3)), ("sym_min", (2.0, 1)), ("sym_min", (4, 1)), ("sym_not", (True,)),
             ("sym_ite", (False, 1, 2)), ("sym_sqrt", (4,)), ("sym_sum", ([1, 2, 3],)), ("sym_sum", ([0.5, 2],))]
    for name, args in cases:
        r, m = getattr(rt, name)(*args), getattr(mt, name)(*args)
        assert (m, type(m)) == (r, type(r)), (name, args, m, r)


def test_control_flow_matches_torch():
    results = []
    for T in (rt, mt):
        x = T.tensor([1.0, 2.0])
        a = T.cond(T.tensor(True), lambda v: v + 1, lambda v: v - 1, (x,))
        b = T.cond(False, lambda v, w: v * w, lambda v, w: v - w, [x, x])
        i, y = T.while_loop(lambda i, v: i < 3, lambda i, v: (i + 1, v * 2), (T.tensor(0), x))
        results.append([a.numpy(), b.numpy(), int(i), y.numpy()])
    for m, r in zip(results[1], results[0]):
        np.testing.assert_array_equal(m, r)
    with pytest.raises(RuntimeError):
        mt.cond(mt.tensor([True, False]), lambda: 1, lambda: 2)


def test_module_queries_match_torch():
    assert mt.get_device_module("cpu") is mt.cpu and rt.get_device_module("cpu") is rt.cpu
    assert mt.get_device_module().__name__.rsplit(".", 1)[-1] == rt.get_device_module().__name__.rsplit(".", 1)[-1]
    assert mt.is_vulkan_available() is rt.is_vulkan_available() is False
    assert mt.GradScaler is mt.amp.GradScaler and rt.GradScaler is rt.amp.GradScaler


def test_copies_do_not_share_storage():
    x = mt.arange(6.0).reshape(2, 3)
    y = mt.transpose_copy(x, 0, 1)
    y[0, 0] = 100.0
    assert float(x[0, 0]) == 0.0


def test_layout_is_the_type_of_the_layouts():
    assert isinstance(mt.strided, mt.layout) and isinstance(mt.sparse_coo, mt.layout)
    assert isinstance(rt.strided, rt.layout)


def test_device_queries_match_torch():
    for T in (rt, mt):
        assert T.get_device(T.ones(2)) == -1 and T.is_distributed(T.ones(2)) is False


def test_range_matches_torch():
    for args, kwargs in [((1, 4), {}), ((0, 1, 0.25), {}), ((2, 0, -0.5), {}), ((1, 3), {"dtype": "int64"})]:
        rk = {k: getattr(rt, v) for k, v in kwargs.items()}
        mk = {k: getattr(mt, v) for k, v in kwargs.items()}
        compare(mt.range(*args, **mk), rt.range(*args, **rk), TOL["float64"])


def test_deterministic_settings_match_torch():
    try:
        for mode in (1, "error", 0, "warn", "default", 2):
            answers = []
            for T in (rt, mt):
                T.set_deterministic_debug_mode(mode)
                answers.append((T.get_deterministic_debug_mode(), T.are_deterministic_algorithms_enabled(),
                                T.is_deterministic_algorithms_warn_only_enabled()))
            assert answers[0] == answers[1], (mode, answers)
        for T in (rt, mt):
            T.use_deterministic_algorithms(True, warn_only=True)
        assert mt.get_deterministic_debug_mode() == rt.get_deterministic_debug_mode() == 1
        with pytest.raises(RuntimeError):
            mt.set_deterministic_debug_mode(3)
    finally:
        for T in (rt, mt):
            T.use_deterministic_algorithms(False)


def test_flush_denormal_answers_false():
    # (MindSpore's CPU kernels have no such switch: False tells the caller nothing was configured)
    assert mt.set_flush_denormal(True) is False and mt.set_flush_denormal(False) is False


def test_default_dtype_settings_match_torch():
    try:
        for t in ("DoubleTensor", "FloatTensor"):
            for T in (rt, mt):
                T.set_default_tensor_type(getattr(T, t))
            assert str(mt.get_default_dtype()) == str(rt.get_default_dtype())
            assert str(mt.tensor([1.5]).dtype) == str(rt.tensor([1.5]).dtype)
        for T in (rt, mt):
            T.set_default_tensor_type("torch.DoubleTensor")
            with pytest.raises(TypeError):
                T.set_default_tensor_type(T.LongTensor)
        assert str(mt.get_default_dtype()) == str(rt.get_default_dtype()) == "torch.float64"
        for T in (rt, mt):
            T.set_default_dtype(T.float32)
        assert str(mt.get_default_dtype()) == str(rt.get_default_dtype()) == "torch.float32"
    finally:
        for T in (rt, mt):
            T.set_default_dtype(T.float32)


def test_type_info_matches_torch():
    for name in ("float16", "bfloat16", "float32", "float64"):
        r, m = rt.finfo(getattr(rt, name)), mt.finfo(getattr(mt, name))
        for attr in ("bits", "eps", "max", "min", "tiny", "smallest_normal", "resolution"):
            assert getattr(m, attr) == getattr(r, attr), (name, attr)
    for name in ("uint8", "int8", "int16", "int32", "int64"):
        r, m = rt.iinfo(getattr(rt, name)), mt.iinfo(getattr(mt, name))
        assert (m.bits, m.min, m.max) == (r.bits, r.min, r.max), name
    assert mt.finfo().eps == rt.finfo().eps


def test_grad_modes_match_torch():
    states = []
    for T in (rt, mt):
        x = T.ones(2, requires_grad=True)
        seen = [T.is_grad_enabled()]
        with T.no_grad():
            seen += [T.is_grad_enabled(), (x * 2).requires_grad]
            with T.enable_grad():
                seen += [T.is_grad_enabled(), (x * 2).requires_grad]
        with T.set_grad_enabled(False):
            seen.append(T.is_grad_enabled())

        @T.no_grad()
        def decorated():
            return T.is_grad_enabled()

        seen.append(decorated())
        states.append(seen)
    assert states[0] == states[1]


def test_types_and_queries_match_torch():
    for T in (rt, mt):
        assert issubclass(T.OutOfMemoryError, RuntimeError)
        assert isinstance(T.float32, T.dtype) and isinstance(T.Size([2, 3]), tuple)
        assert T.Size([2, 3]).numel() == 6 and T.ones(2, 3).shape == T.Size([2, 3])
    for name in ("strided", "sparse_coo", "channels_last", "channels_last_3d", "contiguous_format",
                 "preserve_format"):
        assert repr(getattr(mt, name)) == repr(getattr(rt, name))
    assert str(mt.device("cpu")) == str(rt.device("cpu")) and mt.device("cpu").type == "cpu"
    assert mt.device("cpu", 0).index == rt.device("cpu", 0).index == 0
    assert str(mt.get_default_device()) == str(rt.get_default_device())
    for value in (mt.ones(2), mt.ones(2, dtype=mt.int64)):
        assert mt.typename(value) == rt.typename(rt.tensor(value.numpy()))
    for a in ("float32", "int64", "bool", "float16"):
        for b in ("float32", "int64", "bool", "int8"):
            assert mt.can_cast(getattr(mt, a), getattr(mt, b)) == rt.can_cast(getattr(rt, a), getattr(rt, b))


def test_inference_mode_is_reported_as_torch_does():
    answers = []
    for T in (rt, mt):
        with T.inference_mode():
            answers.append((T.is_inference_mode_enabled(), T.is_grad_enabled()))
    assert answers[0] == answers[1]


def test_typename_of_python_objects_matches_torch():
    for value in (3, "a", [1]):
        assert mt.typename(value) == rt.typename(value)


def test_matmul_precision_setting_matches_torch():
    try:
        for precision in ("high", "medium", "highest"):
            for T in (rt, mt):
                T.set_float32_matmul_precision(precision)
            assert mt.get_float32_matmul_precision() == rt.get_float32_matmul_precision() == precision
    finally:
        for T in (rt, mt):
            T.set_float32_matmul_precision("highest")


def test_autocast_queries_match_torch():
    assert mt.is_autocast_enabled() == rt.is_autocast_enabled() is False
    assert str(mt.get_autocast_dtype("cpu")) == str(rt.get_autocast_dtype("cpu"))
    assert str(mt.get_autocast_gpu_dtype()) == str(rt.get_autocast_gpu_dtype())
    with mt.autocast("cpu"):
        assert mt.is_autocast_enabled("cpu")


@pytest.mark.parametrize("dtype", DTYPES)
def test_svd_matches_torch(dtype):
    """torch.svd answers (U, S, V): singular values, sign-free |U|, |V| and the reconstruction."""
    a = randn(4, 3)

    def invariants(T, x):
        U, S, V = T.svd(x)
        return S, U * U, V * V, (U * S) @ V.mT

    check(rt, mt, invariants, [a], dtype, grad=dtype == "float32", tol=SVD_TOL[dtype])


def test_constants_are_torch_constants():
    assert (mt.e, mt.pi, mt.inf, mt.newaxis) == (rt.e, rt.pi, rt.inf, rt.newaxis)
    assert mt.nan != mt.nan


def test_complex_refuses_what_torch_refuses():
    with pytest.raises(RuntimeError):
        rt.complex(rt.ones(2), rt.ones(2, dtype=rt.float64))
    with pytest.raises(RuntimeError):
        mt.complex(mt.ones(2), mt.ones(2, dtype=mt.float64))


def test_census_table_lists_what_the_tables_compare():
    declared = {n for key in API_CENSUS for n in ((key,) if isinstance(key, str) else key)}
    compared = {f"torch.{n}" for n in list(CASES) + list(WINDOWS) + list(INPLACE) + list(INTEGER_INPLACE)}
    assert compared <= declared
