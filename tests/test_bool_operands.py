"""Bool tensors given to shape, selection and reduction ops whose MindSpore kernels refuse bool ("The 'input x'
doesn't support 'torch.bool'"), against real torch: torch serves them all for bool (transformers' models build
bool attention masks and expand them for beams with repeat_interleave, ViT's sdpa test pads bool masks, ...)."""
import pytest

import mindnlp_shim.torch as mt
from conftest import SUBPROCESS_FLAG, outcome, real_torch, subprocess_fallback

rt = real_torch()
if rt is None:
    globals()[SUBPROCESS_FLAG] = True
    test_whole_module_in_subprocess = subprocess_fallback(__file__)


def _mask(T):
    return T.tensor([[True, False, True], [False, False, True]])


CALLS = {
    "repeat_interleave int dim 0": lambda T: _mask(T).repeat_interleave(2, dim=0),
    "repeat_interleave int dim 1": lambda T: T.repeat_interleave(_mask(T), 3, dim=1),
    "repeat_interleave flat": lambda T: T.repeat_interleave(_mask(T), 2),
    "repeat_interleave tensor repeats": lambda T: _mask(T).repeat_interleave(T.tensor([1, 3]), dim=0),
    "repeat_interleave one-element tensor": lambda T: _mask(T).repeat_interleave(T.tensor(2), dim=1),
    "repeat": lambda T: _mask(T).repeat(2, 1, 2),
    "tile": lambda T: T.tile(_mask(T), (2, 2)),
    "expand then contiguous": lambda T: _mask(T)[:, None, :].expand(2, 4, 3).contiguous(),
    "cat": lambda T: T.cat([_mask(T), _mask(T)], dim=1),
    "stack": lambda T: T.stack([_mask(T), ~_mask(T)]),
    "flip": lambda T: _mask(T).flip(1),
    "roll": lambda T: _mask(T).roll(1, 1),
    "gather": lambda T: _mask(T).gather(1, T.tensor([[2, 0], [1, 2]])),
    "index_select": lambda T: _mask(T).index_select(1, T.tensor([2, 0, 0])),
    "take_along_dim": lambda T: T.take_along_dim(_mask(T), T.tensor([[2], [0]]), dim=1),
    "advanced index": lambda T: _mask(T)[T.tensor([1, 0, 1])],
    "masked_fill": lambda T: _mask(T).masked_fill(T.tensor([True, False, False]), True),
    "where": lambda T: T.where(_mask(T), _mask(T), ~_mask(T)),
    "scatter": lambda T: T.zeros(2, 3, dtype=T.bool).scatter(1, T.tensor([[0], [2]]), True),
    "narrow": lambda T: _mask(T).narrow(1, 1, 2).contiguous(),
    "pad constant": lambda T: T.nn.functional.pad(_mask(T), (1, 2), value=True),
    "pad 4-d": lambda T: T.nn.functional.pad(_mask(T)[None, None], (0, 1, 1, 0)),
    "diagonal": lambda T: T.ones(3, 3, dtype=T.bool).tril().diagonal().contiguous(),
    "tril": lambda T: T.ones(3, 4, dtype=T.bool).tril(),
    "triu": lambda T: T.ones(3, 4, dtype=T.bool).triu(1),
    "unfold": lambda T: _mask(T).unfold(1, 2, 1).contiguous(),
    "sort": lambda T: _mask(T).sort(dim=1),
    "argsort": lambda T: _mask(T).argsort(dim=1, stable=True),
    "cumsum": lambda T: _mask(T).cumsum(1),
    "cumprod": lambda T: _mask(T).cumprod(1),
    "sum": lambda T: _mask(T).sum(1),
    "prod": lambda T: _mask(T).prod(1),
    "any": lambda T: _mask(T).any(1),
    "all": lambda T: _mask(T).all(1),
    "amax": lambda T: _mask(T).amax(1),
    "max dim": lambda T: _mask(T).max(1),
    "min": lambda T: _mask(T).min(),
    "eq": lambda T: _mask(T) == ~_mask(T),
    "logical_and": lambda T: _mask(T) & ~_mask(T),
    "xor": lambda T: _mask(T) ^ T.tensor([True, True, False]),
    "bitwise_not": lambda T: ~_mask(T),
    "mul": lambda T: _mask(T) * _mask(T),
    "add": lambda T: _mask(T) + _mask(T),
    "nonzero": lambda T: _mask(T).nonzero(),
    "unique": lambda T: _mask(T).unique(),
    "count_nonzero": lambda T: _mask(T).count_nonzero(1),
    "clone": lambda T: _mask(T).clone(),
    "transpose contiguous": lambda T: _mask(T).t().contiguous(),
    "flatten": lambda T: _mask(T).flatten(),
    "masked_select": lambda T: _mask(T).masked_select(T.tensor([True, False, True])),
    "index_put": lambda T: _mask(T).index_put((T.tensor([0, 1]), T.tensor([1, 1])), T.tensor(True)),
    "new_ones": lambda T: _mask(T).new_ones(2, 2),
    "full_like": lambda T: T.full_like(_mask(T), True),
    "chunk": lambda T: _mask(T).chunk(3, dim=1),
    "split": lambda T: _mask(T).split([1, 2], dim=1),
    "movedim contiguous": lambda T: _mask(T)[None].movedim(0, 2).contiguous(),
    "bmm of bools": lambda T: T.bmm(_mask(T)[None], _mask(T).t()[None]),
}


@pytest.mark.parametrize("name", sorted(CALLS))
def test_bool_operand_matches_torch(name):
    assert outcome(CALLS[name], mt) == outcome(CALLS[name], rt)
