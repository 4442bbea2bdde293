"""pyjax.experimental.sparse.random (re-exports only)."""
from pyjax._src.sparse.api import random_bcoo as random_bcoo
