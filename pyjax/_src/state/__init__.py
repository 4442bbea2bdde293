"""Mutable references (JAX's `Ref`s) and their discharge into functional code.

- `types`: the `AbstractRef` aval (`Ref{f32[4,3]}`), the read/write/accum effects, the indexers
  (`Slice` / `ds`, NumPy-style static and dynamic indices) and the eager `Ref` object that
  `jax.new_ref` returns.
- `primitives`: `get`, `swap` and `addupdate` on refs, with their rules.
- `discharge`: `discharge_state` rewrites a jaxpr over refs into a functional one (refs become
  values threaded through, loops and conds included); `run_state` runs a stateful function.
"""
