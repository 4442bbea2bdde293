"""Random-number cases whose results are compared with JAX 0.10.2's, bit for bit.

Shared by `test_random.py` (run on pyjax) and `data/record_random.py` (run once on real JAX).
Each case is `(name, expression, x64)`: the expression is evaluated with `jax`, `jnp`, `np`,
`random` and the names of `PRELUDE` bound to the library under test, with jax_enable_x64 set
to `x64`. `encode` turns the result (arrays, typed keys, tuples, strings, an exception's class)
into JSON: array values are kept as their bits, so the comparison is exact.
"""
import numpy as np

PRELUDE = '''
k = random.key(0)
k1 = random.key(1701)
rk = random.PRNGKey(42)

def unpartitioned(f):
    with jax.threefry_partitionable(False):
        return f()

def unsafe_rbg_default(f):
    with jax.default_prng_impl("unsafe_rbg"):
        return f()

# the hash primitives and the PRNG registry (JAX's internal modules; pyjax's own names)
import importlib
def _internal(jax_module, pyjax_module, name):
    return getattr(importlib.import_module(pyjax_module if jax.__name__ == "pyjax" else jax_module), name)
philox2x32_p = _internal("jax._src.random.philox2x32", "pyjax._src.random.philox", "philox2x32_p")
philox4x32_p = _internal("jax._src.random.philox4x32", "pyjax._src.random.philox", "philox4x32_p")
threefry4x32_p = _internal("jax._src.random.threefry4x32", "pyjax._src.random.threefry4x32", "threefry4x32_p")
threefry_2x32 = _internal("jax._src.random.threefry2x32", "pyjax._src.random.prng", "threefry_2x32")
prngs = _internal("jax._src.random.prng", "pyjax._src.random.prng", "prngs")
'''


def _seed_cases():
    seeds = ["0", "1", "42", "-1", "-2**31", "2**31", "2**32 - 1", "2**32", "2**40 + 5", "2**63 - 1",
             "-2**63", "2**64 - 1", "np.uint32(7)", "np.int8(-1)", "np.int64(-5)", "np.uint64(2**63 + 3)",
             "True", "1.0", "jnp.array([1, 2])"]
    return [(f"PRNGKey({s}){'@x64' if x64 else ''}", f"random.PRNGKey({s})", x64)
            for x64 in (False, True) for s in seeds]


KEY_CASES = _seed_cases() + [
    ("key(0)", "random.key(0)", False),
    ("key(7) repr", "repr(random.key(7))", False),
    ("split repr", "repr(random.split(k, (2, 3)))", False),
    ("key dtype", "(str(k.dtype), k.dtype.itemsize, k.shape, k.ndim, k.size)", False),
    ("key_impl", "str(random.key_impl(k))", False),
    ("key_impl raw", "str(random.key_impl(rk))", False),
    ("key_dtype", "str(random.key_dtype())", False),
    ("key_data", "random.key_data(random.split(k1, 3))", False),
    ("key_data raw", "random.key_data(rk)", False),
    ("wrap_key_data", "random.wrap_key_data(jnp.array([[1, 2], [3, 4]], dtype=jnp.uint32))", False),
    ("key traced seed", "jax.jit(random.key)(5)", False),
    ("split typed", "random.split(k)", False),
    ("split 5", "random.split(k1, 5)", False),
    ("split shape", "random.split(k, (2, 3))", False),
    ("split raw", "random.split(rk, 3)", False),
    ("split 0", "random.split(k, 0)", False),
    ("split np int", "random.split(k, np.int32(3))", False),
    ("fold_in 0", "random.fold_in(k, 0)", False),
    ("fold_in", "random.fold_in(k1, 123456)", False),
    ("fold_in max", "random.fold_in(k, 2**32 - 1)", False),
    ("fold_in int64", "random.fold_in(k, np.int64(-3))", False),
    ("fold_in float", "random.fold_in(k, 1.5)", False),
    ("fold_in raw", "random.fold_in(rk, 9)", False),
    ("fold_in neg", "random.fold_in(k, -1)", False),
    ("fold_in big", "random.fold_in(k, 2**32 + 5)", False),
    ("fold_in array", "random.fold_in(k, jnp.array([1, 2]))", False),
    ("bits", "random.bits(k1, (7,))", False),
    ("bits scalar", "random.bits(k)", False),
    ("bits u8", "random.bits(k1, (3, 5), jnp.uint8)", False),
    ("bits u16", "random.bits(k1, (9,), jnp.uint16)", False),
    ("bits u64", "random.bits(k1, (4,), jnp.uint64)", True),
    ("bits default x64", "random.bits(k1, (3,))", True),
    ("bits raw", "random.bits(rk, (2, 2))", False),
    ("bits int dtype", "random.bits(k, (2,), jnp.int32)", False),
    ("clone", "random.clone(k1)", False),
    ("unpartitioned split", "unpartitioned(lambda: random.split(k1, 3))", False),
    ("unpartitioned split shape", "unpartitioned(lambda: random.split(k1, (2, 2)))", False),
    ("unpartitioned bits", "unpartitioned(lambda: random.bits(k1, (7,)))", False),
    ("unpartitioned bits u8", "unpartitioned(lambda: random.bits(k1, (7,), jnp.uint8))", False),
    ("unpartitioned bits u16", "unpartitioned(lambda: random.bits(k1, (5,), jnp.uint16))", False),
    ("unpartitioned bits u64", "unpartitioned(lambda: random.bits(k1, (3,), jnp.uint64))", True),
    ("unpartitioned uniform", "unpartitioned(lambda: random.uniform(k1, (5,)))", False),
    ("unpartitioned fold_in", "unpartitioned(lambda: random.fold_in(k1, 3))", False),
]

SAMPLER_CASES = [
    ("uniform", "random.uniform(k1, (7,))", False),
    ("uniform scalar", "random.uniform(k)", False),
    ("uniform range", "random.uniform(k1, (2, 3), minval=-2.0, maxval=jnp.array([1.0, 5.0, 9.0]))", False),
    ("uniform f16", "random.uniform(k1, (5,), jnp.float16)", False),
    ("uniform bf16", "random.uniform(k1, (5,), jnp.bfloat16)", False),
    ("uniform raw", "random.uniform(rk, (3,))", False),
    ("uniform f64", "random.uniform(k1, (5,), jnp.float64)", True),
    ("uniform default x64", "random.uniform(k1, (3,))", True),
    ("normal", "random.normal(k1, (2, 4))", False),
    ("normal f16", "random.normal(k1, (5,), jnp.float16)", False),
    ("normal bf16", "random.normal(k1, (5,), jnp.bfloat16)", False),
    ("normal c64", "random.normal(k1, (3,), jnp.complex64)", False),
    ("normal f64", "random.normal(k1, (5,))", True),
    ("normal c128", "random.normal(k1, (3,), jnp.complex128)", True),
    ("randint", "random.randint(k1, (10,), 0, 10)", False),
    ("randint neg", "random.randint(k1, (6,), -1000, 7)", False),
    ("randint empty range", "random.randint(k1, (4,), 5, 5)", False),
    ("randint arrays", "random.randint(k1, (2, 3), jnp.array([0, 10, 100]), 200)", False),
    ("randint u8 256", "random.randint(k1, (8,), 0, 256, jnp.uint8)", False),
    ("randint i8", "random.randint(k1, (8,), -128, 127, jnp.int8)", False),
    ("randint i16", "random.randint(k1, (5,), -5, 30000, jnp.int16)", False),
    ("randint u32", "random.randint(k1, (5,), 0, 2**32 - 1, jnp.uint32)", False),
    ("randint full i32", "random.randint(k1, (5,), -2**31, 2**31 - 1)", False),
    ("randint i64", "random.randint(k1, (5,), -2**40, 2**50)", True),
    ("randint u64", "random.randint(k1, (5,), 0, 2**63, jnp.uint64)", True),
    ("bernoulli", "random.bernoulli(k1, 0.3, (12,))", False),
    ("bernoulli p array", "random.bernoulli(k1, jnp.array([0.1, 0.5, 0.9]))", False),
    ("bernoulli high", "random.bernoulli(k1, 1e-3, (8,), mode='high')", False),
    ("truncated_normal", "random.truncated_normal(k1, -1.0, 2.0, (6,))", False),
    ("truncated_normal arrays", "random.truncated_normal(k1, jnp.array([-3.0, 0.0]), jnp.array([-2.0, 0.5]))", False),
    ("exponential", "random.exponential(k1, (6,))", False),
    ("laplace", "random.laplace(k1, (6,))", False),
    ("logistic", "random.logistic(k1, (6,))", False),
    ("cauchy", "random.cauchy(k1, (6,))", False),
    ("maxwell", "random.maxwell(k1, (4,))", False),
    ("gumbel", "random.gumbel(k1, (6,))", False),
    ("gumbel high", "random.gumbel(k1, (6,), mode='high')", False),
    ("gumbel highest", "random.gumbel(k1, (6,), mode='highest')", False),
    ("rademacher", "random.rademacher(k1, (8,))", False),
    ("rademacher f32", "random.rademacher(k1, (4,), jnp.float32)", False),
    ("geometric", "random.geometric(k1, 0.3, (8,))", False),
    ("lognormal", "random.lognormal(k1, 0.5, (5,))", False),
    ("pareto", "random.pareto(k1, 3.0, (5,))", False),
    ("rayleigh", "random.rayleigh(k1, 2.0, (5,))", False),
    ("wald", "random.wald(k1, 1.5, (5,))", False),
    ("weibull_min", "random.weibull_min(k1, 2.0, 1.5, (5,))", False),
    ("double_sided_maxwell", "random.double_sided_maxwell(k1, 1.0, 2.0, (4,))", False),
    ("double_sided_maxwell params", "random.double_sided_maxwell(k1, jnp.zeros(2), 1.0)", False),
    ("triangular", "random.triangular(k1, 0.0, 0.3, 1.0, (6,))", False),
    ("categorical", "random.categorical(k1, jnp.log(jnp.array([[0.1, 0.2, 0.7], [0.5, 0.25, 0.25]])))", False),
    ("categorical axis 0", "random.categorical(k1, jnp.arange(12.0).reshape(3, 4) / 4, axis=0)", False),
    ("categorical shape", "random.categorical(k1, jnp.array([0.0, 1.0, 2.0]), shape=(5,))", False),
    ("choice int", "random.choice(k1, 10, (6,))", False),
    ("choice array", "random.choice(k1, jnp.arange(20.0).reshape(5, 4), (3,))", False),
    ("choice axis 1", "random.choice(k1, jnp.arange(20.0).reshape(5, 4), (2, 3), axis=1)", False),
    ("choice p", "random.choice(k1, 5, (8,), p=jnp.array([0.1, 0.0, 0.4, 0.3, 0.2]))", False),
    ("choice p array", "random.choice(k1, jnp.arange(3.0) * 10, (2, 2), p=jnp.array([0.5, 0.25, 0.25]))", False),
    ("permutation int", "random.permutation(k1, 10)", False),
    ("permutation rows", "random.permutation(k1, jnp.arange(12.0).reshape(3, 4), axis=1)", False),
    ("permutation independent", "random.permutation(k1, jnp.arange(12).reshape(3, 4), independent=True)", False),
    ("permutation large", "random.permutation(k1, 70000)", False),
    ("choice no replace", "random.choice(k1, 20, (5,), replace=False)", False),
    ("choice no replace axis", "random.choice(k1, jnp.arange(24).reshape(4, 6), (2, 2), replace=False, axis=1)", False),
    ("choice no replace p", "random.choice(k1, 6, (3,), replace=False, p=jnp.array([0.1, 0.2, 0.3, 0.1, 0.2, 0.1]))", False),
    ("categorical no replace", "random.categorical(k1, jnp.log(jnp.array([[0.1, 0.2, 0.3, 0.4], [0.4, 0.3, 0.2, 0.1]])), shape=(3, 2), replace=False)", False),
    ("categorical no replace too many", "random.categorical(k1, jnp.zeros(3), shape=(4,), replace=False)", False),
    ("gamma", "random.gamma(k1, jnp.array([0.3, 1.0, 2.5, 12.0]))", False),
    ("gamma shape", "random.gamma(k1, 2.0, (5,))", False),
    ("gamma f64", "random.gamma(k1, jnp.array([0.3, 4.0]))", True),
    ("loggamma", "random.loggamma(k1, jnp.array([0.01, 0.5, 3.0]))", False),
    ("beta", "random.beta(k1, 2.0, jnp.array([0.5, 3.0, 8.0]))", False),
    ("dirichlet", "random.dirichlet(k1, jnp.array([0.5, 1.0, 2.0]), (2,))", False),
    ("t", "random.t(k1, 4.0, (5,))", False),
    ("chisquare", "random.chisquare(k1, 3.0, (5,))", False),
    ("f", "random.f(k1, 3.0, 7.0, (4,))", False),
    ("generalized_normal", "random.generalized_normal(k1, 1.5, (5,))", False),
    ("ball", "random.ball(k1, 3, 2, (2,))", False),
    ("poisson", "random.poisson(k1, jnp.array([0.0, 0.5, 3.0, 9.5, 15.0, 100.0]))", False),
    ("poisson shape", "random.poisson(k1, 4.0, (6,))", False),
    ("poisson x64", "random.poisson(k1, 25.0, (3,))", True),
    ("binomial", "random.binomial(k1, jnp.array([5.0, 50.0, 1000.0, 20.0]), jnp.array([0.2, 0.7, 0.3, 0.9]))", False),
    ("binomial shape", "random.binomial(k1, 10, 0.5, (5,))", False),
    ("binomial edge", "random.binomial(k1, jnp.array([-1.0, jnp.inf, 7.0]), jnp.array([0.5, 0.5, 1.5]))", False),
    ("multinomial", "random.multinomial(k1, 10.0, jnp.array([0.2, 0.3, 0.5]))", False),
    ("multinomial batch", "random.multinomial(k1, jnp.array([5.0, 40.0]), jnp.array([0.25, 0.25, 0.5]), shape=(2, 3))", False),
]

TRANSFORM_CASES = [
    ("jit normal", "jax.jit(lambda k: random.normal(k, (3,)))(k1)", False),
    ("jit split raw", "jax.jit(random.split)(rk)", False),
    ("vmap normal", "jax.vmap(lambda k: random.normal(k, (2,)))(random.split(k1, 3))", False),
    ("vmap raw fold_in", "jax.vmap(random.fold_in, in_axes=(None, 0))(rk, jnp.arange(3))", False),
    ("vmap gamma", "jax.vmap(lambda k, a: random.gamma(k, a))(random.split(k1, 3), jnp.array([0.5, 1.0, 5.0]))", False),
    ("scan keys", "jax.lax.scan(lambda c, k: (c + random.uniform(k), random.bits(k)), 0.0, random.split(k1, 4))", False),
    ("grad uniform", "jax.grad(lambda lo, hi: random.uniform(k1, (3,), minval=lo, maxval=hi).sum(), (0, 1))(1.0, 3.0)", False),
    ("grad normal", "jax.grad(lambda s: (s * random.normal(k1, (4,))).sum())(2.0)", False),
    ("grad gamma", "jax.grad(lambda a: random.gamma(k1, a).sum())(jnp.array([0.3, 1.0, 2.5, 12.0]))", False),
    ("grad loggamma", "jax.grad(lambda a: random.loggamma(k1, a).sum())(jnp.array([0.01, 0.5, 3.0]))", False),
    ("grad beta", "jax.grad(lambda a: random.beta(k1, a, 2.0).sum())(jnp.array([0.5, 3.0]))", False),
]

ERROR_CASES = [
    ("float key", "random.normal(jnp.array([1.0, 2.0]))", False),
    ("wrong-shape key", "random.normal(jnp.zeros(3, jnp.uint32))", False),
    ("scalar key", "random.normal(jnp.uint32(3))", False),
    ("list key", "random.normal([0, 0])", False),
    ("batched key", "random.normal(random.split(k))", False),
    ("batched raw key", "random.uniform(jnp.zeros((2, 2), jnp.uint32))", False),
    ("split batched", "random.split(random.split(k))", False),
    ("key array seed", "random.key(jnp.array([1, 2]))", False),
    ("key of key", "random.key(k)", False),
    ("unknown impl", "random.key(0, impl='nope')", False),
    ("impl and dtype", "random.key(0, impl='threefry2x32', dtype='threefry2x32')", False),
    ("wrap bad shape", "random.wrap_key_data(jnp.zeros(3, jnp.uint32))", False),
    ("wrap bad dtype", "random.wrap_key_data(jnp.zeros(2, jnp.int32))", False),
    ("uniform int dtype", "random.uniform(k, (2,), jnp.int32)", False),
    ("normal int dtype", "random.normal(k, (2,), jnp.int32)", False),
    ("randint float dtype", "random.randint(k, (2,), 0, 5, jnp.float32)", False),
    ("randint shape mismatch", "random.randint(k, (3,), jnp.zeros(4, int), 5)", False),
    ("bernoulli int p", "random.bernoulli(k, 1)", False),
    ("bernoulli mode", "random.bernoulli(k, 0.5, mode='mid')", False),
    ("gamma shape mismatch", "random.gamma(k, jnp.ones(3), (2,))", False),
    ("gamma int dtype", "random.gamma(k, 1.0, dtype=jnp.int32)", False),
    ("beta unsafe cast", "random.beta(k, 1.0, 2.0, dtype=jnp.float16)", False),
    ("choice too many", "random.choice(k, 5, (10,), replace=False)", False),
    ("choice shape int", "random.choice(k, 5, 3)", False),
    ("choice bad p", "random.choice(k, 5, (2,), p=jnp.ones(4) / 4)", False),
    ("gumbel mode", "random.gumbel(k, mode='wild')", False),
    ("dirichlet scalar alpha", "random.dirichlet(k, 1.0)", False),
    ("multivariate method", "random.multivariate_normal(k, jnp.zeros(2), jnp.eye(2), method='lu')", False),
    ("poisson float dtype", "random.poisson(k, 1.0, dtype=jnp.float32)", False),
    ("geometric float dtype", "random.geometric(k, 0.5, dtype=jnp.float32)", False),
]

RBG_CASES = [
    ("rbg key", "random.key(42, impl='rbg')", False),
    ("unsafe_rbg key", "random.key(42, impl='unsafe_rbg')", False),
    ("rbg key_dtype", "str(random.key_dtype('unsafe_rbg'))", False),
    ("rbg split", "random.split(random.key(42, impl='rbg'), 3)", False),
    ("unsafe_rbg split", "random.split(random.key(42, impl='unsafe_rbg'), (2, 2))", False),
    ("rbg fold_in", "random.fold_in(random.key(42, impl='rbg'), 7)", False),
    ("unsafe_rbg fold_in", "random.fold_in(random.key(42, impl='unsafe_rbg'), 7)", False),
    ("rbg bits u8", "random.bits(random.key(1, impl='rbg'), (6,), jnp.uint8)", False),
    ("rbg uniform", "random.uniform(random.key(1, impl='rbg'), (5,))", False),
    ("unsafe_rbg normal", "random.normal(random.key(1, impl='unsafe_rbg'), (5,))", False),
    ("rbg randint", "random.randint(random.key(1, impl='rbg'), (5,), 0, 100)", False),
    ("rbg gamma", "random.gamma(random.key(1, impl='rbg'), jnp.array([0.5, 2.0]))", False),
    ("rbg vmap", "jax.vmap(lambda k: random.normal(k, (2,)))(random.split(random.key(1, impl='rbg'), 3))", False),
    ("rbg poisson", "random.poisson(random.key(1, impl='rbg'), 3.0)", False),
    ("rbg wrap", "random.wrap_key_data(jnp.arange(8, dtype=jnp.uint32).reshape(2, 4), impl='rbg')", False),
    ("rbg default impl raw", "unsafe_rbg_default(lambda: random.uniform(jnp.arange(4, dtype=jnp.uint32), (3,)))", False),
    ("rng_bit_generator", "jax.lax.rng_bit_generator(jnp.array([1, 2, 3, 4], jnp.uint32), (2, 3))", False),
    ("rng_bit_generator u16", "jax.lax.rng_bit_generator(jnp.zeros(4, jnp.uint32), (5,), jnp.uint16)", False),
    ("rng_bit_generator vmap", "jax.vmap(lambda k: jax.lax.rng_bit_generator(k, (2,)))(jnp.arange(8, dtype=jnp.uint32).reshape(2, 4))", False),
    ("rng_bit_generator int dtype", "jax.lax.rng_bit_generator(jnp.zeros(4, jnp.uint32), (2,), jnp.int32)", False),
]

# the counter-based PRNGs JAX 0.10.2 added (philox2x32, philox4x32, threefry4x32), and the hashes
COUNTER_CASES = [
    case
    for impl in ("philox2x32", "philox4x32", "threefry4x32")
    for case in [
        (f"{impl} key", f"random.key(42, impl='{impl}')", False),
        (f"{impl} key x64 seed", f"random.key(np.int64(-(2 ** 40) - 3), impl='{impl}')", True),
        (f"{impl} key_dtype", f"str(random.key_dtype('{impl}'))", False),
        (f"{impl} split", f"random.split(random.key(42, impl='{impl}'), (2, 3))", False),
        (f"{impl} fold_in", f"random.fold_in(random.key(42, impl='{impl}'), 7)", False),
        (f"{impl} bits", f"random.bits(random.key(1, impl='{impl}'), (5,))", False),
        (f"{impl} bits u8", f"random.bits(random.key(1, impl='{impl}'), (6,), jnp.uint8)", False),
        (f"{impl} bits u64", f"random.bits(random.key(1, impl='{impl}'), (3,), jnp.uint64)", True),
        (f"{impl} uniform", f"random.uniform(random.key(1, impl='{impl}'), (2, 3))", False),
        (f"{impl} normal jit", f"jax.jit(lambda k: random.normal(k, (4,)))(random.key(3, impl='{impl}'))", False),
        (f"{impl} vmap split", f"jax.vmap(lambda k: random.split(k))(random.split(random.key(5, impl='{impl}'), 2))", False),
        (f"{impl} wrap bad shape", f"random.wrap_key_data(jnp.zeros(3, jnp.uint32), impl='{impl}')", False),
        (f"{impl} seed float", f"random.key(1.5, impl='{impl}')", False),
    ]
] + [
    ("philox2x32_p", "philox2x32_p.bind(np.uint32(0x12345678), np.arange(3, dtype=np.uint32), np.uint32(0xdeadbeef))", False),
    ("philox4x32_p", "philox4x32_p.bind(*[np.uint32(v) for v in (1, 2, 3, 4)], np.arange(3, dtype=np.uint32), np.uint32(9))", False),
    ("threefry4x32_p", "threefry4x32_p.bind(*[np.uint32(v) for v in range(7)], np.arange(3, dtype=np.uint32) + np.uint32(4000000000))", False),
    ("philox4x32_p bad dtype", "philox4x32_p.bind(*[np.int32(v) for v in range(6)])", False),
    ("threefry_2x32 counts", "threefry_2x32(np.uint32([3, 4]), np.arange(5, dtype=np.uint32))", False),
    ("threefry_2x32 empty", "threefry_2x32(np.uint32([3, 4]), np.zeros(0, np.uint32))", False),
    ("threefry_2x32 pair", "threefry_2x32((np.uint32(0x13198a2e), np.uint32(0x03707344)), jnp.arange(7, dtype=jnp.uint32).reshape(7, 1))", False),
    ("threefry_2x32 empty 2-d", "threefry_2x32((np.uint32(1), np.uint32(2)), jnp.ones((10, 0), jnp.uint32))", False),
    ("threefry_2x32 int32", "threefry_2x32(np.int32([1, 2]), np.arange(3, dtype=np.uint32))", False),
    ("prng names", "list(prngs)", False),
]

# key arrays through the jax.numpy / jax.lax functions that move, pick or fill elements
KEY_ARRAY_OP_CASES = [
    ("keys reshape", "jnp.reshape(random.split(k, 4), (2, 2))", False),
    ("keys ravel", "jnp.ravel(random.split(k, 4).reshape(2, 2))", False),
    ("keys concatenate", "jnp.concatenate([random.split(k, 2), random.split(k1, 3)])", False),
    ("keys concatenate jit", "jax.jit(lambda a, b: jnp.concatenate([a, b], axis=-1))(random.split(k, (2, 1)), random.split(k1, (2, 2)))", False),
    ("keys stack", "jnp.stack([k, k1], axis=0)", False),
    ("keys tile", "jnp.tile(k1, 3)", False),
    ("keys broadcast_to", "jnp.broadcast_to(k1, (2, 3))", False),
    ("keys expand_dims", "jnp.expand_dims(random.split(k, 6).reshape(2, 3), -1)", False),
    ("keys append", "jnp.append(random.split(k, 2), k1)", False),
    ("keys flip", "jnp.flip(random.split(k, 3))", False),
    ("keys take", "jnp.take(random.split(k, 3), jnp.array([2, 0]))", False),
    ("keys where", "jnp.where(jnp.array([True, False, True]), random.split(k, 3), k1)", False),
    ("keys split", "jnp.split(random.split(k, 4), 2)", False),
    ("keys array", "jnp.array(k1, dtype=k1.dtype)", False),
    ("keys zeros", "jnp.zeros((3,), dtype=k.dtype)", False),
    ("keys full", "jnp.full((2,), 100, dtype=random.key(0, impl='threefry4x32').dtype)", False),
    ("keys full key", "jnp.full((2,), k1, dtype=k1.dtype)", False),
    ("keys full_like", "jnp.full_like(random.split(k, 2), 100)", False),
    ("keys full_like key", "jnp.full_like(random.split(k, 2), k1)", False),
    ("keys ones_like", "jnp.ones_like(random.split(k, 2))", False),
    ("keys select", "jax.lax.select(jnp.array([True, False]), random.split(k, 2), random.split(k1, 2))", False),
    ("keys dynamic_slice", "jax.lax.dynamic_slice(random.split(k, 12).reshape(3, 4), (1, 2), (2, 2))", False),
    ("keys dynamic_update_slice", "jax.lax.dynamic_update_slice(random.split(k, 12).reshape(3, 4), random.split(k1, 2).reshape(1, 2), (2, 1))", False),
    ("keys at get", "random.split(k, 3).at[jnp.array([0, 2])].get()", False),
    ("keys at set", "random.split(k, 5).at[2:4].set(k1)", False),
    ("keys at set jit", "jax.jit(lambda a, b: a.at[0].set(b))(random.split(k, 3), k1)", False),
    ("multivariate_normal rank promotion raise", "jax.numpy_rank_promotion('raise')(lambda: random.multivariate_normal(k, jnp.zeros(2), jnp.ones((2, 2)), shape=(3,), method='eigh'))()", False),
    ("keys phx4 concatenate", "jnp.concatenate([random.split(random.key(1, impl='philox4x32'), 2)] * 2)", False),
]

CASES = (KEY_CASES + SAMPLER_CASES + TRANSFORM_CASES + ERROR_CASES + RBG_CASES + COUNTER_CASES
         + KEY_ARRAY_OP_CASES)


def _encode_array(x):
    a = np.asarray(x)
    if a.dtype.kind in "fc":
        bits = a.view(f"u{a.dtype.itemsize // (2 if a.dtype.kind == 'c' else 1)}")
    elif a.dtype == np.bool_:
        bits = a.astype(np.uint8)
    else:
        bits = a
    return {"dtype": a.dtype.name, "shape": list(a.shape), "bits": bits.reshape(-1).tolist()}


def encode(x, random):
    """JSON for a case's result; `random` is the library's random module (for typed keys)."""
    if isinstance(x, (tuple, list)):
        return {"seq": [encode(v, random) for v in x]}
    if isinstance(x, (str, int, float, bool)) or x is None:
        return {"py": x}
    dt = getattr(x, "dtype", None)
    if dt is not None and str(dt).startswith("key<"):
        return {"key": str(dt), "data": _encode_array(random.key_data(x))}
    return _encode_array(x)


def evaluate(expr, ns, random):
    """The encoded result of `expr`, or {"error": its exception class's name}."""
    try:
        out = eval(expr, ns)
    except Exception as e:  # noqa: BLE001  (the class is what is recorded)
        return {"error": type(e).__name__}
    return encode(out, random)
