"""MultiheadAttention: attention from `query` to `key`/`value` over `num_heads` heads of embed_dim / num_heads.

Shapes: query (L, N, E) (or (N, L, E) with batch_first, or (L, E) unbatched), key/value (S, N, kdim/vdim);
returns (output (L, N, E), weights (N, L, S) averaged over heads, (N, H, L, S) per head, or None)."""
from .... import torch
from .. import functional as F, init
from ..parameter import Parameter
from .linear import Linear
from .module import Module


class NonDynamicallyQuantizableLinear(Linear):
    """The output projection's class (a Linear under another name, as torch)."""


class MultiheadAttention(Module):
    def __init__(self, embed_dim, num_heads, dropout=0.0, bias=True, add_bias_kv=False, add_zero_attn=False,
                 kdim=None, vdim=None, batch_first=False, device=None, dtype=None):
        if embed_dim <= 0 or num_heads <= 0:
            raise ValueError(f"embed_dim and num_heads must be greater than 0, got embed_dim={embed_dim} and "
                             f"num_heads={num_heads} instead")
        super().__init__()
        self.embed_dim = embed_dim
        self.kdim = kdim if kdim is not None else embed_dim
        self.vdim = vdim if vdim is not None else embed_dim
        self._qkv_same_embed_dim = self.kdim == embed_dim and self.vdim == embed_dim
        self.num_heads, self.dropout, self.batch_first = num_heads, dropout, batch_first
        self.head_dim = embed_dim // num_heads
        if self.head_dim * num_heads != embed_dim:
            raise AssertionError("embed_dim must be divisible by num_heads")
        if not self._qkv_same_embed_dim:
            self.q_proj_weight = Parameter(torch.empty((embed_dim, embed_dim), dtype=dtype))
            self.k_proj_weight = Parameter(torch.empty((embed_dim, self.kdim), dtype=dtype))
            self.v_proj_weight = Parameter(torch.empty((embed_dim, self.vdim), dtype=dtype))
            self.register_parameter("in_proj_weight", None)
        else:
            self.in_proj_weight = Parameter(torch.empty((3 * embed_dim, embed_dim), dtype=dtype))
            self.register_parameter("q_proj_weight", None)
            self.register_parameter("k_proj_weight", None)
            self.register_parameter("v_proj_weight", None)
        if bias:
            self.in_proj_bias = Parameter(torch.empty(3 * embed_dim, dtype=dtype))
        else:
            self.register_parameter("in_proj_bias", None)
        self.out_proj = NonDynamicallyQuantizableLinear(embed_dim, embed_dim, bias=bias, dtype=dtype)
        if add_bias_kv:
            self.bias_k = Parameter(torch.empty((1, 1, embed_dim), dtype=dtype))
            self.bias_v = Parameter(torch.empty((1, 1, embed_dim), dtype=dtype))
        else:
            self.bias_k = self.bias_v = None
        self.add_zero_attn = add_zero_attn
        self._reset_parameters()

    def _reset_parameters(self):
        if self._qkv_same_embed_dim:
            init.xavier_uniform_(self.in_proj_weight)
        else:
            init.xavier_uniform_(self.q_proj_weight)
            init.xavier_uniform_(self.k_proj_weight)
            init.xavier_uniform_(self.v_proj_weight)
        if self.in_proj_bias is not None:
            init.constant_(self.in_proj_bias, 0.0)
            init.constant_(self.out_proj.bias, 0.0)
        if self.bias_k is not None:
            init.xavier_normal_(self.bias_k)
        if self.bias_v is not None:
            init.xavier_normal_(self.bias_v)

    def merge_masks(self, attn_mask, key_padding_mask, query):
        """(mask, mask type) for a fused attention kernel, as torch documents it: the key padding mask alone is
        type 1; an attention mask (seq, seq) or (batch * heads, seq, seq) is type 2, made (batch, heads, seq, seq),
        and with a key padding mask (batch, seq) beside it the two are added (a logical or for bool masks);
        (None, None) without masks. `query` is (batch, seq, embed)."""
        if attn_mask is None:
            return (key_padding_mask, 1) if key_padding_mask is not None else (None, None)
        batch, seq = query.shape[0], query.shape[1]
        if attn_mask.dim() == 3:
            merged = attn_mask.view(batch, -1, seq, seq)
        else:
            merged = attn_mask.view(1, 1, seq, seq).expand(batch, self.num_heads, -1, -1)
        if key_padding_mask is not None:
            merged = merged + key_padding_mask.view(batch, 1, 1, seq).expand(-1, self.num_heads, -1, -1)
        return merged, 2

    def forward(self, query, key, value, key_padding_mask=None, need_weights=True, attn_mask=None,
                average_attn_weights=True, is_causal=False):
        if self.batch_first and query.dim() == 3:
            # (N, L, E) -> (L, N, E), keeping `key is value` (and `query is key`) so the packed path is taken
            if key is value:
                if query is key:
                    query = key = value = query.transpose(1, 0)
                else:
                    query, key = query.transpose(1, 0), key.transpose(1, 0)
                    value = key
            else:
                query, key, value = (x.transpose(1, 0) for x in (query, key, value))
        out, weights = F.multi_head_attention_forward(
            query, key, value, self.embed_dim, self.num_heads, self.in_proj_weight, self.in_proj_bias, self.bias_k,
            self.bias_v, self.add_zero_attn, self.dropout, self.out_proj.weight, self.out_proj.bias,
            training=self.training, key_padding_mask=key_padding_mask, need_weights=need_weights,
            attn_mask=attn_mask, use_separate_proj_weight=not self._qkv_same_embed_dim,
            q_proj_weight=self.q_proj_weight, k_proj_weight=self.k_proj_weight, v_proj_weight=self.v_proj_weight,
            average_attn_weights=average_attn_weights, is_causal=is_causal)
        if self.batch_first and query.dim() == 3:
            return out.transpose(1, 0), weights
        return out, weights
