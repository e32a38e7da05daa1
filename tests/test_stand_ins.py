"""Every inert stand-in is listed in docs/stand-ins.md, and each kind behaves as documented."""
import os

import pytest

from mindnlp_shim.torch import _stand_ins

DOC = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "docs", "stand-ins.md")


def test_every_stand_in_is_documented():
    doc = open(DOC, encoding="utf-8").read()
    missing = [name for name, _, _ in _stand_ins.describe() if f"`{name}`" not in doc]
    assert not missing, f"stand-ins missing from docs/stand-ins.md: {missing}"


def test_placeholder_types_are_never_instances_and_cannot_be_built():
    import mindnlp_shim.torch as torch
    from mindnlp_shim.torch.distributed.tensor import DTensor

    assert not isinstance(torch.ones(2), DTensor)
    with pytest.raises(NotImplementedError, match="DTensor"):
        DTensor()


def test_compiler_queries_and_hints():
    import mindnlp_shim.torch as torch

    assert torch.compiler.is_compiling() is False
    assert torch.jit.is_tracing() is False

    def f(x):
        return x

    assert torch.compiler.disable(f) is f
    assert torch.compiler.disable(recursive=False)(f) is f


def test_unsupported_calls_raise_not_implemented_naming_the_api():
    import mindnlp_shim.torch as torch

    with pytest.raises(NotImplementedError, match="torch.distributed.send"):
        torch.distributed.send(torch.ones(1), dst=0)


def test_cpp_extension_builders_raise_not_implemented():
    # peft's BOFT imports `load` and falls back to Python when it raises
    from mindnlp_shim.torch.utils import cpp_extension

    with pytest.raises(NotImplementedError, match="torch.utils.cpp_extension.load"):
        cpp_extension.load(name="fbd_cuda", sources=["x.cpp"])
    assert cpp_extension.CUDA_HOME is None and isinstance(cpp_extension.is_ninja_available(), bool)
