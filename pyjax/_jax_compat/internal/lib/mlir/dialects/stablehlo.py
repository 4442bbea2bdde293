"""`jax._src.lib.mlir.dialects.stablehlo` (no MLIR Python bindings in pyjax; the names raise when used)."""
from pyjax._jax_compat._unsupported import module_getattr

__getattr__ = module_getattr("jax._src.lib.mlir.dialects.stablehlo", "pyjax has no MLIR Python bindings")
