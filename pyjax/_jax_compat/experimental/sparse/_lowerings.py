"""`jax.experimental.sparse._lowerings` (cuSPARSE lowerings; the names raise when used)."""
from pyjax._jax_compat._unsupported import module_getattr

__getattr__ = module_getattr("jax.experimental.sparse._lowerings")
