"""A tour of pyjax in one small program: jit, make_jaxpr, the StableHLO it lowers to, pytrees,
and what the compile caches buy (first call vs cached call, and a warm second process).

    python examples/jit_basics.py

Run it twice: the second run loads the compiled executables from the persistent cache
(set PYJAX_LOG_COMPILES=1 to watch; PYJAX_CACHE_DIR="" turns the disk cache off).
"""
import functools
import time

import numpy as np

import pyjax as jax
import pyjax.numpy as jnp
from pyjax import lax


def init_params(sizes, seed=0):
    """A list of (weights, bias) pairs, a pytree, made with NumPy and moved to the device."""
    rng = np.random.RandomState(seed)
    return [(jnp.asarray(rng.randn(m, n).astype(np.float32) / np.sqrt(m)), jnp.zeros(n))
            for m, n in zip(sizes[:-1], sizes[1:])]


def predict(params, x):
    for w, b in params[:-1]:
        x = jnp.tanh(x @ w + b)
    w, b = params[-1]
    logits = x @ w + b
    return logits - jnp.max(logits, axis=-1, keepdims=True)


def loss(params, x, labels):
    logits = predict(params, x)
    log_probs = logits - jnp.log(jnp.sum(jnp.exp(logits), axis=-1, keepdims=True))
    return -jnp.mean(jnp.sum(log_probs * labels, axis=-1))


def timed(fn, *args):
    t = time.perf_counter()
    out = jax.block_until_ready(fn(*args))
    return out, (time.perf_counter() - t) * 1e3


def main():
    params = init_params([8, 32, 32, 4])
    rng = np.random.RandomState(1)
    x = jnp.asarray(rng.randn(16, 8).astype(np.float32))
    labels = jnp.asarray(np.eye(4, dtype=np.float32)[rng.randint(0, 4, 16)])

    # 1. jit: traced once per argument signature, compiled by XLA, then called from a cache.
    fast_loss = jax.jit(loss)
    first, ms_first = timed(fast_loss, params, x, labels)
    second, ms_second = timed(fast_loss, params, x, labels)
    eager = loss(params, x, labels)  # op by op, each primitive its own small executable
    print(f"loss: jit {float(first):.6f}, eager {float(eager):.6f}")
    print(f"first call {ms_first:.1f} ms (trace + lower + XLA compile, or a load from the "
          f"persistent cache when run again), cached call {ms_second:.3f} ms")
    assert np.allclose(first, eager, rtol=1e-5) and float(first) == float(second)

    # 2. make_jaxpr: the traced program in the IR, printed like JAX's.
    print("\njaxpr of predict on one layer:")
    print(jax.make_jaxpr(predict)(params[-1:], jnp.ones((2, 32))))

    # 3. AOT: the StableHLO module XLA compiles, and XLA's cost estimate.
    lowered = fast_loss.lower(params, x, labels)
    text = lowered.as_text()
    print(f"\nStableHLO module ({len(text.splitlines())} lines), first lines:")
    print("\n".join(text.splitlines()[:4]))
    cost = lowered.compile().cost_analysis()
    print(f"XLA's estimate: {cost['flops']:.0f} flops")

    # 4. pytrees in and out, lax, and a static argument (a Python value fixed at trace time).
    @jax.jit
    def stats(tree):
        return jax.tree_util.tree_map(lambda v: {"mean": v.mean(), "max": lax.reduce_max(v, (0,))}, tree)

    shapes = jax.tree_util.tree_map(lambda v: v.shape, stats({"w0": params[0][0], "b0": params[0][1]}))
    print(f"\npytree in and out: {shapes}")

    @functools.partial(jax.jit, static_argnums=1)
    def matrix_power(m, n):  # n is static: the Python loop unrolls at trace time
        out = jnp.eye(m.shape[0])
        for _ in range(n):
            out = out @ m
        return out

    print(f"static n=5: {matrix_power(jnp.array([[1.0, 1.0], [0.0, 1.0]]), 5).tolist()}")


if __name__ == "__main__":
    main()
