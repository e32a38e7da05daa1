"""torch.empty_permuted: an uninitialised tensor of `size` whose memory holds its dims in `physical_layout`
order (torch's strides for it), as a permuted view of a contiguous tensor of the physical shape; and torch.qr,
the older spelling of linalg.qr (some=True: the reduced factors)."""

__all__ = ["empty_permuted", "qr"]


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


def qr(input, some=True):
    return _torch().linalg.qr(input, "reduced" if some else "complete")
