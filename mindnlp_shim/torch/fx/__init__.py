"""torch.fx: symbolic tracing into a Graph of Nodes, graph editing, and GraphModules that run the edited graph
(see _symbolic_trace.py for how tracing finds torch's functions without `__torch_function__`)."""
from . import graph, graph_module, interpreter, node, proxy  # noqa: F401
from ._symbolic_trace import Tracer, symbolic_trace, wrap
from .graph import Graph
from .graph_module import GraphModule
from .interpreter import Interpreter
from .node import Node, map_arg
from .proxy import Proxy

__all__ = ["Graph", "GraphModule", "Interpreter", "Node", "Proxy", "Tracer", "map_arg", "symbolic_trace", "wrap"]
