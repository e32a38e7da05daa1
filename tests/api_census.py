"""The API census: which of real torch's public names the shim has, and how each one is known to match.

Regenerate docs/api-coverage.md (from the repository root):

    GLOG_v=3 .venv/bin/python tests/api_census.py --write

Two processes take part. The oracle (real torch, never the shim: `python tests/api_census.py --oracle`) lists
the public names of each namespace in `NAMESPACES` and describes each one: its kind, the value of a constant or
dtype, and for functions and methods the result (and gradients) of a probe call on small fixed inputs. The
census process then looks each name up in `mindnlp_shim.torch` (the hook is not installed) and classifies it:

- matching: present, and compared with real torch by a test (an `API_CENSUS` table in a test module, checked
  to name a test function that exists; or an entry of the differential table, tests/differential/table.py),
  or by the census's own probe (a constant or dtype equal to torch's; a probe call giving torch's values and
  gradients within float32 tolerance);
- raising: present, but the attribute raises NotImplementedError on access, or it is a function whose body
  only raises NotImplementedError, or a placeholder type that cannot be constructed;
- unverified: present, and nothing above compares it (a probe that disagrees with torch is listed apart);
- missing: looking it up raises AttributeError.
"""
import ast
import inspect
import json
import math
import os
import subprocess
import sys
import textwrap
import types
import warnings

REPO_ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
TESTS_DIR = os.path.join(REPO_ROOT, "tests")
DOC_PATH = os.path.join(REPO_ROOT, "docs", "api-coverage.md")
REGENERATE = "GLOG_v=3 .venv/bin/python tests/api_census.py --write"

NAMESPACES = ("torch", "torch.nn", "torch.nn.functional", "torch.Tensor", "torch.optim", "torch.linalg",
              "torch.fft", "torch.special", "torch.distributions", "torch.autograd")

# Names that are public by spelling but not part of torch's API: what a namespace imported from the standard
# library's typing module, and the dicts of docstring fragments some torch modules keep at module level.
FOREIGN_MODULES = ("typing", "typing_extensions", "collections.abc", "builtins")
DOC_TEMPLATES = ("common_args", "common_notes", "factory_common_args", "multi_dim_common", "reproducibility_notes",
                 "sparse_support_notes", "tf32_notes")

# Probe calls: inputs in (0, 1) keep every usual domain (log, acos, logit, erfinv) valid.
PROBE_X = [[0.25, 0.4, 0.55], [0.7, 0.35, 0.6]]
PROBE_Y = [[0.3, 0.65, 0.45], [0.2, 0.8, 0.5]]
PROBE_W = [[1.0, -0.5, 2.0], [0.75, 1.5, -1.25]]  # the gradient probed is that of sum(out * w)
PROBE_RTOL, PROBE_ATOL = 1e-5, 1e-6  # float32: about a hundred ulps of slack for the error of the probe itself
# Results that are random or uninitialized by definition: no probe value means anything for them.
NOT_PROBED = ("rand", "empty", "bernoulli", "poisson", "normal", "dropout", "multinomial", "exponential",
              "geometric", "cauchy", "uniform", "gumbel", "random", "seed", "rrelu", "new_", "data_ptr",
              "storage", "set_", "untyped", "share_memory", "pin_memory", "record_stream", "numpy", "tolist",
              "save", "load", "compile", "print", "register", "manual_", "use_", "set", "resize")


# ---------------------------------------------------------------- the oracle side (real torch)
def _oracle_namespace(torch, qualname):
    obj = torch
    for part in qualname.split(".")[1:]:
        obj = getattr(obj, part)
    return obj


def public_names(namespace):
    """`dir()` without leading underscores, submodules, standard-library imports and docstring templates."""
    out = []
    for name in dir(namespace):
        if name.startswith("_") or name in DOC_TEMPLATES or name == "TYPE_CHECKING":
            continue
        try:
            value = inspect.getattr_static(namespace, name)
        except AttributeError:
            value = getattr(namespace, name, None)
        if isinstance(value, types.ModuleType):
            continue
        module = getattr(value, "__module__", None)
        if isinstance(value, (type, types.FunctionType)) and module in FOREIGN_MODULES:
            continue
        if type(value).__module__ == "typing":  # typing's special forms (Optional, Union, ...)
            continue
        out.append(name)
    return out


def _probe(torch, qualname, name, fn_of):
    """The result of calling the name on one or two float32 tensors, with gradients, or None."""
    if any(part in name for part in NOT_PROBED):
        return None
    w = torch.tensor(PROBE_W)
    for arity in (1, 2):
        inputs = [torch.tensor(PROBE_X), torch.tensor(PROBE_Y)][:arity]
        try:
            out = fn_of(inputs[0])(*inputs[1:])
        except Exception:
            continue
        if not isinstance(out, torch.Tensor) or out.layout != torch.strided or out.is_complex() or \
                out.is_quantized or out.is_mkldnn or out.shape != inputs[0].shape:
            continue
        try:
            result = {"arity": arity, "dtype": str(out.dtype), "shape": list(out.shape),
                      "values": out.detach().double().tolist(), "grads": None}
        except Exception:
            continue
        if out.is_floating_point() and not name.endswith("_"):
            leaves = [t.clone().requires_grad_() for t in inputs]
            try:
                out = fn_of(leaves[0])(*leaves[1:])
                if out.requires_grad:
                    grads = torch.autograd.grad((out * w).sum(), leaves, allow_unused=True)
                    result["grads"] = [None if g is None else g.double().tolist() for g in grads]
            except Exception:
                pass
        return result
    return None


def oracle_main():
    warnings.simplefilter("ignore")  # deprecation notices of the probed calls
    import torch
    import torch.nn.functional  # noqa: F401
    import torch.optim, torch.linalg, torch.fft, torch.special, torch.distributions, torch.autograd  # noqa: F401,E401

    report = {"version": torch.__version__, "namespaces": {}}
    for qualname in NAMESPACES:
        ns = _oracle_namespace(torch, qualname)
        entries = {}
        for name in public_names(ns):
            value = getattr(ns, name)
            entry = {"kind": "other"}
            if isinstance(value, torch.dtype):
                entry = {"kind": "dtype", "str": str(value), "itemsize": value.itemsize,
                         "is_floating_point": value.is_floating_point, "is_complex": value.is_complex}
            elif isinstance(value, (bool, int, float, str)) or value is None:
                entry = {"kind": "constant", "repr": repr(value)}
            elif isinstance(value, type):
                entry = {"kind": "class"}
            elif callable(value):
                entry = {"kind": "callable"}
                if qualname == "torch.Tensor":
                    entry["probe"] = _probe(torch, qualname, name, lambda x, n=name: getattr(x, n))
                elif qualname in ("torch", "torch.nn.functional", "torch.linalg", "torch.fft", "torch.special"):
                    entry["probe"] = _probe(torch, qualname, name, lambda x, f=value: lambda *a: f(x, *a))
            entries[name] = entry
        report["namespaces"][qualname] = entries
    print(json.dumps(report))


def run_oracle():
    sys.path.insert(0, TESTS_DIR)
    from oracle import ORACLE_PYTHON, OracleError, _child_env

    proc = subprocess.run([ORACLE_PYTHON, os.path.abspath(__file__), "--oracle"], cwd="/tmp" if os.path.isdir(
        "/tmp") else None, env=_child_env({}), capture_output=True, text=True, timeout=300)
    if proc.returncode != 0:
        raise OracleError(f"census oracle failed (exit {proc.returncode}):\n{proc.stderr[-4000:]}")
    return json.loads(proc.stdout.strip().splitlines()[-1])


# ---------------------------------------------------------------- evidence from tests
def _test_functions(tree):
    return {node.name for node in ast.walk(tree) if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef))
            and node.name.startswith("test")}


def declared_evidence():
    """{"torch.linalg.inv": ["tests/test_linalg_parity.py::test_...", ...]} from the `API_CENSUS` tables of the
    test modules: a module-level dict literal mapping a torch name (or a tuple of names) to the test
    function(s), in that module, that compare it with real torch. An entry naming a function the module does
    not define, or a torch name whose last part the module never spells as a string or attribute, is an
    error."""
    evidence, errors = {}, []
    for fname in sorted(os.listdir(TESTS_DIR)):
        if not (fname.startswith("test_") and fname.endswith(".py")):
            continue
        path = os.path.join(TESTS_DIR, fname)
        with open(path, encoding="utf-8") as fh:
            source = fh.read()
        if "API_CENSUS" not in source:
            continue
        tree = ast.parse(source)
        tests = _test_functions(tree)
        spelled = {n.value for n in ast.walk(tree) if isinstance(n, ast.Constant) and isinstance(n.value, str)}
        spelled |= {n.attr for n in ast.walk(tree) if isinstance(n, ast.Attribute)}
        for node in tree.body:
            if isinstance(node, ast.Assign) and any(getattr(t, "id", None) == "API_CENSUS" for t in node.targets):
                table = {}
                for key, fns in ast.literal_eval(node.value).items():
                    for torch_name in (key,) if isinstance(key, str) else key:
                        table[torch_name] = fns
                for torch_name, fns in table.items():
                    if torch_name.rsplit(".", 1)[-1] not in spelled:
                        errors.append(f"tests/{fname}: API_CENSUS names {torch_name}, which the module never "
                                      f"spells out")
                    for fn in (fns,) if isinstance(fns, str) else fns:
                        if fn not in tests:
                            errors.append(f"tests/{fname}: API_CENSUS[{torch_name!r}] names {fn}, not a test "
                                          f"function of that module")
                        evidence.setdefault(torch_name, []).append(f"tests/{fname}::{fn}")
    return evidence, errors


def differential_evidence(mt):
    """torch names that the differential table generates and compares (values, gradients, in-place results),
    less the ops for which a known disagreement records a wrong answer (not an error path) on cases of any kind."""
    sys.path.insert(0, TESTS_DIR)
    from differential import known, table

    wrong_answer = {"value", "grad", "dtype", "shape", "type", "inplace"}
    always = [k for k in known.KNOWN if k.when_name == "always" and wrong_answer & set(k.kinds)]
    prefix = {"torch.": "torch.", "Tensor.": "torch.Tensor.", "F.": "torch.nn.functional."}
    names = set()
    for op in table.table(mt):
        if any(k.covers_op(op.id) for k in always):
            continue
        for short, full in prefix.items():
            if op.id.startswith(short):
                names.add(full + op.id[len(short):])
    return names


# ---------------------------------------------------------------- the census side (the shim)
_MISSING = object()


class _Raises:
    pass


def _shim_lookup(mt, qualname, name, instance):
    holder = instance if qualname == "torch.Tensor" else _oracle_namespace(mt, qualname)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # (torch's notices on reading removed attributes: `volatile`)
            return getattr(holder, name)
    except AttributeError:
        return _MISSING
    except NotImplementedError:
        return _Raises
    except Exception:  # a property that refuses this tensor (torch's `imag` of a real tensor raises too)
        return inspect.getattr_static(holder, name)


def _only_raises_not_implemented(fn):
    """A function whose body (after its docstring) is one `raise NotImplementedError(...)`."""
    fn = getattr(fn, "__func__", fn)
    code = getattr(fn, "__code__", None)
    if code is None:
        return False
    try:
        tree = ast.parse(textwrap.dedent(inspect.getsource(fn)))
    except (OSError, TypeError, SyntaxError):
        return False
    node = tree.body[0]
    if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
        return False
    body = [s for s in node.body if not (isinstance(s, ast.Expr) and isinstance(s.value, ast.Constant))]
    if len(body) != 1 or not isinstance(body[0], ast.Raise) or body[0].exc is None:
        return False
    exc = body[0].exc.func if isinstance(body[0].exc, ast.Call) else body[0].exc
    return getattr(exc, "id", None) == "NotImplementedError"


def is_raising_stand_in(value):
    from mindnlp_shim.torch import _stand_ins

    if isinstance(value, type):
        return issubclass(value, _stand_ins._NeverInstantiated) or _only_raises_not_implemented(
            value.__dict__.get("__init__"))
    return callable(value) and _only_raises_not_implemented(value)


def _close(a, b):
    if isinstance(a, list):
        return isinstance(b, list) and len(a) == len(b) and all(_close(x, y) for x, y in zip(a, b))
    if a is None or b is None:
        return a is None and b is None
    if math.isnan(a) or math.isnan(b):
        return math.isnan(a) and math.isnan(b)
    return abs(a - b) <= PROBE_ATOL + PROBE_RTOL * abs(a)


def _shim_probe(mt, qualname, name, value, probe):
    """'' when the shim's call agrees with the oracle's probe, else what differs."""
    import numpy as np

    def tensor(values, grad):
        return mt.tensor(values, dtype=mt.float32, requires_grad=grad)

    def call(args):
        if qualname == "torch.Tensor":
            return getattr(args[0], name)(*args[1:])
        return value(*args)

    try:
        args = [tensor(v, False) for v in (PROBE_X, PROBE_Y)[:probe["arity"]]]
        out = call(args)
        if not isinstance(out, mt.Tensor):
            return f"returns {type(out).__name__}"
        if str(out.dtype) != probe["dtype"] or list(out.shape) != probe["shape"]:
            return f"dtype/shape {out.dtype}/{list(out.shape)} (torch: {probe['dtype']}/{probe['shape']})"
        if not _close(probe["values"], np.asarray(out.detach().float().numpy(), dtype=np.float64).tolist()):
            return "values"
        if probe["grads"] is not None:
            leaves = [tensor(v, True) for v in (PROBE_X, PROBE_Y)[:probe["arity"]]]
            out = call(leaves)
            grads = mt.autograd.grad((out * tensor(PROBE_W, False)).sum(), leaves, allow_unused=True)
            got = [None if g is None else np.asarray(g.numpy(), dtype=np.float64).tolist() for g in grads]
            # torch's None (unused input) and a zero gradient mean the same
            want = [g if g is not None else np.zeros((2, 3)).tolist() for g in probe["grads"]]
            got = [g if g is not None else np.zeros((2, 3)).tolist() for g in got]
            if not _close(want, got):
                return "gradients"
    except Exception as exc:  # a probe that raises under the shim is a disagreement, not a crash of the census
        return f"raises {type(exc).__name__}"
    return ""


def _constant_matches(value, entry):
    want = entry["repr"]
    if isinstance(value, float) and want in ("nan", "inf", "-inf"):
        return repr(value) == want
    return isinstance(value, (bool, int, float, str, type(None))) and repr(value) == want


def _dtype_matches(value, entry):
    return (str(value) == entry["str"] and getattr(value, "itemsize", None) == entry["itemsize"]
            and getattr(value, "is_floating_point", None) == entry["is_floating_point"]
            and getattr(value, "is_complex", None) == entry["is_complex"])


def census(report=None):
    """{namespace: {name: (status, detail)}}; status is matching / raising / unverified / missing."""
    import mindnlp_shim.torch as mt

    report = report or run_oracle()
    declared, errors = declared_evidence()
    if errors:
        raise AssertionError("API_CENSUS tables name tests that do not exist:\n" + "\n".join(errors))
    differential = differential_evidence(mt)
    instance = mt.tensor([[1.0, 2.0], [3.0, 4.0]])
    result = {}
    for qualname, entries in report["namespaces"].items():
        rows = {}
        for name, entry in entries.items():
            full = f"{qualname}.{name}"
            value = _shim_lookup(mt, qualname, name, instance)
            if value is _MISSING:
                rows[name] = ("missing", "")
            elif value is _Raises or is_raising_stand_in(value):
                rows[name] = ("raising", "")
            elif full in declared:
                rows[name] = ("matching", ", ".join(declared[full]))
            elif full in differential:
                rows[name] = ("matching", "differential table")
            elif entry["kind"] == "dtype":
                rows[name] = ("matching", "dtype compared") if _dtype_matches(value, entry) else \
                    ("unverified", "dtype differs")
            elif entry["kind"] == "constant":
                rows[name] = ("matching", "constant compared") if _constant_matches(value, entry) else \
                    ("unverified", "constant differs")
            elif entry.get("probe"):
                differs = _shim_probe(mt, qualname, name, value, entry["probe"])
                rows[name] = ("unverified", "probe: " + differs) if differs else ("matching", "probe")
            else:
                rows[name] = ("unverified", "")
        result[qualname] = rows
    return result, report["version"]


# ---------------------------------------------------------------- the document
STATUSES = ("matching", "raising", "unverified", "missing")


def _pct(n, total):
    return f"{100.0 * n / total:.0f}%" if total else "-"


def render(result, version):
    lines = [
        "# torch API coverage",
        "",
        f"Generated by the API census (tests/api_census.py) against real torch {version}. Do not edit by hand;",
        "regenerate from the repository root with",
        "",
        f"    {REGENERATE}",
        "",
        "tests/test_api_census.py fails when this file differs from a fresh census.",
        "",
        "## How names are counted",
        "",
        "The public names of a namespace are those `dir()` lists in real torch without a leading underscore,",
        "less submodules (any module object: `torch.nn.utils`, `torch.distributions.normal`, and stdlib modules",
        "a torch module imported), names imported from `typing`, `typing_extensions`, `collections.abc` and",
        "`builtins` (`Optional`, `cast`, `Callable`, ...), `TYPE_CHECKING`, and the dicts of docstring fragments",
        f"some torch modules keep ({', '.join(f'`{n}`' for n in DOC_TEMPLATES)}). `torch.Tensor` counts the",
        "attributes of the class (methods and properties), dunders excluded; under the shim they are looked up",
        "on a tensor instance.",
        "",
        "Each name is then looked up under the shim (`mindnlp_shim.torch`, the same objects `import torch` gives",
        "after `import mindnlp`) and classified:",
        "",
        "- **matching**: present and compared with real torch: by a test that names it in the `API_CENSUS` table",
        "  of its module (the census checks the test function exists), by the differential table",
        "  (tests/differential), or by the census's own probe: constants and dtypes compared directly; functions",
        "  and Tensor methods that real torch answers with a same-shape real tensor when called on one or two",
        f"  float32 (2, 3) tensors are called the same way under the shim, values and the gradients of",
        f"  `sum(out * w)` compared (rtol {PROBE_RTOL}, atol {PROBE_ATOL}).",
        "  A test module records what it compares with a module-level dict literal naming its test functions,",
        "  e.g. `API_CENSUS = {\"torch.linalg.inv\": \"test_inv_matches_torch\", (\"torch.a\", \"torch.b\"): \"test_ab\"}`;",
        "- **raising**: present, but raising NotImplementedError (on access, a function whose body only raises",
        "  it, or a placeholder type that cannot be constructed);",
        "- **unverified**: present, nothing above compares it (probes that disagree are listed per namespace);",
        "- **missing**: the lookup raises AttributeError.",
        "",
        "## How a missing name answers",
        "",
        "A name the shim does not have raises `AttributeError` (for `torch.<name>` the message says it is not",
        "provided by mindnlp-shim). Libraries probe optional features with `hasattr(torch, ...)` or",
        "`getattr(torch.nn.functional, ..., None)` and take their fallback path when the answer is no; a present",
        "name that raises NotImplementedError on use would send them down the path that needs it and fail later.",
        "So a name is added only with a working implementation; a present name raises NotImplementedError only",
        "for a call it cannot serve (an argument value, a dtype), naming the torch API and the reason.",
        "",
        "## Summary",
        "",
        "| namespace | names | present | matching | raising | unverified | missing |",
        "|---|---:|---:|---:|---:|---:|---:|",
    ]
    totals = dict.fromkeys(STATUSES, 0)
    for qualname, rows in result.items():
        counts = {s: sum(1 for st, _ in rows.values() if st == s) for s in STATUSES}
        n = len(rows)
        present = n - counts["missing"]
        for s in STATUSES:
            totals[s] += counts[s]
        lines.append(f"| `{qualname}` | {n} | {present} ({_pct(present, n)}) | {counts['matching']} "
                     f"({_pct(counts['matching'], n)}) | {counts['raising']} | {counts['unverified']} | "
                     f"{counts['missing']} ({_pct(counts['missing'], n)}) |")
    n = sum(totals.values())
    present = n - totals["missing"]
    lines.append(f"| all | {n} | {present} ({_pct(present, n)}) | {totals['matching']} "
                 f"({_pct(totals['matching'], n)}) | {totals['raising']} | {totals['unverified']} | "
                 f"{totals['missing']} ({_pct(totals['missing'], n)}) |")
    for qualname, rows in result.items():
        lines += ["", f"## `{qualname}`", ""]
        for status, title in (("missing", "Missing"), ("raising", "Raising NotImplementedError"),
                              ("unverified", "Present, unverified")):
            names = sorted(n for n, (st, detail) in rows.items() if st == status and not detail.startswith("probe"))
            if names:
                lines.append(f"{title} ({len(names)}): " + ", ".join(f"`{n}`" for n in names))
                lines.append("")
        differs = sorted((n, d) for n, (st, d) in rows.items() if st == "unverified" and d.startswith("probe"))
        if differs:
            lines.append(f"Probe disagrees with torch ({len(differs)}): " +
                         ", ".join(f"`{n}` ({d[len('probe: '):]})" for n, d in differs))
            lines.append("")
        if lines[-1] == "":
            lines.pop()
    return "\n".join(lines) + "\n"


def main(argv):
    if "--oracle" in argv:
        oracle_main()
        return
    sys.path.insert(0, REPO_ROOT)
    os.environ.setdefault("GLOG_v", "3")
    result, version = census()
    text = render(result, version)
    if "--write" in argv:
        with open(DOC_PATH, "w", encoding="utf-8") as fh:
            fh.write(text)
        print(f"wrote {DOC_PATH}")
    else:
        sys.stdout.write(text)


if __name__ == "__main__":
    main(sys.argv[1:])
