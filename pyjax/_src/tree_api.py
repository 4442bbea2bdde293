"""The pytree functions of the public `jax.tree_util` and `jax.tree`: those of
`pyjax._src.tree_util`, with the opaque array types (typed PRNG key arrays) as leaves, as JAX's.

pyjax's transformations flatten with `pyjax._src.tree_util`, where a key array is a node whose one
child is its uint32 key data, so jit, vmap, scan and grad carry keys through their data. User
code flattens with these: a key array is one leaf (`jax.tree.map(f, keys)` calls `f` on the key
array, `jax.tree.leaves(state)` lists the keys themselves), as in JAX, whose key arrays are
arrays of an extended dtype.
"""
from __future__ import annotations

import functools

import numpy as np

from pyjax._src import tree_util as tu

_UNSPECIFIED = tu._UNSPECIFIED


def _opaque(x) -> bool:
    return type(x) in tu.opaque_leaf_types


def _leaf(is_leaf):
    """`is_leaf` that also stops at the opaque array types."""
    if is_leaf is None:
        return _opaque
    return lambda x: type(x) in tu.opaque_leaf_types or is_leaf(x)


def _path_leaf(is_leaf, is_leaf_takes_path):
    if not is_leaf_takes_path:
        return _leaf(is_leaf)
    if is_leaf is None:
        return lambda path, x: type(x) in tu.opaque_leaf_types
    return lambda path, x: type(x) in tu.opaque_leaf_types or is_leaf(path, x)


def _public(internal):
    """The public function: `internal`'s signature and docstring, opaque arrays as leaves."""
    return functools.wraps(internal, assigned=("__doc__", "__annotations__"))


@_public(tu.tree_flatten)
def tree_flatten(tree, is_leaf=None):
    return tu.tree_flatten(tree, _leaf(is_leaf))


@_public(tu.tree_leaves)
def tree_leaves(tree, is_leaf=None):
    return tu.tree_leaves(tree, _leaf(is_leaf))


@_public(tu.tree_structure)
def tree_structure(tree, is_leaf=None):
    return tu.tree_structure(tree, _leaf(is_leaf))


@_public(tu.all_leaves)
def all_leaves(iterable, is_leaf=None):
    return tu.all_leaves(iterable, _leaf(is_leaf))


@_public(tu.tree_map)
def tree_map(f, tree, *rest, is_leaf=None):
    return tu.tree_map(f, tree, *rest, is_leaf=_leaf(is_leaf))


@_public(tu.tree_flatten_with_path)
def tree_flatten_with_path(tree, is_leaf=None, is_leaf_takes_path=False):
    return tu.tree_flatten_with_path(tree, _path_leaf(is_leaf, is_leaf_takes_path), is_leaf_takes_path)


@_public(tu.tree_leaves_with_path)
def tree_leaves_with_path(tree, is_leaf=None, is_leaf_takes_path=False):
    return tu.tree_leaves_with_path(tree, _path_leaf(is_leaf, is_leaf_takes_path), is_leaf_takes_path)


@_public(tu.tree_map_with_path)
def tree_map_with_path(f, tree, *rest, is_leaf=None, is_leaf_takes_path=False):
    return tu.tree_map_with_path(f, tree, *rest, is_leaf=_path_leaf(is_leaf, is_leaf_takes_path),
                                 is_leaf_takes_path=is_leaf_takes_path)


@_public(tu.tree_reduce)
def tree_reduce(function, tree, initializer=_UNSPECIFIED, is_leaf=None):
    return tu.tree_reduce(function, tree, initializer, is_leaf=_leaf(is_leaf))


@_public(tu.tree_reduce_associative)
def tree_reduce_associative(operation, tree, *, identity=_UNSPECIFIED, is_leaf=None):
    return tu.tree_reduce_associative(operation, tree, identity=identity, is_leaf=_leaf(is_leaf))


@_public(tu.tree_all)
def tree_all(tree, *, is_leaf=None):
    return tu.tree_all(tree, is_leaf=_leaf(is_leaf))


@_public(tu.tree_broadcast)
def tree_broadcast(prefix_tree, full_tree, is_leaf=None):
    return tu.tree_broadcast(prefix_tree, full_tree, is_leaf=_leaf(is_leaf))


def opaque_tangents(treedef, tangents):
    """`tangents` (a user's tangent or cotangent tree) in the structure pyjax's transformations
    give the primals (`treedef`), where a float0 array stands at the place of a key array (JAX's
    tangent type of keys): there it becomes the key array's float0 data. None if it does not fit.
    E.g. for the primals `(1.0, key)`, the tangents `(1.0, np.zeros((), float0))` become
    `(1.0, <key array of float0 data of shape (2,)>)`.
    """
    placeholders = treedef.unflatten([object()] * treedef.num_leaves)
    p_leaves, p_tree = tree_flatten(placeholders)
    t_leaves, t_tree = tree_flatten(tangents)
    if p_tree != t_tree:
        return None
    out = [p._float0_tangent(t) if type(p) in tu.opaque_leaf_types and _is_float0(t) else t
           for p, t in zip(p_leaves, t_leaves)]
    return p_tree.unflatten(out)


def _is_float0(x) -> bool:
    dt = getattr(x, "dtype", None)
    return isinstance(dt, np.dtype) and dt.names == ("float0",)
