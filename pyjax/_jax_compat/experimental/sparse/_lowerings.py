"""`jax.experimental.sparse._lowerings` (JAX's cuSPARSE lowerings: the dtypes they support; the
rest raise when used)."""
import numpy as np

from pyjax._jax_compat._unsupported import module_getattr

SUPPORTED_DATA_DTYPES = [np.float32, np.float64, np.complex64, np.complex128]
SUPPORTED_INDEX_DTYPES = [np.int32]

__getattr__ = module_getattr("jax.experimental.sparse._lowerings")
