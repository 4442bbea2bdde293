"""pyjax.experimental.sparse.ad: sparse-aware autodiff (re-exports only)."""
from pyjax._src.sparse.ad import (grad as grad, jacfwd as jacfwd, jacobian as jacobian,
                                  jacrev as jacrev, value_and_grad as value_and_grad)
