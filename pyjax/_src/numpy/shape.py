"""Shape manipulation: reshape, ravel, transpose, swapaxes, moveaxis, squeeze, expand_dims,
broadcast_to/broadcast_arrays, concatenate, stack, hstack/vstack/dstack, split, tile, repeat,
flip, pad (constant mode), atleast_*d."""
from __future__ import annotations

import builtins
import math
import operator

import numpy as np

from pyjax._src import core
from pyjax._src.array import Array
from pyjax._src.lax import elementwise as lax_elt
from pyjax._src.lax import shape_ops as lax
from pyjax._src.lax import slicing as lax_slicing
from pyjax._src.lax.control_flow import cumulative as lax_cum
from pyjax._src.lax.utils import canonicalize_axis, canonicalize_axes
from pyjax._src.numpy.util import static_int
from pyjax._src.numpy.util import (
    asarray_value, broadcast_shapes, broadcast_to, check_arraylike, promote_dtypes)


def _aval(x):
    return core.get_aval(x)


def _arraylike(fname, a):
    """`a` as an array, after JAX's check that it is not a list or tuple."""
    check_arraylike(fname, a)
    return asarray_value(a)


def _axis_items(axis, fname, name="axis"):
    """An int-or-sequence axis argument as a tuple of its (unchecked) entries."""
    if isinstance(axis, np.ndarray) and axis.ndim:   # (an ndarray has __index__, even 1-D)
        return tuple(axis)
    if hasattr(axis, "__index__"):
        return (axis,)
    if isinstance(axis, (tuple, list, range)):  # (any sequence, as JAX: expand_dims(x, range(2)))
        return tuple(axis)
    raise TypeError(f"{fname}: {name} must be an integer or a sequence of integers, got "
                    f"{axis!r} of type {type(axis).__name__}")


def _is_minus_one(d):
    return type(d) is int and d == -1


def _compute_newshape(size, newshape):
    newshape = [d if type(d) in core.symbolic_dim_types else operator.index(d)
                if not isinstance(d, core.Tracer) else core.concrete_dim(d, "reshape") for d in newshape]
    if newshape.count(-1) > 1:
        raise TypeError(f"reshape: can only specify one unknown dimension, got {tuple(newshape)}")
    if any(_is_minus_one(d) for d in newshape):
        known = math.prod(d for d in newshape if not _is_minus_one(d))
        if known == 0 or size % known:
            raise TypeError(f"cannot reshape array of size {size} into shape {tuple(newshape)}")
        newshape[[_is_minus_one(d) for d in newshape].index(True)] = size // known
    if math.prod(newshape) != size:
        raise TypeError(f"cannot reshape array of size {size} into shape {tuple(newshape)}")
    return tuple(newshape)


def reshape(a, shape=None, order="C", *, newshape=None, copy=None, out_sharding=None):
    """Reshape `a`; one dimension may be -1 (inferred). `out_sharding` lays the result out
    over the mesh (a PartitionSpec or NamedSharding, as `lax.reshape`'s)."""
    if shape is None:
        shape = newshape
    check_arraylike("reshape", a)
    if isinstance(a, (np.ndarray, np.generic)) and not isinstance(shape, core.Tracer):
        # as JAX: forwarded to the value's own reshape method, so a NumPy array stays one (also
        # under jit: numpyro's constraint checks on NumPy values stay concrete)
        return a.reshape(shape, order=order)
    a = asarray_value(a)
    if isinstance(shape, (int, np.integer)) or isinstance(shape, core.Tracer):
        shape = (shape,)
    aval = _aval(a)
    new = _compute_newshape(aval.size, shape)
    if order == "F":
        return transpose(lax.reshape(transpose(a), new[::-1]))
    if order not in ("C", "A"):
        raise ValueError(f"reshape: order must be 'C', 'F' or 'A', got {order!r}")
    return lax.reshape(a, new, out_sharding=out_sharding)


def ravel(a, order="C"):
    a = _arraylike("ravel", a)
    return reshape(a, (_aval(a).size,), order)


def transpose(a, axes=None):
    a = _arraylike("transpose", a)
    nd = _aval(a).ndim
    if axes is None:
        axes = tuple(range(nd - 1, -1, -1))
    axes = tuple(canonicalize_axis(x, nd, "axes", "transpose") for x in _axis_items(axes, "transpose", "axes"))
    if sorted(axes) != list(range(nd)):
        raise TypeError(f"transpose: axes {axes} are not a permutation of the axes of an array of rank {nd}")
    return lax.transpose(a, axes)


def permute_dims(a, axes):
    return transpose(a, axes)


def matrix_transpose(x):
    x = _arraylike("matrix_transpose", x)
    if _aval(x).ndim < 2:
        raise ValueError(f"matrix_transpose: x must be at least two-dimensional, got shape {_aval(x).shape}")
    return swapaxes(x, -1, -2)


def swapaxes(a, axis1, axis2):
    a = _arraylike("swapaxes", a)
    nd = _aval(a).ndim
    perm = list(range(nd))
    i, j = (_swap_axis(ax, nd, name) for ax, name in ((axis1, "axis1"), (axis2, "axis2")))
    perm[i], perm[j] = perm[j], perm[i]
    return lax.transpose(a, perm)


def _swap_axis(axis, nd, name):
    # as in JAX, whose swapaxes indexes a list of axes: a bad axis is an IndexError
    try:
        return canonicalize_axis(axis, nd, name, "swapaxes")
    except TypeError as e:
        raise IndexError(str(e)) from None


def moveaxis(a, source, destination):
    a = _arraylike("moveaxis", a)
    nd = _aval(a).ndim
    src = _axis_items(source, "moveaxis", "source")
    dst = _axis_items(destination, "moveaxis", "destination")
    if len(src) != len(dst):
        raise ValueError(f"moveaxis: source and destination must have the same number of elements, "
                         f"got {source} and {destination}")
    src = [canonicalize_axis(s, nd, "source", "moveaxis") for s in src]
    dst = [canonicalize_axis(d, nd, "destination", "moveaxis") for d in dst]
    perm = [i for i in range(nd) if i not in src]
    for d, s in sorted(zip(dst, src)):
        perm.insert(d, s)
    return lax.transpose(a, perm)


def squeeze(a, axis=None):
    a = _arraylike("squeeze", a)
    aval = _aval(a)
    if axis is None:
        axes = tuple(i for i, d in enumerate(aval.shape) if d == 1)
    else:
        axes = canonicalize_axes(_axis_items(axis, "squeeze"), aval.ndim, "axis", "squeeze")
        for ax in axes:
            if aval.shape[ax] != 1:
                raise ValueError(f"squeeze: cannot select an axis to squeeze out which has size "
                                 f"not equal to one (axis {ax} of shape {aval.shape})")
    return lax.squeeze(a, axes)


def expand_dims(a, axis):
    a = _arraylike("expand_dims", a)
    return lax.expand_dims(a, _axis_items(axis, "expand_dims"))


def broadcast_arrays(*args):
    check_arraylike("broadcast_arrays", *args)
    shape = broadcast_shapes(*(_aval(asarray_value(a)).shape for a in args))
    return [broadcast_to(a, shape) for a in args]


def atleast_1d(*arys):
    check_arraylike("atleast_1d", *arys)
    out = [reshape(a, (1,)) if _aval(asarray_value(a)).ndim == 0 else asarray_value(a) for a in arys]
    return out[0] if len(out) == 1 else out


def atleast_2d(*arys):
    check_arraylike("atleast_2d", *arys)
    out = []
    for a in arys:
        a = asarray_value(a)
        nd = _aval(a).ndim
        out.append(a if nd >= 2 else reshape(a, (1,) * (2 - nd) + _aval(a).shape))
    return out[0] if len(out) == 1 else out


def atleast_3d(*arys):
    check_arraylike("atleast_3d", *arys)
    out = []
    for a in arys:
        a = asarray_value(a)
        s = _aval(a).shape
        if len(s) == 0:
            a = reshape(a, (1, 1, 1))
        elif len(s) == 1:
            a = reshape(a, (1, s[0], 1))
        elif len(s) == 2:
            a = reshape(a, s + (1,))
        out.append(a)
    return out[0] if len(out) == 1 else out


# -- joining and splitting -----------------------------------------------------------------------

def concatenate(arrays, axis=0, dtype=None):
    """Join arrays along an existing axis (`axis=None` flattens them first)."""
    if isinstance(arrays, (Array_types())) and not isinstance(arrays, (list, tuple)):
        arrays = [arrays[i] for i in range(_aval(arrays).shape[0])]
    if not len(arrays):
        raise ValueError("Need at least one array to concatenate.")
    check_arraylike("concatenate", *arrays)
    arrays = promote_dtypes(*arrays)
    if dtype is not None:
        arrays = [a.astype(dtype) for a in arrays]
    if axis is None:
        arrays = [ravel(a) for a in arrays]
        axis = 0
    avals = [_aval(a) for a in arrays]
    if any(a.ndim == 0 for a in avals):
        raise ValueError("Zero-dimensional arrays cannot be concatenated.")
    nd = avals[0].ndim
    if any(a.ndim != nd for a in avals):
        raise TypeError(f"concatenate: all the input arrays must have the same number of "
                        f"dimensions, got shapes {[a.shape for a in avals]}")
    return lax.concatenate(arrays, canonicalize_axis(axis, nd, "axis", "concatenate"))


def Array_types():
    return (Array, core.Tracer)


def concat(arrays, /, *, axis=0):
    return concatenate(arrays, axis)


def stack(arrays, axis=0, out=None, dtype=None):
    """Join arrays of the same shape along a new axis."""
    if out is not None:
        raise NotImplementedError("The 'out' argument to jnp.stack is not supported (Arrays are immutable).")
    if not len(arrays):
        raise ValueError("Need at least one array to stack.")
    if isinstance(arrays, Array_types()):
        arrays = [arrays[i] for i in range(_aval(arrays).shape[0])]
    check_arraylike("stack", *arrays)
    arrays = [asarray_value(a) for a in arrays]
    shapes = {_aval(a).shape for a in arrays}
    if len(shapes) != 1:
        raise ValueError(f"stack: all input arrays must have the same shape, got {[_aval(a).shape for a in arrays]}")
    nd = _aval(arrays[0]).ndim + 1
    axis = canonicalize_axis(axis, nd, "axis", "stack")
    return concatenate([lax.expand_dims(a, (axis,)) for a in arrays], axis, dtype)


def hstack(tup, dtype=None):
    check_arraylike("hstack", *tup)
    arrs = atleast_1d(*tup)
    arrs = [arrs] if not isinstance(arrs, list) else arrs
    return concatenate(arrs, 0 if _aval(arrs[0]).ndim == 1 else 1, dtype)


def vstack(tup, dtype=None):
    check_arraylike("vstack", *tup)
    arrs = atleast_2d(*tup)
    arrs = [arrs] if not isinstance(arrs, list) else arrs
    return concatenate(arrs, 0, dtype)


row_stack = vstack


def dstack(tup, dtype=None):
    check_arraylike("dstack", *tup)
    arrs = atleast_3d(*tup)
    arrs = [arrs] if not isinstance(arrs, list) else arrs
    return concatenate(arrs, 2, dtype)


def column_stack(tup):
    check_arraylike("column_stack", *tup)
    arrs = [reshape(a, (-1, 1)) if _aval(asarray_value(a)).ndim < 2 else asarray_value(a) for a in tup]
    return concatenate(arrs, 1)


def split(ary, indices_or_sections, axis=0):
    """Split into equal sections or at the given indices (static)."""
    return _split("split", ary, indices_or_sections, axis)


def array_split(ary, indices_or_sections, axis=0):
    return _split("array_split", ary, indices_or_sections, axis)


def _split(name, ary, indices_or_sections, axis):
    ary = _arraylike(name, ary)
    aval = _aval(ary)
    axis = canonicalize_axis(axis, aval.ndim, "axis", name)
    n = aval.shape[axis]
    if isinstance(indices_or_sections, (tuple, list)) or np.ndim(indices_or_sections) > 0:
        idx = [static_int(name, "indices", i) for i in indices_or_sections]
        bounds = [0] + [builtins.min(builtins.max(i if i >= 0 else i + n, 0), n) for i in idx] + [n]
    else:
        # as JAX: any value int() accepts is a number of sections (3.0 is 3)
        sections = int(core.concrete_or_error(indices_or_sections, f"jnp.{name} number of sections"))
        if sections == 0:  # ZeroDivisionError, as in JAX
            raise ZeroDivisionError(f"{name}: cannot split an axis of size {n} into 0 sections")
        if sections < 0:
            raise ValueError(f"{name}: number of sections must be positive, got {sections}")
        if name == "split" and n % sections:
            raise ValueError(f"array split does not result in an equal division: axis {axis} of "
                             f"size {n} into {sections} sections")
        q, r = divmod(n, sections)
        sizes = [q + 1] * r + [q] * (sections - r)
        bounds = np.cumsum([0] + sizes)
    return [lax.slice_in_dim(ary, int(lo), builtins.max(int(lo), int(hi)), 1, axis)
            for lo, hi in zip(bounds[:-1], bounds[1:])]


def hsplit(ary, indices_or_sections):
    return split(ary, indices_or_sections, 1 if _aval(asarray_value(ary)).ndim > 1 else 0)


def vsplit(ary, indices_or_sections):
    return split(ary, indices_or_sections, 0)


def dsplit(ary, indices_or_sections):
    return split(ary, indices_or_sections, 2)


# -- repetition, flipping, padding ----------------------------------------------------------------

def tile(A, reps):
    A = _arraylike("tile", A)
    reps = tuple(reps) if isinstance(reps, (tuple, list, np.ndarray)) else (reps,)
    reps = tuple(static_int("tile", "reps", r) for r in reps)
    aval = _aval(A)
    nd = builtins.max(len(reps), aval.ndim)
    reps = (1,) * (nd - len(reps)) + reps
    A = reshape(A, (1,) * (nd - aval.ndim) + aval.shape)
    shape = _aval(A).shape
    # broadcast to (r0, s0, r1, s1, ...) then merge pairs
    bshape = tuple(x for r, s in zip(reps, shape) for x in (r, s))
    b = lax.broadcast_in_dim(A, bshape, tuple(range(1, 2 * nd, 2)))
    return lax.reshape(b, tuple(r * s for r, s in zip(reps, shape)))


def repeat(a, repeats, axis=None, *, total_repeat_length=None):
    """Repeat elements; `repeats` must be static (an int or a sequence of ints)."""
    a = _arraylike("repeat", a)
    if axis is None:
        a = ravel(a)
        axis = 0
    aval = _aval(a)
    axis = canonicalize_axis(axis, aval.ndim, "axis", "repeat")
    if total_repeat_length is not None:
        return _repeat_to_length(a, repeats, axis, operator.index(total_repeat_length))
    if isinstance(repeats, core.Tracer):
        core.concrete_or_error(repeats, "jnp.repeat 'repeats' (pass total_repeat_length too)")
    reps = np.asarray(repeats)
    if reps.dtype.kind not in "iub":
        raise TypeError(f"repeat: repeats must be integers, got {repeats!r}")
    if reps.ndim == 0:
        r = int(reps)
        n = aval.shape[axis]
        bshape = aval.shape[:axis + 1] + (r,) + aval.shape[axis + 1:]
        dims = tuple(i if i <= axis else i + 1 for i in range(aval.ndim))
        b = lax.broadcast_in_dim(a, bshape, dims)
        shape = list(aval.shape)
        shape[axis] = n * r
        return lax.reshape(b, tuple(shape))
    if reps.shape != (aval.shape[axis],):
        raise ValueError(f"repeat: repeats of shape {reps.shape} do not match axis {axis} of size {aval.shape[axis]}")
    pieces = [repeat(lax.slice_in_dim(a, i, i + 1, 1, axis), int(r), axis) for i, r in enumerate(reps) if r > 0]
    if not pieces:
        shape = list(aval.shape)
        shape[axis] = 0
        return lax.slice_in_dim(a, 0, 0, 1, axis) if aval.shape[axis] else a
    return concatenate(pieces, axis)


def _repeat_to_length(a, repeats, axis, total):
    """repeat with a static output length (so `repeats` may be traced), as JAX: repeats past
    `total` are cut off, and the positions after the last repeat hold the last element. Element
    i covers the positions from its start (the sum of the repeats before it); the start of each
    element is marked (marks past `total` are dropped) and the running count of marks, minus 1,
    is the element at each position."""
    aval = _aval(a)
    reps = lax_elt.convert_element_type(_arraylike("repeat", repeats), np.int32)
    n = aval.shape[axis]
    reps = lax.broadcast_in_dim(reps, (n,), ()) if _aval(reps).ndim == 0 else lax.reshape(reps, (_aval(reps).size,))
    if _aval(reps).shape != (n,):
        raise ValueError(f"repeat: repeats of shape {_aval(reps).shape} do not match axis {axis} of size {n}")
    if total == 0 or n == 0:
        shape = list(aval.shape)
        shape[axis] = 0 if total == 0 else n
        return lax.slice_in_dim(a, 0, shape[axis], 1, axis)
    starts = lax_elt.sub(lax_cum.cumsum(reps), reps)
    marks = lax_slicing.scatter_add(
        lax.broadcast_in_dim(np.int32(0), (total,), ()), lax.reshape(starts, (n, 1)),
        lax.broadcast_in_dim(np.int32(1), (n,), ()),
        lax_slicing.ScatterDimensionNumbers(update_window_dims=(), inserted_window_dims=(0,),
                                            scatter_dims_to_operand_dims=(0,)),
        mode="drop")
    which = lax_elt.sub(lax_cum.cumsum(marks), np.int32(1))
    front = moveaxis(a, axis, 0)
    return moveaxis(lax_slicing.index_take(front, (which,), (0,)), 0, axis)


def flip(m, axis=None):
    m = _arraylike("flip", m)
    nd = _aval(m).ndim
    if axis is None:
        return lax.rev(m, tuple(range(nd)))
    # duplicates are left to lax.rev, which refuses them with JAX's TypeError
    return lax.rev(m, tuple(canonicalize_axis(ax, nd, "axis", "flip") for ax in _axis_items(axis, "flip")))


def fliplr(m):
    return flip(m, 1)


def flipud(m):
    return flip(m, 0)


def rot90(m, k=1, axes=(0, 1)):
    m = _arraylike("rot90", m)
    nd = _aval(m).ndim
    if nd < 2:
        raise ValueError(f"rot90: m must have at least two dimensions, got shape {_aval(m).shape}")
    a0, a1 = axes
    a0, a1 = canonicalize_axis(a0, nd, "axes", "rot90"), canonicalize_axis(a1, nd, "axes", "rot90")
    if a0 == a1:
        raise ValueError(f"rot90: axes must be different, got {tuple(axes)}")
    k %= 4
    if k == 0:
        return m
    if k == 2:
        return flip(flip(m, a0), a1)
    perm = list(range(nd))
    perm[a0], perm[a1] = perm[a1], perm[a0]
    return transpose(flip(m, a1), perm) if k == 1 else flip(transpose(m, perm), a1)
