"""Operators and NumPy-style methods of `Array` and of every `Tracer`, defined once for both.

`x + y` calls `jnp.add`, `x[1, ::2]` calls the indexing code, `x.sum(axis=0)` calls `jnp.sum`;
so concrete arrays and traced values behave the same.
"""
from __future__ import annotations

import numpy as np

from pyjax._src import core, dtypes
from pyjax._src.array import Array, ArrayImpl, deleted_error
from pyjax._src.lax import elementwise as lax
from pyjax._src.lax import shape_ops
from pyjax._src.lax.utils import np_dtype_param
from pyjax._src.numpy import array_api_metadata, index_tricks, indexing, lax_numpy, linalg_ops, ufuncs
from pyjax._src.numpy import reductions as jred
from pyjax._src.numpy import shape as jshape
from pyjax._src.numpy import sorting as jsort


def _defer(binary):
    """Return NotImplemented for operand types we do not know, so Python tries the other side."""
    def op(self, other):
        if type(other) is not ArrayImpl and not _accepted(other):
            return NotImplemented
        try:
            return binary(self, other)
        except ValueError:
            _raise_if_deleted(self, other)
            raise
    return op


def _raise_if_deleted(*xs):
    """C++ dispatch reports a deleted (donated) operand with XLA's message, which names no
    array: name it."""
    for x in xs:
        if type(x) is ArrayImpl and x.is_deleted():
            raise deleted_error(x.aval) from None


def _accepted(x):
    return isinstance(x, (Array, core.Tracer, np.ndarray, np.generic, bool, int, float, complex)) \
        or hasattr(x, "__jax_array__")


def _swap(binary):
    return lambda x, y: binary(y, x)


def _method(fn):
    """`fn(self, ...)` as a method: a plain function binds `self` even where `fn` (a builtin,
    a partial) would not."""
    def method(*args, **kwargs):
        return fn(*args, **kwargs)
    method.__name__ = fn.__name__
    return method

_OPERATORS = {
    "__add__": _defer(ufuncs.add), "__radd__": _defer(_swap(ufuncs.add)),
    "__sub__": _defer(ufuncs.subtract), "__rsub__": _defer(_swap(ufuncs.subtract)),
    "__mul__": _defer(ufuncs.multiply), "__rmul__": _defer(_swap(ufuncs.multiply)),
    "__truediv__": _defer(ufuncs.true_divide), "__rtruediv__": _defer(_swap(ufuncs.true_divide)),
    "__floordiv__": _defer(ufuncs.floor_divide), "__rfloordiv__": _defer(_swap(ufuncs.floor_divide)),
    "__mod__": _defer(ufuncs.remainder), "__rmod__": _defer(_swap(ufuncs.remainder)),
    "__divmod__": _defer(ufuncs.divmod), "__rdivmod__": _defer(_swap(ufuncs.divmod)),
    "__pow__": _defer(ufuncs.power), "__rpow__": _defer(_swap(ufuncs.power)),
    "__matmul__": _defer(linalg_ops.matmul), "__rmatmul__": _defer(_swap(linalg_ops.matmul)),
    "__and__": _defer(ufuncs.bitwise_and), "__rand__": _defer(_swap(ufuncs.bitwise_and)),
    "__or__": _defer(ufuncs.bitwise_or), "__ror__": _defer(_swap(ufuncs.bitwise_or)),
    "__xor__": _defer(ufuncs.bitwise_xor), "__rxor__": _defer(_swap(ufuncs.bitwise_xor)),
    "__lshift__": _defer(ufuncs.left_shift), "__rlshift__": _defer(_swap(ufuncs.left_shift)),
    "__rshift__": _defer(ufuncs.right_shift), "__rrshift__": _defer(_swap(ufuncs.right_shift)),
    "__eq__": _defer(ufuncs.equal), "__ne__": _defer(ufuncs.not_equal),
    "__lt__": _defer(ufuncs.less), "__le__": _defer(ufuncs.less_equal),
    "__gt__": _defer(ufuncs.greater), "__ge__": _defer(ufuncs.greater_equal),
    "__neg__": ufuncs.negative, "__pos__": ufuncs.positive, "__abs__": ufuncs.absolute,
    "__invert__": ufuncs.invert,
    "__getitem__": indexing.getitem,
    "__round__": lambda self, ndigits=None: _round(self, ndigits),
}


def _round(self, ndigits=None):
    """Python's `round`: without `ndigits`, an int (here an int array), as for builtin floats."""
    out = ufuncs.round(self, ndigits or 0)
    return out if ndigits is not None else _astype(out, int)


def _astype(self, dtype, copy=False, device=None):
    return lax._convert_element_type(self, np_dtype_param(dtype), False)


def _reshape(self, *shape, order="C"):
    if len(shape) == 1 and _iterable(shape[0]):  # x.reshape((2, 3)), or any iterable (as JAX)
        shape = shape[0]
    return jshape.reshape(self, shape, order=order)


def _iterable(x) -> bool:
    try:
        iter(x)
    except TypeError:
        return False
    return True


def _transpose(self, *axes):
    if len(axes) == 1 and (axes[0] is None or isinstance(axes[0], (tuple, list))):
        axes = axes[0]
    return jshape.transpose(self, axes or None)


_METHODS = {
    "__array_namespace__": array_api_metadata.__array_namespace__,
    "astype": _astype,
    "reshape": _reshape,
    "transpose": _transpose,
    "T": property(lambda self: jshape.transpose(self)),
    "mT": property(lambda self: jshape.swapaxes(self, -1, -2)),
    "real": property(lambda self: ufuncs.real(self)),
    "imag": property(lambda self: ufuncs.imag(self)),
    "conj": lambda self: ufuncs.conjugate(self),
    "conjugate": lambda self: ufuncs.conjugate(self),
    "round": lambda self, decimals=0, out=None: ufuncs.round(self, decimals),
    "flatten": lambda self, order="C": jshape.ravel(self, order),
    "ravel": lambda self, order="C": jshape.ravel(self, order),
    "squeeze": lambda self, axis=None: jshape.squeeze(self, axis),
    "swapaxes": lambda self, a, b: jshape.swapaxes(self, a, b),
    "repeat": lambda self, repeats, axis=None, **kw: jshape.repeat(self, repeats, axis, **kw),
    "clip": lambda self, min=None, max=None, **kw: lax_numpy.clip(self, min, max, **kw),
    "dot": lambda self, b, **kw: linalg_ops.dot(self, b, **kw),
    "sum": _method(jred.sum), "prod": _method(jred.prod), "mean": _method(jred.mean),
    "var": _method(jred.var), "std": _method(jred.std), "max": _method(jred.max),
    "min": _method(jred.min), "all": _method(jred.all), "any": _method(jred.any),
    "argmax": _method(jred.argmax), "argmin": _method(jred.argmin),
    "cumsum": _method(jred.cumsum), "cumprod": _method(jred.cumprod), "ptp": _method(jred.ptp),
    "trace": _method(lax_numpy.trace), "diagonal": _method(lax_numpy.diagonal),
    "tobytes": lambda self, order="C": np.asarray(self).tobytes(order),
    "sort": _method(jsort.sort), "argsort": _method(jsort.argsort),
    "argpartition": _method(jsort.argpartition), "searchsorted": _method(jsort.searchsorted),
    "view": lambda self, dtype=None: self if dtype is None else _view(self, dtype),
    "copy": lambda self: shape_ops.copy(self),  # (jnp.copy: a `copy` equation when traced)
    "nonzero": lambda self, **kw: lax_numpy.nonzero(self, **kw),
    "take": lambda self, *args, **kw: index_tricks.take(self, *args, **kw),
    "compress": lambda self, condition, axis=None, *, out=None, size=None, fill_value=0: index_tricks.compress(
        condition, self, axis, out=out, size=size, fill_value=fill_value),
    "choose": lambda self, choices, out=None, mode="raise": index_tricks.choose(self, choices, out, mode),
    "at": property(indexing._IndexUpdateHelper),
}


def _attach(cls, replace):
    for name, fn in {**_OPERATORS, **_METHODS}.items():
        if replace or name not in cls.__dict__:
            setattr(cls, name, fn)


_attach(ArrayImpl, replace=True)  # jaxlib's class: its own __eq__ etc. give way to NumPy's
_attach(core.Tracer, replace=False)


def _view(arr, dtype):
    """NumPy's `view`: the same bytes read as `dtype`, the last axis scaled by the ratio of the
    item sizes (lax.bitcast_convert_type adds or removes a trailing axis instead). Booleans go
    through uint8, as in JAX."""
    dt = dtypes.check_and_canonicalize_user_dtype(dtype, "view")
    aval = core.get_aval(arr)
    if aval.dtype == np.bool_:
        arr, aval = lax.convert_element_type(arr, np.uint8), aval.update(dtype=np.dtype(np.uint8))
    to = np.dtype(np.uint8) if dt == np.bool_ else dt
    n_in, n_out = aval.dtype.itemsize, to.itemsize
    if n_in == n_out:
        out = lax.bitcast_convert_type(arr, to)
    elif n_in > n_out:
        out = lax.bitcast_convert_type(arr, to)
        out = jshape.reshape(out, (*aval.shape[:-1], aval.shape[-1] * (n_in // n_out)))
    else:
        ratio = n_out // n_in
        if aval.ndim == 0 or aval.shape[-1] % ratio:
            raise ValueError("When changing to a larger dtype, its size must be a divisor of the "
                             "total size in bytes of the last axis of the array.")
        out = lax.bitcast_convert_type(
            jshape.reshape(arr, (*aval.shape[:-1], aval.shape[-1] // ratio, ratio)), to)
    return lax.ne(out, lax.convert_element_type(0, to)) if dt == np.bool_ else out


def _tracer_getitem(self, idx):
    getitem = getattr(self.aval, "_getitem", None)   # a Ref (state.types.AbstractRef) reads itself
    return indexing.getitem(self, idx) if getitem is None else getitem(self, idx)


_IMMUTABLE = ("JAX arrays are immutable and do not support in-place item assignment. Instead of "
              "x[idx] = y, use x = x.at[idx].set(y) or another .at[] method: "
              "https://docs.jax.dev/en/latest/_autosummary/jax.numpy.ndarray.at.html")


def _array_setitem(self, idx, value):
    raise TypeError(_IMMUTABLE)  # JAX 0.10.2's message, for Arrays and traced arrays alike


def _tracer_setitem(self, idx, value):
    setitem = getattr(self.aval, "_setitem", None)   # only a Ref can be written in place
    if setitem is None:
        raise TypeError(_IMMUTABLE)
    setitem(self, idx, value)


ArrayImpl.__setitem__ = _array_setitem
core.Tracer.__getitem__ = _tracer_getitem
core.Tracer.__setitem__ = _tracer_setitem
# a Ref's `.at[idx]` is a view of it (state.types.RefView), an array's the functional updates
core.Tracer.at = property(lambda self: getattr(self.aval, "_at", _at_helper)(self))


def _at_helper(self):
    return indexing._IndexUpdateHelper(self)
