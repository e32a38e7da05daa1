"""MindSpore's cluster scheduler (run with MS_ROLE=MS_SCHED): it forms the cluster and lives until the workers
have finished. msrun runs the user's whole script in this role; a process of its own keeps the scheduler from
importing the script's libraries."""
import os

os.environ.setdefault("GLOG_v", "3")

if __name__ == "__main__":
    from mindspore.communication import init

    init()
