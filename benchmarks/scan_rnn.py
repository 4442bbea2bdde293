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
import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time

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
    print(f"| {'case':14} | {'pyjax':>10} | {'JAX':>10} | {'pyjax/JAX':>9} | what |")
    print(f"|{'-' * 16}|{'-' * 12}|{'-' * 12}|{'-' * 11}|------|")
    for k, what in CASES.items():
        p = med["pyjax"][k]
        j = med.get("jax", {}).get(k)
        ratio = f"{p / j:9.2f}" if j else f"{'-':>9}"
        print(f"| {k:14} | {p:10.4g} | {j if j is None else f'{j:10.4g}':>10} | {ratio} | {what} |")


if __name__ == "__main__":
    main()
