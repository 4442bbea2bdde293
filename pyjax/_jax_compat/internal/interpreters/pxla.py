"""`jax._src.interpreters.pxla` (JAX's pmap/partitioned lowering internals; the names pyjax
lacks raise when used)."""
from pyjax._jax_compat._unsupported import module_getattr

__getattr__ = module_getattr("jax._src.interpreters.pxla")
