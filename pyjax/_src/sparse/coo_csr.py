"""The legacy unbatched 2-D formats COO (row, col), CSR (indices, indptr) and CSC, with their
matvec/matmat/todense/fromdense primitives (JAX binds cuSPARSE for these on GPU and falls back
to scatter/gather code elsewhere; here the fallback is the only path).
"""
from __future__ import annotations

import operator
from typing import NamedTuple

import numpy as np

from pyjax._src import core, tree_util
from pyjax._src.lax import sorting as lax_sorting
from pyjax._src.numpy import array_methods  # noqa: F401  (Array operators)
from pyjax._src.numpy import creation, lax_numpy
from pyjax._src.numpy import sorting as jsorting
from pyjax._src.sparse._base import JAXSparse
from pyjax._src.sparse.bcoo import BCOO, _count_nse, _TRACED_NSE_ERROR
from pyjax._src.sparse.util import canonical_index_dtype, sparse_primitive


class COOInfo(NamedTuple):
    shape: tuple
    rows_sorted: bool = False
    cols_sorted: bool = False


def _check_2d(name, shape):
    if len(shape) != 2:
        raise ValueError(f"{name}: only 2-D matrices are supported; got shape {tuple(shape)}")


# -- COO primitives --------------------------------------------------------------------------------

def _coo_todense_impl(data, row, col, *, spinfo):
    return creation.zeros(spinfo.shape, data.dtype).at[row, col].add(data, mode="drop")


def _coo_fromdense_impl(mat, *, nse, index_dtype):
    row, col = lax_numpy.nonzero(mat, size=nse, fill_value=0)
    valid = creation.arange(nse) < (mat != 0).sum()
    data = lax_numpy.where(valid, mat[row, col], 0)
    # NB: padding entries point at (0, 0) with zero data, as JAX's COO fromdense writes
    return [data, row.astype(index_dtype), col.astype(index_dtype)]


def _coo_matvec_impl(data, row, col, v, *, spinfo, transpose):
    rows, cols = (col, row) if transpose else (row, col)
    n_out = spinfo.shape[1] if transpose else spinfo.shape[0]
    prod = data.reshape(data.shape + (1,) * (v.ndim - 1)) * v.at[cols].get(mode="fill", fill_value=0)
    return creation.zeros((n_out,) + v.shape[1:], prod.dtype).at[rows].add(prod, mode="drop")


coo_todense_p = sparse_primitive("coo_todense", _coo_todense_impl, linear_argnums=(0,))
coo_fromdense_p = sparse_primitive("coo_fromdense", _coo_fromdense_impl, multiple_results=True,
                                   linear_argnums=(0,), structure_preserving=False)
coo_matvec_p = sparse_primitive("coo_matvec", _coo_matvec_impl, linear_argnums=(0, 3))
coo_matmat_p = sparse_primitive("coo_matmat", _coo_matvec_impl, linear_argnums=(0, 3))


def _coo_info(spinfo):
    return COOInfo(tuple(int(d) for d in spinfo.shape), bool(spinfo.rows_sorted),
                   bool(spinfo.cols_sorted))


def _concrete_nse(nse):
    return operator.index(core.concrete_or_error(nse, _TRACED_NSE_ERROR))


def _coo_todense(data, row, col, *, spinfo):
    """The dense matrix of COO buffers (JAX's private buffer-level form of coo_todense)."""
    return coo_todense_p.bind(creation.asarray(data), creation.asarray(row), creation.asarray(col),
                              spinfo=_coo_info(spinfo))


def _coo_fromdense(mat, *, nse, index_dtype=np.int32):
    """The COO buffers (data, row, col) of the nonzeros of `mat`, `nse` of them."""
    return tuple(coo_fromdense_p.bind(creation.asarray(mat), nse=_concrete_nse(nse),
                                      index_dtype=canonical_index_dtype(index_dtype)))


def _coo_matvec(data, row, col, v, *, spinfo, transpose=False):
    """mat @ v (or mat.T @ v) for COO buffers and a dense vector."""
    return coo_matvec_p.bind(creation.asarray(data), creation.asarray(row), creation.asarray(col),
                             creation.asarray(v), spinfo=_coo_info(spinfo), transpose=bool(transpose))


def _coo_matmat(data, row, col, B, *, spinfo, transpose=False):
    """mat @ B (or mat.T @ B) for COO buffers and a dense matrix."""
    return coo_matmat_p.bind(creation.asarray(data), creation.asarray(row), creation.asarray(col),
                             creation.asarray(B), spinfo=_coo_info(spinfo), transpose=bool(transpose))


def coo_todense(mat):
    """The dense array of a COO matrix."""
    return _coo_todense(mat.data, mat.row, mat.col, spinfo=COOInfo(tuple(mat.shape)))


def coo_fromdense(mat, *, nse=None, index_dtype=np.int32):
    """A COO matrix of the nonzeros of the 2-D `mat`.

        >>> coo_fromdense(jnp.eye(2)).row
        Array([0, 1], dtype=int32)
    """
    mat = creation.asarray(mat)
    _check_2d("coo_fromdense", mat.shape)
    nse = _count_nse(mat, 0, 0) if nse is None else nse
    data, row, col = _coo_fromdense(mat, nse=nse, index_dtype=index_dtype)
    return COO((data, row, col), shape=mat.shape, rows_sorted=True)


def coo_matvec(mat, v, transpose=False):
    """mat @ v (or mat.T @ v) for a COO matrix and a dense vector."""
    v = creation.asarray(v)
    if v.ndim != 1 or v.shape[0] != mat.shape[0 if transpose else 1]:
        raise ValueError(f"coo_matvec: vector of shape {v.shape} does not fit matrix {mat.shape}"
                         f"{' (transposed)' if transpose else ''}")
    return _coo_matvec(mat.data, mat.row, mat.col, v, spinfo=COOInfo(tuple(mat.shape)),
                       transpose=transpose)


def coo_matmat(mat, B, *, transpose=False):
    """mat @ B (or mat.T @ B) for a COO matrix and a dense matrix."""
    B = creation.asarray(B)
    if B.ndim != 2 or B.shape[0] != mat.shape[0 if transpose else 1]:
        raise ValueError(f"coo_matmat: matrix of shape {B.shape} does not fit matrix {mat.shape}"
                         f"{' (transposed)' if transpose else ''}")
    return _coo_matmat(mat.data, mat.row, mat.col, B, spinfo=COOInfo(tuple(mat.shape)),
                       transpose=transpose)


# -- CSR primitives --------------------------------------------------------------------------------

def _csr_rows(indices, indptr):
    k = creation.arange(indices.shape[0], dtype=indptr.dtype)
    rows = jsorting.searchsorted(indptr[1:], k, side="right")
    return lax_numpy.where(k < indptr[-1], rows, indptr.shape[0] - 1)


def _csr_todense_impl(data, indices, indptr, *, shape):
    return _coo_todense_impl(data, _csr_rows(indices, indptr), indices, spinfo=COOInfo(shape))


def _csr_fromdense_impl(mat, *, nse, index_dtype):
    data, row, col = _coo_fromdense_impl(mat, nse=nse, index_dtype=index_dtype)
    true_nse = (mat != 0).sum()
    row = lax_numpy.where(creation.arange(nse) < true_nse, row, mat.shape[0])
    indptr = jsorting.searchsorted(row, creation.arange(mat.shape[0] + 1, dtype=row.dtype), side="left")
    return [data, col, indptr.astype(index_dtype)]


def _csr_matvec_impl(data, indices, indptr, v, *, shape, transpose):
    return _coo_matvec_impl(data, _csr_rows(indices, indptr), indices, v,
                            spinfo=COOInfo(shape), transpose=transpose)


csr_todense_p = sparse_primitive("csr_todense", _csr_todense_impl, linear_argnums=(0,))
csr_fromdense_p = sparse_primitive("csr_fromdense", _csr_fromdense_impl, multiple_results=True,
                                   linear_argnums=(0,), structure_preserving=False)
csr_matvec_p = sparse_primitive("csr_matvec", _csr_matvec_impl, linear_argnums=(0, 3))
csr_matmat_p = sparse_primitive("csr_matmat", _csr_matvec_impl, linear_argnums=(0, 3))


def _csr_todense(data, indices, indptr, *, shape):
    """The dense matrix of CSR buffers (JAX's private buffer-level form of csr_todense)."""
    return csr_todense_p.bind(creation.asarray(data), creation.asarray(indices),
                              creation.asarray(indptr), shape=tuple(int(d) for d in shape))


def _csr_fromdense(mat, *, nse, index_dtype=np.int32):
    """The CSR buffers (data, indices, indptr) of the nonzeros of `mat`, `nse` of them."""
    return tuple(csr_fromdense_p.bind(creation.asarray(mat), nse=_concrete_nse(nse),
                                      index_dtype=canonical_index_dtype(index_dtype)))


def _csr_matvec(data, indices, indptr, v, *, shape, transpose=False):
    """mat @ v (or mat.T @ v) for CSR buffers and a dense vector."""
    return csr_matvec_p.bind(creation.asarray(data), creation.asarray(indices),
                             creation.asarray(indptr), creation.asarray(v),
                             shape=tuple(int(d) for d in shape), transpose=bool(transpose))


def _csr_matmat(data, indices, indptr, B, *, shape, transpose=False):
    """mat @ B (or mat.T @ B) for CSR buffers and a dense matrix."""
    return csr_matmat_p.bind(creation.asarray(data), creation.asarray(indices),
                             creation.asarray(indptr), creation.asarray(B),
                             shape=tuple(int(d) for d in shape), transpose=bool(transpose))


def csr_todense(mat):
    """The dense array of a CSR matrix."""
    return _csr_todense(mat.data, mat.indices, mat.indptr, shape=mat.shape)


def csr_fromdense(mat, *, nse=None, index_dtype=np.int32):
    """A CSR matrix of the nonzeros of the 2-D `mat`.

        >>> csr_fromdense(jnp.eye(2)).indptr
        Array([0, 1, 2], dtype=int32)
    """
    mat = creation.asarray(mat)
    _check_2d("csr_fromdense", mat.shape)
    nse = _count_nse(mat, 0, 0) if nse is None else nse
    data, indices, indptr = _csr_fromdense(mat, nse=nse, index_dtype=index_dtype)
    return CSR((data, indices, indptr), shape=mat.shape)


def csr_matvec(mat, v, transpose=False):
    """mat @ v (or mat.T @ v) for a CSR matrix and a dense vector."""
    v = creation.asarray(v)
    if v.ndim != 1 or v.shape[0] != mat.shape[0 if transpose else 1]:
        raise ValueError(f"csr_matvec: vector of shape {v.shape} does not fit matrix {mat.shape}")
    return _csr_matvec(mat.data, mat.indices, mat.indptr, v, shape=mat.shape, transpose=transpose)


def csr_matmat(mat, B, *, transpose=False):
    """mat @ B (or mat.T @ B) for a CSR matrix and a dense matrix."""
    B = creation.asarray(B)
    if B.ndim != 2 or B.shape[0] != mat.shape[0 if transpose else 1]:
        raise ValueError(f"csr_matmat: matrix of shape {B.shape} does not fit matrix {mat.shape}")
    return _csr_matmat(mat.data, mat.indices, mat.indptr, B, shape=mat.shape, transpose=transpose)


# -- classes ---------------------------------------------------------------------------------------

def _as_buf(x):
    return x if isinstance(x, core.Tracer) else creation.asarray(x)


def _matmul(self, other, mv, mm, transpose=False):
    other = creation.asarray(other)
    if other.ndim == 1:
        return mv(self, other, transpose=transpose)
    if other.ndim == 2:
        return mm(self, other, transpose=transpose)
    raise NotImplementedError(f"{type(self).__name__} @ array of rank {other.ndim}")


class COO(JAXSparse):
    """Unbatched 2-D coordinate sparse matrix: `COO((data, row, col), shape=shape)`.

        >>> COO.fromdense(jnp.eye(2)) @ jnp.ones(2)
        Array([1., 1.], dtype=float32)
    """

    def __init__(self, args, *, shape, rows_sorted=False, cols_sorted=False):
        self.data, self.row, self.col = map(_as_buf, args)
        self._rows_sorted, self._cols_sorted = rows_sorted, cols_sorted
        super().__init__(args, shape=shape)
        _check_2d("COO", self.shape)

    nse = property(lambda self: self.data.shape[0])
    _info = property(lambda self: COOInfo(self.shape, self._rows_sorted, self._cols_sorted))
    _bufs = property(lambda self: (self.data, self.row, self.col))

    @classmethod
    def fromdense(cls, mat, *, nse=None, index_dtype=np.int32):
        return coo_fromdense(mat, nse=nse, index_dtype=index_dtype)

    @classmethod
    def _empty(cls, shape, *, dtype=None, index_dtype="int32"):
        _check_2d("COO", shape)
        z = creation.zeros(0, index_dtype)
        return cls((creation.zeros(0, dtype), z, z), shape=shape, rows_sorted=True, cols_sorted=True)

    @classmethod
    def _eye(cls, N, M, k, *, dtype=None, index_dtype="int32"):
        m = BCOO._eye(N, M, k, dtype=dtype, index_dtype=index_dtype)
        return cls((m.data, m.indices[:, 0], m.indices[:, 1]), shape=(N, M), rows_sorted=True)

    def _sort_indices(self):
        """The same matrix with entries sorted by (row, col)."""
        row, col, data = lax_sorting.sort((self.row, self.col, self.data), num_keys=2)
        return COO((data, row, col), shape=self.shape, rows_sorted=True)

    def todense(self):
        return coo_todense(self)

    def transpose(self, axes=None):
        if axes is not None and tuple(axes) != (1, 0):
            raise ValueError(f"COO.transpose: axes must be None or (1, 0); got {axes}")
        return COO((self.data, self.col, self.row), shape=self.shape[::-1],
                   rows_sorted=self._cols_sorted, cols_sorted=self._rows_sorted)

    def __matmul__(self, other):
        if isinstance(other, JAXSparse):
            return NotImplemented
        return _matmul(self, other, coo_matvec, coo_matmat)

    def tree_flatten(self):
        return (self.data, self.row, self.col), self._info._asdict()

    @classmethod
    def tree_unflatten(cls, aux, children):
        obj = object.__new__(cls)
        obj.data, obj.row, obj.col = children
        obj.shape = aux["shape"]
        obj._rows_sorted, obj._cols_sorted = aux["rows_sorted"], aux["cols_sorted"]
        return obj


class CSR(JAXSparse):
    """Unbatched 2-D compressed sparse row matrix: `CSR((data, indices, indptr), shape=shape)`.

        >>> CSR.fromdense(jnp.eye(2)) @ jnp.ones(2)
        Array([1., 1.], dtype=float32)
    """

    def __init__(self, args, *, shape):
        self.data, self.indices, self.indptr = map(_as_buf, args)
        super().__init__(args, shape=shape)
        _check_2d("CSR", self.shape)

    nse = property(lambda self: self.data.shape[0])
    _bufs = property(lambda self: (self.data, self.indices, self.indptr))

    @classmethod
    def fromdense(cls, mat, *, nse=None, index_dtype=np.int32):
        return csr_fromdense(mat, nse=nse, index_dtype=index_dtype)

    @classmethod
    def _empty(cls, shape, *, dtype=None, index_dtype="int32"):
        _check_2d("CSR", shape)
        return cls((creation.zeros(0, dtype), creation.zeros(0, index_dtype),
                    creation.zeros(shape[0] + 1, index_dtype)), shape=shape)

    @classmethod
    def _eye(cls, N, M, k, *, dtype=None, index_dtype="int32"):
        return csr_fromdense(creation.eye(N, M, k, dtype=dtype), nse=None, index_dtype=index_dtype)

    def todense(self):
        return csr_todense(self)

    def transpose(self, axes=None):
        if axes is not None and tuple(axes) != (1, 0):
            raise ValueError(f"CSR.transpose: axes must be None or (1, 0); got {axes}")
        return CSC((self.data, self.indices, self.indptr), shape=self.shape[::-1])

    def __matmul__(self, other):
        if isinstance(other, JAXSparse):
            return NotImplemented
        return _matmul(self, other, csr_matvec, csr_matmat)

    def tree_flatten(self):
        return (self.data, self.indices, self.indptr), {"shape": self.shape}

    @classmethod
    def tree_unflatten(cls, aux, children):
        obj = object.__new__(cls)
        obj.data, obj.indices, obj.indptr = children
        obj.shape = aux["shape"]
        return obj


class CSC(JAXSparse):
    """Unbatched 2-D compressed sparse column matrix (the transpose of a CSR's buffers)."""

    def __init__(self, args, *, shape):
        self.data, self.indices, self.indptr = map(_as_buf, args)
        super().__init__(args, shape=shape)
        _check_2d("CSC", self.shape)

    nse = property(lambda self: self.data.shape[0])
    _bufs = property(lambda self: (self.data, self.indices, self.indptr))

    @classmethod
    def fromdense(cls, mat, *, nse=None, index_dtype=np.int32):
        return CSR.fromdense(creation.asarray(mat).T, nse=nse, index_dtype=index_dtype).T

    @classmethod
    def _empty(cls, shape, *, dtype=None, index_dtype="int32"):
        return CSR._empty(tuple(shape)[::-1], dtype=dtype, index_dtype=index_dtype).T

    @classmethod
    def _eye(cls, N, M, k, *, dtype=None, index_dtype="int32"):
        return CSR._eye(M, N, -k, dtype=dtype, index_dtype=index_dtype).T

    def todense(self):
        return self.T.todense().T

    def transpose(self, axes=None):
        if axes is not None and tuple(axes) != (1, 0):
            raise ValueError(f"CSC.transpose: axes must be None or (1, 0); got {axes}")
        return CSR((self.data, self.indices, self.indptr), shape=self.shape[::-1])

    def __matmul__(self, other):
        if isinstance(other, JAXSparse):
            return NotImplemented
        csr = self.T
        mv = lambda m, v, transpose: csr_matvec(m, v, transpose=not transpose)      # noqa: E731
        mm = lambda m, b, transpose: csr_matmat(m, b, transpose=not transpose)      # noqa: E731
        return _matmul(csr, other, mv, mm)

    def tree_flatten(self):
        return (self.data, self.indices, self.indptr), {"shape": self.shape}

    @classmethod
    def tree_unflatten(cls, aux, children):
        obj = object.__new__(cls)
        obj.data, obj.indices, obj.indptr = children
        obj.shape = aux["shape"]
        return obj


for _cls in (COO, CSR, CSC):
    tree_util.register_pytree_node(_cls, _cls.tree_flatten, _cls.tree_unflatten)
