"""Building and rearranging whole arrays: `append`, `block`, `resize`, `roll`, `rollaxis`,
`unstack`, `kron`, `meshgrid`, `tri`, `diag`, `diagflat`, `geomspace`, `astype`, `copy`,
`array_equiv`, `packbits`/`unpackbits`, and the host-side constructors (`frombuffer`,
`fromstring`, `load`, `from_dlpack`; `fromfile`/`fromiter` refuse, as in JAX).
"""
from __future__ import annotations

import math
import operator

import numpy as np

from pyjax._src import core, dtypes
from pyjax._src.array import Array
from pyjax._src.lax import elementwise as lax
from pyjax._src.lax import shape_ops
from pyjax._src.lax.dynamic_slicing import dynamic_slice_in_dim
from pyjax._src.lax.stacking import unstack as lax_unstack
from pyjax._src.lax.utils import canonicalize_axis, kind
from pyjax._src.numpy import reductions as jred
from pyjax._src.numpy import ufuncs
from pyjax._src.numpy.creation import array, asarray, eye, logspace, zeros
from pyjax._src.numpy.lax_numpy import diagonal, where
from pyjax._src.numpy.shape import (
    concatenate, expand_dims, moveaxis, ravel, reshape, swapaxes, tile)
from pyjax._src.numpy.util import (
    asarray_value, broadcast_shapes, broadcast_to, check_arraylike, promote_dtypes, static_int)


def _aval(x):
    return core.get_aval(x)


def _arraylike(fname, *xs):
    check_arraylike(fname, *xs)
    out = tuple(asarray_value(x) for x in xs)
    return out if len(out) > 1 else out[0]


def _axes(axis, ndim, fname):
    axes = axis if isinstance(axis, (tuple, list)) else (axis,)
    return tuple(canonicalize_axis(a, ndim, "axis", fname) for a in axes)


# -- joining and repeating ---------------------------------------------------------------------


def append(arr, values, axis=None):
    """`values` joined to the end of `arr` along `axis` (both flattened when None).

        >>> jnp.append(jnp.array([1, 2]), jnp.array([[3], [4]]))
        Array([1, 2, 3, 4], dtype=int32)
    """
    if axis is None:
        return concatenate([ravel(arr), ravel(values)], 0)
    return concatenate([arr, values], axis=axis)


def _block(xs):
    """(the assembled array, its list depth)."""
    if isinstance(xs, tuple):
        raise ValueError(f"jax.numpy.block does not allow tuples, got {xs}")
    if not isinstance(xs, list):
        return asarray(xs), 1
    if not xs:
        raise ValueError("jax.numpy.block does not allow empty list arguments")
    parts, depths = zip(*[_block(x) for x in xs])
    if any(d != depths[0] for d in depths):
        raise ValueError("Mismatched list depths in jax.numpy.block")
    rank = max(depths[0], *(_aval(p).ndim for p in parts))
    parts = [reshape(p, (1,) * (rank - _aval(p).ndim) + _aval(p).shape) for p in parts]
    return concatenate(parts, axis=-depths[0]), depths[0] + 1


def block(arrays):
    """Assemble an array from nested lists of blocks: the innermost lists join along the last
    axis, the next ones along the one before, ...

        >>> jnp.block([[jnp.ones((2, 2)), jnp.zeros((2, 1))]]).shape
        (2, 3)
    """
    return _block(arrays)[0]


def resize(a, new_shape):
    """`a` flattened, repeated as often as needed and cut to fill `new_shape`.

        >>> jnp.resize(jnp.array([1, 2, 3]), (2, 4))
        Array([[1, 2, 3, 1],
               [2, 3, 1, 2]], dtype=int32)
    """
    a = _arraylike("resize", a)
    new_shape = tuple(static_int("resize", "new_shape", d) for d in np.atleast_1d(np.asarray(new_shape, object)))
    if any(d < 0 for d in new_shape):
        raise ValueError("all elements of `new_shape` must be non-negative")
    flat = ravel(a)
    size, new_size = _aval(flat).size, math.prod(new_shape)
    if size == 0 or new_size == 0:
        return zeros(new_shape, _aval(flat).dtype)
    return reshape(tile(flat, -(-new_size // size))[:new_size], new_shape)


def roll(a, shift, axis=None):
    """Shift the elements of `a` cyclically by `shift` along `axis` (the flattened array when
    None); `shift` may be traced.

        >>> jnp.roll(jnp.arange(5), 2)
        Array([3, 4, 0, 1, 2], dtype=int32)
    """
    a = _arraylike("roll", a)
    if axis is None:
        return reshape(roll(ravel(a), shift, 0), _aval(a).shape)
    axes = _axes(axis, _aval(a).ndim, "roll")
    shifts = None if isinstance(shift, (Array, core.Tracer)) else np.asarray(shift)
    if shifts is None or kind(shifts.dtype) not in "iu":  # traced, or to be truncated: as JAX
        return _roll_dynamic(a, asarray(shift), axes)
    if np.ndim(shifts) > 1 or (np.ndim(shifts) == 1 and len(axes) > 1 and len(shifts) != len(axes)):
        raise ValueError("'shift' and 'axis' arguments to roll must be scalars or 1D arrays")
    for ax, s in zip(*np.broadcast_arrays(np.asarray(axes), shifts)):
        n = _aval(a).shape[ax]
        if n:
            start = int(-s) % n
            a = concatenate([shape_ops.slice_in_dim(a, start, n, axis=int(ax)),
                             shape_ops.slice_in_dim(a, 0, start, axis=int(ax))], int(ax))
    return a


def _roll_dynamic(a, shift, axes):
    if _aval(shift).ndim > 1:
        raise ValueError("'shift' and 'axis' arguments to roll must be scalars or 1D arrays")
    shape = broadcast_shapes(_aval(shift).shape, np.shape(axes))
    shifts = broadcast_to(shift, shape)
    for i, ax in enumerate(np.broadcast_to(np.asarray(axes), shape) if shape else axes):
        s = shifts[i] if shape else shifts
        n = _aval(a).shape[ax]
        s = ufuncs.remainder(lax.convert_element_type(s, np.int32), np.int32(max(n, 1)))
        doubled = concatenate([a, a], int(ax))
        a = dynamic_slice_in_dim(doubled, np.int32(n) - s, n, axis=int(ax))
    return a


def rollaxis(a, axis, start=0):
    """Move `axis` to the position before `start` (the older form of `moveaxis`)."""
    a = _arraylike("rollaxis", a)
    start = static_int("rollaxis", "start", start)
    nd = _aval(a).ndim
    axis = canonicalize_axis(axis, nd, "axis", "rollaxis")
    if not -nd <= start <= nd:
        raise ValueError(f"start={start} must satisfy {-nd}<=start<={nd}")
    start = start + nd if start < 0 else start
    return moveaxis(a, axis, start - 1 if start > axis else start)


def unstack(x, /, *, axis=0):
    """The slices of `x` along `axis`, as a tuple of arrays."""
    return lax_unstack(_arraylike("unstack", x), axis=axis)


def kron(a, b):
    """The Kronecker product: every element of `a` times the whole of `b`, tiled.

        >>> jnp.kron(jnp.eye(2), jnp.ones((1, 2)))
        Array([[1., 1., 0., 0.],
               [0., 0., 1., 1.]], dtype=float32)
    """
    check_arraylike("kron", a, b)
    a, b = promote_dtypes(asarray_value(a), asarray_value(b))
    nd = max(_aval(a).ndim, _aval(b).ndim)
    a = reshape(a, (1,) * (nd - _aval(a).ndim) + _aval(a).shape)
    b = reshape(b, (1,) * (nd - _aval(b).ndim) + _aval(b).shape)
    # a's axes at the even positions, b's at the odd ones: (a0, b0, a1, b1, ...)
    a_wide = expand_dims(a, tuple(range(1, 2 * nd, 2)))
    b_wide = expand_dims(b, tuple(range(0, 2 * nd, 2)))
    out_shape = tuple(int(x) * int(y) for x, y in zip(_aval(a).shape, _aval(b).shape))
    return reshape(ufuncs.multiply(a_wide, b_wide), out_shape)


def meshgrid(*xi, copy=True, sparse=False, indexing="xy"):
    """Coordinate arrays from 1-D coordinate vectors ('xy': the first two axes swapped, as
    Cartesian plotting wants; 'ij': matrix indexing). `sparse` keeps size-1 axes.

        >>> [g.shape for g in jnp.meshgrid(jnp.arange(3), jnp.arange(2))]
        [(2, 3), (2, 3)]
    """
    check_arraylike("meshgrid", *xi)
    args = [asarray_value(x) for x in xi]
    if not copy:
        raise ValueError("jax.numpy.meshgrid only supports copy=True")
    if indexing not in ("xy", "ij"):
        raise ValueError(f"Valid values for indexing are 'xy' and 'ij', got {indexing}")
    if any(_aval(a).ndim != 1 for a in args):
        raise ValueError(f"Arguments to jax.numpy.meshgrid must be 1D, got shapes {[_aval(a).shape for a in args]}")
    swap = indexing == "xy" and len(args) >= 2
    if swap:
        args[0], args[1] = args[1], args[0]
    sizes = [_aval(a).shape[0] for a in args]
    out = []
    for i, a in enumerate(args):
        shape = [1] * len(args) if sparse else list(sizes)
        shape[i] = sizes[i]
        out.append(shape_ops.broadcast_in_dim(a, tuple(shape), (i,)))
    if swap:
        out[0], out[1] = out[1], out[0]
    return out


# -- triangles and diagonals -------------------------------------------------------------------


def tri(N, M=None, k=0, dtype=None):
    """An (N, M) array with ones at and below the `k`-th diagonal (float32 by default, as JAX).

        >>> jnp.tri(2, 3, 1)
        Array([[1., 1., 0.],
               [1., 1., 1.]], dtype=float32)
    """
    N = static_int("tri", "N", N)
    M = N if M is None else static_int("tri", "M", M)
    dt = np.dtype(np.float32) if dtype is None else dtypes.check_and_canonicalize_user_dtype(dtype, "tri")
    rows = shape_ops.broadcasted_iota(np.int32, (N, M), 0)
    cols = shape_ops.broadcasted_iota(np.int32, (N, M), 1)
    return lax.convert_element_type(lax.le(cols, lax.add(rows, np.int32(operator.index(k)))), dt)


def diag(v, k=0):
    """The `k`-th diagonal of a 2-D `v`, or a 2-D array with the 1-D `v` on that diagonal.

        >>> jnp.diag(jnp.array([1, 2]), 1)
        Array([[0, 1, 0],
               [0, 0, 2],
               [0, 0, 0]], dtype=int32)
    """
    v = _arraylike("diag", v)
    k = operator.index(k)
    nd = _aval(v).ndim
    if nd == 2:
        return diagonal(v, offset=k)
    if nd != 1:
        raise ValueError("diag input must be 1d or 2d")
    n = _aval(v).shape[0] + abs(k)
    zero = lax._convert_element_type(0, _aval(v).dtype, _aval(v).weak_type)
    padded = shape_ops.pad(v, zero, [(max(0, -k), max(0, k), 0)])  # v[i] lands on row i - min(k, 0)
    return where(eye(n, k=k, dtype=bool), expand_dims(padded, 1), zero)


def diagflat(v, k=0):
    """A 2-D array with the flattened `v` on its `k`-th diagonal."""
    return diag(ravel(_arraylike("diagflat", v)), k)


# -- values ------------------------------------------------------------------------------------


def geomspace(start, stop, num=50, endpoint=True, dtype=None, axis=0):
    """`num` numbers spaced evenly on a log scale from `start` to `stop` (same signs).

        >>> jnp.geomspace(1, 1000, 4)
        Array([   1.,   10.,  100., 1000.], dtype=float32)
    """
    num = static_int("geomspace", "num", num)
    axis = static_int("geomspace", "axis", axis)
    if dtype is None:
        dt = dtypes.to_inexact_dtype(dtypes.result_type(start, stop))
    else:
        dt = dtypes.check_and_canonicalize_user_dtype(dtype, "geomspace")
    compute = dtypes.to_inexact_dtype(dt)
    start, stop = (lax.convert_element_type(asarray_value(v), compute) for v in _arraylike("geomspace", start, stop))
    sign = ufuncs.sign(start)
    out = sign * logspace(ufuncs.log10(start / sign), ufuncs.log10(stop / sign), num,
                          endpoint=endpoint, base=10.0, dtype=compute, axis=0)
    if axis:
        out = moveaxis(out, 0, canonicalize_axis(axis, _aval(out).ndim, "axis", "geomspace"))
    return lax.convert_element_type(out, dt)


def astype(x, dtype, /, *, copy=False, device=None):
    """`x` converted to `dtype` (the default float type when None). A complex array cast to
    bool tests for nonzero, as NumPy does.

        >>> jnp.astype(jnp.array([1.7, -2.2]), jnp.int32)
        Array([ 1, -2], dtype=int32)
    """
    x = _arraylike("astype", x)
    dt = dtypes.default_float_dtype() if dtype is None else dtypes.check_and_canonicalize_user_dtype(dtype, "astype")
    if kind(_aval(x).dtype) == "c" and dt == np.bool_:
        return lax.ne(x, np.zeros((), _aval(x).dtype))
    out = lax.convert_element_type(x, dt)
    return shape_ops.copy(out) if copy and out is x else out


def copy(a, order=None):
    """A copy of `a` (an Array: pyjax arrays are immutable, so this is for NumPy parity)."""
    check_arraylike("copy", a)
    return array(a, copy=True, order=order or "K")


def array_equiv(a1, a2):
    """Whether `a1` and `a2`, broadcast together, are equal everywhere."""
    # NB: as JAX 0.10.2, shapes that do not broadcast are an error (NumPy returns False)
    return jred.all(ufuncs.equal(asarray(a1), asarray(a2)))


# -- bits --------------------------------------------------------------------------------------

_BIT_ORDERS = ("little", "big")


def _bits(bitorder):
    if bitorder not in _BIT_ORDERS:
        raise ValueError("'order' must be either 'little' or 'big'")
    w = np.uint8(1) << np.arange(8, dtype=np.uint8)
    return w[::-1] if bitorder == "big" else w


def packbits(a, axis=None, bitorder="big"):
    """Pack the truth values of `a` into the bits of uint8s along `axis` (flattened when None),
    padding the last byte with zeros.

        >>> jnp.packbits(jnp.array([1, 0, 1, 1]))
        Array([176], dtype=uint8)
    """
    a = _arraylike("packbits", a)
    if kind(_aval(a).dtype) not in "biu":
        raise TypeError("Expected an input array of integer or boolean data type")
    weights = _bits(bitorder)
    bits = lax.convert_element_type(lax.ne(a, np.zeros((), _aval(a).dtype)), np.uint8)
    if axis is None:
        bits, axis = ravel(bits), 0
    bits = swapaxes(bits, axis, -1)
    n = _aval(bits).shape[-1]
    if n % 8:
        bits = shape_ops.pad(bits, np.uint8(0), [(0, 0, 0)] * (_aval(bits).ndim - 1) + [(0, 8 - n % 8, 0)])
    bits = reshape(bits, _aval(bits).shape[:-1] + (_aval(bits).shape[-1] // 8, 8))
    packed = jred.sum(ufuncs.multiply(bits, weights), axis=-1, dtype=np.uint8)
    return swapaxes(packed, axis, -1)


def unpackbits(a, axis=None, count=None, bitorder="big"):
    """The bits of the uint8 array `a` as 0/1 uint8s along `axis` (flattened when None);
    `count` keeps that many (padding with zeros if it is larger).

        >>> jnp.unpackbits(jnp.array([176], jnp.uint8), count=4)
        Array([1, 0, 1, 1], dtype=uint8)
    """
    a = _arraylike("unpackbits", a)
    if _aval(a).dtype != np.uint8:
        raise TypeError("Expected an input array of unsigned byte data type")
    weights = _bits(bitorder)
    if axis is None:
        a, axis = ravel(a), 0
    a = swapaxes(a, axis, -1)
    bits = lax.convert_element_type(
        lax.ne(ufuncs.bitwise_and(expand_dims(a, -1), weights), np.uint8(0)), np.uint8)
    bits = reshape(bits, _aval(bits).shape[:-2] + (-1,) if _aval(bits).ndim > 1 else (-1,))
    if count is not None:
        count = static_int("unpackbits", "count", count)
        n = _aval(bits).shape[-1]
        if count > n:
            bits = shape_ops.pad(bits, np.uint8(0), [(0, 0, 0)] * (_aval(bits).ndim - 1) + [(0, count - n, 0)])
        else:  # a negative count drops that many from the end, as a slice does
            bits = bits[..., :count]
    return swapaxes(bits, axis, -1)


# -- from the host -----------------------------------------------------------------------------


def frombuffer(buffer, dtype=float, count=-1, offset=0):
    """A 1-D array of the bytes in `buffer`, interpreted as `dtype` (read on the host)."""
    return asarray(np.frombuffer(buffer=buffer, dtype=dtype, count=count, offset=offset))


def fromstring(string, dtype=float, count=-1, *, sep):
    """A 1-D array of the numbers in the text `string`, separated by `sep`."""
    return asarray(np.fromstring(string, dtype=dtype, count=count, sep=sep))


def fromfile(*args, **kwargs):
    """Not implemented, as in JAX: reading a file is a side effect that transformations would
    repeat or skip. Use `jnp.asarray(np.fromfile(...))`."""
    raise NotImplementedError("jnp.fromfile() is not implemented because it may be non-pure and "
                              "thus unsafe for use with JIT and other JAX transformations. Consider "
                              "using jnp.asarray(np.fromfile(...)) instead.")


def fromiter(*args, **kwargs):
    """Not implemented, as in JAX: consuming an iterator is a side effect. Use
    `jnp.asarray(np.fromiter(...))`."""
    raise NotImplementedError("jnp.fromiter() is not implemented because it may be non-pure and "
                              "thus unsafe for use with JIT and other JAX transformations. Consider "
                              "using jnp.asarray(np.fromiter(...)) instead.")


def load(file, *args, **kwargs):
    """`numpy.load`, returning an Array for .npy files (bfloat16, which NumPy saves as 2-byte
    voids, restored); .npz archives stay NumPy's."""
    out = np.load(file, *args, **kwargs)
    if isinstance(out, np.ndarray):
        if out.dtype == np.dtype("V2"):
            out = out.view(dtypes.bfloat16)
        try:
            out = asarray(out)
        except (TypeError, ValueError):  # a dtype pyjax has no arrays of
            pass
    return out


def from_dlpack(x, /, *, device=None, copy=None):
    """An Array from an object with `__dlpack__` (a NumPy array, a torch tensor, an Array...).

    NB: the data is copied through NumPy on the host (JAX shares the buffer when it can)."""
    if device is not None:
        raise NotImplementedError("from_dlpack: device= is not supported")
    return asarray(np.from_dlpack(x))

