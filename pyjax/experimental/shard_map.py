"""pyjax.experimental.shard_map: JAX's deprecated home of shard_map (`shard_map(f, mesh,
in_specs, out_specs, check_rep=True)`); reading the name warns, as in JAX 0.10.2. Use
`pyjax.shard_map`."""
import warnings as _warnings

from pyjax._src.smap import legacy_shard_map as _legacy_shard_map


def __getattr__(name):
    if name == "shard_map":
        _warnings.warn("jax.experimental.shard_map is deprecated in v0.8.0. Used jax.shard_map "
                       "instead.", DeprecationWarning, stacklevel=2)
        return _legacy_shard_map
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
