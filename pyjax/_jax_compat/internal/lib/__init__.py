"""`jax._src.lib`: what JAX's code reads of jaxlib. pyjax reaches jaxlib through its backend
only: the version numbers are jaxlib's; the GPU modules are None (no CUDA build here, as JAX on
a CPU-only install); other names raise when used."""
from pyjax._jax_compat._unsupported import module_getattr
from pyjax._jax_compat.internal.lib import xla_client as xla_client
from pyjax._jax_compat.lib import __version__ as version_str  # noqa: F401

version = tuple(int(p) for p in version_str.split(".")[:3])
jaxlib_extension_version = 467  # jaxlib 0.10.2's C++ extension API version
cuda_versions = None
gpu_solver = None
gpu_sparse = None
gpu_linalg = None
gpu_prng = None
gpu_rnn = None

__getattr__ = module_getattr("jax._src.lib")
