"""Reductions: reduce_sum/prod/max/min/and/or and argmax/argmin. (`dot_general`: dot_general.py.)"""
from __future__ import annotations

from functools import partial

import numpy as np

from pyjax._src import core, dtypes
from pyjax._src.config import config
from pyjax._src.core import ShapedArray
from pyjax._src.interpreters.ad import Zero, jvp_flat, tangent_aval
from pyjax._src.interpreters.batching import out_bdim_after_removing, raw_axes
from pyjax._src.lax import sharding_rules
from pyjax._src.lax.convert import convert_element_type
from pyjax._src.lax.elementwise import div, eq, mul
from pyjax._src.lax.shape_ops import (
    _int_tuple, broadcast_in_dim, pad, reshape, slice_in_dim, squeeze, transpose)
from pyjax._src.lax.utils import (
    ANY, INT_OR_BOOL, NUM, ORDERED, check_dtype, emit_compare, kind, np_dtype_param,
    standard_primitive, zero_derivative)
from pyjax._src.lowering.mlir import i64_array

# -- the reduce_* family -----------------------------------------------------------------------


def _reduce_axes(name, axes, aval) -> tuple:
    """As JAX's lax reductions: distinct axes in [0, ndim) (no negative axes, unlike jnp)."""
    axes = _int_tuple(axes, f"{name}: axes")
    if any(not 0 <= a < aval.ndim for a in axes):
        raise ValueError(f"{name}: axes {axes} are out of bounds for {aval.str_short()} of rank "
                         f"{aval.ndim} (lax reductions take axes in [0, {aval.ndim}))")
    if len(set(axes)) != len(axes):
        raise ValueError(f"{name}: duplicate value in axes {axes}")
    return tuple(sorted(axes))


_HALF_FLOATS = (np.dtype(np.float16), np.dtype(dtypes.bfloat16))


def _reducer(p):
    """The wrapper `lax.reduce_*(operand, axes)` of a family member."""
    # as in JAX, only reduce_sum carries an out_sharding param (printed jaxprs show it)
    params = {"out_sharding": None} if p.name == "reduce_sum" else {}

    def reduce(operand, axes):
        aval = core.get_aval(operand)
        axes = _reduce_axes(p.name, axes, aval)
        if (p.name == "reduce_sum" and aval.dtype in _HALF_FLOATS
                and not config.jax_allow_f16_reductions and any(aval.shape[a] != 1 for a in axes)):
            raise ValueError(f"reduce_sum on operand {aval.str_short(short_dtypes=True)} is not "
                             f"allowed when jax_allow_f16_reductions=False.")  # (JAX's words)
        return p.bind(operand, axes=axes, **params)
    reduce.__name__ = p.name
    reduce.__doc__ = f"`lax.{p.name}(operand, axes)`: reduce over `axes`."
    return reduce


def _reduce_abstract_eval(name, accepted, x, *, axes, out_sharding=None):
    check_dtype(name, x, accepted)
    if any(not 0 <= a < x.ndim for a in axes):
        raise TypeError(f"{name}: axes {axes} out of range for {x.str_short()}")
    return ShapedArray(tuple(s for i, s in enumerate(x.shape) if i not in axes), x.dtype, x.weak_type)


def reduction_identity(name, dtype):
    dt = np.dtype(dtype)
    if name in ("sum", "xor"):
        return np.zeros((), dt)
    if name == "prod":
        return np.ones((), dt)
    if name in ("and", "or"):
        return np.asarray(name == "and" if dt == np.bool_ else (-1 if name == "and" else 0)).astype(dt)
    big = name == "min"
    if dt == np.bool_:
        return np.asarray(big)
    if kind(dt) in "fc":  # complex max/min order lexicographically: (-inf, 0) is below all
        return np.asarray(np.inf if big else -np.inf).astype(dt)
    info = np.iinfo(dt)
    return np.asarray(info.max if big else info.min).astype(dt)


def _reduce_axes_batch(prim, axis_size, args, dims, *, axes, **params):
    """Reduce the same per-example axes of the raw value; the batch axis only shifts."""
    (x,), (d,) = args, dims
    raw = raw_axes(axes, d)
    return prim.bind(x, axes=raw, **params), out_bdim_after_removing(d, raw)


def _reduce_lowering(hlo_op, ident_name, ctx, x, *, axes, out_sharding=None):
    in_aval = ctx.avals_in[0]
    scalar = ShapedArray((), in_aval.dtype)
    init = ctx.const(reduction_identity(ident_name, in_aval.dtype), in_aval.dtype)
    body = ctx.region([scalar, scalar], lambda a, b: [ctx.op(hlo_op, a, b, out=scalar)])
    return ctx.op("stablehlo.reduce", x, init, attrs={"dimensions": i64_array(axes)}, regions=[body])


def _reduce_primitive(name, np_fn, hlo_op, accepted, *, jvp=None, transpose=None):
    """`reduce_{name}`: `np_fn(x, axis=axes)`, lowered to a reduce with the `hlo_op` body and
    `name`'s identity; `jvp`/`transpose` as in `utils.def_derivative`."""
    p = standard_primitive(
        f"reduce_{name}", partial(_reduce_abstract_eval, f"reduce_{name}", accepted),
        lambda x, *, axes, out_sharding=None: np_fn(np.asarray(x), axis=axes),
        partial(_reduce_lowering, hlo_op, name), jvp=jvp, transpose=transpose,
        pure_abstract_eval=True)
    p.def_batch(partial(_reduce_axes_batch, p))
    p.def_sharding_rule(sharding_rules.reduce_axes_rule)
    return p


def _kept_dims(ndim, axes):
    return tuple(d for d in range(ndim) if d not in axes)


def _reduce_sum_transpose(ct, x, *, axes, out_sharding=None):
    if type(ct) is Zero:
        return [None]
    shape = x.aval.shape
    return [broadcast_in_dim(ct, shape, _kept_dims(len(shape), axes))]


def _reduce_chooser_jvp(g, ans, x, *, axes, **params):
    """max/min: the tangent is the mean of the tangents at the positions attaining the extremum."""
    shape = core.get_aval(x).shape
    b = broadcast_in_dim(ans, shape, _kept_dims(len(shape), axes))
    picks = convert_element_type(eq(x, b), core.get_aval(g).dtype)
    counts = reduce_sum(picks, axes)
    return div(reduce_sum(mul(g, picks), axes), counts)


def _prod_tree(x):
    """The product over axis 0 as a balanced tree of `mul`s."""
    n = core.get_aval(x).shape[0]
    while n > 1:
        if n % 2:  # pad with a one to an even length
            x = pad(x, 1, [(0, 1, 0)] + [(0, 0, 0)] * (core.get_aval(x).ndim - 1))
            n += 1
        x = mul(slice_in_dim(x, 0, n // 2), slice_in_dim(x, n // 2, n))
        n //= 2
    return squeeze(x, (0,))


def _reduce_prod_jvp(g, ans, x, *, axes, **params):
    """The JVP of a tree of `mul`s (as JAX does): exact where x has zeros, unlike g * prod / x."""
    aval = core.get_aval(x)
    n = int(np.prod([aval.shape[a] for a in axes], dtype=np.int64))
    if n == 0:
        return Zero(tangent_aval(core.get_aval(ans)))
    kept = _kept_dims(aval.ndim, axes)
    out_shape = tuple(aval.shape[d] for d in kept)

    def to_front(v):  # the reduced axes, flattened, first
        return reshape(transpose(v, axes + kept), (n,) + out_shape)
    _, (t,) = jvp_flat(lambda v: [_prod_tree(v)], [to_front(x)], [to_front(g)])
    return t


reduce_sum_p = _reduce_primitive("sum", np.sum, "stablehlo.add", NUM, transpose=_reduce_sum_transpose)
reduce_prod_p = _reduce_primitive("prod", np.prod, "stablehlo.multiply", NUM, jvp=_reduce_prod_jvp)
reduce_max_p = _reduce_primitive("max", np.max, "stablehlo.maximum", ANY, jvp=_reduce_chooser_jvp)
reduce_min_p = _reduce_primitive("min", np.min, "stablehlo.minimum", ANY, jvp=_reduce_chooser_jvp)
reduce_and_p = _reduce_primitive("and", np.bitwise_and.reduce, "stablehlo.and", INT_OR_BOOL, jvp=zero_derivative)
reduce_or_p = _reduce_primitive("or", np.bitwise_or.reduce, "stablehlo.or", INT_OR_BOOL, jvp=zero_derivative)
reduce_xor_p = _reduce_primitive("xor", np.bitwise_xor.reduce, "stablehlo.xor", INT_OR_BOOL, jvp=zero_derivative)

reduce_sum = _reducer(reduce_sum_p)
reduce_prod = _reducer(reduce_prod_p)
reduce_max = _reducer(reduce_max_p)
reduce_min = _reducer(reduce_min_p)
reduce_and = _reducer(reduce_and_p)
reduce_or = _reducer(reduce_or_p)
reduce_xor = _reducer(reduce_xor_p)

# -- argmax / argmin -----------------------------------------------------------------------------


def argmax(operand, axis, index_dtype):
    """Index of the largest element along `axis` (the first NaN, if any; ties: lowest index)."""
    return argmax_p.bind(operand, **_argminmax_params("argmax", operand, axis, index_dtype))


def argmin(operand, axis, index_dtype):
    return argmin_p.bind(operand, **_argminmax_params("argmin", operand, axis, index_dtype))


def _argminmax_params(name, operand, axis, index_dtype):
    index_dtype = np_dtype_param(index_dtype)
    if kind(index_dtype) not in "iu":
        raise TypeError(f"{name}: index_dtype must be an integer type, got {index_dtype.name}")
    return dict(axes=_reduce_axes(name, (axis,), core.get_aval(operand)), index_dtype=index_dtype)


def _argminmax_abstract_eval(name, x, *, axes, index_dtype):
    check_dtype(name, x, ORDERED)
    if len(axes) != 1 or not 0 <= axes[0] < x.ndim:
        raise TypeError(f"{name}: needs exactly one axis in range for {x.str_short()}, got {axes}")
    if x.shape[axes[0]] == 0:
        raise ValueError(f"{name}: attempt to get {name} of an empty sequence ({x.str_short()})")
    return ShapedArray(tuple(s for i, s in enumerate(x.shape) if i != axes[0]), index_dtype)


def _np_argminmax(np_fn, x, *, axes, index_dtype):
    return np_fn(np.asarray(x), axis=axes[0]).astype(index_dtype)


def _argminmax_lowering(direction, ctx, x, *, axes, index_dtype):
    """A two-operand reduce over (value, index); NaN wins, ties go to the lower index."""
    in_aval, out = ctx.avals_in[0], ctx.avals_out[0]
    val_s, idx_s = ShapedArray((), in_aval.dtype), ShapedArray((), index_dtype)
    bool_s = ShapedArray((), np.bool_)
    idx = ctx.op("stablehlo.iota", out=in_aval.update(dtype=index_dtype), attrs={"iota_dimension": f"{axes[0]} : i64"})
    ident = reduction_identity("max" if direction == "GT" else "min", in_aval.dtype)
    init_v = ctx.const(ident, in_aval.dtype)
    init_i = ctx.const(0, index_dtype)

    def body(av, ai, bv, bi):
        pick_a = emit_compare(ctx, direction, av, bv, val_s, bool_s)
        if kind(in_aval.dtype) == "f":
            a_nan = emit_compare(ctx, "NE", av, av, val_s, bool_s)
            pick_a = ctx.op("stablehlo.or", pick_a, a_nan, out=bool_s)
        eq = emit_compare(ctx, "EQ", av, bv, val_s, bool_s)
        lower = emit_compare(ctx, "LT", ai, bi, idx_s, bool_s)
        tie = ctx.op("stablehlo.and", eq, lower, out=bool_s)
        pick_a = ctx.op("stablehlo.or", pick_a, tie, out=bool_s)
        return [ctx.op("stablehlo.select", pick_a, av, bv, out=val_s),
                ctx.op("stablehlo.select", pick_a, ai, bi, out=idx_s)]

    region = ctx.region([val_s, idx_s, val_s, idx_s], body)
    outs = ctx.op_multi("stablehlo.reduce", x, idx, init_v, init_i,
                        outs=[out.update(dtype=in_aval.dtype), out],
                        attrs={"dimensions": i64_array(axes)}, regions=[region])
    return outs[1]


argmax_p = standard_primitive("argmax", partial(_argminmax_abstract_eval, "argmax"),
                              partial(_np_argminmax, np.argmax), partial(_argminmax_lowering, "GT"),
                              jvp=zero_derivative)
argmin_p = standard_primitive("argmin", partial(_argminmax_abstract_eval, "argmin"),
                              partial(_np_argminmax, np.argmin), partial(_argminmax_lowering, "LT"),
                              jvp=zero_derivative)
argmax_p.def_batch(partial(_reduce_axes_batch, argmax_p))
argmin_p.def_batch(partial(_reduce_axes_batch, argmin_p))
argmax_p.def_sharding_rule(sharding_rules.reduce_axes_rule)
argmin_p.def_sharding_rule(sharding_rules.reduce_axes_rule)
