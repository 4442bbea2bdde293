"""Elementwise pyjax.numpy functions (the NumPy ufuncs), built on lax with JAX's dtype promotion.

Most are one line: `sin = _unary(lax.sin, "sin", inexact=True)` promotes integer inputs to float
first; `add = _binary(lax.add, "add")` promotes both operands to their common dtype and
broadcasts them NumPy-style.
"""
from __future__ import annotations

import operator

import numpy as np

from pyjax._src import core, dtypes
from pyjax._src.array import Array, ArrayImpl
from pyjax._src.lax import elementwise as lax
from pyjax._src.lax import shape_ops
from pyjax._src.lax.control_flow.while_loop import while_loop
from pyjax._src.lax.reductions import reduce_or as _lax_reduce_or
from pyjax._src.lax.utils import kind
from pyjax._src.numpy.util import broadcast_shapes, broadcast_to, promote_shapes
from pyjax._src.numpy.util import (
    asarray_value, check_arraylike, promote_args, promote_args_inexact, promote_args_numeric,
    promote_dtypes, promote_dtypes_inexact)


def _dtype(x):
    return core.get_aval(x).dtype


_INEXACT = frozenset(np.dtype(d) for d in (np.float16, np.float32, np.float64, np.complex64,
                                           np.complex128, dtypes.bfloat16))


def _unary(lax_fn, name, inexact=False, numeric=False):
    def fn(x, /):
        if type(x) is ArrayImpl and x.aval.dtype in _INEXACT:  # fast path: nothing to promote
            return lax_fn(x)
        if inexact:
            (x,) = promote_args_inexact(name, x)
        elif numeric:
            (x,) = promote_args_numeric(name, x)
        else:
            (x,) = promote_args(name, x)
        return lax_fn(x)
    fn.__name__ = name
    fn.__qualname__ = name
    fn.__doc__ = f"Elementwise `{name}`, as `numpy.{name}` (computed by `lax.{lax_fn.__name__}`)."
    return fn


def _binary(lax_fn, name, inexact=False):
    def fn(x1, x2, /):
        if type(x1) is ArrayImpl and type(x2) is ArrayImpl:  # fast path: same dtype and shape, strong
            a1, a2 = x1.aval, x2.aval
            if a1.dtype == a2.dtype and a1.shape == a2.shape and not (a1.weak_type or a2.weak_type) \
                    and (not inexact or a1.dtype in _INEXACT):
                return lax_fn(x1, x2)
        if inexact:
            x1, x2 = promote_args_inexact(name, x1, x2)
        else:
            x1, x2 = promote_args(name, x1, x2)
        return lax_fn(x1, x2)
    fn.__name__ = name
    fn.__qualname__ = name
    fn.__doc__ = f"Elementwise `{name}` with NumPy broadcasting, as `numpy.{name}`."
    return fn


# -- one-to-one with lax ---------------------------------------------------------------------

sin = _unary(lax.sin, "sin", inexact=True)
cos = _unary(lax.cos, "cos", inexact=True)
tan = _unary(lax.tan, "tan", inexact=True)
arcsin = _unary(lax.asin, "arcsin", inexact=True)
arccos = _unary(lax.acos, "arccos", inexact=True)
arctan = _unary(lax.atan, "arctan", inexact=True)
sinh = _unary(lax.sinh, "sinh", inexact=True)
cosh = _unary(lax.cosh, "cosh", inexact=True)
tanh = _unary(lax.tanh, "tanh", inexact=True)
arcsinh = _unary(lax.asinh, "arcsinh", inexact=True)
arccosh = _unary(lax.acosh, "arccosh", inexact=True)
arctanh = _unary(lax.atanh, "arctanh", inexact=True)
exp = _unary(lax.exp, "exp", inexact=True)
exp2 = _unary(lax.exp2, "exp2", inexact=True)
log = _unary(lax.log, "log", inexact=True)
log1p = _unary(lax.log1p, "log1p", inexact=True)
expm1 = _unary(lax.expm1, "expm1", inexact=True)
sqrt = _unary(lax.sqrt, "sqrt", inexact=True)
cbrt = _unary(lax.cbrt, "cbrt", inexact=True)
negative = _unary(lax.neg, "negative")  # bool is an error, as in JAX

asin, acos, atan, asinh, acosh, atanh = arcsin, arccos, arctan, arcsinh, arccosh, arctanh



def _bool_as(lax_fn, bool_fn, name):
    """Arithmetic that acts logically on bools, as in JAX (`add` is `or`, `multiply` is `and`)."""
    def fn(x1, x2, /):
        if type(x1) is ArrayImpl and type(x2) is ArrayImpl:  # fast path: same dtype and shape, strong
            a1, a2 = x1.aval, x2.aval
            if a1.dtype == a2.dtype and a1.shape == a2.shape and not (a1.weak_type or a2.weak_type) \
                    and a1.dtype != np.bool_:
                return lax_fn(x1, x2)
        x1, x2 = promote_args(name, x1, x2)
        return (bool_fn if _dtype(x1) == np.bool_ else lax_fn)(x1, x2)
    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = f"Elementwise `{name}` with NumPy broadcasting, as `numpy.{name}`."
    return fn


add = _bool_as(lax.add, lax.bitwise_or, "add")
subtract = _binary(lax.sub, "subtract")
multiply = _bool_as(lax.mul, lax.bitwise_and, "multiply")
maximum = _binary(lax.max, "maximum")
minimum = _binary(lax.min, "minimum")
arctan2 = _binary(lax.atan2, "arctan2", inexact=True)
atan2 = arctan2
nextafter = _binary(lax.nextafter, "nextafter", inexact=True)
equal = _binary(lax.eq, "equal")
not_equal = _binary(lax.ne, "not_equal")


def _ordered_compare(lax_fn, name):
    """An order comparison; complex numbers compare lexicographically (real, then imag), as JAX."""
    def fn(x1, x2, /):
        x1, x2 = promote_args(name, x1, x2)
        if kind(_dtype(x1)) != "c":
            return lax_fn(x1, x2)
        re1, re2 = lax.real(x1), lax.real(x2)
        return lax.select(lax.eq(re1, re2), lax_fn(lax.imag(x1), lax.imag(x2)), lax_fn(re1, re2))
    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = f"Elementwise `{name}` with NumPy broadcasting, as `numpy.{name}`."
    return fn


less = _ordered_compare(lax.lt, "less")
less_equal = _ordered_compare(lax.le, "less_equal")
greater = _ordered_compare(lax.gt, "greater")
greater_equal = _ordered_compare(lax.ge, "greater_equal")
bitwise_and = _binary(lax.bitwise_and, "bitwise_and")
bitwise_or = _binary(lax.bitwise_or, "bitwise_or")
bitwise_xor = _binary(lax.bitwise_xor, "bitwise_xor")


def left_shift(x1, x2, /):
    x1, x2 = promote_args_numeric("left_shift", x1, x2)  # bools shift as int32, as in JAX
    return lax.shift_left(x1, x2)


bitwise_left_shift = left_shift


def _bool_or_bitwise(lax_fn, name):
    def fn(x1, x2, /):
        x1, x2 = promote_args(name, x1, x2)
        if kind(_dtype(x1)) not in "biu":
            raise TypeError(f"{name}: inputs must be boolean or integer, got {_dtype(x1).name}")
        return lax_fn(x1, x2)
    fn.__name__ = name
    return fn


def logical_and(x1, x2, /):
    x1, x2 = promote_args("logical_and", _to_bool(x1), _to_bool(x2))
    return lax.bitwise_and(x1, x2)


def logical_or(x1, x2, /):
    x1, x2 = promote_args("logical_or", _to_bool(x1), _to_bool(x2))
    return lax.bitwise_or(x1, x2)


def logical_xor(x1, x2, /):
    x1, x2 = promote_args("logical_xor", _to_bool(x1), _to_bool(x2))
    return lax.bitwise_xor(x1, x2)


def logical_not(x, /):
    return lax.bitwise_not(_to_bool(x))


def _to_bool(x):
    check_arraylike("logical op", x)
    x = asarray_value(x)
    return x if _dtype(x) == np.bool_ else not_equal(x, 0)


def invert(x, /):
    (x,) = promote_args("invert", x)
    if kind(_dtype(x)) not in "biu":
        raise TypeError(f"invert: input must be boolean or integer, got {_dtype(x).name}")
    return lax.bitwise_not(x)


bitwise_not = bitwise_invert = invert


def right_shift(x1, x2, /):
    x1, x2 = promote_args_numeric("right_shift", x1, x2)
    if kind(_dtype(x1)) == "u":
        return lax.shift_right_logical(x1, x2)
    return lax.shift_right_arithmetic(x1, x2)


bitwise_right_shift = right_shift


def bitwise_count(x, /):
    (x,) = promote_args("bitwise_count", x)
    if _dtype(x) == np.bool_:
        return lax.convert_element_type(x, np.uint8)
    return lax.population_count(lax.abs(x) if kind(_dtype(x)) == "i" else x).astype(np.uint8)


# -- arithmetic with NumPy's semantics --------------------------------------------------------

def true_divide(x1, x2, /):
    """`x1 / x2`, always floating (integers promote to float)."""
    x1, x2 = promote_args_inexact("true_divide", x1, x2)
    return lax.div(x1, x2)


divide = true_divide


def floor_divide(x1, x2, /):
    """`x1 // x2`, rounding toward negative infinity as Python does. An integer division by 0
    gives XLA's quotient (-1 for signed types, the maximum for unsigned), stepped as JAX steps it."""
    x1, x2 = promote_args_numeric("floor_divide", x1, x2)
    k = kind(_dtype(x1))
    if k == "u":
        return lax.div(x1, x2)
    if k == "i":
        q = lax.div(x1, x2)
        # C division truncates: step down where the signs differ and the division is inexact
        fix = logical_and(not_equal(lax.sign(x1), lax.sign(x2)), not_equal(lax.rem(x1, x2), 0))
        return where_(fix, lax.sub(q, _one_like(q)), q)
    if k == "c":
        raise TypeError("floor_divide does not support complex inputs")
    return _float_divmod(x1, x2)[0]


def _float_divmod(x1, x2):
    """Python's float `divmod` (CPython's float_divmod): the quotient from the exact remainder,
    so `1.0 // 0.1` is 9.0 as in NumPy, not floor(1.0 / 0.1) = 10.0."""
    mod = lax.rem(x1, x2)
    div = lax.div(where_(equal(x2, 0), x1, lax.sub(x1, mod)), x2)
    fix = logical_and(not_equal(mod, 0), not_equal(lax.sign(x2), lax.sign(mod)))
    mod = where_(fix, lax.add(mod, x2), mod)
    div = where_(fix, lax.sub(div, _one_like(div)), div)
    return lax.round(div), mod


def _nonzero_divisor(x2):
    """Integer remainders by 0 are 0 in JAX (XLA's would be the dividend): divide by 1 there."""
    return where_(equal(x2, 0), _one_like(x2), x2) if kind(_dtype(x2)) in "iu" else x2


def remainder(x1, x2, /):
    """Remainder with the sign of the divisor, as Python's `%`; 0 where an integer divisor is 0."""
    x1, x2 = promote_args_numeric("remainder", x1, x2)
    x2 = _nonzero_divisor(x2)
    if kind(_dtype(x1)) == "u":
        return lax.rem(x1, x2)
    r = lax.rem(x1, x2)
    fix = logical_and(not_equal(r, 0), not_equal(lax.lt(r, _zero_like(r)), lax.lt(x2, _zero_like(x2))))
    return where_(fix, lax.add(r, x2), r)


mod = remainder


def fmod(x1, x2, /):
    """Remainder with the sign of the dividend (C's fmod); 0 where an integer divisor is 0."""
    x1, x2 = promote_args_numeric("fmod", x1, x2)
    return lax.rem(x1, _nonzero_divisor(x2))


def divmod(x1, x2, /):
    x1, x2 = promote_args_numeric("divmod", x1, x2)
    if kind(_dtype(x1)) in "iu":
        return floor_divide(x1, x2), remainder(x1, x2)
    if kind(_dtype(x1)) == "c":
        raise TypeError("divmod does not support complex inputs")
    return _float_divmod(x1, x2)


def power(x1, x2, /):
    """`x1 ** x2`; a static integer exponent becomes repeated multiplication."""
    check_arraylike("power", x1, x2)
    if not isinstance(x2, core.Tracer) and np.ndim(x2) == 0:
        try:  # a concrete integer scalar (Python, NumPy or Array), as in JAX
            y = operator.index(x2)
        except TypeError:
            pass
        else:
            (x1,) = promote_args_numeric("power", x1)
            return lax.integer_pow(x1, y)  # negative powers of integers are a TypeError
    p1, p2 = promote_args_numeric("power", x1, x2)
    if kind(_dtype(p1)) in "biu":
        return _int_power(p1, p2)
    if kind(_dtype(x1)) in "fc" and kind(_dtype(x2)) in "iu":
        # an integer exponent stays integer (lax.pow takes it): no promotion of the exponent
        return lax.pow(*promote_shapes("power", asarray_value(x1), asarray_value(x2)))
    return lax.pow(p1, p2)


pow = power


def _int_power(x1, x2):
    """Integer power by square-and-multiply over the bits of a traced exponent."""
    x1, x2 = promote_shapes("power", x1, x2)
    acc = lax.add(lax.mul(x1, _zero_like(x1)), _one_like(x1))
    base = lax.add(x1, lax.mul(acc, _zero_like(acc)))
    e = lax.add(x2, lax.mul(x1, _zero_like(x1))) if core.get_aval(x2).ndim < core.get_aval(x1).ndim else x2
    for _ in range(np.iinfo(_dtype(x1)).bits):
        bit = not_equal(lax.bitwise_and(e, _one_like(e)), 0)
        acc = where_(bit, lax.mul(acc, base), acc)
        base = lax.mul(base, base)
        e = lax.shift_right_logical(e, _one_like(e))
    neg = lax.lt(x2, _zero_like(x2))
    return where_(neg, lax.mul(acc, _zero_like(acc)), acc)


def float_power(x1, x2, /):
    x1, x2 = promote_args_inexact("float_power", x1, x2)
    return lax.pow(x1, x2)


def square(x, /):
    (x,) = promote_args_numeric("square", x)
    return lax.square(x)


def reciprocal(x, /):
    (x,) = promote_args_inexact("reciprocal", x)
    return lax.integer_pow(x, -1)


def positive(x, /):
    (x,) = promote_args("positive", x)
    return x


def absolute(x, /):
    (x,) = promote_args("absolute", x)
    if kind(_dtype(x)) in "ub":
        return x
    return lax.abs(x)


abs = absolute


def fabs(x, /):
    (x,) = promote_args_inexact("fabs", x)
    _reject_complex("fabs", x)
    return lax.abs(x)


def _reject_complex(name, *xs):
    for x in xs:
        if kind(_dtype(x)) == "c":
            raise TypeError(f"{name} does not support complex inputs, got {core.get_aval(x).str_short()}")


def sign(x, /):
    (x,) = promote_args("sign", x)
    k = kind(_dtype(x))
    if k == "b":
        raise TypeError("sign does not accept dtype bool")
    if k == "u":
        return lax.convert_element_type(not_equal(x, 0), _dtype(x))
    if k == "c":
        a = lax.abs(x)
        return where_(equal(a, 0), lax.mul(x, _zero_like(x)), lax.div(x, lax.convert_element_type(a, _dtype(x))))
    return lax.sign(x)


def floor(x, /):
    (x,) = promote_args("floor", x)
    return x if kind(_dtype(x)) in "biu" else lax.floor(x)


def ceil(x, /):
    (x,) = promote_args("ceil", x)
    return x if kind(_dtype(x)) in "biu" else lax.ceil(x)


def trunc(x, /):
    (x,) = promote_args("trunc", x)
    if kind(_dtype(x)) in "biu":
        return x
    return where_(lax.lt(x, _zero_like(x)), lax.ceil(x), lax.floor(x))


fix = trunc


def rint(x, /):
    (x,) = promote_args_inexact("rint", x)
    return _round_even(x)


def _round_even(x):
    """Round half to even; complex numbers round their real and imaginary parts."""
    if kind(_dtype(x)) == "c":
        return lax.complex(_round_even(lax.real(x)), _round_even(lax.imag(x)))
    return lax.round(x, lax.RoundingMethod.TO_NEAREST_EVEN)


def round(a, decimals=0, out=None):
    """Round half to even, to `decimals` places (as numpy.round)."""
    if out is not None:
        raise NotImplementedError("round: the out argument is not supported (arrays are immutable)")
    (a,) = promote_args("round", a)
    if _dtype(a) == np.bool_:
        raise TypeError("round does not accept dtype bool")
    if kind(_dtype(a)) in "iu":
        if decimals < 0:
            raise NotImplementedError("integer jnp.round is not implemented for decimals < 0")
        return a
    if decimals == 0:
        return _round_even(a)
    factor = 10.0 ** decimals
    return lax.div(_round_even(lax.mul(a, factor)), factor)


around = round


def isfinite(x, /):
    (x,) = promote_args("isfinite", x)
    k = kind(_dtype(x))
    if k in "biu":
        return _full_bool(x, True)
    if k == "c":
        return logical_and(lax.is_finite(lax.real(x)), lax.is_finite(lax.imag(x)))
    return lax.is_finite(x)


def isinf(x, /):
    (x,) = promote_args("isinf", x)
    k = kind(_dtype(x))
    if k in "biu":
        return _full_bool(x, False)
    if k == "c":
        return logical_or(isinf(lax.real(x)), isinf(lax.imag(x)))
    return equal(lax.abs(x), np.inf)


def isposinf(x, /):
    (x,) = promote_args("isposinf", x)
    _reject_complex("isposinf", x)
    return logical_and(isinf(x), greater(x, 0))


def isneginf(x, /):
    (x,) = promote_args("isneginf", x)
    _reject_complex("isneginf", x)
    return logical_and(isinf(x), less(x, 0))


def isnan(x, /):
    (x,) = promote_args("isnan", x)
    if kind(_dtype(x)) in "biu":
        return _full_bool(x, False)
    return lax.ne(x, x)


def signbit(x, /):
    (x,) = promote_args("signbit", x)
    k = kind(_dtype(x))
    if k == "u" or k == "b":
        return _full_bool(x, False)
    if k == "i":
        return lax.lt(x, _zero_like(x))
    dt = _dtype(x)
    int_dt = {2: np.int16, 4: np.int32, 8: np.int64}[dt.itemsize]
    return lax.lt(lax.bitcast_convert_type(x, int_dt), np.zeros((), int_dt)[()].item())


def copysign(x1, x2, /):
    x1, x2 = promote_args_inexact("copysign", x1, x2)
    return where_(signbit(x2), lax.neg(lax.abs(x1)), lax.abs(x1))


def heaviside(x1, x2, /):
    x1, x2 = promote_args_inexact("heaviside", x1, x2)
    zero = _zero_like(x1)
    return where_(lax.lt(x1, zero), zero, where_(lax.gt(x1, zero), _one_like(x1), x2))


def hypot(x1, x2, /):
    x1, x2 = promote_args_inexact("hypot", x1, x2)
    _reject_complex("hypot", x1, x2)
    x1, x2 = lax.abs(x1), lax.abs(x2)
    big, small = lax.max(x1, x2), lax.min(x1, x2)
    safe = where_(equal(big, 0), _one_like(big), big)
    r = lax.div(small, safe)
    out = where_(equal(big, 0), big, lax.mul(big, lax.sqrt(lax.add(_one_like(r), lax.mul(r, r)))))
    return where_(logical_or(isposinf(x1), isposinf(x2)), np.inf, out)  # hypot(inf, nan) = inf


def _wrap_into(x, half):
    """x moved by a multiple of 2 half into [-half, half)."""
    period = 2 * half
    r = lax.rem(lax.add(x, half), period)
    return lax.sub(where_(lax.lt(r, _zero_like(r)), lax.add(r, period), r), half)


def _complex_logaddexp(x1, x2, log1p_exp, scale, half_period):
    """log(exp(x1) + exp(x2)) for complex operands, as amax + log1p(exp(x1 + x2 - 2 amax)) (amax
    the lexicographic max), its imaginary part wrapped into one period (JAX's formula)."""
    amax = lax.max(x1, x2)
    delta = lax.sub(lax.add(x1, x2), lax.mul(amax, 2.0))
    out = lax.add(amax, lax.mul(log1p_exp(delta), scale))
    return lax.complex(lax.real(out), _wrap_into(lax.imag(out), half_period))


def logaddexp(x1, x2, /):
    x1, x2 = promote_args_inexact("logaddexp", x1, x2)
    if kind(_dtype(x1)) == "c":
        return _complex_logaddexp(x1, x2, lambda d: lax.log1p(lax.exp(d)), 1.0, np.pi)
    amax = lax.max(x1, x2)
    delta = lax.sub(x1, x2)
    out = lax.add(amax, lax.log1p(lax.exp(lax.neg(lax.abs(delta)))))
    return where_(isnan(delta), lax.add(x1, x2), out)


def logaddexp2(x1, x2, /):
    x1, x2 = promote_args_inexact("logaddexp2", x1, x2)
    ln2 = float(np.log(2))
    if kind(_dtype(x1)) == "c":
        return _complex_logaddexp(x1, x2, lambda d: lax.log1p(lax.exp2(d)), 1 / ln2, np.pi / ln2)
    return lax.div(logaddexp(lax.mul(x1, ln2), lax.mul(x2, ln2)), ln2)


def log2(x, /):
    (x,) = promote_args_inexact("log2", x)
    return lax.div(lax.log(x), float(np.log(2)))


def log10(x, /):
    (x,) = promote_args_inexact("log10", x)
    return lax.div(lax.log(x), float(np.log(10)))


def deg2rad(x, /):
    (x,) = promote_args_inexact("deg2rad", x)
    return lax.mul(x, float(np.pi / 180))


def rad2deg(x, /):
    (x,) = promote_args_inexact("rad2deg", x)
    return lax.mul(x, float(180 / np.pi))


radians, degrees = deg2rad, rad2deg


def sinc(x, /):
    (x,) = promote_args_inexact("sinc", x)
    pix = lax.mul(x, float(np.pi))
    safe = where_(equal(x, 0), _one_like(x), pix)
    return where_(equal(x, 0), _one_like(x), lax.div(lax.sin(safe), safe))


def real(val, /):
    (val,) = promote_args("real", val)
    return lax.real(val) if kind(_dtype(val)) == "c" else val


def imag(val, /):
    (val,) = promote_args("imag", val)
    return lax.imag(val) if kind(_dtype(val)) == "c" else _full_like(val, _zero_like(val))


def conjugate(x, /):
    (x,) = promote_args("conjugate", x)
    return lax.conj(x) if kind(_dtype(x)) == "c" else x


conj = conjugate


def angle(z, deg=False):
    (z,) = promote_args_inexact("angle", z)
    if kind(_dtype(z)) == "c":
        out = lax.atan2(lax.imag(z), lax.real(z))
    else:
        out = lax.atan2(_zero_like(z), z)
    return rad2deg(out) if deg else out


def _integer_args(name, x1, x2):
    x1, x2 = promote_args(name, x1, x2)
    if kind(_dtype(x1)) not in "iu":
        raise ValueError(f"Arguments to jax.numpy.{name} must be integers.")
    return absolute(x1), absolute(x2)


def gcd(x1, x2, /):
    """The greatest common divisor of |x1| and |x2|, elementwise (Euclid's algorithm in a
    while_loop, until every remainder is 0).

        >>> jnp.gcd(jnp.array([12, 0, 7]), jnp.array([18, 5, 0]))
        Array([6, 5, 7], dtype=int32)
    """
    a, b = _broadcast_pair(*_integer_args("gcd", x1, x2))
    zero, one = _full_like(a, 0), _full_like(a, 1)
    everywhere = tuple(range(core.get_aval(a).ndim))

    def step(ab):  # (a, b) -> (b, a mod b) where b != 0
        a, b = ab
        live = lax.ne(b, zero)
        return lax.select_n(live, a, b), lax.select_n(live, zero, lax.rem(a, lax.select_n(live, one, b)))
    return while_loop(lambda ab: _lax_reduce_or(lax.ne(ab[1], zero), everywhere), step, (a, b))[0]


def _broadcast_pair(x, y):
    shape = broadcast_shapes(core.get_aval(x).shape, core.get_aval(y).shape)
    return broadcast_to(x, shape), broadcast_to(y, shape)


def lcm(x1, x2, /):
    """The least common multiple of |x1| and |x2|, elementwise (0 when either is 0)."""
    a, b = _integer_args("lcm", x1, x2)
    d = gcd(a, b)
    zero = _full_like(d, 0)
    return where_(equal(d, zero), zero, multiply(a, floor_divide(b, lax.select_n(equal(d, zero), d, _full_like(d, 1)))))


def modf(x, /, out=None):
    """The fractional and integral parts of `x` (both with its sign).

        >>> jnp.modf(jnp.array([-1.5, 2.25]))
        (Array([-0.5 ,  0.25], dtype=float32), Array([-1.,  2.], dtype=float32))
    """
    if out is not None:
        raise NotImplementedError("The 'out' argument to jnp.modf is not supported.")
    (x,) = promote_args_inexact("modf", x)
    whole = where_(greater_equal(x, _full_like(x, 0)), floor(x), ceil(x))
    return subtract(x, whole), whole


def fmax(x1, x2):
    """Elementwise maximum ignoring NaNs (NaN only where both are)."""
    return where_(logical_or(greater(x1, x2), isnan(x2)), x1, x2)


def fmin(x1, x2):
    """Elementwise minimum ignoring NaNs (NaN only where both are)."""
    return where_(logical_or(less(x1, x2), isnan(x2)), x1, x2)


def nan_to_num(x, copy=True, nan=0.0, posinf=None, neginf=None):
    """`x` with NaN replaced by `nan` and infinities by `posinf`/`neginf` (default: the largest
    finite values of its dtype); complex parts are handled separately.

        >>> jnp.nan_to_num(jnp.array([jnp.nan, jnp.inf, 1.0]))
        Array([0.0000000e+00, 3.4028235e+38, 1.0000000e+00], dtype=float32)
    """
    check_arraylike("nan_to_num", x)
    x = asarray_value(x)
    dt = _dtype(x)
    if kind(dt) not in "fc":
        return x
    if kind(dt) == "c":
        return lax.complex(nan_to_num(lax.real(x), nan=nan, posinf=posinf, neginf=neginf),
                           nan_to_num(lax.imag(x), nan=nan, posinf=posinf, neginf=neginf))
    info = dtypes.finfo(dt)
    const = lambda v: np.asarray(v, dt)  # noqa: E731
    out = where_(isnan(x), const(nan), x)
    out = where_(isposinf(out), const(info.max if posinf is None else posinf), out)
    return where_(isneginf(out), const(info.min if neginf is None else neginf), out)


def _imag_test(compare, x):
    i = imag(x)
    out = compare(i, _full_like(i, 0))
    # a weak input gives a weak bool, as JAX's comparison of two weak operands
    return lax._convert_element_type(out, None, True) if dtypes.is_weakly_typed(x) else out


def iscomplex(x):
    """Elementwise: is the imaginary part nonzero?"""
    return _imag_test(lax.ne, x)


def isreal(x):
    """Elementwise: is the imaginary part zero?"""
    return _imag_test(lax.eq, x)


def spacing(x, /):
    """The distance to the next float away from zero (as NumPy; JAX's formula)."""
    (x,) = promote_args_inexact("spacing", x)
    _reject_complex("spacing", x)
    if _dtype(x) == np.float16:
        return lax.sub(lax.nextafter(x, np.inf), x)
    result = lax.sub(lax.nextafter(x, copysign(np.inf, x)), x)
    # the result of a subtraction flushes subnormals to zero: spacing(0) is the smallest one
    tiny = float(dtypes.finfo(_dtype(x)).smallest_subnormal)
    return where_(equal(result, 0), copysign(tiny, x), result)


def _zero_like(x):
    return np.zeros((), _dtype(x))[()].item() if kind(_dtype(x)) != "b" else False


def _one_like(x):
    return np.ones((), _dtype(x))[()].item()


def _full_like(x, value):
    return shape_ops.broadcast_in_dim(np.asarray(value, _dtype(x)), core.get_aval(x).shape, ())


def _full_bool(x, value):
    return shape_ops.broadcast_in_dim(np.bool_(value), core.get_aval(x).shape, ())


def where_(cond, x, y):
    """Three-argument where on already promoted operands, with NumPy broadcasting."""
    check_arraylike("where", x, y)
    x, y = promote_dtypes(x, y)  # as JAX: where broadcasts freely, whatever rank promotion says
    shape = broadcast_shapes(*(core.get_aval(v).shape for v in (cond, x, y)))
    cond = broadcast_to(cond, shape) if core.get_aval(cond).shape != shape else cond
    x = broadcast_to(x, shape) if core.get_aval(x).shape != shape else x
    y = broadcast_to(y, shape) if core.get_aval(y).shape != shape else y
    if _dtype(cond) != np.bool_:
        cond = not_equal(cond, 0)
    return lax.select_n(cond, y, x)


del promote_dtypes_inexact
