"""Hands the interpreters the lax operations they build (see interpreters/array_ops.py).

AD and batching sit below lax in the import order, so they reach these functions through the
`lax_ops` slots, filled here. The transformation APIs (`ad_api`, `api_vmap`) import this module,
so the slots are full before any JVP or batch trace runs.
"""
from __future__ import annotations

import numpy as np

from pyjax._src.array import Array
from pyjax._src.interpreters.array_ops import lax_ops
from pyjax._src.lax.barriers import reshard_to_type
from pyjax._src.lax.elementwise import add_p
from pyjax._src.lax.reductions import reduce_sum
from pyjax._src.lax.shape_ops import broadcast_in_dim, reshape, transpose


def _zeros(aval):
    z = Array.from_host(np.zeros((), aval.dtype), aval.weak_type)
    return broadcast_in_dim(z, aval.shape, ()) if aval.shape else z


lax_ops.zeros = _zeros
lax_ops.add = add_p.bind
lax_ops.transpose = transpose
lax_ops.reshape = reshape
lax_ops.broadcast_in_dim = broadcast_in_dim
lax_ops.reduce_sum = reduce_sum
lax_ops.reshard = reshard_to_type
