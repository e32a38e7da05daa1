"""Samplers on the meta device draw nothing, as torch's meta kernels: the generator's stream after building a
model (or any meta tensor) under `torch.device("meta")` is torch's. transformers' `from_pretrained` builds every
model that way, so `manual_seed; from_pretrained; randn` must give torch's numbers.

Each case makes meta results (by the default-device context or `device="meta"`), then draws a few normal values
from the default generator; the results' device, dtype and shape, whether the call raised, and the values drawn
after it are compared with real torch."""
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import mindnlp_shim.torch as mt
from conftest import real_torch

rt = real_torch()
pytestmark = pytest.mark.skipif(rt is None, reason="needs real torch in-process")


def _modules(T):
    return [T.nn.Linear(6, 5), T.nn.Embedding(7, 4), T.nn.Conv2d(2, 3, 3), T.nn.LayerNorm(4),
            T.nn.MultiheadAttention(8, 2), T.nn.LSTM(3, 4)]


# name: call(T) made on the meta device; each returns a tensor or a list of tensors
_CASES = {
    "randn": lambda T: T.randn(3, 4),
    "rand float64": lambda T: T.rand(5, dtype=T.float64),
    "randint": lambda T: T.randint(0, 9, (4,)),
    "randperm": lambda T: T.randperm(6),
    "normal floats": lambda T: T.normal(0.0, 2.0, size=(3,)),
    "normal_": lambda T: T.empty(4, 3).normal_(1.0, 2.0),
    "uniform_": lambda T: T.empty(5).uniform_(-1, 1),
    "random_": lambda T: T.empty(5, dtype=T.int64).random_(0, 10),
    "bernoulli_ float": lambda T: T.empty(6).bernoulli_(0.3),
    "bernoulli_ tensor": lambda T: T.empty(3).bernoulli_(T.full((3,), 0.5)),
    "exponential_": lambda T: T.empty(3).exponential_(),
    "cauchy_": lambda T: T.empty(3).cauchy_(),
    "log_normal_": lambda T: T.empty(3).log_normal_(),
    "geometric_": lambda T: T.empty(3).geometric_(0.5),
    "normal_ negative std": lambda T: T.empty(3).normal_(0.0, -1.0),
    "uniform_ reversed": lambda T: T.empty(3).uniform_(2.0, 1.0),
    "init.normal_": lambda T: T.nn.init.normal_(T.empty(4, 4)),
    "init.uniform_": lambda T: T.nn.init.uniform_(T.empty(4, 4)),
    "init.trunc_normal_": lambda T: T.nn.init.trunc_normal_(T.empty(4, 4), std=0.02),
    "init.xavier_uniform_": lambda T: T.nn.init.xavier_uniform_(T.empty(4, 5)),
    "init.kaiming_normal_": lambda T: T.nn.init.kaiming_normal_(T.empty(4, 5)),
    "init.orthogonal_": lambda T: T.nn.init.orthogonal_(T.empty(4, 5)),
    "init.sparse_": lambda T: T.nn.init.sparse_(T.empty(4, 5), 0.5),
    "modules": lambda T: [p for m in _modules(T) for p in m.parameters()],
    # (torch's default-device context reaches its factory functions only: these stay on the CPU, and draw)
    "randn_like of a cpu tensor": lambda T: T.randn_like(T.ones(2, device="cpu")),
    "zeros_like of a cpu tensor": lambda T: T.zeros_like(T.ones(2, device="cpu")),
    "full_like of a cpu tensor": lambda T: T.full_like(T.ones(2, device="cpu"), 3.0),
}
# calls on tensors already on the meta device (made by `device="meta"`, outside the context)
_ON_META_INPUT = {
    "randn_like": lambda T, x: T.randn_like(x),
    "rand_like": lambda T, x: T.rand_like(x),
    "randint_like": lambda T, x: T.randint_like(x, 5),
    "bernoulli": lambda T, x: T.bernoulli(x),
    "bernoulli p": lambda T, x: T.bernoulli(x, 0.3),
    "multinomial": lambda T, x: T.multinomial(x, 2),
    "poisson": lambda T, x: T.poisson(x),
    "normal tensor mean": lambda T, x: T.normal(x, 1.0),
    "normal_ of meta": lambda T, x: x.normal_(),
    "init.normal_ of meta": lambda T, x: T.nn.init.normal_(x),
    # torch's meta kernels check some arguments and not others
    "uniform_ of meta, reversed": lambda T, x: x.uniform_(2.0, 1.0),
    "bernoulli_ of meta, p 2": lambda T, x: x.bernoulli_(2.0),
    "exponential_ of meta, negative": lambda T, x: x.exponential_(-1.0),
    "cauchy_ of meta, sigma 0": lambda T, x: x.cauchy_(0.0, 0.0),
    "geometric_ of meta, p 2": lambda T, x: x.geometric_(2.0),
    "random_ of meta, reversed": lambda T, x: T.empty(3, dtype=T.int64, device="meta").random_(5, 2),
    "uniform_ of meta int": lambda T, x: T.empty(3, dtype=T.int64, device="meta").uniform_(),
    "normal_ of meta int": lambda T, x: T.empty(3, dtype=T.int64, device="meta").normal_(),
    "multinomial of meta, too many": lambda T, x: T.multinomial(x, 9),
    "poisson of meta int": lambda T, x: T.poisson(T.empty(3, dtype=T.int64, device="meta")),
    "randint reversed": lambda T, x: T.randint(5, 2, (3,), device="meta"),
    "randn int": lambda T, x: T.randn(3, device="meta", dtype=T.int64),
    "zeros_like": lambda T, x: T.zeros_like(x),
    "empty_like": lambda T, x: T.empty_like(x),
    "full_like": lambda T, x: T.full_like(x, 2.0),
}


def _described(result, T):
    """Device type, dtype and shape of each tensor made (values of meta tensors are not torch's to compare)."""
    tensors = result if isinstance(result, list) else [result]
    return [(t.device.type, str(t.dtype).replace("torch.", ""), tuple(t.shape)) for t in tensors]


def _run(T, steps, seed):
    T.manual_seed(seed)
    seen = []
    for name in steps:
        try:
            if name in _CASES:
                with T.device("meta"):
                    result = _CASES[name](T)
            else:
                result = _ON_META_INPUT[name](T, T.rand(3, 4, device="meta"))
            seen.append(_described(result, T))
        except Exception:  # noqa: BLE001  (raising is what is compared)
            seen.append("error")
        seen.append(T.randn(3).tolist())  # the generator's position after the call
    return seen


@settings(max_examples=40, deadline=None)
@given(steps=st.lists(st.sampled_from(sorted(_CASES) + sorted(_ON_META_INPUT)), min_size=1, max_size=4),
       seed=st.integers(0, 2**31 - 1))
def test_meta_samplers_leave_the_generator_as_torch_does(steps, seed):
    assert _run(mt, steps, seed) == _run(rt, steps, seed)


def test_every_case_runs_each_step():
    """The table itself: under real torch each case makes meta tensors (or raises where torch raises)."""
    for name in _CASES:
        with rt.device("meta"):
            try:
                result = _CASES[name](rt)
            except RuntimeError:
                assert "negative" in name or "reversed" in name
                continue
        assert {d for d, _, _ in _described(result, rt)} == {"cpu" if "cpu" in name or "floats" in name else "meta"}, name


@pytest.mark.parametrize("device", ["meta", None])
def test_explicit_meta_device_draws_nothing(device):
    def run(T):
        T.manual_seed(3)
        made = [T.randn(4, device=device), T.rand(2, 2, device=device), T.randint(0, 5, (3,), device=device),
                T.randperm(4, device=device), T.normal(0.0, 1.0, size=(2,), device=device)]
        return [t.device.type for t in made], T.randn(2).tolist()

    assert run(mt) == run(rt)


_FROM_PRETRAINED = """
import json, sys, tempfile
import mindnlp, torch, transformers
config = transformers.BertConfig(hidden_size=32, num_hidden_layers=2, num_attention_heads=4,
                                 intermediate_size=37, vocab_size=99)
folder = tempfile.mkdtemp()
transformers.BertModel(config).save_pretrained(folder)
torch.manual_seed(0)
with torch.device("meta"):
    built = transformers.BertModel(config)
devices = sorted({p.device.type for p in built.parameters()})
after_build = torch.randn(5).tolist()
torch.manual_seed(0)
transformers.BertModel.from_pretrained(folder)
print(json.dumps([devices, after_build, torch.randn(5).tolist()]))
"""


def test_transformers_building_on_meta_and_from_pretrained_keep_the_stream(tmp_path):
    """transformers on the shim: a BERT built under the meta device is meta and draws nothing, and
    from_pretrained (which builds on meta, then loads) leaves the generator where the seed put it."""
    pytest.importorskip("transformers")
    from shim_runner import run_shim_json

    script = tmp_path / "meta_stream.py"
    script.write_text(_FROM_PRETRAINED)
    devices, after_build, after_load = run_shim_json([str(script)])
    rt.manual_seed(0)
    first = rt.randn(5).tolist()
    assert devices == ["meta"]
    assert after_build == first and after_load == first
