"""`x[idx]` and `x.at[idx]`: NumPy's indexing on lax slices (basic indices) and on gather and
scatter (advanced indices).

Basic indices (integers, static or traced, slices, `None`, `...`, scalar booleans) read with
slice/dynamic_slice and update with dynamic_update_slice, as JAX does when it can: no gather.
Index arrays (integer arrays, lists or tuples inside a tuple, concrete boolean masks) and the
modes that need it go through one gather or scatter (see "advanced indexing" below).

As in JAX, an out-of-bounds integer index is not an error. A negative index wraps once (`x[-1]` is
the last element); then a read clamps into range ("gather clamps": `jnp.arange(10.)[15]` is 9.0
and `[-15]` is 0.0) and an update there is dropped ("scatter drops"); `.at[].get(mode="fill")`
reads `fill_value` instead, `mode="clip"` clamps updates too. Only an axis of length 0 cannot be
indexed.
"""
from __future__ import annotations

import enum
import math
import operator
import warnings

import numpy as np

from pyjax._src import core, dtypes, errors, tree_util
from pyjax._src.indexing import Slice
from pyjax._src.array import Array, ArrayImpl
from pyjax._src.config import config, x64_enabled
from pyjax._src.lax import elementwise as lax
from pyjax._src.lax import shape_ops, sharding_rules, slicing
from pyjax._src.lax.dynamic_slicing import dynamic_slice, dynamic_update_slice
from pyjax._src.lax.utils import kind
from pyjax._src.numpy import index_checks, ufuncs
from pyjax._src.numpy.util import asarray_value, broadcast_shapes, broadcast_to, promote_dtypes

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
    if isinstance(i, Slice):  # jax.ds(start, size): a window from a static or traced start
        return Slice(_parse_array_index(i.start, pos, narrow), i.size, i.stride) if i.is_dynamic_start else i
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
    assert not aval.ndim, "index arrays take the advanced path (has_advanced)"
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

def getitem(arr, idx, *, wrap_negative_indices=True, mode=None, fill_value=None,
            unique_indices=False, indices_are_sorted=False):
    """`arr[idx]` for basic indices; out-of-bounds integers clamp (see the module docstring).

    Example:
        >>> jnp.arange(10.0)[15], jnp.arange(10.0)[-15]
        (Array(9., dtype=float32), Array(0., dtype=float32))
    """
    if config._values["jax_check_static_indices"] and mode in (None, "promise_in_bounds"):
        index_checks.validate_static_indices(idx, core.get_aval(arr).shape, wrap_negative_indices)
    if (mode is not None and not _basic_read_mode(mode)) or has_advanced(idx):
        return _advanced_getitem(arr, idx, mode, fill_value, unique_indices, indices_are_sorted,
                                 wrap_negative_indices)
    arr = asarray_value(arr)
    shape = core.get_aval(arr).shape
    index, bool_axis = _parse(idx, shape)
    starts, limits, strides, rev_axes, squeeze_axes, dyn, new_axes = [], [], [], [], [], [], []
    post_strides = {}  # axis -> the stride of a strided jax.ds window, taken after it is cut
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
        elif isinstance(i, Slice):  # a dynamic_slice window (clamped into range), then strided
            window = (i.size - 1) * i.stride + 1 if i.size else 0
            k = i.start if i.is_dynamic_start else np.int32(i.start)
            dyn.append((axis, k if wrap_negative_indices else _nonnegative(k), window))
            start, limit, stride = 0, n, 1
            if i.stride != 1:
                post_strides[axis] = i.stride
            out_axis += 1
        else:
            _check_nonempty(n, axis)
            if type(i) is int and 0 <= _wrap(i, n, wrap_negative_indices) < n:
                start = _wrap(i, n, wrap_negative_indices)
                limit = start + 1
            elif type(i) is int:  # out of bounds: a dynamic slice clamps it, as in JAX (so
                # checkify's index checks see it)
                k = np.int32(min(max(i, -2**31), 2**31 - 1))
                dyn.append((axis, k if wrap_negative_indices else _nonnegative(k), 1))
                start, limit = 0, n
            else:
                dyn.append((axis, i if wrap_negative_indices else _nonnegative(i), 1))
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
    if post_strides:
        cut = core.get_aval(out).shape
        out = shape_ops.slice(out, [0] * len(cut), cut, [post_strides.get(a, 1) for a in range(len(cut))])
    if squeeze_axes:
        out = shape_ops.squeeze(out, squeeze_axes)
    if new_axes:
        out = shape_ops.expand_dims(out, new_axes)
    if bool_axis is not None:
        out = _insert_bool_axis(out, *bool_axis)
    return out


class IndexingStrategy(enum.Enum):
    """How `rewriting_take` is asked to read (JAX's names). NB: pyjax's `getitem` picks slices or
    a gather by itself; a strategy here only checks that the index suits it, with JAX's errors."""
    AUTO = "auto"
    GATHER = "gather"
    SCATTER = "scatter"
    STATIC_SLICE = "static_slice"
    DYNAMIC_SLICE = "dynamic_slice"


def rewriting_take(arr, idx, *, indices_are_sorted=False, unique_indices=False, mode=None,
                   fill_value=None, normalize_indices=True, out_sharding=None,
                   strategy=IndexingStrategy.AUTO):
    """`arr[idx]` (JAX's internal entry point, with its `strategy` and `normalize_indices`)."""
    if not isinstance(strategy, IndexingStrategy):
        raise TypeError(f"Expected strategy to be IndexingStrategy; got {strategy}")
    if strategy in (IndexingStrategy.STATIC_SLICE, IndexingStrategy.DYNAMIC_SLICE):
        index_checks.check_slice_strategy(idx, core.get_aval(arr).shape, strategy.value, mode,
                                          normalize_indices)
    del out_sharding  # NB: the result is laid out as the operand's (no auto_axes gather)
    return getitem(arr, idx, wrap_negative_indices=normalize_indices, mode=mode,
                   fill_value=fill_value, unique_indices=unique_indices,
                   indices_are_sorted=indices_are_sorted)


def _insert_bool_axis(x, position, length):
    x = shape_ops.expand_dims(x, (position,))
    if length:
        return x
    out_shape = core.get_aval(x).shape
    return shape_ops.slice(x, [0] * len(out_shape), out_shape[:position] + (0,) + out_shape[position + 1:])


def _slice_window(s, n):
    """A static slice as (start, limit, stride, reversed): a negative step reverses the axis and
    takes a positive-step window of the reversed axis."""
    if type(n) in core.symbolic_dim_types:
        return _symbolic_slice_window(s, n)
    start, stop, step = s.indices(n)
    if step > 0:
        return start, max(stop, start), step, False
    length = len(range(start, stop, step))
    rstart = n - 1 - start
    return rstart, (rstart + (length - 1) * -step + 1 if length else rstart), -step, True


def _symbolic_slice_window(s, n):
    """A slice of an axis of symbolic size `n` (export): static ints, positive step; an int
    bound counts from the end when negative and is taken to be within the axis."""
    step = 1 if s.step is None else operator.index(s.step)
    if step <= 0:
        raise errors.InconclusiveDimensionOperation(
            f"slicing an axis of symbolic size {n} with a non-positive step {step} is not supported")
    bound = lambda i, default: default if i is None else (n + i if i < 0 else operator.index(i))  # noqa: E731
    return bound(s.start, 0), bound(s.stop, n), step, False


def _dynamic_index(x, dyn):
    """Cut a window (axis, start, size) along each axis in `dyn` with dynamic_slice, which counts
    a negative start from the end and clamps the window into bounds (what JAX's indexing does)."""
    shape = core.get_aval(x).shape
    starts = [np.int32(0)] * len(shape)
    sizes = list(shape)
    for axis, i, size in dyn:
        starts[axis] = i
        sizes[axis] = size
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
    """`x.at[idx]`. The keyword options are JAX's: `mode` ("clip", "fill"/"drop",
    "promise_in_bounds"; reads default to promise_in_bounds, where XLA clamps, and updates to
    dropping out-of-bounds indices), `fill_value` (reads in "fill" mode), `indices_are_sorted`
    and `unique_indices` (hints passed to gather/scatter), `wrap_negative_indices=False` (a
    negative index is out of bounds)."""

    __slots__ = ("array", "index")

    def __init__(self, array, index):
        self.array = array
        self.index = index

    def __repr__(self):
        return f"_IndexUpdateRef({self.array!r}, {self.index!r})"

    def get(self, *, indices_are_sorted=False, unique_indices=False, mode=None, fill_value=None,
            out_sharding=None, wrap_negative_indices=True):
        """`x[idx]`, with the out-of-bounds behaviour of `mode`; a gather laid out as
        `out_sharding` (under sharding in types, as JAX: run with the mesh's Explicit axes made
        Auto, then resharded)."""
        def read(arr, idx):
            return getitem(arr, idx, wrap_negative_indices=wrap_negative_indices, mode=mode,
                           fill_value=fill_value, unique_indices=unique_indices,
                           indices_are_sorted=indices_are_sorted)
        if out_sharding is not None and (has_advanced(self.index) or not _basic_read_mode(mode)):
            return _laid_out(read, out_sharding, self.array, self.index)
        return read(self.array, self.index)

    def _do(self, values, how, mode, wrap_negative_indices, unique_indices, indices_are_sorted,
            func=None, out_sharding=None):
        if out_sharding is not None:
            return _laid_out(lambda arr, idx, v: _IndexUpdateRef(arr, idx)._do(
                v, how, mode, wrap_negative_indices, unique_indices, indices_are_sorted, func),
                out_sharding, self.array, self.index, values)
        if _needs_scatter(self.index, mode):
            return _advanced_update(self.array, self.index, values, how, _scatter_mode(mode),
                                    unique_indices, indices_are_sorted, wrap_negative_indices, func)
        combine = (lambda cur, _: func(cur)) if how == "apply" else _COMBINE[how]
        return _update(self.array, self.index, values, combine, wrap_negative_indices)

    def set(self, values, *, indices_are_sorted=False, unique_indices=False, mode=None,
            out_sharding=None, wrap_negative_indices=True):
        """`x[idx] = values`, functionally; an update at an out-of-bounds index is dropped."""
        return self._do(values, None, mode, wrap_negative_indices, unique_indices, indices_are_sorted,
                        out_sharding=out_sharding)

    def apply(self, func, *, indices_are_sorted=False, unique_indices=False, mode=None,
              wrap_negative_indices=True):
        """`x[idx] = func(x[idx])`, functionally (a repeated index applies `func` repeatedly)."""
        zero = np.zeros((), core.get_aval(asarray_value(self.array)).dtype)
        return self._do(zero, "apply", mode, wrap_negative_indices, unique_indices, indices_are_sorted,
                        func)

    def add(self, values, *, indices_are_sorted=False, unique_indices=False, mode=None,
            out_sharding=None, wrap_negative_indices=True):
        """`x[idx] += values`, functionally (repeated indices accumulate)."""
        return self._do(values, "add", mode, wrap_negative_indices, unique_indices, indices_are_sorted,
                        out_sharding=out_sharding)

    def subtract(self, values, *, indices_are_sorted=False, unique_indices=False, mode=None,
                 out_sharding=None, wrap_negative_indices=True):
        """`x[idx] -= values`, functionally."""
        return self._do(values, "sub", mode, wrap_negative_indices, unique_indices, indices_are_sorted,
                        out_sharding=out_sharding)

    def multiply(self, values, *, indices_are_sorted=False, unique_indices=False, mode=None,
                 out_sharding=None, wrap_negative_indices=True):
        """`x[idx] *= values`, functionally."""
        return self._do(values, "mul", mode, wrap_negative_indices, unique_indices, indices_are_sorted,
                        out_sharding=out_sharding)

    mul = multiply

    def divide(self, values, *, indices_are_sorted=False, unique_indices=False, mode=None,
               out_sharding=None, wrap_negative_indices=True):
        """`x[idx] /= values`: as in JAX, `x / ones_like(x).at[idx].multiply(values)`, so an
        integer array gives a float result."""
        ones = self._ones_times(values, mode, wrap_negative_indices, unique_indices, indices_are_sorted)
        return ufuncs.true_divide(self.array, ones)

    def power(self, values, *, indices_are_sorted=False, unique_indices=False, mode=None,
              out_sharding=None, wrap_negative_indices=True):
        """`x[idx] **= values`: as in JAX, `x ** ones_like(x).at[idx].multiply(values)`."""
        ones = self._ones_times(values, mode, wrap_negative_indices, unique_indices, indices_are_sorted)
        return ufuncs.power(self.array, ones)

    def min(self, values, *, indices_are_sorted=False, unique_indices=False, mode=None,
            out_sharding=None, wrap_negative_indices=True):
        """`x[idx] = minimum(x[idx], values)`, functionally."""
        return self._do(values, "min", mode, wrap_negative_indices, unique_indices, indices_are_sorted,
                        out_sharding=out_sharding)

    def max(self, values, *, indices_are_sorted=False, unique_indices=False, mode=None,
            out_sharding=None, wrap_negative_indices=True):
        """`x[idx] = maximum(x[idx], values)`, functionally."""
        return self._do(values, "max", mode, wrap_negative_indices, unique_indices, indices_are_sorted,
                        out_sharding=out_sharding)

    def _ones_times(self, values, mode, wrap_negative_indices, unique_indices, indices_are_sorted):
        x = asarray_value(self.array)
        aval = core.get_aval(x)
        ones = lax._convert_element_type(
            shape_ops.broadcast_in_dim(np.ones((), aval.dtype), aval.shape, ()), aval.dtype, aval.weak_type)
        return _IndexUpdateRef(ones, self.index)._do(values, "mul", mode, wrap_negative_indices,
                                                     unique_indices, indices_are_sorted)


# JAX's auto_axes (pyjax/_src/reshard.py, a layer above: it fills this slot when imported):
# an indexed read or update given out_sharding= runs with the mesh's Explicit axes made Auto and
# its result resharded to out_sharding.
auto_axes_slot: list = []


def _laid_out(fn, out_sharding, arr, idx, *rest):
    """`fn(arr, idx, *rest)` laid out as `out_sharding` (None over an empty mesh: as it is). The
    index's arrays go through auto_axes as arguments, its static parts stay in the closure."""
    s = sharding_rules.canonical_out_sharding(out_sharding, "take")
    if s is None or not auto_axes_slot:
        return fn(arr, idx, *rest)
    leaves, tree = tree_util.tree_flatten(idx)
    at = [i for i, x in enumerate(leaves) if isinstance(x, (Array, core.Tracer, np.ndarray))]

    def inner(a, dyn, *r):
        full = list(leaves)
        for i, x in zip(at, dyn, strict=True):
            full[i] = x
        return fn(a, tree_util.tree_unflatten(tree, full), *r)
    return auto_axes_slot[0](inner, out_sharding=s, axes=s.mesh.explicit_axes)(
        arr, [leaves[i] for i in at], *rest)


_COMBINE = {None: None, "add": lax.add, "sub": lax.sub, "mul": lax.mul, "min": lax.min, "max": lax.max}


def _scatter_mode(mode):
    mode = slicing.GatherScatterMode.from_any(mode)
    if mode == slicing.GatherScatterMode.ONE_HOT:
        raise NotImplementedError("x.at[...] updates do not support mode='one_hot'")
    return mode


def _basic_read_mode(mode) -> bool:
    """Modes in which a basic index reads as slices do (out-of-bounds integers clamp)."""
    return mode is None or _gather_mode(mode) in (slicing.GatherScatterMode.CLIP,
                                                  slicing.GatherScatterMode.PROMISE_IN_BOUNDS)


def _needs_scatter(idx, mode) -> bool:
    """Updates go through scatter unless the index is basic with unit-step slices and the mode
    drops out-of-bounds updates (then one dynamic_update_slice writes the block)."""
    if has_advanced(idx) or _scatter_mode(mode) == slicing.GatherScatterMode.CLIP:
        return True
    entries = idx if isinstance(idx, tuple) else (idx,)
    return any(isinstance(i, slice) and i.step not in (None, 1, -1) and not isinstance(i.step, core.Tracer)
               for i in entries)


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


def _update(arr, idx, values, combine, wrap_negative_indices=True):
    """`arr` with `arr[idx]` replaced by `values` (`combine is None`) or by
    `combine(arr[idx], values)`, computed in the promoted dtype and cast back to `arr`'s dtype,
    as JAX's scatters do. The updated block is contiguous (ints, unit-step slices), so one
    dynamic_update_slice writes it; an out-of-bounds static integer drops the whole update, a
    traced one selects the old block back."""
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


# -- advanced indexing: gather and scatter ---------------------------------------------------------
#
# Integer arrays (and lists or tuples inside the index, and concrete boolean masks) broadcast
# together into one block of result axes, which stands where they stand when they are adjacent in
# the index and in front otherwise (NumPy's rule; integers and scalar booleans count as advanced
# indices here). The whole index becomes one gather (reads) or one scatter (updates), planned once
# by `_plan`: unit-step slices are windows, other slices iota index components, and None axes are
# inserted after the gather (removed from the updates before the scatter).


class _Arr:
    """An integer index array along operand axis `axis` (None for a scalar boolean, whose length
    0/1 axis joins the broadcast without indexing anything)."""
    __slots__ = ("value", "axis")

    def __init__(self, value, axis=None):
        self.value, self.axis = value, axis


class _Mask:
    """A concrete boolean mask over `value.ndim` axes (one _Arr per axis, from its nonzeros)."""
    __slots__ = ("value",)

    def __init__(self, value):
        self.value = value


def _is_array_index(i):
    if isinstance(i, (list, tuple)):
        return True
    return isinstance(i, (Array, core.Tracer, np.ndarray)) and core.get_aval(i).ndim > 0


def has_advanced(idx) -> bool:
    """Whether `idx` holds an index array (a list or tuple inside a tuple counts, as in JAX)."""
    if isinstance(idx, tuple):
        return any(_is_array_index(i) for i in idx)
    return not isinstance(idx, list) and _is_array_index(idx)


def _holds_tracer(i):
    if isinstance(i, (list, tuple)):
        return any(_holds_tracer(x) for x in i)
    return isinstance(i, core.Tracer)


def _stacked(i):
    """A nested list/tuple of scalars and arrays, some traced, as one array (as jnp.array)."""
    if not isinstance(i, (list, tuple)):
        return asarray_value(i)
    parts = promote_dtypes(*[_stacked(x) for x in i])
    return shape_ops.concatenate([shape_ops.expand_dims(p, (0,)) for p in parts], 0)


def _array_entry(i, pos):
    if isinstance(i, (list, tuple)) and _holds_tracer(i):   # e.g. jit-traced ints in a tuple
        i = _stacked(i)
    elif isinstance(i, (list, tuple)):
        v = np.asarray(i)
        i = v.astype(np.int32) if v.size == 0 else v
    aval = core.get_aval(i)
    k = kind(aval.dtype)
    if k not in "biu":
        raise TypeError(f"Indexer must have integer or boolean type, got indexer with type {aval.dtype.name}")
    if k == "b":
        if isinstance(i, core.Tracer):
            raise errors.NonConcreteBooleanIndexError(
                f"Array boolean indices must be concrete; got {aval.str_short()} at position {pos}. "
                f"Under jit, use jnp.where(mask, x, other), or jnp.nonzero(mask, size=...).")
        return _Mask(np.asarray(i))
    if isinstance(i, ArrayImpl) and i._npy is not None:
        i = i._npy  # a host value is static: its normalization happens in NumPy
    if isinstance(i, np.ndarray):  # as JAX: a 64-bit array wraps to 32 bits without x64
        i = i.astype(dtypes.canonicalize_dtype(i.dtype))
    return _Arr(i, 0)


def _parse_advanced(idx, shape, narrow):
    """Entries with the Ellipsis expanded, masks split, and every _Arr given its operand axis."""
    if isinstance(idx, list):
        _parse(idx, shape)  # the TypeError JAX raises
    entries = []
    for pos, i in enumerate(idx if isinstance(idx, tuple) else (idx,)):
        if _is_array_index(i):
            entries.append(_array_entry(i, pos))
            continue
        e = _parse_one(i, pos, narrow)
        if type(e) is _Bool:
            e = _Arr(np.zeros(int(e.value), np.int32))
        elif not (e is None or e is Ellipsis or isinstance(e, slice)):
            e = _Arr(e, 0)  # an integer is a 0-d index array
        entries.append(e)
    n_ell = sum(1 for e in entries if e is Ellipsis)
    if n_ell > 1:
        raise IndexError("an index can only have a single ellipsis ('...')")
    used = sum(_width(e) for e in entries)
    if used > len(shape):
        raise IndexError(f"Too many indices: array is {len(shape)}-dimensional, but {used} were indexed")
    k = entries.index(Ellipsis) if n_ell else len(entries)
    fill = [slice(None)] * (len(shape) - used) or ([_SEPARATOR] if n_ell else [])
    out, axis = [], 0
    for e in entries[:k] + fill + entries[k + 1:]:
        if type(e) is _Mask:
            _check_mask(e.value, shape, axis)
            for nz in np.nonzero(e.value):
                out.append(_Arr(nz.astype(np.int32) if nz.size < 2**31 else nz, axis))
                axis += 1
            continue
        if type(e) is _Arr and e.axis is not None:
            e = _Arr(e.value, axis)
        out.append(e)
        axis += _width(e)
    return out


# An Ellipsis standing for no axes still separates the index arrays around it (as in NumPy and
# JAX: `x[i, ..., j]` on a 2-D x puts the broadcast block in front).
_SEPARATOR = object()


def _width(e):
    """How many operand axes an entry indexes."""
    if e is None or e is Ellipsis or e is _SEPARATOR or (type(e) is _Arr and e.axis is None):
        return 0
    return e.value.ndim if type(e) is _Mask else 1


def _check_mask(mask, shape, axis):
    want = shape[axis:axis + mask.ndim]
    # (as JAX and NumPy: an empty mask axis matches any length)
    if len(want) != mask.ndim or any(m not in (0, w) for m, w in zip(mask.shape, want)):
        raise IndexError(f"boolean index did not match shape of indexed array in index {axis}: "
                         f"got {mask.shape}, expected {list(want)}")


class _Plan:
    """An index as one gather/scatter. `layout`: the result's axes in order, as ("none",),
    ("window", axis), ("iota", axis) or ("adv",) (the broadcast block); `components`: (operand
    axis, index values broadcast to the batch shape) per index-vector entry; `slice_sizes`;
    `rev`: result axes of step -1 windows (reversed after reading, before writing)."""
    __slots__ = ("layout", "components", "slice_sizes", "rev", "batch_shape", "out_shape", "adv_rank")


def _plan(entries, shape, wrap_negative):
    plan = _Plan()
    arrs = [e for e in entries if type(e) is _Arr]
    adv_shape = _broadcast_index_shapes([np.shape(e.value) for e in arrs])
    for e in arrs:
        if e.axis is not None and math.prod(adv_shape) != 0:  # an empty axis takes empty arrays only
            _check_nonempty(shape[e.axis], e.axis)
    plan.layout, windows, iotas, sizes = _layout(entries, shape)
    plan.slice_sizes, plan.adv_rank = tuple(sizes), len(adv_shape)
    plan.batch_shape, adv_dims, iota_dim = _batch_axes(plan.layout, adv_shape, iotas)
    comps = [(e.axis, ("adv", _normalize(e.value, shape[e.axis], wrap_negative), adv_dims))
             for e in arrs if e.axis is not None]
    comps += [(a, ("iota", v, (iota_dim[a],))) for a, v in iotas.items()]
    comps += [(a, ("const", start, ())) for a, start in windows.items() if start != 0]
    plan.components = sorted(comps, key=lambda c: c[0])
    plan.out_shape, plan.rev = _result_shape(plan.layout, adv_shape, iotas, sizes)
    return plan


def _layout(entries, shape):
    """The result's axes in order, and per operand axis: window starts (unit-step slices), iota
    values (other slices) and slice sizes (1 where an index array or iota indexes)."""
    positions = [k for k, e in enumerate(entries) if type(e) is _Arr]
    adjacent = bool(positions) and positions == list(range(positions[0], positions[-1] + 1))
    layout, windows, iotas, sizes = [], {}, {}, list(shape)
    if positions and not adjacent:
        layout.append(("adv",))
    axis = 0
    for k, e in enumerate(entries):
        if e is None:
            layout.append(("none",))
        elif isinstance(e, slice) and type(shape[axis]) in core.symbolic_dim_types:  # (export)
            start, stop, step, _ = _symbolic_slice_window(e, shape[axis])
            if step != 1:
                raise errors.InconclusiveDimensionOperation(
                    f"a strided slice {e} of an axis of symbolic size {shape[axis]} combined with "
                    "array indices is not supported")
            windows[axis], sizes[axis] = start, stop - start
            layout.append(("window", axis, False))
        elif isinstance(e, slice):
            start, stop, step = e.indices(shape[axis])
            length = len(range(start, stop, step))
            if step in (1, -1):
                windows[axis] = start if step == 1 else start - length + 1
                sizes[axis] = length
                layout.append(("window", axis, step == -1))
            else:
                iotas[axis] = np.arange(start, stop, step, dtype=np.int64)
                sizes[axis] = 1
                layout.append(("iota", axis))
        elif type(e) is _Arr:
            if e.axis is not None:
                sizes[axis] = 1
            if adjacent and k == positions[0]:
                layout.append(("adv",))
        axis += _width(e)
    return layout, windows, iotas, sizes


def _batch_axes(layout, adv_shape, iotas):
    """The gather's batch shape (the broadcast block and the iota axes, in result order), the
    positions of the block in it, and each iota's position."""
    batch_shape, adv_dims, iota_dim = [], None, {}
    for item in layout:
        if item[0] == "adv":
            adv_dims = tuple(range(len(batch_shape), len(batch_shape) + len(adv_shape)))
            batch_shape += adv_shape
        elif item[0] == "iota":
            iota_dim[item[1]] = len(batch_shape)
            batch_shape.append(len(iotas[item[1]]))
    return tuple(batch_shape), adv_dims, iota_dim


def _result_shape(layout, adv_shape, iotas, sizes):
    """`x[idx]`'s shape, and its axes that step -1 windows reverse."""
    out_shape, rev = [], []
    for item in layout:
        if item[0] == "adv":
            out_shape += adv_shape
        elif item[0] == "iota":
            out_shape.append(len(iotas[item[1]]))
        elif item[0] == "window":
            if item[2]:
                rev.append(len(out_shape))
            out_shape.append(sizes[item[1]])
        else:
            out_shape.append(1)
    return tuple(out_shape), rev


def _broadcast_index_shapes(shapes):
    return list(broadcast_shapes(*shapes))  # (its ValueError names the shapes; symbolic dims ok)


def _index_dtype(values, shape):
    big = max((d for d in shape if type(d) is int), default=0) >= 2**31  # (symbolic: int32)
    wide = any(np.dtype(core.get_aval(v).dtype).itemsize == 8 for v in values)
    return np.dtype(np.int64) if x64_enabled() and (big or wide) else np.dtype(np.int32)


def _normalize(i, n, wrap_negative):
    """Negative indices count from the end (once); then out of range is left to the mode."""
    if isinstance(i, (np.ndarray, np.generic, int)):
        v = np.asarray(i)
        if v.dtype.kind == "u":
            return v
        v = v.astype(np.int64)
        return np.where(v < 0, v + n, v) if wrap_negative else v
    aval = core.get_aval(i)
    if kind(aval.dtype) != "i" or not wrap_negative:
        return i
    if aval.dtype.itemsize < 4:
        i = lax.convert_element_type(i, np.int32)
        aval = core.get_aval(i)
    zero, size = np.zeros((), aval.dtype)[()], np.asarray(n, aval.dtype)[()]
    return lax.select_n(lax.lt(i, zero), i, lax.add(i, size))


def _gather_indices(plan):
    """The (batch..., k) index array of the plan's components, static when they all are."""
    comps = [v for _, v in plan.components]
    dt = _index_dtype([v[1] for v in comps if not isinstance(v[1], (int, np.ndarray))], plan.slice_sizes)
    shape = plan.batch_shape
    static = all(isinstance(v[1], (int, np.ndarray)) for v in comps)
    if static:
        cols = []
        for how, v, dims in comps:
            v = np.asarray(v)
            cols.append(np.broadcast_to(_place(v, dims, len(shape), how), shape))
        arr = np.stack(cols, -1) if cols else np.zeros(shape + (0,), np.int64)
        return _narrow_static(arr, dt)
    cols = []
    for how, v, dims in comps:
        v = _narrow_static(np.asarray(v), dt) if isinstance(v, (int, np.ndarray)) else lax.convert_element_type(v, dt)
        vshape = np.shape(v) if isinstance(v, np.ndarray) else core.get_aval(v).shape
        if how == "adv":  # right-aligned in the broadcast block
            d = dims[len(dims) - len(vshape):]
            keep = [j for j, s in enumerate(vshape) if s == shape[d[j]]]
            if len(keep) != len(vshape):
                v = shape_ops.reshape(v, [vshape[j] for j in keep])
            dims = tuple(d[j] for j in keep)
        cols.append(shape_ops.broadcast_in_dim(v, shape + (1,), dims))
    return shape_ops.concatenate(cols, len(shape))


def _place(v, dims, rank, how):
    """A static component as an array of `rank` axes, its own axes at `dims` (right-aligned)."""
    if how == "const":
        return v.reshape((1,) * rank)
    d = dims[len(dims) - v.ndim:] if how == "adv" else dims
    full = [1] * rank
    for j, s in zip(d, v.shape):
        full[j] = s
    return v.reshape(full)


def _narrow_static(arr, dt):
    """Static indices as `dt`; values out of its range saturate (they are out of bounds anyway)."""
    info = np.iinfo(dt)
    return np.clip(arr, info.min, info.max).astype(dt)


def _gather_dnums(plan):
    offset = tuple(k for k, item in enumerate(_result_items(plan)) if item[0] == "window")
    collapsed = tuple(sorted({a for a, (how, _, _) in plan.components if how != "const"}))
    return slicing.GatherDimensionNumbers(offset_dims=offset, collapsed_slice_dims=collapsed,
                                          start_index_map=tuple(a for a, _ in plan.components))


def _result_items(plan):
    """The gather's output axes: the layout without None axes, the broadcast block expanded."""
    out = []
    for item in plan.layout:
        if item[0] == "adv":
            out += [item] * plan.adv_rank
        elif item[0] != "none":
            out.append(item)
    return out


def _none_axes(plan):
    out, k = [], 0
    for item in plan.layout:
        if item[0] == "none":
            out.append(k)
        k += plan.adv_rank if item[0] == "adv" else 1
    return out


def _gather_mode(mode):
    if mode is None:  # as JAX: a fill_value alone changes nothing
        return slicing.GatherScatterMode.PROMISE_IN_BOUNDS
    mode = slicing.GatherScatterMode.from_any(mode)
    if mode == slicing.GatherScatterMode.ONE_HOT:
        raise NotImplementedError("mode='one_hot' is not supported by pyjax's indexing (JAX 0.10.2's "
                                  "getitem fails on it too)")
    return mode


def _advanced_getitem(arr, idx, mode, fill_value, unique_indices, indices_are_sorted, wrap_negative):
    x = asarray_value(arr)
    shape = core.get_aval(x).shape
    plan = _plan(_parse_advanced(idx, shape, True), shape, wrap_negative)
    out = slicing.gather(x, _gather_indices(plan), _gather_dnums(plan), plan.slice_sizes,
                         unique_indices=unique_indices, indices_are_sorted=indices_are_sorted,
                         mode=_gather_mode(mode), fill_value=fill_value)
    if plan.rev:
        out = shape_ops.rev(out, _shift_rev(plan))
    nones = _none_axes(plan)
    return shape_ops.expand_dims(out, nones) if nones else out


def _shift_rev(plan):
    """Reversed axes of the result, counted without its None axes."""
    nones = _none_axes(plan)
    return tuple(r - sum(1 for n in nones if n < r) for r in plan.rev)


_SCATTERS = {None: slicing.scatter, "add": slicing.scatter_add, "sub": slicing.scatter_sub,
             "mul": slicing.scatter_mul, "min": slicing.scatter_min, "max": slicing.scatter_max}


def _advanced_update(arr, idx, values, how, mode, unique_indices, indices_are_sorted, wrap_negative,
                     func=None):
    """`arr.at[idx]` updated by a scatter: `how` None (set), "add", "sub", "mul", "min", "max"
    or "apply" (`func`). As JAX: the values are cast to `arr`'s dtype first."""
    x = asarray_value(arr)
    aval = core.get_aval(x)
    plan = _plan(_parse_advanced(idx, aval.shape, False), aval.shape, wrap_negative)
    dnums = _scatter_dnums(plan)
    nones = _none_axes(plan)
    y_shape = tuple(s for k, s in enumerate(plan.out_shape) if k not in nones)
    indices = _gather_indices(plan)
    mode = slicing.GatherScatterMode.FILL_OR_DROP if mode is None else mode
    if how == "apply":
        return slicing.scatter_apply(x, indices, func, dnums, update_shape=y_shape, mode=mode,
                                     indices_are_sorted=indices_are_sorted, unique_indices=unique_indices)
    y = _update_values(values, aval.dtype)
    _warn_unsafe_cast(y, aval.dtype)
    x, y = promote_dtypes(x, y)  # combined in the promoted dtype, then cast back (as JAX)
    y = broadcast_to(y, plan.out_shape)
    if nones:
        y = shape_ops.reshape(y, y_shape)
    if plan.rev:
        y = shape_ops.rev(y, _shift_rev(plan))
    out = _SCATTERS[how](x, indices, y, dnums, indices_are_sorted=indices_are_sorted,
                         unique_indices=unique_indices, mode=mode)
    return lax._convert_element_type(out, aval.dtype, aval.weak_type)


def _scatter_dnums(plan):
    g = _gather_dnums(plan)
    return slicing.ScatterDimensionNumbers(update_window_dims=g.offset_dims,
                                           inserted_window_dims=g.collapsed_slice_dims,
                                           scatter_dims_to_operand_dims=g.start_index_map)
