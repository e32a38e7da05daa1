"""Print, as JSON, the names the torch API's classes give themselves (`__module__`.`__qualname__`), torch.typename
of a module, the repr of a class, pickle round trips, and write a whole pickled model to the path given.
Run with `--shim` under the shim (import mindnlp first), without it under real torch."""
import importlib
import json
import pickle
import sys
import warnings

if "--shim" in sys.argv:
    import mindnlp  # noqa: F401

import torch

NAMESPACES = ("torch", "torch.nn", "torch.optim", "torch.optim.lr_scheduler", "torch.utils.data", "torch.distributions",
              "torch.nn.utils.parametrize", "torch.amp", "torch.autograd", "torch.nn.parallel", "torch.distributed",
              "torch.fx", "torch.nn.attention", "torch.utils.hooks", "torch.multiprocessing", "torch.cuda")


def class_names():
    names = {}
    for namespace in NAMESPACES:
        module = importlib.import_module(namespace)
        for attr in dir(module):
            if attr.startswith("_"):
                continue
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                value = getattr(module, attr, None)
            if isinstance(value, type):
                names[f"{namespace}.{attr}"] = f"{value.__module__}.{value.__qualname__}"
    return names


def main():
    nn = torch.nn
    out = {
        "classes": class_names(),
        "repr LSTM": repr(nn.LSTM),
        "str device class": str(torch.device),
        "typename Linear": torch.typename(nn.Linear(2, 2)),
        "pickled class is itself": pickle.loads(pickle.dumps(nn.LSTM)) is nn.LSTM,
        "pickled return type": repr(type(pickle.loads(pickle.dumps(torch.tensor([1.0, 3.0]).max(0))))),
        "lazy module registered": "torch.distributions.normal" in sys.modules,
        "unsupported layer warning": f"Unsupported layer type '{type(nn.LSTM(2, 3))}' encountered",
    }
    model = nn.Sequential(nn.Linear(3, 2), nn.ReLU())
    with torch.no_grad():
        model[0].weight.copy_(torch.arange(6.0).reshape(2, 3))
    torch.save(model, sys.argv[1])
    print(json.dumps(out))


main()
