"""torch.nn.attention.flex_attention: not provided (transformers imports the names; eager/sdpa attention works)."""
from ... import _stand_ins

BlockMask = _stand_ins.placeholder_type("torch.nn.attention.flex_attention.BlockMask")
AuxRequest = _stand_ins.placeholder_type("torch.nn.attention.flex_attention.AuxRequest")
_DEFAULT_SPARSE_BLOCK_SIZE = 128
create_block_mask = _stand_ins.unsupported("nn.attention.flex_attention.create_block_mask", "no flex attention")
flex_attention = _stand_ins.unsupported("nn.attention.flex_attention.flex_attention", "no flex attention")
