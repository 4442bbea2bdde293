"""pyjax.experimental.pallas.triton: the GPU (Triton) flavour's kernel operations.

`load`/`store` with masks, the atomics, `max_contiguous` run in interpret mode like any kernel
code; the Triton compiler itself is not part of pyjax (`pallas_call` without `interpret=True`
raises).
"""
from pyjax._src.pallas.core import CompilerParams as CompilerParams
from pyjax._src.pallas.primitives import (
    atomic_add as atomic_add, atomic_and as atomic_and, atomic_cas as atomic_cas,
    atomic_max as atomic_max, atomic_min as atomic_min, atomic_or as atomic_or,
    atomic_xchg as atomic_xchg, atomic_xor as atomic_xor, load as load,
    max_contiguous as max_contiguous, store as store,
)
