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

Compiling an executable costs tens of milliseconds, so cases are few and compiles fewer: eager
runs every dtype on the row's first shape (one executable each); jit runs all of a row's cases,
those and the remaining shapes on the first dtype, in one function (one executable per row).
`@pytest.mark.slow` tests sweep the full product, eager and jit, with the extra dtypes in
`SLOW_EXTRA_DTYPES`.
"""
from __future__ import annotations

import dataclasses
import itertools
from typing import Any, Callable, Sequence

import ml_dtypes
import numpy as np
import scipy.special

import pyjax
import pyjax.numpy as jnp
from pyjax import lax
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
    if full:
        kinds = {kind(d) for d in op_.dtypes}
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
    op("stop_gradient", lax.stop_gradient, 1, INEXACT, shapes=(MATRIX,)),
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
    op("clamp", lax.clamp, 3, ORDERED, rng=(lambda rs, s, d: _cast(np.full(s, -2), d) if kind(d) != "b" else np.zeros(s, bool),
                                            rand_int,
                                            lambda rs, s, d: _cast(np.full(s, 3), d) if kind(d) != "b" else np.ones(s, bool)),
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

LAX_OPS = LAX_UNARY + LAX_BINARY + LAX_ELEMENTWISE_MISC + LAX_SHAPE_OPS + LAX_REDUCTIONS

# Primitives covered by other test files rather than a row here (none yet).
LAX_TESTED_ELSEWHERE: dict[str, str] = {}


def lax_primitives():
    """Every primitive defined in the lax modules (the `*_p` names)."""
    from pyjax._src.lax import elementwise, reductions, shape_ops
    return {v.name: v for mod in (elementwise, shape_ops, reductions)
            for k, v in vars(mod).items() if k.endswith("_p") and isinstance(v, core.Primitive)}
