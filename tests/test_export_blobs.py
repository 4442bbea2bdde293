"""Exported artifacts cross between JAX 0.10.2 and pyjax, both ways.

- Blobs serialized by JAX 0.10.2 (tests/data/export_blobs/, recorded with their arguments, JAX's
  results and gradients by tests/data/record_export_blobs.py) deserialize on pyjax and run with
  the same results: eagerly, under jit, and differentiated through their serialized VJP.
- Blobs pyjax serializes are JAX's format: decoded with the schema (pyjax's flatbuffer reader),
  they carry the same fields as JAX's blob for the same function.
- JAX's modules' shape assertions are checked when pyjax runs them; pyjax's modules carry them.
- Blobs of pyjax's former PYJAXEXP format stay readable.
- Optional: with PYJAX_JAX_PYTHON naming a python with JAX 0.10.2 (and flatbuffers), JAX
  deserializes and runs pyjax's blobs (tests/data/check_blobs_on_jax.py).
"""
import collections
import json
import os
import re
import subprocess
import sys
import textwrap

import numpy as np
import pytest

pytest.importorskip("flatbuffers")

import pyjax as jax  # noqa: E402
import pyjax.numpy as jnp  # noqa: E402
from pyjax import export, lax  # noqa: E402
from pyjax._src import core  # noqa: E402
from pyjax._src.export import flatbuf  # noqa: E402

HERE = os.path.join(os.path.dirname(__file__), "data")
DATA = json.load(open(os.path.join(HERE, "export_blobs.json")))["cases"]
W = np.linspace(-1, 1, 12, dtype=np.float32).reshape(4, 3)
# the functions exported from jnp/lax sources (pyjax exports them too)
SINGLE_DEVICE = sorted(n for n, c in DATA.items()
                       if "src" in c and "nr_devices" not in c and "kind" not in c)


def blob(name):
    with open(os.path.join(HERE, "export_blobs", name + ".bin"), "rb") as f:
        return f.read()


def arrays(tree):
    if isinstance(tree, dict) and set(tree) == {"dtype", "shape", "data"}:
        return np.asarray(tree["data"], tree["dtype"]).reshape(tree["shape"])
    if isinstance(tree, dict):
        return {k: arrays(v) for k, v in tree.items()}
    if isinstance(tree, list):
        return [arrays(v) for v in tree]
    return tree


def assert_trees_close(got, want, rtol=2e-5, atol=2e-6):
    got_leaves, want_leaves = jax.tree_util.tree_leaves(got), jax.tree_util.tree_leaves(want)
    assert len(got_leaves) == len(want_leaves)
    for g, w in zip(got_leaves, want_leaves):
        assert np.shape(g) == np.shape(w)
        np.testing.assert_allclose(np.asarray(g), w, rtol=rtol, atol=atol)


def spec(s, scope):
    if isinstance(s, dict):
        return {k: spec(v, scope) for k, v in s.items()}
    dtype, dims = s[:-1].split("[")
    return jax.ShapeDtypeStruct(export.symbolic_shape(dims, scope=scope) if dims else (),
                                {"f32": jnp.float32, "i32": jnp.int32}[dtype])


def export_with_pyjax(name):
    case = DATA[name]
    fun = eval(case["src"], {"jnp": jnp, "lax": lax, "W": W})
    scope = export.SymbolicScope()
    return fun, export.export(jax.jit(fun), platforms=case["platforms"])(
        *[spec(s, scope) for s in case["specs"]])


def loss_of(call):
    def loss(*xs):
        return sum(jnp.sum(o) for o in jax.tree_util.tree_leaves(call(*xs))
                   if jnp.issubdtype(o.dtype, jnp.floating))
    return loss


# -- JAX's blobs on pyjax -------------------------------------------------------------------------


@pytest.mark.parametrize("name", SINGLE_DEVICE)
def test_jax_blob_runs_on_pyjax(name):
    exp = export.deserialize(blob(name))
    assert list(exp.platforms) == DATA[name]["platforms"]
    for run in DATA[name]["runs"]:
        args = arrays(run["args"])
        assert_trees_close(exp.call(*args), arrays(run["out"]))
        assert_trees_close(jax.jit(exp.call)(*args), arrays(run["out"]))
        grads = jax.grad(loss_of(exp.call), argnums=run["grad_argnums"])(*args)
        assert_trees_close(list(grads), arrays(run["grads"]), rtol=1e-4, atol=1e-5)


def test_jax_blob_vjp_and_signature():
    exp = export.deserialize(blob("mlp_symbolic_batch"))
    assert str(exp.in_tree) == "PyTreeDef((({'b1': *, 'w1': *, 'w2': *}, *), {}))"
    assert [str(a) for a in exp.in_avals] == ["float32[8]", "float32[4,8]", "float32[8,3]",
                                             "float32[b,4]"]
    assert exp.calling_convention_version == 10 and exp.uses_global_constants
    vjp = exp.vjp()
    assert vjp.fun_name == "fun_vjp_jax"
    assert [str(a) for a in vjp.in_avals] == [*map(str, exp.in_avals), "float32[b,3]"]
    assert not vjp.has_vjp()


def test_vjp_signature_shows_float0_as_jax():
    # the cotangents of integer values are float0 (bool in the module), in JAX's blob and in
    # pyjax's export of the same function (JAX 0.10.2 prints these)
    want = (["int32[b]", "float32[b]", "float32[b]", "float0[b]"], ["float0[b]", "float32[b]"])
    for exp in (export.deserialize(blob("integer_and_float")),
                export_with_pyjax("integer_and_float")[1]):
        vjp = exp.vjp()
        assert ([str(a) for a in vjp.in_avals], [str(a) for a in vjp.out_avals]) == want


KEYS = sorted(n for n, c in DATA.items() if c.get("kind") == "prng_key")


@pytest.mark.parametrize("name", KEYS)
def test_prng_keys_cross_as_key_dtypes(name, tmp_path):
    # JAX's blob (typed keys are arrays of a key dtype there) runs on pyjax, whose keys are
    # nodes around their data; pyjax's blob of the same function has JAX's fields
    case = DATA[name]
    key = jax.random.key(case["seed"], impl=case["impl"])
    fun = eval(case["src"], {"jax": jax})
    ours = export.export(jax.jit(fun))(key)
    for exp in (export.deserialize(blob(name)), export.deserialize(ours.serialize()), ours):
        k, normals, keys = exp.call(key)
        np.testing.assert_array_equal(jax.random.key_data(k), arrays(case["out"]["key_data"]))
        np.testing.assert_allclose(normals, arrays(case["out"]["normals"]), rtol=1e-6)
        np.testing.assert_array_equal(jax.random.key_data(keys),
                                      arrays(case["out"]["split_data"]))
    _compare(flatbuf.decode(ours.serialize()), flatbuf.decode(blob(name)), name)


def test_jax_blob_shape_assertions_are_checked():
    # divisible_dims was exported for x: f32[2*k, 3]; an odd size is refused (in Python, and by
    # the module's own shape_assertion when the Python check is skipped)
    exp = export.deserialize(blob("divisible_dims"))
    with pytest.raises(ValueError, match="Division had remainder 1 when computing the value of 'k'"):
        exp.call(np.ones((5, 3), np.float32))
    assert "@shape_assertion" in exp.mlir_module()


def test_jax_blob_for_two_platforms_takes_the_platform_index():
    exp = export.deserialize(blob("two_platforms"))
    assert exp.platforms == ("cpu", "cuda")
    assert 'jax.global_constant = "_platform_index"' in exp.mlir_module()
    x = arrays(DATA["two_platforms"]["runs"][0]["args"])[0]
    inner = jax.jit(lambda x: exp.call(x) * 2.0)
    np.testing.assert_allclose(inner(x), 2 * arrays(DATA["two_platforms"]["runs"][0]["out"]),
                               rtol=2e-5)


SHARDED = sorted(n for n, c in DATA.items() if "in_specs" in c)

# Runs in a fresh interpreter with 8 CPU devices. For each sharded case of argv[1] (JSON: name
# -> [JAX's blob, case]): JAX's blob and the blob pyjax exports for the same function (written
# to the directory argv[2]) are called on arguments laid out as `in_shardings_jax(mesh)` says,
# eagerly, differentiated and under jit; prints the results and what the Exporteds say.
SHARDED_SCRIPT = textwrap.dedent('''
    import json, os, sys
    import numpy as np
    import pyjax; pyjax.as_jax()  # (as JAX programs run: jaxlib then makes pyjax's objects)
    import pyjax as jax
    import pyjax.numpy as jnp
    from pyjax import export, lax
    from pyjax.sharding import NamedSharding, PartitionSpec as P

    def leaves(t):
        return [np.asarray(x).tolist() for x in jax.tree_util.tree_leaves(t)]

    def run(exp, mesh, args):
        placed = [jax.device_put(a, s) for a, s in zip(args, exp.in_shardings_jax(mesh))]

        def loss(*xs):
            return sum(jnp.sum(o) for o in jax.tree_util.tree_leaves(exp.call(*xs)))
        with jax.set_mesh(mesh):
            res = exp.call(*placed)
            grads = jax.grad(loss, argnums=tuple(range(len(placed))))(*placed)
            jitted = jax.jit(lambda *xs: jax.tree_util.tree_map(lambda o: o * 2.0,
                                                                exp.call(*xs)))(*placed)
        errors = []
        four = NamedSharding(jax.make_mesh((4,), ("z",), devices=jax.devices()[:4]), P())
        for call in [lambda: exp.call(*args),
                     lambda: exp.call(*[jax.device_put(a, four) for a in args])]:
            try:
                call()
                errors.append(None)
            except ValueError as e:
                errors.append(str(e))
        return {
            "out": leaves(res), "grads": leaves(grads), "jit_out": leaves(jitted),
            "out_layouts": [repr(o.sharding.spec) for o in jax.tree_util.tree_leaves(res)],
            "shards": [[s.device.id for s in o.addressable_shards]
                       for o in jax.tree_util.tree_leaves(res)],
            "in_shardings_hlo": [str(s) for s in exp.in_shardings_hlo],
            "out_shardings_hlo": [str(s) for s in exp.out_shardings_hlo],
            "vjp_in_shardings_hlo": [str(s) for s in exp.vjp().in_shardings_hlo],
            "vjp_out_shardings_hlo": [str(s) for s in exp.vjp().out_shardings_hlo],
            "in_avals": [str(a) for a in exp.in_avals],
            "out_avals": [str(a) for a in exp.out_avals],
            "errors": errors}

    out = {}
    for name, (path, case) in json.loads(sys.argv[1]).items():
        sizes, names, types = case["mesh"]
        mesh = jax.make_mesh(tuple(sizes), tuple(names),
                             axis_types=(getattr(jax.sharding.AxisType, types),) * len(names))
        args = [np.asarray(a, np.float32) for a in case["args"]]
        with open(path, "rb") as f:
            out[name] = run(export.deserialize(f.read()), mesh, args)
        # the same function exported by pyjax
        ins = tuple(NamedSharding(mesh, P(*p)) for p in case["in_specs"])
        outs = tuple(NamedSharding(mesh, P(*p)) for p in case["out_specs"])
        f = jax.jit(eval(case["src"], {"jnp": jnp, "lax": lax}), in_shardings=ins,
                    out_shardings=outs if len(outs) > 1 else outs[0])
        exp = export.export(f)(*[jax.ShapeDtypeStruct(a.shape, a.dtype) for a in args])
        blob = exp.serialize(vjp_order=1)
        with open(os.path.join(sys.argv[2], name + ".bin"), "wb") as f:
            f.write(blob)
        out[name + ":pyjax"] = run(export.deserialize(blob), mesh, args)
        out[name + ":pyjax"]["exported"] = {
            "nr_devices": exp.nr_devices, "in_avals": [str(a) for a in exp.in_avals],
            "in_shardings_hlo": [str(s) for s in exp.in_shardings_hlo],
            "in_shardings_jax": [repr(s) for s in exp.in_shardings_jax(mesh)]}
    # an argument whose in_sharding is None (unspecified), as JAX's export_test has it
    mesh = jax.make_mesh((8,), ("x",), axis_types=(jax.sharding.AxisType.Auto,))
    spec = jax.ShapeDtypeStruct((16, 4), np.float32)
    exp = export.export(jax.jit(lambda x, y: jnp.sin(x) * y,
                                in_shardings=(NamedSharding(mesh, P("x")), None)))(spec, spec)
    # a shard_map over a (4, 2) mesh: JAX's blob, and pyjax's export of the same function
    # (record_export_blobs.py's shard_map_body), on arguments laid out over the mesh
    mesh42 = jax.make_mesh((4, 2), ("x", "y"), axis_types=(jax.sharding.AxisType.Auto,) * 2)

    def shard_map_body(a):
        return jax.lax.psum(jnp.sin(a), "x") * jax.lax.axis_index("y")
    h = jax.jit(jax.shard_map(shard_map_body, mesh=mesh42, in_specs=P("x", "y"),
                              out_specs=P(None, "y")))
    ours = export.export(h)(jax.ShapeDtypeStruct((8, 4), np.float32)).serialize(vjp_order=1)
    with open(os.path.join(sys.argv[2], "sharded_shard_map.bin"), "wb") as fh:
        fh.write(ours)
    xsm = np.asarray(json.loads(sys.argv[3]), np.float32)
    placed = jax.device_put(xsm, NamedSharding(mesh42, P("x", "y")))
    runs = []
    for blob in (open(os.path.join(os.path.dirname(json.loads(sys.argv[1])["sharded"][0]),
                                   "sharded_shard_map.bin"), "rb").read(), ours):
        e = export.deserialize(blob)
        with jax.set_mesh(mesh42):
            on_mesh = e.call(xsm)  # (NumPy arguments: over the mesh in context)
        runs.append([np.asarray(e.call(placed)).tolist(), np.asarray(on_mesh).tolist(),
                     np.asarray(jax.grad(lambda a: e.call(a).sum())(placed)).tolist(),
                     e.nr_devices])
    out["shard_map_blobs"] = runs
    out["unspecified"] = {"in": [repr(s) for s in exp.in_shardings_jax(mesh)],
                          "module": exp.mlir_module(), "vjp_module": exp.vjp().mlir_module()}
    # a shard_map inside: the module is for the mesh's 8 devices, its shardings unspecified
    h = jax.jit(jax.shard_map(lambda a: jax.lax.psum(a, "x"), mesh=mesh, in_specs=P("x"),
                              out_specs=P()))
    exp = export.deserialize(export.export(h)(jax.ShapeDtypeStruct((8, 2), np.float32))
                             .serialize())
    x = jax.device_put(np.arange(16, dtype=np.float32).reshape(8, 2), NamedSharding(mesh, P("x")))
    # over an AbstractMesh (as JAX's export_test): for its 2 devices, called on a concrete mesh
    two = jax.sharding.AbstractMesh((2,), ("x",))
    f = jax.jit(lambda a: jax.lax.with_sharding_constraint(a @ a.T, NamedSharding(two, P(None, "x"))))
    exp_abs = export.deserialize(export.export(f)(jax.ShapeDtypeStruct(
        (16, 16), np.float32, sharding=NamedSharding(two, P("x", None)))).serialize())
    run_mesh = jax.sharding.Mesh(jax.devices()[:2], ("x",))
    a = jax.device_put(np.arange(256, dtype=np.float32).reshape(16, 16) / 256,
                       NamedSharding(run_mesh, P("x", None)))
    res = exp_abs.call(a)
    # for several platforms, with shardings
    g = jax.jit(lambda b: b * 2.0, in_shardings=NamedSharding(run_mesh, P("x", None)),
                out_shardings=NamedSharding(run_mesh, P(None, "x")))
    exp_two = export.deserialize(export.export(g, platforms=("cpu", "cuda"))(
        jax.ShapeDtypeStruct((16, 4), np.float32)).serialize())
    b = np.arange(64, dtype=np.float32).reshape(16, 4)
    # JAX's sharded blob called under jit on a mesh of other axis names: its results are typed
    # over the exported mesh's axes, laid out over the caller's devices
    with open(os.path.join(os.path.dirname(json.loads(sys.argv[1])["sharded"][0]),
                           "sharded.bin"), "rb") as fh:
        exp_x = export.deserialize(fh.read())
    ys = jax.device_put(np.ones((16, 4), np.float32),
                        NamedSharding(jax.make_mesh((8,), ("y",)), P("y")))
    res_y = jax.jit(lambda a: exp_x.call(a) + 1.0)(ys)
    out["other_mesh"] = [repr(res_y.sharding), float(res_y.sum())]
    out["other_mesh_eager"] = repr(exp_x.call(ys).sharding)
    # exported again inside a function exported over an AbstractMesh of its 8 devices
    am = jax.sharding.AbstractMesh((8,), ("x",), axis_types=(jax.sharding.AxisType.Explicit,))
    outer = export.deserialize(export.export(jax.jit(lambda a: exp_x.call(a) * 3))(
        jax.ShapeDtypeStruct((16, 4), np.float32, sharding=NamedSharding(am, P("x"))))
        .serialize())
    xs8 = jax.device_put(np.ones((16, 4), np.float32),
                         NamedSharding(jax.make_mesh((8,), ("x",)), P("x")))
    out["nested"] = [outer.nr_devices, float(outer.call(xs8).sum())]
    # NumPy arguments under set_mesh: the call runs over the mesh in context (eagerly and in jit)
    with jax.set_mesh(jax.make_mesh((8,), ("x",))):
        out["set_mesh"] = [[repr(r.sharding), float(r.sum())] for r in (
            exp_x.call(np.ones((16, 4), np.float32)),
            jax.jit(exp_x.call)(np.ones((16, 4), np.float32)))]
    # two meshes over the same 2 devices (as JAX's export_test has them)
    m12 = jax.sharding.Mesh(np.array(jax.devices()[:2]).reshape(1, 2), ("x1", "x2"))
    m21 = jax.sharding.Mesh(np.array(jax.devices()[:2]).reshape(2, 1), ("y2", "y1"))
    shs = (NamedSharding(m12, P(None, "x2")), NamedSharding(m21, P("y2", None)))
    k = jax.jit(lambda i, w: i @ w, in_shardings=shs, out_shardings=NamedSharding(m12, P()))
    exp_two_meshes = export.deserialize(export.export(k)(
        jax.ShapeDtypeStruct((4, 8), np.float32), jax.ShapeDtypeStruct((8, 2), np.float32))
        .serialize())
    i, w = np.ones((4, 8), np.float32), np.ones((8, 2), np.float32)
    out["two_meshes"] = np.asarray(exp_two_meshes.call(*jax.device_put((i, w), shs))).tolist()
    out["abstract_mesh"] = {
        "nr_devices": [exp_abs.nr_devices, exp_two.nr_devices],
        "close": [bool(np.allclose(np.asarray(res), np.asarray(a) @ np.asarray(a).T, rtol=1e-5)),
                  bool(np.array_equal(np.asarray(exp_two.call(jax.device_put(
                      b, NamedSharding(run_mesh, P())))), 2 * b))],
        "indices": [[repr(i) for i in s.index] for s in res.addressable_shards]}
    out["shard_map"] = {"nr_devices": exp.nr_devices,
                        "shardings": [repr(s) for s in exp.in_shardings_jax(mesh)
                                      + exp.out_shardings_jax(mesh)],
                        "out": np.asarray(exp.call(x)).tolist()}
    print(json.dumps(out))
''')


def run_with_8_devices(script, *args):
    env = dict(os.environ, XLA_FLAGS="--xla_force_host_platform_device_count=8",
               JAX_PLATFORMS="cpu")
    res = subprocess.run([sys.executable, "-c", script, *args], capture_output=True, text=True,
                         env=env, timeout=600)
    assert res.returncode == 0, res.stderr[-3000:]
    return json.loads(res.stdout.strip().splitlines()[-1])


@pytest.fixture(scope="module")
def sharded_blobs_dir(tmp_path_factory):
    return tmp_path_factory.mktemp("sharded_blobs")


@pytest.fixture(scope="module")
def sharded_runs(sharded_blobs_dir):
    given = {name: (os.path.join(HERE, "export_blobs", name + ".bin"),
                    {**{k: DATA[name][k] for k in ("mesh", "src", "in_specs", "out_specs")},
                     "args": [a.tolist() for a in arrays(DATA[name]["runs"][0]["args"])]})
             for name in SHARDED}
    x = arrays(DATA["sharded_shard_map"]["runs"][0]["args"])[0]
    return run_with_8_devices(SHARDED_SCRIPT, json.dumps(given), str(sharded_blobs_dir),
                              json.dumps(x.tolist()))


def test_jax_blob_sharded_deserializes():
    d = flatbuf.decode(blob("sharded"))
    assert d["nr_devices"] == 8
    s = d["in_shardings"][0]
    assert s["mesh"]["axis_sizes"] == [8] and s["mesh"]["axis_names"] == ["x"]
    assert s["spec"] == ("x",)
    exp = export.deserialize(blob("sharded"))
    assert exp.nr_devices == 8 and [str(a) for a in exp.in_avals] == ["float32[16@x,4]"]
    # re-serialized by pyjax, the shardings are the same
    again = flatbuf.decode(exp.serialize(vjp_order=1))
    assert again["in_shardings"] == d["in_shardings"]
    assert again["vjp"]["out_shardings"] == d["vjp"]["out_shardings"]


@pytest.mark.parametrize("blob_of", ["jax", "pyjax"])
@pytest.mark.parametrize("name", SHARDED)
def test_sharded_blob_over_8_devices_runs(sharded_runs, name, blob_of):
    # JAX's blob, and pyjax's for the same function: eagerly, differentiated through the VJP
    # and under jit, on arguments laid out as exported
    got, want = sharded_runs[name if blob_of == "jax" else name + ":pyjax"], DATA[name]
    run = want["runs"][0]
    def close(got_lists, want, **tol):
        assert_trees_close([np.asarray(g, np.float32) for g in got_lists],
                           jax.tree_util.tree_leaves(want), **tol)
    close(got["out"], arrays(run["out"]))
    close(got["grads"], arrays(run["grads"]), rtol=1e-4, atol=1e-5)
    close(got["jit_out"], arrays(run["jit_out"]))
    assert got["out_layouts"] == want["out_layouts"]
    assert [len(s) for s in got["shards"]] == [8] * len(got["out_layouts"])
    for field in ("in_shardings_hlo", "out_shardings_hlo", "vjp_in_shardings_hlo",
                  "vjp_out_shardings_hlo", "in_avals", "out_avals"):
        assert got[field] == want[field], field
    # JAX's errors: a call on one device, or over 4 devices
    assert "exported for 8 devices and is called in a context with 1 devices" in got["errors"][0]
    assert "exported for 8 devices and is called in a context with 4 devices" in got["errors"][1]


def test_unspecified_in_sharding_stays_unspecified(sharded_runs):
    # jit(in_shardings=(s, None)): the second argument's sharding is None, and the module's
    # main (and its VJP's, primal and cotangent arguments alike) has no annotation on it
    got = sharded_runs["unspecified"]
    assert got["in"] == ["NamedSharding(mesh=Mesh('x': 8, axis_types=(Auto,)), spec=P('x',), "
                         "memory_kind=device)", "None"]
    main = re.search(r"func.func public @main\((.*)\) -> \((.*)\) \{", got["module"])
    arg0, arg1 = main.group(1).split(", %arg1")
    assert "sdy.sharding" in arg0 and "sdy.sharding" not in arg1
    assert 'jax.result_info = "result"' in main.group(2)
    vjp_args = re.search(r"func.func public @main\((.*)\) ->", got["vjp_module"]).group(1)
    assert [("sdy.sharding" in a) for a in vjp_args.split("%arg")[1:]] == [True, False, False]


def test_abstract_mesh_and_several_platforms_with_shardings(sharded_runs):
    # as JAX's export_test has them: exported over AbstractMesh((2,), "x") (2 devices), the
    # result laid out P(None, "x") on the concrete mesh; for ("cpu", "cuda") with shardings
    got = sharded_runs["abstract_mesh"]
    assert got["nr_devices"] == [2, 2] and got["close"] == [True, True]
    assert got["indices"] == [["slice(None, None, None)", "slice(0, 8, None)"],
                              ["slice(None, None, None)", "slice(8, 16, None)"]]


def test_sharded_blob_under_jit_on_a_mesh_of_other_axes(sharded_runs):
    # (JAX 0.10.2 lays the result out over Mesh('x': 8), the exported mesh's axes)
    x8 = "NamedSharding(mesh=Mesh('x': 8, axis_types=(Explicit,)), spec=P('x', None), memory_kind=device)"
    layout, total = sharded_runs["other_mesh"]
    assert layout == x8 and sharded_runs["other_mesh_eager"] == x8
    np.testing.assert_allclose(total, 64 + 2 * np.sin(1.0) * 64, rtol=1e-6)
    # (JAX 0.10.2 runs the call over the mesh in context, eagerly and under jit)
    for layout, total in sharded_runs["set_mesh"]:
        assert layout == x8
        np.testing.assert_allclose(total, 2 * np.sin(1.0) * 64, rtol=1e-6)


def test_sharded_blob_called_in_a_sharded_export(sharded_runs):
    nr_devices, total = sharded_runs["nested"]
    assert nr_devices == 8
    np.testing.assert_allclose(total, 3 * 2 * np.sin(1.0) * 64, rtol=1e-6)


def test_shardings_over_two_meshes_of_the_same_devices(sharded_runs):
    assert sharded_runs["two_meshes"] == [[8.0, 8.0]] * 4


def test_shard_map_blob_runs_as_jax(sharded_runs, sharded_blobs_dir):
    # JAX's blob of a jit of a shard_map (psum, axis_index) and pyjax's of the same function:
    # eagerly on arguments over the mesh, on NumPy arguments under set_mesh, and their gradient
    run = DATA["sharded_shard_map"]["runs"][0]
    want, want_grad = arrays(run["out"]), arrays(run["grads"])[0]
    for out, on_mesh, grad, nr_devices in sharded_runs["shard_map_blobs"]:
        assert nr_devices == 8
        np.testing.assert_allclose(out, want, rtol=2e-6)
        np.testing.assert_allclose(on_mesh, want, rtol=2e-6)
        np.testing.assert_allclose(grad, want_grad, rtol=1e-5, atol=1e-6)
    ours = flatbuf.decode((sharded_blobs_dir / "sharded_shard_map.bin").read_bytes())
    theirs = flatbuf.decode(blob("sharded_shard_map"))
    _compare(ours, theirs, "sharded_shard_map")
    # NB: JAX's VJP gives the output cotangent argument a replicated NamedSharding (its pjit
    # resolves the unspecified one so); pyjax's leaves it unspecified, as the primal's output
    assert ours["vjp"]["in_shardings"][0] is None and ours["vjp"]["nr_devices"] == 8


def test_shard_map_exports_for_its_mesh(sharded_runs):
    # as JAX 0.10.2 (recorded): nr_devices 8, shardings unspecified, psum over the 8 blocks
    assert sharded_runs["shard_map"] == {"nr_devices": 8, "shardings": ["None", "None"],
                                         "out": [[56.0, 64.0]]}


@pytest.mark.parametrize("name", SHARDED)
def test_pyjax_sharded_blob_has_the_fields_of_jax_blob(sharded_runs, sharded_blobs_dir, name):
    ours = flatbuf.decode((sharded_blobs_dir / (name + ".bin")).read_bytes())
    theirs = flatbuf.decode(blob(name))
    _compare(ours, theirs, name)
    _compare(ours["vjp"], theirs["vjp"], name + ".vjp")
    assert ours["in_shardings"][0]["mesh"]["device"] == {"device_kind": "cpu", "num_cores": None,
                                                         "platform": "cpu"}
    exported = sharded_runs[name + ":pyjax"]["exported"]
    assert exported["nr_devices"] == 8 and exported["in_avals"] == DATA[name]["in_avals"]
    # (as JAX 0.10.2: None on the Exported that export() returns)
    assert exported["in_shardings_hlo"] == DATA[name]["exported_in_shardings_hlo"]


def test_jax_blob_with_an_ordered_effect_threads_its_token():
    # (recorded with an effect and primitive of the recording script: x -> 3 * x, then + 1)
    case = DATA["ordered_effect"]
    exp = export.deserialize(blob("ordered_effect"))
    assert [str(e) for e in exp.ordered_effects] == [case["effect_type_name"]]
    assert "!stablehlo.token" in exp.mlir_module()
    x = arrays(case["runs"][0]["args"])[0]
    np.testing.assert_allclose(exp.call(x), arrays(case["runs"][0]["out"]), rtol=1e-6)
    np.testing.assert_allclose(jax.jit(lambda x: exp.call(x) * 2)(x),
                               2 * arrays(case["runs"][0]["out"]), rtol=1e-6)
    again = flatbuf.decode(export.deserialize(blob("ordered_effect")).serialize())
    assert again["ordered_effects"] == [case["effect_type_name"]]


class OrderedForExport(core.Effect):
    """pyjax's twin of the recording script's ordered effect: the same type name in a blob (a
    reader finds the effect's type by its name), made with no arguments, equal to any other."""

    def __init__(self):
        super().__init__("OrderedForExport()", ordered=True)

    def __eq__(self, other):
        return type(other) is OrderedForExport

    def __hash__(self):
        return hash(OrderedForExport)


OrderedForExport.__module__, OrderedForExport.__qualname__ = "__main__", "OrderedForExport"
# x -> 3 * x, threading the effect's token through unchanged (as the recording script's)
triple_with_effect_p = core.Primitive("triple_with_effect")
triple_with_effect_p.def_effectful_abstract_eval(lambda a: (a, {OrderedForExport()}))
triple_with_effect_p.def_impl(lambda x: 3 * x)


@triple_with_effect_p.def_lowering
def _triple_lowering(ctx, x):
    ctx.set_token(OrderedForExport(), ctx.token(OrderedForExport()))
    return ctx.op("stablehlo.add", ctx.op("stablehlo.add", x, x), x)


def export_ordered_effect():
    return export.export(jax.jit(lambda x: triple_with_effect_p.bind(x) + 1.0))(
        jax.ShapeDtypeStruct((3,), jnp.float32))


def test_pyjax_exports_an_ordered_effect():
    # main takes and returns the effect's token, as JAX's; the blob names the effect's type
    exp = export_ordered_effect()
    assert exp.ordered_effects == (OrderedForExport(),)
    assert re.search(r"@main\(%arg0: !stablehlo.token \{jax.token = true\}.*, %arg1: "
                     r"tensor<3xf32>.*\) -> \(!stablehlo.token \{jax.token = true\}, "
                     r"tensor<3xf32>", exp.mlir_module())
    _compare(flatbuf.decode(exp.serialize()), flatbuf.decode(blob("ordered_effect")),
             "ordered_effect")
    case = DATA["ordered_effect"]
    x, want = arrays(case["runs"][0]["args"])[0], arrays(case["runs"][0]["out"])
    for e in (exp, export.deserialize(exp.serialize())):
        np.testing.assert_allclose(e.call(x), want, rtol=1e-6)
        np.testing.assert_allclose(jax.jit(lambda x: e.call(x) * 2)(x), 2 * want, rtol=1e-6)
    two = export.export(jax.jit(lambda x: triple_with_effect_p.bind(x) + 1.0),
                        platforms=("cpu", "cuda"))(jax.ShapeDtypeStruct((3,), jnp.float32))
    assert re.search(r"@main\(%arg0: tensor<i32> \{jax.global_constant = \"_platform_index\"\}.*"
                     r", %arg1: !stablehlo.token \{jax.token = true\}", two.mlir_module())
    np.testing.assert_allclose(export.deserialize(two.serialize()).call(x), want, rtol=1e-6)


def test_effects_without_a_nullary_constructor_do_not_serialize():
    # JAX's conditions and messages (its reader makes the effect again from its type)
    class Named(core.Effect):
        def __init__(self, name):
            super().__init__(name, ordered=True)
    eff = Named("named")
    p = core.Primitive("with_named_effect")
    p.def_effectful_abstract_eval(lambda a: (a, {eff}))
    p.def_lowering(lambda ctx, x: x)
    exp = export.export(jax.jit(p.bind))(jax.ShapeDtypeStruct((3,), jnp.float32))
    with pytest.raises(NotImplementedError, match="must have a nullary constructor to be "
                                                  "serializable"):
        exp.serialize()


# -- pyjax's blobs: JAX's format ------------------------------------------------------------------

_SAME = ("fun_name", "in_tree", "out_tree", "in_avals", "out_avals", "in_shardings",
         "out_shardings", "nr_devices", "platforms", "ordered_effects", "unordered_effects",
         "disabled_checks", "calling_convention_version", "module_kept_var_idx",
         "uses_global_constants", "serialization_version")


def _compare(ours, theirs, where):
    for field in _SAME:
        assert ours[field] == theirs[field], (where, field, ours[field], theirs[field])


@pytest.mark.parametrize("name", SINGLE_DEVICE)
def test_pyjax_blob_has_the_fields_of_jax_blob(name):
    _, exp = export_with_pyjax(name)
    ours, theirs = flatbuf.decode(exp.serialize(vjp_order=1)), flatbuf.decode(blob(name))
    _compare(ours, theirs, name)
    _compare(ours["vjp"], theirs["vjp"], name + ".vjp")
    assert ours["module"][:4] == theirs["module"][:4] == b"ML\xefR"  # MLIR bytecode


@pytest.mark.parametrize("name", SINGLE_DEVICE)
def test_pyjax_blob_round_trips_and_runs(name):
    fun, exp = export_with_pyjax(name)
    back = export.deserialize(exp.serialize(vjp_order=1))
    assert [str(a) for a in back.in_avals] == [str(a) for a in exp.in_avals]
    for run in DATA[name]["runs"]:
        args = arrays(run["args"])
        assert_trees_close(back.call(*args), arrays(run["out"]))
        grads = jax.grad(loss_of(back.call), argnums=run["grad_argnums"])(*args)
        assert_trees_close(list(grads), arrays(run["grads"]), rtol=1e-4, atol=1e-5)


def test_unused_arguments_are_not_in_the_module_as_jax():
    # JAX 0.10.2: module_kept_var_idx (0, 2) and (0, 3) for the VJP; all kept with keep_unused
    # or symbolic shapes
    spec = jax.ShapeDtypeStruct((3,), jnp.float32)
    f = lambda x, y, z: jnp.sin(x) + z  # noqa: E731
    exp = export.export(jax.jit(f))(spec, spec, spec)
    assert exp.module_kept_var_idx == (0, 2) and exp.vjp().module_kept_var_idx == (0, 3)
    assert exp.mlir_module().count("tensor<3xf32> loc(unknown)") == 2  # (main's two arguments)
    assert export.export(jax.jit(f, keep_unused=True))(spec, spec, spec).module_kept_var_idx == (
        0, 1, 2)
    b, = export.symbolic_shape("b")
    sym = jax.ShapeDtypeStruct((b,), jnp.float32)
    assert export.export(jax.jit(f))(sym, sym, sym).module_kept_var_idx == (0, 1, 2)
    back = export.deserialize(exp.serialize(vjp_order=1))
    ones = np.ones(3, np.float32)
    np.testing.assert_allclose(jax.jit(back.call)(ones, ones, ones), np.sin(1.0) + 1, rtol=1e-6)
    grads = jax.grad(lambda *a: back.call(*a).sum(), argnums=(0, 1, 2))(ones, ones, ones)
    np.testing.assert_allclose(np.stack(grads), np.stack([np.cos(ones), 0 * ones, ones]),
                               rtol=1e-6)


def test_uses_global_constants_as_jax():
    # (JAX 0.10.2: True for symbolic shapes or several platforms, the module says so too)
    spec3 = jax.ShapeDtypeStruct((3,), jnp.float32)
    one = export.export(jax.jit(jnp.sin))(spec3)
    two = export.export(jax.jit(jnp.sin), platforms=("cpu", "cuda"))(spec3)
    assert not one.uses_global_constants and two.uses_global_constants
    assert "jax.uses_shape_polymorphism = false" in one.mlir_module()
    assert "jax.uses_shape_polymorphism = true" in two.mlir_module()
    np.testing.assert_allclose(export.deserialize(two.serialize()).call(np.ones(3, np.float32)),
                               np.sin(np.ones(3)), rtol=1e-6)


def test_pyjax_module_carries_shape_assertions():
    d, = export.symbolic_shape("d", constraints=["d >= 4"])
    exp = export.export(jax.jit(lambda x, y: x * 2 + y[:, 0]))(
        jax.ShapeDtypeStruct((d,), jnp.float32), jax.ShapeDtypeStruct((d, 2), jnp.float32))
    # as JAX 0.10.2's module: d >= 1, args[1].shape[0] == d, and the constraint d - 4 >= 0
    assert exp.mlir_module().count("@shape_assertion") == 3
    # JAX's message (recorded), from the Python check of the call
    constraint = re.escape(
        "Input shapes do not match the symbolic shape constraint d >= 4. Expected 'd - 4' to be "
        "greater or equal to 0, but found -1.  Using the following polymorphic shapes "
        "specifications: args[0].shape = (d,),args[1].shape = (d, 2). Obtained dimension "
        "variables: 'd' = 3 from specification 'd' for dimension args[0].shape[0] (= 3), . "
        "Please see https://docs.jax.dev/en/latest/export/shape_poly.html#shape-assertion-errors "
        "for more details.")
    with pytest.raises(ValueError, match=constraint):
        exp.call(np.ones(3, np.float32), np.ones((3, 2), np.float32))
    # JAX's format does not carry the constraints (as in JAX): the module's assertion refuses
    back = export.deserialize(exp.serialize())
    np.testing.assert_allclose(back.call(np.ones(5, np.float32), np.ones((5, 2), np.float32)), 3.0)
    with pytest.raises(ValueError, match=constraint):
        back.call(np.ones(3, np.float32), np.ones((3, 2), np.float32))


def test_serialize_errors_as_jax():
    exp = export.export(jax.jit(lambda x: x * 2))(jax.ShapeDtypeStruct((3,), jnp.float32))
    no_vjp = export.deserialize(exp.serialize())
    with pytest.raises(ValueError, match="vjps of high-enough order"):
        no_vjp.serialize(vjp_order=1)
    int_keys = export.export(jax.jit(lambda d: d[1] * 2))({1: jax.ShapeDtypeStruct((3,), jnp.float32)})
    with pytest.raises(TypeError, match="only for dictionaries with string keys"):
        int_keys.serialize()
    with pytest.raises(ValueError, match="not a serialized Exported"):
        export.deserialize(b"\x04\x00\x00\x00garbage!")


def test_old_pyjax_format_blobs_stay_readable():
    # written by pyjax's former serializer (PYJAXEXP, zlib JSON, StableHLO text), vjp_order=1
    with open(os.path.join(HERE, "export_blobs", "pyjaxexp_v1_mlp.bin"), "rb") as f:
        old = f.read()
    assert old.startswith(b"PYJAXEXP")
    exp = export.deserialize(old)
    case = DATA["mlp_symbolic_batch"]
    for run in case["runs"]:
        args = arrays(run["args"])
        assert_trees_close(exp.call(*args), arrays(run["out"]))
        grads = jax.grad(loss_of(exp.call), argnums=run["grad_argnums"])(*args)
        assert_trees_close(list(grads), arrays(run["grads"]), rtol=1e-4, atol=1e-5)
    # and it serializes again, in JAX's format
    assert flatbuf.decode(exp.serialize())["fun_name"] == exp.fun_name


# -- pyjax's blobs on JAX (optional) --------------------------------------------------------------


@pytest.mark.skipif(not os.environ.get("PYJAX_JAX_PYTHON"),
                    reason="set PYJAX_JAX_PYTHON to a python with JAX 0.10.2 and flatbuffers")
def test_pyjax_blobs_run_on_jax(tmp_path, sharded_runs, sharded_blobs_dir):
    for name in SINGLE_DEVICE:
        _, exp = export_with_pyjax(name)
        (tmp_path / (name + ".bin")).write_bytes(exp.serialize(vjp_order=1))
    for name in [*SHARDED, "sharded_shard_map"]:  # (exported over 8 devices by sharded_runs)
        (tmp_path / (name + ".bin")).write_bytes((sharded_blobs_dir / (name + ".bin")).read_bytes())
    (tmp_path / "ordered_effect.bin").write_bytes(export_ordered_effect().serialize())
    for name in KEYS:
        case = DATA[name]
        (tmp_path / (name + ".bin")).write_bytes(export.export(jax.jit(eval(
            case["src"], {"jax": jax})))(jax.random.key(case["seed"], impl=case["impl"]))
            .serialize())
    subprocess.run([os.environ["PYJAX_JAX_PYTHON"], os.path.join(HERE, "check_blobs_on_jax.py"),
                    str(tmp_path)], check=True, timeout=600,
                   env={**os.environ, "JAX_PLATFORMS": "cpu",
                        "XLA_FLAGS": "--xla_force_host_platform_device_count=8"})


class PerElement:
    """A node whose constructor looks at its child's shape (as JAX's test has it)."""

    def __init__(self, array, names):
        assert len(names) == array.shape[0]
        self.array, self.names = array, names


jax.tree_util.register_pytree_node(PerElement, lambda p: ((p.array,), p.names),
                                   lambda names, ch: PerElement(ch[0], names))


def test_pytree_registrations_as_jax():
    od = collections.OrderedDict([("foo", np.float32(1)), ("baz", np.float32(2))])
    exp = export.export(jax.jit(lambda d: d))(od)
    back = export.deserialize(exp.serialize())
    assert back.in_tree == exp.in_tree
    assert list(back.call(od)) == ["foo", "baz"]
    # a node built from the avals while deserializing
    export.register_pytree_node_serialization(
        PerElement, serialized_name="test_export_blobs.PerElement",
        serialize_auxdata=lambda names: "/".join(names).encode(),
        deserialize_auxdata=lambda b: tuple(b.decode().split("/")))
    p = PerElement(np.ones(2, np.float32), ("a", "b"))
    back = export.deserialize(export.export(jax.jit(lambda p: p))(p).serialize())
    assert back.call(p).names == ("a", "b")
    # JAX's errors
    T = collections.namedtuple("T", "a b")
    with pytest.raises(ValueError, match="If `from_children` is not present.*register_pytree_node"):
        export.register_pytree_node_serialization(
            T, serialized_name="test_export_blobs.T", serialize_auxdata=lambda x: b"",
            deserialize_auxdata=lambda b: None)
    with pytest.raises(ValueError, match="Use `jax.export.register_pytree_node_serialization`"):
        export.register_namedtuple_serialization(str, serialized_name="n/a")
    export.register_namedtuple_serialization(T, serialized_name="test_export_blobs.T")
    with pytest.raises(ValueError, match="Duplicate serialization registration for type .*"
                                         "Previous registration was with serialized_name "
                                         "`test_export_blobs.T`"):
        export.register_namedtuple_serialization(T, serialized_name="x")
    with pytest.raises(ValueError, match="for serialized_name `test_export_blobs.T`. Previous "
                                         "registration was for type"):
        export.register_namedtuple_serialization(collections.namedtuple("U", "a"),
                                                 serialized_name="test_export_blobs.T")
