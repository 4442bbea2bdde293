"""`jax.scipy.special`'s Gauss hypergeometric function hyp2f1 and the spherical harmonics
sph_harm_y.

hyp2f1 follows JAX 0.10.2's case analysis (after Pearson, Olver & Porter 2014,
arXiv:1407.7786): closed forms for the trivial cases, Euler's transformation when c - a - b <= -1,
a terminating sum when a or b is a non-positive integer, the Taylor series, and the digamma
transformation (AMS55 15.3.10-12) for x > 0.9. Every branch is evaluated and one is selected per
element (JAX's jnp.vectorize turns its loops into vmapped while loops), with the loops' terms
grouped as JAX groups them so float32 results round alike.

sph_harm_y evaluates the normalized associated Legendre functions by JAX's three recurrences
(diagonal, first off-diagonal, then the rest along the degree) up to a static n_max.
"""
from __future__ import annotations

import functools

import numpy as np

from pyjax._src import core, dtypes
from pyjax._src.custom_derivatives import custom_jvp
from pyjax._src.lax import elementwise as lax
from pyjax._src.lax.control_flow.scan import scan
from pyjax._src.lax.control_flow.while_loop import while_loop
from pyjax._src.numpy import array_methods  # noqa: F401  (Array operators)
from pyjax._src.numpy import reductions as jred
from pyjax._src.numpy import ufuncs as jnp
from pyjax._src.numpy.creation import arange, array, asarray, full_like
from pyjax._src.numpy.lax_numpy import clip, isscalar, where
from pyjax._src.numpy.shape import concatenate
from pyjax._src.numpy.util import broadcast_to
from pyjax._src.pjit import jit
from pyjax._src.scipy.special import _c, _dtype, _is_complex, _promote, digamma, gamma
from pyjax._src.scipy.special_integrals import _vectorize

_MAX_TERMS = 250


def _eps(x, scale=1):
    return float(dtypes.finfo(_dtype(x)).eps) * scale


def _negative_integer(v, eps):
    """v is (within eps of) an integer <= 0: the series in v terminates."""
    return jnp.logical_and(v <= 0, lax.abs(v - jnp.round(v)) < eps)


# -- the series ------------------------------------------------------------------------------------

def _hyp2f1_terminal(a, b, c, x):
    """The finite sum when a or b is a non-positive integer -n: n + 1 terms. Of the two, the
    parameter ending the sum is b when b < a is an integer, unless c is a non-positive integer
    above b (then (c)_k would vanish before the sum ends)."""
    eps = _eps(x, 50)
    c_pole_above_b = jnp.logical_and(c % 1 == 0, jnp.logical_and(c <= 0, c > b))
    swap = jnp.logical_and(b < a, jnp.logical_and(lax.abs(b - jnp.round(b)) < eps,
                                                  jnp.logical_not(c_pole_above_b)))
    a, b = where(swap, b, a), where(swap, a, b)
    n = lax.abs(a)

    def body(state):
        i, total, term = state
        term = term * (-(n - i + 1) / (c + i - 1) * (b + i - 1) / i * x)
        return i + 1, total + term, term

    # NB: JAX runs this as a fori_loop over float bounds [1, n + 1); pyjax's fori_loop takes
    # integers only, so the same loop is written as a while loop.
    one = full_like(x, 1)
    return while_loop(lambda s: s[0] < n + 1, body, (one, one, one))[1]


def _hyp2f1_series(a, b, c, x):
    """The Taylor series sum_k (a)_k (b)_k / (c)_k x^k / k!, until a term is below eps relative
    to the sum (at most 250 terms)."""
    eps = _eps(x)

    def body(state):
        total, k, term = state
        return total + term, k + 1, term * ((a + k - 1) * (b + k - 1) / (c + k - 1) / k * x)

    def keep_going(state):
        total, k, term = state
        return jnp.logical_and(k < _MAX_TERMS, lax.abs(term) > eps * lax.abs(total))

    return while_loop(keep_going, body, (full_like(x, 0), full_like(x, 1), full_like(x, 1)))[0]


def _hyp2f1_digamma_transform(a, b, c, x):
    """The expansion around x = 1 when d = c - a - b is (near) an integer, where the two terms of
    the usual 1 - x transformation have poles that cancel (AMS55 15.3.10-12)."""
    eps = _eps(x)
    zero, one = _c(x, 0), _c(x, 1)
    d = c - a - b
    s = 1 - x
    rd = jnp.round(d)
    e = where(rd >= 0, d, -d)
    d1 = where(rd >= 0, d, zero)
    d2 = where(rd >= 0, zero, d)
    ard = lax.convert_element_type(where(rd >= 0, rd, -rd), np.int32)
    log_s = jnp.log(s)

    y = (digamma(one) + digamma(1 + e) - digamma(a + d1) - digamma(b + d1) - log_s) / gamma(e + 1)
    p = (a + d1) * (b + d1) * s / gamma(e + 2)

    def body(state):
        p, q, t, y = state
        r = digamma(1 + t) + digamma(1 + t + e) - digamma(a + t + d1) - digamma(b + t + d1) - log_s
        q = p * r
        p = p * (s * (a + t + d1) / (t + 1))
        p = p * ((b + t + d1) / (t + 1 + e))
        return p, q, t + 1, y + q

    def keep_going(state):
        _, q, t, y = state
        return jnp.logical_and(t < _MAX_TERMS, lax.abs(q) >= eps * lax.abs(y))

    y = while_loop(keep_going, body, (p, y, full_like(x, 1), y))[3]
    return where(rd == 0, y * gamma(c) / (gamma(a) * gamma(b)),
                 _hyp2f1_digamma_finite_part(a, b, c, s, y, rd, ard, e, d1, d2))


def _hyp2f1_digamma_finite_part(a, b, c, s, y, rd, ard, e, d1, d2):
    """For |c - a - b| = m > 0: the m-term finite sum, combined with the digamma series `y`."""
    def body(state):
        i, p, t, y1 = state
        p = p * (s * (a + t + d2) * (b + t + d2) / (1 - e + t))
        t = t + 1
        p = p / t
        return i + 1, p, t, y1 + p

    one = full_like(s, 1)
    y1 = while_loop(lambda st: st[0] < ard, body, (np.int32(1), one, full_like(s, 0), one))[3]
    gc = gamma(c)
    y1 = y1 * (gamma(e) * gc / (gamma(a + d1) * gamma(b + d1)))
    y = y * (gc / (gamma(a + d2) * gamma(b + d2)))
    y = where((ard & 1) != 0, -y, y)
    q = s ** rd
    return where(rd > 0, y * q + y1, y + y1 * q)


def _hyp2f1_terminal_or_series(a, b, c, x):
    eps = _eps(x, 50)
    d = c - a - b
    terminates = jnp.logical_or(_negative_integer(a, eps), _negative_integer(b, eps))
    d_integer = lax.abs(d - jnp.round(d)) < eps
    index = where(jnp.logical_and(x > 0.9, jnp.logical_not(terminates)),
                  where(d_integer, 1, 0), where(terminates, 2, 0))
    return lax.select_n(index, _hyp2f1_series(a, b, c, x), _hyp2f1_digamma_transform(a, b, c, x),
                        _hyp2f1_terminal(a, b, c, x))


def _hyp2f1_scalar(a, b, c, x):
    eps = _eps(x, 50)
    d = c - a - b
    s = 1 - x
    ca, cb = c - a, c - b
    one, inf = _c(x, 1), _c(x, np.inf)
    c_pole = jnp.logical_or(c == 0, jnp.logical_and(c < 0, c % 1 == 0))
    euler = jnp.logical_and(d <= -1, jnp.logical_not(
        jnp.logical_and(lax.abs(d - jnp.round(d)) >= eps, s < 0)))
    # (condition, value) in priority order; the series where none holds
    cases = [
        (jnp.logical_or(x == 0, jnp.logical_and(jnp.logical_or(a == 0, b == 0), c != 0)), one),
        (c_pole, inf),
        (euler, s ** d * _hyp2f1_terminal_or_series(ca, cb, c, x)),
        (jnp.logical_and(d <= 0, x == 1), inf),
        (jnp.logical_and(x < 1, b == c), s ** (-a)),
        (jnp.logical_and(x < 1, a == c), s ** (-b)),
        (x > 1, inf),
        (x == 1, gamma(c) * gamma(d) / (gamma(ca) * gamma(cb))),
    ]
    out = _hyp2f1_terminal_or_series(a, b, c, x)
    for cond, value in reversed(cases):
        out = where(cond, value, out)
    return out


# -- derivatives: term-by-term series in a, b, c; d/dx is a shifted hyp2f1 -----------------------

def _hyp2f1_parameter_derivative(which):
    """d hyp2f1 / d`which`: each term of the Taylor series times a difference of digammas
    (psi(a + k) - psi(a) for a, likewise b, psi(c) - psi(c + k) for c)."""
    def scalar(a, b, c, x):
        eps = _eps(x)

        def factor(k):
            if which == "a":
                return digamma(a + k) - digamma(a)
            if which == "b":
                return digamma(b + k) - digamma(b)
            return digamma(c) - digamma(c + k)

        def body(state):
            total, k, term = state
            return (total + term * factor(k), k + 1,
                    term * ((a + k) * (b + k) / (c + k) / (k + 1) * x))

        def keep_going(state):
            total, k, term = state
            return jnp.logical_and(k < _MAX_TERMS, lax.abs(term) / lax.abs(total) > eps)

        return while_loop(keep_going, body, (full_like(x, 0), np.int32(1), a * b / c * x))[0]
    return jit(_vectorize(scalar))


_hyp2f1_da = _hyp2f1_parameter_derivative("a")
_hyp2f1_db = _hyp2f1_parameter_derivative("b")
_hyp2f1_dc = _hyp2f1_parameter_derivative("c")


@custom_jvp
@jit
def _hyp2f1(a, b, c, x):
    return _vectorize(_hyp2f1_scalar)(a, b, c, x)


_hyp2f1.defjvps(lambda a_dot, ans, a, b, c, x: _hyp2f1_da(a, b, c, x) * a_dot,
                lambda b_dot, ans, a, b, c, x: _hyp2f1_db(a, b, c, x) * b_dot,
                lambda c_dot, ans, a, b, c, x: _hyp2f1_dc(a, b, c, x) * c_dot,
                lambda x_dot, ans, a, b, c, x: a * b / c * _hyp2f1(a + 1, b + 1, c + 1, x) * x_dot)


def hyp2f1(a, b, c, x):
    """The Gauss hypergeometric function 2F1(a, b; c; x) = sum_k (a)_k (b)_k / (c)_k x^k / k!
    for real arguments (inf for x > 1 and where c is a pole).

        >>> hyp2f1(1., 1., 2., 0.5)    # -log(1 - x) / x
        Array(1.3862945, dtype=float32)
    """
    a, b, c, x = _promote("hyp2f1", a, b, c, x)
    if _is_complex(x):
        # JAX fails in `c % 1` (a TypeError from rem); the class is kept, the message says why.
        raise TypeError(f"hyp2f1: complex arguments are not supported, got {_dtype(x).name}")
    return _hyp2f1(a, b, c, x)


# -- sph_harm_y ------------------------------------------------------------------------------------
# The normalized associated Legendre functions P[m, l](x), with the Condon-Shortley phase and the
# factor making Y_l^m orthonormal on the sphere, by JAX's recurrences: P[0, 0] = 1 / (2 sqrt(pi)),
# the diagonal P[l, l] from a cumulative product in sqrt(1 - x^2), the first off-diagonal
# P[l - 1, l] = sqrt(2l + 1) x P[l - 1, l - 1], then along the degree
# P[m, l] = d0[m, l] x P[m, l - 1] - d1[m, l] P[m, l - 2] for m <= l - 2.


def _legendre_recurrence_coefficients(l_max, dtype):
    """d0 and d1 of the degree recurrence, as (m, l) tables zero where it does not apply (static:
    computed with NumPy in `dtype`, as JAX computes them in XLA)."""
    m, l = np.meshgrid(np.arange(l_max + 1, dtype=dtype), np.arange(l_max + 1, dtype=dtype),
                       indexing="ij")
    one, two, three, four = (dtype.type(v) for v in (1, 2, 3, 4))
    with np.errstate(divide="ignore", invalid="ignore"):
        d0 = np.sqrt((four * l * l - one) / (l * l - m * m))
        d1 = np.sqrt(((two * l + one) * ((l - one) * (l - one) - m * m))
                     / ((two * l - three) * (l * l - m * m)))
    applies = l - m >= 2
    return np.where(applies, d0, 0).astype(dtype), np.where(applies, d1, 0).astype(dtype)


def _normalized_legendre(l_max, x):
    """P[l, m, i] (degree first) for l, m = 0..l_max at the points x[i]."""
    dtype = np.dtype(_dtype(x))
    p00 = dtype.type(0.5) / np.sqrt(dtype.type(np.pi))
    k = np.arange(1, l_max + 1, dtype=dtype)
    f_a = jred.cumprod(-1 * jnp.sqrt(1 + dtype.type(0.5) / k))
    f_b = np.sqrt(dtype.type(2) * np.arange(l_max, dtype=dtype) + dtype.type(3))
    sin_powers = jred.cumprod(broadcast_to(jnp.sqrt(1 - x * x), (l_max, x.shape[0])), axis=0)
    diag = concatenate([full_like(x, p00)[None], p00 * (f_a[:, None] * sin_powers)])
    offdiag = concatenate([full_like(x, 0)[None], (f_b[:, None] * x[None, :]) * diag[:-1]])
    # the diagonal and off-diagonal entries, in (l, m, i) layout: P0[l, l] and P0[l, l - 1]
    l_idx, m_idx = np.arange(l_max + 1)[:, None, None], np.arange(l_max + 1)[None, :, None]
    p0 = where(l_idx == m_idx, diag[:, None, :], where(m_idx == l_idx - 1, offdiag[:, None, :],
                                                       _c(x, 0)))
    if l_max < 2:
        return p0
    d0, d1 = _legendre_recurrence_coefficients(l_max, dtype)

    def degree_step(carry, coefficients):
        p_lm1, p_lm2 = carry
        d0_l, d1_l, p0_l = coefficients
        p_l = p0_l + (d0_l[:, None] * (p_lm1 * x[None, :]) - d1_l[:, None] * p_lm2)
        return (p_l, p_lm1), p_l

    _, rest = scan(degree_step, (p0[1], p0[0]), (asarray(d0.T[2:]), asarray(d1.T[2:]), p0[2:]))
    return concatenate([p0[:2], rest])


@functools.partial(jit, static_argnums=(4,))
def _sph_harm(n, m, theta, phi, n_max):
    legendre = _normalized_legendre(n_max, jnp.cos(theta))
    abs_m = jnp.abs(m)
    # JAX reads P at (|m|, n, i) for i < len(n), indices clipped into range
    value = legendre[clip(n, 0, n_max), clip(abs_m, 0, n_max),
                     clip(arange(len(n)), 0, legendre.shape[2] - 1)]
    angle = abs_m * phi
    cos, sin = jnp.cos(angle), jnp.sin(angle)
    harmonics = lax.complex(value * cos, value * sin)
    return where(m < 0, (-1.0) ** abs_m * lax.conj(harmonics), harmonics)


def sph_harm_y(n, m, theta, phi, diff_n=None, n_max=None):
    """The spherical harmonics Y_n^m(theta, phi) (theta the colatitude, phi the longitude), as
    complex numbers; n_max (static; max(n) when omitted) bounds the degrees evaluated.

        >>> sph_harm_y(jnp.array([1]), jnp.array([0]), jnp.array([0.0]), jnp.array([0.0]))
        Array([0.4886025+0.j], dtype=complex64)
    """
    if diff_n is not None:
        raise NotImplementedError("sph_harm_y: derivatives (diff_n) are not supported; "
                                  f"got diff_n={diff_n!r}")
    if isscalar(theta):
        theta = array([theta])
    if n_max is None:
        n_max = jred.max(n) if isinstance(n, core.Tracer) else np.max(n)
    n_max = int(core.concrete_or_error(
        n_max, "sph_harm_y's n_max (pass n_max= explicitly to use sph_harm_y under jit)"))
    return _sph_harm(n, m, theta, phi, n_max)
