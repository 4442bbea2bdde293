"""Miscellaneous pyjax.numpy functions: where, clip, diagonal, trace, tril/triu, and the
small helpers (shape, ndim, size, result_type, promote_types...)."""
from __future__ import annotations

import operator

import numpy as np

from pyjax._src import core, dtypes
from pyjax._src.array import Array
from pyjax._src.lax import elementwise as lax
from pyjax._src.lax import shape_ops
from pyjax._src.numpy import reductions as jred
from pyjax._src.numpy import ufuncs
from pyjax._src.numpy.creation import asarray, tri_mask
from pyjax._src.numpy.index_tricks import nonzero
from pyjax._src.numpy.shape import moveaxis
from pyjax._src.lax.utils import canonicalize_axes, canonicalize_axis
from pyjax._src.numpy.util import asarray_value, broadcast_shapes, check_arraylike


def where(condition, x=None, y=None, /, *, size=None, fill_value=None):
    """`x` where `condition` else `y`, elementwise with broadcasting; with `condition` alone,
    `nonzero(condition, size=size, fill_value=fill_value)`."""
    if x is None and y is None:
        return nonzero(condition, size=size, fill_value=fill_value)
    check_arraylike("where", condition, x, y)  # one of x, y given: None is refused here, as in JAX
    condition = asarray_value(condition)
    broadcast_shapes(*(shape(v) for v in (condition, x, y)))  # ValueError, as JAX's jnp.where
    return ufuncs.where_(condition, x, y)


def clip(arr=None, /, min=None, max=None):
    """Clip values to `[min, max]` (either bound may be None)."""
    check_arraylike("clip", arr)
    if any(t is not None and dtypes.issubdtype(dtypes.dtype_of(t), np.complexfloating)
           for t in (arr, min, max)):
        raise ValueError(
            "Clip received a complex value either through the input or the min/max keywords. "
            "Complex values have no ordering and cannot be clipped. Please convert to a real "
            "value or array by taking the real or imaginary components via jax.numpy.real/imag "
            "respectively.")
    out = asarray_value(arr)
    if min is not None:
        out = ufuncs.maximum(min, out)
    if max is not None:
        out = ufuncs.minimum(max, out)
    return out


def diagonal(a, offset=0, axis1=0, axis2=1):
    """The diagonal of `a` over (axis1, axis2), moved to the last axis."""
    check_arraylike("diagonal", a)
    a = asarray_value(a)
    aval = core.get_aval(a)
    if aval.ndim < 2:
        raise ValueError(f"diagonal: a must have at least two dimensions, got shape {aval.shape}")
    offset = operator.index(offset)
    a = moveaxis(a, (axis1, axis2), (-2, -1))
    n, m = core.get_aval(a).shape[-2:]
    length = max(0, min(n, m - offset) if offset >= 0 else min(n + offset, m))
    # mask off everything but the diagonal and sum each row (no gather needed); the rows that
    # hold a diagonal element are contiguous
    sel = where(np.eye(n, m, offset, dtype=bool), a, np.zeros((), aval.dtype))
    rows = jred.sum(sel, axis=-1, dtype=aval.dtype)
    start = min(max(0, -offset), n)
    return shape_ops.slice_in_dim(rows, start, start + length, 1, -1)


def trace(a, offset=0, axis1=0, axis2=1, dtype=None, out=None):
    if out is not None:
        raise NotImplementedError("The 'out' argument to jnp.trace is not supported (Arrays are immutable).")
    check_arraylike("trace", a)
    a = asarray_value(a)
    if core.get_aval(a).ndim < 2:  # JAX reports axis1/axis2 out of bounds
        canonicalize_axis(max(axis1, axis2), core.get_aval(a).ndim, "axis", "trace")
    return jred.sum(diagonal(a, offset, axis1, axis2), axis=-1, dtype=dtype)


def _triangle(fun_name, m, k):
    check_arraylike(fun_name, m)
    m = asarray_value(m)
    if core.get_aval(m).ndim < 2:
        raise ValueError(f"{fun_name}: m must be at least 2D, got shape {core.get_aval(m).shape}")
    n, mm = core.get_aval(m).shape[-2:]
    if type(n) in core.symbolic_dim_types or type(mm) in core.symbolic_dim_types:  # (export)
        return m, tri_mask(n, mm, operator.index(k)), np.zeros((), core.get_aval(m).dtype)
    return m, np.tri(n, mm, operator.index(k), dtype=bool), np.zeros((), core.get_aval(m).dtype)


def tril(m, k=0):
    m, lower, zero = _triangle("tril", m, k)
    return where(lower, m, zero)


def triu(m, k=0):
    m, below, zero = _triangle("triu", m, operator.index(k) - 1)
    return where(below, zero, m)


def shape(a):
    """The shape of an array (or of a NumPy array-like, which JAX accepts with a warning)."""
    return tuple(a.shape) if hasattr(a, "shape") else np.shape(a)


def ndim(a):
    return len(shape(a))


def size(a, axis=None):
    s = shape(a)
    if axis is None:
        return int(np.prod(s, dtype=np.int64))
    axes = axis if isinstance(axis, (tuple, list)) else (axis,)
    return int(np.prod([s[i] for i in canonicalize_axes(axes, len(s), "axis", "size")], dtype=np.int64))


def result_type(*args):
    return dtypes.result_type(*args)


def promote_types(a, b):
    return dtypes.promote_types(a, b)


def isscalar(element):
    if isinstance(element, (np.generic, bool, int, float, complex)):
        return True
    if isinstance(element, Array):
        return core.get_aval(element).ndim == 0
    return False


def iscomplexobj(x):
    """True for complex values; False for anything that is not an array or number (None), as
    JAX and NumPy."""
    if x is None:
        return False
    dt = getattr(x, "dtype", None)
    if dt is None:
        dt = core.get_aval(asarray_value(x)).dtype
    return dtypes.issubdtype(dt, np.complexfloating)


def isrealobj(x):
    return not iscomplexobj(x)


def allclose(a, b, rtol=1e-05, atol=1e-08, equal_nan=False):
    return jred.all(isclose(a, b, rtol, atol, equal_nan))


def isclose(a, b, rtol=1e-05, atol=1e-08, equal_nan=False):
    a, b = ufuncs.promote_args_inexact("isclose", a, b)
    out = ufuncs.less_equal(ufuncs.absolute(ufuncs.subtract(a, b)),
                            ufuncs.add(atol, ufuncs.multiply(rtol, ufuncs.absolute(b))))
    # an infinity is close only to the same infinity (|inf - -inf| <= inf above), NaN to nothing
    finite = ufuncs.logical_not(ufuncs.logical_or(ufuncs.isinf(a), ufuncs.isinf(b)))
    out = ufuncs.logical_or(ufuncs.logical_and(out, finite), ufuncs.equal(a, b))
    out = ufuncs.logical_and(out, ufuncs.logical_not(ufuncs.logical_or(ufuncs.isnan(a), ufuncs.isnan(b))))
    if equal_nan:
        out = ufuncs.logical_or(out, ufuncs.logical_and(ufuncs.isnan(a), ufuncs.isnan(b)))
    return out


def array_equal(a1, a2, equal_nan=False):
    a1, a2 = asarray(a1), asarray(a2)  # as JAX: lists are accepted here
    if shape(a1) != shape(a2):
        return asarray_value(False)
    eq = a1 == a2  # (as JAX: the operator, so key arrays compare their keys)
    if equal_nan:
        eq = ufuncs.logical_or(eq, ufuncs.logical_and(ufuncs.isnan(a1), ufuncs.isnan(a2)))
    return jred.all(eq)


del lax
