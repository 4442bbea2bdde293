"""Segment reductions (`jax.ops.segment_sum/prod/max/min`): rows of `data` combined into
`num_segments` rows by their `segment_ids`, as a scatter of the rows into an array of the
reduction's identity. Ids out of range are dropped (mode FILL_OR_DROP by default, as JAX: a
negative id is out of range, not counted from the end); an empty segment holds the identity."""
from __future__ import annotations

import numpy as np

from pyjax._src import core
from pyjax._src.lax import elementwise as lax
from pyjax._src.lax import reductions as lax_red
from pyjax._src.lax import shape_ops
from pyjax._src.lax import slicing
from pyjax._src.numpy.util import asarray_value, check_arraylike

# reduction name -> (its scatter, its lax reduction over the buckets' axis)
_OPS = {"sum": (slicing.scatter_add, lax_red.reduce_sum), "prod": (slicing.scatter_mul, lax_red.reduce_prod),
        "max": (slicing.scatter_max, lax_red.reduce_max), "min": (slicing.scatter_min, lax_red.reduce_min)}


def _segment_reduce(name, data, segment_ids, num_segments, indices_are_sorted, unique_indices,
                    bucket_size, mode):
    check_arraylike(f"segment_{name}", data, segment_ids)
    data, segment_ids = asarray_value(data), asarray_value(segment_ids)
    aval, ids_aval = core.get_aval(data), core.get_aval(segment_ids)
    if num_segments is None:
        ids = core.concrete_or_error(segment_ids, f"segment_{name}() `num_segments` argument "
                                                  f"(pass num_segments when the ids are traced)")
        num_segments = int(np.max(np.asarray(ids))) + 1
    num_segments = int(core.concrete_or_error(num_segments, f"segment_{name}() `num_segments` argument."))
    if num_segments < 0:
        raise ValueError("num_segments must be non-negative.")
    scatter, reduce = _OPS[name]
    mode = slicing.GatherScatterMode.FILL_OR_DROP if mode is None else mode
    rest = aval.shape[1:]
    ident = lax_red.reduction_identity(name, aval.dtype)
    n = ids_aval.shape[0] if ids_aval.ndim else 1
    ids = lax.convert_element_type(shape_ops.reshape(segment_ids, (n, 1)), np.int32)
    window = tuple(range(1, 1 + len(rest)))
    if bucket_size is None:
        out = shape_ops.broadcast_in_dim(ident, (num_segments,) + rest, ())
        dnums = slicing.ScatterDimensionNumbers(update_window_dims=window, inserted_window_dims=(0,),
                                                scatter_dims_to_operand_dims=(0,))
        return scatter(out, ids, data, dnums, indices_are_sorted=indices_are_sorted,
                       unique_indices=unique_indices, mode=mode)
    # as JAX: each bucket of `bucket_size` consecutive rows is reduced on its own, then the buckets
    # are combined (a sum or product of many rows accumulates less rounding)
    buckets = -(-n // bucket_size)
    out = shape_ops.broadcast_in_dim(ident, (buckets, num_segments) + rest, ())
    which = lax.div(shape_ops.broadcasted_iota(np.int32, (n, 1), 0), np.int32(bucket_size))
    dnums = slicing.ScatterDimensionNumbers(update_window_dims=window, inserted_window_dims=(0, 1),
                                            scatter_dims_to_operand_dims=(0, 1))
    out = scatter(out, shape_ops.concatenate([which, ids], 1), data, dnums,
                  indices_are_sorted=indices_are_sorted, unique_indices=unique_indices, mode=mode)
    return reduce(out, (0,))


def segment_sum(data, segment_ids, num_segments=None, indices_are_sorted=False, unique_indices=False,
                bucket_size=None, mode=None):
    """The sum of the rows of `data` in each segment (0 for an empty one).

    >>> jax.ops.segment_sum(jnp.arange(5.), jnp.array([0, 0, 1, 1, 2]), num_segments=3)
    Array([1., 5., 4.], dtype=float32)
    """
    return _segment_reduce("sum", data, segment_ids, num_segments, indices_are_sorted, unique_indices,
                           bucket_size, mode)


def segment_prod(data, segment_ids, num_segments=None, indices_are_sorted=False, unique_indices=False,
                 bucket_size=None, mode=None):
    """The product of the rows of `data` in each segment (1 for an empty one)."""
    return _segment_reduce("prod", data, segment_ids, num_segments, indices_are_sorted, unique_indices,
                           bucket_size, mode)


def segment_max(data, segment_ids, num_segments=None, indices_are_sorted=False, unique_indices=False,
                bucket_size=None, mode=None):
    """The maximum of the rows of `data` in each segment (-inf, or the dtype's minimum, for an
    empty one)."""
    return _segment_reduce("max", data, segment_ids, num_segments, indices_are_sorted, unique_indices,
                           bucket_size, mode)


def segment_min(data, segment_ids, num_segments=None, indices_are_sorted=False, unique_indices=False,
                bucket_size=None, mode=None):
    """The minimum of the rows of `data` in each segment (inf, or the dtype's maximum, for an
    empty one)."""
    return _segment_reduce("min", data, segment_ids, num_segments, indices_are_sorted, unique_indices,
                           bucket_size, mode)
