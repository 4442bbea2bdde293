"""The XLA backend: the only module in pyjax that imports jaxlib.

Everything else in pyjax talks to XLA through this small surface:

    get_client / devices / local_devices / default_backend    PJRT clients and their devices
    put(np_array, device, aval) -> buffer                      host -> device
    copy(buffer) -> buffer                                     device -> device (a new buffer)
    to_numpy(buffer) -> np.ndarray                             device -> host
    compile(stablehlo_text, devices, out_avals=...)            -> Executable (cached: memory + disk)
    Executable(list_of_buffers) -> list_of_buffers             the jit hot path (~5 µs)

A "buffer" is jaxlib's `ArrayImpl`. Its `.aval` is whatever object pyjax passed in (anything with
`.shape`, `.dtype` and `.weak_type`); jaxlib never looks at anything else.

jaxlib is driven without the `jax` package, which normally installs some global state into it.
The set-up block below recreates exactly the pieces jaxlib's C++ reads; see
shared/notes/xla-backend.md for how each one was found to be necessary. Some jaxlib C++ paths
try (and, without jax, fail) to `import jax.core` on every call, costing ~100 µs; the hot paths
here avoid them (`execute_sharded(...).consume_with_handlers`, `batched_device_put`, the buffer
protocol), and only slow fallbacks (bf16 readback, multi-shard gathers) use them.
"""
import atexit
import functools
import gc
import importlib
import logging
import os
import re
import sys
import threading
import time

import numpy as np

from pyjax._src.backend import cuda, guard
from pyjax._src.backend import distributed_runtime as _runtime
from pyjax._src.backend import executable_cache as _exe_cache
from pyjax._src.config import config

# C++ (absl/tsl) logging reads this once, when jaxlib is first imported. By default, hide the two
# INFO lines that creating a client prints; below, absl's runtime level silences the rest.
_USER_CPP_LOG_LEVEL = os.environ.get("TF_CPP_MIN_LOG_LEVEL")
os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "1")

import jaxlib  # noqa: E402
from jaxlib import _jax  # noqa: E402
from jaxlib import utils as _jaxlib_utils  # noqa: E402
from jaxlib import xla_client as xc  # noqa: E402

logger = logging.getLogger("pyjax")

# The guard (backend/guard.py): the jaxlib release and entry points pyjax drives; no real jax.
guard.install(jaxlib, _jax)

# ---------------------------------------------------------------------------------------------
# Re-exported jaxlib types (so that the rest of pyjax never imports jaxlib).

JaxRuntimeError = _jax.JaxRuntimeError  # a RuntimeError subclass; what XLA raises
Device = _jax.Device
ArrayImpl = _jax.ArrayImpl  # the device buffer type returned by put/Executable
Sharding = _jax.Sharding
SingleDeviceSharding = _jax.SingleDeviceSharding
GSPMDSharding = _jax.GSPMDSharding
HloSharding = xc.HloSharding
OpSharding = xc.OpSharding
DeviceList = _jax.DeviceList
jaxlib_version = jaxlib.__version__

# ---------------------------------------------------------------------------------------------
# Global jaxlib state that `jax` would normally install (notes §1).


def set_cpp_log_level(level):
    """absl's minimum C++ log level: 0 INFO, 1 WARNING, 2 ERROR, 3 FATAL only."""
    _jaxlib_utils.absl_set_min_log_level(int(level))


def _initial_cpp_log_level():
    # NB: JAX shows C++ warnings and errors; pyjax silences them by default (XLA also logs
    # every failed execute as an E-line right before raising the same error in Python).
    # Setting TF_CPP_MIN_LOG_LEVEL explicitly restores them.
    try:
        return int(_USER_CPP_LOG_LEVEL)
    except (TypeError, ValueError):
        return 3


set_cpp_log_level(_initial_cpp_log_level())

# C++ reads the x64 flag from these Config objects (batched_device_put fails without it), and
# `_jax.pjit` reads the other two.
_X64_STATE = _jax.config.Config("jax_enable_x64", bool(config.jax_enable_x64),
                                include_in_jit_key=True, include_in_trace_context=True)
_DISABLE_JIT_STATE = _jax.config.Config("jax_disable_jit", bool(config.jax_disable_jit),
                                        include_in_trace_context=True)
_POST_HOOK_STATE = _jax.config.Config("post_hook", None, include_in_jit_key=False)
_jax.jax_jit.set_enable_x64_state(_X64_STATE)
_jax.jax_jit.set_disable_jit_state(_DISABLE_JIT_STATE)
_jax.jax_jit.set_post_hook_state(_POST_HOOK_STATE)
CONFIG_UNSET = _jax.config.unset  # a thread-local value that defers to the global one
config.on_change("jax_enable_x64", lambda v: _X64_STATE.set_global(bool(v)),
                 local=lambda v, own: _X64_STATE.set_local(bool(v) if own else CONFIG_UNSET))
config.on_change("jax_disable_jit", lambda v: _DISABLE_JIT_STATE.set_global(bool(v)))

# Transfer guards: jaxlib's C++ transfers (device_put, jit's argument transfers, reading an
# array's value) consult guard_lib's levels, global and per thread, as JAX sets them.
_GUARD_LEVELS = {"allow": "ALLOW", "log": "LOG", "disallow": "DISALLOW",
                 "log_explicit": "LOG_EXPLICIT", "disallow_explicit": "DISALLOW_EXPLICIT"}


def _guard_level(value):
    return None if value is None else getattr(_jax.guard_lib.TransferGuardLevel,
                                              _GUARD_LEVELS[value])


for _direction in ("host_to_device", "device_to_device", "device_to_host"):
    config.on_change(
        f"jax_transfer_guard_{_direction}",
        lambda v, d=_direction: setattr(_jax.guard_lib.global_state(), d, _guard_level(v)),
        local=lambda v, own, d=_direction: setattr(_jax.guard_lib.thread_local_state(), d,
                                                   _guard_level(v) if own else None))
config.on_change("jax_transfer_guard", lambda v: [
    config.update(f"jax_transfer_guard_{d}", v)
    for d in ("host_to_device", "device_to_device", "device_to_host")])


class internal_transfer:
    """`with internal_transfer():` lets pyjax's own transfers through the host-to-device and
    device-to-device guards (a jitted function's constants, which JAX embeds in the module
    rather than transfers)."""

    def __enter__(self):
        state = _jax.guard_lib.thread_local_state()
        self.prev = state.host_to_device, state.device_to_device
        state.host_to_device = state.device_to_device = _jax.guard_lib.TransferGuardLevel.ALLOW

    def __exit__(self, *exc):
        state = _jax.guard_lib.thread_local_state()
        state.host_to_device, state.device_to_device = self.prev


class explicit_transfer:
    """`with explicit_transfer("device_put"):` marks the transfers in the block as asked for
    explicitly (`jax.device_put`, `jax.device_get`): the "*_explicit" guard levels let them
    through."""

    def __init__(self, kind):
        self.field = "explicit_device_put" if kind == "device_put" else "explicit_device_get"

    def __enter__(self):
        state = _jax.guard_lib.thread_local_state()
        self.prev = getattr(state, self.field)
        setattr(state, self.field, True)

    def __exit__(self, *exc):
        setattr(_jax.guard_lib.thread_local_state(), self.field, self.prev)

# C++ jit dispatch (`_jax.pjit`, pyjax's jit). Its cache key holds every Config made with
# include_in_jit_key; pyjax adds two: whether a transformation is tracing (set by core whenever
# the current trace changes, so a concrete call inside `grad` or a `jit` trace never takes the
# fast path) and the settings that change what tracing produces (set by pjit).
PjitFunction = _jax.PjitFunction
PjitFunctionCache = _jax.PjitFunctionCache
pjit = _jax.pjit
TRACING = _jax.config.Config("pyjax_tracing", False, include_in_jit_key=True)
TRACE_SETTINGS = _jax.config.Config("pyjax_trace_settings", None, include_in_jit_key=True)


def new_pytree_registry():
    """A pytree registry for C++ dispatch (a private one: jaxlib's default is jax's)."""
    return _jax.pytree.PyTreeRegistry()


# The only Python attribute jaxlib's C++ looks up on sharding objects (jax installs these
# through `use_cpp_class`). NamedSharding needs a jax Mesh, so pyjax uses GSPMDSharding.
_jax.SingleDeviceSharding._to_xla_hlo_sharding = lambda self, ndim: xc.HloSharding.replicate()
_jax.GSPMDSharding._to_xla_hlo_sharding = lambda self, ndim: self._hlo_sharding

# ---------------------------------------------------------------------------------------------
# Clients and devices.

_PLATFORM_ALIASES = {"gpu": "cuda", "host": "cpu"}
_lock = threading.RLock()
_clients = {}  # canonical platform name -> Client
_default_platform = None


def _canonical_platform(name):
    name = str(name).strip().lower()
    return _PLATFORM_ALIASES.get(name, name)


def _requested_platforms():
    spec = config.jax_platforms or os.environ.get("JAX_PLATFORMS") or config.jax_platform_name
    return [_canonical_platform(p) for p in (spec or "").split(",") if p.strip()]


def get_client(platform=None):
    """The PJRT client for `platform` ("cpu", "cuda"/"gpu"; None: the default), created once."""
    if platform is None:
        return _clients.get(_default_platform) or _default_client()
    p = _canonical_platform(platform)
    client = _clients.get(p)
    if client is None:
        with _lock:
            client = _clients.get(p)
            if client is None:
                client = _clients[p] = _make_client(p)
    return client


def _default_client():
    global _default_platform
    with _lock:
        requested = _requested_platforms()
        candidates = requested or (["cuda", "cpu"] if cuda.plugin_installed() else ["cpu"])
        for p in candidates:
            try:
                client = get_client(p)
            except Exception as e:
                if requested:  # as jax: a platform the user asked for must work
                    raise RuntimeError(f"Unable to initialize backend {p!r}: {e}") from e
                logger.warning("pyjax: platform %r is unavailable, falling back to cpu (%s)", p, e)
                continue
            _default_platform = p
            return client
        raise RuntimeError(f"Unable to initialize any of the backends {candidates}")


def _make_client(platform):
    if platform == "cpu":
        dist = distributed
        collectives = None
        if dist.client is not None and config.jax_cpu_collectives_implementation == "gloo":
            collectives = _jax.make_gloo_tcp_collectives(distributed_client=dist.client)
        elif dist.client is not None and config.jax_cpu_collectives_implementation == "mpi":
            collectives = _jax.make_mpi_collectives()
            collectives.Init()
            atexit.register(collectives.Finalize)
        return xc.make_cpu_client(asynchronous=True, num_devices=_cpu_device_count(),
                                  distributed_client=dist.client, node_id=dist.process_id,
                                  num_nodes=dist.num_processes, collectives=collectives)
    if platform == "cuda":
        return cuda.make_client(xc, _register_gpu_targets)
    raise RuntimeError(f"Unknown backend {platform!r}; available: cpu"
                       + (", cuda" if cuda.plugin_installed() else ""))


# ---------------------------------------------------------------------------------------------
# Several processes (pyjax.distributed): XLA's distributed runtime (backend/distributed_runtime.py).

_runtime.jax_module = _jax  # the runtime's entry points (it imports no jaxlib itself)
distributed = _runtime.distributed
start_distributed_service = _runtime.start_distributed_service
connect_distributed_client = _runtime.connect_distributed_client
start_preemption_sync_manager = _runtime.start_preemption_sync_manager
shutdown_distributed = _runtime.shutdown_distributed


def backends_are_initialized() -> bool:
    """Whether any PJRT client exists yet (distributed.initialize must come before)."""
    return bool(_clients)


def _cpu_device_count():
    """N from jax_num_cpu_devices (set from $JAX_NUM_CPU_DEVICES, or before the first use) when it
    is set, as JAX gives it precedence; else from XLA_FLAGS=--xla_force_host_platform_device_count=N."""
    n = config.jax_num_cpu_devices
    if isinstance(n, int) and n >= 0:
        return n or None
    m = re.search(r"--xla_force_host_platform_device_count=(\d+)", os.environ.get("XLA_FLAGS", ""))
    return int(m.group(1)) if m else None


def devices(backend=None):
    """All devices of a backend (every process's), sorted by id."""
    return sorted(get_client(backend).devices(), key=lambda d: d.id)


def local_devices(process_index=None, backend=None):
    """The devices attached to this process (or to process `process_index`), sorted by id."""
    client = get_client(backend)
    if process_index is None:
        devs = client.local_devices()
    else:
        devs = [d for d in client.devices() if d.process_index == process_index]
    return sorted(devs, key=lambda d: d.id)


def device_count(backend=None):
    return len(get_client(backend).devices())


@functools.cache
def multiple_devices() -> bool:
    """Whether the default backend has more than one device (so placement must be checked)."""
    return len(get_client().devices()) > 1


def local_device_count(backend=None):
    return get_client(backend).local_device_count()


def default_backend():
    """"cpu" or "gpu" (jax's name for CUDA)."""
    p = get_client().platform
    return "gpu" if p == "cuda" else p


def process_index(backend=None):
    return get_client(backend).process_index()


def process_count(backend=None):
    return max(d.process_index for d in get_client(backend).devices()) + 1


def live_arrays(platform=None):
    """Every array alive on the platform's client (jaxlib keeps the list)."""
    return get_client(platform).live_arrays()


def _register_targets(module):
    for platform, targets in module.registrations().items():
        for name, value, api_version in targets:
            xc.register_custom_call_target(name, value, platform=platform, api_version=api_version)


def _register_gpu_targets():
    for modname in ("gpu_solver", "gpu_linalg", "gpu_prng", "gpu_sparse"):
        try:
            _register_targets(importlib.import_module(f"jaxlib.{modname}"))
        except ImportError:
            pass


@functools.cache
def _register_lapack():
    """LAPACK custom calls (`lapack_sgetrf_ffi`, ...) are not registered by default."""
    from jaxlib import lapack
    _register_targets(lapack)
    lapack._lapack.initialize()


# FFI targets: a user's C functions registered with XLA by name (`jax.ffi`).

def register_custom_call_target(name, fn, platform="cpu", api_version=0, **kwargs):
    """Register `fn` (a PyCapsule holding an XLA FFI handler, or a dict of them by stage) as the
    custom call target `name` on `platform` (api_version 1: typed FFI; 0: legacy)."""
    xc.register_custom_call_target(name, fn, platform=platform, api_version=api_version, **kwargs)


def register_custom_type(name, type_registration, platform="cpu"):
    xc.register_custom_type(name, type_registration, platform=platform)


def register_custom_call_as_batch_partitionable(name):
    xc.register_custom_call_as_batch_partitionable(name)


def custom_call_targets(platform="cpu"):
    """The names of the custom call targets registered for `platform`."""
    return xc.custom_call_targets(platform)


def jaxlib_include_dir():
    """The directory of the C headers jaxlib ships (`xla/ffi/api/ffi.h`, ...)."""
    return os.path.join(os.path.dirname(os.path.abspath(jaxlib.__file__)), "include")


# ---------------------------------------------------------------------------------------------
# Host <-> device.

_COPY = xc.HostBufferSemantics.IMMUTABLE_ONLY_DURING_CALL
_ZERO_COPY = xc.HostBufferSemantics.ZERO_COPY


def _xla_dtypes():
    import ml_dtypes
    names = ["bfloat16", "float8_e3m4", "float8_e4m3", "float8_e4m3b11fnuz", "float8_e4m3fn",
             "float8_e4m3fnuz", "float8_e5m2", "float8_e5m2fnuz", "float8_e8m0fnu",
             "float4_e2m1fn", "int1", "int2", "int4", "uint1", "uint2", "uint4"]
    extra = [getattr(ml_dtypes, n) for n in names if hasattr(ml_dtypes, n)]
    return frozenset(np.dtype(t) for t in [
        np.bool_, np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint16, np.uint32,
        np.uint64, np.float16, np.float32, np.float64, np.complex64, np.complex128, *extra])


XLA_DTYPES = _xla_dtypes()  # the host dtypes XLA accepts (native byte order)
_ALIAS_MIN_BYTES = 1 << 16
_batched_device_put = _jax.batched_device_put
_single_shardings = {}  # (Device, memory kind) -> SingleDeviceSharding


def single_device_sharding(device, memory_kind=None):
    """jaxlib's sharding of a buffer on `device`, in its memory `memory_kind` (None: the
    device's default memory)."""
    s = _single_shardings.get((device, memory_kind))
    if s is None:
        s = _single_shardings[(device, memory_kind)] = _jax.SingleDeviceSharding(
            device, memory_kind=memory_kind)
    return s


def memory_kind_of(buf):
    """The memory kind the buffer `buf` lives in (None: the client does not say)."""
    s = buf._sharding
    # (jaxlib's sharding objects say `_memory_kind`; the pieces of an array it splits carry
    # the SingleDeviceSharding of the `jax.sharding` module, which says `memory_kind`)
    kind = getattr(s, "_memory_kind", None)
    return kind if kind is not None else getattr(s, "memory_kind", None)


def encode_inspect_sharding_callback(fn):
    """The backend_config of an `InspectSharding` custom call: XLA's SPMD partitioner calls
    `fn(hlo_sharding)` with the operand's sharding while compiling (keep `fn` alive)."""
    return xc.encode_inspect_sharding_callback(fn)


def gspmd_sharding(devices, hlo_sharding, memory_kind=None):
    """A multi-device sharding over `devices` (logical order) described by an HloSharding, its
    pieces in the devices' memory `memory_kind` (None: the default one)."""
    return _jax.GSPMDSharding(xc.DeviceList(tuple(devices)), hlo_sharding,
                              memory_kind=memory_kind)


def tiled_hlo_sharding(tile_dims, device_order, replicate_last=False):
    """An HloSharding tiling an array `tile_dims` ways (one entry per dimension, plus the
    replication group size last when `replicate_last`), tile i held by logical device
    `device_order[i]`; all tiles 1 (or one device): replicated."""
    tile_dims = [int(t) for t in tile_dims]
    if all(t == 1 for t in tile_dims[:len(tile_dims) - bool(replicate_last)]):
        return xc.HloSharding.replicate()
    op = xc.OpSharding()
    op.type = xc.OpSharding.Type.OTHER
    op.tile_assignment_dimensions = tile_dims
    op.tile_assignment_devices = [int(d) for d in device_order]
    op.replicate_on_last_tile_dim = bool(replicate_last)
    return xc.HloSharding.from_proto(op)


def assemble(aval, sharding, singles, committed=True):
    """One multi-device array (global `aval`, jaxlib `sharding`) from single-device buffers, one
    per device of the sharding, in its device order."""
    return _jax.ArrayImpl(aval, sharding, list(singles), committed, _skip_checks=True)


def put(x, device, aval, may_alias=False, committed=False, memory_kind=None):
    """Copy a NumPy array to `device` as a buffer whose `.aval` is `aval`.

    `x` is converted to `aval.dtype` if it differs. With `may_alias=True` the device buffer may
    share memory with `x` (CPU only, and only if `x` is 64-byte aligned and C-contiguous): the
    caller promises never to mutate `x` afterwards. `committed` (as in JAX) marks an array the
    user placed on `device` explicitly. `memory_kind` names the device memory it goes to
    (`pinned_host`...; None: the default one).

    >>> buf = put(np.arange(3, dtype=np.float32), devices()[0], aval)
    """
    if type(x) is not np.ndarray:
        x = np.asarray(x)
    if x.dtype != aval.dtype:
        x = _convert(x, aval.dtype)
    elif x.dtype not in XLA_DTYPES:
        raise _dtype_error(x.dtype)
    if x.shape != aval.shape:
        raise ValueError(f"put: array of shape {x.shape} does not match aval shape "
                         f"{tuple(aval.shape)}")
    semantics = _COPY
    # Aliasing only pays off for big arrays (reading the data pointer alone costs ~1.4 µs).
    if (may_alias and x.nbytes >= _ALIAS_MIN_BYTES and x.flags.c_contiguous
            and x.ctypes.data % 64 == 0 and device.platform == "cpu"):
        semantics = _ZERO_COPY
    if memory_kind is not None:
        semantics = _COPY
    return _batched_device_put(aval, single_device_sharding(device, memory_kind), [x], [device],
                               committed, False, semantics, True)


def committed(buf):
    """`buf`'s data as an array committed to its device (the same buffer, not a copy)."""
    return _jax.ArrayImpl(buf.aval, buf._sharding, [buf], True, _skip_checks=True)


def is_aliased(buf, x) -> bool:
    """Whether the device buffer `buf` shares its memory with the NumPy array `x`."""
    return x.nbytes >= _ALIAS_MIN_BYTES and buf.unsafe_buffer_pointer() == x.ctypes.data


def copy(buf):
    """A new buffer with the same value, sharding and aval as `buf` (a device-side copy)."""
    sharding = buf._sharding
    return _jax.batched_copy_array_to_devices_with_sharding(
        [buf], [sharding._internal_device_list], [sharding],
        [_jax.ArrayCopySemantics.ALWAYS_COPY])[0]


def put_sharded(shards, devices, aval, sharding):
    """One buffer spread over `devices`: `shards[i]` (NumPy) goes to `devices[i]`; `aval` is the
    global aval and `sharding` (e.g. from `gspmd_sharding`) says how the shards tile it.

    NB: with a replicated sharding jaxlib uploads only `shards[0]` (to every device)."""
    xs = []
    for s in shards:
        s = np.asarray(s)
        ok = s.dtype == aval.dtype and s.dtype in XLA_DTYPES
        xs.append(s if ok else _convert(s, aval.dtype))
    return _batched_device_put(aval, sharding, xs, list(devices), True, False, _COPY, True)


def _convert(x, dtype):
    # Numbers of another type (or byte order) convert; objects, strings, records... never do.
    if x.dtype.kind not in "biufc" and x.dtype not in XLA_DTYPES:
        raise _dtype_error(x.dtype)
    dtype = np.dtype(dtype)
    if dtype not in XLA_DTYPES:
        raise _dtype_error(dtype)
    return x.astype(dtype)


def _dtype_error(dtype):
    return TypeError(f"pyjax arrays hold numbers and bools only; XLA has no type for dtype {dtype}")


_np_asarray = np.asarray


def to_numpy(buf):
    """The value of a device buffer as a (read-only) NumPy array; zero-copy on CPU when possible.

    Raises RuntimeError for a deleted (or donated) buffer.
    """
    try:
        # NB: never np.asarray(buf) directly: when the buffer protocol fails (deleted, sharded,
        # bf16...) numpy silently returns a 0-d object array. memoryview raises instead.
        return _np_asarray(memoryview(buf))
    except BufferError:
        return _to_numpy_slow(buf)
    except TypeError:
        if not isinstance(buf, _jax.ArrayImpl):
            raise TypeError(f"to_numpy expects a device buffer, got {type(buf).__name__}") from None
        raise


def _without_jax_import(fn):
    """Run a jaxlib call whose C++ side tries `import jax.core`: with jax absent the import just
    fails (slowly); with jax installed it would load jax. Make the import fail fast either way."""
    if "jax" in sys.modules:
        return fn()
    sys.modules["jax"] = None
    try:
        return fn()
    finally:
        sys.modules.pop("jax", None)


def _to_numpy_slow(buf):
    if buf.is_deleted():
        raise RuntimeError(f"Array has been deleted with shape={_short_aval(buf.aval)}.")
    sharding = buf._sharding
    if isinstance(sharding, _jax.SingleDeviceSharding):
        # bf16/fp8/int4 on CPU, or any dtype on GPU. Slow (~100 µs): the C++ tries to import jax.
        out, did_copy = _without_jax_import(buf._single_device_array_to_np_array_did_copy)
        if out.dtype == object:  # never hand out an object array
            raise RuntimeError(f"cannot read back a buffer of type {_short_aval(buf.aval)}")
        if not did_copy:
            out.flags.writeable = False
        return out
    return _gather(buf, sharding)


def _gather(buf, sharding):
    """Assemble a multi-device buffer on the host from its shards (slow: ~75 µs per shard)."""
    shape = tuple(buf.aval.shape)
    hlo = sharding._to_xla_hlo_sharding(len(shape))
    shards = single_device_buffers(buf)
    if hlo.is_replicated() or len(shards) == 1:
        return to_numpy(shards[0])
    device_list = sharding._internal_device_list
    slices = _shard_slices(hlo, shape)
    index = {d: i for i, d in enumerate(device_list)}
    partial = not device_list.is_fully_addressable
    seen = np.zeros(shape, bool) if partial else None
    out = None
    for s in shards:
        part = to_numpy(s)
        if out is None:
            out = np.empty(shape, part.dtype)
        sl = slices[index[s._sharding._device]]
        # With uneven tiling XLA pads the last shards: keep only the real part.
        out[sl] = part[tuple(slice(0, x.stop - x.start) for x in sl)]
        if partial:
            seen[sl] = True
    if partial and not seen.all():  # as JAX: only if this process holds the whole value
        raise RuntimeError(
            "Fetching value for `jax.Array` that spans non-addressable (non process local) "
            "devices is not possible. You can use "
            "`jax.experimental.multihost_utils.process_allgather` to print the global array "
            "or use `.addressable_shards` method of jax.Array to inspect the addressable "
            "(process local) shards.")
    out.flags.writeable = False
    return out


def _shard_slices(hlo, shape):
    """{logical device index: tuple of slices} for a tiled (optionally partly replicated)
    HloSharding; XLA tiles with ceil-sized chunks, the last one short."""
    if hlo.is_maximal():
        return {hlo.tile_assignment_devices()[0]: tuple(slice(None) for _ in shape)}
    dims = list(hlo.tile_assignment_dimensions())
    subgroups = hlo.subgroup_types()
    if hlo.replicate_on_last_tile_dim():
        n_data = len(dims) - 1
    elif subgroups and all(t == xc.OpSharding.Type.REPLICATED for t in subgroups):
        n_data = len(dims) - len(subgroups)
    elif subgroups or hlo.is_manual():
        raise NotImplementedError(f"cannot gather a buffer with sharding {hlo}")
    else:
        n_data = len(dims)
    if n_data != len(shape):
        raise ValueError(f"sharding {hlo} does not match a buffer of rank {len(shape)}")
    slices = {}
    for pos, dev in enumerate(hlo.tile_assignment_devices()):
        tile = np.unravel_index(pos, dims)[:n_data]
        sl = []
        for size, t, i in zip(shape, dims[:n_data], tile, strict=True):
            chunk = -(-size // t)
            sl.append(slice(min(i * chunk, size), min((i + 1) * chunk, size)))
        slices[dev] = tuple(sl)
    return slices


def _short_aval(aval):
    try:
        return f"{np.dtype(aval.dtype).name}[{','.join(map(str, aval.shape))}]"
    except Exception:  # noqa: BLE001
        return repr(aval)


def _layout_triple(pjrt_layout):
    xla_layout = pjrt_layout._xla_layout()
    return (tuple(xla_layout.minor_to_major()), tuple(tuple(t) for t in xla_layout.tiling()),
            xla_layout.element_size_in_bits())


def buffer_layout(buf):
    """The device layout of an array's buffers as `(minor_to_major, tiling,
    element_size_in_bits)`, or None when the backend does not say."""
    try:
        return _layout_triple(buf._pjrt_layout)
    except _jax.JaxRuntimeError:
        return None


def executable_layouts(xla_executable):
    """`(parameters, outputs)`: the layouts (as `buffer_layout`'s) an executable takes its
    arguments in and gives its results in."""
    return ([_layout_triple(p) for p in xla_executable.get_parameter_layouts()],
            [_layout_triple(p) for p in xla_executable.get_output_layouts()])


def single_device_buffers(buf):
    """The per-device pieces of a (possibly multi-device) buffer, in its sharding's order.

    Under the switch jaxlib makes the pieces with `jax.sharding.SingleDeviceSharding`, which is
    pyjax's there: each such piece is given jaxlib's own (the C++ dispatch of an operation on
    the piece reads it, and fails with std::bad_cast on any other). A piece without an aval
    keeps its sharding: whoever gives it its aval gives it `jaxlib_sharding(...)` too."""
    return [b if b.aval is None or isinstance(b._sharding, _jax.SingleDeviceSharding) else
            b._rewrap_with_aval_and_sharding(b.aval, jaxlib_sharding(b._sharding))
            for b in _without_jax_import(lambda: buf._arrays)]


def jaxlib_sharding(s):
    """jaxlib's SingleDeviceSharding for the single-device sharding `s` (jaxlib's or pyjax's)."""
    if isinstance(s, _jax.SingleDeviceSharding):
        return s
    return _jax.SingleDeviceSharding(s._device_assignment[0], memory_kind=s.memory_kind)


def buffer_devices(buf):
    """The devices holding `buf`, in the order of its sharding's device list."""
    s = buf._sharding
    devices = getattr(s, "_internal_device_list", None)
    if devices is None:  # (under the switch jaxlib makes the single-device pieces of an array
        return list(s._device_assignment)  # with `jax.sharding.SingleDeviceSharding`: pyjax's)
    return list(devices)


def block_until_ready(bufs):
    """Wait until every buffer in `bufs` is computed; returns `bufs`."""
    _jax.batched_block_until_ready(bufs)
    return bufs


# ---------------------------------------------------------------------------------------------
# Compilation, with in-memory and on-disk executable caches (backend/executable_cache.py).

cache_stats = _exe_cache.cache_stats
wait_for_cache_writes = _exe_cache.wait_for_cache_writes
set_cache_dir = _exe_cache.set_cache_dir
cache_dir = _exe_cache.cache_dir
clear_caches = _exe_cache.clear_caches
_reset_for_tests = _exe_cache.reset_for_tests
_executables = _exe_cache._executables


def compile(module_text, devices, *, out_avals, num_replicas=1, num_partitions=1,
            use_shardy=False, host_callbacks=(), out_shardings=None, compile_options=(),
            propagate_to_outputs=None):
    """Compile StableHLO text for `devices` (num_replicas * num_partitions of them, in logical
    order) into an Executable whose outputs get `out_avals`.

    Cached in memory and on disk (unless `host_callbacks` are given: Python callables can't be
    serialized). Donation is marked in the module text (`{jax.buffer_donor = true}`).
    `out_shardings` (jaxlib Shardings or HloShardings, one per output) defaults to the device
    for one device, else to what the compiled executable reports. `compile_options` holds
    (name, value) pairs overriding XLA's debug options (`("xla_cpu_enable_fast_math", False)`).
    `propagate_to_outputs` (one bool per output) lets XLA's SPMD partitioner choose the layout
    of the outputs whose entry is True (those the module leaves unannotated).
    """
    if not isinstance(module_text, str):
        raise TypeError(f"compile expects StableHLO text, got {type(module_text).__name__}")
    devices = list(devices)
    if len(devices) != num_replicas * num_partitions or not devices:
        raise ValueError(f"compile: {len(devices)} devices given for num_replicas={num_replicas} "
                         f"x num_partitions={num_partitions}")
    client = devices[0].client
    platform = client.platform
    if platform == "cpu" and ("lapack_" in module_text or "tridiagonal_solve_perturbed_ffi" in module_text):
        _register_lapack()
    opts = _compile_options(platform, [d.id for d in devices], num_replicas, num_partitions,
                            use_shardy, compile_options)
    if propagate_to_outputs:
        opts.executable_build_options.allow_spmd_sharding_propagation_to_output = \
            [bool(p) for p in propagate_to_outputs]
    device_list = xc.DeviceList(tuple(devices))
    t0 = time.perf_counter()
    if host_callbacks:
        exe = _compile_with_callbacks(client, module_text, device_list, opts, list(host_callbacks))
        source = "uncached"
        _exe_cache.log_compile(module_text, devices, time.perf_counter() - t0,
                               "host callbacks, not cached")
    else:
        mkey = (platform, module_text, opts.SerializeAsString())
        exe = _executables.get(mkey)
        if exe is None:
            exe, source = _exe_cache.compile_once(mkey, functools.partial(
                _exe_cache.load_or_compile, client, module_text, device_list, opts, mkey[2],
                devices, _xla_compile, jaxlib_version))
        else:
            source = "memory"
            _exe_cache.count("memory_hits")
    out = Executable(exe, out_avals, devices, out_shardings, with_tokens=bool(host_callbacks))
    out.cache_source, out.compile_time = source, time.perf_counter() - t0
    return out


_BUILD_OPTIONS = ("exec_time_optimization_effort", "memory_fitting_effort", "optimization_level",
                  "memory_fitting_level")


def _compile_options(platform, device_ids, num_replicas, num_partitions, use_shardy,
                     overrides=()):
    opts = xc.CompileOptions()
    opts.num_replicas = num_replicas
    opts.num_partitions = num_partitions
    build = opts.executable_build_options
    overrides = dict(overrides)
    for name in _BUILD_OPTIONS:  # (as JAX: these are options of the build, not of XLA's flags)
        if name in overrides:
            setattr(build, name, overrides.pop(name))
    opts.env_option_overrides = list(overrides.items())
    build.use_spmd_partitioning = True  # as jax: harmless for one device
    build.use_shardy_partitioner = bool(use_shardy)  # required for sdy.* modules
    opts.device_assignment = xc.DeviceAssignment.create(
        np.asarray(device_ids, dtype=np.int32).reshape(num_replicas, num_partitions))
    if platform in ("cuda", "gpu"):
        cuda_dir = cuda.data_dir()
        if cuda_dir:
            build.debug_options.xla_gpu_cuda_data_dir = cuda_dir
    return opts


def _xla_compile(client, text, device_list, opts):
    _exe_cache.count("compiles")
    try:
        return client.compile_and_load(text, device_list, opts)
    except JaxRuntimeError as e:
        e.add_note(f"while compiling module {_exe_cache.module_name(text)} for {client.platform}")
        raise


_mlir_lock = threading.Lock()
_mlir_context = None


def _compile_with_callbacks(client, text, device_list, opts, callbacks):
    """The host_callbacks overloads only take an MLIR module object (not text), so parse the
    text with jaxlib's MLIR bindings, imported only here (notes §5)."""
    from jaxlib.mlir import ir
    with _mlir_lock:
        _ensure_mlir_context()
        try:
            with _mlir_context:
                module = ir.Module.parse(text)
        except ir.MLIRError as e:
            raise ValueError(f"invalid StableHLO module {_exe_cache.module_name(text)}: {e}") from None
    _exe_cache.count("compiles")
    try:
        return client.compile_and_load(module, device_list, opts, host_callbacks=callbacks)
    except JaxRuntimeError as e:
        e.add_note(f"while compiling module {_exe_cache.module_name(text)} for {client.platform}")
        raise


def _ensure_mlir_context():
    """jaxlib's MLIR context with the StableHLO dialects (call holding `_mlir_lock`)."""
    global _mlir_context
    if _mlir_context is None:
        from jaxlib.mlir import ir
        from jaxlib.mlir._mlir_libs import _chlo, _jax_mlir_ext, _mlirHlo, _sdy, _stablehlo
        registry = ir.DialectRegistry()
        _jax_mlir_ext.register_dialects(registry)
        ctx = ir.Context()
        ctx.append_dialect_registry(registry)
        ctx.load_all_available_dialects()
        _sdy.register_dialect(ctx)
        _mlirHlo.register_mhlo_dialect(ctx)
        _chlo.register_dialect(ctx)
        _stablehlo.register_dialect(ctx)
        _mlir_context = ctx
    return _mlir_context


def refine_polymorphic_shapes(module_text: str) -> str:
    """The module with its dynamic shapes (`tensor<?x4xf32>`) made static from the static types
    of `main`'s arguments, by jaxlib's StableHLO shape refinement pass (shape assertions are
    checked and dropped); printed back as text. Raises ValueError when the refinement fails."""
    from jaxlib.mlir import ir
    try:
        refined = _jax.mlir.refine_polymorphic_shapes(module_text.encode(),
                                                      enable_shape_assertions=True,
                                                      validate_static_shapes=True)
    except JaxRuntimeError as e:
        raise ValueError(f"shape refinement of module {_exe_cache.module_name(module_text)} failed: {e}") from None
    with _mlir_lock:
        with _ensure_mlir_context():
            return str(ir.Module.parse(refined))


def serialize_portable_artifact(module_text: str) -> bytes:
    """The module as a StableHLO portable artifact (versioned bytecode), targeting the StableHLO
    version JAX 0.10.2's export targets: the newest one at least four weeks old
    (`WEEK_4`), so that consumers updated monthly can read it."""
    from jaxlib.mlir import ir, passmanager
    from jaxlib.mlir.dialects import stablehlo
    target = stablehlo.get_version_from_compatibility_requirement(
        stablehlo.StablehloCompatibilityRequirement.WEEK_4)
    with _mlir_lock:
        with _ensure_mlir_context():
            module = ir.Module.parse(module_text)
            # (the parser's locations, lines of pyjax's text, mean nothing to a reader)
            passmanager.PassManager.parse("builtin.module(strip-debuginfo)").run(module.operation)
            # (Shardy's ops stay in the sdy dialect where the backend reads them so, as JAX
            # serializes; else they are converted to the GSPMD round-trip form)
            return _jax.mlir.serialize_portable_artifact(module, target,
                                                         get_client().serialize_with_sdy)


def deserialize_portable_artifact(blob: bytes, debug_info=False) -> str:
    """The text of a StableHLO portable artifact (by default without locations: each function's
    text is self-contained; `debug_info` prints them, as JAX's `mlir_module()`). Raises
    ValueError when `blob` is not one."""
    with _mlir_lock:
        with _ensure_mlir_context() as ctx:
            try:
                module = _jax.mlir.deserialize_portable_artifact(bytes(blob), ctx)
            except Exception as e:  # (jaxlib raises a bare Exception/RuntimeError)
                raise ValueError(f"not a StableHLO portable artifact ({e})") from None
            return module.operation.get_asm(enable_debug_info=debug_info)


def hlo_computation(module_text: str):
    """The module as XLA's HLO computation (`as_hlo_text()`, `as_hlo_module()`...)."""
    return _jax.mlir.mlir_module_to_xla_computation(module_text, use_tuple_args=False,
                                                    return_tuple=False)


def mlir_module(module_text: str):
    """The module parsed into jaxlib's MLIR objects (an `ir.Module`: `str()`, `.operation`)."""
    from jaxlib.mlir import ir
    with _mlir_lock:
        with _ensure_mlir_context():
            return ir.Module.parse(module_text)


def module_cost_analysis(module_text: str, device) -> dict:
    """XLA's cost estimate (flops, bytes accessed, ...) of a StableHLO module, unoptimized."""
    computation = hlo_computation(module_text)
    return _jax.hlo_module_cost_analysis(device.client, computation.get_hlo_module())


class Executable:
    """A loaded XLA executable with precomputed result handlers.

    `exe(args)` takes a list of device buffers (one per module argument, already on the right
    device(s)) and returns a list of device buffers, one per output. Dispatch is asynchronous.

    `cache_source` says where compile() found it ("compiled", "disk", "memory", or "uncached"
    for modules with host callbacks) and `compile_time` how long compile() took (seconds).
    """

    __slots__ = ("xla_executable", "out_avals", "out_shardings", "devices", "cache_source",
                 "compile_time", "_execute", "_handlers", "with_tokens", "__weakref__")

    def __init__(self, xla_executable, out_avals, devices, out_shardings=None, with_tokens=False):
        self.xla_executable = xla_executable
        self.with_tokens = with_tokens  # host callbacks: effects_barrier waits for its runs
        self.out_avals = list(out_avals)
        self.devices = list(devices)
        n_out = _num_outputs(xla_executable)
        if n_out is not None and n_out != len(self.out_avals):
            raise ValueError(f"compile: the module has {n_out} outputs but {len(self.out_avals)} "
                             "out_avals were given")
        self.out_shardings = self._output_shardings(out_shardings)
        self._handlers = [
            _jax.array_result_handler(aval, sharding, False, _skip_checks=True)
            for aval, sharding in zip(self.out_avals, self.out_shardings, strict=True)]
        self._execute = xla_executable.execute_sharded
        self.cache_source, self.compile_time = "compiled", 0.0

    def _output_shardings(self, given):
        devs = self.devices
        n = len(self.out_avals)
        if given is not None:
            given = list(given)
            if len(given) != n:
                raise ValueError(f"compile: {len(given)} out_shardings for {n} outputs")
            return [gspmd_sharding(devs, s) if isinstance(s, xc.HloSharding) else s for s in given]
        kinds = self._output_memory_kinds(n)
        if len(devs) == 1 or n == 0:  # (a module without results reports one sharding)
            return [single_device_sharding(devs[0], k) for k in kinds]
        hlos = self.xla_executable.get_output_shardings() or [xc.HloSharding.replicate()] * n
        return [gspmd_sharding(devs, h, k) for h, k in zip(hlos, kinds, strict=True)]

    def _output_memory_kinds(self, n):
        """Per output, the memory kind XLA puts it in when not the devices' default memory
        (`mhlo.memory_kind` on a result: pinned_host), else None."""
        try:
            kinds = self.xla_executable.get_output_memory_kinds()[0]
            default = self.devices[0].default_memory().kind
        except Exception:  # a client without memory spaces
            return [None] * n
        if len(kinds) != n:
            return [None] * n
        return [None if k == default else k for k in kinds]

    def set_out_shardings(self, shardings, committed=True):
        """Make outputs with these jaxlib sharding objects (C++ dispatch matches arguments'
        shardings by identity first, so outputs fed back in should carry the very objects
        its fast path was given)."""
        self.out_shardings = list(shardings)
        self._handlers = [
            _jax.array_result_handler(aval, sharding, committed, _skip_checks=True)
            for aval, sharding in zip(self.out_avals, self.out_shardings, strict=True)]

    def __call__(self, args):
        if not self.with_tokens:
            return self._execute(args).consume_with_handlers(self._handlers)
        results = self._execute(args, with_tokens=True)
        token = results.consume_token()  # done when the run (and its callbacks) has finished
        _runtime_tokens.update(dict.fromkeys(self.devices, token))
        return results.consume_with_handlers(self._handlers)

    def cost_analysis(self):
        """XLA's cost estimates: {'flops': ..., 'bytes accessed': ..., ...}."""
        return dict(self.xla_executable.cost_analysis())

    def memory_analysis(self):
        return self.xla_executable.get_compiled_memory_stats()

    def as_hlo_text(self):
        """The optimized HLO module(s) XLA produced."""
        return "\n\n".join(m.to_string() for m in self.xla_executable.hlo_modules())

    def __repr__(self):
        return f"Executable({_exe_cache.device_summary(self.devices)}, {len(self.out_avals)} outputs)"


_runtime_tokens = {}  # device -> token of the last run with host callbacks launched there


def effects_barrier():
    """Wait for every run with host callbacks launched so far (runs on one device finish in
    launch order, so the last token per device is enough), as JAX's runtime tokens."""
    tokens = {id(t): t for t in _runtime_tokens.values()}.values()
    _runtime_tokens.clear()
    for t in tokens:
        t.block_until_ready()


def _num_outputs(exe):
    try:
        return len(exe.get_output_memory_kinds()[0])
    except Exception:  # noqa: BLE001 — only a sanity check
        return None


# ---------------------------------------------------------------------------------------------
# Source tracebacks: jaxlib's C++ capture of the Python stack (code objects and offsets only, no
# frames held; ~0.1 us). Staged equations keep one, so checkify and debug_nans can name the
# user's line of an operation long after tracing ended.

get_traceback = _jax.Traceback.get_traceback


# ---------------------------------------------------------------------------------------------
# Exit: the CPU client's destructor can hang joining its thread pool when it runs during
# interpreter finalization with work in flight (notes §8). Finish pending work and drop our
# references while the interpreter is still whole.

def _finish_pending_work():
    effects_barrier()  # runs still calling back into Python must finish while it is whole
    for client in list(_clients.values()):
        try:
            _jax.batched_block_until_ready(client.live_arrays())
        except Exception:  # noqa: BLE001 — best effort at exit
            pass


def _shutdown():
    global _default_platform
    if threading.main_thread().is_alive():
        # NB: a program ran the exit functions itself (`atexit._run_exitfuncs()`, as chex's
        # tests do) and goes on: keep the clients its arrays and executables live on, and
        # run again at the real exit (threading has stopped the main thread by then).
        _finish_pending_work()
        atexit.register(_shutdown)
        return
    try:
        _finish_pending_work()
    finally:
        _executables.clear()
        _single_shardings.clear()
        _clients.clear()
        _default_platform = None
        gc.collect()
        try:  # as JAX: the distributed runtime goes after the clients that use it
            shutdown_distributed()
        except Exception as e:  # noqa: BLE001 — at exit, a peer may already be gone
            logger.warning("pyjax: distributed shutdown failed at exit: %s", e)


atexit.register(_shutdown)
