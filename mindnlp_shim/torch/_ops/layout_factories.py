"""torch.empty_permuted: an uninitialised tensor of `size` whose memory holds its dims in `physical_layout`
order (torch's strides for it), as a permuted view of a contiguous tensor of the physical shape; empty_strided
for strides of such a layout; and torch.qr,
the older spelling of linalg.qr (some=True: the reduced factors)."""

__all__ = ["empty_permuted", "empty_strided", "qr"]


def _torch():
    import importlib

    return importlib.import_module(__package__.rsplit(".", 1)[0])


def empty_permuted(size, physical_layout, *, dtype=None, layout=None, device=None, requires_grad=False,
                   pin_memory=False):
    size, physical_layout = tuple(size), tuple(physical_layout)
    if sorted(physical_layout) != list(range(len(size))):
        raise RuntimeError(f"physical_layout {list(physical_layout)} is not a permutation of the dims of "
                           f"{list(size)}")
    physical = _torch().empty([size[d] for d in physical_layout], dtype=dtype)
    inverse = [0] * len(size)
    for position, d in enumerate(physical_layout):
        inverse[d] = position
    out = physical.permute(*inverse) if size else physical
    return out.requires_grad_() if requires_grad else out


def empty_strided(size, stride, *, dtype=None, layout=None, device=None, requires_grad=False, pin_memory=False):
    """Strides that lay the dims out densely in some order (contiguous, channels-last, transposed) are served
    by empty_permuted; others (gaps, overlaps) are refused, as MindSpore tensors are dense."""
    size, stride = tuple(size), tuple(stride)
    if len(size) != len(stride):
        raise RuntimeError(f"mismatch in length of strides and shape: {len(stride)} strides for {len(size)} dims")
    order = tuple(sorted(range(len(size)), key=lambda d: -stride[d]))
    out = empty_permuted(size, order, dtype=dtype, requires_grad=requires_grad)
    if tuple(out.stride()) != stride and any(n != 0 for n in size):
        raise NotImplementedError(f"torch.empty_strided({list(size)}, {list(stride)}): only strides of a dense "
                                  f"layout in some dim order are supported by mindnlp-shim")
    return out


def qr(input, some=True):
    return _torch().linalg.qr(input, "reduced" if some else "complete")
