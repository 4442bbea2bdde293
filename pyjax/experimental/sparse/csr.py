"""pyjax.experimental.sparse.csr (re-exports only)."""
from pyjax._src.sparse.coo_csr import (  # noqa: F401
    CSC as CSC,
    CSR as CSR,
    csr_fromdense as csr_fromdense,
    csr_fromdense_p as csr_fromdense_p,
    csr_matmat as csr_matmat,
    csr_matmat_p as csr_matmat_p,
    csr_matvec as csr_matvec,
    csr_matvec_p as csr_matvec_p,
    csr_todense as csr_todense,
    csr_todense_p as csr_todense_p,
)
from pyjax._src.sparse.coo_csr import (  # noqa: F401  (JAX's private buffer-level forms)
    _csr_fromdense as _csr_fromdense,
    _csr_matmat as _csr_matmat,
    _csr_matvec as _csr_matvec,
    _csr_todense as _csr_todense,
)
