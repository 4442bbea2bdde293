"""`jax._src.random.core`: JAX's private sampler helpers (pyjax's live elsewhere; the names
raise when used)."""
from pyjax._jax_compat._unsupported import module_getattr

__getattr__ = module_getattr("jax._src.random.core")
