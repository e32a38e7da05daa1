"""torch.serialization: `torch.save` and `torch.load` in PyTorch's own file format.

Files written here load in real PyTorch (`torch.load`, including its default `weights_only=True`), and files
PyTorch wrote load here, as `mindspore.Tensor`s on the process's device target. The format (zip archive with
`data.pkl` plus one raw record per storage) is described in `_serialization/writer.py`; pre-1.6 non-zip files
are read and, with `_use_new_zipfile_serialization=False`, written too (`_serialization/legacy.py`).

Loading reads what torch reads and refuses what torch refuses (docs/loading-files.md): the zip records are
found and checked as torch's reader does, storage location tags and `map_location` follow torch's rules,
the format version, byte order and storage sizes are checked, and tensors that shared a storage in the file
share it again, with torch's sizes, strides and storage offsets. Errors name the file. Differences from
PyTorch, all deliberate:
- Tensors are created on MindSpore's device target whatever their location tag ("cpu", or "cuda:0" on the
  GPU target); a `map_location` callable gets each storage and its tag and may return that storage (or None).
  Tags torch cannot restore here raise its error. Storages restored to "meta" give the shim's meta tensors,
  which report the meta device and hold memory (zeros when torch reads no data, as for map_location="meta").
- Stricter than torch, each a clear error: a zip record whose CRC-32 does not match (torch skips the check), a
  record name that several records answer to, data torch would hand over uninitialized (a directory record, a
  deflated record that does not inflate to its size, a legacy storage the file never fills), and anything that
  would take more memory than the file describes (meta storages larger than the file included).
- `mmap=True` is accepted; the storages are read into memory, with the checks of a load without it (torch's
  mapped load reads each storage at its record's offset unchecked), and a compressed record is refused.
- On save each tensor writes its own storage: tensors that share memory are saved as separate storages (torch
  saves the shared one once, with each tensor's offset and strides).

`weights_only=True` (the default, as in torch >= 2.6) follows PyTorch's contract: the file can only build
data, and nothing it contains can call arbitrary code or change module-level state (`_serialization/
weights_only.py` checks each opcode):
- globals: only torch's default allow-list (tensor rebuild functions, storage classes, dtypes under their
  canonical names, `torch.Size`, `torch.device`, `torch.Tensor`, `torch.nn.Parameter`, OrderedDict, Counter,
  set, complex, bytearray, `_codecs.encode`) plus what `add_safe_globals` / `safe_globals` added; sys, os,
  posix and nt are blocked even when added;
- calls (REDUCE, NEWOBJ) only of those globals; BUILD only on OrderedDict / Counter instances and instances of
  user-allowed classes, never on a class or an allowed global (a storage class, dtype, `torch.Size`...);
  SETITEM(S) only on dicts, APPEND(S) only on lists; persistent ids only for storages;
- opcodes torch's weights-only unpickler refuses (INST, OBJ, EXT1/2/4, PERSID, protocol 0/1 text opcodes ...)
  are refused; every refusal is a `pickle.UnpicklingError` naming the global, opcode or type, with the way out
  (`add_safe_globals`, `safe_globals`, or `weights_only=False` for trusted files).
Deliberate differences: files written with `pickle_protocol=3..5` load (their data-only opcodes are accepted;
torch refuses them), `b""` (pickled as `builtins.bytes()`) loads, and `_codecs.encode` only takes text
encodings. Stricter than torch: BUILD of a tensor (torch < 0.4 pickles), calling `torch.Tensor` itself, and
`_codecs.encode` with other codecs are refused. An allow-listed class is trusted: its `__setstate__` and
constructor run with what the file gives them.
"""
import contextlib
import io
import os
import pickle

from ._serialization import legacy, reader, weights_only as weights_only_reader, writer, zip_checkpoint
from ._serialization.safe_globals import add_safe_globals, clear_safe_globals, get_safe_globals, safe_globals

DEFAULT_PROTOCOL = 2

__all__ = ["save", "load", "add_safe_globals", "get_safe_globals", "clear_safe_globals", "safe_globals",
           "DEFAULT_PROTOCOL"]


def _is_path(f):
    return isinstance(f, (str, bytes, os.PathLike))


def _source(f):
    """How errors name the file being loaded."""
    if _is_path(f):
        return os.fsdecode(os.fspath(f))
    name = getattr(f, "name", None)
    return name if isinstance(name, str) else f"the {type(f).__name__} object"


def save(obj, f, pickle_module=pickle, pickle_protocol=DEFAULT_PROTOCOL, _use_new_zipfile_serialization=True,
         _disable_byteorder_record=False):
    """Save `obj` to `f` (a path or a writable binary file) in PyTorch's zip checkpoint format (the pre-1.6
    format with `_use_new_zipfile_serialization=False`).

    A path is written atomically: the old file (if any) stays intact until the new one is complete.
    """
    if pickle_module is not pickle:
        raise NotImplementedError("torch.save(pickle_module=...): only the standard pickle module is supported on "
                                  "MindSpore (tensors are written through a pickler built on it)")
    if not _use_new_zipfile_serialization:  # PyTorch's pre-1.6 format
        pickled, storages = writer.pickle_with_storages(obj, pickle_protocol, legacy=True)
        writer.write_to(f, lambda out: legacy.write_legacy(out, pickled, storages, pickle_protocol))
        return
    pickled, storages = writer.pickle_with_storages(obj, pickle_protocol)  # fails before any file is touched
    name = writer.archive_name(f)
    writer.write_to(f, lambda out: writer.write_archive(out, name, pickled, storages))


def _env_flag(name):
    return os.environ.get(name, "0").lower() in ("1", "true", "yes", "on")


def _resolve_weights_only(weights_only, pickle_module):
    # torch >= 2.6: weights_only defaults to True unless a pickle_module is given; environment overrides
    if _env_flag("TORCH_FORCE_WEIGHTS_ONLY_LOAD"):
        return True
    if weights_only is None:
        if _env_flag("TORCH_FORCE_NO_WEIGHTS_ONLY_LOAD"):
            return False
        return pickle_module is None
    return bool(weights_only)


@contextlib.contextmanager
def _open_for_read(f):
    if _is_path(f):
        with open(os.fspath(f), "rb") as fh:
            yield fh
    elif not hasattr(f, "read"):
        raise TypeError(f"torch.load: expected a path or a readable binary file object, got {type(f).__name__}")
    elif f.seekable() if hasattr(f, "seekable") else False:
        yield f
    else:
        yield io.BytesIO(f.read())


def load(f, map_location=None, pickle_module=None, *, weights_only=None, mmap=None, **pickle_load_args):
    """Load an object saved with `torch.save` (by PyTorch or by this module) from a path or binary file.

    `weights_only=True` (the default) only reconstructs tensors, primitive types, containers and allow-listed
    globals (see `add_safe_globals` / `safe_globals`); anything else raises `pickle.UnpicklingError`.
    `weights_only=False` runs the full pickle machinery: only use it for files from a trusted source.
    """
    weights_only = _resolve_weights_only(weights_only, pickle_module)
    if weights_only and pickle_module is not None:
        raise RuntimeError("Can not safely load weights when explicit pickle_module is specified")
    if pickle_module is not None and pickle_module is not pickle:
        raise NotImplementedError("torch.load(pickle_module=...): only the standard pickle module is supported on "
                                  "MindSpore")
    if mmap and not _is_path(f):
        raise ValueError("f must be a file path in order to use the mmap argument")
    pickle_load_args.setdefault("encoding", "utf-8")
    unpickler_class = weights_only_reader.WeightsOnlyUnpickler if weights_only else reader.CheckpointUnpickler

    def make_unpickler(file, storages):
        return unpickler_class(file, storages, map_location, **pickle_load_args)

    source = _source(f)
    try:
        with _open_for_read(f) as fh:
            return reader.refuse_bare_storages(_load_file(fh, source, make_unpickler, map_location, mmap))
    except Exception as exc:
        if source not in str(exc):  # the checks below name the file; errors from inside the pickle get a note
            exc.add_note(f"torch.load: while loading {source}")
        raise


def _load_file(fh, source, make_unpickler, map_location, mmap):
    start = fh.tell()
    head = fh.read(512)
    fh.seek(start)
    if not head:
        raise EOFError(f"torch.load: {source} is empty (0 bytes) and holds no checkpoint; an interrupted save or a "
                       "full disk can leave such a file")
    if head.startswith(b"PK\x03\x04"):
        return zip_checkpoint.load_zip(fh, make_unpickler, source, map_location, bool(mmap))
    if mmap:
        raise RuntimeError("mmap can only be used with files saved with "
                           "`torch.save(_use_new_zipfile_serialization=True)`, please torch.save your "
                           "checkpoint with this option in order to use mmap.")
    if legacy.is_tar(head):
        raise NotImplementedError(f"torch.load: {source} is in the tar-based checkpoint format of PyTorch < 0.4, "
                                  "which is not supported; re-save the checkpoint with a newer PyTorch")
    return legacy.load_legacy(fh, make_unpickler, source)
