"""Ops whose output size depends on the data (unique_consecutive) and torch.diff, against real torch."""
import json
import textwrap

import pytest

import mindnlp_shim.torch as shim
from oracle import run_torch_json, torch_version

CASES = textwrap.dedent("""
    def run(T):
        x = T.tensor([1, 1, 2, 2, 3, 1, 1, 2])
        u, inv, cnt = T.unique_consecutive(x, return_inverse=True, return_counts=True)
        y = T.tensor([[1.0, 4.0, 9.0, 16.0], [2.0, 3.0, 5.0, 8.0]])
        return dict(u=u.tolist(), inv=inv.tolist(), cnt=cnt.tolist(), plain=T.unique_consecutive(x).tolist(),
                    method=x.unique_consecutive().tolist(), d1=T.diff(y).tolist(), d2=T.diff(y, n=2, dim=1).tolist(),
                    d0=T.diff(y, dim=0).tolist(), dp=T.diff(y, prepend=T.zeros(2, 1)).tolist(),
                    da=y.diff(append=T.ones(2, 1)).tolist(), db=T.diff(T.tensor([True, False, False, True])).tolist())
""")


@pytest.mark.skipif(torch_version() is None, reason="real torch (the oracle) is not installed")
def test_unique_consecutive_and_diff_match_torch():
    expected = run_torch_json(CASES + "\nimport json, torch\nprint(json.dumps(run(torch)))")
    namespace = {}
    exec(CASES, namespace)
    assert json.loads(json.dumps(namespace["run"](shim))) == expected


def test_diff_gradient_flows_to_input():
    x = shim.tensor([1.0, 4.0, 9.0], requires_grad=True)
    shim.diff(x).sum().backward()
    assert x.grad.tolist() == [-1.0, 0.0, 1.0]
