"""Record JAX 0.10.2's pmap results for tests/test_pmap.py.

    XLA_FLAGS=--xla_force_host_platform_device_count=8 /root/scratch/jaxref/bin/python \
        tests/data/record_pmap.py
"""
import json
from pathlib import Path

import jax
import jax.numpy as jnp
import numpy as np
from jax import lax

assert jax.device_count() == 8, "set XLA_FLAGS=--xla_force_host_platform_device_count=8"

xs = np.arange(1.0, 9.0, dtype=np.float32)
X = np.arange(32.0, dtype=np.float32).reshape(8, 4) / 4.0
W = np.linspace(-1, 1, 12, dtype=np.float32).reshape(4, 3)
Y = np.arange(24.0, dtype=np.float32).reshape(4, 2, 3)
RING = [(0, 1), (1, 2), (2, 3), (3, 0)]


def val(x):
    return np.asarray(x).tolist()


out = {"jax_version": jax.__version__, "xs": xs.tolist(), "X": X.tolist(), "W": W.tolist(),
       "Y": Y.tolist()}
out["normalize"] = val(jax.pmap(lambda x: x / lax.psum(x, "i"), axis_name="i")(xs))
out["in_axes_none"] = val(jax.pmap(lambda x, w: jnp.tanh(x @ w), in_axes=(0, None))(X, W))
out["in_axes_1"] = val(jax.pmap(lambda x: x.sum(), in_axes=1)(X.T))
out["out_axes_none"] = val(jax.pmap(lambda x: lax.psum(x, "i"), axis_name="i", out_axes=None)(X))
out["out_axes_1"] = val(jax.pmap(lambda x: x * 2, out_axes=1)(X))
out["ppermute"] = val(jax.pmap(lambda x: lax.ppermute(x, "i", RING), "i")(Y))
out["axis_index"] = val(jax.pmap(lambda x: lax.axis_index("i") + 0 * x, "i")(xs))
out["all_gather"] = val(jax.pmap(lambda x: lax.all_gather(x, "i"), "i")(Y))
out["static"] = val(jax.pmap(lambda x, k: x * k, static_broadcasted_argnums=1)(xs, 3.0))
out["grad"] = val(jax.grad(lambda a: jax.pmap(lambda x: jnp.sin(x) * lax.psum(x, "i"),
                                              axis_name="i")(a).sum())(xs))
out["vmap_of_pmap"] = val(jax.vmap(jax.pmap(lambda x: x - lax.pmean(x, "i"), axis_name="i"))(X.T))
out["pmap_of_vmap"] = val(jax.pmap(jax.vmap(lambda x: x - lax.pmean(x, "j"), axis_name="j"))(Y))
out["devices_subset"] = val(jax.pmap(lambda x: x + 1, devices=jax.devices()[4:])(Y))
out["sharded_devices"] = sorted(d.id for d in jax.pmap(lambda x: x + 1, devices=jax.devices()[4:])(Y).sharding.device_set)
try:
    jax.pmap(lambda x: x)(np.ones((9, 2)))
    out["too_many_error"] = None
except Exception as e:  # noqa: BLE001
    out["too_many_error"] = [c.__name__ for c in type(e).__mro__]
y = jax.pmap(lambda x: x * 2, axis_name="i")(X)
z = jax.pmap(lambda x: x + lax.psum(x, "i"), axis_name="i", donate_argnums=0)(y)
out["donated"] = [y.is_deleted(), val(z)]
out["grad_collectives"] = val(jax.grad(lambda a: (jax.pmap(
    lambda x: jnp.cos(lax.ppermute(x, "i", [(j, (j + 3) % 8) for j in range(8)]))
    * lax.all_gather(x, "i").sum(0), axis_name="i")(a) ** 2).sum())(X))
xs2 = xs.reshape(8, 1)  # results' shardings (and an unreplicated out_axes=None: device 0's)
rs = [jax.pmap(lambda x: x * 2, axis_name="i")(xs2), jax.pmap(lambda x: x * 2)(xs2),
      jax.pmap(lambda x: x.sum(), axis_name="i", out_axes=None)(xs2),
      jax.pmap(lambda x: x * 2, axis_name="i", out_axes=1)(xs2)]
out["result_shardings"] = [[repr(r.sharding), list(r.shape), val(r)] for r in rs]
G = [[0, 2, 4, 6], [1, 3, 5, 7]]  # axis_index_groups: allreduces within groups of devices
out["groups"] = [
    val(jax.pmap(lambda b: lax.psum(b, "i", axis_index_groups=G), "i")(X)),
    val(jax.pmap(lambda b: lax.pmean(b, "i", axis_index_groups=[[0, 1], [2, 3], [4, 5], [6, 7]]),
                 "i")(X)),
    val(jax.pmap(lambda b: lax.pmax(b, "i", axis_index_groups=G), "i")(X)),
    val(jax.grad(lambda a: jax.pmap(lambda b: jnp.sin(lax.psum(b, "i", axis_index_groups=G)) * b,
                                    "i")(a).sum())(X))]
try:  # JAX 0.10.2 refuses a pmap inside a pmap
    jax.pmap(jax.pmap(lambda v: v, "j"), "i")(Y[:2].reshape(2, 4, 3))
    out["nested_error"] = None
except Exception as e:  # noqa: BLE001
    out["nested_error"] = type(e).__name__
Path(__file__).with_name("pmap.json").write_text(json.dumps(out))
