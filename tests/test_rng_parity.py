"""The CPU generator is torch's: after the same seed, every random op of the shim draws real PyTorch's numbers,
bit for bit, and the generator state (`get_rng_state`) is torch's byte layout, exchangeable both ways.

Each case is a snippet run twice: with real torch in a subprocess (the oracle) and with the shim here; both
sides print every value exactly (floats as their exact float64, integers as they are). The cases are generated
over seeds, sizes around every size where torch switches path (the normal sampler's 16, the tail block), dtypes,
and the distributions' parameters.
"""
import json
import os
import tempfile
import textwrap

os.environ.setdefault("GLOG_v", "3")

import numpy as np  # noqa: E402
import pytest  # noqa: E402

import mindnlp_shim.torch as shim_torch  # noqa: E402
from oracle import require_torch, run_torch  # noqa: E402

SEEDS = (0, 1, 42, 2 ** 32 + 5, -7, 2 ** 63 - 1)
SIZES = (1, 2, 15, 16, 17, 31, 32, 33, 47, 100, 1023)
FLOATS = ("float32", "float64", "float16", "bfloat16")
# the default run: fewer seeds and sizes, still on both sides of every switch (the full grid is marked slow)
QUICK_SEEDS = (0, -7)
QUICK_SIZES = (1, 15, 16, 17, 33, 100)


def _ramp(n, low, high, dtype="float32"):
    """n evenly spaced values from low to high: computed in double and rounded once, so both sides hold the same
    values (linspace itself is not what is under test)."""
    return f"(torch.arange({n}, dtype=torch.float64) * ({high - low} / {max(n - 1, 1)}) + {low}).to(torch.{dtype})"


def _cases(seeds=SEEDS, sizes=SIZES):
    cases = {}
    for i, seed in enumerate(seeds):
        for n in (sizes if i < 2 else sizes[i % 3::3]):  # every size for two seeds, a third for the others
            for dt in FLOATS:
                pre = f"torch.manual_seed({seed}); "
                cases[f"rand {seed} {n} {dt}"] = pre + f"out = torch.rand({n}, dtype=torch.{dt})"
                cases[f"randn {seed} {n} {dt}"] = pre + f"out = torch.randn({n}, dtype=torch.{dt})"
                empty = f"torch.empty({n}, dtype=torch.{dt})"
                cases[f"uniform_ {seed} {n} {dt}"] = pre + f"out = {empty}.uniform_(-0.7, 2.3)"
                cases[f"normal_ {seed} {n} {dt}"] = pre + f"out = {empty}.normal_(0.25, 0.02)"
                cases[f"exponential_ {seed} {n} {dt}"] = pre + f"out = {empty}.exponential_(2.5)"
                cases[f"bernoulli_ {seed} {n} {dt}"] = pre + f"out = torch.empty({n}, dtype=torch.{dt}).bernoulli_(0.3)"
                cases[f"bernoulli {seed} {n} {dt}"] = pre + f"out = torch.bernoulli({_ramp(n, 0, 1, dt)})"
                cases[f"random_ {seed} {n} {dt}"] = pre + f"out = torch.empty({n}, dtype=torch.{dt}).random_()"
            for dt in ("int64", "int32", "int16", "uint8"):
                cases[f"random_ {seed} {n} {dt}"] = (f"torch.manual_seed({seed}); "
                                                     f"out = torch.empty({n}, dtype=torch.{dt}).random_()")
            for high in (10, 2 ** 28 - 1, 2 ** 28, 2 ** 40):  # randint switches to 64-bit draws at a 2**28 range
                cases[f"randint {seed} {n} {high}"] = (f"torch.manual_seed({seed}); "
                                                       f"out = torch.randint(-3, {high}, ({n},))")
            cases[f"random_ to {seed} {n}"] = f"torch.manual_seed({seed}); out = torch.empty({n}).random_(5, 17)"
            cases[f"randperm {seed} {n}"] = f"torch.manual_seed({seed}); out = torch.randperm({n})"
            cases[f"dropout {seed} {n}"] = (f"torch.manual_seed({seed}); "
                                            f"out = torch.nn.functional.dropout(torch.ones(3, {n}), 0.1)")
    # the scalar normal's cached second sample carries across calls (and through the state bytes)
    cases["normal cache"] = ("torch.manual_seed(3); a = torch.randn(1); b = torch.randn(3, dtype=torch.float64); "
                             "c = torch.randn(1); d = torch.randn(20); e = torch.randn(5); out = [a, b, c, d, e]")
    cases["normal shapes"] = "torch.manual_seed(4); out = [torch.randn(4, 5, 3), torch.randn(2, 8), torch.randn(())]"
    cases["normal tensors"] = (f"torch.manual_seed(5); m = {_ramp(20, -1, 1)}; s = {_ramp(20, 0.1, 2)}; "
                               "out = [torch.normal(m, s), torch.normal(m, 0.5), torch.normal(0.3, s), "
                               "torch.normal(2.0, 3.0, (7,))]")
    cases["like"] = ("torch.manual_seed(6); x = torch.zeros(3, 7); "
                     "out = [torch.rand_like(x), torch.randn_like(x), torch.randint_like(x, 9)]")
    cases["generator"] = ("g = torch.Generator().manual_seed(11); torch.manual_seed(99); "
                          "out = [torch.rand(5, generator=g), torch.randn(20, generator=g), torch.rand(3), "
                          "torch.randperm(9, generator=g), torch.randint(0, 5, (4,), generator=g), "
                          "torch.tensor([g.initial_seed(), torch.initial_seed()])]")
    for n in (3, 25):
        for replacement in (True, False):
            for dt in ("float32", "float64"):
                cases[f"multinomial {n} {replacement} {dt}"] = (
                    f"torch.manual_seed(8); w = {_ramp(2 * n, 0.1, 2.0, dt)}.reshape(2, {n}); "
                    f"out = [torch.multinomial(w, {min(n, 3)}, {replacement}), torch.multinomial(w[0], 1)]")
    cases["multinomial many"] = ("torch.manual_seed(9); w = torch.tensor([0.2, 0.0, 1.5, 0.3]); "
                                 "out = torch.multinomial(w, 50, True)")
    cases["dropout module"] = ("torch.manual_seed(10); d = torch.nn.Dropout(0.37); x = torch.ones(4, 6, 17); "
                               "out = [d(x), torch.nn.functional.dropout(x, 0.5), torch.nn.functional.dropout2d("
                               "torch.ones(2, 5, 3, 3), 0.4)]")
    # masks have the next outputs drawn ahead in the background: the state and later draws are unaffected
    cases["draws after masks"] = ("torch.manual_seed(18); F = torch.nn.functional; x = torch.ones(4, 300); "
                                  "a = F.dropout(x, 0.2); s1 = torch.get_rng_state(); b = torch.randn(40); "
                                  "c = F.dropout(torch.ones(2, 7), 0.5); d = torch.randperm(30); "
                                  "e = F.dropout(torch.ones(5000), 0.1); f = torch.rand(3); "
                                  "out = [a, s1, b, c, d, e, f, torch.get_rng_state()]")
    cases["bernoulli p"] = "torch.manual_seed(12); out = torch.bernoulli(torch.zeros(40), 0.6)"
    # nn.init and the default initialisation of the layers a transformer is made of
    init = "torch.nn.init"
    for fill in ("uniform_(w, -0.3, 0.2)", "normal_(w, 0.1, 0.02)", "kaiming_uniform_(w, a=5 ** 0.5)",
                 "kaiming_normal_(w)", "xavier_uniform_(w)", "xavier_normal_(w, gain=1.5)"):
        for shape in ((3, 5), (64, 48)):
            cases[f"init {fill} {shape}"] = (f"torch.manual_seed(13); w = torch.empty{shape}; {init}.{fill}; out = w")
    # trunc_normal_: torch's rejection samplers (normal fills when [a, b] holds > 30% of the mass, uniform
    # proposals otherwise; the acceptance test takes a float32 log, correctly rounded here)
    for a, b, dt in ((-0.2, 0.13, "float32"), (1.0, 1.5, "float32"), (-0.3, 0.5, "float64"), (-2.0, 2.0, "float16")):
        cases[f"trunc_normal_ {a} {b} {dt}"] = (f"torch.manual_seed(15); w = torch.empty(64, 48, dtype=torch.{dt}); "
                                                f"{init}.trunc_normal_(w, 0.05, 0.5, {a}, {b}); "
                                                "out = [w, torch.rand(3)]")
    cases["sparse_"] = (f"torch.manual_seed(17); w = torch.empty(20, 6); {init}.sparse_(w, 0.3); "
                        "out = [w, torch.rand(3)]")
    cases["default layers"] = ("torch.manual_seed(14); lin = torch.nn.Linear(37, 19); emb = torch.nn.Embedding(50, 24, "
                               "padding_idx=0); ln = torch.nn.LayerNorm(24); "
                               "out = [lin.weight, lin.bias, emb.weight, ln.weight, ln.bias, torch.rand(3)]")
    return cases


CASES = _cases(QUICK_SEEDS, QUICK_SIZES)
FULL_CASES = _cases()

# prints {name: exact values} for every case; `torch` is whichever torch runs it
_RUNNER = '''
import json, torch
def flat(out):
    outs = out if isinstance(out, (list, tuple)) else [out]
    values = []
    for t in outs:
        t = t.detach()
        values.append([str(t.dtype).split(".")[-1], list(t.shape),
                       t.double().reshape(-1).tolist() if t.is_floating_point() else t.reshape(-1).tolist()])
    return values
results = {}
for name, code in CASES.items():
    scope = {"torch": torch}
    exec(code, scope)
    results[name] = flat(scope["out"])
print(json.dumps(results))
'''


def _run_shim(cases):
    scope = {"CASES": cases, "torch": shim_torch}
    import contextlib
    import io

    buffer = io.StringIO()
    with contextlib.redirect_stdout(buffer):
        exec(textwrap.dedent(_RUNNER).replace("import json, torch", "import json"), scope)
    return json.loads(buffer.getvalue().splitlines()[-1])


def _run_oracle(cases, threads=None):
    with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as handle:
        json.dump(cases, handle)
    try:
        setup = f"import torch; torch.set_num_threads({threads})\n" if threads else ""
        code = setup + f"import json\nCASES = json.load(open({handle.name!r}))\n" + textwrap.dedent(_RUNNER)
        return json.loads(run_torch(code, timeout=600).splitlines()[-1])
    finally:
        os.unlink(handle.name)


@pytest.fixture(scope="module")
def oracle_results():
    require_torch()
    return _run_oracle(CASES)


@pytest.fixture(scope="module")
def shim_results():
    return _run_shim(CASES)


def _check_case(name, expected, got):
    assert len(got) == len(expected), name
    for (e_dtype, e_shape, e_values), (g_dtype, g_shape, g_values) in zip(expected, got):
        assert (g_dtype, g_shape) == (e_dtype, e_shape), name
        np.testing.assert_array_equal(np.array(g_values), np.array(e_values), err_msg=name)


@pytest.mark.parametrize("name", sorted(CASES))
def test_same_draws_as_torch(name, oracle_results, shim_results):
    _check_case(name, oracle_results[name], shim_results[name])


@pytest.mark.slow
def test_same_draws_as_torch_over_the_full_grid():
    """Six seeds (64-bit, negative, above 2**32) and every size from 1 to 1023 around the switches."""
    require_torch()
    expected, got = _run_oracle(FULL_CASES), _run_shim(FULL_CASES)
    failures = []
    for name in sorted(FULL_CASES):
        try:
            _check_case(name, expected[name], got[name])
        except AssertionError as error:
            failures.append(f"{name}: {str(error)[:300]}")
    assert not failures, f"{len(failures)} of {len(FULL_CASES)} cases differ:\n" + "\n".join(failures[:20])


def test_draws_do_not_depend_on_torchs_thread_count(oracle_results):
    """torch draws serially: with one thread its numbers are those compared above (drawn with torch's default,
    one thread per core: 2 here)."""
    picked = {name: CASES[name] for name in CASES if name.endswith(" 100 float32") or name.startswith("dropout 0")}
    assert _run_oracle(picked, 1) == {name: oracle_results[name] for name in picked}


# orthogonal_ draws torch's normals, but its QR is NumPy's LAPACK call, not torch's: equal to float precision
APPROXIMATE = {
    "orthogonal_": "torch.manual_seed(16); w = torch.empty(12, 30); torch.nn.init.orthogonal_(w); "
                   "out = [w, torch.rand(3)]",
}


def test_fills_with_other_float_math_draw_torchs_numbers():
    """The draws are torch's (the generator ends in the same place: the next rand equals torch's) and the
    values agree to the last bits of their float math."""
    require_torch()
    expected, got = _run_oracle(APPROXIMATE), _run_shim(APPROXIMATE)
    for name in APPROXIMATE:
        (_, e_shape, e_values), (_, _, e_next) = expected[name]
        (_, g_shape, g_values), (_, _, g_next) = got[name]
        assert g_shape == e_shape and g_next == e_next, name
        np.testing.assert_allclose(g_values, e_values, rtol=1e-5, atol=1e-6, err_msg=name)


STATE_CASES = [(0, 1), (123, 700), (2 ** 40 + 3, 623), (-5, 1248)]  # (seed, float draws before the state)

STATE_CODE = '''
import json, torch
reports = []
for seed, draws in {cases}:
    torch.manual_seed(seed)
    fresh = torch.get_rng_state()
    torch.randn(3)  # leaves a cached normal sample in the state
    torch.rand(draws)
    after = torch.get_rng_state()
    follow = torch.randn(5).double().tolist() + torch.rand(4).double().tolist()
    reports.append({{"fresh": fresh.tolist(), "after": after.tolist(), "follow": follow, "seed": torch.initial_seed()}})
print(json.dumps(reports))
'''

RESTORE_CODE = '''
import json, torch
follows = []
for state in json.load(open({path!r})):
    torch.set_rng_state(torch.tensor(state, dtype=torch.uint8))
    follows.append(torch.randn(5).double().tolist() + torch.rand(4).double().tolist())
print(json.dumps(follows))
'''


def test_state_bytes_equal_torchs_and_restore_both_ways(tmp_path):
    require_torch()
    reals = json.loads(run_torch(STATE_CODE.format(cases=STATE_CASES)).splitlines()[-1])
    t = shim_torch
    states, mine = [], []
    for (seed, draws), real in zip(STATE_CASES, reals):
        t.manual_seed(seed)
        fresh = t.get_rng_state()
        assert fresh.dtype == t.uint8 and tuple(fresh.shape) == (5056,)
        assert fresh.tolist() == real["fresh"]
        t.randn(3)
        t.rand(draws)
        states.append(t.get_rng_state().tolist())
        assert states[-1] == real["after"]
        mine.append(t.randn(5).double().tolist() + t.rand(4).double().tolist())
        assert t.initial_seed() == real["seed"] == seed % 2 ** 64
        # torch's state into the shim: the shim continues torch's stream
        t.manual_seed(999)
        t.set_rng_state(t.tensor(real["after"], dtype=t.uint8))
        assert t.randn(5).double().tolist() + t.rand(4).double().tolist() == real["follow"]
    # the shim's states into torch: torch continues the shim's streams
    path = tmp_path / "states.json"
    path.write_text(json.dumps(states))
    assert json.loads(run_torch(RESTORE_CODE.format(path=str(path))).splitlines()[-1]) == mine


def test_generator_state_round_trip_and_errors():
    g = shim_torch.Generator().manual_seed(5)
    g_state = g.get_state()
    first = shim_torch.rand(6, generator=g).tolist()
    g.set_state(g_state)
    assert shim_torch.rand(6, generator=g).tolist() == first
    with pytest.raises(RuntimeError, match="5056"):
        g.set_state(shim_torch.zeros(48, dtype=shim_torch.uint8))
    with pytest.raises(TypeError, match="ByteTensor"):
        g.set_state(shim_torch.zeros(5056, dtype=shim_torch.float32))
    s = g.seed()
    assert g.initial_seed() == s and 0 <= s < 2 ** 63


# what this module compares with real torch (read by tests/api_census.py)
API_CENSUS = {
    ("torch.manual_seed", "torch.get_rng_state", "torch.set_rng_state", "torch.initial_seed"):
        "test_state_bytes_equal_torchs_and_restore_both_ways",
}
