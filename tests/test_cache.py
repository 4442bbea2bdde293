"""The persistent compilation cache, end to end through `pyjax.jit`, across processes.

Each run is a fresh Python process with its own `PYJAX_CACHE_DIR` (a pytest tmp dir); it prints
its result and `xla.cache_stats()` as JSON. (tests/test_backend.py covers the cache at the
backend level.)
"""
import json
import os
import subprocess
import sys
import zlib

import pytest

from pyjax._src.backend import cache as disk_cache

PROGRAM = """
import json, sys
import pyjax as jax
import pyjax.numpy as jnp
from pyjax._src.backend import xla

@jax.jit
def step(params, x):
    h = jnp.tanh(x @ params["w"] + params["b"])
    return jnp.sum(h * h), h.mean(axis=0)

params = {"w": jnp.ones((3, 4)) * 0.5, "b": jnp.zeros(4)}
loss, m = step(params, jnp.arange(6.0).reshape(2, 3))
print(json.dumps({"loss": float(loss), "mean": m.tolist(), "stats": xla.cache_stats(),
                  "dir": xla.cache_dir()}))
"""


def run(env_updates, log_compiles=False):
    env = {k: v for k, v in os.environ.items() if k not in ("PYJAX_CACHE_DIR", "PYJAX_LOG_COMPILES")}
    env.update(env_updates)
    if log_compiles:
        env["PYJAX_LOG_COMPILES"] = "1"
    r = subprocess.run([sys.executable, "-c", PROGRAM], env=env, capture_output=True, text=True,
                       timeout=120)
    assert r.returncode == 0, r.stdout + r.stderr
    out = json.loads(r.stdout.strip().splitlines()[-1])
    out["stderr"] = r.stderr
    return out


def entries(path):
    return sorted(p for p in path.iterdir() if p.suffix == disk_cache.SUFFIX and not p.name.startswith(".tmp-"))


@pytest.fixture
def cache(tmp_path):
    return tmp_path / "cache"


def same_values(a, b):
    assert a["loss"] == pytest.approx(b["loss"]) and a["mean"] == pytest.approx(b["mean"])


def test_second_process_hits_the_disk_cache(cache):
    first = run({"PYJAX_CACHE_DIR": str(cache)}, log_compiles=True)
    assert first["dir"] == str(cache)
    assert first["stats"]["compiles"] >= 1 and first["stats"]["disk_hits"] == 0
    assert first["stats"]["disk_writes"] == first["stats"]["compiles"]
    assert "persistent cache miss" in first["stderr"]
    assert len(entries(cache)) == first["stats"]["disk_writes"]

    second = run({"PYJAX_CACHE_DIR": str(cache)}, log_compiles=True)
    assert second["stats"]["compiles"] == 0, second
    assert second["stats"]["disk_hits"] == first["stats"]["compiles"]
    assert "persistent cache hit" in second["stderr"]
    assert "@jit_step" in second["stderr"]  # the log names the jitted function
    same_values(first, second)


def _truncate(path):
    path.write_bytes(path.read_bytes()[:20])


def _garbage(path):
    path.write_bytes(b"not a cache entry at all")


def _unloadable(path):
    """A well-formed entry (magic, key, zlib) whose payload is not an executable."""
    key = path.name[:-len(disk_cache.SUFFIX)]
    path.write_bytes(disk_cache.MAGIC + bytes.fromhex(key) + zlib.compress(b"\0" * 64))


@pytest.mark.parametrize("damage", [_truncate, _garbage, _unloadable])
def test_a_corrupt_entry_is_recompiled_not_fatal(cache, damage):
    first = run({"PYJAX_CACHE_DIR": str(cache)})
    files = entries(cache)
    assert files
    for f in files:
        damage(f)

    second = run({"PYJAX_CACHE_DIR": str(cache)})
    same_values(first, second)
    assert second["stats"]["compiles"] == first["stats"]["compiles"]  # all rebuilt
    assert second["stats"]["disk_hits"] == 0
    assert "corrupt" in second["stderr"] or "unloadable" in second["stderr"]
    if damage is _unloadable:
        assert second["stats"]["disk_errors"] == len(files)

    third = run({"PYJAX_CACHE_DIR": str(cache)})  # the rebuilt entries were written back
    assert third["stats"]["compiles"] == 0 and third["stats"]["disk_hits"] == first["stats"]["compiles"]
    same_values(first, third)


def test_empty_cache_dir_disables_the_disk_cache(tmp_path):
    home = tmp_path / "home"
    home.mkdir()
    env = {"PYJAX_CACHE_DIR": "", "HOME": str(home), "XDG_CACHE_HOME": str(home / ".cache")}
    first = run(env, log_compiles=True)
    second = run(env, log_compiles=True)
    assert first["dir"] is None and second["dir"] is None
    for out in (first, second):
        s = out["stats"]
        assert s["compiles"] >= 1 and s["disk_hits"] == s["disk_writes"] == s["disk_misses"] == 0
        assert "persistent cache disabled" in out["stderr"]
    assert list(home.rglob("*")) == []  # nothing written under the user's cache dir


def test_the_disk_cache_is_on_by_default(tmp_path):
    env = {"XDG_CACHE_HOME": str(tmp_path / "xdg")}
    first = run(env)
    assert "compiled @" not in first["stderr"]  # the compile log is off by default
    assert first["dir"] == str(tmp_path / "xdg" / "pyjax")
    assert len(entries(tmp_path / "xdg" / "pyjax")) == first["stats"]["disk_writes"] >= 1
    assert run(env)["stats"]["compiles"] == 0


# -- writes off the critical path, and JAX's write thresholds (issue 25) -------------------------

def test_entries_are_written_by_the_background_writer_and_flushed_at_exit(cache):
    code = PROGRAM.replace("print(json.dumps(", "import threading\nwriters = [t.name for t in "
                           "threading.enumerate()]\nprint(json.dumps({'writers': writers}))\n"
                           "print(json.dumps(", 1).replace('"stats": xla.cache_stats(),', "")
    env = {k: v for k, v in os.environ.items() if k != "PYJAX_CACHE_DIR"}
    env["PYJAX_CACHE_DIR"] = str(cache)
    r = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True,
                       timeout=120)
    assert r.returncode == 0, r.stderr
    assert "pyjax-cache-writer" in json.loads(r.stdout.splitlines()[0])["writers"]
    # the process printed without waiting for its writes; the exit hook wrote them all
    assert entries(cache) and run({"PYJAX_CACHE_DIR": str(cache)})["stats"]["compiles"] == 0


def test_a_write_interrupted_before_its_rename_leaves_no_entry(tmp_path, monkeypatch):
    disk = disk_cache.DiskCache(tmp_path)
    key = disk_cache.make_key("k")

    def killed(src, dst):
        raise OSError("killed between write and rename")
    monkeypatch.setattr(disk_cache.os, "replace", killed)
    assert disk.put(key, b"payload" * 100) is False
    assert disk.get(key) is None and entries(tmp_path) == []


def test_min_entry_size_and_compile_time_thresholds_apply_when_set(cache):
    big = {"PYJAX_CACHE_DIR": str(cache), "JAX_PERSISTENT_CACHE_MIN_ENTRY_SIZE_BYTES": "1000000000"}
    out = run(big)
    assert out["stats"]["compiles"] >= 1 and out["stats"]["disk_writes"] == 0
    assert not cache.exists() or not entries(cache)
    slow = {"PYJAX_CACHE_DIR": str(cache), "JAX_PERSISTENT_CACHE_MIN_COMPILE_TIME_SECS": "1000"}
    assert run(slow)["stats"]["disk_writes"] == 0
    assert not cache.exists() or not entries(cache)
    # -1 lifts the size restriction, as in JAX; the defaults (unset) write every executable
    lifted = run({"PYJAX_CACHE_DIR": str(cache), "JAX_PERSISTENT_CACHE_MIN_ENTRY_SIZE_BYTES": "-1"})
    assert lifted["stats"]["disk_writes"] == lifted["stats"]["compiles"] == len(entries(cache))


def test_thresholds_set_through_config_update(tmp_path, monkeypatch):
    from pyjax._src.backend import executable_cache as exe_cache
    from pyjax._src.config import config

    monkeypatch.setenv("PYJAX_CACHE_DIR", str(tmp_path))
    exe_cache.reset_for_tests()
    old = config.jax_persistent_cache_min_compile_time_secs
    try:
        assert exe_cache._threshold(exe_cache._MIN_TIME) == 0  # pyjax's default: write every executable
        config.update("jax_persistent_cache_min_compile_time_secs", 1000.0)
        assert exe_cache._threshold(exe_cache._MIN_TIME) == 1000.0
    finally:
        config.update("jax_persistent_cache_min_compile_time_secs", old)
        exe_cache._thresholds_set.discard(exe_cache._MIN_TIME)
        exe_cache.reset_for_tests()
