"""torch.fx.proxy: `Proxy`, the stand-in value a traced forward computes with; every operation on it adds a
node to the tracer's graph. Python operators become `call_function` nodes of the `operator` functions, method
calls `call_method` nodes, attribute reads `getattr` calls."""
import operator

from .node import Node


class TraceError(ValueError):
    pass


class Proxy:
    def __init__(self, node, tracer=None):
        self.node = node
        self.tracer = tracer

    def __repr__(self):
        return f"Proxy({self.node.name})"

    def __getattr__(self, name):
        if name.startswith("__") and name.endswith("__"):
            raise AttributeError(name)
        return Attribute(self, name)

    def __call__(self, *args, **kwargs):
        return self.tracer.create_proxy("call_method", "__call__", (self,) + args, kwargs)

    def __iter__(self):
        raise TraceError("Proxy object cannot be iterated. This can be attempted when the Proxy is used in a loop "
                         "or as a *args or **kwargs function argument. See the torch.fx docs on pytorch.org for a "
                         "more detailed explanation of what types of control flow can be traced, and check out the "
                         "Proxy docstring for help troubleshooting Proxy iteration errors")

    def __bool__(self):
        raise TraceError("symbolically traced variables cannot be used as inputs to control flow")

    def __len__(self):
        raise RuntimeError("'len' is not supported in symbolic tracing by default. If you want this call to be "
                           "recorded, please call torch.fx.wrap('len') at module scope")

    def keys(self):
        return self.tracer.create_proxy("call_method", "keys", (self,), {})

    def __index__(self):
        raise TraceError("symbolically traced variables cannot be used as indices")


class Attribute(Proxy):
    """`proxy.name`: a method call when called, else a `getattr` node made on first use."""

    def __init__(self, root, attr):
        self.root = root
        self.attr = attr
        self.tracer = root.tracer
        self._node = None

    @property
    def node(self):
        if self._node is None:
            self._node = self.tracer.create_proxy("call_function", getattr, (self.root, self.attr), {}).node
        return self._node

    def __call__(self, *args, **kwargs):
        return self.tracer.create_proxy("call_method", self.attr, (self.root,) + args, kwargs)


def _binary(fn):
    def method(self, other):
        return self.tracer.create_proxy("call_function", fn, (self, other), {})

    return method


def _reflected(fn):
    def method(self, other):
        return self.tracer.create_proxy("call_function", fn, (other, self), {})

    return method


def _unary(fn):
    def method(self):
        return self.tracer.create_proxy("call_function", fn, (self,), {})

    return method


_BINARY = {"add": operator.add, "sub": operator.sub, "mul": operator.mul, "truediv": operator.truediv,
           "floordiv": operator.floordiv, "mod": operator.mod, "pow": operator.pow, "matmul": operator.matmul,
           "and": operator.and_, "or": operator.or_, "xor": operator.xor, "lshift": operator.lshift,
           "rshift": operator.rshift}
_COMPARISON = {"eq": operator.eq, "ne": operator.ne, "lt": operator.lt, "le": operator.le, "gt": operator.gt,
               "ge": operator.ge, "getitem": operator.getitem, "contains": operator.contains}
_UNARY = {"neg": operator.neg, "pos": operator.pos, "invert": operator.invert, "abs": operator.abs}

for _name, _fn in _BINARY.items():
    setattr(Proxy, f"__{_name}__", _binary(_fn))
    setattr(Proxy, f"__r{_name}__", _reflected(_fn))
for _name, _fn in _COMPARISON.items():
    setattr(Proxy, f"__{_name}__", _binary(_fn))
for _name, _fn in _UNARY.items():
    setattr(Proxy, f"__{_name}__", _unary(_fn))
Proxy.__hash__ = object.__hash__


def contains_proxy(value):
    if isinstance(value, Proxy):
        return True
    if isinstance(value, (tuple, list)):
        return any(contains_proxy(v) for v in value)
    if isinstance(value, dict):
        return any(contains_proxy(v) for v in value.values())
    if isinstance(value, slice):
        return contains_proxy((value.start, value.stop, value.step))
    return False


__all__ = ["Proxy", "Attribute", "TraceError", "Node"]
