#!/usr/bin/env python3
"""Data-parallel MLP training over 8 virtual CPU devices, pyjax vs JAX (issue 14's target:
step time <= 1.0x JAX):

- a mesh of 8 devices, one axis "batch"; parameters replicated (`NamedSharding(mesh, P())`),
  the batch split along it (`P("batch")`); one `jit` with `in_shardings`/`out_shardings` and
  the parameters donated, so XLA's SPMD partitioner inserts the gradient all-reduce;
- `big_*`: 784-512-512-10, global batch 1024 (128 per device): compute bound;
- `small_*`: 32-64-10, global batch 64 (8 per device): dispatch and collective bound;
- `2d_*` (issue 26): a 4 x 2 ("data", "model") mesh, 784-1024-1024-10, global batch 512: the
  batch split over "data", the hidden layers' weights alternately column- and row-split over
  "model" (Megatron style: `P(None, "model")` then `P("model", None)`), so XLA inserts both
  the model-parallel all-reduce and the data-parallel gradient reduction (Auto axes).

Both sides partition with their default, Shardy (JAX 0.10.2 and pyjax alike).

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
    "2d_first_call_s": "first call of the 2-D (data x model) sharded 784-1024-1024-10 step",
    "2d_step_us": "steady-state step, 2-D sharded, global batch 512 over a 4 x 2 mesh",
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

    # Auto axes: XLA's partitioner propagates the layouts (with JAX 0.10.2's default, Explicit,
    # the row-split layer's contraction would need an out_sharding in the model code)
    auto = (jax.sharding.AxisType.Auto,) * 2
    mesh2 = jax.make_mesh((4, 2), ("data", "model"), axis_types=auto)

    def layouts_2d(n_layers):
        """Per layer (W, b): column-split then row-split over "model", the last replicated."""
        specs = [(P(None, "model"), P("model")) if i % 2 == 0 else (P("model", None), P())
                 for i in range(n_layers - 1)] + [(P(), P())]
        return [tuple(NamedSharding(mesh2, s) for s in pair) for pair in specs]

    out = {}
    for name, sizes, batch, reps in (("big", [784, 512, 512, 10], 1024, 20),
                                     ("small", [32, 64, 10], 64, 200),
                                     ("2d", [784, 1024, 1024, 10], 512, 20)):
        rng = np.random.default_rng(0)
        params = [(rng.normal(size=(m, n)).astype(np.float32) / np.sqrt(m),
                   np.zeros(n, np.float32)) for m, n in zip(sizes[:-1], sizes[1:])]
        if name == "2d":
            replicated, split = NamedSharding(mesh2, P()), NamedSharding(mesh2, P("data"))
            param_layout = layouts_2d(len(params))
        else:
            param_layout = [(replicated, replicated)] * len(params)
        params = jax.device_put(params, param_layout)
        x = jax.device_put(rng.normal(size=(batch, sizes[0])).astype(np.float32), split)
        y = jax.device_put(np.eye(10, dtype=np.float32)[rng.integers(0, 10, batch)], split)
        step = jax.jit(sgd, in_shardings=(param_layout, split, split),
                       out_shardings=(param_layout, replicated), donate_argnums=0)
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
        assert state[0][0][0].sharding == param_layout[0][0]
    print(json.dumps(out))


if __name__ == "__main__":
    _harness.main(__file__, __doc__, CASES, worker)
