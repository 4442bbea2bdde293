"""`jnp.frexp` and `jnp.ldexp`: a float's mantissa and exponent, read from its bits.

frexp's mantissa is differentiable (a custom JVP, as JAX's), so these two sit above the other
ufuncs, beside `custom_jvp` (tests/test_layers.py: the api layer).
"""
from __future__ import annotations

import numpy as np

from pyjax._src import dtypes
from pyjax._src.custom_derivatives import custom_jvp
from pyjax._src.lax import elementwise as lax
from pyjax._src.lax.utils import kind
from pyjax._src.numpy.ufuncs import (
    _dtype, _reject_complex, add, equal, exp2, greater, isinf, logical_or, multiply, negative,
    power, subtract, where_)
from pyjax._src.numpy.util import check_arraylike, promote_args_inexact


def frexp(x, /):
    """The mantissa and exponent of `x`: `x == m * 2**e` with `0.5 <= |m| < 1` (m = x, e = 0
    for 0, inf and NaN), from the float's bits.

    NB: subnormal inputs give NumPy's (exact) answer; JAX's float arithmetic flushes them (its
    frexp(1e-40) is (0.5, -149) where NumPy's is (0.544, -132)).

        >>> jnp.frexp(jnp.array([8.0, -0.75]))
        (Array([ 0.5 , -0.75], dtype=float32), Array([4, 0], dtype=int32))
    """
    (x,) = promote_args_inexact("frexp", x)
    _reject_complex("frexp", x)
    return _frexp(x)


@custom_jvp
def _frexp(x):
    dt = _dtype(x)
    info = dtypes.finfo(dt)
    width, nmant, bias = dt.itemsize * 8, int(info.nmant), 1 - int(info.minexp)
    uint = np.dtype(f"uint{width}")
    u = lambda v: np.asarray(v, uint)  # noqa: E731
    exp_mask, mant_mask, sign = (1 << int(info.nexp)) - 1, (1 << nmant) - 1, 1 << (width - 1)
    bits = lax.bitcast_convert_type(x, uint)
    exp_field = lax.bitwise_and(lax.shift_right_logical(bits, u(nmant)), u(exp_mask))
    mant = lax.bitwise_and(bits, u(mant_mask))
    # a subnormal's leading 1 moves up to the implicit bit; its exponent goes down as far
    shift = lax.sub(lax.clz(mant), u(width - 1 - nmant))
    subnormal = lax.bitwise_and(lax.eq(exp_field, u(0)), lax.ne(mant, u(0)))
    mant = lax.select_n(subnormal, mant, lax.bitwise_and(lax.shift_left(mant, shift), u(mant_mask)))
    exp_field = lax.select_n(subnormal, lax.convert_element_type(exp_field, np.int32),
                             lax.sub(np.int32(1), lax.convert_element_type(shift, np.int32)))
    m_bits = lax.bitwise_or(lax.bitwise_or(lax.bitwise_and(bits, u(sign)), u((bias - 1) << nmant)), mant)
    e = lax.sub(exp_field, np.int32(bias - 1))
    special = logical_or(lax.eq(lax.bitwise_and(bits, u(sign - 1)), u(0)),  # +-0 (by its bits: no flushing)
                         lax.eq(lax.bitwise_and(lax.shift_right_logical(bits, u(nmant)), u(exp_mask)), u(exp_mask)))
    return where_(special, x, lax.bitcast_convert_type(m_bits, dt)), where_(special, np.int32(0), e)


@_frexp.defjvp
def _frexp_jvp(primals, tangents):
    # as JAX: the mantissa moves with x scaled by 2**-e (its bits alone have no derivative)
    (x,), (t,) = primals, tangents
    m, e = _frexp(x)
    return (m, e), (multiply(t, exp2(negative(lax.convert_element_type(e, _dtype(t))))),
                    np.zeros(np.shape(e), dtypes.float0))


def ldexp(x1, x2, /):
    """`x1 * 2 ** x2`, as JAX 0.10.2 computes it: the exponent of x1 is split off first (no
    overflow for a small x1 and a large x2) and `2 ** e` is a power (exact), not exp2 (which XLA
    computes as exp(e ln 2): 2 ** 3 would be 7.999999999999998 in float64)."""
    check_arraylike("ldexp", x1, x2)
    if kind(_dtype(x1)) == "c" or kind(_dtype(x2)) in "fc":
        raise ValueError(f"ldexp not supported for input types {(_dtype(x1), _dtype(x2))}")
    (x1,) = promote_args_inexact("ldexp", x1)
    dt = _dtype(x1)
    m, e = frexp(x1)
    e = lax.convert_element_type(add(lax.convert_element_type(e, dt), lax.convert_element_type(x2, dt)), dt)
    # the exponent may overflow by one with a finite result: move one factor 2 into m
    pos = greater(e, 0)
    m, e = where_(pos, multiply(m, 2), m), where_(pos, subtract(e, 1), e)
    x = multiply(m, power(lax.convert_element_type(2, dt), e))
    return where_(logical_or(isinf(x1), equal(x1, 0)), x1, x)
