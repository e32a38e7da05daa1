"""float8 tensors (torch.float8_e4m3fn, torch.float8_e5m2) against real torch, byte for byte: conversions from
float32 (every sign, exponent and top-7-mantissa-bit pattern with several low halves, and hypothesis-drawn
values: overflow, NaN, infinities, subnormals, rounding ties) and from the other dtypes, decoding all 256 codes,
creation, views, joins, copies, printing, finfo, safetensors files both ways; ops MindSpore cannot compute on
float8 raise NotImplementedError naming the op."""
import json
import os

os.environ.setdefault("GLOG_v", "3")

import numpy as np  # noqa: E402
import pytest  # noqa: E402
from hypothesis import HealthCheck, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

import mindnlp_shim.torch as torch  # noqa: E402
from mindnlp_shim import _mindspore as _ms  # noqa: E402

from oracle import require_torch, run_torch_json  # noqa: E402
from shim_runner import run_shim_json  # noqa: E402

pytestmark = pytest.mark.skipif(not _ms.FLOAT8_BYTES_VIEWED, reason="float8 needs MindSpore's dtype view (2.8+)")

NAMES = ("float8_e4m3fn", "float8_e5m2")


def _drawn_float32(count=3000):
    """float32 values drawn by hypothesis (NaN, infinities, subnormals included), collected once."""
    drawn = []

    @settings(max_examples=count, derandomize=True, database=None, suppress_health_check=list(HealthCheck))
    @given(st.floats(width=32, allow_nan=True, allow_infinity=True, allow_subnormal=True))
    def collect(value):
        drawn.append(value)

    collect()
    return np.array(drawn, dtype=np.float32)


def _grid():
    """Every pattern of sign, exponent and the top 7 mantissa bits, with low halves that make exact ties,
    just-above/below-tie values and sticky bits."""
    high = np.arange(1 << 16, dtype=np.uint32) << 16
    lows = np.array([0x0000, 0x0001, 0x7FFF, 0x8000, 0x8001, 0xFFFF], dtype=np.uint32)
    return (high[:, None] | lows[None, :]).ravel().view(np.float32)


@pytest.fixture(scope="module")
def values(tmp_path_factory):
    return np.concatenate([_grid(), _drawn_float32()])


@pytest.fixture(scope="module")
def oracle(values, tmp_path_factory):
    require_torch()
    folder = tmp_path_factory.mktemp("float8")
    np.save(folder / "values.npy", values)
    code = f"""
import json, numpy as np, torch
from safetensors.torch import save_file
values = torch.from_numpy(np.load({str(folder / "values.npy")!r}))
out = {{}}
codes = torch.arange(256, dtype=torch.uint8)
small = torch.tensor([0.0, -0.0, 1.0, -2.5, 0.3, 448.0, 1000.0, float("nan"), float("-inf"), 3e-3, 1e-6])
for name in {NAMES!r}:
    dt = getattr(torch, name)
    np.save({str(folder)!r} + "/" + name + ".npy", values.to(dt).view(torch.uint8).numpy())
    np.save({str(folder)!r} + "/" + name + "_f64.npy", values.double().to(dt).view(torch.uint8).numpy())
    np.save({str(folder)!r} + "/" + name + "_f16.npy", values.half().to(dt).view(torch.uint8).numpy())
    np.save({str(folder)!r} + "/" + name + "_bf16.npy", values.bfloat16().to(dt).view(torch.uint8).numpy())
np.save({str(folder)!r} + "/source_f16.npy", values.half().view(torch.int16).numpy())
np.save({str(folder)!r} + "/source_bf16.npy", values.bfloat16().view(torch.int16).numpy())
for name in {NAMES!r}:
    dt = getattr(torch, name)
    f8 = codes.view(dt)
    out[name] = {{
        "decoded_bits": f8.float().view(torch.int32).tolist(),
        "to_f16_bits": f8.half().view(torch.int16).tolist(),
        "to_bf16_bits": f8.bfloat16().view(torch.int16).tolist(),
        "to_f64": [repr(v) for v in f8.double().tolist()],
        "from_ints": torch.tensor([0, 1, -3, 7, 300, 100000, -(2**40)]).to(dt).view(torch.uint8).tolist(),
        "from_bool": torch.tensor([True, False]).to(dt).view(torch.uint8).tolist(),
        "to_int": small.to(dt)[2:7].to(torch.int64).tolist(),
        "tensor": torch.tensor([1.0, 0.1, -7.3, 1e9, 2.0**-12], dtype=dt).view(torch.uint8).tolist(),
        "full": torch.full((2, 2), 0.3, dtype=dt).view(torch.uint8).tolist(),
        "zeros_like": torch.zeros_like(small.to(dt)).view(torch.uint8).tolist(),
        "ones": torch.ones(3, dtype=dt).view(torch.uint8).tolist(),
        "tolist": [repr(v) for v in small.to(dt).tolist()],
        "item": repr(small.to(dt)[3].item()),
        "repr": repr(small.to(dt)),
        "repr_2d": repr(small[:6].reshape(2, 3).to(dt)),
        "finfo": [repr(getattr(torch.finfo(dt), k)) for k in
                  ("bits", "eps", "max", "min", "tiny", "smallest_normal", "resolution")] + [repr(torch.finfo(dt))],
        "sizes": [dt.itemsize, small.to(dt).element_size(), small.to(dt).itemsize, small.to(dt).nbytes,
                  dt.is_floating_point, dt.is_signed, str(dt), repr(dt)],
        "other_format": small.to(dt).to(getattr(torch, [n for n in {NAMES!r} if n != name][0])).view(torch.uint8).tolist(),
    }}
    save_file({{"a": small.to(dt), "b": small[:6].reshape(3, 2).to(dt)}}, {str(folder)!r} + "/" + name + ".safetensors")
print(json.dumps(out))
"""
    answers = run_torch_json(code, timeout=600)
    answers["folder"] = str(folder)
    return answers


SMALL = [0.0, -0.0, 1.0, -2.5, 0.3, 448.0, 1000.0, float("nan"), float("-inf"), 3e-3, 1e-6]


def _codes(t):
    return t.view(torch.uint8).tolist()


@pytest.mark.parametrize("name", NAMES)
@pytest.mark.parametrize("source", ["", "_f64", "_f16", "_bf16"])
def test_conversion_to_float8_gives_torch_bytes(values, oracle, name, source):
    theirs = np.load(os.path.join(oracle["folder"], name + source + ".npy"))
    x = torch.from_numpy(values)
    if source in ("_f16", "_bf16"):  # torch's own float16/bfloat16 bits (its bfloat16 NaNs are 0xFFFF)
        bits = torch.from_numpy(np.load(os.path.join(oracle["folder"], "source" + source + ".npy")))
        x = bits.view(torch.float16 if source == "_f16" else torch.bfloat16)
    elif source == "_f64":
        x = x.double()
    ours = x.to(getattr(torch, name)).view(torch.uint8).numpy()
    mismatched = np.flatnonzero(ours != theirs)
    assert mismatched.size == 0, [(hex(values.view(np.uint32)[i]), ours[i], theirs[i]) for i in mismatched[:10]]


@pytest.mark.parametrize("name", NAMES)
def test_every_code_decodes_as_torch_decodes_it(oracle, name):
    ans = oracle[name]
    f8 = torch.arange(256, dtype=torch.uint8).view(getattr(torch, name))
    assert f8.float().view(torch.int32).tolist() == ans["decoded_bits"]
    assert f8.half().view(torch.int16).tolist() == ans["to_f16_bits"]
    assert f8.bfloat16().view(torch.int16).tolist() == ans["to_bf16_bits"]
    assert [repr(v) for v in f8.double().tolist()] == ans["to_f64"]


@pytest.mark.parametrize("name", NAMES)
def test_integers_creation_printing_and_queries_match_torch(oracle, name):
    ans, dt = oracle[name], getattr(torch, name)
    small = torch.tensor(SMALL)
    assert _codes(torch.tensor([0, 1, -3, 7, 300, 100000, -(2**40)]).to(dt)) == ans["from_ints"]
    assert _codes(torch.tensor([True, False]).to(dt)) == ans["from_bool"]
    assert small.to(dt)[2:7].to(torch.int64).tolist() == ans["to_int"]
    assert _codes(torch.tensor([1.0, 0.1, -7.3, 1e9, 2.0**-12], dtype=dt)) == ans["tensor"]
    assert _codes(torch.full((2, 2), 0.3, dtype=dt)) == ans["full"]
    assert _codes(torch.zeros_like(small.to(dt))) == ans["zeros_like"]
    assert _codes(torch.ones(3, dtype=dt)) == ans["ones"]
    assert [repr(v) for v in small.to(dt).tolist()] == ans["tolist"]
    assert repr(small.to(dt)[3].item()) == ans["item"]
    assert repr(small.to(dt)) == ans["repr"]
    assert repr(torch.tensor(SMALL[:6]).reshape(2, 3).to(dt)) == ans["repr_2d"]
    info = torch.finfo(dt)
    assert [repr(getattr(info, k)) for k in ("bits", "eps", "max", "min", "tiny", "smallest_normal",
                                             "resolution")] + [repr(info)] == ans["finfo"]
    f8 = small.to(dt)
    assert [dt.itemsize, f8.element_size(), f8.itemsize, f8.nbytes, dt.is_floating_point, dt.is_signed, str(dt),
            repr(dt)] == ans["sizes"]
    other = [n for n in NAMES if n != name][0]
    assert _codes(f8.to(getattr(torch, other))) == ans["other_format"]


@pytest.mark.parametrize("name", NAMES)
def test_views_joins_and_copies_keep_the_bytes(name):
    dt = getattr(torch, name)
    raw = torch.arange(24, dtype=torch.uint8) * 7
    f8 = raw.view(dt)
    assert f8.dtype == dt and f8.shape == (24,)
    # the same memory both ways, as torch's view
    assert f8.data_ptr() == raw.data_ptr()
    assert f8.view(torch.int16).tolist() == raw.view(torch.int16).tolist()
    assert raw.view(torch.int32).view(dt).view(torch.uint8).tolist() == raw.tolist()
    grid = f8.reshape(4, 6)
    assert _codes(grid.t().contiguous()) == raw.reshape(4, 6).t().contiguous().tolist()
    assert _codes(grid.t()[2:4].clone()) == raw.reshape(4, 6).t()[2:4].tolist()
    assert _codes(torch.cat([grid, grid[:1]])) == torch.cat([raw.reshape(4, 6), raw.reshape(4, 6)[:1]]).tolist()
    assert _codes(torch.stack([f8, f8], 1)) == torch.stack([raw, raw], 1).tolist()
    target = torch.zeros(4, 6, dtype=dt)
    target.copy_(grid)
    assert _codes(target) == raw.reshape(4, 6).tolist()
    values = torch.tensor([1.0, 0.3, -1e4])
    into = torch.zeros(3, dtype=dt)
    into.copy_(values)
    assert _codes(into) == _codes(values.to(dt))
    back = torch.zeros(3)
    back.copy_(into)
    assert back.tolist() == into.float().tolist()
    with pytest.raises(RuntimeError, match="must be divisible by 2"):
        torch.zeros(3, dtype=dt).view(torch.int16)


@pytest.mark.parametrize("name", NAMES)
def test_safetensors_files_cross_both_ways(oracle, name, tmp_path):
    # safetensors imports `torch`: under the shim that needs the import hook, so this side runs in a child
    source = tmp_path / "check.py"
    ours = tmp_path / "ours.safetensors"
    source.write_text(f"""
import json, mindnlp, torch
from math import inf, nan
from safetensors.torch import load, load_file, save_file
dt = getattr(torch, {name!r})
small = torch.tensor({SMALL!r})
theirs = load_file({os.path.join(oracle["folder"], name + ".safetensors")!r})
save_file({{"a": small.to(dt)}}, {str(ours)!r})
with open({str(ours)!r}, "rb") as f:
    again = load(f.read())["a"]
print(json.dumps([str(theirs["a"].dtype), list(theirs["b"].shape), theirs["a"].view(torch.uint8).tolist(),
                  theirs["b"].view(torch.uint8).tolist(), again.view(torch.uint8).tolist()]))
""")
    got = run_shim_json([str(source)])
    dt = getattr(torch, name)
    expected_a = _codes(torch.tensor(SMALL).to(dt))
    assert got == [f"torch.{name}", [3, 2], expected_a, _codes(torch.tensor(SMALL[:6]).reshape(3, 2).to(dt)),
                   expected_a]
    read = run_torch_json(f"""
import json, torch
from safetensors.torch import load_file
t = load_file({str(ours)!r})["a"]
print(json.dumps([str(t.dtype), t.view(torch.uint8).tolist()]))
""")
    assert read == [f"torch.{name}", expected_a]


@pytest.mark.parametrize("name", NAMES)
@pytest.mark.parametrize("op, call", [
    ("torch.add", lambda x: x + 1), ("torch.mul", lambda x: x * x), ("torch.sum", lambda x: x.sum()),
    ("torch.matmul", lambda x: x @ x), ("torch.eq", lambda x: x == x), ("torch.abs", lambda x: x.abs()),
    ("__setitem__", lambda x: x.__setitem__(0, 1.0)), ("fill_", lambda x: x.fill_(2.0)),
    ("numpy", lambda x: x.numpy()), ("torch.cat", lambda x: torch.cat([x, x.float()])),
])
def test_ops_without_float8_kernels_raise_naming_the_op(name, op, call):
    x = torch.tensor([1.0, 2.0]).to(getattr(torch, name))
    with pytest.raises(NotImplementedError, match=op.replace(".", r"\.").replace("_", "_")):
        call(x)


def test_recorded_conversion_is_refused():
    x = torch.ones(2, requires_grad=True)
    with pytest.raises(NotImplementedError, match="Tensor.to"):
        x.to(torch.float8_e4m3fn)
    with torch.no_grad():
        assert x.to(torch.float8_e4m3fn).dtype == torch.float8_e4m3fn


def test_module_to_float8_and_back_keeps_no_grad_mode():
    m = torch.nn.Linear(3, 2)
    with torch.no_grad():
        m.to(torch.float8_e5m2)
        assert not torch.is_grad_enabled()
    assert m.weight.dtype == torch.float8_e5m2 and m.weight.requires_grad
    m.to(torch.float32)
    assert m.weight.dtype == torch.float32 and m(torch.ones(1, 3)).shape == (1, 2)
