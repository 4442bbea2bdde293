"""`jax.experimental.sparse.test_util`, written for pyjax to JAX 0.10.2's behaviour: the sparse
test case (comparisons against the dense computation, its gradients and its batching) and the
random BCOO/BCSR/dense-with-zeros generators (the same draws as JAX's, from the test's rng)."""
from __future__ import annotations

import functools
import itertools
import math
from typing import NamedTuple

import numpy as np

from pyjax import lax, numpy as jnp, tree_util
from pyjax._src import ad_api, api_vmap, test_util as jtu
from pyjax._src.pjit import jit
from pyjax.experimental import sparse

MATMUL_TOL = {np.float32: 1e-5, np.float64: 1e-10, np.complex64: 1e-5, np.complex128: 1e-10}


def is_sparse(x):
    return isinstance(x, sparse.JAXSparse)


class BatchedDotGeneralProperties(NamedTuple):
    lhs_shape: tuple
    rhs_shape: tuple
    n_batch: int
    n_dense: int
    dimension_numbers: tuple


class SparseLayout(NamedTuple):
    n_batch: int
    n_dense: int
    n_sparse: int


def _dense(tree):
    return tree_util.tree_map(sparse.todense, tree, is_leaf=is_sparse)


class SparseTestCase(jtu.JaxTestCase):
    def assertSparseArraysEquivalent(self, x, y, *, check_dtypes=True, atol=None, rtol=None,
                                     canonicalize_dtypes=True, err_msg=""):
        """Same structure (and sparse layout) and close buffers."""
        x_bufs, x_tree = tree_util.tree_flatten(x)
        y_bufs, y_tree = tree_util.tree_flatten(y)
        self.assertEqual(x_tree, y_tree)
        self.assertAllClose(x_bufs, y_bufs, check_dtypes=check_dtypes, atol=atol, rtol=rtol,
                            canonicalize_dtypes=canonicalize_dtypes, err_msg=err_msg)

    def _CheckAgainstDense(self, dense_op, sparse_op, args_maker, check_jit=True,
                           check_dtypes=True, tol=None, atol=None, rtol=None,
                           canonicalize_dtypes=True):
        """sparse_op on sparse arguments agrees with dense_op on their dense forms (and with
        itself under jit)."""
        sparse_args = args_maker()
        expected = dense_op(*_dense(sparse_args))
        sparse_ans = sparse_op(*sparse_args)
        self.assertAllClose(expected, _dense(sparse_ans), check_dtypes=check_dtypes,
                            atol=atol or tol, rtol=rtol or tol,
                            canonicalize_dtypes=canonicalize_dtypes)
        if check_jit:
            self.assertSparseArraysEquivalent(sparse_ans, jit(sparse_op)(*sparse_args),
                                              atol=atol or tol, rtol=rtol or tol)

    def _CheckGradsSparse(self, dense_fun, sparse_fun, args_maker, *, argnums=None,
                          modes=("fwd", "rev"), atol=None, rtol=None):
        """Jacobians (forward and/or reverse) with respect to the first buffer of each argument
        agree between the dense and the sparse function."""
        assert all(mode in ("fwd", "rev") for mode in modes)
        args = args_maker()
        args_flat, tree = tree_util.tree_flatten(args)
        sizes = [len(tree_util.tree_leaves(a)) for a in args]
        argnums_flat = np.cumsum([0, *sizes[:-1]]).tolist()
        if argnums is not None:
            argnums_flat = [argnums_flat[n] for n in argnums]

        def dense_flat(*flat):
            return dense_fun(*_dense(tree_util.tree_unflatten(tree, flat)))

        def sparse_flat(*flat):
            return _dense(sparse_fun(*tree_util.tree_unflatten(tree, flat)))
        for mode, jac in (("rev", ad_api.jacrev), ("fwd", ad_api.jacfwd)):
            if mode in modes:
                self.assertAllClose(jac(dense_flat, argnums=argnums_flat)(*args_flat),
                                    jac(sparse_flat, argnums=argnums_flat)(*args_flat),
                                    atol=atol, rtol=rtol)

    def _random_bdims(self, *args):
        rng = self.rng()
        return [rng.randint(0, arg + 1) for arg in args]

    def _CheckBatchingSparse(self, dense_fun, sparse_fun, args_maker, *, batch_size=3,
                             bdims=None, check_jit=False, check_dtypes=True, tol=None, atol=None,
                             rtol=None, canonicalize_dtypes=True):
        """vmap of the sparse function agrees with vmap of the dense one, over `batch_size`
        stacked draws of the arguments (stacked along random batch dimensions)."""
        if bdims is None:
            bdims = self._random_bdims(*(a.n_batch if is_sparse(a) else a.ndim
                                         for a in args_maker()))

        def concat(args, bdim):
            return sparse.sparsify(functools.partial(lax.concatenate, dimension=bdim))(args)

        def expand(arg, bdim):
            return sparse.sparsify(functools.partial(lax.expand_dims, dimensions=[bdim]))(arg)

        def batched_args_maker():
            draws = list(zip(*(args_maker() for _ in range(batch_size))))
            return [d[0] if b is None else concat([expand(x, b) for x in d], b)
                    for d, b in zip(draws, bdims, strict=True)]
        self._CheckAgainstDense(api_vmap.vmap(dense_fun, bdims), api_vmap.vmap(sparse_fun, bdims),
                                batched_args_maker, check_dtypes=check_dtypes, tol=tol,
                                atol=atol, rtol=rtol, check_jit=check_jit,
                                canonicalize_dtypes=canonicalize_dtypes)


def _rand_sparse(shape, dtype, *, rng, rand_method, nse, n_batch, n_dense, sparse_format):
    if sparse_format not in ("bcoo", "bcsr"):
        raise ValueError(f"Sparse format {sparse_format} not supported.")
    n_sparse = len(shape) - n_batch - n_dense
    if n_sparse < 0 or n_batch < 0 or n_dense < 0:
        raise ValueError(f"Invalid parameters: {shape=} {n_batch=} {n_sparse=}")
    if sparse_format == "bcsr" and n_sparse != 2:
        raise ValueError(f"bcsr array must have 2 sparse dimensions; {n_sparse} is given.")
    shape = tuple(shape)
    batch_shape = shape[:n_batch]
    sparse_shape = shape[n_batch:n_batch + n_sparse]
    dense_shape = shape[n_batch + n_sparse:]
    if 0 <= nse < 1:
        nse = int(np.ceil(nse * np.prod(sparse_shape)))
    nse = int(nse)
    data = jnp.array(rand_method(rng)((*batch_shape, nse, *dense_shape), dtype))
    if sparse_format == "bcoo":
        indices = rng.randint(0, sparse_shape, size=(*batch_shape, nse, n_sparse),
                              dtype=np.int32)
        return sparse.BCOO((data, jnp.array(indices)), shape=shape)
    indices = rng.randint(0, sparse_shape[1], size=(*batch_shape, nse), dtype=np.int32)
    indptr = np.sort(rng.randint(0, nse + 1, size=(*batch_shape, sparse_shape[0] + 1),
                                 dtype=np.int32), axis=-1)
    indptr[..., 0] = 0
    return sparse.BCSR((data, jnp.array(indices), jnp.array(indptr)), shape=shape)


def rand_bcoo(rng, rand_method=jtu.rand_default, nse=0.5, n_batch=0, n_dense=0):
    """A generator of random BCOO arrays: fn(shape, dtype)."""
    return functools.partial(_rand_sparse, rng=rng, rand_method=rand_method, nse=nse,
                             n_batch=n_batch, n_dense=n_dense, sparse_format="bcoo")


def rand_bcsr(rng, rand_method=jtu.rand_default, nse=0.5, n_batch=0, n_dense=0):
    """A generator of random BCSR arrays: fn(shape, dtype)."""
    return functools.partial(_rand_sparse, rng=rng, rand_method=rand_method, nse=nse,
                             n_batch=n_batch, n_dense=n_dense, sparse_format="bcsr")


def iter_subsets(s):
    """Every subset of `s`, smallest first."""
    return itertools.chain.from_iterable(itertools.combinations(s, n) for n in range(len(s) + 1))


def iter_sparse_layouts(shape, min_n_batch=0):
    for n_batch in range(min_n_batch, len(shape) + 1):
        for n_dense in range(len(shape) + 1 - n_batch):
            yield SparseLayout(n_batch=n_batch, n_sparse=len(shape) - n_batch - n_dense,
                               n_dense=n_dense)


def iter_bcsr_layouts(shape, min_n_batch=0):
    for n_batch in range(min_n_batch, len(shape) - 1):
        yield SparseLayout(n_batch=n_batch, n_sparse=2, n_dense=len(shape) - 2 - n_batch)


def rand_sparse(rng, nse=0.5, post=lambda x: x, rand_method=jtu.rand_default):
    """A generator of dense arrays with about a fraction `nse` (or a count) of nonzeros."""
    def fn(shape, dtype, nse=nse):
        size = math.prod(shape)
        if 0 <= nse < 1:
            nse = nse * size
        nse = min(size, int(nse))
        m = rand_method(rng)(shape, dtype)
        m.flat[rng.choice(size, size - nse, replace=False)] = 0
        return post(m)
    return fn
