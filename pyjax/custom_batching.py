"""`jax.custom_batching`: custom vmap rules (re-exports; code in pyjax._src.custom_batching)."""
from pyjax._src.custom_batching import (
    custom_vmap as custom_vmap,
    sequential_vmap as sequential_vmap,
)
