"""pyjax.experimental.sparse.transform: the sparsify interpreter (re-exports only)."""
from pyjax._src.sparse.transform import (SparseTracer as SparseTracer, SparsifyTrace as SparsifyTrace,
                                         sparsify as sparsify)
