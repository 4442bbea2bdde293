"""`jax._src.op_shardings`: questions about XLA HloShardings (JAX's helpers, on pyjax's
sharding_gspmd module); other names raise when used."""
from pyjax._jax_compat._unsupported import module_getattr
from pyjax._src.sharding_gspmd import hlo_indices, num_ways_dim_sharded


def get_num_ways_dim_sharded(hlo_sharding, allow_partial_manual=False):
    return num_ways_dim_sharded(hlo_sharding)


def is_hlo_sharding_replicated(hlo_sharding) -> bool:
    return hlo_sharding.num_devices() == 1 or hlo_sharding.is_replicated()


def are_hlo_shardings_equal(a, b) -> bool:
    return a == b or (is_hlo_sharding_replicated(a) and is_hlo_sharding_replicated(b))


def op_sharding_to_indices(hlo_sharding, shape, num_devices):
    """For each of `num_devices` devices (in tile-assignment numbering) the block it holds."""
    blocks = hlo_indices(hlo_sharding, shape, num_devices)
    return tuple(blocks[i] for i in range(num_devices))


__getattr__ = module_getattr("jax._src.op_shardings")
