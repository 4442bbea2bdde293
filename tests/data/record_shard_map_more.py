"""Record JAX 0.10.2's results for the shard_map behaviour of JAX's shard_map_test that
tests/test_shard_map.py checks beyond the collectives: static arguments (`None` in in_specs),
an AbstractMesh given to an eager call, smap without in_axes over an Auto axis, the empty mesh
in context, the single-device pieces of a laid-out array used in operations, eager bodies that
read a replicated value as a Python bool or int, calls with no arguments, and nested
shard_maps over the axes the outer one leaves automatic.

Run with the reference venv (the program sets 8 CPU devices itself):
    /work/scratch/jaxref/bin/python tests/data/record_shard_map_more.py
The same program (CASES) runs on pyjax in the test; it prints JSON as its last line.
"""
import json
import subprocess
import sys
from pathlib import Path

CASES = '''
import json, os
os.environ["XLA_FLAGS"] = "--xla_force_host_platform_device_count=8"
from functools import partial
import numpy as np
import jax, jax.numpy as jnp
from jax.sharding import Mesh, NamedSharding, PartitionSpec as P, AxisType
from jax._src.mesh import empty_concrete_mesh

mesh = Mesh(np.array(jax.devices()[:4]).reshape(2, 2), ("x", "y"))
A = np.arange(32.0, dtype=np.float32).reshape(8, 4) / 10

def layout(x):
    return repr(x.sharding.spec) if hasattr(x.sharding, "spec") else type(x.sharding).__name__

def res(f):
    try:
        r = f()
        if isinstance(r, (tuple, list)):
            return ["ok", [np.asarray(x).tolist() for x in r], [layout(x) for x in r]]
        return ["ok", np.asarray(r).tolist(), layout(r)]
    except Exception as e:
        return [type(e).__name__, str(e).splitlines()[0]]

out = {}

# in_specs None: the arguments under it are static (a shape tuple here), under jit and eagerly
def add_ones(x, shape):
    return x + jnp.ones(shape, x.dtype)
static = jax.jit(lambda a, s: jax.shard_map(add_ones, mesh=mesh, in_specs=(P("x", "y"), None),
                                             out_specs=P("x", "y"))(a, s), static_argnums=1)
out["static_arg_jit"] = res(lambda: static(A, (4, 2)))
out["static_arg_eager"] = res(lambda: jax.shard_map(
    add_ones, mesh=mesh, in_specs=(P("x"), None), out_specs=P("x"))(A, (4, 4)))

# an AbstractMesh: an eager call runs on the mesh its arguments are laid out over
amesh = mesh.abstract_mesh
laid = jax.device_put(A, NamedSharding(mesh, P("x")))
sm_abs = jax.shard_map(lambda b: b * 2, mesh=amesh, in_specs=P("x"), out_specs=P("x"))
out["abstract_mesh_laid_out"] = res(lambda: sm_abs(laid))
out["abstract_mesh_numpy"] = res(lambda: sm_abs(A))
other = Mesh(np.array(jax.devices()[:4]).reshape(4, 1), ("x", "y"))
out["abstract_mesh_other_shape"] = res(
    lambda: sm_abs(jax.device_put(A, NamedSharding(other, P("x")))))

# smap with in_axes left out over an Auto axis
auto = jax.make_mesh((2,), ("x",), axis_types=(AxisType.Auto,))
def smap_auto():
    with jax.set_mesh(auto):
        return jax.smap(lambda x: x * 2, out_axes=0, axis_name="x")(np.arange(4.0))
out["smap_auto_no_in_axes"] = res(smap_auto)

# the empty mesh in context; the pieces of a laid-out array used in operations
def pieces():
    with jax.set_mesh(empty_concrete_mesh):
        return [s.data + np.float32(1) for s in laid.addressable_shards][1:3]
out["empty_mesh_pieces"] = res(pieces)
def empty_mesh_repr():
    with jax.set_mesh(empty_concrete_mesh):
        return repr(jax.sharding.get_abstract_mesh())
out["empty_mesh_abstract"] = empty_mesh_repr()

# eager bodies reading a replicated value as a Python bool or int (JAX runs them op by op)
m1 = Mesh(np.array(jax.devices()[:4]), ("x",))
def sign_of_total():
    val = jax.lax.psum(jax.lax.axis_index("x"), "x")
    return 1. if val > 0 else -1.
out["eager_bool_no_args"] = res(lambda: jax.shard_map(sign_of_total, mesh=m1, in_specs=(),
                                                      out_specs=P())())
def flip(b):
    return b if jax.lax.psum(b, ("x", "y")).sum() < 0 else -b
out["eager_bool"] = res(lambda: jax.shard_map(flip, mesh=mesh, in_specs=(P("x", "y"),),
                                              out_specs=P("x", "y"))(A))
def widen(b):
    n = jax.lax.psum(1, ("x", "y"))
    return jnp.concatenate([b] * int(n), axis=1) * jax.lax.axis_index("y") + n
out["eager_int"] = res(lambda: jax.shard_map(widen, mesh=mesh, in_specs=P("x", "y"),
                                             out_specs=P("x", "y"))(A))
def varying_bool(b):
    return b if b.sum() > 0 else -b
out["eager_bool_of_varying"] = res(lambda: jax.shard_map(
    varying_bool, mesh=mesh, in_specs=P("x", "y"), out_specs=P("x", "y"))(A))
def replicated_out(b):
    total = jax.lax.psum(b, ("x", "y"))
    return (b if total.sum() > 0 else -b), jax.lax.psum(b, "x")
out["eager_replicated_out"] = res(lambda: jax.shard_map(
    replicated_out, mesh=mesh, in_specs=P("x", "y"), out_specs=(P("x", "y"), P(None, "y")))(A))
def claims_replication(b):
    return b if jax.lax.psum(b, ("x", "y")).sum() > 0 else -b
out["eager_out_specs_error"] = res(lambda: jax.shard_map(
    claims_replication, mesh=mesh, in_specs=P("x", "y"), out_specs=P(None, "y"))(A))

# calls with no arguments: axis_index over one and two axes
idx = lambda: (jax.lax.axis_index("x")[None, None], jax.lax.axis_index(("x", "y"))[None, None])
out["no_args"] = res(lambda: jax.shard_map(idx, mesh=mesh, in_specs=(),
                                           out_specs=P("x", "y"))())
out["no_args_jit_body"] = res(lambda: jax.shard_map(jax.jit(idx), mesh=mesh, in_specs=(),
                                                    out_specs=P("x", "y"))())

print(json.dumps(out))
'''


def run_cases(argv, env=None):
    """Run CASES with the command `argv` (its last item the program's path); the JSON printed."""
    res = subprocess.run(argv, capture_output=True, text=True, timeout=300, env=env)
    assert res.returncode == 0, res.stderr[-3000:]
    return json.loads(res.stdout.strip().splitlines()[-1])


if __name__ == "__main__":
    import tempfile

    import jax
    with tempfile.NamedTemporaryFile("w", suffix=".py") as f:
        f.write(CASES)
        f.flush()
        results = run_cases([sys.executable, f.name])
    Path(__file__).with_name("shard_map_more.json").write_text(json.dumps(
        {"jax_version": jax.__version__, "results": results}, indent=1))
