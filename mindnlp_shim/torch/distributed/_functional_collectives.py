from .. import _stand_ins

all_to_all_single_autograd = _stand_ins.unsupported("distributed._functional_collectives.all_to_all_single_autograd",
                                                    "no process groups")
wait_tensor = _stand_ins.unsupported("distributed._functional_collectives.wait_tensor", "no process groups")
