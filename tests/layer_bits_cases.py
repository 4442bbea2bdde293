"""Gradients of common layers whose bits pyjax should share with JAX 0.10.2 (issue 23 item 5:
the same XLA computation gives the same bits, so pyjax's derivative rules follow JAX's formulas
where a different but equivalent formula would round differently).

Shared by `test_layer_bits.py` (run on pyjax) and `data/record_layer_bits.py` (run once on real
JAX 0.10.2). `PRELUDE` runs with `jax`, `jnp`, `lax` and `np` bound to the library under test
and defines `CASES`: name -> (loss(params, x), params, x). `PROBE` names the elementwise
functions whose bits tell whether the machine's XLA computes transcendentals as the recording
machine's did (XLA's CPU code generator rounds their last bits by CPU model).
"""

PRELUDE = '''
rng = np.random.default_rng(0)
f32 = lambda *s: rng.normal(size=s).astype(np.float32)

def dense(p, x):
    return jnp.sum(jax.nn.gelu(x @ p["W"] + p["b"]) ** 2)

def conv(p, x):
    y = lax.conv_general_dilated(x, p["K"], (1, 1), "SAME", dimension_numbers=("NHWC", "HWIO", "NHWC"))
    y = jax.nn.relu(y + p["b"])
    y = lax.reduce_window(y, -jnp.inf, lax.max, (1, 2, 2, 1), (1, 2, 2, 1), "VALID")
    return jnp.mean(y ** 2)

def attention(p, x):
    q, k, v = x @ p["Wq"], x @ p["Wk"], x @ p["Wv"]
    s = jnp.einsum("btd,bsd->bts", q, k) / np.sqrt(q.shape[-1]).astype(np.float32)
    a = jax.nn.softmax(s, axis=-1)
    return jnp.sum(jnp.einsum("bts,bsd->btd", a, v) @ p["Wo"])

def layer_norm(p, x):
    m = jnp.mean(x, -1, keepdims=True)
    v = jnp.var(x, -1, keepdims=True)
    y = (x - m) * lax.rsqrt(v + 1e-5) * p["g"] + p["b"]
    return jnp.sum(jnp.tanh(y))

def scan_rnn(p, xs):
    def cell(h, x):
        h = jnp.tanh(h @ p["Wh"] + x @ p["Wx"] + p["b"])
        return h, jnp.sum(h)
    h, ys = lax.scan(cell, jnp.zeros((4, 16), np.float32), xs)
    return jnp.sum(ys) + jnp.sum(h ** 2)

CASES = {
    "dense": (dense, {"W": f32(32, 64), "b": f32(64)}, f32(8, 32)),
    "conv": (conv, {"K": f32(3, 3, 3, 8), "b": f32(8)}, f32(2, 8, 8, 3)),
    "attention": (attention, {"Wq": f32(16, 16), "Wk": f32(16, 16), "Wv": f32(16, 16),
                              "Wo": f32(16, 16)}, f32(2, 6, 16)),
    "layer_norm": (layer_norm, {"g": f32(32), "b": f32(32)}, f32(8, 32)),
    "scan_rnn": (scan_rnn, {"Wh": f32(16, 16) / 4, "Wx": f32(8, 16) / 4, "b": f32(16)},
                 f32(10, 4, 8)),
}
PROBE_X = np.linspace(-3, 3, 64, dtype=np.float32)
'''

PROBE = ["tanh", "exp", "log1p", "sin", "erf"]

# Pairs whose gradients still round differently from JAX's, and why (shown in docs/jax_suite.md)
KNOWN_DIFFERENT: dict = {}


def grads(jax, case, mode):
    """The gradient leaves (params then x) of a case, eagerly or under jit."""
    loss, params, x = case
    g = jax.grad(loss, argnums=(0, 1))
    if mode == "jit":
        g = jax.jit(g)
    return jax.tree_util.tree_leaves(g(params, x))


def probe_fn(jax, name):
    """The probe function `name`: jnp's, else jax.scipy.special's."""
    return getattr(jax.numpy, name, None) or getattr(jax.scipy.special, name)
