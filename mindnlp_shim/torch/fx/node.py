"""torch.fx.node: `Node`, one operation of a `Graph`, and `map_arg`, which maps the nodes inside an argument.

A node has an `op` (placeholder, get_attr, call_module, call_function, call_method, output), a `target` and
`args`/`kwargs` that may hold other nodes; `users` are the nodes whose arguments hold it. Nodes are kept in their
graph's order as a doubly linked list."""
import builtins
import keyword
import re

OPS = ("placeholder", "get_attr", "call_module", "call_function", "call_method", "output", "root")


def map_aggregate(value, fn):
    """`value` with `fn` applied to every leaf inside tuples, lists, dicts and slices (their types kept)."""
    if isinstance(value, tuple):
        mapped = tuple(map_aggregate(v, fn) for v in value)
        return type(value)(*mapped) if hasattr(value, "_fields") else mapped
    if isinstance(value, list):
        return [map_aggregate(v, fn) for v in value]
    if isinstance(value, dict):
        return {k: map_aggregate(v, fn) for k, v in value.items()}
    if isinstance(value, slice):
        return slice(map_aggregate(value.start, fn), map_aggregate(value.stop, fn), map_aggregate(value.step, fn))
    return fn(value)


def map_arg(value, fn):
    """`value` with every Node inside it replaced by `fn(node)`."""
    return map_aggregate(value, lambda v: fn(v) if isinstance(v, Node) else v)


_NOT_IDENTIFIER = re.compile(r"[^0-9a-zA-Z_]+")
_CAMEL = re.compile(r"(?<=[a-z0-9])(?=[A-Z])")


def base_name(candidate):
    """A Python identifier made from `candidate` (a target's name): snake case, no dots, not a keyword or a
    builtin's name (those get a suffix from the graph's namespace)."""
    name = _NOT_IDENTIFIER.sub("_", _CAMEL.sub("_", candidate).lower()).strip("_") or "_unnamed"
    if name[0].isdigit():
        name = "_" + name
    return name


def is_reserved(name):
    return keyword.iskeyword(name) or name in vars(builtins) or name in ("self", "torch")


class Node:
    """One operation of a Graph. Create nodes with the Graph's methods, not directly."""

    def __init__(self, graph, name, op, target, args, kwargs, type_expr=None):
        if op not in OPS:
            raise ValueError(f"torch.fx.Node: unknown op {op!r}; expected one of {OPS[:-1]}")
        self.graph = graph
        self.name = name
        self.op = op
        self.target = target
        self.type = type_expr
        self.meta = {}
        self.users = {}
        self._input_nodes = {}
        self._args, self._kwargs = (), {}
        self._prev = self._next = self
        self._erased = False
        self._update_args_kwargs(args, kwargs)

    # -------------------------------------------------------------- arguments and uses
    @property
    def args(self):
        return self._args

    @args.setter
    def args(self, value):
        self._update_args_kwargs(value, self._kwargs)

    @property
    def kwargs(self):
        return self._kwargs

    @kwargs.setter
    def kwargs(self, value):
        self._update_args_kwargs(self._args, value)

    @property
    def all_input_nodes(self):
        return list(self._input_nodes)

    def update_arg(self, idx, arg):
        args = list(self._args)
        args[idx] = arg
        self.args = tuple(args)

    def update_kwarg(self, key, arg):
        self.kwargs = {**self._kwargs, key: arg}

    def _update_args_kwargs(self, args, kwargs):
        for old in self._input_nodes:
            old.users.pop(self, None)
        self._args, self._kwargs = tuple(args), dict(kwargs)
        self._input_nodes = {}
        map_arg((self._args, self._kwargs), self._input_nodes.setdefault)
        for node in self._input_nodes:
            if node.graph is not self.graph:
                raise RuntimeError(f"torch.fx: argument {node.name} of {self.name} belongs to another graph")
            node.users.setdefault(self)

    def replace_all_uses_with(self, replace_with, delete_user_cb=lambda user: True, *, propagate_meta=False):
        """Every user of this node takes `replace_with` in its place; returns the users changed."""
        if propagate_meta:
            for key, value in self.meta.items():
                replace_with.meta.setdefault(key, value)
        changed = [user for user in list(self.users) if delete_user_cb(user)]
        for user in changed:
            user.replace_input_with(self, replace_with)
        return changed

    def replace_input_with(self, old_input, new_input):
        """This node's arguments with `new_input` wherever they held `old_input`."""
        swap = lambda n: new_input if n is old_input else n  # noqa: E731
        self._update_args_kwargs(map_arg(self._args, swap), map_arg(self._kwargs, swap))

    # -------------------------------------------------------------- position in the graph
    @property
    def next(self):
        return self._next

    @property
    def prev(self):
        return self._prev

    def prepend(self, x):
        """Move (or put) node `x` just before this one."""
        if x is self:
            raise RuntimeError("torch.fx: cannot prepend a node to itself")
        x._unlink()
        before = self._prev
        before._next, x._prev, x._next, self._prev = x, before, self, x

    def append(self, x):
        """Move (or put) node `x` just after this one."""
        self._next.prepend(x)

    def _unlink(self):
        before, after = self._prev, self._next
        before._next, after._prev = after, before
        self._prev = self._next = self

    def is_impure(self):
        return self.op in ("placeholder", "output")

    def format_node(self):
        if self.op == "placeholder":
            default = f" (default={self.args[0]!r})" if self.args else ""
            return f"%{self.name} : [num_users={len(self.users)}] = placeholder[target={self.target}]{default}"
        if self.op == "output":
            return f"return {self.args[0]!r}"
        target = getattr(self.target, "__name__", self.target) if self.op == "call_function" else self.target
        return (f"%{self.name} : [num_users={len(self.users)}] = {self.op}[target={target}]"
                f"(args = {map_arg(self.args, lambda n: '%' + n.name)}, "
                f"kwargs = {map_arg(self.kwargs, lambda n: '%' + n.name)})")

    def __repr__(self):
        return self.name
