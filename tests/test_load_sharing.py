"""torch.load keeps storages shared as torch does, and names the file in its errors.

Files written by real torch (zip and pre-1.6 formats) hold tensors that share a storage: tied weights, a view
saved with its base, a slice saved alone (whose storage is the whole base), an expanded tensor. Both load them;
every tensor must have torch's dtype, shape, strides, storage offset, values and storage size, the same tensors
must share a storage, and after the same in-place write in both every tensor must still read as in torch.
"""
import zipfile

import pytest

import mindnlp_shim.torch as mt
from conftest import SUBPROCESS_FLAG, real_torch, subprocess_fallback
from mindnlp_shim.torch import serialization

rt = real_torch()
if rt is None:
    globals()[SUBPROCESS_FLAG] = True
    test_whole_module_in_subprocess = subprocess_fallback(__file__)


def _torch_objects():
    rt.manual_seed(0)
    emb = rt.nn.Embedding(5, 3)
    head = rt.nn.Linear(3, 5, bias=False)
    head.weight = emb.weight
    model = rt.nn.ModuleDict({"emb": emb, "head": head})
    base = rt.randn(4, 6)
    big = rt.arange(40, dtype=rt.int64).reshape(8, 5)
    return {
        "tied": model.state_dict(),
        "views": {"base": base, "row": base[1], "t": base.t(), "cols": base[:, 1::2], "block": base[1:3, 2:5],
                  "scalar": base[2, 3]},
        "slice_alone": {"part": big[2:4], "column": big[:, 4]},
        "expanded": {"e": rt.arange(3.0).expand(4, 3), "half": rt.randn(6).half()[1::2]},
    }


def _describe(value, T, storages):
    """Tensors by dtype, shape, strides, offset, storage (numbered by first appearance) and size, and values."""
    if isinstance(value, T.Tensor):
        storage = value.untyped_storage()
        index = storages.setdefault(storage.data_ptr(), len(storages))
        values = value.tolist() if hasattr(value, "tolist") else None
        return (str(value.dtype).replace("torch.", ""), tuple(value.shape), tuple(value.stride()),
                value.storage_offset(), index, storage.nbytes(), repr(values))
    if isinstance(value, dict):
        return {k: _describe(v, T, storages) for k, v in value.items()}
    return repr(value)


def _load_both(path, weights_only):
    ours = serialization.load(path, weights_only=weights_only)
    theirs = rt.load(path, weights_only=weights_only)
    return ours, theirs


@pytest.fixture(scope="module")
def written(tmp_path_factory):
    folder = tmp_path_factory.mktemp("sharing")
    paths = {}
    for name, obj in _torch_objects().items():
        for legacy in (False, True):
            path = folder / f"{name}{'-legacy' if legacy else ''}.pt"
            rt.save(obj, path, _use_new_zipfile_serialization=not legacy)
            paths[path.stem] = str(path)
    return paths


@pytest.mark.parametrize("name", ["tied", "views", "slice_alone", "expanded"])
@pytest.mark.parametrize("legacy", [False, True])
@pytest.mark.parametrize("weights_only", [True, False])
def test_shared_storages_load_as_in_torch(written, name, legacy, weights_only):
    path = written[f"{name}{'-legacy' if legacy else ''}"]
    ours, theirs = _load_both(path, weights_only)
    assert _describe(ours, mt, {}) == _describe(theirs, rt, {})


def _write(objects, T):
    """The same in-place writes, in torch's and the shim's loaded objects."""
    objects["tied"]["emb.weight"][1, 2] = 7.0
    objects["views"]["base"][1, 3] = 100.0
    objects["views"]["row"][5] = -5.0
    objects["views"]["block"].mul_(2)
    objects["slice_alone"]["part"][1, 4] = -1
    objects["expanded"]["half"].add_(1)


@pytest.mark.parametrize("legacy", [False, True])
def test_writes_reach_every_tensor_of_the_storage(written, legacy):
    suffix = "-legacy" if legacy else ""
    ours = {name: serialization.load(written[name + suffix]) for name in ("tied", "views", "slice_alone", "expanded")}
    theirs = {name: rt.load(written[name + suffix]) for name in ("tied", "views", "slice_alone", "expanded")}
    with rt.no_grad():
        _write(theirs, rt)
    _write(ours, mt)
    assert _describe(ours, mt, {}) == _describe(theirs, rt, {})
    assert float(ours["tied"]["head.weight"][1, 2]) == 7.0  # the tied weight is the embedding's memory
    assert float(ours["views"]["t"][3, 1]) == 200.0 and float(ours["views"]["base"][1, 5]) == -5.0
    assert int(ours["slice_alone"]["column"][3]) == -1


def test_tied_weights_are_two_tensors_over_one_storage(written):
    loaded = serialization.load(written["tied"])
    emb, head = loaded["emb.weight"], loaded["head.weight"]
    assert emb is not head and emb.untyped_storage().data_ptr() == head.untyped_storage().data_ptr()
    head.zero_()
    assert float(emb.abs().sum()) == 0.0


# --- errors name the file ----------------------------------------------------------------------------------

@pytest.mark.parametrize("weights_only", [True, False])
def test_empty_file_names_the_file(tmp_path, weights_only):
    """A 0-byte file (an interrupted save): torch raises a bare EOFError ("Ran out of input"); the shim raises
    EOFError too, naming the file."""
    path = tmp_path / "checkpoint-3" / "optimizer.pt"
    path.parent.mkdir()
    path.write_bytes(b"")
    with pytest.raises(EOFError):
        rt.load(path, weights_only=weights_only)
    with pytest.raises(EOFError, match=r"checkpoint-3/optimizer\.pt is empty \(0 bytes\)"):
        serialization.load(path, weights_only=weights_only)
    with pytest.raises(EOFError, match=r"optimizer\.pt is empty"):
        with open(path, "rb") as f:
            serialization.load(f, weights_only=weights_only)


def test_legacy_count_raised_by_one_is_refused_without_allocating(written, tmp_path):
    """The element count before a legacy storage's bytes, raised by one or by 2^40: torch's 'wrong byte size'
    error, naming the file, and nothing allocated for the claimed count."""
    with open(written["views-legacy"], "rb") as f:
        data = f.read()
    position = len(data) - 4 * 24 - 8  # the file's one storage: its count, then 24 float32 values
    count = int.from_bytes(data[position:position + 8], "little")
    assert count == 24
    for new in (count + 1, count + 2 ** 40):
        path = tmp_path / f"count-{new}.pt"
        path.write_bytes(data[:position] + new.to_bytes(8, "little") + data[position + 8:])
        with pytest.raises(RuntimeError, match="wrong byte size"):
            rt.load(path)
        with pytest.raises(RuntimeError, match=rf"{path.name} is damaged: storage has wrong byte size"):
            serialization.load(path)


def test_errors_from_inside_the_pickle_name_the_file(tmp_path):
    """A uint8 tensor marked requires_grad: torch's error, with the file named in a note."""
    path = tmp_path / "marked.pt"
    rt.save({"mask": rt.tensor([1, 0], dtype=rt.uint8)}, path)
    with zipfile.ZipFile(path) as zf:
        records = [(info.filename, zf.read(info)) for info in zf.infolist()]
    with zipfile.ZipFile(path, "w") as zf:
        for name, payload in records:
            zf.writestr(name, payload.replace(b"\x89", b"\x88", 1) if name.endswith("data.pkl") else payload)
    with pytest.raises(RuntimeError, match="only Tensors of floating point"):
        rt.load(path)
    with pytest.raises(RuntimeError, match="only Tensors of floating point") as info:
        serialization.load(path)
    assert any(str(path) in note for note in info.value.__notes__)
