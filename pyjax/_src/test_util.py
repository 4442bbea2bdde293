"""`jax._src.test_util` (jtu) on pyjax: what JAX's own test files and other libraries' test
suites import as `jtu` — `JaxTestCase` with JAX's tolerances and config defaults, the case
generators (pyjax/_src/test_cases.py), device queries and skips, config contexts, the count
helpers, mesh helpers and `check_grads` (pyjax/_src/public_test_util.py). Written to JAX 0.10.2's
behaviour, so a test file written for JAX runs unmodified through the switch.

NB: the count helpers count pyjax's own events: a jit trace (`count_jit_tracing_cache_miss`), a
Python-path jit call (`count_pjit_cpp_cache_miss`), a lowering (`count_jit_and_pmap_lowerings`),
an XLA compilation from the in-memory cache's miss (`count_jit_compilation_cache_miss`,
`count_primitive_compiles` for one-primitive computations). They count by wrapping those
functions for the block, so they are not thread-safe (as JAX's are not, across threads).
"""
from __future__ import annotations

import contextlib
import functools
import inspect
import math
import os
import re
import sys
import tempfile
import textwrap
import unittest
import warnings
import zlib

import numpy as np
from absl.testing import absltest, parameterized

from pyjax._src import config, core, dispatch, dtypes as _dtypes, mesh as mesh_lib, pjit
from pyjax._src import tree_util
from pyjax._src.backend import xla
from pyjax._src.api import devices as _devices, make_jaxpr as _make_jaxpr
from pyjax._src.ad_api import vjp as _vjp
from pyjax._src.interpreters import partial_eval as pe
from pyjax._src.numpy.util import promote_dtypes, promote_dtypes_inexact
from pyjax._src.pjit import jit as _jit
from pyjax._src.public_test_util import (  # noqa: F401 (re-exported: jtu's names)
    _assert_numpy_allclose as _assert_numpy_allclose,
    _check_dtypes_match as _check_dtypes_match, _dtype as _dtype, check_close as check_close,
    check_grads as check_grads, check_jvp as check_jvp, check_vjp as check_vjp,
    default_gradient_tolerance as default_gradient_tolerance,
    default_tolerance as default_tolerance, numerical_jvp as numerical_jvp,
    rand_like as rand_like, tolerance as tolerance)
from pyjax._src.test_cases import (  # noqa: F401 (re-exported: jtu's names)
    NUM_GENERATED_CASES as NUM_GENERATED_CASES, NUMPY_SCALAR_SHAPE as NUMPY_SCALAR_SHAPE,
    PYTHON_SCALAR_SHAPE as PYTHON_SCALAR_SHAPE, SKIP_SLOW_TESTS as SKIP_SLOW_TESTS,
    ScalarShape as ScalarShape, _Flag, _cast_to_shape as _cast_to_shape,
    _dims_of_shape as _dims_of_shape, _LazyDtypes as _LazyDtypes,
    cases_from_gens as cases_from_gens, device_under_test as device_under_test,
    dtype_str as dtype_str, format_shape_dtype_string as format_shape_dtype_string,
    is_valid_shape as is_valid_shape, named_cases_from_sampler as named_cases_from_sampler,
    num_float_bits as num_float_bits, parameterized_filterable as parameterized_filterable,
    rand_bool as rand_bool, rand_default as rand_default, rand_fullrange as rand_fullrange,
    rand_indices_unique_along_axis as rand_indices_unique_along_axis, rand_int as rand_int,
    rand_nonzero as rand_nonzero, rand_not_small as rand_not_small,
    rand_positive as rand_positive, rand_small as rand_small,
    rand_small_positive as rand_small_positive, rand_some_equal as rand_some_equal,
    rand_some_inf as rand_some_inf, rand_some_inf_and_nan as rand_some_inf_and_nan,
    rand_some_nan as rand_some_nan, rand_some_zero as rand_some_zero,
    rand_uniform as rand_uniform, rand_unique_int as rand_unique_int,
    sample_product as sample_product, sample_product_testcases as sample_product_testcases,
    sanitize_test_name as sanitize_test_name, supported_dtypes as supported_dtypes)
from pyjax._src.test_cases import dtypes_lists as dtypes

TEST_NUM_THREADS = _Flag("jax_test_num_threads", int(os.getenv("JAX_TEST_NUM_THREADS", "0")))
TEST_WITH_PERSISTENT_COMPILATION_CACHE = _Flag("jax_test_with_persistent_compilation_cache",
                                               False)
# The test flags (absl flags in JAX, not config options): skip_on_flag reads these by name.
_TEST_FLAGS = {f.name: f for f in (NUM_GENERATED_CASES, SKIP_SLOW_TESTS, TEST_NUM_THREADS,
                                   TEST_WITH_PERSISTENT_COMPILATION_CACHE)}


# -- small helpers --------------------------------------------------------------------------------

def to_default_dtype(arr):
    """`arr` in JAX's default dtype of its kind (float32/int32/... unless x64 is on)."""
    arr = np.asarray(arr)
    default = {"b": lambda: np.dtype(np.bool_), "i": _dtypes.default_int_dtype,
               "u": _dtypes.default_uint_dtype, "f": _dtypes.default_float_dtype,
               "c": _dtypes.default_complex_dtype}.get(arr.dtype.kind)
    return arr.astype(default()) if default is not None else arr


def with_jax_dtype_defaults(func, use_defaults=True):
    """`func` with its outputs (those `use_defaults` marks) in JAX's default dtypes."""
    @functools.wraps(func)
    def wrapped(*args, **kwargs):
        result = func(*args, **kwargs)
        if isinstance(use_defaults, bool):
            return tree_util.tree_map(to_default_dtype, result) if use_defaults else result
        return tree_util.tree_map(lambda a, use: to_default_dtype(a) if use else a, result,
                                  use_defaults)
    return wrapped


def is_sequence(x) -> bool:
    try:
        iter(x)
    except TypeError:
        return False
    return True


def _normalize_tolerance(tol):
    tol = tol or 0
    if isinstance(tol, dict):
        return {np.dtype(k): v for k, v in tol.items()}
    return dict.fromkeys(default_tolerance(), tol)


def join_tolerance(tol1, tol2):
    """Per dtype, the larger of two tolerances (numbers stand for every dtype)."""
    out = _normalize_tolerance(tol1)
    for k, v in _normalize_tolerance(tol2).items():
        out[k] = max(v, out.get(k, 0))
    return out


def check_eq(xs, ys, err_msg=""):
    tree_util.tree_map(lambda x, y: _assert_numpy_allclose(x, y, err_msg=err_msg), xs, ys)


def check_raises(thunk, err_type, msg):
    try:
        thunk()
        assert False
    except err_type as e:
        assert str(e).startswith(msg), f"\n{e}\n\n{msg}\n"


def check_raises_regexp(thunk, err_type, pattern):
    try:
        thunk()
        assert False
    except err_type as e:
        assert re.match(pattern, str(e)), f"{e}\n\n{pattern}\n"


@contextlib.contextmanager
def _capture_output(fp):
    """Everything written to the file `fp` (also by native code) in the block; the yielded
    function returns it after the block."""
    captured = None

    def get_output():
        if captured is None:
            raise ValueError("get_output() called while the context is active.")
        return captured
    with tempfile.NamedTemporaryFile(mode="w+", encoding="utf-8") as f:
        fp.flush()
        original = os.dup(fp.fileno())
        os.dup2(f.fileno(), fp.fileno())
        try:
            yield get_output
        finally:
            fp.flush()
            os.fsync(fp.fileno())
            f.seek(0)
            captured = f.read()
            os.dup2(original, fp.fileno())
            os.close(original)


def capture_stdout():
    return _capture_output(sys.stdout)


def capture_stderr():
    return _capture_output(sys.stderr)


def _jaxprs_in(value):
    if isinstance(value, core.ClosedJaxpr):
        yield value.jaxpr
    elif isinstance(value, core.Jaxpr):
        yield value
    elif isinstance(value, (tuple, list)):
        for v in value:
            yield from _jaxprs_in(v)


def iter_eqns(jaxpr):
    """Every equation of `jaxpr` and of the jaxprs in its equations' params."""
    yield from jaxpr.eqns
    for eqn in jaxpr.eqns:
        for value in eqn.params.values():
            for sub in _jaxprs_in(value):
                yield from iter_eqns(sub)


def _dot_params(fun, args, name):
    jaxpr = _make_jaxpr(fun)(*args)
    return [e.params[name] for e in iter_eqns(jaxpr.jaxpr) if e.primitive.name == "dot_general"]


def assert_dot_precision(expected_precision, fun, *args):
    for precision in _dot_params(fun, args, "precision"):
        msg = f"Unexpected precision: {expected_precision} != {precision}"
        if isinstance(precision, tuple):
            assert precision[0] == expected_precision, msg
            assert precision[1] == expected_precision, msg
        else:
            assert precision == expected_precision, msg


def assert_dot_preferred_element_type(expected, fun, *args, **kwargs):
    for t in _dot_params(functools.partial(fun, **kwargs), args, "preferred_element_type"):
        assert expected == t, f"Unexpected preferred_element_type: {expected} != {t}"


def promote_like_jnp(fun, inexact=False):
    """`fun` with its arguments first promoted as jnp promotes them."""
    promote = promote_dtypes_inexact if inexact else promote_dtypes

    def wrapper(*args, **kw):
        flat, tree = tree_util.tree_flatten(args)
        return fun(*tree_util.tree_unflatten(tree, promote(*flat)), **kw)
    return wrapper


def strict_promotion_if_dtypes_match(dts):
    """Strict dtype promotion for the block if all `dts` are equal, standard otherwise."""
    if all(d == dts[0] for d in dts):
        return config.numpy_dtype_promotion("strict")
    return config.numpy_dtype_promotion("standard")


_VERSION = re.compile(r"([0-9]+(?:\.[0-9]+)*)(?:(rc|dev).*)?")


def parse_version(v: str) -> tuple:
    m = _VERSION.match(v)
    if m is None:
        raise ValueError(f"Unable to parse version '{v}'")
    return tuple(int(x) for x in m.group(1).split("."))


def numpy_version():
    return parse_version(np.__version__)


@contextlib.contextmanager
def set_env(**kwargs):
    """Set (or, with None, unset) environment variables for the block."""
    original = {k: os.environ.pop(k, None) for k in kwargs}
    os.environ.update({k: v for k, v in kwargs.items() if v is not None})
    try:
        yield
    finally:
        for k in kwargs:
            os.environ.pop(k, None)
        os.environ.update({k: v for k, v in original.items() if v is not None})


def fwd_bwd_jaxprs(f, *example_args):
    fwd_jaxpr, (y_shape, res_shape) = _make_jaxpr(
        lambda *args: _vjp(f, *args), return_shape=True)(*example_args)
    bwd_jaxpr = _make_jaxpr(lambda res, outs: res(outs))(res_shape, y_shape)
    return fwd_jaxpr, bwd_jaxpr


# -- the platform and the devices -----------------------------------------------------------------

def _platform_version() -> str:
    return getattr(_devices()[0].client, "platform_version", "")


def is_device_rocm() -> bool:
    return "rocm" in _platform_version()


def is_device_cuda() -> bool:
    return "cuda" in _platform_version()


def is_cloud_tpu() -> bool:
    return False


def is_cloud_tpu_at_least(year, month, day) -> bool:
    return True  # not a Cloud TPU: JAX answers True


def is_device_tpu(version=None, variant="") -> bool:
    return device_under_test() == "tpu"


def is_device_tpu_at_least(version) -> bool:
    return False if device_under_test() != "tpu" else get_tpu_version() >= version


def get_tpu_version() -> int:
    if device_under_test() != "tpu":
        raise ValueError("Device is not TPU")
    m = re.match(r"TPU[^\d]*(\d+)", _devices()[0].device_kind)
    if m is None:
        raise ValueError(f"Device kind {_devices()[0].device_kind} is not supported")
    return int(m.group(1))


def is_cuda_compute_capability_at_least(capability) -> bool:
    if not is_device_cuda():
        return False
    cur = tuple(int(x) for x in _devices()[0].compute_capability.split("."))
    return cur >= tuple(int(x) for x in capability.split("."))


def is_cuda_compute_capability_equal(capability) -> bool:
    if not is_device_cuda():
        return False
    return _devices()[0].compute_capability == capability


def is_cuda_version_at_least(major, minor) -> bool:
    return False  # no CUDA runtime is linked into pyjax's CPU build


def pjrt_c_api_version_at_least(major_version, minor_version) -> bool:
    return True


def stablehlo_version_at_least(required_version) -> bool:
    return True


def is_optimized_build() -> bool:
    return True


def is_asan() -> bool:
    return False


is_msan = is_tsan = is_sanitized = is_asan


def is_gil_disabled() -> bool:
    return not sys._is_gil_enabled() if hasattr(sys, "_is_gil_enabled") else False


def is_test_rbe() -> bool:
    return os.getenv("IS_JAX_RBE_TESTING", "").lower() in {"true", "1", "yes", "y"}


def runtime_environment():
    return None


def _device_tags() -> set:
    tags = {device_under_test()}
    if is_device_rocm():
        tags.add("rocm")
    elif is_device_cuda():
        tags.add("cuda")
    return tags


def test_device_matches(device_types) -> bool:
    assert not isinstance(device_types, str), "device_types should be a list of strings"
    return any(t in _device_tags() for t in device_types)


test_device_matches.__test__ = False  # not a test, pytest


def _device_filter(predicate, skip_reason=None):
    def skip(test_method):
        @functools.wraps(test_method)
        def test_method_wrapper(self, *args, **kwargs):
            if not predicate():
                name = getattr(test_method, "__name__", "[unknown test]")
                raise unittest.SkipTest(skip_reason or f"{name} not supported on device with "
                                        f"tags {_device_tags()}.")
            return test_method(self, *args, **kwargs)
        return test_method_wrapper
    return skip


def skip_on_devices(*disabled_devices, skip_reason=None):
    """Skip the test method on the listed platforms ("cpu", "gpu", "tpu", "cuda", "rocm")."""
    if skip_reason is None:
        skip_reason = "Skipped on devices with tags: " + ", ".join(disabled_devices)
    return _device_filter(lambda: not test_device_matches(disabled_devices), skip_reason)


def run_on_devices(*enabled_devices, skip_reason=None):
    """Run the test method only on the listed platforms."""
    if skip_reason is None:
        skip_reason = "Skipped unless running on devices with tags: " + ", ".join(enabled_devices)
    return _device_filter(lambda: test_device_matches(enabled_devices), skip_reason)


def device_supports_buffer_donation():
    return _device_filter(lambda: test_device_matches(["cpu", "gpu", "cuda", "rocm", "tpu"]))


def request_cpu_devices(nr_devices: int):
    """At least `nr_devices` CPU devices, if the backend is not up yet (else as many as it
    has: tests needing more skip themselves)."""
    if config.config.jax_num_cpu_devices < nr_devices:
        try:
            config.update("jax_num_cpu_devices", nr_devices)
        except RuntimeError:
            pass


def skip_on_flag(flag_name, skip_value):
    """Skip the test method while the flag `flag_name` has `skip_value`."""
    def skip(test_method):
        @functools.wraps(test_method)
        def test_method_wrapper(self, *args, **kwargs):
            value = (_TEST_FLAGS[flag_name].value if flag_name in _TEST_FLAGS
                     else config._read(flag_name))
            if value == skip_value:
                name = getattr(test_method, "__name__", "[unknown test]")
                raise unittest.SkipTest(f"{name} not supported when FLAGS.{flag_name} is {value}")
            return test_method(self, *args, **kwargs)
        return test_method_wrapper
    return skip


def pytest_mark_if_available(marker: str):
    def wrap(func_or_class):
        pytest = sys.modules.get("pytest")
        return func_or_class if pytest is None else getattr(pytest.mark, marker)(func_or_class)
    return wrap


def is_running_under_pytest() -> bool:
    return "pytest" in sys.modules


def skip_under_pytest(reason: str):
    return unittest.skipIf(is_running_under_pytest(), "Running under pytest: " + reason)


@contextlib.contextmanager
def thread_unsafe_test(condition: bool = True):
    """Marks a test that must not run beside others (a context manager and a decorator; tests
    here run one at a time, so it only marks)."""
    yield


def thread_unsafe_test_class(condition: bool = True):
    def f(klass):
        klass.thread_hostile = condition
        return klass
    return f


class JaxTestLoader(absltest.TestLoader):
    """absltest's loader (JAX's also filters by $JAX_TEST_TARGETS)."""

    def getTestCaseNames(self, testCaseClass):
        names = super().getTestCaseNames(testCaseClass)
        for env, keep in (("JAX_TEST_TARGETS", True), ("JAX_EXCLUDE_TEST_TARGETS", False)):
            if os.getenv(env):
                pattern = re.compile(os.environ[env])
                names = [n for n in names
                         if bool(pattern.search(f"{testCaseClass.__name__}.{n}")) == keep]
        return names


@contextlib.contextmanager
def ignore_warning(*, message=None, category=Warning):
    """Ignore the warnings matching `message` (a regex on the start) and `category`."""
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message="" if message is None else message,
                                category=category)
        yield


# -- config ---------------------------------------------------------------------------------------

@contextlib.contextmanager
def global_config_context(**kwds):
    """Set flags (by their full names) for the block; restore them after."""
    original = {}
    try:
        for key, value in kwds.items():
            original[key] = config._read(key)
            config.update(key, value)
        yield
    finally:
        for key, value in original.items():
            config.update(key, value)


@contextlib.contextmanager
def thread_local_config_context(**kwds):
    with contextlib.ExitStack() as stack:
        for name, value in kwds.items():
            stack.enter_context(config.config_states[name](value))
        yield


def _config_decorator(attr, **kwds):
    def decorator(cls):
        assert inspect.isclass(cls) and issubclass(cls, JaxTestCase), \
            "@with_config can only wrap JaxTestCase class definitions."
        merged = {}
        for base in cls.__bases__:
            merged.update(getattr(base, attr, {}))
        merged.update(kwds)
        setattr(cls, attr, merged)
        return cls
    return decorator


def with_config(**kwds):
    """Class decorator: these flags hold during each test of a JaxTestCase subclass."""
    return _config_decorator("_default_thread_local_config", **kwds)


def with_global_config(**kwds):
    return _config_decorator("_default_global_config", **kwds)


@contextlib.contextmanager
def assert_global_configs_unchanged():
    before = config.config.values
    yield
    after = config.config.values
    if before != after:
        differing = {k: (before.get(k), after.get(k)) for k in before.keys() | after.keys()
                     if before.get(k) != after.get(k)}
        raise AssertionError(f"Test changed global config values. Differing values are: "
                             f"{differing}")


# -- counting what jit does -----------------------------------------------------------------------

@contextlib.contextmanager
def _counting(owner, attr, count_if=lambda *a, **k: True):
    """Count calls of `owner.attr` in the block (yields the count as a function)."""
    original = getattr(owner, attr)
    count = [0]

    @functools.wraps(original)
    def counted(*args, **kwargs):
        if count_if(*args, **kwargs):
            count[0] += 1
        return original(*args, **kwargs)
    setattr(owner, attr, counted)
    try:
        yield lambda: count[0]
    finally:
        setattr(owner, attr, original)


def _is_one_primitive(request, lowered=None) -> bool:
    eqns = request.jaxpr.jaxpr.eqns
    return len(eqns) == 1 and eqns[0].primitive.name == request.name


def count_jit_tracing_cache_miss():
    return _counting(pjit, "_traced")


def count_pjit_cpp_cache_miss():
    """Count the jitted calls that run through Python rather than jaxlib's C++ dispatch (as
    JAX's, which counts the Python path's executions: a nested jit met while tracing its caller
    is not one)."""
    return _counting(pjit.JitInfo, "call", lambda self, args, kwargs: type(core.current_trace()) is core.EvalTrace)


def count_jit_and_pmap_lowerings():
    return _counting(dispatch, "lower")


def count_jit_compilation_cache_miss():
    return _counting(dispatch, "_compile_now", lambda r, lowered=None: not _is_one_primitive(r))


def count_primitive_compiles():
    return _counting(dispatch, "_compile_now", _is_one_primitive)


def count_aot_jit_cpp_cache_miss():
    raise NotImplementedError("jtu.count_aot_jit_cpp_cache_miss: pyjax records no such event")


def count_device_put():
    """Count the transfers of host values to a device (`xla.put`) in the block.

    NB: jit's C++ fast path hands its arguments to jaxlib directly, uncounted (JAX counts its
    batched argument transfers too)."""
    return _counting(xla, "put")


def count_device_put_fast_path_hit():
    raise NotImplementedError("jtu.count_device_put_fast_path_hit: pyjax records no such event")


count_internal_device_puts = count_device_put_fast_path_hit


@contextlib.contextmanager
def assert_num_jit_and_pmap_compilations(times):
    with count_jit_and_pmap_lowerings() as count:
        yield
    if count() != times:
        raise AssertionError(f"Expected exactly {times} XLA compilations, but executed "
                             f"{count()}")


# -- meshes ---------------------------------------------------------------------------------------

@contextlib.contextmanager
def with_mesh(named_shape):
    """A Mesh of the first devices, [(name, size), ...], as the context mesh for the block."""
    names = tuple(n for n, _ in named_shape)
    shape = tuple(s for _, s in named_shape)
    size = math.prod(shape)
    devices = _devices()
    if len(devices) < size:
        raise unittest.SkipTest(f"Test requires {size} local devices")
    with mesh_lib.Mesh(np.array(devices[:size]).reshape(shape), names):
        yield


def with_mesh_from_kwargs(f):
    return lambda *args, **kwargs: with_mesh(kwargs["mesh"])(f)(*args, **kwargs)


def create_mesh(mesh_shape, axis_names, iota_order=False, axis_types=None):
    size = math.prod(mesh_shape)
    devices = _devices()
    if len(devices) < size:
        raise unittest.SkipTest(f"Test requires {size} global devices and found "
                                f"{len(devices)}.")
    if iota_order:
        ordered = sorted(devices, key=lambda d: d.id)[:size]
        return mesh_lib.Mesh(np.array(ordered).reshape(mesh_shape), axis_names,
                             axis_types=axis_types)
    if axis_types is None:
        axis_types = (mesh_lib.AxisType.Auto,) * len(mesh_shape)
    return mesh_lib.make_mesh(mesh_shape, axis_names, axis_types)


def with_explicit_mesh(sizes, names, axis_types=None, iota_order=False):
    axis_types = (mesh_lib.AxisType.Explicit,) * len(names) if axis_types is None else axis_types

    def decorator(fn):
        def mesh_fn(*args, **kwargs):
            mesh = create_mesh(sizes, names, iota_order, axis_types=axis_types)
            with mesh_lib.set_mesh(mesh):
                return fn(*args, **kwargs, mesh=mesh)
        return mesh_fn
    return decorator


# -- the test case --------------------------------------------------------------------------------

class JaxTestCase(parameterized.TestCase):
    """absl's parameterized TestCase with JAX's comparisons (`assertAllClose` with per-dtype
    tolerances, `assertArraysEqual`, `_CompileAndCheck`, `_CheckAgainstNumpy`), the flags JAX's
    tests run under (checks on, strict dtype promotion, rank promotion raising, traceback
    filtering off, raw PRNG keys refused; `@with_config` adds more), and `self.rng()`: a NumPy
    RandomState seeded with the adler32 of the test's name."""
    _default_global_config: dict = {}
    _default_thread_local_config = {
        "jax_enable_checks": True,
        "jax_numpy_dtype_promotion": "strict",
        "jax_numpy_rank_promotion": "raise",
        "jax_traceback_filtering": "off",
        "jax_legacy_prng_key": "error",
    }

    def setUp(self):
        super().setUp()
        self.enterContext(assert_global_configs_unchanged())
        self._rng = np.random.RandomState(zlib.adler32(self._testMethodName.encode()))
        self.enterContext(global_config_context(**self._default_global_config))
        for name, value in self._default_thread_local_config.items():
            self.enterContext(config.config_states[name](value))

    def rng(self):
        return self._rng

    def assertArraysEqual(self, actual, desired, *, check_dtypes=True, err_msg="",
                          allow_object_dtype=False, verbose=True):
        """x and y exactly equal (and of the same dtype, unless check_dtypes=False)."""
        if check_dtypes:
            self.assertDtypesMatch(actual, desired)
        actual, desired = np.asarray(actual), np.asarray(desired)
        if not allow_object_dtype and (actual.dtype == object or desired.dtype == object):
            raise TypeError(
                "assertArraysEqual may be poorly behaved when np.asarray casts to "
                "dtype=object. If comparing PRNG keys, consider random_test.KeyArrayTest."
                "assertKeysEqual. If comparing collections of arrays, consider using "
                "assertAllClose. To let this test proceed anyway, pass "
                "allow_object_dtype=True.")
        with np.errstate(over="ignore"):
            np.testing.assert_array_equal(actual, desired, err_msg=err_msg, verbose=verbose)

    def assertArraysAllClose(self, actual, desired, *, check_dtypes=True, atol=None, rtol=None,
                             err_msg=""):
        self.assertEqual(actual.shape, desired.shape)
        atol = max(tolerance(_dtype(actual), atol), tolerance(_dtype(desired), atol))
        rtol = max(tolerance(_dtype(actual), rtol), tolerance(_dtype(desired), rtol))
        _assert_numpy_allclose(actual, desired, atol=atol, rtol=rtol, err_msg=err_msg)
        if check_dtypes:
            self.assertDtypesMatch(actual, desired)

    def assertDtypesMatch(self, actual, desired, *, canonicalize_dtypes=True):
        if not config.x64_enabled() and canonicalize_dtypes:
            self.assertEqual(_canonical(_dtype(actual)), _canonical(_dtype(desired)))
        else:
            self.assertEqual(_dtype(actual), _dtype(desired))

    def assertAllClose(self, actual, desired, *, check_dtypes=True, atol=None, rtol=None,
                       canonicalize_dtypes=True, err_msg=""):
        """actual and desired (arrays, scalars, or dicts/sequences of them) close, within
        JAX's tolerance for their dtypes unless atol/rtol say otherwise."""
        kw = dict(check_dtypes=check_dtypes, atol=atol, rtol=rtol,
                  canonicalize_dtypes=canonicalize_dtypes, err_msg=err_msg)
        if isinstance(actual, dict):
            self.assertIsInstance(desired, dict)
            self.assertEqual(set(actual.keys()), set(desired.keys()))
            for k in actual:
                self.assertAllClose(actual[k], desired[k], **kw)
        elif is_sequence(actual) and not hasattr(actual, "__array__"):
            if not (is_sequence(desired) and not hasattr(desired, "__array__")):
                self.fail(f"Expected sequence, got {desired}")
            self.assertEqual(len(actual), len(desired))
            for a, d in zip(actual, desired):
                self.assertAllClose(a, d, **kw)
        elif hasattr(actual, "__array__") or np.isscalar(actual):
            if not (hasattr(desired, "__array__") or np.isscalar(desired)):
                self.fail(f"Expected array-like, got {desired}")
            if check_dtypes:
                self.assertDtypesMatch(actual, desired, canonicalize_dtypes=canonicalize_dtypes)
            self.assertArraysAllClose(np.asarray(actual), np.asarray(desired), check_dtypes=False,
                                      atol=atol, rtol=rtol, err_msg=err_msg)
        elif actual == desired:
            return
        else:
            raise TypeError((type(actual), type(desired)))

    def assertMultiLineStrippedEqual(self, expected, what):
        """Equal after dedenting and stripping the whitespace around each line."""
        strip = lambda s: re.sub(r"\s*\n\s*", "\n", textwrap.dedent(s).strip())
        if strip(what) != strip(expected):
            print(f"Found\n{what}\n")
            self.assertMultiLineEqual(strip(expected), strip(what),
                                      msg=f"Found\n{what}\nExpecting\n{expected}")

    @contextlib.contextmanager
    def assertNoWarnings(self):
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            yield

    @contextlib.contextmanager
    def assertWarns(self, warning, *, msg=None):
        with warnings.catch_warnings(record=True) as ws:
            warnings.simplefilter("always")
            yield
        if not any(isinstance(w.message, warning) and (msg is None or msg in str(w.message))
                   for w in ws):
            self.fail(f"Expected warning not found {warning}:'{msg}', got {ws}")

    @contextlib.contextmanager
    def assertWarnsRegex(self, warning, regex):
        pattern = re.compile(regex) if isinstance(regex, str) else regex
        with warnings.catch_warnings(record=True) as ws:
            warnings.simplefilter("always")
            yield
        if not any(isinstance(w.message, warning)
                   and (pattern is None or pattern.search(str(w.message))) for w in ws):
            self.fail(f"Expected warning not found {warning}:'{pattern}', got warnings: "
                      f"{[str(w.message) for w in ws]}")

    def assertDeprecationWarnsOrRaises(self, deprecation_id, message, *,
                                       error_class=ValueError):
        return self.assertWarnsRegex(DeprecationWarning, message)

    def _CompileAndCheck(self, fun, args_maker, *, check_dtypes=True, tol=None, rtol=None,
                         atol=None, check_cache_misses=True):
        """fun eagerly, then jitted (traced once: the second jitted call must not run Python),
        agree; a second eager call compiles no new primitive."""
        args = args_maker()
        python_should_be_executing = True

        def wrapped_fun(*args):
            self.assertTrue(python_should_be_executing)
            return fun(*args)
        python_ans = fun(*args)
        self.assertEqual(tree_util.tree_map(np.shape, python_ans),
                         tree_util.tree_map(lambda x: np.shape(np.asarray(x)), python_ans))
        with count_primitive_compiles() as compiles:
            python_ans = fun(*args)
        if check_cache_misses:
            self.assertEqual(0, compiles(), f"Compilation detected during second call of {fun} "
                             "in op-by-op mode.")
        cfun = _jit(wrapped_fun)
        monitored_ans = cfun(*args)
        python_should_be_executing = False
        compiled_ans = cfun(*args)
        tol_kw = dict(check_dtypes=check_dtypes, atol=atol or tol, rtol=rtol or tol)
        self.assertAllClose(monitored_ans, python_ans, **tol_kw)
        self.assertAllClose(compiled_ans, python_ans, **tol_kw)
        args = args_maker()
        python_should_be_executing = True
        python_ans = fun(*args)
        python_should_be_executing = False
        compiled_ans = cfun(*args)
        self.assertAllClose(compiled_ans, python_ans, **tol_kw)

    def _CheckAgainstNumpy(self, numpy_reference_op, lax_op, args_maker, check_dtypes=True,
                           tol=None, atol=None, rtol=None, canonicalize_dtypes=True):
        args = args_maker()
        lax_ans = lax_op(*args)
        numpy_ans = numpy_reference_op(*args)
        self.assertAllClose(lax_ans, numpy_ans, check_dtypes=check_dtypes, atol=atol or tol,
                            rtol=rtol or tol, canonicalize_dtypes=canonicalize_dtypes)

    def assertCacheMisses(self, func, *, cpp=None, aot_call=None, tracing=None, lowering=None,
                          compilation_after_persistent_cache_miss=None):
        with (count_pjit_cpp_cache_miss() as cpp_count,
              count_jit_tracing_cache_miss() as tracing_count,
              count_jit_and_pmap_lowerings() as lowering_count):
            func()
        for want, got in ((cpp, cpp_count), (tracing, tracing_count),
                          (lowering, lowering_count)):
            if want is not None:
                self.assertEqual(want, got())


def _canonical(dtype):
    return _dtypes.canonicalize_dtype(dtype, allow_extended_dtype=True)


class BufferDonationTestCase(JaxTestCase):
    def assertDeleted(self, x):
        self.assertTrue(x.is_deleted())

    def assertNotDeleted(self, x):
        self.assertFalse(x.is_deleted())


_PJIT_IMPLEMENTATION = _jit
_PJIT_IMPLEMENTATION._name = "jit"  # (as JAX's: tests name their cases after it)
_NOOP_JIT_IMPLEMENTATION = lambda x, *args, **kwargs: x
_NOOP_JIT_IMPLEMENTATION._name = "noop"
JIT_IMPLEMENTATION = (_PJIT_IMPLEMENTATION, _NOOP_JIT_IMPLEMENTATION)


def complex_plane_sample(dtype, size_re=10, size_im=None):
    """A (3 + 2 size_im) x (3 + 2 size_re) grid over the complex plane. Each axis holds -inf,
    size points from the most negative finite value down (log-spaced in magnitude) to minus
    the smallest normal, 0, their mirror images, and +inf."""
    if size_im is None:
        size_im = size_re
    finfo = np.finfo(dtype)
    digits_per_decimal = 3.3219280948873626  # log2(10)

    def axis_points(size):
        pts = np.zeros(3 + 2 * size, dtype=finfo.dtype)
        with np.errstate(over="ignore"), warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)
            neg = -np.logspace(finfo.maxexp / digits_per_decimal,
                               finfo.minexp / digits_per_decimal, size, dtype=finfo.dtype)
        pts[1:size + 1] = neg
        pts[-size - 1:-1] = -neg[::-1]
        if size > 1:
            pts[1], pts[-2] = finfo.min, finfo.max
        if size > 0:
            pts[size], pts[-size - 1] = -finfo.tiny, finfo.tiny
        pts[0], pts[-1] = -np.inf, np.inf
        return pts
    re_pts, im_pts = axis_points(size_re), axis_points(size_im)
    real = np.broadcast_to(re_pts[None, :], (len(im_pts), len(re_pts))).astype(dtype)
    imag = np.zeros((len(im_pts), len(re_pts)), dtype)
    imag.imag[:] = im_pts[:, None]
    return real + imag
