"""pyjax.experimental.sparse.util (re-exports only)."""
from pyjax._src.sparse.bcoo import SparseInfo as SparseInfo
from pyjax._src.sparse.util import (CuSparseEfficiencyWarning as CuSparseEfficiencyWarning,
                                    SparseEfficiencyError as SparseEfficiencyError,
                                    SparseEfficiencyWarning as SparseEfficiencyWarning)
