"""Matrix products and convolutions over operands of different dtypes: torch never promotes there, it raises a
RuntimeError worded by the kernel the call reaches. The shim once computed a float32 operand with a bfloat16 one as
float32 without a word (its CPU bfloat16 path casts to float32 first) and let MindSpore's TypeError through for the
other pairs; peft's `disable_input_dtype_casting` tests expect torch's message. Every op below is called with every
pair of dtypes (the same dtype too, for the result's dtype) and compared with real torch: the result's dtype, or the
exception's type and message. Under CPU autocast the operands are cast first, so mixed pairs work there as in torch."""
import itertools

import pytest

import mindnlp_shim.torch as mt
from conftest import SUBPROCESS_FLAG, real_torch, subprocess_fallback

rt = real_torch()
if rt is None:
    globals()[SUBPROCESS_FLAG] = True
    test_whole_module_in_subprocess = subprocess_fallback(__file__)

DTYPES = ["float32", "bfloat16", "float16", "float64", "int64"]
SAME_DTYPES = ["float32", "bfloat16", "float16"]  # (float64 convolutions are a documented gap of the shim)


def _ops(T):
    F = T.nn.functional
    o = lambda *shape, dtype: T.ones(*shape, dtype=dtype)
    return {
        "linear": lambda a, b: F.linear(o(2, 3, dtype=a), o(4, 3, dtype=b)),
        "linear_nd": lambda a, b: F.linear(o(2, 2, 3, dtype=a), o(4, 3, dtype=b)),
        "linear_vector": lambda a, b: F.linear(o(3, dtype=a), o(4, 3, dtype=b)),
        "linear_weight_and_bias": lambda a, b: F.linear(o(2, 3, dtype=a), o(4, 3, dtype=b), o(4, dtype=b)),
        "linear_bias": lambda a, b: F.linear(o(2, 2, 3, dtype=a), o(4, 3, dtype=a), o(4, dtype=b)),
        "Linear": lambda a, b: T.nn.Linear(3, 4, dtype=b)(o(2, 3, dtype=a)),
        "matmul_1_1": lambda a, b: T.matmul(o(3, dtype=a), o(3, dtype=b)),
        "matmul_2_1": lambda a, b: T.matmul(o(2, 3, dtype=a), o(3, dtype=b)),
        "matmul_3_1": lambda a, b: T.matmul(o(2, 2, 3, dtype=a), o(3, dtype=b)),
        "matmul_1_2": lambda a, b: T.matmul(o(3, dtype=a), o(3, 2, dtype=b)),
        "matmul_2_2": lambda a, b: o(2, 3, dtype=a) @ o(3, 4, dtype=b),
        "matmul_3_2": lambda a, b: T.matmul(o(2, 2, 3, dtype=a), o(3, 4, dtype=b)),
        "matmul_2_3": lambda a, b: T.matmul(o(2, 3, dtype=a), o(2, 3, 4, dtype=b)),
        "matmul_4_4": lambda a, b: T.matmul(o(1, 2, 2, 3, dtype=a), o(1, 2, 3, 4, dtype=b)),
        "mm": lambda a, b: T.mm(o(2, 3, dtype=a), o(3, 4, dtype=b)),
        "Tensor.mm": lambda a, b: o(2, 3, dtype=a).mm(o(3, 4, dtype=b)),
        "bmm": lambda a, b: T.bmm(o(1, 2, 3, dtype=a), o(1, 3, 4, dtype=b)),
        "addmm_mat2": lambda a, b: T.addmm(o(2, 4, dtype=a), o(2, 3, dtype=a), o(3, 4, dtype=b)),
        "addmm_self": lambda a, b: T.addmm(o(2, 4, dtype=b), o(2, 3, dtype=a), o(3, 4, dtype=a)),
        "addmm_mat1": lambda a, b: T.addmm(o(2, 4, dtype=a), o(2, 3, dtype=b), o(3, 4, dtype=a)),
        "baddbmm": lambda a, b: T.baddbmm(o(1, 2, 4, dtype=a), o(1, 2, 3, dtype=a), o(1, 3, 4, dtype=b)),
        "baddbmm_self": lambda a, b: T.baddbmm(o(1, 2, 4, dtype=b), o(1, 2, 3, dtype=a), o(1, 3, 4, dtype=a)),
        "addbmm": lambda a, b: T.addbmm(o(2, 4, dtype=a), o(1, 2, 3, dtype=a), o(1, 3, 4, dtype=b)),
        "addbmm_self": lambda a, b: T.addbmm(o(2, 4, dtype=b), o(1, 2, 3, dtype=a), o(1, 3, 4, dtype=a)),
        "mv": lambda a, b: T.mv(o(2, 3, dtype=a), o(3, dtype=b)),
        "addmv": lambda a, b: T.addmv(o(2, dtype=a), o(2, 3, dtype=a), o(3, dtype=b)),
        "addmv_self": lambda a, b: T.addmv(o(2, dtype=b), o(2, 3, dtype=a), o(3, dtype=a)),
        "dot": lambda a, b: T.dot(o(3, dtype=a), o(3, dtype=b)),
        "conv1d": lambda a, b: F.conv1d(o(1, 1, 3, dtype=a), o(1, 1, 2, dtype=b)),
        "conv2d": lambda a, b: F.conv2d(o(1, 1, 3, 3, dtype=a), o(1, 1, 2, 2, dtype=b)),
        "conv3d": lambda a, b: F.conv3d(o(1, 1, 3, 3, 3, dtype=a), o(1, 1, 2, 2, 2, dtype=b)),
        "conv2d_bias": lambda a, b: F.conv2d(o(1, 1, 3, 3, dtype=a), o(1, 1, 2, 2, dtype=a), o(1, dtype=b)),
        "conv_transpose1d": lambda a, b: F.conv_transpose1d(o(1, 1, 3, dtype=a), o(1, 1, 2, dtype=b)),
        "conv_transpose2d": lambda a, b: F.conv_transpose2d(o(1, 1, 3, 3, dtype=a), o(1, 1, 2, 2, dtype=b)),
        "Conv2d": lambda a, b: T.nn.Conv2d(1, 1, 2, dtype=b)(o(1, 1, 3, 3, dtype=a)),
    }


OPS = list(_ops(rt or mt))
PAIRS = [(a, b) for a, b in itertools.product(DTYPES, DTYPES) if a != b] + [(a, a) for a in SAME_DTYPES]


def _outcome(T, op, a, b):
    try:
        out = _ops(T)[op](getattr(T, a), getattr(T, b))
    except Exception as exc:  # noqa: BLE001 (the exception itself is compared)
        return type(exc).__name__, str(exc).split("\n")[0]
    return "result", str(out.dtype).replace("torch.", "").lower()


@pytest.mark.parametrize("op", OPS)
def test_dtype_pairs_match_torch(op):
    table = {(a, b): (_outcome(mt, op, a, b), _outcome(rt, op, a, b)) for a, b in PAIRS}
    differing = {pair: outcomes for pair, outcomes in table.items() if outcomes[0] != outcomes[1]}
    assert not differing, differing


@pytest.mark.parametrize("op", ["linear", "Linear", "matmul_2_2", "bmm", "conv2d", "Conv2d"])
@pytest.mark.parametrize("weight_dtype", ["float32", "bfloat16", "float16"])
@pytest.mark.parametrize("region", ["float16", "bfloat16"])
def test_cpu_autocast_casts_before_the_check(op, weight_dtype, region):
    def run(T):
        with T.autocast("cpu", dtype=getattr(T, region)):
            return _outcome(T, op, "float32", weight_dtype)

    expected = run(rt)
    assert expected == ("result", region)
    if region == "bfloat16":
        # a documented difference (amp/autocast_policy.py): MindSpore's CPU has no bfloat16 product kernels, so a
        # bfloat16 region computes these in float32 and returns float32
        expected = ("result", "float32")
    assert run(mt) == expected
