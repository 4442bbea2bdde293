"""Run JAX's own test files, unmodified, on pyjax (through the switch) and on real JAX, and write
the per-file table docs/jax_suite.md.

    .venv/bin/python tools/jax_suite.py --jax-python /path/to/jax-venv/bin/python \\
        --pyjax-python /path/to/venv-with-pyjax-and-absl/bin/python lax_test random_test
    .venv/bin/python tools/jax_suite.py --table-only          # rebuild the table from the results

Each test file of the JAX checkout (`--jax-src`, default /work/scratch/jax-src, the tag
jax-v0.10.2; its tests/ holds the files) runs once per side, one file at a time, as JAX's CI runs
it on CPU: 8 CPU devices (XLA_FLAGS=--xla_force_host_platform_device_count=8 and
JAX_NUM_CPU_DEVICES=8), JAX's default number of generated cases. On pyjax it runs as
`python -m pyjax run -m pytest FILE`. The pyjax interpreter needs absl-py and pytest beside
pyjax; it defaults to the one running this script.

Big files are sampled deterministically: with `--max-tests N` a file of n collected tests keeps
the ids whose crc32 is 0 mod k, k = ceil(n / N) (tools/jax_suite_plugin.py), the same ids on both
sides. The table counts, per file: the sampled tests real JAX ran, those JAX passes, and those
of them pyjax passes; the causes of the rest are grouped by the first line of pyjax's error.
Outcomes are kept as JSON lines under `--results` (one file per side and test file), so a file
can be rerun alone and the table rebuilt from all of them.
"""
from __future__ import annotations

import argparse
import collections
import json
import math
import os
import re
import subprocess
import sys
import time
from pathlib import Path

TOOLS = Path(__file__).resolve().parent
REPO = TOOLS.parent

# The 29 files of issue 23's table, then the other CPU-relevant files of the tag's tests/.
ISSUE_FILES = [
    "lax_autodiff_test", "lax_vmap_test", "lax_numpy_reducers_test", "scipy_stats_test",
    "stax_test", "checkify_test", "x64_context_test", "lax_numpy_operators_test", "api_test",
    "batching_test", "dtypes_test", "lax_control_flow_test", "lax_numpy_test", "lax_test",
    "tree_util_test", "custom_api_test", "debugging_primitives_test", "export_test", "fft_test",
    "lax_scipy_test", "linalg_test", "nn_test", "pjit_test", "random_test", "random_lax_test",
    "shard_map_test", "sparse_test", "sparse_bcoo_bcsr_test", "state_test",
]
MORE_FILES = [
    # numerics: jnp, scipy, linalg
    "lax_numpy_indexing_test", "lax_numpy_einsum_test", "lax_numpy_setops_test",
    "lax_numpy_ufuncs_test", "lax_numpy_vectorize_test", "lax_vmap_op_test", "scipy_fft_test",
    "scipy_signal_test", "scipy_optimize_test", "scipy_ndimage_test", "scipy_interpolate_test",
    "scipy_spatial_test", "lax_scipy_special_functions_test", "lax_scipy_sparse_test",
    "lax_scipy_spectral_dac_test", "image_test", "polynomial_test", "eigh_test", "svd_test",
    "qdwh_test", "cholesky_update_test", "lobpcg_test", "ann_test", "jax_numpy_error_test",
    "array_api_test", "generated_fun_test",
    # transformations, core and API
    "custom_linear_solve_test", "custom_root_test", "ode_test", "optimizers_test", "jet_test",
    "mutable_array_test", "core_test", "errors_test", "util_test", "sparsify_test",
    "random_impl_test", "python_callback_test", "api_util_test", "jaxpr_effects_test",
    "jaxpr_util_test", "key_reuse_test", "name_stack_test", "debug_nans_test",
    "debug_info_test", "stack_test", "stateful_rng_test", "error_check_test",
    "control_deps_test", "pretty_printer_test", "extend_test", "ffi_test",
    # devices, arrays and runtime
    "pmap_test", "array_test", "memories_test", "multi_device_test", "layout_test", "aot_test",
    "jax_jit_test", "shard_alike_test", "mesh_utils_test", "pickle_test",
    "transfer_guard_test", "xla_bridge_test", "device_test", "linalg_sharding_test",
    "compilation_cache_test", "cache_key_test", "config_test", "source_info_test",
]

DEFAULT_RESULTS = Path("/work/scratch/jax_suite_results")

# Causes that are deliberate differences of pyjax (docs/compatibility.md says why): the table
# names them as such rather than as failures to fix. (pattern of the cause, the note)
DELIBERATE = [
    (r"CustomNode\(MyCustomType.* != PyTreeDef",
     "deliberate: default_registry is optree's namespace, not jaxlib's registry (dispatch_registry, "
     "jaxlib's, must stay one: jaxlib's C++ jit takes it)"),
    (r"Tuples differ: \(N, N, N, N\) != \(N, N, N\)",
     "deliberate: transformations carry key arrays through their uint32 data (README), so a "
     "jaxpr's variables are the data, not arrays of a key dtype"),
]


def _env(side_results: Path, k: int) -> dict:
    env = dict(os.environ)
    flags = env.get("XLA_FLAGS", "")
    if "xla_force_host_platform_device_count" not in flags:
        env["XLA_FLAGS"] = (flags + " --xla_force_host_platform_device_count=8").strip()
    env.setdefault("JAX_NUM_CPU_DEVICES", "8")
    env["JAX_PLATFORMS"] = "cpu"
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(TOOLS), env.get("PYTHONPATH")]))
    env["JAX_SUITE_OUT"] = str(side_results)
    env["JAX_SUITE_SAMPLE"] = str(k)
    return env


def _pytest_argv(python: str, pyjax: bool) -> list[str]:
    launcher = [python, "-m", "pyjax", "run"] if pyjax else [python]
    return launcher + ["-m", "pytest", "-p", "jax_suite_plugin", "-p", "no:cacheprovider",
                       "-q", "--no-header", "-rN", "--tb=line", "-W", "ignore"]


def count_tests(python: str, pyjax: bool, path: Path, cwd: Path, timeout: float) -> int:
    """How many tests pytest collects from `path` (0 if collection fails)."""
    env = _env(Path(os.devnull), 1)
    env.pop("JAX_SUITE_OUT")
    proc = subprocess.run(_pytest_argv(python, pyjax) + ["--collect-only", str(path)], cwd=cwd,
                          env=env, capture_output=True, text=True, timeout=timeout)
    found = re.search(r"(\d+) tests? collected", proc.stdout)
    return int(found.group(1)) if found else 0


def run_file(python: str, pyjax: bool, path: Path, cwd: Path, out: Path, k: int,
             timeout: float) -> tuple[int, float]:
    """Run the 1/k sample of one test file; outcomes go to `out` (JSON lines, replaced)."""
    out.parent.mkdir(parents=True, exist_ok=True)
    out.unlink(missing_ok=True)
    start = time.time()
    try:
        proc = subprocess.run(_pytest_argv(python, pyjax) + [str(path)], cwd=cwd,
                              env=_env(out, k), capture_output=True, text=True, timeout=timeout)
        code = proc.returncode
        if code not in (0, 1, 5):  # not "tests failed"/"none collected": keep the tail
            (out.with_suffix(".log")).write_text(proc.stdout[-20000:] + proc.stderr[-20000:])
    except subprocess.TimeoutExpired:
        code = -1
        with open(out, "a") as f:
            f.write(json.dumps({"id": "<timeout>", "outcome": "error",
                                "message": f"file timed out after {timeout:.0f} s"}) + "\n")
    return code, time.time() - start


def load(path: Path) -> dict[str, tuple[str, str]]:
    results = {}
    if path.exists():
        for line in path.read_text().splitlines():
            rec = json.loads(line)
            results[rec["id"]] = (rec["outcome"], rec["message"])
    return results


_NUMBER = re.compile(r"(?<![A-Za-z_])-?\d+(\.\d+)?(e[-+]?\d+)?")


def cause(outcome: str, message: str) -> str:
    """A failure's cause: the first line of the error, numbers and long tails elided so that
    the same failure on different shapes groups together."""
    if outcome == "missing":
        return "not run on pyjax (not generated, or the file stopped early)"
    text = message if outcome != "skipped" else f"skipped: {message}"
    text = _NUMBER.sub("N", text)
    return text[:160] + ("…" if len(text) > 160 else "")


def summarize(name: str, meta: dict, jax_res: dict, pyjax_res: dict) -> dict:
    collect_errors = [m for i, (o, m) in pyjax_res.items() if i.startswith("<")]
    tests = [i for i in jax_res if not i.startswith("<")]
    jax_pass = [i for i in tests if jax_res[i][0] == "passed"]
    ok = [i for i in jax_pass if pyjax_res.get(i, ("missing", ""))[0] == "passed"]
    causes = collections.Counter()
    for i in jax_pass:
        outcome, message = pyjax_res.get(i, ("missing", ""))
        if outcome != "passed":
            causes[cause(outcome, message) if not (outcome == "missing" and collect_errors)
                   else "collection: " + cause("error", collect_errors[0])] += 1
    return {"name": name, "k": meta.get("k", 1), "tests": len(tests), "jax": len(jax_pass),
            "pyjax": len(ok), "causes": causes,
            "pyjax_only": sum(1 for i, (o, _) in pyjax_res.items()
                              if o == "passed" and i not in jax_res)}


def _pct(a, b):
    return f"{100 * a / b:.1f}%" if b else "–"


def _head() -> str:
    try:
        return subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=REPO,
                              capture_output=True, text=True, timeout=30).stdout.strip()
    except OSError:
        return "?"


def write_table(rows: list[dict], out: Path, jax_src: Path) -> None:
    lines = [
        "# JAX 0.10.2's own tests on pyjax",
        "",
        "JAX's test files at the tag `jax-v0.10.2`, unmodified, run with pytest through the switch",
        "(`python -m pyjax run -m pytest FILE`, JAX's `jax._src.test_util` being pyjax's own",
        "`pyjax/_src/test_util*`), and the same files run on real JAX 0.10.2 as the baseline, with 8",
        "CPU devices and JAX's default number of generated cases. Big files are sampled (1/k of",
        "the collected ids: crc32 of the node id mod k; the same ids on both sides). Produced by",
        "`tools/jax_suite.py` (see its docstring to rerun).",
        "",
        f"Measured {time.strftime('%Y-%m-%d', time.gmtime())}, pyjax at {_head()}. Columns: the",
        "sampled tests real JAX ran, those it passed, and those of them pyjax passes. A cause",
        "`collection: ...` means the file does not import on pyjax; `jax._src.X.name is not",
        "implemented by pyjax` names a JAX internal the file uses that pyjax has no meaning for.",
        "",
        "| test file | k | tests | real JAX passes | pyjax passes of those | first cause on pyjax |",
        "|---|---|---|---|---|---|",
    ]
    total = collections.Counter()
    for r in rows:
        top = r["causes"].most_common(1)
        first = f"{top[0][0]} ({top[0][1]})" if top else ""
        first = first.replace("|", "\\|")
        lines.append(f"| {r['name']} | {r['k']} | {r['tests']} | {r['jax']} | {r['pyjax']} "
                     f"({_pct(r['pyjax'], r['jax'])}) | {first} |")
        total.update(tests=r["tests"], jax=r["jax"], pyjax=r["pyjax"])
    first = collections.Counter()
    for r in rows:
        if r["name"] in ISSUE_FILES:
            first.update(tests=r["tests"], jax=r["jax"], pyjax=r["pyjax"])
    n_first = sum(r["name"] in ISSUE_FILES for r in rows)
    for label, t in ((f"issue 23's {n_first} files", first), (f"all {len(rows)} files", total)):
        lines.append(f"| **{label}** | | **{t['tests']}** | **{t['jax']}** | "
                     f"**{t['pyjax']} ({_pct(t['pyjax'], t['jax'])})** | |")
    lines += ["", "## Causes, by file", "",
              "Each line: how many of the tests real JAX passes fail on pyjax with that first",
              "line of the error (numbers shown as N).", ""]
    for r in rows:
        if not r["causes"]:
            continue
        lines.append(f"### {r['name']}")
        lines.append("")
        for text, n in r["causes"].most_common():
            note = next((f" ({note})" for pat, note in DELIBERATE if re.search(pat, text)), "")
            text = text.replace("`", "'")
            lines.append(f"- {n} × `{text}`{note}")
        lines.append("")
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text("\n".join(lines) + "\n")


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("files", nargs="*", help="test file names (default: the issue's 29 files)")
    ap.add_argument("--all", action="store_true", help="the issue's files and the other files")
    ap.add_argument("--jax-src", type=Path, default=Path("/work/scratch/jax-src"))
    ap.add_argument("--pyjax-python", default=sys.executable)
    ap.add_argument("--jax-python", help="an interpreter with real JAX 0.10.2, absl and pytest")
    ap.add_argument("--max-tests", type=int, default=150,
                    help="sample files with more collected tests to about this many")
    ap.add_argument("--timeout", type=float, default=1200, help="seconds per file and side")
    ap.add_argument("--results", type=Path, default=DEFAULT_RESULTS)
    ap.add_argument("--out", type=Path, default=REPO / "docs" / "jax_suite.md",
                    help="the table, built from every file with results (not only those run)")
    ap.add_argument("--table-only", action="store_true")
    ap.add_argument("--sides", default="jax,pyjax", help="which sides to run (jax,pyjax)")
    args = ap.parse_args(argv)
    names = args.files or (ISSUE_FILES + MORE_FILES if args.all else ISSUE_FILES)
    names = [n.removesuffix(".py") for n in names]
    cwd = args.jax_src
    sides = args.sides.split(",")
    if not args.table_only:
        for name in names:
            path = Path("tests") / f"{name}.py"
            if not (cwd / path).exists():
                print(f"{name}: no such file in {cwd / 'tests'}", file=sys.stderr)
                continue
            meta_path = args.results / "meta" / f"{name}.json"
            counter = (args.jax_python, False) if args.jax_python else (args.pyjax_python, True)
            n = count_tests(*counter, path, cwd, args.timeout)
            k = max(1, math.ceil(n / args.max_tests))
            meta_path.parent.mkdir(parents=True, exist_ok=True)
            meta_path.write_text(json.dumps({"collected": n, "k": k}))
            for side in sides:
                if side == "jax" and not args.jax_python:
                    continue
                python, pyjax = ((args.jax_python, False) if side == "jax"
                                 else (args.pyjax_python, True))
                code, secs = run_file(python, pyjax, path, cwd,
                                      args.results / side / f"{name}.jsonl", k, args.timeout)
                res = load(args.results / side / f"{name}.jsonl")
                passed = sum(o == "passed" for o, _ in res.values())
                print(f"{name} [{side}] k={k} of {n}: {passed}/{len(res)} passed, "
                      f"exit {code}, {secs:.0f} s", flush=True)
    rows = []
    for name in dict.fromkeys(ISSUE_FILES + MORE_FILES + names):
        meta_path = args.results / "meta" / f"{name}.json"
        if not meta_path.exists():
            continue
        rows.append(summarize(name, json.loads(meta_path.read_text()),
                              load(args.results / "jax" / f"{name}.jsonl"),
                              load(args.results / "pyjax" / f"{name}.jsonl")))
    write_table(rows, args.out, args.jax_src)
    return 0


if __name__ == "__main__":
    sys.exit(main())
