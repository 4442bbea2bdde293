"""`jax._src.layout`: device-local layouts and Formats (pyjax/_src/layout.py)."""
from pyjax._jax_compat._unsupported import module_getattr
from pyjax._src.layout import AUTO as AutoLayout  # noqa: F401  (JAX's singleton's name)
from pyjax._src.layout import AutoLayout as AutoLayoutSingleton  # noqa: F401
from pyjax._src.layout import Format as Format, Layout as Layout

__getattr__ = module_getattr("jax._src.layout")
