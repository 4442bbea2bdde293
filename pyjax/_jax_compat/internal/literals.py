"""`jax._src.literals`: JAX's typed literal arrays (pyjax has none; the names raise when used)."""
from pyjax._jax_compat._unsupported import module_getattr

__getattr__ = module_getattr("jax._src.literals", "pyjax has no typed literal arrays")
