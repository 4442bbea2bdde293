"""Sorting and searching: `sort`, `argsort`, `lexsort`, `partition`, `argpartition`,
`sort_complex`, `searchsorted`, `digitize`, and the permutation helpers that the set operations
and statistics build on.

Everything is a `lax.sort` (several operands sorted together) or `lax.top_k`: moving values by
a permutation is itself a sort (`take_permuted`), so none of this needs gather or scatter.
"""
from __future__ import annotations

import functools

import numpy as np

from pyjax._src import core, dtypes
from pyjax._src.lax import elementwise as lax
from pyjax._src.lax import reductions as lax_red
from pyjax._src.lax import shape_ops
from pyjax._src.lax import slicing as lax_slicing
from pyjax._src.lax import sorting as lax_sort
from pyjax._src.lax.control_flow.scan import scan
from pyjax._src.lax.utils import canonicalize_axis, kind
from pyjax._src.numpy.util import asarray_value, check_arraylike, promote_dtypes


def _aval(x):
    return core.get_aval(x)


def _array(fname, a):
    check_arraylike(fname, a)
    return asarray_value(a)


def _flat_if_none(a, axis):
    if axis is None:
        return shape_ops.reshape(a, (_aval(a).size,)), 0
    return a, axis


def index_dtype(n) -> np.dtype:
    """JAX's index dtype for an axis of `n` elements: the default int (int32 unless it can't
    count that far)."""
    return dtypes.default_int_dtype() if n < 2**31 else np.dtype(np.int64)


def _check_kind_order(fname, kind_, order):
    if kind_ is not None:
        raise TypeError(f"'kind' argument to {fname} is not supported. Use stable=True or "
                        f"stable=False to specify sort stability.")
    if order is not None:
        raise TypeError(f"'order' argument to {fname} is not supported.")


def sort(a, axis=-1, *, kind=None, order=None, stable=True, descending=False):
    """A sorted copy of `a` along `axis` (flattened when None); NaN sorts last, -0.0 equals 0.0.

    Example:
        >>> jnp.sort(jnp.array([3, 1, 2]), descending=True)
        Array([3, 2, 1], dtype=int32)
    """
    _check_kind_order("sort", kind, order)
    a, axis = _flat_if_none(_array("sort", a), axis)
    dim = canonicalize_axis(axis, _aval(a).ndim, "axis", "sort")
    out = lax_sort.sort(a, dimension=dim, is_stable=stable)
    return shape_ops.rev(out, (dim,)) if descending else out


def argsort(a, axis=-1, *, kind=None, order=None, stable=True, descending=False, dtype=None):
    """The indices that sort `a` along `axis`. With `stable` (the default) equal elements keep
    their order, also when `descending`.

    Example:
        >>> jnp.argsort(jnp.array([3, 1, 3, 2]), descending=True)
        Array([0, 2, 3, 1], dtype=int32)
    """
    _check_kind_order("argsort", kind, order)
    a, axis = _flat_if_none(_array("argsort", a), axis)
    aval = _aval(a)
    dim = canonicalize_axis(axis, aval.ndim, "axis", "argsort")
    idx_dt = (index_dtype(aval.shape[dim]) if dtype is None
              else dtypes.check_and_canonicalize_user_dtype(dtype, "argsort"))
    iota = shape_ops.broadcasted_iota(idx_dt, aval.shape, dim, out_sharding=aval.sharding)
    if descending and stable:  # reversed first, so that ties come out in their original order
        a, iota = shape_ops.rev(a, (dim,)), shape_ops.rev(iota, (dim,))
    idx = lax_sort.sort_key_val(a, iota, dimension=dim, is_stable=stable)[1]
    return shape_ops.rev(idx, (dim,)) if descending else idx


def lexsort(keys, axis=-1):
    """The indices that sort by several keys, the last key primary (as NumPy).

    Example:
        >>> jnp.lexsort((jnp.array([1, 0, 2]), jnp.array([1, 1, 0])))
        Array([2, 1, 0], dtype=int32)
    """
    keys = tuple(keys)
    if not keys:
        raise TypeError("lexsort: need a sequence of keys with len > 0")
    keys = [_array("lexsort", k) for k in keys]
    shapes = {_aval(k).shape for k in keys}
    if len(shapes) > 1:
        raise ValueError(f"lexsort: all keys need to be the same shape, got {sorted(shapes)}")
    shape = _aval(keys[0]).shape
    if not shape:
        return asarray_value(np.zeros((), dtypes.default_int_dtype()))
    dim = canonicalize_axis(axis, len(shape), "axis", "lexsort")
    iota = shape_ops.broadcasted_iota(index_dtype(shape[dim]), shape, dim)
    return lax_sort.sort((*keys[::-1], iota), dimension=dim, num_keys=len(keys))[-1]


def sort_complex(a):
    """`a` sorted (by real part, then imaginary part), as a complex array.

    Example:
        >>> jnp.sort_complex(jnp.array([2, 1]))
        Array([1.+0.j, 2.+0.j], dtype=complex64)
    """
    a = lax_sort.sort(_array("sort_complex", a))
    return lax._convert_element_type(a, dtypes.to_complex_dtype(_aval(a).dtype), False)


# -- partition (through top_k, as JAX: the low part ascending, the high part descending) --------

def _partition_setup(fname, a, kth, axis):
    a = _array(fname, a)
    aval = _aval(a)
    if kind(aval.dtype) == "c":
        raise NotImplementedError(f"jnp.{fname} for complex dtype is not implemented.")
    axis = canonicalize_axis(axis, aval.ndim, "axis", fname)
    kth = canonicalize_axis(kth, aval.shape[axis], "kth", fname)
    return shape_ops.transpose(a, _swap_last(aval.ndim, axis)), kth, axis


def _swap_last(ndim, axis):
    perm = list(range(ndim))
    perm[axis], perm[-1] = perm[-1], perm[axis]
    return perm


def _negated(x):
    """`-x`, or for unsigned integers `-(x + 1)`, which reverses their order without mapping 0
    to itself."""
    if kind(_aval(x).dtype) == "u":
        return lax.neg(lax.add(x, np.array(1, _aval(x).dtype)))
    return lax.neg(x)


def partition(a, kth, axis=-1):
    """`a` rearranged along `axis` so that entry `kth` is where sorting would put it, the
    smaller entries before it and the larger after.

    NB: as JAX's, the entries before `kth` come out ascending and those after it descending;
    NaN is not handled as NumPy does.

    Example:
        >>> jnp.partition(jnp.array([5, 1, 4, 2, 3]), 2)
        Array([1, 2, 3, 5, 4], dtype=int32)
    """
    arr, kth, axis = _partition_setup("partition", a, kth, axis)
    n = _aval(arr).shape[-1]
    bottom = _negated(lax_sort.top_k(_negated(arr), kth + 1)[0])
    top = lax_sort.top_k(arr, n - kth - 1)[0]
    out = shape_ops.concatenate([bottom, top], _aval(arr).ndim - 1)
    return shape_ops.transpose(out, _swap_last(_aval(arr).ndim, axis))


def argpartition(a, kth, axis=-1):
    """The indices that `partition` would move into each place (the high part in ascending
    index order, as JAX's).

    Example:
        >>> jnp.argpartition(jnp.array([5, 1, 4, 2, 3]), 2)
        Array([1, 3, 4, 0, 2], dtype=int32)
    """
    arr, kth, axis = _partition_setup("argpartition", a, kth, axis)
    ndim, n = _aval(arr).ndim, _aval(arr).shape[-1]
    order = lax_sort.top_k(_negated(arr), n)[1]  # ascending; ties by lower index
    bottom = shape_ops.slice_in_dim(order, 0, kth + 1, axis=ndim - 1)
    rest = lax_sort.sort(shape_ops.slice_in_dim(order, kth + 1, n, axis=ndim - 1), dimension=ndim - 1)
    out = shape_ops.concatenate([bottom, rest], ndim - 1)
    return shape_ops.transpose(out, _swap_last(ndim, axis))


# -- permutations as sorts -----------------------------------------------------------------------

def inverse_permutation(perm, axis=0):
    """`inv` with `inv[perm[i]] = i` along `axis`."""
    aval = _aval(perm)
    iota = shape_ops.broadcasted_iota(aval.dtype, aval.shape, axis)
    return lax_sort.sort_key_val(perm, iota, dimension=axis, is_stable=False)[1]


def take_permuted(x, perm, axis=0):
    """`x[..., perm[j], ...]` along `axis` for a permutation `perm` (broadcast to `x`'s shape
    when it is 1-D): sorting `x` by the inverse permutation."""
    xa = _aval(x)
    if _aval(perm).ndim == 1 and xa.ndim > 1:
        perm = shape_ops.broadcast_in_dim(perm, xa.shape, (axis,))
    return lax_sort.sort_key_val(inverse_permutation(perm, axis), x, dimension=axis,
                                 is_stable=False)[1]


def scatter_permuted(x, perm, axis=0):
    """`out` with `out[..., perm[j], ...] = x[..., j, ...]` (the transpose of `take_permuted`)."""
    return lax_sort.sort_key_val(perm, x, dimension=axis, is_stable=False)[1]


_TAKE_DNUMS = lax_slicing.GatherDimensionNumbers(offset_dims=(), collapsed_slice_dims=(0,),
                                                 start_index_map=(0,))


def take1d(a, idx, mode="clip"):
    """`a[idx]` for a 1-D `a` and an integer array `idx` of any shape (out-of-bounds indices
    clamped, or with mode="fill" reading NaN/the dtype's extreme)."""
    idx = shape_ops.expand_dims(idx, (_aval(idx).ndim,))
    return lax_slicing.gather(a, idx, _TAKE_DNUMS, (1,), mode=mode)


def compact(mask, *arrays, axis=0):
    """Stably move the entries of `arrays` where `mask` (1-D, along `axis`) holds to the front;
    returns the moved arrays. `jnp.where(mask, size=n)` followed by indexing, as one sort."""
    key = lax.bitwise_not(mask)
    outs = []
    for x in arrays:
        xa = _aval(x)
        k = shape_ops.broadcast_in_dim(key, xa.shape, (axis,)) if xa.ndim > 1 else key
        outs.append(lax_sort.sort((k, x), dimension=axis, num_keys=1)[1])
    return outs


# -- searchsorted ----------------------------------------------------------------------------------

def _canonical(x):
    """Floats as the sort comparator sees them: -0.0 as 0.0, every NaN the same."""
    aval = _aval(x)
    zero = np.zeros((), aval.dtype)
    x = lax.select_n(lax.eq(x, zero), x, shape_ops.broadcast_in_dim(zero, aval.shape, ()))
    nan = shape_ops.broadcast_in_dim(np.array(np.nan, aval.dtype), aval.shape, ())
    return lax.select_n(lax.ne(x, x), x, nan)


def _keys(x):
    k = kind(_aval(x).dtype)
    if k == "c":
        return [_canonical(lax.real(x)), _canonical(lax.imag(x))]
    return [_canonical(x)] if k == "f" else [x]


def _key_lt(x, y):
    """`x < y` in the sort order of one key (floats already canonical: NaN last)."""
    if kind(_aval(x).dtype) != "f":
        return lax.lt(x, y)
    return lax.bitwise_or(lax.lt(x, y), lax.bitwise_and(lax.ne(y, y), lax.eq(x, x)))


def _key_eq(x, y):
    if kind(_aval(x).dtype) != "f":
        return lax.eq(x, y)
    return lax.bitwise_or(lax.eq(x, y), lax.bitwise_and(lax.ne(x, x), lax.ne(y, y)))


def sort_lt(x, y):
    """Elementwise `x < y` in `lax.sort`'s order (equal shapes and dtypes)."""
    result = None
    for xk, yk in reversed(list(zip(_keys(x), _keys(y)))):
        lt = _key_lt(xk, yk)
        result = lt if result is None else lax.bitwise_or(lt, lax.bitwise_and(_key_eq(xk, yk), result))
    return result


_METHODS = ("scan", "scan_unrolled", "sort", "compare_all")


def searchsorted(a, v, side="left", sorter=None, *, method="scan"):
    """Where the values `v` would go in the sorted 1-D array `a` to keep it sorted: the first
    such place (`side='left'`) or the last (`'right'`), in `jnp.sort`'s order (NaN last).

    `method` picks the algorithm; all give the same result: 'scan' (a binary search, one level
    per loop step; 'scan_unrolled' unrolls the levels), 'sort' (a co-sort of `a` and `v`) and
    'compare_all' (every pair compared: O(n m), best when both are small).

    Example:
        >>> jnp.searchsorted(jnp.array([1, 2, 2, 3]), jnp.array([2, 0, 5]), side='right')
        Array([3, 0, 4], dtype=int32)
    """
    if sorter is None:
        check_arraylike("searchsorted", a, v)
    else:
        check_arraylike("searchsorted", a, v, sorter)
    if side not in ("left", "right"):
        raise ValueError(f"searchsorted: side must be 'left' or 'right', got {side!r}")
    if method not in _METHODS:
        raise ValueError(f"searchsorted: unsupported method {method!r}; choose from {_METHODS}")
    a, v = asarray_value(a), asarray_value(v)
    if _aval(a).ndim != 1:
        raise ValueError(f"searchsorted: a should be 1-dimensional, got shape {_aval(a).shape}")
    a, v = promote_dtypes(a, v)
    if sorter is not None:
        a = take1d(a, asarray_value(sorter))
    dt = np.dtype(np.int32) if _aval(a).shape[0] < 2**31 else np.dtype(np.int64)
    if _aval(a).shape[0] == 0 or _aval(v).size == 0:
        return asarray_value(np.zeros(_aval(v).shape, dt))
    if method == "compare_all":
        return _searchsorted_compare_all(a, v, side, dt)
    if method == "sort":
        return _searchsorted_sort(a, v, side, dt)
    return _searchsorted_scan(a, v, side, dt, unrolled=method == "scan_unrolled")


def _searchsorted_scan(a, v, side, dt, unrolled):
    """Binary search: `[low, high)` holds the answer; each level halves it by comparing with
    `a[mid]` ('left': go left when v <= a[mid]; 'right': when v < a[mid])."""
    n = _aval(a).shape[0]
    udt = np.dtype(np.uint64 if dt.itemsize == 8 else np.uint32)
    shape = _aval(v).shape
    low = shape_ops.broadcast_in_dim(np.zeros((), udt), shape, ())
    high = shape_ops.broadcast_in_dim(np.array(n, udt), shape, ())
    level = _search_level(side)
    levels = int(np.ceil(np.log2(n + 1)))
    carry = (low, high, a, v)
    if unrolled:
        for _ in range(levels):
            carry, _ = level(carry, None)
    else:
        carry, _ = scan(level, carry, None, length=levels)
    return lax._convert_element_type(carry[1], dt, False)


@functools.lru_cache(maxsize=None)
def _search_level(side):
    """One level of the binary search, the same function per side: `a` and `v` ride in the carry
    (a closure over them would be a new function per call), so eager calls of a signature reuse
    one traced and compiled scan, as JAX's jitted searchsorted does."""
    if side == "left":
        go_left = lambda q, x: lax.bitwise_not(sort_lt(x, q))  # noqa: E731  q <= x
    else:
        go_left = sort_lt

    def level(carry, _):
        low, high, a, v = carry
        mid = lax.add(low, lax.shift_right_logical(lax.sub(high, low), np.array(1, low.dtype)))
        left = go_left(v, take1d(a, mid))
        return (lax.select_n(left, mid, low), lax.select_n(left, high, mid), a, v), None
    return level


def _searchsorted_compare_all(a, v, side, dt):
    n, vshape = _aval(a).shape[0], _aval(v).shape
    shape = (n,) + vshape
    aa = shape_ops.broadcast_in_dim(a, shape, (0,))
    vv = shape_ops.broadcast_in_dim(v, shape, tuple(range(1, len(shape))))
    # left: how many a < v; right: how many a <= v (not v < a)
    hits = sort_lt(aa, vv) if side == "left" else lax.bitwise_not(sort_lt(vv, aa))
    return lax_red.reduce_sum(lax._convert_element_type(hits, dt, False), (0,))


def _rank(x, dt):
    """The position of each element of the 1-D `x` in its stable sort."""
    n = _aval(x).shape[0]
    perm = lax_sort.sort_key_val(x, shape_ops.iota(dt, n))[1]
    return inverse_permutation(perm)


def _searchsorted_sort(a, v, side, dt):
    """Sort `v` together with `a` (before the equal entries of `a` for 'left', after them for
    'right'); a value's place there minus its place among the `v`s is how many `a`s precede it."""
    n, m = _aval(a).shape[0], _aval(v).size
    flat = shape_ops.reshape(v, (m,))
    if side == "left":
        pos = shape_ops.slice_in_dim(_rank(shape_ops.concatenate([flat, a], 0), dt), 0, m)
    else:
        pos = shape_ops.slice_in_dim(_rank(shape_ops.concatenate([a, flat], 0), dt), n, n + m)
    return shape_ops.reshape(lax.sub(pos, _rank(flat, dt)), _aval(v).shape)


def digitize(x, bins, right=False, *, method=None):
    """The index of the bin of `bins` (monotonic, increasing or decreasing) each `x` falls in.

    Example:
        >>> jnp.digitize(jnp.array([0.5, 1.0, 2.5]), jnp.array([1.0, 2.0, 3.0]))
        Array([0, 1, 2], dtype=int32)
    """
    check_arraylike("digitize", x, bins)
    x, bins = asarray_value(x), asarray_value(bins)
    right = core.concrete_or_error(right, "right argument of jnp.digitize()")
    if _aval(bins).ndim != 1:
        raise ValueError(f"digitize: bins must be a 1-dimensional array; got shape {_aval(bins).shape}")
    n = _aval(bins).shape[0]
    if n == 0:
        return asarray_value(np.zeros(_aval(x).shape, np.int32))
    side = "left" if right else "right"
    kw = {} if method is None else {"method": method}
    increasing = lax.ge(shape_ops.slice_in_dim(bins, n - 1, n), shape_ops.slice_in_dim(bins, 0, 1))
    up = searchsorted(bins, x, side=side, **kw)
    down = lax.sub(np.array(n, _aval(up).dtype), searchsorted(shape_ops.rev(bins, (0,)), x, side=side, **kw))
    pred = shape_ops.broadcast_in_dim(shape_ops.reshape(increasing, ()), _aval(up).shape, ())
    return lax.select_n(pred, down, up)

