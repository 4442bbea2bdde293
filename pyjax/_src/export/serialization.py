"""Pytree node registrations for serialization, and pyjax's former serialization format.

`register_pytree_node_serialization` / `register_namedtuple_serialization` let structures with
those nodes be serialized (in JAX's format: `tree_to_jax` / `tree_from_jax`, nodes as
`flatbuf.py`'s plain data).

pyjax's former format (read only, for blobs written before pyjax wrote JAX's) is

    b"PYJAXEXP"                  8 bytes, the magic string
    version                      2 bytes, unsigned big-endian (FORMAT_VERSION)
    payload                      zlib-compressed UTF-8 JSON

The JSON object holds `fun_name`, `in_tree` / `out_tree` (pytree structures, below),
`in_avals` / `out_avals` (`[dtype name, [dims...], weak_type]`, a symbolic dim as its
expression string, e.g. `"2*b + 1"`), `symbolic_constraints` (the scope's constraint strings),
`in_shardings_hlo` / `out_shardings_hlo` (HloSharding strings or null), `nr_devices`,
`platforms`, `calling_convention_version`, `disabled_checks`, `module` (the StableHLO module
text, dynamic dimensions as `?`) and `vjp` (the VJP's Exported as a nested JSON object, or null).
Its pytree structures are nested JSON: `"*"` for a leaf, `null` for None, and
`{"node": kind, "aux": ..., "children": [...]}` for a node, kind one of `tuple`, `list`,
`dict` (aux: its keys), `namedtuple:<name>` / `custom:<name>` (aux: the registered function's
bytes, base64). A blob of another version is refused with a ValueError naming both versions.
"""
from __future__ import annotations

import base64
import collections
import json
import struct
import zlib
from typing import Any, Callable

import numpy as np

from pyjax._src import core, tree_util
from pyjax._src.export import shape_poly
from pyjax._src.random.keys import PRNGKeyArray, resolve_prng_impl

MAGIC = b"PYJAXEXP"
FORMAT_VERSION = 1


# -- pytree structures ----------------------------------------------------------------------------

_serializers: dict[type, tuple[str, Callable, Callable]] = {}   # type -> (name, ser, deser)
_deserializers: dict[str, tuple[type, Callable, Callable | None]] = {}  # name -> (type, deser, from_children)


def _check_not_registered(nodetype, serialized_name):
    if nodetype in _serializers:
        raise ValueError(f"Duplicate serialization registration for type `{nodetype}`. Previous "
                         f"registration was with serialized_name `{_serializers[nodetype][0]}`.")
    if serialized_name in _deserializers:
        raise ValueError(f"Duplicate serialization registration for serialized_name "
                         f"`{serialized_name}`. Previous registration was for type "
                         f"`{_deserializers[serialized_name][0]}`.")


def register_pytree_node_serialization(nodetype, *, serialized_name: str, serialize_auxdata,
                                       deserialize_auxdata, from_children=None):
    """Let pytree structures containing `nodetype` (a registered pytree node) be serialized:
    its aux data is saved as `serialize_auxdata(aux) -> bytes` and read back with
    `deserialize_auxdata(bytes)`; `from_children(aux, children)` rebuilds a node (default: the
    node's registered unflatten function).

    >>> register_pytree_node_serialization(MyNode, serialized_name="my.MyNode",
    ...     serialize_auxdata=lambda aux: b"", deserialize_auxdata=lambda b: None)
    """
    if from_children is None and (nodetype not in tree_util._registry
                                  or (issubclass(nodetype, tuple) and hasattr(nodetype, "_fields"))):
        raise ValueError("If `from_children` is not present, you must call first "
                         f"`jax.tree_util.register_pytree_node` for {nodetype}")
    if not tree_util.is_tree_node(nodetype):
        raise ValueError(f"Cannot register serialization for {nodetype}: it is not a registered "
                         "pytree node")
    _check_not_registered(nodetype, serialized_name)
    _serializers[nodetype] = (serialized_name, serialize_auxdata, deserialize_auxdata)
    _deserializers[serialized_name] = (nodetype, deserialize_auxdata, from_children)
    return nodetype


def register_namedtuple_serialization(nodetype, *, serialized_name: str):
    """Let pytree structures containing the namedtuple class `nodetype` be serialized under
    `serialized_name`."""
    if not (issubclass(nodetype, tuple) and hasattr(nodetype, "_fields")):
        raise ValueError("Use `jax.export.register_pytree_node_serialization` for types other "
                         "than `collections.namedtuple`.")
    _check_not_registered(nodetype, serialized_name)
    _serializers[nodetype] = (serialized_name, None, None)
    _deserializers[serialized_name] = (nodetype, None, None)
    return nodetype


def _ordereddict_keys_to_bytes(keys):
    if not all(isinstance(k, str) for k in keys):
        raise NotImplementedError("Serialization of collections.OrderedDict is supported only "
                                  f"when the keys are strings. Found keys: {keys}.")
    return json.dumps(list(keys)).encode("utf-8")


# (an OrderedDict's aux data are its keys, in order; JAX registers it under this name)
register_pytree_node_serialization(
    collections.OrderedDict, serialized_name="collections.OrderedDict",
    serialize_auxdata=_ordereddict_keys_to_bytes,
    deserialize_auxdata=lambda b: json.loads(b.decode("utf-8")),
    from_children=lambda keys, children: collections.OrderedDict(zip(keys, children, strict=True)))


class _Leaf:
    __slots__ = ()


_LEAF = _Leaf()


def tree_from_json(obj):
    example = _node_from(obj, _custom_from_json)
    return tree_util.tree_structure(example, is_leaf=lambda x: x is _LEAF)


def _node_from(obj, custom, leaves=None):
    """The example pytree of a structure as nested data (either format); `custom(obj, kind,
    children)` makes the nodes of registered types; leaves are `_LEAF` or from `leaves`."""
    if obj == "*":
        return _LEAF if leaves is None else next(leaves)
    if obj is None:
        return None
    kind, children = obj["node"], [_node_from(c, custom, leaves) for c in obj["children"]]
    if kind == "tuple":
        return tuple(children)
    if kind == "list":
        return list(children)
    if kind == "dict":
        return dict(zip(obj["aux"], children, strict=True))
    return custom(obj, kind, children)


def _custom_from_json(obj, kind, children):
    prefix, _, name = kind.partition(":")
    if name not in _deserializers:
        raise ValueError(f"Cannot deserialize a PyTreeDef containing the type registered as "
                         f"'{name}': register it with `export.register_"
                         f"{'namedtuple' if prefix == 'namedtuple' else 'pytree_node'}_serialization`")
    nodetype, deser, from_children = _deserializers[name]
    if prefix == "namedtuple":
        return nodetype(*children)
    aux = deser(base64.b64decode(obj["aux"]))
    if from_children is not None:
        return from_children(aux, children)
    return tree_util._registry[nodetype].unflatten_func(aux, children)


# -- pytree structures in JAX's format (flatbuf.py's plain data) ---------------------------------


def tree_to_jax(treedef, leaves) -> Any:
    """A pytree structure as `flatbuf`'s nodes: `"*"`, None, {"node": "tuple"/"list"/"dict"/
    "custom", ...}; a namedtuple is a custom node whose aux data are its fields' names (JSON), as
    JAX writes it. The example tree is built with `leaves` (the avals: a node's constructor may
    look at its children)."""
    ids = {id(leaf) for leaf in leaves}
    return _node_to_jax(tree_util.tree_unflatten(treedef, list(leaves)), lambda x: id(x) in ids)


def _node_to_jax(x, is_leaf=lambda x: x is _LEAF):
    if is_leaf(x) or isinstance(x, PRNGKeyArray):  # (a key array is a leaf, of a key dtype)
        return "*"
    if x is None:
        return None
    t = type(x)
    if t in (tuple, list):
        return {"node": t.__name__, "children": [_node_to_jax(c, is_leaf) for c in x]}
    if t is dict:
        keys = sorted(x)
        for k in keys:
            if not isinstance(k, str):
                raise TypeError("Serialization is supported only for dictionaries with string "
                                f"keys. Found key {k} of type {type(k)}.")
        return {"node": "dict", "aux": keys, "children": [_node_to_jax(x[k], is_leaf) for k in keys]}
    if t in _serializers:
        name, ser, _ = _serializers[t]
        if ser is None:  # a namedtuple
            aux, children = json.dumps(list(t._fields)).encode("utf-8"), list(x)
        else:
            children, aux = tree_util.flatten_one_level(x)
            aux = ser(aux)
            if not isinstance(aux, (bytes, bytearray)):
                raise ValueError("The custom serialization function for `node_type` must return "
                                 f"a `bytes` object. It returned a {type(aux)}.")
        return {"node": "custom", "name": name, "aux": bytes(aux),
                "children": [_node_to_jax(c, is_leaf) for c in children]}
    if isinstance(x, tuple) and hasattr(t, "_fields"):
        raise ValueError(f"Cannot serialize PyTreeDef containing an unregistered type '{t}'. "
                         "Use `export.register_namedtuple_serialization`.")
    raise ValueError(f"Cannot serialize PyTreeDef containing an unregistered type '{t}'. "
                     "Use `export.register_pytree_node_serialization`.")


# JAX's key dtypes, by the name of the PRNG implementation (pyjax's key arrays are pytree nodes
# around their uint32 data; JAX's are arrays of these dtypes, leaves of the tree)
KEY_DTYPES = {"threefry2x32": "key<fry>", "rbg": "key<rbg>", "unsafe_rbg": "key<unsafe_rbg>"}
KEY_IMPLS = {v: k for k, v in KEY_DTYPES.items()}


def key_impls(treedef, avals) -> list:
    """Per flat leaf of `treedef` (built with `avals`): the PRNG implementation of the key array
    whose data it is, or None."""
    example = tree_util.tree_unflatten(treedef, list(avals))
    return [x._impl if isinstance(x, PRNGKeyArray) else None
            for x in tree_util.tree_leaves(example, is_leaf=lambda x: isinstance(x, PRNGKeyArray))]


def key_impl(dtype_name):
    """The PRNG implementation of one of JAX's key dtypes (`key<fry>`), or None."""
    name = KEY_IMPLS.get(dtype_name)
    return None if name is None else resolve_prng_impl(name)


def key_arrays(avals, impls) -> list:
    """The leaves to build a tree with: key arrays around the data avals of keys."""
    return [a if impl is None else PRNGKeyArray(impl, a) for a, impl in zip(avals, impls, strict=True)]


def tree_from_jax(obj, leaves=None):
    """The structure of nested data; `leaves` (the avals, for nodes whose constructors look at
    their children) stand for the leaves while the example tree is built."""
    it = iter(leaves) if leaves is not None else None
    example = _node_from(obj, _custom_from_jax, it)
    return tree_util.tree_structure(
        example, is_leaf=(lambda x: x is _LEAF) if it is None else None)


def _custom_from_jax(obj, kind, children):
    name = obj["name"]
    if name not in _deserializers:
        raise ValueError(f"Cannot deserialize a PyTreeDef containing an unregistered type "
                         f"`{name}`. Use `export.register_pytree_node_serialization` or "
                         "`export.register_namedtuple_serialization`.")
    nodetype, deser, from_children = _deserializers[name]
    if deser is None:  # a namedtuple: aux data are the fields' names
        fields = json.loads(obj["aux"].decode("utf-8"))
        return nodetype(**dict(zip(fields, children, strict=True)))
    aux = deser(obj["aux"])
    if from_children is not None:
        return from_children(aux, children)
    return tree_util._registry[nodetype].unflatten_func(aux, children)


# -- avals ------------------------------------------------------------------------------------------


def aval_from_json(obj, scope):
    dtype, dims, weak = obj
    return core.ShapedArray(tuple(d if isinstance(d, int) else shape_poly._parse_dim(d, scope, d)
                                  for d in dims), np.dtype(dtype), weak)


# -- the blob -------------------------------------------------------------------------------------


def unpack(blob) -> dict:
    blob = bytes(blob)
    if not blob.startswith(MAGIC):
        raise ValueError("deserialize: not a pyjax serialized Exported (the blob does not start "
                         f"with {MAGIC!r}); pyjax reads only what pyjax's Exported.serialize wrote")
    if len(blob) < len(MAGIC) + 2:
        raise ValueError("deserialize: the blob is truncated (no format version)")
    (version,) = struct.unpack(">H", blob[len(MAGIC):len(MAGIC) + 2])
    if version != FORMAT_VERSION:
        raise ValueError(f"deserialize: the blob has serialization format version {version}, but "
                         f"this pyjax reads only version {FORMAT_VERSION}")
    try:
        return json.loads(zlib.decompress(blob[len(MAGIC) + 2:]).decode("utf-8"))
    except (zlib.error, UnicodeDecodeError, json.JSONDecodeError) as e:
        raise ValueError(f"deserialize: the blob's payload is corrupt ({e})") from None
