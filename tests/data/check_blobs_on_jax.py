"""Check with JAX 0.10.2 that blobs pyjax serialized deserialize and run on JAX with JAX's
recorded results (tests/data/export_blobs.json), gradients through the serialized VJP included.

    JAX_PLATFORMS=cpu /work/scratch/jaxref/bin/python tests/data/check_blobs_on_jax.py DIR

DIR holds <case name>.bin files written by pyjax's `Exported.serialize(vjp_order=1)` (the test
tests/test_export_blobs.py::test_pyjax_blobs_run_on_jax writes them and runs this script).
Blobs of the sharded cases (exported over 8 devices) need
XLA_FLAGS=--xla_force_host_platform_device_count=8: their arguments are laid out as
`in_shardings_jax(mesh)` says, over a mesh of the recorded axes. Exits with status 1 when a
result differs.
"""
import contextlib
import json
import os
import sys

import dataclasses

import jax
import jax.numpy as jnp
import numpy as np
from jax import export
from jax._src import effects

HERE = os.path.dirname(os.path.abspath(__file__))


@dataclasses.dataclass(frozen=True)
class OrderedForExport(effects.Effect):
    """The ordered effect of the ordered_effect case (as record_export_blobs.py defines it):
    JAX's reader finds it by its type's name, `<class '__main__.OrderedForExport'>`."""


effects.lowerable_effects.add_type(OrderedForExport)
effects.ordered_effects.add_type(OrderedForExport)


def arrays(tree):
    if isinstance(tree, dict) and set(tree) == {"dtype", "shape", "data"}:
        return np.asarray(tree["data"], tree["dtype"]).reshape(tree["shape"])
    if isinstance(tree, dict):
        return {k: arrays(v) for k, v in tree.items()}
    if isinstance(tree, list):
        return [arrays(v) for v in tree]
    return tree


def close(got, want, rtol, atol):
    g, w = jax.tree_util.tree_leaves(got), jax.tree_util.tree_leaves(want)
    return len(g) == len(w) and all(
        np.shape(a) == np.shape(b) and np.allclose(np.asarray(a), b, rtol=rtol, atol=atol)
        for a, b in zip(g, w))


def main(directory):
    cases = json.load(open(os.path.join(HERE, "export_blobs.json")))["cases"]
    failures = []
    for fname in sorted(os.listdir(directory)):
        name = fname[:-len(".bin")]
        exp = export.deserialize(bytearray(open(os.path.join(directory, fname), "rb").read()))
        case = cases[name]
        if case.get("kind") == "prng_key":  # typed keys: key data and normals as recorded
            k, normals, keys = exp.call(jax.random.key(case["seed"], impl=case["impl"]))
            if not (np.array_equal(jax.random.key_data(k), arrays(case["out"]["key_data"]))
                    and close(normals, arrays(case["out"]["normals"]), 1e-6, 1e-6)
                    and np.array_equal(jax.random.key_data(keys),
                                       arrays(case["out"]["split_data"]))):
                failures.append(f"{name}: results")
            print(f"{name}: ran on JAX {jax.__version__}")
            continue
        mesh = None
        if "mesh" in case:  # sharded: the arguments laid out as exported, under the mesh
            sizes, names, types = case["mesh"]
            mesh = jax.make_mesh(tuple(sizes), tuple(names), axis_types=(
                getattr(jax.sharding.AxisType, types),) * len(names))
        for run in case["runs"]:
            args = arrays(run["args"])
            argnums = run.get("grad_argnums", list(range(len(args))))
            if mesh is not None:
                args = [jax.device_put(a, s) for a, s in zip(args, exp.in_shardings_jax(mesh))]
            with jax.set_mesh(mesh) if mesh is not None else contextlib.nullcontext():
                if not close(exp.call(*args), arrays(run["out"]), 2e-5, 2e-6):
                    failures.append(f"{name}: results")

                def loss(*xs):
                    return sum(jnp.sum(o) for o in jax.tree_util.tree_leaves(exp.call(*xs))
                               if jnp.issubdtype(o.dtype, jnp.floating))
                if "grads" not in run:  # (recorded without a VJP)
                    continue
                grads = jax.grad(loss, argnums=argnums)(*args)
            if not close(list(grads), arrays(run["grads"]), 1e-4, 1e-5):
                failures.append(f"{name}: gradients")
        print(f"{name}: ran on JAX {jax.__version__}")
    if failures:
        print("FAILED:", failures)
        sys.exit(1)


if __name__ == "__main__":
    main(sys.argv[1])
