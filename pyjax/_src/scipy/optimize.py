"""`jax.scipy.optimize.minimize` with method="BFGS" (and JAX's experimental L-BFGS,
method="l-bfgs-experimental-do-not-rely-on-this"): the quasi-Newton iterations and the Wolfe
line search (Nocedal & Wright, algorithms 3.5 and 3.6: bracketing, then zooming with cubic,
quadratic or bisection steps), as JAX 0.10.2 runs them, so the iterates, counts and status codes
are JAX's. Both loops are `lax.while_loop`s: the whole minimization jits and vmaps.

Status codes: 0 converged, 1 maxiter reached, 2 + the line search's status (3: it failed; 5: it
ran out of iterations) when the line search failed, -1 otherwise.
"""
from __future__ import annotations

from typing import Any, NamedTuple

import numpy as np

from pyjax._src import dtypes
from pyjax._src.ad_api import value_and_grad
from pyjax._src.lax.control_flow.scan import fori_loop
from pyjax._src.lax.control_flow.while_loop import while_loop
from pyjax._src.lax.dot_general import Precision
from pyjax._src.numpy import array_methods  # noqa: F401  (the code below uses Array operators)
from pyjax._src.numpy import creation, reductions as jred, ufuncs as jnp
from pyjax._src.numpy.arrays import roll
from pyjax._src.numpy.lax_numpy import where
from pyjax._src.numpy.linalg_ops import dot, einsum
from pyjax._src.numpy.util import promote_dtypes_inexact
from pyjax._src.tree_util import tree_map


class OptimizeResults(NamedTuple):
    """What `minimize` returns (SciPy's OptimizeResult fields that JAX keeps)."""
    x: Any
    success: Any
    status: Any
    fun: Any
    jac: Any
    hess_inv: Any
    nfev: Any
    njev: Any
    nit: Any


def _replace_where(cond, state, **new):
    """`state` with the named fields replaced by `new`'s where `cond` holds."""
    return state._replace(**{k: tree_map(lambda n, o: where(cond, n, o), v, getattr(state, k))
                             for k, v in new.items()})


def _vector_norm(g, ord):
    if ord == np.inf:
        return jred.max(jnp.abs(g))
    if ord == -np.inf:
        return jred.min(jnp.abs(g))
    if ord in (None, 2):
        return jnp.sqrt(jred.sum(jnp.real(g * jnp.conjugate(g))))
    return jred.sum(jnp.abs(g) ** ord) ** (1.0 / ord)


def _hdot(a, b):
    return dot(a, b, precision=Precision.HIGHEST)


# -- the line search -----------------------------------------------------------------------------

def _cubic_minimizer(a, fa, fpa, b, fb, c, fc):
    """The minimizer of the cubic through (a, fa) with slope fpa, (b, fb) and (c, fc)."""
    db, dc = b - a, c - a
    denom = (db * dc) ** 2 * (db - dc)
    dtype = dtypes.result_type(a, fa, fpa, b, fb, c, fc)
    # (a 2x2 matrix-vector product, as JAX computes it: XLA's dot rounds as JAX's iterates do)
    m = creation.array([[dc ** 2, -db ** 2], [-dc ** 3, db ** 3]], dtype=dtype)
    r = creation.array([fb - fa - fpa * db, fc - fa - fpa * dc], dtype=dtype)
    A, B = _hdot(m, r) / denom
    return a + (-B + jnp.sqrt(B * B - 3.0 * A * fpa)) / (3.0 * A)


def _quadratic_minimizer(a, fa, fpa, b, fb):
    """The minimizer of the parabola through (a, fa) with slope fpa and (b, fb)."""
    db = b - a
    curvature = (fb - fa - fpa * db) / db ** 2
    return a - fpa / (2.0 * curvature)


class _ZoomState(NamedTuple):
    done: Any
    failed: Any
    j: Any
    a_lo: Any
    phi_lo: Any
    dphi_lo: Any
    a_hi: Any
    phi_hi: Any
    dphi_hi: Any
    a_rec: Any  # the previous a_hi or a_lo: the third point of the cubic
    phi_rec: Any
    a_star: Any
    phi_star: Any
    dphi_star: Any
    g_star: Any
    nfev: Any
    ngev: Any


def _zoom(phi_dphi_g, sufficient_decrease, curvature, a_lo, phi_lo, dphi_lo, a_hi, phi_hi,
          dphi_hi, g_0, skip):
    """Shrink [a_lo, a_hi] (which brackets a Wolfe point) until a step meets both conditions;
    `skip` (traced) makes it a no-op, so both zooms of a bracketing step can be traced."""
    state = _ZoomState(done=False, failed=False, j=0, a_lo=a_lo, phi_lo=phi_lo, dphi_lo=dphi_lo,
                       a_hi=a_hi, phi_hi=phi_hi, dphi_hi=dphi_hi, a_rec=(a_lo + a_hi) / 2.0,
                       phi_rec=(phi_lo + phi_hi) / 2.0, a_star=1.0, phi_star=phi_lo,
                       dphi_star=dphi_lo, g_star=g_0, nfev=0, ngev=0)
    cubic_margin, quad_margin = 0.2, 0.1  # how far inside the interval a trial step must fall

    def body(s):
        width = s.a_hi - s.a_lo
        lo, hi = jnp.minimum(s.a_hi, s.a_lo), jnp.maximum(s.a_hi, s.a_lo)
        tiny = 1e-5 if dtypes.finfo(width.dtype).bits < 64 else 1e-10
        s = s._replace(failed=s.failed | (width <= tiny))
        a_cubic = _cubic_minimizer(s.a_lo, s.phi_lo, s.dphi_lo, s.a_hi, s.phi_hi, s.a_rec, s.phi_rec)
        use_cubic = (s.j > 0) & (a_cubic > lo + cubic_margin * width) & (a_cubic < hi - cubic_margin * width)
        a_quad = _quadratic_minimizer(s.a_lo, s.phi_lo, s.dphi_lo, s.a_hi, s.phi_hi)
        use_quad = ~use_cubic & (a_quad > lo + quad_margin * width) & (a_quad < hi - quad_margin * width)
        a_j = where(use_cubic, a_cubic, s.a_rec)
        a_j = where(use_quad, a_quad, a_j)
        a_j = where(~use_cubic & ~use_quad, (s.a_lo + s.a_hi) / 2.0, a_j)
        phi_j, dphi_j, g_j = phi_dphi_g(a_j)
        phi_j, dphi_j = phi_j.astype(s.phi_lo.dtype), dphi_j.astype(s.dphi_lo.dtype)
        g_j = g_j.astype(s.g_star.dtype)
        s = s._replace(nfev=s.nfev + 1, ngev=s.ngev + 1)
        # a_j too high: it becomes the upper end; meeting both conditions: done; else it
        # becomes the lower end (the old lower end moves up when the slope points back)
        to_hi = sufficient_decrease(a_j, phi_j) | (phi_j >= s.phi_lo)
        to_star = curvature(dphi_j) & ~to_hi
        flip = (dphi_j * (s.a_hi - s.a_lo) >= 0.0) & ~to_hi & ~to_star
        to_lo = ~to_hi & ~to_star
        s = _replace_where(to_hi, s, a_hi=a_j, phi_hi=phi_j, dphi_hi=dphi_j, a_rec=s.a_hi, phi_rec=s.phi_hi)
        s = _replace_where(to_star, s, a_star=a_j, phi_star=phi_j, dphi_star=dphi_j, g_star=g_j)
        s = s._replace(done=to_star | s.done)
        s = _replace_where(flip, s, a_hi=s.a_lo, phi_hi=s.phi_lo, dphi_hi=s.dphi_lo, a_rec=s.a_hi, phi_rec=s.phi_hi)
        s = _replace_where(to_lo & ~flip, s, a_rec=s.a_lo, phi_rec=s.phi_lo)
        s = _replace_where(to_lo, s, a_lo=a_j, phi_lo=phi_j, dphi_lo=dphi_j)
        s = s._replace(j=s.j + 1)
        return s._replace(failed=s.failed | (s.j >= 30))

    return while_loop(lambda s: ~s.done & ~skip & ~s.failed, body, state)


class _LineSearchState(NamedTuple):
    done: Any
    failed: Any
    i: Any
    a_i1: Any  # the previous trial step
    phi_i1: Any
    dphi_i1: Any
    nfev: Any
    ngev: Any
    a_star: Any
    phi_star: Any
    dphi_star: Any
    g_star: Any


class _LineSearchResults(NamedTuple):
    failed: Any
    nit: Any
    nfev: Any
    ngev: Any
    k: Any
    a_k: Any
    f_k: Any
    g_k: Any
    status: Any


def line_search(f, xk, pk, old_fval=None, old_old_fval=None, gfk=None, c1=1e-4, c2=0.9, maxiter=20):
    """A step along `pk` from `xk` meeting the strong Wolfe conditions (sufficient decrease
    with c1, curvature with c2): doubling trial steps until one brackets a Wolfe point, then
    zooming in."""
    xk, pk = promote_dtypes_inexact(xk, pk)

    def phi_dphi_g(t):
        t = creation.array(t, dtype=pk.dtype)
        phi, g = value_and_grad(f)(xk + t * pk)
        return phi, jnp.real(dot(g, pk)), g

    evaluated_at_0 = old_fval is None or gfk is None
    if evaluated_at_0:
        phi_0, dphi_0, gfk = phi_dphi_g(0)
    else:
        phi_0, dphi_0 = old_fval, jnp.real(dot(gfk, pk))
    if old_old_fval is not None:  # the step that would repeat the last decrease, at most 1
        candidate = 1.01 * 2 * (phi_0 - old_old_fval) / dphi_0
        start = where(candidate > 1, 1.0, candidate)
    else:
        start = 1

    def sufficient_decrease_fails(a, phi):
        return phi > phi_0 + c1 * a * dphi_0

    def curvature_holds(dphi):
        return jnp.abs(dphi) <= -c2 * dphi_0

    state = _LineSearchState(done=creation.array(False), failed=creation.array(False), i=1,
                             a_i1=0.0, phi_i1=phi_0, dphi_i1=dphi_0, nfev=int(evaluated_at_0),
                             ngev=int(evaluated_at_0), a_star=0.0, phi_star=phi_0,
                             dphi_star=dphi_0, g_star=gfk)

    def body(s):
        a_i = where(s.i == 1, start, s.a_i1 * 2.0)
        phi_i, dphi_i, g_i = phi_dphi_g(a_i)
        s = s._replace(nfev=s.nfev + 1, ngev=s.ngev + 1)
        zoom_up = sufficient_decrease_fails(a_i, phi_i) | ((phi_i >= s.phi_i1) & (s.i > 1))
        accept = curvature_holds(dphi_i) & ~zoom_up
        zoom_down = (dphi_i >= 0.0) & ~zoom_up & ~accept
        z1 = _zoom(phi_dphi_g, sufficient_decrease_fails, curvature_holds, s.a_i1, s.phi_i1,
                   s.dphi_i1, a_i, phi_i, dphi_i, gfk, ~zoom_up)
        s = s._replace(nfev=s.nfev + z1.nfev, ngev=s.ngev + z1.ngev)
        z2 = _zoom(phi_dphi_g, sufficient_decrease_fails, curvature_holds, a_i, phi_i, dphi_i,
                   s.a_i1, s.phi_i1, s.dphi_i1, gfk, ~zoom_down)
        s = s._replace(nfev=s.nfev + z2.nfev, ngev=s.ngev + z2.ngev)
        s = s._replace(done=zoom_up | s.done, failed=(zoom_up & z1.failed) | s.failed)
        s = _replace_where(zoom_up, s, a_star=z1.a_star, phi_star=z1.phi_star,
                           dphi_star=z1.dphi_star, g_star=z1.g_star)
        s = s._replace(done=accept | s.done)
        s = _replace_where(accept, s, a_star=a_i, phi_star=phi_i, dphi_star=dphi_i, g_star=g_i)
        s = s._replace(done=zoom_down | s.done, failed=(zoom_down & z2.failed) | s.failed)
        s = _replace_where(zoom_down, s, a_star=z2.a_star, phi_star=z2.phi_star,
                           dphi_star=z2.dphi_star, g_star=z2.g_star)
        return s._replace(i=s.i + 1, a_i1=a_i, phi_i1=phi_i, dphi_i1=dphi_i)

    state = while_loop(lambda s: ~s.done & (s.i <= maxiter) & ~s.failed, body, state)
    status = where(state.failed, creation.array(1), where(state.i > maxiter, creation.array(3),
                                                          creation.array(0)))
    alpha = creation.asarray(state.a_star)
    if dtypes.finfo(alpha.dtype).bits != 64:  # a vanishing single-precision step is kept at 1e-8
        alpha = where(jnp.abs(alpha) < 1e-8, jnp.sign(alpha) * 1e-8, alpha)
    return _LineSearchResults(failed=state.failed | ~state.done, nit=state.i - 1, nfev=state.nfev,
                              ngev=state.ngev, k=state.i, a_k=alpha, f_k=state.phi_star,
                              g_k=state.g_star, status=status)


# -- BFGS ----------------------------------------------------------------------------------------

class _BFGSState(NamedTuple):
    converged: Any
    failed: Any
    k: Any
    nfev: Any
    ngev: Any
    nhev: Any
    x_k: Any
    f_k: Any
    g_k: Any
    H_k: Any  # the inverse Hessian estimate
    old_old_fval: Any
    status: Any
    line_search_status: Any


def minimize_bfgs(fun, x0, maxiter=None, norm=np.inf, gtol=1e-5, line_search_maxiter=10):
    """BFGS from `x0` until the gradient's `norm` is below `gtol` (or `maxiter`, default 200
    per dimension, iterations)."""
    maxiter = np.size(x0) * 200 if maxiter is None else maxiter
    d = x0.shape[0]
    f_0, g_0 = value_and_grad(fun)(x0)
    state = _BFGSState(converged=_vector_norm(g_0, norm) < gtol, failed=False, k=0, nfev=1, ngev=1,
                       nhev=0, x_k=x0, f_k=f_0, g_k=g_0, H_k=creation.eye(d, dtype=x0.dtype),
                       old_old_fval=f_0 + _vector_norm(g_0, 2) / 2, status=0, line_search_status=0)

    def body(s):
        p_k = -dot(s.H_k, s.g_k)
        ls = line_search(fun, s.x_k, p_k, old_fval=s.f_k, old_old_fval=s.old_old_fval, gfk=s.g_k,
                         maxiter=line_search_maxiter)
        s = s._replace(nfev=s.nfev + ls.nfev, ngev=s.ngev + ls.ngev, failed=ls.failed,
                       line_search_status=ls.status)
        step = ls.a_k * p_k
        y_k = ls.g_k - s.g_k
        rho_k = jnp.reciprocal(dot(y_k, step))
        # H <- (I - rho s y^T) H (I - rho y s^T) + rho s s^T; kept when y.s = 0
        w = creation.eye(d, dtype=rho_k.dtype) - rho_k * (step[:, None] * y_k[None, :])
        h_new = einsum("ij,jk,lk", w, s.H_k, w) + rho_k * step[:, None] * step[None, :]
        h_new = where(jnp.isfinite(rho_k), h_new, s.H_k)
        return s._replace(converged=_vector_norm(ls.g_k, norm) < gtol, k=s.k + 1,
                          x_k=s.x_k + step, f_k=ls.f_k, g_k=ls.g_k, H_k=h_new, old_old_fval=s.f_k)

    state = while_loop(lambda s: ~s.converged & ~s.failed & (s.k < maxiter), body, state)
    status = where(state.converged, 0, where(state.k == maxiter, 1,
                                             where(state.failed, 2 + state.line_search_status, -1)))
    return state._replace(status=status)


# -- L-BFGS ----------------------------------------------------------------------------------------

class _LBFGSState(NamedTuple):
    converged: Any
    failed: Any
    k: Any
    nfev: Any
    ngev: Any
    x_k: Any
    f_k: Any
    g_k: Any
    s_history: Any  # the last `maxcor` steps, oldest first (zeros before there are that many)
    y_history: Any  # the gradient changes over them
    rho_history: Any  # 1 / Re(y . s) of each
    gamma: Any  # the scale of the initial inverse Hessian: Re(y . s) / |y|^2 of the last step
    status: Any
    ls_status: Any


def minimize_lbfgs(fun, x0, maxiter=None, norm=np.inf, maxcor=10, ftol=2.220446049250313e-09,
                   gtol=1e-5, maxfun=None, maxgrad=None, maxls=20):
    """L-BFGS from `x0` (Nocedal & Wright, algorithm 7.5, with complex `x` handled as in Sorber
    et al. 2012) until the gradient's `norm` is below `gtol`. It stops with a status: 1 after
    `maxiter` iterations (200 per dimension when no limit is given), 2/3 after `maxfun`/`maxgrad`
    evaluations, 4 when `f` decreased by less than `ftol`, 5 when the line search failed."""
    d = len(x0)
    if maxiter is None and maxfun is None and maxgrad is None:
        maxiter = d * 200
    maxiter, maxfun, maxgrad = (np.inf if v is None else v for v in (maxiter, maxfun, maxgrad))
    dtype = x0.dtype
    f_0, g_0 = value_and_grad(fun)(x0)
    state = _LBFGSState(converged=creation.array(False), failed=creation.array(False), k=0, nfev=1,
                        ngev=1, x_k=x0, f_k=f_0, g_k=g_0, s_history=creation.zeros((maxcor, d), dtype),
                        y_history=creation.zeros((maxcor, d), dtype),
                        rho_history=creation.zeros((maxcor,), dtype), gamma=1.0, status=0, ls_status=0)

    def body(s):
        p_k = _lbfgs_direction(s)
        ls = line_search(fun, s.x_k, p_k, old_fval=s.f_k, gfk=s.g_k, maxiter=maxls)
        step = ls.a_k.astype(p_k.dtype) * p_k
        y_k = ls.g_k - s.g_k
        curvature = jnp.real(_hdot(y_k, step))
        status = where(s.f_k - ls.f_k < ftol, 4, 0)
        for stop, code in ((s.ngev >= maxgrad, 3), (s.nfev >= maxfun, 2), (s.k >= maxiter, 1),
                           (ls.failed, 5)):  # (the last that holds wins)
            status = where(stop, code, status)
        converged = _vector_norm(ls.g_k, norm) < gtol
        return s._replace(
            converged=converged, failed=(status > 0) & ~converged, k=s.k + 1,
            nfev=s.nfev + ls.nfev, ngev=s.ngev + ls.ngev, x_k=(s.x_k + step).astype(s.x_k.dtype),
            f_k=ls.f_k.astype(s.f_k.dtype), g_k=ls.g_k.astype(s.g_k.dtype),
            s_history=_push(s.s_history, step), y_history=_push(s.y_history, y_k),
            rho_history=_push(s.rho_history, jnp.reciprocal(curvature).astype(y_k.dtype)),
            gamma=(curvature / jnp.real(_hdot(jnp.conjugate(y_k), y_k))).astype(s.g_k.dtype),
            status=where(converged, 0, status), ls_status=ls.status)

    return while_loop(lambda s: ~s.converged & ~s.failed, body, state)


def _lbfgs_direction(s):
    """The two-loop recursion: -H g for the inverse Hessian estimate of the stored pairs."""
    m = s.rho_history.shape[0]
    used = where(s.k < m, s.k, m)
    real = s.rho_history.dtype

    def newest_first(j, carry):
        q, alphas = carry
        i = m - 1 - j
        a_i = s.rho_history[i] * jnp.real(_hdot(jnp.conjugate(s.s_history[i]), q)).astype(real)
        return q - a_i * jnp.conjugate(s.y_history[i]), alphas.at[i].set(a_i)
    q, alphas = fori_loop(0, used, newest_first, (-jnp.conjugate(s.g_k),
                                                  creation.zeros_like(s.rho_history)))

    def oldest_first(j, q):
        i = m - used + j
        b_i = s.rho_history[i] * jnp.real(_hdot(s.y_history[i], q)).astype(real)
        return q + (alphas[i] - b_i) * s.s_history[i]
    return fori_loop(0, used, oldest_first, s.gamma * q)


def _push(history, new):
    """`history` with its oldest entry dropped and `new` appended."""
    return roll(history, -1, axis=0).at[-1].set(new)


def minimize(fun, x0, args=(), *, method, tol=None, options=None):
    """Minimize `fun(x, *args)` over a 1-D `x` from `x0`: method="BFGS" (options: maxiter, norm,
    gtol, line_search_maxiter) or "l-bfgs-experimental-do-not-rely-on-this" (options: maxiter,
    norm, maxcor, ftol, gtol, maxfun, maxgrad, maxls). `tol` is accepted and ignored, as by JAX.

    >>> import pyjax.numpy as jnp
    >>> res = minimize(lambda x: jnp.sum((x - 3.0) ** 2), jnp.zeros(2), method="BFGS")
    >>> res.x  # (JAX's iterates, to the last bit)
    Array([3.0000002, 3.       ], dtype=float32)
    """
    options = {} if options is None else options
    if not isinstance(args, tuple):
        raise TypeError(f"args argument to jax.scipy.optimize.minimize must be a tuple, got {args}")
    if method.lower() == "bfgs":
        res = minimize_bfgs(lambda x: fun(x, *args), x0, **options)
        hess_inv = res.H_k
    elif method.lower() == "l-bfgs-experimental-do-not-rely-on-this":  # (JAX's name for it)
        res = minimize_lbfgs(lambda x: fun(x, *args), x0, **options)
        hess_inv = None
    else:
        raise ValueError(f"Method {method} not recognized")
    return OptimizeResults(x=res.x_k, success=res.converged & ~creation.asarray(res.failed),
                           status=res.status, fun=res.f_k, jac=res.g_k, hess_inv=hess_inv,
                           nfev=res.nfev, njev=res.ngev, nit=res.k)
