"""pyjax.random against JAX 0.10.2: the recorded results of `random_cases.py`, plus keys under
jit, vmap, scan and grad checked against loops and finite differences, and the NumPy reference
of the threefry2x32 primitive.

What is compared bit for bit, and why: keys, raw bits, integers and bools exactly (threefry and
the integer samplers are integer arithmetic, the same on every machine); exception classes
exactly. Floats within 4 ulps of their own dtype: the samplers turn bits into floats through
log, exp, erf_inv, lgamma and friends, whose last bits XLA's CPU code generator computes
differently on different CPU models (JAX 0.10.2 itself gives `grad beta` 3 ulps apart on two
machines). A wrong algorithm is off by far more than that."""
import doctest
import json
import pathlib
import warnings

import numpy as np
import pytest
from scipy import special, stats

import pyjax
import pyjax.numpy as jnp
from pyjax import lax, random
from pyjax._src import tree_util as tree_util_src
from pyjax._src.random import keys, prng
from random_cases import CASES, PRELUDE, evaluate

DATA = json.loads((pathlib.Path(__file__).parent / "data" / "random.json").read_text())
RECORDED = DATA["cases"]

NS = {"jax": pyjax, "jnp": jnp, "np": np, "random": random}
exec(PRELUDE, NS)


def _bits_to_values(rec):
    dt = np.dtype(rec["dtype"])
    if dt.kind in "fc":
        width = dt.itemsize // (2 if dt.kind == "c" else 1)
        return np.array(rec["bits"], f"u{width}").view(dt.str if dt.kind == "f" else f"f{width}")
    return np.array(rec["bits"])


def _assert_same(got, want, where):
    assert got.keys() == want.keys(), f"{where}: {got} vs {want}"
    if "error" in want or "py" in want:
        assert got == want, where
    elif "seq" in want:
        assert len(got["seq"]) == len(want["seq"]), where
        for i, (g, w) in enumerate(zip(got["seq"], want["seq"])):
            _assert_same(g, w, f"{where}[{i}]")
    elif "key" in want:
        assert got["key"] == want["key"], where
        _assert_same(got["data"], want["data"], where)
    else:
        assert (got["dtype"], got["shape"]) == (want["dtype"], want["shape"]), where
        if np.dtype(want["dtype"]).kind in "fc":
            # a few ulps: transcendental functions' last bits depend on the CPU model (docstring)
            np.testing.assert_array_max_ulp(_bits_to_values(got), _bits_to_values(want), maxulp=4)
        else:
            assert got["bits"] == want["bits"], where


@pytest.mark.parametrize("name,expr,x64", CASES, ids=[c[0] for c in CASES])
def test_matches_jax(name, expr, x64):
    with pyjax.enable_x64(x64), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        got = evaluate(expr, NS, random)
    _assert_same(got, RECORDED[name], name)


def test_every_public_name_of_jax_random():
    assert not [n for n in DATA["public_names"] if not hasattr(random, n)]


def test_every_case_is_recorded():
    assert {c[0] for c in CASES} == set(RECORDED)


def test_docstring_examples():
    from pyjax._src.lax import random_bits
    from pyjax._src.random import gamma, keys, samplers
    for mod in (prng, keys, samplers, gamma, random_bits):
        failures, tried = doctest.testmod(mod)
        assert tried and not failures, mod.__name__


# -- the primitive ----------------------------------------------------------------------------


@pytest.mark.parametrize("shape", [(3, 5), (256, 257)])  # rolled and unrolled CPU lowerings
def test_threefry2x32_matches_its_numpy_reference(shape):
    rng = np.random.default_rng(0)
    k1, k2 = rng.integers(0, 2**32, (2,), dtype=np.uint32)
    x1, x2 = rng.integers(0, 2**32, (2, *shape), dtype=np.uint32)
    want = prng._np_threefry2x32(k1, k2, x1, x2)
    for got in (prng.threefry2x32(k1, k2, x1, x2), pyjax.jit(prng.threefry2x32)(k1, k2, x1, x2)):
        np.testing.assert_array_equal(np.asarray(got[0]), want[0])
        np.testing.assert_array_equal(np.asarray(got[1]), want[1])


def test_threefry2x32_known_answer():
    """Random123's known-answer test for threefry2x32 with 20 rounds (kat_vectors)."""
    got = prng._np_threefry2x32(np.uint32(0x13198a2e), np.uint32(0x03707344),
                                np.uint32(0x243f6a88), np.uint32(0x85a308d3))
    assert [int(w) for w in got] == [0xc4923a9c, 0x483df7a0]


def test_threefry2x32_batches_and_has_no_derivative():
    k = np.uint32(7)
    xs = np.arange(12, dtype=np.uint32).reshape(4, 3)
    out = pyjax.vmap(lambda x: prng.threefry2x32(k, k, x, x)[0])(xs)
    np.testing.assert_array_equal(np.asarray(out), prng._np_threefry2x32(k, k, xs, xs)[0])
    with pytest.raises(TypeError, match="uint32"):
        prng.threefry2x32(np.float32(1), k, k, k)


def test_rng_bit_generator_refuses_a_bad_key():
    """NB: JAX fails in its lowering (AssertionError); pyjax's abstract eval names the key."""
    with pytest.raises(TypeError, match="uint32\\[4\\]"):
        lax.rng_bit_generator(jnp.zeros(3, jnp.uint32), (2,))


# -- keys under transformations ---------------------------------------------------------------


def test_vmap_over_split_keys_is_the_loop():
    keys = random.split(random.key(3), 5)
    f = lambda k: random.normal(k, (4,))
    batched = np.asarray(pyjax.vmap(f)(keys))
    looped = np.stack([np.asarray(f(k)) for k in keys])
    np.testing.assert_array_equal(batched, looped)
    raw = random.split(random.PRNGKey(3), 5)
    np.testing.assert_array_equal(np.asarray(pyjax.vmap(f)(raw)), looped)


def test_keys_are_jit_arguments_and_results():
    key = random.key(11)
    split = pyjax.jit(lambda k: random.split(k, 3))
    out = split(key)
    assert isinstance(out, random.PRNGKeyArray) and out.shape == (3,)
    np.testing.assert_array_equal(np.asarray(random.key_data(out)),
                                  np.asarray(random.key_data(random.split(key, 3))))
    again = split(random.key(12))  # the C++ fast path: a typed key is a registered pytree
    assert not np.array_equal(np.asarray(random.key_data(again)), np.asarray(random.key_data(out)))


def test_scan_over_keys_is_the_loop():
    keys = random.split(random.key(5), 4)
    _, ys = lax.scan(lambda c, k: (c, random.uniform(k, (2,))), 0.0, keys)
    np.testing.assert_array_equal(np.asarray(ys), np.stack([np.asarray(random.uniform(k, (2,))) for k in keys]))


def test_grad_of_reparameterized_samplers_matches_finite_differences():
    key = random.key(2)
    f = lambda mu, sigma: jnp.sum(jnp.sin(mu + sigma * random.normal(key, (3,))))
    g = pyjax.grad(f, (0, 1))(0.3, 1.7)
    eps = 1e-3
    fd = [(f(0.3 + eps, 1.7) - f(0.3 - eps, 1.7)) / (2 * eps),
          (f(0.3, 1.7 + eps) - f(0.3, 1.7 - eps)) / (2 * eps)]
    np.testing.assert_allclose(np.asarray(g), np.asarray(fd), rtol=2e-3)


def test_grad_of_gamma_is_the_implicit_derivative():
    """d sample / d a = -(dF/da) / (dF/dx) at the sample, F = gammainc (SciPy, dF/da by
    central differences): the sample moves with `a` along its quantile."""
    key = random.key(4)
    a = np.array([0.3, 1.0, 2.5, 12.0], np.float32)
    x, g = pyjax.jvp(lambda a: random.gamma(key, a), (jnp.asarray(a),), (jnp.ones(4),))
    x, a64, eps = np.asarray(x, np.float64), a.astype(np.float64), 1e-6
    dF_da = (special.gammainc(a64 + eps, x) - special.gammainc(a64 - eps, x)) / (2 * eps)
    dF_dx = np.exp((a64 - 1) * np.log(x) - x - special.gammaln(a64))
    np.testing.assert_allclose(np.asarray(g), -dF_da / dF_dx, rtol=1e-4)


# -- the distributions are the ones named (Kolmogorov-Smirnov against SciPy; fixed keys) ------

KS_CASES = [
    ("uniform", lambda k, n: random.uniform(k, (n,), minval=-1.0, maxval=3.0), ("uniform", (-1.0, 4.0))),
    ("normal", lambda k, n: random.normal(k, (n,)), ("norm", ())),
    ("truncated_normal", lambda k, n: random.truncated_normal(k, -0.5, 2.0, (n,)), ("truncnorm", (-0.5, 2.0))),
    ("exponential", lambda k, n: random.exponential(k, (n,)), ("expon", ())),
    ("gamma small a", lambda k, n: random.gamma(k, 0.3, (n,)), ("gamma", (0.3,))),
    ("gamma", lambda k, n: random.gamma(k, 4.5, (n,)), ("gamma", (4.5,))),
    ("loggamma", lambda k, n: jnp.exp(random.loggamma(k, 2.0, (n,))), ("gamma", (2.0,))),
    ("beta", lambda k, n: random.beta(k, 0.7, 2.5, (n,)), ("beta", (0.7, 2.5))),
    ("t", lambda k, n: random.t(k, 3.0, (n,)), ("t", (3.0,))),
    ("chisquare", lambda k, n: random.chisquare(k, 5.0, (n,)), ("chi2", (5.0,))),
    ("f", lambda k, n: random.f(k, 4.0, 9.0, (n,)), ("f", (4.0, 9.0))),
    ("laplace", lambda k, n: random.laplace(k, (n,)), ("laplace", ())),
    ("logistic", lambda k, n: random.logistic(k, (n,)), ("logistic", ())),
    ("cauchy", lambda k, n: random.cauchy(k, (n,)), ("cauchy", ())),
    ("gumbel", lambda k, n: random.gumbel(k, (n,)), ("gumbel_r", ())),
    ("pareto", lambda k, n: random.pareto(k, 2.5, (n,)), ("pareto", (2.5,))),
    ("rayleigh", lambda k, n: random.rayleigh(k, 1.0, (n,)), ("rayleigh", ())),
    ("maxwell", lambda k, n: random.maxwell(k, (n,)), ("maxwell", ())),
    ("weibull_min", lambda k, n: random.weibull_min(k, 1.0, 1.7, (n,)), ("weibull_min", (1.7,))),
    ("wald", lambda k, n: random.wald(k, 1.0, (n,)), ("invgauss", (1.0,))),
    ("lognormal", lambda k, n: random.lognormal(k, 0.6, (n,)), ("lognorm", (0.6,))),
    ("triangular", lambda k, n: random.triangular(k, 0.0, 0.25, 1.0, (n,)), ("triang", (0.25,))),
]


@pytest.mark.parametrize("name,draw,dist", KS_CASES, ids=[c[0] for c in KS_CASES])
def test_samples_follow_their_distribution(name, draw, dist):
    x = np.asarray(draw(random.key(20240), 4000), np.float64)
    assert stats.kstest(x, dist[0], args=dist[1]).pvalue > 1e-3


COUNT_CASES = [
    ("poisson", lambda k, n: random.poisson(k, 4.0, (n,)), stats.poisson(4.0)),
    ("poisson rejection", lambda k, n: random.poisson(k, 40.0, (n,)), stats.poisson(40.0)),
    ("binomial inversion", lambda k, n: random.binomial(k, 12.0, 0.3, (n,)), stats.binom(12, 0.3)),
    ("binomial btrs", lambda k, n: random.binomial(k, 200.0, 0.6, (n,)), stats.binom(200, 0.6)),
    ("geometric", lambda k, n: random.geometric(k, 0.3, (n,)), stats.geom(0.3)),
    ("randint", lambda k, n: random.randint(k, (n,), -3, 4), stats.randint(-3, 4)),
    ("bernoulli", lambda k, n: random.bernoulli(k, 0.3, (n,)), stats.bernoulli(0.3)),
    ("categorical", lambda k, n: random.categorical(k, jnp.log(jnp.array([0.1, 0.2, 0.7])), shape=(n,)),
     stats.rv_discrete(values=(range(3), (0.1, 0.2, 0.7)))),
    ("choice p", lambda k, n: random.choice(k, 4, (n,), p=jnp.array([0.4, 0.0, 0.35, 0.25])),
     stats.rv_discrete(values=(range(4), (0.4, 0.0, 0.35, 0.25)))),
]


@pytest.mark.parametrize("name,draw,dist", COUNT_CASES, ids=[c[0] for c in COUNT_CASES])
def test_counts_follow_their_distribution(name, draw, dist):
    """A chi-square test over the values expected at least 5 times (the rest pooled)."""
    x = np.asarray(draw(random.key(7), 4000), np.int64)
    values = np.arange(x.min(), x.max() + 1)
    expected = dist.pmf(values) * len(x)
    observed = np.array([np.sum(x == v) for v in values])
    keep = expected >= 5
    obs, exp = observed[keep], expected[keep]
    if len(x) - exp.sum() > 1:  # the rest, pooled
        obs, exp = np.append(obs, len(x) - obs.sum()), np.append(exp, len(x) - exp.sum())
    assert stats.chisquare(obs, exp * (obs.sum() / exp.sum())).pvalue > 1e-3


def test_multinomial_and_dirichlet_moments():
    p = np.array([0.2, 0.3, 0.5])
    counts = np.asarray(random.multinomial(random.key(3), 50.0, jnp.asarray(p), shape=(2000, 3)))
    assert (counts.sum(-1) == 50).all()
    np.testing.assert_allclose(counts.mean(0), 50 * p, rtol=0.02)
    np.testing.assert_allclose(counts.var(0), 50 * p * (1 - p), rtol=0.1)
    alpha = np.array([0.5, 1.0, 2.5])
    x = np.asarray(random.dirichlet(random.key(3), jnp.asarray(alpha), (4000,)), np.float64)
    np.testing.assert_allclose(x.sum(-1), 1, rtol=1e-5)
    np.testing.assert_allclose(x.mean(0), alpha / alpha.sum(), atol=0.01)


# -- typed keys as arrays of keys ----------------------------------------------------------------


def test_typed_key_array_behaviour():
    keys = random.split(random.key(0), 6)
    assert keys.shape == (6,) and keys.ndim == 1 and keys.size == 6 and len(keys) == 6
    assert pyjax.dtypes.issubdtype(keys.dtype, pyjax.dtypes.prng_key)
    assert not pyjax.dtypes.issubdtype(keys.dtype, np.integer)
    assert keys.dtype == random.key_dtype("threefry2x32")
    grid = keys.reshape(2, 3)
    assert grid.shape == (2, 3) and grid.T.shape == (3, 2) and grid[1].shape == (3,)
    assert grid[..., 0].shape == (2,) and grid[None].shape == (1, 2, 3)
    data = np.asarray(random.key_data(keys))
    np.testing.assert_array_equal(np.asarray(random.key_data(grid.T[2, 1])), data[5])
    assert [k.shape for k in keys[:2]] == [(), ()]
    assert bool(keys[0] == keys[0]) and not bool(keys[0] == keys[1])
    assert pyjax.tree_util.tree_leaves(keys) == [keys]  # a leaf of jax.tree_util, as in JAX
    assert pyjax.tree.map(lambda k: k.shape, {"k": grid}) == {"k": (2, 3)}
    assert tree_util_src.tree_leaves(keys)[0].shape == (6, 2)  # NB: transformations see the key data
    for bad in (lambda: len(keys[0]), lambda: iter(keys[0]), lambda: np.asarray(keys),
                lambda: bool(keys[0])):
        with pytest.raises(TypeError):
            bad()


def test_legacy_key_flag():
    with pyjax.legacy_prng_key("error"), pytest.raises(ValueError, match="Legacy uint32 key"):
        random.normal(random.PRNGKey(0))
    with pyjax.legacy_prng_key("warn"), pytest.warns(UserWarning, match="Legacy uint32 key"):
        random.normal(random.PRNGKey(0))
    with pyjax.enable_custom_prng(True):
        assert isinstance(random.PRNGKey(0), random.PRNGKeyArray)


def test_every_prng_of_jax_is_there_in_jax_order():
    # JAX 0.10.2's registry order (its tests enumerate the implementations in this order)
    assert list(prng.prngs) == ["philox2x32", "philox4x32", "threefry2x32", "rbg", "unsafe_rbg",
                                "threefry4x32"]
    with pytest.raises(ValueError, match='unrecognized PRNG implementation "nope"'):
        random.key(0, impl="nope")
    with pyjax.default_prng_impl("philox4x32"):
        assert str(random.key(0).dtype) == "key<phx4>"


def test_typeof_a_key_array():
    # (flax.nnx asks jax.typeof of its keys) shape, key dtype, no sharding, as JAX reports them
    k = random.split(random.key(0), 3)
    t = pyjax.typeof(k)
    assert t.shape == (3,) and t.ndim == 1 and str(t.dtype) == "key<fry>"
    assert pyjax.dtypes.issubdtype(t.dtype, pyjax.dtypes.prng_key)
    assert t == pyjax.typeof(random.split(random.key(1), 3)) and t.sharding is None
    assert pyjax.typeof(jnp.ones(2)).sharding is None


def test_prng_internal_key_array_operations():
    """jax._src.random.prng's key-array operations as JAX's random tests use them (values
    recorded from JAX 0.10.2): seeding an array of seeds, wrapping and unwrapping key data."""

    k = keys.random_seed(np.array([1, 2, 3]), impl=prng.threefry_prng_impl)
    assert isinstance(k, keys.PRNGKeyArray) and k.shape == (3,)
    assert np.asarray(keys.random_unwrap(k)).tolist() == [[0, 1], [0, 2], [0, 3]]
    w = keys.random_wrap(jnp.arange(6, dtype=jnp.uint32).reshape(3, 2), impl=prng.threefry_prng_impl)
    assert w.shape == (3,)
    assert np.asarray(keys.random_bits(w[1], 32, (2,))).tolist() == [3196973704, 4162200046]
    assert pyjax.vmap(lambda d: keys.random_wrap(d, impl=prng.threefry_prng_impl))(
        jnp.arange(6, dtype=jnp.uint32).reshape(3, 2)).shape == (3,)
    with pytest.raises(TypeError, match="random_unwrap takes key array operand"):
        keys.random_unwrap(jnp.zeros(2, jnp.uint32))
    assert k.device == pyjax.devices()[0] and k.devices() == {pyjax.devices()[0]}


@pytest.mark.parametrize("name", ["philox2x32_p", "philox4x32_p", "threefry4x32_p"])
def test_hash_primitives_numpy_references_match_jax(name):
    # the np_impl of each counter hash gives the bits JAX 0.10.2 gives for the recorded case
    src = next(expr for n, expr, _ in CASES if n == name)
    args = eval(src.replace(f"{name}.bind", "_args"), dict(NS, _args=lambda *a: a))
    got = {"seq": [{"dtype": "uint32", "shape": list(np.shape(o)), "bits": np.asarray(o).ravel().tolist()}
                   for o in NS[name].np_impl(*args)]}
    _assert_same(got, RECORDED[name], name)


def test_key_arrays_from_callback_and_single_device_arrays():
    """Issue 23 (JAX's random_test test_make_array_from_callback/_single_device_arrays): key
    arrays are assembled from their data, laid out as the sharding says."""
    devices = pyjax.devices()
    mesh = pyjax.sharding.Mesh(np.array(devices), ("x",))
    sharding = pyjax.sharding.NamedSharding(mesh, pyjax.sharding.PartitionSpec("x"))
    expected = pyjax.vmap(random.key)(jnp.arange(len(devices)))
    made = pyjax.make_array_from_callback(
        (len(devices),), sharding, lambda index: pyjax.vmap(random.key)(jnp.arange(len(devices))[index[0]]))
    assert made.dtype == expected.dtype and made.shape == (len(devices),)
    np.testing.assert_array_equal(random.key_data(made), random.key_data(expected))
    keys = random.split(random.key(0), len(devices))
    singles = [pyjax.device_put(keys[i:i + 1], d) for i, d in enumerate(devices)]
    made = pyjax.make_array_from_single_device_arrays((len(devices),), sharding, singles)
    assert made.dtype == keys.dtype
    np.testing.assert_array_equal(random.key_data(made), random.key_data(keys))


def test_key_tangents_are_float0_of_the_keys_shape():
    """As JAX 0.10.2 (checked with it): the tangent and cotangent type of key arrays is float0
    of the keys' shape, in what the AD functions return and take, and in custom_vjp rules
    (JAX's random_test test_keyarray_custom_vjp, test_keyarray_custom_vjp_symbolic_zeros)."""
    key, float0 = random.key(1), pyjax.dtypes.float0

    def f(x, k):
        return x * random.uniform(k), k
    _, (_, k_dot) = pyjax.jvp(f, (1.0, key), (1.0, np.zeros((), float0)))
    assert k_dot.dtype == float0 and k_dot.shape == ()
    _, f_vjp = pyjax.vjp(f, 1.0, key)
    x_bar, k_bar = f_vjp((1.0, np.zeros((), float0)))
    assert k_bar.dtype == float0 and k_bar.shape == () and float(x_bar) == float(random.uniform(key))
    _, k_grad = pyjax.grad(lambda x, k: f(x, k)[0], argnums=(0, 1), allow_int=True)(1.0, key)
    assert k_grad.dtype == float0 and k_grad.shape == ()
    _, f_lin = pyjax.linearize(f, 1.0, key)
    assert f_lin(1.0, np.zeros((), float0))[1].dtype == float0
    keys = random.split(key, 3)
    _, (_, ks_dot) = pyjax.jvp(lambda ks: (1.0, ks), (keys,), (np.zeros((3,), float0),))
    assert ks_dot.dtype == float0 and ks_dot.shape == (3,)

    for symbolic_zeros in (False, True):
        seen = []

        @pyjax.custom_vjp
        def g(_, state):
            return state

        def g_fwd(_, state):
            if symbolic_zeros:
                state = pyjax.tree.map(lambda p: p.value, state)
            return state, None

        def g_bwd(_, state_bar):
            seen.append(state_bar[1])
            return state_bar[0], state_bar
        g.defvjp(g_fwd, g_bwd, symbolic_zeros=symbolic_zeros)
        assert float(pyjax.grad(lambda t: g(t, (8.0, key))[0])(3.0)) == 1.0
        assert seen[0].dtype == float0 and seen[0].shape == ()
        assert isinstance(seen[0], pyjax.custom_derivatives.SymbolicZero) == symbolic_zeros


def test_eval_shape_of_keys_is_a_key_dtype_struct():
    """Issue 24 (flax's test_create_abstract_stateful): eval_shape gives key arrays as
    ShapeDtypeStructs of a key dtype, as JAX 0.10.2, and tracing takes them back as keys
    (eval_shape, lower/compile). Values recorded from JAX 0.10.2."""
    k = pyjax.random.key(0)
    s = pyjax.eval_shape(lambda: k)
    assert s == pyjax.ShapeDtypeStruct((), k.dtype) and str(s.dtype) == "key<fry>"
    tree = pyjax.eval_shape(lambda: {"a": pyjax.random.key(1), "b": 1.0})
    assert tree["a"] == pyjax.ShapeDtypeStruct((), k.dtype)
    assert pyjax.make_jaxpr(lambda k: pyjax.random.split(k, 3), return_shape=True)(k)[1] == \
        pyjax.ShapeDtypeStruct((3,), k.dtype)
    assert pyjax.eval_shape(lambda k: pyjax.random.split(k), s) == pyjax.ShapeDtypeStruct((2,), k.dtype)
    assert pyjax.eval_shape(lambda k: pyjax.random.key_data(k), k) == \
        pyjax.ShapeDtypeStruct((2,), np.uint32)
    compiled = pyjax.jit(lambda k: pyjax.random.normal(k, (2,))).lower(s).compile()
    np.testing.assert_allclose(compiled(k), [1.6226422, 2.0252647], rtol=1e-6)
