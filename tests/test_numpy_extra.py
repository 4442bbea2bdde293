"""The rest of jax.numpy (issue 12 part 4) against JAX 0.10.2's recorded results
(`data/record_numpy_extra.py` → `data/numpy_extra.json`: values, dtypes, weak types and errors,
under jit/grad/vmap), plus NumPy oracles and check_grads for what the op table cannot say
(concrete-only inputs, fits on jnp.linalg, host I/O). The NumPy comparisons over dtypes are
`op_table.JNP_EXTRA` rows, run by tests/test_numpy_ops.py."""
import json
import os
import pathlib
import subprocess
import sys

import ml_dtypes
import numpy as np
import pytest

import pyjax
import pyjax.numpy as jnp
from pyjax import lax
from pyjax.test_util import check_grads

from recorded_cases import assert_matches, evaluate

RECORDED = json.loads((pathlib.Path(__file__).parent / "data" / "numpy_extra.json").read_text())

# Where pyjax deliberately differs from JAX (each an `# NB:` in the code), with the test below
# that shows what pyjax does instead.
KNOWN_DIFFERENCES = {}


@pytest.fixture(scope="module")
def ns():
    ns = {"jax": pyjax, "jnp": jnp, "np": np, "lax": lax}
    exec(RECORDED["prelude"], ns)
    return ns


@pytest.mark.parametrize("expr", [e for e in RECORDED["cases"] if e not in KNOWN_DIFFERENCES])
def test_matches_jax(ns, expr):
    assert_matches(evaluate(expr, ns), RECORDED["cases"][expr], rtol=2e-5, atol=2e-6, err_msg=expr)


# -- NumPy oracles -------------------------------------------------------------------------------


def test_roots_and_poly_round_trip():
    rs = np.random.RandomState(0)
    p = rs.randn(6)
    r = np.asarray(jnp.roots(p.astype(np.float32)))
    np.testing.assert_allclose(np.sort_complex(r), np.sort_complex(np.roots(p)), rtol=1e-3, atol=1e-3)
    np.testing.assert_allclose(jnp.poly(r), np.poly(np.roots(p)), rtol=1e-3, atol=1e-3)


def test_polydiv_and_polyfit_match_numpy():
    rs = np.random.RandomState(1)
    u, v = rs.randn(6), rs.randn(3)
    q, r = jnp.polydiv(u.astype(np.float32), v.astype(np.float32))
    nq, nr = np.polydiv(u, v)
    np.testing.assert_allclose(q, nq, rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(np.asarray(r)[-len(nr):], nr, rtol=1e-4, atol=1e-4)  # JAX keeps u's length
    x = np.linspace(-1, 1, 12)
    y = np.stack([3 * x ** 3 - x + 0.1 * np.cos(9 * x), np.sin(2 * x)], 1)
    np.testing.assert_allclose(jnp.polyfit(x.astype(np.float32), y.astype(np.float32), 3), np.polyfit(x, y, 3),
                               rtol=1e-3, atol=1e-3)


@pytest.mark.parametrize("dtype", [np.float32, np.float16, ml_dtypes.bfloat16])
def test_frexp_is_exact_including_subnormals(dtype):
    tiny = float(ml_dtypes.finfo(dtype).smallest_subnormal)
    x = np.array([8.0, -0.75, 0.0, -0.0, np.inf, -np.inf, np.nan, 3.0, 1e-3, -7e3, tiny, 3 * tiny, -5 * tiny], dtype)
    m, e = jnp.frexp(x)
    nm, ne = np.frexp(x.astype(np.float64))
    np.testing.assert_array_equal(np.asarray(m, np.float64), nm)
    np.testing.assert_array_equal(e, ne)
    assert (m.dtype, e.dtype) == (np.dtype(dtype), np.dtype(np.int32))


def test_trim_zeros_needs_a_concrete_array():
    with pytest.raises(pyjax.errors.ConcretizationTypeError):
        pyjax.jit(jnp.trim_zeros)(jnp.array([0, 1, 0]))


def test_load_restores_bfloat16(tmp_path):
    x = np.arange(4, dtype=np.float32).astype(ml_dtypes.bfloat16)
    jnp.save(tmp_path / "x.npy", x)
    out = jnp.load(tmp_path / "x.npy")
    assert isinstance(out, pyjax.Array) and out.dtype == jnp.bfloat16
    np.testing.assert_array_equal(np.asarray(out, np.float32), x.astype(np.float32))


def test_printoptions_apply_to_arrays():
    with jnp.printoptions(precision=2):
        assert "3.14" in str(jnp.array([3.14159])) and "3.1416" not in str(jnp.array([3.14159]))


# -- derivatives ---------------------------------------------------------------------------------

_X = np.array([-1.2, -0.3, 0.4, 1.1, 2.3], np.float32)
_XP = np.array([-2.0, -0.5, 0.5, 1.0, 3.0], np.float32)
_FP = np.array([1.0, -1.0, 2.0, 0.5, 1.5], np.float32)


@pytest.mark.parametrize("fn,args", [
    (jnp.i0, (_X,)),
    (lambda x: jnp.interp(x, _XP, _FP), (_X,)),
    (lambda fp: jnp.interp(_X, _XP, fp), (_FP,)),
    (lambda y, x: jnp.trapezoid(y, x), (_FP, _XP)),
    (lambda p, x: jnp.polyval(p, x), (_FP, _X)),
    (lambda p: jnp.polyint(p, 2, 1.0), (_FP,)),
    (lambda f: jnp.gradient(f, _XP, edge_order=2), (_FP,)),
    (lambda a, b: jnp.cross(a.reshape(-1, 3)[:1], b[:3]), (np.concatenate([_X, _FP[:1]]), _FP)),
    (lambda x: jnp.kron(x[:2], x), (_X,)),
    (lambda x: jnp.piecewise(x, [x < 0], [lambda v: v ** 2, lambda v: jnp.sin(v)]), (_X,)),
    (lambda x: jnp.vectorize(jnp.dot, signature="(n),(n)->()")(x.reshape(1, 5), x), (_X,)),
    (lambda x: jnp.roll(x, 2) * x, (_X,)),
    (lambda x: jnp.unwrap(x * 3), (_X,)),
], ids=["i0", "interp x", "interp fp", "trapezoid", "polyval", "polyint", "gradient", "cross", "kron",
        "piecewise", "vectorize", "roll", "unwrap"])
def test_grads(fn, args):
    check_grads(fn, args, order=2, modes=("fwd", "rev"), atol=2e-2, rtol=2e-2)


def test_vmap_of_row_functions_matches_a_loop():
    xs = np.random.RandomState(2).randn(3, 6).astype(np.float32)
    for fn in (jnp.diff, lambda v: jnp.gradient(v), lambda v: jnp.interp(v, _XP, _FP), jnp.unwrap,
               lambda v: jnp.polyval(v[:3], v), lambda v: jnp.roll(v, 2)):
        np.testing.assert_allclose(pyjax.vmap(fn)(xs), np.stack([fn(x) for x in xs]), rtol=1e-5, atol=1e-6)


def test_like_functions_take_shape_dtype_structs():
    # JAX 0.10.2 duck-types `a` (anything with .shape and .dtype): optax builds its states so
    s = pyjax.ShapeDtypeStruct((2, 3), np.float32)
    for f, v in ((jnp.zeros_like, 0), (jnp.ones_like, 1), (jnp.empty_like, 0)):
        out = f(s)
        assert out.shape == (2, 3) and out.dtype == np.float32 and not out.weak_type
        if f is not jnp.empty_like:
            np.testing.assert_array_equal(out, np.full((2, 3), v, np.float32))
    np.testing.assert_array_equal(jnp.full_like(s, 7), np.full((2, 3), 7, np.float32))
    assert jnp.zeros_like(s, dtype=np.int32).dtype == np.int32
    assert jnp.zeros_like(s, shape=(4,)).shape == (4,)
    np.testing.assert_array_equal(pyjax.jit(lambda x: jnp.full_like(s, x))(3.0), np.full((2, 3), 3.0))

    class Duck:
        shape, dtype = (2,), np.dtype(np.int8)

    assert jnp.zeros_like(Duck()).dtype == np.int8
    with pytest.raises(TypeError, match="zeros_like requires ndarray or scalar arguments"):
        jnp.zeros_like(object())


def test_array_and_tracer_copy_method():
    # JAX 0.10.2: Array.copy() is jnp.copy (a new array; a `copy` equation when traced)
    a = jnp.arange(3.0)
    b = a.copy()
    assert b is not a and type(b) is type(a)
    np.testing.assert_array_equal(b, [0.0, 1.0, 2.0])
    np.testing.assert_array_equal(pyjax.jit(lambda x: x.copy() * 2)(a), [0.0, 2.0, 4.0])
    np.testing.assert_array_equal(pyjax.grad(lambda x: x.copy().sum())(a), [1.0, 1.0, 1.0])
    np.testing.assert_array_equal(pyjax.vmap(lambda x: x.copy())(a), a)
    assert str(pyjax.make_jaxpr(lambda x: x.copy())(a)) == \
        "{ lambda ; a:f32[3]. let b:f32[3] = copy a in (b,) }"
    assert jnp.asarray(2.0).copy().weak_type


def test_broadcast_to_takes_jax_keyword_names():
    # JAX 0.10.2: broadcast_to(array, shape, *, out_sharding=None); flax calls it by keyword
    out = jnp.broadcast_to(array=jnp.arange(3.0), shape=(2, 3))
    np.testing.assert_array_equal(out, np.broadcast_to(np.arange(3.0), (2, 3)))
    assert jnp.broadcast_to(jnp.ones(3), (2, 3), out_sharding=None).shape == (2, 3)


def test_typed_keys_in_array_equal_and_shape_dtype_structs():
    # JAX 0.10.2: array_equal compares keys (flax's Rngs tests), a ShapeDtypeStruct keeps a key
    # dtype, and a key dtype compares unequal to NumPy dtypes either way
    k0, k1 = pyjax.random.key(0), pyjax.random.key(1)
    assert bool(jnp.array_equal(k0, k0)) and not bool(jnp.array_equal(k0, k1))
    assert not bool(jnp.array_equal(pyjax.random.split(k0, 2), pyjax.random.split(k0, 3)))
    s = pyjax.ShapeDtypeStruct((), k0.dtype)
    assert s.dtype == k0.dtype and repr(s) == "ShapeDtypeStruct(shape=(), dtype=key<fry>)"
    assert s == pyjax.ShapeDtypeStruct((), pyjax.random.key(3).dtype)
    assert not (k0.dtype == np.float32) and not (np.dtype(np.float32) == k0.dtype)


@pytest.mark.parametrize("lo, hi", [(1, 1), (2, 1), (0, 5), (5, 0), (7, 9), (13, 0), (6, 6)])
def test_pad_wrap_any_widths(lo, hi):
    # flax's padding="CIRCULAR" pads the spatial axis of (batch, length, features) this way
    x = np.arange(2 * 6 * 3, dtype=np.float32).reshape(2, 6, 3)
    pads = ((0, 0), (lo, hi), (0, 0))
    np.testing.assert_array_equal(jnp.pad(x, pads, mode="wrap"), np.pad(x, pads, mode="wrap"))
    np.testing.assert_array_equal(pyjax.jit(lambda v: jnp.pad(v, pads, mode="wrap"))(x),
                                  np.pad(x, pads, mode="wrap"))


_PLACEMENT_SCRIPT = """
import numpy as np, pyjax, pyjax.numpy as jnp
d = pyjax.devices()[-1]
sharding = pyjax.sharding.SingleDeviceSharding(d)
made = [jnp.arange(5, device=d), jnp.eye(2, 3, device=d), jnp.linspace(0, 1, 3, retstep=True, device=d)[0],
        jnp.array([1, 2], device=d), jnp.asarray(np.ones(2), device=d), jnp.zeros(3, device=sharding),
        jnp.full_like(np.ones(2), 3, device=d), jnp.astype(jnp.ones(2), "int32", device=d),
        jnp.fft.fftfreq(9, device=d), jnp.fft.rfftfreq(9, device=d)]
assert [out.devices() for out in made] == [{d}] * len(made), [out.devices() for out in made]
assert pyjax.jit(lambda x: jnp.zeros(2, device=d) + x)(1.0).tolist() == [1.0, 1.0]
print("ok", d.id)
"""


def test_creation_functions_place_results_on_device():
    """Issue 23: `device=` (a device or a single-device sharding) places the result of the
    creation functions, astype and fft.fftfreq on it, as JAX's (on 8 CPU devices, the last one);
    under jit the traced value is returned as is."""
    env = dict(os.environ, XLA_FLAGS="--xla_force_host_platform_device_count=8", JAX_PLATFORMS="cpu")
    res = subprocess.run([sys.executable, "-c", _PLACEMENT_SCRIPT], capture_output=True, text=True,
                         env=env, timeout=300)
    assert res.returncode == 0, res.stderr[-3000:]
    assert res.stdout.split() == ["ok", "7"]


def test_reshape_of_a_numpy_array_is_numpys_as_in_jax():
    # JAX 0.10.2 forwards jnp.reshape to the value's own method: a NumPy array stays a NumPy
    # array, eagerly and under jit (numpyro's support checks on NumPy values stay concrete)
    x = np.ones((2, 2), bool)
    seen = []

    def f():
        seen.append(jnp.reshape(x, (4,)))
        seen.append(jnp.reshape(x, (2, -1), order="F"))
        return 0
    pyjax.jit(f)()
    f()
    assert all(type(v) is np.ndarray for v in seen) and seen[0].shape == (4,)
    assert type(jnp.reshape(jnp.ones((2, 2)), (4,))) is not np.ndarray
    with pytest.raises(TypeError):
        jnp.reshape([1, 2], (2,))


def test_reshape_method_takes_any_iterable_as_the_shape():
    # as JAX 0.10.2: x.reshape(s) with one iterable argument (a range, a NumPy array, an object
    # with __getitem__ such as jtu's scalar-shape markers) takes it as the shape
    class NoDims:
        def __len__(self):
            return 0

        def __getitem__(self, i):
            raise IndexError(i)
    x = jnp.arange(6)
    assert x.reshape(range(2, 4)).shape == (2, 3) and x.reshape(np.array([3, 2])).shape == (3, 2)
    assert x[:1].reshape(NoDims()).shape == () and x.reshape(jnp.int32(6)).shape == (6,)


def test_einsum_broadcasts_axes_of_size_one():
    # as JAX 0.10.2 (and NumPy): a batch or contracted letter of size 1 on one operand broadcasts
    # against the other's size (dot_general refused the mismatch)
    rng = np.random.default_rng(0)
    x, y, z = (rng.normal(size=s).astype(np.float32) for s in [(1, 4, 5), (3, 5, 6), (3, 1, 6)])
    for a, b in [(x, y), (x, z)]:
        np.testing.assert_allclose(jnp.einsum("cij,cjk->cik", a, b), np.einsum("cij,cjk->cik", a, b),
                                   rtol=1e-5, atol=1e-5)


def test_vectorize_output_errors_and_rank_promotion_as_jax():
    # JAX 0.10.2's classes and words (its tests match them)
    f = jnp.vectorize(jnp.dot, signature="(n,m),(m,k)->(n,k),()")
    with pytest.raises(TypeError, match="output must be a tuple"):
        f(jnp.zeros((2, 2)), jnp.zeros((2, 2)))
    with pytest.raises(TypeError, match="wrong number of output arguments: expected 3, got 2"):
        jnp.vectorize(lambda *args: args, signature="(),()->(),(),()")(1, 2)
    add = jnp.vectorize(jnp.add, signature="(),()->()")
    with pyjax.numpy_rank_promotion("raise"):
        with pytest.raises(ValueError, match=r"operands with shapes .* require rank promotion"):
            add(jnp.zeros((2, 2)), jnp.zeros(2))
        assert add(jnp.zeros((2, 2)), jnp.zeros(())).shape == (2, 2)  # a 0-d operand is no promotion
    with pyjax.numpy_rank_promotion("warn"):
        with pytest.warns(UserWarning, match="require rank promotion"):
            add(jnp.zeros((2, 2)), jnp.zeros(2))


def test_einsum_keeps_mixed_operand_dtypes_as_jax():
    # JAX 0.10.2 gives dot_general the operands as they are, with the result dtype as its
    # preferred_element_type (no convert first); a sum converts a narrower operand first.
    # Dtypes and jaxprs recorded from JAX 0.10.2.
    jaxpr = pyjax.make_jaxpr(lambda x, y: jnp.einsum("a,a->a", x, y))(jnp.ones(3, jnp.int8), jnp.ones(3, jnp.float32))
    assert [str(e.primitive) for e in jaxpr.eqns] == ["dot_general"]
    assert jaxpr.eqns[0].params["preferred_element_type"] == np.float32
    jaxpr = pyjax.make_jaxpr(lambda m, v: jnp.einsum("ij,j->j", m, v))(jnp.ones((2, 3), jnp.int8), jnp.ones(3, jnp.int32))
    assert [str(e.primitive) for e in jaxpr.eqns] == ["convert_element_type", "reduce_sum", "dot_general"]
    got = jnp.einsum("ij,j->i", jnp.full((2, 3), 100, jnp.int8), jnp.arange(3, dtype=jnp.bfloat16))
    assert got.dtype == jnp.bfloat16 and got.tolist() == [300.0, 300.0]


def test_bool_scalar_type_is_named_bool_as_jax():
    # JAX 0.10.2: jnp.bool_ is jnp.bool, named "bool" (test ids built from __name__ depend on it)
    assert jnp.bool_.__name__ == "bool" and repr(jnp.bool_) == "<class 'jax.numpy.bool'>"
    assert jnp.bool is jnp.bool_ and jnp.float32.__name__ == "float32"


def test_array_api_inspection_and_complex_clip_as_jax():
    # JAX 0.10.2's array API metadata (its array_api_test), and clip's ValueError for complex
    info = jnp.__array_namespace_info__()
    assert jnp.__array_api_version__ == "2024.12" and jnp.arange(3).__array_namespace__() is jnp
    assert info.capabilities()["max dimensions"] == 64 and info.default_device() is None
    assert None in info.devices() and set(pyjax.devices()) <= set(info.devices())
    assert info.default_dtypes()["indexing"] == np.int32
    assert info.dtypes(kind=("integral", "bool")) == {n: np.dtype(n) for n in
                                                      ["int8", "int16", "int32", "uint8", "uint16", "uint32", "bool"]}
    with pytest.raises(ValueError, match="Complex values have no ordering and cannot be clipped"):
        jnp.clip(jnp.arange(5), max=-1 + 5j)


def test_axis_arguments_take_a_range_as_jax():
    # JAX 0.10.2: any sequence of ints is an axis argument (JAX's qdwh_test: expand_dims(x, range(n)))
    assert jnp.expand_dims(jnp.ones(3), range(2)).shape == (1, 1, 3)
    assert jnp.squeeze(jnp.ones((1, 1, 3)), range(2)).shape == (3,)
