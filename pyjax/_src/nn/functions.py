"""Neural-network activations and normalizations (`jax.nn`): elementwise activations, softmax
and its relatives, `standardize`, `one_hot`.

The formulas and their numerics are JAX 0.10.2's: the same stable forms (softplus through
logaddexp, log1mexp switching at log 2), the same custom JVPs where the plain derivative is wrong
or unstable (relu at 0, relu6 at 0 and 6, log1mexp), and the same `jit` wrappers, so eager calls
run on the C++ fast path and `make_jaxpr` shows JAX's equations. Attention and the block-scaled
matmuls live in `attention.py`.
"""
from __future__ import annotations

import functools
import warnings

import numpy as np

from pyjax._src import core, dtypes
from pyjax._src.config import config
from pyjax._src.custom_derivatives import custom_jvp
from pyjax._src.interpreters import batching
from pyjax._src.lax import elementwise as lax
from pyjax._src.lax import parallel as lax_par
from pyjax._src.lax import shape_ops
from pyjax._src.numpy import array_methods  # noqa: F401  (the rules below use Array operators)
from pyjax._src.numpy import reductions as jred
from pyjax._src.numpy import ufuncs as jnp
from pyjax._src.numpy.lax_numpy import clip
from pyjax._src.numpy.lax_numpy import where as _where  # (`where` is also a parameter name)
from pyjax._src.numpy.shape import split
from pyjax._src.numpy.util import (asarray_value, broadcast_to, check_arraylike,
                                   promote_args_inexact, reduction_axes)
from pyjax._src.jitted_numpy import logaddexp
from pyjax._src.pjit import jit


def _arraylike(fname, x):
    check_arraylike(fname, x)
    return asarray_value(x)


def _promote_inexact(fname, *args):
    """The arguments as Arrays of their common inexact dtype (NumPy operands become Arrays)."""
    return [asarray_value(a) for a in promote_args_inexact(fname, *args)]


# -- rectifiers ----------------------------------------------------------------------------------


@jit
def identity(x):
    """The argument, unchanged: `nn.identity(jnp.array([-1.0, 2.0]))` is `[-1., 2.]`."""
    return _arraylike("identity", x)


@custom_jvp
@jit
def relu(x):
    """max(x, 0); its derivative at 0 is 0 (as JAX).

    Example:
        >>> nn.relu(jnp.array([-2.0, 0.0, 2.0]))
        Array([0., 0., 2.], dtype=float32)
    """
    return jnp.maximum(x, 0)


# As JAX: the tangent is 0 where x <= 0 (g * 0 would be NaN for a NaN g), and a select with a
# constant case transposes to one select (not two selects, a multiply by 0 and an add).
relu.defjvps(lambda g, ans, x: _where(jnp.greater(x, 0), g, 0))


@custom_jvp
@jit
def relu6(x):
    """min(max(x, 0), 6); its derivative at 0 and at 6 is 0 (as JAX)."""
    return jnp.minimum(jnp.maximum(x, 0), 6.0)


relu6.defjvps(lambda g, ans, x: _where(jnp.logical_and(jnp.greater(x, 0), jnp.less(x, 6)), g, 0))


@jit
def leaky_relu(x, negative_slope=1e-2):
    """x where x >= 0, else `negative_slope * x`."""
    x = _arraylike("leaky_relu", x)
    return _where(x >= 0, x, negative_slope * x)


@jit
def hard_tanh(x):
    """x clipped to [-1, 1]."""
    # NB: written with `where` as JAX does, so the derivative at +-1 is 1 (max/min would split it)
    x = _arraylike("hard_tanh", x)
    return _where(x > 1, 1, _where(x < -1, -1, x))


@jit
def hard_sigmoid(x):
    """relu6(x + 3) / 6."""
    return relu6(x + 3.0) / 6.0


@jit
def hard_silu(x):
    """x * hard_sigmoid(x) (`hard_swish` is the same function)."""
    x = _arraylike("hard_silu", x)
    return x * hard_sigmoid(x)


hard_swish = hard_silu


@jit
def elu(x, alpha=1.0):
    """x where x > 0, else alpha * (exp(x) - 1)."""
    x = _arraylike("elu", x)
    # the exp only sees the non-positive side, so a huge x gives no inf (and no NaN gradient)
    return _where(x > 0, x, alpha * jnp.expm1(_where(x > 0, 0.0, x)))


@jit
def celu(x, alpha=1.0):
    """max(x, 0) + alpha * expm1(min(x, 0) / alpha)."""
    return jnp.maximum(x, 0.0) + alpha * jnp.expm1(jnp.minimum(x, 0.0) / alpha)


_SELU_ALPHA = 1.6732632423543772848170429916717
_SELU_SCALE = 1.0507009873554804934193349852946


@jit
def selu(x):
    """scale * elu(x, alpha) with the self-normalizing constants of Klambauer et al. (2017)."""
    return _SELU_SCALE * elu(x, _SELU_ALPHA)


# -- smooth activations --------------------------------------------------------------------------


@jit(inline=True)
def sigmoid(x):
    """1 / (1 + exp(-x)), through XLA's logistic."""
    return lax.logistic(x)


@jit
def softplus(x):
    """log(1 + exp(x)), computed as logaddexp(x, 0): no overflow for large x."""
    return logaddexp(x, 0)


@jit
def log_sigmoid(x):
    """log(sigmoid(x)) = -softplus(-x), stable at both ends."""
    x = _arraylike("log_sigmoid", x)
    return -softplus(-x)


@jit
def silu(x):
    """x * sigmoid(x) (`swish` is the same function)."""
    x = _arraylike("silu", x)
    return x * sigmoid(x)


swish = silu


@jit
def mish(x):
    """x * tanh(softplus(x))."""
    x = _arraylike("mish", x)
    return x * jnp.tanh(softplus(x))


@jit
def squareplus(x, b=4):
    """(x + sqrt(x^2 + b)) / 2."""
    check_arraylike("squareplus", x, b)
    x, b = asarray_value(x), asarray_value(b)
    return (x + jnp.sqrt(jnp.square(x) + b)) / 2


@jit
def soft_sign(x):
    """x / (|x| + 1)."""
    x = _arraylike("soft_sign", x)
    return x / (jnp.absolute(x) + 1)


@jit
def sparse_plus(x):
    """0 for x <= -1, (x + 1)^2 / 4 on (-1, 1), x for x >= 1."""
    x = _arraylike("sparse_plus", x)
    return _where(x <= -1.0, 0.0, _where(x >= 1.0, x, (x + 1.0) ** 2 / 4))


@jit
def sparse_sigmoid(x):
    """The derivative of sparse_plus: clip((x + 1) / 2, 0, 1)."""
    return 0.5 * clip(x + 1.0, 0.0, 2.0)


def gelu(x, approximate=True):
    """The Gaussian error linear unit: x * Phi(x), by default with the tanh approximation.

    Example:
        >>> nn.gelu(jnp.array([-1.0, 0.0, 1.0]), approximate=False)
        Array([-0.15865526,  0.        ,  0.8413447 ], dtype=float32)
    """
    (x,) = _promote_inexact("gelu", x)
    dt = core.get_aval(x).dtype
    if approximate:
        # the constant is a NumPy scalar of x's dtype, as in JAX (bfloat16 rounds it)
        c = np.array(np.sqrt(2 / np.pi), dt)[()]
        return x * (0.5 * (1.0 + jnp.tanh(c * (x + 0.044715 * (x ** 3)))))
    sqrt_half = np.array(np.sqrt(0.5), dt)[()]
    return lax.convert_element_type(0.5 * x * lax.erfc(-x * sqrt_half), dt)


@jit(static_argnames=("axis",))
def glu(x, axis=-1):
    """The gated linear unit: the first half of `x` along `axis` times sigmoid of the second."""
    x = _arraylike("glu", x)
    size = core.get_aval(x).shape[axis]
    if size % 2:
        raise AssertionError("axis size must be divisible by 2")  # as JAX (an assert there)
    x1, x2 = split(x, 2, axis)
    return x1 * sigmoid(x2)


_LOG2 = float(np.log(2.0))  # a Python float: weak, so it takes x's dtype


@custom_jvp
@jit
def log1mexp(x):
    """log(1 - exp(-x)) for x >= 0, accurate at both ends (Maechler's switch at log 2)."""
    x = _arraylike("log1mexp", x)
    return _where(x < _LOG2, jnp.log(-jnp.expm1(-x)), jnp.log1p(-jnp.exp(-x)))


log1mexp.defjvps(lambda g, ans, x: g / jnp.expm1(x))


# -- softmax and relatives -----------------------------------------------------------------------


def logsumexp(a, axis=None, b=None, keepdims=False, return_sign=False, where=None):
    """log(sum(b * exp(a))) over `axis`, shifted by the max so nothing overflows.

    With `return_sign` the result is `(log|sum|, sign(sum))`; otherwise a negative sum (possible
    with `b`) gives NaN. Elements where `where` is False take no part.

    Example:
        >>> nn.logsumexp(jnp.array([1000.0, 1000.0]))
        Array(1000.6931, dtype=float32)
    """
    if where is not None:
        a = _where(where, a, 0)
    if b is not None:
        a, b = _promote_inexact("logsumexp", a, b)
        a = _where(b != 0, a, -np.inf)
    else:
        (a,) = _promote_inexact("logsumexp", a)
    aval = core.get_aval(a)
    axes, _ = reduction_axes(axis, aval.ndim, "logsumexp")
    amax = jred.max(jnp.real(a), axis=axis, keepdims=keepdims, where=where, initial=-np.inf)
    # the shift is a constant: an infinite max (all -inf, or an inf present) shifts by 0
    amax = shape_ops.stop_gradient(_where(jnp.isfinite(amax), amax, 0.0))
    amax_kept = amax if keepdims else shape_ops.expand_dims(amax, axes)
    # (lax.sub, as JAX: `a` is not made strong first, so its cotangent stays strong)
    exp_a = jnp.exp(lax.sub(a, broadcast_to(lax.convert_element_type(amax_kept, aval.dtype), aval.shape)))
    if b is not None:
        exp_a = exp_a * b
    sumexp = jred.sum(exp_a, axis=axis, keepdims=keepdims, where=where)
    sign = jnp.sign(sumexp)
    complex_out = dtypes.issubdtype(aval.dtype, np.complexfloating)
    if return_sign or not complex_out:
        sumexp = jnp.absolute(sumexp)
    out = jnp.log(sumexp) + lax.convert_element_type(amax, core.get_aval(sumexp).dtype)
    if return_sign:
        return out, sign
    if b is not None and not complex_out:
        out = _where(sign < 0, np.array(np.nan, core.get_aval(out).dtype), out)
    return out


@jit(static_argnames=("axis", "keepdims"))
def logmeanexp(x, axis=None, where=None, keepdims=False):
    """log(mean(exp(x))) over `axis` = logsumexp(x) - log(n), n counting only `where`."""
    lse = logsumexp(x, axis=axis, where=where, keepdims=keepdims)
    dt = core.get_aval(lse).dtype
    return lse - jnp.log(_count(x, axis, where, keepdims, dt))


def _count(x, axis, where, keepdims, dtype):
    """How many elements a reduction over `axis` combines (only those where `where` holds)."""
    shape = np.shape(x) if not isinstance(x, core.Tracer) else core.get_aval(x).shape
    if where is None:
        axes, _ = reduction_axes(axis, len(shape), "logmeanexp")
        n = int(np.prod([shape[a] for a in axes], dtype=np.int64))
        return np.array(n, dtype)
    return jred.sum(broadcast_to(where, shape), axis, dtype=dtype, keepdims=keepdims)


@jit(static_argnames=("axis",))
def log_softmax(x, axis=-1, where=None):
    """`x - logsumexp(x)` along `axis` (an int, a tuple of ints or None for all axes).

    Only the elements where `where` is True take part; the others come out as -inf.

    Example:
        >>> nn.log_softmax(jnp.array([1.0, 2.0, 3.0]), where=jnp.array([True, False, True]))
        Array([-2.126928  ,       -inf, -0.12692805], dtype=float32)
    """
    x = _arraylike("log_softmax", x)
    # as JAX: the max over no element is -inf (`initial`), masked elements read as -inf
    x_max = jred.max(x, axis, where=where, initial=-np.inf, keepdims=True)
    x_safe = x if where is None else _where(where, x, -np.inf)
    shifted = x_safe - shape_ops.stop_gradient(x_max)
    result = shifted - jnp.log(jred.sum(jnp.exp(shifted), axis, where=where, keepdims=True))
    return result if where is None else _where(where, result, -np.inf)


def softmax(x, axis=-1, where=None):
    """`exp(x) / sum(exp(x))` along `axis` (an int, a tuple of ints or None for all axes).

    Only the elements where `where` is True take part; the others come out as 0.

    Example:
        >>> nn.softmax(jnp.array([1.0, 2.0, 3.0]), where=jnp.array([True, False, True]))
        Array([0.11920291, 0.        , 0.880797  ], dtype=float32)
    """
    check_arraylike("softmax", x)
    if config._values["jax_softmax_custom_jvp"]:
        return _softmax(asarray_value(x), axis, where)
    # JAX 0.10.2's default (jax_softmax_custom_jvp=False): the max is a stop_gradient shift and
    # the derivative comes from autodiff of the formula.
    return _softmax_formula(asarray_value(x), axis, where, stop_shift_gradient=True)


def _softmax_formula(x, axis, where, stop_shift_gradient=False):
    x_max = jred.max(x, axis, where=where, initial=-np.inf, keepdims=True)
    if stop_shift_gradient:
        x_max = shape_ops.stop_gradient(x_max)
    x_safe = x if where is None else _where(where, x, -np.inf)
    unnormalized = jnp.exp(x_safe - x_max)
    result = unnormalized / jred.sum(unnormalized, axis, where=where, keepdims=True)
    return result if where is None else _where(where, result, 0)


def _softmax(x, axis, where):
    """softmax with JAX's custom JVP (jax_softmax_custom_jvp=True): y * (t - sum(y * t))."""
    return _softmax_custom(x, tuple(axis) if isinstance(axis, list) else axis, where)


@functools.partial(custom_jvp, nondiff_argnums=(1,))
def _softmax_custom(x, axis, where):
    return _softmax_formula(x, axis, where)


@_softmax_custom.defjvp
def _softmax_custom_jvp(axis, primals, tangents):
    (x, where), (t, _) = primals, tangents
    y = _softmax_custom(x, axis, where)
    return y, y * (t - jred.sum(y * t, axis, where=where, keepdims=True))


@jit(static_argnames=("axis", "algorithm"))
def standardize(x, axis=-1, mean=None, variance=None, epsilon=1e-5, where=None, *,
                algorithm="fast"):
    """(x - mean) / sqrt(variance + epsilon), the statistics over `axis` (those given are used).

    `algorithm="fast"` (JAX's default) takes the variance as mean(x^2) - mean(x)^2 clipped at 0;
    `"stable"` as mean((x - mean)^2).
    """
    check_arraylike("standardize", x)
    for name, v in (("mean", mean), ("variance", variance), ("where", where)):
        if v is not None:
            check_arraylike("standardize", v)
    if mean is None:
        mean = jred.mean(x, axis, keepdims=True, where=where)
    if variance is None:
        if algorithm == "stable":
            variance = jred.mean(jnp.square(jnp.subtract(x, mean)), axis, keepdims=True, where=where)
        elif algorithm == "fast":
            variance = jred.mean(jnp.square(x), axis, keepdims=True, where=where) - jnp.square(mean)
            variance = clip(variance, 0)
        else:
            raise ValueError(f"Unknown algorithm '{algorithm}'. Expected 'fast' or 'stable'.")
    return jnp.subtract(x, mean) * lax.rsqrt(variance + epsilon)


# -- one_hot -------------------------------------------------------------------------------------


def one_hot(x, num_classes, *, dtype=None, axis=-1):
    """One-hot encode integer labels; labels outside [0, num_classes) encode as all zeros.

    `axis` may also name a vmap/pmap axis, whose index is then the class.

    Example:
        >>> nn.one_hot(jnp.array([0, 2, 5]), 3)
        Array([[1., 0., 0.],
               [0., 0., 1.],
               [0., 0., 0.]], dtype=float32)
    """
    num_classes = core.concrete_dim(num_classes, "The error arose in jax.nn.one_hot argument `num_classes`.")
    x = asarray_value(x)
    x_dtype = core.get_aval(x).dtype
    if not dtypes.issubdtype(x_dtype, np.integer):
        # JAX warns through its deprecation registry ('jax-nn-one-hot-float-input')
        warnings.warn(f"jax.nn.one_hot input should be integer-typed; got dtype={x_dtype}",
                      DeprecationWarning, stacklevel=2)
    dtype = dtypes.default_float_dtype() if dtype is None else dtype
    if _is_axis_name(axis):
        _check_named_axis_size(num_classes, axis)
    return _one_hot(x, num_classes, dtype=dtype, axis=axis)


@jit(static_argnames=("num_classes", "dtype", "axis"))
def _one_hot(x, num_classes, *, dtype, axis):
    aval = core.get_aval(x)
    if _is_axis_name(axis):
        # the class axis is a named (vmap/pmap) axis: each instance compares with its index
        return lax.convert_element_type(jnp.equal(x, lax_par.axis_index(axis)), dtype)
    out_ndim = aval.ndim + 1
    if not -out_ndim <= axis < out_ndim:  # a ValueError, as JAX's (not NumPy's AxisError)
        raise ValueError(f"one_hot: axis {axis} is out of bounds for an output of rank {out_ndim}")
    axis %= out_ndim
    lhs = shape_ops.expand_dims(x, (axis,))
    rhs_shape = [1] * aval.ndim
    rhs_shape.insert(axis, num_classes)
    rhs = shape_ops.broadcasted_iota(aval.dtype, tuple(rhs_shape), axis)
    return lax.convert_element_type(jnp.equal(lhs, rhs), dtype)


def _is_axis_name(axis):
    return not isinstance(axis, (int, np.integer))


def _check_named_axis_size(num_classes, axis_name):
    """As JAX: the named axis must have num_classes instances. (Checked outside the jit: the size
    comes from the enclosing vmap, and lax.axis_size gives a traced value here.)"""
    axis_size = int(np.prod([batching.axis_data_of(n).size for n in
                             (axis_name if isinstance(axis_name, tuple) else (axis_name,))]))
    if num_classes != axis_size:
        raise ValueError(f"Expected num_classes to match the size of axis {axis_name}, "
                         f"but {num_classes} != {axis_size}")
