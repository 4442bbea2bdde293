"""Reductions (reduce_sum/max/min/prod/and/or, argmax/argmin) and `dot_general`."""
from __future__ import annotations

import enum
import operator
from functools import partial

import numpy as np

from pyjax._src import core, dtypes
from pyjax._src.config import config
from pyjax._src.core import ShapedArray
from pyjax._src.dtypes import finfo, itemsize_bits
from pyjax._src.interpreters.batching import out_bdim_after_removing, raw_axes
from pyjax._src.lax.utils import (
    ANY, INT_OR_BOOL, NUM, ORDERED, check_dtype, emit_compare, kind,
    np_dtype_param, standard_primitive)
from pyjax._src.lowering.mlir import i64_array, i64_list

# -- reduce_* ------------------------------------------------------------------------------------


def _reduce_abstract_eval(name, accepted, x, *, axes, out_sharding=None):
    check_dtype(name, x, accepted)
    if any(not 0 <= a < x.ndim for a in axes):
        raise TypeError(f"{name}: axes {axes} out of range for {x.str_short()}")
    return ShapedArray(tuple(s for i, s in enumerate(x.shape) if i not in axes), x.dtype, x.weak_type)


def reduction_identity(name, dtype):
    dt = np.dtype(dtype)
    if name == "sum":
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


def _reduce_lowering(hlo_op, ident_name, ctx, x, *, axes, out_sharding=None):
    in_aval = ctx.avals_in[0]
    scalar = ShapedArray((), in_aval.dtype)
    init = ctx.const(reduction_identity(ident_name, in_aval.dtype), in_aval.dtype)
    body = ctx.region([scalar, scalar], lambda a, b: [ctx.op(hlo_op, a, b, out=scalar)])
    return ctx.op("stablehlo.reduce", x, init, attrs={"dimensions": i64_array(axes)}, regions=[body])


def _reduce_axes_batch(prim, axis_size, args, dims, *, axes, **params):
    """Reduce the same per-example axes of the raw value; the batch axis only shifts."""
    (x,), (d,) = args, dims
    raw = raw_axes(axes, d)
    return prim.bind(x, axes=raw, **params), out_bdim_after_removing(d, raw)


def _reduce_primitive(name, np_fn, hlo_op, ident, accepted):
    p = standard_primitive(
        f"reduce_{name}", partial(_reduce_abstract_eval, f"reduce_{name}", accepted),
        lambda x, *, axes, out_sharding=None: np_fn(np.asarray(x), axis=axes),
        partial(_reduce_lowering, hlo_op, ident))
    p.def_batch(partial(_reduce_axes_batch, p))
    return p


reduce_sum_p = _reduce_primitive("sum", np.sum, "stablehlo.add", "sum", NUM)
reduce_prod_p = _reduce_primitive("prod", np.prod, "stablehlo.multiply", "prod", NUM)
reduce_max_p = _reduce_primitive("max", np.max, "stablehlo.maximum", "max", ANY)
reduce_min_p = _reduce_primitive("min", np.min, "stablehlo.minimum", "min", ANY)
reduce_and_p = _reduce_primitive("and", np.all, "stablehlo.and", "and", INT_OR_BOOL)
reduce_or_p = _reduce_primitive("or", np.any, "stablehlo.or", "or", INT_OR_BOOL)
reduce_and_p.np_impl = lambda x, *, axes, out_sharding=None: np.bitwise_and.reduce(np.asarray(x), axis=axes)
reduce_or_p.np_impl = lambda x, *, axes, out_sharding=None: np.bitwise_or.reduce(np.asarray(x), axis=axes)


def _int_axes(name, axes) -> tuple:
    try:
        return tuple(operator.index(a) for a in axes)
    except TypeError:
        raise TypeError(f"{name}: axes must be a sequence of integers, got {axes!r}") from None


def _reduce_axes(name, axes, aval) -> tuple:
    """As JAX's lax reductions: distinct axes in [0, ndim) (no negative axes, unlike jnp)."""
    axes = _int_axes(name, axes)
    if any(not 0 <= a < aval.ndim for a in axes):
        raise ValueError(f"{name}: axes {axes} are out of bounds for {aval.str_short()} of rank "
                         f"{aval.ndim} (lax reductions take axes in [0, {aval.ndim}))")
    if len(set(axes)) != len(axes):
        raise ValueError(f"{name}: duplicate value in axes {axes}")
    return tuple(sorted(axes))


def _reducer(p):
    # as in JAX, only reduce_sum carries an out_sharding param (printed jaxprs show it)
    params = {"out_sharding": None} if p is reduce_sum_p else {}

    def reduce(operand, axes):
        axes = _reduce_axes(p.name, axes, core.get_aval(operand))
        return p.bind(operand, axes=axes, **params)
    reduce.__name__ = p.name
    reduce.__doc__ = f"`lax.{p.name}(operand, axes)`: reduce over `axes`."
    return reduce


reduce_sum = _reducer(reduce_sum_p)
reduce_prod = _reducer(reduce_prod_p)
reduce_max = _reducer(reduce_max_p)
reduce_min = _reducer(reduce_min_p)
reduce_and = _reducer(reduce_and_p)
reduce_or = _reducer(reduce_or_p)


# -- argmax / argmin -----------------------------------------------------------------------------

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
                              partial(_np_argminmax, np.argmax), partial(_argminmax_lowering, "GT"))
argmin_p = standard_primitive("argmin", partial(_argminmax_abstract_eval, "argmin"),
                              partial(_np_argminmax, np.argmin), partial(_argminmax_lowering, "LT"))
argmax_p.def_batch(partial(_reduce_axes_batch, argmax_p))
argmin_p.def_batch(partial(_reduce_axes_batch, argmin_p))


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


# -- dot_general -----------------------------------------------------------------------------------

def _dot_general_abstract_eval(lhs, rhs, *, dimension_numbers, precision, preferred_element_type,
                               out_sharding=None):
    (lc, rc), (lb, rb) = dimension_numbers
    if kind(lhs.dtype) == "b" or kind(rhs.dtype) == "b":
        pass  # bool dots are allowed (logical and/or), as in XLA
    if len(lc) != len(rc) or len(lb) != len(rb):
        raise TypeError(f"dot_general: contracting/batch dimension lists must have equal lengths, "
                        f"got {dimension_numbers}")
    for dims, a, side in ((lc + lb, lhs, "lhs"), (rc + rb, rhs, "rhs")):
        if any(not 0 <= d < a.ndim for d in dims) or len(set(dims)) != len(dims):
            raise TypeError(f"dot_general: invalid dimensions {dims} for {side} {a.str_short()}")
    for l, r in zip(lc, rc):
        if lhs.shape[l] != rhs.shape[r]:
            raise TypeError(f"dot_general: contracting dimensions differ: {lhs.str_short()} (dim {l}) "
                            f"vs {rhs.str_short()} (dim {r})")
    for l, r in zip(lb, rb):
        if lhs.shape[l] != rhs.shape[r]:
            raise TypeError(f"dot_general: batch dimensions differ: {lhs.str_short()} (dim {l}) "
                            f"vs {rhs.str_short()} (dim {r})")
    batch = tuple(lhs.shape[d] for d in lb)
    lfree = tuple(s for i, s in enumerate(lhs.shape) if i not in lc and i not in lb)
    rfree = tuple(s for i, s in enumerate(rhs.shape) if i not in rc and i not in rb)
    dt = _dot_result_dtype(lhs, rhs, preferred_element_type)
    return ShapedArray(batch + lfree + rfree, dt, lhs.weak_type and rhs.weak_type)


def _real_part_dtype(dt):
    return np.dtype({"complex64": np.float32, "complex128": np.float64}.get(np.dtype(dt).name, dt))


def _bit_width(dt):
    """Bits of one element, of the real part for complex types (XLA's measure)."""
    return 1 if dt == np.bool_ else itemsize_bits(_real_part_dtype(dt))


def _precision_rank(dt):
    """How XLA orders element types when a dot mixes two (its "higher precision type"):
    complex over real, then exponent range, mantissa, bit width, signed over unsigned."""
    real = _real_part_dtype(dt)
    fi = finfo(real) if kind(real) == "f" else None
    return (kind(dt) == "c", fi.maxexp if fi else -1, fi.nmant if fi else -1, _bit_width(dt),
            kind(real) != "u")


def _dot_result_dtype(lhs, rhs, preferred_element_type):
    """As XLA (and JAX): operands may differ in dtype; the result has the more precise one,
    or `preferred_element_type` (an integer one may not be narrower)."""
    if lhs.dtype == rhs.dtype:
        dt = lhs.dtype
    else:
        lrank, rrank = _precision_rank(lhs.dtype), _precision_rank(rhs.dtype)
        if lrank == rrank:
            raise TypeError(f"dot_general: operand dtypes {lhs.str_short()} and "
                            f"{rhs.str_short()} have no common type")
        dt = lhs.dtype if lrank > rrank else rhs.dtype
    pet = preferred_element_type
    if pet is None or pet == dt:
        return dt
    if kind(dt) != "f" and _bit_width(pet) < _bit_width(dt):
        raise TypeError(f"dot_general: preferred_element_type {np.dtype(pet).name} is narrower "
                        f"than the result type {np.dtype(dt).name}")
    return pet


def _np_dot_general(lhs, rhs, *, dimension_numbers, precision, preferred_element_type, out_sharding=None):
    (lc, rc), (lb, rb) = dimension_numbers
    lhs, rhs = np.asarray(lhs), np.asarray(rhs)
    letters = iter("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ")
    ls = [next(letters) for _ in range(lhs.ndim)]
    rs = [next(letters) for _ in range(rhs.ndim)]
    for l, r in zip(lc + lb, rc + rb):
        rs[r] = ls[l]
    out = [ls[d] for d in lb] + [ls[i] for i in range(lhs.ndim) if i not in lc and i not in lb] + \
          [rs[i] for i in range(rhs.ndim) if i not in rc and i not in rb]
    dt = _dot_result_dtype(core.get_aval(lhs), core.get_aval(rhs), preferred_element_type)
    return np.einsum(f"{''.join(ls)},{''.join(rs)}->{''.join(out)}", lhs.astype(dt), rhs.astype(dt))


def _dot_general_lowering(ctx, lhs, rhs, *, dimension_numbers, precision, preferred_element_type,
                          out_sharding=None):
    (lc, rc), (lb, rb) = dimension_numbers
    l_aval, r_aval = ctx.avals_in
    out = ctx.avals_out[0]
    if l_aval.dtype != r_aval.dtype:
        # XLA's CPU and GPU code generators want one operand type: compute in the result's
        # (equal operand types stay as they are, e.g. bf16 x bf16 accumulating in f32)
        lhs = ctx.convert(lhs, l_aval, out.dtype)
        rhs = ctx.convert(rhs, r_aval, out.dtype)
    dn = (f"#stablehlo.dot<lhs_batching_dimensions = {i64_list(lb)}, rhs_batching_dimensions = "
          f"{i64_list(rb)}, lhs_contracting_dimensions = {i64_list(lc)}, rhs_contracting_dimensions "
          f"= {i64_list(rc)}>")
    p = precision or (Precision.DEFAULT, Precision.DEFAULT)  # canonical: a pair of Precisions
    prec = "[" + ", ".join(f"#stablehlo<precision {x.name}>" for x in p) + "]"
    return ctx.op("stablehlo.dot_general", lhs, rhs,
                  attrs={"dot_dimension_numbers": dn, "precision_config": prec})


dot_general_p = standard_primitive("dot_general", _dot_general_abstract_eval, _np_dot_general,
                                   _dot_general_lowering)


def _dot_general_batch(axis_size, args, dims, *, dimension_numbers, **params):
    """Both operands batched: their batch axes become the leading batch dimension. One batched:
    its batch axis is a free dimension, so it appears in the result where free dims go."""
    (lhs, rhs), (ld, rd) = args, dims
    (lc, rc), (lb, rb) = dimension_numbers
    lc, lb, rc, rb = raw_axes(lc, ld), raw_axes(lb, ld), raw_axes(rc, rd), raw_axes(rb, rd)
    if ld is not None and rd is not None:
        dn, out_d = ((lc, rc), ((ld,) + lb, (rd,) + rb)), 0
    elif ld is not None:
        lhs_free = [i for i in range(core.get_aval(lhs).ndim) if i not in lc + lb]
        dn, out_d = ((lc, rc), (lb, rb)), len(lb) + lhs_free.index(ld)
    else:
        n_lhs_free = core.get_aval(lhs).ndim - len(lc) - len(lb)
        rhs_free = [i for i in range(core.get_aval(rhs).ndim) if i not in rc + rb]
        dn, out_d = ((lc, rc), (lb, rb)), len(lb) + n_lhs_free + rhs_free.index(rd)
    return dot_general_p.bind(lhs, rhs, dimension_numbers=dn, **params), out_d


dot_general_p.def_batch(_dot_general_batch)


class Precision(enum.Enum):
    """How precisely a matrix product of float32 values is computed on accelerators (CPU always
    computes in float32): DEFAULT (fastest), HIGH, HIGHEST. Strings name them too:
    'default'/'fastest'/'bfloat16', 'high'/'tensorfloat32'/'bfloat16_3x', 'highest'/'float32'.

    >>> lax.dot(a, b, precision=lax.Precision.HIGHEST)
    """
    DEFAULT = 0
    HIGH = 1
    HIGHEST = 2

    @classmethod
    def _missing_(cls, value):
        return _PRECISION_STRINGS.get(value)

    def __repr__(self):
        return f"Precision.{self.name}"  # as JAX prints it in jaxprs

    def __str__(self):
        return self.name


_PRECISION_STRINGS = {
    "highest": Precision.HIGHEST, "float32": Precision.HIGHEST,
    "high": Precision.HIGH, "bfloat16_3x": Precision.HIGH, "tensorfloat32": Precision.HIGH,
    "default": Precision.DEFAULT, "bfloat16": Precision.DEFAULT, "fastest": Precision.DEFAULT,
}


def _one_precision(p):
    if isinstance(p, Precision):
        return p
    return _PRECISION_STRINGS.get(p) if isinstance(p, str) else None


def canonicalize_precision(precision):
    """None (or the `jax_default_matmul_precision` setting), or a (lhs, rhs) pair of Precisions,
    the one form the primitive's parameter takes (one jit cache key per meaning).

    NB: JAX's DotAlgorithm / DotAlgorithmPreset are not supported.
    """
    if precision is None:
        default = config.jax_default_matmul_precision
        if default is None:
            return None
        try:
            return canonicalize_precision(default)
        except ValueError:
            raise ValueError(f"jax_default_matmul_precision must be None or one of "
                             f"{list(_PRECISION_STRINGS)}, got {default!r}") from None
    one = _one_precision(precision)
    if one is not None:
        return one, one
    if isinstance(precision, (tuple, list)) and len(precision) == 2:
        pair = tuple(_one_precision(p) for p in precision)
        if None not in pair:
            return pair
    raise ValueError(f"precision must be None, a lax.Precision, one of the strings "
                     f"{list(_PRECISION_STRINGS)}, or a pair of these (one per operand); "
                     f"got {precision!r}")


def dot_general(lhs, rhs, dimension_numbers, precision=None, preferred_element_type=None,
                out_sharding=None):
    """General tensor contraction: `dimension_numbers = ((lhs_contract, rhs_contract),
    (lhs_batch, rhs_batch))`; the result is batch dims, then lhs free dims, then rhs free dims."""
    (lc, rc), (lb, rb) = dimension_numbers
    dn = ((_int_axes("dot_general", lc), _int_axes("dot_general", rc)),
          (_int_axes("dot_general", lb), _int_axes("dot_general", rb)))
    pet = None if preferred_element_type is None else np_dtype_param(preferred_element_type)
    return dot_general_p.bind(lhs, rhs, dimension_numbers=dn, precision=canonicalize_precision(precision),
                              preferred_element_type=pet)


def dot(lhs, rhs, precision=None, preferred_element_type=None, out_sharding=None):
    """Vector/matrix dot product: contracts the last axis of `lhs` with the first of `rhs`."""
    la, ra = core.get_aval(lhs), core.get_aval(rhs)
    if la.ndim not in (1, 2) or ra.ndim not in (1, 2) or la.shape[-1] != ra.shape[0]:
        raise ValueError(f"dot: operands must be vectors or matrices with lhs.shape[-1] == "
                         f"rhs.shape[0], got {la.str_short()} and {ra.str_short()} (use "
                         f"lax.dot_general for other contractions)")
    return dot_general(lhs, rhs, (((la.ndim - 1,), (0,)), ((), ())), precision, preferred_element_type)


del dtypes


# -- differentiation rules -----------------------------------------------------------------------

from pyjax._src.interpreters import ad as _ad  # noqa: E402
from pyjax._src.interpreters.ad import Zero as _Zero, deflinear  # noqa: E402
from pyjax._src.lax import elementwise as _elt  # noqa: E402
from pyjax._src.lax import shape_ops as _shape  # noqa: E402


def _kept_dims(ndim, axes):
    return tuple(d for d in range(ndim) if d not in axes)


def _reduce_sum_transpose(ct, x, *, axes, out_sharding=None):
    if type(ct) is _Zero:
        return [None]
    shape = x.aval.shape
    return [_shape.broadcast_in_dim(ct, shape, _kept_dims(len(shape), axes))]


deflinear(reduce_sum_p, _reduce_sum_transpose)


def _zero_tangent_rule(prim):
    def rule(primals, tangents, **params):
        ans = prim.bind(*primals, **params)
        return ans, _Zero(_ad.tangent_aval(core.get_aval(ans)))
    prim.def_jvp(rule)


for _p in (reduce_and_p, reduce_or_p, argmax_p, argmin_p):
    _zero_tangent_rule(_p)


def _reduce_chooser_jvp(prim):
    """max/min: the tangent is the mean of the tangents at the positions attaining the extremum."""
    def rule(primals, tangents, *, axes, **params):
        (x,), (g,) = primals, tangents
        ans = prim.bind(x, axes=axes, **params)
        shape = core.get_aval(x).shape
        b = _shape.broadcast_in_dim(ans, shape, _kept_dims(len(shape), axes))
        picks = _elt.convert_element_type(_elt.eq(x, b), core.get_aval(g).dtype)
        counts = reduce_sum(picks, axes)
        return ans, _elt.div(reduce_sum(_elt.mul(g, picks), axes), counts)
    prim.def_jvp(rule)


_reduce_chooser_jvp(reduce_max_p)
_reduce_chooser_jvp(reduce_min_p)


def _prod_tree(x):
    """The product over axis 0 as a balanced tree of `mul`s."""
    n = core.get_aval(x).shape[0]
    while n > 1:
        if n % 2:  # pad with a one to an even length
            x = _shape.pad(x, 1, [(0, 1, 0)] + [(0, 0, 0)] * (core.get_aval(x).ndim - 1))
            n += 1
        x = _elt.mul(_shape.slice_in_dim(x, 0, n // 2), _shape.slice_in_dim(x, n // 2, n))
        n //= 2
    return _shape.squeeze(x, (0,))


def _reduce_prod_jvp(primals, tangents, *, axes, **params):
    # The JVP of a tree of `mul`s (as JAX does): exact where x has zeros, unlike g * prod / x.
    (x,), (g,) = primals, tangents
    aval = core.get_aval(x)
    ans = reduce_prod_p.bind(x, axes=axes, **params)
    n = int(np.prod([aval.shape[a] for a in axes], dtype=np.int64))
    if n == 0:
        return ans, _Zero(_ad.tangent_aval(core.get_aval(ans)))
    kept = _kept_dims(aval.ndim, axes)
    out_shape = tuple(aval.shape[d] for d in kept)

    def to_front(v):  # the reduced axes, flattened, first
        return _shape.reshape(_shape.transpose(v, axes + kept), (n,) + out_shape)
    _, (t,) = _ad.jvp_flat(lambda v: [_prod_tree(v)], [to_front(x)], [to_front(g)])
    return ans, t


reduce_prod_p.def_jvp(_reduce_prod_jvp)


def _dot_general_jvp(primals, tangents, **params):
    x, y = primals
    tx, ty = tangents
    ans = dot_general_p.bind(x, y, **params)
    out = _Zero(_ad.tangent_aval(core.get_aval(ans)))
    if type(tx) is not _Zero:
        out = _ad.add_tangents(out, dot_general_p.bind(tx, y, **params))
    if type(ty) is not _Zero:
        out = _ad.add_tangents(out, dot_general_p.bind(x, ty, **params))
    return ans, out


def _ranges_like(*xs):
    start = 0
    for x in xs:
        yield tuple(range(start, start + len(x)))
        start += len(x)


def _dot_transpose_operand(ct, other, other_aval, x_aval, x_contract, x_batch, o_contract, o_batch,
                           precision, x_is_lhs):
    """Cotangent of one dot_general operand `x` given the other operand."""
    nb = len(x_batch)
    x_free = [d for d in range(x_aval.ndim) if d not in x_contract and d not in x_batch]
    o_free = [d for d in range(other_aval.ndim) if d not in o_contract and d not in o_batch]
    n_xfree, n_ofree = len(x_free), len(o_free)
    # ct dims: batch, then lhs free, then rhs free
    if x_is_lhs:
        ct_other_free = tuple(range(nb + n_xfree, nb + n_xfree + n_ofree))
    else:
        ct_other_free = tuple(range(nb, nb + n_ofree))
    dn = ((ct_other_free, tuple(o_free)), (tuple(range(nb)), tuple(o_batch)))
    out = dot_general(ct, other, dn, precision)
    # out dims: batch, ct's remaining (x free), other's remaining dims (o_contract, increasing)
    o_rest = sorted(o_contract)
    x_of_o = {o: x for x, o in zip(x_contract, o_contract)}
    out_to_x = list(x_batch) + x_free + [x_of_o[o] for o in o_rest]
    out = _shape.transpose(out, [out_to_x.index(d) for d in range(x_aval.ndim)])
    if core.get_aval(out).dtype != x_aval.dtype:
        out = _elt.convert_element_type(out, x_aval.dtype)
    return out


def _dot_general_transpose(ct, x, y, *, dimension_numbers, precision, preferred_element_type,
                           out_sharding=None):
    if type(ct) is _Zero:
        return [None, None]
    (lc, rc), (lb, rb) = dimension_numbers
    if _ad.is_undefined_primal(x):
        y_aval = core.get_aval(y)
        return [_dot_transpose_operand(ct, y, y_aval, x.aval, lc, lb, rc, rb, precision, True), None]
    x_aval = core.get_aval(x)
    return [None, _dot_transpose_operand(ct, x, x_aval, y.aval, rc, rb, lc, lb, precision, False)]


dot_general_p.def_jvp(_dot_general_jvp)
dot_general_p.def_transpose(_dot_general_transpose)
