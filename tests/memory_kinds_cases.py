"""Memory kinds (issue 26, item 4): expressions evaluated on JAX 0.10.2
(tests/data/record_memory_kinds.py, 8 CPU devices) and on pyjax (tests/test_memory_kinds.py).
The CPU client offers each device three memories: `device` (the default), `pinned_host` and
`unpinned_host`; an array placed in `pinned_host` is typed `float32<host>[4]`, and operations on
it (eager or under jit) keep it there. Results are mostly reprs, printed types and jaxprs."""

PRELUDE = r'''
import re
import numpy as np
import jax.ad_checkpoint
from jax._src.ad_checkpoint import saved_residuals
from jax.sharding import NamedSharding, PartitionSpec as P, SingleDeviceSharding

d0 = jax.devices()[0]
dev = SingleDeviceSharding(d0)
pinned = dev.with_memory_kind("pinned_host")
unpinned = dev.with_memory_kind("unpinned_host")
mesh = jax.make_mesh((2,), ("x",))
named = NamedSharding(mesh, P("x"), memory_kind="pinned_host")
A = np.arange(4, dtype=np.float32)
xh = jax.device_put(A, pinned)

def kind(v):
    return v.sharding.memory_kind

def attrs(f, *args, **jit_kw):
    """The memory-kind attributes of `main`'s arguments and results in f's lowered module, and
    the placements its annotate_device_placement custom calls ask for."""
    text = jax.jit(f, **jit_kw).lower(*args).as_text()
    main = next(line for line in text.splitlines() if "func.func public @main" in line)
    return (re.findall(r'mhlo.memory_kind = "[a-z_]+"', main),
            re.findall(r'_xla_buffer_placement = "[a-z_]+"', text))

def moves(f, *args):
    """The device_put equations of f's jaxpr: (result type, copy semantics, destination)."""
    text = str(jax.make_jaxpr(f)(*args))
    return sorted(re.findall(r":(\S+) = device_put\[\s*copy_semantics=\((\S+),\)\s*"
                             r"devices=\(([\w.]+)", text))

def two_layers(x, w):
    y = jax.ad_checkpoint.checkpoint_name(jnp.sin(x @ w), "y")
    z = jax.ad_checkpoint.checkpoint_name(jnp.cos(y @ w), "z")
    return (z * y).sum()

by_name = jax.checkpoint(two_layers, policy=jax.checkpoint_policies.save_and_offload_only_these_names(
    names_which_can_be_saved=["z"], names_which_can_be_offloaded=["y"], offload_src="device",
    offload_dst="pinned_host"))
dots = jax.checkpoint(two_layers, policy=jax.checkpoint_policies.offload_dot_with_no_batch_dims(
    "device", "pinned_host"))
X = jnp.arange(16.).reshape(4, 4) / 10
W = jnp.eye(4) * 0.5 + 0.1

def residual_types(f):
    return [str(a) for a, _ in saved_residuals(f, X, W)]

nd = NamedSharding(mesh, P("x"))
to_host = jax.jit(lambda a: a * 2, in_shardings=nd, out_shardings=named)
from_host = jax.jit(lambda a: a * 2, in_shardings=named, out_shardings=nd)
'''

CASES = [
    # the memories of a CPU device
    "[m.kind for m in d0.addressable_memories()]", "d0.default_memory().kind",
    "[repr(s) for s in (dev, pinned, unpinned)]", "pinned == dev", "pinned == unpinned",
    "repr(named)", "named == NamedSharding(mesh, P('x'))",
    "repr(NamedSharding(mesh, P('x')).with_memory_kind('unpinned_host'))",
    "SingleDeviceSharding(d0, memory_kind='hbm')",
    # placing data in a memory, and its type
    "repr(xh.sharding)", "str(jax.typeof(xh))", "repr(jax.typeof(xh))", "np.asarray(xh)",
    "str(jax.typeof(jax.device_put(A, unpinned)))", "kind(jax.device_put(A, unpinned))",
    "kind(jax.device_put(xh, dev))", "str(jax.typeof(jax.device_put(xh, dev)))",
    "np.asarray(jax.device_put(xh, dev))",
    "kind(jax.device_put(jax.device_put(A, dev), pinned))",
    "repr(jax.device_put(A, named).sharding)", "str(jax.typeof(jax.device_put(A, named)))",
    "[kind(s.data) for s in jax.device_put(A, named).addressable_shards]",
    "np.asarray(jax.device_put(A, named))",
    "repr(jax.core.ShapedArray((4,), np.float32, memory_space=jax.typeof(xh).memory_space))",
    "repr(jax.typeof(xh).memory_space)",
    # operations on data in host memory stay there
    "kind(xh * 2)", "str(jax.typeof(jnp.sin(xh)))", "np.asarray(xh * 2 + 1)",
    "kind(xh.sum())", "str(jax.typeof(xh.sum()))",
    "kind(jax.device_put(A, unpinned) + 1)",
    "xh + jnp.ones(4)",
    "str(jax.make_jaxpr(lambda a: (a * 2, jnp.sin(a), a.sum()))(xh))",
    "kind(jax.jit(lambda a: a * 2)(xh))", "np.asarray(jax.jit(lambda a: a * 2)(xh))",
    "attrs(lambda a: a * 2, xh)", "attrs(lambda a: a * 2, A)",
    "kind(jax.device_put(A, named) * 2)",
    # jit's in_shardings / out_shardings with memory kinds
    "attrs(lambda a: a * 2, A, in_shardings=nd, out_shardings=named)",
    "attrs(lambda a: a * 2, A, in_shardings=named, out_shardings=nd)",
    "repr(to_host(A).sharding)", "str(jax.typeof(to_host(A)))", "np.asarray(to_host(A))",
    "repr(from_host(A).sharding)", "str(jax.typeof(from_host(A)))",
    "np.asarray(from_host(jax.device_put(A, named)))",
    "str(jax.typeof(from_host(to_host(A))))",
    # device_put to another memory inside traced code: JAX's device_put equation
    "moves(lambda a: jax.device_put(a * 2, pinned), A)",
    "kind(jax.jit(lambda a: jax.device_put(a * 2, pinned))(A))",
    "np.asarray(jax.jit(lambda a: jax.device_put(a * 2, pinned))(A))",
    # the checkpoint policies that offload residuals to pinned_host, and back for the backward
    "residual_types(by_name)", "residual_types(dots)",
    "moves(jax.grad(by_name, argnums=(0, 1)), X, W)", "moves(jax.grad(dots), X, W)",
    "jax.grad(by_name, argnums=(0, 1))(X, W)", "jax.jit(jax.grad(dots))(X, W)",
    "jax.vjp(by_name, X, W)[1](1.0)",
    "jax.vmap(jax.grad(dots), in_axes=(0, None))(jnp.stack([X, 2 * X]), W)",
]
