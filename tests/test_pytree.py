"""torch.utils._pytree against real torch over generated nested containers: the leaves, the TreeSpec (its
printed form, counts and equality), unflatten, tree_map over several trees, key paths, and the registry of
custom nodes (transformers' ModelOutput, diffusers' BaseOutput use `_dict_flatten`/`_dict_unflatten`)."""
import collections

import pytest
from hypothesis import given, settings, strategies as st

import mindnlp_shim.torch as mt
from conftest import SUBPROCESS_FLAG, real_torch, subprocess_fallback

rt = real_torch()
if rt is None:
    globals()[SUBPROCESS_FLAG] = True
    test_whole_module_in_subprocess = subprocess_fallback(__file__)
else:
    import torch.utils._pytree as real_pytree
import mindnlp_shim.torch.utils._pytree as our_pytree

pytestmark = pytest.mark.filterwarnings("ignore::hypothesis.errors.HypothesisWarning")  # (the strategy's long repr)

Pair = collections.namedtuple("Pair", "first second")


class ListSubclass(list):
    """A leaf for pytree: only exact registered types are nodes."""


def _containers(children):
    keys = st.lists(st.sampled_from("abcde"), unique=True)
    return st.one_of(
        st.lists(children, max_size=3),
        st.lists(children, max_size=3).map(tuple),
        keys.flatmap(lambda ks: st.tuples(*[children] * len(ks)).map(lambda vs: dict(zip(ks, vs)))),
        keys.flatmap(lambda ks: st.tuples(*[children] * len(ks)).map(
            lambda vs: collections.OrderedDict(zip(ks, vs)))),
        keys.flatmap(lambda ks: st.tuples(*[children] * len(ks)).map(
            lambda vs: collections.defaultdict(list, zip(ks, vs)))),
        st.lists(children, max_size=3).map(lambda v: collections.deque(v, maxlen=4)),
        st.tuples(children, children).map(lambda v: Pair(*v)),
        st.lists(children, max_size=2).map(ListSubclass),
    )


leaves = st.one_of(st.integers(-5, 5), st.none(), st.sampled_from(["x", 1.5]))
trees = st.recursive(leaves, _containers, max_leaves=12)


def _shape_of(value):
    """Type and contents, recursively: `==` alone takes a tuple for a namedtuple and a dict for an OrderedDict."""
    if isinstance(value, (list, tuple, collections.deque)):
        return (type(value), [_shape_of(v) for v in value])
    if isinstance(value, dict):
        return (type(value), [(k, _shape_of(v)) for k, v in value.items()], getattr(value, "default_factory", None))
    return (type(value), value)


@settings(max_examples=300, deadline=None)
@given(trees, trees)
def test_flatten_unflatten_and_map_match_torch(tree, other):
    ours, theirs = our_pytree.tree_flatten(tree), real_pytree.tree_flatten(tree)
    assert ours[0] == theirs[0]
    assert repr(ours[1]) == repr(theirs[1])
    for count in ("num_leaves", "num_nodes", "num_children"):
        assert getattr(ours[1], count) == getattr(theirs[1], count), count
    assert ours[1].is_leaf() == theirs[1].is_leaf()
    renumbered = list(range(len(ours[0])))
    assert _shape_of(our_pytree.tree_unflatten(renumbered, ours[1])) == _shape_of(
        real_pytree.tree_unflatten(renumbered, theirs[1]))
    # structure equality, and tree_map over a second tree of the first's shape down to its leaves (or not)
    assert (our_pytree.tree_structure(other) == ours[1]) == (real_pytree.tree_structure(other) == theirs[1])
    answers = []
    for pytree in (our_pytree, real_pytree):
        try:
            answers.append(("ok", _shape_of(pytree.tree_map(lambda a, b: (a, repr(b)), tree, other))))
        except (ValueError, TypeError) as exc:
            answers.append(("raised", type(exc)))
    assert answers[0] == answers[1]
    paths = [[(pytree.keystr(path), leaf) for path, leaf in pytree.tree_flatten_with_path(tree)[0]]
             for pytree in (our_pytree, real_pytree)]
    assert paths[0] == paths[1]
    only_ints = [pytree.tree_map_only(int, lambda v: v * 10, tree) for pytree in (our_pytree, real_pytree)]
    assert _shape_of(only_ints[0]) == _shape_of(only_ints[1])
    assert our_pytree.tree_any(lambda v: v is None, tree) == real_pytree.tree_any(lambda v: v is None, tree)


def test_unflatten_with_the_wrong_number_of_leaves_raises_as_torch():
    for pytree in (our_pytree, real_pytree):
        _, spec = pytree.tree_flatten([1, (2, 3)])
        with pytest.raises(ValueError, match="`leaves` has length 2 but the spec refers to a pytree that holds 3"):
            pytree.tree_unflatten([1, 2], spec)


def test_registered_node_with_the_dict_helpers_matches_torch():
    # what diffusers' BaseOutput and transformers' ModelOutput do on import
    class Output(collections.OrderedDict):
        pass

    results = []
    for pytree in (our_pytree, real_pytree):
        cls = type("Output", (Output,), {})
        pytree.register_pytree_node(cls, pytree._dict_flatten,
                                    lambda values, context, cls=cls: cls(**pytree._dict_unflatten(values, context)))
        with pytest.raises(ValueError, match="already registered"):
            pytree.register_pytree_node(cls, pytree._dict_flatten, pytree._dict_unflatten)
        tree = {"out": cls(logits=1, loss=[2, 3])}
        leaves, spec = pytree.tree_flatten(tree)
        rebuilt = pytree.tree_unflatten([v * 2 for v in leaves], spec)
        results.append((leaves, spec.num_nodes, type(rebuilt["out"]).__name__, dict(rebuilt["out"])))
        pytree._deregister_pytree_node(cls)
    assert results[0] == results[1]
    for name in ("_dict_flatten", "_dict_unflatten", "_list_flatten", "_list_unflatten", "_tuple_flatten",
                 "_tuple_unflatten"):
        assert getattr(our_pytree, name)(*_helper_args(name)) == getattr(real_pytree, name)(*_helper_args(name))


def _helper_args(name):
    if name.endswith("unflatten"):
        return ([1, 2], ["a", "b"]) if "dict" in name else ([1, 2], None)
    return ({"a": 1, "b": 2},) if "dict" in name else ([1, 2] if "list" in name else (1, 2),)
