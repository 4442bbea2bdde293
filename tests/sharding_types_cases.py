"""Sharding in types (explicit mesh axes): expressions evaluated on JAX 0.10.2
(tests/data/record_sharding_types.py, 8 CPU devices) and on pyjax (tests/test_sharding_types.py).
The prelude builds an explicit 4x2 mesh `mesh`, arrays laid out on it, and small functions that
report the types they see while traced. Results are mostly printed types, specs and jaxprs."""

PRELUDE = '''
import numpy as np
from jax.sharding import PartitionSpec as P, NamedSharding, AxisType, reshard
from jax.sharding import auto_axes, explicit_axes, use_abstract_mesh, get_abstract_mesh

mesh = jax.make_mesh((4, 2), ("x", "y"), axis_types=(AxisType.Explicit,) * 2)
amesh = mesh.abstract_mesh
auto_mesh = jax.make_mesh((4, 2), ("x", "y"), axis_types=(AxisType.Auto,) * 2)
X = np.arange(32, dtype=np.float32).reshape(8, 4)
Y = np.arange(24, dtype=np.float32).reshape(4, 6) / 10
x = jax.device_put(X, NamedSharding(mesh, P("x", None)))
y = jax.device_put(Y, NamedSharding(mesh, P(None, "y")))
xc = jax.device_put(X, NamedSharding(mesh, P(None, "x")))
yr = jax.device_put(Y, NamedSharding(mesh, P("x", None)))
xa = jax.device_put(X, NamedSharding(auto_mesh, P("x", None)))

def seen(f, *args):
    """The types `f` gives while traced under jit inside set_mesh(mesh), as strings."""
    out = []
    def g(*a):
        r = f(*a)
        out.append(str(jax.typeof(r)) if not isinstance(r, (tuple, list))
                   else [str(jax.typeof(v)) for v in r])
        return r
    with jax.set_mesh(mesh):
        jax.jit(g)(*args)
    return out[0]

def spec_at_trace(v):
    out = []
    def g(a):
        out.append(repr(jax.typeof(a).sharding.spec))
        return a
    with jax.set_mesh(mesh):
        jax.jit(g)(v)
    return out[0]

def jaxpr(f, *args):
    with jax.set_mesh(mesh):
        return str(jax.make_jaxpr(f)(*args))

def out_spec(f, *args):
    with jax.set_mesh(mesh):
        r = jax.jit(f)(*args)
    return [repr(v.sharding.spec) for v in jax.tree.leaves(r)]

def value(f, *args):
    with jax.set_mesh(mesh):
        return jax.jit(f)(*args)

def under_abstract(m, f):
    with use_abstract_mesh(m):
        return f()

def in_mesh(f):
    with jax.set_mesh(mesh):
        return f()

mixed_mesh = jax.make_mesh((2, 2, 2), ("x", "y", "z"),
                           axis_types=(AxisType.Explicit, AxisType.Auto, AxisType.Explicit))

ax_mesh = jax.make_mesh((4, 2), ("x", "y"), axis_types=(AxisType.Auto, AxisType.Explicit))

def auto_explicit_out():
    """A jit output on a mesh with an Auto axis: its type says the Explicit part only."""
    with jax.set_mesh(ax_mesh):
        a = jax.device_put(X, NamedSharding(ax_mesh, P("x", "y")))
        b = jax.device_put(np.ascontiguousarray(X.T), NamedSharding(ax_mesh, P(None, "x")))
        out = jax.jit(lambda u, v: jnp.sin(u * 2) @ v)(a, b)
        return repr(out.sharding.spec), str(jax.typeof(out)), np.asarray(out)

def constraints(f, *args, m=None):
    """The shardings of the sharding constraints in `f`'s lowered module (sorted: the order of
    ops differs between the printers)."""
    import re
    with jax.set_mesh(mesh if m is None else m):
        text = jax.jit(f).lower(*args).as_text()
    return sorted(re.search(r"<@[^>]*>", line).group(0) for line in text.splitlines()
                  if "sdy.sharding_constraint" in line)

from jax._src.sharding_impls import GSPMDSharding
from jax._src import api as src_api
from jax.experimental.shard_alike import shard_alike

def gspmd(s, ndim):
    """The GSPMDSharding (devices + XLA HloSharding) laying a rank-`ndim` array out as `s`."""
    return GSPMDSharding(s._device_assignment, s._to_xla_hlo_sharding(ndim))
'''

CASES = [
    # the types of arrays and their printing
    "str(jax.typeof(x))", "str(jax.typeof(y))", "str(jax.typeof(xc))", "repr(jax.typeof(x))",
    "str(jax.typeof(xa))",
    "str(jax.typeof(jax.device_put(X, NamedSharding(mesh, P(('x', 'y'), None)))))",
    "str(jax.typeof(jax.device_put(X, NamedSharding(mesh, P()))))",
    "repr(jax.typeof(x).sharding.spec)", "repr(jax.typeof(x).sharding.mesh.axis_types)",
    "type(jax.typeof(x).sharding.mesh).__name__",
    "str(jax.core.ShapedArray((8, 4), np.float32, sharding=NamedSharding(amesh, P('x'))))",
    "jax.core.ShapedArray((8, 4), np.float32, sharding=NamedSharding(amesh, P('x'))) == "
    "jax.core.ShapedArray((8, 4), np.float32, sharding=NamedSharding(amesh, P('x')))",
    "jax.core.ShapedArray((8, 4), np.float32, sharding=NamedSharding(amesh, P('x'))) == "
    "jax.core.ShapedArray((8, 4), np.float32, sharding=NamedSharding(amesh, P(None, 'y')))",
    "str(jax.core.ShapedArray((8, 4), np.float32, sharding=NamedSharding(amesh, P('x'))).update(sharding=NamedSharding(amesh, P(None, 'y'))))",
    "spec_at_trace(x)", "spec_at_trace(y)", "spec_at_trace(X)",
    # the mesh in context
    "repr(get_abstract_mesh().axis_names)", "in_mesh(lambda: get_abstract_mesh().axis_names)",
    "in_mesh(lambda: [t.name for t in get_abstract_mesh().axis_types])",
    "in_mesh(lambda: get_abstract_mesh().are_all_axes_explicit)",
    "get_abstract_mesh().empty", "in_mesh(lambda: get_abstract_mesh().empty)",
    "auto_mesh.abstract_mesh.are_all_axes_auto", "amesh.are_all_axes_explicit",
    "amesh.explicit_axes", "auto_mesh.abstract_mesh.auto_axes", "amesh.auto_axes",
    "amesh.update_axis_types({'x': AxisType.Auto}).auto_axes",
    "in_mesh(lambda: get_abstract_mesh() == amesh)",
    "under_abstract(amesh.update_axis_types({'x': AxisType.Auto}), lambda: [t.name for t in get_abstract_mesh().axis_types])",
    "under_abstract(amesh, lambda: str(jax.core.ShapedArray((8, 4), np.float32, sharding=NamedSharding(amesh, P('y')))))",
    "get_abstract_mesh().axis_names",
    # elementwise and broadcasting
    "seen(lambda a: a + 1, x)", "seen(lambda a: jnp.sin(a) * a, x)",
    "seen(lambda a, b: a + b, x, x)", "seen(lambda a, b: a + b, x, X)",
    "seen(lambda a, b: a * b, x, xc)",
    "seen(lambda a: a[:, :1] + a, x)", "seen(lambda a: a.astype(jnp.int32), x)",
    "seen(lambda a: jnp.where(a > 3, a, 0.), x)",
    "seen(lambda a: jnp.broadcast_to(a[None], (2, 8, 4)), x)",
    "seen(lambda a: jnp.zeros((3, 5)), x)",
    # reductions
    "seen(lambda a: a.sum(0), x)", "seen(lambda a: a.sum(1), x)", "seen(lambda a: a.sum(), x)",
    "seen(lambda a: a.max(1), xc)", "seen(lambda a: jnp.argmax(a, 1), x)",
    "seen(lambda a: jnp.mean(a, 0, keepdims=True), xc)",
    # dot_general and friends
    "seen(lambda a, b: a @ b, x, y)", "seen(lambda a, b: a @ b, xc, yr)",
    "seen(lambda a, b: jnp.dot(a, b, out_sharding=P('x', 'y')), xc, yr)",
    "seen(lambda a, b: jnp.matmul(a, b, out_sharding=P(None, 'y')), x, y)",
    "seen(lambda a, b: jnp.einsum('ij,jk->ik', a, b, out_sharding=P('x', None)), xc, yr)",
    "seen(lambda a, b: jnp.einsum('ij,jk->ik', a, b), x, y)",
    "seen(lambda a, b: jax.lax.dot_general(a, b, (((1,), (0,)), ((), ()))), x, y)",
    "seen(lambda a, b: a @ b, xc, jax.device_put(Y, NamedSharding(mesh, P('x', 'y'))))",
    "seen(lambda a, b: a @ b.T, x, x)",
    "seen(lambda a, b: a @ b, x, jax.device_put(Y, NamedSharding(mesh, P(None, 'x'))))",
    "value(lambda a, b: a @ b, x, y)", "out_spec(lambda a, b: a @ b, x, y)",
    "value(lambda a, b: jnp.dot(a, b, out_sharding=P('x', 'y')), xc, yr)",
    "out_spec(lambda a, b: jnp.dot(a, b, out_sharding=P('x', 'y')), xc, yr)",
    # shapes
    "seen(lambda a: a.T, x)", "seen(lambda a: a.reshape(8, 2, 2), x)",
    "seen(lambda a: a.reshape(2, 4, 4), x)", "seen(lambda a: a.reshape(32), x)",
    "seen(lambda a: a.reshape(4, 8), x)", "seen(lambda a: a[None], x)",
    "seen(lambda a: jnp.expand_dims(a, 2), x)", "seen(lambda a: a[:, None, :].squeeze(1), x)",
    "seen(lambda a: jnp.concatenate([a, a], 1), x)", "seen(lambda a: jnp.concatenate([a, a], 0), x)",
    "seen(lambda a: a[:, 1:3], x)", "seen(lambda a: a[2:6], x)",
    "seen(lambda a: jnp.stack([a, a]), x)", "seen(lambda a: jnp.pad(a, ((0, 0), (1, 1))), x)",
    "seen(lambda a: jnp.cumsum(a, 1), x)", "seen(lambda a: jnp.sort(a, 1), x)",
    "seen(lambda a: jnp.flip(a, 1), x)",
    # gather and scatter
    "seen(lambda a: a[:, jnp.array([0, 2])], x)", "seen(lambda a: a.at[:, 1].set(0.), x)",
    "seen(lambda a: a.at[:, jnp.array([0, 2])].add(1.), x)",
    "seen(lambda a: jnp.take(a, jnp.array([0, 1]), axis=1), x)",
    # reshard
    "seen(lambda a: reshard(a, P(None, 'x')), x)", "seen(lambda a: reshard(a, P()), x)",
    "str(jax.typeof(reshard(x, NamedSharding(mesh, P(None, 'y')))))",
    "repr(reshard(x, NamedSharding(mesh, P(None, 'y'))).sharding.spec)",
    "np.asarray(reshard(x, NamedSharding(mesh, P(None, 'y'))))",
    "in_mesh(lambda: str(jax.typeof(reshard(x, P('y', None)))))",
    "out_spec(lambda a: reshard(a * 2, P(None, 'x')), x)",
    "value(lambda a: reshard(a * 2, P(None, 'x')), x)",
    "jaxpr(lambda a: reshard(a, P(None, 'x')), x)",
    # jaxprs print the types
    "jaxpr(lambda a, b: a @ b, x, y)", "jaxpr(lambda a: jnp.sin(a).sum(0), x)",
    "jaxpr(lambda a: a.T * 2., x)",
    # grads keep the primal shardings
    "seen(lambda a: jax.grad(lambda v: (jnp.sin(v) ** 2).sum())(a), x)",
    "seen(lambda a, b: jax.grad(lambda u, v: (u @ v).sum(), argnums=(0, 1))(a, b), x, y)",
    "out_spec(lambda a, b: jax.grad(lambda u, v: (u @ v).sum(), argnums=(0, 1))(a, b), x, y)",
    "value(lambda a, b: jax.grad(lambda u, v: (u @ v).sum(), argnums=(0, 1))(a, b), x, y)",
    "seen(lambda a: jax.jvp(jnp.sin, (a,), (a,))[1], x)",
    # control flow
    "seen(lambda a: jax.lax.scan(lambda c, r: (c + r, r * 2), a[0], a)[0], xc)",
    "seen(lambda a: jax.lax.scan(lambda c, r: (c + r, r * 2), a[0], a)[1], xc)",
    "seen(lambda a: jax.lax.cond(True, lambda v: v * 2, lambda v: v + 1, a), x)",
    "seen(lambda a: jax.lax.while_loop(lambda c: c[1] < 3, lambda c: (c[0] * 2, c[1] + 1), (a, 0))[0], x)",
    "seen(lambda a: jax.lax.fori_loop(0, 3, lambda i, v: v + 1, a), x)",
    "seen(lambda a: jax.vmap(lambda r: r * 2)(a), x)",
    "seen(lambda a: jax.vmap(lambda r: r.sum())(a), x)",
    "seen(lambda a: jax.vmap(lambda r: r * 2, in_axes=1)(a), xc)",
    "value(lambda a: jax.lax.scan(lambda c, r: (c + r, r * 2), a[0], a)[0], xc)",
    # auto_axes / explicit_axes
    "seen(lambda a: auto_axes(lambda v: v * 2, out_sharding=P('x', None))(a), x)",
    "seen(lambda a: auto_axes(lambda v: str(jax.typeof(v)) and v, out_sharding=P(None, 'x'))(a), x)",
    "in_mesh(lambda: repr(jax.jit(lambda a: auto_axes(lambda v: v @ v.T, out_sharding=P('x', None))(a))(xc).sharding.spec))",
    "in_mesh(lambda: np.asarray(jax.jit(lambda a: auto_axes(lambda v: v @ v.T, out_sharding=P('x', None))(a))(xc)))",
    "seen(lambda a: explicit_axes(lambda v: v * 2, in_sharding=P('x', None))(a), x)",
    # errors
    "seen(lambda a, b: a @ b, xc, jax.device_put(Y, NamedSharding(mesh, P('x', None))))",
    "seen(lambda a, b: a + b, x, xc)",
    "seen(lambda a, b: a @ b, jax.device_put(X, NamedSharding(mesh, P('y', 'x'))), jax.device_put(Y, NamedSharding(mesh, P('x', 'y'))))",
    "seen(lambda a: jnp.dot(a, a.T, out_sharding=P('x', 'x')), x)",
    "reshard(X, P('x'))",
    "explicit_axes(lambda v: v, in_sharding=P('x'))(X)",
    "auto_axes(lambda v: v)(X)",
    # typed results of placement and creation (issue 23: JAX's pjit_test / random_lax_test)
    "in_mesh(lambda: str(jax.typeof(jax.device_put(jnp.ones(8), P('x')))))",
    "in_mesh(lambda: str(jax.typeof(jax.device_put(jnp.ones((8, 4)), NamedSharding(mesh, P(None, 'y'))))))",
    "in_mesh(lambda: str(jax.typeof(reshard(jnp.ones(8), P('x')))))",
    "in_mesh(lambda: str(jax.typeof(jnp.ones((8, 4), out_sharding=P('x')))))",
    "in_mesh(lambda: repr(jnp.zeros((8, 4), out_sharding=NamedSharding(mesh, P(None, 'y'))).sharding))",
    "in_mesh(lambda: str(jax.typeof(jnp.full_like(x, 2., out_sharding=P(None, 'y')))))",
    "in_mesh(lambda: str(jax.typeof(jnp.array(X, out_sharding=P('x')))))",
    "seen(lambda a: jnp.ones((8, 2), out_sharding=P('x')) + 1, x)",
    "jnp.ones(4, device=jax.devices()[1], out_sharding=NamedSharding(mesh, P('x')))",
    # out_sharding of the random samplers: the values without it, laid out as asked
    "in_mesh(lambda: repr(jax.random.uniform(jax.random.key(0), (8,), out_sharding=P('x')).sharding))",
    "in_mesh(lambda: np.asarray(jax.random.uniform(jax.random.key(0), (8,), out_sharding=P('x'))))",
    "in_mesh(lambda: repr(jax.jit(lambda k: jax.random.normal(k, (8, 2), out_sharding=P('x', 'y')))(jax.random.key(1)).sharding))",
    "in_mesh(lambda: np.asarray(jax.jit(lambda k: jax.random.normal(k, (8, 2), out_sharding=P('x', 'y')))(jax.random.key(1))))",
    "in_mesh(lambda: str(jax.typeof(jax.random.bits(jax.random.key(2), (8,), out_sharding=P('x')))))",
    "in_mesh(lambda: np.asarray(jax.random.gamma(jax.random.key(3), 2., (8,), out_sharding=NamedSharding(mesh, P('x')))))",
    "in_mesh(lambda: seen(lambda k: jax.random.truncated_normal(k, -1., 1., (8, 2), out_sharding=P(None, 'y')), jax.random.key(4)))",
    # the mesh of a jit output resharded inside auto_axes keeps the context's axis types
    "in_mesh(lambda: repr(jax.jit(lambda a: auto_axes(lambda v: v * 2, out_sharding=P('x', None))(a))(X).sharding))",
    # reshape's out_sharding (jnp and lax)
    "seen(lambda a: jnp.reshape(a, (2, 16), out_sharding=P(None, 'y')) * 2, x)",
    "value(lambda a: jnp.reshape(a, (2, 16), out_sharding=P(None, 'y')) * 2, x)",
    "seen(lambda a: jax.lax.reshape(a, (32,), out_sharding=P('x')), x)",
    "out_spec(lambda a: jax.grad(lambda v: jax.lax.reshape(v, (32,), out_sharding=P('x')).sum())(a), x)",
    "in_mesh(lambda: str(jax.typeof(jnp.reshape(x, (8, 4), out_sharding=P(None, 'x')))))",
    # Sharding.is_equivalent_to
    "NamedSharding(mesh, P('x')).is_equivalent_to(NamedSharding(mesh, P('x', None)), 2)",
    "NamedSharding(mesh, P('x')).is_equivalent_to(NamedSharding(mesh, P()), 1)",
    "NamedSharding(mesh, P()).is_equivalent_to(NamedSharding(mesh, P(None, None)), 2)",
    "NamedSharding(mesh, P('x')).is_equivalent_to(NamedSharding(auto_mesh, P('x')), 1)",
    "NamedSharding(mesh, P('x')).is_equivalent_to(NamedSharding(mesh, P('y')), 1)",
    "jax.sharding.SingleDeviceSharding(jax.devices()[0]).is_equivalent_to(NamedSharding(jax.make_mesh((1,), ('z',)), P('z')), 1)",
    "jax.sharding.SingleDeviceSharding(jax.devices()[0]).is_equivalent_to(jax.sharding.SingleDeviceSharding(jax.devices()[1]), 1)",
    # ManualAxisType
    "repr(jax.sharding.ManualAxisType(varying=frozenset({'x'})))",
    "jax.sharding.ManualAxisType(varying=frozenset({'x'})) is jax.sharding.ManualAxisType(varying=frozenset({'x'}))",
    "jax.sharding.ManualAxisType(varying=frozenset({'x'}), unreduced=frozenset({'x'}))",
    "jax.sharding.ManualAxisType().update(reduced=frozenset({'y'})).reduced == {'y'}",
    # the sharding constraint after each operation whose type carries a sharding (JAX's pjit_test
    # check_wsc_in_lowered); open dimensions and replicated Explicit axes on a mesh with Auto axes
    "constraints(lambda a: (a ** 3) * 2, x)", "constraints(lambda a: a.sum(0), x)",
    "constraints(lambda a: jnp.concatenate([a, a], 1), x)", "constraints(lambda a: a.reshape(32), x)",
    "constraints(lambda a: jnp.sin(a).astype(jnp.int32), x)",
    "constraints(lambda a: jax.lax.cond(a.sum() > 0, lambda: a, lambda: -a), x)",
    "constraints(lambda a: jax.lax.while_loop(lambda c: c.sum() < 100, lambda c: c + 1, a), x)",
    "constraints(lambda a: jnp.sin(a) * 2, jax.device_put(X, NamedSharding(mixed_mesh, P('x'))), m=mixed_mesh)",
    "constraints(lambda a: jnp.sin(a), xa, m=auto_mesh)",
    "constraints(lambda a: a * 2, jax.ShapeDtypeStruct((8, 4), np.float32, sharding=NamedSharding(mesh, P('x', 'y'))))",
    # eager operations on typed arrays: their results typed (and laid out) from the operands'
    "in_mesh(lambda: repr(jax.lax.rev(x, (1,)).sharding.spec))",
    "in_mesh(lambda: repr(jnp.pad(x, ((0, 0), (1, 1)), mode='reflect').sharding.spec))",
    "in_mesh(lambda: str(jax.typeof(jnp.sin(x) * 2)))",
    "auto_explicit_out()",
    # a ShapeDtypeStruct given a PartitionSpec: read over the mesh in context
    "in_mesh(lambda: repr(jax.ShapeDtypeStruct((8, 4), np.float32, sharding=P('x')).sharding.spec))",
    "jax.ShapeDtypeStruct((8, 4), np.float32, sharding=P('x')).sharding",
    # gather's layout as JAX resolves it: indices split along a non-batching dimension are
    # ambiguous; batching dimensions (a vmapped gather) take the common entry
    "seen(lambda a, i: a[i, :], jax.device_put(X, NamedSharding(mesh, P())), jax.device_put(np.array([0, 2, 1, 3]), NamedSharding(mesh, P('x'))))",
    "seen(lambda a, i: jax.vmap(lambda r, j: r[j])(a, i), x, jax.device_put(np.array([[0, 1]] * 8), NamedSharding(mesh, P('x', None))))",
    "seen(lambda a, i: jax.vmap(lambda r, j: r[j])(a, i), x, np.array([[0, 1]] * 8))",
    # sort: not along a split dimension; argsort's indices laid out as the operand
    "in_mesh(lambda: jnp.argsort(jax.device_put(np.arange(8.), P('x'))))",
    "seen(lambda a: jnp.argsort(a, axis=0), xc)", "seen(lambda a: jnp.sort(a, axis=0), x)",
    # out_sharding of broadcast/broadcast_in_dim/broadcasted_iota, also under jacfwd (vmap)
    "seen(lambda a: jax.lax.broadcasted_iota(jnp.int32, (8, 4), 1, out_sharding=P('x')), x)",
    "seen(lambda a: jax.lax.broadcast(a[:, 0], [4], out_sharding=P(None, 'x')), x)",
    "seen(lambda a: jax.jacfwd(lambda v: jax.lax.broadcast(v, [4], out_sharding=P('x', 'y')))(a), jax.device_put(np.arange(8.), NamedSharding(mesh, P('y'))))",
    # a key array's sharding: its data's, without the trailing key dimension
    "repr(jax.device_put(jax.random.split(jax.random.key(0), 8), NamedSharding(auto_mesh, P('x'))).sharding)",
    "repr(jax.device_put(jax.random.split(jax.random.key(0), 8).reshape(4, 2), NamedSharding(mesh, P(None, 'y'))).sharding)",
    "repr(jax.device_put(jax.random.key(0), jax.sharding.SingleDeviceSharding(jax.devices()[1])).sharding)",
    # the XLA HloSharding of a NamedSharding, and GSPMDSharding (devices + HloSharding)
    "NamedSharding(mesh, P('y', 'x'))._to_xla_hlo_sharding(2).tile_assignment_dimensions()",
    "NamedSharding(mesh, P('y', 'x'))._to_xla_hlo_sharding(2).tile_assignment_devices()",
    "NamedSharding(mesh, P('x'))._to_xla_hlo_sharding(2).replicate_on_last_tile_dim()",
    "NamedSharding(mesh, P())._to_xla_hlo_sharding(2).is_replicated()",
    "repr(gspmd(NamedSharding(mesh, P('y', 'x')), 2).devices_indices_map((8, 4))[jax.devices()[1]])",
    "gspmd(NamedSharding(mesh, P('x')), 2).shard_shape((8, 4))",
    "[gspmd(NamedSharding(mesh, P('x')), 2).is_fully_replicated, gspmd(NamedSharding(mesh, P()), 2).is_fully_replicated, gspmd(NamedSharding(mesh, P('x')), 2).num_devices]",
    "gspmd(NamedSharding(mesh, P()), 2) == GSPMDSharding.get_replicated(jax.devices())",
    "hash(gspmd(NamedSharding(mesh, P()), 2)) == hash(GSPMDSharding.get_replicated(jax.devices()))",
    "gspmd(NamedSharding(mesh, P('x')), 2) == gspmd(NamedSharding(mesh, P('y')), 2)",
    "gspmd(NamedSharding(mesh, P('x')), 2).memory_kind",
    "[jax.device_put(X, gspmd(NamedSharding(mesh, P('y', 'x')), 2)).sharding == gspmd(NamedSharding(mesh, P('y', 'x')), 2), np.asarray(jax.device_put(X, gspmd(NamedSharding(mesh, P('y', 'x')), 2)))]",
    "[np.asarray(s.data) for s in jax.device_put(X, gspmd(NamedSharding(mesh, P('y', 'x')), 2)).addressable_shards[:3]]",
    "NamedSharding(mesh, P('x', 'y')).check_compatible_aval((8,))",
    "gspmd(NamedSharding(mesh, P('x', 'y')), 2).check_compatible_aval((8,))",
    # jax._src.api.device_put_sharded / device_put_replicated (removed from `jax`)
    "[repr(src_api.device_put_sharded([np.arange(3.) + i for i in range(8)], jax.devices()).sharding), np.asarray(src_api.device_put_sharded([np.arange(3.) + i for i in range(8)], jax.devices()))]",
    "[np.asarray(v) for v in src_api.device_put_sharded([(np.float32(i), np.arange(2) * i) for i in range(4)], jax.devices()[:4])]",
    "np.asarray(src_api.device_put_replicated(np.arange(3), jax.devices()[2:5]))",
    "[s.device.id for s in src_api.device_put_replicated(np.arange(3), jax.devices()[2:5]).addressable_shards]",
    "np.asarray(jax.random.key_data(src_api.device_put_sharded(jnp.unstack(jax.random.split(jax.random.key(0), 8)), jax.devices())))",
    "jax.device_put_sharded",
    "src_api.device_put_sharded([np.ones(2), np.ones(3)], jax.devices()[:2])",
    # jit given SingleDeviceShardings runs on that device (also lowered ahead of time)
    "[sorted(d.id for d in jax.jit(lambda v: v * 2, in_shardings=jax.sharding.SingleDeviceSharding(jax.devices()[3]))(np.arange(4.)).devices()), np.asarray(jax.jit(lambda v: v * 2, in_shardings=jax.sharding.SingleDeviceSharding(jax.devices()[3]))(np.arange(4.)))]",
    "repr(jax.jit(lambda v: v * 2, out_shardings=jax.sharding.SingleDeviceSharding(jax.devices()[2]))(np.arange(4.)).sharding)",
    "sorted(d.id for d in jax.jit(lambda v: v * 2, in_shardings=jax.sharding.SingleDeviceSharding(jax.devices()[3])).lower(np.arange(4.)).compile()(np.arange(4.)).devices())",
    "jax.jit(lambda v: v, in_shardings=jax.sharding.SingleDeviceSharding(jax.devices()[0]))(v=np.arange(4.))",
    "jax.jit(lambda v: v, in_shardings=jax.sharding.SingleDeviceSharding(jax.devices()[0]), out_shardings=jax.sharding.SingleDeviceSharding(jax.devices()[1]))(np.arange(4.))",
    # jit's checks: device and backend together; an argument committed to another layout than
    # in_shardings gives (an equal layout spelled otherwise, or an uncommitted value, is fine)
    "jax.jit(lambda v: v, device=jax.devices()[0], backend='cpu')",
    "jax.jit(lambda v: v, in_shardings=NamedSharding(auto_mesh, P('x')))(jax.device_put(X, NamedSharding(auto_mesh, P('x', 'y'))))",
    "np.asarray(jax.jit(lambda v: v * 2, in_shardings=NamedSharding(auto_mesh, P('x', None)))(jax.device_put(X, NamedSharding(auto_mesh, P('x')))))",
    "repr(jax.jit(lambda v: v * 2, in_shardings=NamedSharding(auto_mesh, P('x')))(X).sharding)",
    # with_sharding_constraint under a mesh of Explicit axes only: an assert on the type
    "seen(lambda a: jax.lax.with_sharding_constraint(a, P(None, 'x')), x)",
    "jaxpr(lambda a: jax.lax.with_sharding_constraint(a, P('x', None)) * 2, x)",
    "NamedSharding(mesh, P(P.UNCONSTRAINED))",
    "repr(NamedSharding(auto_mesh, P(P.UNCONSTRAINED)).spec)",
    "jax.lax.with_sharding_constraint(np.arange(4.), None)",
    # jit on arrays laid out as GSPMDShardings, and given them as in/out_shardings
    "np.asarray(jax.jit(lambda v: v * 2)(jax.device_put(X, gspmd(NamedSharding(auto_mesh, P('y', 'x')), 2))))",
    "sorted((s.device.id, repr(s.index)) for s in jax.jit(lambda v: v * 2, out_shardings=gspmd(NamedSharding(auto_mesh, P('x')), 2))(X).addressable_shards)",
    "sorted((s.device.id, repr(s.index)) for s in jax.jit(lambda v: v + 1, in_shardings=gspmd(NamedSharding(auto_mesh, P(None, 'y')), 2), out_shardings=gspmd(NamedSharding(auto_mesh, P('y', 'x')), 2))(X).addressable_shards)",
    "np.asarray(jax.jit(lambda v: v + 1, in_shardings=gspmd(NamedSharding(auto_mesh, P(None, 'y')), 2), out_shardings=gspmd(NamedSharding(auto_mesh, P('y', 'x')), 2))(X))",
    # .at[...].get/set(out_sharding=): the gather/scatter run with the Explicit axes made Auto
    "seen(lambda a, i: a.at[i, :].get(out_sharding=P('x')), jax.device_put(X, NamedSharding(mesh, P())), jax.device_put(np.array([0, 2, 1, 3]), NamedSharding(mesh, P('x'))))",
    "value(lambda a, i: a.at[i, :].get(out_sharding=P('x')), jax.device_put(X, NamedSharding(mesh, P())), jax.device_put(np.array([0, 2, 1, 3]), NamedSharding(mesh, P('x'))))",
    "value(lambda a, i, j: a.at[:, i].set(a.at[:, j].get(out_sharding=jax.typeof(i).sharding), out_sharding=jax.typeof(a).sharding), jax.device_put(np.arange(24.).reshape(8, 3), NamedSharding(mesh, P('x'))), jax.device_put(np.array([0, 1, 2, 0, 1, 2, 0, 1]), NamedSharding(mesh, P('x'))), jax.device_put(np.array([2, 2, 1, 0, 0, 1, 2, 1]), NamedSharding(mesh, P('x'))))",
    "seen(lambda a, i: a.at[i].add(1., out_sharding=P('x', None)), x, jnp.array([0, 3]))",
    # an eager result reports its type's sharding also where a mesh axis of size 1 splits it
    "repr(jnp.reshape(jax.device_put(np.ones((8, 4, 4), np.float32), NamedSharding(jax.make_mesh((1, 8), ('a', 'b'), axis_types=(AxisType.Explicit,) * 2), P(None, None, 'a'))), (32, 4)).sharding.spec)",
    # shard_alike: the second value laid out as the first (a sharding group for XLA)
    "[o.sharding.is_equivalent_to(NamedSharding(auto_mesh, P('x')), 2) for o in jax.jit(lambda a: shard_alike(a, jnp.arange(32.).reshape(8, 4)))(xa)]",
    "[np.asarray(o) for o in jax.jit(lambda a: shard_alike(a * 2, jnp.arange(32.).reshape(8, 4)))(xa)]",
    "jax.jit(lambda a: shard_alike(a, a * 2)).lower(xa).as_text().count('sdy.sharding_group')",
    "[o.sharding.is_equivalent_to(NamedSharding(auto_mesh, P('x')), 2) for o in jax.jit(lambda a, b: jax.vmap(shard_alike, in_axes=(0, 1))(a, b))(xa, jax.device_put(np.ascontiguousarray(X.T), NamedSharding(auto_mesh, P('y', 'x'))))]",
    "jax.jit(lambda a: shard_alike(a, a @ a.T))(xa)",
    "np.asarray(jax.grad(lambda a: shard_alike(a, a * 3.)[1].sum())(xa))",
    # make_array_from_callback / _single_device_arrays errors in JAX's words
    "jax.make_array_from_callback((8, 4), NamedSharding(auto_mesh, P('x')), lambda idx: np.arange(5))",
    "jax.jit(lambda a: jax.make_array_from_single_device_arrays((8,), NamedSharding(auto_mesh, P('x')), [a]))(np.ones(2))",
    # lax.full(sharding=) and full_like: laid out as asked, else as a committed operand is
    "repr(jax.lax.full_like(jax.device_put(jnp.ones((4, 4)), jax.devices()[1]), 1).sharding)",
    "repr(jax.lax.full_like(jax.device_put(jnp.ones((4, 4)), jax.devices()[1]), 1., shape=()).sharding)",
    "[repr(jax.lax.full((8,), 1.5, sharding=NamedSharding(auto_mesh, P('x'))).sharding), np.asarray(jax.lax.full((8,), 1.5, sharding=NamedSharding(auto_mesh, P('x'))))]",
    "[repr(jax.lax.full_like(xa, 2).sharding), np.asarray(jax.lax.full_like(xa, 2))]",
    "repr(jax.lax.full_like(jnp.ones(4), 2).sharding)",
    "repr(jax.lax.full_like(xa, 2, shape=(3,)).sharding)",
    # PartitionSpec's own checks
    "P('x', 'y', ('z', ('a',)))", "P((('a', 'b'), 'c'))", "type('MyP', (P,), {})",
]
