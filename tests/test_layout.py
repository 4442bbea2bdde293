"""Device-local layouts (pyjax/_src/layout.py): `Layout`, `Format`, jit's Formats as
in/out_shardings (`mhlo.layout_mode`), `Layout.AUTO`, `compiled.input_formats` /
`output_formats`, `x.format`, `device_put` into a layout, arguments moved into the layout an
executable takes. Every case of tests/layout_cases.py is checked against JAX 0.10.2's recorded
result (tests/data/record_layout.py); they run once in a subprocess with 4 CPU devices."""
import json
from pathlib import Path

import pytest

from layout_cases import CASES
from recorded_cases import assert_matches, evaluate_cases_on_devices

HERE = Path(__file__).parent
DATA = json.loads((HERE / "data" / "layout.json").read_text())


@pytest.fixture(scope="module")
def results():
    return evaluate_cases_on_devices("layout_cases", HERE, devices=4)


def test_recorded_from_jax():
    assert DATA["jax_version"] == "0.10.2" and sorted(DATA["cases"]) == sorted(CASES)


@pytest.mark.parametrize("expr", CASES)
def test_case_matches_jax(results, expr):
    assert_matches(results[expr], DATA["cases"][expr], err_msg=expr)
