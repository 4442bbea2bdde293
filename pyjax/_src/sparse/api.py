"""Constructors that pick a sparse format (`empty`, `eye`) and `random_bcoo`."""
from __future__ import annotations

import math
import operator

import numpy as np

from pyjax._src import core, dtypes
from pyjax._src.api_vmap import vmap
from pyjax._src.numpy import array_methods  # noqa: F401  (Array operators)
from pyjax._src.numpy import creation, index_tricks, scalar_types
from pyjax._src.numpy import shape as jshape
from pyjax._src.random import keys as prng_keys
from pyjax._src.random import samplers
from pyjax._src.sparse.bcoo import BCOO
from pyjax._src.sparse.bcsr import BCSR
from pyjax._src.sparse.coo_csr import COO, CSC, CSR


def empty(shape, dtype=None, index_dtype="int32", sparse_format="bcoo", **kwds):
    """An all-zero sparse array with no stored elements.

        >>> sparse.empty((2, 3)).nse
        0
    """
    formats = {"bcsr": BCSR, "bcoo": BCOO, "coo": COO, "csr": CSR, "csc": CSC}
    if sparse_format not in formats:
        raise ValueError(f"sparse_format={sparse_format!r} not recognized; must be one of "
                         f"{list(formats)}")
    return formats[sparse_format]._empty(tuple(shape), dtype=dtype, index_dtype=index_dtype, **kwds)


def eye(N, M=None, k=0, dtype=None, index_dtype="int32", sparse_format="bcoo", **kwds):
    """The sparse N x M matrix with ones on diagonal k.

        >>> sparse.eye(3).todense()   # == jnp.eye(3)
    """
    formats = {"bcoo": BCOO, "coo": COO, "csr": CSR, "csc": CSC}
    if sparse_format not in formats:
        raise ValueError(f"sparse_format={sparse_format!r} not recognized; must be one of "
                         f"{list(formats)}")
    M = N if M is None else M
    N, M, k = (operator.index(core.concrete_or_error(v, "sparse.eye needs concrete sizes"))
               for v in (N, M, k))
    return formats[sparse_format]._eye(N, M, k, dtype=dtype, index_dtype=index_dtype, **kwds)


def random_bcoo(key, shape, *, dtype=scalar_types.float_, indices_dtype=None, nse=0.2, n_batch=0,
                n_dense=0, unique_indices=True, sorted_indices=False, generator=None, **kwds):
    """A random BCOO array: `nse` stored elements per batch element (a fraction of the sparse
    size when 0 < nse < 1) at positions drawn by `random.choice`, values from `generator`
    (default `random.uniform`), as JAX's (same keys, same draws).

        >>> sparse.random_bcoo(random.key(0), (3, 4), nse=0.5).nse
        6
    """
    generator = samplers.uniform if generator is None else generator
    shape = tuple(map(operator.index, shape))
    n_batch, n_dense = operator.index(n_batch), operator.index(n_dense)
    if n_batch < 0 or n_dense < 0 or n_batch + n_dense > len(shape):
        raise ValueError(f"Invalid n_batch={n_batch}, n_dense={n_dense} for shape={shape}")
    n_sparse = len(shape) - n_batch - n_dense
    batch_shape, sparse_shape = shape[:n_batch], shape[n_batch:n_batch + n_sparse]
    dense_shape = shape[n_batch + n_sparse:]
    sparse_size = math.prod(sparse_shape)
    if not 0 <= nse < sparse_size:
        raise ValueError(f"got nse={nse}, expected to be between 0 and {sparse_size}")
    if 0 < nse < 1:
        nse = int(math.ceil(nse * sparse_size))
    nse = operator.index(nse)
    indices_dtype = dtypes.canonicalize_dtype(np.int64 if indices_dtype is None else indices_dtype)
    if sparse_size > np.iinfo(indices_dtype).max:
        raise ValueError(f"indices_dtype={indices_dtype} does not have enough range to generate "
                         f"sparse indices of size {sparse_size}.")

    def one_indices(k):
        if not sparse_shape:
            return creation.zeros((nse, n_sparse), indices_dtype)
        flat = samplers.choice(k, sparse_size, shape=(nse,), replace=not unique_indices)
        return jshape.column_stack(index_tricks.unravel_index(flat.astype(indices_dtype), sparse_shape))

    keys = prng_keys.split(key, math.prod(batch_shape) + 1)
    data = generator(keys[0], shape=batch_shape + (nse,) + dense_shape, dtype=dtype, **kwds)
    indices = vmap(one_indices)(keys[1:]).reshape(batch_shape + (nse, n_sparse))
    mat = BCOO((data, indices), shape=shape)
    return mat.sort_indices() if sorted_indices else mat
