"""How every benchmark command runs its children and prints its tables (no torch, no mindspore here).

Each measurement runs in a fresh interpreter, so the shim, real torch and plain MindSpore never share a process,
and the child reports exactly one JSON line on stdout.
"""
import json
import os
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
REPO_ROOT = os.path.dirname(HERE)


def child_environment(extra=None):
    env = dict(os.environ)
    env.setdefault("GLOG_v", "3")  # MindSpore's log noise
    env.setdefault("TOKENIZERS_PARALLELISM", "false")
    env.setdefault("HF_HUB_OFFLINE", "1")  # every model and data set here is local
    env.update(extra or {})
    return env


def run_child(script_args, timeout, verbose, env=None, cwd=HERE):
    """Run `python <benchmarks/script> args...`; returns its JSON result, or {"error": ...} built from what it left."""
    command = [sys.executable, os.path.join(HERE, script_args[0])] + list(script_args[1:])
    started = time.perf_counter()
    try:
        completed = subprocess.run(
            command, cwd=cwd, env=child_environment(env), capture_output=True, text=True, timeout=timeout
        )
    except subprocess.TimeoutExpired:
        return {"error": f"timed out after {timeout:.0f} s"}
    if verbose and completed.stderr:
        sys.stderr.write(completed.stderr)
    result = last_json_line(completed.stdout)
    if result is None:
        tail = [line for line in completed.stderr.strip().splitlines() if line.strip()]
        result = {"error": f"exit code {completed.returncode}: {tail[-1] if tail else 'no output'}"[:300]}
    result["wall_s"] = time.perf_counter() - started
    return result


def last_json_line(stdout):
    for line in reversed(stdout.strip().splitlines()):
        if line.startswith("{"):
            try:
                return json.loads(line)
            except ValueError:
                continue
    return None


def emit_json_line(result):
    """The child's report: exactly one JSON line on stdout."""
    sys.stdout.write(json.dumps(result) + "\n")
    sys.stdout.flush()


def load_average():
    return round(os.getloadavg()[0], 2)


def machine_line():
    return f"cpus {os.cpu_count()}, load average {load_average():.2f}; python {sys.executable}"


def write_json(path, data):
    directory = os.path.dirname(os.path.abspath(path))
    os.makedirs(directory, exist_ok=True)
    with open(path, "w") as f:
        json.dump(data, f, indent=2)
        f.write("\n")


def print_markdown(lines):
    widths = [max(len(str(line[i])) for line in lines) for i in range(len(lines[0]))]
    for index, line in enumerate(lines):
        print("| " + " | ".join(str(cell).ljust(width) for cell, width in zip(line, widths)) + " |")
        if index == 0:
            print("|" + "|".join("-" * (width + 2) for width in widths) + "|")


def split_choices(parser, text, allowed):
    chosen = [item.strip() for item in text.split(",") if item.strip()]
    unknown = [item for item in chosen if item not in allowed]
    if unknown or not chosen:
        parser.error(f"unknown choice(s) {unknown}; allowed: {', '.join(allowed)}")
    return chosen
