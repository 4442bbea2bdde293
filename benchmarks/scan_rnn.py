#!/usr/bin/env python3
"""Scanned RNN gradient, pyjax vs JAX (issue 5's target): `jit(grad(loss))` of a tanh RNN run
with `lax.scan` (sequence 200, hidden 128, batch 32), gradients with respect to both weight
matrices.

- `first_call_s`: first call (trace + linearize + transpose + lower + compile + run).
- `step_us`: steady-state call. Target <= 1.0x JAX for both.

    python benchmarks/scan_rnn.py [--jax-python /path/to/jaxref/bin/python] [--rounds 3]

Each measurement runs in a fresh worker process with an empty compile cache (`--worker
pyjax|jax`: the same script importing either library under the name `jax`), interleaved round by
round; the table shows medians and pyjax/JAX (below 1 means pyjax is faster).
"""
import json
import time

import _harness  # benchmarks/_harness.py: the shared driver

CASES = {
    "first_call_s": "first call of jit(grad(rnn loss)) (trace + compile + run)",
    "step_us": "steady-state jit(grad(rnn loss)), T=200, H=128, B=32",
}


def worker(impl):
    if impl == "jax":
        import jax
        import jax.numpy as jnp
    else:
        import pyjax as jax
        import pyjax.numpy as jnp
    import numpy as np

    rng = np.random.default_rng(1)
    H, B, T = 128, 32, 200
    Wh = jnp.asarray(rng.normal(size=(H, H)).astype(np.float32) / np.sqrt(H))
    Wx = jnp.asarray(rng.normal(size=(H, H)).astype(np.float32) / np.sqrt(H))
    xs = jnp.asarray(rng.normal(size=(T, B, H)).astype(np.float32))

    def loss(Wh, Wx, xs):
        def cell(h, x):
            h = jnp.tanh(h @ Wh + x @ Wx)
            return h, jnp.sum(h * h)
        h, ys = jax.lax.scan(cell, jnp.zeros((B, H)), xs)
        return jnp.sum(ys) + jnp.sum(h)

    g = jax.jit(jax.grad(loss, argnums=(0, 1)))
    t = time.perf_counter()
    jax.block_until_ready(g(Wh, Wx, xs))
    first = time.perf_counter() - t
    rounds = []
    for _ in range(5):
        t = time.perf_counter()
        for _ in range(10):
            jax.block_until_ready(g(Wh, Wx, xs))
        rounds.append((time.perf_counter() - t) / 10)
    print(json.dumps({"first_call_s": first, "step_us": sorted(rounds)[2] * 1e6}))


if __name__ == "__main__":
    _harness.main(__file__, __doc__, CASES, worker)
