"""`jax._src.test_util` (jtu) on pyjax: the pieces with behaviour, against values recorded from
JAX 0.10.2 (tests/data/record_test_util.py), and the sampling of tools/jax_suite_plugin.py."""
import json
import pathlib
import sys
import unittest

import ml_dtypes
import numpy as np
import pytest

from pyjax._src import test_util as jtu

DATA = json.loads((pathlib.Path(__file__).parent / "data" / "test_util.json").read_text())
TOOLS = pathlib.Path(__file__).resolve().parent.parent / "tools"


def _jsonable(cases):
    return json.loads(json.dumps(cases))


def test_sample_product_draws_jax_cases_in_jax_order():
    cases = jtu.sample_product_testcases(
        [dict(shape=s) for s in [(), (3,), (2, 3), (4, 1, 2)]],
        dtype=["float32", "int32", "bool"], axis=[0, 1, None])
    assert _jsonable(cases) == DATA["sample_product"]


def test_rand_generators_draw_jax_values():
    got = jtu.rand_default(np.random.RandomState(0))((2, 3), np.float32)
    assert got.dtype == np.float32 and got.shape == (2, 3)
    np.testing.assert_array_equal(got, np.array(DATA["rand_default"], np.float32))
    got = jtu.rand_some_inf_and_nan(np.random.RandomState(1))((8,), np.float32)
    assert [str(v) for v in got] == DATA["rand_some_inf_and_nan"]
    got = jtu.rand_some_nan(np.random.RandomState(2))((6,), np.complex64)
    assert got.dtype == np.complex64 and [str(v) for v in got] == DATA["rand_some_nan_complex"]
    got = jtu.rand_int(np.random.RandomState(3), 0, 10)((5,), np.int32)
    assert got.dtype == np.int32 and got.tolist() == DATA["rand_int"]
    got = jtu.rand_some_equal(np.random.RandomState(5))((4,), np.int32)
    assert got.tolist() == DATA["rand_some_equal"]
    got = jtu.rand_default(np.random.RandomState(6))((4,), np.uint8)
    assert got.dtype == np.uint8 and got.tolist() == DATA["rand_uint"]


def test_scalar_shapes_give_scalars():
    py = jtu.rand_positive(np.random.RandomState(4))(jtu.PYTHON_SCALAR_SHAPE, np.float32)
    assert type(py) is float and repr(py) == DATA["rand_positive_scalar"]
    npy = jtu.rand_default(np.random.RandomState(0))(jtu.NUMPY_SCALAR_SHAPE, np.int16)
    assert type(npy) is np.int16
    assert jtu.is_valid_shape(jtu.PYTHON_SCALAR_SHAPE, np.dtype(np.float64))
    assert not jtu.is_valid_shape(jtu.PYTHON_SCALAR_SHAPE, np.dtype(np.float32))


def test_names_and_dtype_lists_are_jax():
    names = [jtu.format_shape_dtype_string(s, d) for s, d in
             [((2, 3), np.float32), (jtu.NUMPY_SCALAR_SHAPE, np.int32),
              (jtu.PYTHON_SCALAR_SHAPE, np.float64), (3, np.bool_), ([], np.complex64)]]
    assert names == DATA["names"]
    assert jtu.sanitize_test_name("shape=float32[2,3]_axis=(0, 1)") == DATA["sanitized"]
    assert [np.dtype(d).name for d in jtu.dtypes.all_floating] == DATA["all_floating"]
    assert [np.dtype(d).name for d in jtu.dtypes.numeric] == DATA["numeric"]
    assert [np.dtype(d).name for d in jtu.dtypes.all] == DATA["all"]
    assert [c[0] for c in jtu.cases_from_gens(lambda n: n)] == DATA["cases_from_gens"]


def test_tolerances_are_jax_defaults():
    got = [jtu.tolerance(np.float16), jtu.tolerance(ml_dtypes.bfloat16), jtu.tolerance(np.float64),
           jtu.tolerance(np.float32, {np.float32: 1e-3}), jtu.tolerance(np.int8, 0.5),
           jtu.tolerance(np.complex64)]
    assert got == DATA["tolerance"]
    joined = jtu.join_tolerance(1e-3, {np.float16: 1e-2})
    assert [joined[np.dtype(np.float16)], joined[np.dtype(np.float32)]] == DATA["join_tolerance"]


class _Case(jtu.JaxTestCase):
    def runTest(self):
        pass


def test_assert_all_close_uses_the_dtype_tolerance():
    case = _Case()
    case.assertAllClose(np.float32(1.0), np.float32(1.0 + 5e-7))     # within float32's 1e-6
    with pytest.raises(AssertionError):
        case.assertAllClose(np.float32(1.0), np.float32(1.0 + 1e-4))
    case.assertAllClose(np.float16(1.0), np.float16(1.0009765625))   # float16: 1e-3
    with pytest.raises(AssertionError):                              # dtypes differ
        case.assertAllClose(np.float32(1.0), np.int32(1))
    case.assertAllClose({"a": [np.ones(2, np.float32)]}, {"a": [np.ones(2, np.float32)]})
    with pytest.raises(TypeError):
        case.assertArraysEqual(np.array([object()]), np.array([object()]))


def test_jax_test_case_sets_jax_test_flags_and_seeds_by_name():
    from pyjax._src import config

    class T(jtu.JaxTestCase):
        def test_x(self):
            assert config.config.jax_numpy_rank_promotion == "raise"
            assert config.config.jax_enable_checks is True
            self.seen = self.rng().randint(1 << 30)

    t = T("test_x")
    result = unittest.TestResult()
    t.run(result)
    assert result.wasSuccessful(), result.errors + result.failures
    import zlib
    assert t.seen == np.random.RandomState(zlib.adler32(b"test_x")).randint(1 << 30)
    assert config.config.jax_numpy_rank_promotion == "allow"


def test_suite_sampling_is_deterministic_and_about_one_in_k():
    sys.path.insert(0, str(TOOLS))
    try:
        import jax_suite_plugin
    finally:
        sys.path.remove(str(TOOLS))
    ids = [f"tests/x_test.py::T::test_{i}" for i in range(3000)]
    kept = [i for i in ids if jax_suite_plugin.sampled(i, 10)]
    assert kept == [i for i in ids if jax_suite_plugin.sampled(i, 10)]
    assert 200 < len(kept) < 400
    assert all(jax_suite_plugin.sampled(i, 1) for i in ids)
