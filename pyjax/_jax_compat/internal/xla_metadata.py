"""`jax._src.xla_metadata` (JAX internals pyjax lacks: the names import and raise when used)."""
from pyjax._jax_compat._unsupported import module_getattr

__getattr__ = module_getattr("jax._src.xla_metadata")
