"""Hub kernels (the `kernels` package, required by transformers from 5.25, which kernelizes every `from_pretrained`
model by default): no kernel build loads under the shim, and kernelizing keeps each layer's own forward.

On the GPU target transformers kernelizes for device `cuda`, where its mapping names kernels for RMSNorm and the
GELU activations; that is reproduced here on the CPU by asking for `cuda` as transformers does when the model's
execution device is a GPU (`model._kernels_device`). The patch is patches/kernels_hub.py; with it undone the same
call stops on `torch._C` (checked too). The models' outputs and `use_kernels` are compared with real torch."""
import importlib.util

import numpy as np
import pytest

from oracle import require_torch, run_torch_json
from shim_runner import run_shim_json

pytestmark = pytest.mark.skipif(importlib.util.find_spec("kernels") is None, reason="kernels is not installed")

MODELS = """
import os, sys
import torch
from transformers import (BertConfig, BertModel, GPT2Config, GPT2LMHeadModel, LlamaConfig, LlamaForCausalLM)
root = sys.argv[1]
def dirs():
    return {name: os.path.join(root, name) for name in ("llama", "bert", "gpt2")}
def build():
    torch.manual_seed(0)
    LlamaForCausalLM(LlamaConfig(vocab_size=99, hidden_size=32, intermediate_size=37, num_hidden_layers=2,
                                 num_attention_heads=4, num_key_value_heads=2)).save_pretrained(dirs()["llama"])
    BertModel(BertConfig(vocab_size=99, hidden_size=32, intermediate_size=37, num_hidden_layers=2,
                         num_attention_heads=4)).save_pretrained(dirs()["bert"])
    GPT2LMHeadModel(GPT2Config(vocab_size=99, n_embd=32, n_layer=2, n_head=4, bos_token_id=0,
                               eos_token_id=0)).save_pretrained(dirs()["gpt2"])
IDS = [[5, 6, 7, 8, 9]]
"""

SHIM = """
import json
import mindnlp
""" + MODELS + """
import importlib
import kernels
try:
    backends = importlib.import_module("kernels._internals.backends")  # kernels 0.19
except ModuleNotFoundError:
    backends = importlib.import_module("kernels.backends")  # kernels 0.18
from kernels import KernelizeFallback, Mode
from transformers import AutoModel, AutoModelForCausalLM
from transformers.integrations import hub_kernels
from transformers.utils import is_kernels_available

build()
# transformers marks layers for kernels only with a kernels release in its range (5.24: 0.18, 5.25: 0.19)
out = {"models": {}, "transformers_uses_kernels": is_kernels_available()}
if out["transformers_uses_kernels"]:
    hub_kernels.register_kernel_mapping_transformers()  # the mapping from_pretrained registers (5.25)
for name, cls in (("llama", AutoModelForCausalLM), ("bert", AutoModel), ("gpt2", AutoModelForCausalLM)):
    model = cls.from_pretrained(dirs()[name]).eval()
    marked = [m for m in model.modules() if getattr(type(m), "kernel_layer_name", None)]
    forwards = [m.forward for m in marked]
    with torch.no_grad():
        before = model(torch.tensor(IDS))[0]
    # what transformers' kernelize does when the model runs on a GPU
    kernels.kernelize(model, device="cuda", mode=Mode.INFERENCE, use_fallback=KernelizeFallback.ALL)
    if hasattr(model, "_kernels_device"):
        model._kernels_device = "cuda"
    model.train()
    model.eval()  # 5.25 kernelizes again for each new mode
    with torch.no_grad():
        after = model(torch.tensor(IDS))[0]
    try:
        kernels.kernelize(model, device="cuda", mode=Mode.INFERENCE, use_fallback=False)
        strict = "kernelized"
    except Exception as exc:
        strict = [type(exc).__name__, isinstance(exc, FileNotFoundError), str(exc)]
    out["models"][name] = {
        "marked": sorted({type(m).kernel_layer_name for m in marked}),
        "forwards_kept": [type(m.forward) is type(f) and getattr(m.forward, "__func__", None) is
                          getattr(f, "__func__", None) for m, f in zip(marked, forwards)],
        "same_output": bool((before == after).all()),
        "use_kernels": bool(getattr(model, "use_kernels", False)),
        "logits": after.float().numpy().tolist(),
        "strict": strict,
    }
try:
    kernels.get_kernel("kernels-community/activation", version=1)
    out["get_kernel"] = "loaded"
except Exception as exc:
    out["get_kernel"] = [type(exc).__name__, isinstance(exc, FileNotFoundError),
                         isinstance(exc, NotImplementedError), str(exc)]
try:  # the patch undone: what kernels alone does under the shim
    backends._backend.__wrapped__()
    out["unpatched"] = "answered"
except AttributeError as exc:
    out["unpatched"] = str(exc)
print(json.dumps(out))
"""

ORACLE = MODELS + """
import json
from transformers import AutoModel, AutoModelForCausalLM
out = {}
for name, cls in (("llama", AutoModelForCausalLM), ("bert", AutoModel), ("gpt2", AutoModelForCausalLM)):
    model = cls.from_pretrained(dirs()[name]).eval()
    with torch.no_grad():
        out[name] = {"use_kernels": bool(getattr(model, "use_kernels", False)),
                     "logits": model(torch.tensor(IDS))[0].float().numpy().tolist()}
print(json.dumps(out))
"""


def test_kernelize_keeps_each_layers_forward_and_loaders_say_why(tmp_path):
    require_torch()
    ours = run_shim_json(["-c", SHIM, str(tmp_path)], timeout=600)
    # the loaders refuse, whatever transformers does with this kernels release
    kind, is_not_found, is_not_implemented, message = ours["get_kernel"]
    assert (kind, is_not_found, is_not_implemented) == ("NoKernelBuild", True, True)
    assert "extension of real PyTorch" in message
    assert "_C" in ours["unpatched"]
    if not ours["transformers_uses_kernels"]:
        pytest.skip("this transformers release does not use this kernels release (outside its version range)")
    assert "RMSNorm" in ours["models"]["llama"]["marked"]
    for name, info in ours["models"].items():
        assert all(info["forwards_kept"]), name
        assert info["same_output"] is True, name
        if info["marked"]:  # the mapping names a kernel for these layers on cuda: loading it is refused clearly
            kind, is_not_found, message = info["strict"]
            assert kind == "NoKernelBuild" and is_not_found and "cannot be loaded on MindSpore" in message, info

    script = tmp_path / "oracle.py"
    script.write_text(ORACLE)
    theirs = run_torch_json(f"import sys; sys.argv = ['x', {str(tmp_path)!r}]; exec(open({str(script)!r}).read())",
                            timeout=600)
    for name, info in ours["models"].items():
        # transformers sets use_kernels from its release's default (5.25: on), the same on both sides
        assert info["use_kernels"] == theirs[name]["use_kernels"], name
        np.testing.assert_allclose(np.array(info["logits"]), np.array(theirs[name]["logits"]), rtol=1e-4, atol=1e-5)
