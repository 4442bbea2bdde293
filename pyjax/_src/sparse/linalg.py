"""`sparse.linalg`: `spsolve` (solve A x = b for a square CSR matrix A) and `lobpcg_standard`
(the top-k eigenpairs of a Hermitian operator by LOBPCG).

As JAX on CPU, the factorization is SciPy's (`scipy.sparse.linalg.spsolve`, called from the
compiled program through `pure_callback`); derivatives are implicit, through
`lax.custom_linear_solve` with the CSR matrix-vector product as the operator (the transposed
solve is a second SciPy call), so grad works with respect to both `data` and `b`.

NB: JAX's spsolve has no batching rule; here vmap runs the SciPy solve once per batch element.

`lobpcg_standard` keeps an orthonormal basis [X, R, P] (the current vectors, their residuals and
the previous search directions), orthonormalized by SVQB (an eigendecomposition of the Gram
matrix, directions with a negligible norm dropped) and a Rayleigh-Ritz step on it, with JAX's
stopping rule. NB: its iterates are not JAX's (JAX orthonormalizes the blocks separately), its
results are the same eigenpairs.
"""
from __future__ import annotations

import numpy as np

from pyjax._src import dtypes
from pyjax._src.callback import pure_callback
from pyjax._src.lax.control_flow.while_loop import while_loop
from pyjax._src.lax.control_flow.solves import custom_linear_solve
from pyjax._src.numpy import array_methods  # noqa: F401  (Array operators)
from pyjax._src.numpy import arrays as jarrays
from pyjax._src.numpy import creation, lax_numpy, linalg_ops, reductions, ufuncs
from pyjax._src.numpy import linalg as jnp_linalg
from pyjax._src.numpy import shape as jshape
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
    out = creation.zeros(b.shape, b.dtype)   # a ShapeDtypeStruct-like template

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
    b = creation.asarray(b)
    if b.ndim != 1:
        raise ValueError(f"spsolve: b must be a vector, got shape {b.shape}")
    if np.shape(indptr) != (b.shape[0] + 1,):
        raise ValueError(f"spsolve: indptr of shape {np.shape(indptr)} does not describe a "
                         f"square matrix of size {b.shape[0]}")
    return spsolve_p.bind(creation.asarray(data), creation.asarray(indices), creation.asarray(indptr), b,
                          tol=float(tol), reorder=int(reorder))


# -- lobpcg_standard --------------------------------------------------------------------------------

def _mm(a, b):
    return linalg_ops.matmul(a, b, precision="highest")


def _svqb(S, eps):
    """An orthonormal basis of S's columns (n, p) with the same shape: columns along directions
    of negligible norm come out zero (and are flagged in the returned mask)."""
    norms = jnp_linalg.norm(S, axis=0)
    S = S / lax_numpy.where(norms > 0, norms, 1)[None, :]
    w, V = jnp_linalg.eigh(_mm(S.T.conj(), S))
    keep = w > eps * S.shape[1] * reductions.max(w)
    scale = lax_numpy.where(keep, 1 / ufuncs.sqrt(lax_numpy.where(keep, w, 1)), 0)
    return _mm(S, V * scale[None, :]), keep


def _rayleigh_ritz(A, S, keep, k):
    """The top-k Ritz pairs of A on span(S) (dropped columns pushed below every eigenvalue)."""
    AS = A(S)
    H = _mm(S.T.conj(), AS)
    H = (H + H.T.conj()) / 2
    penalty = (ufuncs.abs(H).sum() + 1) * 4
    H = H - jarrays.diag(lax_numpy.where(keep, 0, penalty).astype(H.dtype))
    w, C = jnp_linalg.eigh(H)
    return w[::-1][:k], C[:, ::-1][:, :k]


def lobpcg_standard(A, X, m=100, tol=None):
    """The k largest eigenvalues and eigenvectors of a Hermitian (n, n) matrix or linear map A,
    from initial directions X (n, k) with 0 < 5 k < n: `(theta, U, iterations)`. An eigenpair
    has converged when |A u - theta u| < tol * 10 * n * (theta + |A u|) (tol defaults to the
    dtype's epsilon); the loop stops when all k have, or after m iterations.

        >>> theta, U, i = sparse.linalg.lobpcg_standard(a, x0)
    """
    X = creation.asarray(X)
    if X.ndim != 2:
        raise ValueError(f"lobpcg_standard: X must be an (n, k) array, got shape {X.shape}")
    n, k = X.shape
    if k == 0:
        raise ValueError(f"must have search dim > 0, got {k}")
    if k * 5 >= n:
        raise ValueError(f"expected search dim * 5 < matrix dim (got {k * 5}, {n})")
    matvec = A if callable(A) else (lambda V, A=creation.asarray(A): _mm(A, V))
    test = matvec(creation.zeros((n, 1), X.dtype))
    if test.dtype != X.dtype:
        raise ValueError(f"A, X must have same dtypes (were {test.dtype}, {X.dtype})")
    if test.shape != (n, 1):
        raise ValueError(f"A must be ({n}, {n}) matrix A, got output {test.shape}")
    eps = float(dtypes.finfo(X.dtype).eps)
    tol = eps if tol is None else tol

    S, keep = _svqb(X, eps)
    theta, C = _rayleigh_ritz(matvec, S, keep, k)
    X = _mm(S, C)
    P = creation.zeros_like(X)

    def residual(X, theta):
        AX = matvec(X)
        R = AX - X * theta[None, :]
        rnorm = jnp_linalg.norm(R, axis=0)
        bound = tol * 10 * n * (ufuncs.abs(theta) + jnp_linalg.norm(AX, axis=0))
        return R, reductions.all(rnorm < bound)

    def cond(state):
        _, _, _, done, i = state
        return ufuncs.logical_and(i < m, ufuncs.logical_not(done))

    def step(state):
        X, P, theta, _, i = state
        R, _ = residual(X, theta)
        S, keep = _svqb(jshape.concatenate([X, R, P], axis=1), eps)
        S, keep2 = _svqb(S, eps)        # twice, for orthogonality in low precision
        keep = keep & keep2
        theta, C = _rayleigh_ritz(matvec, S, keep, k)
        X_new = _mm(S, C)
        # the new search directions: the part of X_new outside span(X)
        P = X_new - _mm(X, _mm(X.T.conj(), X_new))
        _, done = residual(X_new, theta)
        return X_new, P, theta, done, i + 1

    _, done0 = residual(X, theta)
    X, _, theta, _, i = while_loop(cond, step, (X, P, theta, done0, 0))
    return theta, X, i
