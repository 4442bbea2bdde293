"""Pallas: kernels written over refs to blocks of arrays, run over a grid (`pallas_call`).

- `core`: the kernel's front-end types (`BlockSpec`, `GridSpec`, `Blocked`/`Element`/`Squeezed`
  block dimensions, memory spaces, `cdiv`) and the grid environment `program_id` reads.
- `primitives`: what kernels call (`program_id`, `num_programs`, `load`/`store` with masks,
  atomics, `when`, `loop`, `multiple_of`, `debug_print`, ...).
- `pallas_call`: the `pallas_call_p` primitive (kernel jaxpr over block refs + grid mapping) and
  its one lowering available here, the interpreter (`interpret=True`).
"""
