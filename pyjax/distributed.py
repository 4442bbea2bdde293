"""pyjax.distributed: one program over several processes (re-exports only; code in
pyjax._src.distributed)."""
from pyjax._src.distributed import (
    initialize as initialize,
    is_initialized as is_initialized,
    shutdown as shutdown,
)
