"""torch.nn.functional.grouped_mm: one matrix product per group, the groups cut from a 2-D operand by offsets.

Mixture-of-experts layers (transformers' Mixtral, Qwen-MoE ... experts) sort tokens by expert and multiply each
expert's run of rows by that expert's weight. MindSpore has no grouped GEMM kernel on the CPU, so each group is
its own matrix product on a slice and the pieces are concatenated: slicing, MatMul and Concat are all on the
tape, so gradients come from MindSpore. Offsets are read on the host (a sync): there are as many groups as
experts, a handful of products per call.
"""
import mindspore

from .._ops import creation as _creation, linalg as _linalg, shape as _shape


def _group_bounds(offs, groups):
    """[(start, end)] per group from int32 end offsets, checked as torch checks them."""
    if offs is None:
        raise RuntimeError("grouped_mm: have to provide offsets if there is a 2d matrix, or no offset if both "
                           "matrices are 3d")
    if offs.dtype != mindspore.int32:
        raise RuntimeError("grouped_mm: offsets have to be int32")
    ends = [int(e) for e in offs.tolist()]
    if groups is not None and len(ends) != groups:
        raise RuntimeError(f"grouped_mm: {len(ends)} offsets for {groups} groups")
    if any(b < a for a, b in zip([0] + ends, ends)):
        raise RuntimeError("grouped_mm: offsets must be monotonically increasing")
    return list(zip([0] + ends[:-1], ends))


def grouped_mm(mat_a, mat_b, *, offs=None, bias=None, out_dtype=None):
    """2-D (total_rows, K) x 3-D (G, K, N) with G offsets into the rows -> (total_rows, N): rows past the last
    offset are ignored (zeros here); 3-D (G, M, K) x 3-D (G, K, N) -> (G, M, N); 2-D (M, total_K) x 2-D
    (total_K, N) with offsets into K -> (G, M, N)."""
    if bias is not None:
        raise NotImplementedError("torch.nn.functional.grouped_mm(bias=...) is not supported on MindSpore: "
                                  "add the bias to the result")
    if mat_a.dtype != mat_b.dtype:
        raise RuntimeError(f"grouped_mm: expected operands of one dtype, got {mat_a.dtype} and {mat_b.dtype}")
    if mat_a.ndim == 3 and mat_b.ndim == 3:
        if offs is not None:
            raise RuntimeError("grouped_mm: have to provide offsets if there is a 2d matrix, or no offset if both "
                               "matrices are 3d")
        result = _linalg.matmul(mat_a, mat_b)
    elif mat_a.ndim == 2 and mat_b.ndim == 3:
        pieces = []
        for group, (start, end) in enumerate(_group_bounds(offs, mat_b.shape[0])):
            if end > start:  # an expert without tokens contributes no rows (and no empty MatMul)
                pieces.append(_linalg.matmul(mat_a[start:end], mat_b[group]))
        used = sum(p.shape[0] for p in pieces)
        if used < mat_a.shape[0]:
            pieces.append(_creation.zeros(mat_a.shape[0] - used, mat_b.shape[-1], dtype=mat_a.dtype))
        result = _shape.cat(pieces, 0)
    elif mat_a.ndim == 2 and mat_b.ndim == 2:
        products = [_linalg.matmul(mat_a[:, start:end], mat_b[start:end])
                    for start, end in _group_bounds(offs, None)]
        result = _shape.stack(products, 0)
    else:
        raise NotImplementedError(f"torch.nn.functional.grouped_mm of a {mat_a.ndim}-d and a {mat_b.ndim}-d "
                                  "operand is not supported on MindSpore (2-d x 3-d, 3-d x 3-d and 2-d x 2-d are)")
    return result if out_dtype is None else result.to(out_dtype)
