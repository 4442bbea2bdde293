"""The persistent (on-disk) compilation cache: files only, no jaxlib.

An entry is one file `<key>.pjx` in the cache directory:

    MAGIC (8 bytes) | sha256 digest of the key (32 bytes) | zlib-compressed payload

The payload is whatever the backend stores (a serialized XLA executable). Entries are written
atomically (a temp file in the same directory, then `os.replace`), so a reader sees either a
whole entry or none. A damaged entry (bad magic, wrong key, zlib error, I/O error) is deleted
and reported as a miss: a broken cache can cost a recompile, never a crash.

The directory is bounded by a size cap; when a write pushes it over, the least recently used
entries (by mtime, which a hit refreshes) are deleted until it fits again.

Writes happen off the compile's critical path: `BackgroundWriter` runs them (serialize, compress,
write) on one daemon thread, and waits for the ones still queued when the process exits. A process
killed mid-write leaves at most a temp file (removed by a later `entries()` once stale), never a
torn entry.
"""
import atexit
import collections
import functools
import logging
import os
import platform
import threading
import time
import zlib

logger = logging.getLogger("pyjax")

MAGIC = b"PYJAXC1\n"
SUFFIX = ".pjx"
DEFAULT_MAX_BYTES = 1 << 30  # 1 GiB
_STALE_TMP_SECONDS = 3600.0


def default_dir():
    """`$PYJAX_CACHE_DIR` ('' disables), else `pyjax/` under `$XDG_CACHE_HOME` or `~/.cache`."""
    env = os.environ.get("PYJAX_CACHE_DIR")
    if env is not None:
        return env or None
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return os.path.join(base, "pyjax")


def default_max_bytes():
    env = os.environ.get("PYJAX_CACHE_MAX_BYTES")
    if env:
        try:
            return int(float(env))
        except ValueError:
            logger.warning("pyjax: ignoring PYJAX_CACHE_MAX_BYTES=%r (not a number)", env)
    return DEFAULT_MAX_BYTES


def make_key(*parts):
    """sha256 hex digest of the parts (str or bytes), each length-prefixed so that the
    boundaries between parts cannot be confused."""
    import hashlib  # NB: imported here to keep `import pyjax` fast
    h = hashlib.sha256()
    for p in parts:
        b = p.encode() if isinstance(p, str) else bytes(p)
        h.update(len(b).to_bytes(8, "little"))
        h.update(b)
    return h.hexdigest()


class DiskCache:
    """A directory of compressed blobs keyed by hex digests (see the module docstring)."""

    def __init__(self, path, max_bytes=DEFAULT_MAX_BYTES):
        self.path = os.path.abspath(os.path.expanduser(path))
        self.max_bytes = int(max_bytes)
        self._write_warned = False

    def _file(self, key):
        return os.path.join(self.path, key + SUFFIX)

    def get(self, key):
        """The payload stored under `key`, or None (missing or damaged; damage is deleted)."""
        fname = self._file(key)
        try:
            with open(fname, "rb") as f:
                data = f.read()
        except FileNotFoundError:
            return None
        except OSError as e:
            logger.warning("pyjax: cannot read cache entry %s (%s); ignoring it", fname, e)
            return None
        head = MAGIC + bytes.fromhex(key)
        try:
            if not data.startswith(head):
                raise ValueError("bad header")
            payload = zlib.decompress(data[len(head):])
        except (ValueError, zlib.error) as e:
            logger.warning("pyjax: dropping corrupt cache entry %s (%s)", fname, e)
            self.delete(key)
            return None
        try:
            os.utime(fname)  # LRU: a hit makes the entry recent
        except OSError:
            pass
        return payload

    def put(self, key, payload, min_bytes=0):
        """Store `payload` under `key` atomically, unless its entry is smaller than `min_bytes` or
        larger than the cap (then False); I/O errors are logged once, never raised."""
        # level 1: a 1.1 MB executable compresses to 168 KB in 4 ms (level 6: 150 KB in 14 ms)
        blob = MAGIC + bytes.fromhex(key) + zlib.compress(payload, 1)
        if len(blob) > self.max_bytes or len(blob) < min_bytes:
            return False
        import tempfile  # NB: imported here to keep `import pyjax` fast
        tmp = None
        try:
            os.makedirs(self.path, exist_ok=True)
            fd, tmp = tempfile.mkstemp(prefix=".tmp-", suffix=SUFFIX, dir=self.path)
            with os.fdopen(fd, "wb") as f:
                f.write(blob)
            os.replace(tmp, self._file(key))
        except OSError as e:
            if tmp is not None:
                _unlink(tmp)
            if not self._write_warned:
                self._write_warned = True
                logger.warning("pyjax: cannot write to the compilation cache %s (%s)", self.path, e)
            return False
        self.evict()
        return True

    def delete(self, key):
        _unlink(self._file(key))

    def entries(self):
        """[(mtime, size, filename)] of the complete entries; removes stale temp files."""
        out = []
        try:
            names = os.listdir(self.path)
        except OSError:
            return out
        now = time.time()
        for name in names:
            if not name.endswith(SUFFIX):
                continue
            full = os.path.join(self.path, name)
            try:
                st = os.stat(full)
            except OSError:
                continue  # deleted by a concurrent process
            if name.startswith(".tmp-"):
                if now - st.st_mtime > _STALE_TMP_SECONDS:  # left behind by a killed writer
                    _unlink(full)
                continue
            out.append((st.st_mtime, st.st_size, full))
        return out

    def size(self):
        return sum(size for _, size, _ in self.entries())

    def evict(self, max_bytes=None):
        """Delete least-recently-used entries until the directory holds <= max_bytes."""
        limit = self.max_bytes if max_bytes is None else max_bytes
        entries = self.entries()
        total = sum(size for _, size, _ in entries)
        if total <= limit:
            return 0
        removed = 0
        for _, size, full in sorted(entries):
            if total <= limit:
                break
            _unlink(full)
            total -= size
            removed += 1
        return removed

    def clear(self):
        for _, _, full in self.entries():
            _unlink(full)


class BackgroundWriter:
    """Runs cache writes, in order, on one daemon thread started by the first `submit`.

    `submit(key, job)` queues `job()`; `wait(key)` returns once no write of `key` is queued (so a
    lookup of that key finds the entry); `flush()` waits for every queued write, and runs at exit.
    A job's exception is logged, never raised. A forked child starts with no writes queued."""

    def __init__(self):
        self._cond = threading.Condition()
        self._queue = collections.deque()  # (key, job), oldest first; the head is running
        self._pending = collections.Counter()  # key -> queued writes
        self._thread = None
        os.register_at_fork(after_in_child=self._forget)

    def submit(self, key, job):
        with self._cond:
            self._queue.append((key, job))
            self._pending[key] += 1
            if self._thread is None:
                self._thread = threading.Thread(target=self._run, name="pyjax-cache-writer",
                                                daemon=True)
                self._thread.start()
                atexit.register(self.flush)  # registered after the backend's exit hooks: runs first
            self._cond.notify_all()

    def _run(self):
        while True:
            with self._cond:
                while not self._queue:
                    self._cond.wait()
                key, job = self._queue[0]
            try:
                job()
            except Exception as e:  # noqa: BLE001 — a failed write costs a later recompile only
                logger.warning("pyjax: writing compilation cache entry %s failed (%s)", key, e)
            with self._cond:
                self._queue.popleft()
                self._pending[key] -= 1
                if not self._pending[key]:
                    del self._pending[key]
                self._cond.notify_all()

    def wait(self, key):
        with self._cond:
            while key in self._pending:
                self._cond.wait()

    def flush(self):
        with self._cond:
            while self._queue:
                self._cond.wait()

    def _forget(self):
        self._cond = threading.Condition()
        self._queue.clear()
        self._pending.clear()
        self._thread = None


def _unlink(path):
    try:
        os.unlink(path)
    except OSError:
        pass


@functools.cache
def host_fingerprint():
    """CPU executables are compiled for this host's instruction set: never load one built on a
    machine with different CPU features (a shared home directory, a container moved elsewhere)."""
    parts = [platform.machine()]
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith(("flags", "model name", "Features", "CPU part")):
                    parts.append(line.strip())
                elif not line.strip() and len(parts) > 1:
                    break  # the first processor is enough
    except OSError:
        parts.append(platform.processor())
    return "\n".join(parts)
