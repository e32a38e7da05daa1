"""torch.utils._pytree: flatten/unflatten nested containers. Registered node types (transformers registers
each ModelOutput class) are honoured by tree_flatten/tree_unflatten/tree_map."""
import collections

_REGISTRY = {}


class TreeSpec:
    def __init__(self, type_, context, children):
        self.type, self.context, self.children_specs = type_, context, children

    @property
    def num_leaves(self):
        return sum(c.num_leaves for c in self.children_specs) if self.type is not None else 1

    def __repr__(self):
        return f"TreeSpec({getattr(self.type, '__name__', None)}, {self.context}, {self.children_specs})"


class LeafSpec(TreeSpec):
    def __init__(self):
        super().__init__(None, None, [])


def register_pytree_node(cls, flatten_fn, unflatten_fn, *, serialized_type_name=None, to_dumpable_context=None,
                         from_dumpable_context=None, flatten_with_keys_fn=None):
    _REGISTRY[cls] = (flatten_fn, unflatten_fn)


_register_pytree_node = register_pytree_node


def _flatten_node(node):
    if type(node) in _REGISTRY:
        return _REGISTRY[type(node)][0](node)
    if isinstance(node, (list, tuple)) and not hasattr(node, "_fields"):
        return list(node), None
    if isinstance(node, tuple) and hasattr(node, "_fields"):
        return list(node), None
    if isinstance(node, dict):
        keys = list(node.keys())
        return [node[k] for k in keys], keys
    return None


def _unflatten_node(type_, context, children):
    if type_ in _REGISTRY:
        return _REGISTRY[type_][1](children, context)
    if type_ in (list, tuple):
        return type_(children)
    if issubclass(type_, tuple):  # namedtuple
        return type_(*children)
    if issubclass(type_, dict):
        out = type_() if type_ is not collections.defaultdict else collections.defaultdict()
        for k, v in zip(context, children):
            out[k] = v
        return out
    raise TypeError(f"cannot unflatten a node of type {type_}")


def tree_flatten(tree, is_leaf=None):
    if is_leaf is not None and is_leaf(tree):
        return [tree], LeafSpec()
    flat = _flatten_node(tree)
    if flat is None:
        return [tree], LeafSpec()
    children, context = flat
    leaves, specs = [], []
    for child in children:
        l, s = tree_flatten(child, is_leaf)
        leaves.extend(l)
        specs.append(s)
    return leaves, TreeSpec(type(tree), context, specs)


def tree_unflatten(leaves, treespec):
    it = iter(leaves)

    def build(spec):
        if spec.type is None:
            return next(it)
        return _unflatten_node(spec.type, spec.context, [build(c) for c in spec.children_specs])

    return build(treespec)


def tree_leaves(tree, is_leaf=None):
    return tree_flatten(tree, is_leaf)[0]


def tree_map(fn, tree, *rests, is_leaf=None):
    leaves, spec = tree_flatten(tree, is_leaf)
    others = [tree_flatten(r, is_leaf)[0] for r in rests]
    return tree_unflatten([fn(x, *xs) for x, *xs in zip(leaves, *others)], spec)


def tree_map_only(type_or_types, fn, tree, is_leaf=None):
    return tree_map(lambda x: fn(x) if isinstance(x, type_or_types) else x, tree, is_leaf=is_leaf)


def _dict_flatten_with_keys(d):
    keys = list(d.keys())
    return [(MappingKey(k), d[k]) for k in keys], keys


class MappingKey:
    def __init__(self, key):
        self.key = key

    def __repr__(self):
        return f"[{self.key!r}]"
