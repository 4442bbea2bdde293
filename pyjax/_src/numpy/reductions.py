"""Reductions: sum, prod, mean, var, std, max, min, argmax, argmin, all, any (with `axis`,
`keepdims`, `dtype`, `where`, `initial` where JAX has them), and cumulative sums/products.

As JAX, sums, products, means and variances of float16/bfloat16 accumulate in float32 and round
once at the end (unless a `dtype` is asked for: then they compute in it)."""
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


_FLOATS = frozenset(np.dtype(d) for d in (np.float32, np.float64))
_HALF_FLOATS = frozenset(np.dtype(d) for d in (np.float16, dtypes.bfloat16))


def upcast_f16(dt):
    """The dtype a reduction over `dt` accumulates in: float32 for the 16-bit floats."""
    return np.dtype(np.float32) if dt in _HALF_FLOATS else dt


def promote_integer_dtype(dt):
    """bools and integers narrower than the default widen to it (sums and products, as JAX)."""
    if dt == np.bool_:
        return dtypes.default_int_dtype()
    if kind(dt) == "u" and dt.itemsize < dtypes.default_uint_dtype().itemsize:
        return dtypes.default_uint_dtype()
    if kind(dt) == "i" and dt.itemsize < dtypes.default_int_dtype().itemsize:
        return dtypes.default_int_dtype()
    return dt


def _keepdims_shape(shape, axes):
    return tuple(1 if i in axes else d for i, d in enumerate(shape))


def _finish(out, in_shape, axes, keepdims):
    return shape_ops.reshape(out, _keepdims_shape(in_shape, axes)) if keepdims else out


def _reduction(name, a, axis, dtype, keepdims, initial, where, lax_reduce, ident, upcast=False,
               bool_op=None, upcast_halves=False):
    check_arraylike(name, a)
    a = asarray_value(a)
    aval = _aval(a)
    axes, named = reduction_axes(axis, aval.ndim, name)
    where = _check_where(name, where)
    if dtype is not None:
        dt = dtypes.check_and_canonicalize_user_dtype(dtype, name)
    elif bool_op:
        dt = np.dtype(np.bool_)
    elif ident in ("sum", "prod") and aval.dtype == np.bool_:  # as JAX: bools sum as integers
        dt = dtypes.default_int_dtype()
    elif upcast:
        dt = promote_integer_dtype(aval.dtype)
    else:
        dt = aval.dtype
    if bool_op:
        dt = np.dtype(np.bool_)
    # NB: a float16/bfloat16 sum or product with no dtype asked for accumulates in float32 (JAX)
    cdt = upcast_f16(dt) if upcast_halves and dtype is None else dt
    if cdt != aval.dtype or aval.weak_type:
        # NB: as JAX, a reduction computes on a strong array, so its result is strong even for a
        # weak input (and the gradient of a weak input converts back to weak)
        a = lax._convert_element_type(a, cdt, False)
    if where is not None:
        where = broadcast_to(where, aval.shape)
        a = ufuncs.where_(where, a, _identity(ident, cdt))
    if aval.ndim and builtins.any(aval.shape[ax] == 0 for ax in axes) and ident in ("max", "min") and initial is None:
        raise ValueError(f"zero-size array to reduction operation {name} which has no identity")
    if cdt == np.bool_ and ident in ("sum", "prod"):  # as JAX: a bool sum is `any`, a product `all`
        lax_reduce = lax_red.reduce_or if ident == "sum" else lax_red.reduce_and
    out = lax_reduce(a, axes)
    if named:
        out = _named_reduce(name, ident, out, named)
    if initial is not None:
        combine = {"sum": lax.add, "prod": lax.mul, "max": lax.max, "min": lax.min}[ident]
        if cdt == np.bool_ and ident in ("sum", "prod"):
            combine = lax.bitwise_or if ident == "sum" else lax.bitwise_and
        initial = lax._convert_element_type(initial, cdt, False)
        if _aval(initial).shape:
            # (JAX's wording, which its tests match)
            raise ValueError(f"{name}: initial value must be a scalar. Got array of shape {_aval(initial).shape}")
        out = combine(initial, out)
    if cdt != dt:
        out = lax._convert_element_type(out, dt, False)
    return _finish(out, aval.shape, axes, keepdims)


def _check_where(name, where):
    if where is None:
        return None
    check_arraylike(name, where)
    where = asarray_value(where)
    if _aval(where).dtype != np.bool_:
        raise ValueError(f"jnp.{name}: where must be None or a boolean array; got {_aval(where).str_short()}")
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
            and not a.aval.weak_type):  # (a weak one is summed strong, a 16-bit one in f32, below)
        # fast path for the common eager case: a float array summed over all of its axes
        return lax_red.reduce_sum_p.bind(a, axes=tuple(range(a.aval.ndim)), out_sharding=None)
    _no_out(out, "sum")
    return _reduction("sum", a, axis, dtype, keepdims, initial, where, lax_red.reduce_sum, "sum",
                      upcast=promote_integers, upcast_halves=True)


def prod(a, axis=None, dtype=None, out=None, keepdims=False, initial=None, where=None, promote_integers=True):
    _no_out(out, "prod")
    return _reduction("prod", a, axis, dtype, keepdims, initial, where, lax_red.reduce_prod, "prod",
                      upcast=promote_integers, upcast_halves=True)


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
    """Arithmetic mean over `axis` (integers average in floating point; float16/bfloat16 in
    float32 unless a `dtype` is asked for, as JAX)."""
    _no_out(out, "mean")
    check_arraylike("mean", a)
    _check_where("mean", where)
    a = asarray_value(a)
    aval = _aval(a)
    axes, named = reduction_axes(axis, aval.ndim, "mean")
    if dtype is None:
        dt = dtypes.to_inexact_dtype(aval.dtype)
        cdt = upcast_f16(dt)
    else:
        dt = cdt = dtypes.check_and_canonicalize_user_dtype(dtype, "mean")
    total = sum(a, axis, dtype=cdt, keepdims=keepdims, where=where)
    if where is None:
        n = _count(aval, axes, named)
    else:
        n = sum(broadcast_to(_check_where("mean", where), aval.shape), axis, dtype=cdt, keepdims=keepdims)
    if kind(cdt) in "iub":  # an integer mean asked for: as JAX, divided in that dtype (truncating)
        return lax.div(total, lax.convert_element_type(n, cdt))
    out = ufuncs.true_divide(total, n)
    return lax._convert_element_type(out, dt, False) if cdt != dt else out


_mean = mean  # (var's and std's `mean=` argument hides the function)


def var_promote_types(name, a_dtype, dtype):
    """(the dtype a variance computes in, the dtype it returns), as JAX: a real result for a
    complex operand unless a complex `dtype` is asked for; 16-bit floats computed in float32."""
    if dtype is not None:
        dtype = dtypes.check_and_canonicalize_user_dtype(dtype, name)
        if kind(a_dtype) == "c" and kind(dtype) != "c":
            raise ValueError(f"jax.numpy.{name}: a real dtype ({dtype}) for the variance of complex values "
                             f"({a_dtype}) is not supported (NumPy's meaning is unclear)")
        out = compute = dtype
    elif kind(a_dtype) not in "fc":
        out = compute = dtypes.to_inexact_dtype(a_dtype)
    else:
        compute = a_dtype
        out = np.zeros((), a_dtype).real.dtype
    return upcast_f16(compute), np.dtype(out)


def _abs2(centered):
    """|x - mean|^2: real for complex values."""
    if kind(_aval(centered).dtype) == "c":
        return ufuncs.real(ufuncs.multiply(centered, ufuncs.conjugate(centered)))
    return lax.square(centered)  # (as JAX: its derivative, 2 * centered, is one residual)


def _ddof(name, ddof, correction):
    """`correction` is the array API's name for `ddof`; both at once is an error (as JAX)."""
    if correction is None:
        return ddof
    if not isinstance(ddof, int) or ddof != 0:
        raise ValueError(f"{name}: ddof and correction can't be provided simultaneously "
                         f"(got ddof={ddof!r}, correction={correction!r}); they mean the same thing")
    return correction


def var(a, axis=None, dtype=None, out=None, ddof=0, keepdims=False, *, where=None, mean=None,
        correction=None):
    """Variance over `axis`, with `ddof` (or `correction`) degrees of freedom removed; `mean`
    (broadcastable to `a`, e.g. a keepdims mean) is used instead of computing it."""
    _no_out(out, "var")
    ddof = _ddof("var", ddof, correction)
    check_arraylike("var", a)
    where = _check_where("var", where)
    a = asarray_value(a)
    axes, named = reduction_axes(axis, _aval(a).ndim, "var")
    if mean is not None:
        check_arraylike("var", mean)
        mean = asarray_value(mean)
    if isinstance(axis, list):
        axis = tuple(axis)
    if named or isinstance(ddof, core.Tracer):
        return _var(a, mean, where, axis=axis, dtype=dtype, ddof=ddof, keepdims=keepdims)
    return var_call[0](a, mean, where, axis=axis, dtype=dtype, ddof=ddof, keepdims=keepdims)


def _var(a, mean, where, *, axis, dtype, ddof, keepdims):
    aval = _aval(a)
    axes, named = reduction_axes(axis, aval.ndim, "var")
    cdt, dt = var_promote_types("var", aval.dtype, dtype)
    a = lax._convert_element_type(a, cdt, aval.weak_type) if aval.dtype != cdt else a
    if mean is None:
        mean = _mean(a, axis, dtype=cdt, keepdims=True, where=where)
    else:
        mean = lax._convert_element_type(mean, cdt, False)
    sq = _abs2(ufuncs.subtract(a, mean))
    total = sum(sq, axis, dtype=_aval(sq).dtype, keepdims=keepdims, where=where)
    if where is None:
        n = _count(aval, axes, named)
        if not named and not isinstance(ddof, core.Tracer):
            res = ufuncs.true_divide(total, n - ddof) if n > ddof else _nan_like(total)
            return lax._convert_element_type(res, dt, False) if _aval(res).dtype != dt else res
        dof = ufuncs.subtract(n, ddof)  # a traced ddof (JAX allows it) or a named axis' size
    else:
        n = sum(broadcast_to(where, aval.shape), axis, dtype=_aval(sq).dtype, keepdims=keepdims)
        dof = ufuncs.subtract(n, ddof)
    # no degrees of freedom left: NaN (as JAX; NumPy gives inf and warns)
    res = lax._convert_element_type(ufuncs.true_divide(total, dof), dt, False)
    return ufuncs.where_(ufuncs.greater(dof, 0), res, np.nan)


# As in JAX, the variance is computed by a jit of its own (static: axis, dtype, ddof, keepdims),
# a nested call in a traced jaxpr: its transpose adds the cotangent's two terms (through the
# squares and through the mean) before they meet the rest, so gradients round as JAX's.
# pyjax._src.jitted_numpy installs the jitted version (this layer cannot import jit).
var_call = [_var]


def _nan_like(x):
    return ufuncs.multiply(x, np.nan)


def std(a, axis=None, dtype=None, out=None, ddof=0, keepdims=False, *, where=None, mean=None,
        correction=None):
    """Standard deviation: the square root of `var` (same arguments)."""
    _check_where("std", where)
    if dtype is not None and kind(dtypes.check_and_canonicalize_user_dtype(dtype, "std")) not in "fc":
        raise ValueError(f"dtype argument to jnp.std must be inexact; got {np.dtype(dtype)}")
    return lax.sqrt(var(a, axis, dtype, out, ddof, keepdims, where=where, mean=mean, correction=correction))


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

def _cumulative(name, lax_fn, a, axis, dtype, promote_integers=False):
    check_arraylike(name, a)
    a = asarray_value(a)
    if axis is None or _aval(a).ndim == 0:
        a = shape_ops.reshape(a, (_aval(a).size,))
    if axis is None:
        axis = 0
    aval = _aval(a)
    axis = canonicalize_axis(axis, aval.ndim, "axis", name)
    if dtype is None:  # only bools promote, unless asked (JAX keeps int8 cumsums int8)
        out_dt = promote_integer_dtype(aval.dtype) if promote_integers or aval.dtype == np.bool_ else aval.dtype
        cdt = out_dt
    else:
        out_dt = dtypes.check_and_canonicalize_user_dtype(dtype, name)
        cdt = out_dt
        if out_dt == np.bool_:  # as JAX: accumulate "is nonzero" as integers, then test that
            if aval.dtype != np.bool_:
                a = ufuncs.not_equal(a, 0)
            cdt = promote_integer_dtype(out_dt)
    if cdt != _aval(a).dtype or aval.weak_type:  # as JAX, computed (and returned) strong
        a = lax._convert_element_type(a, cdt, False)
    out = lax_fn(a, axis)
    return lax._convert_element_type(out, out_dt, False) if out_dt != cdt else out


def cumsum(a, axis=None, dtype=None, out=None):
    _no_out(out, "cumsum")
    return _cumulative("cumsum", lax_cf.cumsum, a, axis, dtype)


def cumprod(a, axis=None, dtype=None, out=None):
    _no_out(out, "cumprod")
    return _cumulative("cumprod", lax_cf.cumprod, a, axis, dtype)


def _array_api_cumulative(name, what, lax_fn, x, axis, dtype, include_initial, promote_integers, initial):
    check_arraylike(name, x)
    x = asarray_value(x)
    ndim = _aval(x).ndim
    if ndim == 0:
        raise ValueError(f"The input must be non-scalar to take a cumulative {what} with {name}; "
                         f"got a scalar value or scalar array")
    if axis is None:
        if ndim > 1:
            raise ValueError(f"The input array has rank {ndim}, however axis was not set to an explicit "
                             f"value; {name} leaves it out only for one-dimensional arrays")
        axis = 0
    axis = canonicalize_axis(axis, ndim, "axis", name)
    out = _cumulative(name, lax_fn, x, axis, dtype, promote_integers)
    if include_initial:
        shape = list(_aval(out).shape)
        shape[axis] = 1
        first = asarray_value(np.full(shape, initial, _aval(out).dtype))
        out = shape_ops.concatenate((first, out), axis)
    return out


def cumulative_sum(x, /, *, axis=None, dtype=None, include_initial=False):
    """The array API's cumsum: `axis` may be omitted only for 1-D input; small integers widen to
    the default integer; `include_initial` prepends the zero the sums start from."""
    return _array_api_cumulative("cumulative_sum", "sum", lax_cf.cumsum, x, axis, dtype, include_initial,
                                 True, 0)


def cumulative_prod(x, /, *, axis=None, dtype=None, include_initial=False):
    """The array API's cumprod: `axis` may be omitted only for 1-D input; `include_initial`
    prepends the one the products start from."""
    return _array_api_cumulative("cumulative_prod", "product", lax_cf.cumprod, x, axis, dtype,
                                 include_initial, False, 1)


def count_nonzero(a, axis=None, keepdims=False):
    check_arraylike("count_nonzero", a)
    a = asarray_value(a)
    # NB: compared with a zero of a's own dtype (no promotion: bool arrays count under 'strict')
    zero = np.zeros((), core.get_aval(a).dtype)
    return sum(lax.ne(a, zero), axis, dtype=dtypes.default_int_dtype(), keepdims=keepdims)


def ptp(a, axis=None, out=None, keepdims=False):
    _no_out(out, "ptp")
    return ufuncs.subtract(max(a, axis, keepdims=keepdims), min(a, axis, keepdims=keepdims))
