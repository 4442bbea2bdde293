"""Record JAX 0.10.2's shard_map results for tests/test_shard_map.py: collectives over a (4, 2)
mesh, gradients through every collective and through a replicated argument, and check_vma's
verdicts (errors of unreplicated outputs, values of accepted ones).

    XLA_FLAGS=--xla_force_host_platform_device_count=8 /root/scratch/jaxref/bin/python \
        tests/data/record_shard_map.py
"""
import json
from pathlib import Path

import jax
import jax.numpy as jnp
import numpy as np
from jax import lax
from jax.sharding import AxisType, PartitionSpec as P

assert jax.device_count() == 8, "set XLA_FLAGS=--xla_force_host_platform_device_count=8"

PERM = [(i, (i + 1) % 4) for i in range(4)]
# name -> (body, in_spec, out_spec); the same table is in tests/test_shard_map.py
CASES = {
    "psum_x": (lambda b: lax.psum(b, "x"), P("x"), P()),
    "pmean_xy": (lambda b: lax.pmean(b, ("x", "y")), P("x", "y"), P()),
    "pmax_y": (lambda b: lax.pmax(b, "y"), P(None, "y"), P()),
    "pmin_x": (lambda b: lax.pmin(b, "x"), P("x", "y"), P(None, "y")),
    "all_gather_x": (lambda b: lax.all_gather(b, "x"), P("x"), P("x")),
    "all_gather_tiled_y": (lambda b: lax.all_gather(b, "y", axis=1, tiled=True), P("x", "y"), P("x", "y")),
    "psum_scatter_x": (lambda b: lax.psum_scatter(b, "x", tiled=True), P(None, "y"), P("x", "y")),
    "all_to_all_x": (lambda b: lax.all_to_all(b, "x", 1, 0, tiled=True), P("x"), P(None, "x")),
    "ppermute_x": (lambda b: lax.ppermute(b, "x", PERM), P("x"), P("x")),
    "axis_index": (lambda b: b * lax.axis_index("x") + lax.axis_index("y"), P("x", "y"), P("x", "y")),
    "local_matmul_psum": (lambda b: lax.psum(b @ b.T, "y"), P("x", "y"), P("x")),
}


# gradients of sum(sin(f(a)) * cos(arange)) through these cases
GRAD_CASES = ["psum_x", "pmean_xy", "all_gather_x", "all_gather_tiled_y", "psum_scatter_x",
              "all_to_all_x", "ppermute_x", "axis_index", "local_matmul_psum"]
# check_vma: out_specs that leave out an axis the output may vary along (or not)
VMA_CASES = {
    "all_gather_keeps_varying": (lambda b: lax.all_gather(b, "x"), P("x"), P()),
    "axis_index_varies": (lambda b: b + lax.axis_index("y"), P("x"), P("x")),
    "psum_of_ppermute_ok": (lambda b: lax.psum(lax.ppermute(b, "x", PERM), "x"), P("x"), P()),
    "psum_invariant_ok": (lambda b: lax.psum(b, "y"), P("x"), P("x")),
    "two_outputs": (lambda b: (b, lax.pmax(b, "x")), P("x", "y"), (P("x"), P())),
}


CONTROL_FLOW_VMA = '''
def scan_ok(b):
    return lax.scan(lambda c, x: (c + lax.psum(x, "x"), None), jnp.zeros(8), b)[0]
def scan_bad(b):
    return lax.scan(lambda c, x: (c + x, None), jnp.zeros(8), b)[0]
def fori_ok(b):
    return lax.fori_loop(0, 3, lambda i, c: c * 2 + lax.psum(b, "x").sum(0), jnp.zeros(8))
def fori_bad(b):
    return lax.fori_loop(0, 3, lambda i, c: c * 2 + b.sum(0), jnp.zeros(8))
def cond_ok(b):
    s = lax.psum(b, "x")
    return lax.cond(s.sum() > 0, lambda: s[0], lambda: -s[0])
def cond_bad(b):
    return lax.cond(b.sum() > 0, lambda: b[0] * 0 + 1, lambda: b[0] * 0)
def jit_ok(b):
    return jx.jit(lambda v: lax.psum(v, "x"))(b)
def checkpoint_ok(b):
    return jx.checkpoint(lambda v: lax.psum(jnp.sin(v), "x"))(b)
BODIES = [scan_ok, scan_bad, fori_ok, fori_bad, cond_ok, cond_bad, jit_ok, checkpoint_ok]
'''  # shared with tests/test_shard_map.py: check_vma through control flow (in_specs P("x"),
#       out_specs P()); `jx` is jax or pyjax


MISC = '''
def misc(jx, lax, jnp, P, mesh, X):
    I = (np.arange(64, dtype=np.int32).reshape(8, 8) % 3)
    def int_arg(x, i):
        return jx.shard_map(lambda a, b: lax.psum(a * b, "y"), mesh=mesh,
                            in_specs=(P("x", "y"), P("x", "y")), out_specs=P("x"))(x, i).sum()
    def closure(w):
        g = jx.shard_map(lambda a: jnp.sin(a * w) + lax.axis_index("x"), mesh=mesh,
                         in_specs=P("x"), out_specs=P("x"))
        return (g(X) ** 2).sum()
    def tree(x):
        g = jx.shard_map(lambda d: {"a": d["a"] * 2, "n": None,
                                    "s": lax.pmean(d["a"], ("x", "y"))}, mesh=mesh,
                         in_specs=({"a": P("x", "y")},), out_specs={"a": P("x", "y"), "n": None, "s": P()})
        r = g({"a": x})
        return r["a"].sum() + (r["s"] ** 2).sum()
    sm = lambda v: jx.shard_map(lambda a: lax.psum(jnp.sin(a) ** 2, "x"), mesh=mesh,
                                in_specs=P("x"), out_specs=P())(v).sum()
    ag = lambda v: jx.shard_map(lambda a: lax.all_gather(jnp.sin(a), "x", tiled=True),
                                mesh=mesh, in_specs=P("x"), out_specs=P("x"))(v)
    return {
        "int_arg_grad": jx.grad(int_arg)(X / 10, I),
        "closure_grad": jx.grad(closure)(1.5),
        "closure_jit_grad": jx.jit(jx.grad(closure))(1.5),
        "tree_grad": jx.grad(tree)(X / 10),
        "hessian": jx.hessian(sm)(X[:, 0] / 10),
        "jvp": jx.jvp(ag, (X[:, 0] / 10,), (X[:, 1] / 10,))[1],
        "scalar_arg": jx.shard_map(lambda a, s: lax.psum(a.sum() * s, ("x", "y")), mesh=mesh,
                                   in_specs=(P("x", "y"), P()), out_specs=P())(X, 2.0),
        "jacfwd_vmap": jx.vmap(jx.jacfwd(sm))(X / 10),
        **inside_control_flow(jx, lax, jnp, P, mesh, X / 10),
    }


def inside_control_flow(jx, lax, jnp, P, mesh, X):
    """shard_map inside scan, cond and checkpoint, under jit and grad (eager and jitted)."""
    sm = jx.shard_map(lambda b: jnp.sin(b) + lax.pmean(b, "x"), mesh=mesh,
                      in_specs=P("x", "y"), out_specs=P("x", "y"))
    f = lambda x: lax.scan(lambda c, _: (sm(c), c.sum()), x, None, length=3)
    g = lambda x: lax.cond(x.sum() > 0, sm, lambda v: -v, x)
    c, ys = jx.jit(f)(X)
    return {"scan": c, "scan_ys": ys, "cond": jx.jit(g)(X),
            "scan_grad": jx.grad(lambda x: f(x)[0].sum())(X),
            "cond_grad": jx.grad(lambda x: g(x).sum())(X),
            "checkpoint_jit_grad": jx.jit(jx.grad(lambda x: jx.checkpoint(sm)(x).sum()))(X)}
'''  # shared with tests/test_shard_map.py: integer arguments, closures, pytrees with None,
#       hessian, jvp, scalars, jacfwd under vmap, shard_map inside scan/cond/checkpoint


MULTI_AXIS = '''
def multi_axis(jx, lax, jnp, P, mesh, X):
    """Collectives over two mesh axes at once, in both orders of the names."""
    out = {}
    Z = np.arange(8, dtype=np.float32).reshape(8, 1)
    for names in (("x", "y"), ("y", "x")):
        sp = P(names)
        ring = [(i, (i + 3) % 8) for i in range(8)]
        cases = {
            "axis_index": (lambda b: b * 0 + lax.axis_index(names), sp),
            "all_gather": (lambda b: lax.all_gather(b, names, tiled=True), P()),
            "psum_scatter": (lambda b: lax.psum_scatter(jnp.arange(8.0)[:, None] * (1 + b), names,
                                                        tiled=True), sp),
            "all_to_all": (lambda b: lax.all_to_all(jnp.broadcast_to(b, (8, 1)) * 10
                                                    + jnp.arange(8.0)[:, None], names, 0, 0,
                                                    tiled=True), sp),
            "ppermute": (lambda b: lax.ppermute(b, names, ring), sp),
            "pshuffle": (lambda b: lax.pshuffle(b, names, [1, 2, 3, 4, 5, 6, 7, 0]), sp),
        }
        for k, (body, o) in cases.items():
            f = jx.shard_map(body, mesh=mesh, in_specs=sp, out_specs=o, check_vma=False)
            out[f"{k}_{''.join(names)}"] = f(Z)
        f = jx.shard_map(lambda b: lax.ppermute(b, names, ring), mesh=mesh, in_specs=sp,
                         out_specs=sp)
        g = jx.shard_map(lambda b: lax.all_to_all(b, names, 1, 0, tiled=True), mesh=mesh,
                         in_specs=sp, out_specs=P(None, names))
        out[f"grad_{''.join(names)}"] = jx.grad(lambda a: (jnp.sin(f(a)) * g(a)).sum())(X / 10)
    return out
'''  # shared with tests/test_shard_map.py


def run_misc(jx, m, X):
    env = {"np": np}
    exec(MISC, env)
    exec(MULTI_AXIS, env)
    r = env["misc"](jx, jx.lax, jx.numpy, P, m, X)
    r.update(env["multi_axis"](jx, jx.lax, jx.numpy, P, m, X))
    return {k: np.asarray(v).tolist() for k, v in r.items()}


def control_flow_vma(jx, m, X):
    env = {"jx": jx, "lax": jx.lax, "jnp": jx.numpy}
    exec(CONTROL_FLOW_VMA, env)
    out = {}
    for body in env["BODIES"]:
        try:
            r = jx.jit(jx.shard_map(body, mesh=m, in_specs=P("x"), out_specs=P()))(X)
            out[body.__name__] = [None, np.asarray(r).tolist()]
        except Exception as e:  # noqa: BLE001
            out[body.__name__] = [type(e).__name__, None]
    return out


def weighted_loss(name, m):
    body, i, o = CASES[name]
    f = jax.shard_map(body, mesh=m, in_specs=i, out_specs=o)

    def loss(a):
        y = f(a)
        w = jnp.cos(jnp.arange(y.size, dtype=jnp.float32)).reshape(y.shape)
        return (jnp.sin(y) * w).sum()
    return loss


def replicated_loss(m):
    """A replicated argument (w, P()) used by every device: its cotangent sums over devices."""
    g = jax.shard_map(lambda w, b: lax.psum(jnp.sin(b @ w), "y"), mesh=m,
                      in_specs=(P(), P("x", "y")), out_specs=P("x"))
    return lambda w, a: (g(w, a) ** 2).sum()


LAYOUTS = [P(("y", "x")), P("y", "x"), P(None, ("x", "y")), P(("x", "y"), None), P("x", "y")]


def layouts(jx, m):
    """Each device adds 100 * its x index + 10 * its y index to its block: where each block of
    a layout lives (mesh-axis tuples: the first axis major)."""
    Z = np.zeros((8, 8), np.float32)
    return [np.asarray(jx.shard_map(
        lambda b: b + 100 * jx.lax.axis_index("x") + 10 * jx.lax.axis_index("y"), mesh=m,
        in_specs=s, out_specs=s)(Z)).tolist() for s in LAYOUTS]


def inferred_in_specs(jx, X):
    """in_specs left out: inferred from the arguments over Explicit axes, a TypeError over
    Auto ones. (local shape, result, result spec) or the error class."""
    out = []
    for t in (AxisType.Explicit, AxisType.Auto):
        m = jx.make_mesh((4, 2), ("x", "y"), axis_types=(t,) * 2)
        xs = jx.device_put(X, jx.sharding.NamedSharding(m, P("x")))
        for a in (xs, X):
            seen = []
            try:
                r = jx.shard_map(lambda b: (seen.append(list(b.shape)), b * 2)[1], mesh=m,
                                 out_specs=P("x"))(a)
                out.append([seen[0], np.asarray(r).tolist(), repr(r.sharding.spec)])
            except Exception as e:  # noqa: BLE001
                out.append(type(e).__name__)
    return out


def run_smap(jx, X):
    """jax.smap over one axis of an Explicit mesh in context (`jx` is jax or pyjax)."""
    m = jx.make_mesh((4, 2), ("x", "y"), axis_types=(AxisType.Explicit,) * 2)
    with jx.set_mesh(m):
        r = jx.smap(lambda b: b - jx.lax.pmean(b, "x"), in_axes=0, out_axes=0, axis_name="x")(X)
        g = jx.smap(lambda b, w: jx.lax.psum(b * w, "x"), in_axes=(0, None), out_axes=None,
                    axis_name="x")(X, 2.0)
    return [np.asarray(r).tolist(), repr(r.sharding.spec), np.asarray(g).tolist()]


def run(name, X, m):
    body, i, o = CASES[name]
    return np.asarray(jax.shard_map(body, mesh=m, in_specs=i, out_specs=o)(X)).tolist()


if __name__ == "__main__":
    m = jax.make_mesh((4, 2), ("x", "y"), axis_types=(AxisType.Auto,) * 2)
    X = np.arange(64, dtype=np.float32).reshape(8, 8) / 8.0 - 3.0
    out = {"jax_version": jax.__version__, "x": X.tolist(),
           "cases": {n: run(n, X, m) for n in CASES}}

    def loss(a):
        f = jax.shard_map(lambda b: lax.psum(jnp.sin(lax.ppermute(b, "x", PERM)) ** 2, "x"),
                          mesh=m, in_specs=P("x"), out_specs=P())
        return f(a).sum()
    out["grad"] = np.asarray(jax.grad(loss)(X)).tolist()
    try:
        jax.shard_map(lambda b: b, mesh=m, in_specs=P("x"), out_specs=P())(X)
        out["unreplicated_error"] = None
    except Exception as e:  # noqa: BLE001
        out["unreplicated_error"] = type(e).__name__
    out["no_check"] = np.asarray(jax.shard_map(lambda b: b, mesh=m, in_specs=P("x"), out_specs=P(),
                                               check_vma=False)(X)).tolist()
    out["grads"] = {n: np.asarray(jax.grad(weighted_loss(n, m))(X)).tolist() for n in GRAD_CASES}
    W = np.linspace(-1, 1, 32, dtype=np.float32).reshape(4, 8)
    gw, gx = jax.grad(replicated_loss(m), argnums=(0, 1))(W, X)
    out["w"] = W.tolist()
    out["replicated_grad"] = [np.asarray(gw).tolist(), np.asarray(gx).tolist()]
    out["vma"] = {}
    for n, (body, i, o) in VMA_CASES.items():
        try:
            r = jax.shard_map(body, mesh=m, in_specs=i, out_specs=o)(X)
            out["vma"][n] = [None, np.asarray(r).tolist()]
        except Exception as e:  # noqa: BLE001
            out["vma"][n] = [type(e).__name__, str(e)]
    out["smap"] = run_smap(jax, X)
    out["layouts"] = layouts(jax, m)
    out["inferred_in_specs"] = inferred_in_specs(jax, X)
    out["vma_control_flow"] = control_flow_vma(jax, m, X)
    out["vma_control_flow_src"] = CONTROL_FLOW_VMA  # the test runs the same bodies
    out["misc"] = run_misc(jax, m, X)
    out["misc_src"] = MISC + MULTI_AXIS
    Path(__file__).with_name("shard_map.json").write_text(json.dumps(out))
