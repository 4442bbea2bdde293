"""jax.experimental.sparse: BCOO/BCSR/COO/CSR round trips for every layout, products against
dense NumPy, gradients (check_grads through the stored data and the dense operand), vmap
against a loop, jit against eager, sparsify'd functions against the dense function, spsolve
against SciPy, and layouts, nse and errors recorded from JAX 0.10.2
(tests/data/record_sparse.py)."""
import json
import pathlib

import numpy as np
import pytest
import scipy.sparse

import pyjax
import pyjax.numpy as jnp
from pyjax import lax
from pyjax.experimental import sparse
from pyjax.experimental.sparse import bcoo, bcsr, coo, csr, util
from pyjax.test_util import check_grads
from recorded_cases import assert_matches, evaluate_cases

_RECORDED = json.loads((pathlib.Path(__file__).parent / "data" / "sparse.json").read_text())

D = np.array([[0., 1., 0., 2.], [0., 0., 0., 0.], [3., 0., 4., 0.]], np.float32)


def _rand_sparse(shape, seed=0, density=0.4, dtype=np.float32):
    rs = np.random.RandomState(seed)
    x = rs.randn(*shape).astype(dtype)
    return np.where(rs.rand(*shape) < density, x, 0).astype(dtype)


def _layouts(ndim):
    return [(nb, nd) for nb in range(ndim + 1) for nd in range(ndim + 1 - nb)]


_FAST = {(0, 0), (1, 0), (0, 1), (1, 1)}


def _layout_params(ndim):
    """Every layout; beyond a representative few they are marked slow (each one compiles its
    own programs, and XLA's compile time dominates these tests)."""
    return [pytest.param(nb, nd, marks=() if (nb, nd) in _FAST else pytest.mark.slow)
            for nb, nd in _layouts(ndim)]


@pytest.mark.parametrize("nb,nd", _layout_params(3))
def test_bcoo_round_trip_every_layout(nb, nd):
    x = _rand_sparse((3, 4, 2))
    m = sparse.BCOO.fromdense(x, n_batch=nb, n_dense=nd)
    assert (m.n_batch, m.n_dense, m.n_sparse) == (nb, nd, 3 - nb - nd)
    np.testing.assert_array_equal(m.todense(), x)
    # an nse larger than needed pads; the padding is dropped by todense and sum_duplicates
    big = sparse.BCOO.fromdense(x, n_batch=nb, n_dense=nd, nse=m.nse + 2)
    np.testing.assert_array_equal(big.todense(), x)
    np.testing.assert_array_equal(sparse.bcoo_sum_duplicates(big).todense(), x)
    # every other layout holds the same array (one compiled program for all of them)
    targets = _layouts(3)

    @pyjax.jit
    def relayouts(m):
        outs = [sparse.bcoo_update_layout(m, n_batch=tb, n_dense=td, on_inefficient=None)
                for tb, td in targets]
        assert [(o.n_batch, o.n_dense) for o in outs] == targets
        return [o.todense() for o in outs]
    for out in relayouts(m):
        np.testing.assert_array_equal(out, x)


@pytest.mark.parametrize("nb,nd", _layout_params(2))
def test_bcoo_matmul_against_dense(nb, nd):
    x = _rand_sparse((5, 4), seed=1)
    m = sparse.BCOO.fromdense(x, n_batch=nb, n_dense=nd)
    v, b = np.arange(4, dtype=np.float32), np.random.RandomState(2).randn(4, 3).astype(np.float32)
    np.testing.assert_allclose(m @ v, x @ v, rtol=1e-6)
    np.testing.assert_allclose(m @ b, x @ b, rtol=1e-5, atol=1e-6)
    if nb == nd == 0:   # (otherwise .T mixes batch/dense with sparse axes: forbidden, as in JAX)
        np.testing.assert_allclose(b.T @ m.T, b.T @ x.T, rtol=1e-5, atol=1e-6)
        np.testing.assert_allclose((m @ m.T).todense(), x @ x.T, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(np.ones(5, np.float32) @ m, np.ones(5) @ x, rtol=1e-6)
    np.testing.assert_allclose(pyjax.jit(lambda m, v: m @ v)(m, v), x @ v, rtol=1e-6)


@pytest.mark.parametrize("dn", [
    (([2], [1]), ([0], [0])), (([2, 1], [2, 1]), ([], [])),
    *[pytest.param(dn, marks=pytest.mark.slow) for dn in [
        (([1], [1]), ([0], [0])), (([0], [0]), ([], [])), (([1], [2]), ([0], [0]))]]])
def test_bcoo_dot_general_dimension_numbers(dn):
    x = _rand_sparse((2, 3, 3), seed=3)
    r = np.random.RandomState(4).randn(2, 3, 3).astype(np.float32)
    want = np.asarray(lax.dot_general(x, r, dn))
    want_t = np.asarray(lax.dot_general(r, x, (dn[0][::-1], dn[1][::-1])))

    @pyjax.jit
    def products(m, r):
        out = [sparse.bcoo_dot_general(m, r, dimension_numbers=dn),
               sparse.bcoo_dot_general(r, m, dimension_numbers=(dn[0][::-1], dn[1][::-1]))]
        if m.n_dense == 0:
            out.append(sparse.bcoo_dot_general(m, sparse.BCOO.fromdense(r, nse=18),
                                               dimension_numbers=dn).todense())
        return out
    for nb, nd in sorted(_FAST | {(2, 0), (0, 2)}) if dn == (([2], [1]), ([0], [0])) else sorted(_FAST):
        got = products(sparse.BCOO.fromdense(x, n_batch=nb, n_dense=nd), r)
        for g, w in zip(got, [want, want_t, want]):
            np.testing.assert_allclose(g, w, rtol=1e-5, atol=1e-6, err_msg=str((nb, nd)))


def test_bcoo_gradients_through_data_and_dense_operand():
    x = _rand_sparse((4, 3), seed=5).astype(np.float64)
    with pyjax.enable_x64(True):
        m = sparse.BCOO.fromdense(x)
        v = np.random.RandomState(6).randn(3, 2)
        f = lambda data, v: jnp.sum(jnp.sin(sparse.BCOO((data, m.indices), shape=m.shape) @ v))  # noqa: E731
        check_grads(f, (m.data, v), order=2, modes=("fwd", "rev"))
        check_grads(lambda d: sparse.BCOO((d, m.indices), shape=m.shape).todense(), (m.data,),
                    order=1, modes=("fwd", "rev"))
        # (fromdense at a point with no zeros: finite differences keep the pattern)
        check_grads(lambda a: sparse.bcoo_fromdense(a, nse=12).data, (x + 5,), order=1,
                    modes=("fwd", "rev"))
        check_grads(lambda a: sparse.bcoo_extract(m, a).data, (x,), order=1, modes=("fwd", "rev"))
        # the tangent of fromdense lives on the primal's pattern, whatever the tangent's zeros
        t = np.arange(12.0).reshape(4, 3) + 1
        _, dt = pyjax.jvp(lambda a: sparse.bcoo_fromdense(a, nse=m.nse).data, (x,), (t,))
        np.testing.assert_array_equal(dt, t[tuple(np.asarray(m.indices).T)])
        check_grads(lambda d: sparse.bcoo_sum_duplicates(
            sparse.BCOO((d, m.indices), shape=m.shape), nse=m.nse).data, (m.data,), order=1,
            modes=("fwd", "rev"))
        # the gradient w.r.t. the data is the dense gradient sampled on the pattern
        g = pyjax.grad(f)(m.data, v)
        dense_g = pyjax.grad(lambda a: jnp.sum(jnp.sin(a @ v)))(x)
        np.testing.assert_allclose(g, dense_g[tuple(np.asarray(m.indices).T)], rtol=1e-10)
        # sparse.grad returns it as a BCOO on the same indices
        sg = sparse.grad(lambda m: jnp.sum(jnp.sin(m @ v)))(m)
        assert isinstance(sg, sparse.BCOO)
        np.testing.assert_allclose(sg.todense(), np.where(x != 0, dense_g, 0), rtol=1e-10)
        val, sg2 = sparse.value_and_grad(lambda m, v: jnp.sum(m @ v), argnums=(0, 1))(m, v)
        np.testing.assert_allclose(val, np.sum(x @ v), rtol=1e-12)
        np.testing.assert_allclose(sg2[1], np.broadcast_to(x.sum(0)[:, None], v.shape), rtol=1e-12)
        jf = sparse.jacfwd(lambda m: m @ v[:, 0])(m)
        jr = sparse.jacrev(lambda m: m @ v[:, 0])(m)
        want = pyjax.jacfwd(lambda a: a @ v[:, 0])(x) * (x != 0)
        for j in (jf, jr):
            assert isinstance(j, sparse.BCOO) and j.shape == (4, 4, 3)
            np.testing.assert_allclose(j.todense(), want, rtol=1e-12)


def test_bcoo_vmap_matches_a_loop():
    x = _rand_sparse((3, 4, 5), seed=7)
    m = sparse.BCOO.fromdense(x, n_batch=1)
    v = np.random.RandomState(8).randn(3, 5).astype(np.float32)
    out = pyjax.vmap(lambda m, v: m @ v)(m, v)
    np.testing.assert_allclose(out, np.stack([x[i] @ v[i] for i in range(3)]), rtol=1e-5, atol=1e-6)
    # the batching rules keep the sparse primitives (the batch becomes one more n_batch dim)
    jaxpr = pyjax.make_jaxpr(pyjax.vmap(lambda m, v: m @ v))(m, v)
    assert [e.primitive.name for e in jaxpr.jaxpr.eqns] == ["bcoo_dot_general"]
    np.testing.assert_allclose(pyjax.vmap(lambda v: m[0] @ v)(v), v @ x[0].T, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(pyjax.vmap(lambda m: m.T.todense())(m), x.transpose(0, 2, 1))
    np.testing.assert_allclose(
        pyjax.vmap(lambda a: sparse.bcoo_fromdense(a, nse=20).sum_duplicates(nse=20)
                   .sort_indices().todense())(x), x)
    twice = pyjax.vmap(lambda m: 2 * m)(m)
    assert isinstance(twice, sparse.BCOO) and twice.shape == x.shape
    np.testing.assert_allclose(twice.todense(), 2 * x)
    # vmap of the primitives over dense arguments (their batching rules)
    xs = np.stack([x[0], x[1]])
    got = pyjax.vmap(lambda a: sparse.bcoo_fromdense(a, nse=20).todense())(xs)
    np.testing.assert_array_equal(got, xs)
    idx = sparse.BCOO.fromdense(x[0]).indices
    got = pyjax.vmap(lambda d: sparse.BCOO((d, idx), shape=(4, 5)) @ v[0])(
        np.stack([sparse.BCOO.fromdense(x[0]).data, 2 * sparse.BCOO.fromdense(x[0]).data]))
    np.testing.assert_allclose(got, np.stack([x[0] @ v[0], 2 * x[0] @ v[0]]), rtol=1e-5)
    with pytest.raises(ValueError, match="n_batch=0"):
        pyjax.vmap(lambda m: m)(sparse.BCOO.fromdense(x[0]))


def test_vmap_maps_a_sparse_array_along_the_batch_axis_in_axes_names():
    # BCOO/BCSR are vmappable containers (as in JAX): in_axes/out_axes name one batch dimension,
    # which the element's shape drops and the output's regains; a BCOO alone sizes the map.
    # JAX's sparse_bcoo_bcsr_test test_bcoo_extract (bdims 1), test_bcoo_sum_duplicates
    x = _rand_sparse((2, 3, 4), seed=21)
    m = sparse.BCOO.fromdense(x, n_batch=2)
    got = pyjax.vmap(lambda s, y: sparse.bcoo_extract(s, 2 * y).todense(), in_axes=(1, 1))(m, x)
    np.testing.assert_array_equal(got, 2 * x.transpose(1, 0, 2))
    out = pyjax.vmap(lambda s: s.sum_duplicates(nse=4), in_axes=1, out_axes=1)(m)
    assert isinstance(out, sparse.BCOO) and out.shape == (2, 3, 4)
    np.testing.assert_array_equal(out.todense(), x)
    mb = sparse.BCSR.fromdense(x, n_batch=1)
    np.testing.assert_array_equal(pyjax.vmap(lambda s: s.todense(), out_axes=1)(mb),
                                  x.transpose(1, 0, 2))
    with pytest.raises(ValueError, match="Cannot map in_axis=2 for BCOO array with n_batch=2"):
        pyjax.vmap(lambda s: s, in_axes=2)(m)


@pytest.mark.parametrize("lshape, rshape, ln_batch, rn_batch, n_dense", [
    ((3, 4, 5), (1, 4, 1), 0, 0, 0), ((3, 4), (1, 4), 1, 1, 0), ((3, 4, 5), (3, 1, 1), 1, 0, 1),
    ((3, 4, 5), (3, 4, 5), 2, 1, 0)])
def test_bcoo_multiply_sparse_broadcasts(lshape, rshape, ln_batch, rn_batch, n_dense):
    """The product of two BCOO arrays whose shapes broadcast (NumPy's rule), as JAX's
    (sparse_bcoo_bcsr_test test_bcoo_mul_sparse); arrays of different ranks are a TypeError."""
    x, y = _rand_sparse(lshape, seed=30), _rand_sparse(rshape, seed=31)
    m = sparse.BCOO.fromdense(x, n_batch=ln_batch, n_dense=n_dense)
    n = sparse.BCOO.fromdense(y, n_batch=rn_batch, n_dense=n_dense)
    out = m * n
    assert isinstance(out, sparse.BCOO) and out.shape == np.broadcast_shapes(lshape, rshape)
    np.testing.assert_allclose(out.todense(), x * y, rtol=1e-6)
    np.testing.assert_allclose(pyjax.jit(lambda a, b: (a * b).todense())(m, n), x * y, rtol=1e-6)
    with pytest.raises(TypeError, match="must have same number of dimensions"):
        sparse.bcoo_multiply_sparse(m, sparse.BCOO.fromdense(y[0]))


def test_bcsr_indexing_with_new_axes_gives_bcsr():
    """BCSR[None], BCSR[:, None]: a new batch dimension, a BCSR array again (JAX's
    sparse_bcoo_bcsr_test test_bcsr_broadcast_in_dim)."""
    x = _rand_sparse((3, 5), seed=40)
    m = sparse.BCSR.fromdense(x)
    assert isinstance(m[None], sparse.BCSR) and m[None].n_batch == 1
    np.testing.assert_array_equal(m[None].todense(), x[None])
    x3 = _rand_sparse((2, 3, 5), seed=41)
    m3 = sparse.BCSR.fromdense(x3, n_batch=1)
    assert isinstance(m3[:, None], sparse.BCSR) and m3[:, None].n_batch == 2
    np.testing.assert_array_equal(m3[:, None].todense(), x3[:, None])


def test_bcoo_reshape_errors_are_jaxs():
    """New sizes that merge batch and sparse dimensions, and arrays whose batch dimensions are
    broadcast, raise JAX 0.10.2's errors (sparse_bcoo_bcsr_test test_bcoo_reshape_error)."""
    x = sparse.BCOO.fromdense(jnp.ones((2, 2, 3)), n_batch=1)
    with pytest.raises(ValueError, match="cannot mix batch and sparse dimensions"):
        x.reshape(3, 2, 2)
    y = sparse.BCOO((x.data[:1], x.indices), shape=x.shape)
    with pytest.raises(NotImplementedError, match="broadcasted batch dimensions"):
        y.reshape(2, 3, 2)
    d = sparse.BCOO.fromdense(jnp.ones((2, 3, 2)), n_dense=1)
    with pytest.raises(ValueError, match="cannot mix sparse and dense dimensions"):
        d.reshape(2, 2, 3)
    np.testing.assert_array_equal(x.reshape(2, 6).todense(), np.ones((2, 6)))


def test_bcsr_matmul_broadcasts_a_stacked_operand():
    """BCSR @ an operand of rank 3: NumPy's matmul broadcasting, as JAX's (sparsified matmul;
    sparse_bcoo_bcsr_test test_bcsr_matmul)."""
    x = _rand_sparse((3, 4), seed=42)
    v = np.random.RandomState(43).randn(2, 4, 5).astype(np.float32)
    out = sparse.BCSR.fromdense(x) @ v
    assert out.shape == (2, 3, 5)
    np.testing.assert_allclose(out, x @ v, rtol=1e-5, atol=1e-6)


def test_sparse_times_dense_with_repeated_indices():
    """A BCOO array with a repeated index times (or over) a dense array: every stored entry
    takes the dense value at its index, so the product is the dense product (JAX's
    sparse_bcoo_bcsr_test test_bcoo_mul_dense; the dense values were extracted as unique)."""
    data = np.array([1 + 1j, 2 - 1j, 3 + 0.5j], np.complex64)
    m = sparse.BCOO((jnp.asarray(data), jnp.array([[2], [2], [0]], jnp.int32)), shape=(3,))
    dense = np.array([3 + 0.5j, 0, 3], np.complex64)
    for r in (np.array([2 + 1j], np.complex64), np.array([1 + 1j, 2, 3 - 1j], np.complex64)):
        np.testing.assert_allclose((m * r).todense(), dense * r, rtol=1e-6)
        np.testing.assert_allclose((r * m).todense(), r * dense, rtol=1e-6)
        np.testing.assert_allclose((m / r).todense(), dense / r, rtol=1e-6)
        np.testing.assert_allclose(sparse.bcoo_multiply_dense(m, r), data * np.broadcast_to(
            r, (3,))[[2, 2, 0]], rtol=1e-6)


def test_dot_general_sampled_at_repeated_indices():
    """bcoo_dot_general_sampled gives every stored index the product's value there, a
    repeated one too (JAX's sparse_bcoo_bcsr_test test_bcoo_dot_general_sampled_fast_cases)."""
    rs = np.random.RandomState(50)
    a, b = rs.randn(3, 4).astype(np.float32), rs.randn(4, 5).astype(np.float32)
    idx = np.array([[0, 2], [1, 1], [0, 2], [2, 4]], np.int32)
    got = sparse.bcoo_dot_general_sampled(a, b, idx, dimension_numbers=(((1,), (0,)), ((), ())))
    np.testing.assert_allclose(got, (a @ b)[idx[:, 0], idx[:, 1]], rtol=1e-5)


def test_sparsify_matches_the_dense_function():
    x = _rand_sparse((4, 5), seed=9)
    v = np.random.RandomState(10).randn(5).astype(np.float32)
    m = sparse.BCOO.fromdense(x)

    def f(a, v):
        y = jnp.sin(a) * 2.0 - a / 4.0      # zero-preserving elementwise
        z = (y.T @ y)                       # sparse @ sparse
        return sparse.todense(z) @ v + a.T @ (a @ v) + jnp.sum(a ** 2, axis=0)
    want = f(x, v)
    np.testing.assert_allclose(sparse.sparsify(f)(m, v), want, rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(pyjax.jit(sparse.sparsify(f))(m, v), want, rtol=1e-5, atol=1e-5)
    # shape ops, a jit inside and a slice
    g = lambda a: sparse.todense(pyjax.jit(lambda b: b.reshape(10, 2)[2:7].T)(a))  # noqa: E731
    np.testing.assert_allclose(sparse.sparsify(g)(m), x.reshape(10, 2)[2:7].T)
    # sparse results stay sparse
    out = sparse.sparsify(lambda a: jnp.abs(a) * a)(m)
    assert isinstance(out, sparse.BCOO)
    np.testing.assert_allclose(out.todense(), np.abs(x) * x)
    with pytest.raises(NotImplementedError, match="dense output"):
        sparse.sparsify(jnp.exp)(m)
    with pytest.raises(NotImplementedError, match="Addition between a sparse array"):
        sparse.sparsify(lambda a: a + 1.0)(m)


def test_sparsify_unary_ops_on_repeated_indices_keep_the_format():
    """A nonlinear zero-preserving function sums repeated indices first (|1| + |-3| is not
    |1 - 3|); a linear one keeps them; BCSR operands give BCSR results. Recorded from JAX 0.10.2."""
    m = sparse.BCOO((jnp.array([1., -3.]), jnp.array([[0, 1], [0, 1]])), shape=(2, 2))
    c = sparse.BCSR((jnp.array([1., -3.]), jnp.array([1, 1]), jnp.array([0, 2, 2])), shape=(2, 2))
    for x, indices in ((m, [[0, 1], [0, 1]]), (c, [1, 1])):
        a = sparse.sparsify(jnp.abs)(x)
        p = sparse.sparsify(lambda v: lax.integer_pow(v, 2))(x)
        n = sparse.sparsify(lax.neg)(x)
        assert type(a) is type(x) and type(n) is type(x)
        assert a.todense().tolist() == [[0.0, 2.0], [0.0, 0.0]]
        assert p.todense().tolist() == [[0.0, 4.0], [0.0, 0.0]]
        assert (n.data.tolist(), n.indices.tolist()) == ([-1.0, 3.0], indices)


def test_sparsify_through_control_flow():
    x = _rand_sparse((3, 4), seed=17)
    m = sparse.BCOO.fromdense(x)
    f = sparse.sparsify(lambda p, a: lax.cond(p, lambda a: a * 2.0, lambda a: -a, a))
    for p, want in ((True, 2 * x), (False, -x)):
        out = f(p, m)
        assert isinstance(out, sparse.BCOO)
        np.testing.assert_array_equal(out.todense(), want)
        np.testing.assert_array_equal(pyjax.jit(f)(p, m).todense(), want)
    w = sparse.sparsify(lambda a: lax.while_loop(lambda c: c[1] < 3,
                                                 lambda c: (c[0] * 2.0, c[1] + 1), (a, 0)))
    out, n = w(m)
    np.testing.assert_array_equal(out.todense(), 8 * x)
    assert int(n) == 3
    xs = np.array([1., 2., 3.], np.float32)
    s = sparse.sparsify(lambda a, xs: lax.scan(lambda c, t: (c * t, c @ np.ones(4, np.float32)), a, xs))
    c, ys = s(m, xs)
    np.testing.assert_allclose(c.todense(), 6 * x, rtol=1e-6)
    np.testing.assert_allclose(ys, np.stack([x.sum(1), x.sum(1), 2 * x.sum(1)]), rtol=1e-6)
    with pytest.raises(TypeError, match="branch"):   # branches of different nse
        sparse.sparsify(lambda p, a: lax.cond(p, lambda a: a, lambda a: a * a, a))(True, m)


def test_bcoo_shape_operations_against_dense():
    x = _rand_sparse((4, 3, 2), seed=11)

    @pyjax.jit   # one compiled program per layout (eagerly, each small op would compile alone)
    def ops(m):
        return {
            "slice": m[1:3].todense(), "index": m[2].todense(),
            "rev": sparse.bcoo_rev(m, (0, 2)).todense(),
            "dynamic_slice": sparse.bcoo_dynamic_slice(m, (1, 5, 0), (2, 2, 2)).todense(),
            "reduce_sum": sparse.bcoo_reduce_sum(m, axes=(0, 2)).todense(),
            "concatenate": sparse.bcoo_concatenate([m, m], dimension=m.n_batch).todense(),
            "broadcast": sparse.bcoo_broadcast_in_dim(m, shape=(2,) + x.shape,
                                                      broadcast_dimensions=(1, 2, 3)).todense(),
            "squeeze": sparse.bcoo_squeeze(m[None], dimensions=(0,)).todense(),
            "multiply_dense": sparse.BCOO((sparse.bcoo_multiply_dense(m, jnp.arange(2.)), m.indices),
                                          shape=m.shape).todense(),
            "multiply_sparse": sparse.bcoo_multiply_sparse(m, m).todense(),
            "sort_indices": sparse.bcoo_sort_indices(m).todense(),
        }
    for nb, nd in [(0, 0), (1, 0), (1, 1), (0, 1)]:
        got = ops(sparse.BCOO.fromdense(x, n_batch=nb, n_dense=nd))
        want = {"slice": x[1:3], "index": x[2], "rev": x[::-1, :, ::-1],
                "dynamic_slice": np.asarray(lax.dynamic_slice(x, (1, 5, 0), (2, 2, 2))),
                "reduce_sum": x.sum((0, 2)), "concatenate": np.concatenate([x, x], nb),
                "broadcast": np.broadcast_to(x, (2,) + x.shape), "squeeze": x,
                "multiply_dense": x * np.arange(2.), "multiply_sparse": x * x, "sort_indices": x}
        for k in want:
            np.testing.assert_allclose(got[k], want[k], rtol=1e-6, err_msg=f"{k} {(nb, nd)}")
    m = sparse.BCOO.fromdense(x)
    np.testing.assert_array_equal(m.reshape(12, 2).todense(), x.reshape(12, 2))
    np.testing.assert_array_equal(m.transpose((2, 0, 1)).todense(), x.transpose(2, 0, 1))
    np.testing.assert_array_equal(m.astype(np.int32).todense(), x.astype(np.int32))
    a, b = np.ones((3, 5), np.float32), np.ones((5, 2), np.float32)
    s = sparse.bcoo_dot_general_sampled(a, b, m[0].indices, dimension_numbers=(([1], [0]), ([], [])))
    np.testing.assert_allclose(sparse.BCOO((s, m[0].indices), shape=(3, 2)).todense(),
                               np.where(x[0] != 0, 5.0, 0.0))
    check = sparse.BCOO((np.ones(3, np.float32), np.array([[0, 1], [0, 1], [2, 3]])), shape=(3, 4))
    np.testing.assert_array_equal(check.sum_duplicates().todense(), check.todense())
    assert check.sum_duplicates().nse == 2


def test_bcsr_and_legacy_formats():
    x = _rand_sparse((5, 4), seed=12)
    v = np.arange(4, dtype=np.float32)
    b = np.random.RandomState(13).randn(4, 2).astype(np.float32)
    m = sparse.BCSR.fromdense(x)
    ref = scipy.sparse.csr_matrix(x)
    np.testing.assert_array_equal(m.indptr, ref.indptr)
    np.testing.assert_array_equal(m.indices, ref.indices)
    np.testing.assert_array_equal(m.todense(), x)
    np.testing.assert_allclose(m @ v, x @ v, rtol=1e-6)
    np.testing.assert_allclose(pyjax.jit(lambda m, b: m @ b)(m, b), x @ b, rtol=1e-5, atol=1e-6)
    np.testing.assert_array_equal(sparse.BCSR.from_bcoo(m.to_bcoo()).todense(), x)
    np.testing.assert_array_equal(sparse.BCSR.from_scipy_sparse(ref).todense(), x)
    x3 = _rand_sparse((2, 5, 4), seed=14)
    mb = sparse.BCSR.fromdense(x3, n_batch=1)
    np.testing.assert_array_equal(mb.todense(), x3)
    np.testing.assert_allclose(mb @ v, x3 @ v, rtol=1e-6)
    # vmap over the batch dimension keeps bcsr_dot_general (and the BCSR's shape follows)
    vb = np.random.RandomState(20).randn(2, 4).astype(np.float32)
    jaxpr = pyjax.make_jaxpr(pyjax.vmap(lambda m, v: m @ v))(mb, vb)
    assert [e.primitive.name for e in jaxpr.jaxpr.eqns] == ["bcsr_dot_general"]
    np.testing.assert_allclose(pyjax.vmap(lambda m, v: m @ v)(mb, vb),
                               np.einsum("bij,bj->bi", x3, vb), rtol=1e-5, atol=1e-6)
    np.testing.assert_array_equal(pyjax.vmap(lambda m: m.todense())(mb), x3)
    with pyjax.enable_x64(True):
        x64 = x.astype(np.float64)
        m64 = sparse.BCSR.fromdense(x64)
        check_grads(lambda d: sparse.BCSR((d, m64.indices, m64.indptr), shape=x.shape) @ v.astype(float),
                    (m64.data,), order=1, modes=("fwd", "rev"))
    for cls in (sparse.COO, sparse.CSR, sparse.CSC):
        mm = cls.fromdense(x)
        np.testing.assert_array_equal(mm.todense(), x, err_msg=cls.__name__)
        np.testing.assert_allclose(mm @ v, x @ v, rtol=1e-6, err_msg=cls.__name__)
        np.testing.assert_allclose(mm @ b, x @ b, rtol=1e-5, atol=1e-6, err_msg=cls.__name__)
        np.testing.assert_allclose(mm.T @ np.ones(5, np.float32), x.T @ np.ones(5), rtol=1e-6)
    coo = sparse.COO.fromdense(x)
    np.testing.assert_allclose(sparse.coo_matvec(coo, np.ones(5, np.float32), transpose=True),
                               x.T @ np.ones(5), rtol=1e-6)
    for fmt in ("bcoo", "coo", "csr", "csc"):
        np.testing.assert_array_equal(sparse.todense(sparse.eye(4, 5, k=1, sparse_format=fmt)),
                                      np.eye(4, 5, k=1), err_msg=fmt)
        np.testing.assert_array_equal(sparse.empty((3, 2), sparse_format=fmt).todense(),
                                      np.zeros((3, 2)), err_msg=fmt)


def test_spsolve_matches_scipy_and_differentiates():
    rs = np.random.RandomState(15)
    a = _rand_sparse((6, 6), seed=16, density=0.3).astype(np.float64) + 4 * np.eye(6)
    b = rs.randn(6)
    with pyjax.enable_x64(True):
        m = sparse.CSR.fromdense(a)
        x = sparse.linalg.spsolve(m.data, m.indices, m.indptr, b)
        np.testing.assert_allclose(x, scipy.sparse.linalg.spsolve(scipy.sparse.csr_matrix(a), b),
                                   rtol=1e-10)
        np.testing.assert_allclose(pyjax.jit(sparse.linalg.spsolve)(m.data, m.indices, m.indptr, b),
                                   np.linalg.solve(a, b), rtol=1e-10)
        check_grads(lambda d, b: sparse.linalg.spsolve(d, m.indices, m.indptr, b), (m.data, b),
                    order=1, modes=("fwd", "rev"))


def test_gather_and_conv_against_dense():
    x = _rand_sparse((4, 6), seed=18)
    m = sparse.BCOO.fromdense(x)
    idx = jnp.array([2, 0, 3])
    np.testing.assert_array_equal(m[idx].todense(), x[np.array([2, 0, 3])])
    k = np.random.RandomState(19).randn(1, 4, 3).astype(np.float32)
    out = sparse.bcoo_conv_general_dilated(m[None], k, window_strides=(1,), padding="VALID")
    assert isinstance(out, sparse.BCOO)
    np.testing.assert_allclose(out.todense(), lax.conv_general_dilated(
        x[None], k, window_strides=(1,), padding="VALID"), rtol=1e-5, atol=1e-6)


def test_lobpcg_standard_finds_the_top_eigenpairs():
    rs = np.random.RandomState(1)
    n = 100
    q, _ = np.linalg.qr(rs.randn(n, n))
    a = ((q * np.linspace(1, 10, n)) @ q.T).astype(np.float32)
    a = (a + a.T) / 2
    x0 = rs.randn(n, 4).astype(np.float32)
    w, v = np.linalg.eigh(a.astype(np.float64))
    theta, u, i = sparse.linalg.lobpcg_standard(a, x0)
    np.testing.assert_allclose(theta, w[::-1][:4], rtol=2e-6)
    np.testing.assert_allclose(np.abs(np.sum(u * v[:, ::-1][:, :4], 0)), np.ones(4), atol=1e-3)
    assert int(i) == 30   # JAX 0.10.2 stops after 30 iterations here too
    m = sparse.BCOO.fromdense(a)
    theta2, _, _ = pyjax.jit(lambda x0: sparse.linalg.lobpcg_standard(lambda x: m @ x, x0))(x0)
    np.testing.assert_allclose(theta2, w[::-1][:4], rtol=2e-6)
    with pytest.raises(ValueError, match="search dim"):
        sparse.linalg.lobpcg_standard(a, x0[:, :0])
    with pytest.raises(ValueError, match="search dim"):
        sparse.linalg.lobpcg_standard(a[:10, :10], x0[:10, :2])


def test_random_bcoo_layout():
    m = sparse.random_bcoo(pyjax.random.key(1), (3, 4, 5), nse=0.3, n_batch=1, n_dense=1,
                           dtype=np.float32)
    assert (m.n_batch, m.n_dense, m.nse) == (1, 1, 2)
    idx = np.asarray(m.indices)
    assert all(len({tuple(r) for r in b}) == len(b) for b in idx)   # unique per batch


@pytest.mark.parametrize("expr", sorted(_RECORDED["sparse_cases"]))
def test_sparse_cases_match_recorded_jax(expr):
    ns = {"jax": pyjax, "jnp": jnp, "np": np, "sparse": sparse}
    got = evaluate_cases(_RECORDED["prelude"], [expr], ns)[expr]
    assert_matches(got, _RECORDED["sparse_cases"][expr], rtol=2e-6, atol=1e-7, err_msg=expr)


# -- issue 23: JAX's own sparse tests -------------------------------------------------------------

def test_sparse_ops_need_no_implicit_rank_promotion():
    """Issue 23: JAX's tests run with jax_numpy_rank_promotion='raise'; the sparse library code
    (padding masks, slices, rev, fromdense, lobpcg) broadcasts explicitly, so it still runs."""
    x = _rand_sparse((3, 4, 2), seed=3)
    with pyjax.numpy_rank_promotion("raise"):
        for n_batch, n_dense in ((0, 0), (1, 0), (0, 1)):
            m = sparse.BCOO.fromdense(x, n_batch=n_batch, n_dense=n_dense)
            np.testing.assert_array_equal(m.todense(), x)
            np.testing.assert_array_equal(sparse.bcoo_slice(m, start_indices=(1, 0, 0),
                                                            limit_indices=(3, 4, 2)).todense(), x[1:])
            np.testing.assert_array_equal(
                sparse.bcoo_dynamic_slice(m, (1, 1, 0), (2, 2, 2)).todense(), x[1:3, 1:3])
            np.testing.assert_array_equal(sparse.bcoo_rev(m, (1,)).todense(), x[:, ::-1])
        a = np.diag(np.arange(1.0, 13.0, dtype=np.float32))
        theta, _, _ = sparse.linalg.lobpcg_standard(
            a, np.random.RandomState(0).randn(12, 2).astype(np.float32))
        np.testing.assert_allclose(theta, [12.0, 11.0], rtol=1e-4)


def test_private_buffer_level_functions_match_jax():
    """Issue 23: the private buffer-level forms JAX's tests call (coo._coo_*, csr._csr_*,
    bcoo._bcoo_*, bcsr._bcoo_to_bcsr, util._count_stored_elements, util._csr_to_coo), with
    values recorded from JAX 0.10.2 (padding entries included)."""
    m = np.array([[0., 1., 0.], [0., 0., 0.], [2., 0., 3.]], np.float32)
    lists = lambda xs: [np.asarray(x).tolist() for x in xs]  # noqa: E731
    d, i, p = csr._csr_fromdense(m, nse=4)
    assert lists((d, i, p)) == [[1.0, 2.0, 3.0, 0.0], [1, 0, 2, 0], [0, 1, 1, 3]]
    assert lists(coo._coo_fromdense(m, nse=4)) == [[1.0, 2.0, 3.0, 0.0], [0, 2, 2, 0], [1, 0, 2, 0]]
    assert lists(util._csr_to_coo(i, p)) == [[0, 2, 2, 3], [1, 0, 2, 0]]
    assert csr._csr_matvec(d, i, p, jnp.array([1., 2, 3]), shape=(3, 3),
                           transpose=True).tolist() == [6.0, 1.0, 9.0]
    np.testing.assert_array_equal(csr._csr_todense(d, i, p, shape=(3, 3)), m)
    assert coo._coo_matmat(*coo._coo_fromdense(m, nse=4), jnp.ones((3, 2)),
                           spinfo=coo.COOInfo(shape=(3, 3))).tolist() == [[1.0, 1.0], [0.0, 0.0], [5.0, 5.0]]
    assert int(util._count_stored_elements(np.stack([m, m * 0]), 1)) == 3
    assert util._count_stored_elements_per_batch(np.stack([m, m * 0]), 1).tolist() == [3, 0]
    _, idx = bcoo._bcoo_fromdense(m, nse=3)
    assert lists(bcsr._bcoo_to_bcsr(idx, shape=(3, 3), index_dtype=jnp.int32)) == [[1, 0, 2], [0, 1, 1, 3]]
    assert lists(bcsr._bcsr_fromdense(m, nse=3)) == [[1.0, 2.0, 3.0], [1, 0, 2], [0, 1, 1, 3]]


def test_bcoo_extract_without_assume_unique_keeps_first_occurrence():
    """Issue 23: bcoo_extract with assume_unique=False gives a repeated index its value once (at
    its first occurrence; the others 0), so todense gives the array back (JAX 0.10.2's values)."""
    idx = jnp.array([[0], [5], [0], [3], [2], [3]])
    mat = jnp.array([10, 0, 81, 270, 0, 3])
    assert bcoo._bcoo_extract(idx, mat, assume_unique=False).tolist() == [10, 3, 0, 270, 81, 0]
    assert bcoo._bcoo_extract(idx, mat, assume_unique=True).tolist() == [10, 3, 10, 270, 81, 270]


@pytest.mark.parametrize("cls", [sparse.BCOO, sparse.BCSR, sparse.COO, sparse.CSR, sparse.CSC])
def test_sparse_arrays_are_unhashable(cls):
    """Issue 23: as in JAX, sparse arrays are not hashable (their buffers are arrays)."""
    with pytest.raises(TypeError):
        hash(cls.fromdense(D[:, :3]))
