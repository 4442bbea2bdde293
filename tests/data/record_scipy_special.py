"""Record JAX 0.10.2's jax.scipy.special results on edge values (0, -0, +-inf, NaN, poles, huge
and tiny arguments), their gradients, dtypes and weak types, complex arguments, float64 (x64)
results and the exceptions of bad arguments.

Run with the reference JAX environment (never by the test suite):
    /root/scratch/jaxref/bin/python tests/data/record_scipy_special.py
It writes tests/data/scipy_special.json; tests/test_scipy_special.py executes the same PRELUDE
with `jax`/`jnp`/`sp` bound to pyjax's and evaluates the same expressions.
"""
import json
import pathlib
import sys

import jax
import jax.numpy as jnp
import jax.scipy.special as sp
import numpy as np

HERE = pathlib.Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
from recorded_cases import evaluate_cases  # noqa: E402

PRELUDE = '''
X = np.array([-np.inf, -1e10, -100., -10.5, -10., -3.5, -2., -1., -0.5, -1e-20, -0.0, 0., 1e-30,
              1e-20, 1e-6, 0.1, 0.5, 1., 1.5, 2., 3.7, 10., 30., 100., 1e10, np.inf, np.nan],
             np.float32)
# X without the tiny nonzero values: JAX's expn runs its continued fraction at every element,
# and it needs ~1/x steps there
XE = np.array([-np.inf, -1e10, -100., -10.5, -3.5, -1., -0.5, -0.0, 0., 1e-3, 0.1, 0.5, 1., 1.5,
               3.7, 10., 30., 100., 1e10, np.inf, np.nan], np.float32)
XS = np.array([0.05, 0.3, 0.7, 1.3, 2.2, 4.5, 9.0], np.float32)   # safe for derivatives
P = np.array([-0.1, 0., 1e-30, 1e-10, 1e-3, 0.1, 0.5, 0.9, 0.9999999, 1., 1.1, np.nan], np.float32)
A = np.array([-1.5, -1., -0.5, 0., 0.5, 1., 2.5, 10., 200., np.inf, np.nan], np.float32)[:, None]
B = np.array([-2., -1., 0., 0.5, 1., 3., 1e3, np.inf, np.nan], np.float32)[None, :]
N = np.arange(4, dtype=np.int32)[:, None]
Z = np.array([1 + 1j, -2.5 + 0.5j, 0.3 - 2j, -3 + 0j, 5 + 20j, 0j, -0.5 - 0.5j, 30 - 1j,
              np.nan + 0j], np.complex64)
I = np.arange(-2, 5, dtype=np.int32)
XB = XS.astype(jnp.bfloat16)

def x64(f, *args, **kw):
    with jax.enable_x64(True):
        return f(*(np.asarray(a, np.float64) for a in args), **kw)

def vgrad(f, argnums=0):
    return jax.vmap(jax.grad(f, argnums=argnums))
'''

UNARY = ["gammaln", "gamma", "gammasgn", "loggamma", "digamma", "erf", "erfc", "erfinv", "erfcx",
         "dawsn", "expit", "logit", "ndtr", "ndtri", "log_ndtr", "i0", "i0e", "i1", "i1e",
         "entr", "factorial", "spence"]
BINARY = ["xlogy", "xlog1py", "rel_entr", "kl_div", "betaln", "beta", "comb", "poch", "boxcox",
          "boxcox1p", "zeta", "gammainc", "gammaincc"]
SMOOTH = ["gammaln", "digamma", "erf", "erfc", "erfcx", "dawsn", "expit", "logit", "ndtr",
          "log_ndtr", "i0", "i0e", "i1", "i1e", "entr", "erfinv", "ndtri", "gamma", "spence"]

CASES = [
    *[f"sp.{f}(X)" for f in UNARY],
    *[f"sp.{f}(P)" for f in ("logit", "erfinv", "ndtri", "log_ndtr", "entr", "spence")],
    *[f"sp.{f}(A, B)" for f in BINARY],
    "sp.polygamma(N, X)", "sp.polygamma(1, XS)", "sp.polygamma(N, A.T)",
    "sp.multigammaln(XS + 2, 3)", "sp.multigammaln(A, 2)", "sp.multigammaln(4.0, 1)",
    "sp.log_ndtr(X, series_order=0)", "sp.log_ndtr(X, series_order=7)",
    "sp.comb(A, B, repetition=True)", "sp.factorial(I)", "sp.bernoulli(0)", "sp.bernoulli(1)",
    "sp.bernoulli(2)", "sp.bernoulli(7)", "sp.bernoulli(12)", "sp.bernoulli(30)",
    "sp.softmax(XS)", "sp.softmax(XS.reshape(7, 1), axis=0)", "sp.log_softmax(XS)",
    "sp.logsumexp(XS)", "sp.logsumexp(XS, b=-XS, return_sign=True)", "sp.expit(I)",
    "sp.betainc(A, B, 0.3)", "sp.betainc(A[4:8], B, P[:, None, None])", "sp.betainc(2.0, 3.0, P)",
    "vgrad(sp.gammainc, (0, 1))(XS + 1, XS[::-1])", "vgrad(sp.gammaincc, (0, 1))(XS + 1, XS[::-1])",
    "vgrad(lambda x: sp.betainc(2.5, 1.5, x))(XS / 10)", "vgrad(lambda a: sp.betainc(a, 1.5, 0.5))(XS)",
    "x64(sp.gammainc, A, B)", "x64(sp.betainc, A, B, 0.7)", "sp.gammainc(XB, XB)",
    "sp.betainc(Z, Z, Z)",
    # integrals and series
    "XE", "sp.expi(XE)", "sp.exp1(XE)", "sp.expn(3, XE)", "sp.expn(N, XS)", "sp.expn(N.astype(np.float32) + 0.5, XS)",
    "sp.expn(6000, XS)", "sp.sici(X)", "sp.fresnel(X)", "sp.fresnel(XB)", "x64(sp.fresnel, X)",
    "sp.hyp1f1(A, B, 0.5)", "sp.hyp1f1(1.5, 2.5, X)", "sp.hyp1f1(XS, XS[::-1], -XS * 20)",
    "vgrad(sp.hyp1f1, (0, 1, 2))(XS, XS + 1, XS / 3)", "x64(sp.hyp1f1, A, B, 2.0)", "sp.hyp1f1(Z, Z, Z)",
    "vgrad(lambda x: sp.fresnel(x)[0])(XS)", "vgrad(lambda x: sp.fresnel(x)[1])(XS)", "sp.fresnel(Z)", "sp.owens_t(A, B)", "sp.bessel_jn(XS, v=3)",
    "sp.bessel_jn(jnp.array([5.0, 10.0, 20.0]), v=2, n_iter=80)", "sp.bessel_jn(XS.reshape(7, 1), v=1)",
    "vgrad(sp.expi)(XS)", "vgrad(sp.exp1)(XS)", "vgrad(lambda x: sp.expn(2, x))(XS)",
    "vgrad(lambda x: sp.sici(x)[0])(XS)", "vgrad(lambda x: sp.sici(x)[1])(XS)",
    "vgrad(sp.owens_t, (0, 1))(XS, XS[::-1])", "x64(sp.expi, XE)", "x64(sp.sici, X)",
    "x64(sp.owens_t, A, B)", "sp.expi(Z)", "sp.sici(Z)", "sp.bessel_jn(Z, v=1)", "sp.expn(2, Z)",
    # complex arguments
    "sp.gamma(Z)", "sp.loggamma(Z)", "sp.wofz(Z)", "sp.erfcx(Z)", "sp.wofz(XS)",
    "sp.xlogy(Z, Z)",
    # gradients (custom JVPs and chains of the lax rules)
    *[f"vgrad(sp.{f})(XS)" for f in SMOOTH],
    "vgrad(sp.logit)(P[4:8])", "vgrad(sp.log_ndtr)(-X[2:9])", "vgrad(sp.log_ndtr)(X[2:9])",
    "vgrad(lambda x: sp.polygamma(2, x))(XS)", "vgrad(sp.xlogy, (0, 1))(XS, XS[::-1])",
    "vgrad(sp.xlog1py, (0, 1))(XS, XS[::-1])", "vgrad(sp.xlogy, (0, 1))(jnp.zeros(3), jnp.ones(3))",
    "vgrad(sp.rel_entr, (0, 1))(XS, XS[::-1])", "vgrad(sp.zeta)(XS + 1.5, XS)",
    "vgrad(sp.poch, (0, 1))(XS, XS[::-1])", "vgrad(sp.betaln, (0, 1))(XS, XS[::-1] * 5)",
    "vgrad(sp.entr)(jnp.zeros(2))", "vgrad(sp.i1e)(jnp.array([0.0, 1e-9, -1e-9]))",
    "vgrad(lambda x: sp.boxcox(x, 0.5))(XS)", "vgrad(lambda l: sp.boxcox1p(2.0, l))(XS - 1)",
    "jax.grad(lambda x: sp.gammaln(x).sum())(XS)", "vgrad(sp.digamma)(A.T[0, 4:7])",
    "jax.grad(jax.grad(sp.gammaln))(2.5)", "vgrad(vgrad(sp.erfcx))(XS)",
    "vgrad(lambda z: sp.wofz(z).real)(XS)", "vgrad(sp.gammasgn)(XS)",
    # dtypes: integers, Python scalars (weak), half precision
    *[f"sp.{f}(I)" for f in ("gammaln", "gamma", "digamma", "erf", "i0e", "entr", "ndtr",
                             "logit", "spence")],
    "sp.gammaln(2.5)", "sp.erf(1)", "sp.xlogy(2, 3.0)", "sp.zeta(2.0, 1.0)", "sp.i0(0.5)",
    *[f"sp.{f}(XB)" for f in ("gammaln", "digamma", "erf", "erfcx", "dawsn", "i0e", "i1e",
                              "expit", "entr", "gamma")],
    "sp.ndtr(XB)", "sp.log_ndtr(XB)", "sp.zeta(XB + 1, XB)", "sp.polygamma(1, XB)",
    # float64
    *[f"x64(sp.{f}, X)" for f in ("gammaln", "gamma", "digamma", "erfcx", "dawsn", "ndtr",
                                  "log_ndtr", "i0e", "i1e", "i0", "spence", "erf")],
    "x64(sp.ndtri, P)", "x64(sp.zeta, A + 1, B)", "x64(sp.betaln, A, B)", "x64(sp.polygamma, N, XS)",
    "x64(sp.wofz, XS)",
    # errors
    "sp.polygamma(1.0, XS)", "sp.polygamma(1, Z)", "sp.zeta(XS)", "sp.factorial(3, exact=True)",
    "sp.log_ndtr(X, series_order=-1)", "sp.log_ndtr(X, series_order=31)",
    "sp.log_ndtr(X, series_order=2.0)", "sp.ndtr(I)", "sp.ndtri(I)", "sp.ndtr(XB)",
    "sp.spence(Z)", "sp.entr(Z)", "sp.rel_entr(Z, Z)", "sp.beta(Z, Z)", "sp.gammasgn(Z)",
    "sp.dawsn(Z)", "sp.bernoulli(-1)", "sp.poch(Z, Z)", "sp.multigammaln(XS, 2.5)",
    "sp.softmax(XS, 0)",
]

if __name__ == "__main__":
    results = evaluate_cases(PRELUDE, CASES, {"jax": jax, "jnp": jnp, "np": np, "sp": sp})
    out = {"jax_version": jax.__version__, "prelude": PRELUDE, "cases": results}
    (HERE / "scipy_special.json").write_text(json.dumps(out, indent=0) + "\n")
    print(len(results), "cases;", sum("error" in r for r in results.values()), "raise")
