"""`jnp.ufunc`: NumPy's universal-function objects, as JAX 0.10.2 exposes them.

A ufunc is an elementwise function with attributes (`nin`, `nout`, `nargs`, `identity`) and the
methods `reduce`, `accumulate`, `outer`, `at` and `reduceat`. In JAX 0.10.2 fourteen jax.numpy
functions are ufunc objects (`add`, `multiply`, `subtract`, `maximum`, `minimum`, `negative`, the
bitwise and logical ands/ors/xors, `logaddexp`, `logaddexp2`); they are built here around the
plain functions of `ufuncs.py`, with the reductions JAX gives them (`jnp.add.reduce` is
`jnp.sum`). Any other binary ufunc (from `frompyfunc` or the constructor) reduces, accumulates
and applies `at` through loops (`fori_loop`, `scan`), and calls its scalar function vectorized.

Calling `jnp.add(x, y)` costs one extra Python call over the plain function, and Array
operators (`x + y`) use the plain functions directly.
"""
from __future__ import annotations

import functools
import math
import operator

import numpy as np

from pyjax._src import core
from pyjax._src.array import Array
from pyjax._src.interpreters import batching
from pyjax._src.interpreters import partial_eval as pe
from pyjax._src.lax import elementwise as lax
from pyjax._src.lax import reductions as lax_red
from pyjax._src.lax import shape_ops
from pyjax._src.lax.control_flow.scan import fori_loop, scan
from pyjax._src.lax.dynamic_slicing import dynamic_index_in_dim, dynamic_slice_in_dim
from pyjax._src.lax.utils import canonicalize_axis, kind
from pyjax._src.numpy import reductions, ufuncs
from pyjax._src.numpy.shape import moveaxis
from pyjax._src.numpy.util import (asarray_value, broadcast_shapes, broadcast_to,
                                   canonicalize_axis_arg, check_arraylike, promote_args_inexact)

# The methods run jitted, as JAX's (`jit(static_argnames=['self', 'axis', ...])`): an eager call's
# loop then compiles once per signature, not on every call. jit sits in the api layer above; it
# fills this slot when it is imported (pyjax._src.jitted_numpy), before any ufunc is called.
method_jit: dict = {}


def _jitted(**jit_kwargs):
    """Run the decorated method under `method_jit["jit"](method, **jit_kwargs)` (built once)."""
    def wrap(fun):
        jitted = []

        @functools.wraps(fun)
        def method(*args, **kwargs):
            if not jitted:
                jitted.append(method_jit["jit"](fun, **jit_kwargs))
            return jitted[0](*args, **kwargs)
        return method
    return wrap


_AT_INPLACE = ("Because JAX arrays are immutable, jnp.ufunc.at() cannot operate in place like "
               "np.ufunc.at(). Pass inplace=False and use the result: "
               "arr = jnp.add.at(arr, ind, val, inplace=False)")


class ufunc:
    """A universal function: elementwise over broadcast arrays, with reduce, accumulate, outer,
    at and reduceat methods (JAX's `jax.numpy.ufunc`).

    `func` computes the function; `call`, `reduce`, `accumulate`, `at` and `reduceat`, when
    given, implement those operations (otherwise they are derived from `func`).

    Example:
        >>> jnp.add.reduce(jnp.arange(5)), jnp.add.outer(jnp.arange(2), jnp.arange(3)).shape
        (Array(10, dtype=int32), (2, 3))
    """

    def __init__(self, func, /, nin, nout, *, name=None, nargs=None, identity=None, call=None,
                 reduce=None, accumulate=None, at=None, reduceat=None):
        self.__doc__ = func.__doc__
        self.__name__ = name or func.__name__
        # read-only through properties: a ufunc is hashable and may be a static jit argument
        self._static = (func, operator.index(nin), operator.index(nout),
                        operator.index(nargs or nin), identity)
        self._call = call or self._call_vectorized
        self._impls = dict(reduce=reduce, accumulate=accumulate, at=at, reduceat=reduceat)

    _func = property(lambda self: self._static[0])
    nin = property(lambda self: self._static[1])
    nout = property(lambda self: self._static[2])
    nargs = property(lambda self: self._static[3])
    identity = property(lambda self: self._static[4])

    def __hash__(self):
        # the implementations (call, reduce, ...) are details, not part of the identity (as JAX)
        return hash((self._func, self.__name__, self.identity, self.nin, self.nout, self.nargs))

    def __eq__(self, other):
        return isinstance(other, ufunc) and (
            (self._func, self.__name__, self.identity, self.nin, self.nout, self.nargs) ==
            (other._func, other.__name__, other.identity, other.nin, other.nout, other.nargs))

    def __repr__(self):
        return f"<jnp.ufunc '{self.__name__}'>"

    def __call__(self, *args, out=None, where=None):
        if out is None and where is None:
            return self._call(*args)  # the plain function: one Python call of overhead
        raise NotImplementedError(f"{'out' if out is not None else 'where'} argument of {self}")

    @_jitted(static_argnames=["self"])
    def _call_vectorized(self, *args):
        check_arraylike(self.__name__, *args)
        return _vectorize(self._func, self.nout, args)

    def _require_binary(self, method):
        if self.nin != 2:
            raise ValueError(f"{method} only supported for binary ufuncs")
        if self.nout != 1:
            raise ValueError(f"{method} only supported for functions returning a single value")

    # -- reduce --------------------------------------------------------------------------------

    @_jitted(static_argnames=["self", "axis", "dtype", "out", "keepdims"])
    def reduce(self, a, axis=0, dtype=None, out=None, keepdims=False, initial=None, where=None):
        """Reduce `a` along `axis` by applying the function pairwise (`jnp.add.reduce` is
        `jnp.sum` along axis 0)."""
        check_arraylike(f"{self.__name__}.reduce", a)
        self._require_binary("reduce")
        _static_arg(out, "out")  # JAX's reduce is jitted with `out` static
        if out is not None:
            raise NotImplementedError(f"out argument of {self.__name__}.reduce()")
        if initial is not None:
            check_arraylike(f"{self.__name__}.reduce", initial)
        if where is not None:
            check_arraylike(f"{self.__name__}.reduce", where)
            if self.identity is None and initial is None:
                raise ValueError(f"reduction operation {self.__name__!r} does not have an identity, "
                                 f"so to use a where mask one has to specify 'initial'.")
            if core.get_aval(where).dtype != np.bool_:
                raise ValueError(f"where argument must have dtype=bool; got dtype={core.get_aval(where).dtype}")
        reduce = self._impls["reduce"] or self._reduce_via_loop
        return reduce(a, axis=axis, dtype=dtype, keepdims=keepdims, initial=initial, where=where)

    def _reduce_via_loop(self, a, axis=0, dtype=None, keepdims=False, initial=None, where=None):
        arr = asarray_value(a)
        initial = self.identity if initial is None else initial
        dtype = _result_dtype(self._func, arr, arr) if dtype is None else dtype
        if where is not None:
            where = broadcast_to(where, core.get_aval(arr).shape)
        shape = core.get_aval(arr).shape
        if isinstance(axis, tuple):
            raise NotImplementedError("tuple of axes")
        if axis is None:
            final_shape = (1,) * len(shape) if keepdims else ()
            arr = shape_ops.reshape(arr, (math.prod(shape),))
            where = None if where is None else shape_ops.reshape(where, (math.prod(shape),))
            axis = 0
        else:
            axis = canonicalize_axis(axis, len(shape))
            final_shape = shape[:axis] + ((1,) if keepdims else ()) + shape[axis + 1:]
        if axis != 0:
            arr = moveaxis(arr, axis, 0)
            where = None if where is None else moveaxis(where, axis, 0)
        n = core.get_aval(arr).shape[0]
        if n == 0:
            if initial is None:
                raise ValueError(f"zero-size array to reduction operation {self.__name__} which has no identity")
            return shape_ops.broadcast_in_dim(_astype(initial, dtype), final_shape, ())

        def body(i, val):
            new = self(val, _astype(arr[i], dtype))
            return new if where is None else ufuncs.where_(where[i], new, val)
        start, first = (1, arr[0]) if initial is None else (0, initial)
        first = broadcast_to(_astype(first, dtype), core.get_aval(arr).shape[1:])
        result = fori_loop(start, n, body, first)
        return shape_ops.reshape(result, final_shape) if keepdims else result

    # -- accumulate ----------------------------------------------------------------------------

    @_jitted(static_argnames=["self", "axis", "dtype"])
    def accumulate(self, a, axis=0, dtype=None, out=None):
        """The running reduction along `axis` (`jnp.add.accumulate` is `jnp.cumsum`)."""
        self._require_binary("accumulate")
        if out is not None:
            raise NotImplementedError(f"out argument of {self.__name__}.accumulate()")
        accumulate = self._impls["accumulate"] or self._accumulate_via_scan
        return accumulate(a, axis=axis, dtype=dtype)

    def _accumulate_via_scan(self, a, axis=0, dtype=None):
        check_arraylike(f"{self.__name__}.accumulate", a)
        arr = asarray_value(a)
        dtype = _result_dtype(self._func, arr, arr) if dtype is None else dtype
        if axis is None or isinstance(axis, tuple):
            raise ValueError("accumulate does not allow multiple axes")
        shape = core.get_aval(arr).shape
        axis = canonicalize_axis(axis, len(shape))
        if math.prod(shape) == 0:
            return shape_ops.broadcast_in_dim(np.zeros((), dtype), shape, ())
        arr = moveaxis(arr, axis, 0)

        def step(carry, _):
            i, x = carry
            y = ufuncs.where_(lax.eq(i, 0), _astype(arr[0], dtype), self(_astype(x, dtype), _astype(arr[i], dtype)))
            return (lax.add(i, 1), y), y
        _, result = scan(step, (np.int32(0), _astype(arr[0], dtype)), None, length=shape[axis])
        return moveaxis(result, 0, axis)

    # -- at --------------------------------------------------------------------------------------

    @_jitted(static_argnums=[0], static_argnames=["inplace"])
    def at(self, a, indices, b=None, /, *, inplace=True):
        """`a` with the function applied at `indices` (with `b` as second operand), repeated
        indices applying it repeatedly. JAX arrays are immutable, so `inplace=False` is required.

        Example:
            >>> jnp.add.at(jnp.zeros(3), jnp.array([0, 0, 2]), 1.0, inplace=False)
            Array([2., 0., 1.], dtype=float32)
        """
        if inplace:
            raise NotImplementedError(_AT_INPLACE)
        at = self._impls["at"] or self._at_via_scan
        return at(a, indices) if b is None else at(a, indices, b)

    def _at_via_scan(self, a, indices, *args):
        check_arraylike(f"{self.__name__}.at", a, *args)
        dtype = _result_dtype(self._func, a, *args)
        a = _astype(asarray_value(a), dtype)
        args = [_astype(asarray_value(x), dtype) for x in args]

        def apply(x, idx, *vals):
            return x.at[idx].set(self(x.at[idx].get(), *vals))
        return _at_each(a, indices, args, apply)

    # -- reduceat ----------------------------------------------------------------------------

    @_jitted(static_argnames=["self", "axis", "dtype"])
    def reduceat(self, a, indices, axis=0, dtype=None, out=None):
        """Reductions of `a` over the segments `indices[i]:indices[i + 1]` along `axis` (where
        `indices[i] >= indices[i + 1]`, just `a[indices[i]]`), as `numpy.ufunc.reduceat`."""
        self._require_binary("reduceat")
        if out is not None:
            raise NotImplementedError(f"out argument of {self.__name__}.reduceat()")
        reduceat = self._impls["reduceat"] or self._reduceat_via_loop
        return reduceat(a, indices, axis=axis, dtype=dtype)

    def _reduceat_via_loop(self, a, indices, axis=0, dtype=None):
        # NB: JAX 0.10.2 ignores `dtype` here (the result keeps a's dtype); so do we.
        check_arraylike(f"{self.__name__}.reduceat", a, indices)
        a, indices = asarray_value(a), asarray_value(indices)
        shape, ind_shape = core.get_aval(a).shape, core.get_aval(indices).shape
        if not shape:
            raise ValueError(f"reduceat: a must have 1 or more dimension, got a.shape={shape}")
        if len(ind_shape) != 1:
            raise ValueError(f"reduceat: indices must be one-dimensional, got indices.shape={ind_shape}")
        if axis is None or isinstance(axis, (tuple, list)):
            raise ValueError("reduceat requires a single integer axis.")
        axis = canonicalize_axis(axis, len(shape))
        out = _take(a, indices, axis)
        # segment i is (indices[i], indices[i + 1]) exclusive of its start (already in `out`)
        n = ind_shape[0]
        bounds = shape_ops.concatenate([lax.convert_element_type(indices, np.int32),
                                        np.full((1,), shape[axis], np.int32)], 0)
        bounds = shape_ops.reshape(bounds, tuple(n + 1 if d == axis else 1 for d in range(len(shape))))
        starts = shape_ops.slice_in_dim(bounds, 0, n, 1, axis)
        ends = shape_ops.slice_in_dim(bounds, 1, n + 1, 1, axis)

        def body(i, acc):
            inside = lax.bitwise_and(lax.gt(i, starts), lax.lt(i, ends))
            return ufuncs.where_(inside, self(acc, dynamic_slice_in_dim(a, i, 1, axis)), acc)
        return fori_loop(0, shape[axis], body, out)

    # -- outer -------------------------------------------------------------------------------

    @_jitted(static_argnums=[0])
    def outer(self, A, B, /):
        """The function on every pair of elements: shape `A.shape + B.shape`.

        Example:
            >>> jnp.multiply.outer(jnp.arange(1, 4), jnp.arange(1, 3))
            Array([[1, 2],
                   [2, 4],
                   [3, 6]], dtype=int32)
        """
        self._require_binary("outer")
        check_arraylike(f"{self.__name__}.outer", A, B)
        A, B = asarray_value(A), asarray_value(B)
        sa, sb = core.get_aval(A).shape, core.get_aval(B).shape
        # (every elementwise function broadcasts, so this is vmap(vmap(f)) of the raveled inputs)
        out = self(shape_ops.reshape(A, (math.prod(sa), 1)), shape_ops.reshape(B, (1, math.prod(sb))))
        return shape_ops.reshape(out, sa + sb)


def frompyfunc(func, /, nin, nout, *, identity=None):
    """A `jnp.ufunc` from a scalar function of `nin` arguments returning `nout` values.

    Example:
        >>> f = jnp.frompyfunc(lambda x, y: x * y + 1, 2, 1)
        >>> f.accumulate(jnp.arange(1.0, 4.0))
        Array([ 1.,  3., 10.], dtype=float32)
    """
    return ufunc(func, nin, nout, identity=identity)


# -- helpers ----------------------------------------------------------------------------------

def _static_arg(value, name):
    try:
        hash(value)
    except TypeError:
        raise ValueError(f"Non-hashable static arguments are not supported: {name} of type "
                         f"{type(value).__name__}") from None


def _astype(x, dtype):
    return lax._convert_element_type(x, np.dtype(dtype), False)


def _result_dtype(func, *args):
    """The dtype `func` gives on scalars of the dtypes of `args` (JAX: eval_shape on ones)."""
    avals = [core.get_aval(x).update(shape=()) for x in args]  # (weak types kept)
    closed, _ = pe.trace_to_jaxpr(lambda *xs: [func(*xs)], avals)
    return closed.out_avals[0].dtype


def _vectorize(func, nout, args):
    """`func` of scalars over the broadcast elements of `args` (batched, not looped)."""
    args = [asarray_value(x) for x in args]
    shape = broadcast_shapes(*(core.get_aval(x).shape for x in args))
    size = math.prod(shape)
    flat = [shape_ops.reshape(broadcast_to(x, shape), (size,)) for x in args]

    def scalar_fun(*xs):
        out = func(*xs)
        return list(out) if nout > 1 else [out]
    outs, dims = batching.batch_flat(scalar_fun, flat, [0] * len(flat), batching.AxisData(None, size))
    outs = [shape_ops.reshape(batching.bdim_at_front(o, d, size), shape) for o, d in zip(outs, dims)]
    return tuple(outs) if nout > 1 else outs[0]


def _take(a, indices, axis):
    """`a` at each of the (1-D, traced or not) `indices` along `axis`."""
    # NB: an out-of-bounds index clamps here; JAX's `take` (a gather, later issue) fills with NaN.
    size = core.get_aval(indices).shape[0]
    outs, dims = batching.batch_flat(
        lambda i: [dynamic_index_in_dim(a, i, axis, keepdims=False)], [indices], [0],
        batching.AxisData(None, size))
    return moveaxis(batching.bdim_at_front(outs[0], dims[0], size), 0, axis)


def _index_tuple(indices):
    if isinstance(indices, list):
        raise TypeError("Using a non-tuple sequence for multidimensional indexing is not allowed; "
                        "use a tuple of indices.")
    return indices if isinstance(indices, tuple) else (indices,)


def _at_each(a, indices, args, apply):
    """`apply(a, idx, *vals)` for each index of the broadcast array `indices` in turn (so
    repeated indices apply repeatedly); once with `indices` itself when they are all scalars."""
    indices = _index_tuple(indices)
    if not indices:
        return a
    shapes = [core.get_aval(i).shape if isinstance(i, (Array, core.Tracer)) else np.shape(i)
              for i in indices if not isinstance(i, slice) and i is not None and i is not Ellipsis]
    shape = broadcast_shapes(*shapes) if shapes else ()
    if not shape:
        return apply(a, indices, *args)
    n = math.prod(shape)
    if n == 0:
        return a
    if args:
        b = asarray_value(args[0])
        rest = core.get_aval(b).shape[len(shape):]
        args = [shape_ops.reshape(broadcast_to(b, shape + rest), (n,) + rest)]
    flat = [i if isinstance(i, slice) or i is None or i is Ellipsis
            else shape_ops.reshape(broadcast_to(asarray_value(i), shape), (n,)) for i in indices]

    def step(carry, _):
        k, x = carry
        idx = tuple(i if isinstance(i, slice) or i is None or i is Ellipsis else i[k] for i in flat)
        return (lax.add(k, 1), apply(x, idx, *(v[k] for v in args))), None
    (_, out), _ = scan(step, (np.int32(0), a), None, length=n)
    return out


# -- the reductions and `at`s of the built-in ufuncs ---------------------------------------------

def _scatter_at(method):
    """`x.at[indices].<method>(b)`: one scatter (dtype kept, repeated indices combined, as JAX's)."""
    def at(a, indices, b):
        check_arraylike(f"{method}.at", a, b)
        a = asarray_value(a)
        if core.get_aval(a).dtype == np.bool_ and method in ("add", "multiply"):
            # as JAX: bools add and multiply as int32 (then back to bool)
            b = lax.convert_element_type(lax.convert_element_type(b, np.bool_), np.int32)
            return lax.convert_element_type(at(lax.convert_element_type(a, np.int32), indices, b), np.bool_)
        return getattr(a.at[indices], method)(b)
    return at


def _minmax(reduce):
    def reducer(a, axis=None, dtype=None, keepdims=False, initial=None, where=None):
        a = asarray_value(a) if dtype is None else _astype(a, dtype)
        return reduce(a, axis=axis, keepdims=keepdims, initial=initial, where=where)
    return reducer


def _require_integer(name, a):
    a = asarray_value(a)
    if kind(core.get_aval(a).dtype) not in "biu":
        raise ValueError(f"{name} requires integer or boolean inputs, got {core.get_aval(a).dtype}")
    return a


def _bitwise_reducer(name, lax_reduce, identity, op):
    """bitwise and/or over axes (for bools, logical and/or), with JAX's where/initial."""
    def reducer(a, axis=None, dtype=None, keepdims=False, initial=None, where=None):
        a = _require_integer(name, a)
        if dtype is not None:
            a = _astype(a, dtype)
        shape = core.get_aval(a).shape
        axes = canonicalize_axis_arg(axis, len(shape))
        if where is not None:
            ident = np.asarray(identity).astype(core.get_aval(a).dtype)[()]
            a = ufuncs.where_(broadcast_to(where, shape), a, ident)
        out = lax_reduce(a, axes)
        if initial is not None:
            out = op(out, _astype(initial, core.get_aval(out).dtype))
        return _keepdims(out, shape, axes, keepdims)
    return reducer


def _logical_reducer(reduce, op):
    def reducer(a, axis=None, dtype=None, keepdims=False, initial=None, where=None):
        out = reduce(ufuncs._to_bool(a), axis=axis, keepdims=keepdims, where=where)
        if initial is not None:
            out = op(out, ufuncs._to_bool(initial))
        return out if dtype is None else _astype(out, dtype)
    return reducer


def _parity(a, axis=None, dtype=None, keepdims=False, initial=None, where=None):
    """xor over axes of booleans: whether an odd number are True."""
    count = reductions.sum(ufuncs._to_bool(a), axis=axis, dtype=np.int32, keepdims=keepdims, where=where)
    out = lax.ne(lax.rem(count, np.int32(2)), np.int32(0))
    if initial is not None:
        out = lax.bitwise_xor(out, ufuncs._to_bool(initial))
    return out if dtype is None else _astype(out, dtype)


def _bitwise_xor_reduce(a, axis=0, dtype=None, keepdims=False, initial=None, where=None):
    a = _require_integer("reduce_bitwise_xor", a)
    if core.get_aval(a).dtype == np.bool_:
        return _parity(a, axis, dtype, keepdims, initial, where)
    return bitwise_xor._reduce_via_loop(a, axis, dtype, keepdims, initial, where)


def _logsumexp(base2):
    """log(sum(exp(a))) (base 2 for logaddexp2), shifted by the max for stability (as JAX)."""
    def reducer(a, axis=None, dtype=None, keepdims=False, initial=None, where=None):
        check_arraylike("logsumexp", a)
        (a,) = promote_args_inexact("logsumexp", a)
        if base2:
            a = lax.mul(a, float(np.log(2)))
        shape = core.get_aval(a).shape
        axes = canonicalize_axis_arg(axis, len(shape))
        amax = reductions.max(a, axis=axes, keepdims=True, where=where, initial=-np.inf)
        amax = shape_ops.stop_gradient(ufuncs.where_(ufuncs.isfinite(amax), amax, 0.0))
        sumexp = reductions.sum(ufuncs.exp(lax.sub(a, amax)), axis=axes, keepdims=True, where=where)
        out = lax.add(ufuncs.log(sumexp), amax)
        if base2:
            out = lax.div(out, float(np.log(2)))
        if not keepdims:
            out = shape_ops.squeeze(out, axes)
        if initial is not None:
            out = (ufuncs.logaddexp2 if base2 else ufuncs.logaddexp)(initial, out)
        return out
    return reducer


def _keepdims(out, shape, axes, keepdims):
    if not keepdims:
        return out
    return shape_ops.reshape(out, tuple(1 if i in axes else d for i, d in enumerate(shape)))


# -- the ufunc objects of jax.numpy (JAX 0.10.2 has exactly these fourteen) -----------------------

add = ufunc(ufuncs.add, 2, 1, name="add", identity=0, call=ufuncs.add, reduce=reductions.sum,
            accumulate=reductions.cumsum, at=_scatter_at("add"))
multiply = ufunc(ufuncs.multiply, 2, 1, name="multiply", identity=1, call=ufuncs.multiply,
                 reduce=reductions.prod, accumulate=reductions.cumprod, at=_scatter_at("multiply"))
subtract = ufunc(ufuncs.subtract, 2, 1, name="subtract", call=ufuncs.subtract,
                 at=_scatter_at("subtract"))
maximum = ufunc(ufuncs.maximum, 2, 1, name="maximum", call=ufuncs.maximum,
                reduce=_minmax(reductions.max))
minimum = ufunc(ufuncs.minimum, 2, 1, name="minimum", call=ufuncs.minimum,
                reduce=_minmax(reductions.min))
negative = ufunc(ufuncs.negative, 1, 1, name="negative", call=ufuncs.negative)
bitwise_and = ufunc(ufuncs.bitwise_and, 2, 1, name="bitwise_and", identity=-1, call=ufuncs.bitwise_and,
                    reduce=_bitwise_reducer("reduce_bitwise_and", lax_red.reduce_and, -1, lax.bitwise_and))
bitwise_or = ufunc(ufuncs.bitwise_or, 2, 1, name="bitwise_or", identity=0, call=ufuncs.bitwise_or,
                   reduce=_bitwise_reducer("reduce_bitwise_or", lax_red.reduce_or, 0, lax.bitwise_or))
bitwise_xor = ufunc(ufuncs.bitwise_xor, 2, 1, name="bitwise_xor", identity=0, call=ufuncs.bitwise_xor,
                    reduce=_bitwise_xor_reduce)
logical_and = ufunc(ufuncs.logical_and, 2, 1, name="logical_and", identity=True, call=ufuncs.logical_and,
                    reduce=_logical_reducer(reductions.all, lax.bitwise_and))
logical_or = ufunc(ufuncs.logical_or, 2, 1, name="logical_or", identity=False, call=ufuncs.logical_or,
                   reduce=_logical_reducer(reductions.any, lax.bitwise_or))
logical_xor = ufunc(ufuncs.logical_xor, 2, 1, name="logical_xor", identity=False, call=ufuncs.logical_xor,
                    reduce=_parity)
logaddexp = ufunc(ufuncs.logaddexp, 2, 1, name="logaddexp", identity=-np.inf, call=ufuncs.logaddexp,
                  reduce=_logsumexp(base2=False))
logaddexp2 = ufunc(ufuncs.logaddexp2, 2, 1, name="logaddexp2", identity=-np.inf, call=ufuncs.logaddexp2,
                   reduce=_logsumexp(base2=True))
