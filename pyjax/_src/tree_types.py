"""The small value types of pytrees: the entries of key paths (`DictKey`, `SequenceKey`,
`GetAttrKey`, `FlattenedIndexKey`, `keystr`), `Partial`, and how a structure prints in JAX's
spelling (`treedef_repr`). tree_util registers Partial as a node and re-exports all of them as
`tree_util.X`, where JAX has them."""
from __future__ import annotations

import collections
import dataclasses
import functools
from collections.abc import Hashable
from typing import Any, TypeVar

import optree

KeyEntry = TypeVar("KeyEntry", bound=Any)
KeyLeafPair = tuple[KeyEntry, Any]
KeyPath = tuple[KeyEntry, ...]


@dataclasses.dataclass(frozen=True, slots=True)
class DictKey:
    """Path entry of a mapping value: `DictKey('a')` prints as `['a']`."""
    key: Hashable

    def __str__(self):
        return f"[{self.key!r}]"


@dataclasses.dataclass(frozen=True, slots=True)
class SequenceKey:
    """Path entry of a list/tuple element: `SequenceKey(0)` prints as `[0]`."""
    idx: int

    def __str__(self):
        return f"[{self.idx!r}]"


@dataclasses.dataclass(frozen=True, slots=True)
class GetAttrKey:
    """Path entry of an attribute (namedtuple and dataclass fields): prints as `.name`."""
    name: str

    def __str__(self):
        return f".{self.name}"


@dataclasses.dataclass(frozen=True, slots=True)
class FlattenedIndexKey:
    """Path entry of the i-th child of a node registered without keys."""
    key: int

    def __str__(self):
        return f"[<flat index {self.key}>]"

    def __hash__(self):  # (apart from SequenceKey's of the same index, as JAX's)
        return hash((FlattenedIndexKey, self.key))


def keystr(keys: KeyPath, *, simple: bool = False, separator: str = "") -> str:
    """Renders a key path; `simple=True` drops the brackets, quotes and dots.

    >>> path = (DictKey('a'), SequenceKey(0), GetAttrKey('x'))
    >>> keystr(path), keystr(path, simple=True, separator='/')
    ("['a'][0].x", 'a/0/x')
    """
    return separator.join(map(_simple_key_str if simple else str, keys))


def _simple_key_str(key) -> str:
    match key:
        case DictKey(key=k) | SequenceKey(idx=k) | GetAttrKey(name=k) | FlattenedIndexKey(key=k):
            return str(k)
    return str(key)


class Partial(functools.partial):
    """A `functools.partial` that is a pytree: `func` is static, `args` and `keywords` are children,
    so partially applied functions can pass through `jit`, `vmap` and `tree_map`.

    >>> add = Partial(operator.add, 1)
    >>> tree_map(lambda x: x * 10, add)(2)
    12
    """

    def __new__(cls, func, *args, **kw):
        if isinstance(func, functools.partial):
            # Otherwise Python merges func's arguments into ours; in JAX they stay static.
            func = _OpaquePartial(func)
        return super().__new__(cls, func, *args, **kw)


class _OpaquePartial:
    """Holds a `functools.partial` passed as `Partial`'s func; calls, hashes and compares like it."""
    __slots__ = ("partial",)

    def __init__(self, partial):
        self.partial = partial

    def __call__(self, *args, **kw):
        return self.partial(*args, **kw)

    def __hash__(self):
        return hash(self.partial)

    def __eq__(self, other):
        return self.partial == (other.partial if isinstance(other, _OpaquePartial) else other)

    def __repr__(self):
        return repr(self.partial)

    func = property(lambda self: self.partial.func)
    args = property(lambda self: self.partial.args)
    keywords = property(lambda self: self.partial.keywords)


def treedef_repr(treedef: PyTreeDef) -> str:
    """JAX's spelling of a structure: None, tuples, lists and dicts print as themselves, any
    other node as `CustomNode(Name[aux data], [children])`.

    >>> treedef_repr(tree_structure({'b': [1, None], 'a': collections.OrderedDict(x=2)}))
    "PyTreeDef({'a': CustomNode(OrderedDict[('x',)], [*]), 'b': [*, None]})"
    """
    return f"PyTreeDef({treedef.walk(['*'] * treedef.num_leaves, _node_repr, str)})"


def _node_repr(node_type, data, children) -> str:
    if node_type is type(None):
        return "None"
    if node_type is tuple:
        return f"({', '.join(children)}{',' if len(children) == 1 else ''})"
    if node_type is list:
        return f"[{', '.join(children)}]"
    if node_type is dict:
        return "{" + ", ".join(f"{k!r}: {c}" for k, c in zip(data, children)) + "}"
    if optree.is_namedtuple_class(node_type):
        head = f"namedtuple[{node_type.__name__}]"
    else:  # optree keeps the keys of these in lists; JAX's aux data has tuples
        if node_type is collections.OrderedDict:
            data = tuple(data)
        elif node_type is collections.defaultdict:
            data = (data[0], tuple(data[1]))
        head = f"{node_type.__name__}[{data!r}]"
    return f"CustomNode({head}, [{', '.join(children)}])"
