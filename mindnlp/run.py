"""`python -m mindnlp.run`: torchrun for the PyTorch API on MindSpore (same arguments as torchrun).

    python -m mindnlp.run --nproc_per_node 2 train.py --my-args

See mindnlp_shim/torch/distributed/run.py and docs/distributed.md.
"""
from mindnlp_shim.torch.distributed.run import main

if __name__ == "__main__":
    main()
