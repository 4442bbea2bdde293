"""Run a library's own test suite on pyjax, and on real JAX beside it, and tabulate the results
(issue 24).

    python tools/library_suites.py run optax --path /somewhere/optax-0.2.8 \\
        --python /venv-with-pyjax/bin/python --jax-python /venv-with-jax/bin/python
    python tools/library_suites.py table          # rewrite docs/library_suites.md

`run` starts pytest in the suite's source tree (its release's sdist, or its repository at the
release tag: never copied into this repository), once per side: on pyjax through
`python -m pyjax run -m pytest`, and on JAX with the interpreter `--jax-python` names. Both
interpreters need the library, its test dependencies and `pytest-timeout`; the pyjax one must not
have `jax` installed. The sample is the same on both sides: a test is kept when a hash of its id
(with memory addresses blanked) falls in the suite's fraction, decided inside each pytest process by
this file acting as a pytest plugin (`-p library_suites`). Each side's outcomes go to
`<results>/<suite>-<side>.json`; `table` reads every result there and writes the page: per suite
the tests run, JAX's passes, pyjax's passes of those, and pyjax's failures among them grouped by
the first line of their error.
"""
from __future__ import annotations

import argparse
import dataclasses
import datetime
import hashlib
import json
import os
import re
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
DEFAULT_RESULTS = Path(os.environ.get("LIBRARY_SUITES_RESULTS", "/work/scratch/libsuites/results"))
DEFAULT_TABLE = REPO / "docs" / "library_suites.md"

# Environment variables the plugin half of this file reads inside the pytest process.
_ENV_OUT = "LIBRARY_SUITES_OUT"
_ENV_SAMPLE = "LIBRARY_SUITES_SAMPLE"


@dataclasses.dataclass(frozen=True)
class Suite:
    version: str
    source: str                     # where its tests come from
    paths: tuple[str, ...]          # pytest arguments relative to the source tree
    sample: tuple[int, int] = (1, 1)  # keep k of every n tests (by id hash)
    devices: int = 1                # CPU devices (XLA_FLAGS), as the library's CI gives them
    env: tuple[tuple[str, str], ...] = ()
    pytest_args: tuple[str, ...] = ()
    note: str = ""


_IN_PACKAGE = ("-o", "python_files=*_test.py test_*.py")

SUITES: dict[str, Suite] = {
    "optax": Suite("0.2.8", "PyPI sdist (tests inside the package)", ("optax",), (1, 4),
                   pytest_args=_IN_PACKAGE),
    "chex": Suite("0.1.92", "PyPI sdist (tests inside the package)", ("chex",),
                  pytest_args=_IN_PACKAGE,
                  note="Remaining: outside sharding in types pyjax's avals carry no sharding "
                       "(JAX's `typeof(x).sharding` is always a NamedSharding, over the empty "
                       "AbstractMesh when no mesh is set; issue 26); a chexify'd comparison of "
                       "key arrays meets a key over traced data where JAX has a key leaf."),
    "einops": Suite("0.8.2", "repository at v0.8.2", ("einops/tests",),
                    env=(("EINOPS_TEST_BACKENDS", "jax"),)),
    "flax": Suite("0.12.8", "PyPI sdist, tests/linen and tests/nnx", ("tests/linen", "tests/nnx"),
                  (1, 8), devices=8,
                  env=(("JAX_NUMPY_RANK_PROMOTION", "raise"), ("FLAX_PROFILE", "1")),
                  note="Remaining: hijax Variables (`nnx.var_defaults(hijax=True)`: pyjax has no "
                       "high-level types); a user's extended dtype in avals (flax's fp8_meta32, "
                       "whose gradients accumulate by max); arrays made under `set_mesh` with "
                       "Auto axes stay on one device "
                       "(JAX: `NamedSharding(mesh, P())`, issue 26). tests/nnx/integration_test.py "
                       "needs orbax, on both sides."),
    "equinox": Suite("0.13.8", "repository at v0.13.8", ("tests",), (1, 3), devices=8),
    "dm-haiku": Suite("0.0.17", "PyPI sdist (tests inside the package)", ("haiku/_src",), (1, 12),
                      devices=8, pytest_args=_IN_PACKAGE),
    "numpyro": Suite("0.22.0", "PyPI sdist, test/", ("test",), (1, 40)),
    "diffrax": Suite("0.7.2", "repository at v0.7.2", ("test",), (1, 12),
                     note="Run with `--timeout 1500`: at this sample JAX's side takes about "
                          "1,400 s (at 1/6 both sides were cut short)."),
    "lineax": Suite("0.1.1", "repository at v0.1.1", ("tests",), (1, 24)),
    "optimistix": Suite("0.1.0", "repository at v0.1.0", ("tests",), (1, 16),
                        note="Remaining: `jnp.array`/`jnp.eye`/`jnp.arange` of constants give "
                             "concrete Arrays under jit where JAX gives tracers (its eye is built "
                             "from iotas), so equinox's `filter_closure_convert` captures other "
                             "constants in L-BFGS's two `cond` branches (8 and 9) and their "
                             "structures differ."),
    "blackjax": Suite("1.7.1", "PyPI sdist, tests/", ("tests",), (1, 16), devices=8),
    "jaxopt": Suite("0.8.5", "repository at jaxopt-v0.8.5", ("tests",), (1, 8)),
}

_ADDRESS = re.compile(r"0x[0-9a-fA-F]+")


def stable_id(nodeid: str) -> str:
    """A test id with memory addresses blanked, the same in every process."""
    return _ADDRESS.sub("0x?", nodeid)


def in_sample(nodeid: str, sample: tuple[int, int]) -> bool:
    k, n = sample
    digest = hashlib.sha1(stable_id(nodeid).encode()).digest()
    return int.from_bytes(digest[:8], "big") % n < k


def first_error_line(text: str) -> str:
    """The line that names the error: `E   Type: message` in pytest's long form, else the last
    non-empty line; addresses and long numbers blanked so that equal causes group."""
    lines = [ln for ln in text.splitlines() if ln.strip()]
    marked = [ln[1:].strip() for ln in lines if ln.startswith("E ")]
    line = marked[0] if marked else (lines[-1].strip() if lines else "")
    return normalize(line)


def normalize(line: str) -> str:
    """Addresses and values' reprs blanked (chex's "argument leaf of type tuple (((1, 2), {}))
    is not ..."), so that one cause groups as one."""
    line = _ADDRESS.sub("0x?", line)
    line = re.sub(r"\(\(\(.*?(?:\)\)(?= is not)|$)", "(...)", line)
    return line[:140]


# ---- the pytest plugin half (loaded in the test process with -p library_suites) ----

class _Recorder:
    def __init__(self, out: Path, sample: tuple[int, int]):
        self.out, self.sample = out, sample
        self.outcomes: dict[str, dict] = {}
        self.collect_errors: dict[str, str] = {}
        self.deselected = 0

    def _flush(self):
        tmp = self.out.with_suffix(".tmp")
        tmp.write_text(json.dumps({"tests": self.outcomes, "collect_errors": self.collect_errors,
                                   "deselected": self.deselected}, indent=0, sort_keys=True))
        tmp.replace(self.out)

    def pytest_collection_modifyitems(self, config, items):
        kept = [it for it in items if in_sample(it.nodeid, self.sample)]
        dropped = [it for it in items if not in_sample(it.nodeid, self.sample)]
        self.deselected = len(dropped)
        if dropped:
            config.hook.pytest_deselected(items=dropped)
        items[:] = kept
        for it in kept:
            self.outcomes[stable_id(it.nodeid)] = {"outcome": "not run"}
        self._flush()

    def pytest_collectreport(self, report):
        if report.failed:
            self.collect_errors[stable_id(report.nodeid)] = first_error_line(str(report.longrepr))
            self._flush()

    def pytest_runtest_logreport(self, report):
        key = stable_id(report.nodeid)
        rec = self.outcomes.setdefault(key, {"outcome": "not run"})
        if report.when == "call" or (report.when == "setup" and not report.passed):
            if report.passed:
                rec["outcome"] = "passed"
            elif report.skipped:
                rec["outcome"] = "xfailed" if hasattr(report, "wasxfail") else "skipped"
            else:
                rec["outcome"] = "failed"
                rec["error"] = first_error_line(str(report.longrepr))
        elif report.when == "teardown" and report.failed and rec.get("outcome") == "passed":
            rec["outcome"] = "failed"
            rec["error"] = "teardown: " + first_error_line(str(report.longrepr))
        if report.when == "teardown":
            self._flush()


def pytest_configure(config):
    out = os.environ.get(_ENV_OUT)
    if out:
        k, n = (int(x) for x in os.environ.get(_ENV_SAMPLE, "1/1").split("/"))
        config.pluginmanager.register(_Recorder(Path(out), (k, n)), "library_suites_recorder")


# ---- the driver half ----

def _run_side(name: str, suite: Suite, path: Path, side: str, python: str, results: Path,
              timeout: float, per_test_timeout: int) -> dict:
    out = results / f"{name}-{side}.json"
    out.unlink(missing_ok=True)
    env = dict(os.environ)
    env.pop("JAX_PLATFORMS", None)
    env.update(dict(suite.env))
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(Path(__file__).resolve().parent),
                                                      env.get("PYTHONPATH", "")]))
    env[_ENV_OUT] = str(out)
    env[_ENV_SAMPLE] = "%d/%d" % suite.sample
    if suite.devices > 1:
        env["XLA_FLAGS"] = (env.get("XLA_FLAGS", "") +
                            f" --xla_force_host_platform_device_count={suite.devices}").strip()
    pytest = ["-m", "pytest", "-p", "library_suites", "-p", "no:cacheprovider", "-q",
              "--no-header", "-rN", "--continue-on-collection-errors", f"--timeout={per_test_timeout}", *suite.pytest_args,
              *suite.paths]
    cmd = [python, "-m", "pyjax", "run", *pytest] if side == "pyjax" else [python, *pytest]
    log = results / f"{name}-{side}.log"
    start = time.monotonic()
    with open(log, "w") as fh:
        proc = subprocess.Popen(cmd, cwd=path, env=env, stdout=fh, stderr=subprocess.STDOUT,
                                start_new_session=True)
        try:
            rc = proc.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, 9)
            rc = "timeout"
            proc.wait()
    seconds = time.monotonic() - start
    data = json.loads(out.read_text()) if out.exists() else {"tests": {}, "collect_errors": {}}
    tail = log.read_text(errors="replace").strip().splitlines()[-1:] if log.exists() else []
    data.update(side=side, suite=name, version=suite.version, returncode=rc, sample=suite.sample,
                seconds=round(seconds, 1), python=python, last_line=tail[0] if tail else "",
                date=datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d"))
    out.write_text(json.dumps(data, indent=0, sort_keys=True))
    return data


def _file_of(test_id: str) -> str:
    return test_id.split("::", 1)[0]


def compare(jax: dict, pyjax: dict) -> dict:
    """JAX's passes, pyjax's passes of those, and pyjax's failures among them by cause."""
    jax_passes = sorted(t for t, r in jax["tests"].items() if r["outcome"] == "passed")
    causes: Counter = Counter()
    passed = 0
    for test in jax_passes:
        rec = pyjax["tests"].get(test)
        if rec is None:
            err = pyjax["collect_errors"].get(_file_of(test))
            causes[f"(does not import) {err}" if err else "(not collected on pyjax)"] += 1
        elif rec["outcome"] == "passed":
            passed += 1
        elif rec["outcome"] == "failed":
            causes[normalize(rec.get("error") or "(no message)")] += 1
        else:
            causes[f"({rec['outcome']} on pyjax)"] += 1
    return {"run": len(jax["tests"]), "jax_passes": len(jax_passes), "pyjax_passes": passed,
            "causes": causes}


def write_table(results: Path, output: Path) -> str:
    rows, sections = [], []
    for name, suite in SUITES.items():
        jf, pf = results / f"{name}-jax.json", results / f"{name}-pyjax.json"
        if not (jf.exists() and pf.exists()):
            continue
        jax, pyjax = json.loads(jf.read_text()), json.loads(pf.read_text())
        if "seconds" not in jax or "seconds" not in pyjax:
            continue  # a side still running, or stopped before it wrote its summary
        c = compare(jax, pyjax)
        pct = 100.0 * c["pyjax_passes"] / c["jax_passes"] if c["jax_passes"] else 100.0
        k, n = jax.get("sample", suite.sample)
        sample = "all" if n == 1 else f"{k}/{n}"
        rows.append(f"| {name} {suite.version} | {sample} | {c['run']:,} | {c['jax_passes']:,} | "
                    f"{c['pyjax_passes']:,} ({pct:.1f}%) | {jax['seconds']:.0f} s / "
                    f"{pyjax['seconds']:.0f} s |")
        lost = sum(c["causes"].values())
        lines = [f"### {name} {suite.version}", "",
                 f"Tests from the {suite.source}; sample {sample}; {suite.devices} CPU device(s); "
                 f"run {pyjax.get('date', '?')}. "
                 + "".join(f"The {side} side stopped at its time limit (its unfinished tests "
                           "count as not run). " for side, d in (("JAX", jax), ("pyjax", pyjax))
                           if d.get("returncode") == "timeout")
                 + f"pyjax fails {lost} of JAX's {c['jax_passes']} passes"
                 + (":" if lost else "."), ""]
        for cause, count in c["causes"].most_common():
            cause = cause.replace("|", "\\|").replace("`", "'")
            lines.append(f"- {count} × `{cause}`")
        if suite.note:
            lines += ["", suite.note]
        sections.append("\n".join(lines))
    page = "\n".join([
        "# The libraries' own test suites on pyjax",
        "",
        "Each library's tests at the version `tests/libraries/requirements.txt` pins, unmodified,",
        "run with pytest on real JAX 0.10.2 and on pyjax (`python -m pyjax run -m pytest`), with",
        "the same test dependencies on both sides and the same sample of test ids. Written by",
        "`tools/library_suites.py` (its docstring says how to run it); the suites' sources stay",
        "outside this repository.",
        "",
        "| suite | sample | tests run | real JAX passes | pyjax passes of those | time (JAX / pyjax) |",
        "|---|---|---|---|---|---|",
        *rows,
        "",
        "## What pyjax fails, by the first line of the error",
        "",
        "\n\n".join(sections),
        "",
    ])
    output.parent.mkdir(parents=True, exist_ok=True)
    output.write_text(page)
    return page


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    run = sub.add_parser("run", help="run one suite on pyjax (and on JAX with --jax-python)")
    run.add_argument("suite", choices=sorted(SUITES))
    run.add_argument("--path", required=True, type=Path, help="the suite's source tree")
    run.add_argument("--python", default=sys.executable,
                     help="interpreter with pyjax, the library and its test dependencies")
    run.add_argument("--jax-python", help="interpreter with real JAX and the same packages")
    run.add_argument("--only", choices=("jax", "pyjax"), help="run one side only")
    run.add_argument("--sample", help="k/n: keep k of every n tests (default: the suite's)")
    run.add_argument("--timeout", type=float, default=1800, help="seconds for one side")
    run.add_argument("--test-timeout", type=int, default=300, help="seconds for one test")
    run.add_argument("--results", type=Path, default=DEFAULT_RESULTS)
    run.add_argument("--table", type=Path, default=DEFAULT_TABLE)
    tab = sub.add_parser("table", help="write the table from the results directory")
    tab.add_argument("--results", type=Path, default=DEFAULT_RESULTS)
    tab.add_argument("--table", type=Path, default=DEFAULT_TABLE)
    args = ap.parse_args(argv)
    if args.cmd == "table":
        print(write_table(args.results, args.table))
        return 0
    suite = SUITES[args.suite]
    if args.sample:
        suite = dataclasses.replace(suite, sample=tuple(int(x) for x in args.sample.split("/")))
    args.results.mkdir(parents=True, exist_ok=True)
    sides = [("jax", args.jax_python), ("pyjax", args.python)]
    for side, python in sides:
        if python is None or (args.only and args.only != side):
            continue
        data = _run_side(args.suite, suite, args.path.resolve(), side, python, args.results,
                         args.timeout, args.test_timeout)
        counts = Counter(r["outcome"] for r in data["tests"].values())
        print(f"{args.suite} on {side}: {dict(counts)}, {len(data['collect_errors'])} files "
              f"not collected, {data['seconds']} s, exit {data['returncode']}", flush=True)
    write_table(args.results, args.table)
    return 0


if __name__ == "__main__":
    sys.exit(main())
