"""C++ dispatch: pyjax's arrays are jaxlib's ArrayImpl, and jit, the hottest jnp functions and
eager primitives run on jaxlib's `PjitFunction` fast path.

What is checked: after the first call of a signature C++ answers without Python (counted by the
Python path's calls); every argument kind C++ handles gives NumPy's values; whatever changes a
trace (tracing state, x64, debug flags, static values) reaches Python; a miss that raised does
not leave its signature on the slow path; pytrees flatten alike in both registries.
"""
import collections
import dataclasses
import threading

import numpy as np
import pytest

import pyjax as jax
import pyjax.numpy as jnp
from pyjax._src import dispatch, pjit
from pyjax._src.backend import xla


def counting(f):
    """Count the calls C++ hands to pyjax's Python path for the jitted `f`."""
    info = pjit.jit_info(f)
    calls = []
    python_path = info.call

    def call(args, kwargs):
        calls.append(1)
        return python_path(args, kwargs)
    info.call = call
    return calls


def test_arrays_are_jaxlib_arrays():
    x = jnp.arange(3.0)
    assert type(x) is xla.ArrayImpl
    assert isinstance(x, jax.Array) and issubclass(xla.ArrayImpl, jax.Array)
    with pytest.raises(TypeError):
        jax.Array()
    assert x.shape == (3,) and x.dtype == np.float32 and x.ndim == 1 and x.size == 3
    assert x.nbytes == 12 and x.itemsize == 4 and not x.weak_type
    assert x.device == jax.devices()[0] and x.devices() == {jax.devices()[0]}
    assert x.block_until_ready() is x
    (shard,) = x.addressable_shards
    assert shard.device == x.device and shard.index == (slice(None),) and shard.data is x
    assert repr(jnp.float32(2)) == "Array(2., dtype=float32)"
    assert not x.committed and jax.device_put(x, jax.devices()[0]).committed


def test_jit_and_tracers_stay_arrays_for_isinstance():
    seen = []
    jax.jit(lambda v: seen.append(isinstance(v, jax.Array)) or v)(jnp.ones(2))
    assert seen == [True]


@pytest.mark.parametrize("arg", [
    jnp.arange(4.0), np.arange(4.0, dtype=np.float32), np.arange(4), 3.0, 2, True,
    np.float32(1.5), np.int32(7),
], ids=["array", "numpy", "numpy-int64", "float", "int", "bool", "np-float32", "np-int32"])
def test_second_call_is_answered_by_cpp(arg):
    f = jax.jit(lambda v: v * 2 + 1)
    calls = counting(f)
    expected = np.asarray(arg) * 2 + 1
    for _ in range(3):
        np.testing.assert_allclose(np.asarray(f(arg)), expected)
    assert len(calls) == 1


def test_static_and_keyword_arguments_stay_in_cpp():
    f = jax.jit(lambda v, n, *, scale: v * n * scale, static_argnums=1)
    calls = counting(f)
    x = jnp.ones(3)
    for _ in range(3):
        np.testing.assert_array_equal(np.asarray(f(x, 2, scale=3.0)), [6, 6, 6])
    np.testing.assert_array_equal(np.asarray(f(x, 4, scale=3.0)), [12, 12, 12])
    assert len(calls) == 2
    with pytest.raises(ValueError, match="Non-hashable static arguments"):
        f(x, [2], scale=1.0)


def test_pytree_containers_flatten_alike_in_both_registries():
    @jax.tree_util.register_dataclass
    @dataclasses.dataclass
    class Params:
        w: object
        b: object

    tree = {"od": collections.OrderedDict([("z", jnp.ones(2)), ("a", jnp.zeros(2))]),
            "dd": collections.defaultdict(list, {"y": jnp.ones(1), "x": jnp.full(1, 2.0)}),
            "dq": collections.deque([jnp.ones(1), jnp.full(1, 3.0)], maxlen=5),
            "p": Params(jnp.ones(2), jnp.full(2, 5.0)), "none": None,
            "nt": collections.namedtuple("NT", "u v")(1.0, jnp.ones(1))}
    f = jax.jit(lambda t: jax.tree_util.tree_map(lambda v: v + 1, t))
    calls = counting(f)
    for _ in range(3):
        out = f(tree)
    assert len(calls) == 1
    assert jax.tree_util.tree_structure(out) == jax.tree_util.tree_structure(tree)
    for got, want in zip(jax.tree_util.tree_leaves(out), jax.tree_util.tree_leaves(tree)):
        np.testing.assert_array_equal(np.asarray(got), np.asarray(want) + 1)
    assert isinstance(out["dq"], collections.deque) and out["dq"].maxlen == 5


def test_values_outside_cpps_plain_types_still_work():
    f = jax.jit(lambda v: v + 1)
    for v in [np.float16(1.5), np.ones(2, np.float16), np.uint8(3), np.complex64(1j)]:
        for _ in range(2):
            out = f(v)
            np.testing.assert_allclose(np.asarray(out), np.asarray(v) + 1)
            assert out.dtype == np.asarray(v).dtype
        np.testing.assert_allclose(np.asarray(jnp.sin(v)), np.sin(v), rtol=1e-3)


def test_concrete_calls_under_a_transformation_are_staged():
    g = jax.jit(lambda a: a + 1)
    c = jnp.ones(3)
    g(c)  # now a C++ hit outside any trace
    jaxpr = jax.make_jaxpr(lambda z: z * g(c))(jnp.ones(3))
    assert [e.primitive.name for e in jaxpr.eqns] == ["jit", "mul"]
    grads = jax.grad(lambda z: jnp.sum(z * g(c)))(jnp.ones(3))
    np.testing.assert_array_equal(np.asarray(grads), [2, 2, 2])


def test_x64_and_debug_flags_are_part_of_the_key():
    f = jax.jit(lambda v: v + 1)
    assert f(1.0).dtype == np.float32
    with jax.enable_x64(True):
        assert f(1.0).dtype == np.float64
    assert f(1.0).dtype == np.float32
    h = jax.jit(lambda v: jnp.log(v))
    h(jnp.zeros(2) - 1)  # nan, unchecked: now a C++ hit
    with jax.debug_nans(True):
        with pytest.raises(FloatingPointError):
            h(jnp.zeros(2) - 1)


def test_a_miss_that_raised_does_not_leave_the_signature_slow():
    fail = [True]

    def fun(v):
        if fail[0]:
            raise KeyError("boom")
        return v * 2

    f = jax.jit(fun)
    x = jnp.arange(3.0)
    with pytest.raises(KeyError, match="boom"):
        f(x)
    fail[0] = False
    calls = counting(f)
    for _ in range(4):
        np.testing.assert_array_equal(np.asarray(f(x)), [0, 2, 4])
    assert len(calls) == 2  # one to clear C++'s cache, one to fill it again


def test_disable_jit_and_clear_caches():
    seen = []
    f = jax.jit(lambda v: seen.append(type(v)) or v + 1)
    f(jnp.ones(2))
    with jax.disable_jit():
        f(jnp.ones(2))
    assert seen[1] is xla.ArrayImpl
    jax.clear_caches()
    calls = counting(f)
    f(jnp.ones(2)), f(jnp.ones(2))
    assert len(calls) == 1


def test_eager_primitives_run_on_one_dispatcher_per_params():
    x = jnp.arange(4.0)
    for _ in range(3):
        out = jax.lax.integer_pow(x, 3)
    np.testing.assert_array_equal(np.asarray(out), np.arange(4.0) ** 3)
    fns = [fn for key, fn in dispatch._eager_fns.items()
           if isinstance(key, tuple) and key[0].name == "integer_pow" and key[1:] == (("y", 3),)]
    assert fns and fns[0]._cache_size() == 1


def test_hot_jnp_functions_trace_inline():
    jaxpr = jax.make_jaxpr(lambda v: jnp.sum(jnp.sin(v) + v))(jnp.ones(3))
    assert [e.primitive.name for e in jaxpr.eqns] == ["sin", "add", "reduce_sum"]
    with pytest.raises(TypeError, match="sin requires ndarray or scalar arguments"):
        jnp.sin("a")


def test_deleted_operands_are_named():
    x = jnp.ones(3) + 0
    x.delete()
    with pytest.raises(RuntimeError, match=r"Array has been deleted with shape=float32\[3\]"):
        x + 1
    with pytest.raises(RuntimeError, match=r"Array has been deleted with shape=float32\[3\]"):
        jax.lax.neg(x)


def test_concurrent_calls_agree():
    f = jax.jit(lambda v: v * 3)
    results = []

    def work():
        for i in range(300):
            results.append(float(f(jnp.float32(i))) == 3 * i)
    threads = [threading.Thread(target=work) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(results) == 1200 and all(results)


def test_computations_follow_committed_arguments_to_their_device():
    """With two CPU devices (a fresh process): jit and eager ops run where their committed
    arguments are, uncommitted ones follow, and two different devices are JAX's ValueError."""
    import os
    import subprocess
    import sys
    import textwrap
    code = textwrap.dedent("""
        import numpy as np, pyjax as jax, pyjax.numpy as jnp
        d0, d1 = jax.devices()
        x = jax.device_put(jnp.arange(3.0), d1)
        f = jax.jit(lambda a, b: a * b)
        for _ in range(3):   # the Python path, then C++
            z = f(x, jnp.ones(3))
            assert z.device == d1 and z.committed, z.device
            np.testing.assert_array_equal(np.asarray(z), [0, 1, 2])
        for out in (x + 1, jnp.sin(x), jax.lax.neg(x)):
            assert out.device == d1 and out.committed
        assert f(jnp.ones(3), jnp.ones(3)).device == d0
        try:
            f(x, jax.device_put(jnp.ones(3), d0))
        except ValueError as e:
            assert "Received incompatible devices for jitted computation" in str(e), e
        else:
            raise AssertionError("no error")
        print("ok")
    """)
    env = dict(os.environ, XLA_FLAGS="--xla_force_host_platform_device_count=2")
    p = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env,
                       timeout=120)
    assert p.returncode == 0 and p.stdout.strip() == "ok", p.stderr[-2000:]
