"""Shared pytest setup (several test files rely on it: keep additions small and documented).

- A persistent compilation cache for the test session. Eager execution compiles one XLA
  executable per (primitive, avals, params), tens of milliseconds each; the op-table tests make
  hundreds. The controller process picks the directory before the xdist workers start, so they
  inherit it and share one cache; a second run starts warm. `PYJAX_CACHE_DIR` set by the user or
  CI wins (set it to "" to test with the disk cache off).
"""
import os
import tempfile

import pytest


@pytest.hookimpl(trylast=True)  # after the cacheprovider plugin has set `config.cache`
def pytest_configure(config):
    if "PYJAX_CACHE_DIR" in os.environ:
        return
    cache = getattr(config, "cache", None)
    if cache is not None:
        path = str(cache.mkdir("pyjax-compile-cache"))
    else:  # -p no:cacheprovider
        path = tempfile.mkdtemp(prefix="pyjax-test-cache-")
    os.environ["PYJAX_CACHE_DIR"] = path
