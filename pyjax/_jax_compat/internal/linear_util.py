"""`jax._src.linear_util`: wrapped functions (as `jax.extend.linear_util`)."""
from pyjax._jax_compat._unsupported import module_getattr
from pyjax._jax_compat.extend.linear_util import *  # noqa: F401,F403

__getattr__ = module_getattr("jax._src.linear_util")
