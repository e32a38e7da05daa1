"""The values each rank contributes to the collectives check: shared by the rank script
(tests/scripts/distributed_collectives_run.py) and the test that rebuilds them, without importing torch."""


def inputs(rank):
    """The values rank `rank` contributes (the test rebuilds them for every rank)."""
    return {
        "f32": [rank + 1.0, 2.0 * (rank + 1), -1.0 * rank, 0.5],
        "i64": [rank + 2, 7 - rank, 3 * rank],
        "f64": [rank + 1.25, -2.5 * rank],
        "bits": [rank + 1, 6, 5 * rank],
        "flags": [rank == 0, True, rank == 1],
    }
