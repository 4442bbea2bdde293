"""`jax.custom_batching` (import shim until pyjax has the module: custom_vmap and
sequential_vmap raise NotImplementedError when applied functions are called)."""
from pyjax._jax_compat._unsupported import module_getattr, unsupported_transform

custom_vmap = unsupported_transform("jax.custom_batching.custom_vmap")
sequential_vmap = unsupported_transform("jax.custom_batching.sequential_vmap")

__getattr__ = module_getattr("jax.custom_batching")
