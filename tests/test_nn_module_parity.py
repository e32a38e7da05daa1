"""torch.nn module classes against real PyTorch: each class is built with small arguments on both sides, the
shim's copy loads real torch's freshly initialised state_dict, and the forward output, the gradient of
sum(out * w) with respect to every floating input and every parameter, and the state_dict keys are compared.
Containers (Sequential, ModuleList, ModuleDict, ParameterList, ParameterDict) are compared the same way through
a small network built from them."""
import numpy as np
import pytest

import mindnlp_shim.torch as mt
from conftest import SUBPROCESS_FLAG, real_torch, subprocess_fallback
from parity_check import assert_outputs_and_grads_close

rt = real_torch()
if rt is None:
    globals()[SUBPROCESS_FLAG] = True
    test_whole_module_in_subprocess = subprocess_fallback(__file__)

TOL = {"float64": (1e-10, 1e-12), "float32": (1e-5, 2e-6)}
_rng = np.random.default_rng(11)


def randn(*shape):
    return _rng.standard_normal(shape)


def probs(*shape):
    return _rng.uniform(0.05, 0.95, shape)


def labels(n, classes):
    return _rng.integers(0, classes, n)


class const(np.ndarray):
    """A floating input that takes no gradient (targets)."""

    def __new__(cls, array):
        return np.asarray(array).view(cls)


def build(name, *args, **kwargs):
    return lambda T: getattr(T.nn, name)(*args, **kwargs)


def _tensor(T, a, dtype, grad):
    if isinstance(a, np.ndarray) and a.dtype.kind == "f":
        t = T.tensor(np.asarray(a).astype(dtype))
        return t.requires_grad_() if grad and not isinstance(a, const) else t
    return T.tensor(a)


def _run(T, make, arrays, dtype, state, call):
    T.manual_seed(0)
    module = make(T)
    module = module.double() if dtype == np.float64 else module.float()
    if state is not None:  # the shim loads what real torch initialised
        module.load_state_dict({k: T.tensor(v) for k, v in state.items()})
    leaves = [_tensor(T, a, dtype, True) for a in arrays]
    out = call(module, *leaves)
    outs = list(out) if isinstance(out, (tuple, list)) else [out]
    total = None
    for i, o in enumerate(outs):
        w = np.random.default_rng(7 + i).standard_normal(tuple(o.shape))
        term = (o.double() * T.tensor(w)).sum()
        total = term if total is None else total + term
    total.backward()
    grads = [leaf.grad for leaf in leaves if isinstance(leaf, T.Tensor)] + [p.grad for p in module.parameters()]
    grads = [None if g is None else g.numpy() for g in grads]
    sd = {k: v.detach().numpy().copy() for k, v in module.state_dict().items()}
    return [(o.detach().numpy(), str(o.dtype), tuple(o.shape)) for o in outs], grads, sd


def check(make, arrays, dtype=np.float32, call=lambda m, *x: m(*x)):
    r_outs, r_grads, r_sd = _run(rt, make, arrays, dtype, None, call)
    m_outs, m_grads, m_sd = _run(mt, make, arrays, dtype, r_sd, call)
    assert list(m_sd) == list(r_sd)
    rtol, atol = TOL[np.dtype(dtype).name]
    assert_outputs_and_grads_close((m_outs, m_grads), (r_outs, r_grads), rtol, atol)


CASES = {
    # layers with parameters
    "Linear": (build("Linear", 5, 3), [randn(4, 5)]),
    "Bilinear": (build("Bilinear", 3, 4, 2), [randn(5, 3), randn(5, 4)]),
    "Conv1d": (build("Conv1d", 2, 3, 3, stride=2, padding=1), [randn(2, 2, 9)]),
    "Conv2d": (build("Conv2d", 2, 4, (3, 2), padding=1, groups=2), [randn(2, 2, 5, 4)]),
    "Embedding": (build("Embedding", 7, 3, padding_idx=1), [np.array([[0, 1, 4], [6, 1, 2]])]),
    "LayerNorm": (build("LayerNorm", 6), [randn(3, 6)]),
    "GroupNorm": (build("GroupNorm", 2, 4), [randn(3, 4, 5)]),
    "RMSNorm": (build("RMSNorm", 6, eps=1e-6), [randn(3, 6)]),
    "Identity": (build("Identity", 3, unused=1), [randn(3, 4)]),
    "Flatten": (build("Flatten"), [randn(2, 3, 4)]),
    "Unflatten": (build("Unflatten", 1, (3, 2)), [randn(4, 6)]),
    "CosineSimilarity": (build("CosineSimilarity", dim=1), [randn(4, 5), randn(4, 5)]),
    # activations
    "CELU": (build("CELU", 0.7), [randn(4, 5)]),
    "ELU": (build("ELU", 0.5), [randn(4, 5)]),
    "GELU": (build("GELU", approximate="tanh"), [randn(4, 5)]),
    "GLU": (build("GLU", dim=-1), [randn(4, 6)]),
    "Hardsigmoid": (build("Hardsigmoid"), [randn(4, 5) * 4]),
    "Hardswish": (build("Hardswish"), [randn(4, 5) * 4]),
    "Hardtanh": (build("Hardtanh", -0.5, 0.7), [randn(4, 5)]),
    "LeakyReLU": (build("LeakyReLU", 0.2), [randn(4, 5)]),
    "LogSigmoid": (build("LogSigmoid"), [randn(4, 5)]),
    "LogSoftmax": (build("LogSoftmax", dim=1), [randn(4, 5)]),
    "Mish": (build("Mish"), [randn(4, 5)]),
    "ReLU": (build("ReLU"), [randn(4, 5)]),
    "ReLU6": (build("ReLU6"), [randn(4, 5) * 5]),
    "SELU": (build("SELU"), [randn(4, 5)]),
    "SiLU": (build("SiLU"), [randn(4, 5)]),
    "Sigmoid": (build("Sigmoid"), [randn(4, 5)]),
    "Softmax": (build("Softmax", dim=0), [randn(4, 5)]),
    "Softmin": (build("Softmin", dim=1), [randn(4, 5)]),
    "Softplus": (build("Softplus", beta=2.0, threshold=3.0), [randn(4, 5) * 2]),
    "Softsign": (build("Softsign"), [randn(4, 5)]),
    "Tanh": (build("Tanh"), [randn(4, 5)]),
    "Tanhshrink": (build("Tanhshrink"), [randn(4, 5)]),
    "AdaptiveAvgPool1d": (build("AdaptiveAvgPool1d", 3), [randn(2, 3, 7)]),
    "AdaptiveAvgPool2d": (build("AdaptiveAvgPool2d", (2, 3)), [randn(2, 3, 5, 7)]),
    # training-mode masks come from torch's generator, seeded alike on both sides (manual_seed(0) in _run)
    "Dropout": (build("Dropout", 0.3), [randn(4, 5)]),
    "Dropout1d": (build("Dropout1d", 0.3), [randn(2, 3, 5)]),
    "Dropout2d": (build("Dropout2d", 0.3), [randn(2, 3, 4, 5)]),
    "Dropout3d": (build("Dropout3d", 0.3), [randn(2, 3, 2, 4, 5)]),
    "AlphaDropout": (build("AlphaDropout", 0.3), [randn(4, 5)]),
    "FeatureAlphaDropout": (build("FeatureAlphaDropout", 0.4), [randn(3, 4, 2, 2)]),
    # losses
    "L1Loss": (build("L1Loss"), [randn(4, 5), const(randn(4, 5))]),
    "MSELoss": (build("MSELoss", reduction="sum"), [randn(4, 5), randn(4, 5)]),
    "HuberLoss": (build("HuberLoss", delta=0.5), [randn(4, 5), const(randn(4, 5))]),
    "SmoothL1Loss": (build("SmoothL1Loss", beta=0.5), [randn(4, 5), const(randn(4, 5))]),
    "BCELoss": (build("BCELoss"), [probs(4, 5), const(probs(4, 5))]),
    "BCEWithLogitsLoss": (build("BCEWithLogitsLoss", pos_weight=None), [randn(4, 5), const(probs(4, 5))]),
    "CrossEntropyLoss": (build("CrossEntropyLoss", label_smoothing=0.1, ignore_index=2), [randn(6, 4), labels(6, 4)]),
    "NLLLoss": (build("NLLLoss", reduction="sum"), [randn(6, 4), labels(6, 4)]),
    "KLDivLoss": (build("KLDivLoss", reduction="batchmean", log_target=True), [randn(4, 5), randn(4, 5)]),
    "MarginRankingLoss": (build("MarginRankingLoss", 0.2), [randn(6), randn(6),
                                                            const(_rng.choice([-1.0, 1.0], 6))]),
    "CTCLoss": (build("CTCLoss", blank=0, zero_infinity=True),
                [randn(6, 2, 4), np.array([[1, 2, 2], [3, 1, 0]]), np.array([6, 5]), np.array([3, 2])]),
}



@pytest.mark.parametrize("name", list(CASES))
def test_module_matches_torch(name):
    make, arrays = CASES[name]
    if name == "CTCLoss":  # log-probabilities in, as torch expects
        arrays = [np.log(np.exp(arrays[0]) / np.exp(arrays[0]).sum(-1, keepdims=True))] + arrays[1:]
    check(make, arrays)


class _Net:
    """The same small network spelled with each container, for T = shim or real torch."""

    @staticmethod
    def make(T):
        class Net(T.nn.Module):
            def __init__(self):
                super().__init__()
                self.seq = T.nn.Sequential(T.nn.Linear(4, 5), T.nn.Tanh())
                self.blocks = T.nn.ModuleList([T.nn.Linear(5, 5) for _ in range(2)])
                self.heads = T.nn.ModuleDict({"a": T.nn.Linear(5, 3), "b": T.nn.Linear(5, 3)})
                self.scales = T.nn.ParameterList([T.nn.Parameter(T.ones(3) * (i + 1)) for i in range(2)])
                self.shifts = T.nn.ParameterDict({"a": T.nn.Parameter(T.zeros(3) + 0.5)})
                self.register_buffer("offset", T.ones(3))
                self.extra = T.nn.Buffer(T.full((3,), 0.25))

            def forward(self, x):
                h = self.seq(x)
                for block in self.blocks:
                    h = h + block(h)
                out = self.heads["a"](h) * self.scales[0] + self.heads["b"](h) * self.scales[1]
                return out + self.shifts["a"] + self.offset * self.extra

        return Net()


def test_containers_match_torch():
    check(_Net.make, [randn(6, 4)])


def test_data_parallel_without_devices_runs_the_module_like_torch():
    # with no accelerator torch's DataParallel calls the wrapped module directly; its state_dict gains "module."
    check(lambda T: T.nn.DataParallel(T.nn.Linear(4, 3)), [randn(5, 4)])


# what this module compares with real torch (read by tests/api_census.py)
def test_functional_layer_norm_matches_torch():
    x = randn(3, 4, 5)
    w, b = randn(4, 5), randn(4, 5)
    check(lambda T: T.nn.Identity(), [x, w, b], call=lambda m, x, w, b: _layer_norm_of(x)(m(x), (4, 5), w, b, eps=1e-4))


def _layer_norm_of(x):
    """nn.functional.layer_norm of the library `x` belongs to."""
    return (mt if isinstance(x, mt.Tensor) else rt).nn.functional.layer_norm


def test_functional_alpha_dropouts_match_torch():
    for name in ("alpha_dropout", "feature_alpha_dropout"):
        check(lambda T: T.nn.Identity(), [randn(3, 4, 5)],
              call=lambda m, x, name=name: getattr((mt if isinstance(x, mt.Tensor) else rt).nn.functional, name)(
                  m(x), 0.3, True))


def test_functional_tensor_is_the_tensor_class_as_in_torch():
    assert (mt.nn.functional.Tensor is mt.Tensor) == (rt.nn.functional.Tensor is rt.Tensor) is True


API_CENSUS = {
    (
        'torch.nn.Linear', 'torch.nn.Bilinear', 'torch.nn.Conv1d', 'torch.nn.Conv2d', 'torch.nn.Embedding',
        'torch.nn.LayerNorm', 'torch.nn.GroupNorm', 'torch.nn.RMSNorm', 'torch.nn.Identity', 'torch.nn.Flatten',
        'torch.nn.Unflatten', 'torch.nn.CosineSimilarity', 'torch.nn.CELU', 'torch.nn.ELU', 'torch.nn.GELU',
        'torch.nn.GLU', 'torch.nn.Hardsigmoid', 'torch.nn.Hardswish', 'torch.nn.Hardtanh', 'torch.nn.LeakyReLU',
        'torch.nn.LogSigmoid', 'torch.nn.LogSoftmax', 'torch.nn.Mish', 'torch.nn.ReLU', 'torch.nn.ReLU6',
        'torch.nn.SELU', 'torch.nn.SiLU', 'torch.nn.Sigmoid', 'torch.nn.Softmax', 'torch.nn.Softmin',
        'torch.nn.Softplus', 'torch.nn.Softsign', 'torch.nn.Tanh', 'torch.nn.Tanhshrink',
        'torch.nn.AdaptiveAvgPool1d', 'torch.nn.AdaptiveAvgPool2d', 'torch.nn.Dropout', 'torch.nn.Dropout1d',
        'torch.nn.Dropout2d', 'torch.nn.Dropout3d', 'torch.nn.AlphaDropout', 'torch.nn.FeatureAlphaDropout',
        'torch.nn.L1Loss', 'torch.nn.MSELoss',
        'torch.nn.HuberLoss', 'torch.nn.SmoothL1Loss', 'torch.nn.BCELoss', 'torch.nn.BCEWithLogitsLoss',
        'torch.nn.CrossEntropyLoss', 'torch.nn.NLLLoss', 'torch.nn.KLDivLoss', 'torch.nn.MarginRankingLoss',
        'torch.nn.CTCLoss',
    ): "test_module_matches_torch",
    ("torch.nn.Module", "torch.nn.Sequential", "torch.nn.ModuleList", "torch.nn.ModuleDict", "torch.nn.ParameterList",
     "torch.nn.ParameterDict", "torch.nn.Parameter", "torch.nn.Buffer"): "test_containers_match_torch",
    "torch.nn.DataParallel": "test_data_parallel_without_devices_runs_the_module_like_torch",
    "torch.nn.functional.layer_norm": "test_functional_layer_norm_matches_torch",
    "torch.nn.functional.Tensor": "test_functional_tensor_is_the_tensor_class_as_in_torch",
    ("torch.nn.functional.alpha_dropout", "torch.nn.functional.feature_alpha_dropout"):
        "test_functional_alpha_dropouts_match_torch",
}
