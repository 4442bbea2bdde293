"""`jax._src.tpu.linalg.qdwh`: the QR-based dynamically weighted Halley iteration for the polar
decomposition (pyjax's lax.linalg.qdwh, the same function)."""
from pyjax._src.lax.linalg_structured import qdwh as qdwh  # noqa: F401
