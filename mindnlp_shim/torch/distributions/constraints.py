"""torch.distributions.constraints: not provided (imported by peft only)."""
