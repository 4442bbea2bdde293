"""Every lax primitive against its NumPy reference, driven by `op_table.LAX_OPS`; jit against
eager; `check_jaxpr` on every traced jaxpr. Then hand-written cases whose expected values were
taken from JAX 0.10.2 (clamping, padding, NaN and ties, rounding, conversions, bit operations)."""
import ml_dtypes
import numpy as np
import pytest

import pyjax
import pyjax.numpy as jnp
from pyjax import lax
from pyjax._src import core
from pyjax._src.lax.dot_general import dot_general_p
from pyjax._src.lax.shape_ops import transpose_p

from op_table import (
    LAX_OPS, LAX_TESTED_ELSEWHERE, MISSING_RULES, RULE_KINDS, all_primitives, arg_shapes,
    assert_close, cases, expected_dtype, lax_primitives, linear_primitives, make_args, params,
    traced_reference)


def _check_case(op, args, out, dtype, how):
    closed, expected = traced_reference(op.fn, args)
    what = f"{op.name} on {[core.get_aval(a).str_short() for a in args]} ({how})"
    assert out.dtype == expected_dtype(op, dtype), what
    assert (out.shape, out.dtype) == (closed.out_avals[0].shape, closed.out_avals[0].dtype), what
    assert_close(out, expected[0], op.tol, what)


def _args(op, shapes, dtype):
    return [jnp.asarray(a) for a in make_args(op, shapes, dtype)]


@pytest.mark.parametrize("op,shapes,dtype", params(LAX_OPS, eager=True))
def test_lax_op(op, shapes, dtype):
    """Eager, one executable per case: every dtype on the row's first shape."""
    args = _args(op, shapes, dtype)
    _check_case(op, args, op.fn(*args), dtype, "eager")


@pytest.mark.parametrize("op", [o for o in LAX_OPS if o.jit], ids=lambda o: o.name)
def test_lax_op_jit(op):
    """The row's first case and its other shapes (the dtypes are swept eagerly above) in one
    jitted function: one executable per row."""
    eager_cases = cases(op, eager=True)
    all_cases = eager_cases[:1] + [c for c in cases(op) if c not in eager_cases]
    arg_lists = [_args(op, s, d) for s, d in all_cases]
    outs = pyjax.jit(lambda arg_lists: [op.fn(*args) for args in arg_lists])(arg_lists)
    for (_, dtype), args, out in zip(all_cases, arg_lists, outs, strict=True):
        _check_case(op, args, out, dtype, "jit")
    eager = op.fn(*arg_lists[0])
    assert (outs[0].dtype, outs[0].weak_type) == (eager.dtype, eager.weak_type)
    assert_close(outs[0], eager, op.tol, f"{op.name}: jit vs eager")


@pytest.mark.slow
@pytest.mark.parametrize("op,shapes,dtype", params(LAX_OPS, full=True))
def test_lax_op_full(op, shapes, dtype):
    args = _args(op, shapes, dtype)
    eager = op.fn(*args)
    _check_case(op, args, eager, dtype, "eager")
    if op.jit:
        jitted = pyjax.jit(op.fn)(*args)
        _check_case(op, args, jitted, dtype, "jit")
        assert jitted.weak_type == eager.weak_type


# -- the table covers every primitive ------------------------------------------------------------

def test_every_lax_primitive_has_a_row():
    covered = {o.primitive for o in LAX_OPS} | set(LAX_TESTED_ELSEWHERE)
    missing = sorted(set(lax_primitives()) - covered)
    assert not missing, f"lax primitives without an op-table row: {missing}"
    unknown = sorted({o.primitive for o in LAX_OPS} - set(lax_primitives()))
    assert not unknown, f"op-table rows naming no primitive: {unknown}"


def test_every_primitive_has_its_rules():
    """Every primitive pyjax defines, kind by kind: impl, abstract_eval, jvp, transpose (where a
    JVP applies the primitive to tangents), batch, lowering, np_impl. The rules missing are
    exactly the documented `MISSING_RULES` (a new gap, or an exception no longer needed, fails)."""
    prims, linear = all_primitives(), linear_primitives()
    missing = {kind: sorted(n for n, p in prims.items() if getattr(p, kind) is None
                            and (kind != "transpose" or n in linear)) for kind in RULE_KINDS}
    print("\n".join(f"missing {kind}: {names}" for kind, names in missing.items()))
    wrong = {kind: {"undocumented": sorted(set(names) - set(MISSING_RULES[kind])),
                    "documented but present": sorted(set(MISSING_RULES[kind]) - set(names))}
             for kind, names in missing.items() if set(names) != set(MISSING_RULES[kind])}
    assert not wrong, wrong
    assert set(MISSING_RULES) == set(RULE_KINDS)


def test_rule_coverage_sees_every_kind_of_primitive():
    """The coverage above reaches past lax, and its notion of linear is right on known cases."""
    prims = all_primitives()
    assert {"sin", "psum", "scan", "jit", "add_any", "custom_lin", "remat2"} <= set(prims)
    linear = linear_primitives()
    assert {"mul", "dot_general", "reduce_sum", "select_n", "cumsum", "scan", "cond", "jit",
            "custom_lin"} <= linear
    assert not {"sin", "exp", "reduce_max", "integer_pow", "pow", "custom_vjp_call"} & linear


def test_rows_exercise_their_primitive():
    for op in LAX_OPS:
        names = set()
        for shapes, dtype in cases(op):
            names |= {e.primitive.name for e in pyjax.make_jaxpr(op.fn)(*make_args(op, shapes, dtype)).eqns}
        assert op.primitive in names, f"{op.name}: its jaxprs have {names}, not {op.primitive}"


def test_row_names_are_unique():
    names = [o.name for o in LAX_OPS]
    assert len(names) == len(set(names)), sorted(n for n in names if names.count(n) > 1)


def test_shapes_are_per_argument():
    for o in LAX_OPS:
        for s in o.shapes:
            assert len(arg_shapes(o, s)) == o.nargs, o.name


# -- hand-written cases (expected values from JAX 0.10.2) ----------------------------------------

f32 = np.float32


def check(actual, expected, dtype=None):
    assert_close(actual, np.asarray(expected, dtype or actual.dtype))
    if dtype is not None:
        assert actual.dtype == np.dtype(dtype)


X45 = jnp.arange(20.).reshape(4, 5)


@pytest.mark.parametrize("starts,sizes,expected", [
    ((3, 9), (2, 2), [[13, 14], [18, 19]]),       # clamped at the high end
    ((-5, 1), (2, 3), [[1, 2, 3], [6, 7, 8]]),     # -5 + 4 = -1, clamped to 0
    ((-1, -1), (2, 2), [[13, 14], [18, 19]]),      # negative indices count from the end
    ((1, 2), (0, 2), np.zeros((0, 2))),
])
def test_dynamic_slice_clamps(starts, sizes, expected):
    check(lax.dynamic_slice(X45, starts, sizes), expected, f32)
    traced = pyjax.jit(lambda x, i, j: lax.dynamic_slice(x, (i, j), sizes))
    check(traced(X45, np.int32(starts[0]), np.int32(starts[1])), expected, f32)


def test_dynamic_update_slice_clamps():
    expected = np.zeros((4, 5), f32)
    expected[2:, 2:] = 1
    check(lax.dynamic_update_slice(jnp.zeros((4, 5)), jnp.ones((2, 3)), (7, -2)), expected)
    f = pyjax.jit(lambda x, u, i: lax.dynamic_update_slice(x, u, (i, np.int32(-2))))
    check(f(jnp.zeros((4, 5)), jnp.ones((2, 3)), np.int32(7)), expected)


def test_pad_negative_and_interior():
    x = jnp.arange(1., 13.).reshape(4, 3)
    expected = [[-1, -1, 5, -1, -1, 6, -1, -1, -1], [-1] * 9,
                [-1, -1, 8, -1, -1, 9, -1, -1, -1], [-1] * 9]
    check(lax.pad(x, -1., [(-2, -1, 1), (-1, 3, 2)]), expected, f32)
    check(lax.pad(jnp.arange(1., 5.), 0., [(-1, 2, 0)]), [2, 3, 4, 0, 0], f32)
    check(lax.pad(jnp.arange(1, 4), 0, [(1, 0, 2)]), [0, 1, 0, 0, 2, 0, 0, 3], np.int32)


def test_pad_to_empty():
    check(lax.pad(jnp.arange(3.), 0., [(-2, -1, 0)]), np.zeros(0), f32)


NAN_ROWS = jnp.array([[1., np.nan, 3., np.nan], [2., 5., 5., 1.], [-np.inf, -np.inf, 0., 0.]])


def test_argmax_argmin_nan_and_ties():
    check(lax.argmax(NAN_ROWS, 1, np.int32), [1, 1, 2], np.int32)   # first NaN wins, ties: lowest
    check(lax.argmin(NAN_ROWS, 1, np.int32), [1, 3, 0], np.int32)
    check(lax.argmax(jnp.array([[3, 1, 3], [0, 0, 0]]), 1, np.int32), [0, 0], np.int32)
    check(lax.argmin(jnp.array([[3, 1, 1], [0, 0, 0]]), 1, np.int32), [1, 0], np.int32)
    check(lax.argmax(jnp.array([False, True, True]), 0, np.int32), 1, np.int32)
    check(pyjax.jit(lambda x: lax.argmax(x, 1, np.int32))(NAN_ROWS), [1, 1, 2], np.int32)


def test_argmax_index_dtype_canonicalized():
    assert lax.argmax(jnp.ones(3), 0, np.int64).dtype == np.int32  # x64 is off


@pytest.mark.parametrize("x,y,expected,dtype", [
    ([2., -4., 0.5], -2, [0.25, 0.0625, 4.], f32),
    ([2., -4., 0.5], -3, [0.125, -0.015625, 8.], f32),
    ([2, -3, 5], 3, [8, -27, 125], np.int32),
    ([2, -3, 100], 7, [-128, 117, 0], np.int8),           # wraps around
    ([0., np.nan, np.inf], 0, [1., 1., 1.], f32),
    ([1 + 1j, 2j], -1, [0.5 - 0.5j, -0.5j], np.complex64),
])
def test_integer_pow(x, y, expected, dtype):
    check(lax.integer_pow(jnp.array(x, dtype), y), expected, dtype)


@pytest.mark.parametrize("x,dtype,expected", [
    ([1.7, -1.7, 0.5, -0.5, 2.5, 126.9], np.int8, [1, -1, 0, 0, 2, 126]),   # truncates
    ([1.7, 0.5, 2.5, 200.9], np.uint8, [1, 0, 2, 200]),
    ([1.5 + 2j, -3 - 4j], f32, [1.5, -3.]),                                 # drops imag
    ([1.5 + 2j, -3 - 4j], np.int32, [1, -3]),
    ([2j, 0j, 1 + 0j], np.bool_, [False, False, True]),                     # real part != 0
    ([0., -0., 0.1, np.nan, -np.inf], np.bool_, [False, False, True, True, True]),
    ([0, 2, -1], np.bool_, [False, True, True]),
    ([True, False], f32, [1., 0.]),
    ([65504, 2049, 70000], np.float16, [65504., 2048., np.inf]),
    ([np.nan, np.inf, -np.inf, 1e10], np.int32, [0, 2147483647, -2147483648, 2147483647]),
])
def test_convert_element_type_values(x, dtype, expected):
    src = np.asarray(x)
    src = src.astype(np.complex64 if src.dtype.kind == "c" else
                     f32 if src.dtype.kind == "f" else src.dtype)
    arr = jnp.asarray(src)
    check(lax.convert_element_type(arr, dtype), expected, dtype)
    check(pyjax.jit(lambda v: lax.convert_element_type(v, dtype))(arr), expected, dtype)


def test_convert_element_type_to_bfloat16_rounds():
    out = lax.convert_element_type(jnp.array([1.00390625, 3.14159]), jnp.bfloat16)
    np.testing.assert_array_equal(np.asarray(out).astype(f32), [1., 3.140625])


def test_convert_element_type_weak_type():
    x = jnp.array(1.5) + 1  # weak f32
    assert x.weak_type
    assert not lax.convert_element_type(x, np.float32).weak_type


@pytest.mark.parametrize("x,dtype,expected", [
    (np.array([1.0, -2.0], f32), np.uint8, [[0, 0, 128, 63], [0, 0, 0, 192]]),
    (np.array([[0, 0, 128, 63], [0, 0, 0, 192]], np.uint8), f32, [1., -2.]),
    (np.array([1, -1, 65536], np.int32), np.int16, [[1, 0], [-1, -1], [0, 1]]),
    (np.array([1.0, -2.0], np.float16), np.int16, [15360, -16384]),
    (np.array([1.0, -0.0], f32), np.int32, [1065353216, -2147483648]),
    (np.array(1.0, f32), np.int8, [0, 0, -128, 63]),
])
def test_bitcast_convert_type_values(x, dtype, expected):
    check(lax.bitcast_convert_type(jnp.asarray(x), dtype), expected, dtype)


HALVES = jnp.array([0.5, 1.5, 2.5, -0.5, -1.5, -2.5, 0.49999997, 3.7, -3.7])


def test_round_both_methods():
    check(lax.round(HALVES, lax.RoundingMethod.AWAY_FROM_ZERO), [1, 2, 3, -1, -2, -3, 0, 4, -4])
    out = lax.round(HALVES, lax.RoundingMethod.TO_NEAREST_EVEN)
    check(out, [0, 2, 2, -0., -2, -2, 0, 4, -4])
    assert np.signbit(np.asarray(out)[3])  # -0.5 rounds to -0.
    check(lax.round(HALVES.astype(jnp.bfloat16), 1), [0, 2, 2, 0, -2, -2, 0, 4, -4], jnp.bfloat16)


def test_round_rejects_integers():
    with pytest.raises(TypeError, match="round"):
        lax.round(jnp.array([1, 2]))


def test_nextafter():
    x = jnp.array([1., 1., 0., 0., -0., np.inf, np.nan, 1.], f32)
    y = jnp.array([2., 0., 1., -1., 1., 0., 1., np.nan], f32)
    tiny = np.float32(1.4012985e-45)  # the smallest subnormal: not flushed to zero
    check(lax.nextafter(x, y), [1.0000001, 0.99999994, tiny, -tiny, tiny, 3.4028235e+38, np.nan, np.nan])
    assert np.asarray(lax.nextafter(x, y))[0] == np.nextafter(f32(1), f32(2))
    out16 = lax.nextafter(jnp.array([1., 0.], np.float16), jnp.array([2., 1.], np.float16))
    np.testing.assert_array_equal(np.asarray(out16), np.nextafter(np.float16([1, 0]), np.float16([2, 1])))
    outbf = np.asarray(lax.nextafter(jnp.array([1., 0.], jnp.bfloat16), jnp.array([2., 1.], jnp.bfloat16)))
    np.testing.assert_array_equal(outbf, np.array([1.0078125, 9.18355e-41], jnp.bfloat16))


@pytest.mark.parametrize("x,dtype,popcnt,clz", [
    ([0, 1, -1, 127, -128], np.int8, [0, 1, 8, 7, 1], [8, 7, 0, 1, 0]),
    ([0, 1, 4294967295, 255], np.uint32, [0, 1, 32, 8], [32, 31, 0, 24]),
    ([0, -1, 7, -2147483648], np.int32, [0, 32, 3, 1], [32, 0, 29, 0]),
    ([0, 1, 65535], np.uint16, [0, 1, 16], [16, 15, 0]),
])
def test_population_count_and_clz(x, dtype, popcnt, clz):
    arr = jnp.asarray(np.array(x).astype(dtype))
    check(lax.population_count(arr), popcnt, dtype)
    check(lax.clz(arr), clz, dtype)
    p = lax_primitives()
    np.testing.assert_array_equal(p["population_count"].np_impl(np.asarray(arr)), popcnt)
    np.testing.assert_array_equal(p["clz"].np_impl(np.asarray(arr)), clz)


@pytest.mark.parametrize("fn,x,s,expected", [
    (lax.shift_left, np.int8([1, -8, 5, -1]), np.int8([1, 2, 8, 9]), [2, -32, 0, 0]),  # >= bit width
    (lax.shift_right_logical, np.int8([1, -8, 5, -1]), np.int8([1, 2, 8, 9]), [0, 62, 0, 0]),
    (lax.shift_right_arithmetic, np.int8([1, -8, 5, -1]), np.int8([1, 2, 8, 9]), [0, -2, 0, -1]),
    (lax.shift_left, np.int32([1, 1]), np.int32([-1, 100]), [0, 0]),
    (lax.shift_right_arithmetic, np.int32([-5, 5]), np.int32([-1, 33]), [-1, 0]),
    (lax.shift_right_logical, np.uint8([255, 128, 1]), np.uint8([1, 7, 8]), [127, 1, 0]),
    (lax.shift_right_arithmetic, np.uint8([255, 128, 1]), np.uint8([1, 7, 8]), [255, 255, 0]),
])
def test_shifts(fn, x, s, expected):
    check(fn(jnp.asarray(x), jnp.asarray(s)), expected, x.dtype)
    prim = lax_primitives()[fn.__name__]
    np.testing.assert_array_equal(prim.np_impl(x, s), np.asarray(expected, x.dtype))


def test_select_n_int_predicate_three_cases():
    which = jnp.array([[0, 1, 2], [2, 1, 0]], np.int32)
    cases3 = [jnp.full((2, 3), v, f32) for v in (10., 20., 30.)]
    check(lax.select_n(which, *cases3), [[10, 20, 30], [30, 20, 10]], f32)
    check(pyjax.jit(lax.select_n)(which, *cases3), [[10, 20, 30], [30, 20, 10]], f32)
    check(lax.select_n(np.int32(2), jnp.zeros(3), jnp.ones(3), jnp.full(3, 2.)), [2, 2, 2], f32)


@pytest.mark.parametrize("pred", [jnp.array([True, False]), jnp.array([1, 0], np.uint32),
                                  jnp.array([1, 0], np.int8), jnp.array([1, 0], np.int32)])
def test_select_n_predicate_dtypes(pred):
    check(lax.select_n(pred, jnp.array([1., 2.]), jnp.array([3., 4.])), [3., 2.], f32)


def test_select_n_one_case_and_select():
    check(lax.select_n(jnp.array([True, False]), jnp.array([1., 2.])), [1., 2.], f32)
    check(lax.select(jnp.array([True, False]), jnp.array([1., 2.]), jnp.array([3., 4.])), [1., 4.])


def test_clamp():
    check(lax.clamp(-1., jnp.array([-3., 0.5, 7., np.nan]), 2.), [-1., 0.5, 2., np.nan], f32)
    check(lax.clamp(jnp.array([0, 5, 0]), jnp.array([3, 3, 3]), jnp.array([1, 6, 9])), [1, 5, 3], np.int32)
    check(lax.clamp(0, jnp.array([3, -3], np.int32), 2), [2, 0], np.int32)


def test_dot_general_preferred_element_type():
    a = jnp.ones((2, 3), np.int8) * 100
    out = lax.dot_general(a, jnp.ones((3, 2), np.int8), (((1,), (0,)), ((), ())),
                          preferred_element_type=np.int32)
    check(out, np.full((2, 2), 300), np.int32)  # accumulates in int32: no int8 overflow
    out = lax.dot_general(jnp.ones((2, 3), jnp.bfloat16), jnp.ones((3, 2), jnp.bfloat16),
                          (((1,), (0,)), ((), ())), preferred_element_type=np.float32)
    check(out, np.full((2, 2), 3.), f32)
    out = lax.dot_general(jnp.ones((2, 3), np.int8), jnp.ones((3, 2), f32), (((1,), (0,)), ((), ())),
                          preferred_element_type=f32)
    check(out, np.full((2, 2), 3.), f32)


def test_dot_general_batch_dims_order():
    lhs = jnp.asarray(np.random.RandomState(0).randn(4, 3, 2).astype(f32))
    rhs = jnp.asarray(np.random.RandomState(1).randn(2, 5, 4).astype(f32))
    out = lax.dot_general(lhs, rhs, (((0,), (2,)), ((2,), (0,))))
    assert out.shape == (2, 3, 5)  # batch, lhs free, rhs free
    assert_close(out, np.einsum("kib,bjk->bij", np.asarray(lhs), np.asarray(rhs)), 1e-5)


# Gradients of contractions with batch dimensions (and every way of spelling precision): JAX's
# own lax_autodiff tests pass `precision=lax.Precision.HIGHEST`, which pyjax once lowered to a
# precision attribute XLA could not parse ("expected valid keyword or string").
_RS = np.random.RandomState(3)
def _einsum(spec):
    return lambda a, b: np.einsum(spec, a, b)


_BATCHED_CONTRACTIONS = [  # name, pyjax function, NumPy reference, shapes
    ("einsum bij,bjk", lambda a, b: jnp.einsum("bij,bjk->bik", a, b), _einsum("bij,bjk->bik"),
     (2, 3, 4), (2, 4, 5)),
    ("einsum bij,bkj", lambda a, b: jnp.einsum("bij,bkj->bik", a, b), _einsum("bij,bkj->bik"),
     (2, 3, 4), (2, 5, 4)),
    ("einsum ij,bjk", lambda a, b: jnp.einsum("ij,bjk->bik", a, b), _einsum("ij,bjk->bik"),
     (3, 4), (2, 4, 5)),
    ("matmul", jnp.matmul, np.matmul, (2, 3, 4), (2, 4, 5)),
    ("matmul broadcast", jnp.matmul, np.matmul, (1, 3, 4), (2, 4, 5)),
    ("dot_general HIGHEST", lambda a, b: lax.dot_general(
        a, b, (((2,), (1,)), ((0,), (0,))), precision=lax.Precision.HIGHEST),
     _einsum("bij,bjk->bik"), (2, 3, 4), (2, 4, 5)),
    ("dot_general batch not leading", lambda a, b: lax.dot_general(
        a, b, (([2], [0]), ([1], [2])), precision=(lax.Precision.HIGHEST, lax.Precision.DEFAULT)),
     _einsum("ibc,cjb->bij"), (3, 5, 2), (2, 4, 5)),
    ("dot_general strings", lambda a, b: lax.dot_general(
        a, b, (([3], [0]), ([2], [3])), precision=("highest", "bfloat16")),
     _einsum("ijbc,cklb->bijkl"), (7, 3, 5, 2), (2, 2, 4, 5)),
    ("einsum precision", lambda a, b: jnp.einsum("bij,bjk->bik", a, b, precision="highest"),
     _einsum("bij,bjk->bik"), (2, 3, 4), (2, 4, 5)),
]


@pytest.mark.parametrize("name,f,np_f,lshape,rshape", _BATCHED_CONTRACTIONS,
                         ids=[c[0] for c in _BATCHED_CONTRACTIONS])
def test_batched_contraction_values_and_grads(name, f, np_f, lshape, rshape):
    from pyjax._src.public_test_util import check_grads_refined as check_grads
    a, b = _RS.randn(*lshape).astype(f32), _RS.randn(*rshape).astype(f32)
    expected = np_f(a.astype(np.float64), b.astype(np.float64))
    assert_close(f(a, b), expected, 1e-4)
    assert_close(pyjax.jit(f)(a, b), expected, 1e-4)
    check_grads(f, (a, b), order=2, modes=["fwd", "rev"])
    check_grads(pyjax.jit(f), (a, b), order=1, modes=["rev"])
    jac_a, jac_b = pyjax.jacrev(f, argnums=(0, 1))(a, b)
    assert jac_a.shape == expected.shape + lshape and jac_b.shape == expected.shape + rshape


@pytest.mark.parametrize("ldt,rdt", [(jnp.bfloat16, jnp.bfloat16), (np.float16, np.float32),
                                     (np.float32, np.float32)])
def test_batched_contraction_grads_with_preferred_element_type(ldt, rdt):
    dn = (((2,), (1,)), ((0,), (0,)))
    f = lambda a, b: lax.dot_general(a, b, dn, precision=lax.Precision.HIGHEST,
                                     preferred_element_type=np.float32)
    a, b = _RS.randn(2, 3, 4).astype(ldt), _RS.randn(2, 4, 5).astype(rdt)
    out = f(a, b)
    assert out.dtype == f32
    assert_close(out, np.einsum("bij,bjk->bik", a.astype(f32), b.astype(f32)), 2e-2)
    ga, gb = pyjax.grad(lambda a, b: f(a, b).sum(), argnums=(0, 1))(a, b)
    assert (ga.dtype, gb.dtype) == (np.dtype(ldt), np.dtype(rdt))
    ones = np.ones((2, 3, 5), f32)
    assert_close(ga, np.einsum("bik,bjk->bij", ones, b.astype(f32)), 5e-2)
    assert_close(gb, np.einsum("bij,bik->bjk", a.astype(f32), ones), 5e-2)


# (lhs dtype, rhs dtype, result dtype) of dot_general with mixed operands, as JAX 0.10.2 gives
# them (XLA's "higher precision type", not the promotion lattice: uint8 x int8 is int8).
@pytest.mark.parametrize("ldt,rdt,out_dt", [
    (np.int32, np.int8, np.int32), (jnp.bfloat16, np.float16, jnp.bfloat16),
    (np.bool_, np.float32, np.float32), (np.float32, np.complex64, np.complex64),
    (np.uint8, np.int8, np.int8), (jnp.int4, np.int8, np.int8), (np.float32, np.int32, np.float32)])
def test_dot_general_mixed_operand_dtypes(ldt, rdt, out_dt):
    a = _RS.randint(0, 3, (2, 3)).astype(ldt)
    b = _RS.randint(0, 3, (3, 2)).astype(rdt)
    dn = (((1,), (0,)), ((), ()))
    expected = np.asarray(a, np.complex128) @ np.asarray(b, np.complex128)
    for fn in (lax.dot_general, pyjax.jit(lax.dot_general, static_argnums=2)):
        out = fn(a, b, dn)
        assert out.dtype == np.dtype(out_dt)
        assert_close(np.asarray(out, np.complex128), expected, 1e-6)


def test_dot_general_mixed_dtype_gradient_needs_no_conversion():
    dn = (((1,), (0,)), ((), ()))
    x, w = np.ones((2, 3), f32), np.arange(6, dtype=np.int32).reshape(3, 2)
    g = pyjax.grad(lambda x: lax.dot_general(x, w, dn).sum())(x)
    assert g.dtype == f32
    assert_close(g, np.ones((2, 2)) @ w.T.astype(f32), 1e-6)
    text = str(pyjax.make_jaxpr(pyjax.grad(lambda x: lax.dot_general(x, w, dn).sum()))(x))
    assert "convert_element_type" not in text  # as JAX: the int operand enters the dot as is


@pytest.mark.parametrize("dt,pet", [(np.int32, np.int8), (np.int32, np.float16),
                                    (np.complex64, np.float16)])
def test_dot_general_preferred_element_type_may_not_narrow(dt, pet):
    a = np.ones((2, 3), dt)
    with pytest.raises(TypeError, match="narrower"):  # TypeError as JAX
        lax.dot_general(a, a.T, (((1,), (0,)), ((), ())), preferred_element_type=pet)


def test_dot_general_precision_is_canonical_and_kept_by_the_transpose():
    f = lambda a, b: lax.dot_general(a, b, (((2,), (1,)), ((0,), (0,))),
                                     precision=(lax.Precision.HIGHEST, lax.Precision.DEFAULT))
    a, b = np.ones((2, 3, 4), f32), np.ones((2, 4, 5), f32)
    out, pullback = pyjax.vjp(f, a, b)
    text = str(pyjax.make_jaxpr(pullback)(out))
    assert text.count("precision=(Precision.HIGHEST, Precision.DEFAULT)") == 2  # as JAX prints
    for spelling in ["highest", "float32", lax.Precision.HIGHEST, ("highest", "float32")]:
        eqn = pyjax.make_jaxpr(lambda a, b: lax.dot_general(
            a, b, (((2,), (1,)), ((0,), (0,))), precision=spelling))(a, b).eqns[0]
        assert eqn.params["precision"] == (lax.Precision.HIGHEST, lax.Precision.HIGHEST)
    assert lax.Precision("tensorfloat32") is lax.Precision.HIGH
    assert repr(lax.Precision.HIGH) == "Precision.HIGH" and str(lax.Precision.HIGH) == "HIGH"


@pytest.mark.parametrize("bad", ["x", 2, ("highest",), ("highest", "x"), 1.5])
def test_dot_general_bad_precision_is_a_value_error(bad):
    with pytest.raises(ValueError, match="recision"):  # JAX raises ValueError too
        lax.dot_general(np.ones((2, 3), f32), np.ones((3, 2), f32), (((1,), (0,)), ((), ())),
                        precision=bad)


def test_dot_general_bool():
    out = lax.dot_general(jnp.array([[True, False]]), jnp.array([[True], [True]]), (((1,), (0,)), ((), ())))
    check(out, [[True]], np.bool_)


@pytest.mark.parametrize("x,y,div,rem", [
    ([7, -7, 7, -7], [2, 2, -2, -2], [3, -3, -3, 3], [1, -1, 1, -1]),          # C semantics
    ([7.5, -7.5, 7.5, -7.5], [2., 2., -2., -2.], [3.75, -3.75, -3.75, 3.75], [1.5, -1.5, 1.5, -1.5]),
])
def test_div_rem_signs(x, y, div, rem):
    x, y = jnp.array(x), jnp.array(y)
    check(lax.div(x, y), div)
    check(lax.rem(x, y), rem)


def test_integer_division_by_zero():
    x, zero = jnp.array([7, -7, 0]), jnp.array([0, 0, 0])
    check(lax.div(x, zero), [-1, -1, -1], np.int32)
    check(lax.rem(x, zero), [7, -7, 0], np.int32)


@pytest.mark.parametrize("x,expected", [
    (np.array([-2., -0., 0., 3., np.nan], f32), [-1., -0., 0., 1., np.nan]),
    (np.array([3 + 4j, 0j], np.complex64), [0.6 + 0.8j, 0]),
    (np.array([-2, 0, 5], np.int8), [-1, 0, 1]),
    (np.array([0, 5], np.uint32), [0, 1]),
    (np.array([0, 200], np.uint8), [0, 1]),
])
def test_sign(x, expected):
    check(lax.sign(jnp.asarray(x)), expected, x.dtype)


def test_max_min_propagate_nan():
    x, y = jnp.array([1., np.nan, 0.]), jnp.array([np.nan, 2., -0.])
    check(lax.max(x, y), [np.nan, np.nan, 0.])
    check(lax.min(x, y), [np.nan, np.nan, -0.])
    check(lax.max(jnp.array([1 + 2j, 1 + 1j]), jnp.array([1 + 1j, 2 + 0j])), [1 + 2j, 2 + 0j])  # lexicographic


def test_abs_and_neg_wrap():
    check(lax.abs(jnp.array([-128, -3], np.int8)), [-128, 3], np.int8)
    check(lax.abs(jnp.array([3 + 4j])), [5.], f32)
    check(lax.neg(jnp.array([1, 0], np.uint8)), [255, 0], np.uint8)


def test_misc_special_values():
    check(lax.exp2(jnp.array([0., 1., -1., 10., 0.5])), [1., 2., 0.5, 1024., 1.4142135])
    check(lax.logistic(jnp.array([0., 100., -100.])), [0.5, 1., 0.])
    check(lax.pow(jnp.array([2., -2., 0.]), jnp.array([3, 3, -1], np.int32)), [8., -8., np.inf])
    check(lax.pow(jnp.array([2., -2., 0.]), jnp.array([0.5, 2., -1.])), [1.4142135, 4., np.inf])
    check(lax.is_finite(jnp.array([1., np.inf, np.nan, -np.inf])), [True, False, False, False])
    check(lax.erf_inv(jnp.array([-1., 1., 0.5, 2.])), [-np.inf, np.inf, 0.47693628, np.nan])
    check(lax.rsqrt(jnp.array([0., 4.])), [np.inf, 0.5])
    check(lax.cbrt(jnp.array([-8., 27.])), [-2., 3.])
    check(lax.conj(jnp.array([1., 2.])), [1 + 0j, 2 + 0j], np.complex64)
    check(lax.complex(jnp.array([1., 2.]), f32(3)), [1 + 3j, 2 + 3j], np.complex64)


def test_reductions_special():
    check(lax.reduce_max(jnp.array([1., np.nan, 3.]), (0,)), np.nan, f32)
    check(lax.reduce_min(jnp.zeros((0, 2)), (0,)), [np.inf, np.inf], f32)
    check(lax.reduce_max(jnp.zeros((0, 2), np.int8), (0,)), [-128, -128], np.int8)
    check(lax.reduce_prod(jnp.zeros((0, 2), np.int32), (0,)), [1, 1], np.int32)
    check(lax.reduce_and(jnp.array([6, 3], np.int32), (0,)), 2, np.int32)
    check(lax.reduce_or(jnp.zeros((0,), np.uint8), (0,)), 0, np.uint8)
    check(lax.reduce_and(jnp.zeros((0,), np.uint8), (0,)), 255, np.uint8)
    check(lax.reduce_and(jnp.zeros((0,), bool), (0,)), True, np.bool_)


def test_iota_and_shape_helpers():
    check(lax.iota(np.float16, 3), [0., 1., 2.], np.float16)
    check(lax.broadcasted_iota(np.int32, (2, 3), 1), [[0, 1, 2], [0, 1, 2]], np.int32)
    assert lax.iota(np.int64, 2).dtype == np.int32  # x64 is off
    assert lax.expand_dims(jnp.ones((2, 3)), (0, 3)).shape == (1, 2, 3, 1)
    assert lax.expand_dims(jnp.ones((2, 3)), (-1,)).shape == (2, 3, 1)
    check(lax.reshape(jnp.arange(6).reshape(2, 3), (3, 2), dimensions=(1, 0)), [[0, 3], [1, 4], [2, 5]])
    check(lax.rev(jnp.arange(6).reshape(2, 3), (0, 1)), [[5, 4, 3], [2, 1, 0]])
    check(lax.slice(jnp.arange(10), (1,), (9,), (3,)), [1, 4, 7])
    assert lax.squeeze(jnp.ones((2, 1, 3)), (-2,)).shape == (2, 3)
    assert lax.broadcast(jnp.ones((2,)), (3, 4)).shape == (3, 4, 2)


# -- weak types (Python scalars adopt the array operand's dtype) ----------------------------------

def test_python_scalars_take_the_array_dtype():
    # NB: JAX 0.10.2's lax rejects mixed dtypes even for Python scalars; pyjax gives the scalar
    # the array's dtype (documented in pyjax/_src/lax/convert.py).
    x16 = jnp.ones(2, np.float16)
    out = lax.add(x16, 1)
    assert (out.dtype, out.weak_type) == (np.float16, False)
    out = lax.mul(2, 3)
    assert (out.dtype, out.weak_type) == (np.int32, True)


def test_weak_type_propagates():
    w = jnp.array(2.0) + 1
    assert w.weak_type
    assert lax.reduce_sum(w, ()).weak_type
    assert lax.neg(w).weak_type
    assert not lax.add(w, jnp.array(1.0, f32)).weak_type
    assert not lax.concatenate([jnp.array([1.]) + 1., jnp.array([2.])], 0).weak_type


def test_bfloat16_dtype_is_ml_dtypes():
    out = lax.add(jnp.ones(2, jnp.bfloat16), jnp.ones(2, jnp.bfloat16))
    assert out.dtype == ml_dtypes.bfloat16


def test_64bit_inputs_canonicalize_to_32bit():
    """x64 is off: int64/float64/complex128 NumPy inputs run as int32/float32/complex64."""
    for x, dt in ((np.arange(3, dtype=np.int64), np.int32), (np.arange(3.), np.float32),
                  (np.arange(3.) * 1j, np.complex64), (np.arange(3, dtype=np.uint64), np.uint32)):
        out = lax.add(x, x)
        assert out.dtype == dt
        np.testing.assert_array_equal(np.asarray(out), (x + x).astype(dt))
        assert pyjax.jit(lax.add)(x, x).dtype == dt


def test_pure_abstract_evals_are_cached_and_their_errors_are_not():
    """Primitives flagged `pure_abstract_eval` (the elementwise families, dot_general, the
    shape ops, reductions) answer repeated questions from a cache: the same aval object, equal
    to what the rule computes. Errors are never cached, a list param skips the cache, and every
    flagged primitive has a single result."""
    def shape_rule(p):  # (under sharding in types the cached rule sits inside its wrapper)
        return getattr(p.abstract_eval, "shape_rule", p.abstract_eval)

    a, b = core.ShapedArray((2, 3), np.float32), core.ShapedArray((3, 4), np.float32)
    params = dict(dimension_numbers=(((1,), (0,)), ((), ())), precision=None,
                  preferred_element_type=None)
    rule = shape_rule(dot_general_p)
    out = rule(a, b, **params)
    assert rule(a, b, **params) is out
    assert out == rule.uncached(a, b, **params) == core.ShapedArray((2, 4), np.float32)
    bad = core.ShapedArray((5, 4), np.float32)
    for _ in range(2):
        with pytest.raises(TypeError, match="contracting dimensions to have the same shape"):
            rule(a, bad, **params)
    assert shape_rule(transpose_p)(a, permutation=[1, 0]) == core.ShapedArray((3, 2), np.float32)
    flagged = [p for p in core.all_primitives() if p.pure_abstract_eval]
    assert len(flagged) > 50 and not any(p.multiple_results for p in flagged)
    # through tracing: the second bad call raises as the first did
    f = lambda x, w: x @ w  # noqa: E731
    for _ in range(2):
        with pytest.raises(TypeError):
            pyjax.make_jaxpr(f)(np.ones((2, 3), np.float32), np.ones((5, 4), np.float32))
