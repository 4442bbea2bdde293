"""`x[idx]` and `x.at[idx]` for basic indexing: integers (static or traced), slices, `None`,
`...` and scalar booleans.

As in JAX, an out-of-bounds integer index is not an error. A negative index wraps once (`x[-1]` is
the last element); then a read clamps into range ("gather clamps": `jnp.arange(10.)[15]` is 9.0
and `[-15]` is 0.0) and an update there is dropped ("scatter drops"). Only an axis of length 0
cannot be indexed. Advanced (array) indexing and `mode=`/`fill_value=` need the gather and scatter
primitives of a later issue.
"""
from __future__ import annotations

import operator
import warnings

import numpy as np

from pyjax._src import core, dtypes, errors
from pyjax._src.array import Array, ArrayImpl
from pyjax._src.config import x64_enabled
from pyjax._src.lax import elementwise as lax
from pyjax._src.lax import shape_ops
from pyjax._src.lax.dynamic_slicing import dynamic_slice, dynamic_update_slice
from pyjax._src.lax.utils import kind
from pyjax._src.numpy import ufuncs
from pyjax._src.numpy.util import asarray_value, broadcast_to, promote_dtypes

# -- parsing: one entry per operand axis, plus the new axes ----------------------------------
#
# `_parse` gives the index as a tuple whose entries are `None` (a new axis), a slice, a Python
# int (a static index, canonical as JAX makes it) or an integer scalar Tracer/Array (a dynamic
# index), with the Ellipsis expanded and one entry per operand axis besides the `None`s; and
# where scalar booleans put their axis (see `_bool_axis`).


def _parse(idx, shape, narrow=True):
    if isinstance(idx, list):  # NumPy's old rule (a list is a tuple) is gone in JAX too
        raise TypeError("Using a non-tuple sequence for multidimensional indexing is not allowed; "
                        "use `arr[array(seq)]` (advanced indexing) or `arr[tuple(seq)]`.")
    entries = [_parse_one(i, pos, narrow) for pos, i in enumerate(idx if isinstance(idx, tuple) else (idx,))]
    n_ell = sum(1 for i in entries if i is Ellipsis)
    if n_ell > 1:
        raise IndexError("an index can only have a single ellipsis ('...')")
    used = sum(1 for i in entries if not (i is None or i is Ellipsis or type(i) is _Bool))
    if used > len(shape):
        raise IndexError(f"Too many indices: array is {len(shape)}-dimensional, but {used} were indexed")
    fill = [slice(None)] * (len(shape) - used)
    bool_axis = _bool_axis(entries, len(fill))
    k = entries.index(Ellipsis) if n_ell else len(entries)
    index = tuple(i for i in entries[:k] + fill + entries[k + 1:] if type(i) is not _Bool)
    return index, bool_axis


class _Bool:
    """A scalar boolean index (kept apart from ints, which bools are in Python)."""
    __slots__ = ("value",)

    def __init__(self, value):
        self.value = bool(value)


def _bool_axis(entries, n_fill):
    """(position, length) of the axis scalar booleans add, or None.

    Scalar booleans are advanced indices (NumPy's rule, which JAX follows): together they add one
    axis, of length 0 if any is False, else 1; the integers join them as advanced indices, so
    the axis stands where they stand when they are adjacent in the index, else in front.
    """
    bools = [i.value for i in entries if type(i) is _Bool]
    if not bools:
        return None
    advanced = [k for k, i in enumerate(entries)
                if type(i) is _Bool or not (i is None or i is Ellipsis or isinstance(i, slice))]
    position = 0
    if advanced == list(range(advanced[0], advanced[-1] + 1)):  # adjacent
        position = sum(n_fill if i is Ellipsis else 1 for i in entries[:advanced[0]])
    # NB: JAX 0.10.2 gets the shape wrong when None and a scalar bool are mixed (`y[None, True]`
    # on a (3, 4) array gives (1, 1, 1, 4)); we give NumPy's (1, 1, 3, 4).
    return position, int(all(bools))


def _parse_one(i, pos, narrow):
    if type(i) is int:  # the common case first
        return _static_int(i, narrow)
    if i is None or i is Ellipsis:
        return i
    if isinstance(i, slice):
        for name in ("start", "stop", "step"):
            v = getattr(i, name)
            if isinstance(v, core.Tracer):
                raise IndexError(f"Slice entries must be static integers. Got {i} at position {pos}; "
                                 f"use lax.dynamic_slice for a traced start.")
            if v is not None:
                operator.index(v)  # a float bound: TypeError, as NumPy
        return i
    if isinstance(i, (bool, np.bool_)):
        # NB: JAX 0.10.2 fails with an AssertionError on a NumPy bool scalar; we treat it as the
        # Python bool it equals.
        return _Bool(i)
    if isinstance(i, (Array, core.Tracer, np.ndarray, np.generic)):
        return _parse_array_index(i, pos, narrow)
    if isinstance(i, int):
        return _static_int(operator.index(i), narrow)
    if isinstance(i, str):
        raise TypeError(f"pyjax does not support string indexing; got idx={i!r}")
    if isinstance(i, (float, complex)):
        raise TypeError(f"Indexer must have integer or boolean type, got indexer with type {np.dtype(type(i)).name}")
    raise TypeError(f"Indexing with {type(i).__name__} is not supported (at position {pos}); "
                    f"use integers, slices, None, ... or arrays")


def _parse_array_index(i, pos, narrow):
    aval = core.get_aval(i)
    k = kind(aval.dtype)
    if k not in "biu":
        raise TypeError(f"Indexer must have integer or boolean type, got indexer with type {aval.dtype.name}")
    if aval.ndim:
        raise NotImplementedError(
            f"Indexing with an array of shape {aval.shape} (at position {pos}) is advanced indexing, "
            f"which needs the gather primitive; it is not implemented yet. Use basic indexing "
            f"(ints, slices, None, ...) or lax.dynamic_slice.")
    if isinstance(i, core.Tracer):
        if k == "b":
            raise errors.NonConcreteBooleanIndexError(
                f"Array boolean indices must be concrete; got {aval.str_short()} at position {pos}. "
                f"Use jnp.where(mask, x, other) to select values under a traced condition.")
        return i
    if type(i) is ArrayImpl:
        if k == "b":
            return _Bool(i._value)
        # a host value is static; a device value stays on the device (no transfer to read it)
        npy = i._npy
        return _static_int(npy[()], narrow) if npy is not None else i
    v = np.asarray(i)
    return _Bool(v) if k == "b" else _static_int(v[()], narrow)


def _static_int(i, narrow=True) -> int:
    """The value JAX reads at: a NumPy integer is narrowed to its canonical dtype as `astype`
    does (without x64, `np.int64(2**33 - 2)` reads at -2); a Python int outside the default
    integer range is an OverflowError. Updates (`narrow=False`) use the exact value, so such an
    index is out of bounds and the update is dropped, as in JAX for NumPy integers.
    """
    if not narrow:  # NB: JAX 0.10.2 writes `x.at[2**40]` at index 0 (the int wraps); we drop it
        return int(i)
    if type(i) is int:
        if not -2**31 <= i < 2**31 and not (x64_enabled() and -2**63 <= i < 2**63):
            raise OverflowError(f"Python int {i} too large to convert to "
                                f"{'int64' if x64_enabled() else 'int32'}")
        return i
    v = np.asarray(i)
    return int(v.astype(dtypes.canonicalize_dtype(v.dtype)))


def _check_nonempty(n, axis):
    if n == 0:  # nothing to clamp into
        raise IndexError(f"index is out of bounds for axis {axis} with size 0")


def _wrap(k, n, wrap_negative):
    return k + n if wrap_negative and k < 0 else k


def _is_signed(i):
    return kind(core.get_aval(i).dtype) == "i"


def _nonnegative(i):
    """`max(i, 0)` for a signed dynamic index: with wrapping off, a negative one is below range
    (dynamic_slice itself would count it from the end)."""
    return lax.max(i, np.zeros((), core.get_aval(i).dtype)[()]) if _is_signed(i) else i


# -- reads ---------------------------------------------------------------------------------------

def getitem(arr, idx, *, wrap_negative_indices=True):
    """`arr[idx]` for basic indices; out-of-bounds integers clamp (see the module docstring).

    Example:
        >>> jnp.arange(10.0)[15], jnp.arange(10.0)[-15]
        (Array(9., dtype=float32), Array(0., dtype=float32))
    """
    arr = asarray_value(arr)
    shape = core.get_aval(arr).shape
    index, bool_axis = _parse(idx, shape)
    starts, limits, strides, rev_axes, squeeze_axes, dyn, new_axes = [], [], [], [], [], [], []
    axis = out_axis = 0  # out_axis: position in the result (squeezed axes take none)
    for i in index:
        if i is None:
            new_axes.append(out_axis)
            out_axis += 1
            continue
        n = shape[axis]
        if isinstance(i, slice):
            start, limit, stride, rev = _slice_window(i, n)
            if rev:
                rev_axes.append(axis)
            out_axis += 1
        else:
            _check_nonempty(n, axis)
            if type(i) is int:
                start = min(max(_wrap(i, n, wrap_negative_indices), 0), n - 1)  # gather clamps
                limit = start + 1
            else:
                dyn.append((axis, i if wrap_negative_indices else _nonnegative(i)))
                start, limit = 0, n
            stride = 1
            squeeze_axes.append(axis)
        starts.append(start)
        limits.append(limit)
        strides.append(stride)
        axis += 1
    out = shape_ops.rev(arr, rev_axes) if rev_axes else arr
    if any(s != 0 for s in starts) or list(limits) != list(shape) or any(s != 1 for s in strides):
        out = shape_ops.slice(out, starts, limits, strides)
    if dyn:
        out = _dynamic_index(out, dyn)
    if squeeze_axes:
        out = shape_ops.squeeze(out, squeeze_axes)
    if new_axes:
        out = shape_ops.expand_dims(out, new_axes)
    if bool_axis is not None:
        out = _insert_bool_axis(out, *bool_axis)
    return out


def _insert_bool_axis(x, position, length):
    x = shape_ops.expand_dims(x, (position,))
    if length:
        return x
    out_shape = core.get_aval(x).shape
    return shape_ops.slice(x, [0] * len(out_shape), out_shape[:position] + (0,) + out_shape[position + 1:])


def _slice_window(s, n):
    """A static slice as (start, limit, stride, reversed): a negative step reverses the axis and
    takes a positive-step window of the reversed axis."""
    start, stop, step = s.indices(n)
    if step > 0:
        return start, max(stop, start), step, False
    length = len(range(start, stop, step))
    rstart = n - 1 - start
    return rstart, (rstart + (length - 1) * -step + 1 if length else rstart), -step, True


def _dynamic_index(x, dyn):
    """Select one position along each axis in `dyn` with dynamic_slice, which counts a negative
    index from the end and clamps the window into bounds (what JAX's indexing does)."""
    shape = core.get_aval(x).shape
    starts = [np.int32(0)] * len(shape)
    sizes = list(shape)
    for axis, i in dyn:
        starts[axis] = i
        sizes[axis] = 1
    return dynamic_slice(x, starts, sizes)


# -- updates: x.at[idx] ---------------------------------------------------------------------------

class _IndexUpdateHelper:
    """`x.at`: indexing it gives an `_IndexUpdateRef` whose methods return updated copies."""

    __slots__ = ("array",)

    def __init__(self, array):
        self.array = array

    def __getitem__(self, idx):
        return _IndexUpdateRef(self.array, idx)

    def __repr__(self):
        return f"_IndexUpdateHelper({self.array!r})"


class _IndexUpdateRef:
    """`x.at[idx]`. The keyword options are JAX's: `indices_are_sorted`/`unique_indices` are
    hints (ignored: basic indices are unique), `wrap_negative_indices=False` makes a negative index
    out of bounds, and `mode` accepts the modes that agree with the default for basic indices."""

    __slots__ = ("array", "index")

    def __init__(self, array, index):
        self.array = array
        self.index = index

    def __repr__(self):
        return f"_IndexUpdateRef({self.array!r}, {self.index!r})"

    def get(self, *, indices_are_sorted=False, unique_indices=False, mode=None, fill_value=None,
            out_sharding=None, wrap_negative_indices=True):
        """`x[idx]` (out-of-bounds integers clamp)."""
        _check_mode(mode, fill_value, gather=True)
        return getitem(self.array, self.index, wrap_negative_indices=wrap_negative_indices)

    def set(self, values, *, indices_are_sorted=False, unique_indices=False, mode=None,
            out_sharding=None, wrap_negative_indices=True):
        """`x[idx] = values`, functionally; an update at an out-of-bounds integer is dropped."""
        return _update(self.array, self.index, values, None, mode, wrap_negative_indices)

    def apply(self, func, *, indices_are_sorted=False, unique_indices=False, mode=None,
              wrap_negative_indices=True):
        """`x[idx] = func(x[idx])`, functionally."""
        return _update(self.array, self.index, np.zeros((), core.get_aval(self.array).dtype),
                       lambda cur, _: func(cur), mode, wrap_negative_indices)

    def add(self, values, *, indices_are_sorted=False, unique_indices=False, mode=None,
            out_sharding=None, wrap_negative_indices=True):
        """`x[idx] += values`, functionally."""
        return _update(self.array, self.index, values, lax.add, mode, wrap_negative_indices)

    def subtract(self, values, *, indices_are_sorted=False, unique_indices=False, mode=None,
                 out_sharding=None, wrap_negative_indices=True):
        """`x[idx] -= values`, functionally."""
        return _update(self.array, self.index, values, lax.sub, mode, wrap_negative_indices)

    def multiply(self, values, *, indices_are_sorted=False, unique_indices=False, mode=None,
                 out_sharding=None, wrap_negative_indices=True):
        """`x[idx] *= values`, functionally."""
        return _update(self.array, self.index, values, lax.mul, mode, wrap_negative_indices)

    mul = multiply

    def divide(self, values, *, indices_are_sorted=False, unique_indices=False, mode=None,
               out_sharding=None, wrap_negative_indices=True):
        """`x[idx] /= values`: as in JAX, `x / ones_like(x).at[idx].multiply(values)`, so an
        integer array gives a float result."""
        return ufuncs.true_divide(self.array, self._ones_times(values, mode, wrap_negative_indices))

    def power(self, values, *, indices_are_sorted=False, unique_indices=False, mode=None,
              out_sharding=None, wrap_negative_indices=True):
        """`x[idx] **= values`: as in JAX, `x ** ones_like(x).at[idx].multiply(values)`."""
        return ufuncs.power(self.array, self._ones_times(values, mode, wrap_negative_indices))

    def min(self, values, *, indices_are_sorted=False, unique_indices=False, mode=None,
            out_sharding=None, wrap_negative_indices=True):
        """`x[idx] = minimum(x[idx], values)`, functionally."""
        return _update(self.array, self.index, values, lax.min, mode, wrap_negative_indices)

    def max(self, values, *, indices_are_sorted=False, unique_indices=False, mode=None,
            out_sharding=None, wrap_negative_indices=True):
        """`x[idx] = maximum(x[idx], values)`, functionally."""
        return _update(self.array, self.index, values, lax.max, mode, wrap_negative_indices)

    def _ones_times(self, values, mode, wrap_negative_indices):
        x = asarray_value(self.array)
        aval = core.get_aval(x)
        ones = lax._convert_element_type(
            shape_ops.broadcast_in_dim(np.ones((), aval.dtype), aval.shape, ()), aval.dtype, aval.weak_type)
        return _update(ones, self.index, values, lax.mul, mode, wrap_negative_indices)


def _check_mode(mode, fill_value, gather):
    """Accept the modes that mean the default for basic indices (reads clamp, updates drop)."""
    if mode is not None and not isinstance(mode, str):
        mode = getattr(mode, "name", mode)  # a GatherScatterMode-like enum member
        mode = mode.lower() if isinstance(mode, str) else mode
    if mode not in (None, "clip", "fill", "drop", "fill_or_drop", "promise_in_bounds", "one_hot"):
        raise ValueError(f'Unknown gather mode "{mode}"')
    same = ("clip", "promise_in_bounds") if gather else ("fill", "drop", "fill_or_drop", "promise_in_bounds")
    if mode not in (None, *same) or fill_value is not None:
        what = f"mode={mode!r}" if mode not in (None, *same) else f"fill_value={fill_value!r}"
        raise NotImplementedError(f"x.at[...] with {what} needs the gather/scatter primitives of a "
                                  f"later issue; basic indexing supports the default mode only")


def _update_values(values, dtype):
    """As JAX: a Python int in the range of an integer `dtype` takes that dtype; otherwise the
    value's own (a Python int outside the default integer range is an OverflowError)."""
    if type(values) is int:
        if kind(dtype) in "iu" and np.iinfo(dtype).min <= values <= np.iinfo(dtype).max:
            return Array.from_host(np.asarray(values, dtype), False)
        _static_int(values)  # the OverflowError
    return asarray_value(values)


def _warn_unsafe_cast(y, dtype):
    y_dtype = core.get_aval(y).dtype
    if y_dtype != dtype and dtypes.result_type(y, dtype) != dtype:
        # JAX 0.10.2 warns here (and plans to make it an error); the update still casts
        warnings.warn(f"scatter inputs have incompatible types: cannot safely cast value from "
                      f"dtype={y_dtype.name} to dtype={np.dtype(dtype).name}. In future JAX "
                      f"releases this will result in an error.", FutureWarning, stacklevel=4)


def _update(arr, idx, values, combine, mode=None, wrap_negative_indices=True):
    """`arr` with `arr[idx]` replaced by `values` (`combine is None`) or by
    `combine(arr[idx], values)`, computed in the promoted dtype and cast back to `arr`'s dtype,
    as JAX's scatters do. The updated block is contiguous (ints, unit-step slices), so one
    dynamic_update_slice writes it; an out-of-bounds static integer drops the whole update, a
    traced one selects the old block back."""
    _check_mode(mode, None, gather=False)
    x = asarray_value(arr)
    aval = core.get_aval(x)
    y = _update_values(values, aval.dtype)
    index, bool_axis = _parse(idx, aval.shape, narrow=False)
    _warn_unsafe_cast(y, aval.dtype)
    starts, sizes, rev_axes, y_shape, in_bounds, dropped = _update_window(
        index, aval.shape, wrap_negative_indices)
    if bool_axis is not None:
        y_shape.insert(*bool_axis)
    if 0 in y_shape:
        return x
    y = broadcast_to(y, y_shape)  # exact: no extra leading axes (as JAX)
    if dropped:
        return x
    y = shape_ops.reshape(y, sizes)
    if rev_axes:
        y = shape_ops.rev(y, rev_axes)
    if combine is None and not in_bounds:
        new = lax._convert_element_type(y, aval.dtype, aval.weak_type)
    else:
        current = dynamic_slice(x, starts, sizes)
        new = _combine(combine, current, y, aval)
        for ok in in_bounds:
            new = lax.select_n(ok, current, new)
    return dynamic_update_slice(x, new, starts)


def _combine(combine, current, y, aval):
    if combine is None:
        new = y
    else:
        new = combine(*promote_dtypes(current, y))
    return lax._convert_element_type(new, aval.dtype, aval.weak_type)


def _update_window(index, shape, wrap_negative_indices):
    """The block `index` selects: its start indices and sizes in the operand, the axes to reverse
    (step -1 slices), the shape `values` broadcast to (that of `x[index]`), the traced in-bounds
    conditions, and whether a static index is out of bounds."""
    starts, sizes, rev_axes, y_shape, in_bounds = [], [], [], [], []
    dropped = False
    axis = 0
    for i in index:
        if i is None:
            y_shape.append(1)
            continue
        n = shape[axis]
        if isinstance(i, slice):
            start, stop, step = i.indices(n)
            if step not in (1, -1):
                raise NotImplementedError(
                    f"x.at[...] with the strided slice {i} needs the scatter primitive of a later issue")
            size = max((stop - start) * step, 0)
            starts.append(start if step == 1 else start - size + 1)
            if step == -1:
                rev_axes.append(axis)
            y_shape.append(size)
            sizes.append(size)
        else:
            _check_nonempty(n, axis)
            if type(i) is int:
                k = _wrap(i, n, wrap_negative_indices)
                dropped |= not 0 <= k < n  # scatter drops
                starts.append(k)
            else:
                i, ok = _dynamic_in_bounds(i, n, wrap_negative_indices)
                in_bounds.append(ok)
                starts.append(i)
            sizes.append(1)
        axis += 1
    return starts, sizes, rev_axes, y_shape, in_bounds, dropped


def _dynamic_in_bounds(i, n, wrap_negative_indices):
    """A traced index (widened so `n` fits its dtype) and whether it is in bounds."""
    dt = core.get_aval(i).dtype
    if dt.itemsize < 4:
        dt = np.dtype(np.int32)
        i = lax.convert_element_type(i, dt)
    c = lambda v: np.asarray(v, dt)[()]  # noqa: E731
    ok = lax.lt(i, c(n))
    if kind(dt) == "i":
        ok = lax.bitwise_and(ok, lax.ge(i, c(-n if wrap_negative_indices else 0)))
        if not wrap_negative_indices:
            i = _nonnegative(i)
    return i, ok
