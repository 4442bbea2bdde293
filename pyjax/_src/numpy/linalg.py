"""`jax.numpy.linalg`: NumPy's linear algebra on top of lax.linalg's decompositions.

Everything is batched over leading dimensions and differentiable: through the decompositions'
JVPs, or, for det, slogdet and pinv, through JAX's custom JVPs (so this module sits in the api
layer: it needs `custom_jvp` and `jit`). The functions JAX jits are jitted here too (inlined when
traced), so eager calls run one executable.
"""
from __future__ import annotations

import itertools
import math
import operator
from typing import NamedTuple

import numpy as np

from pyjax._src import core, dtypes
from pyjax._src.custom_derivatives import custom_jvp
from pyjax._src.lax import linalg as lax_linalg
from pyjax._src.lax import shape_ops as lax_s
from pyjax._src.lax import sorting
from pyjax._src.lax.dot_general import Precision
from pyjax._src.lax.utils import canonicalize_axis
from pyjax._src.numpy import creation, lax_numpy, linalg_ops, reductions, ufuncs
from pyjax._src.numpy import shape as jshape
from pyjax._src.numpy.util import (asarray_value, broadcast_shapes, broadcast_to, check_arraylike,
                                   promote_dtypes_inexact)
from pyjax._src.pjit import jit


class EighResult(NamedTuple):
    eigenvalues: object
    eigenvectors: object


class EigResult(NamedTuple):
    eigenvalues: object
    eigenvectors: object


class QRResult(NamedTuple):
    Q: object
    R: object


class SlogdetResult(NamedTuple):
    sign: object
    logabsdet: object


class SVDResult(NamedTuple):
    U: object
    S: object
    Vh: object


def _arrays(fname, *xs):
    check_arraylike(fname, *xs)
    return [asarray_value(x) for x in xs]


def _inexact(fname, *xs):
    return promote_dtypes_inexact(*_arrays(fname, *xs))


def _H(x):
    return ufuncs.conj(jshape.matrix_transpose(x)) if _is_complex(x) else jshape.matrix_transpose(x)


def _is_complex(x) -> bool:
    return dtypes.issubdtype(core.get_aval(x).dtype, np.complexfloating)


def _matmul(a, b):
    return linalg_ops.matmul(a, b, precision=Precision.HIGHEST)


def _check_square(fname, a, what="Argument"):
    if a.ndim < 2 or a.shape[-1] != a.shape[-2]:
        raise ValueError(f"{fname}: {what} must have shape [..., n, n], got {a.shape}")


def _jit(*static):
    return lambda f: jit(f, static_argnames=static, inline=True)


# -- decompositions ----------------------------------------------------------------------------


@_jit("upper", "symmetrize_input")
def cholesky(a, *, upper: bool = False, symmetrize_input: bool = True):
    """Cholesky factor of Hermitian positive definite matrices: L with a = L L^H (or U = L^H
    with a = U^H U if `upper`); NaNs where a is not positive definite.

    >>> jnp.linalg.cholesky(jnp.array([[4., 2.], [2., 5.]]))
    """
    a, = _inexact("jnp.linalg.cholesky", a)
    L = lax_linalg.cholesky(a, symmetrize_input=symmetrize_input)
    return _H(L) if upper else L


def svd(a, full_matrices: bool = True, compute_uv: bool = True, hermitian: bool = False,
        subset_by_index=None):
    """Singular value decomposition: `SVDResult(U, S, Vh)` with a = U diag(S) Vh, or S alone
    without `compute_uv`. `hermitian` computes it from an eigendecomposition.

    >>> u, s, vh = jnp.linalg.svd(a, full_matrices=False)
    """
    if subset_by_index is not None:
        subset_by_index = tuple(subset_by_index)
    return _svd(a, full_matrices=full_matrices, compute_uv=compute_uv, hermitian=hermitian,
                subset_by_index=subset_by_index)


@_jit("full_matrices", "compute_uv", "hermitian", "subset_by_index")
def _svd(a, *, full_matrices, compute_uv, hermitian, subset_by_index):
    a, = _inexact("jnp.linalg.svd", a)
    if hermitian:
        return _svd_hermitian(a, compute_uv, subset_by_index)
    out = lax_linalg.svd(a, full_matrices=full_matrices, compute_uv=compute_uv,
                         subset_by_index=subset_by_index)
    if not compute_uv:
        return out
    return SVDResult(*out)


def _svd_hermitian(a, compute_uv, subset_by_index):
    """|eigenvalues| in descending order are the singular values; U the eigenvectors, Vh the
    eigenvectors with the eigenvalues' signs (as JAX)."""
    v, w = lax_linalg.eigh(a, subset_by_index=subset_by_index)
    s = ufuncs.absolute(w)
    order = jshape.flip(_argsort_last(s), -1)
    s = _take_last(s, order)
    if not compute_uv:
        return s
    sign = _take_last(ufuncs.sign(w), order)
    u = jshape.matrix_transpose(_take_last_rows(jshape.matrix_transpose(v), order))
    vh = _H(u * sign[..., None, :].astype(u.dtype))
    return SVDResult(u, s, vh)


def _argsort_last(x):
    """Indices sorting x's last axis (ascending), via lax.sort of (x, iota)."""
    iota = lax_s.broadcasted_iota(np.int32, x.shape, x.ndim - 1)
    return sorting.sort((x, iota), dimension=x.ndim - 1, num_keys=1)[1]


def _take_last(x, idx):
    """x[..., idx] along the last axis (idx has x's shape)."""
    return lax_linalg._permute_rows(x[..., None], idx)[..., 0]


def _take_last_rows(x, idx):
    return lax_linalg._permute_rows(x, idx)


def svdvals(x, /):
    """The singular values of x, in descending order."""
    return svd(x, compute_uv=False)


@_jit("mode")
def qr(a, mode: str = "reduced"):
    """QR decomposition: `QRResult(Q, R)` ('reduced': Q [..., m, k], R [..., k, n], k =
    min(m, n); 'complete': Q [..., m, m]), or R alone for mode 'r'; mode 'raw' gives
    LAPACK's Householder form as NumPy does: `QRResult(h, taus)` with h [..., n, m] the
    transposed output of geqrf.
    """
    a, = _inexact("jnp.linalg.qr", a)
    if mode == "raw":
        h, taus = lax_linalg.geqrf(a)
        return QRResult(jshape.matrix_transpose(h), taus)
    if mode in ("reduced", "r", "full"):
        full_matrices = False
    elif mode == "complete":
        full_matrices = True
    else:
        raise ValueError(f"Unsupported QR decomposition mode '{mode}'")
    q, r = lax_linalg.qr(a, full_matrices=full_matrices)
    return r if mode == "r" else QRResult(q, r)


def _uplo_lower(UPLO):
    if UPLO is None or UPLO == "L":
        return True
    if UPLO == "U":
        return False
    raise ValueError(f"UPLO must be one of None, 'L', or 'U', got {UPLO}")


@_jit("UPLO", "symmetrize_input")
def eigh(a, UPLO=None, symmetrize_input: bool = True):
    """Eigendecomposition of Hermitian matrices: `EighResult(eigenvalues, eigenvectors)`,
    eigenvalues real and ascending.

    >>> w, v = jnp.linalg.eigh(a)
    """
    lower = _uplo_lower(UPLO)
    a, = _inexact("jnp.linalg.eigh", a)
    v, w = lax_linalg.eigh(a, lower=lower, symmetrize_input=symmetrize_input)
    return EighResult(w, v)


@_jit("UPLO", "symmetrize_input")
def eigvalsh(a, UPLO="L", *, symmetrize_input: bool = True):
    """The eigenvalues of Hermitian matrices, ascending."""
    return eigh(a, UPLO, symmetrize_input=symmetrize_input).eigenvalues


def eig(a):
    """Eigendecomposition of general square matrices: `EigResult(eigenvalues, eigenvectors)`
    (complex; the right eigenvectors, each of unit norm)."""
    a, = _inexact("jnp.linalg.eig", a)
    w, v = lax_linalg.eig(a, compute_left_eigenvectors=False)
    return EigResult(w, v)


@_jit()
def eigvals(a):
    """The (complex) eigenvalues of general square matrices."""
    a, = _inexact("jnp.linalg.eigvals", a)
    return lax_linalg.eig(a, compute_left_eigenvectors=False, compute_right_eigenvectors=False)[0]


# -- solving -------------------------------------------------------------------------------------


@_jit()
def solve(a, b):
    """Solve a x = b for x: a is [..., m, m]; b is [m] (one vector) or [..., m, n] (batch
    dimensions broadcast against a's).

    >>> jnp.linalg.solve(a, b)
    """
    a, b = _inexact("jnp.linalg.solve", a, b)
    if a.ndim < 2:
        raise ValueError(f"jnp.linalg.solve: left hand array must be at least two dimensional; "
                         f"got a.shape={a.shape}")
    if b.ndim > 1 and a.ndim == b.ndim + 1 and a.shape[-1] == b.shape[-1] and a.shape[-1] != b.shape[-2]:
        raise ValueError(f"Invalid shapes for solve: {a.shape}, {b.shape}. Prior to JAX v0.5.0, "
                         f"this would have been treated as a batched 1-dimensional solve. To "
                         f"recover this behavior, use solve(a, b[..., None]).squeeze(-1).")
    m = a.shape[-1]
    vector = b.ndim == 1
    bm = b.shape[-1] if vector else b.shape[-2]
    if a.shape[-2] != m or bm != m:
        sig = "(m,m),(m)->(m)" if vector else "(m,m),(m,n)->(m,n)"
        raise ValueError(f"jnp.linalg.solve: inconsistent size for core dimension 'm': "
                         f"{a.shape} and {b.shape} (signature {sig})")
    if vector:
        b = b[:, None]
    batch = broadcast_shapes(a.shape[:-2], b.shape[:-2])
    a = broadcast_to(a, batch + a.shape[-2:])
    b = broadcast_to(b, batch + b.shape[-2:])
    x = lax_linalg._solve(a, b)
    return x[..., 0] if vector else x


@_jit()
def inv(a):
    """The inverse of square matrices [..., n, n] (NaNs/infs for singular ones, as LAPACK)."""
    a, = _arrays("jnp.linalg.inv", a)
    if a.ndim < 2 or a.shape[-1] != a.shape[-2]:
        raise ValueError(f"Argument to inv must have shape [..., n, n], got {a.shape}.")
    a, = promote_dtypes_inexact(a)
    eye = broadcast_to(creation.eye(a.shape[-1], dtype=a.dtype), a.shape)
    return solve(a, eye)


def lstsq(a, b, rcond=None, *, numpy_resid: bool = False):
    """Least-squares solution of a x = b through the SVD: `(x, residuals, rank, s)`.

    NB: as JAX, `residuals` is always computed unless `numpy_resid` (then empty when rank < n
    or m <= n, as NumPy)."""
    a, b = _inexact("jnp.linalg.lstsq", a, b)
    if a.shape[0] != b.shape[0]:
        raise ValueError("Leading dimensions of input arrays must match")
    if a.ndim != 2:
        raise TypeError(f"{a.ndim}-dimensional array given. Array must be two-dimensional")
    if b.ndim not in (1, 2):
        raise TypeError(f"{b.ndim}-dimensional array given. Array must be one or two-dimensional")
    vector = b.ndim == 1
    b = b[:, None] if vector else b
    m, n = a.shape
    if a.size == 0:   # no singular values: x is zeros, rank 0 (JAX's shapes and dtypes)
        s = creation.zeros((0,), a.dtype)
        rank = creation.asarray(0, dtypes.default_int_dtype())
        x = creation.zeros((n,) + b.shape[1:], a.dtype)
    else:
        if rcond is None:
            rcond = float(dtypes.finfo(a.dtype).eps) * max(n, m)
        else:
            rcond = lax_numpy.where(asarray_value(rcond) < 0, dtypes.finfo(a.dtype).eps, rcond)
        u, s, vt = svd(a, full_matrices=False)
        mask = (s > 0) & (s >= rcond * s[0])
        rank = reductions.sum(mask)
        safe_s = lax_numpy.where(mask, s, 1).astype(a.dtype)
        s_inv = lax_numpy.where(mask, 1 / safe_s, 0)[:, None]
        x = _matmul(_H(vt), s_inv * _matmul(_H(u), b))
    if numpy_resid and (int(rank) < n or m <= n):
        resid = creation.asarray(np.zeros((0,), s.dtype))
    else:
        resid = norm(b - _matmul(a, x), axis=0) ** 2
    return (x.ravel() if vector else x), resid, rank, s


@_jit()
def det(a):
    """Determinants of square matrices [..., n, n] (closed forms for n = 2 and 3; otherwise
    through the LU factors, with JAX's derivative that stays finite at singular matrices)."""
    a, = _inexact("jnp.linalg.det", a)
    if a.ndim < 2 or a.shape[-1] != a.shape[-2]:
        raise ValueError(f"Argument to _det() must have shape [..., n, n], got {a.shape}")
    if a.shape[-1] == 2:
        return a[..., 0, 0] * a[..., 1, 1] - a[..., 0, 1] * a[..., 1, 0]
    if a.shape[-1] == 3:
        return (a[..., 0, 0] * a[..., 1, 1] * a[..., 2, 2] + a[..., 0, 1] * a[..., 1, 2] * a[..., 2, 0]
                + a[..., 0, 2] * a[..., 1, 0] * a[..., 2, 1] - a[..., 0, 2] * a[..., 1, 1] * a[..., 2, 0]
                - a[..., 0, 0] * a[..., 1, 2] * a[..., 2, 1] - a[..., 0, 1] * a[..., 1, 0] * a[..., 2, 2])
    return _det(a)


@custom_jvp
def _det(a):
    sign, logdet = slogdet(a)
    return sign * ufuncs.exp(logdet).astype(sign.dtype)


@_det.defjvp
def _det_jvp(primals, tangents):
    # d det = tr(adj(a) da), with the adjugate from the LU factors (finite when a is singular)
    (x,), (g,) = primals, tangents
    y, z = _cofactor_solve(x, g)
    return y, lax_numpy.trace(z, axis1=-1, axis2=-2)


def _cofactor_solve(a, b):
    """(det(a), adj(a) b) for square a and b [..., m, m], through a's LU factors with the last
    pivot replaced so that singular matrices (one zero pivot) still give the adjugate."""
    m = a.shape[-1]
    if m == 1:
        return a[..., 0, 0], b
    lu_, pivots, perm = lax_linalg.lu(a)
    batch = broadcast_shapes(lu_.shape[:-2], b.shape[:-2])
    x = broadcast_to(b, batch + b.shape[-2:])
    lu_ = broadcast_to(lu_, batch + lu_.shape[-2:])
    diag = lax_numpy.diagonal(lu_, axis1=-2, axis2=-1)
    parity = reductions.count_nonzero(pivots != np.arange(m, dtype=np.int32), axis=-1)
    sign = (-2 * (parity % 2) + 1).astype(a.dtype)
    partial_det = reductions.cumprod(diag, axis=-1) * sign[..., None]
    last = np.zeros((m, m), bool)
    last[-1, -1] = True
    lu_ = lax_numpy.where(last, (1.0 / partial_det[..., -2])[..., None, None], lu_)
    perm = broadcast_to(perm, batch + (m,))
    d = lax_linalg.triangular_solve(lu_, creation.ones(x.shape[:-1], x.dtype), left_side=True,
                                    lower=False)
    d = reductions.any(ufuncs.isnan(d) | ufuncs.isinf(d), axis=-1)[..., None, None]
    zero = creation.zeros_like(x)
    x = lax_numpy.where(d, zero, x)
    x = lax_linalg._permute_rows(x, perm)
    x = lax_linalg.triangular_solve(lu_, x, left_side=True, lower=True, unit_diagonal=True)
    scale = np.ones((m, 1), a.dtype)
    x = x * lax_numpy.where(np.arange(m)[:, None] < m - 1, partial_det[..., -1, None, None], scale)
    x = lax_linalg.triangular_solve(lu_, x, left_side=True, lower=False)
    return partial_det[..., -1], lax_numpy.where(d, zero, x)


def slogdet(a, *, method=None):
    """Sign and log of the absolute value of determinants: `SlogdetResult(sign, logabsdet)`
    (sign 0 and logabsdet -inf for singular matrices). `method`: 'lu' (default) or 'qr'."""
    if method not in (None, "lu", "qr"):
        raise ValueError(f"Unknown slogdet method '{method}'. Supported methods are 'lu' "
                         f"(`None`), and 'qr'.")
    a, = _inexact("jnp.linalg.slogdet", a)
    if a.ndim < 2 or a.shape[-1] != a.shape[-2]:
        raise ValueError(f"Argument to slogdet() must have shape [..., n, n], got {a.shape}")
    return SlogdetResult(*(_slogdet_qr(a) if method == "qr" else _slogdet_lu(a)))


@custom_jvp
@_jit()
def _slogdet_lu(a):
    lu_, pivots, _ = lax_linalg.lu(a)
    diag = lax_numpy.diagonal(lu_, axis1=-2, axis2=-1)
    is_zero = reductions.any(diag == 0, axis=-1)
    parity = reductions.count_nonzero(
        pivots != np.broadcast_to(np.arange(a.shape[-1], dtype=np.int32), pivots.shape), axis=-1)
    if _is_complex(a):
        sign = reductions.prod(diag / ufuncs.absolute(diag).astype(diag.dtype), axis=-1)
    else:
        sign = np.array(1, a.dtype)
        parity = parity + reductions.count_nonzero(diag < 0, axis=-1)
    sign = lax_numpy.where(is_zero, np.array(0, a.dtype),
                           sign * (-2 * (parity % 2) + 1).astype(a.dtype))
    logdet = lax_numpy.where(is_zero, np.array(-np.inf, a.dtype),
                             reductions.sum(ufuncs.log(ufuncs.absolute(diag)).astype(a.dtype), axis=-1))
    return sign, ufuncs.real(logdet)


@custom_jvp
@_jit()
def _slogdet_qr(a):
    # NB: JAX reads det(Q)'s sign off geqrf's reflectors; pyjax takes it from Q's LU factors
    if _is_complex(a):
        raise NotImplementedError("slogdet method='qr' not implemented for complex inputs")
    q, r = lax_linalg.qr(a)
    r_diag = lax_numpy.diagonal(r, axis1=-2, axis2=-1)
    log_abs_det = reductions.sum(ufuncs.log(ufuncs.absolute(r_diag)), axis=-1)
    sign = reductions.prod(ufuncs.sign(r_diag), axis=-1) * _slogdet_lu(q)[0]
    return sign, log_abs_det


def _slogdet_jvp(primals, tangents):
    (x,), (g,) = primals, tangents
    sign, ans = slogdet(x)
    ans_dot = lax_numpy.trace(solve(x, g), axis1=-1, axis2=-2)
    if _is_complex(x):
        sign_dot = (ans_dot - ufuncs.real(ans_dot).astype(ans_dot.dtype)) * sign
        ans_dot = ufuncs.real(ans_dot)
    else:
        sign_dot = creation.zeros_like(sign)
    return (sign, ans), (sign_dot, ans_dot)


_slogdet_lu.defjvp(_slogdet_jvp)
_slogdet_qr.defjvp(_slogdet_jvp)


def pinv(a, rtol=None, hermitian: bool = False, *, rcond=None):
    """Moore-Penrose pseudo-inverse through the SVD; singular values below rtol * max(s) are
    dropped (default rtol: 10 * max(m, n) * eps). Differentiable with JAX's custom JVP."""
    if rcond is not None:
        if rtol is not None:
            raise ValueError("pinv: only one of rtol and rcond may be specified.")
        rtol = rcond
    return _pinv(a, rtol, hermitian)


def _pinv_impl(a, rtol, hermitian):
    a, = _inexact("jnp.linalg.pinv", a)
    m, n = a.shape[-2:]
    if m == 0 or n == 0:
        return creation.zeros(a.shape[:-2] + (n, m), a.dtype)
    a = ufuncs.conj(a) if _is_complex(a) else a
    if rtol is None:
        rtol = 10.0 * max(m, n) * np.array(dtypes.finfo(a.dtype).eps)
    rtol = asarray_value(rtol)
    u, s, vh = svd(a, full_matrices=False, hermitian=hermitian)
    rtol = rtol.reshape(rtol.shape + (1,) * (s.ndim - rtol.ndim))
    cutoff = rtol * s[..., 0:1]
    s = lax_numpy.where(s > cutoff, s, np.inf).astype(u.dtype)
    res = _matmul(jshape.matrix_transpose(vh), jshape.matrix_transpose(u) / s[..., None])
    return res.astype(a.dtype)


_pinv = custom_jvp(_pinv_impl, nondiff_argnums=(1, 2))


@_pinv.defjvp
def _pinv_jvp(rtol, hermitian, primals, tangents):
    # Golub & Pereyra, "The differentiation of pseudo-inverses and nonlinear least squares
    # problems whose variables separate" (4.12): the derivative where the rank is constant
    (a,), (a_dot,) = primals, tangents
    p = _pinv_impl(a, rtol, hermitian)
    if hermitian:
        a, a_dot = lax_linalg.symmetrize(a), lax_linalg.symmetrize(a_dot)
    m, n = a.shape[-2:]
    mm = _matmul
    if m >= n:
        s = mm(mm(p, _H(p)), _H(a_dot))
        t = mm(mm(_H(a_dot), _H(p)), p)
        p_dot = -mm(mm(p, a_dot), p) + s - mm(mm(s, a), p) + t - mm(mm(p, a), t)
    else:
        s = mm(p, mm(_H(p), _H(a_dot)))
        t = mm(_H(a_dot), mm(_H(p), p))
        p_dot = -mm(p, mm(a_dot, p)) + s - mm(s, mm(a, p)) + t - mm(p, mm(a, t))
    return p, p_dot


def tensorinv(a, ind: int = 2):
    """The inverse of a tensor: a's first `ind` dimensions against the rest, as a matrix."""
    a, = _arrays("tensorinv", a)
    ind = operator.index(ind)
    if ind <= 0:
        raise ValueError(f"ind must be a positive integer; got ind={ind}")
    contracting, batch = a.shape[:ind], a.shape[ind:]
    flat = (math.prod(contracting), math.prod(batch))
    if flat[0] != flat[1]:
        raise ValueError(f"tensorinv is only possible when the product of the first `ind` "
                         f"dimensions equals that of the remaining dimensions. got "
                         f"arr.shape={a.shape} with ind={ind}.")
    return inv(a.reshape(flat)).reshape(*batch, *contracting)


def tensorsolve(a, b, axes=None):
    """Solve tensordot(a, x, x.ndim) = b for x."""
    a, b = _arrays("tensorsolve", a, b)
    if axes is not None:
        a = jshape.moveaxis(a, axes, len(axes) * (a.ndim - 1,))
    out_shape = a.shape[b.ndim:]
    if a.shape[:b.ndim] != b.shape:
        raise ValueError(f"After moving axes to end, leading shape of a must match shape of b. "
                         f"got a.shape={a.shape}, b.shape={b.shape}")
    if b.size != math.prod(out_shape):
        raise ValueError(f"Input arrays must have prod(a.shape[:b.ndim]) == prod(a.shape[b.ndim:]); "
                         f"got a.shape={a.shape}, b.ndim={b.ndim}.")
    return solve(a.reshape(b.size, math.prod(out_shape)), b.ravel()).reshape(out_shape)


# -- matrix functions and norms -------------------------------------------------------------------


def matrix_power(a, n):
    """a raised to the integer power n (n < 0 inverts first), by repeated squaring."""
    a, = _arrays("jnp.linalg.matrix_power", a)
    if a.ndim < 2:
        raise TypeError(f"{a.ndim}-dimensional array given. Array must be at least two-dimensional")
    if a.shape[-2] != a.shape[-1]:
        raise TypeError("Last 2 dimensions of the array must be square")
    try:
        n = operator.index(n)
    except TypeError as err:
        raise TypeError(f"exponent must be an integer, got {n}") from err
    if n == 0:
        return broadcast_to(creation.eye(a.shape[-2], dtype=a.dtype), a.shape)
    if n < 0:
        a, n = inv(a), -n
    result, z = None, None
    while n > 0:
        z = a if z is None else z @ z
        n, bit = divmod(n, 2)
        if bit:
            result = z if result is None else result @ z
    return result


def matrix_rank(M, rtol=None, *, hermitian: bool = False, tol=None):
    """The number of singular values above rtol * max(s) (default rtol: max(m, n) * eps)."""
    M, = _arrays("jnp.linalg.matrix_rank", M)
    if tol is not None:
        if rtol is not None:
            raise ValueError("matrix_rank: only one of tol or rtol may be specified.")
        rtol = tol
    M, = promote_dtypes_inexact(M)
    if M.ndim < 2:
        return reductions.any(M != 0).astype(np.int32)
    S = svd(M, full_matrices=False, compute_uv=False, hermitian=hermitian)
    if rtol is None:
        rtol = reductions.max(S, axis=-1) * np.array(max(M.shape[-2:]) * dtypes.finfo(S.dtype).eps,
                                                     S.dtype)
    rtol = asarray_value(rtol)
    return reductions.sum(S > rtol[..., None], axis=-1)


def cond(x, p=None):
    """The condition number of x in the norm `p` (None/2/-2: from the singular values)."""
    x, = _arrays("cond", x)
    if x.ndim < 2:
        raise ValueError(f"jnp.linalg.cond: input array must be at least 2D; got arr.shape={x.shape}")
    if x.shape[-1] == 0 or x.shape[-2] == 0:
        raise ValueError(f"jnp.linalg.cond: input array must not be empty; got arr.shape={x.shape}")
    if p is None or p == 2:
        s = svdvals(x)
        return s[..., 0] / s[..., -1]
    if p == -2:
        s = svdvals(x)
        r = s[..., -1] / s[..., 0]
    else:
        if x.shape[-2] != x.shape[-1]:
            raise ValueError(f"jnp.linalg.cond: for p={p}, array must be square; got arr.shape={x.shape}")
        r = norm(x, ord=p, axis=(-2, -1)) * norm(inv(x), ord=p, axis=(-2, -1))
    nan_in = reductions.any(ufuncs.isnan(x), axis=(-2, -1))
    return lax_numpy.where(ufuncs.isnan(r) & ~nan_in, np.inf, r)


def _sum_sq(x, axis, keepdims):
    return ufuncs.sqrt(reductions.sum(ufuncs.real(x * ufuncs.conj(x)), axis=axis, keepdims=keepdims))


def vector_norm(x, /, *, axis=None, keepdims: bool = False, ord=2):
    """The vector norm of order `ord` (2, 1, inf, -inf, 0 or any p) over `axis`."""
    x, = _inexact("jnp.linalg.vector_norm", x)
    if ord is None or ord == 2:
        return _sum_sq(x, axis, keepdims)
    if isinstance(ord, str):
        msg = f"Invalid order '{ord}' for vector norm."
        if ord in ("inf", "-inf"):
            msg += f"Use '{ord[:-3]}jax.numpy.inf' instead."
        raise ValueError(msg)
    ax = ufuncs.absolute(x)
    if ord == np.inf:
        return reductions.max(ax, axis=axis, keepdims=keepdims, initial=0)
    if ord == -np.inf:
        return reductions.min(ax, axis=axis, keepdims=keepdims)
    if ord == 0:
        return reductions.sum(x != 0, dtype=ax.dtype, axis=axis, keepdims=keepdims)
    if ord == 1:
        return reductions.sum(ax, axis=axis, keepdims=keepdims)
    p = np.array(ord, ax.dtype)
    return ufuncs.power(reductions.sum(ax ** p, axis=axis, keepdims=keepdims), np.array(1.0, ax.dtype) / p)


def _matrix_norm(x, ord, axis, keepdims):
    row, col = axis
    if ord is None or ord in ("f", "fro"):
        return _sum_sq(x, axis, keepdims)
    if ord in (1, -1):
        pick = reductions.max if ord == 1 else reductions.min
        col = col - 1 if not keepdims and col > row else col
        kw = {"initial": 0} if ord == 1 else {}
        return pick(reductions.sum(ufuncs.absolute(x), axis=row, keepdims=keepdims), axis=col,
                    keepdims=keepdims, **kw)
    if ord in (np.inf, -np.inf):
        pick = reductions.max if ord == np.inf else reductions.min
        row = row - 1 if not keepdims and row > col else row
        kw = {"initial": 0} if ord == np.inf else {}
        return pick(reductions.sum(ufuncs.absolute(x), axis=col, keepdims=keepdims), axis=row,
                    keepdims=keepdims, **kw)
    if ord in ("nuc", 2, -2):
        s = svd(jshape.moveaxis(x, axis, (-2, -1)), compute_uv=False)
        if ord == 2:
            y = reductions.max(s, axis=-1, initial=0)
        elif ord == -2:
            y = reductions.min(s, axis=-1)
        else:
            y = reductions.sum(s, axis=-1)
        return jshape.expand_dims(y, axis) if keepdims else y
    raise ValueError(f"Invalid order '{ord}' for matrix norm.")


def norm(x, ord=None, axis=None, keepdims: bool = False):
    """Vector norms (one axis) and matrix norms (two axes: 'fro', 'nuc', 1, -1, 2, -2, inf,
    -inf); with axis=None and ord=None the 2-norm of the flattened array.

    >>> jnp.linalg.norm(x, ord=2, axis=(-2, -1))
    """
    x, = _inexact("jnp.linalg.norm", x)
    if axis is None:
        if ord is None:
            return _sum_sq(x, None, keepdims)
        axis = tuple(range(x.ndim))
    elif isinstance(axis, tuple):
        axis = tuple(canonicalize_axis(a, x.ndim, "axis", "jnp.linalg.norm") for a in axis)
    else:
        axis = (canonicalize_axis(axis, x.ndim, "axis", "jnp.linalg.norm"),)
    if len(axis) == 1:
        return vector_norm(x, ord=2 if ord is None else ord, axis=axis, keepdims=keepdims)
    if len(axis) == 2:
        return _matrix_norm(x, ord, axis, keepdims)
    raise ValueError(f"Improper number of axes for norm: axis={axis}. Pass one axis to compute a "
                     f"vector-norm, or two axes to compute a matrix-norm.")


def matrix_norm(x, /, *, keepdims: bool = False, ord="fro"):
    """The matrix norm of order `ord` over the last two axes."""
    return norm(x, ord=ord, keepdims=keepdims, axis=(-2, -1))


# -- products and array-API helpers ---------------------------------------------------------------


def multi_dot(arrays, *, precision=None):
    """The product of a chain of matrices (first/last may be vectors), in the cheapest order."""
    arrs = _arrays("jnp.linalg.multi_dot", *arrays)
    if len(arrs) < 2:
        raise ValueError(f"multi_dot requires at least two arrays; got len(arrays)={len(arrs)}")
    shapes = [a.shape for a in arrs]
    if not (arrs[0].ndim in (1, 2) and arrs[-1].ndim in (1, 2)
            and all(a.ndim == 2 for a in arrs[1:-1])):
        raise ValueError(f"multi_dot: input arrays must all be two-dimensional, except for the first "
                         f"and last array which may be 1 or 2 dimensional. Got array shapes {shapes}")
    if any(a.shape[-1] != b.shape[0] for a, b in zip(arrs[:-1], arrs[1:])):
        raise ValueError(f"multi_dot: last dimension of each array must match first dimension of "
                         f"following array. Got array shapes {shapes}")
    axes = [(i, i + 1) for i in range(len(arrs))]
    if arrs[0].ndim == 1:
        axes[0] = axes[0][1:]
    if arrs[-1].ndim == 1:
        axes[-1] = axes[-1][:1]
    return linalg_ops.einsum(*itertools.chain(*zip(arrs, axes)), optimize="auto", precision=precision)


def cross(x1, x2, /, *, axis=-1):
    """The cross product of (arrays of) 3-vectors along `axis`."""
    x1, x2 = _arrays("jnp.linalg.cross", x1, x2)
    if x1.shape[axis] != 3 or x2.shape[axis] != 3:
        raise ValueError(f"Both input arrays must be (arrays of) 3-dimensional vectors, but they "
                         f"have x1.shape[axis]={x1.shape[axis]} and x2.shape[axis]={x2.shape[axis]}")
    a, b = (jshape.moveaxis(v, axis, -1) for v in (x1, x2))
    a0, a1, a2 = a[..., 0], a[..., 1], a[..., 2]
    b0, b1, b2 = b[..., 0], b[..., 1], b[..., 2]
    out = jshape.stack([a1 * b2 - a2 * b1, a2 * b0 - a0 * b2, a0 * b1 - a1 * b0], axis=-1)
    return jshape.moveaxis(out, -1, axis)


def outer(x1, x2, /):
    """The outer product of two vectors."""
    x1, x2 = _arrays("jnp.linalg.outer", x1, x2)
    if x1.ndim != 1 or x2.ndim != 1:
        raise ValueError(f"Input arrays must be one-dimensional, but they are x1.ndim={x1.ndim} "
                         f"x2.ndim={x2.ndim}")
    return x1[:, None] * x2[None, :]


def matrix_transpose(x, /):
    """Swap the last two axes."""
    x, = _arrays("jnp.linalg.matrix_transpose", x)
    if x.ndim < 2:
        raise ValueError(f"matrix_transpose requires at least 2 dimensions; got ndim={x.ndim}")
    return lax_s.transpose(x, (*range(x.ndim - 2), x.ndim - 1, x.ndim - 2))


def diagonal(x, /, *, offset: int = 0):
    """The diagonals of the matrices of x (its last two axes)."""
    x, = _arrays("jnp.linalg.diagonal", x)
    return lax_numpy.diagonal(x, offset=offset, axis1=-2, axis2=-1)


def trace(x, /, *, offset: int = 0, dtype=None):
    """The traces of the matrices of x (its last two axes)."""
    x, = _arrays("jnp.linalg.trace", x)
    return lax_numpy.trace(x, offset=offset, axis1=-2, axis2=-1, dtype=dtype)


def vecdot(x1, x2, /, *, axis: int = -1, precision=None, preferred_element_type=None):
    """sum(conj(x1) * x2) along `axis`, broadcasting the other axes."""
    x1, x2 = _arrays("jnp.linalg.vecdot", x1, x2)
    return linalg_ops.vecdot(x1, x2, axis=axis, precision=precision,
                             preferred_element_type=preferred_element_type)


def matmul(x1, x2, /, *, precision=None, preferred_element_type=None):
    """jnp.matmul with positional-only operands (the array API's)."""
    x1, x2 = _arrays("jnp.linalg.matmul", x1, x2)
    return linalg_ops.matmul(x1, x2, precision=precision, preferred_element_type=preferred_element_type)


def tensordot(x1, x2, /, *, axes=2, precision=None, preferred_element_type=None, out_sharding=None):
    """jnp.tensordot with keyword-only axes (the array API's)."""
    x1, x2 = _arrays("jnp.linalg.tensordot", x1, x2)
    return linalg_ops.tensordot(x1, x2, axes=axes, precision=precision,
                                preferred_element_type=preferred_element_type)
