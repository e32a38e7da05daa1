"""Child process: the raw-MindSpore floor for the tiny Llama.

transformers' LlamaForCausalLM written by hand against MindSpore 2.10's own API in PyNative mode, with no shim:
`ops.gather` embeddings, RMSNorm, `ops.dense` projections without bias, RoPE, grouped-query attention as
matmul + softmax with an additive causal-and-padding mask, the SiLU-gated MLP, an untied LM head and the
cross-entropy over the next tokens (labels -100 ignored); training as in `_raw_mindspore_train.py`. It loads
the same checkpoint as the transformers runs, so all compute the same function; `--check` verifies that against
real torch.

Each form below was measured against the literal one (forward + backward, batch 16, sequence 128, MindSpore 2.10
CPU) and is not slower:
- RoPE's rotate_half as a matmul with a fixed signed permutation matrix (about half the time of slice, negate
  and concatenate; `ops.roll` has no CPU kernel), with the attention scale folded into the query's cos/sin tables;
- RMSNorm's mean of squares as a matmul with a column of 1/hidden (MindSpore's CPU reductions are slow);
- grouped-query attention without repeating keys and values: the query heads that share a key/value head are
  stacked along the sequence axis, so one batched matmul against the shared head serves them all;
- the cross-entropy as `ops.log_softmax` + `ops.nll_loss` (about 6x faster, forward and backward, than
  `ops.cross_entropy` on these 2048 x 1024 logits);
- the mask bias pre-broadcast to the scores' shape, and the key used through `BatchMatMul(transpose_b=True)`, as in
  `_raw_mindspore_bert.py`.
"""
import json
import os

import numpy as np

import _common
import _raw_mindspore_train

IGNORE_INDEX = -100


class RawLlamaForCausalLM:
    def __init__(self, config, arrays):
        from mindspore import ops

        if config.get("hidden_act", "silu") != "silu":
            raise NotImplementedError(f"hidden_act {config['hidden_act']!r}: only silu is written here")
        if config.get("attention_bias") or config.get("mlp_bias"):
            raise NotImplementedError("projection biases are not written here")
        rope = config.get("rope_parameters") or {"rope_type": "default", "rope_theta": config.get("rope_theta", 1e4)}
        if rope.get("rope_type", "default") != "default":
            raise NotImplementedError(f"rope_type {rope['rope_type']!r}: only the default RoPE is written here")
        self.ops = ops
        self.num_layers = config["num_hidden_layers"]
        self.num_heads = config["num_attention_heads"]
        self.num_kv_heads = config.get("num_key_value_heads") or self.num_heads
        self.hidden_size = config["hidden_size"]
        self.head_dim = config.get("head_dim") or self.hidden_size // self.num_heads
        self.rope_theta = rope["rope_theta"]
        self.eps = config.get("rms_norm_eps", 1e-6)
        self.matmul_transpose_b = ops.BatchMatMul(transpose_b=True)
        self.params = _raw_mindspore_train.leaf_parameters(arrays)
        self.names = list(self.params)
        self.lm_head = self.params.get("lm_head.weight", self.params["model.embed_tokens.weight"])  # tied if absent

    def constants(self, attention_mask):
        """Per batch: RoPE tables, the rotate_half matrix, the mask bias and the RMSNorm averaging column."""
        import mindspore

        batch, seq = attention_mask.shape
        half = self.head_dim // 2
        # cos/sin as transformers computes them (float32 inverse frequencies, positions 0..seq-1)
        inv_freq = (1.0 / (self.rope_theta ** (np.arange(0, self.head_dim, 2, dtype=np.float32) / self.head_dim)))
        freqs = np.arange(seq, dtype=np.float32)[:, None] * inv_freq.astype(np.float32)[None, :]
        angles = np.concatenate([freqs, freqs], axis=-1)
        cos, sin = np.cos(angles).astype(np.float32), np.sin(angles).astype(np.float32)
        scale = np.float32(self.head_dim ** -0.5)
        # x @ rotate: the first half becomes -x[half:], the second half x[:half] (transformers' rotate_half)
        rotate = np.zeros((self.head_dim, self.head_dim), np.float32)
        rotate[np.arange(half) + half, np.arange(half)] = -1.0
        rotate[np.arange(half), np.arange(half) + half] = 1.0
        # key j is hidden from query i if it is later (causal) or padding; transformers adds the dtype's minimum
        groups = self.num_heads // self.num_kv_heads
        hidden = np.triu(np.ones((seq, seq), bool), k=1)[None, :, :] | (attention_mask[:, None, :] == 0)
        bias = np.where(hidden, np.finfo(np.float32).min, np.float32(0.0)).astype(np.float32)
        bias = np.broadcast_to(bias[:, None, None, :, :], (batch, self.num_kv_heads, groups, seq, seq))
        tensor = lambda array: mindspore.Tensor(np.ascontiguousarray(array))  # noqa: E731
        return {
            "cos_q": tensor(cos * scale), "sin_q": tensor(sin * scale), "cos_k": tensor(cos), "sin_k": tensor(sin),
            "rotate": tensor(rotate),
            "mask_bias": tensor(bias.reshape(batch, self.num_kv_heads, groups * seq, seq)),
            "mean_column": tensor(np.full((self.hidden_size, 1), 1.0 / self.hidden_size, np.float32)),
        }

    def _rms_norm(self, x, name, c):
        ops = self.ops
        mean_square = ops.matmul(x * x, c["mean_column"])
        return self.params[name] * (x * ops.rsqrt(mean_square + self.eps))

    def _linear(self, x, name):
        return self.ops.dense(x, self.params[name])

    def _rope(self, x, cos, sin, c):
        return x * cos + self.ops.matmul(x, c["rotate"]) * sin

    def _heads(self, x, batch, seq, heads):
        return self.ops.transpose(x.reshape(batch, seq, heads, self.head_dim), (0, 2, 1, 3))

    def _attention(self, x, prefix, c):
        ops = self.ops
        batch, seq, _ = x.shape
        query = self._rope(self._heads(self._linear(x, prefix + "q_proj.weight"), batch, seq, self.num_heads),
                           c["cos_q"], c["sin_q"], c)  # already scaled by head_dim ** -0.5
        key = self._rope(self._heads(self._linear(x, prefix + "k_proj.weight"), batch, seq, self.num_kv_heads),
                         c["cos_k"], c["sin_k"], c)
        value = self._heads(self._linear(x, prefix + "v_proj.weight"), batch, seq, self.num_kv_heads)
        # query heads sharing a key/value head, stacked along the sequence axis: (batch, kv, groups * seq, dim)
        stacked = query.reshape(batch, self.num_kv_heads, -1, self.head_dim)
        probs = ops.softmax(self.matmul_transpose_b(stacked, key) + c["mask_bias"], -1)
        context = ops.matmul(probs, value).reshape(batch, self.num_heads, seq, self.head_dim)
        context = ops.transpose(context, (0, 2, 1, 3)).reshape(batch, seq, self.num_heads * self.head_dim)
        return self._linear(context, prefix + "o_proj.weight")

    def _mlp(self, x, prefix):
        gate = self.ops.silu(self._linear(x, prefix + "gate_proj.weight"))
        return self._linear(gate * self._linear(x, prefix + "up_proj.weight"), prefix + "down_proj.weight")

    def loss(self, input_ids, shift_labels, c):
        """Mean cross-entropy of each position's logits against the next token (transformers' ForCausalLMLoss)."""
        ops = self.ops
        hidden = ops.gather(self.params["model.embed_tokens.weight"], input_ids, 0)
        for index in range(self.num_layers):
            prefix = f"model.layers.{index}."
            normed = self._rms_norm(hidden, prefix + "input_layernorm.weight", c)
            hidden = hidden + self._attention(normed, prefix + "self_attn.", c)
            normed = self._rms_norm(hidden, prefix + "post_attention_layernorm.weight", c)
            hidden = hidden + self._mlp(normed, prefix + "mlp.")
        hidden = self._rms_norm(hidden, "model.norm.weight", c)
        logits = ops.dense(hidden, self.lm_head)
        log_probs = ops.log_softmax(logits.reshape(-1, logits.shape[-1]), 1)
        return ops.nll_loss(log_probs, shift_labels, ignore_index=IGNORE_INDEX)


def shifted_labels(labels):
    """Position i is scored against label i + 1; the last position against nothing (ignored)."""
    shifted = np.full_like(labels, IGNORE_INDEX)
    shifted[:, :-1] = labels[:, 1:]
    return shifted.reshape(-1)


def build(args):
    """The model and the fixed batch; returns (loss_of(training) -> loss tensor, the parameters in order)."""
    import mindspore
    from safetensors.numpy import load_file

    with open(os.path.join(args.model_dir, "config.json")) as f:
        config = json.load(f)
    model = RawLlamaForCausalLM(config, load_file(os.path.join(args.model_dir, "model.safetensors")))
    batch = _common.read_inputs(args.inputs)
    input_ids = mindspore.Tensor(batch["input_ids"])
    shift_labels = mindspore.Tensor(shifted_labels(batch["labels"]))
    constants = model.constants(batch["attention_mask"])

    def loss_of(training):  # Llama has no dropout: training and evaluation compute the same
        return model.loss(input_ids, shift_labels, constants)

    return loss_of, [model.params[name] for name in model.names]


def body(args):
    return _raw_mindspore_train.run_body(args, build)


if __name__ == "__main__":
    _common.run_child("raw", body)
