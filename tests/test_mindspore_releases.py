"""The one module that holds MindSpore's private names (mindnlp_shim/_mindspore.py): the release check, that no
other module imports a private name, and that each capability it gives works on the installed release."""
import ast
import os
import subprocess
import sys
import warnings

import numpy as np
import pytest

from conftest import REPO_ROOT

SHIM_SOURCES = [os.path.join(REPO_ROOT, d) for d in ("mindnlp_shim", "mindnlp", "patches")]
THE_MODULE = os.path.join(REPO_ROOT, "mindnlp_shim", "_mindspore.py")
# MindSpore modules that are internal though their names have no leading underscore
INTERNAL_MODULES = ("mindspore.graph", "mindspore.ops.auto_generate", "mindspore.ops.operations")


def _is_private(dotted):
    parts = dotted.split(".")
    return parts[0] == "mindspore" and (any(p.startswith("_") and not p.endswith("__") for p in parts[1:]) or
                                        any(dotted == m or dotted.startswith(m + ".") for m in INTERNAL_MODULES))


def _attribute_chain(node):
    names = []
    while isinstance(node, ast.Attribute):
        names.append(node.attr)
        node = node.value
    if isinstance(node, ast.Name):
        names.append(node.id)
        return ".".join(reversed(names))
    return None


def private_uses(path):
    """(line, what) for each private MindSpore name `path` imports or reaches as an attribute of `mindspore`."""
    with open(path, encoding="utf-8") as handle:
        tree = ast.parse(handle.read(), path)
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            for alias in node.names:
                if _is_private(f"{node.module}.{alias.name}"):
                    found.append((node.lineno, f"from {node.module} import {alias.name}"))
        elif isinstance(node, ast.Import):
            found += [(node.lineno, f"import {a.name}") for a in node.names if _is_private(a.name)]
        elif isinstance(node, ast.Attribute):
            chain = _attribute_chain(node)
            if chain and _is_private(chain) and not _is_private(chain.rsplit(".", 1)[0]):
                found.append((node.lineno, chain))
    return found


def test_the_private_name_finder_finds_each_form():
    import tempfile

    source = ("import mindspore\nfrom mindspore._c_expression import TensorPy\nimport mindspore.graph.api\n"
              "from mindspore.ops.auto_generate.gen_ops_def import as_strided\nx = mindspore._c_expression.run\n"
              "from mindspore import ops, Tensor\ny = mindspore.ops.add\n")
    with tempfile.NamedTemporaryFile("w", suffix=".py", delete=False) as handle:
        handle.write(source)
    try:
        assert [line for line, _ in private_uses(handle.name)] == [2, 3, 4, 5]
    finally:
        os.unlink(handle.name)


def test_no_module_but_one_touches_mindspores_private_names():
    offenders = []
    for root in SHIM_SOURCES:
        for folder, _, files in os.walk(root):
            for name in files:
                path = os.path.join(folder, name)
                if name.endswith(".py") and path != THE_MODULE:
                    offenders += [f"{os.path.relpath(path, REPO_ROOT)}:{line}: {what}"
                                  for line, what in private_uses(path)]
    assert offenders == [], "\n".join(offenders)


def test_versions_parse_as_release_tuples():
    from mindnlp_shim import _mindspore as ms_release

    assert ms_release.parse_version("2.7.1") == (2, 7, 1)
    assert ms_release.parse_version("2.10.0") == (2, 10, 0)
    assert ms_release.parse_version("2.8.0rc1") == (2, 8, 0)
    assert ms_release.parse_version("2.11") == (2, 11, 0)
    assert ms_release.parse_version("2.11.0.dev20261201") == (2, 11, 0)


def test_an_older_mindspore_is_refused_naming_the_range():
    from mindnlp_shim import _mindspore as ms_release

    for version in ((2, 6, 0), (2, 7, 0)):
        text = ".".join(map(str, version))
        with pytest.raises(ImportError) as info:
            ms_release.check_version(version, text)
        message = str(info.value)
        assert f"needs MindSpore 2.7.1 to 2.10.0; MindSpore {text} is installed" in message, message
        assert "run_backward" in message and "untyped_storage" in message, message


def test_a_newer_mindspore_warns_and_goes_on():
    from mindnlp_shim import _mindspore as ms_release

    with pytest.warns(RuntimeWarning, match="tested with MindSpore 2.7.1 to 2.10.0; MindSpore 2.11.0 is newer"):
        ms_release.check_version((2, 11, 0), "2.11.0")
    with pytest.warns(RuntimeWarning, match="2.10.1 is newer"):
        ms_release.check_version((2, 10, 1), "2.10.1")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        for supported in ((2, 7, 1), (2, 7, 2), (2, 8, 0), (2, 9, 0), (2, 10, 0)):
            ms_release.check_version(supported, ".".join(map(str, supported)))


def test_import_mindnlp_refuses_an_old_release_before_anything_else():
    """`import mindnlp` itself raises, with MindSpore's version faked below the range in a fresh interpreter."""
    code = ("import mindspore\nmindspore.__version__ = '2.7.0'\n"
            "try:\n    import mindnlp, torch\nexcept ImportError as exc:\n    print('REFUSED', exc)\n")
    proc = subprocess.run([sys.executable, "-c", code], cwd=REPO_ROOT, capture_output=True, text=True, timeout=300,
                          env=dict(os.environ, GLOG_v="3"))
    assert "REFUSED mindnlp-shim needs MindSpore 2.7.1 to 2.10.0; MindSpore 2.7.0 is installed" in proc.stdout, \
        proc.stdout + proc.stderr[-3000:]


def test_the_installed_release_is_in_the_tested_range():
    import mindspore
    from mindnlp_shim import _mindspore as ms_release

    assert ms_release.VERSION_TEXT == mindspore.__version__
    assert ms_release.OLDEST_SUPPORTED <= ms_release.VERSION <= ms_release.NEWEST_TESTED


def test_count_writes_raises_each_tensors_write_count():
    """Writes through host memory are counted as MindSpore's own: for a tensor, a view of it, a strided view and a
    0-d element, the counter that their shared storage keeps goes up."""
    import mindnlp_shim.torch as torch  # (the shim without the hook: real torch may be loaded in this process)
    from mindnlp_shim import _mindspore as ms_release

    base = torch.arange(6.0).reshape(2, 3)
    for tensor in (base, base[1, 1:], base.t(), base[1, 1]):
        before = ms_release.write_count(base)
        ms_release.count_writes([tensor])
        assert ms_release.write_count(base) > before, tensor.shape
        assert ms_release.write_count(tensor) == ms_release.write_count(base)
    assert base.tolist() == [[0.0, 1.0, 2.0], [3.0, 4.0, 5.0]]  # counted, not changed


def test_update_data_keeps_identity_and_autograd_node():
    import mindnlp_shim.torch as torch  # (the shim without the hook: real torch may be loaded in this process)
    from mindnlp_shim import _mindspore as ms_release

    x = torch.ones(3, requires_grad=True)
    y = x * 2
    same = y
    ms_release.update_data(y, torch.tensor([7.0, 8.0, 9.0]))
    assert y is same and y.tolist() == [7.0, 8.0, 9.0] and y.grad_fn is not None
    (y * y).sum().backward()  # through the kept node: d/dx of (2x)^2 at the new values y is 2 * y * 2
    assert x.grad.tolist() == [28.0, 32.0, 36.0]


def test_update_data_of_a_leaf_keeps_it_a_leaf_that_gets_gradients():
    import mindnlp_shim.torch as torch  # (the shim without the hook: real torch may be loaded in this process)
    from mindnlp_shim import _mindspore as ms_release

    p = torch.nn.Parameter(torch.ones(3))
    earlier = p * 3  # recorded before the swap: its gradient still reaches p
    ms_release.update_data(p, torch.tensor([7.0, 8.0, 9.0]))
    assert p.is_leaf and p.requires_grad and p.grad_fn is None and p.tolist() == [7.0, 8.0, 9.0]
    (earlier.sum() + (p * p).sum()).backward()
    assert p.grad.tolist() == [17.0, 19.0, 21.0]
    plain = torch.zeros(2, 3)
    ms_release.update_data(plain, torch.tensor([1.5, 2.5], dtype=torch.float64))
    assert plain.dtype == torch.float64 and plain.shape == (2,) and (plain + 1).tolist() == [2.5, 3.5]


def test_saved_tensor_written_in_place_refuses_backward():
    """The version check torch makes, through the release module's counting, for a constant saved by mul."""
    import mindnlp_shim.torch as torch  # (the shim without the hook: real torch may be loaded in this process)

    w = torch.tensor([0.5, 1.0, 1.5], requires_grad=True)
    x = torch.ones(3)
    loss = (w * x).sum()
    x.add_(1.0)
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        loss.backward()


def test_layer_norm_grad_and_as_strided_primitives_work():
    import mindnlp_shim.torch as torch  # (the shim without the hook: real torch may be loaded in this process)
    from mindnlp_shim import _mindspore as ms_release

    x = torch.arange(12.0).reshape(3, 4)
    view = ms_release.as_strided(x, (2, 2), (4, 1), 1)
    assert view.tolist() == [[1.0, 2.0], [5.0, 6.0]]
    assert ms_release.layer_norm_grad(1, 1) is not None
    np.testing.assert_array_equal(ms_release.view_kernels["pyboost_reshape"](
        ms_release.view_kernels["reshape_op"], [x, (4, 3)]).asnumpy(), np.arange(12.0).reshape(4, 3))


def test_the_tensor_attributes_read_in_place_exist_and_mean_what_the_shim_reads():
    import mindnlp_shim.torch as torch
    from mindnlp_shim import _mindspore as ms_release

    leaf = torch.ones(2, 3, requires_grad=True)
    product = leaf * 2
    for name in ms_release.TENSOR_ATTRIBUTES:
        assert hasattr(leaf, name), name
    assert leaf._dtype is torch.float32 and tuple(leaf._shape) == (2, 3)
    assert leaf._requires_grad and leaf._is_leaf and not product._is_leaf and product._grad_node is not None
    product.sum().backward()
    assert leaf._grad.tolist() == [[2.0] * 3] * 2


def test_node_input_dtype_is_the_recorded_dtype_or_unknown():
    import mindnlp_shim.torch as torch
    from mindnlp_shim import _mindspore as ms_release

    node = torch.ones(2, requires_grad=True)._grad_node
    assert ms_release.node_input_dtype(node) in (torch.float32, None)  # (None: the release does not record it)
    if ms_release.VERSION >= (2, 9, 0):
        assert ms_release.node_input_dtype(node) is torch.float32


def test_zeros_are_made_through_the_release_module():
    """2.7 has no bfloat16 Zeros kernel: every zero tensor the shim makes comes from `_mindspore.zeros`."""
    import re

    pattern = re.compile(r"(?<![\w.])(ops|mint|mindspore\.ops|mindspore\.mint)\.zeros\(")
    offenders = []
    for folder, _, files in os.walk(os.path.join(REPO_ROOT, "mindnlp_shim")):
        for name in files:
            path = os.path.join(folder, name)
            if name.endswith(".py") and not path.endswith(os.path.join("mindnlp_shim", "_mindspore.py")):
                with open(path, encoding="utf-8") as source:
                    offenders += [f"{path}:{number}" for number, line in enumerate(source, 1) if pattern.search(line)]
    assert not offenders, offenders
