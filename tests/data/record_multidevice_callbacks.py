"""Record what host callbacks do in computations over several devices on JAX 0.10.2, for
tests/test_pmap.py: `jax.debug.print` inside pmap / shard_map / a sharded jit (which lines
print), an ordered print over 2 devices (refused), pure_callback and io_callback inside pmap.

Run with the reference venv (the script sets 8 CPU devices itself):
    /work/scratch/jaxref/bin/python tests/data/record_multidevice_callbacks.py
The same program (CASES) runs on pyjax in the test; it prints JSON as its last line.
"""
import json
import os
import subprocess
import sys
from pathlib import Path

CASES = '''
import json, os
os.environ["XLA_FLAGS"] = "--xla_force_host_platform_device_count=8"
import numpy as np
import jax, jax.numpy as jnp
from jax.experimental import io_callback
from jax.sharding import Mesh, NamedSharding, PartitionSpec as P

def run(f):
    try:
        r = f()
        jax.effects_barrier()
        return ["ok", np.asarray(r).tolist()]
    except Exception as e:
        return [type(e).__name__]

def show(x):
    jax.debug.print("x={x}", x=x)
    return x * 2

def show_ordered(x):
    jax.debug.print("x={x}", x=x, ordered=True)
    return x * 2

f32 = jax.ShapeDtypeStruct((), jnp.float32)
mesh = Mesh(np.array(jax.devices()[:4]), ("i",))
out = {
    "pmap_print": run(lambda: jax.pmap(show)(jnp.arange(2.0))),
    "pmap_print_ordered": run(lambda: jax.pmap(show_ordered)(jnp.arange(2.0))),
    "pmap_pure_callback": run(lambda: jax.pmap(
        lambda x: jax.pure_callback(np.sin, f32, x))(jnp.arange(2.0))),
    "pmap_io_callback": run(lambda: jax.pmap(
        lambda x: io_callback(np.cos, f32, x))(jnp.arange(2.0))),
    "shard_map_print": run(lambda: jax.jit(jax.shard_map(
        show, mesh=mesh, in_specs=P("i"), out_specs=P("i")))(jnp.arange(4.0))),
    "sharded_jit_print": run(lambda: jax.jit(
        show, in_shardings=NamedSharding(mesh, P("i")))(jnp.arange(4.0))),
}
print(json.dumps(out))
'''


def run_cases(python, env=None):
    """Run CASES with `python`; (the JSON it printed last, the other printed lines sorted)."""
    res = subprocess.run([python, "-c", CASES], capture_output=True, text=True, timeout=300,
                         env=env)
    assert res.returncode == 0, res.stderr[-3000:]
    lines = res.stdout.strip().splitlines()
    return json.loads(lines[-1]), sorted(lines[:-1])


if __name__ == "__main__":
    import jax  # noqa: F401  (the reference venv)
    results, printed = run_cases(sys.executable)
    Path(__file__).with_name("multidevice_callbacks.json").write_text(json.dumps(
        {"jax_version": jax.__version__, "results": results, "printed": printed}, indent=1))
