"""Shared pieces of `jax.experimental.sparse`: the warning/error classes, the factory for sparse
primitives, and the helpers that map an unbatched sparse routine over batch dimensions.

A sparse primitive here is defined by its implementation, a function written with pyjax ops
(gathers, scatters, sorts, segment sums: no cuSPARSE on this backend). Its abstract eval traces
that function, its eager impl and lowering compile it. Its JVP binds the primitive again on the
tangents when the primitive is linear and keeps the sparsity structure (otherwise it is the JVP
of the implementation); its transpose is the VJP of the implementation; its batching rule is the
vmap of the implementation unless `def_leading_batch` gives it JAX's rule (the batch becomes one
more leading batch dimension of the sparse operand, so the vmapped jaxpr keeps the primitive).

NB: JAX writes each rule by hand per primitive; deriving the transposes (and the batching of the
less common primitives) from the implementation gives the same values with less code.
"""
from __future__ import annotations

from functools import partial

import numpy as np

from pyjax._src import core, dtypes
from pyjax._src.ad_api import vjp
from pyjax._src.api_vmap import vmap
from pyjax._src.core import Primitive
from pyjax._src.dispatch import apply_primitive
from pyjax._src.interpreters import ad, batching
from pyjax._src.interpreters import partial_eval as pe
from pyjax._src.interpreters.ad import Zero
from pyjax._src.numpy import creation
from pyjax._src.numpy import shape as jshape
from pyjax._src.numpy import sorting as jsorting
from pyjax._src.numpy import util as jnp_util


class SparseEfficiencyError(ValueError):
    """A sparse operation would store its result inefficiently (raised by default)."""


class SparseEfficiencyWarning(UserWarning):
    """A sparse operation stores its result inefficiently."""


class CuSparseEfficiencyWarning(SparseEfficiencyWarning):
    """A cuSPARSE-backed operation falls back to a slower path (GPU only; never raised here)."""


def _as_list(out, multiple_results):
    return list(out) if multiple_results else [out]


def sparse_primitive(name: str, impl, *, multiple_results: bool = False,
                     linear_argnums: tuple = (), structure_preserving: bool = True) -> Primitive:
    """A primitive computing `impl(*arrays, **params)` (pyjax ops), with every rule derived from
    `impl`. `linear_argnums`: the arguments it is linear in (they get a transpose rule). When
    `structure_preserving` (the default), applying the primitive to a tangent gives the tangent
    of the result, so the JVP binds the primitive again; fromdense is linear but not so (its
    output indices depend on where its input is nonzero), so its JVP differentiates `impl`."""
    p = Primitive(name, multiple_results)
    p.def_impl(partial(apply_primitive, p))
    p.sparse_impl = impl

    def abstract_eval(*avals, **params):
        closed, _ = pe.trace_to_jaxpr(lambda *xs: _as_list(impl(*xs, **params), multiple_results),
                                      list(avals))
        outs = [v.aval for v in closed.jaxpr.outvars]
        return outs if multiple_results else outs[0]
    p.def_abstract_eval(abstract_eval)
    p.def_lowering(lambda ctx, *args, **params:
                   ctx.lower_fun(partial(impl, **params), multiple_results)(*args))

    def jvp(primals, tangents, **params):
        out = p.bind(*primals, **params)
        nz = [i for i, t in enumerate(tangents) if type(t) is not Zero]
        if nz and structure_preserving and set(nz) <= set(linear_argnums):
            # multilinear in its linear arguments: the tangent is a sum of binds of the
            # primitive itself, one per nonzero tangent (the jaxpr keeps the sparse primitive)
            total = None
            for i in nz:
                args = list(primals)
                args[i] = tangents[i]
                t = _as_list(p.bind(*args, **params), multiple_results)
                total = t if total is None else [ad.add_tangents(a, b) for a, b in zip(total, t)]
            outs = _as_list(out, multiple_results)
            total = [Zero(ad.tangent_aval(core.get_aval(o))) if not _is_inexact(o) else t
                     for o, t in zip(outs, total)]
            return out, (total if multiple_results else total[0])

        def f(*xs):
            args = list(primals)
            for i, x in zip(nz, xs):
                args[i] = x
            return _as_list(impl(*args, **params), multiple_results)
        _, t_out = ad.jvp_flat(f, [primals[i] for i in nz], [tangents[i] for i in nz])
        return out, (t_out if multiple_results else t_out[0])
    p.def_jvp(jvp)

    if linear_argnums:
        def transpose(ct, *args, **params):
            lin = [i for i, a in enumerate(args) if ad.is_undefined_primal(a)]
            assert set(lin) <= set(linear_argnums), (name, lin)
            cts = _as_list(ct, multiple_results)
            if all(type(c) is Zero for c in cts):
                return [Zero(ad.tangent_aval(args[i].aval)) if i in lin else None
                        for i in range(len(args))]

            def f(*xs):
                full = list(args)
                for i, x in zip(lin, xs):
                    full[i] = x
                return _as_list(impl(*full, **params), multiple_results)
            zeros = [np.zeros(args[i].aval.shape, args[i].aval.dtype) for i in lin]
            out_avals = _as_list(p.rule("abstract_eval")(
                *[a.aval if ad.is_undefined_primal(a) else core.get_aval(a) for a in args],
                **params), multiple_results)
            cts = [_zero_ct(a) if type(c) is Zero else c for c, a in zip(cts, out_avals)]
            _, pullback = vjp(f, *zeros)
            res = iter(pullback(cts))
            return [next(res) if i in lin else None for i in range(len(args))]
        p.def_transpose(transpose)

    def batch(axis_size, args, dims, **params):
        in_axes = [None if d is batching.not_mapped else d for d in dims]
        out = vmap(partial(impl, **params), in_axes=in_axes, out_axes=0)(*args)
        return out, ([0] * len(out) if multiple_results else 0)
    p.def_batch(batch)
    return p


def _is_inexact(x):
    return np.issubdtype(core.get_aval(x).dtype, np.inexact)


def _zero_ct(aval):
    t = ad.tangent_aval(aval)
    return np.zeros(t.shape, t.dtype)


# -- mapping unbatched routines over batch dimensions ---------------------------------------

def broadcast_batch(arrays, n_batch: int, batch_shape=None):
    """Broadcast the leading n_batch dimensions of each array (size-1 dims stretch) to
    `batch_shape` (default: their common broadcast shape). Returns (arrays, batch_shape)."""
    if batch_shape is None:
        batch_shape = np.broadcast_shapes(*[tuple(a.shape[:n_batch]) for a in arrays])
    batch_shape = tuple(batch_shape)
    return [a if tuple(a.shape[:n_batch]) == batch_shape else
            jnp_util.broadcast_to(a, batch_shape + tuple(a.shape[n_batch:])) for a in arrays], batch_shape


def nfold_vmap(fun, n: int, in_axes=0, out_axes=0):
    """`fun` mapped over n leading dimensions (of the arguments whose in_axes entry is 0)."""
    for _ in range(n):
        fun = vmap(fun, in_axes=in_axes, out_axes=out_axes)
    return fun


def _count_stored_elements_per_batch(mat, n_batch=0, n_dense=0):
    """The number of nonzero sparse positions in each batch element of `mat` (an array of
    shape mat.shape[:n_batch]); a position counts when any of its dense entries is nonzero."""
    mask = creation.asarray(mat) != 0
    if n_dense > 0:
        mask = mask.any(axis=tuple(range(mask.ndim - n_dense, mask.ndim)))
    return mask.sum(axis=tuple(range(n_batch, mask.ndim)))


def _count_stored_elements(mat, n_batch=0, n_dense=0):
    """The nse a BCOO of `mat` needs: the largest per-batch count of nonzero positions."""
    return _count_stored_elements_per_batch(mat, n_batch, n_dense).max(initial=0)


def _csr_to_coo(indices, indptr):
    """The (row, col) COO buffers of CSR (indices, indptr); entries past indptr[-1] (padding)
    get row len(indptr) - 1, one past the last row."""
    k = creation.arange(indices.shape[0], dtype=indptr.dtype)
    return jsorting.searchsorted(indptr[1:], k, side="right").astype(indptr.dtype), indices


def canonical_index_dtype(dtype):
    return dtypes.canonicalize_dtype(dtype if dtype is not None else np.int32)


# -- batching by a new leading batch dimension ------------------------------------------------------

def to_front(x, bdim, size, *, broadcast=False):
    """x with its batch dimension first; an unbatched x gets a size-1 leading dimension (sparse
    buffers broadcast over batch dims of size 1) or, with `broadcast`, the full size."""
    if bdim is batching.not_mapped:
        x = jshape.expand_dims(x, 0)
        return jnp_util.broadcast_to(x, (size,) + x.shape[1:]) if broadcast else x
    return batching.moveaxis(x, bdim, 0)


def def_leading_batch(p, sparse_argnums, dense_argnums=(), update_params=None):
    """Batch `p` by giving its sparse operands (data and indices) one more leading batch
    dimension, as JAX's rules do, so the vmapped jaxpr keeps `p`; dense operands are moved (or
    broadcast) to the front. `update_params(size, dims, **params)` gives the new parameters;
    the results are batched along their first dimension."""
    def rule(axis_size, args, dims, **params):
        args = list(args)
        for i in sparse_argnums:
            args[i] = to_front(args[i], dims[i], axis_size)
        for i in dense_argnums:
            args[i] = to_front(args[i], dims[i], axis_size, broadcast=True)
        out = p.bind(*args, **update_params(axis_size, dims, **params))
        return out, ([0] * len(out) if p.multiple_results else 0)
    p.def_batch(rule)
