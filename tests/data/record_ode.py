"""Record JAX 0.10.2's jax.experimental.ode.odeint: values (exponential decay, a damped
pendulum, a pytree state with pytree args, time-dependent and closed-over dynamics, loose
tolerances, hmax, mxstep), adjoint gradients with respect to y0, args, closed-over values and
the output times, vmap and jit, and the errors for bad inputs.

Run with the reference JAX environment (never by the test suite):
    /root/scratch/jaxref/bin/python tests/data/record_ode.py
It writes tests/data/ode.json; tests/test_ode.py evaluates the same expressions with
`jax`/`jnp`/`odeint` bound to pyjax's.
"""
import json
import pathlib
import sys

import jax
import jax.numpy as jnp
import numpy as np
from jax.experimental.ode import odeint

HERE = pathlib.Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
from recorded_cases import evaluate_cases  # noqa: E402

PRELUDE = '''
def decay(y, t, k):
    return -k * y

def pendulum(y, t, b, c):
    return jnp.stack([y[1], -b * y[1] - c * jnp.sin(y[0])])

def oscillator(y, t, p):
    return {'pos': y['vel'], 'vel': -p['k'] * y['pos'] - p['c'] * y['vel'] + jnp.cos(t)}

TS = jnp.linspace(0., 2., 6)
Y0P = jnp.array([np.pi - 0.1, 0.])
Y0T = {'pos': jnp.array([1., -0.5]), 'vel': jnp.zeros(2)}
P = {'k': 2.0, 'c': jnp.array([0.1, 0.3])}
A = jnp.array([[-0.5, 1.0], [-1.0, -0.2]])
'''

CASES = [
    "odeint(decay, 1.0, TS, 2.0)",
    "odeint(decay, jnp.array([1., 2., 3.]), TS, jnp.array([0.5, 1., 2.]))",
    "odeint(pendulum, Y0P, jnp.linspace(0., 10., 11), 0.25, 5.0)",
    "odeint(pendulum, Y0P, jnp.linspace(0., 10., 11), 0.25, 5.0, rtol=1e-3, atol=1e-3)",
    "odeint(pendulum, Y0P, jnp.linspace(0., 10., 11), 0.25, 5.0, mxstep=4)",
    "odeint(decay, 1.0, TS, 2.0, hmax=0.05)",
    "odeint(oscillator, Y0T, TS, P)",
    "odeint(lambda y, t: jnp.cos(t) * y, 1.0, TS)",
    "odeint(lambda y, t: A @ y, jnp.array([1., 0.]), jnp.linspace(0., 5., 8))",
    "odeint(lambda y, t: (y[1], -y[0]), (1.0, 0.0), TS)",
    "odeint(decay, 1.0, jnp.array([0., 0.5, 0.5, 1.]), 2.0)",
    "jax.grad(lambda y0, k: odeint(decay, y0, TS, k)[-1].sum(), argnums=(0, 1))(jnp.array([1., 2.]), 1.5)",
    "jax.grad(lambda b, c: odeint(pendulum, Y0P, jnp.linspace(0., 3., 4), b, c)[:, 0].sum(), argnums=(0, 1))(0.25, 5.0)",
    "jax.grad(lambda y0: (odeint(pendulum, y0, jnp.linspace(0., 3., 4), 0.25, 5.0) ** 2).sum())(Y0P)",
    "jax.grad(lambda ts: odeint(decay, 1.0, ts, 2.0).sum())(TS)",
    "jax.grad(lambda p: odeint(oscillator, Y0T, TS, p)['pos'].sum())(P)",
    "jax.grad(lambda a: odeint(lambda y, t: -a * y, 1.0, TS)[-1])(0.7)",
    "jax.grad(lambda m: odeint(lambda y, t: m @ y, jnp.array([1., 0.]), TS)[-1, 0])(A)",
    "jax.value_and_grad(lambda k: odeint(decay, 1.0, TS, k, rtol=1e-4, atol=1e-4)[-1])(2.0)",
    "jax.vmap(lambda y0: odeint(decay, y0, TS, 2.0))(jnp.array([1., 2.]))",
    "jax.vmap(lambda k: odeint(pendulum, Y0P, TS, 0.25, k))(jnp.array([1., 5., 9.]))",
    "jax.jit(lambda y0, k: odeint(decay, y0, TS, k))(1.0, 2.0)",
    "jax.jit(jax.grad(lambda k: odeint(decay, 1.0, TS, k)[-1]))(2.0)",
    "odeint(decay, 1.0, jnp.arange(3), 2.0)",
    "odeint(decay, 1.0, TS, 'two')",
    "jax.jvp(lambda k: odeint(decay, 1.0, TS, k), (2.0,), (1.0,))",
]

if __name__ == "__main__":
    jax.config.update("jax_platforms", "cpu")
    ns = {"jax": jax, "jnp": jnp, "np": np, "odeint": odeint}
    out = {"prelude": PRELUDE, "cases": evaluate_cases(PRELUDE, CASES, ns)}
    (HERE / "ode.json").write_text(json.dumps(out, indent=1, sort_keys=True) + "\n")
    print(f"wrote {len(out['cases'])} cases")
