"""torch.<name> spellings of definitions that exist elsewhere in the shim, bound to those same objects:

- the function form of in-place Tensor methods (`torch.abs_(x)` is `x.abs_()`);
- other names of ops (`torch.divide` is `torch.div`, `torch.row_stack` is `torch.vstack`, ...);
- nn.functional and linalg functions that torch also exposes at the top level with the same arguments;
- the constants e, pi, inf, nan and newaxis, and the types of the layout and memory-format objects;
- the settings of _process_settings.py, the operator-level forms of _ops/aten_forms.py, the eager control flow
  of _control_flow.py and the sym_* functions of _symbolic_numbers.py."""
import math

INPLACE_METHODS = (
    "abs_", "acos_", "acosh_", "addmv_", "arccos_", "arccosh_", "arcsin_", "arcsinh_", "arctan_", "arctanh_",
    "asin_", "asinh_", "atan_", "atanh_", "ceil_", "clamp_", "clamp_max_", "clamp_min_", "clip_", "cos_", "cosh_",
    "deg2rad_", "detach_", "erf_", "erfc_", "exp2_", "exp_", "expm1_", "fill_", "fix_", "floor_", "frac_", "gcd_",
    "i0_", "index_put_", "lcm_", "ldexp_", "log10_", "log1p_", "log2_", "log_", "logit_", "nan_to_num_", "neg_",
    "negative_", "rad2deg_", "reciprocal_", "relu_", "rsqrt_", "round_", "sigmoid_", "sin_", "sinc_", "sinh_",
    "sqrt_", "square_", "tan_", "tanh_", "trunc_", "xlogy_", "zero_",
)
# predicates and conjugation views that torch offers both as functions and as Tensor methods
TENSOR_METHODS = ("is_conj", "is_neg", "is_signed", "is_same_size", "resolve_conj", "resolve_neg", "get_device",
                  "is_distributed")
SETTINGS = ("set_deterministic_debug_mode", "get_deterministic_debug_mode", "set_flush_denormal",
            "set_default_tensor_type")  # (defined in _process_settings.py)
# torch name -> (namespace, name there)
ALIASES = {
    "divide": ("torch", "div"), "multiply": ("torch", "mul"), "subtract": ("torch", "sub"),
    "true_divide": ("torch", "div"), "row_stack": ("torch", "vstack"),
    "unsafe_chunk": ("torch", "chunk"), "unsafe_split": ("torch", "split"),
    "unsafe_split_with_sizes": ("torch", "split_with_sizes"),
    "matrix_exp": ("torch.linalg", "matrix_exp"), "orgqr": ("torch.linalg", "householder_product"), "polygamma": ("torch.special", "polygamma"),
    "conv1d": ("torch.nn.functional", "conv1d"), "conv2d": ("torch.nn.functional", "conv2d"),
    "conv_transpose1d": ("torch.nn.functional", "conv_transpose1d"),
    "conv_transpose2d": ("torch.nn.functional", "conv_transpose2d"),
    "conv3d": ("torch.nn.functional", "conv3d"), "conv_transpose3d": ("torch.nn.functional", "conv_transpose3d"),
    "avg_pool1d": ("torch.nn.functional", "avg_pool1d"), "pixel_shuffle": ("torch.nn.functional", "pixel_shuffle"),
    "pixel_unshuffle": ("torch.nn.functional", "pixel_unshuffle"), "prelu": ("torch.nn.functional", "prelu"),
    "pdist": ("torch.nn.functional", "pdist"), "GradScaler": ("torch.amp", "GradScaler"),
    "pairwise_distance": ("torch.nn.functional", "pairwise_distance"),
}
# torch's operator-level spellings of nn.functional functions and small operators (_ops/aten_forms.py)
ATEN_FORMS = (
    "dropout", "alpha_dropout", "layer_norm", "group_norm", "rms_norm", "batch_norm", "instance_norm", "embedding",
    "kl_div", "binary_cross_entropy_with_logits", "margin_ranking_loss", "hinge_embedding_loss",
    "cosine_embedding_loss", "triplet_margin_loss", "poisson_nll_loss", "selu", "celu", "rrelu", "threshold",
    "max_pool1d", "max_pool2d", "max_pool3d", "max_pool1d_with_indices", "adaptive_avg_pool1d",
    "adaptive_max_pool1d", "constant_pad_nd", "channel_shuffle", "native_channel_shuffle", "norm_except_dim",
    "frobenius_norm", "nuclear_norm", "fill", "conj_physical", "nonzero_static", "view_as_complex",
)
# (has_lapack and has_spectral: the linear algebra and FFTs of torch.linalg / torch.fft are provided)
CONSTANTS = {"e": math.e, "pi": math.pi, "inf": math.inf, "nan": math.nan, "newaxis": None, "has_lapack": True,
             "has_spectral": True}


def _get_device_module(device=None):
    """The torch.<type> module of a device (by default the process's: 'cpu' unless a GPU is the target)."""
    import importlib

    from ._device import device as _device

    kind = getattr(device, "type", None) or (str(device).split(":")[0] if device is not None else None)
    if kind is None:
        from ._runtime import DEVICE_TARGET

        kind = "cuda" if DEVICE_TARGET == "GPU" else "npu" if DEVICE_TARGET == "Ascend" else "cpu"
    _device(kind)  # (an unknown device type raises here, as in torch)
    return importlib.import_module("mindnlp_shim.torch." + kind)


def install(namespace):
    """Adds the names to the torch module's namespace dict (names torch/__init__.py already defines stay)."""
    from mindspore import Tensor

    from . import _stand_ins

    for name in INPLACE_METHODS + TENSOR_METHODS:
        method = getattr(Tensor, name, None)
        if method is not None and name not in namespace:
            namespace[name] = method
    for name, (module, attr) in ALIASES.items():
        if module == "torch" and name not in namespace and attr in namespace:
            namespace[name] = namespace[attr]
    for name, value in CONSTANTS.items():
        namespace.setdefault(name, value)
    namespace.setdefault("memory_format", _stand_ins.memory_format)
    namespace.setdefault("layout", type(namespace["strided"]))
    from . import _process_settings
    from ._ops import aten_forms, inclusive_range

    for name in SETTINGS:
        namespace.setdefault(name, getattr(_process_settings, name))
    namespace.setdefault("range", inclusive_range.range)
    for name in ATEN_FORMS:
        namespace.setdefault(name, getattr(aten_forms, name))
    from . import _control_flow, _symbolic_numbers

    for module in (_control_flow, _symbolic_numbers):
        for name in module.__all__:
            namespace.setdefault(name, getattr(module, name))
    namespace.setdefault("is_vulkan_available", lambda: False)  # (no Vulkan backend under MindSpore)
    namespace.setdefault("get_device_module", _get_device_module)
    from ._ops import linalg_lu, scatter_reduce

    namespace.setdefault("scatter_reduce", scatter_reduce.scatter_reduce)
    namespace.setdefault("lu_unpack", linalg_lu.lu_unpack)
    namespace.setdefault("lu", linalg_lu.torch_lu)
    namespace.setdefault("lu_solve", linalg_lu.torch_lu_solve)


# the aliases of names in submodules resolve on first use (importing nn.functional with torch costs 0.4 s)
LAZY = frozenset(name for name, (module, _) in ALIASES.items() if module != "torch")


def resolve(name):
    import importlib

    module, attr = ALIASES[name]
    return getattr(importlib.import_module("mindnlp_shim." + module), attr)
