"""torch.multiprocessing.spawn / start_processes under the shim give what real torch gives: the function runs in
each process (with the shim's torch there), join returns or raises ProcessRaisedException with the child's
traceback, ProcessExitedException with the exit code or signal (tests/scripts/spawn_processes.py)."""
import json

from oracle import run_torch
from shim_runner import run_shim_json, script



def test_spawn_matches_torch():
    ours = run_shim_json([script("spawn_processes.py"), "shim"], timeout=600)
    theirs = json.loads(run_torch(f"import runpy, sys; sys.argv = ['x', 'real']; "
                                  f"runpy.run_path({script('spawn_processes.py')!r}, run_name='__main__')",
                                  timeout=600).strip().splitlines()[-1])
    assert ours == theirs
    assert ours["files"] == {"0": "0.0", "1": "3.0"}
    assert ours["killed"][2] == "SIGKILL"
