"""`jax.export`: a jitted function's StableHLO module with its calling signature, serializable
and callable again.

- `shape_poly.py`: symbolic dimensions (`DimExpr`, `symbolic_shape`, `SymbolicScope`) and the
  emitters that compute their values in a module (`get_dimension_size`, dynamic ops);
- `solve.py`: the dimension variables solved from the arguments' shapes as JAX solves them,
  with JAX's constraints and messages (checked in Python, and by the module's
  `shape_assertion`s);
- `_export.py`: `export`, `Exported`, the `call_exported` primitive (its lowering specializes
  the module with jaxlib's shape refinement pass) and the VJP used to differentiate calls;
- `flatbuf.py`: JAX 0.10.2's serialization format (the flatbuffer of its schema), read and
  written as plain data (`Exported.serialize()` writes it; `deserialize` reads it);
- `serialization.py`: the pytree node registrations both formats need, and pyjax's former
  format (`PYJAXEXP` + version + zlib JSON), still read;
- `sharded.py`: modules laid out over several devices (their NamedShardings over abstract
  meshes, Shardy's meshes renamed into the calling module, the device count checked).
"""
