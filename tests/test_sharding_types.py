"""Sharding in types (issue 26, part 1): under a mesh with Explicit axes avals carry their
sharding (`float32[8@x,4]`), primitives propagate it, `reshard`/`auto_axes`/`explicit_axes`/
`out_sharding=` change it, and jit lays its outputs out as the types say. Every case of
tests/sharding_types_cases.py is checked against JAX 0.10.2's recorded result
(tests/data/record_sharding_types.py).

The CPU device count is fixed when the client is made, so the cases run once in a subprocess
with 8 virtual devices and return their encoded results as JSON."""
import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import pyjax
import pyjax.numpy as jnp
from pyjax._src import core
from pyjax.sharding import AbstractMesh, AxisType, NamedSharding, PartitionSpec as P

from recorded_cases import assert_matches
from sharding_types_cases import CASES

HERE = Path(__file__).parent
DATA = json.loads((HERE / "data" / "sharding_types.json").read_text())

SCRIPT = '''
import json, sys
sys.path.insert(0, {tests!r})
from pyjax import jax_alias
jax_alias.as_jax()  # the cases are JAX programs: `jax` (and jax.sharding, jax.core) is pyjax
import jax, jax.numpy as jnp
from recorded_cases import evaluate_cases
from sharding_types_cases import CASES, PRELUDE
print(json.dumps(evaluate_cases(PRELUDE, CASES, {{"jax": jax, "jnp": jnp}})))
'''


@pytest.fixture(scope="module")
def results():
    env = dict(os.environ, XLA_FLAGS="--xla_force_host_platform_device_count=8",
               JAX_PLATFORMS="cpu")
    res = subprocess.run([sys.executable, "-c", SCRIPT.format(tests=str(HERE))],
                         capture_output=True, text=True, env=env, timeout=600)
    assert res.returncode == 0, res.stderr[-3000:]
    return json.loads(res.stdout.strip().splitlines()[-1])


def test_recorded_from_jax():
    assert DATA["jax_version"] == "0.10.2" and sorted(DATA["cases"]) == sorted(CASES)


@pytest.mark.parametrize("expr", CASES)
def test_case_matches_jax(results, expr):
    assert_matches(results[expr], DATA["cases"][expr], rtol=1e-5, atol=1e-5, err_msg=expr)
