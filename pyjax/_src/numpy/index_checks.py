"""Checks of a raw index before it is read, with JAX's errors: `jax_check_static_indices`
(a static integer out of bounds is an IndexError) and what the static_slice / dynamic_slice
strategies of `rewriting_take` cannot take."""
from __future__ import annotations

import numpy as np

from pyjax._src import core
from pyjax._src.indexing import Slice
from pyjax._src.lax import slicing
from pyjax._src.lax.utils import kind


def _width(e) -> int:
    """How many operand axes an index entry consumes."""
    if e is None or e is Ellipsis or isinstance(e, (bool, np.bool_)):
        return 0
    if isinstance(e, (list, tuple)) or not hasattr(e, "dtype"):
        return 1
    return np.ndim(e) if kind(e.dtype) == "b" else 1


def validate_static_indices(idx, shape, wrap):
    """An IndexError for a static integer index out of bounds (after too many indices)."""
    entries = idx if isinstance(idx, tuple) else (idx,)
    used = sum(_width(e) for e in entries)
    if used > len(shape):
        raise IndexError(f"Too many indices: array is {len(shape)}-dimensional, but {used} were indexed")
    axis = 0
    for e in entries:
        if e is Ellipsis:
            axis += len(shape) - used
        elif isinstance(e, (int, np.integer)) and not isinstance(e, (bool, np.bool_)):
            k = int(e) + shape[axis] if wrap and e < 0 else int(e)
            if not 0 <= k < shape[axis]:
                raise IndexError(f"index {e} out of bounds for axis {axis} with size {shape[axis]} "
                                 f"(normalize_indices={wrap})")
        axis += _width(e)


def check_slice_strategy(idx, shape, name, mode, normalize):
    """JAX's errors for an index that a `name` ("static_slice", "dynamic_slice") read cannot take."""
    if name == "static_slice" or mode is not None:
        if slicing.GatherScatterMode.from_any(mode or "promise_in_bounds") not in (
                slicing.GatherScatterMode.PROMISE_IN_BOUNDS, slicing.GatherScatterMode.CLIP):
            raise ValueError(f"{name} requires mode='promise_in_bounds' or mode='clip'")
    if name == "static_slice" and mode in (None, "promise_in_bounds"):
        validate_static_indices(idx, shape, normalize)
    for pos, i in enumerate(idx if isinstance(idx, tuple) else (idx,)):
        if isinstance(i, slice) and name == "dynamic_slice" and i.step not in (None, 1, -1):
            raise TypeError(f"dynamic_slice: only unit steps supported in slice. Got {i} at position {pos}")
        if isinstance(i, Slice) and name == "dynamic_slice" and i.stride != 1:
            raise TypeError(f"dynamic_slice: only unit steps supported in slice. Got {i} at position {pos}")
        if i is None or i is Ellipsis or isinstance(i, slice) or (
                isinstance(i, Slice) and name == "dynamic_slice"):
            continue
        dtype = core.get_aval(i).dtype if isinstance(i, core.Tracer) else getattr(i, "dtype", None)
        boolean = isinstance(i, (bool, np.bool_)) or (dtype is not None and kind(dtype) == "b")
        static_int = isinstance(i, (int, np.integer)) and not boolean
        if name == "static_slice" and not static_int:
            raise TypeError("static_slice: indices must be static scalars or slices. Got index "
                            f"of type {type(i)} at position {pos}")
        if name == "dynamic_slice" and boolean:
            raise TypeError("dynamic_slice: indices must be scalars or slices. Got index of type "
                            f"{type(i)} at position {pos}")
        if name == "dynamic_slice" and (isinstance(i, (list, tuple)) or np.ndim(i) != 0):
            raise TypeError("dynamic_slice: only scalar indices allowed. Got index of type "
                            f"{type(i)} at position {pos}")
