"""jax.experimental.ode.odeint against JAX 0.10.2's recorded values and gradients
(data/record_ode.py -> data/ode.json), against scipy.integrate.solve_ivp (an independent
integrator), against closed forms, finite differences (check_grads) and a loop (vmap)."""
import json
import pathlib

import numpy as np
import pytest
import scipy.integrate

import pyjax as jax
import pyjax.numpy as jnp
from pyjax.experimental import ode
from pyjax.experimental.ode import odeint
from pyjax.test_util import check_grads
from recorded_cases import assert_matches, evaluate

RECORDED = json.loads((pathlib.Path(__file__).parent / "data" / "ode.json").read_text())


@pytest.fixture(scope="module")
def ns():
    ns = {"jax": jax, "jnp": jnp, "np": np, "odeint": odeint}
    exec(RECORDED["prelude"], ns)
    return ns


# A few cases in the default run (each compiles its own solver, ~1-3 s cold); all with -m slow.
QUICK = {"odeint(decay, 1.0, TS, 2.0)",
         "odeint(pendulum, Y0P, jnp.linspace(0., 10., 11), 0.25, 5.0, rtol=1e-3, atol=1e-3)",
         "odeint(oscillator, Y0T, TS, P)",
         "jax.grad(lambda ts: odeint(decay, 1.0, ts, 2.0).sum())(TS)",
         "odeint(decay, 1.0, jnp.arange(3), 2.0)"}


@pytest.mark.parametrize("expr", [e if e in QUICK else pytest.param(e, marks=pytest.mark.slow)
                                  for e in RECORDED["cases"]])
def test_matches_jax(ns, expr):
    # The same steps are taken as in JAX, so values agree to float32 rounding (the loosest:
    # gradients whose adjoint solve accumulates rounding over many steps).
    actual, expected = evaluate(expr, ns), RECORDED["cases"][expr]
    assert_matches(actual, expected, rtol=2e-4, atol=2e-5, err_msg=expr)


def test_weak_type_of_gradients(ns):
    # odeint's bwd returns a strong cotangent, so the gradient at a Python float is strong
    expr = "jax.grad(lambda a: odeint(lambda y, t: -a * y, 1.0, TS)[-1])(0.7)"
    assert_matches(evaluate(expr, ns), RECORDED["cases"][expr], rtol=2e-4, atol=2e-5)


def test_public_names():
    for name in ("odeint", "runge_kutta_step", "initial_step_size", "interp_fit_dopri",
                 "fit_4th_order_polynomial", "mean_error_ratio", "optimal_step_size", "abs2",
                 "ravel_first_arg"):
        assert callable(getattr(ode, name)), name
    assert jax.experimental.ode is ode


def _pendulum(y, t, b, c):
    return jnp.stack([y[1], -b * y[1] - c * jnp.sin(y[0])])


@pytest.mark.parametrize("method", ["RK45", "DOP853"])
def test_pendulum_matches_scipy(method):
    ts = np.linspace(0., 10., 21)
    y0 = np.array([np.pi - 0.1, 0.])
    ref = scipy.integrate.solve_ivp(
        lambda t, y: [y[1], -0.25 * y[1] - 5.0 * np.sin(y[0])], (0., 10.), y0, t_eval=ts,
        method=method, rtol=1e-10, atol=1e-10).y.T
    ys = odeint(_pendulum, jnp.asarray(y0, jnp.float32), jnp.asarray(ts, jnp.float32), 0.25, 5.0,
                rtol=1e-6, atol=1e-6)
    np.testing.assert_allclose(ys, ref, atol=2e-4)


def test_float64_matches_scipy_tightly():
    with jax.enable_x64(True):
        ts = np.linspace(0., 4., 9)
        ref = scipy.integrate.solve_ivp(lambda t, y: [y[1], -y[0] + np.cos(2 * t) - 0.1 * y[1]],
                                        (0., 4.), [1., 0.], t_eval=ts, method="DOP853",
                                        rtol=1e-12, atol=1e-12).y.T
        ys = odeint(lambda y, t: (y[1], -y[0] + jnp.cos(2 * t) - 0.1 * y[1]),
                    (jnp.float64(1.), jnp.float64(0.)), jnp.asarray(ts), rtol=1e-10, atol=1e-10)
        assert ys[0].dtype == np.float64
        np.testing.assert_allclose(np.stack(ys, 1), ref, atol=1e-8)


def test_exponential_decay_closed_form_and_pytree_state():
    ts = jnp.linspace(0., 3., 7)
    out = odeint(lambda y, t, k: {"a": -k * y["a"], "b": [2 * y["b"][0]]},
                 {"a": jnp.array([1., 3.]), "b": [jnp.float32(0.5)]}, ts, 0.7)
    np.testing.assert_allclose(out["a"], np.exp(-0.7 * np.asarray(ts))[:, None] * [1., 3.],
                               rtol=1e-5)
    np.testing.assert_allclose(out["b"][0], 0.5 * np.exp(2 * np.asarray(ts)), rtol=1e-5)


def test_vmap_over_initial_conditions_matches_a_loop():
    ts = jnp.linspace(0., 5., 6)
    y0s = jnp.array([[0.5, 0.], [1.5, 0.3], [3.0, -1.0]])
    batched = jax.vmap(lambda y0: odeint(_pendulum, y0, ts, 0.25, 5.0))(y0s)
    loop = np.stack([odeint(_pendulum, y0, ts, 0.25, 5.0) for y0 in y0s])
    np.testing.assert_allclose(batched, loop, rtol=1e-5, atol=1e-5)


@pytest.mark.slow
def test_jit_matches_eager():
    ts = jnp.linspace(0., 2., 5)
    f = lambda y0, b: odeint(_pendulum, y0, ts, b, 5.0)
    y0 = jnp.array([1., 0.])
    np.testing.assert_allclose(jax.jit(f)(y0, 0.3), f(y0, 0.3), rtol=1e-6, atol=1e-6)


@pytest.mark.slow
def test_adjoint_gradient_by_finite_differences():
    def f(y0, b, c):
        return odeint(_pendulum, y0, jnp.linspace(0., 1., 3), b, c, rtol=1e-7, atol=1e-7)
    with jax.enable_x64(True):
        args = (jnp.array([1.0, 0.5]), jnp.float64(0.3), jnp.float64(2.0))
        check_grads(f, args, order=1, modes=["rev"], atol=1e-5, rtol=1e-5)
        check_grads(lambda ts: odeint(_pendulum, args[0], ts, 0.3, 2.0, rtol=1e-8, atol=1e-8),
                    (jnp.array([0., 0.4, 1.0]),), order=1, modes=["rev"], atol=1e-5, rtol=1e-5)


def test_mxstep_stops_the_solution():
    ys = odeint(_pendulum, jnp.array([1., 0.]), jnp.linspace(0., 10., 3), 0.25, 5.0, mxstep=2)
    assert np.all(np.isfinite(np.asarray(ys)))
    full = odeint(_pendulum, jnp.array([1., 0.]), jnp.linspace(0., 10., 3), 0.25, 5.0)
    assert not np.allclose(ys[-1], full[-1], atol=1e-2)


def test_same_function_is_not_recompiled():
    def decay(y, t, k):
        return -k * y
    ts = jnp.linspace(0., 1., 4)
    odeint(decay, 1.0, ts, 2.0)
    from pyjax._src.backend import xla
    before = xla.cache_stats()["compiles"] + xla.cache_stats()["disk_hits"]
    odeint(decay, 1.0, ts, 3.0)
    after = xla.cache_stats()["compiles"] + xla.cache_stats()["disk_hits"]
    assert after == before


def test_bad_inputs():
    with pytest.raises(TypeError, match="t must be an array of floats"):
        odeint(lambda y, t: -y, 1.0, jnp.arange(3))
    with pytest.raises(TypeError, match="must be arrays or scalars, but got two"):
        odeint(lambda y, t, k: -y, 1.0, jnp.linspace(0., 1., 3), "two")
    with pytest.raises(TypeError, match="custom_vjp"):
        jax.jvp(lambda k: odeint(lambda y, t: -k * y, 1.0, jnp.linspace(0., 1., 3)), (2.0,), (1.0,))
