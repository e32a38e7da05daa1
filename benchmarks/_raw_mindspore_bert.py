"""Child process: the raw-MindSpore floor.

BertForSequenceClassification written by hand against MindSpore 2.10's own API in PyNative mode, with no shim,
using the fastest correct recipe measured on CPU: `ops.gather` embeddings, the `ops.LayerNorm` primitive,
`ops.dense`, matmul/softmax attention with an additive mask, exact `ops.gelu`, `ops.dropout`,
`ops.cross_entropy`; gradients from the tape engine (`run_backward`); clipping and AdamW in NumPy, in place, on
zero-copy `asnumpy()` views. It loads the same checkpoint files as the transformers runs, so all compute the
same function; `--check` verifies that against real torch.
"""
import json
import math
import os

import numpy as np

import _common


_configured = False


def configure_mindspore():
    """Thread settings must be applied before the first op runs (and only once); the grad flag turns on recording."""
    global _configured
    if _configured:
        return
    _configured = True
    import mindspore
    from mindspore import _c_expression
    from mindspore.graph.api import _pynative_executor

    _c_expression.disable_multi_thread()
    mindspore.device_context.cpu.op_tuning.threads_num(2)
    _pynative_executor.set_grad_flag(True)


def load_weights(model_dir, extra_weights):
    """Checkpoint arrays by transformers' BertForSequenceClassification names without the 'bert.' prefix."""
    from safetensors.numpy import load_file

    arrays = load_file(os.path.join(model_dir, "model.safetensors"))
    if extra_weights:
        arrays.update(load_file(extra_weights))
    return {name[len("bert."):] if name.startswith("bert.") else name: array for name, array in arrays.items()}


class RawBertClassifier:
    def __init__(self, config, arrays):
        import mindspore
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

        # Leaf tensors over private float32 copies; AdamW later writes into these arrays through asnumpy() views.
        self.params = {}
        for name, array in arrays.items():
            if name.endswith("position_ids") or name.endswith("token_type_ids"):
                continue  # buffers, not parameters
            tensor = mindspore.Tensor.from_numpy(np.array(array, dtype=np.float32, copy=True))
            tensor.requires_grad_(True)
            self.params[name] = tensor
        self.names = list(self.params)
        self.mindspore = mindspore

    def _dropout(self, x, p, training):
        return self.ops.dropout(x, p=p, training=True) if training and p > 0 else x

    def _norm(self, x, prefix):
        return self.layer_norm(x, self.params[prefix + ".weight"], self.params[prefix + ".bias"])[0]

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
        inner = ops.gelu(self._dense(hidden, prefix + "intermediate.dense"), approximate="none")
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


class NumpyAdamW:
    """torch.optim.AdamW's update (decoupled weight decay, bias correction), in place on NumPy views."""

    def __init__(self, params):
        self.params = params
        self.exp_avg = [np.zeros(t.shape, np.float32) for t in params]
        self.exp_avg_sq = [np.zeros(t.shape, np.float32) for t in params]
        self.scratch = [np.empty(t.shape, np.float32) for t in params]
        self.step_count = 0

    def step(self, grads, lr):
        beta1, beta2 = _common.BETAS
        self.step_count += 1
        bias_correction1 = 1 - beta1 ** self.step_count
        sqrt_bias_correction2 = math.sqrt(1 - beta2 ** self.step_count)
        step_size = lr / bias_correction1
        for tensor, grad, m, v, tmp in zip(self.params, grads, self.exp_avg, self.exp_avg_sq, self.scratch):
            param = tensor.asnumpy()  # re-fetched every step: a view taken earlier may be stale
            param *= 1 - lr * _common.WEIGHT_DECAY
            m *= beta1
            np.multiply(grad, 1 - beta1, out=tmp)
            m += tmp
            v *= beta2
            np.multiply(grad, grad, out=tmp)
            tmp *= 1 - beta2
            v += tmp
            np.sqrt(v, out=tmp)
            tmp /= sqrt_bias_correction2
            tmp += _common.ADAM_EPS
            np.divide(m, tmp, out=tmp)
            tmp *= step_size
            param -= tmp


def clip_grad_norm(grads, max_norm):
    """torch.nn.utils.clip_grad_norm_ (2-norm over all grads), in place; returns the norm before clipping."""
    total = math.sqrt(sum(float(np.dot(g.ravel(), g.ravel())) for g in grads))
    coefficient = max_norm / (total + 1e-6)
    if coefficient < 1.0:
        for g in grads:
            g *= np.float32(coefficient)
    return total


def make_step(model, batch, total_steps):
    import mindspore
    from mindspore import _c_expression

    seq_len = batch["input_ids"].shape[1]
    input_ids = mindspore.Tensor(batch["input_ids"])
    labels = mindspore.Tensor(batch["labels"])
    # transformers adds the dtype's minimum where the mask is 0; the softmax then gives those keys exactly 0.
    mask = batch["attention_mask"].astype(np.float32)
    mask_bias = (1.0 - mask) * np.finfo(np.float32).min
    scores_shape = (mask.shape[0], model.num_heads, seq_len, seq_len)
    mask_bias = mindspore.Tensor(np.ascontiguousarray(np.broadcast_to(mask_bias[:, None, None, :], scores_shape)))
    token_type_ids = mindspore.Tensor(np.zeros((seq_len,), np.int64))
    position_ids = mindspore.Tensor(np.arange(seq_len, dtype=np.int64))
    params = [model.params[name] for name in model.names]
    optimizer = NumpyAdamW(params)
    schedule_steps = [0]

    def step(update=True, training=True):
        loss = model.loss(input_ids, mask_bias, labels, token_type_ids, position_ids, training)
        value = float(loss.asnumpy())
        if not update:
            return value
        _c_expression.run_backward((loss,), (), False, False, ())
        grads = [t._grad.asnumpy() for t in params]
        clip_grad_norm(grads, _common.MAX_GRAD_NORM)
        lr = _common.LR * _common.linear_schedule_factor(schedule_steps[0], total_steps)
        optimizer.step(grads, lr)
        schedule_steps[0] += 1
        for t in params:
            t._grad = None  # zero_grad(set_to_none=True)
        return value

    return step


def body(args):
    configure_mindspore()
    with open(os.path.join(args.model_dir, "config.json")) as f:
        config = json.load(f)
    model = RawBertClassifier(config, load_weights(args.model_dir, args.extra_weights))
    batch = _common.read_inputs(args.inputs)
    if args.check:
        step = make_step(model, batch, _common.CHECK_STEPS)
        return {"check_losses": _common.check_losses(lambda update=True: step(update, training=False))}
    step = make_step(model, batch, args.warmup + args.steps)
    return _common.timing_result(*_common.time_steps(step, args.warmup, args.steps))


if __name__ == "__main__":
    _common.run_child("raw", body)
