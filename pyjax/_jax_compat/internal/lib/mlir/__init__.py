"""`jax._src.lib.mlir`: JAX's MLIR Python bindings (pyjax emits StableHLO text without them; the
names raise when used)."""
from pyjax._jax_compat._unsupported import module_getattr

__getattr__ = module_getattr("jax._src.lib.mlir", "pyjax has no MLIR Python bindings")
