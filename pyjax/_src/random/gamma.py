"""Rejection samplers: gamma (the `random_gamma` primitive, Marsaglia and Tsang's method, with
its implicit derivative `lax.random_gamma_grad`), the distributions JAX derives from gamma
(loggamma, beta, dirichlet, t, chisquare, f, generalized_normal, ball), and poisson, binomial
and multinomial.

As in `samplers.py`, every loop, split and sub-sampler is JAX 0.10.2's, so the accepted
candidates, and hence the samples, are JAX's.
"""
from __future__ import annotations

import math
import operator
from functools import partial

import numpy as np

from pyjax._src import core, dtypes
from pyjax._src.api_vmap import vmap
from pyjax._src.interpreters import batching
from pyjax._src.interpreters.ad import Zero, tangent_aval
from pyjax._src.lax import elementwise as lax
from pyjax._src.lax import shape_ops
from pyjax._src.lax.control_flow import cumulative
from pyjax._src.lax.control_flow.scan import map as lax_map
from pyjax._src.lax.control_flow.scan import scan
from pyjax._src.lax.control_flow.while_loop import while_loop
from pyjax._src.lax.special import random_gamma_grad
from pyjax._src.lax.utils import standard_primitive
from pyjax._src.numpy import creation, lax_numpy
from pyjax._src.numpy import reductions as jred
from pyjax._src.numpy import shape as jshape
from pyjax._src.numpy import ufuncs as jufuncs
from pyjax._src.numpy.util import broadcast_shapes, broadcast_to, check_arraylike, promote_dtypes_inexact
from pyjax._src.random import prng
from pyjax._src.random.prng import library_jit as jit
from pyjax._src.random.keys import (
    PRNGKeyArray, canonical_shape, check_prng_key, honours_out_sharding, split, split_key)
from pyjax._src.random.samplers import (
    _const, check_broadcast_shapes, check_float_sampler, check_safe_to_cast, check_shape,
    exponential, float_dtype, normal, rademacher, uniform)

# -- random_gamma_p: Gamma(a, 1) samples, one key (data) per leading index of `a` -------------

random_gamma_p = standard_primitive("random_gamma")


def random_gamma(key_data, a, *, log_space, impl):
    """Gamma(a, 1) samples (their logs if `log_space`) of the shape of `a`; `key_data` holds one
    key of `impl` per leading index of `a` (its trailing dims are the key's)."""
    return random_gamma_p.bind(key_data, a, log_space=bool(log_space), impl=impl)


@random_gamma_p.def_abstract_eval
def _random_gamma_abstract_eval(key, a, *, log_space, impl):
    keys_shape = key.shape[:key.ndim - len(impl.key_shape)]
    if key.dtype != np.uint32 or a.shape[:len(keys_shape)] != keys_shape:
        raise TypeError(f"random_gamma: the keys {key.str_short()} (of {impl.name}) must match the "
                        f"leading dims of the shape parameter {a.str_short()}")
    return a.update(weak_type=False)


def _gamma_one(key, alpha, log_space):
    """One sample (Marsaglia and Tsang 2000): with d = a - 1/3 and c = 1/sqrt(9d), draw normal x
    until v = (1 + c x)^3 > 0 and accept d v when the squeeze (or, failing it, the log test)
    passes. a < 1 samples a + 1 and multiplies by u^(1/a) (adds log(u) / a in log space)."""
    zero, one, minus_one = _const(alpha, 0), _const(alpha, 1), _const(alpha, -1)
    one_over_two, one_over_three = _const(alpha, 0.5), _const(alpha, 1. / 3.)
    squeeze_const = _const(alpha, 0.0331)
    dtype = alpha.dtype
    boost_mask = lax.ge(alpha, one)
    alpha_orig = alpha
    alpha = lax.select(boost_mask, alpha, lax.add(alpha, one))
    d = lax.sub(alpha, one_over_three)
    c = lax.div(one_over_three, lax.sqrt(d))

    def reject(kXVU):  # the loop continues while the candidate is rejected
        _, X, V, U = kXVU
        return lax.bitwise_and(
            lax.ge(U, lax.sub(one, lax.mul(squeeze_const, lax.mul(X, X)))),
            lax.ge(lax.log(U), lax.add(lax.mul(X, one_over_two),
                                       lax.mul(d, lax.add(lax.sub(one, V), lax.log(V))))))

    def next_xv(kxv):
        key, subkey = split_key(kxv[0])
        x = normal(subkey, (), dtype=dtype)
        return key, x, lax.add(one, lax.mul(x, c))

    def candidate(kXVU):
        key, x_key, u_key = split_key(kXVU[0], 3)
        _, x, v = while_loop(lambda kxv: lax.le(kxv[2], zero), next_xv, (x_key, zero, minus_one))
        U = uniform(u_key, (), dtype=dtype)
        return key, lax.mul(x, x), lax.mul(lax.mul(v, v), v), U

    key, subkey = split_key(key)
    _, _, V, _ = while_loop(reject, candidate, (key, zero, one, _const(alpha, 2)))
    if log_space:
        log_samples = lax.neg(exponential(subkey, (), dtype=dtype))
        log_boost = lax.select(boost_mask | (log_samples == 0), zero,
                               lax.mul(log_samples, lax.div(one, alpha_orig)))
        return lax.add(lax.add(lax.log(d), lax.log(V)), log_boost)
    samples = 1 - uniform(subkey, (), dtype=dtype)
    boost = lax.select(boost_mask, one, lax.pow(samples, lax.div(one, alpha_orig)))
    return lax.mul(lax.mul(d, V), boost)


def _gamma_impl(key_data, a, *, log_space, impl, use_vmap=True):
    """Each key is split into one key per element of its slice of `a`; the elements are
    sampled independently (vmapped for threefry, as JAX lowers it; mapped otherwise)."""
    keys = PRNGKeyArray(impl, key_data)
    split_count = math.prod(a.shape[keys.ndim:])
    keys = vmap(lambda k: split_key(k, split_count))(keys.flatten()).flatten()
    alphas = shape_ops.reshape(a, (math.prod(a.shape),))
    one = partial(_gamma_one, log_space=log_space)
    if use_vmap and impl is prng.threefry_prng_impl:
        samples = vmap(one)(keys, alphas)
    else:
        samples = lax_map(lambda args: one(*args), (keys, alphas))
    return shape_ops.reshape(samples, a.shape)


@random_gamma_p.def_jvp
def _random_gamma_jvp(primals, tangents, *, log_space, impl):
    key, a = primals
    ans = random_gamma(key, a, log_space=log_space, impl=impl)
    if type(tangents[1]) is Zero:
        return ans, Zero(tangent_aval(core.get_aval(ans)))
    return ans, tangents[1] * _gamma_grad(ans, a, log_space)


@random_gamma_p.def_batch
def _random_gamma_batch(axis_size, args, dims, *, log_space, impl):
    key, a = (batching.bdim_at_front(x, d, axis_size) for x, d in zip(args, dims, strict=True))
    return random_gamma(key, a, log_space=log_space, impl=impl), 0


@random_gamma_p.def_lowering
def _random_gamma_lowering(ctx, key, a, *, log_space, impl):
    return ctx.lower_fun(partial(_gamma_impl, log_space=log_space, impl=impl))(key, a)


def _gamma_grad(sample, a, log_space):
    """d sample / d a (lax.random_gamma_grad: the sample moves with `a` along its quantile)."""
    samples = shape_ops.reshape(sample, (math.prod(np.shape(sample)),))
    alphas = shape_ops.reshape(a, (math.prod(np.shape(a)),))
    if log_space:  # d log(x) = dx / x, with x = exp(log x) kept off zero
        samples = lax.exp(samples)
        tiny = creation.full_like(samples, dtypes.finfo(samples.dtype).tiny)
        samples = lax.select(lax.eq(samples, _const(samples, 0)), tiny, samples)
        grads = random_gamma_grad(alphas, samples) / samples
    else:
        grads = random_gamma_grad(alphas, samples)
    return shape_ops.reshape(grads, np.shape(a))


# -- gamma and its relatives ---------------------------------------------------------------


@honours_out_sharding
def gamma(key, a, shape=None, dtype=None, *, out_sharding=None):
    """Gamma(a, 1) samples; differentiable in `a` (implicit reparameterization).

    >>> from pyjax import random
    >>> random.gamma(random.key(0), 2.0, (2,))
    Array([1.5897877, 1.7599413], dtype=float32)
    """
    key, _ = check_prng_key("gamma", key)
    dtype = float_dtype("gamma", dtype)
    if shape is not None:
        shape = canonical_shape(shape, "gamma")
    return _gamma(key, a, shape, dtype, False)


@honours_out_sharding
def loggamma(key, a, shape=None, dtype=None, *, out_sharding=None):
    """log of Gamma(a, 1) samples, computed in log space (accurate for small `a`)."""
    key, _ = check_prng_key("loggamma", key)
    dtype = float_dtype("gamma", dtype)
    if shape is not None:
        shape = canonical_shape(shape, "loggamma")
    return _gamma(key, a, shape, dtype, True)


@jit(static_argnums=(2, 3, 4))
def _gamma(key, a, shape, dtype, log_space):
    if shape is None:
        shape = np.shape(a)
    else:
        check_shape("gamma", shape, np.shape(a))
    a = lax.convert_element_type(a, dtype)
    if np.shape(a) != shape:
        a = broadcast_to(a, shape)
    return random_gamma(key._base_array, a, log_space=log_space, impl=key._impl)


@honours_out_sharding
def beta(key, a, b, shape=None, dtype=None, *, out_sharding=None):
    """Beta(a, b) samples, as a ratio of gamma samples computed in log space."""
    key, _ = check_prng_key("beta", key)
    dtype = float_dtype("beta", dtype)
    check_safe_to_cast("beta", dtype, a, b)
    shape = check_broadcast_shapes("beta", shape, a, b)
    return _beta(key, a, b, shape, dtype)


@jit(static_argnums=(3, 4))
def _beta(key, a, b, shape, dtype):
    a, b = lax.convert_element_type(a, dtype), lax.convert_element_type(b, dtype)
    key_a, key_b = split_key(key)
    a, b = broadcast_to(a, shape), broadcast_to(b, shape)
    log_gamma_a = loggamma(key_a, a, shape, dtype)
    log_gamma_b = loggamma(key_b, b, shape, dtype)
    log_max = lax.max(log_gamma_a, log_gamma_b)  # ga / (ga + gb) without overflow
    gamma_a_scaled = jufuncs.exp(log_gamma_a - log_max)
    gamma_b_scaled = jufuncs.exp(log_gamma_b - log_max)
    return gamma_a_scaled / (gamma_a_scaled + gamma_b_scaled)


@honours_out_sharding
def dirichlet(key, alpha, shape=None, dtype=None, *, out_sharding=None):
    """Dirichlet(alpha) samples: normalized gamma samples (a softmax of log-gamma samples)."""
    key, _ = check_prng_key("dirichlet", key)
    dtype = float_dtype("dirichlet", dtype)
    if shape is not None:
        shape = canonical_shape(shape, "dirichlet")
    return _dirichlet(key, alpha, shape, dtype)


def _softmax_last(x):
    """`nn.softmax(x, -1)`'s value, as JAX computes it (nn sits above random in pyjax)."""
    x_max = jred.max(x, -1, keepdims=True)
    unnormalized = jufuncs.exp(x - shape_ops.stop_gradient(x_max))
    return unnormalized / jred.sum(unnormalized, -1, keepdims=True)


@jit(static_argnums=(2, 3))
def _dirichlet(key, alpha, shape, dtype):
    if not np.ndim(alpha) >= 1:
        raise ValueError(f"dirichlet requires alpha.ndim >= 1, got alpha.ndim == {np.ndim(alpha)}")
    if shape is None:
        shape = np.shape(alpha)[:-1]
    else:
        check_shape("dirichlet", shape, np.shape(alpha)[:-1])
    alpha = lax.convert_element_type(alpha, dtype)
    return _softmax_last(loggamma(key, alpha, shape + np.shape(alpha)[-1:], dtype))


@honours_out_sharding
def t(key, df, shape=None, dtype=None, *, out_sharding=None):
    """Student's t samples with `df` degrees of freedom: n * sqrt(df / (2 g)), g ~ Gamma(df/2)."""
    key, shape, dtype = check_float_sampler("t", key, shape, dtype, df)
    return _t(key, df, shape, dtype)


@jit(static_argnums=(2, 3))
def _t(key, df, shape, dtype):
    df = lax.convert_element_type(df, dtype)
    key_n, key_g = split_key(key)
    n = normal(key_n, shape, dtype)
    half_df = lax.div(df, _const(n, 2))
    g = gamma(key_g, half_df, shape, dtype)
    return n * jufuncs.sqrt(half_df / g)


@honours_out_sharding
def chisquare(key, df, shape=None, dtype=None, *, out_sharding=None):
    """Chi-square samples: twice Gamma(df / 2) (sampled in log space)."""
    key, shape, dtype = check_float_sampler("chisquare", key, shape, dtype, df)
    return _chisquare(key, df, shape, dtype)


@jit(static_argnums=(2, 3))
def _chisquare(key, df, shape, dtype):
    df = lax.convert_element_type(df, dtype)
    two = _const(df, 2)
    log_g = loggamma(key, lax.div(df, two), shape, dtype)
    return lax.mul(jufuncs.exp(log_g), two)


@honours_out_sharding
def f(key, dfnum, dfden, shape=None, dtype=None, *, out_sharding=None):
    """F-distribution samples: (chi2(dfnum) / dfnum) / (chi2(dfden) / dfden)."""
    key, shape, dtype = check_float_sampler("f", key, shape, dtype, dfnum, dfden)
    return _f(key, dfnum, dfden, shape, dtype)


@jit(static_argnums=(3, 4))
def _f(key, dfnum, dfden, shape, dtype):
    dfden, dfnum = lax.convert_element_type(dfden, dtype), lax.convert_element_type(dfnum, dtype)
    key_dfd, key_dfn = split_key(key)
    num = lax.div(chisquare(key_dfn, dfnum, shape, dtype), dfnum)
    den = lax.div(chisquare(key_dfd, dfden, shape, dtype), dfden)
    return lax.div(num, den)


@honours_out_sharding
def generalized_normal(key, p, shape=(), dtype=None, *, out_sharding=None):
    """Samples of the density proportional to exp(-|x|^p): a signed Gamma(1/p) ** (1/p)."""
    shape = canonical_shape(shape, "generalized_normal")
    key, _ = check_prng_key("generalized_normal", key)
    dtype = dtypes.check_and_canonicalize_user_dtype(float if dtype is None else dtype, "generalized_normal")
    return _generalized_normal(key, p, shape, dtype)


@jit(static_argnums=(2, 3))
def _generalized_normal(key, p, shape, dtype):
    keys = split(key)
    g = gamma(keys[0], 1 / p, shape, dtype)
    r = rademacher(keys[1], shape, dtype)
    return r * g ** (1 / p)


@honours_out_sharding
def ball(key, d, p=2, shape=(), dtype=None, *, out_sharding=None):
    """Uniform samples from the unit p-norm ball in `d` dimensions."""
    shape = canonical_shape(shape, "ball")
    key, _ = check_prng_key("ball", key)
    dtype = dtypes.check_and_canonicalize_user_dtype(float if dtype is None else dtype, "ball")
    return _ball(key, p, operator.index(d), shape, dtype)


@jit(static_argnums=(2, 3, 4))
def _ball(key, p, d, shape, dtype):
    k1, k2 = split(key)
    g = generalized_normal(k1, p, (*shape, d), dtype)
    e = exponential(k2, shape, dtype)
    return g / (((jufuncs.abs(g) ** p).sum(-1) + e) ** (1 / p))[..., None]


# -- counts: poisson, binomial, multinomial ----------------------------------------------------


@honours_out_sharding
def poisson(key, lam, shape=None, dtype=None, *, out_sharding=None):
    """Poisson(lam) counts: Knuth's product of uniforms for lam < 10, Hormann's transformed
    rejection above (as TensorFlow and NumPy). The rate is float32 whatever x64 says, as JAX."""
    key, _ = check_prng_key("poisson", key)
    dtype = dtypes.check_and_canonicalize_user_dtype(int if dtype is None else dtype, "poisson")
    if key._impl is not prng.threefry_prng_impl:
        raise NotImplementedError(f"`poisson` is only implemented for the threefry2x32 RNG, not {key._impl}")
    shape = canonical_shape(shape, "poisson") if shape is not None else np.shape(lam)
    lam = lax.convert_element_type(broadcast_to(lam, shape), np.float32)
    return _poisson(key, lam, shape, dtype)


@jit(static_argnums=(2, 3, 4))
def _poisson_knuth(key, lam, shape, dtype, max_iters):
    def body(carry):
        i, k, rng, log_prod = carry
        rng, subkey = split_key(rng)
        k = lax.select(log_prod > -lam, k + 1, k)
        u = uniform(subkey, shape, np.float32)
        return i + 1, k, rng, log_prod + jufuncs.log(u)

    def cond(carry):
        i, log_prod = carry[0], carry[3]
        return (log_prod > -lam).any() & (i < max_iters)

    k_init = creation.full(shape, 0, dtype)
    log_rate_init = creation.full(shape, 0, np.float32)
    k = while_loop(cond, body, (0, k_init, key, log_rate_init))[1]
    return (k - 1).astype(dtype)


@jit(static_argnums=(2, 3, 4))
def _poisson_rejection(key, lam, shape, dtype, max_iters):
    log_lam = lax.log(lam)
    b = 0.931 + 2.53 * lax.sqrt(lam)
    a = -0.059 + 0.02483 * b
    inv_alpha = 1.1239 + 1.1328 / (b - 3.4)
    v_r = 0.9277 - 3.6224 / (b - 2)

    def body(carry):
        i, k_out, accepted, key = carry
        key, subkey_0, subkey_1 = split_key(key, 3)
        u = uniform(subkey_0, shape, lam.dtype) - 0.5
        v = uniform(subkey_1, shape, lam.dtype)
        u_shifted = 0.5 - abs(u)
        k = lax.floor((2 * a / u_shifted + b) * u + lam + 0.43)
        s = lax.log(v * inv_alpha / (a / (u_shifted * u_shifted) + b))
        t = -lam + k * log_lam - lax.lgamma(k + 1)
        accept1 = (u_shifted >= 0.07) & (v <= v_r)
        reject = (k < 0) | ((u_shifted < 0.013) & (v > u_shifted))
        accept = accept1 | (~reject & (s <= t))
        return i + 1, lax.select(accept, k, k_out), accepted | accept, key

    def cond(carry):
        i, _, accepted, _ = carry
        return (~accepted).any() & (i < max_iters)

    k_init = creation.full(shape, -1, lam.dtype)
    accepted = creation.full(shape, False, np.bool_)
    k = while_loop(cond, body, (0, k_init, accepted, key))[1]
    return k.astype(dtype)


@jit(static_argnums=(2, 3))
def _poisson(key, lam, shape, dtype):
    use_knuth = lax.ne(lam, lam) | (lam < 10)
    lam_knuth = lax.select(use_knuth, lam, creation.full_like(lam, 0.0))
    lam_rejection = lax.select(use_knuth, creation.full_like(lam, 1e5), lam)  # acceptance ~89%
    max_iters = dtype.type(dtypes.iinfo(dtype).max)  # no practical limit
    result = lax.select(use_knuth, _poisson_knuth(key, lam_knuth, shape, dtype, max_iters),
                        _poisson_rejection(key, lam_rejection, shape, dtype, max_iters))
    return lax.select(lam == 0, creation.zeros_like(result), result)


def binomial(key, n, p, shape=None, dtype=None):
    """Binomial(n, p) counts (as floats): inversion for n * min(p, 1-p) <= 10, else BTRS
    (Hormann's transformed rejection with squeeze)."""
    key, _ = check_prng_key("binomial", key)
    check_arraylike("binomial", n, p)
    dtype = float_dtype("binomial", dtype)
    if shape is not None:
        shape = canonical_shape(shape, "binomial")
    return _binomial(key, n, p, shape, dtype)


_STIRLING_TAIL = (0.0810614667953272, 0.0413406959554092, 0.0276779256849983, 0.02079067210376509,
                  0.0166446911898211, 0.0138761288230707, 0.0118967099458917, 0.0104112652619720,
                  0.00925546218271273, 0.00833056343336287)


def _stirling_approx_tail(k):
    """log(k!) minus Stirling's approximation: tabulated for k <= 9, a series above."""
    use_tail_values = k <= 9
    k = lax.clamp(_const(k, 0.0), k, _const(k, 9.0))
    kp1sq = (k + 1) * (k + 1)
    approx = (1.0 / 12 - (1.0 / 360 - 1.0 / 1260 / kp1sq) / kp1sq) / (k + 1)
    index = creation.asarray(jufuncs.floor(k), dtype="int32")
    # NB: JAX gathers from the table; a select over its entries picks the same values
    tail = lax.select_n(index, *(creation.full_like(k, v) for v in _STIRLING_TAIL))
    return lax.select(use_tail_values, tail, approx)


@jit(static_argnums=(3, 4, 5))
def _binomial_inversion(key, count, prob, shape, dtype, max_iters):
    log1minusprob = jufuncs.log1p(-prob)

    def body(carry):
        i, num_geom, geom_sum, key = carry
        subkey, key = split(key)
        num_geom_out = lax.select(geom_sum <= count, num_geom + 1, num_geom)
        u = uniform(subkey, shape, prob.dtype)
        geom = jufuncs.ceil(jufuncs.log(u) / log1minusprob)
        return i + 1, num_geom_out, geom_sum + geom, key

    def cond(carry):
        i, geom_sum = carry[0], carry[2]
        return (geom_sum <= count).any() & (i < max_iters)

    zeros = creation.full(shape, 0, prob.dtype)
    k = while_loop(cond, body, (0, zeros, zeros, key))[1]
    return (k - 1).astype(dtype)


@jit(static_argnums=(3, 4, 5))
def _btrs(key, count, prob, shape, dtype, max_iters):
    stddev = jufuncs.sqrt(count * prob * (1 - prob))
    b = 1.15 + 2.53 * stddev
    a = -0.0873 + 0.0248 * b + 0.01 * prob
    c = count * prob + 0.5
    v_r = 0.92 - 4.2 / b
    r = prob / (1 - prob)
    alpha = (2.83 + 5.1 / b) * stddev
    m = jufuncs.floor((count + 1) * prob)

    def body(carry):
        i, k_out, accepted, key = carry
        key, subkey_0, subkey_1 = split(key, 3)
        u = uniform(subkey_0, shape, prob.dtype)
        v = uniform(subkey_1, shape, prob.dtype)
        u = u - 0.5
        us = 0.5 - jufuncs.abs(u)
        accept1 = (us >= 0.07) & (v <= v_r)
        k = jufuncs.floor((2 * a / us + b) * u + c)
        reject = (k < 0) | (k > count)
        v = jufuncs.log(v * alpha / (a / (us * us) + b))
        ub = ((m + 0.5) * jufuncs.log((m + 1) / (r * (count - m + 1)))
              + (count + 1) * jufuncs.log((count - m + 1) / (count - k + 1))
              + (k + 0.5) * jufuncs.log(r * (count - k + 1) / (k + 1))
              + _stirling_approx_tail(m) + _stirling_approx_tail(count - m)
              - _stirling_approx_tail(k) - _stirling_approx_tail(count - k))
        accept = accept1 | (~reject & (v <= ub))
        return i + 1, lax.select(accept, k, k_out), accepted | accept, key

    def cond(carry):
        i, accepted = carry[0], carry[2]
        return (~accepted).any() & (i < max_iters)

    carry = (0, creation.full(shape, -1, prob.dtype), creation.full(shape, False, bool), key)
    return while_loop(cond, body, carry)[1].astype(dtype)


@jit(static_argnums=(3, 4))
def _binomial(key, count, prob, shape, dtype):
    if shape is None:
        shape = broadcast_shapes(np.shape(count), np.shape(prob))
    else:
        check_shape("binomial", shape, np.shape(count), np.shape(prob))
    prob, = promote_dtypes_inexact(prob)
    count = broadcast_to(lax.convert_element_type(count, prob.dtype), shape)
    prob = broadcast_to(prob, shape)
    p_lt_half = prob < 0.5
    q = lax.select(p_lt_half, prob, 1.0 - prob)  # sample the rarer outcome
    count_nan_or_neg = lax.ne(count, count) | (count < 0.0)
    count_inf = jufuncs.isinf(count)
    q_is_nan = lax.ne(q, q)
    q_l_0 = q < 0.0
    q = lax.select(q_is_nan | q_l_0, creation.full_like(q, 0.01), q)
    use_inversion = count_nan_or_neg | (count * q <= 10.0)
    count = jufuncs.floor(count)  # non-integer counts are floored
    count_inv = lax.select(use_inversion, count, creation.full_like(count, 0.0))
    count_btrs = lax.select(use_inversion, creation.full_like(count, 1e4), count)
    q_btrs = lax.select(use_inversion, creation.full_like(q, 0.5), q)
    max_iters = dtype.type(dtypes.finfo(dtype).max)
    samples = lax.select(use_inversion,
                         _binomial_inversion(key, count_inv, q, shape, dtype, max_iters),
                         _btrs(key, count_btrs, q_btrs, shape, dtype, max_iters))
    invalid = q_l_0 | q_is_nan | count_nan_or_neg
    samples = lax.select(invalid, creation.full_like(samples, np.nan, dtype), samples)
    samples = lax.select(count_inf & (~invalid), creation.full_like(samples, np.inf, dtype), samples)
    return lax.select(p_lt_half | count_nan_or_neg | q_is_nan | count_inf, samples,
                      count.astype(dtype) - samples)


def multinomial(key, n, p, *, shape=None, dtype=None, unroll=1):
    """Multinomial(n, p) counts along the last axis, as a chain of binomials over the
    categories (each conditional on what the earlier ones took)."""
    key, _ = check_prng_key("multinomial", key)
    check_arraylike("multinomial", n, p)
    n, p = promote_dtypes_inexact(n, p)
    if shape is None:
        shape = p.shape
    n = broadcast_to(n, shape[:-1])
    p = broadcast_to(p, shape)

    def step(remainder, ratio_key):
        ratio, key = ratio_key
        count = binomial(key, remainder, lax_numpy.clip(ratio, 0, 1), dtype=remainder.dtype)
        return remainder - count, count

    p = jshape.moveaxis(p, -1, 0)
    remaining_probs = cumulative.cumsum(p, 0, reverse=True)
    ratios = p / lax_numpy.where(remaining_probs == 0, 1, remaining_probs)
    keys = split(key, ratios.shape[0])
    _, counts = scan(step, n, (ratios, keys), unroll=unroll)
    return jshape.moveaxis(counts, 0, -1).astype(dtype)

