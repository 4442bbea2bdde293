"""`jax._src.lax_reference`: NumPy reference implementations of lax operations (not yet written
for pyjax: the names raise when used)."""
from pyjax._jax_compat._unsupported import module_getattr

__getattr__ = module_getattr("jax._src.lax_reference")
