"""`jax.profiler` without TensorBoard: a trace of pyjax's stages as Chrome/Perfetto trace events.

While a trace runs (`with profiler.trace(log_dir):`, or `start_trace` ... `stop_trace`), pyjax
records one complete event ("ph": "X") per stage it goes through, on the thread that ran it:

- `trace`   tracing a jitted function into a jaxpr (name: the function),
- `lower`   lowering a jaxpr to StableHLO (name: the module, `jit_f`),
- `compile` XLA compiling a module (args: where the executable came from: compiled, memory or
  disk cache),
- `execute` running an executable (name: the module, or the primitive run eagerly). Dispatch is
  asynchronous: the event spans the dispatch, not the device's work. While a trace runs, jitted
  calls take pyjax's Python path (C++'s fast path would not be seen),
- `annotation` the host's own spans: `TraceAnnotation`, `StepTraceAnnotation`,
  `annotate_function`.

`stop_trace` writes them as gzipped Chrome trace-event JSON (`{"traceEvents": [...]}`, times in
microseconds), which Perfetto (ui.perfetto.dev) and chrome://tracing open, to
`<log_dir>/plugins/profile/<YYYY_MM_DD_HH_MM_SS>/<host>.trace.json.gz` (the place TensorBoard's
profile plugin looks), and also `perfetto_trace.json.gz` beside it when
`create_perfetto_trace=True`. Nothing is recorded, and no stage pays anything but a None check,
when no trace runs.

`device_memory_profile()` is the client's heap profile (pprof's gzipped protobuf, as JAX).
The profiler server (`start_server`), subprocess registration and reading XLA's own xplane
profiles (`ProfileData`) need jaxlib's profiler service and TensorBoard tooling: they raise
NotImplementedError.
"""
from __future__ import annotations

import contextlib
import functools
import gzip
import json
import os
import socket
import threading
import time

from pyjax._src.backend import xla


class _Session:
    __slots__ = ("log_dir", "perfetto", "events", "t0", "lock")

    def __init__(self, log_dir, perfetto):
        self.log_dir = os.fspath(log_dir)
        self.perfetto = perfetto
        self.events = []
        self.t0 = time.perf_counter()
        self.lock = threading.Lock()


# The running session (None: not profiling). Stages read `session[0]` and do nothing more when
# it is None.
session = [None]
# Called with True/False when a trace starts/stops (jit routes calls through Python meanwhile).
on_change: list = []
_last_path = [None]


def record(cat: str, name: str, start: float, args=None, end=None):
    """Add a complete event of category `cat` that started at `start` (time.perf_counter())
    and ends at `end` (default: now). A no-op when no trace runs."""
    s = session[0]
    if s is None:
        return
    end = time.perf_counter() if end is None else end
    event = {"name": name, "cat": cat, "ph": "X", "ts": round((start - s.t0) * 1e6, 3),
             "dur": round((end - start) * 1e6, 3), "pid": os.getpid(),
             "tid": threading.get_ident()}
    if args:
        event["args"] = {k: _jsonable(v) for k, v in args.items()}
    with s.lock:
        s.events.append(event)


def _jsonable(v):
    return v if isinstance(v, (bool, int, float, str)) or v is None else str(v)


class ProfileOptions:
    """Options of a trace, with JAX's fields. pyjax's trace records its own stages; the
    levels of XLA's host/device/python tracers are accepted and have no effect."""

    def __init__(self):
        self.host_tracer_level = 2
        self.python_tracer_level = 1
        self.enable_hlo_proto = True
        self.include_dataset_ops = True
        self.start_timestamp_ns = 0
        self.duration_ms = 0
        self.repository_path = ""
        self.session_id = ""
        self.raise_error_on_start_failure = False
        self.advanced_configuration = {}


def start_trace(log_dir, create_perfetto_link: bool = False, create_perfetto_trace: bool = False,
                profiler_options: ProfileOptions | None = None) -> None:
    """Start recording pyjax's stages and host annotations; `stop_trace` writes them under
    `log_dir`.

    >>> import tempfile, pyjax
    >>> d = tempfile.mkdtemp()
    >>> pyjax.profiler.start_trace(d)
    >>> _ = pyjax.jit(lambda x: x + 1)(1.0)
    >>> pyjax.profiler.stop_trace()
    """
    del profiler_options
    if session[0] is not None:
        raise RuntimeError("Profile has already been started. Only one profile may be run at a "
                           "time.")
    if create_perfetto_link:
        raise NotImplementedError(
            "create_perfetto_link needs a browser link to a local trace server; open the "
            "written trace (use create_perfetto_trace=True) at https://ui.perfetto.dev instead.")
    session[0] = _Session(log_dir, create_perfetto_trace)
    for f in on_change:
        f(True)


def stop_trace() -> None:
    """Stop the running trace and write it (see the module docstring for where)."""
    s = session[0]
    if s is None:
        raise RuntimeError("No profile started")
    session[0] = None
    for f in on_change:
        f(False)
    stamp = time.strftime("%Y_%m_%d_%H_%M_%S", time.localtime())
    out_dir = os.path.join(s.log_dir, "plugins", "profile", stamp)
    os.makedirs(out_dir, exist_ok=True)
    data = json.dumps({"displayTimeUnit": "ms", "traceEvents": _metadata(s) + s.events,
                       "otherData": {"producer": "pyjax.profiler"}}).encode()
    path = os.path.join(out_dir, f"{socket.gethostname()}.trace.json.gz")
    with gzip.open(path, "wb") as f:
        f.write(data)
    if s.perfetto:
        with gzip.open(os.path.join(out_dir, "perfetto_trace.json.gz"), "wb") as f:
            f.write(data)
    _last_path[0] = path


def _metadata(s):
    pid = os.getpid()
    names = {t.ident: t.name for t in threading.enumerate()}
    tids = sorted({e["tid"] for e in s.events})
    meta = [{"name": "process_name", "ph": "M", "pid": pid, "args": {"name": "pyjax (host)"}}]
    meta += [{"name": "thread_name", "ph": "M", "pid": pid, "tid": t,
              "args": {"name": names.get(t, f"thread {t}")}} for t in tids]
    return meta


@contextlib.contextmanager
def trace(log_dir, create_perfetto_link=False, create_perfetto_trace=False,
          profiler_options: ProfileOptions | None = None):
    """`with trace(log_dir):` records the block (`start_trace` ... `stop_trace`).

    >>> import tempfile, pyjax
    >>> with pyjax.profiler.trace(tempfile.mkdtemp()):
    ...     _ = pyjax.numpy.ones(3).sum()
    """
    start_trace(log_dir, create_perfetto_link, create_perfetto_trace, profiler_options)
    try:
        yield
    finally:
        stop_trace()


class TraceAnnotation:
    """A named span on the host's timeline (with `kwargs` as its arguments) while a trace
    runs; nothing otherwise.

    >>> with TraceAnnotation("load batch", index=3):
    ...     pass
    """

    def __init__(self, name: str, **kwargs):
        self.name = name
        self.kwargs = kwargs
        self._start = None

    def __enter__(self):
        if session[0] is not None:
            self._start = time.perf_counter()
        return self

    def __exit__(self, *exc):
        if self._start is not None:
            record("annotation", self.name, self._start, self.kwargs)
            self._start = None
        return False


class StepTraceAnnotation(TraceAnnotation):
    """A training step's span: `StepTraceAnnotation("train", step_num=i)`."""

    def __init__(self, name: str, **kwargs):
        super().__init__(name, **kwargs)


def annotate_function(func, name: str | None = None, **decorator_kwargs):
    """`func` wrapped in a TraceAnnotation named `name` (default: its qualified name).

    >>> @annotate_function
    ... def step(x):
    ...     return x
    """
    label = name or getattr(func, "__qualname__", None) or getattr(func, "__name__", "function")

    @functools.wraps(func)
    def wrapper(*args, **kwargs):
        with TraceAnnotation(label, **decorator_kwargs):
            return func(*args, **kwargs)
    return wrapper


def device_memory_profile(backend: str | None = None) -> bytes:
    """The live device buffers as a pprof heap profile (gzipped protobuf bytes), from the
    client: `go tool pprof` or https://pprof.me read it."""
    return gzip.compress(xla.get_client(backend).heap_profile())


def save_device_memory_profile(filename, backend: str | None = None) -> None:
    """Write `device_memory_profile(backend)` to `filename`."""
    profile = device_memory_profile(backend)
    with open(filename, "wb") as f:
        f.write(profile)


def _needs_service(what):
    def raiser(*args, **kwargs):
        raise NotImplementedError(
            f"jax.profiler.{what} needs jaxlib's profiler service (a gRPC server TensorBoard "
            f"captures from), which pyjax does not run; record a trace with "
            f"pyjax.profiler.trace(log_dir) and open it in Perfetto instead.")
    raiser.__name__ = what
    return raiser


start_server = _needs_service("start_server")
stop_server = _needs_service("stop_server")
register_subprocess = _needs_service("register_subprocess")


class _XPlaneOnly:
    """Reading XLA's xplane profiles (TensorBoard's format): not available in pyjax."""

    def __init__(self, *args, **kwargs):
        raise NotImplementedError(
            f"jax.profiler.{type(self).__name__} reads XLA's xplane profiles, which pyjax's "
            f"profiler does not write (it writes Chrome trace-event JSON: see pyjax.profiler).")

    @classmethod
    def from_file(cls, *args, **kwargs):
        cls()

    @classmethod
    def from_serialized_xspace(cls, *args, **kwargs):
        cls()


class ProfileData(_XPlaneOnly):
    pass


class ProfilePlane(_XPlaneOnly):
    pass


class ProfileEvent(_XPlaneOnly):
    pass
