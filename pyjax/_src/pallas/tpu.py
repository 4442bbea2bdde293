"""The TPU flavour's memory spaces and compiler parameters, as plain markers.

`pltpu.VMEM((8, 128), jnp.float32)` names a scratch buffer for `pallas_call(scratch_shapes=)`;
interpret mode keeps every buffer in host memory. TPU-only operations (DMAs, semaphores,
pipelining, PRNG) are not provided: they need the Mosaic TPU compiler or JAX's TPU interpreter.
`PrefetchScalarGridSpec` (scalar prefetch) works in interpret mode.
"""
from __future__ import annotations

import dataclasses
import enum

import numpy as np

from pyjax._src.pallas.core import CompilerParams as _CompilerParams, GridSpec, MemoryRef
from pyjax._src.pallas.core import no_block_spec


class MemorySpace(enum.Enum):
    ANY = "any"
    VMEM = "vmem"
    SMEM = "smem"
    CMEM = "cmem"
    HBM = "hbm"
    SEMAPHORE = "semaphore_mem"
    VMEM_SHARED = "vmem_shared"

    def __call__(self, shape, dtype):
        return MemoryRef(tuple(shape), np.dtype(dtype), self)

    def __str__(self):
        return self.value


@dataclasses.dataclass(frozen=True)
class CompilerParams(_CompilerParams):
    """Mosaic TPU compiler parameters (accepted and ignored when interpreting)."""
    BACKEND = "mosaic_tpu"
    dimension_semantics: tuple | None = None
    allow_input_fusion: tuple | None = None
    vmem_limit_bytes: int | None = None
    collective_id: int | None = None
    flags: dict | None = None
    internal_scratch_in_bytes: int | None = None
    serialization_format: int = 1
    kernel_type: object = None
    disable_bounds_checks: bool = False
    has_side_effects: bool = False


class GridDimensionSemantics(enum.Enum):
    PARALLEL = "parallel"
    CORE_PARALLEL = "core_parallel"
    SUBCORE_PARALLEL = "subcore_parallel"
    ARBITRARY = "arbitrary"


PARALLEL = GridDimensionSemantics.PARALLEL
CORE_PARALLEL = GridDimensionSemantics.CORE_PARALLEL
SUBCORE_PARALLEL = GridDimensionSemantics.SUBCORE_PARALLEL
ARBITRARY = GridDimensionSemantics.ARBITRARY


class PrefetchScalarGridSpec(GridSpec):
    """A grid spec whose first `num_scalar_prefetch` operands are passed whole, as refs, to every
    index map (after the grid indices) and to the kernel (before the block refs): data-dependent
    block choice (`lambda i, idx_ref: (idx_ref[i], 0)`)."""

    def __init__(self, num_scalar_prefetch, grid=(), in_specs=None, out_specs=None,
                 scratch_shapes=()):
        super().__init__(grid, no_block_spec if in_specs is None else in_specs,
                         no_block_spec if out_specs is None else out_specs, scratch_shapes)
        self.num_scalar_prefetch = int(num_scalar_prefetch)
