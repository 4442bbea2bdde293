"""pyjax.ffi: calling C/C++ functions registered with XLA (JAX's `jax.ffi`); re-exports only."""
from pyjax._src.ffi import build_ffi_lowering_function as build_ffi_lowering_function
from pyjax._src.ffi import ffi_call as ffi_call
from pyjax._src.ffi import ffi_lowering as ffi_lowering
from pyjax._src.ffi import include_dir as include_dir
from pyjax._src.ffi import pycapsule as pycapsule
from pyjax._src.ffi import register_ffi_target as register_ffi_target
from pyjax._src.ffi import (
    register_ffi_target_as_batch_partitionable as register_ffi_target_as_batch_partitionable,
)
from pyjax._src.ffi import register_ffi_type as register_ffi_type
from pyjax._src.ffi import register_ffi_type_id as register_ffi_type_id
