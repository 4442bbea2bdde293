"""Record blobs serialized by JAX 0.10.2's `Exported.serialize()` for tests/test_export_blobs.py,
with the arguments to call them on and JAX's results (and gradients, through the serialized
VJP). Run with the jaxref python (8 CPU devices, for the sharded case):

    XLA_FLAGS=--xla_force_host_platform_device_count=8 JAX_PLATFORMS=cpu \
        /work/scratch/jaxref/bin/python tests/data/record_export_blobs.py

Writes tests/data/export_blobs/<name>.bin and tests/data/export_blobs.json. The functions'
sources are evaluated with `jnp`, `lax` and `W` in scope, by this script and by the test (which
exports the same functions with pyjax and compares the blobs field by field).

export_blobs/pyjaxexp_v1_mlp.bin is not from JAX: pyjax's former PYJAXEXP serializer (at commit
2daad82) wrote it, for MLP with x: f32[b,4] and vjp_order=1, to check that old blobs stay readable.
"""
import dataclasses
import json
import os

import jax
import jax.numpy as jnp
import numpy as np
from jax import export, lax
from jax.sharding import NamedSharding, PartitionSpec as P
from jax._src import core, effects
from jax._src.interpreters import mlir

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "export_blobs")
W = np.linspace(-1, 1, 12, dtype=np.float32).reshape(4, 3)

MLP = """lambda p, x: jnp.tanh(jnp.tanh(x @ p["w1"] + p["b1"]) @ p["w2"])"""
SCAN = """lambda c, xs: lax.scan(lambda c, x: (jnp.tanh(c * 0.5 + x), (c * x).sum()), c, xs)"""

# name -> (source, argument specs, platforms, [argument shapes to call with, per call])
# A spec is "dtype[dims]" (dims may be symbolic); a dict/tuple of specs gives a pytree.
CASES = {
    "mlp": (MLP, [{"w1": "f32[4,8]", "b1": "f32[8]", "w2": "f32[8,3]"}, "f32[5,4]"], None,
            [[{"w1": (4, 8), "b1": (8,), "w2": (8, 3)}, (5, 4)]]),
    "mlp_symbolic_batch": (MLP, [{"w1": "f32[4,8]", "b1": "f32[8]", "w2": "f32[8,3]"},
                                 "f32[b,4]"], None,
                           [[{"w1": (4, 8), "b1": (8,), "w2": (8, 3)}, (n, 4)] for n in (1, 6)]),
    "scan": (SCAN, ["f32[3]", "f32[7,3]"], None, [[(3,), (7, 3)]]),
    "scan_symbolic_length": (SCAN, ["f32[3]", "f32[t,3]"], None, [[(3,), (2, 3)], [(3,), (9, 3)]]),
    "two_platforms": ("lambda x: jnp.sin(x) @ W + jnp.cos(x).sum()", ["f32[b,4]"],
                      ("cpu", "cuda"), [[(2, 4)], [(5, 4)]]),
    "divisible_dims": ("lambda x: x.reshape((-1, 2)).sum(axis=1) * 2.0", ["f32[2*k,3]"], None,
                       [[(4, 3)], [(10, 3)]]),
    "integer_and_float": ("lambda i, x: (x * i.astype(jnp.float32), i * 2)",
                          ["i32[b]", "f32[b]"], None, [[(3,), (3,)]]),
}


def parse_spec(spec, scope):
    if isinstance(spec, dict):
        return {k: parse_spec(v, scope) for k, v in spec.items()}
    dtype, dims = spec[:-1].split("[")
    shape = export.symbolic_shape(dims, scope=scope) if dims else ()
    return jax.ShapeDtypeStruct(shape, {"f32": jnp.float32, "i32": jnp.int32}[dtype])


def make_args(shapes, specs, rng):
    if isinstance(shapes, dict):
        return {k: make_args(shapes[k], specs[k], rng) for k in shapes}
    x = rng.standard_normal(shapes).astype(np.float32)
    return (x * 3).astype(np.int32) if specs.startswith("i32") else x


def to_json(tree):
    return jax.tree_util.tree_map(lambda a: {"dtype": str(np.asarray(a).dtype),
                                             "shape": list(np.shape(a)),
                                             "data": np.asarray(a).ravel().tolist()}, tree)


def record_case(name, src, specs, platforms, calls, rng):
    fun = eval(src, {"jnp": jnp, "lax": lax, "W": W})
    scope = export.SymbolicScope()
    exp = export.export(jax.jit(fun), platforms=platforms)(*[parse_spec(s, scope) for s in specs])
    blob = exp.serialize(vjp_order=1)
    with open(os.path.join(OUT, name + ".bin"), "wb") as f:
        f.write(blob)
    back = export.deserialize(blob)
    runs = []
    for shapes in calls:
        args = [make_args(s, sp, rng) for s, sp in zip(shapes, specs)]
        out = back.call(*args)

        def loss(*xs):
            return sum(jnp.sum(o) for o in jax.tree_util.tree_leaves(back.call(*xs))
                       if jnp.issubdtype(o.dtype, jnp.floating))
        float_args = [i for i, s in enumerate(specs) if not str(s).startswith("i32")]
        grads = jax.grad(loss, argnums=float_args)(*args)
        runs.append({"args": to_json(args), "out": to_json(out), "grad_argnums": float_args,
                     "grads": to_json(list(grads))})
    return {"src": src, "specs": specs, "platforms": list(exp.platforms), "runs": runs}


# name -> (source, argument specs, mesh (axis sizes, names, types), in specs, out specs)
SHARDED = {
    "sharded": ("lambda x: jnp.sin(x) * 2.0", ["f32[16,4]"], ((8,), ("x",), "Explicit"),
                [("x",)], [("x",)]),
    "sharded_matmul_2d": ("lambda x, w: jnp.tanh(x @ w)", ["f32[8,6]", "f32[6,4]"],
                          ((2, 4), ("a", "b"), "Auto"), [("a", None), (None, "b")],
                          [("a", "b")]),
    "sharded_two_outputs": ("lambda x: (x.sum(axis=0), jnp.cos(x) * x)", ["f32[8,4]"],
                            ((4, 2), ("x", "y"), "Explicit"), [("x", "y")], [("y",), ("x", "y")]),
}


def sharded_mesh(sizes, names, types):
    return jax.make_mesh(sizes, names, axis_types=(getattr(jax.sharding.AxisType, types),)
                         * len(names))


def record_sharded(name, src, specs, mesh_axes, in_specs, out_specs, rng):
    """A function jitted with shardings over 8 devices: its blob (with its VJP) and JAX's
    results, gradients and output layouts, called on arguments laid out as exported."""
    fun = eval(src, {"jnp": jnp, "lax": lax, "W": W})
    mesh = sharded_mesh(*mesh_axes)
    ins = tuple(NamedSharding(mesh, P(*p)) for p in in_specs)
    outs = tuple(NamedSharding(mesh, P(*p)) for p in out_specs)
    f = jax.jit(fun, in_shardings=ins, out_shardings=outs if len(outs) > 1 else outs[0])
    exp = export.export(f)(*[parse_spec(s, None) for s in specs])
    blob = exp.serialize(vjp_order=1)
    with open(os.path.join(OUT, name + ".bin"), "wb") as fh:
        fh.write(blob)
    back = export.deserialize(blob)
    arg_shapes = [tuple(a.shape) for a in exp.in_avals]
    args = [rng.standard_normal(s).astype(np.float32) for s in arg_shapes]
    placed = [jax.device_put(a, s) for a, s in zip(args, back.in_shardings_jax(mesh))]

    def loss(*xs):
        return sum(jnp.sum(o) for o in jax.tree_util.tree_leaves(back.call(*xs)))
    with jax.set_mesh(mesh):  # (a scalar loss of Explicit-sharded values needs the mesh)
        out = back.call(*placed)
        grads = jax.grad(loss, argnums=tuple(range(len(args))))(*placed)
        jitted = jax.jit(lambda *xs: jax.tree_util.tree_map(lambda o: o * 2.0,
                                                            back.call(*xs)))(*placed)
    return {"src": src, "specs": specs, "nr_devices": exp.nr_devices,
            "mesh": [list(mesh_axes[0]), list(mesh_axes[1]), mesh_axes[2]],
            "in_specs": [list(p) for p in in_specs], "out_specs": [list(p) for p in out_specs],
            # (all None on the Exported export() returns, as JAX 0.10.2 has it; the HloShardings
            # on a deserialized one)
            "exported_in_shardings_hlo": [str(s) for s in exp.in_shardings_hlo],
            "in_shardings_hlo": [str(s) for s in back.in_shardings_hlo],
            "out_shardings_hlo": [str(s) for s in back.out_shardings_hlo],
            "in_avals": [str(a) for a in back.in_avals],
            "out_avals": [str(a) for a in back.out_avals],
            "vjp_in_shardings_hlo": [str(s) for s in back.vjp().in_shardings_hlo],
            "vjp_out_shardings_hlo": [str(s) for s in back.vjp().out_shardings_hlo],
            "out_layouts": [repr(o.sharding.spec) for o in jax.tree_util.tree_leaves(out)],
            "runs": [{"args": to_json(args), "out": to_json(out), "grads": to_json(list(grads)),
                      "jit_out": to_json(jitted)}]}


def shard_map_body(a):
    """The body of the shard_map case (test_export_blobs.py exports the same with pyjax)."""
    return jax.lax.psum(jnp.sin(a), "x") * jax.lax.axis_index("y")


def record_shard_map(rng):
    """A jit of a shard_map over a (4, 2) mesh: exported for its 8 devices, shardings
    unspecified; JAX's results and gradients on arguments laid out over the mesh."""
    mesh = sharded_mesh((4, 2), ("x", "y"), "Auto")
    f = jax.jit(jax.shard_map(shard_map_body, mesh=mesh, in_specs=P("x", "y"),
                              out_specs=P(None, "y")))
    exp = export.export(f)(jax.ShapeDtypeStruct((8, 4), jnp.float32))
    with open(os.path.join(OUT, "sharded_shard_map.bin"), "wb") as fh:
        fh.write(exp.serialize(vjp_order=1))
    back = export.deserialize(exp.serialize(vjp_order=1))
    x = rng.standard_normal((8, 4)).astype(np.float32)
    xs = jax.device_put(x, NamedSharding(mesh, P("x", "y")))
    grads = jax.grad(lambda a: back.call(a).sum())(xs)
    return {"kind": "shard_map", "mesh": [[4, 2], ["x", "y"], "Auto"],
            "nr_devices": exp.nr_devices,
            "runs": [{"args": to_json([x]), "out": to_json(back.call(xs)),
                      "grads": to_json([grads])}]}


KEY_SRC = "lambda k: (k, jax.random.normal(k, (3,)), jax.random.split(k, 2))"


def record_keys():
    """Functions of PRNG keys (typed keys: arrays of a key dtype in the blob), per implementation:
    the key data and normals JAX's call returns for key(42)."""
    out = {}
    for impl in ("threefry2x32", "rbg", "unsafe_rbg"):
        key = jax.random.key(42, impl=impl)
        exp = export.export(jax.jit(eval(KEY_SRC, {"jax": jax})))(key)
        with open(os.path.join(OUT, f"prng_key_{impl}.bin"), "wb") as fh:
            fh.write(exp.serialize())
        k, normals, keys = export.deserialize(exp.serialize()).call(key)
        out[f"prng_key_{impl}"] = {
            "kind": "prng_key", "impl": impl, "seed": 42, "src": KEY_SRC,
            "out": {"key_data": to_json(jax.random.key_data(k)), "normals": to_json(normals),
                    "split_data": to_json(jax.random.key_data(keys))}}
    return out


@dataclasses.dataclass(frozen=True)
class OrderedForExport(effects.Effect):
    """An ordered effect with a nullary constructor (JAX serializes only such effects)."""


effects.lowerable_effects.add_type(OrderedForExport)
effects.ordered_effects.add_type(OrderedForExport)
# x -> 3 * x, threading the effect's token through unchanged
triple_with_effect_p = core.Primitive("triple_with_effect")
triple_with_effect_p.def_effectful_abstract_eval(lambda a: (a, {OrderedForExport()}))


def _triple_lowering(ctx, x):
    token = ctx.tokens_in.get(OrderedForExport())
    ctx.set_tokens_out(mlir.TokenSet({OrderedForExport(): token}))
    return [mlir.hlo.add(mlir.hlo.add(x, x), x)]


mlir.register_lowering(triple_with_effect_p, _triple_lowering)


def record_ordered_effect(rng):
    """A module with an ordered effect: `main` takes and returns its token."""
    f = jax.jit(lambda x: triple_with_effect_p.bind(x) + 1.0)
    exp = export.export(f)(jax.ShapeDtypeStruct((3,), jnp.float32))
    with open(os.path.join(OUT, "ordered_effect.bin"), "wb") as fh:
        fh.write(exp.serialize())
    x = rng.standard_normal((3,)).astype(np.float32)
    out = export.deserialize(exp.serialize()).call(x)
    return {"ordered_effects": [str(e) for e in exp.ordered_effects],
            "effect_type_name": str(OrderedForExport),
            "runs": [{"args": to_json([x]), "out": to_json(out)}]}


def main():
    os.makedirs(OUT, exist_ok=True)
    rng = np.random.default_rng(0)
    cases = {name: record_case(name, *case, rng) for name, case in CASES.items()}
    cases["ordered_effect"] = record_ordered_effect(rng)
    cases.update(record_keys())
    if jax.device_count() >= 8:
        for name, case in SHARDED.items():
            cases[name] = record_sharded(name, *case, rng)
        cases["sharded_shard_map"] = record_shard_map(rng)
    with open(os.path.join(HERE, "export_blobs.json"), "w") as f:
        json.dump({"jax_version": jax.__version__, "cases": cases}, f, indent=1)
        f.write("\n")


if __name__ == "__main__":
    main()
