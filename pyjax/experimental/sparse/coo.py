"""pyjax.experimental.sparse.coo (re-exports only)."""
from pyjax._src.sparse.coo_csr import (  # noqa: F401
    COO as COO,
    coo_fromdense as coo_fromdense,
    coo_fromdense_p as coo_fromdense_p,
    coo_matmat as coo_matmat,
    coo_matmat_p as coo_matmat_p,
    coo_matvec as coo_matvec,
    coo_matvec_p as coo_matvec_p,
    coo_todense as coo_todense,
    coo_todense_p as coo_todense_p,
)
from pyjax._src.sparse.coo_csr import (  # noqa: F401  (JAX's private buffer-level forms)
    COOInfo as COOInfo,
    _coo_fromdense as _coo_fromdense,
    _coo_matmat as _coo_matmat,
    _coo_matvec as _coo_matvec,
    _coo_todense as _coo_todense,
)
