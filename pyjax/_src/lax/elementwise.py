"""Elementwise lax primitives: unary math, binary arithmetic, bitwise ops, comparisons,
`select_n`, `clamp`, `integer_pow`, dtype conversions.

Each primitive is one line through a factory in `utils`; the public wrappers below follow
`jax.lax` signatures. Python scalars given to a wrapper take the dtype of the array operands
and stay weakly typed, so `lax.add(x_f16, 1)` is f16.
"""
from __future__ import annotations

import operator
from functools import partial

import numpy as np

from pyjax._src import core, dtypes
from pyjax._src.array import Array
from pyjax._src.core import ShapedArray
from pyjax._src.interpreters import batching
from pyjax._src.lax.utils import (
    ANY, COMPLEX, FLOAT, INEXACT, INT, INT_OR_BOOL, NUM, ORDERED, _naryop_abstract_eval,
    _simple_lowering, binop, broadcast_operands, broadcast_scalars_shape, check_dtype,
    check_same_dtypes, compareop, emit_compare, kind, np_dtype_param, standard_primitive, unop)


def _sps():
    """scipy.special, for reference implementations only (scipy is a test dependency)."""
    import scipy.special
    return scipy.special


# -- Python scalars in lax calls --------------------------------------------------------------

_PY_SCALARS = (bool, int, float, complex)


def _weak_const(x, dtype) -> Array:
    return Array.from_host(np.asarray(x, dtype), weak_type=True)


def lax_operands(*xs):
    """Give Python scalars the dtype of the other operands (weakly typed); leave arrays alone.

    NB: JAX 0.10.2 gives a Python scalar its default dtype (int32, float32...) and then requires
    equal dtypes, so `lax.add(x_f16, 1.0)` and `lax.add(x_f32, 1)` are TypeErrors there; pyjax
    converts the scalar to the array's dtype (tests/test_bad_inputs.py lists these rows)."""
    if not any(type(x) in _PY_SCALARS for x in xs):
        return xs
    ref = next((x for x in xs if type(x) not in _PY_SCALARS), None)
    if ref is None:
        dt = dtypes.result_type(*xs)
    else:
        dt = core.get_aval(ref).dtype
    return tuple(_weak_const(x, dt) if type(x) in _PY_SCALARS else x for x in xs)


# -- unary ---------------------------------------------------------------------------------

def _real_dtype(dt):
    return np.finfo(dt).dtype if kind(dt) == "c" else dt


neg_p = unop("neg", np.negative, "stablehlo.negate", NUM)
floor_p = unop("floor", np.floor, "stablehlo.floor", FLOAT)
ceil_p = unop("ceil", np.ceil, "stablehlo.ceil", FLOAT)
is_finite_p = unop("is_finite", np.isfinite, "stablehlo.is_finite", FLOAT, result_dtype=lambda dt: np.dtype(bool))
exp_p = unop("exp", np.exp, "stablehlo.exponential")
log_p = unop("log", np.log, "stablehlo.log")
log1p_p = unop("log1p", np.log1p, "stablehlo.log_plus_one")
expm1_p = unop("expm1", np.expm1, "stablehlo.exponential_minus_one")
tanh_p = unop("tanh", np.tanh, "stablehlo.tanh")
logistic_p = unop("logistic", lambda x: 1 / (1 + np.exp(-x)), "stablehlo.logistic")
sin_p = unop("sin", np.sin, "stablehlo.sine")
cos_p = unop("cos", np.cos, "stablehlo.cosine")
tan_p = unop("tan", np.tan, "stablehlo.tan")
asin_p = unop("asin", np.arcsin, "chlo.asin")
acos_p = unop("acos", np.arccos, "chlo.acos")
atan_p = unop("atan", np.arctan, "chlo.atan")
sinh_p = unop("sinh", np.sinh, "chlo.sinh")
cosh_p = unop("cosh", np.cosh, "chlo.cosh")
asinh_p = unop("asinh", np.arcsinh, "chlo.asinh")
acosh_p = unop("acosh", np.arccosh, "chlo.acosh")
atanh_p = unop("atanh", np.arctanh, "chlo.atanh")
sqrt_p = unop("sqrt", np.sqrt, "stablehlo.sqrt")
rsqrt_p = unop("rsqrt", lambda x: 1 / np.sqrt(x), "stablehlo.rsqrt")
cbrt_p = unop("cbrt", np.cbrt, "stablehlo.cbrt", FLOAT)
abs_p = unop("abs", np.abs, "stablehlo.abs", "ifc", result_dtype=_real_dtype)  # as JAX: no unsigned
erf_p = unop("erf", lambda x: _sps().erf(x), "chlo.erf", FLOAT)
erfc_p = unop("erfc", lambda x: _sps().erfc(x), "chlo.erfc", FLOAT)
erf_inv_p = unop("erf_inv", lambda x: _sps().erfinv(x), "chlo.erf_inv", FLOAT)
lgamma_p = unop("lgamma", lambda x: _sps().gammaln(x), "chlo.lgamma", FLOAT)
digamma_p = unop("digamma", lambda x: _sps().digamma(x), "chlo.digamma", FLOAT)
real_p = unop("real", np.real, "stablehlo.real", COMPLEX, result_dtype=_real_dtype)
imag_p = unop("imag", np.imag, "stablehlo.imag", COMPLEX, result_dtype=_real_dtype)
not_p = unop("not", np.invert, "stablehlo.not", INT_OR_BOOL)


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


population_count_p = unop("population_count", _np_population_count, "stablehlo.popcnt", INT)
clz_p = unop("clz", _np_clz, "stablehlo.count_leading_zeros", INT)


def _sign_lowering(ctx, x):
    aval = ctx.avals_in[0]
    if kind(aval.dtype) != "u":
        return ctx.op("stablehlo.sign", x)
    # stablehlo.sign has no unsigned form: sign(x) = (x != 0)
    nonzero = emit_compare(ctx, "NE", x, ctx.const(0, aval.dtype, aval.shape), aval)
    return ctx.op("stablehlo.convert", nonzero)


sign_p = unop("sign", np.sign, None, NUM, lowering=_sign_lowering)


def _exp2_lowering(ctx, x):
    ln2 = ctx.const(np.log(2), ctx.avals_in[0].dtype, ctx.avals_in[0].shape)
    return ctx.op("stablehlo.exponential", ctx.op("stablehlo.multiply", x, ln2))


exp2_p = unop("exp2", np.exp2, None, lowering=_exp2_lowering)


def _round_lowering(ctx, x, *, rounding_method):
    op = "stablehlo.round_nearest_even" if rounding_method == 1 else "stablehlo.round_nearest_afz"
    return ctx.op(op, x)


def _np_round(x, *, rounding_method):
    if rounding_method == 1:
        return np.round(x)
    return np.sign(x) * np.floor(np.abs(x) + 0.5)


round_p = unop("round", _np_round, None, FLOAT, lowering=_round_lowering)


def _conj_abstract_eval(x, *, input_dtype):
    check_dtype("conj", x, INEXACT)
    dt = x.dtype if kind(x.dtype) == "c" else np.result_type(x.dtype, np.complex64)
    return ShapedArray(x.shape, dt, x.weak_type)


def _conj_lowering(ctx, x, *, input_dtype):
    out = ctx.avals_out[0]
    if kind(ctx.avals_in[0].dtype) != "c":
        return ctx.op("stablehlo.convert", x)
    part = out.update(dtype=_real_dtype(out.dtype))
    re = ctx.op("stablehlo.real", x, out=part)
    im = ctx.op("stablehlo.negate", ctx.op("stablehlo.imag", x, out=part), out=part)
    return ctx.op("stablehlo.complex", re, im)


conj_p = standard_primitive("conj", _conj_abstract_eval, lambda x, *, input_dtype: np.conj(x), _conj_lowering)
batching.defvectorized(conj_p)


def _complex_dtype(dt):
    return np.dtype(np.complex128 if np.dtype(dt) == np.float64 else np.complex64)


def _complex_abstract_eval(x, y):
    for i, a in enumerate((x, y)):
        if a.dtype not in (np.float32, np.float64):  # as JAX: stablehlo.complex has no f16/bf16 form
            raise TypeError(f"complex does not accept dtype {a.dtype.name} for operand {i} (got "
                            f"{a.str_short()}); accepted: float32, float64")
    out = _naryop_abstract_eval("complex", FLOAT, None, x, y)
    return out.update(dtype=_complex_dtype(x.dtype))


complex_p = standard_primitive("complex", _complex_abstract_eval, lambda x, y: x + 1j * y,
                               partial(_simple_lowering, "stablehlo.complex"))
batching.defbroadcasting(complex_p)


# -- binary --------------------------------------------------------------------------------

def _np_div(x, y):
    if np.issubdtype(np.asarray(x).dtype, np.integer):
        return np.trunc(np.true_divide(x, y)).astype(np.asarray(x).dtype)  # C-style division
    return np.true_divide(x, y)


def _np_rem(x, y):
    return np.fmod(x, y)


add_p = binop("add", np.add, "stablehlo.add")
sub_p = binop("sub", np.subtract, "stablehlo.subtract")
mul_p = binop("mul", np.multiply, "stablehlo.multiply")
div_p = binop("div", _np_div, "stablehlo.divide")
rem_p = binop("rem", _np_rem, "stablehlo.remainder", INT + FLOAT)  # XLA has no complex remainder
max_p = binop("max", np.maximum, "stablehlo.maximum", ANY)
min_p = binop("min", np.minimum, "stablehlo.minimum", ANY)
atan2_p = binop("atan2", np.arctan2, "stablehlo.atan2", FLOAT)
nextafter_p = binop("nextafter", np.nextafter, "chlo.next_after", FLOAT)
and_p = binop("and", np.bitwise_and, "stablehlo.and", INT_OR_BOOL)
or_p = binop("or", np.bitwise_or, "stablehlo.or", INT_OR_BOOL)
xor_p = binop("xor", np.bitwise_xor, "stablehlo.xor", INT_OR_BOOL)



def _np_shift(np_fn, view_kind, x, y):
    """A shift of `x` viewed as `view_kind` ints; shifts outside [0, bits) give 0, as in XLA."""
    x = np.asarray(x)
    v = x.view(np.dtype(f"{view_kind}{x.dtype.itemsize}"))
    y = np.asarray(y).astype(np.int64)
    ok = (y >= 0) & (y < x.dtype.itemsize * 8)
    return np.where(ok, np_fn(v, np.where(ok, y, 0).astype(v.dtype)), 0).astype(v.dtype).view(x.dtype)


shift_left_p = binop("shift_left", partial(_np_shift, np.left_shift, "u"), "stablehlo.shift_left", INT)
shift_right_logical_p = binop("shift_right_logical", partial(_np_shift, np.right_shift, "u"),
                              "stablehlo.shift_right_logical", INT)


def _np_shift_right_arithmetic(x, y):
    x = np.asarray(x)
    i = x.view(np.dtype(f"i{x.dtype.itemsize}"))  # sign-extends unsigned operands too, as XLA
    bits = x.dtype.itemsize * 8
    shift = np.minimum(np.asarray(y).astype(np.int64), bits - 1)
    return np.right_shift(i, np.where(shift < 0, bits - 1, shift).astype(i.dtype)).view(x.dtype)


shift_right_arithmetic_p = binop("shift_right_arithmetic", _np_shift_right_arithmetic,
                                 "stablehlo.shift_right_arithmetic", INT)


def _pow_abstract_eval(x, y):
    check_dtype("pow", x, INEXACT, "base")
    check_dtype("pow", y, INEXACT + INT, "exponent")
    if kind(y.dtype) not in "iu" and x.dtype != y.dtype:
        check_same_dtypes("pow", [x, y])
    shape = broadcast_scalars_shape("pow", [x, y])
    return ShapedArray(shape, x.dtype, x.weak_type and y.weak_type)


def _pow_lowering(ctx, x, y):
    x, y = broadcast_operands(ctx, (x, y))
    x_aval, y_aval = ctx.avals_in
    if x_aval.dtype != y_aval.dtype:  # integer exponent: convert it to the base's dtype
        y = ctx.op("stablehlo.convert", y, out=ctx.avals_out[0])
    return ctx.op("stablehlo.power", x, y)


pow_p = standard_primitive("pow", _pow_abstract_eval, np.power, _pow_lowering)
batching.defbroadcasting(pow_p)


# -- comparisons -------------------------------------------------------------------------------

eq_p = compareop("eq", np.equal, "EQ", ANY)
ne_p = compareop("ne", np.not_equal, "NE", ANY)
lt_p = compareop("lt", np.less, "LT")
le_p = compareop("le", np.less_equal, "LE")
gt_p = compareop("gt", np.greater, "GT")
ge_p = compareop("ge", np.greater_equal, "GE")


# -- integer_pow ---------------------------------------------------------------------------------

def _integer_pow_abstract_eval(x, *, y):
    check_dtype("integer_pow", x, NUM)
    if y < 0 and kind(x.dtype) in "iu":
        raise TypeError(f"integer_pow: negative exponent {y} for integer operand {x.str_short()}")
    return x


def _integer_pow_lowering(ctx, x, *, y):
    aval = ctx.avals_in[0]
    if y == 0:
        return ctx.const(1, aval.dtype, aval.shape)
    acc, base, n = None, x, abs(y)
    while n:  # square-and-multiply
        if n & 1:
            acc = base if acc is None else ctx.op("stablehlo.multiply", acc, base)
        n >>= 1
        if n:
            base = ctx.op("stablehlo.multiply", base, base)
    if y < 0:
        acc = ctx.op("stablehlo.divide", ctx.const(1, aval.dtype, aval.shape), acc)
    return acc


integer_pow_p = standard_primitive("integer_pow", _integer_pow_abstract_eval,
                                   lambda x, *, y: np.power(x, y), _integer_pow_lowering)
batching.defvectorized(integer_pow_p)


# -- select_n and clamp ------------------------------------------------------------------------

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


select_n_p = standard_primitive("select_n", _select_n_abstract_eval, _np_select_n, _select_n_lowering)


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


select_n_p.def_batch(_select_n_batch)


def _clamp_abstract_eval(lo, x, hi):
    check_dtype("clamp", x, ORDERED)
    check_same_dtypes("clamp", [lo, x, hi])
    for name, b in (("min", lo), ("max", hi)):
        if b.shape and b.shape != x.shape:
            raise TypeError(f"clamp: {name} must be a scalar or have the operand's shape, got "
                            f"{b.str_short()} for operand {x.str_short()}")
    return x


clamp_p = standard_primitive("clamp", _clamp_abstract_eval, lambda lo, x, hi: np.clip(x, lo, hi),
                             lambda ctx, lo, x, hi: ctx.op("stablehlo.clamp", lo, x, hi))


def _clamp_batch(axis_size, args, dims):
    """Bounds are scalars or have the operand's shape: unbatched scalar bounds stay scalars."""
    (lo, x, hi), (ld, xd, hd) = args, dims
    shape = batching.per_example_shape(x, xd)
    out_dim = 0 if xd is None else xd
    x = batching.full_rank(x, xd, axis_size, out_dim, shape)
    lo, hi = [b if d is None and not batching.per_example_shape(b, d) else
              batching.full_rank(b, d, axis_size, out_dim, shape) for b, d in ((lo, ld), (hi, hd))]
    return clamp_p.bind(lo, x, hi), out_dim


clamp_p.def_batch(_clamp_batch)


# -- dtype conversions -------------------------------------------------------------------------

def _convert_element_type_abstract_eval(x, *, new_dtype, weak_type, sharding):
    return ShapedArray(x.shape, new_dtype, weak_type)


def _convert_lowering(ctx, x, *, new_dtype, weak_type, sharding):
    in_aval, out = ctx.avals_in[0], ctx.avals_out[0]
    if in_aval.dtype == out.dtype:
        return x
    if kind(in_aval.dtype) == "c" and kind(out.dtype) != "c":
        x = ctx.op("stablehlo.real", x, out=in_aval.update(dtype=_real_dtype(in_aval.dtype)))
        in_aval = in_aval.update(dtype=_real_dtype(in_aval.dtype))
    if out.dtype == np.bool_ and in_aval.dtype != np.bool_:  # nonzero test, as NumPy does
        return emit_compare(ctx, "NE", x, ctx.const(0, in_aval.dtype, in_aval.shape), in_aval, out)
    return ctx.op("stablehlo.convert", x)


def _np_convert(x, *, new_dtype, weak_type, sharding):
    x = np.asarray(x)
    if np.iscomplexobj(x) and not np.issubdtype(new_dtype, np.complexfloating):
        x = x.real
    if kind(x.dtype) == "f" and kind(new_dtype) in "iu":
        # float -> int truncates, saturates out-of-range values and maps NaN to 0, as XLA does
        # (NumPy's astype would wrap around)
        info = np.iinfo(new_dtype)
        x = np.where(np.isnan(x), 0, np.clip(np.trunc(x.astype(np.float64)), info.min, info.max))
    return x.astype(new_dtype)


convert_element_type_p = standard_primitive(
    "convert_element_type", _convert_element_type_abstract_eval, _np_convert, _convert_lowering)
batching.defvectorized(convert_element_type_p)


def _bitcast_abstract_eval(x, *, new_dtype):
    a, b = x.dtype.itemsize, np.dtype(new_dtype).itemsize
    if a == b:
        shape = x.shape
    elif a > b:
        shape = x.shape + (a // b,)
    else:
        if not x.shape or x.shape[-1] != b // a:
            raise ValueError(f"bitcast_convert_type: {x.str_short()} to {np.dtype(new_dtype).name} "
                            f"needs a last dimension of size {b // a}")
        shape = x.shape[:-1]
    return ShapedArray(shape, new_dtype, False)


def _np_bitcast(x, *, new_dtype):
    x = np.ascontiguousarray(x)
    a, b = x.dtype.itemsize, np.dtype(new_dtype).itemsize
    out = x.view(new_dtype)
    if a > b:
        return out.reshape(x.shape + (a // b,))
    if a < b:
        return out.reshape(x.shape[:-1])
    return out


bitcast_convert_type_p = standard_primitive(
    "bitcast_convert_type", _bitcast_abstract_eval, _np_bitcast,
    lambda ctx, x, *, new_dtype: ctx.op("stablehlo.bitcast_convert", x))


def _bitcast_batch(axis_size, args, dims, *, new_dtype):
    """A widening bitcast consumes the last axis, which must not be the batch axis."""
    (x,), (d,) = args, dims
    if core.get_aval(x).dtype.itemsize < np.dtype(new_dtype).itemsize and d == core.get_aval(x).ndim - 1:
        x, d = batching.moveaxis(x, d, 0), 0
    return bitcast_convert_type_p.bind(x, new_dtype=new_dtype), d


bitcast_convert_type_p.def_batch(_bitcast_batch)


# -- public wrappers (jax.lax signatures) ------------------------------------------------------

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


neg = _unary(neg_p)
sign = _unary(sign_p)
floor = _unary(floor_p)
ceil = _unary(ceil_p)
is_finite = _unary(is_finite_p)
exp = _unary(exp_p)
exp2 = _unary(exp2_p)
log = _unary(log_p)
log1p = _unary(log1p_p)
expm1 = _unary(expm1_p)
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
sqrt = _unary(sqrt_p)
rsqrt = _unary(rsqrt_p)
cbrt = _unary(cbrt_p)
abs = _unary(abs_p)
erf = _unary(erf_p)
erfc = _unary(erfc_p)
erf_inv = _unary(erf_inv_p)
lgamma = _unary(lgamma_p)
digamma = _unary(digamma_p)
real = _unary(real_p)
imag = _unary(imag_p)
bitwise_not = _unary(not_p)
population_count = _unary(population_count_p)
clz = _unary(clz_p)

add = _binary(add_p)
sub = _binary(sub_p)
mul = _binary(mul_p)
div = _binary(div_p)
rem = _binary(rem_p)
max = _binary(max_p)
min = _binary(min_p)
atan2 = _binary(atan2_p)
nextafter = _binary(nextafter_p)
bitwise_and = _binary(and_p)
bitwise_or = _binary(or_p)
bitwise_xor = _binary(xor_p)
shift_left = _binary(shift_left_p)
shift_right_logical = _binary(shift_right_logical_p)
shift_right_arithmetic = _binary(shift_right_arithmetic_p)
eq = _binary(eq_p)
ne = _binary(ne_p)
lt = _binary(lt_p)
le = _binary(le_p)
gt = _binary(gt_p)
ge = _binary(ge_p)
complex = _binary(complex_p)


def pow(x, y):
    """Elementwise power `x ** y`; `y` may be an integer array."""
    if type(y) is int and type(x) not in (int, float, complex):
        y = float(y)
    if type(x) in _PY_SCALARS and type(y) not in _PY_SCALARS and kind(core.get_aval(y).dtype) in "iu":
        x = lax_operands(x)[0]  # an integer exponent does not make a Python-scalar base integral
    x, y = lax_operands(x, y)
    return pow_p.bind(x, y)


def round(x, rounding_method=0):
    """Round to the nearest integer; `rounding_method` 0 rounds halves away from zero, 1 to even."""
    if rounding_method not in (RoundingMethod.AWAY_FROM_ZERO, RoundingMethod.TO_NEAREST_EVEN):
        raise ValueError(f"round: rounding_method must be a lax.RoundingMethod (0: AWAY_FROM_ZERO, "
                         f"1: TO_NEAREST_EVEN), got {rounding_method!r}")
    return round_p.bind(x, rounding_method=int(rounding_method))


class RoundingMethod:
    AWAY_FROM_ZERO = 0
    TO_NEAREST_EVEN = 1


def conj(x):
    return conj_p.bind(x, input_dtype=core.get_aval(x).dtype)


def integer_pow(x, y):
    """`x ** y` for a static Python int `y`, as repeated multiplication."""
    try:
        y = operator.index(y)
    except TypeError:
        raise TypeError(f"integer_pow: the exponent y must be a static integer, got {y!r} of type "
                        f"{type(y).__name__} (use lax.pow for other exponents)") from None
    return integer_pow_p.bind(x, y=y)


def square(x):
    return integer_pow(x, 2)


def reciprocal(x):
    return integer_pow(x, -1)


def select_n(which, *cases):
    """Pick, elementwise, `cases[which]`; a bool `which` picks between two cases."""
    if not cases:
        raise ValueError("select_n: at least one case is required")
    return select_n_p.bind(which, *cases)


def select(pred, on_true, on_false):
    """`on_true` where `pred` else `on_false` (JAX's classic select)."""
    return select_n_p.bind(pred, on_false, on_true)


def clamp(min, x, max):
    """Clip `x` to `[min, max]`; the bounds may be scalars."""
    min, x, max = lax_operands(min, x, max)
    return clamp_p.bind(min, x, max)


def convert_element_type(operand, new_dtype):
    """Cast to `new_dtype` (canonicalized: 64-bit types narrow unless x64 is on)."""
    return _convert_element_type(operand, new_dtype, weak_type=False)


def _convert_element_type(operand, new_dtype=None, weak_type=False):
    if hasattr(operand, "__jax_array__"):
        operand = operand.__jax_array__()
    new_dtype = np_dtype_param(new_dtype) if new_dtype is not None else core.get_aval(operand).dtype
    if type(operand) in (bool, int, float, complex) or isinstance(operand, (np.ndarray, np.generic)):
        # constants convert on the host: no device round trip, and they stay literal in jaxprs
        value = _np_convert(operand, new_dtype=new_dtype, weak_type=weak_type, sharding=None)
        return Array.from_host(value, weak_type)
    aval = core.get_aval(operand)
    if aval.dtype == new_dtype and aval.weak_type == weak_type:
        return operand
    if type(operand) is Array and operand._npy is not None and aval.ndim == 0:
        return Array.from_host(_np_convert(operand._npy, new_dtype=new_dtype, weak_type=weak_type, sharding=None), weak_type)
    return convert_element_type_p.bind(operand, new_dtype=new_dtype, weak_type=bool(weak_type), sharding=None)


def bitcast_convert_type(operand, new_dtype):
    new_dtype = np_dtype_param(new_dtype)
    old = core.get_aval(operand).dtype
    if old != new_dtype and (kind(old) in "bc" or kind(new_dtype) in "bc"):
        raise TypeError(f"bitcast_convert_type: bool and complex values can only be bitcast to "
                        f"their own type, got {old.name} to {new_dtype.name}")
    return bitcast_convert_type_p.bind(operand, new_dtype=new_dtype)


# -- differentiation rules -----------------------------------------------------------------------
# (kept together here, after the wrappers they are written with)

from pyjax._src.interpreters import ad as _ad  # noqa: E402
from pyjax._src.interpreters.ad import Zero as _Zero, defjvp, deflinear, unbroadcast_ct  # noqa: E402


def _zero_jvp(prim):
    def rule(primals, tangents, **params):
        ans = prim.bind(*primals, **params)
        outs = ans if prim.multiple_results else [ans]
        zs = [_Zero(_ad.tangent_aval(core.get_aval(o))) for o in outs]
        return ans, (zs if prim.multiple_results else zs[0])
    prim.def_jvp(rule)


def _const(x, value):
    """A scalar of `x`'s dtype (weak, so it broadcasts in lax ops)."""
    return _weak_const(value, core.get_aval(x).dtype)


def _full_like(x, value):
    """`value` with `x`'s dtype and shape (`select_n` needs cases of equal shapes)."""
    from pyjax._src.lax.shape_ops import broadcast_in_dim
    shape = core.get_aval(x).shape
    c = _const(x, value)
    return broadcast_in_dim(c, shape, ()) if shape else c


def _replace_zero(x):
    """`x` with its zeros replaced by ones (keeps log/div finite where a select masks them)."""
    return select_n(eq(x, _const(x, 0)), x, _full_like(x, 1))


# NB: nextafter has no JVP rule, as in JAX (differentiating it raises NotImplementedError).
for _p in (sign_p, floor_p, ceil_p, round_p, is_finite_p, eq_p, ne_p, lt_p, le_p,
           gt_p, ge_p, not_p, and_p, or_p, xor_p, population_count_p, clz_p, shift_left_p,
           shift_right_logical_p, shift_right_arithmetic_p, bitcast_convert_type_p):
    _zero_jvp(_p)

deflinear(neg_p, lambda ct, x: [neg(ct)])
defjvp(exp_p, lambda g, ans, x: mul(g, ans))
defjvp(exp2_p, lambda g, ans, x: mul(g, mul(ans, _const(ans, np.log(2)))))
defjvp(log_p, lambda g, ans, x: div(g, x))
defjvp(log1p_p, lambda g, ans, x: div(g, add(x, _const(x, 1))))
defjvp(expm1_p, lambda g, ans, x: mul(g, add(ans, _const(ans, 1))))
defjvp(tanh_p, lambda g, ans, x: mul(g, sub(_const(ans, 1), mul(ans, ans))))
defjvp(logistic_p, lambda g, ans, x: mul(g, mul(ans, sub(_const(ans, 1), ans))))
defjvp(sin_p, lambda g, ans, x: mul(g, cos(x)))
defjvp(cos_p, lambda g, ans, x: neg(mul(g, sin(x))))
defjvp(tan_p, lambda g, ans, x: mul(g, add(_const(ans, 1), mul(ans, ans))))
defjvp(asin_p, lambda g, ans, x: mul(g, rsqrt(sub(_const(x, 1), mul(x, x)))))
defjvp(acos_p, lambda g, ans, x: neg(mul(g, rsqrt(sub(_const(x, 1), mul(x, x))))))
defjvp(atan_p, lambda g, ans, x: div(g, add(_const(x, 1), mul(x, x))))
defjvp(sinh_p, lambda g, ans, x: mul(g, cosh(x)))
defjvp(cosh_p, lambda g, ans, x: mul(g, sinh(x)))
defjvp(asinh_p, lambda g, ans, x: mul(g, rsqrt(add(mul(x, x), _const(x, 1)))))
defjvp(acosh_p, lambda g, ans, x: mul(g, rsqrt(mul(sub(x, _const(x, 1)), add(x, _const(x, 1))))))
defjvp(atanh_p, lambda g, ans, x: div(g, sub(_const(x, 1), mul(x, x))))
defjvp(sqrt_p, lambda g, ans, x: div(g, mul(_const(ans, 2), ans)))     # inf at 0, as JAX
defjvp(rsqrt_p, lambda g, ans, x: mul(g, mul(_const(ans, -0.5), div(ans, x))))
defjvp(cbrt_p, lambda g, ans, x: mul(g, mul(_const(ans, 1 / 3), integer_pow(ans, -2))))
defjvp(erf_p, lambda g, ans, x: mul(g, mul(_const(x, 2 / np.sqrt(np.pi)), exp(neg(mul(x, x))))))
defjvp(erfc_p, lambda g, ans, x: mul(g, mul(_const(x, -2 / np.sqrt(np.pi)), exp(neg(mul(x, x))))))
defjvp(erf_inv_p, lambda g, ans, x: mul(g, mul(_const(x, np.sqrt(np.pi) / 2), exp(mul(ans, ans)))))
defjvp(lgamma_p, lambda g, ans, x: mul(g, digamma(x)))


def _abs_jvp(g, ans, x):
    if kind(core.get_aval(x).dtype) == "c":
        return div(real(mul(conj(x), g)), _replace_zero(ans))
    return select_n(ge(x, _const(x, 0)), neg(g), g)  # as JAX: the slope at 0 is +1


defjvp(abs_p, _abs_jvp)
deflinear(real_p, lambda ct, x: [complex(ct, _const(ct, 0))])
deflinear(imag_p, lambda ct, x: [complex(_const(ct, 0), neg(ct))])


def _conj_transpose(ct, x, *, input_dtype):
    if kind(np.dtype(input_dtype)) == "c":
        return [conj(ct)]
    return [real(ct)]


deflinear(conj_p, _conj_transpose)


def _transpose_binary(f):
    """Transpose of an elementwise op linear in both operands, unbroadcasting each ct."""
    def rule(ct, x, y):
        ct_x, ct_y = f(ct)
        return [unbroadcast_ct(ct_x, x.aval) if _ad.is_undefined_primal(x) else None,
                unbroadcast_ct(ct_y, y.aval) if _ad.is_undefined_primal(y) else None]
    return rule


deflinear(add_p, _transpose_binary(lambda ct: (ct, ct)))
deflinear(sub_p, _transpose_binary(lambda ct: (ct, neg(ct) if type(ct) is not _Zero else ct)))
deflinear(complex_p, _transpose_binary(lambda ct: (real(ct), imag(neg(ct)))))


def _mul_transpose(ct, x, y):
    if type(ct) is _Zero:
        return [None, None]
    if _ad.is_undefined_primal(x):
        return [unbroadcast_ct(mul(ct, y), x.aval), None]
    return [None, unbroadcast_ct(mul(x, ct), y.aval)]


defjvp(mul_p, lambda g, ans, x, y: mul(g, y), lambda g, ans, x, y: mul(x, g))
mul_p.def_transpose(_mul_transpose)


def _div_transpose(ct, x, y):
    if type(ct) is _Zero:
        return [None, None]
    return [unbroadcast_ct(div(ct, y), x.aval), None]


defjvp(div_p, lambda g, ans, x, y: div(g, y), lambda g, ans, x, y: neg(mul(g, div(ans, y))))
div_p.def_transpose(_div_transpose)
def _brcast(g, ans):
    """Broadcast a tangent of a rank-0 or size-1-stretched operand to the result's shape."""
    from pyjax._src.lax.shape_ops import broadcast_in_dim
    ga, aa = core.get_aval(g), core.get_aval(ans)
    if ga.shape == aa.shape:
        return g
    return broadcast_in_dim(g, aa.shape, tuple(range(aa.ndim)) if ga.ndim else ())


defjvp(rem_p, lambda g, ans, x, y: _brcast(g, ans),
       lambda g, ans, x, y: neg(mul(g, mul(sign(div(x, y)), floor(abs(div(x, y)))))))


def _balanced_eq(x, z, y):
    """1 where x alone attains the extremum z, 0.5 on ties with y, 0 elsewhere."""
    one, half, zero = _full_like(z, 1), _full_like(z, 0.5), _full_like(z, 0)
    return select_n(eq(x, z), zero, select_n(eq(y, z), one, half))


defjvp(max_p, lambda g, ans, x, y: mul(g, _balanced_eq(x, ans, y)),
       lambda g, ans, x, y: mul(g, _balanced_eq(y, ans, x)))
defjvp(min_p, lambda g, ans, x, y: mul(g, _balanced_eq(x, ans, y)),
       lambda g, ans, x, y: mul(g, _balanced_eq(y, ans, x)))


def _atan2_jvp_x(g, ans, x, y):
    return mul(g, div(y, add(mul(x, x), mul(y, y))))


def _atan2_jvp_y(g, ans, x, y):
    return mul(g, div(neg(x), add(mul(x, x), mul(y, y))))


defjvp(atan2_p, _atan2_jvp_x, _atan2_jvp_y)


def _pow_jvp_x(g, ans, x, y):
    if kind(core.get_aval(y).dtype) not in "iu":
        return mul(g, mul(y, pow(x, sub(y, _const(y, 1)))))  # nan at x == y == 0, as JAX
    # integer exponent: y * x^(y-1), taken as 0 where y == 0 (x**0 is 1 everywhere), as JAX
    jac = mul(convert_element_type(y, core.get_aval(x).dtype), pow(x, sub(y, _const(y, 1))))
    return mul(g, select_n(_brcast(eq(y, _const(y, 0)), ans), jac, _full_like(ans, 0)))


def _pow_jvp_y(g, ans, x, y):
    return mul(g, mul(log(_replace_zero(x)), ans))  # 0 where x == 0, as JAX


defjvp(pow_p, _pow_jvp_x, _pow_jvp_y)


def _integer_pow_jvp(g, ans, x, *, y):
    if y == 0:
        return mul(g, _const(x, 0))
    if y == 1:
        return g
    return mul(g, mul(_const(x, y), x if y == 2 else integer_pow(x, y - 1)))


defjvp(integer_pow_p, _integer_pow_jvp)


def _select_n_jvp(primals, tangents):
    which, *cases = primals
    ans = select_n(which, *cases)
    case_ts = tangents[1:]
    if all(type(t) is _Zero for t in case_ts):
        return ans, _Zero(_ad.tangent_aval(core.get_aval(ans)))
    return ans, select_n(which, *[_ad.instantiate(t) for t in case_ts])


def _select_n_transpose(ct, which, *cases):
    if type(ct) is _Zero:
        return [None] * (1 + len(cases))
    zeros = _full_like(ct, 0)
    out = [None]
    for i, c in enumerate(cases):
        if _ad.is_undefined_primal(c):
            out.append(select_n(which, *[ct if j == i else zeros for j in range(len(cases))]))
        else:
            out.append(None)
    return out


select_n_p.def_jvp(_select_n_jvp)
select_n_p.def_transpose(_select_n_transpose)


def _clamp_jvp(primals, tangents):
    lo, x, hi = primals
    ans = clamp(lo, x, hi)
    t_lo, t_x, t_hi = tangents
    out = _Zero(_ad.tangent_aval(core.get_aval(ans)))
    zeros = _full_like(ans, 0)
    # as JAX: at a tie with a bound neither the operand nor that bound gets the tangent
    if type(t_x) is not _Zero:
        out = _ad.add_tangents(out, select_n(bitwise_and(gt(x, lo), lt(x, hi)), zeros, t_x))
    if type(t_lo) is not _Zero:
        out = _ad.add_tangents(out, select_n(bitwise_and(gt(lo, x), lt(lo, hi)), zeros, _brcast(t_lo, ans)))
    if type(t_hi) is not _Zero:
        out = _ad.add_tangents(out, select_n(lt(hi, x), zeros, _brcast(t_hi, ans)))
    return ans, out


clamp_p.def_jvp(_clamp_jvp)


def _convert_jvp(primals, tangents, *, new_dtype, weak_type, sharding):
    (x,), (t,) = primals, tangents
    ans = convert_element_type_p.bind(x, new_dtype=new_dtype, weak_type=weak_type, sharding=sharding)
    out_t_aval = _ad.tangent_aval(core.get_aval(ans))
    if type(t) is _Zero or dtypes.is_float0(out_t_aval.dtype):
        return ans, _Zero(out_t_aval)
    return ans, convert_element_type_p.bind(t, new_dtype=new_dtype, weak_type=weak_type, sharding=sharding)


def _convert_transpose(ct, x, *, new_dtype, weak_type, sharding):
    if type(ct) is _Zero:
        return [None]
    in_aval = x.aval
    if kind(in_aval.dtype) != "c" and kind(core.get_aval(ct).dtype) == "c":
        ct = real(ct)
    return [convert_element_type_p.bind(ct, new_dtype=in_aval.dtype, weak_type=in_aval.weak_type, sharding=None)]


convert_element_type_p.def_jvp(_convert_jvp)
convert_element_type_p.def_transpose(_convert_transpose)
