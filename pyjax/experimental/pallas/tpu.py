"""pyjax.experimental.pallas.tpu: the TPU flavour's memory spaces (`VMEM`, `SMEM`, ...) and
compiler parameters, as markers for interpret mode. TPU-only operations (DMAs, semaphores,
pipelines) are not provided: they need the Mosaic TPU compiler."""
from pyjax._src.pallas.tpu import (
    ARBITRARY as ARBITRARY, CORE_PARALLEL as CORE_PARALLEL, CompilerParams as CompilerParams,
    GridDimensionSemantics as GridDimensionSemantics, MemorySpace as MemorySpace,
    PARALLEL as PARALLEL, PrefetchScalarGridSpec as PrefetchScalarGridSpec,
    SUBCORE_PARALLEL as SUBCORE_PARALLEL,
)
from pyjax._src.pallas.tpu import MemorySpace as _MS

VMEM = _MS.VMEM
SMEM = _MS.SMEM
CMEM = _MS.CMEM
HBM = _MS.HBM
SEMAPHORE = _MS.SEMAPHORE
VMEM_SHARED = _MS.VMEM_SHARED
