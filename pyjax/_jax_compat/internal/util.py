"""`jax._src.util`: the small list and function helpers JAX's code and tests import
(safe_map/safe_zip/foreach, unzip2/3, split_list, partition_list, merge_lists, curry, ...)."""
from __future__ import annotations

import collections
import functools
import threading
import weakref

from pyjax._jax_compat._unsupported import module_getattr


_EXTRA = 10  # how far past the shortest argument an unsized one is read to report its length


def _length_of_rest(arg, it, consumed: int) -> tuple[str, bool]:
    """The length of an argument, `consumed` items of which have been read from `it`: its len()
    if it has one, else what reading on (at most _EXTRA more items) finds, and if it was capped."""
    if hasattr(arg, "__len__"):
        return str(len(arg)), False
    for _ in range(_EXTRA):
        try:
            next(it)
        except StopIteration:
            return str(consumed), False
        consumed += 1
    return f"{consumed}+", True


def safe_zip(*args):
    """zip that insists the arguments have equal lengths, as a list; a ValueError names the
    first argument whose length differs from argument 0's, and all the lengths."""
    if not args:
        raise TypeError("safe_zip requires at least 1 argument")
    its = [iter(a) for a in args]
    out = []
    while True:
        row, ended = [], []
        for i, it in enumerate(its):
            try:
                row.append(next(it))
            except StopIteration:
                ended.append(i)
        if ended:
            break
        out.append(tuple(row))
    if len(ended) == len(its):
        return out
    n = len(out)
    found = [(str(n), False) if i in ended else _length_of_rest(a, it, n + 1)
             for i, (a, it) in enumerate(zip(args, its))]
    lengths = [length for length, _ in found]
    j = next(i for i, length in enumerate(lengths) if length != lengths[0])
    msg = (f"safe_zip() argument {j} has length {lengths[j]} but argument 0 has length "
           f"{lengths[0]}. All lengths: ({', '.join(lengths)})")
    capped = [str(i) for i, (_, c) in enumerate(found) if c]
    if capped:
        msg += f" (Note: length capped for argument(s) {', '.join(capped)})"
    raise ValueError(msg)


def safe_map(*args):
    """map over equally long arguments, as a list (`safe_map(f, xs, ys, ...)`)."""
    if len(args) < 2:
        raise TypeError("safe_map requires at least 2 arguments")
    f, *lists = args
    try:
        rows = list(zip(*lists, strict=True))
    except ValueError as e:
        raise ValueError(str(e).replace("zip()", "safe_map()", 1)) from None
    return [f(*xs) for xs in rows]


def foreach(f, *args) -> None:
    """safe_map for its effects: `f` on each row of the equally long arguments, returning None."""
    safe_map(f, *args)


def toposort(end_nodes):
    """The nodes `end_nodes` reach through `.parents`, each after all of its parents."""
    order, done, on_path = [], set(), set()
    for root in end_nodes:
        stack = [(root, iter(root.parents))]
        if id(root) in done:
            continue
        on_path.add(id(root))
        while stack:
            node, parents = stack[-1]
            parent = next((p for p in parents if id(p) not in done), None)
            if parent is None:
                stack.pop()
                on_path.discard(id(node))
                if id(node) not in done:
                    done.add(id(node))
                    order.append(node)
            elif id(parent) in on_path:
                raise ValueError("toposort: the graph has a cycle")
            else:
                on_path.add(id(parent))
                stack.append((parent, iter(parent.parents)))
    return order


def unzip2(pairs):
    xs, ys = [], []
    for x, y in pairs:
        xs.append(x)
        ys.append(y)
    return tuple(xs), tuple(ys)


def unzip3(triples):
    xs, ys, zs = [], [], []
    for x, y, z in triples:
        xs.append(x)
        ys.append(y)
        zs.append(z)
    return tuple(xs), tuple(ys), tuple(zs)


def split_list(args, ns):
    """`args` cut into pieces of the lengths `ns`, and the rest as a last piece."""
    args, out = list(args), []
    for n in ns:
        out.append(args[:n])
        args = args[n:]
    out.append(args)
    return out


def split_list_checked(args, ns):
    assert sum(ns) == len(args), (ns, len(args))
    return split_list(args, ns)[:-1]


def partition_list(bs, lst):
    """(the items where `bs` is False, those where it is True)."""
    lists = [], []
    for b, x in zip(bs, lst, strict=True):
        lists[bool(b)].append(x)
    return lists


def merge_lists(bs, l0, l1):
    """The inverse of partition_list."""
    i0, i1 = iter(l0), iter(l1)
    out = [next(i1) if b else next(i0) for b in bs]
    assert next(i0, None) is None and next(i1, None) is None
    return out


def subvals(lst, replace):
    lst = list(lst)
    for i, v in replace:
        lst[i] = v
    return tuple(lst)


def tuple_insert(t, idx, val):
    assert 0 <= idx <= len(t), (idx, len(t))
    return t[:idx] + (val,) + t[idx:]


def tuple_delete(t, idx):
    assert 0 <= idx < len(t), (idx, len(t))
    return t[:idx] + t[idx + 1:]


def tuple_update(t, idx, val):
    assert 0 <= idx < len(t), (idx, len(t))
    return t[:idx] + (val,) + t[idx + 1:]


def curry(f):
    """`curry(f)(x)(y) == f(x, y)`."""
    return functools.partial(functools.partial, f)


def concatenate(xs):
    return [x for x_list in xs for x in x_list]


def prod(xs):
    out = 1
    for x in xs:
        out *= x
    return out


def canonicalize_axis(axis, num_dims):
    """A non-negative axis; ValueError when out of range (as JAX's util)."""
    axis = int(axis)
    if axis < 0:
        axis += num_dims
    if not 0 <= axis < num_dims:
        raise ValueError(f"axis {axis} is out of bounds for array of dimension {num_dims}")
    return axis


def ceil_of_ratio(x, y):
    return -(-x // y)


def wrap_name(name, transform_name):
    return f"{transform_name}({name})"


cache = functools.cache
weakref_lru_cache = functools.lru_cache

# Types whose instances multi_weakref_lru_cache keys hold weakly (by identity).
weakref_cache_key_types: set[type] = set()
_multi_weakref_caches: weakref.WeakSet = weakref.WeakSet()


class _MultiWeakrefLruCache:
    """An LRU cache of `fun` whose key holds the arguments of a type in weakref_cache_key_types
    (also inside plain tuples) weakly, by identity: an entry goes when one of them dies."""

    def __init__(self, fun, maxsize):
        self.fun, self.maxsize = fun, maxsize
        self.entries: collections.OrderedDict = collections.OrderedDict()
        self.hits = self.misses = 0
        self.lock = threading.RLock()
        functools.update_wrapper(self, fun)

    def _key(self, x, weak: list):
        if type(x) in weakref_cache_key_types:
            weak.append(x)
            return ("weak", id(x))
        if type(x) is tuple:
            return ("tuple", tuple(self._key(e, weak) for e in x))
        return ("value", x)

    def __call__(self, *args, **kwargs):
        weak: list = []
        key = (tuple(self._key(a, weak) for a in args),
               tuple(sorted((k, self._key(v, weak)) for k, v in kwargs.items())))
        with self.lock:
            if key in self.entries:
                self.hits += 1
                self.entries.move_to_end(key)
                return self.entries[key][0]
        result = self.fun(*args, **kwargs)
        drop = functools.partial(self._drop, key)
        refs = [weakref.ref(o, drop) for o in {id(o): o for o in weak}.values()]
        with self.lock:
            self.misses += 1
            self.entries[key] = (result, refs)
            while self.maxsize is not None and len(self.entries) > self.maxsize:
                self.entries.popitem(last=False)
        return result

    def _drop(self, key, _dead_ref) -> None:
        with self.lock:
            self.entries.pop(key, None)

    def cache_info(self):
        return functools._CacheInfo(self.hits, self.misses, self.maxsize, len(self.entries))

    def cache_clear(self) -> None:
        with self.lock:
            self.entries.clear()
            self.hits = self.misses = 0


def multi_weakref_lru_cache(fun=None, *, maxsize: int | None = 2048,
                            trace_context_in_key: bool = True):
    """JAX's cache keyed weakly on some arguments (see _MultiWeakrefLruCache).
    NB: pyjax's trace context does not enter the key (`trace_context_in_key` is accepted)."""
    if fun is None:
        return functools.partial(multi_weakref_lru_cache, maxsize=maxsize,
                                 trace_context_in_key=trace_context_in_key)
    cached = _MultiWeakrefLruCache(fun, maxsize)
    _multi_weakref_caches.add(cached)
    return cached


def clear_all_caches() -> None:
    """Empty the caches made by multi_weakref_lru_cache."""
    for c in list(_multi_weakref_caches):
        c.cache_clear()

__getattr__ = module_getattr("jax._src.util")
