"""Child process: the raw-MindSpore floor.

BertForSequenceClassification written by hand against MindSpore 2.10's own API in PyNative mode, with no shim,
using the fastest correct recipe measured on CPU: `ops.gather` embeddings, the `ops.LayerNorm` primitive,
`ops.dense`, matmul/softmax attention with an additive mask, exact GELU as x * Phi(x) through `ops.erf`
(forward and backward about 25-35% faster than `ops.gelu` on the FFN activations), `ops.dropout`,
`ops.cross_entropy`; gradients from the tape engine (`run_backward`); clipping and AdamW in NumPy, in place, on
zero-copy `asnumpy()` views. It loads the same checkpoint files as the transformers runs, so all compute the
same function; `--check` verifies that against real torch.
"""
import json
import math
import os

import numpy as np

import _common
import _raw_mindspore_train


def load_weights(model_dir, extra_weights):
    """Checkpoint arrays by transformers' BertForSequenceClassification names without the 'bert.' prefix."""
    from safetensors.numpy import load_file

    arrays = load_file(os.path.join(model_dir, "model.safetensors"))
    if extra_weights:
        arrays.update(load_file(extra_weights))
    return {name[len("bert."):] if name.startswith("bert.") else name: array for name, array in arrays.items()}


class RawBertClassifier:
    def __init__(self, config, arrays):
        from mindspore import ops

        if config.get("hidden_act", "gelu") != "gelu":
            raise NotImplementedError(f"hidden_act {config['hidden_act']!r}: only exact gelu is written here")
        if config.get("position_embedding_type", "absolute") != "absolute":
            raise NotImplementedError("only absolute position embeddings are written here")
        self.ops = ops
        self.num_layers = config["num_hidden_layers"]
        self.num_heads = config["num_attention_heads"]
        self.head_dim = config["hidden_size"] // self.num_heads
        self.hidden_dropout = config.get("hidden_dropout_prob", 0.1)
        self.attention_dropout = config.get("attention_probs_dropout_prob", 0.1)
        classifier_dropout = config.get("classifier_dropout")
        self.classifier_dropout = self.hidden_dropout if classifier_dropout is None else classifier_dropout
        self.matmul_transpose_b = ops.BatchMatMul(transpose_b=True)
        self.layer_norm = ops.LayerNorm(begin_norm_axis=-1, begin_params_axis=-1, epsilon=config.get("layer_norm_eps", 1e-12))

        buffers = ("position_ids", "token_type_ids")
        self.params = _raw_mindspore_train.leaf_parameters(
            {name: array for name, array in arrays.items() if not name.endswith(buffers)}
        )
        self.names = list(self.params)

    def _dropout(self, x, p, training):
        return self.ops.dropout(x, p=p, training=True) if training and p > 0 else x

    def _norm(self, x, prefix):
        return self.layer_norm(x, self.params[prefix + ".weight"], self.params[prefix + ".bias"])[0]

    def _gelu(self, x):
        """Exact GELU, x * Phi(x) with Phi(x) = (1 + erf(x / sqrt(2))) / 2."""
        ops = self.ops
        return ops.mul(x, ops.mul(ops.add(ops.erf(ops.mul(x, 1.0 / math.sqrt(2.0))), 1.0), 0.5))

    def _dense(self, x, prefix):
        return self.ops.dense(x, self.params[prefix + ".weight"], self.params[prefix + ".bias"])

    def _split_heads(self, x, batch, seq):
        return self.ops.transpose(x.reshape(batch, seq, self.num_heads, self.head_dim), (0, 2, 1, 3))

    def _layer(self, hidden, mask_bias, index, training):
        ops = self.ops
        prefix = f"encoder.layer.{index}."
        batch, seq, width = hidden.shape
        query = self._split_heads(self._dense(hidden, prefix + "attention.self.query"), batch, seq)
        key = self._split_heads(self._dense(hidden, prefix + "attention.self.key"), batch, seq)
        value = self._split_heads(self._dense(hidden, prefix + "attention.self.value"), batch, seq)
        # Scaling the query (not the scores), the transpose_b flag (not a transposed copy of key) and a mask bias
        # already broadcast to the scores' shape are each several times cheaper on CPU than the literal form.
        scores = self.matmul_transpose_b(query * (self.head_dim ** -0.5), key) + mask_bias
        probs = self._dropout(ops.softmax(scores, -1), self.attention_dropout, training)
        context = ops.transpose(ops.matmul(probs, value), (0, 2, 1, 3)).reshape(batch, seq, width)
        attended = self._dropout(self._dense(context, prefix + "attention.output.dense"), self.hidden_dropout, training)
        hidden = self._norm(attended + hidden, prefix + "attention.output.LayerNorm")
        inner = self._gelu(self._dense(hidden, prefix + "intermediate.dense"))
        out = self._dropout(self._dense(inner, prefix + "output.dense"), self.hidden_dropout, training)
        return self._norm(out + hidden, prefix + "output.LayerNorm")

    def loss(self, input_ids, mask_bias, labels, token_type_ids, position_ids, training):
        """Mean cross-entropy of the classifier over the batch (the same graph as transformers' BERT)."""
        ops, p = self.ops, self.params
        words = ops.gather(p["embeddings.word_embeddings.weight"], input_ids, 0)
        types = ops.gather(p["embeddings.token_type_embeddings.weight"], token_type_ids, 0)
        positions = ops.gather(p["embeddings.position_embeddings.weight"], position_ids, 0)
        hidden = self._norm(words + types + positions, "embeddings.LayerNorm")
        hidden = self._dropout(hidden, self.hidden_dropout, training)
        for index in range(self.num_layers):
            hidden = self._layer(hidden, mask_bias, index, training)
        pooled = ops.tanh(self._dense(hidden[:, 0], "pooler.dense"))
        logits = self._dense(self._dropout(pooled, self.classifier_dropout, training), "classifier")
        return ops.cross_entropy(logits, labels)


def build(args):
    """The model and its batch (or batches, used in turn); returns (loss_of(training) -> loss tensor, the
    parameters in order)."""
    with open(os.path.join(args.model_dir, "config.json")) as f:
        config = json.load(f)
    model = RawBertClassifier(config, load_weights(args.model_dir, args.extra_weights))
    prepared = [batch_tensors(batch, model.num_heads) for batch in _common.read_batches(args.inputs)]
    calls = [0]

    def loss_of(training):
        tensors = prepared[calls[0] % len(prepared)]
        calls[0] += 1
        return model.loss(*tensors, training)

    return loss_of, [model.params[name] for name in model.names]


def batch_tensors(batch, num_heads):
    """(input_ids, mask_bias, labels, token_type_ids, position_ids) of one batch as MindSpore tensors."""
    import mindspore

    seq_len = batch["input_ids"].shape[1]
    # transformers adds the dtype's minimum where the mask is 0; the softmax then gives those keys exactly 0.
    mask = batch["attention_mask"].astype(np.float32)
    mask_bias = (1.0 - mask) * np.finfo(np.float32).min
    scores_shape = (mask.shape[0], num_heads, seq_len, seq_len)
    mask_bias = mindspore.Tensor(np.ascontiguousarray(np.broadcast_to(mask_bias[:, None, None, :], scores_shape)))
    return (mindspore.Tensor(batch["input_ids"]), mask_bias, mindspore.Tensor(batch["labels"]),
            mindspore.Tensor(np.zeros((seq_len,), np.int64)), mindspore.Tensor(np.arange(seq_len, dtype=np.int64)))


def body(args):
    return _raw_mindspore_train.run_body(args, build)


if __name__ == "__main__":
    _common.run_child("raw", body)
