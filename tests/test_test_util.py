"""`pyjax.test_util.check_grads`: JAX's tolerance arguments (a number or a {dtype: tolerance}
dict over JAX's per-dtype defaults, scaled by array size), JAX's finite-difference step and
directions, and per-dtype `eps`.

The functions checked have derivatives that are wrong by a known relative amount, so each test
can tell a tolerance that was applied from one that was ignored.
"""
import numpy as np
import pytest

import pyjax
import pyjax.numpy as jnp
from pyjax._src import public_test_util as tu
from pyjax.test_util import check_grads


def sin_with_wrong_derivative(rel_error):
    """sin, whose custom JVP is cos * (1 + rel_error)."""
    @pyjax.custom_jvp
    def f(x):
        return jnp.sin(x)

    @f.defjvp
    def f_jvp(primals, tangents):
        (x,), (t,) = primals, tangents
        return jnp.sin(x), jnp.cos(x) * t * (1 + rel_error)
    return f


X32 = np.float32(0.3)


# The random tangent check_grads draws for one scalar argument is JAX's, RandomState(0).randn()
# = 1.76, so the JVP is about 1.7 and a relative error e is an absolute error of about 1.7 e.

def test_default_tolerance_is_jax_gradient_tolerance_for_float32():
    check_grads(sin_with_wrong_derivative(0.0), (X32,), order=1, modes=["fwd"])
    # 2e-3 rtol + 2e-3 atol for float32 (JAX's default_gradient_tolerance): 5% is too much
    with pytest.raises(AssertionError):
        check_grads(sin_with_wrong_derivative(5e-2), (X32,), order=1, modes=["fwd"])


def test_float16_default_is_looser():
    # float16: 1e-2 by default; a 1% error passes there but fails for float32 (with a step
    # float16 can resolve: JAX's 1e-4 is below its spacing near 0.3)
    f = sin_with_wrong_derivative(1e-2)
    check_grads(f, (np.float16(0.3),), order=1, modes=["fwd"], eps=1e-2)
    with pytest.raises(AssertionError):
        check_grads(f, (X32,), order=1, modes=["fwd"], eps=1e-2)


@pytest.mark.parametrize("key", [np.float32, np.dtype(np.float32), "float32", jnp.float32])
def test_tolerance_dicts_keyed_by_any_dtype_spelling(key):
    f = sin_with_wrong_derivative(5e-2)
    check_grads(f, (X32,), order=1, modes=["fwd", "rev"], atol={key: 5e-2}, rtol={key: 5e-2})


def test_a_dict_for_another_dtype_keeps_the_default():
    f = sin_with_wrong_derivative(5e-2)
    with pytest.raises(AssertionError):
        check_grads(f, (X32,), order=1, modes=["fwd"], atol={np.float16: 1.0}, rtol={np.float16: 1.0})
    check_grads(f, (X32,), order=1, modes=["fwd"], atol=5e-2, rtol=5e-2)  # a number applies to all


def test_eps_scalar_and_dict():
    f = jnp.exp
    check_grads(f, (X32,), order=2, modes=["fwd", "rev"], eps=1e-2)
    check_grads(f, (X32,), order=2, modes=["fwd", "rev"], eps={np.float32: 5e-3})
    # a step far too large makes the finite difference wrong: the eps given is the one used
    with pytest.raises(AssertionError):
        check_grads(f, (X32,), order=1, modes=["fwd"], eps={np.float32: 30.0})
    with pytest.raises(AssertionError):
        check_grads(f, (X32,), order=1, modes=["fwd"], eps=30.0)


def _fails(f, args, **kw):
    try:
        check_grads(f, args, **kw)
    except AssertionError:
        return True
    return False


def test_finite_difference_step_and_direction_are_jax():
    # JAX 0.10.2 (recorded): steps of ±1e-4 along RandomState(0) directions, so a check just
    # below a jump (or a kink) passes or fails as on JAX; a larger step crosses it
    jump = lambda x: jnp.where(x > 0.3005, 2 * x, x)
    scaled = lambda x, y: jnp.where(x > 0.3005, 2 * x, x) * y
    both = dict(order=1, modes=["fwd", "rev"])
    assert _fails(jump, (X32,), **both) is False
    assert _fails(jump, (X32,), eps=1e-3, **both) is True
    assert _fails(scaled, (X32, np.ones(3, np.float32)), order=2, modes=["fwd", "rev"]) is False
    assert _fails(jnp.abs, (np.float32(1e-4),), **both) is True
    assert _fails(jnp.abs, (np.float32(2e-4),), **both) is False
    assert tu.EPS == 1e-4
    np.testing.assert_allclose(tu._rand_like(np.random.RandomState(0), np.zeros(2, np.float32)),
                               [1.7640524, 0.4001572], rtol=1e-6)


def test_tolerance_lookup_as_jax():
    assert tu.tolerance(np.float32, None) == 1e-6        # JAX's default_tolerance
    assert tu.tolerance(np.int32, None) == 0
    assert tu.tolerance(np.float32, 0.5) == 0.5
    assert tu.tolerance(np.float32, {np.float32: 1e-2}) == 1e-2
    assert tu.tolerance(np.float16, {np.float32: 1e-2}) == 1e-3   # falls back to the default
    # without x64, a float64 dtype looks up float32's entry (canonicalized, as JAX)
    if not pyjax.config.jax_enable_x64:
        assert tu.tolerance(np.float64, {np.float32: 0.25}) == 0.25


def test_array_tolerance_scales_with_size_as_jax():
    # JAX multiplies the tolerances by the array's size: a 1.5e-2 error passes for 10 float32
    # elements (2e-3 * 10) but not for one
    tol = tu.default_gradient_tolerance
    zeros = np.zeros(10, np.float32)
    tu._assert_close(zeros, zeros + 1.5e-2, tol, tol, "")
    with pytest.raises(AssertionError):
        tu._assert_close(zeros[:1], zeros[:1] + 1.5e-2, tol, tol, "")
    # the larger tolerance of the two dtypes applies (float16: 1e-2)
    tu._assert_close(zeros[:1].astype(np.float16), zeros[:1] + 5e-3, tol, tol, "")


def test_check_grads_takes_a_jnp_eps_under_strict_promotion():
    # JAX's eigh_test passes eps = 2e-5 * jnp.linalg.norm(a) (a float32 Array) for complex
    # inputs under jax_numpy_dtype_promotion='strict': the steps are host arithmetic, as JAX's
    x = jnp.array([1.0 + 2.0j, -0.5j], jnp.complex64)
    with pyjax.numpy_dtype_promotion("strict"):
        check_grads(lambda z: jnp.sum(jnp.abs(z) ** 2), (x,), 1, modes=["fwd"],
                    eps=1e-3 * jnp.linalg.norm(x), atol=1e-2, rtol=1e-2)
