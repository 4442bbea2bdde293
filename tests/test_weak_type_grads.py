"""Weak types of derivatives, against JAX 0.10.2 (data/record_weak_type_grads.py ->
data/weak_type_grads.json): every row compares dtype, weak type and value.

JAX does not give a gradient its primal's weak type; a cotangent is weak or strong as the
transpose rules make it (the transpose of a weak-to-strong `convert_element_type` converts back
to weak, a custom_vjp `bwd` keeps whatever it returns, a cotangent passed to `vjp` keeps its
own). jacrev/jacfwd then cast each block to the weak type of the input (jacrev) or output
(jacfwd) it belongs to."""
import json
import pathlib

import numpy as np
import pytest

import pyjax as jax
import pyjax.numpy as jnp
from pyjax import lax
from recorded_cases import assert_matches, evaluate

RECORDED = json.loads((pathlib.Path(__file__).parent / "data" / "weak_type_grads.json").read_text())


@pytest.fixture(scope="module")
def ns():
    ns = {"jax": jax, "jnp": jnp, "lax": lax, "np": np}
    exec(RECORDED["prelude"], ns)
    return ns


# Eager `jax.jvp` in JAX converts every operand a jnp function promotes, even one already of the
# promoted type (its tracers are concrete), so a strong tangent given for a weak primal becomes
# weak at the first jnp operation; pyjax converts only operands whose type changes.
KNOWN = {"jax.jvp(jnp.sin, (1.0,), (jnp.float32(1),))":
         "eager jvp keeps a strong tangent of a weak primal strong through jnp promotion"}


@pytest.mark.parametrize("expr", [pytest.param(e, marks=pytest.mark.xfail(strict=True, reason=KNOWN[e]))
                                  if e in KNOWN else e for e in RECORDED["cases"]])
def test_matches_jax(ns, expr):
    assert_matches(evaluate(expr, ns), RECORDED["cases"][expr], rtol=1e-6, atol=1e-6, err_msg=expr)
