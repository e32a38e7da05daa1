"""torch.distributed.checkpoint.state_dict's model functions against real torch, in one process: canonical names
(torch.compile's wrapper left out), frozen parameters left out on request, submodule filtering, and loading
with strict on and off (accelerate's load_checkpoint_in_model loads through set_model_state_dict)."""
import numpy as np
import pytest

import mindnlp_shim.torch as mt
from conftest import SUBPROCESS_FLAG, real_torch, subprocess_fallback

rt = real_torch()
if rt is None:
    globals()[SUBPROCESS_FLAG] = True
    test_whole_module_in_subprocess = subprocess_fallback(__file__)
else:
    from torch.distributed.checkpoint import state_dict as real_dsd
import mindnlp_shim.torch.distributed.checkpoint.state_dict as our_dsd

pytestmark = pytest.mark.filterwarnings("ignore::FutureWarning")  # (torch deprecates `submodules`)


def _model(T):
    T.manual_seed(0)
    model = T.nn.Sequential(T.nn.Linear(2, 3), T.nn.Sequential(T.nn.Linear(3, 2), T.nn.LayerNorm(2)))
    model[0].weight.requires_grad_(False)
    model.register_buffer("steps", T.zeros(1))
    return model


def _described(state):
    return {name: (tuple(value.shape), value.requires_grad) for name, value in state.items()}


@pytest.mark.parametrize("compiled", [False, True])
@pytest.mark.parametrize("options", [{}, {"ignore_frozen_params": True}, {"full_state_dict": True, "cpu_offload": True}])
def test_get_model_state_dict_matches_torch(compiled, options):
    answers = []
    for T, dsd in ((mt, our_dsd), (rt, real_dsd)):
        model = _model(T)
        model = T.compile(model, backend="eager") if compiled else model
        answers.append(_described(dsd.get_model_state_dict(model, options=dsd.StateDictOptions(**options))))
    assert answers[0] == answers[1]


@pytest.mark.parametrize("keep", [True, False])
def test_submodule_state_dict_matches_torch(keep):
    answers = []
    for T, dsd in ((mt, our_dsd), (rt, real_dsd)):
        model = _model(T)
        state = dsd.get_model_state_dict(model, submodules={model[1][0]},
                                         options=dsd.StateDictOptions(keep_submodule_prefixes=keep))
        answers.append(_described(state))
    assert answers[0] == answers[1]


@pytest.mark.parametrize("strict", [True, False])
@pytest.mark.parametrize("compiled", [False, True])
def test_set_model_state_dict_matches_torch(strict, compiled):
    answers = []
    for T, dsd in ((mt, our_dsd), (rt, real_dsd)):
        model = _model(T)
        model = T.compile(model, backend="eager") if compiled else model
        partial = {"0.weight": T.ones(3, 2), "1.0.bias": T.full((2,), 2.0), "extra": T.zeros(1)}
        try:
            result = dsd.set_model_state_dict(model, partial, options=dsd.StateDictOptions(strict=strict))
            answer = [sorted(result.missing_keys), sorted(result.unexpected_keys)]
        except RuntimeError as exc:
            answer = ["RuntimeError", str(exc).replace("\t", "").splitlines()[-1:]]
        state = dsd.get_model_state_dict(model)
        answers.append(answer + [np.asarray(state["0.weight"].detach().numpy()).tolist(),
                                 np.asarray(state["1.0.bias"].detach().numpy()).tolist()])
    assert answers[0] == answers[1]


def test_optimizer_state_functions_raise_not_implemented():
    with pytest.raises(NotImplementedError, match="get_optimizer_state_dict"):
        our_dsd.get_optimizer_state_dict(mt.nn.Linear(1, 1), None)
