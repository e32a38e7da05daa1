from ... import _stand_ins

compute_local_shape_and_global_offset = _stand_ins.unsupported(
    "distributed.tensor._utils.compute_local_shape_and_global_offset", "DTensor is not provided")
