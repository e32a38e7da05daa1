"""torch.fx.graph_module: `GraphModule`, a Module whose forward is the code of a Graph.

As in torch, each GraphModule is an instance of its own subclass (named `GraphModuleImpl`), so `recompile()` can
set `forward` on that class; accelerate's hooks look for that name."""
import copy

from ..nn.modules.module import Module
from .graph import Graph


def _copy_attr(source, destination, target):
    """Put `source`'s attribute at the dotted path `target` on `destination`, making empty Modules for the
    intermediate names `destination` lacks (as torch does)."""
    *path, field = target.split(".")
    for part in path:
        source = getattr(source, part)
        existing = getattr(destination, part, None)
        if existing is None:
            existing = Module()
            setattr(destination, part, existing)
        destination = existing
    value = getattr(source, field)
    if isinstance(value, Module) or field in getattr(source, "_parameters", {}):
        setattr(destination, field, value)
    elif field in getattr(source, "_buffers", {}):
        destination.register_buffer(field, value)
    else:
        setattr(destination, field, value)


class GraphModule(Module):
    def __new__(cls, *args, **kwargs):
        if cls.__name__ != "GraphModuleImpl":
            cls = type("GraphModuleImpl", (cls,), {})
        return super().__new__(cls)

    def __init__(self, root, graph, class_name="GraphModule"):
        super().__init__()
        self.__class__.__name__ = class_name
        if isinstance(root, Module):
            if hasattr(root, "training"):
                self.training = root.training
            for node in graph.nodes:
                if node.op in ("get_attr", "call_module"):
                    _copy_attr(root, self, node.target)
        elif isinstance(root, dict):
            for node in graph.nodes:
                if node.op in ("get_attr", "call_module"):
                    if node.target not in root:
                        raise RuntimeError(f"Node {node} referenced target {node.target} but that target was "
                                           "not provided in ``root``!")
                    *path, field = node.target.split(".")
                    holder = self
                    for part in path:
                        if not hasattr(holder, part):
                            setattr(holder, part, Module())
                        holder = getattr(holder, part)
                    setattr(holder, field, root[node.target])
        else:
            raise RuntimeError("Unsupported type " + str(root) + " passed for root!")
        self.graph = graph

    @property
    def graph(self):
        return self._graph

    @graph.setter
    def graph(self, g):
        if not isinstance(g, Graph):
            raise TypeError(f"torch.fx.GraphModule.graph must be a torch.fx.Graph, not {type(g).__name__}")
        self.__dict__["_graph"] = g
        g.owning_module = self
        self.recompile()

    @property
    def code(self):
        return self._code

    def recompile(self):
        """Generate forward from the graph again (after editing it) and return its PythonCode."""
        python_code = self._graph.python_code(root_module="self")
        namespace = dict(python_code.globals)
        exec(compile(python_code.src, f"<eval_with_key>.{id(self)}", "exec"), namespace)  # noqa: S102
        self.__dict__["_code"] = python_code.src
        type(self).forward = namespace["forward"]
        return python_code

    def print_readable(self, print_output=True, **kwargs):
        text = f"class {type(self).__name__}(torch.nn.Module):{self._code}"
        if print_output:
            print(text)
        return text

    def __deepcopy__(self, memo):
        root = Module()
        memo[id(self)] = None
        for name, module in self._modules.items():
            setattr(root, name, copy.deepcopy(module, memo))
        for name, param in self._parameters.items():
            setattr(root, name, copy.deepcopy(param, memo))
        for name, buf in self._buffers.items():
            root.register_buffer(name, copy.deepcopy(buf, memo))
        graph = Graph()
        output = graph.graph_copy(self._graph, {}, return_output_node=True)
        if output is not None:
            graph.output(output[0], output[1].type)
        result = GraphModule(root, graph, type(self).__name__)
        memo[id(self)] = result
        return result

    def __copy__(self):
        return GraphModule(self, self._graph)

    def __str__(self):
        return super().__str__() + "\n\n\n" + self._code
