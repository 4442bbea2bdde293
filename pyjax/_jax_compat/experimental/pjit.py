"""`jax.experimental.pjit`: JAX's deprecated `pjit` (jit with the shardings as positional
arguments)."""
from pyjax._jax_compat._unsupported import module_getattr
from pyjax._jax_compat.toplevel import _pjit as pjit  # noqa: F401 (re-exported)

__getattr__ = module_getattr("jax.experimental.pjit")
