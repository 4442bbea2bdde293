"""The import guard. pyjax drives jaxlib internals that change between releases and attaches
its own methods to jaxlib's classes (as jax does): check the release and the entry points at
import, with a clear message, rather than fail later in C++; and never share a process with the
real jax, whose methods would overwrite pyjax's (and the reverse). Used by backend/xla.py, which
passes in jaxlib's modules (it is the only module that imports them)."""
import importlib.abc
import importlib.machinery
import sys


JAXLIB_VERSION = "0.10.2"
_ENTRY_POINTS = ("ArrayImpl", "PjitFunction", "PjitFunctionCache", "pjit", "batched_device_put",
                 "array_result_handler", "batched_copy_array_to_devices_with_sharding",
                 "batched_block_until_ready", "SingleDeviceSharding", "GSPMDSharding",
                 "DeviceList", "config.Config", "pytree.PyTreeRegistry",
                 "jax_jit.set_enable_x64_state", "jax_jit.set_disable_jit_state",
                 "jax_jit.set_post_hook_state")


def check_jaxlib(jaxlib, _jax):
    if jaxlib.__version__ != JAXLIB_VERSION:
        raise ImportError(f"pyjax needs jaxlib=={JAXLIB_VERSION} exactly (it drives jaxlib's "
                          f"internal C++ API), but jaxlib {jaxlib.__version__} is installed: "
                          f"pip install jaxlib=={JAXLIB_VERSION}")
    missing = []
    for path in _ENTRY_POINTS:
        obj = _jax
        for part in path.split("."):
            obj = getattr(obj, part, None)
        if obj is None:
            missing.append(path)
    if missing:
        raise ImportError(f"jaxlib {jaxlib.__version__} lacks the entry points pyjax uses: "
                          f"{', '.join(missing)} (a damaged or modified install?)")


def _is_real_jax(module) -> bool:
    return module is not None and getattr(module, "__name__", "").partition(".")[0] == "jax"


_JAX_CONFLICT = ("pyjax and the real jax cannot share a process: both attach their own methods "
                 "to jaxlib's classes (ArrayImpl, PjitFunction) and would break each other. Run "
                 "them in separate processes.")


class _RefuseRealJax(importlib.abc.MetaPathFinder):
    """Turns `import jax` (when the real jax is installed) into a clear ImportError. It sits
    just before the path finder, so an alias that maps `jax` to pyjax still wins."""

    def find_spec(self, name, path=None, target=None):
        if name != "jax" and not name.startswith("jax."):
            return None
        if name == "jax" and importlib.machinery.PathFinder.find_spec("jax") is None:
            return None  # not installed: the usual ModuleNotFoundError
        raise ImportError(f"import {name}: {_JAX_CONFLICT}", name=name)


def install(jaxlib, _jax):
    """Check jaxlib and refuse the real jax, now and at any later import."""
    check_jaxlib(jaxlib, _jax)
    if _is_real_jax(sys.modules.get("jax")):
        raise ImportError(f"jax is already imported: {_JAX_CONFLICT}")
    if not any(isinstance(f, _RefuseRealJax) for f in sys.meta_path):
        path_finder = importlib.machinery.PathFinder  # in meta_path as the class itself
        at = next((i for i, f in enumerate(sys.meta_path) if f is path_finder), len(sys.meta_path))
        sys.meta_path.insert(at, _RefuseRealJax())

