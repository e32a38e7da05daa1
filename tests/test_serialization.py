"""torch.save / torch.load: round trips, interoperability with real PyTorch both ways, weights_only safety,
safe_globals, map_location and atomic writes."""
import collections
import io
import os
import pickle
import struct
import zipfile

os.environ.setdefault("GLOG_v", "3")

import mindspore  # noqa: E402
import numpy as np  # noqa: E402
import pytest  # noqa: E402

import mindnlp_shim.torch as torch  # noqa: E402
from mindnlp_shim.torch import _dtype, serialization  # noqa: E402
from mindnlp_shim.torch.nn.parameter import Parameter  # noqa: E402

from oracle import require_torch, run_torch_json  # noqa: E402

DTYPES = ["float32", "float16", "bfloat16", "float64", "int64", "int32", "int16", "int8", "uint8", "bool",
          "complex64", "uint16"]


def make_array(dtype_name, shape, seed=0):
    rng = np.random.default_rng(seed)
    np_dtype = _dtype.to_numpy_dtype(_dtype.TORCH_NAMES[dtype_name])
    if dtype_name == "bool":
        return rng.random(shape) > 0.5
    if dtype_name.startswith(("int", "uint")):
        info = np.iinfo(np_dtype)
        return rng.integers(max(info.min, -1000), min(info.max, 1000), size=shape, endpoint=True).astype(np_dtype)
    if dtype_name.startswith("complex"):
        return (rng.standard_normal(shape) + 1j * rng.standard_normal(shape)).astype(np_dtype)
    values = rng.standard_normal(shape).astype(np.float32)
    if values.size >= 3:  # special values must survive bit for bit
        values.reshape(-1)[:3] = [-0.0, np.inf, -np.inf]
    return values.astype(np_dtype)


def make_tensor(dtype_name, shape, seed=0):
    return mindspore.Tensor.from_numpy(np.ascontiguousarray(make_array(dtype_name, shape, seed)))


def host_bytes(tensor):
    return np.ascontiguousarray(tensor.asnumpy()).tobytes()


def assert_same_tensor(actual, expected):
    assert isinstance(actual, mindspore.Tensor)
    assert actual.dtype == expected.dtype
    assert tuple(actual.shape) == tuple(expected.shape)
    assert host_bytes(actual) == host_bytes(expected)


# --- our save -> our load -----------------------------------------------------------------------------------

@pytest.mark.parametrize("dtype_name", DTYPES)
def test_round_trip_every_dtype(tmp_path, dtype_name):
    tensor = make_tensor(dtype_name, (3, 5))
    serialization.save(tensor, tmp_path / "t.pt")
    assert_same_tensor(serialization.load(tmp_path / "t.pt"), tensor)


@pytest.mark.parametrize("shape", [(), (0,), (0, 3), (1,), (2, 3, 4)])
def test_round_trip_shapes(tmp_path, shape):
    tensor = make_tensor("float32", shape)
    serialization.save({"t": tensor}, tmp_path / "t.pt")
    assert_same_tensor(serialization.load(tmp_path / "t.pt")["t"], tensor)


def test_round_trip_non_contiguous_views(tmp_path):
    base = torch.arange(24, dtype=torch.float32).reshape(4, 6)
    views = {"t": base.T, "cols": base[:, ::2], "block": base[1:3, 2:5], "expanded": base[0].expand(3, 6)}
    assert not base.T.is_contiguous()
    serialization.save(views, tmp_path / "v.pt")
    loaded = serialization.load(tmp_path / "v.pt")
    expected = np.arange(24, dtype=np.float32).reshape(4, 6)
    np.testing.assert_array_equal(loaded["t"].asnumpy(), expected.T)
    np.testing.assert_array_equal(loaded["cols"].asnumpy(), expected[:, ::2])
    np.testing.assert_array_equal(loaded["block"].asnumpy(), expected[1:3, 2:5])
    np.testing.assert_array_equal(loaded["expanded"].asnumpy(), np.broadcast_to(expected[0], (3, 6)))


def test_round_trip_nested_containers(tmp_path):
    a = make_tensor("float32", (2, 2))
    obj = {
        "list": [1, 2.5, "s", None, True, (a, [a])],
        "tuple": (None, -3, 1e-300, "ü"),
        "ordered": collections.OrderedDict([("z", 1), ("a", make_tensor("int64", (3,)))]),
        "nested": {"deep": {"deeper": [{"x": make_tensor("bfloat16", (4,))}]}},
        "set": {1, 2, 3},
        "bytes": b"\x00\xff",
        "complex": 1 + 2j,
        "numpy_scalars": [np.float32(1.5), np.int64(7)],
        "dtype": torch.float16,
        "device": torch.device("cpu"),
        "size": torch.Size([2, 3]),
    }
    serialization.save(obj, tmp_path / "n.pt")
    loaded = serialization.load(tmp_path / "n.pt", weights_only=False)  # numpy scalars need weights_only=False
    assert loaded["list"][:5] == [1, 2.5, "s", None, True]
    assert_same_tensor(loaded["list"][5][0], a)
    assert loaded["list"][5][1][0] is loaded["list"][5][0]  # one object saved twice comes back as one object
    assert loaded["tuple"] == (None, -3, 1e-300, "ü")
    assert isinstance(loaded["ordered"], collections.OrderedDict) and list(loaded["ordered"]) == ["z", "a"]
    assert_same_tensor(loaded["ordered"]["a"], obj["ordered"]["a"])
    assert_same_tensor(loaded["nested"]["deep"]["deeper"][0]["x"], obj["nested"]["deep"]["deeper"][0]["x"])
    assert loaded["set"] == {1, 2, 3} and loaded["bytes"] == b"\x00\xff" and loaded["complex"] == 1 + 2j
    assert loaded["numpy_scalars"] == [np.float32(1.5), np.int64(7)]
    assert type(loaded["numpy_scalars"][0]) is np.float32
    assert loaded["dtype"] is torch.float16
    assert loaded["device"] == torch.device("cpu")
    assert loaded["size"] == (2, 3) and isinstance(loaded["size"], torch.Size)


def test_weights_only_loads_torch_objects_without_numpy(tmp_path):
    obj = {"dtype": torch.bfloat16, "device": torch.device("cpu"), "size": torch.Size([4]), "set": {1},
           "od": collections.OrderedDict(a=1), "bytes": b"", "bytes2": b"ab", "complex": 2j}
    serialization.save(obj, tmp_path / "w.pt")
    loaded = serialization.load(tmp_path / "w.pt")  # weights_only=True by default
    assert loaded == obj


def test_parameters_stay_parameters(tmp_path):
    weight = Parameter(make_tensor("float32", (3, 2)))
    frozen = Parameter(make_tensor("float32", (2,)), requires_grad=False)
    grad_tensor = make_tensor("float32", (2,))
    grad_tensor._requires_grad = True
    serialization.save({"weight": weight, "frozen": frozen, "plain": grad_tensor,
                        "int": make_tensor("int64", (2,))}, tmp_path / "p.pt")
    loaded = serialization.load(tmp_path / "p.pt")
    assert isinstance(loaded["weight"], Parameter) and loaded["weight"].requires_grad
    assert isinstance(loaded["frozen"], Parameter) and not loaded["frozen"].requires_grad
    assert not isinstance(loaded["plain"], Parameter) and loaded["plain"].requires_grad
    assert not loaded["int"].requires_grad
    assert_same_tensor(loaded["weight"], weight)
    assert_same_tensor(loaded["frozen"], frozen)


def test_one_tensor_saved_twice_loads_as_one_object(tmp_path):
    tensor = make_tensor("float32", (4,))
    serialization.save({"a": tensor, "b": [tensor]}, tmp_path / "s.pt")
    loaded = serialization.load(tmp_path / "s.pt")
    assert loaded["a"] is loaded["b"][0]
    assert_same_tensor(loaded["a"], tensor)


def test_file_objects_and_protocols(tmp_path):
    tensor = make_tensor("float16", (2, 3))
    for protocol in (2, 4, pickle.HIGHEST_PROTOCOL):
        buffer = io.BytesIO()
        serialization.save({"t": tensor, "d": torch.int8}, buffer, pickle_protocol=protocol)
        buffer.seek(0)
        loaded = serialization.load(buffer)
        assert_same_tensor(loaded["t"], tensor)
        assert loaded["d"] is torch.int8
    with open(tmp_path / "f.pt", "wb") as f:
        serialization.save([tensor], f)
    with open(tmp_path / "f.pt", "rb") as f:
        assert_same_tensor(serialization.load(f)[0], tensor)


def test_map_location_forms_are_accepted(tmp_path):
    tensor = make_tensor("float32", (3,))
    serialization.save({"t": tensor}, tmp_path / "m.pt")
    seen = []

    def remember(storage, location):
        seen.append((location, storage.dtype, storage.size()))
        return storage

    for map_location in (None, "cpu", torch.device("cpu"), {"cuda:0": "cpu"}, lambda s, loc: None, remember):
        assert_same_tensor(serialization.load(tmp_path / "m.pt", map_location=map_location)["t"], tensor)
    assert seen == [("cpu", torch.float32, 3)]
    assert_same_tensor(serialization.load(str(tmp_path / "m.pt"), mmap=True)["t"], tensor)
    with pytest.raises(ValueError, match="file path"):
        serialization.load(io.BytesIO(b""), mmap=True)


def test_unsupported_options_raise_clearly(tmp_path):
    # uint16/32/64 have no typed storage class, which the legacy format names (torch cannot load them from it)
    with pytest.raises(NotImplementedError, match="legacy format"):
        serialization.save({"u": make_tensor("uint16", (2,))}, tmp_path / "x.pt", _use_new_zipfile_serialization=False)
    assert not os.path.exists(tmp_path / "x.pt")
    serialization.save({}, tmp_path / "x.pt")
    with pytest.raises(RuntimeError, match="pickle_module"):
        serialization.load(tmp_path / "x.pt", pickle_module=pickle, weights_only=True)
    assert serialization.load(tmp_path / "x.pt", pickle_module=pickle) == {}  # implies weights_only=False


def test_archive_layout_matches_torch(tmp_path):
    """Records sit in a folder named after the file, and storage bytes start 64-byte aligned (for mmap)."""
    tensors = {str(i): make_tensor("float32", (i + 1, 3)) for i in range(5)}
    serialization.save(tensors, tmp_path / "pytorch_model.bin")
    raw = (tmp_path / "pytorch_model.bin").read_bytes()
    with zipfile.ZipFile(tmp_path / "pytorch_model.bin") as zf:
        infos = zf.infolist()
    names = [info.filename for info in infos]
    assert {"pytorch_model/data.pkl", "pytorch_model/byteorder", "pytorch_model/version"} <= set(names)
    storages = [info for info in infos if info.filename.startswith("pytorch_model/data/")]
    assert len(storages) == 5 and all(info.compress_type == zipfile.ZIP_STORED for info in storages)
    for info in storages:
        name_len, extra_len = struct.unpack("<HH", raw[info.header_offset + 26:info.header_offset + 30])
        data_start = info.header_offset + 30 + name_len + extra_len
        assert data_start % 64 == 0
        key = info.filename.rsplit("/", 1)[1]
        assert raw[data_start:data_start + info.file_size] in {host_bytes(t) for t in tensors.values()}, key


# --- atomic writes ------------------------------------------------------------------------------------------

def test_failed_save_leaves_existing_file_untouched(tmp_path):
    path = tmp_path / "ckpt.pt"
    good = make_tensor("float32", (5,))
    serialization.save({"good": good}, path)
    before = path.read_bytes()
    with pytest.raises((pickle.PicklingError, AttributeError, TypeError)):
        serialization.save({"t": make_tensor("float32", (5,)), "bad": lambda: None}, path)
    assert path.read_bytes() == before
    assert sorted(os.listdir(tmp_path)) == ["ckpt.pt"]  # no temporary file left behind
    assert_same_tensor(serialization.load(path)["good"], good)


def test_failure_while_writing_leaves_existing_file_untouched(tmp_path, monkeypatch):
    from mindnlp_shim.torch._serialization import writer

    path = tmp_path / "ckpt.pt"
    serialization.save({"v": 1}, path)
    before = path.read_bytes()

    def fail_midway(*args, **kwargs):
        raise OSError("disk full")

    monkeypatch.setattr(writer, "write_archive", fail_midway)
    with pytest.raises(OSError, match="disk full"):
        serialization.save({"v": 2}, path)
    assert path.read_bytes() == before
    assert sorted(os.listdir(tmp_path)) == ["ckpt.pt"]


# --- weights_only safety and safe_globals -------------------------------------------------------------------

class Point:
    """A user class: loadable with weights_only=True only when allow-listed."""

    def __init__(self, x, y):
        self.x, self.y = x, y

    def __eq__(self, other):
        return isinstance(other, Point) and (self.x, self.y) == (other.x, other.y)


class RunsCommand:
    def __init__(self, marker):
        self.marker = marker

    def __reduce__(self):
        return (os.system, (f"touch {self.marker}",))


class CallsEval:
    def __reduce__(self):
        return (eval, ("1 + 1",))


def test_weights_only_refuses_os_system(tmp_path):
    marker = tmp_path / "pwned"
    serialization.save({"payload": RunsCommand(marker)}, tmp_path / "evil.pt")
    with pytest.raises(pickle.UnpicklingError) as info:
        serialization.load(tmp_path / "evil.pt")
    message = str(info.value)
    assert "system" in message and "blocked" in message
    assert "torch.serialization.add_safe_globals" in message
    assert not marker.exists()
    with pytest.raises(pickle.UnpicklingError):  # blocked modules stay blocked even when allow-listed
        with serialization.safe_globals([os.system]):
            serialization.load(tmp_path / "evil.pt")
    assert not marker.exists()


def test_weights_only_refuses_unknown_global_and_names_it(tmp_path):
    serialization.save([CallsEval()], tmp_path / "eval.pt")
    with pytest.raises(pickle.UnpicklingError, match=r"GLOBAL builtins\.eval was not an allowed global") as info:
        serialization.load(tmp_path / "eval.pt")
    assert "add_safe_globals([eval])" in str(info.value)
    assert "safe_globals([eval])" in str(info.value)
    assert serialization.load(tmp_path / "eval.pt", weights_only=False) == [2]


def test_safe_globals_context_manager_allows_a_custom_class(tmp_path):
    serialization.save({"p": Point(1, make_tensor("float32", (2,)))}, tmp_path / "pt.pt")
    with pytest.raises(pickle.UnpicklingError, match="Point"):
        serialization.load(tmp_path / "pt.pt")
    with serialization.safe_globals([Point]):
        assert Point in serialization.get_safe_globals()
        loaded = serialization.load(tmp_path / "pt.pt")
    assert isinstance(loaded["p"], Point) and loaded["p"].x == 1
    assert_same_tensor(loaded["p"].y, make_tensor("float32", (2,)))
    assert Point not in serialization.get_safe_globals()
    with pytest.raises(pickle.UnpicklingError):
        serialization.load(tmp_path / "pt.pt")


def test_add_get_clear_safe_globals(tmp_path):
    serialization.save(Point(3, 4), tmp_path / "pt.pt")
    serialization.clear_safe_globals()
    try:
        serialization.add_safe_globals([(Point, f"{__name__}.Point")])
        assert serialization.load(tmp_path / "pt.pt") == Point(3, 4)
        serialization.clear_safe_globals()
        assert serialization.get_safe_globals() == []
        serialization.add_safe_globals([Point])
        assert serialization.get_safe_globals() == [Point]
        assert serialization.load(tmp_path / "pt.pt") == Point(3, 4)
    finally:
        serialization.clear_safe_globals()
    with pytest.raises(pickle.UnpicklingError):
        serialization.load(tmp_path / "pt.pt")


def test_numpy_rng_state_with_transformers_allowlist(tmp_path):
    """transformers' Trainer saves numpy's RNG state in rng_state.pth and reloads it under safe_globals."""
    rng_state = {"python": (3, tuple(range(625)), None), "numpy": np.random.get_state(),
                 "cpu": torch.get_rng_state()}
    serialization.save(rng_state, tmp_path / "rng_state.pth")
    with pytest.raises(pickle.UnpicklingError, match="numpy"):
        serialization.load(tmp_path / "rng_state.pth", weights_only=True)
    allowlist = [np.core.multiarray._reconstruct, np.ndarray, np.dtype, type(np.dtype(np.uint32))]
    with serialization.safe_globals(allowlist):
        loaded = serialization.load(tmp_path / "rng_state.pth", weights_only=True)
    assert loaded["python"] == rng_state["python"]
    assert loaded["numpy"][0] == "MT19937"
    np.testing.assert_array_equal(loaded["numpy"][1], rng_state["numpy"][1])
    assert loaded["numpy"][2:] == rng_state["numpy"][2:]
    assert_same_tensor(loaded["cpu"], rng_state["cpu"])


# --- interoperability with real PyTorch ---------------------------------------------------------------------

_DESCRIBE_IN_TORCH = """
def describe(t):
    return {"dtype": str(t.dtype), "shape": list(t.shape), "param": isinstance(t, torch.nn.Parameter),
            "requires_grad": t.requires_grad,
            "hex": t.detach().contiguous().reshape(-1).view(torch.uint8).numpy().tobytes().hex()}
"""


def test_our_checkpoint_loads_in_real_torch(tmp_path):
    require_torch()
    tensors = {f"{name}_{i}": make_tensor(name, shape, seed=i)
               for name in DTYPES for i, shape in enumerate([(3, 4), (), (0, 2)])}
    base = torch.arange(12, dtype=torch.float32).reshape(3, 4)
    tensors["transposed"] = base.T
    tensors["strided"] = base[:, ::2]
    tensors["weight"] = Parameter(make_tensor("float32", (4, 2)))
    tensors["frozen"] = Parameter(make_tensor("bfloat16", (2,)), requires_grad=False)
    grad_tensor = make_tensor("float32", (2,))
    grad_tensor._requires_grad = True
    tensors["grad_tensor"] = grad_tensor
    extras = {"dtype": torch.bfloat16, "device": torch.device("cpu"), "size": torch.Size([1, 2]),
              "od": collections.OrderedDict(a=[1, 2.5, None, "x", (True,)]), "set": {1, 2}, "complex": 1 - 2j,
              "bytes": b"\x00ab", "bytearray": bytearray(b"xy"), "type": int, "function": len}
    full_pickle = {"type": extras.pop("type"), "function": extras.pop("function")}  # not allowed by weights_only
    serialization.save({"tensors": tensors, "extras": extras}, tmp_path / "ours.pt")
    serialization.save(full_pickle, tmp_path / "ours_full.pt")
    with open(tmp_path / "ours_fileobj.pt", "wb") as f:
        serialization.save(tensors["float32_0"], f, pickle_protocol=4)

    result = run_torch_json(_DESCRIBE_IN_TORCH + f"""
import collections, json, torch
ckpt = torch.load({str(tmp_path / "ours.pt")!r})  # the default: weights_only=True
mapped = torch.load({str(tmp_path / "ours.pt")!r}, map_location="cpu", mmap=True)
# torch's weights_only unpickler does not read protocol 4 (not even from torch's own files)
single = torch.load({str(tmp_path / "ours_fileobj.pt")!r}, weights_only=False)
ex = ckpt["extras"]
ex_full = torch.load({str(tmp_path / "ours_full.pt")!r}, weights_only=False)
print(json.dumps({{
    "tensors": {{k: describe(v) for k, v in ckpt["tensors"].items()}},
    "mmap_equal": all(torch.equal(mapped["tensors"][k], v) for k, v in ckpt["tensors"].items()),
    "single": describe(single),
    "extras": [ex["dtype"] is torch.bfloat16, ex["device"] == torch.device("cpu"),
               type(ex["size"]) is torch.Size and ex["size"] == (1, 2),
               type(ex["od"]) is collections.OrderedDict and ex["od"] == {{"a": [1, 2.5, None, "x", (True,)]}},
               ex["set"] == {{1, 2}}, ex["complex"] == 1 - 2j, ex["bytes"] == b"\\x00ab",
               ex["bytearray"] == bytearray(b"xy")],
    "full_pickle": [ex_full["type"] is int, ex_full["function"] is len],
}}))
""")
    assert result["mmap_equal"] and all(result["extras"]) and all(result["full_pickle"]), result
    described = result["tensors"]
    assert sorted(described) == sorted(tensors)
    for key, tensor in tensors.items():
        got = described[key]
        assert got["dtype"] == repr(tensor.dtype), key
        assert got["shape"] == list(tensor.shape), key
        assert got["hex"] == host_bytes(tensor).hex(), key
        assert got["param"] == isinstance(tensor, Parameter), key
    assert described["weight"]["requires_grad"] and not described["frozen"]["requires_grad"]
    assert described["grad_tensor"]["requires_grad"] and not described["float32_0"]["requires_grad"]
    assert result["single"]["hex"] == host_bytes(tensors["float32_0"]).hex()


LEGACY_DTYPES = [name for name in DTYPES if name != "uint16"]


@pytest.mark.parametrize("protocol", [2, 4])
def test_legacy_format_round_trip(tmp_path, protocol):
    """`_use_new_zipfile_serialization=False` writes PyTorch's pre-1.6 format: pickled headers, the object,
    the storage keys, then each storage's element count and bytes; it loads back here."""
    tensors = {name: make_tensor(name, (3, 2), seed=i) for i, name in enumerate(LEGACY_DTYPES)}
    tensors["scalar"], tensors["empty"] = make_tensor("float32", ()), make_tensor("int64", (0, 4))
    tensors["weight"] = Parameter(make_tensor("float32", (2, 2)))
    obj = {"tensors": tensors, "meta": collections.OrderedDict(step=3, names=["a"]), "dtype": torch.bfloat16}
    buffer = io.BytesIO()
    serialization.save(obj, buffer, pickle_protocol=protocol, _use_new_zipfile_serialization=False)
    raw = buffer.getvalue()
    assert not raw.startswith(b"PK")  # not a zip archive
    header = io.BytesIO(raw)
    assert [pickle.load(header) for _ in range(2)] == [0x1950A86A20F9469CFC6C, 1001]
    buffer.seek(0)
    loaded = serialization.load(buffer, weights_only=protocol == 2)
    for key, tensor in tensors.items():
        assert_same_tensor(loaded["tensors"][key], tensor)
    assert isinstance(loaded["tensors"]["weight"], Parameter)
    assert loaded["meta"] == obj["meta"] and loaded["dtype"] is torch.bfloat16


def test_legacy_format_written_here_loads_in_real_torch(tmp_path):
    require_torch()
    tensors = {f"{name}_{i}": make_tensor(name, shape, seed=i)
               for name in LEGACY_DTYPES for i, shape in enumerate([(3, 4), (), (0, 2)])}
    tensors["transposed"] = torch.arange(12, dtype=torch.float32).reshape(3, 4).T
    tensors["weight"] = Parameter(make_tensor("float32", (4, 2)))
    serialization.save({"tensors": tensors, "size": torch.Size([1, 2])}, tmp_path / "legacy.pt",
                       _use_new_zipfile_serialization=False)
    result = run_torch_json(_DESCRIBE_IN_TORCH + f"""
import json, torch
ckpt = torch.load({str(tmp_path / "legacy.pt")!r})  # the default: weights_only=True
print(json.dumps({{"tensors": {{k: describe(v) for k, v in ckpt["tensors"].items()}},
                  "size": type(ckpt["size"]) is torch.Size and ckpt["size"] == (1, 2)}}))
""")
    assert result["size"]
    assert sorted(result["tensors"]) == sorted(tensors)
    for key, tensor in tensors.items():
        got = result["tensors"][key]
        assert got["dtype"] == repr(tensor.dtype) and got["shape"] == list(tensor.shape), key
        assert got["hex"] == host_bytes(tensor).hex(), key
        assert got["param"] == isinstance(tensor, Parameter), key


@pytest.fixture(scope="module")
def torch_written(tmp_path_factory):
    """Checkpoints written by real PyTorch, and a description of every tensor in them."""
    require_torch()
    folder = tmp_path_factory.mktemp("torch_written")
    expected = run_torch_json(_DESCRIBE_IN_TORCH + f"""
import collections, json, torch
folder = {str(folder)!r}
torch.manual_seed(0)
dtypes = [torch.float32, torch.float16, torch.bfloat16, torch.float64, torch.int64, torch.int32, torch.int16,
          torch.int8, torch.uint8, torch.bool, torch.complex64, torch.uint16]
tensors = {{}}
for dt in dtypes:
    base = torch.randn(3, 4) * 50
    tensors[str(dt)] = base.to(dt)
    tensors[str(dt) + "_0d"] = base[0, 0].to(dt)
    tensors[str(dt) + "_empty"] = torch.zeros(0, 3, dtype=dt)
shared = torch.arange(20, dtype=torch.float32).reshape(4, 5)
tensors["shared_whole"] = shared
tensors["shared_row"] = shared[2]           # a view: same storage, offset 10
tensors["shared_t"] = shared.t()            # non-contiguous stride
tensors["shared_cols"] = shared[:, 1::2]
tensors["expanded"] = torch.arange(3.).expand(4, 3)  # stride 0
tensors["needs_grad"] = torch.ones(2, requires_grad=True)
linear = torch.nn.Linear(4, 3)
opt = torch.optim.AdamW(linear.parameters(), lr=1e-3)
linear(torch.randn(5, 4)).sum().backward()
opt.step()
ckpt = {{"tensors": tensors, "linear": linear.state_dict(), "optimizer": opt.state_dict(),
        "param": torch.nn.Parameter(torch.randn(2, 2)), "dtype": torch.float16, "device": torch.device("cpu"),
        "size": torch.Size([3, 4]), "meta": {{"epoch": 3, "loss": 0.25, "names": ["a", "b"], "none": None}}}}
torch.save(ckpt, folder + "/torch.pt")
torch.save(ckpt, folder + "/legacy.pt", _use_new_zipfile_serialization=False)
torch.save(linear.state_dict(), folder + "/pytorch_model.bin")
desc = {{
    "tensors": {{k: describe(v) for k, v in tensors.items()}},
    "linear": {{k: describe(v) for k, v in linear.state_dict().items()}},
    "optimizer_state": {{str(i): {{k: describe(v) for k, v in s.items()}}
                        for i, s in opt.state_dict()["state"].items()}},
    "param_groups": opt.state_dict()["param_groups"],
    "param": describe(ckpt["param"]),
}}
print(json.dumps(desc))
""")
    return folder, expected


def _assert_described(tensor, description, key):
    assert isinstance(tensor, mindspore.Tensor), key
    assert repr(tensor.dtype) == description["dtype"], key
    assert list(tensor.shape) == description["shape"], key
    assert host_bytes(tensor).hex() == description["hex"], key
    assert isinstance(tensor, Parameter) == description["param"], key
    assert bool(tensor.requires_grad) == description["requires_grad"], key


@pytest.mark.parametrize("file_name", ["torch.pt", "legacy.pt"])
def test_real_torch_checkpoint_loads_here(torch_written, file_name):
    folder, expected = torch_written
    ckpt = serialization.load(os.path.join(folder, file_name), map_location="cpu")
    for key, description in expected["tensors"].items():
        _assert_described(ckpt["tensors"][key], description, key)
    for key, description in expected["linear"].items():
        _assert_described(ckpt["linear"][key], description, key)
    assert isinstance(ckpt["linear"], collections.OrderedDict)
    state = ckpt["optimizer"]["state"]
    assert sorted(state) == [0, 1]
    for index, tensors in expected["optimizer_state"].items():
        for key, description in tensors.items():
            _assert_described(state[int(index)][key], description, f"state[{index}][{key}]")
    groups = ckpt["optimizer"]["param_groups"]
    assert [{k: list(v) if isinstance(v, tuple) else v for k, v in g.items()} for g in groups] == \
        expected["param_groups"]
    assert isinstance(groups[0]["betas"], tuple)
    _assert_described(ckpt["param"], expected["param"], "param")
    assert ckpt["dtype"] is torch.float16
    assert ckpt["device"] == torch.device("cpu")
    assert isinstance(ckpt["size"], torch.Size) and ckpt["size"] == (3, 4)
    assert ckpt["meta"] == {"epoch": 3, "loss": 0.25, "names": ["a", "b"], "none": None}
    # views that shared one storage in torch share it again, with torch's strides and offsets: a write into
    # one is seen by the others (tests/test_load_sharing.py compares the geometry with real torch)
    whole, row = ckpt["tensors"]["shared_whole"], ckpt["tensors"]["shared_row"]
    assert (row.storage_offset(), tuple(ckpt["tensors"]["shared_t"].stride())) == (10, (1, 5))
    whole[2, 0] = -1.0
    assert float(row[0]) == -1.0 and float(ckpt["tensors"]["shared_t"][0, 2]) == -1.0


def test_real_torch_state_dict_loads_into_linear_shapes(torch_written):
    folder, expected = torch_written
    state_dict = serialization.load(os.path.join(folder, "pytorch_model.bin"), map_location="cpu", mmap=True,
                                    weights_only=True)
    assert list(state_dict) == ["weight", "bias"]
    assert tuple(state_dict["weight"].shape) == (3, 4) and tuple(state_dict["bias"].shape) == (3,)
    for key, description in expected["linear"].items():
        _assert_described(state_dict[key], description, key)


def test_resave_of_a_real_torch_checkpoint_loads_in_real_torch(torch_written, tmp_path):
    """A checkpoint loaded here and saved again is identical in real torch's eyes."""
    folder, expected = torch_written
    ckpt = serialization.load(os.path.join(folder, "torch.pt"))
    serialization.save(ckpt, tmp_path / "resaved.pt")
    result = run_torch_json(_DESCRIBE_IN_TORCH + f"""
import json, torch
ckpt = torch.load({str(tmp_path / "resaved.pt")!r})
print(json.dumps({{"tensors": {{k: describe(v) for k, v in ckpt["tensors"].items()}},
                  "param_groups": ckpt["optimizer"]["param_groups"]}}))
""")
    assert result == {"tensors": expected["tensors"], "param_groups": expected["param_groups"]}


def test_not_a_checkpoint_raises(tmp_path):
    path = tmp_path / "junk.bin"
    path.write_bytes(pickle.dumps(12345))
    with pytest.raises(RuntimeError, match="magic number"):
        serialization.load(path)
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as zf:
        zf.writestr("something/else.txt", "hi")
    buffer.seek(0)
    with pytest.raises(RuntimeError, match="something/version is missing"):  # torch reads the version first
        serialization.load(buffer)
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as zf:
        zf.writestr("something/version", "3\n")
    buffer.seek(0)
    with pytest.raises(RuntimeError, match="something/data.pkl is missing"):
        serialization.load(buffer)


# what this module compares with real torch (read by tests/api_census.py)
API_CENSUS = {
    "torch.save": ["test_our_checkpoint_loads_in_real_torch", "test_archive_layout_matches_torch"],
    "torch.load": "test_real_torch_checkpoint_loads_here",
}
