"""torch.fx.graph: `Graph`, an ordered list of Nodes, its editing API and its Python code.

The code a Graph generates is a plain `forward(self, ...)` whose lines call the nodes' targets in order; a
GraphModule compiles it with `exec`, so it runs eagerly on the shim's ops."""
import builtins
import inspect
import math
import numbers
import re

from .node import Node, base_name, is_reserved, map_arg


_NUMBERED = re.compile(r"(.*)_(\d+)$")


class _InsertPoint:
    """Where the Graph puts new nodes; set when made (torch's `g.inserting_after(n)` works without `with`),
    restored by leaving a `with` block."""

    def __init__(self, graph, insert):
        self.graph = graph
        self.previous, graph._insert = graph._insert, insert

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.graph._insert = self.previous


class _NodeList:
    def __init__(self, root, reverse=False):
        self._root, self._reverse = root, reverse

    def __iter__(self):
        step = "_prev" if self._reverse else "_next"
        node = getattr(self._root, step)
        while node is not self._root:
            following = getattr(node, step)  # (read first: the loop body may erase the node)
            yield node
            node = following

    def __len__(self):
        return sum(1 for _ in self)

    def __reversed__(self):
        return _NodeList(self._root, not self._reverse)

    def __repr__(self):
        return repr(list(self))


class PythonCode:
    """A graph's generated source (`src`) and the objects its names refer to (`globals`)."""

    def __init__(self, src, globals):
        self.src = src
        self.globals = globals


def _fetch_attr(module, target):
    """`module`'s attribute at the dotted path `target` (submodule names may be digits: Sequential)."""
    value = module
    for part in target.split("."):
        value = getattr(value, part)
    return value


class Graph:
    def __init__(self, owning_module=None, tracer_cls=None, tracer_extras=None):
        self._root = Node(self, "", "root", "", (), {})
        self._used_names = {}
        self._insert = self._root.prepend  # (before the sentinel: at the end)
        self.owning_module = owning_module
        self._tracer_cls = tracer_cls
        self._codegen_globals = {}

    @property
    def nodes(self):
        return _NodeList(self._root)

    # -------------------------------------------------------------- making nodes
    def _unique_name(self, candidate):
        """The candidate's identifier, or, when taken, its stem with the next free number (a trailing `_<n>`
        is read as a number: a second `block.0` after block_0..block_2 is block_3, as torch names it)."""
        name = base_name(candidate)
        if name not in self._used_names and not is_reserved(name):
            self._used_names[name] = True
            return name
        match = _NUMBERED.match(name)
        stem, number = (match.group(1), int(match.group(2))) if match else (name, 0)
        while True:
            number += 1
            name = f"{stem}_{number}"
            if name not in self._used_names and not is_reserved(name):
                self._used_names[name] = True
                return name

    @staticmethod
    def _target_name(op, target):
        if op in ("call_function",) or callable(target) and not isinstance(target, str):
            return getattr(target, "__name__", type(target).__name__)
        return str(target)

    def create_node(self, op, target, args=None, kwargs=None, name=None, type_expr=None):
        name = self._unique_name(name if name is not None else self._target_name(op, target))
        node = Node(self, name, op, target, args or (), kwargs or {}, type_expr)
        self._insert(node)
        return node

    def placeholder(self, name, type_expr=None, default_value=inspect.Signature.empty):
        args = () if default_value is inspect.Signature.empty else (default_value,)
        return self.create_node("placeholder", name, args, type_expr=type_expr)

    def get_attr(self, qualified_name, type_expr=None):
        return self.create_node("get_attr", qualified_name, type_expr=type_expr)

    def call_module(self, module_name, args=None, kwargs=None, type_expr=None):
        return self.create_node("call_module", module_name, args, kwargs, type_expr=type_expr)

    def call_method(self, method_name, args=None, kwargs=None, type_expr=None):
        return self.create_node("call_method", method_name, args, kwargs, type_expr=type_expr)

    def call_function(self, the_function, args=None, kwargs=None, type_expr=None):
        return self.create_node("call_function", the_function, args, kwargs, type_expr=type_expr)

    def output(self, result, type_expr=None):
        return self.create_node("output", "output", (result,), type_expr=type_expr)

    def inserting_before(self, n=None):
        return _InsertPoint(self, n.prepend if n is not None else self._root._next.prepend)

    def inserting_after(self, n=None):
        return _InsertPoint(self, n.append if n is not None else self._root.prepend)

    def node_copy(self, node, arg_transform=lambda n: n):
        args = map_arg(node.args, arg_transform)
        kwargs = map_arg(node.kwargs, arg_transform)
        copy = self.create_node(node.op, node.target, args, kwargs, node.name, node.type)
        copy.meta = dict(node.meta)
        return copy

    def graph_copy(self, g, val_map, return_output_node=False):
        """Copy `g`'s nodes (but its output) into this graph; `val_map` maps g's nodes to the copies. Returns
        what g's output returns, in this graph's nodes."""
        for node in g.nodes:
            if node.op == "output":
                result = map_arg(node.args[0], lambda n: val_map[n])
                return (result, node) if return_output_node else result
            val_map[node] = self.node_copy(node, lambda n: val_map[n])
        return None

    def find_nodes(self, *, op, target=None, sort=True):
        return [n for n in self.nodes if n.op == op and (target is None or n.target == target)]

    # -------------------------------------------------------------- removing nodes
    def erase_node(self, to_erase):
        if to_erase.users:
            raise RuntimeError(f"Tried to erase Node {to_erase} but it still had {len(to_erase.users)} users in "
                               f"the graph: {to_erase.users}!")
        if to_erase.graph is not self:
            raise RuntimeError(f"Attempting to remove {to_erase} from wrong graph!")
        if to_erase._erased:
            return
        to_erase._unlink()
        to_erase._erased = True
        to_erase._update_args_kwargs((), {})

    def eliminate_dead_code(self, is_impure_node=None):
        """Erase the nodes whose value nothing uses (not placeholders and outputs); True when any went."""
        impure = is_impure_node or (lambda n: n.is_impure())
        changed = False
        for node in reversed(self.nodes):
            if not node.users and not impure(node):
                self.erase_node(node)
                changed = True
        return changed

    # -------------------------------------------------------------- checks
    def lint(self):
        """Check the graph is well formed: every argument is a node of this graph defined before its use,
        names are unique, and get_attr/call_module targets exist on the owning module."""
        seen, names = set(), set()
        for node in self.nodes:
            if node.graph is not self:
                raise RuntimeError(f"Node {node} does not belong to this Graph!")
            if node.op not in ("placeholder", "get_attr", "call_module", "call_function", "call_method", "output"):
                raise RuntimeError(f"Node {node} has unknown opcode {node.op!r}!")
            for arg in node.all_input_nodes:
                if arg not in seen:
                    raise RuntimeError(f"Argument '{arg}' of Node '{node}' was used before it has been defined! "
                                       "Please check that Nodes in the graph are topologically ordered")
            if node.name in names:
                raise RuntimeError(f"Node redefined name {node.name}!")
            seen.add(node)
            names.add(node.name)
            if self.owning_module is not None and node.op in ("get_attr", "call_module"):
                try:
                    _fetch_attr(self.owning_module, node.target)
                except AttributeError:
                    raise RuntimeError(f"Node {node} target {node.target} references nonexistent attribute of "
                                       "the owning module") from None

    # -------------------------------------------------------------- code
    def python_code(self, root_module="self", **kwargs):
        namespace = {"_fetch_attr": _fetch_attr, "inf": math.inf, "nan": math.nan}
        names_of_objects = {}

        def global_name(obj, hint):
            key = id(obj)
            if key not in names_of_objects:
                name = f"_fx_{base_name(hint)}_{len(names_of_objects)}"
                names_of_objects[key] = name
                namespace[name] = obj
            return names_of_objects[key]

        def render(value):
            if isinstance(value, Node):
                return value.name
            if isinstance(value, tuple) and not hasattr(value, "_fields"):
                return "(" + "".join(render(v) + ", " for v in value) + ")"
            if isinstance(value, list):
                return "[" + ", ".join(render(v) for v in value) + "]"
            if isinstance(value, dict) and type(value) is dict:
                return "{" + ", ".join(f"{render(k)}: {render(v)}" for k, v in value.items()) + "}"
            if isinstance(value, slice):
                return f"slice({render(value.start)}, {render(value.stop)}, {render(value.step)})"
            if value is None or isinstance(value, (bool, str, bytes)) or value is Ellipsis:
                return repr(value)
            if isinstance(value, numbers.Number) and type(value) in (int, float, complex) and \
                    not (isinstance(value, float) and not math.isfinite(value)):
                return repr(value)
            return global_name(value, type(value).__name__)

        def call_args(args, kwargs):
            parts = [render(a) for a in args] + [f"{k}={render(v)}" for k, v in kwargs.items()]
            return ", ".join(parts)

        params, body = [], []
        for node in self.nodes:
            if node.op == "placeholder":
                target = str(node.target)
                if target.startswith("**"):
                    params.append(f"**{node.name}")
                elif target.startswith("*"):
                    params.append(f"*{node.name}")
                else:  # (the forward keeps the argument's own name; a node renamed from it reads it)
                    params.append(f"{target}={render(node.args[0])}" if node.args else target)
                    if node.name != target:
                        body.append(f"{node.name} = {target}")
            elif node.op == "get_attr":
                body.append(f"{node.name} = _fetch_attr({root_module}, {node.target!r})")
            elif node.op == "call_module":
                body.append(f"{node.name} = _fetch_attr({root_module}, {node.target!r})"
                            f"({call_args(node.args, node.kwargs)})")
            elif node.op == "call_function":
                fn = global_name(node.target, getattr(node.target, "__name__", "fn"))
                body.append(f"{node.name} = {fn}({call_args(node.args, node.kwargs)})")
            elif node.op == "call_method":
                receiver, *rest = node.args
                body.append(f"{node.name} = {render(receiver)}.{node.target}({call_args(rest, node.kwargs)})")
            elif node.op == "output":
                body.append(f"return {render(node.args[0])}")
        src = f"\n\ndef forward({', '.join([root_module] + params)}):\n" + \
            "".join(f"    {line}\n" for line in (body or ["pass"]))
        return PythonCode(src, namespace)

    def __str__(self):
        params = ", ".join(n.name for n in self.nodes if n.op == "placeholder")
        lines = [f"graph({params}):"] + [f"    {n.format_node()}" for n in self.nodes]
        return "\n".join(lines)

    def print_tabular(self):
        rows = [(n.op, n.name, getattr(n.target, "__name__", n.target), n.args, n.kwargs) for n in self.nodes]
        header = ("opcode", "name", "target", "args", "kwargs")
        widths = [max(len(str(r[i])) for r in rows + [header]) for i in range(5)]
        for row in [header] + rows:
            builtins.print("  ".join(str(v).ljust(w) for v, w in zip(row, widths)))

