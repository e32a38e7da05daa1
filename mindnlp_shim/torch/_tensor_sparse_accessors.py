"""The accessors of sparse tensors' parts (indices, values, compressed indices) and coalescing, on the strided
tensors that are the only layout here: torch's answer for a strided tensor is a RuntimeError naming the layout
the accessor needs, and so is the shim's (torch.sparse_coo_tensor and friends are not provided)."""
import mindspore

Tensor = mindspore.Tensor

# accessor -> the layout torch says it expects
EXPECTED_LAYOUT = {
    "indices": "sparse coordinate tensor", "values": "sparse tensor", "coalesce": "sparse coordinate tensor",
    "is_coalesced": "sparse coordinate tensor", "crow_indices": "sparse row compressed tensor",
    "col_indices": "sparse row compressed tensor", "ccol_indices": "sparse column compressed tensor",
    "row_indices": "sparse column compressed tensor",
}


def _accessor(name, layout):
    def accessor(self):
        raise RuntimeError(f"{name} expected {layout} layout but got Strided")

    accessor.__name__ = accessor.__qualname__ = name
    return accessor


def install():
    for name, layout in EXPECTED_LAYOUT.items():
        setattr(Tensor, name, _accessor(name, layout))
