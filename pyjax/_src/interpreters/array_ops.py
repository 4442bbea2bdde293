"""The few lax operations the interpreters build, in slots that lax fills.

The interpreters sit below lax in the import order (STYLE rule 9: core → interpreters → lax), yet
they must make a few arrays themselves: AD needs zeros of an aval, the sum of two tangents (the
`add_any` primitive) and the sum of a cotangent over broadcast axes; batching moves, inserts and
reshapes batch axes. Like JAX's `ad_util`, this module holds that vocabulary as slots, and
`pyjax._src.lax.interpreter_ops` puts lax's functions in them when it is imported (the
transformation APIs import it), so `ad` and `batching` never import lax. Calling a slot
before then raises an error that says so.

    lax_ops.transpose(x, (1, 0))
"""
from __future__ import annotations


def _missing(name):
    def op(*args, **kwargs):
        raise RuntimeError(
            f"the interpreters need lax's {name}, which pyjax._src.lax.interpreter_ops "
            f"provides; import pyjax (or that module) before transforming functions")
    op.__name__ = name
    return op


class LaxOps:
    """Slots for lax functions, with lax's signatures:

    - `zeros(aval)`: an Array of zeros of `aval` (any dtype but float0);
    - `add(x, y)`: elementwise sum of equal-typed values (the `add_any` implementation);
    - `transpose(x, permutation)`, `reshape(x, new_sizes)`,
      `broadcast_in_dim(x, shape, broadcast_dimensions)`, `reduce_sum(x, axes)`;
    - `reshard(x, sharding)`: a traced `x` laid out as an aval's sharding (sharding in types:
      the backward pass gives each cotangent its primal's layout).
    """

    __slots__ = ("zeros", "add", "transpose", "reshape", "broadcast_in_dim", "reduce_sum",
                 "reshard")

    def __init__(self):
        for name in self.__slots__:
            setattr(self, name, _missing(name))


lax_ops = LaxOps()
