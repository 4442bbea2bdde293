"""Special-function lax primitives: polygamma and zeta (XLA's CHLO ops), digamma's derivative,
and the exponentially scaled Bessel functions bessel_i0e (a Chebyshev series, lowered as lax ops,
as JAX does) and bessel_i1e (CHLO). lgamma and digamma themselves are in elementwise.py.

Each primitive's reference implementation is SciPy's, imported on first use (SciPy is a test
dependency, not a runtime one). Half-precision operands are computed in float32, as XLA's CHLO
expansions do.
"""
from __future__ import annotations

import numpy as np

from pyjax._src import core, dtypes
from pyjax._src.interpreters.ad import defjvp
from pyjax._src.lax.elementwise import (
    _const, _full_like, _sps, abs, add, convert_element_type, digamma_p, div, gt, mul, select_n,
    sign, sqrt, sub)
from pyjax._src.lax.utils import FLOAT, binop, unop


def _unary(p):
    def f(x):
        return p.bind(x)
    f.__name__ = p.name
    return f


# -- derivatives of log gamma, and zeta ----------------------------------------------------------


def _polygamma_jvp_m(g, ans, m, x):
    # as JAX: the order is an integer in all but dtype, so there is no derivative along it
    raise ValueError("polygamma gradient with respect to m is not supported")


# lgamma_p and digamma_p live in elementwise.py (modules below this one use them); digamma's
# derivative is polygamma(1, x), attached here beside polygamma.
defjvp(digamma_p, lambda g, ans, x: mul(g, polygamma(_const(x, 1), x)))
# polygamma(m, x): the m-th derivative of digamma, m a non-negative integer held in a float
polygamma_p = binop("polygamma", lambda m, x: _sps().polygamma(m, x), "chlo.polygamma", FLOAT,
                    jvp=(_polygamma_jvp_m,
                         lambda g, ans, m, x: mul(g, polygamma(add(m, _const(m, 1)), x))))
# NB: no JVP, as in JAX's lax (jax.scipy.special.zeta differentiates a series instead).
zeta_p = binop("zeta", lambda s, q: _sps().zeta(s, q), "chlo.zeta", FLOAT)


def polygamma(m, x):
    """The m-th derivative of digamma at x (m a non-negative integer, of x's float dtype)."""
    return polygamma_p.bind(m, x)


def zeta(x, q):
    """The Hurwitz zeta function: sum over k >= 0 of (q + k) ** -x."""
    return zeta_p.bind(x, q)


# -- exponentially scaled modified Bessel functions ----------------------------------------------
# i0e(x) = exp(-|x|) i0(x), evaluated with Cephes' Chebyshev expansions: one in (x/2 - 2) for
# |x| <= 8, one in (32/|x| - 2) divided by sqrt(|x|) above.

_I0E_SMALL_F64 = np.array([
    -4.41534164647933937950E-18, 3.33079451882223809783E-17, -2.43127984654795469359E-16,
    1.71539128555513303061E-15, -1.16853328779934516808E-14, 7.67618549860493561688E-14,
    -4.85644678311192946090E-13, 2.95505266312963983461E-12, -1.72682629144155570723E-11,
    9.67580903537323691224E-11, -5.18979560163526290666E-10, 2.65982372468238665035E-9,
    -1.30002500998624804212E-8, 6.04699502254191894932E-8, -2.67079385394061173391E-7,
    1.11738753912010371815E-6, -4.41673835845875056359E-6, 1.64484480707288970893E-5,
    -5.75419501008210370398E-5, 1.88502885095841655729E-4, -5.76375574538582365885E-4,
    1.63947561694133579842E-3, -4.32430999505057594430E-3, 1.05464603945949983183E-2,
    -2.37374148058994688156E-2, 4.93052842396707084878E-2, -9.49010970480476444210E-2,
    1.71620901522208775349E-1, -3.04682672343198398683E-1, 6.76795274409476084995E-1])
_I0E_LARGE_F64 = np.array([
    -7.23318048787475395456E-18, -4.83050448594418207126E-18, 4.46562142029675999901E-17,
    3.46122286769746109310E-17, -2.82762398051658348494E-16, -3.42548561967721913462E-16,
    1.77256013305652638360E-15, 3.81168066935262242075E-15, -9.55484669882830764870E-15,
    -4.15056934728722208663E-14, 1.54008621752140982691E-14, 3.85277838274214270114E-13,
    7.18012445138366623367E-13, -1.79417853150680611778E-12, -1.32158118404477131188E-11,
    -3.14991652796324136454E-11, 1.18891471078464383424E-11, 4.94060238822496958910E-10,
    3.39623202570838634515E-9, 2.26666899049817806459E-8, 2.04891858946906374183E-7,
    2.89137052083475648297E-6, 6.88975834691682398426E-5, 3.36911647825569408990E-3,
    8.04490411014108831608E-1])
# float32 keeps the trailing terms of each series (the leading ones are below its precision)
_I0E_SMALL_F32 = _I0E_SMALL_F64[-18:]
_I0E_LARGE_F32 = _I0E_LARGE_F64[-7:]


def _chebyshev(x, coefficients):
    """Clenshaw's recurrence for sum_k c_k T_k(x/2) (Cephes' `chbevl`), unrolled."""
    b0, b1, b2 = _full_like(x, 0), _full_like(x, 0), _full_like(x, 0)
    for c in coefficients:
        b2, b1 = b1, b0
        b0 = add(sub(mul(x, b1), b2), _const(x, c))
    return mul(_const(x, 0.5), sub(b0, b2))


def _i0e_impl(x):
    dt = core.get_aval(x).dtype
    if dt not in (np.dtype(np.float32), np.dtype(np.float64)):
        return convert_element_type(_i0e_impl(convert_element_type(x, np.float32)), dt)
    small, large = ((_I0E_SMALL_F64, _I0E_LARGE_F64) if dt == np.float64
                    else (_I0E_SMALL_F32, _I0E_LARGE_F32))
    x = abs(x)
    near = _chebyshev(sub(mul(_const(x, 0.5), x), _const(x, 2)), small)
    far = div(_chebyshev(sub(div(_const(x, 32), x), _const(x, 2)), large), sqrt(x))
    return select_n(gt(x, _const(x, 8)), near, far)


def _i1e_jvp(g, ans, x):
    """d/dx i1e = i0e(x) - i1e(x) (sign(x) + 1/x), which tends to 1/2 at 0 (taken as 1/2 for
    |x| <= eps, where 1/x would overflow the cancellation)."""
    eps = float(dtypes.finfo(core.get_aval(x).dtype).eps)
    not_tiny = gt(abs(x), _const(x, eps))
    safe_x = select_n(not_tiny, _full_like(x, eps), x)
    d = sub(bessel_i0e(safe_x), mul(ans, add(sign(safe_x), div(_const(x, 1), safe_x))))
    return mul(g, select_n(not_tiny, _full_like(x, 0.5), d))


bessel_i0e_p = unop("bessel_i0e", lambda x: _sps().i0e(x), None, FLOAT,
                    lowering=lambda ctx, x: ctx.lower_fun(_i0e_impl)(x),
                    jvp=lambda g, ans, x: mul(g, sub(bessel_i1e(x), mul(sign(x), ans))))
bessel_i1e_p = unop("bessel_i1e", lambda x: _sps().i1e(x), "chlo.bessel_i1e", FLOAT, jvp=_i1e_jvp)

bessel_i0e = _unary(bessel_i0e_p)
bessel_i1e = _unary(bessel_i1e_p)
