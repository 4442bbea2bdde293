"""pyjax.experimental.sparse.linalg (re-exports only; code in pyjax._src.sparse.linalg)."""
from pyjax._src.sparse.linalg import (lobpcg_standard as lobpcg_standard, spsolve as spsolve,
                                      spsolve_p as spsolve_p)
