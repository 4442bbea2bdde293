"""Shape-changing and data-movement lax primitives: broadcast_in_dim, reshape, squeeze,
transpose, rev, slice, concatenate, pad, iota, copy, stop_gradient. (Slices at traced offsets:
dynamic_slicing.py.)

Transposes that sum cotangents use reduce_sum through the interpreters' `lax_ops` slot:
reductions.py builds on this module (reduce_sum's own transpose is a broadcast_in_dim).
"""
from __future__ import annotations

import math
import operator

import numpy as np

from pyjax._src import core, tree_util
from pyjax._src.array import Array
from pyjax._src.core import ShapedArray
from pyjax._src.interpreters import batching
from pyjax._src.interpreters.ad import Zero, deflinear, is_undefined_primal, zeros_like_aval
from pyjax._src.interpreters.array_ops import lax_ops
from pyjax._src.interpreters.batching import raw_axes, raw_axis
from pyjax._src.lax import sharding_rules
from pyjax._src.lax.convert import _convert_element_type, _weak_const, lax_operands
from pyjax._src.lax.elementwise import select_n, sub
from pyjax._src.lax.utils import (
    canonicalize_axes, canonicalize_axis, check_same_dtypes, kind, np_dtype_param,
    standard_primitive, zero_derivative)
from pyjax._src.lowering import lower
from pyjax._src.lowering.mlir import i64, i64_array

# -- helpers -------------------------------------------------------------------------------------


def shape_param(shape, what="shape") -> tuple:
    """Static shapes are tuples of non-negative Python ints; a traced size is a clear error."""
    out = []
    for d in shape:
        if isinstance(d, core.Tracer) and not core.is_concrete(d):
            raise d._int_error(what)
        if type(d) in core.symbolic_dim_types:  # export's symbolic dimensions
            out.append(d)
            continue
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
    if type(values) is tuple:
        for v in values:
            if type(v) is not int:
                break
        else:
            return values
    try:
        return tuple(v if type(v) in core.symbolic_dim_types else operator.index(v) for v in values)
    except TypeError:
        raise TypeError(f"{what} must be a sequence of integers, got {values!r}") from None


def _unchanged(x):
    """What a wrapper with nothing to do returns: `x` if it is a pyjax value, else `x` as an
    Array (lax functions return Arrays for NumPy and Python inputs too, as in JAX)."""
    if isinstance(x, (Array, core.Tracer)):
        return x
    return _convert_element_type(x, None, type(x) in (int, float, complex))


def _skip_zero(rule):
    """Transpose rules get Zero cotangents only rarely; answer them without computing."""
    def wrapped(ct, *args, **params):
        if type(ct) is Zero:
            return [None] * len(args)
        return rule(ct, *args, **params)
    return wrapped


# -- broadcast_in_dim --------------------------------------------------------------------------

broadcast_in_dim_p = standard_primitive("broadcast_in_dim", pure_abstract_eval=True)
broadcast_in_dim_p.def_sharding_rule(sharding_rules.broadcast_in_dim_rule)


def broadcast_in_dim(operand, shape, broadcast_dimensions, out_sharding=None):
    """Broadcast `operand` to `shape`, operand dim i going to result dim broadcast_dimensions[i]."""
    shape = shape_param(shape)
    dims = _int_tuple(broadcast_dimensions, "broadcast_in_dim: broadcast_dimensions")
    sharding = sharding_rules.canonical_out_sharding(out_sharding, "broadcast_in_dim")
    aval = core.get_aval(operand)
    if aval.shape == shape and dims == tuple(range(len(shape))) and (
            sharding is None or aval.sharding == sharding):
        # NB: with another out_sharding JAX reshards here; pyjax binds an identity
        # broadcast_in_dim laid out as asked (barriers, where reshard_p lives, sits above)
        return _unchanged(operand)
    if len(dims) == aval.ndim and len(set(dims)) == len(dims) and list(dims) != sorted(dims):
        # as in JAX (and StableHLO) the dimensions need not increase: that is a transpose first
        perm = tuple(int(i) for i in np.argsort(dims))
        operand, dims = transpose(operand, perm), tuple(sorted(dims))
    return broadcast_in_dim_p.bind(operand, shape=shape, broadcast_dimensions=dims,
                                   sharding=sharding)


def broadcast(operand, sizes, out_sharding=None):
    """Add leading dimensions `sizes`."""
    aval = core.get_aval(operand)
    sizes = shape_param(sizes)
    return broadcast_in_dim(operand, sizes + aval.shape,
                            tuple(range(len(sizes), len(sizes) + aval.ndim)), out_sharding)


def broadcast_to_rank(x, rank):
    aval = core.get_aval(x)
    return broadcast(x, (1,) * (rank - aval.ndim)) if aval.ndim < rank else x


@broadcast_in_dim_p.def_abstract_eval
def _broadcast_in_dim_abstract_eval(x, *, shape, broadcast_dimensions, sharding):
    # (JAX's words first: programs and JAX's tests match them; then the shapes)
    dims, where = broadcast_dimensions, f" (broadcast_in_dim of {x.str_short()} to {shape} " \
        f"along {broadcast_dimensions})"
    if len(dims) != x.ndim:
        raise TypeError("broadcast_dimensions must have length equal to operand ndim" + where)
    if len(shape) < x.ndim:
        raise TypeError("target broadcast shape must have equal or higher rank to the operand "
                        "shape" + where)
    if any(not 0 <= d < len(shape) for d in dims):
        raise TypeError("broadcast_in_dim broadcast_dimensions must be a subset of output "
                        "dimensions" + where)
    if len(set(dims)) != len(dims):
        raise TypeError("broadcast_in_dim broadcast_dimensions must not contain duplicates" + where)
    if list(dims) != sorted(dims):
        raise TypeError("broadcast_in_dim broadcast_dimensions must be strictly increasing" + where)
    if any(x.shape[i] not in (1, shape[d]) for i, d in enumerate(dims)):
        raise TypeError("operand dimension sizes must either be 1, or be equal to their "
                        "corresponding dimensions in the target broadcast shape" + where)
    return ShapedArray(shape, x.dtype, x.weak_type)


def _np_broadcast_in_dim(x, *, shape, broadcast_dimensions, sharding):
    x = np.asarray(x)
    expanded = [1] * len(shape)
    for i, d in enumerate(broadcast_dimensions):
        expanded[d] = x.shape[i]
    return np.broadcast_to(x.reshape(expanded), shape)


broadcast_in_dim_p.np_impl = _np_broadcast_in_dim


@_skip_zero
def _broadcast_in_dim_transpose(ct, x, *, shape, broadcast_dimensions, sharding):
    in_shape = x.aval.shape
    new_dims = tuple(d for d in range(len(shape)) if d not in broadcast_dimensions)
    stretched = tuple(d for i, d in enumerate(broadcast_dimensions) if in_shape[i] == 1 and shape[d] != 1)
    summed = lax_ops.reduce_sum(ct, tuple(sorted(new_dims + stretched)))
    return [reshape(summed, in_shape)]


deflinear(broadcast_in_dim_p, _broadcast_in_dim_transpose)


@broadcast_in_dim_p.def_batch
def _broadcast_in_dim_batch(axis_size, args, dims, *, shape, broadcast_dimensions, sharding):
    """The batch axis goes right before the result axis of the operand axis that followed it."""
    (x,), (d,) = args, dims
    bd = broadcast_dimensions
    out_d = bd[d] if d < len(bd) else len(shape)
    new_dims = bd[:d] + (out_d,) + tuple(b + 1 for b in bd[d:])
    if sharding is not None:  # the batch axis enters the given layout unsplit
        spec = tuple(sharding.spec) + (None,) * (len(shape) - len(sharding.spec))
        sharding = sharding.with_spec(sharding_rules.PartitionSpec(
            *spec[:out_d], None, *spec[out_d:]))
    return broadcast_in_dim_p.bind(x, shape=shape[:out_d] + (axis_size,) + shape[out_d:],
                                   broadcast_dimensions=new_dims, sharding=sharding), out_d


broadcast_in_dim_p.def_lowering(lambda ctx, x, *, shape, broadcast_dimensions, sharding: ctx.op(
    "stablehlo.broadcast_in_dim", x, attrs={"broadcast_dimensions": i64_array(broadcast_dimensions)}))

# -- reshape -------------------------------------------------------------------------------------

reshape_p = standard_primitive("reshape", pure_abstract_eval=True)
reshape_p.def_sharding_rule(sharding_rules.reshape_rule)


def reshape(operand, new_sizes, dimensions=None, out_sharding=None):
    """Reshape (row-major); `dimensions` transposes first, as in `lax.reshape`."""
    if isinstance(new_sizes, (int, np.integer)) or isinstance(new_sizes, core.Tracer):
        new_sizes = (new_sizes,)
    new_sizes = shape_param(new_sizes, "new_sizes")
    aval = core.get_aval(operand)
    if dimensions is not None:
        dimensions = _int_tuple(dimensions, "reshape: dimensions")
        if sorted(dimensions) != list(range(aval.ndim)):
            raise TypeError(f"reshape: dimensions {dimensions} must be a permutation of the axes of "
                            f"{aval.str_short()}")
    dims = None if dimensions is None or dimensions == tuple(range(aval.ndim)) else dimensions
    sharding = (None if out_sharding is None
                else sharding_rules.out_sharding_param(out_sharding, "reshape"))
    if aval.shape == new_sizes and dims is None and sharding is None:
        return _unchanged(operand)
    return reshape_p.bind(operand, new_sizes=new_sizes, dimensions=dims, sharding=sharding)


@reshape_p.def_abstract_eval
def _reshape_abstract_eval(x, *, new_sizes, dimensions, sharding):
    if math.prod(new_sizes) != x.size:
        raise TypeError(f"reshape: cannot reshape {x.str_short()} (size {x.size}) to shape "
                        f"{new_sizes} (size {math.prod(new_sizes)})")
    return ShapedArray(new_sizes, x.dtype, x.weak_type)


def _np_reshape(x, *, new_sizes, dimensions, sharding):
    x = np.asarray(x)
    if dimensions is not None:
        x = np.transpose(x, dimensions)
    return x.reshape(new_sizes)


reshape_p.np_impl = _np_reshape


@_skip_zero
def _reshape_transpose(ct, x, *, new_sizes, dimensions, sharding):
    if dimensions is None:
        return [reshape(ct, x.aval.shape)]
    inv = tuple(np.argsort(dimensions))
    return [transpose(reshape(ct, tuple(x.aval.shape[d] for d in dimensions)), inv)]


deflinear(reshape_p, _reshape_transpose)


@reshape_p.def_batch
def _reshape_batch(axis_size, args, dims, *, new_sizes, dimensions, sharding):
    """Batch axis first (folded into reshape's own `dimensions` transpose), then reshape."""
    (x,), (d,) = args, dims
    order = dimensions if dimensions is not None else range(core.get_aval(x).ndim - 1)
    perm = (d,) + raw_axes(order, d)
    perm = None if perm == tuple(range(len(perm))) else perm
    return reshape_p.bind(x, new_sizes=(axis_size,) + new_sizes, dimensions=perm, sharding=sharding), 0


@reshape_p.def_lowering
def _reshape_lowering(ctx, x, *, new_sizes, dimensions, sharding):
    if dimensions is not None:
        in_aval = ctx.avals_in[0]
        x = ctx.op("stablehlo.transpose", x, out=in_aval.update(shape=tuple(in_aval.shape[d] for d in dimensions)),
                   attrs={"permutation": i64_array(dimensions)})
    return ctx.op("stablehlo.reshape", x)


# -- squeeze / expand_dims -----------------------------------------------------------------------

squeeze_p = standard_primitive("squeeze", pure_abstract_eval=True)
squeeze_p.def_sharding_rule(sharding_rules.squeeze_rule)


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


@squeeze_p.def_abstract_eval
def _squeeze_abstract_eval(x, *, dimensions):
    for d in dimensions:
        if x.shape[d] != 1:
            raise ValueError(f"squeeze: dimension {d} of {x.str_short()} has size {x.shape[d]}, not 1")
    return ShapedArray(tuple(s for i, s in enumerate(x.shape) if i not in dimensions), x.dtype, x.weak_type)


squeeze_p.np_impl = lambda x, *, dimensions: np.squeeze(x, dimensions)
deflinear(squeeze_p, _skip_zero(lambda ct, x, *, dimensions: [reshape(ct, x.aval.shape)]))


@squeeze_p.def_batch
def _squeeze_batch(axis_size, args, dims, *, dimensions):
    (x,), (d,) = args, dims
    raw = raw_axes(dimensions, d)
    return squeeze_p.bind(x, dimensions=raw), batching.out_bdim_after_removing(d, raw)


squeeze_p.def_lowering(lambda ctx, x, *, dimensions: ctx.op("stablehlo.reshape", x))

# -- transpose -----------------------------------------------------------------------------------

transpose_p = standard_primitive("transpose", pure_abstract_eval=True)
transpose_p.def_sharding_rule(sharding_rules.transpose_rule)


def transpose(operand, permutation):
    """Permute the axes: result axis i is operand axis permutation[i]."""
    permutation = _int_tuple(permutation, "transpose: permutation")
    if permutation == tuple(range(len(permutation))) and len(permutation) == core.get_aval(operand).ndim:
        return _unchanged(operand)
    return transpose_p.bind(operand, permutation=permutation)


@transpose_p.def_abstract_eval
def _transpose_abstract_eval(x, *, permutation):
    if sorted(permutation) != list(range(x.ndim)):
        raise TypeError(f"transpose: permutation {permutation} is not a permutation of the axes of {x.str_short()}")
    return ShapedArray(tuple(x.shape[i] for i in permutation), x.dtype, x.weak_type)


transpose_p.np_impl = lambda x, *, permutation: np.transpose(x, permutation)
deflinear(transpose_p, _skip_zero(lambda ct, x, *, permutation: [transpose(ct, tuple(np.argsort(permutation)))]))


@transpose_p.def_batch
def _transpose_batch(axis_size, args, dims, *, permutation):
    """The batch axis keeps its position; the other axes are permuted around it."""
    (x,), (d,) = args, dims
    perm = list(raw_axes(permutation, d))
    perm.insert(d, d)
    return transpose_p.bind(x, permutation=tuple(perm)), d


transpose_p.def_lowering(lambda ctx, x, *, permutation: ctx.op(
    "stablehlo.transpose", x, attrs={"permutation": i64_array(permutation)}))

# -- rev -----------------------------------------------------------------------------------------

rev_p = standard_primitive("rev")
rev_p.def_sharding_rule(sharding_rules.same_as_operand)


def rev(operand, dimensions):
    """Reverse the order of elements along `dimensions`."""
    dims = _int_tuple(dimensions, "rev: dimensions")
    return rev_p.bind(operand, dimensions=dims) if dims else _unchanged(operand)


@rev_p.def_abstract_eval
def _rev_abstract_eval(x, *, dimensions):
    if any(not 0 <= d < x.ndim for d in dimensions):  # as JAX's lax.rev: no negative dimensions
        raise TypeError(f"rev: dimensions {dimensions} must be in [0, {x.ndim}) for {x.str_short()}")
    if len(set(dimensions)) != len(dimensions):
        raise TypeError(f"rev: dimensions must be unique, got {dimensions}")
    return x


rev_p.np_impl = lambda x, *, dimensions: np.flip(x, dimensions)
deflinear(rev_p, _skip_zero(lambda ct, x, *, dimensions: [rev(ct, dimensions)]))
rev_p.def_batch(lambda axis_size, args, dims, *, dimensions: (
    rev_p.bind(args[0], dimensions=raw_axes(dimensions, dims[0])), dims[0]))
rev_p.def_lowering(lambda ctx, x, *, dimensions: ctx.op(
    "stablehlo.reverse", x, attrs={"dimensions": i64_array(dimensions)}))

# -- slice ---------------------------------------------------------------------------------------

slice_p = standard_primitive("slice", pure_abstract_eval=True)
slice_p.def_sharding_rule(sharding_rules.keep_rank_rule)


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


@slice_p.def_abstract_eval
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


slice_p.np_impl = _np_slice


@_skip_zero
def _slice_transpose(ct, x, *, start_indices, limit_indices, strides):
    shape = x.aval.shape
    strides = strides or (1,) * len(shape)
    out_shape = core.get_aval(ct).shape
    cfg = []
    for n, lo, st, m in zip(shape, start_indices, strides, out_shape):
        real_hi = lo + (m - 1) * st + 1 if m else lo
        cfg.append((lo, n - real_hi, st - 1) if m else (lo, n - lo, 0))
    # as JAX, the padding zero is strong (unless the cotangent is a weak scalar), so the
    # cotangent of a slice of a weak array is strong
    ct_aval = core.get_aval(ct)
    zero = (_weak_const(0, x.aval.dtype) if ct_aval.weak_type and not ct_aval.ndim
            else np.zeros((), x.aval.dtype))
    if any(m == 0 for m in out_shape):
        return [zeros_like_aval(x.aval)]
    return [pad(ct, zero, cfg)]


deflinear(slice_p, _slice_transpose)


@slice_p.def_batch
def _slice_batch(axis_size, args, dims, *, start_indices, limit_indices, strides):
    (x,), (d,) = args, dims
    ins = lambda t, v: t[:d] + (v,) + t[d:]  # noqa: E731
    return slice_p.bind(x, start_indices=ins(start_indices, 0), limit_indices=ins(limit_indices, axis_size),
                        strides=None if strides is None else ins(strides, 1)), d


@slice_p.def_lowering
def _slice_lowering(ctx, x, *, start_indices, limit_indices, strides):
    strides = strides or (1,) * len(start_indices)
    if ctx.module.dim_values is not None:  # symbolic bounds (export): a real_dynamic_slice
        return lower.dynamic_shape_ops["slice"](ctx, x, start_indices, limit_indices, strides)
    return ctx.op("stablehlo.slice", x, attrs={"start_indices": i64_array(start_indices),
                                               "limit_indices": i64_array(limit_indices),
                                               "strides": i64_array(strides)})


# -- concatenate ---------------------------------------------------------------------------------

concatenate_p = standard_primitive("concatenate", pure_abstract_eval=True)
concatenate_p.def_sharding_rule(sharding_rules.concatenate_rule)


def concatenate(operands, dimension):
    """Join arrays of equal rank along `dimension`."""
    operands = list(operands)
    if not operands:
        raise ValueError("concatenate: at least one operand is required")
    dimension = operator.index(dimension)
    if len(operands) == 1:
        return _unchanged(operands[0])
    return concatenate_p.bind(*operands, dimension=dimension)


@concatenate_p.def_abstract_eval
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


concatenate_p.np_impl = lambda *xs, dimension: np.concatenate(xs, dimension)


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


@concatenate_p.def_batch
def _concatenate_batch(axis_size, args, dims, *, dimension):
    out_d = next(d for d in dims if d is not None)
    xs = [batching.matchaxis(x, d, out_d, axis_size) for x, d in zip(args, dims, strict=True)]
    return concatenate_p.bind(*xs, dimension=raw_axis(dimension, out_d)), out_d


concatenate_p.def_lowering(lambda ctx, *xs, dimension: ctx.op(
    "stablehlo.concatenate", *xs, attrs={"dimension": i64(dimension)}))

# -- pad -----------------------------------------------------------------------------------------

pad_p = standard_primitive("pad")
pad_p.def_sharding_rule(sharding_rules.keep_rank_rule)


def pad(operand, padding_value, padding_config):
    """Pad with (low, high, interior) amounts per dimension; negative low/high crop."""
    operand, padding_value = lax_operands(operand, padding_value)
    config = tuple(_int_tuple(triple, "pad: padding_config entries") for triple in padding_config)
    return pad_p.bind(operand, padding_value, padding_config=config)


@pad_p.def_abstract_eval
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
        size = lo + hi + n + (max(n - 1, 0) * interior if interior else 0)  # (symbolic n)
        if size < 0:
            raise ValueError(f"pad: padding_config {padding_config} gives a negative size for {x.str_short()}")
        shape.append(size)
    return ShapedArray(tuple(shape), x.dtype, x.weak_type and padding_value.weak_type)


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


pad_p.np_impl = _np_pad


@_skip_zero
def _pad_transpose(ct, x, padding_value, *, padding_config):
    ct_aval = core.get_aval(ct)
    unpad = [(-lo, -hi, 0) for lo, hi, _ in padding_config]
    t = pad(ct, np.zeros((), ct_aval.dtype), unpad)  # a strong zero, as JAX
    t = slice(t, (0,) * ct_aval.ndim, core.get_aval(t).shape, tuple(i + 1 for _, _, i in padding_config))
    ct_x = t if is_undefined_primal(x) else None
    ct_v = None
    if is_undefined_primal(padding_value):
        all_axes = tuple(range(ct_aval.ndim))
        ct_v = sub(lax_ops.reduce_sum(ct, all_axes), lax_ops.reduce_sum(t, all_axes))
    return [ct_x, ct_v]


deflinear(pad_p, _pad_transpose)


@pad_p.def_batch
def _pad_batch(axis_size, args, dims, *, padding_config):
    """A batched padding value: pad with zeros, then select each example's value where padded."""
    (x, v), (xd, vd) = args, dims
    if vd is None:
        config = padding_config[:xd] + ((0, 0, 0),) + padding_config[xd:]
        return pad_p.bind(x, v, padding_config=config), xd
    x = batching.bdim_at_front(x, xd, axis_size)
    dtype = core.get_aval(x).dtype
    zero = _weak_const(0, dtype) if core.get_aval(x).weak_type else np.zeros((), dtype)
    padded = pad_p.bind(x, zero, padding_config=((0, 0, 0),) + padding_config)
    ones = broadcast_in_dim(np.True_, batching.per_example_shape(x, 0), ())
    is_x = pad_p.bind(ones, np.False_, padding_config=padding_config)
    full = core.get_aval(padded).shape
    is_x = broadcast_in_dim(is_x, full, tuple(range(1, len(full))))
    v = broadcast_in_dim(batching.moveaxis(v, vd, 0), full, (0,))
    return select_n(is_x, v, padded), 0


pad_p.def_lowering(lambda ctx, x, v, *, padding_config: ctx.op(
    "stablehlo.pad", x, v, attrs={"edge_padding_low": i64_array([p[0] for p in padding_config]),
                                  "edge_padding_high": i64_array([p[1] for p in padding_config]),
                                  "interior_padding": i64_array([p[2] for p in padding_config])}))

# -- iota ----------------------------------------------------------------------------------------

iota_p = standard_primitive("iota")


def iota(dtype, size):
    """`[0, 1, ..., size-1]` of `dtype`."""
    return broadcasted_iota(dtype, (size,), 0)


def broadcasted_iota(dtype, shape, dimension, out_sharding=None):
    shape = shape_param(shape)
    dimension = operator.index(dimension)
    if not 0 <= dimension < len(shape):  # as JAX: no negative dimension
        raise ValueError(f"broadcasted_iota: dimension {dimension} is out of bounds for shape {shape} "
                         f"(it must be in [0, {len(shape)}))")
    return iota_p.bind(dtype=np_dtype_param(dtype), shape=shape, dimension=dimension,
                       sharding=sharding_rules.canonical_out_sharding(out_sharding,
                                                                      "broadcasted_iota"))


@iota_p.def_abstract_eval
def _iota_abstract_eval(*, dtype, shape, dimension, sharding):
    if not 0 <= dimension < len(shape):
        raise TypeError(f"iota: dimension {dimension} out of range for shape {shape}")
    return ShapedArray(shape, dtype, False)


def _np_iota(*, dtype, shape, dimension, sharding):
    r = np.arange(shape[dimension], dtype=dtype)
    return np.broadcast_to(r.reshape([-1 if i == dimension else 1 for i in range(len(shape))]), shape)


iota_p.np_impl = _np_iota
iota_p.def_sharding_rule(sharding_rules.given_sharding)
# iota has no operands, so it has no JVP and is never batched; the batching rule exists for
# uniformity (the rule-coverage test).
iota_p.def_batch(lambda axis_size, args, dims, **params: (iota_p.bind(**params), None))
iota_p.def_lowering(lambda ctx, *, dtype, shape, dimension, sharding: ctx.op(
    "stablehlo.iota", attrs={"iota_dimension": i64(dimension)}))

# -- copy / stop_gradient ------------------------------------------------------------------------

copy_p = standard_primitive("copy", lambda x: x, np.array, lambda ctx, x: x)


def copy(x):
    return copy_p.bind(x)


deflinear(copy_p, _skip_zero(lambda ct, x: [copy(ct)]))
batching.defvectorized(copy_p)

stop_gradient_p = standard_primitive("stop_gradient", lambda x: x, np.asarray, lambda ctx, x: x,
                                     jvp=zero_derivative)


def stop_gradient(x):
    """Identity whose derivative is zero; applies to every leaf of a pytree."""
    def stop(v):
        aval = core.get_aval(v)
        if kind(aval.dtype) not in "fc":
            return v
        return stop_gradient_p.bind(v)
    return tree_util.tree_map(stop, x)


batching.defvectorized(stop_gradient_p)
