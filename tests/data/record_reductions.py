"""Record JAX 0.10.2's jax.numpy reductions where issue 23 found pyjax differing: float16/bfloat16
operands accumulated in float32 (sum, prod, mean, var, std, nanvar, average) and the jaxprs that
show it, var/std/nanvar's `dtype=` (complex included), `mean=` and `correction=`,
cumulative_sum/cumulative_prod's `include_initial=` and cumsum's `dtype=bool`, reducers on bool
operands, the wording of a bad `initial`, and jnp.cov under
jax_numpy_rank_promotion='raise'.

Run with the reference JAX environment (never by the test suite):
    /work/scratch/jaxref/bin/python tests/data/record_reductions.py
It writes tests/data/reductions.json; tests/test_reductions.py evaluates the same expressions
with `jax`/`jnp`/`lax` bound to pyjax's.
"""
import json
import pathlib
import sys

import jax
import jax.numpy as jnp
import numpy as np
from jax import lax

HERE = pathlib.Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
from recorded_cases import evaluate_cases  # noqa: E402

PRELUDE = '''
import ml_dtypes
BF = ml_dtypes.bfloat16
TINY16 = np.full(100_000, 1e-5, np.float16)
TINYBF = TINY16.astype(BF)
H = (np.arange(24, dtype=np.float32).reshape(2, 3, 4) / 7).astype(np.float16)
HB = H.astype(BF)
ALT16 = np.tile(np.array([1e-3, 2e-3], np.float16), 50_000)
F = (np.arange(12, dtype=np.float32).reshape(3, 4) / 3) ** 1.5
C = np.array([[1 + 2j, 3 - 1j, 0.5j], [2, -1j, 1 + 1j]], np.complex64)
B = np.array([[True, False, True], [False, False, True]])
I8 = np.array([[1, -2, 3], [4, 5, -6]], np.int8)
N = np.array([[1., np.nan, 3.], [np.nan, np.nan, 2.]], np.float16)
def strict(f):
    with jax.numpy_rank_promotion("raise"):
        return f()
def prims(f, *args):
    return [str(e.primitive) for e in jax.make_jaxpr(f)(*args).jaxpr.eqns]
'''

CASES = [
    # float16/bfloat16 accumulate in float32 (JAX's _upcast_f16) unless a dtype is asked for
    "jnp.mean(TINY16)", "jnp.mean(TINYBF)", "jnp.mean(TINY16, dtype=np.float16)", "jnp.mean(TINY16, dtype=np.float32)",
    "jnp.mean(H, axis=(0, 2), keepdims=True)", "jnp.mean(HB, axis=1, where=HB > 1)",
    "jnp.sum(TINY16)", "jnp.sum(TINYBF)", "jnp.sum(TINY16, dtype=np.float16)", "jnp.sum(H, axis=1)",
    "jnp.sum(H, where=H > 1, initial=2.0)", "jnp.sum(HB, axis=(0, 2), keepdims=True)",
    "jnp.prod(np.full(500, 1.001, np.float16))", "jnp.prod(np.full(500, 1.001, np.float16), dtype=np.float16)",
    "jnp.prod(HB + 1, axis=2)",
    "jnp.var(ALT16)", "jnp.std(ALT16)", "jnp.var(ALT16.astype(BF))", "jnp.var(H, axis=1)", "jnp.std(HB, axis=0, ddof=1)",
    "jnp.var(ALT16, dtype=np.float16)", "jnp.nanvar(ALT16)", "jnp.nanstd(N, axis=1)",
    "jnp.nanmean(TINY16)", "jnp.nansum(TINY16)", "jnp.nanmean(N, axis=0)",
    "jnp.average(TINY16)", "jnp.average(ALT16, weights=ALT16)", "jnp.average(H, axis=1, returned=True)",
    "prims(jnp.sum, H)", "prims(jnp.prod, HB)", "prims(lambda x: jnp.sum(x, dtype=np.float16), H)",
    "prims(jnp.mean, H)", "prims(jnp.mean, HB)", "prims(lambda x: jnp.mean(x, dtype=np.float16), H)",
    "prims(jnp.sum, F)", "prims(jnp.mean, F)",
    "jax.grad(lambda x: jnp.mean(x * x))(H)", "jax.grad(lambda x: jnp.sum(x) + jnp.var(x))(HB)",
    # var/std/nanvar dtype=: complex results stay complex
    "jnp.var(C)", "jnp.var(C, dtype=np.complex64)", "jnp.std(C, dtype=np.complex64)",
    "jnp.nanvar(C, dtype=np.complex64)", "jnp.nanstd(C, dtype=np.complex64)", "jnp.nanvar(C)",
    "jnp.var(F, dtype=np.complex64)", "jnp.nanvar(F, axis=0, dtype=np.complex64)", "jnp.var(C, dtype=np.float32)",
    "jnp.var(I8)", "jnp.var(I8, dtype=np.float16)", "jnp.std(F, dtype=np.int32)", "jnp.var(B)", "jnp.std(B, axis=0)",
    "jnp.nanvar(I8, axis=1)", "jnp.var(F, axis=1, dtype=np.float16)",
    # mean= and correction=
    "jnp.var(F, axis=1, mean=jnp.mean(F, axis=1, keepdims=True))", "jnp.std(F, mean=1.0)",
    "jnp.var(F, axis=0, ddof=1, mean=np.zeros((1, 4), np.float32))", "jnp.std(F, axis=1, keepdims=True, mean=F[:, :1])",
    "jnp.var(C, axis=1, mean=np.zeros((2, 1), np.complex64))", "jnp.var(H, mean=np.float16(1))",
    "jnp.var(F, correction=1)", "jnp.var(F, correction=1.5)", "jnp.std(F, axis=0, correction=2, keepdims=True)",
    "jnp.var(F, ddof=1, correction=1)", "jnp.var(F, ddof=0, correction=1)", "jnp.std(F, ddof=2, correction=2)",
    "jnp.var(F, ddof=1.5)", "jnp.var(F, axis=0, where=F > 1, mean=np.ones((1, 4), np.float32))",
    "jax.grad(lambda x: jnp.var(x, mean=jnp.float32(1)))(F)",
    # cumulative_sum/cumulative_prod include_initial=, cumsum dtype=bool
    "jnp.cumulative_sum(F, axis=1, include_initial=True)", "jnp.cumulative_prod(F, axis=0, include_initial=True)",
    "jnp.cumulative_sum(I8[0], include_initial=True)", "jnp.cumulative_prod(I8, axis=1, include_initial=True)",
    "jnp.cumulative_sum(B[0])", "jnp.cumulative_prod(B, axis=1)", "jnp.cumulative_sum(F)", "jnp.cumulative_sum(np.float32(1))",
    "jnp.cumulative_prod(np.float32(1), include_initial=True)", "jnp.cumulative_sum(I8, axis=1)",
    "jnp.cumulative_prod(I8, axis=1)", "jnp.cumulative_sum(np.zeros((2, 0)), axis=1, include_initial=True)",
    "jnp.cumulative_sum(np.array([[0.1], [0.1], [0.0]]), axis=-1, dtype=jnp.bool_)",
    "jnp.cumulative_sum(I8, axis=1, dtype=np.float32, include_initial=True)", "jnp.cumulative_sum(C, axis=-1, include_initial=True)",
    "jnp.cumsum(np.array([-1, 0, 1], np.float32), dtype=bool)", "jnp.cumsum(np.array([-1, 0, 1], np.int8), dtype=bool)",
    "jnp.cumsum(np.array([True, False, True]))", "jnp.cumsum(np.array([True, False, True]), dtype=np.int8)",
    "jnp.cumsum(np.array([True, False, True]), dtype=bool)", "jnp.cumprod(np.array([-1, 0, 1], np.int32), dtype=bool)",
    "jnp.cumprod(np.array([2, 0, 1], np.float32), dtype=bool)", "jnp.cumsum(I8, axis=1)", "jnp.cumsum(F, include_initial=True)",
    "jnp.nancumsum(N, axis=1)", "jnp.nancumprod(N, axis=0, dtype=np.float32)", "jnp.cumsum(H, axis=2)",
    "jax.grad(lambda x: jnp.cumulative_sum(x, axis=1, include_initial=True).sum())(F)",
    # reducers on bool operands
    "jnp.sum(B)", "jnp.sum(B, axis=0, promote_integers=False)", "jnp.sum(B, dtype=bool)", "jnp.prod(B, axis=1)",
    "jnp.prod(B, dtype=bool, axis=1)", "jnp.max(B, axis=1)", "jnp.min(B)", "jnp.mean(B)", "jnp.mean(B, axis=0, dtype=bool)",
    "jnp.ptp(B, axis=1)", "jnp.nansum(B)", "jnp.nanprod(B, axis=0)", "jnp.nanmax(B)", "jnp.nanmin(B, axis=0)",
    "jnp.nanmean(B)", "jnp.nanvar(B)", "jnp.nanstd(B, axis=1)", "jnp.average(B)", "jnp.average(B, weights=B)",
    "jnp.sum(B, initial=True)", "jnp.max(B, initial=False, axis=0)", "jnp.min(B, where=B, initial=True)",
    "jnp.all(I8)", "jnp.any(F, axis=0)", "jnp.all(C)", "jnp.count_nonzero(B, axis=1)", "jnp.median(B)",
    "jnp.sum(I8, dtype=bool)", "jnp.prod(I8, dtype=bool)", "jnp.sum(F, dtype=bool, axis=0)", "jnp.max(I8, axis=0, initial=2)",
    "jnp.sum(np.int8(3))", "jnp.argmax(B, axis=1)",
    # a bad initial, a bad where
    "jnp.sum(np.ones((2, 3, 4)), axis=-1, initial=np.zeros((1, 2, 3)))",
    "jnp.max(np.ones((2, 3, 4)), axis=-1, initial=np.zeros((1, 2, 3)))",
    "jnp.nansum(np.ones((2, 3, 4)), axis=-1, initial=np.zeros((1, 2, 3)))",
    "jnp.nanmin(np.ones((2, 3, 4)), axis=-1, initial=np.zeros((1, 2, 3)))",
    "jnp.prod(np.zeros(10), where=np.ones(10, int), initial=0.0)", "jnp.var(np.zeros(10), where=np.ones(10, int))",
    "jnp.nanmean(np.zeros(10), where=np.ones(10, int))", "jnp.max(np.zeros(10), where=np.ones(10, bool))",
    "jnp.max(np.zeros(0))", "jnp.sum(F, axis=(0, 0))",
    # cov's own arithmetic under jax_numpy_rank_promotion='raise'
    "strict(lambda: jnp.cov(F))", "strict(lambda: jnp.cov(F, fweights=np.array([1, 2, 1, 3])))",
    "strict(lambda: jnp.cov(F, aweights=np.array([.5, 1, 2, 1.]), ddof=2))",
    "strict(lambda: jnp.cov(F, rowvar=False, fweights=np.array([1, 2, 1]), aweights=np.array([.5, 1, 2.])))",
    "strict(lambda: jnp.corrcoef(F, F[:1]))", "jnp.nanstd(F, dtype=np.int32)",
]

if __name__ == "__main__":
    results = evaluate_cases(PRELUDE, CASES, {"jax": jax, "jnp": jnp, "np": np, "lax": lax})
    out = {"jax_version": jax.__version__, "prelude": PRELUDE, "cases": results}
    (HERE / "reductions.json").write_text(json.dumps(out, indent=0) + "\n")
    print(len(results), "cases;", sum("error" in r for r in results.values()), "raise")
