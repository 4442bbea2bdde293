#!/usr/bin/env python3
"""Data-parallel MLP training over 8 virtual CPU devices, pyjax vs JAX (issue 14's target:
step time <= 1.0x JAX):

- a mesh of 8 devices, one axis "batch"; parameters replicated (`NamedSharding(mesh, P())`),
  the batch split along it (`P("batch")`); one `jit` with `in_shardings`/`out_shardings` and
  the parameters donated, so XLA's SPMD partitioner inserts the gradient all-reduce;
- `big_*`: 784-512-512-10, global batch 1024 (128 per device): compute bound;
- `small_*`: 32-64-10, global batch 64 (8 per device): dispatch and collective bound.

    python benchmarks/dp_mlp.py [--jax-python /path/to/jaxref/bin/python] [--rounds 3]

Each measurement runs in a fresh worker process (with XLA_FLAGS giving 8 CPU devices) and an
empty compile cache, interleaved round by round; the table shows medians and pyjax/JAX (below 1
means pyjax is faster).
"""
import json
import os
import time

import _harness  # benchmarks/_harness.py: the shared driver

CASES = {
    "big_first_call_s": "first call of the 784-512-512-10 step (trace + compile + run)",
    "big_step_us": "steady-state step, 784-512-512-10, global batch 1024 over 8 devices",
    "small_first_call_s": "first call of the 32-64-10 step",
    "small_step_us": "steady-state step, 32-64-10, global batch 64 over 8 devices",
}


def worker(impl):
    os.environ["XLA_FLAGS"] = (os.environ.get("XLA_FLAGS", "")
                               + " --xla_force_host_platform_device_count=8")
    if impl == "jax":
        import jax
        import jax.numpy as jnp
    else:
        import pyjax as jax
        import pyjax.numpy as jnp
    import numpy as np
    NamedSharding, P = jax.sharding.NamedSharding, jax.sharding.PartitionSpec

    assert jax.device_count() == 8, jax.devices()
    mesh = jax.make_mesh((8,), ("batch",))
    replicated, split = NamedSharding(mesh, P()), NamedSharding(mesh, P("batch"))

    def loss(params, x, y):
        h = x
        for W, b in params[:-1]:
            h = jax.nn.relu(h @ W + b)
        W, b = params[-1]
        return -jnp.mean(jnp.sum(jax.nn.log_softmax(h @ W + b) * y, axis=1))

    def sgd(params, x, y):
        l, g = jax.value_and_grad(loss)(params, x, y)
        return jax.tree_util.tree_map(lambda p, d: p - 0.01 * d, params, g), l

    out = {}
    for name, sizes, batch, reps in (("big", [784, 512, 512, 10], 1024, 20),
                                     ("small", [32, 64, 10], 64, 200)):
        rng = np.random.default_rng(0)
        params = [(rng.normal(size=(m, n)).astype(np.float32) / np.sqrt(m),
                   np.zeros(n, np.float32)) for m, n in zip(sizes[:-1], sizes[1:])]
        params = jax.device_put(params, replicated)
        x = jax.device_put(rng.normal(size=(batch, sizes[0])).astype(np.float32), split)
        y = jax.device_put(np.eye(10, dtype=np.float32)[rng.integers(0, 10, batch)], split)
        step = jax.jit(sgd, in_shardings=(replicated, split, split),
                       out_shardings=(replicated, replicated), donate_argnums=0)
        t = time.perf_counter()
        params, l0 = jax.block_until_ready(step(params, x, y))
        out[f"{name}_first_call_s"] = time.perf_counter() - t
        state = [params]

        def one():
            state[0], l = step(state[0], x, y)
            l.block_until_ready()
        for _ in range(3):
            one()
        rounds = []
        for _ in range(5):
            t = time.perf_counter()
            for _ in range(reps):
                one()
            rounds.append((time.perf_counter() - t) / reps)
        out[f"{name}_step_us"] = sorted(rounds)[2] * 1e6
        assert np.isfinite(float(l0))
        assert state[0][0][0].sharding == replicated
    print(json.dumps(out))


if __name__ == "__main__":
    _harness.main(__file__, __doc__, CASES, worker)
