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
import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time

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


def run_worker(python, impl):
    env = dict(os.environ, TF_CPP_MIN_LOG_LEVEL="3", PYJAX_CACHE_DIR=tempfile.mkdtemp(prefix="pyjax-bench-"))
    p = subprocess.run([python, os.path.abspath(__file__), "--worker", impl], env=env,
                       capture_output=True, text=True, timeout=900)
    if p.returncode != 0:
        sys.exit(f"{impl} worker ({python}) failed:\n{p.stderr[-2000:]}")
    return json.loads(p.stdout.strip().splitlines()[-1])


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--jax-python", help="python of a venv with jax==0.10.2")
    ap.add_argument("--pyjax-python", default=sys.executable)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--worker", choices=["pyjax", "jax"], help=argparse.SUPPRESS)
    a = ap.parse_args()
    if a.worker:
        return worker(a.worker)
    runs = {"pyjax": [], "jax": []}
    for _ in range(a.rounds):
        runs["pyjax"].append(run_worker(a.pyjax_python, "pyjax"))
        if a.jax_python:
            runs["jax"].append(run_worker(a.jax_python, "jax"))
    med = {impl: {k: statistics.median(r[k] for r in rs) for k in CASES} for impl, rs in runs.items() if rs}
    print(f"| {'case':18} | {'pyjax':>10} | {'JAX':>10} | {'pyjax/JAX':>9} | what |")
    print(f"|{'-' * 20}|{'-' * 12}|{'-' * 12}|{'-' * 11}|------|")
    for k, what in CASES.items():
        p = med["pyjax"][k]
        j = med.get("jax", {}).get(k)
        ratio = f"{p / j:9.2f}" if j else f"{'-':>9}"
        print(f"| {k:18} | {p:10.4g} | {j if j is None else f'{j:10.4g}':>10} | {ratio} | {what} |")


if __name__ == "__main__":
    main()
