"""torch.distributed.elastic: only what training scripts import from it (the `record` decorator)."""
