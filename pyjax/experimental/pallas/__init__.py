"""pyjax.experimental.pallas: JAX's Pallas kernel language (re-exports of pyjax._src.pallas).

Kernels run through the interpreter (`pallas_call(..., interpret=True)`), on any device; the
GPU (Triton, Mosaic GPU) and TPU (Mosaic) compilers are not part of pyjax.
"""
from pyjax._src.pallas.core import (
    ANY as ANY, HOST as HOST, BlockDim as BlockDim, BlockSpec as BlockSpec, Blocked as Blocked,
    BoundedSlice as BoundedSlice, Buffered as Buffered, CompilerParams as CompilerParams,
    CostEstimate as CostEstimate, DeviceIdType as DeviceIdType, Element as Element,
    GridSpec as GridSpec, MemoryRef as MemoryRef, MemorySpace as MemorySpace,
    RevisitMode as RevisitMode, Squeezed as Squeezed, align_to as align_to, cdiv as cdiv,
    next_power_of_2 as next_power_of_2, no_block_spec as no_block_spec, squeezed as squeezed,
    strides_from_shape as strides_from_shape,
)
from pyjax._src.pallas.pallas_call import pallas_call as pallas_call, pallas_call_p as pallas_call_p
from pyjax._src.pallas.primitives import (
    broadcast_to as broadcast_to, debug_print as debug_print, empty as empty,
    empty_like as empty_like, loop as loop, multiple_of as multiple_of,
    num_programs as num_programs, program_id as program_id, reciprocal as reciprocal,
    run_scoped as run_scoped, when as when,
)
from pyjax._src.state.discharge import run_state as run_state
from pyjax._src.state.types import Slice as Slice, ds as ds, dslice as dslice
from pyjax.experimental.pallas import tpu as tpu, triton as triton  # noqa: E402
