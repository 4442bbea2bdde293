"""`jax._src.tpu`: the TPU-side helpers JAX's tests import (platform-neutral ones only)."""
