"""Samplers built on uniform bits: uniform, normal, randint, bernoulli and the distributions JAX
derives from them by transformation (exponential, gumbel, laplace, ...), plus the discrete
choosers (categorical, choice, permutation).

Each follows JAX 0.10.2's algorithm operation for operation, and each jitted piece is the piece
JAX jits, so XLA sees the same computation and the samples are JAX's, bit for bit. The public
function checks its arguments (JAX's exception classes) and calls a jitted `_name` with the
static shape and dtype. Gamma-based samplers live in `gamma.py`.

`out_sharding=` lays the sample out over a mesh as JAX does (`keys.honours_out_sharding`).
"""
from __future__ import annotations

import functools
import math
import operator

import numpy as np

from pyjax._src import core, dtypes
from pyjax._src.config import config
from pyjax._src.lax import elementwise as lax
from pyjax._src.lax import shape_ops
from pyjax._src.lax.sorting import sort_key_val, top_k
from pyjax._src.lax.utils import canonicalize_axis
from pyjax._src.numpy import creation, lax_numpy
from pyjax._src.numpy.index_tricks import take
from pyjax._src.numpy import reductions as jred
from pyjax._src.numpy import shape as jshape
from pyjax._src.numpy import linalg as jnp_linalg
from pyjax._src.numpy.linalg_ops import einsum
from pyjax._src.numpy import ufuncs as jufuncs
from pyjax._src.numpy.util import (
    broadcast_shapes, broadcast_to, check_arraylike, promote_dtypes_inexact)
from pyjax._src.random.keys import (
    canonical_shape, check_prng_key, honours_out_sharding, random_bits, split_key)
from pyjax._src.random.prng import UINT_DTYPES, library_jit as jit

# -- argument checks shared by the samplers --------------------------------------------------


def check_shape(name, shape, *param_shapes):
    """The parameters' shapes must broadcast to exactly `shape` (JAX's ValueError)."""
    if param_shapes:
        shape_ = broadcast_shapes(shape, *param_shapes)
        if tuple(shape) != shape_:
            raise ValueError(f"{name} parameter shapes must be broadcast-compatible with shape "
                             f"argument, and the result of broadcasting the shapes must equal the "
                             f"shape argument, but got result {shape_} for shape argument {shape}.")


def check_broadcast_shapes(name, shape, *args):
    """`shape` checked against the parameters' shapes, or their broadcast shape if None."""
    arg_shapes = [np.shape(a) for a in args]
    if shape is None:
        return broadcast_shapes(*arg_shapes) if arg_shapes else ()
    shape = canonical_shape(shape, name)
    check_shape(name, shape, *arg_shapes)
    return shape


def check_safe_to_cast(name, dtype, *args):
    """Parameters must convert to the sample dtype without loss (JAX's TypePromotionError)."""
    for a in args:
        if dtypes.dtype_of(a) != dtype and dtypes.result_type(a, dtype) != dtype:
            raise dtypes.TypePromotionError(f"In arguments to {name}, cannot safely cast argument "
                                            f"of type {creation.asarray(a).dtype} to {dtype}")


def float_dtype(name, dtype):
    """The canonical sample dtype (the default float if None); ValueError unless floating."""
    dtype = dtypes.check_and_canonicalize_user_dtype(float if dtype is None else dtype, name)
    if not dtypes.issubdtype(dtype, np.floating):
        raise ValueError(f"dtype argument to `{name}` must be a float dtype, got {dtype}")
    return dtype


def check_float_sampler(name, key, shape, dtype, *params):
    """The checks of a float sampler with array parameters, in JAX's order: the key, the dtype,
    the shape against the parameters' and the parameters' casts. Returns (key, shape, dtype)."""
    key, _ = check_prng_key(name, key)
    dtype = float_dtype(name, dtype)
    shape = check_broadcast_shapes(name, shape, *params)
    check_safe_to_cast(name, dtype, *params)
    return key, shape, dtype


def int_dtype(name, dtype):
    dtype = dtypes.check_and_canonicalize_user_dtype(int if dtype is None else dtype, name)
    if not dtypes.issubdtype(dtype, np.integer):
        raise ValueError(f"dtype argument to `{name}` must be an int dtype, got {dtype}")
    return dtype


def _const(x, value):
    """`value` as a (strongly typed) NumPy scalar of `x`'s dtype, as JAX's `lax._const`."""
    return np.array(value, x.dtype)


def _missing(what, name):
    return NotImplementedError(f"jax.random.{name} needs {what}, which pyjax does not have yet")


# -- uniform and normal ----------------------------------------------------------------------


@honours_out_sharding
def uniform(key, shape=(), dtype=None, minval=0., maxval=1., *, out_sharding=None):
    """Uniform floats in `[minval, maxval)`.

    >>> from pyjax import random
    >>> random.uniform(random.key(0), (2,))
    Array([0.947667 , 0.9785799], dtype=float32)
    """
    key, _ = check_prng_key("uniform", key)
    dtype = float_dtype("uniform", dtype)
    return _uniform(key, minval, maxval, canonical_shape(shape, "uniform"), dtype)


@jit(static_argnums=(3, 4))
def _uniform(key, minval, maxval, shape, dtype):
    """Random mantissa bits under the exponent of 1.0 give a float in [1, 2); minus 1, scaled."""
    minval = shape_ops.broadcast_to_rank(lax.convert_element_type(minval, dtype), len(shape))
    maxval = shape_ops.broadcast_to_rank(lax.convert_element_type(maxval, dtype), len(shape))
    finfo = dtypes.finfo(dtype)
    nbits, nmant = finfo.bits, finfo.nmant
    if nbits not in (8, 16, 32, 64):
        raise TypeError(f"uniform only accepts 8-, 16-, 32-, or 64-bit dtypes, got {dtype}.")
    rng_bits = nbits if nmant >= 8 else 8  # (fp8 types with few mantissa bits)
    uint_dtype = UINT_DTYPES[nbits]
    bits = lax.convert_element_type(random_bits(key, rng_bits, shape), uint_dtype)
    float_bits = lax.shift_right_logical(bits, np.array(rng_bits - nmant, uint_dtype))
    float_bits = lax.bitwise_or(float_bits, np.array(1.0, dtype).view(uint_dtype))
    floats = lax.bitcast_convert_type(float_bits, dtype) - np.array(1., dtype)
    return lax.max(minval, shape_ops.reshape(floats * (maxval - minval) + minval, shape))


@honours_out_sharding
def normal(key, shape=(), dtype=None, *, out_sharding=None):
    """Standard normal samples (real, or complex with independent parts of variance 1/2).

    >>> from pyjax import random
    >>> random.normal(random.key(0), (2,))
    Array([1.6226422, 2.0252647], dtype=float32)
    """
    key, _ = check_prng_key("normal", key)
    dtype = dtypes.check_and_canonicalize_user_dtype(float if dtype is None else dtype, "normal")
    if not dtypes.issubdtype(dtype, np.inexact):
        raise ValueError(f"dtype argument to `normal` must be a float or complex dtype, got {dtype}")
    return _normal(key, canonical_shape(shape, "normal"), dtype)


@jit(static_argnums=(1, 2))
def _normal(key, shape, dtype):
    if not dtypes.issubdtype(dtype, np.complexfloating):
        return _normal_real(key, shape, dtype)
    key_re, key_im = split_key(key)
    real_dtype = np.array(0, dtype).real.dtype
    re = _normal_real(key_re, shape, real_dtype).astype(dtype)
    im = _normal_real(key_im, shape, real_dtype).astype(dtype)
    return (re + 1j * im) / np.array(np.sqrt(2), dtype)


@jit(static_argnums=(1, 2))
def _normal_real(key, shape, dtype):
    """The inverse of the normal CDF at uniforms in (-1, 1): sqrt(2) erfinv(u)."""
    lo = np.nextafter(np.array(-1., dtype), np.array(0., dtype), dtype=dtype)
    u = uniform(key, shape, dtype, lo, np.array(1., dtype))
    return lax.mul(np.array(np.sqrt(2), dtype), lax.erf_inv(u))


@honours_out_sharding
def truncated_normal(key, lower, upper, shape=None, dtype=None, *, out_sharding=None):
    """Standard normal samples conditioned on the open interval `(lower, upper)`."""
    if shape is not None:
        shape = canonical_shape(shape, "truncated_normal")
    key, _ = check_prng_key("truncated_normal", key)
    dtype = float_dtype("truncated_normal", dtype)
    return _truncated_normal(key, lower, upper, shape, dtype)


@jit(static_argnums=(3, 4))
def _truncated_normal(key, lower, upper, shape, dtype):
    if shape is None:
        shape = broadcast_shapes(np.shape(lower), np.shape(upper))
    else:
        check_shape("truncated_normal", shape, np.shape(lower), np.shape(upper))
    sqrt2 = np.array(np.sqrt(2), dtype)
    lower = lax.convert_element_type(lower, dtype)
    upper = lax.convert_element_type(upper, dtype)
    a, b = lax.erf(lower / sqrt2), lax.erf(upper / sqrt2)
    out = sqrt2 * lax.erf_inv(uniform(key, shape, dtype, minval=a, maxval=b))
    # rounding (or u == a) may land on a bound: clamp into the open interval
    return lax_numpy.clip(out, lax.nextafter(shape_ops.stop_gradient(lower), np.array(np.inf, dtype)),
                          lax.nextafter(shape_ops.stop_gradient(upper), np.array(-np.inf, dtype)))


# -- integers and booleans -------------------------------------------------------------------


@honours_out_sharding
def randint(key, shape, minval, maxval, dtype=None, *, out_sharding=None):
    """Integers in `[minval, maxval)` (8- and 16-bit types are sampled in 32 bits).

    >>> from pyjax import random
    >>> random.randint(random.key(0), (3,), 0, 10)
    Array([9, 0, 2], dtype=int32)
    """
    key, _ = check_prng_key("randint", key)
    dtype = dtypes.check_and_canonicalize_user_dtype(int if dtype is None else dtype, "randint")
    shape = canonical_shape(shape, "randint")
    if not dtypes.issubdtype(dtype, np.integer):
        raise TypeError(f"randint only accepts integer dtypes, got {dtype}")
    info = dtypes.iinfo(dtype)
    sample_dtype = dtype
    if info.bits < 32:
        sample_dtype = np.dtype(np.int32)
        minval = lax_numpy.clip(creation.asarray(minval).astype("int32"), int(info.min), int(info.max))
        maxval = lax_numpy.clip(creation.asarray(maxval).astype("int32"), int(info.min), int(info.max) + 1)
    return _randint(key, minval, maxval, shape, sample_dtype).astype(dtype)


def _convert_and_clip_integer(val, dtype):
    """`val` in the integer `dtype`, clipped to its range rather than wrapped."""
    lo = _const(val, max(dtypes.iinfo(dtype).min, dtypes.iinfo(val.dtype).min))
    hi = _const(val, min(dtypes.iinfo(dtype).max, dtypes.iinfo(val.dtype).max))
    return lax_numpy.clip(val, lo, hi).astype(dtype)


@jit(static_argnums=(3, 4))
def _randint(key, minval, maxval, shape, dtype):
    """Twice the bits of the dtype, reduced modulo the span: (hi * 2**nbits + lo) % span, with
    2**nbits % span computed as a square so nothing overflows (biased unless the span is a
    power of 2; the bias shrinks with the doubled bits)."""
    check_shape("randint", shape, np.shape(minval), np.shape(maxval))
    check_arraylike("randint", minval, maxval)
    minval, maxval = creation.asarray(minval), creation.asarray(maxval)
    if not dtypes.issubdtype(minval.dtype, np.integer):
        minval = minval.astype(int)
    if not dtypes.issubdtype(maxval.dtype, np.integer):
        maxval = maxval.astype(int)
    # a maxval past the dtype's maximum (randint(k, s, 0, 256, uint8)) widens the span by one
    dtype_max = _convert_and_clip_integer(creation.array(dtypes.iinfo(dtype).max, dtype), maxval.dtype)
    maxval_out_of_range = lax.gt(maxval, dtype_max)
    minval = shape_ops.broadcast_to_rank(_convert_and_clip_integer(minval, dtype), len(shape))
    maxval = shape_ops.broadcast_to_rank(_convert_and_clip_integer(maxval, dtype), len(shape))
    nbits = dtypes.iinfo(dtype).bits
    k1, k2 = split_key(key)
    higher_bits, lower_bits = random_bits(k1, nbits, shape), random_bits(k2, nbits, shape)
    span = lax.convert_element_type(maxval - minval, UINT_DTYPES[nbits])
    span = lax.select(maxval <= minval, creation.full_like(span, 1), span)  # empty range: minval
    span = lax.select(maxval_out_of_range & (maxval > minval), lax.add(span, _const(span, 1)), span)
    multiplier = lax.rem(_const(span, 2 ** (nbits // 2)), span)
    multiplier = lax.rem(lax.mul(multiplier, multiplier), span)
    offset = lax.add(lax.mul(lax.rem(higher_bits, span), multiplier), lax.rem(lower_bits, span))
    return lax.add(minval, lax.convert_element_type(lax.rem(offset, span), dtype))


@honours_out_sharding
def bernoulli(key, p=0.5, shape=None, mode="low", *, out_sharding=None):
    """Booleans that are True with probability `p` ('high' mode: twice the bits, for tiny p)."""
    if shape is not None:
        shape = canonical_shape(shape, "bernoulli")
    if mode not in ("high", "low"):
        raise ValueError(f"got {mode=}, expected 'high' or 'low'")
    key, _ = check_prng_key("bernoulli", key)
    dtype = dtypes.dtype_of(p, canonicalize=True)
    if not dtypes.issubdtype(dtype, np.floating):
        raise TypeError(f"bernoulli probability `p` must have a floating dtype, got {dtype}.")
    return _bernoulli(key, lax.convert_element_type(p, dtype), shape, mode)


@jit(static_argnums=(2, 3))
def _bernoulli(key, p, shape, mode):
    if shape is None:
        shape = np.shape(p)
    else:
        check_shape("bernoulli", shape, np.shape(p))
    dtype = p.dtype
    if mode == "high":
        u1, u2 = uniform(key, (2, *shape), dtype)
        u2 = u2 * (2 ** -dtypes.finfo(dtype).nmant)  # below the resolution of u1
        return u2 < p - u1
    return uniform(key, shape, dtype) < p


@honours_out_sharding
def rademacher(key, shape=(), dtype=None, *, out_sharding=None):
    """-1 or +1 with equal probability."""
    key, _ = check_prng_key("rademacher", key)
    dtype = dtypes.check_and_canonicalize_user_dtype(int if dtype is None else dtype, "rademacher")
    return _rademacher(key, canonical_shape(shape, "rademacher"), dtype)


@jit(static_argnums=(1, 2))
def _rademacher(key, shape, dtype):
    b = bernoulli(key, 0.5, shape).astype(dtype)
    return (2 * b - 1).astype(dtype)


@honours_out_sharding
def geometric(key, p, shape=None, dtype=None, *, out_sharding=None):
    """The number of Bernoulli(p) trials up to and including the first success."""
    key, _ = check_prng_key("geometric", key)
    dtype = int_dtype("geometric", dtype)
    return _geometric(key, p, check_broadcast_shapes("geometric", shape, p), dtype)


@jit(static_argnums=(2, 3))
def _geometric(key, p, shape, dtype):
    check_arraylike("geometric", p)
    p, = promote_dtypes_inexact(p)
    u = uniform(key, shape, p.dtype)
    u = lax_numpy.where(u == 0, 1, u)  # log(0) is -inf
    log_one_minus_p = broadcast_to(lax.log1p(-p), shape)
    g = lax.floor(lax.div(lax.log(u), log_one_minus_p)) + 1
    return g.astype(dtype)


# -- transformations of one uniform or normal ------------------------------------------------


def _simple_sampler(name, draw, doc):
    """A sampler of `(key, shape=(), dtype=None)` whose jitted body is `draw(key, shape, dtype)`."""
    body = jit(draw, static_argnums=(1, 2))

    def sampler(key, shape=(), dtype=None, *, out_sharding=None):
        key, _ = check_prng_key(name, key)
        dtype = float_dtype(name, dtype)
        return body(key, canonical_shape(shape, name), dtype)
    sampler.__name__ = sampler.__qualname__ = name
    sampler.__doc__ = doc
    return honours_out_sharding(sampler)


def _exponential(key, shape, dtype):
    u = uniform(key, shape, dtype)
    return lax.neg(lax.log1p(lax.neg(u)))  # log(1 - u): u = 0 gives 0, never log(0)


def _laplace(key, shape, dtype):
    u = uniform(key, shape, dtype, minval=-1. + dtypes.finfo(dtype).epsneg, maxval=1.)
    return lax.mul(lax.sign(u), lax.log1p(lax.neg(lax.abs(u))))


def _logistic(key, shape, dtype):
    x = uniform(key, shape, dtype, minval=dtypes.finfo(dtype).tiny, maxval=1.)
    return lax.sub(lax.log(x), lax.log1p(lax.neg(x)))


def _cauchy(key, shape, dtype):
    u = uniform(key, shape, dtype, minval=dtypes.finfo(dtype).eps, maxval=1.)
    return lax.tan(lax.mul(_const(u, np.pi), lax.sub(u, _const(u, 0.5))))


def _maxwell(key, shape, dtype):
    x = normal(key, (*shape, 3), dtype)
    # jnp.linalg.norm(x, axis=-1), as JAX computes it
    return jufuncs.sqrt(jred.sum(jufuncs.real(x * jufuncs.conj(x)), axis=-1))


exponential = _simple_sampler("exponential", _exponential, "Samples of Exp(1): density e^-x on x >= 0.")
laplace = _simple_sampler("laplace", _laplace, "Samples of the standard Laplace density e^-|x| / 2.")
logistic = _simple_sampler("logistic", _logistic, "Samples of the standard logistic distribution.")
cauchy = _simple_sampler("cauchy", _cauchy, "Samples of the standard Cauchy density 1 / (pi (1 + x^2)).")
maxwell = _simple_sampler("maxwell", _maxwell, "Samples of the Maxwell distribution: |x| of a 3-d standard normal.")


@honours_out_sharding
def gumbel(key, shape=(), dtype=None, mode=None, *, out_sharding=None):
    """Standard Gumbel samples, -log(-log(u)); 'high' mode spends twice the bits so the far
    tail (tiny u) is reached."""
    key, _ = check_prng_key("gumbel", key)
    dtype = float_dtype("gumbel", dtype)
    shape = canonical_shape(shape, "gumbel")
    if mode is None:
        mode = "high" if config._values["jax_high_dynamic_range_gumbel"] else "low"
    if mode not in ("highest", "high", "low"):
        raise ValueError(f"Must provide valid mode for gumbel got: {mode}")
    return _gumbel(key, shape, dtype, mode)


def _safe_int_to_float(bits):
    """A u32[2, ...] as a 64-bit fixed-point fraction, converted to f32 in (0, 1) with the
    leading zeros of both words feeding the exponent."""
    finfo = dtypes.finfo(np.float32)
    hi, lo = bits[0], bits[1]
    hiclz, loclz = lax.clz(hi), lax.clz(lo)
    mantissa = lax.bitwise_or(lax.shift_left(hi, hiclz),
                              lax_numpy.where(hiclz == 32, lax.shift_left(lo, loclz),
                                              lax.shift_right_logical(lo, finfo.bits - hiclz)))
    mantissa = lax.shift_right_logical(mantissa, np.array(finfo.bits - finfo.nmant - 1, np.uint32))
    mantissa = lax.bitwise_and(mantissa, np.array((1 << finfo.nmant) - 1, np.uint32))
    exp = lax.shift_left(-finfo.minexp - lax_numpy.where(hiclz == 32, 32 + loclz, hiclz),
                         np.array(finfo.nmant, np.uint32))
    exp = lax.bitwise_and(exp, np.array((1 << (finfo.bits - 2)) - (1 << (finfo.nmant - 1)), np.uint32))
    return lax.bitcast_convert_type(lax.bitwise_or(exp, mantissa), np.float32)


@jit(static_argnums=(1, 2, 3))
def _gumbel(key, shape, dtype, mode):
    info = dtypes.finfo(dtype)
    if dtype == np.float32 and mode == "highest":
        bits = random_bits(key, info.bits, (2, *shape))
        neg = lax.bitwise_not(bits)
        lo_bits = neg[1]
        neg = neg + jshape.stack([lo_bits == np.uint32(0xFFFFFFFF), creation.ones_like(lo_bits)]).astype(np.uint32)
        flip = bits[0] < np.uint32(1 << (info.bits - 1))
        x = _safe_int_to_float(lax_numpy.where(flip, bits, neg))
        return lax_numpy.where(flip, -jufuncs.log(-jufuncs.log1p(-x)), -jufuncs.log(-jufuncs.log(x)))
    if mode in ("high", "highest"):
        high, low = _uniform(key, 0., 1., (2, *shape), dtype)
        x = lax_numpy.where(high >= 0.5, high, high + 2 ** -info.nmant * low + info.tiny)
        return -jufuncs.log(-jufuncs.log1p(-x))
    return -jufuncs.log(-jufuncs.log(_uniform(key, info.tiny, 1., shape, dtype)))


@honours_out_sharding
def lognormal(key, sigma=np.float32(1), shape=None, dtype=None, *, out_sharding=None):
    """exp(sigma * standard normal)."""
    key, _ = check_prng_key("lognormal", key)
    dtype = dtypes.check_and_canonicalize_user_dtype(float if dtype is None else dtype, "lognormal")
    if not dtypes.issubdtype(dtype, np.inexact):
        raise ValueError(f"dtype argument to `lognormal` must be a float or complex dtype, got {dtype}")
    shape = check_broadcast_shapes("lognormal", shape, sigma)
    check_safe_to_cast("lognormal", dtype, sigma)
    return _lognormal(key, sigma, shape, dtype)


@jit(static_argnums=(2, 3))
def _lognormal(key, sigma, shape, dtype):
    return lax.exp(normal(key, shape, dtype) * lax.convert_element_type(sigma, dtype))


@honours_out_sharding
def pareto(key, b, shape=None, dtype=None, *, out_sharding=None):
    """Pareto samples of shape `b` (x >= 1): exp(Exp(1) / b)."""
    key, shape, dtype = check_float_sampler("pareto", key, shape, dtype, b)
    return _pareto(key, b, shape, dtype)


@jit(static_argnums=(2, 3))
def _pareto(key, b, shape, dtype):
    return lax.exp(exponential(key, shape, dtype) / lax.convert_element_type(b, dtype))


@honours_out_sharding
def rayleigh(key, scale, shape=None, dtype=None, *, out_sharding=None):
    """Rayleigh samples: scale * sqrt(-2 log u)."""
    key, shape, dtype = check_float_sampler("rayleigh", key, shape, dtype, scale)
    return _rayleigh(key, scale, shape, dtype)


@jit(static_argnums=(2, 3))
def _rayleigh(key, scale, shape, dtype):
    u = uniform(key, shape, dtype)
    scale = broadcast_to(creation.asarray(scale).astype(dtype), shape)
    return lax.mul(scale, lax.sqrt(lax.mul(lax.log(u), _const(scale, -2))))


@honours_out_sharding
def wald(key, mean, shape=None, dtype=None, *, out_sharding=None):
    """Inverse Gaussian (Wald) samples of mean `mean` and shape 1 (Michael et al.'s method)."""
    key, shape, dtype = check_float_sampler("wald", key, shape, dtype, mean)
    return _wald(key, mean, shape, dtype)


@jit(static_argnums=(2, 3))
def _wald(key, mean, shape, dtype):
    k1, k2 = split_key(key, 2)
    mean = broadcast_to(creation.asarray(mean).astype(dtype), shape)
    v, z = normal(k1, shape, dtype), uniform(k2, shape, dtype)
    y = lax.integer_pow(v, 2)
    y_sq, mean_sq = lax.integer_pow(y, 2), lax.integer_pow(mean, 2)
    sqrt_term = lax.sqrt(4 * mean * y + mean_sq * y_sq)
    x = mean + mean_sq * y / 2 - mean / 2 * sqrt_term
    return lax.select(lax.le(z, mean / (mean + x)), x, mean_sq / x)


def weibull_min(key, scale, concentration, shape=(), dtype=None):
    """Weibull samples by inverting the CDF: scale * (-log(1 - u)) ** (1 / concentration)."""
    key, _ = check_prng_key("weibull_min", key)
    dtype = float_dtype("weibull_min", dtype)
    return _weibull_min(key, scale, concentration, canonical_shape(shape, "weibull_min"), dtype)


@jit(static_argnums=(3, 4))
def _weibull_min(key, scale, concentration, shape, dtype):
    u = uniform(key, shape, dtype, 0, 1)
    return jufuncs.power(-jufuncs.log1p(-u), 1.0 / concentration) * scale


def double_sided_maxwell(key, loc, scale, shape=(), dtype=None):
    """Maxwell samples with a random sign, scaled and shifted (the shape gains the parameters'
    broadcast shape, as in JAX)."""
    key, _ = check_prng_key("double_sided_maxwell", key)
    dtype = float_dtype("double_sided_maxwell", dtype)
    return _double_sided_maxwell(key, loc, scale, canonical_shape(shape, "double_sided_maxwell"), dtype)


@jit(static_argnums=(3, 4))
def _double_sided_maxwell(key, loc, scale, shape, dtype):
    params_shape = broadcast_shapes(np.shape(loc), np.shape(scale))
    shape = (shape or params_shape) + params_shape
    maxwell_key, sign_key = split_key(key)
    maxwell_rvs = maxwell(maxwell_key, shape, dtype)
    random_sign = rademacher(sign_key, shape, dtype)
    return random_sign * maxwell_rvs * scale + loc


@honours_out_sharding
def triangular(key, left, mode, right, shape=None, dtype=None, *, out_sharding=None):
    """Triangular samples on [left, right] with peak `mode`, by inverting the CDF."""
    key, shape, dtype = check_float_sampler("triangular", key, shape, dtype, left, mode, right)
    return _triangular(key, left, mode, right, shape, dtype)


@jit(static_argnums=(4, 5))
def _triangular(key, left, mode, right, shape, dtype):
    left, mode, right = (broadcast_to(lax.convert_element_type(v, dtype), shape) for v in (left, mode, right))
    fc = (mode - left) / (right - left)
    u = uniform(key, shape, dtype)
    out1 = left + lax.sqrt(u * (right - left) * (mode - left))
    out2 = right - lax.sqrt((1 - u) * (right - left) * (right - mode))
    return lax.select(u < fc, out1, out2)


# -- choosing among categories -----------------------------------------------------------------


@honours_out_sharding
def categorical(key, logits, axis=-1, shape=None, replace=True, mode=None, *, out_sharding=None):
    """Category indices drawn with probabilities softmax(logits) along `axis` (the Gumbel-max
    trick: argmax of logits plus Gumbel noise)."""
    key, _ = check_prng_key("categorical", key)
    check_arraylike("categorical", logits)
    logits = creation.asarray(logits)
    batch_shape = tuple(np.delete(logits.shape, axis))
    if shape is None:
        shape = batch_shape
    else:
        shape = canonical_shape(shape, "categorical")
        check_shape("categorical", shape, batch_shape)
    shape_prefix = shape[:len(shape) - len(batch_shape)]
    if not replace:
        return _categorical_without_replacement(key, logits, axis, shape, shape_prefix, batch_shape, mode)
    if axis >= 0:
        axis -= logits.ndim
    logits_shape = list(shape[len(shape) - len(batch_shape):])
    logits_shape.insert(axis % logits.ndim, logits.shape[axis])
    noise = gumbel(key, (*shape_prefix, *logits_shape), logits.dtype, mode=mode)
    return jred.argmax(noise + shape_ops.expand_dims(logits, tuple(range(len(shape_prefix)))), axis=axis)


def _categorical_without_replacement(key, logits, axis, shape, shape_prefix, batch_shape, mode):
    """The Gumbel top-k trick: the k = prod(shape_prefix) largest of logits + Gumbel noise are
    k draws without replacement, in order (JAX's algorithm and draws)."""
    logits = logits + gumbel(key, logits.shape, logits.dtype, mode=mode)
    k = math.prod(shape_prefix)
    if k > logits.shape[axis]:
        raise ValueError(f"Number of samples without replacement ({k}) cannot exceed number of "
                         f"categories ({logits.shape[axis]}).")
    _, indices = top_k(jshape.moveaxis(logits, axis, -1), k)
    # indices: batch_shape + (k,); the draws go first: (k,) + batch_shape, reshaped to `shape`
    indices = shape_ops.transpose(indices, (indices.ndim - 1, *range(indices.ndim - 1)))
    return shape_ops.reshape(indices, shape)


def _take(arr, idx, axis):
    return take(arr, idx, axis)


def choice(key, a, shape=(), replace=True, p=None, axis=0, mode=None):
    """Samples of `a` (or of `arange(a)` for an int), uniformly or with probabilities `p`."""
    key, _ = check_prng_key("choice", key)
    if not isinstance(shape, (tuple, list)):
        raise TypeError(f"shape argument of jax.random.choice must be a sequence, got {shape}")
    check_arraylike("choice", a)
    arr = creation.asarray(a)
    if arr.ndim == 0:
        n_inputs = operator.index(a)
    else:
        axis = canonicalize_axis(axis, arr.ndim)
        n_inputs = arr.shape[axis]
    shape = canonical_shape(shape, "choice")
    n_draws = math.prod(shape)
    if n_draws == 0:
        return creation.zeros(shape, dtype=arr.dtype)
    if n_inputs <= 0:
        raise ValueError("a must be greater than 0 unless no samples are taken")
    if not replace and n_draws > n_inputs:
        raise ValueError(f"Cannot take a larger sample (size {n_draws}) than population (size "
                         f"{n_inputs}) when 'replace=False'")
    if p is None:
        if not replace:  # the first n_draws of a permutation (JAX's draws)
            perm = permutation(key, n_inputs if arr.ndim == 0 else arr, axis)
            result = shape_ops.slice_in_dim(perm, 0, n_draws, 1, 0 if arr.ndim == 0 else axis)
            return result.reshape(shape if arr.ndim == 0 else
                                  arr.shape[:axis] + tuple(shape) + arr.shape[axis + 1:])
        ind = randint(key, shape, 0, n_inputs)
    else:
        check_arraylike("choice", p)
        p_arr, = promote_dtypes_inexact(p)
        if p_arr.shape != (n_inputs,):
            raise ValueError(f"p must be None or a 1D vector with the same size as a.shape[axis]. "
                             f"p has shape {p_arr.shape} and a.shape[axis] is {n_inputs}.")
        if not replace:  # Gumbel top-k on log p
            g = gumbel(key, (n_inputs,), dtype=p_arr.dtype, mode=mode) + jufuncs.log(p_arr)
            ind = lax.convert_element_type(top_k(g, n_draws)[1], dtypes.default_int_dtype())
        else:
            ind = _choice_with_p(key, p_arr, tuple(shape))
    result = ind if arr.ndim == 0 else _take(arr, ind, axis)
    return result.reshape(shape if arr.ndim == 0 else arr.shape[:axis] + tuple(shape) + arr.shape[axis + 1:])


def _choice_with_p(key, p, shape):
    """Inverse-CDF sampling: the index where a uniform in (0, total] falls in cumsum(p)."""
    p_cuml = jred.cumsum(p)
    r = p_cuml[-1] * (1 - uniform(key, shape, dtype=p_cuml.dtype))
    # jnp.searchsorted(p_cuml, r) (side 'left'), for a sorted cumsum: how many entries are < r
    below = p_cuml < shape_ops.expand_dims(r, (r.ndim,))
    return jred.sum(below, axis=-1, dtype=dtypes.default_int_dtype())


@honours_out_sharding
def permutation(key, x, axis=0, independent=False, *, out_sharding=None):
    """A random permutation of `arange(x)`, or of `x` along `axis` (with `independent=True`,
    each slice along `axis` shuffled on its own)."""
    key, _ = check_prng_key("permutation", key)
    check_arraylike("permutation", x)
    axis = canonicalize_axis(axis, np.ndim(x) or 1)
    if not np.ndim(x):
        if not dtypes.issubdtype(dtypes.dtype_of(x), np.integer):
            raise TypeError("x must be an integer or at least 1-dimensional")
        n = operator.index(core.concrete_or_error(x, "argument x of jax.random.permutation()"))
        return _shuffle(key, creation.arange(n), 0)
    x = creation.asarray(x)
    if independent or x.ndim == 1:
        return _shuffle(key, x, axis)
    return take(x, _shuffle(key, creation.arange(x.shape[axis]), 0), axis, unique_indices=True)


@functools.partial(jit, static_argnums=(2,))
def _shuffle(key, x, axis):
    """JAX's shuffle: sort along `axis` by fresh random 32-bit keys, as many rounds as make a
    collision of keys negligible (ceil(3 ln(size) / ln(2^32 - 1)))."""
    rounds = int(np.ceil(3 * np.log(max(1, x.size)) / np.log(np.iinfo(np.uint32).max)))
    for _ in range(rounds):
        key, subkey = split_key(key)
        _, x = sort_key_val(random_bits(subkey, 32, x.shape), x, axis)
    return x


# -- linear algebra ----------------------------------------------------------------------------


@honours_out_sharding
def orthogonal(key, n, shape=(), dtype=None, m=None, *, out_sharding=None):
    """Haar-random (n, m) matrices with orthonormal columns (n >= m) or rows (n < m): the QR
    factor of a Gaussian matrix, its column signs fixed by R's diagonal (Mezzadri's recipe)."""
    shape = canonical_shape(shape, "orthogonal")
    key, _ = check_prng_key("orthogonal", key)
    dtype = dtypes.check_and_canonicalize_user_dtype(float if dtype is None else dtype, "orthogonal")
    n = operator.index(n)
    m = n if m is None else operator.index(m)
    return _orthogonal(key, n, m, shape, dtype)


@functools.partial(jit, static_argnums=(1, 2, 3, 4))
def _orthogonal(key, n, m, shape, dtype):
    q, r = jnp_linalg.qr(normal(key, (*shape, max(n, m), min(n, m)), dtype))
    x = q * jshape.expand_dims(jufuncs.sign(jnp_linalg.diagonal(r)), -2)
    return jnp_linalg.matrix_transpose(x) if n < m else x


@honours_out_sharding
def multivariate_normal(key, mean, cov, shape=None, dtype=None, method="cholesky", *,
                        out_sharding=None):
    """Samples of N(mean, cov): mean + F z for unit normals z, F a factor of cov with F F^T = cov
    (`method`: 'cholesky', 'eigh' or 'svd'); shape defaults to the batch shape of mean and cov."""
    key, _ = check_prng_key("multivariate_normal", key)
    mean, cov = promote_dtypes_inexact(mean, cov)
    if method not in {"svd", "eigh", "cholesky"}:
        raise ValueError("method must be one of {'svd', 'eigh', 'cholesky'}")
    dtype = mean.dtype if dtype is None else dtypes.check_and_canonicalize_user_dtype(dtype, "multivariate_normal")
    if not dtypes.issubdtype(dtype, np.floating):
        raise ValueError(f"dtype argument to `multivariate_normal` must be a float dtype, got {dtype}")
    shape = None if shape is None else canonical_shape(shape, "multivariate_normal")
    return _multivariate_normal(key, mean, cov, shape, dtype, method)


@functools.partial(jit, static_argnums=(3, 4, 5))
def _multivariate_normal(key, mean, cov, shape, dtype, method):
    if mean.ndim < 1:
        raise ValueError(f"multivariate_normal requires mean.ndim >= 1, got mean.ndim == {mean.ndim}")
    if cov.ndim < 2:
        raise ValueError(f"multivariate_normal requires cov.ndim >= 2, got cov.ndim == {cov.ndim}")
    n = mean.shape[-1]
    if cov.shape[-2:] != (n, n):
        raise ValueError(f"multivariate_normal requires cov.shape == (..., n, n) for n={n}, "
                         f"but got cov.shape == {cov.shape}.")
    if shape is None:
        shape = broadcast_shapes(mean.shape[:-1], cov.shape[:-2])
    else:
        check_shape("normal", shape, mean.shape[:-1], cov.shape[:-2])
    if method == "svd":
        u, s, _ = jnp_linalg.svd(cov)
        factor = u * jufuncs.sqrt(s[..., None, :])
    elif method == "eigh":
        w, v = jnp_linalg.eigh(cov)
        factor = v * jufuncs.sqrt(w[..., None, :])
    else:
        factor = jnp_linalg.cholesky(cov)
    z = normal(key, shape + mean.shape[-1:], dtype)
    out = einsum("...ij,...j->...i", factor, z)
    # (mean's rank raised explicitly: JAX adds under rank_promotion='allow', so 'raise' passes)
    return mean.reshape((1,) * (out.ndim - mean.ndim) + mean.shape) + out

