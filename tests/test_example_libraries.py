"""pyjax.example_libraries (stax, optimizers) against JAX 0.10.2's recorded results
(`data/record_example_libraries.py` → `data/example_libraries.json`: networks' initial weights
for fixed keys, outputs, gradients, every optimizer's trajectory, schedules, errors), optimizer
updates against hand-written NumPy, and an MLP trained with stax + adam on scikit-learn's
digits."""
import json
import pathlib

import numpy as np
import pytest

import pyjax
import pyjax.numpy as jnp
from pyjax.example_libraries import optimizers, stax

from recorded_cases import assert_matches, evaluate

RECORDED = json.loads((pathlib.Path(__file__).parent / "data" / "example_libraries.json").read_text())


@pytest.fixture(scope="module")
def ns():
    ns = {"jax": pyjax, "jnp": jnp, "np": np}
    exec(RECORDED["prelude"].replace("from jax.", "from pyjax."), ns)
    return ns


@pytest.mark.parametrize("expr", list(RECORDED["cases"]))
def test_matches_jax(ns, expr):
    expected = RECORDED["cases"][expr]
    assert_matches(evaluate(expr, ns), expected, rtol=2e-5, atol=1e-6, err_msg=expr)


# -- optimizer updates against NumPy -------------------------------------------------------------

G = [np.array([0.5, -2.0, 1.0]), np.array([0.1, 0.3, -0.7]), np.array([-1.0, 0.0, 2.5])]
X0 = np.array([1.0, 2.0, -3.0])


def _run(opt, grads=G):
    init, update, get_params = opt
    state = init(jnp.asarray(X0, jnp.float32))
    for i, g in enumerate(grads):
        state = update(i, jnp.asarray(g, jnp.float32), state)
    return np.asarray(get_params(state))


def _np_adam(lr=0.1, b1=0.9, b2=0.999, eps=1e-8):
    x, m, v = X0.copy(), 0 * X0, 0 * X0
    for i, g in enumerate(G):
        m = (1 - b1) * g + b1 * m
        v = (1 - b2) * g ** 2 + b2 * v
        x = x - lr * (m / (1 - b1 ** (i + 1))) / (np.sqrt(v / (1 - b2 ** (i + 1))) + eps)
    return x


def _np_momentum(lr=0.1, mass=0.9, nesterov=False):
    x, vel = X0.copy(), 0 * X0
    for g in G:
        vel = mass * vel + g
        x = x - lr * (mass * vel + g if nesterov else vel)
    return x


def _np_rmsprop(lr=0.05, gamma=0.9, eps=1e-8):
    x, avg = X0.copy(), 0 * X0
    for g in G:
        avg = gamma * avg + (1 - gamma) * g ** 2
        x = x - lr * g / np.sqrt(avg + eps)
    return x


def _np_adagrad(lr=0.3, mom=0.9):
    x, gsq, m = X0.copy(), 0 * X0, 0 * X0
    for g in G:
        gsq = gsq + g ** 2
        m = (1 - mom) * g * np.where(gsq > 0, 1 / np.sqrt(np.where(gsq > 0, gsq, 1)), 0) + mom * m
        x = x - lr * m
    return x


def _np_adamax(lr=0.1, b1=0.9, b2=0.999, eps=1e-8):
    x, m, u = X0.copy(), 0 * X0, 0 * X0
    for i, g in enumerate(G):
        m = (1 - b1) * g + b1 * m
        u = np.maximum(b2 * u, np.abs(g))
        x = x - lr / (1 - b1 ** (i + 1)) * m / (u + eps)
    return x


@pytest.mark.parametrize("opt,want", [
    (lambda: optimizers.sgd(0.1), lambda: X0 - 0.1 * sum(G)),
    (lambda: optimizers.momentum(0.1, 0.9), _np_momentum),
    (lambda: optimizers.nesterov(0.1, 0.9), lambda: _np_momentum(nesterov=True)),
    (lambda: optimizers.adam(0.1), _np_adam),
    (lambda: optimizers.rmsprop(0.05), _np_rmsprop),
    (lambda: optimizers.adagrad(0.3), _np_adagrad),
    (lambda: optimizers.adamax(0.1), _np_adamax),
], ids=["sgd", "momentum", "nesterov", "adam", "rmsprop", "adagrad", "adamax"])
def test_updates_match_numpy(opt, want):
    np.testing.assert_allclose(_run(opt()), want(), rtol=1e-5, atol=1e-6)


def test_optimizer_state_is_a_pytree_through_jit():
    init, update, get_params = optimizers.adam(0.1)
    params = {"w": jnp.ones(3), "b": (jnp.zeros(2),)}
    state = pyjax.jit(update)(0, pyjax.tree_util.tree_map(jnp.ones_like, params), init(params))
    assert isinstance(state, optimizers.OptimizerState)
    assert pyjax.tree_util.tree_structure(get_params(state)) == pyjax.tree_util.tree_structure(params)
    again = optimizers.pack_optimizer_state(optimizers.unpack_optimizer_state(state))
    for a, b in zip(pyjax.tree_util.tree_leaves(again), pyjax.tree_util.tree_leaves(state)):
        np.testing.assert_array_equal(a, b)


# -- an MLP on scikit-learn's digits -------------------------------------------------------------

@pytest.mark.libraries  # scikit-learn: the examples extra
def test_mlp_trained_with_adam_learns_digits():
    datasets = pytest.importorskip("sklearn.datasets")
    digits = datasets.load_digits()
    x = (digits.data / 16.0).astype(np.float32)
    y = digits.target
    order = np.random.default_rng(0).permutation(len(y))
    x, y = x[order], y[order]
    x_train, y_train, x_test, y_test = x[:1400], y[:1400], x[1400:], y[1400:]
    onehot = np.eye(10, dtype=np.float32)[y_train]

    init_fun, predict = stax.serial(stax.Dense(64), stax.Relu, stax.Dense(10), stax.LogSoftmax)
    _, params = init_fun(pyjax.random.key(0), (-1, 64))
    opt_init, opt_update, get_params = optimizers.adam(1e-2)

    def loss(p, xb, yb):
        return -jnp.mean(jnp.sum(predict(p, xb) * yb, axis=1))

    @pyjax.jit
    def step(i, state, xb, yb):
        return opt_update(i, pyjax.grad(loss)(get_params(state), xb, yb), state)

    state = opt_init(params)
    for i in range(300):
        batch = slice((i * 100) % 1400, (i * 100) % 1400 + 100)
        state = step(i, state, x_train[batch], onehot[batch])
    accuracy = np.mean(np.argmax(np.asarray(predict(get_params(state), x_test)), axis=1) == y_test)
    assert accuracy > 0.93, accuracy
