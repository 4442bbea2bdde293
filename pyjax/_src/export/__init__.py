"""`jax.export`: a jitted function's StableHLO module with its calling signature, serializable
and callable again.

- `shape_poly.py`: symbolic dimensions (`DimExpr`, `symbolic_shape`, `SymbolicScope`) and the
  emitters that compute their values in a module (`get_dimension_size`, dynamic ops);
- `_export.py`: `export`, `Exported`, the `call_exported` primitive (its lowering specializes
  the module with jaxlib's shape refinement pass) and the VJP used to differentiate calls;
- `serialization.py`: pyjax's versioned serialization format (`PYJAXEXP` + version + zlib
  JSON) and the pytree node registrations it needs.
"""
