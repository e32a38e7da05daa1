"""nn.CTCLoss: the module form of nn.functional.ctc_loss."""
from .. import functional as F
from .module import Module


class CTCLoss(Module):
    """(log_probs (T, N, C), targets, input_lengths, target_lengths) -> loss (see F.ctc_loss)."""

    def __init__(self, blank=0, reduction="mean", zero_infinity=False):
        super().__init__()
        self.blank = blank
        self.reduction = reduction
        self.zero_infinity = zero_infinity

    def forward(self, log_probs, targets, input_lengths, target_lengths):
        return F.ctc_loss(log_probs, targets, input_lengths, target_lengths, self.blank, self.reduction,
                          self.zero_infinity)
