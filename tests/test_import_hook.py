"""The import hook: `import mindnlp` makes `torch` (and every torch submodule) the MindSpore-backed API, even
with real torch installed."""
import json
import os
import subprocess
import sys
import textwrap


REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def run(code):
    env = dict(os.environ, PYTHONPATH=REPO, GLOG_v="3")
    proc = subprocess.run([sys.executable, "-c", textwrap.dedent(code)], capture_output=True, text=True, env=env,
                          cwd=REPO, timeout=300)
    return proc


def run_json(code):
    proc = run(code)
    assert proc.returncode == 0, proc.stderr[-3000:]
    return json.loads(proc.stdout.strip().splitlines()[-1])


def test_torch_and_submodules_resolve_to_the_shim():
    out = run_json("""
        import json, importlib.metadata, importlib.util
        import mindnlp
        import torch, torch.nn, torch.nn.functional as F, torch.optim, torch.utils.data
        import mindnlp_shim.torch as shim
        print(json.dumps({
            "same": torch is shim and torch.nn is shim.nn and F is shim.nn.functional,
            "file": torch.__file__,
            "version": importlib.metadata.version("torch"),
            "spec_origin": importlib.util.find_spec("torch").origin,
            "tensor_is_mindspore": torch.Tensor.__module__,
        }))
    """)
    assert out["same"] is True
    assert "mindnlp_shim" in out["file"]
    assert out["version"] == "2.13.0"
    assert "mindnlp_shim" in out["spec_origin"]
    assert out["tensor_is_mindspore"].startswith("mindspore")


def test_transformers_sees_torch_available_and_uses_the_shim():
    out = run_json("""
        import json
        import mindnlp
        import transformers
        from transformers.utils import import_utils
        import transformers.modeling_utils as mu
        print(json.dumps({"available": transformers.is_torch_available(),
                          "torch_in_transformers": mu.torch.__name__}))
    """)
    assert out == {"available": True, "torch_in_transformers": "mindnlp_shim.torch"}


def test_unknown_torch_submodule_is_a_plain_module_not_found_error():
    proc = run("""
        import mindnlp
        import torch.does_not_exist
    """)
    assert proc.returncode != 0
    assert "ModuleNotFoundError" in proc.stderr and "torch.does_not_exist" in proc.stderr


# Import orders (torch, transformers, datasets or accelerate before mindnlp): tests/test_import_order.py


def test_install_is_idempotent():
    out = run_json("""
        import json, sys
        import mindnlp, mindnlp_shim
        mindnlp_shim.install(); mindnlp_shim.install()
        from mindnlp_shim import _importer
        print(json.dumps({"finders": sum(isinstance(f, _importer.TorchRedirectFinder) for f in sys.meta_path),
                          "installed": mindnlp_shim.is_installed()}))
    """)
    assert out == {"finders": 1, "installed": True}
