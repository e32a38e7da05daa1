"""Every import order gives the MindSpore-backed torch API or a clear ImportError naming the fix.

The user-facing install (the stand-in `torch` distribution, no real PyTorch) is rebuilt here as a fresh venv:
the stand-in wheel installed into it with pip, and the test environment's other packages (minus real torch
and the stale mindnlp-shim install) linked into its site-packages, which is what pip would have installed. The
environment that also has real PyTorch is this test venv itself.
"""
import json
import os
import subprocess
import sys
import sysconfig
import textwrap

import pytest

from test_packaging import STAND_IN_DIR, _build_wheel, _copy_tree

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
TEST_SITE = sysconfig.get_paths()["purelib"]
# not part of the user-facing install: real PyTorch and its siblings, and the test venv's stale shim install
_LEFT_OUT = ("torch", "functorch", "mindnlp", "_distutils_hack", "distutils-precedence.pth")


def _left_out(entry):
    return entry.lower().startswith(_LEFT_OUT) or entry.startswith("__editable__")


def _names_site_folder(folder, entry):
    """Whether `entry` is a .pth file that adds another site-packages folder (an environment layered on another,
    as CI's one for the oldest MindSpore): its packages are linked one by one instead."""
    if not entry.endswith(".pth"):
        return False
    with open(os.path.join(folder, entry)) as handle:
        return any(os.path.isdir(line.strip()) and line.strip().endswith("site-packages") for line in handle)


def _test_site_folders():
    """The test interpreter's site-packages, then the folders its .pth files add (first one wins a name)."""
    folders = [TEST_SITE]
    for entry in sorted(os.listdir(TEST_SITE)):
        if _names_site_folder(TEST_SITE, entry):
            with open(os.path.join(TEST_SITE, entry)) as handle:
                folders += [line.strip() for line in handle if os.path.isdir(line.strip())]
    return folders


@pytest.fixture(scope="module")
def user_python(tmp_path_factory):
    """The interpreter of a venv laid out like the user-facing install: the stand-in `torch`, no real torch."""
    root = tmp_path_factory.mktemp("user_install")
    venv = root / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True, timeout=120)
    python = str(venv / "bin" / "python")
    site = subprocess.run([python, "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                          capture_output=True, text=True, check=True).stdout.strip()
    # linked into site-packages itself: dill (datasets' fingerprints) pickles modules from elsewhere by value
    for folder in _test_site_folders():
        for entry in os.listdir(folder):
            if not _left_out(entry) and not _names_site_folder(folder, entry) and \
                    not os.path.exists(os.path.join(site, entry)):
                os.symlink(os.path.join(folder, entry), os.path.join(site, entry))
    source = root / "torch-stand-in"
    _copy_tree(STAND_IN_DIR, source)
    wheel = _build_wheel(str(source), str(root / "dist"))
    env = dict(os.environ, PIP_NO_INDEX="1", PIP_DISABLE_PIP_VERSION_CHECK="1")
    installed = subprocess.run([sys.executable, "-m", "pip", "--python", python, "install", "--no-deps", "-q",
                                wheel], capture_output=True, text=True, env=env, timeout=180)
    assert installed.returncode == 0, installed.stdout + installed.stderr
    return python


def run(code, python=sys.executable):
    env = dict(os.environ, PYTHONPATH=REPO, GLOG_v="3")
    env.pop("PYTHONNOUSERSITE", None)
    return subprocess.run([python, "-c", textwrap.dedent(code)], capture_output=True, text=True, env=env,
                          cwd=REPO, timeout=300)


def run_json(code, python=sys.executable):
    proc = run(code, python)
    assert proc.returncode == 0, proc.stderr[-3000:]
    return json.loads(proc.stdout.strip().splitlines()[-1])


# ---------------------------------------------------------------------------- the user-facing install
def test_user_install_has_the_stand_in_and_no_real_torch(user_python):
    out = run_json("""
        import importlib.metadata, importlib.util, json
        spec = importlib.util.find_spec("torch")
        print(json.dumps({"version": importlib.metadata.version("torch"), "origin": spec.origin,
                          "files": [str(f) for f in importlib.metadata.files("torch")]}))
    """, user_python)
    assert out["version"] == "2.13.0+mindspore"
    assert out["origin"].endswith(os.path.join("torch", "__init__.py")) and "user_install" in out["origin"]
    assert [f for f in out["files"] if f.endswith(".py")] == ["torch/__init__.py"]


def test_user_install_import_torch_first_gives_the_shim(user_python):
    out = run_json("""
        import json
        import torch
        import torch.nn.functional as F
        import mindnlp, mindnlp_shim, mindnlp_shim.torch as shim
        x = torch.tensor([[1.0, -2.0]])
        print(json.dumps({"is_shim": torch is shim and F is shim.nn.functional, "name": torch.__name__,
                          "installed": mindnlp_shim.is_installed(), "relu": F.relu(x).tolist()}))
    """, user_python)
    assert out == {"is_shim": True, "name": "mindnlp_shim.torch", "installed": True, "relu": [[1.0, 0.0]]}


def test_user_install_datasets_and_transformers_first_work(user_python):
    out = run_json("""
        import json
        import datasets, transformers
        import mindnlp
        import torch
        from transformers import BertConfig, BertModel
        import transformers.modeling_utils as modeling_utils
        ds = datasets.Dataset.from_dict({"x": [[1, 2], [3, 4]]}).with_format("torch")
        torch.manual_seed(0)
        model = BertModel(BertConfig(vocab_size=32, hidden_size=16, num_hidden_layers=1, num_attention_heads=2,
                                     intermediate_size=32))
        hidden = model(input_ids=ds[:]["x"]).last_hidden_state
        print(json.dumps({"datasets_torch": datasets.config.TORCH_AVAILABLE,
                          "transformers_torch": transformers.is_torch_available(),
                          "row_type": type(ds[0]["x"]).__module__, "hidden": list(hidden.shape),
                          "modeling_torch": modeling_utils.torch.__name__, "torch": torch.__name__}))
    """, user_python)
    assert out["datasets_torch"] is True and out["transformers_torch"] is True
    assert out["row_type"].startswith("mindspore")  # datasets' torch formatter built a shim tensor
    assert out["hidden"] == [2, 2, 16]
    assert out["modeling_torch"] == out["torch"] == "mindnlp_shim.torch"


def test_user_install_accelerate_first_installs_the_shim_through_the_stand_in(user_python):
    out = run_json("""
        import json
        import accelerate
        import torch, mindnlp_shim
        from accelerate import Accelerator
        print(json.dumps({"name": torch.__name__, "installed": mindnlp_shim.is_installed(),
                          "accelerate_torch": accelerate.accelerator.torch.__name__}))
    """, user_python)
    assert out == {"name": "mindnlp_shim.torch", "installed": True, "accelerate_torch": "mindnlp_shim.torch"}


def test_stand_in_without_the_shim_names_what_is_missing(user_python):
    env = dict(os.environ, GLOG_v="3")
    env.pop("PYTHONPATH", None)  # the user venv sees no mindnlp_shim then (the stale copy is left out)
    proc = subprocess.run([user_python, "-c", "import torch"], capture_output=True, text=True, env=env,
                          cwd="/", timeout=120)
    assert proc.returncode != 0
    assert "mindnlp-shim's stand-in" in proc.stderr and "not installed" in proc.stderr


# ---------------------------------------------------------------------------- with real PyTorch installed
def _needs_real_torch():
    import importlib.util

    if importlib.util.find_spec("torch") is None:
        pytest.skip("real torch is not installed in this environment")


def test_real_torch_imported_first_is_refused_naming_who_holds_it_and_the_fix():
    _needs_real_torch()
    proc = run("""
        import torch
        import accelerate
        import mindnlp
    """)
    assert proc.returncode != 0
    message = proc.stderr.strip().splitlines()[-1]
    assert message.startswith("ImportError: Real PyTorch 2.13.0")
    assert "your script" in message and "accelerate" in message  # who imported it
    assert "mixing its tensors" in message and "Put `import mindnlp` first" in message


def test_a_library_that_imports_torch_first_is_refused_the_same_way():
    _needs_real_torch()
    proc = run("""
        import peft
        import mindnlp
    """)
    assert proc.returncode != 0
    assert "Real PyTorch" in proc.stderr and "peft" in proc.stderr and "your script" not in proc.stderr


def test_transformers_and_datasets_first_get_the_shim_when_they_have_not_imported_torch():
    _needs_real_torch()
    out = run_json("""
        import json, sys
        import datasets, transformers
        assert "torch" not in sys.modules
        import mindnlp
        import torch
        import transformers.modeling_utils as mu
        ds = datasets.Dataset.from_dict({"x": [[1, 2]]}).with_format("torch")
        print(json.dumps({"available": transformers.is_torch_available(), "modeling": mu.torch.__name__,
                          "row_type": type(ds[0]["x"]).__module__}))
    """)
    assert out["available"] is True and out["modeling"] == "mindnlp_shim.torch"
    assert out["row_type"].startswith("mindspore")


def test_a_library_that_recorded_torch_missing_is_refused_naming_the_fix():
    # USE_TORCH=0 makes datasets record torch as missing, as it does where no torch distribution is installed
    proc = run("""
        import os
        os.environ["USE_TORCH"] = "0"
        import datasets
        del os.environ["USE_TORCH"]
        import mindnlp
    """)
    assert proc.returncode != 0
    message = proc.stderr.strip().splitlines()[-1]
    assert "datasets was imported before mindnlp" in message
    assert "TORCH_AVAILABLE = False" in message and "Put `import mindnlp` first" in message


def test_transformers_that_cached_torch_missing_is_refused_naming_the_fix():
    # transformers probes with importlib.util.find_spec; hiding torch from it once leaves the cached answer False
    proc = run("""
        import importlib.util
        find_spec = importlib.util.find_spec
        importlib.util.find_spec = lambda name, *args: None if name == "torch" else find_spec(name, *args)
        import transformers
        assert transformers.is_torch_available() is False
        importlib.util.find_spec = find_spec
        import mindnlp
    """)
    assert proc.returncode != 0
    message = proc.stderr.strip().splitlines()[-1]
    assert message.startswith("ImportError: transformers was imported before mindnlp")
    assert "is_torch_available() = False" in message and "Put `import mindnlp` first" in message
