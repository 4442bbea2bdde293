"""Shape-changing and data-movement lax primitives: broadcast_in_dim, reshape, squeeze,
transpose, rev, slice, dynamic_slice, dynamic_update_slice, concatenate, pad, iota, copy."""
from __future__ import annotations

import operator

import numpy as np

from pyjax._src import core
from pyjax._src.array import Array
from pyjax._src.core import ShapedArray
from pyjax._src.interpreters import batching
from pyjax._src.interpreters.batching import raw_axes, raw_axis
from pyjax._src.lax.utils import (
    canonicalize_axes, canonicalize_axis, check_dtype, check_same_dtypes, kind, np_dtype_param,
    standard_primitive)
from pyjax._src.lowering.mlir import i64, i64_array


def _shape_param(shape, what="shape") -> tuple:
    """Static shapes are tuples of non-negative Python ints; a traced size is a clear error."""
    out = []
    for d in shape:
        if isinstance(d, core.Tracer) and not core.is_concrete(d):
            raise d._int_error(what)
        try:
            out.append(operator.index(d))
        except TypeError:
            raise TypeError(f"{what} must be a sequence of integers, got {shape!r}") from None
    if any(d < 0 for d in out):
        raise TypeError(f"{what} must have non-negative dimensions, got {tuple(out)}")
    return tuple(out)


def _int_tuple(values, what) -> tuple:
    """A static sequence of integers (axes, indices, strides) as a tuple of Python ints; floats
    are refused rather than truncated."""
    try:
        return tuple(operator.index(v) for v in values)
    except TypeError:
        raise TypeError(f"{what} must be a sequence of integers, got {values!r}") from None


def _unchanged(x):
    """What a wrapper with nothing to do returns: `x` if it is a pyjax value, else `x` as an
    Array (lax functions return Arrays for NumPy and Python inputs too, as in JAX)."""
    if isinstance(x, (Array, core.Tracer)):
        return x
    from pyjax._src.lax.elementwise import _convert_element_type
    return _convert_element_type(x, None, type(x) in (int, float, complex))


# -- broadcast_in_dim --------------------------------------------------------------------------

def _broadcast_in_dim_abstract_eval(x, *, shape, broadcast_dimensions, sharding):
    if len(broadcast_dimensions) != x.ndim:
        raise TypeError(f"broadcast_in_dim: broadcast_dimensions {broadcast_dimensions} must have "
                        f"one entry per operand dimension of {x.str_short()}")
    if any(not 0 <= d < len(shape) for d in broadcast_dimensions) or \
            list(broadcast_dimensions) != sorted(set(broadcast_dimensions)):
        raise TypeError(f"broadcast_in_dim: broadcast_dimensions {broadcast_dimensions} must be "
                        f"strictly increasing dimensions of the result shape {shape}")
    for i, d in enumerate(broadcast_dimensions):
        if x.shape[i] not in (1, shape[d]):
            raise TypeError(f"broadcast_in_dim: operand {x.str_short()} dimension {i} (size "
                            f"{x.shape[i]}) cannot broadcast to result dimension {d} of shape {shape}")
    return ShapedArray(shape, x.dtype, x.weak_type)


def _np_broadcast_in_dim(x, *, shape, broadcast_dimensions, sharding):
    x = np.asarray(x)
    expanded = [1] * len(shape)
    for i, d in enumerate(broadcast_dimensions):
        expanded[d] = x.shape[i]
    return np.broadcast_to(x.reshape(expanded), shape)


broadcast_in_dim_p = standard_primitive(
    "broadcast_in_dim", _broadcast_in_dim_abstract_eval, _np_broadcast_in_dim,
    lambda ctx, x, *, shape, broadcast_dimensions, sharding: ctx.op(
        "stablehlo.broadcast_in_dim", x, attrs={"broadcast_dimensions": i64_array(broadcast_dimensions)}))


def _broadcast_in_dim_batch(axis_size, args, dims, *, shape, broadcast_dimensions, sharding):
    """The batch axis goes right before the result axis of the operand axis that followed it."""
    (x,), (d,) = args, dims
    bd = broadcast_dimensions
    out_d = bd[d] if d < len(bd) else len(shape)
    new_dims = bd[:d] + (out_d,) + tuple(b + 1 for b in bd[d:])
    return broadcast_in_dim_p.bind(x, shape=shape[:out_d] + (axis_size,) + shape[out_d:],
                                   broadcast_dimensions=new_dims, sharding=sharding), out_d


broadcast_in_dim_p.def_batch(_broadcast_in_dim_batch)


def broadcast_in_dim(operand, shape, broadcast_dimensions, out_sharding=None):
    """Broadcast `operand` to `shape`, operand dim i going to result dim broadcast_dimensions[i]."""
    shape = _shape_param(shape)
    dims = _int_tuple(broadcast_dimensions, "broadcast_in_dim: broadcast_dimensions")
    aval = core.get_aval(operand)
    if aval.shape == shape and dims == tuple(range(len(shape))):
        return _unchanged(operand)
    if len(dims) == aval.ndim and len(set(dims)) == len(dims) and list(dims) != sorted(dims):
        # as in JAX (and StableHLO) the dimensions need not increase: that is a transpose first
        perm = tuple(int(i) for i in np.argsort(dims))
        operand, dims = transpose(operand, perm), tuple(sorted(dims))
    return broadcast_in_dim_p.bind(operand, shape=shape, broadcast_dimensions=dims, sharding=None)


def broadcast(operand, sizes, out_sharding=None):
    """Add leading dimensions `sizes`."""
    aval = core.get_aval(operand)
    sizes = _shape_param(sizes)
    return broadcast_in_dim(operand, sizes + aval.shape, tuple(range(len(sizes), len(sizes) + aval.ndim)))


def broadcast_to_rank(x, rank):
    aval = core.get_aval(x)
    return broadcast(x, (1,) * (rank - aval.ndim)) if aval.ndim < rank else x


# -- reshape / squeeze / expand_dims -----------------------------------------------------------

def _reshape_abstract_eval(x, *, new_sizes, dimensions, sharding):
    if int(np.prod(new_sizes, dtype=np.int64)) != x.size:
        raise TypeError(f"reshape: cannot reshape {x.str_short()} (size {x.size}) to shape "
                        f"{new_sizes} (size {int(np.prod(new_sizes, dtype=np.int64))})")
    return ShapedArray(new_sizes, x.dtype, x.weak_type)


def _np_reshape(x, *, new_sizes, dimensions, sharding):
    x = np.asarray(x)
    if dimensions is not None:
        x = np.transpose(x, dimensions)
    return x.reshape(new_sizes)


def _reshape_lowering(ctx, x, *, new_sizes, dimensions, sharding):
    if dimensions is not None:
        in_aval = ctx.avals_in[0]
        x = ctx.op("stablehlo.transpose", x, out=in_aval.update(shape=tuple(in_aval.shape[d] for d in dimensions)),
                   attrs={"permutation": i64_array(dimensions)})
    return ctx.op("stablehlo.reshape", x)


reshape_p = standard_primitive("reshape", _reshape_abstract_eval, _np_reshape, _reshape_lowering)


def _reshape_batch(axis_size, args, dims, *, new_sizes, dimensions, sharding):
    """Batch axis first (folded into reshape's own `dimensions` transpose), then reshape."""
    (x,), (d,) = args, dims
    order = dimensions if dimensions is not None else range(core.get_aval(x).ndim - 1)
    perm = (d,) + raw_axes(order, d)
    perm = None if perm == tuple(range(len(perm))) else perm
    return reshape_p.bind(x, new_sizes=(axis_size,) + new_sizes, dimensions=perm, sharding=sharding), 0


reshape_p.def_batch(_reshape_batch)


def reshape(operand, new_sizes, dimensions=None, out_sharding=None):
    """Reshape (row-major); `dimensions` transposes first, as in `lax.reshape`."""
    if isinstance(new_sizes, (int, np.integer)) or isinstance(new_sizes, core.Tracer):
        new_sizes = (new_sizes,)
    new_sizes = _shape_param(new_sizes, "new_sizes")
    aval = core.get_aval(operand)
    if dimensions is not None:
        dimensions = _int_tuple(dimensions, "reshape: dimensions")
        if sorted(dimensions) != list(range(aval.ndim)):
            raise TypeError(f"reshape: dimensions {dimensions} must be a permutation of the axes of "
                            f"{aval.str_short()}")
    dims = None if dimensions is None or dimensions == tuple(range(aval.ndim)) else dimensions
    if aval.shape == new_sizes and dims is None:
        return _unchanged(operand)
    return reshape_p.bind(operand, new_sizes=new_sizes, dimensions=dims, sharding=None)


def _squeeze_abstract_eval(x, *, dimensions):
    for d in dimensions:
        if x.shape[d] != 1:
            raise ValueError(f"squeeze: dimension {d} of {x.str_short()} has size {x.shape[d]}, not 1")
    return ShapedArray(tuple(s for i, s in enumerate(x.shape) if i not in dimensions), x.dtype, x.weak_type)


squeeze_p = standard_primitive(
    "squeeze", _squeeze_abstract_eval, lambda x, *, dimensions: np.squeeze(x, dimensions),
    lambda ctx, x, *, dimensions: ctx.op("stablehlo.reshape", x))


def _squeeze_batch(axis_size, args, dims, *, dimensions):
    (x,), (d,) = args, dims
    raw = raw_axes(dimensions, d)
    return squeeze_p.bind(x, dimensions=raw), batching.out_bdim_after_removing(d, raw)


squeeze_p.def_batch(_squeeze_batch)


def squeeze(array, dimensions):
    """Remove the size-1 `dimensions`."""
    ndim = core.get_aval(array).ndim
    dims = canonicalize_axes(dimensions, ndim, "dimensions")
    return squeeze_p.bind(array, dimensions=dims) if dims else _unchanged(array)


def expand_dims(array, dimensions):
    """Insert size-1 dimensions at `dimensions` (positions in the result)."""
    aval = core.get_aval(array)
    ndim_out = aval.ndim + len(dimensions)
    dims = canonicalize_axes(dimensions, ndim_out, "dimensions")
    shape = list(aval.shape)
    for d in dims:
        shape.insert(d, 1)
    kept = [i for i in range(ndim_out) if i not in dims]
    return broadcast_in_dim(array, tuple(shape), kept)


# -- transpose / rev ---------------------------------------------------------------------------

def _transpose_abstract_eval(x, *, permutation):
    if sorted(permutation) != list(range(x.ndim)):
        raise TypeError(f"transpose: permutation {permutation} is not a permutation of the axes of {x.str_short()}")
    return ShapedArray(tuple(x.shape[i] for i in permutation), x.dtype, x.weak_type)


transpose_p = standard_primitive(
    "transpose", _transpose_abstract_eval, lambda x, *, permutation: np.transpose(x, permutation),
    lambda ctx, x, *, permutation: ctx.op("stablehlo.transpose", x, attrs={"permutation": i64_array(permutation)}))


def _transpose_batch(axis_size, args, dims, *, permutation):
    """The batch axis keeps its position; the other axes are permuted around it."""
    (x,), (d,) = args, dims
    perm = list(raw_axes(permutation, d))
    perm.insert(d, d)
    return transpose_p.bind(x, permutation=tuple(perm)), d


transpose_p.def_batch(_transpose_batch)


def transpose(operand, permutation):
    """Permute the axes: result axis i is operand axis permutation[i]."""
    permutation = _int_tuple(permutation, "transpose: permutation")
    if permutation == tuple(range(len(permutation))) and len(permutation) == core.get_aval(operand).ndim:
        return _unchanged(operand)
    return transpose_p.bind(operand, permutation=permutation)


def _rev_abstract_eval(x, *, dimensions):
    if any(not 0 <= d < x.ndim for d in dimensions):  # as JAX's lax.rev: no negative dimensions
        raise TypeError(f"rev: dimensions {dimensions} must be in [0, {x.ndim}) for {x.str_short()}")
    if len(set(dimensions)) != len(dimensions):
        raise TypeError(f"rev: dimensions must be unique, got {dimensions}")
    return x


rev_p = standard_primitive(
    "rev", _rev_abstract_eval, lambda x, *, dimensions: np.flip(x, dimensions),
    lambda ctx, x, *, dimensions: ctx.op("stablehlo.reverse", x, attrs={"dimensions": i64_array(dimensions)}))
rev_p.def_batch(lambda axis_size, args, dims, *, dimensions: (
    rev_p.bind(args[0], dimensions=raw_axes(dimensions, dims[0])), dims[0]))


def rev(operand, dimensions):
    """Reverse the order of elements along `dimensions`."""
    dims = _int_tuple(dimensions, "rev: dimensions")
    return rev_p.bind(operand, dimensions=dims) if dims else _unchanged(operand)


# -- slice -------------------------------------------------------------------------------------

def _slice_abstract_eval(x, *, start_indices, limit_indices, strides):
    if not len(start_indices) == len(limit_indices) == x.ndim:
        raise TypeError(f"slice: start_indices {start_indices} and limit_indices {limit_indices} "
                        f"must have one entry per dimension of {x.str_short()}")
    strides = strides or (1,) * x.ndim
    shape = []
    for d, (lo, hi, st, n) in enumerate(zip(start_indices, limit_indices, strides, x.shape, strict=True)):
        if not 0 <= lo <= hi <= n or st < 1:
            raise TypeError(f"slice: invalid slice [{lo}:{hi}:{st}] of dimension {d} (size {n}) of {x.str_short()}")
        shape.append((hi - lo + st - 1) // st)
    return ShapedArray(tuple(shape), x.dtype, x.weak_type)


def _np_slice(x, *, start_indices, limit_indices, strides):
    strides = strides or (1,) * len(start_indices)
    # NB: np.s_, not slice(): this module's `slice` is lax.slice
    return np.asarray(x)[tuple(np.s_[a:b:c] for a, b, c in zip(start_indices, limit_indices, strides))]


def _slice_lowering(ctx, x, *, start_indices, limit_indices, strides):
    strides = strides or (1,) * len(start_indices)
    return ctx.op("stablehlo.slice", x, attrs={"start_indices": i64_array(start_indices),
                                               "limit_indices": i64_array(limit_indices),
                                               "strides": i64_array(strides)})


slice_p = standard_primitive("slice", _slice_abstract_eval, _np_slice, _slice_lowering)


def _slice_batch(axis_size, args, dims, *, start_indices, limit_indices, strides):
    (x,), (d,) = args, dims
    ins = lambda t, v: t[:d] + (v,) + t[d:]  # noqa: E731
    return slice_p.bind(x, start_indices=ins(start_indices, 0), limit_indices=ins(limit_indices, axis_size),
                        strides=None if strides is None else ins(strides, 1)), d


slice_p.def_batch(_slice_batch)


def slice(operand, start_indices, limit_indices, strides=None):
    """Static slice `operand[start:limit:stride]` along every dimension."""
    start = _int_tuple(start_indices, "slice: start_indices")
    limit = _int_tuple(limit_indices, "slice: limit_indices")
    strides = None if strides is None else _int_tuple(strides, "slice: strides")
    aval = core.get_aval(operand)
    # as JAX: mismatched lengths are a ValueError, a zero stride a ZeroDivisionError
    if not len(start) == len(limit) == aval.ndim or (strides is not None and len(strides) != aval.ndim):
        raise ValueError(f"slice: start_indices {start}, limit_indices {limit} and strides {strides} "
                         f"must have one entry per dimension of {aval.str_short()}")
    if strides is not None and 0 in strides:
        raise ZeroDivisionError(f"slice: strides must be positive, got {strides}")
    strides = None if strides is None or all(s == 1 for s in strides) else strides
    if start == (0,) * aval.ndim and limit == aval.shape and strides is None:
        return _unchanged(operand)
    return slice_p.bind(operand, start_indices=start, limit_indices=limit, strides=strides)


def slice_in_dim(operand, start_index, limit_index, stride=1, axis=0):
    aval = core.get_aval(operand)
    axis = canonicalize_axis(axis, aval.ndim)
    n = aval.shape[axis]
    start_index = 0 if start_index is None else start_index
    limit_index = n if limit_index is None else limit_index
    start_index = start_index + n if start_index < 0 else start_index
    limit_index = limit_index + n if limit_index < 0 else limit_index
    starts, limits, strides = [0] * aval.ndim, list(aval.shape), [1] * aval.ndim
    starts[axis], limits[axis], strides[axis] = start_index, limit_index, stride
    return slice(operand, starts, limits, strides)


def index_in_dim(operand, index, axis=0, keepdims=True):
    aval = core.get_aval(operand)
    axis = canonicalize_axis(axis, aval.ndim, "axis", "index_in_dim")
    n = aval.shape[axis]
    if not -n <= index < n:
        raise IndexError(f"index_in_dim: index {index} is out of bounds for axis {axis} with size {n}")
    index = index + n if index < 0 else index
    out = slice_in_dim(operand, index, index + 1, 1, axis)
    return out if keepdims else squeeze(out, (axis,))


# -- dynamic_slice / dynamic_update_slice ------------------------------------------------------

def _check_indices(name, x, idxs):
    if len(idxs) != x.ndim:
        raise ValueError(f"{name}: got {len(idxs)} start indices for an operand of rank {x.ndim} ({x.str_short()})")
    for i in idxs:
        if i.shape or kind(i.dtype) not in "iu":
            raise TypeError(f"{name}: start indices must be integer scalars, got {i.str_short()}")


def _dynamic_slice_abstract_eval(x, *idxs, slice_sizes):
    _check_indices("dynamic_slice", x, idxs)
    if len(slice_sizes) != x.ndim or any(not 0 <= s <= n for s, n in zip(slice_sizes, x.shape)):
        raise TypeError(f"dynamic_slice: slice_sizes {slice_sizes} must fit inside {x.str_short()}")
    return ShapedArray(slice_sizes, x.dtype, x.weak_type)


def _clamped_starts(x_shape, sizes, idxs):
    return [int(np.clip(int(i), 0, n - s)) for i, n, s in zip(idxs, x_shape, sizes)]


def _np_dynamic_slice(x, *idxs, slice_sizes):
    x = np.asarray(x)
    starts = _clamped_starts(x.shape, slice_sizes, idxs)
    return x[tuple(np.s_[a:a + s] for a, s in zip(starts, slice_sizes))]


def _index_operands(ctx, idxs, idx_avals):
    """StableHLO wants all start indices of one integer type."""
    dt = np.int32 if all(a.dtype.itemsize <= 4 for a in idx_avals) else np.int64
    return [ctx.convert(i, a, dt) for i, a in zip(idxs, idx_avals)]


def _dynamic_slice_lowering(ctx, x, *idxs, slice_sizes):
    idxs = _index_operands(ctx, idxs, ctx.avals_in[1:])
    return ctx.op("stablehlo.dynamic_slice", x, *idxs, attrs={"slice_sizes": i64_array(slice_sizes)})


dynamic_slice_p = standard_primitive("dynamic_slice", _dynamic_slice_abstract_eval,
                                     _np_dynamic_slice, _dynamic_slice_lowering)


def _batched_start(idx, bdim, axis_size, n, size):
    """A start index as a (B,) vector of int32/int64, clamped into [0, n - size] as XLA does."""
    from pyjax._src.lax import elementwise as elt
    dt = np.int64 if core.get_aval(idx).dtype.itemsize == 8 else np.int32
    idx = elt.convert_element_type(idx, dt)
    idx = batching.bdim_at_front(idx, bdim, axis_size) if bdim is not None else broadcast(idx, (axis_size,))
    return elt.clamp(0, idx, n - size)


def _one_hot_window(y, ybd, axis, start, out_size, axis_size, scatter=False):
    """Loop-free batched window along per-example `axis` of `y` (batched at 0, or unbatched):
    out[b, .., o, ..] = y[b, .., start[b] + o, ..] (a gather; `scatter`: y[b, .., o - start[b], ..]
    placed in a zero array of size `out_size`). A one-hot mask over (o, source index) selects the
    element and a sum over the source index picks it, exactly (0 elsewhere; -0.0 becomes 0.0).

    NB: JAX batches dynamic_slice with batched starts into gather/scatter. pyjax has no gather
    primitive yet, so this costs B * out_size * in_size per row of the other axes; under jit XLA
    fuses the mask, select and sum into one loop. Replace with gather when it exists."""
    from pyjax._src.lax import elementwise as elt
    from pyjax._src.lax import reductions
    aval = core.get_aval(y)
    shape = batching.per_example_shape(y, ybd)
    full = (axis_size,) + shape[:axis] + (out_size, shape[axis]) + shape[axis + 1:]
    y_dims = tuple(1 + i + (i >= axis) for i in range(len(shape)))
    y = broadcast_in_dim(y, full, ((0,) if ybd is not None else ()) + y_dims)
    mask_shape = (axis_size, out_size, shape[axis])
    dt = core.get_aval(start).dtype
    o, q = broadcasted_iota(dt, mask_shape, 1), broadcasted_iota(dt, mask_shape, 2)
    start = broadcast_in_dim(start, mask_shape, (0,))
    hit = elt.eq(o, elt.add(start, q)) if scatter else elt.eq(q, elt.add(start, o))
    hit = broadcast_in_dim(hit, full, (0, axis + 1, axis + 2))
    zero = broadcast_in_dim(np.zeros((), aval.dtype), full, ())
    picked = elt.select_n(hit, zero, y)
    reduce = reductions.reduce_or if aval.dtype == np.bool_ else reductions.reduce_sum
    return reduce(picked, (axis + 2,))


def _dynamic_slice_batch(axis_size, args, dims, *, slice_sizes):
    (x, *idxs), (xd, *idims) = args, dims
    if all(d is None for d in idims):  # the batch axis is sliced whole
        idxs.insert(xd, np.int32(0))
        sizes = slice_sizes[:xd] + (axis_size,) + slice_sizes[xd:]
        return dynamic_slice_p.bind(x, *idxs, slice_sizes=sizes), xd
    x = x if xd is None else batching.moveaxis(x, xd, 0)
    xd = None if xd is None else 0
    shape = batching.per_example_shape(x, xd)
    # axes whose start does not vary (or cannot: the slice spans the axis) by one dynamic_slice
    varying = [i for i, d in enumerate(idims) if d is not None and slice_sizes[i] < shape[i]]
    starts = [np.int32(0) if i in varying or idims[i] is not None else idxs[i] for i in range(len(shape))]
    sizes = tuple(shape[i] if i in varying else slice_sizes[i] for i in range(len(shape)))
    if sizes != shape:
        lead = [] if xd is None else [np.int32(0)]
        x = dynamic_slice_p.bind(x, *lead, *starts, slice_sizes=((axis_size,) if xd == 0 else ()) + sizes)
    for i in varying:
        start = _batched_start(idxs[i], idims[i], axis_size, shape[i], slice_sizes[i])
        x, xd = _one_hot_window(x, xd, i, start, slice_sizes[i], axis_size), 0
    return x, xd


dynamic_slice_p.def_batch(_dynamic_slice_batch)


def _index_scalars(start_indices, shape):
    """Start indices as integer scalars. As in JAX, a negative index counts from the end of its
    dimension; the primitive then clamps the slice into bounds."""
    from pyjax._src.lax import elementwise as lax
    start_indices = list(start_indices)
    if len(start_indices) != len(shape):  # the abstract eval reports it
        return [np.int32(i) if type(i) in (int, bool) else i for i in start_indices]
    out = []
    for i, n in zip(start_indices, shape):
        if type(i) in (int, bool) or isinstance(i, np.integer):
            out.append(np.int32(i + n if i < 0 else i))
        elif kind(core.get_aval(i).dtype) == "i":
            if core.get_aval(i).dtype.itemsize < 4:
                i = lax.convert_element_type(i, np.int32)
            out.append(lax.select_n(lax.lt(i, 0), i, lax.add(i, n)))
        else:
            out.append(i)
    return out


def dynamic_slice(operand, start_indices, slice_sizes):
    """`operand[start:start+size]` with traced starts, clamped so the slice stays in bounds."""
    sizes = _shape_param(slice_sizes, "slice_sizes")
    shape = core.get_aval(operand).shape
    start_indices = list(start_indices)
    for what, n in (("start_indices", len(start_indices)), ("slice_sizes", len(sizes))):
        if n != len(shape):  # ValueError, as in JAX
            raise ValueError(f"dynamic_slice: got {n} {what} for an operand of rank {len(shape)} "
                             f"(shape {shape})")
    return dynamic_slice_p.bind(operand, *_index_scalars(start_indices, shape), slice_sizes=sizes)


def dynamic_slice_in_dim(operand, start_index, slice_size, axis=0):
    aval = core.get_aval(operand)
    axis = canonicalize_axis(axis, aval.ndim)
    starts = [np.int32(0)] * aval.ndim
    starts[axis] = start_index
    sizes = list(aval.shape)
    sizes[axis] = slice_size
    return dynamic_slice(operand, starts, sizes)


def dynamic_index_in_dim(operand, index, axis=0, keepdims=True):
    out = dynamic_slice_in_dim(operand, index, 1, axis)
    return out if keepdims else squeeze(out, (axis,))


def _dynamic_update_slice_abstract_eval(x, update, *idxs):
    _check_indices("dynamic_update_slice", x, idxs)
    check_same_dtypes("dynamic_update_slice", [x, update])
    if update.ndim != x.ndim or any(u > n for u, n in zip(update.shape, x.shape)):
        raise TypeError(f"dynamic_update_slice: update {update.str_short()} must fit inside operand {x.str_short()}")
    return x


def _np_dynamic_update_slice(x, update, *idxs):
    x = np.array(x)
    update = np.asarray(update)
    starts = _clamped_starts(x.shape, update.shape, idxs)
    x[tuple(np.s_[a:a + s] for a, s in zip(starts, update.shape))] = update
    return x


def _dynamic_update_slice_lowering(ctx, x, update, *idxs):
    idxs = _index_operands(ctx, idxs, ctx.avals_in[2:])
    return ctx.op("stablehlo.dynamic_update_slice", x, update, *idxs)


dynamic_update_slice_p = standard_primitive(
    "dynamic_update_slice", _dynamic_update_slice_abstract_eval, _np_dynamic_update_slice,
    _dynamic_update_slice_lowering)


def _dynamic_update_slice_batch(axis_size, args, dims):
    """Unbatched starts: the batch axis is updated whole. Batched starts (see _one_hot_window):
    the update is spread to the operand's shape axis by axis, and a window mask picks it."""
    from pyjax._src.lax import elementwise as elt
    (x, u, *idxs), (xd, ud, *idims) = args, dims
    if all(d is None for d in idims):
        d = xd if xd is not None else ud
        x, u = batching.matchaxis(x, xd, d, axis_size), batching.matchaxis(u, ud, d, axis_size)
        idxs.insert(d, np.int32(0))
        return dynamic_update_slice_p.bind(x, u, *idxs), d
    x, u = batching.bdim_at_front(x, xd, axis_size), batching.bdim_at_front(u, ud, axis_size)
    shape, u_shape = batching.per_example_shape(x, 0), batching.per_example_shape(u, 0)
    inside = None
    for i, (n, s) in enumerate(zip(shape, u_shape, strict=True)):
        if s == n:  # the start clamps to 0: nothing to place
            continue
        start = _batched_start(idxs[i], idims[i], axis_size, n, s)
        u = _one_hot_window(u, 0, i, start, n, axis_size, scatter=True)
        pos = broadcasted_iota(core.get_aval(start).dtype, (axis_size, n), 1)
        start = broadcast_in_dim(start, (axis_size, n), (0,))
        in_i = elt.bitwise_and(elt.ge(pos, start), elt.lt(pos, elt.add(start, s)))
        in_i = broadcast_in_dim(in_i, (axis_size,) + shape, (0, i + 1))
        inside = in_i if inside is None else elt.bitwise_and(inside, in_i)
    return (u if inside is None else elt.select_n(inside, x, u)), 0


dynamic_update_slice_p.def_batch(_dynamic_update_slice_batch)


def dynamic_update_slice(operand, update, start_indices):
    """Write `update` into `operand` at traced `start_indices` (clamped into bounds)."""
    shape = core.get_aval(operand).shape
    return dynamic_update_slice_p.bind(operand, update, *_index_scalars(start_indices, shape))


def dynamic_update_slice_in_dim(operand, update, start_index, axis):
    aval = core.get_aval(operand)
    axis = canonicalize_axis(axis, aval.ndim)
    starts = [np.int32(0)] * aval.ndim
    starts[axis] = start_index
    return dynamic_update_slice(operand, update, starts)


# -- concatenate / pad ---------------------------------------------------------------------------

def _concatenate_abstract_eval(*xs, dimension):
    if not xs:
        raise TypeError("concatenate: at least one operand is required")
    check_same_dtypes("concatenate", xs)
    x0 = xs[0]
    if not 0 <= dimension < max(x0.ndim, 0) and x0.ndim:
        raise TypeError(f"concatenate: dimension {dimension} out of range for {x0.str_short()}")
    if x0.ndim == 0:
        raise TypeError("concatenate: operands must have rank >= 1")
    for x in xs:
        if x.ndim != x0.ndim or any(a != b for i, (a, b) in enumerate(zip(x.shape, x0.shape)) if i != dimension):
            raise TypeError(f"concatenate: operands must agree in all dimensions except {dimension}, "
                            f"got {', '.join(x.str_short() for x in xs)}")
    shape = list(x0.shape)
    shape[dimension] = sum(x.shape[dimension] for x in xs)
    return ShapedArray(tuple(shape), x0.dtype, all(x.weak_type for x in xs))


concatenate_p = standard_primitive(
    "concatenate", _concatenate_abstract_eval, lambda *xs, dimension: np.concatenate(xs, dimension),
    lambda ctx, *xs, dimension: ctx.op("stablehlo.concatenate", *xs, attrs={"dimension": i64(dimension)}))


def _concatenate_batch(axis_size, args, dims, *, dimension):
    out_d = next(d for d in dims if d is not None)
    xs = [batching.matchaxis(x, d, out_d, axis_size) for x, d in zip(args, dims, strict=True)]
    return concatenate_p.bind(*xs, dimension=raw_axis(dimension, out_d)), out_d


concatenate_p.def_batch(_concatenate_batch)


def concatenate(operands, dimension):
    """Join arrays of equal rank along `dimension`."""
    operands = list(operands)
    if not operands:
        raise ValueError("concatenate: at least one operand is required")
    dimension = operator.index(dimension)
    if len(operands) == 1:
        return _unchanged(operands[0])
    return concatenate_p.bind(*operands, dimension=dimension)


def _pad_abstract_eval(x, padding_value, *, padding_config):
    check_same_dtypes("pad", [x, padding_value])
    if padding_value.shape:
        raise ValueError(f"pad: padding_value must be a scalar, got {padding_value.str_short()}")
    if len(padding_config) != x.ndim:
        raise ValueError(f"pad: padding_config needs one (low, high, interior) triple per dimension "
                        f"of {x.str_short()}, got {padding_config}")
    shape = []
    for n, (lo, hi, interior) in zip(x.shape, padding_config):
        if interior < 0:
            raise ValueError(f"pad: interior padding must be non-negative, got {padding_config}")
        size = lo + hi + n + max(n - 1, 0) * interior
        if size < 0:
            raise ValueError(f"pad: padding_config {padding_config} gives a negative size for {x.str_short()}")
        shape.append(size)
    return ShapedArray(tuple(shape), x.dtype, x.weak_type)


def _np_pad(x, padding_value, *, padding_config):
    x = np.asarray(x)
    for axis, (lo, hi, interior) in enumerate(padding_config):
        if interior:
            n = x.shape[axis]
            idx = np.arange(n) * (interior + 1)
            shape = list(x.shape)
            shape[axis] = n + max(n - 1, 0) * interior
            out = np.full(shape, padding_value, x.dtype)
            sl = [np.s_[:]] * x.ndim
            sl[axis] = idx
            out[tuple(sl)] = x
            x = out
        pads = [(0, 0)] * x.ndim
        pads[axis] = (max(lo, 0), max(hi, 0))
        x = np.pad(x, pads, constant_values=padding_value)
        sl = [np.s_[:]] * x.ndim
        sl[axis] = np.s_[max(-lo, 0):x.shape[axis] - max(-hi, 0)]
        x = x[tuple(sl)]
    return x


pad_p = standard_primitive(
    "pad", _pad_abstract_eval, _np_pad,
    lambda ctx, x, v, *, padding_config: ctx.op(
        "stablehlo.pad", x, v, attrs={"edge_padding_low": i64_array([p[0] for p in padding_config]),
                                      "edge_padding_high": i64_array([p[1] for p in padding_config]),
                                      "interior_padding": i64_array([p[2] for p in padding_config])}))


def _pad_batch(axis_size, args, dims, *, padding_config):
    """A batched padding value: pad with zeros, then select each example's value where padded."""
    from pyjax._src.lax import elementwise as elt
    (x, v), (xd, vd) = args, dims
    if vd is None:
        config = padding_config[:xd] + ((0, 0, 0),) + padding_config[xd:]
        return pad_p.bind(x, v, padding_config=config), xd
    x = batching.bdim_at_front(x, xd, axis_size)
    dtype = core.get_aval(x).dtype
    padded = pad_p.bind(x, np.zeros((), dtype), padding_config=((0, 0, 0),) + padding_config)
    ones = broadcast_in_dim(np.True_, batching.per_example_shape(x, 0), ())
    is_x = pad_p.bind(ones, np.False_, padding_config=padding_config)
    full = core.get_aval(padded).shape
    is_x = broadcast_in_dim(is_x, full, tuple(range(1, len(full))))
    v = broadcast_in_dim(batching.moveaxis(v, vd, 0), full, (0,))
    return elt.select_n(is_x, v, padded), 0


pad_p.def_batch(_pad_batch)


def pad(operand, padding_value, padding_config):
    """Pad with (low, high, interior) amounts per dimension; negative low/high crop."""
    from pyjax._src.lax.elementwise import lax_operands
    operand, padding_value = lax_operands(operand, padding_value)
    config = tuple(_int_tuple(triple, "pad: padding_config entries") for triple in padding_config)
    return pad_p.bind(operand, padding_value, padding_config=config)


# -- iota ----------------------------------------------------------------------------------------

def _iota_abstract_eval(*, dtype, shape, dimension, sharding):
    if not 0 <= dimension < len(shape):
        raise TypeError(f"iota: dimension {dimension} out of range for shape {shape}")
    return ShapedArray(shape, dtype, False)


def _np_iota(*, dtype, shape, dimension, sharding):
    r = np.arange(shape[dimension], dtype=dtype)
    return np.broadcast_to(r.reshape([-1 if i == dimension else 1 for i in range(len(shape))]), shape)


iota_p = standard_primitive(
    "iota", _iota_abstract_eval, _np_iota,
    lambda ctx, *, dtype, shape, dimension, sharding: ctx.op("stablehlo.iota", attrs={"iota_dimension": i64(dimension)}))
# iota has no operands, so it is never batched; the rule exists for uniformity (coverage test).
iota_p.def_batch(lambda axis_size, args, dims, **params: (iota_p.bind(**params), None))


def iota(dtype, size):
    """`[0, 1, ..., size-1]` of `dtype`."""
    return broadcasted_iota(dtype, (size,), 0)


def broadcasted_iota(dtype, shape, dimension, out_sharding=None):
    shape = _shape_param(shape)
    dimension = operator.index(dimension)
    if not 0 <= dimension < len(shape):  # as JAX: no negative dimension
        raise ValueError(f"broadcasted_iota: dimension {dimension} is out of bounds for shape {shape} "
                         f"(it must be in [0, {len(shape)}))")
    return iota_p.bind(dtype=np_dtype_param(dtype), shape=shape, dimension=dimension, sharding=None)


# -- copy / stop_gradient ------------------------------------------------------------------------

copy_p = standard_primitive("copy", lambda x: x, np.array, lambda ctx, x: x)
stop_gradient_p = standard_primitive("stop_gradient", lambda x: x, np.asarray, lambda ctx, x: x)
batching.defvectorized(copy_p)
batching.defvectorized(stop_gradient_p)


def copy(x):
    return copy_p.bind(x)


def stop_gradient(x):
    """Identity whose derivative is zero; applies to every leaf of a pytree."""
    from pyjax._src import tree_util

    def stop(v):
        aval = core.get_aval(v)
        if kind(aval.dtype) not in "fc":
            return v
        return stop_gradient_p.bind(v)
    return tree_util.tree_map(stop, x)


del check_dtype


# -- differentiation rules -----------------------------------------------------------------------

from pyjax._src.interpreters import ad as _ad  # noqa: E402
from pyjax._src.interpreters.ad import Zero as _Zero, deflinear, deflinear_in, is_undefined_primal  # noqa: E402


def _zeros(aval):
    return _ad.zeros_like_aval(aval)


def _skip_zero(rule):
    """Transpose rules get Zero cotangents only rarely; answer them without computing."""
    def wrapped(ct, *args, **params):
        if type(ct) is _Zero:
            return [None] * len(args)
        return rule(ct, *args, **params)
    return wrapped


@_skip_zero
def _broadcast_in_dim_transpose(ct, x, *, shape, broadcast_dimensions, sharding):
    from pyjax._src.lax.reductions import reduce_sum
    in_shape = x.aval.shape
    new_dims = tuple(d for d in range(len(shape)) if d not in broadcast_dimensions)
    stretched = tuple(d for i, d in enumerate(broadcast_dimensions) if in_shape[i] == 1 and shape[d] != 1)
    summed = reduce_sum(ct, tuple(sorted(new_dims + stretched)))
    return [reshape(summed, in_shape)]


deflinear(broadcast_in_dim_p, _broadcast_in_dim_transpose)


@_skip_zero
def _reshape_transpose(ct, x, *, new_sizes, dimensions, sharding):
    if dimensions is None:
        return [reshape(ct, x.aval.shape)]
    inv = tuple(np.argsort(dimensions))
    return [transpose(reshape(ct, tuple(x.aval.shape[d] for d in dimensions)), inv)]


deflinear(reshape_p, _reshape_transpose)
deflinear(squeeze_p, _skip_zero(lambda ct, x, *, dimensions: [reshape(ct, x.aval.shape)]))
deflinear(transpose_p, _skip_zero(lambda ct, x, *, permutation: [transpose(ct, tuple(np.argsort(permutation)))]))
deflinear(rev_p, _skip_zero(lambda ct, x, *, dimensions: [rev(ct, dimensions)]))


@_skip_zero
def _slice_transpose(ct, x, *, start_indices, limit_indices, strides):
    from pyjax._src.lax.elementwise import _weak_const
    shape = x.aval.shape
    strides = strides or (1,) * len(shape)
    out_shape = core.get_aval(ct).shape
    cfg = []
    for n, lo, st, m in zip(shape, start_indices, strides, out_shape):
        real_hi = lo + (m - 1) * st + 1 if m else lo
        cfg.append((lo, n - real_hi, st - 1) if m else (lo, n - lo, 0))
    zero = _weak_const(0, x.aval.dtype)
    if any(m == 0 for m in out_shape):
        return [_zeros(x.aval)]
    return [pad(ct, zero, cfg)]


deflinear(slice_p, _slice_transpose)


@_skip_zero
def _dynamic_slice_transpose(ct, x, *idxs, slice_sizes):
    return [dynamic_update_slice_p.bind(_zeros(x.aval), ct, *idxs)] + [None] * len(idxs)


deflinear_in(dynamic_slice_p, (0,), _dynamic_slice_transpose)


@_skip_zero
def _dynamic_update_slice_transpose(ct, x, update, *idxs):
    upd_aval = update.aval if is_undefined_primal(update) else core.get_aval(update)
    ct_x = dynamic_update_slice_p.bind(ct, _zeros(upd_aval), *idxs) if is_undefined_primal(x) else None
    ct_u = dynamic_slice_p.bind(ct, *idxs, slice_sizes=upd_aval.shape) if is_undefined_primal(update) else None
    return [ct_x, ct_u] + [None] * len(idxs)


deflinear_in(dynamic_update_slice_p, (0, 1), _dynamic_update_slice_transpose)


@_skip_zero
def _concatenate_transpose(ct, *xs, dimension):
    out, start = [], 0
    for x in xs:
        aval = x.aval if is_undefined_primal(x) else core.get_aval(x)
        n = aval.shape[dimension]
        out.append(slice_in_dim(ct, start, start + n, 1, dimension) if is_undefined_primal(x) else None)
        start += n
    return out


deflinear(concatenate_p, _concatenate_transpose)


@_skip_zero
def _pad_transpose(ct, x, padding_value, *, padding_config):
    from pyjax._src.lax.reductions import reduce_sum
    from pyjax._src.lax.elementwise import _weak_const, sub
    ct_aval = core.get_aval(ct)
    unpad = [(-lo, -hi, 0) for lo, hi, _ in padding_config]
    t = pad(ct, _weak_const(0, ct_aval.dtype), unpad)
    t = slice(t, (0,) * ct_aval.ndim, core.get_aval(t).shape, tuple(i + 1 for _, _, i in padding_config))
    ct_x = t if is_undefined_primal(x) else None
    ct_v = None
    if is_undefined_primal(padding_value):
        all_axes = tuple(range(ct_aval.ndim))
        ct_v = sub(reduce_sum(ct, all_axes), reduce_sum(t, all_axes))
    return [ct_x, ct_v]


deflinear(pad_p, _pad_transpose)
deflinear(copy_p, _skip_zero(lambda ct, x: [copy(ct)]))


def _stop_gradient_jvp(primals, tangents):
    ans = stop_gradient_p.bind(*primals)
    return ans, _Zero(_ad.tangent_aval(core.get_aval(ans)))


stop_gradient_p.def_jvp(_stop_gradient_jvp)
