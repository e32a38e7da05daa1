"""The three summaries of TensorBoard's hparams plugin that torch's `SummaryWriter.add_hparams` writes: the
experiment (each hyperparameter's name, type and optional discrete domain, each metric's tag), the session
start (the values) and the session end (status success), each as plugin data of the "hparams" plugin.

Numbers (bools included, as torch files them: a bool is an int) are FLOAT64 hyperparameters, strings STRING
ones; a one-element tensor counts as its number; None values are left out.
"""
from google.protobuf import struct_pb2
from tensorboard.compat.proto import summary_pb2
from tensorboard.plugins.hparams import api_pb2, metadata, plugin_data_pb2


def _plugin_summary(tag, **content):
    data = plugin_data_pb2.HParamsPluginData(version=metadata.PLUGIN_DATA_VERSION, **content)
    plugin = summary_pb2.SummaryMetadata.PluginData(plugin_name=metadata.PLUGIN_NAME,
                                                    content=data.SerializeToString())
    return summary_pb2.Summary(value=[summary_pb2.Summary.Value(
        tag=tag, metadata=summary_pb2.SummaryMetadata(plugin_data=plugin))])


def _check(hparam_dict, metric_dict, discrete):
    if not isinstance(hparam_dict, dict):
        raise TypeError("parameter: hparam_dict should be a dictionary, nothing logged.")
    if not isinstance(metric_dict, dict):
        raise TypeError("parameter: metric_dict should be a dictionary, nothing logged.")
    if not isinstance(discrete, dict):
        raise TypeError("parameter: hparam_domain_discrete should be a dictionary, nothing logged.")
    for name, domain in discrete.items():
        if (name not in hparam_dict or not isinstance(domain, list)
                or not all(isinstance(d, type(hparam_dict[name])) for d in domain)):
            raise TypeError(f"parameter: hparam_domain_discrete[{name}] should be a list of same type as "
                            f"hparam_dict[{name}].")


def hparams(hparam_dict=None, metric_dict=None, hparam_domain_discrete=None):
    """(experiment, session start, session end) summaries for `hparam_dict` and the metric tags of
    `metric_dict`, as torch's `torch.utils.tensorboard.summary.hparams`."""
    from mindspore import Tensor

    discrete = hparam_domain_discrete or {}
    _check(hparam_dict, metric_dict, discrete)
    start = plugin_data_pb2.SessionStartInfo()
    infos = []
    for name, value in hparam_dict.items():
        if value is None:
            continue
        tensor = isinstance(value, Tensor)
        if tensor:
            value = value.asnumpy().reshape(-1)[0].item()  # (its first element, as torch reads one)
            kind, field = "DATA_TYPE_FLOAT64", "number_value"
        elif isinstance(value, (int, float)):
            kind, field = "DATA_TYPE_FLOAT64", "number_value"
        elif isinstance(value, str):
            kind, field = "DATA_TYPE_STRING", "string_value"
        else:
            raise ValueError("value should be one of int, float, str, bool, or torch.Tensor")
        setattr(start.hparams[name], field, value)
        domain = None
        if name in discrete and not tensor:  # (torch gives a tensor hyperparameter no domain)
            domain = struct_pb2.ListValue(values=[struct_pb2.Value(**{field: d}) for d in discrete[name]])
        infos.append(api_pb2.HParamInfo(name=name, type=api_pb2.DataType.Value(kind), domain_discrete=domain))
    experiment = api_pb2.Experiment(hparam_infos=infos,
                                    metric_infos=[api_pb2.MetricInfo(name=api_pb2.MetricName(tag=tag))
                                                  for tag in metric_dict])
    end = plugin_data_pb2.SessionEndInfo(status=api_pb2.Status.Value("STATUS_SUCCESS"))
    return (_plugin_summary(metadata.EXPERIMENT_TAG, experiment=experiment),
            _plugin_summary(metadata.SESSION_START_INFO_TAG, session_start_info=start),
            _plugin_summary(metadata.SESSION_END_INFO_TAG, session_end_info=end))
