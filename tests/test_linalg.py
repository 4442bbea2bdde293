"""lax.linalg and jnp.linalg: against JAX 0.10.2's recorded results (LAPACK's pivots, signs and
normalizations, NaNs for failed factorizations, special derivatives, exception classes), against
NumPy/SciPy over dtypes and batch shapes (values and reconstruction identities), jit against
eager, vmap against a loop, check_grads, and the LAPACK kernels' registration (not at import;
found again by a cached executable in a fresh process)."""
import json
import os
import pathlib
import subprocess
import sys
import warnings

import numpy as np
import pytest

import pyjax
import pyjax.numpy as jnp
import pyjax.scipy.linalg as jsp_linalg
from pyjax import lax
from pyjax.test_util import check_grads
from recorded_cases import assert_matches, evaluate_cases

DATA = json.loads((pathlib.Path(__file__).parent / "data" / "linalg.json").read_text())
L = jnp.linalg

# -- JAX's recorded results ---------------------------------------------------------------------

_RECORDED = evaluate_cases(DATA["prelude"], DATA["cases"],
                           {"jax": pyjax, "jnp": jnp, "lax": lax, "np": np})


@pytest.mark.parametrize("expr", list(DATA["cases"]))
def test_recorded(expr):
    # the same LAPACK kernels as JAX: float32 results agree to a few ulps
    assert_matches(_RECORDED[expr], DATA["cases"][expr], rtol=2e-5, atol=2e-5, err_msg=expr)


# -- values against NumPy over dtypes and batch shapes -----------------------------------------

DTYPES = [np.float32, np.complex64, np.float64]
TOL = {np.float32: 2e-4, np.complex64: 2e-4, np.float64: 1e-10, np.complex128: 1e-10}


@pytest.fixture
def x64():
    with pyjax.enable_x64(True):
        yield


@pytest.fixture(params=DTYPES, ids=lambda d: np.dtype(d).name)
def dtype(request):
    if np.dtype(request.param).itemsize == 8 and request.param != np.complex64:
        with pyjax.enable_x64(True):
            yield request.param
    else:
        yield request.param


def _rand(shape, dtype, seed=0, wellcond=True):
    rs = np.random.RandomState(seed)
    x = rs.randn(*shape)
    if np.dtype(dtype).kind == "c":
        x = x + 1j * rs.randn(*shape)
    if wellcond and len(shape) >= 2 and shape[-1] == shape[-2]:
        x = x + 3 * np.eye(shape[-1])
    return x.astype(dtype)


def _hermitian(shape, dtype, seed=0):
    x = _rand(shape, dtype, seed, wellcond=False)
    return (x + np.swapaxes(x, -1, -2).conj()) / 2


def _spd(shape, dtype, seed=0):
    x = _rand(shape, dtype, seed, wellcond=False)
    return x @ np.swapaxes(x, -1, -2).conj() + shape[-1] * np.eye(shape[-1], dtype=dtype)


def _close(actual, expected, dtype, scale=1):
    tol = TOL[np.dtype(dtype).type] * scale
    actual = np.asarray(actual)
    np.testing.assert_allclose(actual, np.broadcast_to(expected, actual.shape), rtol=tol, atol=tol)


def _H(x):
    return np.swapaxes(x, -1, -2).conj()


@pytest.mark.parametrize("shape", [(4, 4), (2, 3, 3)])
def test_solve_inv_det_slogdet(dtype, shape):
    a = _rand(shape, dtype)
    b = _rand(shape[:-1] + (2,), dtype, seed=1)
    _close(L.solve(a, b), np.linalg.solve(a, b), dtype)
    _close(L.solve(a, b[..., 0]) if len(shape) == 2 else L.solve(a[0], b[0, :, 0]),
           np.linalg.solve(a, b[..., 0]) if len(shape) == 2 else np.linalg.solve(a[0], b[0, :, 0]), dtype)
    _close(L.inv(a), np.linalg.inv(a), dtype)
    _close(L.det(a), np.linalg.det(a), dtype, scale=10)
    sign, logdet = L.slogdet(a)
    want_sign, want_logdet = np.linalg.slogdet(a)
    _close(sign, want_sign, dtype)
    _close(logdet, want_logdet, dtype)
    assert sign.dtype == np.dtype(dtype) and logdet.dtype == np.zeros(0, dtype).real.dtype


def test_solve_broadcasts_b_like_jax():
    a = _rand((2, 1, 3, 3), np.float32)
    b = _rand((4, 3, 2), np.float32, seed=1)
    want = np.linalg.solve(a, b)
    assert L.solve(a, b).shape == want.shape == (2, 4, 3, 2)
    _close(L.solve(a, b), want, np.float32)
    _close(L.solve(a, b[0, :, 0]), np.linalg.solve(a, b[0, :, 0]), np.float32)  # one vector


@pytest.mark.parametrize("shape", [(4, 4), (2, 5, 3), (3, 5)])
def test_decompositions_reconstruct(dtype, shape):
    a = _rand(shape, dtype, wellcond=False)
    k = min(shape[-2:])
    q, r = L.qr(a)
    _close(q @ r, a, dtype)
    _close(_H(np.asarray(q)) @ np.asarray(q), np.eye(k), dtype)
    np.testing.assert_array_equal(np.tril(np.asarray(r), -1), 0)
    q, r = L.qr(a, mode="complete")
    assert q.shape == shape[:-1] + (shape[-2],)
    _close(q @ r, a, dtype)
    u, s, vh = L.svd(a, full_matrices=False)
    _close((np.asarray(u) * np.asarray(s)[..., None, :]) @ np.asarray(vh), a, dtype)
    _close(s, np.linalg.svd(a, compute_uv=False), dtype)
    _close(L.svdvals(a), np.linalg.svd(a, compute_uv=False), dtype)
    u, s, vh = L.svd(a)
    assert u.shape[-1] == shape[-2] and vh.shape[-2] == shape[-1]
    lu, piv, perm = lax.linalg.lu(a)
    lu = np.asarray(lu)
    lower = np.tril(lu[..., :, :k], -1) + np.eye(shape[-2], k)
    upper = np.triu(lu[..., :k, :])
    _close(lower @ upper, np.take_along_axis(a, np.asarray(perm)[..., None], axis=-2), dtype)


@pytest.mark.parametrize("shape", [(4, 4), (2, 3, 3)])
def test_hermitian_decompositions(dtype, shape):
    h = _hermitian(shape, dtype)
    w, v = L.eigh(h)
    w, v = np.asarray(w), np.asarray(v)
    assert w.dtype == np.zeros(0, dtype).real.dtype
    _close(w, np.linalg.eigvalsh(h), dtype)
    _close((v * w[..., None, :]) @ _H(v), h, dtype)
    _close(L.eigvalsh(h), np.linalg.eigvalsh(h), dtype)
    spd = _spd(shape, dtype)
    c = np.asarray(L.cholesky(spd))
    _close(c, np.linalg.cholesky(spd), dtype)
    _close(L.cholesky(spd, upper=True), _H(c), dtype)
    u, s, vh = L.svd(h, hermitian=True)
    _close(s, np.linalg.svd(h, compute_uv=False), dtype)
    _close((np.asarray(u) * np.asarray(s)[..., None, :]) @ np.asarray(vh), h, dtype)


def test_eig(dtype):
    a = _rand((2, 4, 4), dtype, wellcond=False)
    w, v = L.eig(a)
    w, v = np.asarray(w), np.asarray(v)
    assert w.dtype.kind == "c" and v.dtype.kind == "c"
    _close(a @ v, v * w[..., None, :], dtype, scale=10)
    _close(np.linalg.norm(v, axis=-2), np.ones((2, 4)), dtype)
    _close(np.sort_complex(np.asarray(L.eigvals(a))), np.sort_complex(np.linalg.eigvals(a)), dtype, 10)
    w, vl, vr = lax.linalg.eig(a)
    _close(_H(np.asarray(vl)) @ a, np.asarray(w)[..., :, None] * _H(np.asarray(vl)), dtype, scale=10)


def test_triangular_solve_every_flag(dtype):
    a = _rand((2, 3, 3), dtype)
    b = _rand((2, 3, 2), dtype, seed=1)
    for left in (True, False):
        for lower in (True, False):
            for transpose_a, conjugate_a in ((False, False), (True, False), (True, True), (False, True)):
                for unit in (False, True):
                    rhs = b if left else np.swapaxes(b, -1, -2)
                    got = lax.linalg.triangular_solve(a, rhs, left_side=left, lower=lower,
                                                      transpose_a=transpose_a,
                                                      conjugate_a=conjugate_a, unit_diagonal=unit)
                    t = np.tril(a, -unit) if lower else np.triu(a, unit)
                    t = t + unit * np.eye(3)
                    t = np.swapaxes(t, -1, -2) if transpose_a else t
                    t = t.conj() if conjugate_a else t
                    check = t @ np.asarray(got) if left else np.asarray(got) @ t
                    _close(check, rhs, dtype)


def test_subset_by_index():
    h = _hermitian((5, 5), np.float32)
    v, w = lax.linalg.eigh(h, subset_by_index=(1, 4))
    _close(w, np.linalg.eigvalsh(h)[1:4], np.float32)
    s = lax.linalg.svd(h, full_matrices=False, compute_uv=False, subset_by_index=(0, 2))
    _close(s, np.linalg.svd(h, compute_uv=False)[:2], np.float32)


def test_qr_pivoting_and_permutations():
    a = _rand((2, 4, 3), np.float32, wellcond=False)
    q, r, p = lax.linalg.qr(a, pivoting=True, full_matrices=False)
    _close(np.asarray(q) @ np.asarray(r), np.take_along_axis(a, np.asarray(p)[..., None, :], -1), np.float32)
    d = np.abs(np.diagonal(np.asarray(r), axis1=-2, axis2=-1))
    assert np.all(d[..., :-1] >= d[..., 1:])  # column pivoting sorts |R_ii|
    pivots = np.array([[2, 3, 3], [1, 1, 2]], np.int32)
    got = lax.linalg.lu_pivots_to_permutation(pivots, 4)
    want = []
    for row in pivots:
        perm = list(range(4))
        for i, j in enumerate(row):
            perm[i], perm[j] = perm[j], perm[i]
        want.append(perm)
    np.testing.assert_array_equal(got, want)


def test_empty_matrices_solve_and_permute():
    # an empty system has no pivots: the identity permutation, and solves of the right empty
    # shapes, eager and under jit (lineax's LU solve of a 0x0 operator, through diffrax; JAX 0.10.2
    # gives the same shapes and permutations)
    import pyjax.scipy.linalg as jsl
    lu_piv = jsl.lu_factor(jnp.zeros((0, 0)))
    for trans in (0, 1, 2):
        assert jsl.lu_solve(lu_piv, jnp.zeros((0,)), trans=trans).shape == (0,)
        assert jsl.lu_solve(lu_piv, jnp.zeros((0, 3)), trans=trans).shape == (0, 3)
    solve = pyjax.jit(lambda lu_, piv, b: jsl.lu_solve((lu_, piv), b))
    assert solve(*lu_piv, jnp.zeros((0,))).shape == (0,)
    assert jnp.linalg.solve(jnp.zeros((2, 0, 0)), jnp.zeros((2, 0, 1))).shape == (2, 0, 1)
    perm = lax.linalg.lu_pivots_to_permutation(jnp.zeros((3, 0), jnp.int32), 2)
    np.testing.assert_array_equal(perm, [[0, 1]] * 3)
    jitted = pyjax.jit(lax.linalg.lu_pivots_to_permutation, static_argnums=1)
    np.testing.assert_array_equal(jitted(jnp.zeros((0,), jnp.int32), 3), [0, 1, 2])


def test_reductions_and_structured_solves_against_scipy(dtype):
    import scipy.linalg
    a = _rand((2, 4, 4), dtype, wellcond=False)
    h, taus = lax.linalg.hessenberg(a)
    for i in range(2):
        want_h = scipy.linalg.hessenberg(a[i])
        _close(np.abs(np.triu(np.asarray(h)[i], -1)), np.abs(want_h), dtype, scale=10)
    herm = _hermitian((2, 4, 4), dtype)
    arr, d, e, taus = lax.linalg.tridiagonal(herm)
    w_tri = [scipy.linalg.eigvalsh_tridiagonal(np.asarray(d)[i], np.asarray(e)[i]) for i in range(2)]
    _close(np.stack(w_tri), np.linalg.eigvalsh(herm), dtype, scale=10)  # same spectrum
    t, q = lax.linalg.schur(a)
    t, q = np.asarray(t), np.asarray(q)
    _close(q @ t @ _H(q), a, dtype, scale=10)
    _close(_H(q) @ q, np.eye(4), dtype)
    if np.dtype(dtype).kind == "c":
        np.testing.assert_array_equal(np.tril(t, -1), 0)
    qr_a = _rand((2, 4, 3), dtype, wellcond=False)
    q_full = np.asarray(lax.linalg.qr(qr_a)[0])
    geqrf = [scipy.linalg.lapack.get_lapack_funcs("geqrf", (m,))(m) for m in qr_a]
    refl, tau = np.stack([g[0] for g in geqrf]), np.stack([g[1] for g in geqrf])
    c = _rand((2, 4, 2), dtype, seed=3, wellcond=False)
    _close(lax.linalg.ormqr(refl, tau, c), q_full @ c, dtype)
    _close(lax.linalg.ormqr(refl, tau, c, transpose=True), _H(q_full) @ c, dtype)
    _close(lax.linalg.ormqr(refl, tau, _H(c), left=False), _H(c) @ q_full, dtype)
    _close(lax.linalg.householder_product(refl, tau), q_full[..., :3], dtype)
    dl, dd, du = (_rand((2, 5), dtype, seed=s, wellcond=False) for s in (4, 5, 6))
    dd = dd + 4
    b = _rand((2, 5, 3), dtype, seed=7, wellcond=False)
    dense = np.stack([np.diag(dd[i]) + np.diag(dl[i, 1:], -1) + np.diag(du[i, :-1], 1) for i in range(2)])
    _close(lax.linalg.tridiagonal_solve(dl, dd, du, b), np.linalg.solve(dense, b), dtype)
    _close(lax.linalg.tridiagonal_solve(dl, dd, du, b, perturb_singular=True), np.linalg.solve(dense, b), dtype)


def test_symmetric_product_and_cholesky_update():
    a = _rand((2, 3, 4), np.float32, wellcond=False)
    c = _hermitian((2, 3, 3), np.float32)
    got = lax.linalg.symmetric_product(a, c, alpha=2.0, beta=0.5, symmetrize_output=True)
    _close(got, 2 * a @ np.swapaxes(a, -1, -2) + 0.5 * c, np.float32)
    spd = _spd((4, 4), np.float32)
    r = np.linalg.cholesky(spd).T
    w = _rand((4,), np.float32, seed=1)
    _close(lax.linalg.cholesky_update(r, w), np.linalg.cholesky(spd + np.outer(w, w)).T, np.float32)


# -- norms and the rest of jnp.linalg against NumPy ----------------------------------------------

MATRIX_ORDS = [None, "fro", "nuc", 1, -1, 2, -2, np.inf, -np.inf]
VECTOR_ORDS = [None, 0, 1, 2, -1, 3, 0.5, np.inf, -np.inf]


@pytest.mark.parametrize("keepdims", [False, True])
def test_norms(keepdims):
    x = _rand((2, 3, 4), np.float32, wellcond=False)
    for ord_ in MATRIX_ORDS:
        for axis in [(1, 2), (2, 0)]:
            _close(L.norm(x, ord_, axis, keepdims), np.linalg.norm(x, ord_, axis, keepdims), np.float32)
        _close(L.matrix_norm(x, ord=ord_ or "fro", keepdims=keepdims),
               np.linalg.norm(x, ord_ or "fro", (-2, -1), keepdims), np.float32)
    for ord_ in VECTOR_ORDS:
        _close(L.norm(x, ord_, 1, keepdims), np.linalg.norm(x, ord_, 1, keepdims), np.float32)
        _close(L.vector_norm(x, ord=2 if ord_ is None else ord_, axis=(0, 2), keepdims=keepdims),
               np.linalg.vector_norm(x, ord=2 if ord_ is None else ord_, axis=(0, 2), keepdims=keepdims)
               if hasattr(np.linalg, "vector_norm") else
               np.linalg.norm(x.transpose(1, 0, 2).reshape(3, -1), 2 if ord_ is None else ord_, 1,
                              ).reshape((1, 3, 1) if keepdims else (3,)), np.float32)
    _close(L.norm(x), np.linalg.norm(x), np.float32)
    c = _rand((3, 3), np.complex64)
    _close(L.norm(c, "nuc"), np.linalg.norm(c, "nuc"), np.complex64)


def test_other_functions_against_numpy():
    a = _rand((3, 4, 4), np.float32)
    g = _rand((5, 3), np.float32, wellcond=False)
    y = _rand((5, 2), np.float32, seed=2, wellcond=False)
    x, resid, rank, s = L.lstsq(g, y)
    wx, wres, wrank, ws = np.linalg.lstsq(g, y, rcond=None)
    for got, want in ((x, wx), (resid, wres), (s, ws)):
        _close(got, want, np.float32)
    assert int(rank) == wrank
    _close(L.pinv(g), np.linalg.pinv(g), np.float32)
    _close(L.pinv(a), np.linalg.pinv(a), np.float32)
    assert int(L.matrix_rank(g @ g.T)) == np.linalg.matrix_rank(g @ g.T) == 3
    _close(L.cond(a), np.linalg.cond(a), np.float32, scale=10)
    for p in (1, -1, np.inf, "fro"):
        _close(L.cond(a, p), np.linalg.cond(a, p), np.float32, scale=10)
    for n in (0, 1, 2, 5, -1, -3):
        _close(L.matrix_power(a, n), np.linalg.matrix_power(a, n), np.float32, scale=100)
    _close(L.multi_dot([g.T, g, a[0, :3, :3], np.ones(3, np.float32)]),
           np.linalg.multi_dot([g.T, g, a[0, :3, :3], np.ones(3)]), np.float32, scale=10)
    t = _rand((2, 3, 6), np.float32, wellcond=False)
    _close(L.tensorinv(t), np.linalg.tensorinv(t), np.float32, scale=100)
    _close(L.tensorsolve(t, g[:2]), np.linalg.tensorsolve(t, g[:2]), np.float32, scale=100)
    u, v = _rand((2, 3), np.float32, 1, False), _rand((3, 2), np.float32, 2, False)
    _close(L.cross(u, v.T), np.cross(u, v.T), np.float32)
    _close(L.cross(u.T, v, axis=0), np.cross(u.T, v, axis=0), np.float32)
    _close(L.outer(u[0], v[0]), np.outer(u[0], v[0]), np.float32)
    _close(L.trace(a, offset=1), np.trace(a, 1, -2, -1), np.float32)
    _close(L.diagonal(a, offset=-1), np.diagonal(a, -1, -2, -1), np.float32)
    _close(L.vecdot(a, a), np.sum(a * a, -1), np.float32)
    _close(L.matmul(a, a), a @ a, np.float32)
    _close(L.tensordot(a, a[0], axes=2), np.tensordot(a, a[0], 2), np.float32)
    _close(L.matrix_transpose(a), np.swapaxes(a, -1, -2), np.float32)


def test_every_name_of_the_modules():
    names = json.loads((pathlib.Path("/work/shared/data/jax_0.10.2_public_names.json")).read_text()) \
        if pathlib.Path("/work/shared/data/jax_0.10.2_public_names.json").exists() else None
    if names is None:
        pytest.skip("the names file lives outside the repository")
    import pyjax.lax.linalg as lax_linalg
    assert not [n for n in names["jax.numpy.linalg"] if not hasattr(jnp.linalg, n)]
    assert not [n for n in names["jax.lax.linalg"] if not hasattr(lax_linalg, n)
                and n not in LAX_LINALG_SKIPPED]


LAX_LINALG_SKIPPED: set = set()


# -- transformations ------------------------------------------------------------------------------

def test_jit_matches_eager_and_vmap_matches_a_loop():
    a = _rand((3, 4, 4), np.float32)
    b = _rand((3, 4), np.float32, seed=1, wellcond=False)
    fns = [lambda a, b: L.solve(a, b), lambda a, b: L.inv(a) @ b, lambda a, b: L.det(a) * b,
           lambda a, b: L.eigh(a + a.T)[0] + b, lambda a, b: L.svd(a, compute_uv=False) * b,
           lambda a, b: L.qr(a)[1][0] + b, lambda a, b: L.slogdet(a)[1] + b,
           lambda a, b: L.cholesky(a @ a.T)[..., 0] + b, lambda a, b: L.pinv(a) @ b,
           lambda a, b: jnp.abs(L.eigvals(a)) + b]
    for f in fns:
        loop = np.stack([np.asarray(f(a[i], b[i])) for i in range(3)])
        _close(pyjax.vmap(f)(a, b), loop, np.float32, scale=10)
        _close(pyjax.jit(pyjax.vmap(f))(a, b), loop, np.float32, scale=10)
        _close(pyjax.vmap(f, in_axes=(None, 0))(a[0], b), np.stack([np.asarray(f(a[0], b[i])) for i in range(3)]),
               np.float32, scale=10)


def test_vmap_of_lax_decompositions_along_inner_axes():
    a = _rand((4, 2, 4), np.float32, wellcond=False)  # vmapped along axis 1
    got = pyjax.vmap(lambda x: lax.linalg.lu(x)[0], in_axes=1)(a)
    _close(got, np.stack([np.asarray(lax.linalg.lu(a[:, i])[0]) for i in range(2)]), np.float32)
    got = pyjax.vmap(lambda x, y: lax.linalg.triangular_solve(x, y, left_side=True), in_axes=(1, None))(a, a[:, 0])
    want = np.stack([np.asarray(lax.linalg.triangular_solve(a[:, i], a[:, 0], left_side=True)) for i in range(2)])
    _close(got, want, np.float32, scale=100)


@pytest.mark.parametrize("name,fn,args", [
    ("det", L.det, lambda: (_rand((4, 4), np.float64),)),
    ("det 3x3", L.det, lambda: (_rand((3, 3), np.float64),)),
    ("slogdet", lambda a: L.slogdet(a)[1], lambda: (_rand((4, 4), np.float64),)),
    ("slogdet qr", lambda a: L.slogdet(a, method="qr")[1], lambda: (_rand((4, 4), np.float64),)),
    ("slogdet complex", lambda a: L.slogdet(a)[0], lambda: (_rand((3, 3), np.complex128),)),
    ("inv", L.inv, lambda: (_rand((2, 3, 3), np.float64),)),
    ("solve", L.solve, lambda: (_rand((3, 3), np.float64), _rand((3, 2), np.float64, 1, False))),
    ("solve complex", L.solve, lambda: (_rand((3, 3), np.complex128), np.arange(3.0) + 1j)),
    ("cholesky", L.cholesky, lambda: (_spd((3, 3), np.float64),)),
    ("cholesky complex", L.cholesky, lambda: (_spd((3, 3), np.complex128),)),
    ("eigh", lambda a: L.eigh(a)[0], lambda: (_hermitian((3, 3), np.float64) + np.diag([0., 2., 4.]),)),
    ("eigh vectors", lambda a: jnp.abs(L.eigh(a)[1]), lambda: (_hermitian((3, 3), np.float64) + np.diag([0., 2., 4.]),)),
    ("svd", lambda a: L.svd(a, compute_uv=False), lambda: (_rand((4, 3), np.float64, 0, False),)),
    ("svd vectors", lambda a: jnp.abs(L.svd(a, full_matrices=False)[0]), lambda: (_rand((4, 3), np.float64, 0, False),)),
    ("qr", lambda a: L.qr(a), lambda: (_rand((4, 3), np.float64),)),
    ("qr wide", lambda a: L.qr(a), lambda: (_rand((3, 5), np.float64),)),
    ("qr complex", lambda a: L.qr(a), lambda: (_rand((3, 3), np.complex128),)),
    ("pinv", L.pinv, lambda: (_rand((4, 3), np.float64, 0, False),)),
    ("lstsq", lambda a, b: L.lstsq(a, b)[0], lambda: (_rand((5, 3), np.float64, 0, False), np.arange(5.0))),
    ("norm 2", lambda a: L.norm(a, 2), lambda: (_rand((3, 3), np.float64),)),
    ("matrix_power -2", lambda a: L.matrix_power(a, -2), lambda: (_rand((3, 3), np.float64),)),
    ("triangular_solve", lambda a, b: lax.linalg.triangular_solve(a, b, lower=True, transpose_a=True),
     lambda: (_rand((3, 3), np.float64), _rand((2, 3), np.float64, 1, False))),
    ("eigvals", lambda a: L.eigvals(a), lambda: (_hermitian((3, 3), np.float64) + np.diag([0., 2., 4.]),)),
])
def test_grads(x64, name, fn, args):
    check_grads(fn, args(), order=2, modes=("fwd", "rev"))


def test_eig_eigenvector_derivatives_opt_in(x64):
    a = _hermitian((3, 3), np.float64) + np.diag([0., 2., 4.]) + np.triu(np.ones((3, 3)), 1)
    with pytest.raises(NotImplementedError, match="enable_eigvec_derivs"):
        pyjax.jvp(lambda x: lax.linalg.eig(x)[2], (a,), (a,))
    check_grads(lambda x: lax.linalg.eig(x, compute_left_eigenvectors=False,
                                         enable_eigvec_derivs=True)[1], (a,), order=1, modes=("fwd",))


def test_det_gradient_at_singular_matrices_is_the_cofactor_matrix():
    s = np.array([[1., 2., 3., 4.], [2., 4., 6., 8.], [1., 0., 1., 0.], [0., 1., 0., 2.]])
    cof = np.array([[(-1) ** (i + j) * np.linalg.det(np.delete(np.delete(s, i, 0), j, 1))
                     for j in range(4)] for i in range(4)])
    assert np.abs(cof).max() > 1  # a rank-3 matrix: det's gradient is nonzero
    _close(pyjax.grad(L.det)(s.astype(np.float32)), cof, np.float32, scale=10)
    _close(pyjax.vmap(pyjax.grad(L.det))(np.stack([s, 2 * s]).astype(np.float32)),
           np.stack([cof, 8 * cof]), np.float32, scale=100)


# -- the LAPACK kernels: registered lazily, found by cached executables -------------------------

_CHILD = r"""
import sys, numpy as np
import pyjax, pyjax.numpy as jnp
from pyjax._src.backend import xla
assert "scipy" not in sys.modules, "import pyjax imported scipy"
a = np.array([[4., 1.], [1., 3.]], np.float32)
x = pyjax.jit(lambda a: jnp.linalg.solve(a, jnp.ones(2)) + jnp.linalg.eigh(a)[0])(a)
print(repr(np.asarray(x).tolist()), xla.cache_stats()["disk_hits"], xla.cache_stats()["compiles"])
"""


def test_lapack_targets_with_the_persistent_cache(tmp_path):
    """The second process loads the executable from disk without compiling anything; the
    kernels it calls must be registered all the same."""
    env = {**os.environ, "PYJAX_CACHE_DIR": str(tmp_path)}
    outs = []
    for _ in range(2):
        r = subprocess.run([sys.executable, "-c", _CHILD], env=env, capture_output=True, text=True)
        assert r.returncode == 0, r.stderr
        values, hits, compiles = r.stdout.rsplit(" ", 2)
        outs.append((json.loads(values), int(hits), int(compiles)))
    a = np.array([[4., 1.], [1., 3.]])
    np.testing.assert_allclose(outs[1][0], np.linalg.solve(a, np.ones(2)) + np.linalg.eigvalsh(a),
                               rtol=1e-6)
    assert outs[0][0] == outs[1][0] and outs[0][2] >= 1
    assert outs[1][1] >= 1 and outs[1][2] == 0, outs


# -- jax.scipy.linalg against SciPy ---------------------------------------------------------------

def _scipy_cases():
    import scipy.linalg as sl
    rs = np.random.RandomState(0)
    a = rs.randn(4, 4) + 4 * np.eye(4)
    spd, b, v, g = a @ a.T, rs.randn(4, 2), rs.randn(4), rs.randn(5, 3)
    h, d, e = a + a.T, rs.randn(5), rs.randn(4)
    m = rs.randn(4, 4)
    return [
        ("cholesky", lambda j: j.cholesky(spd), lambda: sl.cholesky(spd)),
        ("cholesky lower", lambda j: j.cholesky(spd, lower=True), lambda: sl.cholesky(spd, lower=True)),
        ("cho_solve", lambda j: j.cho_solve(j.cho_factor(spd), b), lambda: sl.cho_solve(sl.cho_factor(spd), b)),
        ("cho_solve lower vector", lambda j: j.cho_solve(j.cho_factor(spd, lower=True), v),
         lambda: sl.cho_solve(sl.cho_factor(spd, lower=True), v)),
        ("lu_factor", lambda j: j.lu_factor(a), lambda: sl.lu_factor(a)),
        *[(f"lu_solve trans={t}", lambda j, t=t: j.lu_solve(j.lu_factor(a), b, trans=t),
           lambda t=t: sl.lu_solve(sl.lu_factor(a), b, trans=t)) for t in (0, 1, 2)],
        ("lu", lambda j: j.lu(g), lambda: sl.lu(g)),
        ("lu permute_l", lambda j: j.lu(a, permute_l=True), lambda: sl.lu(a, permute_l=True)),
        ("qr", lambda j: j.qr(g), lambda: sl.qr(g)),
        ("qr economic", lambda j: j.qr(g, mode="economic"), lambda: sl.qr(g, mode="economic")),
        ("qr r pivoting", lambda j: j.qr(g, mode="r", pivoting=True), lambda: sl.qr(g, mode="r", pivoting=True)),
        ("qr_multiply", lambda j: j.qr_multiply(g, b.T[:, :4] @ np.ones((4, 5))),
         lambda: sl.qr_multiply(g, b.T[:, :4] @ np.ones((4, 5)))),
        ("qr_multiply left", lambda j: j.qr_multiply(g, b[:3], mode="left"),
         lambda: sl.qr_multiply(g, b[:3], mode="left")),
        ("svd", lambda j: j.svd(g, compute_uv=False), lambda: sl.svd(g, compute_uv=False)),
        ("det", lambda j: j.det(a), lambda: sl.det(a)),
        ("inv", lambda j: j.inv(a), lambda: sl.inv(a)),
        ("eigh", lambda j: j.eigh(h, eigvals_only=True), lambda: sl.eigh(h, eigvals_only=True)),
        ("eigh_tridiagonal", lambda j: j.eigh_tridiagonal(d, e, eigvals_only=True),
         lambda: sl.eigh_tridiagonal(d, e, eigvals_only=True)),
        ("hessenberg", lambda j: j.hessenberg(a, calc_q=True), lambda: sl.hessenberg(a, calc_q=True)),
        *[(f"solve {k}", lambda j, k=k: j.solve(spd, b, assume_a=k), lambda k=k: sl.solve(spd, b, assume_a=k))
          for k in ("gen", "pos")],
        *[(f"solve_triangular {t}", lambda j, t=t: j.solve_triangular(a, b, trans=t, lower=True),
           lambda t=t: sl.solve_triangular(a, b, trans=t, lower=True)) for t in (0, 1, "C")],
        ("solve_sylvester", lambda j: j.solve_sylvester(m, m[:3, :3].T, g[:4]),
         lambda: sl.solve_sylvester(m, m[:3, :3].T, g[:4])),
        *[(f"expm x{s}", lambda j, s=s: j.expm(m * s), lambda s=s: sl.expm(m * s)) for s in (0.01, 0.3, 1, 8)],
        ("expm_frechet", lambda j: j.expm_frechet(m, a), lambda: sl.expm_frechet(m, a)),
        ("sqrtm", lambda j: j.sqrtm(a), lambda: sl.sqrtm(a)),
        ("funm", lambda j: j.funm(h, lambda w: w ** 3), lambda: sl.funm(h, lambda w: w ** 3)),
        ("polar", lambda j: j.polar(g), lambda: sl.polar(g)),
        ("polar left", lambda j: j.polar(a, side="left"), lambda: sl.polar(a, side="left")),
        ("block_diag", lambda j: j.block_diag(a[:2, :3], v[:2], 5.0), lambda: sl.block_diag(a[:2, :3], v[:2], 5.0)),
        ("toeplitz", lambda j: j.toeplitz(v, d), lambda: sl.toeplitz(v, d)),
        ("toeplitz complex", lambda j: j.toeplitz(v + 1j), lambda: sl.toeplitz(v + 1j)),
        ("hankel", lambda j: j.hankel(v, d), lambda: sl.hankel(v, d)),
        ("circulant", lambda j: j.circulant(v), lambda: sl.circulant(v)),
        ("companion", lambda j: j.companion(v), lambda: sl.companion(v)),
        ("fiedler", lambda j: j.fiedler(v), lambda: sl.fiedler(v)),
        *[(f"fiedler_companion {n}", lambda j, n=n: j.fiedler_companion(d[:n] + 2),
           lambda n=n: sl.fiedler_companion(d[:n] + 2)) for n in (2, 3, 4, 5)],
        ("hilbert", lambda j: j.hilbert(5), lambda: sl.hilbert(5)),
        ("invhilbert", lambda j: j.invhilbert(5), lambda: sl.invhilbert(5)),
        *[(f"pascal {k}", lambda j, k=k: j.pascal(5, k), lambda k=k: sl.pascal(5, k)) for k in ("symmetric", "lower", "upper")],
        *[(f"invpascal {k}", lambda j, k=k: j.invpascal(5, k), lambda k=k: sl.invpascal(5, k)) for k in ("symmetric", "upper")],
        ("dft", lambda j: j.dft(5, "sqrtn"), lambda: sl.dft(5, "sqrtn")),
        ("hadamard", lambda j: j.hadamard(8), lambda: sl.hadamard(8)),
        ("helmert", lambda j: j.helmert(5, full=True), lambda: sl.helmert(5, full=True)),
        ("leslie", lambda j: j.leslie(v, d[:3]), lambda: sl.leslie(v, d[:3])),
        *[(f"convolution_matrix {mode}", lambda j, mode=mode: j.convolution_matrix(v, 6, mode),
           lambda mode=mode: sl.convolution_matrix(v, 6, mode)) for mode in ("full", "same", "valid")],
    ]


@pytest.mark.parametrize("case", _scipy_cases(), ids=lambda c: c[0])
def test_scipy_linalg_against_scipy(x64, case):
    import pyjax.scipy.linalg as jsl
    _, ours, theirs = case
    got, want = ours(jsl), theirs()
    got = got if isinstance(got, tuple) else (got,)
    want = want if isinstance(want, tuple) else (want,)
    assert len(got) == len(want)
    for g, w in zip(got, want):
        np.testing.assert_allclose(np.asarray(g), w, rtol=1e-7, atol=1e-8)


def test_scipy_linalg_schur_forms_and_grads(x64):
    import pyjax.scipy.linalg as jsl
    import scipy.linalg as sl
    a = np.random.RandomState(1).randn(4, 4)
    t, z = jsl.schur(a, output="complex")
    np.testing.assert_allclose(np.asarray(z) @ np.asarray(t) @ _H(np.asarray(z)), a, atol=1e-12)
    np.testing.assert_array_equal(np.tril(np.asarray(t), -1), 0)
    tr, zr = sl.schur(a)
    tc, zc = jsl.rsf2csf(tr, zr)
    np.testing.assert_allclose(np.asarray(zc) @ np.asarray(tc) @ _H(np.asarray(zc)), a, atol=1e-12)
    np.testing.assert_array_equal(np.tril(np.asarray(tc), -1), 0)
    np.testing.assert_allclose(jsl.expm(np.stack([a, -a]) / 4), [sl.expm(a / 4), sl.expm(-a / 4)], rtol=1e-10)
    np.testing.assert_allclose(jsl.expm(a.astype(np.float32) / 4), sl.expm(a / 4), rtol=2e-5)
    assert np.isnan(np.asarray(jsl.expm(a * 1e6, max_squarings=4))).all()
    check_grads(jsl.expm, (a / 4,), order=1, modes=("fwd", "rev"))
    check_grads(lambda x: jsl.cho_solve(jsl.cho_factor(x @ x.T + 4 * np.eye(4)), a[0]), (a,), order=1,
                modes=("fwd", "rev"))
    check_grads(lambda x: jsl.solve_triangular(x + 4 * np.eye(4), a, trans=1), (a,), order=1,
                modes=("fwd", "rev"))


def test_scipy_linalg_names():
    path = pathlib.Path("/work/shared/data/jax_0.10.2_public_names.json")
    if not path.exists():
        pytest.skip("the names file lives outside the repository")
    import pyjax.scipy.linalg as jsl
    assert [n for n in json.loads(path.read_text())["jax.scipy.linalg"] if not hasattr(jsl, n)] == []


@pytest.mark.parametrize("shape,dtype", [((4, 3), np.float32), ((3, 5), np.complex64),
                                         ((2, 4, 4), np.float32)])
def test_qr_raw_mode_is_numpys(shape, dtype):
    # mode='raw': LAPACK's Householder form transposed, as numpy.linalg.qr gives it
    a = _rand(shape, dtype)
    h, taus = L.qr(a, mode="raw")
    want_h, want_taus = np.linalg.qr(a, mode="raw")
    _close(h, want_h, dtype)
    _close(taus, want_taus, dtype)
    _close(pyjax.jit(lambda a: L.qr(a, mode="raw")[0])(a), want_h, dtype)


# -- issue 23: JAX's linalg_test ------------------------------------------------------------------

def test_count_nonzero_and_slogdet_under_strict_promotion_and_raise():
    """Issue 23: count_nonzero compares with a zero of the array's own dtype (bool arrays count
    under jax_numpy_dtype_promotion='strict', as slogdet's parity needs); batched slogdet runs
    under jax_numpy_rank_promotion='raise'. Values recorded from JAX 0.10.2."""
    with pyjax.numpy_dtype_promotion("strict"):
        assert int(jnp.count_nonzero(np.array([True, False, True]))) == 2
        assert jnp.count_nonzero(np.array([[1, 0], [2, 3]], np.int8), axis=1).tolist() == [1, 2]
    with pyjax.numpy_rank_promotion("raise"), pyjax.numpy_dtype_promotion("strict"):
        sign, logdet = jnp.linalg.slogdet(np.array([[[2., 1.], [1., 3.]], [[0., 1.], [1., 0.]]], np.float32))
    assert sign.tolist() == [1.0, -1.0]
    np.testing.assert_allclose(logdet, [1.6094379425048828, 0.0], rtol=1e-6)


def test_lstsq_of_empty_matrices():
    """Issue 23: lstsq of a matrix with no entries gives zeros, rank 0 and no singular values
    (JAX 0.10.2's shapes and dtypes), instead of indexing an empty s."""
    for shape, bshape, resid_shape in (((0, 3), (0,), (1,)), ((4, 0), (4, 2), (2,)), ((0, 0), (0,), (1,))):
        x, resid, rank, s = jnp.linalg.lstsq(np.zeros(shape, np.float32), np.zeros(bshape, np.float32))
        assert x.shape == (shape[1],) + bshape[1:] and not np.asarray(x).any()
        assert resid.shape == resid_shape and int(rank) == 0 and rank.dtype == np.int32
        assert s.shape == (0,) and s.dtype == np.float32


def test_vecdot_takes_each_operands_axis_then_broadcasts():
    """Issue 23: vecdot is a gufunc (n),(n)->() as in JAX and NumPy: `axis` of each operand is its
    vector, the remaining dimensions broadcast (not the other way round)."""
    rs = np.random.RandomState(0)
    for ls, rsh, axis in (((2, 2, 2), (2, 2), 0), ((2, 2, 2), (2, 2), 1), ((4, 3), (1, 3), -1)):
        a, b = rs.randint(-5, 5, ls).astype(np.int8), rs.randint(-5, 5, rsh).astype(np.int8)
        out = jnp.linalg.vecdot(a, b, axis=axis)
        assert out.dtype == np.int8
        np.testing.assert_array_equal(out, np.linalg.vecdot(a, b, axis=axis))


def test_toeplitz_and_convolution_matrix_batch_and_empty():
    """Issue 23: toeplitz broadcasts the batch dimensions of c and r and builds empty matrices;
    convolution_matrix is batched over a's leading dimensions (JAX 0.10.2's values)."""
    a = np.array([1., 2., 3.], np.float32)
    assert jsp_linalg.convolution_matrix(np.stack([a, -a]), 2, "same").tolist() == \
        [[[1.0, 0.0], [2.0, 1.0], [3.0, 2.0]], [[-1.0, 0.0], [-2.0, -1.0], [-3.0, -2.0]]]
    assert jsp_linalg.toeplitz(np.ones((2, 1, 3), np.float32), np.zeros((2, 4, 0), np.float32)).shape == (2, 4, 3, 0)
    assert jsp_linalg.toeplitz(np.array([[1., 2.], [3., 4.]]), np.array([5., 6., 7.])).tolist() == \
        [[[1.0, 6.0, 7.0], [2.0, 1.0, 6.0]], [[3.0, 6.0, 7.0], [4.0, 3.0, 6.0]]]
    with pytest.raises(ValueError, match="len\\(a\\) must be at least 1"):
        jsp_linalg.convolution_matrix(np.zeros(0, np.float32), 2)


def test_polar_batched_and_sqrtm_of_singular_diagonals():
    """Issue 23: polar over a batch of matrices factors each one (the singular values broadcast
    per matrix); sqrtm of a singular diagonal matrix is its diagonal root, not NaN (a zero
    numerator over a zero denominator gives 0, as JAX 0.10.2)."""
    import scipy.linalg
    a = np.random.RandomState(0).randn(3, 5, 3).astype(np.float32)
    for side in ("right", "left"):
        u, p = jsp_linalg.polar(a, side=side)
        for i in range(3):
            want_u, want_p = scipy.linalg.polar(a[i].astype(np.float64), side=side)
            np.testing.assert_allclose(u[i], want_u, atol=1e-4)
            np.testing.assert_allclose(p[i], want_p, atol=1e-4)
    for diag, root in (([1, 0, 0], [1, 0, 0]), ([0, 0, 9, 0, 0, 4], [0, 0, 3, 0, 0, 2])):
        for dtype in (np.float32, np.complex64):
            r = jsp_linalg.sqrtm(np.diag(diag).astype(dtype))
            np.testing.assert_allclose(r, np.diag(root).astype(np.complex64), atol=1e-6)


def test_solve_triangular_broadcasts_batch_dimensions():
    """Issue 24 (numpyro's LowerCholeskyAffine): solve_triangular is vectorized over broadcast
    batch dimensions, as JAX 0.10.2's (a b one dimension short of a batched a is a batch of
    vectors, with its FutureWarning). Shapes and warnings recorded from JAX 0.10.2; values
    against NumPy's solve."""
    rng = np.random.RandomState(0)
    A = np.tril(rng.rand(3, 2, 2)).astype(np.float32) + np.eye(2, dtype=np.float32)
    B = rng.rand(5, 2, 3).astype(np.float32)
    cases = [(A[0], B[:, :, :1], (5, 2, 1), []), (A, B[0, :, 0], (3, 2), []),
             (A, B[:3, :, 0], (3, 2), ["FutureWarning"]), (A[0], B[0], (2, 3), []),
             (A, B[0], (3, 2, 3), []), (A[:1], B, (5, 2, 3), [])]
    for a, b, shape, warned in cases:
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")
            x = jsp_linalg.solve_triangular(a, b, lower=True)
        assert x.shape == shape and [type(i.message).__name__ for i in w] == warned
        want = np.linalg.solve(a, b[..., None])[..., 0] if b.ndim == 1 or warned else np.linalg.solve(a, b)
        np.testing.assert_allclose(x, np.broadcast_to(want, shape), rtol=1e-5, atol=1e-6)


def test_structured_ops_are_in_lax_linalg_module_as_jax():
    # JAX's jax._src.lax.linalg holds cholesky_update, ormqr, symmetric_product, ... beside
    # cholesky (JAX's cholesky_update_test calls them there)
    from pyjax._src.lax import linalg as lax_linalg
    for name in ("cholesky_update", "hessenberg", "ormqr", "schur", "symmetric_product",
                 "tridiagonal", "tridiagonal_solve"):
        assert getattr(lax_linalg, name) is getattr(lax.linalg, name)
        assert getattr(lax_linalg, name + "_p") is getattr(lax.linalg, name + "_p")


def test_eigh_tridiagonal_eigenvectors_and_index_selection():
    # JAX 0.10.2 computes eigenvectors (eigvals_only=False) and select='i' (JAX's eigh_test);
    # values as SciPy's, A v = v w
    import scipy.linalg
    d, e = np.array([2.0, -1.0, 0.5, 3.0], np.float32), np.array([1.0, 0.25, -0.5], np.float32)
    w, v = jsp_linalg.eigh_tridiagonal(d, e, eigvals_only=False)
    a = np.diag(d) + np.diag(e, 1) + np.diag(e, -1)
    np.testing.assert_allclose(w, scipy.linalg.eigh_tridiagonal(d, e, eigvals_only=True), atol=1e-5)
    np.testing.assert_allclose(a @ np.asarray(v), np.asarray(v) * np.asarray(w)[None, :], atol=1e-5)
    part = jsp_linalg.eigh_tridiagonal(d, e, select="i", select_range=(1, 2), eigvals_only=True)
    np.testing.assert_allclose(part, np.asarray(w)[1:3], atol=1e-6)
    with pytest.raises(NotImplementedError, match="select='v'"):
        jsp_linalg.eigh_tridiagonal(d, e, select="v", eigvals_only=True)
