"""`lax.linalg`: matrix decompositions and triangular solves, one primitive per decomposition.

Every primitive takes a batch of matrices `[..., m, n]` (the leading dimensions are batch
dimensions, which LAPACK's kernels loop over natively, so vmap moves its axis to the front).
On CPU each lowers, as in JAX, to the LAPACK kernels jaxlib ships (`lapack_spotrf_ffi`, ...,
registered by backend/xla.py the first time a module names one); a kernel's nonzero `info`
turns that matrix's results into NaNs, as JAX does. The NumPy/SciPy reference implementations
are the tests' oracle. The JVPs are JAX's formulas (cited beside each).

NB: only float32/float64/complex64/complex128 are accepted (the LAPACK types); JAX fails later,
in its lowering, for float16/bfloat16. The GPU solvers are not wired in: on CUDA these
primitives have no lowering yet.
"""
from __future__ import annotations

from functools import partial

import numpy as np

from pyjax._src import core
from pyjax._src.core import ShapedArray
from pyjax._src.interpreters import ad
from pyjax._src.interpreters.ad import Zero
from pyjax._src.lax import elementwise as lax_e
from pyjax._src.lax import reductions as lax_r
from pyjax._src.lax import shape_ops as lax_s
from pyjax._src.lax.control_flow.scan import fori_loop
from pyjax._src.lax.convert import convert_element_type, real_dtype
from pyjax._src.lax.dynamic_slicing import dynamic_index_in_dim
from pyjax._src.lax.linalg_common import (  # noqa: F401 (also re-exported to linalg_structured, pyjax.lax.linalg)
    _check_matrix, _def_batch_leading, _diag_matrix, _diagonal, EighImplementation,
    EigImplementation, _emit, _eye, _ffi_call, _full, _H, _info_aval, _INT32, _is_complex,
    _lapack_call, _matmul, _nan_unless, _np_per_matrix, _permute_rows, _real, _scipy_linalg,
    _slice_last2, SvdAlgorithm, symmetrize, _T, _tril, _triu, _zeros_like)
from pyjax._src.lax.utils import def_zero_jvp, standard_primitive


# -- cholesky ------------------------------------------------------------------------------------

cholesky_p = standard_primitive("cholesky")


def cholesky(x, *, symmetrize_input: bool = True):
    """The lower Cholesky factor L of Hermitian positive definite matrices x = L L^H.

    Matrices that are not positive definite give NaNs. `symmetrize_input` first replaces x by
    (x + x^H) / 2 (only the lower triangle is read otherwise).

    >>> lax.linalg.cholesky(jnp.array([[4., 2.], [2., 5.]]))   # [[2, 0], [1, 2]]
    """
    if symmetrize_input:
        x = symmetrize(x)
    return cholesky_p.bind(x)


@cholesky_p.def_abstract_eval
def _cholesky_abstract_eval(x):
    _check_matrix("cholesky", x, square=True)
    return ShapedArray(x.shape, x.dtype)


def _np_cholesky_one(x):
    try:
        return (np.linalg.cholesky(x),)
    except np.linalg.LinAlgError:
        return (np.tril(np.full_like(x, np.nan)),)


def _np_cholesky(x):
    out = _np_per_matrix(_np_cholesky_one, x)
    return out[0]


cholesky_p.np_impl = _np_cholesky


@cholesky_p.def_jvp
def _cholesky_jvp(primals, tangents):
    # L_dot = L phi(L^-1 A_dot L^-H), phi: the lower triangle with a halved diagonal
    # (Murray, "Differentiation of the Cholesky decomposition", arXiv:1602.07527)
    (x,), (x_dot,) = primals, tangents
    L = cholesky_p.bind(x)
    if type(x_dot) is Zero:
        return L, Zero(x_dot.aval)
    tmp = triangular_solve(L, x_dot, left_side=False, transpose_a=True, conjugate_a=True, lower=True)
    inner = triangular_solve(L, tmp, left_side=True, transpose_a=False, lower=True)
    shape = core.get_aval(x).shape
    halves = lax_e.add(_full(shape, 1, x_dot.aval.dtype), _eye(x_dot.aval.dtype, shape))
    return L, _matmul(L, lax_e.div(_tril(inner), halves))


_def_batch_leading(cholesky_p)


@cholesky_p.def_lowering
def _cholesky_lowering(ctx, x):
    aval = ctx.avals_in[0]
    batch = aval.shape[:-2]
    info = _info_aval(batch)
    out, code = _lapack_call(ctx, "potrf", [x], [aval], [aval, info], len(batch), aliases=[(0, 0)],
                             uplo="L")
    return _emit(ctx, lambda l, c: [_tril(_nan_unless(lax_e.eq(c, np.int32(0)), l))],
                 [aval, info], [out, code])[0]


# -- triangular_solve ----------------------------------------------------------------------------

triangular_solve_p = standard_primitive("triangular_solve")


def triangular_solve(a, b, *, left_side: bool = False, lower: bool = False,
                     transpose_a: bool = False, conjugate_a: bool = False,
                     unit_diagonal: bool = False):
    """Solve op(a) @ x = b (`left_side`) or x @ op(a) = b for x, a triangular.

    op transposes a if `transpose_a` and conjugates it if `conjugate_a`; only the `lower` (or
    upper) triangle of a is read, and its diagonal is taken as ones if `unit_diagonal`. a is
    [..., m, m]; b is [..., m, n] (left) or [..., n, m], or one dimension less (a vector).

    >>> lax.linalg.triangular_solve(L, b, left_side=True, lower=True)
    """
    a_aval, b_aval = core.get_aval(a), core.get_aval(b)
    conjugate_a = bool(conjugate_a) and _is_complex(a_aval.dtype)
    singleton = b_aval.ndim == a_aval.ndim - 1
    if singleton:
        b = lax_s.expand_dims(b, (b_aval.ndim if left_side else b_aval.ndim - 1,))
    out = triangular_solve_p.bind(a, b, left_side=bool(left_side), lower=bool(lower),
                                  transpose_a=bool(transpose_a), conjugate_a=conjugate_a,
                                  unit_diagonal=bool(unit_diagonal))
    if singleton:
        nd = core.get_aval(out).ndim
        out = lax_s.squeeze(out, (nd - 1 if left_side else nd - 2,))
    return out


@triangular_solve_p.def_abstract_eval
def _triangular_solve_abstract_eval(a, b, *, left_side, lower, transpose_a, conjugate_a,
                                    unit_diagonal):
    _check_matrix("triangular_solve", a, square=True, arg="matrix a")
    _check_matrix("triangular_solve", b, arg="right-hand side b")
    if a.dtype != b.dtype:
        raise TypeError(f"triangular_solve: a and b must have the same dtype, got "
                        f"{a.str_short()} and {b.str_short()}")
    if a.ndim != b.ndim:
        raise TypeError(f"triangular_solve: a and b must have the same number of batch dimensions, "
                        f"got {a.str_short()} and {b.str_short()}")
    m = b.shape[-2] if left_side else b.shape[-1]
    if a.shape[:-2] != b.shape[:-2] or a.shape[-1] != m:
        side = "b.shape[-2]" if left_side else "b.shape[-1]"
        raise ValueError(f"triangular_solve: Incompatible shapes for arguments to triangular_solve: "
                         f"{a.str_short()} and {b.str_short()} (batch dimensions must be equal and "
                         f"a.shape[-1] must equal {side} with left_side={left_side})")
    return ShapedArray(b.shape, b.dtype)


def _op_a_dot(a, *, lower, transpose_a, conjugate_a, unit_diagonal):
    """op(a_dot), the tangent of op(a): the triangle read (a unit diagonal is constant), then
    the transpose/conjugate."""
    k = 1 if unit_diagonal else 0
    a = _tril(a, -k) if lower else _triu(a, k)
    a = _T(a) if transpose_a else a
    return lax_e.conj(a) if conjugate_a else a


def _np_triangular_solve(a, b, *, left_side, lower, transpose_a, conjugate_a, unit_diagonal):
    a, b = np.asarray(a), np.asarray(b)
    k = 1 if unit_diagonal else 0
    a = np.tril(a, -k) if lower else np.triu(a, k)
    if unit_diagonal:
        a = a + np.eye(a.shape[-1], dtype=a.dtype)
    a = np.swapaxes(a, -1, -2) if transpose_a else a
    a = np.conj(a) if conjugate_a else a
    if left_side:
        return np.linalg.solve(a, b)
    return np.swapaxes(np.linalg.solve(np.swapaxes(a, -1, -2), np.swapaxes(b, -1, -2)), -1, -2)


triangular_solve_p.np_impl = _np_triangular_solve


@triangular_solve_p.def_jvp
def _triangular_solve_jvp(primals, tangents, **params):
    # linear in b; in a: d(op(a)^-1 b) = -op(a)^-1 op(da) x (left) or -x op(da) op(a)^-1 (right)
    (a, b), (a_dot, b_dot) = primals, tangents
    ans = triangular_solve_p.bind(a, b, **params)
    out = Zero(ad.tangent_aval(core.get_aval(ans)))
    if type(b_dot) is not Zero:
        out = ad.add_tangents(out, triangular_solve_p.bind(a, b_dot, **params))
    if type(a_dot) is not Zero:
        op_da = lax_e.neg(_op_a_dot(a_dot, **{k: v for k, v in params.items() if k != "left_side"}))
        rhs = _matmul(op_da, ans) if params["left_side"] else _matmul(ans, op_da)
        out = ad.add_tangents(out, triangular_solve_p.bind(a, rhs, **params))
    return ans, out


@triangular_solve_p.def_transpose
def _triangular_solve_transpose(ct, a, b, *, transpose_a, **params):
    # linear in b only: the transpose of op(a)^-1 is (op(a)^T)^-1 (not conjugated)
    if type(ct) is Zero:
        return [None, None]
    return [None, triangular_solve_p.bind(a, ct, transpose_a=not transpose_a, **params)]


_def_batch_leading(triangular_solve_p)


@triangular_solve_p.def_lowering
def _triangular_solve_lowering(ctx, a, b, *, left_side, lower, transpose_a, conjugate_a,
                               unit_diagonal):
    a_aval, b_aval = ctx.avals_in
    if conjugate_a and not transpose_a:  # LAPACK's trans='C' conjugates only with a transpose
        a = _emit(ctx, lambda x: [lax_e.conj(x)], [a_aval], [a])[0]
    trans = "N" if not transpose_a else ("C" if conjugate_a else "T")
    return _lapack_call(ctx, "trsm", [a, b], [a_aval, b_aval], [b_aval], a_aval.ndim - 2,
                        aliases=[(0, 1)], side="L" if left_side else "R",
                        uplo="L" if lower else "U", trans_x=trans,
                        diag="U" if unit_diagonal else "N")[0]


# -- lu_pivots_to_permutation --------------------------------------------------------------------

lu_pivots_to_permutation_p = standard_primitive("lu_pivots_to_permutation")


def lu_pivots_to_permutation(pivots, permutation_size: int):
    """The permutation [..., permutation_size] that LU's row swaps `pivots` [..., k] (row i was
    swapped with row pivots[i], in order) apply to the rows 0..permutation_size-1.

    >>> lax.linalg.lu_pivots_to_permutation(jnp.array([2, 2, 2], jnp.int32), 3)   # [2, 0, 1]
    """
    return lu_pivots_to_permutation_p.bind(pivots, permutation_size=int(permutation_size))


@lu_pivots_to_permutation_p.def_abstract_eval
def _lu_pivots_to_permutation_abstract_eval(pivots, *, permutation_size):
    if pivots.ndim < 1 or pivots.dtype != _INT32:
        raise TypeError(f"lu_pivots_to_permutation: pivots must be an int32 array of rank >= 1, "
                        f"got {pivots.str_short()}")
    if permutation_size < pivots.shape[-1]:
        raise ValueError(f"lu_pivots_to_permutation: Output permutation size {permutation_size} "
                         f"has to exceed the trailing dimension of the pivots, got {pivots.str_short()}")
    return ShapedArray(pivots.shape[:-1] + (permutation_size,), _INT32)


def _np_lu_pivots_to_permutation(pivots, *, permutation_size):
    pivots = np.asarray(pivots)
    perm = np.broadcast_to(np.arange(permutation_size, dtype=np.int32),
                           pivots.shape[:-1] + (permutation_size,)).copy()
    for idx in np.ndindex(*pivots.shape[:-1]):
        p = perm[idx]
        for i, j in enumerate(pivots[idx]):
            p[i], p[j] = p[j], p[i]
    return perm


lu_pivots_to_permutation_p.np_impl = _np_lu_pivots_to_permutation
def_zero_jvp(lu_pivots_to_permutation_p)
_def_batch_leading(lu_pivots_to_permutation_p)


def _pivots_to_permutation_loop(pivots, *, permutation_size):
    """The swaps as a loop over the pivots; each swap compares against an iota, so the loop
    body is the same for every matrix of a batch (no gathers)."""
    pa = core.get_aval(pivots)
    nb = pa.ndim - 1
    shape = pa.shape[:-1] + (permutation_size,)
    iota = lax_s.broadcasted_iota(_INT32, shape, nb)
    if pa.shape[-1] == 0:
        return iota  # no pivots (an empty matrix): no swaps, and no loop body to trace

    def swap(i, perm):
        i = convert_element_type(i, _INT32)  # (fori_loop's index is a weak int: int64 under x64)
        p_i = lax_s.broadcast_in_dim(dynamic_index_in_dim(pivots, i, nb, keepdims=False),
                                     shape, tuple(range(nb)))
        is_i, is_p = lax_e.eq(iota, i), lax_e.eq(iota, p_i)
        zero = _zeros_like(perm)
        at_i = lax_r.reduce_sum(lax_e.select(is_i, perm, zero), (nb,))
        at_p = lax_r.reduce_sum(lax_e.select(is_p, perm, zero), (nb,))
        at_i, at_p = (lax_s.broadcast_in_dim(v, shape, tuple(range(nb))) for v in (at_i, at_p))
        return lax_e.select(is_i, at_p, lax_e.select(is_p, at_i, perm))
    return fori_loop(np.int32(0), np.int32(pa.shape[-1]), swap, iota)


@lu_pivots_to_permutation_p.def_lowering
def _lu_pivots_to_permutation_lowering(ctx, pivots, *, permutation_size):
    return _emit(ctx, lambda p: [_pivots_to_permutation_loop(p, permutation_size=permutation_size)],
                 ctx.avals_in, [pivots])[0]


# -- lu ------------------------------------------------------------------------------------------

lu_p = standard_primitive("lu", multiple_results=True)


def lu(x):
    """LU decomposition with partial pivoting: `(lu, pivots, permutation)` with
    x[..., permutation, :] == L @ U, L unit lower triangular (below lu's diagonal), U upper
    triangular (lu's upper triangle). x is [..., m, n]; pivots [..., min(m, n)] are the row
    swaps, permutation [..., m] their result.

    >>> lu, pivots, perm = lax.linalg.lu(a)
    """
    return tuple(lu_p.bind(x))


@lu_p.def_abstract_eval
def _lu_abstract_eval(x):
    _check_matrix("lu", x)
    *batch, m, n = x.shape
    batch = tuple(batch)
    return [ShapedArray(x.shape, x.dtype), ShapedArray(batch + (min(m, n),), _INT32),
            ShapedArray(batch + (m,), _INT32)]


def _np_lu_one(x):
    lu_, piv = _scipy_linalg().lu_factor(x, check_finite=False)
    piv = piv.astype(np.int32)
    return lu_, piv, _np_lu_pivots_to_permutation(piv, permutation_size=x.shape[0])


def _np_lu(x):
    x = np.asarray(x)
    if min(x.shape[-2:]) == 0:
        *batch, m, n = x.shape
        return [x, np.zeros((*batch, 0), np.int32),
                np.broadcast_to(np.arange(m, dtype=np.int32), (*batch, m))]
    return list(_np_per_matrix(_np_lu_one, x, n_out=3))


lu_p.np_impl = _np_lu


@lu_p.def_jvp
def _lu_jvp(primals, tangents):
    # L' = L tril(L^-1 P A' U^-1, -1), U' = triu(L^-1 P A' U^-1) U (De Hoog, Anderssen & Lukas,
    # "Differentiation of matrix functionals using triangular factorization"), with L and U
    # padded to square m x m and n x n for rectangular matrices
    (x,), (x_dot,) = primals, tangents
    lu_, pivots, perm = lu_p.bind(x)
    zeros = [Zero(ad.tangent_aval(core.get_aval(v))) for v in (pivots, perm)]
    if type(x_dot) is Zero:
        return [lu_, pivots, perm], [Zero(x_dot.aval)] + zeros
    aval = core.get_aval(x)
    *batch, m, n = aval.shape
    k, dt, nb = min(m, n), aval.dtype, len(batch)
    l = lax_s.pad(_tril(_slice_last2(lu_, m, k), -1), np.array(0, dt),
                  [(0, 0, 0)] * (nb + 1) + [(0, m - k, 0)])
    l = lax_e.add(l, _eye(dt, (*batch, m, m)))
    u = lax_s.pad(_triu(_slice_last2(lu_, k, n)), np.array(0, dt),
                  [(0, 0, 0)] * nb + [(0, n - k, 0), (0, 0, 0)])
    past_k = lax_e.ge(lax_s.broadcasted_iota(_INT32, (*batch, n, n), nb), np.int32(k))
    u_eye = lax_e.mul(_eye(dt, (*batch, n, n)), convert_element_type(past_k, dt))
    u = lax_e.add(u, u_eye)
    la = triangular_solve(l, _permute_rows(x_dot, perm), left_side=True, lower=True,
                          unit_diagonal=True)
    lau = triangular_solve(u, la, left_side=False, lower=False)
    l_dot = _matmul(l, _tril(lau, -1))
    u_dot = _matmul(_triu(lau), u)
    return [lu_, pivots, perm], [lax_e.add(l_dot, u_dot)] + zeros


_def_batch_leading(lu_p)


@lu_p.def_lowering
def _lu_lowering(ctx, x):
    aval = ctx.avals_in[0]
    lu_aval, piv_aval, perm_aval = ctx.avals_out
    batch = aval.shape[:-2]
    info = _info_aval(batch)
    lu_, piv, code = _lapack_call(ctx, "getrf", [x], [aval], [aval, piv_aval, info], len(batch),
                                  aliases=[(0, 0)])

    def post(lu_, piv, code):
        piv = lax_e.sub(piv, np.int32(1))  # LAPACK's pivots count from 1
        # info > 0 (an exactly singular U) still is a factorization; info < 0 is an error
        lu_ = _nan_unless(lax_e.ge(code, np.int32(0)), lu_)
        return [lu_, piv, lu_pivots_to_permutation(piv, perm_aval.shape[-1])]
    return _emit(ctx, post, [aval, piv_aval, info], [lu_, piv, code])


def _lu_solve(lu_, perm, b, trans=0):
    """Solve a x = b (trans=0), a^T x = b (1) or a^H x = b (2) from a's LU factors; b is
    [..., m, k] with the same batch dimensions."""
    if trans == 0:
        x = _permute_rows(b, perm)
        x = triangular_solve(lu_, x, left_side=True, lower=True, unit_diagonal=True)
        return triangular_solve(lu_, x, left_side=True, lower=False)
    conj = trans == 2
    x = triangular_solve(lu_, b, left_side=True, lower=False, transpose_a=True, conjugate_a=conj)
    x = triangular_solve(lu_, x, left_side=True, lower=True, unit_diagonal=True, transpose_a=True,
                         conjugate_a=conj)
    return _permute_rows(x, _inverse_permutation(perm))


def _inverse_permutation(perm):
    """inv[perm[i]] = i, as a one-hot product (see _permute_rows)."""
    pa = core.get_aval(perm)
    m = pa.shape[-1]
    shape = pa.shape + (m,)
    onehot = lax_e.eq(lax_s.broadcast_in_dim(perm, shape, tuple(range(pa.ndim))),
                      lax_s.broadcasted_iota(_INT32, shape, pa.ndim))   # [i, j]: perm[i] == j
    rows = lax_s.broadcasted_iota(_INT32, shape, pa.ndim - 1)          # [i, j]: i
    return lax_r.reduce_sum(lax_e.select(onehot, rows, _zeros_like(rows)), (pa.ndim - 1,))


def _solve(a, b):
    """a x = b for square a [..., n, n] and b [..., n, k] with the same batch dimensions,
    through a's LU factors (differentiable in both)."""
    lu_, _, perm = lu(a)
    return _lu_solve(lu_, perm, b)


# -- householder_product -------------------------------------------------------------------------

householder_product_p = standard_primitive("householder_product")


def householder_product(a, taus):
    """The product Q [..., m, n] of the Householder reflectors I - tau_i v_i v_i^H stored below
    the diagonal of a [..., m, n] (as geqrf leaves them), with taus [..., k], k <= n <= m
    (LAPACK's orgqr/ungqr)."""
    return householder_product_p.bind(a, taus)


@householder_product_p.def_abstract_eval
def _householder_product_abstract_eval(a, taus):
    _check_matrix("householder_product", a, arg="matrix a")
    *batch, m, n = a.shape
    if taus.dtype != a.dtype or taus.shape[:-1] != tuple(batch) or taus.ndim != a.ndim - 1:
        raise ValueError(f"householder_product: taus must be [..., k] with the batch dimensions "
                         f"and dtype of a, got a {a.str_short()} and taus {taus.str_short()}")
    if m < n or taus.shape[-1] > n:
        raise ValueError(f"householder_product: needs m >= n >= k for a [..., m, n] and taus "
                         f"[..., k], got a {a.str_short()} and taus {taus.str_short()}")
    return ShapedArray(a.shape, a.dtype)


def _np_householder_product_one(a, taus):
    m, n = a.shape
    q = np.eye(m, n, dtype=a.dtype)
    for i in reversed(range(taus.shape[0])):
        v = np.concatenate([np.zeros(i, a.dtype), [1], a[i + 1:, i]]).astype(a.dtype)
        q = q - taus[i] * np.outer(v, v.conj() @ q)
    return (q,)


householder_product_p.np_impl = lambda a, taus: _np_per_matrix(_np_householder_product_one, a, taus)[0]
_def_batch_leading(householder_product_p)


@householder_product_p.def_lowering
def _householder_product_lowering(ctx, a, taus):
    a_aval, t_aval = ctx.avals_in
    return _lapack_call(ctx, "ungqr" if _is_complex(a_aval.dtype) else "orgqr", [a, taus],
                        [a_aval, t_aval], [a_aval], a_aval.ndim - 2, aliases=[(0, 0)])[0]


# -- geqrf ---------------------------------------------------------------------------------------

geqrf_p = standard_primitive("geqrf", multiple_results=True)


def geqrf(a):
    """LAPACK's QR factorization of a [..., m, n] as it stores it: `(a, taus)` with R in a's
    upper triangle and Q as Householder reflectors below the diagonal and in taus [..., k],
    k = min(m, n) (jnp.linalg.qr's mode 'raw'; lineax's QR solver applies Q through ormqr)."""
    a, taus = geqrf_p.bind(a)
    return a, taus


@geqrf_p.def_abstract_eval
def _geqrf_abstract_eval(a):
    _check_matrix("geqrf", a)
    *batch, m, n = a.shape
    return [ShapedArray(a.shape, a.dtype), ShapedArray(tuple(batch) + (min(m, n),), a.dtype)]


geqrf_p.np_impl = lambda a: list(_np_per_matrix(
    lambda x: _scipy_linalg().qr(x, mode="raw")[0], a, n_out=2))
_def_batch_leading(geqrf_p)


@geqrf_p.def_lowering
def _geqrf_lowering(ctx, a):
    aval = ctx.avals_in[0]
    return _lapack_call(ctx, "geqrf", [a], [aval], list(ctx.avals_out), aval.ndim - 2,
                        aliases=[(0, 0)])


# -- qr ------------------------------------------------------------------------------------------

qr_p = standard_primitive("qr", multiple_results=True)


def qr(x, *, pivoting: bool = False, full_matrices: bool = True, use_magma=None):
    """QR decomposition x = Q R of x [..., m, n]: Q [..., m, k] with orthonormal columns and R
    [..., k, n] upper triangular, k = m if `full_matrices` else min(m, n). With `pivoting`
    (column pivoting, LAPACK's geqp3) also the permutation p [..., n] with x[..., p] = Q R.

    >>> q, r = lax.linalg.qr(a, full_matrices=False)
    """
    out = qr_p.bind(x, pivoting=bool(pivoting), full_matrices=bool(full_matrices))
    return tuple(out)


@qr_p.def_abstract_eval
def _qr_abstract_eval(x, *, pivoting, full_matrices):
    _check_matrix("qr", x)
    *batch, m, n = x.shape
    batch = tuple(batch)
    k = m if full_matrices else min(m, n)
    out = [ShapedArray(batch + (m, k), x.dtype), ShapedArray(batch + (k, n), x.dtype)]
    return out + [ShapedArray(batch + (n,), _INT32)] if pivoting else out


def _np_qr(x, *, pivoting, full_matrices):
    x = np.asarray(x)
    if pivoting:
        mode = "full" if full_matrices else "economic"
        q, r, p = _np_per_matrix(lambda a: _scipy_linalg().qr(a, mode=mode, pivoting=True), x, n_out=3)
        return [q, r, np.asarray(p, np.int32)]
    return list(np.linalg.qr(x, mode="complete" if full_matrices else "reduced"))


qr_p.np_impl = _np_qr


def _thin_qr_jvp(q, r, dx):
    # for m >= n (Townsend, "Differentiating the QR decomposition"): with C = Q^H dX R^-1,
    # dQ = Q (dO - C) + dX R^-1 and dR = (C - dO) R, dO the skew-Hermitian part built from
    # C's strictly lower triangle (plus i*Im(diag C) for complex inputs)
    dx_rinv = triangular_solve(r, dx)
    qt_dx_rinv = _matmul(_H(q), dx_rinv)
    low = _tril(qt_dx_rinv, -1)
    do = lax_e.sub(low, _H(low))
    aval = core.get_aval(qt_dx_rinv)
    if _is_complex(aval.dtype):
        imag_diag = lax_e.sub(qt_dx_rinv, convert_element_type(_real(qt_dx_rinv), aval.dtype))
        do = lax_e.add(do, lax_e.mul(_eye(aval.dtype, aval.shape), imag_diag))
    dq = lax_e.add(_matmul(q, lax_e.sub(do, qt_dx_rinv)), dx_rinv)
    dr = _matmul(lax_e.sub(qt_dx_rinv, do), r)
    return dq, dr


@qr_p.def_jvp
def _qr_jvp(primals, tangents, *, pivoting, full_matrices):
    (x,), (dx,) = primals, tangents
    outs = qr_p.bind(x, pivoting=pivoting, full_matrices=full_matrices)
    q, r = outs[:2]
    zeros = [Zero(ad.tangent_aval(core.get_aval(outs[2])))] if pivoting else []
    if type(dx) is Zero:
        return outs, [Zero(ad.tangent_aval(core.get_aval(o))) for o in outs]
    *batch, m, n = core.get_aval(x).shape
    if pivoting:
        dx = _T(_permute_rows(_T(dx), outs[2]))  # dx[..., p]
    if m < n:
        # X = [X1 X2] with X1 square: X1 = Q R1 gives dQ, dR1; R2 = Q^H X2 gives dR2
        if pivoting:
            x = _T(_permute_rows(_T(x), outs[2]))
        x2 = lax_s.slice_in_dim(x, m, n, axis=len(batch) + 1)
        dx1 = lax_s.slice_in_dim(dx, 0, m, axis=len(batch) + 1)
        dx2 = lax_s.slice_in_dim(dx, m, n, axis=len(batch) + 1)
        dq, dr1 = _thin_qr_jvp(q, _slice_last2(r, m, m), dx1)
        dr2 = lax_e.add(_matmul(_H(dq), x2), _matmul(_H(q), dx2))
        return outs, [dq, lax_s.concatenate([dr1, dr2], len(batch) + 1)] + zeros
    if full_matrices and m != n:
        raise NotImplementedError("qr: the derivative of full_matrices=True with m > n is not "
                                  "implemented in pyjax (use full_matrices=False)")
    dq, dr = _thin_qr_jvp(q, r, dx)
    return outs, [dq, dr] + zeros


_def_batch_leading(qr_p)


@qr_p.def_lowering
def _qr_lowering(ctx, x, *, pivoting, full_matrices):
    aval = ctx.avals_in[0]
    *batch, m, n = aval.shape
    batch, nb, k = tuple(batch), len(batch), min(m, n)
    taus_aval = ShapedArray(batch + (k,), aval.dtype)
    if pivoting:
        jpvt_aval = ShapedArray(batch + (n,), _INT32)
        jpvt = ctx.const(0, _INT32, jpvt_aval.shape)
        a, p, taus = _lapack_call(ctx, "geqp3", [x, jpvt], [aval, jpvt_aval],
                                  [aval, jpvt_aval, taus_aval], nb, aliases=[(0, 0), (1, 1)])
    else:
        a, taus = _lapack_call(ctx, "geqrf", [x], [aval], [aval, taus_aval], nb, aliases=[(0, 0)])
    q_cols = m if (m < n or full_matrices) else n
    q_in = ShapedArray(batch + (m, q_cols), aval.dtype)
    if q_cols != n:  # the reflectors of a wide matrix fill m columns; a full Q of a tall one too
        a_q = _emit(ctx, lambda a: [_slice_last2(a, m, m)] if m < n else
                    [lax_s.pad(a, np.array(0, aval.dtype), [(0, 0, 0)] * (nb + 1) + [(0, m - n, 0)])],
                    [aval], [a])[0]
    else:
        a_q = a
    fn = "ungqr" if _is_complex(aval.dtype) else "orgqr"
    q = _lapack_call(ctx, fn, [a_q, taus], [q_in, taus_aval], [q_in], nb, aliases=[(0, 0)])[0]
    r_rows = ctx.avals_out[1].shape[-2]

    def post(a, *p):  # r_rows <= m: R is the top of a's upper triangle
        return [_triu(_slice_last2(a, r_rows, n))] + ([lax_e.sub(p[0], np.int32(1))] if p else [])  # geqp3: from 1
    rest = _emit(ctx, post, [aval] + ([jpvt_aval] if pivoting else []), [a] + ([p] if pivoting else []))
    return [q] + rest


# -- eigh ----------------------------------------------------------------------------------------

eigh_p = standard_primitive("eigh", multiple_results=True)


def eigh(x, *, lower: bool = True, symmetrize_input: bool = True, sort_eigenvalues: bool = True,
         subset_by_index=None, implementation=None):
    """Eigendecomposition of Hermitian matrices: `(v, w)` with x v = v diag(w), w real and
    ascending, v's columns orthonormal. Only the `lower` (or upper) triangle is read unless
    `symmetrize_input` first replaces x by (x + x^H) / 2. `subset_by_index=(lo, hi)` keeps the
    eigenpairs lo..hi-1.

    >>> v, w = lax.linalg.eigh(a)
    """
    if symmetrize_input:
        x = symmetrize(x)
    if subset_by_index is not None:
        subset_by_index = tuple(int(i) for i in subset_by_index)
    v, w = eigh_p.bind(x, lower=bool(lower), sort_eigenvalues=bool(sort_eigenvalues),
                       subset_by_index=subset_by_index)
    return v, w


@eigh_p.def_abstract_eval
def _eigh_abstract_eval(x, *, lower, sort_eigenvalues, subset_by_index):
    _check_matrix("eigh", x, square=True)
    *batch, n, _ = x.shape
    batch = tuple(batch)
    k = n
    if subset_by_index is not None:
        lo, hi = subset_by_index
        if not 0 <= lo < hi <= n:
            raise ValueError(f"eigh: subset_by_index must be (lo, hi) with 0 <= lo < hi <= {n}, "
                             f"got {subset_by_index}")
        k = hi - lo
    return [ShapedArray(batch + (n, k), x.dtype), ShapedArray(batch + (k,), real_dtype(x.dtype))]


def _np_eigh(x, *, lower, sort_eigenvalues, subset_by_index):
    w, v = np.linalg.eigh(np.asarray(x), UPLO="L" if lower else "U")
    if subset_by_index is not None:
        lo, hi = subset_by_index
        w, v = w[..., lo:hi], v[..., lo:hi]
    return [v, w]


eigh_p.np_impl = _np_eigh


@eigh_p.def_jvp
def _eigh_jvp(primals, tangents, *, lower, sort_eigenvalues, subset_by_index):
    # nondegenerate perturbation theory (Giles, "An extended collection of matrix derivative
    # results", 3.1): with M = V^H dA V, dw = Re diag(M), dV = V (F * M), F_ij = 1/(w_j - w_i)
    (x,), (x_dot,) = primals, tangents
    n = core.get_aval(x).shape[-1]
    if subset_by_index is not None and subset_by_index != (0, n):
        raise NotImplementedError("eigh: derivatives are not defined for a partial "
                                  "eigendecomposition (subset_by_index)")
    v, w_real = eigh_p.bind(symmetrize(x), lower=lower, sort_eigenvalues=sort_eigenvalues,
                            subset_by_index=subset_by_index)
    if type(x_dot) is Zero:
        return [v, w_real], [Zero(ad.tangent_aval(core.get_aval(o))) for o in (v, w_real)]
    dt = core.get_aval(x).dtype
    w = convert_element_type(w_real, dt)
    vdag_adot_v = _matmul(_matmul(_H(v), x_dot), v)
    dv = _matmul(v, lax_e.mul(_inverse_gaps(w), vdag_adot_v))
    dw = _real(_diagonal(vdag_adot_v))
    return [v, w_real], [dv, dw]


def _inverse_gaps(w):
    """F_ij = 1 / (w_j - w_i) off the diagonal, 0 on it (no NaNs from the diagonal)."""
    wa = core.get_aval(w)
    shape = wa.shape + wa.shape[-1:]
    nd = wa.ndim
    wj = lax_s.broadcast_in_dim(w, shape, tuple(range(nd - 1)) + (nd,))
    wi = lax_s.broadcast_in_dim(w, shape, tuple(range(nd)))
    eye = _eye(wa.dtype, shape)
    return lax_e.sub(lax_e.integer_pow(lax_e.add(eye, lax_e.sub(wj, wi)), -1), eye)


_def_batch_leading(eigh_p)


@eigh_p.def_lowering
def _eigh_lowering(ctx, x, *, lower, sort_eigenvalues, subset_by_index):
    aval = ctx.avals_in[0]
    *batch, n, _ = aval.shape
    batch = tuple(batch)
    w_aval, info = ShapedArray(batch + (n,), real_dtype(aval.dtype)), _info_aval(batch)
    fn = "heevd" if _is_complex(aval.dtype) else "syevd"
    v, w, code = _lapack_call(ctx, fn, [x], [aval], [aval, w_aval, info], len(batch),
                              aliases=[(0, 0)], mode="V", uplo="L" if lower else "U")

    def post(v, w, code):  # LAPACK sorts the eigenvalues in ascending order already
        ok = lax_e.eq(code, np.int32(0))
        v, w = _nan_unless(ok, v), _nan_unless(ok, w)
        if subset_by_index is not None:
            lo, hi = subset_by_index
            v = lax_s.slice_in_dim(v, lo, hi, axis=len(batch) + 1)
            w = lax_s.slice_in_dim(w, lo, hi, axis=len(batch))
        return [v, w]
    return _emit(ctx, post, [aval, w_aval, info], [v, w, code])


# -- svd -----------------------------------------------------------------------------------------

svd_p = standard_primitive("svd", multiple_results=True)


def svd(x, *, full_matrices: bool = True, compute_uv: bool = True, subset_by_index=None,
        algorithm=None):
    """Singular value decomposition x = U diag(s) Vh: returns `(U, s, Vh)`, or s alone without
    `compute_uv`. s is real and descending; U is [..., m, m] and Vh [..., n, n] with
    `full_matrices`, else [..., m, k] and [..., k, n] (k = min(m, n)).

    >>> u, s, vh = lax.linalg.svd(a, full_matrices=False)
    """
    if subset_by_index is not None:
        subset_by_index = tuple(int(i) for i in subset_by_index)
    out = svd_p.bind(x, full_matrices=bool(full_matrices), compute_uv=bool(compute_uv),
                     subset_by_index=subset_by_index,
                     algorithm=None if algorithm is None else SvdAlgorithm(algorithm))
    if not compute_uv:
        return out[0]
    s, u, vh = out  # the primitive's order (JAX's): s first
    return u, s, vh


@svd_p.def_abstract_eval
def _svd_abstract_eval(x, *, full_matrices, compute_uv, subset_by_index, algorithm):
    _check_matrix("svd", x)
    *batch, m, n = x.shape
    batch = tuple(batch)
    rank = min(m, n)
    if subset_by_index is not None:
        lo, hi = subset_by_index
        if full_matrices and subset_by_index != (0, rank):
            raise ValueError("svd: full_matrices and subset_by_index cannot both be set")
        if not 0 <= lo < hi <= rank:
            raise ValueError(f"svd: subset_by_index must be (lo, hi) with 0 <= lo < hi <= {rank}, "
                             f"got {subset_by_index}")
        rank = hi - lo
    s = ShapedArray(batch + (rank,), real_dtype(x.dtype))
    if not compute_uv:
        return [s]
    u = ShapedArray(batch + (m, m if full_matrices else rank), x.dtype)
    vh = ShapedArray(batch + (n if full_matrices else rank, n), x.dtype)
    return [s, u, vh]


def _np_svd(x, *, full_matrices, compute_uv, subset_by_index, algorithm):
    x = np.asarray(x)
    if not compute_uv:
        s = np.linalg.svd(x, compute_uv=False)
        return [s if subset_by_index is None else s[..., slice(*subset_by_index)]]
    u, s, vh = np.linalg.svd(x, full_matrices=full_matrices)
    if subset_by_index is not None:
        sl = slice(*subset_by_index)
        u, s, vh = u[..., :, sl], s[..., sl], vh[..., sl, :]
    return [s, u, vh]


svd_p.np_impl = _np_svd


@svd_p.def_jvp
def _svd_jvp(primals, tangents, *, full_matrices, compute_uv, subset_by_index, algorithm):
    # Townsend / Giles: with dS = U^H dA V, ds = Re diag(dS); dU and dV from the gaps
    # F_ij = 1 / (s_j^2 - s_i^2), plus the components outside the range for m != n
    (x,), (dx,) = primals, tangents
    *batch, m, n = core.get_aval(x).shape
    if compute_uv and full_matrices and m != n:
        raise NotImplementedError("svd: the derivative with full_matrices=True of a non-square "
                                  "matrix is not implemented (as in JAX)")
    s, U, Vt = svd_p.bind(x, full_matrices=False, compute_uv=True, subset_by_index=subset_by_index,
                          algorithm=algorithm)
    outs = [s, U, Vt] if compute_uv else [s]
    if type(dx) is Zero:
        return outs, [Zero(ad.tangent_aval(core.get_aval(o))) for o in outs]
    dt = core.get_aval(x).dtype
    Ut, V = _H(U), _H(Vt)
    dS = _matmul(_matmul(Ut, dx), V)
    ds = _real(_diagonal(dS))
    if not compute_uv:
        return outs, [ds]
    sa = core.get_aval(s)
    k = sa.shape[-1]
    mat = sa.shape + (k,)
    s_row = lax_s.broadcast_in_dim(s, mat, tuple(range(sa.ndim - 1)) + (sa.ndim,))   # [i, j]: s_j
    s_col = lax_s.broadcast_in_dim(s, mat, tuple(range(sa.ndim)))                      # [i, j]: s_i
    eye = _eye(sa.dtype, mat)
    gaps = lax_e.mul(lax_e.add(s_row, s_col), lax_e.sub(s_row, s_col))
    F = lax_e.sub(lax_e.div(_full(mat, 1, sa.dtype), lax_e.add(gaps, eye)), eye)
    s_zero = convert_element_type(lax_e.eq(s, _zeros_like(s)), sa.dtype)
    s_inv = lax_e.sub(lax_e.div(_full(sa.shape, 1, sa.dtype), lax_e.add(s, s_zero)), s_zero)
    cast = partial(convert_element_type, new_dtype=dt)
    s_row_c, s_col_c, F_c = cast(s_row), cast(s_col), cast(F)
    dSS, SdS = lax_e.mul(s_row_c, dS), lax_e.mul(s_col_c, dS)
    dUdV_diag = lax_e.mul(lax_e.mul(lax_e.sub(dS, _H(dS)), cast(_diag_matrix(s_inv))), 0.5)
    dU = _matmul(U, lax_e.add(lax_e.mul(F_c, lax_e.add(dSS, _H(dSS))), dUdV_diag))
    dV = _matmul(V, lax_e.mul(F_c, lax_e.add(SdS, _H(SdS))))
    if m > n:
        dAV = _matmul(dx, V)
        dU = lax_e.add(dU, lax_e.div(lax_e.sub(dAV, _matmul(U, _matmul(Ut, dAV))),
                                     _bcast_rows(cast(s), m)))
    if n > m:
        dAHU = _matmul(_H(dx), U)
        dV = lax_e.add(dV, lax_e.div(lax_e.sub(dAHU, _matmul(V, _matmul(Vt, dAHU))),
                                     _bcast_rows(cast(s), n)))
    return outs, [ds, dU, _H(dV)]


def _bcast_rows(s, rows):
    """s [..., k] repeated as the rows of a [..., rows, k] matrix."""
    sa = core.get_aval(s)
    return lax_s.broadcast_in_dim(s, sa.shape[:-1] + (rows, sa.shape[-1]),
                                  tuple(range(sa.ndim - 1)) + (sa.ndim,))


_def_batch_leading(svd_p)


@svd_p.def_lowering
def _svd_lowering(ctx, x, *, full_matrices, compute_uv, subset_by_index, algorithm):
    aval = ctx.avals_in[0]
    *batch, m, n = aval.shape
    batch, k = tuple(batch), min(m, n)
    full = full_matrices or not compute_uv  # LAPACK's buffers for jobz='N' are JAX's too
    s_aval = ShapedArray(batch + (k,), real_dtype(aval.dtype))
    u_aval = ShapedArray(batch + (m, m if full else k), aval.dtype)
    vt_aval = ShapedArray(batch + (n if full else k, n), aval.dtype)
    info = _info_aval(batch)
    mode = "N" if not compute_uv else ("A" if full_matrices else "S")
    _, s, u, vt, code = _lapack_call(ctx, "gesdd", [x], [aval], [aval, s_aval, u_aval, vt_aval, info],
                                     len(batch), aliases=[(0, 0)], mode=mode)

    def post(s, u, vt, code):
        ok = lax_e.eq(code, np.int32(0))
        s = _nan_unless(ok, s)
        if subset_by_index is not None:
            lo, hi = subset_by_index
            s = lax_s.slice_in_dim(s, lo, hi, axis=len(batch))
            u = lax_s.slice_in_dim(u, lo, hi, axis=len(batch) + 1)
            vt = lax_s.slice_in_dim(vt, lo, hi, axis=len(batch))
        return [s, _nan_unless(ok, u), _nan_unless(ok, vt)] if compute_uv else [s]
    return _emit(ctx, post, [s_aval, u_aval, vt_aval, info], [s, u, vt, code])


# -- eig -----------------------------------------------------------------------------------------

eig_p = standard_primitive("eig", multiple_results=True)


def eig(x, *, compute_left_eigenvectors: bool = True, compute_right_eigenvectors: bool = True,
        enable_eigvec_derivs: bool = False, implementation=None, use_magma=None):
    """Eigendecomposition of general square matrices (LAPACK's geev): `[w, vl, vr]` (complex),
    the eigenvector outputs present as requested; vl^H x = diag(w) vl^H and x vr = vr diag(w),
    each vector of unit norm with its largest component real.

    >>> w, vl, vr = lax.linalg.eig(a)
    """
    return eig_p.bind(x, compute_left_eigenvectors=bool(compute_left_eigenvectors),
                      compute_right_eigenvectors=bool(compute_right_eigenvectors),
                      enable_eigvec_derivs=bool(enable_eigvec_derivs))


def _complex_dtype(dt):
    return np.dtype(np.complex128 if np.dtype(dt) in (np.float64, np.complex128) else np.complex64)


@eig_p.def_abstract_eval
def _eig_abstract_eval(x, *, compute_left_eigenvectors, compute_right_eigenvectors,
                       enable_eigvec_derivs):
    _check_matrix("eig", x, square=True)
    *batch, n, _ = x.shape
    cdt = _complex_dtype(x.dtype)
    out = [ShapedArray(tuple(batch) + (n,), cdt)]
    out += [ShapedArray(x.shape, cdt)] * (compute_left_eigenvectors + compute_right_eigenvectors)
    return out


def _np_eig(x, *, compute_left_eigenvectors, compute_right_eigenvectors, enable_eigvec_derivs):
    x = np.asarray(x)
    cdt = _complex_dtype(x.dtype)
    w, vl, vr = _np_per_matrix(lambda a: _scipy_linalg().eig(a, left=True, right=True), x, n_out=3)
    out = [np.asarray(w, cdt)]
    if compute_left_eigenvectors:
        out.append(np.asarray(vl, cdt))
    if compute_right_eigenvectors:
        out.append(np.asarray(vr, cdt))
    return out


eig_p.np_impl = _np_eig


@eig_p.def_jvp
def _eig_jvp(primals, tangents, *, compute_left_eigenvectors, compute_right_eigenvectors,
             enable_eigvec_derivs):
    # eigenvalues: dw = diag(V^-1 dA V) with V the right eigenvectors; eigenvectors (opt-in,
    # as JAX): nondegenerate perturbation theory, normalized as geev normalizes them
    (x,), (dx,) = primals, tangents
    vectors = compute_left_eigenvectors or compute_right_eigenvectors
    if vectors and not enable_eigvec_derivs:
        raise NotImplementedError(
            "eig: derivatives of non-symmetric eigenvectors are valid only under assumptions on "
            "the input that cannot be checked; pass enable_eigvec_derivs=True to "
            "lax.linalg.eig to opt in (see https://github.com/jax-ml/jax/issues/2748)")
    # NB: the eigenvectors this rule uses are differentiated too (JAX refuses): eigenvalues
    # have second derivatives
    outs = eig_p.bind(x, compute_left_eigenvectors=compute_left_eigenvectors,
                      compute_right_eigenvectors=True, enable_eigvec_derivs=True)
    w, vr = outs[0], outs[-1]
    ret = outs if compute_right_eigenvectors else outs[:-1]
    if type(dx) is Zero:
        return ret, [Zero(ad.tangent_aval(core.get_aval(o))) for o in ret]
    cdt = core.get_aval(vr).dtype
    dx = convert_element_type(dx, cdt)
    if not vectors:
        dw = _diagonal(_matmul(_solve(vr, dx), vr))
        return ret, [dw]
    dw, dvr = _eig_vec_jvp(w, vr, dx)
    tans = [dw]
    if compute_left_eigenvectors:
        raise NotImplementedError("eig: derivatives of left eigenvectors are not implemented")
    return ret, tans + [dvr]


def _eig_vec_jvp(w, v, da):
    # dv_j = u_j + c_j v_j with U = V (F * V^-1 dA V); c_j keeps geev's normalization (unit
    # norm, largest-magnitude component real)
    va = core.get_aval(v)
    nd = va.ndim
    P = _matmul(_solve(v, da), v)
    dw = _diagonal(P)
    U = _matmul(v, lax_e.mul(_inverse_gaps(w), P))
    k = lax_r.argmax(lax_e.abs(v), nd - 2, _INT32)
    mask = convert_element_type(
        lax_e.eq(lax_s.broadcasted_iota(_INT32, va.shape, nd - 2),
                 lax_s.broadcast_in_dim(k, va.shape, tuple(range(nd - 2)) + (nd - 1,))), va.dtype)
    colsum = partial(lambda t: lax_r.reduce_sum(t, (nd - 2,)))
    c = lax_e.complex(lax_e.neg(lax_e.real(colsum(lax_e.mul(lax_e.conj(v), U)))),
                      lax_e.div(lax_e.neg(lax_e.imag(colsum(lax_e.mul(mask, U)))),
                                lax_e.real(colsum(lax_e.mul(mask, v)))))
    return dw, lax_e.add(U, lax_e.mul(v, _bcast_rows(c, va.shape[-2])))


_def_batch_leading(eig_p)


@eig_p.def_lowering
def _eig_lowering(ctx, x, *, compute_left_eigenvectors, compute_right_eigenvectors,
                  enable_eigvec_derivs):
    aval = ctx.avals_in[0]
    *batch, n, _ = aval.shape
    batch = tuple(batch)
    cdt = _complex_dtype(aval.dtype)
    info = _info_aval(batch)
    v_aval = ShapedArray(aval.shape, cdt)
    w_avals = ([ShapedArray(batch + (n,), aval.dtype)] * 2 if not _is_complex(aval.dtype)
               else [ShapedArray(batch + (n,), cdt)])
    *w, vl, vr, code = _lapack_call(ctx, "geev", [x], [aval], w_avals + [v_aval, v_aval, info],
                                    len(batch), compute_left="V" if compute_left_eigenvectors else "N",
                                    compute_right="V" if compute_right_eigenvectors else "N")

    def post(*args):
        *w, vl, vr, code = args
        ok = lax_e.eq(code, np.int32(0))
        w = lax_e.complex(*w) if len(w) == 2 else w[0]
        out = [w] + [vl] * compute_left_eigenvectors + [vr] * compute_right_eigenvectors
        return [_nan_unless(ok, o) for o in out]
    return _emit(ctx, post, w_avals + [v_aval, v_aval, info], w + [vl, vr, code])


def _lu_python(x):
    """JAX's private blocked LU in lax operations (its tests compare it with `lu`); pyjax's `lu`
    has no second implementation."""
    raise NotImplementedError("jax._src.lax.linalg._lu_python is not implemented by pyjax")
