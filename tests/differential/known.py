"""Known disagreements with real torch, one entry each: the ops, the input condition, what differs.

A disagreement of one of the entry's kinds on a case that meets its condition does not fail the generated
tests. Each entry is also checked on its own (test_known_disagreement_still_differs, strict xfail): when the
shim stops disagreeing there, that test FAILS, and the entry must be removed."""
import fnmatch

import numpy as np


def _dtypes(c):
    return c.dtypes()


CONDITIONS = {  # the conditions entries name, narrowest first
    "empty_grad": lambda c: c.has_empty() and any(a.grad for a in c.arrs()),
    "empty": lambda c: c.has_empty(),
    "0d_grad": lambda c: c.has_0d() and any(a.grad for a in c.arrs()),
    "0d": lambda c: c.has_0d(),
    "bool_input": lambda c: "bool" in _dtypes(c),
    "int_input": lambda c: bool({"int64", "int32", "bool"} & _dtypes(c)),
    "float16": lambda c: "float16" in _dtypes(c),
    "bfloat16": lambda c: "bfloat16" in _dtypes(c),
    "half": lambda c: bool({"float16", "bfloat16"} & _dtypes(c)),
    "float64": lambda c: "float64" in _dtypes(c),
    "python_scalar": lambda c: c.has_scalar(),
    "noncontiguous": lambda c: any(a.layout != "c" for a in c.arrs()),
    "always": lambda c: True,
}


class Known:
    def __init__(self, ops, when, kinds, what):
        self.ops = (ops,) if isinstance(ops, str) else tuple(ops)
        self.when_name = when if isinstance(when, str) else getattr(when, "__name__", "condition")
        self.when = CONDITIONS[when] if isinstance(when, str) else when
        self.kinds, self.what = tuple(kinds), what

    def covers_op(self, op_id):
        return any(fnmatch.fnmatchcase(op_id, p) for p in self.ops)

    def matches(self, op_id, case, kind):
        return kind in self.kinds and self.covers_op(op_id) and self.when(case)

    def __repr__(self):
        return f"{'|'.join(self.ops)} [{self.when_name}]: {self.what}"


KNOWN = [
]


def known_for(op_id, case, kind):
    for k in KNOWN:
        if k.matches(op_id, case, kind):
            return k
    return None


# Cases on which the shim does not return (a MindSpore kernel loops): the generated tests leave them out, and
# test_known_hang_still_hangs runs one in a subprocess with a time limit (strict: it must still hang).
def _grad_0d(case):
    a = case.args[0]
    return np.ndim(a.values) == 0 and a.grad


HANGS = [
    Known(["Tensor.softmax", "torch.softmax", "F.softmax", "F.softmin"], _grad_0d, ["hang"],
          "softmax of a 0-d tensor that requires grad: backward never returns (MindSpore's Softmax backward on "
          "a 0-d tensor)"),
]


def hang_for(op_id, case):
    for k in HANGS:
        if k.covers_op(op_id) and k.when(case):
            return k
    return None
