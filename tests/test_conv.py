"""Convolutions and windowed reductions: pyjax against JAX 0.10.2's recorded values, vjps and
errors (`data/record_conv.py` -> `data/conv.json`: layouts, strides, padding, dilations, feature
and batch groups, dtypes, conv_transpose, patches, max-pool gradients, jnp.convolve), against
SciPy's correlate, finite differences (check_grads of both operands), and vmap against a loop."""
import json
import pathlib

import numpy as np
import pytest
import scipy.signal

import pyjax
import pyjax.numpy as jnp
from pyjax import lax
from pyjax._src.public_test_util import check_grads_refined as check_grads

from recorded_cases import assert_matches, evaluate

RECORDED = json.loads((pathlib.Path(__file__).parent / "data" / "conv.json").read_text())


@pytest.fixture(scope="module")
def ns():
    ns = {"jax": pyjax, "jnp": jnp, "lax": lax, "np": np}
    exec(RECORDED["prelude"], ns)
    return ns


def _tol(expr):
    if "float16" in expr or "bfloat16" in expr:
        return 1e-2
    return 2e-5


@pytest.mark.parametrize("expr", list(RECORDED["cases"]))
def test_matches_jax(ns, expr):
    expected = RECORDED["cases"][expr]
    tol = _tol(expr)
    assert_matches(evaluate(expr, ns), expected, rtol=tol, atol=tol, err_msg=expr)


def test_conv_matches_scipy_correlate():
    """NHWC/HWIO with padding and feature groups against scipy.signal.correlate per channel."""
    rs = np.random.RandomState(0)
    x = rs.randn(2, 6, 5, 4).astype(np.float32)
    w = rs.randn(3, 2, 2, 6).astype(np.float32)  # 2 groups of 2 input channels, 3 outputs each
    out = lax.conv_general_dilated(x, w, (1, 1), ((1, 1), (0, 2)), dimension_numbers=("NHWC", "HWIO", "NHWC"),
                                   feature_group_count=2)
    xp = np.pad(x, ((0, 0), (1, 1), (0, 2), (0, 0)))
    want = np.zeros(out.shape, np.float64)
    for n in range(2):
        for o in range(6):
            g = o // 3
            for c in range(2):
                want[n, :, :, o] += scipy.signal.correlate(xp[n, :, :, 2 * g + c], w[:, :, c, o], mode="valid")
    np.testing.assert_allclose(out, want, rtol=1e-5, atol=1e-5)


def test_convolve_matches_numpy():
    rs = np.random.RandomState(1)
    for n, m in ((7, 3), (3, 7), (6, 6), (5, 1)):
        a, v = rs.randn(n).astype(np.float32), rs.randn(m).astype(np.float32)
        for mode in ("full", "same", "valid"):
            np.testing.assert_allclose(jnp.convolve(a, v, mode), np.convolve(a, v, mode), rtol=1e-5, atol=1e-5)
            np.testing.assert_allclose(jnp.correlate(a, v, mode), np.correlate(a, v, mode), rtol=1e-5, atol=1e-5)


def _max_pool(x):
    return lax.reduce_window(x, -jnp.inf, lax.max, (1, 2, 2, 1), (1, 2, 2, 1), "SAME")


def _avg_pool(x):
    return lax.reduce_window(x, 0.0, lax.add, (1, 3, 3, 1), (1, 1, 1, 1), "SAME") / 9.0


def test_pool_grads_by_finite_differences():
    rs = np.random.RandomState(2)
    x = (rs.permutation(2 * 5 * 5 * 3).reshape(2, 5, 5, 3) * 0.1).astype(np.float32)  # no ties
    check_grads(_max_pool, (x,), order=2, modes=("fwd", "rev"), atol=1e-2, rtol=1e-2)
    check_grads(_avg_pool, (x,), order=2, modes=("fwd", "rev"), atol=1e-2, rtol=1e-2)


def test_max_pool_grad_routes_to_the_max():
    x = np.array([[1.0, 5.0, 2.0, 0.0], [3.0, 4.0, 7.0, 6.0]], np.float32)
    g = pyjax.grad(lambda x: lax.reduce_window(x, -jnp.inf, lax.max, (2, 2), (2, 2), "VALID").sum())(x)
    np.testing.assert_array_equal(g, [[0, 1, 0, 0], [0, 0, 1, 0]])


def test_pool_vmap_matches_loop():
    rs = np.random.RandomState(3)
    xs = rs.randn(3, 4, 5).astype(np.float32)
    f = pyjax.jit(pyjax.vmap(pyjax.grad(lambda x: (lax.reduce_window(
        x, -jnp.inf, lax.max, (2, 2), (1, 2), ((1, 0), (0, 1))) ** 2).sum())))
    want = np.stack([pyjax.grad(lambda x: (lax.reduce_window(
        x, -jnp.inf, lax.max, (2, 2), (1, 2), ((1, 0), (0, 1))) ** 2).sum())(x) for x in xs])
    np.testing.assert_allclose(f(xs), want, rtol=1e-6)


def test_generic_reduce_window_and_reduce_vmap():
    rs = np.random.RandomState(4)
    xs = rs.randn(3, 4, 5).astype(np.float32)
    rw = lambda x: lax.reduce_window(x, 1.0, lambda a, b: a * b + 0.25, (2, 2), (1, 1), "VALID")
    np.testing.assert_allclose(pyjax.vmap(rw)(xs), np.stack([rw(x) for x in xs]), rtol=1e-5)
    rd = lambda x: lax.reduce(x, 0.0, lambda a, b: a + b * b, (1,))
    np.testing.assert_allclose(pyjax.vmap(rd, in_axes=2)(xs), np.stack([rd(xs[:, :, i]) for i in range(5)], 0),
                               rtol=1e-5)
    np.testing.assert_allclose(rd(xs[0]), (xs[0] ** 2).sum(1), rtol=1e-5)


def test_reduce_precision_is_rounding_to_narrower_floats():
    import ml_dtypes
    rs = np.random.RandomState(5)
    x = (rs.randn(2000) * np.exp(rs.uniform(-8, 8, 2000))).astype(np.float32)
    bf = np.asarray(lax.reduce_precision(x, exponent_bits=8, mantissa_bits=7))
    np.testing.assert_array_equal(bf, x.astype(ml_dtypes.bfloat16).astype(np.float32))
    normal = np.abs(x) > np.finfo(np.float16).tiny
    f16 = np.asarray(lax.reduce_precision(x, exponent_bits=5, mantissa_bits=10))
    np.testing.assert_array_equal(f16[normal], x[normal].astype(np.float16).astype(np.float32))
    assert np.all(f16[~normal] == 0)
    np.testing.assert_array_equal(pyjax.vmap(lambda v: lax.reduce_precision(v, 8, 7))(x.reshape(40, 50)),
                                  bf.reshape(40, 50))


def _random_conv_config(seed):
    """A random convolution: 1-3 spatial dims, a random layout, strides, padding (some negative),
    dilations and feature or batch groups; returns (lhs, rhs, kwargs)."""
    rs = np.random.RandomState(seed)
    nsp = rs.randint(1, 4)
    groups = int(rs.choice([1, 1, 2, 3]))
    by_batch = bool(rs.rand() < 0.3) and groups > 1
    n = groups * rs.randint(1, 3) if by_batch else rs.randint(1, 3)
    c = (1 if by_batch else groups) * rs.randint(1, 3)
    o = groups * rs.randint(1, 3)
    k = rs.randint(1, 4, nsp)
    rhs_dil = rs.randint(1, 3, nsp)
    lhs_dil = rs.randint(1, 3, nsp)
    strides = rs.randint(1, 3, nsp)
    eff_k = (k - 1) * rhs_dil + 1
    size = eff_k + rs.randint(0, 4, nsp)
    pads = [(int(rs.randint(-1, 3)), int(rs.randint(-1, 3))) for _ in range(nsp)]
    spatial = "HWD"[:nsp]
    specs = ["NC" + spatial, "OI" + spatial, "NC" + spatial]
    specs = ["".join(rs.permutation(list(s))) for s in specs]
    lhs_shape = dict(N=n, C=c, **{s: int(d) for s, d in zip(spatial, size)})
    rhs_shape = dict(O=o, I=c // (1 if by_batch else groups), **{s: int(d) for s, d in zip(spatial, k)})
    lhs = rs.randn(*[lhs_shape[ch] for ch in specs[0]]).astype(np.float32)
    rhs = rs.randn(*[rhs_shape[ch] for ch in specs[1]]).astype(np.float32)
    kw = dict(window_strides=tuple(int(s) for s in strides), padding=pads,
              lhs_dilation=tuple(int(d) for d in lhs_dil), rhs_dilation=tuple(int(d) for d in rhs_dil),
              dimension_numbers=tuple(specs), feature_group_count=1 if by_batch else groups,
              batch_group_count=groups if by_batch else 1)
    return lhs, rhs, kw


def _check_random_conv(seed):
    from op_table import traced_reference
    lhs, rhs, kw = _random_conv_config(seed)
    f = lambda x, w: lax.conv_general_dilated(x, w, **kw)
    try:
        out = f(lhs, rhs)
    except ValueError:  # negative padding larger than the input: JAX raises too
        return
    _, (want,) = traced_reference(f, [lhs, rhs])
    np.testing.assert_allclose(out, want, rtol=1e-4, atol=1e-4, err_msg=str(kw))
    if out.size:
        check_grads(f, (lhs, rhs), order=1, modes=("fwd", "rev"), atol=1e-2, rtol=1e-2)
        xs = np.stack([lhs, lhs * 0.5])
        np.testing.assert_allclose(pyjax.vmap(f, in_axes=(0, None))(xs, rhs),
                                   np.stack([f(x, rhs) for x in xs]), rtol=1e-4, atol=1e-4)


@pytest.mark.parametrize("seed", range(3))
def test_random_conv_configs(seed):
    """Random layouts, strides, paddings, dilations and groups: the compiled convolution equals
    the NumPy reference, gradients match finite differences, vmap matches a loop."""
    _check_random_conv(seed)


@pytest.mark.slow
@pytest.mark.parametrize("seed", range(3, 40))
def test_random_conv_configs_sweep(seed):
    _check_random_conv(seed)


def _random_window_config(seed):
    rs = np.random.RandomState(1000 + seed)
    nd = rs.randint(1, 4)
    shape = tuple(int(d) for d in rs.randint(1, 6, nd))
    window = tuple(int(d) for d in rs.randint(1, 4, nd))
    kw = dict(window_dimensions=window, window_strides=tuple(int(d) for d in rs.randint(1, 3, nd)),
              padding=tuple((int(rs.randint(0, 3)), int(rs.randint(0, 3))) for _ in range(nd)),
              base_dilation=tuple(int(d) for d in rs.randint(1, 3, nd)),
              window_dilation=tuple(int(d) for d in rs.randint(1, 3, nd)) if rs.rand() < 0.5 else None)
    n = int(np.prod(shape))
    x = (rs.permutation(n).reshape(shape) * 0.37 - n * 0.15).astype(np.float32)  # no ties
    return x, kw


def _check_random_window(seed):
    from op_table import traced_reference
    x, kw = _random_window_config(seed)
    for init, fn in ((0.0, lax.add), (-np.inf, lax.max), (np.inf, lax.min)):
        f = lambda v, init=init, fn=fn: lax.reduce_window(v, init, fn, **kw)
        out = f(x)
        _, (want,) = traced_reference(f, [x])
        np.testing.assert_allclose(out, want, rtol=1e-5, atol=1e-5, err_msg=str(kw))
        if out.size == 0:
            continue
        modes = ("fwd", "rev") if fn is lax.add or not kw["window_dilation"] else ("fwd",)
        check_grads(f, (x,), order=1, modes=modes, atol=2e-2, rtol=2e-2)
        xs = np.stack([x, -x])
        np.testing.assert_allclose(pyjax.vmap(f)(xs), np.stack([f(v) for v in xs]), rtol=1e-6)


@pytest.mark.parametrize("seed", range(3))
def test_random_window_configs(seed):
    """Random shapes, windows, strides, padding and base/window dilation for reduce_window
    sum/max/min: the compiled reduction equals the NumPy reference, gradients (max pooling's
    through select_and_gather_add / select_and_scatter_add) match finite differences, vmap
    matches a loop."""
    _check_random_window(seed)


@pytest.mark.slow
@pytest.mark.parametrize("seed", range(3, 30))
def test_random_window_configs_sweep(seed):
    _check_random_window(seed)
