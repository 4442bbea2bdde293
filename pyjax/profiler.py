"""`jax.profiler`: traces of pyjax's stages (trace, lower, compile, execute) and host
annotations as Chrome/Perfetto trace-event JSON, and device memory profiles. See
`pyjax/_src/profiler.py` for where the files go and what is not available."""
from pyjax._src.profiler import (  # noqa: F401
    ProfileData as ProfileData,
    ProfileEvent as ProfileEvent,
    ProfileOptions as ProfileOptions,
    ProfilePlane as ProfilePlane,
    StepTraceAnnotation as StepTraceAnnotation,
    TraceAnnotation as TraceAnnotation,
    annotate_function as annotate_function,
    device_memory_profile as device_memory_profile,
    register_subprocess as register_subprocess,
    save_device_memory_profile as save_device_memory_profile,
    start_server as start_server,
    start_trace as start_trace,
    stop_server as stop_server,
    stop_trace as stop_trace,
    trace as trace,
)
