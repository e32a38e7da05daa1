"""torch._higher_order_ops.associative_scan: an inclusive scan with an associative combine function, computed
eagerly. transformers' Mamba-family models import it at every forward (they call it only while torch.compile
traces, which never happens here).

combine_mode="generic" is computed as torch computes it in eager mode: the combine function is mapped (vmap)
over pairs of elements, and the pairs are combined in the same order as torch's recursive odd/even scan, so the
floating-point results associate the same way. combine_mode="pointwise" needs CUDA/XPU tensors in torch and
raises torch's ValueError for other devices."""
from .. import _vmap
from ..utils import _pytree

__all__ = ["associative_scan"]


def _torch():
    import importlib

    return importlib.import_module(__package__.rsplit(".", 1)[0])


def _validate(combine_fn, leaves, dim, reverse, combine_mode):
    if not callable(combine_fn):
        raise ValueError(f"Combine_fn must be a callable, but got {combine_fn}")
    if not isinstance(dim, int):
        raise ValueError("Dim must be an int, but got " + str(type(dim)))
    if not isinstance(reverse, bool):
        raise RuntimeError("Reverse must be a bool, but got " + str(type(reverse)))
    if combine_mode not in ("pointwise", "generic"):
        raise ValueError(f"Combine_mode must either 'pointwise' or 'generic', but got {combine_mode}")
    if combine_mode == "pointwise" and not all(leaf.device.type in ("cuda", "xpu") for leaf in leaves):
        raise ValueError("For combine_mode='pointwise', all input tensors need to be on CUDA or XPU")
    if not leaves:
        raise ValueError("Expected at least 1 xs leaf")
    torch = _torch()
    if any(not isinstance(leaf, torch.Tensor) for leaf in leaves):
        raise ValueError("xs leaves must be a Tensor")
    if any(leaf.ndim <= dim or leaf.shape[dim] == 0 for leaf in leaves):
        raise ValueError("All xs leaves must at least have 'dim' number of dimensions and scan dimension > 0")


def _odd_even_scan(pairwise, elems):
    """Inclusive scan along dim 0 of the list of tensors `elems`: neighbours are combined pairwise, the halved
    sequence is scanned recursively, and the even positions are filled in from the odd ones."""
    torch = _torch()
    n = elems[0].shape[0]
    if n < 2:
        return elems
    odd = _odd_even_scan(pairwise, pairwise([e[0:n - 1:2] for e in elems], [e[1::2] for e in elems]))
    # position 2k (k >= 1) is the scan up to 2k-1 combined with element 2k
    left = [o[:len(range(2, n, 2))] for o in odd]
    even_rest = pairwise(left, [e[2::2] for e in elems]) if n > 2 else None
    out = []
    for i, e in enumerate(elems):
        even = e[0:1] if even_rest is None else torch.cat([e[0:1], even_rest[i]], 0)
        # interleave: even positions 0, 2, 4, ... and odd positions 1, 3, ...
        merged = torch.stack([even[:odd[i].shape[0]], odd[i]], 1).flatten(0, 1)
        if even.shape[0] > odd[i].shape[0]:
            merged = torch.cat([merged, even[-1:]], 0)
        out.append(merged)
    return out


def associative_scan(combine_fn, xs, dim, reverse=False, combine_mode="pointwise"):
    """The inclusive scan of `xs` (a tensor or a pytree of same-shaped tensors) along `dim` under `combine_fn`."""
    torch = _torch()
    leaves, spec = _pytree.tree_flatten(xs)
    if leaves and isinstance(dim, int) and isinstance(leaves[0], torch.Tensor):
        ndim = max(leaves[0].ndim, 1)
        if not -ndim <= dim < ndim:
            raise IndexError(f"Dimension out of range (expected to be in range of [{-ndim}, {ndim - 1}], "
                             f"but got {dim})")
        dim = dim + ndim if dim < 0 else dim
    _validate(combine_fn, leaves, dim, reverse, combine_mode)
    leaves = [torch.movedim(leaf, dim, 0) for leaf in leaves]
    if reverse:
        leaves = [leaf.flip([0]) for leaf in leaves]
    count = len(leaves)

    def combine_flat(*args):
        left = _pytree.tree_unflatten(list(args[:count]), spec)
        right = _pytree.tree_unflatten(list(args[count:]), spec)
        return tuple(_pytree.tree_leaves(combine_fn(left, right)))

    mapped = _vmap.vmap(combine_flat, in_dims=0, out_dims=0)

    def pairwise(left, right):
        return list(mapped(*left, *right))

    out = _odd_even_scan(pairwise, leaves)
    if reverse:
        out = [leaf.flip([0]) for leaf in out]
    out = [torch.movedim(leaf, 0, dim) for leaf in out]
    return _pytree.tree_unflatten(out, spec)
