"""`jax.experimental.sparse.test_util` (not yet written for pyjax: the names raise when used)."""
from pyjax._jax_compat._unsupported import module_getattr

__getattr__ = module_getattr("jax.experimental.sparse.test_util")
