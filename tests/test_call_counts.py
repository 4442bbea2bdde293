"""A user function's Python body runs exactly as often as under JAX 0.10.2 (recorded by
`data/record_call_counts.py` from the statements in `call_count_cases.py`)."""
import json
import pathlib

import pytest

import pyjax
import pyjax.numpy as jnp
from pyjax import lax

from call_count_cases import CASES, PRELUDE

RECORDED = json.loads((pathlib.Path(__file__).parent / "data" / "jax_call_counts.json")
                      .read_text())["counts"]


@pytest.mark.parametrize("name", sorted(CASES))
def test_body_runs_as_often_as_in_jax(name):
    ns = {"jax": pyjax, "jnp": jnp, "lax": lax}
    exec(PRELUDE, ns)
    ns["f"], ns["fv"] = ns["fresh"](), ns["fresh"]("v")
    exec(CASES[name], ns)
    assert ns["n"][0] == RECORDED[name]
