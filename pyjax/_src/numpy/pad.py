"""`jnp.pad`: every NumPy padding mode, built from slices, reversals and concatenation.

The pad widths are static, so no mode needs a gather: "edge" and "wrap" repeat slices of the
array, "reflect" and "symmetric" grow it one mirror image at a time (as NumPy does, so widths
larger than the axis and `reflect_type="odd"` give NumPy's values), and the statistics modes
("maximum", "minimum", "mean", "median") broadcast one reduced slice per side. A callable mode is
NumPy's too: the function fills each axis's pads of the zero-padded array, one vector at a time.
"""
from __future__ import annotations

import numpy as np

from pyjax._src import core
from pyjax._src.lax import shape_ops as lax
from pyjax._src.lax.elementwise import _convert_element_type
from pyjax._src.numpy import reductions, ufuncs
from pyjax._src.numpy.creation import asarray, linspace
from pyjax._src.numpy.shape import concatenate, flip, repeat
from pyjax._src.numpy.util import asarray_value, broadcast_to, check_arraylike

_PAD_KWARGS = {
    "constant": {"constant_values"}, "edge": set(), "wrap": set(), "empty": set(),
    "reflect": {"reflect_type"}, "symmetric": {"reflect_type"}, "linear_ramp": {"end_values"},
    "maximum": {"stat_length"}, "minimum": {"stat_length"}, "mean": {"stat_length"},
    "median": {"stat_length"},
}


def _aval(x):
    return core.get_aval(x)


def _pairs(value, ndim, name, dtype=np.int64):
    """A pad argument (pad_width, stat_length, end_values...) as an (ndim, 2) NumPy array, from
    any of NumPy's broadcasting forms: a scalar, (v,), (before, after), or one pair per axis."""
    v = np.asarray(core.concrete_or_error(value, f"jnp.pad {name}"))
    if v.shape not in ((ndim, 2), (1, 2), (2,), (1,), ()):
        raise ValueError(f"pad: {name} of shape {v.shape} does not fit an array of rank {ndim}; "
                         f"valid shapes are {(ndim, 2)}, (1, 2), (2,), (1,) and ()")
    return np.broadcast_to(v.reshape(-1, 2) if v.ndim == 2 else v, (ndim, 2)).astype(dtype)


def _pad_width(pad_width, ndim):
    """`pad_width` as an (ndim, 2) array of non-negative ints."""
    pw = np.asarray(core.concrete_or_error(pad_width, "jnp.pad pad_width"))
    if pw.size and pw.dtype.kind not in "iu":
        raise TypeError(f"pad: pad_width must be integers, got {pad_width!r}")
    pw = _pairs(pw, ndim, "pad_width")
    if np.any(pw < 0):
        raise ValueError(f"pad: index can't contain negative values, got pad_width={pad_width}")
    return pw


def pad(array, pad_width, mode="constant", **kwargs):
    """Pad an array as `numpy.pad` does, in any of its modes (or with a callable)."""
    check_arraylike("pad", array)
    array = asarray_value(array)
    aval = _aval(array)
    pw = _pad_width(pad_width, aval.ndim)
    if callable(mode):
        return _pad_func(array, pw, mode, kwargs)
    if mode not in _PAD_KWARGS:
        raise NotImplementedError(f"Unimplemented padding mode {mode!r} for np.pad.")
    unsupported = set(kwargs) - _PAD_KWARGS[mode]
    if unsupported:
        raise ValueError(f"unsupported keyword arguments for mode {mode!r}: {unsupported}")
    if mode in ("constant", "empty"):  # (JAX fills "empty" pads with zeros)
        return _pad_constant(array, pw, kwargs.get("constant_values", 0))
    if mode == "linear_ramp":
        return _pad_linear_ramp(array, pw, kwargs.get("end_values", 0))
    if mode in ("maximum", "minimum", "mean", "median"):
        return _pad_stats(array, pw, mode, kwargs.get("stat_length"))
    for ax in range(aval.ndim):
        lo, hi = (int(w) for w in pw[ax])
        if lo == hi == 0:
            continue
        if _aval(array).shape[ax] == 0:
            raise ValueError(f"Cannot apply '{mode}' padding to empty axis")
        if mode == "edge":
            array = _pad_edge(array, ax, lo, hi)
        elif mode == "wrap":
            array = _pad_wrap(array, ax, lo, hi)
        else:
            array = _pad_mirror(array, ax, lo, hi, mode, kwargs.get("reflect_type", "even"))
    return array


def _pad_constant(array, pw, cv):
    aval = _aval(array)
    if isinstance(cv, (list, tuple)):  # nested per-axis (before, after) values, as JAX takes them
        cv = asarray(cv)
    cv = _convert_element_type(cv, aval.dtype, aval.weak_type)  # (as JAX: a weak array stays weak)
    if not _aval(cv).shape:
        return lax.pad(array, cv, [(int(lo), int(hi), 0) for lo, hi in pw])
    cvs = broadcast_to(cv, (aval.ndim, 2))  # per (axis, side) values, broadcast as NumPy does
    out = array
    for ax in range(aval.ndim):
        for side in (0, 1):
            cfg = [(0, 0, 0)] * aval.ndim
            cfg[ax] = (int(pw[ax, 0]), 0, 0) if side == 0 else (0, int(pw[ax, 1]), 0)
            out = lax.pad(out, lax.reshape(lax.slice(cvs, (ax, side), (ax + 1, side + 1)), ()), cfg)
    return out


def _cat(parts, ax):
    parts = [p for p in parts if _aval(p).shape[ax]]
    return concatenate(parts, ax) if len(parts) > 1 else parts[0]


def _pad_edge(x, ax, lo, hi):
    n = _aval(x).shape[ax]
    return _cat([repeat(lax.slice_in_dim(x, 0, 1, 1, ax), lo, ax), x,
                 repeat(lax.slice_in_dim(x, n - 1, n, 1, ax), hi, ax)], ax)


def _pad_wrap(x, ax, lo, hi):
    n = _aval(x).shape[ax]
    start = (-lo) % n  # where the padded axis begins in x tiled over and over
    stop = start + n + lo + hi
    tiled = concatenate([x] * -(-stop // n), ax)  # enough copies to reach `stop`
    return lax.slice_in_dim(tiled, start, stop, 1, ax)


def _pad_mirror(x, ax, lo, hi, mode, reflect_type):
    """"reflect" (mirror about the edge element) or "symmetric" (the edge repeated), one mirror
    image per step as NumPy does; "odd" reflects the values through the edge too (2 edge - v)."""
    if reflect_type not in ("even", "odd"):
        raise ValueError(f"pad: reflect_type must be 'even' or 'odd', got {reflect_type!r}")
    if mode == "reflect" and _aval(x).shape[ax] == 1:
        return _pad_edge(x, ax, lo, hi)  # nothing to reflect about (NumPy: edge)
    skip = 1 if mode == "reflect" else 0
    while lo or hi:
        n = _aval(x).shape[ax]
        k_lo, k_hi = min(lo, n - skip), min(hi, n - skip)
        left = flip(lax.slice_in_dim(x, skip, skip + k_lo, 1, ax), ax)
        right = flip(lax.slice_in_dim(x, n - skip - k_hi, n - skip, 1, ax), ax)
        if reflect_type == "odd":
            left = _odd(lax.slice_in_dim(x, 0, 1, 1, ax), left)
            right = _odd(lax.slice_in_dim(x, n - 1, n, 1, ax), right)
        x = _cat([left, x, right], ax)
        lo, hi = lo - k_lo, hi - k_hi
    return x


def _odd(edge, mirrored):
    """2 edge - mirrored, in the array's dtype."""
    out = ufuncs.subtract(ufuncs.multiply(2, edge), mirrored)
    return _convert_element_type(out, _aval(edge).dtype, False)


def _pad_linear_ramp(array, pw, end_values):
    """Linear ramps from `end_values` to each edge (endpoint excluded), in the array's dtype."""
    ends = _pairs(end_values, _aval(array).ndim, "end_values", np.float64)
    for ax in range(_aval(array).ndim):
        lo, hi = (int(w) for w in pw[ax])
        n = _aval(array).shape[ax]
        dtype = _aval(array).dtype
        parts = [array]
        if lo:
            edge = lax.slice_in_dim(array, 0, 1, 1, ax)
            parts.insert(0, linspace(ends[ax, 0], edge, lo, endpoint=False, dtype=dtype, axis=ax)
                         .squeeze(ax + 1))
        if hi:
            edge = lax.slice_in_dim(array, n - 1, n, 1, ax)
            ramp = linspace(ends[ax, 1], edge, hi, endpoint=False, dtype=dtype, axis=ax).squeeze(ax + 1)
            parts.append(flip(ramp, ax))
        array = _cat(parts, ax)
    return array


def _stat(mode, x, ax):
    if mode == "maximum":
        return reductions.max(x, ax, keepdims=True)
    if mode == "minimum":
        return reductions.min(x, ax, keepdims=True)
    if mode == "median":
        raise NotImplementedError("pad: mode 'median' needs jnp.median (sorting), not built yet")
    else:
        out = reductions.mean(x, ax, keepdims=True)
    dtype = _aval(x).dtype
    if np.issubdtype(dtype, np.integer):  # NumPy rounds the statistic back to the array's type
        out = ufuncs.round(out)
    return _convert_element_type(out, dtype, False)


def _pad_stats(array, pw, mode, stat_length):
    """Each pad filled with a statistic of the `stat_length` elements next to it (all of the
    axis by default)."""
    nd = _aval(array).ndim
    lengths = None if stat_length is None else _pairs(stat_length, nd, "stat_length")
    if lengths is not None and np.any(lengths < 0):
        raise ValueError(f"pad: stat_length can't contain negative values, got {stat_length}")
    for ax in range(nd):
        lo, hi = (int(w) for w in pw[ax])
        if lo == hi == 0:
            continue
        n = _aval(array).shape[ax]
        s_lo, s_hi = (n, n) if lengths is None else (min(int(v), n) for v in lengths[ax])
        if n == 0 or (lo and s_lo == 0) or (hi and s_hi == 0):
            raise ValueError(f"Cannot calculate the statistic of an empty slice for mode {mode!r}")
        before = _stat(mode, lax.slice_in_dim(array, 0, s_lo, 1, ax), ax)
        after = _stat(mode, lax.slice_in_dim(array, n - s_hi, n, 1, ax), ax)
        array = _cat([repeat(before, lo, ax), array, repeat(after, hi, ax)], ax)
    return array


def _pad_func(array, pw, func, kwargs):
    """NumPy's callable mode: `func(vector, (before, after), axis, kwargs)` fills the pads of
    each vector along each axis of the zero-padded array (called once per vector, in Python)."""
    out = _pad_constant(array, pw, 0)
    for ax in range(_aval(out).ndim):
        moved = lax.transpose(out, [i for i in range(_aval(out).ndim) if i != ax] + [ax])
        shape = _aval(moved).shape
        rows = lax.reshape(moved, (int(np.prod(shape[:-1], dtype=np.int64)), shape[-1]))
        vectors = [asarray_value(func(lax.reshape(lax.slice_in_dim(rows, i, i + 1, 1, 0), (shape[-1],)),
                                      tuple(int(w) for w in pw[ax]), ax, kwargs))
                   for i in range(_aval(rows).shape[0])]
        filled = lax.reshape(concatenate(vectors, 0), shape) if vectors else moved
        out = lax.transpose(filled, list(np.argsort([i for i in range(_aval(out).ndim) if i != ax] + [ax])))
    return out

