"""`jax.interpreters.batching`: JAX's batcher tables and helpers, over pyjax's primitives.

`primitive_batchers[p] = rule(batched_args, batch_dims, **params)` and
`axis_primitive_batchers[p] = rule(axis_size, axis_name, trace_type, batched_args, batch_dims,
**params)` (the latter runs even when nothing is batched, knowing the vmap's axis) set `p`'s
batching rule; `not_mapped` (None) marks an unbatched value, as in JAX."""
from __future__ import annotations

from pyjax._src.interpreters.batching import AxisBatchRule
from pyjax._src.interpreters.batching import bdim_at_front as bdim_at_front
from pyjax._src.interpreters.batching import broadcast as broadcast
from pyjax._src.interpreters.batching import defbroadcasting as defbroadcasting
from pyjax._src.interpreters.batching import defvectorized as defvectorized
from pyjax._src.interpreters.batching import not_mapped as not_mapped
from pyjax._src.interpreters.batching import primitive_batchers as primitive_batchers
from pyjax._src.interpreters.batching import register_vmappable as register_vmappable
from pyjax._src.interpreters.batching import unregister_vmappable as unregister_vmappable
from pyjax._src.interpreters.rule_tables import RuleTable


class _JaxAxisRule:
    """An `axis_primitive_batchers` rule (JAX's signature) called as pyjax's axis rule."""

    __slots__ = ("jax_rule",)

    def __init__(self, jax_rule):
        self.jax_rule = jax_rule

    def __call__(self, axis_data, args, dims, **params):
        # tuples, as JAX's BatchTrace hands them (equinox passes them on as vmap's in/out_axes)
        return self.jax_rule(axis_data.size, axis_data.name, None, tuple(args), tuple(dims),
                             **params)


def _axis_batcher_to_primitive(prim, rule):
    return AxisBatchRule(_JaxAxisRule(rule))


def _axis_batcher_from_primitive(prim, stored):
    if type(stored) is AxisBatchRule and type(stored.rule) is _JaxAxisRule:
        return stored.rule.jax_rule
    return None


axis_primitive_batchers = RuleTable("batching.axis_primitive_batchers", "batch",
                                    to_primitive=_axis_batcher_to_primitive,
                                    from_primitive=_axis_batcher_from_primitive)


# JAX's own table of axis-aware rules, `rule(axis_data, vals, dims, **params)`: that is pyjax's
# AxisBatchRule signature (axis_data has .name and .size), so the rule is stored as it is.
def _fancy_from_primitive(prim, stored):
    if type(stored) is AxisBatchRule and type(stored.rule) is not _JaxAxisRule:
        return stored.rule
    return None


fancy_primitive_batchers = RuleTable("batching.fancy_primitive_batchers", "batch",
                                     to_primitive=lambda prim, rule: AxisBatchRule(rule),
                                     from_primitive=_fancy_from_primitive)
