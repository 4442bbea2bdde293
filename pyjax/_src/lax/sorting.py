"""Sorting primitives: `sort` (several operands, lexicographic on the first `num_keys`),
`top_k` and `approx_top_k` (`lax.approx_max_k` / `approx_min_k`).

The order is JAX's: for floats -0.0 equals 0.0 and every NaN sorts last (one canonical NaN, then
XLA's total order); complex numbers compare by real part, then imaginary part; bools and integers
compare as numbers. `top_k` is XLA's: descending in the total order of the bits (NaN first,
0.0 before -0.0), ties by lower index.

Derivatives move the tangents the way the primal values moved: the JVPs sort an iota along
(or read top_k's indices) and gather the tangents with it, as JAX's do. `sort` is also linear in
its non-key operands, with a transpose that sorts the cotangents back.
"""
from __future__ import annotations

import math
import operator
from functools import partial

import numpy as np

from pyjax._src import core
from pyjax._src.core import ShapedArray
from pyjax._src.interpreters import ad, batching
from pyjax._src.lax import shape_ops, sharding_rules, slicing
from pyjax._src.lax.utils import canonicalize_axis, kind, standard_primitive
from pyjax._src.lowering import mlir
from pyjax._src.lowering.mlir import enum

# -- sort ---------------------------------------------------------------------------------------

sort_p = standard_primitive("sort", multiple_results=True)


def sort(operand, dimension=-1, is_stable=True, num_keys=1):
    """Sort `operand` along `dimension`; given a sequence of arrays, sort them together,
    lexicographically by the first `num_keys` (the rest follow the same permutation).

    Example:
        >>> lax.sort(jnp.array([3., jnp.nan, -0., 0., 1.]))
        Array([-0.,  0.,  1.,  3., nan], dtype=float32)
        >>> lax.sort((jnp.array([2, 1, 2]), jnp.array([0., 1., 2.])), num_keys=1)
        (Array([1, 2, 2], dtype=int32), Array([1., 0., 2.], dtype=float32))
    """
    if isinstance(operand, (list, tuple)):
        if not operand:
            raise TypeError("sort requires at least one operand")
        if not 1 <= num_keys <= len(operand):
            raise ValueError(f"sort: num_keys={num_keys} must be between 1 and the number of "
                             f"operands, {len(operand)}")
        ndim = core.get_aval(operand[0]).ndim
        dimension = canonicalize_axis(dimension, ndim, "dimension", "sort")
        return tuple(sort_p.bind(*operand, dimension=dimension, is_stable=bool(is_stable),
                                 num_keys=operator.index(num_keys)))
    if num_keys != 1:
        raise ValueError(f"sort: num_keys={num_keys} must be 1 for a single operand")
    dimension = canonicalize_axis(dimension, core.get_aval(operand).ndim, "dimension", "sort")
    return sort_p.bind(operand, dimension=dimension, is_stable=bool(is_stable), num_keys=1)[0]


def sort_key_val(keys, values, dimension=-1, is_stable=True):
    """Sort `keys` along `dimension` and move `values` the same way.

    Example:
        >>> lax.sort_key_val(jnp.array([3, 1, 2]), jnp.array([30., 10., 20.]))
        (Array([1, 2, 3], dtype=int32), Array([10., 20., 30.], dtype=float32))
    """
    dimension = canonicalize_axis(dimension, core.get_aval(keys).ndim, "dimension", "sort_key_val")
    k, v = sort_p.bind(keys, values, dimension=dimension, is_stable=bool(is_stable), num_keys=1)
    return k, v


@sort_p.def_abstract_eval
def _sort_abstract_eval(*avals, dimension, is_stable, num_keys):
    if not avals:
        raise TypeError("sort requires at least one operand")
    if any(a.shape != avals[0].shape for a in avals):
        raise TypeError(f"sort: arguments to sort must have equal shapes, got "
                        f"{', '.join(a.str_short() for a in avals)}")
    if not 0 <= dimension < avals[0].ndim:
        raise ValueError(f"sort: dimension {dimension} is out of bounds for operands of type "
                         f"{avals[0].str_short()}")
    if not 1 <= num_keys <= len(avals):
        raise ValueError(f"sort: num_keys={num_keys} must be between 1 and {len(avals)}")
    return list(avals)


sort_p.def_sharding_rule(sharding_rules.sort_rule)


def _np_keys(x):
    """NumPy sort keys giving lax's order of `x`, primary first. NumPy already sorts NaN last
    and -0.0 equal to 0.0; complex numbers are split so that a NaN part sorts as lax's."""
    x = np.asarray(x)
    if kind(x.dtype) == "c":
        return [x.real, x.imag]
    if kind(x.dtype) == "f" and x.dtype.itemsize < 4:  # bfloat16/fp8: NumPy can't compare them
        return [x.astype(np.float32)]
    return [x]


def np_sort_permutation(keys, dimension):
    """The (stable) permutation sorting `keys` lexicographically along `dimension`."""
    flat = [k for x in keys for k in _np_keys(x)]
    if flat[0].ndim == 0:
        return np.zeros((), np.intp)
    return np.lexsort(flat[::-1], axis=dimension)


def _np_sort(*operands, dimension, is_stable, num_keys):
    perm = np_sort_permutation(operands[:num_keys], dimension)
    return [np.take_along_axis(np.asarray(x), perm, dimension) for x in operands]


sort_p.np_impl = _np_sort


def _take_along(t, idx, axis):
    """`out[..., j, ...] = t[..., idx[..., j, ...], ...]` along `axis` (`idx` has `t`'s shape
    except along `axis`): a gather whose other axes are batch axes, as JAX's rules use. Linear
    in `t` (its transpose is a scatter-add)."""
    ndim = core.get_aval(t).ndim
    batch = tuple(d for d in range(ndim) if d != axis)
    dnums = slicing.GatherDimensionNumbers(offset_dims=(), collapsed_slice_dims=(axis,),
                                           start_index_map=(axis,), operand_batching_dims=batch,
                                           start_indices_batching_dims=batch)
    return slicing.gather(t, shape_ops.expand_dims(idx, (ndim,)), dnums, (1,) * ndim)


def _index_dtype(n):
    return np.dtype(np.int32) if n < 2**31 else np.dtype(np.int64)


def _sort_jvp(primals, tangents, *, dimension, is_stable, num_keys):
    shape = core.get_aval(primals[0]).shape
    iota = shape_ops.broadcasted_iota(_index_dtype(shape[dimension]), shape, dimension)
    outs = sort_p.bind(*primals, iota, dimension=dimension, is_stable=is_stable, num_keys=num_keys)
    perm = outs[-1]
    tangents_out = [t if type(t) is ad.Zero else _take_along(t, perm, dimension) for t in tangents]
    return outs[:-1], tangents_out


def _sort_transpose(cts, *operands, dimension, is_stable, num_keys):
    """Linear in the operands after the keys: the cotangents go back where the values came from
    (sorted by the permutation that sorted the keys)."""
    keys = operands[:num_keys]
    if any(ad.is_undefined_primal(k) for k in keys):
        raise NotImplementedError("sort: the sorted order depends on the keys, so sort is not "
                                  "linear in them and cannot be transposed with respect to them")
    shape = core.get_aval(keys[0]).shape
    perm = None
    out = [None] * num_keys
    for x, ct in zip(operands[num_keys:], cts[num_keys:], strict=True):
        if not ad.is_undefined_primal(x):
            out.append(None)
        elif type(ct) is ad.Zero:
            out.append(ad.Zero(x.aval))
        else:
            if perm is None:
                iota = shape_ops.broadcasted_iota(_index_dtype(shape[dimension]), shape, dimension)
                perm = sort_p.bind(*keys, iota, dimension=dimension, is_stable=is_stable,
                                   num_keys=num_keys)[-1]
            out.append(sort_p.bind(perm, ct, dimension=dimension, is_stable=False, num_keys=1)[1])
    return out


sort_p.def_jvp(_sort_jvp)
sort_p.def_transpose(_sort_transpose)


@sort_p.def_batch
def _sort_batch(axis_size, args, dims, *, dimension, is_stable, num_keys):
    bdim = next(d for d in dims if d is not batching.not_mapped)
    moved = [batching.matchaxis(x, d, bdim, axis_size) for x, d in zip(args, dims, strict=True)]
    outs = sort_p.bind(*moved, dimension=batching.raw_axis(dimension, bdim), is_stable=is_stable,
                       num_keys=num_keys)
    return outs, [bdim] * len(outs)


def _compare(ctx, direction, compare_type, x, y):
    return ctx.op("stablehlo.compare", x, y, out=ShapedArray((), np.bool_),
                  attrs={"comparison_direction": enum("comparison_direction", direction),
                         "compare_type": enum("comparison_type", compare_type)})


def _canonical_float(ctx, x, dtype):
    """-0.0 -> 0.0 and every NaN -> the positive quiet NaN, so the total order ties them."""
    scalar = ShapedArray((), dtype)
    zero = ctx.const(0, dtype)
    x = ctx.op("stablehlo.select", _compare(ctx, "EQ", "FLOAT", x, zero), zero, x, out=scalar)
    is_nan = _compare(ctx, "NE", "FLOAT", x, x)
    return ctx.op("stablehlo.select", is_nan, ctx.const(np.nan, dtype), x, out=scalar)


def _comparator_keys(ctx, x, dtype):
    """(value, compare type) pairs that one operand's element contributes to the comparison."""
    k = kind(dtype)
    if k == "c":
        part = np.dtype(np.float32) if dtype == np.complex64 else np.dtype(np.float64)
        return [(_canonical_float(ctx, ctx.op(op, x, out=ShapedArray((), part)), part), "TOTALORDER")
                for op in ("stablehlo.real", "stablehlo.imag")]
    if k == "f":
        return [(_canonical_float(ctx, x, dtype), "TOTALORDER")]
    return [(x, "SIGNED" if k == "i" else "UNSIGNED")]


def emit_lt_comparator(ctx, args, dtypes, num_keys):
    """The comparator region's body: `x < y` lexicographically over the first `num_keys`
    operands (`args` interleaves the elements: x0, y0, x1, y1, ...)."""
    xs, ys, types = [], [], []
    for i in range(num_keys):
        for (xk, ty), (yk, _) in zip(_comparator_keys(ctx, args[2 * i], dtypes[i]),
                                     _comparator_keys(ctx, args[2 * i + 1], dtypes[i]), strict=True):
            xs.append(xk)
            ys.append(yk)
            types.append(ty)
    result = None
    for x, y, ty in reversed(list(zip(xs, ys, types))):
        lt = _compare(ctx, "LT", ty, x, y)
        if result is not None:
            tie = ctx.op("stablehlo.and", _compare(ctx, "EQ", ty, x, y), result, out=ShapedArray((), np.bool_))
            lt = ctx.op("stablehlo.or", lt, tie, out=ShapedArray((), np.bool_))
        result = lt
    return result


def _sort_region(ctx, comparator):
    scalars = [ShapedArray((), a.dtype) for a in ctx.avals_in]
    pairs = [s for s in scalars for _ in range(2)]
    return ctx.region(pairs, lambda *args: [comparator(args, [s.dtype for s in scalars])])


@sort_p.def_lowering
def _sort_lowering(ctx, *operands, dimension, is_stable, num_keys):
    region = _sort_region(ctx, lambda args, dts: emit_lt_comparator(ctx, args, dts, num_keys))
    return ctx.op_multi("stablehlo.sort", *operands, regions=[region],
                        attrs={"dimension": mlir.i64(dimension),
                               "is_stable": "true" if is_stable else "false"})


# -- top_k --------------------------------------------------------------------------------------

top_k_p = standard_primitive("top_k", multiple_results=True)


def top_k(operand, k, *, axis=-1):
    """The `k` largest entries along `axis` and their indices, largest first (ties: the lower
    index first; NaN is largest).

    Example:
        >>> lax.top_k(jnp.array([9., 3., 6., 4., 10.]), 3)
        [Array([10.,  9.,  6.], dtype=float32), Array([4, 0, 2], dtype=int32)]
    """
    k = operator.index(k)
    if k < 0:
        raise ValueError(f"top_k: k must be nonnegative, got {k}")
    axis = canonicalize_axis(axis, np.ndim(operand), "axis", "top_k")
    return list(top_k_p.bind(operand, k=k, axis=axis))  # a list, as JAX 0.10.2's


@top_k_p.def_abstract_eval
def _top_k_abstract_eval(x, *, k, axis):
    if kind(x.dtype) == "c":
        raise ValueError(f"top_k is not compatible with complex inputs (got {x.str_short()})")
    if k < 0:
        raise ValueError(f"top_k: k must be nonnegative, got {k}")
    if x.ndim == 0:
        raise TypeError(f"top_k operand must have >= 1 dimension, got {x.str_short()}")
    if not 0 <= axis < x.ndim:
        raise ValueError(f"top_k: axis {axis} is out of range for {x.str_short()}")
    if x.shape[axis] < k:
        raise ValueError(f"top_k: k argument to top_k must be no larger than size along axis; "
                         f"got k={k} with operand {x.str_short()} and axis={axis}")
    shape = x.shape[:axis] + (k,) + x.shape[axis + 1:]
    return [x.update(shape=shape), ShapedArray(shape, np.dtype(np.int32))]


def _total_order_key(x):
    """Integers ordered as XLA's total order of `x`'s values (floats by their bits: -NaN <
    -inf < ... < -0.0 < 0.0 < ... < inf < NaN)."""
    x = np.asarray(x)
    if kind(x.dtype) != "f":
        return x.astype(np.int64) if x.dtype != np.uint64 else x
    bits = x.view(np.dtype(f"int{8 * x.dtype.itemsize}")).astype(np.int64)
    # negative floats: flip the magnitude bits, so larger magnitudes come first
    return np.where(bits < 0, bits ^ np.int64(2 ** (8 * x.dtype.itemsize - 1) - 1), bits)


def _np_descending(x, axis):
    """The stable permutation sorting `x` along `axis` in descending total order."""
    return np.argsort(~_total_order_key(x), axis=axis, kind="stable")


def _np_top_k(x, *, k, axis):
    perm = np.take(_np_descending(x, axis), np.arange(k), axis=axis)
    return [np.take_along_axis(np.asarray(x), perm, axis), perm.astype(np.int32)]


top_k_p.np_impl = _np_top_k


@top_k_p.def_jvp
def _top_k_jvp(primals, tangents, *, k, axis):
    (x,), (t,) = primals, tangents
    values, idx = top_k_p.bind(x, k=k, axis=axis)
    idx_zero = ad.Zero(ad.tangent_aval(core.get_aval(idx)))
    if type(t) is ad.Zero:
        return [values, idx], [ad.Zero(ad.tangent_aval(core.get_aval(values))), idx_zero]
    return [values, idx], [_take_along(t, idx, axis), idx_zero]


@top_k_p.def_batch
def _top_k_batch(axis_size, args, dims, *, k, axis):
    (x,), (d,) = args, dims
    outs = top_k_p.bind(x, k=k, axis=batching.raw_axis(axis, d))
    return outs, [d, d]


def _moved_to_last(ctx, x, aval, axis):
    """Transpose `axis` of `x` to the last position (swap), with the swapped aval."""
    perm = list(range(aval.ndim))
    perm[axis], perm[-1] = perm[-1], perm[axis]
    shape = tuple(aval.shape[p] for p in perm)
    moved = aval.update(shape=shape)
    return ctx.op("stablehlo.transpose", x, out=moved,
                  attrs={"permutation": mlir.i64_array(perm)}), perm


@top_k_p.def_lowering
def _top_k_lowering(ctx, x, *, k, axis):
    aval = ctx.avals_in[0]
    last = aval.ndim - 1
    if axis != last:
        x, perm = _moved_to_last(ctx, x, aval, axis)
    outs_last = [a.update(shape=_swap(a.shape, axis, last)) for a in ctx.avals_out]
    outs = ctx.op_multi("chlo.top_k", x, outs=outs_last, attrs={"k": mlir.i64(k)})
    if axis == last:
        return outs
    return [ctx.op("stablehlo.transpose", o, out=a, attrs={"permutation": mlir.i64_array(perm)})
            for o, a in zip(outs, ctx.avals_out, strict=True)]


def _swap(shape, i, j):
    shape = list(shape)
    shape[i], shape[j] = shape[j], shape[i]
    return tuple(shape)


# -- approx_top_k -------------------------------------------------------------------------------

approx_top_k_p = standard_primitive("approx_top_k", multiple_results=True)


def approx_max_k(operand, k, reduction_dimension=-1, recall_target=0.95,
                 reduction_input_size_override=-1, aggregate_to_topk=True):
    """The `k` largest entries along `reduction_dimension` and their indices (XLA's
    approximate top-k on TPU; on CPU and GPU it is exact, as in JAX).

    Example:
        >>> lax.approx_max_k(jnp.array([1., 3., 2., 3.]), 2)
        [Array([3., 3.], dtype=float32), Array([1, 3], dtype=int32)]
    """
    return _approx_top_k(operand, k, reduction_dimension, recall_target, True,
                         reduction_input_size_override, aggregate_to_topk)


def approx_min_k(operand, k, reduction_dimension=-1, recall_target=0.95,
                 reduction_input_size_override=-1, aggregate_to_topk=True):
    """The `k` smallest entries along `reduction_dimension` and their indices (see
    `approx_max_k`).

    Example:
        >>> lax.approx_min_k(jnp.array([1., 3., 0., 3.]), 2)
        [Array([0., 1.], dtype=float32), Array([2, 0], dtype=int32)]
    """
    return _approx_top_k(operand, k, reduction_dimension, recall_target, False,
                         reduction_input_size_override, aggregate_to_topk)


def _approx_top_k(operand, k, reduction_dimension, recall_target, is_max_k, override, aggregate):
    v, i = approx_top_k_p.bind(
        operand, k=operator.index(k), reduction_dimension=operator.index(reduction_dimension),
        recall_target=float(recall_target), is_max_k=is_max_k,
        reduction_input_size_override=operator.index(override), aggregate_to_topk=bool(aggregate))
    return [v, i]  # a list, as JAX 0.10.2's


def approx_top_k_output_size(n, rank, k, recall_target, aggregate_to_topk, override=-1):
    """How many entries XLA's approximate top-k keeps along the reduced axis of size `n`
    (XLA's `ApproxTopKReductionOutputSize`; the TPU's tiling decides it, on every platform).
    The windows are `tile` wide; a reduction by 2**r keeps, in expectation, a fraction
    `(1 - 1/windows)**(k - 1)` of the top k, which must reach `recall_target`."""
    if aggregate_to_topk:
        return k
    tile = 1024 if rank == 1 else 128
    if n <= tile:
        return n
    if 0 <= override < n:
        raise ValueError(f"approx_top_k: reduction_input_size_override {override} must be at "
                         f"least the size of the reduced axis, {n}")
    logical = override if override >= 0 else n
    tiles = -(-n // tile)
    if k == 1:
        return tile
    if recall_target >= 1.0:
        return n
    windows = int(max((1.0 - k) / math.log(recall_target), tile))  # windows needed for the recall
    windows = min(windows, n)
    reduction = (logical // windows).bit_length() - 1 if logical // windows else 0
    if reduction <= 0:
        return n
    reduction = min(reduction, (tiles - 1).bit_length())
    return -(-tiles // (1 << reduction)) * tile


@approx_top_k_p.def_abstract_eval
def _approx_top_k_abstract_eval(x, *, k, reduction_dimension, recall_target, is_max_k,
                                reduction_input_size_override, aggregate_to_topk):
    if k <= 0:
        raise ValueError(f"approx_top_k: k must be positive, got {k}")
    if x.ndim == 0:
        raise TypeError(f"approx_top_k operand must have >= 1 dimension, got {x.str_short()}")
    axis = canonicalize_axis(reduction_dimension, x.ndim, "reduction_dimension", "approx_top_k")
    if x.shape[axis] < k:
        raise ValueError(f"approx_top_k: k must be smaller than the size of reduction_dim "
                         f"{x.shape[axis]}, got {k}")
    if kind(x.dtype) != "f":
        raise ValueError(f"approx_top_k: operand must be a floating type, got {x.str_short()}")
    n_out = approx_top_k_output_size(x.shape[axis], x.ndim, k, recall_target, aggregate_to_topk,
                                     reduction_input_size_override)
    shape = x.shape[:axis] + (n_out,) + x.shape[axis + 1:]
    return [x.update(shape=shape), ShapedArray(shape, np.dtype(np.int32))]


def _np_approx_top_k(x, *, k, reduction_dimension, recall_target, is_max_k,
                     reduction_input_size_override, aggregate_to_topk):
    x = np.asarray(x)
    axis = reduction_dimension % x.ndim
    n_out = approx_top_k_output_size(x.shape[axis], x.ndim, k, recall_target, aggregate_to_topk,
                                     reduction_input_size_override)
    wide = x.astype(np.float64)
    perm = np.argsort(-wide if is_max_k else wide, axis=axis, kind="stable")
    perm = np.take(perm, np.arange(n_out), axis=axis)
    return [np.take_along_axis(x, perm, axis), perm.astype(np.int32)]


approx_top_k_p.np_impl = _np_approx_top_k


@approx_top_k_p.def_jvp
def _approx_top_k_jvp(primals, tangents, **params):
    (x,), (t,) = primals, tangents
    values, idx = approx_top_k_p.bind(x, **params)
    idx_zero = ad.Zero(ad.tangent_aval(core.get_aval(idx)))
    if type(t) is ad.Zero:
        return [values, idx], [ad.Zero(ad.tangent_aval(core.get_aval(values))), idx_zero]
    axis = params["reduction_dimension"] % core.get_aval(x).ndim
    return [values, idx], [_take_along(t, idx, axis), idx_zero]


@approx_top_k_p.def_batch
def _approx_top_k_batch(axis_size, args, dims, *, reduction_dimension, **params):
    (x,), (d,) = args, dims
    axis = reduction_dimension % (core.get_aval(x).ndim - 1)
    outs = approx_top_k_p.bind(x, reduction_dimension=batching.raw_axis(axis, d), **params)
    return outs, [d, d]


@approx_top_k_p.def_lowering
def _approx_top_k_lowering(ctx, x, *, k, reduction_dimension, recall_target, is_max_k,
                           reduction_input_size_override, aggregate_to_topk):
    """NB: JAX emits the `ApproxTopK` custom call, which XLA's CPU and GPU compilers replace by
    a sort with the comparator `x > y` (`x < y` for min), keeping the first entries; pyjax
    emits that sort directly. Like JAX's, the comparator is not an order when NaN is present,
    so the placement of NaN is unspecified."""
    aval = ctx.avals_in[0]
    axis = reduction_dimension % aval.ndim
    idx_aval = ShapedArray(aval.shape, np.dtype(np.int32))
    iota = ctx.op("stablehlo.iota", out=idx_aval, attrs={"iota_dimension": mlir.i64(axis)})
    direction = "GT" if is_max_k else "LT"
    region = ctx.region([ShapedArray((), aval.dtype)] * 2 + [ShapedArray((), np.int32)] * 2,
                        lambda x0, y0, i0, i1: [_compare(ctx, direction, "FLOAT", x0, y0)])
    values, idx = ctx.op_multi("stablehlo.sort", x, iota, outs=[aval, idx_aval], regions=[region],
                               attrs={"dimension": mlir.i64(axis), "is_stable": "true"})
    out_shape = ctx.avals_out[0].shape
    if out_shape == aval.shape:
        return [values, idx]
    limits = mlir.i64_array(out_shape)
    attrs = {"start_indices": mlir.i64_array([0] * aval.ndim), "limit_indices": limits,
             "strides": mlir.i64_array([1] * aval.ndim)}
    return [ctx.op("stablehlo.slice", v, out=a, attrs=attrs)
            for v, a in zip((values, idx), ctx.avals_out, strict=True)]
