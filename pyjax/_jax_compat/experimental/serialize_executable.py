"""`jax.experimental.serialize_executable`: importable; pyjax does not implement it (its names raise
NotImplementedError when used)."""
from pyjax._jax_compat._unsupported import module_getattr

__getattr__ = module_getattr("jax.experimental.serialize_executable")
