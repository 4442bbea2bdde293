"""Miscellaneous pyjax.numpy functions: where, clip, diagonal, trace, tril/triu, and the
small helpers (shape, ndim, size, result_type, promote_types...)."""
from __future__ import annotations

import numpy as np

from pyjax._src import core, dtypes
from pyjax._src.lax import elementwise as lax
from pyjax._src.lax import shape_ops
from pyjax._src.numpy import ufuncs
from pyjax._src.numpy.util import asarray_value, check_arraylike


def where(condition, x=None, y=None, /, *, size=None, fill_value=None):
    """`x` where `condition` else `y`, elementwise with broadcasting (3-argument form)."""
    if x is None and y is None:
        raise NotImplementedError("jnp.where with one argument (nonzero) needs a static size "
                                  "and gather; it is not implemented yet")
    if x is None or y is None:
        raise ValueError("Either both or neither of the x and y arguments should be provided to jnp.where")
    check_arraylike("where", condition, x, y)
    return ufuncs.where_(asarray_value(condition), x, y)


def clip(arr=None, /, min=None, max=None, *, a=None, a_min=None, a_max=None):
    """Clip values to `[min, max]` (either bound may be None)."""
    arr = a if arr is None else arr
    min = a_min if min is None else min
    max = a_max if max is None else max
    check_arraylike("clip", arr)
    out = asarray_value(arr)
    if min is not None:
        out = ufuncs.maximum(min, out)
    if max is not None:
        out = ufuncs.minimum(max, out)
    return out


def diagonal(a, offset=0, axis1=0, axis2=1):
    """The diagonal of `a` over (axis1, axis2), moved to the last axis."""
    from pyjax._src.numpy.shape import moveaxis
    from pyjax._src.numpy.reductions import sum
    a = asarray_value(a)
    aval = core.get_aval(a)
    a = moveaxis(a, (axis1, axis2), (-2, -1))
    n, m = core.get_aval(a).shape[-2:]
    length = max(0, min(n, m - offset) if offset >= 0 else min(n + offset, m))
    # mask off everything but the diagonal and sum each row (no gather needed); the rows that
    # hold a diagonal element are contiguous
    sel = where(np.eye(n, m, offset, dtype=bool), a, np.zeros((), aval.dtype))
    rows = sum(sel, axis=-1, dtype=aval.dtype)
    start = min(max(0, -offset), n)
    return shape_ops.slice_in_dim(rows, start, start + length, 1, -1)


def trace(a, offset=0, axis1=0, axis2=1, dtype=None, out=None):
    from pyjax._src.numpy.reductions import sum
    return sum(diagonal(a, offset, axis1, axis2), axis=-1, dtype=dtype)


def tril(m, k=0):
    m = asarray_value(m)
    n, mm = core.get_aval(m).shape[-2:]
    return where(np.tri(n, mm, k, dtype=bool), m, np.zeros((), core.get_aval(m).dtype))


def triu(m, k=0):
    m = asarray_value(m)
    n, mm = core.get_aval(m).shape[-2:]
    return where(np.tri(n, mm, k - 1, dtype=bool), np.zeros((), core.get_aval(m).dtype), m)


def shape(a):
    return core.get_aval(asarray_value(a)).shape if not hasattr(a, "shape") else tuple(a.shape)


def ndim(a):
    return len(shape(a))


def size(a, axis=None):
    s = shape(a)
    return int(np.prod(s, dtype=np.int64)) if axis is None else s[axis]


def result_type(*args):
    return dtypes.result_type(*args)


def promote_types(a, b):
    return dtypes.promote_types(a, b)


def isscalar(element):
    if isinstance(element, (np.generic, bool, int, float, complex)):
        return True
    if isinstance(element, (core.Tracer,)) or type(element).__name__ == "Array":
        return core.get_aval(element).ndim == 0
    return False


def iscomplexobj(x):
    return dtypes.issubdtype(core.get_aval(asarray_value(x)).dtype, np.complexfloating)


def isrealobj(x):
    return not iscomplexobj(x)


def allclose(a, b, rtol=1e-05, atol=1e-08, equal_nan=False):
    from pyjax._src.numpy.reductions import all
    return all(isclose(a, b, rtol, atol, equal_nan))


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
    from pyjax._src.numpy.reductions import all
    if shape(a1) != shape(a2):
        return asarray_value(False)
    eq = ufuncs.equal(a1, a2)
    if equal_nan:
        eq = ufuncs.logical_or(eq, ufuncs.logical_and(ufuncs.isnan(a1), ufuncs.isnan(a2)))
    return all(eq)


def nonzero(a, *, size=None, fill_value=None):
    raise NotImplementedError("jnp.nonzero needs gather/scatter (a later issue)")


del lax
