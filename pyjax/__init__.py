"""pyjax: JAX's programming model in readable Python, compiled by XLA.

    import pyjax as jax
    import pyjax.numpy as jnp
"""
# The JAX API level implemented (libraries gate on these); pyjax's own version is separate.
__version__ = "0.10.2"
__version_info__ = (0, 10, 2)
pyjax_version = "0.1.0"

from pyjax._src.config import config as config
from pyjax._src.config import (  # flags as context managers / decorators, as JAX's
    allow_f16_reductions as allow_f16_reductions,
    array_garbage_collection_guard as array_garbage_collection_guard,
    auto_pcast as auto_pcast,
    check_tracer_leaks as check_tracer_leaks,
    checking_leaks as checking_leaks,
    debug_infs as debug_infs,
    debug_key_reuse as debug_key_reuse,
    debug_nans as debug_nans,
    default_device as default_device,
    default_matmul_precision as default_matmul_precision,
    default_prng_impl as default_prng_impl,
    disable_jit as disable_jit,
    enable_checks as enable_checks,
    enable_custom_prng as enable_custom_prng,
    enable_x64 as enable_x64,
    explain_cache_misses as explain_cache_misses,
    jax2tf_associative_scan_reductions as jax2tf_associative_scan_reductions,
    legacy_prng_key as legacy_prng_key,
    log_compiles as log_compiles,
    no_execution as no_execution,
    no_tracing as no_tracing,
    numpy_dtype_promotion as numpy_dtype_promotion,
    numpy_rank_promotion as numpy_rank_promotion,
    remove_size_one_mesh_axis_from_type as remove_size_one_mesh_axis_from_type,
    softmax_custom_jvp as softmax_custom_jvp,
    thread_guard as thread_guard,
    threefry_partitionable as threefry_partitionable,
    transfer_guard as transfer_guard,
    transfer_guard_device_to_device as transfer_guard_device_to_device,
    transfer_guard_device_to_host as transfer_guard_device_to_host,
    transfer_guard_host_to_device as transfer_guard_host_to_device,
)
from pyjax._src.array import Array as Array
from pyjax._src.array import (  # sharded arrays (multi-device issue)
    make_array_from_callback as make_array_from_callback,
    make_array_from_process_local_data as make_array_from_process_local_data,
    make_array_from_single_device_arrays as make_array_from_single_device_arrays,
)
from pyjax._src.mesh import make_mesh as make_mesh, set_mesh as set_mesh
from pyjax._src.sharding import PartitionSpec as P
from pyjax._src.sharding import NamedSharding as NamedSharding, Shard as Shard
from pyjax._src.shard_map import reshard as reshard
from pyjax._src.backend.xla import Device as Device
from pyjax._src.dtypes import float0 as float0
from pyjax._src.api import (
    ShapeDtypeStruct as ShapeDtypeStruct,
    block_until_ready as block_until_ready,
    clear_caches as clear_caches,
    default_backend as default_backend,
    device_count as device_count,
    device_get as device_get,
    copy_to_host_async as copy_to_host_async,
    device_put as device_put,
    devices as devices,
    effects_barrier as effects_barrier,
    host_count as host_count,
    host_id as host_id,
    host_ids as host_ids,
    live_arrays as live_arrays,
    ensure_compile_time_eval as ensure_compile_time_eval,
    eval_shape as eval_shape,
    local_device_count as local_device_count,
    local_devices as local_devices,
    make_jaxpr as make_jaxpr,
    named_call as named_call,
    named_scope as named_scope,
    print_environment_info as print_environment_info,
    process_count as process_count,
    process_index as process_index,
    process_indices as process_indices,
    typeof as typeof,
)
from pyjax._src.pjit import jit as jit
from pyjax._src.api_vmap import vmap as vmap
from pyjax._src.shard_map import shard_map as shard_map
from pyjax._src.shard_map import smap as smap
from pyjax._src.pmap import pmap as pmap
from pyjax._src.custom_derivatives import (
    closure_convert as closure_convert,
    custom_gradient as custom_gradient,
    custom_jvp as custom_jvp,
    custom_vjp as custom_vjp,
)
from pyjax._src.ad_checkpoint import (
    checkpoint as checkpoint,
    checkpoint_policies as checkpoint_policies,
    remat as remat,
)
from pyjax._src.ad_api import (
    grad as grad,
    hessian as hessian,
    jacfwd as jacfwd,
    jacobian as jacobian,
    jacrev as jacrev,
    jvp as jvp,
    linear_transpose as linear_transpose,
    linearize as linearize,
    value_and_grad as value_and_grad,
    vjp as vjp,
)

from pyjax import numpy as numpy  # noqa: E402  (attaches Array operators)
from pyjax import lax as lax  # noqa: E402
from pyjax import tree_util as tree_util  # noqa: E402
from pyjax import tree as tree  # noqa: E402
from pyjax import dtypes as dtypes  # noqa: E402
from pyjax import errors as errors  # noqa: E402
from pyjax import ad_checkpoint as ad_checkpoint  # noqa: E402
from pyjax import test_util as test_util  # noqa: E402
from pyjax import custom_derivatives as custom_derivatives  # noqa: E402
from pyjax import nn as nn  # noqa: E402
from pyjax import export as export  # noqa: E402
from pyjax.jax_alias import as_jax as as_jax  # noqa: E402
from pyjax import debug as debug  # noqa: E402
from pyjax import experimental as experimental  # noqa: E402
from pyjax._src import checkify_rules as _checkify_rules  # noqa: E402,F401  (fills checkify's rule tables)
from pyjax._src.callback import pure_callback as pure_callback  # noqa: E402
from pyjax import random as random  # noqa: E402
from pyjax import scipy as scipy  # noqa: E402
from pyjax import sharding as sharding  # noqa: E402
from pyjax import typing as typing  # noqa: E402
from pyjax import image as image  # noqa: E402
from pyjax import ffi as ffi  # noqa: E402
from pyjax import distributed as distributed  # noqa: E402
from pyjax import ref as ref  # noqa: E402  (mutable references: Ref, new_ref, freeze)
from pyjax.ref import Ref as Ref, new_ref as new_ref, freeze as freeze  # noqa: E402
from pyjax.ref import empty_ref as empty_ref, free_ref as free_ref  # noqa: E402
from pyjax._src.state.types import ds as ds  # noqa: E402
from pyjax._src.visualize import visualize as visualize  # noqa: E402  (pyjax-only: the jaxpr as a graph)
from pyjax import profiler as profiler  # noqa: E402
