"""pyjax.experimental.sparse.bcsr (re-exports only)."""
from pyjax._src.sparse.bcsr import (  # noqa: F401
    BCSR as BCSR,
    bcsr_broadcast_in_dim as bcsr_broadcast_in_dim,
    bcsr_concatenate as bcsr_concatenate,
    bcsr_dot_general as bcsr_dot_general,
    bcsr_dot_general_p as bcsr_dot_general_p,
    bcsr_extract as bcsr_extract,
    bcsr_extract_p as bcsr_extract_p,
    bcsr_fromdense as bcsr_fromdense,
    bcsr_fromdense_p as bcsr_fromdense_p,
    bcsr_sum_duplicates as bcsr_sum_duplicates,
    bcsr_todense as bcsr_todense,
    bcsr_todense_p as bcsr_todense_p,
)
from pyjax._src.sparse.bcsr import (  # noqa: F401  (JAX's private buffer-level forms)
    _bcoo_to_bcsr as _bcoo_to_bcsr,
    _bcsr_fromdense as _bcsr_fromdense,
    _bcsr_to_bcoo as _bcsr_to_bcoo,
)
