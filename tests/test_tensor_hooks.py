"""Tensor.register_hook handles against real torch: replacement gradients, removal any number of times, the
context-manager form, shallow and deep copies of modules that keep their handles; and a process that deletes
a module and its deep copy, each removing its hooks in `__del__` (peft's OSF layers), exits cleanly (MindSpore's
own handle crashed it with SIGSEGV)."""
import copy
import subprocess
import sys

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import mindnlp_shim.torch as mt
from conftest import REPO_ROOT, real_torch

rt = real_torch()
pytestmark = pytest.mark.skipif(rt is None, reason="needs real torch in-process")

# each step acts on (module, its deep copy): what a program does with hook handles
_STEPS = ["backward original", "backward copy", "remove original", "remove copy", "remove original twice",
          "remove shallow copy", "register scaled by 3 in a with block", "register on copy"]


def _holder(T):
    class Holder(T.nn.Module):
        def __init__(self):
            super().__init__()
            self.w = T.nn.Parameter(T.ones(3))
            self.handles = [self.w.register_hook(lambda g: g * 2)]

        def forward(self, x):
            return (x * self.w).sum()

    return Holder()


def _run(T, steps):
    original = _holder(T)
    duplicate = copy.deepcopy(original)
    seen = []
    for step in steps:
        if step.startswith("backward"):
            module = original if step.endswith("original") else duplicate
            module.w.grad = None
            module(T.tensor([1.0, 2.0, 3.0])).backward()
            seen.append(module.w.grad.tolist())
        elif step == "remove original":
            original.handles[0].remove()
        elif step == "remove copy":
            duplicate.handles[0].remove()
        elif step == "remove original twice":
            original.handles[0].remove()
            original.handles[0].remove()
        elif step == "remove shallow copy":
            copy.copy(original.handles[0]).remove()
        elif step == "register scaled by 3 in a with block":
            with original.w.register_hook(lambda g: g * 3):
                original.w.grad = None
                original(T.tensor([1.0, 1.0, 1.0])).backward()
                seen.append(original.w.grad.tolist())
        elif step == "register on copy":
            duplicate.handles.append(duplicate.w.register_hook(lambda g: g + 1))
    return seen


@settings(max_examples=40, deadline=None)
@given(steps=st.lists(st.sampled_from(_STEPS), min_size=1, max_size=6))
def test_hook_handles_behave_as_torchs(steps):
    assert _run(mt, steps) == _run(rt, steps)


_DELETE_BOTH = """
import copy, gc
from functools import partial
import mindnlp, torch


def scaled(grad, layer=None):
    return grad * 2

class Layer(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.u = torch.nn.ParameterDict({"U": torch.nn.Parameter(torch.randn(3, 3))})
        self.hook_handles = [self.u["U"].register_hook(partial(scaled, layer=self))]  # (a cycle, as peft's)

    def forward(self, x):
        return x @ self.u["U"]

    def __del__(self):
        for handle in self.hook_handles:
            handle.remove()
        self.hook_handles.clear()

first = Layer()
first(torch.randn(2, 3)).sum().backward()
second = copy.deepcopy(first)
second(torch.randn(2, 3)).sum().backward()
del first
gc.collect()
del second
gc.collect()
print("done")
"""


def test_a_module_and_its_deep_copy_removing_their_hooks_exit_cleanly():
    env = {"PYTHONPATH": REPO_ROOT, "GLOG_v": "3", "PATH": "/usr/bin:/bin"}
    proc = subprocess.run([sys.executable, "-c", _DELETE_BOTH], env=env, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert proc.stdout.strip().endswith("done")
