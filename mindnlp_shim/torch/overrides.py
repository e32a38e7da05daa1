"""torch.overrides: __torch_function__ overrides do not exist on MindSpore tensors."""


def has_torch_function(args):
    return False


has_torch_function_unary = has_torch_function_variadic = has_torch_function


def is_tensor_like(obj):
    import mindspore

    return isinstance(obj, mindspore.Tensor)


class TorchFunctionMode:
    def __init__(self, *args, **kwargs):
        raise NotImplementedError("torch.overrides.TorchFunctionMode is not supported on MindSpore")
