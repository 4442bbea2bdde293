"""Helpers shared by the pyjax.numpy modules: argument checking, dtype promotion and rank
promotion of operands, conversion of array-likes."""
from __future__ import annotations

import operator
import warnings

import numpy as np

from pyjax._src import core, dtypes
from pyjax._src.array import Array
from pyjax._src.config import config
from pyjax._src.lax import elementwise as lax_elt
from pyjax._src.lax import shape_ops as lax_shape
from pyjax._src.lax.shape_ops import shape_param
from pyjax._src.lax.utils import canonicalize_axes, canonicalize_axis

_PY_SCALARS = (bool, int, float, complex)
_ARRAY_TYPES = (Array, core.Tracer, np.ndarray, np.generic)


def is_arraylike(x) -> bool:
    return isinstance(x, _ARRAY_TYPES) or type(x) in _PY_SCALARS or hasattr(x, "__jax_array__")


def check_arraylike(fun_name: str, *args):
    for i, a in enumerate(args):
        if not is_arraylike(a):
            msg = f"{fun_name} requires ndarray or scalar arguments, got {type(a).__name__} at position {i}."
            if isinstance(a, (list, tuple)):
                msg += " Lists and tuples are not accepted as arrays; wrap them in jnp.array(...)."
            raise TypeError(msg)


def asarray_value(x):
    """Turn a NumPy value or Python scalar into an Array (host-resident), leave Arrays/tracers."""
    if isinstance(x, (Array, core.Tracer)):
        return x
    if hasattr(x, "__jax_array__"):
        return x.__jax_array__()
    weak = type(x) in _PY_SCALARS and type(x) is not bool
    v = np.asarray(x)
    if v.dtype == object:
        raise TypeError(f"Value {x!r:.60} of type {type(x).__name__} cannot be converted to an array")
    dt = dtypes.canonicalize_dtype(v.dtype)
    return Array.from_host(v if v.dtype == dt else v.astype(dt), weak)


def promote_dtypes(*args):
    """Convert operands to their common (JAX-lattice) dtype; Python scalars stay weak."""
    if len(args) < 2:
        return [asarray_value(a) for a in args]
    dt, weak = dtypes.lattice_result_type(*args)
    out = []
    for a in args:
        aval = core.get_aval(a) if not type(a) in _PY_SCALARS else None
        if aval is not None and aval.dtype == dt and (aval.weak_type == weak or not aval.weak_type):
            out.append(asarray_value(a))
        else:
            out.append(lax_elt._convert_element_type(a, dt, weak))
    return out


def promote_dtypes_inexact(*args):
    """Promote, then make the result floating (ints/bools become the default float)."""
    dt, weak = dtypes.lattice_result_type(*args)
    inexact = dtypes.to_inexact_dtype(dt)
    # (a weak operand of a strong result is converted too, as JAX: its cotangent converts back)
    # (an operand already of the type is still made an array: an object with __jax_array__,
    # such as flax's nnx.Param, must not reach a primitive as itself)
    return [lax_elt._convert_element_type(a, inexact, weak)
            if type(a) in _PY_SCALARS or (aval := core.get_aval(a)).dtype != inexact
            or aval.weak_type != weak else asarray_value(a) for a in args]


def promote_dtypes_numeric(*args):
    dt, weak = dtypes.lattice_result_type(*args)
    numeric = dtypes.to_numeric_dtype(dt)
    return [lax_elt._convert_element_type(a, numeric, weak) for a in args]


def promote_dtypes_complex(*args):
    dt, weak = dtypes.lattice_result_type(*args)
    cdt = dtypes.to_complex_dtype(dt)
    return [lax_elt._convert_element_type(a, cdt, weak) for a in args]


def promote_shapes(fun_name: str, *args):
    """NumPy rank promotion: prepend size-1 dimensions so all operands have the same rank
    (lax ops then stretch size-1 dimensions). Rank-0 operands are left alone."""
    if len(args) < 2:
        return list(args)
    avals = [core.get_aval(a) for a in args]
    nd = max(a.ndim for a in avals)
    if all(a.ndim in (0, nd) for a in avals):
        _check_broadcastable(fun_name, avals)
        return list(args)
    if config._values["jax_numpy_rank_promotion"] != "allow":
        _rank_promotion_warning_or_error(fun_name, [a.shape for a in avals])
    broadcast_shapes(*(a.shape for a in avals))  # as JAX: a ValueError once ranks differ
    return [a if av.ndim in (0, nd) else lax_shape.broadcast_in_dim(
        a, (1,) * (nd - av.ndim) + av.shape, tuple(range(nd - av.ndim, nd))) for a, av in zip(args, avals)]


def _rank_promotion_warning_or_error(fun_name, shapes):
    # JAX's phrases ("Following NumPy automatic rank promotion for add on shapes (2,) (1, 2)",
    # "Operands could not be broadcast together") are kept: JAX's tests match on them.
    shapes = " ".join(map(str, shapes))
    if config._values["jax_numpy_rank_promotion"] == "warn":
        warnings.warn(f"Following NumPy automatic rank promotion for {fun_name} on shapes "
                      f"{shapes}. Set jax_numpy_rank_promotion to 'allow' to silence this "
                      f"warning, or make the ranks equal explicitly (x[None], reshape).",
                      stacklevel=4)
    else:
        raise ValueError(f"Operands could not be broadcast together for {fun_name} on shapes "
                         f"{shapes} and with the config option jax_numpy_rank_promotion='raise'. "
                         f"Make the ranks equal explicitly (x[None], reshape) or set the option "
                         f"to 'allow'.")


def _is_one(d):
    return type(d) is int and d == 1


def _check_broadcastable(fun_name, avals):
    """Operands of equal rank go to lax as they are, so a mismatch is lax's TypeError."""
    shapes = [a.shape for a in avals]
    for i in range(1, max(len(s) for s in shapes) + 1):  # (works for symbolic dims too)
        if len({s[-i] for s in shapes if len(s) >= i and not _is_one(s[-i])}) > 1:
            raise TypeError(f"{fun_name} got incompatible shapes for broadcasting: "
                        f"{', '.join(str(a.shape) for a in avals)}") from None


def promote_args(fun_name: str, *args):
    check_arraylike(fun_name, *args)
    return promote_shapes(fun_name, *promote_dtypes(*args))


def promote_args_inexact(fun_name: str, *args):
    check_arraylike(fun_name, *args)
    return promote_shapes(fun_name, *promote_dtypes_inexact(*args))


def promote_args_numeric(fun_name: str, *args):
    check_arraylike(fun_name, *args)
    return promote_shapes(fun_name, *promote_dtypes_numeric(*args))


def shape_tuple(shape, fun_name):
    """A static shape argument (an int or a sequence of ints) as a tuple of ints. As in JAX,
    anything else is a TypeError, and so is a negative size."""
    if isinstance(shape, (core.Tracer, Array, np.ndarray, np.generic)):
        shape = (shape,) if np.ndim(shape) == 0 else list(shape)  # an array of sizes is a shape
    elif hasattr(shape, "__index__"):
        shape = (shape,)
    try:
        dims = list(shape)
    except TypeError:
        raise TypeError(f"{fun_name}: shape must be an int or a sequence of ints, got {shape!r}") from None
    return shape_param(dims, f"{fun_name}: shape")


def broadcast_shapes(*shapes):
    shapes = [shape_tuple(s, "broadcast_shapes") for s in shapes]
    out = []
    for i in range(max(map(len, shapes), default=0), 0, -1):  # (works for symbolic dims too)
        sizes = {s[-i] for s in shapes if len(s) >= i and not _is_one(s[-i])}
        if len(sizes) > 1:
            raise ValueError(f"Incompatible shapes for broadcasting: shapes={shapes}")
        out.append(sizes.pop() if sizes else 1)
    return tuple(out)


def broadcast_to(array, shape, *, out_sharding=None):
    """`array` broadcast to `shape` (JAX's parameter names: `broadcast_to(array=..., shape=...)`).
    `out_sharding` is handed to `lax.broadcast_in_dim`."""
    check_arraylike("broadcast_to", array)
    x = asarray_value(array)
    aval = core.get_aval(x)
    shape = shape_tuple(shape, "broadcast_to")
    if aval.shape == shape:
        return x
    if len(shape) < aval.ndim or any(a not in (1, b) for a, b in zip(aval.shape[::-1], shape[::-1])):
        raise ValueError(f"Incompatible shapes for broadcasting: {aval.shape} and requested shape {shape}")
    nd = len(shape)
    lead = nd - aval.ndim
    keep = [i for i, d in enumerate(aval.shape) if d == shape[lead + i]]
    squeezed = lax_shape.reshape(x, [aval.shape[i] for i in keep]) if len(keep) != aval.ndim else x
    return lax_shape.broadcast_in_dim(squeezed, shape, tuple(lead + i for i in keep),
                                      out_sharding=out_sharding)


def reduction_axes(axis, ndim, fname):
    """The `axis` argument of a reduction as (positional axes, named axes): None means every
    positional axis; an int, a str (a vmap axis name, as in JAX) or a sequence of them. Positional
    axes come back sorted and non-negative; a repeated axis is a ValueError."""
    if axis is None:
        return tuple(range(ndim)), ()
    # any iterable of axes (a range, a generator) as JAX's _ensure_index_tuple takes it
    iterable = hasattr(axis, "__iter__") and not isinstance(axis, (str, Array, np.generic))
    items = tuple(axis) if iterable or isinstance(axis, np.ndarray) else (axis,)
    # NB: a str names one axis; JAX iterates over its characters (`axis="ij"` is "i" and "j")
    named = tuple(a for a in items if isinstance(a, str))
    pos = [canonicalize_axis(a, ndim, "axis", fname) for a in items if not isinstance(a, str)]
    if len(set(pos)) != len(pos) or len(set(named)) != len(named):
        raise ValueError(f"{fname}: duplicate value in 'axis': {axis}")  # (JAX's words)
    return tuple(sorted(pos)), named


def canonicalize_axis_arg(axis, ndim, fname=None):
    """None → all axes; int or sequence → sorted tuple of distinct non-negative axes."""
    if axis is None:
        return tuple(range(ndim))
    if isinstance(axis, (tuple, list)):
        return canonicalize_axes(axis, ndim, "axis", fname)
    return canonicalize_axes((axis,), ndim, "axis", fname)


def static_int(fname, name, value):
    """A static integer argument (a tracer with a concrete value is read); floats are a
    TypeError rather than truncated, as in JAX."""
    if isinstance(value, core.Tracer):
        return core.concrete_dim(value, f"{fname} {name}")
    try:
        return operator.index(value)
    except TypeError:
        raise TypeError(f"{fname}: {name} must be an integer, got {value!r} of type "
                        f"{type(value).__name__}") from None
