"""pyjax.experimental.sparse.util (re-exports only)."""
from pyjax._src.sparse.bcoo import SparseInfo as SparseInfo
from pyjax._src.sparse.util import (CuSparseEfficiencyWarning as CuSparseEfficiencyWarning,
                                    SparseEfficiencyError as SparseEfficiencyError,
                                    SparseEfficiencyWarning as SparseEfficiencyWarning)
from pyjax._src.sparse.util import (  # noqa: F401  (JAX's private helpers, used by its tests)
    _count_stored_elements as _count_stored_elements,
    _count_stored_elements_per_batch as _count_stored_elements_per_batch,
    _csr_to_coo as _csr_to_coo,
)
