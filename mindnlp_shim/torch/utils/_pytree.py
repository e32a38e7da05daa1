"""torch.utils._pytree: flatten nested containers into leaves and a TreeSpec, and build them back.

A node is a value whose exact type is registered (subclasses are leaves, as in torch): tuple, list, dict,
OrderedDict, defaultdict, deque, every namedtuple class and torch.return_types' structseqs, plus what
`register_pytree_node` adds (transformers registers its ModelOutput classes and caches). Everything else, None
included, is a leaf. A node's flatten function gives (children, context); its unflatten function takes
(children, context) back to the node."""
import collections
import dataclasses
from collections import OrderedDict, defaultdict, deque


@dataclasses.dataclass(frozen=True)
class NodeDef:
    type: type
    flatten_fn: object
    unflatten_fn: object
    flatten_with_keys_fn: object = None


SUPPORTED_NODES = {}
STANDARD_DICT_TYPES = frozenset({dict, OrderedDict, defaultdict})


def register_pytree_node(cls, flatten_fn, unflatten_fn, *, serialized_type_name=None, to_dumpable_context=None,
                         from_dumpable_context=None, flatten_with_keys_fn=None):
    """Make `cls` a node: `flatten_fn(node) -> (children, context)`, `unflatten_fn(children, context) -> node`."""
    if cls in SUPPORTED_NODES:
        raise ValueError(f"{cls} is already registered as pytree node.")
    SUPPORTED_NODES[cls] = NodeDef(cls, flatten_fn, unflatten_fn, flatten_with_keys_fn)


def _register_pytree_node(cls, flatten_fn, unflatten_fn, to_str_fn=None, maybe_from_str_fn=None, *,
                          serialized_type_name=None, to_dumpable_context=None, from_dumpable_context=None,
                          flatten_with_keys_fn=None):
    """The older spelling (transformers and diffusers still call it on old torch versions)."""
    register_pytree_node(cls, flatten_fn, unflatten_fn, flatten_with_keys_fn=flatten_with_keys_fn)


def _deregister_pytree_node(cls):
    SUPPORTED_NODES.pop(cls, None)


# ---------------------------------------------------------------- key paths
@dataclasses.dataclass(frozen=True)
class SequenceKey:
    idx: int

    def __str__(self):
        return f"[{self.idx!r}]"

    def get(self, sequence):
        return sequence[self.idx]


@dataclasses.dataclass(frozen=True)
class MappingKey:
    key: object

    def __str__(self):
        return f"[{self.key!r}]"

    def get(self, mapping):
        return mapping[self.key]


@dataclasses.dataclass(frozen=True)
class GetAttrKey:
    name: str

    def __str__(self):
        return f".{self.name}"

    def get(self, obj):
        return getattr(obj, self.name)


def keystr(kp):
    return "".join(str(k) for k in kp)


def key_get(obj, kp):
    for k in kp:
        obj = k.get(obj)
    return obj


# ---------------------------------------------------------------- the built-in nodes
def _sequence_keys(flatten):
    """The flatten_with_keys function of a sequence node: each child keyed by its position."""
    def flatten_with_keys(d):
        values, context = flatten(d)
        return [(SequenceKey(i), v) for i, v in enumerate(values)], context

    return flatten_with_keys


def _mapping_keys(flatten, keys_of=lambda context: context):
    """The flatten_with_keys function of a mapping node: each child keyed by its key (read from the context)."""
    def flatten_with_keys(d):
        values, context = flatten(d)
        return [(MappingKey(k), v) for k, v in zip(keys_of(context), values)], context

    return flatten_with_keys


def _tuple_flatten(d):
    return list(d), None


def _tuple_unflatten(values, context):
    return tuple(values)


def _list_flatten(d):
    return d, None


def _list_unflatten(values, context):
    return list(values)


def _dict_flatten(d):
    return list(d.values()), list(d.keys())


def _dict_unflatten(values, context):
    return dict(zip(context, values))


def _ordereddict_unflatten(values, context):
    return OrderedDict((key, value) for key, value in zip(context, values))


def _defaultdict_flatten(d):
    values, keys = _dict_flatten(d)
    return values, [d.default_factory, keys]


def _defaultdict_unflatten(values, context):
    default_factory, keys = context
    return defaultdict(default_factory, dict(zip(keys, values)))


def _deque_flatten(d):
    return list(d), d.maxlen


def _deque_unflatten(values, context):
    return deque(values, maxlen=context)


_ordereddict_flatten = _odict_flatten = _dict_flatten
_odict_unflatten = _ordereddict_unflatten
_tuple_flatten_with_keys = _sequence_keys(_tuple_flatten)
_list_flatten_with_keys = _sequence_keys(_list_flatten)
_deque_flatten_with_keys = _sequence_keys(_deque_flatten)
_dict_flatten_with_keys = _ordereddict_flatten_with_keys = _mapping_keys(_dict_flatten)
_defaultdict_flatten_with_keys = _mapping_keys(_defaultdict_flatten, lambda context: context[1])


def _namedtuple_flatten(d):
    return list(d), type(d)


def _namedtuple_flatten_with_keys(d):
    values, context = _namedtuple_flatten(d)
    return [(GetAttrKey(field), v) for field, v in zip(context._fields, values)], context


def _namedtuple_unflatten(values, context):
    return context(*values)


def _structseq_unflatten(values, context):
    return context(values)


for _cls, _flatten, _unflatten, _with_keys in [
        (tuple, _tuple_flatten, _tuple_unflatten, _tuple_flatten_with_keys),
        (list, _list_flatten, _list_unflatten, _list_flatten_with_keys),
        (dict, _dict_flatten, _dict_unflatten, _dict_flatten_with_keys),
        (OrderedDict, _ordereddict_flatten, _ordereddict_unflatten, _ordereddict_flatten_with_keys),
        (defaultdict, _defaultdict_flatten, _defaultdict_unflatten, _defaultdict_flatten_with_keys),
        (deque, _deque_flatten, _deque_unflatten, _deque_flatten_with_keys)]:
    register_pytree_node(_cls, _flatten, _unflatten, flatten_with_keys_fn=_with_keys)
del _cls, _flatten, _unflatten, _with_keys


def is_namedtuple_class(cls):
    return isinstance(cls, type) and issubclass(cls, tuple) and isinstance(getattr(cls, "_fields", None), tuple)


def is_namedtuple(obj):
    return is_namedtuple_class(obj if isinstance(obj, type) else type(obj))


def is_namedtuple_instance(obj):
    return is_namedtuple_class(type(obj))


def is_structseq_class(cls):
    """torch.return_types' result classes (a tuple subclass with n_fields, like os.stat_result)."""
    return (isinstance(cls, type) and issubclass(cls, tuple) and isinstance(getattr(cls, "n_fields", None), int)
            and isinstance(getattr(cls, "n_sequence_fields", None), int))


def is_structseq_instance(obj):
    return is_structseq_class(type(obj))


def _get_node_type(tree):
    cls = type(tree)
    if cls not in SUPPORTED_NODES:
        if is_namedtuple_class(cls):
            return collections.namedtuple
        if is_structseq_class(cls):
            return "structseq"
    return cls


def _node_def(node_type):
    if node_type is collections.namedtuple:
        return NodeDef(node_type, _namedtuple_flatten, _namedtuple_unflatten, _namedtuple_flatten_with_keys)
    if node_type == "structseq":
        return NodeDef(node_type, _namedtuple_flatten, _structseq_unflatten, _tuple_flatten_with_keys)
    return SUPPORTED_NODES.get(node_type)


def _is_leaf(tree, is_leaf=None):
    return (is_leaf is not None and is_leaf(tree)) or _node_def(_get_node_type(tree)) is None


tree_is_leaf = _is_leaf


# ---------------------------------------------------------------- tree specs
class TreeSpec:
    """The structure of a pytree: its node type, the context its flatten function gave, and a spec per child."""

    def __init__(self, type, context, children_specs):
        self.type, self.context, self.children_specs = type, context, list(children_specs)
        self.num_nodes = 1 + sum(spec.num_nodes for spec in self.children_specs)
        self.num_leaves = sum(spec.num_leaves for spec in self.children_specs)
        self.num_children = len(self.children_specs)

    def is_leaf(self):
        return self.num_nodes == 1 and self.num_leaves == 1

    def child(self, index):
        return self.children_specs[index]

    def __eq__(self, other):
        if not isinstance(other, TreeSpec):
            return NotImplemented
        return (self.is_leaf() == other.is_leaf() and self.type == other.type and self.context == other.context
                and self.children_specs == other.children_specs)

    def __hash__(self):
        return hash((self.type, self.num_nodes, self.num_leaves))

    def __repr__(self, indent=0):
        name = "namedtuple" if self.type is collections.namedtuple else getattr(self.type, "__name__", self.type)
        children = ",\n".join(" " * (indent + 2) + spec.__repr__(indent + 2) for spec in self.children_specs)
        return f"TreeSpec({name}, {self.context}, [{children.lstrip() if children else ''}])"

    def flatten_up_to(self, tree):
        """The subtrees of `tree` at this spec's leaves (`tree` has this spec's structure down to them)."""
        if self.is_leaf():
            return [tree]
        node_type = _get_node_type(tree)
        if self.type in STANDARD_DICT_TYPES and node_type in STANDARD_DICT_TYPES:
            children = self._dict_children_up_to(tree)
        else:
            if node_type != self.type:
                raise ValueError(f"Type mismatch; expected {self.type!r}, but got {node_type!r}.")
            children, context = _node_def(node_type).flatten_fn(tree)
            children = list(children)
            if len(children) != self.num_children:
                raise ValueError(f"Node arity mismatch; expected {self.num_children}, but got {len(children)}.")
            if context != self.context:
                raise ValueError(f"Node context mismatch for custom node type {self.type!r}.")
        subtrees = []
        for child, spec in zip(children, self.children_specs):
            subtrees.extend(spec.flatten_up_to(child))
        return subtrees

    def _dict_children_up_to(self, tree):
        """The standard dicts stand for one another here: the same keys, taken in this spec's order."""
        keys = self.context[1] if self.type is defaultdict else self.context
        if set(tree) != set(keys):
            missing, extra = set(keys) - set(tree), set(tree) - set(keys)
            raise ValueError(f"Node keys mismatch; missing key(s): {missing}; extra key(s): {extra}.")
        return [tree[key] for key in keys]

    def unflatten(self, leaves):
        leaves = list(leaves)
        if len(leaves) != self.num_leaves:
            raise ValueError(f"treespec.unflatten(leaves): `leaves` has length {len(leaves)} but the spec refers "
                             f"to a pytree that holds {self.num_leaves} items ({self}).")
        position = 0

        def build(spec):
            nonlocal position
            if spec.is_leaf():
                position += 1
                return leaves[position - 1]
            return _node_def(spec.type).unflatten_fn([build(child) for child in spec.children_specs],
                                                     spec.context)

        return build(self)


class LeafSpec(TreeSpec):
    def __init__(self):
        super().__init__(None, None, [])
        self.num_nodes = self.num_leaves = 1

    def __repr__(self, indent=0):
        return "*"


def treespec_leaf():
    return LeafSpec()


# ---------------------------------------------------------------- flatten, map and query
def tree_flatten(tree, is_leaf=None):
    leaves = []

    def walk(node):
        if _is_leaf(node, is_leaf):
            leaves.append(node)
            return LeafSpec()
        node_type = _get_node_type(node)
        children, context = _node_def(node_type).flatten_fn(node)
        return TreeSpec(node_type, context, [walk(child) for child in children])

    spec = walk(tree)
    return leaves, spec


def tree_unflatten(leaves, treespec):
    if not isinstance(treespec, TreeSpec):
        raise TypeError(f"tree_unflatten(leaves, treespec): Expected `treespec` to be instance of TreeSpec but got "
                        f"item of type {type(treespec)}.")
    return treespec.unflatten(leaves)


def tree_iter(tree, is_leaf=None):
    return iter(tree_flatten(tree, is_leaf)[0])


def tree_leaves(tree, is_leaf=None):
    return tree_flatten(tree, is_leaf)[0]


def tree_structure(tree, is_leaf=None):
    return tree_flatten(tree, is_leaf)[1]


def tree_map(func, tree, *rests, is_leaf=None):
    leaves, spec = tree_flatten(tree, is_leaf)
    columns = [leaves] + [spec.flatten_up_to(rest) for rest in rests]
    return spec.unflatten(map(func, *columns))


def tree_map_(func, tree, *rests, is_leaf=None):
    leaves, spec = tree_flatten(tree, is_leaf)
    columns = [leaves] + [spec.flatten_up_to(rest) for rest in rests]
    collections.deque(map(func, *columns), maxlen=0)
    return tree


def _type_filter(type_or_types_or_pred):
    if isinstance(type_or_types_or_pred, type) or (
            isinstance(type_or_types_or_pred, tuple) and all(isinstance(t, type) for t in type_or_types_or_pred)):
        return lambda x: isinstance(x, type_or_types_or_pred)
    if callable(type_or_types_or_pred):
        return type_or_types_or_pred
    raise TypeError("Argument must be a type, a tuple of types, or a callable.")


def map_only(type_or_types_or_pred):
    accept = _type_filter(type_or_types_or_pred)

    def wrapper(func):
        def wrapped(x):
            return func(x) if accept(x) else x

        return wrapped

    return wrapper


def tree_map_only(type_or_types_or_pred, func, tree, is_leaf=None):
    return tree_map(map_only(type_or_types_or_pred)(func), tree, is_leaf=is_leaf)


def tree_map_only_(type_or_types_or_pred, func, tree, is_leaf=None):
    return tree_map_(map_only(type_or_types_or_pred)(func), tree, is_leaf=is_leaf)


def tree_all(pred, tree, is_leaf=None):
    return all(map(pred, tree_iter(tree, is_leaf)))


def tree_any(pred, tree, is_leaf=None):
    return any(map(pred, tree_iter(tree, is_leaf)))


def tree_all_only(type_or_types, pred, tree, is_leaf=None):
    accept = _type_filter(type_or_types)
    return all(pred(x) for x in tree_iter(tree, is_leaf) if accept(x))


def tree_any_only(type_or_types, pred, tree, is_leaf=None):
    accept = _type_filter(type_or_types)
    return any(pred(x) for x in tree_iter(tree, is_leaf) if accept(x))


def _children_with_keys(node_type, node):
    node_def = _node_def(node_type)
    if node_def.flatten_with_keys_fn is None:
        raise ValueError(f"Did not find a flatten_with_keys_fn for type: {node_type}. Please pass a "
                         "flatten_with_keys_fn argument to register_pytree_node.")
    return node_def.flatten_with_keys_fn(node)


def tree_flatten_with_path(tree, is_leaf=None):
    pairs = []

    def walk(node, path):
        if _is_leaf(node, is_leaf):
            pairs.append((path, node))
            return
        for key, child in _children_with_keys(_get_node_type(node), node)[0]:
            walk(child, path + (key,))

    walk(tree, ())
    return pairs, tree_structure(tree, is_leaf)


def tree_leaves_with_path(tree, is_leaf=None):
    return tree_flatten_with_path(tree, is_leaf)[0]


def tree_map_with_path(func, tree, *rests, is_leaf=None):
    pairs, spec = tree_flatten_with_path(tree, is_leaf)
    columns = [spec.flatten_up_to(rest) for rest in rests]
    return spec.unflatten(func(path, leaf, *others) for (path, leaf), *others in zip(pairs, *columns))
