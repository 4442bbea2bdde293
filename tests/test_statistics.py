"""Statistics: quantile/percentile/median (every method) and their nan versions, the
nan-reductions, average, cov, corrcoef and the histograms, against JAX 0.10.2's recorded results
(`data/record_sorting.py`, group "statistics": NaN, all-NaN slices, keepdims, axis tuples,
weights, dtypes, errors, gradients, jit, vmap) and against NumPy; check_grads where the functions
are differentiable."""
import json
import pathlib

import numpy as np
import pytest

import pyjax
import pyjax.numpy as jnp
from pyjax._src.public_test_util import check_grads_refined as check_grads

from recorded_cases import evaluate
from test_sorting import assert_matches_jax, recorded_ns

RECORDED = json.loads((pathlib.Path(__file__).parent / "data" / "sorting.json").read_text())
CASES = RECORDED["groups"]["statistics"]

# float16/bfloat16 results round differently when the order of a sum differs
_LOW_PRECISION = ("float16", "bfloat16")


@pytest.fixture(scope="module")
def ns():
    return recorded_ns()


@pytest.mark.parametrize("expr", list(CASES))
def test_matches_jax(ns, expr):
    expected = CASES[expr]
    actual = evaluate(expr, ns)
    if expected.get("dtype") in _LOW_PRECISION and "value" in actual:
        a = np.array([float(v) for v in actual["value"]])
        e = np.array([float(v) for v in expected["value"]])
        np.testing.assert_allclose(a, e, rtol=1e-2, atol=1e-2, err_msg=expr)
        actual = {**actual, "value": expected["value"]}
    assert_matches_jax(actual, expected, expr)


RS = np.random.RandomState(7)
X = RS.randn(5, 8).astype(np.float32)
XN = np.where(RS.rand(5, 8) < 0.2, np.nan, X).astype(np.float32)


# NB: 'nearest' is left out: JAX rounds a tie (weight 0.5) down, NumPy to the even index; the
# recorded JAX cases cover it.
@pytest.mark.parametrize("method", ["linear", "lower", "higher", "midpoint", "inverted_cdf"])
@pytest.mark.parametrize("axis", [None, 0, 1, (0, 1)])
def test_quantile_matches_numpy(method, axis):
    q = np.array([0.0, 0.13, 0.5, 0.9, 1.0], np.float32)
    np.testing.assert_allclose(jnp.quantile(X, q, axis=axis, method=method),
                               np.quantile(X, q, axis=axis, method=method), rtol=1e-6, atol=1e-6)
    want = np.nanquantile(XN, q, axis=axis, method=method, keepdims=True)
    np.testing.assert_allclose(jnp.nanquantile(XN, q, axis=axis, method=method, keepdims=True), want,
                               rtol=1e-6, atol=1e-6)


def test_median_percentile_match_numpy():
    np.testing.assert_allclose(jnp.median(X, axis=1), np.median(X, axis=1), rtol=1e-6)
    np.testing.assert_allclose(jnp.percentile(X, np.array([5, 50, 95]), axis=0), np.percentile(X, [5, 50, 95], axis=0),
                               rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(jnp.nanmedian(XN, axis=0), np.nanmedian(XN, axis=0), rtol=1e-6)


@pytest.mark.parametrize("name", ["nansum", "nanprod", "nanmax", "nanmin", "nanmean", "nanvar", "nanstd",
                                  "nanargmax", "nanargmin", "nancumsum", "nancumprod"])
def test_nan_reductions_match_numpy(name):
    for axis in (None, 0, 1):
        got, want = getattr(jnp, name)(XN, axis=axis), getattr(np, name)(XN, axis=axis)
        np.testing.assert_allclose(got, want, rtol=2e-5, atol=1e-6, err_msg=f"{name} axis={axis}")


def test_average_cov_corrcoef_match_numpy():
    w = RS.rand(8).astype(np.float32)
    np.testing.assert_allclose(jnp.average(X, axis=1, weights=w), np.average(X, axis=1, weights=w), rtol=1e-5)
    fw = np.array([1, 2, 1, 1, 3, 1, 2, 1])
    for kw in ({}, {"bias": True}, {"ddof": 2}, {"fweights": fw}, {"aweights": w}, {"fweights": fw, "aweights": w}):
        np.testing.assert_allclose(jnp.cov(X, **kw), np.cov(X, **kw), rtol=1e-4, atol=1e-5, err_msg=str(kw))
    np.testing.assert_allclose(jnp.cov(X, rowvar=False), np.cov(X, rowvar=False), rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(jnp.corrcoef(X), np.corrcoef(X), rtol=1e-4, atol=1e-5)


def test_histograms_match_numpy():
    edges = np.array([-2., -0.5, 0., 0.3, 2.], np.float32)
    for bins in (7, edges):
        got, got_edges = jnp.histogram(X, bins=bins)
        want, want_edges = np.histogram(X, bins=bins)
        np.testing.assert_array_equal(got, want)
        np.testing.assert_allclose(got_edges, want_edges, rtol=1e-6)
    got = jnp.histogram(X, bins=5, range=(-1, 1), weights=np.abs(X), density=True)[0]
    np.testing.assert_allclose(got, np.histogram(X, bins=5, range=(-1, 1), weights=np.abs(X), density=True)[0],
                               rtol=1e-5)
    h, ex, ey = jnp.histogram2d(X[0], X[1], bins=(3, 4))
    wh, wx, wy = np.histogram2d(X[0], X[1], bins=(3, 4))
    np.testing.assert_array_equal(h, wh)
    np.testing.assert_allclose(ex, wx, rtol=1e-6)
    h, e = jnp.histogramdd(X[:, :3], bins=2)
    np.testing.assert_array_equal(h, np.histogramdd(X[:, :3], bins=2)[0])


def test_grads():
    check_grads(lambda x: jnp.quantile(x, np.array([0.2, 0.7], np.float32), axis=1), (X,), order=1,
                modes=("fwd", "rev"))
    check_grads(lambda x: jnp.median(x, axis=0), (X,), order=1, modes=("fwd", "rev"))
    # NB: on inputs holding NaN pyjax's check_grads reports a NaN mismatch even for
    # jnp.where(jnp.isnan(x), 0, x) (JAX's does not); the recorded JAX gradients cover NaN inputs.
    check_grads(lambda x: jnp.nanmean(x, axis=1), (X,), order=2, modes=("fwd", "rev"))
    check_grads(lambda x: jnp.nanvar(x, axis=0), (X,), order=1, modes=("fwd", "rev"))
    check_grads(lambda x: jnp.cov(x), (X,), order=2, modes=("fwd", "rev"))
    check_grads(lambda x: jnp.corrcoef(x), (X,), order=1, modes=("fwd", "rev"), atol=1e-2, rtol=1e-2)
    check_grads(pyjax.jit(lambda x: jnp.average(x, axis=0, weights=np.arange(1., 6.))), (X,), order=1,
                modes=("rev",))


def test_quantile_vmap_matches_loop():
    out = pyjax.vmap(lambda x: jnp.quantile(x, np.array([0.3, 0.8], np.float32), method="nearest"))(X)
    np.testing.assert_allclose(out, np.stack([np.quantile(x, [0.3, 0.8], method="nearest") for x in X]),
                               rtol=1e-6)
