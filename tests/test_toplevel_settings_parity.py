"""Process-wide torch.* settings and objects against real PyTorch in-process: generators (seeded draws), the
inference mode, the default device, torch.compile's results; and torch.Tensor as a constructor, which does not
follow torch yet (strict xfails)."""
import numpy as np
import pytest

import mindnlp_shim.torch as mt
from conftest import SUBPROCESS_FLAG, real_torch, subprocess_fallback

rt = real_torch()
if rt is None:
    globals()[SUBPROCESS_FLAG] = True
    test_whole_module_in_subprocess = subprocess_fallback(__file__)


def _draws(T):
    g = T.Generator().manual_seed(11)
    own = T.rand(5, generator=g).tolist() + T.randn(3, generator=g).tolist()
    T.default_generator.manual_seed(7)
    default = T.rand(4).tolist() + [T.default_generator.initial_seed(), T.initial_seed()]
    return own, default, g.initial_seed()


def test_generators_draw_torchs_numbers():
    ours, theirs = _draws(mt), _draws(rt)
    np.testing.assert_allclose(ours[0], theirs[0], rtol=1e-6, atol=1e-7)
    np.testing.assert_allclose(ours[1], theirs[1], rtol=1e-6, atol=1e-7)
    assert ours[2] == theirs[2] == 11


def test_seed_reseeds_from_entropy_like_torch():
    for T in (mt, rt):
        first = T.seed()
        assert isinstance(first, int) and first == T.initial_seed()
        assert T.seed() != first  # a fresh non-deterministic seed each time


def _inference(T):
    x = T.ones(2, requires_grad=True)
    states = [T.is_inference_mode_enabled()]
    with T.inference_mode():
        y = x * 2
        states += [T.is_inference_mode_enabled(), y.requires_grad]
        with T.inference_mode(False):
            states += [T.is_inference_mode_enabled(), (x * 2).requires_grad]

    @T.inference_mode()
    def decorated():
        return T.is_inference_mode_enabled(), (x * 3).requires_grad

    return states + [T.is_inference_mode_enabled(), *decorated(), T.is_inference_mode_enabled()]


def test_inference_mode_matches_torch():
    assert _inference(mt) == _inference(rt) == [False, True, False, False, True, False, True, False, False]


def test_default_device_cpu_matches_torch():
    for T in (mt, rt):
        T.set_default_device("cpu")
        try:
            assert str(T.ones(1).device) == "cpu" and str(T.get_default_device()) == "cpu"
        finally:
            T.set_default_device(None)
        assert str(T.get_default_device()) == "cpu"


def test_compiled_module_is_wrapped_as_torchs():
    answers = []
    for T in (mt, rt):
        module = T.nn.Sequential(T.nn.Linear(2, 3), T.nn.ReLU())
        compiled = T.compile(module, backend="eager")
        answers.append([type(compiled).__name__, compiled._orig_mod is module, list(compiled.state_dict()),
                        [name for name, _ in compiled.named_modules()], compiled.eval().training, module.training,
                        compiled._orig_mod[0].out_features, T.compile(module, disable=True) is module,
                        isinstance(compiled, T._dynamo.eval_frame.OptimizedModule),
                        compiled(T.ones(1, 2)).shape == module(T.ones(1, 2)).shape])
    assert answers[0] == answers[1]


def test_compiled_function_gives_torchs_results():
    x = np.random.default_rng(2).standard_normal((3, 4)).astype(np.float32)
    results = []
    for T in (mt, rt):
        compiled = T.compile(lambda a: (a.sin() * 2).sum(-1), backend="eager")
        results.append(compiled(T.tensor(x)).numpy())
    np.testing.assert_allclose(results[0], results[1], rtol=1e-6, atol=1e-7)


# torch.Tensor called as a constructor is torch's legacy constructor of the default dtype (_tensor_constructor.py;
# tests/test_tensor_constructor.py draws many more argument lists)
@pytest.mark.parametrize("args", [([1, 2],), (2, 3), ()], ids=["data", "sizes", "empty"])
def test_tensor_class_constructs_like_torch(args):
    ours, theirs = mt.Tensor(*args), rt.Tensor(*args)
    assert (str(ours.dtype), tuple(ours.shape)) == (str(theirs.dtype), tuple(theirs.shape))


# what this module compares with real torch (read by tests/api_census.py)
API_CENSUS = {
    ("torch.Generator", "torch.default_generator"): "test_generators_draw_torchs_numbers",
    "torch.seed": "test_seed_reseeds_from_entropy_like_torch",
    ("torch.inference_mode", "torch.is_inference_mode_enabled"): "test_inference_mode_matches_torch",
    "torch.set_default_device": "test_default_device_cpu_matches_torch",
    "torch.compile": "test_compiled_function_gives_torchs_results",
}
