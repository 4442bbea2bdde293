"""Python control flow on values under autodiff, against JAX 0.10.2 and finite differences.

Outside `jit`, every differentiation API computes the primal concretely, so `if x > 0:`,
`while`, `int(x)` and `range(int(x))` work (and `float(x)` raises, as in JAX); under `jit`,
`make_jaxpr`, `vmap`, `checkpoint` and `scan` bodies the values are abstract and the tracer
errors are raised. The programs live in `autodiff_control_flow_cases.py`; what JAX 0.10.2 gives
for each was recorded by `data/record_autodiff_control_flow.py`.
"""
import builtins
import json
import pathlib

import numpy as np
import pytest

import pyjax
import pyjax.numpy as jnp
from pyjax import errors, lax

from autodiff_control_flow_cases import CASES, FD, PRELUDE

RECORDED = json.loads((pathlib.Path(__file__).parent / "data" / "jax_autodiff_control_flow.json")
                      .read_text())["cases"]


@pytest.fixture(scope="module")
def ns():
    namespace = {"jax": pyjax, "jnp": jnp, "lax": lax, "np": np}
    exec(PRELUDE, namespace)
    return namespace


def _exception_class(name):
    return getattr(errors, name, None) or getattr(builtins, name)


@pytest.mark.parametrize("name", sorted(CASES))
def test_matches_jax(ns, name):
    expected = RECORDED[name]
    if "error" in expected:
        with pytest.raises(_exception_class(expected["error"])) as info:
            eval(CASES[name], ns)
        assert type(info.value).__name__ == expected["error"]
        return
    value = eval(CASES[name], ns)
    leaves = [v for v in pyjax.tree_util.tree_leaves(value) if not isinstance(v, str)]
    assert len(leaves) == len(expected["value"])
    for got, want in zip(leaves, expected["value"]):
        np.testing.assert_allclose(np.asarray(got), np.asarray(want, np.float32), rtol=1e-6, atol=1e-6)


@pytest.mark.parametrize("fn,x", FD, ids=[f"{fn}({x})" for fn, x in FD])
def test_against_finite_differences(ns, fn, x):
    f = ns[fn]
    eps = 1e-3
    fd = (float(f(x + eps)) - float(f(x - eps))) / (2 * eps)
    np.testing.assert_allclose(float(pyjax.grad(f)(x)), fd, rtol=2e-2, atol=1e-3)
    np.testing.assert_allclose(float(pyjax.jacrev(f)(x)), fd, rtol=2e-2, atol=1e-3)
    if fn != "cv":  # forward mode through a custom_vjp function is an error, as in JAX
        np.testing.assert_allclose(float(pyjax.jvp(f, (x,), (1.0,))[1]), fd, rtol=2e-2, atol=1e-3)


def test_error_names_the_problem(ns):
    with pytest.raises(errors.TracerBoolConversionError) as info:
        pyjax.jit(pyjax.grad(ns["f"]))(2.0)
    assert "bool()" in str(info.value) and "lax.cond" in str(info.value)


def test_custom_rules_run_as_often_as_in_jax():
    """Eager: the body once. grad: only the rule (the body only when the rule calls it). jit:
    the body traced once, the rule only when differentiated."""
    log = []

    @pyjax.custom_jvp
    def f(x):
        log.append("body")
        return jnp.sin(x)

    @f.defjvp
    def f_jvp(primals, tangents):
        log.append("jvp")
        return jnp.sin(primals[0]), jnp.cos(primals[0]) * tangents[0]

    f(1.0)
    assert log == ["body"]
    log.clear()
    pyjax.grad(f)(1.0)
    assert log == ["jvp"]
    log.clear()
    pyjax.jit(f)(1.0)
    assert log == ["body"]
    log.clear()
    pyjax.jit(pyjax.grad(f))(2.0)
    assert log == ["jvp"]

    @pyjax.custom_vjp
    def g(x):
        log.append("body")
        return jnp.sin(x)

    def g_fwd(x):
        log.append("fwd")
        return jnp.sin(x), x

    def g_bwd(r, ct):
        log.append("bwd")
        return (ct * jnp.cos(r),)

    g.defvjp(g_fwd, g_bwd)
    log.clear()
    g(1.0)
    assert log == ["body"]
    log.clear()
    pyjax.grad(g)(1.0)
    assert log == ["fwd", "bwd"]
    log.clear()
    pyjax.jit(pyjax.grad(g))(2.0)
    assert log == ["fwd", "bwd"]


def test_primal_work_runs_eagerly_and_once():
    """The primal of grad(f) is computed op by op as f runs (its values are concrete), and the
    Python body of f runs once per call."""
    calls = []

    def f(x):
        calls.append(type(x).__name__)
        y = jnp.sin(x)
        assert bool(y > 0)  # a concrete value, mid-computation
        return y * 2.0

    g = pyjax.grad(f)(0.5)
    np.testing.assert_allclose(g, 2 * np.cos(0.5), rtol=1e-6)
    assert len(calls) == 1


def test_grad_of_jit_keeps_two_compiled_calls():
    """grad(jit(f)) outside jit: the forward (known) part and the backward (transposed) part are
    each one `jit` call, whatever f contains."""
    f = pyjax.jit(lambda x: jnp.sum(jnp.tanh(x) ** 2))
    jaxpr = pyjax.make_jaxpr(pyjax.grad(f))(jnp.ones(3))
    assert [e.primitive.name for e in jaxpr.eqns].count("jit") == 2
