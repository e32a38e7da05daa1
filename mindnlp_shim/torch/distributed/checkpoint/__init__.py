"""torch.distributed.checkpoint: the model state-dict functions (state_dict.py) and the HF storage stand-ins."""
