"""lax functions that are compositions of primitives rather than primitives of their own:
`full`, `full_like`, `empty`, `collapse`, `broadcast_shapes`, `broadcast_like`, `batch_matmul`,
`composite`, `ragged_dot`.
"""
from __future__ import annotations

import functools
import math

import numpy as np

from pyjax._src import core, dtypes
from pyjax._src.array import ArrayImpl, make_array_from_callback
from pyjax._src.mesh import AbstractMesh
from pyjax._src.config import config
from pyjax._src.lax.control_flow.cumulative import cumsum
from pyjax._src.lax.convert import _convert_element_type
from pyjax._src.lax.dot_general import RaggedDotDimensionNumbers, dot_general
from pyjax._src.lax.elementwise import bitwise_and, ge, lt, mul, sub
from pyjax._src.lax.reductions import reduce_sum
from pyjax._src.lax.shape_ops import broadcast, broadcast_in_dim, broadcasted_iota, reshape, shape_param


def _value_dtype(x):
    return dtypes.dtype_of(x) if not hasattr(x, "aval") else core.get_aval(x).dtype


def full(shape, fill_value, dtype=None, *, sharding=None):
    """An array of `shape` filled with the scalar `fill_value` (of `dtype`, else its own dtype;
    a Python scalar stays weakly typed).

        >>> full((2,), 3)
        Array([3, 3], dtype=int32, weak_type=True)
    """
    shape = shape_param(shape, "full: shape")
    if np.ndim(fill_value) != 0:
        raise TypeError(f"full: fill_value must be a scalar, got an array of shape {np.shape(fill_value)}")
    weak = dtype is None and dtypes.is_weakly_typed(fill_value)
    dt = dtypes.canonicalize_dtype(_value_dtype(fill_value) if dtype is None else dtypes.dtype_of(dtype))
    value = _convert_element_type(fill_value, dt, weak)
    if sharding is not None and type(value) is ArrayImpl and _is_concrete(sharding):
        # (as JAX: laid out as `sharding`, each device filling its own block)
        block = np.broadcast_to(np.asarray(value), sharding.shard_shape(shape))
        return make_array_from_callback(shape, sharding, lambda _: block, dtype=dt)
    if sharding is not None and not _is_concrete(sharding):
        return broadcast(value, shape, out_sharding=sharding)
    return broadcast(value, shape)


def _is_concrete(sharding) -> bool:
    """Whether `sharding` names devices (not a NamedSharding over an AbstractMesh)."""
    return not isinstance(getattr(sharding, "mesh", None), AbstractMesh)


def full_like(x, fill_value, dtype=None, shape=None, sharding=None):
    """An array like `x` (its shape and dtype unless `shape`/`dtype` are given) filled with
    `fill_value`; weakly typed when `x` is and `dtype` is None.

        >>> full_like(jnp.ones(2, jnp.int8), 2.5)
        Array([2, 2], dtype=int8)
    """
    fill_shape = np.shape(x) if shape is None else shape_param(shape, "full_like: shape")
    weak = dtype is None and dtypes.is_weakly_typed(x)
    if dtype is None and hasattr(x, "aval"):  # as JAX: a 64-bit array's own type, even without x64
        value = _convert_element_type(fill_value, core.get_aval(x).dtype, weak, canonicalize=False)
    else:
        dt = dtypes.canonicalize_dtype(_value_dtype(x) if dtype is None else dtypes.dtype_of(dtype))
        value = _convert_element_type(fill_value, dt, weak)
    if sharding is None and not isinstance(x, core.Tracer) and not weak and getattr(
            x, "_committed", True) and getattr(x, "sharding", None) is not None and (
            fill_shape == np.shape(x) or x.sharding.is_fully_replicated):
        sharding = x.sharding  # (as JAX: a committed array's own layout)
    if sharding is not None and type(value) is ArrayImpl and _is_concrete(sharding):
        block = np.broadcast_to(np.asarray(value), sharding.shard_shape(fill_shape))
        return make_array_from_callback(fill_shape, sharding, lambda _: block,
                                        dtype=core.get_aval(value).dtype)
    return vary_like(broadcast(value, fill_shape), x)


def vary_like(val, x):
    """`val` typed as varying along the mesh axes `x` varies along (inside a check_vma
    shard_map body, as JAX's full_like types its result; else `val`)."""
    if not core.VMA_TRACING[0] or not config._values["jax_auto_pcast"]:
        return val
    if isinstance(x, core.Tracer) and x.aval.vma:
        return core.pvary(val, x.aval.vma)
    mat = getattr(x, "manual_axis_type", None)  # (a ShapeDtypeStruct from eval_shape)
    return core.pvary(val, mat.varying) if mat is not None and mat.varying else val


def empty(shape, dtype, *, out_sharding=None):
    """An array of `shape` and `dtype` whose contents are unspecified.

    NB: JAX binds an `empty` primitive whose buffer XLA may leave uninitialized; pyjax fills it
    with zeros (contents a program must not read either way)."""
    return full(shape, 0, dtype)


def dtype(x):
    """The canonical dtype of `x` (an array, scalar, dtype or type name): 64-bit types narrow
    unless x64 is on, and Python scalars have the default types.

        >>> lax.dtype(1.0)
        dtype('float32')
    """
    if isinstance(x, (str, np.dtype)) or (isinstance(x, type) and issubclass(x, np.generic)):
        # a dtype named explicitly: narrowing it warns, as in JAX
        return dtypes.maybe_canonicalize_explicit_dtype(dtypes.dtype_of(x), "dtype")
    return dtypes.dtype_of(x, canonicalize=True)


def collapse(operand, start_dimension: int, stop_dimension: int | None = None):
    """Merge dimensions `[start_dimension, stop_dimension)` into one (row-major order).

        >>> collapse(jnp.zeros((2, 3, 4)), 1).shape
        (2, 12)
    """
    shape = core.get_aval(operand).shape
    lo, hi, _ = slice(start_dimension, stop_dimension).indices(len(shape))
    if hi < lo:
        raise ValueError(f"collapse: start_dimension {start_dimension} must be at most "
                         f"stop_dimension {stop_dimension} for an operand of shape {shape}")
    return reshape(operand, shape[:lo] + (math.prod(shape[lo:hi]),) + shape[hi:])


def broadcast_shapes(*shapes):
    """The NumPy broadcast of `shapes` (ranks aligned at the right).

        >>> broadcast_shapes((2, 1), (3,))
        (2, 3)
    """
    shapes = [shape_param(s, "broadcast_shapes: shapes") for s in shapes]
    rank = max((len(s) for s in shapes), default=0)
    out = []
    for dims in zip(*[(1,) * (rank - len(s)) + s for s in shapes]):
        sizes = {d for d in dims if d != 1}
        if len(sizes) > 1:
            raise ValueError(f"Incompatible shapes for broadcasting: shapes={shapes}")
        out.append(sizes.pop() if sizes else 1)
    return tuple(out)


def broadcast_like(arr, like_arr):
    """`arr` broadcast (NumPy style) to the shape of `like_arr`."""
    aval, shape = core.get_aval(arr), np.shape(like_arr)
    target = broadcast_shapes(aval.shape, shape)
    if target != tuple(shape):
        raise ValueError(f"broadcast_like: shape {aval.shape} does not broadcast to {tuple(shape)}")
    lead = len(shape) - aval.ndim
    kept = [i for i, d in enumerate(aval.shape) if d == shape[lead + i]]
    if len(kept) != aval.ndim:
        arr = reshape(arr, tuple(aval.shape[i] for i in kept))
    return broadcast_in_dim(arr, tuple(shape), tuple(lead + i for i in kept))


def batch_matmul(lhs, rhs, precision=None):
    """Matrix products over equal leading (batch) dimensions: `(..., m, k) @ (..., k, n)`.

        >>> batch_matmul(jnp.ones((5, 2, 3)), jnp.ones((5, 3, 4))).shape
        (5, 2, 4)
    """
    l_aval, r_aval = core.get_aval(lhs), core.get_aval(rhs)
    if min(l_aval.ndim, r_aval.ndim) < 2:
        raise ValueError(f"batch_matmul: arguments must be at least 2D, got {l_aval.str_short()} "
                         f"and {r_aval.str_short()}")
    if l_aval.ndim != r_aval.ndim:
        raise ValueError(f"batch_matmul: arguments must have the same rank, got "
                         f"{l_aval.str_short()} and {r_aval.str_short()}")
    n = l_aval.ndim
    batch = tuple(range(n - 2))
    return dot_general(lhs, rhs, (((n - 1,), (n - 2,)), (batch, batch)), precision=precision)


def composite(decomposition, name: str, version: int = 0):
    """Mark `decomposition` as the composite operation `name`: the decorated function computes
    `decomposition(*args, **attributes)`.

    NB: JAX lowers the call to a `stablehlo.composite` op (its body the decomposition), which a
    backend may replace by a kernel of its own; pyjax inlines the decomposition (on CPU, XLA
    inlines composites too), so results are the same and jaxprs show its operations."""
    if not isinstance(name, str) or not name:
        raise ValueError(f"composite: name must be a non-empty string, got {name!r}")

    @functools.wraps(decomposition)
    def composite_call(*args, **kwargs):
        return decomposition(*args, **kwargs)
    return composite_call


_RAGGED_DOT_DN = RaggedDotDimensionNumbers((((1,), (1,)), ((), ())), (0,), (0,))


def ragged_dot(lhs, rhs, group_sizes, precision=None, preferred_element_type=None,
               group_offset=None, out_sharding=None):
    """Grouped matrix product: `lhs` (m, k) is cut into consecutive row groups of `group_sizes`
    (g,), group i multiplied by `rhs[i]` (k, n); rows past the groups give zeros.

        >>> ragged_dot(jnp.ones((5, 2)), jnp.ones((2, 2, 3)), jnp.array([2, 3])).shape
        (5, 3)
    """
    return ragged_dot_general(lhs, rhs, group_sizes, _RAGGED_DOT_DN, precision,
                              preferred_element_type, group_offset)


def _check_ragged_dot_dimension_numbers(l_aval, r_aval, g_aval, dn) -> None:
    """JAX's TypeErrors (and words) for ragged dimension numbers that do not fit the operands:
    one lhs ragged dimension, in range; group_sizes of shape [the lhs dims before the ragged one
    that lead the result..., g]; an rhs group dimension of size g exactly when the ragged
    dimension is a free (noncontracting) one."""
    def in_range(dim, rank, what, arg):
        if not 0 <= dim < rank:
            raise TypeError(f"ragged_dot_general requires {what} numbers to be nonnegative and less "
                            f"than the number of axes of the {arg} value, got {dim} for {arg} of "
                            f"rank {rank}.")
    if len(dn.lhs_ragged_dimensions) != 1:
        raise TypeError("ragged_dot_general expects exactly one lhs ragged dimension.")
    (lhs_contract, rhs_contract), (lhs_batch, rhs_batch) = dn.dot_dimension_numbers
    ragged = dn.lhs_ragged_dimensions[0]
    in_range(ragged, l_aval.ndim, "lhs ragged dimension", "lhs")
    free = [d for d in range(l_aval.ndim) if d not in lhs_contract and d not in lhs_batch]
    if ragged in lhs_contract:
        mode, prefix = "contracting", list(lhs_batch) + list(lhs_contract[:lhs_contract.index(ragged)])
    elif ragged in lhs_batch:
        mode, prefix = "batch", list(lhs_batch[:lhs_batch.index(ragged)])
    else:
        mode, prefix = "noncontracting", list(lhs_batch) + free[:free.index(ragged)]
    if g_aval.ndim == 0:
        raise TypeError("expected rank of group_sizes to be >=1.")
    if g_aval.ndim != 1:
        expected = tuple(l_aval.shape[d] for d in prefix) + (g_aval.shape[-1],)
        if tuple(g_aval.shape) != expected:
            raise TypeError(f"expected group_sizes to have shape {expected}, got {g_aval.shape}.")
    groups, rhs_groups = g_aval.shape[-1], dn.rhs_group_dimensions
    if mode != "noncontracting":
        if rhs_groups:
            raise TypeError("ragged_dot_general requires zero group dimensions in the rhs when "
                            "lhs ragged dimension is contracting or batch.")
        return
    if len(rhs_groups) != 1:
        raise TypeError("ragged_dot_general requires exactly one rhs group dimension when lhs "
                        "ragged dimension is noncontracting.")
    in_range(rhs_groups[0], r_aval.ndim, "rhs group dimension", "rhs")
    if rhs_groups[0] in rhs_batch or rhs_groups[0] in rhs_contract:
        raise TypeError("ragged_dot_general requires rhs group dimension numbers to be distinct "
                        "from contracting and batch dimensions.")
    if r_aval.shape[rhs_groups[0]] != groups:
        raise TypeError(f"expected rhs group dimension size to be {groups}, got "
                        f"{r_aval.shape[rhs_groups[0]]}.")


def ragged_dot_general(lhs, rhs, group_sizes, ragged_dot_dimension_numbers, precision=None,
                       preferred_element_type=None, group_offset=None, out_sharding=None):
    """`ragged_dot` with explicit dimension numbers.

    NB: pyjax supports the form `ragged_dot` uses (lhs ragged along its rows, rhs grouped along
    its first axis, one contracting dimension, no batch dimensions), computed densely: every
    group's product, masked to its rows (what JAX does on CPU too)."""
    l_aval, r_aval, g_aval = (core.get_aval(x) for x in (lhs, rhs, group_sizes))
    _check_ragged_dot_dimension_numbers(l_aval, r_aval, g_aval, ragged_dot_dimension_numbers)
    if ragged_dot_dimension_numbers != _RAGGED_DOT_DN:
        raise NotImplementedError(f"ragged_dot_general: only the dimension numbers of ragged_dot "
                                  f"are supported, got {ragged_dot_dimension_numbers}")
    if group_offset is not None:
        raise NotImplementedError("ragged_dot_general: group_offset is not supported")
    if l_aval.ndim != 2 or r_aval.ndim != 3 or g_aval.shape != (r_aval.shape[0],) \
            or l_aval.shape[1] != r_aval.shape[1]:
        raise TypeError(f"ragged_dot: expected lhs (m, k), rhs (g, k, n) and group_sizes (g,), got "
                        f"{l_aval.str_short()}, {r_aval.str_short()}, {g_aval.str_short()}")
    prods = dot_general(lhs, rhs, (((1,), (1,)), ((), ())), precision=precision,
                        preferred_element_type=preferred_element_type)  # (m, g, n)
    ends = cumsum(group_sizes, axis=0)
    rows = broadcasted_iota(g_aval.dtype, (l_aval.shape[0], r_aval.shape[0]), 0)
    in_group = bitwise_and(ge(rows, broadcast(sub(ends, group_sizes), (l_aval.shape[0],))),
                           lt(rows, broadcast(ends, (l_aval.shape[0],))))
    mask = _convert_element_type(in_group, core.get_aval(prods).dtype)
    return reduce_sum(mul(prods, broadcast_in_dim(mask, core.get_aval(prods).shape, (0, 1))), (1,))


def _repeat_scale(scale, operand_shape, contracting):
    """Each scale entry repeated over its block of a contracting dimension (`scale.shape[i]`
    blocks of `operand_shape[i] // scale.shape[i]` elements)."""
    for i in contracting:
        s_shape = core.get_aval(scale).shape
        if s_shape[i] == operand_shape[i]:
            continue
        k = operand_shape[i] // s_shape[i]
        wide = s_shape[:i + 1] + (k,) + s_shape[i + 1:]
        scale = broadcast_in_dim(scale, wide, tuple(d if d <= i else d + 1 for d in range(len(s_shape))))
        scale = reshape(scale, s_shape[:i] + (s_shape[i] * k,) + s_shape[i + 1:])
    return scale


def scaled_dot(lhs, rhs, *, lhs_scale=None, rhs_scale=None, dimension_numbers=None,
               preferred_element_type=None):
    """A block-scaled matrix product (the MX formats): each operand, in bfloat16, times its
    scales repeated over blocks of the contracting dimensions, then `dot_general` (result
    bfloat16 unless `preferred_element_type`).

    NB: JAX binds a `scaled_dot` primitive (with no derivative) that it lowers to this same
    computation; pyjax composes it, so it also differentiates."""
    l_aval, r_aval = core.get_aval(lhs), core.get_aval(rhs)
    if dimension_numbers is None:
        if l_aval.ndim < 2:
            raise TypeError("scaled_dot does not support 0-rank and 1-rank operands.")
        n = l_aval.ndim
        dimension_numbers = (((n - 1,), (n - 2,)), (tuple(range(n - 2)), tuple(range(n - 2))))
    (lc, rc), (lb, rb) = dimension_numbers
    out_dt = dtypes.bfloat16 if preferred_element_type is None else preferred_element_type
    out_dt = dtypes.check_and_canonicalize_user_dtype(out_dt, "scaled_dot")

    def scaled(x, aval, scale, contracting, side):
        x = _convert_element_type(x, dtypes.bfloat16)
        if scale is None:
            return x
        s_aval = core.get_aval(scale)
        if s_aval.ndim != aval.ndim:
            raise TypeError(f"scaled_dot: {side}_scale must have the rank of {side}, got "
                            f"{s_aval.str_short()} and {aval.str_short()}")
        for i, (size, s) in enumerate(zip(aval.shape, s_aval.shape)):
            if i in contracting and (size % s or size // s < 2):
                raise TypeError(f"scaled_dot: {side} contracting dim {i} of size {size} must be a "
                                f"multiple (at least 2x) of its scale's dim size {s}")
            if i not in contracting and size != s:
                raise TypeError(f"scaled_dot: {side} dim {i} of size {size} does not match scale "
                                f"dim size {s}")
        scale = _convert_element_type(_repeat_scale(scale, aval.shape, contracting), dtypes.bfloat16)
        return mul(x, scale)
    return dot_general(scaled(lhs, l_aval, lhs_scale, lc, "lhs"), scaled(rhs, r_aval, rhs_scale, rc, "rhs"),
                       ((lc, rc), (lb, rb)), preferred_element_type=out_dt)


def shape_as_value(shape):
    """A shape as a 1-D integer array (int32 unless a dimension needs int64); a NumPy array, as
    in JAX, since pyjax's shapes are always concrete."""
    shape = shape_param(shape, "shape_as_value: shape")
    dt = np.dtype(np.int64) if any(d > np.iinfo(np.int32).max for d in shape) else np.dtype(np.int32)
    if not shape:
        return full((0,), np.array(0, dt))
    return np.asarray(shape, dtype=dt)
