"""torch.nn.utils."""
from .clip_grad import clip_grad_norm_, clip_grad_norm, clip_grad_value_, get_total_norm, clip_grads_with_norm_  # noqa: F401
from . import rnn  # noqa: F401,E402  (torch.nn.utils.rnn.pad_sequence is reached as an attribute)
from . import parametrize, parametrizations  # noqa: F401,E402
from .weight_norm import weight_norm, remove_weight_norm  # noqa: F401,E402
from .convert_parameters import parameters_to_vector, vector_to_parameters  # noqa: F401,E402
