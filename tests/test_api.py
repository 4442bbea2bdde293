"""Tests of the top-level API that is not a transformation: `Array` (attributes, methods,
conversions, repr), device placement, array creation from host values, the x64 flag,
`pyjax.errors` and the version attributes."""
import collections.abc
import inspect
import operator

import numpy as np
import pytest

import pyjax as jax
import pyjax
import pyjax.numpy as jnp
from pyjax._src import core


@pytest.fixture
def x():
    return jnp.arange(6.0).reshape(2, 3)


@pytest.fixture
def x64():
    prev = jax.config.jax_enable_x64
    jax.config.update("jax_enable_x64", True)
    yield
    jax.config.update("jax_enable_x64", prev)


# --- Array attributes ------------------------------------------------------------------------


def test_attributes(x):
    assert isinstance(x, jax.Array)
    assert x.shape == (2, 3) and x.dtype == np.float32 and x.ndim == 2 and x.size == 6
    assert x.T.shape == (3, 2)
    np.testing.assert_array_equal(np.asarray(x.T), np.arange(6.0).reshape(2, 3).T)
    assert x.nbytes == 24 and x.itemsize == 4


def test_device_and_devices(x):
    y = x * 2  # computed on the device
    dev = jax.devices()[0]
    assert y.device == dev and y.devices() == {dev}
    assert x.device == dev and x.devices() == {dev}


def test_block_until_ready(x):
    y = jnp.sin(x)
    assert y.block_until_ready() is y
    tree = {"a": y, "b": [y, 1.0]}
    assert jax.block_until_ready(tree) is tree


def test_array_protocol(x):
    a = np.asarray(x)
    assert isinstance(a, np.ndarray) and a.dtype == np.float32
    np.testing.assert_array_equal(a, np.arange(6.0).reshape(2, 3))
    assert np.asarray(x, dtype=np.int64).dtype == np.int64
    assert np.array(x * 1).sum() == 15.0
    assert np.sin(x).dtype == np.float32  # NumPy functions accept Arrays


def test_python_scalar_conversions(x):
    assert float(x[0, 1]) == 1.0 and isinstance(float(x[0, 1]), float)
    assert int(x[1, 2]) == 5 and isinstance(int(x[1, 2]), int)
    assert bool(x[0, 1]) is True and bool(x[0, 0]) is False
    assert complex(x[0, 1]) == 1 + 0j
    assert ["a", "b", "c"][jnp.int32(2)] == "c"  # __index__
    assert range(10)[jnp.array(3)] == 3


def test_scalar_conversions_need_0d_arrays():
    """Issue 23 (JAX's api_test test_scalar_conversion_errors): as JAX 0.10.2, int/float/
    complex/index take 0-d arrays only (not NumPy's length-1 arrays), with JAX's words."""
    for fn in (float, int, complex):
        with pytest.raises(TypeError, match="Only scalar arrays can be converted to Python scalars"):
            fn(jnp.ones((1, 1)))
    for fn in (operator.index, hex):
        for x in (jnp.arange(10), jnp.arange(0), jnp.float32(0), jnp.arange(1)):
            with pytest.raises(TypeError, match="Only integer scalar arrays can be converted to "
                                                "a scalar index"):
                fn(x)
    with pytest.raises(ValueError, match="The truth value of an empty array is ambiguous"):
        bool(jnp.arange(0))
    with pytest.raises(ValueError, match="The truth value of an empty array is ambiguous"):
        jax.jit(bool)(jnp.arange(0))


def test_python_scalar_conversion_errors(x):
    with pytest.raises(TypeError):
        float(x)
    with pytest.raises(TypeError):
        int(x)
    with pytest.raises(ValueError, match="ambiguous"):
        bool(x)
    with pytest.raises(TypeError):
        [1, 2][jnp.float32(1)]  # __index__ of a float array


def test_tolist_and_item(x):
    assert x.tolist() == [[0.0, 1.0, 2.0], [3.0, 4.0, 5.0]]
    assert jnp.array([1, 2]).tolist() == [1, 2]
    assert x[1, 1].item() == 4.0 and isinstance(x[1, 1].item(), float)
    assert jnp.int32(7).item() == 7 and isinstance(jnp.int32(7).item(), int)
    assert x.item(4) == 4.0


def test_astype_and_reshape(x):
    i = x.astype(jnp.int32)
    assert i.dtype == np.int32 and i.tolist() == [[0, 1, 2], [3, 4, 5]]
    assert x.astype("float16").dtype == np.float16
    assert x.reshape(3, 2).shape == (3, 2)
    assert x.reshape((6,)).shape == (6,)
    assert x.reshape(-1).tolist() == [0, 1, 2, 3, 4, 5]


def test_iteration_and_len(x):
    rows = list(x)
    assert len(x) == 2 and len(rows) == 2
    assert all(isinstance(r, jax.Array) and r.shape == (3,) for r in rows)
    assert rows[1].tolist() == [3.0, 4.0, 5.0]
    with pytest.raises(TypeError):
        len(jnp.float32(1))
    with pytest.raises(TypeError):
        iter(jnp.float32(1))


def test_reduction_methods(x):
    assert float(x.sum()) == 15.0 and float(x.max()) == 5.0 and float(x.min()) == 0.0
    np.testing.assert_allclose(np.asarray(x.mean(axis=0)), [1.5, 2.5, 3.5])


def test_trace_diagonal_ptp_tobytes_methods():
    """Issue 23: Array methods JAX 0.10.2 has (values recorded from it), under jit too."""
    x = jnp.arange(6.).reshape(2, 3)
    assert float(x.trace()) == 4.0 and float(x.trace(offset=1)) == 6.0
    assert x.diagonal(1).tolist() == [1, 5] and x.ptp(axis=1).tolist() == [2, 2]
    assert x.tobytes()[:8] == b"\x00\x00\x00\x00\x00\x00\x80?"
    t = jnp.arange(8.).reshape(2, 2, 2).trace(axis1=1, axis2=2, dtype=jnp.int32)
    assert t.dtype == np.int32 and t.tolist() == [3, 11]
    assert float(pyjax.jit(lambda v: v.trace() + v.diagonal().sum() + v.ptp())(x)) == 13.0


def test_shape_dtype_struct_like_and_update():
    """Issue 23: ShapeDtypeStruct.like/.update as JAX 0.10.2 (recorded: a committed array keeps
    its sharding, an uncommitted one and a NumPy array have none, a Python float is weak)."""
    S = pyjax.ShapeDtypeStruct
    assert S.like(jnp.ones((2, 3))) == S((2, 3), np.float32) and S.like(jnp.ones(2)).sharding is None
    assert S.like(np.ones(2, np.int8)) == S((2,), np.int8) and S.like(3.0).weak_type
    assert S.like(pyjax.device_put(jnp.ones(2), pyjax.devices()[0])).sharding is not None
    assert S.like(S((4,), np.int32)) == S((4,), np.int32)
    assert S((2,), np.float32).update(shape=(3,), weak_type=True) == S((3,), np.float32, weak_type=True)


def test_arrays_are_immutable_and_unhashable(x):
    with pytest.raises(TypeError):
        x[0, 0] = 1.0
    with pytest.raises(TypeError):
        hash(x)


@pytest.mark.parametrize("make, expected", [
    (lambda: jnp.arange(6.0).reshape(2, 3),
     "Array([[0., 1., 2.],\n       [3., 4., 5.]], dtype=float32)"),
    (lambda: jnp.array([1, 2]), "Array([1, 2], dtype=int32)"),
    (lambda: jnp.float32(2), "Array(2., dtype=float32)"),
    (lambda: jnp.array(2.0), "Array(2., dtype=float32, weak_type=True)"),
    (lambda: jnp.array(True), "Array(True, dtype=bool)"),
    (lambda: jnp.zeros((2, 0)), "Array([], shape=(2, 0), dtype=float32)"),
    (lambda: jnp.array([1.5, 2.0]), "Array([1.5, 2. ], dtype=float32)"),
])
def test_repr_matches_jax(make, expected):
    assert repr(make()) == expected


def test_str_is_the_numpy_str(x):
    assert str(x) == str(np.arange(6.0, dtype=np.float32).reshape(2, 3))
    assert f"{x[0, 1]:.2f}" == "1.00"


# --- device_put / device_get ----------------------------------------------------------------


def test_device_put_host_values():
    y = jax.device_put(np.ones(3))
    assert isinstance(y, jax.Array) and y.dtype == np.float32  # canonicalized (x64 off)
    assert jax.device_put(1.0).weak_type and not jax.device_put(np.float32(1)).weak_type
    assert jax.device_put(True).dtype == np.bool_


def test_device_put_pytree_and_explicit_device():
    dev = jax.devices()[0]
    tree = jax.device_put({"a": np.arange(3), "b": [1.0, np.ones(2)]}, dev)
    assert all(isinstance(v, jax.Array) for v in jax.tree_util.tree_leaves(tree))
    assert tree["a"].dtype == np.int32
    assert jax.device_put({"a": 1.0, "b": [2, 3]}, {"a": dev, "b": None})["b"][1].dtype == np.int32
    y = jnp.arange(3.0) * 2
    assert jax.device_put(y) is y
    z = jax.device_put(y, dev)  # as in JAX: the same data, now committed to the device
    assert z is not y and z.committed and not y.committed
    assert z.unsafe_buffer_pointer() == y.unsafe_buffer_pointer()
    np.testing.assert_array_equal(np.asarray(jax.device_put(y, dev, may_alias=False)), [0, 2, 4])
    np.testing.assert_array_equal(jax.device_put(y, jax.sharding.SingleDeviceSharding(dev)), [0, 2, 4])
    for bad in ["cpu", 0]:  # JAX 0.10.2: ValueError naming the value
        with pytest.raises(ValueError, match=f"only accepts .*Received invalid value: {bad!r}"):
            jax.device_put(y, bad)


def test_device_get():
    y = jnp.arange(3.0) * 2
    h = jax.device_get(y)
    assert isinstance(h, np.ndarray) and h.tolist() == [0, 2, 4]
    tree = jax.device_get({"a": y, "b": (y, 3)})
    assert isinstance(tree["a"], np.ndarray) and tree["b"][1] == 3


def test_device_get_of_tracers_and_host_values_as_jax():
    # JAX 0.10.2: a tracer stays itself (chex's without_device variant inside a fori_loop),
    # values with __array__ become NumPy arrays, other leaves stay as they are
    out = jax.lax.fori_loop(0, 3, lambda i, c: jax.device_get(c) + 1.0, jnp.zeros(2))
    np.testing.assert_array_equal(out, [3.0, 3.0])
    seen = []
    jax.jit(lambda v: seen.append(jax.device_get(v)) or v)(jnp.ones(2))
    assert isinstance(seen[0], core.Tracer)
    h = jax.device_get(np.float32(2))
    assert type(h) is np.ndarray and h.dtype == np.float32 and h.shape == ()
    assert jax.device_get("s") == "s" and jax.device_get(None) is None


def test_devices_and_backend():
    devs = jax.devices()
    assert len(devs) == jax.device_count() >= 1
    assert isinstance(devs[0], jax.Device)
    assert jax.default_backend() == "cpu" and devs[0].platform == "cpu"
    assert jax.local_device_count() == len(jax.local_devices())
    # backend by keyword, process_index by position or keyword (as JAX 0.10.2)
    assert jax.local_devices(backend="cpu") == jax.local_devices(0, "cpu") == devs
    assert jax.local_devices(process_index=0) == devs
    with pytest.raises(ValueError, match="Unknown process_index 5"):
        jax.local_devices(5)


# --- jnp.array / jnp.asarray ---------------------------------------------------------------------


@pytest.mark.parametrize("value, dtype, weak", [
    ([1, 2, 3], np.int32, False),
    ([1.0, 2], np.float32, False),
    ([[1, 2], [3, 4]], np.int32, False),
    ([[1.5], [2]], np.float32, False),
    ([True, False], np.bool_, False),
    ([1 + 2j], np.complex64, False),
    (np.arange(4, dtype=np.int16), np.int16, False),
    (np.ones(2, np.float64), np.float32, False),
    (np.int64(3), np.int32, False),
    (3, np.int32, True),
    (2.5, np.float32, True),
    (True, np.bool_, False),
])
def test_array_from_host_values(value, dtype, weak):
    for make in (jnp.array, jnp.asarray):
        a = make(value)
        assert isinstance(a, jax.Array)
        assert a.dtype == np.dtype(dtype) and a.weak_type == weak, (make, value, a)
        np.testing.assert_array_equal(np.asarray(a), np.asarray(value).astype(dtype))


def test_array_with_dtype_and_nested_arrays():
    assert jnp.array([1, 2], dtype=jnp.float32).dtype == np.float32
    assert jnp.asarray(np.ones(3), dtype="int8").dtype == np.int8
    nested = jnp.array([jnp.ones(2), jnp.zeros(2)])
    assert nested.shape == (2, 2) and nested.tolist() == [[1, 1], [0, 0]]
    y = jnp.arange(3.0)
    assert jnp.asarray(y) is y


def test_array_copies_an_array():
    x = jnp.arange(3.0) + 0
    y = jnp.array(x)
    assert y is not x
    jax.jit(lambda v: v * 2, donate_argnums=0)(x)
    assert x.is_deleted() and not y.is_deleted()
    assert y.tolist() == [0.0, 1.0, 2.0]


# --- the x64 flag ---------------------------------------------------------------------------------


def test_x64_off_by_default_canonicalizes_to_32_bits():
    assert not jax.config.jax_enable_x64
    assert jnp.array(np.ones(2, np.float64)).dtype == np.float32
    assert jnp.array(np.ones(2, np.int64)).dtype == np.int32
    assert jnp.arange(3).dtype == np.int32
    with pytest.warns(UserWarning, match="float64"):  # as JAX: say that 64 bits were dropped
        assert jnp.ones(2, dtype=jnp.float64).dtype == np.float32


def test_x64_on_keeps_64_bits(x64):
    assert jax.config.jax_enable_x64
    assert jnp.array([1.0, 2]).dtype == np.float64
    assert jnp.arange(3).dtype == np.int64
    a = jnp.asarray(np.array([2**40], np.int64))
    assert a.dtype == np.int64 and int(a[0]) == 2**40
    assert (jnp.ones(2, jnp.float64) * 2).dtype == np.float64


def test_x64_flag_is_restored():
    with jax.enable_x64(True):
        assert jnp.array(1.0).dtype == np.float64
    assert jnp.array(1.0).dtype == np.float32


def test_unknown_config_option():
    with pytest.raises(AttributeError):
        jax.config.update("jax_no_such_flag", True)


# --- pyjax.errors ---------------------------------------------------------------------------------

# JAX 0.10.2's classes and their bases (from `jax.errors`, checked in a venv with real JAX).
ERROR_BASES = {
    "ConcretizationTypeError": "JAXTypeError",
    "InconclusiveDimensionOperation": Exception,
    "JAXIndexError": IndexError,
    "JAXTypeError": TypeError,
    "JaxRuntimeError": RuntimeError,
    "JaxprTypeError": TypeError,
    "KeyReuseError": "JAXTypeError",
    "NonConcreteBooleanIndexError": "JAXIndexError",
    "TracerArrayConversionError": "JAXTypeError",
    "TracerBoolConversionError": "ConcretizationTypeError",
    "TracerIntegerConversionError": "JAXTypeError",
    "UnexpectedTracerError": "JAXTypeError",
}


def test_errors_module_has_every_jax_error_class():
    public = {n for n, v in vars(jax.errors).items()
              if inspect.isclass(v) and issubclass(v, BaseException)}
    assert public == set(ERROR_BASES)


@pytest.mark.parametrize("name, base", ERROR_BASES.items())
def test_error_subclassing_matches_jax(name, base):
    cls = getattr(jax.errors, name)
    base = getattr(jax.errors, base) if isinstance(base, str) else base
    assert issubclass(cls, base)


def test_error_subclassing_negative_cases():
    E = jax.errors
    assert not issubclass(E.TracerIntegerConversionError, E.ConcretizationTypeError)
    assert not issubclass(E.TracerArrayConversionError, E.ConcretizationTypeError)
    assert not issubclass(E.JaxprTypeError, E.JAXTypeError)
    assert not issubclass(E.JaxRuntimeError, TypeError)
    assert issubclass(E.TracerBoolConversionError, TypeError)


def test_bool_of_a_tracer_raises_tracer_bool_conversion_error():
    @jax.jit
    def f(x):
        if x > 0:
            return x
        return -x

    with pytest.raises(jax.errors.TracerBoolConversionError) as info:
        f(1.0)
    assert isinstance(info.value, jax.errors.ConcretizationTypeError)


# --- versions -----------------------------------------------------------------------------------


def test_version():
    assert jax.__version__ == "0.10.2"
    assert jax.__version_info__ == (0, 10, 2)
    assert isinstance(jax.pyjax_version, str) and jax.pyjax_version != jax.__version__


# --- clear_caches ------------------------------------------------------------------------------


class _Counter(dict):
    def __missing__(self, key):
        return 0


def test_clear_caches_retraces_as_jax_does():
    # trace counts of jit, vmap-of-jit and grad-of-jit around clear_caches, recorded from JAX
    import json
    import pathlib
    data = json.loads((pathlib.Path(__file__).parent / "data" / "control_flow.json").read_text())
    scenario, n = data["traces"]["jit_clear_caches"], _Counter()
    exec(scenario["code"], dict(jax=jax, jnp=jnp, np=np, lax=jax.lax, n=n))
    assert dict(n) == scenario["counts"]


def test_clear_caches_empties_every_registered_cache():
    from pyjax._src import dispatch, pjit
    from pyjax._src.backend import xla
    from pyjax._src.interpreters import batching
    from pyjax._src.lax.control_flow import common
    f = jax.jit(lambda x: jnp.sin(x) * 2)
    body, cond, step = (lambda c, x: (c + x, c)), (lambda c: c < 3), (lambda c: c + 1)  # kept alive:
    f(1.0)                                                  # their traces are cached weakly
    jax.vmap(f)(jnp.ones(3))
    jax.grad(f)(1.0)
    jax.lax.scan(body, 0.0, jnp.arange(3.0))
    jax.lax.while_loop(cond, step, 0)
    jnp.cos(jnp.ones(2))
    caches = {"jit wrapper": pjit.jit_info(f)._cache, "primitives": dispatch._primitive_cache,
              "compiled jaxprs": dispatch._compiled, "executables": xla._executables,
              "scan and while": dispatch._jaxpr_primitive_cache,
              "eager control flow": common._eager_traces, "batched jaxprs": batching._batched_jaxprs,
              "jit traces": pjit._traces}
    assert all(len(c) for c in caches.values()), {k: len(c) for k, c in caches.items()}
    jax.clear_caches()
    assert not any(len(c) for c in caches.values()), {k: len(c) for k, c in caches.items()}
    assert float(f(1.0)) == pytest.approx(2 * np.sin(1.0))  # and everything works after it


def test_ensure_compile_time_eval_runs_constant_operations_now():
    seen = {}

    @pyjax.jit
    def f(x):
        with pyjax.ensure_compile_time_eval():
            n = jnp.sum(jnp.arange(4))         # constants only: computed at trace time
            y = jnp.sin(x) * 2                  # depends on the argument: still staged
            seen["types"] = (isinstance(n, core.Tracer), isinstance(y, core.Tracer))
            big = bool(n > 5)                   # so Python control flow can use it
        return x * n if big else x
    assert f(2.0) == 12.0
    assert seen["types"] == (False, True)
    with pytest.raises(pyjax.errors.TracerBoolConversionError):  # outside the block: staged
        pyjax.jit(lambda x: x if jnp.sum(jnp.arange(4)) + x > 0 else -x)(1.0)
    assert not pyjax.config.eager_constant_folding


def test_named_call_and_named_scope_run_the_function():
    assert pyjax.grad(pyjax.named_call(jnp.sin, name="s"))(0.0) == 1.0
    assert pyjax.named_call(jnp.sin, name="s").__name__ == "sin"  # as JAX: the name goes to the name stack
    with pyjax.named_scope("block"):
        assert float(pyjax.jit(jnp.cos)(0.0)) == 1.0
    with pytest.raises(TypeError):
        with pyjax.named_scope(3):
            pass


def test_process_and_host_queries():
    assert pyjax.process_indices() == [0] and pyjax.effects_barrier() is None
    with pytest.warns(UserWarning, match="renamed to jax.process_count"):
        assert pyjax.host_count() == 1
    with pytest.warns(UserWarning, match="renamed to jax.process_index"):
        assert pyjax.host_id() == 0
    x = jnp.arange(3.0) + 1
    assert any(a is x for a in pyjax.live_arrays())
    tree = {"a": x, "b": "not an array"}
    assert pyjax.copy_to_host_async(tree) is tree
    info = pyjax.print_environment_info(return_string=True)
    assert "jaxlib: 0.10.2" in info and "process_count: 1" in info


def test_pmap_axes_must_be_ints():
    """Issue 23 (JAX's api_test test_pmap_in_axes_bool_error): JAX's TypeError for a bool."""
    with pytest.raises(TypeError, match="must be an int"):
        jax.pmap(lambda x: x, in_axes=False)(jnp.zeros(1))


def test_shape_dtype_struct_has_a_length():
    """Issue 23 (JAX's api_test test_shape_dtype_struct): len() as an array's."""
    assert len(jax.ShapeDtypeStruct((4, 2, 3), jnp.float32)) == 4
    with pytest.raises(TypeError, match="unsized"):
        len(jax.ShapeDtypeStruct((), jnp.float32))


def test_device_put_tree_mismatch_lists_every_mismatch():
    """Issue 23 (JAX's api_test test_device_put_mismatched_tree_shows_*): JAX's ValueError with
    every mismatch (None counted as a node in the report, as JAX's)."""
    x = {"a": jnp.arange(2), "b": jnp.arange(3)}
    with pytest.raises(ValueError, match=r"(?s)device_put device specification must be a tree "
                                         r"prefix.*Mismatch details \(2 found\).*different types"):
        jax.device_put(x, device={"a": [None, None], "b": (None, None)})
    with pytest.raises(ValueError, match=r"(?s)Mismatch details \(2 found\)"):
        jax.device_put(x, device={"a": None, "b": (None, None)})


def test_device_put_may_alias_and_donate_exclude_each_other():
    """Issue 23 (JAX's api_test test_device_put_aliasing): JAX's ValueError; may_alias=True
    gives the array itself, may_alias=False a copy."""
    arr = jax.device_put(np.arange(8), jax.devices()[0])
    assert jax.device_put(arr, may_alias=True, donate=False) is arr
    assert jax.device_put(arr, may_alias=False, donate=False) is not arr
    with pytest.raises(ValueError, match="may_alias and donate cannot be True at the same time"):
        jax.device_put(arr, may_alias=True, donate=True)
    one = jax.sharding.SingleDeviceSharding(jax.devices()[0])
    assert jax.device_put(arr, one, may_alias=True, donate=False) is arr
    assert jax.device_put(arr, one, may_alias=False, donate=False) is not arr


def test_arrays_are_unhashable_and_small_core_names():
    """As JAX 0.10.2 (its api_test): arrays are not Hashable (libraries ask
    `isinstance(x, collections.abc.Hashable)` to tell static values apart); a ShapeDtypeStruct
    needs a dtype; core.eval_context() computes eagerly inside a trace; core names
    UnexpectedTracerError."""
    x = jnp.ones((1,)) + 1.0
    assert not isinstance(x, collections.abc.Hashable)
    with pytest.raises(TypeError, match="unhashable type"):
        hash(x)
    with pytest.raises(ValueError, match="dtype must be specified"):
        pyjax.ShapeDtypeStruct(shape=(), dtype=None)
    with pytest.raises(ValueError, match="numpy masked arrays are not supported"):
        pyjax.jit(lambda v: v)(np.ma.array([1, 2, 3], mask=[True, False, True]))
    seen = []

    @pyjax.jit
    def f(v):
        with core.eval_context():
            seen.append(bool(jnp.add(1, 1) == 2))  # concrete, not a tracer
        return v

    f(1.0)
    assert seen == [True]
    assert core.UnexpectedTracerError is pyjax.errors.UnexpectedTracerError
