"""torch.device compared with devices, strings and other objects, against real torch: a device equals only a
device (`device("cpu") == "cpu"` is False in torch), so a string naming no device type, such as the "disk" of
an offloading device_map that transformers looks for with `"disk" in device_map.values()`, compares unequal
instead of raising."""
import pytest

import mindnlp_shim.torch as mt
from conftest import SUBPROCESS_FLAG, outcome, real_torch, subprocess_fallback

rt = real_torch()
if rt is None:
    globals()[SUBPROCESS_FLAG] = True
    test_whole_module_in_subprocess = subprocess_fallback(__file__)

OTHERS = {"same device": lambda T: T.device("cpu"), "string cpu": lambda T: "cpu", "string disk": lambda T: "disk",
          "string cuda:0": lambda T: "cuda:0", "meta device": lambda T: T.device("meta"), "int": lambda T: 0,
          "None": lambda T: None, "indexed cuda": lambda T: T.device("cuda", 0)}
DEVICES = {"cpu": lambda T: T.device("cpu"), "cuda:0": lambda T: T.device("cuda:0"), "meta": lambda T: T.device("meta")}


@pytest.mark.parametrize("other", sorted(OTHERS))
@pytest.mark.parametrize("dev", sorted(DEVICES))
def test_device_comparison_matches_torch(dev, other):
    def call(T):
        d, o = DEVICES[dev](T), OTHERS[other](T)
        return [d == o, o == d, d != o, o != d, d in [o], d in {o: 1} if isinstance(o, T.device) else None]

    assert outcome(call, mt) == outcome(call, rt)


def test_disk_in_a_device_map_matches_torch():
    def call(T):
        device_map = {"": T.device("cpu"), "lm_head": T.device("cpu")}
        return ["disk" in device_map.values(), "cpu" in device_map.values(), T.device("cpu") in device_map.values()]

    assert outcome(call, mt) == outcome(call, rt)
