"""The CUDA PJRT plugin, loaded as jax_plugins.xla_cuda13.initialize() does, without jax
(shared/notes/xla-backend.md §7). Used by backend/xla.py, which passes in jaxlib's modules."""
import functools
import importlib
import importlib.util
import logging
import os
import pathlib

logger = logging.getLogger("pyjax")


_c_api = None


def plugin_installed():
    try:
        return (importlib.util.find_spec("jax_cuda13_plugin") is not None
                and importlib.util.find_spec("jax_plugins.xla_cuda13") is not None)
    except (ImportError, ValueError):
        return False


def _preload_nvidia_libs():
    """Load the pip-installed NVIDIA libraries first, so the plugin finds these copies."""
    import ctypes
    libs = ["libcudart.so.13", "libnvrtc.so.13", "libcublasLt.so.13", "libcublas.so.13",
            "libcupti.so.13", "libcusparse.so.12", "libcusolver.so.12", "libcufft.so.12"]
    for pkg, names in (("cu13", libs), ("nccl", ["libnccl.so.2"]),
                       ("nvshmem", ["libnvshmem_host.so.3"]), ("cudnn", ["libcudnn.so.9"])):
        try:
            mod = importlib.import_module(f"nvidia.{pkg}")
        except ImportError:
            continue
        for name in names:
            for base in mod.__path__:
                path = pathlib.Path(base) / "lib" / name
                if path.exists():
                    try:
                        ctypes.CDLL(str(path), mode=ctypes.RTLD_GLOBAL)
                    except OSError as e:
                        logger.debug("pyjax: could not preload %s: %s", path, e)
                    break


def make_client(xc, register_gpu_targets):
    """A PJRT client for the CUDA plugin. `xc` (jaxlib's xla_client) and
    `register_gpu_targets` (registers jaxlib's GPU custom calls) come from backend/xla.py, the
    only module that imports jaxlib."""
    global _c_api
    if not plugin_installed():
        # "Unknown backend" as JAX words it (programs match on it), then what would provide it
        raise RuntimeError("Unknown backend cuda: the CUDA backend needs the jax-cuda13-plugin "
                           "and jax-cuda13-pjrt packages")
    if _c_api is None:
        _preload_nvidia_libs()
        ext = importlib.import_module("jax_cuda13_plugin.cuda_plugin_extension")
        # find_spec locates the plugin package without running its __init__ (which imports jax).
        spec = importlib.util.find_spec("jax_plugins.xla_cuda13")
        lib = pathlib.Path(list(spec.submodule_search_locations)[0]) / "xla_cuda_plugin.so"
        c_api = xc.load_pjrt_plugin_dynamically("cuda", str(lib))
        xc.register_custom_type_handler(
            "CUDA", functools.partial(ext.register_custom_type, c_api))
        xc.register_custom_call_handler(
            "CUDA", functools.partial(ext.register_custom_call_target, c_api))
        for name, value in ext.ffi_types().items():
            xc.register_custom_type(name, value, platform="CUDA")
        for name, value in ext.ffi_handlers().items():
            xc.register_custom_call_target(name, value, platform="CUDA", api_version=1)
        register_gpu_targets()
        if not xc.pjrt_plugin_initialized("cuda"):
            xc.initialize_pjrt_plugin("cuda")
        _c_api = c_api
    return xc.make_c_api_client("cuda", xc.generate_pjrt_gpu_plugin_options(), None)


def data_dir():
    """Where XLA finds ptxas/libdevice: the pip `nvidia.cu13` package, or $CUDA_ROOT."""
    if os.environ.get("CUDA_ROOT"):
        return os.environ["CUDA_ROOT"]
    for pkg in ("nvidia.cu13", "nvidia.cuda_nvcc"):
        try:
            spec = importlib.util.find_spec(pkg)
        except (ImportError, ValueError):
            continue
        for base in (spec.submodule_search_locations or []) if spec else []:
            if (pathlib.Path(base) / "bin" / "ptxas").exists():
                return str(base)
    return None
