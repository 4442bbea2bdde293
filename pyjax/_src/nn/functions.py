"""Neural-network activation functions and helpers (`jax.nn`)."""
from __future__ import annotations

import numpy as np

from pyjax._src import core, dtypes
from pyjax._src.custom_derivatives import custom_jvp
from pyjax._src.lax import elementwise as lax
from pyjax._src.lax import shape_ops
from pyjax._src.numpy import reductions as jred
from pyjax._src.numpy import ufuncs as jnp
from pyjax._src.numpy.lax_numpy import where
from pyjax._src.numpy.lax_numpy import where as _where  # (`where` is also a parameter name)
from pyjax._src.numpy.util import (asarray_value, canonicalize_axis_arg, check_arraylike,
                                   promote_args_inexact)


@custom_jvp
def relu(x):
    """max(x, 0); its derivative at 0 is 0 (as JAX)."""
    return jnp.maximum(x, 0)


# As JAX: the tangent is 0 where x <= 0 (g * 0 would be NaN for a NaN g), and a select with a
# constant case transposes to one select (not two selects, a multiply by 0 and an add).
relu.defjvps(lambda g, ans, x: where(jnp.greater(x, 0), g, 0))


@custom_jvp
def relu6(x):
    """min(max(x, 0), 6); its derivative at 0 and at 6 is 0 (as JAX)."""
    return jnp.minimum(jnp.maximum(x, 0), 6.0)


relu6.defjvps(lambda g, ans, x: where(jnp.logical_and(jnp.greater(x, 0), jnp.less(x, 6)), g, 0))


def sigmoid(x):
    (x,) = promote_args_inexact("sigmoid", x)
    return lax.logistic(x)


def log_sigmoid(x):
    return jnp.negative(softplus(jnp.negative(x)))


def softplus(x):
    return jnp.logaddexp(x, 0)


def silu(x):
    return jnp.multiply(x, sigmoid(x))


swish = silu


def gelu(x, approximate=True):
    (x,) = promote_args_inexact("gelu", x)
    if approximate:
        c = float(np.sqrt(2 / np.pi))
        return jnp.multiply(jnp.multiply(0.5, x),
                            jnp.add(1.0, jnp.tanh(jnp.multiply(c, jnp.add(x, jnp.multiply(0.044715, jnp.power(x, 3)))))))
    return jnp.multiply(jnp.multiply(0.5, x), jnp.add(1.0, lax.erf(jnp.multiply(x, float(1 / np.sqrt(2))))))


def elu(x, alpha=1.0):
    (x,) = promote_args_inexact("elu", x)
    safe = where(jnp.greater(x, 0), 0.0, x)
    return where(jnp.greater(x, 0), x, jnp.multiply(alpha, jnp.expm1(safe)))


def leaky_relu(x, negative_slope=0.01):
    (x,) = promote_args_inexact("leaky_relu", x)
    return where(jnp.greater_equal(x, 0), x, jnp.multiply(negative_slope, x))


def hard_tanh(x):
    # NB: written with `where` as JAX does, so the derivative at +-1 is 1 (max/min would split it)
    return where(jnp.greater(x, 1), 1, where(jnp.less(x, -1), -1, x))


def logsumexp(a, axis=None, b=None, keepdims=False, return_sign=False, where=None):
    """log(sum(exp(a))) computed stably (shifted by the max)."""
    (a,) = promote_args_inexact("logsumexp", a)
    amax = jred.max(a, axis=axis, keepdims=True)
    amax = shape_ops.stop_gradient(where_finite(amax))
    e = jnp.exp(jnp.subtract(a, amax))
    if b is not None:
        e = jnp.multiply(e, b)
    s = jred.sum(e, axis=axis, keepdims=True)
    out = jnp.add(jnp.log(jnp.absolute(s)), amax)
    if not keepdims:
        out = jred._finish_squeeze(out, axis) if hasattr(jred, "_finish_squeeze") else _squeeze_axes(out, axis, core.get_aval(a).ndim)
    if return_sign:
        sign = jnp.sign(s) if keepdims else _squeeze_axes(jnp.sign(s), axis, core.get_aval(a).ndim)
        return out, sign
    return out


def where_finite(x):
    return where(jnp.isfinite(x), x, 0.0)


def _squeeze_axes(x, axis, ndim):
    return shape_ops.squeeze(x, canonicalize_axis_arg(axis, ndim))


def log_softmax(x, axis=-1, where=None):
    """`x - logsumexp(x)` along `axis` (an int, a tuple of ints or None for all axes).

    Only the elements where `where` is True take part; the others come out as -inf.

    Example:
        >>> nn.log_softmax(jnp.array([1.0, 2.0, 3.0]), where=jnp.array([True, False, True]))
        Array([-2.126928  ,       -inf, -0.12692805], dtype=float32)
    """
    check_arraylike("log_softmax", x)
    x = asarray_value(x)
    # as JAX: the max over no element is -inf (`initial`), masked elements read as -inf
    x_max = jred.max(x, axis, where=where, initial=-np.inf, keepdims=True)
    x_safe = x if where is None else _where(where, x, -np.inf)
    shifted = jnp.subtract(x_safe, shape_ops.stop_gradient(x_max))
    result = jnp.subtract(shifted, jnp.log(jred.sum(jnp.exp(shifted), axis, where=where, keepdims=True)))
    return result if where is None else _where(where, result, -np.inf)


def softmax(x, axis=-1, where=None):
    """`exp(x) / sum(exp(x))` along `axis` (an int, a tuple of ints or None for all axes).

    Only the elements where `where` is True take part; the others come out as 0.

    Example:
        >>> nn.softmax(jnp.array([1.0, 2.0, 3.0]), where=jnp.array([True, False, True]))
        Array([0.11920291, 0.        , 0.880797  ], dtype=float32)
    """
    # JAX 0.10.2's default softmax (jax_softmax_custom_jvp=False): the max is a stop_gradient
    # shift and the derivative comes from autodiff of the formula.
    check_arraylike("softmax", x)
    x = asarray_value(x)
    x_max = jred.max(x, axis, where=where, initial=-np.inf, keepdims=True)
    x_safe = x if where is None else _where(where, x, -np.inf)
    unnormalized = jnp.exp(jnp.subtract(x_safe, shape_ops.stop_gradient(x_max)))
    result = jnp.true_divide(unnormalized, jred.sum(unnormalized, axis, where=where, keepdims=True))
    return result if where is None else _where(where, result, 0)


def standardize(x, axis=-1, mean=None, variance=None, epsilon=1e-5, where=None):
    if mean is None:
        mean = jred.mean(x, axis=axis, keepdims=True)
    if variance is None:
        variance = jred.var(x, axis=axis, keepdims=True)
    return jnp.multiply(jnp.subtract(x, mean), lax.rsqrt(jnp.add(variance, epsilon)))


def one_hot(x, num_classes, *, dtype=None, axis=-1):
    """One-hot encode integer labels: `one_hot(jnp.array([0, 2]), 3)`."""
    num_classes = core.concrete_dim(num_classes, "one_hot num_classes")
    x = asarray_value(x)
    aval = core.get_aval(x)
    dt = dtypes.default_float_dtype() if dtype is None else dtypes.canonicalize_dtype(dtypes.dtype(dtype))
    out_ndim = aval.ndim + 1
    axis = axis % out_ndim
    shape = list(aval.shape)
    shape.insert(axis, num_classes)
    iota = shape_ops.broadcasted_iota(aval.dtype if dtypes.issubdtype(aval.dtype, np.integer) else np.int32,
                                      tuple(shape), axis)
    kept = tuple(d for d in range(out_ndim) if d != axis)
    xb = shape_ops.broadcast_in_dim(x, tuple(shape), kept)
    return lax.convert_element_type(jnp.equal(xb, iota), dt)
