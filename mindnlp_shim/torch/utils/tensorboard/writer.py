"""torch.utils.tensorboard.SummaryWriter: scalars and text as TensorBoard event files.

Events go through the `tensorboard` package's own EventFileWriter and protocol buffers, so TensorBoard reads
them as it reads PyTorch's. What the Trainer's TensorBoardCallback and typical scripts log is covered:
`add_scalar`, `add_scalars`, `add_text`, `add_hparams`, `flush`, `close`. The other summary kinds (histograms,
images, audio, graphs, embeddings, ...) raise NotImplementedError naming the method.
"""
import os
import socket
import time
from datetime import datetime

from tensorboard.compat.proto import event_pb2, summary_pb2, tensor_pb2, tensor_shape_pb2, types_pb2
from tensorboard.summary.writer.event_file_writer import EventFileWriter

from . import _hparams


def _default_log_dir(comment):
    # torch's default: runs/<Mon DD_HH-MM-SS>_<hostname><comment>
    stamp = datetime.now().strftime("%b%d_%H-%M-%S")
    return os.path.join("runs", f"{stamp}_{socket.gethostname()}{comment}")


def _as_float(value):
    if hasattr(value, "item"):  # a 0-dim/1-element tensor or NumPy scalar
        value = value.item()
    return float(value)


def _scalar_summary(tag, value):
    return summary_pb2.Summary(value=[summary_pb2.Summary.Value(tag=tag, simple_value=_as_float(value))])


def _text_summary(tag, text):
    # the text plugin's format: a string tensor, tagged "<tag>/text_summary" as torch does
    metadata = summary_pb2.SummaryMetadata(plugin_data=summary_pb2.SummaryMetadata.PluginData(plugin_name="text"))
    tensor = tensor_pb2.TensorProto(dtype=types_pb2.DT_STRING, string_val=[text.encode("utf-8")],
                                    tensor_shape=tensor_shape_pb2.TensorShapeProto(
                                        dim=[tensor_shape_pb2.TensorShapeProto.Dim(size=1)]))
    return summary_pb2.Summary(value=[summary_pb2.Summary.Value(tag=tag + "/text_summary", metadata=metadata,
                                                                tensor=tensor)])


class SummaryWriter:
    """Writes summaries to an event file in `log_dir` (default `runs/<time>_<host><comment>`)."""

    def __init__(self, log_dir=None, comment="", purge_step=None, max_queue=10, flush_secs=120,
                 filename_suffix=""):
        if purge_step is not None:
            raise NotImplementedError("torch.utils.tensorboard.SummaryWriter(purge_step=...) is not supported by "
                                      "mindnlp-shim: it does not rewrite earlier events of a crashed run")
        self.log_dir = str(log_dir) if log_dir is not None else _default_log_dir(comment)
        self._writer = EventFileWriter(self.log_dir, max_queue, flush_secs, filename_suffix)

    def get_logdir(self):
        return self.log_dir

    def _add(self, summary, global_step, walltime):
        event = event_pb2.Event(summary=summary, wall_time=time.time() if walltime is None else float(walltime))
        if global_step is not None:
            event.step = int(_as_float(global_step))
        self._writer.add_event(event)

    def add_scalar(self, tag, scalar_value, global_step=None, walltime=None, new_style=False,
                   double_precision=False):
        # always the classic simple_value form (TensorBoard shows both forms alike)
        self._add(_scalar_summary(tag, scalar_value), global_step, walltime)

    def add_scalars(self, main_tag, tag_scalar_dict, global_step=None, walltime=None):
        # torch writes each series to its own writer under <log_dir>/<main_tag>_<tag>, tagged main_tag
        walltime = time.time() if walltime is None else walltime
        if not hasattr(self, "_children"):
            self._children = {}
        for tag, value in tag_scalar_dict.items():
            folder = os.path.join(self.log_dir, f"{main_tag.replace('/', '_')}_{tag}")
            if folder not in self._children:
                self._children[folder] = SummaryWriter(folder)
            self._children[folder].add_scalar(main_tag, value, global_step, walltime)

    def add_text(self, tag, text_string, global_step=None, walltime=None):
        self._add(_text_summary(tag, str(text_string)), global_step, walltime)

    def add_hparams(self, hparam_dict, metric_dict, hparam_domain_discrete=None, run_name=None,
                    global_step=None):
        """The hparams plugin's experiment, session start and end summaries, then each metric as a scalar,
        in a run of their own: `<log_dir>/<run_name>` (default: the current time in seconds)."""
        if type(hparam_dict) is not dict or type(metric_dict) is not dict:
            raise TypeError("hparam_dict and metric_dict should be dictionary.")
        summaries = _hparams.hparams(hparam_dict, metric_dict, hparam_domain_discrete)
        run = SummaryWriter(log_dir=os.path.join(self.log_dir, run_name or str(time.time())))
        with run:
            for summary in summaries:
                run._add(summary, global_step, None)
            for tag, value in metric_dict.items():
                run.add_scalar(tag, value, global_step)

    def flush(self):
        self._writer.flush()
        for child in getattr(self, "_children", {}).values():
            child.flush()

    def close(self):
        self._writer.close()
        for child in getattr(self, "_children", {}).values():
            child.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()


def _unsupported(name):
    def method(self, *args, **kwargs):
        raise NotImplementedError(f"torch.utils.tensorboard.SummaryWriter.{name} is not supported by mindnlp-shim: "
                                  f"only add_scalar, add_scalars, add_text and add_hparams are written")
    method.__name__ = name
    return method


for _name in ("add_histogram", "add_histogram_raw", "add_image", "add_images", "add_image_with_boxes",
              "add_figure", "add_video", "add_audio", "add_graph", "add_embedding", "add_pr_curve",
              "add_pr_curve_raw", "add_custom_scalars", "add_custom_scalars_multilinechart",
              "add_custom_scalars_marginchart", "add_mesh", "add_onnx_graph", "add_tensor"):
    setattr(SummaryWriter, _name, _unsupported(_name))

