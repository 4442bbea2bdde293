"""`lax.linalg`'s structured reductions and solves: hessenberg, tridiagonal, schur, ormqr,
tridiagonal_solve, symmetric_product, cholesky_update and qdwh. As in linalg.py, each CPU
lowering calls a LAPACK kernel of jaxlib (or is a composite of lax ops, as in JAX); the helpers
(checks, batching, the custom-call emitter) live in linalg.py.
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
from pyjax._src.lax.control_flow.while_loop import while_loop
from pyjax._src.lax.convert import convert_element_type, real_dtype
from pyjax._src.lax.dynamic_slicing import dynamic_index_in_dim, dynamic_update_slice_in_dim
from pyjax._src.lax.utils import standard_primitive

from pyjax._src.lax import linalg
from pyjax._src.lax.linalg import (
    _H, _T, _check_matrix, _def_batch_leading, _emit, _eye, _ffi_call, _full, _info_aval,
    _is_complex, _lapack_call, _matmul, _nan_unless, _np_householder_product_one,
    _np_per_matrix, _scipy_linalg, _tril, _zeros_like, cholesky, qr, symmetrize,
    triangular_solve)


# -- hessenberg, tridiagonal, schur: reductions with no derivative (none in JAX either) -----------

hessenberg_p = standard_primitive("hessenberg", multiple_results=True)


def hessenberg(a):
    """Reduce square matrices to upper Hessenberg form (LAPACK's gehrd): `(a, taus)`, the
    Hessenberg matrix on and above the first subdiagonal of a, the Householder reflectors below
    it with their scales taus [..., n - 1]."""
    return tuple(hessenberg_p.bind(a))


@hessenberg_p.def_abstract_eval
def _hessenberg_abstract_eval(a):
    _check_matrix("hessenberg", a, square=True)
    *batch, n, _ = a.shape
    return [ShapedArray(a.shape, a.dtype), ShapedArray(tuple(batch) + (max(n - 1, 0),), a.dtype)]


def _np_hessenberg_one(a):
    h, taus, info = _scipy_linalg().lapack.get_lapack_funcs("gehrd", (a,))(a, lo=0, hi=a.shape[0] - 1)
    return h, taus[:max(a.shape[0] - 1, 0)]


hessenberg_p.np_impl = lambda a: list(_np_per_matrix(_np_hessenberg_one, a, n_out=2))
_def_batch_leading(hessenberg_p)


@hessenberg_p.def_lowering
def _hessenberg_lowering(ctx, a):
    aval = ctx.avals_in[0]
    batch, n = aval.shape[:-2], aval.shape[-1]
    h_aval, t_aval = ctx.avals_out
    info = _info_aval(batch)
    h, taus, code = _lapack_call(ctx, "gehrd", [a], [aval], [h_aval, t_aval, info], len(batch),
                                 aliases=[(0, 0)], low=1, high=n)
    return _emit(ctx, lambda h, t, c: [_nan_unless(lax_e.eq(c, np.int32(0)), v) for v in (h, t)],
                 [h_aval, t_aval, info], [h, taus, code])


tridiagonal_p = standard_primitive("tridiagonal", multiple_results=True)


def tridiagonal(a, *, lower: bool = True):
    """Reduce Hermitian matrices to real symmetric tridiagonal form (LAPACK's sytrd/hetrd):
    `(a, d, e, taus)`: the diagonal d, the off-diagonal e, and the reflectors stored in a
    (below the subdiagonal if `lower`, else above the superdiagonal) with their scales taus."""
    return tuple(tridiagonal_p.bind(a, lower=bool(lower)))


@tridiagonal_p.def_abstract_eval
def _tridiagonal_abstract_eval(a, *, lower):
    _check_matrix("tridiagonal", a, square=True)
    *batch, n, _ = a.shape
    batch, rdt, m = tuple(batch), real_dtype(a.dtype), max(n - 1, 0)
    return [ShapedArray(a.shape, a.dtype), ShapedArray(batch + (n,), rdt),
            ShapedArray(batch + (m,), rdt), ShapedArray(batch + (m,), a.dtype)]


def _np_tridiagonal_one(a, lower):
    fn = "hetrd" if np.iscomplexobj(a) else "sytrd"
    out, d, e, taus, info = _scipy_linalg().lapack.get_lapack_funcs(fn, (a,))(a, lower=int(lower))
    return out, d, e, taus


tridiagonal_p.np_impl = lambda a, *, lower: list(
    _np_per_matrix(lambda x: _np_tridiagonal_one(x, lower), a, n_out=4))
_def_batch_leading(tridiagonal_p)


@tridiagonal_p.def_lowering
def _tridiagonal_lowering(ctx, a, *, lower):
    aval = ctx.avals_in[0]
    batch = aval.shape[:-2]
    info = _info_aval(batch)
    fn = "hetrd" if _is_complex(aval.dtype) else "sytrd"
    *outs, code = _lapack_call(ctx, fn, [a], [aval], list(ctx.avals_out) + [info], len(batch),
                               aliases=[(0, 0)], uplo="L" if lower else "U")
    return _emit(ctx, lambda *v: [_nan_unless(lax_e.eq(v[-1], np.int32(0)), x) for x in v[:-1]],
                 list(ctx.avals_out) + [info], outs + [code])


schur_p = standard_primitive("schur", multiple_results=True)


def schur(x, *, compute_schur_vectors: bool = True, sort_eig_vals: bool = False,
          select_callable=None):
    """Schur decomposition x = Q T Q^H (LAPACK's gees): `[T, Q]`, or `[T]` without
    `compute_schur_vectors`; T is upper (quasi-)triangular, Q unitary.

    NB: as JAX on CPU, sorting the eigenvalues (`sort_eig_vals`, `select_callable`) is not
    supported."""
    if sort_eig_vals or select_callable is not None:
        raise NotImplementedError("schur: sorting the eigenvalues (sort_eig_vals, "
                                  "select_callable) is not supported")
    return schur_p.bind(x, compute_schur_vectors=bool(compute_schur_vectors))


@schur_p.def_abstract_eval
def _schur_abstract_eval(x, *, compute_schur_vectors):
    _check_matrix("schur", x, square=True)
    return [ShapedArray(x.shape, x.dtype)] * (1 + compute_schur_vectors)


def _np_schur(x, *, compute_schur_vectors):
    t, q = _np_per_matrix(lambda a: _scipy_linalg().schur(a, output="complex" if np.iscomplexobj(a)
                                                             else "real"), x, n_out=2)
    return [t, q] if compute_schur_vectors else [t]


schur_p.np_impl = _np_schur
_def_batch_leading(schur_p)


@schur_p.def_lowering
def _schur_lowering(ctx, x, *, compute_schur_vectors):
    aval = ctx.avals_in[0]
    batch, n = aval.shape[:-2], aval.shape[-1]
    info = _info_aval(batch)
    w = ShapedArray(batch + (n,), aval.dtype)
    eig_avals = [w] if _is_complex(aval.dtype) else [w, w]
    t, q, *_, code = _lapack_call(ctx, "gees", [x], [aval], [aval, aval] + eig_avals + [info, info],
                                  len(batch), aliases=[(0, 0)],
                                  mode="V" if compute_schur_vectors else "N", sort="N")
    outs = [t, q] if compute_schur_vectors else [t]
    return _emit(ctx, lambda *v: [_nan_unless(lax_e.eq(v[-1], np.int32(0)), a) for a in v[:-1]],
                 [aval] * len(outs) + [info], outs + [code])


# -- ormqr ---------------------------------------------------------------------------------------

ormqr_p = standard_primitive("ormqr")


def ormqr(a, taus, c, *, left: bool = True, transpose: bool = False):
    """Multiply c by the Q of a QR factorization held as Householder reflectors (a, taus), as
    geqrf leaves them (LAPACK's ormqr/unmqr): Q c, Q^H c (`transpose`), c Q or c Q^H (not
    `left`), without forming Q."""
    return ormqr_p.bind(a, taus, c, left=bool(left), transpose=bool(transpose))


@ormqr_p.def_abstract_eval
def _ormqr_abstract_eval(a, taus, c, *, left, transpose):
    _check_matrix("ormqr", a, arg="matrix a")
    _check_matrix("ormqr", c, arg="matrix c")
    *batch, m, k = a.shape
    if taus.shape != tuple(batch) + (taus.shape[-1],) or taus.shape[-1] > k or c.shape[:-2] != tuple(batch):
        raise ValueError(f"ormqr: a [..., m, k], taus [..., <=k] and c [..., m, n] need equal batch "
                         f"dimensions, got {a.str_short()}, {taus.str_short()}, {c.str_short()}")
    if (c.shape[-2] if left else c.shape[-1]) != m or len({a.dtype, taus.dtype, c.dtype}) > 1:
        raise ValueError(f"ormqr: c's {'rows' if left else 'columns'} must match a's rows and the "
                         f"dtypes must agree, got {a.str_short()}, {taus.str_short()}, {c.str_short()}")
    return ShapedArray(c.shape, c.dtype)


def _np_ormqr(a, taus, c, *, left, transpose):
    a = np.asarray(a)
    m = a.shape[-2]
    full = np.concatenate([a, np.zeros(a.shape[:-1] + (m - a.shape[-1],), a.dtype)], -1) \
        if a.shape[-1] < m else a[..., :m]
    t = np.concatenate([taus, np.zeros(taus.shape[:-1] + (m - taus.shape[-1],), a.dtype)], -1)
    q = _np_per_matrix(_np_householder_product_one, full, t)[0]
    q = np.conj(np.swapaxes(q, -1, -2)) if transpose else q
    return q @ c if left else c @ q


ormqr_p.np_impl = _np_ormqr
_def_batch_leading(ormqr_p)


@ormqr_p.def_lowering
def _ormqr_lowering(ctx, a, taus, c, *, left, transpose):
    avals = ctx.avals_in
    fn = "unmqr" if _is_complex(avals[0].dtype) else "ormqr"
    return _lapack_call(ctx, fn, [a, taus, c], avals, [avals[2]], avals[0].ndim - 2,
                        aliases=[(0, 2)], left=left, transpose=transpose)[0]


# -- tridiagonal_solve ---------------------------------------------------------------------------

tridiagonal_solve_p = standard_primitive("tridiagonal_solve")


def tridiagonal_solve(dl, d, du, b, *, perturb_singular: bool = False):
    """Solve A x = b for tridiagonal A given by its diagonals (LAPACK's gtsv): dl the lower
    (dl[..., 0] unused), d the main, du the upper (du[..., -1] unused), each [..., m]; b is
    [..., m, n]. `perturb_singular` nudges zero pivots instead of failing (NaNs)."""
    return tridiagonal_solve_p.bind(dl, d, du, b, perturb_singular=bool(perturb_singular))


@tridiagonal_solve_p.def_abstract_eval
def _tridiagonal_solve_abstract_eval(dl, d, du, b, *, perturb_singular):
    _check_matrix("tridiagonal_solve", b, arg="right-hand side b")
    if not dl.shape == d.shape == du.shape:
        raise TypeError(f"tridiagonal_solve requires that all diagonal arguments have the same "
                        f"shape, got {dl.str_short()}, {d.str_short()}, {du.str_short()}")
    if dl.shape != b.shape[:-1]:
        raise TypeError(f"tridiagonal_solve requires that the leading ndim-1 dimensions of b equal "
                        f"the dimensions of the diagonal arguments, got {d.str_short()} and "
                        f"{b.str_short()}")
    if len({dl.dtype, d.dtype, du.dtype, b.dtype}) > 1:
        raise TypeError(f"tridiagonal_solve: the operands must have the same dtype, got "
                        f"{dl.str_short()}, {d.str_short()}, {du.str_short()}, {b.str_short()}")
    return ShapedArray(b.shape, b.dtype)


def _tridiagonal_matrix(dl, d, du):
    m = d.shape[-1]
    a, i = np.zeros(d.shape + (m,), d.dtype), np.arange(m)
    a[..., i, i] = d
    a[..., i[1:], i[1:] - 1] = dl[..., 1:]
    a[..., i[:-1], i[:-1] + 1] = du[..., :-1]
    return a


def _np_tridiagonal_solve(dl, d, du, b, *, perturb_singular):
    dl, d, du = (np.asarray(v) for v in (dl, d, du))
    return np.linalg.solve(_tridiagonal_matrix(dl, d, du), b)


tridiagonal_solve_p.np_impl = _np_tridiagonal_solve


def _tridiagonal_product(dl, d, du, x):
    """A x for the tridiagonal A of (dl, d, du): shifted rows times the diagonals."""
    xa = core.get_aval(x)
    nb, m = xa.ndim - 2, xa.shape[-2]
    col = partial(lax_s.expand_dims, dimensions=(nb + 1,))
    zero_row = _full(xa.shape[:-2] + (1, xa.shape[-1]), 0, xa.dtype)
    x_up = lax_s.concatenate([zero_row, lax_s.slice_in_dim(x, 0, m - 1, axis=nb)], nb)     # x[i-1]
    x_down = lax_s.concatenate([lax_s.slice_in_dim(x, 1, m, axis=nb), zero_row], nb)       # x[i+1]
    return lax_e.add(lax_e.add(lax_e.mul(col(d), x), lax_e.mul(col(dl), x_up)), lax_e.mul(col(du), x_down))


@tridiagonal_solve_p.def_jvp
def _tridiagonal_solve_jvp(primals, tangents, *, perturb_singular):
    # x = A^-1 b: dx = A^-1 (db - dA x); linear in b (transpose below)
    *diags, b = primals
    *diag_dots, b_dot = tangents
    ans = tridiagonal_solve_p.bind(*primals, perturb_singular=perturb_singular)
    if all(type(t) is Zero for t in tangents):
        return ans, Zero(ad.tangent_aval(core.get_aval(ans)))
    rhs = ad.instantiate(b_dot)
    if not all(type(t) is Zero for t in diag_dots):
        rhs = lax_e.sub(rhs, _tridiagonal_product(*map(ad.instantiate, diag_dots), ans))
    return ans, tridiagonal_solve_p.bind(*diags, rhs, perturb_singular=perturb_singular)


@tridiagonal_solve_p.def_transpose
def _tridiagonal_solve_transpose(ct, dl, d, du, b, *, perturb_singular):
    # A^T's lower diagonal is A's upper one shifted down a place, and vice versa
    if type(ct) is Zero:
        return [None] * 4
    nb = core.get_aval(du).ndim - 1
    m = core.get_aval(du).shape[-1]
    zero = _full(core.get_aval(du).shape[:-1] + (1,), 0, core.get_aval(du).dtype)
    dl_t = lax_s.concatenate([zero, lax_s.slice_in_dim(du, 0, m - 1, axis=nb)], nb)
    du_t = lax_s.concatenate([lax_s.slice_in_dim(dl, 1, m, axis=nb), zero], nb)
    return [None, None, None, tridiagonal_solve_p.bind(dl_t, d, du_t, ct,
                                                       perturb_singular=perturb_singular)]


_def_batch_leading(tridiagonal_solve_p)


@tridiagonal_solve_p.def_lowering
def _tridiagonal_solve_lowering(ctx, dl, d, du, b, *, perturb_singular):
    avals = list(ctx.avals_in)
    batch = avals[3].shape[:-2]
    if perturb_singular:
        target = "tridiagonal_solve_perturbed_ffi"
        return _ffi_call(ctx, target, [dl, d, du, b], avals, [avals[3]], len(batch))[0]
    info = _info_aval(batch)
    *_, x, code = _lapack_call(ctx, "gtsv", [dl, d, du, b], avals, avals + [info], len(batch),
                               aliases=[(0, 0), (1, 1), (2, 2), (3, 3)])
    return _emit(ctx, lambda x, c: [_nan_unless(lax_e.eq(c, np.int32(0)), x)],
                 [avals[3], info], [x, code])[0]


# -- symmetric_product and cholesky_update: composites of lax ops on CPU, as in JAX --------------

symmetric_product_p = standard_primitive("symmetric_product")


def symmetric_product(a_matrix, c_matrix, *, alpha: float = 1.0, beta: float = 0.0,
                      symmetrize_output: bool = False):
    """alpha a a^T + beta c for a [..., m, n] and symmetric c [..., m, m]. Only the lower
    triangle is guaranteed on every platform; `symmetrize_output` mirrors it to the upper one."""
    out = symmetric_product_p.bind(a_matrix, c_matrix, alpha=float(alpha), beta=float(beta))
    if symmetrize_output:
        out = lax_e.add(_tril(out), _T(_tril(out, -1)))
    return out


@symmetric_product_p.def_abstract_eval
def _symmetric_product_abstract_eval(a, c, *, alpha, beta):
    _check_matrix("symmetric_product", a, arg="a_matrix")
    _check_matrix("symmetric_product", c, square=True, arg="c_matrix")
    if a.shape[:-1] != c.shape[:-1] or a.dtype != c.dtype or _is_complex(a.dtype):
        raise ValueError(f"symmetric_product: needs real a_matrix [..., m, n] and c_matrix "
                         f"[..., m, m] of one dtype, got {a.str_short()} and {c.str_short()}")
    return ShapedArray(c.shape, c.dtype)


def _symmetric_product_fn(a, c, *, alpha, beta):
    return lax_e.add(lax_e.mul(_matmul(a, _T(a)), alpha), lax_e.mul(c, beta))


symmetric_product_p.np_impl = lambda a, c, *, alpha, beta: (
    alpha * np.asarray(a) @ np.swapaxes(a, -1, -2) + beta * np.asarray(c))


@symmetric_product_p.def_jvp
def _symmetric_product_jvp(primals, tangents, *, alpha, beta):
    # d(alpha a a^T + beta c) = alpha (da a^T + a da^T) + beta dc
    (a, c), (da, dc) = primals, tangents
    out = symmetric_product_p.bind(a, c, alpha=alpha, beta=beta)
    t = Zero(ad.tangent_aval(core.get_aval(out)))
    if type(da) is not Zero:
        t = lax_e.mul(lax_e.add(_matmul(da, _T(a)), _matmul(a, _T(da))), alpha)
    if type(dc) is not Zero:
        t = ad.add_tangents(t, lax_e.mul(dc, beta))
    return out, t


_def_batch_leading(symmetric_product_p)
symmetric_product_p.def_lowering(
    lambda ctx, a, c, **params: ctx.lower_fun(partial(_symmetric_product_fn, **params))(a, c))


cholesky_update_p = standard_primitive("cholesky_update")


def cholesky_update(r_matrix, w_vector):
    """The upper Cholesky factor of R^T R + w w^T from R's, by n Givens rotations (O(n^2))."""
    return cholesky_update_p.bind(r_matrix, w_vector)


@cholesky_update_p.def_abstract_eval
def _cholesky_update_abstract_eval(r, w):
    _check_matrix("cholesky_update", r, square=True, arg="r_matrix")
    if w.shape != r.shape[:-1] or w.dtype != r.dtype or _is_complex(r.dtype):
        raise ValueError(f"cholesky_update: Rank-1 update to Cholesky decomposition takes a real "
                         f"square matrix and a vector of the same size as input, got "
                         f"{r.str_short()} and {w.str_short()}")
    return ShapedArray(r.shape, r.dtype)


def _np_cholesky_update(r, w):
    r, w = np.asarray(r), np.asarray(w)
    a = np.swapaxes(r, -1, -2) @ r + w[..., :, None] * w[..., None, :]
    return np.swapaxes(np.linalg.cholesky(a), -1, -2)


cholesky_update_p.np_impl = _np_cholesky_update


def _cholesky_update_fn(r, w):
    """Rotate row k of R against w to zero w[k], for k = 0..n-1 (leading batch dims welcome)."""
    ra = core.get_aval(r)
    nb, n = ra.ndim - 2, ra.shape[-1]
    diag = _eye(ra.dtype, ra.shape)

    def rotate(k, carry):
        r, w = carry
        row = dynamic_index_in_dim(r, k, nb, keepdims=False)                  # R[k, :]
        x = lax_r.reduce_sum(lax_e.mul(row, dynamic_index_in_dim(diag, k, nb, keepdims=False)), (nb,))
        y = lax_r.reduce_sum(lax_e.mul(w, dynamic_index_in_dim(diag, k, nb, keepdims=False)), (nb,))
        scale = lax_e.max(lax_e.abs(x), lax_e.abs(y))
        zero_y = lax_e.eq(y, _zeros_like(y))
        safe = lax_e.select(zero_y, _full(core.get_aval(scale).shape, 1, ra.dtype), scale)
        xs, ys = lax_e.div(x, safe), lax_e.div(y, safe)
        rh = lax_e.rsqrt(lax_e.add(lax_e.mul(xs, xs), lax_e.mul(ys, ys)))
        c = lax_e.select(zero_y, _full(core.get_aval(x).shape, 1, ra.dtype), lax_e.mul(xs, rh))
        s = lax_e.select(zero_y, _zeros_like(y), lax_e.neg(lax_e.mul(ys, rh)))
        c, s = (lax_s.expand_dims(v, (nb,)) for v in (c, s))
        new_row = lax_e.sub(lax_e.mul(c, row), lax_e.mul(s, w))
        w = lax_e.add(lax_e.mul(c, w), lax_e.mul(s, row))
        r = _dynamic_update_index(r, new_row, k, nb)
        return r, w
    return fori_loop(np.int32(0), np.int32(n), rotate, (r, w))[0]


def _dynamic_update_index(x, row, k, axis):
    """x with its slice `k` along `axis` replaced by `row`."""
    return dynamic_update_slice_in_dim(x, lax_s.expand_dims(row, (axis,)), k, axis)


_def_batch_leading(cholesky_update_p)
cholesky_update_p.def_lowering(lambda ctx, r, w: ctx.lower_fun(_cholesky_update_fn)(r, w))


# -- qdwh: the polar decomposition by a QR-based dynamically weighted Halley iteration ----------

def qdwh(x, *, is_hermitian: bool = False, max_iterations=None, eps=None, dynamic_shape=None):
    """Polar decomposition x = u h of x [m, n] (m >= n) by QDWH (Nakatsukasa, Bai & Gygi,
    "Optimizing Halley's iteration for computing the matrix polar decomposition", 2010):
    `(u, h, num_iters, is_converged)`, u with orthonormal columns, h Hermitian PSD.

    The weights follow the lower bound l of the smallest singular value from l = eps; while the
    weight c exceeds 100 a step uses a QR factorization, then Cholesky; a final Newton-Schulz
    step polishes u. NB: `dynamic_shape` (padding masks) is not supported."""
    if dynamic_shape is not None:
        raise NotImplementedError("qdwh: dynamic_shape is not supported")
    xa = core.get_aval(x)
    if xa.ndim != 2 or xa.shape[0] < xa.shape[1]:
        raise ValueError(f"qdwh: the input matrix of shape M x N must have M >= N, got {xa.str_short()}")
    max_iterations = 10 if max_iterations is None else int(max_iterations)
    eps = float(np.finfo(real_dtype(xa.dtype)).eps) if eps is None else float(eps)
    return _qdwh(x, max_iterations, eps)


def _qdwh_schedule(eps, max_iterations):
    """The (a, b, c) weights of each step and the bound l after it (pure Python floats)."""
    l, tol_l, out = eps, 10.0 * eps / 2.0, []
    while l + tol_l < 1 and len(out) < max_iterations:
        l2 = l * l
        dd = (4 * (1 / l2 - 1) / l2) ** (1 / 3)
        sqd = (1.0 + dd) ** 0.5
        a = sqd + (2 - dd + 2 * (2 - l2) / (l2 * sqd)) ** 0.5
        b = (a - 1) ** 2 / 4
        c = a + b - 1
        l = l * (a + b * l2) / (1 + c * l2)
        out.append((a, b, c))
    return out


def _qdwh_qr_step(u, a, b, c):
    # u <- (b/c) u + (a - b/c)/sqrt(c) Q1 Q2^H, [sqrt(c) u; I] = [Q1; Q2] R
    m, n = core.get_aval(u).shape
    y = lax_s.concatenate([lax_e.mul(u, float(np.sqrt(c))), _eye(core.get_aval(u).dtype, (n, n))], 0)
    q = qr(y, full_matrices=False)[0]
    q1, q2 = lax_s.slice(q, (0, 0), (m, n)), lax_s.slice(q, (m, 0), (m + n, n))
    e = b / c
    return lax_e.add(lax_e.mul(u, e), lax_e.mul(_matmul(q1, _H(q2)), float((a - e) / np.sqrt(c))))


def _qdwh_cholesky_step(u, a, b, c):
    # u <- (b/c) u + (a - b/c) u (I + c u^H u)^-1, through the Cholesky factor of I + c u^H u
    n = core.get_aval(u).shape[1]
    z = lax_e.add(lax_e.mul(_matmul(_H(u), u), c), _eye(core.get_aval(u).dtype, (n, n)))
    L = cholesky(z, symmetrize_input=False)
    w = triangular_solve(L, u, left_side=False, lower=True, transpose_a=True, conjugate_a=True)
    w = triangular_solve(L, w, left_side=False, lower=True)
    e = b / c
    return lax_e.add(lax_e.mul(u, e), lax_e.mul(w, a - e))


def _frobenius(x):
    ax = lax_e.abs(x)
    return lax_e.sqrt(lax_r.reduce_sum(lax_e.mul(ax, ax), (0, 1)))


def _qdwh(x, max_iterations, eps):
    xa = core.get_aval(x)
    ax = lax_e.abs(x)
    one_norm = lax_r.reduce_max(lax_r.reduce_sum(ax, (0,)), (0,))
    inf_norm = lax_r.reduce_max(lax_r.reduce_sum(ax, (1,)), (0,))
    scale = lax_e.mul(lax_e.rsqrt(one_norm), lax_e.rsqrt(inf_norm))
    scale = lax_e.select(lax_e.eq(one_norm, _zeros_like(one_norm)), lax_e.add(_zeros_like(one_norm), 1.0), scale)
    u = lax_e.mul(x, convert_element_type(scale, xa.dtype))
    tol_norm = float(np.cbrt(10.0 * eps / 2.0))
    converged = np.bool_(False)
    steps = _qdwh_schedule(eps, max_iterations)
    for a, b, c in steps:  # a static schedule: unrolled
        prev = u
        u = _qdwh_qr_step(u, a, b, c) if c > 100 else _qdwh_cholesky_step(u, a, b, c)
        if c <= 100:
            converged = lax_e.le(_frobenius(lax_e.sub(u, prev)), tol_norm)

    def keep_going(state):
        k, _, conv = state
        return lax_e.bitwise_and(lax_e.bitwise_not(conv), lax_e.lt(k, max_iterations))

    def halley(state):  # the limit weights (a, b, c) = (3, 1, 3) until u settles
        k, u, _ = state
        new = _qdwh_cholesky_step(u, 3.0, 1.0, 3.0)
        return lax_e.add(k, 1), new, lax_e.le(_frobenius(lax_e.sub(new, u)), tol_norm)
    num_iters, u, converged = while_loop(keep_going, halley, (len(steps), u, converged))  # weak, as JAX
    u = lax_e.sub(lax_e.mul(u, 1.5), lax_e.mul(_matmul(u, _matmul(_H(u), u)), 0.5))
    h = _matmul(_H(u), x)
    return u, symmetrize(h), num_iters, converged


# -- JAX's module layout -----------------------------------------------------------------------------
# JAX keeps these in jax._src.lax.linalg beside cholesky and qr (JAX's tests call
# `lax_linalg.cholesky_update` there, and the switch serves pyjax._src.lax.linalg under that name).
# linalg.py sits below this module (it holds the helpers used above), so this module binds them
# into linalg's namespace: the lower layer's slots, filled by the upper one.
linalg.cholesky_update, linalg.cholesky_update_p = cholesky_update, cholesky_update_p
linalg.hessenberg, linalg.hessenberg_p = hessenberg, hessenberg_p
linalg.ormqr, linalg.ormqr_p = ormqr, ormqr_p
linalg.schur, linalg.schur_p = schur, schur_p
linalg.symmetric_product, linalg.symmetric_product_p = symmetric_product, symmetric_product_p
linalg.tridiagonal, linalg.tridiagonal_p = tridiagonal, tridiagonal_p
linalg.tridiagonal_solve, linalg.tridiagonal_solve_p = tridiagonal_solve, tridiagonal_solve_p
