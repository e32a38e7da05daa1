"""SummaryWriter.add_hparams against real torch: the event files both write for hypothesis-drawn hyperparameters
and metrics (run folder, tags, the hparams plugin's experiment / session start / session end data, metric
scalars, steps), read back with tensorboard's own loader, and torch's errors for bad arguments."""
import json
import os

os.environ.setdefault("GLOG_v", "3")

import pytest  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

pytest.importorskip("tensorboard")

import mindnlp_shim.torch as torch  # noqa: E402
from mindnlp_shim.torch.utils.tensorboard import SummaryWriter  # noqa: E402

from oracle import drawn_cases, require_torch, run_torch_json  # noqa: E402

# Writes the case's hparams with `SummaryWriter`, then reads every event under the log dir (both sides).
SCENARIO = r'''
import os
from google.protobuf.json_format import MessageToDict
from tensorboard.backend.event_processing.event_file_loader import EventFileLoader
from tensorboard.plugins.hparams import plugin_data_pb2

def write(SummaryWriter, case, log_dir, tensor=None):
    hparams = dict(case["hparams"])
    if tensor is not None and case["tensor"]:
        hparams["t"] = tensor([case["tensor"]])
    with SummaryWriter(log_dir) as w:
        w.add_hparams(hparams, case["metrics"], hparam_domain_discrete=case["discrete"] or None,
                      run_name=case["run"], global_step=case["step"])

def read(log_dir):
    runs = {}
    for folder, _, files in sorted(os.walk(log_dir)):
        for name in sorted(files):
            events = []
            for event in EventFileLoader(os.path.join(folder, name)).Load():
                d = MessageToDict(event)
                d.pop("wallTime", None)
                for value in d.get("summary", {}).get("value", []):
                    plugin = value.get("metadata", {}).get("pluginData", {})
                    if plugin.get("pluginName") == "hparams":
                        content = plugin_data_pb2.HParamsPluginData.FromString(
                            event.summary.value[0].metadata.plugin_data.content)
                        plugin["content"] = MessageToDict(content)
                events.append(d)
            runs.setdefault(os.path.relpath(folder, log_dir), []).append(events)
    return runs
'''

_names = st.sampled_from(["lr", "batch_size", "optimizer", "use_amp", "warmup", "dropout", "seed"])
_values = st.one_of(st.integers(-1000, 10**6), st.floats(-1e3, 1e3, allow_nan=False), st.booleans(),
                    st.text(alphabet="abcxyz_-", min_size=0, max_size=8), st.none())


@st.composite
def _case(draw):
    hparams = draw(st.dictionaries(_names, _values, max_size=5))
    discrete = {}
    for name, value in hparams.items():
        if value is not None and not isinstance(value, bool) and draw(st.booleans()):
            other = value + "z" if isinstance(value, str) else value * 0.5 if isinstance(value, float) else value + 1
            discrete[name] = [value, other]
    return {"hparams": hparams, "discrete": discrete,
            "metrics": draw(st.dictionaries(st.sampled_from(["loss", "acc", "hparam/f1"]),
                                            st.floats(-10, 10, allow_nan=False), max_size=3)),
            "run": draw(st.sampled_from(["run1", "a/b", "x"])), "step": draw(st.sampled_from([None, 0, 7])),
            "tensor": draw(st.sampled_from([None, 2.5]))}


CASES = drawn_cases(_case(), 30)


@pytest.fixture(scope="module")
def torch_answers(tmp_path_factory):
    require_torch()
    folder = tmp_path_factory.mktemp("tb_torch")
    code = SCENARIO + f"""
import json, torch
from torch.utils.tensorboard import SummaryWriter
cases = json.loads({json.dumps(CASES)!r})
out = []
for i, case in enumerate(cases):
    log_dir = os.path.join({str(folder)!r}, str(i))
    write(SummaryWriter, case, log_dir, torch.tensor)
    out.append(read(log_dir))
print(json.dumps(out))
"""
    return run_torch_json(code, timeout=600)


@pytest.mark.parametrize("index", range(len(CASES)))
def test_event_files_match_torch(torch_answers, index, tmp_path):
    namespace = {}
    exec(SCENARIO, namespace)
    log_dir = str(tmp_path / "logs")
    namespace["write"](SummaryWriter, CASES[index], log_dir, torch.tensor)
    ours = json.loads(json.dumps(namespace["read"](log_dir)))
    assert ours == torch_answers[index]


def test_default_run_name_is_the_time_and_bad_arguments_raise_torch_errors(tmp_path):
    with SummaryWriter(str(tmp_path)) as w:
        w.add_hparams({"lr": 0.1}, {"loss": 1.0})
    (run,) = [d for d in os.listdir(tmp_path) if os.path.isdir(tmp_path / d)]
    assert abs(float(run) - __import__("time").time()) < 600
    with SummaryWriter(str(tmp_path)) as w:
        with pytest.raises(TypeError, match="hparam_dict and metric_dict should be dictionary."):
            w.add_hparams([("lr", 0.1)], {})
        with pytest.raises(TypeError, match=r"hparam_domain_discrete\[lr\] should be a list of same type"):
            w.add_hparams({"lr": 0.1}, {}, hparam_domain_discrete={"lr": ["a"]})
        with pytest.raises(ValueError, match="value should be one of int, float, str, bool, or torch.Tensor"):
            w.add_hparams({"lr": [0.1]}, {})
