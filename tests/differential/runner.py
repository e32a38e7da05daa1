"""One hypothesis loop shared by the tests and the survey (the same function, so the same derandomized cases)."""
from hypothesis import given, settings

from . import known as known_mod
from .harness import Disagreement, compare_case


def run_op(op, profile, rt, mt, on_disagreement, on_case=None):
    """Runs `op` on `profile.max_examples` drawn cases. A Disagreement goes to `on_disagreement(case, exc)`,
    which returns True to let the run go on; cases of a known hang are left out."""

    @settings(profile)
    @given(case=op.gen)
    def check(case):
        if known_mod.hang_for(op.id, case):
            return
        if on_case is not None:
            on_case(case)
        try:
            compare_case(op, case, rt, mt)
        except Disagreement as exc:
            if not on_disagreement(case, exc):
                raise

    check()
