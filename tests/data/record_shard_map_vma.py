"""Record JAX 0.10.2's results for shard_map's varying-manual-axes (vma) types, for
tests/test_shard_map.py: a data-parallel MLP step whose loss is pmean'ed inside value_and_grad,
gradients of replicated values inside a check_vma=True body (summed over the devices by the
transpose of JAX's implicit pvary) and with check_vma=False (local), psum of an invariant value
(multiplied by the axis size), scan/cond/fori/jit/vmap inside the body, the types jax.typeof
prints there, the body jaxprs (pvary / psum_invariant equations), and JAX's errors for outputs
whose out_specs claim replication, loop carries and cond branches whose vma differ, and pcast.

Run with the reference venv (the program sets 8 CPU devices itself):
    /work/scratch/jaxref/bin/python tests/data/record_shard_map_vma.py
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

mesh = Mesh(np.array(jax.devices()).reshape(4, 2), ("x", "y"))
rng = np.random.RandomState(0)
X = jnp.asarray(rng.randn(16, 6), jnp.float32)
Y = jnp.asarray(rng.randn(16, 2), jnp.float32)
PARAMS = {"w1": jnp.asarray(rng.randn(6, 8) / 3, jnp.float32), "b1": jnp.zeros(8, jnp.float32),
          "w2": jnp.asarray(rng.randn(8, 2) / 3, jnp.float32), "b2": jnp.zeros(2, jnp.float32)}
W = jnp.asarray(rng.randn(6, 3), jnp.float32)
S = jnp.float32(1.5)
sm = partial(jax.shard_map, mesh=mesh)
out = {"values": {}, "types": {}, "errors": {}, "jaxprs": {}}

def clean(msg):
    return msg.replace(__file__, "<cases>")

def val(name, f):
    try:
        r = f()
        out["values"][name] = ["ok", jax.tree.map(lambda a: np.asarray(a).tolist(), r)]
    except Exception as e:
        out["values"][name] = [type(e).__name__, clean(str(e))]

def err(name, f):
    try:
        f()
        out["errors"][name] = [None, ""]
    except Exception as e:
        out["errors"][name] = [type(e).__name__, clean(str(e))]

# a data-parallel MLP step: the loss pmean'ed over the batch axis inside value_and_grad
def mlp_loss(p, x, y):
    h = jnp.tanh(x @ p["w1"] + p["b1"])
    return jnp.mean((h @ p["w2"] + p["b2"] - y) ** 2)

def dp_step(p, x, y):
    l, g = jax.value_and_grad(lambda p: jax.lax.pmean(mlp_loss(p, x, y), "x"))(p)
    return jax.tree.map(lambda a, b: a - 0.1 * b, p, g), l, g
f_dp = sm(dp_step, in_specs=(P(), P("x"), P("x")), out_specs=(P(), P(), P()))
val("dp_step", lambda: f_dp(PARAMS, X, Y))
val("dp_step_jit", lambda: jax.jit(f_dp)(PARAMS, X, Y))
val("dp_step_unsharded", lambda: jax.value_and_grad(mlp_loss)(PARAMS, X, Y))
# the gradient of a replicated value inside the body is summed over the devices (JAX's pvary)
f_rep = sm(lambda w, a: jax.grad(lambda w: jnp.sum(jnp.tanh(a @ w)))(w),
           in_specs=(P(), P("x")), out_specs=P())
val("replicated_grad", lambda: f_rep(W, X))
val("replicated_grad_jit", lambda: jax.jit(f_rep)(W, X))
val("replicated_grad_2d", lambda: sm(lambda w, a: jax.grad(lambda w: jnp.sum(jnp.tanh(a @ w)))(w),
                                     in_specs=(P(), P("x", "y")), out_specs=P())(W[:3], X))
val("replicated_grad_partly", lambda: sm(lambda w, a: jax.grad(lambda w: jnp.sum(a @ w))(w),
                                         in_specs=(P(), P("x")), out_specs=P("y"))(W, X))
# check_vma=False: the local gradient (no pvary), as JAX
val("replicated_grad_no_check", lambda: sm(
    lambda w, a: jax.grad(lambda w: jnp.sum(jnp.tanh(a @ w)))(w)[None],
    in_specs=(P(), P("x")), out_specs=P("x"), check_vma=False)(W, X))
# psum of an invariant value multiplies it by the axis size
val("psum_invariant", lambda: sm(lambda s: (jax.lax.psum(s, "x"), jax.lax.psum(s, ("x", "y")),
                                            jax.lax.pmean(s, "x"), jax.lax.pmax(s, "y")),
                                 in_specs=P(), out_specs=P())(S))
val("grad_psum_invariant", lambda: jax.grad(lambda s: sm(lambda s: jax.lax.psum(s * s, "x"),
                                                         in_specs=P(), out_specs=P())(s))(S))
val("grad_of_shard_map_replicated", lambda: jax.grad(lambda w: jnp.sum(sm(
    lambda w, a: jnp.tanh(a @ w), in_specs=(P(), P("x")), out_specs=P("x"))(w, X) ** 2))(W))
val("grad_out_pvary", lambda: jax.grad(lambda s: jnp.sum(sm(
    lambda s: s * jnp.ones(2), in_specs=P(), out_specs=P("x"))(s) * jnp.arange(8.0)))(S))
# control flow and transformations inside the body
def scan_body(w, a):
    c, ys = jax.lax.scan(lambda c, r: (c + jnp.sum(r * w[:, 0]), c), jax.lax.pcast(0.0, "x", to="varying"), a)
    return jax.lax.psum(c, "x"), ys
val("scan_pcast_carry", lambda: sm(scan_body, in_specs=(P(), P("x")), out_specs=(P(), P("x")))(W, X))
val("grad_scan", lambda: jax.grad(lambda w: sm(lambda w, a: scan_body(w, a)[0], in_specs=(P(), P("x")),
                                               out_specs=P())(w, X))(W))
val("cond_pcast", lambda: sm(lambda s, a: jax.lax.cond(s > 1, lambda: jax.lax.pcast(s, "x", to="varying"),
                                                       lambda: a[0, 0]) * jnp.ones(1),
                             in_specs=(P(), P("x")), out_specs=P("x"))(S, X))
val("fori_psum", lambda: sm(lambda s, a: jax.lax.fori_loop(0, 3, lambda i, c: c + jax.lax.psum(a[0, 0], "x"), s),
                            in_specs=(P(), P("x")), out_specs=P())(S, X))
val("jit_inside", lambda: sm(lambda w, a: jax.lax.psum(jax.jit(lambda w, a: a @ w)(w, a), "x"),
                             in_specs=(P(), P("x")), out_specs=P())(W, X))
val("vmap_inside_grad", lambda: sm(lambda w, a: jax.vmap(jax.grad(lambda r: jnp.sum(jnp.tanh(r @ w))))(a),
                                   in_specs=(P(), P("x")), out_specs=P("x"))(W, X))
val("vmap_of_shard_map_grad", lambda: jax.vmap(lambda w: sm(
    lambda w, a: jax.grad(lambda w: jnp.sum(jnp.tanh(a @ w)))(w), in_specs=(P(), P("x")),
    out_specs=P())(w, X))(jnp.stack([W, 2 * W])))
def grad_in(loss):
    return sm(lambda w, a: jax.grad(loss)(w, a), in_specs=(P(), P("x")), out_specs=P())(W, X)
val("grad_fori_loop", lambda: grad_in(lambda w, a: jnp.sum(jax.lax.fori_loop(
    0, 3, lambda i, c: jnp.tanh(c @ w[:3, :3]), a[:, :3]))))
val("grad_checkpoint_relu", lambda: grad_in(lambda w, a: jnp.sum(jax.checkpoint(
    lambda w: jax.nn.relu(a @ w))(w))))
val("grad_index_by_axis_index", lambda: grad_in(lambda w, a: jnp.sum(
    jax.lax.dynamic_slice_in_dim(w, jax.lax.axis_index("x"), 2) * a[:2, :3])))
val("grad_all_gather", lambda: grad_in(lambda w, a: jnp.sum(jax.lax.all_gather(a @ w, "x") ** 2)))
val("grad_psum_scatter", lambda: grad_in(lambda w, a: jnp.sum(
    jax.lax.psum_scatter(a @ w, "x", tiled=True) ** 2)))
val("hessian_inside", lambda: sm(lambda w, a: jax.hessian(lambda w: jnp.sum(jnp.tanh(a @ w)))(w),
                                 in_specs=(P(), P("x")), out_specs=P("x"))(W, X))
# all_gather to an invariant value (an FSDP-style weight gather): its transpose slices
def fsdp(w, a):
    full = jax.lax.all_gather(w, "x", tiled=True, to="invarying")
    return jax.lax.psum(jnp.sum(jnp.tanh(a @ full.T)), "x")
f_fsdp = sm(fsdp, in_specs=(P("x"), P("x")), out_specs=P())
WF = X[:8] / 2
val("all_gather_invarying", lambda: f_fsdp(WF, X))
val("grad_all_gather_invarying", lambda: jax.grad(f_fsdp)(WF, X))
val("grad_all_gather_invarying_jit", lambda: jax.jit(jax.grad(f_fsdp))(WF, X))
val("vmap_all_gather_invarying", lambda: jax.vmap(lambda w: f_fsdp(w, X))(jnp.stack([WF, 2 * WF])))
# a custom_vjp whose bwd rule gives a replicated argument's cotangent: it must be invariant
def custom_mm(psum_w):
    @jax.custom_vjp
    def mm(w, a):
        return jnp.sum(jnp.tanh(a @ w))
    def fwd(w, a):
        return mm(w, a), (w, a)
    def bwd(res, g):
        w, a = res
        d = g * (1 - jnp.tanh(a @ w) ** 2)
        gw = a.T @ d
        return (jax.lax.psum(gw, "x") if psum_w else gw), d @ w.T
    mm.defvjp(fwd, bwd)
    return sm(lambda w, a: jax.grad(mm)(w, a), in_specs=(P(), P("x")), out_specs=P())(W3, X3)
W3 = W[:3]
X3 = X[:, :3]
val("custom_vjp_bwd_psum", lambda: custom_mm(True))
# a bwd rule whose cotangent is ones_like the output cotangent: typed as varying, as JAX's
@jax.custom_vjp
def twice(x):
    return 2.0 * x
twice.defvjp(lambda x: (twice(x), None), lambda _, g: (jnp.ones_like(g),))
f_twice = sm(lambda x: twice(x) * x, in_specs=P("x"), out_specs=P("x"))
val("custom_vjp_ones_like_ct", lambda: jax.value_and_grad(lambda x: f_twice(x).sum())(X[:, 0]))
val("custom_vjp_bwd_varying_ct", lambda: custom_mm(False))
# in_specs left out over an Explicit mesh, under jit: read from the arguments' types
emesh = jax.make_mesh((4, 2), ("x", "y"), axis_types=(jax.sharding.AxisType.Explicit,) * 2)
def inferred():
    with jax.set_mesh(emesh):
        a = jax.device_put(X, P("x", None))
        w = jax.device_put(S, P())
        f = jax.jit(jax.shard_map(lambda a, w: (a * w, jax.lax.psum(jnp.sum(a), "x")),
                                  out_specs=(P("x"), P())))
        r = f(a, w)
        g = jax.grad(lambda w: jnp.sum(f(a, w)[0]))(w)
        return r[0], r[1], g, str(jax.typeof(r[0])), str(r[0].sharding.spec)
val("infer_in_specs_under_jit", inferred)
# types as jax.typeof prints them inside the body
def typed(a, w, s):
    t = {}
    t["a"], t["w"], t["s"] = jax.typeof(a), jax.typeof(w), jax.typeof(s)
    b = a @ w
    t["a@w"] = jax.typeof(b)
    t["psum_x"] = jax.typeof(jax.lax.psum(b, "x"))
    t["psum_xy"] = jax.typeof(jax.lax.psum(b, ("x", "y")))
    t["psum_w"] = jax.typeof(jax.lax.psum(w, "y"))
    t["pmax_y"] = jax.typeof(jax.lax.pmax(b, "y"))
    t["axis_index_y"] = jax.typeof(jax.lax.axis_index("y"))
    t["all_gather_x"] = jax.typeof(jax.lax.all_gather(b, "x"))
    t["all_gather_invarying"] = jax.typeof(jax.lax.all_gather(b, "x", to="invarying"))
    t["all_gather_w"] = jax.typeof(jax.lax.all_gather(w, "y", tiled=True))
    t["ppermute_y"] = jax.typeof(jax.lax.ppermute(s, "y", [(0, 1), (1, 0)]))
    t["psum_scatter"] = jax.typeof(jax.lax.psum_scatter(b, "x", tiled=True))
    t["pcast_w"] = jax.typeof(jax.lax.pcast(w, ("y", "x"), to="varying"))
    t["s+a"] = jax.typeof(s + a)
    t["jit"] = jax.typeof(jax.jit(lambda u, v: u * v)(s, a))
    t["grad_w"] = jax.typeof(jax.grad(lambda w: jnp.sum(a @ w))(w))
    t["vmap"] = jax.typeof(jax.vmap(lambda r: r @ w)(a))
    t["scan_ys"] = jax.typeof(jax.lax.scan(lambda c, r: (c, r * s), s, a)[1])
    t["cond"] = jax.typeof(jax.lax.cond(s > 0, lambda: s, lambda: -s))
    t["iota"] = jax.typeof(jnp.arange(3))
    t["zeros_like"] = jax.typeof(jnp.zeros_like(a))
    t["ones_like_int"] = jax.typeof(jnp.ones_like(a, dtype=jnp.int32))
    t["full_like"] = jax.typeof(jax.lax.full_like(b, 2.0))
    t["zeros_like_w"] = jax.typeof(jnp.zeros_like(w))
    am = jax.sharding.get_abstract_mesh()
    t["manual_axes"] = am.manual_axes
    t["invarying_w"] = sorted(jax.typeof(w).mat.invarying(am))
    t["invarying_psum_x"] = sorted(jax.typeof(jax.lax.psum(b, "x")).mat.invarying(am))
    out["types"].update({k: str(v) for k, v in t.items()})
    return b
jax.jit(sm(typed, in_specs=(P("x", "y"), P(), P()), out_specs=P("x", "y")))(X, W[:3, :2], S)
# the body jaxpr (vma types and the implicit pvary/psum_invariant equations)
def body_text(f, *args):
    return str(jax.make_jaxpr(f)(*args).eqns[0].params["jaxpr"])
out["jaxprs"]["mul_psum"] = body_text(sm(lambda a, s: jax.lax.psum(a * s, "x"), in_specs=(P("x", "y"), P()),
                                         out_specs=P(None, "y")), X, S)
out["jaxprs"]["psum_of_invariant"] = body_text(sm(lambda s: jax.lax.psum(s, "x"), in_specs=P(),
                                                  out_specs=P()), S)
out["jaxprs"]["out_pvary"] = body_text(sm(lambda s: s * jnp.ones(2), in_specs=P(), out_specs=P("x")), S)
# errors
def double(a):
    return a * 2
def pair(a):
    return a, {"u": [a * 2]}
def add(a, b):
    return a + b, b
err("out_specs_x", lambda: jax.jit(sm(double, in_specs=P("x"), out_specs=P()))(X))
err("out_specs_xy", lambda: jax.jit(sm(double, in_specs=P("x", "y"), out_specs=P()))(X))
err("out_specs_tree", lambda: jax.jit(sm(pair, in_specs=P("x"), out_specs=(P("x"), {"u": [P()]})))(X))
err("out_specs_y_missing", lambda: jax.jit(sm(add, in_specs=(P("x"), P("y")),
                                              out_specs=(P("x"), P("y"))))(X, X[:8]))
err("scan_carry", lambda: sm(lambda a: jax.lax.scan(lambda c, r: (c + r, c), jnp.zeros(6), a)[0],
                             in_specs=P("x"), out_specs=P())(X))
err("fori_carry", lambda: sm(lambda a, s: jax.lax.fori_loop(0, 3, lambda i, c: c + a[0, 0], s),
                             in_specs=(P("x"), P()), out_specs=P())(X, S))
err("while_carry", lambda: sm(lambda a, s: jax.lax.while_loop(lambda c: c < 10, lambda c: c + a[0, 0], s),
                              in_specs=(P("x"), P()), out_specs=P())(X, S))
err("cond_branches", lambda: sm(lambda a, s: jax.lax.cond(s > 0, lambda: a[0, 0], lambda: s),
                                in_specs=(P("x"), P()), out_specs=P())(X, S))
err("pcast_varying_twice", lambda: sm(lambda a: jax.lax.pcast(a, "x", to="varying"),
                                      in_specs=P("x"), out_specs=P("x"))(X))
err("pcast_bad_to", lambda: sm(lambda a: jax.lax.pcast(a, "x", to="invariant"),
                               in_specs=P(), out_specs=P())(X))
from jax._src import config as jax_config
def scale(a, s):
    return a * s
def scale_pcast(a, s):
    return a * jax.lax.pcast(s, "x", to="varying")
def no_auto_pcast(f):
    with jax_config.auto_pcast(False):
        return jax.jit(sm(f, in_specs=(P("x"), P()), out_specs=P("x")))(X, S)
err("auto_pcast_off", lambda: no_auto_pcast(scale))
val("auto_pcast_off_with_pcast", lambda: no_auto_pcast(scale_pcast))
err("no_check_ok", lambda: sm(lambda a: a * 2, in_specs=P("x"), out_specs=P(), check_vma=False)(X))
print(json.dumps(out))
'''


def run_cases(argv, env=None):
    """Run CASES with the command `argv` (its last item the program's path); the JSON printed."""
    res = subprocess.run(argv, capture_output=True, text=True, timeout=600, env=env)
    assert res.returncode == 0, res.stderr[-3000:]
    return json.loads(res.stdout.strip().splitlines()[-1])


if __name__ == "__main__":
    import tempfile

    import jax
    with tempfile.NamedTemporaryFile("w", suffix=".py") as f:
        f.write(CASES)
        f.flush()
        results = run_cases([sys.executable, f.name])
    Path(__file__).with_name("shard_map_vma.json").write_text(json.dumps(
        {"jax_version": jax.__version__, **results}, indent=1))
