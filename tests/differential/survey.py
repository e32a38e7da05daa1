"""Lists every disagreement the generated cases find, grouped by op and kind, without stopping at the first.

    cd tests && GLOG_v=3 ../.venv/bin/python -m differential.survey [N_EXAMPLES] [OP_ID_SUBSTRING ...]

Known disagreements are marked with the entry that covers them; the rest are what to fix or to list.
With SURVEY_EMIT=1 it also prints candidate known.py entries for what is not known: per op and kind, the
narrowest condition of known.CONDITIONS that covers every disagreeing case (review them before adding)."""
import collections
import os
import re
import sys
import time

from conftest import real_torch  # first: puts the checkout ahead of an installed copy on sys.path

import mindnlp_shim.torch as mt  # noqa: E402
from hypothesis import HealthCheck, Phase, settings  # noqa: E402

from . import known as known_mod, table as table_mod  # noqa: E402
from .runner import run_op  # noqa: E402


def survey(n, filters=()):
    rt = real_torch()
    found = collections.defaultdict(list)
    cases = collections.defaultdict(list)
    profile = settings(max_examples=n, derandomize=True, deadline=None, database=None, print_blob=False,
                       phases=(Phase.explicit, Phase.generate), suppress_health_check=list(HealthCheck))
    start = time.time()
    for op in table_mod.table(mt):
        if filters and not any(f == op.id or f in op.id for f in filters):
            continue

        def record(case, exc, op=op):
            found[(op.id, exc.kind)].append((str(exc).splitlines()[0][:300], case,
                                             known_mod.known_for(op.id, case, exc.kind)))
            return True

        t0 = time.time()
        try:
            run_op(op, profile, rt, mt, record, cases[op.id].append)
        except Exception as exc:  # noqa: BLE001  (a harness error: report it beside the rest)
            found[(op.id, "harness")].append((f"{type(exc).__name__}: {exc}"[:300], None, None))
        print(f"{op.id} {time.time() - t0:.2f}s", file=sys.stderr, flush=True)
    for (op_id, kind), items in sorted(found.items()):
        unknown = [i for i in items if i[2] is None]
        print(f"{op_id} [{kind}] {len(items)} cases, {len(unknown)} not known")
        for msg, case, k in (unknown or items)[:2]:
            print(f"    {msg}\n      {case!r}"[:900])
    print(f"{time.time() - start:.0f} s")
    if os.environ.get("SURVEY_EMIT"):
        emit(found, cases)


def emit(found, cases):
    groups = collections.defaultdict(list)
    for (op_id, kind), items in sorted(found.items()):
        bad = [c for _, c, k in items if k is None and c is not None]
        if not bad:
            continue
        best = None
        for name, cond in known_mod.CONDITIONS.items():
            if all(cond(c) for c in bad):
                rate = sum(map(cond, cases[op_id])) / max(len(cases[op_id]), 1)
                if best is None or rate < best[0]:
                    best = (rate, name)
        msg = re.sub(r"Case\(.*", "", items[0][0]).replace('"', "'")
        key = re.sub(r"[-0-9.e]+|\(.*?\)|\[.*?\]", "#", msg)[:70]
        groups[(best[1], kind, key)].append((op_id, msg))
    for (cond, kind, _), ops in sorted(groups.items(), key=lambda kv: kv[1][0][0]):
        ids = [o for o, _ in ops]
        print(f"    Known({ids!r}, {cond!r}, [{kind!r}],\n          {ops[0][1][:160]!r}),")


if __name__ == "__main__":
    survey(int(sys.argv[1]) if len(sys.argv) > 1 else 6, sys.argv[2:])
