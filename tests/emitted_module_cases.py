"""Programs whose emitted StableHLO is compared with JAX's (first-call compile speed, issue 10).

Shared by `test_emitted_modules.py` (run on pyjax) and `data/record_emitted_modules.py` (run once
on real JAX 0.10.2). `PRELUDE` is executed with `jax`, `jnp` and `np` bound to the library under
test. `MODULES` maps a name to an expression giving a `Lowered`; the recording keeps how many ops
of each kind JAX's module has. `MATMULS` lists operand shapes of `jnp.matmul`; the recording keeps
the equations of its jaxpr.
"""
import re

PRELUDE = '''
rng = np.random.default_rng(3)
W = jnp.asarray(rng.normal(size=(16, 16)).astype(np.float32) / 4)
xs = jnp.asarray(rng.normal(size=(8, 16)).astype(np.float32))

def tanh_net(W, x):
    return jnp.sum(jnp.tanh(jnp.tanh(x @ W) @ W) ** 2)

def mlp(params, x):
    for w, b in params:
        x = jnp.tanh(x @ w + b)
    return jnp.sum(x)

params = [(W, jnp.zeros(16)) for _ in range(3)]

def relu_loss(params, x, y):
    h = x
    for w, b in params[:-1]:
        h = jax.nn.relu(h @ w + b)
    w, b = params[-1]
    return -jnp.mean(jnp.sum(jax.nn.log_softmax(h @ w + b) * y, axis=1))

y = jax.nn.one_hot(jnp.arange(8) % 4, 16)
'''

MODULES = {
    "vmap_grad_tanh": "jax.jit(jax.vmap(jax.grad(tanh_net), in_axes=(None, 0))).lower(W, xs)",
    "jacrev_matvec": "jax.jit(jax.jacrev(lambda W, x: jnp.tanh(W @ x))).lower(W, xs[0])",
    "grad_mlp": "jax.jit(jax.grad(mlp)).lower(params, xs)",
    "grad_relu_log_softmax": "jax.jit(jax.grad(relu_loss)).lower(params, xs, y)",
}

MATMULS = [
    ((3,), (3,)), ((3,), (3, 4)), ((2, 3), (3,)), ((2, 3), (3, 4)), ((5, 2, 3), (3,)),
    ((3,), (5, 3, 4)), ((1, 2, 3), (5, 3, 4)), ((5, 1, 2, 3), (4, 3, 2)), ((6, 2, 3), (6, 3, 4)),
]


def op_counts(text):
    """How many StableHLO ops of each kind a module's text has (generic or pretty op syntax)."""
    counts = {}
    for kind in re.findall(r'"?stablehlo\.([a-z_]+)"?[ (%]', text):
        counts[kind] = counts.get(kind, 0) + 1
    return counts


def matmul_eqns(make_jaxpr, jnp, a_shape, b_shape):
    """The equations of `jnp.matmul`'s jaxpr: primitive name and shape parameters."""
    jaxpr = make_jaxpr(jnp.matmul)(jnp.ones(a_shape), jnp.ones(b_shape)).jaxpr
    return [[e.primitive.name, repr(e.params.get("dimension_numbers")),
             repr(e.params.get("permutation")), repr(e.params.get("dimensions"))] for e in jaxpr.eqns]
