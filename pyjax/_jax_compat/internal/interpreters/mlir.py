"""`jax._src.interpreters.mlir`: as `jax.interpreters.mlir`."""
from pyjax._jax_compat._unsupported import module_getattr
from pyjax._jax_compat.interpreters.mlir import *  # noqa: F401,F403

__getattr__ = module_getattr("jax._src.interpreters.mlir")
