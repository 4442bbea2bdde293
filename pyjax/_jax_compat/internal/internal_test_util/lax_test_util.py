"""`jax._src.internal_test_util.lax_test_util`: the operation tables JAX's lax tests
(lax_test, lax_vmap_test, lax_autodiff_test) are parameterized over, written for pyjax with
JAX 0.10.2's entries: each elementwise operation with its arity, dtypes, input generator and
tolerance; the reductions with their identities; and the batch-dimension helpers."""
from __future__ import annotations

import collections
import itertools

import numpy as np

from pyjax import lax
from pyjax._src import dtypes, test_util as jtu

float_dtypes = jtu.dtypes.all_floating
complex_elem_dtypes = jtu.dtypes.floating
complex_dtypes = jtu.dtypes.complex
inexact_dtypes = jtu.dtypes.all_inexact
int_dtypes = jtu.dtypes.all_integer
uint_dtypes = jtu.dtypes.all_unsigned
bool_dtypes = jtu.dtypes.boolean
default_dtypes = float_dtypes + int_dtypes
number_dtypes = float_dtypes + complex_dtypes + int_dtypes + uint_dtypes
all_dtypes = number_dtypes + bool_dtypes
python_scalar_types = [bool, int, float, complex]
compatible_shapes = [[(3,)], [(3, 4), (3, 1), (1, 4)], [(2, 3, 4), (2, 1, 4)]]

OpRecord = collections.namedtuple("OpRecord", ["op", "nargs", "dtypes", "rng_factory", "tol"])
ReducerOpRecord = collections.namedtuple(
    "ReducerOpRecord", ["op", "reference_op", "init_val", "dtypes", "primitive"])
NamedReducerOpRecord = collections.namedtuple("NamedReducerOpRecord",
                                              ["op", "reference_op", "dtypes"])


def op_record(op, nargs, dtypes, rng_factory, tol=None):
    return OpRecord(op, nargs, dtypes, rng_factory, tol)


def lax_reduce_ops():
    """(op, NumPy op, identity, dtypes, reduction primitive) for lax.reduce's monoids."""
    i32, i64, u32, u64 = (np.iinfo(t) for t in (np.int32, np.int64, np.uint32, np.uint64))
    bits = int_dtypes + uint_dtypes + bool_dtypes
    R = ReducerOpRecord
    return [
        R(lax.add, np.add, 0, default_dtypes, lax.reduce_sum_p),
        R(lax.mul, np.multiply, 1, default_dtypes, lax.reduce_prod_p),
        R(lax.max, np.maximum, 0, uint_dtypes + bool_dtypes, lax.reduce_max_p),
        R(lax.max, np.maximum, -np.inf, float_dtypes, lax.reduce_max_p),
        R(lax.max, np.maximum, i32.min, [np.int32], lax.reduce_max_p),
        R(lax.max, np.maximum, i64.min, [np.int64], lax.reduce_max_p),
        R(lax.min, np.minimum, np.inf, float_dtypes, lax.reduce_min_p),
        R(lax.min, np.minimum, i32.max, [np.int32], lax.reduce_min_p),
        R(lax.min, np.minimum, i64.max, [np.int64], lax.reduce_min_p),
        R(lax.min, np.minimum, u32.max, [np.uint32], lax.reduce_min_p),
        R(lax.min, np.minimum, u64.max, [np.uint64], lax.reduce_min_p),
        R(lax.bitwise_and, np.bitwise_and, -1, bits, lax.reduce_and_p),
        R(lax.bitwise_or, np.bitwise_or, 0, bits, lax.reduce_or_p),
        R(lax.bitwise_xor, np.bitwise_xor, 0, bits, lax.reduce_xor_p),
    ]


def lax_named_reduce_ops():
    bits = bool_dtypes + int_dtypes + uint_dtypes
    N = NamedReducerOpRecord
    return [N(lax.reduce_sum, np.sum, number_dtypes), N(lax.reduce_prod, np.prod, number_dtypes),
            N(lax.reduce_max, np.max, all_dtypes), N(lax.reduce_min, np.min, all_dtypes),
            N(lax.reduce_and, np.bitwise_and.reduce, bits),
            N(lax.reduce_or, np.bitwise_or.reduce, bits),
            N(lax.reduce_xor, np.bitwise_xor.reduce, bits)]


def lax_out_dtype_ops():
    return [op_record("mul", 2, default_dtypes + complex_dtypes, jtu.rand_small)]


def lax_ops():
    """The elementwise operations: (lax name, arity, dtypes, input generator, tolerance)."""
    fc = float_dtypes + complex_dtypes
    dc = default_dtypes + complex_dtypes
    no_half = [f for f in float_dtypes if f not in (dtypes.bfloat16, np.float16)]
    no_bf16 = [f for f in float_dtypes if f != dtypes.bfloat16]
    ints = int_dtypes + uint_dtypes
    small, default, positive = jtu.rand_small, jtu.rand_default, jtu.rand_positive
    f64, c64, c128 = np.float64, np.complex64, np.complex128
    rows = [
        ("neg", 1, dc, small), ("sign", 1, default_dtypes + uint_dtypes, small),
        ("floor", 1, float_dtypes, small), ("ceil", 1, float_dtypes, small),
        ("round", 1, float_dtypes, default), ("nextafter", 2, no_bf16, default, 0),
        ("is_finite", 1, float_dtypes, small), ("exp", 1, fc, small), ("exp2", 1, fc, small),
        ("expm1", 1, fc, small, {f64: 1e-8}), ("log", 1, fc, positive),
        ("log1p", 1, fc, positive), ("tanh", 1, fc, small, {f64: 1e-9, c128: 1e-7}),
        ("logistic", 1, fc, default), ("sin", 1, fc, default), ("cos", 1, fc, default),
        ("atan2", 2, float_dtypes, default), ("sqrt", 1, float_dtypes, positive),
        ("sqrt", 1, complex_dtypes, default), ("rsqrt", 1, float_dtypes, positive),
        ("rsqrt", 1, complex_dtypes, default), ("cbrt", 1, float_dtypes, default),
        ("square", 1, fc, default), ("reciprocal", 1, fc, positive),
        ("tan", 1, fc, default, {np.float32: 3e-5}), ("asin", 1, fc, small, {c128: 5e-12}),
        ("acos", 1, fc, small), ("atan", 1, fc, small),
        ("asinh", 1, fc, default, {c64: 1e-4, c128: 1e-5}), ("acosh", 1, fc, positive),
        ("atanh", 1, fc, small, {f64: 1e-9}), ("sinh", 1, fc, default), ("cosh", 1, fc, default),
        ("lgamma", 1, float_dtypes, positive, {np.float32: 1e-5, f64: 1e-14}),
        ("digamma", 1, float_dtypes, positive, {f64: 1e-14}),
        ("betainc", 3, float_dtypes, jtu.rand_uniform, {np.float32: 2e-5, f64: 1e-12}),
        ("igamma", 2, no_half, positive, {f64: 1e-14}),
        ("igammac", 2, no_half, positive, {f64: 1e-14}),
        ("erf", 1, float_dtypes, small), ("erfc", 1, float_dtypes, small),
        ("erf_inv", 1, float_dtypes, small, {f64: 1e-9}),
        ("bessel_i0e", 1, float_dtypes, default), ("bessel_i1e", 1, float_dtypes, default),
        ("real", 1, complex_dtypes, default), ("imag", 1, complex_dtypes, default),
        ("complex", 2, complex_elem_dtypes, default),
        ("conj", 1, complex_elem_dtypes + complex_dtypes, default), ("abs", 1, dc, default),
        ("pow", 2, fc, positive), ("bitwise_and", 2, bool_dtypes, small),
        ("bitwise_not", 1, bool_dtypes, small), ("bitwise_or", 2, bool_dtypes, small),
        ("bitwise_xor", 2, bool_dtypes, small), ("population_count", 1, ints, jtu.rand_int),
        ("clz", 1, ints, jtu.rand_int), ("add", 2, dc, small), ("sub", 2, dc, small),
        ("mul", 2, dc, small), ("mulhi", 2, ints, jtu.rand_fullrange),
        ("div", 2, dc, jtu.rand_nonzero), ("rem", 2, default_dtypes, jtu.rand_nonzero),
        ("max", 2, all_dtypes, small), ("min", 2, all_dtypes, small),
        ("eq", 2, all_dtypes, jtu.rand_some_equal), ("ne", 2, all_dtypes, small),
        ("ge", 2, default_dtypes, small), ("gt", 2, default_dtypes, small),
        ("le", 2, default_dtypes, small), ("lt", 2, default_dtypes, small),
    ]
    return [op_record(*row) for row in rows]


def all_bdims(*shapes):
    """Every assignment of a batch dimension (or None) to each shape, except all None."""
    choices = [[None, *range(len(shape) + 1)] for shape in shapes]
    return (t for t in itertools.product(*choices) if not all(e is None for e in t))


def add_bdim(bdim_size, bdim, shape):
    shape = list(shape)
    if bdim is not None:
        shape.insert(bdim, bdim_size)
    return tuple(shape)


def slicer(x, bdim):
    if bdim is None:
        return lambda _: x
    return lambda i: lax.index_in_dim(x, i, bdim, keepdims=False)


def args_slicer(args, bdims):
    slicers = [slicer(a, b) for a, b in zip(args, bdims)]
    return lambda i: [sl(i) for sl in slicers]
