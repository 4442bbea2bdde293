"""Train an MLP on scikit-learn's bundled 8x8 digits with pyjax (no download needed).

    python examples/digits_classifier.py

The whole training step (loss, gradients through `value_and_grad`, and an Adam update written
with pytrees) is one `jit`-compiled XLA computation.
"""
import sys
import time

import numpy as np
from sklearn.datasets import load_digits

import pyjax as jax
import pyjax.numpy as jnp


def init_params(rng, sizes):
    params = []
    for m, n in zip(sizes[:-1], sizes[1:]):
        W = rng.normal(size=(m, n)).astype(np.float32) * np.sqrt(2.0 / m)
        params.append((jnp.asarray(W), jnp.zeros(n, jnp.float32)))
    return params


def predict(params, x):
    for W, b in params[:-1]:
        x = jax.nn.relu(x @ W + b)
    W, b = params[-1]
    return x @ W + b


def loss_fn(params, x, y):
    logits = predict(params, x)
    return -jnp.mean(jnp.sum(jax.nn.log_softmax(logits) * y, axis=-1))


def adam_init(params):
    zeros = jax.tree_util.tree_map(jnp.zeros_like, params)
    return {"m": zeros, "v": zeros, "t": jnp.zeros((), jnp.float32)}


@jax.jit
def train_step(params, opt, x, y, lr=1e-3, b1=0.9, b2=0.999, eps=1e-8):
    loss, grads = jax.value_and_grad(loss_fn)(params, x, y)
    t = opt["t"] + 1
    m = jax.tree_util.tree_map(lambda m, g: b1 * m + (1 - b1) * g, opt["m"], grads)
    v = jax.tree_util.tree_map(lambda v, g: b2 * v + (1 - b2) * g * g, opt["v"], grads)
    mhat_scale = 1 / (1 - b1 ** t)
    vhat_scale = 1 / (1 - b2 ** t)
    params = jax.tree_util.tree_map(
        lambda p, m, v: p - lr * (m * mhat_scale) / (jnp.sqrt(v * vhat_scale) + eps), params, m, v)
    return params, {"m": m, "v": v, "t": t}, loss


@jax.jit
def accuracy(params, x, labels):
    return jnp.mean(jnp.argmax(predict(params, x), axis=-1) == labels)


def progress(epoch, epochs, loss, width=30):
    done = int(width * epoch / epochs)
    sys.stdout.write(f"\r[{'#' * done}{'.' * (width - done)}] epoch {epoch:3d}/{epochs}  loss {loss:.4f}")
    sys.stdout.flush()


def main(epochs=30, batch_size=64, seed=0):
    digits = load_digits()
    X = (digits.data / 16.0).astype(np.float32)
    labels = digits.target.astype(np.int32)
    rng = np.random.default_rng(seed)
    perm = rng.permutation(len(X))
    X, labels = X[perm], labels[perm]
    n_test = len(X) // 5
    X_test, y_test = jnp.asarray(X[:n_test]), jnp.asarray(labels[:n_test])
    X_train, y_train = X[n_test:], labels[n_test:]
    Y_train = np.eye(10, dtype=np.float32)[y_train]

    params = init_params(rng, [64, 128, 128, 10])
    opt = adam_init(params)
    t0 = time.perf_counter()
    steps = len(X_train) // batch_size
    for epoch in range(1, epochs + 1):
        order = rng.permutation(len(X_train))
        total = 0.0
        for i in range(steps):
            idx = order[i * batch_size:(i + 1) * batch_size]
            params, opt, loss = train_step(params, opt, X_train[idx], Y_train[idx])
            total += float(loss)
        progress(epoch, epochs, total / steps)
    print()
    acc = float(accuracy(params, X_test, y_test))
    print(f"trained {epochs} epochs in {time.perf_counter() - t0:.1f} s; test accuracy {acc:.2%}")
    return acc


if __name__ == "__main__":
    main()
