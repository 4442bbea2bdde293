"""`jax._src.tpu.linalg`: linear-algebra helpers of JAX's TPU code (the stack, qdwh, svd, eigh)."""
