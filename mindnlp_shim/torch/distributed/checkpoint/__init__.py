"""torch.distributed.checkpoint: not provided."""
