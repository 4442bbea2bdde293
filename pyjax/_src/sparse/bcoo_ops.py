"""Operations on BCOO arrays: dot_general with a dense or sparse operand (and its sampled
transpose), elementwise products, reductions, and the shape operations (reshape, slice,
dynamic_slice, concatenate, broadcast_in_dim, squeeze, rev, gather).

The three dot products are primitives (their rules come from the implementation, see util.py);
the rest compose primitives and pyjax ops as JAX's do.
"""
from __future__ import annotations

import math
import operator
from functools import partial

import numpy as np

from pyjax._src.api_vmap import vmap
from pyjax._src.interpreters import batching
from pyjax._src.lax import convolution as lax_conv
from pyjax._src.lax import dot_general as lax_dot
from pyjax._src.lax import dynamic_slicing as lax_dynslice
from pyjax._src.lax import shape_ops as lax_shape
from pyjax._src.lax import slicing as lax_slicing
from pyjax._src.numpy import array_methods  # noqa: F401  (Array operators)
from pyjax._src.numpy import creation, index_tricks, lax_numpy, reductions, ufuncs
from pyjax._src.numpy import pad as jpad
from pyjax._src.numpy import shape as jshape
from pyjax._src.numpy import util as jnp_util
from pyjax._src.sparse.bcoo import (BCOO, _batched, _extract_impl, _hashable, _padding_mask,
                                    _sum_duplicates_unbatched, bcoo_extract, bcoo_fromdense,
                                    bcoo_sum_duplicates, bcoo_todense, bcoo_transpose,
                                    bcoo_update_layout)
from pyjax._src.sparse.util import broadcast_batch, sparse_primitive, to_front


def _canonical_dn(dimension_numbers):
    (lc, rc), (lb, rb) = dimension_numbers
    return ((tuple(int(i) for i in lc), tuple(int(i) for i in rc)),
            (tuple(int(i) for i in lb), tuple(int(i) for i in rb)))


def _dot_output_shape(lhs_shape, rhs_shape, dn, op="bcoo_dot_general"):
    (lc, rc), (lb, rb) = dn
    for a, b in ((lc, rc), (lb, rb)):
        if len(a) != len(b):
            raise TypeError(f"{op}: dimension numbers {dn} pair unequal numbers of dimensions")
    if any(lhs_shape[i] != rhs_shape[j] for i, j in zip(lc, rc)):
        raise TypeError(f"dot_general requires contracting dimensions to have the same shape, "
                        f"got {tuple(lhs_shape[i] for i in lc)} and {tuple(rhs_shape[j] for j in rc)}.")
    if any(lhs_shape[i] != rhs_shape[j] for i, j in zip(lb, rb)):
        raise TypeError(f"dot_general requires lhs batch dimensions and rhs batch dimensions to "
                        f"have the same shape, got {tuple(lhs_shape[i] for i in lb)} and "
                        f"{tuple(rhs_shape[j] for j in rb)}.")
    lfree = [i for i in range(len(lhs_shape)) if i not in lc and i not in lb]
    rfree = [j for j in range(len(rhs_shape)) if j not in rc and j not in rb]
    return tuple(lhs_shape[i] for i in lb) + tuple(lhs_shape[i] for i in lfree) + \
        tuple(rhs_shape[j] for j in rfree)


# -- bcoo_dot_general (sparse x dense) --------------------------------------------------------------

def _dot_unbatched(data, indices, rhs, *, dn, lhs_shape):
    """Sparse (no batch dims) times dense: gather rhs at each entry's coordinates along the
    contracted/batch sparse dims, contract the dense dims with dot_general (nse as a batch
    dim), then scatter-add each entry's product to its output position."""
    (lc, rc), (lb, rb) = dn
    n_sparse = indices.shape[-1]
    nse = indices.shape[0]
    is_sparse = lambda d: d < n_sparse   # noqa: E731
    # 1. gather rhs along the dims paired with lhs sparse dims (contracting or batch)
    pairs = [(l, r) for l, r in zip(lc + lb, rc + rb) if is_sparse(l)]
    gathered_r = [r for _, r in pairs]
    rest_r = [j for j in range(rhs.ndim) if j not in gathered_r]
    rhs_t = jshape.transpose(rhs, gathered_r + rest_r)
    if pairs:
        rhs_g = rhs_t[tuple(indices[:, l] for l, _ in pairs)]              # (nse, *rest)
    else:
        rhs_g = jnp_util.broadcast_to(rhs_t[None], (nse,) + rhs_t.shape)
    # 2. contract dense dims: data (nse, *dense) with rhs_g (nse, *rest)
    dense = lambda d: d - n_sparse + 1   # noqa: E731  (lhs dim -> data axis)
    rpos = {r: k + 1 for k, r in enumerate(rest_r)}                        # rhs dim -> rhs_g axis
    d_lc = [(dense(l), rpos[r]) for l, r in zip(lc, rc) if not is_sparse(l)]
    d_lb = [(dense(l), rpos[r]) for l, r in zip(lb, rb) if not is_sparse(l)]
    prod = lax_dot.dot_general(data, rhs_g,
                               (([a for a, _ in d_lc], [b for _, b in d_lc]),
                                ([0] + [a for a, _ in d_lb], [0] + [b for _, b in d_lb])),
                               preferred_element_type=None)
    # prod: (nse, dense batch..., dense free..., rhs free...)
    # 3. scatter over the sparse output coordinates: sparse batch dims then sparse free dims
    s_lb = [l for l in lb if is_sparse(l)]
    s_free = [d for d in range(n_sparse) if d not in lc and d not in lb]
    out_sparse = s_lb + s_free
    if out_sparse:
        valid = _padding_mask(indices, lhs_shape[:n_sparse])
        pos = tuple(lax_numpy.where(valid, indices[:, d], lhs_shape[d]) for d in out_sparse)
        out = creation.zeros(tuple(lhs_shape[d] for d in out_sparse) + prod.shape[1:], prod.dtype)
        out = out.at[pos].add(prod, mode="drop")
    else:
        valid = _padding_mask(indices, lhs_shape[:n_sparse])
        out = lax_numpy.where(valid.reshape((nse,) + (1,) * (prod.ndim - 1)), prod, 0).sum(0)
    # out dims: s_lb, s_free, d_lb, d_free, r_free; wanted: lb order, lhs free, r_free
    n_slb, n_sfree, n_dlb = len(s_lb), len(s_free), len(d_lb)
    d_lb_dims = [l for l in lb if not is_sparse(l)]
    where = {l: k for k, l in enumerate(s_lb)}
    where.update({l: n_slb + n_sfree + k for k, l in enumerate(d_lb_dims)})
    batch_axes = [where[l] for l in lb]
    free_axes = list(range(n_slb, n_slb + n_sfree)) + \
        list(range(n_slb + n_sfree + n_dlb, out.ndim))
    return jshape.transpose(out, batch_axes + free_axes)


def _remove_dim(dims, d):
    return tuple(x - (x > d) for x in dims if x != d)


def _dot_general_impl(lhs_data, lhs_indices, rhs, *, dimension_numbers, lhs_spinfo):
    """Map over the lhs batch dimensions one at a time: a dot batch dim maps rhs's partner, a
    contracted one maps it and sums, a free one leaves rhs unmapped."""
    shape = lhs_spinfo.shape
    n_batch = lhs_indices.ndim - 2
    (lc, rc), (lb, rb) = dimension_numbers
    if n_batch == 0:
        out = _dot_unbatched(lhs_data, lhs_indices, rhs, dn=dimension_numbers, lhs_shape=shape)
        return out.astype(lax_numpy.result_type(lhs_data.dtype, rhs.dtype))
    (lhs_data, lhs_indices), _ = broadcast_batch([lhs_data, lhs_indices], n_batch, shape[:n_batch])
    sub_info = lhs_spinfo._replace(shape=shape[1:])
    if 0 in lb:
        j = lb.index(0)
        r = rb[j]
        dn = ((_remove_dim(lc, 0), _remove_dim(rc, r)),
              (_remove_dim(lb, 0), _remove_dim(rb, r)))
        f = partial(_dot_general_impl, dimension_numbers=dn, lhs_spinfo=sub_info)
        return vmap(f, in_axes=(0, 0, r), out_axes=j)(lhs_data, lhs_indices, rhs)
    if 0 in lc:
        r = rc[lc.index(0)]
        dn = ((_remove_dim(lc, 0), _remove_dim(rc, r)),
              (_remove_dim(lb, 0), _remove_dim(rb, r)))
        f = partial(_dot_general_impl, dimension_numbers=dn, lhs_spinfo=sub_info)
        return vmap(f, in_axes=(0, 0, r), out_axes=0)(lhs_data, lhs_indices, rhs).sum(0)
    dn = ((_remove_dim(lc, 0), rc), (_remove_dim(lb, 0), rb))
    f = partial(_dot_general_impl, dimension_numbers=dn, lhs_spinfo=sub_info)
    return vmap(f, in_axes=(0, 0, None), out_axes=len(lb))(lhs_data, lhs_indices, rhs)


bcoo_dot_general_p = sparse_primitive("bcoo_dot_general", _dot_general_impl,
                                      linear_argnums=(0, 2))


def _dot_general_batch_params(size, dims, *, dimension_numbers, lhs_spinfo):
    """The lhs gains leading batch dim 0; a batched rhs (moved to the front) pairs with it as a
    dot batch dimension, an unbatched rhs leaves it free (output dim len(lb))."""
    (lc, rc), (lb, rb) = dimension_numbers
    up = lambda ds: tuple(d + 1 for d in ds)   # noqa: E731
    spinfo = lhs_spinfo._replace(shape=(size,) + tuple(lhs_spinfo.shape))
    if dims[-1] is batching.not_mapped:
        dn = ((up(lc), rc), (up(lb), rb))
        return dict(dimension_numbers=dn, lhs_spinfo=spinfo), len(lb)
    dn = ((up(lc), up(rc)), ((0,) + up(lb), (0,) + up(rb)))
    return dict(dimension_numbers=dn, lhs_spinfo=spinfo), 0


def dot_general_batch_rule(p, n_bufs):
    """The batching rule of a sparse x dense dot_general primitive whose first n_bufs operands
    are the sparse buffers (BCOO: data, indices; BCSR: data, indices, indptr)."""
    def rule(axis_size, args, dims, **params):
        bufs = [to_front(a, d, axis_size) for a, d in zip(args[:n_bufs], dims[:n_bufs])]
        rhs, rdim = args[n_bufs], dims[n_bufs]
        rhs = rhs if rdim is batching.not_mapped else batching.moveaxis(rhs, rdim, 0)
        new, out_dim = _dot_general_batch_params(axis_size, (None,) * (n_bufs - 1) + (None, rdim),
                                                 **params)
        return p.bind(*bufs, rhs, **new), out_dim
    p.def_batch(rule)


dot_general_batch_rule(bcoo_dot_general_p, 2)


def _dense_sparse_dot(lhs, rhs, dn, preferred_element_type):
    """dense x sparse as the transpose of sparse x dense."""
    (lc, rc), (lb, rb) = dn
    out = bcoo_dot_general(rhs, lhs, dimension_numbers=((rc, lc), (rb, lb)),
                           preferred_element_type=preferred_element_type)
    n_b = len(lb)
    n_rfree = rhs.ndim - len(rc) - len(rb)
    n_lfree = lhs.ndim - len(lc) - len(lb)
    perm = list(range(n_b)) + list(range(n_b + n_rfree, n_b + n_rfree + n_lfree)) + \
        list(range(n_b, n_b + n_rfree))
    return jshape.transpose(out, perm)


def bcoo_dot_general(lhs, rhs, *, dimension_numbers, precision=None,
                     preferred_element_type=None, out_sharding=None):
    """`lax.dot_general` where one or both operands are BCOO: a dense result when the other is
    dense, a BCOO result when both are sparse.

        >>> bcoo_dot_general(m, v, dimension_numbers=(([1], [0]), ([], [])))   # == m @ v
    """
    del precision, out_sharding
    dn = _canonical_dn(dimension_numbers)
    if isinstance(lhs, BCOO) and isinstance(rhs, BCOO):
        return _bcoo_spdot_general(lhs, rhs, dn, preferred_element_type)
    if isinstance(lhs, BCOO):
        rhs = creation.asarray(rhs)
        _dot_output_shape(lhs.shape, rhs.shape, dn)
        return _bcoo_dot_general(lhs.data, lhs.indices, rhs, dimension_numbers=dn,
                                 preferred_element_type=preferred_element_type,
                                 lhs_spinfo=lhs._info)
    if isinstance(rhs, BCOO):
        return _dense_sparse_dot(creation.asarray(lhs), rhs, dn, preferred_element_type)
    return lax_dot.dot_general(lhs, rhs, dn, preferred_element_type=preferred_element_type)


def _bcoo_dot_general(lhs_data, lhs_indices, rhs, *, dimension_numbers, preferred_element_type,
                      lhs_spinfo):
    """dot_general of BCOO buffers (lhs) and a dense rhs (JAX's private buffer-level form)."""
    out = bcoo_dot_general_p.bind(creation.asarray(lhs_data), creation.asarray(lhs_indices),
                                  creation.asarray(rhs), dimension_numbers=_canonical_dn(dimension_numbers),
                                  lhs_spinfo=_hashable(lhs_spinfo))
    return out if preferred_element_type is None else out.astype(preferred_element_type)


# -- bcoo_dot_general_sampled -------------------------------------------------------------------

def _dot_general_sampled_impl(A, B, indices, *, dimension_numbers):
    # a repeated index gets the product's value each time (a gather, as JAX's; so the gradient
    # of bcoo_dot_general reaches every stored entry)
    return _extract_impl(indices, lax_dot.dot_general(A, B, dimension_numbers), assume_unique=True)


bcoo_dot_general_sampled_p = sparse_primitive("bcoo_dot_general_sampled", _dot_general_sampled_impl,
                                              linear_argnums=(0, 1))


def bcoo_dot_general_sampled(A, B, indices, *, dimension_numbers):
    """The entries of `dot_general(A, B)` at `indices` (the data of a BCOO array): the
    transpose of bcoo_dot_general with respect to the sparse operand's data.

        >>> bcoo_dot_general_sampled(a, b, m.indices, dimension_numbers=(([1], [0]), ([], [])))
    """
    dn = _canonical_dn(dimension_numbers)
    return bcoo_dot_general_sampled_p.bind(creation.asarray(A), creation.asarray(B),
                                           creation.asarray(indices), dimension_numbers=dn)


# -- bcoo_spdot_general (sparse x sparse) -----------------------------------------------------------

def _spdot_unbatched(lhs_data, lhs_indices, rhs_data, rhs_indices, *, dn, lhs_shape, rhs_shape,
                     out_nse):
    """Every pair of entries contributes the product of their data where their contracted and
    batch coordinates agree (zero elsewhere), at (batch, lhs free, rhs free); duplicates are
    then summed into out_nse entries."""
    (lc, rc), (lb, rb) = dn
    l_ok = _padding_mask(lhs_indices, lhs_shape)
    r_ok = _padding_mask(rhs_indices, rhs_shape)
    match = l_ok[:, None] & r_ok[None, :]
    for l, r in zip(lc + lb, rc + rb):
        match = match & (lhs_indices[:, None, l] == rhs_indices[None, :, r])
    data = lax_numpy.where(match, lhs_data[:, None] * rhs_data[None, :], 0).reshape(-1)
    lfree = [d for d in range(len(lhs_shape)) if d not in lc and d not in lb]
    rfree = [d for d in range(len(rhs_shape)) if d not in rc and d not in rb]
    nl, nr = lhs_indices.shape[0], rhs_indices.shape[0]
    cols = [jnp_util.broadcast_to(lhs_indices[:, None, d], (nl, nr)) for d in list(lb) + lfree] + \
        [jnp_util.broadcast_to(rhs_indices[None, :, d], (nl, nr)) for d in rfree]
    out_shape = tuple(lhs_shape[d] for d in list(lb) + lfree) + tuple(rhs_shape[d] for d in rfree)
    indices = jshape.stack(cols, axis=-1).reshape(nl * nr, len(cols)) if cols else \
        creation.zeros((nl * nr, 0), lhs_indices.dtype)
    ok = (l_ok[:, None] & r_ok[None, :]).reshape(-1)
    indices = lax_numpy.where(ok[:, None], indices, creation.array(out_shape, indices.dtype))
    return _sum_duplicates_unbatched(data, indices, sparse_shape=out_shape, nse=out_nse)


def _spdot_impl(lhs_data, lhs_indices, rhs_data, rhs_indices, *, lhs_spinfo, rhs_spinfo,
                dimension_numbers, preferred_element_type, out_nse):
    f = partial(_spdot_unbatched, dn=dimension_numbers, lhs_shape=lhs_spinfo.shape,
                rhs_shape=rhs_spinfo.shape, out_nse=out_nse)
    data, indices = f(lhs_data, lhs_indices, rhs_data, rhs_indices)
    if preferred_element_type is not None:
        data = data.astype(preferred_element_type)
    return [data, indices]


bcoo_spdot_general_p = sparse_primitive("bcoo_spdot_general", _spdot_impl, multiple_results=True,
                                        linear_argnums=(0, 2))


def _bcoo_spdot_general(lhs, rhs, dn, preferred_element_type):
    # NB: batch and dense dimensions are first moved into the sparse ones (JAX keeps
    # leading batch dims batched); the values are the same.
    out_shape = _dot_output_shape(lhs.shape, rhs.shape, dn, "bcoo_spdot_general")
    lhs = bcoo_update_layout(lhs, n_batch=0, n_dense=0)
    rhs = bcoo_update_layout(rhs, n_batch=0, n_dense=0)
    out_nse = min(lhs.nse * rhs.nse, math.prod(out_shape))
    data, indices = bcoo_spdot_general_p.bind(
        lhs.data, lhs.indices, rhs.data, rhs.indices, lhs_spinfo=_hashable(lhs._info),
        rhs_spinfo=_hashable(rhs._info), dimension_numbers=dn,
        preferred_element_type=None if preferred_element_type is None else np.dtype(preferred_element_type),
        out_nse=out_nse)
    return BCOO((data, indices), shape=out_shape, indices_sorted=True, unique_indices=True)


# -- elementwise products -----------------------------------------------------------------------

def bcoo_multiply_dense(sp_mat, v):
    """Elementwise sp_mat * v for a dense v (broadcast as NumPy does): the data of the product,
    which keeps sp_mat's indices (as JAX's, which returns the data buffer).

        >>> bcoo_multiply_dense(m, 2.0)   # == 2 * m.data
    """
    return _multiply_dense_sparse(sp_mat, v).data


def _multiply_dense_sparse(sp_mat, v):
    """sp_mat * v as a BCOO with sp_mat's indices (v broadcast to sp_mat's shape)."""
    v = creation.asarray(v)
    if v.ndim == 0:
        return BCOO((sp_mat.data * v, sp_mat.indices), **sp_mat._info._asdict())
    shape = jnp_util.broadcast_shapes(sp_mat.shape, v.shape)
    if shape != sp_mat.shape:
        raise NotImplementedError(f"bcoo_multiply_dense: broadcasting the sparse operand "
                                  f"{sp_mat.shape} up to {shape} would densify it")
    # v's value at every stored index, a repeated index included (a gather, as JAX's)
    vals = bcoo_extract(sp_mat, jnp_util.broadcast_to(v, shape).astype(v.dtype),
                        assume_unique=True).data
    return BCOO((sp_mat.data * vals, sp_mat.indices), **sp_mat._info._asdict())


def bcoo_multiply_sparse(lhs, rhs):
    """Elementwise product of two BCOO arrays of one rank, their shapes broadcasting (NumPy's
    rule): a BCOO array with an entry for each pair of entries that agree on the dimensions
    neither has of size 1 (nse = lhs.nse * rhs.nse, as JAX).

        >>> bcoo_multiply_sparse(m, m).todense()   # == m.todense() ** 2
    """
    if len(lhs.shape) != len(rhs.shape):
        raise TypeError("bcoo_multiply_sparse: arrays must have same number of dimensions, "
                        f"got {lhs.shape}, {rhs.shape}")
    shape = tuple(np.broadcast_shapes(lhs.shape, rhs.shape))
    n_batch = min(lhs.n_batch, rhs.n_batch)
    lhs = bcoo_update_layout(lhs, n_batch=n_batch, n_dense=0) if (lhs.n_batch, lhs.n_dense) != (n_batch, 0) else lhs
    rhs = bcoo_update_layout(rhs, n_batch=n_batch, n_dense=0) if (rhs.n_batch, rhs.n_dense) != (n_batch, 0) else rhs
    fill = max(shape, default=0)
    nse = lhs.nse * rhs.nse
    # a dimension of size 1 on one side broadcasts: every entry matches there, and the other
    # side's index (the larger, as the size-1 side's is 0) is the product's
    dims = np.array([i for i, (a, b) in enumerate(zip(lhs.shape[n_batch:], rhs.shape[n_batch:]))
                     if a != 1 and b != 1], np.int32)

    def one(ld, li, rd, ri):
        match = reductions.all(li[:, None, dims] == ri[None, :, dims], axis=-1)
        match = match & _padding_mask(li, lhs.shape[n_batch:])[:, None] \
            & _padding_mask(ri, rhs.shape[n_batch:])[None, :]
        i_l, i_r = lax_numpy.nonzero(match, size=nse, fill_value=0)
        ok = creation.arange(nse) < match.sum()
        data = lax_numpy.where(ok, ld[i_l] * rd[i_r], 0)
        idx = lax_numpy.where(ok[:, None], ufuncs.maximum(li[i_l], ri[i_r]), fill)
        return data, idx
    data, indices = _batched(one, n_batch, shape[:n_batch], lhs.data, lhs.indices,
                             rhs.data, rhs.indices)
    return BCOO((data, indices), shape=shape)


# -- reductions and shape operations ------------------------------------------------------------

def bcoo_reduce_sum(mat, *, axes):
    """Sum of a BCOO array over `axes`: a BCOO array (summed sparse dims drop their index
    column; batch dims fold into nse).

        >>> bcoo_reduce_sum(m, axes=(0,)).todense()   # == m.todense().sum(0)
    """
    axes = sorted({operator.index(a) % mat.ndim if mat.ndim else 0 for a in axes})
    nb, ns = mat.n_batch, mat.n_sparse
    data, indices = mat.data, mat.indices
    # dense axes: sum the data
    dense_axes = tuple(a - ns + 1 for a in axes if a >= nb + ns)
    data = data.sum(dense_axes) if dense_axes else data
    if ns:   # zero the padding (its data need not be zero), then drop summed sparse columns
        valid = _padding_mask(indices, mat.shape[nb:nb + ns])
        data = lax_numpy.where(valid.reshape(valid.shape + (1,) * (data.ndim - valid.ndim)), data, 0)
        keep = [i for i in range(ns) if nb + i not in axes]
        fill = creation.array([mat.shape[nb + i] for i in keep], indices.dtype)
        new_idx = indices[..., np.array(keep, np.int32)] if keep else indices[..., :0]
        indices = lax_numpy.where(valid[..., None], new_idx, fill) if keep else new_idx
    mat = BCOO((data, indices), shape=[d for i, d in enumerate(mat.shape) if i not in axes or i < nb])
    # batch axes: fold into nse (moving each into the sparse part and dropping its column)
    for a in reversed([a for a in axes if a < nb]):
        perm = [i for i in range(mat.n_batch) if i != a] + [a] + list(range(mat.n_batch, mat.ndim))
        mat = bcoo_transpose(mat, permutation=perm)
        mat = bcoo_update_layout(mat, n_batch=mat.n_batch - 1)
        mat = bcoo_reduce_sum(mat, axes=(mat.n_batch,))
    return mat


def bcoo_reshape(mat, *, new_sizes, dimensions=None, sharding=None):
    """`mat` reshaped; batch dims reshape among themselves, the sparse dims as one block (their
    flat positions are re-split), dense dims stay.

        >>> bcoo_reshape(m, new_sizes=(12,)).todense()   # == m.todense().reshape(12)
    """
    del sharding
    if dimensions is not None and tuple(dimensions) != tuple(range(mat.ndim)):
        mat = bcoo_transpose(mat, permutation=dimensions)
    new_sizes = tuple(operator.index(d) for d in new_sizes)
    if -1 in new_sizes:
        known = math.prod(d for d in new_sizes if d != -1)
        new_sizes = tuple(mat.size // known if d == -1 and known else d for d in new_sizes)
    if math.prod(new_sizes) != mat.size:
        raise TypeError(f"cannot reshape array of shape {mat.shape} (size {mat.size}) into shape "
                        f"{new_sizes} (size {math.prod(new_sizes)})")
    nb, ns = mat.n_batch, mat.n_sparse
    if mat.indices.shape[:nb] != mat.data.shape[:nb] != mat.shape[:nb]:   # (JAX's test)
        raise NotImplementedError("reshape of arrays with broadcasted batch dimensions.")
    batch, sparse, dense = mat.shape[:nb], mat.shape[nb:nb + ns], mat.shape[nb + ns:]
    cum = np.cumprod((1,) + new_sizes)
    # JAX's errors for new sizes that would merge batch with sparse, or sparse with dense dims
    if math.prod(batch) != 1 and math.prod(batch) not in cum:
        raise ValueError("bcoo_reshape: new shape cannot mix batch and sparse dimensions; "
                         f"got shape={mat.shape} new_shape={new_sizes} with n_batch={nb}")
    if math.prod(sparse) != 1 and math.prod(batch + sparse) not in cum:
        raise ValueError("bcoo_reshape: new shape cannot mix sparse and dense dimensions; "
                         f"got shape={mat.shape} new_shape={new_sizes} with n_dense={mat.n_dense}")
    try:
        i1 = int(np.where(cum == math.prod(batch))[0][0])
        i2 = int(np.where(cum == math.prod(batch + sparse))[0][-1]) if dense else len(new_sizes)
    except IndexError:
        raise NotImplementedError(f"bcoo_reshape: the new sizes {new_sizes} do not keep the "
                                  f"batch, sparse and dense dimensions {batch}, {sparse}, {dense} "
                                  f"apart") from None
    new_batch, new_sparse, new_dense = new_sizes[:i1], new_sizes[i1:i2], new_sizes[i2:]
    if new_dense != dense:
        raise NotImplementedError(f"bcoo_reshape: dense dimensions {dense} cannot be reshaped "
                                  f"(to {new_dense})")
    (data, indices), _ = broadcast_batch([mat.data, mat.indices], nb, batch)
    data = data.reshape(new_batch + data.shape[nb:])
    indices = indices.reshape(new_batch + indices.shape[nb:])
    if sparse != new_sparse:
        valid = _padding_mask(indices, sparse)
        flat = creation.zeros(indices.shape[:-1], indices.dtype)
        for i, s in enumerate(sparse):
            flat = flat * s + indices[..., i]
        cols = index_tricks.unravel_index(flat, new_sparse) if new_sparse else ()
        new_idx = jshape.stack(cols, axis=-1).astype(indices.dtype) if new_sparse else \
            creation.zeros(indices.shape[:-1] + (0,), indices.dtype)
        indices = lax_numpy.where(valid[..., None], new_idx, creation.array(new_sparse, indices.dtype))
    return BCOO((data, indices), shape=new_sizes)


def bcoo_slice(mat, *, start_indices, limit_indices, strides=None):
    """`lax.slice` of a BCOO array: entries outside the window become padding (nse kept, or cut
    to the window's size).

        >>> bcoo_slice(m, start_indices=(1, 0), limit_indices=(3, 4)).todense()  # == x[1:3]
    """
    start_indices = tuple(operator.index(i) for i in start_indices)
    limit_indices = tuple(operator.index(i) for i in limit_indices)
    strides = (1,) * mat.ndim if strides is None else tuple(operator.index(s) for s in strides)
    if not (len(start_indices) == len(limit_indices) == len(strides) == mat.ndim):
        raise ValueError(f"bcoo_slice: start_indices, limit_indices and strides must have length "
                         f"{mat.ndim}; got {start_indices}, {limit_indices}, {strides}")
    if not all(0 <= s <= e <= n for s, e, n in zip(start_indices, limit_indices, mat.shape)):
        raise ValueError(f"bcoo_slice: invalid indices. Got start_indices={start_indices}, "
                         f"limit_indices={limit_indices} and shape={mat.shape}")
    nb, ns = mat.n_batch, mat.n_sparse
    new_shape = tuple((e - s + st - 1) // st for s, e, st in zip(start_indices, limit_indices, strides))
    data_sl, idx_sl = [], []
    for i in range(nb):
        sl = slice(start_indices[i], limit_indices[i], strides[i])
        data_sl.append(slice(None) if mat.data.shape[i] == 1 else sl)
        idx_sl.append(slice(None) if mat.indices.shape[i] == 1 else sl)
    dense_sl = [slice(s, e, st) for s, e, st in zip(start_indices[nb + ns:], limit_indices[nb + ns:],
                                                     strides[nb + ns:])]
    data = mat.data[tuple(data_sl) + (slice(None),) + tuple(dense_sl)]
    indices = mat.indices[tuple(idx_sl) + (slice(None), slice(None))]
    if ns:
        st, en, sd, bound = (jnp_util.broadcast_to(creation.array(v[nb:nb + ns], indices.dtype),
                                                   indices.shape)
                             for v in (start_indices, limit_indices, strides, new_shape))
        keep = reductions.all((indices >= st) & (indices < en) & ((indices - st) % sd == 0), axis=-1)
        indices = lax_numpy.where(keep[..., None], (indices - st + sd - 1) // sd, bound)
        data = lax_numpy.where(keep.reshape(keep.shape + (1,) * (data.ndim - keep.ndim)), data, 0)
    out = BCOO((data, indices), shape=new_shape)
    window = math.prod(new_shape[nb:nb + ns])
    if ns and out.nse > window:
        out = bcoo_sum_duplicates(out, nse=window)
    return out


def bcoo_dynamic_slice(mat, start_indices, slice_sizes):
    """`lax.dynamic_slice` of a BCOO array (starts clamped into range, as lax does).

        >>> bcoo_dynamic_slice(m, (i, 0), (2, 4)).todense()   # == lax.dynamic_slice(x, (i, 0), (2, 4))
    """
    slice_sizes = tuple(operator.index(s) for s in slice_sizes)
    if len(start_indices) != mat.ndim or len(slice_sizes) != mat.ndim:
        raise ValueError(f"bcoo_dynamic_slice: start_indices and slice_sizes must have length "
                         f"{mat.ndim}")
    if any(not 0 <= s <= n for s, n in zip(slice_sizes, mat.shape)):
        raise TypeError(f"bcoo_dynamic_slice: slice_sizes {slice_sizes} must be within the "
                        f"shape {mat.shape}")
    nb, ns = mat.n_batch, mat.n_sparse
    starts = [lax_numpy.clip(creation.asarray(s, np.int32), 0, n - k)
              for s, n, k in zip(start_indices, mat.shape, slice_sizes)]
    (data, indices), _ = broadcast_batch([mat.data, mat.indices], nb, mat.shape[:nb])
    zero = creation.zeros((), np.int32)
    data = lax_dynslice.dynamic_slice(data, starts[:nb] + [zero] + starts[nb + ns:],
                                      slice_sizes[:nb] + (data.shape[nb],) + slice_sizes[nb + ns:])
    indices = lax_dynslice.dynamic_slice(indices, starts[:nb] + [zero, zero],
                                         slice_sizes[:nb] + indices.shape[nb:])
    if ns:
        st = jnp_util.broadcast_to(jshape.stack(starts[nb:nb + ns]).astype(indices.dtype),
                                   indices.shape)
        size = jnp_util.broadcast_to(creation.array(slice_sizes[nb:nb + ns], indices.dtype),
                                     indices.shape)
        keep = reductions.all((indices >= st) & (indices < st + size), axis=-1)
        indices = lax_numpy.where(keep[..., None], indices - st, size)
        data = lax_numpy.where(keep.reshape(keep.shape + (1,) * (data.ndim - keep.ndim)), data, 0)
    out = BCOO((data, indices), shape=slice_sizes)
    window = math.prod(slice_sizes[nb:nb + ns])
    if ns and out.nse > window:
        out = bcoo_sum_duplicates(out, nse=window)
    return out


def bcoo_concatenate(operands, *, dimension):
    """Concatenation of BCOO arrays (of one layout) along `dimension`: along a batch dimension
    the buffers are concatenated (nse padded to the largest), along a sparse one the entries
    (with shifted indices).

        >>> bcoo_concatenate([m, m], dimension=0).todense()   # == jnp.concatenate([x, x])
    """
    operands = list(operands)
    if not operands or not all(isinstance(o, BCOO) for o in operands):
        raise ValueError("bcoo_concatenate: expected a non-empty list of BCOO arrays")
    dimension = operator.index(dimension)
    ref = operands[0]
    nb, nd = ref.n_batch, ref.n_dense
    if any((o.n_batch, o.n_dense) != (nb, nd) for o in operands):
        raise ValueError(f"bcoo_concatenate: operands must have matching layouts; got "
                         f"{[(o.n_batch, o.n_sparse, o.n_dense) for o in operands]}")
    shapes = [o.shape for o in operands]
    for s in shapes:
        if len(s) != ref.ndim or any(a != b for i, (a, b) in enumerate(zip(s, ref.shape)) if i != dimension):
            raise TypeError(f"bcoo_concatenate: all operand dimensions except {dimension} must "
                            f"match; got shapes {shapes}")
    out_shape = list(ref.shape)
    out_shape[dimension] = sum(s[dimension] for s in shapes)
    if dimension < nb:
        nse = max(o.nse for o in operands)
        padded = [o if o.nse == nse else _pad_nse(o, nse) for o in operands]
        bufs = [broadcast_batch([o.data, o.indices], nb, o.shape[:nb])[0] for o in padded]
        data = jshape.concatenate([b[0] for b in bufs], axis=dimension)
        indices = jshape.concatenate([b[1] for b in bufs], axis=dimension)
    elif dimension < nb + ref.n_sparse:
        k = dimension - nb
        offset, datas, idxs = 0, [], []
        for o in operands:
            d, i = broadcast_batch([o.data, o.indices], nb, o.shape[:nb])[0]
            valid = _padding_mask(i, o.shape[nb:nb + o.n_sparse])
            shifted = i.at[..., k].add(offset)
            fill = creation.array(out_shape[nb:nb + o.n_sparse], i.dtype)
            idxs.append(lax_numpy.where(valid[..., None], shifted, fill))
            datas.append(d)
            offset += o.shape[dimension]
        data = jshape.concatenate(datas, axis=nb)
        indices = jshape.concatenate(idxs, axis=nb)
    else:
        raise NotImplementedError("bcoo_concatenate along a dense dimension (change the layout "
                                  "with bcoo_update_layout first)")
    return BCOO((data, indices), shape=out_shape)


def _pad_nse(mat, nse):
    nb = mat.n_batch
    extra = nse - mat.nse
    pad_d = [(0, 0)] * nb + [(0, extra)] + [(0, 0)] * mat.n_dense
    data = jpad.pad(mat.data, pad_d)
    fill = jnp_util.broadcast_to(creation.array(mat.shape[nb:nb + mat.n_sparse], mat.indices.dtype),
                                 mat.indices.shape[:nb] + (extra, mat.n_sparse))
    indices = jshape.concatenate([mat.indices, fill], axis=nb)
    return BCOO((data, indices), shape=mat.shape)


def bcoo_broadcast_in_dim(mat, *, shape, broadcast_dimensions, sharding=None):
    """`lax.broadcast_in_dim` of a BCOO array: new leading dims become batch dims, new trailing
    dims dense dims; size-1 batch and dense dims stretch.

        >>> bcoo_broadcast_in_dim(m, shape=(2, 3, 4), broadcast_dimensions=(1, 2)).n_batch
        1
    """
    del sharding
    shape = tuple(operator.index(d) for d in shape)
    bdims = tuple(operator.index(d) for d in broadcast_dimensions)
    if len(bdims) != mat.ndim or any(mat.shape[i] not in (1, shape[d]) for i, d in enumerate(bdims)) \
            or list(bdims) != sorted(bdims):
        raise TypeError(f"bcoo_broadcast_in_dim: operand shape {mat.shape} cannot be broadcast "
                        f"to {shape} with broadcast_dimensions={bdims}")
    nb, ns = mat.n_batch, mat.n_sparse
    sparse_out = bdims[nb:nb + ns]
    if ns and (sparse_out != tuple(range(sparse_out[0], sparse_out[0] + ns))):
        raise NotImplementedError("bcoo_broadcast_in_dim: new dimensions between sparse "
                                  "dimensions are not supported")
    if any(mat.shape[nb + i] != shape[d] for i, d in enumerate(sparse_out)):
        raise NotImplementedError("bcoo_broadcast_in_dim: sparse dimensions cannot be stretched")
    # the first sparse dimension's position: what comes before it is batch, after it dense
    new_nb = sparse_out[0] if ns else (bdims[nb] if nb < len(bdims) else len(shape))
    new_batch, new_dense = shape[:new_nb], shape[new_nb + ns:]
    # data: (batch, nse, dense) -> (new_batch, nse, new_dense); indices likewise
    d_dims = tuple(bdims[i] for i in range(nb)) + (new_nb,) + \
        tuple(bdims[i] - ns + 1 for i in range(nb + ns, mat.ndim))
    data = lax_shape.broadcast_in_dim(mat.data, new_batch + (mat.nse,) + new_dense, d_dims)
    i_dims = tuple(bdims[i] for i in range(nb)) + (new_nb, new_nb + 1)
    indices = lax_shape.broadcast_in_dim(mat.indices, new_batch + (mat.nse, ns), i_dims)
    return BCOO((data, indices), shape=shape)


def bcoo_squeeze(arr, *, dimensions):
    """`lax.squeeze` of a BCOO array (the squeezed dims have size 1).

        >>> bcoo_squeeze(m[None], dimensions=(0,)).shape == m.shape
        True
    """
    dims = sorted({operator.index(d) % arr.ndim for d in dimensions})
    if any(arr.shape[d] != 1 for d in dims):
        raise ValueError(f"bcoo_squeeze: cannot squeeze dimensions {tuple(dims)} of shape "
                         f"{arr.shape}: they must have size 1")
    nb, ns = arr.n_batch, arr.n_sparse
    b = [d for d in dims if d < nb]
    s = [d - nb for d in dims if nb <= d < nb + ns]
    dn = [d - ns + 1 for d in dims if d >= nb + ns]
    data = jshape.squeeze(arr.data, tuple(b) + tuple(dn)) if b or dn else arr.data
    indices = jshape.squeeze(arr.indices, tuple(b)) if b else arr.indices
    if s:
        keep = np.array([i for i in range(ns) if i not in s], np.int32)
        indices = indices[..., keep]
    shape = tuple(n for i, n in enumerate(arr.shape) if i not in dims)
    return BCOO((data, indices), shape=shape)


def bcoo_rev(operand, dimensions):
    """`lax.rev` of a BCOO array: reversed batch/dense buffers, mirrored sparse indices.

        >>> bcoo_rev(m, (0,)).todense()   # == x[::-1]
    """
    dims = sorted({operator.index(d) % operand.ndim for d in dimensions})
    nb, ns = operand.n_batch, operand.n_sparse
    (data, indices), _ = broadcast_batch([operand.data, operand.indices], nb, operand.shape[:nb])
    b = [d for d in dims if d < nb]
    dn = [d - ns + 1 for d in dims if d >= nb + ns]
    if b or dn:
        data = lax_shape.rev(data, tuple(b + dn))
    if b:
        indices = lax_shape.rev(indices, tuple(b))
    s = [d - nb for d in dims if nb <= d < nb + ns]
    if s:
        sizes = np.array(operand.shape[nb:nb + ns])
        flip = np.zeros(ns, bool)
        flip[s] = True
        valid = _padding_mask(indices, operand.shape[nb:nb + ns])[..., None]
        top = jnp_util.broadcast_to(creation.array(sizes - 1, indices.dtype), indices.shape)
        mirrored = lax_numpy.where(jnp_util.broadcast_to(creation.array(flip), indices.shape),
                                   top - indices, indices)
        indices = lax_numpy.where(valid, mirrored, indices)
    return BCOO((data, indices), shape=operand.shape)


def bcoo_gather(operand, start_indices, dimension_numbers, slice_sizes, *,
                unique_indices=False, indices_are_sorted=False, mode=None, fill_value=None):
    """`lax.gather` of a BCOO array, as a BCOO array.

    NB: computed through the dense array (gather, then fromdense with the operand's layout and
    an nse bounded by the result size); JAX rewrites the gather into sparse slices instead. The
    values agree; memory use is that of the dense operand.
    """
    dense = lax_slicing.gather(bcoo_todense(operand), start_indices, dimension_numbers, slice_sizes,
                               unique_indices=unique_indices, indices_are_sorted=indices_are_sorted,
                               mode=mode, fill_value=fill_value)
    nse = min(math.prod(dense.shape), operand.nse * max(1, math.prod(np.shape(start_indices)[:-1])))
    return bcoo_fromdense(dense, nse=max(nse, 0), n_batch=0, n_dense=0)


def bcoo_conv_general_dilated(lhs, rhs, *, window_strides, padding, lhs_dilation=None,
                              rhs_dilation=None, dimension_numbers=None, feature_group_count=1,
                              batch_group_count=1, precision=None, preferred_element_type=None):
    """`lax.conv_general_dilated` where either operand may be BCOO: a BCOO result (as JAX).

    NB: computed on the dense operands and stored with one entry per output element (JAX's
    version handles only 1-D convolutions, sparsely); the values agree.
    """
    lhs = bcoo_todense(lhs) if isinstance(lhs, BCOO) else lhs
    rhs = bcoo_todense(rhs) if isinstance(rhs, BCOO) else rhs
    out = lax_conv.conv_general_dilated(lhs, rhs, window_strides, padding, lhs_dilation=lhs_dilation,
                                        rhs_dilation=rhs_dilation, dimension_numbers=dimension_numbers,
                                        feature_group_count=feature_group_count,
                                        batch_group_count=batch_group_count, precision=precision,
                                        preferred_element_type=preferred_element_type)
    return bcoo_fromdense(out, nse=math.prod(out.shape))
