"""`jax.experimental.layout`: device-local layouts and Formats (pyjax/_src/layout.py)."""
from pyjax._jax_compat._unsupported import unsupported
from pyjax._src.layout import Format as Format, Layout as Layout

with_layout_constraint = unsupported("jax.experimental.layout.with_layout_constraint")
