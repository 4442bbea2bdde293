"""jnp.ufunc objects as JAX 0.10.2 exposes them: which jax.numpy names are ufuncs, their
attributes and repr, and their methods (reduce, accumulate, outer, at, reduceat), frompyfunc and
the constructor. The oracle is tests/data/ufuncs.json (recorded from JAX by
tests/data/record_ufuncs.py), plus NumPy's own ufunc methods."""
import json
import pathlib
import warnings

import numpy as np
import pytest

import pyjax
import pyjax.numpy as jnp

DATA = json.loads((pathlib.Path(__file__).parent / "data" / "ufuncs.json").read_text())


def _env():
    f2 = jnp.frompyfunc(lambda a, b: a * b + 1, 2, 1)
    return dict(
        jax=pyjax, jnp=jnp, np=np, x=jnp.arange(6.0).reshape(2, 3) - 2.0,
        y=jnp.array([[0.5, -1.0, 2.0], [3.0, 0.0, -2.5]]), i=jnp.arange(6).reshape(2, 3) + 1,
        b=jnp.array([[True, False, True], [False, True, True]]),
        bb=jnp.array([[True, False, True], [True, True, False]]), v=jnp.array([1.0, -2.0, 3.0]),
        v4=jnp.array([1.0, 2.0, 3.0, 4.0]), s=jnp.asarray(3.0), f2=f2,
        f2i=jnp.frompyfunc(lambda a, b: a * b + 1, 2, 1, identity=0.0),
        f1=jnp.frompyfunc(lambda a: a * 2 - 1, 1, 1),
        fdm=jnp.frompyfunc(lambda a, b: (a // b, a % b), 2, 2),
        myadd=jnp.ufunc(lambda a, b: a + b, 2, 1, name="myadd", identity=0))


def _check(got, expected):
    if "tuple" in expected:
        assert isinstance(got, (tuple, list)) and len(got) == len(expected["tuple"])
        for g, e in zip(got, expected["tuple"]):
            _check(g, e)
    elif "float" in expected:
        assert type(got) is float and got == float(expected["float"])
    elif "python" in expected:
        want = expected["python"]
        assert type(got) is type(want) and got == want
    else:
        a = np.asarray(got)
        assert (a.dtype.name, list(a.shape), bool(got.weak_type)) == (
            expected["dtype"], expected["shape"], expected["weak_type"])
        np.testing.assert_allclose(a, np.asarray(expected["value"], a.dtype).reshape(a.shape), rtol=2e-6)


@pytest.mark.parametrize("expr", list(DATA["cases"]))
def test_recorded_jax_case(expr):
    expected = DATA["cases"][expr]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", FutureWarning)  # unsafe casts in .at, as JAX warns
        if "error" in expected:
            with pytest.raises(Exception) as info:
                eval(expr, _env())
            assert expected["error"] in [c.__name__ for c in type(info.value).__mro__], info.value
        else:
            _check(eval(expr, _env()), expected["result"])


def test_the_same_names_are_ufuncs_as_in_jax():
    ours = {n for n in dir(jnp) if isinstance(getattr(jnp, n), jnp.ufunc)}
    assert ours == set(DATA["ufuncs"])
    for name, attrs in DATA["ufuncs"].items():
        u = getattr(jnp, name)
        assert repr(u) == attrs["repr"]
        for attr in ("__name__", "nin", "nout", "nargs", "identity"):
            _check(getattr(u, attr), attrs[attr])


def test_attributes_are_read_only():
    with pytest.raises(AttributeError):
        jnp.add.nin = 3
    with pytest.raises(AttributeError):
        jnp.add.identity = 1


@pytest.mark.parametrize("name", ["add", "multiply", "subtract", "maximum", "minimum",
                                  "logaddexp", "bitwise_or", "logical_and"])
def test_methods_match_numpy(name):
    rng = np.random.default_rng(0)
    if name.startswith("bitwise"):
        a, c = rng.integers(0, 8, (3, 4)).astype(np.int32), rng.integers(0, 8, 5).astype(np.int32)
    elif name.startswith("logical"):
        a, c = rng.random((3, 4)) < 0.7, rng.random(5) < 0.7
    else:
        a, c = rng.normal(size=(3, 4)).astype(np.float32), rng.normal(size=5).astype(np.float32)
    u, nu = getattr(jnp, name), getattr(np, name)
    for axis in (0, 1) if name == "subtract" else (0, 1, None):  # (NumPy: not reorderable)
        np.testing.assert_allclose(np.asarray(u.reduce(a, axis=axis)), nu.reduce(a, axis=axis), rtol=1e-5)
    np.testing.assert_allclose(np.asarray(u.accumulate(a, axis=1)), nu.accumulate(a, axis=1), rtol=1e-5)
    np.testing.assert_allclose(np.asarray(u.outer(a, c)), nu.outer(a, c), rtol=1e-5)
    idx = np.array([0, 2, 0, 3])
    np.testing.assert_allclose(np.asarray(u.reduceat(c, idx)), nu.reduceat(c, idx), rtol=1e-5)
    expected = c.copy()
    nu.at(expected, np.array([1, 1, 4]), c[:3])
    np.testing.assert_allclose(np.asarray(u.at(c, np.array([1, 1, 4]), c[:3], inplace=False)), expected,
                               rtol=1e-5)


def test_calls_dispatch_to_the_plain_functions():
    from pyjax._src.numpy import ufuncs
    # the C++-dispatched versions of the plain functions (as JAX's jit(inline=True) ones)
    assert jnp.add._call.__wrapped__ is ufuncs.add and jnp.negative._call.__wrapped__ is ufuncs.negative
    x = jnp.arange(3.0)
    assert (x + x).tolist() == jnp.add(x, x).tolist() == [0.0, 2.0, 4.0]
    assert pyjax.jit(jnp.multiply)(x, x).tolist() == [0.0, 1.0, 4.0]


def test_methods_run_jitted_and_compile_once_per_signature():
    # as JAX's (jit with self, axis, dtype... static): the jaxpr holds `jit[name=reduce]`, and a
    # second eager call compiles nothing (the loop of a frompyfunc ufunc used to be recompiled
    # on every call). Values recorded from JAX 0.10.2.
    from pyjax._src.backend import xla
    u = jnp.frompyfunc(lambda a, b: a * b + 1, 2, 1, identity=0)
    x = jnp.arange(6.0).reshape(2, 3)
    assert "name=reduce" in str(pyjax.make_jaxpr(lambda x: u.reduce(x, axis=1))(x))
    calls = [lambda: u.reduce(x, axis=1), lambda: u.accumulate(x, axis=1),
             lambda: u.reduceat(x[0], jnp.array([0, 2]), axis=0),
             lambda: u.at(x[0], jnp.array([0, 0]), 2.0, inplace=False)]
    first = [np.asarray(f()) for f in calls]
    before = xla.cache_stats()["compiles"]
    again = [np.asarray(f()) for f in calls]
    assert xla.cache_stats()["compiles"] == before
    want = [[5.0, 26.0], [[0.0, 1.0, 3.0], [3.0, 13.0, 66.0]], [1.0, 2.0], [3.0, 1.0, 2.0]]
    for a, b, w in zip(first, again, want):
        np.testing.assert_array_equal(a, w)
        np.testing.assert_array_equal(b, w)
