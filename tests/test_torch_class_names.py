"""The shim's classes carry torch's module names once `import mindnlp` has run: `<class
'torch.nn.modules.rnn.LSTM'>`, torch.typename, warnings that print a class (peft's), pickles of classes and
whole models that real torch loads. Compared with real torch, in fresh interpreters on both sides."""
import json
import os
import subprocess
import sys

import pytest

from conftest import real_torch
from shim_runner import REPO_ROOT, run_shim_json, script

rt = real_torch()
pytestmark = pytest.mark.skipif(rt is None, reason="needs real torch as the oracle")

# MindSpore's own classes serve these names (torch.Tensor is MindSpore's Tensor)
@pytest.fixture(scope="module")
def both(tmp_path_factory):
    where = tmp_path_factory.mktemp("class_names")
    ours = run_shim_json([script("class_names.py"), str(where / "shim.pt"), "--shim"])
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    theirs = subprocess.run([sys.executable, script("class_names.py"), str(where / "torch.pt")], env=env,
                            cwd=str(where), capture_output=True, text=True, timeout=600, check=True)
    return ours, json.loads(theirs.stdout.splitlines()[-1]), where


def test_classes_name_torchs_modules(both):
    ours, theirs, _ = both
    shared = sorted(set(ours["classes"]) & set(theirs["classes"]))
    assert len(shared) > 300
    internal = [name for name in ours["classes"] if ours["classes"][name].startswith("mindnlp_shim")]
    assert not internal, [(name, ours["classes"][name]) for name in internal]
    same = [name for name in shared if ours["classes"][name] == theirs["classes"][name]]
    # where the shim's file layout differs from torch's (nn.modules.adaptive_pooling, distributed._stores ...)
    # the name is the shim's file under torch's package; measured 260 of 323 equal
    assert len(same) >= 255, len(same)
    for name in ("torch.nn.LSTM", "torch.nn.Linear", "torch.nn.Module", "torch.nn.Parameter", "torch.optim.AdamW",
                 "torch.device", "torch.Size", "torch.finfo", "torch.utils.data.DataLoader",
                 "torch.distributions.Normal", "torch.distributed.DistStoreError"):
        assert ours["classes"][name] == theirs["classes"][name], name


def test_reprs_typenames_and_pickles_are_torchs(both):
    ours, theirs, _ = both
    for key in ("repr LSTM", "str device class", "typename Linear", "pickled class is itself", "pickled return type",
                "unsupported layer warning", "lazy module registered"):
        assert ours[key] == theirs[key], key


def test_a_whole_model_pickled_under_the_shim_loads_in_real_torch(both):
    _, _, where = both
    model = rt.load(str(where / "shim.pt"), weights_only=False)
    assert type(model) is rt.nn.Sequential and type(model[0]) is rt.nn.Linear and type(model[1]) is rt.nn.ReLU
    assert model[0].weight.tolist() == [[0.0, 1.0, 2.0], [3.0, 4.0, 5.0]]
