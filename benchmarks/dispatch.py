#!/usr/bin/env python3
"""Dispatch overhead: per-call time of tiny jitted functions and eager ops, pyjax vs JAX.

    python benchmarks/dispatch.py                                  # pyjax only
    python benchmarks/dispatch.py --jax-python /path/to/venv/bin/python   # side by side

Each measurement runs in a fresh worker process (`--worker pyjax|jax`: the same script, importing
either `pyjax` or the real `jax` under the name `jax`); with --jax-python the two are interleaved
round by round and the table shows the median per-call time over rounds and the ratio
pyjax/JAX (below 1 means pyjax is faster), with the ratio's range over the rounds. Targets
(issue 10): every case <= 1.0x.
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import time

# name -> (what it measures, number of calls per timing round)
CASES = {
    "jit_call": ("jit(lambda x: x * 2 + 1)(f32[8])", 3000),
    "jit_call_block": ("the same + block_until_ready", 3000),
    "jit_3args_2outs": ("jit(a @ b + c, a.sum()) on f32[4,4], f32[4,4], f32[4]", 3000),
    "jit_pytree": ("jit(tree_map(v + 1)) on a dict of 4 leaves", 2000),
    "jit_pytree10": ("jit(tree_map(v * 2)) on a pytree of 10 leaves", 2000),
    "jit_numpy_arg": ("jit(lambda x: x * 2 + 1)(numpy f32[8])", 3000),
    "eager_sin": ("jnp.sin(f32[8])", 3000),
    "eager_add": ("x + y on f32[8]", 3000),
    "eager_scalar_mul": ("x * 2.0 on f32[8]", 3000),
    "eager_sum": ("jnp.sum(f32[8])", 3000),
    "eager_index_int": ("x[3] on f32[8]", 2000),
    "eager_index_slice": ("x[1:5] on f32[8]", 2000),
    "eager_loop_1000": ("1,000 eager steps z = z * 0.5 + 1.0 (µs for the whole loop)", 3),
}


def median_us(fn, n, rep=7):
    """Median over `rep` rounds of the mean time of `n` calls, in microseconds."""
    rounds = []
    for _ in range(rep):
        t = time.perf_counter()
        for _ in range(n):
            fn()
        rounds.append((time.perf_counter() - t) / n)
    return sorted(rounds)[rep // 2] * 1e6


def worker(impl, scale):
    import numpy as np
    if impl == "jax":
        import jax
        import jax.numpy as jnp
    else:
        import pyjax as jax
        import pyjax.numpy as jnp

    f = jax.jit(lambda x: x * 2 + 1)
    x = jnp.ones(8, jnp.float32)
    g = jax.jit(lambda a, b, c: (a @ b + c, a.sum()))
    a, b, c = jnp.ones((4, 4)), jnp.ones((4, 4)), jnp.ones(4)
    pt = {"w": jnp.ones(8), "b": [jnp.ones(3), jnp.ones(2)], "s": jnp.float32(1)}
    h = jax.jit(lambda p: jax.tree_util.tree_map(lambda v: v + 1, p))
    pt10 = {"layers": [(jnp.ones((4, 4)), jnp.ones(4)) for _ in range(4)], "w": jnp.ones(3),
            "s": jnp.float32(2)}
    h10 = jax.jit(lambda p: jax.tree_util.tree_map(lambda v: v * 2, p))
    x_np = np.ones(8, np.float32)
    y = jnp.ones(8, jnp.float32) * 3

    def loop():
        z = x
        for _ in range(1000):
            z = z * 0.5 + 1.0
        return z
    calls = {
        "jit_call": lambda: f(x),
        "jit_call_block": lambda: f(x).block_until_ready(),
        "jit_3args_2outs": lambda: g(a, b, c),
        "jit_pytree": lambda: h(pt),
        "jit_pytree10": lambda: h10(pt10),
        "jit_numpy_arg": lambda: f(x_np),
        "eager_sin": lambda: jnp.sin(x),
        "eager_add": lambda: x + y,
        "eager_scalar_mul": lambda: x * 2.0,
        "eager_sum": lambda: jnp.sum(x),
        "eager_index_int": lambda: x[3],
        "eager_index_slice": lambda: x[1:5],
        "eager_loop_1000": loop,
    }
    for fn in calls.values():  # warm up: trace, compile, first dispatch
        jax.block_until_ready(fn())
    out = {name: median_us(calls[name], max(1, int(n * scale))) for name, (_, n) in CASES.items()}
    out["version"] = getattr(jax, "pyjax_version", None) or jax.__version__
    print(json.dumps(out))


def run_worker(python, impl, scale):
    env = dict(os.environ, TF_CPP_MIN_LOG_LEVEL="3")
    p = subprocess.run([python, os.path.abspath(__file__), "--worker", impl, "--scale", str(scale)],
                       env=env, capture_output=True, text=True, timeout=600)
    if p.returncode != 0:
        sys.exit(f"{impl} worker ({python}) failed:\n{p.stderr[-2000:]}")
    return json.loads(p.stdout.strip().splitlines()[-1])


def median_of(runs):
    return {k: statistics.median(r[k] for r in runs) for k in CASES}


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--jax-python", help="python of a venv with jax==0.10.2 (compare against it)")
    ap.add_argument("--pyjax-python", default=sys.executable, help="python with pyjax installed")
    ap.add_argument("--rounds", type=int, default=3, help="worker processes per implementation")
    ap.add_argument("--scale", type=float, default=1.0, help="multiply the calls per timing round")
    ap.add_argument("--json", help="also write the medians to this file")
    ap.add_argument("--worker", choices=["pyjax", "jax"], help=argparse.SUPPRESS)
    a = ap.parse_args()
    if a.worker:
        return worker(a.worker, a.scale)

    runs = {"pyjax": [], "jax": []}
    for _ in range(a.rounds):  # interleaved, so that machine noise hits both alike
        runs["pyjax"].append(run_worker(a.pyjax_python, "pyjax", a.scale))
        if a.jax_python:
            runs["jax"].append(run_worker(a.jax_python, "jax", a.scale))
    table = {impl: median_of(rs) for impl, rs in runs.items() if rs}

    versions = ", ".join(f"{impl} {rs[0]['version']}" for impl, rs in runs.items() if rs)
    print(f"per-call time in µs, median of {a.rounds} process(es) ({versions})\n")
    if "jax" in table:
        print(f"| {'case':17} | {'pyjax µs':>9} | {'JAX µs':>9} | {'pyjax/JAX':>9} | "
              f"{'per round':>11} | what |")
        print(f"|{'-' * 19}|{'-' * 11}|{'-' * 11}|{'-' * 11}|{'-' * 13}|------|")
        for k, (what, _) in CASES.items():
            p, j = table["pyjax"][k], table["jax"][k]
            per_round = [rp[k] / rj[k] for rp, rj in zip(runs["pyjax"], runs["jax"])]
            spread = f"{min(per_round):.2f}–{max(per_round):.2f}"
            print(f"| {k:17} | {p:9.2f} | {j:9.2f} | {p / j:9.2f} | {spread:>11} | {what} |")
    else:
        print(f"| {'case':17} | {'pyjax µs':>9} | what |")
        print(f"|{'-' * 19}|{'-' * 11}|------|")
        for k, (what, _) in CASES.items():
            print(f"| {k:17} | {table['pyjax'][k]:9.2f} | {what} |")
    if a.json:
        with open(a.json, "w") as f:
            json.dump(table, f, indent=1)


if __name__ == "__main__":
    main()
