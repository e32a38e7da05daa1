"""The zip reader of torch.load against real torch on chosen archives: what torch's reader (miniz) accepts,
the shim accepts with the same contents; what it refuses, the shim refuses, naming the file. The seeded
mutants of tests/test_load_mutants.py cover the same ground at random; these are the cases by name."""
import io
import zipfile

import pytest

import mindnlp_shim.torch as mt
from conftest import SUBPROCESS_FLAG, real_torch, subprocess_fallback
from mindnlp_shim.torch import serialization

rt = real_torch()
if rt is None:
    globals()[SUBPROCESS_FLAG] = True
    test_whole_module_in_subprocess = subprocess_fallback(__file__)


@pytest.fixture(scope="module")
def records():
    """The records of a checkpoint real torch wrote, in its order."""
    buffer = io.BytesIO()
    rt.save({"w": rt.arange(6.0).reshape(2, 3), "n": rt.tensor([1, 2], dtype=rt.int16)}, buffer)
    with zipfile.ZipFile(buffer) as zf:
        return [(info.filename, zf.read(info)) for info in zf.infolist()]


def _archive(path, records, compression=zipfile.ZIP_STORED, rename=None, replace=None):
    with zipfile.ZipFile(path, "w", compression) as zf:
        for name, payload in records:
            short = name.split("/", 1)[1]
            zf.writestr((rename or {}).get(short, name), (replace or {}).get(short, payload))
    return str(path)


def _outcome(load, path):
    try:
        value = load(path)
    except Exception as exc:  # noqa: BLE001  (raising is the outcome compared)
        return ("error", " ".join([str(exc), *getattr(exc, "__notes__", [])]))
    return ("loaded", {k: (tuple(v.shape), v.tolist()) for k, v in value.items()})


def _same(path):
    mine, theirs = _outcome(serialization.load, path), _outcome(rt.load, path)
    assert mine[0] == theirs[0], (mine, theirs)
    if mine[0] == "loaded":
        assert mine == theirs
    else:
        assert path in mine[1]
    return mine[0]


def test_deflated_records_load(tmp_path, records):
    assert _same(_archive(tmp_path / "deflated.pt", records, zipfile.ZIP_DEFLATED)) == "loaded"


@pytest.mark.parametrize("short", ["data.pkl", "data/0", "version", "byteorder"])
def test_record_names_are_found_without_case(tmp_path, records, short):
    folder = records[0][0].split("/")[0]
    path = _archive(tmp_path / "upper.pt", records, rename={short: f"{folder}/{short.upper()}"})
    assert _same(path) == "loaded"


@pytest.mark.parametrize("value, loads", [(b"3\n", True), (b"  3", True), (b"+3", True), (b"3abc", True),
                                          (b"10", True), (b"1", True), (b"11", False), (b"0", False),
                                          (b"0x3", False), (b"-1", False), (b"", False), (b"abc", False),
                                          (b"18446744073709551615", False)])
def test_version_record_is_parsed_as_torch_parses_it(tmp_path, records, value, loads):
    path = _archive(tmp_path / "version.pt", records, replace={"version": value})
    assert _same(path) == ("loaded" if loads else "error")


@pytest.mark.parametrize("value", [b"big", b"bigx", b"little\n"])
def test_byteorder_record(tmp_path, records, value):
    _same(_archive(tmp_path / "byteorder.pt", records, replace={"byteorder": value}))


def test_bytes_in_front_of_the_archive_are_refused(tmp_path, records):
    """Python's zipfile reads past bytes in front of an archive; torch's reader does not."""
    path = tmp_path / "prefixed.pt"
    buffer = io.BytesIO()
    _archive(buffer, records)
    path.write_bytes(b"PK\x03\x04" + bytes(12) + buffer.getvalue())
    assert _same(str(path)) == "error"


@pytest.mark.filterwarnings("ignore:Duplicate name")
def test_two_records_of_one_name_are_refused(tmp_path, records):
    """torch reads one of them, by the order its index sorts them in; the shim names both."""
    doubled = records[:2] + [records[1]] + records[2:]
    path = _archive(tmp_path / "doubled.pt", doubled)
    assert _outcome(rt.load, path)[0] == "loaded"
    with pytest.raises(RuntimeError, match=rf"{path}.*2 records named"):
        serialization.load(path)


def test_location_tags_follow_torch(tmp_path, records):
    for tag in (b"cuda:0", b"bogus", b"xla:0"):
        replace = {"data.pkl": dict(records)[records[0][0]].replace(b"X\x03\x00\x00\x00cpu",
                                                                    b"X" + len(tag).to_bytes(4, "little") + tag)}
        path = _archive(tmp_path / f"tag-{tag.decode().replace(':', '')}.pt", records, replace=replace)
        assert _same(path) == "error"
        mine = serialization.load(path, map_location="cpu")
        theirs = rt.load(path, map_location="cpu")
        assert mine["w"].tolist() == theirs["w"].tolist() and mine["n"].dtype == mt.int16


@pytest.mark.parametrize("legacy", [False, True])
@pytest.mark.parametrize("map_location", ["meta", {"cpu": "meta"}])
def test_meta_map_location(tmp_path, legacy, map_location):
    """transformers reads a .bin checkpoint's dtype with map_location="meta": tensors on the meta device with
    torch's dtypes, shapes, strides and offsets (the shim's meta tensors hold memory; torch's do not)."""
    path = str(tmp_path / "meta.pt")
    base = rt.arange(12.0).reshape(3, 4)
    rt.save({"base": base, "row": base[1], "half": rt.ones(2, dtype=rt.float16)}, path,
            _use_new_zipfile_serialization=not legacy)
    mine, theirs = serialization.load(path, map_location=map_location), rt.load(path, map_location=map_location)
    for key, tensor in theirs.items():
        assert tensor.device.type == "meta" and mine[key].device.type == "meta", key
        assert (str(mine[key].dtype), tuple(mine[key].shape), tuple(mine[key].stride()),
                mine[key].storage_offset()) == (str(tensor.dtype), tuple(tensor.shape), tuple(tensor.stride()),
                                                tensor.storage_offset()), key
