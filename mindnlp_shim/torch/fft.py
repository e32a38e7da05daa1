"""torch.fft: not provided yet."""
from . import _stand_ins

fft = _stand_ins.unsupported("fft.fft", "FFTs are not implemented by mindnlp-shim yet")
ifft = _stand_ins.unsupported("fft.ifft", "FFTs are not implemented by mindnlp-shim yet")
rfft = _stand_ins.unsupported("fft.rfft", "FFTs are not implemented by mindnlp-shim yet")
irfft = _stand_ins.unsupported("fft.irfft", "FFTs are not implemented by mindnlp-shim yet")
