"""Elementwise lax primitives: arithmetic, comparisons, bit operations, `select_n`, `clamp`,
complex numbers, unary math and binary math (`pow`, `atan2`, `rem`, `max`...).

Each family member is one line through a factory in `utils`, its derivative included; the
public wrappers follow `jax.lax` signatures (Python scalars take the dtype of the array operands:
`convert.lax_operands`). Arithmetic comes first: the other sections' rules are written with it.
"""
from __future__ import annotations

import operator
from functools import partial

import numpy as np

from pyjax._src import core
from pyjax._src.core import ShapedArray
from pyjax._src.interpreters import ad, batching
from pyjax._src.interpreters.ad import Zero, defjvp, deflinear, unbroadcast_ct
from pyjax._src.interpreters.array_ops import lax_ops
# (_convert_element_type and bitcast_convert_type are here too for the modules that reach every
# elementwise op through this one)
from pyjax._src.lax import sharding_rules
from pyjax._src.lax.convert import (  # noqa: F401
    _PY_SCALARS, _convert_element_type, _weak_const, bitcast_convert_type, convert_element_type,
    lax_operands, real_dtype)
from pyjax._src.lax.utils import (
    ANY, COMPLEX, FLOAT, INEXACT, INT, INT_OR_BOOL, NUM, ORDERED, _naryop_abstract_eval,
    _simple_lowering, binop, broadcast_operands, broadcast_scalars_shape, check_dtype,
    check_same_dtypes, compareop, emit_compare, kind, standard_primitive, unop, zero_derivative)

# -- helpers for reference implementations and rules -----------------------------------------


def _sps():
    """scipy.special for reference implementations, imported on first use: scipy is a test
    dependency, not a runtime one (NB: the one import inside a function here, and no cycle)."""
    import scipy.special
    return scipy.special


def _const(x, value):
    """A scalar of `x`'s dtype (weak, so it broadcasts in lax ops)."""
    return _weak_const(value, core.get_aval(x).dtype)


def _jvp_const(x, value):
    """A constant factor of a JVP rule, as JAX's `lax._const`: a weak scalar only when `x` is a
    weak scalar, otherwise strong, so the tangent of a weak array through such a rule (square,
    sqrt, integer_pow, erf...) is strong, as in JAX. (Rules that JAX writes with `_one(x)`, which
    keeps x's weak type, use `_const`.)"""
    aval = core.get_aval(x)
    if aval.weak_type and not aval.ndim:
        return _weak_const(value, aval.dtype)
    return np.asarray(value, aval.dtype)


def _full_like(x, value):
    """`value` with `x`'s dtype and shape (`select_n` needs cases of equal shapes). shape_ops.py
    builds on this module, so broadcasting goes through the interpreters' `lax_ops` slot."""
    shape = core.get_aval(x).shape
    c = _const(x, value)
    return lax_ops.broadcast_in_dim(c, shape, ()) if shape else c


def _brcast(g, ans):
    """Broadcast a tangent of a rank-0 or size-1-stretched operand to the result's shape."""
    ga, aa = core.get_aval(g), core.get_aval(ans)
    if ga.shape == aa.shape:
        return g
    return lax_ops.broadcast_in_dim(g, aa.shape, tuple(range(aa.ndim)) if ga.ndim else ())


def _replace_zero(x):
    """`x` with its zeros replaced by ones (keeps log/div finite where a select masks them)."""
    return select_n(eq(x, _const(x, 0)), x, _full_like(x, 1))


def _transpose_binary(f):
    """Transpose of an elementwise op linear in both operands, unbroadcasting each ct."""
    def rule(ct, x, y):
        ct_x, ct_y = f(ct)
        return [unbroadcast_ct(ct_x, x.aval) if ad.is_undefined_primal(x) else None,
                unbroadcast_ct(ct_y, y.aval) if ad.is_undefined_primal(y) else None]
    return rule


def _unary(p):
    def f(x):
        return p.bind(x)
    f.__name__ = p.name
    f.__doc__ = f"Elementwise `{p.name}`: `lax.{p.name}(x)`."
    return f


def _binary(p):
    def f(x, y):
        if type(x) in _PY_SCALARS or type(y) in _PY_SCALARS:
            x, y = lax_operands(x, y)
        return p.bind(x, y)
    f.__name__ = p.name
    f.__doc__ = f"Elementwise `{p.name}` of two operands of the same dtype: `lax.{p.name}(x, y)`."
    return f


# -- arithmetic ------------------------------------------------------------------------------


def _np_div(x, y):
    if np.issubdtype(np.asarray(x).dtype, np.integer):
        return np.trunc(np.true_divide(x, y)).astype(np.asarray(x).dtype)  # C-style division
    return np.true_divide(x, y)


def _mul_transpose(ct, x, y):
    if type(ct) is Zero:
        return [None, None]
    if ad.is_undefined_primal(x):
        return [unbroadcast_ct(mul(ct, y), x.aval), None]
    return [None, unbroadcast_ct(mul(x, ct), y.aval)]


def _div_transpose(ct, x, y):
    if type(ct) is Zero:
        return [None, None]
    return [unbroadcast_ct(div(ct, y), x.aval), None]


neg_p = unop("neg", np.negative, "stablehlo.negate", NUM, transpose=lambda ct, x: [neg(ct)])
add_p = binop("add", np.add, "stablehlo.add", transpose=_transpose_binary(lambda ct: (ct, ct)))
sub_p = binop("sub", np.subtract, "stablehlo.subtract",
              transpose=_transpose_binary(lambda ct: (ct, neg(ct) if type(ct) is not Zero else ct)))
mul_p = binop("mul", np.multiply, "stablehlo.multiply",
              jvp=(lambda g, ans, x, y: mul(g, y), lambda g, ans, x, y: mul(x, g)), transpose=_mul_transpose)
div_p = binop("div", _np_div, "stablehlo.divide",
              # (the denominator's term as JAX 0.10.2 computes it, so gradients round as JAX's)
              jvp=(lambda g, ans, x, y: div(g, y),
                   lambda g, ans, x, y: mul(mul(neg(g), x), integer_pow(y, -2))),
              transpose=_div_transpose)

neg = _unary(neg_p)
add = _binary(add_p)
sub = _binary(sub_p)
_mul = _binary(mul_p)


def mul(x, y, *, out_dtype=None):
    """Elementwise product of two operands of the same dtype: `lax.mul(x, y)`. With `out_dtype`,
    the operands (of any dtypes) are converted to it first and the product has that dtype.

    NB: JAX's mul equation carries `out_dtype` (`mul[out_dtype=float32]`); pyjax's jaxpr shows the
    conversions and a plain mul, which compute the same values."""
    if out_dtype is None:
        return _mul(x, y)
    out_dtype = np.dtype(out_dtype)
    return _mul(_convert_element_type(x, out_dtype, False), _convert_element_type(y, out_dtype, False))
div = _binary(div_p)

# -- integer_pow: `x ** y` for a static int y ---------------------------------------------------

integer_pow_p = standard_primitive("integer_pow", pure_abstract_eval=True)


def integer_pow(x, y):
    """`x ** y` for a static Python int `y`, as repeated multiplication."""
    try:
        y = operator.index(y)
    except TypeError:
        raise TypeError(f"integer_pow: the exponent y must be a static integer, got {y!r} of type "
                        f"{type(y).__name__} (use lax.pow for other exponents)") from None
    return integer_pow_p.bind(x, y=y)


def _square_lowering(ctx, x):
    if kind(ctx.avals_in[0].dtype) in "iu":
        return ctx.op("stablehlo.multiply", x, x)
    return ctx.op("chlo.square", x)  # complex: accurate where x * x would cancel


square_p = unop("square", np.square, None, NUM, lowering=_square_lowering,
                jvp=lambda g, ans, x: mul(g, mul(_jvp_const(x, 2), x)))


def square(x):
    """Elementwise `x * x`."""
    return square_p.bind(x)


def reciprocal(x):
    return integer_pow(x, -1)


@integer_pow_p.def_abstract_eval
def _integer_pow_abstract_eval(x, *, y):
    check_dtype("integer_pow", x, NUM)
    if y < 0 and kind(x.dtype) in "iu":
        raise TypeError(f"integer_pow: negative exponent {y} for integer operand {x.str_short()}")
    return x


integer_pow_p.np_impl = lambda x, *, y: np.power(x, y)


def _integer_pow_jvp(g, ans, x, *, y):
    if y == 0:
        return mul(g, _const(x, 0))
    if y == 1:
        return g
    return mul(g, mul(_jvp_const(x, y), x if y == 2 else integer_pow(x, y - 1)))


defjvp(integer_pow_p, _integer_pow_jvp)
batching.defvectorized(integer_pow_p)


@integer_pow_p.def_lowering
def _integer_pow_lowering(ctx, x, *, y):
    aval = ctx.avals_in[0]
    if y == 0:
        return ctx.const(1, aval.dtype, aval.shape)
    acc, base, n = None, x, -y if y < 0 else y  # (this module's `abs` is lax.abs)
    while n:  # square-and-multiply
        if n & 1:
            acc = base if acc is None else ctx.op("stablehlo.multiply", acc, base)
        n >>= 1
        if n:
            base = ctx.op("stablehlo.multiply", base, base)
    if y < 0:
        acc = ctx.op("stablehlo.divide", ctx.const(1, aval.dtype, aval.shape), acc)
    return acc


# -- comparisons (a zero derivative: see utils.compareop) ---------------------------------------

eq_p = compareop("eq", np.equal, "EQ", ANY)
ne_p = compareop("ne", np.not_equal, "NE", ANY)
lt_p = compareop("lt", np.less, "LT")
le_p = compareop("le", np.less_equal, "LE")
gt_p = compareop("gt", np.greater, "GT")
ge_p = compareop("ge", np.greater_equal, "GE")



def _np_total_order_key(x):
    """Integers that order floats as XLA's TOTALORDER comparison does (the sign-magnitude bits
    of a negative float flipped, so -NaN < -inf < -0 < +0 < inf < NaN); other dtypes as they are."""
    x = np.asarray(x)
    if kind(x.dtype) != "f":
        return x
    i = x.view(np.dtype(f"i{x.dtype.itemsize}")).astype(np.int64)
    return np.where(i < 0, ~i + np.int64(np.iinfo(np.dtype(f"i{x.dtype.itemsize}")).min), i)


def _np_total_order(np_fn):
    return lambda x, y: np_fn(_np_total_order_key(x), _np_total_order_key(y))


# the total-order comparisons (JAX's `eq_to`, `le_to`, `lt_to`: no public wrappers).
# NB: eq_to refuses complex operands (JAX's accepts them, but XLA has no total order on complex)
eq_to_p = compareop("eq_to", _np_total_order(np.equal), "EQ", total_order=True)
le_to_p = compareop("le_to", _np_total_order(np.less_equal), "LE", total_order=True)
lt_to_p = compareop("lt_to", _np_total_order(np.less), "LT", total_order=True)

eq = _binary(eq_p)
ne = _binary(ne_p)
lt = _binary(lt_p)
le = _binary(le_p)
gt = _binary(gt_p)
ge = _binary(ge_p)

# -- bit operations ------------------------------------------------------------------------------


def _np_unsigned_view(x):
    x = np.asarray(x)
    return x.view(np.dtype(f"u{x.dtype.itemsize}")), x.dtype.itemsize * 8


def _np_population_count(x):
    u, bits = _np_unsigned_view(x)
    return sum(((u >> i) & 1).astype(np.asarray(x).dtype) for i in range(bits))


def _np_clz(x):
    u, bits = _np_unsigned_view(x)
    width = np.zeros(u.shape, np.int64)  # bit length
    for i in range(bits):
        width = np.where((u >> i) & 1, i + 1, width)
    return (bits - width).astype(np.asarray(x).dtype)


def _np_shift(np_fn, view_kind, x, y):
    """A shift of `x` viewed as `view_kind` ints; shifts outside [0, bits) give 0, as in XLA."""
    x = np.asarray(x)
    v = x.view(np.dtype(f"{view_kind}{x.dtype.itemsize}"))
    y = np.asarray(y).astype(np.int64)
    ok = (y >= 0) & (y < x.dtype.itemsize * 8)
    return np.where(ok, np_fn(v, np.where(ok, y, 0).astype(v.dtype)), 0).astype(v.dtype).view(x.dtype)


def _np_shift_right_arithmetic(x, y):
    x = np.asarray(x)
    i = x.view(np.dtype(f"i{x.dtype.itemsize}"))  # sign-extends unsigned operands too, as XLA
    bits = x.dtype.itemsize * 8
    shift = np.minimum(np.asarray(y).astype(np.int64), bits - 1)
    return np.right_shift(i, np.where(shift < 0, bits - 1, shift).astype(i.dtype)).view(x.dtype)


not_p = unop("not", np.invert, "stablehlo.not", INT_OR_BOOL, jvp=zero_derivative)
and_p = binop("and", np.bitwise_and, "stablehlo.and", INT_OR_BOOL, jvp=zero_derivative)
or_p = binop("or", np.bitwise_or, "stablehlo.or", INT_OR_BOOL, jvp=zero_derivative)
xor_p = binop("xor", np.bitwise_xor, "stablehlo.xor", INT_OR_BOOL, jvp=zero_derivative)
population_count_p = unop("population_count", _np_population_count, "stablehlo.popcnt", INT, jvp=zero_derivative)
clz_p = unop("clz", _np_clz, "stablehlo.count_leading_zeros", INT, jvp=zero_derivative)
shift_left_p = binop("shift_left", partial(_np_shift, np.left_shift, "u"), "stablehlo.shift_left", INT,
                     jvp=zero_derivative)
shift_right_logical_p = binop("shift_right_logical", partial(_np_shift, np.right_shift, "u"),
                              "stablehlo.shift_right_logical", INT, jvp=zero_derivative)
shift_right_arithmetic_p = binop("shift_right_arithmetic", _np_shift_right_arithmetic,
                                 "stablehlo.shift_right_arithmetic", INT, jvp=zero_derivative)

bitwise_not = _unary(not_p)
bitwise_and = _binary(and_p)
bitwise_or = _binary(or_p)
bitwise_xor = _binary(xor_p)
population_count = _unary(population_count_p)
clz = _unary(clz_p)
shift_left = _binary(shift_left_p)
shift_right_logical = _binary(shift_right_logical_p)
shift_right_arithmetic = _binary(shift_right_arithmetic_p)

# -- select_n ------------------------------------------------------------------------------------

select_n_p = standard_primitive("select_n", pure_abstract_eval=True)
select_n_p.def_sharding_rule(sharding_rules.broadcasting("select_n"))


def select_n(which, *cases):
    """Pick, elementwise, `cases[which]`; a bool `which` picks between two cases."""
    if not cases:
        raise ValueError("select_n: at least one case is required")
    return select_n_p.bind(which, *cases)


def select(pred, on_true, on_false):
    """`on_true` where `pred` else `on_false` (JAX's classic select)."""
    return select_n_p.bind(pred, on_false, on_true)


@select_n_p.def_abstract_eval
def _select_n_abstract_eval(which, *cases):
    if not cases:
        raise TypeError("select_n: at least one case is required")
    if which.dtype != np.bool_ and kind(which.dtype) not in "iu":
        raise TypeError(f"select_n: the predicate must be bool or int32, got {which.str_short()}")
    if which.dtype == np.bool_ and len(cases) > 2:
        raise TypeError(f"select_n: a bool predicate selects between at most 2 cases, got {len(cases)}")
    check_same_dtypes("select_n", cases)
    if any(c.shape != cases[0].shape for c in cases):
        raise TypeError(f"select_n: cases must have the same shape, got "
                        f"{', '.join(c.str_short() for c in cases)}")
    if which.shape and which.shape != cases[0].shape:
        raise TypeError(f"select_n: the predicate must be scalar or have the cases' shape, got "
                        f"{which.str_short()} for cases of shape {cases[0].shape}")
    return cases[0].update(weak_type=all(c.weak_type for c in cases))


def _np_select_n(which, *cases):
    return np.choose(np.asarray(which).astype(np.int64), cases) if len(cases) > 1 else cases[0]


select_n_p.np_impl = _np_select_n


@select_n_p.def_jvp
def _select_n_jvp(primals, tangents):
    which, *cases = primals
    ans = select_n(which, *cases)
    case_ts = tangents[1:]
    if all(type(t) is Zero for t in case_ts):
        return ans, Zero(ad.tangent_aval(core.get_aval(ans)))
    return ans, select_n(which, *[ad.instantiate(t) for t in case_ts])


@select_n_p.def_transpose
def _select_n_transpose(ct, which, *cases):
    if type(ct) is Zero:
        return [None] * (1 + len(cases))
    zeros = _full_like(ct, 0)
    out = [None]
    for i, c in enumerate(cases):
        if ad.is_undefined_primal(c):
            out.append(select_n(which, *[ct if j == i else zeros for j in range(len(cases))]))
        else:
            out.append(None)
    return out


@select_n_p.def_batch
def _select_n_batch(axis_size, args, dims):
    """Cases must have equal shapes, so unbatched cases are broadcast; a scalar predicate stays
    scalar unless it is batched (then it is broadcast to the cases' shape)."""
    (which, *cases), (wd, *cds) = args, dims
    shape = batching.per_example_shape(cases[0], cds[0])
    w_full = len(batching.per_example_shape(which, wd)) == len(shape)
    out_dim = next((d for d in cds if d is not None), wd if wd is not None and w_full else 0)
    cases = [batching.full_rank(c, d, axis_size, out_dim, shape) for c, d in zip(cases, cds, strict=True)]
    if wd is not None or w_full:
        which = batching.full_rank(which, wd, axis_size, out_dim, shape)
    return select_n_p.bind(which, *cases), out_dim


@select_n_p.def_lowering
def _select_n_lowering(ctx, which, *cases):
    which_aval, out = ctx.avals_in[0], ctx.avals_out[0]
    which = ctx.broadcast(which, which_aval, out.shape)
    if which_aval.dtype == np.bool_:
        return cases[0] if len(cases) == 1 else ctx.op("stablehlo.select", which, cases[1], cases[0])
    pred_aval = ShapedArray(out.shape, np.bool_)

    def select(lo, hi):  # choose among cases[lo:hi] by bisection on `which`
        if hi - lo == 1:
            return cases[lo]
        mid = (lo + hi) // 2
        pred = emit_compare(ctx, "LT", which, ctx.const(mid, which_aval.dtype, out.shape),
                            which_aval.update(shape=out.shape), pred_aval)
        return ctx.op("stablehlo.select", pred, select(lo, mid), select(mid, hi))
    return select(0, len(cases))


# -- clamp ---------------------------------------------------------------------------------------

clamp_p = standard_primitive("clamp")
clamp_p.def_sharding_rule(sharding_rules.broadcasting("clamp"))


def clamp(min, x, max):
    """Clip `x` to `[min, max]`; the bounds may be scalars."""
    min, x, max = lax_operands(min, x, max)
    return clamp_p.bind(min, x, max)


@clamp_p.def_abstract_eval
def _clamp_abstract_eval(lo, x, hi):
    check_dtype("clamp", x, ORDERED)
    check_same_dtypes("clamp", [lo, x, hi])
    for name, b in (("min", lo), ("max", hi)):
        if b.shape and b.shape != x.shape:
            raise TypeError(f"clamp: {name} must be a scalar or have the operand's shape, got "
                            f"{b.str_short()} for operand {x.str_short()}")
    return x


clamp_p.np_impl = lambda lo, x, hi: np.clip(x, lo, hi)


@clamp_p.def_jvp
def _clamp_jvp(primals, tangents):
    lo, x, hi = primals
    ans = clamp(lo, x, hi)
    t_lo, t_x, t_hi = tangents
    out = Zero(ad.tangent_aval(core.get_aval(ans)))
    zeros = _full_like(ans, 0)
    # as JAX: at a tie with a bound neither the operand nor that bound gets the tangent
    if type(t_x) is not Zero:
        out = ad.add_tangents(out, select_n(bitwise_and(gt(x, lo), lt(x, hi)), zeros, t_x))
    if type(t_lo) is not Zero:
        out = ad.add_tangents(out, select_n(bitwise_and(gt(lo, x), lt(lo, hi)), zeros, _brcast(t_lo, ans)))
    if type(t_hi) is not Zero:
        out = ad.add_tangents(out, select_n(lt(hi, x), zeros, _brcast(t_hi, ans)))
    return ans, out


@clamp_p.def_batch
def _clamp_batch(axis_size, args, dims):
    """Bounds are scalars or have the operand's shape: unbatched scalar bounds stay scalars."""
    (lo, x, hi), (ld, xd, hd) = args, dims
    shape = batching.per_example_shape(x, xd)
    out_dim = 0 if xd is None else xd
    x = batching.full_rank(x, xd, axis_size, out_dim, shape)
    lo, hi = [b if d is None and not batching.per_example_shape(b, d) else
              batching.full_rank(b, d, axis_size, out_dim, shape) for b, d in ((lo, ld), (hi, hd))]
    return clamp_p.bind(lo, x, hi), out_dim


clamp_p.def_lowering(lambda ctx, lo, x, hi: ctx.op("stablehlo.clamp", lo, x, hi))

# -- complex numbers -------------------------------------------------------------------------------

real_p = unop("real", np.real, "stablehlo.real", COMPLEX, result_dtype=real_dtype,
              transpose=lambda ct, x: [complex(ct, _const(ct, 0))])
imag_p = unop("imag", np.imag, "stablehlo.imag", COMPLEX, result_dtype=real_dtype,
              transpose=lambda ct, x: [complex(_const(ct, 0), neg(ct))])

real = _unary(real_p)
imag = _unary(imag_p)

conj_p = standard_primitive("conj")


def conj(x):
    return conj_p.bind(x, input_dtype=core.get_aval(x).dtype)


@conj_p.def_abstract_eval
def _conj_abstract_eval(x, *, input_dtype):
    check_dtype("conj", x, INEXACT)
    dt = x.dtype if kind(x.dtype) == "c" else np.result_type(x.dtype, np.complex64)
    return ShapedArray(x.shape, dt, x.weak_type)


conj_p.np_impl = lambda x, *, input_dtype: np.conj(x)


def _conj_transpose(ct, x, *, input_dtype):
    if kind(np.dtype(input_dtype)) == "c":
        return [conj(ct)]
    return [real(ct)]


deflinear(conj_p, _conj_transpose)
batching.defvectorized(conj_p)


@conj_p.def_lowering
def _conj_lowering(ctx, x, *, input_dtype):
    out = ctx.avals_out[0]
    if kind(ctx.avals_in[0].dtype) != "c":
        return ctx.op("stablehlo.convert", x)
    part = out.update(dtype=real_dtype(out.dtype))
    re = ctx.op("stablehlo.real", x, out=part)
    im = ctx.op("stablehlo.negate", ctx.op("stablehlo.imag", x, out=part), out=part)
    return ctx.op("stablehlo.complex", re, im)


complex_p = standard_primitive("complex")
complex = _binary(complex_p)


def _complex_dtype(dt):
    return np.dtype(np.complex128 if np.dtype(dt) == np.float64 else np.complex64)


@complex_p.def_abstract_eval
def _complex_abstract_eval(x, y):
    for i, a in enumerate((x, y)):
        if a.dtype not in (np.float32, np.float64):  # as JAX: stablehlo.complex has no f16/bf16 form
            raise TypeError(f"complex does not accept dtype {a.dtype.name} for operand {i} (got "
                            f"{a.str_short()}); accepted: float32, float64")
    out = _naryop_abstract_eval("complex", FLOAT, None, x, y)
    return out.update(dtype=_complex_dtype(x.dtype))


complex_p.np_impl = lambda x, y: x + 1j * y
deflinear(complex_p, _transpose_binary(lambda ct: (real(ct), imag(neg(ct)))))
batching.defbroadcasting(complex_p)
complex_p.def_lowering(partial(_simple_lowering, "stablehlo.complex"))

# -- unary math ----------------------------------------------------------------------------------


def _abs_jvp(g, ans, x):
    if kind(core.get_aval(x).dtype) == "c":
        # as JAX, in complex arithmetic: conj(x) / |x| (|x| made complex), times g; the same
        # rounding, so gradients agree to the bit
        dt = core.get_aval(x).dtype
        return real(mul(g, div(conj(x), _replace_zero(_convert_element_type(ans, dt, False)))))
    return select_n(ge(x, _const(x, 0)), neg(g), g)  # as JAX: the slope at 0 is +1


def _sign_lowering(ctx, x):
    aval = ctx.avals_in[0]
    if kind(aval.dtype) != "u":
        return ctx.op("stablehlo.sign", x)
    # stablehlo.sign has no unsigned form: sign(x) = (x != 0)
    nonzero = emit_compare(ctx, "NE", x, ctx.const(0, aval.dtype, aval.shape), aval)
    return ctx.op("stablehlo.convert", nonzero)


def _exp2_lowering(ctx, x):
    ln2 = ctx.const(np.log(2), ctx.avals_in[0].dtype, ctx.avals_in[0].shape)
    return ctx.op("stablehlo.exponential", ctx.op("stablehlo.multiply", x, ln2))


def _np_round(x, *, rounding_method):
    if rounding_method == 1:
        return np.round(x)
    return np.sign(x) * np.floor(np.abs(x) + 0.5)


def _round_lowering(ctx, x, *, rounding_method):
    op = "stablehlo.round_nearest_even" if rounding_method == 1 else "stablehlo.round_nearest_afz"
    return ctx.op(op, x)


sqrt_p = unop("sqrt", np.sqrt, "stablehlo.sqrt", jvp=lambda g, ans, x: mul(g, div(_jvp_const(x, 0.5), ans)))  # (JAX's rounding; inf at 0)
rsqrt_p = unop("rsqrt", lambda x: 1 / np.sqrt(x), "stablehlo.rsqrt",
               jvp=lambda g, ans, x: mul(g, mul(_jvp_const(ans, -0.5), div(ans, x))))
cbrt_p = unop("cbrt", np.cbrt, "stablehlo.cbrt", FLOAT,
              jvp=lambda g, ans, x: mul(g, mul(_jvp_const(ans, 1 / 3), integer_pow(ans, -2))))
exp_p = unop("exp", np.exp, "stablehlo.exponential", jvp=lambda g, ans, x: mul(g, ans))
exp2_p = unop("exp2", np.exp2, None, lowering=_exp2_lowering,
              jvp=lambda g, ans, x: mul(g, mul(ans, _jvp_const(ans, np.log(2)))))
expm1_p = unop("expm1", np.expm1, "stablehlo.exponential_minus_one",
               jvp=lambda g, ans, x: mul(g, add(ans, _const(ans, 1))))
log_p = unop("log", np.log, "stablehlo.log", jvp=lambda g, ans, x: div(g, x))
log1p_p = unop("log1p", np.log1p, "stablehlo.log_plus_one", jvp=lambda g, ans, x: div(g, add(x, _const(x, 1))))
# 1 - ans**2 as JAX 0.10.2 computes it, (g + g*ans) * (1 - ans), so that gradients through tanh
# round as JAX's do (bit for bit on the same XLA)
tanh_p = unop("tanh", np.tanh, "stablehlo.tanh",
              jvp=lambda g, ans, x: mul(add(g, mul(g, ans)), sub(_const(ans, 1), ans)))
logistic_p = unop("logistic", lambda x: 1 / (1 + np.exp(-x)), "stablehlo.logistic",
                  jvp=lambda g, ans, x: mul(g, mul(ans, sub(_const(ans, 1), ans))))
def _sin_cos_complex(is_sin, x):
    """sin/cos of complex `x` from real functions of its parts; sinh/cosh of the imaginary part
    come from expm1 (no cancellation when it is small). JAX 0.10.2 lowers complex sin/cos this
    way rather than with XLA's complex sine/cosine, so results agree with it to the bit."""
    a, b = real(x), imag(x)
    zero, two = _const(a, 0), _const(a, 2)
    up, down = expm1(b), expm1(neg(b))
    sinh_b, cosh_b = div(sub(up, down), two), div(add(add(up, down), two), two)
    if is_sin:
        re, im = mul(sin(a), cosh_b), mul(cos(a), sinh_b)
        on_axis = complex(zero, im)   # a == 0: no inf * 0 = NaN in the real part
    else:
        re, im = mul(cos(a), cosh_b), mul(neg(sin(a)), sinh_b)
        on_axis = complex(re, zero)
    return select(eq(a, zero), on_axis, complex(re, im))


def _sin_cos_lowering(is_sin, ctx, x):
    if kind(ctx.avals_in[0].dtype) == "c":
        return ctx.lower_fun(partial(_sin_cos_complex, is_sin))(x)
    return ctx.op("stablehlo.sine" if is_sin else "stablehlo.cosine", x)


sin_p = unop("sin", np.sin, None, lowering=partial(_sin_cos_lowering, True),
             jvp=lambda g, ans, x: mul(g, cos(x)))
cos_p = unop("cos", np.cos, None, lowering=partial(_sin_cos_lowering, False),
             jvp=lambda g, ans, x: neg(mul(g, sin(x))))
tan_p = unop("tan", np.tan, "stablehlo.tan", jvp=lambda g, ans, x: mul(g, add(_jvp_const(ans, 1), mul(ans, ans))))
asin_p = unop("asin", np.arcsin, "chlo.asin", jvp=lambda g, ans, x: mul(g, rsqrt(sub(_jvp_const(x, 1), mul(x, x)))))
acos_p = unop("acos", np.arccos, "chlo.acos", jvp=lambda g, ans, x: neg(mul(g, rsqrt(sub(_jvp_const(x, 1), mul(x, x))))))
atan_p = unop("atan", np.arctan, "chlo.atan", jvp=lambda g, ans, x: div(g, add(_jvp_const(x, 1), mul(x, x))))
sinh_p = unop("sinh", np.sinh, "chlo.sinh", jvp=lambda g, ans, x: mul(g, cosh(x)))
cosh_p = unop("cosh", np.cosh, "chlo.cosh", jvp=lambda g, ans, x: mul(g, sinh(x)))
asinh_p = unop("asinh", np.arcsinh, "chlo.asinh", jvp=lambda g, ans, x: mul(g, rsqrt(add(mul(x, x), _const(x, 1)))))
acosh_p = unop("acosh", np.arccosh, "chlo.acosh",
               jvp=lambda g, ans, x: mul(g, rsqrt(mul(sub(x, _const(x, 1)), add(x, _const(x, 1))))))
atanh_p = unop("atanh", np.arctanh, "chlo.atanh", jvp=lambda g, ans, x: div(g, sub(_const(x, 1), mul(x, x))))
erf_p = unop("erf", lambda x: _sps().erf(x), "chlo.erf", FLOAT,
             jvp=lambda g, ans, x: mul(g, mul(_jvp_const(x, 2 / np.sqrt(np.pi)), exp(neg(mul(x, x))))))
erfc_p = unop("erfc", lambda x: _sps().erfc(x), "chlo.erfc", FLOAT,
              jvp=lambda g, ans, x: mul(g, mul(_jvp_const(x, -2 / np.sqrt(np.pi)), exp(neg(mul(x, x))))))
erf_inv_p = unop("erf_inv", lambda x: _sps().erfinv(x), "chlo.erf_inv", FLOAT,
                 jvp=lambda g, ans, x: mul(g, mul(_jvp_const(x, np.sqrt(np.pi) / 2), exp(mul(ans, ans)))))
# digamma's JVP needs polygamma: special.py, which defines polygamma, attaches it.
digamma_p = unop("digamma", lambda x: _sps().digamma(x), "chlo.digamma", FLOAT)
lgamma_p = unop("lgamma", lambda x: _sps().gammaln(x), "chlo.lgamma", FLOAT, jvp=lambda g, ans, x: mul(g, digamma(x)))
abs_p = unop("abs", np.abs, "stablehlo.abs", "ifc", result_dtype=real_dtype, jvp=_abs_jvp)  # as JAX: no unsigned
sign_p = unop("sign", np.sign, None, NUM, lowering=_sign_lowering, jvp=zero_derivative)
floor_p = unop("floor", np.floor, "stablehlo.floor", FLOAT, jvp=zero_derivative)
ceil_p = unop("ceil", np.ceil, "stablehlo.ceil", FLOAT, jvp=zero_derivative)
round_p = unop("round", _np_round, None, FLOAT, lowering=_round_lowering, jvp=zero_derivative)
is_finite_p = unop("is_finite", np.isfinite, "stablehlo.is_finite", FLOAT, result_dtype=lambda dt: np.dtype(bool),
                   jvp=zero_derivative)

sqrt = _unary(sqrt_p)
rsqrt = _unary(rsqrt_p)
cbrt = _unary(cbrt_p)
exp = _unary(exp_p)
exp2 = _unary(exp2_p)
expm1 = _unary(expm1_p)
log = _unary(log_p)
log1p = _unary(log1p_p)
tanh = _unary(tanh_p)
logistic = _unary(logistic_p)
sin = _unary(sin_p)
cos = _unary(cos_p)
tan = _unary(tan_p)
asin = _unary(asin_p)
acos = _unary(acos_p)
atan = _unary(atan_p)
sinh = _unary(sinh_p)
cosh = _unary(cosh_p)
asinh = _unary(asinh_p)
acosh = _unary(acosh_p)
atanh = _unary(atanh_p)
erf = _unary(erf_p)
erfc = _unary(erfc_p)
erf_inv = _unary(erf_inv_p)
digamma = _unary(digamma_p)
lgamma = _unary(lgamma_p)
abs = _unary(abs_p)
sign = _unary(sign_p)
floor = _unary(floor_p)
ceil = _unary(ceil_p)
is_finite = _unary(is_finite_p)


class RoundingMethod:
    AWAY_FROM_ZERO = 0
    TO_NEAREST_EVEN = 1


def round(x, rounding_method=0):
    """Round to the nearest integer; `rounding_method` 0 rounds halves away from zero, 1 to even."""
    if rounding_method not in (RoundingMethod.AWAY_FROM_ZERO, RoundingMethod.TO_NEAREST_EVEN):
        raise ValueError(f"round: rounding_method must be a lax.RoundingMethod (0: AWAY_FROM_ZERO, "
                         f"1: TO_NEAREST_EVEN), got {rounding_method!r}")
    return round_p.bind(x, rounding_method=int(rounding_method))


# -- binary math ---------------------------------------------------------------------------------


def _balanced_eq(x, z, y):
    """1 where x alone attains the extremum z, 0.5 on ties with y, 0 elsewhere."""
    one, half, zero = _full_like(z, 1), _full_like(z, 0.5), _full_like(z, 0)
    return select_n(eq(x, z), zero, select_n(eq(y, z), one, half))


max_p = binop("max", np.maximum, "stablehlo.maximum", ANY,
              jvp=(lambda g, ans, x, y: mul(g, _balanced_eq(x, ans, y)),
                   lambda g, ans, x, y: mul(g, _balanced_eq(y, ans, x))))
min_p = binop("min", np.minimum, "stablehlo.minimum", ANY,
              jvp=(lambda g, ans, x, y: mul(g, _balanced_eq(x, ans, y)),
                   lambda g, ans, x, y: mul(g, _balanced_eq(y, ans, x))))


def _np_mulhi(x, y):
    """The high half of the double-width product, with Python ints (exact for 64 bits too)."""
    x, y = np.broadcast_arrays(np.asarray(x), np.asarray(y))
    bits = x.dtype.itemsize * 8
    high = [((int(a) * int(b)) >> bits) & ((1 << bits) - 1) for a, b in zip(x.ravel(), y.ravel())]
    return np.array(high, np.dtype(f"u{x.dtype.itemsize}")).reshape(x.shape).view(x.dtype)


mulhi_p = binop("mulhi", _np_mulhi, "chlo.mulhi", INT, jvp=zero_derivative)
mulhi = _binary(mulhi_p)
mulhi.__doc__ = "The upper N bits of the 2N-bit product of N-bit integers: `lax.mulhi(x, y)`."
rem_p = binop("rem", np.fmod, "stablehlo.remainder", INT + FLOAT,  # XLA has no complex remainder
              jvp=(lambda g, ans, x, y: _brcast(g, ans),
                   lambda g, ans, x, y: neg(mul(g, mul(sign(div(x, y)), floor(abs(div(x, y))))))))
atan2_p = binop("atan2", np.arctan2, "stablehlo.atan2", FLOAT,
                jvp=(lambda g, ans, x, y: mul(g, div(y, add(mul(x, x), mul(y, y)))),
                     lambda g, ans, x, y: mul(g, div(neg(x), add(mul(x, x), mul(y, y))))))
# NB: nextafter has no JVP rule, as in JAX (differentiating it raises NotImplementedError).
nextafter_p = binop("nextafter", np.nextafter, "chlo.next_after", FLOAT)

max = _binary(max_p)
min = _binary(min_p)
rem = _binary(rem_p)
atan2 = _binary(atan2_p)
nextafter = _binary(nextafter_p)

# -- pow: `x ** y` for an array exponent (inexact, or an integer array) ------------------------

pow_p = standard_primitive("pow")


def pow(x, y):
    """Elementwise power `x ** y`; `y` may be an integer array."""
    if type(y) is int and type(x) not in (int, float, complex):
        y = float(y)
    if type(x) in _PY_SCALARS and type(y) not in _PY_SCALARS and kind(core.get_aval(y).dtype) in "iu":
        x = lax_operands(x)[0]  # an integer exponent does not make a Python-scalar base integral
    x, y = lax_operands(x, y)
    return pow_p.bind(x, y)


@pow_p.def_abstract_eval
def _pow_abstract_eval(x, y):
    check_dtype("pow", x, INEXACT, "base")
    check_dtype("pow", y, INEXACT + INT, "exponent")
    if kind(y.dtype) not in "iu" and x.dtype != y.dtype:
        check_same_dtypes("pow", [x, y])
    shape = broadcast_scalars_shape("pow", [x, y])
    return ShapedArray(shape, x.dtype, x.weak_type and y.weak_type)


pow_p.np_impl = np.power


def _pow_jvp_x(g, ans, x, y):
    if kind(core.get_aval(y).dtype) not in "iu":
        return mul(g, mul(y, pow(x, sub(y, _const(y, 1)))))  # nan at x == y == 0, as JAX
    # integer exponent: y * x^(y-1), taken as 0 where y == 0 (x**0 is 1 everywhere), as JAX
    jac = mul(convert_element_type(y, core.get_aval(x).dtype), pow(x, sub(y, _const(y, 1))))
    return mul(g, select_n(_brcast(eq(y, _const(y, 0)), ans), jac, _full_like(ans, 0)))


def _pow_jvp_y(g, ans, x, y):
    return mul(g, mul(log(_replace_zero(x)), ans))  # 0 where x == 0, as JAX


defjvp(pow_p, _pow_jvp_x, _pow_jvp_y)
batching.defbroadcasting(pow_p)


@pow_p.def_lowering
def _pow_lowering(ctx, x, y):
    x, y = broadcast_operands(ctx, (x, y))
    x_aval, y_aval = ctx.avals_in
    if x_aval.dtype != y_aval.dtype:  # integer exponent: convert it to the base's dtype
        y = ctx.op("stablehlo.convert", y, out=ctx.avals_out[0])
    return ctx.op("stablehlo.power", x, y)
