"""Start-up and front end, pyjax vs JAX 0.10.2 (issue 25): import, the first jitted result of a
fresh process, make_jaxpr and lowering (a 200-layer MLP's grad and a transformer block's grad),
the XLA compile with the persistent cache on, and a warm second process as a whole.

    python benchmarks/startup.py --jax-python /tmp/jaxref/bin/python [--rounds 3] [--json OUT]

Every number comes from a fresh process; rounds interleave pyjax and JAX so machine noise hits
both alike, and the table shows medians, the spread (min-max) over rounds and pyjax/JAX.
Cases:

- import: `import pyjax` vs `import jax` (+ `.numpy`), inside the process;
- first_result: import and the first jitted result (`tanh(a @ a.T).sum()`), inside the process;
- trace_big_jaxpr / trace_big_lower: make_jaxpr and jit(...).lower of grad of a 200-layer tanh
  MLP (the shared bench's workload); transformer_jaxpr / transformer_lower: the same for grad
  of a transformer block (layer norm, 4-head attention, GELU MLP);
- compile_cache_on: `lowered.compile()` of the MLP's grad with an empty persistent cache
  (pyjax's entry write included; JAX's cache is off by default);
- cold_process / warm_process: a whole process (start to exit, timed from outside) that imports
  and runs the first step of an MLP training step; pyjax's warm process reuses the cache its
  cold one wrote. The ratio `warm_vs_jax_cold` is pyjax's warm process over JAX's cold one.

Before timing, pyjax's sources are byte-compiled (an editable install run with
PYTHONDONTWRITEBYTECODE=1 would otherwise recompile every module on every import, ~0.4 s).
"""
import argparse
import compileall
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

WORKER = r'''
import sys, time, json
t0 = time.perf_counter()
impl, case = sys.argv[1], sys.argv[2]
if impl == "jax":
    import jax, jax.numpy as jnp
else:
    import pyjax as jax, pyjax.numpy as jnp
t_import = time.perf_counter() - t0
out = {}


def mlp_loss(params, x):
    for W, b in params:
        x = jnp.tanh(x @ W + b)
    return jnp.sum(x)


def block_loss(p, x):
    def norm(h, g):
        m = h.mean(-1, keepdims=True)
        v = ((h - m) ** 2).mean(-1, keepdims=True)
        return (h - m) / jnp.sqrt(v + 1e-5) * g
    B, T, D = x.shape
    H = 4
    h = norm(x, p["g1"])
    q, k, v = (jnp.einsum("btd,de->bte", h, p[n]).reshape(B, T, H, D // H) for n in "qkv")
    s = jnp.einsum("bthd,bshd->bhts", q, k) / jnp.sqrt(D // H)
    s = jnp.where(jnp.tril(jnp.ones((T, T), bool)), s, -1e9)
    a = jax.nn.softmax(s, axis=-1)
    o = jnp.einsum("bhts,bshd->bthd", a, v).reshape(B, T, D) @ p["o"]
    x = x + o
    h = norm(x, p["g2"])
    x = x + jax.nn.gelu(h @ p["w1"]) @ p["w2"]
    return jnp.sum(x * x)


def best(fn, n=3):
    times = []
    for _ in range(n):
        t = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t)
    return min(times)


if case == "startup":
    x = jnp.arange(16.0).reshape(4, 4)
    jax.jit(lambda a: jnp.tanh(a @ a.T).sum())(x).block_until_ready()
    out = {"import": t_import, "first_result": time.perf_counter() - t0}
elif case == "front_end":
    params = [(jnp.ones((64, 64)) * 0.01, jnp.zeros(64)) for _ in range(200)]
    x = jnp.ones((8, 64))
    D = 128
    bp = {n: jnp.ones((D, D)) * 0.01 for n in ("q", "k", "v", "o")}
    bp.update(g1=jnp.ones(D), g2=jnp.ones(D), w1=jnp.ones((D, 4 * D)) * 0.01,
              w2=jnp.ones((4 * D, D)) * 0.01)
    bx = jnp.ones((8, 64, D))
    # a fresh function per measurement: no trace cache can answer
    out["trace_big_jaxpr"] = best(lambda: jax.make_jaxpr(jax.grad(lambda *a: mlp_loss(*a)))(params, x))
    out["trace_big_lower"] = best(lambda: jax.jit(jax.grad(lambda *a: mlp_loss(*a))).lower(params, x))
    out["transformer_jaxpr"] = best(lambda: jax.make_jaxpr(jax.grad(lambda *a: block_loss(*a)))(bp, bx))
    out["transformer_lower"] = best(lambda: jax.jit(jax.grad(lambda *a: block_loss(*a))).lower(bp, bx))
    lowered = jax.jit(jax.grad(lambda *a: mlp_loss(*a))).lower(params, x)
    t = time.perf_counter()
    lowered.compile()
    out["compile_cache_on"] = time.perf_counter() - t
elif case == "train_step":
    sizes = [64, 256, 256, 10]
    params = [(jnp.ones((m, n)) * 0.01, jnp.zeros(n)) for m, n in zip(sizes[:-1], sizes[1:])]
    x, y = jnp.ones((128, 64)), jnp.zeros((128, 10))

    @jax.jit
    def step(params, x, y):
        def loss(params):
            h = x
            for W, b in params[:-1]:
                h = jax.nn.relu(h @ W + b)
            W, b = params[-1]
            return jnp.mean((h @ W + b - y) ** 2)
        l, g = jax.value_and_grad(loss)(params)
        return l, jax.tree_util.tree_map(lambda p, g: p - 0.1 * g, params, g)
    l, params = step(params, x, y)
    l.block_until_ready()
    out = {"in_process": time.perf_counter() - t0}
print(json.dumps(out))
'''

CASES = {
    "import": "import pyjax / import jax (+ numpy)",
    "first_result": "import + first jitted result, fresh process",
    "trace_big_jaxpr": "make_jaxpr(grad(200-layer MLP))",
    "trace_big_lower": "jit(grad(200-layer MLP)).lower",
    "transformer_jaxpr": "make_jaxpr(grad(transformer block))",
    "transformer_lower": "jit(grad(transformer block)).lower",
    "compile_cache_on": "compile of the MLP's grad, empty persistent cache",
    "cold_process": "whole process: import + first MLP train step, empty cache",
    "warm_process": "the same, second process on the cache the first wrote",
}


def run(python, impl, case, cache):
    env = dict(os.environ, TF_CPP_MIN_LOG_LEVEL="3", PYJAX_CACHE_DIR=cache)
    t = time.perf_counter()
    p = subprocess.run([python, "-c", WORKER, impl, case], env=env, capture_output=True,
                       text=True, timeout=900)
    wall = time.perf_counter() - t
    if p.returncode != 0:
        sys.exit(f"{impl} {case} failed:\n{p.stderr[-2000:]}")
    return json.loads(p.stdout.strip().splitlines()[-1]), wall


def one_round(python, impl):
    out = {}
    out.update(run(python, impl, "startup", tempfile.mkdtemp(prefix="pyjax-bench-"))[0])
    out.update(run(python, impl, "front_end", tempfile.mkdtemp(prefix="pyjax-bench-"))[0])
    cache = tempfile.mkdtemp(prefix="pyjax-bench-")
    out["cold_process"] = run(python, impl, "train_step", cache)[1]
    out["warm_process"] = run(python, impl, "train_step", cache)[1]
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--jax-python", required=True, help="python of a venv with jax==0.10.2")
    ap.add_argument("--pyjax-python", default=sys.executable)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--json", help="save the per-round numbers here")
    a = ap.parse_args()
    compileall.compile_dir(str(ROOT / "pyjax"), quiet=1)
    runs = {"pyjax": [], "jax": []}
    for _ in range(a.rounds):
        runs["pyjax"].append(one_round(a.pyjax_python, "pyjax"))
        runs["jax"].append(one_round(a.jax_python, "jax"))
    print(f"load average at the end: {os.getloadavg()[0]:.2f} ({os.cpu_count()} cores)")
    print(f"| {'case':18} | {'pyjax s':>17} | {'JAX s':>17} | pyjax/JAX | what |")
    print(f"|{'-' * 20}|{'-' * 19}|{'-' * 19}|-----------|------|")
    for k, what in CASES.items():
        p = [r[k] for r in runs["pyjax"]]
        j = [r[k] for r in runs["jax"]]
        ratio = statistics.median(p) / statistics.median(j)
        spread = lambda v: f"{statistics.median(v):.3f} ({min(v):.2f}-{max(v):.2f})"  # noqa: E731
        print(f"| {k:18} | {spread(p):>17} | {spread(j):>17} | {ratio:9.2f} | {what} |")
    warm = statistics.median(r["warm_process"] for r in runs["pyjax"])
    cold = statistics.median(r["cold_process"] for r in runs["jax"])
    print(f"warm_vs_jax_cold: pyjax's warm process / JAX's cold process = {warm / cold:.2f}")
    if a.json:
        Path(a.json).write_text(json.dumps(runs, indent=1))


if __name__ == "__main__":
    main()
