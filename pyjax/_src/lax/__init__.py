"""The lax primitives, one family per module. Each module builds only on the ones before it:

utils (factories) → convert (dtype conversions, Python scalars) → elementwise → shape_ops →
reductions → dynamic_slicing, dot_general → parallel (collectives) → control_flow.

The few rules that need an op of a later module (elementwise rules broadcast, shape_ops
transposes sum) reach it through the interpreters' `lax_ops` slots, which interpreter_ops fills.
"""
