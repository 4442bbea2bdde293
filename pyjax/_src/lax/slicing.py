"""`gather` and the `scatter` family: XLA's Gather and Scatter with JAX's dimension numbers.

`gather(operand, indices)` takes one window of `slice_sizes` from `operand` per index vector
(the last axis of `indices`); `scatter*` writes (or combines) `updates` windows into `operand`.
`lax.GatherDimensionNumbers` / `ScatterDimensionNumbers` say which axes are windows, which are
collapsed, which operand axes the index vector addresses, and which axes are batch axes shared by
operand and indices (`operand_batching_dims`, how vmap batches both).

Out-of-bounds indices (`GatherScatterMode`): XLA clamps a gather's start indices so the window
fits, and skips a scatter window that does not fit. `CLIP` clamps both explicitly; `FILL_OR_DROP`
makes a gather return `fill_value` for a window that does not fit (a mask and a select around a
clamping gather, as JAX lowers it) and a scatter skip it (XLA's own behaviour);
`PROMISE_IN_BOUNDS` leaves it to XLA.

Rules, in order: the dimension-number types, gather (wrapper, abstract eval, NumPy reference,
jvp/transpose, batching, lowering), then the scatter family likewise: scatter, scatter_add,
scatter_sub, scatter_mul, scatter_min, scatter_max share their abstract eval, reference,
batching and lowering, and differ in their combiner and their derivatives (each as JAX's).
"""
from __future__ import annotations

import enum
import weakref
from functools import partial
from typing import NamedTuple, Sequence

import numpy as np

from pyjax._src import core
from pyjax._src.core import ShapedArray
from pyjax._src.interpreters import batching
from pyjax._src.interpreters import partial_eval as pe
from pyjax._src.interpreters.ad import Zero, instantiate, is_undefined_primal, tangent_aval
from pyjax._src.lax import elementwise as elt
from pyjax._src.lax.convert import convert_element_type
from pyjax._src.lax.reductions import reduce_and
from pyjax._src.lax.shape_ops import broadcast_in_dim, concatenate, expand_dims, iota, reshape
from pyjax._src.lax import dynamic_slicing, sharding_rules
from pyjax._src.lax.dynamic_slicing import dynamic_update_slice_in_dim
from pyjax._src.lax.utils import canonicalize_axis, kind, standard_primitive
from pyjax._src.lowering import lower
from pyjax._src.lowering.mlir import i64_array

# -- dimension numbers and modes ------------------------------------------------------------------


class GatherDimensionNumbers(NamedTuple):
    """How the axes of a gather's operand, indices and output relate (XLA's Gather; the index
    vector is always the last axis of the indices).

    offset_dims: output axes that are window axes, ascending.
    collapsed_slice_dims: operand axes of window size 1 that have no output axis, ascending.
    start_index_map: for each component of an index vector, the operand axis it addresses.
    operand_batching_dims / start_indices_batching_dims: operand axes (window size 1) paired with
        indices axes: example b of the indices reads example b of the operand.
    """
    offset_dims: tuple[int, ...]
    collapsed_slice_dims: tuple[int, ...]
    start_index_map: tuple[int, ...]
    operand_batching_dims: tuple[int, ...] = ()
    start_indices_batching_dims: tuple[int, ...] = ()


class ScatterDimensionNumbers(NamedTuple):
    """How the axes of a scatter's operand, indices and updates relate (the mirror image of
    `GatherDimensionNumbers`: update_window_dims ~ offset_dims, inserted_window_dims ~
    collapsed_slice_dims, scatter_dims_to_operand_dims ~ start_index_map)."""
    update_window_dims: Sequence[int]
    inserted_window_dims: Sequence[int]
    scatter_dims_to_operand_dims: Sequence[int]
    operand_batching_dims: Sequence[int] = ()
    scatter_indices_batching_dims: Sequence[int] = ()


class GatherScatterMode(enum.Enum):
    """What out-of-bounds indices do: CLIP (clamp so the window fits), FILL_OR_DROP (a gather
    returns `fill_value`, a scatter skips the window), PROMISE_IN_BOUNDS (the caller promises
    they are in bounds; XLA clamps gathers and skips scatters), ONE_HOT (jnp indexing only)."""
    CLIP = enum.auto()
    FILL_OR_DROP = enum.auto()
    PROMISE_IN_BOUNDS = enum.auto()
    ONE_HOT = enum.auto()

    def __repr__(self):  # printed jaxprs show `mode=GatherScatterMode.CLIP`, as JAX's
        return str(self)

    @staticmethod
    def from_any(s) -> "GatherScatterMode":
        if isinstance(s, GatherScatterMode):
            return s
        modes = {"clip": GatherScatterMode.CLIP, None: GatherScatterMode.FILL_OR_DROP,
                 "fill": GatherScatterMode.FILL_OR_DROP, "drop": GatherScatterMode.FILL_OR_DROP,
                 "promise_in_bounds": GatherScatterMode.PROMISE_IN_BOUNDS,
                 "one_hot": GatherScatterMode.ONE_HOT}
        if isinstance(s, str) or s is None:
            if s in modes:
                return modes[s]
        raise ValueError(f'Unknown gather mode "{s}"')


def _tuple(xs):
    return tuple(x if type(x) in core.symbolic_dim_types else int(x) for x in xs)


def _gather_dnums(d) -> GatherDimensionNumbers:
    if not isinstance(d, GatherDimensionNumbers):
        raise TypeError(f"gather: dimension_numbers must be a lax.GatherDimensionNumbers, got "
                        f"{type(d).__name__}")
    return GatherDimensionNumbers(*map(_tuple, d))


def _scatter_dnums(d) -> ScatterDimensionNumbers:
    if not isinstance(d, ScatterDimensionNumbers):
        raise TypeError(f"scatter: dimension_numbers must be a lax.ScatterDimensionNumbers, got "
                        f"{type(d).__name__}")
    return ScatterDimensionNumbers(*map(_tuple, d))


def _inverse_gather_dnums(d: ScatterDimensionNumbers) -> GatherDimensionNumbers:
    """The gather reading the windows a scatter with `d` writes (transposes and JVPs use it)."""
    return GatherDimensionNumbers(
        offset_dims=d.update_window_dims, collapsed_slice_dims=d.inserted_window_dims,
        start_index_map=d.scatter_dims_to_operand_dims, operand_batching_dims=d.operand_batching_dims,
        start_indices_batching_dims=d.scatter_indices_batching_dims)


def _scatter_slice_sizes(d: ScatterDimensionNumbers, operand_ndim, updates_shape) -> tuple:
    """The operand-shaped window of each update: 1 on inserted and batching axes."""
    window = iter(updates_shape[k] for k in d.update_window_dims)
    return tuple(1 if i in d.inserted_window_dims or i in d.operand_batching_dims else next(window)
                 for i in range(operand_ndim))


def default_fill_value(dtype):
    """A FILL_OR_DROP gather's default fill: NaN (inexact), the minimum (signed), the maximum
    (unsigned), True (bool)."""
    dtype = np.dtype(dtype)
    k = kind(dtype)
    if k in "fc":
        return np.nan
    if k == "i":
        return int(np.iinfo(dtype).min)
    if k == "u":
        return int(np.iinfo(dtype).max)
    if k == "b":
        return True
    raise ValueError(f"Unsupported dtype for gather fill_value {dtype}")


# -- checks shared by gather and scatter --------------------------------------------------------


def _check_sorted_in_range(name, what, dims, rank):
    if list(dims) != sorted(set(dims)):
        raise TypeError(f"{name}: {what} must be sorted and free of duplicates, got {dims}")
    if any(not 0 <= d < rank for d in dims):
        raise TypeError(f"{name}: {what} {dims} must be in [0, {rank})")


def _check_index_map(name, what, index_map, operand, indices, excluded):
    if indices.ndim == 0 or len(index_map) != indices.shape[-1]:  # (JAX's words)
        op = "Gather" if what == "start_index_map" else "Scatter"
        bound = indices.shape[-1] if indices.ndim else 1
        raise TypeError(f"{op} op has {len(index_map)} elements in {what} and the bound of "
                        f"dimension index_vector_dim={max(indices.ndim - 1, 0)} of indices is "
                        f"{bound}. These two numbers must be equal ({name} of indices "
                        f"{indices.str_short()})")
    if len(set(index_map)) != len(index_map) or any(not 0 <= d < operand.ndim for d in index_map):
        raise TypeError(f"{name}: {what} {index_map} must be distinct axes of {operand.str_short()}")
    if set(index_map) & set(excluded):
        raise TypeError(f"{name}: {what} {index_map} may not name an operand batching dim {excluded}")


def _check_batching(name, operand, indices, operand_bdims, indices_bdims, excluded, excluded_what):
    _check_sorted_in_range(name, "operand_batching_dims", operand_bdims, operand.ndim)
    if set(operand_bdims) & set(excluded):
        raise TypeError(f"{name}: operand_batching_dims {operand_bdims} and {excluded_what} "
                        f"{excluded} must be disjoint")
    if len(operand_bdims) != len(indices_bdims):
        raise TypeError(f"{name}: operand_batching_dims {operand_bdims} and the indices' batching "
                        f"dims {indices_bdims} must have the same length")
    if len(set(indices_bdims)) != len(indices_bdims) or any(
            not 0 <= d < indices.ndim - 1 for d in indices_bdims):
        raise TypeError(f"{name}: the indices' batching dims {indices_bdims} must be distinct axes "
                        f"of {indices.str_short()} other than its last (the index vector)")
    for od, idim in zip(operand_bdims, indices_bdims):
        if operand.shape[od] != indices.shape[idim]:
            raise TypeError(f"{name}: operand batching dim {od} of {operand.str_short()} and "
                            f"indices batching dim {idim} of {indices.str_short()} differ in size")


def _check_indices_dtype(name, indices):
    if kind(indices.dtype) not in "iu":
        raise TypeError(f"{name}: indices must have an integer type, got {indices.str_short()}")


# -- gather ------------------------------------------------------------------------------------

gather_p = standard_primitive("gather")
gather_p.def_sharding_rule(sharding_rules.gather_rule)


def gather(operand, start_indices, dimension_numbers, slice_sizes, *, unique_indices=False,
           indices_are_sorted=False, mode=None, fill_value=None):
    """XLA's Gather: one window of `slice_sizes` per index vector (the last axis of
    `start_indices`). `mode` None means PROMISE_IN_BOUNDS (XLA clamps the windows into bounds);
    with "fill" an out-of-bounds window reads `fill_value` (default: NaN, the minimum or maximum
    integer, or True).

    Example:
        >>> dnums = lax.GatherDimensionNumbers(offset_dims=(), collapsed_slice_dims=(0,),
        ...                                    start_index_map=(0,))
        >>> lax.gather(jnp.array([10, 11, 12]), jnp.array([[2], [0]]), dnums, (1,))
        Array([12, 10], dtype=int32)
    """
    mode = GatherScatterMode.PROMISE_IN_BOUNDS if mode is None else GatherScatterMode.from_any(mode)
    if mode == GatherScatterMode.FILL_OR_DROP:
        if fill_value is None:
            fill_value = default_fill_value(core.get_aval(operand).dtype)
    else:
        fill_value = None
    return gather_p.bind(operand, start_indices, dimension_numbers=_gather_dnums(dimension_numbers),
                         slice_sizes=_tuple(slice_sizes), unique_indices=bool(unique_indices),
                         indices_are_sorted=bool(indices_are_sorted), mode=mode, fill_value=fill_value)


def gather_shape(indices_shape, dnums: GatherDimensionNumbers, slice_sizes) -> tuple:
    """The output shape: the indices' batch axes, with the window axes at `offset_dims`."""
    batch = iter(indices_shape[:-1])
    window = iter(s for i, s in enumerate(slice_sizes)
                  if i not in dnums.collapsed_slice_dims and i not in dnums.operand_batching_dims)
    rank = len(indices_shape) - 1 + len(dnums.offset_dims)
    return tuple(next(window) if d in dnums.offset_dims else next(batch) for d in range(rank))


@gather_p.def_abstract_eval
def _gather_abstract_eval(x, indices, *, dimension_numbers, slice_sizes, unique_indices,
                          indices_are_sorted, mode, fill_value):
    d, name = dimension_numbers, "gather"
    _check_indices_dtype(name, indices)
    if len(slice_sizes) != x.ndim:
        raise TypeError(f"{name}: slice_sizes {slice_sizes} must have one size per axis of "
                        f"{x.str_short()}")
    for i, (s, n) in enumerate(zip(slice_sizes, x.shape)):
        # (as JAX, unchecked when there are no indices: nothing is gathered, as in the JVP of a
        # sort of an empty array, whose slices along the empty axis have size 1)
        if not 0 <= s <= n and indices.size:
            raise TypeError(f"{name}: slice size {s} at index {i} must be in [0, {n}] for "
                            f"{x.str_short()}")
    _check_sorted_in_range(name, "collapsed_slice_dims", d.collapsed_slice_dims, x.ndim)
    if any(slice_sizes[i] != 1 for i in d.collapsed_slice_dims):
        raise TypeError(f"{name}: collapsed_slice_dims {d.collapsed_slice_dims} must have slice "
                        f"size 1, got slice_sizes {slice_sizes}")
    _check_batching(name, x, indices, d.operand_batching_dims, d.start_indices_batching_dims,
                    d.collapsed_slice_dims, "collapsed_slice_dims")
    if any(slice_sizes[i] > 1 for i in d.operand_batching_dims):
        raise TypeError(f"{name}: operand_batching_dims {d.operand_batching_dims} must have slice "
                        f"size 1, got slice_sizes {slice_sizes}")
    _check_index_map(name, "start_index_map", d.start_index_map, x, indices, d.operand_batching_dims)
    n_window = x.ndim - len(d.collapsed_slice_dims) - len(d.operand_batching_dims)
    if len(d.offset_dims) != n_window:
        raise TypeError(f"{name}: offset_dims {d.offset_dims} must have one entry per window axis "
                        f"({n_window}: the operand's rank less collapsed and batching dims)")
    _check_sorted_in_range(name, "offset_dims", d.offset_dims, indices.ndim - 1 + n_window)
    return ShapedArray(gather_shape(indices.shape, d, slice_sizes), x.dtype, x.weak_type)


def _window_starts(x_shape, sizes, index_vector, index_map, batch_pairs, b):
    """An index vector's window start in the operand (unclamped), and whether it fits."""
    start = [0] * len(x_shape)
    for k, axis in enumerate(index_map):
        start[axis] = int(index_vector[k])
    for od, idim in batch_pairs:
        start[od] = b[idim]
    fits = all(0 <= start[a] <= x_shape[a] - sizes[a] for a in index_map)
    return start, fits


def _np_gather(x, indices, *, dimension_numbers, slice_sizes, mode, fill_value, **_):
    d = dimension_numbers
    x, indices = np.asarray(x), np.asarray(indices)
    out_shape = gather_shape(indices.shape, d, slice_sizes)
    out = np.zeros(out_shape, x.dtype)
    window_shape = [s for i, s in enumerate(slice_sizes)
                    if i not in d.collapsed_slice_dims and i not in d.operand_batching_dims]
    batch_out = [k for k in range(len(out_shape)) if k not in d.offset_dims]
    pairs = list(zip(d.operand_batching_dims, d.start_indices_batching_dims))
    for b in np.ndindex(indices.shape[:-1]):
        start, fits = _window_starts(x.shape, slice_sizes, indices[b], d.start_index_map, pairs, b)
        start = [min(max(s, 0), n - z) for s, n, z in zip(start, x.shape, slice_sizes)]
        window = x[tuple(slice(s, s + z) for s, z in zip(start, slice_sizes))].reshape(window_shape)
        if mode == GatherScatterMode.FILL_OR_DROP and not fits:
            window = np.full(window_shape, fill_value).astype(x.dtype)
        place = [slice(None)] * len(out_shape)
        for k, i in zip(batch_out, b):
            place[k] = i
        out[tuple(place)] = window
    return out


gather_p.np_impl = _np_gather


def _gather_jvp(primals, tangents, **params):
    x, indices = primals
    out = gather_p.bind(x, indices, **params)
    g = tangents[0]
    if type(g) is Zero:
        return out, Zero(tangent_aval(core.get_aval(out)))
    fill = 0 if params["mode"] == GatherScatterMode.FILL_OR_DROP else None  # a filled tangent is 0
    return out, gather_p.bind(g, indices, **dict(params, fill_value=fill))


def _gather_transpose(ct, x, indices, *, dimension_numbers, slice_sizes, unique_indices,
                      indices_are_sorted, mode, fill_value):
    assert is_undefined_primal(x) and not is_undefined_primal(indices)
    if type(ct) is Zero:
        return [Zero(x.aval), None]
    d = dimension_numbers
    dnums = ScatterDimensionNumbers(
        update_window_dims=d.offset_dims, inserted_window_dims=d.collapsed_slice_dims,
        scatter_dims_to_operand_dims=d.start_index_map, operand_batching_dims=d.operand_batching_dims,
        scatter_indices_batching_dims=d.start_indices_batching_dims)
    zeros = _zeros(x.aval.shape, core.get_aval(ct).dtype)
    return [scatter_add(zeros, indices, ct, dnums, indices_are_sorted=indices_are_sorted,
                        unique_indices=unique_indices, mode=mode), None]


gather_p.def_jvp(_gather_jvp)
gather_p.def_transpose(_gather_transpose)


def _zeros(shape, dtype):
    return broadcast_in_dim(np.zeros((), dtype), tuple(shape), ())


def _shift(dims, by=1):
    return tuple(d + by for d in dims)


@gather_p.def_batch
def _gather_batch(axis_size, args, dims, *, dimension_numbers, slice_sizes, **params):
    """As JAX 0.10.2: a batched operand adds a whole window axis; batched indices add a batch
    axis; both batched pair them as operand/indices batching dims."""
    (x, indices), (xd, idd) = args, dims
    d = dimension_numbers
    if idd is None:
        x = batching.moveaxis(x, xd, 0)
        dnums = GatherDimensionNumbers(
            offset_dims=(0,) + _shift(d.offset_dims), collapsed_slice_dims=_shift(d.collapsed_slice_dims),
            start_index_map=_shift(d.start_index_map), operand_batching_dims=_shift(d.operand_batching_dims),
            start_indices_batching_dims=d.start_indices_batching_dims)
        sizes = (axis_size,) + slice_sizes
        return gather_p.bind(x, indices, dimension_numbers=dnums, slice_sizes=sizes, **params), 0
    indices = batching.moveaxis(indices, idd, 0)
    if xd is None:
        dnums = d._replace(offset_dims=_shift(d.offset_dims),
                           start_indices_batching_dims=_shift(d.start_indices_batching_dims))
        # batching may make indices repeat or lose their order
        params = dict(params, unique_indices=False, indices_are_sorted=False)
        return gather_p.bind(x, indices, dimension_numbers=dnums, slice_sizes=slice_sizes, **params), 0
    x = batching.moveaxis(x, xd, 0)
    dnums = GatherDimensionNumbers(
        offset_dims=_shift(d.offset_dims), collapsed_slice_dims=_shift(d.collapsed_slice_dims),
        start_index_map=_shift(d.start_index_map),
        operand_batching_dims=(0,) + _shift(d.operand_batching_dims),
        start_indices_batching_dims=(0,) + _shift(d.start_indices_batching_dims))
    sizes = (min(axis_size, 1),) + slice_sizes
    return gather_p.bind(x, indices, dimension_numbers=dnums, slice_sizes=sizes, **params), 0


def _dims_attr(name, fields):
    """`#stablehlo.gather<offset_dims = [1], ...>`, empty lists left out (as JAX prints it)."""
    body = ", ".join(f"{k} = [{', '.join(map(str, v))}]" if isinstance(v, tuple) else f"{k} = {v}"
                     for k, v in fields if not isinstance(v, tuple) or v)
    return f"#stablehlo.{name}<{body}>"


def _bool_attr(b):
    return "true" if b else "false"


def _gather_fill(x, indices, *, dimension_numbers, slice_sizes, indices_are_sorted, fill_value,
                 **_):
    """FILL_OR_DROP as JAX lowers it: a gather, and `fill_value` where a window does not fit."""
    d = dimension_numbers
    x_shape, i_aval = core.get_aval(x).shape, core.get_aval(indices)
    # compared in a signed type wide enough for the bounds (a wrapped unsigned index is negative:
    # out of bounds, as it was)
    dt = np.dtype(np.int64) if max((d for d in x_shape if type(d) is int), default=0) >= 2**31 or i_aval.dtype.itemsize == 8 \
        else np.dtype(np.int32)
    idx = convert_element_type(indices, dt)
    nb = i_aval.ndim - 1
    upper = np.array([x_shape[a] - slice_sizes[a] for a in d.start_index_map], dt)
    upper = broadcast_in_dim(upper, i_aval.shape, (nb,))
    ok = elt.bitwise_and(elt.ge(idx, _zeros(i_aval.shape, dt)), elt.le(idx, upper))
    ok = reduce_and(ok, (nb,))
    out = gather(x, indices, d, slice_sizes, indices_are_sorted=indices_are_sorted,
                 mode=GatherScatterMode.PROMISE_IN_BOUNDS)
    out_aval = core.get_aval(out)
    batch_out = tuple(k for k in range(out_aval.ndim) if k not in d.offset_dims)
    ok = broadcast_in_dim(ok, out_aval.shape, batch_out)
    fill = broadcast_in_dim(np.asarray(fill_value).astype(out_aval.dtype), out_aval.shape, ())
    return elt.select_n(ok, fill, out)


@gather_p.def_lowering
def _gather_lowering(ctx, x, indices, *, dimension_numbers, slice_sizes, unique_indices,
                     indices_are_sorted, mode, fill_value):
    d, out = dimension_numbers, ctx.avals_out[0]
    if mode == GatherScatterMode.FILL_OR_DROP:
        return ctx.lower_fun(partial(_gather_fill, dimension_numbers=d, slice_sizes=slice_sizes,
                                     indices_are_sorted=indices_are_sorted,
                                     fill_value=fill_value))(x, indices)
    if mode == GatherScatterMode.ONE_HOT:
        raise NotImplementedError("gather: mode ONE_HOT is only supported by jnp indexing")
    if 0 in out.shape:
        return ctx.const(0, out.dtype, out.shape)
    dnums = _dims_attr("gather", [
        ("offset_dims", d.offset_dims), ("collapsed_slice_dims", d.collapsed_slice_dims),
        ("operand_batching_dims", d.operand_batching_dims),
        ("start_indices_batching_dims", d.start_indices_batching_dims),
        ("start_index_map", d.start_index_map), ("index_vector_dim", ctx.avals_in[1].ndim - 1)])
    attrs = {"dimension_numbers": dnums, "indices_are_sorted": _bool_attr(indices_are_sorted)}
    if not all(type(s) is int for s in slice_sizes):  # symbolic sizes (export): dynamic_gather
        return ctx.op("stablehlo.dynamic_gather", x, indices,
                      lower.dynamic_shape_ops["shape"](ctx, slice_sizes), attrs=attrs)
    return ctx.op("stablehlo.gather", x, indices, attrs={**attrs, "slice_sizes": i64_array(slice_sizes)})


# -- the scatter family ------------------------------------------------------------------------
# Parameters as JAX's: `update_jaxpr`/`update_consts` hold the combiner, a ClosedJaxpr
# `(x, u) -> out` on scalars (so printed jaxprs read as JAX's): the member's own op (None for
# `scatter`, which replaces), or `scatter_apply`'s function. Only scatter_apply's is lowered and
# evaluated; the others combine by the op their primitive names.


def _combiner_jaxpr(prim, dtype):
    """The traced combiner of `prim` on scalars of `dtype`, once per pair (None for `scatter`
    and for bools, which JAX's lax.add etc. do not take)."""
    if prim is scatter_p or np.dtype(dtype) == np.bool_:
        return None
    key = (prim.name, np.dtype(dtype))
    closed = _COMBINER_JAXPRS.get(key)
    if closed is None:
        op = {"scatter-add": elt.add, "scatter-sub": elt.sub, "scatter-mul": elt.mul,
              "scatter-min": elt.min, "scatter-max": elt.max}[prim.name]
        scalar = ShapedArray((), np.dtype(dtype))
        closed = _COMBINER_JAXPRS[key] = pe.trace_to_jaxpr(lambda a, b: [op(a, b)], [scalar, scalar])[0]
    return closed


_COMBINER_JAXPRS: dict = {}


def _flags(params):
    """The wrapper arguments of a scatter's params (to bind another member with them)."""
    return {k: params[k] for k in ("dimension_numbers", "indices_are_sorted", "unique_indices", "mode")}


def _scatter_wrapper(prim, operand, scatter_indices, updates, dimension_numbers, *,
                     indices_are_sorted=False, unique_indices=False, mode=None,
                     update_jaxpr=None):
    if update_jaxpr is None:
        update_jaxpr = _combiner_jaxpr(prim, core.get_aval(operand).dtype)
    return prim.bind(operand, scatter_indices, updates, update_jaxpr=update_jaxpr, update_consts=(),
                     dimension_numbers=_scatter_dnums(dimension_numbers),
                     indices_are_sorted=bool(indices_are_sorted), unique_indices=bool(unique_indices),
                     mode=GatherScatterMode.from_any(mode))


def _scatter_abstract_eval(name, x, indices, updates, *, update_jaxpr, update_consts,
                           dimension_numbers, indices_are_sorted, unique_indices, mode):
    d = dimension_numbers
    _check_indices_dtype(name, indices)
    if x.dtype != updates.dtype:
        raise TypeError(f"{name}: operand and updates must have the same dtype, got "
                        f"{x.str_short()} and {updates.str_short()}")
    _check_sorted_in_range(name, "update_window_dims", d.update_window_dims, updates.ndim)
    _check_sorted_in_range(name, "inserted_window_dims", d.inserted_window_dims, x.ndim)
    _check_batching(name, x, indices, d.operand_batching_dims, d.scatter_indices_batching_dims,
                    d.inserted_window_dims, "inserted_window_dims")
    _check_index_map(name, "scatter_dims_to_operand_dims", d.scatter_dims_to_operand_dims, x,
                     indices, d.operand_batching_dims)
    n_window = x.ndim - len(d.inserted_window_dims) - len(d.operand_batching_dims)
    if len(d.update_window_dims) != n_window:
        raise TypeError(f"{name}: update_window_dims {d.update_window_dims} must have one entry per "
                        f"window axis of {x.str_short()} ({n_window})")
    scatter_dims = [k for k in range(updates.ndim) if k not in d.update_window_dims]
    if [updates.shape[k] for k in scatter_dims] != list(indices.shape[:-1]):
        raise TypeError(f"{name}: the scatter axes of updates {updates.str_short()} must match "
                        f"the batch axes of indices {indices.str_short()}")
    sizes = _scatter_slice_sizes(d, x.ndim, updates.shape)
    # (as JAX, only the update windows' own axes are bounded: an inserted or batching axis may be
    # empty, as in the transpose of a sort of an empty array)
    windowed = [i for i in range(x.ndim) if i not in d.inserted_window_dims and i not in d.operand_batching_dims]
    if any(sizes[i] > x.shape[i] for i in windowed):
        raise TypeError(f"{name}: update windows of {updates.str_short()} do not fit in "
                        f"{x.str_short()}")
    return x


def _combiner(name):
    return {"scatter": lambda a, b: b, "scatter-add": np.add, "scatter-sub": np.subtract,
            "scatter-mul": np.multiply, "scatter-min": np.minimum, "scatter-max": np.maximum}[name]


def _np_eval_jaxpr(closed, *args):
    """A jaxpr on NumPy values, through each primitive's reference (scatter_apply's combiner)."""
    env = dict(zip(closed.jaxpr.constvars, closed.consts))
    env.update(zip(closed.jaxpr.invars, args))
    read = lambda v: np.asarray(v.val) if isinstance(v, core.Literal) else env[v]  # noqa: E731
    for e in closed.jaxpr.eqns:
        out = e.primitive.np_impl(*map(read, e.invars), **e.params)
        env.update(zip(e.outvars, out if e.primitive.multiple_results else [out]))
    return read(closed.jaxpr.outvars[0])


def _np_scatter(name, x, indices, updates, *, update_jaxpr, dimension_numbers, mode, **_):
    d = dimension_numbers
    out = np.array(x, copy=True)
    indices, updates = np.asarray(indices), np.asarray(updates)
    if name == "scatter" and update_jaxpr is not None:  # scatter_apply
        combine = partial(_np_eval_jaxpr, update_jaxpr)
    else:
        combine = _combiner(name)
    sizes = _scatter_slice_sizes(d, out.ndim, updates.shape)
    window_shape = [updates.shape[k] for k in d.update_window_dims]
    scatter_dims = [k for k in range(updates.ndim) if k not in d.update_window_dims]
    pairs = list(zip(d.operand_batching_dims, d.scatter_indices_batching_dims))
    for b in np.ndindex(indices.shape[:-1]):
        start, fits = _window_starts(out.shape, sizes, indices[b], d.scatter_dims_to_operand_dims,
                                     pairs, b)
        if mode == GatherScatterMode.CLIP:
            start = [min(max(s, 0), n - z) for s, n, z in zip(start, out.shape, sizes)]
            fits = True
        if not fits:
            continue
        pick = [slice(None)] * updates.ndim
        for k, i in zip(scatter_dims, b):
            pick[k] = i
        target = tuple(slice(s, s + z) for s, z in zip(start, sizes))
        current = out[target]
        new = combine(current.reshape(window_shape), updates[tuple(pick)])
        out[target] = np.asarray(new).astype(out.dtype).reshape(current.shape)
    return out


def _clamp_scatter_indices(x_shape, indices, updates_shape, d):
    """CLIP: each index component clamped so its window fits."""
    sizes = _scatter_slice_sizes(d, len(x_shape), updates_shape)
    i_aval = core.get_aval(indices)
    info = np.iinfo(i_aval.dtype)
    upper = np.array([min(x_shape[a] - sizes[a], info.max) for a in d.scatter_dims_to_operand_dims])
    upper = broadcast_in_dim(upper.astype(i_aval.dtype), i_aval.shape, (i_aval.ndim - 1,))
    return elt.clamp(_zeros(i_aval.shape, i_aval.dtype), indices, upper)


_REGION_OPS = {"scatter-add": "stablehlo.add", "scatter-sub": "stablehlo.subtract",
               "scatter-mul": "stablehlo.multiply", "scatter-min": "stablehlo.minimum",
               "scatter-max": "stablehlo.maximum"}


def _scatter_lowering(name, ctx, x, indices, updates, *, update_jaxpr, update_consts,
                      dimension_numbers, indices_are_sorted, unique_indices, mode):
    d = dimension_numbers
    x_aval, i_aval, u_aval = ctx.avals_in
    if mode == GatherScatterMode.CLIP:
        indices = ctx.lower_fun(lambda x, i, u: _clamp_scatter_indices(x_aval.shape, i, u_aval.shape, d))(
            x, indices, updates)
    scalar = ShapedArray((), x_aval.dtype)
    if x_aval.dtype == np.bool_ and name in ("scatter-add", "scatter-max"):
        op = "stablehlo.or"
    elif x_aval.dtype == np.bool_ and name in ("scatter-mul", "scatter-min"):
        op = "stablehlo.and"
    else:
        op = _REGION_OPS.get(name)

    def body(a, b):
        if op is not None:
            return [ctx.op(op, a, b, out=scalar)]
        if update_jaxpr is not None:  # scatter_apply
            consts = [ctx.const(np.asarray(c), np.asarray(c).dtype, np.shape(c)) for c in update_jaxpr.consts]
            return ctx.lower_jaxpr(update_jaxpr.jaxpr, consts, [a, b])
        return [b]
    dnums = _dims_attr("scatter", [
        ("update_window_dims", d.update_window_dims), ("inserted_window_dims", d.inserted_window_dims),
        ("input_batching_dims", d.operand_batching_dims),
        ("scatter_indices_batching_dims", d.scatter_indices_batching_dims),
        ("scatter_dims_to_operand_dims", d.scatter_dims_to_operand_dims),
        ("index_vector_dim", i_aval.ndim - 1)])
    return ctx.op("stablehlo.scatter", x, indices, updates, attrs={
        "indices_are_sorted": _bool_attr(indices_are_sorted), "scatter_dimension_numbers": dnums,
        "unique_indices": _bool_attr(unique_indices)}, regions=[ctx.region([scalar, scalar], body)])


def _scatter_batch(prim, axis_size, args, dims, *, dimension_numbers, **params):
    """As JAX 0.10.2: operand and updates batched at 0; unbatched indices make the batch axis a
    window axis, batched indices pair it as operand/indices batching dims."""
    (x, indices, updates), (xd, idd, ud) = args, dims
    d = dimension_numbers
    x = batching.bdim_at_front(x, xd, axis_size)
    updates = batching.bdim_at_front(updates, ud, axis_size)
    if idd is None:
        dnums = ScatterDimensionNumbers(
            update_window_dims=(0,) + _shift(d.update_window_dims),
            inserted_window_dims=_shift(d.inserted_window_dims),
            scatter_dims_to_operand_dims=_shift(d.scatter_dims_to_operand_dims),
            operand_batching_dims=_shift(d.operand_batching_dims),
            scatter_indices_batching_dims=d.scatter_indices_batching_dims)
        return prim.bind(x, indices, updates, dimension_numbers=dnums, **params), 0
    indices = batching.moveaxis(indices, idd, 0)
    dnums = ScatterDimensionNumbers(
        update_window_dims=_shift(d.update_window_dims), inserted_window_dims=_shift(d.inserted_window_dims),
        scatter_dims_to_operand_dims=_shift(d.scatter_dims_to_operand_dims),
        operand_batching_dims=(0,) + _shift(d.operand_batching_dims),
        scatter_indices_batching_dims=(0,) + _shift(d.scatter_indices_batching_dims))
    return prim.bind(x, indices, updates, dimension_numbers=dnums, **params), 0


def _scatter_primitive(name):
    """A scatter family member with its shared rules (derivatives are attached below)."""
    p = standard_primitive(name, partial(_scatter_abstract_eval, name), partial(_np_scatter, name),
                           partial(_scatter_lowering, name))
    p.def_batch(partial(_scatter_batch, p))
    return p


scatter_p = _scatter_primitive("scatter")
scatter_add_p = _scatter_primitive("scatter-add")
scatter_sub_p = _scatter_primitive("scatter-sub")
scatter_mul_p = _scatter_primitive("scatter-mul")
scatter_min_p = _scatter_primitive("scatter-min")
scatter_max_p = _scatter_primitive("scatter-max")


def scatter(operand, scatter_indices, updates, dimension_numbers, *, indices_are_sorted=False,
            unique_indices=False, mode=None):
    """XLA's Scatter with updates replacing the operand's values (which of several updates to one
    place wins is unspecified). `mode` None or "drop": out-of-bounds windows are skipped.

    Example:
        >>> dnums = lax.ScatterDimensionNumbers(update_window_dims=(), inserted_window_dims=(0,),
        ...                                     scatter_dims_to_operand_dims=(0,))
        >>> lax.scatter(jnp.zeros(3), jnp.array([[2]]), jnp.array([5.0]), dnums)
        Array([0., 0., 5.], dtype=float32)
    """
    return _scatter_wrapper(scatter_p, operand, scatter_indices, updates, dimension_numbers,
                            indices_are_sorted=indices_are_sorted, unique_indices=unique_indices,
                            mode=mode)


def scatter_add(operand, scatter_indices, updates, dimension_numbers, *, indices_are_sorted=False,
                unique_indices=False, mode=None):
    """Scatter adding the updates (repeated indices add up)."""
    return _scatter_wrapper(scatter_add_p, operand, scatter_indices, updates, dimension_numbers,
                            indices_are_sorted=indices_are_sorted, unique_indices=unique_indices,
                            mode=mode)


def scatter_sub(operand, scatter_indices, updates, dimension_numbers, *, indices_are_sorted=False,
                unique_indices=False, mode=None):
    """Scatter subtracting the updates."""
    return _scatter_wrapper(scatter_sub_p, operand, scatter_indices, updates, dimension_numbers,
                            indices_are_sorted=indices_are_sorted, unique_indices=unique_indices,
                            mode=mode)


def scatter_mul(operand, scatter_indices, updates, dimension_numbers, *, indices_are_sorted=False,
                unique_indices=False, mode=None):
    """Scatter multiplying by the updates."""
    return _scatter_wrapper(scatter_mul_p, operand, scatter_indices, updates, dimension_numbers,
                            indices_are_sorted=indices_are_sorted, unique_indices=unique_indices,
                            mode=mode)


def scatter_min(operand, scatter_indices, updates, dimension_numbers, *, indices_are_sorted=False,
                unique_indices=False, mode=None):
    """Scatter keeping the minimum of the operand and the updates."""
    return _scatter_wrapper(scatter_min_p, operand, scatter_indices, updates, dimension_numbers,
                            indices_are_sorted=indices_are_sorted, unique_indices=unique_indices,
                            mode=mode)


def scatter_max(operand, scatter_indices, updates, dimension_numbers, *, indices_are_sorted=False,
                unique_indices=False, mode=None):
    """Scatter keeping the maximum of the operand and the updates."""
    return _scatter_wrapper(scatter_max_p, operand, scatter_indices, updates, dimension_numbers,
                            indices_are_sorted=indices_are_sorted, unique_indices=unique_indices,
                            mode=mode)


def scatter_apply(operand, scatter_indices, func, dimension_numbers, *, update_shape=(),
                  indices_are_sorted=False, unique_indices=False, mode=None):
    """Scatter replacing the addressed values `v` by `func(v)` (applied once per index, so a
    repeated index applies it repeatedly). `update_shape` is the shape updates would have.
    As in JAX, not differentiable."""
    dt = core.get_aval(operand).dtype
    unused = _zeros(tuple(update_shape), dt)
    closed = _apply_jaxpr(func, dt)
    return _scatter_wrapper(scatter_p, operand, scatter_indices, unused, dimension_numbers,
                            indices_are_sorted=indices_are_sorted, unique_indices=unique_indices,
                            mode=mode, update_jaxpr=closed)


_apply_jaxprs: "weakref.WeakKeyDictionary" = weakref.WeakKeyDictionary()


def _apply_jaxpr(func, dt):
    """`func` traced on a scalar of `dt`, once per function and dtype (as JAX caches it), so
    the jit cache sees the same update_jaxpr each call."""
    try:
        per_func = _apply_jaxprs.setdefault(func, {})
    except TypeError:  # not weakly referenceable: traced each call
        per_func = {}
    closed = per_func.get(dt)
    if closed is None:
        scalar = ShapedArray((), dt)
        closed = per_func[dt] = pe.trace_to_jaxpr(lambda v, _: [func(v)], [scalar, scalar])[0]
    return closed


# -- derivatives of the scatter family -------------------------------------------------------------


def _inverse_gather(x, indices, updates_shape, d, mode=None, fill_value=None):
    """The windows of `x` a scatter with dnums `d` addresses (shaped like its updates)."""
    sizes = _scatter_slice_sizes(d, core.get_aval(x).ndim, updates_shape)
    return gather(x, indices, _inverse_gather_dnums(d), sizes, mode=mode, fill_value=fill_value)


def _zero_tangent(out):
    return Zero(tangent_aval(core.get_aval(out)))


def _scatter_addsub_jvp(prim, primals, tangents, **params):
    x, indices, updates = primals
    out = prim.bind(x, indices, updates, **params)
    gx, _, gu = tangents
    if type(gx) is Zero and type(gu) is Zero:
        return out, _zero_tangent(out)
    return out, prim.bind(instantiate(gx), indices, instantiate(gu), **params)


def _scatter_addsub_transpose(prim, ct, x, indices, updates, *, dimension_numbers, mode, **params):
    u_aval = updates.aval if is_undefined_primal(updates) else core.get_aval(updates)
    if type(ct) is Zero:
        return [Zero(x.aval) if is_undefined_primal(x) else None, None,
                Zero(u_aval) if is_undefined_primal(updates) else None]
    ct_x = ct if is_undefined_primal(x) else None
    ct_u = None
    if is_undefined_primal(updates):
        ct_u = _inverse_gather(ct, indices, u_aval.shape, dimension_numbers, mode, 0)
        if prim is scatter_sub_p:
            ct_u = elt.neg(ct_u)
    return [ct_x, None, ct_u]


for _p in (scatter_add_p, scatter_sub_p):
    _p.def_jvp(partial(_scatter_addsub_jvp, _p))
    _p.def_transpose(partial(_scatter_addsub_transpose, _p))


def _scatter_mul_jvp(primals, tangents, **params):
    """Linear in the operand; in the updates only when indices are unique (as JAX)."""
    x, indices, updates = primals
    out = scatter_mul_p.bind(x, indices, updates, **params)
    gx, _, gu = tangents
    t = _zero_tangent(out)
    if type(gx) is not Zero:
        t = scatter_mul_p.bind(gx, indices, updates, **params)
    if type(gu) is not Zero:
        if not params["unique_indices"]:
            raise NotImplementedError("scatter_mul gradients are only implemented if "
                                      "`unique_indices=True`")
        placed = scatter_add(_zeros(core.get_aval(x).shape, core.get_aval(gu).dtype), indices, gu,
                             **_flags(params))
        tu = elt.mul(x, placed)
        t = tu if type(t) is Zero else elt.add(t, tu)
    return out, t


def _scatter_mul_transpose(ct, x, indices, updates, *, dimension_numbers, mode, unique_indices,
                           **params):
    if is_undefined_primal(updates):
        raise NotImplementedError("scatter_mul is linear in its operand only")
    if type(ct) is Zero:
        return [Zero(x.aval), None, None]
    return [scatter_mul_p.bind(ct, indices, updates, dimension_numbers=dimension_numbers, mode=mode,
                               unique_indices=unique_indices, **params), None, None]


scatter_mul_p.def_jvp(_scatter_mul_jvp)
scatter_mul_p.def_transpose(_scatter_mul_transpose)


def _scatter_extremal_jvp(prim, primals, tangents, **params):
    """As JAX: the tangent where several values tie for the extremum (the operand's and the
    updates') is the mean of their tangents."""
    x, indices, updates = primals
    out = prim.bind(x, indices, updates, **params)
    gx, _, gu = tangents
    if type(gx) is Zero and type(gu) is Zero:
        return out, _zero_tangent(out)
    gx, gu = instantiate(gx), instantiate(gu)
    d, u_aval = params["dimension_numbers"], core.get_aval(updates)
    if params["mode"] == GatherScatterMode.CLIP:  # NB: JAX's counts miss clamped indices (NaNs)
        indices = _clamp_scatter_indices(core.get_aval(x).shape, indices, u_aval.shape, d)
    x_shape, dt = core.get_aval(x).shape, core.get_aval(gu).dtype
    back = lambda v: _inverse_gather(v, indices, u_aval.shape, d)  # noqa: E731
    add_at = partial(scatter_add, dimension_numbers=d)
    initial, target = back(x), back(out)
    won = elt.eq(updates, target)
    kept = elt.eq(initial, target)
    ones, zeros_u = _full(u_aval.shape, 1, dt), _zeros(u_aval.shape, dt)
    n_won = back(add_at(_zeros(x_shape, dt), indices, elt.select_n(won, zeros_u, ones)))
    n_refs = back(add_at(_zeros(x_shape, dt), indices, ones))
    share_kept = elt.div(ones, elt.add(n_won, ones))
    u_coef = elt.select_n(won, zeros_u, elt.select_n(kept, elt.div(ones, n_won), share_kept))
    x_coef = elt.div(elt.sub(elt.select_n(kept, zeros_u, share_kept), ones), n_refs)
    t_updates = elt.add(elt.mul(back(gx), x_coef), elt.mul(gu, u_coef))
    return out, scatter_add(gx, indices, t_updates, **_flags(params))


def _full(shape, value, dtype):
    return broadcast_in_dim(np.asarray(value, dtype), tuple(shape), ())


for _p in (scatter_min_p, scatter_max_p):
    _p.def_jvp(partial(_scatter_extremal_jvp, _p))


def _scatter_jvp(primals, tangents, *, update_jaxpr, **params):
    """Unique indices: scatter the tangents the same way. Otherwise (which update wins is
    unspecified) as JAX: scatter update ids, read back which update won each place, and build
    primal and tangent by scatter-adds of the masked values."""
    if update_jaxpr is not None:
        raise NotImplementedError("scatter_apply JVP not implemented")
    x, indices, updates = primals
    gx, _, gu = tangents
    params = dict(params, update_jaxpr=None)
    if type(gx) is Zero and type(gu) is Zero:
        out = scatter_p.bind(x, indices, updates, **params)
        return out, _zero_tangent(out)
    gx, gu = instantiate(gx), instantiate(gu)
    if params["unique_indices"]:
        return scatter_p.bind(x, indices, updates, **params), scatter_p.bind(gx, indices, gu, **params)
    d, u_shape = params["dimension_numbers"], core.get_aval(updates).shape
    x_shape = core.get_aval(x).shape
    ids_shape = tuple(1 if k in d.update_window_dims else n for k, n in enumerate(u_shape))
    n_ids = int(np.prod(ids_shape, dtype=np.int64))
    id_dt = np.dtype(np.uint32) if n_ids < 2**32 - 1 else np.dtype(np.uint64)
    ids = elt.add(reshape(iota(id_dt, n_ids), ids_shape), np.asarray(1, id_dt)[()])
    ids = broadcast_in_dim(ids, u_shape, tuple(range(len(u_shape))))
    placed = scatter_p.bind(_zeros(x_shape, id_dt), indices, ids, **params)
    winners = elt.eq(ids, _inverse_gather(placed, indices, u_shape, d))
    untouched = elt.eq(placed, _zeros(x_shape, id_dt))

    def masked(v, keep):
        return elt.select_n(keep, _zeros(core.get_aval(v).shape, core.get_aval(v).dtype), v)
    add = partial(scatter_add, **_flags(params))
    return (add(masked(x, untouched), indices, masked(updates, winners)),
            add(masked(gx, untouched), indices, masked(gu, winners)))


def _scatter_transpose(ct, x, indices, updates, *, update_jaxpr, dimension_numbers, mode,
                       unique_indices, **params):
    if not unique_indices:
        raise NotImplementedError("scatter transpose is only implemented where unique_indices=True")
    u_aval = updates.aval if is_undefined_primal(updates) else core.get_aval(updates)
    if type(ct) is Zero:
        return [Zero(x.aval) if is_undefined_primal(x) else None, None,
                Zero(u_aval) if is_undefined_primal(updates) else None]
    ct_x = ct_u = None
    if is_undefined_primal(x):  # the places overwritten get no cotangent
        ct_x = scatter_p.bind(ct, indices, _zeros(u_aval.shape, core.get_aval(ct).dtype),
                              update_jaxpr=None, dimension_numbers=dimension_numbers, mode=mode,
                              unique_indices=True, **params)
    if is_undefined_primal(updates):
        ct_u = _inverse_gather(ct, indices, u_aval.shape, dimension_numbers, mode, 0)
    return [ct_x, None, ct_u]


scatter_p.def_jvp(_scatter_jvp)
scatter_p.def_transpose(_scatter_transpose)


# -- conveniences ---------------------------------------------------------------------------------


def index_take(src, idxs, axes):
    """`src` at the integer arrays `idxs` (one per axis in `axes`, wrapped modulo the axis
    length), as a gather."""
    src_shape = core.get_aval(src).shape
    indices = concatenate([expand_dims(i, (1,)) for i in idxs], 1)
    i_aval = core.get_aval(indices)
    sizes = np.array([src_shape[a] for a in axes]).astype(i_aval.dtype)
    indices = elt.rem(indices, broadcast_in_dim(sizes, i_aval.shape, (1,)))
    indices = elt.select_n(elt.lt(indices, _zeros(i_aval.shape, i_aval.dtype)), indices,
                           elt.add(indices, broadcast_in_dim(sizes, i_aval.shape, (1,))))
    slice_sizes = [1 if a in axes else n for a, n in enumerate(src_shape)]
    dnums = GatherDimensionNumbers(offset_dims=tuple(range(1, len(src_shape) - len(axes) + 1)),
                                   collapsed_slice_dims=tuple(axes), start_index_map=tuple(axes))
    return gather(src, indices, dnums, slice_sizes)


def dynamic_update_index_in_dim(operand, update, index, axis, *, allow_negative_indices=True):
    """Write `update` (of `operand`'s rank, size 1 along `axis`, or of rank one less) at traced
    position `index` along `axis` (a negative index counts from the end unless
    `allow_negative_indices=False`, which clamps it to 0)."""
    aval, u_aval = core.get_aval(operand), core.get_aval(update)
    axis = canonicalize_axis(axis, aval.ndim)
    if not allow_negative_indices:
        index = elt.max(index, np.zeros((), core.get_aval(index).dtype)[()])
    if u_aval.ndim == aval.ndim - 1:
        update = expand_dims(update, (axis,))
    return dynamic_update_slice_in_dim(operand, update, index, axis)


# -- dynamic_slice / dynamic_update_slice under vmap with batched starts -------------------------
#
# Their batching rules live here, beside gather and scatter (dynamic_slicing.py sits below this
# module): per-example starts make a gather (a scatter for updates) with one index vector per
# example, as in JAX. Unbatched starts keep dynamic_slicing's own rules (one bigger slice).

_dynamic_slice_batch_unbatched_starts = dynamic_slicing.dynamic_slice_p.batch
_dynamic_update_slice_batch_unbatched_starts = dynamic_slicing.dynamic_update_slice_p.batch


def _batched_starts(idxs, idims, axis_size, shape, sizes):
    """The starts as one (B, rank) index array (the CLIP gather/scatter clamps each so its
    window fits, XLA's rule for dynamic slices)."""
    starts = [dynamic_slicing._batched_start(i, d, axis_size, n, s)
              for i, d, n, s in zip(idxs, idims, shape, sizes, strict=True)]
    dt = np.int64 if any(core.get_aval(s).dtype == np.int64 for s in starts) else np.int32
    cols = [reshape(convert_element_type(s, dt), (axis_size, 1)) for s in starts]
    return concatenate(cols, 1) if cols else iota(dt, axis_size)[:, None][:, :0]


@dynamic_slicing.dynamic_slice_p.def_batch
def _dynamic_slice_batch(axis_size, args, dims, *, slice_sizes):
    (x, *idxs), (xd, *idims) = args, dims
    if all(d is None for d in idims):
        return _dynamic_slice_batch_unbatched_starts(axis_size, args, dims, slice_sizes=slice_sizes)
    shape = batching.per_example_shape(x, xd)
    starts = _batched_starts(idxs, idims, axis_size, shape, slice_sizes)
    rank = len(shape)
    if xd is None:  # one operand, a window per example
        dnums = GatherDimensionNumbers(offset_dims=tuple(range(1, rank + 1)), collapsed_slice_dims=(),
                                       start_index_map=tuple(range(rank)))
        return gather(x, starts, dnums, tuple(slice_sizes), mode=GatherScatterMode.CLIP), 0
    x = batching.moveaxis(x, xd, 0)
    dnums = GatherDimensionNumbers(offset_dims=tuple(range(1, rank + 1)), collapsed_slice_dims=(),
                                   start_index_map=tuple(range(1, rank + 1)),
                                   operand_batching_dims=(0,), start_indices_batching_dims=(0,))
    return gather(x, starts, dnums, (1, *slice_sizes), mode=GatherScatterMode.CLIP), 0


@dynamic_slicing.dynamic_update_slice_p.def_batch
def _dynamic_update_slice_batch(axis_size, args, dims):
    (x, u, *idxs), (xd, ud, *idims) = args, dims
    if all(d is None for d in idims):
        return _dynamic_update_slice_batch_unbatched_starts(axis_size, args, dims)
    x, u = batching.bdim_at_front(x, xd, axis_size), batching.bdim_at_front(u, ud, axis_size)
    shape, u_shape = batching.per_example_shape(x, 0), batching.per_example_shape(u, 0)
    starts = _batched_starts(idxs, idims, axis_size, shape, u_shape)
    rank = len(shape)
    dnums = ScatterDimensionNumbers(update_window_dims=tuple(range(1, rank + 1)),
                                    inserted_window_dims=(),
                                    scatter_dims_to_operand_dims=tuple(range(1, rank + 1)),
                                    operand_batching_dims=(0,), scatter_indices_batching_dims=(0,))
    return scatter(x, starts, u, dnums, indices_are_sorted=True, unique_indices=True,
                   mode=GatherScatterMode.CLIP), 0
