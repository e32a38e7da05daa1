"""torch.Tensor in-place methods that are another name, or the in-place form, of a method defined elsewhere.

Each `<op>_` binds the one out-of-place definition already on `Tensor` (from `_bindings` or `_tensor_audit`)
through the shared in-place machinery: computed out of place, checked (no result of a higher kind than the
receiver, no broadcast growth) and written into the receiver, so views see it.

The in-place shape ops (`unsqueeze_`, `squeeze_`, `transpose_`, `t_`, `swapaxes_`, `swapdims_`) give the receiver
the view's shape and strides while keeping its identity and its storage, as torch does: views taken before
still share memory with it."""
import mindspore

Tensor = mindspore.Tensor

# in-place name -> the out-of-place method it writes back
INPLACE_OF = {
    "absolute_": "abs", "sgn_": "sign", "fix_": "trunc",
    "acos_": "acos", "arccos_": "acos", "asin_": "asin", "arcsin_": "asin", "atan_": "atan", "arctan_": "atan",
    "arctan2_": "atan2", "acosh_": "acosh", "arccosh_": "acosh", "asinh_": "asinh", "arcsinh_": "asinh",
    "atanh_": "atanh", "arctanh_": "atanh", "sinh_": "sinh", "cosh_": "cosh", "erfc_": "erfc", "sinc_": "sinc",
    "deg2rad_": "deg2rad", "rad2deg_": "rad2deg", "digamma_": "digamma", "lgamma_": "lgamma", "i0_": "i0",
    "mvlgamma_": "mvlgamma", "logit_": "logit", "xlogy_": "xlogy", "copysign_": "copysign", "ldexp_": "ldexp",
    "heaviside_": "heaviside", "nextafter_": "nextafter", "igamma_": "igamma", "igammac_": "igammac",
    "gcd_": "gcd", "lcm_": "lcm", "bitwise_not_": "bitwise_not", "bitwise_xor_": "bitwise_xor",
    "bitwise_left_shift_": "bitwise_left_shift", "bitwise_right_shift_": "bitwise_right_shift",
    "greater_": "gt", "greater_equal_": "ge", "less_": "lt", "less_equal_": "le", "not_equal_": "ne",
    "cumprod_": "cumprod", "renorm_": "renorm", "addbmm_": "addbmm", "addmv_": "addmv", "addr_": "addr",
}
# torch applies these outside autograd, like logical_and_ (see _bindings._UNRECORDED)
UNRECORDED_INPLACE_OF = {"logical_xor_": "logical_xor"}
# out-of-place aliases: method name -> the method it is another name for
ALIASES = {"fix": "trunc"}
SHAPE_INPLACE_OF = {"unsqueeze_": "unsqueeze", "squeeze_": "squeeze", "transpose_": "transpose", "t_": "t",
                    "swapaxes_": "transpose", "swapdims_": "transpose"}


def float_power_(self, exponent):
    # torch computes float_power in double and refuses to write it into a receiver of another dtype
    if self.dtype not in (mindspore.float64, mindspore.complex128):
        name = {mindspore.float32: "Float", mindspore.float16: "Half", mindspore.bfloat16: "BFloat16"}.get(
            self.dtype, str(self.dtype))
        raise RuntimeError(f"the base given to float_power_ has dtype {name} but the operation's result requires "
                           f"dtype Double")
    return _float_power_checked(self, exponent)


_float_power_checked = None


def _shape_inplace(name, view_of):
    def method(self, *args, **kwargs):
        from . import _inplace
        from .autograd.grad_mode import is_grad_enabled

        if self.requires_grad and is_grad_enabled():
            raise NotImplementedError(f"torch.Tensor.{name} on a tensor that requires grad is not supported by "
                                      f"mindnlp-shim on MindSpore: the tape cannot record a shape change in place "
                                      f"(use the out-of-place {view_of.__name__})")
        _inplace.swap_data(self, view_of(self, *args, **kwargs))
        return self

    method.__name__ = name
    return method


def install():
    global _float_power_checked
    from ._bindings import _checked_inplace, _unrecorded_inplace

    for name, base in INPLACE_OF.items():
        method = _checked_inplace(getattr(Tensor, base))
        method.__name__ = name
        setattr(Tensor, name, method)
    for name, base in UNRECORDED_INPLACE_OF.items():
        method = _unrecorded_inplace(getattr(Tensor, base))
        method.__name__ = name
        setattr(Tensor, name, method)
    for name, base in ALIASES.items():
        setattr(Tensor, name, getattr(Tensor, base))
    _float_power_checked = _checked_inplace(Tensor.float_power)
    Tensor.float_power_ = float_power_
    for name, base in SHAPE_INPLACE_OF.items():
        setattr(Tensor, name, _shape_inplace(name, getattr(Tensor, base)))
