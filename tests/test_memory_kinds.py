"""Memory kinds (issue 26, item 4): a CPU device's memories (`device`, `pinned_host`,
`unpinned_host`), `memory_kind` on shardings, `device_put` into a memory (the buffer really
placed there), avals typed with their memory space (`float32<host>[4]`), operations keeping data
in host memory, and jit's `mhlo.memory_kind` attributes. Every case of
tests/memory_kinds_cases.py is checked against JAX 0.10.2's recorded result
(tests/data/record_memory_kinds.py).

The CPU device count is fixed when the client is made, so the cases run once in a subprocess
with 8 virtual devices and return their encoded results as JSON."""
import json
from pathlib import Path

import pytest

from memory_kinds_cases import CASES
from recorded_cases import assert_matches, evaluate_cases_on_devices

HERE = Path(__file__).parent
DATA = json.loads((HERE / "data" / "memory_kinds.json").read_text())


@pytest.fixture(scope="module")
def results():
    return evaluate_cases_on_devices("memory_kinds_cases", HERE)


def test_recorded_from_jax():
    assert DATA["jax_version"] == "0.10.2" and sorted(DATA["cases"]) == sorted(CASES)


@pytest.mark.parametrize("expr", CASES)
def test_case_matches_jax(results, expr):
    assert_matches(results[expr], DATA["cases"][expr], err_msg=expr)
