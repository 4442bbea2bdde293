"""Order statistics and their relatives: `quantile`/`percentile`/`median` (every method JAX has)
and their nan-ignoring versions, the nan-reductions (`nansum` ... `nancumprod`), `average`,
`cov`, `corrcoef` and the histograms.

Quantiles sort along the reduced axis and read the two neighbouring order statistics of each
quantile with a gather (`_take_along_last`), as JAX does; the histograms count with a
scatter-add of the bin indices that `searchsorted` finds.
"""
from __future__ import annotations

import builtins
import math
import operator

import numpy as np

from pyjax._src import core, dtypes
from pyjax._src.lax import elementwise as lax
from pyjax._src.lax import shape_ops
from pyjax._src.lax import slicing as lax_slicing
from pyjax._src.lax import sorting as lax_sort
from pyjax._src.lax.control_flow import cumulative as lax_cf
from pyjax._src.lax.utils import canonicalize_axis, kind
from pyjax._src.numpy import creation, lax_numpy, linalg_ops, ufuncs
from pyjax._src.numpy import reductions as jred
from pyjax._src.numpy import shape as jshape
from pyjax._src.numpy.sorting import searchsorted
from pyjax._src.numpy.util import (asarray_value, broadcast_to, check_arraylike, promote_dtypes_inexact,
                                   reduction_axes)


def _aval(x):
    return core.get_aval(x)


def _array(fname, *xs):
    check_arraylike(fname, *xs)
    return [asarray_value(x) for x in xs]


def _full(shape, value, dtype):
    return shape_ops.broadcast_in_dim(np.array(value, dtype), tuple(shape), ())


def _where(c, x, y):
    return ufuncs.where_(c, x, y)


# -- quantiles --------------------------------------------------------------------------------

_QUANTILE_METHODS = ("linear", "lower", "higher", "midpoint", "nearest", "inverted_cdf")


def quantile(a, q, axis=None, out=None, overwrite_input=False, method="linear", keepdims=False, *,
             weights=None):
    """The `q`-th quantiles (q in [0, 1], a scalar or 1-D) of `a` over `axis`; any NaN in a
    reduced slice makes its quantile NaN. `method` is one of 'linear', 'lower', 'higher',
    'midpoint', 'nearest', 'inverted_cdf' (the only one taking `weights`).

    Example:
        >>> jnp.quantile(jnp.array([1., 2., 3., 4.]), jnp.array([0.25, 0.5]))
        Array([1.75, 2.5 ], dtype=float32)
    """
    a, q = _array("quantile", a, q)
    _no_out_or_overwrite("quantile", out, overwrite_input)
    return _quantile(a, q, axis, method, keepdims, False, _weights("quantile", weights))


def nanquantile(a, q, axis=None, out=None, overwrite_input=False, method="linear", keepdims=False, *,
                weights=None):
    """`quantile` ignoring NaN (a slice of NaN only gives NaN).

    Example:
        >>> jnp.nanquantile(jnp.array([1., jnp.nan, 3.]), 0.5)
        Array(2., dtype=float32)
    """
    a, q = _array("nanquantile", a, q)
    _no_out_or_overwrite("nanquantile", out, overwrite_input)
    return _quantile(a, q, axis, method, keepdims, True, _weights("nanquantile", weights))


def percentile(a, q, axis=None, out=None, overwrite_input=False, method="linear", keepdims=False, *,
               weights=None, out_sharding=None):
    """`quantile` with `q` in percent (0 to 100).

    Example:
        >>> jnp.percentile(jnp.array([1., 2., 3., 4.]), 50)
        Array(2.5, dtype=float32)
    """
    a, q = _array("percentile", a, q)
    q, = promote_dtypes_inexact(q)
    return quantile(a, ufuncs.true_divide(q, 100), axis, out, overwrite_input, method, keepdims,
                    weights=weights)


def nanpercentile(a, q, axis=None, out=None, overwrite_input=False, method="linear", keepdims=False, *,
                  weights=None):
    """`percentile` ignoring NaN."""
    a, q = _array("nanpercentile", a, q)
    q, = promote_dtypes_inexact(q)
    return nanquantile(a, ufuncs.true_divide(q, 100), axis, out, overwrite_input, method, keepdims,
                       weights=weights)


def median(a, axis=None, out=None, overwrite_input=False, keepdims=False):
    """The median over `axis` (the mean of the two middle values for an even count).

    Example:
        >>> jnp.median(jnp.array([3., 1., 4., 1.]))
        Array(2., dtype=float32)
    """
    a, = _array("median", a)
    return quantile(a, 0.5, axis, out, overwrite_input, "midpoint", keepdims)


def nanmedian(a, axis=None, out=None, overwrite_input=False, keepdims=False):
    """The median over `axis`, ignoring NaN."""
    a, = _array("nanmedian", a)
    return nanquantile(a, 0.5, axis, out, overwrite_input, "midpoint", keepdims)


def _no_out_or_overwrite(fname, out, overwrite_input):
    if overwrite_input or out is not None:
        raise ValueError(f"jax.numpy.{fname} does not support overwrite_input=True or out != None")


def _weights(fname, weights):
    return None if weights is None else _array(fname, weights)[0]


def _reduced_last(a, weights, axis, keepdims, fname):
    """`a` (and `weights`) with the reduced axes moved last and merged into one, and the shape
    a `keepdims` result takes (None: insert nothing)."""
    nd = _aval(a).ndim
    if axis is None:
        axes = tuple(range(nd))
    else:
        axes = tuple(axis) if isinstance(axis, (tuple, list)) else (axis,)
        axes = tuple(canonicalize_axis(ax, nd, "axis", fname) for ax in axes)
        if len(set(axes)) != len(axes):
            raise ValueError(f"{fname}: repeated axis in {axis}")
    if weights is not None and _aval(weights).shape != _aval(a).shape:
        if axis is None:
            raise ValueError(f"{fname}: weights shape must match 'a' shape when axis is None.")
        want = tuple(_aval(a).shape[ax] for ax in axes)
        if _aval(weights).shape != want:
            raise ValueError(f"{fname}: weights shape {_aval(weights).shape} must match reduction axes {want}")
        weights = shape_ops.broadcast_in_dim(weights, _aval(a).shape, axes)
    keep = [d for d in range(nd) if d not in axes]
    shape = _aval(a).shape
    kept_shape = tuple(shape[d] for d in keep)
    n = math.prod(shape[d] for d in axes)
    perm = keep + sorted(axes)
    a = shape_ops.reshape(shape_ops.transpose(a, perm), kept_shape + (n,))
    if weights is not None:
        weights = shape_ops.reshape(shape_ops.transpose(weights, perm), kept_shape + (n,))
    keep_shape = tuple(1 if d in axes else shape[d] for d in range(nd)) if keepdims else None
    return a, weights, keep_shape


def _take_along_last(a, idx):
    """`out[Q..., R...] = a[R..., idx[Q..., R...]]` for `a` of shape R + (n,) and integer `idx`
    of shape Q + R (a gather with every other axis a batch axis)."""
    ishape = _aval(idx).shape
    k = len(ishape)
    a = shape_ops.broadcast_in_dim(a, ishape + (_aval(a).shape[-1],),
                                   tuple(range(k - (_aval(a).ndim - 1), k + 1)))
    dnums = lax_slicing.GatherDimensionNumbers(
        offset_dims=(), collapsed_slice_dims=(k,), start_index_map=(k,),
        operand_batching_dims=tuple(range(k)), start_indices_batching_dims=tuple(range(k)))
    return lax_slicing.gather(a, shape_ops.expand_dims(idx, (k,)), dnums, (1,) * (k + 1), mode="clip")


def _q_over(q, shape):
    """`q` (shape Q) broadcast to Q + `shape`."""
    qs = _aval(q).shape
    return shape_ops.broadcast_in_dim(q, qs + tuple(shape), tuple(range(len(qs))))


def _under_q(x, q):
    """`x` (shape R) broadcast to Q + R, Q the shape of `q`."""
    qn, xs = _aval(q).ndim, _aval(x).shape
    return shape_ops.broadcast_in_dim(x, _aval(q).shape + xs, tuple(range(qn, qn + len(xs))))


def _quantile(a, q, axis, method, keepdims, squash_nans, weights):
    if method not in _QUANTILE_METHODS:
        raise ValueError("method can only be 'linear', 'lower', 'higher', 'midpoint', 'nearest' or "
                         "'inverted_cdf'")
    fname = "nanquantile" if squash_nans else "quantile"
    if weights is not None:
        if kind(_aval(weights).dtype) == "c":
            raise ValueError("Weights cannot be complex types.")
        if method != "inverted_cdf":
            raise NotImplementedError(f"{method} doesn't support weights. Only method 'inverted_cdf' "
                                      f"supports weights.")
        a, weights = promote_dtypes_inexact(a, weights)
    else:
        a, = promote_dtypes_inexact(a)
    if kind(_aval(a).dtype) == "c":
        raise ValueError("quantile does not support complex input, as the operation is poorly defined.")
    if _aval(q).ndim > 1:
        raise ValueError(f"q must be have rank <= 1, got shape {_aval(q).shape}")
    out_dtype = _aval(a).dtype
    a, weights, keep_shape = _reduced_last(a, weights, axis, keepdims, fname)
    rest, n = _aval(a).shape[:-1], _aval(a).shape[-1]
    isnan = ufuncs.isnan(a)
    if not squash_nans:  # a NaN anywhere in a slice makes the whole slice NaN
        a = _where(jred.any(isnan, axis=-1, keepdims=True), np.nan, a)
    if weights is not None:
        a, weights = lax_sort.sort_key_val(a, weights, dimension=_aval(a).ndim - 1)
    else:
        a = lax_sort.sort(a, dimension=_aval(a).ndim - 1)
    isnan = ufuncs.isnan(a)
    qdt = _aval(q).dtype
    if squash_nans:
        counts = jred.sum(lax.bitwise_not(isnan), axis=-1, dtype=qdt)
    else:
        counts = _full(rest, n, qdt)
    if method == "inverted_cdf":
        result = _inverted_cdf(a, q, weights, isnan, counts, squash_nans)
    else:
        result = _interpolated(a, q, counts, method)
    if keep_shape is not None:
        result = shape_ops.reshape(result, _aval(q).shape + keep_shape)
    return lax._convert_element_type(result, out_dtype, False)


def _interpolated(a, q, counts, method):
    """The five methods that read the order statistics around `q * (count - 1)`."""
    pos = lax.mul(_q_over(q, _aval(counts).shape), _under_q(lax.sub(counts, np.array(1, _aval(counts).dtype)), q))
    low, high = lax.floor(pos), lax.ceil(pos)
    high_weight = lax.sub(pos, low)
    low_weight = lax.sub(np.array(1, _aval(pos).dtype), high_weight)
    last = _under_q(lax.sub(counts, np.array(1, _aval(counts).dtype)), q)
    zero = np.array(0, _aval(pos).dtype)
    low = lax._convert_element_type(lax.max(zero, lax.min(low, last)), np.int32, False)
    high = lax._convert_element_type(lax.max(zero, lax.min(high, last)), np.int32, False)
    low_value, high_value = _take_along_last(a, low), _take_along_last(a, high)
    if method == "linear":
        qdt = _aval(q).dtype
        return lax.add(lax.mul(lax._convert_element_type(low_value, qdt, False), low_weight),
                       lax.mul(lax._convert_element_type(high_value, qdt, False), high_weight))
    if method == "lower":
        return low_value
    if method == "higher":
        return high_value
    if method == "nearest":
        return lax.select_n(lax.le(high_weight, np.array(0.5, _aval(high_weight).dtype)), high_value, low_value)
    return lax.mul(lax.add(low_value, high_value), np.array(0.5, _aval(low_value).dtype))  # midpoint


def _inverted_cdf(a, q, weights, isnan, counts, squash_nans):
    """The first order statistic whose cumulative weight reaches `q` of the total (weights
    default to 1; a negative or NaN weight makes the result NaN)."""
    if weights is None:
        weights = _full(_aval(a).shape, 1, _aval(a).dtype)
    zero = np.array(0, _aval(weights).dtype)
    bad = lax.bitwise_or(lax.lt(weights, zero), ufuncs.isnan(weights))
    clean = _where(lax.bitwise_or(bad, isnan), zero, weights)
    last = _aval(a).ndim - 1
    cum = lax_cf.cumsum(clean, axis=last)
    total = shape_ops.slice_in_dim(cum, _aval(cum).shape[-1] - 1, _aval(cum).shape[-1], axis=last)
    target = lax.mul(_q_over(q, _aval(total).shape), _under_q(total, q))
    cum_q = _under_q(cum, q)
    below = lax._convert_element_type(lax.lt(cum_q, target), dtypes.default_int_dtype(), False)
    idx = jred.sum(below, axis=-1)
    limit = lax._convert_element_type(lax.sub(counts, np.array(1, _aval(counts).dtype)), _aval(idx).dtype, False)
    idx = lax.max(np.array(0, _aval(idx).dtype), lax.min(idx, _under_q(limit, q)))
    result = _take_along_last(a, idx)
    if squash_nans:
        force_nan = lax.bitwise_or(jred.any(bad, axis=-1), lax.eq(counts, np.array(0, _aval(counts).dtype)))
    else:
        force_nan = lax.bitwise_or(jred.any(bad, axis=-1), jred.any(isnan, axis=-1))
    return _where(_under_q(force_nan, q), np.nan, result)


# -- nan-reductions ---------------------------------------------------------------------------

def _nan_reduction(fname, reduction, init, nan_if_all_nan, a, axis, keepdims, where, **kw):
    """`reduction` with NaN replaced by `init` (integers and bools have no NaN to skip)."""
    a, = _array(fname, a)
    jred._check_where(fname, where)
    if kind(_aval(a).dtype) not in "fc":
        return reduction(a, axis=axis, keepdims=keepdims, where=where, **kw)
    isnan = ufuncs.isnan(a)
    out = reduction(_where(isnan, _init(a, init), a), axis=axis, keepdims=keepdims, where=where, **kw)
    if nan_if_all_nan:
        return _where(jred.all(isnan, axis=axis, keepdims=keepdims), np.nan, out)
    return out


def _init(a, init):
    dt = _aval(a).dtype
    if init in (np.inf, -np.inf) and kind(dt) == "c":
        return np.array(complex(init, 0), dt)
    return np.array(init, dt)


def nansum(a, axis=None, dtype=None, out=None, keepdims=False, initial=None, where=None):
    """`sum` treating NaN as zero.

    Example:
        >>> jnp.nansum(jnp.array([1., jnp.nan, 2.]))
        Array(3., dtype=float32)
    """
    jred._no_out(out, "nansum")
    return _nan_reduction("nansum", jred.sum, 0, False, a, axis, keepdims, where, dtype=dtype,
                          initial=initial)


def nanprod(a, axis=None, dtype=None, out=None, keepdims=False, initial=None, where=None):
    """`prod` treating NaN as one."""
    jred._no_out(out, "nanprod")
    return _nan_reduction("nanprod", jred.prod, 1, False, a, axis, keepdims, where, dtype=dtype,
                          initial=initial)


def nanmax(a, axis=None, out=None, keepdims=False, initial=None, where=None):
    """`max` ignoring NaN (NaN where every entry is NaN and there is no `initial`)."""
    jred._no_out(out, "nanmax")
    return _nan_reduction("nanmax", jred.max, -np.inf, initial is None, a, axis, keepdims, where,
                          initial=initial)


def nanmin(a, axis=None, out=None, keepdims=False, initial=None, where=None):
    """`min` ignoring NaN (NaN where every entry is NaN and there is no `initial`)."""
    jred._no_out(out, "nanmin")
    return _nan_reduction("nanmin", jred.min, np.inf, initial is None, a, axis, keepdims, where,
                          initial=initial)


def nanmean(a, axis=None, dtype=None, out=None, keepdims=False, where=None):
    """The mean of the non-NaN entries (NaN where there are none).

    Example:
        >>> jnp.nanmean(jnp.array([1., jnp.nan, 2.]))
        Array(1.5, dtype=float32)
    """
    jred._no_out(out, "nanmean")
    a, = _array("nanmean", a)
    jred._check_where("nanmean", where)
    if kind(_aval(a).dtype) in "biu":
        return jred.mean(a, axis, dtype, keepdims=keepdims, where=where)
    dt = dtypes.to_inexact_dtype(_aval(a).dtype) if dtype is None else \
        dtypes.check_and_canonicalize_user_dtype(dtype, "nanmean")
    count = jred.sum(lax.bitwise_not(ufuncs.isnan(a)), axis, dtype=dt, keepdims=keepdims, where=where)
    return lax.div(nansum(a, axis, dtype=dt, keepdims=keepdims, where=where), count)


def nanvar(a, axis=None, dtype=None, out=None, ddof=0, keepdims=False, where=None, mean=None):
    """The variance of the non-NaN entries, with `ddof` degrees of freedom removed (NaN where
    fewer than `ddof + 1` remain).

    Example:
        >>> jnp.nanvar(jnp.array([1., jnp.nan, 3.]))
        Array(1., dtype=float32)
    """
    jred._no_out(out, "nanvar")
    a, = _array("nanvar", a)
    jred._check_where("nanvar", where)
    compute_dt, out_dt = jred.var_promote_types("nanvar", _aval(a).dtype, dtype)
    a = lax._convert_element_type(a, compute_dt, False)
    if mean is None:
        mean = nanmean(a, axis, dtype=compute_dt, keepdims=True, where=where)
    else:
        mean = lax._convert_element_type(_array("nanvar", mean)[0], compute_dt, False)
    isnan = ufuncs.isnan(a)
    centered = _where(isnan, 0, ufuncs.subtract(a, mean))
    if kind(compute_dt) == "c":
        centered = ufuncs.real(ufuncs.multiply(centered, ufuncs.conjugate(centered)))
    else:
        centered = ufuncs.multiply(centered, centered)
    count = jred.sum(lax.bitwise_not(isnan), axis, keepdims=keepdims, where=where)
    count = ufuncs.subtract(count, ddof)
    empty = ufuncs.less_equal(count, 0)
    total = _where(empty, np.nan, jred.sum(centered, axis, keepdims=keepdims, where=where))
    divisor = _where(empty, 1, count)
    out = ufuncs.true_divide(total, lax._convert_element_type(divisor, _aval(total).dtype, False))
    return lax._convert_element_type(out, out_dt, False)


def nanstd(a, axis=None, dtype=None, out=None, ddof=0, keepdims=False, where=None, mean=None):
    """The standard deviation of the non-NaN entries."""
    jred._check_where("nanstd", where)
    return lax.sqrt(nanvar(a, axis, dtype, out, ddof, keepdims, where=where, mean=mean))


def nanargmax(a, axis=None, out=None, keepdims=None):
    """`argmax` ignoring NaN; -1 where every entry is NaN.

    Example:
        >>> jnp.nanargmax(jnp.array([1., jnp.nan, 2.]))
        Array(2, dtype=int32)
    """
    return _nanarg("nanargmax", jred.argmax, -np.inf, a, axis, out, keepdims)


def nanargmin(a, axis=None, out=None, keepdims=None):
    """`argmin` ignoring NaN; -1 where every entry is NaN."""
    return _nanarg("nanargmin", jred.argmin, np.inf, a, axis, out, keepdims)


def _nanarg(fname, arg, fill, a, axis, out, keepdims):
    if out is not None:
        raise NotImplementedError(f"The 'out' argument to jnp.{fname} is not supported.")
    a, = _array(fname, a)
    axis = None if axis is None else operator.index(axis)
    keepdims = bool(keepdims)
    if kind(_aval(a).dtype) not in "fc":
        return arg(a, axis=axis, keepdims=keepdims)
    isnan = ufuncs.isnan(a)
    res = arg(_where(isnan, _init(a, fill), a), axis=axis, keepdims=keepdims)
    return _where(jred.all(isnan, axis=axis, keepdims=keepdims), -1, res)


def nancumsum(a, axis=None, dtype=None, out=None):
    """`cumsum` treating NaN as zero."""
    jred._no_out(out, "nancumsum")
    return jred.cumsum(_nan_filled("nancumsum", a, 0), axis, dtype)


def nancumprod(a, axis=None, dtype=None, out=None):
    """`cumprod` treating NaN as one."""
    jred._no_out(out, "nancumprod")
    return jred.cumprod(_nan_filled("nancumprod", a, 1), axis, dtype)


def _nan_filled(fname, a, value):
    a, = _array(fname, a)
    if kind(_aval(a).dtype) not in "fc":
        return a
    return _where(ufuncs.isnan(a), np.array(value, _aval(a).dtype), a)


# -- average, cov, corrcoef ------------------------------------------------------------------

def average(a, axis=None, weights=None, returned=False, keepdims=False):
    """The (weighted) mean over `axis`; with `returned`, also the sum of the weights.

    Example:
        >>> jnp.average(jnp.array([1., 2., 4.]), weights=jnp.array([1., 1., 2.]))
        Array(2.75, dtype=float32)
    """
    if weights is None:
        a, = promote_dtypes_inexact(*_array("average", a))
        avg = jred.mean(a, axis=axis, keepdims=keepdims)
        axes, _ = reduction_axes(axis, _aval(a).ndim, "average")
        weights_sum = _full((), math.prod(_aval(a).shape[d] for d in axes), _aval(avg).dtype)
    else:
        a, weights = promote_dtypes_inexact(*_array("average", a, weights))
        ashape, wshape = _aval(a).shape, _aval(weights).shape
        if ashape != wshape:
            if axis is None:
                raise ValueError("Axis must be specified when shapes of a and weights differ.")
            axes = tuple(axis) if isinstance(axis, (tuple, list)) else (axis,)
            axes = tuple(canonicalize_axis(ax, len(ashape), "axis", "average") for ax in axes)
            if wshape != tuple(ashape[ax] for ax in axes):
                raise ValueError("Shape of weights must be consistent with shape of a along specified axis.")
            weights = shape_ops.broadcast_in_dim(weights, ashape, axes)
        weights_sum = jred.sum(weights, axis=axis, keepdims=keepdims)
        avg = ufuncs.true_divide(jred.sum(ufuncs.multiply(a, weights), axis=axis, keepdims=keepdims), weights_sum)
    if returned:
        if _aval(avg).shape != _aval(weights_sum).shape:
            weights_sum = broadcast_to(weights_sum, _aval(avg).shape)
        return avg, weights_sum
    return avg


def cov(m, y=None, rowvar=True, bias=False, ddof=None, fweights=None, aweights=None, dtype=None):
    """The covariance matrix of the variables in the rows of `m` (columns if not `rowvar`),
    and of `y`'s; `fweights` (integer repeat counts) and `aweights` weight the observations.

    Example:
        >>> jnp.cov(jnp.array([[0., 1., 2.], [2., 1., 0.]]))
        Array([[ 1., -1.],
               [-1.,  1.]], dtype=float32)
    """
    if y is not None:
        m, y = promote_dtypes_inexact(*_array("cov", m, y))
        if _aval(y).ndim > 2:
            raise ValueError("y has more than 2 dimensions")
    else:
        m, = promote_dtypes_inexact(*_array("cov", m))
    if _aval(m).ndim > 2:
        raise ValueError("m has more than 2 dimensions")
    if dtype is not None and not dtypes.issubdtype(dtype, np.inexact):
        raise ValueError(f"cov: dtype must be a subclass of float or complex; got dtype={dtype}")
    x = jshape.atleast_2d(m)
    if not rowvar and _aval(m).ndim != 1:
        x = jshape.transpose(x)
    if _aval(x).shape[0] == 0:
        return asarray_value(np.zeros((0, 0), _aval(x).dtype))
    if y is not None:
        y2 = jshape.atleast_2d(y)
        if not rowvar and _aval(y2).shape[0] != 1:
            y2 = jshape.transpose(y2)
        x = jshape.concatenate((x, y2), axis=0)
    nvars, nobs = _aval(x).shape
    if nobs == 0:
        return _full(() if nvars == 1 else (nvars, nvars), np.nan, _aval(x).dtype)
    if ddof is None:
        ddof = 1 if bias == 0 else 0
    w = None
    if fweights is not None:
        fweights, = _array("cov", fweights)
        _check_obs_weights("fweights", fweights, nobs)
        if kind(_aval(fweights).dtype) not in "iu":
            raise TypeError("fweights must be integer.")
        w = ufuncs.absolute(fweights)
    if aweights is not None:
        aweights, = _array("cov", aweights)
        _check_obs_weights("aweights", aweights, nobs)
        aweights = ufuncs.absolute(aweights)
        w = aweights if w is None else ufuncs.multiply(w, aweights)
    if dtype is not None:
        x = lax._convert_element_type(x, dtypes.check_and_canonicalize_user_dtype(dtype, "cov"), False)
        w = None if w is None else lax._convert_element_type(w, _aval(x).dtype, False)
    avg, w_sum = average(x, axis=1, weights=w, returned=True)
    w_sum = shape_ops.slice_in_dim(w_sum, 0, 1)
    w_sum = shape_ops.reshape(w_sum, ())
    if w is None:
        f = nobs - ddof
    elif ddof == 0:
        f = w_sum
    elif aweights is None:
        f = ufuncs.subtract(w_sum, ddof)
    else:
        f = ufuncs.subtract(w_sum, ufuncs.true_divide(ufuncs.multiply(ddof, jred.sum(ufuncs.multiply(w, aweights))), w_sum))
    x = ufuncs.subtract(x, jshape.expand_dims(avg, 1))
    # (w made rank 2 first: cov's own arithmetic must not trip jax_numpy_rank_promotion='raise')
    xw = x if w is None else ufuncs.multiply(x, jshape.expand_dims(w, 0))
    c = ufuncs.true_divide(linalg_ops.dot(x, ufuncs.conjugate(jshape.transpose(xw))), f)
    return jshape.squeeze(c)


def _check_obs_weights(name, w, nobs):
    if _aval(w).ndim > 1:
        raise RuntimeError(f"cannot handle multidimensional {name}")
    if _aval(w).shape[0] != nobs:
        raise RuntimeError(f"incompatible numbers of samples and {name}")


def corrcoef(x, y=None, rowvar=True, dtype=None):
    """Pearson correlation coefficients (`cov` normalized by the standard deviations, clipped
    to [-1, 1]).

    Example:
        >>> jnp.corrcoef(jnp.array([[0., 1., 2.], [2., 1., 0.]]))
        Array([[ 1., -1.],
               [-1.,  1.]], dtype=float32)
    """
    check_arraylike("corrcoef", x)
    if dtype is not None and not dtypes.issubdtype(dtype, np.inexact):
        raise ValueError(f"corrcoef: dtype must be a subclass of float or complex; got dtype={dtype}")
    c = cov(x, y, rowvar, dtype=dtype)
    if _aval(c).ndim == 0:
        return ufuncs.true_divide(c, c)
    d = lax_numpy.diagonal(c)
    std = lax._convert_element_type(ufuncs.sqrt(ufuncs.real(d)), _aval(c).dtype, False)
    c = ufuncs.true_divide(ufuncs.true_divide(c, jshape.expand_dims(std, 1)), jshape.expand_dims(std, 0))
    real = lax_numpy.clip(ufuncs.real(c), -1, 1)
    if kind(_aval(c).dtype) == "c":
        return lax.complex(real, lax_numpy.clip(ufuncs.imag(c), -1, 1))
    return real


# -- histograms -------------------------------------------------------------------------------

def histogram_bin_edges(a, bins=10, range=None, weights=None):
    """The bin edges `histogram` uses: `bins` itself if it is an array, else `bins + 1` evenly
    spaced edges over `range` (default: the data's min and max; widened by 0.5 each way when
    they are equal).

    Example:
        >>> jnp.histogram_bin_edges(jnp.array([0., 1., 4.]), bins=4)
        Array([0., 1., 2., 3., 4.], dtype=float32)
    """
    if isinstance(bins, str):
        raise NotImplementedError("string values for `bins` not implemented.")
    a, bins_arr = _array("histogram_bin_edges", a, bins)
    dt = dtypes.to_inexact_dtype(_aval(a).dtype)
    if _aval(bins_arr).ndim == 1:
        return lax._convert_element_type(bins_arr, dt, False)
    n = operator.index(core.concrete_or_error(bins, "bins argument of histogram_bin_edges")
                       if isinstance(bins, core.Tracer) else bins)
    if range is None:
        lo, hi = jred.min(a), jred.max(a)
    else:
        if np.shape(range) != (2,):
            raise ValueError(f"`range` must be either None or a sequence of scalars, got {range}")
        lo, hi = range
    lo, hi = (lax._convert_element_type(v, dt, False) for v in (lo, hi))
    same = lax.eq(lo, hi)
    lo = _where(same, ufuncs.subtract(lo, 0.5), lo)
    hi = _where(same, ufuncs.add(hi, 0.5), hi)
    return creation.linspace(lo, hi, n + 1, dtype=dt)


_COUNT_DNUMS = lax_slicing.ScatterDimensionNumbers(update_window_dims=(), inserted_window_dims=(0,),
                                                   scatter_dims_to_operand_dims=(0,))


def _bin_counts(index, weights, length):
    """`counts[i] = sum of weights where index == i` (a scatter-add; out-of-range dropped)."""
    zeros = _full((length,), 0, _aval(weights).dtype)
    return lax_slicing.scatter_add(zeros, shape_ops.expand_dims(index, (_aval(index).ndim,)), weights,
                                   _COUNT_DNUMS, mode="drop")


def histogram(a, bins=10, range=None, weights=None, density=None):
    """Counts (or summed `weights`) of `a` in each bin, and the bin edges; the last bin
    includes its right edge. `density` normalizes to a probability density.

    Example:
        >>> jnp.histogram(jnp.array([0., 1., 1., 4.]), bins=4)[0]
        Array([1., 2., 0., 1.], dtype=float32)
    """
    if weights is None:
        a, _ = _array("histogram", a, bins)
        a, = promote_dtypes_inexact(a)
        weights = _full(_aval(a).shape, 1, _aval(a).dtype)
    else:
        a, _, weights = _array("histogram", a, bins, weights)
        if _aval(a).shape != _aval(weights).shape:
            raise ValueError("weights should have the same shape as a.")
        a, weights = promote_dtypes_inexact(a, weights)
    edges = histogram_bin_edges(a, bins, range, weights)
    a = jshape.ravel(a)
    weights = jshape.ravel(weights)
    nedges = _aval(edges).shape[0]
    idx = searchsorted(edges, a, side="right")
    last = shape_ops.slice_in_dim(edges, nedges - 1, nedges)
    idx = _where(lax.eq(a, shape_ops.broadcast_in_dim(shape_ops.reshape(last, ()), _aval(a).shape, ())),
                 nedges - 1, idx)
    counts = shape_ops.slice_in_dim(_bin_counts(idx, weights, nedges), 1, nedges)
    if density:
        widths = lax.sub(shape_ops.slice_in_dim(edges, 1, nedges), shape_ops.slice_in_dim(edges, 0, nedges - 1))
        counts = ufuncs.true_divide(ufuncs.true_divide(counts, widths), jred.sum(counts))
    return counts, edges


def histogram2d(x, y, bins=10, range=None, weights=None, density=None):
    """The 2-D histogram of the points `(x[i], y[i])`: counts, x edges, y edges.

    Example:
        >>> jnp.histogram2d(jnp.array([0., 1., 1.]), jnp.array([0., 0., 1.]), bins=2)[0]
        Array([[1, 0],
               [1, 1]], dtype=int32)
    """
    x, y = _array("histogram2d", x, y)
    try:
        nb = len(bins)
    except TypeError:
        nb = 1
    if nb not in (1, 2):
        bins = [bins, bins]
    sample = jshape.transpose(jshape.stack([x, y]))
    hist, edges = histogramdd(sample, bins, range, weights, density)
    return hist, edges[0], edges[1]


def histogramdd(sample, bins=10, range=None, weights=None, density=None):
    """The D-dimensional histogram of `sample` (N points, shape (N, D)): the counts (shape: the
    number of bins per dimension) and the list of bin edges per dimension.

    Example:
        >>> jnp.histogramdd(jnp.array([[0., 0.], [1., 1.]]), bins=2)[0]
        Array([[1, 0],
               [0, 1]], dtype=int32)
    """
    if weights is None:
        sample, = promote_dtypes_inexact(*_array("histogramdd", sample))
    else:
        sample, weights = _array("histogramdd", sample, weights)
        if _aval(weights).shape != _aval(sample).shape[:1]:
            raise ValueError("should have one weight for each sample.")
        sample, weights = promote_dtypes_inexact(sample, weights)
    n, d = _aval(sample).shape
    if range is not None and (len(range) != d or builtins.any(r is not None and np.shape(r)[0] != 2 for r in range)):
        raise ValueError(f"For sample.shape={(n, d)}, range must be a sequence of {d} pairs or Nones; "
                         f"got range={range}")
    try:
        per_dim = list(bins)
    except TypeError:
        per_dim = d * [bins]
    else:
        if len(per_dim) != d:
            raise ValueError("should be a bin for each dimension.")
    flat, edges_list, nbins = None, [], []
    for i in builtins.range(d):
        col = shape_ops.reshape(shape_ops.slice_in_dim(sample, i, i + 1, axis=1), (n,))
        edges = histogram_bin_edges(col, per_dim[i], None if range is None else range[i], weights)
        ne = _aval(edges).shape[0]
        idx = searchsorted(edges, col, side="right")
        last = shape_ops.broadcast_in_dim(shape_ops.reshape(shape_ops.slice_in_dim(edges, ne - 1, ne), ()), (n,), ())
        idx = _where(lax.eq(col, last), ufuncs.subtract(idx, 1), idx)
        idx = lax_numpy.clip(idx, 0, ne)  # ravel_multi_index(mode='clip') over ne + 1 bins
        flat = idx if flat is None else ufuncs.add(ufuncs.multiply(flat, ne + 1), idx)
        edges_list.append(edges)
        nbins.append(ne + 1)
    # without weights the counts are integers (JAX counts with bincount)
    w = _full((n,), 1, dtypes.default_int_dtype()) if weights is None else weights
    hist = shape_ops.reshape(_bin_counts(flat, w, math.prod(nbins)), tuple(nbins))
    hist = shape_ops.slice(hist, (1,) * d, tuple(b - 1 for b in nbins))
    if density:
        hist = lax._convert_element_type(hist, _aval(sample).dtype, False)
        hist = ufuncs.true_divide(hist, jred.sum(hist))
        for i, e in enumerate(edges_list):
            ne = _aval(e).shape[0]
            width = lax.sub(shape_ops.slice_in_dim(e, 1, ne), shape_ops.slice_in_dim(e, 0, ne - 1))
            shape = [1] * d
            shape[i] = ne - 1
            hist = ufuncs.true_divide(hist, shape_ops.reshape(width, tuple(shape)))
    return hist, edges_list
