"""Record JAX 0.10.2's results for shard_map manual over part of a mesh (`axis_names=`), for
tests/test_shard_map.py: collectives and axis_index over the manual axis, a matmul with a
replicated weight, gradients through them, the errors for specs or collectives naming an
automatic axis, and a data-parallel step whose loss is pmean'ed inside value_and_grad.

Run with the reference venv (the program sets 8 CPU devices itself):
    /work/scratch/jaxref/bin/python tests/data/record_shard_map_partial.py
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
from jax.sharding import Mesh, PartitionSpec as P

mesh = Mesh(np.array(jax.devices()).reshape(2, 4), ("x", "y"))
A = jnp.arange(32.0, dtype=jnp.float32).reshape(8, 4) / 10
W = jnp.arange(12.0, dtype=jnp.float32).reshape(4, 3) / 7

def res(f):
    try:
        r = f()
        return ["ok", np.asarray(r).tolist(), repr(r.sharding.spec)]
    except Exception as e:
        return [type(e).__name__]

sm = partial(jax.shard_map, mesh=mesh, axis_names={"x"})
f_psum = sm(lambda a: jax.lax.psum(a, "x"), in_specs=P("x"), out_specs=P())
f_ag = sm(lambda a: jax.lax.all_gather(a, "x", tiled=True), in_specs=P("x"), out_specs=P("x"))
f_mm = sm(lambda a, w: jnp.tanh(a @ w), in_specs=(P("x"), P()), out_specs=P("x"))
f_idx = sm(lambda a: a + jax.lax.axis_index("x"), in_specs=P("x"), out_specs=P("x"))

def dp_step(w, a):
    loss = lambda w: jax.lax.pmean(jnp.mean(jnp.tanh(a @ w) ** 2), "x")
    l, g = jax.value_and_grad(loss)(w)
    return w - 0.1 * g, l
f_dp = sm(dp_step, in_specs=(P(), P("x")), out_specs=(P(), P()))
out = {
    "psum": res(lambda: jax.jit(f_psum)(A)),
    "all_gather": res(lambda: jax.jit(f_ag)(A)),
    "matmul": res(lambda: jax.jit(f_mm)(A, W)),
    "matmul_eager": res(lambda: f_mm(A, W)),
    "axis_index": res(lambda: jax.jit(f_idx)(A)),
    "grad_psum": res(lambda: jax.jit(jax.grad(lambda a: jnp.sum(f_psum(a) ** 2)))(A)),
    "grad_matmul_w": res(lambda: jax.jit(jax.grad(lambda w: jnp.sum(f_mm(A, w) ** 2)))(W)),
    "grad_matmul_a": res(lambda: jax.jit(jax.grad(lambda a: jnp.sum(f_mm(a, W) ** 2)))(A)),
    "psum_over_auto_axis": res(lambda: jax.jit(sm(lambda a: jax.lax.psum(a, "y"),
                                                  in_specs=P("x"), out_specs=P("x")))(A)),
    "spec_names_auto_axis": res(lambda: jax.jit(sm(lambda a: a, in_specs=P("y"),
                                                   out_specs=P("y")))(A)),
    "dp_step": res(lambda: jax.jit(f_dp)(W, A)[0]),
}
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
    Path(__file__).with_name("shard_map_partial.json").write_text(json.dumps(
        {"jax_version": jax.__version__, "results": results}, indent=1))
