"""Child process for tests/test_out_of_memory.py: allocation failures under an address-space cap.

    python out_of_memory_child.py forward|backward|host|find_batch  <cap MiB above the current size>

Prints one JSON line: the exception's type and message, or the batch sizes find_executable_batch_size tried.
"""
import json
import resource
import sys

import mindnlp  # noqa: F401
import numpy as np
import torch
from accelerate.utils import find_executable_batch_size
from accelerate.utils.memory import should_reduce_batch_size

LENGTH, WIDTH = 1024, 16  # one batch row's product is LENGTH x LENGTH float32: 4 MiB


class Scores(torch.nn.Module):
    """x x^T per batch row: the output is batch x 4 MiB."""

    def forward(self, x):
        return torch.bmm(x, x.transpose(1, 2)).mean()


class HostOnes(torch.nn.Module):
    def forward(self, count):
        return torch.ones(count, count)


class WideBackward(torch.autograd.Function):
    """Identity forward; the backward builds a (count, count) product before reducing it."""

    @staticmethod
    def forward(ctx, x, count):
        ctx.count = count
        return x * 1.0

    @staticmethod
    def backward(ctx, grad):
        wide = torch.ones(ctx.count, 1) @ torch.ones(1, ctx.count)
        return grad * wide.mean(), None


def vm_size_bytes():
    with open("/proc/self/status") as status:
        return next(int(line.split()[1]) for line in status if line.startswith("VmSize:")) * 1024


def cap(mib):
    limit = vm_size_bytes() + mib * 2 ** 20
    resource.setrlimit(resource.RLIMIT_AS, (limit, limit))


def failure(fn):
    try:
        fn()
    except Exception as exc:  # reported to the parent
        return {"type": type(exc).__name__, "is_torch_oom": isinstance(exc, torch.OutOfMemoryError),
                "is_cuda_oom": isinstance(exc, torch.cuda.OutOfMemoryError),
                "is_runtime_error": isinstance(exc, RuntimeError), "accelerate_retries": should_reduce_batch_size(exc),
                "message": str(exc)}
    return {"type": None}


def main():
    scenario, mib = sys.argv[1], int(sys.argv[2])
    torch.manual_seed(0)
    small = torch.randn(2, LENGTH, WIDTH)
    Scores()(small)  # kernels loaded before the cap
    if scenario == "find_batch":
        tried = []

        @find_executable_batch_size(starting_batch_size=256, reduce_batch_size_fn=lambda: tried[-1] // 2)
        def run(batch_size):
            tried.append(batch_size)
            return float(Scores()(torch.randn(batch_size, LENGTH, WIDTH)))

        cap(mib)
        value = run()
        print(json.dumps({"tried": tried, "value": value}))
        return
    cap(mib)
    if scenario == "forward":
        result = failure(lambda: Scores()(torch.randn(256, LENGTH, WIDTH)))
    elif scenario == "host":
        result = failure(lambda: HostOnes()(40000))
    elif scenario == "backward":
        x = torch.ones(3, requires_grad=True)
        result = failure(lambda: WideBackward.apply(x, 40000).sum().backward())
    else:
        raise SystemExit(f"unknown scenario {scenario}")
    print(json.dumps(result))


if __name__ == "__main__":
    main()
