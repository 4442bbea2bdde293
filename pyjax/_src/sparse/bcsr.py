"""BCSR, the batched compressed-sparse-row format: `data` (batch + (nse,) + dense), column
`indices` (batch + (nse,)) and row pointers `indptr` (batch + (n_rows + 1,)); two sparse
dimensions. Conversions go through BCOO (row indices from indptr by a search, indptr from
sorted row indices by counting), and the products reuse BCOO's dot_general.
"""
from __future__ import annotations

import operator
from functools import partial

import numpy as np

from pyjax._src import core, tree_util
from pyjax._src.interpreters import batching
from pyjax._src.numpy import array_methods  # noqa: F401  (Array operators)
from pyjax._src.numpy import creation, lax_numpy
from pyjax._src.numpy import shape as jshape
from pyjax._src.numpy import sorting as jsorting
from pyjax._src.sparse._base import JAXSparse, sparse_from_elt, sparse_to_elt
from pyjax._src.sparse import bcoo as _bcoo
from pyjax._src.sparse import bcoo_ops
from pyjax._src.sparse.bcoo import BCOO, SparseInfo, _hashable
from pyjax._src.sparse.util import (broadcast_batch, canonical_index_dtype, def_leading_batch,
                                    nfold_vmap, sparse_primitive)


def _validate_bcsr(data, indices, indptr, shape):
    shape = tuple(shape)
    n_batch = indices.ndim - 1
    if indptr.ndim != n_batch + 1:
        raise ValueError(f"BCSR: indices {tuple(indices.shape)} and indptr {tuple(indptr.shape)} "
                         f"must have the same batch dimensions")
    n_dense = len(shape) - n_batch - 2
    if n_dense < 0:
        raise ValueError(f"BCSR: shape {shape} has too few dimensions for n_batch={n_batch} and "
                         f"two sparse dimensions")
    if indptr.shape[-1] != shape[n_batch] + 1:
        raise ValueError(f"BCSR: indptr of shape {tuple(indptr.shape)} must have "
                         f"{shape[n_batch] + 1} entries per batch element for shape {shape}")
    nse = indices.shape[-1]
    if tuple(data.shape[n_batch:]) != (nse,) + shape[n_batch + 2:]:
        raise ValueError(f"BCSR: data of shape {tuple(data.shape)} does not fit indices "
                         f"{tuple(indices.shape)} and shape {shape}")
    return n_batch, n_dense, nse


# -- conversions between BCSR and BCOO index buffers ---------------------------------------------

def _csr_to_coo_unbatched(indices, indptr, *, n_rows, n_cols):
    k = creation.arange(indices.shape[0], dtype=indptr.dtype)
    rows = jsorting.searchsorted(indptr[1:], k, side="right").astype(indices.dtype)
    valid = k < indptr[-1]
    rows = lax_numpy.where(valid, rows, n_rows)
    cols = lax_numpy.where(valid, indices, n_cols)
    return jshape.stack([rows, cols], axis=-1)


def _coo_to_csr_unbatched(bcoo_indices, *, n_rows):
    rows = bcoo_indices[:, 0]
    indptr = jsorting.searchsorted(rows, creation.arange(n_rows + 1, dtype=rows.dtype), side="left")
    return bcoo_indices[:, 1], indptr.astype(bcoo_indices.dtype)


def _bcsr_to_bcoo_indices(indices, indptr, shape):
    n_batch = indices.ndim - 1
    (indices, indptr), _ = broadcast_batch([indices, indptr], n_batch, shape[:n_batch])
    f = partial(_csr_to_coo_unbatched, n_rows=shape[n_batch], n_cols=shape[n_batch + 1])
    return nfold_vmap(f, n_batch)(indices, indptr)


# -- primitives ------------------------------------------------------------------------------------

def _todense_impl(data, indices, indptr, *, spinfo):
    idx = _bcsr_to_bcoo_indices(indices, indptr, spinfo.shape)
    return _bcoo._todense_impl(data, idx, spinfo=spinfo)


bcsr_todense_p = sparse_primitive("bcsr_todense", _todense_impl, linear_argnums=(0,))
def_leading_batch(bcsr_todense_p, (0, 1, 2), update_params=_bcoo._grow_spinfo)


def _fromdense_impl(mat, *, nse, n_batch, n_dense, index_dtype):
    data, idx = _bcoo._fromdense_impl(mat, nse=nse, n_batch=n_batch, n_dense=n_dense,
                                      index_dtype=index_dtype)
    f = partial(_coo_to_csr_unbatched, n_rows=mat.shape[n_batch])
    indices, indptr = nfold_vmap(f, n_batch)(idx)
    return [data, indices, indptr]


bcsr_fromdense_p = sparse_primitive("bcsr_fromdense", _fromdense_impl, multiple_results=True,
                                    linear_argnums=(0,), structure_preserving=False)
def_leading_batch(bcsr_fromdense_p, (), (0,),
                  update_params=lambda size, dims, *, n_batch, **p: dict(p, n_batch=n_batch + 1))


def _extract_impl(indices, indptr, mat):
    shape = mat.shape
    idx = _bcsr_to_bcoo_indices(indices, indptr, shape)
    return _bcoo._extract_impl(idx, mat, assume_unique=True)


bcsr_extract_p = sparse_primitive("bcsr_extract", _extract_impl, linear_argnums=(2,))
def_leading_batch(bcsr_extract_p, (0, 1), (2,), update_params=lambda size, dims, **p: p)


def _dot_general_impl(lhs_data, lhs_indices, lhs_indptr, rhs, *, dimension_numbers, lhs_spinfo):
    idx = _bcsr_to_bcoo_indices(lhs_indices, lhs_indptr, lhs_spinfo.shape)
    return bcoo_ops._dot_general_impl(lhs_data, idx, rhs, dimension_numbers=dimension_numbers,
                                      lhs_spinfo=lhs_spinfo)


bcsr_dot_general_p = sparse_primitive("bcsr_dot_general", _dot_general_impl,
                                      linear_argnums=(0, 3))
bcoo_ops.dot_general_batch_rule(bcsr_dot_general_p, 3)


# -- functions ---------------------------------------------------------------------------------------

def bcsr_todense(mat):
    """The dense array of a BCSR matrix.

        >>> bcsr_todense(BCSR.fromdense(x))   # == x
    """
    return bcsr_todense_p.bind(mat.data, mat.indices, mat.indptr, spinfo=_hashable(mat._info))


def bcsr_fromdense(mat, *, nse=None, n_batch=0, n_dense=0, index_dtype=np.int32):
    """A BCSR matrix holding the nonzeros of `mat` (two sparse dimensions after the batch ones).

        >>> bcsr_fromdense(jnp.array([[0., 1.], [2., 0.]])).indptr
        Array([0, 1, 2], dtype=int32)
    """
    mat = creation.asarray(mat)
    if mat.ndim - n_batch - n_dense != 2:
        raise ValueError(f"bcsr_fromdense: BCSR needs exactly 2 sparse dimensions; got shape "
                         f"{mat.shape} with n_batch={n_batch}, n_dense={n_dense}")
    if nse is None:
        nse = _bcoo._count_nse(mat, n_batch, n_dense)
    data, indices, indptr = _bcsr_fromdense(mat, nse=nse, n_batch=n_batch, n_dense=n_dense,
                                            index_dtype=index_dtype)
    return BCSR((data, indices, indptr), shape=mat.shape, indices_sorted=True, unique_indices=True)


def _bcsr_fromdense(mat, *, nse, n_batch=0, n_dense=0, index_dtype=np.int32):
    """The BCSR buffers (data, indices, indptr) of `mat` with `nse` stored elements per batch
    element (JAX's private buffer-level bcsr_fromdense)."""
    nse = operator.index(core.concrete_or_error(nse, _bcoo._TRACED_NSE_ERROR))
    return tuple(bcsr_fromdense_p.bind(
        creation.asarray(mat), nse=nse, n_batch=operator.index(n_batch),
        n_dense=operator.index(n_dense), index_dtype=canonical_index_dtype(index_dtype)))


def _bcoo_to_bcsr(indices, *, shape, index_dtype):
    """The BCSR (indices, indptr) of BCOO indices sorted within each batch element."""
    indices = creation.asarray(indices)
    n_batch = indices.ndim - 2
    if indices.shape[-1] != 2:
        raise ValueError("Must have 2 sparse dimensions to be converted to BCSR.")
    f = partial(_coo_to_csr_unbatched, n_rows=shape[n_batch])
    col, indptr = nfold_vmap(f, n_batch)(indices)
    return col, indptr.astype(canonical_index_dtype(index_dtype))


def _bcsr_to_bcoo(indices, indptr, *, shape):
    """The BCOO indices of BCSR (indices, indptr)."""
    return _bcsr_to_bcoo_indices(creation.asarray(indices), creation.asarray(indptr), tuple(shape))


def bcsr_extract(indices, indptr, mat):
    """The entries of dense `mat` at the positions of a BCSR index structure (the data).

        >>> bcsr_extract(m.indices, m.indptr, 2 * x)   # == 2 * m.data
    """
    return bcsr_extract_p.bind(creation.asarray(indices), creation.asarray(indptr), creation.asarray(mat))


def bcsr_dot_general(lhs, rhs, *, dimension_numbers, precision=None,
                     preferred_element_type=None, out_sharding=None):
    """`lax.dot_general` with a BCSR operand and a dense one: a dense result.

        >>> bcsr_dot_general(m, v, dimension_numbers=(([1], [0]), ([], [])))   # == m @ v
    """
    del precision, out_sharding
    dn = bcoo_ops._canonical_dn(dimension_numbers)
    if isinstance(lhs, BCSR) and not isinstance(rhs, JAXSparse):
        rhs = creation.asarray(rhs)
        bcoo_ops._dot_output_shape(lhs.shape, rhs.shape, dn, "bcsr_dot_general")
        out = bcsr_dot_general_p.bind(lhs.data, lhs.indices, lhs.indptr, rhs, dimension_numbers=dn,
                                      lhs_spinfo=_hashable(lhs._info))
        return out if preferred_element_type is None else out.astype(preferred_element_type)
    lhs = lhs.to_bcoo() if isinstance(lhs, BCSR) else lhs
    rhs = rhs.to_bcoo() if isinstance(rhs, BCSR) else rhs
    return bcoo_ops.bcoo_dot_general(lhs, rhs, dimension_numbers=dn,
                                     preferred_element_type=preferred_element_type)


def bcsr_sum_duplicates(mat, nse=None):
    """`mat` with repeated (row, column) entries merged."""
    return BCSR.from_bcoo(_bcoo.bcoo_sum_duplicates(mat.to_bcoo(), nse=nse))


def bcsr_broadcast_in_dim(mat, *, shape, broadcast_dimensions, sharding=None):
    """`lax.broadcast_in_dim` of a BCSR array (new leading dims become batch dims)."""
    out = bcoo_ops.bcoo_broadcast_in_dim(mat.to_bcoo(), shape=shape,
                                         broadcast_dimensions=broadcast_dimensions)
    return BCSR.from_bcoo(out)


def bcsr_concatenate(operands, *, dimension):
    """Concatenation of BCSR arrays along `dimension`."""
    return BCSR.from_bcoo(bcoo_ops.bcoo_concatenate([o.to_bcoo() for o in operands],
                                                    dimension=dimension))


# -- the BCSR class -------------------------------------------------------------------------------

class BCSR(JAXSparse):
    """Batched compressed sparse row array: `BCSR((data, indices, indptr), shape=shape)`.

        >>> m = BCSR.fromdense(jnp.array([[0., 1.], [2., 0.]]))
        >>> m @ jnp.ones(2)
        Array([1., 2.], dtype=float32)
    """

    def __init__(self, args, *, shape, indices_sorted=False, unique_indices=False):
        data, indices, indptr = args
        as_arr = lambda x: x if isinstance(x, core.Tracer) else creation.asarray(x)   # noqa: E731
        self.data, self.indices, self.indptr = as_arr(data), as_arr(indices), as_arr(indptr)
        self.indices_sorted, self.unique_indices = indices_sorted, unique_indices
        super().__init__(args, shape=shape)
        _validate_bcsr(self.data, self.indices, self.indptr, self.shape)

    n_batch = property(lambda self: self.indices.ndim - 1)
    n_sparse = property(lambda self: 2)
    n_dense = property(lambda self: self.data.ndim - 1 - self.n_batch)
    nse = property(lambda self: self.indices.shape[-1])
    _info = property(lambda self: SparseInfo(self.shape, self.indices_sorted, self.unique_indices))
    _bufs = property(lambda self: (self.data, self.indices, self.indptr))

    @classmethod
    def fromdense(cls, mat, *, nse=None, index_dtype=np.int32, n_dense=0, n_batch=0):
        """BCSR of a dense array (see `bcsr_fromdense`)."""
        return bcsr_fromdense(mat, nse=nse, index_dtype=index_dtype, n_dense=n_dense,
                              n_batch=n_batch)

    @classmethod
    def from_bcoo(cls, arr):
        """The BCSR array of a BCOO array with two sparse dimensions (entries sorted first)."""
        if arr.n_sparse != 2:
            raise NotImplementedError(f"BCSR.from_bcoo: BCSR needs 2 sparse dimensions; the BCOO "
                                      f"array has n_sparse={arr.n_sparse}")
        if not arr.indices_sorted:
            arr = _bcoo.bcoo_sort_indices(arr)
        nb = arr.n_batch
        (data, idx), _ = broadcast_batch([arr.data, arr.indices], nb, arr.shape[:nb])
        f = partial(_coo_to_csr_unbatched, n_rows=arr.shape[nb])
        indices, indptr = nfold_vmap(f, nb)(idx)
        return cls((data, indices, indptr), shape=arr.shape, indices_sorted=True,
                   unique_indices=arr.unique_indices)

    @classmethod
    def from_scipy_sparse(cls, mat, *, index_dtype=None, n_dense=0, n_batch=0):
        """BCSR of a scipy.sparse matrix."""
        if n_dense or n_batch:
            raise NotImplementedError("BCSR.from_scipy_sparse: n_dense and n_batch must be 0")
        mat = mat.tocsr()
        dt = canonical_index_dtype(index_dtype)
        return cls((np.asarray(mat.data), mat.indices.astype(dt), mat.indptr.astype(dt)),
                   shape=mat.shape)

    @classmethod
    def _empty(cls, shape, *, dtype=None, index_dtype="int32", n_dense=0, n_batch=0, nse=0):
        return cls.from_bcoo(BCOO._empty(shape, dtype=dtype, index_dtype=index_dtype,
                                         n_dense=n_dense, n_batch=n_batch, nse=nse))

    @classmethod
    def _eye(cls, N, M, k, *, dtype=None, index_dtype="int32", n_batch=0, n_dense=0):
        return cls.from_bcoo(BCOO._eye(N, M, k, dtype=dtype, index_dtype=index_dtype,
                                       n_batch=n_batch, n_dense=n_dense))

    def to_bcoo(self):
        """The same array in BCOO format."""
        idx = _bcsr_to_bcoo_indices(self.indices, self.indptr, self.shape)
        return BCOO((self.data, idx), shape=self.shape, indices_sorted=self.indices_sorted,
                    unique_indices=self.unique_indices)

    def todense(self):
        return bcsr_todense(self)

    def sum_duplicates(self, nse=None, remove_zeros=True):
        return bcsr_sum_duplicates(self, nse=nse)

    def transpose(self, *args, **kwargs):
        raise NotImplementedError("Transpose is not implemented.")

    def __matmul__(self, other):
        if isinstance(other, JAXSparse):
            return NotImplemented
        other = creation.asarray(other)
        return bcsr_dot_general(self, other, dimension_numbers=(([self.ndim - 1], [0]), ([], [])))

    def __rmatmul__(self, other):
        other = creation.asarray(other)
        return bcoo_ops._dense_sparse_dot(other, self.to_bcoo(),
                                          (([other.ndim - 1], [self.n_batch]), ([], [])), None)

    def tree_flatten(self):
        return (self.data, self.indices, self.indptr), self._info._asdict()

    @classmethod
    def tree_unflatten(cls, aux, children):
        obj = object.__new__(cls)
        obj.data, obj.indices, obj.indptr = children
        obj.__dict__.update(aux)
        _fix_mapped_shape(obj)
        return obj


def _fix_mapped_shape(obj):
    """Under vmap the buffers lose (or gain) a leading batch dimension; the shape follows (see
    bcoo._fix_mapped_shape)."""
    data, indices = obj.data, obj.indices
    if not (hasattr(data, "ndim") and hasattr(indices, "ndim") and hasattr(indices, "shape")):
        return
    n_dense = data.ndim - indices.ndim
    n_batch_stored = len(obj.shape) - 2 - n_dense
    n_batch_now = indices.ndim - 1
    if n_batch_now < 0:
        raise ValueError("Cannot map in_axis=0 for BCSR array with n_batch=0. in_axes for "
                         "batched BCSR operations must correspond to a batch dimension.")
    if n_batch_now == n_batch_stored - 1:
        obj.shape = tuple(obj.shape[1:])
    elif n_batch_now == n_batch_stored + 1:
        obj.shape = (max(data.shape[0], indices.shape[0]),) + tuple(obj.shape)


tree_util.register_pytree_node(BCSR, BCSR.tree_flatten, BCSR.tree_unflatten)


batching.register_vmappable(BCSR, int, int, partial(sparse_to_elt, batch_word="batched"),
                            sparse_from_elt, None)   # as BCOO (JAX's words)
