"""Array creation: array/asarray, zeros/ones/full/empty and their *_like, arange, linspace,
logspace, eye, identity."""
from __future__ import annotations

import operator

import numpy as np

from pyjax._src import core, dtypes
from pyjax._src.array import Array, ArrayImpl
from pyjax._src.lax import elementwise as lax
from pyjax._src.lax import helpers as lax_helpers
from pyjax._src.lax import shape_ops
from pyjax._src.numpy import ufuncs
from pyjax._src.numpy.shape import concatenate, stack
from pyjax._src.numpy.util import (asarray_value, broadcast_to, check_arraylike, is_arraylike,
                                   shape_tuple, static_int)


def _user_dtype(dtype, fun_name):
    if dtype is None:
        return None
    return dtypes.check_and_canonicalize_user_dtype(dtype, fun_name)


def _leaves_are_scalars(obj):
    return isinstance(obj, (list, tuple)) and all(
        isinstance(o, (bool, int, float, complex, np.generic)) for o in obj)


def array(object, dtype=None, copy=True, order="K", ndmin=0, *, device=None):
    """Create an Array from an array-like (NumPy array, Python scalar, nested lists, Arrays).

    Example:
        >>> jnp.array([[1, 2], [3, 4.0]])
        Array([[1., 2.], [3., 4.]], dtype=float32)
    """
    dt = _user_dtype(dtype, "array")
    if isinstance(object, (Array, core.Tracer)):
        out = object if dt is None else lax._convert_element_type(object, dt, False)
        if copy and out is object and type(object) is ArrayImpl:
            out = shape_ops.copy(object)  # a new buffer: donating one must not delete the other
    elif hasattr(object, "__jax_array__"):
        return array(object.__jax_array__(), dtype, copy, order, ndmin)
    elif isinstance(object, (list, tuple)) and not _leaves_are_scalars(object) and _contains_traced(object):
        out = _stack_elements([array(o, dt) for o in object])
        if core.get_aval(out).weak_type:  # a sequence is never weakly typed, as in JAX
            out = lax._convert_element_type(out, core.get_aval(out).dtype, False)
    else:
        out = _from_host(object, dt)
    if operator.index(ndmin) > core.get_aval(out).ndim:
        out = shape_ops.broadcast_to_rank(out, ndmin)
    return out


def _stack_elements(elems):
    shapes = [core.get_aval(e).shape for e in elems]
    if len(set(shapes)) > 1:  # TypeError, as JAX's concatenation of the elements raises
        raise TypeError(f"array: a nested sequence of arrays must have elements of one shape, got "
                        f"shapes {', '.join(map(str, shapes))}")
    return stack(elems)


def _contains_traced(obj):
    if isinstance(obj, (Array, core.Tracer)):
        return True
    if isinstance(obj, (list, tuple)):
        return any(_contains_traced(o) for o in obj)
    return False


def _from_host(obj, dt):
    """A host value as an Array. Its dtype is inferred as JAX does (Python scalars weak, lists by
    JAX's promotion rules); NumPy's conversion to that dtype raises OverflowError for Python ints
    out of its range and ValueError for ragged lists, as in JAX."""
    weak = type(obj) in (int, float, complex) and dt is None
    if isinstance(obj, (list, tuple)) or type(obj) in (bool, int, float, complex) or obj is None:
        leaves = _flatten_nested(obj) if isinstance(obj, (list, tuple)) else [obj]
        if any(leaf is None for leaf in leaves):
            raise ValueError("array: None is not a valid value for jnp.array")
        if not all(isinstance(leaf, (bool, int, float, complex, np.generic, np.ndarray)) for leaf in leaves):
            v = np.asarray(obj)  # strings and other objects: refused below by their dtype
            _check_numeric(obj, v)
        if dt is None:
            dt = dtypes.result_type(*leaves) if leaves else dtypes.default_float_dtype()
        v = np.asarray(obj, dtype=dt)
    else:
        v = np.asarray(obj)
        if dt is None or v.dtype.kind not in "US":  # as NumPy, jnp.float32("1.5") parses the string
            _check_numeric(obj, v)
        target = dt if dt is not None else dtypes.canonicalize_dtype(v.dtype)
        v = v.astype(target) if v.dtype != target else v
    _check_numeric(obj, v)
    if (v is obj or not v.flags.owndata) and (v.flags.writeable or not v.flags.owndata):
        v = np.array(v, copy=True)  # never alias (or freeze) a NumPy array the caller can write
    v.setflags(write=False)
    return Array.from_host(v, weak)


def _check_numeric(obj, v):
    if v.dtype.kind not in "biufc" and not dtypes.issubdtype(v.dtype, np.number):
        raise TypeError(f"array: {obj!r:.60} of type {type(obj).__name__} has NumPy dtype {v.dtype}, "
                        f"which is not a valid JAX dtype: only numbers, booleans and nested lists "
                        f"of them are accepted")


def _flatten_nested(obj):
    out = []
    for o in obj:
        if isinstance(o, (list, tuple)):
            out += _flatten_nested(o)
        else:
            out.append(o)
    return out


def asarray(a, dtype=None, order=None, *, copy=None, device=None):
    """Like `array`, without copying when `a` is already an Array of the requested dtype."""
    if isinstance(a, (Array, core.Tracer)) and dtype is None:
        return a
    return array(a, dtype=dtype, copy=bool(copy))


def full(shape, fill_value, dtype=None, *, device=None):
    """An array of `shape` filled with `fill_value`."""
    shape = shape_tuple(shape, "full")
    dt = _user_dtype(dtype, "full")
    if isinstance(fill_value, (Array, core.Tracer)) or np.ndim(fill_value) > 0:
        fill = asarray_value(fill_value) if dt is None else lax._convert_element_type(fill_value, dt, False)
        return broadcast_to(fill, shape)
    weak = dtype is None and type(fill_value) in (int, float, complex)
    if dt is None:
        fill = _from_host(fill_value, None)  # a Python int out of the default int's range: OverflowError
    else:
        # NB: as in JAX, an explicit dtype converts the value as a cast does, so
        # `full(n, -1, dtype=uint32)` is all ones (jnp.array(-1, dtype=uint32) is an OverflowError)
        fill = lax._convert_element_type(fill_value, dt, False)
    if 0 in shape or len(shape) == 0:
        v = np.full(shape, np.asarray(fill), core.get_aval(fill).dtype)
        v.setflags(write=False)
        return Array.from_host(v, weak)
    return shape_ops.broadcast_in_dim(fill, shape, ())


def zeros(shape, dtype=None, *, device=None):
    return full(shape, 0, dtypes.default_float_dtype() if dtype is None else dtype)


def ones(shape, dtype=None, *, device=None):
    return full(shape, 1, dtypes.default_float_dtype() if dtype is None else dtype)


def empty(shape, dtype=None, *, device=None):
    return zeros(shape, dtype)


def _like(fun_name, a, dtype, shape):
    if not is_arraylike(a) and hasattr(a, "shape") and hasattr(a, "dtype"):
        # duck typing, as JAX: a ShapeDtypeStruct (or anything with .shape and .dtype)
        aval = core.ShapedArray(tuple(a.shape), dtypes.canonicalize_dtype(np.dtype(a.dtype)),
                                bool(getattr(a, "weak_type", False)))
    else:
        check_arraylike(fun_name, a)
        aval = core.get_aval(asarray_value(a))
    return (aval.shape if shape is None else shape), (aval.dtype if dtype is None else dtype), aval


def full_like(a, fill_value, dtype=None, shape=None, *, device=None):
    return _full_like("full_like", a, fill_value, dtype, shape)


def _full_like(fun_name, a, fill_value, dtype, shape):
    shape, dt, aval = _like(fun_name, a, dtype, shape)
    if dtype is None and hasattr(a, "aval"):  # as JAX: a 64-bit array's own type, even without x64
        return lax_helpers.full_like(a, fill_value, shape=shape)
    out = full(shape, fill_value, dt)
    if dtype is None and aval.weak_type:
        out = lax._convert_element_type(out, core.get_aval(out).dtype, True)
    return lax_helpers.vary_like(out, a)


def zeros_like(a, dtype=None, shape=None, *, device=None):
    return _full_like("zeros_like", a, 0, dtype, shape)


def ones_like(a, dtype=None, shape=None, *, device=None):
    return _full_like("ones_like", a, 1, dtype, shape)


def empty_like(a, dtype=None, shape=None, *, device=None):
    return _full_like("empty_like", a, 0, dtype, shape)


def arange(start, stop=None, step=None, dtype=None, *, device=None):
    """Evenly spaced values in `[start, stop)`; the bounds must be concrete.

    Example:
        >>> jnp.arange(3.0)
        Array([0., 1., 2.], dtype=float32)
    """
    names = ("start", "stop", "step") if stop is not None else ("stop", "start", "step")  # arange(n)
    vals = [core.concrete_or_error(v, f"jnp.arange argument '{name}'")
            if isinstance(v, (core.Tracer, Array)) else v
            for name, v in zip(names, (start, stop, step))]
    start, stop, step = vals
    if start is None:
        raise TypeError("arange: start must be a real number, got None")
    for name, v in zip(("start", "stop", "step"), vals):
        if v is not None and np.iscomplexobj(v):
            raise ValueError(f"arange: complex {name}={v!r} is not supported (as in JAX 0.10)")
    dt = _user_dtype(dtype, "arange")
    if dt is None:
        dt = dtypes.result_type(*[v for v in (start, stop, step) if v is not None])
    if stop is None and step is None and type(start) in core.symbolic_dim_types:  # (export)
        return shape_ops.iota(dt, start)
    if stop is None and step is None and dt is not None and np.issubdtype(dt, np.integer):
        return iota_like(dt, int(np.ceil(start)) if not isinstance(start, (int, np.integer)) else int(start))
    v = np.arange(start, stop, step).astype(dt) if stop is not None or step is not None else np.arange(start).astype(dt)
    v.setflags(write=False)
    return Array.from_host(v)


def iota_like(dt, n):
    n = max(n, 0)
    v = np.arange(n, dtype=dt)
    v.setflags(write=False)
    return Array.from_host(v)


def linspace(start, stop, num=50, endpoint=True, retstep=False, dtype=None, axis=0, *, device=None):
    """`num` evenly spaced samples from `start` to `stop` (inclusive unless endpoint=False).

    As JAX: sample i is `start * (1 - i/div) + stop * (i/div)`, which lands on both endpoints
    exactly; integer dtypes take the floor.
    """
    num = static_int("linspace", "num", num)
    if num < 0:
        raise ValueError(f"linspace: number of samples, {num}, must be non-negative.")
    check_arraylike("linspace", start, stop)
    dt = _user_dtype(dtype, "linspace") or dtypes.to_inexact_dtype(dtypes.result_type(start, stop))
    comp_dt = dtypes.to_inexact_dtype(dt)
    start, stop = (lax._convert_element_type(v, comp_dt, False) for v in (start, stop))
    bshape = np.broadcast_shapes(core.get_aval(start).shape, core.get_aval(stop).shape)
    start, stop = broadcast_to(start, bshape), broadcast_to(stop, bshape)
    axis = axis + len(bshape) + 1 if axis < 0 else axis
    div = (num - 1) if endpoint else num
    if num > 1:
        delta = lax.div(lax.sub(stop, start), lax._convert_element_type(div, comp_dt, False))
        iota_shape = [1] * (len(bshape) + 1)
        iota_shape[axis] = div
        real_dt = dtypes.finfo(comp_dt).dtype
        step = lax.div(iota_like(real_dt, div), lax._convert_element_type(div, real_dt, False))
        step = lax._convert_element_type(shape_ops.reshape(step, iota_shape), comp_dt, False)
        s, e = shape_ops.expand_dims(start, (axis,)), shape_ops.expand_dims(stop, (axis,))
        out = ufuncs.add(ufuncs.multiply(s, ufuncs.subtract(1, step)), ufuncs.multiply(e, step))
        if endpoint:
            out = concatenate([out, e], axis)
    elif num == 1:
        delta = lax._convert_element_type(np.nan if endpoint else lax.sub(stop, start), comp_dt, False)
        out = shape_ops.expand_dims(start, (axis,))
    else:
        delta = lax._convert_element_type(np.nan, comp_dt, False)
        shape = list(bshape)
        shape.insert(axis, 0)
        out = full(shape, 0, comp_dt)
    if dtypes.issubdtype(dt, np.integer):
        out = ufuncs.floor(out)
    out = lax._convert_element_type(out, dt, False)
    return (out, delta) if retstep else out


def logspace(start, stop, num=50, endpoint=True, base=10.0, dtype=None, axis=0):
    lin = linspace(start, stop, num, endpoint=endpoint, axis=axis)
    out = ufuncs.power(base, lin)
    return out if dtype is None else out.astype(dtype)


def tri_mask(n, m, k, diagonal_only=False):
    """bool[n, m]: True where column <= row + k (== with `diagonal_only`), computed from iotas,
    so `n` and `m` may be symbolic dimensions (export)."""
    rows = shape_ops.broadcasted_iota(np.int32, (n, m), 0)
    cols = shape_ops.broadcasted_iota(np.int32, (n, m), 1)
    rows = lax.add(rows, np.int32(k))
    return lax.eq(rows, cols) if diagonal_only else lax.ge(rows, cols)


def eye(N, M=None, k=0, dtype=None, *, device=None):
    """A 2-D array with ones on the k-th diagonal."""
    if type(N) in core.symbolic_dim_types or type(M) in core.symbolic_dim_types:  # (export)
        dt = _user_dtype(dtype, "eye") or dtypes.default_float_dtype()
        return lax._convert_element_type(tri_mask(N, N if M is None else M, operator.index(k), True), dt)
    N = static_int("eye", "N", N)
    M = N if M is None else static_int("eye", "M", M)
    if N < 0 or M < 0:
        raise ValueError(f"eye: negative dimensions are not allowed, got N={N} and M={M}")
    if not hasattr(k, "__index__"):
        raise ValueError(f"eye: k must be a scalar integer, got {k!r}")
    dt = _user_dtype(dtype, "eye") or dtypes.default_float_dtype()
    v = np.eye(N, M, int(k), dtype=dt)
    v.setflags(write=False)
    return Array.from_host(v)


def identity(n, dtype=None):
    return eye(n, dtype=dtype)
