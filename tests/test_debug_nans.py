"""jax_debug_nans / jax_debug_infs: a NaN (inf) raises FloatingPointError naming the primitive that
made it, as JAX 0.10.2 does (messages recorded by tests/data/record_checkify.py into
tests/data/checkify.json), and the user's source line of that primitive: eagerly, inside jit
(re-run one primitive at a time), under grad, for a nested jit, and for scan.

The line is checked wherever pyjax reports it: the message, a note, or a frame of the traceback.
"""
import importlib.util
import json
import os
import traceback

import numpy as np
import pytest

import pyjax as jax
import pyjax.numpy as jnp
from pyjax import lax
from recorded_cases import assert_matches, encode

_HERE = os.path.join(os.path.dirname(__file__), "data")
with open(os.path.join(_HERE, "checkify.json")) as _f:
    DATA = json.load(_f)["debug"]
_spec = importlib.util.spec_from_file_location("record_checkify",
                                               os.path.join(_HERE, "record_checkify.py"))
record = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(record)


@pytest.fixture
def flags():
    yield jax.config.update
    jax.config.update("jax_debug_nans", False)
    jax.config.update("jax_debug_infs", False)


@pytest.mark.parametrize("case", [c for c, _, _ in record.DEBUG_CASES])
def test_message_matches_jax(case, flags):
    _, settings, src = next(c for c in record.DEBUG_CASES if c[0] == case)
    ns = {"jax": jax, "jnp": jnp, "lax": lax, "np": np}
    exec(record.DEBUG_PRELUDE, ns)
    for k, v in settings.items():
        flags(k, v)
    actual = record.run_case(src, ns, encode)
    expected = DATA[case]
    if "tuple" in expected:  # (class, message): pyjax may say more after JAX's text
        cls, msg = (x["str"] for x in actual["tuple"])
        assert cls == expected["tuple"][0]["str"]
        assert msg.startswith(expected["tuple"][1]["str"]), (msg, expected)
    else:
        assert_matches(actual, expected, err_msg=case)


def _where_reported(e: BaseException):
    """Everything an error says about where: message, notes, traceback frames."""
    text = str(e) + "\n".join(getattr(e, "__notes__", []))
    frames = [(f.filename, f.lineno) for f in traceback.extract_tb(e.__traceback__)]
    return text, frames


def _assert_names_line(e, line):
    text, frames = _where_reported(e)
    assert f"{__file__}:{line}" in text or (__file__, line) in frames, (text, frames[-5:])


def _line_of(fun, marker):
    import inspect
    lines, start = inspect.getsourcelines(fun)
    return start + next(i for i, ln in enumerate(lines) if marker in ln)


def _f(x):
    y = x * 2.0
    z = jnp.log(y)  # makes the NaN
    return jnp.sin(z) + 1.0


def _scanned(x):
    def body(c, _):
        return jnp.sqrt(c - 3.0), None  # makes the NaN
    return lax.scan(body, x, None, length=2)[0]  # the scan


def _outer(x):
    return jax.jit(lambda v: jnp.arccos(v) * 2.0)(x) + 1.0  # makes the NaN


@pytest.mark.parametrize("how", ["eager", "jit", "jit_twice"])
def test_names_primitive_and_line(how, flags):
    flags("jax_debug_nans", True)
    f = _f if how == "eager" else jax.jit(_f)
    if how == "jit_twice":  # a cached executable still names the line
        with pytest.raises(FloatingPointError):
            f(jnp.float32(-1.0))
    with pytest.raises(FloatingPointError, match="invalid value \\(nan\\) encountered in log") as e:
        f(jnp.float32(-1.0))
    _assert_names_line(e.value, _line_of(_f, "makes the NaN"))


@pytest.mark.parametrize("jit", [False, True])
def test_under_grad(jit, flags):
    flags("jax_debug_nans", True)

    def loss(x):
        return jnp.sum(jnp.sqrt(x) * 3.0)  # makes the NaN
    g = jax.grad(loss)
    with pytest.raises(FloatingPointError, match="encountered in sqrt") as e:
        (jax.jit(g) if jit else g)(jnp.array([1.0, -1.0]))
    _assert_names_line(e.value, _line_of(loss, "makes the NaN"))


@pytest.mark.parametrize("jit", [False, True])
def test_scan_names_the_scan(jit, flags):
    flags("jax_debug_nans", True)
    with pytest.raises(FloatingPointError, match="encountered in scan") as e:
        (jax.jit(_scanned) if jit else _scanned)(jnp.float32(5.0))
    text, frames = _where_reported(e.value)
    lines = {_line_of(_scanned, "the scan"), _line_of(_scanned, "makes the NaN")}
    assert any(f"{__file__}:{n}" in text or (__file__, n) in frames for n in lines)


def test_nested_jit_names_the_inner_primitive(flags):
    flags("jax_debug_nans", True)
    with pytest.raises(FloatingPointError, match="encountered in acos") as e:
        jax.jit(_outer)(jnp.float32(3.0))
    _assert_names_line(e.value, _line_of(_outer, "makes the NaN"))


def test_infs(flags):
    flags("jax_debug_infs", True)

    def f(x):
        return jnp.exp(x) * 2.0  # makes the inf
    with pytest.raises(FloatingPointError, match="invalid value \\(inf\\) encountered in exp") as e:
        jax.jit(f)(jnp.float32(100.0))
    _assert_names_line(e.value, _line_of(f, "makes the inf"))
    np.testing.assert_allclose(jax.jit(f)(jnp.float32(1.0)), 2 * np.e, rtol=1e-6)


def test_off_by_default_and_values_unchanged(flags):
    out = jax.jit(_f)(jnp.float32(-1.0))
    assert np.isnan(np.asarray(out))
    flags("jax_debug_nans", True)
    np.testing.assert_allclose(jax.jit(_f)(jnp.float32(1.0)), np.sin(np.log(2.0)) + 1.0,
                               rtol=1e-6)


def _looped(x):
    def body(c):
        i, v = c
        return i + 1, jnp.sqrt(v - 1.0)  # makes the NaN in iteration 2
    return lax.while_loop(lambda c: c[0] < 4, body, (0, x))[1]


@pytest.mark.parametrize("jit", [False, True])
@pytest.mark.parametrize("fun,prim,marker,iteration", [
    (_scanned, "sqrt", "makes the NaN", 0), (_looped, "sqrt", "makes the NaN in iteration 2", 2)])
def test_loop_body_primitive_is_named_in_a_note(fun, prim, marker, iteration, jit, flags):
    # pyjax only: JAX names the loop; pyjax also runs its body again one iteration at a time
    flags("jax_debug_nans", True)
    x = jnp.float32(2.0 if fun is _scanned else 3.0)
    with pytest.raises(FloatingPointError) as e:
        (jax.jit(fun) if jit else fun)(x)
    notes = "\n".join(getattr(e.value, "__notes__", []))
    assert f"encountered in {prim}" in notes and f"iteration {iteration})" in notes, notes
    assert f"{__file__}:{_line_of(fun, marker)}" in notes, notes


def test_inside_jit_of_checkify(flags):
    # checkify re-stages the function's equations; they keep the user's line
    from pyjax.experimental import checkify
    flags("jax_debug_nans", True)
    with pytest.raises(FloatingPointError, match="encountered in log") as e:
        jax.jit(checkify.checkify(_f, errors=checkify.all_checks))(jnp.float32(-1.0))
    _assert_names_line(e.value, _line_of(_f, "makes the NaN"))


def test_nan_literal_output_says_the_deoptimized_function_made_none(flags):
    """A jitted function whose output is a NaN literal: no primitive made it, and the error says
    so in JAX 0.10.2's words (its debug_nans_test testDebugNansDoesntReturnDeoptimizedResult)."""
    flags("jax_debug_nans", True)
    f = jax.jit(lambda x: (jnp.nan, x + 2))
    with pytest.raises(FloatingPointError, match="the de-optimized function did not .*literal"):
        f(1.0)
