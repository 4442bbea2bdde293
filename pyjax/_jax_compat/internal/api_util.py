"""`jax._src.api_util`: the flattening helpers of `jax.api_util` (what pyjax has of JAX's)."""
from pyjax._jax_compat._unsupported import module_getattr
from pyjax._jax_compat.api_util import *  # noqa: F401,F403 (the same names under JAX's path)
from pyjax._jax_compat.api_util import debug_info as debug_info

__getattr__ = module_getattr("jax._src.api_util")
