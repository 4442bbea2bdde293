"""`jax.ops`: the segment reductions (scatter.py)."""
