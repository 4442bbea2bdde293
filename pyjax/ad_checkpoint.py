"""pyjax.ad_checkpoint (re-exports only)."""
from pyjax._src.ad_checkpoint import (
    checkpoint as checkpoint,
    checkpoint_name as checkpoint_name,
    checkpoint_policies as checkpoint_policies,
    print_saved_residuals as print_saved_residuals,
    remat as remat,
)
