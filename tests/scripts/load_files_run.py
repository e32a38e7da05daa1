"""Load each file of a job list with torch.load and describe what came back; for tests/test_load_mutants.py.

    python load_files_run.py --side shim|torch --jobs JOBS.json [--memory-headroom-gb N]

JOBS.json is a list of {"path", "weights_only", "map_location"}. For each job this prints a line
`{"start": i}` before the load and one with its outcome after it (flushed), so that the parent knows which
job a crash or a hang happened in. `--side shim` runs mindnlp_shim.torch (without the import hook), `--side
torch` real PyTorch; either with the address space limited to what the process uses after import plus the
headroom, so that an oversized allocation fails instead of taking the machine. A load raising MemoryError is
reported as such; each load has a 20 s alarm.
"""
import argparse
import json
import resource
import signal
import sys

parser = argparse.ArgumentParser()
parser.add_argument("--side", choices=["shim", "torch"], required=True)
parser.add_argument("--jobs", required=True)
parser.add_argument("--memory-headroom-gb", type=float, default=3.0)
ARGS = parser.parse_args()

import numpy as np  # noqa: E402

_np_core = np._core if int(np.__version__.split(".")[0]) >= 2 else np.core
# what transformers' Trainer allows when it reloads rng_state.pth with weights_only=True
NUMPY_ALLOWED = [_np_core.multiarray._reconstruct, np.ndarray, np.dtype, type(np.dtype(np.uint32))]

if ARGS.side == "shim":
    import mindspore
    from mindnlp_shim.torch import serialization
    from mindnlp_shim.torch.nn.parameter import Parameter

    Tensor = mindspore.Tensor

    def tensor_fields(t):
        return [repr(t.dtype), bool(t.requires_grad), isinstance(t, Parameter)]

    def element_bytes(t):
        return np.ascontiguousarray(t.asnumpy()).tobytes()

    def storage_of(t):
        storage = t.untyped_storage()
        return storage.data_ptr(), storage.nbytes(), str(t.device)

    def as_text(value):
        from mindnlp_shim.torch import _device, _dtype

        if isinstance(value, _dtype.dtype):
            return repr(value)
        return str(value) if isinstance(value, _device.device) else None
else:
    import torch
    from torch import serialization

    Tensor = torch.Tensor
    Parameter = torch.nn.Parameter

    def tensor_fields(t):
        return [str(t.dtype), bool(t.requires_grad), isinstance(t, Parameter)]

    def element_bytes(t):
        return t.detach().contiguous().reshape(-1).view(torch.uint8).numpy().tobytes()

    def storage_of(t):
        storage = t.untyped_storage()
        return storage.data_ptr(), storage.nbytes(), str(t.device)

    def as_text(value):
        return str(value) if isinstance(value, (torch.dtype, torch.device)) else None


def describe(value, storages):
    """A JSON description; tensors with dtype, shape, strides, offset, their storage (numbered by first
    appearance) and its size, and their bytes."""
    if isinstance(value, Tensor):
        pointer, nbytes, device = storage_of(value)
        if device == "meta":
            return ["meta tensor", tensor_fields(value), list(value.shape)]
        index = storages.setdefault(pointer, len(storages)) if nbytes else None  # (empty: torch's pointer is 0)
        return ["tensor", *tensor_fields(value), list(value.shape), list(value.stride()), value.storage_offset(),
                index, nbytes, element_bytes(value).hex()]
    if isinstance(value, np.ndarray):
        return ["ndarray", str(value.dtype), list(value.shape), value.tobytes().hex()]
    if isinstance(value, (bool, int, float, str, bytes, complex, type(None))):
        return [type(value).__name__, repr(value)]
    kind = type(value).__name__
    if isinstance(value, (list, tuple)):
        return [kind, [describe(v, storages) for v in value]]
    if isinstance(value, dict):
        attributes = sorted((repr(name), describe(v, storages)) for name, v in vars(value).items()) \
            if hasattr(value, "__dict__") else []
        return [kind, [[describe(k, storages), describe(v, storages)] for k, v in value.items()], attributes]
    text = as_text(value)
    return ["other", kind] if text is None else ["text", text]


class Timeout(Exception):
    pass


def _alarm(signum, frame):
    raise Timeout("load took longer than 20 s")


def load(job):
    kwargs = {"weights_only": job["weights_only"]}
    if job.get("map_location") is not None:
        kwargs["map_location"] = job["map_location"]
    if job["weights_only"]:
        with serialization.safe_globals(NUMPY_ALLOWED):
            return serialization.load(job["path"], **kwargs)
    return serialization.load(job["path"], **kwargs)


def main():
    with open(ARGS.jobs) as f:
        jobs = json.load(f)
    with open("/proc/self/status") as status:
        size = next(int(line.split()[1]) * 1024 for line in status if line.startswith("VmSize"))
    limit = size + int(ARGS.memory_headroom_gb * 2 ** 30)
    resource.setrlimit(resource.RLIMIT_AS, (limit, resource.getrlimit(resource.RLIMIT_AS)[1]))
    signal.signal(signal.SIGALRM, _alarm)
    for index, job in jobs:
        print(json.dumps({"start": index}), flush=True)
        signal.alarm(20)
        try:
            value = load(job)
            outcome = {"ok": True, "value": describe(value, {})}
        except Timeout as exc:
            outcome = {"ok": False, "error": "Timeout", "message": str(exc)}
        except MemoryError as exc:
            outcome = {"ok": False, "error": "MemoryError", "message": str(exc)[:500]}
        except Exception as exc:  # noqa: BLE001  (every exception is an outcome to compare)
            outcome = {"ok": False, "error": type(exc).__name__, "message": str(exc)[:1500],
                       "notes": [str(n) for n in getattr(exc, "__notes__", [])]}
        finally:
            signal.alarm(0)
        outcome["i"] = index
        print(json.dumps(outcome), flush=True)
    sys.stdout.flush()


main()
