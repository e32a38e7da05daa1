"""torch.fx's symbolic tracer: `Tracer`, `symbolic_trace` and `wrap`.

The forward runs once with Proxy values for its arguments. What each operation records:
- a call of a leaf module (torch.nn's own modules but the containers): a `call_module` node, not run;
- a parameter read in a forward (`self.weight`), or a tensor of the module passed to an op: a `get_attr` node;
- a function of `torch`, `torch.nn.functional`, `torch.linalg`, `torch.special`, `torch.fft` (and functions
  named to `wrap`) called with a Proxy anywhere in its arguments: a `call_function` node. torch finds these
  through `__torch_function__`; the shim, whose tensors have no such protocol, swaps those namespaces'
  functions for recording ones while it traces, so a function bound under another name before tracing
  (`from torch import relu`) is not seen and fails on the Proxy with an error;
- Python operators, methods and attributes of a Proxy: see proxy.py.
Control flow on a traced value raises TraceError, as in torch."""
import builtins
import functools
import importlib
import inspect
import sys
import types

from ..nn.modules.module import Module
from ..nn.parameter import Parameter
from .graph import Graph
from .graph_module import GraphModule
from .node import Node, map_aggregate
from .proxy import Proxy, contains_proxy

# namespace: the prefix of its functions' names in torch (`torch.linalg.vector_norm.__name__` is
# "linalg_vector_norm"), which names their nodes
_TRACED_NAMESPACES = {"mindnlp_shim.torch": "", "mindnlp_shim.torch.nn.functional": "",
                      "mindnlp_shim.torch.linalg": "linalg_", "mindnlp_shim.torch.special": "special_",
                      "mindnlp_shim.torch.fft": "fft_"}
# module types that are torch.nn's own (the shim's modules live under its package name)
_NN_PREFIXES = ("torch.nn", "torch.ao.nn", "mindnlp_shim.torch.nn")
_CONTAINERS = ("Sequential", "ModuleList", "ModuleDict")

# names given to `wrap`: (the globals dict of the module that named them, the name)
_wrapped_names = []


def wrap(fn_or_name):
    """Record calls of a module-level function as `call_function` nodes instead of tracing through them.
    Called at module scope with the function or its name; returns its argument."""
    if callable(fn_or_name):
        name = fn_or_name.__name__
    elif isinstance(fn_or_name, str):
        name = fn_or_name
    else:
        raise AssertionError("Unsupported type for global function! Must be either a callable or string name")
    caller = sys._getframe(1)
    if caller.f_code.co_name != "<module>":
        raise NotImplementedError("wrap must be called at the top level of a module")
    _wrapped_names.append((caller.f_globals, name))
    return fn_or_name


def _is_traceable_function(value):
    return isinstance(value, (types.FunctionType, types.BuiltinFunctionType, functools.partial)) and \
        not isinstance(value, type)


@functools.lru_cache(maxsize=None)
def _named_alias(fn, name):
    """`fn` under torch's name for it (the node's target; one alias per function, so targets compare equal)."""
    @functools.wraps(fn)
    def alias(*args, **kwargs):
        return fn(*args, **kwargs)

    alias.__name__ = alias.__qualname__ = name
    return alias


class _Patcher:
    """Swaps attributes for the trace's duration and puts every one back."""

    def __init__(self):
        self._saved = []

    def set(self, holder, name, value, *, in_dict=False):
        if in_dict:
            self._saved.append((holder, name, holder.get(name, _MISSING), True))
            holder[name] = value
        else:
            self._saved.append((holder, name, holder.__dict__.get(name, _MISSING), False))
            setattr(holder, name, value)

    def restore(self):
        for holder, name, old, in_dict in reversed(self._saved):
            if in_dict:
                if old is _MISSING:
                    holder.pop(name, None)
                else:
                    holder[name] = old
            elif old is _MISSING:
                delattr(holder, name)
            else:
                setattr(holder, name, old)
        self._saved.clear()


_MISSING = object()


class Tracer:
    def __init__(self, autowrap_modules=(), autowrap_functions=(), param_shapes_constant=False):
        self.autowrap_functions = tuple(autowrap_functions)
        self.param_shapes_constant = param_shapes_constant
        self.graph = None
        self.root = None

    # -------------------------------------------------------------- what becomes a node
    def is_leaf_module(self, m, module_qualified_name):
        module_name = type(m).__module__ or ""
        return module_name.startswith(_NN_PREFIXES) and type(m).__name__ not in _CONTAINERS

    def path_of_module(self, mod):
        for name, candidate in self.root.named_modules():
            if candidate is mod:
                return name
        raise NameError("module is not installed as a submodule")

    def call_module(self, m, forward, args, kwargs):
        name = self.path_of_module(m)
        if not self.is_leaf_module(m, name):
            return forward(*args, **kwargs)
        return self.create_proxy("call_module", name, args, kwargs)

    def _qualified_name(self, value, named):
        for name, candidate in named:
            if candidate is value:
                return name
        return None

    def create_arg(self, a):
        if isinstance(a, Proxy):
            return a.node
        if isinstance(a, Node):
            return a
        if isinstance(a, Parameter):
            name = self._qualified_name(a, self.root.named_parameters(remove_duplicate=False))
            if name is None:
                raise NameError("parameter is not a member of this module")
            return self.graph.get_attr(name)
        from .._tensor import Tensor

        if isinstance(a, Tensor):
            name = self._qualified_name(a, self.root.named_buffers(remove_duplicate=False))
            if name is None:  # a tensor the forward made: kept as a constant attribute of the root
                name = self._constant_name()
                setattr(self.root, name, a)
            return self.graph.get_attr(name)
        if isinstance(a, (tuple, list, dict, slice)):
            return map_aggregate(a, self.create_arg)
        return a

    def _constant_name(self):
        i = 0
        while hasattr(self.root, f"_tensor_constant{i}"):
            i += 1
        return f"_tensor_constant{i}"

    def create_node(self, kind, target, args, kwargs, name=None, type_expr=None):
        return self.graph.create_node(kind, target, args, kwargs, name, type_expr)

    def create_proxy(self, kind, target, args, kwargs, name=None, type_expr=None, proxy_factory_fn=None):
        node = self.create_node(kind, target, self.create_arg(tuple(args)), self.create_arg(dict(kwargs)), name,
                                type_expr)
        return proxy_factory_fn(node) if proxy_factory_fn is not None else Proxy(node, self)

    def getattr(self, attr, attr_val, parameter_proxy_cache):
        if isinstance(attr_val, Parameter):
            if attr not in parameter_proxy_cache:
                name = self._qualified_name(attr_val, self.root.named_parameters(remove_duplicate=False))
                if name is None:
                    return attr_val
                parameter_proxy_cache[attr] = self.create_proxy("get_attr", name, (), {})
            return parameter_proxy_cache[attr]
        return attr_val

    # -------------------------------------------------------------- tracing
    def _recording(self, fn, prefix=""):
        tracer = self
        target = _named_alias(fn, prefix + fn.__name__) if prefix else fn

        @functools.wraps(fn)
        def record(*args, **kwargs):
            if contains_proxy(args) or contains_proxy(kwargs):
                return tracer.create_proxy("call_function", target, args, kwargs)
            return fn(*args, **kwargs)

        return record

    def _patch(self, patcher, fn_globals):
        tracer = self
        original_call = Module.__call__
        original_getattr = Module.__getattr__
        parameter_proxies = {}

        def traced_call(mod, *args, **kwargs):
            return tracer.call_module(mod, mod.forward, args, kwargs)

        def traced_getattr(mod, name):
            value = original_getattr(mod, name)
            return tracer.getattr(f"{id(mod)}.{name}", value, parameter_proxies)

        patcher.set(Module, "__call__", traced_call)
        patcher.set(Module, "__getattr__", traced_getattr)
        for module_name, prefix in _TRACED_NAMESPACES.items():
            namespace = importlib.import_module(module_name)
            for name, value in list(vars(namespace).items()):
                if not name.startswith("_") and _is_traceable_function(value):
                    patcher.set(namespace, name, self._recording(value, prefix))
        for fn in self.autowrap_functions:
            if fn_globals.get(fn.__name__) is fn:
                patcher.set(fn_globals, fn.__name__, self._recording(fn), in_dict=True)
        for holder, name in _wrapped_names:
            target = holder.get(name, getattr(builtins, name, None))
            if target is not None and callable(target):
                patcher.set(holder, name, self._recording(target), in_dict=True)
        return original_call

    def trace(self, root, concrete_args=None):
        concrete_args = dict(concrete_args or {})
        if isinstance(root, Module):
            self.root = root
            fn = type(root).forward
        else:
            self.root = Module()
            fn = root
        self.graph = Graph(tracer_cls=type(self))
        signature = inspect.signature(fn)
        parameters = list(signature.parameters.values())
        if isinstance(root, Module):
            parameters = parameters[1:]  # (self)
        args, kwargs = [], {}
        for parameter in parameters:
            if parameter.kind in (parameter.VAR_POSITIONAL, parameter.VAR_KEYWORD):
                raise NotImplementedError(
                    f"torch.fx.symbolic_trace: a forward taking *{parameter.name} or **{parameter.name} is not "
                    "supported by mindnlp-shim's tracer; give concrete_args or a forward with named arguments")
            if parameter.name in concrete_args:
                value = concrete_args[parameter.name]
            else:
                default = () if parameter.default is parameter.empty else (parameter.default,)
                value = self.create_proxy("placeholder", parameter.name, default, {})
            if parameter.kind is parameter.KEYWORD_ONLY:
                kwargs[parameter.name] = value
            else:
                args.append(value)
        patcher = _Patcher()
        try:
            self._patch(patcher, getattr(fn, "__globals__", {}))
            result = fn(self.root, *args, **kwargs) if isinstance(root, Module) else fn(*args, **kwargs)
        finally:
            patcher.restore()
        self.create_node("output", "output", (self.create_arg(result),), {})
        return self.graph


def symbolic_trace(root, concrete_args=None):
    """Trace `root` (a Module or a function) into a GraphModule whose forward gives the same results."""
    tracer = Tracer()
    graph = tracer.trace(root, concrete_args)
    name = type(root).__name__ if isinstance(root, Module) else root.__name__
    return GraphModule(tracer.root, graph, name)
