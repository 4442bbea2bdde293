"""Programs that misuse a traced value, run once on JAX 0.10.2 (tests/data/record_tracer_errors.py)
and again on pyjax (tests/test_tracer_errors.py): the exception class and the sentence naming the
traced function's transformation and the arguments the value depends on must agree.

Never imports jax: `cases(jax, jnp, np)` builds the programs from the library it is given.
"""
import collections
import re

Params = collections.namedtuple("Params", ["layers", "scale"])


def cases(jax, jnp, np):
    lax = jax.lax

    def dict_arg(p):
        if p["w"] > 0:
            return p["w"]
        return -p["w"]

    def derived(p, x):
        y = jnp.sin(p["b"]) + x.sum()
        return jnp.zeros(int(y))

    def nested_namedtuple(params, x):
        return jnp.zeros(int(params.layers[0]["kernel"][1]) + x.shape[0])

    def varargs(a, *args, **kw):
        if args[0] + kw["q"] > 0:
            return a
        return a

    def several(x, y, z):
        if x + y + z > 0:
            return x
        return y

    def numpy_conversion(*args):
        return np.asarray(args[1])

    def index_conversion(x, i):
        return [1.0, 2.0, 3.0][i]

    def scan_body(x):
        def body(c, xi):
            if xi > 0:
                return c, c
            return c, c
        return lax.scan(body, x, jnp.ones(3))

    return {
        "dict_arg": lambda: jax.jit(dict_arg)({"w": 1.0}),
        "derived": lambda: jax.jit(derived)({"a": 1.0, "b": 2.0}, jnp.ones(2)),
        "nested_namedtuple": lambda: jax.jit(nested_namedtuple)(
            Params([{"kernel": jnp.ones(2)}], 1.0), jnp.ones(3)),
        "varargs": lambda: jax.jit(varargs)(1.0, 2.0, q=3.0),
        "several": lambda: jax.jit(several)(1.0, 2.0, 3.0),
        "static_shifts_positions": lambda: jax.jit(several, static_argnums=0)(1.0, 2.0, z=3.0),
        "numpy_conversion": lambda: jax.jit(numpy_conversion)(1.0, 2.0),
        "index_conversion": lambda: jax.jit(index_conversion)(1.0, 1),
        "scan_body": lambda: jax.jit(scan_body)(1.0),
        "scan_body_eager": lambda: scan_body(1.0),
        "under_grad": lambda: jax.jit(jax.grad(lambda w: w if w > 0 else 0.0))(1.0),
        "under_vmap_in_jit": lambda: jax.jit(jax.vmap(lambda r: r if r.sum() > 0 else r))(
            jnp.ones((2, 3))),
    }


def describe(exc) -> dict:
    """The exception class and JAX's provenance sentence with file paths left out."""
    text = str(exc)
    sentence = next((ln for ln in text.splitlines() if ln.startswith("The error occurred")), "")
    sentence = re.sub(r" at \S+:\d+ for ", " for ", sentence)
    return {"class": type(exc).__name__, "sentence": sentence}
