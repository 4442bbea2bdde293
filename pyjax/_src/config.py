"""Global configuration flags: every flag of JAX 0.10.2's `jax.config`, with JAX's defaults.

    pyjax.config.update("jax_enable_x64", True)      # or JAX_ENABLE_X64=1 in the environment
    pyjax.config.jax_enable_x64                      # read a flag
    with pyjax.numpy_rank_promotion("raise"): ...    # a flag for a block (or as a decorator)

Each flag is declared once in `_FLAGS` with the kind of value it takes; `update` checks a new
value the way JAX does (the exception classes are JAX's). Flags read their environment variable
(the upper-cased name) once, at import. Listeners (`on_change`) let other modules mirror a flag,
e.g. the backend copies jax_enable_x64 into jaxlib's own state.

Flags pyjax acts on are listed in `ACTED_ON`; every other flag is accepted, stored and readable
but changes nothing (`NO_OPS`), so programs that set them run unchanged.
"""
import enum
import functools
import os
import threading

# ---------------------------------------------------------------------------------------------
# Enum-valued flags (JAX's classes; a string names a member: update(..., "strict")).


class ExplicitX64Mode(enum.IntEnum):
    """What an explicit 64-bit dtype request does while jax_enable_x64 is off."""
    WARN = 1    # warn, and give the 32-bit type
    ERROR = 2   # raise ValueError
    ALLOW = 3   # give the 64-bit type anyway

    @classmethod
    def _missing_(cls, value):
        return {"warn": cls.WARN, "error": cls.ERROR, "allow": cls.ALLOW}.get(value)


class NumpyDtypePromotion(enum.StrEnum):
    STANDARD = "standard"
    STRICT = "strict"


class LegacyPrngKeyState(enum.StrEnum):
    ALLOW = "allow"
    WARN = "warn"
    ERROR = "error"


class EffortLevel(enum.Enum):
    """XLA's effort levels, for jit's `compiler_options` `optimization_level` and
    `memory_fitting_level` (`EffortLevel.O1.value`); also looked up by name (`EffortLevel("O1")`)."""
    UNKNOWN = 0
    O0 = 9
    O1 = 19
    O2 = 29
    O3 = 39

    @classmethod
    def _missing_(cls, value):
        return cls.__members__.get(value) if isinstance(value, str) else None


class RuntimeTracebackMode(enum.StrEnum):
    OFF = "off"
    ON = "on"
    FULL = "full"


# ---------------------------------------------------------------------------------------------
# Kinds of values, each a parser that returns the value to store or raises as JAX does.


def BOOL(v):
    return bool(v)


def RAW_BOOL(v):
    """A boolean flag JAX keeps as given (an absl flag rather than a config state)."""
    return v


def INT(v):
    if v is not None and not isinstance(v, int):
        raise ValueError(f"expected an int (or None), got {v!r}")
    return v


def FLOAT(v):
    if v is not None and not isinstance(v, (int, float)):
        raise ValueError(f"expected a number (or None), got {v!r}")
    return v


def OPT_STR(v):
    if v is not None and not isinstance(v, str):
        raise ValueError(f"expected a string (or None), got {v!r}")
    return v


def ANY(v):
    return v


def enum_of(*choices, optional=False):
    def parse(v):
        if (v is None and optional) or v in choices:
            return v
        raise ValueError(f"expected one of {list(choices)}{' or None' if optional else ''}, "
                         f"got {v!r}")
    parse.choices = choices
    return parse


def opt_enum(*choices):
    return enum_of(*choices, optional=True)


def enum_class(cls):
    def parse(v):
        if isinstance(v, cls):
            return v
        if not isinstance(v, str):
            raise TypeError(f"expected a {cls.__name__} or one of the strings "
                            f"{[m.name.lower() for m in cls]}, got {v!r}")
        try:
            return cls(v.lower())
        except ValueError:
            raise ValueError(f"expected one of {[m.name.lower() for m in cls]}, got {v!r}") from None
    parse.choices = tuple(m.name.lower() for m in cls)
    return parse


_PRECISIONS = ("default", "high", "highest", "bfloat16", "tensorfloat32", "float32",
               "ANY_F8_ANY_F8_F32", "ANY_F8_ANY_F8_F32_FAST_ACCUM", "ANY_F8_ANY_F8_ANY",
               "ANY_F8_ANY_F8_ANY_FAST_ACCUM", "F16_F16_F16", "F16_F16_F32", "BF16_BF16_BF16",
               "BF16_BF16_F32", "BF16_BF16_F32_X3", "BF16_BF16_F32_X6", "BF16_BF16_F32_X9",
               "TF32_TF32_F32", "TF32_TF32_F32_X3", "F32_F32_F32", "F64_F64_F64")
_TRANSFER_GUARD = opt_enum("allow", "log", "disallow", "log_explicit", "disallow_explicit")
_LEVELS = enum_of("UNKNOWN", "O0", "O1", "O2", "O3")

# (name, JAX 0.10.2's default, kind). Recorded from jax.config by tests/data/record_config.py.
_FLAGS = [
    ("check_vma", False, BOOL),
    ("eager_constant_folding", False, BOOL),
    ("jax2tf_associative_scan_reductions", False, BOOL),
    ("jax2tf_default_native_serialization", True, BOOL),
    ("jax_allow_f16_reductions", True, BOOL),
    ("jax_array_garbage_collection_guard", None, opt_enum("allow", "log", "fatal")),
    ("jax_auto_pcast", True, BOOL),
    ("jax_backend_target", "", ANY),
    ("jax_bcoo_cusparse_lowering", False, BOOL),
    ("jax_captured_constants_report_frames", 0, INT),
    ("jax_captured_constants_warn_bytes", 2000000000, INT),
    ("jax_check_proxy_envs", True, RAW_BOOL),
    ("jax_check_static_indices", False, BOOL),
    ("jax_check_tracer_leaks", False, BOOL),
    ("jax_compilation_cache_check_contents", False, BOOL),
    ("jax_compilation_cache_dir", None, ANY),
    ("jax_compilation_cache_expect_pgle", False, BOOL),
    ("jax_compilation_cache_include_metadata_in_key", False, BOOL),
    ("jax_compilation_cache_max_size", -1, INT),
    ("jax_compiler_detailed_logging_min_ops", 10, ANY),
    ("jax_compiler_enable_remat_pass", True, BOOL),
    ("jax_cpu_collectives_implementation", "gloo", enum_of("gloo", "mpi", "megascale")),
    ("jax_cpu_enable_async_dispatch", True, RAW_BOOL),
    ("jax_cpu_get_global_topology_timeout_minutes", 5, INT),
    ("jax_cpu_get_local_topology_timeout_minutes", 2, INT),
    ("jax_cross_host_transfer_socket_address", "", ANY),
    ("jax_cross_host_transfer_timeout_seconds", None, ANY),
    ("jax_cross_host_transfer_transfer_size", None, ANY),
    ("jax_cross_host_transport_addresses", "", ANY),
    ("jax_cuda_visible_devices", "all", ANY),
    ("jax_custom_vjp3", False, BOOL),
    ("jax_debug_infs", False, BOOL),
    ("jax_debug_key_reuse", False, BOOL),
    ("jax_debug_leaked_clients_on_clear_backends", False, BOOL),
    ("jax_debug_log_modules", "", ANY),
    ("jax_debug_nans", False, BOOL),
    ("jax_default_device", None, ANY),
    ("jax_default_matmul_precision", None, opt_enum(*_PRECISIONS)),
    ("jax_default_prng_impl", "threefry2x32", enum_of(
        "threefry2x32", "threefry4x32", "rbg", "unsafe_rbg", "philox2x32", "philox4x32")),
    ("jax_disable_bwd_checks", False, BOOL),
    ("jax_disable_jit", False, BOOL),
    ("jax_disable_most_optimizations", False, RAW_BOOL),
    ("jax_disable_vmap_shmap_error", False, BOOL),
    ("jax_disallow_mesh_context_manager", False, BOOL),
    ("jax_distributed_debug", False, BOOL),
    ("jax_dump_ir_modes", "stablehlo", ANY),
    ("jax_dump_ir_to", "", ANY),
    ("jax_embedded_constants_max_bytes", 32, INT),
    ("jax_enable_checks", False, BOOL),
    ("jax_enable_compilation_cache", True, BOOL),
    ("jax_enable_custom_prng", False, BOOL),
    ("jax_enable_pgle", False, BOOL),
    ("jax_enable_preemption_service", True, BOOL),
    ("jax_enable_recoverability", False, BOOL),
    ("jax_enable_x64", False, BOOL),
    ("jax_error_checking_behavior_divide", "ignore", enum_of("ignore", "raise")),
    ("jax_error_checking_behavior_nan", "ignore", enum_of("ignore", "raise")),
    ("jax_error_checking_behavior_oob", "ignore", enum_of("ignore", "raise")),
    ("jax_exec_time_optimization_effort", 0.0, FLOAT),
    ("jax_experimental_unsafe_xla_runtime_errors", False, BOOL),
    ("jax_explain_cache_misses", False, BOOL),
    ("jax_explicit_x64_dtypes", ExplicitX64Mode.WARN, enum_class(ExplicitX64Mode)),
    ("jax_export_calling_convention_version", 10, INT),
    ("jax_export_ignore_forward_compatibility", False, BOOL),
    ("jax_force_dcn_cross_host_transfers", False, RAW_BOOL),
    ("jax_high_dynamic_range_gumbel", False, BOOL),
    ("jax_hlo_source_file_canonicalization_regex", None, OPT_STR),
    ("jax_include_debug_info_in_dumps", True, RAW_BOOL),
    ("jax_include_full_tracebacks_in_locations", True, BOOL),
    ("jax_legacy_prng_key", LegacyPrngKeyState.ALLOW, enum_class(LegacyPrngKeyState)),
    ("jax_log_checkpoint_residuals", False, BOOL),
    ("jax_log_compiles", False, BOOL),
    ("jax_logging_level", "NOTSET", enum_of(
        "NOTSET", "DEBUG", "INFO", "WARNING", "ERROR", "CRITICAL")),
    ("jax_memory_fitting_effort", 0.0, FLOAT),
    ("jax_memory_fitting_level", "O2", _LEVELS),
    ("jax_mock_gpu_topology", "", ANY),
    ("jax_mosaic_allow_hlo", False, BOOL),
    ("jax_mutable_array_checks", True, BOOL),
    ("jax_no_execution", False, BOOL),
    ("jax_no_tracing", False, BOOL),
    ("jax_num_cpu_devices", -1, INT),
    ("jax_numpy_dtype_promotion", NumpyDtypePromotion.STANDARD, enum_class(NumpyDtypePromotion)),
    ("jax_numpy_rank_promotion", "allow", enum_of("allow", "warn", "raise")),
    ("jax_oneapi_visible_devices", "all", ANY),
    ("jax_optimization_level", "UNKNOWN", _LEVELS),
    ("jax_pallas_enable_debug_checks", False, BOOL),
    ("jax_pallas_poison_buffers", False, BOOL),
    ("jax_pallas_use_mosaic_gpu", True, BOOL),
    ("jax_pallas_verbose_errors", False, RAW_BOOL),
    ("jax_persistent_cache_enable_xla_caches", "xla_gpu_per_fusion_autotune_cache_dir", OPT_STR),
    ("jax_persistent_cache_min_compile_time_secs", 1.0, FLOAT),
    ("jax_persistent_cache_min_entry_size_bytes", 0, INT),
    ("jax_pgle_aggregation_percentile", 90, INT),
    ("jax_pgle_profiling_runs", 3, INT),
    ("jax_pjrt_client_create_options", None, OPT_STR),
    ("jax_platform_name", "", ANY),
    ("jax_platforms", None, ANY),
    ("jax_pprint_use_color", True, BOOL),
    ("jax_ragged_dot_use_gpu_pallas_triton_lowering", False, BOOL),
    ("jax_ragged_dot_use_ragged_dot_instruction", True, BOOL),
    ("jax_raise_persistent_cache_errors", False, BOOL),
    ("jax_random_seed_offset", 0, INT),
    ("jax_refs_to_pins", False, BOOL),
    ("jax_remat3", False, BOOL),
    ("jax_remove_custom_partitioning_ptr_from_cache_key", False, BOOL),
    ("jax_remove_size_one_mesh_axis_from_type", False, BOOL),
    ("jax_rocm_visible_devices", "all", ANY),
    ("jax_scan3", False, BOOL),
    ("jax_send_traceback_to_runtime", RuntimeTracebackMode.OFF, enum_class(RuntimeTracebackMode)),
    ("jax_serialization_version", 0, INT),
    ("jax_share_binary_between_hosts", False, BOOL),
    ("jax_share_binary_between_hosts_timeout_ms", 1200000, INT),
    ("jax_softmax_custom_jvp", False, BOOL),
    ("jax_sort_devices_by_process_index", True, RAW_BOOL),
    ("jax_source_url_schema", None, OPT_STR),
    ("jax_thread_guard", False, BOOL),
    ("jax_threefry_gpu_kernel_lowering", False, BOOL),
    ("jax_threefry_partitionable", True, BOOL),
    ("jax_traceback_filtering", "auto", enum_of(
        "off", "tracebackhide", "remove_frames", "quiet_remove_frames", "auto")),
    ("jax_traceback_in_locations_limit", 100, INT),
    ("jax_tracer_error_num_traceback_frames", 5, ANY),
    ("jax_transfer_guard", None, _TRANSFER_GUARD),
    ("jax_transfer_guard_device_to_device", None, _TRANSFER_GUARD),
    ("jax_transfer_guard_device_to_host", None, _TRANSFER_GUARD),
    ("jax_transfer_guard_host_to_device", None, _TRANSFER_GUARD),
    ("jax_use_direct_linearize", True, BOOL),
    ("jax_use_emit_pipeline_primitive", False, BOOL),
    ("jax_use_magma", "auto", enum_of("off", "on", "auto")),
    ("jax_use_shardy_partitioner", True, BOOL),
    ("jax_use_simplified_jaxpr_constants", False, BOOL),
    ("jax_xla_backend", "", ANY),
    ("jax_xla_profile_version", 0, INT),
    ("mock_num_gpu_processes", 0, ANY),
]

# The flags pyjax reads. Every other flag is a no-op: accepted, stored, readable, ignored.
ACTED_ON = frozenset({
    "jax_enable_x64",                 # 64-bit types
    "jax_explicit_x64_dtypes",        # dtypes.maybe_canonicalize_explicit_dtype
    "jax_disable_jit",                # jit and control flow run the Python function
    "jax_numpy_dtype_promotion",      # dtypes: the strict lattice
    "jax_numpy_rank_promotion",       # numpy/util.py: promote_shapes
    "jax_default_matmul_precision",   # lax dot_general's canonicalize_precision
    "jax_debug_nans", "jax_debug_infs",  # dispatch: FloatingPointError on a NaN/inf output
    "jax_enable_checks",              # dispatch: check_jaxpr before compiling
    "jax_log_compiles",               # backend: log every compilation
    "jax_explain_cache_misses",       # jit: explain every retrace (pyjax explains repeats anyway)
    "jax_platforms", "jax_platform_name", "jax_num_cpu_devices",  # backend: client selection
    "jax_compilation_cache_dir",      # backend: the persistent cache directory
    "jax_persistent_cache_min_compile_time_secs",  # backend: cache write thresholds, when set
    "jax_persistent_cache_min_entry_size_bytes",
    "jax_threefry_partitionable",     # random: the threefry split/bits scheme
    "jax_default_prng_impl",          # random: the implementation of raw keys and new keys
    "jax_enable_custom_prng",         # random: PRNGKey returns typed keys
    "jax_legacy_prng_key",            # random: raw keys allowed, warned about, or refused
    "jax_random_seed_offset",         # random: added to every seed
    "jax_high_dynamic_range_gumbel",  # random: gumbel's default mode
    "jax_use_shardy_partitioner",     # lowering: Shardy's sdy dialect, else GSPMD's shardings
    "jax_allow_f16_reductions",       # lax.reduce_sum of f16/bf16 refused when False
    "jax_transfer_guard", "jax_transfer_guard_host_to_device",  # backend: jaxlib's guard_lib
    "jax_transfer_guard_device_to_device", "jax_transfer_guard_device_to_host",
})
NO_OPS = frozenset(name for name, _, _ in _FLAGS) - ACTED_ON

# Flags whose value changes what tracing a function produces: part of every trace-cache key.
TRACE_FLAGS = ("jax_enable_x64", "jax_explicit_x64_dtypes", "jax_numpy_rank_promotion",
               "jax_numpy_dtype_promotion", "jax_default_matmul_precision",
               "jax_threefry_partitionable", "jax_random_seed_offset",
               "jax_use_shardy_partitioner", "jax_allow_f16_reductions")

_TRUTHY = {"1", "true", "yes", "on", "t", "y"}
_ENV_ALIASES = {"jax_log_compiles": "PYJAX_LOG_COMPILES"}  # pyjax's own spelling, also read


def _from_env(name, default, parse):
    """A flag's value from $NAME (upper-cased), as JAX reads it at import."""
    raw = os.environ.get(name.upper(), os.environ.get(_ENV_ALIASES.get(name, ""), None))
    if raw is None:
        return default
    if parse is BOOL:
        return raw.strip().lower() in _TRUTHY
    if parse in (INT, FLOAT):
        return (int if parse is INT else float)(raw)
    return parse(raw)


class _ThreadValues(threading.local):
    """Each thread's view of the flags. `values` is the class attribute (the global dict, shared)
    until the thread sets a flag for a block; it then holds its own copy with `overrides`."""
    values = None
    overrides = None


_UNSET = object()


class Config:
    """The flags. `update` sets one (checking the value), attributes read them; `_values` is
    the plain dict hot paths read: the global values, or the current thread's when it is inside
    a flag's context (`with jax.enable_x64():` is thread-local, as in JAX; read it per call,
    through `config._values` or `config._tls.values`, never keep it)."""

    def __init__(self):
        self._global = {}
        self._parsers = {}
        self._listeners = {}  # name -> [(global listener, local listener or None)]
        self._tls = _ThreadValues()
        _ThreadValues.values = self._global
        self._private = {}  # id(values) -> (values, overrides) of the threads inside a context
        self._lock = threading.Lock()

    @property
    def _values(self):
        return self._tls.values

    def define(self, name, default, parse=ANY):
        self._parsers[name] = parse
        self._global[name] = _from_env(name, default, parse)

    def update(self, name, value):
        """Set the global value (a thread inside a context for `name` keeps its own)."""
        parse = self._parsers.get(name)
        if parse is None:
            raise AttributeError(f"Unrecognized config option: {name}")
        value = parse(value)
        with self._lock:
            self._global[name] = value
            for values, overrides in self._private.values():
                if name not in overrides:
                    values[name] = value
        for fn, _ in self._listeners.get(name, ()):
            fn(value)

    def on_change(self, name, fn, local=None):
        """Call `fn(new_value)` whenever `name` is updated globally, and `local(value, own)`
        when the current thread sets it for a block (`own`: whether it still overrides the
        global value). Without `local`, a thread's change calls `fn` (process-wide)."""
        self._listeners.setdefault(name, []).append((fn, local))

    def _set_local(self, name, value):
        """Set `name` for the current thread only; returns what `_restore_local` needs."""
        tls = self._tls
        if tls.overrides is None:
            with self._lock:
                tls.values, tls.overrides = dict(self._global), {}
                self._private[id(tls.values)] = (tls.values, tls.overrides)
        prev = tls.overrides.get(name, _UNSET)
        tls.overrides[name] = tls.values[name] = value
        self._notify_local(name)
        return prev

    def _restore_local(self, name, prev):
        tls = self._tls
        with self._lock:
            if prev is _UNSET:
                del tls.overrides[name]
                tls.values[name] = self._global[name]
            else:
                tls.overrides[name] = tls.values[name] = prev
            if not tls.overrides:
                del self._private[id(tls.values)]
                del tls.values, tls.overrides  # back to the class attributes: the global dict
        self._notify_local(name)

    def _notify_local(self, name):
        tls = self._tls
        value = tls.values[name]
        own = tls.overrides is not None and name in tls.overrides
        for fn, local in self._listeners.get(name, ()):
            if local is not None:
                local(value, own)
            else:
                fn(value)

    def read(self, name):
        return self._tls.values[name]

    _read = read  # JAX's spelling

    @property
    def x64_enabled(self):
        """Whether 64-bit types are on (JAX's `jax.config.x64_enabled`)."""
        return self._tls.values["jax_enable_x64"]

    def __getattr__(self, name):
        try:
            return self.__dict__["_tls"].values[name]
        except KeyError:
            raise AttributeError(f"'Config' object has no attribute '{name}'") from None

    @property
    def values(self):
        """{flag name: value}, as `jax.config.values`."""
        return dict(self._tls.values)

    def parse_flags_with_absl(self):
        """JAX reads absl command-line flags here; pyjax has none (kept for JAX's test files)."""

    def config_with_absl(self):
        """As parse_flags_with_absl: nothing to do."""


config = Config()
for _name, _default, _parse in _FLAGS:
    config.define(_name, _default, _parse)
del _name, _default, _parse


def x64_enabled():
    return config._values["jax_enable_x64"]


# ---------------------------------------------------------------------------------------------
# Flags as context managers and decorators: `with jax.debug_nans(True):`, `@jax.enable_x64()`.

_NO_DEFAULT = object()


class State:
    """One flag as JAX exposes it at top level: calling it gives a context manager (also usable
    as a decorator) that sets the flag for a block; `.value` reads it.

    The setting is thread-local, as JAX's: other threads keep the global value.
    """

    def __init__(self, name):
        self.name = name
        self.__name__ = name[4:] if name.startswith("jax_") else name

    @property
    def value(self):
        return config._values[self.name]

    def __call__(self, new_val=_NO_DEFAULT):
        if new_val is _NO_DEFAULT:
            if config._parsers[self.name] is not BOOL:
                raise TypeError(f"Context manager for {self.__name__} config option requires "
                                f"an argument representing the new value for the config option.")
            new_val = True  # as JAX: a boolean flag's context manager turns it on
        return _StateContext(self.name, config._parsers[self.name](new_val))

    def __repr__(self):
        return f"<flag {self.name}={self.value!r}>"


class _StateContext:
    __slots__ = ("name", "new_val", "prev")

    def __init__(self, name, new_val):
        self.name, self.new_val = name, new_val

    def __enter__(self):
        self.prev = config._set_local(self.name, self.new_val)

    def __exit__(self, *exc):
        config._restore_local(self.name, self.prev)

    def __call__(self, fun):
        @functools.wraps(fun)
        def wrapper(*args, **kwargs):
            with _StateContext(self.name, self.new_val):
                return fun(*args, **kwargs)
        return wrapper


allow_f16_reductions = State("jax_allow_f16_reductions")
array_garbage_collection_guard = State("jax_array_garbage_collection_guard")
auto_pcast = State("jax_auto_pcast")
check_tracer_leaks = State("jax_check_tracer_leaks")
debug_infs = State("jax_debug_infs")
debug_key_reuse = State("jax_debug_key_reuse")
debug_nans = State("jax_debug_nans")
default_device = State("jax_default_device")
default_matmul_precision = State("jax_default_matmul_precision")
default_prng_impl = State("jax_default_prng_impl")
enable_checks = State("jax_enable_checks")
enable_custom_prng = State("jax_enable_custom_prng")
enable_x64 = State("jax_enable_x64")
explain_cache_misses = State("jax_explain_cache_misses")
jax2tf_associative_scan_reductions = State("jax2tf_associative_scan_reductions")
legacy_prng_key = State("jax_legacy_prng_key")
log_compiles = State("jax_log_compiles")
no_execution = State("jax_no_execution")
no_tracing = State("jax_no_tracing")
numpy_dtype_promotion = State("jax_numpy_dtype_promotion")
numpy_rank_promotion = State("jax_numpy_rank_promotion")
remove_size_one_mesh_axis_from_type = State("jax_remove_size_one_mesh_axis_from_type")
softmax_custom_jvp = State("jax_softmax_custom_jvp")
thread_guard = State("jax_thread_guard")
threefry_partitionable = State("jax_threefry_partitionable")
transfer_guard_device_to_device = State("jax_transfer_guard_device_to_device")
transfer_guard_device_to_host = State("jax_transfer_guard_device_to_host")
transfer_guard_host_to_device = State("jax_transfer_guard_host_to_device")


def checking_leaks():
    """`with jax.checking_leaks():` — jax_check_tracer_leaks for a block (a no-op flag here)."""
    return check_tracer_leaks(True)


def transfer_guard(new_val):
    """`with jax.transfer_guard("disallow"):` — all three transfer guards (jaxlib's guard_lib
    enforces them on its transfers: backend/xla.py)."""
    names = ("jax_transfer_guard_host_to_device", "jax_transfer_guard_device_to_device",
             "jax_transfer_guard_device_to_host")
    return _Several([_StateContext(n, _TRANSFER_GUARD(new_val)) for n in names])


class _Several:
    def __init__(self, contexts):
        self.contexts = contexts

    def __enter__(self):
        for c in self.contexts:
            c.__enter__()

    def __exit__(self, *exc):
        for c in reversed(self.contexts):
            c.__exit__(*exc)


class _DisableJit:
    def __init__(self, disable):
        self.disable = bool(disable)

    def __enter__(self):
        self.prev = config._values["jax_disable_jit"]
        config.update("jax_disable_jit", self.disable)

    def __exit__(self, *exc):
        config.update("jax_disable_jit", self.prev)


def disable_jit(disable: bool = True):
    """`with jax.disable_jit():` run jitted functions (and control flow) as plain Python."""
    return _DisableJit(disable)


# ---------------------------------------------------------------------------------------------
# JAX's module-level spelling (`from jax._src import config`, as JAX's own test files write it):
# `config.update(name, v)`, `config.<flag>.value`, `with config.<flag>(v):` for every flag, and
# `config.config_states[name]`.

update = config.update
read = _read = config.read


def parse_flags_with_absl():
    """JAX reads absl command-line flags here; pyjax's flags come from the environment and
    `config.update` only, so there is nothing to parse."""


class _ConfigStates(dict):
    """{flag name: its State}, made on first lookup for every defined flag."""

    def __missing__(self, name):
        if name not in config._parsers:
            raise KeyError(name)
        state = self[name] = State(name)
        return state


config_states = _ConfigStates()


def __getattr__(name):
    # `config.use_shardy_partitioner` & co.: the State of every flag not declared above.
    if "jax_" + name in config._parsers:
        return config_states["jax_" + name]
    if name in config._parsers:
        return config_states[name]
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
