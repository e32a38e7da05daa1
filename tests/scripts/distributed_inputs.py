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


STORE_DTYPES = ["float32", "float64", "float16", "bfloat16", "int64", "int32", "int8", "uint8", "bool"]


def store_values(rank, dtype, size=5):
    """What rank `rank` contributes to the store-group checks for `dtype` (a name of STORE_DTYPES): small
    integers (exact in every dtype, products of 3 ranks included), as a nested Python list."""
    import numpy as np

    rng = np.random.RandomState(100 + rank)
    if dtype == "bool":
        return (rng.rand(size) > 0.5).tolist()
    low = 0 if dtype == "uint8" else -3
    values = rng.randint(low, 4, size=size)
    return values.astype(float).tolist() if dtype.startswith(("float", "bfloat")) else values.tolist()
