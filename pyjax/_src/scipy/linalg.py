"""`jax.scipy.linalg`: SciPy's linear algebra on lax.linalg and jnp.linalg.

The decompositions take SciPy's arguments (`lower`, `mode`, `trans`, ...); `overwrite_*` and
`check_finite` are accepted and ignored, as in JAX. `expm` is the scaling-and-squaring Padé
method (Higham 2005) with the degree chosen by the 1-norm, as JAX and SciPy do; `expm_frechet`
is its JVP. The special matrices (toeplitz, hilbert, ...) are built from index arithmetic.
"""
from __future__ import annotations

import math
import operator
import warnings
from functools import partial

import numpy as np

from pyjax._src import core, dtypes
from pyjax._src.ad_api import jvp
from pyjax._src.api_vmap import vmap
from pyjax._src.lax import linalg as lax_linalg
from pyjax._src.lax import linalg_structured as lax_structured
from pyjax._src.lax.control_flow.conditionals import switch
from pyjax._src.lax.control_flow.scan import fori_loop
from pyjax._src.lax.dot_general import Precision
from pyjax._src.numpy import array_methods  # noqa: F401  (Array operators)
from pyjax._src.numpy import creation, lax_numpy, linalg_ops, reductions, ufuncs
from pyjax._src.numpy.functional import vectorize
from pyjax._src.numpy import linalg as jnp_linalg
from pyjax._src.numpy import pad as jpad
from pyjax._src.numpy import shape as jshape
from pyjax._src.numpy import util as jnp_util
from pyjax._src.numpy.util import asarray_value, check_arraylike, promote_dtypes_inexact
from pyjax._src.pjit import jit


def _inexact(*xs):
    return promote_dtypes_inexact(*[asarray_value(x) for x in xs])


def _H(x):
    return ufuncs.conj(jshape.matrix_transpose(x))


def _dot(a, b):
    return linalg_ops.matmul(a, b, precision=Precision.HIGHEST)


def _square(fname, a):
    if a.ndim < 2 or a.shape[-1] != a.shape[-2]:
        raise ValueError(f"{fname}: expected a (batched) square matrix, got a.shape={a.shape}")


# -- decompositions --------------------------------------------------------------------------


def cholesky(a, lower: bool = False, overwrite_a: bool = False, check_finite: bool = True):
    """The Cholesky factor: upper U with a = U^H U, or lower L with a = L L^H if `lower`.
    Only that triangle of a is read (no symmetrization, as SciPy)."""
    return _cholesky(a, lower=bool(lower))


@partial(jit, static_argnames=("lower",), inline=True)
def _cholesky(a, *, lower):
    a, = _inexact(a)
    l = lax_linalg.cholesky(a if lower else _H(a), symmetrize_input=False)
    return l if lower else _H(l)


def cho_factor(a, lower: bool = False, overwrite_a: bool = False, check_finite: bool = True):
    """`(c, lower)`: the Cholesky factor and which triangle holds it, for `cho_solve`."""
    return cholesky(a, lower=lower), lower


def cho_solve(c_and_lower, b, overwrite_b: bool = False, check_finite: bool = True):
    """Solve a x = b from a's Cholesky factor `(c, lower)` (two triangular solves)."""
    c, lower = c_and_lower
    return _cho_solve(c, b, lower=bool(lower))


@partial(jit, static_argnames=("lower",), inline=True)
def _cho_solve(c, b, *, lower):
    c, b = _inexact(c, b)
    vector = b.ndim == 1
    b = b[:, None] if vector else b
    solve = partial(lax_linalg.triangular_solve, c, left_side=True, lower=lower)
    x = solve(solve(b, transpose_a=not lower, conjugate_a=not lower), transpose_a=lower,
              conjugate_a=lower)
    return x[:, 0] if vector else x


def lu_factor(a, overwrite_a: bool = False, check_finite: bool = True):
    """`(lu, piv)`: the LU factors in one matrix and LAPACK's row swaps (0-based)."""
    a, = _inexact(a)
    lu_, piv, _ = lax_linalg.lu(a)
    return lu_, piv


def lu_solve(lu_and_piv, b, trans: int = 0, overwrite_b: bool = False, check_finite: bool = True):
    """Solve a x = b (trans=0), a^T x = b (1) or a^H x = b (2) from `lu_factor`'s output."""
    lu_, piv = lu_and_piv
    if trans not in (0, 1, 2):
        raise ValueError(f"'trans' value must be 0, 1, or 2, got {trans}")
    lu_, b = _inexact(lu_, b)
    perm = lax_linalg.lu_pivots_to_permutation(asarray_value(piv), lu_.shape[-2])
    vector = b.ndim == 1
    b = b[:, None] if vector else b
    x = lax_linalg._lu_solve(lu_, perm, b, trans)
    return x[:, 0] if vector else x


def lu(a, permute_l: bool = False, overwrite_a: bool = False, check_finite: bool = True):
    """`(p, l, u)` with a = p l u (or `(p l, u)` if `permute_l`)."""
    a, = _inexact(a)
    lu_, _, perm = lax_linalg.lu(a)
    m, n = a.shape[-2:]
    k = min(m, n)
    p = (perm[..., None, :] == np.arange(m, dtype=np.int32)[:, None]).astype(a.dtype)
    l = lax_numpy.tril(lu_, -1)[..., :, :k] + creation.eye(m, k, dtype=a.dtype)
    u = lax_numpy.triu(lu_)[..., :k, :]
    return (_dot(p, l), u) if permute_l else (p, l, u)


def qr(a, overwrite_a: bool = False, lwork=None, mode: str = "full", pivoting: bool = False,
       check_finite: bool = True):
    """QR decomposition: `(q, r)` ('full' or 'economic'), `(r,)` for mode 'r'; with `pivoting`
    also the column permutation p (a[:, p] = q r)."""
    if mode not in ("full", "r", "economic"):
        raise ValueError(f"Unsupported QR decomposition mode '{mode}'")
    a, = _inexact(a)
    q, r, *p = lax_linalg.qr(a, pivoting=pivoting, full_matrices=mode != "economic")
    if mode == "r":
        return (r, p[0]) if pivoting else (r,)
    return (q, r, p[0]) if pivoting else (q, r)


def qr_multiply(a, c, mode: str = "right", pivoting: bool = False, conjugate: bool = False,
                overwrite_a: bool = False, overwrite_c: bool = False):
    """`(c q, r)` (mode 'right') or `(q c, r)` ('left') with the economic QR of a, without
    returning q; `conjugate` conjugates q."""
    if mode not in ("right", "left"):
        raise ValueError(f"mode must be 'right' or 'left', got {mode!r}")
    a, c = _inexact(a, c)
    q, r, *p = lax_linalg.qr(a, pivoting=pivoting, full_matrices=False)
    q = ufuncs.conj(q) if conjugate else q
    vector = c.ndim == 1
    if mode == "right":
        out = _dot(c[None, :] if vector else c, q)
    else:
        out = _dot(q, c[:, None] if vector else c)
    out = out.reshape(-1) if vector else out
    return (out, r, p[0]) if pivoting else (out, r)


def svd(a, full_matrices: bool = True, compute_uv: bool = True, overwrite_a: bool = False,
        check_finite: bool = True, lapack_driver: str = "gesdd"):
    """`(u, s, vh)` with a = u diag(s) vh, or s alone without `compute_uv`."""
    return jnp_linalg.svd(a, full_matrices=full_matrices, compute_uv=compute_uv)


def det(a, overwrite_a: bool = False, check_finite: bool = True):
    return jnp_linalg.det(a)


def inv(a, overwrite_a: bool = False, check_finite: bool = True):
    return jnp_linalg.inv(a)


def eigh(a, b=None, lower: bool = True, eigvals_only: bool = False, overwrite_a: bool = False,
         overwrite_b: bool = False, turbo: bool = True, eigvals=None, type: int = 1,
         check_finite: bool = True):
    """`(w, v)` of Hermitian a (only the `lower` or upper triangle read), or w alone.

    NB: as JAX, the generalized problem (b), `eigvals` and type != 1 are not implemented."""
    if b is not None:
        raise NotImplementedError("Only the b=None case of eigh is implemented")
    if type != 1:
        raise NotImplementedError("Only the type=1 case of eigh is implemented.")
    if eigvals is not None:
        raise NotImplementedError("Only the eigvals=None case of eigh is implemented.")
    a, = _inexact(a)
    v, w = lax_linalg.eigh(a, lower=lower, symmetrize_input=False)
    return w if eigvals_only else (w, v)


def eigh_tridiagonal(d, e, *, eigvals_only: bool = False, select: str = "a", select_range=None,
                     tol=None, key=None):
    """The eigenvalues of the Hermitian tridiagonal matrix with diagonal d and off-diagonal e,
    ascending, and with `eigvals_only=False` `(w, v)`, v's columns the eigenvectors. `select`
    is 'a' (all) or 'i' (the eigenvalues of indices select_range[0]..select_range[1]).

    NB: computed with eigh of the dense matrix (JAX bisects, then finds eigenvectors by inverse
    iteration from `key`): the same values to rounding, eigenvectors up to a phase each."""
    if select == "v":
        raise NotImplementedError("eigh_tridiagonal(..., select='v') is not implemented")
    if select == "i":
        if select_range is None:
            raise ValueError("for select='i', select_range must be specified.")
        if select_range[0] > select_range[1]:
            raise ValueError("Got empty index range in select_range.")
        picked = slice(operator.index(select_range[0]), operator.index(select_range[1]) + 1)
    elif select == "a":
        picked = slice(None)
    else:
        raise ValueError("'select must have a value in {'a', 'i', 'v'}.")
    d, e = _inexact(d, e)
    n = d.shape[-1]
    dense = (d[..., :, None] * creation.eye(n, dtype=d.dtype)
             + _offdiag(e, n, 1) + _offdiag(ufuncs.conj(e), n, -1))
    v, w = lax_linalg.eigh(dense, symmetrize_input=False)
    w, v = w[..., picked], v[..., picked]
    return w if eigvals_only else (w, v)


def _offdiag(e, n, k):
    """The n x n matrix with e on diagonal k (k = 1 or -1)."""
    rows = np.arange(n - 1) + (k < 0)
    cols = np.arange(n - 1) + (k > 0)
    onehot = np.zeros((n - 1, n, n), np.float32)
    onehot[np.arange(n - 1), rows, cols] = 1
    return linalg_ops.einsum("...i,ijk->...jk", e, onehot.astype(core.get_aval(e).dtype))


def hessenberg(a, *, calc_q: bool = False, overwrite_a: bool = False, check_finite: bool = True):
    """The upper Hessenberg form h of a (a = q h q^H); `(h, q)` with `calc_q`."""
    a, = _inexact(a)
    h_full, taus = lax_structured.hessenberg(a)
    h = lax_numpy.triu(h_full, -1)
    if not calc_q:
        return h
    n = a.shape[-1]
    # q's reflectors are below the first subdiagonal: shift them up one row and to the left
    reflectors = jpad.pad(h_full[..., 1:, :n - 1], [(0, 0)] * (a.ndim - 2) + [(1, 0), (1, 0)])
    q = lax_linalg.householder_product(lax_numpy.tril(reflectors, -1), jpad.pad(
        taus, [(0, 0)] * (a.ndim - 2) + [(1, 0)]))
    return h, q


def schur(a, output: str = "real"):
    """`(t, z)`: a = z t z^H with t upper (quasi-)triangular; output 'complex' makes t
    triangular by working in complex arithmetic."""
    if output not in ("real", "complex"):
        raise ValueError(f"Expected 'output' to be either 'real' or 'complex', got output={output!r}.")
    a, = _inexact(a)
    if output == "complex":
        a = a.astype(dtypes.to_complex_dtype(a.dtype))
    return tuple(lax_structured.schur(a))


def rsf2csf(T, Z, check_finite: bool = True):
    """Convert a real Schur form (T, Z) to the complex one, by Givens rotations that zero T's
    subdiagonal (SciPy's algorithm)."""
    T, Z = _inexact(T, Z)
    cdt = dtypes.to_complex_dtype(T.dtype)
    T, Z = T.astype(cdt), Z.astype(cdt)
    n = T.shape[-1]
    eps = np.finfo(np.dtype(cdt).type(0).real.dtype).eps
    idx = np.arange(n)

    for m in range(n - 1, 0, -1):  # bottom-up, as SciPy (n is static: an unrolled loop)
        T, Z = _rsf2csf_step(T, Z, m, n, cdt, eps, idx)
    return T, Z


def _rsf2csf_step(T, Z, m, n, cdt, eps, idx):
    """Zero T[m, m-1] by a rotation of rows/columns m-1, m, when it is not negligible."""
    sub = T[m, m - 1]
    big = ufuncs.absolute(sub) > eps * (ufuncs.absolute(T[m - 1, m - 1]) + ufuncs.absolute(T[m, m]))
    # an eigenvalue of the 2x2 block, relative to T[m, m]
    a, b, c, d = T[m - 1, m - 1], T[m - 1, m], T[m, m - 1], T[m, m]
    half_tr = 0.5 * (a + d)
    mu = half_tr + ufuncs.sqrt(half_tr * half_tr - (a * d - b * c)) - d
    r = ufuncs.sqrt(ufuncs.absolute(mu) ** 2 + ufuncs.absolute(sub) ** 2).astype(cdt)
    r = lax_numpy.where(r == 0, 1, r)
    cos, sin = mu / r, sub / r
    G = creation.eye(n, dtype=cdt)
    G = G.at[m - 1, m - 1].set(ufuncs.conj(cos)).at[m - 1, m].set(sin)
    G = G.at[m, m - 1].set(-sin).at[m, m].set(cos)
    T2 = _dot(G, _dot(T, _H(G)))
    T2 = lax_numpy.where((idx[:, None] == m) & (idx[None, :] == m - 1), 0, T2)
    Z2 = _dot(Z, _H(G))
    T = lax_numpy.where(big, T2, T)
    return lax_numpy.where((idx[:, None] == m) & (idx[None, :] == m - 1), 0, T), lax_numpy.where(big, Z2, Z)


# -- solving -----------------------------------------------------------------------------------


def solve(a, b, lower: bool = False, overwrite_a: bool = False, overwrite_b: bool = False,
          debug: bool = False, check_finite: bool = True, assume_a: str = "gen"):
    """Solve a x = b; `assume_a='pos'` uses a's Cholesky factor (the `lower` triangle)."""
    valid = ["gen", "sym", "her", "pos"]
    if assume_a not in valid:
        raise ValueError(f"Expected assume_a to be one of {valid}; got {assume_a!r}")
    if assume_a != "pos":
        return jnp_linalg.solve(a, b)
    return cho_solve(cho_factor(a, lower=lower), b)


def solve_triangular(a, b, trans=0, lower: bool = False, unit_diagonal: bool = False,
                     overwrite_b: bool = False, debug=None, check_finite: bool = True):
    """Solve op(a) x = b for triangular a; trans 0/'N', 1/'T' or 2/'C' (conjugate transpose)."""
    flags = {0: (False, False), "N": (False, False), 1: (True, False), "T": (True, False),
             2: (True, True), "C": (True, True)}
    if trans not in flags:
        raise ValueError(f"Invalid 'trans' value {trans}")
    transpose_a, conjugate_a = flags[trans]
    a, b = _inexact(a, b)
    # batch dimensions broadcast, as JAX's (a vectorized solve)
    if b.ndim == 1:
        signature = "(n,n),(n)->(n)"
    elif a.ndim == b.ndim + 1 and a.shape[-1] == b.shape[-1]:
        warnings.warn(  # (JAX 0.10.2's deprecation and words)
            "jax.scipy.linalg.solve_triangular: batched 1D solves with b.ndim > 1 are deprecated, "
            "and in the future will be treated as a batched 2D solve. Use solve_triangular(a, "
            "b[..., None]).squeeze(-1) to avoid this warning.", category=FutureWarning)
        signature = "(n,n),(n)->(n)"
    else:
        signature = "(n,n),(n,k)->(n,k)"

    def solve(a, b):
        vector = b.ndim == 1
        x = lax_linalg.triangular_solve(a, b[:, None] if vector else b, left_side=True,
                                        lower=lower, transpose_a=transpose_a,
                                        conjugate_a=conjugate_a, unit_diagonal=unit_diagonal)
        return x[:, 0] if vector else x
    return vectorize(solve, signature=signature)(a, b)


def solve_sylvester(A, B, C, *, method: str = "schur", tol: float = 1e-8):
    """Solve A X + X B = C (Bartels-Stewart: complex Schur forms of A and B, then a triangular
    Sylvester equation solved column by column)."""
    if method != "schur":
        raise ValueError(f"solve_sylvester: method must be 'schur', got {method!r}")
    A, B, C = _inexact(A, B, C)
    cdt = dtypes.to_complex_dtype(C.dtype)
    R, U = schur(A, output="complex")
    S, V = schur(B, output="complex")
    F = _dot(_H(U), _dot(C.astype(cdt), V))
    m, n = F.shape
    eye = creation.eye(m, dtype=cdt)

    def column(k, Y):
        # (R + S[k, k] I) y_k = f_k - sum_{j<k} S[j, k] y_j
        rhs = F[:, k] - _dot(Y, lax_numpy.where(np.arange(n) < k, S[:, k], 0))
        yk = lax_linalg.triangular_solve(R + S[k, k] * eye, rhs[:, None], left_side=True)[:, 0]
        return lax_numpy.where(np.arange(n)[None, :] == k, yk[:, None], Y)
    Y = fori_loop(0, n, column, creation.zeros((m, n), cdt))
    X = _dot(U, _dot(Y, _H(V)))
    return X if dtypes.issubdtype(C.dtype, np.complexfloating) else ufuncs.real(X)


# -- matrix functions ------------------------------------------------------------------------

# Padé coefficients b_k of exp (Higham, "The scaling and squaring method for the matrix
# exponential revisited", 2005), and the 1-norm bounds below which each degree is accurate
_PADE = {
    3: (120., 60., 12., 1.),
    5: (30240., 15120., 3360., 420., 30., 1.),
    7: (17297280., 8648640., 1995840., 277200., 25200., 1512., 56., 1.),
    9: (17643225600., 8821612800., 2075673600., 302702400., 30270240., 2162160., 110880., 3960.,
        90., 1.),
    13: (64764752532480000., 32382376266240000., 7771770303897600., 1187353796428800.,
         129060195264000., 10559470521600., 670442572800., 33522128640., 1323241920., 40840800.,
         960960., 16380., 182., 1.),
}
_THETA = {4: ((3, 5, 7), (4.258730016922831e-001, 1.880152677804762e+000), 3.925724783138660),
          8: ((3, 5, 7, 9, 13), (1.495585217958292e-002, 2.539398330063230e-001,
                                 9.504178996162932e-001, 2.097847961257068e+000), 5.371920351148152)}


def _pade(m, A):
    """(U, V): the odd and even parts of the degree-m Padé numerator, p = U + V, q = V - U."""
    b = _PADE[m]
    I = creation.eye(A.shape[-1], dtype=A.dtype)
    A2 = _dot(A, A)
    if m == 13:
        A4 = _dot(A2, A2)
        A6 = _dot(A4, A2)
        U = _dot(A, _dot(A6, b[13] * A6 + b[11] * A4 + b[9] * A2) + b[7] * A6 + b[5] * A4
                 + b[3] * A2 + b[1] * I)
        V = _dot(A6, b[12] * A6 + b[10] * A4 + b[8] * A2) + b[6] * A6 + b[4] * A4 + b[2] * A2 + b[0] * I
        return U, V
    powers = [I, A2]
    while len(powers) <= m // 2:
        powers.append(_dot(powers[-1], A2))
    U = _dot(A, sum(b[2 * i + 1] * powers[i] for i in range(m // 2 + 1)))
    V = sum(b[2 * i] * powers[i] for i in range(m // 2 + 1))
    return U, V


def expm(A, *, upper_triangular: bool = False, max_squarings: int = 16):
    """The matrix exponential (scaling and squaring with a Padé approximant; NaNs when more
    than `max_squarings` squarings would be needed).

    >>> jax.scipy.linalg.expm(jnp.array([[0., 1.], [-1., 0.]]))   # a rotation by 1 radian
    """
    A, = _inexact(A)
    _square("expm", A)
    return _expm(A, upper_triangular=bool(upper_triangular), max_squarings=int(max_squarings))


@partial(jit, static_argnames=("upper_triangular", "max_squarings"), inline=True)
def _expm(A, *, upper_triangular, max_squarings):
    if A.ndim > 2:
        return vmap(partial(_expm, upper_triangular=upper_triangular,
                            max_squarings=max_squarings))(A.reshape((-1,) + A.shape[-2:])).reshape(A.shape)
    degrees, bounds, maxnorm = _THETA[np.finfo(A.dtype).dtype.itemsize]
    norm = jnp_linalg.norm(A, 1)
    n_squarings = ufuncs.maximum(0, ufuncs.floor(ufuncs.log2(norm / maxnorm)))
    A = A / (2 ** n_squarings).astype(A.dtype)
    idx = reductions.sum(norm > np.array(bounds, norm.dtype)).astype(np.int32)
    U, V = switch(idx, [partial(_pade, m) for m in degrees], A)
    P, Q = U + V, V - U
    R = solve_triangular(Q, P) if upper_triangular else jnp_linalg.solve(Q, P)

    def square(i, R):
        return lax_numpy.where(i < n_squarings, _dot(R, R), R)
    R = fori_loop(0, max_squarings, square, R)
    return lax_numpy.where(n_squarings > max_squarings, np.nan, R)


def expm_frechet(A, E, *, method=None, compute_expm: bool = True):
    """The Fréchet derivative of expm at A in the direction E (its JVP): `(expm(A), L)`, or L
    alone without `compute_expm`."""
    if method is not None and method != "SPS":
        raise ValueError(f"only method='SPS' is supported, got {method!r}")
    A, E = _inexact(A, E)
    if A.ndim != 2 or A.shape[0] != A.shape[1]:
        raise ValueError(f"expected A to be a square matrix, got {A.shape}")
    if E.shape != A.shape:
        raise ValueError(f"expected E to be the same shape as A, got {E.shape} and {A.shape}")
    expm_A, L = jvp(expm, (A,), (E,))
    return (expm_A, L) if compute_expm else L


def sqrtm(A, blocksize: int = 1):
    """The principal square root: from the complex Schur form A = Z T Z^H, the upper triangular
    root R of T (R_ii = sqrt(T_ii), then each superdiagonal in turn), and Z R Z^H."""
    if blocksize > 1:
        raise NotImplementedError("Blocked version is not implemented yet.")
    A, = _inexact(A)
    _square("sqrtm", A)
    T, Z = schur(A, output="complex")
    R = _sqrtm_triangular(T)
    return _dot(Z, _dot(R, _H(Z)))


def _sqrtm_triangular(T):
    n = T.shape[-1]
    diag = ufuncs.sqrt(lax_numpy.diagonal(T))
    R = diag[:, None] * creation.eye(n, dtype=T.dtype)
    rows, cols = np.arange(n)[:, None], np.arange(n)[None, :]

    def superdiagonal(k, R):
        # R_ij (j = i + k) = (T_ij - sum_{i<l<j} R_il R_lj) / (R_ii + R_jj)
        inner = (cols > rows) & (cols < rows + k)                     # l strictly between
        s = _dot(lax_numpy.where(inner, R, 0), R)
        # (a zero numerator gives 0, also over a zero denominator: singular T, as JAX)
        r = lax_numpy.where(T == s, 0, (T - s) / (diag[:, None] + diag[None, :]))
        return lax_numpy.where(cols == rows + k, r, R)
    return fori_loop(1, n, superdiagonal, R)


def funm(A, func, disp: bool = True):
    """f(A) through the eigendecomposition of A (diagonalizable A).

    NB: JAX uses the Schur-Parlett algorithm; this is exact for diagonalizable matrices only."""
    A, = _inexact(A)
    w, v = lax_linalg.eig(A, compute_left_eigenvectors=False)
    F = _dot(v * func(w)[None, :], jnp_linalg.inv(v))
    if not dtypes.issubdtype(A.dtype, np.complexfloating):
        F = ufuncs.real(F)
    return (F, np.float32(0.0)) if not disp else F


def polar(a, side: str = "right", *, method: str = "qdwh", eps=None, max_iterations=None):
    """`(u, p)`: a = u p (side 'right', p = V S V^H) or a = p u ('left'), from the SVD.

    NB: method 'qdwh' (JAX's default) computes the same factors through the SVD here."""
    if side not in ("right", "left"):
        raise ValueError(f"side={side!r} was not understood")
    if method not in ("qdwh", "svd"):
        raise ValueError(f"Unknown polar decomposition method {method}.")
    a, = _inexact(a)
    u_svd, s, vh = jnp_linalg.svd(a, full_matrices=False)
    u = _dot(u_svd, vh)
    s = s[..., None, :].astype(a.dtype)   # (batched: one row of singular values per matrix)
    if side == "right":
        p = _dot(_H(vh) * s, vh)
    else:
        p = _dot(u_svd * s, _H(u_svd))
    return u, p


# -- special matrices --------------------------------------------------------------------------


def block_diag(*arrs):
    """The block-diagonal matrix of the given matrices (scalars and vectors are 1 x n rows)."""
    if not arrs:
        return creation.zeros((1, 0))
    arrs = [asarray_value(a) for a in arrs]
    arrs = [a.reshape(1, -1) if a.ndim < 2 else a for a in arrs]
    if any(a.ndim != 2 for a in arrs):
        raise ValueError(f"Arguments to jax.scipy.linalg.block_diag must have at most 2 "
                         f"dimensions, got {[a.shape for a in arrs]}")
    dt = dtypes.result_type(*arrs)
    cols = sum(a.shape[1] for a in arrs)
    rows, left = [], 0
    for a in arrs:
        rows.append(jpad.pad(a.astype(dt), [(0, 0), (left, cols - left - a.shape[1])]))
        left += a.shape[1]
    return jshape.concatenate(rows, axis=0)


def toeplitz(c, r=None):
    """The Toeplitz matrix with first column c and first row r (default: conj(c)); r[0] is
    ignored. Batched over leading dimensions (those of c and r broadcast)."""
    if r is None:
        check_arraylike("toeplitz", c)
        c = jshape.atleast_1d(asarray_value(c))
        r = ufuncs.conj(c)
    else:
        check_arraylike("toeplitz", c, r)
        c = jshape.atleast_1d(asarray_value(c))
    r = jshape.atleast_1d(asarray_value(r))
    c, r = _promote(c, r)
    m, n = c.shape[-1], r.shape[-1]
    batch = np.broadcast_shapes(c.shape[:-1], r.shape[:-1])
    if m == 0 or n == 0:
        return creation.zeros(batch + (m, n), c.dtype)
    c, r = jnp_util.broadcast_to(c, batch + (m,)), jnp_util.broadcast_to(r, batch + (n,))
    vals = jshape.concatenate([jshape.flip(c, -1), r[..., 1:]], axis=-1)  # c[m-1..0], r[1:]
    idx = (m - 1) - np.arange(m)[:, None] + np.arange(n)[None, :]
    return vals[..., idx]


def _promote(*xs):
    dt = dtypes.result_type(*xs)
    return [x.astype(dt) for x in xs]


def hankel(c, r=None):
    """The Hankel matrix with first column c and last row r (default zeros); r[0] ignored."""
    c = asarray_value(c)
    r = creation.zeros_like(c) if r is None else asarray_value(r)
    c, r = _promote(c, r)
    m, n = c.shape[-1], r.shape[-1]
    vals = jshape.concatenate([c, r[..., 1:]], axis=-1)
    return vals[..., np.arange(m)[:, None] + np.arange(n)[None, :]]


def circulant(c):
    """The circulant matrix with first column c."""
    c = asarray_value(c)
    n = c.shape[-1]
    return c[..., (np.arange(n)[:, None] - np.arange(n)[None, :]) % n]


def companion(a):
    """The companion matrix of the polynomial with coefficients a (highest first)."""
    a = asarray_value(a)
    if a.ndim != 1 or a.shape[0] < 2:
        raise ValueError("Incorrect shape for `a`.  `a` must be one-dimensional with length >= 2.")
    first = -a[1:] / (1.0 * a[0])
    n = a.shape[0] - 1
    below = creation.eye(n - 1, n, dtype=first.dtype)
    return jshape.concatenate([first[None, :], below], axis=0)


def fiedler(a):
    """The symmetric matrix |a_i - a_j|."""
    a = asarray_value(a)
    return ufuncs.absolute(a[..., :, None] - a[..., None, :])


def fiedler_companion(a):
    """Fiedler's pentadiagonal companion matrix of the polynomial a (highest first)."""
    a, = _inexact(a)
    if a.ndim != 1:
        raise ValueError("Input 'a' must be a 1D array.")
    if a.shape[0] <= 2:
        if a.shape[0] == 2:
            return (-a[1] / a[0]).reshape(1, 1)
        return creation.zeros((0,), a.dtype)
    a = a / a[0]
    n = a.shape[0] - 1
    one = np.ones((), a.dtype)
    entries = [((0, 0), -a[1]), ((1, 0), one)]
    entries += [((i, j), one) for i, j in zip(range(3, n, 2), range(1, n - 2, 2))]       # subdiagonal 2
    entries += [((i, j), -a[k]) for i, j, k in zip(range(2, n, 2), range(1, n - 1, 2), range(3, n + 1, 2))]
    entries += [((i, j), one) for i, j in zip(range(0, n - 2, 2), range(2, n, 2))]       # superdiagonal 2
    entries += [((i, j), -a[k]) for i, j, k in zip(range(0, n - 1, 2), range(1, n, 2), range(2, n + 1, 2))]
    flat_idx = np.array([i * n + j for (i, j), _ in entries])
    vals = jshape.stack([asarray_value(v).astype(a.dtype) for _, v in entries])
    return creation.zeros((n * n,), a.dtype).at[flat_idx].set(vals).reshape(n, n)


def hilbert(n: int):
    """The Hilbert matrix 1 / (i + j + 1)."""
    i = np.arange(n)
    return creation.asarray(1.0 / (i[:, None] + i[None, :] + 1))


def invhilbert(n: int):
    """The inverse of the Hilbert matrix (exact integers, as floats)."""
    def entry(i, j):
        return ((-1) ** (i + j) * (i + j + 1) * math.comb(n + i, n - j - 1)
                * math.comb(n + j, n - i - 1) * math.comb(i + j, i) ** 2)
    return creation.asarray(np.array([[float(entry(i, j)) for j in range(n)] for i in range(n)]))


def pascal(n: int, kind=None):
    """The Pascal matrix: 'symmetric' (default), 'lower' or 'upper'."""
    kind = "symmetric" if kind is None else kind
    if kind not in ("symmetric", "lower", "upper"):
        raise ValueError(f"Expected kind to be one of 'symmetric', 'lower', 'upper'; got kind={kind!r}")
    i = np.arange(n)
    if kind == "symmetric":
        vals = np.array([[math.comb(a + b, a) for b in i] for a in i], np.float64)
    else:
        vals = np.array([[math.comb(a, b) for b in i] for a in i], np.float64)
        vals = vals if kind == "lower" else vals.T
    return creation.asarray(vals)


def invpascal(n: int, kind=None):
    """The inverse of the Pascal matrix (exact integers, as floats)."""
    kind = "symmetric" if kind is None else kind
    if kind not in ("symmetric", "lower", "upper"):
        raise ValueError(f"Expected kind to be one of 'symmetric', 'lower', 'upper'; got kind={kind!r}")
    low = np.array([[(-1) ** (a - b) * math.comb(a, b) if a >= b else 0 for b in range(n)]
                    for a in range(n)], np.float64)
    if kind == "lower":
        return creation.asarray(low)
    if kind == "upper":
        return creation.asarray(low.T)
    return creation.asarray(low.T @ low)


def dft(n: int, scale=None, *, dtype=None):
    """The DFT matrix exp(-2 pi i jk / n), scaled by 1/n ('n') or 1/sqrt(n) ('sqrtn')."""
    if scale not in (None, "sqrtn", "n"):
        raise ValueError(f"scale must be None, 'sqrtn', or 'n'; {scale!r} is not valid.")
    j = np.arange(n)
    m = np.exp(-2j * np.pi * np.outer(j, j) / n)
    if scale == "n":
        m = m / n
    elif scale == "sqrtn":
        m = m / np.sqrt(n)
    dt = dtypes.canonicalize_dtype(np.complex128 if dtype is None else dtype)
    return creation.asarray(m.astype(dt))


def hadamard(n: int, dtype=int):
    """The Sylvester-construction Hadamard matrix of order n (a power of 2)."""
    if n < 1 or n & (n - 1):
        raise ValueError("n must be an positive a power of 2 integer")
    h = np.ones((1, 1))
    while h.shape[0] < n:
        h = np.block([[h, h], [h, -h]])
    return creation.asarray(h.astype(dtypes.canonicalize_dtype(dtype)))


def helmert(n: int, full: bool = False):
    """The Helmert matrix (orthogonal; its first row dropped unless `full`)."""
    h = np.tril(np.ones((n, n)), -1) - np.diag(np.arange(n))
    d = np.arange(n) * np.arange(1, n + 1)
    h[0] = 1
    d[0] = n
    h = h / np.sqrt(d)[:, None]
    return creation.asarray(h if full else h[1:])


def leslie(f, s):
    """The Leslie matrix: fecundities f in the first row, survival rates s below the diagonal."""
    f, s = asarray_value(f), asarray_value(s)
    if f.ndim != 1 or s.ndim != 1 or f.shape[0] != s.shape[0] + 1:
        raise ValueError(f"Incorrect lengths for f and s: f.shape={f.shape}, s.shape={s.shape}")
    f, s = _promote(f, s)
    n = f.shape[0]
    below = s[:, None] * creation.eye(n - 1, n, dtype=s.dtype)
    return jshape.concatenate([f[None, :], below], axis=0)


def convolution_matrix(a, n: int, mode: str = "full"):
    """The matrix A with A @ v == np.convolve(a, v, mode) for v of length n; batched over the
    leading dimensions of `a` (..., m)."""
    n = operator.index(n)
    if n <= 0:
        raise ValueError(f"n must be a positive integer; got {n}.")
    check_arraylike("convolution_matrix", a)
    a = asarray_value(a)
    if a.ndim == 0:
        raise ValueError("convolution_matrix: a must be at least 1-dimensional, got a scalar.")
    m = a.shape[-1]
    if m < 1:
        raise ValueError(f"len(a) must be at least 1; got shape {a.shape}.")
    full_rows = m + n - 1
    if mode == "full":
        start, rows = 0, full_rows
    elif mode == "same":
        rows = max(m, n)
        start = (min(m, n) - 1) // 2
    elif mode == "valid":
        rows = max(m, n) - min(m, n) + 1
        start = min(m, n) - 1
    else:
        raise ValueError(f"mode must be one of 'full', 'valid', 'same'; got {mode!r}.")
    i = np.arange(start, start + rows)[:, None] - np.arange(n)[None, :]
    padded = jshape.concatenate([a, creation.zeros(a.shape[:-1] + (1,), a.dtype)], axis=-1)
    return padded[..., np.where((i >= 0) & (i < m), i, m)]
