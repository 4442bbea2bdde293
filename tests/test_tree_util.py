"""Tests of pyjax.tree_util / pyjax.tree. Expected strings and values were taken from JAX 0.10.2."""

import collections
import dataclasses
import doctest
import functools
import operator
import re

import optree
import pytest

import pyjax
import pyjax.tree as jtree
from pyjax import tree_util as tu
from pyjax._src import tree_types
from pyjax._src.tree_util import broadcast_flattened_prefix_with_treedef, prefix_errors
from pyjax._src import tree_util as tu_src
from pyjax._src.tree_util import flatten_prefix
from pyjax.tree_util import (DictKey, FlattenedIndexKey, GetAttrKey, Partial, SequenceKey, keystr, tree_flatten,
                             tree_leaves, tree_map, tree_structure, tree_unflatten)

Point = collections.namedtuple("Point", "x y")


def paths_and_leaves(tree, **kw):
    return [(keystr(path), leaf) for path, leaf in tu.tree_leaves_with_path(tree, **kw)]


# ---------------------------------------------------------------------------------------------
# Public surface

TREE_UTIL_NAMES = """DictKey FlattenedIndexKey GetAttrKey KeyEntry KeyPath Partial PyTreeDef SequenceKey all_leaves
default_registry flatten_one_level flatten_one_level_with_keys is_tree_node keystr register_dataclass
register_pytree_node register_pytree_node_class register_pytree_with_keys register_pytree_with_keys_class
register_static tree_all tree_broadcast tree_flatten tree_flatten_with_path tree_leaves tree_leaves_with_path
tree_map tree_map_with_path tree_reduce tree_reduce_associative tree_structure tree_transpose tree_unflatten
treedef_children treedef_is_leaf treedef_tuple""".split()

TREE_NAMES = """all broadcast flatten flatten_with_path leaves leaves_with_path map map_with_path reduce
reduce_associative static structure transpose unflatten""".split()


def test_public_names_match_jax():
    assert sorted(n for n in dir(tu) if not n.startswith("_")) == sorted(TREE_UTIL_NAMES)
    assert sorted(n for n in dir(jtree) if not n.startswith("_")) == sorted(TREE_NAMES)
    assert jtree.map is tu.tree_map and jtree.transpose is tu.tree_transpose


def test_docstring_examples():
    failures, tried = doctest.testmod(tu_src, extraglobs={"dataclasses": dataclasses, "operator": operator})
    assert tried > 30 and failures == 0
    # the key path entries, Partial and treedef_repr live in tree_types (tree_util re-exports them)
    failures, tried = doctest.testmod(tree_types, extraglobs={
        "operator": operator, "tree_map": tu_src.tree_map, "tree_structure": tu_src.tree_structure})
    assert tried >= 5 and failures == 0


def test_fast_path_is_optree():
    tree = {"b": [1, None], "a": (2.0,)}
    assert tree_flatten(tree) == optree.tree_flatten(tree, none_is_leaf=False, namespace=tu_src.NAMESPACE)
    leaves, treedef = tree_flatten(tree)
    assert isinstance(treedef, tu.PyTreeDef) and tu.PyTreeDef is optree.PyTreeSpec
    assert tree_unflatten(treedef, leaves) == tree
    assert tu.default_registry.namespace == tu_src.NAMESPACE and not tu.default_registry.none_is_leaf
    assert tu.default_registry.flatten(tree) == tree_flatten(tree)


# ---------------------------------------------------------------------------------------------
# Built-in nodes

def test_none_is_an_empty_node():
    assert tree_leaves([None, 1, (None,)]) == [1]
    assert tree_structure(None).num_leaves == 0 and tree_structure(None).num_nodes == 1
    assert tree_map(lambda x: x + 1, {"a": 1, "b": None}) == {"a": 2, "b": None}
    assert tu.treedef_is_leaf(tree_structure(None))
    assert not tu.all_leaves([None])
    assert tu.is_tree_node(type(None))
    assert tu.flatten_one_level(None) == ([], None)
    assert tree_structure([1, (2, None), {"a": None}]).num_nodes == 7  # JAX: 7


def test_dict_keys_are_sorted_ordereddict_keeps_order():
    assert tree_leaves({"b": 1, "a": 2, "c": 3}) == [2, 1, 3]
    assert tree_leaves(collections.OrderedDict(b=1, a=2)) == [1, 2]
    dd = collections.defaultdict(list, b=1, a=2)
    assert tree_leaves(dd) == [2, 1]
    out = tree_map(lambda x: x * 10, dd)
    assert isinstance(out, collections.defaultdict) and out.default_factory is list and out == {"a": 20, "b": 10}
    ordered = tree_map(lambda x: x, collections.OrderedDict(b=1, a=2))
    assert list(ordered) == ["b", "a"]


def test_dicts_are_rebuilt_with_sorted_keys():
    # JAX 0.10.2 rebuilds a dict in sorted key order, whatever order it was flattened from
    tree = {"b": [1, {"d": 2, "c": 3}], "a": 4}
    assert list(tree_map(lambda x: x, tree)) == ["a", "b"]
    assert list(tree_map(lambda x: x, tree)["b"][1]) == ["c", "d"]
    leaves, treedef = tree_flatten(tree)
    assert list(tree_unflatten(treedef, leaves)) == ["a", "b"]
    assert list(tree_unflatten(tree_structure(tree), leaves)) == ["a", "b"]
    assert list(tu.tree_map_with_path(lambda p, x: x, tree)) == ["a", "b"]
    out = pyjax.jit(lambda x: {"b": x, "a": x})(1.0)  # the first (traced) call too
    assert list(out) == ["a", "b"]
    assert list(pyjax.grad(lambda d: d["b"] * d["a"])({"b": 1.0, "a": 2.0})) == ["a", "b"]


def test_namedtuples():
    leaves, treedef = tree_flatten(Point(1, [2, 3]))
    assert leaves == [1, 2, 3]
    assert tree_unflatten(treedef, [4, 5, 6]) == Point(4, [5, 6])
    assert tu.flatten_one_level(Point(1, 2)) == ([1, 2], Point)
    assert tu.is_tree_node(Point)
    assert tree_structure(Point(1, 2)) != tree_structure((1, 2))


def test_containers_subclasses_are_leaves():
    class MyList(list):
        pass

    assert tree_leaves(MyList([1, 2])) == [MyList([1, 2])]


def test_treedef_methods():
    treedef = tree_structure({"a": 1, "b": (2, 3)})
    assert (treedef.num_leaves, treedef.num_nodes) == (3, 5)
    assert treedef.children() == tu.treedef_children(treedef) == [tree_structure(0), tree_structure((0, 0))]
    assert treedef.unflatten([7, 8, 9]) == {"a": 7, "b": (8, 9)}
    assert treedef.flatten_up_to({"a": [1], "b": (2, {"c": 3})}) == [[1], 2, {"c": 3}]
    assert tu.treedef_tuple([tree_structure(1), tree_structure([1, 2])]) == tree_structure((1, [1, 2]))
    assert tu.treedef_is_leaf(tree_structure(1)) and not tu.treedef_is_leaf(tree_structure([1]))


# ---------------------------------------------------------------------------------------------
# Key paths (expected strings from JAX 0.10.2)

def test_key_classes():
    assert [str(k) for k in (DictKey("a"), DictKey(1), SequenceKey(3), GetAttrKey("w"), FlattenedIndexKey(2))] == \
        ["['a']", "[1]", "[3]", ".w", "[<flat index 2>]"]
    assert repr(DictKey("a")) == "DictKey(key='a')" and repr(SequenceKey(idx=3)) == "SequenceKey(idx=3)"
    assert repr(GetAttrKey("w")) == "GetAttrKey(name='w')" and repr(FlattenedIndexKey(2)) == "FlattenedIndexKey(key=2)"
    assert DictKey("a") == DictKey("a") and hash(DictKey("a")) == hash(DictKey("a"))
    assert DictKey(0) != SequenceKey(0) and SequenceKey(0) != FlattenedIndexKey(0)
    with pytest.raises(AttributeError):
        DictKey("a").key = "b"


def test_keystr():
    path = (DictKey("a"), SequenceKey(0), GetAttrKey("x"))
    assert keystr(path) == "['a'][0].x"
    assert keystr(path, separator="/") == "['a']/[0]/.x"
    assert keystr(path, simple=True) == "a0x"
    assert keystr(path, simple=True, separator="/") == "a/0/x"
    assert keystr(("a", 1, DictKey("b"))) == "a1['b']"
    assert keystr(("a", 1, DictKey("b")), simple=True, separator=".") == "a.1.b"
    assert keystr((FlattenedIndexKey(2),), simple=True) == "2"
    assert keystr(()) == ""


def test_paths_of_builtin_nodes():
    tree = {"b": [1, (2, None)], "a": Point(3, 4),
            "c": collections.OrderedDict([("z", 5), ("y", 6)]), "d": collections.defaultdict(int, q=7)}
    assert paths_and_leaves(tree) == [
        ("['a'].x", 3), ("['a'].y", 4), ("['b'][0]", 1), ("['b'][1][0]", 2),
        ("['c']['z']", 5), ("['c']['y']", 6), ("['d']['q']", 7)]
    pairs, treedef = tu.tree_flatten_with_path(tree)
    assert pairs[0][0] == (DictKey("a"), GetAttrKey("x")) and treedef == tree_structure(tree)
    simple = [keystr(p, simple=True, separator="/") for p, _ in pairs]
    assert simple == ["a/x", "a/y", "b/0", "b/1/0", "c/z", "c/y", "d/q"]
    assert tu.tree_leaves_with_path(None) == [] and tu.tree_leaves_with_path(5) == [((), 5)]


def test_is_leaf_takes_path():
    calls = []

    def is_leaf(path, x):
        calls.append((keystr(path), x))
        return keystr(path) == "['a']"

    tree = {"a": [1, 2], "b": (3, None)}
    pairs, treedef = tu.tree_flatten_with_path(tree, is_leaf=is_leaf, is_leaf_takes_path=True)
    assert pairs == [((DictKey("a"),), [1, 2]), ((DictKey("b"), SequenceKey(0)), 3)]
    assert treedef == tree_structure({"a": 0, "b": (0, None)})
    # JAX asks once per object, in preorder, including None and leaves.
    assert calls == [("", tree), ("['a']", [1, 2]), ("['b']", (3, None)), ("['b'][0]", 3), ("['b'][1]", None)]


def test_map_with_path():
    out = tu.tree_map_with_path(lambda p, x, y: (keystr(p), x, y), {"a": [1, 2]}, {"a": [3, 4]})
    assert out == {"a": [("['a'][0]", 1, 3), ("['a'][1]", 2, 4)]}
    out = jtree.map_with_path(lambda p, x: keystr(p), {"a": [1, 2]}, is_leaf=lambda p, x: isinstance(x, list),
                              is_leaf_takes_path=True)
    assert out == {"a": "['a']"}
    assert jtree.map_with_path(lambda p, x: keystr(p), {"a": [1, 2]}, is_leaf=lambda x: isinstance(x, list)) == \
        {"a": "['a']"}


# ---------------------------------------------------------------------------------------------
# Registration

class Pair:
    def __init__(self, a, b):
        self.a, self.b = a, b

    def __eq__(self, other):
        return type(other) is type(self) and (self.a, self.b) == (other.a, other.b)


class PairNode(Pair):
    pass


class PairWithKeys(Pair):
    pass


tu.register_pytree_node(PairNode, lambda p: ((p.a, p.b), "aux"), lambda aux, ab: PairNode(*ab))
tu.register_pytree_with_keys(PairWithKeys, lambda p: (((GetAttrKey("a"), p.a), ("bkey", p.b)), None),
                             lambda aux, ab: PairWithKeys(*ab))


def test_register_pytree_node():
    leaves, treedef = tree_flatten(PairNode(1, [2]))
    assert leaves == [1, 2] and tree_unflatten(treedef, [3, 4]) == PairNode(3, [4])
    assert tree_map(lambda x: x * 2, [PairNode(1, 2)]) == [PairNode(2, 4)]
    assert paths_and_leaves(PairNode(1, [2])) == [("[<flat index 0>]", 1), ("[<flat index 1>][0]", 2)]
    assert tu.flatten_one_level(PairNode(1, 2)) == ([1, 2], "aux")
    assert tu.flatten_one_level_with_keys(PairNode(1, 2)) == \
        ([(FlattenedIndexKey(0), 1), (FlattenedIndexKey(1), 2)], "aux")
    assert tu.is_tree_node(PairNode) and not tu.is_tree_node(Pair) and not tu.is_tree_node([1])
    with pytest.raises(ValueError, match="PairNode"):
        tu.register_pytree_node(PairNode, lambda p: ((), None), lambda aux, ch: None)
    with pytest.raises(ValueError, match="list"):
        tu.register_pytree_node(list, lambda p: (p, None), lambda aux, ch: list(ch))


def test_register_pytree_node_with_keys_func():
    class Node(Pair):
        pass

    tu.register_pytree_node(Node, lambda p: ((p.a, p.b), None), lambda _, ab: Node(*ab),
                            lambda p: (((GetAttrKey("a"), p.a), (GetAttrKey("b"), p.b)), None))
    assert paths_and_leaves(Node(1, 2)) == [(".a", 1), (".b", 2)]


def test_register_pytree_with_keys():
    assert paths_and_leaves(PairWithKeys(1, {"q": 2})) == [(".a", 1), ("bkey['q']", 2)]  # JAX: ykey['q']
    assert tree_map(lambda x: -x, PairWithKeys(1, 2)) == PairWithKeys(-1, -2)
    assert tu.flatten_one_level_with_keys(PairWithKeys(1, 2)) == ([(GetAttrKey("a"), 1), ("bkey", 2)], None)


def test_register_pytree_with_keys_uses_flatten_func():
    calls = []

    class Node(Pair):
        pass

    tu.register_pytree_with_keys(Node, lambda p: (((GetAttrKey("a"), p.a), (GetAttrKey("b"), p.b)), None),
                                 lambda _, ab: Node(*ab), lambda p: calls.append(1) or ((p.a, p.b), None))
    assert tree_leaves(Node(1, 2)) == [1, 2] and calls == [1]
    assert paths_and_leaves(Node(1, 2)) == [(".a", 1), (".b", 2)]


def test_register_class_decorators():
    @tu.register_pytree_node_class
    class Box:
        def __init__(self, x):
            self.x = x

        def tree_flatten(self):
            return (self.x,), None

        @classmethod
        def tree_unflatten(cls, aux_data, children):
            return cls(*children)

    @tu.register_pytree_with_keys_class
    class KeyedBox(Box):
        def tree_flatten_with_keys(self):
            return ((GetAttrKey("x"), self.x),), None

    assert tree_map(lambda v: v + 1, Box(1)).x == 2
    assert tu.tree_leaves_with_path(Box(5)) == [((FlattenedIndexKey(0),), 5)]
    assert tu.tree_leaves_with_path(KeyedBox(5)) == [((GetAttrKey("x"),), 5)]
    assert tree_leaves(KeyedBox([1, 2])) == [1, 2]


@tu.register_dataclass
@dataclasses.dataclass
class Layer:
    w: object
    b: object
    act: str = dataclasses.field(default="relu", metadata=dict(static=True))


def test_register_dataclass_infers_fields_and_meta_is_static():
    leaves, treedef = tree_flatten(Layer(1, [2, 3]))
    assert leaves == [1, 2, 3]
    assert tree_map(lambda v: v * 2, Layer(1, [2, 3], "tanh")) == Layer(2, [4, 6], "tanh")
    assert tree_structure(Layer(1, 2, "a")) != tree_structure(Layer(1, 2, "b"))
    assert tree_structure(Layer(1, 2, "a")) == tree_structure(Layer(3, 4, "a"))
    assert paths_and_leaves(Layer(1, [2, 3])) == [(".w", 1), (".b[0]", 2), (".b[1]", 3)]


def test_register_dataclass_explicit_fields_and_static():
    @functools.partial(tu.register_dataclass, data_fields=["x"], meta_fields=["n"])
    @dataclasses.dataclass
    class F:
        x: int
        n: int

    @tu.register_dataclass
    @dataclasses.dataclass
    class G:
        x: int
        mode: str = jtree.static(default="add")

    assert tree_flatten(F(1, 2))[0] == [1] and tree_map(lambda v: v + 1, F(1, 2)) == F(2, 2)
    assert tree_leaves(G(5)) == [5] and tree_map(lambda v: v, G(5, "mul")) == G(5, "mul")


def test_register_dataclass_plain_class():
    class H:
        def __init__(self, x, y):
            self.x, self.y = x, y

    tu.register_dataclass(H, data_fields=["x"], meta_fields=["y"])
    assert tree_leaves(H(1, 2)) == [1]
    assert tree_map(lambda v: v, H(1, 2)).y == 2
    assert paths_and_leaves(H(1, 2)) == [(".x", 1)]


def test_register_dataclass_errors():
    @dataclasses.dataclass
    class G:
        x: int
        y: int

    with pytest.raises(ValueError, match="Missing fields.*'y'"):
        tu.register_dataclass(G, data_fields=["x"], meta_fields=[])
    with pytest.raises(ValueError, match="Unexpected fields.*'y'"):
        tu.register_dataclass(G, data_fields=["x"], meta_fields=["y"], drop_fields=["y"])
    with pytest.raises(ValueError, match="overlap"):
        tu.register_dataclass(G, data_fields=["x", "y"], meta_fields=["y"])
    with pytest.raises(TypeError, match="both"):
        tu.register_dataclass(G, data_fields=["x", "y"])
    with pytest.raises(TypeError, match="not a dataclass"):
        tu.register_dataclass(Pair)


@tu.register_static
class Mode:
    def __init__(self, v):
        self.v = v

    def __hash__(self):
        return hash(self.v)

    def __eq__(self, other):
        return isinstance(other, Mode) and other.v == self.v


def test_register_static():
    leaves, treedef = tree_flatten([Mode("a"), 2])
    assert leaves == [2]
    assert tree_unflatten(treedef, [3])[0] == Mode("a")
    assert tree_structure(Mode("a")) == tree_structure(Mode("a")) != tree_structure(Mode("b"))
    assert tu.treedef_is_leaf(tree_structure(Mode("a"))) and tu.is_tree_node(Mode)
    assert tu.tree_leaves_with_path([Mode("a"), 2]) == [((SequenceKey(1),), 2)]


# ---------------------------------------------------------------------------------------------
# Tree operations

def test_tree_map_multiple_trees_and_prefix_semantics():
    assert tree_map(lambda x, y, z: x + y + z, [1, (2,)], [10, (20,)], [100, (200,)]) == [111, (222,)]
    # The first tree is a prefix: each of its leaves takes a whole subtree of the others (as in JAX).
    assert tree_map(lambda x, y: (x, y), [1, 2], [3, [4, 5]]) == [(1, 3), (2, [4, 5])]
    assert tree_map(lambda x, y: (x, y), [1, 2], [1, None]) == [(1, 1), (2, None)]
    assert tree_map(lambda x: x, None) is None


def test_tree_map_is_leaf():
    is_tuple = lambda x: isinstance(x, tuple)
    assert tree_map(lambda x: len(x) if is_tuple(x) else x, [1, (2, 3)], is_leaf=is_tuple) == [1, 2]
    assert tree_map(lambda x, y: (x, y), [1, (2, 3)], [4, [5, 6]], is_leaf=is_tuple) == [(1, 4), ((2, 3), [5, 6])]
    assert tree_leaves([None, 1], is_leaf=lambda x: x is None) == [None, 1]
    assert jtree.leaves({"a": (1, 2)}, is_leaf=is_tuple) == [(1, 2)]
    assert tree_structure((1, [2]), is_leaf=lambda x: isinstance(x, list)).num_leaves == 2


def test_tree_reduce_and_all():
    assert tu.tree_reduce(operator.add, [1, (2, 3)]) == 6
    assert jtree.reduce(operator.add, [1, (2, 3)], 10) == 16
    assert tu.tree_reduce(lambda a, b: (a, b), [(1, 2), 3], is_leaf=lambda x: isinstance(x, tuple)) == ((1, 2), 3)
    with pytest.raises(TypeError, match="empty"):
        tu.tree_reduce(operator.add, [])
    assert tu.tree_all([1, [True]]) and not jtree.all([1, 0]) and tu.tree_all([])
    assert tu.all_leaves([1, 2]) and not tu.all_leaves([1, [2]])
    assert tu.all_leaves([(1, 2), 3], is_leaf=lambda x: isinstance(x, tuple))


def test_tree_reduce_associative_matches_jax_grouping():
    pair = lambda a, b: (a, b)
    assert tu.tree_reduce_associative(pair, [0]) == 0
    assert tu.tree_reduce_associative(pair, list(range(3))) == (0, (1, 2))
    assert tu.tree_reduce_associative(pair, [1, 2, 3, 4, 5]) == ((1, 2), (3, (4, 5)))
    assert tu.tree_reduce_associative(pair, list(range(7))) == ((0, (1, 2)), ((3, 4), (5, 6)))
    assert tu.tree_reduce_associative(pair, [1, 2], identity=0) == (1, 2)
    assert jtree.reduce_associative(operator.add, [], identity=0) == 0
    with pytest.raises(TypeError, match="identity"):
        tu.tree_reduce_associative(operator.add, [])


def test_tree_transpose():
    outer, inner = tree_structure([0, 0]), tree_structure({"a": 0, "b": 0})
    tree = [{"a": 1, "b": 2}, {"a": 3, "b": 4}]
    assert tu.tree_transpose(outer, inner, tree) == {"a": [1, 3], "b": [2, 4]}
    assert jtree.transpose(outer, None, tree) == {"a": [1, 3], "b": [2, 4]}
    with pytest.raises(TypeError) as e:
        tu.tree_transpose(tree_structure([0, 0]), tree_structure((0, 0)), [(1, 2), (3, 4, 5)])
    assert "[(*, *), (*, *, *)]" in str(e.value) and "[(*, *), (*, *)]" in str(e.value)


def test_tree_broadcast():
    assert tu.tree_broadcast([1, 2], [[3, 4], {"a": 5}]) == [[1, 1], {"a": 2}]
    assert jtree.broadcast([1, None], [[4, 5], None]) == [[1, 1], None]
    is_tuple = lambda x: isinstance(x, tuple)
    assert tu.tree_broadcast([1, (2, 3)], [[4, 5], (6, 7)], is_leaf=is_tuple) == [[1, 1], ((2, 3), (2, 3))]
    # JAX 0.10.2's error (prefix_errors' first mismatch, named "broadcast_prefix prefix_tree")
    with pytest.raises(ValueError, match=re.escape(
            "pytree structure error: different types at key path\n"
            "    broadcast_prefix prefix_tree[1]\nAt that key path, the prefix pytree "
            "broadcast_prefix prefix_tree has a subtree of type\n    <class 'NoneType'>\nbut at "
            "the same key path the full pytree has a subtree of different type\n    <class 'dict'>.")):
        tu.tree_broadcast([1, None], [[3, 4], {"a": 5}])


def test_flatten_prefix():
    assert flatten_prefix(0, {"a": 1, "b": [2, None, 3]}, "vmap in_axes") == [0, 0, 0]
    assert flatten_prefix((0, None), ([1, 2], {"a": 3}), "vmap in_axes") == [0, 0, None]  # None is a leaf
    assert flatten_prefix(None, ([1, 2], 3), "vmap in_axes") == [None, None, None]
    assert flatten_prefix({"a": 1, "b": 0}, {"b": (1, 2), "a": 3}, "in_axes") == [1, 0, 0]
    with pytest.raises(ValueError) as e:
        flatten_prefix((0, [1, 2]), ([1], (2, 3)), "vmap in_axes")
    message = str(e.value)
    assert "vmap in_axes" in message and "at key path [1]" in message
    assert "PyTreeDef((*, [*, *]))" in message and "PyTreeDef(([*], (*, *)))" in message


def test_partial_is_a_pytree():
    add3 = Partial(lambda a, b, c=1: a + b + c, 1, c=3)
    assert tree_leaves(add3) == [1, 3]
    scaled = tree_map(lambda x: x * 10, add3)
    assert isinstance(scaled, Partial) and scaled(2) == 42
    assert tu.tree_leaves_with_path(add3) == [((FlattenedIndexKey(0), SequenceKey(0)), 1),
                                              ((FlattenedIndexKey(1), DictKey("c")), 3)]
    assert tree_structure(add3) == tree_structure(tree_map(lambda x: x, add3))


def test_partial_of_partial_keeps_inner_args_static():
    inner = functools.partial(lambda a, b, c: (a, b, c), 1)
    p = Partial(inner, 2)
    assert tree_leaves(p) == [2] and p(3) == (1, 2, 3)
    assert p.func.args == (1,) and tree_map(lambda x: x * 5, p)(3) == (1, 10, 3)
    assert tree_structure(Partial(inner, 0)) == tree_structure(p)


def test_flatten_one_level():
    assert tu.flatten_one_level({"b": 1, "a": (2, 3)}) == ([(2, 3), 1], ["a", "b"])
    assert tu.flatten_one_level_with_keys([7, 8]) == ([(SequenceKey(0), 7), (SequenceKey(1), 8)], None)
    assert tu.flatten_one_level_with_keys(Point(1, 2))[0] == [(GetAttrKey("x"), 1), (GetAttrKey("y"), 2)]
    for leaf in (1, "s", Pair(1, 2)):
        with pytest.raises(ValueError, match="can't tree-flatten type"):
            tu.flatten_one_level(leaf)
        with pytest.raises(ValueError, match="can't tree-flatten type"):
            tu.flatten_one_level_with_keys(leaf)


# ---------------------------------------------------------------------------------------------
# Structure-mismatch errors show both structures

@pytest.mark.parametrize("tree, other, where", [
    ({"a": 1}, {"b": 2}, "at the root"),
    ([1, 2], [1, 2, 3], "at the root"),
    ([1, 2], (1, 2), "at the root"),
    ({"a": 1, "b": None}, {"a": 2, "b": 3}, "at key path ['b']"),
    ([1, None], [1, [2, 3]], "at key path [1]"),
])
def test_tree_map_mismatch_error_shows_both_structures(tree, other, where):
    with pytest.raises(ValueError) as e:
        tree_map(lambda x, y: x, tree, other)
    message = str(e.value)
    assert message.startswith("pytree structure error") and "tree_map:" in message and where in message
    assert str(tree_structure(tree)) in message and str(tree_structure(other)) in message


def test_map_with_path_mismatch_error():
    with pytest.raises(ValueError) as e:
        tu.tree_map_with_path(lambda p, x, y, z: x, {"a": 1}, {"a": 0}, {"b": 2})
    assert "rest[1]" in str(e.value) and "{'a': *}" in str(e.value) and "{'b': *}" in str(e.value)


def test_tree_unflatten_wrong_number_of_leaves():
    treedef = tree_structure([1, 2])
    with pytest.raises(ValueError, match=r"tree_unflatten: PyTreeDef\(\[\*, \*\]\) has 2 leaves, got 3"):
        tree_unflatten(treedef, [1, 2, 3])
    with pytest.raises(ValueError, match=r"PyTreeDef\(\[\*, \*\]\) has 2 leaves"):
        jtree.unflatten(treedef, iter([1]))
    assert tree_unflatten(tree_structure([1, None]), iter([5])) == [5, None]


def test_prefix_errors_and_broadcast_flattened_prefix_match_jax():
    """jax._src.tree_util's prefix_errors / broadcast_flattened_prefix_with_treedef (which JAX's
    tree_util_test imports): one error per mismatching subtree, texts recorded from JAX 0.10.2."""
    errs = [str(e("x")) for e in prefix_errors([{1: 2}, (1,), [3]], [{3: 4}, [5], [6, 7]])]
    assert errs == [
        "pytree structure error: different pytree metadata at key path\n    x[0]\nAt that key "
        "path, the prefix pytree x has a subtree of type\n    <class 'dict'>\nwith metadata\n    "
        "(1,)\nbut at the same key path the full pytree has a subtree of the same type but with "
        "metadata\n    (3,)\nso the diff in the metadata at these pytree nodes is\n    - (1,)\n"
        "    ?  ^\n\n    + (3,)\n    ?  ^\n",
        "pytree structure error: different types at key path\n    x[1]\nAt that key path, the "
        "prefix pytree x has a subtree of type\n    <class 'tuple'>\nbut at the same key path "
        "the full pytree has a subtree of different type\n    <class 'list'>.",
        "pytree structure error: different lengths of list at key path\n    x[2]\nAt that key "
        "path, the prefix pytree x has a subtree of type list of length 1, but the full pytree "
        "has a subtree of the same type but of length 2."]
    e, = prefix_errors({"a": 1}, {"a": 2, "b": 3})
    assert "so the symmetric difference on key sets is\n    b" in str(e("in_axes"))
    assert prefix_errors((1, 2), ((11, 12, 13), 2)) == []
    full = tu.tree_structure(((0, None, 0), {"a": 0, "b": [0]}))
    assert broadcast_flattened_prefix_with_treedef(
        [1, 2], tu.tree_structure((0, 0)), full) == [1, 1, 2, 2]


def test_jax_suite_tree_util_details():
    """Issue 23 (JAX's tree_util_test): a defaultdict is rebuilt with sorted keys and its
    factory, as a dict; FlattenedIndexKey hashes apart from SequenceKey; tree_transpose's
    mismatch and register_dataclass's field check say JAX's words (TypeError 'Mismatch',
    'must include all dataclass fields ... Unexpected fields')."""
    d = collections.defaultdict(int, {"b": 2, "a": 1, "c": {"b": 2, "a": 1}})
    leaves, treedef = tu.tree_flatten(d)
    assert leaves == [1, 2, 1, 2]
    restored = tu.tree_unflatten(treedef, leaves)
    assert list(restored) == ["a", "b", "c"] and restored.default_factory is int
    assert hash(tu.FlattenedIndexKey(1)) != hash(tu.SequenceKey(1))
    assert hash(tu.FlattenedIndexKey(1)) == hash(tu.FlattenedIndexKey(1))
    with pytest.raises(TypeError, match="Mismatch"):
        tu.tree_transpose(tu.tree_structure({"a": 1, "b": 2}), tu.tree_structure([1, 2, 3]),
                          {"a": [1, 2], "b": [3, 4]})

    @dataclasses.dataclass
    class Point:
        x: int
        y: int

    with pytest.raises(ValueError, match="data_fields and meta_fields must include all dataclass "
                                         "fields.*Unexpected fields: {'z'}"):
        tu.register_dataclass(Point, data_fields=["x", "y", "z"], meta_fields=[])


# ---------------------------------------------------------------------------------------------
# flatten_up_to and bad flatten functions: JAX 0.10.2's ValueErrors and words (recorded from
# JAX 0.10.2; JAX's tree_util_test testFlattenUpToErrors, testBadFlatten*)

class _Pair:
    def __init__(self, *a):
        self.a = a

    def __repr__(self):
        return f"_Pair{self.a}"


class _Sized(_Pair):
    def __repr__(self):
        return f"_Sized{self.a}"


tu.register_pytree_node(_Pair, lambda o: (o.a, None), lambda _, c: _Pair(*c))
tu.register_pytree_node(_Sized, lambda o: (o.a, len(o.a)), lambda _, c: _Sized(*c))
_AT = collections.namedtuple("_AT", "foo bar")
_AT2 = collections.namedtuple("_AT2", "foo bar")


@pytest.mark.parametrize("tree, other, message", [
    ([1, 2], [7], "List arity mismatch: 1 != 2; list: [7]."),
    ((1,), (7, 8), "Tuple arity mismatch: 2 != 1; tuple: (7, 8)."),
    ({"a": 1}, {"a": 7, "b": 8}, "Dict key mismatch; expected keys: ['a']; present keys: ['a', 'b']."),
    ({"a": 1, "b": 2}, {"a": 7}, "Dict key mismatch; expected keys: ['a', 'b']; present keys: ['a']."),
    ([1], {"a": 7}, "Expected list, got {'a': 7}."),
    ((1,), [7], "Expected tuple, got [7]."),
    ({"a": 1}, (7,), "Expected dict, got (7,)."),
    ([[1]], 3, "Expected list, got 3."),
    ({"a": [1, (2, 3)]}, {"a": [1, (2,)]}, "Tuple arity mismatch: 1 != 2; tuple: (2,)."),
    ([_AT(1, 2)], [(1, 2)], "Expected named tuple, got (1, 2)."),
    ((1, 2), _AT(1, 2), "Expected tuple, got _AT(foo=1, bar=2)."),
    ([_AT(1, 2)], [_AT2(1, 2)],
     "Named tuple type mismatch: expected type: <class 'test_tree_util._AT'>, tuple: _AT2(foo=1, bar=2)."),
    ([_Pair(1, 2)], [(1, 2)],
     "Custom node type mismatch: expected type: <class 'test_tree_util._Pair'>, value: (1, 2)."),
    (_Pair(1, 2), _Pair(1), "Custom type arity mismatch: 1 != 2; value: _Pair(1,)."),
    (_Sized(1, 2), _Sized(1), "Mismatch custom node data: 2 != 1; value: _Sized(1,)."),
    (None, [2], "Expected None, got [2]."),
])
def test_flatten_up_to_errors_are_jax_words(tree, other, message):
    with pytest.raises(ValueError) as e:
        tree_structure(tree).flatten_up_to(other)
    assert str(e.value).split("\n\n")[0] == message


def test_other_optree_structures_keep_optree_flatten_up_to_errors():
    spec = optree.tree_structure([1, 2], namespace="someone-else", none_is_leaf=True)
    with pytest.raises(ValueError, match="list arity mismatch"):
        spec.flatten_up_to([7])


@pytest.mark.parametrize("flatten, message", [
    (lambda o: "hello", "should return a (children, aux_data) tuple, got 'hello'"),
    (lambda o: (2, 3, 4), "should return a (children, aux_data) tuple, got (2, 3, 4)"),
    (lambda o: (7, 7), "should return a (children, aux_data) tuple where 'children' is iterable, got (7, 7)"),
])
@pytest.mark.parametrize("fn", [tree_flatten, tree_leaves, tree_structure, lambda t: tree_map(lambda x: x, t)])
def test_bad_flatten_function_is_jax_value_error(flatten, message, fn):
    Bad = collections.namedtuple("Bad", ("foo", "bar"))
    tu.register_pytree_node(Bad, flatten, lambda _, c: None)
    with pytest.raises(ValueError) as e:
        fn([1, Bad(3, 4)])
    assert str(e.value) == "The to_iterable function for a custom PyTree node " + message
