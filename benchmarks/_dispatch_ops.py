"""The ops the dispatch benchmark times, each written twice: through the torch API and as the MindSpore call(s)
that serve it.

Every entry is a zero-argument closure, so all implementations pay the same Python call around the op. The torch
form runs unchanged on the shim (`import mindnlp` first) and on real torch. The MindSpore form is the kernel
call the shim makes for that op (read from `mindnlp_shim/torch/_ops/*`, `_tensor.py`, `_inplace.py` and
`nn/functional.py`), with the arguments the shim would pass, so "ours minus raw" is what the torch layer adds.
Where the shim runs an extra MindSpore op of its own for torch's semantics, the raw form leaves it out and the
difference includes it: `torch.softmax` first floors -inf with `ops.maximum` (MindSpore's float32 last-axis
softmax corrupts the rows after an all -inf row). `clone` has no single MindSpore kernel, so both forms make the
shim's two calls; exact GELU is five (`nn/_lean_backward.py`, on inputs that do not record gradients).

This module imports neither torch nor mindspore; the caller passes them in.
"""
import numpy as np

# name -> what the torch form does (shown in the table's notes)
OPS = {
    "add": "torch.add(x, y)",
    "mul": "torch.mul(x, y)",
    "sub": "torch.sub(x, y)",
    "div": "torch.div(x, y)",
    "matmul": "torch.matmul(x, y)",
    "sum": "torch.sum(x)",
    "mean": "torch.mean(x)",
    "softmax": "torch.softmax(x, -1)",
    "relu": "torch.relu(x)",
    "gelu": "F.gelu(x)",
    "tanh": "torch.tanh(x)",
    "exp": "torch.exp(x)",
    "view": "x.view(-1)",
    "transpose": "x.transpose(0, 1)",
    "cat": "torch.cat([x, y])",
    "index": "x[0]",
    "masked_fill": "x.masked_fill(mask, 0.0)",
    "where": "torch.where(mask, x, y)",
    "eq": "torch.eq(x, y)",
    "clone": "x.clone()",
    "add_scalar": "x + 1",
    "add_": "a.add_(y)",
    "zero_": "b.zero_()",
}

# The MindSpore call(s) behind each op, as the shim makes them (shown in the docs).
RAW_FORMS = {
    "add": "ops.add(x, y)",
    "mul": "ops.mul(x, y)",
    "sub": "ops.sub(x, y)",
    "div": "ops.div(x, y)",
    "matmul": "ops.matmul(x, y)",
    "sum": "mint.sum(x, None, False)",
    "mean": "mint.mean(x, None, False)",
    "softmax": "ops.softmax(x, -1)  (the shim also runs ops.maximum(x, lowest float32) first)",
    "relu": "ops.relu(x)",
    "gelu": "ops.mul(x, ops.mul(ops.add(ops.erf(ops.mul(x, 1/sqrt(2))), 1.0), 0.5))  (the shim's exact GELU, "
            "five MindSpore ops; MindSpore's own ops.gelu costs 2-3 ms even on 4x4)",
    "tanh": "ops.tanh(x)",
    "exp": "ops.exp(x)",
    "view": "ops.reshape(x, (n*n,))",
    "transpose": "ops.transpose(x, (1, 0))",
    "cat": "ops.cat((x, y), 0)",
    "index": "MindSpore's own Tensor.__getitem__(x, 0)",
    "masked_fill": "ops.masked_fill(x, mask, 0.0)",
    "where": "ops.where(mask, x, y)",
    "eq": "ops.equal(x, y)",
    "clone": "ops.add(x, ops.zeros((), float32))  (two MindSpore ops, as the shim does it)",
    "add_scalar": "ops.add(x, 1)",
    "add_": "update_data(a, ops.add(a, y))  (TensorPy._update_data; assign_value_cpp on 2.7)",
    "zero_": "update_data(b, ops.fill(float32, b.shape, 0))",
}


def input_arrays(size, seed=0):
    """float32 operands of shape (size, size), a bool mask, and two receivers for the in-place ops."""
    rng = np.random.default_rng(seed)
    x = rng.standard_normal((size, size)).astype(np.float32)
    y = (rng.random((size, size)) + 0.5).astype(np.float32)  # away from zero: y is also a divisor
    return {
        "x": x,
        "y": y,
        "mask": x > 0.5,
        "a": np.zeros((size, size), dtype=np.float32),
        "b": np.ones((size, size), dtype=np.float32),
    }


def torch_ops(torch, arrays, names):
    """Closures through the torch API (ours or real torch, whichever `torch` is)."""
    t = {name: torch.from_numpy(array.copy()) for name, array in arrays.items()}
    x, y, mask, a, b = t["x"], t["y"], t["mask"], t["a"], t["b"]
    functional = torch.nn.functional
    table = {
        "add": lambda: torch.add(x, y),
        "mul": lambda: torch.mul(x, y),
        "sub": lambda: torch.sub(x, y),
        "div": lambda: torch.div(x, y),
        "matmul": lambda: torch.matmul(x, y),
        "sum": lambda: torch.sum(x),
        "mean": lambda: torch.mean(x),
        "softmax": lambda: torch.softmax(x, -1),
        "relu": lambda: torch.relu(x),
        "gelu": lambda: functional.gelu(x),
        "tanh": lambda: torch.tanh(x),
        "exp": lambda: torch.exp(x),
        "view": lambda: x.view(-1),
        "transpose": lambda: x.transpose(0, 1),
        "cat": lambda: torch.cat([x, y]),
        "index": lambda: x[0],
        "masked_fill": lambda: x.masked_fill(mask, 0.0),
        "where": lambda: torch.where(mask, x, y),
        "eq": lambda: torch.eq(x, y),
        "clone": lambda: x.clone(),
        "add_scalar": lambda: x + 1,
        "add_": lambda: a.add_(y),
        "zero_": lambda: b.zero_(),
    }
    return {name: table[name] for name in names}


def mindspore_ops(mindspore, arrays, names, getitem):
    """Closures calling MindSpore directly. `getitem` is MindSpore's own `Tensor.__getitem__` (in a process with
    the shim, the one the shim captured before replacing it)."""
    from mindspore import mint, ops
    from mindnlp_shim import _mindspore

    update_data = _mindspore.update_data  # what the shim's in-place write does on a leaf (per release)
    t = {name: mindspore.Tensor.from_numpy(array.copy()) for name, array in arrays.items()}
    x, y, mask, a, b = t["x"], t["y"], t["mask"], t["a"], t["b"]
    f32 = mindspore.float32
    sqrt_half = float(1.0 / np.sqrt(2.0))  # a Python float, as the shim passes it
    flat = (int(np.prod(arrays["x"].shape)),)
    shape = tuple(arrays["b"].shape)
    table = {
        "add": lambda: ops.add(x, y),
        "mul": lambda: ops.mul(x, y),
        "sub": lambda: ops.sub(x, y),
        "div": lambda: ops.div(x, y),
        "matmul": lambda: ops.matmul(x, y),
        "sum": lambda: mint.sum(x, None, False),
        "mean": lambda: mint.mean(x, None, False),
        "softmax": lambda: ops.softmax(x, -1),
        "relu": lambda: ops.relu(x),
        "gelu": lambda: ops.mul(x, ops.mul(ops.add(ops.erf(ops.mul(x, sqrt_half)), 1.0), 0.5)),
        "tanh": lambda: ops.tanh(x),
        "exp": lambda: ops.exp(x),
        "view": lambda: ops.reshape(x, flat),
        "transpose": lambda: ops.transpose(x, (1, 0)),
        "cat": lambda: ops.cat((x, y), 0),
        "index": lambda: getitem(x, 0),
        "masked_fill": lambda: ops.masked_fill(x, mask, 0.0),
        "where": lambda: ops.where(mask, x, y),
        "eq": lambda: ops.equal(x, y),
        "clone": lambda: ops.add(x, ops.zeros((), f32)),
        "add_scalar": lambda: ops.add(x, 1),
        "add_": lambda: update_data(a, ops.add(a, y)),
        "zero_": lambda: update_data(b, ops.fill(f32, shape, 0)),
    }
    return {name: table[name] for name in names}


def check_same_values(ours, raw, names, to_numpy):
    """Both forms of each op compute the same thing (a wrong raw form would make the comparison meaningless)."""
    for name in names:
        if name in ("add_", "zero_"):
            continue  # their results are the receivers, which the timing loop keeps changing
        mine, theirs = to_numpy(ours[name]()), to_numpy(raw[name]())
        if mine.shape != theirs.shape or not np.allclose(mine, theirs, rtol=1e-5, atol=1e-6):
            raise RuntimeError(f"{name}: the torch form and the MindSpore form disagree")
