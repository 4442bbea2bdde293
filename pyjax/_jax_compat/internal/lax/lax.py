"""`jax._src.lax.lax`: JAX's module of the core lax operations; here, pyjax's lax namespace."""
from pyjax._jax_compat._unsupported import module_getattr
from pyjax.lax import *  # noqa: F401,F403 (the operations under JAX's internal path)

__getattr__ = module_getattr("jax._src.lax.lax")
