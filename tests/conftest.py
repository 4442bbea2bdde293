"""Shared pytest setup (several test files rely on it: keep additions small and documented).

- A persistent compilation cache for the test session. Eager execution compiles one XLA
  executable per (primitive, avals, params), tens of milliseconds each, and the op-table tests
  make a few thousand. The directory is chosen in the controller process before the xdist
  workers start, so they inherit it and share one cache; it lives outside the checkout
  (`~/.cache/pyjax-tests`, or `$XDG_CACHE_HOME/pyjax-tests`), so later runs on this machine,
  from any clone (CI's included), start warm, and it is separate from the user's own cache.
  `PYJAX_CACHE_DIR` set by the user or CI wins (set it to "" to test with the disk cache off).
- The `libraries` marker on every test under tests/libraries/ (the others that need a package
  outside the test extra carry it explicitly), so `-m 'libraries and not slow'` runs exactly the
  tests that skip with the test extra alone.
"""
import os

import pytest


@pytest.hookimpl(tryfirst=True)
def pytest_configure(config):
    if "PYJAX_CACHE_DIR" in os.environ:
        return
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    os.environ["PYJAX_CACHE_DIR"] = os.path.join(base, "pyjax-tests")


def pytest_collection_modifyitems(config, items):
    libraries = os.path.join(os.path.dirname(os.path.abspath(__file__)), "libraries") + os.sep
    for item in items:
        if str(item.path).startswith(libraries):
            item.add_marker(pytest.mark.libraries)
