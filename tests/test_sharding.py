"""pyjax.sharding: meshes, PartitionSpec, NamedSharding, device_put over several devices,
addressable shards, make_array_from_* (issue 14, part 2), against JAX 0.10.2's recorded facts
(tests/data/record_sharding.py) and NumPy.

The CPU device count is fixed when the client is made, so the multi-device checks run once in a
subprocess with 8 virtual devices (`sub` below) and return what they saw as JSON."""
import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest

import pyjax
from pyjax.sharding import AbstractMesh, AxisType, NamedSharding, PartitionSpec

DATA = json.loads((Path(__file__).parent / "data" / "sharding.json").read_text())

SCRIPT = textwrap.dedent('''
    import json, sys
    import numpy as np
    import pyjax, pyjax.numpy as jnp
    from pyjax import P
    from pyjax.sharding import Mesh, NamedSharding
    from pyjax._src.errors import ShardingTypeError

    def spec_json(s):
        return [list(p) if isinstance(p, tuple) else p for p in s]

    def jit_ok(a):
        # the mesh's axes are Explicit: with both contracting dimensions split over different
        # axes (P('x', 'y'), P('y', 'x')) the matmul is a ShardingTypeError, as on JAX 0.10.2
        try:
            return np.allclose(np.asarray(pyjax.jit(lambda v: jnp.sin(v) @ v)(a)),
                               np.sin(X) @ X, rtol=1e-5)
        except ShardingTypeError:
            spec = tuple(a.sharding.spec)
            return spec in (("x", "y"), ("y", "x"))

    cases = json.loads(sys.argv[1])
    out = {"device_count": pyjax.device_count(), "cases": [], "errors": []}
    m = pyjax.make_mesh((4, 2), ("x", "y"))
    out["make_mesh_repr"] = repr(m)
    out["mesh_repr"] = repr(Mesh(np.array(pyjax.devices()).reshape(2, 4), ("a", "b")))
    out["abstract_mesh_types"] = [t.name for t in m.abstract_mesh.axis_types]
    X = np.arange(64, dtype=np.float32).reshape(8, 8)
    for spec in cases:
        s = NamedSharding(m, P(*[tuple(p) if isinstance(p, list) else p for p in spec]))
        a = pyjax.device_put(X, s)
        shards = [[sh.device.id, [[i.start, i.stop] for i in sh.index], sh.replica_id,
                   np.array_equal(np.asarray(sh.data), X[sh.index])] for sh in a.addressable_shards]
        out["cases"].append({
            "repr": repr(a.sharding), "fully_replicated": a.is_fully_replicated,
            "shard_shape": list(s.shard_shape(X.shape)), "shards": shards,
            "value_ok": np.array_equal(np.asarray(a), X),
            "sum_plus_1": float(np.asarray(a + 1).sum()),
            "eager_specs": [spec_json(y.sharding.spec) for y in (a + 1, jnp.sin(a) * 2, a.T)],
            "jit_ok": jit_ok(a),
            "reshard_ok": all(  # on device (XLA moves the blocks), to every other layout
                np.array_equal(np.asarray(r), X) and r.sharding == t
                and all(np.array_equal(np.asarray(sh.data), X[sh.index]) for sh in r.addressable_shards)
                for t in [NamedSharding(m, P("y", "x")), NamedSharding(m, P()),
                          NamedSharding(m, P(None, ("x", "y")))]
                for r in [pyjax.device_put(a, t)]),
            "callback_ok": np.array_equal(
                np.asarray(pyjax.make_array_from_callback(X.shape, s, lambda i: X[i])), X),
            "singles_ok": np.array_equal(np.asarray(pyjax.make_array_from_single_device_arrays(
                X.shape, s, [sh.data for sh in a.addressable_shards[::-1]])), X),
        })
    def uneven_out():
        pyjax.jit(lambda v: v, out_shardings=NamedSharding(m, P(("x", "y"))))(np.ones((4, 2)))
    out["uneven_out"] = None
    try:
        uneven_out()
    except ValueError:
        out["uneven_out"] = "ValueError"

    def spec_no_mesh():
        pyjax.device_put(np.arange(8.), P("x"))
    for name, f in [("uneven", lambda: pyjax.device_put(np.arange(10.), NamedSharding(m, P("x")))),
                    ("bad_axis", lambda: NamedSharding(m, P("z"))),
                    ("spec_no_mesh", spec_no_mesh),
                    ("mesh_size", lambda: pyjax.make_mesh((3, 2), ("x", "y")))]:
        try:
            f()
            out["errors"].append([name, None])
        except Exception as e:
            out["errors"].append([name, type(e).__name__])
    r1 = pyjax.sharding.reshard(X, NamedSharding(m, P("y")))
    r2 = pyjax.jit(lambda v: pyjax.sharding.reshard(v * 2, NamedSharding(m, P(None, "x"))))(X)
    r3 = pyjax.make_array_from_process_local_data(NamedSharding(m, P("x")), X)
    out["reshard"] = [repr(r1.sharding.spec), np.array_equal(np.asarray(r1), X),
                      repr(r2.sharding.spec), np.array_equal(np.asarray(r2), 2 * X),
                      repr(r3.sharding.spec), np.array_equal(np.asarray(r3), X)]
    with pyjax.set_mesh(m):
        b = pyjax.device_put(X, P(None, "x"))
        out["set_mesh_repr"] = repr(b.sharding)
        out["set_mesh_abstract"] = repr(pyjax.sharding.get_abstract_mesh())
    out["after_set_mesh"] = repr(pyjax.sharding.get_abstract_mesh())
    with m:
        out["with_mesh"] = pyjax.sharding.get_mesh() is m
    # a pytree of placements, a prefix of the value (JAX: one per subtree)
    t = pyjax.device_put({"w": X, "b": [X[0], 1.0]}, {"w": NamedSharding(m, P("x")), "b": None})
    out["pytree_put"] = [repr(t["w"].sharding.spec), np.array_equal(np.asarray(t["w"]), X),
                         len(t["b"][0].sharding.device_set), float(t["b"][1])]
    print(json.dumps(out))
''')


def run_with_devices(script, *args, n=8):
    """Run `script` in a fresh interpreter with `n` virtual CPU devices; its stdout as JSON."""
    env = dict(os.environ, XLA_FLAGS=f"--xla_force_host_platform_device_count={n}",
               JAX_PLATFORMS="cpu")
    res = subprocess.run([sys.executable, "-c", script, *args], capture_output=True, text=True,
                         env=env, timeout=300)
    assert res.returncode == 0, res.stderr[-3000:]
    return json.loads(res.stdout.strip().splitlines()[-1])


@pytest.fixture(scope="module")
def sub():
    return run_with_devices(SCRIPT, json.dumps([c["spec"] for c in DATA["cases"]]))


def test_eight_devices(sub):
    assert sub["device_count"] == 8


def test_device_put_takes_a_pytree_of_placements(sub):
    assert sub["pytree_put"] == ["P('x',)", True, 1, 1.0]


def test_mesh_reprs_and_types_match_jax(sub):
    assert sub["make_mesh_repr"] == DATA["make_mesh_repr"]
    assert sub["mesh_repr"] == DATA["mesh_repr"]
    assert sub["abstract_mesh_types"] == DATA["abstract_mesh_types"]


@pytest.mark.parametrize("i", range(len(DATA["cases"])))
def test_named_sharding_layout_matches_jax(sub, i):
    want, got = DATA["cases"][i], sub["cases"][i]
    assert got["repr"] == want["repr"]
    assert got["fully_replicated"] == want["fully_replicated"]
    assert got["shard_shape"] == want["shard_shape"]
    assert [s[:3] for s in got["shards"]] == want["shards"]  # device, block, replica id
    assert all(s[3] for s in got["shards"])  # each shard holds X[index] (NumPy)
    assert got["sum_plus_1"] == want["sum_plus_1"]
    # eager ops on a sharded array run partitioned and keep a layout, the one JAX reports
    assert got["eager_specs"] == want["eager_specs"]


@pytest.mark.parametrize("i", range(len(DATA["cases"])))
def test_sharded_values_vs_numpy(sub, i):
    got = sub["cases"][i]
    assert got["value_ok"] and got["jit_ok"] and got["reshard_ok"]
    assert got["callback_ok"] and got["singles_ok"]


def test_errors_match_jax(sub):
    assert sub["errors"] == DATA["errors"]
    # NB: JAX pads an uneven jit output; pyjax refuses it (XLA aborts serializing one)
    assert sub["uneven_out"] == "ValueError"


def test_reshard_and_process_local_data(sub):
    # (JAX 0.10.2's reshard writes the spec at the array's rank: P('y', None))
    assert sub["reshard"] == ["P('y', None)", True, "P(None, 'x')", True, "P('x',)", True]


def test_mesh_context(sub):
    assert sub["set_mesh_repr"].endswith("spec=P(None, 'x'), memory_kind=device)")
    assert sub["set_mesh_abstract"] == "AbstractMesh('x': 4, 'y': 2, axis_types=(Explicit, Explicit))"
    assert sub["after_set_mesh"] == "AbstractMesh((), axis_types=())"
    assert sub["with_mesh"]


# -- one-process facts (no devices needed) -------------------------------------------------------


def test_partition_spec_equality_and_repr_match_jax():
    P = PartitionSpec
    eq = DATA["p_eq"]
    assert (P("x") == P("x", None)) == eq["P(x)==P(x,None)"]
    assert (P("x") == ("x",)) == eq["P(x)==(x,)"]
    assert (P("x") == P("x")) == eq["P(x)==P(x)"]
    assert [repr(P("x", None)), repr(P(("x", "y"),)), repr(P()), repr(P("x"))] == DATA["p_repr"]
    assert pyjax.P is PartitionSpec


def test_one_device_mesh():
    mesh = pyjax.make_mesh((1,), ("i",))
    assert mesh.axis_types == (AxisType.Explicit,)
    assert mesh.abstract_mesh == AbstractMesh((1,), ("i",), (AxisType.Explicit,))
    x = pyjax.device_put(np.arange(6.0).reshape(2, 3), NamedSharding(mesh, PartitionSpec("i")))
    np.testing.assert_array_equal(np.asarray(x * 2), np.arange(6.0).reshape(2, 3) * 2)
    assert x.is_fully_replicated  # one device
    with pytest.raises(ValueError, match="unique"):
        pyjax.sharding.Mesh(np.array(pyjax.devices()[:1]).reshape(1, 1), ("a", "a"))


# -- jit over a mesh (issue 14, part 3) -----------------------------------------------------------

JIT_DATA = json.loads((Path(__file__).parent / "data" / "sharded_jit.json").read_text())

JIT_SCRIPT = textwrap.dedent('''
    import json, sys
    import numpy as np
    import pyjax, pyjax.numpy as jnp
    from pyjax import P, lax
    from pyjax.sharding import AxisType, NamedSharding

    MESHES = {"4x2": ((4, 2), ("x", "y")), "8": ((8,), ("i",)), "2x2x2": ((2, 2, 2), ("a", "b", "c"))}
    FUNS = {"mul2": lambda a: a * 2.0, "sum0": lambda a: a.sum(0), "gram": lambda a: a @ a.T,
            "tanh_rows": lambda a: jnp.tanh(a) - a.mean(1, keepdims=True)}

    def mesh(name):
        shape, names = MESHES[name]
        return pyjax.make_mesh(shape, names, axis_types=(AxisType.Auto,) * len(shape))

    def spec(j):
        return P(*[tuple(p) if isinstance(p, list) else p for p in j])

    def spec_json(s):
        return [list(p) if isinstance(p, tuple) else p for p in s]

    data = json.loads(sys.argv[1])
    X = np.asarray(data["x"], np.float32)
    out = {"cases": []}
    for c in data["cases"]:
        m = mesh(c["mesh"])
        x = pyjax.device_put(X, NamedSharding(m, spec(c["in"])))
        kw = {} if c["out"] is None else {"out_shardings": NamedSharding(m, spec(c["out"]))}
        y = pyjax.jit(FUNS[c["fun"]], **kw)(x)
        # the same through in_shardings on a host value
        z = pyjax.jit(FUNS[c["fun"]], in_shardings=NamedSharding(m, spec(c["in"])), **kw)(X)
        out["cases"].append({
            "out_spec": spec_json(y.sharding.spec), "value": np.asarray(y).tolist(),
            "in_shardings_value": np.asarray(z).tolist(),
            "shards": [[s.device.id, [[i.start, i.stop] for i in s.index]]
                       for s in y.addressable_shards]})
    m = mesh("4x2")
    f = pyjax.jit(lambda a: lax.with_sharding_constraint(jnp.sin(a) * 2, NamedSharding(m, P("y"))).sum(0),
                  in_shardings=NamedSharding(m, P("x")), out_shardings=NamedSharding(m, P()))
    shardy = pyjax.config.jax_use_shardy_partitioner  # (as the environment set it)
    pyjax.config.update("jax_use_shardy_partitioner", False)  # GSPMD's form
    text = f.lower(X).as_text()
    pyjax.config.update("jax_use_shardy_partitioner", True)  # Shardy's, as JAX 0.10.2 writes it
    sdy_text = f.lower(X).as_text()
    pyjax.config.update("jax_use_shardy_partitioner", shardy)
    # (as_text prints the module as JAX does: MLIR's custom form)
    out["text_has"] = [s in text for s in ["mhlo.num_partitions = 8", "stablehlo.custom_call @Sharding(",
                                           "{devices=[2,1,4]0,2,4,6,1,3,5,7 last_tile_dim_replicate}",
                                           '{mhlo.sharding = "{replicated}"}']] + [
        s in sdy_text for s in ['sdy.mesh @mesh = <["x"=4, "y"=2]>',
                                'sdy.sharding = #sdy.sharding<@mesh, [{"x"}, {}]>',
                                'sdy.sharding_constraint %', '<@mesh, [{"y"}, {}]>',
                                '-> (tensor<8xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}]>})',
                                "mhlo.num_partitions = 8"]] + [
        "sdy" not in text, "mhlo.sharding" not in sdy_text]
    out["wsc_value"] = np.asarray(f(X)).tolist()
    g = pyjax.grad(lambda a: (lax.with_sharding_constraint(a, NamedSharding(m, P("x"))) ** 2).sum())
    gx = pyjax.jit(g)(pyjax.device_put(X, NamedSharding(m, P("x", "y"))))
    out["grad_ok"] = bool(np.allclose(np.asarray(gx), 2 * X))
    out["eager_wsc"] = repr(lax.with_sharding_constraint(X, NamedSharding(m, P("y"))).sharding.spec)
    donated = pyjax.device_put(X, NamedSharding(m, P("x")))
    r = pyjax.jit(lambda a: a + 1, donate_argnums=0)(donated)
    out["donate"] = [bool(np.array_equal(np.asarray(r), X + 1)), donated.is_deleted()]
    print(json.dumps(out))
''')


@pytest.fixture(scope="module")
def jit_sub():
    return run_with_devices(JIT_SCRIPT, json.dumps(JIT_DATA))


@pytest.mark.parametrize("i", range(len(JIT_DATA["cases"])))
def test_sharded_jit_matches_jax(jit_sub, i):
    want, got = JIT_DATA["cases"][i], jit_sub["cases"][i]
    assert got["out_spec"] == want["out_spec"]  # the layout XLA chose / was told, as JAX reports it
    assert got["shards"] == want["shards"]
    np.testing.assert_allclose(got["value"], want["value"], rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(got["in_shardings_value"], want["value"], rtol=1e-5, atol=1e-5)


def test_with_sharding_constraint_annotates_and_computes(jit_sub):
    X = np.asarray(JIT_DATA["x"], np.float32)
    assert all(jit_sub["text_has"]), jit_sub["text_has"]
    np.testing.assert_allclose(jit_sub["wsc_value"], (np.sin(X) * 2).sum(0), rtol=1e-5)
    assert jit_sub["grad_ok"]
    assert jit_sub["eager_wsc"] == "P('y',)"


def test_donating_a_sharded_argument(jit_sub):
    assert jit_sub["donate"] == [True, True]


MESH_UTILS_SCRIPT = textwrap.dedent('''
    import json
    import pyjax
    from pyjax.experimental import mesh_utils
    d = pyjax.devices()
    ids = lambda m: [list(m.shape), [x.id for x in m.flat]]
    out = {"mesh": ids(mesh_utils.create_device_mesh((2, 4))),
           "given": ids(mesh_utils.create_device_mesh([2, 2], d[4:])),
           "contiguous": ids(mesh_utils.create_device_mesh((4, 1, 2), contiguous_submeshes=True)),
           "hybrid": ids(mesh_utils.create_hybrid_device_mesh((4, 2), (1, 1),
                                                              process_is_granule=True)),
           "named": pyjax.sharding.Mesh(mesh_utils.create_device_mesh((8,)), ("x",)).shape["x"],
           "errors": []}
    for f in (lambda: mesh_utils.create_device_mesh((3, 3)),
              lambda: mesh_utils.create_device_mesh((2, "a")),
              lambda: mesh_utils.create_hybrid_device_mesh((2, 4), (1, 1)),
              lambda: mesh_utils.create_hybrid_device_mesh((2, 2), (2, 1), process_is_granule=True)):
        try:
            f()
        except ValueError as e:
            out["errors"].append(str(e))
    print(json.dumps(out))
''')


def test_mesh_utils_on_cpu_devices():
    # JAX 0.10.2 on 8 CPU devices (flax's tests build their meshes so): devices in order, and
    # its ValueErrors; CPU devices have no slice_index
    out = run_with_devices(MESH_UTILS_SCRIPT)
    r = list(range(8))
    assert out["mesh"] == [[2, 4], r] and out["given"] == [[2, 2], [4, 5, 6, 7]]
    assert out["contiguous"] == [[4, 1, 2], r] and out["hybrid"] == [[4, 2], r]
    assert out["named"] == 8
    assert out["errors"] == [
        "Number of devices 8 must equal the product of mesh_shape (3, 3)",
        "`mesh_shape` passed to `create_device_mesh` should be a sequence of ints. Got (2, 'a')",
        "Device cpu:0 does not have attribute slice_index. See `process_is_granule` option.",
        "Number of slices 1 must equal the product of dcn_mesh_shape (2, 1)"]


DETAILS = json.loads((Path(__file__).parent / "data" / "sharding_details.json").read_text())

DETAILS_SCRIPT = textwrap.dedent('''
    import json
    import numpy as np
    import pyjax, pyjax.numpy as jnp
    from pyjax.sharding import Mesh, NamedSharding, PartitionSpec as P, SingleDeviceSharding

    def outcome(f):
        try:
            return ["ok", repr(f())]
        except Exception as e:
            return [type(e).__name__, [c.__name__ for c in type(e).__mro__[1:3]], str(e)]

    mesh = Mesh(np.array(pyjax.devices()).reshape(2, 4), ("x", "y"))
    s = NamedSharding(mesh, P("y"))
    x6 = np.arange(6, dtype=np.float32)
    out = {"indivisible": {
        "device_put": outcome(lambda: pyjax.device_put(x6, s)),
        "jit_in": outcome(lambda: pyjax.jit(lambda a: a, in_shardings=s)(x6)),
        "jit_out": outcome(lambda: pyjax.jit(lambda a: a, out_shardings=s)(x6)),
        "shard_shape": outcome(lambda: s.shard_shape((6,))),
        "callback": outcome(lambda: pyjax.make_array_from_callback((6,), s, lambda i: x6[i])),
        "divisible_shard_shape": outcome(lambda: s.shard_shape((8, 3))),
    }}
    d0 = pyjax.devices()[0]
    sds = SingleDeviceSharding(d0)
    out["memory_kinds"] = {
        "single": outcome(lambda: (sds.memory_kind, sds)),
        "array": outcome(lambda: (jnp.ones(3).sharding.memory_kind, jnp.ones(3).sharding)),
        "single_pinned": outcome(lambda: SingleDeviceSharding(d0, memory_kind="pinned_host")),
        "with_memory_kind": outcome(lambda: sds.with_memory_kind("unpinned_host")),
        "single_eq": outcome(lambda: (sds == SingleDeviceSharding(d0, memory_kind="device"),
                                      sds == sds.with_memory_kind("pinned_host"))),
        "single_bad": outcome(lambda: SingleDeviceSharding(d0, memory_kind="hbm")),
        "named": outcome(lambda: (s.memory_kind, s.with_memory_kind("pinned_host"))),
        "named_eq": outcome(lambda: (s == NamedSharding(mesh, P("y"), memory_kind="device"),
                                     s == s.with_memory_kind("pinned_host"))),
        "named_bad": outcome(lambda: NamedSharding(mesh, P("y"), memory_kind="hbm")),
        "memories": outcome(lambda: ([m.kind for m in d0.addressable_memories()],
                                     d0.default_memory().kind)),
    }
    print(json.dumps(out))
''')


@pytest.fixture(scope="module")
def details_sub():
    return run_with_devices(DETAILS_SCRIPT)


@pytest.mark.parametrize("case", sorted(DETAILS["indivisible"]))
def test_indivisible_sharding_raises_jax_error(details_sub, case):
    # JAX's IndivisibleError (a ValueError) with its words, wherever a sharding meets a shape
    assert details_sub["indivisible"][case] == DETAILS["indivisible"][case]


@pytest.mark.parametrize("case", sorted(DETAILS["memory_kinds"]))
def test_sharding_memory_kinds_match_jax(details_sub, case):
    assert details_sub["memory_kinds"][case] == DETAILS["memory_kinds"][case]


def test_named_sharding_and_constraint_errors_in_jax_words():
    """JAX 0.10.2's classes and words (recorded with one CPU device): an axis the mesh lacks, a
    spec that is not one, and a constraint naming more dimensions than the value has (JAX's
    pjit_test PJitErrorTest)."""
    with pytest.raises(ValueError) as info:
        NamedSharding(pyjax.make_mesh((1,), ("z",)), PartitionSpec(("x", "y"),))
    assert str(info.value) == "Resource axis: x of P(('x', 'y'),) is not found in mesh: ('z',)."
    with pytest.raises(TypeError, match="incompatible function arguments"):
        NamedSharding(pyjax.make_mesh((1,), ("z",)), None)
    m = pyjax.make_mesh((1, 1), ("x", "y"))
    s = NamedSharding(m, PartitionSpec("x", "y"))
    with pytest.raises(ValueError) as info:
        pyjax.jit(lambda v: pyjax.lax.with_sharding_constraint(v, s))(pyjax.numpy.ones(4))
    assert str(info.value) == (
        f"One of with_sharding_constraint arguments is incompatible with its sharding annotation "
        f"{s!r}: Sharding {s!r} is only valid for values of rank at least 2, but was applied to "
        f"a value of rank 1.")
    assert repr(s) == ("NamedSharding(mesh=Mesh('x': 1, 'y': 1, axis_types=(Explicit, Explicit)), "
                       "spec=P('x', 'y'), memory_kind=device)")


ABSTRACT_MESH_SCRIPT = textwrap.dedent('''
    import json
    import numpy as np
    import pyjax, pyjax.numpy as jnp
    from pyjax.sharding import AxisType, NamedSharding, PartitionSpec as P
    X = np.arange(16, dtype=np.float32).reshape(8, 2)

    def shards(a):
        return [[s.device.id, [[i.start, i.stop] for i in s.index]] for s in a.addressable_shards][:3]
    out = {}
    m = pyjax.make_mesh((4, 2), ("x", "y"), axis_types=(AxisType.Auto,) * 2)
    with pyjax.set_mesh(m):
        y = pyjax.lax.with_sharding_constraint(jnp.asarray(X), NamedSharding(m.abstract_mesh, P("x")))
    out["wsc"] = [type(y.sharding.mesh).__name__, repr(y.sharding.spec), shards(y)]
    me = pyjax.make_mesh((4, 2), ("x", "y"), axis_types=(AxisType.Explicit,) * 2)
    with pyjax.set_mesh(me):
        z = pyjax.sharding.reshard(jnp.asarray(X), NamedSharding(me.abstract_mesh, P("x", "y")))
        out["reshard"] = [type(z.sharding.mesh).__name__, str(pyjax.typeof(z)), shards(z),
                          float(np.asarray(z).sum())]
    try:
        pyjax.lax.with_sharding_constraint(jnp.asarray(X), NamedSharding(m.abstract_mesh, P("x")))
    except TypeError as e:
        out["outside"] = str(e).split(" Got ")[0]
    print(json.dumps(out))
''')


def test_eager_constraint_and_reshard_over_an_abstract_mesh():
    """Issue 24 (flax's nnx sharding metadata): eagerly, with_sharding_constraint and reshard to a
    NamedSharding over the context mesh's AbstractMesh lay the value out over the concrete mesh
    in context; outside one it is JAX's TypeError. Recorded from JAX 0.10.2."""
    got = run_with_devices(ABSTRACT_MESH_SCRIPT)
    assert got["wsc"] == ["Mesh", "P('x',)", [[0, [[0, 2], [None, None]]], [1, [[0, 2], [None, None]]],
                                              [2, [[2, 4], [None, None]]]]]
    assert got["reshard"] == ["Mesh", "float32[8@x,2@y]",
                              [[0, [[0, 2], [0, 1]]], [1, [[0, 2], [1, 2]]], [2, [[2, 4], [0, 1]]]], 120.0]
    assert got["outside"] == ("The sharding on the input must be a `NamedSharding` since the target "
                              "sharding has an `AbstractMesh` in it.")
