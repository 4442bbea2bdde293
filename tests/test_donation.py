"""Buffer donation (`jit(f, donate_argnums=...)`) deletes the donated Array and nothing else.

pyjax shares some device buffers internally (one buffer per cached scalar constant, the
constants a compiled function keeps); donating an Array must never delete another Array, a
cached constant or a compiled function's constant. Expected values are NumPy's; the behaviour
of the deleted Array (RuntimeError, `is_deleted()`) is JAX 0.10.2's.
"""
import numpy as np
import pytest

import pyjax as jax
import pyjax.numpy as jnp
from pyjax._src.backend import xla

double = jax.jit(lambda a: a * 2, donate_argnums=0)


def check_world_still_works(*others):
    """Arrays made before the donation still read, and fresh computations (which reuse cached
    scalar buffers) still run."""
    for arr, expected in others:
        np.testing.assert_array_equal(np.asarray(arr), expected)
    np.testing.assert_array_equal(np.asarray(jnp.zeros(3) + 1.0), np.ones(3, np.float32))
    np.testing.assert_array_equal(np.asarray(jnp.zeros(()) * 2.0 + jnp.ones(())), np.float32(1))
    np.testing.assert_array_equal(np.asarray(jax.jit(lambda v: v + 0.0)(jnp.zeros(2))), [0, 0])
    assert float(jax.grad(lambda v: v * 3.0)(0.0)) == 3.0


def assert_deleted(x):
    assert x.is_deleted()
    with pytest.raises(RuntimeError, match="Array has been deleted with shape=float32"):
        np.asarray(x)


def materialize(x):
    """Make sure `x` has its device buffer (as after any use in a computation)."""
    jax.jit(lambda v: v)(x).block_until_ready()
    return x


@pytest.mark.parametrize("make, value", [
    (lambda: jnp.zeros(()), 0.0),
    (lambda: jnp.zeros(3), np.zeros(3)),
    (lambda: jnp.asarray(np.arange(3.0)), np.arange(3.0)),
    (lambda: jnp.asarray(np.float32(0.0)), 0.0),
    (lambda: jnp.array(1.0), 1.0),
    (lambda: jnp.ones(()) + 1.0, 2.0),      # the output of an eager op
    (lambda: jnp.arange(4.0) * 1.0, np.arange(4.0)),
    (lambda: jax.grad(lambda v, w: w)(1.0, 2.0), 0.0),  # ad's cached zeros
], ids=["zeros0d", "zeros", "asarray", "asarray0d", "array0d", "eager", "eager1d", "ad-zero"])
def test_donating_deletes_only_the_donated_array(make, value):
    before = jnp.zeros(()) + jnp.asarray(0.0)  # holds the cached 0.0 buffer
    same_value = materialize(make())
    x = materialize(make())
    out = double(x)
    np.testing.assert_array_equal(np.asarray(out), np.asarray(value, np.float32) * 2)
    assert_deleted(x)
    assert not same_value.is_deleted()
    check_world_still_works((before, 0.0), (same_value, np.asarray(value, np.float32)))


@pytest.mark.parametrize("arg", [2.0, np.float32(3.0), np.ones(3), np.float32(0.0)])
def test_donating_a_host_value_never_touches_the_scalar_cache(arg):
    np.testing.assert_array_equal(np.asarray(double(arg)), np.asarray(arg, np.float32) * 2)
    np.testing.assert_array_equal(np.asarray(double(arg)), np.asarray(arg, np.float32) * 2)
    check_world_still_works()


def test_donating_a_constant_captured_by_another_jitted_function():
    c = jnp.arange(3.0) * 1.0
    f = jax.jit(lambda v: v + c)
    np.testing.assert_array_equal(np.asarray(f(1.0)), [1, 2, 3])
    double(c)
    assert_deleted(c)
    # as in JAX: the compiled f keeps working; tracing f again reads the deleted c
    np.testing.assert_array_equal(np.asarray(f(1.0)), [1, 2, 3])
    with pytest.raises(RuntimeError, match="deleted"):
        f(jnp.ones(3))
    check_world_still_works()


def test_donating_an_array_that_device_put_copied_keeps_the_original():
    x = jnp.arange(3.0) + 0
    y = jax.device_put(x, may_alias=False)
    assert y is not x
    double(y)
    assert_deleted(y)
    np.testing.assert_array_equal(np.asarray(x), [0, 1, 2])


def test_donating_twice_raises_a_clear_error():
    x = jnp.ones(3) + 0
    double(x)
    # the same signature again is answered by C++ dispatch, which reports XLA's error (as JAX)
    with pytest.raises(ValueError, match="deleted or donated"):
        double(x)
    y = jnp.ones(3) + 0
    jax.jit(lambda a: a * 3, donate_argnums=0)(y)
    with pytest.raises(RuntimeError, match=r"Array has been deleted with shape=float32\[3\]"):
        jax.jit(lambda a: a * 4, donate_argnums=0)(y)  # a first call: pyjax's own message
    with pytest.raises(RuntimeError, match=r"Array has been deleted with shape=float32\[3\]"):
        jax.jit(lambda a: a + 1)(x)  # a jitted function that does not donate
    with pytest.raises(RuntimeError, match=r"Array has been deleted with shape=float32\[3\]"):
        x + 1  # an eager op
    check_world_still_works()


def test_donating_one_buffer_twice_in_one_call_raises():
    both = jax.jit(lambda a, b: a + b, donate_argnums=(0, 1))
    y = jnp.ones(3) + 0
    with pytest.raises(RuntimeError, match="donated"):  # XLA's error, as in JAX
        both(y, y)
    check_world_still_works()


def test_a_donated_buffer_no_output_can_reuse_stays_alive():
    x = jnp.arange(3.0) + 0
    # (JAX's warning, at compile time: api_test test_jit_donate_warning_raised)
    with pytest.warns(UserWarning, match=r"Some donated buffers were not usable: float32\[3\]"):
        out = jax.jit(lambda a: a.sum(), donate_argnums=0)(x)  # a scalar can't reuse f32[3]
    assert float(out) == 3.0
    assert not x.is_deleted()
    np.testing.assert_array_equal(np.asarray(x), [0, 1, 2])


def test_delete_of_an_array_holding_a_cached_scalar_buffer():
    a = materialize(jnp.zeros(()))
    b = materialize(jnp.zeros(()))
    a.delete()
    assert a.is_deleted() and not b.is_deleted()
    with pytest.raises(RuntimeError, match="deleted"):
        np.asarray(a)
    check_world_still_works((b, 0.0))


def test_delete_of_a_host_only_array():
    a = jnp.asarray(np.arange(3.0))
    a.delete()
    assert a.is_deleted()
    with pytest.raises(RuntimeError, match="deleted"):
        a + 1


def test_backend_copy_is_a_new_buffer():
    x = materialize(jnp.arange(3.0) + 0)
    c = xla.copy(x)
    x.delete()
    np.testing.assert_array_equal(xla.to_numpy(c), [0, 1, 2])


def test_unusable_donations_warn_once_per_compile():
    """Issue 23 (JAX's api_test test_jit_donate_warning_raised, argnums and argnames): JAX's
    warning lists each donated argument no output can reuse, once per compile."""
    import warnings
    for kw in ({"donate_argnums": (0, 1)}, {"donate_argnames": ("x", "y")}):
        f = jax.jit(lambda x, y: x.sum() + jnp.float32(y.sum()), **kw)
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")
            f(jnp.array([1.0, 2.0], jnp.float32), jnp.array([1, 2], jnp.int32))
            f(jnp.array([1.0, 2.0], jnp.float32), jnp.array([1, 2], jnp.int32))
        msgs = [str(x.message) for x in w if "donated" in str(x.message)]
        assert msgs == ["Some donated buffers were not usable: float32[2], int32[2].\nSee an "
                        "explanation at https://docs.jax.dev/en/latest/faq.html#buffer-donation."]
