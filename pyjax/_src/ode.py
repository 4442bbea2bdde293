"""`jax.experimental.ode.odeint`: adaptive Dormand–Prince 5(4) integration, adjoint gradient.

The solver follows JAX's step for step, so values agree with JAX's to rounding: the initial step
from Hairer, Nørsett & Wanner (Solving ODEs I, II.4), one Runge–Kutta step with the Dopri5
tableau (`runge_kutta_step`), the RMS error ratio against `atol + rtol * max(|y0|, |y1|)`,
step-size control with safety 0.9 and factors in [0.2, 10], and dense output by a 4th-order
polynomial fitted to each accepted step (`interp_fit_dopri`), evaluated at the requested times.
The loop is a `while_loop` inside a `scan` over the output times, so `odeint` jits, vmaps and
runs on device.

The state may be any pytree (raveled into one vector inside); `*args` are differentiable
extra arguments of `func`. Reverse mode is a `custom_vjp` solving the adjoint system backward
in time between consecutive output times (Pontryagin / Chen et al. 2018), as JAX does, so
memory does not grow with the number of steps; forward mode is not defined (as in JAX).
"""
from __future__ import annotations

import operator
import weakref
from functools import partial
from typing import Callable

import numpy as np

from pyjax._src import core, dtypes, tree_util
from pyjax._src.ad_api import vjp
from pyjax._src.api_vmap import vmap
from pyjax._src.config import default_matmul_precision
from pyjax._src.custom_derivatives import closure_convert, custom_vjp
from pyjax._src.flatten_util import ravel_pytree
from pyjax._src.lax.control_flow.scan import fori_loop, scan
from pyjax._src.lax.control_flow.while_loop import while_loop
from pyjax._src.numpy import array_methods  # noqa: F401  (Array operators)
from pyjax._src.numpy import creation, lax_numpy, linalg_ops, polynomial, reductions, ufuncs
from pyjax._src.numpy import linalg as jnp_linalg
from pyjax._src.numpy import shape as jshape
from pyjax._src.numpy.util import promote_dtypes_inexact
from pyjax._src.pjit import jit


def ravel_first_arg(f: Callable, unravel) -> Callable:
    """`f(y, *args)` as a function of the raveled state, returning its raveled derivative."""
    def flat_f(y_flat, *args):
        return ravel_pytree(f(unravel(y_flat), *args))[0]
    return flat_f


# -- one Dormand–Prince step ---------------------------------------------------------------------

# The Dopri5 Butcher tableau: nodes, stage weights, the 5th-order solution and the difference
# between the 5th- and 4th-order solutions (the error estimate).
_ALPHA = [1 / 5, 3 / 10, 4 / 5, 8 / 9, 1., 1., 0]
_BETA = [[1 / 5, 0, 0, 0, 0, 0, 0],
         [3 / 40, 9 / 40, 0, 0, 0, 0, 0],
         [44 / 45, -56 / 15, 32 / 9, 0, 0, 0, 0],
         [19372 / 6561, -25360 / 2187, 64448 / 6561, -212 / 729, 0, 0, 0],
         [9017 / 3168, -355 / 33, 46732 / 5247, 49 / 176, -5103 / 18656, 0, 0],
         [35 / 384, 0, 500 / 1113, 125 / 192, -2187 / 6784, 11 / 84, 0]]
_C_SOL = [35 / 384, 0, 500 / 1113, 125 / 192, -2187 / 6784, 11 / 84, 0]
_C_ERROR = [35 / 384 - 1951 / 21600, 0, 500 / 1113 - 22642 / 50085, 125 / 192 - 451 / 720,
            -2187 / 6784 - -12231 / 42400, 11 / 84 - 649 / 6300, -1. / 60.]
# Weights giving the solution at the step's midpoint (Shampine 1986), for dense output.
_C_MID = [6025192743 / 30085553152 / 2, 0, 51252292925 / 65400821598 / 2,
          -2691868925 / 45128329728 / 2, 187940372067 / 1594534317056 / 2,
          -1776094331 / 19743644256 / 2, 11237099 / 235043384 / 2]


def runge_kutta_step(func, y0, f0, t0, dt):
    """One Dopri5 step from `(t0, y0)` with `f0 = func(y0, t0)`: `(y1, f1, y1_error, k)`, where
    `k` holds the 7 stage derivatives (the last is `func(y1, t0 + dt)`, reused next step)."""
    alpha = creation.array(_ALPHA, dtype=dt.dtype)
    beta = creation.array(_BETA, dtype=f0.dtype)
    c_sol = creation.array(_C_SOL, dtype=f0.dtype)
    c_error = creation.array(_C_ERROR, dtype=f0.dtype)
    h = dt.astype(f0.dtype)

    def stage(i, k):
        ti = t0 + dt * alpha[i - 1]
        yi = y0 + h * linalg_ops.dot(beta[i - 1, :], k)
        return k.at[i, :].set(func(yi, ti))

    k = creation.zeros((7, f0.shape[0]), f0.dtype).at[0, :].set(f0)
    k = fori_loop(1, 7, stage, k)
    y1 = h * linalg_ops.dot(c_sol, k) + y0
    y1_error = h * linalg_ops.dot(c_error, k)
    return y1, k[-1], y1_error, k


def fit_4th_order_polynomial(y0, y1, y_mid, dy0, dy1, dt):
    """Coefficients (highest power first, for `polyval` on [0, 1]) of the quartic through
    `y0`, `y_mid`, `y1` with slopes `dy0`, `dy1` at the ends of a step of length `dt`."""
    dt = dt.astype(y0.dtype)
    a = -2. * dt * dy0 + 2. * dt * dy1 - 8. * y0 - 8. * y1 + 16. * y_mid
    b = 5. * dt * dy0 - 3. * dt * dy1 + 18. * y0 + 14. * y1 - 32. * y_mid
    c = -4. * dt * dy0 + dt * dy1 - 11. * y0 - 5. * y1 + 16. * y_mid
    d = dt * dy0
    e = y0
    return a, b, c, d, e


def interp_fit_dopri(y0, y1, k, dt):
    """The dense-output polynomial of one Dopri5 step, as a (5, n) array of coefficients."""
    c_mid = creation.array(_C_MID, dtype=y0.dtype)
    y_mid = y0 + dt.astype(y0.dtype) * linalg_ops.dot(c_mid, k)
    return creation.asarray(fit_4th_order_polynomial(y0, y1, y_mid, k[0], k[-1], dt))


def initial_step_size(fun, t0, y0, order, rtol, atol, f0):
    """The first step: Hairer, Nørsett & Wanner, Solving ODEs I, sec. II.4 (as scipy's RK45)."""
    y0, f0 = promote_dtypes_inexact(y0, f0)
    dtype = y0.dtype
    scale = (atol + ufuncs.abs(y0) * rtol).astype(dtype)
    d0 = jnp_linalg.norm(y0 / scale)
    d1 = jnp_linalg.norm(f0 / scale)
    h0 = lax_numpy.where((d0 < 1e-5) | (d1 < 1e-5), 1e-6, 0.01 * d0 / d1)
    f1 = fun(y0 + h0.astype(dtype) * f0, t0 + h0)
    d2 = jnp_linalg.norm((f1 - f0) / scale) / h0
    h1 = lax_numpy.where((d1 <= 1e-15) & (d2 <= 1e-15), ufuncs.maximum(1e-6, h0 * 1e-3),
                         (0.01 / ufuncs.maximum(d1, d2)) ** (1. / (order + 1.)))
    return ufuncs.minimum(100. * h0, h1)


def abs2(x):
    """|x|**2, for real or complex x."""
    if lax_numpy.iscomplexobj(x):
        return x.real ** 2 + x.imag ** 2
    return x ** 2


def mean_error_ratio(error_estimate, rtol, atol, y0, y1):
    """The RMS over components of the error estimate relative to its tolerance (accept <= 1)."""
    err_tol = atol + rtol * ufuncs.maximum(ufuncs.abs(y0), ufuncs.abs(y1))
    return ufuncs.sqrt(reductions.mean(abs2(error_estimate / err_tol.astype(error_estimate.dtype))))


def optimal_step_size(last_step, mean_error_ratio, safety=0.9, ifactor=10.0, dfactor=0.2,
                      order=5.0):
    """The next step size: grow by at most `ifactor`; after a rejected step shrink by at most
    `dfactor`, and never shrink after an accepted one."""
    dfactor = lax_numpy.where(mean_error_ratio < 1, 1.0, dfactor)
    factor = ufuncs.minimum(ifactor,
                            ufuncs.maximum(mean_error_ratio ** (-1.0 / order) * safety, dfactor))
    return lax_numpy.where(mean_error_ratio == 0, last_step * ifactor, last_step * factor)


# -- odeint --------------------------------------------------------------------------------------


def odeint(func, y0, t, *args, rtol=1.4e-8, atol=1.4e-8, mxstep=np.inf, hmax=np.inf):
    """Solve `dy/dt = func(y, t, *args)` from `y(t[0]) = y0`, returning `y` at every time in
    `t` (strictly increasing floats), with a new leading axis of length `len(t)`.

    `y0` may be a pytree of arrays (`func` returns the same structure); `args` are arrays or
    pytrees of arrays and are differentiable, as are `y0` and `t`. `rtol` / `atol` bound the
    local error, `mxstep` the number of steps between two output times (the solution stops
    advancing after that), `hmax` the step size.

    >>> ys = odeint(lambda y, t, k: -k * y, 1.0, jnp.linspace(0., 1., 5), 2.0)
    >>> ys[-1]                                   # ≈ exp(-2)
    Array(0.13533..., dtype=float32)
    """
    for arg in tree_util.tree_leaves(args):
        if not isinstance(arg, core.Tracer) and not _valid_jaxtype(arg):
            raise TypeError("The contents of odeint *args must be arrays or scalars, but got "
                            f"{arg}.")
    t = creation.asarray(t) if not isinstance(t, core.Tracer) else t
    if not dtypes.issubdtype(t.dtype, np.floating):
        raise TypeError(f"t must be an array of floats, but got {t}.")
    converted, consts = _closure_convert_cached(func, y0, t[0], *args)
    return _odeint_wrapper(converted, rtol, atol, mxstep, hmax, y0, t, *args, *consts)


_converted: "weakref.WeakKeyDictionary" = weakref.WeakKeyDictionary()


def _closure_convert_cached(func, *example_args):
    """`closure_convert`, remembered per (func, argument structure and avals) as JAX does, so
    calling odeint again with the same `func` reuses the compiled solver instead of tracing a
    new closure (a new static argument of the jitted solver) and compiling again. Closures
    over traced values are not remembered (their tracers die with their trace)."""
    leaves, in_tree = tree_util.tree_flatten(example_args)
    key = (in_tree, tuple(core.get_aval(x) for x in leaves))
    try:
        per_func = _converted.setdefault(func, {})
    except TypeError:  # not weakly referenceable (a builtin, a callable without __weakref__)
        return closure_convert(func, *example_args)
    hit = per_func.get(key)
    if hit is None:
        hit = closure_convert(func, *example_args)
        if not any(isinstance(c, core.Tracer) for c in hit[1]):
            per_func[key] = hit
    return hit


def _valid_jaxtype(x) -> bool:
    try:
        core.get_aval(x)
    except TypeError:
        return False
    return True


@partial(jit, static_argnums=(0, 1, 2, 3, 4))
@default_matmul_precision("highest")
def _odeint_wrapper(func, rtol, atol, mxstep, hmax, y0, ts, *args):
    y0, unravel = ravel_pytree(y0)
    func = ravel_first_arg(func, unravel)
    out = _odeint(func, rtol, atol, mxstep, hmax, y0, ts, *args)
    return vmap(unravel)(out)


@partial(custom_vjp, nondiff_argnums=(0, 1, 2, 3, 4))
@default_matmul_precision("highest")
def _odeint(func, rtol, atol, mxstep, hmax, y0, ts, *args):
    def f(y, t):
        return func(y, t, *args)

    def to_next_output(carry, target_t):
        """Step until the accepted steps pass `target_t`; interpolate the solution there."""
        def keep_going(state):
            i, _, _, t, dt, _, _ = state
            return (t < target_t) & (i < mxstep) & (dt > 0)

        def try_step(state):
            i, y, fy, t, dt, last_t, coeffs = state
            next_y, next_f, next_y_error, k = runge_kutta_step(f, y, fy, t, dt)
            next_t = t + dt
            error_ratio = mean_error_ratio(next_y_error, rtol, atol, y, next_y)
            new_coeffs = interp_fit_dopri(y, next_y, k, dt)
            dt = lax_numpy.clip(optimal_step_size(dt, error_ratio), min=0., max=hmax)
            # a rejected step keeps the state and retries with the smaller step
            accepted = [i + 1, next_y, next_f, next_t, dt, t, new_coeffs]
            rejected = [i + 1, y, fy, t, dt, last_t, coeffs]
            accept = error_ratio <= 1.
            return [lax_numpy.where(accept, a, r) for a, r in zip(accepted, rejected, strict=True)]

        _, *carry = while_loop(keep_going, try_step, [0] + carry)
        _, _, t, _, last_t, coeffs = carry
        relative_output_time = (target_t - last_t) / (t - last_t)
        y_target = polynomial.polyval(coeffs, relative_output_time.astype(coeffs.dtype))
        return carry, y_target

    f0 = f(y0, ts[0])
    dt = lax_numpy.clip(initial_step_size(f, ts[0], y0, 4, rtol, atol, f0), min=0., max=hmax)
    coeffs = creation.array([y0] * 5)
    _, ys = scan(to_next_output, [y0, f0, ts[0], dt, ts[0], coeffs], ts[1:])
    return jshape.concatenate((y0[None], ys))


def _odeint_fwd(func, rtol, atol, mxstep, hmax, y0, ts, *args):
    ys = _odeint(func, rtol, atol, mxstep, hmax, y0, ts, *args)
    return ys, (ys, ts, args)


@default_matmul_precision("highest")
def _odeint_rev(func, rtol, atol, mxstep, hmax, res, g):
    """The adjoint method: between consecutive output times, integrate backward (in negated
    time) the state together with its cotangent `y_bar` and the accumulating cotangents of
    `t[0]` and of `args`; each output time adds its own cotangent `g[i]`."""
    ys, ts, args = res

    def aug_dynamics(augmented_state, t, *args):
        y, y_bar, *_ = augmented_state
        y_dot, pullback = vjp(func, y, -t, *args)   # t runs negated: undo it
        return (-y_dot, *pullback(y_bar))

    def back_one_interval(carry, i):
        y_bar, t0_bar, args_bar = carry
        # the output time ts[i] moving changes ys[i] by func(ys[i], ts[i]) per unit time
        t_bar = linalg_ops.dot(func(ys[i], ts[i], *args), g[i]).real
        t0_bar = t0_bar - t_bar
        _, y_bar, t0_bar, args_bar = odeint(
            aug_dynamics, (ys[i], y_bar, t0_bar, args_bar), creation.array([-ts[i], -ts[i - 1]]),
            *args, rtol=rtol, atol=atol, mxstep=mxstep, hmax=hmax)
        y_bar, t0_bar, args_bar = tree_util.tree_map(operator.itemgetter(1),
                                                     (y_bar, t0_bar, args_bar))
        return (y_bar + g[i - 1], t0_bar, args_bar), t_bar

    init = (g[-1], 0., tree_util.tree_map(creation.zeros_like, args))
    (y_bar, t0_bar, args_bar), rev_ts_bar = scan(back_one_interval, init,
                                                 creation.arange(len(ts) - 1, 0, -1))
    ts_bar = jshape.concatenate([creation.array([t0_bar]), rev_ts_bar[::-1]])
    return (y_bar, ts_bar, *args_bar)


_odeint.defvjp(_odeint_fwd, _odeint_rev)
