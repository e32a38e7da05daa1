"""MindSpore's dispatch thread and kernel workers get a core each on the CPU (mindnlp_shim/_cpu_threads.py);
the Python thread keeps every core, and MINDNLP_SHIM_PIN_THREADS=0 turns the placement off."""
import json
import os
import subprocess
import sys

import pytest

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

pytestmark = pytest.mark.skipif(
    not sys.platform.startswith("linux") or len(os.sched_getaffinity(0)) < 2, reason="needs Linux and 2+ cores"
)

_REPORT = """
import json, os
import mindnlp, torch
(torch.ones(512, 512) @ torch.ones(512, 512)).sum()  # large enough for MindSpore's kernels (host_small)
threads = {}
for tid in os.listdir("/proc/self/task"):
    with open(f"/proc/self/task/{tid}/comm") as f:
        threads.setdefault(f.read().strip(), []).append(sorted(os.sched_getaffinity(int(tid))))
print(json.dumps({"threads": threads, "main": sorted(os.sched_getaffinity(0))}))
"""


def _placement(**env):
    child_env = dict(os.environ, GLOG_v="3", PYTHONPATH=REPO, **env)
    out = subprocess.run([sys.executable, "-c", _REPORT], env=child_env, capture_output=True, text=True,
                         timeout=300, cwd=REPO)
    assert out.returncode == 0, out.stderr[-2000:]
    return json.loads(out.stdout.strip().splitlines()[-1])


def test_dispatch_and_kernel_threads_have_a_core_each_and_python_keeps_all():
    cores = sorted(os.sched_getaffinity(0))
    report = _placement()
    actor, = report["threads"]["ActorThread_0"]
    workers = report["threads"]["KernelThread_0"]
    assert actor == [cores[0]]
    assert all(len(w) == 1 and w != actor for w in workers)
    assert report["main"] == cores


def test_pinning_can_be_turned_off():
    cores = sorted(os.sched_getaffinity(0))
    report = _placement(MINDNLP_SHIM_PIN_THREADS="0")
    assert report["threads"]["ActorThread_0"] == [cores]
    assert all(w == cores for w in report["threads"]["KernelThread_0"])


def test_ranks_of_a_distributed_launch_keep_the_schedulers_placement():
    cores = sorted(os.sched_getaffinity(0))
    report = _placement(WORLD_SIZE="2", RANK="0")
    assert report["threads"]["ActorThread_0"] == [cores]


def test_a_multiprocessing_child_keeps_the_schedulers_placement(tmp_path):
    code = (
        "import multiprocessing as mp, os, json\n"
        "def child(q):\n"
        "    import mindnlp, torch\n"
        "    torch.ones(512, 512) @ torch.ones(512, 512)  # MindSpore's kernels: small ops run on the host\n"
        "    import time\n"
        "    for _ in range(100):  # on a busy machine the dispatch thread names itself a little after the first op\n"
        "        names = {}\n"
        "        for tid in os.listdir('/proc/self/task'):\n"
        "            names[open(f'/proc/self/task/{tid}/comm').read().strip()] = sorted(os.sched_getaffinity(int(tid)))\n"
        "        if 'ActorThread_0' in names:\n"
        "            break\n"
        "        time.sleep(0.1)\n"
        "    q.put(names)\n"
        "if __name__ == '__main__':\n"
        "    ctx = mp.get_context('spawn'); q = ctx.Queue(); p = ctx.Process(target=child, args=(q,)); p.start()\n"
        "    print(json.dumps(q.get(timeout=240))); p.join()\n"
    )
    script = tmp_path / "spawn_child.py"  # spawn re-imports the main module: it must be a file
    script.write_text(code)
    env = dict(os.environ, GLOG_v="3", PYTHONPATH=REPO)
    out = subprocess.run([sys.executable, str(script)], env=env, capture_output=True, text=True, timeout=300,
                         cwd=REPO)
    assert out.returncode == 0, out.stderr[-2000:]
    names = json.loads(out.stdout.strip().splitlines()[-1])
    assert names["ActorThread_0"] == sorted(os.sched_getaffinity(0))
