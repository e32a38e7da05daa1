"""torch.optim.swap_in_optimizer_params_and_state: run an optimizer's API on other parameters and state for the
duration of a `with` block, then put its own back."""
import contextlib
from collections import defaultdict
from itertools import chain

__all__ = ["swap_in_optimizer_params_and_state"]


@contextlib.contextmanager
def swap_in_optimizer_params_and_state(optimizer, swapin_parameters, swapin_optim_state):
    """`swapin_parameters`: name -> tensor, in the order of the optimizer's parameters; `swapin_optim_state`: a
    `state_dict()`-shaped dict whose "param_groups" give the groups' options and packed parameter ids. Inside
    the block `optimizer.param_groups` and `optimizer.state` refer to the swapped-in tensors (the state entries
    are the caller's tensors, so in-place updates reach them; a new tensor assigned into the state does not)."""
    params = list(swapin_parameters.values())
    live = list(chain.from_iterable(group["params"] for group in optimizer.param_groups))
    if len(params) != len(live):
        raise ValueError(f"swapin_parameters has {len(params)} tensors, the optimizer has {len(live)} parameters")
    groups = swapin_optim_state["param_groups"]
    if len(groups) != len(optimizer.param_groups):
        raise ValueError("swapin_optim_state has a different number of parameter groups than the optimizer")
    packed_ids = list(chain.from_iterable(group["params"] for group in groups))
    param_of = dict(zip(packed_ids, params))
    swapped_groups = [{**{k: v for k, v in group.items() if k != "params"},
                       "params": [param_of[i] for i in group["params"]]} for group in groups]
    swapped_state = defaultdict(dict)
    for key, value in swapin_optim_state["state"].items():
        swapped_state[param_of.get(key, key)] = dict(value)  # (a new dict: reassignments stay inside)
    saved = optimizer.param_groups, optimizer.state
    optimizer.param_groups, optimizer.state = swapped_groups, swapped_state
    try:
        yield optimizer
    finally:
        optimizer.param_groups, optimizer.state = saved
