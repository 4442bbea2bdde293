"""`jax._src.layout`: as `jax.experimental.layout` (pyjax has no custom device layouts)."""
from pyjax._jax_compat._unsupported import module_getattr
from pyjax._jax_compat.experimental.layout import Format as Format, Layout as Layout

__getattr__ = module_getattr("jax._src.layout")
