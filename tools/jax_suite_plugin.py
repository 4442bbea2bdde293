"""A pytest plugin for tools/jax_suite.py: deterministic sampling of the collected tests and a
record of each test's outcome.

Loaded with `-p jax_suite_plugin` (tools/ on PYTHONPATH). Environment:
  JAX_SUITE_SAMPLE=k     keep the tests whose node id hashes to 0 mod k (crc32: the same ids in
                         every process and on both sides, whatever the interpreter)
  JAX_SUITE_OUT=path     append one JSON line per test: {"id", "outcome", "message"}; outcome is
                         passed, failed, skipped or error, message the first line of the error
                         (or the skip reason). Collection errors are recorded with id "<file>".
"""
from __future__ import annotations

import json
import os
import zlib


def sampled(nodeid: str, k: int) -> bool:
    """Whether the test `nodeid` is in the 1/k sample."""
    return k <= 1 or zlib.crc32(nodeid.encode()) % k == 0


def first_line(text: str) -> str:
    """The first non-empty line of an error text (pytest's crash message or a skip reason)."""
    for line in str(text).splitlines():
        if line.strip():
            return line.strip()
    return ""


def _message(report) -> str:
    longrepr = report.longrepr
    if longrepr is None:
        return ""
    if isinstance(longrepr, tuple):  # skips: (path, line, reason)
        reason = longrepr[2]
        return first_line(reason[len("Skipped: "):] if reason.startswith("Skipped: ") else reason)
    crash = getattr(longrepr, "reprcrash", None)
    if crash is not None:
        return first_line(crash.message)
    return first_line(str(longrepr).strip().splitlines()[-1] if str(longrepr).strip() else "")


class _Recorder:
    def __init__(self, path: str, k: int):
        self.path, self.k = path, k
        self.outcomes: dict[str, tuple[str, str]] = {}

    def pytest_collection_modifyitems(self, session, config, items):
        keep = [it for it in items if sampled(it.nodeid, self.k)]
        drop = [it for it in items if not sampled(it.nodeid, self.k)]
        if drop:
            config.hook.pytest_deselected(items=drop)
        items[:] = keep

    def _write(self, nodeid, outcome, message):
        with open(self.path, "a") as f:
            f.write(json.dumps({"id": nodeid, "outcome": outcome, "message": message[:300]})
                    + "\n")

    def pytest_collectreport(self, report):
        if report.failed:
            self._write(f"<collect>{report.nodeid}", "error", _message(report))

    def pytest_runtest_logreport(self, report):
        # One record per test: the first failing phase wins, else the call's outcome.
        nodeid = report.nodeid
        first_failure = nodeid in self.outcomes and self.outcomes[nodeid][0] != "passed"
        if not first_failure and (report.when == "call" or report.failed or report.skipped):
            outcome = ("error" if report.failed and report.when != "call"
                       else report.outcome)
            self.outcomes[nodeid] = (outcome, _message(report))
        if report.when == "teardown" and nodeid in self.outcomes:
            self._write(nodeid, *self.outcomes.pop(nodeid))


def pytest_configure(config):
    path = os.environ.get("JAX_SUITE_OUT")
    if path:
        config.pluginmanager.register(
            _Recorder(path, int(os.environ.get("JAX_SUITE_SAMPLE", "1"))), "jax_suite_recorder")
