"""`jax.scipy.special` integrals and series: the exponential integrals expi, exp1 and expn, the
sine and cosine integrals sici, the Fresnel integrals, Owen's T function owens_t, bessel_jn, and
the confluent hypergeometric function hyp1f1.

As in JAX: rational approximations from Cephes (their coefficients below), piecewise by
argument range; expn runs Cephes' series and continued fraction element by element (vmapped
while loops); each function has JAX's custom JVP.
"""
from __future__ import annotations

import functools
import operator

import numpy as np

from pyjax._src import core, dtypes
from pyjax._src.api_vmap import vmap
from pyjax._src.custom_derivatives import custom_jvp
from pyjax._src.lax import elementwise as lax
from pyjax._src.lax import shape_ops
from pyjax._src.lax.control_flow.conditionals import cond
from pyjax._src.lax.control_flow.scan import scan
from pyjax._src.lax.control_flow.while_loop import while_loop
from pyjax._src.numpy import array_methods  # noqa: F401  (Array operators)
from pyjax._src.numpy import ufuncs as jnp
from pyjax._src.numpy.creation import asarray, full_like
from pyjax._src.numpy.lax_numpy import where
from pyjax._src.numpy.shape import moveaxis
from pyjax._src.numpy.util import broadcast_to
from pyjax._src.pjit import jit
from pyjax._src.scipy.special import (_c, _dtype, _is_complex, _polyval, _promote, _select, digamma,
                                      gamma, gammaln)

EULER_GAMMA = float(np.euler_gamma)


def _piecewise(x, conditions, functions, *args):
    """jnp.piecewise: each function (or constant) evaluated on all of `x`, the value of the last
    true condition taken, the extra function (if any) where none holds."""
    def value(f):
        return f(x, *args) if callable(f) else full_like(x, f)
    if len(functions) == len(conditions) + 1:
        out, functions = value(functions[-1]), functions[:-1]
    else:
        out = full_like(x, 0)
    for cond_, f in zip(conditions, functions):
        out = where(cond_, value(f), out)
    return out


# -- expi ----------------------------------------------------------------------------------------
# Cephes' expi for x > 0: a rational approximation on (0, 2], then one per octave
# (2^k, 2^(k+1)], k = 1..5, of exp(x)/x (1 + f(1/x) / x); above 64 the last one continues.

_EXPI_SMALL = ([-5.350447357812543, 218.50491688166133, -4176.572384826693, 55411.76756393557,
                -331338.13311781443, 1592627.1633849454],
               [1.0, -52.505479591128626, 1259.6161867867906, -17565.495819735348,
                149306.2117002726, -729494.9239640528, 1592627.1633849454])
_EXPI_OCTAVES = [
    ([0.019818085032596897, -1.2716456259849176, -2.0881603356812284, 2.7555445091879367,
      -0.44095070487016, 0.046656238059358916, -0.0015450426796734852, 7.059980605299618e-05],
     [1.0, 1.4764986709149215, 0.5629177174822436, 0.16990178978793072, 0.02291647179034212,
      0.0044501504397287525, 0.00017274396122065214, 3.953167195549672e-05]),
    ([-1.3732153758712087, -0.7084559133740839, 1.580806855547941, -0.2601500427425623,
      0.029946746941137137, -0.001038086040188744, 4.371064420753005e-05, 2.141783679522603e-06],
     [1.0, 0.8585231423622028, 0.4483285822873995, 0.07687932158124476, 0.024498682410218877,
      0.0008832165941927797, 0.00045909522995113536, -4.729848351866523e-06, 2.66519553739071e-06]),
    ([-2.1069346016919166, 1.7327338696646881, -0.2423619178935842, 0.02322724180937566,
      0.00023728804404931798, -8.343219561192553e-05, 1.3634087956052505e-05,
      -3.655412321999254e-07, 1.4649417339759612e-08, 6.17640786371036e-10],
     [1.0, -0.2298062239901678, 0.11050770414740378, -0.015665429666307924, 0.002761106850817353,
      -0.00020891480122840484, 1.7085289388076754e-05, -4.4593117963566865e-07,
      1.3946349303538475e-08, 6.150865933977338e-10]),
    ([-0.24581193676740204, -0.14833822533220778, 0.07248291795735552, -0.013483156873809405,
      0.001342775069788637, -7.942465637159712e-05, 2.644179518984236e-06, -4.239473659313765e-08],
     [1.0, -0.10442259084438711, -0.26764531281014026, 0.09695000254621984, -0.01601745692712991,
      0.001496414899205908, -8.462452563778485e-05, 2.7289384034767266e-06,
      -4.239462431819542e-08]),
    ([0.12125611181054567, -0.5823133179043894, 0.2348887314557017, -0.030400343181132484,
      0.0015100821468651906, -2.5231370954995714e-05],
     [1.0, -1.002252150365854, 0.2928709694872224, -0.03337004338674008, 0.0015605448811273888,
      -2.5231370936032347e-05]),
    ([-0.7657847078286127, 0.6886192415566705, -0.2132598113545206, 0.033461075523841935,
      -0.003076541477344756, 0.00017471193164549074, -6.1037116822741705e-06,
      1.218032765428652e-07, -1.0860761027932903e-09],
     [1.0, -1.8888028686623086, 1.066691687211409, -0.27519159823063805, 0.039308526882338234,
      -0.003414684558602365, 0.00018668443707035555, -6.345146083130515e-06,
      1.239754287483207e-07, -1.0860761027931265e-09]),
]


def _expi_small(x):
    num, den = _EXPI_SMALL
    return x * (_polyval(num, x) / _polyval(den, x)) + EULER_GAMMA + jnp.log(x)


def _expi_octave(coeffs):
    num, den = coeffs

    def f(x):
        w = _c(x, 1.0) / x
        g = w * (_polyval(num, w) / _polyval(den, w)) + _c(x, 1.0)
        return jnp.exp(x) * w * g
    return f


def _expi_pos(x):
    conditions = [jnp.logical_and(_c(x, 0) < x, x <= _c(x, 2))] + [
        jnp.logical_and(_c(x, 2 ** k) < x, x <= _c(x, 2 ** (k + 1))) for k in range(1, 6)]
    return _piecewise(x, conditions, [_expi_small] + [_expi_octave(c) for c in _EXPI_OCTAVES])


@custom_jvp
@jit
def expi(x):
    """The exponential integral Ei(x) = -PV int_{-x}^inf exp(-t)/t dt (Ei(x) = -E1(-x) for x < 0)."""
    (x,) = _promote("expi", x)
    if _is_complex(x):
        raise ValueError("expi does not support complex-valued inputs.")
    return _piecewise(x, [x < 0], [lambda x: -exp1(-x), _expi_pos])


@expi.defjvp
@jit
def _expi_jvp(primals, tangents):
    (x,), (x_dot,) = primals, tangents
    return expi(x), jnp.exp(x) / x * x_dot


# -- expn ----------------------------------------------------------------------------------------
# Cephes' expn: the power series for x <= 1, the continued fraction for x > 1, the asymptotic
# expansion in n for n >= 5000, closed forms at x == 0 and n == 0.

_EXPN_BIG = 1.44115188075855872e17


def _expn_series(x, n):
    """E_n(x) = (-x)^(n-1) / (n-1)! (psi(n) - log x) - sum_{k != n-1} (-x)^k / (k! (k - n + 1))."""
    one, zero = _c(x, 1.0), _c(x, 0.0)
    eps = float(dtypes.finfo(_dtype(x)).eps)

    def harmonic(state):
        i, psi = state
        return i + one, psi + one / i

    # psi(n) = -gamma + sum_{i=1}^{n-1} 1/i
    _, psi = while_loop(lambda s: s[0] < n, harmonic, (one, -EULER_GAMMA - jnp.log(x)))
    n1 = where(n == 1, one + one, n)
    init = dict(xk=zero, yk=one, pk=one - n, ans=where(n == 1, zero, one / (one - n1)),
                t=_c(x, np.inf))

    def body(d):
        d = dict(d)
        d["xk"] = d["xk"] + one
        d["yk"] = d["yk"] * (-x / d["xk"])
        d["pk"] = d["pk"] + one
        d["ans"] = d["ans"] + where(d["pk"] != zero, d["yk"] / d["pk"], zero)
        d["t"] = where(d["ans"] != zero, abs(d["yk"] / d["ans"]), one)
        return d

    d = while_loop(lambda d: jnp.logical_and(x > zero, d["t"] > eps), body, init)
    return (-x) ** (n - 1) * psi / jnp.exp(gammaln(n)) - d["ans"]


def _expn_fraction(x, n):
    """The continued fraction E_n(x) = exp(-x) (1/(x + n -) n/(1 + ...)), by its convergents."""
    one, zero = _c(x, 1.0), _c(x, 0.0)
    big = _c(x, _EXPN_BIG)
    eps = float(dtypes.finfo(_dtype(x)).eps)
    init = dict(k=_c(n, 1), pkm2=one, qkm2=x, pkm1=one, qkm1=x + n, ans=one / (x + n),
                t=_c(x, np.inf), r=zero)

    def body(d):
        d = dict(d)
        k = d["k"] = d["k"] + 1
        odd = jnp.fmod(k, _c(k, 2)) == 1
        yk = where(odd, one, x)
        xk = where(odd, n + (k - 1) / 2, k / 2)
        pk = d["pkm1"] * yk + d["pkm2"] * xk
        qk = d["qkm1"] * yk + d["qkm2"] * xk
        nonzero = qk != zero
        r = d["r"] = where(nonzero, pk / qk, d["r"])
        d["t"] = where(nonzero, abs((d["ans"] - r) / r), one)
        d["ans"] = where(nonzero, r, d["ans"])
        d["pkm2"], d["pkm1"], d["qkm2"], d["qkm1"] = d["pkm1"], pk, d["qkm1"], qk
        rescale = abs(pk) > big    # keep the convergents' terms finite
        for key in ("pkm1", "pkm2", "qkm1", "qkm2"):
            d[key] = where(rescale, d[key] / big, d[key])
        return d

    d = while_loop(lambda d: jnp.logical_and(x > zero, d["t"] > eps), body, init)
    return d["ans"] * jnp.exp(-x)


def _expn_large_n(x, n):
    """The asymptotic expansion for large n: exp(-x)/(x+n) (1 + n/(x+n)^2 (1 + ...))."""
    xk = x + n
    yk = 1 / (xk * xk)
    ans = yk * n * (6 * x * x - 8 * n * x + n * n)
    ans = yk * (ans + n * (n - 2 * x))
    ans = yk * (ans + n)
    return (ans + 1) * jnp.exp(-x) / xk


def _expn_scalar(n, x):
    zero, one = _c(x, 0), _c(x, 1)
    conditions = [jnp.logical_or(n < 0, x < zero), jnp.logical_and(x == zero, n < 2),
                  jnp.logical_and(x == zero, n >= 2), jnp.logical_and(n == 0, x >= zero),
                  n >= 5000, x > one]
    n1 = where(n == 1, n + n, n)
    values = [np.nan, np.inf, lambda x, n: one / n1, lambda x, n: jnp.exp(-x) / x,
              _expn_large_n, _expn_fraction, _expn_series]
    # NB: JAX evaluates each branch (a lax.switch under jnp.vectorize, so a select after vmap);
    # evaluating every branch here too keeps its while loops' trip counts, hence its values.
    return _piecewise(x, conditions, values, n)


def _vectorize(scalar_fn):
    """`scalar_fn` applied to every element of its broadcast arguments (jnp.vectorize of a
    function of scalars), by vmap over the flattened arguments."""
    def fn(*args):
        shape = np.broadcast_shapes(*(np.shape(a) for a in args))
        if not shape:
            return scalar_fn(*args)
        size = int(np.prod(shape))
        flat = [shape_ops.reshape(broadcast_to(a, shape), (size,)) for a in args]
        return shape_ops.reshape(vmap(scalar_fn)(*flat), shape)
    return fn


_expn_vectorized = jit(_vectorize(_expn_scalar))


@custom_jvp
def _expn(n, x):
    return _expn_vectorized(n, x)


_expn.defjvps(None, lambda x_dot, ans, n, x: -x_dot * _expn(n - 1, x))


def expn(n, x):
    """The generalized exponential integral E_n(x) = int_1^inf exp(-x t) / t^n dt, n >= 0,
    x >= 0 (NaN outside); differentiable in x only."""
    n, x = _promote("expn", n, x)
    if _is_complex(x):
        raise ValueError("expn does not support complex-valued inputs.")
    return _expn(n, x)


def exp1(x):
    """E_1(x) = int_x^inf exp(-t) / t dt."""
    (x,) = _promote("exp1", x)
    if _is_complex(x):
        raise ValueError("exp1 does not support complex-valued inputs.")
    return expn(1, x)


# -- sici ----------------------------------------------------------------------------------------
# Cephes' sici: rational series for |x| <= 4, the auxiliary functions f and g (two ranges) up to
# 1e9, the leading asymptotic terms beyond.

_SI_NUM = [-8.391678279103039e-11, 4.625917144270128e-08, -9.757593038436328e-06,
           0.0009769454381704354, -0.04134703162294066, 1.0]
_SI_DEN = [2.0326926619595193e-12, 1.279978911799433e-09, 4.418278428012189e-07,
           9.964121220438756e-05, 0.01420852393261499, 1.0]
_CI_NUM = [2.0252400238910228e-11, -1.3524950491579076e-08, 3.593250514199931e-06,
           -0.0004740072068734079, 0.028915965260755523, -1.0]
_CI_DEN = [4.077460400618806e-12, 3.067809975818878e-09, 1.2321035568588342e-06,
           0.00031744202477503275, 0.051002805623644606, 4.0]
_F4 = ([4.236128628922166, 5.4593771716181285, 1.6208328770153833, 0.16700661183132304,
        0.006810201324725182, 0.00010893658065032867, 5.489002234213736e-07],
       [1.0, 8.16496634205391, 7.308288225055645, 1.867922579501842, 0.1787920529631499,
        0.007017106683227897, 0.00011003435715391573, 5.489002527562557e-07])
_G4 = ([0.08710016989731142, 0.6113791099522193, 0.3971802963923375, 0.07485277376284691,
        0.005388686814621773, 0.00016199979459893403, 1.9796387414096365e-06, 7.825790407440903e-09],
       [1.0, 1.6440220241335535, 0.666296701268988, 0.09887717612776888, 0.006223963454417684,
        0.0001732210814741771, 2.0265918208634397e-06, 7.825792189335346e-09])
_F8 = ([0.4558808734704653, 0.7137152741001467, 0.16030015822231947, 0.01160642294081244,
        0.00034955644244785906, 4.8621543082645475e-06, 3.200927900910049e-08,
        9.41779576128513e-11, 9.70507110881952e-14],
       [1.0, 0.9174636118736841, 0.17868554533207454, 0.012225359477197129,
        0.00035869648188185157, 4.924350643178815e-06, 3.21956939101046e-08,
        9.437205903502767e-11, 9.70507110881952e-14])
_G8 = ([0.6973599534432762, 0.33041097930563207, 0.03848787676499743, 0.001717182390523479,
        3.4894116550227946e-05, 3.471311670841167e-07, 1.7040445278204452e-09,
        3.859459254302766e-12, 3.1404009894636335e-15],
       [1.0, 1.6854889881101165, 0.48785225869530496, 0.04679131942596258,
        0.0019028442667439953, 3.684755044425611e-05, 3.5704322344374083e-07,
        1.7269374896631615e-09, 3.878301660239547e-12, 3.1404009894636335e-15])


def _sici_series(x):
    t = x * x
    si = x * _polyval(_SI_NUM, t) / _polyval(_SI_DEN, t)
    ci = EULER_GAMMA + jnp.log(x) + t * _polyval(_CI_NUM, t) / _polyval(_CI_DEN, t)
    return where(x == 0, _c(x, 0.0), si), where(x == 0, _c(x, -np.inf), ci)


def _sici_auxiliary(x):
    """Si = pi/2 - f cos x - g sin x, Ci = f sin x - g cos x, f and g rational in 1/x^2."""
    s, c = jnp.sin(x), jnp.cos(x)
    z = 1.0 / (x * x)
    f4 = _polyval(_F4[0], z) / (x * _polyval(_F4[1], z))
    g4 = z * _polyval(_G4[0], z) / _polyval(_G4[1], z)
    f8 = _polyval(_F8[0], z) / (x * _polyval(_F8[1], z))
    g8 = z * _polyval(_G8[0], z) / _polyval(_G8[1], z)
    f, g = where(x < 8.0, f4, f8), where(x < 8.0, g4, g8)
    return np.pi / 2 - f * c - g * s, f * s - g * c


def _sici_asymptotic(x):
    si = where(jnp.isposinf(x), _c(x, np.pi / 2), np.pi / 2 - jnp.cos(x) / x)
    ci = where(jnp.isposinf(x), _c(x, 0.0), jnp.sin(x) / x)
    return si, ci


@custom_jvp
@jit
def sici(x):
    """The sine and cosine integrals (Si(x), Ci(x)): int_0^x sin(t)/t dt and
    gamma + log x + int_0^x (cos t - 1)/t dt (Ci is NaN for x = -inf)."""
    (x,) = _promote("sici", x)
    if _is_complex(x):
        raise ValueError(f"Argument `x` to sici must be real-valued. Got dtype {_dtype(x)}.")
    ax = jnp.abs(x)
    near, mid = ax <= 4, jnp.logical_and(ax > 4, ax <= 1e9)
    (si1, ci1), (si2, ci2), (si3, ci3) = _sici_series(ax), _sici_auxiliary(ax), _sici_asymptotic(ax)
    si = jnp.sign(x) * _select([near, mid], [si1, si2], si3)
    ci = where(jnp.isneginf(x), _c(x, np.nan), _select([near, mid], [ci1, ci2], ci3))
    return si, ci


@sici.defjvp
@jit
def _sici_jvp(primals, tangents):
    (x,), (t,) = primals, tangents
    return sici(x), (jnp.sinc(x / np.pi) * t, jnp.cos(x) / x * t)


# -- owens_t -------------------------------------------------------------------------------------
# T(h, a) = 1/(2 pi) int_0^a exp(-h^2 (1 + x^2) / 2) / (1 + x^2) dx by 13-point Gauss-Legendre
# quadrature on [0, 1] (|a| > 1 reduced to it), with closed forms at h = 0 and a = 1.

_OWENS_T_POINTS = np.array([
    0.0035082039676451716, 0.031279042338030756, 0.08526682628321945, 0.16245071730812277,
    0.25851196049125436, 0.3680755384069753, 0.485010929056047, 0.6027751415261857,
    0.7147788421775323, 0.814755109887601, 0.8971102975594897, 0.9572380808594426,
    0.991788329746297])
_OWENS_T_WEIGHTS = np.array([
    0.018831438115323503, 0.01856708624397765, 0.018042093461223385, 0.017263829606398752,
    0.016243219975989858, 0.014994592034116705, 0.013535474469662087, 0.011886351605820165,
    0.010070377242777432, 0.008113054574229958, 0.006041900952847024, 0.0038862217010742057,
    0.001679303108454609])


def _owens_t_quadrature(h, a):
    r = jnp.square(a)[..., None] * _OWENS_T_POINTS
    integrand = jnp.exp(-0.5 * jnp.square(h)[..., None] * (1.0 + r)) / (1.0 + r)
    return a * (integrand @ _OWENS_T_WEIGHTS)


@custom_jvp
def _owens_t(h, a):
    h, abs_a = jnp.abs(h), jnp.abs(a)
    root2 = _c(h, np.sqrt(2))
    small_a = abs_a <= 1.0
    ma = where(small_a, abs_a, jnp.reciprocal(abs_a))
    mh = where(small_a, h, abs_a * h)
    t = _owens_t_quadrature(mh, ma)
    t = where(mh == 0.0, jnp.arctan(ma) / (2 * np.pi), t)
    t = where(ma == 1.0, 0.125 * lax.erfc(-mh / root2) * lax.erfc(mh / root2), t)
    # |a| > 1: T(h, a) = (Phi(h) + Phi(ah))/2 - Phi(h) Phi(ah) - T(ah, 1/a) (in erf/erfc form)
    erfc_h, erfc_ah = lax.erfc(h / root2), lax.erfc(abs_a * h / root2)
    near = 0.25 - 0.25 * lax.erf(h / root2) * lax.erf(abs_a * h / root2) - t
    far = 0.25 * (erfc_h + erfc_ah - erfc_h * erfc_ah) - t
    t = where(abs_a > 1.0, where(abs_a * h <= 0.67, near, far), t)
    t = lax.sign(a) * t
    return where(jnp.logical_or(jnp.isnan(a), jnp.isnan(h)), full_like(t, np.nan), t)


@_owens_t.defjvp
def _owens_t_jvp(primals, tangents):
    (h, a), (dh, da) = primals, tangents
    ans = _owens_t(h, a)
    root2 = _c(h, np.sqrt(2))
    d_dh = (-lax.exp(-0.5 * lax.square(h)) * lax.erf(a * h / root2)
            / (2.0 * _c(h, np.sqrt(2.0 * np.pi))))
    d_da = lax.exp(-0.5 * (lax.square(a) + 1.0) * lax.square(h)) / (2.0 * np.pi * (lax.square(a) + 1.0))
    return ans, lax.convert_element_type(d_dh * dh + d_da * da, _dtype(ans))


def owens_t(h, a):
    """Owen's T function: the probability that X > h and 0 < Y < a X for independent standard
    normals X, Y."""
    h, a = _promote("owens_t", h, a)
    return _owens_t(h, a)


# -- bessel_jn -----------------------------------------------------------------------------------


def _bessel_jn_scalar(z, *, v, n_iter):
    """J_0 ... J_v at a scalar z by Miller's backward recurrence from order n_iter, normalized
    by J_0 + 2 (J_2 + J_4 + ...) = 1."""
    def step(carry, k):
        f0, f1, bs = carry
        f = 2.0 * (k + 1.0) * f1 / z - f0
        bs = cond(jnp.fmod(k, 2) == 0, lambda u: u[0] + 2.0 * u[1], lambda u: u[0], (bs, f))
        return (f1, f, bs), f

    init = (_c(z, 0.0), _c(z, 1e-16), _c(z, 0.0))
    (_, _, bs), values = scan(step, init, shape_ops.iota(_dtype(z), n_iter + 1), reverse=True)
    return values[:v + 1] / (bs - values[0])


@functools.partial(jit, static_argnames=("v", "n_iter"))
def bessel_jn(z, *, v, n_iter=50):
    """Bessel functions of the first kind of orders 0 ... v at z, stacked on a new leading axis
    (accurate for |z| well below n_iter)."""
    (z,) = _promote("bessel_jn", asarray(z))
    if _is_complex(z):
        # NB: a TypeError, as JAX's in effect (its complex check misses complex64, and the
        # recurrence's remainder then rejects complex operands)
        raise TypeError(f"bessel_jn: complex input not supported, got {_dtype(z)}")
    v = operator.index(v)
    n_iter = int(n_iter)
    fn = functools.partial(_bessel_jn_scalar, v=v, n_iter=n_iter)
    for _ in range(core.get_aval(z).ndim):
        fn = vmap(fn)
    return moveaxis(fn(z), -1, 0)


# -- fresnel -------------------------------------------------------------------------------------
# Cephes' fresnl (fresnlf in float32, the float16/bfloat16 arguments computed in float32): power
# series for x^2 < 2.5625, the auxiliary functions f and g in 1/(pi x^2) up to x = 36974, and the
# limits (float64: their leading terms) beyond.

_FRESNEL_F32 = dict(
    sn=[1.647629463788700e-9, -1.522754752581096e-7, 8.424748808502400e-6, -3.120693124703272e-4,
        7.244727626597022e-3, -9.228055941124598e-2, 5.235987735681432e-1],
    cn=[1.416802502367354e-8, -1.157231412229871e-6, 5.387223446683264e-5, -1.604381798862293e-3,
        2.818489036795073e-2, -2.467398198317899e-1, 9.999999760004487e-1],
    fn=[-1.903009855649792e12, 1.355942388050252e11, -4.158143148511033e9, 7.343848463587323e7,
        -8.732356681548485e5, 8.560515466275470e3, -1.032877601091159e2, 2.999401847870011e0],
    gn=[-1.860843997624650e11, 1.278350673393208e10, -3.779387713202229e8, 6.492611570598858e6,
        -7.787789623358162e4, 8.602931494734327e2, -1.493439396592284e1, 9.999841934744914e-1])
_FRESNEL_F64 = dict(
    sn=[-2.99181919401019853726e3, 7.08840045257738576863e5, -6.29741486205862506537e7,
        2.54890880573376359104e9, -4.42979518059697779103e10, 3.18016297876567817986e11],
    sd=[1.0, 2.81376268889994315696e2, 4.55847810806532581675e4, 5.17343888770096400730e6,
        4.19320245898111231129e8, 2.24411795645340920940e10, 6.07366389490084639049e11],
    cn=[-4.98843114573573548651e-8, 9.50428062829859605134e-6, -6.45191435683965050962e-4,
        1.88843319396703850064e-2, -2.05525900955013891793e-1, 9.99999999999999998822e-1],
    cd=[3.99982968972495980367e-12, 9.15439215774657478799e-10, 1.25001862479598821474e-7,
        1.22262789024179030997e-5, 8.68029542941784300606e-4, 4.12142090722199792936e-2,
        1.00000000000000000118e0],
    fn=[4.21543555043677546506e-1, 1.43407919780758885261e-1, 1.15220955073585758835e-2,
        3.45017939782574027900e-4, 4.63613749287867322088e-6, 3.05568983790257605827e-8,
        1.02304514164907233465e-10, 1.72010743268161828879e-13, 1.34283276233062758925e-16,
        3.76329711269987889006e-20],
    fd=[1.0, 7.51586398353378947175e-1, 1.16888925859191382142e-1, 6.44051526508858611005e-3,
        1.55934409164153020873e-4, 1.84627567348930545870e-6, 1.12699224763999035261e-8,
        3.60140029589371370404e-11, 5.88754533621578410010e-14, 4.52001434074129701496e-17,
        1.25443237090011264384e-20],
    gn=[5.04442073643383265887e-1, 1.97102833525523411709e-1, 1.87648584092575249293e-2,
        6.84079380915393090172e-4, 1.15138826111884280931e-5, 9.82852443688422223854e-8,
        4.45344415861750144738e-10, 1.08268041139020870318e-12, 1.37555460633261799868e-15,
        8.36354435630677421531e-19, 1.86958710162783235106e-22],
    gd=[1.0, 1.47495759925128324529e0, 3.37748989120019970451e-1, 2.53603741420338795122e-2,
        8.14679107184306179049e-4, 1.27545075667729118702e-5, 1.04314589657571990585e-7,
        4.60680728146520428211e-10, 1.10273215066240270757e-12, 1.38796531259578871258e-15,
        8.39158816283118707363e-19, 1.86958710162783236342e-22])


@jit
def _sincospi_x2_half(x):
    """sin(pi x^2 / 2) and cos(pi x^2 / 2) without the rounding of x^2 for large x: the angle is
    reduced mod 2 exactly first, as r = [s (x - s/2)] mod 2 with s = x mod 2 (SciPy's sinpi)."""
    x = jnp.abs(x)
    s = jnp.fmod(x, 2.0)
    r = jnp.fmod(s * (x - s / 2), 2.0)
    sinpi = where(r < 0.5, jnp.sin(np.pi * r),
                  where(r > 1.5, jnp.sin(np.pi * (r - 2.0)), -jnp.sin(np.pi * (r - 1.0))))
    cospi = where(r == 0.5, _c(r, 0.0),
                  where(r < 1.0, -jnp.sin(np.pi * (r - 0.5)), jnp.sin(np.pi * (r - 1.5))))
    return sinpi, cospi


@custom_jvp
def fresnel(x):
    """The Fresnel integrals (S(x), C(x)) = int_0^x (sin, cos)(pi t^2 / 2) dt, for real x
    (accurate on [-10, 10], as Cephes')."""
    (xx,) = _promote("fresnel", x)
    out_dtype = _dtype(xx)
    if _is_complex(xx):
        raise NotImplementedError("Support for complex-valued inputs is not implemented yet.")
    if out_dtype in (np.dtype(np.float32), np.dtype(np.float16), np.dtype(dtypes.bfloat16)):
        xx = lax.convert_element_type(xx, np.float32)
    elif out_dtype != np.float64:
        raise NotImplementedError(f"Support for {out_dtype} dtype is not implemented yet.")
    single = _dtype(xx) == np.float32
    coeffs = _FRESNEL_F32 if single else _FRESNEL_F64
    x = jnp.abs(xx)
    x2 = x * x
    t = x2 * x2
    if single:
        s_small = x * x2 * _polyval(coeffs["sn"], t)
        c_small = x * _polyval(coeffs["cn"], t)
    else:
        s_small = x * x2 * _polyval(coeffs["sn"], t) / _polyval(coeffs["sd"], t)
        c_small = x * _polyval(coeffs["cn"], t) / _polyval(coeffs["cd"], t)
    sinpi, cospi = _sincospi_x2_half(x)
    if single:
        c_large = s_large = full_like(x, 0.5)
    else:
        c_large = 0.5 + 1 / (np.pi * x) * sinpi
        s_large = 0.5 - 1 / (np.pi * x) * cospi
    t = np.pi * x2
    u = 1.0 / (t * t)
    t = 1.0 / t
    if single:
        f = 1.0 - u * _polyval(coeffs["fn"], u)
        g = t * _polyval(coeffs["gn"], u)
    else:
        f = 1.0 - u * _polyval(coeffs["fn"], u) / _polyval(coeffs["fd"], u)
        g = t * _polyval(coeffs["gn"], u) / _polyval(coeffs["gd"], u)
    t = np.pi * x
    c_mid = 0.5 + (f * sinpi - g * cospi) / t
    s_mid = 0.5 - (f * cospi + g * sinpi) / t
    small, large, inf = x2 < 2.5625, x > 36974.0, jnp.isinf(xx)
    s = where(inf, _c(x, 0.5), where(small, s_small, where(large, s_large, s_mid)))
    c = where(inf, _c(x, 0.5), where(small, c_small, where(large, c_large, c_mid)))
    negative = xx < 0.0
    s, c = where(negative, -s, s), where(negative, -c, c)
    return lax.convert_element_type(s, out_dtype), lax.convert_element_type(c, out_dtype)


@fresnel.defjvp
def _fresnel_jvp(primals, tangents):
    (x,), (x_dot,) = primals, tangents
    sinpi, cospi = _sincospi_x2_half(x)
    return fresnel(x), (sinpi * x_dot, cospi * x_dot)


# -- hyp1f1 --------------------------------------------------------------------------------------
# Kummer's series sum_k (a)_k / (b)_k x^k / k! for |x| < 100, its asymptotic expansion beyond
# (both computed, as JAX's lax.cond becomes a select under vectorize), at most 250 terms. The
# term ratios are grouped as JAX groups them: for large negative x the series cancels
# catastrophically in float32, and then only identical rounding gives JAX's (meaningless) values.


def _hyp1f1_series(a, b, x):
    eps = float(dtypes.finfo(_dtype(x)).eps)

    def body(state):
        total, k, term = state
        return total + term, k + 1, term * ((a + k) / (b + k) * x / (k + 1))

    def keep_going(state):
        total, k, term = state
        return jnp.logical_and(k < 250, lax.abs(term) / lax.abs(total) > eps)

    return while_loop(keep_going, body, (full_like(x, 1), np.int32(1), a / b * x))[0]


def _hyp1f1_asymptotic(a, b, x):
    """Gamma(b)/Gamma(a) e^x x^(a-b) sum_k (b-a)_k (1-a)_k / k! x^-k."""
    eps = float(dtypes.finfo(_dtype(x)).eps)

    def body(state):
        total, k, term = state
        return total + term, k + 1, term * ((b - a + k) * (1 - a + k) / (k + 1) / x)

    def keep_going(state):
        total, k, term = state
        return jnp.logical_and(k < 250, lax.abs(term) / lax.abs(total) > eps)

    total = while_loop(keep_going, body, (full_like(x, 1), np.int32(1), (b - a) * (1 - a) / x))[0]
    return gamma(b) / gamma(a) * lax.exp(x) * x ** (a - b) * total


def _hyp1f1_scalar(a, b, x):
    result = cond(lax.abs(x) < 100, _hyp1f1_series, _hyp1f1_asymptotic, a, b, x)
    # 1 where a == 0, e^x where a == b, inf where b == 0
    index = (lax.convert_element_type(a == 0, np.int32)
             + 2 * lax.convert_element_type(jnp.logical_and(a == b, a != 0), np.int32)
             + 3 * lax.convert_element_type(jnp.logical_and(b == 0, a != 0), np.int32))
    return lax.select_n(index, result, full_like(x, 1), lax.exp(x), full_like(x, np.inf))


def _hyp1f1_parameter_derivative(which):
    """d hyp1f1 / da (`which` = "a") or / db, term by term: each term's derivative is the term
    times a difference of digammas."""
    def scalar(a, b, x):
        eps = float(dtypes.finfo(_dtype(x)).eps)

        def body(state):
            total, k, term = state
            if which == "a":
                factor = digamma(a + k) - digamma(a)
            else:
                factor = digamma(b) - digamma(b + k)
            return total + term * factor, k + 1, term * ((a + k) / (b + k) * x / (k + 1))

        def keep_going(state):
            total, k, term = state
            return jnp.logical_and(k < 250, lax.abs(term) / lax.abs(total) > eps)

        return while_loop(keep_going, body, (full_like(x, 0), np.int32(1), a / b * x))[0]
    return jit(_vectorize(scalar))


_hyp1f1_da = _hyp1f1_parameter_derivative("a")
_hyp1f1_db = _hyp1f1_parameter_derivative("b")


@custom_jvp
@jit
def _hyp1f1(a, b, x):
    return _vectorize(_hyp1f1_scalar)(a, b, x)


_hyp1f1.defjvps(lambda a_dot, ans, a, b, x: _hyp1f1_da(a, b, x) * a_dot,
                lambda b_dot, ans, a, b, x: _hyp1f1_db(a, b, x) * b_dot,
                lambda x_dot, ans, a, b, x: a / b * _hyp1f1(a + 1, b + 1, x) * x_dot)


def hyp1f1(a, b, x):
    """The confluent hypergeometric function 1F1(a; b; x) for real arguments."""
    a, b, x = _promote("hyp1f1", a, b, x)
    if _is_complex(x):
        raise ValueError("hyp1f1 does not support complex-valued inputs.")
    return _hyp1f1(a, b, x)
