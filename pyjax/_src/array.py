"""`Array`: an immutable array living on a device (or, until first needed there, on the host).

An Array holds its abstract value and either a device buffer, a host NumPy value, or both (the
host copy is cached after the first read). Arrays made from Python/NumPy constants stay on the
host until an executable needs them, so `x + 1.0` does not pay a transfer for `1.0` twice.
Operators, `__getitem__` and the NumPy-like methods are attached by
`pyjax._src.numpy.array_methods`, the same way as for tracers.
"""
from __future__ import annotations

import weakref

import numpy as np

from pyjax._src import core, dtypes
from pyjax._src.backend import xla
from pyjax._src.interpreters import partial_eval as pe
from pyjax._src.sharding import SingleDeviceSharding


class _ArrayMeta(type):
    """`isinstance(x, pyjax.Array)` is also true for traced arrays, as with `jax.Array`."""

    def __instancecheck__(cls, obj):
        return type.__instancecheck__(cls, obj) or isinstance(obj, core.Tracer)


class Array(metaclass=_ArrayMeta):
    __slots__ = ("aval", "_buf", "_npy", "__weakref__")
    __array_priority__ = 100

    def __init__(self, aval: core.ShapedArray, buf=None, npy=None):
        self.aval = aval
        self._buf = buf
        self._npy = npy

    # -- construction ------------------------------------------------------------------------

    @staticmethod
    def from_host(value: np.ndarray, weak_type=False) -> Array:
        """Wrap a NumPy value (already of a canonical dtype) without copying it to a device yet."""
        return Array(core.ShapedArray(value.shape, value.dtype, weak_type), None, value)

    # -- the data ----------------------------------------------------------------------------

    def _buffer(self):
        buf = self._buf
        if buf is None:
            buf = self._buf = put_host_value(self._npy, self.aval)
        return buf

    @property
    def _value(self) -> np.ndarray:
        npy = self._npy
        if npy is None:
            if self._buf.is_deleted():
                raise deleted_error(self.aval)
            npy = self._npy = xla.to_numpy(self._buf)
        return npy

    shape = property(lambda self: self.aval.shape)
    dtype = property(lambda self: self.aval.dtype)
    ndim = property(lambda self: len(self.aval.shape))
    size = property(lambda self: self.aval.size)
    weak_type = property(lambda self: self.aval.weak_type)
    nbytes = property(lambda self: self.aval.size * self.aval.dtype.itemsize)
    itemsize = property(lambda self: self.aval.dtype.itemsize)

    @property
    def sharding(self):
        return SingleDeviceSharding(self.device)

    @property
    def device(self):
        return xla.buffer_devices(self._buf)[0] if self._buf is not None else xla.devices()[0]

    def devices(self):
        return {self.device}

    def block_until_ready(self):
        if self._buf is not None:
            self._buf.block_until_ready()
        return self

    def is_deleted(self) -> bool:
        return self._buf is not None and self._buf.is_deleted()

    def delete(self):
        buf = self._buf
        if buf is None or _shared_buffers.get(id(buf)) is buf:
            # not ours alone to free: drop our reference, keep reading as deleted
            self._buf = _deleted_buffer()
        else:
            buf.delete()
        self._npy = None

    def copy_to_host_async(self):
        pass

    def is_fully_replicated(self):
        return True

    is_fully_addressable = property(lambda self: True)
    committed = property(lambda self: False)

    # -- NumPy protocols and Python conversions ---------------------------------------------

    def __array__(self, dtype=None, copy=None):
        v = self._value
        if dtype is not None and np.dtype(dtype) != v.dtype:
            return v.astype(dtype)
        return v.copy() if copy else v

    def __float__(self):
        return float(self._scalar("float"))

    def __int__(self):
        return int(self._scalar("int"))

    def __complex__(self):
        return complex(self._scalar("complex"))

    def __index__(self):
        if not np.issubdtype(self.dtype, np.integer) and self.dtype != np.bool_:
            raise TypeError(f"only integer scalar arrays can be converted to a scalar index, "
                            f"got {self.aval.str_short()}")
        return int(self._scalar("index"))

    def __bool__(self):
        if self.size != 1:
            raise ValueError(f"The truth value of an array with more than one element is "
                             f"ambiguous ({self.aval.str_short()}). Use a.any() or a.all()")
        return bool(self._value.reshape(()))

    def _scalar(self, what):
        if self.size != 1:
            raise TypeError(f"only length-1 arrays can be converted to Python scalars ({what}() "
                            f"of {self.aval.str_short()})")
        return self._value.reshape(())[()]

    def item(self, *args):
        return self._value.item(*args)

    def tolist(self):
        return self._value.tolist()

    def __len__(self):
        if not self.shape:
            raise TypeError("len() of unsized object")
        return self.shape[0]

    def __iter__(self):
        if not self.shape:
            raise TypeError("iteration over a 0-d array")
        return (self[i] for i in range(self.shape[0]))

    def __hash__(self):
        raise TypeError("unhashable type: 'Array' (use a NumPy value or a tuple as a static key)")

    def __reduce__(self):
        return (_reconstruct, (np.array(self._value), self.weak_type))

    def __repr__(self):
        v = self._value
        prefix, suffix = "Array(", ""
        if self.weak_type:
            suffix += ", weak_type=True"
        if v.size == 0 and v.shape != (0,):
            body = f"[], shape={v.shape}"
        else:
            body = np.array2string(v, prefix=prefix, separator=", ", threshold=1000)
        return f"{prefix}{body}, dtype={self.dtype.name}{suffix})"

    def __str__(self):
        return str(self._value)

    def __format__(self, spec):
        if self.ndim == 0:
            return format(self._value[()], spec)
        return format(str(self), spec)

    def __dlpack__(self, *args, **kwargs):
        return self._value.__dlpack__(*args, **kwargs)

    def __dlpack_device__(self):
        return self._value.__dlpack_device__()


def _reconstruct(value, weak_type):
    return Array.from_host(value, weak_type)


# -- getting buffers for values ------------------------------------------------------------

# Device buffers for small host constants (Python scalars turned into Arrays), so repeated
# eager `x * 2.0` reuses one transfer. Keyed on (dtype, bytes); bounded.
_scalar_buffers: dict = {}

# Buffers with more than one owner: the scalar cache's (any number of Arrays may hold one) and
# the constants a compiled executable keeps. Donating one must not delete it under its other
# owners, so `buffer_to_donate` copies these first. Weak: a buffer leaves when its last owner
# drops it. Keyed by id (the value is kept only to confirm identity).
_shared_buffers: "weakref.WeakValueDictionary[int, object]" = weakref.WeakValueDictionary()


def mark_shared(buf):
    """Record that `buf` may be held by several owners (see `buffer_to_donate`)."""
    _shared_buffers[id(buf)] = buf
    return buf


def put_host_value(value: np.ndarray, aval) -> object:
    if value.ndim == 0:
        key = (value.dtype, value.tobytes())
        buf = _scalar_buffers.get(key)
        if buf is None:
            if len(_scalar_buffers) > 4096:
                _scalar_buffers.clear()
            buf = _scalar_buffers[key] = mark_shared(xla.put(value, xla.devices()[0], aval))
        return buf
    return xla.put(value, xla.devices()[0], aval)


_DELETED = []


def _deleted_buffer():
    """One deleted buffer: what a deleted Array points to when its buffer was not its own."""
    if not _DELETED:
        buf = xla.put(np.zeros((), np.bool_), xla.devices()[0], core.ShapedArray((), np.bool_))
        buf.delete()
        _DELETED.append(buf)
    return _DELETED[0]


def deleted_error(aval) -> RuntimeError:
    shape = f"{aval.dtype.name}[{','.join(map(str, aval.shape))}]"  # JAX spells dtypes out here
    return RuntimeError(f"Array has been deleted with shape={shape}. It was donated "
                        f"to a jitted function (donate_argnums) or deleted with .delete().")


def buffer_to_donate(x):
    """The buffer to hand to an executable that donates (and so deletes) it.

    As in JAX, donating `x` deletes `x` and nothing else: a buffer `x` shares with other owners
    (a cached scalar, an executable's constant) is first replaced by a private copy, and a
    value with no buffer of its own (a host value, a Python scalar) gets a fresh one.
    """
    if type(x) is not Array:
        if isinstance(x, core.Tracer):
            raise core.escaped_tracer_error(x)
        aval = core.get_aval(x)
        return xla.put(np.asarray(x, aval.dtype), xla.devices()[0], aval)
    buf = x._buf
    if buf is None:
        buf = x._buf = xla.put(x._npy, xla.devices()[0], x.aval)
    elif buf.is_deleted():
        raise deleted_error(x.aval)
    elif _shared_buffers.get(id(buf)) is buf:
        buf = x._buf = xla.copy(buf)
    return buf


def forget_donated(args, donated):
    """After a donating call: an Array whose buffer XLA took reads as deleted from now on (its
    cached host copy goes too). XLA leaves a donated buffer alone when no output could reuse it."""
    for x, d in zip(args, donated):
        if d and type(x) is Array and x._buf.is_deleted():
            x._npy = None


def to_buffer(x):
    """The device buffer for any concrete value an executable takes as an argument."""
    if type(x) is Array:
        return x._buf if x._buf is not None else x._buffer()
    if isinstance(x, core.Tracer):
        raise core.escaped_tracer_error(x)
    aval = core.get_aval(x)
    return put_host_value(np.asarray(x, aval.dtype), aval)


def canonical_host_value(x) -> np.ndarray:
    """A NumPy value of `x` in its canonical dtype (64-bit narrowed unless x64 is on)."""
    v = np.asarray(x)
    dt = dtypes.canonicalize_dtype(v.dtype)
    return v if v.dtype == dt else v.astype(dt)


def _literal_for_array(x: Array):
    """Under tracing, a 0-d Array whose value is on the host becomes an inline literal."""
    if x.aval.ndim == 0 and x._npy is not None:
        return core.Literal(x, x.aval)  # the Array itself: evaluating keeps its weak type
    return None


core.pytype_aval_mappings[Array] = lambda x: x.aval
pe.literal_value_handlers[Array] = _literal_for_array


class ShapeDtypeStruct:
    """A shape and dtype standing in for an array (for eval_shape and AOT lowering)."""

    __slots__ = ("shape", "dtype", "weak_type", "sharding")

    def __init__(self, shape, dtype, *, weak_type=False, sharding=None):
        self.shape = tuple(shape)
        self.dtype = np.dtype(dtype)
        self.weak_type = weak_type
        self.sharding = sharding

    ndim = property(lambda self: len(self.shape))
    size = property(lambda self: int(np.prod(self.shape, dtype=np.int64)))

    def __repr__(self):
        weak = ", weak_type=True" if self.weak_type else ""
        return f"ShapeDtypeStruct(shape={self.shape}, dtype={self.dtype.name}{weak})"

    def __eq__(self, other):
        return (isinstance(other, ShapeDtypeStruct) and self.shape == other.shape
                and self.dtype == other.dtype and self.weak_type == other.weak_type)

    def __hash__(self):
        return hash((self.shape, self.dtype, self.weak_type))


core.pytype_aval_mappings[ShapeDtypeStruct] = lambda x: core.ShapedArray(
    x.shape, dtypes.canonicalize_dtype(x.dtype), x.weak_type)
