"""pyjax.flatten_util.ravel_pytree against JAX 0.10.2's recorded results (mixed dtypes, weak
scalars, empty trees, unravel's dtype rules and errors, under jit/grad/vmap:
`data/record_flatten_util.py` → `data/flatten_util.json`), and a round trip checked with NumPy."""
import json
import pathlib

import numpy as np
import pytest

import pyjax
import pyjax.numpy as jnp
from pyjax.flatten_util import ravel_pytree

from recorded_cases import assert_matches, evaluate

RECORDED = json.loads((pathlib.Path(__file__).parent / "data" / "flatten_util.json").read_text())


@pytest.fixture(scope="module")
def ns():
    ns = {"jax": pyjax, "jnp": jnp, "np": np, "ravel_pytree": ravel_pytree}
    exec(RECORDED["prelude"], ns)
    return ns


@pytest.mark.parametrize("expr", list(RECORDED["cases"]))
def test_matches_jax(ns, expr):
    expected = RECORDED["cases"][expr]
    assert_matches(evaluate(expr, ns), expected, rtol=0, atol=0, err_msg=expr)


def test_round_trip_matches_numpy():
    rng = np.random.default_rng(0)
    tree = {"w": rng.normal(size=(3, 2)).astype(np.float32), "b": [rng.normal(size=4).astype(np.float32)]}
    flat, unravel = ravel_pytree(tree)
    np.testing.assert_array_equal(flat, np.concatenate([tree["b"][0].ravel(), tree["w"].ravel()]))
    back = unravel(flat)
    np.testing.assert_array_equal(back["w"], tree["w"])
    np.testing.assert_array_equal(back["b"][0], tree["b"][0])
