"""The pyjax.numpy functions against NumPy, driven by `op_table.JNP_OPS` (eager on every dtype,
jit on every case), plus what a table row cannot say: JAX's dtype promotion for mixed inputs,
indexing and `.at[]`, creation functions, Array methods and operators, and `repr`. Expected
values in the hand-written tests were taken from JAX 0.10.2."""
import inspect
import operator
import warnings

import ml_dtypes
import numpy as np
import pytest

import pyjax
import pyjax.numpy as jnp
from pyjax.test_util import check_grads
from pyjax._src import core

from op_table import (
    JNP_EXTRA_TESTED_ELSEWHERE, JNP_OPS, assert_close, cases, expected_dtype, jnp_reference, make_args, params)


def _leaves(out):
    return list(out) if isinstance(out, (list, tuple)) else [out]


def _check_case(op, np_args, out, dtype, how):
    outs = _leaves(out)
    expected = jnp_reference(op, np_args, dtype)
    what = f"{op.name} on {[core.get_aval(a).str_short() for a in np_args]} ({how})"
    assert len(outs) == len(expected), what
    for o, e in zip(outs, expected):
        assert isinstance(o, pyjax.Array), what
        assert o.dtype == expected_dtype(op, dtype), f"{what}: dtype {o.dtype}"
        assert_close(o, e, op.tol, what)


def _eager_case(o):
    ps = params([o], eager=True)
    return next((p for p in ps if p.values[2] == np.float32), ps[0])


@pytest.mark.parametrize("op,shapes,dtype", [_eager_case(o) for o in JNP_OPS])
def test_jnp_op(op, shapes, dtype):
    """Eager, on the row's float32 case (or its first). A jnp function runs its lax primitives one
    by one; their dtype sweep is `test_lax_ops`, and the dtype sweep of the jnp logic is the jit
    test below, which compiles one executable per row instead of one per primitive and case."""
    np_args = make_args(op, shapes, dtype)
    _check_case(op, np_args, op.fn(*[jnp.asarray(a) for a in np_args]), dtype, "eager")


@pytest.mark.parametrize("op", JNP_OPS, ids=lambda o: o.name)
def test_jnp_op_jit(op):
    """All of a row's cases (every dtype, every shape incl. broadcasting) in one jitted function."""
    all_cases = cases(op)
    np_args = [make_args(op, s, d) for s, d in all_cases]
    outs = pyjax.jit(lambda arg_lists: [op.fn(*args) for args in arg_lists])(
        [[jnp.asarray(a) for a in args] for args in np_args])
    for (_, dtype), args, out in zip(all_cases, np_args, outs, strict=True):
        _check_case(op, args, out, dtype, "jit")


@pytest.mark.slow
@pytest.mark.parametrize("op,shapes,dtype", params(JNP_OPS, full=True))
def test_jnp_op_full(op, shapes, dtype):
    np_args = make_args(op, shapes, dtype)
    args = [jnp.asarray(a) for a in np_args]
    _check_case(op, np_args, op.fn(*args), dtype, "eager")
    _check_case(op, np_args, pyjax.jit(op.fn)(*args), dtype, "jit")


# -- coverage of the public pyjax.numpy functions ----------------------------------------------

# Tested by the hand-written tests below rather than a table row.
JNP_TESTED_ELSEWHERE = {
    "array", "asarray", "full", "zeros", "ones", "empty", "full_like", "zeros_like", "ones_like",
    "empty_like", "arange", "linspace", "logspace", "eye", "identity", "result_type",
    "promote_types", "isdtype", "isscalar", "iscomplexobj", "isrealobj", "shape", "ndim", "size",
    "allclose", "array_equal", "broadcast_shapes", "finfo", "iinfo", "issubdtype",
    "frompyfunc",  # tests/test_ufunc_objects.py
    # tests/test_index_tricks.py (NumPy) and JAX's recorded answers in tests/test_indexing.py
    "take", "take_along_axis", "put_along_axis", "put", "place", "choose", "compress", "extract",
    "argwhere", "flatnonzero", "bincount", "unravel_index", "ravel_multi_index", "ix_", "indices",
    "diag_indices", "diag_indices_from", "tril_indices", "tril_indices_from", "triu_indices",
    "triu_indices_from", "mask_indices", "fill_diagonal", "delete", "insert", "nonzero",
}
# Public functions that raise NotImplementedError today (test_not_implemented checks they do).
JNP_NOT_IMPLEMENTED: set = set()
JNP_TESTED_ELSEWHERE |= JNP_EXTRA_TESTED_ELSEWHERE  # tests/test_numpy_extra.py
JNP_TESTED_ELSEWHERE |= {"convolve", "correlate"}  # tests/test_conv.py: NumPy and JAX's answers
JNP_TESTED_ELSEWHERE |= {"cumulative_sum", "cumulative_prod"}  # tests/test_reductions.py: JAX's answers


def _public_functions():
    return {n: f for n in dir(jnp) if not n.startswith("_")
            for f in [getattr(jnp, n)] if inspect.isfunction(f) or isinstance(f, jnp.ufunc)}


def test_every_public_jnp_function_is_tested():
    fns = _public_functions()
    covered = {id(getattr(jnp, o.name.split("[")[0])) for o in JNP_OPS}
    covered |= {id(fns[n]) for n in JNP_TESTED_ELSEWHERE | JNP_NOT_IMPLEMENTED}
    untested = sorted(n for n, f in fns.items() if id(f) not in covered)
    assert not untested, f"public jnp functions with no test: {untested}"


def test_row_names_are_unique():
    names = [o.name for o in JNP_OPS]
    assert len(names) == len(set(names)), sorted(n for n in names if names.count(n) > 1)


@pytest.mark.parametrize("name", sorted(JNP_NOT_IMPLEMENTED))
def test_not_implemented(name):
    with pytest.raises(NotImplementedError):
        getattr(jnp, name)(*[jnp.array([12, 8])] * (2 if name == "gcd" else 1))


# -- dtype promotion of mixed inputs (JAX 0.10.2's answers, x64 off) ----------------------------

PROMOTION_OPERANDS = {
    "b": lambda: jnp.ones(2, bool), "i8": lambda: jnp.ones(2, np.int8),
    "u8": lambda: jnp.ones(2, np.uint8), "i32": lambda: jnp.ones(2, np.int32),
    "u32": lambda: jnp.ones(2, np.uint32), "f16": lambda: jnp.ones(2, np.float16),
    "bf16": lambda: jnp.ones(2, jnp.bfloat16), "f32": lambda: jnp.ones(2, np.float32),
    "c64": lambda: jnp.ones(2, np.complex64), "int": lambda: 1, "float": lambda: 1.5,
    "complex": lambda: 1j, "wf32": lambda: jnp.asarray(1.5), "np_i64": lambda: np.int64(3),
    "np_f64": lambda: np.float64(2.0), "npa_f64": lambda: np.ones(2),
    "npa_i64": lambda: np.ones(2, np.int64), "bool": lambda: True,
}

# "a b result" for jnp.add(a, b); a trailing * marks weak_type=True
ADD_PROMOTION = """
    b b bool; b i8 int8; b u8 uint8; b i32 int32; b u32 uint32; b f16 float16; b bf16 bfloat16;
    b f32 float32; b c64 complex64; b int int32*; b float float32*; b complex complex64*; b wf32
    float32*; b np_i64 int32; b np_f64 float32; b npa_f64 float32; b npa_i64 int32; b bool bool;
    i8 i8 int8; i8 u8 int16; i8 i32 int32; i8 u32 int32; i8 f16 float16; i8 bf16 bfloat16; i8
    f32 float32; i8 c64 complex64; i8 int int8; i8 float float32*; i8 complex complex64*; i8
    wf32 float32*; i8 np_i64 int32; i8 np_f64 float32; i8 npa_f64 float32; i8 npa_i64 int32; i8
    bool int8; u8 u8 uint8; u8 i32 int32; u8 u32 uint32; u8 f16 float16; u8 bf16 bfloat16; u8
    f32 float32; u8 c64 complex64; u8 int uint8; u8 float float32*; u8 complex complex64*; u8
    wf32 float32*; u8 np_i64 int32; u8 np_f64 float32; u8 npa_f64 float32; u8 npa_i64 int32; u8
    bool uint8; i32 i32 int32; i32 u32 int32; i32 f16 float16; i32 bf16 bfloat16; i32 f32
    float32; i32 c64 complex64; i32 int int32; i32 float float32*; i32 complex complex64*; i32
    wf32 float32*; i32 np_i64 int32; i32 np_f64 float32; i32 npa_f64 float32; i32 npa_i64 int32;
    i32 bool int32; u32 u32 uint32; u32 f16 float16; u32 bf16 bfloat16; u32 f32 float32; u32 c64
    complex64; u32 int uint32; u32 float float32*; u32 complex complex64*; u32 wf32 float32*;
    u32 np_i64 int32; u32 np_f64 float32; u32 npa_f64 float32; u32 npa_i64 int32; u32 bool
    uint32; f16 f16 float16; f16 bf16 float32; f16 f32 float32; f16 c64 complex64; f16 int
    float16; f16 float float16; f16 complex complex64; f16 wf32 float16; f16 np_i64 float16; f16
    np_f64 float32; f16 npa_f64 float32; f16 npa_i64 float16; f16 bool float16; bf16 bf16
    bfloat16; bf16 f32 float32; bf16 c64 complex64; bf16 int bfloat16; bf16 float bfloat16; bf16
    complex complex64; bf16 wf32 bfloat16; bf16 np_i64 bfloat16; bf16 np_f64 float32; bf16
    npa_f64 float32; bf16 npa_i64 bfloat16; bf16 bool bfloat16; f32 f32 float32; f32 c64
    complex64; f32 int float32; f32 float float32; f32 complex complex64; f32 wf32 float32; f32
    np_i64 float32; f32 np_f64 float32; f32 npa_f64 float32; f32 npa_i64 float32; f32 bool
    float32; c64 c64 complex64; c64 int complex64; c64 float complex64; c64 complex complex64;
    c64 wf32 complex64; c64 np_i64 complex64; c64 np_f64 complex64; c64 npa_f64 complex64; c64
    npa_i64 complex64; c64 bool complex64; int int int32*; int float float32*; int complex
    complex64*; int wf32 float32*; int np_i64 int32; int np_f64 float32; int npa_f64 float32;
    int npa_i64 int32; int bool int32*; float float float32*; float complex complex64*; float
    wf32 float32*; float np_i64 float32*; float np_f64 float32; float npa_f64 float32; float
    npa_i64 float32*; float bool float32*; complex complex complex64*; complex wf32 complex64*;
    complex np_i64 complex64*; complex np_f64 complex64; complex npa_f64 complex64; complex
    npa_i64 complex64*; complex bool complex64*; wf32 wf32 float32*; wf32 np_i64 float32*; wf32
    np_f64 float32; wf32 npa_f64 float32; wf32 npa_i64 float32*; wf32 bool float32*; np_i64
    np_i64 int32; np_i64 np_f64 float32; np_i64 npa_f64 float32; np_i64 npa_i64 int32; np_i64
    bool int32; np_f64 np_f64 float32; np_f64 npa_f64 float32; np_f64 npa_i64 float32; np_f64
    bool float32; npa_f64 npa_f64 float32; npa_f64 npa_i64 float32; npa_f64 bool float32;
    npa_i64 npa_i64 int32; npa_i64 bool int32; bool bool bool;
"""

OTHER_PROMOTION = """
    true_divide b int float32*; true_divide b float float32*; true_divide b complex complex64*;
    true_divide b wf32 float32*; true_divide b np_i64 float32; true_divide b bool float32;
    true_divide i8 int float32; true_divide i8 float float32*; true_divide i8 complex
    complex64*; true_divide i8 wf32 float32*; true_divide i8 np_i64 float32; true_divide i8 bool
    float32; true_divide u8 int float32; true_divide u8 float float32*; true_divide u8 complex
    complex64*; true_divide u8 wf32 float32*; true_divide u8 np_i64 float32; true_divide u8 bool
    float32; true_divide f16 int float16; true_divide f16 float float16; true_divide f16 complex
    complex64; true_divide f16 wf32 float16; true_divide f16 np_i64 float16; true_divide f16
    bool float16; true_divide bf16 int bfloat16; true_divide bf16 float bfloat16; true_divide
    bf16 complex complex64; true_divide bf16 wf32 bfloat16; true_divide bf16 np_i64 bfloat16;
    true_divide bf16 bool bfloat16; multiply b int int32*; multiply b float float32*; multiply b
    complex complex64*; multiply b wf32 float32*; multiply b np_i64 int32; multiply b bool bool;
    multiply i8 int int8; multiply i8 float float32*; multiply i8 complex complex64*; multiply
    i8 wf32 float32*; multiply i8 np_i64 int32; multiply i8 bool int8; multiply u8 int uint8;
    multiply u8 float float32*; multiply u8 complex complex64*; multiply u8 wf32 float32*;
    multiply u8 np_i64 int32; multiply u8 bool uint8; multiply f16 int float16; multiply f16
    float float16; multiply f16 complex complex64; multiply f16 wf32 float16; multiply f16
    np_i64 float16; multiply f16 bool float16; multiply bf16 int bfloat16; multiply bf16 float
    bfloat16; multiply bf16 complex complex64; multiply bf16 wf32 bfloat16; multiply bf16 np_i64
    bfloat16; multiply bf16 bool bfloat16; floor_divide b int int32*; floor_divide b float
    float32*; floor_divide b complex ERR:TypeError; floor_divide b wf32 float32*; floor_divide b
    np_i64 int32; floor_divide b bool int32; floor_divide i8 int int8; floor_divide i8 float
    float32*; floor_divide i8 complex ERR:TypeError; floor_divide i8 wf32 float32*; floor_divide
    i8 np_i64 int32; floor_divide i8 bool int8; floor_divide u8 int uint8; floor_divide u8 float
    float32*; floor_divide u8 complex ERR:TypeError; floor_divide u8 wf32 float32*; floor_divide
    u8 np_i64 int32; floor_divide u8 bool uint8; floor_divide f16 int float16; floor_divide f16
    float float16; floor_divide f16 complex ERR:TypeError; floor_divide f16 wf32 float16;
    floor_divide f16 np_i64 float16; floor_divide f16 bool float16; floor_divide bf16 int
    bfloat16; floor_divide bf16 float bfloat16; floor_divide bf16 complex ERR:TypeError;
    floor_divide bf16 wf32 bfloat16; floor_divide bf16 np_i64 bfloat16; floor_divide bf16 bool
    bfloat16; power b int int32; power b float float32*; power b complex complex64*; power b
    wf32 float32*; power b np_i64 int32; power b bool int32; power i8 int int8; power i8 float
    float32*; power i8 complex complex64*; power i8 wf32 float32*; power i8 np_i64 int8; power
    i8 bool int8; power u8 int uint8; power u8 float float32*; power u8 complex complex64*;
    power u8 wf32 float32*; power u8 np_i64 uint8; power u8 bool uint8; power f16 int float16;
    power f16 float float16; power f16 complex complex64; power f16 wf32 float16; power f16
    np_i64 float16; power f16 bool float16; power bf16 int bfloat16; power bf16 float bfloat16;
    power bf16 complex complex64; power bf16 wf32 bfloat16; power bf16 np_i64 bfloat16; power
    bf16 bool bfloat16; maximum b int int32*; maximum b float float32*; maximum b complex
    complex64*; maximum b wf32 float32*; maximum b np_i64 int32; maximum b bool bool; maximum i8
    int int8; maximum i8 float float32*; maximum i8 complex complex64*; maximum i8 wf32
    float32*; maximum i8 np_i64 int32; maximum i8 bool int8; maximum u8 int uint8; maximum u8
    float float32*; maximum u8 complex complex64*; maximum u8 wf32 float32*; maximum u8 np_i64
    int32; maximum u8 bool uint8; maximum f16 int float16; maximum f16 float float16; maximum
    f16 complex complex64; maximum f16 wf32 float16; maximum f16 np_i64 float16; maximum f16
    bool float16; maximum bf16 int bfloat16; maximum bf16 float bfloat16; maximum bf16 complex
    complex64; maximum bf16 wf32 bfloat16; maximum bf16 np_i64 bfloat16; maximum bf16 bool
    bfloat16; where b int int32*; where b float float32*; where b complex complex64*; where b
    wf32 float32*; where b np_i64 int32; where b bool bool; where i8 int int8; where i8 float
    float32*; where i8 complex complex64*; where i8 wf32 float32*; where i8 np_i64 int32; where
    i8 bool int8; where u8 int uint8; where u8 float float32*; where u8 complex complex64*;
    where u8 wf32 float32*; where u8 np_i64 int32; where u8 bool uint8; where f16 int float16;
    where f16 float float16; where f16 complex complex64; where f16 wf32 float16; where f16
    np_i64 float16; where f16 bool float16; where bf16 int bfloat16; where bf16 float bfloat16;
    where bf16 complex complex64; where bf16 wf32 bfloat16; where bf16 np_i64 bfloat16; where
    bf16 bool bfloat16;
"""


def _promotion_cases(table, fn=None):
    out = []
    for entry in " ".join(table.split()).split(";"):
        words = entry.split()
        if words:
            out.append(pytest.param(*([fn] if fn else []) + words, id=" ".join(words[:-1])))
    return out


_SYMMETRIC = {"add", "multiply", "maximum", "where", "true_divide"}


def _check_promotion(fn, a, b, expected):
    """The result dtype comes from tracing (eval_shape: nothing is compiled); the operands are
    closed over, so Python scalars stay Python scalars. Non-scalar NumPy operands run eagerly:
    under a trace they become constants, which lose their weak type (test_jit_keeps_weak_type_of_
    closed_over_arrays)."""
    x, y = PROMOTION_OPERANDS[a](), PROMOTION_OPERANDS[b]()
    call = (lambda u, v: jnp.where(True, u, v)) if fn == "where" else getattr(jnp, fn)
    run = (lambda f: f()) if "npa" in (a + b) else pyjax.eval_shape
    for u, v in ((x, y), (y, x)) if fn in _SYMMETRIC else ((x, y),):
        if expected.startswith("ERR"):
            with pytest.raises(TypeError):
                run(lambda: call(u, v))
            continue
        out = run(lambda: call(u, v))
        got = out.dtype.name + ("*" if out.weak_type else "")
        assert got == expected, f"jnp.{fn}({a}, {b}) gave {got}, JAX gives {expected}"


@pytest.mark.parametrize("fn,a,b,expected", [
    ("add", "i8", "float", "float32*"), ("add", "u8", "int", "uint8"), ("add", "bf16", "f16", "float32"),
    ("add", "wf32", "np_i64", "float32*"), ("true_divide", "b", "int", "float32*"),
    ("power", "i8", "np_i64", "int8"), ("where", "f16", "complex", "complex64"),
])
def test_promotion_eager(fn, a, b, expected):
    """Eager execution gives the dtypes tracing gives."""
    x, y = PROMOTION_OPERANDS[a](), PROMOTION_OPERANDS[b]()
    out = jnp.where(True, x, y) if fn == "where" else getattr(jnp, fn)(x, y)
    assert out.dtype.name + ("*" if out.weak_type else "") == expected


@pytest.mark.parametrize("fn,a,b,expected", _promotion_cases(ADD_PROMOTION, "add"))
def test_add_promotion(fn, a, b, expected):
    _check_promotion(fn, a, b, expected)


@pytest.mark.parametrize("fn,a,b,expected", _promotion_cases(OTHER_PROMOTION))
def test_promotion(fn, a, b, expected):
    _check_promotion(fn, a, b, expected)


def test_jit_keeps_weak_type_of_closed_over_arrays():
    c = jnp.full((2,), 1.5)  # weakly typed, as in JAX
    assert c.weak_type and (c * 2).weak_type
    assert pyjax.jit(lambda: c * 2)().weak_type
    assert pyjax.jit(lambda x: c + x)(jnp.ones(2, jnp.bfloat16)).dtype == jnp.bfloat16


def test_result_type_agrees_with_operations():
    samples = [v() for v in PROMOTION_OPERANDS.values()]
    for x in samples:
        for y in samples:
            if isinstance(x, bool) and isinstance(y, bool):
                continue
            assert jnp.result_type(x, y) == pyjax.eval_shape(lambda: jnp.add(x, y)).dtype


@pytest.mark.parametrize("args,expected", [
    ((jnp.int8, jnp.float16), np.float16), ((1, jnp.int8), np.int8), ((1.5, jnp.int32), np.float32),
    ((jnp.uint8, jnp.int8), np.int16), ((jnp.bfloat16, jnp.float16), np.float32),
    ((jnp.uint32, jnp.int32), np.int32), ((True, 1), np.int32), ((jnp.int64,), np.int32),
])
def test_result_type(args, expected):
    assert jnp.result_type(*args) == np.dtype(expected)


def test_result_type_of_jnp_scalar_types_does_not_warn():
    # as JAX 0.10.2 (x64 off): jnp.float64 is canonicalized quietly, NumPy's float64 and the
    # dtype name warn (numpyro calls jnp.result_type(jnp.float64) under warnings-as-errors)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert jnp.result_type(jnp.float64) == np.float32
        assert jnp.result_type(jnp.int64) == np.int32
    for x in (np.float64, "float64", np.dtype("float64")):
        with pytest.warns(UserWarning, match="float64 requested in dtype is not available"):
            assert jnp.result_type(x) == np.float32


def test_promote_types_and_can_cast():
    assert jnp.promote_types(jnp.int8, jnp.uint8) == np.int16
    assert jnp.promote_types("float16", "bfloat16") == np.float32
    assert jnp.promote_types(np.int64, np.float32) == np.float32  # x64 off
    assert jnp.can_cast(jnp.int8, jnp.int32)
    assert not jnp.can_cast(jnp.float32, jnp.int32)
    assert jnp.can_cast(jnp.int32, jnp.float32, "same_kind")


def test_int8_plus_float_is_weak_float32():
    out = jnp.add(jnp.ones(3, np.int8), 1.5)
    assert (out.dtype, out.weak_type) == (np.float32, True)
    np.testing.assert_array_equal(np.asarray(out), [2.5] * 3)


def test_python_int_keeps_small_int_dtype():
    out = jnp.ones(3, np.uint8) + 200
    assert out.dtype == np.uint8
    np.testing.assert_array_equal(np.asarray(out), [201] * 3)


# -- indexing ------------------------------------------------------------------------------------

X = np.arange(24).reshape(2, 3, 4)


@pytest.mark.parametrize("idx", [
    (1, slice(None, None, 2)), (slice(None), slice(None, None, -1)), (Ellipsis, slice(None, None, -2)),
    (None, 1), (1, None, Ellipsis, None), -1, (slice(None), slice(-2, None)),
    (slice(None, None, -1), slice(1, 0, -1)), slice(5, None), (1, 2, 3), (), Ellipsis, (-2, -3, -4),
    (slice(None), 0, slice(1, None, 2)), (slice(3, 1),), (np.int32(1),), (1, slice(None, None, -3)),
    (slice(10, -10, -1),),
], ids=repr)
def test_basic_indexing(idx):
    x = jnp.asarray(X)
    out = x[idx]
    np.testing.assert_array_equal(np.asarray(out), X[idx])
    assert out.dtype == np.int32
    np.testing.assert_array_equal(np.asarray(pyjax.jit(lambda v: v[idx])(x)), X[idx])


def test_indexing_with_a_concrete_array_scalar():
    x = jnp.asarray(X)
    np.testing.assert_array_equal(np.asarray(x[jnp.array(1)]), X[1])
    np.testing.assert_array_equal(np.asarray(x[:, jnp.array(-1)]), X[:, -1])


@pytest.mark.parametrize("i,expected", [(1, 1), (-1, 2), (5, 2), (-5, 0)])
def test_traced_integer_index(i, expected):
    # negative indices count from the end; out-of-bounds ones clamp (as JAX's gather does)
    out = pyjax.jit(lambda v, i: v[i])(jnp.arange(3), i)
    assert int(out) == expected


def test_traced_index_among_slices():
    x = jnp.asarray(X)
    out = pyjax.jit(lambda v, i: v[:, i, 1:])(x, 2)
    np.testing.assert_array_equal(np.asarray(out), X[:, 2, 1:])
    out = pyjax.jit(lambda v, i, j: v[i, ..., j])(x, np.int32(-1), np.uint8(3))
    np.testing.assert_array_equal(np.asarray(out), X[-1, ..., 3])


def test_static_out_of_bounds_index_clamps():
    # as JAX (gather clamps); tests/test_indexing.py has the cases recorded from JAX
    np.testing.assert_array_equal(np.asarray(jnp.asarray(X)[5]), X[-1])
    np.testing.assert_array_equal(np.asarray(jnp.asarray(X)[-5]), X[0])


def test_too_many_indices():
    with pytest.raises(IndexError, match="Too many indices"):
        jnp.ones((2, 3))[0, 0, 0]


# -- .at[] ----------------------------------------------------------------------------------------

V = np.arange(5.)


def _np_at(x, idx, fn):
    x = np.array(x)
    x[idx] = fn(x[idx])
    return x


@pytest.mark.parametrize("base,idx,method,value,np_fn", [
    pytest.param(V, 1, "set", 7., lambda old: 7., id="v[1].set"),
    pytest.param(X, (1, slice(1, None)), "add", 100, lambda old: old + 100, id="x[1,1:].add"),
    pytest.param(V, -1, "multiply", 2., lambda old: old * 2, id="v[-1].multiply"),
    pytest.param(X, (slice(None), 0), "min", 3, lambda old: np.minimum(old, 3), id="x[:,0].min"),
    pytest.param(V, slice(2, 4), "max", 2.5, lambda old: np.maximum(old, 2.5), id="v[2:4].max"),
    pytest.param(X, (0,), "set", np.arange(4), lambda old: np.arange(4), id="x[0].set(broadcast)"),
    pytest.param(X, Ellipsis, "set", 0, lambda old: 0, id="x[...].set"),
    pytest.param(X, (1, -1, slice(None, 2)), "add", 1., lambda old: old + 1, id="x[1,-1,:2].add"),
])
def test_at_updates(base, idx, method, value, np_fn):
    base = base.astype(np.float32)
    out = getattr(jnp.asarray(base).at[idx], method)(value)
    np.testing.assert_array_equal(np.asarray(out), _np_at(base, idx, np_fn))
    assert out.dtype == np.float32
    jitted = pyjax.jit(lambda b: getattr(b.at[idx], method)(value))(jnp.asarray(base))
    np.testing.assert_array_equal(np.asarray(jitted), np.asarray(out))


def test_at_get_and_dtype():
    x = jnp.asarray(X)
    assert int(x.at[1, 2, 3].get()) == X[1, 2, 3]
    with pytest.warns(FutureWarning, match="scatter inputs have incompatible types"):  # as JAX
        out = jnp.arange(3).at[0].set(2.7)  # converted to the array's dtype
    assert out.dtype == np.int32 and out.tolist() == [2, 1, 2]
    w = (jnp.arange(3.) + 1.).at[0].add(1)
    assert not w.weak_type


@pytest.mark.parametrize("i,expected", [
    (3, [0, 1, 2, -1, 4]), (-2, [0, 1, 2, -1, 4]), (10, [0, 1, 2, 3, 4]), (-10, [0, 1, 2, 3, 4]),
])
def test_at_traced_index(i, expected):
    out = pyjax.jit(lambda v, i: v.at[i].set(-1.))(jnp.asarray(V), i)
    np.testing.assert_array_equal(np.asarray(out), expected)   # out of bounds: dropped


@pytest.mark.parametrize("i", [10, -10])
def test_at_static_out_of_bounds_is_dropped(i):
    np.testing.assert_array_equal(np.asarray(jnp.asarray(V).at[i].set(-1.)), V)


# -- creation ------------------------------------------------------------------------------------

def check(out, expected, dtype, weak=False):
    assert out.dtype == np.dtype(dtype), out.dtype
    assert out.weak_type == weak
    assert_close(out, np.asarray(expected, dtype))


def test_linspace():
    check(jnp.linspace(0, 1, 5), [0., 0.25, 0.5, 0.75, 1.], np.float32)
    check(jnp.linspace(0, 1, 5, endpoint=False), [0., 0.2, 0.4, 0.6, 0.8], np.float32)
    out, step = jnp.linspace(2, 3, 4, retstep=True)
    np.testing.assert_array_equal(np.asarray(out), np.float32([2., 2.3333333, 2.6666665, 3.]))
    check(step, 1 / 3, np.float32)
    check(jnp.linspace(0, 10, 4, dtype=jnp.int32), [0, 3, 6, 10], np.int32)
    check(jnp.linspace(-5, 5, 4, dtype=jnp.int32), [-5, -2, 1, 5], np.int32)  # floor
    check(jnp.linspace(jnp.array([0., 10.]), 20., 3), [[0., 10.], [10., 15.], [20., 20.]], np.float32)
    check(jnp.linspace(jnp.array([0., 10.]), 20., 3, axis=1), [[0., 10., 20.], [10., 15., 20.]], np.float32)
    check(jnp.linspace(2., 3., 1), [2.], np.float32)
    check(jnp.linspace(2., 3., 0), np.zeros(0), np.float32)
    check(jnp.linspace(0, 1, 3, dtype=jnp.float16), [0., 0.5, 1.], np.float16)


def test_logspace():
    check(jnp.logspace(0, 2, 3), [1., 10., 100.], np.float32)
    check(jnp.logspace(0, 3, 4, base=2), [1., 2., 4., 8.], np.float32)
    check(jnp.logspace(0, 2, 2, endpoint=False), [1., 10.], np.float32)


def test_arange():
    check(jnp.arange(5), np.arange(5), np.int32)
    check(jnp.arange(1, 2, 0.25), [1., 1.25, 1.5, 1.75], np.float32)
    check(jnp.arange(5, dtype=jnp.float32), np.arange(5), np.float32)
    check(jnp.arange(10, 0, -3), [10, 7, 4, 1], np.int32)
    check(jnp.arange(0.5), [0.], np.float32)
    check(jnp.arange(3, 1), np.zeros(0), np.int32)
    check(jnp.arange(3, dtype=jnp.uint8), [0, 1, 2], np.uint8)
    check(jnp.arange(np.int64(4)), np.arange(4), np.int32)


def test_arange_needs_concrete_bounds():
    with pytest.raises(pyjax.errors.ConcretizationTypeError):
        pyjax.jit(lambda n: jnp.arange(n))(3)


def test_eye_identity():
    check(jnp.eye(3), np.eye(3), np.float32)
    check(jnp.eye(2, 3, k=1), np.eye(2, 3, 1), np.float32)
    check(jnp.eye(3, 2, k=-1, dtype=jnp.int32), np.eye(3, 2, -1), np.int32)
    check(jnp.identity(2, dtype=bool), np.eye(2, dtype=bool), np.bool_)


def test_full_zeros_ones_empty():
    check(jnp.full((2,), 3), [3, 3], np.int32, weak=True)
    check(jnp.full((2, 2), 1.5, jnp.int32), [[1, 1], [1, 1]], np.int32)
    check(jnp.full((2, 3), jnp.array([1, 2, 3])), [[1, 2, 3]] * 2, np.int32)
    check(jnp.zeros((2,)), [0., 0.], np.float32)
    check(jnp.zeros(3, int), [0, 0, 0], np.int32)
    check(jnp.ones(3, bool), [True] * 3, np.bool_)
    check(jnp.empty((0, 2)), np.zeros((0, 2)), np.float32)
    check(jnp.ones((), np.float16), 1., np.float16)


def test_like_functions():
    check(jnp.full_like(jnp.arange(3), 2.5), [2, 2, 2], np.int32)
    check(jnp.full_like(jnp.asarray(1.5), 2), 2., np.float32, weak=True)
    check(jnp.zeros_like(jnp.array([True, False])), [False, False], np.bool_)
    check(jnp.ones_like(jnp.arange(2), dtype=jnp.float16), [1., 1.], np.float16)
    check(jnp.ones_like(jnp.arange(2), shape=(2, 2)), np.ones((2, 2)), np.int32)
    check(jnp.empty_like(jnp.ones((2, 1), np.uint8)), np.zeros((2, 1)), np.uint8)


def test_array_and_asarray():
    check(jnp.array([1, 2.5]), [1., 2.5], np.float32)
    check(jnp.array([[1, 2], [3, 4]], dtype=jnp.uint8), [[1, 2], [3, 4]], np.uint8)
    check(jnp.asarray(np.array([1, 2], np.int64)), [1, 2], np.int32)
    check(jnp.asarray(np.array([1, 2], np.float64)), [1., 2.], np.float32)
    check(jnp.array(True), True, np.bool_)
    check(jnp.array(1 + 2j), 1 + 2j, np.complex64, weak=True)
    check(jnp.array([]), np.zeros(0), np.float32)
    check(jnp.array(3), 3, np.int32, weak=True)
    check(jnp.array(np.float32(2)), 2., np.float32)
    check(jnp.array([jnp.array([1, 2]), jnp.array([3, 4])]), [[1, 2], [3, 4]], np.int32)
    check(jnp.array([1, 2], ndmin=3), [[[1, 2]]], np.int32)
    check(jnp.array([True, 2]), [1, 2], np.int32)
    check(jnp.array([np.float16(1), 2]), [1., 2.], np.float16)
    check(jnp.array([jnp.float16(1), 2.5]), [1., 2.5], np.float16)
    x = jnp.arange(3)
    assert jnp.asarray(x) is x


def test_array_of_traced_values():
    out = pyjax.jit(lambda a, b: jnp.array([a, b, 1.0]))(jnp.float32(1), jnp.float32(2))
    check(out, [1., 2., 1.], np.float32)


def test_array_rejects_ragged_and_objects():
    with pytest.raises((TypeError, ValueError)):
        jnp.array([[1, 2], [3]])
    with pytest.raises(TypeError):
        jnp.array(["a"])


# -- Array methods and operators ----------------------------------------------------------------

A = np.array([-7, -3, 0, 3, 7], np.int32)
B = np.array([2, -2, 3, -3, -2], np.int32)


def _both(x):
    return jnp.asarray(x), pyjax.jit(lambda v: v)(jnp.asarray(x))


_BINARY_OPERATORS = [
    operator.floordiv, operator.mod, divmod, operator.add, operator.sub, operator.mul,
    operator.truediv, operator.lt, operator.le, operator.gt, operator.ge, operator.eq, operator.ne,
]
_BITWISE_OPERATORS = [operator.and_, operator.or_, operator.xor]


@pytest.mark.parametrize("dtype", [np.int32, np.float32, np.uint8])
def test_binary_operators_python_semantics(dtype):
    """Every binary operator, with negative operands (// and % round toward -inf, as Python), on
    arrays and with Python scalars on either side; all of them in one jitted function."""
    a, b = (A.astype(dtype), B.astype(dtype)) if dtype != np.uint8 else (np.abs(A).astype(dtype), np.abs(B).astype(dtype))
    ops = _BINARY_OPERATORS + (_BITWISE_OPERATORS if dtype != np.float32 else [])

    def all_ops(x, y):
        return [fn(x, y) for fn in ops] + [fn(x, 3) for fn in ops] + [fn(7, y) for fn in ops]

    s3, s7 = np.asarray(3, dtype), np.asarray(7, dtype)
    expected = [fn(a, b) for fn in ops] + [fn(a, s3) for fn in ops] + [fn(s7, b) for fn in ops]
    outs = pyjax.jit(all_ops)(jnp.asarray(a), jnp.asarray(b))
    for fn, out, e in zip(ops * 3, outs, expected, strict=True):
        for o, ex in zip(_leaves(out), _leaves(e)):
            assert o.dtype == (np.float32 if fn is operator.truediv else ex.dtype), fn.__name__
            assert_close(o, ex, err_msg=fn.__name__)
    for fn in (operator.floordiv, operator.mod):  # and eagerly
        assert_close(fn(jnp.asarray(a), jnp.asarray(b)), fn(a, b))


def test_mod_and_floordiv_signs():
    a, b = jnp.asarray(A), jnp.asarray(B)
    assert (a // b).tolist() == [-4, 1, 0, -1, -4]
    assert (a % b).tolist() == [1, -1, 0, 0, -1]
    fa, fb = a.astype(np.float32), b.astype(np.float32)
    assert (fa % fb).tolist() == [1., -1., 0., 0., -1.]
    r = np.asarray(jnp.array([-4., 4.]) % jnp.array([2., -2.]))
    assert r.tolist() == [0., 0.] and np.signbit(r[0]) and not np.signbit(r[1])  # as JAX
    assert (7 % b).tolist() == [1, -1, 1, -2, -1]
    assert (-7 // b).tolist() == [-4, 3, -3, 2, 3]


def test_unary_operators():
    a = jnp.asarray(A)
    assert (-a).tolist() == (-A).tolist()
    assert (+a).tolist() == A.tolist()
    assert abs(a).tolist() == abs(A).tolist()
    assert (~a).tolist() == (~A).tolist()
    assert (~jnp.array([True, False])).tolist() == [False, True]
    assert (a << 2).tolist() == (A << 2).tolist()
    assert (a >> 1).tolist() == (A >> 1).tolist()


def test_power_operators():
    a = jnp.asarray(A)
    check(a ** 2, A ** 2, np.int32)
    check(2 ** jnp.arange(4), [1, 2, 4, 8], np.int32)
    check(2.0 ** jnp.arange(4), [1., 2., 4., 8.], np.float32)
    check(jnp.arange(1., 4.) ** -1, [1., 0.5, 1 / 3], np.float32)
    check(jnp.arange(3.) ** np.int64(2), [0., 1., 4.], np.float32)
    check(jnp.arange(3.) ** jnp.array(2), [0., 1., 4.], np.float32)
    with pytest.raises(TypeError, match="negative"):
        jnp.arange(1, 4) ** -1


def test_operators_with_numpy_operands():
    out = np.ones(2, np.float32) + jnp.ones(2)
    assert isinstance(out, pyjax.Array) and out.tolist() == [2., 2.]
    out = np.ones((2, 3), np.float32) @ jnp.ones((3,))
    assert isinstance(out, pyjax.Array) and out.tolist() == [3., 3.]
    assert isinstance(jnp.ones(2) * np.float32(2), pyjax.Array)


def test_matmul_operator_and_comparisons_chain():
    x = jnp.ones((2, 3))
    check(x @ jnp.ones((3,)), [3., 3.], np.float32)
    check(0 < jnp.asarray(A), A > 0, np.bool_)


def test_array_methods():
    x = jnp.arange(6).reshape(2, 3)
    assert x.sum().tolist() == 15 and x.sum(axis=0).tolist() == [3, 5, 7]
    check(x.mean(1), [1., 4.], np.float32)
    assert x.T.shape == (3, 2) and x.T.tolist() == [[0, 3], [1, 4], [2, 5]]
    assert jnp.ones((2, 3, 2)).mT.shape == (2, 2, 3)
    assert jnp.array([1, 5, 2]).argmax().tolist() == 1
    assert x.reshape(3, 2).shape == (3, 2) and x.reshape((3, -1)).shape == (3, 2)
    assert x.astype(jnp.float16).dtype == np.float16
    assert not (jnp.arange(3.) + 1.).astype(jnp.float32).weak_type
    assert jnp.ones((2, 2)).flatten().shape == (4,) and x.ravel().tolist() == list(range(6))
    check(jnp.array([1.25, 2.5]).round(1), [1.2, 2.5], np.float32)
    assert x.clip(1, 3).tolist() == [[1, 1, 2], [3, 3, 3]]
    check(jnp.array([1 + 2j]).real, [1.], np.float32)
    check(jnp.array([1 + 2j]).imag, [2.], np.float32)
    check(jnp.array([1 + 2j]).conj(), [1 - 2j], np.complex64)
    assert jnp.arange(4).cumsum().tolist() == [0, 1, 3, 6]
    assert jnp.arange(3.).dot(jnp.arange(3.)).tolist() == 5.
    assert jnp.ones((2, 3)).swapaxes(0, 1).shape == (3, 2)
    assert jnp.ones((1, 3)).squeeze().shape == (3,)
    assert jnp.ones((2, 3, 4)).transpose(2, 0, 1).shape == (4, 2, 3)
    assert jnp.ones((2, 3, 4)).transpose((2, 0, 1)).shape == (4, 2, 3)
    assert jnp.array([1.0], np.float32).view(jnp.int32).tolist() == [1065353216]
    assert x.max().tolist() == 5 and x.min(axis=1).tolist() == [0, 3] and x.prod().tolist() == 0
    assert x.any() and not x.all() and x.std() > 0 and x.var() > 0
    assert x.argmin().tolist() == 0 and x.cumprod().tolist()[-1] == 0
    assert x.repeat(2).shape == (12,)


def test_python_conversions_and_properties():
    assert len(jnp.ones((4, 2))) == 4
    assert [int(r) for r in jnp.arange(3)] == [0, 1, 2]
    assert float(jnp.array(2.5)) == 2.5 and int(jnp.array(2.7)) == 2
    assert bool(jnp.array(0)) is False
    assert jnp.array([3.5]).item() == 3.5 and jnp.arange(3).tolist() == [0, 1, 2]
    x = jnp.ones((2, 3))
    assert (x.shape, x.ndim, x.size, x.dtype, x.nbytes, x.itemsize) == ((2, 3), 2, 6, np.float32, 24, 4)
    with pytest.raises(ValueError, match="ambiguous"):
        bool(jnp.ones(2))
    with pytest.raises(TypeError):
        len(jnp.float32(1))


def test_round_builtin():
    out = round(jnp.array(2.5))  # Python's round without ndigits gives an int, as in JAX
    assert (out.dtype, out.weak_type, out.tolist()) == (np.int32, False, 2)
    check(round(jnp.array([1.26, 2.5]), 1), [1.3, 2.5], np.float32)


# -- repr ----------------------------------------------------------------------------------------

@pytest.mark.parametrize("make,expected", [
    (lambda: jnp.array([1., 2.]), "Array([1., 2.], dtype=float32)"),
    (lambda: jnp.asarray(1.5) * 2, "Array(3., dtype=float32, weak_type=True)"),
    (lambda: jnp.array([[1, 2], [3, 4]]), "Array([[1, 2],\n       [3, 4]], dtype=int32)"),
    (lambda: jnp.array([True, False]), "Array([ True, False], dtype=bool)"),
    (lambda: jnp.array([1.5, 2], jnp.bfloat16), "Array([1.5, 2], dtype=bfloat16)"),
    (lambda: jnp.array([1.5, 2], jnp.float16), "Array([1.5, 2. ], dtype=float16)"),
    (lambda: jnp.array([1 + 2j]), "Array([1.+2.j], dtype=complex64)"),
    (lambda: jnp.float32(3), "Array(3., dtype=float32)"),
    (lambda: jnp.zeros((2, 0), jnp.int32), "Array([], shape=(2, 0), dtype=int32)"),
    (lambda: jnp.arange(3, dtype=jnp.uint8), "Array([0, 1, 2], dtype=uint8)"),
    (lambda: jnp.array([np.nan, np.inf, -np.inf, 1.]), "Array([ nan,  inf, -inf,   1.], dtype=float32)"),
    (lambda: jnp.arange(30.), "Array([ 0.,  1.,  2.,  3.,  4.,  5.,  6.,  7.,  8.,  9., 10., 11., 12.,\n"
                              "       13., 14., 15., 16., 17., 18., 19., 20., 21., 22., 23., 24., 25.,\n"
                              "       26., 27., 28., 29.], dtype=float32)"),
    (lambda: jnp.linspace(0, 1, 7), "Array([0.        , 0.16666667, 0.33333334, 0.5       , 0.6666667 ,\n"
                                     "       0.8333334 , 1.        ], dtype=float32)"),
    (lambda: jnp.arange(2000), "Array([   0,    1,    2, ..., 1997, 1998, 1999], dtype=int32)"),
], ids=lambda v: v.split(",")[0] if isinstance(v, str) else "")
def test_repr(make, expected):
    assert repr(make()) == expected


# recorded from JAX 0.10.2: an empty 1-d array names its shape; a last line with no room left
# for the dtype keeps it there, after spaces as wide as the prefix
@pytest.mark.parametrize("make,expected", [
    (lambda: jnp.zeros(0), "Array([], shape=(0,), dtype=float32)"),
    (lambda: jnp.array([1.0000001, 0.99999994, 1.4012985e-45, -1.4012985e-45, 1.4012985e-45,
                        3.4028235e+38, np.nan, np.nan]),
     "Array([ 1.0000001e+00,  9.9999994e-01,  1.4012985e-45, -1.4012985e-45,\n"
     "        1.4012985e-45,  3.4028235e+38,            nan,            nan],      dtype=float32)"),
    (lambda: jnp.ones((2, 9)) * 100,
     "Array([[100., 100., 100., 100., 100., 100., 100., 100., 100.],\n"
     "       [100., 100., 100., 100., 100., 100., 100., 100., 100.]],      dtype=float32)"),
    (lambda: jnp.ones((2, 3)), "Array([[1., 1., 1.],\n       [1., 1., 1.]], dtype=float32)"),
], ids=["empty-1d", "long-last-line", "long-last-line-2d", "fits"])
def test_repr_layout_as_jax(make, expected):
    assert repr(make()) == expected


def test_repr_follows_numpy_print_options():
    with np.printoptions(threshold=5, linewidth=40):  # JAX 0.10.2's output, recorded
        assert repr(jnp.arange(10)) == "Array([0, 1, 2, ..., 7, 8, 9], dtype=int32)"
        assert repr(jnp.arange(12.0)) == ("Array([ 0.,  1.,  2., ...,  9., 10.,\n"
                                          "       11.], dtype=float32)")


def test_str_is_numpy_str():
    assert str(jnp.array([1., 2.])) == "[1. 2.]"


# -- small helpers ---------------------------------------------------------------------------------

def test_predicates_and_shape_helpers():
    assert jnp.isscalar(1.) and jnp.isscalar(jnp.array(1.)) and jnp.isscalar(np.float32(1))
    assert not jnp.isscalar(jnp.ones(2)) and not jnp.isscalar([1])
    assert jnp.iscomplexobj(jnp.ones(2, np.complex64)) and not jnp.iscomplexobj(1.)
    assert jnp.isrealobj(jnp.ones(2))
    assert jnp.shape(jnp.ones((2, 3))) == (2, 3) and jnp.shape(3.) == ()
    assert jnp.ndim([[1, 2]]) == 2 and jnp.size(jnp.ones((2, 3))) == 6 and jnp.size(jnp.ones((2, 3)), 1) == 3
    assert jnp.broadcast_shapes((2, 1), (3,), ()) == (2, 3)
    assert jnp.finfo(jnp.bfloat16).eps == ml_dtypes.finfo(ml_dtypes.bfloat16).eps
    assert jnp.iinfo(jnp.int8).min == -128
    assert jnp.issubdtype(jnp.bfloat16, jnp.floating) and not jnp.issubdtype(jnp.float32, jnp.integer)


def test_allclose_and_array_equal():
    assert bool(jnp.allclose(jnp.array([1., 2.]), jnp.array([1., 2.000001])))
    assert not bool(jnp.allclose(jnp.array([1., np.nan]), jnp.array([1., np.nan])))
    assert bool(jnp.allclose(jnp.array([1., np.nan]), jnp.array([1., np.nan]), equal_nan=True))
    assert bool(jnp.array_equal(jnp.arange(3), jnp.arange(3)))
    assert not bool(jnp.array_equal(jnp.arange(3), jnp.arange(4)))
    assert bool(jnp.array_equal(jnp.array([np.nan]), jnp.array([np.nan]), equal_nan=True))


def test_isclose_infinities_and_nan():
    out = jnp.isclose(jnp.array([np.inf, -np.inf, np.nan, 1.]), jnp.array([np.inf, np.inf, np.nan, 1. + 1e-6]))
    assert out.tolist() == [True, False, False, True]


# -- reductions and functions: special cases -------------------------------------------------------

def test_reduction_axis_any_iterable():
    # JAX 0.10.2 takes any iterable of ints as a reduction's axis (diffrax passes a range)
    x = jnp.ones((2, 3, 4))
    assert jnp.sum(x, axis=range(2, 3)).shape == (2, 3)
    assert jnp.max(x, axis=range(1, 3)).shape == (2,)
    assert jnp.mean(x, axis=range(0)).shape == (2, 3, 4)
    assert jnp.sum(x, axis=(a for a in (0, 2))).shape == (3,)
    check(jnp.sum(x, axis=range(1, 3)), [12., 12.], np.float32)


def test_reduction_special_cases():
    check(jnp.sum(jnp.array([True, True])), 2, np.int32)
    assert np.isnan(float(jnp.mean(jnp.zeros((0,)))))
    check(jnp.max(jnp.zeros((0,)), initial=1.), 1., np.float32)
    check(jnp.sum(jnp.ones((2, 3, 4)), axis=(-1, 0)), [8., 8., 8.], np.float32)
    check(jnp.prod(jnp.array([True, False]), dtype=bool), False, np.bool_)
    check(jnp.sum(jnp.array([True, False]), dtype=bool), True, np.bool_)
    check(jnp.mean(jnp.arange(4), where=jnp.array([True, True, False, False])), 0.5, np.float32)
    check(jnp.cumsum(jnp.array([True, True, False])), [1, 2, 2], np.int32)
    check(jnp.cumsum(jnp.array([200, 100], np.uint8)), [200, 44], np.uint8)  # wraps, as JAX
    with pytest.raises(ValueError):
        jnp.max(jnp.zeros((0,)))
    with pytest.raises(ValueError):
        jnp.argmax(jnp.zeros((0,)))
    with pytest.raises(ValueError, match="initial"):
        jnp.max(jnp.arange(3.), where=jnp.array([True, False, True]))


def test_products_mixed_dtypes():
    check(jnp.einsum("i,i->", jnp.ones(3, np.int8), jnp.ones(3, np.float16)), 3., np.float16)
    check(jnp.einsum("i,i->", jnp.ones(3, np.int8), jnp.ones(3, np.int8), preferred_element_type=jnp.int32),
          3, np.int32)
    check(jnp.einsum("ij,jk->ik", jnp.ones((2, 3)), jnp.ones((3, 2)), optimize=False), np.full((2, 2), 3.), np.float32)
    check(jnp.matmul(jnp.ones((2, 2), np.int8), jnp.ones((2, 2), np.uint8)), np.full((2, 2), 2), np.int16)
    check(jnp.dot(jnp.ones(2, np.int32), jnp.ones(2, np.float16)), 2., np.float16)
    check(jnp.dot(jnp.array([True, False]), jnp.array([True, True])), True, np.bool_)
    check(jnp.matmul(jnp.array([[True, False]]), jnp.array([[True], [True]])), [[True]], np.bool_)


def test_joining_mixed_dtypes_and_empty_results():
    check(jnp.concatenate([jnp.ones(2, np.int8), jnp.ones(2, np.float16)]), np.ones(4), np.float16)
    check(jnp.stack([jnp.ones(2, np.int8), jnp.ones(2, np.uint8)]), np.ones((2, 2)), np.int16)
    check(jnp.where(jnp.array([True, False]), 1, 2.5), [1., 2.5], np.float32, weak=True)
    check(jnp.where(jnp.array([True, False]), jnp.ones(2, np.int8), 2), [1, 2], np.int8)
    check(jnp.tile(jnp.arange(3), 0), np.zeros(0), np.int32)
    check(jnp.repeat(jnp.arange(3), 0), np.zeros(0), np.int32)
    check(jnp.trace(jnp.ones((2, 2), np.int8)), 2, np.int32)
    check(jnp.diagonal(jnp.eye(2, dtype=bool)), [True, True], np.bool_)


def test_elementwise_special_values():
    check(jnp.heaviside(jnp.array([-1., 0., 2.]), 0.5), [0., 0.5, 1.], np.float32)
    check(jnp.logaddexp(jnp.array([-np.inf, np.inf, np.inf]), jnp.array([-np.inf, np.inf, -np.inf])),
          [-np.inf, np.inf, np.inf], np.float32)
    check(jnp.hypot(jnp.array([np.inf, 3.]), jnp.array([np.nan, 4.])), [np.inf, 5.], np.float32)
    check(jnp.sinc(jnp.array([0., 0.5])), [1., 0.63661975], np.float32)
    assert jnp.signbit(jnp.array([-0., 0., -np.nan, np.nan])).tolist() == [True, False, True, False]
    check(jnp.sign(jnp.array([3 + 4j, 0j])), [0.6 + 0.8j, 0], np.complex64)
    np.testing.assert_array_equal(np.asarray(jnp.spacing(jnp.array([1., -1., 0.]))),
                                  np.float32([1.1920929e-07, -1.1920929e-07, 1.4012985e-45]))
    check(jnp.ldexp(jnp.array([1., 3.]), jnp.array([2, -1])), [4., 1.5], np.float32)
    check(jnp.float_power(jnp.array([2, 3]), 2), [4., 9.], np.float32)
    check(jnp.angle(jnp.array([1j, -1.]), deg=True), [90., 180.], np.float32)
    check(jnp.round(jnp.array([1234., 1250.]), -2), [1200., 1200.], np.float32)
    check(jnp.arange(3) / 2, [0., 0.5, 1.], np.float32)
    check(jnp.ravel(jnp.arange(6).reshape(2, 3), order="F"), [0, 3, 1, 4, 2, 5], np.int32)
    check(jnp.clip(jnp.arange(5), 1.5, 3), [1.5, 1.5, 2., 3., 3.], np.float32, weak=True)
    check(jnp.clip(jnp.arange(3, dtype=np.uint8), -1, 2), [2, 2, 2], np.uint8)  # -1 wraps to 255


def test_pad_errors():
    with pytest.raises(NotImplementedError, match="bogus"):  # (JAX's class and message)
        jnp.pad(jnp.arange(4), 2, mode="bogus")
    with pytest.raises(ValueError, match="unsupported keyword arguments for mode 'reflect'"):
        jnp.pad(jnp.arange(4), 2, mode="reflect", foo=1)
    with pytest.raises(ValueError, match="empty axis"):
        jnp.pad(jnp.ones(0), 2, mode="reflect")


def test_pad_large_widths_and_callable_mode():
    x = np.arange(1, 5)
    for mode, kw in [("reflect", {}), ("reflect", {"reflect_type": "odd"}), ("symmetric", {}),
                     ("linear_ramp", {"end_values": (9, -3)}), ("mean", {"stat_length": 2})]:
        np.testing.assert_array_equal(jnp.pad(x, (6, 7), mode, **kw), np.pad(x, (6, 7), mode, **kw))
    np.testing.assert_array_equal(jnp.pad(np.ones(1), 3, "reflect"), np.pad(np.ones(1), 3, "reflect"))

    def fill(v, width, axis, kwargs):  # NumPy's callable writes in place; JAX's returns
        return v.at[:width[0]].set(-1).at[v.shape[0] - width[1]:].set(-2)

    def fill_np(v, width, axis, kwargs):
        v[:width[0]] = -1
        v[v.shape[0] - width[1]:] = -2
    np.testing.assert_array_equal(jnp.pad(x.reshape(2, 2), 1, fill), np.pad(x.reshape(2, 2), 1, fill_np))


def test_integer_division_by_zero_as_jax():
    # values recorded from JAX 0.10.2 (NumPy warns and gives 0): XLA's quotient stepped by
    # floor_divide's sign rule; remainders by 0 are 0 (the divisor is replaced by 1)
    x, z = np.array([5, -5, 0, 7], np.int32), np.zeros(4, np.int32)
    np.testing.assert_array_equal(jnp.floor_divide(x, z), [-2, -2, -1, -2])
    np.testing.assert_array_equal(jnp.remainder(x, z), [0, 0, 0, 0])
    np.testing.assert_array_equal(jnp.fmod(x, z), [0, 0, 0, 0])
    np.testing.assert_array_equal(pyjax.jit(jnp.divmod)(x, z), ([-2, -2, -1, -2], [0, 0, 0, 0]))
    u = np.array([5, 0], np.uint32)
    np.testing.assert_array_equal(jnp.floor_divide(u, np.zeros(2, np.uint32)), [2**32 - 1] * 2)
    np.testing.assert_array_equal(jnp.remainder(u, np.zeros(2, np.uint32)), [0, 0])


def test_float_floor_divide_is_pythons_divmod():
    a = np.array([1.0, -1.0, 7.5, -7.5, 0.0, 5.0, np.inf, 1.0], np.float32)
    b = np.array([0.1, 0.1, 2.0, 2.0, 3.0, 0.0, 2.0, np.inf], np.float32)
    with np.errstate(all="ignore"):
        q, r = np.floor_divide(a, b), np.remainder(a, b)
    np.testing.assert_array_equal(jnp.floor_divide(a, b), q)  # 1 // 0.1 is 9, not floor(10.000001)
    np.testing.assert_array_equal(jnp.remainder(a, b), r)
    np.testing.assert_array_equal(jnp.divmod(a, b), (q, r))


def test_array_of_a_sequence_is_not_weakly_typed():
    # JAX 0.10.2: jnp.array([a, 2a]) of a weak scalar is float32 (not weak); jnp.array(a) stays weak
    out = pyjax.jit(lambda a: jnp.array([a, a * 2]))(1.0)
    assert out.dtype == np.float32 and not out.weak_type
    assert pyjax.jit(lambda a: jnp.array(a))(1.0).weak_type


def test_arange_names_its_one_argument_stop():
    with pytest.raises(pyjax.errors.ConcretizationTypeError, match="argument 'stop'"):
        pyjax.jit(lambda n: jnp.arange(n))(3)


def test_var_with_no_degrees_of_freedom_and_traced_ddof():
    # JAX 0.10.2: NaN where ddof >= n (NumPy: inf and a warning); ddof may be traced
    x = jnp.arange(4.0)
    assert np.isnan(jnp.var(x, ddof=4)) and np.isnan(jnp.std(x, ddof=5))
    assert np.isnan(jnp.var(x, ddof=3, where=np.array([1, 1, 1, 0], bool)))
    np.testing.assert_allclose(pyjax.jit(lambda v, d: jnp.var(v, ddof=d))(x, 1), np.var(np.arange(4.0), ddof=1))
    assert np.isnan(pyjax.jit(lambda v, d: jnp.std(v, ddof=d))(x, 5))
    assert jnp.iscomplexobj(None) is False and jnp.iscomplexobj([1j]) and not jnp.iscomplexobj(x)


def test_mean_with_an_integer_dtype_divides_in_it():
    # recorded from JAX 0.10.2: the sum and the count in the asked-for dtype, divided there
    a = jnp.array([[1, 2, 3], [4, 5, 6]])
    for got, want, dt in [(jnp.mean(a, dtype=jnp.int32), 3, np.int32),
                          (jnp.mean(-a, axis=0, dtype=jnp.int32), [-2, -3, -4], np.int32),
                          (jnp.mean(a, where=a > 1, dtype=jnp.int32), 4, np.int32),
                          (jnp.mean(a, axis=1, dtype=jnp.uint8), [2, 5], np.uint8),
                          (pyjax.vmap(lambda x: jnp.mean(x, dtype=jnp.int8))(a), [2, 5], np.int8)]:
        assert got.dtype == dt
        np.testing.assert_array_equal(got, want)
    assert jnp.mean(a).dtype == np.float32 and float(jnp.mean(a)) == 3.5


@pytest.mark.parametrize("x64", [False, True], ids=["x32", "x64"])
def test_ldexp_is_exact_and_frexp_differentiable(x64):
    prev = pyjax.config.read("jax_enable_x64")
    pyjax.config.update("jax_enable_x64", x64)
    try:
        dt = np.float64 if x64 else np.float32
        x = np.array([0.5, -3.0, 0.0, np.inf, 1e-3, 1.5], dt)
        n = np.array([1, 200 if x64 else 100, 5, 2, 130, 3])
        np.testing.assert_array_equal(jnp.ldexp(x, n), np.ldexp(x, n))  # exact, as NumPy (JAX too)
        assert float(jnp.ldexp(1.0, 3)) == 8.0  # not exp2's 7.999999999999998 in float64
        with pytest.raises(ValueError, match="ldexp not supported"):
            jnp.ldexp(1.0, 2.0)
        # JAX's frexp JVP: the mantissa's tangent is t * 2**-e (recorded: grad at 3.0 is 0.25)
        assert float(pyjax.grad(lambda v: jnp.frexp(v)[0])(3.0)) == 0.25
        assert float(pyjax.grad(lambda v: jnp.ldexp(v, 3))(1.5)) == 8.0
        check_grads(lambda v: jnp.frexp(v)[0], (np.array([5.0, -0.3], dt),), order=1, modes=("fwd", "rev"))
    finally:
        pyjax.config.update("jax_enable_x64", prev)


def test_view_scales_the_last_axis_as_numpy():
    # NumPy's (and JAX 0.10.2's) view: the last axis scales with the item size ratio
    a = np.arange(12, dtype=np.int32).reshape(3, 4)
    for dt in [np.uint16, np.int8, np.float32, np.uint32]:
        np.testing.assert_array_equal(jnp.asarray(a).view(dt), a.view(dt))
    b = np.arange(8, dtype=np.uint8).reshape(2, 4)
    for dt in [np.uint16, np.uint32, np.float32]:
        np.testing.assert_array_equal(pyjax.jit(lambda x: x.view(dt))(b), b.view(dt))
    np.testing.assert_array_equal(jnp.asarray([True, False]).view(np.uint8), [1, 0])
    np.testing.assert_array_equal(jnp.asarray([1, 0, 2], np.uint8).view(bool), [True, False, True])
    with pytest.raises(ValueError, match="must be a divisor of the total size in bytes of the last axis"):
        jnp.arange(3, dtype=np.uint8).view(np.uint16)


def test_repeat_with_total_repeat_length():
    """Issue 23: total_repeat_length was ignored. As JAX 0.10.2 (values recorded from it): the
    output has exactly that length, repeats past it are cut off, the positions after the last
    repeat hold the last element, and `repeats` may be traced."""
    x = jnp.arange(6.).reshape(2, 3)
    assert jnp.repeat(jnp.arange(3), jnp.array([1, 2, 0]), total_repeat_length=4).tolist() == [0, 1, 1, 2]
    f = pyjax.jit(lambda r: jnp.repeat(jnp.arange(3), r, total_repeat_length=5))
    assert f(jnp.array([1, 2, 3])).tolist() == [0, 1, 1, 2, 2]
    assert jnp.repeat(jnp.arange(3), 2, total_repeat_length=5).tolist() == [0, 0, 1, 1, 2]
    assert jnp.repeat(x, jnp.array([2, 0, 1]), axis=1, total_repeat_length=5).tolist() == [
        [0, 0, 2, 2, 2], [3, 3, 5, 5, 5]]
    assert jnp.repeat(x, 3, axis=0, total_repeat_length=4).tolist() == [[0, 1, 2]] * 3 + [[3, 4, 5]]
    assert jnp.repeat(x, 2, total_repeat_length=0).shape == (0,)
    assert jnp.repeat(jnp.float32(7), 3, total_repeat_length=2).tolist() == [7, 7]
    g = pyjax.grad(lambda v: jnp.repeat(v, jnp.array([2, 1, 3]), total_repeat_length=5).sum())(jnp.arange(3.))
    assert g.tolist() == [2, 1, 2]
    with pytest.raises(ValueError):
        jnp.repeat(x, jnp.array([2, 1]), total_repeat_length=3)


def test_pad_with_nested_constant_values():
    """Issue 23: per-axis (before, after) constant_values as nested sequences (tracers allowed),
    as JAX 0.10.2 takes them; values recorded from JAX."""
    out = jnp.pad(jnp.arange(4.).reshape(2, 2), ((1, 0), (2, 1)), constant_values=((-1, -2), (-3, -4)))
    assert out.tolist() == [[-3, -3, -1, -1, -4], [-3, -3, 0, 1, -4], [-3, -3, 2, 3, -4]]
    assert jnp.pad(jnp.arange(3), 2, constant_values=[(5, 6)]).tolist() == [5, 5, 0, 1, 2, 6, 6]
    assert pyjax.jit(lambda v: jnp.pad(jnp.ones(2), 1, constant_values=(v, 2 * v)))(3.0).tolist() == [3, 1, 1, 6]


def test_gcd_lcm_compile_once_per_signature():
    """Issue 23 (JAX's op-by-op check): gcd/lcm are jitted as in JAX, so a second eager call of
    the same signature compiles nothing (each call compiled a fresh while loop before)."""
    from pyjax._src import test_util as jtu
    a, b = jnp.array([12, 18, -7]), jnp.array([8, 27, 21])
    for fn, want in ((jnp.gcd, [4, 9, 7]), (jnp.lcm, [24, 54, 21])):
        assert fn(a, b).tolist() == want
        with jtu.count_jit_and_pmap_lowerings() as count:
            assert fn(a, b).tolist() == want
        assert count() == 0


class _Boxed:
    """A pytree node that is also array-like through __jax_array__ (as flax's nnx.Param)."""

    def __init__(self, value):
        self.value = value

    def __jax_array__(self):
        return self.value

    dtype = property(lambda self: self.value.dtype)
    shape = property(lambda self: self.value.shape)

    def __array__(self, dtype=None, copy=None):
        return np.asarray(self.value, dtype)


pyjax.tree_util.register_pytree_node(_Boxed, lambda b: ((b.value,), None),
                                     lambda _, c: _Boxed(c[0]))


def test_jax_array_objects_are_converted_before_binding():
    # jnp.sin(param) jit-flattens the node and meets a _Boxed around a tracer: it must be
    # converted through __jax_array__, not captured as a constant (and np.asarray'd at compile)
    b = _Boxed(jnp.float32(1.0))
    np.testing.assert_allclose(jnp.sin(b), np.sin(1.0), rtol=1e-6)
    np.testing.assert_allclose(pyjax.jit(lambda q: jnp.sin(q))(b), np.sin(1.0), rtol=1e-6)
    f = lambda x: jnp.sin(_Boxed(x)) * jnp.exp(_Boxed(x))  # noqa: E731
    np.testing.assert_allclose(pyjax.grad(f)(1.0), (np.cos(1.0) + np.sin(1.0)) * np.e, rtol=1e-5)


def test_polyval_compiles_once_per_signature():
    """Issue 23 (JAX's op-by-op check in lax_numpy_operators_test): polyval is jitted with a
    static unroll as in JAX, so a second eager call of a signature compiles nothing (its Horner
    scan closed over x, a new loop body per call)."""
    from pyjax._src import test_util as jtu
    p, x = np.array([1., 0., -1.], np.float32), np.array([2., 3.], np.float16)
    assert jnp.polyval(p, x).tolist() == [3.0, 8.0]
    with jtu.count_primitive_compiles() as compiles, jtu.count_jit_and_pmap_lowerings() as lowerings:
        out = jnp.polyval(p, x)
    assert out.tolist() == [3.0, 8.0] and out.dtype == np.float32
    assert compiles() == 0 and lowerings() == 0


def test_complex_logaddexp_and_logaddexp2_match_jax():
    """Issue 23 (JAX's testLogaddexp2Complex): complex logaddexp/logaddexp2 take JAX's formula
    (lexicographic max, imaginary part wrapped into one period) and their JVP reads a +inf real
    part as 0; values recorded from JAX 0.10.2 (they mixed complex and real dtypes before)."""
    a = np.array([1 + 2j, -3 + 0.5j, 0.5 - 4j, 2 + 3.1j], np.complex64)
    b = np.array([0.3 - 1j, 2 + 2j, -1 + 0j, 2 + 3.2j], np.complex64)
    np.testing.assert_allclose(jnp.logaddexp(a, b), [0.33289 + 1.86302j, 2.0005 + 1.99328j,
                                                     0.36152 + 2.088j, 2.6919 - 3.13319j], atol=2e-5)
    np.testing.assert_allclose(jnp.logaddexp2(a, b), [0.82019 + 1.05531j, 2.02316 + 1.96174j,
                                                      -0.05159 - 3.72875j, 2.99913 + 3.15j], atol=2e-5)
    g = pyjax.grad(lambda x: jnp.logaddexp2(x, 1.0).real)(np.complex64(1 + 1j))
    np.testing.assert_allclose(g, 0.5 + 0.18057519j, rtol=1e-5)


def test_compress_condition_is_read_as_bool_without_promotion():
    """Issue 23 (JAX's testCompressMethod): a float condition is nonzero-as-True with no dtype
    promotion, so compress runs under jax_numpy_dtype_promotion='strict'."""
    with pyjax.numpy_dtype_promotion("strict"):
        assert jnp.compress(np.array([0., 1.5, 0., 2.]), np.arange(4.)).tolist() == [1.0, 3.0]
        assert jnp.arange(6.).reshape(2, 3).compress(np.array([True, False]), axis=0).tolist() == [[0., 1., 2.]]


def test_transpose_and_permute_dims_take_ndarray_axes():
    """Issue 23 (JAX's testPermuteDims passes numpy's permutation array): a 1-D ndarray of axes is a
    sequence of axes (an ndarray has __index__, which read it as one axis before)."""
    x = np.arange(24).reshape(2, 3, 4)
    assert jnp.permute_dims(x, np.array([2, 0, 1])).shape == (4, 2, 3)
    np.testing.assert_array_equal(jnp.transpose(x, np.array([1, 2, 0])), np.transpose(x, (1, 2, 0)))
    assert jnp.sum(x, axis=np.array([0, 2])).tolist() == np.sum(x, axis=(0, 2)).tolist()
