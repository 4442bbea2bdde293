"""Special-function lax primitives: polygamma and zeta (XLA's CHLO ops), digamma's derivative,
the exponentially scaled Bessel functions bessel_i0e (a Chebyshev series, lowered as lax ops, as
JAX does) and bessel_i1e (CHLO), and the regularized incomplete gamma and beta functions igamma,
igammac, igamma_grad_a and regularized_incomplete_beta (series and continued fractions lowered as
lax ops, as JAX does). lgamma and digamma themselves are in elementwise.py.

Each primitive's reference implementation is SciPy's, imported on first use (SciPy is a test
dependency, not a runtime one). Half-precision operands are computed in float32, as XLA's CHLO
expansions do.
"""
from __future__ import annotations

from functools import partial

import numpy as np

from pyjax._src import core, dtypes
from pyjax._src.interpreters.ad import defjvp
from pyjax._src.interpreters.batching import defbroadcasting
from pyjax._src.lax.control_flow.while_loop import while_loop
from pyjax._src.lax.elementwise import (
    _const, _full_like, _sps, abs, add, bitwise_and, bitwise_not, bitwise_or, convert_element_type,
    digamma, digamma_p, div, eq, exp, ge, gt, le, lgamma, log, log1p, lt, mul, ne, neg, rem, select,
    select_n, sign, sqrt, sub)
from pyjax._src.lax.reductions import reduce_or
from pyjax._src.lax.shape_ops import broadcast_in_dim
from pyjax._src.lax.utils import FLOAT, _naryop_abstract_eval, binop, standard_primitive, unop


def _unary(p):
    def f(x):
        return p.bind(x)
    f.__name__ = p.name
    return f


# -- derivatives of log gamma, and zeta ----------------------------------------------------------


def _polygamma_jvp_m(g, ans, m, x):
    # as JAX: the order is an integer in all but dtype, so there is no derivative along it
    raise ValueError("polygamma gradient with respect to m is not supported")


# lgamma_p and digamma_p live in elementwise.py (modules below this one use them); digamma's
# derivative is polygamma(1, x), attached here beside polygamma.
defjvp(digamma_p, lambda g, ans, x: mul(g, polygamma(_const(x, 1), x)))
# polygamma(m, x): the m-th derivative of digamma, m a non-negative integer held in a float
polygamma_p = binop("polygamma", lambda m, x: _sps().polygamma(m, x), "chlo.polygamma", FLOAT,
                    jvp=(_polygamma_jvp_m,
                         lambda g, ans, m, x: mul(g, polygamma(add(m, _const(m, 1)), x))))
# NB: no JVP, as in JAX's lax (jax.scipy.special.zeta differentiates a series instead).
zeta_p = binop("zeta", lambda s, q: _sps().zeta(s, q), "chlo.zeta", FLOAT)


def polygamma(m, x):
    """The m-th derivative of digamma at x (m a non-negative integer, of x's float dtype)."""
    return polygamma_p.bind(m, x)


def zeta(x, q):
    """The Hurwitz zeta function: sum over k >= 0 of (q + k) ** -x."""
    return zeta_p.bind(x, q)


# -- exponentially scaled modified Bessel functions ----------------------------------------------
# i0e(x) = exp(-|x|) i0(x), evaluated with Cephes' Chebyshev expansions: one in (x/2 - 2) for
# |x| <= 8, one in (32/|x| - 2) divided by sqrt(|x|) above.

_I0E_SMALL_F64 = np.array([
    -4.41534164647933937950E-18, 3.33079451882223809783E-17, -2.43127984654795469359E-16,
    1.71539128555513303061E-15, -1.16853328779934516808E-14, 7.67618549860493561688E-14,
    -4.85644678311192946090E-13, 2.95505266312963983461E-12, -1.72682629144155570723E-11,
    9.67580903537323691224E-11, -5.18979560163526290666E-10, 2.65982372468238665035E-9,
    -1.30002500998624804212E-8, 6.04699502254191894932E-8, -2.67079385394061173391E-7,
    1.11738753912010371815E-6, -4.41673835845875056359E-6, 1.64484480707288970893E-5,
    -5.75419501008210370398E-5, 1.88502885095841655729E-4, -5.76375574538582365885E-4,
    1.63947561694133579842E-3, -4.32430999505057594430E-3, 1.05464603945949983183E-2,
    -2.37374148058994688156E-2, 4.93052842396707084878E-2, -9.49010970480476444210E-2,
    1.71620901522208775349E-1, -3.04682672343198398683E-1, 6.76795274409476084995E-1])
_I0E_LARGE_F64 = np.array([
    -7.23318048787475395456E-18, -4.83050448594418207126E-18, 4.46562142029675999901E-17,
    3.46122286769746109310E-17, -2.82762398051658348494E-16, -3.42548561967721913462E-16,
    1.77256013305652638360E-15, 3.81168066935262242075E-15, -9.55484669882830764870E-15,
    -4.15056934728722208663E-14, 1.54008621752140982691E-14, 3.85277838274214270114E-13,
    7.18012445138366623367E-13, -1.79417853150680611778E-12, -1.32158118404477131188E-11,
    -3.14991652796324136454E-11, 1.18891471078464383424E-11, 4.94060238822496958910E-10,
    3.39623202570838634515E-9, 2.26666899049817806459E-8, 2.04891858946906374183E-7,
    2.89137052083475648297E-6, 6.88975834691682398426E-5, 3.36911647825569408990E-3,
    8.04490411014108831608E-1])
# float32 keeps the trailing terms of each series (the leading ones are below its precision)
_I0E_SMALL_F32 = _I0E_SMALL_F64[-18:]
_I0E_LARGE_F32 = _I0E_LARGE_F64[-7:]


def _chebyshev(x, coefficients):
    """Clenshaw's recurrence for sum_k c_k T_k(x/2) (Cephes' `chbevl`), unrolled."""
    b0, b1, b2 = _full_like(x, 0), _full_like(x, 0), _full_like(x, 0)
    for c in coefficients:
        b2, b1 = b1, b0
        b0 = add(sub(mul(x, b1), b2), _const(x, c))
    return mul(_const(x, 0.5), sub(b0, b2))


def _i0e_impl(x):
    dt = core.get_aval(x).dtype
    if dt not in (np.dtype(np.float32), np.dtype(np.float64)):
        return convert_element_type(_i0e_impl(convert_element_type(x, np.float32)), dt)
    small, large = ((_I0E_SMALL_F64, _I0E_LARGE_F64) if dt == np.float64
                    else (_I0E_SMALL_F32, _I0E_LARGE_F32))
    x = abs(x)
    near = _chebyshev(sub(mul(_const(x, 0.5), x), _const(x, 2)), small)
    far = div(_chebyshev(sub(div(_const(x, 32), x), _const(x, 2)), large), sqrt(x))
    return select_n(gt(x, _const(x, 8)), near, far)


def _i1e_jvp(g, ans, x):
    """d/dx i1e = i0e(x) - i1e(x) (sign(x) + 1/x), which tends to 1/2 at 0 (taken as 1/2 for
    |x| <= eps, where 1/x would overflow the cancellation)."""
    eps = float(dtypes.finfo(core.get_aval(x).dtype).eps)
    not_tiny = gt(abs(x), _const(x, eps))
    safe_x = select_n(not_tiny, _full_like(x, eps), x)
    d = sub(bessel_i0e(safe_x), mul(ans, add(sign(safe_x), div(_const(x, 1), safe_x))))
    return mul(g, select_n(not_tiny, _full_like(x, 0.5), d))


bessel_i0e_p = unop("bessel_i0e", lambda x: _sps().i0e(x), None, FLOAT,
                    lowering=lambda ctx, x: ctx.lower_fun(_i0e_impl)(x),
                    jvp=lambda g, ans, x: mul(g, sub(bessel_i1e(x), mul(sign(x), ans))))
bessel_i1e_p = unop("bessel_i1e", lambda x: _sps().i1e(x), "chlo.bessel_i1e", FLOAT, jvp=_i1e_jvp)

bessel_i0e = _unary(bessel_i0e_p)
bessel_i1e = _unary(bessel_i1e_p)


# -- regularized incomplete gamma and beta functions ---------------------------------------------
# Lowered as lax ops, as JAX does: Cephes' power series and continued fraction for igamma and
# igammac (the series also gives the derivative in a), and the Lentz-Thompson-Barnett evaluation
# of the continued fraction of the incomplete beta function (DLMF 8.17.22). f16/bf16 operands are
# computed in float32. Each loop runs until every element has converged, so the results are JAX's.

_VALUE, _DERIVATIVE = "value", "derivative"
_SAMPLE_DERIVATIVE = "sample derivative"  # d x / d a at x a Gamma(a) sample: random_gamma_grad


def _upcast_and_broadcast(impl):
    """`impl(*args, dtype=...)` on operands of one shape (rank-0 operands and size-1 dimensions
    broadcast), half precision computed in float32."""
    def rule(*args):
        shape = np.broadcast_shapes(*(core.get_aval(a).shape for a in args))
        args = [a if core.get_aval(a).shape == shape else
                broadcast_in_dim(a, shape, tuple(range(core.get_aval(a).ndim))) for a in args]
        dt = core.get_aval(args[0]).dtype
        if dt in (np.dtype(np.float16), np.dtype(dtypes.bfloat16)):
            out = impl(*(convert_element_type(a, np.float32) for a in args), dtype=np.dtype(np.float32))
            return convert_element_type(out, dt)
        return impl(*args, dtype=dt)
    return rule


def _any(pred):
    return reduce_or(pred, tuple(range(core.get_aval(pred).ndim)))


def _or(*preds):
    out = preds[0]
    for p in preds[1:]:
        out = bitwise_or(out, p)
    return out


def _isnan(x):
    return ne(x, x)


def _log_ax(a, x, dtype):
    """log(x^a e^-x / Gamma(a)), whether it underflows, and its exp."""
    log_ax = sub(sub(mul(a, log(x)), x), lgamma(a))
    underflow = lt(log_ax, _const(log_ax, -np.log(float(dtypes.finfo(dtype).max))))
    return underflow, exp(log_ax)


def _igamma_series(ax, x, a, enabled, dtype, mode):
    """P(a, x) = x^a e^-x / Gamma(a + 1) * sum_k x^k / ((a+1)...(a+k)), and its derivative in a
    (VALUE or DERIVATIVE), for the `enabled` elements."""
    eps = float(dtypes.finfo(dtype).eps)

    def body(vals):
        active, r, c, ans, x_, dc_da, dans_da = vals
        r = add(r, _const(r, 1))
        dc_da = sub(mul(dc_da, div(x_, r)), div(mul(c, x_), mul(r, r)))
        dans_da = add(dans_da, dc_da)
        c = mul(c, div(x_, r))
        ans = add(ans, c)
        if mode == _VALUE:
            going = bitwise_and(active, gt(div(c, ans), _const(c, eps)))
        else:
            going = bitwise_and(active, gt(abs(div(dc_da, dans_da)), _const(c, eps)))
        new = (r, c, ans, x_, dc_da, dans_da)
        return (going, *(select(active, n, o) for n, o in zip(new, vals[1:])))

    one, zero = _full_like(a, 1), _full_like(a, 0)
    vals = while_loop(lambda vals: _any(vals[0]), body, (enabled, a, one, one, x, zero, zero))
    ans, dans_da = vals[3], vals[6]
    if mode == _VALUE:
        return div(mul(ans, ax), a)
    dlogax_da = sub(log(x), digamma(add(a, _const(a, 1))))
    if mode == _SAMPLE_DERIVATIVE:
        return div(mul(neg(add(dans_da, mul(ans, dlogax_da))), x), a)
    return div(mul(ax, add(mul(ans, dlogax_da), dans_da)), a)


def _igammac_continued_fraction(ax, x, a, enabled, dtype, mode):
    """Q(a, x) = x^a e^-x / Gamma(a) * (1/(x + 1 - a -) 1(1-a)/(x + 3 - a -) ...), by its
    convergents p_k / q_k (rescaled when they grow), and its derivative in a; at most 2000 steps."""
    eps = float(dtypes.finfo(dtype).eps)

    def body(vals):
        (active, ans, t, y, z, c, pkm1, qkm1, pkm2, qkm2,
         dpkm2_da, dqkm2_da, dpkm1_da, dqkm1_da, dans_da) = vals
        c = add(c, _const(c, 1))
        y = add(y, _const(y, 1))
        z = add(z, _const(z, 2))
        yc = mul(y, c)
        pk = sub(mul(pkm1, z), mul(pkm2, yc))
        qk = sub(mul(qkm1, z), mul(qkm2, yc))
        qk_nonzero = ne(qk, _const(qk, 0))
        r = div(pk, qk)
        t = select(qk_nonzero, abs(div(sub(ans, r), r)), _full_like(r, 1))
        ans = select(qk_nonzero, r, ans)
        dpk_da = add(sub(sub(mul(dpkm1_da, z), pkm1), mul(dpkm2_da, yc)), mul(pkm2, c))
        dqk_da = add(sub(sub(mul(dqkm1_da, z), qkm1), mul(dqkm2_da, yc)), mul(qkm2, c))
        dans_da_new = select(qk_nonzero, div(sub(dpk_da, mul(ans, dqk_da)), qk), dans_da)
        grad_change = select(qk_nonzero, abs(sub(dans_da_new, dans_da)), _full_like(dans_da, 1))
        terms = [pk, qk, pkm1, qkm1, dpkm1_da, dqkm1_da, dpk_da, dqk_da]
        rescale = gt(abs(pk), _const(pk, 1 / eps))
        pkm1, qkm1, pkm2, qkm2, dpkm2_da, dqkm2_da, dpkm1_da, dqkm1_da = (
            select(rescale, mul(v, _const(v, eps)), v) for v in terms)
        if mode == _VALUE:
            going = bitwise_and(active, gt(t, _const(t, eps)))
        else:
            going = bitwise_and(active, gt(grad_change, _const(grad_change, eps)))
        new = (ans, t, y, z, None, pkm1, qkm1, pkm2, qkm2, dpkm2_da, dqkm2_da, dpkm1_da, dqkm1_da,
               dans_da_new)
        # the step count c advances for every element; the rest only where still active
        return (going, *(c if n is None else select(active, n, o) for n, o in zip(new, vals[1:])))

    y = sub(_const(a, 1), a)
    z = add(add(x, y), _const(x, 1))
    pkm1 = add(x, _const(x, 1))
    qkm1 = mul(z, x)
    ans = div(pkm1, qkm1)
    zero = _full_like(x, 0)
    dqkm1_da = neg(x)
    dans_da = div(sub(zero, mul(ans, dqkm1_da)), qkm1)
    init = (enabled, ans, _full_like(x, 1), y, z, _const(x, 0), pkm1, qkm1, _full_like(x, 1), x,
            zero, zero, zero, dqkm1_da, dans_da)
    vals = while_loop(lambda v: bitwise_and(lt(v[5], _const(v[5], 2000)), _any(v[0])), body, init)
    ans, dans_da = vals[1], vals[14]
    if mode == _VALUE:
        return mul(ans, ax)
    dlogax_da = sub(log(x), digamma(a))
    if mode == _SAMPLE_DERIVATIVE:
        return neg(mul(add(dans_da, mul(ans, dlogax_da)), x))
    return mul(ax, add(mul(ans, dlogax_da), dans_da))


def _igamma_impl(a, x, *, dtype):
    """P(a, x): the series below x = max(1, a), 1 - the continued fraction above."""
    zero, x_zero, x_inf = _const(x, 0), eq(x, _const(x, 0)), eq(x, _const(x, np.inf))
    domain_error = _or(lt(x, zero), lt(a, zero), bitwise_and(eq(a, zero), x_zero),
                       _or(_isnan(a), _isnan(x)))
    use_cf = bitwise_and(ge(x, _const(x, 1)), gt(x, a))
    underflow, ax = _log_ax(a, x, dtype)
    enabled = bitwise_not(_or(x_zero, domain_error, underflow, x_inf))
    out = select(use_cf,
                 sub(_const(a, 1), _igammac_continued_fraction(ax, x, a, bitwise_and(enabled, use_cf), dtype, _VALUE)),
                 _igamma_series(ax, x, a, bitwise_and(enabled, bitwise_not(use_cf)), dtype, _VALUE))
    out = select(x_zero, _full_like(out, 0), out)
    out = select(x_inf, _full_like(out, 1), out)
    return select(domain_error, _full_like(out, np.nan), out)


def _igammac_impl(a, x, *, dtype):
    """Q(a, x) = 1 - P(a, x): the continued fraction above x = max(1, a), 1 - the series below."""
    zero, x_zero, x_inf, a_zero = (_const(x, 0), eq(x, _const(x, 0)), eq(x, _const(x, np.inf)),
                                   eq(a, _const(a, 0)))
    domain_error = _or(lt(x, zero), lt(a, zero), bitwise_and(a_zero, x_zero), _or(_isnan(a), _isnan(x)))
    use_series = bitwise_or(lt(x, _const(x, 1)), lt(x, a))
    underflow, ax = _log_ax(a, x, dtype)
    enabled = bitwise_not(_or(domain_error, underflow, x_inf, a_zero))
    out = select(use_series,
                 sub(_const(a, 1), _igamma_series(ax, x, a, bitwise_and(enabled, use_series), dtype, _VALUE)),
                 _igammac_continued_fraction(ax, x, a, bitwise_and(enabled, bitwise_not(use_series)), dtype, _VALUE))
    out = select(bitwise_or(x_inf, a_zero), _full_like(out, 0), out)
    return select(domain_error, _full_like(out, np.nan), out)


def _igamma_grad_a_impl(a, x, *, dtype, mode=_DERIVATIVE):
    """d P(a, x) / da, from the derivatives of the series and of the continued fraction (with
    `mode=_SAMPLE_DERIVATIVE`: random_gamma_grad's d x / d a, from the same loops)."""
    x_zero, is_nan = eq(x, _const(x, 0)), _or(_isnan(a), _isnan(x))
    domain_error = bitwise_or(lt(x, _const(x, 0)), le(a, _const(a, 0)))
    use_cf = bitwise_and(gt(x, _const(x, 1)), gt(x, a))
    underflow, ax = _log_ax(a, x, dtype)
    enabled = bitwise_not(_or(x_zero, domain_error, underflow, is_nan))
    out = select(use_cf,
                 neg(_igammac_continued_fraction(ax, x, a, bitwise_and(enabled, use_cf), dtype, mode)),
                 _igamma_series(ax, x, a, bitwise_and(enabled, bitwise_not(use_cf)), dtype, mode))
    out = select(x_zero, _full_like(out, 0), out)
    return select(bitwise_or(domain_error, is_nan), _full_like(out, np.nan), out)


def _lentz(num_iterations, small, threshold, partial_numerator, partial_denominator, inputs):
    """The continued fraction b0 + a1/(b1 + a2/(b2 + ...)) by the modified Lentz method, until
    every element's step factor is within `threshold` of 1 (or `num_iterations`)."""
    def body(vals):
        it, _, c_prev, d_prev, h = vals
        num, den = partial_numerator(it, *inputs), partial_denominator(it, *inputs)
        small_ = _full_like(den, small)
        c = add(den, div(num, c_prev))
        c = select(lt(abs(c), small_), small_, c)
        d = add(den, mul(num, d_prev))
        d = select(lt(abs(d), small_), small_, d)
        d = div(_const(d, 1), d)
        delta = mul(c, d)
        return (add(it, _const(it, 1)), _any(ge(abs(sub(delta, _const(delta, 1))), _const(delta, threshold))),
                c, d, mul(h, delta))

    den0 = partial_denominator(np.int32(0), *inputs)
    h = select(lt(abs(den0), _full_like(den0, small)), _full_like(den0, small), den0)
    init = (np.int32(1), np.bool_(True), h, _full_like(h, 0), h)
    cond = lambda v: bitwise_and(lt(v[0], _const(v[0], num_iterations)), v[1])  # noqa: E731
    return while_loop(cond, body, init)[4]


def _betainc_impl(a, b, x, *, dtype):
    """I_x(a, b) from its continued fraction, on the side of (a+1)/(a+b+2) where it converges
    fast (I_x(a, b) = 1 - I_{1-x}(b, a) on the other)."""
    shape = core.get_aval(a).shape

    def numerator(it, a, b, x):
        it = broadcast_in_dim(it, shape, ())
        m_int = div(sub(it, _const(it, 1)), _const(it, 2))
        m = convert_element_type(m_int, dtype)
        two_m = mul(_const(a, 2), m)
        first = div(mul(neg(add(a, b)), x), add(a, _const(a, 1)))
        even = div(mul(mul(neg(add(a, m)), add(add(a, b), m)), x),
                   mul(add(a, two_m), add(add(a, two_m), _const(a, 1))))
        even = select(eq(m_int, _const(m_int, 0)), first, even)
        odd = div(mul(mul(m, sub(b, m)), x), mul(sub(add(a, two_m), _const(a, 1)), add(a, two_m)))
        num = select(eq(rem(it, _const(it, 2)), _const(it, 0)), even, odd)
        return select(eq(it, _const(it, 1)), _full_like(x, 1), num)

    def denominator(it, a, b, x):
        it = broadcast_in_dim(it, shape, ())
        return select(eq(it, _const(it, 0)), _full_like(x, 0), _full_like(x, 1))

    a_zero = bitwise_or(eq(a, _const(a, 0)), eq(b, _const(b, np.inf)))
    b_zero = bitwise_or(eq(b, _const(b, 0)), eq(a, _const(a, np.inf)))
    x_zero, x_one = eq(x, _const(x, 0)), eq(x, _const(x, 1))
    result_zero = bitwise_or(bitwise_and(b_zero, bitwise_not(x_one)), bitwise_and(a_zero, x_zero))
    result_one = bitwise_or(bitwise_and(a_zero, bitwise_not(x_zero)), bitwise_and(b_zero, x_one))
    result_nan = _or(lt(a, _const(a, 0)), lt(b, _const(b, 0)), lt(x, _const(x, 0)), gt(x, _const(x, 1)),
                     bitwise_and(a_zero, b_zero), _isnan(a), _isnan(b), _isnan(x))
    fast = lt(x, div(add(a, _const(a, 1)), add(add(a, b), _const(b, 2))))
    a, b = select(fast, a, b), select(fast, b, a)
    x = select(fast, x, sub(_const(x, 1), x))
    eps = float(dtypes.finfo(dtype).eps)
    fraction = _lentz(200 if dtype == np.float32 else 600, eps / 2, eps / 2, numerator, denominator,
                      (a, b, x))
    lbeta_small_a = sub(lgamma(b), lgamma(add(a, b)))
    lbeta = add(lgamma(a), lbeta_small_a)
    factor = select(lt(a, _const(a, 2 * float(dtypes.finfo(dtype).tiny))),
                    exp(sub(mul(log1p(neg(x)), b), lbeta_small_a)),
                    div(exp(sub(add(mul(log(x), a), mul(log1p(neg(x)), b)), lbeta)), a))
    out = mul(fraction, factor)
    out = select(fast, out, sub(_const(out, 1), out))
    out = select(result_zero, _full_like(out, 0), out)
    out = select(result_one, _full_like(out, 1), out)
    return select(result_nan, _full_like(out, np.nan), out)


def _composite_lowering(impl):
    return lambda ctx, *args: ctx.lower_fun(_upcast_and_broadcast(impl))(*args)


def _igamma_jvp_x(g, ans, a, x):
    """dP/dx = x^(a-1) e^-x / Gamma(a)."""
    return mul(g, exp(sub(add(neg(x), mul(sub(a, _const(a, 1)), log(x))), lgamma(a))))


def _betainc_jvp_ab(g, ans, a, b, x):
    raise ValueError("Betainc gradient with respect to a and b not supported.")


def _betainc_jvp_x(g, ans, a, b, x):
    """dI_x/dx = x^(a-1) (1-x)^(b-1) / B(a, b)."""
    lbeta = sub(add(lgamma(a), lgamma(b)), lgamma(add(a, b)))
    return mul(g, exp(sub(add(mul(sub(b, _const(b, 1)), log1p(neg(x))),
                              mul(sub(a, _const(a, 1)), log(x))), lbeta)))


def _np_igamma_grad_a(a, x):
    """A reference for d gammainc / da: a central difference of SciPy's gammainc in float64."""
    a, x = np.asarray(a, np.float64), np.asarray(x, np.float64)
    h = 1e-6 * np.maximum(np.abs(a), 1.0)
    return (_sps().gammainc(a + h, x) - _sps().gammainc(a - h, x)) / (2 * h)


# NB: no JVP, as in JAX (its derivative in a would need second derivatives of the series).
igamma_grad_a_p = binop("igamma_grad_a", _np_igamma_grad_a, None, FLOAT,
                        lowering=_composite_lowering(_igamma_grad_a_impl))
igamma_p = binop("igamma", lambda a, x: _sps().gammainc(a, x), None, FLOAT,
                 lowering=_composite_lowering(_igamma_impl),
                 jvp=(lambda g, ans, a, x: mul(g, igamma_grad_a(a, x)), _igamma_jvp_x))
igammac_p = binop("igammac", lambda a, x: _sps().gammaincc(a, x), None, FLOAT,
                  lowering=_composite_lowering(_igammac_impl),
                  jvp=(lambda g, ans, a, x: neg(mul(g, igamma_grad_a(a, x))),
                       lambda g, ans, a, x: neg(_igamma_jvp_x(g, ans, a, x))))
regularized_incomplete_beta_p = standard_primitive(
    "regularized_incomplete_beta", partial(_naryop_abstract_eval, "regularized_incomplete_beta", FLOAT, None),
    lambda a, b, x: _sps().betainc(a, b, x), _composite_lowering(_betainc_impl),
    jvp=(_betainc_jvp_ab, _betainc_jvp_ab, _betainc_jvp_x))
defbroadcasting(regularized_incomplete_beta_p)


def igamma(a, x):
    """The regularized lower incomplete gamma function P(a, x)."""
    return igamma_p.bind(a, x)


def igammac(a, x):
    """The regularized upper incomplete gamma function Q(a, x) = 1 - P(a, x)."""
    return igammac_p.bind(a, x)


def igamma_grad_a(a, x):
    """d P(a, x) / da."""
    return igamma_grad_a_p.bind(a, x)


def betainc(a, b, x):
    """The regularized incomplete beta function I_x(a, b)."""
    return regularized_incomplete_beta_p.bind(a, b, x)


def random_gamma_grad(a, x):
    """d x / d a for `x` a sample of Gamma(a, 1): -(dP/da) / (dP/dx) at x, P = igamma (the
    implicit derivative random.gamma differentiates with). A composite, as in JAX."""
    return _upcast_and_broadcast(partial(_igamma_grad_a_impl, mode=_SAMPLE_DERIVATIVE))(a, x)
