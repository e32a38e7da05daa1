"""torch._higher_order_ops: the structured operators torch's graph compiler captures whole. Without a compiler
they have a plain eager meaning, which is what is provided here (cond and while_loop are the same functions as
torch.cond and torch.while_loop)."""
from .._control_flow import cond, while_loop  # noqa: F401
from .associative_scan import associative_scan  # noqa: F401

__all__ = ["associative_scan", "cond", "while_loop"]
