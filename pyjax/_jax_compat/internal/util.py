"""`jax._src.util`: the small list and function helpers JAX's code and tests import
(safe_map/safe_zip, unzip2/3, split_list, partition_list, merge_lists, curry, ...)."""
from __future__ import annotations

import functools

from pyjax._jax_compat._unsupported import module_getattr


def safe_zip(*args):
    """zip that insists the arguments have equal lengths."""
    return list(zip(*args, strict=True))


def safe_map(f, *args):
    """map over equally long arguments, as a list."""
    return [f(*xs) for xs in zip(*args, strict=True)]


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

__getattr__ = module_getattr("jax._src.util")
