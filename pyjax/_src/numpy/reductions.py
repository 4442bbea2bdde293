"""Reductions: sum, prod, mean, var, std, max, min, argmax, argmin, all, any (with `axis`,
`keepdims`, `dtype`, `where`, `initial` where JAX has them), and cumulative sums/products."""
from __future__ import annotations

import builtins
import math

import numpy as np

from pyjax._src import core, dtypes
from pyjax._src.array import Array, ArrayImpl
from pyjax._src.lax import elementwise as lax
from pyjax._src.lax import parallel as lax_par
from pyjax._src.lax import reductions as lax_red
from pyjax._src.lax import shape_ops
from pyjax._src.lax.control_flow import cumulative as lax_cf
from pyjax._src.lax.utils import canonicalize_axis, kind
from pyjax._src.numpy import ufuncs
from pyjax._src.numpy.util import asarray_value, broadcast_to, check_arraylike, reduction_axes


def _aval(x):
    return core.get_aval(x)


_FLOATS = frozenset(np.dtype(d) for d in (np.float16, np.float32, np.float64, dtypes.bfloat16))


def _keepdims_shape(shape, axes):
    return tuple(1 if i in axes else d for i, d in enumerate(shape))


def _finish(out, in_shape, axes, keepdims):
    return shape_ops.reshape(out, _keepdims_shape(in_shape, axes)) if keepdims else out


def _reduction(name, a, axis, dtype, keepdims, initial, where, lax_reduce, ident, upcast=False,
               bool_op=None):
    check_arraylike(name, a)
    a = asarray_value(a)
    aval = _aval(a)
    axes, named = reduction_axes(axis, aval.ndim, name)
    where = _check_where(name, where)
    if dtype is not None:
        dt = dtypes.check_and_canonicalize_user_dtype(dtype, name)
    elif upcast and kind(aval.dtype) in "bi" and aval.dtype.itemsize < dtypes.default_int_dtype().itemsize:
        dt = dtypes.default_int_dtype()
    elif upcast and kind(aval.dtype) == "u" and aval.dtype.itemsize < dtypes.default_uint_dtype().itemsize:
        dt = dtypes.default_uint_dtype()
    elif upcast and aval.dtype == np.bool_:
        dt = dtypes.default_int_dtype()
    else:
        dt = aval.dtype
    if bool_op:
        dt = np.dtype(np.bool_)
    if dt != aval.dtype or aval.weak_type:
        # NB: as JAX, a reduction computes on a strong array, so its result is strong even for a
        # weak input (and the gradient of a weak input converts back to weak)
        a = lax._convert_element_type(a, dt, False)
    if where is not None:
        where = broadcast_to(where, aval.shape)
        a = ufuncs.where_(where, a, _identity(ident, dt))
    if aval.ndim and builtins.any(aval.shape[ax] == 0 for ax in axes) and ident in ("max", "min") and initial is None:
        raise ValueError(f"zero-size array to reduction operation {name} which has no identity")
    if dt == np.bool_ and ident in ("sum", "prod"):  # as JAX: a bool sum is `any`, a product `all`
        lax_reduce = lax_red.reduce_or if ident == "sum" else lax_red.reduce_and
    out = lax_reduce(a, axes)
    if named:
        out = _named_reduce(name, ident, out, named)
    if initial is not None:
        combine = {"sum": lax.add, "prod": lax.mul, "max": lax.max, "min": lax.min}[ident]
        initial = lax._convert_element_type(initial, dt, False)
        if _aval(initial).shape:
            raise ValueError(f"{name}: initial must be a scalar, got an array of shape {_aval(initial).shape}")
        out = combine(out, initial)
    return _finish(out, aval.shape, axes, keepdims)


def _check_where(name, where):
    if where is None:
        return None
    check_arraylike(name, where)
    where = asarray_value(where)
    if _aval(where).dtype != np.bool_:
        raise ValueError(f"{name}: where must be None or a boolean array, got {_aval(where).str_short()}")
    return where


def _named_reduce(name, ident, x, names):
    """Reduce over vmap axes named in `axis` (`jnp.sum(x, axis="i")` is `lax.psum(x, "i")`)."""
    collective = {"sum": lax_par.psum, "max": lax_par.pmax, "min": lax_par.pmin}.get(ident)
    if collective is None:
        raise NotImplementedError(f"{name}: reducing over the named axes {names} is not supported "
                                  f"(sum, max, min and mean support named axes, as in JAX)")
    return collective(x, names)


def _identity(ident, dt):
    return lax_red.reduction_identity(ident, dt)[()].item()


def sum(a, axis=None, dtype=None, out=None, keepdims=False, initial=None, where=None, promote_integers=True):
    """Sum of elements over `axis` (small integer types accumulate in the default int)."""
    if (axis is None and type(a) is ArrayImpl and dtype is None and out is None and not keepdims
            and initial is None and where is None and a.aval.dtype in _FLOATS
            and not a.aval.weak_type):  # (a weak one is summed strong, below)
        # fast path for the common eager case: a float array summed over all of its axes
        return lax_red.reduce_sum_p.bind(a, axes=tuple(range(a.aval.ndim)), out_sharding=None)
    _no_out(out, "sum")
    return _reduction("sum", a, axis, dtype, keepdims, initial, where, lax_red.reduce_sum, "sum",
                      upcast=promote_integers)


def prod(a, axis=None, dtype=None, out=None, keepdims=False, initial=None, where=None, promote_integers=True):
    _no_out(out, "prod")
    return _reduction("prod", a, axis, dtype, keepdims, initial, where, lax_red.reduce_prod, "prod",
                      upcast=promote_integers)


def max(a, axis=None, out=None, keepdims=False, initial=None, where=None):
    _no_out(out, "max")
    if where is not None and initial is None:
        raise ValueError("reduction operation max with where= requires initial=")
    return _reduction("max", a, axis, None, keepdims, initial, where, lax_red.reduce_max, "max")


def min(a, axis=None, out=None, keepdims=False, initial=None, where=None):
    _no_out(out, "min")
    if where is not None and initial is None:
        raise ValueError("reduction operation min with where= requires initial=")
    return _reduction("min", a, axis, None, keepdims, initial, where, lax_red.reduce_min, "min")


amax, amin = max, min


def all(a, axis=None, out=None, keepdims=False, *, where=None):
    _no_out(out, "all")
    return _reduction("all", a, axis, None, keepdims, None, where, lax_red.reduce_and, "and", bool_op=True)


def any(a, axis=None, out=None, keepdims=False, *, where=None):
    _no_out(out, "any")
    return _reduction("any", a, axis, None, keepdims, None, where, lax_red.reduce_or, "or", bool_op=True)


def _no_out(out, name):
    if out is not None:
        raise NotImplementedError(f"The 'out' argument to jnp.{name} is not supported (Arrays are immutable).")


def _count(aval, axes, named):
    """How many elements a reduction over `axes` (and the named vmap axes) combines."""
    n = math.prod(aval.shape[a] for a in axes)  # (a symbolic dim's value under export)
    return lax.mul(n, lax_par.axis_size(named)) if named else n


def mean(a, axis=None, dtype=None, out=None, keepdims=False, *, where=None):
    """Arithmetic mean over `axis` (integers average in floating point)."""
    _no_out(out, "mean")
    check_arraylike("mean", a)
    a = asarray_value(a)
    aval = _aval(a)
    axes, named = reduction_axes(axis, aval.ndim, "mean")
    if dtype is None:
        dt = dtypes.to_inexact_dtype(aval.dtype)
    else:
        dt = dtypes.check_and_canonicalize_user_dtype(dtype, "mean")
    total = sum(a, axis, dtype=dt, keepdims=keepdims, where=where)
    if where is None:
        n = _count(aval, axes, named)
    else:
        n = sum(broadcast_to(_check_where("mean", where), aval.shape), axis, dtype=dt, keepdims=keepdims)
    if kind(dt) in "iub":  # an integer mean asked for: as JAX, divided in that dtype (truncating)
        return lax.div(total, lax.convert_element_type(n, dt))
    return ufuncs.true_divide(total, n)


def var(a, axis=None, dtype=None, out=None, ddof=0, keepdims=False, *, where=None, correction=None):
    """Variance over `axis`, with `ddof` (or `correction`) degrees of freedom removed."""
    _no_out(out, "var")
    if correction is not None:
        if ddof != 0:
            raise ValueError(f"var: ddof and correction can't both be given (got ddof={ddof!r}, "
                             f"correction={correction!r}); they mean the same thing")
        ddof = correction
    check_arraylike("var", a)
    a = asarray_value(a)
    aval = _aval(a)
    axes, named = reduction_axes(axis, aval.ndim, "var")
    dt = dtypes.to_inexact_dtype(aval.dtype) if dtype is None else dtypes.check_and_canonicalize_user_dtype(dtype, "var")
    a = lax._convert_element_type(a, dt, aval.weak_type) if aval.dtype != dt else a
    centered = ufuncs.subtract(a, mean(a, axis, keepdims=True, where=where))
    sq = ufuncs.real(ufuncs.multiply(centered, ufuncs.conjugate(centered))) if kind(dt) == "c" else ufuncs.multiply(centered, centered)
    total = sum(sq, axis, keepdims=keepdims, where=where)
    if where is None:
        n = _count(aval, axes, named)
        if not named and not isinstance(ddof, core.Tracer):
            return ufuncs.true_divide(total, n - ddof) if n > ddof else _nan_like(total)
        dof = ufuncs.subtract(n, ddof)  # a traced ddof (JAX allows it) or a named axis' size
    else:
        n = sum(broadcast_to(_check_where("var", where), aval.shape), axis, dtype=dt, keepdims=keepdims)
        dof = ufuncs.subtract(n, ddof)
    # no degrees of freedom left: NaN (as JAX; NumPy gives inf and warns)
    return ufuncs.where_(ufuncs.greater(dof, 0), ufuncs.true_divide(total, dof), np.nan)


def _nan_like(x):
    return ufuncs.multiply(x, np.nan)


def std(a, axis=None, dtype=None, out=None, ddof=0, keepdims=False, *, where=None, correction=None):
    return ufuncs.sqrt(var(a, axis, dtype, out, ddof, keepdims, where=where, correction=correction))


def argmax(a, axis=None, out=None, keepdims=None):
    """Index of the maximum (over the flattened array when `axis` is None)."""
    _no_out(out, "argmax")
    return _arg("argmax", lax_red.argmax, a, axis, keepdims)


def argmin(a, axis=None, out=None, keepdims=None):
    _no_out(out, "argmin")
    return _arg("argmin", lax_red.argmin, a, axis, keepdims)


def _arg(name, lax_fn, a, axis, keepdims):
    check_arraylike(name, a)
    a = asarray_value(a)
    aval = _aval(a)
    if axis is None:
        flat = shape_ops.reshape(a, (aval.size,))
        if aval.size == 0:
            raise ValueError(f"attempt to get {name} of an empty sequence")
        out = lax_fn(flat, 0, dtypes.default_int_dtype())
        return shape_ops.reshape(out, (1,) * aval.ndim) if keepdims else out
    ax = canonicalize_axis(axis, aval.ndim, "axis", name)
    if aval.shape[ax] == 0:
        raise ValueError(f"attempt to get {name} of an empty sequence")
    out = lax_fn(a, ax, dtypes.default_int_dtype())
    return shape_ops.expand_dims(out, (ax,)) if keepdims else out


# -- cumulative reductions (the lax cumulative primitives) ----------------------------------------

def _cumulative(name, lax_fn, a, axis, dtype):
    check_arraylike(name, a)
    a = asarray_value(a)
    if axis is None:
        a = shape_ops.reshape(a, (_aval(a).size,))
        axis = 0
    aval = _aval(a)
    axis = canonicalize_axis(axis, aval.ndim, "axis", name)
    if dtype is not None:
        a = lax._convert_element_type(a, dtypes.check_and_canonicalize_user_dtype(dtype, name), False)
    elif aval.dtype == np.bool_:  # only bools promote (JAX keeps int8 cumsums int8)
        a = lax._convert_element_type(a, dtypes.default_int_dtype(), False)
    elif aval.weak_type:  # as JAX, computed (and returned) strong
        a = lax._convert_element_type(a, aval.dtype, False)
    return lax_fn(a, axis)


def cumsum(a, axis=None, dtype=None, out=None):
    _no_out(out, "cumsum")
    return _cumulative("cumsum", lax_cf.cumsum, a, axis, dtype)


def cumprod(a, axis=None, dtype=None, out=None):
    _no_out(out, "cumprod")
    return _cumulative("cumprod", lax_cf.cumprod, a, axis, dtype)


cumulative_sum = cumsum
cumulative_prod = cumprod


def count_nonzero(a, axis=None, keepdims=False):
    return sum(ufuncs.not_equal(a, 0), axis, dtype=dtypes.default_int_dtype(), keepdims=keepdims)


def ptp(a, axis=None, out=None, keepdims=False):
    _no_out(out, "ptp")
    return ufuncs.subtract(max(a, axis, keepdims=keepdims), min(a, axis, keepdims=keepdims))
