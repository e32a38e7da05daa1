"""Broadcasting for elementwise ops by explicit tiling, where that is MindSpore's faster kernel.

MindSpore 2.10's CPU kernels for add/sub/mul/div are fast on operands of equal shape and far slower when
they broadcast (measured: (16,12,128,128) + (16,1,128,128) 19 ms, against 0.3 ms to tile the mask and 0.8 ms
for the equal-shape add; (16,128,256) * (256,) 4.2 ms against 0.8 ms). So large broadcasting operands are
first tiled to the result's shape. Tile's gradient sums over the repeated axes, as broadcasting's does.
"""
import functools

import mindspore
from mindspore import ops
from ... import _mindspore as _ms

Tensor = mindspore.Tensor

# Measured for floating dtypes; integer and bool operands keep MindSpore's own broadcasting.
_FLOATING = frozenset({mindspore.float16, mindspore.float32, mindspore.float64})

# Below this many result elements the broadcasting kernel's cost is noise next to an extra Tile launch.
TILE_FROM_ELEMENTS = 1 << 15


def expanded(tensor, shape):
    """`tensor` materialized at the broadcast `shape` (a tuple at least as long as tensor's): itself when its
    shape already is `shape`, otherwise tiled along its size-1 (or missing) leading axes."""
    own = tensor._shape  # MindSpore's own shape tuple (the torch-facing `shape` builds a torch.Size)
    if own == shape:
        return tensor
    if len(own) < len(shape):
        own = (1,) * (len(shape) - len(own)) + tuple(own)
        tensor = ops.reshape(tensor, own)
    return ops.tile(tensor, tuple(s if o == 1 else 1 for o, s in zip(own, shape)))


def _empty_at(tensor, shape):
    """An empty `shape` standing for `tensor` broadcast to it, with a zero gradient to `tensor`: the gradient
    of a broadcast operand is summed with MindSpore's ReduceSum, which leaves its output uninitialized when the
    summed tensor is empty (torch: zeros; measured: NaN or stale values now and then)."""
    if tensor._shape == shape:
        return tensor
    return _empty_stand_in().apply(tensor, shape)


@functools.lru_cache(maxsize=None)
def _empty_stand_in():
    """The Function of `_empty_at` (made on first use: autograd.function imports the ops modules)."""
    from ..autograd.function import Function

    class EmptyStandIn(Function):
        """Zeros of an empty shape whose gradient to the operand they stand for is zeros of its shape, made
        directly: any broadcast inside the graph would sum the empty gradient with ReduceSum again."""

        @staticmethod
        def forward(ctx, tensor, shape):
            ctx.operand = (tensor._shape, tensor.dtype)
            return _ms.zeros(shape, tensor.dtype)

        @staticmethod
        def backward(ctx, grad):
            shape, dtype = ctx.operand
            return _ms.zeros(shape, dtype), None

    return EmptyStandIn


def empty_broadcast(*operands):
    """`operands` of an elementwise op (tensors or scalars), with each floating tensor replaced by `_empty_at`
    when their broadcast shape is empty and its own shape differs; unchanged otherwise."""
    shapes = [t._shape for t in operands if type(t) is Tensor]
    if len(set(shapes)) < 2:
        return operands
    shape = shapes[0]
    for other in shapes[1:]:
        shape = _result_shape(tuple(shape), tuple(other))
        if shape is None:
            return operands  # not broadcastable: the kernel raises its error
    if 0 not in shape:
        return operands
    return tuple(_empty_at(t, shape) if type(t) is Tensor and t._dtype in _FLOATING else t for t in operands)


def _result_shape(a, b):
    if len(a) < len(b):
        a = (1,) * (len(b) - len(a)) + a
    elif len(b) < len(a):
        b = (1,) * (len(a) - len(b)) + b
    shape = []
    for x, y in zip(a, b):
        if x != y and x != 1 and y != 1:
            return None  # not broadcastable: the kernel itself raises its error
        shape.append(y if x == 1 else x)
    return tuple(shape)


def tiled_operands(input, other):
    """`(input, other)`, with a broadcasting tensor operand tiled to the result's shape when the result is large
    (see the module's reason). Scalars and equal shapes pass through untouched."""
    if type(input) is not Tensor or type(other) is not Tensor:
        return input, other
    a, b = input._shape, other._shape
    if a == b or input._dtype not in _FLOATING or other._dtype not in _FLOATING:
        return input, other
    shape = _result_shape(a, b)
    if shape is None:
        return input, other
    if 0 in shape:
        return _empty_at(input, shape), _empty_at(other, shape)
    size = 1
    for s in shape:
        size *= s
    if size < TILE_FROM_ELEMENTS:
        return input, other
    return expanded(input, shape), expanded(other, shape)
