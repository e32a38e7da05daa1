"""Run transformers' own common model tests (ModelTesterMixin, ConfigTester, TrainingTesterMixin from the
installed release's sdist) for BERT, GPT-2, Llama, T5, Mistral, Qwen2, OPT, BART, Mixtral, GPT-NeoX, Qwen3,
Gemma 2, Gemma 3 (text), Phi-3, Falcon, Marian, mT5, RoBERTa, XLM-RoBERTa, DistilBERT, ALBERT, ELECTRA, DeBERTa-v2
and ModernBERT
under the shim, and print
passed/failed/skipped per model.

    python tests/upstream/run.py [--models bert gpt2] [-k EXPR] [--failures] [--keep] [--side torch]

The sdist is downloaded at run time into ~/.cache/mindnlp-shim-upstream (override with
MINDNLP_SHIM_UPSTREAM_CACHE) and never committed. Each model runs in its own pytest process so a crash in
one model's tests cannot hide the others' results."""
import argparse
import os
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
REPO_ROOT = os.path.dirname(os.path.dirname(HERE))

import package  # noqa: E402
import results  # noqa: E402
import sdist  # noqa: E402


def run_model(test_file, junit_path, log_path, keyword=None, timeout=3600, side="shim"):
    """Run one model's test file with pytest in a fresh interpreter, under the shim or (side "torch") real torch;
    its output goes to log_path."""
    cmd = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-rN", "--tb=short",
           f"--junitxml={junit_path}", test_file]
    if keyword:
        cmd += ["-k", keyword]
    env = dict(os.environ, MINDNLP_SHIM_REPO=REPO_ROOT, GLOG_v="3", MINDNLP_SHIM_UPSTREAM_SIDE=side)
    with open(log_path, "w") as log:
        proc = subprocess.run(cmd, cwd=os.path.dirname(test_file), env=env, stdout=log, stderr=subprocess.STDOUT,
                              timeout=timeout)
    return proc.returncode


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--models", nargs="+", default=list(package.MODELS), choices=package.MODELS)
    parser.add_argument("-k", dest="keyword", help="pytest -k expression to select tests")
    parser.add_argument("--failures", action="store_true", help="list each failing test with its message")
    parser.add_argument("--keep", action="store_true", help="keep the temporary test tree and junit files")
    parser.add_argument("--side", choices=("shim", "torch"), default="shim",
                        help="run under the shim (default) or under real torch, to see which tests torch passes")
    args = parser.parse_args(argv)

    archive = sdist.ensure_sdist()
    root = tempfile.mkdtemp(prefix="mindnlp-shim-upstream-")
    try:
        tests = package.build(root, archive, args.models)
        rows = []
        for model in args.models:
            junit = os.path.join(root, f"junit-{model}.xml")
            log = os.path.join(root, f"pytest-{model}.log")
            print(f"running {model} (output in {log})", flush=True)
            code = run_model(tests[model], junit, log, args.keyword, side=args.side)
            if not os.path.exists(junit):
                with open(log) as fh:
                    print(f"{model}: pytest produced no results (exit {code})\n{fh.read()[-3000:]}")
                rows.append((model, None))
                continue
            counts = results.parse_junit(junit)
            rows.append((model, counts))
            if args.failures:
                for test_id, message in counts["failures"]:
                    print(f"FAILED {model} {test_id}: {message}")
        under = "mindnlp-shim" if args.side == "shim" else "real torch"
        print(f"\ntransformers {sdist.TRANSFORMERS_VERSION} common tests under {under}")
        print(f"{'model':<12}{'passed':>8}{'failed':>8}{'skipped':>9}{'pass rate':>11}")
        for model, counts in rows:
            if counts is None:
                print(f"{model:<12}{'crashed':>8}")
                continue
            rate = results.pass_rate(counts)
            rate_text = f"{100 * rate:.1f}%" if rate is not None else "-"
            print(f"{model:<12}{counts['passed']:>8}{counts['failed']:>8}{counts['skipped']:>9}{rate_text:>11}")
        if args.keep:
            print(f"test tree and junit files kept in {root}")
    finally:
        if not args.keep:
            shutil.rmtree(root, ignore_errors=True)
    return 0 if all(c is not None and c["failed"] == 0 for _, c in rows) else 1


if __name__ == "__main__":
    sys.exit(main())
