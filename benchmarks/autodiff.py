#!/usr/bin/env python3
"""Autodiff workloads, pyjax vs JAX (issue 3's targets):

- `mlp_step_us`: steady-state MLP training step (784-512-512-10, batch 128, value_and_grad + SGD
  under one jit). Target <= 1.0x JAX.
- `make_jaxpr_s` / `lower_s`: front-end cost of `make_jaxpr(grad(f))` and
  `jit(grad(f)).lower(...)` for a 200-layer MLP, each with a freshly made function. Target
  <= 0.5x JAX.

    python benchmarks/autodiff.py [--jax-python /path/to/jaxref/bin/python] [--rounds 3]

Each measurement runs in a fresh worker process with an empty compile cache (`--worker
pyjax|jax`: the same script importing either library under the name `jax`), interleaved round by
round; the table shows medians and pyjax/JAX (below 1 means pyjax is faster).
"""
import json
import time

import _harness  # benchmarks/_harness.py: the shared driver

CASES = {
    "mlp_first_call_s": "first call of the jitted MLP training step (trace + compile + run)",
    "mlp_step_us": "steady-state MLP training step, 784-512-512-10, batch 128",
    "make_jaxpr_s": "make_jaxpr(grad(f)), 200-layer tanh MLP (best of 3)",
    "lower_s": "jit(grad(f)).lower(...), 200-layer tanh MLP",
}


def worker(impl):
    if impl == "jax":
        import jax
        import jax.numpy as jnp
    else:
        import pyjax as jax
        import pyjax.numpy as jnp
    import numpy as np

    rng = np.random.default_rng(0)
    sizes = [784, 512, 512, 10]
    params = [(jnp.asarray(rng.normal(size=(m, n)).astype(np.float32) / np.sqrt(m)),
               jnp.zeros(n, jnp.float32)) for m, n in zip(sizes[:-1], sizes[1:])]
    x = jnp.asarray(rng.normal(size=(128, 784)).astype(np.float32))
    y = jax.nn.one_hot(jnp.asarray(rng.integers(0, 10, 128)), 10)

    def loss(params, x, y):
        h = x
        for W, b in params[:-1]:
            h = jax.nn.relu(h @ W + b)
        W, b = params[-1]
        return -jnp.mean(jnp.sum(jax.nn.log_softmax(h @ W + b) * y, axis=1))

    @jax.jit
    def step(params, x, y):
        l, g = jax.value_and_grad(loss)(params, x, y)
        return jax.tree_util.tree_map(lambda p, d: p - 0.01 * d, params, g), l

    t = time.perf_counter()
    params, _ = jax.block_until_ready(step(params, x, y))
    first = time.perf_counter() - t
    state = [params]

    def one():
        state[0], l = step(state[0], x, y)
        l.block_until_ready()
    rounds = []
    for _ in range(5):
        t = time.perf_counter()
        for _ in range(30):
            one()
        rounds.append((time.perf_counter() - t) / 30)
    step_us = sorted(rounds)[2] * 1e6

    def make_loss():
        def mlp(params, x):
            for W, b in params:
                x = jnp.tanh(x @ W + b)
            return jnp.sum(x)
        return mlp
    deep = [(jnp.ones((64, 64)) * 0.01, jnp.zeros(64)) for _ in range(200)]
    xs = jnp.ones((8, 64))
    times = []
    for _ in range(3):
        t = time.perf_counter()
        jax.make_jaxpr(jax.grad(make_loss()))(deep, xs)
        times.append(time.perf_counter() - t)
    t = time.perf_counter()
    jax.jit(jax.grad(make_loss())).lower(deep, xs)
    lower = time.perf_counter() - t
    print(json.dumps({"mlp_first_call_s": first, "mlp_step_us": step_us,
                      "make_jaxpr_s": min(times), "lower_s": lower}))


if __name__ == "__main__":
    _harness.main(__file__, __doc__, CASES, worker)
