"""pyjax.nn against JAX 0.10.2's recorded results (every activation on edge values and its
gradient there, dtypes and weak types, the softmax family, standardize, one_hot, glu, attention,
the block-scaled matmuls: `data/record_nn.py` → `data/nn.json`), against NumPy formulas in float64
(an independent oracle), and against finite differences (check_grads)."""
import functools
import json
import pathlib

import numpy as np
import pytest

import pyjax
import pyjax.numpy as jnp
from pyjax import nn
from pyjax.test_util import check_grads

from recorded_cases import assert_matches, evaluate

RECORDED = json.loads((pathlib.Path(__file__).parent / "data" / "nn.json").read_text())

# Results computed in a different order than JAX's fused XLA code may differ in the last bits;
# half precision rounds differently when XLA keeps an f32 intermediate.
LOOSE = {"bfloat16": 1e-2, "float16": 2e-3}


@pytest.fixture(scope="module")
def ns():
    ns = {"jax": pyjax, "jnp": jnp, "np": np}
    exec(RECORDED["prelude"], ns)
    return ns


def _tol(expected):
    dts = [expected.get("dtype")] + [e.get("dtype") for e in expected.get("tuple", [])]
    return max([LOOSE.get(d, 4e-6) for d in dts])


@pytest.mark.parametrize("expr", list(RECORDED["cases"]))
def test_matches_jax(ns, expr):
    expected = RECORDED["cases"][expr]
    assert_matches(evaluate(expr, ns), expected, rtol=_tol(expected), atol=1e-6, err_msg=expr)


# JAX 0.10.2's public jax.nn names (nn.initializers, a submodule, is not one of them)
NN_NAMES = ["celu", "dot_product_attention", "elu", "gelu", "get_scaled_dot_general_config", "glu",
            "hard_sigmoid", "hard_silu", "hard_swish", "hard_tanh", "identity", "leaky_relu",
            "log1mexp", "log_sigmoid", "log_softmax", "logmeanexp", "logsumexp", "mish", "one_hot",
            "relu", "relu6", "scaled_dot_general", "scaled_matmul", "selu", "sigmoid", "silu",
            "soft_sign", "softmax", "softplus", "sparse_plus", "sparse_sigmoid", "squareplus",
            "standardize", "swish", "tanh"]


def test_every_public_name_exists():
    assert [n for n in NN_NAMES if not hasattr(nn, n)] == []


# -- NumPy formulas (float64) -------------------------------------------------------------------

def _np_sigmoid(x):
    return 0.5 * (1 + np.tanh(x / 2))


def _np_softplus(x):
    return np.logaddexp(x, 0)


def _np_gelu_exact(x):
    from scipy.special import erf
    return 0.5 * x * (1 + erf(x / np.sqrt(2)))


NUMPY_FORMULAS = {
    "relu": lambda x: np.maximum(x, 0),
    "relu6": lambda x: np.clip(x, 0, 6),
    "sigmoid": _np_sigmoid,
    "softplus": _np_softplus,
    "log_sigmoid": lambda x: -_np_softplus(-x),
    "silu": lambda x: x * _np_sigmoid(x),
    "mish": lambda x: x * np.tanh(_np_softplus(x)),
    "elu": lambda x: np.where(x > 0, x, np.expm1(np.minimum(x, 0))),
    "celu": lambda x: np.where(x > 0, x, np.expm1(np.minimum(x, 0))),
    "selu": lambda x: 1.0507009873554805 * np.where(x > 0, x, 1.6732632423543772 * np.expm1(np.minimum(x, 0))),
    "leaky_relu": lambda x: np.where(x >= 0, x, 0.01 * x),
    "hard_tanh": lambda x: np.clip(x, -1, 1),
    "hard_sigmoid": lambda x: np.clip(x + 3, 0, 6) / 6,
    "hard_silu": lambda x: x * np.clip(x + 3, 0, 6) / 6,
    "squareplus": lambda x: (x + np.sqrt(x * x + 4)) / 2,
    "soft_sign": lambda x: x / (np.abs(x) + 1),
    "sparse_plus": lambda x: np.where(x <= -1, 0, np.where(x >= 1, x, (x + 1) ** 2 / 4)),
    "sparse_sigmoid": lambda x: np.clip((x + 1) / 2, 0, 1),
    "gelu": lambda x: 0.5 * x * (1 + np.tanh(np.sqrt(2 / np.pi) * (x + 0.044715 * x ** 3))),
    "identity": lambda x: x,
    "tanh": np.tanh,
}

GRID = np.concatenate([np.linspace(-30, 30, 61), [-1e-4, 1e-4, 0.3, -0.3]]).astype(np.float32)


@pytest.mark.parametrize("name", sorted(NUMPY_FORMULAS))
def test_activation_matches_numpy(name):
    out = getattr(nn, name)(GRID)
    assert out.dtype == np.float32 and out.shape == GRID.shape
    np.testing.assert_allclose(np.asarray(out), NUMPY_FORMULAS[name](GRID.astype(np.float64)),
                               rtol=2e-6, atol=1e-6)


def test_gelu_exact_and_log1mexp_match_numpy():
    np.testing.assert_allclose(nn.gelu(GRID, approximate=False), _np_gelu_exact(GRID.astype(np.float64)),
                               rtol=2e-6, atol=1e-6)
    x = np.array([1e-20, 1e-6, 1e-3, 0.1, 0.5, 0.7, 1, 3, 10, 50], np.float32)
    expected = np.log(-np.expm1(-x.astype(np.float64)))
    np.testing.assert_allclose(nn.log1mexp(x), expected, rtol=2e-6, atol=1e-20)


def test_glu_and_logmeanexp_match_numpy():
    x = np.random.default_rng(1).normal(size=(3, 6)).astype(np.float32)
    np.testing.assert_allclose(nn.glu(x), x[:, :3] * _np_sigmoid(x[:, 3:]), rtol=2e-6)
    lme = np.log(np.mean(np.exp(x.astype(np.float64)), axis=1))
    np.testing.assert_allclose(nn.logmeanexp(x, axis=1), lme, rtol=2e-6)


# -- gradients ----------------------------------------------------------------------------------

SMOOTH = ["sigmoid", "softplus", "log_sigmoid", "silu", "mish", "elu", "celu", "selu", "gelu",
          "squareplus", "soft_sign", "tanh", "log1mexp"]
POINTS = np.array([0.3, 1.7, 2.9, 0.8], np.float32)  # away from every kink


@pytest.mark.parametrize("name", SMOOTH)
def test_grads(name):
    check_grads(getattr(nn, name), (POINTS,), order=2, modes=("fwd", "rev"), rtol=2e-2, atol=2e-2)


@pytest.mark.parametrize("name,x,expected", [
    ("relu", 0.0, 0.0), ("relu6", 0.0, 0.0), ("relu6", 6.0, 0.0), ("hard_tanh", 1.0, 1.0),
    ("hard_tanh", -1.0, 1.0), ("leaky_relu", 0.0, 1.0), ("elu", 0.0, 1.0)])
def test_derivative_at_kinks_is_jaxs(name, x, expected):
    assert float(pyjax.grad(getattr(nn, name))(x)) == expected


def test_stable_gradients_at_extremes():
    big = np.array([-200.0, 200.0], np.float32)
    for f in (nn.softplus, nn.log_sigmoid, nn.sigmoid, nn.silu, nn.elu):
        g = pyjax.vmap(pyjax.grad(f))(big)
        assert np.all(np.isfinite(np.asarray(g))), f
    # log1mexp's custom JVP: 1 / expm1(x), finite near 0 (autodiff of the formula is not)
    np.testing.assert_allclose(pyjax.grad(nn.log1mexp)(1e-3), 1 / np.expm1(1e-3), rtol=1e-5)


def test_softmax_custom_jvp_flag_gives_the_same_gradients():
    x = np.random.default_rng(2).normal(size=(2, 5)).astype(np.float32)
    g = lambda x: pyjax.jacrev(lambda y: nn.softmax(y, axis=1))(x)
    plain = g(x)
    with pyjax.softmax_custom_jvp(True):
        custom = g(x)
        check_grads(lambda y: nn.softmax(y, axis=1), (x,), order=2, modes=("fwd", "rev"), rtol=2e-2)
    np.testing.assert_allclose(custom, plain, rtol=1e-5, atol=1e-7)


# -- one_hot and attention against NumPy --------------------------------------------------------

def test_one_hot_matches_numpy():
    labels = np.array([[0, 3, -1], [2, 9, 1]])
    expected = (labels[..., None] == np.arange(4)).astype(np.float32)
    np.testing.assert_array_equal(nn.one_hot(labels, 4), expected)
    np.testing.assert_array_equal(nn.one_hot(labels, 4, axis=0), np.moveaxis(expected, -1, 0))


def _np_attention(q, k, v, bias=None, mask=None, causal=False):
    """Reference multi-head attention in float64, key/value heads repeated for GQA."""
    q, k, v = (np.asarray(t, np.float64) for t in (q, k, v))
    groups = q.shape[2] // k.shape[2]
    k, v = np.repeat(k, groups, axis=2), np.repeat(v, groups, axis=2)
    logits = np.einsum("btnh,bsnh->bnts", q, k) / np.sqrt(q.shape[-1])
    if bias is not None:
        logits = logits + bias
    keep = np.ones(logits.shape, bool)
    if mask is not None:
        keep &= mask
    if causal:
        keep &= np.tril(np.ones(logits.shape[-2:], bool))
    logits = np.where(keep, logits, -1e30)
    p = np.exp(logits - logits.max(-1, keepdims=True))
    p /= p.sum(-1, keepdims=True)
    return np.einsum("bnts,bsnh->btnh", p, v)


@pytest.mark.parametrize("kv_heads", [4, 2, 1])
def test_attention_matches_numpy(kv_heads):
    rng = np.random.default_rng(3)
    q = rng.normal(size=(2, 5, 4, 8)).astype(np.float32)
    k, v = (rng.normal(size=(2, 7, kv_heads, 8)).astype(np.float32) for _ in range(2))
    bias = rng.normal(size=(1, 4, 5, 7)).astype(np.float32)
    mask = rng.random((2, 1, 5, 7)) < 0.8
    mask[..., 0] = True
    out = nn.dot_product_attention(q, k, v, bias, mask, is_causal=True)
    np.testing.assert_allclose(out, _np_attention(q, k, v, bias, mask, causal=True), rtol=2e-5, atol=2e-5)
    jitted = pyjax.jit(functools.partial(nn.dot_product_attention, is_causal=True))(q, k, v, bias, mask)
    np.testing.assert_allclose(jitted, out, rtol=1e-6, atol=1e-6)


def test_attention_grads():
    rng = np.random.default_rng(4)
    q, k, v = (rng.normal(size=(1, 3, 2, 4)).astype(np.float32) for _ in range(3))
    check_grads(lambda q, k, v: nn.dot_product_attention(q, k, v, is_causal=True), (q, k, v),
                order=1, modes=("fwd", "rev"), rtol=2e-2, atol=2e-2)
