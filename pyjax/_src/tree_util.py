"""Pytrees (`jax.tree_util` / `jax.tree`): flattening, mapping, key paths and node registration.

Everything sits on optree. pyjax registers its nodes in a private optree namespace (`NAMESPACE`)
and always passes `none_is_leaf=False`, so `None` is an empty node as in JAX; `PyTreeDef` *is*
optree's `PyTreeSpec`, printed in JAX's spelling. `tree_flatten`/`tree_unflatten` are the hot
path (jit dispatch calls them on every call) and stay one optree call each. Key paths are
computed in Python from `flatten_one_level_with_keys`; they are for user code and error
messages, not for dispatch.

NB: optree decides which built-in types are nodes. Unlike JAX, `collections.deque` and
struct sequences (`time.struct_time`, `os.stat_result`) are nodes, not leaves, and a dict whose
keys cannot be sorted is flattened in insertion order instead of raising.

C++ jit dispatch (jaxlib's `_jax.pjit`) flattens arguments with jaxlib's own registry, so every
node registered here is registered there too (`dispatch_registry`), with the same functions: the
two flatten to the same leaves. (A value optree sees as a node and jaxlib as a leaf, such as a
struct sequence, only sends jit calls down the slower Python path.)

Layout: core flatten/unflatten, treedef helpers, key paths, registration, tree operations,
structure-mismatch errors, `Partial`'s registration, prefix errors. The key path entries,
`Partial` and `treedef_repr` are in tree_types.py (re-exported here).
"""

from __future__ import annotations

import atexit
import collections
import ctypes
import dataclasses
import difflib
import functools
import gc
import operator
import threading
import warnings
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any

try:  # optree's exit hooks empty its type registry: they wait for the real exit (see below)
    _optree_exit_hooks = []
    _atexit_register = atexit.register
    atexit.register = lambda fn, *args, **kwargs: _optree_exit_hooks.append((fn, args, kwargs)) or fn
    import optree
    from optree import PyTreeKind
finally:
    atexit.register = _atexit_register

from pyjax._src.backend import xla
from pyjax._src.tree_types import (  # noqa: F401 (tree_util.X, as in JAX)
    DictKey, FlattenedIndexKey, GetAttrKey, KeyEntry, KeyLeafPair, KeyPath, Partial,
    SequenceKey, _OpaquePartial, keystr, _simple_key_str, treedef_repr)


def _run_optree_exit_hooks():
    """optree's exit hooks empty its registry, after which no tuple or dict flattens. chex's
    tests run the exit functions themselves (`atexit._run_exitfuncs()`) and go on, as JAX,
    whose pytrees have no such hook, does: run them only at the real exit (threading has
    stopped the main thread by then), as the backend's exit hook does (backend/xla.py)."""
    if threading.main_thread().is_alive():
        atexit.register(_run_optree_exit_hooks)
        return
    for fn, args, kwargs in reversed(_optree_exit_hooks):
        fn(*args, **kwargs)


if _optree_exit_hooks:  # (none when optree was imported before pyjax: nothing to defer)
    atexit.register(_run_optree_exit_hooks)

NAMESPACE = "pyjax"
PyTreeDef = optree.PyTreeSpec

# jaxlib's registry for C++ dispatch. Bare, it knows None, tuples, namedtuples, lists and dicts;
# the other containers optree treats as nodes are added with optree's child order.
dispatch_registry = xla.new_pytree_registry()
dispatch_registry.register_node(
    collections.OrderedDict, lambda d: (list(d.values()), list(d.keys())),
    lambda keys, values: collections.OrderedDict(zip(keys, values)))
dispatch_registry.register_node(
    collections.defaultdict,
    lambda d: ([d[k] for k in sorted(d)], (d.default_factory, tuple(sorted(d)))),
    lambda aux, values: collections.defaultdict(aux[0], zip(aux[1], values)))
dispatch_registry.register_node(
    collections.deque, lambda d: (list(d), d.maxlen),
    lambda maxlen, values: collections.deque(values, maxlen=maxlen))


@dataclasses.dataclass(frozen=True)
class PyTreeRegistry:
    """The optree registry settings pyjax flattens with."""
    namespace: str
    none_is_leaf: bool = False

    def flatten(self, tree, is_leaf=None):
        leaves, spec = optree.tree_flatten(tree, is_leaf, none_is_leaf=self.none_is_leaf, namespace=self.namespace)
        return leaves, _sorted_spec(spec)


# Types that are pytree nodes here (so transformations flatten them to their data) but leaves of
# the public `jax.tree_util`/`jax.tree` functions (`pyjax._src.tree_api`), as JAX's arrays of an
# extended dtype are: typed PRNG key arrays. Filled by the modules defining them.
opaque_leaf_types: set[type] = set()


# NB: JAX's default_registry is jaxlib's C++ PyTreeRegistry (with register_node & co). Ours only
# names the optree namespace, so other code can call optree directly with the same settings;
# register nodes with the register_* functions below.
default_registry = PyTreeRegistry(NAMESPACE)


# ---------------------------------------------------------------------------------------------
# Core flatten / unflatten (the hot path: keep these one optree call each)

# NB: optree's structure remembers the key order of each dict it flattened and rebuilds dicts in
# that order; JAX's rebuilds them with sorted keys (`tree_map(f, {'b': 1, 'a': 2})` is
# `{'a': .., 'b': ..}`). Structures are made to forget the insertion order here, once per
# structure: equal structures hash equal whatever their dicts' order, so a cache lookup finds it.
_SORTED_SPECS: dict = {}


def _sort_dict_node(node):
    if node.kind not in (PyTreeKind.DICT, PyTreeKind.DEFAULTDICT):
        return node
    leaf = optree.treespec_leaf(none_is_leaf=node.none_is_leaf, namespace=node.namespace)
    children = dict.fromkeys(node.entries(), leaf)
    if node.kind == PyTreeKind.DEFAULTDICT:  # (its factory: rebuild one, as the spec hides it)
        factory = node.unflatten([None] * node.num_children).default_factory
        return optree.treespec_defaultdict(factory, children, none_is_leaf=node.none_is_leaf,
                                           namespace=node.namespace)
    return optree.treespec_dict(children, none_is_leaf=node.none_is_leaf, namespace=node.namespace)


def _sorted_spec(spec):
    try:
        return _SORTED_SPECS[spec]
    except KeyError:
        sorted_spec = spec.transform(_sort_dict_node) if spec.num_nodes > 1 else spec
        if len(_SORTED_SPECS) > 4096:
            _SORTED_SPECS.clear()
        _SORTED_SPECS[sorted_spec] = sorted_spec
        return sorted_spec
    except (TypeError, ValueError):  # a node's aux data is unhashable or not comparable
        return spec.transform(_sort_dict_node)

def tree_flatten(tree: Any, is_leaf: Callable[[Any], bool] | None = None) -> tuple[list, PyTreeDef]:
    """Flattens `tree` into its leaves and structure; `None` is an empty node.

    >>> tree_flatten({'b': [1, None], 'a': 2})
    ([2, 1], PyTreeDef({'a': *, 'b': [*, None]}))
    """
    try:
        leaves, spec = optree.tree_flatten(tree, is_leaf, none_is_leaf=False, namespace=NAMESPACE)
    except (TypeError, RuntimeError) as e:
        raise _bad_flatten_error(tree, is_leaf, e) from None
    return leaves, _sorted_spec(spec)


def tree_unflatten(treedef: PyTreeDef, leaves: Iterable[Any]) -> Any:
    """Rebuilds a tree of structure `treedef` from `leaves` (the inverse of `tree_flatten`).

    >>> tree_unflatten(tree_structure((0, [0])), [1, 2])
    (1, [2])
    """
    try:
        return treedef.unflatten(leaves)
    except ValueError as e:
        raise _unflatten_error(treedef, leaves, e) from None


def tree_leaves(tree: Any, is_leaf: Callable[[Any], bool] | None = None) -> list:
    """The leaves of `tree`, in flattening order (dict keys sorted).

    >>> tree_leaves({'b': (1, None), 'a': 2})
    [2, 1]
    """
    try:
        return optree.tree_leaves(tree, is_leaf, none_is_leaf=False, namespace=NAMESPACE)
    except (TypeError, RuntimeError) as e:
        raise _bad_flatten_error(tree, is_leaf, e) from None


def tree_structure(tree: Any, is_leaf: Callable[[Any], bool] | None = None) -> PyTreeDef:
    """The `PyTreeDef` of `tree`.

    >>> tree_structure([1, (2, None)])
    PyTreeDef([*, (*, None)])
    """
    try:
        spec = optree.tree_structure(tree, is_leaf, none_is_leaf=False, namespace=NAMESPACE)
    except (TypeError, RuntimeError) as e:
        raise _bad_flatten_error(tree, is_leaf, e) from None
    return _sorted_spec(spec)


def _bad_flatten_error(tree, is_leaf, error) -> Exception:
    """JAX's ValueError when a registered node's flatten function does not return a
    (children, aux_data) pair with iterable children (optree's own error otherwise)."""
    stack = [tree]
    while stack:
        x = stack.pop()
        if is_leaf is not None and is_leaf(x):
            continue
        entry = optree.register_pytree_node.get(type(x), namespace=NAMESPACE)
        if entry is None:
            if optree.is_namedtuple_instance(x) or optree.is_structseq_instance(x):
                stack.extend(x)
            continue
        out = entry.flatten_func(x)
        arities = (2, 3) if entry.flatten_func.__module__.startswith("optree") else (2,)
        if not isinstance(out, tuple) or len(out) not in arities:
            return ValueError("The to_iterable function for a custom PyTree node should return a "
                              f"(children, aux_data) tuple, got {out!r}")
        try:
            stack.extend(reversed(list(out[0])))
        except TypeError:
            return ValueError("The to_iterable function for a custom PyTree node should return a "
                              f"(children, aux_data) tuple where 'children' is iterable, got {out!r}")
    return error


def _unflatten_error(treedef, leaves, error):
    """Restates optree's leaf-count error with the structure; other errors pass through."""
    if hasattr(leaves, "__len__") and len(leaves) != treedef.num_leaves:
        got = len(leaves)
    elif "leaves for PyTreeSpec" in str(error):  # an iterator, so the count is gone
        got = "a different number of"
    else:
        return error
    return ValueError(f"tree_unflatten: {treedef} has {treedef.num_leaves} leaves, got {got} leaves")


# ---------------------------------------------------------------------------------------------
# Treedef helpers

def treedef_tuple(treedefs: Iterable[PyTreeDef]) -> PyTreeDef:
    """The structure of a tuple whose children have the given structures.

    >>> treedef_tuple([tree_structure(1), tree_structure([1, 2])])
    PyTreeDef((*, [*, *]))
    """
    return optree.treespec_tuple(list(treedefs), none_is_leaf=False, namespace=NAMESPACE)


def treedef_children(treedef: PyTreeDef) -> list[PyTreeDef]:
    """The structures of the root's children.

    >>> treedef_children(tree_structure({'a': 1, 'b': (2, 3)}))
    [PyTreeDef(*), PyTreeDef((*, *))]
    """
    return treedef.children()


def treedef_is_leaf(treedef: PyTreeDef) -> bool:
    """True for a structure with a single node: a leaf, `None`, or a node without children.

    >>> treedef_is_leaf(tree_structure(1)), treedef_is_leaf(tree_structure([1]))
    (True, False)
    """
    return treedef.num_nodes == 1


def all_leaves(iterable: Iterable[Any], is_leaf: Callable[[Any], bool] | None = None) -> bool:
    """True if every element of `iterable` is a leaf (`None` is not).

    >>> all_leaves([1, 2.0]), all_leaves([1, [2]]), all_leaves([None])
    (True, False, False)
    """
    return optree.all_leaves(iterable, is_leaf, none_is_leaf=False, namespace=NAMESPACE)


def is_tree_node(typ: type) -> bool:
    """True if instances of `typ` are pytree nodes (None, containers, registered classes).

    >>> is_tree_node(list), is_tree_node(int), is_tree_node(type(None))
    (True, False, True)
    """
    return isinstance(typ, type) and optree.register_pytree_node.get(typ, namespace=NAMESPACE) is not None


class _RegistryView(Mapping):
    """The node types pyjax flattens, each with its registration (optree's): a read-only view
    under JAX's private name `_registry` (flax.nnx asks `type(x) in _registry`)."""

    def __getitem__(self, typ):
        if not is_tree_node(typ):
            raise KeyError(typ)
        return optree.register_pytree_node.get(typ, namespace=NAMESPACE)

    def _types(self):
        # (optree also keys namedtuple and structseq handling by functions: not types)
        registered = optree.register_pytree_node.get(namespace=NAMESPACE)
        return [t for t in registered if isinstance(t, type)]

    def __iter__(self):
        return iter(self._types())

    def __len__(self):
        return len(self._types())


_registry = _RegistryView()


# ---------------------------------------------------------------------------------------------
# How a PyTreeDef prints (JAX's spelling: tree_types.treedef_repr)


def _spec_repr(spec) -> str:
    if spec.none_is_leaf or spec.namespace not in ("", NAMESPACE):
        return _optree_repr(spec)  # another optree user's structure: optree's own spelling
    return treedef_repr(spec)


def _set_spec_method(name, fn):
    """Make a method of `PyTreeDef` (`__repr__`, `flatten_up_to`) behave as JAX's.

    NB: PyTreeDef *is* optree's PyTreeSpec (so flattening stays one C++ call), and that C++
    type is immutable: `PyTreeSpec.__repr__ = ...` raises. So the method is replaced in the
    type's own dict, and `PyType_Modified` drops the interpreter's cached lookups of it."""
    type_dict = gc.get_referents(optree.PyTreeSpec.__dict__)[0]
    type_dict[name] = fn
    ctypes.pythonapi.PyType_Modified(ctypes.py_object(optree.PyTreeSpec))


_optree_repr = optree.PyTreeSpec.__repr__
_set_spec_method("__repr__", _spec_repr)


def _spec_flatten_up_to(spec, tree):
    """`treedef.flatten_up_to(tree)`: the subtrees of `tree` at the leaves of `treedef`; where
    `tree` does not extend `treedef`, JAX's ValueError in JAX's words (optree's own for other
    optree users' structures)."""
    try:
        return _optree_flatten_up_to(spec, tree)
    except ValueError as e:
        if spec.none_is_leaf or spec.namespace not in ("", NAMESPACE):
            raise
        message = _up_to_mismatch(spec, tree, str(e))
        if message is None:
            raise
        raise ValueError(message) from None


def _up_to_mismatch(spec, x, optree_message) -> str | None:
    """JAX's message for the first node where `x` does not have the structure of `spec`."""
    kind, n = spec.kind, spec.num_children
    if kind == PyTreeKind.LEAF:
        return None
    if kind == PyTreeKind.NONE:
        return None if x is None else f"Expected None, got {x!r}."
    if kind in (PyTreeKind.LIST, PyTreeKind.TUPLE):
        name = spec.type.__name__
        if type(x) is not spec.type:
            return f"Expected {name}, got {x!r}."
        if len(x) != n:
            return f"{name.capitalize()} arity mismatch: {len(x)} != {n}; {name}: {x!r}."
        children = list(x)
    elif kind == PyTreeKind.DICT:
        if not isinstance(x, dict):
            return f"Expected dict, got {x!r}."
        expected = list(spec.entries())
        if set(x) != set(expected):
            try:
                present = sorted(x)
            except TypeError:
                present = list(x)
            return f"Dict key mismatch; expected keys: {expected}; present keys: {present}."
        children = [x[k] for k in expected]
    elif kind == PyTreeKind.NAMEDTUPLE:
        if not optree.is_namedtuple_instance(x):
            return f"Expected named tuple, got {x!r}."
        if type(x) is not spec.type:
            return f"Named tuple type mismatch: expected type: {spec.type!r}, tuple: {x!r}."
        children = list(x)
    else:  # registered nodes (and the containers optree adds: OrderedDict, defaultdict, deque)
        if type(x) is not spec.type:
            return f"Custom node type mismatch: expected type: {spec.type!r}, value: {x!r}."
        children, aux = flatten_one_level(x)
        # (the spec does not show a node's aux data: optree's message names the expected one)
        head, tail = "Mismatch custom node data; expected: ", f", got: {aux!r}; value: {x!r}."
        if optree_message.startswith(head) and optree_message.endswith(tail):
            expected = optree_message[len(head):-len(tail)]
            return f"Mismatch custom node data: {expected} != {aux!r}; value: {x!r}."
        if len(children) != n:
            return f"Custom type arity mismatch: {len(children)} != {n}; value: {x!r}."
    for child_spec, child in zip(spec.children(), children, strict=True):
        if (found := _up_to_mismatch(child_spec, child, optree_message)) is not None:
            return found
    return None


_optree_flatten_up_to = optree.PyTreeSpec.flatten_up_to
_set_spec_method("flatten_up_to", _spec_flatten_up_to)


# ---------------------------------------------------------------------------------------------
# Key paths (the entry types, DictKey & co, are in tree_types.py)

# flatten_with_keys of the classes registered with keys (including dataclasses and statics).
_flatten_with_keys_registry: dict[type, Callable[[Any], tuple[Iterable[KeyLeafPair], Any]]] = {}

_MAPPING_KINDS = {PyTreeKind.DICT, PyTreeKind.ORDEREDDICT, PyTreeKind.DEFAULTDICT, PyTreeKind.FROZENDICT}
_SEQUENCE_KINDS = {PyTreeKind.TUPLE, PyTreeKind.LIST, PyTreeKind.DEQUE}


def flatten_one_level(tree: Any) -> tuple[list, Any]:
    """Flattens one level of a node: `(children, aux_data)`; raises ValueError on a leaf.

    >>> flatten_one_level({'b': 1, 'a': (2, 3)})
    ([(2, 3), 1], ['a', 'b'])
    """
    # NB: children always come as a list, and built-in nodes' aux data is optree's (a dict's is
    # a list of its sorted keys); JAX returns its registry's tuples.
    one = _flatten_one_level(tree)
    return one.children, one.metadata


def flatten_one_level_with_keys(tree: Any) -> tuple[list[KeyLeafPair], Any]:
    """Like `flatten_one_level`, with each child paired with its path entry.

    >>> flatten_one_level_with_keys([7, 8])
    ([(SequenceKey(idx=0), 7), (SequenceKey(idx=1), 8)], None)
    """
    flatten_with_keys = _flatten_with_keys_registry.get(type(tree))
    if flatten_with_keys is not None:
        key_children, aux = flatten_with_keys(tree)
        return list(key_children), aux
    one = _flatten_one_level(tree)
    return list(zip(_path_keys(tree, one), one.children, strict=True)), one.metadata


def _flatten_one_level(tree):
    if not is_tree_node(type(tree)):
        raise ValueError(f"can't tree-flatten type: {type(tree)}")
    return optree.tree_flatten_one_level(tree, none_is_leaf=False, namespace=NAMESPACE)


def _path_keys(tree, one) -> list:
    """JAX's key objects for optree's path entries of a built-in or key-less node."""
    if one.kind in _MAPPING_KINDS:
        return [DictKey(k) for k in one.entries]
    if one.kind in _SEQUENCE_KINDS:
        return [SequenceKey(i) for i in one.entries]
    if one.kind == PyTreeKind.NAMEDTUPLE:
        return [GetAttrKey(f) for f in type(tree)._fields]
    if one.kind == PyTreeKind.STRUCTSEQUENCE:
        return [GetAttrKey(f) for f in optree.structseq_fields(tree)]
    return [FlattenedIndexKey(i) for i in range(len(one.children))]


def tree_flatten_with_path(tree: Any, is_leaf: Callable[..., bool] | None = None,
                           is_leaf_takes_path: bool = False) -> tuple[list[tuple[KeyPath, Any]], PyTreeDef]:
    """Flattens `tree` into `(key_path, leaf)` pairs and its structure.

    >>> pairs, _ = tree_flatten_with_path({'a': [1, 2]})
    >>> [(keystr(p), x) for p, x in pairs]
    [("['a'][0]", 1), ("['a'][1]", 2)]
    """
    path_leaves, stops = _leaves_with_path(tree, is_leaf, is_leaf_takes_path)
    # Replay our is_leaf answers so optree builds the same structure without calling is_leaf again
    # (optree visits nodes in the same preorder and, like us, asks is_leaf about every object).
    replay = iter(stops).__next__
    treedef = tree_structure(tree, None if is_leaf is None else lambda _: replay())
    return path_leaves, treedef


def tree_leaves_with_path(tree: Any, is_leaf: Callable[..., bool] | None = None,
                          is_leaf_takes_path: bool = False) -> list[tuple[KeyPath, Any]]:
    """The `(key_path, leaf)` pairs of `tree`.

    >>> [(keystr(p), x) for p, x in tree_leaves_with_path([1, {'k': 2}])]
    [('[0]', 1), ("[1]['k']", 2)]
    """
    return _leaves_with_path(tree, is_leaf, is_leaf_takes_path)[0]


def _leaves_with_path(tree, is_leaf, is_leaf_takes_path):
    """Preorder walk: the (path, leaf) pairs and the is_leaf answer for every object visited."""
    path_leaves, stops = [], []

    def visit(path, x):
        if is_leaf is not None:
            stop = bool(is_leaf(path, x) if is_leaf_takes_path else is_leaf(x))
            stops.append(stop)
            if stop:
                return path_leaves.append((path, x))
        if not is_tree_node(type(x)):
            return path_leaves.append((path, x))
        for key, child in flatten_one_level_with_keys(x)[0]:
            visit((*path, key), child)

    visit((), tree)
    return path_leaves, stops


def tree_map_with_path(f: Callable[..., Any], tree: Any, *rest: Any, is_leaf: Callable[..., bool] | None = None,
                       is_leaf_takes_path: bool = False) -> Any:
    """Like `tree_map`, but `f` also receives each leaf's key path first.

    >>> tree_map_with_path(lambda p, x: keystr(p) + '=' + str(x), {'a': 1, 'b': (2,)})
    {'a': "['a']=1", 'b': ("['b'][0]=2",)}
    """
    path_leaves, treedef = tree_flatten_with_path(tree, is_leaf, is_leaf_takes_path)
    paths = [path for path, _ in path_leaves]
    leaves = [leaf for _, leaf in path_leaves]
    rest_leaves = [_flatten_rest(treedef, tree, r, i, "tree_map_with_path", is_leaf, is_leaf_takes_path)
                   for i, r in enumerate(rest)]
    return treedef.unflatten(map(f, paths, leaves, *rest_leaves))


# ---------------------------------------------------------------------------------------------
# Registration. JAX's conventions: flatten(x) -> (children, aux_data), unflatten(aux_data, children).

def register_pytree_node(nodetype: type, flatten_func: Callable, unflatten_func: Callable,
                         flatten_with_keys_func: Callable | None = None) -> None:
    """Makes `nodetype` a pytree node; its key paths use `FlattenedIndexKey` unless keys are given.

    >>> class Pair:
    ...     def __init__(self, a, b): self.a, self.b = a, b
    >>> register_pytree_node(Pair, lambda p: ((p.a, p.b), None), lambda _, ab: Pair(*ab))
    >>> tree_leaves([Pair(1, 2), 3])
    [1, 2, 3]
    """
    try:
        with warnings.catch_warnings():  # (optree warns about namedtuple subclasses; JAX doesn't)
            warnings.simplefilter("ignore", UserWarning)
            optree.register_pytree_node(nodetype, flatten_func, unflatten_func, namespace=NAMESPACE)
    except ValueError as e:
        raise ValueError(f"Duplicate pytree node registration for {nodetype}: {e}") from None
    dispatch_registry.register_node(nodetype, flatten_func, unflatten_func)
    if flatten_with_keys_func is not None:
        _flatten_with_keys_registry[nodetype] = flatten_with_keys_func


def register_pytree_node_class(cls: type) -> type:
    """Class decorator: registers `cls` using its `tree_flatten` method and `tree_unflatten` classmethod.

    >>> @register_pytree_node_class
    ... class Box:
    ...     def __init__(self, x): self.x = x
    ...     def tree_flatten(self): return (self.x,), None
    ...     @classmethod
    ...     def tree_unflatten(cls, aux_data, children): return cls(*children)
    >>> tree_leaves(Box([1, 2]))
    [1, 2]
    """
    register_pytree_node(cls, operator.methodcaller("tree_flatten"), cls.tree_unflatten)
    return cls


def register_pytree_with_keys(nodetype: type, flatten_with_keys: Callable, unflatten_func: Callable,
                              flatten_func: Callable | None = None) -> None:
    """Registers `nodetype` with `flatten_with_keys(x) -> ([(key, child), ...], aux_data)`.

    `flatten_func` (no keys) is an optional faster flatten for when paths are not needed.

    >>> class Point:
    ...     def __init__(self, x, y): self.x, self.y = x, y
    >>> register_pytree_with_keys(
    ...     Point, lambda p: (((GetAttrKey('x'), p.x), (GetAttrKey('y'), p.y)), None),
    ...     lambda _, xy: Point(*xy))
    >>> [keystr(path) for path, _ in tree_leaves_with_path(Point(1, 2))]
    ['.x', '.y']
    """
    if flatten_func is None:
        flatten_func = functools.partial(_drop_keys, flatten_with_keys)
    register_pytree_node(nodetype, flatten_func, unflatten_func, flatten_with_keys)


def _drop_keys(flatten_with_keys, x):
    key_children, aux = flatten_with_keys(x)
    return [child for _, child in key_children], aux


def register_pytree_with_keys_class(cls: type) -> type:
    """Class decorator: registers `cls` by its `tree_flatten_with_keys` method and `tree_unflatten`
    classmethod (and its `tree_flatten` method, if any).

    >>> @register_pytree_with_keys_class
    ... class Box:
    ...     def __init__(self, x): self.x = x
    ...     def tree_flatten_with_keys(self): return ((GetAttrKey('x'), self.x),), None
    ...     @classmethod
    ...     def tree_unflatten(cls, aux_data, children): return cls(*children)
    >>> tree_leaves_with_path(Box(1))
    [((GetAttrKey(name='x'),), 1)]
    """
    flatten_func = operator.methodcaller("tree_flatten") if hasattr(cls, "tree_flatten") else None
    register_pytree_with_keys(cls, operator.methodcaller("tree_flatten_with_keys"), cls.tree_unflatten,
                              flatten_func)
    return cls


def register_dataclass(nodetype: type, data_fields: Sequence[str] | None = None,
                       meta_fields: Sequence[str] | None = None, drop_fields: Sequence[str] = ()) -> type:
    """Registers a dataclass(-like) type: data fields are children, meta fields static aux data.

    Without `data_fields`/`meta_fields`, a dataclass's fields are data unless marked with
    `static()` (i.e. `metadata={'static': True}`).

    >>> @register_dataclass
    ... @dataclasses.dataclass
    ... class Layer:
    ...     w: Any
    ...     act: str = static(default='relu')
    >>> tree_flatten(Layer(w=1.0))
    ([1.0], PyTreeDef(CustomNode(Layer[('relu',)], [*])))
    """
    data_fields, meta_fields = _dataclass_fields(nodetype, data_fields, meta_fields, drop_fields)

    def flatten(x):
        return [getattr(x, name) for name in data_fields], tuple(getattr(x, name) for name in meta_fields)

    def flatten_with_keys(x):
        data = [(GetAttrKey(name), getattr(x, name)) for name in data_fields]
        return data, tuple(getattr(x, name) for name in meta_fields)

    def unflatten(meta, data):
        return nodetype(**dict(zip(meta_fields, meta, strict=True)), **dict(zip(data_fields, data, strict=True)))

    register_pytree_node(nodetype, flatten, unflatten, flatten_with_keys)
    return nodetype


def _dataclass_fields(nodetype, data_fields, meta_fields, drop_fields):
    """Checks (or, for a dataclass, infers) the data and meta field names of `register_dataclass`."""
    if (data_fields is None) != (meta_fields is None):
        raise TypeError("register_dataclass: data_fields and meta_fields must both be given or both "
                        f"omitted; got data_fields={data_fields} meta_fields={meta_fields}")
    is_dataclass = dataclasses.is_dataclass(nodetype)
    if data_fields is None:
        if not is_dataclass:
            raise TypeError(f"register_dataclass: {nodetype} is not a dataclass, so data_fields and "
                            "meta_fields are required")
        fields = dataclasses.fields(nodetype)
        data_fields = [f.name for f in fields if not f.metadata.get("static", False)]
        meta_fields = [f.name for f in fields if f.metadata.get("static", False)]
    data_fields, meta_fields = tuple(data_fields), tuple(meta_fields)
    if overlap := set(data_fields) & set(meta_fields):
        raise ValueError(f"register_dataclass: data_fields and meta_fields overlap: {overlap}")
    if is_dataclass:
        init_fields = {f.name for f in dataclasses.fields(nodetype) if f.init} - set(drop_fields)
        missing, unexpected = init_fields - {*data_fields, *meta_fields}, {*data_fields, *meta_fields} - init_fields
        if missing or unexpected:  # (JAX's phrases: programs match them)
            raise ValueError(
                "register_dataclass: data_fields and meta_fields must include all dataclass fields "
                "with init=True, and no others."
                + (f" Missing fields: {missing} (add them to drop_fields to leave them out)."
                   if missing else "")
                + (f" Unexpected fields: {unexpected}." if unexpected else ""))
    return data_fields, meta_fields


def static(**kwargs) -> Any:
    """A `dataclasses.field` marked static, so `register_dataclass` makes it aux data.

    >>> static(default=3).metadata['static']
    True
    """
    metadata = {"static": True, **(kwargs.pop("metadata", None) or {})}
    return dataclasses.field(metadata=metadata, **kwargs)


def register_static(cls: type) -> type:
    """Registers `cls` as a node without children: instances are aux data (must be hashable).

    >>> @register_static
    ... class Mode(str): pass
    >>> tree_leaves([Mode('train'), 1])
    [1]
    """
    register_pytree_with_keys(cls, _flatten_static, _unflatten_static, _flatten_static)
    return cls


def _flatten_static(x):  # also its flatten_with_keys: there are no (key, child) pairs
    return (), x


def _unflatten_static(x, _children):
    return x


# ---------------------------------------------------------------------------------------------
# Tree operations

def tree_map(f: Callable[..., Any], tree: Any, *rest: Any, is_leaf: Callable[[Any], bool] | None = None) -> Any:
    """Applies `f` leafwise; `tree` fixes the structure, each of `rest` must have it (or extend it).

    >>> tree_map(lambda x, y: x + y, {'a': 1, 'b': (2, None)}, {'a': 10, 'b': (20, None)})
    {'a': 11, 'b': (22, None)}
    """
    leaves, treedef = tree_flatten(tree, is_leaf)
    rest_leaves = [_flatten_rest(treedef, tree, r, i, "tree_map", is_leaf) for i, r in enumerate(rest)]
    return treedef.unflatten(map(f, leaves, *rest_leaves))


class _Unspecified:
    def __repr__(self):
        return "<unspecified>"


_UNSPECIFIED = _Unspecified()


def tree_reduce(function: Callable[[Any, Any], Any], tree: Any, initializer: Any = _UNSPECIFIED,
                is_leaf: Callable[[Any], bool] | None = None) -> Any:
    """`functools.reduce` over the leaves of `tree`.

    >>> tree_reduce(lambda acc, x: acc + x, [1, (2, 3)], 100)
    106
    """
    leaves = tree_leaves(tree, is_leaf)
    if initializer is _UNSPECIFIED:
        return functools.reduce(function, leaves)
    return functools.reduce(function, leaves, initializer)


def tree_reduce_associative(operation: Callable[[Any, Any], Any], tree: Any, *, identity: Any = _UNSPECIFIED,
                            is_leaf: Callable[[Any], bool] | None = None) -> Any:
    """Reduces the leaves with an associative `operation` as a balanced tree (depth log n).

    >>> tree_reduce_associative(lambda a, b: (a, b), [1, 2, 3, 4])
    ((1, 2), (3, 4))
    """
    leaves = tree_leaves(tree, is_leaf)
    if not leaves:
        if identity is _UNSPECIFIED:
            raise TypeError("Must specify identity for parallel reduction of empty sequence.")
        return identity
    return _reduce_halves(operation, leaves)


def _reduce_halves(operation, xs):
    if len(xs) == 1:
        return xs[0]
    mid = len(xs) // 2
    return operation(_reduce_halves(operation, xs[:mid]), _reduce_halves(operation, xs[mid:]))


def tree_all(tree: Any, *, is_leaf: Callable[[Any], bool] | None = None) -> bool:
    """True if every leaf is truthy.

    >>> tree_all([True, {'a': 1}]), tree_all([True, 0])
    (True, False)
    """
    return all(tree_leaves(tree, is_leaf))


def tree_transpose(outer_treedef: PyTreeDef, inner_treedef: PyTreeDef | None, pytree_to_transpose: Any) -> Any:
    """Turns an outer tree of inner trees into an inner tree of outer trees.

    `inner_treedef=None` takes the inner structure from the first outer leaf.

    >>> tree_transpose(tree_structure([0, 0]), tree_structure((0, 0)), [(1, 2), (3, 4)])
    ([1, 3], [2, 4])
    """
    flat, treedef = tree_flatten(pytree_to_transpose)
    if inner_treedef is None:
        names = ("outer_treedef", "pytree_to_transpose")
        first = _flatten_up_to(outer_treedef, pytree_to_transpose, "tree_transpose: ", names)[0]
        inner_treedef = tree_structure(first)
    n_outer, n_inner = outer_treedef.num_leaves, inner_treedef.num_leaves
    if treedef.num_leaves != n_outer * n_inner:
        raise TypeError(f"tree_transpose: Mismatch: pytree_to_transpose has {treedef.num_leaves} leaves, but "
                        f"outer_treedef ({n_outer} leaves) composed with inner_treedef ({n_inner} leaves) "
                        f"has {n_outer * n_inner}.\n"
                        f"  pytree_to_transpose: {treedef}\n"
                        f"  expected:            {outer_treedef.compose(inner_treedef)}")
    rows = [flat[i * n_inner:(i + 1) * n_inner] for i in range(n_outer)]
    return inner_treedef.unflatten(outer_treedef.unflatten(column) for column in zip(*rows))


def tree_broadcast(prefix_tree: Any, full_tree: Any, is_leaf: Callable[[Any], bool] | None = None) -> Any:
    """Repeats each leaf of `prefix_tree` over the matching subtree of `full_tree`.

    >>> tree_broadcast([1, 2], [(0, 0), {'a': 0}])
    [(1, 1), {'a': 2}]
    """
    prefix_leaves, prefix_def = tree_flatten(prefix_tree, is_leaf)
    try:
        subtrees = prefix_def.flatten_up_to(full_tree)
    except ValueError:
        errors = prefix_errors(prefix_tree, full_tree, is_leaf)
        if not errors:
            raise
        raise errors[0]("broadcast_prefix prefix_tree") from None   # JAX's words
    leaves = [x for x, sub in zip(prefix_leaves, subtrees, strict=True)
              for _ in range(_num_leaves(sub))]
    return tree_structure(full_tree).unflatten(leaves)


def flatten_prefix(prefix_tree: Any, full_tree: Any, name: str) -> list:
    """One entry of `prefix_tree` per leaf of `full_tree`; for specs like vmap's `in_axes`.

    `None` in `prefix_tree` is a leaf here (it applies to the whole matching subtree). `name`
    (e.g. "vmap in_axes") is used in the error raised when `prefix_tree` is not a prefix.

    >>> flatten_prefix((0, None), ([1, 2], {'a': 3}), 'vmap in_axes')
    [0, 0, None]
    """
    return _broadcast_prefix(prefix_tree, full_tree, _is_none, (name, "the value it applies to"), "")


def _is_none(x):
    return x is None


def _broadcast_prefix(prefix_tree, full_tree, is_leaf, names, context):
    prefix_leaves, prefix_def = tree_flatten(prefix_tree, is_leaf)
    try:
        subtrees = prefix_def.flatten_up_to(full_tree)
    except ValueError:
        stop = _path_predicate(is_leaf, False)
        raise _mismatch_error(context, names, prefix_tree, prefix_def, full_tree, stop) from None
    return [x for x, subtree in zip(prefix_leaves, subtrees, strict=True) for _ in range(_num_leaves(subtree))]


def _num_leaves(tree):
    return tree_structure(tree).num_leaves


# ---------------------------------------------------------------------------------------------
# Structure-mismatch errors: say where the trees first differ and show both structures.

def _path_predicate(is_leaf, is_leaf_takes_path):
    """`is_leaf` as a (path, x) predicate, or None."""
    if is_leaf is None or is_leaf_takes_path:
        return is_leaf
    return lambda _path, x: is_leaf(x)


def _flatten_rest(treedef, tree, other, i, fn_name, is_leaf, is_leaf_takes_path=False):
    """`treedef.flatten_up_to(other)` for the i-th extra tree of tree_map & co."""
    try:
        return treedef.flatten_up_to(other)
    except ValueError:
        stop = _path_predicate(is_leaf, is_leaf_takes_path)
        error = _mismatch_error(f"{fn_name}: ", ("tree", f"rest[{i}]"), tree, treedef, other, stop)
        try:  # JAX's words first (its prefix_errors'), then where and both structures
            jax_errors = prefix_errors(tree, other, None if is_leaf_takes_path else is_leaf)
        except Exception:  # noqa: BLE001 - a message helper must not mask the error
            jax_errors = []
        if jax_errors:
            error = ValueError(f"{jax_errors[0](f'{fn_name} tree').args[0]}\n{error}")
        raise error from None


def _flatten_up_to(treedef, tree, context, names):
    """`treedef.flatten_up_to(tree)` when only the structure of the prefix is known."""
    try:
        return treedef.flatten_up_to(tree)
    except ValueError:
        raise _mismatch_error(context, names, None, treedef, tree, None) from None


def _mismatch_error(context, names, prefix, prefix_def, full, stop) -> ValueError:
    """The error for `full` not matching `prefix` (a tree, or None if only `prefix_def` is known)."""
    prefix_name, full_name = names
    message = f"{context}{prefix_name} is not a tree prefix of {full_name}"
    difference = None if prefix is None else _first_difference(prefix, full, stop, ())
    if difference is not None:
        path, p, f = difference
        where = f"at key path {keystr(path)}" if path else "at the root"
        message += f": {where}, {prefix_name} has {_describe(p)} but {full_name} has {_describe(f)}"
    width = max(len(prefix_name), len(full_name)) + 1
    return ValueError(f"{message}.\n"
                      f"  {prefix_name + ':':{width}} {prefix_def}\n"
                      f"  {full_name + ':':{width}} {tree_structure(full)}")


def _first_difference(prefix, full, stop, path):
    """(path, prefix_node, full_node) where `full` first stops extending `prefix`, or None."""
    if (stop is not None and stop(path, prefix)) or not is_tree_node(type(prefix)):
        return None
    if not _same_node(prefix, full):
        return path, prefix, full
    for (key, p), f in zip(flatten_one_level_with_keys(prefix)[0], flatten_one_level(full)[0]):
        if (found := _first_difference(p, f, stop, (*path, key))) is not None:
            return found
    return None


def _same_node(a, b) -> bool:
    if type(a) is not type(b):
        return False
    (a_children, a_aux), (b_children, b_aux) = flatten_one_level(a), flatten_one_level(b)
    try:
        return len(a_children) == len(b_children) and bool(a_aux == b_aux)
    except Exception:  # aux data without a usable ==
        return False


def _describe(x) -> str:
    if x is None:
        return "None"
    name = type(x).__name__
    if not is_tree_node(type(x)):
        return f"a leaf of type {name}"
    children, aux = flatten_one_level(x)
    if isinstance(x, dict):
        return f"a {name} with keys {[k.key for k, _ in flatten_one_level_with_keys(x)[0]]}"
    if isinstance(x, (list, tuple)):
        return f"a {name} of length {len(children)}"
    return f"a {name} with {len(children)} children and aux data {aux!r}"


# ---------------------------------------------------------------------------------------------
# Partial (the class is in tree_types.py): its func is static, its args and keywords children

register_pytree_node(Partial, lambda p: ((p.args, p.keywords), p.func),
                     lambda func, children: Partial(func, *children[0], **children[1]))


# -- structure errors of a prefix tree, one per mismatching subtree (JAX's prefix_errors) -------


def treedef_is_strict_leaf(treedef: PyTreeDef) -> bool:
    """True for the structure of a single leaf (not `None`, not an empty container).

    >>> treedef_is_strict_leaf(tree_structure(1)), treedef_is_strict_leaf(tree_structure(None))
    (True, False)
    """
    return treedef.num_nodes == 1 and treedef.num_leaves == 1


def prefix_errors(prefix_tree, full_tree, is_leaf=None) -> list:
    """Where `prefix_tree` is not a prefix of `full_tree`: one function per mismatching subtree,
    `error(name) -> ValueError` whose text names the key path as `name[...]` (JAX's wording).
    A leaf of the prefix matches any subtree; a mismatch is reported at its highest node only.

    >>> e, = prefix_errors((1, 2), [1, 2]); print(str(e("in_axes")).splitlines()[0])
    pytree structure error: different types at key path
    """
    return list(_prefix_mismatches((), prefix_tree, full_tree, is_leaf))


def _key_names(keys) -> str:
    return " ".join(str(getattr(k, "key", k)) for k in keys)


def _prefix_mismatches(path, prefix, full, is_leaf):
    if treedef_is_strict_leaf(tree_structure(prefix, is_leaf=is_leaf)):
        return

    def head(what, name):
        return f"pytree structure error: {what} at key path\n    {name}{keystr(path)}\n"
    if type(prefix) is not type(full):
        yield lambda name: ValueError(
            head("different types", name) +
            f"At that key path, the prefix pytree {name} has a subtree of type\n"
            f"    {type(prefix)}\nbut at the same key path the full pytree has a subtree of "
            f"different type\n    {type(full)}.")
        return
    p_pairs, p_meta = flatten_one_level_with_keys(prefix)
    f_pairs, f_meta = flatten_one_level_with_keys(full)
    p_keys, f_keys = [k for k, _ in p_pairs], [k for k, _ in f_pairs]
    if isinstance(prefix, (list, tuple)):
        if len(prefix) != len(full):
            ty = type(prefix).__name__
            yield lambda name: ValueError(
                head(f"different lengths of {ty}", name) +
                f"At that key path, the prefix pytree {name} has a subtree of type {ty} of "
                f"length {len(prefix)}, but the full pytree has a subtree of the same type but "
                f"of length {len(full)}.")
            return
    elif len(p_pairs) != len(f_pairs):
        try:
            diff = set(p_keys) ^ set(f_keys)
        except TypeError:   # unhashable keys
            diff = None
        yield lambda name: ValueError(
            head("different numbers of pytree children", name) +
            f"At that key path, the prefix pytree {name} has a subtree of type\n"
            f"    {type(prefix)}\nwith {len(p_pairs)} child keys\n    {_key_names(p_keys)}\n"
            f"but at the same key path the full pytree has a subtree of the same type but "
            f"with {len(f_pairs)} child keys\n    {_key_names(f_keys)}\n" +
            ("" if diff is None else
             f"so the symmetric difference on key sets is\n    {_key_names(diff)}"))
        return
    if p_meta != f_meta:
        # NB: optree holds a dict's keys as a list, JAX as a tuple: shown as JAX shows them
        p_text, f_text = (str(tuple(m) if isinstance(m, list) else m) for m in (p_meta, f_meta))
        delta = "\n".join("    " + line for line in difflib.ndiff(p_text.splitlines(),
                                                                   f_text.splitlines()))
        yield lambda name: ValueError(
            head("different pytree metadata", name) +
            f"At that key path, the prefix pytree {name} has a subtree of type\n"
            f"    {type(prefix)}\nwith metadata\n    {p_text}\nbut at the same key path the "
            f"full pytree has a subtree of the same type but with metadata\n    {f_text}\n"
            f"so the diff in the metadata at these pytree nodes is\n{delta}")
        return
    for (key, p), (_, f) in zip(p_pairs, f_pairs, strict=True):
        yield from _prefix_mismatches((*path, key), p, f, is_leaf)


def broadcast_flattened_prefix_with_treedef(prefix_leaves, prefix_treedef, full_treedef) -> list:
    """The leaves of a prefix (`prefix_leaves`, of structure `prefix_treedef`), each repeated
    once per leaf of the subtree of `full_treedef` it stands for.

    >>> broadcast_flattened_prefix_with_treedef(
    ...     [1, 2], tree_structure((0, 0)), tree_structure(((0, 0, 0), 0)))
    [1, 1, 1, 2]
    """
    positions = tree_unflatten(full_treedef, range(full_treedef.num_leaves))
    subtrees = prefix_treedef.flatten_up_to(positions)
    return [x for x, sub in zip(prefix_leaves, subtrees, strict=True)
            for _ in range(len(tree_leaves(sub)))]
