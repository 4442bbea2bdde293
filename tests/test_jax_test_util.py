"""`jax._src.test_util` (jtu) on pyjax: the pieces with behaviour, against values recorded from
JAX 0.10.2 (tests/data/record_test_util.py), and the sampling of tools/jax_suite_plugin.py."""
import json
import pathlib
import sys
import unittest

import ml_dtypes
import numpy as np
import pytest

import pyjax
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


# The jax._src (and jax.X) names JAX 0.10.2's test files import at module level: each resolves
# under the switch (a name without a pyjax meaning imports, and raises when used).
JAX_TEST_FILE_IMPORTS = [
    ("jax._src.test_util", ["JaxTestCase", "sample_product", "rand_default", "dtypes",
                            "check_grads", "with_config", "count_jit_and_pmap_lowerings",
                            "global_config_context", "JaxTestLoader", "device_under_test"]),
    ("jax._src.config", ["parse_flags_with_absl", "update", "enable_x64", "config_states",
                         "use_shardy_partitioner"]),
    ("jax._src.api_util", ["flatten_fun_nokwargs", "debug_info"]),
    ("jax._src.lax.parallel", ["pargmax", "pargmin"]),
    ("jax._src.earray", ["EArray"]),
    ("jax._src.interpreters.mlir", ["register_lowering"]),
    ("jax._src.sharding_impls", ["NamedSharding", "make_single_device_sharding"]),
    ("jax._src.literals", ["TypedNdArray"]),
    ("jax._src.tree_util", ["prefix_errors", "broadcast_flattened_prefix_with_treedef",
                            "default_registry", "dispatch_registry"]),
    ("jax.custom_batching", ["custom_vmap", "sequential_vmap"]),
    ("jax._src.debugging", ["debug_callback"]),
    ("jax._src.numpy.fft", ["_fft_norm"]),
    ("jax._src.lib", ["cuda_versions", "gpu_solver", "jaxlib_extension_version"]),
    ("jax._src.cudnn.scaled_matmul_stablehlo", ["scaled_matmul_wrapper"]),
    ("jax._src.deprecations", ["is_accelerated", "warn"]),
    ("jax._src.random.core", ["_safe_int_to_float"]),
    ("jax._src.random.threefry2x32", ["threefry_prng_impl"]),
    ("jax.experimental.sparse.test_util", ["SparseTestCase"]),
    ("jax._src.lax.lax", ["add", "remaining"]),
    ("jax._src.linear_util", ["wrap_init"]),
    ("jax._src.util", ["safe_zip", "safe_map", "unzip2", "split_list", "curry", "tuple_insert",
                       "partition_list", "merge_lists", "tuple_update"]),
    ("jax._src.lax_reference", ["reduce_window"]),
    ("jax._src.internal_test_util.lax_test_util", ["lax_ops"]),
    ("jax._src.ad_checkpoint", ["saved_residuals", "custom_remat"]),
    ("jax._src.lax.linalg", ["_lu_python"]),
    ("jax._src.hypothesis_test_util", ["setup_hypothesis", "hypothesis_is_thread_safe"]),
    ("jax._src.effects", ["Effect", "lowerable_effects", "control_flow_allowed_effects"]),
    ("jax._src.lib.mlir.dialects.hlo", []),
    ("jax.experimental.custom_partitioning", ["custom_partitioning"]),
    ("jax.experimental.sparse._lowerings", ["SUPPORTED_DATA_DTYPES"]),
    ("jax._src.pjit", ["pjit", "_pjit_lower", "make_jit_cpp_cache"]),
    ("jax._src.dtypes", ["_jax_types", "_weak_types", "_float8_dtypes",
                         "register_canonicalize_value_handler"]),
    ("jax._src.core", ["ShardingTypeError", "call_p", "closed_call_p", "ConcretizationTypeError"]),
    ("jax._src.sharding", ["common_devices_indices_map", "IndivisibleError"]),
    ("jax._src.mesh", ["empty_concrete_mesh", "use_abstract_mesh"]),
    ("jax._src.state.types", ["shaped_array_ref"]),
    ("jax._src.state.primitives", ["pin", "unpin"]),
    ("jax._src.state.discharge", ["run_state_reference"]),
    ("jax._src.layout", ["Format", "Layout"]),
    ("jax._src.lax.eval_jaxpr", ["eval_jaxpr_p"]),
    ("jax._src.shard_map", ["top_level_all_gather"]),
    ("jax._src.api", ["grad", "vmap", "jvp", "vjp", "jacfwd", "hessian", "linear_transpose"]),
    ("jax._src.lax.control_flow.common", ["_dedup_consts", "_pad_constvars"]),
    ("jax._src.dispatch", ["runtime_tokens"]),
]

_RESOLVE = r"""
import importlib, json, sys
import pyjax
pyjax.as_jax()
missing = []
for module, names in json.loads(sys.argv[1]):
    try:
        mod = importlib.import_module(module)
    except Exception as e:
        missing.append(f"{module}: {type(e).__name__}: {e}")
        continue
    missing += [f"{module}.{n}" for n in names if not hasattr(mod, n)]
print(json.dumps(missing))
"""


def test_jax_test_files_module_level_names_resolve_under_the_switch():
    import subprocess
    proc = subprocess.run([sys.executable, "-c", _RESOLVE, json.dumps(JAX_TEST_FILE_IMPORTS)],
                          capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert json.loads(proc.stdout.splitlines()[-1]) == []


def test_names_without_a_pyjax_meaning_raise_when_used():
    from pyjax._jax_compat.internal import earray, util
    assert util.split_list([1, 2, 3, 4], [1, 2]) == [[1], [2, 3], [4]]
    assert util.merge_lists([True, False], [1], [2]) == [2, 1]
    with pytest.raises(NotImplementedError, match="EArray is not implemented by pyjax"):
        earray.EArray()
    with pytest.raises(NotImplementedError, match="jax._src.util.no_such_helper"):
        util.no_such_helper()
    with pytest.raises(AttributeError):
        util.__no_such_dunder__


def test_lax_test_util_tables_are_jax_tables():
    from pyjax._jax_compat.internal.internal_test_util import lax_test_util as ltu
    ops = ltu.lax_ops()
    assert len(ops) == 69 and ops[0].op == "neg" and ops[-1].op == "lt"  # (JAX 0.10.2's)
    assert [r.tol for r in ops if r.op == "tan"] == [{np.float32: 3e-5}]
    assert list(ltu.all_bdims((2,), ())) == [(None, 0), (0, None), (0, 0), (1, None), (1, 0)]
    assert ltu.add_bdim(5, 1, (2, 3)) == (2, 5, 3)


def test_effect_type_sets_and_hypothesis_profiles():
    from pyjax._jax_compat.internal import effects, hypothesis_test_util as htu

    class E(effects.Effect):
        pass
    s = effects.EffectTypeSet()
    s.add_type(E)
    e = E("e")
    assert s.contains(e) and s.filter_not_in([e, 1]) == [1]
    import hypothesis
    try:
        htu.setup_hypothesis(max_examples=7)
        assert hypothesis.settings.default.max_examples == 7
        assert hypothesis.settings.default.derandomize
    finally:
        hypothesis.settings.load_profile("default")  # the other tests' profile


def test_suite_plugin_records_each_outcome_with_its_first_error_line(tmp_path):
    import subprocess
    (tmp_path / "x_test.py").write_text(
        "import pytest\n"
        "def test_ok(): pass\n"
        "def test_fails(): assert 1 == 2, 'one is not two'\n"
        "def test_raises(): raise ValueError('bad value\\nsecond line')\n"
        "def test_skips(): pytest.skip('not here')\n")
    out = tmp_path / "out.jsonl"
    env = {**__import__("os").environ, "PYTHONPATH": str(TOOLS), "JAX_SUITE_OUT": str(out),
           "JAX_SUITE_SAMPLE": "1"}
    subprocess.run([sys.executable, "-m", "pytest", "-p", "jax_suite_plugin", "-q",
                    "-p", "no:cacheprovider", str(tmp_path / "x_test.py")], env=env,
                   cwd=tmp_path, capture_output=True, timeout=300)
    recs = {r["id"].rpartition("::")[2]: (r["outcome"], r["message"])
            for r in map(json.loads, out.read_text().splitlines())}
    assert recs["test_ok"] == ("passed", "")
    assert recs["test_fails"][0] == "failed" and "one is not two" in recs["test_fails"][1]
    assert recs["test_raises"] == ("failed", "ValueError: bad value")
    assert recs["test_skips"] == ("skipped", "not here")


def test_lax_reference_agrees_with_jax_reference():
    # values from JAX 0.10.2's jax._src.lax_reference (recorded by hand with the snippet below)
    #   R.round([.5, 1.5, -2.5, 2.4]); R.pad(arange(6.).reshape(2, 3), -1., [(1, -1, 1), (0, 2, 0)])
    from pyjax._jax_compat.internal import lax_reference as R
    assert R.round(np.array([0.5, 1.5, -2.5, 2.4], np.float32)).tolist() == [1.0, 2.0, -3.0, 2.0]
    assert R.pad(np.arange(6.).reshape(2, 3), -1., [(1, -1, 1), (0, 2, 0)]).tolist() == [
        [-1.0, -1.0, -1.0, -1.0, -1.0], [0.0, 1.0, 2.0, -1.0, -1.0],
        [-1.0, -1.0, -1.0, -1.0, -1.0]]
    vals, idx = R.top_k(np.array([3, 1, 3, 2], np.uint8), 2)
    assert vals.tolist() == [3, 3] and idx.tolist() == [0, 2]
    assert R.conj(np.float32(2.0)).dtype == np.complex64
    x, y = np.ones((2, 3)), np.ones((3, 4))
    assert R.dot_general(x, y, (([1], [0]), ([], []))).shape == (2, 4)


def test_skip_on_flag_reads_test_flags():
    class T(jtu.JaxTestCase):
        @jtu.skip_on_flag("jax_skip_slow_tests", jtu.SKIP_SLOW_TESTS.value)
        def test_x(self):
            pass

    result = unittest.TestResult()
    T("test_x").run(result)
    assert len(result.skipped) == 1 and not result.errors


def test_lax_reference_keeps_the_operands_float_dtype_and_sort_takes_kind():
    """Issue 23 (JAX's lax_test testOpAgainstNumpy, testSortAgainstNumpy): as JAX's references,
    a real floating result has the operand's dtype (erf_inv/round of bfloat16 and float16 are
    not float32) and sort is np.sort (kind= accepted)."""
    import ml_dtypes
    from pyjax._jax_compat.internal import lax_reference as R
    for dt in (ml_dtypes.bfloat16, np.float16):
        x = np.array([-0.5, 0.25, 1.5], dt)
        assert R.erf_inv(x).dtype == dt and R.round(x).dtype == dt and R.erf(x).dtype == dt
        assert R.round(x).astype(np.float32).tolist() == [-1.0, 0.0, 2.0]
    assert R.sort(np.array([3, 1, 2]), 0, kind="stable").tolist() == [1, 2, 3]


def test_lax_reference_conv_reduce_window_ragged_dot():
    """Issue 23 (JAX's lax_test testConv*AgainstNumpy, testReduceWindow*, ragged_dot): the
    references lax_test calls, checked on values recorded from JAX 0.10.2's lax_reference
    (shape, first entries, sum)."""
    from pyjax._jax_compat.internal import lax_reference as R
    rng = np.random.RandomState(0)
    lhs = rng.randn(1, 2, 5, 4).astype(np.float32)
    rhs = rng.randn(3, 2, 2, 3).astype(np.float32)
    x = np.arange(12, dtype=np.float32).reshape(3, 4)
    got = [R.conv(lhs, rhs, (1, 2), "SAME"),
           R.conv_with_general_padding(lhs, rhs, (2, 1), ((1, 2), (-1, 1)), (1, 2), (2, 1)),
           R.reduce_window(x, -np.inf, np.maximum, (2, 2), (1, 2), ((0, 1), (1, 0)), (1, 2)),
           R.reduce_window(x, 0., np.add, (2, 3), (1, 1), "SAME", (2, 1)),
           R.ragged_dot(rng.randn(5, 3).astype(np.float32), rng.randn(2, 3, 2).astype(np.float32),
                        np.array([2, 3], np.int32))]
    want = [((1, 3, 5, 2), [2.78574, -3.77992, -8.29535, -1.81592, 1.30763, -1.4864], -20.9484),
            ((1, 3, 3, 5), [1.80041, -1.99555, -0.52519, 1.83756, 0.24476, 1.96872], 7.2246),
            ((3, 4), [4.0, 5.0, 6.0, 7.0, 8.0, 9.0], 98.0),
            ((5, 4), [1.0, 3.0, 6.0, 5.0, 9.0, 15.0], 315.0),
            ((5, 2), [-1.84996, -0.39092, -0.43277, -0.39406, -1.79175, -4.72468], -1.3759)]
    for g, (shape, first, total) in zip(got, want):
        assert g.shape == shape and g.dtype == np.float32
        np.testing.assert_allclose(g.ravel()[:6], first, atol=1e-4)
        np.testing.assert_allclose(g.sum(), total, atol=1e-3)


def test_cpp_cache_miss_count_skips_nested_jits_met_while_tracing():
    """Issue 23 (JAX's random_test test_cpp_dispatch_split): JAX counts the jitted calls that run
    through Python; random.split's own jit, traced inside the caller's, is not one."""
    key = pyjax.random.key(0)
    f = pyjax.jit(lambda k: pyjax.random.split(k))
    with jtu.count_pjit_cpp_cache_miss() as count:
        f(key).block_until_ready()
        f(key).block_until_ready()
    assert count() == 1


def test_count_device_put_counts_host_to_device_transfers():
    with jtu.count_device_put() as count:
        pyjax.device_put(np.ones(3, np.float32))
    assert count() == 1
