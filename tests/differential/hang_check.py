"""Runs one pickled (op id, case) pair against real torch; prints READY after the imports, DONE when it returns.

    cd tests && python -m differential.hang_check CASE.pickle"""
import pickle
import sys

from conftest import real_torch  # first: puts the checkout ahead of an installed copy on sys.path

import mindnlp_shim.torch as mt  # noqa: E402

from . import table as table_mod  # noqa: E402
from .harness import Disagreement, compare_case  # noqa: E402

if __name__ == "__main__":
    with open(sys.argv[1], "rb") as f:
        op_id, case = pickle.load(f)
    rt = real_torch()
    op = next(o for o in table_mod.table(mt) if o.id == op_id)
    print("READY", flush=True)
    try:
        compare_case(op, case, rt, mt)
    except Disagreement as exc:
        print(exc, flush=True)
    print("DONE", flush=True)
