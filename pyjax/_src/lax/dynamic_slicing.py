"""Slices at traced offsets: `dynamic_slice` and `dynamic_update_slice` (and their `_in_dim`
forms). Start indices are scalar operands, clamped so the slice stays in bounds, as XLA does.

Batching with batched start indices is a gather (a scatter for updates): those rules are set in
slicing.py, beside gather and scatter, which import this module.
"""
from __future__ import annotations

import numpy as np

from pyjax._src import core
from pyjax._src.core import ShapedArray
from pyjax._src.dispatch import apply_primitive
from pyjax._src.interpreters import batching
from pyjax._src.interpreters.ad import deflinear_in, is_undefined_primal, zeros_like_aval
from pyjax._src.lax import elementwise as elt
from pyjax._src.lax import sharding_rules
from pyjax._src.lax.convert import convert_element_type
from pyjax._src.lax.shape_ops import (
    shape_param, _skip_zero, broadcast, slice_p, squeeze)
from pyjax._src.lax.utils import canonicalize_axis, check_same_dtypes, kind, standard_primitive
from pyjax._src.lowering.mlir import i64_array

# -- start indices ---------------------------------------------------------------------------------


def _index_scalars(start_indices, shape):
    """Start indices as integer scalars. As in JAX, a negative index counts from the end of its
    dimension; the primitive then clamps the slice into bounds."""
    start_indices = list(start_indices)
    if len(start_indices) != len(shape):  # the abstract eval reports it
        return [np.int32(i) if type(i) in (int, bool) else i for i in start_indices]
    out = []
    for i, n in zip(start_indices, shape):
        if type(i) in (int, bool) or isinstance(i, np.integer):
            out.append(np.int32(i + n if i < 0 else i))
        elif kind(core.get_aval(i).dtype) == "i":
            if core.get_aval(i).dtype.itemsize < 4:
                i = convert_element_type(i, np.int32)
            out.append(elt.select_n(elt.lt(i, 0), i, elt.add(i, n)))
        else:
            out.append(i)
    return out


def _check_indices(name, x, idxs):
    if len(idxs) != x.ndim:
        raise ValueError(f"{name}: got {len(idxs)} start indices for an operand of rank {x.ndim} ({x.str_short()})")
    for i in idxs:
        if i.shape or kind(i.dtype) not in "iu":
            raise TypeError(f"{name}: start indices must be integer scalars, got {i.str_short()}")


def _clamped_starts(x_shape, sizes, idxs):
    return [int(np.clip(int(i), 0, n - s)) for i, n, s in zip(idxs, x_shape, sizes)]


def _index_operands(ctx, idxs, idx_avals):
    """StableHLO wants all start indices of one integer type."""
    dt = np.int32 if all(a.dtype.itemsize <= 4 for a in idx_avals) else np.int64
    return [ctx.convert(i, a, dt) for i, a in zip(idxs, idx_avals)]


# -- batching with batched start indices -----------------------------------------------------------


def _batched_start(idx, bdim, axis_size, n, size):
    """A start index as a (B,) vector of int32/int64 (the gather or scatter that uses it
    clamps it into [0, n - size], as XLA does; as in JAX, so checkify sees the index itself)."""
    dt = np.int64 if core.get_aval(idx).dtype.itemsize == 8 else np.int32
    idx = convert_element_type(idx, dt)
    return batching.bdim_at_front(idx, bdim, axis_size) if bdim is not None else broadcast(idx, (axis_size,))


# -- dynamic_slice -------------------------------------------------------------------------------

dynamic_slice_p = standard_primitive("dynamic_slice")
dynamic_slice_p.def_sharding_rule(sharding_rules.keep_rank_rule)


def dynamic_slice(operand, start_indices, slice_sizes):
    """`operand[start:start+size]` with traced starts, clamped so the slice stays in bounds."""
    sizes = shape_param(slice_sizes, "slice_sizes")
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


def _eager_slice(x, *, start_indices, limit_indices, strides):
    """Eager `lax.slice` (what `x[3]` or `x[i:i + 3]` bind) as a dynamic_slice whose starts are
    run-time operands, then a strided slice from 0 if there are strides: one executable per
    shape and stride, not one per start, as JAX's eager slice does (a loop over `x[i]` would
    otherwise compile once per i). The starts of a valid slice are never clamped: same values."""
    # the slice's own checks first (a dynamic_slice would clamp a bad slice, not refuse it)
    slice_p.abstract_eval(core.get_aval(x), start_indices=start_indices,
                          limit_indices=limit_indices, strides=strides)
    sizes = tuple(hi - lo for lo, hi in zip(start_indices, limit_indices, strict=True))
    if any(start_indices) or strides is None:
        x = apply_primitive(dynamic_slice_p, x, *[np.int32(s) for s in start_indices],
                            slice_sizes=sizes)
    if strides is not None:
        x = apply_primitive(slice_p, x, start_indices=(0,) * len(sizes), limit_indices=sizes,
                            strides=strides)
    return x


slice_p.def_impl(_eager_slice)  # (here, beside dynamic_slice: shape_ops sits below this module)


@dynamic_slice_p.def_abstract_eval
def _dynamic_slice_abstract_eval(x, *idxs, slice_sizes):
    _check_indices("dynamic_slice", x, idxs)
    if len(slice_sizes) != x.ndim or any(not 0 <= s <= n for s, n in zip(slice_sizes, x.shape)):
        raise TypeError(f"dynamic_slice: slice_sizes {slice_sizes} must fit inside {x.str_short()}")
    return ShapedArray(slice_sizes, x.dtype, x.weak_type)


def _np_dynamic_slice(x, *idxs, slice_sizes):
    x = np.asarray(x)
    starts = _clamped_starts(x.shape, slice_sizes, idxs)
    return x[tuple(np.s_[a:a + s] for a, s in zip(starts, slice_sizes))]


dynamic_slice_p.np_impl = _np_dynamic_slice


@_skip_zero
def _dynamic_slice_transpose(ct, x, *idxs, slice_sizes):
    # strong zeros, as JAX's (so the cotangent of a slice of a weak array is strong)
    zeros = zeros_like_aval(x.aval.update(weak_type=False))
    return [dynamic_update_slice_p.bind(zeros, ct, *idxs)] + [None] * len(idxs)


deflinear_in(dynamic_slice_p, (0,), _dynamic_slice_transpose)


@dynamic_slice_p.def_batch
def _dynamic_slice_batch(axis_size, args, dims, *, slice_sizes):
    """Unbatched starts: the batch axis is sliced whole. (With batched starts it is a gather:
    slicing.py replaces this rule with one that handles both.)"""
    (x, *idxs), (xd, *_) = args, dims
    idxs.insert(xd, np.int32(0))
    sizes = slice_sizes[:xd] + (axis_size,) + slice_sizes[xd:]
    return dynamic_slice_p.bind(x, *idxs, slice_sizes=sizes), xd


@dynamic_slice_p.def_lowering
def _dynamic_slice_lowering(ctx, x, *idxs, slice_sizes):
    idxs = _index_operands(ctx, idxs, ctx.avals_in[1:])
    return ctx.op("stablehlo.dynamic_slice", x, *idxs, attrs={"slice_sizes": i64_array(slice_sizes)})


# -- dynamic_update_slice ------------------------------------------------------------------------

dynamic_update_slice_p = standard_primitive("dynamic_update_slice")


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


@dynamic_update_slice_p.def_abstract_eval
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


dynamic_update_slice_p.np_impl = _np_dynamic_update_slice


@_skip_zero
def _dynamic_update_slice_transpose(ct, x, update, *idxs):
    upd_aval = update.aval if is_undefined_primal(update) else core.get_aval(update)
    ct_x = dynamic_update_slice_p.bind(ct, zeros_like_aval(upd_aval), *idxs) if is_undefined_primal(x) else None
    ct_u = dynamic_slice_p.bind(ct, *idxs, slice_sizes=upd_aval.shape) if is_undefined_primal(update) else None
    return [ct_x, ct_u] + [None] * len(idxs)


deflinear_in(dynamic_update_slice_p, (0, 1), _dynamic_update_slice_transpose)


@dynamic_update_slice_p.def_batch
def _dynamic_update_slice_batch(axis_size, args, dims):
    """Unbatched starts: the batch axis is updated whole. (With batched starts it is a scatter:
    slicing.py replaces this rule with one that handles both.)"""
    (x, u, *idxs), (xd, ud, *_) = args, dims
    d = xd if xd is not None else ud
    x, u = batching.matchaxis(x, xd, d, axis_size), batching.matchaxis(u, ud, d, axis_size)
    idxs.insert(d, np.int32(0))
    return dynamic_update_slice_p.bind(x, u, *idxs), d


@dynamic_update_slice_p.def_lowering
def _dynamic_update_slice_lowering(ctx, x, update, *idxs):
    idxs = _index_operands(ctx, idxs, ctx.avals_in[2:])
    return ctx.op("stablehlo.dynamic_update_slice", x, update, *idxs)
