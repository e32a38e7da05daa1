from .. import _stand_ins

TransformGetItemToIndex = _stand_ins.placeholder_type("torch._dynamo._trace_wrapped_higher_order_op.TransformGetItemToIndex")
