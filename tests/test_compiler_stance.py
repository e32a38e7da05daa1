"""torch.compiler.set_stance and torch._logging.set_logs against real torch (transformers' generate tests wrap compiled generation in
`with torch.compiler.set_stance("fail_on_recompile")`): a call, a context manager and a decorator; a compiled
function gives the same values under every stance; force_backend with a non-default stance raises torch's
error. Under the shim torch.compile runs eagerly, so the stance is recorded and changes nothing."""
import numpy as np
import pytest

import mindnlp_shim.torch as mt
from conftest import SUBPROCESS_FLAG, real_torch, subprocess_fallback

rt = real_torch()
if rt is None:
    globals()[SUBPROCESS_FLAG] = True
    test_whole_module_in_subprocess = subprocess_fallback(__file__)


STANCES = ("default", "force_eager", "eager_on_recompile", "fail_on_recompile", "eager_then_compile")


def _values(T, stance, form):
    def f(x):
        return (x * 2).sin() + 1

    compiled = T.compile(f, backend="eager")
    x = T.arange(6.0).reshape(2, 3)
    if form == "context manager":
        with T.compiler.set_stance(stance):
            out = compiled(x)
    elif form == "decorator":
        out = T.compiler.set_stance(stance)(lambda: compiled(x))()
    else:
        T.compiler.set_stance(stance)
        try:
            out = compiled(x)
        finally:
            T.compiler.set_stance("default")
    return out.numpy()


@pytest.mark.parametrize("form", ["call", "context manager", "decorator"])
@pytest.mark.parametrize("stance", STANCES)
def test_compiled_values_under_each_stance_match_torch(stance, form):
    np.testing.assert_allclose(_values(mt, stance, form), _values(rt, stance, form), rtol=1e-6)


def _outcome(T, call):
    try:
        call(T)
    except Exception as exc:  # noqa: BLE001  (the exception type and message are compared)
        return type(exc).__name__, str(exc)
    return "ok"


@pytest.mark.parametrize("case", ["force_backend with default", "force_backend with force_eager",
                                  "skip_guard_eval_unsafe", "dynamo spelling"])
def test_arguments_match_torch(case):
    calls = {
        "force_backend with default": lambda T: T.compiler.set_stance("default", force_backend="eager"),
        "force_backend with force_eager": lambda T: T.compiler.set_stance("force_eager", force_backend="eager"),
        "skip_guard_eval_unsafe": lambda T: T.compiler.set_stance(skip_guard_eval_unsafe=True),
        "dynamo spelling": lambda T: T._dynamo.set_stance("force_eager").__exit__(None, None, None),
    }
    try:
        assert _outcome(mt, calls[case]) == _outcome(rt, calls[case])
    finally:
        mt.compiler.set_stance("default")
        rt.compiler.set_stance("default")


def test_stance_is_restored_after_the_context_and_the_decorated_call():
    from mindnlp_shim.torch import _stand_ins

    with mt.compiler.set_stance("fail_on_recompile"):
        assert _stand_ins.current_stance() == "fail_on_recompile"
    assert _stand_ins.current_stance() == "default"
    decorated = mt.compiler.set_stance("force_eager")(_stand_ins.current_stance)
    assert _stand_ins.current_stance() == "default"
    assert decorated() == "force_eager"
    assert _stand_ins.current_stance() == "default"


def test_set_logs_takes_torch_keywords():
    """torch._logging.set_logs (transformers' compile tests call `set_logs(recompiles_verbose=True)` and
    `set_logs()`): every keyword real torch's set_logs takes is accepted, an unknown one raises TypeError in both."""
    import inspect

    import logging

    for name, parameter in inspect.signature(rt._logging.set_logs).parameters.items():
        value = {} if name == "modules" else True if "bool" in str(parameter.annotation) else logging.INFO
        mt._logging.set_logs(**{name: value})
        rt._logging.set_logs(**{name: value})
    mt._logging.set_logs()
    rt._logging.set_logs()
    for T in (mt, rt):
        with pytest.raises(TypeError, match="unexpected keyword argument 'recompile'"):
            T._logging.set_logs(recompile=True)
        with pytest.raises(ValueError, match="Unrecognized log level"):
            T._logging.set_logs(dynamo=True)
        T._logging.set_logs()
