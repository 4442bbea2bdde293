"""Record JAX 0.10.2's answers to the small multi-device details of issue 26 for
tests/test_sharding.py: which error an indivisible sharding raises (and where), memory kinds
of shardings, and what `jax.debug.print` inside `pmap` prints.

Run with the reference venv and 8 CPU devices:
    XLA_FLAGS=--xla_force_host_platform_device_count=8 /work/scratch/jaxref/bin/python \
        tests/data/record_sharding_details.py
"""
import json
from pathlib import Path

import jax
import jax.numpy as jnp
import numpy as np
from jax.sharding import Mesh, NamedSharding, PartitionSpec as P, SingleDeviceSharding

assert jax.device_count() == 8, "set XLA_FLAGS=--xla_force_host_platform_device_count=8"


def outcome(f):
    """`["ok", repr]` or `[error class name, its bases' names, message]`."""
    try:
        return ["ok", repr(f())]
    except Exception as e:  # noqa: BLE001
        return [type(e).__name__, [c.__name__ for c in type(e).__mro__[1:3]], str(e)]


mesh = Mesh(np.array(jax.devices()).reshape(2, 4), ("x", "y"))  # Auto axes
s = NamedSharding(mesh, P("y"))
x6 = np.arange(6, dtype=np.float32)
out = {"jax_version": jax.__version__, "indivisible": {
    "device_put": outcome(lambda: jax.device_put(x6, s)),
    "jit_in": outcome(lambda: jax.jit(lambda a: a, in_shardings=s)(x6)),
    "jit_out": outcome(lambda: jax.jit(lambda a: a, out_shardings=s)(x6)),
    "shard_shape": outcome(lambda: s.shard_shape((6,))),
    "callback": outcome(lambda: jax.make_array_from_callback((6,), s, lambda i: x6[i])),
    "divisible_shard_shape": outcome(lambda: s.shard_shape((8, 3))),
}}
d0 = jax.devices()[0]
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
Path(__file__).with_name("sharding_details.json").write_text(json.dumps(out, indent=1))
