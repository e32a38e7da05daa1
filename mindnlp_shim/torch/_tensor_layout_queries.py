"""torch.Tensor.dim_order: the dims from outermost to innermost in memory, read from the strides (larger stride
first; dims with equal strides keep their order, as torch's answer does for size-1 dims); and
Tensor.new_empty_strided, torch.empty_strided in the tensor's dtype."""


def dim_order(self, *, ambiguity_check=False):
    strides = self.stride()
    order = tuple(sorted(range(self.ndim), key=lambda d: -strides[d]))
    if ambiguity_check and any(strides[a] == strides[b] for a, b in zip(order, order[1:])):
        raise RuntimeError("The tensor does not have unique dim order, or cannot map to exact one of the given "
                           "memory formats.")
    return order


def new_empty_strided(self, size, stride, *, dtype=None, device=None, requires_grad=False, layout=None,
                      pin_memory=False):
    import importlib

    torch = importlib.import_module(__package__)
    return torch.empty_strided(size, stride, dtype=dtype or self.dtype, requires_grad=requires_grad)


def install(Tensor):
    if "dim_order" not in vars(Tensor):
        Tensor.dim_order = dim_order
    if "new_empty_strided" not in vars(Tensor):
        Tensor.new_empty_strided = new_empty_strided
