"""Shared driver of the side-by-side benchmarks: each measurement runs `SCRIPT --worker pyjax|jax`
in a fresh process with an empty compile cache, rounds are interleaved so machine noise hits
both implementations alike, and the table shows medians and pyjax/JAX."""
import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile


def run_worker(script, python, impl, timeout=900):
    env = dict(os.environ, TF_CPP_MIN_LOG_LEVEL="3", PYJAX_CACHE_DIR=tempfile.mkdtemp(prefix="pyjax-bench-"))
    p = subprocess.run([python, os.path.abspath(script), "--worker", impl], env=env,
                       capture_output=True, text=True, timeout=timeout)
    if p.returncode != 0:
        sys.exit(f"{impl} worker ({python}) failed:\n{p.stderr[-2000:]}")
    return json.loads(p.stdout.strip().splitlines()[-1])


def main(script, doc, cases, worker):
    """Parse the command line; run `worker(impl)` when asked to, else drive the comparison."""
    ap = argparse.ArgumentParser(description=doc, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--jax-python", help="python of a venv with jax==0.10.2")
    ap.add_argument("--pyjax-python", default=sys.executable)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--worker", choices=["pyjax", "jax"], help=argparse.SUPPRESS)
    a = ap.parse_args()
    if a.worker:
        return worker(a.worker)
    runs = {"pyjax": [], "jax": []}
    for _ in range(a.rounds):
        runs["pyjax"].append(run_worker(script, a.pyjax_python, "pyjax"))
        if a.jax_python:
            runs["jax"].append(run_worker(script, a.jax_python, "jax"))
    med = {impl: {k: statistics.median(r[k] for r in rs) for k in cases} for impl, rs in runs.items() if rs}
    width = max(len(k) for k in cases)
    print(f"| {'case':{width}} | {'pyjax':>10} | {'JAX':>10} | {'pyjax/JAX':>9} | what |")
    print(f"|{'-' * (width + 2)}|{'-' * 12}|{'-' * 12}|{'-' * 11}|------|")
    for k, what in cases.items():
        p = med["pyjax"][k]
        j = med.get("jax", {}).get(k)
        ratio = f"{p / j:9.2f}" if j else f"{'-':>9}"
        jtxt = "-" if j is None else f"{j:.4g}"
        print(f"| {k:{width}} | {p:10.4g} | {jtxt:>10} | {ratio} | {what} |")
