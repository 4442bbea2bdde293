"""`sparse.linalg.spsolve`: solve A x = b for a square CSR matrix A.

As JAX on CPU, the factorization is SciPy's (`scipy.sparse.linalg.spsolve`, called from the
compiled program through `pure_callback`); derivatives are implicit, through
`lax.custom_linear_solve` with the CSR matrix-vector product as the operator (the transposed
solve is a second SciPy call), so grad works with respect to both `data` and `b`.

NB: JAX's spsolve has no batching rule; here vmap runs the SciPy solve once per batch element.
`lobpcg_standard` is not provided.
"""
from __future__ import annotations

import numpy as np

import pyjax.numpy as jnp
from pyjax._src.callback import pure_callback
from pyjax._src.lax.control_flow.solves import custom_linear_solve
from pyjax._src.sparse.coo_csr import _csr_matvec_impl
from pyjax._src.sparse.util import sparse_primitive


def _scipy_solve(data, indices, indptr, b, transpose):
    import scipy.sparse
    import scipy.sparse.linalg
    a = scipy.sparse.csr_matrix((np.asarray(data), np.asarray(indices), np.asarray(indptr)),
                                shape=(b.size, b.size))
    if transpose:
        a = a.T.tocsr()
    return np.asarray(scipy.sparse.linalg.spsolve(a, np.asarray(b))).astype(b.dtype)


def _spsolve_impl(data, indices, indptr, b, *, tol, reorder):
    del tol, reorder   # SciPy's SuperLU chooses its own ordering
    n = b.shape[0]
    out = jnp.zeros(b.shape, b.dtype)   # a ShapeDtypeStruct-like template

    def solve_with(transpose):
        def solve(_, rhs):
            return pure_callback(lambda d, i, p, r: _scipy_solve(d, i, p, r, transpose), out,
                                 data, indices, indptr, rhs, vmap_method="sequential")
        return solve

    matvec = lambda x: _csr_matvec_impl(data, indices, indptr, x, shape=(n, n),   # noqa: E731
                                        transpose=False)
    return custom_linear_solve(matvec, b, solve_with(False), solve_with(True))


spsolve_p = sparse_primitive("spsolve", _spsolve_impl, linear_argnums=(3,))


def spsolve(data, indices, indptr, b, tol=1e-6, reorder=1):
    """Solve A x = b with A the square CSR matrix (data, indices, indptr).

        >>> m = sparse.CSR.fromdense(a)
        >>> sparse.linalg.spsolve(m.data, m.indices, m.indptr, b)   # == jnp.linalg.solve(a, b)
    """
    b = jnp.asarray(b)
    if b.ndim != 1:
        raise ValueError(f"spsolve: b must be a vector, got shape {b.shape}")
    if np.shape(indptr) != (b.shape[0] + 1,):
        raise ValueError(f"spsolve: indptr of shape {np.shape(indptr)} does not describe a "
                         f"square matrix of size {b.shape[0]}")
    return spsolve_p.bind(jnp.asarray(data), jnp.asarray(indices), jnp.asarray(indptr), b,
                          tol=float(tol), reorder=int(reorder))
