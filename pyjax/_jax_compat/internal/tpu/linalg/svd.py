"""`jax._src.tpu.linalg.svd`: JAX's SVD for TPUs (QDWH-based). NB: pyjax answers with
lax.linalg.svd (LAPACK on CPU): the same decomposition to rounding, singular vectors up to a
phase each; `hermitian` and `max_iterations`, which steer JAX's iteration, are accepted."""
from __future__ import annotations

from pyjax._src.lax import linalg as lax_linalg


def svd(a, full_matrices: bool, compute_uv: bool = True, hermitian: bool = False,
        max_iterations: int = 10, subset_by_index=None):
    """`(u, s, vh)` of `a` (or `s` without compute_uv)."""
    del hermitian, max_iterations
    return lax_linalg.svd(a, full_matrices=full_matrices, compute_uv=compute_uv,
                          subset_by_index=subset_by_index)
