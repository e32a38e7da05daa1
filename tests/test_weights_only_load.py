"""torch.load(weights_only=True) against crafted files: what a checkpoint's pickle may do, compared with real
PyTorch on the same bytes.

The pickles are written opcode by opcode (`op_*`, `call`, `program`), packed into zip checkpoints like torch.save's, and loaded
in child processes (the shim's and real torch's), so a payload that gets through cannot poison this process:
each child reports what every file gave and whether the process state survived.
"""
import json
import os
import pickle
import struct
import zipfile

os.environ.setdefault("GLOG_v", "3")

import numpy as np  # noqa: E402
import pytest  # noqa: E402

from oracle import require_torch, run_torch_json  # noqa: E402
from shim_runner import REPO_ROOT, run_process  # noqa: E402

# --- writing pickles by hand --------------------------------------------------------------------------------


def op_global(module, name):
    return pickle.GLOBAL + f"{module}\n{name}\n".encode()


def op_str(text):
    data = text.encode()
    return pickle.BINUNICODE + struct.pack("<I", len(data)) + data


def op_int(value):
    return pickle.BININT1 + bytes([value])


def program(*parts):
    """A protocol 2 pickle (torch.save's) of the object the parts leave on the stack."""
    return pickle.PROTO + b"\x02" + b"".join(parts) + pickle.STOP


def call(func, *args):
    return func + pickle.MARK + b"".join(args) + pickle.TUPLE + pickle.REDUCE


FLOAT_VALUES = [1.5, -2.0, 0.25]
FLOAT_RECORD = np.array(FLOAT_VALUES, np.float32).tobytes()


def float_tensor(key="0"):
    """`_rebuild_tensor_v2` of the float32 storage record `key` (FLOAT_VALUES), as torch.save writes it."""
    storage = (pickle.MARK + op_str("storage") + op_global("torch", "FloatStorage") + op_str(key) + op_str("cpu")
               + op_int(3) + pickle.TUPLE + pickle.BINPERSID)
    return call(op_global("torch._utils", "_rebuild_tensor_v2"), storage, op_int(0), op_int(3) + pickle.TUPLE1,
                op_int(1) + pickle.TUPLE1, pickle.NEWFALSE, call(op_global("collections", "OrderedDict")))


def write_checkpoint(path, data_pkl, records=None):
    """A zip checkpoint in torch.save's layout around `data_pkl`; real torch reads it too."""
    with zipfile.ZipFile(path, "w", zipfile.ZIP_STORED) as zf:
        zf.writestr("archive/data.pkl", data_pkl)
        zf.writestr("archive/byteorder", "little")
        for key, data in (records or {"0": FLOAT_RECORD}).items():
            zf.writestr(f"archive/data/{key}", data)
        zf.writestr("archive/version", "3\n")
    return str(path)


def write_legacy_checkpoint(path, object_pkl):
    """torch's pre-1.6 format: three header pickles, the object pickle, the (empty) storage key list."""
    headers = [0x1950A86A20F9469CFC6C, 1001, {"protocol_version": 1001, "little_endian": True,
                                              "type_sizes": {"short": 2, "int": 4, "long": 4}}]
    with open(path, "wb") as f:
        for header in headers:
            pickle.dump(header, f, protocol=2)
        f.write(object_pkl)
        pickle.dump([], f, protocol=2)
    return str(path)


# --- loading in child processes -----------------------------------------------------------------------------

# Loads every file of PATHS with weights_only=True and describes the outcome; then checks that the process
# still loads a legitimate float32 checkpoint right and that torch.Size / torch.device still work.
_LOADER = """
import collections, json, sys
PATHS, LEGIT = {paths!r}, {legit!r}
{setup}

def describe(v):
    kind = type(v).__name__
    if isinstance(v, (bool, int, float, str, bytes, complex, bytearray, type(None))):
        return [kind, repr(v)]
    if is_tensor(v):  # with the Python attributes the legitimate files below give some tensors
        return ["tensor", *tensor_info(v), [describe(getattr(v, name, None)) for name in ("note", "tag")]]
    if isinstance(v, (list, tuple, set)) and kind in ("list", "tuple", "set", "Size"):
        items = [describe(x) for x in v]
        return [kind, sorted(items, key=json.dumps) if kind == "set" else items]
    if kind == "device":
        return [kind, str(v)]
    if isinstance(v, dict):
        items = sorted(([describe(k), describe(x)] for k, x in v.items()), key=json.dumps)
        attributes = sorted([name, describe(x)] for name, x in getattr(v, "__dict__", {{}}).items())
        return [kind, items, attributes]
    return ["other"]

results = {{}}
for path in PATHS:
    try:
        results[path] = {{"ok": True, "value": describe(load(path))}}
    except Exception as exc:
        results[path] = {{"ok": False, "error": type(exc).__name__, "message": str(exc)[:2000]}}
legit = load(LEGIT)
state = {{"legit": [str(legit.dtype), tensor_info(legit)[2]], "numel": Size((2, 3)).numel(),
          "device": str(device("cpu")), "probes": probes()}}
print(json.dumps({{"results": results, "state": state}}))
"""

_SHIM_SETUP = f"""
sys.path.insert(0, {REPO_ROOT!r})
import mindspore
from mindnlp_shim.torch import serialization
from mindnlp_shim.torch._serialization import names
from mindnlp_shim.torch._size import Size
from mindnlp_shim.torch._device import device
def load(path):
    return serialization.load(path, weights_only=True)
def is_tensor(v):
    return isinstance(v, mindspore.Tensor)
def tensor_info(t):
    import numpy as np
    from mindnlp_shim.torch.nn.parameter import Parameter
    array = t.asnumpy()
    values = [array.real.tolist(), array.imag.tolist()] if array.dtype.kind == "c" else \
        np.asarray(array, dtype=np.float64).tolist()
    return [repr(t.dtype), list(t.shape), values, bool(t.requires_grad), isinstance(t, Parameter)]
def probes():
    return sorted(name for name, obj in names.default_safe_globals().items() if hasattr(obj, "probe"))
"""

_TORCH_SETUP = """
import torch
from torch import Size, device
from torch._weights_only_unpickler import _get_allowed_globals
def load(path):
    return torch.load(path, weights_only=True)
def is_tensor(v):
    return isinstance(v, torch.Tensor)
def tensor_info(t):
    flags = [bool(t.requires_grad), isinstance(t, torch.nn.Parameter)]
    t = t.detach()
    values = [t.real.tolist(), t.imag.tolist()] if t.is_complex() else t.to(torch.float64).tolist()
    return [str(t.dtype), list(t.shape), values, *flags]
def probes():
    return sorted(name for name, obj in _get_allowed_globals().items() if hasattr(obj, "probe"))
"""


def _legit_file(folder):
    return write_checkpoint(os.path.join(folder, "legit.pt"), program(float_tensor()))


def load_in_shim(paths, folder):
    code = _LOADER.format(paths=list(paths), legit=_legit_file(folder), setup=_SHIM_SETUP)
    proc = run_process(["-c", code], timeout=600)
    return json.loads(proc.stdout.strip().splitlines()[-1])


def load_in_torch(paths, folder):
    code = _LOADER.format(paths=list(paths), legit=_legit_file(folder), setup=_TORCH_SETUP)
    return run_torch_json(code)


INTACT_STATE = {"legit": ["torch.float32", FLOAT_VALUES], "numel": 6, "device": "cpu", "probes": []}


# --- the attack: BUILD on shared objects --------------------------------------------------------------------

def _set_probe(key="dtype", value=op_global("torch", "int32")):
    """A (None, {key: value}) state: pickle's BUILD sets the slot-state items with setattr."""
    return pickle.NONE + pickle.EMPTY_DICT + op_str(key) + value + pickle.SETITEM + pickle.TUPLE2


ATTACKS = {
    # every float32 checkpoint would afterwards load as int32 bit patterns
    "FloatStorage_dict": op_global("torch", "FloatStorage") + pickle.EMPTY_DICT + op_str("dtype")
    + op_global("torch", "int32") + pickle.SETITEM + pickle.BUILD,
    "FloatStorage_slots": op_global("torch", "FloatStorage") + _set_probe() + pickle.BUILD,
    # torch.Size.numel replaced for the whole process
    "Size_class": op_global("torch", "Size") + _set_probe("numel", pickle.NONE) + pickle.BUILD,
    "device_class": op_global("torch", "device") + _set_probe("__str__", pickle.NONE) + pickle.BUILD,
    "dtype": op_global("torch", "float32") + _set_probe("probe", op_int(1)) + pickle.BUILD,
    # the storage class reached again through the memo
    "FloatStorage_memo": pickle.MARK + op_global("torch", "FloatStorage") + pickle.BINPUT + b"\x00" + pickle.TUPLE
    + pickle.BINGET + b"\x00" + _set_probe() + pickle.BUILD + pickle.TUPLE2,
    # a legitimate tensor first, then the storage class it used
    "tensor_then_storage": float_tensor() + op_global("torch", "FloatStorage") + _set_probe() + pickle.BUILD
    + pickle.TUPLE2,
    # the rebuild helpers must not hand a shared object their state either
    "device_tensor_helper": call(op_global("torch._utils", "_rebuild_device_tensor_from_cpu_tensor"),
                                 op_global("torch", "Size"), op_global("torch", "float32"), op_str("cpu"),
                                 pickle.NEWTRUE),
    "rebuild_from_type_device": call(op_global("torch._tensor", "_rebuild_from_type_v2"),
                                     op_global("torch", "device"), op_global("torch", "device"),
                                     op_str("cpu") + pickle.TUPLE1, pickle.EMPTY_DICT + op_str("probe")
                                     + op_int(1) + pickle.SETITEM),
}


def test_build_on_shared_objects_is_refused_and_leaves_the_process_intact(tmp_path):
    paths = {name: write_checkpoint(tmp_path / f"{name}.pt", program(payload)) for name, payload in ATTACKS.items()}
    paths["legacy_scan"] = write_legacy_checkpoint(tmp_path / "legacy.pt", program(ATTACKS["FloatStorage_dict"]))
    report = load_in_shim(paths.values(), tmp_path)
    for name, path in paths.items():
        outcome = report["results"][path]
        assert not outcome["ok"], (name, outcome)
        assert outcome["error"] == "UnpicklingError", (name, outcome)
        if "BUILD" in outcome["message"]:
            assert outcome["message"].startswith("Weights only load failed"), (name, outcome)
            assert "weights_only=False" in outcome["message"], (name, outcome)
        else:  # the rebuild helpers refuse what is not a tensor
            assert name in ("device_tensor_helper", "rebuild_from_type_device") and "tensor" in outcome["message"]
    message = report["results"][paths["FloatStorage_dict"]]["message"]
    assert "BUILD" in message and "torch.FloatStorage" in message
    assert report["state"] == INTACT_STATE


def test_build_on_the_storage_class_names_it_in_process(tmp_path):
    """The same refusal in this process, with the shared storage class checked afterwards."""
    from mindnlp_shim.torch import serialization
    from mindnlp_shim.torch._serialization import rebuild

    before = dict(vars(rebuild.STORAGE_TYPES["FloatStorage"]))
    path = write_checkpoint(tmp_path / "a.pt", program(ATTACKS["FloatStorage_dict"]))
    try:
        with pytest.raises(pickle.UnpicklingError, match=r"BUILD .* torch\.FloatStorage"):
            serialization.load(path)
    finally:
        after = dict(vars(rebuild.STORAGE_TYPES["FloatStorage"]))
        vars(rebuild.STORAGE_TYPES["FloatStorage"]).update(before)  # never poison the other tests
    assert after == before
    loaded = serialization.load(write_checkpoint(tmp_path / "ok.pt", program(float_tensor())))
    assert repr(loaded.dtype) == "torch.float32" and loaded.asnumpy().tolist() == FLOAT_VALUES


# --- opcode x target, compared with real torch --------------------------------------------------------------

_SIZE = call(op_global("torch", "Size"), op_int(2) + op_int(3) + pickle.TUPLE2)
TARGETS = {
    "FloatStorage": op_global("torch", "FloatStorage"),
    "Size_class": op_global("torch", "Size"),
    "device_class": op_global("torch", "device"),
    "dtype": op_global("torch", "float32"),
    "OrderedDict_class": op_global("collections", "OrderedDict"),
    "set_class": op_global("builtins", "set"),
    "rebuild_function": op_global("torch._utils", "_rebuild_tensor_v2"),
    "layout": call(op_global("torch.serialization", "_get_layout"), op_str("torch.strided")),
    "Size": _SIZE,
    "device": call(op_global("torch", "device"), op_str("cpu")),
    "dict": pickle.EMPTY_DICT,
    "list": pickle.EMPTY_LIST,
    "set": pickle.EMPTY_SET,
    "tuple": pickle.EMPTY_TUPLE,
    "OrderedDict": call(op_global("collections", "OrderedDict")),
    "Counter": call(op_global("collections", "Counter")),
    "bytearray": call(op_global("builtins", "bytearray")),
    "tensor": float_tensor(),
}
ACTIONS = {
    "nothing": b"",
    "BUILD_dict": pickle.EMPTY_DICT + op_str("probe") + op_int(1) + pickle.SETITEM + pickle.BUILD,
    "BUILD_slots": _set_probe("probe", op_int(1)) + pickle.BUILD,
    "SETITEM": op_str("probe") + op_int(1) + pickle.SETITEM,
    "SETITEMS": pickle.MARK + op_str("probe") + op_int(1) + op_str("k") + op_int(2) + pickle.SETITEMS,
    "APPEND": op_int(1) + pickle.APPEND,
    "APPENDS": pickle.MARK + op_int(1) + op_int(2) + pickle.APPENDS,
    "REDUCE": pickle.EMPTY_TUPLE + pickle.REDUCE,
    "NEWOBJ": pickle.EMPTY_TUPLE + pickle.NEWOBJ,
}


def _table_payloads():
    payloads = {}
    for target, push in TARGETS.items():
        for action, suffix in ACTIONS.items():
            payloads[f"{target}-{action}"] = program(push + suffix)
        # the same with the target fetched from the memo
        payloads[f"{target}-memo-BUILD_slots"] = program(
            pickle.MARK + push + pickle.BINPUT + b"\x07" + pickle.TUPLE + pickle.BINGET + b"\x07"
            + ACTIONS["BUILD_slots"] + pickle.TUPLE2)
    return payloads


def test_crafted_payload_table_matches_real_torch(tmp_path):
    require_torch()
    payloads = _table_payloads()
    paths = {name: write_checkpoint(tmp_path / f"{name}.pt", data) for name, data in payloads.items()}
    ours = load_in_shim(paths.values(), tmp_path)
    theirs = load_in_torch(paths.values(), tmp_path)
    assert ours["state"] == INTACT_STATE and theirs["state"] == INTACT_STATE
    disagreements = {}
    for name, path in paths.items():
        mine, torch_says = ours["results"][path], theirs["results"][path]
        if mine["ok"] != torch_says["ok"] or (mine["ok"] and mine["value"] != torch_says["value"]):
            disagreements[name] = (mine, torch_says)
    assert disagreements == {}
    accepted = sorted(name for name, path in paths.items() if ours["results"][path]["ok"])
    refused = sorted(name for name, path in paths.items() if not ours["results"][path]["ok"])
    assert len(accepted) > 20 and len(refused) > 60  # both sides of the contract are exercised


# --- opcodes outside torch's set ----------------------------------------------------------------------------

def _proto(n, *parts):
    return pickle.PROTO + bytes([n]) + b"".join(parts) + pickle.STOP


REFUSED_OPCODES = {
    # opcodes that call or look up something outside the checked path
    "INST": pickle.MARK + pickle.INST + b"collections\nOrderedDict\n",
    "OBJ": pickle.MARK + op_global("collections", "OrderedDict") + pickle.OBJ,
    "EXT1": pickle.EXT1 + b"\x01",
    "EXT2": pickle.EXT2 + b"\x01\x00",
    "EXT4": pickle.EXT4 + b"\x01\x00\x00\x00",
    "PERSID": pickle.PERSID + b"storage\n",
    "BINPERSID_module": pickle.MARK + op_str("module") + op_global("collections", "OrderedDict") + op_str("f.py")
    + op_str("src") + pickle.TUPLE + pickle.BINPERSID,
    # data opcodes of protocols 0/1 that torch's unpickler does not implement
    "INT": pickle.INT + b"1\n",
    "LONG": pickle.LONG + b"1L\n",
    "FLOAT": pickle.FLOAT + b"1.5\n",
    "STRING": pickle.STRING + b"'a'\n",
    "UNICODE": pickle.UNICODE + b"a\n",
    "BINSTRING": pickle.BINSTRING + struct.pack("<i", 1) + b"a",
    "DICT": pickle.MARK + pickle.DICT,
    "LIST": pickle.MARK + pickle.LIST,
    "PUT": pickle.EMPTY_LIST + pickle.PUT + b"0\n" + pickle.GET + b"0\n" + pickle.TUPLE2,
    "POP": op_int(1) + op_int(2) + pickle.POP,
    "POP_MARK": op_int(1) + pickle.MARK + op_int(2) + pickle.POP_MARK,
    "DUP": op_int(1) + pickle.DUP + pickle.TUPLE2,
    "LONG4": pickle.LONG4 + struct.pack("<i", 1) + b"\x05",
    "unknown": b"\xff",
}
# Accepted beyond torch, for torch.save(..., pickle_protocol=3..5) files: data only, globals still checked.
LATER_PROTOCOL_DATA = {
    "SHORT_BINBYTES": (3, pickle.SHORT_BINBYTES + b"\x02ab", ["bytes", "b'ab'"]),
    "BINBYTES": (3, pickle.BINBYTES + struct.pack("<I", 1) + b"a", ["bytes", "b'a'"]),
    "FRAME_MEMOIZE": (4, pickle.FRAME + struct.pack("<Q", 6) + pickle.SHORT_BINUNICODE + b"\x01a" + pickle.MEMOIZE
                      + pickle.BINGET + b"\x00" + pickle.TUPLE2, ["tuple", [["str", "'a'"], ["str", "'a'"]]]),
    "ADDITEMS": (4, pickle.EMPTY_SET + pickle.MARK + op_int(1) + pickle.ADDITEMS, ["set", [["int", "1"]]]),
    "FROZENSET": (4, pickle.MARK + op_int(1) + pickle.FROZENSET, ["other"]),
    "STACK_GLOBAL": (4, op_str("torch") + op_str("Size") + pickle.STACK_GLOBAL + op_int(1) + pickle.TUPLE1
                     + pickle.TUPLE1 + pickle.REDUCE, ["Size", [["int", "1"]]]),
    "NEWOBJ_EX": (4, op_global("collections", "OrderedDict") + pickle.EMPTY_TUPLE + pickle.EMPTY_DICT
                  + pickle.NEWOBJ_EX, ["OrderedDict", [], []]),
    "BYTEARRAY8": (5, pickle.BYTEARRAY8 + struct.pack("<Q", 1) + b"x", ["bytearray", "bytearray(b'x')"]),
}
# ... and what these opcodes must still refuse
LATER_PROTOCOL_ATTACKS = {
    "STACK_GLOBAL_eval": op_str("builtins") + op_str("eval") + pickle.STACK_GLOBAL,
    "STACK_GLOBAL_dotted": op_str("torch") + op_str("Size.numel") + pickle.STACK_GLOBAL,
    "ADDITEMS_set_class": op_global("builtins", "set") + pickle.MARK + op_int(1) + pickle.ADDITEMS,
    "ADDITEMS_list": pickle.EMPTY_LIST + pickle.MARK + op_int(1) + pickle.ADDITEMS,
    "NEWOBJ_EX_dtype": op_global("torch", "float32") + pickle.EMPTY_TUPLE + pickle.EMPTY_DICT + pickle.NEWOBJ_EX,
    "NEXT_BUFFER": pickle.NEXT_BUFFER,
    "READONLY_BUFFER": pickle.SHORT_BINBYTES + b"\x01a" + pickle.READONLY_BUFFER,
}


def test_opcodes_outside_torchs_set(tmp_path):
    require_torch()
    files = {}
    for name, body in REFUSED_OPCODES.items():
        files[name] = write_checkpoint(tmp_path / f"{name}.pt", program(body))
    for name, (protocol, body, _) in LATER_PROTOCOL_DATA.items():
        files[name] = write_checkpoint(tmp_path / f"{name}.pt", _proto(protocol, body))
    for name, body in LATER_PROTOCOL_ATTACKS.items():
        files[name] = write_checkpoint(tmp_path / f"{name}.pt", _proto(5, body))
    ours = load_in_shim(files.values(), tmp_path)
    theirs = load_in_torch(files.values(), tmp_path)
    assert ours["state"] == INTACT_STATE
    for name, path in files.items():
        assert not theirs["results"][path]["ok"], (name, theirs["results"][path])  # torch refuses them all
        mine = ours["results"][path]
        if name in LATER_PROTOCOL_DATA:
            assert mine == {"ok": True, "value": LATER_PROTOCOL_DATA[name][2]}, name
        else:
            assert not mine["ok"] and mine["error"] == "UnpicklingError", (name, mine)
    for name in REFUSED_OPCODES:
        message = ours["results"][files[name]]["message"]
        if name not in ("BINPERSID_module", "unknown"):
            assert f"opcode {name}" in message, (name, message)
    assert "0xff" in ours["results"][files["unknown"]]["message"]
    assert "persistent" in ours["results"][files["BINPERSID_module"]]["message"]
    assert "GLOBAL builtins.eval" in ours["results"][files["STACK_GLOBAL_eval"]]["message"]
    assert "ADDITEMS may only be applied to a set" in ours["results"][files["ADDITEMS_list"]]["message"]


# --- code execution stays refused ---------------------------------------------------------------------------

def _code_payloads(marker):
    shell = f"touch {marker}"
    return {
        "os.system": call(op_global("os", "system"), op_str(shell)),
        "posix.system": call(op_global("posix", "system"), op_str(shell)),
        "nt.system": call(op_global("nt", "system"), op_str(shell)),
        "builtins.eval": call(op_global("builtins", "eval"), op_str(f"open({str(marker)!r}, 'w')")),
        "__builtin__.eval": call(op_global("__builtin__", "eval"), op_str(f"open({str(marker)!r}, 'w')")),
        "builtins.exec": call(op_global("builtins", "exec"), op_str(f"open({str(marker)!r}, 'w')")),
        "builtins.open": call(op_global("builtins", "open"), op_str(str(marker)), op_str("w")),
        "builtins.getattr": call(call(op_global("builtins", "getattr"), op_global("torch", "Size"),
                                      op_str("__init__"))),
        "builtins.__import__": call(op_global("builtins", "__import__"), op_str("os")),
        "subprocess.Popen": call(op_global("subprocess", "Popen"), op_str(shell)),
        "subprocess.check_output": call(op_global("subprocess", "check_output"), op_str(shell)),
        "importlib.import_module": call(op_global("importlib", "import_module"), op_str("os")),
        "pickle.loads": call(op_global("pickle", "loads"), op_str("x")),
        "torch.load": call(op_global("torch", "load"), op_str(str(marker))),
        "torch.serialization.load": call(op_global("torch.serialization", "load"), op_str(str(marker))),
        # what a class's __reduce__ can make a pickle do, through functions that are allowed
        "rebuild_from_type_calls_eval": call(op_global("torch._tensor", "_rebuild_from_type_v2"),
                                             op_global("builtins", "eval"), op_global("torch", "Tensor"),
                                             op_str("1") + pickle.TUPLE1, pickle.EMPTY_DICT),
        "rebuild_from_type_layout_state": call(op_global("torch._tensor", "_rebuild_from_type_v2"),
                                               op_global("torch.serialization", "_get_layout"),
                                               op_global("torch", "Tensor"), op_str("torch.strided") + pickle.TUPLE1,
                                               pickle.EMPTY_DICT + op_str("name") + op_str("x") + pickle.SETITEM),
        "get_layout_other_attribute": call(op_global("torch.serialization", "_get_layout"), op_str("torch.load")),
        "rebuild_tensor_on_a_class": call(op_global("torch._utils", "_rebuild_tensor_v2"), op_global("torch", "Size"),
                                          op_int(0), pickle.EMPTY_TUPLE, pickle.EMPTY_TUPLE, pickle.NEWFALSE,
                                          pickle.NONE),
        "OrderedDict_fromkeys": call(op_global("collections", "OrderedDict.fromkeys"), pickle.EMPTY_LIST),
    }


def test_code_execution_payloads_stay_refused(tmp_path):
    marker = tmp_path / "pwned"
    payloads = _code_payloads(marker)
    files = {name: write_checkpoint(tmp_path / f"{name}.pt", program(body)) for name, body in payloads.items()}
    report = load_in_shim(files.values(), tmp_path)
    assert not marker.exists()
    assert report["state"] == INTACT_STATE
    for name, path in files.items():
        outcome = report["results"][path]
        assert not outcome["ok"], (name, outcome)
    for name in ("os.system", "posix.system", "nt.system"):
        message = report["results"][files[name]]["message"]
        assert "blocked" in message and "system" in message, message
    for name, shown in [("builtins.eval", "eval"), ("builtins.getattr", "getattr"), ("builtins.open", "open"),
                        ("subprocess.Popen", "subprocess.Popen"), ("importlib.import_module",
                                                                   "importlib.import_module")]:
        message = report["results"][files[name]]["message"]
        assert f"GLOBAL {name} was not an allowed global" in message, message
        assert f"add_safe_globals([{shown}])" in message and f"safe_globals([{shown}])" in message, message
        assert "weights_only=False" in message


def test_codecs_encode_is_limited_to_text_encodings(tmp_path):
    """`_codecs.encode` is how protocol 2 writes bytes; other codec names would import codec modules."""
    from mindnlp_shim.torch import serialization

    latin1 = call(op_global("_codecs", "encode"), op_str("\u00ffa"), op_str("latin1"))
    assert serialization.load(write_checkpoint(tmp_path / "ok.pt", program(latin1))) == b"\xffa"
    for codec in ("zlib_codec", "rot13", "hex"):
        payload = call(op_global("_codecs", "encode"), op_str("abc"), op_str(codec))
        with pytest.raises(pickle.UnpicklingError, match="text encoding"):
            serialization.load(write_checkpoint(tmp_path / f"{codec}.pt", program(payload)))


# --- legitimate files written by real torch -----------------------------------------------------------------

_WRITE_LEGIT_IN_TORCH = """
import collections, json, torch
folder = {folder!r}
torch.manual_seed(0)
linear = torch.nn.Linear(3, 2)
stack = torch.nn.Sequential(torch.nn.Linear(2, 2), torch.nn.LayerNorm(2))
noted = torch.nn.Parameter(torch.randn(2))
noted.note = "kept"                                  # _rebuild_parameter_with_state
tagged = torch.arange(3.0)
tagged.tag = 5                                       # _rebuild_from_type_v2
shared = torch.arange(12, dtype=torch.int32).reshape(3, 4)
obj = {{
    "linear": linear.state_dict(),                   # OrderedDict with _metadata
    "stack": stack.state_dict(),
    "param": torch.nn.Parameter(torch.randn(2, 2)),
    "frozen": torch.nn.Parameter(torch.ones(2), requires_grad=False),
    "noted": noted, "tagged": tagged,
    "bf16": torch.randn(3).to(torch.bfloat16), "f16": torch.randn(2, 2).half(),
    "i64": torch.tensor([-(2 ** 40), 7]), "i8": torch.tensor([-3, 4], dtype=torch.int8),
    "u8": torch.tensor([0, 255], dtype=torch.uint8), "bool": torch.tensor([True, False]),
    "c64": torch.tensor([1 + 2j, -0.5j]), "f64": torch.tensor([1e-300, 2.5], dtype=torch.float64),
    "shared": (shared, shared[1], shared.t(), shared[:, ::2]),
    "scalar": torch.tensor(3.5), "empty": torch.zeros(0, 2),
    "size": torch.Size([2, 3]), "device": torch.device("cpu"), "dtype": torch.float16,
    "set": {{1, 2}}, "complex": 1 + 2j, "bytes": b"\\x00ab", "bytearray": bytearray(b"xy"),
    "counter": collections.Counter(a=2),
    "nested": [{{"a": (1, [2.5, None, "s"])}}, (True, False)], "big": 2 ** 70,
}}
torch.save(obj, folder + "/zip.pt")
torch.save(obj, folder + "/legacy.pt", _use_new_zipfile_serialization=False)
torch.save(linear.state_dict(), folder + "/state_dict.pt")
print(json.dumps("written"))
"""


def test_real_torch_files_load_with_the_same_values(tmp_path):
    require_torch()
    run_torch_json(_WRITE_LEGIT_IN_TORCH.format(folder=str(tmp_path)))
    files = [str(tmp_path / name) for name in ("zip.pt", "legacy.pt", "state_dict.pt")]
    ours = load_in_shim(files, tmp_path)
    theirs = load_in_torch(files, tmp_path)
    for path in files:
        assert theirs["results"][path]["ok"], theirs["results"][path]
        mine, torch_says = ours["results"][path], theirs["results"][path]
        assert mine["ok"], mine
        differing = {json.dumps(k): (m, t) for (k, m), (_, t) in zip(mine["value"][1], torch_says["value"][1])
                     if m != t}
        assert differing == {} and mine == torch_says, (path, json.dumps(differing)[:3000])
    value = dict((k[1].strip("'"), v) for k, v in ours["results"][files[0]]["value"][1])
    metadata = dict((k, v) for k, v in value["linear"][2])["_metadata"]
    assert metadata[0] == "OrderedDict" and metadata[1]  # the state dict's _metadata came through
    assert value["noted"][-1][0] == ["str", "'kept'"] and value["tagged"][-1][1] == ["int", "5"]
    assert value["param"][5] is True and value["frozen"][4:6] == [False, True]


# --- the user's allow-list ----------------------------------------------------------------------------------

class Plain:
    """No __setstate__: BUILD fills the instance dict."""

    def __init__(self, x):
        self.x = x


class Restoring:
    """With __setstate__: BUILD hands it the state."""

    def __init__(self, x):
        self.x = x

    def __getstate__(self):
        return {"stored": self.x}

    def __setstate__(self, state):
        self.x = ("restored", state["stored"])


class Slotted:
    """__slots__: BUILD gets (None, {slot: value}) and sets the slots."""

    __slots__ = ("x",)

    def __init__(self, x):
        self.x = x


def test_user_classes_are_built_only_while_allowed(tmp_path):
    import mindnlp_shim.torch as torch
    from mindnlp_shim.torch import serialization

    tensor = torch.arange(3, dtype=torch.float32)
    path = tmp_path / "user.pt"
    serialization.save({"plain": Plain(tensor), "restoring": Restoring(4), "slotted": Slotted([1])}, path)
    classes = [Plain, Restoring, Slotted]
    for cls in classes:
        with pytest.raises(pickle.UnpicklingError, match=rf"{__name__}\.{cls.__name__}"):
            with serialization.safe_globals([c for c in classes if c is not cls]):
                serialization.load(path)
    with serialization.safe_globals(classes):
        loaded = serialization.load(path)
    assert type(loaded["plain"]) is Plain and loaded["plain"].x.asnumpy().tolist() == [0.0, 1.0, 2.0]
    assert loaded["restoring"].x == ("restored", 4)
    assert type(loaded["slotted"]) is Slotted and loaded["slotted"].x == [1]
    with pytest.raises(pickle.UnpicklingError, match="Plain"):  # not after the block
        serialization.load(path)
    # an allowed class is instantiated and built, but the class object itself stays out of reach
    attack = write_checkpoint(tmp_path / "class.pt", program(
        op_global(__name__, "Plain") + _set_probe("probe", op_int(1)) + pickle.BUILD))
    serialization.add_safe_globals([Plain])
    try:
        with pytest.raises(pickle.UnpicklingError, match=rf"BUILD .*the global {__name__}\.Plain"):
            serialization.load(attack)
    finally:
        serialization.clear_safe_globals()
    assert not hasattr(Plain, "probe")


# --- numpy arrays with transformers' allow-list -------------------------------------------------------------

def _transformers_numpy_allowlist():
    """What transformers.trainer_pt_utils.safe_globals() allows when the Trainer reloads rng_state.pth."""
    np_core = np._core if int(np.__version__.split(".")[0]) >= 2 else np.core
    return [np_core.multiarray._reconstruct, np.ndarray, np.dtype, type(np.dtype(np.uint32))]


def test_numpy_arrays_written_by_torch(tmp_path):
    require_torch()
    expected = run_torch_json(f"""
import json, random, numpy as np, torch
np.random.seed(3)
state = {{"python": random.getstate(), "numpy": np.random.get_state(), "cpu": torch.get_rng_state()}}
torch.save(state, {str(tmp_path / "rng_state.pth")!r})
torch.save({{"f64": np.arange(6.0).reshape(2, 3)}}, {str(tmp_path / "f64.pth")!r})
np_core = np._core if int(np.__version__.split(".")[0]) >= 2 else np.core
allow = [np_core.multiarray._reconstruct, np.ndarray, np.dtype, type(np.dtype(np.uint32))]
def outcome(path, extra=()):
    try:
        with torch.serialization.safe_globals(allow + list(extra)):
            torch.load(path)
        return True
    except Exception as exc:
        return type(exc).__name__
print(json.dumps({{"mt": state["numpy"][1].tolist(), "pos": state["numpy"][2],
                  "rng_state": outcome({str(tmp_path / "rng_state.pth")!r}),
                  "f64": outcome({str(tmp_path / "f64.pth")!r}),
                  "f64_with_dtype": outcome({str(tmp_path / "f64.pth")!r}, [type(np.dtype(np.float64))])}}))
""")
    from mindnlp_shim.torch import serialization

    rng_path, f64_path = tmp_path / "rng_state.pth", tmp_path / "f64.pth"
    with pytest.raises(pickle.UnpicklingError, match="numpy"):
        serialization.load(rng_path)
    allow = _transformers_numpy_allowlist()
    with serialization.safe_globals(allow):
        state = serialization.load(rng_path)
    assert expected["rng_state"] is True
    assert state["numpy"][0] == "MT19937" and state["numpy"][1].tolist() == expected["mt"]
    assert state["numpy"][1].dtype == np.uint32 and state["numpy"][2] == expected["pos"]
    # float64 arrays need their dtype class allowed too, in torch as here
    assert expected["f64"] == "UnpicklingError"
    with pytest.raises(pickle.UnpicklingError, match="Float64DType"):
        with serialization.safe_globals(allow):
            serialization.load(f64_path)
    assert expected["f64_with_dtype"] is True
    with serialization.safe_globals(allow + [type(np.dtype(np.float64))]):
        arrays = serialization.load(f64_path)
    np.testing.assert_array_equal(arrays["f64"], np.arange(6.0).reshape(2, 3))
