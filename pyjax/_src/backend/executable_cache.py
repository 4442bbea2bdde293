"""The executable caches and their policy: XLA executables kept in memory per (platform, module
text, compile options), and in the persistent cache on disk (backend/cache.py stores the files).

backend/xla.py compiles; this module decides where an executable comes from (memory, disk, or a
real compile that the caller passes in as a function) and what gets written back, and counts
what happened (`cache_stats()`). No jaxlib here: executables and clients are the objects xla.py
hands in (`client.deserialize_executable`, `exe.serialize()`).
"""
import functools
import logging
import os
import re
import threading
import time

from pyjax._src.backend import cache as _cache
from pyjax._src.config import _FLAGS, config

logger = logging.getLogger("pyjax")


_executables = {}  # (platform, module text, serialized CompileOptions) -> LoadedExecutable
_stats = {}
_STAT_NAMES = ("compiles", "memory_hits", "disk_hits", "disk_misses", "disk_writes", "disk_errors")
_disk = None  # DiskCache, or None when disabled
_disk_resolved = False  # _disk is only valid once this is True
_CACHE_FORMAT = "pyjax-exe-1"
_writer = _cache.BackgroundWriter()  # entries are written off the compile's critical path

# JAX's write thresholds (an executable compiled in less time, or whose entry is smaller, is not
# written). NB: by default pyjax writes every executable (JAX: those compiled in >= 1 s), since
# the write costs the compile nothing and a second process then starts warm; a value set in the
# environment, or set through jax.config.update to anything but JAX's default, applies as in
# JAX (setting JAX's default back restores pyjax's: code that sets a flag and restores it
# leaves no trace).
_MIN_TIME, _MIN_SIZE = ("jax_persistent_cache_min_compile_time_secs",
                        "jax_persistent_cache_min_entry_size_bytes")
_thresholds_set = {name for name in (_MIN_TIME, _MIN_SIZE) if name.upper() in os.environ}
_JAX_DEFAULTS = {name: default for name, default, _ in _FLAGS if name in (_MIN_TIME, _MIN_SIZE)}


def _threshold_updated(name, value):
    if value != _JAX_DEFAULTS[name]:
        _thresholds_set.add(name)
    elif name.upper() not in os.environ:
        _thresholds_set.discard(name)


config.on_change(_MIN_TIME, functools.partial(_threshold_updated, _MIN_TIME))
config.on_change(_MIN_SIZE, functools.partial(_threshold_updated, _MIN_SIZE))


def _threshold(name):
    return config.read(name) if name in _thresholds_set else 0


def cache_stats():
    """Counters: compiles (real XLA compiles), memory_hits, disk_hits, disk_misses,
    disk_writes, disk_errors (damaged entries dropped). Waits for the queued cache writes."""
    _writer.flush()
    return dict(_stats)


def wait_for_cache_writes():
    """Return once the persistent-cache entries of every compile so far are on disk (they are
    written in the background; a finishing process waits for them too)."""
    _writer.flush()


def count(name):
    """One more `name` event (one of _STAT_NAMES) in `cache_stats()`."""
    _stats[name] += 1


def _reset_stats():
    for name in _STAT_NAMES:
        _stats[name] = 0


_reset_stats()


def _disk_cache():
    global _disk, _disk_resolved
    if not _disk_resolved:
        path = _cache.default_dir()
        _disk = _cache.DiskCache(path, _cache.default_max_bytes()) if path else None
        _disk_resolved = True
    return _disk


def set_cache_dir(path, max_bytes=None):
    """Use `path` for the persistent compilation cache (None or "" disables it)."""
    global _disk, _disk_resolved
    max_bytes = _cache.default_max_bytes() if max_bytes is None else max_bytes
    _disk = _cache.DiskCache(path, max_bytes) if path else None
    _disk_resolved = True


def _cache_dir_from_config(path):
    """jax_compilation_cache_dir: a path moves the persistent cache there; None goes back to
    pyjax's default ($PYJAX_CACHE_DIR or the user cache directory).

    NB: in JAX, None means no persistent cache; pyjax keeps one by default."""
    global _disk_resolved
    if path:
        set_cache_dir(str(path))
    else:
        _disk_resolved = False


config.on_change("jax_compilation_cache_dir", _cache_dir_from_config)


def cache_dir():
    """The persistent compilation cache directory, or None if the disk cache is disabled."""
    disk = _disk_cache()
    return disk.path if disk is not None else None


def clear_caches():
    """Drop the in-memory executable cache (the disk cache stays)."""
    _executables.clear()


def reset_for_tests():
    """Forget the in-memory cache, the counters and the cache directory (re-read from the
    environment, e.g. a new $PYJAX_CACHE_DIR, at the next compile)."""
    global _disk, _disk_resolved
    _writer.flush()
    clear_caches()
    _reset_stats()
    _disk, _disk_resolved = None, False


_inflight_lock = threading.Lock()
_inflight = {}  # memory key -> Lock held while that module compiles


def compile_once(mkey, load_or_compile):
    """The executable of memory key `mkey`, from memory or else `load_or_compile()` (which returns
    (executable, source)), remembered; threads asking for the same module while it compiles (XLA
    releases the GIL) wait for that compile instead of repeating it."""
    with _inflight_lock:
        lock = _inflight.setdefault(mkey, threading.Lock())
    try:
        with lock:
            exe = _executables.get(mkey)
            if exe is not None:
                _stats["memory_hits"] += 1
                return exe, "memory"
            exe, source = load_or_compile()
            _executables[mkey] = exe
            return exe, source
    finally:
        with _inflight_lock:
            _inflight.pop(mkey, None)



def load_or_compile(client, text, device_list, opts, opts_bytes, devices, xla_compile,
                    jaxlib_version):
    """The executable from the persistent cache, else `xla_compile(client, text, device_list,
    opts)` with its entry queued for writing; returns (executable, "disk" | "compiled")."""
    disk = _disk_cache()
    key = None
    t0 = time.perf_counter()
    if disk is not None:
        key = _cache.make_key(_CACHE_FORMAT, text, opts_bytes, client.platform,
                              client.platform_version, jaxlib_version,
                              os.environ.get("XLA_FLAGS", ""), devices[0].device_kind,
                              _cache.host_fingerprint() if client.platform == "cpu" else "")
        _writer.wait(key)  # this very entry still being written: let it land
        blob = disk.get(key)
        if blob is not None:
            try:
                exe = client.deserialize_executable(blob, device_list, opts)
            except Exception as e:  # noqa: BLE001 — a bad entry costs a recompile, never a crash
                logger.warning("pyjax: dropping unloadable cache entry %s (%s)", key, e)
                disk.delete(key)
                _stats["disk_errors"] += 1
            else:
                _stats["disk_hits"] += 1
                log_compile(text, devices, time.perf_counter() - t0, "persistent cache hit")
                return exe, "disk"
        else:
            _stats["disk_misses"] += 1
    t_xla = time.perf_counter()
    exe = xla_compile(client, text, device_list, opts)
    how = "persistent cache disabled"
    if disk is not None:
        how = "persistent cache miss"
        if time.perf_counter() - t_xla >= _threshold(_MIN_TIME):
            _writer.submit(key, functools.partial(_write_entry, disk, key, exe,
                                                  _threshold(_MIN_SIZE)))
    log_compile(text, devices, time.perf_counter() - t0, how)
    return exe, "compiled"


def _write_entry(disk, key, exe, min_bytes):
    """Serialize `exe` into the disk cache (on the writer thread)."""
    try:
        payload = exe.serialize()
    except Exception as e:  # noqa: BLE001 — some executables can't be serialized
        logger.debug("pyjax: not caching an executable that can't be serialized: %s", e)
        return
    if disk.put(key, payload, min_bytes):
        _stats["disk_writes"] += 1



_MODULE_NAME_RE = re.compile(r"^\s*module\s+@([\w$.\-]+)", re.MULTILINE)


def module_name(text):
    m = _MODULE_NAME_RE.search(text, 0, 4096)
    return "@" + m.group(1) if m else "<unnamed>"


def log_compile(text, devices, seconds, how):
    if config.read("jax_log_compiles"):
        logger.warning("pyjax: compiled %s for %s in %.1f ms (%s)", module_name(text),
                       device_summary(devices), seconds * 1e3, how)


def device_summary(devices):
    return str(devices[0]) if len(devices) == 1 else f"{len(devices)} {devices[0].platform} devices"
