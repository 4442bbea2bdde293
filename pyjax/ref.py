"""pyjax.ref: mutable references (`jax.ref`), re-exported from pyjax._src.state."""
from pyjax._src.state.primitives import (
    empty_ref as empty_ref, free_ref as free_ref, freeze as freeze, new_ref as new_ref,
    ref_addupdate as addupdate, ref_get as get, ref_set as set, ref_swap as swap,
)
from pyjax._src.state.types import AbstractRef as AbstractRef, Ref as Ref
# Refs given to jit, loops and conds, and refs made while tracing, are discharged into
# functional code by state.discharge: importing it installs those rules.
from pyjax._src.state import discharge as _discharge  # noqa: F401
