"""torch.types: type aliases used in annotations."""
from typing import Union

import mindspore

from ._device import device

Number = Union[int, float, bool]
Device = Union[device, str, int, None]
_dtype = mindspore.dtype.Type
Tensor = mindspore.Tensor
