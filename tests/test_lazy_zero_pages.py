"""Large `torch.zeros` / `torch.empty` tensors take NumPy's zeroed allocation without a copy, so the system maps
their pages as they are first written, as torch's empty leaves its memory untouched: accelerate's
`init_empty_weights` builds a model far larger than the machine's memory (its test builds 100 billion
parameters), and the values written later are torch's."""
import numpy as np
import pytest

import mindnlp_shim.torch as mt
from conftest import SUBPROCESS_FLAG, real_torch, subprocess_fallback

rt = real_torch()
if rt is None:
    globals()[SUBPROCESS_FLAG] = True
    test_whole_module_in_subprocess = subprocess_fallback(__file__)


def _resident_bytes():
    with open("/proc/self/statm") as fh:
        return int(fh.read().split()[1]) * 4096


@pytest.mark.parametrize("factory", ["zeros", "empty"])
def test_a_large_zeros_or_empty_takes_no_memory_until_written(factory):
    before = _resident_bytes()
    tensors = [getattr(mt, factory)(8192, 8192) for _ in range(8)]  # 2 GiB of float32
    grown = _resident_bytes() - before
    assert grown < 256 * 2 ** 20, grown
    tensors[0][5, :3] = mt.tensor([1.0, 2.0, 3.0])  # a write reaches only the pages it touches
    assert _resident_bytes() - before < 256 * 2 ** 20
    assert tensors[0][5, :4].tolist() == [1.0, 2.0, 3.0, 0.0] and float(tensors[0].sum()) == 6.0
    assert float(tensors[1].abs().sum()) == 0.0


def test_models_built_under_the_meta_device_from_large_layers_take_no_memory():
    before = _resident_bytes()
    layers = [mt.nn.Linear(8192, 8192, device="meta") for _ in range(8)]  # (nn.init draws nothing on meta)
    assert _resident_bytes() - before < 256 * 2 ** 20
    assert all(layer.weight.device.type == "meta" and layer.weight.shape == (8192, 8192) for layer in layers)


@pytest.mark.parametrize("dtype", ["float32", "float64", "float16", "int64", "int32", "bool", "complex64"])
def test_zeros_and_writes_into_them_are_torchs(dtype):
    answers = []
    for T in (mt, rt):
        x = T.zeros(3, 4, dtype=getattr(T, dtype))
        y = T.empty(2, dtype=getattr(T, dtype)).zero_()
        x[1] = 1
        x[:, 2] += 1 if dtype != "bool" else True
        answers.append((str(x.dtype), x.tolist(), y.tolist(), x.is_contiguous(), tuple(x.stride())))
    assert answers[0] == answers[1]
    assert np.asarray(answers[0][1]).shape == (3, 4)
