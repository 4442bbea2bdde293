"""pyjax.scipy.sparse.linalg (re-exports only; code in pyjax._src.scipy.sparse.linalg)."""
from pyjax._src.scipy.sparse.linalg import bicgstab as bicgstab
from pyjax._src.scipy.sparse.linalg import cg as cg
from pyjax._src.scipy.sparse.linalg import gmres as gmres
