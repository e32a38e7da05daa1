"""torch.vmap: `func` mapped over a batch dimension of its inputs. Computed as one call per batch element,
stacked along `out_dims` (the values torch's batched rules give, at the cost of a loop). in_dims: an int, or one
int/None per positional argument; nested structures of in_dims are not supported."""

__all__ = ["vmap"]


def _torch():
    import importlib

    return importlib.import_module(__package__)


def vmap(func, in_dims=0, out_dims=0, randomness="error", *, chunk_size=None):
    def mapped(*args, **kwargs):
        torch = _torch()
        dims = (in_dims,) * len(args) if isinstance(in_dims, int) or in_dims is None else tuple(in_dims)
        if len(dims) != len(args):
            raise ValueError(f"vmap: in_dims is not compatible with the structure of inputs: {len(dims)} in_dims "
                             f"for {len(args)} positional arguments")
        if any(d is not None and not isinstance(d, int) for d in dims):
            raise NotImplementedError("torch.vmap with nested in_dims is not supported by mindnlp-shim")
        sizes = {a.shape[d] for a, d in zip(args, dims) if d is not None}
        if not sizes:
            raise ValueError("vmap: at least one input must be mapped over (got in_dims all None)")
        if len(sizes) > 1:
            raise ValueError(f"vmap: Expected all tensors to have the same size in the mapped dimension, got "
                             f"sizes {sorted(sizes)} for the mapped dimension")
        results = [func(*[a.select(d, i) if d is not None else a for a, d in zip(args, dims)], **kwargs)
                   for i in range(sizes.pop())]
        if isinstance(results[0], tuple):
            outs = (out_dims,) * len(results[0]) if isinstance(out_dims, int) else tuple(out_dims)
            return tuple(torch.stack([r[k] for r in results], outs[k]) for k in range(len(results[0])))
        return torch.stack(results, out_dims)

    return mapped
