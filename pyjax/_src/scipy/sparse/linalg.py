"""`jax.scipy.sparse.linalg`: Krylov solvers for linear operators on pytrees of arrays.

`cg` (Hermitian positive definite), `bicgstab` (general square) and `gmres` (general square,
restarted; `solve_method="batched"` solves the small least-squares problem after each Arnoldi
sweep, `"incremental"` keeps a QR factorization by Givens rotations as it goes). Each loop is a
`while_loop` so it compiles once; each solve is wrapped in `lax.custom_linear_solve`, so its
derivatives are implicit (the tangent and cotangent solve the same or the transposed system with
the same method) rather than derivatives through the iterations. The operators `A` and `M` are
functions, square matrices, or objects with `@` (e.g. a sparse BCOO matrix).

The iterations follow JAX 0.10.2's (same stopping rules, same recurrences, Gram-Schmidt twice in
Arnoldi), so the iterates agree with JAX's up to rounding.
"""
from __future__ import annotations

import functools
import operator

import numpy as np

from pyjax._src import dtypes, tree_util
from pyjax._src.lax.control_flow.scan import fori_loop
from pyjax._src.lax.control_flow.solves import custom_linear_solve
from pyjax._src.lax.control_flow.while_loop import while_loop
from pyjax._src.lax.elementwise import rsqrt
from pyjax._src.numpy import array_methods  # noqa: F401  (Array operators)
from pyjax._src.numpy import creation, lax_numpy, linalg_ops, ufuncs
from pyjax._src.numpy import pad as jpad
from pyjax._src.numpy import shape as jshape
from pyjax._src.numpy.util import asarray_value
from pyjax._src.scipy.linalg import solve as _dense_solve, solve_triangular

_HIGHEST = "highest"


# -- pytree vector algebra --------------------------------------------------------------------

def _vdot_real_part(x, y):
    """Re <x, y> without the imaginary cross terms (the quantities CG and the norms take inner
    products of are real for the Hermitian operators they are meant for)."""
    out = linalg_ops.vdot(x.real, y.real, precision=_HIGHEST)
    if lax_numpy.iscomplexobj(x) or lax_numpy.iscomplexobj(y):
        out = out + linalg_ops.vdot(x.imag, y.imag, precision=_HIGHEST)
    return out


def _vdot_real_tree(x, y):
    return sum(tree_util.tree_leaves(tree_util.tree_map(_vdot_real_part, x, y)))


def _vdot_tree(x, y):
    return sum(tree_util.tree_leaves(tree_util.tree_map(
        functools.partial(linalg_ops.vdot, precision=_HIGHEST), x, y)))


def _norm(x):
    leaves = tree_util.tree_leaves(x)
    return ufuncs.sqrt(sum(map(_vdot_real_part, leaves, leaves)))


def _mul(scalar, tree):
    return tree_util.tree_map(lambda v: scalar * v, tree)


def _add(x, y):
    return tree_util.tree_map(operator.add, x, y)


def _sub(x, y):
    return tree_util.tree_map(operator.sub, x, y)


def _dot(a, b):
    return linalg_ops.dot(a, b, precision=_HIGHEST)


def _identity(x):
    return x


def _normalize_matvec(f, name="A"):
    """A function computing f @ v from a function, a square matrix or an object with `@`."""
    if callable(f):
        return f
    if isinstance(f, np.ndarray) or hasattr(f, "__matmul__"):
        shape = tuple(np.shape(f))
        if len(shape) != 2 or shape[0] != shape[1]:
            raise ValueError(f"linear operator {name} must be a square matrix, but has shape: {shape}")
        return functools.partial(_dot, f) if isinstance(f, np.ndarray) else \
            functools.partial(operator.matmul, f)
    raise TypeError(f"linear operator must be either a function or ndarray: {f!r}")  # (JAX's words)


def _shapes(tree):
    return [np.shape(x) for x in tree_util.tree_leaves(tree)]


def _check_x0(b, x0, check_shapes):
    if tree_util.tree_structure(x0) != tree_util.tree_structure(b):
        raise ValueError(f"x0 and b must have matching tree structure: "
                         f"{tree_util.tree_structure(x0)} vs {tree_util.tree_structure(b)}")
    if check_shapes and _shapes(x0) != _shapes(b):
        raise ValueError(f"arrays in x0 and b must have matching shapes: {_shapes(x0)} vs {_shapes(b)}")


def _prepare(b, x0, check_shapes=True):
    b = tree_util.tree_map(asarray_value, b)
    x0 = tree_util.tree_map(creation.zeros_like, b) if x0 is None else tree_util.tree_map(asarray_value, x0)
    _check_x0(b, x0, check_shapes)
    size = sum(int(np.prod(np.shape(v))) for v in tree_util.tree_leaves(b))
    return b, x0, size


# -- CG and BiCGSTAB ----------------------------------------------------------------------------

def _cg_solve(A, b, x0, *, maxiter, tol, atol, M):
    """Preconditioned CG from x0 until |r|^2 <= max(tol^2 |b|^2, atol^2) (SciPy's criterion),
    at most maxiter steps. With no preconditioner |r|^2 is the gamma = <r, M r> CG keeps."""
    atol2 = ufuncs.maximum(ufuncs.square(tol) * _vdot_real_tree(b, b), ufuncs.square(atol))

    def cond(state):
        _, r, gamma, _, k = state
        rs = gamma.real if M is _identity else _vdot_real_tree(r, r)
        return (rs > atol2) & (k < maxiter)

    def step(state):
        x, r, gamma, p, k = state
        ap = A(p)
        alpha = gamma / _vdot_real_tree(p, ap).astype(dtype)
        x = _add(x, _mul(alpha, p))
        r = _sub(r, _mul(alpha, ap))
        z = M(r)
        gamma_next = _vdot_real_tree(r, z).astype(dtype)
        p = _add(z, _mul(gamma_next / gamma, p))
        return x, r, gamma_next, p, k + 1

    r0 = _sub(b, A(x0))
    z0 = M(r0)
    dtype = dtypes.result_type(*tree_util.tree_leaves(z0))
    gamma0 = _vdot_real_tree(r0, z0).astype(dtype)
    return while_loop(cond, step, (x0, r0, gamma0, z0, 0))[0]


def _bicgstab_solve(A, b, x0, *, maxiter, tol, atol, M):
    """Preconditioned BiCGSTAB (van der Vorst 1992) with SciPy's non-legacy stopping rule
    |r| <= max(tol |b|, atol); a breakdown (rho, alpha or omega zero) ends the loop (the step
    counter goes negative, as JAX's does)."""
    atol2 = ufuncs.maximum(ufuncs.square(tol) * _vdot_real_tree(b, b), ufuncs.square(atol))

    def cond(state):
        _, r, *_, k = state
        return (_vdot_real_tree(r, r) > atol2) & (k < maxiter) & (k >= 0)

    def step(state):
        x, r, rhat, alpha, omega, rho, p, q, k = state
        rho_ = _vdot_tree(rhat, r)
        beta = rho_ / rho * alpha / omega
        p_ = _add(r, _mul(beta, _sub(p, _mul(omega, q))))
        phat = M(p_)
        q_ = A(phat)
        alpha_ = rho_ / _vdot_tree(rhat, q_)
        s = _sub(r, _mul(alpha_, q_))
        exit_early = _vdot_real_tree(s, s) < atol2
        shat = M(s)
        t = A(shat)
        omega_ = _vdot_tree(t, s) / _vdot_tree(t, t)
        x_half = _add(x, _mul(alpha_, phat))
        x_ = tree_util.tree_map(functools.partial(lax_numpy.where, exit_early),
                                x_half, _add(x_half, _mul(omega_, shat)))
        r_ = tree_util.tree_map(functools.partial(lax_numpy.where, exit_early), s, _sub(s, _mul(omega_, t)))
        k_ = lax_numpy.where((omega_ == 0) | (alpha_ == 0), -11, k + 1)
        k_ = lax_numpy.where(rho_ == 0, -10, k_)
        return x_, r_, rhat, alpha_, omega_, rho_, p_, q_, k_

    r0 = _sub(b, A(x0))
    one = creation.ones((), dtypes.result_type(*tree_util.tree_leaves(b)))
    return while_loop(cond, step, (x0, r0, r0, one, one, one, r0, r0, 0))[0]


def _isolve(name, solve_fn, A, b, x0, *, tol, atol, maxiter, M, check_symmetric):
    b, x0, size = _prepare(b, x0)
    maxiter = 10 * size if maxiter is None else maxiter   # SciPy's default
    A = _normalize_matvec(A, "A")
    M = _identity if M is None else _normalize_matvec(M, "M")
    solve = functools.partial(solve_fn, x0=x0, tol=tol, atol=atol, maxiter=maxiter, M=M)
    # a real positive-definite operator is symmetric; a complex one is Hermitian, not symmetric
    symmetric = check_symmetric and not any(lax_numpy.iscomplexobj(v) for v in tree_util.tree_leaves(b))
    x = custom_linear_solve(A, b, solve=solve, transpose_solve=solve, symmetric=symmetric)
    return x, None


def cg(A, b, x0=None, *, tol=1e-5, atol=0.0, maxiter=None, M=None):
    """Solve A x = b for a Hermitian positive-definite A by conjugate gradients: `(x, None)`
    (SciPy's second result, the convergence info, is not computed, as in JAX). `A` and the
    preconditioner `M` are square matrices or linear functions of pytrees shaped like `b`;
    the default maxiter is 10 times the size of b. Stops when |r| <= max(tol |b|, atol).

        >>> x, _ = jax.scipy.sparse.linalg.cg(lambda v: a @ v, b)
    """
    return _isolve("cg", _cg_solve, A, b, x0, tol=tol, atol=atol, maxiter=maxiter, M=M,
                   check_symmetric=True)


def bicgstab(A, b, x0=None, *, tol=1e-5, atol=0.0, maxiter=None, M=None):
    """Solve A x = b for a general square A by BiCGSTAB: `(x, None)`. Arguments as `cg`; the
    numbers follow SciPy's bicgstab with its non-legacy tolerance (|r| <= max(tol |b|, atol)).

        >>> x, _ = jax.scipy.sparse.linalg.bicgstab(lambda v: a @ v, b)
    """
    return _isolve("bicgstab", _bicgstab_solve, A, b, x0, tol=tol, atol=atol, maxiter=maxiter,
                   M=M, check_symmetric=False)


# -- GMRES --------------------------------------------------------------------------------------

def _safe_normalize(x, thresh=None):
    """(x / |x|, |x|), or (0, 0) when |x| <= thresh (default: the dtype's machine epsilon)."""
    norm = _norm(x)
    dtype = dtypes.result_type(*tree_util.tree_leaves(x))
    if thresh is None:
        thresh = dtypes.finfo(norm.dtype).eps
    thresh = creation.asarray(thresh).astype(dtype).real
    use_norm = norm > thresh
    norm_cast = norm.astype(dtype)
    normalized = tree_util.tree_map(lambda y: lax_numpy.where(use_norm, y / norm_cast, 0.0), x)
    return normalized, lax_numpy.where(use_norm, norm, 0.0)


def _project_on_columns(Q, v):
    """Q^H v, with the Krylov vectors stored in Q's last axis (leaf by leaf, summed)."""
    parts = tree_util.tree_map(
        lambda X, y: linalg_ops.einsum("...n,...->n", X.conj(), y, precision=_HIGHEST), Q, v)
    return functools.reduce(operator.add, tree_util.tree_leaves(parts))


def _iterative_classical_gram_schmidt(Q, x, xnorm, max_iterations=2):
    """Orthogonalize x against the orthonormal columns of Q by classical Gram-Schmidt, repeated
    ("twice is enough", Giraud et al.) while the remainder lost more than 1/sqrt(2) of x's norm.
    Returns the remainder q and the overlaps r (x = Q r + q)."""
    q0 = tree_util.tree_leaves(Q)[0]
    r = creation.zeros(q0.shape[-1], dtype=q0.dtype)

    def body(carry):
        k, q, r, qnorm_scaled = carry
        h = _project_on_columns(Q, q)
        q = _sub(q, tree_util.tree_map(lambda X: _dot(X, h), Q))
        r = _add(r, h)

        def renorm_cond(c):
            k, not_done, _, _ = c
            return ufuncs.logical_and(not_done, k < max_iterations - 1)

        def renorm(c):
            k, _, q, _ = c
            _, qnorm = _safe_normalize(q)
            return k, False, q, qnorm / ufuncs.sqrt(2.0)

        _, _, q, qnorm_scaled = while_loop(renorm_cond, renorm, (k, True, q, qnorm_scaled))
        return k + 1, q, r, qnorm_scaled

    def cond(carry):
        k, _, r, qnorm_scaled = carry
        _, rnorm = _safe_normalize(r)
        return ufuncs.logical_and(k < max_iterations - 1, rnorm < qnorm_scaled)

    carry = body((0, x, r, xnorm / ufuncs.sqrt(2.0)))
    _, q, r, _ = while_loop(cond, body, carry)
    return q, r


def _kth_arnoldi_iteration(k, A, M, V, H):
    """Arnoldi step k: V[..., k+1] <- the normalized part of M(A(V[..., k])) orthogonal to
    V[..., :k+1]; H[k, :] <- its overlaps (and norm at k+1). Breakdown (an invariant subspace)
    when that part vanishes below eps times the vector's norm."""
    dtype = dtypes.result_type(*tree_util.tree_leaves(V))
    eps = dtypes.finfo(dtype).eps
    v = M(A(tree_util.tree_map(lambda X: X[..., k], V)))
    _, v_norm_0 = _safe_normalize(v)
    v, h = _iterative_classical_gram_schmidt(V, v, v_norm_0, max_iterations=2)
    unit_v, v_norm_1 = _safe_normalize(v, thresh=eps * v_norm_0)
    V = tree_util.tree_map(lambda X, y: X.at[..., k + 1].set(y), V, unit_v)
    h = h.at[k + 1].set(v_norm_1.astype(dtype))
    return V, H.at[k, :].set(h), v_norm_1 == 0.0


def _rotate_vectors(H, i, cs, sn):
    x1, y1 = H[i], H[i + 1]
    H = H.at[i].set(cs.conj() * x1 - sn.conj() * y1)
    return H.at[i + 1].set(sn * x1 + cs * y1)


def _givens_rotation(a, b):
    """(cs, sn) of the rotation that zeroes b against a (computed without overflow)."""
    b_zero = abs(b) == 0
    a_lt_b = abs(a) < abs(b)
    t = -lax_numpy.where(a_lt_b, a, b) / lax_numpy.where(a_lt_b, b, a)
    r = rsqrt(1 + abs(t) ** 2).astype(t.dtype)
    cs = lax_numpy.where(b_zero, 1, lax_numpy.where(a_lt_b, r * t, r))
    sn = lax_numpy.where(b_zero, 0, lax_numpy.where(a_lt_b, r, r * t))
    return cs, sn


def _apply_givens_rotations(H_row, givens, k):
    """Apply the k rotations so far to the new Hessenberg row, then the new rotation that
    zeroes its entry k+1."""
    R_row = fori_loop(0, k, lambda i, row: _rotate_vectors(row, i, *givens[i, :]), H_row)
    factors = _givens_rotation(R_row[k], R_row[k + 1])
    return _rotate_vectors(R_row, k, *factors), givens.at[k, :].set(jshape.stack(factors))


def _krylov_basis(unit_residual, restart):
    return tree_util.tree_map(
        lambda x: jpad.pad(x[..., None], ((0, 0),) * x.ndim + ((0, restart),)), unit_residual)


def _gmres_incremental(A, b, x0, unit_residual, residual_norm, ptol, restart, M):
    """One GMRES cycle, QR of the Hessenberg matrix kept up to date by Givens rotations so the
    residual norm is known at every step (the cycle stops early below ptol)."""
    V = _krylov_basis(unit_residual, restart)
    dtype = dtypes.result_type(*tree_util.tree_leaves(b))
    R = creation.eye(restart, restart + 1, dtype=dtype)   # eye: stays invertible on early exit
    givens = creation.zeros((restart, 2), dtype=dtype)
    beta_vec = creation.zeros(restart + 1, dtype=dtype).at[0].set(residual_norm.astype(dtype))

    def cond(carry):
        k, err, *_ = carry
        return ufuncs.logical_and(k < restart, err > ptol)

    def step(carry):
        k, _, V, R, beta_vec, givens = carry
        V, H, _ = _kth_arnoldi_iteration(k, A, M, V, R)
        R_row, givens = _apply_givens_rotations(H[k, :], givens, k)
        R = R.at[k, :].set(R_row)
        beta_vec = _rotate_vectors(beta_vec, k, *givens[k, :])
        return k + 1, abs(beta_vec[k + 1]), V, R, beta_vec, givens

    _, _, V, R, beta_vec, _ = while_loop(cond, step, (0, residual_norm, V, R, beta_vec, givens))
    y = solve_triangular(R[:, :-1].T, beta_vec[:-1])
    x = _add(x0, tree_util.tree_map(lambda X: _dot(X[..., :-1], y), V))
    unit_residual, residual_norm = _safe_normalize(M(_sub(b, A(x))))
    return x, unit_residual, residual_norm


def _gmres_batched(A, b, x0, unit_residual, residual_norm, ptol, restart, M):
    """One GMRES cycle: the whole Arnoldi basis first (stopping at breakdown), then the
    least-squares problem min |beta e1 - H y| by its normal equations."""
    del ptol
    V = _krylov_basis(unit_residual, restart)
    dtype = dtypes.result_type(*tree_util.tree_leaves(b))
    H = creation.eye(restart, restart + 1, dtype=dtype)

    def cond(carry):
        _, _, breakdown, k = carry
        return ufuncs.logical_and(k < restart, ufuncs.logical_not(breakdown))

    def step(carry):
        V, H, _, k = carry
        V, H, breakdown = _kth_arnoldi_iteration(k, A, M, V, H)
        return V, H, breakdown, k + 1

    V, H, _, _ = while_loop(cond, step, (V, H, False, 0))
    beta_vec = creation.zeros(restart + 1, dtype=dtype).at[0].set(residual_norm.astype(dtype))
    Ht = H.T
    y = _dense_solve(_dot(Ht.T.conj(), Ht), _dot(Ht.T.conj(), beta_vec), assume_a="pos")
    x = _add(x0, tree_util.tree_map(lambda X: _dot(X[..., :-1], y), V))
    unit_residual, residual_norm = _safe_normalize(M(_sub(b, A(x))))
    return x, unit_residual, residual_norm


def _gmres_solve(A, b, x0, atol, ptol, restart, maxiter, M, cycle):
    """Restarted GMRES: cycles of `cycle` until |M(b - A x)| <= atol or maxiter cycles."""
    unit_residual, residual_norm = _safe_normalize(M(_sub(b, A(x0))))

    def cond(state):
        _, k, _, residual_norm = state
        return ufuncs.logical_and(k < maxiter, residual_norm > atol)

    def step(state):
        x, k, unit_residual, residual_norm = state
        x, unit_residual, residual_norm = cycle(A, b, x, unit_residual, residual_norm, ptol,
                                                restart, M)
        return x, k + 1, unit_residual, residual_norm

    return while_loop(cond, step, (x0, 0, unit_residual, residual_norm))[0]


def gmres(A, b, x0=None, *, tol=1e-5, atol=0.0, restart=20, maxiter=None, M=None,
          solve_method="batched"):
    """Solve A x = b for a general square A by restarted GMRES: `(x, info)` with info 0, or -1
    when the result has NaNs. `restart` is the Krylov dimension per cycle (at most the size of
    b), `maxiter` the number of cycles (default 10 times the size of b); stops when
    |M(b - A x)| <= max(tol |b|, atol). `solve_method="incremental"` builds the QR factorization
    by Givens rotations during Arnoldi and can stop a cycle early; `"batched"` (the default)
    solves the least-squares problem once per cycle.

        >>> x, info = jax.scipy.sparse.linalg.gmres(lambda v: a @ v, b, restart=10)
    """
    cycles = {"incremental": _gmres_incremental, "batched": _gmres_batched}
    if solve_method not in cycles:
        raise ValueError(f"invalid solve_method {solve_method}, must be either 'incremental' or "
                         f"'batched'")
    # NB: as JAX's gmres, x0's shapes are not checked here (a mismatch fails in A(x0))
    b, x0, size = _prepare(b, x0, check_shapes=False)
    M = _identity if M is None else _normalize_matvec(M, "M")
    A = _normalize_matvec(A, "A")
    maxiter = 10 * size if maxiter is None else maxiter
    restart = min(restart, size)
    b_norm = _norm(b)
    atol = ufuncs.maximum(tol * b_norm, atol)
    ptol = _norm(M(b)) * ufuncs.minimum(1.0, atol / b_norm)

    def solve(A, b):
        return _gmres_solve(A, b, x0, atol, ptol, restart, maxiter, M, cycles[solve_method])

    x = custom_linear_solve(A, b, solve=solve, transpose_solve=solve)
    info = lax_numpy.where(ufuncs.isnan(_norm(x)), -1, 0)
    return x, info
