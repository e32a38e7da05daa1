"""What a decode step captured as a MindSpore graph costs: the floor for graph capture of `generate`.

No shim and no torch: the small benchmark's tiny Llama (hidden 256, 4 layers, 8 query heads sharing 2 key/value
heads, MLP 512, vocabulary 1024) written by hand against MindSpore 2.10's own API as one greedy decode step over
a static cache (fixed shapes: keys and values of `--cache-len` positions, written at the step's position by a
one-hot blend; an additive mask hides the positions not yet written), compiled once with `mindspore.jit`. The
weights are random; the step does no more work than transformers' Llama does for one token (it builds no mask
tensors from the attention mask, repeats no key/value heads, and takes no host reads but the chosen token), so
its time per token is a lower bound for any capture of the real model's step on this backend.

It also times the step's 29 products alone (the seven projections of four layers and the LM head) inside one
compiled graph, against NumPy's, to show where the graph's time goes.

    .venv/bin/python benchmarks/decode_capture_floor.py --batch 1
    .venv/bin/python benchmarks/decode_capture_floor.py --batch 8 --jit-level O1

Figures and their reading: docs/graph-capture.md, "Decoding with a static cache".
"""
import argparse
import os
import statistics
import time

os.environ.setdefault("GLOG_v", "3")

import numpy as np  # noqa: E402
import mindspore  # noqa: E402
from mindspore import Tensor, ops  # noqa: E402

HIDDEN, LAYERS, HEADS, KV_HEADS, MLP, VOCAB = 256, 4, 8, 2, 512, 1024
HEAD_DIM = HIDDEN // HEADS
PROJECTIONS = ("q", "k", "v", "o", "gate", "up", "down")


def random_weights(rng):
    def weight(rows, cols):
        return Tensor((rng.standard_normal((rows, cols)) * 0.05).astype(np.float32))

    shapes = {"q": (HEADS * HEAD_DIM, HIDDEN), "k": (KV_HEADS * HEAD_DIM, HIDDEN), "v": (KV_HEADS * HEAD_DIM, HIDDEN),
              "o": (HIDDEN, HEADS * HEAD_DIM), "gate": (MLP, HIDDEN), "up": (MLP, HIDDEN), "down": (HIDDEN, MLP)}
    layers = []
    for _ in range(LAYERS):
        layer = [weight(*shapes[name]) for name in PROJECTIONS]
        layer += [Tensor(np.ones(HIDDEN, np.float32)), Tensor(np.ones(HIDDEN, np.float32))]  # the two RMSNorms
        layers.append(layer)
    return weight(VOCAB, HIDDEN), layers, Tensor(np.ones(HIDDEN, np.float32)), weight(VOCAB, HIDDEN)


def rope_tables(cache_len):
    inverse = 1.0 / (10000 ** (np.arange(0, HEAD_DIM, 2) / HEAD_DIM))
    angles = np.arange(cache_len)[:, None] * inverse[None]
    angles = np.concatenate([angles, angles], -1)
    return Tensor(np.cos(angles).astype(np.float32)), Tensor(np.sin(angles).astype(np.float32))


def make_step(batch, cache_len, embedding, final_norm, head, cos_table, sin_table):
    def rms_norm(x, scale):
        return x * ops.rsqrt((x * x).mean(-1, keep_dims=True) + 1e-6) * scale

    def rotate_half(x):
        return ops.concat([-x[..., HEAD_DIM // 2:], x[..., :HEAD_DIM // 2]], -1)

    def heads(x, count):
        return x.reshape(batch, 1, count, HEAD_DIM).transpose(0, 2, 1, 3)

    def step(ids, position, key_cache, value_cache, *weights):
        x = ops.gather(embedding, ids, 0)
        cos, sin = ops.gather(cos_table, position, 0), ops.gather(sin_table, position, 0)
        positions = ops.arange(cache_len)
        mask_bias = ops.select(positions > position, ops.fill(mindspore.float32, (cache_len,), -1e9),
                               ops.zeros(cache_len, mindspore.float32))
        written = (positions == position).astype(mindspore.float32).reshape(1, 1, cache_len, 1)
        keys, values = [], []
        for index in range(LAYERS):
            q_w, k_w, v_w, o_w, gate_w, up_w, down_w, norm1, norm2 = weights[index * 9:(index + 1) * 9]
            h = rms_norm(x, norm1)
            q, k, v = heads(ops.matmul(h, q_w.T), HEADS), heads(ops.matmul(h, k_w.T), KV_HEADS), \
                heads(ops.matmul(h, v_w.T), KV_HEADS)
            q, k = q * cos + rotate_half(q) * sin, k * cos + rotate_half(k) * sin
            layer_keys = key_cache[index] * (1 - written) + k * written
            layer_values = value_cache[index] * (1 - written) + v * written
            keys.append(layer_keys)
            values.append(layer_values)
            grouped = q.reshape(batch, KV_HEADS, HEADS // KV_HEADS, HEAD_DIM)  # query heads sharing a key head
            scores = ops.matmul(grouped, layer_keys.transpose(0, 1, 3, 2)) / HEAD_DIM ** 0.5 + mask_bias
            attended = ops.matmul(ops.softmax(scores, -1), layer_values).reshape(batch, 1, HIDDEN)
            x = x + ops.matmul(attended, o_w.T)
            h = rms_norm(x, norm2)
            x = x + ops.matmul(ops.silu(ops.matmul(h, gate_w.T)) * ops.matmul(h, up_w.T), down_w.T)
        logits = ops.matmul(rms_norm(x, final_norm), head.T)
        return ops.argmax(logits[:, -1], -1).astype(mindspore.int32), ops.stack(keys), ops.stack(values)

    return step


def time_decode(step, batch, cache_len, new_tokens, flat_weights, repeats):
    seconds = []
    for _ in range(repeats):
        shape = (LAYERS, batch, KV_HEADS, cache_len, HEAD_DIM)
        keys, values = Tensor(np.zeros(shape, np.float32)), Tensor(np.zeros(shape, np.float32))
        ids = Tensor(np.full((batch, 1), 5, np.int32))
        start = time.perf_counter()
        for position in range(new_tokens):
            chosen, keys, values = step(ids, Tensor([position], mindspore.int32), keys, values, *flat_weights)
            ids = Tensor(chosen.asnumpy().reshape(batch, 1))  # the host read generate makes per token
        seconds.append((time.perf_counter() - start) / new_tokens)
    return seconds


def time_products(batch, layers, head, repeats):
    weights = [w for layer in layers for w in layer[:len(PROJECTIONS)]] + [head]

    def products(x, *ws):
        results = []
        for w in ws:
            operand = x if w.shape[1] == HIDDEN else ops.concat([x, x], -1)
            results.append(ops.matmul(operand, w.T).sum())
        return ops.stack(results)

    x = Tensor(np.random.default_rng(1).standard_normal((batch, HIDDEN)).astype(np.float32))
    compiled = mindspore.jit(products)
    compiled(x, *weights).asnumpy()
    graph = []
    for _ in range(repeats):
        start = time.perf_counter()
        compiled(x, *weights).asnumpy()
        graph.append(time.perf_counter() - start)
    host_x, host_ws = x.asnumpy(), [w.asnumpy() for w in weights]
    host = []
    for _ in range(repeats):
        start = time.perf_counter()
        for w in host_ws:
            operand = host_x if w.shape[1] == HIDDEN else np.concatenate([host_x, host_x], -1)
            (operand @ w.T).sum()
        host.append(time.perf_counter() - start)
    return graph, host


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--batch", type=int, default=1)
    parser.add_argument("--cache-len", type=int, default=80, help="static cache positions (8 prompt + 64 new + 8)")
    parser.add_argument("--new-tokens", type=int, default=64)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--jit-level", default="O0", choices=("O0", "O1"))
    args = parser.parse_args()
    if args.new_tokens > args.cache_len:
        parser.error("--new-tokens must not exceed --cache-len")

    embedding, layers, final_norm, head = random_weights(np.random.default_rng(0))
    cos_table, sin_table = rope_tables(args.cache_len)
    step = mindspore.jit(make_step(args.batch, args.cache_len, embedding, final_norm, head, cos_table, sin_table),
                         jit_level=args.jit_level)
    flat_weights = [w for layer in layers for w in layer]

    start = time.perf_counter()
    time_decode(step, args.batch, args.cache_len, 1, flat_weights, 1)
    print(f"load average {os.getloadavg()[0]:.2f}; first call (trace and compile) {time.perf_counter() - start:.2f} s")
    seconds = time_decode(step, args.batch, args.cache_len, args.new_tokens, flat_weights, args.repeats)
    median = statistics.median(seconds)
    print(f"compiled decode step, batch {args.batch}, {args.jit_level}: {median * 1e3:.2f} ms per step "
          f"(min {min(seconds) * 1e3:.2f}), {args.batch / median:.1f} tokens/s")
    graph, host = time_products(args.batch, layers, head, max(10, args.repeats * 5))
    print(f"its 29 products alone: {statistics.median(graph) * 1e3:.2f} ms in one compiled graph, "
          f"{statistics.median(host) * 1e3:.2f} ms with NumPy")
    print(f"load average {os.getloadavg()[0]:.2f} at the end")


if __name__ == "__main__":
    main()
