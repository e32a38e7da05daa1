"""Time of the shim's accurate float32 transcendental ops against MindSpore's own CPU kernels (what the shim
called before, see docs/numerics.md), per size: ratio above 1 means the accurate version is slower.

    GLOG_v=3 .venv/bin/python benchmarks/elementwise_accuracy_speed.py [--sizes 8,4096,262144,1048576]
"""
import argparse
import os
import sys
import time

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
os.environ.setdefault("GLOG_v", "3")

import mindnlp_shim.torch as mt  # noqa: E402
from mindspore import ops  # noqa: E402

NAMES = ["log", "log2", "log10", "log1p", "exp", "expm1", "tanh", "sigmoid"]


def best_of(fn, repeats=7, calls=10):
    fn()
    best = float("inf")
    for _ in range(repeats):
        t0 = time.perf_counter()
        for _ in range(calls):
            fn().asnumpy()  # synchronise: the result is read
        best = min(best, (time.perf_counter() - t0) / calls)
    return best * 1e6


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--sizes", default="8,4096,262144,1048576")
    args = parser.parse_args()
    print("| op | elements | MindSpore kernel (us) | shim (us) | ratio |")
    print("|---|---|---|---|---|")
    for n in map(int, args.sizes.split(",")):
        x = mt.from_numpy(np.random.default_rng(0).uniform(0.1, 4.0, n).astype(np.float32))
        for name in NAMES:
            raw = best_of(lambda: getattr(ops, name)(x))
            ours = best_of(lambda: getattr(mt, name)(x))
            print(f"| {name} | {n} | {raw:.1f} | {ours:.1f} | {ours / raw:.2f} |", flush=True)


if __name__ == "__main__":
    main()
