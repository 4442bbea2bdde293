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

out["in_specs_none"] = res(lambda: jax.numpy.asarray(jax.shard_map(
    lambda a: a * 2, mesh=mesh, in_specs=None, out_specs=P())(3.0)))
out["out_specs_list"] = res(lambda: jax.shard_map(
    lambda a, b: [a.sum(keepdims=True), b], mesh=mesh, in_specs=(P("x"), P("y")),
    out_specs=[P("x"), P("y")])(A, A))
out["no_mesh"] = res(lambda: jax.shard_map(lambda a: a, in_specs=P(), out_specs=P())(A))
out["empty_mesh"] = res(lambda: jax.shard_map(lambda a: a, mesh=empty_concrete_mesh,
                                              in_specs=P("x"), out_specs=P("x"))(A))

# an AbstractMesh: an eager call runs on the mesh its arguments are laid out over
amesh = mesh.abstract_mesh
laid = jax.device_put(A, NamedSharding(mesh, P("x")))
sm_abs = jax.shard_map(lambda b: b * 2, mesh=amesh, in_specs=P("x"), out_specs=P("x"))
out["abstract_mesh_laid_out"] = res(lambda: sm_abs(laid))
out["abstract_mesh_numpy"] = res(lambda: sm_abs(A))
out["abstract_mesh_jit"] = res(lambda: jax.jit(sm_abs)(laid))
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

# shard_maps nested over the axes the outer one leaves automatic (jit; types seen inside)
m3 = Mesh(np.array(jax.devices()).reshape(2, 2, 2), ("x", "y", "z"))
B = np.arange(32.0, dtype=np.float32).reshape(4, 8)
seen = []
def inner(b):
    seen.append(str(jax.typeof(b)))
    return jnp.sin(b) * jax.lax.axis_index("y")
def outer(b):
    seen.append(str(jax.typeof(b)))
    r = jax.shard_map(inner, in_specs=P(None, "y"), out_specs=P(None, "y"),
                      axis_names={"y"})(b)
    seen.append(str(jax.typeof(r)))
    return r * 2
nested = jax.jit(jax.shard_map(outer, mesh=m3, in_specs=P("x", None), out_specs=P("x", None),
                               axis_names={"x"}))
out["nested"] = res(lambda: nested(B))
out["nested_types"] = " ".join(seen)
def outer_sin(b):
    r = jax.shard_map(lambda c: jnp.sin(c) * c, in_specs=P(None, "y"), out_specs=P(None, "y"),
                      axis_names={"y"})(b)
    return r * 2
nested_sin = jax.shard_map(outer_sin, mesh=m3, in_specs=P("x", None), out_specs=P("x", None),
                           axis_names={"x"}, check_vma=False)  # (JAX fails to lower with it)
out["nested_grad"] = res(lambda: jax.jit(jax.grad(lambda b: nested_sin(b).sum()))(B))
def rest(b):  # the inner one maps every axis the outer left (no axis_names)
    return jax.shard_map(lambda c: c * jax.lax.axis_index(("y", "z")),
                         in_specs=P(None, ("y", "z")), out_specs=P(None, ("y", "z")))(b)
out["nested_rest"] = res(lambda: jax.jit(jax.shard_map(
    rest, mesh=m3, in_specs=P("x"), out_specs=P("x"), axis_names={"x"}))(B))
def mismatch(b):  # the mesh passed to a nested shard_map is not the one in context
    return jax.shard_map(lambda c: c, mesh=m3, in_specs=P(None, "y"), out_specs=P(None, "y"),
                         axis_names={"y"})(b)
out["nested_mesh_mismatch"] = res(lambda: jax.jit(jax.shard_map(
    mismatch, mesh=m3, in_specs=P("x"), out_specs=P("x"), axis_names={"x"}))(B))
# manual over part of a mesh of Explicit axes: the body's types keep the other axes' split
ex = jax.make_mesh((2, 2), ("i", "j"), axis_types=(AxisType.Explicit,) * 2)
ex_seen = []
def ex_body(b):
    ex_seen.append(str(jax.typeof(b)))
    ex_seen.append(repr(jax.typeof(b).sharding.spec))
    r = b * b + 1
    ex_seen.append(repr(jax.typeof(r).sharding.spec))
    return r
def explicit_partial(jit):
    with jax.set_mesh(ex):
        v = jax.device_put(B, P("i", "j"))
        f = jax.shard_map(ex_body, out_specs=P("i", None), axis_names={"i"})
        return (jax.jit(f) if jit else f)(v)
out["explicit_partial_jit"] = res(lambda: explicit_partial(True))
out["explicit_partial_eager"] = res(lambda: explicit_partial(False))
out["explicit_partial_types"] = " ".join(ex_seen)
# vmap with spmd_axis_name: the batch is split over those mesh axes (specs get them first)
def spmd_specs(name):
    f = jax.shard_map(lambda b: b * 2, mesh=mesh, in_specs=P(), out_specs=P())
    e, = jax.make_jaxpr(jax.vmap(f, spmd_axis_name=name))(A).jaxpr.eqns
    r = jax.vmap(f, spmd_axis_name=name)(A)
    return ["ok", np.asarray(r).tolist(),
            [repr(e.params["in_specs"][0]), repr(e.params["out_specs"][0]), layout(r)]]
out["vmap_spmd_pair"] = spmd_specs(("x", "y"))
out["vmap_spmd_one"] = spmd_specs("x")
# closing over a value laid out over Explicit axes (JAX's NotImplementedError), or not
ex1 = jax.make_mesh((2,), ("x",), axis_types=(AxisType.Explicit,))
W = np.ones((2, 4), np.float32)
def close_over(kind):
    with jax.set_mesh(ex1):
        x = jax.device_put(np.ones((4, 4), np.float32), P("x"))
        w = jax.device_put(W, P())
        body = lambda xi: jnp.sum(w * xi, axis=-1)
        if kind == "traced":
            return jax.jit(lambda w, x: jax.shard_map(
                lambda xi: jnp.sum(w * xi, axis=-1), in_specs=P("x"), out_specs=P("x"))(x))(w, x)
        return jax.shard_map(body, in_specs=P("x"), out_specs=P("x"))(x)
out["close_over_laid_out"] = res(lambda: close_over("laid_out"))
out["close_over_traced"] = res(lambda: close_over("traced"))
# (NB: closing over jnp.asarray(W) made under the mesh raises too in JAX, whose eager
# operations under set_mesh lay their results out over it; pyjax's do not)
# DCE drops the inputs only unused outputs read; a residual that is a primal output or an
# input is forwarded (not stacked and returned again)
from jax._src.interpreters import partial_eval as pe
def dce_used():
    def f(x, y, z):
        g = jax.shard_map(lambda y, z: (jnp.sin(x), jnp.cos(z), jnp.tan(y)), mesh=mesh,
                          in_specs=(P("x", "y"), P(None, "x")),
                          out_specs=(P(None, None), P(None, "x"), P("x", "y")))
        return g(y, z)
    jaxpr = jax.make_jaxpr(f)(np.zeros((4, 4)), np.zeros((8, 8)), np.zeros((16, 16))).jaxpr
    return [pe.dce_jaxpr(jaxpr, used)[1] for used in
            ([True, True, True], [True, True, False], [True, False, True], [False, True, True])]
out["dce_used_inputs"] = repr(dce_used())
def forwarding():
    m4 = Mesh(np.array(jax.devices()[:4]), ("i",))
    f1 = jax.jit(jax.shard_map(jax.lax.exp, mesh=m4, in_specs=P("i"), out_specs=P("i")))
    f2 = jax.jit(jax.shard_map(lambda x: (jax.lax.exp(x.sum()) + x, jax.lax.exp(x)), mesh=m4,
                               in_specs=P("i"), out_specs=P("i")))
    saveable = jax.checkpoint_policies.everything_saveable
    r1 = jax.remat(jax.shard_map(jax.lax.exp, mesh=m4, in_specs=P("i"), out_specs=P("i")),
                   policy=saveable)
    r2 = jax.remat(jnp.exp, policy=saveable)
    r3 = jax.remat(f1, policy=saveable)  # (remat of a jit of a shard_map)
    r4 = jax.remat(f2, policy=saveable)  # (an unused primal output of a remat is dropped)
    counts = []
    for g in (lambda x: f1(x).sum(), lambda x: sum(f2(x)).sum(), lambda x: r1(x).sum(),
              lambda x: r2(x).sum(), lambda x: r3(x).sum(), lambda x: sum(r4(x)).sum()):
        j = jax.make_jaxpr(jax.grad(g))(np.arange(16.0, dtype=np.float32)).jaxpr
        j, _ = pe.dce_jaxpr(j, [True] * len(j.outvars))
        e1, *_, e2 = j.eqns
        counts.append([len(e1.outvars), len(e2.invars)])
    return counts
out["residual_forwarding"] = repr(forwarding())
# PartitionSpecs with unreduced/reduced axes: printed, compared; shard_map's checks of them
out["spec_reprs"] = repr([repr(P("x", unreduced={"y"})), repr(P(reduced={"y"})),
                          repr(P(None, unreduced={"x"}, reduced={"y"})),
                          P("x", unreduced={"y"}) == P("x"), P(reduced={"y"}) == P(reduced={"y"})])
m21 = Mesh(np.array(jax.devices()[:2]).reshape(2, 1), ("x", "y"))
out["unreduced_auto_axes"] = res(lambda: jax.shard_map(
    lambda a: a, mesh=m21, in_specs=P(unreduced={"x"}), out_specs=P())(np.arange(8)))
out["unreduced_partly_manual"] = res(lambda: jax.shard_map(
    lambda a: a, mesh=m21, in_specs=P(unreduced={"x"}), out_specs=P(),
    axis_names={"x"})(np.arange(8)))
# JAX's errors: pcast outside a shard_map (eagerly; under jit naming an unbound axis), an
# all-reduce over an unbound name, a spec longer than its value's rank
V = np.arange(8.0, dtype=np.float32)
out["pcast_eager_outside"] = res(lambda: jax.lax.pcast(V, "x", to="varying"))
out["pcast_jit_unbound"] = res(lambda: jax.jit(lambda v: jax.lax.pcast(v, "x", to="varying"))(V))
out["psum_jit_unbound"] = res(lambda: jax.jit(lambda v: jax.lax.psum(v, "x"))(V))
out["spec_too_long"] = res(lambda: jax.shard_map(lambda: {"hi": [3.0]}, mesh=mesh, in_specs=(),
                                                 out_specs={"hi": P("x")})())
# eval_shape inside a body: its ShapeDtypeStructs carry the varying manual axes, and the
# values made like them (full_like, zeros_like) vary along those axes too
es_seen = []
def es_body(a):
    sds = jax.eval_shape(lambda v: v * 2, a)
    es_seen.extend([str(jax.typeof(sds)), repr(sds.manual_axis_type),
                    str(jax.typeof(jax.lax.full_like(sds, 1))),
                    str(jax.typeof(jnp.zeros_like(sds)))])
    return a + jax.lax.full_like(sds, 1)
out["eval_shape_in_body"] = res(lambda: jax.shard_map(es_body, mesh=mesh, in_specs=P("x"),
                                                      out_specs=P("x"))(A))
out["eval_shape_in_body_types"] = " ".join(es_seen)
# jax_remove_size_one_mesh_axis_from_type: a mesh axis of size 1 is left out of vma types
one_seen = []
def size_one():
    m = Mesh(np.array(jax.devices()[:2]).reshape(2, 1), ("x", "y"))
    def body(b):
        one_seen.append(str(jax.typeof(b)))
        r = jax.lax.psum(b, "x")
        one_seen.append(str(jax.typeof(r)))
        return r
    jax.config.update("jax_remove_size_one_mesh_axis_from_type", True)
    try:
        return jax.jit(jax.shard_map(body, mesh=m, in_specs=P("x", "y"), out_specs=P()))(
            np.arange(16.0, dtype=np.float32).reshape(8, 2))
    finally:
        jax.config.update("jax_remove_size_one_mesh_axis_from_type", False)
out["size_one_axis_vma"] = res(size_one)
out["size_one_axis_vma_types"] = " ".join(one_seen)
# an integer argument's cotangent (float0) through a shard_map's transpose, under a sharded jit
def int_cotangent():
    m4 = Mesh(np.array(jax.devices()[:4]), ("x",))
    def loss(x, y):
        return jax.shard_map(lambda a, b: jax.lax.psum((a * b).sum(), "x"), mesh=m4,
                             in_specs=(P("x"), P("x")), out_specs=P())(x, y)
    s4 = NamedSharding(m4, P("x"))
    dx, dy = jax.jit(jax.grad(loss, argnums=(0, 1), allow_int=True), in_shardings=s4)(
        np.arange(8.0, dtype=np.float32), np.arange(8, dtype=np.int32))
    return ["ok", np.asarray(dx).tolist(), [str(dy.dtype), str(dy.shape)]]
out["int_cotangent"] = int_cotangent()
# a host callback of several results inside a shard_map body
def callback_pair(b):
    sds = jax.ShapeDtypeStruct(b.shape, b.dtype)
    return jax.pure_callback(lambda v: (v * 2, v + 1), (sds, sds), b)
out["callback_two_results"] = res(lambda: jax.jit(jax.shard_map(
    callback_pair, mesh=mesh, in_specs=P("x", "y"), out_specs=(P("x", "y"), P("x", "y"))))(A))
m2a = jax.make_mesh((2, 2), ("x", "y"), axis_types=(AxisType.Auto,) * 2)
def smap_nested():
    @jax.smap(axis_name="x", in_axes=0, out_axes=0)
    def f(b):
        @jax.smap(axis_name="y", in_axes=0, out_axes=None)
        def g(c):
            return jax.lax.psum(c, "y")
        return g(jnp.sin(b))
    with jax.set_mesh(m2a):
        return jax.jit(f)(np.arange(8.0, dtype=np.float32))
out["smap_nested_psum"] = res(smap_nested)

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
