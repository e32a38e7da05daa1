"""torch.distributed.elastic.multiprocessing.errors: scripts decorate their entry point with `@record`.
The launcher reports a failed rank by its exit code and the rank's own traceback on stderr, so `record`
changes nothing."""
from ....run import ChildFailedError  # noqa: F401
from ..... import _stand_ins

record = _stand_ins.identity_decorator("the launcher reports a failed rank by its exit code and the rank's own "
                                       "traceback on stderr; no error file is written")
