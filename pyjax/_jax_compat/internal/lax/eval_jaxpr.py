"""`jax._src.lax.eval_jaxpr` (JAX's jaxpr-evaluating primitive; pyjax has none: the names
raise when used)."""
from pyjax._jax_compat._unsupported import module_getattr

__getattr__ = module_getattr("jax._src.lax.eval_jaxpr")
