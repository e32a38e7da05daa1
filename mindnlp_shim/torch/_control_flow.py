"""torch.cond and torch.while_loop, the structured control-flow operators, run eagerly: without a graph
compiler their meaning is the plain Python branch and loop."""

__all__ = ["cond", "while_loop"]


def _truth(pred):
    if hasattr(pred, "numel"):
        if pred.numel() != 1:
            raise RuntimeError(f"Expected pred to be bool or single-element tensor, but got {pred}.")
        return bool(pred.item())
    return bool(pred)


def cond(pred, true_fn, false_fn, operands=()):
    """true_fn(*operands) if pred else false_fn(*operands)."""
    if not isinstance(operands, (tuple, list)):
        raise RuntimeError(f"Expect operands to be a tuple of possibly nested dict/list/tuple that only consists "
                           f"of tensor leaves, but got {operands}.")
    return (true_fn if _truth(pred) else false_fn)(*operands)


def while_loop(cond_fn, body_fn, carried_inputs):
    """Applies body_fn to the carried values while cond_fn holds for them; answers the final values."""
    if not isinstance(carried_inputs, (tuple, list)):
        raise RuntimeError(f"carried_inputs must be a tuple or list, got {type(carried_inputs)}")
    carried = tuple(carried_inputs)
    while _truth(cond_fn(*carried)):
        carried = body_fn(*carried)
        carried = tuple(carried) if isinstance(carried, (tuple, list)) else (carried,)
    return carried
