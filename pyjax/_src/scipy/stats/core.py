"""Statistics over samples (`jax.scipy.stats.sem`, `rankdata`, `mode`)."""
from __future__ import annotations

import functools
import math
from typing import Any, NamedTuple

import numpy as np

from pyjax._src import dtypes
from pyjax._src.api_vmap import vmap
from pyjax._src.lax.sorting import sort_key_val
from pyjax._src.lax.utils import canonicalize_axis
from pyjax._src.numpy import creation, reductions as jred, ufuncs as jnp
from pyjax._src.numpy.index_tricks import nonzero
from pyjax._src.numpy.lax_numpy import where
from pyjax._src.numpy.shape import atleast_1d, concatenate, moveaxis, ravel, reshape
from pyjax._src.numpy.sorting import sort
from pyjax._src.numpy.util import check_arraylike, promote_args_inexact
from pyjax._src.pjit import jit


def _check_nan_policy(fname, nan_policy):
    if nan_policy not in ("propagate", "omit", "raise"):
        raise ValueError(f"Illegal nan_policy value {nan_policy!r}; expected one of "
                         f"{{'propagate', 'omit', 'raise'}}")
    if nan_policy == "omit":
        raise NotImplementedError(f"{fname}: nan_policy='omit' is not implemented")
    if nan_policy == "raise":
        raise NotImplementedError(f"{fname}: nan_policy='raise' cannot be compiled (whether x "
                                  f"holds NaNs is not known under jit): check outside {fname}")


# -- rankdata ------------------------------------------------------------------------------------

def _ranks_1d(a, method, out_dtype):
    """The ranks of a 1-D array (all NaN if it holds a NaN)."""
    n = a.shape[0]
    ordered, order = sort_key_val(a, creation.arange(n))
    position = creation.zeros_like(order).at[order].set(creation.arange(n, dtype=order.dtype))
    if method == "ordinal":
        ranks = (position + 1).astype(out_dtype)
    else:
        new_value = concatenate([creation.array([True]), ordered[1:] != ordered[:-1]])
        dense = jred.cumsum(new_value)[position]  # 1 + the number of smaller distinct values
        # group g (1-based) covers sorted positions [starts[g-1], starts[g]) (starts padded with n)
        starts = nonzero(new_value, size=n + 1, fill_value=n)[0].astype(out_dtype)
        ranks = {"dense": lambda: dense.astype(out_dtype),
                 "max": lambda: starts[dense],
                 "min": lambda: starts[dense - 1] + 1,
                 "average": lambda: 0.5 * (starts[dense] + starts[dense - 1] + 1)}[method]()
    return where(jred.any(jnp.isnan(a)), creation.full_like(ranks, np.nan, dtype=out_dtype), ranks)


@functools.partial(jit, static_argnames=("method", "axis", "nan_policy"))
def rankdata(a, method="average", *, axis=None, nan_policy="propagate"):
    """The ranks of `a`'s values (1 for the smallest), ties resolved by `method`: 'average',
    'min', 'max', 'dense' or 'ordinal'; over the flattened array, or along `axis`.

    >>> import pyjax.numpy as jnp, pyjax.scipy.stats as stats
    >>> stats.rankdata(jnp.array([3, 1, 3, 2]))
    Array([3.5, 1. , 3.5, 2. ], dtype=float32)
    """
    check_arraylike("rankdata", a)
    _check_nan_policy("rankdata", nan_policy)
    if method not in ("average", "min", "max", "dense", "ordinal"):
        raise ValueError(f"unknown method '{method}'")
    a = creation.asarray(a)
    out_dtype = dtypes.default_float_dtype()
    if axis is None:
        return _ranks_1d(ravel(a), method, out_dtype)
    axis = canonicalize_axis(axis, a.ndim)
    moved = moveaxis(a, axis, -1)
    rows = reshape(moved, (math.prod(moved.shape[:-1]), moved.shape[-1]))   # (empty rows too)
    ranks = vmap(lambda row: _ranks_1d(row, method, out_dtype))(rows)
    return moveaxis(reshape(ranks, moved.shape), -1, axis)


# -- mode ----------------------------------------------------------------------------------------

class ModeResult(NamedTuple):
    mode: Any
    count: Any


def _mode_1d(x):
    """(the most frequent value, its count); ties go to the smallest value, NaNs count as one
    value (as jnp.unique's)."""
    n = x.shape[0]
    s = sort(x)
    same = (s[1:] == s[:-1]) | (jnp.isnan(s[1:]) & jnp.isnan(s[:-1]))
    starts = concatenate([creation.array([True]), ~same])
    run = jred.cumsum(starts) - 1  # the index of each sorted value's run of equal values
    counts = creation.zeros(n, dtype=dtypes.default_int_dtype()).at[run].add(1)
    best = jred.argmax(counts)
    return s[nonzero(starts, size=n, fill_value=0)[0][best]], jred.max(counts)


@functools.partial(jit, static_argnames=("axis", "nan_policy", "keepdims"))
def mode(a, axis=0, nan_policy="propagate", keepdims=False):
    """The most frequent value along `axis` (None: of the flattened array) and its count.

    NB: JAX counts through jnp.unique; pyjax sorts and counts runs (the same results).
    """
    check_arraylike("mode", a)
    x = atleast_1d(a)
    _check_nan_policy("mode", nan_policy)
    if axis is None:
        out_shape = (1,) * x.ndim if keepdims else ()
        x, axis = ravel(x), 0
    else:
        axis = canonicalize_axis(axis, x.ndim)
        out_shape = tuple(1 if i == axis and keepdims else d for i, d in enumerate(x.shape)
                          if keepdims or i != axis)
    x = moveaxis(x, axis, 0)
    columns = reshape(x, (x.shape[0], math.prod(x.shape[1:])))
    if columns.shape[0] == 0:
        nan = creation.full((columns.shape[1],), np.nan, dtype=dtypes.default_float_dtype())
        return ModeResult(reshape(nan, out_shape), reshape(creation.zeros_like(nan), out_shape))
    values, counts = vmap(_mode_1d, in_axes=1)(columns)
    return ModeResult(reshape(values, out_shape), reshape(counts, out_shape))


def _std(b, axis, ddof, keepdims, ok):
    """The deviation with `ddof` removed from the count, of the entries where `ok` (all if None).

    NB: written out rather than jnp.std / jnp.nanstd: pyjax's jnp.var needs a concrete ddof
    (numpy/reductions.py), while JAX's sem traces it."""
    count = jred.sum(ok, axis=axis, keepdims=True).astype(b.dtype)
    mean = jred.sum(where(ok, b, 0), axis=axis, keepdims=True) / count
    sq = jred.sum(where(ok, jnp.square(b - mean), 0), axis=axis, keepdims=keepdims)
    return jnp.sqrt(sq / (jred.sum(ok, axis=axis, keepdims=keepdims).astype(b.dtype) - ddof))


@functools.partial(jit, static_argnames=("axis", "nan_policy", "keepdims"))
def sem(a, axis=0, ddof=1, nan_policy="propagate", *, keepdims=False):
    """The standard error of the mean: std(a, ddof) / sqrt(n) along `axis` (None: all of `a`);
    nan_policy="omit" leaves the NaNs out of both.

    >>> import pyjax.numpy as jnp, pyjax.scipy.stats as stats
    >>> stats.sem(jnp.array([1., 2., 3., 4.]))
    Array(0.64549726, dtype=float32)
    """
    b, = promote_args_inexact("sem", a)
    if nan_policy == "propagate":
        size = b.size if axis is None else b.shape[axis]
        return _std(b, axis, ddof, keepdims, creation.full_like(b, True, dtype=bool)) / jnp.sqrt(size).astype(b.dtype)
    if nan_policy == "omit":
        count = jred.sum(~jnp.isnan(b), axis, keepdims=keepdims)
        return _std(b, axis, ddof, keepdims, ok=~jnp.isnan(b)) / jnp.sqrt(count).astype(b.dtype)
    raise ValueError(f"sem: nan_policy {nan_policy!r} is not supported (use 'propagate' or 'omit')")
