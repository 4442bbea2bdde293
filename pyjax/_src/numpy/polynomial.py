"""Polynomials as coefficient arrays, highest power first (NumPy's `poly1d` convention):
`polyval`, `polyadd`, `polysub`, `polymul`, `polydiv`, `polyder`, `polyint`, `poly`, `roots`,
`polyfit`, `vander`, `trim_zeros`.

This module sits in the api layer: `roots` and `poly` take eigenvalues and `polyfit` solves a
least-squares problem through jnp.linalg.
"""
from __future__ import annotations

import functools

import numpy as np

from pyjax._src import core, dtypes
from pyjax._src.lax import elementwise as lax
from pyjax._src.lax.control_flow.scan import scan
from pyjax._src.lax.helpers import full_like as lax_full_like
from pyjax._src.lax.shape_ops import iota
from pyjax._src.lax.sorting import sort_key_val
from pyjax._src.numpy import linalg
from pyjax._src.numpy import reductions as jred
from pyjax._src.numpy import ufuncs
from pyjax._src.numpy.arrays import diag, roll
from pyjax._src.numpy.convolve import convolve
from pyjax._src.numpy.creation import array, asarray, full, ones, zeros
from pyjax._src.numpy.lax_numpy import where
from pyjax._src.numpy.linalg_ops import dot, outer
from pyjax._src.numpy.shape import atleast_1d, concatenate, expand_dims
from pyjax._src.numpy.util import (
    asarray_value, broadcast_shapes, check_arraylike, promote_dtypes, promote_dtypes_inexact,
    static_int)
from pyjax._src.pjit import jit


def _aval(x):
    return core.get_aval(x)


def _arrays(fname, *xs):
    check_arraylike(fname, *xs)
    return [asarray_value(x) for x in xs]


def _concrete(fname, x):
    """`x` as a NumPy array; a traced value is a ConcretizationTypeError naming `fname`."""
    return core.concrete_or_error(x, f"the argument of jnp.{fname}()")


# -- evaluation and arithmetic -----------------------------------------------------------------


@functools.partial(jit, static_argnames=("unroll",))   # (as JAX: eager calls compile once)
def polyval(p, x, *, unroll=16):
    """The polynomial with coefficients `p` (along its first axis) at `x`, by Horner's rule.

        >>> jnp.polyval(jnp.array([1.0, 0.0, -1.0]), jnp.array([2.0, 3.0]))
        Array([3., 8.], dtype=float32)
    """
    p, x = promote_dtypes(*_arrays("polyval", p, x))
    shape = broadcast_shapes(_aval(p).shape[1:], _aval(x).shape)
    y = lax_full_like(x, 0, shape=shape, dtype=_aval(x).dtype)
    y, _ = scan(lambda y, c: (y * x + c, None), y, p, unroll=unroll)
    return y


def polyadd(a1, a2):
    """The sum of two polynomials (the shorter aligned with the end of the longer)."""
    a1, a2 = promote_dtypes(*_arrays("polyadd", a1, a2))
    if _aval(a2).shape[0] > _aval(a1).shape[0]:
        a1, a2 = a2, a1
    return a1.at[_aval(a1).shape[0] - _aval(a2).shape[0]:].add(a2)


def polysub(a1, a2):
    """The difference of two polynomials."""
    a1, a2 = promote_dtypes(*_arrays("polysub", a1, a2))
    return polyadd(a1, ufuncs.negative(a2))


def polymul(a1, a2, *, trim_leading_zeros=False):
    """The product of two polynomials (a full convolution of their coefficients).

        >>> jnp.polymul(jnp.array([1.0, 1.0]), jnp.array([1.0, -1.0]))
        Array([ 1.,  0., -1.], dtype=float32)
    """
    a1, a2 = promote_dtypes_inexact(*_arrays("polymul", a1, a2))
    if trim_leading_zeros and (_aval(a1).shape[0] > 1 or _aval(a2).shape[0] > 1):
        a1, a2 = trim_zeros(a1, trim="f"), trim_zeros(a2, trim="f")
    if _aval(a1).shape[0] == 0:
        a1 = zeros(1, _aval(a2).dtype)
    if _aval(a2).shape[0] == 0:
        a2 = zeros(1, _aval(a1).dtype)
    return convolve(a1, a2, mode="full")


def _trim_leading_small(u, tol):
    """`u` without its leading entries of magnitude below `tol` (concrete `u`)."""
    small = np.abs(_concrete("polydiv", u)) < tol
    if small.all():
        return zeros(0, _aval(u).dtype)
    return u[int(np.argmin(small)):]


def polydiv(u, v, *, trim_leading_zeros=False):
    """The quotient and remainder of dividing polynomial `u` by `v` (long division; the
    remainder keeps `u`'s length unless `trim_leading_zeros`).

        >>> q, r = jnp.polydiv(jnp.array([1.0, 0.0, -1.0]), jnp.array([1.0, 1.0]))
    """
    u, v = promote_dtypes_inexact(*_arrays("polydiv", u, v))
    m, n = _aval(u).shape[0] - 1, _aval(v).shape[0] - 1
    scale = 1.0 / v[0]
    q = zeros(max(m - n + 1, 1), _aval(u).dtype)
    for k in range(m - n + 1):
        d = scale * u[k]
        q = q.at[k].set(d)
        u = u.at[k:k + n + 1].add(-d * v)
    if trim_leading_zeros:  # as NumPy's tolerance, roughly: sqrt(eps)
        u = _trim_leading_small(u, float(np.sqrt(dtypes.finfo(_aval(u).dtype).eps)))
    return q, u


def polyder(p, m=1):
    """The `m`-th derivative of polynomial `p`.

        >>> jnp.polyder(jnp.array([1.0, 1.0, 1.0, 1.0]))
        Array([3., 2., 1.], dtype=float32)
    """
    (p,) = promote_dtypes_inexact(*_arrays("polyder", p))
    m = static_int("polyder", "m", m)
    if m < 0:
        raise ValueError("Order of derivative must be positive")
    if m == 0:
        return p
    n = _aval(p).shape[0]
    # coefficient of x^j after m derivatives: j (j-1) ... (j-m+1), for j = n-1 down to m
    powers = np.arange(n - 1, m - 1, -1)
    factors = np.prod(powers[:, None] - np.arange(m)[None, :], axis=1) if n > m else np.zeros(0)
    return p[:max(n - m, 0)] * asarray(factors.astype(_aval(p).dtype))


def polyint(p, m=1, k=None):
    """The `m`-th antiderivative of polynomial `p`, the integration constants `k` (a scalar, or
    one per integration) as the new low-order coefficients.

        >>> jnp.polyint(jnp.array([3.0, 2.0, 1.0]))
        Array([1., 1., 1., 0.], dtype=float32)
    """
    m = static_int("polyint", "m", m)
    p, k = promote_dtypes_inexact(*_arrays("polyint", p, 0 if k is None else k))
    if m < 0:
        raise ValueError("Order of integral must be positive (see polyder)")
    k = atleast_1d(k)
    if _aval(k).shape[0] == 1:
        k = full((m,), k[0])
    if _aval(k).shape != (m,):
        raise ValueError("k must be a scalar or a rank-1 array of length 1 or m.")
    if m == 0:
        return p
    n = _aval(p).shape[0]
    # the coefficient of x^j (j = n+m-1 ... 0) is divided by j (j-1) ... (j-m+1), or 1 where 0
    powers = np.arange(n + m - 1, -1, -1)
    divisors = np.prod(np.maximum(1, powers[:, None] - np.arange(m)[None, :]), axis=1)
    return ufuncs.true_divide(concatenate([p, k]), asarray(divisors.astype(_aval(p).dtype)))


# -- from and to roots ---------------------------------------------------------------------------


def poly(seq_of_zeros):
    """The monic polynomial with the given roots (or, for a square matrix, with its
    eigenvalues as roots: the characteristic polynomial).

        >>> jnp.poly(jnp.array([1.0, 2.0]))
        Array([ 1., -3.,  2.], dtype=float32)
    """
    (z,) = promote_dtypes_inexact(*_arrays("poly", seq_of_zeros))
    z = atleast_1d(z)
    shape = _aval(z).shape
    if len(shape) == 2 and shape[0] == shape[1] and shape[0] != 0:
        z = linalg.eigvals(z)
    if _aval(z).ndim != 1:
        raise ValueError("input must be 1d or non-empty square 2d array.")
    dt = _aval(z).dtype
    if _aval(z).shape[0] == 0:
        return ones((), dt)
    a = ones((1,), dt)
    for i in range(_aval(z).shape[0]):
        a = convolve(a, concatenate([ones((1,), dt), expand_dims(-z[i], 0)]), mode="full")
    return a


def _companion_roots(p):
    """The eigenvalues of the companion matrix of `p` (whose leading coefficient is nonzero)."""
    n = _aval(p).shape[0]
    if n < 2:
        return array([], dtype=dtypes.to_complex_dtype(_aval(p).dtype))
    companion = diag(ones((n - 2,), _aval(p).dtype), -1)
    companion = companion.at[0, :].set(-p[1:] / p[0])
    return linalg.eigvals(companion)


def _roots_keeping_zeros(p, leading_zeros):
    """Roots with `leading_zeros` traced: the zeros rolled to the end (as roots at 0, sorted
    last), the corresponding roots set to NaN."""
    n = _aval(p).shape[0]
    p = where(leading_zeros == n, 1.0, p)  # an all-zero p: any finite matrix avoids LAPACK errors
    r = _companion_roots(roll(p, -leading_zeros))
    r = sort_key_val(lax.eq(r, np.zeros((), _aval(r).dtype)), r)[1]
    nan = complex(np.nan, np.nan)
    return where(iota(np.int32, _aval(r).shape[0]) < _aval(r).shape[0] - leading_zeros, r, nan)


def roots(p, *, strip_zeros=True):
    """The roots of polynomial `p` (complex), as the eigenvalues of its companion matrix.
    Leading zeros are stripped, which needs a concrete `p`; with `strip_zeros=False` (usable
    under jit) the roots they stand for are NaN.

        >>> jnp.roots(jnp.array([1.0, -3.0, 2.0]))
        Array([2.+0.j, 1.+0.j], dtype=complex64)
    """
    (p,) = promote_dtypes_inexact(*_arrays("roots", p))
    p = atleast_1d(p)
    if _aval(p).ndim != 1:
        raise ValueError("Input must be a rank-1 array.")
    n = _aval(p).shape[0]
    if n < 2:
        return array([], dtype=dtypes.to_complex_dtype(_aval(p).dtype))
    is_zero = lax.eq(p, np.zeros((), _aval(p).dtype))
    leading = where(jred.all(is_zero), n, jred.argmin(is_zero))
    if not strip_zeros:
        return _roots_keeping_zeros(p, leading)
    leading = core.concrete_or_error(
        leading, "jnp.roots(), which strips leading zeros (under jit, pass strip_zeros=False: the "
                 "roots leading zeros stand for are then NaN)")
    return _companion_roots(p[int(leading):])


# -- fitting -----------------------------------------------------------------------------------


def vander(x, N=None, increasing=False):
    """The Vandermonde matrix of the 1-D `x`: columns `x**(N-1), ..., x, 1` (or increasing).

        >>> jnp.vander(jnp.array([1, 2, 3]), 3)
        Array([[1, 1, 1],
               [4, 2, 1],
               [9, 3, 1]], dtype=int32)
    """
    (x,) = _arrays("vander", x)
    if _aval(x).ndim != 1:
        raise ValueError("x must be a one-dimensional array")
    N = _aval(x).shape[0] if N is None else static_int("vander", "N", N)
    if N < 0:
        raise ValueError("N must be nonnegative")
    powers = iota(_aval(x).dtype, N)
    if not increasing:
        powers = lax.sub(np.asarray(N - 1, _aval(x).dtype), powers)
    return ufuncs.power(expand_dims(x, 1), expand_dims(powers, 0))


def polyfit(x, y, deg, rcond=None, full=False, w=None, cov=False):
    """The least-squares polynomial of degree `deg` through the points (`x`, `y`) (`y` may have
    one column per data set), optionally weighted by `w`; `full` adds the residuals, rank,
    singular values and rcond, `cov` the coefficients' covariance.

        >>> jnp.polyfit(jnp.array([0.0, 1.0, 2.0]), jnp.array([1.0, 3.0, 5.0]), 1)
        Array([2., 1.], dtype=float32)
    """
    arrays = _arrays("polyfit", x, y) if w is None else _arrays("polyfit", x, y, w)
    x, y = arrays[0], arrays[1]
    deg = static_int("polyfit", "deg", deg)
    order = deg + 1
    if deg < 0:
        raise ValueError("expected deg >= 0")
    if _aval(x).ndim != 1:
        raise TypeError("expected 1D vector for x")
    if _aval(x).size == 0:
        raise TypeError("expected non-empty vector for x")
    if not 1 <= _aval(y).ndim <= 2:
        raise TypeError("expected 1D or 2D array for y")
    if _aval(x).shape[0] != _aval(y).shape[0]:
        raise TypeError("expected x and y to have same length")
    n = _aval(x).shape[0]
    if rcond is None:
        rcond = n * float(dtypes.finfo(_aval(x).dtype).eps)
    lhs, rhs = vander(x, order), y
    if w is not None:
        (w,) = promote_dtypes_inexact(arrays[2])
        if _aval(w).ndim != 1:
            raise TypeError("expected a 1-d array for weights")
        if _aval(w).shape[0] != _aval(y).shape[0]:
            raise TypeError("expected w and y to have the same length")
        lhs = lhs * expand_dims(w, 1)
        rhs = rhs * (expand_dims(w, 1) if _aval(rhs).ndim == 2 else w)
    scale = ufuncs.sqrt(jred.sum(lhs * lhs, axis=0))  # unit columns: a better condition number
    lhs = lhs / expand_dims(scale, 0)
    c, resids, rank, s = linalg.lstsq(lhs, rhs, rcond)
    c = (c.T / expand_dims(scale, 0)).T if _aval(c).ndim > 1 else c / scale
    if full:
        return c, resids, rank, s, asarray(rcond)
    if not cov:
        return c
    vbase = linalg.inv(dot(lhs.T, lhs)) / outer(scale, scale)
    if cov == "unscaled":
        fac = asarray(1.0)
    else:
        if n <= order:
            raise ValueError("the number of data points must exceed order to scale the covariance matrix")
        fac = resids / (n - order)
    if _aval(y).ndim == 1:
        return c, vbase * expand_dims(atleast_1d(fac), 0)
    return c, expand_dims(vbase, 2) * expand_dims(expand_dims(atleast_1d(fac), 0), 0)


def trim_zeros(filt, trim="fb", axis=None):
    """`filt` without its leading ('f') and/or trailing ('b') zeros (along each of `axis`, a
    hyperplane being trimmed when all zero). Needs a concrete `filt`.

        >>> jnp.trim_zeros(jnp.array([0, 0, 1, 2, 0]))
        Array([1, 2], dtype=int32)
    """
    (filt,) = _arrays("trim_zeros", filt)
    values = _concrete("trim_zeros", filt)
    nd = values.ndim
    axes = range(nd) if axis is None else [a % nd for a in (axis if isinstance(axis, (tuple, list)) else (axis,))]
    trim = trim.lower()
    index = [slice(None)] * nd
    for ax in axes:
        nonzero = np.any(values != 0, axis=tuple(i for i in range(nd) if i != ax))
        if not nonzero.any():
            index[ax] = slice(0, 0)
            continue
        start = int(np.argmax(nonzero)) if "f" in trim else None
        stop = len(nonzero) - int(np.argmax(nonzero[::-1])) if "b" in trim else None
        index[ax] = slice(start, stop)
    return filt[tuple(index)]

