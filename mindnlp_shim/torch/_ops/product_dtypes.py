"""torch's refusal of matrix products and convolutions whose operands differ in dtype.

torch never promotes here: every pair of different dtypes is a RuntimeError, whose wording depends on the kernel
the call reaches (mm, addmm, addmv, bmm, dot, convolution). MindSpore's kernels raise TypeError instead, and
where the shim computes bfloat16 in float32 on the CPU a float32 and a bfloat16 operand met as two float32 tensors
and gave a float32 result without a word. Each check costs a few dtype comparisons and runs before any kernel
choice (host, flagged, lean Function)."""

import mindspore

from ._util import c_type_name, type_name


def checked_by(check):
    """Mark an op with its dtype check (same signature as the op) so that the CPU's bfloat16-in-float32 wrapper
    (`_backend.upcast_bf16`) runs it before casting bfloat16 operands; the op runs it itself as well."""
    def mark(op):
        op.__dtype_check__ = check
        return op
    return mark


def _mm(mat1, mat2):
    if mat1._dtype is not mat2._dtype:
        raise RuntimeError(f"expected m1 and m2 to have the same dtype, but got: {c_type_name(mat1._dtype)} != "
                           f"{c_type_name(mat2._dtype)}")


def _addmm(input, mat1, mat2):
    if input._dtype is not mat2._dtype:
        raise RuntimeError(f"self and mat2 must have the same dtype, but got {type_name(input._dtype)} and "
                           f"{type_name(mat2._dtype)}")
    if mat1._dtype is not mat2._dtype:
        raise RuntimeError(f"mat1 and mat2 must have the same dtype, but got {type_name(mat1._dtype)} and "
                           f"{type_name(mat2._dtype)}")


def _addmv(input_dtype, mat, vec):
    if not (input_dtype is mat._dtype and mat._dtype is vec._dtype):
        raise RuntimeError(f"addmv input tensors must have the same dtype, but got {type_name(input_dtype)}, "
                           f"{type_name(mat._dtype)}, and {type_name(vec._dtype)}")


def _bmm(batch1, batch2):
    if batch1._dtype is not batch2._dtype:
        raise RuntimeError(f"expected scalar type {type_name(batch1._dtype)} but found {type_name(batch2._dtype)}")


def dot(input, other, *, out=None):
    if input._dtype is not other._dtype:
        raise RuntimeError(f"dot : expected both vectors to have same dtype, but found {type_name(input._dtype)} "
                           f"and {type_name(other._dtype)}")


def mm(input, mat2, *, out=None):
    _mm(input, mat2)


def bmm(input, mat2, *, out=None):
    _bmm(input, mat2)


def addmm(input, mat1, mat2, *, beta=1, alpha=1, out=None):
    """addmm and addbmm."""
    _addmm(input, mat1, mat2)


def baddbmm(input, batch1, batch2, *, beta=1, alpha=1, out=None):
    _bmm(batch1, batch2)
    if input._dtype is not batch1._dtype:
        raise RuntimeError(f"Input dtypes must be the same, got: input {c_type_name(input._dtype)}, batch1: "
                           f"{c_type_name(batch1._dtype)}, batch2: {c_type_name(batch2._dtype)}")


def mv(input, vec, *, out=None):
    """(torch's mv is an addmv into a result of the vector's dtype)"""
    _addmv(vec._dtype, input, vec)


def addmv(input, mat, vec, *, beta=1, alpha=1, out=None):
    _addmv(input._dtype, mat, vec)


def matmul(input, other, *, out=None):
    """torch.matmul's check, worded by the kernel its operands' dims lead to."""
    if input._dtype is other._dtype:
        return
    left, right = len(input._shape), len(other._shape)
    if left == 1 and right == 1:
        dot(input, other)
    elif right == 1:
        _addmv(other._dtype, input, other)
    elif right == 2:
        _mm(input, other)  # (a vector or a batch on the left is folded into rows)
    else:
        _bmm(input, other)


def linear(input, weight, bias=None):
    """(torch's linear is an addmm of the bias, the input and the weight, or without a bias a product)"""
    if bias is None:
        _mm(input, weight)
    else:
        _addmm(bias, input, weight)


def _legacy_type(dt):
    return f"torch.{type_name(dt)}Tensor"


def convolution(input, weight, bias=None, *args, **kwargs):
    """conv1d/2d/3d and the transposed ones (torch looks at the bias first)."""
    if bias is not None and bias._dtype is not input._dtype:
        raise RuntimeError(f"Input type ({c_type_name(input._dtype)}) and bias type ({c_type_name(bias._dtype)}) "
                           "should be the same")
    if input._dtype is not weight._dtype:
        if input._dtype is mindspore.bfloat16:  # (torch's oneDNN path words it so)
            raise RuntimeError(f"Input type (CPUBFloat16Type) and weight type ({_legacy_type(weight._dtype)}) should "
                               "be the same or input should be a MKLDNN tensor and weight is a dense tensor")
        raise RuntimeError(f"expected scalar type {type_name(input._dtype)} but found {type_name(weight._dtype)}")
