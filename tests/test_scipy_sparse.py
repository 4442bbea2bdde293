"""jax.scipy.sparse.linalg (cg, bicgstab, gmres) against SciPy's solvers and NumPy's solve: a
matrix or a function, pytrees, a preconditioner, x0, complex systems, maxiter, jit, vmap,
implicit derivatives (finite differences and the analytic derivative of a solve), and the
iterates of partial solves recorded from JAX 0.10.2 (tests/data/record_sparse.py)."""
import numpy as np
import json
import pathlib

import pytest
import scipy.sparse.linalg

import pyjax
import pyjax.numpy as jnp
from pyjax.scipy.sparse.linalg import bicgstab, cg, gmres
from pyjax.test_util import check_grads
from recorded_cases import assert_matches, evaluate_cases

_RECORDED = json.loads((pathlib.Path(__file__).parent / "data" / "sparse.json").read_text())


def _spd(n, seed=0, dtype=np.float64):
    rs = np.random.RandomState(seed)
    a = rs.randn(n, n)
    if np.dtype(dtype).kind == "c":
        a = a + 1j * rs.randn(n, n)
    return (a @ a.conj().T + n * np.eye(n)).astype(dtype), rs.randn(n).astype(dtype)


def test_cg_matches_scipy_and_solve():
    a, b = _spd(6)
    a32, b32 = a.astype(np.float32), b.astype(np.float32)
    want = np.linalg.solve(a, b)
    x, info = cg(a32, b32, tol=1e-6)
    assert info is None
    np.testing.assert_allclose(x, want, rtol=1e-4)
    np.testing.assert_allclose(cg(lambda v: jnp.dot(a32, v), b32)[0],
                               scipy.sparse.linalg.cg(a, b, rtol=1e-5)[0], rtol=1e-3)
    np.testing.assert_allclose(pyjax.jit(lambda a, b: cg(a, b, tol=1e-6)[0])(a32, b32), want, rtol=1e-4)


def test_cg_preconditioner_x0_and_maxiter():
    a, b = _spd(5, seed=1)
    a, b = a.astype(np.float32), b.astype(np.float32)
    m = np.diag(1.0 / np.diag(a)).astype(np.float32)
    np.testing.assert_allclose(cg(a, b, M=m, x0=np.ones(5, np.float32), tol=1e-6)[0],
                               np.linalg.solve(a, b), rtol=1e-4)
    # one CG step from 0 is the steepest-descent step along r0 = b
    one = cg(a, b, maxiter=1)[0]
    np.testing.assert_allclose(one, (b @ b) / (b @ a @ b) * b, rtol=1e-5)


def test_cg_on_pytrees_and_complex_hermitian():
    a, b = _spd(4, seed=2)
    a, b = a.astype(np.float32), b.astype(np.float32)
    tree_b = {"u": b[:2], "v": b[2:]}

    def matvec(t):
        y = jnp.dot(a, jnp.concatenate([t["u"], t["v"]]))
        return {"u": y[:2], "v": y[2:]}
    x = cg(matvec, tree_b, tol=1e-6)[0]
    np.testing.assert_allclose(np.concatenate([x["u"], x["v"]]), np.linalg.solve(a, b), rtol=1e-4)
    h, hb = _spd(4, seed=3, dtype=np.complex64)
    np.testing.assert_allclose(cg(h, hb, tol=1e-6)[0], np.linalg.solve(h, hb), rtol=1e-4, atol=1e-5)


def test_cg_vmap_and_errors():
    a, b = _spd(4, seed=4)
    a, b = a.astype(np.float32), b.astype(np.float32)
    bs = np.stack([b, 2 * b, -b])
    np.testing.assert_allclose(pyjax.vmap(lambda v: cg(a, v, tol=1e-6)[0])(bs),
                               np.linalg.solve(a, bs.T).T, rtol=1e-4)
    with pytest.raises(ValueError, match="square"):
        cg(np.ones((2, 3), np.float32), np.ones(2, np.float32))
    with pytest.raises(ValueError, match="shapes"):
        cg(a, b, x0=np.zeros(3, np.float32))


def test_cg_derivatives_are_those_of_the_solve():
    a, b = _spd(4, seed=5)
    # d/db x = A^-1 db; d/dA x = -A^-1 dA x, checked by finite differences in float64
    with pyjax.enable_x64(True):
        check_grads(lambda a, b: cg(lambda v: a @ v, b, tol=1e-12)[0], (a, b), order=1,
                    modes=("fwd", "rev"))
        g = pyjax.grad(lambda b: jnp.sum(cg(a, b, tol=1e-12)[0]))(b)
        np.testing.assert_allclose(g, np.linalg.solve(a.T, np.ones(4)), rtol=1e-8)


def _general(n, seed=0, dtype=np.float64):
    rs = np.random.RandomState(seed)
    a = rs.randn(n, n) + n * np.eye(n)
    b = rs.randn(n)
    if np.dtype(dtype).kind == "c":
        a, b = a + 1j * rs.randn(n, n), b + 1j * rs.randn(n)
    return a.astype(dtype), b.astype(dtype)


@pytest.mark.parametrize("solver", ["bicgstab", "gmres_batched", "gmres_incremental"])
def test_general_solvers_match_scipy(solver):
    a, b = _general(8, seed=1)
    want = np.linalg.solve(a, b)
    a32, b32 = a.astype(np.float32), b.astype(np.float32)
    if solver == "bicgstab":
        solve = lambda A, b, **kw: bicgstab(A, b, **kw)[0]
        ref = scipy.sparse.linalg.bicgstab(a, b, rtol=1e-6)[0]
    else:
        method = solver.split("_")[1]
        solve = lambda A, b, **kw: gmres(A, b, solve_method=method, **kw)[0]
        ref = scipy.sparse.linalg.gmres(a, b, rtol=1e-6, restart=4)[0]
    np.testing.assert_allclose(solve(a32, b32, tol=1e-6), want, rtol=2e-4, atol=1e-5)
    np.testing.assert_allclose(ref, want, rtol=1e-4)
    # matrix-free, restarted, preconditioned, from x0, under jit
    m = np.diag(1 / np.diag(a32)).astype(np.float32)
    x = pyjax.jit(lambda b: solve(lambda v: jnp.dot(a32, v), b, M=m, x0=jnp.ones(8), tol=1e-6))(b32)
    np.testing.assert_allclose(x, want, rtol=2e-4, atol=1e-5)
    if solver != "bicgstab":
        np.testing.assert_allclose(solve(a32, b32, tol=1e-6, restart=3), want, rtol=2e-4, atol=1e-5)


@pytest.mark.parametrize("method", ["batched", "incremental"])
def test_gmres_pytree_complex_info_and_vmap(method):
    a, b = _general(4, seed=2, dtype=np.complex64)
    x, info = gmres(a, b, tol=1e-6, solve_method=method)
    assert int(info) == 0
    np.testing.assert_allclose(x, np.linalg.solve(a, b), rtol=1e-4, atol=1e-5)
    a, b = _general(4, seed=3, dtype=np.float32)
    tree_b = {"u": b[:2], "v": b[2:]}

    def matvec(t):
        y = jnp.dot(a, jnp.concatenate([t["u"], t["v"]]))
        return {"u": y[:2], "v": y[2:]}
    x = gmres(matvec, tree_b, tol=1e-6, solve_method=method)[0]
    np.testing.assert_allclose(np.concatenate([x["u"], x["v"]]), np.linalg.solve(a, b), rtol=1e-4)
    bs = np.stack([b, 2 * b, -b])
    np.testing.assert_allclose(pyjax.vmap(lambda v: gmres(a, v, tol=1e-6, solve_method=method)[0])(bs),
                               np.linalg.solve(a, bs.T).T, rtol=1e-4)
    # a NaN residual stops the loop before it starts (x stays x0), as in JAX
    x, info = gmres(np.full((4, 4), np.nan, np.float32), b, maxiter=1, solve_method=method)
    assert int(info) == 0 and not np.any(x)


def test_bicgstab_pytree_and_complex():
    a, b = _general(4, seed=4, dtype=np.complex64)
    np.testing.assert_allclose(bicgstab(a, b, tol=1e-6)[0], np.linalg.solve(a, b), rtol=1e-4, atol=1e-5)
    a, b = _general(4, seed=5, dtype=np.float32)
    x = bicgstab(lambda t: (a[:2, :2] @ t[0] + a[:2, 2:] @ t[1], a[2:, :2] @ t[0] + a[2:, 2:] @ t[1]),
                 (b[:2], b[2:]), tol=1e-6)[0]
    np.testing.assert_allclose(np.concatenate(x), np.linalg.solve(a, b), rtol=1e-4)


@pytest.mark.parametrize("solver", [bicgstab, gmres])
def test_general_solver_derivatives_are_those_of_the_solve(solver):
    a, b = _general(4, seed=6)
    with pyjax.enable_x64(True):
        check_grads(lambda a, b: solver(lambda v: a @ v, b, tol=1e-12)[0], (a, b), order=1,
                    modes=("fwd", "rev"))
        g = pyjax.grad(lambda b: jnp.sum(solver(a, b, tol=1e-12)[0]))(b)
        np.testing.assert_allclose(g, np.linalg.solve(a.T, np.ones(4)), rtol=1e-8)


@pytest.mark.parametrize("expr", sorted(_RECORDED["solver_cases"]))
def test_solver_iterates_and_errors_match_recorded_jax(expr):
    import pyjax.scipy.sparse.linalg as sla
    ns = {"jax": pyjax, "jnp": jnp, "np": np, "sla": sla}
    got = evaluate_cases(_RECORDED["prelude"].split("D = ")[0], [expr], ns)[expr]
    assert_matches(got, _RECORDED["solver_cases"][expr], rtol=2e-5, atol=2e-6, err_msg=expr)


def test_solvers_take_sparse_operators():
    from pyjax.experimental import sparse
    a, b = _spd(5, seed=7)
    a[np.abs(a) < 1] = 0
    a, b = a.astype(np.float32), b.astype(np.float32)
    want = np.linalg.solve(a, b)
    for m in (sparse.BCOO.fromdense(a), sparse.BCSR.fromdense(a)):
        for solver in (cg, bicgstab, gmres):
            np.testing.assert_allclose(solver(m, b, tol=1e-6)[0], want, rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(pyjax.jit(lambda m, b: cg(m, b, tol=1e-6)[0])(sparse.BCOO.fromdense(a), b),
                               want, rtol=1e-4, atol=1e-5)


def test_a_bad_operator_is_jaxs_type_error():
    # JAX 0.10.2's words (its lax_scipy_sparse_test matches "linear operator must be ...")
    with pytest.raises(TypeError, match=r"^linear operator must be either a function or ndarray"):
        pyjax.scipy.sparse.linalg.cg([[1]], jnp.zeros((1,)))
