"""pyjax.nn.initializers against JAX 0.10.2's recorded samples (`data/record_initializers.py` →
`data/initializers.json`): float32 to the last ulp (the samplers follow JAX's algorithms, and
float32 normals come out the same on every CPU measured); float16 and bfloat16 within 4 ulps of
the array's largest magnitude, since XLA's CPU code computes half-precision erf_inv differently
on different CPU models (JAX 0.10.2 gives he_normal(float16) 3 ulps apart on two machines). Plus the statistics every variance_scaling configuration promises (an independent check of
the fan arithmetic) and the docstring examples."""
import doctest
import json
import pathlib

import numpy as np
import pytest

import pyjax
import pyjax.numpy as jnp
from pyjax._src.nn import initializers as initializers_module
from pyjax.nn import initializers as I

from recorded_cases import assert_matches, evaluate

RECORDED = json.loads((pathlib.Path(__file__).parent / "data" / "initializers.json").read_text())

# one float32 ulp (relative); half precision: recorded_cases.assert_matches allows 4 ulps
ULP = {"float32": 1.2e-7, "complex64": 1.2e-7}


@pytest.fixture(scope="module")
def ns():
    ns = {"jax": pyjax, "jnp": jnp, "np": np}
    exec(RECORDED["prelude"], ns)
    return ns


@pytest.mark.parametrize("expr", list(RECORDED["cases"]))
def test_matches_jax(ns, expr):
    expected = RECORDED["cases"][expr]
    assert_matches(evaluate(expr, ns), expected, rtol=ULP.get(expected.get("dtype"), 1.2e-7), atol=0,
                   err_msg=expr)


def test_every_public_name_exists():
    names = ["Initializer", "constant", "delta_orthogonal", "glorot_normal", "glorot_uniform",
             "he_normal", "he_uniform", "kaiming_normal", "kaiming_uniform", "lecun_normal",
             "lecun_uniform", "normal", "ones", "orthogonal", "truncated_normal", "uniform",
             "variance_scaling", "xavier_normal", "xavier_uniform", "zeros"]
    assert [n for n in names if not hasattr(I, n)] == []
    assert pyjax.nn.initializers is I


@pytest.mark.parametrize("mode,fan", [("fan_in", 40 * 9), ("fan_out", 30 * 9),
                                      ("fan_avg", 35 * 9), ("fan_geo_avg", (40 * 30) ** .5 * 9)])
@pytest.mark.parametrize("distribution", ["truncated_normal", "normal", "uniform"])
def test_variance_scaling_has_the_promised_deviation(mode, fan, distribution):
    # a (3, 3, in=40, out=30) conv kernel: receptive field 9
    w = np.asarray(I.variance_scaling(2.0, mode, distribution)(pyjax.random.key(1), (3, 3, 40, 30)))
    assert abs(w.mean()) < 0.1 * np.sqrt(2.0 / fan)
    np.testing.assert_allclose(w.std(), np.sqrt(2.0 / fan), rtol=0.05)
    if distribution == "uniform":
        assert np.abs(w).max() <= np.sqrt(3 * 2.0 / fan)
    if distribution == "truncated_normal":  # truncated at two (untruncated) deviations
        assert np.abs(w).max() <= 2 * np.sqrt(2.0 / fan) / 0.87962566103423978 * (1 + 1e-6)


def test_complex_uniform_fills_a_disk_with_unit_variance():
    w = np.asarray(I.variance_scaling(1.0, "fan_in", "uniform")(pyjax.random.key(3), (100, 100), jnp.complex64))
    np.testing.assert_allclose(np.mean(np.abs(w) ** 2), 1.0 / 100, rtol=0.05)
    assert np.abs(w).max() <= np.sqrt(2 / 100) * (1 + 1e-6)


def test_docstring_examples():
    failures, tried = doctest.testmod(initializers_module, optionflags=doctest.NORMALIZE_WHITESPACE)[:2]
    assert tried > 0 and failures == 0
