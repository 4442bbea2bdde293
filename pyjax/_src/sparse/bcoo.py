"""BCOO, the batched coordinate format, and its primitives: conversion (fromdense, todense,
extract), index maintenance (sort_indices, sum_duplicates, update_layout) and transpose.

A BCOO array of shape `batch + sparse + dense` stores `data` of shape
`batch + (nse,) + dense` and `indices` of shape `batch + (nse, n_sparse)`; entry k of batch b
is `data[b, k]` placed at sparse position `indices[b, k]`. Padding entries carry an out-of-range
index (the sparse shape itself, as JAX's fromdense writes) and are dropped by todense. Batch
dimensions of size 1 in `data` or `indices` broadcast.

Each routine is written for one unbatched array and mapped over the batch dimensions by vmap.
The operations on BCOO (dot_general, slicing, reshape, ...) are in bcoo_ops.py.
"""
from __future__ import annotations

import math
import operator
import warnings
from functools import partial
from typing import NamedTuple

import numpy as np

from pyjax._src import core, tree_util
from pyjax._src.interpreters import batching
from pyjax._src.lax import sorting as lax_sorting
from pyjax._src.numpy import array_methods  # noqa: F401  (Array operators)
from pyjax._src.numpy import creation, lax_numpy, reductions, ufuncs
from pyjax._src.numpy import shape as jshape
from pyjax._src.numpy import util as jnp_util
from pyjax._src.sparse._base import JAXSparse, sparse_from_elt, sparse_to_elt
from pyjax._src.sparse.util import (SparseEfficiencyError, SparseEfficiencyWarning,
                                    broadcast_batch, canonical_index_dtype, def_leading_batch,
                                    nfold_vmap, sparse_primitive)


class SparseInfo(NamedTuple):
    shape: tuple
    indices_sorted: bool = False
    unique_indices: bool = False


class BCOOProperties(NamedTuple):
    n_batch: int
    n_sparse: int
    n_dense: int
    nse: int


def _validate_bcoo(data, indices, shape) -> BCOOProperties:
    """The layout of (data, indices) for `shape`, or a ValueError naming the mismatch."""
    shape = tuple(shape)
    if len(indices.shape) < 2:
        raise ValueError(f"BCOO: indices must have at least 2 dimensions, got {tuple(indices.shape)}")
    n_batch, n_sparse, nse = len(indices.shape) - 2, indices.shape[-1], indices.shape[-2]
    n_dense = len(shape) - n_batch - n_sparse
    if n_dense < 0:
        raise ValueError(f"BCOO: indices of shape {tuple(indices.shape)} do not fit shape {shape}")

    def compatible(a, b):
        return all(x == y or x == 1 for x, y in zip(a, b))
    if not compatible(indices.shape[:n_batch], shape[:n_batch]):
        raise ValueError(f"BCOO: indices batch dimensions {tuple(indices.shape[:n_batch])} are "
                         f"not compatible with shape {shape}")
    expected = shape[:n_batch] + (nse,) + shape[n_batch + n_sparse:]
    if len(data.shape) != len(expected) or data.shape[n_batch:] != expected[n_batch:] or \
            not compatible(data.shape[:n_batch], shape[:n_batch]):
        raise ValueError(f"BCOO: data of shape {tuple(data.shape)} does not fit indices "
                         f"{tuple(indices.shape)} and shape {shape} (expected {expected})")
    return BCOOProperties(n_batch, n_sparse, n_dense, nse)


def _batched(fn, n_batch, batch_shape, *arrays):
    """fn applied to each batch element of the arrays (leading n_batch dims broadcast to
    batch_shape)."""
    arrays, _ = broadcast_batch(arrays, n_batch, tuple(batch_shape))
    return nfold_vmap(fn, n_batch)(*arrays)


def _padding_mask(indices, sparse_shape):
    """True for the entries whose index lies inside sparse_shape (the real entries)."""
    bound = jnp_util.broadcast_to(creation.array(sparse_shape, indices.dtype), indices.shape)
    return reductions.all((indices >= 0) & (indices < bound), axis=-1)


# -- bcoo_todense ---------------------------------------------------------------------------------

def _todense_unbatched(data, indices, *, sparse_shape):
    if indices.shape[-1] == 0:
        return data.sum(0)
    out = creation.zeros(tuple(sparse_shape) + data.shape[1:], data.dtype)
    cols = tuple(indices[:, i] for i in range(indices.shape[-1]))
    return out.at[cols].add(data, mode="drop")


def _todense_impl(data, indices, *, spinfo):
    shape = spinfo.shape
    n_batch, n_sparse = indices.ndim - 2, indices.shape[-1]
    f = partial(_todense_unbatched, sparse_shape=shape[n_batch:n_batch + n_sparse])
    return _batched(f, n_batch, shape[:n_batch], data, indices)


bcoo_todense_p = sparse_primitive("bcoo_todense", _todense_impl, linear_argnums=(0,))


def _grow_spinfo(size, dims, *, spinfo, **params):
    return dict(params, spinfo=spinfo._replace(shape=(size,) + tuple(spinfo.shape)))


def_leading_batch(bcoo_todense_p, (0, 1), update_params=_grow_spinfo)


def bcoo_todense(mat):
    """The dense array of a BCOO matrix.

        >>> bcoo_todense(BCOO.fromdense(x))    # == x
    """
    return _bcoo_todense(mat.data, mat.indices, spinfo=mat._info)


def _bcoo_todense(data, indices, *, spinfo):
    _validate_bcoo(data, indices, spinfo.shape)
    return bcoo_todense_p.bind(creation.asarray(data), creation.asarray(indices), spinfo=_hashable(spinfo))


def _hashable(spinfo):
    return SparseInfo(tuple(int(d) for d in spinfo.shape), bool(spinfo.indices_sorted),
                      bool(spinfo.unique_indices))


# -- bcoo_fromdense -------------------------------------------------------------------------------

def _fromdense_unbatched(mat, *, nse, n_dense, index_dtype):
    n_sparse = mat.ndim - n_dense
    if n_sparse == 0:
        data = jnp_util.broadcast_to(mat[None], (nse,) + mat.shape)
        return lax_numpy.where(creation.arange(nse).reshape((nse,) + (1,) * n_dense) == 0, data, 0), \
            creation.zeros((nse, 0), index_dtype)
    mask = mat != 0
    if n_dense:
        mask = mask.any(axis=tuple(range(n_sparse, mat.ndim)))
    nz = lax_numpy.nonzero(mask, size=nse, fill_value=0)
    valid = creation.arange(nse) < mask.sum()
    indices = jshape.stack(nz, axis=1).astype(index_dtype)
    indices = lax_numpy.where(valid[:, None], indices, creation.array(mat.shape[:n_sparse], index_dtype))
    data = mat[nz]
    data = lax_numpy.where(valid.reshape((nse,) + (1,) * n_dense), data, creation.zeros((), mat.dtype))
    return data, indices


def _fromdense_impl(mat, *, nse, n_batch, n_dense, index_dtype):
    f = partial(_fromdense_unbatched, nse=nse, n_dense=n_dense, index_dtype=index_dtype)
    return list(nfold_vmap(f, n_batch)(mat))


bcoo_fromdense_p = sparse_primitive("bcoo_fromdense", _fromdense_impl, multiple_results=True,
                                    linear_argnums=(0,), structure_preserving=False)
def_leading_batch(bcoo_fromdense_p, (), (0,),
                  update_params=lambda size, dims, *, n_batch, **p: dict(p, n_batch=n_batch + 1))

_TRACED_NSE_ERROR = ("The error arose for the nse argument of bcoo_fromdense. In order for "
                     "BCOO.fromdense() to be used in traced/compiled code, you must pass a "
                     "concrete value to the nse (number of stored elements) argument.")


def _count_nse(mat, n_batch, n_dense):
    """The largest number of nonzero sparse positions in one batch element (concrete mat)."""
    m = np.asarray(core.concrete_or_error(mat, _TRACED_NSE_ERROR)) != 0
    if n_dense:
        m = m.any(axis=tuple(range(m.ndim - n_dense, m.ndim)))
    m = m.reshape((math.prod(m.shape[:n_batch]), -1))
    return int(m.sum(axis=1).max(initial=0))


def bcoo_fromdense(mat, *, nse=None, n_batch=0, n_dense=0, index_dtype=np.int32):
    """A BCOO matrix holding the nonzeros of `mat` (`nse` defaults to the largest count of
    nonzeros in one batch element, which needs a concrete `mat`).

        >>> bcoo_fromdense(jnp.array([[0., 1.], [2., 0.]])).nse
        2
    """
    mat = creation.asarray(mat)
    n_batch, n_dense = operator.index(n_batch), operator.index(n_dense)
    if n_batch < 0 or n_dense < 0 or n_batch + n_dense > mat.ndim:
        raise ValueError(f"bcoo_fromdense: n_batch={n_batch} and n_dense={n_dense} must be "
                         f"non-negative and add up to at most the rank of the array "
                         f"{mat.dtype}{list(mat.shape)}")
    if nse is None:
        nse = _count_nse(mat, n_batch, n_dense)
    data, indices = _bcoo_fromdense(mat, nse=nse, n_batch=n_batch, n_dense=n_dense,
                                    index_dtype=index_dtype)
    return BCOO((data, indices), shape=mat.shape, indices_sorted=True, unique_indices=True)


def _bcoo_fromdense(mat, *, nse, n_batch=0, n_dense=0, index_dtype=np.int32):
    """The BCOO buffers (data, indices) of `mat` with `nse` stored elements per batch element
    (JAX's private buffer-level bcoo_fromdense)."""
    nse = operator.index(core.concrete_or_error(nse, _TRACED_NSE_ERROR))
    return tuple(bcoo_fromdense_p.bind(creation.asarray(mat), nse=nse, n_batch=operator.index(n_batch),
                                       n_dense=operator.index(n_dense),
                                       index_dtype=canonical_index_dtype(index_dtype)))


# -- bcoo_extract ---------------------------------------------------------------------------------

def _extract_unbatched(indices, mat):
    if indices.shape[-1] == 0:
        return jnp_util.broadcast_to(mat[None], (indices.shape[0],) + mat.shape)
    cols = tuple(indices[:, i] for i in range(indices.shape[-1]))
    return mat.at[cols].get(mode="fill", fill_value=0)


def _first_occurrence(indices):
    """True for each entry of an (nse, n_sparse) index buffer whose index appears at no earlier
    position (a stable sort puts the first occurrence of each index first)."""
    nse, n_sparse = indices.shape
    if n_sparse == 0:
        return creation.arange(nse) == 0
    keys = tuple(indices[:, i] for i in range(n_sparse))
    *sorted_keys, perm = lax_sorting.sort(keys + (creation.arange(nse),), num_keys=n_sparse)
    same = reductions.all(jshape.stack([k[1:] == k[:-1] for k in sorted_keys], axis=1), axis=1)
    first_sorted = jshape.concatenate([creation.ones(min(nse, 1), bool), ~same])
    return creation.zeros(nse, bool).at[perm].set(first_sorted)


def _extract_unique_unbatched(indices, mat):
    data = _extract_unbatched(indices, mat)
    first = _first_occurrence(indices)
    return lax_numpy.where(first.reshape(first.shape + (1,) * (data.ndim - 1)), data,
                           creation.zeros((), data.dtype))


def _extract_impl(indices, mat, *, assume_unique):
    n_batch = indices.ndim - 2
    # NB: without assume_unique, a repeated index takes the value at its first occurrence only
    # (the others get 0), so that todense of the result gives back mat (JAX's semantics)
    f = _extract_unbatched if assume_unique else _extract_unique_unbatched
    return _batched(f, n_batch, mat.shape[:n_batch], indices, mat)


bcoo_extract_p = sparse_primitive("bcoo_extract", _extract_impl, linear_argnums=(1,))
def_leading_batch(bcoo_extract_p, (0,), (1,), update_params=lambda size, dims, **p: p)


def bcoo_extract(sparr, arr, *, assume_unique=None):
    """A BCOO matrix with `sparr`'s indices and `arr`'s values at them (the transpose of
    todense with respect to data).

        >>> bcoo_extract(BCOO.fromdense(x), 2 * x).todense()   # == 2 * x
    """
    if not isinstance(sparr, BCOO):
        raise TypeError(f"bcoo_extract: first argument must be a BCOO array, got {type(sparr)}")
    arr = creation.asarray(arr)
    if arr.shape != sparr.shape:
        raise ValueError(f"shape mismatch: sparr.shape={sparr.shape} a.shape={arr.shape}")
    if assume_unique is None:
        assume_unique = sparr.unique_indices
    data = _bcoo_extract(sparr.indices, arr, assume_unique=assume_unique)
    return BCOO((data, sparr.indices), **sparr._info._asdict())


def _bcoo_extract(indices, arr, *, assume_unique=True):
    """The BCOO data of dense `arr` at `indices` (JAX's private buffer-level bcoo_extract)."""
    return bcoo_extract_p.bind(creation.asarray(indices), creation.asarray(arr),
                               assume_unique=bool(assume_unique))


# -- bcoo_sort_indices ----------------------------------------------------------------------------

def _sort_unbatched(data, indices):
    n_sparse = indices.shape[-1]
    if n_sparse == 0:
        return data, indices
    keys = tuple(indices[:, i] for i in range(n_sparse))
    *_, perm = lax_sorting.sort(keys + (creation.arange(indices.shape[0]),), num_keys=n_sparse)
    return data[perm], indices[perm]


def _sort_indices_impl(data, indices, *, spinfo):
    n_batch = indices.ndim - 2
    return list(_batched(_sort_unbatched, n_batch, spinfo.shape[:n_batch], data, indices))


bcoo_sort_indices_p = sparse_primitive("bcoo_sort_indices", _sort_indices_impl,
                                       multiple_results=True, linear_argnums=(0,))
def_leading_batch(bcoo_sort_indices_p, (0, 1), update_params=_grow_spinfo)


def bcoo_sort_indices(mat):
    """`mat` with its entries in lexicographic order of their indices (per batch element).

        >>> bcoo_sort_indices(m).indices_sorted
        True
    """
    data, indices = bcoo_sort_indices_p.bind(mat.data, mat.indices, spinfo=_hashable(mat._info))
    return BCOO((data, indices), shape=mat.shape, indices_sorted=True,
                unique_indices=mat.unique_indices)


# -- bcoo_sum_duplicates --------------------------------------------------------------------------

def _sum_duplicates_unbatched(data, indices, *, sparse_shape, nse):
    """Sort by index (padding last), number the distinct indices, and add the data of each into
    slot k of an nse-long result; unused slots are padding with zero data."""
    n_sparse = indices.shape[-1]
    fill = creation.array(sparse_shape, indices.dtype)
    valid = _padding_mask(indices, sparse_shape)
    indices = lax_numpy.where(valid[:, None], indices, fill)
    if n_sparse == 0:
        return data.sum(0, keepdims=True)[:nse] if nse else data[:0], indices[:nse]
    if indices.shape[0] == 0 or nse == 0:  # no entries or no slots: nse padding slots
        return (creation.zeros((nse,) + data.shape[1:], data.dtype),
                jnp_util.broadcast_to(fill, (nse, n_sparse)))
    keys = tuple(indices[:, i] for i in range(n_sparse))
    *sorted_keys, perm = lax_sorting.sort(keys + (creation.arange(indices.shape[0]),), num_keys=n_sparse)
    sorted_idx = jshape.stack(sorted_keys, axis=1)
    new = jshape.concatenate([creation.ones(1, bool),
                              reductions.any(sorted_idx[1:] != sorted_idx[:-1], axis=1)])
    seg = reductions.cumsum(new) - 1
    seg = lax_numpy.where(valid[perm], seg, nse)                       # padding: dropped
    out_idx = jnp_util.broadcast_to(fill, (nse, n_sparse)).at[seg].set(sorted_idx, mode="drop")
    out_data = creation.zeros((nse,) + data.shape[1:], data.dtype).at[seg].add(data[perm], mode="drop")
    return out_data, out_idx


def _sum_duplicates_impl(data, indices, *, spinfo, nse):
    shape = spinfo.shape
    n_batch, n_sparse = indices.ndim - 2, indices.shape[-1]
    f = partial(_sum_duplicates_unbatched, sparse_shape=shape[n_batch:n_batch + n_sparse], nse=nse)
    return list(_batched(f, n_batch, shape[:n_batch], data, indices))


bcoo_sum_duplicates_p = sparse_primitive("bcoo_sum_duplicates", _sum_duplicates_impl,
                                         multiple_results=True, linear_argnums=(0,))
def_leading_batch(bcoo_sum_duplicates_p, (0, 1), update_params=_grow_spinfo)


def _count_unique(indices, shape, n_batch):
    idx = np.asarray(indices)
    n_sparse = idx.shape[-1]
    if n_sparse == 0:
        return min(1, idx.shape[-2])
    sparse_shape = np.array(shape[n_batch:n_batch + n_sparse])
    idx = idx.reshape((-1,) + idx.shape[n_batch:])
    count = 0
    for b in idx:
        ok = np.all((b >= 0) & (b < sparse_shape), axis=-1)
        count = max(count, len(np.unique(b[ok], axis=0)) if n_sparse else int(ok.any()))
    return count


def bcoo_sum_duplicates(mat, nse=None):
    """`mat` with repeated indices merged (their data added), sorted, padding last. `nse`
    defaults to the number of distinct indices, which needs concrete indices.

        >>> bcoo_sum_duplicates(BCOO((data, indices), shape=(3, 4))).unique_indices
        True
    """
    if nse is None:
        if not core.is_concrete(mat.indices):
            raise ValueError("bcoo_sum_duplicates: nse must be specified when using the "
                             "function within jit, vmap, and other transformations requiring "
                             "abstract evaluation.")
        nse = _count_unique(core.to_concrete_value(mat.indices), mat.shape, mat.n_batch)
    data, indices = bcoo_sum_duplicates_p.bind(mat.data, mat.indices, spinfo=_hashable(mat._info),
                                               nse=int(nse))
    return BCOO((data, indices), shape=mat.shape, indices_sorted=True, unique_indices=True)


# -- bcoo_transpose -------------------------------------------------------------------------------

def _check_permutation(permutation, n_batch, n_sparse, ndim):
    if tuple(sorted(permutation)) != tuple(range(ndim)):
        raise ValueError(f"bcoo_transpose: {permutation} is not a permutation of {ndim} axes")
    batch, sparse, dense = (permutation[:n_batch], permutation[n_batch:n_batch + n_sparse],
                            permutation[n_batch + n_sparse:])
    if tuple(sorted(batch)) != tuple(range(n_batch)):
        raise NotImplementedError(f"transpose permutation cannot permute batch axes with "
                                  f"non-batch axes; got permutation {tuple(permutation)}, with "
                                  f"n_batch={n_batch}.")
    if tuple(sorted(dense)) != tuple(range(n_batch + n_sparse, ndim)):
        raise NotImplementedError(f"transpose permutation cannot permute dense axes with "
                                  f"non-dense axes; got permutation {tuple(permutation)}, with "
                                  f"n_dense={ndim - n_batch - n_sparse}.")
    return batch, tuple(p - n_batch for p in sparse), tuple(p - n_batch - n_sparse for p in dense)


def _transpose_impl(data, indices, *, permutation, spinfo):
    n_batch, n_sparse = indices.ndim - 2, indices.shape[-1]
    batch, sparse, dense = _check_permutation(permutation, n_batch, n_sparse, len(spinfo.shape))
    data = jshape.transpose(data, batch + (n_batch,) + tuple(d + n_batch + 1 for d in dense))
    indices = jshape.transpose(indices, batch + (n_batch, n_batch + 1))
    indices = indices[..., np.array(sparse, dtype=np.int32)] if n_sparse else indices
    return [data, indices]


bcoo_transpose_p = sparse_primitive("bcoo_transpose", _transpose_impl, multiple_results=True,
                                    linear_argnums=(0,))
def_leading_batch(bcoo_transpose_p, (0, 1), update_params=lambda size, dims, *, permutation, spinfo: dict(
    permutation=(0,) + tuple(p + 1 for p in permutation),
    spinfo=spinfo._replace(shape=(size,) + tuple(spinfo.shape))))


def bcoo_transpose(mat, *, permutation):
    """`mat` with its axes permuted; batch, sparse and dense axes each stay among themselves.

        >>> bcoo_transpose(m, permutation=(1, 0)).todense()   # == m.todense().T
    """
    permutation = tuple(operator.index(p) for p in permutation)
    _check_permutation(permutation, mat.n_batch, mat.n_sparse, mat.ndim)
    data, indices = bcoo_transpose_p.bind(mat.data, mat.indices, permutation=permutation,
                                          spinfo=_hashable(mat._info))
    return BCOO((data, indices), shape=tuple(mat.shape[p] for p in permutation))


# -- bcoo_update_layout ---------------------------------------------------------------------------

def _inefficient(what, mat, old, new, on_inefficient):
    msg = (f"For matrix of shape {mat.shape}, increasing {what} from {old} to {new} results in "
           f"inefficient storage. To disable this error, set the on_inefficient argument of "
           f"bcoo_update_layout to 'warn' or None.")
    if on_inefficient == "error":
        raise SparseEfficiencyError(msg)
    if on_inefficient == "warn":
        warnings.warn(msg, SparseEfficiencyWarning, stacklevel=3)


def _batch_to_sparse(mat):
    """The last batch dimension becomes the first sparse dimension (nse grows by its size)."""
    n_batch = mat.n_batch
    (data, indices), batch = broadcast_batch([mat.data, mat.indices], n_batch, mat.shape[:n_batch])
    size, nse = batch[-1], mat.nse
    coord = jnp_util.broadcast_to(creation.arange(size, dtype=indices.dtype).reshape(size, 1, 1),
                                  batch + (nse, 1))
    # padding entries stay padding in every column
    valid = _padding_mask(indices, mat.shape[n_batch:n_batch + mat.n_sparse])[..., None]
    coord = lax_numpy.where(valid, coord, size)
    indices = jshape.concatenate([coord, indices], axis=-1)
    indices = indices.reshape(batch[:-1] + (size * nse, mat.n_sparse + 1))
    data = data.reshape(batch[:-1] + (size * nse,) + data.shape[n_batch + 1:])
    return BCOO((data, indices), shape=mat.shape)


def _dense_to_sparse(mat):
    """The first dense dimension becomes the last sparse dimension."""
    nb, ns, nse = mat.n_batch, mat.n_sparse, mat.nse
    (data, indices), batch = broadcast_batch([mat.data, mat.indices], nb, mat.shape[:nb])
    size = data.shape[nb + 1]
    valid = _padding_mask(indices, mat.shape[nb:nb + ns])[..., None, None]
    idx = jnp_util.broadcast_to(indices[..., None, :], batch + (nse, size, ns))
    coord = jnp_util.broadcast_to(creation.arange(size, dtype=indices.dtype)[:, None],
                                  batch + (nse, size, 1))
    idx = lax_numpy.where(valid, jshape.concatenate([idx, coord], axis=-1),
                          creation.array(mat.shape[nb:nb + ns + 1], indices.dtype))
    idx = idx.reshape(batch + (nse * size, ns + 1))
    data = data.reshape(batch + (nse * size,) + data.shape[nb + 2:])
    return BCOO((data, idx), shape=mat.shape)


def _sparse_to_dense(mat):
    """The last sparse dimension becomes the first dense dimension."""
    nb, ns = mat.n_batch, mat.n_sparse
    size = mat.shape[nb + ns - 1]

    def one(data, indices):
        col = indices[:, -1]
        valid = _padding_mask(indices, mat.shape[nb:nb + ns])
        rows = creation.arange(indices.shape[0])
        out = creation.zeros((indices.shape[0], size) + data.shape[1:], data.dtype)
        out = out.at[rows, lax_numpy.where(valid, col, size)].set(data, mode="drop")
        rest = lax_numpy.where(valid[:, None], indices[:, :-1],
                               creation.array(mat.shape[nb:nb + ns - 1], indices.dtype))
        return out, rest
    data, indices = _batched(one, nb, mat.shape[:nb], mat.data, mat.indices)
    return BCOO((data, indices), shape=mat.shape)


def _sparse_to_batch(mat):
    """The first sparse dimension becomes the last batch dimension (each batch slot keeps all
    nse entries, those of other slots turned into padding)."""
    nb, ns = mat.n_batch, mat.n_sparse
    size = mat.shape[nb]

    def one(data, indices):
        slots = creation.arange(size, dtype=indices.dtype)[:, None]
        keep = (indices[None, :, 0] == slots) & _padding_mask(indices, mat.shape[nb:nb + ns])[None]
        rest = lax_numpy.where(keep[..., None], indices[None, :, 1:],
                               creation.array(mat.shape[nb + 1:nb + ns], indices.dtype))
        d = lax_numpy.where(keep.reshape(keep.shape + (1,) * (data.ndim - 1)), data[None], 0)
        return d, rest
    data, indices = _batched(one, nb, mat.shape[:nb], mat.data, mat.indices)
    return BCOO((data, indices), shape=mat.shape)


def bcoo_update_layout(mat, *, n_batch=None, n_dense=None, on_inefficient="error"):
    """`mat` stored with `n_batch` batch and `n_dense` dense dimensions. Raising either makes
    the storage grow with the number of batch/dense slots: a SparseEfficiencyError by default
    (`on_inefficient="warn"` warns, None allows it).

        >>> bcoo_update_layout(BCOO.fromdense(x, n_batch=1), n_batch=0).n_batch
        0
    """
    n_batch = mat.n_batch if n_batch is None else operator.index(n_batch)
    n_dense = mat.n_dense if n_dense is None else operator.index(n_dense)
    if on_inefficient not in ("error", "warn", None):
        raise ValueError(f"on_inefficient={on_inefficient!r}; expected 'error', 'warn' or None")
    if n_batch < 0 or n_dense < 0 or n_batch + n_dense > mat.ndim:
        raise ValueError(f"bcoo_update_layout: n_batch={n_batch} and n_dense={n_dense} must be "
                         f"non-negative and add up to at most {mat.ndim}")
    if n_batch > mat.n_batch and mat.n_sparse:
        _inefficient("n_batch", mat, mat.n_batch, n_batch, on_inefficient)
    if n_dense > mat.n_dense and mat.n_sparse:
        _inefficient("n_dense", mat, mat.n_dense, n_dense, on_inefficient)
    while mat.n_batch > n_batch:
        mat = _batch_to_sparse(mat)
    while mat.n_dense > n_dense:
        mat = _dense_to_sparse(mat)
    while mat.n_dense < n_dense:
        mat = _sparse_to_dense(mat)
    while mat.n_batch < n_batch:
        mat = _sparse_to_batch(mat)
    return mat


# -- the BCOO class -------------------------------------------------------------------------------

class BCOO(JAXSparse):
    """Batched coordinate sparse array: `BCOO((data, indices), shape=shape)`.

        >>> m = BCOO.fromdense(jnp.array([[0., 1.], [2., 0.]]))
        >>> m @ jnp.ones(2)
        Array([1., 2.], dtype=float32)
    """

    def __init__(self, args, *, shape, indices_sorted=False, unique_indices=False):
        data, indices = args
        self.data = creation.asarray(data) if not isinstance(data, core.Tracer) else data
        self.indices = creation.asarray(indices) if not isinstance(indices, core.Tracer) else indices
        self.indices_sorted = indices_sorted
        self.unique_indices = unique_indices
        super().__init__(args, shape=tuple(shape))
        _validate_bcoo(self.data, self.indices, self.shape)

    n_batch = property(lambda self: self.indices.ndim - 2)
    n_sparse = property(lambda self: self.indices.shape[-1])
    n_dense = property(lambda self: self.data.ndim - 1 - self.n_batch)
    nse = property(lambda self: self.indices.shape[-2])
    _info = property(lambda self: SparseInfo(self.shape, self.indices_sorted, self.unique_indices))
    _bufs = property(lambda self: (self.data, self.indices))

    @classmethod
    def fromdense(cls, mat, *, nse=None, index_dtype=np.int32, n_dense=0, n_batch=0):
        """BCOO of a dense array (see `bcoo_fromdense`)."""
        return bcoo_fromdense(mat, nse=nse, index_dtype=index_dtype, n_dense=n_dense,
                              n_batch=n_batch)

    @classmethod
    def from_scipy_sparse(cls, mat, *, index_dtype=None, n_dense=0, n_batch=0):
        """BCOO of a scipy.sparse matrix (duplicates kept as they are)."""
        if n_dense or n_batch:
            raise NotImplementedError("BCOO.from_scipy_sparse: n_dense and n_batch must be 0")
        mat = mat.tocoo()
        index_dtype = canonical_index_dtype(index_dtype)
        indices = np.column_stack([mat.row, mat.col]).astype(index_dtype)
        return cls((np.asarray(mat.data), indices), shape=mat.shape)

    @classmethod
    def _empty(cls, shape, *, dtype=None, index_dtype="int32", n_dense=0, n_batch=0, nse=0):
        shape = tuple(shape)
        n_sparse = len(shape) - n_dense - n_batch
        if n_sparse < 0:
            raise ValueError(f"BCOO: n_batch={n_batch} and n_dense={n_dense} exceed the rank of "
                             f"{shape}")
        batch, sparse, dense = shape[:n_batch], shape[n_batch:n_batch + n_sparse], shape[n_batch + n_sparse:]
        data = creation.zeros(batch + (nse,) + dense, dtype)
        indices = jnp_util.broadcast_to(creation.array(sparse, index_dtype), batch + (nse, n_sparse))
        return cls((data, indices), shape=shape, indices_sorted=True, unique_indices=True)

    @classmethod
    def _eye(cls, N, M, k, *, dtype=None, index_dtype="int32", n_batch=0, n_dense=0):
        """As JAX's: the diagonal's entries (one per row when n_batch is 1, the rows off the
        matrix holding zeros), or every entry (fromdense) with dense or two batch dims."""
        if 2 - n_batch - n_dense < 0 or n_dense < 0 or n_batch < 0:
            raise ValueError(f"Invalid inputs: shape={(N, M)}, n_dense={n_dense}, "
                             f"n_batch={n_batch}")
        diag_size = min(N, M - k) if k > 0 else min(N + k, M)
        if diag_size <= 0:
            return cls._empty((N, M), dtype=dtype, index_dtype=index_dtype, n_batch=n_batch,
                              n_dense=n_dense)
        if n_dense > 0 or n_batch > 1:
            return cls.fromdense(creation.eye(N, M, k, dtype=dtype), n_batch=n_batch,
                                 n_dense=n_dense, index_dtype=index_dtype)
        if n_batch == 1:  # row i holds column i + k (a zero where that is off the matrix)
            data = creation.ones(N, dtype=dtype)
            cols = creation.arange(N, dtype=index_dtype) + k
            if k < 0:
                data, cols = data.at[:-k].set(0), cols.at[:-k].set(M)
            elif k > 0:  # (NB: as JAX 0.10.2, only the first row past the edge gets column M)
                data, cols = data.at[M - k:].set(0), cols.at[M - k].set(M)
            return cls((data[:, None], cols[:, None, None]), shape=(N, M), indices_sorted=True,
                       unique_indices=True)
        data = creation.ones(diag_size, dtype=dtype)
        idx = creation.arange(diag_size, dtype=index_dtype)
        zero = creation.zeros((), index_dtype)
        k = creation.asarray(k, index_dtype)
        indices = jshape.stack([idx - ufuncs.minimum(k, zero), idx + ufuncs.maximum(k, zero)], axis=1)
        return cls((data, indices), shape=(N, M), indices_sorted=True, unique_indices=True)

    def todense(self):
        """The dense array (see `bcoo_todense`)."""
        return bcoo_todense(self)

    def sum_duplicates(self, nse=None, remove_zeros=True):
        """Merge repeated indices (see `bcoo_sum_duplicates`)."""
        del remove_zeros   # NB: as in JAX 0.10.2's CPU path, explicit zeros are kept
        return bcoo_sum_duplicates(self, nse=nse)

    def sort_indices(self):
        """Entries in index order (see `bcoo_sort_indices`)."""
        return bcoo_sort_indices(self)

    def update_layout(self, *, n_batch=None, n_dense=None, on_inefficient="error"):
        """Change the number of batch/dense dimensions (see `bcoo_update_layout`)."""
        return bcoo_update_layout(self, n_batch=n_batch, n_dense=n_dense,
                                  on_inefficient=on_inefficient)

    def transpose(self, axes=None):
        """Permute the axes (reversed by default)."""
        axes = tuple(range(self.ndim))[::-1] if axes is None else axes
        return bcoo_transpose(self, permutation=axes)

    def astype(self, *args, **kwargs):
        return BCOO((self.data.astype(*args, **kwargs), self.indices), **self._info._asdict())

    def tree_flatten(self):
        return (self.data, self.indices), self._info._asdict()

    @classmethod
    def tree_unflatten(cls, aux, children):
        obj = object.__new__(cls)
        obj.data, obj.indices = children
        obj.__dict__.update(aux)
        _fix_mapped_shape(obj)
        return obj


def _fix_mapped_shape(obj):
    """Under vmap, BCOO leaves lose (or, on the way out, gain) a leading batch dimension; the
    static shape follows (JAX registers BCOO as a vmappable type for the same effect)."""
    data, indices = obj.data, obj.indices
    if data is None or indices is None or not hasattr(indices, "ndim") or \
            type(indices) is object or not hasattr(data, "ndim"):
        return
    n_batch_stored = len(obj.shape) - indices.shape[-1] - (data.ndim - indices.ndim + 1)
    n_batch_now = indices.ndim - 2
    if n_batch_now < 0:
        raise ValueError("Cannot map in_axis=0 for BCOO array with n_batch=0. in_axes for "
                         "batched BCOO operations must correspond to a batch dimension.")
    if n_batch_now == n_batch_stored - 1:
        obj.shape = obj.shape[1:]
    elif n_batch_now == n_batch_stored + 1:
        obj.shape = (max(data.shape[0], indices.shape[0]),) + tuple(obj.shape)


tree_util.register_pytree_node(BCOO, BCOO.tree_flatten, BCOO.tree_unflatten)


batching.register_vmappable(BCOO, int, int, sparse_to_elt, sparse_from_elt, None)
