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
from pyjax._src.lax import dot_general as dg, shape_ops
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


def test_programs_without_explicit_meshes_are_untouched():
    # a fresh process: no mesh with an Explicit axis yet, so the abstract evaluation rules are
    # the primitives' own (no sharding step) and avals carry no sharding; the first such mesh
    # switches the sharding rules on
    code = '''
import json, numpy as np, pyjax, pyjax.numpy as jnp
from pyjax._src.lax.elementwise import sin_p
from pyjax.sharding import AxisType
before = [hasattr(sin_p.abstract_eval, "shape_rule"), pyjax.typeof(jnp.ones(3)).sharding,
          str(pyjax.make_jaxpr(jnp.sin)(np.ones(3, np.float32)))]
pyjax.make_mesh((1,), ("i",), axis_types=(AxisType.Auto,))
auto = hasattr(sin_p.abstract_eval, "shape_rule")
pyjax.make_mesh((1,), ("i",))
print(json.dumps(before + [auto, hasattr(sin_p.abstract_eval, "shape_rule")]))
'''
    res = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300)
    assert res.returncode == 0, res.stderr[-2000:]
    got = json.loads(res.stdout.strip().splitlines()[-1])
    assert got[:2] == [False, None] and "f32[3]" in got[2] and got[3:] == [False, True]


def test_rules_on_abstract_avals():
    mesh = AbstractMesh((4, 2), ("x", "y"), (AxisType.Explicit, AxisType.Explicit))
    pyjax.make_mesh((1,), ("i",))  # sharding in types on in this process
    a = core.ShapedArray((8, 4), np.float32, sharding=NamedSharding(mesh, P("x")))
    assert str(a) == "float32[8@x,4]" and a.sharding.spec == P("x", None)
    assert a != core.ShapedArray((8, 4), np.float32) and hash(a) == hash(a.update())
    assert a.update(shape=(4, 8)).sharding is None  # a new shape: the rules decide
    assert str(shape_ops.reshape_p.abstract_eval(a, new_sizes=(32,), dimensions=None,
                                                  sharding=None)) == "float32[32@x]"
    with pytest.raises(core.ShardingTypeError, match="This reshape is not supported"):
        shape_ops.reshape_p.abstract_eval(a, new_sizes=(4, 8), dimensions=None, sharding=None)
    with pytest.raises(core.ShardingTypeError, match="ambiguous"):
        dg.dot_general_p.abstract_eval(
            a.update(sharding=NamedSharding(mesh, P(None, "x"))),
            core.ShapedArray((4, 6), np.float32, sharding=NamedSharding(mesh, P("x"))),
            dimension_numbers=(((1,), (0,)), ((), ())), precision=None,
            preferred_element_type=None)


def test_jax_core_sharding_type_error_is_pyjax_s():
    # under the switch `jax._src.core.ShardingTypeError` is the class pyjax raises, so JAX
    # programs (and JAX's tests) catch it
    code = '''
from pyjax import jax_alias
jax_alias.as_jax()
import jax._src.core
from pyjax._src import errors
print(jax._src.core.ShardingTypeError is errors.ShardingTypeError)
'''
    res = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300)
    assert res.returncode == 0 and res.stdout.split()[-1] == "True", res.stderr[-2000:]
