"""`x[idx]` for basic indexing: integers, slices, `None`, `...`, and traced integer scalars
(through dynamic_slice). Advanced (array) indexing needs the gather primitive of a later issue."""
from __future__ import annotations

import operator

import numpy as np

from pyjax._src import core
from pyjax._src.array import Array
from pyjax._src.lax import elementwise as lax
from pyjax._src.lax import shape_ops
from pyjax._src.lax.utils import kind
from pyjax._src.numpy.util import asarray_value


def _is_int_scalar(i):
    if isinstance(i, (bool, np.bool_)):
        return False
    if isinstance(i, (int, np.integer)):
        return True
    if isinstance(i, (Array, core.Tracer, np.ndarray)):
        aval = core.get_aval(i)
        return aval.ndim == 0 and kind(aval.dtype) in "iu"
    return False


def _expand_index(idx, ndim):
    """Normalize to a tuple with the Ellipsis expanded into full slices."""
    if not isinstance(idx, tuple):
        idx = (idx,)
    n_ell = sum(1 for i in idx if i is Ellipsis)
    if n_ell > 1:
        raise IndexError("an index can only have a single ellipsis ('...')")
    used = sum(1 for i in idx if i is not None and i is not Ellipsis)
    if used > ndim:
        raise IndexError(f"Too many indices: array is {ndim}-dimensional, but {used} were indexed")
    if n_ell:
        k = idx.index(Ellipsis)
        idx = idx[:k] + (slice(None),) * (ndim - used) + idx[k + 1:]
    else:
        idx = idx + (slice(None),) * (ndim - used)
    return idx


def getitem(arr, idx):
    """Basic indexing: static ints/slices/None/Ellipsis, or a traced integer scalar per axis."""
    arr = asarray_value(arr)
    aval = core.get_aval(arr)
    if isinstance(idx, list):
        idx = np.asarray(idx)
    idx = _expand_index(idx, aval.ndim)
    for i in idx:
        if isinstance(i, (float, np.floating)) or (
                hasattr(i, "dtype") and kind(np.dtype(i.dtype)) in "fc"):
            raise TypeError(f"Indexer must have integer or boolean type, got indexer with type "
                            f"{np.dtype(getattr(i, 'dtype', type(i))).name}")
        if not (i is None or isinstance(i, slice) or _is_int_scalar(i)):
            raise NotImplementedError(
                f"Indexing with {type(i).__name__} ({getattr(i, 'shape', '')}) is advanced "
                f"(array or boolean) indexing, which needs the gather primitive; it is not "
                f"implemented yet. Use basic indexing (ints, slices, None, ...) or lax.dynamic_slice.")
    starts, limits, strides, rev_axes = [], [], [], []
    squeeze_axes, dyn = [], []
    out_shape_newaxes = []
    axis = 0
    out_axis = 0
    for i in idx:
        if i is None:
            out_shape_newaxes.append(out_axis)
            out_axis += 1
            continue
        n = aval.shape[axis]
        if isinstance(i, slice):
            for name in ("start", "stop", "step"):
                v = getattr(i, name)
                if isinstance(v, core.Tracer):
                    raise IndexError(f"Array slice indices must have static start/stop/step "
                                     f"(got a traced {name}). Use lax.dynamic_slice for traced starts.")
            start, stop, step = slice(*(None if v is None else operator.index(v) for v in (i.start, i.stop, i.step))).indices(n)
            if step > 0:
                starts.append(start)
                limits.append(max(stop, start))
                strides.append(step)
            else:
                # negative step: reverse the axis, then take a positive-step slice
                rev_axes.append(axis)
                length = len(range(start, stop, step))
                s = n - 1 - start
                starts.append(s)
                limits.append(s + (length - 1) * (-step) + 1 if length else s)
                strides.append(-step)
            out_axis += 1
        elif isinstance(i, (int, np.integer)) or (type(i) is Array and i._npy is not None):
            k = int(i)
            if not -n <= k < n:  # NB: JAX clamps static indices too; pyjax raises as NumPy does
                raise IndexError(f"index {k} is out of bounds for axis {axis} with size {n}")
            k %= n
            starts.append(k)
            limits.append(k + 1)
            strides.append(1)
            squeeze_axes.append(axis)
        else:  # traced (or device-resident) integer scalar
            dyn.append((axis, i))
            starts.append(0)
            limits.append(n)
            strides.append(1)
            squeeze_axes.append(axis)
        axis += 1
    out = arr
    if rev_axes:
        out = shape_ops.rev(out, rev_axes)
    out = shape_ops.slice(out, starts, limits, strides)
    if dyn:
        out = _dynamic_index(out, aval, dyn)
    if squeeze_axes:
        out = shape_ops.squeeze(out, squeeze_axes)
    if out_shape_newaxes:
        out = shape_ops.expand_dims(out, out_shape_newaxes)
    return out


def _dynamic_index(x, orig_aval, dyn):
    """Select one position along each axis in `dyn` with dynamic_slice, which counts negative
    indices from the end and clamps out-of-bounds ones (as JAX's indexing does)."""
    shape = core.get_aval(x).shape
    zero = np.int32(0)
    starts = [zero] * len(shape)
    sizes = list(shape)
    for axis, i in dyn:
        starts[axis] = i
        sizes[axis] = 1
    return shape_ops.dynamic_slice(x, starts, sizes)


class _IndexUpdateHelper:
    """`x.at[idx]`: functional updates. Scatter comes with a later issue; basic static indices
    are supported now through dynamic_update_slice."""

    __slots__ = ("array",)

    def __init__(self, array):
        self.array = array

    def __getitem__(self, idx):
        return _IndexUpdateRef(self.array, idx)


class _IndexUpdateRef:
    __slots__ = ("array", "idx")

    def __init__(self, array, idx):
        self.array = array
        self.idx = idx

    def get(self, **kwargs):
        return getitem(self.array, self.idx)

    def set(self, values, **kwargs):
        return _update(self.array, self.idx, values, None)

    def add(self, values, **kwargs):
        return _update(self.array, self.idx, values, lax.add)

    def multiply(self, values, **kwargs):
        return _update(self.array, self.idx, values, lax.mul)

    mul = multiply

    def min(self, values, **kwargs):
        return _update(self.array, self.idx, values, lax.min)

    def max(self, values, **kwargs):
        return _update(self.array, self.idx, values, lax.max)


def _update(arr, idx, values, combine):
    """Update a contiguous block (ints and unit-stride slices) with dynamic_update_slice."""
    from pyjax._src.numpy.util import broadcast_to, promote_dtypes
    arr = asarray_value(arr)
    aval = core.get_aval(arr)
    full = _expand_index(idx, aval.ndim)
    if any(i is None for i in full):
        raise NotImplementedError("x.at[...] with None in the index is not supported yet")
    starts, block, in_bounds = [], [], []
    for axis, i in enumerate(full):
        n = aval.shape[axis]
        if isinstance(i, slice):
            start, stop, step = i.indices(n)
            if step != 1:
                raise NotImplementedError("x.at[...] with strided slices needs scatter (later issue)")
            starts.append(np.int32(start))
            block.append(max(stop - start, 0))
        elif _is_int_scalar(i):
            # as in JAX, an update at an out-of-bounds index is dropped (not clamped)
            if isinstance(i, (int, np.integer)):
                if not -n <= int(i) < n:
                    return arr
                starts.append(np.int32(int(i) % n))
            else:
                i = lax._convert_element_type(i, np.int32, False)
                in_bounds.append(lax.bitwise_and(lax.ge(i, np.int32(-n)), lax.lt(i, np.int32(n))))
                starts.append(i)  # dynamic_update_slice counts negative indices from the end
            block.append(1)
        else:
            raise NotImplementedError("x.at[...] with array indices needs scatter (later issue)")
    current = shape_ops.dynamic_slice(arr, starts, block)
    vals = lax._convert_element_type(values, aval.dtype, False)
    squeezed_shape = core.get_aval(getitem(arr, idx)).shape
    vals = broadcast_to(vals, squeezed_shape)
    vals = shape_ops.reshape(vals, block)
    new = vals if combine is None else combine(current, vals)
    for ok in in_bounds:
        new = lax.select_n(ok, current, new)
    del promote_dtypes
    return shape_ops.dynamic_update_slice(arr, new, starts)
