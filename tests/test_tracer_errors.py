"""Tracer errors name the traced function and the argument (by its path in the user's pytree
arguments) that a value depends on, as JAX 0.10.2 does (recorded in data/tracer_errors.json), and
pyjax adds the user's source line, the fix, and the same naming under vmap and for leaked tracers.
"""
import json
import os

import numpy as np
import pytest

import pyjax
import pyjax.numpy as jnp
from pyjax import errors, lax

import tracer_error_cases

_RECORDED = json.load(open(os.path.join(os.path.dirname(__file__), "data",
                                        "tracer_errors.json")))["cases"]
_CASES = tracer_error_cases.cases(pyjax, jnp, np)


@pytest.mark.parametrize("name", sorted(_RECORDED))
def test_matches_jax(name):
    expected = _RECORDED[name]
    with pytest.raises(getattr(errors, expected["class"])) as info:
        _CASES[name]()
    got = tracer_error_cases.describe(info.value)
    assert got["class"] == expected["class"]
    if expected["sentence"]:
        assert got["sentence"] == expected["sentence"]
    else:  # NB: JAX says nothing here (a vmap inside jit); pyjax names the jit argument
        assert got["sentence"].startswith("The error occurred while tracing the function")
        assert "argument r" in got["sentence"]


def _message(fun, *args):
    with pytest.raises(errors.ConcretizationTypeError) as info:
        fun(*args)
    return str(info.value)


def test_source_line_and_fix_are_shown():
    def f(p):
        if p["w"] > 0:  # the line the message quotes
            return p["w"]
        return -p["w"]
    msg = _message(pyjax.jit(f), {"w": 1.0})
    assert "test_tracer_errors.py:" in msg
    assert 'if p["w"] > 0:  # the line the message quotes' in msg
    assert "lax.cond" in msg and "static_argnames='p'" in msg


def test_array_conversion_does_not_suggest_static():
    msg = str(pytest.raises(errors.TracerArrayConversionError,
                            pyjax.jit(lambda x: np.asarray(x)), 1.0).value)
    assert "argument x" in msg and "static_argnames" not in msg


def test_value_closed_over_from_the_enclosing_jit():
    def h(x):
        def body(c, xi):
            if xi + x > 0:
                return c, c
            return c, c
        return lax.scan(body, 0.0, jnp.ones(3))
    msg = _message(pyjax.jit(h), 1.0)
    assert "function body at" in msg and "for scan" in msg and "argument xi" in msg
    assert "function h at" in msg and "traced for jit, on its argument x." in msg


def test_cond_and_while_bodies_name_their_arguments():
    def branch(ops):
        return jnp.zeros(int(ops["n"]))
    msg = _message(pyjax.jit(lambda v: lax.cond(True, branch, branch, {"n": v})), 2.0)
    assert "function branch at" in msg and "for cond" in msg and "argument ops['n']" in msg

    def body(carry):
        i, acc = carry
        return i + 1, jnp.zeros(int(acc))
    msg = _message(lambda: lax.while_loop(lambda c: c[0] < 3, body, (0, 1.0)))
    assert "for while_loop" in msg and "argument carry[1]" in msg


def test_independent_value_names_no_argument():
    def f(x):
        return jnp.zeros(int(jnp.ones(()).sum() + x * 0))
    msg = _message(pyjax.jit(f), 1.0)
    assert "argument x" in msg  # x * 0 still depends on x

    def g(x):
        y = jnp.arange(3.0).sum()
        return jnp.zeros(int(lax.stop_gradient(y) + pyjax.jit(lambda: jnp.ones(()))()))
    # every operand is a constant: nothing about arguments, and no error at all
    assert g(1.0).shape == (4,)


def test_leaked_tracer_names_function_and_argument_path():
    leaked = []

    def f(p):
        leaked.append(jnp.sin(p["w"]) * 2)
        return p["w"]
    pyjax.jit(f)({"w": 1.0})
    with pytest.raises(errors.UnexpectedTracerError) as info:
        leaked[0] + 1
    msg = str(info.value)
    assert "created while tracing the function f at" in msg and "for jit" in msg
    assert "from the argument p['w']" in msg


def test_a_leaked_tracer_names_the_line_that_made_it():
    """Issue 23 (JAX's api_test test_escaped_tracer_omnistaging_top_trace): JAX's sentence
    'The leaked intermediate value was created on line file:line (function)'."""
    leaked = []

    def body(c, _):
        leaked.append(jnp.add(c, 1))
        return c, None

    lax.scan(body, 1, None, length=2)
    with pytest.raises(errors.UnexpectedTracerError,
                       match=r"was created on line .*test_tracer_errors.py:\d+ \(.*body\)"):
        pyjax.jit(jnp.add)(jnp.ones(()), leaked[0])
