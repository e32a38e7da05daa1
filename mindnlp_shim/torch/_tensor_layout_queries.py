"""torch.Tensor.dim_order: the dims from outermost to innermost in memory, read from the strides (larger stride
first; dims with equal strides keep their order, as torch's answer does for size-1 dims)."""


def dim_order(self, *, ambiguity_check=False):
    strides = self.stride()
    order = tuple(sorted(range(self.ndim), key=lambda d: -strides[d]))
    if ambiguity_check and any(strides[a] == strides[b] for a, b in zip(order, order[1:])):
        raise RuntimeError("The tensor does not have unique dim order, or cannot map to exact one of the given "
                           "memory formats.")
    return order


def install(Tensor):
    if "dim_order" not in vars(Tensor):
        Tensor.dim_order = dim_order
