"""The op tables that drive the generic tests (STYLE rule 13), and their small helpers.

One row per operation: `op("sin", lax.sin, 1, INEXACT, rng=rand_default)` says what to call,
with how many arguments, over which dtypes, on which shapes and with which random inputs.

- `LAX_OPS`: one or more rows per lax primitive. The reference is the primitive's own NumPy
  implementation (`Primitive.np_impl`), reached by interpreting `make_jaxpr(fn)(*args)` with
  NumPy (`numpy_eval`), so a row needs no hand-written reference and static parameters come from
  the traced equation. `test_lax_ops.py` checks eager against it, jit against eager, the result
  dtype against the row's `out_dtype`, and `check_jaxpr` on every jaxpr.
- `JNP_OPS`: rows for the `pyjax.numpy` functions, each with its NumPy counterpart as the
  reference (computed in 64-bit precision, then cast to the dtype JAX returns).

A row's cases (`cases`) are every dtype on its first shape, then its other shapes on the first
dtype. Compiling an executable costs tens of milliseconds, so compiles are counted: lax rows run
their dtypes eagerly (one executable each) and their shapes in one jitted function; jnp rows run
one case eagerly and all of them in one jitted function (one executable per row, not one per
primitive and case). `@pytest.mark.slow` tests sweep the full product, eager and jit, with the
extra dtypes in `SLOW_EXTRA_DTYPES`.
"""
from __future__ import annotations

import dataclasses
import importlib
import itertools
import pkgutil
from typing import Any, Callable, Sequence

import ml_dtypes
import numpy as np

import pyjax
import pyjax.numpy as jnp
from pyjax import lax
from pyjax.ad_checkpoint import checkpoint_name
from pyjax._src import core

# -- dtypes ------------------------------------------------------------------------------------

bfloat16 = np.dtype(ml_dtypes.bfloat16)
BOOL = [np.dtype(np.bool_)]
SINT = [np.dtype(np.int8), np.dtype(np.int32)]
UINT = [np.dtype(np.uint8), np.dtype(np.uint32)]
INT = SINT + UINT
FLOAT = [np.dtype(np.float16), bfloat16, np.dtype(np.float32)]
COMPLEX = [np.dtype(np.complex64)]
INEXACT = FLOAT + COMPLEX
NUM = INT + INEXACT
ORDERED = BOOL + INT + FLOAT
ANY = BOOL + NUM
F32 = [np.dtype(np.float32)]
I32 = [np.dtype(np.int32)]
LOW_FLOAT = {np.dtype(np.float16), bfloat16}
# swept by the slow tests only, where a row accepts their kind
SLOW_EXTRA_DTYPES = [np.dtype(np.int16), np.dtype(np.uint16)]


def kind(dt) -> str:
    dt = np.dtype(dt)
    if dt == np.bool_:
        return "b"
    if dt == bfloat16:
        return "f"
    return {"i": "i", "u": "u", "f": "f", "c": "c"}[dt.kind]


def real_dtype(dt):
    return np.dtype(np.float32) if kind(dt) == "c" else np.dtype(dt)


def short(dt) -> str:
    return core.short_dtype_name(dt)


# -- shapes ------------------------------------------------------------------------------------

SCALAR, VECTOR, MATRIX, CUBE = (), (4,), (2, 3), (2, 1, 3)
SHAPES = (MATRIX, SCALAR, VECTOR, CUBE)

# -- random inputs: rng(rs, shape, dtype) -> np.ndarray of exactly that dtype ------------------


def _cast(x, dtype):
    return np.asarray(x).astype(dtype)


def rand_default(rs, shape, dtype):
    k = kind(dtype)
    if k == "b":
        return rs.rand(*shape) < 0.5
    if k == "i":
        return _cast(rs.randint(-9, 10, shape), dtype)
    if k == "u":
        return _cast(rs.randint(0, 10, shape), dtype)
    if k == "c":
        return _cast(2 * rs.randn(*shape) + 2j * rs.randn(*shape), dtype)
    return _cast(3 * rs.randn(*shape), dtype)


def rand_small(rs, shape, dtype):
    """Floats in (-1.2, 1.2) (tan, and functions growing fast)."""
    if kind(dtype) == "c":
        return _cast(rs.uniform(-1, 1, shape) + 1j * rs.uniform(-1, 1, shape), dtype)
    if kind(dtype) != "f":
        return rand_default(rs, shape, dtype)
    return _cast(rs.uniform(-1.2, 1.2, shape), dtype)


def rand_positive(rs, shape, dtype):
    k = kind(dtype)
    if k in "iu":
        return _cast(rs.randint(1, 10, shape), dtype)
    if k == "b":
        return np.ones(shape, bool)
    if k == "c":
        return _cast(rs.uniform(0.1, 4, shape) + 1j * rs.uniform(-2, 2, shape), dtype)
    return _cast(rs.uniform(0.1, 4, shape), dtype)


def rand_ge_one(rs, shape, dtype):
    """Values >= 1 (acosh)."""
    if kind(dtype) == "c":
        return rand_positive(rs, shape, dtype) + np.asarray(1, dtype)
    return _cast(rs.uniform(1, 5, shape), dtype)


def rand_nonzero(rs, shape, dtype):
    k = kind(dtype)
    if k == "b":
        return np.ones(shape, bool)
    if k == "u":
        return _cast(rs.randint(1, 10, shape), dtype)
    sign = np.where(rs.rand(*shape) < 0.5, -1, 1)
    if k == "i":
        return _cast(sign * rs.randint(1, 10, shape), dtype)
    if k == "c":
        return _cast(sign * rs.uniform(0.5, 4, shape) + 1j * rs.uniform(-2, 2, shape), dtype)
    return _cast(sign * rs.uniform(0.5, 4, shape), dtype)


def rand_unit(rs, shape, dtype):
    """Values in (-0.9, 0.9): inside the domain of asin, acos, atanh, erf_inv."""
    if kind(dtype) == "c":
        return _cast(rs.uniform(-0.6, 0.6, shape) + 1j * rs.uniform(-0.6, 0.6, shape), dtype)
    return _cast(rs.uniform(-0.9, 0.9, shape), dtype)


def rand_int(rs, shape, dtype):
    """Small integer values in any dtype (exact in every float type)."""
    k = kind(dtype)
    if k == "b":
        return rs.rand(*shape) < 0.5
    lo = 0 if k == "u" else -9
    return _cast(rs.randint(lo, 10, shape), dtype)


def rand_bool(rs, shape, dtype=np.bool_):
    return rs.rand(*shape) < 0.5


def rand_bits(rs, shape, dtype):
    """Integers over the dtype's whole range (bit-level ops)."""
    if kind(dtype) == "b":
        return rand_bool(rs, shape)
    info = np.iinfo(dtype)
    return _cast(rs.randint(info.min, info.max, shape, dtype=np.int64), dtype)


def rand_shift(rs, shape, dtype):
    """Shift amounts in [0, bits)."""
    return _cast(rs.randint(0, np.dtype(dtype).itemsize * 8, shape), dtype)


def rand_halves(rs, shape, dtype):
    """Multiples of 0.5 (rounding ties), plus some non-ties."""
    vals = rs.randint(-8, 9, shape) / 2 + np.where(rs.rand(*shape) < 0.25, 0.2, 0.0)
    return _cast(vals, dtype)


def rand_special(rs, shape, dtype):
    """Floats with NaN, +-inf, +-0 mixed into ordinary values."""
    x = rand_default(rs, shape, dtype)
    if kind(dtype) != "f" or not shape:
        return x
    flat = x.reshape(-1).copy()
    specials = np.array([np.nan, np.inf, -np.inf, 0.0, -0.0, 1.0], dtype)
    idx = rs.choice(flat.size, min(flat.size, 3), replace=False)
    flat[idx] = specials[rs.randint(0, len(specials), len(idx))]
    return flat.reshape(shape)


def rand_total_order(rs, shape, dtype):
    """Floats from a few values that total order separates (NaN, -NaN, -0, +0) and ties."""
    if kind(dtype) != "f":
        return rand_int(rs, shape, dtype)
    vals = np.array([np.nan, -np.nan, -0.0, 0.0, 1.0, -np.inf], dtype)
    return vals[rs.randint(0, len(vals), shape)]


def rand_fill(value):
    """A generator of constant arrays (`value`, or True/False for bools by its sign)."""
    def rng(rs, shape, dtype):
        return np.full(shape, value > 0) if kind(dtype) == "b" else _cast(np.full(shape, value), dtype)
    return rng


def rand_index(rs, shape, dtype):
    """In-range-ish and out-of-range indices (dynamic_slice clamps them)."""
    return _cast(rs.randint(-3, 6, shape), dtype)


# -- tolerances ---------------------------------------------------------------------------------

TOL = {np.dtype(np.float16): 1e-2, bfloat16: 2e-2, np.dtype(np.float32): 1e-5,
       np.dtype(np.complex64): 1e-5, np.dtype(np.float64): 1e-12, np.dtype(np.complex128): 1e-12}


def tolerance(dtype, tol=None):
    """The (rtol, atol) for results of `dtype`; `tol` is a per-row override dict or float."""
    dtype = np.dtype(dtype)
    if isinstance(tol, dict):
        t = tol.get(dtype, TOL.get(dtype, 0))
    elif tol is not None and dtype in TOL:
        t = builtin_max(tol, TOL[dtype])
    else:
        t = TOL.get(dtype, 0)
    return t, t


builtin_max = max


def assert_close(actual, expected, tol=None, err_msg=""):
    """Values equal (integers, bools) or close (floats), NaNs in the same places, same shape."""
    actual = np.asarray(actual)
    expected = np.asarray(expected)
    assert actual.shape == expected.shape, f"{err_msg}: shape {actual.shape} != {expected.shape}"
    dt = actual.dtype
    if kind(dt) in "biu":
        np.testing.assert_array_equal(actual, expected.astype(dt), err_msg=err_msg)
        return
    rtol, atol = tolerance(dt, tol)
    wide = np.complex128 if kind(dt) == "c" else np.float64
    np.testing.assert_allclose(actual.astype(wide), expected.astype(wide), rtol=rtol, atol=atol,
                               equal_nan=True, err_msg=err_msg)


# -- rows ---------------------------------------------------------------------------------------

@dataclasses.dataclass(frozen=True)
class Op:
    name: str                       # test id; for lax rows starts with the primitive's name
    fn: Callable                    # the pyjax function under test
    nargs: int
    dtypes: Sequence                # the dtypes swept (see `arg_dtypes`)
    rng: Any = rand_default         # one generator for all arguments, or a tuple (one per arg)
    shapes: Sequence = SHAPES       # entries: one shape for all args, or a list (one per arg)
    ref: Callable | None = None     # reference; None for lax rows: the primitives' np_impl
    out_dtype: Callable = None      # result dtype from the swept dtype (default: the same)
    arg_dtypes: Callable = None     # swept dtype -> per-argument dtypes (default: all the same)
    tol: Any = None                 # float or {dtype: tol}, loosening `TOL`
    prim: str | None = None         # the lax primitive the row covers (default: name's first word)
    jit: bool = True                # also compare jit against eager

    @property
    def primitive(self):
        return self.prim or self.name.split("[")[0]

    def __repr__(self):
        return self.name


def op(name, fn, nargs, dtypes, **kw) -> Op:
    return Op(name, fn, nargs, list(dtypes), **kw)


def arg_shapes(op_, entry):
    return list(entry) if isinstance(entry, list) else [entry] * op_.nargs


def arg_dtypes(op_, dtype):
    return list(op_.arg_dtypes(dtype)) if op_.arg_dtypes else [dtype] * op_.nargs


def expected_dtype(op_, dtype):
    return np.dtype(op_.out_dtype(dtype) if op_.out_dtype else dtype)


def cases(op_, full=False, eager=False):
    """(shape entry, dtype) pairs: every dtype on the first shape, then every other shape on the
    first dtype (`eager`: the dtypes only); `full` gives the whole product, plus the slow-only
    dtypes of the accepted kinds."""
    if full:  # rows made for one dtype (bitcasts) stay so
        kinds = {kind(d) for d in op_.dtypes} if len(op_.dtypes) > 1 else set()
        dts = list(op_.dtypes) + [d for d in SLOW_EXTRA_DTYPES if kind(d) in kinds]
        return list(itertools.product(op_.shapes, dts))
    first = [(op_.shapes[0], dt) for dt in op_.dtypes]
    return first if eager else first + [(s, op_.dtypes[0]) for s in op_.shapes[1:]]


def make_args(op_, shape_entry, dtype, seed=0):
    rs = np.random.RandomState(seed)
    rngs = op_.rng if isinstance(op_.rng, tuple) else (op_.rng,) * op_.nargs
    return [rng(rs, s, d) for rng, s, d in zip(rngs, arg_shapes(op_, shape_entry),
                                                 arg_dtypes(op_, dtype), strict=True)]


def case_id(op_, shape_entry, dtype):
    shapes = arg_shapes(op_, shape_entry)
    dts = arg_dtypes(op_, dtype)
    return f"{op_.name}-" + ",".join(f"{short(d)}[{','.join(map(str, s))}]"
                                     for s, d in zip(shapes, dts))


def params(ops, full=False, eager=False):
    """pytest parameters (op, shape entry, dtype) with readable ids."""
    import pytest
    return [pytest.param(o, s, d, id=case_id(o, s, d)) for o in ops for s, d in cases(o, full, eager)]


# -- the NumPy interpreter of jaxprs (the oracle for lax rows) -------------------------------

_BIT_EXACT = {"bitcast_convert_type", "nextafter"}  # never upcast the inputs of these


def _np_eval_eqn(eqn, vals):
    prim = eqn.primitive
    if prim.np_impl is None and isinstance(eqn.params.get("call_jaxpr"), core.ClosedJaxpr):
        return numpy_eval(eqn.params["call_jaxpr"], *vals)  # custom_jvp/vjp: the primal function
    if prim.name == "jit":  # a nested jit (jnp.var is one) runs its body
        return numpy_eval(eqn.params["jaxpr"], *vals)
    if prim.np_impl is None:
        raise NotImplementedError(f"primitive {prim.name} has no np_impl")
    if prim.name not in _BIT_EXACT and any(v.dtype in LOW_FLOAT for v in vals):
        # f16/bf16 math is done in f32 and rounded, as XLA does on CPU
        vals = [v.astype(np.float32) if v.dtype in LOW_FLOAT else v for v in vals]
    out = prim.np_impl(*vals, **eqn.params)
    outs = out if prim.multiple_results else [out]
    return [np.asarray(o).astype(v.aval.dtype) for o, v in zip(outs, eqn.outvars, strict=True)]


def numpy_eval(closed, *args):
    """Run a ClosedJaxpr with every primitive's NumPy reference implementation."""
    jaxpr = closed.jaxpr
    env = {}

    def read(v):
        if isinstance(v, core.Literal):
            return np.asarray(v.val, v.aval.dtype)
        return env[v]

    for v, x in zip(jaxpr.constvars, closed.consts, strict=True):
        env[v] = np.asarray(x)
    for v, x in zip(jaxpr.invars, args, strict=True):
        env[v] = np.asarray(x)
    for eqn in jaxpr.eqns:
        for v, x in zip(eqn.outvars, _np_eval_eqn(eqn, [read(v) for v in eqn.invars]), strict=True):
            env[v] = x
    return [read(v) for v in jaxpr.outvars]


def traced_reference(fn, args):
    """make_jaxpr(fn)(*args), type-checked, and its NumPy evaluation."""
    closed = pyjax.make_jaxpr(fn)(*args)
    core.check_jaxpr(closed.jaxpr)
    outs = numpy_eval(closed, *args)
    return closed, outs


# -- the lax table ----------------------------------------------------------------------------

def _bool_out(dt):
    return np.dtype(np.bool_)


def _complex_out(dt):
    return np.dtype(np.complex64)


def _lax_unary(name, dtypes, rng=rand_default, **kw):
    return op(name, getattr(lax, name), 1, dtypes, rng=rng, **kw)


def _lax_binary(name, dtypes, rng=rand_default, **kw):
    shapes = kw.pop("shapes", (MATRIX, SCALAR, [(), (2, 3)], [(2, 1, 3), (2, 4, 3)], VECTOR))
    return op(name, getattr(lax, name), 2, dtypes, rng=rng, shapes=shapes, **kw)


_SPECIAL_TOL = {np.dtype(np.float32): 1e-4, np.dtype(np.complex64): 1e-4}

LAX_UNARY = [
    _lax_unary("neg", NUM),
    _lax_unary("sign", NUM, rng=rand_special),
    _lax_unary("square", NUM),
    _lax_unary("floor", FLOAT, rng=rand_special),
    _lax_unary("ceil", FLOAT, rng=rand_special),
    _lax_unary("is_finite", FLOAT, rng=rand_special, out_dtype=_bool_out),
    _lax_unary("exp", INEXACT),
    _lax_unary("exp2", INEXACT),
    _lax_unary("log", INEXACT, rng=rand_positive),
    _lax_unary("log1p", INEXACT, rng=rand_positive),
    _lax_unary("expm1", INEXACT),
    _lax_unary("tanh", INEXACT),
    _lax_unary("logistic", INEXACT),
    _lax_unary("sin", INEXACT),
    _lax_unary("cos", INEXACT),
    _lax_unary("tan", INEXACT, rng=rand_small),
    _lax_unary("asin", INEXACT, rng=rand_unit),
    _lax_unary("acos", INEXACT, rng=rand_unit),
    _lax_unary("atan", INEXACT),
    _lax_unary("sinh", INEXACT, rng=rand_small),
    _lax_unary("cosh", INEXACT, rng=rand_small),
    _lax_unary("asinh", INEXACT),
    _lax_unary("acosh", INEXACT, rng=rand_ge_one),
    _lax_unary("atanh", INEXACT, rng=rand_unit),
    _lax_unary("sqrt", INEXACT, rng=rand_positive),
    _lax_unary("rsqrt", INEXACT, rng=rand_positive),
    _lax_unary("cbrt", FLOAT),
    _lax_unary("abs", SINT + INEXACT, out_dtype=real_dtype),
    _lax_unary("erf", FLOAT),
    _lax_unary("erfc", FLOAT),
    _lax_unary("erf_inv", FLOAT, rng=rand_unit, tol=_SPECIAL_TOL),
    _lax_unary("lgamma", FLOAT, rng=rand_positive, tol=_SPECIAL_TOL),
    _lax_unary("digamma", FLOAT, rng=rand_positive, tol=_SPECIAL_TOL),
    _lax_unary("bessel_i0e", FLOAT, tol=_SPECIAL_TOL),
    _lax_unary("bessel_i1e", FLOAT, tol=_SPECIAL_TOL),
    # the order m is fixed (polygamma has no derivative along it)
    op("polygamma[m=1]", lambda x: lax.polygamma(jnp.ones_like(x), x), 1, FLOAT, rng=rand_positive,
       tol=_SPECIAL_TOL),
    op("polygamma[m=3]", lambda x: lax.polygamma(jnp.full_like(x, 3), x), 1, FLOAT,
       rng=rand_ge_one, tol=_SPECIAL_TOL, shapes=(MATRIX,)),
    op("igamma", lax.igamma, 2, FLOAT, rng=rand_positive, tol=_SPECIAL_TOL,
       shapes=(MATRIX, SCALAR, [(), (2, 3)])),
    op("igammac", lax.igammac, 2, FLOAT, rng=rand_positive, tol=_SPECIAL_TOL, shapes=(MATRIX, SCALAR)),
    op("igamma_grad_a", lax.igamma_grad_a, 2, FLOAT, rng=rand_positive, tol=_SPECIAL_TOL, shapes=(MATRIX,)),
    # a and b fixed: regularized_incomplete_beta has a derivative in x only
    op("regularized_incomplete_beta[x]", lambda x: lax.betainc(jnp.full_like(x, 2.5), jnp.full_like(x, 1.5), x),
       1, FLOAT, rng=lambda rs, s, d: _cast(rs.uniform(0.05, 0.95, s), d), tol=_SPECIAL_TOL,
       prim="regularized_incomplete_beta"),
    op("zeta", lax.zeta, 2, FLOAT, rng=(lambda rs, s, d: _cast(rs.uniform(1.5, 5, s), d), rand_positive),
       tol=_SPECIAL_TOL, shapes=(MATRIX, SCALAR, [(), (2, 3)])),
    _lax_unary("real", COMPLEX, out_dtype=real_dtype),
    _lax_unary("imag", COMPLEX, out_dtype=real_dtype),
    op("not", lax.bitwise_not, 1, BOOL + INT, rng=rand_bits),
    _lax_unary("population_count", INT, rng=rand_bits),
    _lax_unary("clz", INT, rng=rand_bits),
    op("round[away_from_zero]", lambda x: lax.round(x, lax.RoundingMethod.AWAY_FROM_ZERO), 1,
       FLOAT, rng=rand_halves),
    op("round[to_nearest_even]", lambda x: lax.round(x, lax.RoundingMethod.TO_NEAREST_EVEN), 1,
       FLOAT, rng=rand_halves, shapes=(MATRIX,)),
    op("conj", lax.conj, 1, F32 + COMPLEX, out_dtype=_complex_out),
    op("copy", lax.copy, 1, ANY),
    op("stop_gradient", lax.stop_gradient, 1, ANY, shapes=(MATRIX,)),  # binds for inexact only
]

_SHIFT = (rand_bits, rand_shift)


def _compare(name, dtypes):
    return _lax_binary(name, dtypes, rng=rand_int, shapes=(MATRIX, [(), (4,)]), out_dtype=_bool_out)


LAX_BINARY = [
    _lax_binary("add", NUM),
    _lax_binary("sub", NUM),
    _lax_binary("mul", NUM),
    _lax_binary("div", NUM, rng=(rand_default, rand_nonzero)),
    _lax_binary("rem", INT + FLOAT, rng=(rand_default, rand_nonzero)),
    _lax_binary("max", ANY, rng=rand_special),
    _lax_binary("min", ANY, rng=rand_special),
    _lax_binary("atan2", FLOAT),
    _lax_binary("nextafter", FLOAT, rng=rand_special),
    op("and", lax.bitwise_and, 2, BOOL + INT, rng=rand_bits, shapes=(MATRIX, [(), (4,)])),
    op("or", lax.bitwise_or, 2, BOOL + INT, rng=rand_bits, shapes=(MATRIX, [(), (4,)])),
    op("xor", lax.bitwise_xor, 2, BOOL + INT, rng=rand_bits, shapes=(MATRIX, [(), (4,)])),
    _lax_binary("shift_left", INT, rng=_SHIFT, shapes=(MATRIX, [(4,), ()])),
    _lax_binary("shift_right_logical", INT, rng=_SHIFT, shapes=(MATRIX, [(4,), ()])),
    _lax_binary("shift_right_arithmetic", INT, rng=_SHIFT, shapes=(MATRIX, [(4,), ()])),
    _lax_binary("pow", INEXACT, rng=(rand_positive, rand_default)),
    op("pow[int exponent]", lax.pow, 2, F32 + COMPLEX, rng=(rand_positive, rand_int),
       arg_dtypes=lambda dt: [dt, np.int32], shapes=(MATRIX, [(2, 3), ()])),
    *[_compare(name, ANY) for name in ("eq", "ne")],
    *[_compare(name, ORDERED) for name in ("lt", "le", "gt", "ge")],
    op("complex", lax.complex, 2, F32, shapes=(MATRIX, [(), (4,)]), out_dtype=_complex_out),
    _lax_binary("mulhi", INT, rng=rand_bits, shapes=(MATRIX, [(), (4,)])),
    *[op(name, p.bind, 2, ORDERED, rng=rand_total_order, shapes=(MATRIX, [(), (4,)]), out_dtype=_bool_out)
      for name, p in (("eq_to", lax.eq_to_p), ("le_to", lax.le_to_p), ("lt_to", lax.lt_to_p))],
]


def _integer_pow(y, dtypes):
    return op(f"integer_pow[y={y}]", lambda x: lax.integer_pow(x, y), 1, dtypes,
              rng=rand_nonzero if y < 0 else rand_int, shapes=(MATRIX, SCALAR),
              tol={np.dtype(np.float16): 2e-2, bfloat16: 4e-2})


def _select_n_int(n):
    return op(f"select_n[int32, {n} cases]", lambda w, *cs: lax.select_n(w, *cs), n + 1, ANY,
              rng=(lambda rs, s, d: _cast(rs.randint(0, n, s), np.int32),) + (rand_default,) * n,
              arg_dtypes=lambda dt: [np.int32] + [dt] * n, shapes=(MATRIX, [()] + [(2, 3)] * n),
              prim="select_n")


_CONVERT_FROM = BOOL + [np.dtype(np.int8), np.dtype(np.uint32)] + INEXACT


def _convert(to):
    to = np.dtype(to)
    return op(f"convert_element_type[->{short(to)}]", lambda x: lax.convert_element_type(x, to),
              1, [d for d in _CONVERT_FROM if d != to], rng=rand_int, out_dtype=lambda dt: to,
              shapes=(MATRIX,))


def _bitcast(src, dst, shape):
    src, dst = np.dtype(src), np.dtype(dst)
    return op(f"bitcast_convert_type[{short(src)}->{short(dst)}]",
              lambda x: lax.bitcast_convert_type(x, dst), 1, [src],
              rng=rand_bits if kind(src) in "iu" else rand_default, out_dtype=lambda dt: dst,
              shapes=(shape,))


LAX_ELEMENTWISE_MISC = [
    _integer_pow(0, F32 + I32), _integer_pow(1, F32), _integer_pow(2, NUM),
    _integer_pow(3, [np.dtype(np.int8), np.dtype(np.uint32)] + F32 + COMPLEX),
    _integer_pow(5, I32 + [np.dtype(np.float16)]), _integer_pow(-1, INEXACT),
    _integer_pow(-3, F32 + COMPLEX),
    op("select_n[bool]", lax.select_n, 3, ANY, rng=(rand_bool, rand_default, rand_default),
       arg_dtypes=lambda dt: [np.bool_, dt, dt], shapes=(MATRIX, [(), (2, 3), (2, 3)], SCALAR)),
    op("select_n[one case]", lax.select_n, 2, F32, rng=(rand_bool, rand_default),
       arg_dtypes=lambda dt: [np.bool_, dt], shapes=(MATRIX,)),
    _select_n_int(2), _select_n_int(3),
    op("select", lax.select, 3, F32, rng=(rand_bool, rand_default, rand_default),
       arg_dtypes=lambda dt: [np.bool_, dt, dt], shapes=(MATRIX,), prim="select_n"),
    op("clamp", lax.clamp, 3, ORDERED, rng=(rand_fill(-2), rand_int, rand_fill(3)),
       shapes=(MATRIX, [(), (4,), ()], [(2, 3), (2, 3), ()])),
    *[_convert(t) for t in (np.float32, np.float16, bfloat16, np.int32, np.uint8, np.bool_,
                            np.complex64)],
    op("convert_element_type[f32->i32 fractional]", lambda x: lax.convert_element_type(x, np.int32),
       1, FLOAT, rng=rand_halves, out_dtype=lambda dt: np.dtype(np.int32), shapes=(MATRIX,)),
    op("convert_element_type[x64 canonicalized]", lambda x: lax.convert_element_type(x, np.int64),
       1, [np.dtype(np.float32)], rng=rand_int, out_dtype=lambda dt: np.dtype(np.int32),
       shapes=(MATRIX,)),
    _bitcast(np.float32, np.int32, MATRIX),
    _bitcast(np.int32, np.float32, VECTOR),
    _bitcast(np.uint32, np.float32, VECTOR),
    _bitcast(np.float16, np.int16, MATRIX),
    _bitcast(bfloat16, np.uint16, MATRIX),
    _bitcast(np.float32, np.uint8, MATRIX),        # width-changing: adds a trailing dim of 4
    _bitcast(np.uint8, np.float32, (3, 4)),        # ... and removes one
    _bitcast(np.int32, np.int16, VECTOR),
    _bitcast(np.int8, np.int32, (2, 4)),
]


def _shape_op(name, fn, nargs=1, dtypes=F32 + [np.dtype(np.int8), np.dtype(np.bool_)], shape=CUBE, **kw):
    return op(name, fn, nargs, dtypes, shapes=(shape,), **kw)


_idx = np.int32
LAX_SHAPE_OPS = [
    _shape_op("broadcast_in_dim[(3,)->(2,3)]", lambda x: lax.broadcast_in_dim(x, (2, 3), (1,)), shape=(3,)),
    _shape_op("broadcast_in_dim[(2,1,3)->(2,4,3,5)]", lambda x: lax.broadcast_in_dim(x, (2, 4, 3, 5), (0, 1, 2))),
    _shape_op("broadcast_in_dim[scalar]", lambda x: lax.broadcast_in_dim(x, (2, 3), ()), shape=()),
    _shape_op("broadcast_in_dim[broadcast]", lambda x: lax.broadcast(x, (4,)), dtypes=F32),
    _shape_op("reshape[(2,1,3)->(3,2)]", lambda x: lax.reshape(x, (3, 2))),
    _shape_op("reshape[dimensions]", lambda x: lax.reshape(x, (6,), dimensions=(2, 1, 0))),
    _shape_op("reshape[(2,3)->(3,2) dimensions]", lambda x: lax.reshape(x, (3, 2), dimensions=(1, 0)), shape=MATRIX, dtypes=F32),
    _shape_op("reshape[scalar->(1,1)]", lambda x: lax.reshape(x, (1, 1)), shape=(), dtypes=F32),
    _shape_op("squeeze", lambda x: lax.squeeze(x, (1,))),
    _shape_op("squeeze[negative]", lambda x: lax.squeeze(x, (-2,)), dtypes=F32),
    _shape_op("squeeze[all]", lambda x: lax.squeeze(x, (0, 1)), shape=(1, 1), dtypes=F32),
    _shape_op("broadcast_in_dim[expand_dims]", lambda x: lax.expand_dims(x, (0, 3)), dtypes=F32),
    _shape_op("transpose", lambda x: lax.transpose(x, (2, 0, 1))),
    _shape_op("transpose[matrix]", lambda x: lax.transpose(x, (1, 0)), shape=MATRIX, dtypes=F32 + COMPLEX),
    _shape_op("rev", lambda x: lax.rev(x, (0, 2))),
    _shape_op("rev[vector]", lambda x: lax.rev(x, (0,)), shape=VECTOR, dtypes=F32),
    _shape_op("slice", lambda x: lax.slice(x, (1, 0), (3, 4)), shape=(4, 5)),
    _shape_op("slice[strides]", lambda x: lax.slice(x, (0, 1, 0), (5, 4, 2), (2, 2, 1)), shape=(5, 4, 2)),
    _shape_op("slice[empty]", lambda x: lax.slice(x, (2,), (2,)), shape=VECTOR, dtypes=F32),
    _shape_op("slice[slice_in_dim]", lambda x: lax.slice_in_dim(x, 1, -1, 2, axis=1), shape=(3, 6), dtypes=F32),
    _shape_op("slice[index_in_dim]", lambda x: lax.index_in_dim(x, -1, axis=0, keepdims=False), shape=(3, 6), dtypes=F32),
    op("dynamic_slice", lambda x, i, j: lax.dynamic_slice(x, (i, j), (2, 2)), 3, F32 + [np.dtype(np.int8)],
       rng=(rand_default, rand_index, rand_index), arg_dtypes=lambda dt: [dt, np.int32, np.int32],
       shapes=([(4, 5), (), ()],)),
    op("dynamic_slice[clamped high]", lambda x: lax.dynamic_slice(x, (_idx(3), _idx(9)), (2, 2)), 1, F32,
       shapes=((4, 5),)),
    op("dynamic_slice[clamped low]", lambda x: lax.dynamic_slice(x, (_idx(-5), _idx(1)), (2, 3)), 1, F32,
       shapes=((4, 5),)),
    op("dynamic_slice[uint8 index]", lambda x, i: lax.dynamic_slice(x, (i,), (2,)), 2, F32,
       rng=(rand_default, rand_int), arg_dtypes=lambda dt: [dt, np.uint8], shapes=([(6,), ()],)),
    op("dynamic_slice[dynamic_slice_in_dim]", lambda x: lax.dynamic_slice_in_dim(x, 1, 2, axis=1), 1, F32,
       shapes=((3, 4),)),
    op("dynamic_slice[dynamic_index_in_dim]", lambda x: lax.dynamic_index_in_dim(x, 2, axis=0, keepdims=False),
       1, F32, shapes=((3, 4),)),
    op("dynamic_update_slice", lambda x, u, i, j: lax.dynamic_update_slice(x, u, (i, j)), 4,
       F32 + [np.dtype(np.int8), np.dtype(np.bool_)], rng=(rand_default, rand_default, rand_index, rand_index),
       arg_dtypes=lambda dt: [dt, dt, np.int32, np.int32], shapes=([(4, 5), (2, 3), (), ()],)),
    op("dynamic_update_slice[clamped]", lambda x, u: lax.dynamic_update_slice(x, u, (_idx(7), _idx(-2))), 2,
       F32, shapes=([(4, 5), (2, 3)],)),
    op("dynamic_update_slice[in_dim]", lambda x, u: lax.dynamic_update_slice_in_dim(x, u, 1, axis=0), 2,
       F32, shapes=([(4, 5), (2, 5)],)),
    op("concatenate", lambda *xs: lax.concatenate(xs, 0), 3, F32 + [np.dtype(np.int8), np.dtype(np.bool_)],
       shapes=([(2, 3), (1, 3), (4, 3)],)),
    op("concatenate[dim 1]", lambda a, b: lax.concatenate([a, b], 1), 2, F32 + COMPLEX,
       shapes=([(2, 3), (2, 0)], [(2, 3, 1), (2, 2, 1)])),
    op("pad", lambda x, v: lax.pad(x, v, [(1, 2, 0), (0, 1, 0)]), 2, F32 + [np.dtype(np.int8), np.dtype(np.bool_)],
       shapes=([(2, 3), ()],)),
    op("pad[negative]", lambda x, v: lax.pad(x, v, [(-1, 2, 0), (1, -2, 0)]), 2, F32, shapes=([(3, 4), ()],)),
    op("pad[interior]", lambda x, v: lax.pad(x, v, [(0, 0, 2), (1, 1, 1)]), 2, F32 + [np.dtype(np.int32)],
       shapes=([(3, 4), ()],)),
    op("pad[negative and interior]", lambda x, v: lax.pad(x, v, [(-2, -1, 1), (-1, 3, 2)]), 2, F32,
       shapes=([(4, 3), ()],)),
    op("pad[python scalar]", lambda x: lax.pad(x, 0, [(1, 1, 0)]), 1, F32 + [np.dtype(np.int8)], shapes=(VECTOR,)),
    _shape_op("split", lambda x: lax.split(x, (2, 0, 1), axis=2)[0], shape=(2, 1, 3)),
    _shape_op("split[axis 0]", lambda x: lax.split(x, (1, 3))[1], shape=(4, 2), dtypes=F32),
    _shape_op("tile", lambda x: lax.tile(x, (2, 1, 3))),
    _shape_op("tile[scalar]", lambda x: lax.tile(x, ()), shape=(), dtypes=F32),
    op("stack", lambda *xs: lax.stack(xs, axis=1), 3, F32 + [np.dtype(np.int8), np.dtype(np.bool_)],
       shapes=((2, 3), (4,))),
    op("stack[-1]", lambda a, b: lax.stack([a, b], axis=-1), 2, F32, shapes=((2, 1, 3),)),
    _shape_op("unstack", lambda x: lax.unstack(x, axis=2)[1]),
    _shape_op("unstack[axis 0]", lambda x: lax.unstack(x)[0], shape=(2, 3), dtypes=F32),
    op("optimization_barrier", lambda x, y: lax.optimization_barrier((x, y))[1], 2, ANY, shapes=(MATRIX, [(), (3,)])),
    op("dce_sink", lambda x: (lax.dce_sink(x * 2), x)[1], 1, F32 + I32, shapes=(MATRIX,)),
    op("stage", lax.stage_p.bind, 1, ANY, shapes=(MATRIX, SCALAR)),
    op("sharding_constraint", lambda x: lax.with_sharding_constraint(
        x, pyjax.sharding.SingleDeviceSharding(pyjax.devices()[0])), 1, ANY, shapes=(MATRIX, SCALAR)),
    # (a one-device mesh of an Auto axis: sharding in types stays off in this process)
    op("reshard", lambda x: pyjax.reshard(x, pyjax.sharding.NamedSharding(pyjax.sharding.Mesh(
        np.array(pyjax.devices()[:1]), ("i",)), pyjax.P())), 1, ANY, shapes=(MATRIX, SCALAR)),
    op("iota", lambda: lax.iota(np.float32, 5), 0, F32, shapes=((),), out_dtype=lambda dt: np.dtype(np.float32)),
    op("iota[int8]", lambda: lax.iota(np.int8, 4), 0, F32, shapes=((),), out_dtype=lambda dt: np.dtype(np.int8)),
    op("iota[broadcasted]", lambda: lax.broadcasted_iota(np.int32, (2, 3, 4), 1), 0, F32, shapes=((),),
       out_dtype=lambda dt: np.dtype(np.int32)),
]


def _reduce(name, fn, dtypes, **kw):
    shapes = [MATRIX, VECTOR]
    rows = [op(f"{name}[axes=(0,)]", lambda x: fn(x, (0,)), 1, dtypes, shapes=tuple(shapes), **kw),
            op(f"{name}[axes=(1,)]", lambda x: fn(x, (1,)), 1, dtypes[:1], shapes=(MATRIX,), **kw),
            op(f"{name}[axes=(0,2)]", lambda x: fn(x, (0, 2)), 1, dtypes[:1], shapes=((2, 4, 3),), **kw),
            op(f"{name}[axes=()]", lambda x: fn(x, ()), 1, dtypes[:1], shapes=(MATRIX, SCALAR), **kw),
            op(f"{name}[all]", lambda x: fn(x, (0, 1, 2)), 1, dtypes[:1], shapes=(CUBE,), **kw)]
    return rows


def _argminmax(name, fn, dtypes):
    return [op(f"{name}[axis=0]", lambda x: fn(x, 0, np.int32), 1, dtypes, rng=rand_int,
               shapes=(MATRIX, VECTOR), out_dtype=lambda dt: np.dtype(np.int32)),
            op(f"{name}[axis=1 nan]", lambda x: fn(x, 1, np.int32), 1, FLOAT, rng=rand_special,
               shapes=((3, 5),), out_dtype=lambda dt: np.dtype(np.int32)),
            op(f"{name}[axis=2 uint8 index]", lambda x: fn(x, 2, np.uint8), 1, F32, rng=rand_int,
               shapes=((2, 2, 5),), out_dtype=lambda dt: np.dtype(np.uint8))]


def _dot(name, dn, shapes, dtypes=F32, out_dtype=None, **kw):
    return op(f"dot_general[{name}]", lambda a, b: lax.dot_general(a, b, dn, **kw), 2, dtypes,
              shapes=tuple(shapes), rng=rand_int if dtypes is not F32 else rand_default,
              out_dtype=out_dtype,
              tol={np.dtype(np.float16): 3e-2, bfloat16: 5e-2, np.dtype(np.float32): 1e-4, np.dtype(np.complex64): 1e-4})


LAX_REDUCTIONS = [
    *_reduce("reduce_sum", lax.reduce_sum, NUM, tol={np.dtype(np.float16): 2e-2, bfloat16: 5e-2}),
    *_reduce("reduce_prod", lax.reduce_prod, NUM, rng=rand_int, tol={np.dtype(np.float16): 2e-2, bfloat16: 5e-2}),
    *_reduce("reduce_max", lax.reduce_max, ANY, rng=rand_special),
    *_reduce("reduce_min", lax.reduce_min, ANY, rng=rand_special),
    *_reduce("reduce_and", lax.reduce_and, BOOL + INT, rng=rand_bits),
    *_reduce("reduce_or", lax.reduce_or, BOOL + INT, rng=rand_bits),
    *_reduce("reduce_xor", lax.reduce_xor, BOOL + INT, rng=rand_bits),
    *_argminmax("argmax", lax.argmax, ORDERED),
    *_argminmax("argmin", lax.argmin, ORDERED),
    _dot("matmul", (((1,), (0,)), ((), ())), [[(2, 3), (3, 4)]], NUM),
    _dot("vector", (((0,), (0,)), ((), ())), [[(3,), (3,)]]),
    _dot("outer", (((), ()), ((), ())), [[(2,), (3,)]]),
    _dot("batch", (((2,), (1,)), ((0,), (0,))), [[(2, 3, 4), (2, 4, 5)]], F32 + COMPLEX),
    _dot("batch not leading", (((0,), (2,)), ((2,), (0,))), [[(4, 3, 2), (2, 5, 4)]]),
    _dot("two contracting", (((0, 2), (1, 0)), ((), ())), [[(3, 2, 4), (4, 3, 5)]]),
    _dot("preferred f32", (((1,), (0,)), ((), ())), [[(2, 3), (3, 4)]], [bfloat16, np.dtype(np.float16)],
         out_dtype=lambda dt: np.dtype(np.float32), preferred_element_type=np.float32),
    _dot("preferred i32", (((1,), (0,)), ((), ())), [[(2, 3), (3, 4)]], [np.dtype(np.int8)],
         out_dtype=lambda dt: np.dtype(np.int32), preferred_element_type=np.int32),
    op("dot_general[dot]", lax.dot, 2, F32, shapes=([(2, 3), (3,)], [(3,), (3, 2)]), tol=1e-4),
]

def _sort_row(name, fn, nargs=1, dtypes=ORDERED + COMPLEX, shapes=(MATRIX, VECTOR, CUBE), **kw):
    return op(name, fn, nargs, dtypes, shapes=shapes, **kw)


_INDEX_OUT = dict(out_dtype=lambda dt: np.dtype(np.int32))


def rand_distinct(rs, shape, dtype):
    """Values at least 0.5 apart (finite differences must not reorder a long sort)."""
    return _cast(rs.permutation(int(np.prod(shape))).reshape(shape) * 0.5, dtype)

LAX_SORTING = [
    _sort_row("sort", lax.sort),
    _sort_row("sort[nan -0 inf]", lax.sort, dtypes=[np.dtype(np.float16), bfloat16], rng=rand_special,
              shapes=((4, 5),)),
    _sort_row("sort[dimension=0]", lambda x: lax.sort(x, dimension=0), dtypes=F32 + I32),
    _sort_row("sort[key val ties]", lambda k, v: lax.sort_key_val(k, v)[1], 2, dtypes=F32,
              rng=(rand_int, rand_default), arg_dtypes=lambda dt: [np.int32, dt]),
    _sort_row("sort[num_keys=2]", lambda a, b, c: lax.sort((a, b, c), dimension=0, num_keys=2)[2], 3,
              dtypes=F32, rng=(rand_int, rand_int, rand_default), arg_dtypes=lambda dt: [np.int8, np.uint8, dt]),
    _sort_row("sort[complex key float val]", lambda k, v: lax.sort((k, v), num_keys=1)[1], 2,
              dtypes=F32, arg_dtypes=lambda dt: [np.complex64, dt]),
    _sort_row("top_k", lambda x: lax.top_k(x, 2)[0], dtypes=ORDERED),
    _sort_row("top_k[nan -0 inf]", lambda x: lax.top_k(x, 5)[0], dtypes=[bfloat16, np.dtype(np.float16)], rng=rand_special,
              shapes=((3, 6),)),
    _sort_row("top_k[indices ties]", lambda x: lax.top_k(x, 3)[1], dtypes=I32 + F32, rng=rand_int, **_INDEX_OUT),
    _sort_row("top_k[axis=0]", lambda x: lax.top_k(x, 1, axis=0)[0], dtypes=F32 + I32, shapes=(MATRIX, CUBE)),
    _sort_row("approx_top_k[max]", lambda x: lax.approx_max_k(x, 2)[0], dtypes=FLOAT),
    _sort_row("approx_top_k[min indices]", lambda x: lax.approx_min_k(x, 2, reduction_dimension=0)[1],
              dtypes=F32, rng=rand_int, shapes=(MATRIX, CUBE), **_INDEX_OUT),
    _sort_row("approx_top_k[min]", lambda x: lax.approx_min_k(x, 2, reduction_dimension=0)[0],
              dtypes=F32, shapes=(MATRIX, CUBE)),
    _sort_row("approx_top_k[unaggregated]", lambda x: lax.approx_max_k(x, 2, aggregate_to_topk=False)[0],
              dtypes=F32, rng=rand_distinct, shapes=((2, 300),)),
]

LAX_OPS = LAX_UNARY + LAX_BINARY + LAX_ELEMENTWISE_MISC + LAX_SHAPE_OPS + LAX_REDUCTIONS + LAX_SORTING

# gather/scatter: indices are integer arguments (held fixed by the gradient checks, batched by
# the vmap checks); rand_index makes some out of bounds (clamped, filled or dropped)
_GD = lax.GatherDimensionNumbers
_SD = lax.ScatterDimensionNumbers
_ROWS_G = _GD(offset_dims=(1,), collapsed_slice_dims=(0,), start_index_map=(0,))
_ROWS_S = _SD(update_window_dims=(1,), inserted_window_dims=(0,), scatter_dims_to_operand_dims=(0,))
_WIN_G = _GD(offset_dims=(1, 2), collapsed_slice_dims=(), start_index_map=(0, 1))
_PAIR_G = _GD(offset_dims=(), collapsed_slice_dims=(1,), start_index_map=(1,),
              operand_batching_dims=(0,), start_indices_batching_dims=(0,))
_PAIR_S = _SD(update_window_dims=(), inserted_window_dims=(1,), scatter_dims_to_operand_dims=(1,),
              operand_batching_dims=(0,), scatter_indices_batching_dims=(0,))
_UNIQUE = np.array([[3], [0], [1]], np.int32)


def rand_in_bounds(rs, shape, dtype):
    """Indices in [0, 3) (PROMISE_IN_BOUNDS gathers: out of bounds, their gradients are wrong)."""
    return _cast(rs.randint(0, 3, shape), dtype)


def _gather_row(name, dnums, sizes, shapes, dtypes=F32 + [np.dtype(np.int8), np.dtype(np.bool_)],
                rng=rand_in_bounds, **kw):
    return op(name, lambda x, i: lax.gather(x, i, dnums, sizes, **kw), 2, dtypes,
              rng=(rand_default, rng),
              arg_dtypes=lambda dt: [dt, np.int32], shapes=(shapes,))


def _scatter_row(name, fn, dnums=_ROWS_S, shapes=((4, 5), (3, 1), (3, 5)), dtypes=None, **kw):
    return op(name, lambda x, i, u: fn(x, i, u, dnums, **kw), 3, dtypes or F32 + [np.dtype(np.int32)],
              rng=(rand_default, rand_index, rand_default), arg_dtypes=lambda dt: [dt, np.int32, dt],
              shapes=(list(shapes),))


LAX_GATHER_SCATTER = [
    _gather_row("gather[rows]", _ROWS_G, (1, 5), [(4, 5), (3, 1)]),
    _gather_row("gather[windows]", _WIN_G, (2, 3), [(4, 5), (2, 2)]),
    # the default fill is NaN for floats, which finite differences cannot take: ints and bools
    _gather_row("gather[fill]", _ROWS_G, (1, 5), [(4, 5), (3, 1)], [np.dtype(np.int8), np.dtype(np.bool_)],
                rand_index, mode="fill"),
    _gather_row("gather[fill value]", _ROWS_G, (1, 5), [(4, 5), (3, 1)], rng=rand_index, mode="fill",
                fill_value=2),
    _gather_row("gather[clip]", _WIN_G, (2, 3), [(4, 5), (2, 2)], rng=rand_index, mode="clip"),
    _gather_row("gather[batching dims]", _PAIR_G, (1, 1), [(3, 4), (3, 1)]),
    op("gather[index_take]", lambda x: lax.index_take(x, (np.array([0, -1, 2]),), (1,)), 1, F32,
       shapes=((2, 4),)),
    _scatter_row("scatter-add", lax.scatter_add),
    _scatter_row("scatter-add[clip]", lax.scatter_add, mode="clip"),
    _scatter_row("scatter-add[batching dims]", lax.scatter_add, _PAIR_S, ((3, 4), (3, 1), (3,))),
    _scatter_row("scatter-sub", lax.scatter_sub),
    op("scatter-mul", lambda x, u: lax.scatter_mul(x, _UNIQUE, u, _ROWS_S, unique_indices=True), 2,
       F32 + [np.dtype(np.int32)], shapes=([(4, 5), (3, 5)],)),
    _scatter_row("scatter-mul[repeated]", lax.scatter_mul, dtypes=[np.dtype(np.int32)]),
    _scatter_row("scatter-min", lax.scatter_min),
    _scatter_row("scatter-max", lax.scatter_max, mode="clip"),
    _scatter_row("scatter", lax.scatter),
    _scatter_row("scatter[batching dims]", lax.scatter, _PAIR_S, ((3, 4), (3, 1), (3,))),
    op("scatter[unique]", lambda x, u: lax.scatter(x, _UNIQUE, u, _ROWS_S, unique_indices=True), 2,
       F32, shapes=([(4, 5), (3, 5)],)),
]

LAX_OPS = LAX_OPS + LAX_GATHER_SCATTER


# convolutions, windowed reductions, FFTs (tests/test_conv.py and test_fft.py check JAX's values)
from pyjax._src.lax.windowed_reductions import _select_and_scatter  # noqa: E402 (no public wrapper)
def _conv(name, shapes, dtypes=F32, **kw):
    return op(f"conv_general_dilated[{name}]", lambda x, w: lax.conv_general_dilated(x, w, **kw), 2,
              dtypes, shapes=(shapes,), tol=1e-4, rng=rand_small)


LAX_CONV_WINDOW_FFT = [
    _conv("valid", [(2, 3, 4, 4), (2, 3, 3, 2)], F32 + COMPLEX + I32, window_strides=(1, 1),
          padding="VALID"),
    _conv("same strided rhs dilation", [(1, 2, 5, 4), (3, 2, 2, 3)], window_strides=(2, 1),
          padding="SAME", rhs_dilation=(1, 2)),
    _conv("lhs dilation", [(1, 2, 3, 3), (2, 2, 2, 2)], window_strides=(1, 2),
          padding=((1, 1), (0, 2)), lhs_dilation=(2, 1)),
    _conv("feature groups", [(2, 4, 3, 3), (6, 2, 2, 2)], window_strides=(1, 1), padding="SAME",
          feature_group_count=2),
    _conv("batch groups", [(4, 2, 3, 3), (4, 2, 2, 2)], window_strides=(1, 1), padding="VALID",
          batch_group_count=2),
    _conv("NHWC 1d", [(2, 5, 3), (2, 3, 2)], window_strides=(1,), padding="SAME",
          dimension_numbers=("NHC", "HIO", "NHC")),
    *[op(f"reduce_window_{name}[{how}]", lambda x, fn=fn, kw=kw, name=name: lax.reduce_window(
        x, np.asarray(lax.reduction_identity(name, x.dtype)), fn, **kw), 1, dtypes, shapes=((2, 5, 4),))
      for name, fn, dtypes in (("sum", lax.add, F32 + I32), ("max", lax.max, F32 + I32 + [bfloat16]),
                               ("min", lax.min, F32 + I32))
      for how, kw in (("strided padded", dict(window_dimensions=(1, 2, 3), window_strides=(1, 2, 1),
                                              padding=((0, 0), (1, 0), (1, 1)))),
                      ("base dilation", dict(window_dimensions=(2, 2, 2), window_strides=(1, 1, 2),
                                             padding="SAME", base_dilation=(1, 2, 1))))],
    op("reduce_window_sum[window dilation]", lambda x: lax.reduce_window(
        x, np.zeros((), x.dtype), lax.add, (1, 2, 2), (1, 1, 1), "VALID", window_dilation=(1, 2, 3)),
       1, F32, shapes=((2, 5, 4),)),
    *[op(f"select_and_scatter_add[{name}]", lambda s, x, p=p: lax.select_and_scatter_add_p.bind(
        s, x, select_prim=p, window_dimensions=(1, 2, 3), window_strides=(1, 2, 1),
        padding=((0, 0), (1, 0), (1, 1))), 2, F32, shapes=([(2, 3, 4), (2, 5, 4)],))
      for name, p in (("ge", lax.ge_p), ("le", lax.le_p))],
    *[op(f"select_and_gather_add[{name}]", lambda t, x, p=p: lax.select_and_gather_add_p.bind(
        t, x, select_prim=p, window_dimensions=(1, 2, 3), window_strides=(1, 2, 1),
        padding=((0, 0), (1, 0), (1, 1)), base_dilation=(1, 1, 2), window_dilation=(1, 1, 1)), 2,
        F32, shapes=([(2, 5, 4), (2, 5, 4)],)) for name, p in (("ge", lax.ge_p), ("le", lax.le_p))],
    op("fft[fft]", lambda x: lax.fft(x, "fft", (3,)), 1, COMPLEX, shapes=((2, 3),)),
    op("fft[ifft 2d]", lambda x: lax.fft(x, "ifft", (2, 3)), 1, COMPLEX, shapes=((2, 3),)),
    op("fft[rfft]", lambda x: lax.fft(x, "rfft", (2, 4)), 1, F32, shapes=((3, 2, 4),), out_dtype=_complex_out),
    op("fft[irfft]", lambda x: lax.fft(x, "irfft", (2, 5)), 1, COMPLEX, shapes=((2, 3),),
       out_dtype=lambda dt: np.dtype(np.float32)),
    op("select_and_scatter[ge add]", lambda x, s: _select_and_scatter(
        x, lax.ge, (2, 2), (2, 1), ((0, 0), (1, 0)), s, np.zeros((), x.dtype), lax.add), 2, F32 + I32,
       shapes=([(4, 3), (2, 3)],)),
    op("select_and_scatter[le mul padded]", lambda x, s: _select_and_scatter(
        x, lax.le, (2, 3), (1, 1), ((1, 1), (0, 1)), s, np.ones((), x.dtype), lax.mul), 2, F32,
       shapes=([(3, 4), (4, 3)],)),
]

LAX_OPS = LAX_OPS + LAX_CONV_WINDOW_FFT


# lax.linalg: decompositions are unique up to signs/phases, so rows whose outputs are not (eigh
# and svd vectors) compare their magnitudes. Inputs are well conditioned (finite differences).
def rand_wellcond(rs, shape, dtype):
    """Random matrices plus 3 on the diagonal (well conditioned, diagonally weighted)."""
    x = rand_small(rs, shape, dtype) + 3 * np.eye(shape[-2], shape[-1])
    return _cast(x, dtype)


def rand_hermitian(rs, shape, dtype):
    """Hermitian matrices with well-separated eigenvalues (eigh's derivative divides by gaps)."""
    x = rand_small(rs, shape, dtype)
    return _cast(x + np.swapaxes(x, -1, -2).conj() + np.diag(np.arange(shape[-1]) * 2.0), dtype)


def rand_spd(rs, shape, dtype):
    x = rand_small(rs, shape, dtype)
    return _cast(x @ np.swapaxes(x, -1, -2).conj() + 2 * np.eye(shape[-1]), dtype)


def rand_pivots(rs, shape, dtype):
    """LU row swaps: pivots[..., i] in [i, 4)."""
    return _cast(rs.randint(0, 4, shape) % (4 - np.arange(shape[-1])) + np.arange(shape[-1]), dtype)


_LINALG = F32 + COMPLEX
_LINALG_TOL = {np.dtype(np.float32): 1e-4, np.dtype(np.complex64): 1e-4}
_SQUARE = ((3, 3), (2, 3, 3))
_RECT = ((3, 3), (2, 4, 3), (3, 4))


def _linalg(name, fn, nargs=1, dtypes=_LINALG, **kw):
    kw.setdefault("shapes", _SQUARE)
    return op(name, fn, nargs, dtypes, tol=kw.pop("tol", _LINALG_TOL), **kw)


LAX_LINALG = [
    _linalg("cholesky", lax.linalg.cholesky, rng=rand_spd),
    _linalg("triangular_solve[left lower]",
            lambda a, b: lax.linalg.triangular_solve(a, b, left_side=True, lower=True), 2,
            rng=(rand_wellcond, rand_default), shapes=([(3, 3), (3, 2)], [(2, 3, 3), (2, 3, 2)])),
    _linalg("triangular_solve[right upper transposed conjugated unit]",
            lambda a, b: lax.linalg.triangular_solve(a, b, transpose_a=True, conjugate_a=True,
                                                     unit_diagonal=True), 2,
            rng=(rand_wellcond, rand_default), shapes=([(3, 3), (2, 3)],)),
    _linalg("lu", lambda x: lax.linalg.lu(x)[0], rng=rand_wellcond, shapes=_RECT),
    _linalg("lu[permutation]", lambda x: lax.linalg.lu(x)[2], shapes=((4, 4), (2, 3, 4)),
            out_dtype=lambda dt: np.dtype(np.int32)),
    op("lu_pivots_to_permutation", lambda p: lax.linalg.lu_pivots_to_permutation(p, 4), 1, I32,
       rng=rand_pivots, shapes=((3,), (2, 4))),
    _linalg("qr", lambda x: lax.linalg.qr(x)[0], rng=rand_wellcond, shapes=((3, 3), (2, 4, 4))),
    _linalg("qr[r reduced]", lambda x: lax.linalg.qr(x, full_matrices=False)[1], rng=rand_wellcond,
            shapes=_RECT),
    _linalg("householder_product", lax.linalg.householder_product, 2,
            shapes=([(4, 3), (2,)], [(2, 4, 3), (2, 3)])),
    # geqrf has no public wrapper (jnp.linalg.qr(mode="raw") calls it); NumPy's reference is
    # SciPy's qr(mode="raw"), the same LAPACK routine
    _linalg("geqrf", lambda x: pyjax._src.lax.linalg.geqrf(x)[0], rng=rand_wellcond, shapes=_RECT),
    _linalg("geqrf[taus]", lambda x: pyjax._src.lax.linalg.geqrf(x)[1], rng=rand_wellcond,
            shapes=((4, 3), (2, 3, 4))),
    _linalg("eigh", lambda x: lax.linalg.eigh(x)[1], rng=rand_hermitian, out_dtype=real_dtype),
    _linalg("eigh[abs v]", lambda x: lax.abs(lax.linalg.eigh(x)[0]), rng=rand_hermitian,
            out_dtype=real_dtype, shapes=((3, 3),)),
    _linalg("svd", lambda x: lax.linalg.svd(x, compute_uv=False), rng=rand_wellcond,
            out_dtype=real_dtype, shapes=_RECT),
    _linalg("svd[abs u reduced]", lambda x: lax.abs(lax.linalg.svd(x, full_matrices=False)[0]),
            rng=rand_wellcond, out_dtype=real_dtype, shapes=((3, 3), (4, 3))),
    _linalg("eig", lambda x: lax.linalg.eig(x, compute_left_eigenvectors=False,
                                            compute_right_eigenvectors=False)[0],
            rng=rand_hermitian, out_dtype=_complex_out, dtypes=F32, shapes=((3, 3),)),
    _linalg("hessenberg", lambda x: lax.linalg.hessenberg(x)[0], shapes=((4, 4), (2, 3, 3))),
    _linalg("tridiagonal", lambda x: lax.linalg.tridiagonal(x)[1], rng=rand_hermitian,
            out_dtype=real_dtype),
    _linalg("schur", lambda x: lax.abs(lax.linalg.schur(x)[0]), rng=rand_wellcond,
            out_dtype=real_dtype, shapes=((3, 3),)),
    _linalg("ormqr", lambda a, t, c: lax.linalg.ormqr(a, t, c, transpose=True), 3,
            shapes=([(4, 3), (2,), (4, 2)], [(2, 3, 3), (2, 3), (2, 3, 3)])),
    _linalg("tridiagonal_solve", lax.linalg.tridiagonal_solve, 4,
            rng=(rand_small, lambda rs, s, d: rand_small(rs, s, d) + _cast(4, d), rand_small, rand_default),
            shapes=([(4,), (4,), (4,), (4, 2)], [(2, 3), (2, 3), (2, 3), (2, 3, 1)])),
    _linalg("symmetric_product", lambda a, c: lax.linalg.symmetric_product(a, c, alpha=2.0, beta=-0.5),
            2, dtypes=F32, shapes=([(3, 2), (3, 3)], [(2, 3, 4), (2, 3, 3)])),
    _linalg("cholesky_update", lambda r, w: lax.linalg.cholesky_update(np.triu(np.ones((3, 3), r.dtype)) * r, w),
            2, dtypes=F32, rng=(rand_wellcond, rand_small), shapes=([(3, 3), (3,)],)),
]

LAX_OPS = LAX_OPS + LAX_LINALG

# Primitives covered by other test files rather than a row here.
LAX_TESTED_ELSEWHERE: dict[str, str] = {
    "rng_bit_generator": "XLA's own generator: its bits are checked against JAX's (test_random.py)",
    "rng_uniform": "XLA's stateful generator: test_lax_extra.py checks the range, dtype and shape",
    "reduce_window": "its reducer is a jaxpr and, as in JAX, it has no transpose: checked against "
                     "JAX's values, jvps and vmap in test_conv.py",
    "reduce": "its reducer is a jaxpr and it has no transpose (as reduce_window): checked against "
              "JAX's values, jvps and vmap in test_conv.py",
    "reduce_precision": "piecewise constant but linear by definition (as in JAX), so finite "
                        "differences cannot check it: test_conv.py compares it with JAX and NumPy",
    "device_put": "moves values between memories, the identity on their values: test_memory_kinds.py "
                  "(JAX's recorded types and offloading) and test_autodiff.py",
}


# lax modules whose primitives are tested elsewhere: collectives need a named axis (test_vmap.py),
# control flow takes functions (test_control_flow.py)
_LAX_MODULES_TESTED_ELSEWHERE = {"parallel", "control_flow"}


def lax_primitives():
    """Every primitive of the lax modules (the `*_p` names of each module of pyjax._src.lax,
    so a new module is covered without being listed here)."""
    import pyjax._src.lax as lax_pkg
    prims = {}
    for info in pkgutil.iter_modules(lax_pkg.__path__):
        if info.name in _LAX_MODULES_TESTED_ELSEWHERE:
            continue
        mod = importlib.import_module(f"{lax_pkg.__name__}.{info.name}")
        prims.update({v.name: v for k, v in vars(mod).items()
                      if k.endswith("_p") and isinstance(v, core.Primitive)})
    return prims


# -- rule coverage ------------------------------------------------------------------------------
# Rules live on the primitive (STYLE rule 2), so a test lists every primitive pyjax defines and
# the rules it lacks, kind by kind: `test_lax_ops.py::test_every_primitive_has_its_rules` asserts
# they are exactly the exceptions below. A transpose is needed only by the primitives a JVP
# applies to tangents (`primitives_applied_to_tangents`); the others are not linear.

RULE_KINDS = ("impl", "abstract_eval", "jvp", "transpose", "batch", "lowering", "np_impl")

_COLLECTIVE = "a collective: it needs a named axis, so a NumPy function of one array cannot say it"
_HIGHER_ORDER = "higher-order: it runs the jaxprs in its parameters (tested against the same ops unrolled)"
_NEW_REF = ("a new_ref equation is discharged where it is traced (pyjax/_src/state): no eager run "
            "or transformation sees it")

MISSING_RULES: dict[str, dict[str, str]] = {
    "impl": {"new_ref": _NEW_REF},
    "abstract_eval": {},
    "jvp": {
        "zeta": "none in JAX's lax either (jax.scipy.special.zeta differentiates a series)",
        "igamma_grad_a": "none in JAX either (it would need the series' second derivatives)",
        "iota": "it has no operands",
        "platform_index": "it has no operands (lax.platform_dependent's branch index)",
        "nextafter": "none in JAX either (jnp.spacing is not differentiable there)",
        "axis_index": "it has no operands (an integer index along a named axis)",
        "pmax": "not yet: max over a named axis is not differentiable in pyjax",
        "pmin": "not yet: min over a named axis is not differentiable in pyjax",
        "rng_bit_generator": "none in JAX either: its operand and results are integers",
        "rng_uniform": "none in JAX either (a stateful draw, not a function of its bounds)",
        "select_and_scatter": "none in JAX either: its select and scatter are arbitrary functions "
                              "(max pooling differentiates through select_and_scatter_add)",
        "householder_product": "none in JAX either (a building block of qr, which has one)",
        "geqrf": "none in JAX either (LAPACK's Householder form; qr has one)",
        "hessenberg": "none in JAX either",
        "tridiagonal": "none in JAX either",
        "schur": "none in JAX either",
        "ormqr": "none in JAX either",
        "cholesky_update": "none in JAX either",
        "new_ref": _NEW_REF,
        "dim_as_value": "a symbolic dimension as an integer value: nothing to differentiate",
    },
    "transpose": {},
    "batch": {"rng_uniform": "none in JAX either (a stateful draw per call: under vmap use jax.random)",
              "new_ref": _NEW_REF,
              "call_exported": "none in JAX either (export with a symbolic batch dimension instead)",
              "dim_as_value": "a symbolic dimension has no batch axis (it has no operands)"},
    "lowering": {},
    "np_impl": {
        **{name: _COLLECTIVE for name in ("psum", "pmax", "pmin", "all_gather", "reduce_scatter",
                                          "all_to_all", "ppermute", "axis_index", "pvary",
                                          "psum_invariant", "all_gather_invariant")},
        **{name: _HIGHER_ORDER for name in ("cond", "while", "scan", "jit", "remat2", "remat_opt",
                                            "custom_linear_solve", "custom_root",
                                            "custom_jvp_call", "custom_vjp_call", "custom_lin",
                                            "custom_vmap_call")},
        "random_gamma": "a rejection sampler driven by threefry bits: its oracle is JAX's recorded "
                        "samples (tests/test_random.py)",
        "rng_bit_generator": "XLA's platform-dependent generator: its oracle is JAX's recorded bits "
                             "(tests/test_random.py)",
        "rng_uniform": "XLA's stateful generator: tests check the range of its values",
        **{name: "a sparse primitive, written with pyjax ops: its oracle is NumPy on the dense "
                 "arrays (tests/test_sparse.py) and JAX's recorded layouts"
           for name in ("bcoo_dot_general", "bcoo_dot_general_sampled", "bcoo_extract",
                        "bcoo_fromdense", "bcoo_sort_indices", "bcoo_spdot_general",
                        "bcoo_sum_duplicates", "bcoo_todense", "bcoo_transpose",
                        "bcsr_dot_general", "bcsr_extract", "bcsr_fromdense", "bcsr_todense",
                        "coo_fromdense", "coo_matmat", "coo_matvec", "coo_todense",
                        "csr_fromdense", "csr_matmat", "csr_matvec", "csr_todense", "spsolve",
                        "todense")},
        **{name: "a host callback: it runs the user's Python function (tests/test_callbacks.py)"
           for name in ("debug_callback", "pure_callback", "io_callback")},
        "inspect_sharding": "reports a sharding to a callback, computes nothing "
                            "(tests/test_visualize_sharding.py)",
        **{name: "a state primitive: its oracle is NumPy on the functional program "
                 "(tests/test_state.py)" for name in ("get", "swap", "addupdate", "new_ref")},
        "check": "a checkify check: its oracle is JAX's recorded messages (tests/test_checkify.py)",
        "ffi_call": "runs a registered C function: tests/test_ffi.py checks it against NumPy",
        "pallas_call": "runs a kernel: tests/test_pallas.py checks it against jnp and JAX's "
                       "recorded results",
        "shard_map": _HIGHER_ORDER,
        "call_exported": "calls an exported module: tests/test_export.py checks it against the "
                         "original function",
        "dim_as_value": "a symbolic dimension's value: tests/test_export.py",
    },
}


def all_primitives():
    """Every primitive pyjax defines at module level, by name, after importing every module of
    pyjax._src (primitives made at run time, e.g. by tests, are not included)."""
    import pyjax._src as src
    prims = {}
    for info in pkgutil.walk_packages(src.__path__, src.__name__ + "."):
        mod = importlib.import_module(info.name)
        prims.update({v.name: v for v in vars(mod).values() if isinstance(v, core.Primitive)})
    return prims


def primitives_applied_to_tangents(fn, args):
    """The primitives that the JVP of `fn` at `args` applies to values depending on the tangents,
    at the top level of its jaxpr (reverse mode transposes each of them). Integer and bool
    arguments get float0 tangents."""
    from pyjax._src import dtypes
    tangents = [np.zeros(np.shape(a), np.asarray(a).dtype if kind(np.asarray(a).dtype) in "fc"
                         else dtypes.float0) for a in args]
    jaxpr = pyjax.make_jaxpr(lambda p, t: pyjax.jvp(fn, p, t))(list(args), tangents).jaxpr
    linear = set(jaxpr.invars[len(args):])
    used = set()
    for eqn in jaxpr.eqns:
        if any(isinstance(v, core.Var) and v in linear for v in eqn.invars):
            used.add(eqn.primitive.name)
            linear.update(eqn.outvars)
    return used


def _inexact_case(op_):
    """The row's first case on its first inexact dtype (None if it has none: no derivative)."""
    dts = [d for d in op_.dtypes if kind(d) in "fc"]
    return None if not dts else make_args(op_, op_.shapes[0], dts[0])


def _probe(fn, *shapes):
    return fn, [np.linspace(0.5, 1.5, int(np.prod(s, dtype=np.int64)), dtype=np.float32).reshape(s)
                for s in shapes]


@pyjax.custom_vjp
def _custom_vjp_sin(x):
    return jnp.sin(x)


_custom_vjp_sin.defvjp(lambda x: (jnp.sin(x), jnp.cos(x)), lambda cos_x, ct: (ct * cos_x,))

# Functions beyond the lax rows whose JVPs reach the higher-order primitives. (Collectives have
# none: outside a mapped axis they do not trace, and inside vmap they become lax ops; their
# transposes are checked by test_vmap.py's gradients.)
LINEARITY_PROBES = [
    _probe(lambda x: lax.cumsum(x, axis=0), (3,)),
    _probe(lambda x: pyjax.jit(jnp.sin)(x), (3,)),
    _probe(lambda x: pyjax.checkpoint(jnp.sin)(x), (3,)),
    _probe(lambda x: checkpoint_name(jnp.sin(x), "s"), (3,)),
    _probe(_custom_vjp_sin, (3,)),
    _probe(lambda p, x: lax.cond(p[0] > 1, jnp.sin, jnp.cos, x), (1,), (3,)),
    _probe(lambda x: lax.scan(lambda c, v: (c * v, c), x[0], x)[0], (3,)),
    _probe(lambda x: lax.while_loop(lambda c: c[0] < 0, lambda c: c * 2, x), (3,)),
]


def linear_primitives():
    """The primitives some JVP applies to tangents: those of every lax row of a differentiable
    primitive (its first inexact case) and of `LINEARITY_PROBES`."""
    found = set()
    prims = lax_primitives()
    for op_ in LAX_OPS:
        args = _inexact_case(op_)
        if args is not None and prims[op_.primitive].jvp is not None:
            found |= primitives_applied_to_tangents(op_.fn, args)
    for fn, args in LINEARITY_PROBES:
        found |= primitives_applied_to_tangents(fn, args)
    return found


# -- the jnp table ----------------------------------------------------------------------------
# References are NumPy functions run on 64-bit copies of the inputs (f16/bf16/f32 -> f64, c64 ->
# c128, ints -> int64/uint64), so they are accurate and follow NumPy's x64 semantics; the result
# is cast to the dtype JAX returns (`out_dtype`), which is checked exactly.

# jnp logic branches on the kind of dtype, not its width: one or two dtypes per kind (the lax
# tests sweep the widths, f16 included)
J_ALL = BOOL + [np.dtype(np.int8), np.dtype(np.uint8), np.dtype(np.int32), bfloat16,
                np.dtype(np.float32), np.dtype(np.complex64)]
J_NUM = J_ALL[1:]
J_INT = J_ALL[1:4] + [np.dtype(np.uint32)]
J_FLOAT_IN = BOOL + [np.dtype(np.int32), bfloat16, np.dtype(np.float32), np.dtype(np.complex64)]
J_REAL_IN = J_FLOAT_IN[:-1]


def to_wide(x):
    """The 64-bit NumPy value the references compute on."""
    x = np.asarray(x)
    k = kind(x.dtype)
    return x.astype({"b": np.bool_, "i": np.int64, "u": np.uint64, "f": np.float64,
                     "c": np.complex128}[k])


def jnp_reference(op_, args, dtype):
    """The reference outputs (a list) cast to the expected dtype. For float-valued functions,
    integer and bool inputs become float64 first (NumPy would compute `sin(bool)` in float16 and
    `reciprocal(int)` in integers)."""
    wide = [to_wide(a) for a in args]
    if kind(expected_dtype(op_, dtype)) in "fc":
        wide = [w.astype(np.float64) if kind(w.dtype) in "biu" else w for w in wide]
    with np.errstate(all="ignore"):  # e.g. arctanh(1) = inf
        out = op_.ref(*wide)
    outs = list(out) if isinstance(out, (list, tuple)) else [out]
    dt = expected_dtype(op_, dtype)
    with np.errstate(all="ignore"):
        return [np.asarray(o).astype(dt) if kind(dt) != "f" or kind(np.asarray(o).dtype) != "c"
                else np.asarray(o).real.astype(dt) for o in outs]


def inexact_out(dt):
    """Integer and bool inputs give the default float (x64 off)."""
    return np.dtype(np.float32) if kind(dt) in "biu" else np.dtype(dt)


def sum_out(dt):
    """jnp.sum/prod: small integers accumulate in the default int (uint in the default uint)."""
    if kind(dt) in "bi" and np.dtype(dt).itemsize < 4 or kind(dt) == "b":
        return np.dtype(np.int32)
    if kind(dt) == "u" and np.dtype(dt).itemsize < 4:
        return np.dtype(np.uint32)
    return np.dtype(dt)


def _int_out(dt):
    return np.dtype(np.int32)


def _real_out(dt):
    return real_dtype(inexact_out(dt)) if kind(dt) == "c" else np.dtype(dt)


def _numeric_out(dt):
    return np.dtype(np.int32) if kind(dt) == "b" else np.dtype(dt)


def rand_unit_or_int(rs, shape, dtype):
    if kind(dtype) in "iu":
        return _cast(rs.randint(0 if kind(dtype) == "u" else -1, 2, shape), dtype)
    return rand_unit(rs, shape, dtype)


UNARY_SHAPES = (MATRIX, SCALAR)  # the lax rows sweep more shapes through the same lowerings
BINARY_SHAPES = (MATRIX, [(2, 3), ()], [(3,), (2, 3)], [(2, 1, 3), (4, 1)], [(), ()])


def _ju(name, ref, dtypes, rng=rand_default, out_dtype=None, fn=None, **kw):
    return op(name, fn or getattr(jnp, name), 1, dtypes, rng=rng, ref=ref, out_dtype=out_dtype,
              shapes=kw.pop("shapes", UNARY_SHAPES), **kw)


def _jb(name, ref, dtypes, rng=rand_default, out_dtype=None, fn=None, **kw):
    return op(name, fn or getattr(jnp, name), 2, dtypes, rng=rng, ref=ref, out_dtype=out_dtype,
              shapes=kw.pop("shapes", BINARY_SHAPES), **kw)


def _float_unary(name, ref, rng=rand_default, dtypes=J_FLOAT_IN, out_dtype=inexact_out, **kw):
    return _ju(name, ref, dtypes, rng=rng, out_dtype=out_dtype, **kw)


JNP_UNARY = [
    _float_unary("sin", np.sin), _float_unary("cos", np.cos), _float_unary("tan", np.tan, rand_small),
    _float_unary("arcsin", np.arcsin, rand_unit_or_int), _float_unary("arccos", np.arccos, rand_unit_or_int),
    _float_unary("arctan", np.arctan), _float_unary("sinh", np.sinh, rand_small),
    _float_unary("cosh", np.cosh, rand_small), _float_unary("tanh", np.tanh),
    _float_unary("arcsinh", np.arcsinh), _float_unary("arccosh", np.arccosh, rand_ge_one),
    _float_unary("arctanh", np.arctanh, rand_unit_or_int, dtypes=J_FLOAT_IN[1:]),
    _float_unary("exp", np.exp, rand_small), _float_unary("exp2", np.exp2, rand_small),
    _float_unary("expm1", np.expm1, rand_small), _float_unary("log", np.log, rand_positive),
    _float_unary("log1p", np.log1p, rand_positive), _float_unary("log2", np.log2, rand_positive),
    _float_unary("log10", np.log10, rand_positive), _float_unary("sqrt", np.sqrt, rand_positive),
    _float_unary("cbrt", np.cbrt, dtypes=J_REAL_IN),
    _float_unary("deg2rad", lambda x: x * (np.pi / 180)), _float_unary("rad2deg", lambda x: x * (180 / np.pi)),
    _float_unary("sinc", np.sinc, rand_small),
    _float_unary("reciprocal", np.reciprocal, rand_nonzero),
    _float_unary("fabs", np.fabs, dtypes=J_REAL_IN),
    _float_unary("rint", np.rint, rand_halves),
    _float_unary("angle", np.angle, out_dtype=lambda dt: real_dtype(inexact_out(dt))),
    _float_unary("spacing", np.spacing, dtypes=[np.dtype(np.float32)], rng=rand_positive),
    _ju("negative", np.negative, J_NUM),
    _ju("positive", lambda x: x.copy(), J_ALL),
    _ju("square", np.square, J_ALL, out_dtype=_numeric_out),
    _ju("absolute", np.absolute, J_ALL, out_dtype=_real_out),
    _ju("sign", np.sign, J_NUM, rng=rand_special),
    _ju("floor", np.floor, J_ALL[:-1], rng=rand_halves),
    _ju("ceil", np.ceil, J_ALL[:-1], rng=rand_halves),
    _ju("trunc", np.trunc, J_ALL[:-1], rng=rand_halves),
    _ju("round", np.round, J_NUM, rng=rand_halves),
    _ju("round[decimals=1]", lambda x: np.round(x, 1), [np.dtype(np.float32)], fn=lambda x: jnp.round(x, 1),
        rng=rand_default, tol=1e-5),
    _ju("isfinite", np.isfinite, J_ALL, rng=rand_special, out_dtype=_bool_out),
    _ju("isinf", np.isinf, J_ALL, rng=rand_special, out_dtype=_bool_out),
    _ju("isnan", np.isnan, J_ALL, rng=rand_special, out_dtype=_bool_out),
    _ju("isposinf", np.isposinf, J_ALL[:-1], rng=rand_special, out_dtype=_bool_out),
    _ju("isneginf", np.isneginf, J_ALL[:-1], rng=rand_special, out_dtype=_bool_out),
    _ju("signbit", np.signbit, J_ALL[:-1], rng=rand_special, out_dtype=_bool_out),
    _ju("real", np.real, J_ALL, out_dtype=_real_out),
    _ju("imag", np.imag, J_ALL, out_dtype=_real_out),
    _ju("conjugate", np.conjugate, J_ALL),
    _ju("invert", np.invert, BOOL + J_INT, rng=rand_bits),
    _ju("logical_not", np.logical_not, J_ALL, rng=rand_int, out_dtype=_bool_out),
    _ju("bitwise_count", np.bitwise_count, BOOL + J_INT, rng=rand_bits,
        out_dtype=lambda dt: np.dtype(np.uint8)),
]


def _float_binary(name, ref, rng=rand_default, dtypes=J_FLOAT_IN, **kw):
    return _jb(name, ref, dtypes, rng=rng, out_dtype=inexact_out, **kw)


def _compare(name, ref, dtypes=J_ALL):
    return _jb(name, ref, dtypes, rng=rand_int, out_dtype=_bool_out)


JNP_BINARY = [
    _jb("add", np.add, J_ALL),
    _jb("subtract", np.subtract, J_NUM),
    _jb("multiply", np.multiply, J_ALL),
    _float_binary("true_divide", np.true_divide, rng=(rand_default, rand_nonzero)),
    _jb("floor_divide", np.floor_divide, J_ALL[:-1], rng=(rand_default, rand_nonzero), out_dtype=_numeric_out),
    _jb("remainder", np.remainder, J_ALL[:-1], rng=(rand_default, rand_nonzero), out_dtype=_numeric_out),
    _jb("fmod", np.fmod, J_ALL[:-1], rng=(rand_default, rand_nonzero), out_dtype=_numeric_out),
    _jb("power", np.power, J_ALL, rng=(rand_positive, lambda rs, s, d: _cast(rs.randint(0, 4, s), d)),
        out_dtype=_numeric_out,
        tol={np.dtype(np.complex64): 1e-4}),
    _float_binary("float_power", np.float_power, rng=(rand_positive, rand_default),
                  tol={np.dtype(np.float32): 1e-4}),
    _jb("maximum", np.maximum, J_ALL, rng=rand_special),
    _jb("minimum", np.minimum, J_ALL, rng=rand_special),
    _float_binary("arctan2", np.arctan2, dtypes=J_REAL_IN),
    _float_binary("nextafter", np.nextafter, dtypes=J_REAL_IN[2:], shapes=(MATRIX,)),
    _float_binary("hypot", np.hypot, dtypes=J_REAL_IN),
    _float_binary("copysign", np.copysign, dtypes=J_REAL_IN, rng=rand_special),
    _float_binary("heaviside", np.heaviside, dtypes=J_REAL_IN, rng=rand_int),
    _float_binary("logaddexp", np.logaddexp, dtypes=J_REAL_IN),
    _float_binary("logaddexp2", np.logaddexp2, dtypes=J_REAL_IN),
    _compare("equal", np.equal), _compare("not_equal", np.not_equal),
    _compare("less", np.less), _compare("less_equal", np.less_equal),
    _compare("greater", np.greater), _compare("greater_equal", np.greater_equal),
    _jb("bitwise_and", np.bitwise_and, BOOL + J_INT, rng=rand_bits),
    _jb("bitwise_or", np.bitwise_or, BOOL + J_INT, rng=rand_bits),
    _jb("bitwise_xor", np.bitwise_xor, BOOL + J_INT, rng=rand_bits),
    _jb("left_shift", np.left_shift, J_INT, rng=(rand_bits, rand_shift)),
    _jb("right_shift", np.right_shift, J_INT, rng=(rand_bits, rand_shift)),
    _jb("logical_and", np.logical_and, J_ALL, rng=rand_int, out_dtype=_bool_out),
    _jb("logical_or", np.logical_or, J_ALL, rng=rand_int, out_dtype=_bool_out),
    _jb("logical_xor", np.logical_xor, J_ALL, rng=rand_int, out_dtype=_bool_out),
    _jb("divmod", np.divmod, J_NUM[:-1], rng=(rand_default, rand_nonzero), shapes=BINARY_SHAPES[:3]),
    _jb("ldexp", lambda x, e: np.ldexp(x, e.astype(np.int32)), F32 + [np.dtype(np.float16)],
        fn=lambda x, e: jnp.ldexp(x, e), rng=(rand_default, rand_int), arg_dtypes=lambda dt: [dt, np.int32],
        shapes=(MATRIX,)),
    _jb("isclose", np.isclose, F32 + COMPLEX, rng=(rand_default, rand_default), out_dtype=_bool_out),
]


def _reduction(name, fn, ref, dtypes, out_dtype=None, rng=rand_default, **kw):
    shapes = kw.pop("shapes", (MATRIX, CUBE, SCALAR))
    return _ju(name, ref, dtypes, rng=rng, out_dtype=out_dtype, fn=fn, shapes=shapes, **kw)


_ALL_AXES = None
_RTOL_RED = {np.dtype(np.float16): 3e-2, bfloat16: 6e-2, np.dtype(np.float32): 1e-5}
_WHERE = np.array([[True, False, True], [False, True, True]])

JNP_REDUCTIONS = [
    _reduction("sum", jnp.sum, np.sum, J_ALL, out_dtype=sum_out, tol=_RTOL_RED),
    _reduction("sum[axis=0]", lambda x: jnp.sum(x, axis=0), lambda x: np.sum(x, axis=0), J_NUM,
               out_dtype=sum_out, shapes=(MATRIX, CUBE, VECTOR), tol=_RTOL_RED),
    _reduction("sum[axis=(0,2) keepdims]", lambda x: jnp.sum(x, axis=(0, 2), keepdims=True),
               lambda x: np.sum(x, axis=(0, 2), keepdims=True), F32, out_dtype=sum_out, shapes=(CUBE,)),
    _reduction("sum[axis=-1 dtype=f32]", lambda x: jnp.sum(x, axis=-1, dtype=jnp.float32),
               lambda x: np.sum(x, axis=-1), [np.dtype(np.int8), bfloat16], out_dtype=lambda dt: np.dtype(np.float32),
               shapes=(MATRIX,), tol=_RTOL_RED),
    _reduction("sum[where]", lambda x: jnp.sum(x, axis=1, where=_WHERE), lambda x: np.sum(x, axis=1, where=_WHERE),
               F32 + I32, out_dtype=sum_out, shapes=(MATRIX,)),
    _reduction("sum[initial]", lambda x: jnp.sum(x, initial=10), lambda x: np.sum(x, initial=10), F32 + I32,
               out_dtype=sum_out, shapes=(MATRIX,)),
    _reduction("prod", jnp.prod, np.prod, J_ALL, out_dtype=sum_out, rng=rand_int, tol=_RTOL_RED),
    _reduction("prod[axis=1 keepdims]", lambda x: jnp.prod(x, axis=1, keepdims=True),
               lambda x: np.prod(x, axis=1, keepdims=True), F32, rng=rand_int, shapes=(MATRIX, CUBE)),
    _reduction("max", jnp.max, np.max, J_ALL, rng=rand_special),
    _reduction("max[axis=0 keepdims]", lambda x: jnp.max(x, axis=0, keepdims=True),
               lambda x: np.max(x, axis=0, keepdims=True), F32 + I32, rng=rand_special, shapes=(MATRIX, CUBE)),
    _reduction("max[where initial]", lambda x: jnp.max(x, axis=1, where=_WHERE, initial=-5.),
               lambda x: np.max(x, axis=1, where=_WHERE, initial=-5.), F32, shapes=(MATRIX,)),
    _reduction("min", jnp.min, np.min, J_ALL, rng=rand_special),
    _reduction("min[axis=-1]", lambda x: jnp.min(x, axis=-1), lambda x: np.min(x, axis=-1), F32 + [np.dtype(np.uint8)],
               shapes=(MATRIX, CUBE)),
    _reduction("all", jnp.all, np.all, J_ALL, rng=rand_int, out_dtype=_bool_out),
    _reduction("all[axis=0]", lambda x: jnp.all(x, axis=0), lambda x: np.all(x, axis=0), BOOL + F32,
               rng=rand_int, out_dtype=_bool_out, shapes=(MATRIX, CUBE)),
    _reduction("any", jnp.any, np.any, J_ALL, rng=rand_int, out_dtype=_bool_out),
    _reduction("any[axis=1 keepdims]", lambda x: jnp.any(x, axis=1, keepdims=True),
               lambda x: np.any(x, axis=1, keepdims=True), BOOL + I32, rng=rand_int, out_dtype=_bool_out,
               shapes=(MATRIX, CUBE)),
    _reduction("mean", jnp.mean, np.mean, J_ALL, out_dtype=inexact_out, tol=_RTOL_RED),
    _reduction("mean[axis=0 keepdims]", lambda x: jnp.mean(x, axis=0, keepdims=True),
               lambda x: np.mean(x, axis=0, keepdims=True), F32 + I32, out_dtype=inexact_out, shapes=(MATRIX, CUBE)),
    _reduction("mean[where]", lambda x: jnp.mean(x, axis=1, where=_WHERE), lambda x: np.mean(x, axis=1, where=_WHERE),
               F32, shapes=(MATRIX,)),
    _reduction("mean[dtype=bf16]", lambda x: jnp.mean(x, dtype=jnp.bfloat16), np.mean, F32,
               out_dtype=lambda dt: bfloat16, shapes=(MATRIX,), tol=_RTOL_RED),
    _reduction("var", jnp.var, np.var, J_FLOAT_IN, out_dtype=lambda dt: real_dtype(inexact_out(dt)),
               tol={**_RTOL_RED, np.dtype(np.float32): 1e-4, np.dtype(np.complex64): 1e-4}),
    _reduction("var[axis=1 ddof=1]", lambda x: jnp.var(x, axis=1, ddof=1), lambda x: np.var(x, axis=1, ddof=1),
               F32, shapes=(MATRIX, (2, 4, 3)), tol=1e-4),
    _reduction("std", jnp.std, np.std, F32 + I32 + COMPLEX, out_dtype=lambda dt: real_dtype(inexact_out(dt)), tol=1e-4),
    _reduction("std[axis=0 keepdims]", lambda x: jnp.std(x, axis=0, keepdims=True),
               lambda x: np.std(x, axis=0, keepdims=True), F32, shapes=(MATRIX, CUBE), tol=1e-4),
    _reduction("argmax", jnp.argmax, np.argmax, J_ALL[:-1], out_dtype=_int_out, rng=rand_int),
    _reduction("argmax[axis=1]", lambda x: jnp.argmax(x, axis=1), lambda x: np.argmax(x, axis=1), F32 + I32,
               out_dtype=_int_out, rng=rand_int, shapes=(MATRIX, CUBE)),
    _reduction("argmax[axis=0 keepdims]", lambda x: jnp.argmax(x, axis=0, keepdims=True),
               lambda x: np.argmax(x, axis=0, keepdims=True), F32, out_dtype=_int_out, shapes=(MATRIX,)),
    _reduction("argmin", jnp.argmin, np.argmin, J_ALL[:-1], out_dtype=_int_out, rng=rand_int),
    _reduction("argmin[axis=-1 keepdims]", lambda x: jnp.argmin(x, axis=-1, keepdims=True),
               lambda x: np.argmin(x, axis=-1, keepdims=True), F32 + I32, out_dtype=_int_out, rng=rand_int,
               shapes=(MATRIX, CUBE)),
    _reduction("cumsum", jnp.cumsum, np.cumsum, J_ALL, out_dtype=_numeric_out, rng=rand_int,
               shapes=(MATRIX, VECTOR, SCALAR)),
    _reduction("cumsum[axis=1]", lambda x: jnp.cumsum(x, axis=1), lambda x: np.cumsum(x, axis=1), F32 + [np.dtype(np.int8)],
               rng=rand_int, shapes=(MATRIX, (2, 9))),
    _reduction("cumprod", jnp.cumprod, np.cumprod, F32 + I32, out_dtype=_numeric_out, rng=rand_int,
               shapes=(MATRIX, VECTOR)),
    _reduction("cumprod[axis=0 dtype=f32]", lambda x: jnp.cumprod(x, axis=0, dtype=jnp.float32),
               lambda x: np.cumprod(x, axis=0), I32, out_dtype=lambda dt: np.dtype(np.float32), rng=rand_int,
               shapes=(MATRIX, (5, 2))),
    _reduction("count_nonzero", jnp.count_nonzero, np.count_nonzero, J_ALL, out_dtype=_int_out, rng=rand_int),
    _reduction("count_nonzero[axis=0]", lambda x: jnp.count_nonzero(x, axis=0), lambda x: np.count_nonzero(x, axis=0),
               F32, out_dtype=_int_out, rng=rand_int, shapes=(MATRIX,)),
    _reduction("ptp", jnp.ptp, np.ptp, J_NUM[:-1]),
    _reduction("ptp[axis=1]", lambda x: jnp.ptp(x, axis=1), lambda x: np.ptp(x, axis=1), F32, shapes=(MATRIX,)),
]

J_SOME = BOOL + I32 + F32 + COMPLEX  # for data movement: one dtype per kind


def _jshape(name, fn, ref, shape, dtypes=J_SOME, **kw):
    return op(name, fn, 1, dtypes, ref=ref, shapes=(shape,), **kw)


def _jshape_rows():
    S3 = (2, 3, 4)
    rows = [
        ("reshape", lambda x: jnp.reshape(x, (3, -1)), lambda x: np.reshape(x, (3, -1)), S3),
        ("reshape[order=F]", lambda x: jnp.reshape(x, (4, 6), order="F"), lambda x: np.reshape(x, (4, 6), order="F"), S3),
        ("ravel", jnp.ravel, np.ravel, S3),
        ("transpose", jnp.transpose, np.transpose, S3),
        ("transpose[axes]", lambda x: jnp.transpose(x, (1, -1, 0)), lambda x: np.transpose(x, (1, -1, 0)), S3),
        ("permute_dims", lambda x: jnp.permute_dims(x, (2, 0, 1)), lambda x: np.permute_dims(x, (2, 0, 1)), S3),
        ("matrix_transpose", jnp.matrix_transpose, np.matrix_transpose, S3),
        ("swapaxes", lambda x: jnp.swapaxes(x, 0, -1), lambda x: np.swapaxes(x, 0, -1), S3),
        ("moveaxis", lambda x: jnp.moveaxis(x, 0, -1), lambda x: np.moveaxis(x, 0, -1), S3),
        ("moveaxis[multiple]", lambda x: jnp.moveaxis(x, (0, 1), (2, 0)), lambda x: np.moveaxis(x, (0, 1), (2, 0)), S3),
        ("squeeze", jnp.squeeze, np.squeeze, (1, 3, 1)),
        ("squeeze[axis]", lambda x: jnp.squeeze(x, axis=-1), lambda x: np.squeeze(x, axis=-1), (1, 3, 1)),
        ("expand_dims", lambda x: jnp.expand_dims(x, (0, -1)), lambda x: np.expand_dims(x, (0, -1)), (2, 3)),
        ("broadcast_to", lambda x: jnp.broadcast_to(x, (4, 2, 3)), lambda x: np.broadcast_to(x, (4, 2, 3)), (2, 1)),
        ("atleast_1d", jnp.atleast_1d, np.atleast_1d, ()),
        ("atleast_2d", jnp.atleast_2d, np.atleast_2d, (3,)),
        ("atleast_3d", jnp.atleast_3d, np.atleast_3d, (2, 3)),
        ("flip", jnp.flip, np.flip, S3),
        ("flip[axis]", lambda x: jnp.flip(x, (0, 2)), lambda x: np.flip(x, (0, 2)), S3),
        ("fliplr", jnp.fliplr, np.fliplr, (2, 3)),
        ("flipud", jnp.flipud, np.flipud, (2, 3)),
        ("rot90", jnp.rot90, np.rot90, (2, 3)),
        ("rot90[k=2]", lambda x: jnp.rot90(x, 2), lambda x: np.rot90(x, 2), (2, 3)),
        ("rot90[k=-1 axes]", lambda x: jnp.rot90(x, -1, axes=(1, 2)), lambda x: np.rot90(x, -1, axes=(1, 2)), S3),
        ("tile", lambda x: jnp.tile(x, 2), lambda x: np.tile(x, 2), (2, 3)),
        ("tile[reps]", lambda x: jnp.tile(x, (2, 1, 3)), lambda x: np.tile(x, (2, 1, 3)), (2, 3)),
        ("tile[scalar]", lambda x: jnp.tile(x, (2, 2)), lambda x: np.tile(x, (2, 2)), ()),
        ("repeat", lambda x: jnp.repeat(x, 2), lambda x: np.repeat(x, 2), (2, 3)),
        ("repeat[axis]", lambda x: jnp.repeat(x, 3, axis=1), lambda x: np.repeat(x, 3, axis=1), (2, 3)),
        ("repeat[per element]", lambda x: jnp.repeat(x, [1, 0, 2], axis=-1), lambda x: np.repeat(x, [1, 0, 2], axis=-1), (2, 3)),
        ("pad", lambda x: jnp.pad(x, 1), lambda x: np.pad(x, 1), (2, 3)),
        ("pad[widths constant_values]", lambda x: jnp.pad(x, ((1, 0), (0, 2)), constant_values=7),
         lambda x: np.pad(x, ((1, 0), (0, 2)), constant_values=7), (2, 3)),
        ("pad[edge]", lambda x: jnp.pad(x, ((2, 1), (1, 3)), mode="edge"), lambda x: np.pad(x, ((2, 1), (1, 3)), mode="edge"), (2, 3)),
        ("pad[wrap]", lambda x: jnp.pad(x, ((2, 1), (4, 3)), mode="wrap"), lambda x: np.pad(x, ((2, 1), (4, 3)), mode="wrap"), (2, 3)),
        ("pad[reflect]", lambda x: jnp.pad(x, ((2, 1), (5, 3)), mode="reflect"), lambda x: np.pad(x, ((2, 1), (5, 3)), mode="reflect"), (2, 3)),
        ("pad[reflect odd]", lambda x: jnp.pad(x, ((2, 1), (5, 3)), mode="reflect", reflect_type="odd"), lambda x: np.pad(x, ((2, 1), (5, 3)), mode="reflect", reflect_type="odd"), (2, 3)),
        ("pad[symmetric]", lambda x: jnp.pad(x, ((2, 1), (7, 3)), mode="symmetric"), lambda x: np.pad(x, ((2, 1), (7, 3)), mode="symmetric"), (2, 3)),
        ("pad[symmetric odd]", lambda x: jnp.pad(x, ((3, 0), (1, 4)), mode="symmetric", reflect_type="odd"), lambda x: np.pad(x, ((3, 0), (1, 4)), mode="symmetric", reflect_type="odd"), (2, 3)),
        ("pad[linear_ramp]", lambda x: jnp.pad(x, ((2, 1), (1, 3)), mode="linear_ramp", end_values=((1, -2), (4, 0))), lambda x: np.pad(x, ((2, 1), (1, 3)), mode="linear_ramp", end_values=((1, -2), (4, 0))), (2, 3)),
        ("pad[maximum]", lambda x: jnp.pad(x, ((2, 1), (1, 3)), mode="maximum"), lambda x: np.pad(x, ((2, 1), (1, 3)), mode="maximum"), (2, 3)),
        ("pad[minimum stat_length]", lambda x: jnp.pad(x, ((2, 1), (1, 3)), mode="minimum", stat_length=2), lambda x: np.pad(x, ((2, 1), (1, 3)), mode="minimum", stat_length=2), (2, 3)),
        ("pad[mean stat_length]", lambda x: jnp.pad(x, ((2, 1), (1, 3)), mode="mean", stat_length=((1, 2), (3, 1))), lambda x: np.pad(x, ((2, 1), (1, 3)), mode="mean", stat_length=((1, 2), (3, 1))), (2, 3)),
        ("diagonal", jnp.diagonal, np.diagonal, (3, 4)),
        ("diagonal[offset]", lambda x: jnp.diagonal(x, 1), lambda x: np.diagonal(x, 1), (3, 4)),
        ("diagonal[offset<0 axes]", lambda x: jnp.diagonal(x, -1, 0, 2), lambda x: np.diagonal(x, -1, 0, 2), S3),
        ("tril", jnp.tril, np.tril, (3, 4)),
        ("tril[k=-1 batched]", lambda x: jnp.tril(x, -1), lambda x: np.tril(x, -1), S3),
        ("triu", jnp.triu, np.triu, (3, 4)),
        ("triu[k=1]", lambda x: jnp.triu(x, 1), lambda x: np.triu(x, 1), (4, 3)),
    ]
    return [_jshape(n, f, r, s) for n, f, r, s in rows]


def _jmulti(name, fn, ref, shapes, dtypes=J_SOME, **kw):
    return op(name, fn, len(shapes), dtypes, ref=ref, shapes=(list(shapes),), **kw)


JNP_SHAPE_OPS = _jshape_rows() + [
    _jmulti("concatenate", lambda a, b: jnp.concatenate([a, b]), lambda a, b: np.concatenate([a, b]), [(2, 3), (1, 3)]),
    _jmulti("concatenate[axis=-1]", lambda a, b, c: jnp.concatenate([a, b, c], axis=-1),
            lambda a, b, c: np.concatenate([a, b, c], axis=-1), [(2, 3), (2, 1), (2, 2)]),
    _jmulti("concatenate[axis=None]", lambda a, b: jnp.concatenate([a, b], axis=None),
            lambda a, b: np.concatenate([a, b], axis=None), [(2, 3), (4,)]),
    _jmulti("concat", lambda a, b: jnp.concat([a, b], axis=1), lambda a, b: np.concat([a, b], axis=1), [(2, 3), (2, 2)]),
    _jmulti("stack", lambda a, b: jnp.stack([a, b]), lambda a, b: np.stack([a, b]), [(2, 3), (2, 3)]),
    _jmulti("stack[axis=-1]", lambda a, b: jnp.stack([a, b], axis=-1), lambda a, b: np.stack([a, b], axis=-1), [(2, 3), (2, 3)]),
    _jmulti("hstack", lambda a, b: jnp.hstack([a, b]), lambda a, b: np.hstack([a, b]), [(2, 3), (2, 1)]),
    _jmulti("hstack[1d]", lambda a, b: jnp.hstack([a, b]), lambda a, b: np.hstack([a, b]), [(3,), ()]),
    _jmulti("vstack", lambda a, b: jnp.vstack([a, b]), lambda a, b: np.vstack([a, b]), [(3,), (2, 3)]),
    _jmulti("dstack", lambda a, b: jnp.dstack([a, b]), lambda a, b: np.dstack([a, b]), [(2, 3), (2, 3)]),
    _jmulti("column_stack", lambda a, b: jnp.column_stack([a, b]), lambda a, b: np.column_stack([a, b]), [(3,), (3, 2)]),
    _jmulti("broadcast_arrays", jnp.broadcast_arrays, np.broadcast_arrays, [(2, 1), (3,)]),
    _jmulti("where", jnp.where, np.where, [(2, 3), (2, 3), (2, 3)], rng=(rand_bool, rand_default, rand_default),
            arg_dtypes=lambda dt: [np.bool_, dt, dt]),
    _jmulti("where[broadcast]", jnp.where, np.where, [(2, 1), (3,), ()], rng=(rand_bool, rand_default, rand_default),
            arg_dtypes=lambda dt: [np.bool_, dt, dt]),
    _jmulti("where[int condition]", jnp.where, np.where, [(2, 3), (2, 3), ()], rng=(rand_int, rand_default, rand_default),
            arg_dtypes=lambda dt: [np.int32, dt, dt], dtypes=F32),
    _jmulti("clip", lambda x: jnp.clip(x, 1, 2), lambda x: np.clip(x, 1, 2), [(2, 3)], dtypes=F32 + I32 + [np.dtype(np.uint8)]),
    _jmulti("clip[arrays]", jnp.clip, np.clip, [(2, 3), (3,), (2, 1)], dtypes=F32 + I32,
            rng=(rand_default, rand_fill(-1), rand_fill(2))),
    _jmulti("clip[max only]", lambda x: jnp.clip(x, max=0.5), lambda x: np.clip(x, None, 0.5), [(2, 3)], dtypes=F32),
]


def _split(name, fn, ref, shape):
    return op(name, fn, 1, J_SOME, ref=ref, shapes=(shape,))


JNP_SPLITS = [
    _split("split", lambda x: jnp.split(x, 2), lambda x: np.split(x, 2), (4, 3)),
    _split("split[indices axis]", lambda x: jnp.split(x, [1, 4], axis=1), lambda x: np.split(x, [1, 4], axis=1), (2, 6)),
    _split("split[negative and empty]", lambda x: jnp.split(x, [-2, 1, 9]), lambda x: np.split(x, [-2, 1, 9]), (5,)),
    _split("array_split", lambda x: jnp.array_split(x, 3), lambda x: np.array_split(x, 3), (7, 2)),
    _split("array_split[more sections than items]", lambda x: jnp.array_split(x, 4, axis=-1),
           lambda x: np.array_split(x, 4, axis=-1), (2, 3)),
    _split("hsplit", lambda x: jnp.hsplit(x, 3), lambda x: np.hsplit(x, 3), (2, 6)),
    _split("vsplit", lambda x: jnp.vsplit(x, [1]), lambda x: np.vsplit(x, [1]), (3, 2)),
    _split("dsplit", lambda x: jnp.dsplit(x, 2), lambda x: np.dsplit(x, 2), (1, 2, 4)),
]


def _jlin(name, fn, ref, shape_sets, dtypes=F32 + [np.dtype(np.int8)] + COMPLEX + [bfloat16], **kw):
    return op(name, fn, len(shape_sets[0]), dtypes, ref=ref, shapes=tuple(list(s) for s in shape_sets),
              rng=rand_int, tol={bfloat16: 3e-2}, **kw)


JNP_LINALG = [
    _jlin("dot", jnp.dot, np.dot, [[(2, 3), (3, 4)], [(3,), (3,)], [(2, 3), (3,)], [(), (2, 3)], [(2, 2, 3), (4, 3, 5)]]),
    _jlin("matmul", jnp.matmul, np.matmul, [[(2, 3), (3, 4)], [(3,), (3, 4)], [(2, 3), (3,)], [(3,), (3,)],
                                            [(5, 2, 3), (3, 4)], [(2, 1, 2, 3), (3, 3, 4)], [(1, 2, 3), (4, 3, 2)]]),
    _jlin("vdot", jnp.vdot, np.vdot, [[(2, 3), (3, 2)], [(3,), (3,)]]),
    _jlin("vecdot", jnp.vecdot, np.vecdot, [[(2, 3), (2, 3)], [(4, 1, 3), (2, 3)]]),
    _jlin("inner", jnp.inner, np.inner, [[(2, 3), (4, 3)], [(3,), (3,)], [(), (2,)]]),
    _jlin("outer", jnp.outer, np.outer, [[(3,), (4,)], [(2, 2), (3,)]]),
    _jlin("tensordot", jnp.tensordot, np.tensordot, [[(2, 3, 4), (3, 4, 5)]]),
    _jlin("tensordot[axes=1]", lambda a, b: jnp.tensordot(a, b, 1), lambda a, b: np.tensordot(a, b, 1), [[(2, 3), (3, 4)]]),
    _jlin("tensordot[axes pairs]", lambda a, b: jnp.tensordot(a, b, ((0, 2), (1, 0))),
          lambda a, b: np.tensordot(a, b, ((0, 2), (1, 0))), [[(2, 3, 4), (4, 2, 5)]]),
    _jlin("trace", jnp.trace, np.trace, [[(3, 4)], [(2, 2)]], out_dtype=sum_out),
    _jlin("trace[offset axes]", lambda x: jnp.trace(x, 1, 1, 2), lambda x: np.trace(x, 1, 1, 2), [[(2, 3, 4)]],
          out_dtype=sum_out),
    *[_jlin(f"einsum[{spec}]", (lambda s: lambda *xs: jnp.einsum(s, *xs))(spec),
            (lambda s: lambda *xs: np.einsum(s, *xs))(spec), [shapes])
      for spec, shapes in [("ij,jk->ik", [(2, 3), (3, 4)]), ("ij,jk", [(2, 3), (3, 4)]),
                           ("ii->i", [(3, 3)]), ("ii", [(3, 3)]), ("ij->", [(2, 3)]), ("ij->ji", [(2, 3)]),
                           ("bij,bjk->bik", [(2, 3, 4), (2, 4, 5)]), ("i,i->", [(3,), (3,)]),
                           ("i,j->ij", [(2,), (3,)]), ("bii->bi", [(2, 3, 3)]), ("iij->j", [(2, 2, 3)]),
                           ("ij,jk,kl->il", [(2, 3), (3, 4), (4, 2)]), ("...ij,...jk->...ik", [(5, 2, 3), (5, 3, 2)]),
                           ("ijk,ikl->", [(2, 3, 4), (2, 4, 3)]), ("ab,cd->abcd", [(2, 2), (1, 3)])]],
]

def _jsort(name, fn, ref, nargs=1, dtypes=J_ALL[:-1], shapes=(MATRIX, VECTOR), **kw):
    return op(name, fn, nargs, dtypes, ref=ref, shapes=shapes, **kw)


def _np_partition_as_jax(x, kth, axis=-1):
    """JAX's arrangement: the kth+1 smallest ascending, then the rest descending."""
    s = np.moveaxis(np.sort(x, axis=axis), axis, -1)
    return np.moveaxis(np.concatenate([s[..., :kth + 1], s[..., kth + 1:][..., ::-1]], -1), -1, axis)


JNP_SORTING = [
    _jsort("sort", jnp.sort, np.sort, dtypes=J_ALL, rng=rand_special),
    _jsort("sort[axis=None descending]", lambda x: jnp.sort(x, axis=None, descending=True),
           lambda x: np.sort(x, axis=None)[::-1], dtypes=F32 + I32, shapes=(MATRIX, CUBE)),
    _jsort("sort[axis=0 ties]", lambda x: jnp.sort(x, axis=0), lambda x: np.sort(x, axis=0), rng=rand_int),
    _jsort("argsort", jnp.argsort, lambda x: np.argsort(x, kind="stable"), rng=rand_int, out_dtype=_int_out),
    _jsort("argsort[axis=0 descending]", lambda x: jnp.argsort(x, axis=0, descending=True),
           lambda x: np.flip(np.argsort(np.flip(x, 0), axis=0, kind="stable"), 0) * -1 + (x.shape[0] - 1),
           rng=rand_int, out_dtype=_int_out, dtypes=F32 + I32, shapes=(MATRIX, (5, 2))),
    _jsort("lexsort", lambda a, b: jnp.lexsort((a, b)), lambda a, b: np.lexsort((a, b)), nargs=2,
           rng=rand_int, out_dtype=_int_out, dtypes=F32 + I32 + BOOL),
    _jsort("partition", lambda x: jnp.partition(x, 1), lambda x: _np_partition_as_jax(x, 1), dtypes=J_ALL[1:-1],
           shapes=(MATRIX, (2, 5))),
    _jsort("argpartition", lambda x: jnp.sort(jnp.argpartition(x, 1)[..., :2], axis=-1),
           lambda x: np.sort(np.argsort(x, kind="stable")[..., :2], axis=-1), dtypes=F32 + I32,
           out_dtype=_int_out, shapes=(MATRIX, (2, 5))),
    _jsort("sort_complex", jnp.sort_complex, np.sort_complex, dtypes=I32 + F32 + COMPLEX,
           out_dtype=lambda dt: np.dtype(np.complex64)),
    _jsort("searchsorted", lambda a, v: jnp.searchsorted(jnp.sort(a), v),
           lambda a, v: np.searchsorted(np.sort(a), v), nargs=2, rng=rand_int, out_dtype=_int_out,
           dtypes=F32 + I32, shapes=([(7,), (2, 3)], [(4,), ()])),
    _jsort("searchsorted[right compare_all]", lambda a, v: jnp.searchsorted(jnp.sort(a), v, "right", method="compare_all"),
           lambda a, v: np.searchsorted(np.sort(a), v, "right"), nargs=2, rng=rand_special, out_dtype=_int_out,
           dtypes=F32, shapes=([(7,), (2, 3)],)),
    _jsort("digitize", lambda x, b: jnp.digitize(x, jnp.sort(b)), lambda x, b: np.digitize(x, np.sort(b)), nargs=2,
           rng=rand_int, out_dtype=_int_out, dtypes=F32 + I32, shapes=([(2, 3), (4,)],)),
]

_QS = np.array([0.1, 0.5, 0.8])  # float64: the default float, so x64 runs compute in float64
_STAT_IN = F32 + I32


def _jstat(name, fn, ref, nargs=1, dtypes=_STAT_IN, shapes=(MATRIX, (3, 5)), out_dtype=inexact_out, **kw):
    return op(name, fn, nargs, dtypes, ref=ref, shapes=shapes, out_dtype=out_dtype, **kw)


JNP_STATISTICS = [
    _jstat("quantile", lambda x: jnp.quantile(x, _QS, axis=1), lambda x: np.quantile(x, _QS, axis=1)),
    _jstat("quantile[axis=None lower]", lambda x: jnp.quantile(x, 0.3, method="lower"),
           lambda x: np.quantile(x, 0.3, method="lower"), out_dtype=None, dtypes=F32),
    _jstat("nanquantile", lambda x: jnp.nanquantile(x, _QS, axis=0, method="lower"),
           lambda x: np.nanquantile(x, _QS, axis=0, method="lower"), dtypes=F32, rng=rand_special),
    _jstat("percentile", lambda x: jnp.percentile(x, 30., axis=0, keepdims=True),
           lambda x: np.percentile(x, 30., axis=0, keepdims=True)),
    _jstat("nanpercentile", lambda x: jnp.nanpercentile(x, 50., method="higher"),
           lambda x: np.nanpercentile(x, 50., method="higher"), dtypes=F32, rng=rand_special),
    _jstat("median", jnp.median, np.median),
    _jstat("median[axis=1]", lambda x: jnp.median(x, axis=1), lambda x: np.median(x, axis=1), dtypes=F32),
    _jstat("nanmedian", lambda x: jnp.nanmedian(x, axis=0), lambda x: np.nanmedian(x, axis=0), dtypes=F32,
           rng=rand_special, shapes=((5, 3),)),
    _jstat("nansum", lambda x: jnp.nansum(x, axis=1), lambda x: np.nansum(x, axis=1), rng=rand_special,
           out_dtype=sum_out),
    _jstat("nanprod", jnp.nanprod, np.nanprod, rng=rand_special, out_dtype=sum_out, tol=1e-4),
    _jstat("nanmax", lambda x: jnp.nanmax(x, axis=0), lambda x: np.nanmax(x, axis=0), rng=rand_special,
           out_dtype=None),
    _jstat("nanmin", lambda x: jnp.nanmin(x, axis=1), lambda x: np.nanmin(x, axis=1), rng=rand_special,
           out_dtype=None),
    _jstat("nanmean", lambda x: jnp.nanmean(x, axis=1), lambda x: np.nanmean(x, axis=1), rng=rand_special),
    _jstat("nanvar", lambda x: jnp.nanvar(x, axis=0, ddof=1), lambda x: np.nanvar(x, axis=0, ddof=1),
           rng=rand_special, tol=1e-4, shapes=((4, 3),)),
    _jstat("nanstd", jnp.nanstd, np.nanstd, rng=rand_special, tol=1e-4),
    _jstat("nanargmax", lambda x: jnp.nanargmax(x, axis=1), lambda x: np.nanargmax(x, axis=1),
           out_dtype=_int_out, rng=rand_int),
    _jstat("nanargmin", jnp.nanargmin, np.nanargmin, out_dtype=_int_out, rng=rand_special),
    _jstat("nancumsum", lambda x: jnp.nancumsum(x, axis=1), lambda x: np.nancumsum(x, axis=1),
           out_dtype=None, rng=rand_special),
    _jstat("nancumprod", jnp.nancumprod, np.nancumprod, out_dtype=None, rng=rand_special, tol=1e-4),
    _jstat("average", lambda x, w: jnp.average(x, axis=1, weights=w), lambda x, w: np.average(x, axis=1, weights=w),
           nargs=2, dtypes=F32, rng=(rand_default, rand_positive), shapes=([(2, 3), (3,)],)),
    _jstat("average[returned]", lambda x: jnp.average(x, axis=0, returned=True),
           lambda x: np.average(x, axis=0, returned=True)),
    _jstat("cov", jnp.cov, np.cov, tol=1e-4, shapes=(MATRIX, (3, 5), (4,))),
    _jstat("cov[rowvar=False aweights]", lambda x, w: jnp.cov(x, rowvar=False, aweights=w),
           lambda x, w: np.cov(x, rowvar=False, aweights=w), nargs=2, dtypes=F32,
           rng=(rand_default, rand_positive), shapes=([(5, 3), (5,)],), tol=1e-4),
    _jstat("corrcoef", jnp.corrcoef, np.corrcoef, tol=1e-4, shapes=((3, 5),)),
    _jstat("histogram", lambda x: jnp.histogram(x, bins=3), lambda x: np.histogram(x, bins=3),
           out_dtype=None, dtypes=F32, shapes=((4, 5),), tol=1e-5),
    _jstat("histogram_bin_edges", lambda x: jnp.histogram_bin_edges(x, 4), lambda x: np.histogram_bin_edges(x, 4),
           dtypes=F32, shapes=((4, 5),)),
    _jstat("histogram2d", lambda x, y: jnp.histogram2d(x, y, bins=3)[0], lambda x, y: np.histogram2d(x, y, bins=3)[0],
           nargs=2, dtypes=F32, shapes=((9,),), out_dtype=_int_out),
    _jstat("histogramdd", lambda x: jnp.histogramdd(x, bins=2)[0], lambda x: np.histogramdd(x, bins=2)[0],
           dtypes=F32, shapes=((9, 3),), out_dtype=_int_out),
]

# -- the rest of jnp (issue 12 part 4): windows, polynomials, calculus, arrays, functional ------

def rand_sorted(rs, shape, dtype):
    """Increasing values (interp's sample points)."""
    return _cast(np.sort(rs.uniform(-3, 3, shape)) + np.arange(np.prod(shape)).reshape(shape) * 0.1, dtype)


def _jwindow(name, *args):
    return op(f"{name}{list(args)}", lambda: getattr(jnp, name)(*args), 0, F32,
              ref=lambda: getattr(np, name)(*args), shapes=((),))


_F32_I32 = F32 + I32


def _piecewise_np(x):
    return np.piecewise(x, [x < 0, x > 1], [lambda v: -v, lambda v: 2 * v, 0.5])


JNP_EXTRA = [
    *[_jwindow(name, m) for name in ("bartlett", "blackman", "hamming", "hanning") for m in (1, 6)],
    _jwindow("kaiser", 7, 2.5), _jwindow("kaiser", 1, 3.0),
    _ju("i0", np.i0, _F32_I32 + [bfloat16], out_dtype=inexact_out),
    _ju("nan_to_num", lambda x: np.nan_to_num(x.astype(np.float32)), F32 + I32 + BOOL, rng=rand_special),
    _ju("iscomplex", np.iscomplex, J_ALL, out_dtype=_bool_out),
    _ju("isreal", np.isreal, J_ALL, out_dtype=_bool_out),
    _ju("modf", np.modf, _F32_I32, out_dtype=inexact_out),
    _jb("fmax", np.fmax, _F32_I32, rng=rand_special),
    _jb("fmin", np.fmin, _F32_I32, rng=rand_special),
    _jb("gcd", np.gcd, J_INT, rng=rand_int),
    _jb("lcm", np.lcm, J_INT, rng=rand_int),
    _jshape("diff", jnp.diff, np.diff, (2, 5)),
    _jmulti("diff[n=2 axis=0 prepend append]", lambda a, p: jnp.diff(a, 2, 0, prepend=p, append=p),
            lambda a, p: np.diff(a, 2, 0, prepend=p, append=p), [(3, 4), ()], dtypes=_F32_I32),
    _jshape("ediff1d", jnp.ediff1d, np.ediff1d, (2, 3), dtypes=_F32_I32),
    _jmulti("ediff1d[to_begin to_end]", lambda a, b: jnp.ediff1d(a, to_begin=b, to_end=b[:1]),
            lambda a, b: np.ediff1d(a, to_begin=b, to_end=b[:1]), [(5,), (2,)], dtypes=_F32_I32),
    _jshape("gradient", jnp.gradient, np.gradient, (3, 5), dtypes=_F32_I32, out_dtype=inexact_out),
    _jmulti("gradient[coordinates edge_order=2]", lambda f, x: jnp.gradient(f, x, axis=1, edge_order=2),
            lambda f, x: np.gradient(f, x, axis=1, edge_order=2), [(2, 5), (5,)], dtypes=F32,
            rng=(rand_default, rand_sorted), tol=1e-4),
    _jshape("trapezoid", jnp.trapezoid, np.trapezoid, (3, 5), dtypes=_F32_I32, out_dtype=inexact_out),
    _jmulti("trapezoid[x axis=0]", lambda y, x: jnp.trapezoid(y, x, axis=0), lambda y, x: np.trapezoid(y, x, axis=0),
            [(4, 2), (4,)], dtypes=F32, rng=(rand_default, rand_sorted)),
    _jmulti("interp", jnp.interp, np.interp, [(7,), (5,), (5,)], dtypes=F32,
            rng=(rand_default, rand_sorted, rand_default), tol=1e-4),
    _jmulti("interp[left right]", lambda x, xp, fp: jnp.interp(x, xp, fp, left=-9.0, right=9.0),
            lambda x, xp, fp: np.interp(x, xp, fp, left=-9.0, right=9.0), [(2, 3), (4,), (4,)], dtypes=F32,
            rng=(rand_default, rand_sorted, rand_default), tol=1e-4),
    _jshape("unwrap", jnp.unwrap, np.unwrap, (2, 6), dtypes=F32, tol=1e-5),
    _jshape("unwrap[period axis=0]", lambda p: jnp.unwrap(p, axis=0, period=5), lambda p: np.unwrap(p, axis=0, period=5),
            (5, 2), dtypes=F32, rng=rand_int),  # integer-valued floats: steps never sit on period/2 (a jump)
    _jmulti("append", jnp.append, np.append, [(2, 3), (3,)]),
    _jmulti("append[axis=0]", lambda a, b: jnp.append(a, b, axis=0), lambda a, b: np.append(a, b, axis=0), [(2, 3), (1, 3)]),
    _jmulti("block", lambda a, b, c: jnp.block([[a, b], [c]]), lambda a, b, c: np.block([[a, b], [c]]),
            [(2, 2), (2, 1), (1, 3)]),
    _jshape("resize", lambda x: jnp.resize(x, (3, 5)), lambda x: np.resize(x, (3, 5)), (2, 3)),
    _jshape("roll", lambda x: jnp.roll(x, 4), lambda x: np.roll(x, 4), (2, 3)),
    _jshape("roll[axes]", lambda x: jnp.roll(x, (1, -2), (0, 2)), lambda x: np.roll(x, (1, -2), (0, 2)), (2, 3, 4)),
    _jshape("rollaxis", lambda x: jnp.rollaxis(x, 2, 1), lambda x: np.rollaxis(x, 2, 1), (2, 3, 4)),
    _jshape("unstack", lambda x: jnp.unstack(x, axis=1), lambda x: list(np.moveaxis(x, 1, 0)), (2, 3)),
    _jmulti("kron", jnp.kron, np.kron, [(2, 3), (2, 2)]),
    _jmulti("kron[ranks differ]", jnp.kron, np.kron, [(3,), (2, 2)], dtypes=_F32_I32),
    _jmulti("meshgrid", jnp.meshgrid, np.meshgrid, [(3,), (2,), (4,)]),
    _jmulti("meshgrid[ij sparse]", lambda a, b: jnp.meshgrid(a, b, indexing="ij", sparse=True),
            lambda a, b: np.meshgrid(a, b, indexing="ij", sparse=True), [(3,), (2,)]),
    op("tri", lambda: jnp.tri(3, 4, 1), 0, F32, ref=lambda: np.tri(3, 4, 1), shapes=((),)),
    op("tri[dtype]", lambda: jnp.tri(3, k=-1, dtype=jnp.int8), 0, [np.dtype(np.int8)], ref=lambda: np.tri(3, k=-1),
       shapes=((),)),
    _jshape("diag", jnp.diag, np.diag, (3,)),
    _jshape("diag[k=-1]", lambda x: jnp.diag(x, -1), lambda x: np.diag(x, -1), (3,)),
    _jshape("diag[matrix k=1]", lambda x: jnp.diag(x, 1), lambda x: np.diag(x, 1), (3, 4)),
    _jshape("diagflat", lambda x: jnp.diagflat(x, 2), lambda x: np.diagflat(x, 2), (2, 2)),
    _jmulti("geomspace", lambda a, b: jnp.geomspace(a, b, 5), lambda a, b: np.geomspace(a, b, 5), [(), ()],
            dtypes=_F32_I32, rng=rand_positive, out_dtype=inexact_out, tol=1e-5),
    _jmulti("geomspace[arrays axis=1 no endpoint]", lambda a, b: jnp.geomspace(a, b, 4, endpoint=False, axis=1),
            lambda a, b: np.geomspace(a, b, 4, endpoint=False, axis=1), [(2,), (2,)], dtypes=F32,
            rng=rand_positive, tol=1e-5),
    _jshape("astype", lambda x: jnp.astype(x, jnp.int8), lambda x: x.astype(np.int8), (2, 3), dtypes=BOOL + I32 + F32,
            rng=rand_int, out_dtype=lambda dt: np.dtype(np.int8)),
    _jshape("copy", jnp.copy, np.copy, (2, 3)),
    _jmulti("array_equiv", jnp.array_equiv, np.array_equiv, [(2, 3), (3,)], rng=(rand_fill(1), rand_fill(1)),
            out_dtype=_bool_out),
    _jshape("packbits", lambda x: jnp.packbits(x, axis=1), lambda x: np.packbits(x, axis=1), (2, 11),
            dtypes=BOOL + I32, rng=rand_int, out_dtype=lambda dt: np.dtype(np.uint8)),
    _jshape("packbits[little flat]", lambda x: jnp.packbits(x, bitorder="little"),
            lambda x: np.packbits(x, bitorder="little"), (3, 4), dtypes=BOOL, rng=rand_int,
            out_dtype=lambda dt: np.dtype(np.uint8)),
    _jshape("unpackbits", lambda x: jnp.unpackbits(x, axis=0, count=10), lambda x: np.unpackbits(x.astype(np.uint8), axis=0, count=10),
            (2, 3), dtypes=[np.dtype(np.uint8)], rng=rand_bits),
    _jshape("unpackbits[little]", lambda x: jnp.unpackbits(x, bitorder="little", count=5),
            lambda x: np.unpackbits(x.astype(np.uint8), bitorder="little", count=5), (2, 2), dtypes=[np.dtype(np.uint8)],
            rng=rand_bits),
    _jmulti("cross", jnp.cross, np.cross, [(4, 3), (4, 3)], dtypes=_F32_I32),
    _jmulti("cross[2 and 3 axisc=0]", lambda a, b: jnp.cross(a, b, axisc=0),
            lambda a, b: np.cross(np.concatenate([a, np.zeros_like(a[:, :1])], 1), b, axisc=0), [(4, 2), (1, 3)], dtypes=F32),
    _jmulti("matvec", jnp.matvec, np.matvec, [(4, 2, 3), (3,)], dtypes=F32 + I32 + COMPLEX),
    _jmulti("vecmat", jnp.vecmat, np.vecmat, [(2,), (4, 2, 3)], dtypes=F32 + COMPLEX),
    _jmulti("polyval", jnp.polyval, np.polyval, [(4,), (2, 3)], dtypes=_F32_I32, rng=rand_int),
    _jmulti("polyadd", jnp.polyadd, np.polyadd, [(2,), (4,)], dtypes=_F32_I32),
    _jmulti("polysub", jnp.polysub, np.polysub, [(4,), (3,)], dtypes=_F32_I32),
    _jmulti("polymul", jnp.polymul, np.polymul, [(4,), (3,)], dtypes=_F32_I32, rng=rand_int, out_dtype=inexact_out),
    _jshape("polyder", lambda p: jnp.polyder(p, 2), lambda p: np.polyder(p, 2), (5,), dtypes=_F32_I32,
            out_dtype=inexact_out),
    _jshape("polyint", lambda p: jnp.polyint(p, 2, 3.0), lambda p: np.polyint(p, 2, 3.0), (4,), dtypes=_F32_I32,
            out_dtype=inexact_out),
    _jshape("vander", lambda x: jnp.vander(x, 4), lambda x: np.vander(x, 4), (3,), dtypes=_F32_I32, rng=rand_int),
    _jshape("vander[increasing]", lambda x: jnp.vander(x, increasing=True), lambda x: np.vander(x, increasing=True),
            (4,), dtypes=F32),
    _jmulti("select", lambda c1, c2, a, b: jnp.select([c1, c2], [a, b], 7),
            lambda c1, c2, a, b: np.select(list(np.broadcast_arrays(c1.astype(bool), c2.astype(bool))),
                                           list(np.broadcast_arrays(a, b)), 7),
            [(2, 3), (3,), (2, 3), ()], dtypes=_F32_I32, rng=(rand_bool, rand_bool, rand_default, rand_default),
            arg_dtypes=lambda dt: [np.dtype(np.bool_), np.dtype(np.bool_), dt, dt]),
    _jshape("piecewise", lambda x: jnp.piecewise(x, [x < 0, x > 1], [lambda v: -v, lambda v: 2 * v, 0.5]),
            _piecewise_np, (2, 5), dtypes=F32),
    _jmulti("vectorize[signature]", lambda a, b: jnp.vectorize(jnp.dot, signature="(n),(n)->()")(a, b),
            lambda a, b: np.einsum("...n,...n->...", a, b), [(4, 1, 3), (2, 3)], dtypes=F32, tol=1e-5),
    _jshape("apply_along_axis", lambda x: jnp.apply_along_axis(lambda v: jnp.cumsum(v[::-1]), 1, x),
            lambda x: np.apply_along_axis(lambda v: np.cumsum(v[::-1]), 1, x), (2, 3, 4), dtypes=F32),
    _jshape("apply_over_axes", lambda x: jnp.apply_over_axes(jnp.sum, x, [0, 2]),
            lambda x: np.apply_over_axes(np.sum, x, [0, 2]), (2, 3, 4), dtypes=F32),
    op("fromfunction", lambda: jnp.fromfunction(lambda i, j: i * 3 + j, (2, 3), dtype=jnp.float32), 0, F32,
       ref=lambda: np.fromfunction(lambda i, j: i * 3 + j, (2, 3)), shapes=((),)),
]

# functions of the rest of jnp tested by tests/test_numpy_extra.py (concrete-only inputs, host
# I/O, linalg-backed fits, recorded JAX results) rather than a row
JNP_EXTRA_TESTED_ELSEWHERE = {
    "trim_zeros", "roots", "poly", "polydiv", "polyfit", "einsum_path", "frombuffer", "fromstring",
    "fromfile", "fromiter", "load", "from_dlpack", "get_printoptions", "set_printoptions",
    "printoptions", "iterable", "frexp",
}


def _padded(values, size, fill):
    """NumPy's variable-length result as jnp's `size=` gives it: truncated or padded."""
    values = np.asarray(values)[:size]
    return np.concatenate([values, np.full(size - len(values), fill, values.dtype)])


def _np_unique_all(x, size):
    v, i, inv, c = np.unique(x, return_index=True, return_inverse=True, return_counts=True)
    return _padded(v, size, v[0]), _padded(i, size, i[0]), inv.reshape(np.shape(x)), _padded(c, size, 0)


def _jset(name, fn, ref, nargs=1, dtypes=I32 + [np.dtype(np.uint8)], shapes=((3, 4), (7,)), **kw):
    return op(name, fn, nargs, dtypes, ref=ref, shapes=shapes, rng=rand_int, **kw)


# integer rows: the set a float belongs to jumps under finite differences (no gradient sweep)
_PAIR = ([(9,), (5,)], [(2, 3), (4,)])

JNP_SETOPS = [
    _jset("unique", lambda x: jnp.unique(x, size=8, fill_value=0), lambda x: _padded(np.unique(x), 8, 0)),
    _jset("unique[counts inverse]", lambda x: jnp.unique(x, return_inverse=True, return_counts=True, size=6),
          lambda x: [_np_unique_all(x, 6)[k] for k in (0, 2, 3)], out_dtype=None, dtypes=I32),
    _jset("unique_all", lambda x: tuple(jnp.unique_all(x, size=10)), lambda x: _np_unique_all(x, 10), dtypes=I32),
    _jset("unique_values", lambda x: jnp.unique_values(x, size=5, fill_value=7),
          lambda x: _padded(np.unique(x), 5, 7)),
    _jset("unique_counts", lambda x: jnp.unique_counts(x, size=9).counts,
          lambda x: _padded(np.unique(x, return_counts=True)[1], 9, 0), out_dtype=_int_out),
    _jset("unique_inverse", lambda x: jnp.unique_inverse(x, size=12).inverse_indices,
          lambda x: np.unique(x, return_inverse=True)[1].reshape(x.shape), out_dtype=_int_out),
    _jset("union1d", lambda a, b: jnp.union1d(a, b, size=12, fill_value=0),
          lambda a, b: _padded(np.union1d(a, b), 12, 0), nargs=2, shapes=_PAIR),
    _jset("intersect1d", lambda a, b: jnp.intersect1d(a, b, size=4, fill_value=0),
          lambda a, b: _padded(np.intersect1d(a, b), 4, 0), nargs=2, shapes=_PAIR),
    _jset("setdiff1d", lambda a, b: jnp.setdiff1d(a, b, size=7, fill_value=0),
          lambda a, b: _padded(np.setdiff1d(a, b), 7, 0), nargs=2, shapes=_PAIR),
    _jset("setxor1d", lambda a, b: jnp.setxor1d(a, b, size=10, fill_value=0),
          lambda a, b: _padded(np.setxor1d(a, b), 10, 0), nargs=2, shapes=_PAIR),
    _jset("isin", jnp.isin, np.isin, nargs=2, shapes=_PAIR, out_dtype=_bool_out),
    _jset("isin[invert sort]", lambda a, b: jnp.isin(a, b, invert=True, method="sort"),
          lambda a, b: np.isin(a, b, invert=True), nargs=2, shapes=_PAIR, out_dtype=_bool_out),
]

JNP_OPS = JNP_UNARY + JNP_BINARY + JNP_REDUCTIONS + JNP_SHAPE_OPS + JNP_SPLITS + JNP_LINALG + JNP_SORTING + JNP_STATISTICS + JNP_SETOPS
JNP_OPS = JNP_OPS + JNP_EXTRA


