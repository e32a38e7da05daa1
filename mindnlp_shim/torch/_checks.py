"""torch._check and its variants: assertions that model code (transformers' `torch_compilable_check`) calls so
that torch.compile can read them as hints. Without a compiler they are plain checks: raise `error_type` with
the message (a zero-argument callable) when the condition is False."""
import mindspore

__all__ = ["_check", "_check_with", "_check_index", "_check_value", "_check_type", "_check_not_implemented",
           "_check_tensor_all", "_check_tensor_all_with"]


def _check_with(error_type, cond, message=None):
    if not isinstance(cond, bool):
        raise TypeError(f"cond must be a bool, but got {type(cond)}")
    if cond:
        return
    if message is None:
        text = "Expected cond to be True, but got False."
    elif callable(message):
        text = message()
        if not isinstance(text, str):
            raise TypeError("message must return a str")
    else:
        raise TypeError("message must be a callable")
    raise error_type(text)


def _check(cond, message=None):
    _check_with(RuntimeError, cond, message)


def _check_index(cond, message=None):
    _check_with(IndexError, cond, message)


def _check_value(cond, message=None):
    _check_with(ValueError, cond, message)


def _check_type(cond, message=None):
    _check_with(TypeError, cond, message)


def _check_not_implemented(cond, message=None):
    _check_with(NotImplementedError, cond, message)


def _check_tensor_all_with(error_type, cond, message=None):
    """Every element of the bool tensor `cond` must be True."""
    if not isinstance(cond, mindspore.Tensor) or cond.dtype != mindspore.bool_:
        raise TypeError(f"cond must be a tensor with dtype torch.bool, but got "
                        f"{cond.dtype if isinstance(cond, mindspore.Tensor) else type(cond)}")
    _check_with(error_type, bool(cond.asnumpy().all()), message)


def _check_tensor_all(cond, message=None):
    _check_tensor_all_with(RuntimeError, cond, message)
