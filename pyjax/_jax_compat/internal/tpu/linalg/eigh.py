"""`jax._src.tpu.linalg.eigh`: JAX's spectral divide-and-conquer eigh for TPUs. NB: pyjax
answers with lax.linalg.eigh (LAPACK on CPU): the same decomposition to rounding, eigenvectors
up to a phase each; `precision` and `termination_size`, which steer JAX's recursion, are
accepted. As JAX's, 16-bit floats are refused."""
from __future__ import annotations

import numpy as np

from pyjax._src import core
from pyjax._src.lax import linalg as lax_linalg


def eigh(H, *, precision="float32", termination_size=256, n=None, sort_eigenvalues=True,
         subset_by_index=None):
    """`(eigenvalues, eigenvectors)` of the Hermitian `H` (ascending unless sort_eigenvalues=False
    allows any order)."""
    del precision, termination_size, sort_eigenvalues
    dtype = core.get_aval(H).dtype
    if dtype in (np.dtype(np.float16), np.dtype("bfloat16")):
        raise NotImplementedError(f"Float types of {dtype.itemsize * 8} bits are not supported")
    if n is not None and n != core.get_aval(H).shape[-1]:
        raise NotImplementedError("tpu eigh: a padded input (n smaller than H's size) is not supported")
    v, w = lax_linalg.eigh(H, subset_by_index=subset_by_index)
    return w, v
