"""`jax._src.abstract_arrays`: the host array types JAX turns into arrays (NumPy arrays and the
scalar types of JAX's dtypes), also `jax.extend.core.array_types`; other names import and
raise when used."""
import numpy as np

from pyjax._jax_compat._unsupported import module_getattr
from pyjax._src import dtypes

array_types: set[type] = {np.ndarray, np.longlong, *(d.type for d in dtypes._jax_dtypes)}

__getattr__ = module_getattr("jax._src.abstract_arrays")
