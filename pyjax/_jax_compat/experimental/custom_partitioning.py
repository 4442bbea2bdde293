"""`jax.experimental.custom_partitioning` (JAX's user-defined SPMD partitioning rules; pyjax has
none: the names raise when used)."""
from pyjax._jax_compat._unsupported import module_getattr, unsupported_transform

custom_partitioning = unsupported_transform("jax.experimental.custom_partitioning")

__getattr__ = module_getattr("jax.experimental.custom_partitioning")
