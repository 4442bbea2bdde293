"""pyjax: JAX's programming model in readable Python, compiled by XLA.

    import pyjax as jax
    import pyjax.numpy as jnp

`import pyjax` loads the core: tracing, jit, the autodiff and vmap transformations, the Array type,
`pyjax.numpy` and `pyjax.lax`. Every other public module (`pyjax.nn`, `.random`, `.scipy`,
`.export`, `.experimental.*`, `.sharding`, `.debug`, `.profiler`, ...) and the top-level names
that live in them (`shard_map`, `pmap`, `pure_callback`, `Ref`, ...) are imported on first use:
the lazy-attribute tables at the end of this file and the module `__getattr__` (PEP 562) are the
one sanctioned place where pyjax defers an import (they hold names, not import statements, so
the import-layering rules of tests/test_layers.py still hold). `pyjax.X` and `import pyjax.X`
both work, and `dir(pyjax)` lists the lazy names. tests/test_layers.py pins the modules that
`import pyjax` loads.
"""
# The JAX API level implemented (libraries gate on these); pyjax's own version is separate.
__version__ = "0.10.2"
__version_info__ = (0, 10, 2)
pyjax_version = "0.1.0"

import importlib as _importlib

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
    fwd_and_bwd as fwd_and_bwd,
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
from pyjax import custom_derivatives as custom_derivatives  # noqa: E402
from pyjax.jax_alias import as_jax as as_jax  # noqa: E402
from pyjax._src.state.types import ds as ds  # noqa: E402

# Public submodules imported on first use (`pyjax.nn`, or `import pyjax.nn`).
_LAZY_SUBMODULES = ("ad_checkpoint", "custom_batching", "debug", "distributed", "experimental", "export",
                    "ffi", "ops",
                    "image", "nn", "profiler", "random", "ref", "scipy", "sharding", "stages", "test_util",
                    "typing")

# Top-level names defined in a module imported on first use: name -> that module.
_LAZY_ATTRIBUTES = {
    "shard_map": "pyjax._src.shard_map",
    "smap": "pyjax._src.smap",
    "reshard": "pyjax._src.reshard",
    "pmap": "pyjax._src.pmap",
    "pure_callback": "pyjax._src.callback",
    "visualize": "pyjax._src.visualize",  # pyjax-only: the jaxpr as a graph
    "Ref": "pyjax.ref",  # mutable references (importing pyjax.ref installs their rules)
    "new_ref": "pyjax.ref",
    "freeze": "pyjax.ref",
    "empty_ref": "pyjax.ref",
    "free_ref": "pyjax.ref",
}


# Names JAX 0.10.2 has removed from `jax` (kept in jax._src.api): reading one is JAX's
# AttributeError, in its words.
_REMOVED = {
    "device_put_replicated": "jax.device_put_replicated is deprecated; use jax.device_put instead.",
    "device_put_sharded": "jax.device_put_sharded is deprecated; use jax.device_put instead.",
}
_MIGRATE = (" See https://docs.jax.dev/en/latest/migrate_pmap.html#drop-in-replacements for a "
            "drop-in replacement.")


def __getattr__(name):
    if name in _REMOVED:
        raise AttributeError(_REMOVED[name] + _MIGRATE)
    if name in _LAZY_SUBMODULES:
        return _importlib.import_module(f"{__name__}.{name}")  # binds pyjax.<name> as well
    if name in _LAZY_ATTRIBUTES:
        value = getattr(_importlib.import_module(_LAZY_ATTRIBUTES[name]), name)
        globals()[name] = value  # later lookups are plain attribute reads
        return value
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__():
    return sorted(set(globals()) | set(_LAZY_SUBMODULES) | set(_LAZY_ATTRIBUTES))
