"""`jax.ops`: segment reductions."""
from pyjax._src.ops.scatter import (
    segment_max as segment_max,
    segment_min as segment_min,
    segment_prod as segment_prod,
    segment_sum as segment_sum,
)
