"""pyjax.pmap (issue 14, part 5): in_axes/out_axes, collectives, static arguments, devices=,
donate_argnums, grad through it (psum, ppermute, all_gather), nested with vmap, equal to
shard_map over a 1-D mesh, one slice per device in a partitioned executable; against JAX
0.10.2's recorded values
(tests/data/record_pmap.py) on 8 virtual CPU devices, and NumPy."""
import importlib.util
import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest

import pyjax
from pyjax._src import test_util as jtu
import pyjax.numpy as jnp

DATA = json.loads((Path(__file__).parent / "data" / "pmap.json").read_text())

SCRIPT = textwrap.dedent('''
    import json, sys
    import numpy as np
    import pyjax, pyjax.numpy as jnp
    from pyjax import lax

    d = json.loads(sys.argv[1])
    xs, X, W, Y = (np.asarray(d[k], np.float32) for k in ("xs", "X", "W", "Y"))
    RING = [(0, 1), (1, 2), (2, 3), (3, 0)]

    def val(x):
        return np.asarray(x).tolist()

    out = {}
    r = pyjax.pmap(lambda x: x / lax.psum(x, "i"), axis_name="i")(xs)
    out["normalize"] = val(r)
    out["normalize_sharding"] = [sorted(dv.id for dv in r.sharding.device_set),
                                 [[s.device.id, s.index[0].start] for s in r.addressable_shards]]
    out["in_axes_none"] = val(pyjax.pmap(lambda x, w: jnp.tanh(x @ w), in_axes=(0, None))(X, W))
    out["in_axes_1"] = val(pyjax.pmap(lambda x: x.sum(), in_axes=1)(X.T))
    out["out_axes_none"] = val(pyjax.pmap(lambda x: lax.psum(x, "i"), axis_name="i", out_axes=None)(X))
    out["out_axes_1"] = val(pyjax.pmap(lambda x: x * 2, out_axes=1)(X))
    out["ppermute"] = val(pyjax.pmap(lambda x: lax.ppermute(x, "i", RING), "i")(Y))
    out["axis_index"] = val(pyjax.pmap(lambda x: lax.axis_index("i") + 0 * x, "i")(xs))
    out["all_gather"] = val(pyjax.pmap(lambda x: lax.all_gather(x, "i"), "i")(Y))
    out["static"] = val(pyjax.pmap(lambda x, k: x * k, static_broadcasted_argnums=1)(xs, 3.0))
    out["grad"] = val(pyjax.grad(lambda a: pyjax.pmap(lambda x: jnp.sin(x) * lax.psum(x, "i"),
                                                      axis_name="i")(a).sum())(xs))
    out["vmap_of_pmap"] = val(pyjax.vmap(pyjax.pmap(lambda x: x - lax.pmean(x, "i"), axis_name="i"))(X.T))
    out["pmap_of_vmap"] = val(pyjax.pmap(pyjax.vmap(lambda x: x - lax.pmean(x, "j"), axis_name="j"))(Y))
    out["devices_subset"] = val(pyjax.pmap(lambda x: x + 1, devices=pyjax.devices()[4:])(Y))
    out["sharded_devices"] = sorted(dv.id for dv in pyjax.pmap(lambda x: x + 1, devices=pyjax.devices()[4:])(Y).sharding.device_set)
    try:
        pyjax.pmap(lambda x: x)(np.ones((9, 2)))
        out["too_many_error"] = None
    except Exception as e:
        out["too_many_error"] = [c.__name__ for c in type(e).__mro__]
    y = pyjax.pmap(lambda x: x * 2, axis_name="i")(X)
    z = pyjax.pmap(lambda x: x + lax.psum(x, "i"), axis_name="i", donate_argnums=0)(y)
    out["donated"] = [y.is_deleted(), val(z)]
    out["grad_collectives"] = val(pyjax.grad(lambda a: (pyjax.pmap(
        lambda x: jnp.cos(lax.ppermute(x, "i", [(j, (j + 3) % 8) for j in range(8)]))
        * lax.all_gather(x, "i").sum(0), axis_name="i")(a) ** 2).sum())(X))
    # pmap is shard_map over a 1-D mesh of the devices
    mesh = pyjax.sharding.Mesh(np.array(pyjax.devices()), ("i",))
    body = lambda x: lax.all_to_all(x, "i", 1, 1, tiled=True) * lax.axis_index("i") - lax.pmean(x, "i")
    Z = np.arange(64.0, dtype=np.float32).reshape(8, 8)
    pm = pyjax.pmap(lambda r: body(r[None])[0], axis_name="i")(Z)
    sm = pyjax.shard_map(body, mesh=mesh, in_specs=pyjax.P("i"), out_specs=pyjax.P("i"))(Z)
    out["vs_shard_map"] = [val(pm), val(sm)]
    hlo = pyjax.jit(pyjax.pmap(lambda x: lax.psum(x, "i"), axis_name="i")).lower(Z).compile().as_text()
    out["hlo"] = hlo
    xs2 = xs.reshape(8, 1)
    rs = [pyjax.pmap(lambda x: x * 2, axis_name="i")(xs2), pyjax.pmap(lambda x: x * 2)(xs2),
          pyjax.pmap(lambda x: x.sum(), axis_name="i", out_axes=None)(xs2),
          pyjax.pmap(lambda x: x * 2, axis_name="i", out_axes=1)(xs2)]
    out["result_shardings"] = [[repr(r.sharding), list(r.shape), val(r)] for r in rs]
    G = [[0, 2, 4, 6], [1, 3, 5, 7]]
    out["groups"] = [
        val(pyjax.pmap(lambda b: lax.psum(b, "i", axis_index_groups=G), "i")(X)),
        val(pyjax.pmap(lambda b: lax.pmean(b, "i", axis_index_groups=[[0, 1], [2, 3], [4, 5], [6, 7]]),
                       "i")(X)),
        val(pyjax.pmap(lambda b: lax.pmax(b, "i", axis_index_groups=G), "i")(X)),
        val(pyjax.grad(lambda a: pyjax.pmap(lambda b: jnp.sin(lax.psum(b, "i", axis_index_groups=G)) * b,
                                            "i")(a).sum())(X))]
    try:
        pyjax.pmap(lambda b: lax.psum(b, "i", axis_index_groups=[[0, 1, 2], [3, 4, 5, 6, 7]]), "i")(X)
        out["uneven_groups"] = None
    except Exception as e:
        out["uneven_groups"] = type(e).__name__
    try:
        pyjax.pmap(pyjax.pmap(lambda v: v, "j"), "i")(Y[:2].reshape(2, 4, 3))
        out["nested_error"] = None
    except Exception as e:
        out["nested_error"] = type(e).__name__
    print(json.dumps(out))
''')


@pytest.fixture(scope="module")
def sub():
    env = dict(os.environ, XLA_FLAGS="--xla_force_host_platform_device_count=8",
               JAX_PLATFORMS="cpu")
    res = subprocess.run([sys.executable, "-c", SCRIPT, json.dumps(DATA)], capture_output=True,
                         text=True, env=env, timeout=300)
    assert res.returncode == 0, res.stderr[-3000:]
    return json.loads(res.stdout.strip().splitlines()[-1])


VALUES = ["normalize", "in_axes_none", "in_axes_1", "out_axes_none", "out_axes_1", "ppermute",
          "axis_index", "all_gather", "static", "grad", "vmap_of_pmap", "pmap_of_vmap",
          "devices_subset"]


@pytest.mark.parametrize("name", VALUES)
def test_pmap_matches_jax(sub, name):
    np.testing.assert_allclose(sub[name], DATA[name], rtol=1e-5, atol=1e-5)


def test_pmap_against_numpy(sub):
    xs = np.asarray(DATA["xs"], np.float32)
    np.testing.assert_allclose(sub["normalize"], xs / xs.sum(), rtol=1e-6)
    Y = np.asarray(DATA["Y"], np.float32)
    np.testing.assert_allclose(sub["ppermute"], np.roll(Y, 1, 0))
    np.testing.assert_allclose(sub["all_gather"], np.tile(Y[None], (4, 1, 1, 1)))
    np.testing.assert_allclose(sub["axis_index"], np.arange(8))
    X = np.asarray(DATA["X"], np.float32)
    np.testing.assert_allclose(sub["out_axes_none"], X.sum(0), rtol=1e-6)


def test_results_are_spread_over_the_devices(sub):
    devices, shards = sub["normalize_sharding"]
    assert devices == list(range(8))
    assert shards == [[i, i] for i in range(8)]  # slice i on device i
    assert sub["sharded_devices"] == DATA["sharded_devices"]


def test_more_slices_than_devices(sub):
    assert "ValueError" in sub["too_many_error"] and "ValueError" in DATA["too_many_error"]


def test_donated_argument_is_deleted(sub):
    deleted, value = sub["donated"]
    assert deleted and DATA["donated"][0]
    np.testing.assert_allclose(value, DATA["donated"][1], rtol=1e-6)


def test_grad_through_ppermute_and_all_gather_matches_jax(sub):
    np.testing.assert_allclose(sub["grad_collectives"], DATA["grad_collectives"], rtol=1e-4,
                               atol=1e-4)


def test_pmap_equals_shard_map(sub):
    pm, sm = sub["vs_shard_map"]
    np.testing.assert_allclose(pm, sm, rtol=1e-6)
    Z = np.arange(64.0, dtype=np.float32).reshape(8, 8)  # against NumPy: row i gets column i
    want = Z.T * np.arange(8)[:, None] - Z.mean(0)
    np.testing.assert_allclose(pm, want, rtol=1e-6)


def test_one_slice_per_device(sub):
    hlo = sub["hlo"]  # each device runs the body on its (8,) row; psum is an XLA all-reduce
    assert "f32[8]" in hlo and "all-reduce" in hlo and "replica_groups={{0,1,2,3,4,5,6,7}}" in hlo


def test_pmap_inside_pmap_is_refused_as_in_jax(sub):
    assert DATA["nested_error"] is not None
    assert sub["nested_error"] == DATA["nested_error"]


def test_axis_index_groups_match_jax(sub):
    """psum/pmean/pmax within groups of devices, and a gradient through a grouped psum."""
    for got, want in zip(sub["groups"], DATA["groups"], strict=True):
        np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5)
    X = np.asarray(DATA["X"], np.float32)
    want = np.stack([X[i % 2::2].sum(0) for i in range(8)])  # device i: its group's rows
    np.testing.assert_allclose(sub["groups"][0], want, rtol=1e-6)
    assert sub["uneven_groups"] == "ValueError"


def test_result_shardings_match_jax(sub):
    """NamedShardings over the 1-D mesh of the pmap axis (JAX's name for an unnamed one);
    out_axes=None of a value that differs per device is device 0's (no check, as JAX)."""
    for got, want in zip(sub["result_shardings"], DATA["result_shardings"], strict=True):
        assert got[0] == want[0] and got[1] == want[1]
        np.testing.assert_allclose(got[2], want[2])


def _record_module(name):
    spec = importlib.util.spec_from_file_location(name, Path(__file__).parent / "data" / f"{name}.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def test_host_callbacks_over_several_devices_match_jax(tmp_path):
    # A debug.print inside pmap over 2 devices made XLA's partitioner fail ("Side-effect HLO
    # must have sharding"): the callback now carries JAX's sharding ({manual} in a pmap or
    # shard_map body, {maximal device=0} in a sharded jit) and prints what JAX prints.
    rec = _record_module("record_multidevice_callbacks")
    want = json.loads((Path(__file__).parent / "data" / "multidevice_callbacks.json").read_text())
    script = tmp_path / "cases.py"
    script.write_text(rec.CASES)
    res = subprocess.run([sys.executable, "-m", "pyjax", "run", str(script)], capture_output=True,
                         text=True, timeout=300, env=dict(os.environ, JAX_PLATFORMS="cpu"))
    assert res.returncode == 0, res.stderr[-3000:]
    lines = res.stdout.strip().splitlines()
    assert json.loads(lines[-1]) == want["results"]
    assert sorted(lines[:-1]) == want["printed"]


def test_ahead_of_time_lowering_as_jax():
    # JAX 0.10.2: pmap(f).lower(...) gives a Lowered; its compile() is called with the non-static
    # arguments (equinox's filter_pmap(...).lower); values as recorded from JAX
    x = jnp.array([3.0])
    lowered = pyjax.pmap(lambda a, b: 2 * a + b).lower(x, jnp.array([4.0]))
    assert type(lowered).__name__ == "Lowered" and "module" in lowered.as_text()
    np.testing.assert_array_equal(lowered.compile()(x, jnp.array([4.0])), [10.0])
    g = pyjax.pmap(lambda a, k: a * k, static_broadcasted_argnums=1)
    np.testing.assert_array_equal(g.lower(x, 3.0).compile()(x), [9.0])


def test_pmaps_of_one_function_share_their_compilation():
    """As JAX's global pmap cache (JAX's api_test test_pmap_global_cache): a new pmap of the same
    function with the same configuration compiles nothing new."""
    def f(x, y):
        return x, y
    x = np.ones((1, 1, 1), np.float32)
    with jtu.assert_num_jit_and_pmap_compilations(1):
        for _ in range(2):
            pyjax.pmap(f)(x, x)
    with jtu.assert_num_jit_and_pmap_compilations(1):
        for _ in range(2):
            pyjax.pmap(f, "i", in_axes=(0, 1), out_axes=(1, 0))(x, x)
