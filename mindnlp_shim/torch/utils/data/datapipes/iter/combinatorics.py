"""torch.utils.data.datapipes.iter.combinatorics: accelerate's DataLoaderDispatcher (used for iterable datasets)
imports ShufflerIterDataPipe to ask whether a dataset is one. DataPipes (deprecated in PyTorch) are not
provided here, so no dataset is one: the placeholder answers that `isinstance` check truthfully."""
from ..... import _stand_ins

ShufflerIterDataPipe = _stand_ins.placeholder_type("torch.utils.data.datapipes.iter.combinatorics.ShufflerIterDataPipe")
