"""Record what JAX 0.10.2's `jax.debug.inspect_array_sharding` reports inside `jit` (the layout
XLA's SPMD partitioner chose for intermediate values) and eagerly, into inspect_sharding.json.
Run with the reference venv from the repository root:

    XLA_FLAGS=--xla_force_host_platform_device_count=8 /root/scratch/jaxref/bin/python \\
        tests/data/record_inspect_sharding.py

The same program text (PROGRAM) runs on pyjax in tests/test_visualize_sharding.py.
"""
import json
import pathlib

PROGRAM = """
import numpy as np
AxisType, NamedSharding = jax.sharding.AxisType, jax.sharding.NamedSharding
P = jax.sharding.PartitionSpec
jnp = jax.numpy
out = {}
X = np.arange(64, dtype=np.float32).reshape(8, 8)
FUNS = {"sin": lambda a: jnp.sin(a) * 2, "sum0": lambda a: jnp.sin(a).sum(0),
        "gram": lambda a: a @ a.T, "T": lambda a: (a + 1).T}
for mesh_shape, names in (((4, 2), ("x", "y")), ((8,), ("i",))):
    mesh = jax.make_mesh(mesh_shape, names, axis_types=(AxisType.Auto,) * len(names))
    for spec in ([names[0]], [None, names[-1]], list(names)):
        x = jax.device_put(X, NamedSharding(mesh, P(*spec)))
        for fname, fn in FUNS.items():
            seen = []
            def f(a):
                y = fn(a)
                jax.debug.inspect_array_sharding(y, callback=seen.append)
                return y
            jax.jit(f)(x)
            key = f"{'x'.join(map(str, mesh_shape))} {spec} {fname}"
            out[key] = [repr(tuple(s.spec)) for s in seen]
        eager = []
        jax.debug.inspect_array_sharding(x, callback=eager.append)
        out[f"{'x'.join(map(str, mesh_shape))} {spec} eager"] = [repr(tuple(s.spec)) for s in eager]
"""


def main():
    import jax
    scope = {"jax": jax}
    exec(PROGRAM, scope)
    path = pathlib.Path(__file__).with_name("inspect_sharding.json")
    path.write_text(json.dumps({"program": PROGRAM, "results": scope["out"]}, indent=1) + "\n")
    print(f"wrote {len(scope['out'])} results to {path}")


if __name__ == "__main__":
    main()
