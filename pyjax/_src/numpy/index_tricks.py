"""jax.numpy's functions built on indexing, gather and scatter: `take`, `take_along_axis`,
`put_along_axis`, `put`, `place`, `choose`, `compress`, `extract`, `nonzero` / `argwhere` /
`flatnonzero` (with `size=` and `fill_value=`, so they work under jit), `bincount`,
`unravel_index`, `ravel_multi_index`, `ix_`, `indices`, `mgrid`, `ogrid`, `r_`, `c_`, the
`diag`/`tril`/`triu`/`mask` index functions, `fill_diagonal`, `delete` and `insert`.

As in JAX, functions whose output shape depends on values (nonzero, compress, bincount without
`length`...) need concrete inputs unless a static size is given, and the "in place" NumPy
functions (`put`, `place`, `put_along_axis`, `fill_diagonal`) return a new array and require
`inplace=False`.
"""
from __future__ import annotations

import operator

import numpy as np

from pyjax._src import core, dtypes
from pyjax._src.array import Array
from pyjax._src.lax import elementwise as lax
from pyjax._src.lax import shape_ops, slicing
from pyjax._src.lax.utils import canonicalize_axis, kind
from pyjax._src.numpy import indexing
from pyjax._src.numpy import reductions as jred
from pyjax._src.numpy import ufuncs
from pyjax._src.numpy.creation import arange, array, asarray, full, linspace, ones, zeros
from pyjax._src.numpy.shape import broadcast_arrays, concatenate, moveaxis, ravel, reshape, stack
from pyjax._src.numpy.sorting import argsort, sort
from pyjax._src.numpy.util import asarray_value, broadcast_shapes, broadcast_to, check_arraylike


def _int_dtype():
    return dtypes.canonicalize_dtype(np.int64)


def _shape(x):
    return core.get_aval(x).shape


def _at(x):
    return indexing._IndexUpdateHelper(asarray_value(x))


def _inplace_error(name):
    return ValueError(f"jax.numpy.{name} cannot modify arrays in-place, because JAX arrays are "
                      f"immutable. Pass inplace=False to instead return an updated array.")


def _static_int(x, what):
    return int(core.concrete_or_error(x, what))


# -- take and friends --------------------------------------------------------------------------


def take(a, indices, axis=None, out=None, mode=None, unique_indices=False,
         indices_are_sorted=False, fill_value=None):
    """Elements of `a` at `indices` along `axis` (flattened if None). `mode`: "fill" (default:
    out-of-bounds indices read `fill_value`, NaN for floats; negative indices count from the
    end), "clip", or "wrap".

    Example:
        >>> jnp.take(jnp.array([10, 11, 12]), jnp.array([2, -1, 5]))
        Array([         12,          12, -2147483648], dtype=int32)
    """
    if out is not None:
        raise NotImplementedError("The 'out' argument to jnp.take is not supported.")
    check_arraylike("take", a, indices)
    a, indices = asarray_value(a), asarray_value(indices)
    if axis is None:
        a, axis = ravel(a), 0
    axis = canonicalize_axis(axis, len(_shape(a)), fname="take")
    n = _shape(a)[axis]
    if mode is None or mode == "fill":
        gmode = slicing.GatherScatterMode.FILL_OR_DROP
        indices = indexing._normalize(indices, n, True)
    elif mode == "raise":
        raise NotImplementedError("The 'raise' mode to jnp.take is not supported.")
    elif mode == "wrap":
        indices = ufuncs.remainder(indices, np.asarray(n, core.get_aval(indices).dtype)[()])
        gmode = slicing.GatherScatterMode.PROMISE_IN_BOUNDS
    elif mode == "clip":
        gmode = slicing.GatherScatterMode.CLIP
    else:
        raise ValueError(f"Invalid mode '{mode}' for np.take")
    idx_shape, shape = np.shape(indices), list(_shape(a))
    if n == 0:
        if int(np.prod(idx_shape)) != 0:
            raise IndexError("Cannot do a non-empty jnp.take() from an empty axis.")
        return a
    if int(np.prod(idx_shape)) == 0:
        return zeros(shape[:axis] + list(idx_shape) + shape[axis + 1:], core.get_aval(a).dtype)
    shape[axis] = 1
    nd = len(idx_shape)
    dnums = slicing.GatherDimensionNumbers(
        offset_dims=tuple(range(axis)) + tuple(range(axis + nd, len(shape) + nd - 1)),
        collapsed_slice_dims=(axis,), start_index_map=(axis,))
    idx = shape_ops.expand_dims(asarray_value(indices), (nd,))
    return slicing.gather(a, idx, dnums, tuple(shape), mode=gmode, fill_value=fill_value,
                          unique_indices=unique_indices, indices_are_sorted=indices_are_sorted)


def take_along_axis(arr, indices, axis=-1, mode=None, fill_value=None, *,
                    wrap_negative_indices=None):
    """`arr` at `indices` along `axis`, the other axes matched (broadcast) between the two, as
    NumPy's take_along_axis. Out-of-bounds indices read `fill_value` (mode "fill", the default).

    Example:
        >>> x = jnp.array([[3, 1, 2], [6, 5, 4]])
        >>> jnp.take_along_axis(x, jnp.argsort(x, axis=1), axis=1)
        Array([[1, 2, 3],
               [4, 5, 6]], dtype=int32)
    """
    check_arraylike("take_along_axis", arr, indices)
    a, indices = asarray_value(arr), asarray_value(indices)
    if kind(core.get_aval(indices).dtype) not in "iu":
        raise TypeError(f"take_along_axis indices must be of integer type, got {core.get_aval(indices).dtype}")
    if axis is None:
        if len(_shape(indices)) != 1:
            raise ValueError(f"take_along_axis indices must be 1D if axis=None, got shape {_shape(indices)}")
        a, axis = ravel(a), 0
    rank = len(_shape(a))
    if rank != len(_shape(indices)):
        raise ValueError(f"indices and arr must have the same number of dimensions; "
                         f"{len(_shape(indices))} vs. {rank}")
    axis = canonicalize_axis(axis, rank, fname="take_along_axis")
    n = _shape(a)[axis]
    arr_shape = tuple(1 if d == axis else s for d, s in enumerate(_shape(a)))
    out_shape = broadcast_shapes(_shape(indices), arr_shape)
    if n == 0:
        return zeros(out_shape, core.get_aval(a).dtype)
    if wrap_negative_indices is None:
        wrap_negative_indices = mode != "promise_in_bounds"
    indices = indexing._normalize(indices, n, wrap_negative_indices)
    indices = broadcast_to(indices, out_shape)
    a = broadcast_to(a, tuple(n if d == axis else s for d, s in enumerate(out_shape)))
    others = tuple(d for d in range(rank) if d != axis)
    dnums = slicing.GatherDimensionNumbers(
        offset_dims=(), collapsed_slice_dims=(axis,), start_index_map=(axis,),
        operand_batching_dims=others, start_indices_batching_dims=others)
    return slicing.gather(a, shape_ops.expand_dims(indices, (rank,)), dnums, (1,) * rank,
                          mode="fill" if mode is None else mode, fill_value=fill_value)


def _along_axis_index(shape, indices, axis):
    """The advanced index putting `indices` along `axis` and every position elsewhere."""
    idx = []
    for d, n in enumerate(shape):
        if d == axis:
            idx.append(indices)
        else:
            sub = [1] * len(shape)
            sub[d] = n
            idx.append(np.arange(n).reshape(sub))
    return tuple(idx)


def put_along_axis(arr, indices, values, axis, inplace=True, *, mode=None):
    """`arr` with `values` written at `indices` along `axis` (NumPy's put_along_axis, returning
    a new array: `inplace=False` is required)."""
    if inplace:
        raise _inplace_error("put_along_axis")
    check_arraylike("put_along_axis", arr, indices, values)
    a, indices = asarray_value(arr), asarray_value(indices)
    original = _shape(a)
    if axis is None:
        a, axis = ravel(a), 0
    axis = canonicalize_axis(axis, len(_shape(a)), fname="put_along_axis")
    if len(_shape(indices)) != len(_shape(a)):
        raise ValueError(f"indices and arr must have the same number of dimensions; "
                         f"{len(_shape(indices))} vs. {len(_shape(a))}")
    out = _at(a)[_along_axis_index(_shape(a), indices, axis)].set(values, mode=mode)
    return reshape(out, original)


def _tile_to_size(v, n):
    """A 1-D `v` repeated (or cut) to length `n`."""
    m = _shape(v)[0]
    if m != n:
        v = concatenate([v] * -(-n // m))[:n] if m else v
    return v


def put(a, ind, v, mode=None, *, inplace=True):
    """`a` with the flat positions `ind` set to `v` (repeated to `ind`'s length); `mode` None
    drops out-of-bounds positions, "clip" clamps and "wrap" wraps them."""
    if inplace:
        raise _inplace_error("put")
    check_arraylike("put", a, ind, v)
    arr = asarray_value(a)
    ind, v = ravel(asarray_value(ind)), ravel(asarray_value(v))
    size = int(np.prod(_shape(arr)))
    if not size or not _shape(ind)[0] or not _shape(v)[0]:
        return arr
    v = _tile_to_size(v, _shape(ind)[0])
    if mode is None:
        smode = "drop"
    elif mode == "clip":
        ind, smode = ufuncs.minimum(ufuncs.maximum(ind, 0), size - 1), "promise_in_bounds"
    elif mode == "wrap":
        ind, smode = ufuncs.remainder(ind, size), "promise_in_bounds"
    elif mode == "raise":
        raise NotImplementedError("The 'raise' mode to jnp.put is not supported.")
    else:
        raise ValueError(f"mode should be one of 'wrap' or 'clip'; got {mode=}")
    return _at(arr)[unravel_index(ind, _shape(arr))].set(v, mode=smode)


def place(arr, mask, vals, *, inplace=True):
    """`arr` with the positions where `mask` is true set to `vals` in order (repeated as
    needed), as NumPy's place (returning a new array: `inplace=False` is required)."""
    check_arraylike("place", arr, mask, vals)
    data, mask, vals = asarray_value(arr), asarray_value(mask), ravel(asarray_value(vals))
    if inplace:
        raise _inplace_error("place")
    size = int(np.prod(_shape(data)))
    if size != int(np.prod(_shape(mask))):
        raise ValueError("place: arr and mask must be the same size")
    if not _shape(vals)[0]:
        raise ValueError("Cannot place values from an empty array")
    if not size:
        return data
    where_true = nonzero(ravel(mask), size=size, fill_value=size)[0]
    out = _at(ravel(data))[where_true].set(_tile_to_size(vals, size), mode="drop")
    return reshape(out, _shape(data))


def choose(a, choices, out=None, mode="raise"):
    """`choices[a[i]][i]` elementwise (the arrays broadcast); `mode` "raise" (needs a concrete
    `a`), "wrap" or "clip"."""
    if out is not None:
        raise NotImplementedError("The 'out' argument to jnp.choose is not supported.")
    check_arraylike("choose", a, *choices)
    a, choices = asarray_value(a), [asarray_value(c) for c in choices]
    if kind(core.get_aval(a).dtype) not in "iu":
        raise ValueError("`a` array must be integer typed")
    n = len(choices)
    if mode == "raise":
        value = core.concrete_or_error(a, "jnp.choose with mode='raise' (use mode='wrap' or 'clip' under jit)")
        if np.any((value < 0) | (value >= n)):
            raise ValueError("invalid entry in choice array")
    elif mode == "wrap":
        a = ufuncs.remainder(a, n)
    elif mode == "clip":
        a = ufuncs.minimum(ufuncs.maximum(a, 0), n - 1)
    else:
        raise ValueError(f"mode={mode!r} not understood. Must be 'raise', 'wrap', or 'clip'")
    a, *choices = broadcast_arrays(a, *choices)
    return indexing.getitem(stack(choices), (a,) + indices(_shape(a), sparse=True))


def compress(condition, a, axis=None, *, size=None, fill_value=0, out=None):
    """The slices of `a` along `axis` where the 1-D `condition` is true. With a static `size`
    the result has that length (padded with `fill_value`), so it works under jit."""
    check_arraylike("compress", condition, a, fill_value)
    if out is not None:
        raise NotImplementedError("The 'out' argument to jnp.compress is not supported.")
    cond = asarray_value(condition)   # (as astype(bool): no promotion, strict mode too)
    cond = lax.ne(cond, np.zeros((), core.get_aval(cond).dtype))
    if len(_shape(cond)) != 1:
        raise ValueError("condition must be a 1D array")
    arr = asarray_value(a)
    arr = ravel(arr) if axis is None else moveaxis(arr, axis, 0)
    axis = 0 if axis is None else axis
    n = _shape(arr)[0]
    cond, extra = cond[:n], cond[n:]
    arr = arr[:_shape(cond)[0]]
    if size is None:
        if np.any(core.concrete_or_error(extra, "jnp.compress without size")):
            raise ValueError("condition contains entries that are out of bounds")
        result = indexing.getitem(arr, core.concrete_or_error(cond, "jnp.compress without a static size"))
    else:
        size = _static_int(size, "the size argument of jnp.compress")
        if not 0 <= size <= _shape(arr)[0]:
            raise ValueError(f"size must be positive and not greater than the size of the array "
                             f"axis; got {size=} for a.shape[axis]={_shape(arr)[0]}")
        mask = shape_ops.expand_dims(cond, tuple(range(1, len(_shape(arr)))))
        fill = lax.convert_element_type(asarray_value(fill_value), core.get_aval(arr).dtype)
        arr = ufuncs.where_(broadcast_to(mask, _shape(arr)), arr, fill)
        result = arr[argsort(cond, stable=True, descending=True)][:size]
    return moveaxis(result, 0, axis)


def extract(condition, arr, *, size=None, fill_value=0):
    """The elements of `arr` where `condition` is true, flattened (see `compress`)."""
    return compress(ravel(asarray_value(condition)), ravel(asarray_value(arr)), size=size,
                    fill_value=fill_value)


# -- nonzero and bincount ----------------------------------------------------------------------


def nonzero(a, *, size=None, fill_value=None):
    """The indices of the nonzero elements of `a`, one array per axis. Without a static `size`
    `a` must be concrete; with it the result has `size` entries (truncated, or padded with
    `fill_value`, default 0, a scalar or one per axis), so it works under jit.

    Example:
        >>> jnp.nonzero(jnp.array([0, 3, 0, 5]), size=3, fill_value=-1)
        (Array([ 1,  3, -1], dtype=int32),)
    """
    check_arraylike("nonzero", a)
    arr = asarray_value(a)
    shape = _shape(arr)
    if not shape:
        raise ValueError("Calling nonzero on 0d arrays is not allowed. Use "
                         "jnp.atleast_1d(scalar).nonzero() instead.")
    if size is None:
        value = core.concrete_or_error(arr, "jnp.nonzero without a static size= argument (pass "
                                            "size=... to use it under jit)")
        return tuple(asarray(i.astype(_int_dtype())) for i in np.nonzero(value))
    size = _static_int(size, "the size argument of jnp.nonzero")
    fills = _fill_values(fill_value, len(shape))
    mask = ravel(arr) if core.get_aval(arr).dtype == np.bool_ else ufuncs.not_equal(ravel(arr), 0)
    n, dt = int(np.prod(shape)), _int_dtype()
    if size == 0 or n == 0:
        return tuple(full((size,), f, dt) for f in fills)
    rank = jred.cumsum(mask, dtype=dt) - 1  # the k-th nonzero goes to slot k; the rest drop
    slots = ufuncs.where_(mask, rank, np.asarray(size, dt)[()])
    flat = _at(zeros((size,), dt))[slots].set(arange(n, dtype=dt), mode="drop")
    valid = ufuncs.less(arange(size, dtype=dt), jred.sum(mask, dtype=dt))
    coords = unravel_index(flat, shape)
    return tuple(ufuncs.where_(valid, c, np.asarray(f, dt)[()] if not isinstance(f, core.Tracer) else f)
                 for c, f in zip(coords, fills))


def _fill_values(fill_value, ndim):
    if fill_value is None:
        return (0,) * ndim
    if isinstance(fill_value, (tuple, list)):
        if len(fill_value) != ndim:
            raise ValueError(f"fill_value must be a scalar or a tuple of length {ndim}; got {fill_value}")
        return tuple(fill_value)
    if np.ndim(fill_value) != 0:
        raise ValueError(f"fill_value must be a scalar or a tuple of length {ndim}; got {fill_value}")
    return (fill_value,) * ndim


def flatnonzero(a, *, size=None, fill_value=None):
    """The indices of the nonzero elements of `a` flattened (see `nonzero`)."""
    return nonzero(ravel(asarray_value(a)), size=size, fill_value=fill_value)[0]


def argwhere(a, *, size=None, fill_value=None):
    """The indices of the nonzero elements of `a`, one row per element (see `nonzero`)."""
    arr = asarray_value(a)
    if not _shape(arr):  # as NumPy: one row of no coordinates per nonzero scalar
        count = _shape(nonzero(reshape(arr, (1,)), size=size)[0])[0]
        return zeros((count, 0), _int_dtype())
    return stack(nonzero(arr, size=size, fill_value=fill_value), axis=1)


def bincount(x, weights=None, minlength=0, *, length=None, out_sharding=None):
    """Counts (or summed `weights`) of each non-negative integer in `x`; negative values count
    as 0 and values at or past `length` are dropped. Without a static `length`, `x` must be
    concrete.

    Example:
        >>> jnp.bincount(jnp.array([1, 1, 3, -1]), length=5)
        Array([1, 2, 0, 1, 0], dtype=int32)
    """
    check_arraylike("bincount", x)
    x = asarray_value(x)
    if core.get_aval(x).dtype == np.bool_:
        x = lax.convert_element_type(x, np.int32)
    if kind(core.get_aval(x).dtype) not in "iu":
        raise TypeError(f"x argument to bincount must have an integer type; got {core.get_aval(x).dtype}")
    if len(_shape(x)) != 1:
        raise ValueError("only 1-dimensional input supported.")
    minlength = operator.index(core.concrete_or_error(minlength, "the minlength argument of jnp.bincount"))
    if length is None:
        value = core.concrete_or_error(x, "jnp.bincount without a static `length` argument")
        length = max(minlength, value.size and int(max(0, value.max())) + 1)
    else:
        length = core.concrete_dim(length, "the length argument of jnp.bincount")
    if weights is None:
        weights = np.array(1, _int_dtype())
    else:
        weights = asarray_value(weights)
        if _shape(weights) != _shape(x):
            raise ValueError(f"type of weights must match type of x. Got "
                             f"typeof(x)={core.get_aval(x).str_short()} and "
                             f"typeof(weights)={core.get_aval(weights).str_short()}")
    dt = np.asarray(weights).dtype if isinstance(weights, np.ndarray) else core.get_aval(weights).dtype
    if not length or not _shape(x)[0]:
        return zeros((length,), dt)
    return _at(zeros((length,), dt))[ufuncs.maximum(x, 0)].add(weights, mode="drop")


# -- index arithmetic ----------------------------------------------------------------------------


def unravel_index(indices, shape):
    """The multi-indices of flat `indices` into an array of `shape` (as JAX: -1 is the last
    element, and out-of-bounds indices clamp)."""
    check_arraylike("unravel_index", indices)
    idx = asarray_value(indices)
    try:
        shape = list(shape)
    except TypeError:
        shape = [shape]
    if any(np.ndim(s) != 0 for s in shape):
        raise ValueError("unravel_index: shape should be a scalar or 1D sequence.")
    out = [None] * len(shape)
    for i, s in reversed(list(enumerate(shape))):
        idx, out[i] = ufuncs.divmod(idx, s)
    above = ufuncs.greater(idx, 0)
    below = (np.zeros((), bool)[()] if kind(core.get_aval(idx).dtype) == "u"
             else ufuncs.less(idx, -1))
    return tuple(ufuncs.where_(above, s - 1, ufuncs.where_(below, 0, i)) for s, i in zip(shape, out))


def ravel_multi_index(multi_index, dims, mode="raise", order="C", *, dtype=None):
    """Flat indices of `multi_index` into an array of shape `dims`; `mode` "raise" (needs
    concrete indices), "wrap", "clip" or "ignore"; `order` "C" or "F"."""
    if len(multi_index) != len(dims):
        raise ValueError(f"len(multi_index)={len(multi_index)} != len(dims)={len(dims)}")
    dims = tuple(operator.index(core.concrete_or_error(d, "the dims of ravel_multi_index")) for d in dims)
    check_arraylike("ravel_multi_index", *multi_index)
    idx = [asarray_value(i) for i in multi_index]
    dt = dtypes.canonicalize_dtype(dtypes.result_type(int, *idx) if dtype is None else dtype)
    if kind(dt) not in "iu":
        raise ValueError(f"dtype={dt} is not an integer type.")
    if int(np.prod(dims)) - 1 > np.iinfo(dt).max:
        raise ValueError(f"jnp.ravel_multi_index: dtype={dt} not large enough to hold flattened "
                         f"index for dims={dims}. Use the dtype argument to pass a suitable dtype.")
    for i in idx:
        if kind(core.get_aval(i).dtype) not in "iu":
            raise TypeError("only int indices permitted")
    if mode == "raise":
        vals = [core.concrete_or_error(i, "ravel_multi_index with mode='raise' (use 'wrap' or "
                                          "'clip' under jit)") for i in idx]
        if any(np.any((v < 0) | (v >= d)) for v, d in zip(vals, dims)):
            raise ValueError("invalid entry in coordinates array")
    elif mode == "clip":
        idx = [ufuncs.minimum(ufuncs.maximum(i, 0), d - 1) for i, d in zip(idx, dims)]
    elif mode == "wrap":
        idx = [ufuncs.remainder(i, d) for i, d in zip(idx, dims)]
    elif mode != "ignore":
        raise ValueError(f"invalid mode={mode!r}. Expected 'raise', 'wrap', 'clip', or 'ignore'.")
    if order == "F":
        strides = np.cumprod((1,) + dims[:-1])
    elif order == "C":
        strides = np.cumprod((1,) + dims[1:][::-1])[::-1]
    else:
        raise ValueError(f"invalid order={order!r}. Expected 'C' or 'F'")
    out = np.zeros((), dt)[()]
    for i, s in zip(idx, strides):
        out = ufuncs.add(out, ufuncs.multiply(lax.convert_element_type(i, dt), np.asarray(s, dt)[()]))
    return asarray(out)


def ix_(*args):
    """An open mesh from 1-D index sequences: `x[jnp.ix_(rows, cols)]` is the sub-array."""
    check_arraylike("ix_", *args)
    out = []
    for i, a in enumerate(args):
        a = asarray_value(a)
        if len(_shape(a)) != 1:
            raise ValueError(f"Arguments to jax.numpy.ix_ must be 1-dimensional, got shape {_shape(a)}")
        if core.get_aval(a).dtype == np.bool_:
            raise NotImplementedError("Boolean arguments to jax.numpy.ix_ are not implemented")
        shape = [1] * len(args)
        shape[i] = _shape(a)[0]
        out.append(zeros(shape, _int_dtype()) if not _shape(a)[0] else reshape(a, shape))
    return tuple(out)


def indices(dimensions, dtype=None, sparse=False):
    """The index grid of an array of shape `dimensions`: one array per axis (stacked, or open
    when `sparse`)."""
    dimensions = tuple(operator.index(core.concrete_or_error(d, "jnp.indices")) for d in dimensions)
    dt = dtypes.canonicalize_dtype(_int_dtype() if dtype is None else dtype)
    out = []
    for i, n in enumerate(dimensions):
        sub = [1] * len(dimensions)
        sub[i] = n
        grid = reshape(arange(n, dtype=dt), sub)
        out.append(grid if sparse else broadcast_to(grid, dimensions))
    if sparse:
        return tuple(out)
    return stack(out, 0) if out else zeros((0,), dt)


def diag_indices(n, ndim=2):
    """The indices of the main diagonal of an `ndim`-dimensional array of side `n`."""
    n = operator.index(core.concrete_or_error(n, "jnp.diag_indices"))
    ndim = operator.index(core.concrete_or_error(ndim, "jnp.diag_indices"))
    if n < 0:
        raise ValueError(f"n argument to diag_indices must be nonnegative, got {n}")
    if ndim < 0:
        raise ValueError(f"ndim argument to diag_indices must be nonnegative, got {ndim}")
    return (arange(n, dtype=_int_dtype()),) * ndim


def diag_indices_from(arr):
    """`diag_indices` of a square `arr` (at least 2-D, all sides equal)."""
    check_arraylike("diag_indices_from", arr)
    shape = _shape(asarray_value(arr))
    if len(shape) < 2:
        raise ValueError("input array must be at least 2-d")
    if len(set(shape)) != 1:
        raise ValueError("All dimensions of input must be of equal length")
    return diag_indices(shape[0], len(shape))


def _tri_indices(np_fn, n, k, m):
    n = operator.index(core.concrete_or_error(n, "n"))
    k = operator.index(core.concrete_or_error(k, "k"))
    m = n if m is None else operator.index(core.concrete_or_error(m, "m"))
    return tuple(asarray(i.astype(_int_dtype())) for i in np_fn(n, k, m))


def tril_indices(n, k=0, m=None):
    """The indices of the lower triangle (on and below diagonal `k`) of an (n, m) array."""
    return _tri_indices(np.tril_indices, n, k, m)


def triu_indices(n, k=0, m=None):
    """The indices of the upper triangle (on and above diagonal `k`) of an (n, m) array."""
    return _tri_indices(np.triu_indices, n, k, m)


def _tri_indices_from(name, fn, arr, k):
    shape = arr.shape if hasattr(arr, "shape") and not hasattr(arr, "dtype") else _shape(asarray_value(arr))
    if len(shape) != 2:
        raise ValueError(f"{name} requires a 2-D array; got shape {tuple(shape)}")
    return fn(shape[0], k=k, m=shape[1])


def tril_indices_from(arr, k=0):
    return _tri_indices_from("tril_indices_from", tril_indices, arr, k)


def triu_indices_from(arr, k=0):
    return _tri_indices_from("triu_indices_from", triu_indices, arr, k)


def mask_indices(n, mask_func, k=0, *, size=None):
    """The indices where `mask_func(ones((n, n)), k)` is nonzero (e.g. `jnp.triu`)."""
    return nonzero(mask_func(ones((n, n)), k), size=size)


def fill_diagonal(a, val, wrap=False, *, inplace=True):
    """`a` with the diagonal of its leading square block set to `val` (repeated as needed); as
    in JAX, `inplace=False` is required and `wrap` is not supported."""
    if inplace:
        raise NotImplementedError("JAX arrays are immutable, must use inplace=False")
    if wrap:
        raise NotImplementedError("wrap=True is not implemented, must use wrap=False")
    check_arraylike("fill_diagonal", a, val)
    a, val = asarray_value(a), asarray_value(val)
    shape = _shape(a)
    if len(shape) < 2:
        raise ValueError("array must be at least 2-d")
    if len(shape) > 2 and len(set(shape)) != 1:
        raise ValueError("All dimensions of input must be of equal length")
    n = min(shape)
    if _shape(val):
        val = _tile_to_size(ravel(val), n)
    return _at(a)[diag_indices(n, len(shape))].set(val)


# -- delete and insert -----------------------------------------------------------------------------


def delete(arr, obj, axis=None, *, assume_unique_indices=False):
    """`arr` without the entries `obj` (an int, slice, integer or boolean array) along `axis`
    (flattened if None). Array `obj` must be concrete unless `assume_unique_indices`."""
    check_arraylike("delete", arr)
    a = asarray_value(arr)
    if axis is None:
        a, axis = ravel(a), 0
    axis = canonicalize_axis(axis, len(_shape(a)), fname="delete")
    n = _shape(a)[axis]
    lead = (slice(None),) * axis
    if _is_static_int(obj):
        i = canonicalize_axis(int(np.asarray(obj)), n, name="obj", fname="delete")
        return concatenate([a[lead + (slice(0, i),)], a[lead + (slice(i + 1, None),)]], axis=axis)
    if isinstance(obj, slice):
        obj, assume_unique_indices = np.arange(n)[obj], True
    check_arraylike("delete", a, obj)
    if assume_unique_indices and not isinstance(obj, (list, tuple)) and kind(core.get_aval(obj).dtype) in "iu":
        return _delete_unique(a, asarray_value(obj), axis, n, lead)
    obj = core.concrete_or_error(obj, "the 'obj' array argument of jnp.delete()")
    if kind(obj.dtype) in "iu" or obj.size == 0:
        keep = np.ones(n, bool)
        keep[obj.astype(np.int64)] = False
    elif obj.dtype == np.bool_:
        if obj.shape != (n,):
            raise ValueError(f"np.delete(arr, obj): for boolean indices, obj must be one-dimensional "
                             f"with length matching specified axis ({n})")
        keep = ~obj
    else:
        raise ValueError(f"np.delete(arr, obj): got obj of dtype {obj.dtype}; must be integer or bool.")
    return a[lead + (keep,)]


def _is_static_int(obj):
    if isinstance(obj, (bool, np.bool_)):
        return False
    if isinstance(obj, (int, np.integer)):
        return True
    return (isinstance(obj, (np.ndarray, Array)) and not isinstance(obj, core.Tracer)
            and np.ndim(obj) == 0 and kind(np.asarray(obj).dtype) in "iu")


def _delete_unique(a, obj, axis, n, lead):
    """Deleting distinct indices without knowing them: the kept positions by counting, per
    output position, the deleted indices before it (jit-compatible)."""
    obj = ravel(obj)
    obj = ufuncs.minimum(ufuncs.maximum(ufuncs.where_(ufuncs.less(obj, 0), obj + n, obj), 0), n)
    dt = core.get_aval(obj).dtype
    obj = asarray_value(obj)
    obj = sort(obj) - arange(_shape(obj)[0], dtype=dt)
    i = arange(n - _shape(obj)[0], dtype=dt)
    i = i + jred.sum(ufuncs.greater_equal(i[None, :], obj[:, None]), axis=0, dtype=dt)
    return a[lead + (i,)]


def insert(arr, obj, values, axis=None):
    """`arr` with `values` inserted before the positions `obj` (an int, slice or 1-D integer
    array) along `axis` (flattened if None), as NumPy's insert."""
    check_arraylike("insert", arr, values)
    a = asarray_value(arr)
    if axis is None:
        a, axis = ravel(a), 0
    axis = canonicalize_axis(core.concrete_or_error(axis, "the axis of jnp.insert") if isinstance(axis, core.Tracer) else axis,
                             len(_shape(a)), fname="insert")
    n_input = _shape(a)[axis]
    if isinstance(obj, slice):
        idx = arange(*obj.indices(n_input))
    else:
        check_arraylike("insert", obj)
        idx = asarray_value(obj)
        if kind(core.get_aval(idx).dtype) not in "iu":
            if _shape(idx) and int(np.prod(_shape(idx))) == 0 and not isinstance(obj, core.Tracer):
                idx = zeros(_shape(idx), _int_dtype())
            else:
                raise ValueError(f"jnp.insert(): index array must be integer typed; got {obj}")
    if len(_shape(idx)) > 1:
        raise ValueError(f"jnp.insert(): obj must be a slice, a one-dimensional array, or a scalar; got {obj}")
    values = array(values, ndmin=len(_shape(a)), dtype=core.get_aval(a).dtype, copy=False)
    if int(np.prod(_shape(idx))) == 1:
        index = ravel(idx)[0]
        if not _shape(idx):
            values = moveaxis(values, 0, axis)
        idx = full((_shape(values)[axis],), index, core.get_aval(idx).dtype)
    n_insert = broadcast_shapes(_shape(idx), (_shape(values)[axis],))[0]
    out_shape = list(_shape(a))
    out_shape[axis] += n_insert
    dt = core.get_aval(idx).dtype
    idx = ufuncs.where_(ufuncs.less(idx, 0), idx + np.asarray(n_input, dt)[()], idx)
    idx = ufuncs.minimum(ufuncs.maximum(idx, 0), n_input)
    # each value's final position: its index plus the values placed before it (stable order)
    values_at = _at(idx)[argsort(idx)].add(arange(n_insert, dtype=dt))
    keep = _at(full((n_input + n_insert,), True, np.bool_))[values_at].set(False)
    arr_at = nonzero(keep, size=n_input)[0]
    lead = (slice(None),) * axis
    out = _at(zeros(tuple(out_shape), core.get_aval(a).dtype))[lead + (values_at,)].set(values)
    return _at(out)[lead + (arr_at,)].set(a)


# -- grids and concatenation by index syntax ---------------------------------------------------------


def _grid_axis(s):
    """A slice of an mgrid/ogrid index as a 1-D array (an imaginary step is a point count)."""
    if not isinstance(s, slice):
        raise TypeError(f"mgrid/ogrid take slices, got {s!r}")
    start = 0 if s.start is None else s.start
    step = 1 if s.step is None else s.step
    if isinstance(step, complex) or np.iscomplexobj(step):
        return linspace(start, s.stop, int(abs(step)), endpoint=True)
    return arange(start, s.stop, step)


class _Mgrid:
    """`jnp.mgrid[0:3, 0:4]`: a dense mesh grid (stacked along a new first axis)."""

    def __getitem__(self, key):
        if isinstance(key, slice):
            return _grid_axis(key)
        axes = [_grid_axis(k) for k in key]
        dt = dtypes.result_type(*axes) if axes else _int_dtype()
        grids = broadcast_arrays(*[reshape(g.astype(dt), [-1 if i == j else 1 for j in range(len(axes))])
                                   for i, g in enumerate(axes)])
        return stack(grids, 0) if grids else arange(0)


class _Ogrid:
    """`jnp.ogrid[0:3, 0:4]`: an open mesh grid (one broadcastable array per axis)."""

    def __getitem__(self, key):
        if isinstance(key, slice):
            return _grid_axis(key)
        axes = [_grid_axis(k) for k in key]
        dt = dtypes.result_type(*axes) if axes else _int_dtype()
        return [reshape(g.astype(dt), [-1 if i == j else 1 for j in range(len(axes))])
                for i, g in enumerate(axes)]


mgrid = _Mgrid()
ogrid = _Ogrid()


class _AxisConcat:
    """`r_`/`c_`: concatenate slices (as aranges/linspaces), scalars and arrays along an axis.
    A leading string "axis[,ndmin[,trans1d]]" sets the axis, the minimum rank (new axes in
    front) and how a promoted item's axes rotate; "r"/"c" make a 1-D result a row/column (JAX's
    rules, which rotate axes where NumPy moves them)."""

    def __init__(self, axis, ndmin, trans1d):
        self.axis, self.ndmin, self.trans1d = axis, ndmin, trans1d

    def __getitem__(self, key):
        key = key if isinstance(key, tuple) else (key,)
        params = [self.axis, self.ndmin, self.trans1d, -1]
        if key and isinstance(key[0], str):
            params = self._directive(key[0], params)
            key = key[1:]
        axis, ndmin, trans1d, matrix = params
        items = []
        for k in key:
            if isinstance(k, slice):
                item, item_ndim = _grid_axis(k), 0
            elif isinstance(k, str):
                raise ValueError("string directive must be placed at the beginning")
            else:
                item = asarray(k)
                item_ndim = len(_shape(item))
            items.append(self._promote(item, item_ndim, ndmin, trans1d))
        res = concatenate(items, axis=axis)
        if matrix != -1 and len(_shape(res)) == 1:
            res = shape_ops.expand_dims(res, (matrix,))
        return res

    @staticmethod
    def _directive(s, params):
        if s in ("r", "c"):
            return params[:3] + [0 if s == "r" else 1]
        vec = s.split(",")
        vec = vec + params[len(vec):] if len(vec) < 4 else vec[:3] + params[3:]
        try:
            return [int(v) for v in vec]
        except ValueError:
            raise ValueError(f"could not understand directive {s!r}") from None

    @staticmethod
    def _promote(x, item_ndim, ndmin, trans1d):
        nd = len(_shape(x))
        if nd < ndmin:
            x = reshape(x, (1,) * (ndmin - nd) + _shape(x))
        if trans1d != -1 and ndmin - item_ndim > 0:
            shift = ndmin - abs(ndmin + trans1d + 1) % ndmin
            axes = tuple(range(ndmin))
            x = shape_ops.transpose(x, axes[shift:] + axes[:shift])
        return x


class RClass(_AxisConcat):
    """`jnp.r_[...]`: concatenation along the first axis."""

    def __init__(self):
        super().__init__(0, 1, -1)


class CClass(_AxisConcat):
    """`jnp.c_[...]`: concatenation along the last axis, 1-D items becoming columns."""

    def __init__(self):
        super().__init__(-1, 2, 0)


r_ = RClass()
c_ = CClass()
