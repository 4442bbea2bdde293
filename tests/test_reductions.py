"""jax.numpy reductions against JAX 0.10.2's recorded results (`data/record_reductions.py` →
`data/reductions.json`): float16/bfloat16 accumulated in float32, var/std `dtype=`/`mean=`/
`correction=`, cumulative_sum/prod `include_initial=`, bool operands, `initial`/`where` errors."""
import json
import pathlib
import re

import numpy as np
import pytest

import pyjax
import pyjax.numpy as jnp
from pyjax import lax

from recorded_cases import assert_matches, evaluate

RECORDED = json.loads((pathlib.Path(__file__).parent / "data" / "reductions.json").read_text())


@pytest.fixture(scope="module")
def ns():
    ns = {"jax": pyjax, "jnp": jnp, "np": np, "lax": lax}
    exec(RECORDED["prelude"], ns)
    return ns


@pytest.mark.parametrize("expr", list(RECORDED["cases"]))
def test_matches_jax(ns, expr):
    expected = RECORDED["cases"][expr]
    actual = evaluate(expr, ns)
    assert_matches(actual, expected, rtol=2e-6, atol=0, err_msg=expr)


def test_bad_initial_message_is_jax_s(ns):
    # JAX's reducer tests match this wording (testReducerBadInitial)
    for name in ("sum", "prod", "max", "min", "nansum", "nanprod", "nanmax", "nanmin"):
        with pytest.raises(ValueError, match=re.escape("initial value must be a scalar. Got array of shape (1, 2, 3)")):
            getattr(jnp, name)(jnp.ones((2, 3, 4)), axis=-1, initial=jnp.zeros((1, 2, 3)))


def test_where_and_axis_errors_use_jax_s_words():
    """JAX's reducer tests match `jnp.<name>: where must be None or a boolean array` (for the
    function called, not the sum it delegates to) and `duplicate value in 'axis': (0, 0)`."""
    x, where = jnp.zeros(10), jnp.ones(10, dtype=int)
    for name in ("sum", "mean", "var", "std", "nanmean", "nanvar", "nanstd", "nansum", "nanmax"):
        kw = {"initial": 0.0} if name == "nanmax" else {}
        with pytest.raises(ValueError, match=f"jnp.{name}: where must be None or a boolean array"):
            getattr(jnp, name)(x, where=where, **kw)
    with pytest.raises(ValueError, match=re.escape("duplicate value in 'axis': (0, 0)")):
        jnp.sum(jnp.ones((2, 2)), axis=(0, 0))


def test_f16_reductions_can_be_disallowed_as_jax():
    """jax_allow_f16_reductions=False makes lax.reduce_sum of a float16/bfloat16 operand over a
    non-singleton axis JAX's ValueError (singleton axes stay allowed); part of jit's key."""
    x = jnp.ones(3, "bfloat16")
    assert float(lax.reduce_sum(x, [0])) == 3.0
    f = pyjax.jit(lambda v: lax.reduce_sum(v, [0]))
    assert float(f(x)) == 3.0
    with pyjax.allow_f16_reductions(False):
        with pytest.raises(ValueError, match="not allowed when jax_allow_f16_reductions=False"):
            lax.reduce_sum(x, [0])
        with pytest.raises(ValueError, match="not allowed"):
            f(x)  # (retraced under the flag)
        np.testing.assert_array_equal(lax.reduce_sum(jnp.ones((1, 3), "float16"), [0]), [1, 1, 1])
