"""`jax.experimental.layout`: importable (flax's spmd helpers test isinstance against Format).
NB: pyjax has no custom device layouts; these types match no pyjax value."""
from pyjax._jax_compat._unsupported import UnsupportedType, unsupported


class Format(UnsupportedType):
    pass


class Layout(UnsupportedType):
    pass


with_layout_constraint = unsupported("jax.experimental.layout.with_layout_constraint")
