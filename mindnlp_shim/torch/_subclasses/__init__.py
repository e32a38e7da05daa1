"""torch._subclasses: FakeTensor never exists (no torch tracer runs here)."""
from .. import _stand_ins
from . import fake_tensor  # noqa: F401

FakeTensor = fake_tensor.FakeTensor
FakeTensorMode = fake_tensor.FakeTensorMode
