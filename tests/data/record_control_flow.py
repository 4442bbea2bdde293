"""Record JAX 0.10.2's behaviour for cond/switch outputs and eager control-flow trace caching.

Run with the reference JAX environment (never by the test suite):
    /root/scratch/jaxref/bin/python tests/data/record_control_flow.py
It writes tests/data/control_flow.json:
- "cases": expression -> the value (dtype, shape, weak type, elements) or exception class JAX
  gives; tests evaluate the same expressions with pyjax bound to the same names;
- "traces": scenario code -> how many times each user function was traced (a dict of counters
  the code increments), for eager scan/while_loop/fori_loop/cond/switch and clear_caches.
"""
import json
import pathlib

import numpy as np

import jax
import jax.numpy as jnp
from jax import lax

CASES = [
    # Python-scalar branch outputs become Arrays with the first branch's weak types
    "lax.cond(2, lambda: 1.0, lambda: 0.0)", "lax.cond(True, lambda: 1.0, lambda: 0.0)",
    "lax.cond(np.int32(0), lambda: 1.0, lambda: 0.0)", "lax.cond(np.bool_(True), lambda: 1, lambda: 0)",
    "lax.cond(jnp.bool_(True), lambda: 1.0, lambda: jnp.float32(0.0))",
    "lax.cond(True, lambda: 1.0, lambda: np.float32(0.0))",
    "lax.cond(True, lambda: (1, 2.0, True), lambda: (0, 0.5, False))",
    "lax.cond(0.5, lambda: 1.0, lambda: 0.0)", "lax.cond(np.float32(0.0), lambda: 1.0, lambda: 0.0)",
    "lax.cond(np.array(3), lambda: 1.0, lambda: 0.0)", "lax.cond(jnp.int32(3), lambda: 1.0, lambda: 0.0)",
    "lax.cond(True, lambda x: x, lambda x: x + 1, 1.0)", "lax.cond(True, lambda x: x, lambda x: x + 1, 1)",
    "lax.cond(False, lambda x: x, lambda x: x + 1, np.float32(1.0))",
    "lax.cond(True, lambda x: x, lambda x: x, 1.0)",
    "lax.cond(True, lambda x: (x, 2.0), lambda x: (x, 3.0), np.float32(1.0))",
    "lax.cond(True, lambda: 1, lambda: jnp.int32(0))", "lax.cond(True, lambda: jnp.int32(1), lambda: 0)",
    "lax.cond(True, lambda: None, lambda: None)", "lax.cond(False, lambda: {'a': 1.0}, lambda: {'a': 2.0})",
    "jax.jit(lambda p: lax.cond(p, lambda: 1.0, lambda: 0.0))(True)",
    "jax.jit(lambda p: lax.cond(p, lambda: 1.0, lambda: 0.0))(2)",
    "jax.jit(lambda: lax.cond(True, lambda: 1, lambda: jnp.int32(0)))()",
    "jax.jit(lambda: lax.cond(True, lambda: jnp.int32(1), lambda: 0))()",
    "jax.vmap(lambda p: lax.cond(p, lambda: 1.0, lambda: 0.0))(jnp.array([True, False]))",
    "jax.grad(lambda x: lax.cond(True, lambda x: x * 2.0, lambda x: 1.0, x))(1.0)",
    "jax.grad(lambda x: lax.cond(False, lambda x: x * 2.0, lambda x: 1.0, x))(1.0)",
    "lax.switch(1, [lambda: 1.0, lambda: 2.0])", "lax.switch(5, [lambda: 1.0, lambda: 2.0])",
    "lax.switch(-5, [lambda: 1.0, lambda: 2.0])", "lax.switch(np.int8(1), [lambda: 1, lambda: 2])",
    "lax.switch(jnp.uint8(1), [lambda: 1, lambda: 2])", "lax.switch(1, [lambda: 1, lambda: jnp.int32(2)])",
    "lax.switch(0, [lambda: jnp.int32(1), lambda: 2])", "lax.switch(0, [lambda x: x, lambda x: x * 2], 3)",
    "jax.jit(lambda i: lax.switch(i, [lambda: 1.0, lambda: 2.0, lambda: 3.0]))(7)",
    # errors
    "lax.cond(jnp.array([True]), lambda: 1.0, lambda: 0.0)", "lax.cond(3 + 0j, lambda: 1.0, lambda: 0.0)",
    "lax.cond(True, lambda: 1, lambda: 0.0)", "lax.cond(True, lambda: 1.0, lambda: None)",
    "lax.switch(1.5, [lambda: 1, lambda: 2])", "lax.switch(True, [lambda: 1, lambda: 2])",
    # a weakly typed loop carry takes the type the body gives it (result_type of the two)
    "lax.scan(lambda c, x: (c + x, x), 0, jnp.arange(3.0))[0]",
    "lax.scan(lambda c, x: (c + x.astype(jnp.bfloat16), x), 0.0, jnp.arange(3.0))[0]",
    "lax.fori_loop(0, 3, lambda i, c: c + 1.5, 0)",
    "lax.scan(lambda c, x: (jnp.real(c) + x, x), 1j, jnp.arange(3.0))[0]",
    "lax.while_loop(lambda c: jnp.real(c) < 2, lambda c: jnp.real(c) + 1.0, 1j)",
]

# Each scenario defines user functions that count their traces in `n` and calls control flow
# eagerly; what is recorded is `n` at the end.
TRACES = {
    "scan": """
def f(c, x):
    n['f'] += 1
    return c + x, c
xs = jnp.arange(3.0)
for _ in range(3):
    lax.scan(f, 0.0, xs)
n['same'] = n['f']
lax.scan(f, 0.0, jnp.arange(4.0))          # a new length: the body sees the same avals
n['new_length'] = n['f']
lax.scan(f, 0.0, jnp.arange(4, dtype=jnp.int32))
n['new_dtype'] = n['f']
lax.scan(f, jnp.float32(0.0), jnp.arange(4.0))
n['strong_init'] = n['f']
lax.scan(f, 0.0, xs, reverse=True)
lax.scan(f, 0.0, xs, unroll=2)
n['reverse_unroll'] = n['f']
""",
    "scan_keeps_closed_over_values": """
w = [1.0]
def f(c, x):
    n['f'] += 1
    return c + w[0] * x, None
xs = jnp.arange(3.0)
n['first'] = int(lax.scan(f, 0.0, xs)[0])
w[0] = 2.0
n['second'] = int(lax.scan(f, 0.0, xs)[0])
""",
    "while_loop": """
def body(c):
    n['body'] += 1
    return c + 1
def cond(c):
    n['cond'] += 1
    return c < 10
for _ in range(3):
    lax.while_loop(cond, body, 0)
lax.while_loop(cond, body, 0.0)
""",
    "fori_loop": """
def body(i, c):
    n['body'] += 1
    return c + i
for _ in range(3):
    lax.fori_loop(0, 5, body, 0.0)
n['static'] = n['body']
for k in range(3):
    lax.fori_loop(0, k + 5, body, 0.0)
n['static_new_bounds'] = n['body']
for k in range(3):
    lax.fori_loop(0, jnp.int32(k + 5), body, 0.0)
n['concrete_array_bound'] = n['body']
""",
    "cond_switch": """
def t(x):
    n['t'] += 1
    return x * 2
def e(x):
    n['e'] += 1
    return x * 3
for p in [True, False, True]:
    lax.cond(p, t, e, 1.0)
n['cond_same'] = n['t']
lax.cond(True, t, e, jnp.ones(2))
n['cond_new_shape'] = n['t']
for i in range(3):
    lax.switch(i, [t, e, e], 1.0)
n['switch'] = n['t']
for i in range(3):
    lax.switch(i, [t, e], 1.0)
n['switch_other_list'] = n['t']
""",
    "clear_caches": """
def f(c, x):
    n['f'] += 1
    return c + x, c
xs = jnp.arange(3.0)
lax.scan(f, 0.0, xs)
lax.scan(f, 0.0, xs)
jax.clear_caches()
lax.scan(f, 0.0, xs)
""",
    "jit_clear_caches": """
@jax.jit
def f(x):
    n['f'] += 1
    return jnp.sin(x) * 2
f(1.0)
f(2.0)
n['jit'] = n['f']
jax.clear_caches()
f(3.0)
n['jit_after_clear'] = n['f']
g = jax.vmap(f)
g(jnp.ones(3))
g(jnp.ones(3))
n['vmap'] = n['f']
jax.clear_caches()
g(jnp.ones(3))
n['vmap_after_clear'] = n['f']
jax.grad(f)(1.0)
jax.grad(f)(1.0)
n['grad'] = n['f']
jax.clear_caches()
jax.grad(f)(1.0)
n['grad_after_clear'] = n['f']
""",
}


def env():
    return dict(jax=jax, jnp=jnp, np=np, lax=lax)


def encode(v):
    if v is None:
        return {"none": True}
    if isinstance(v, dict):
        return {"dict": {k: encode(a) for k, a in v.items()}}
    if isinstance(v, (tuple, list)):
        return {"tuple": [encode(a) for a in v]}
    a = np.asarray(v)
    return {"type": type(v).__name__ if not hasattr(v, "weak_type") else "Array",
            "dtype": a.dtype.name, "shape": list(a.shape),
            "weak_type": bool(getattr(v, "weak_type", False)), "value": a.tolist()}


def record_case(expr):
    try:
        return {"result": encode(eval(expr, env()))}
    except Exception as e:  # noqa: BLE001  (the class is what we record)
        return {"error": type(e).__name__}


def record_traces(code):
    n = {}

    class Counter(dict):
        def __missing__(self, key):
            return 0
    n = Counter()
    exec(code, {**env(), "n": n})
    return dict(n)


def main():
    assert jax.__version__ == "0.10.2", jax.__version__
    cases = {expr: record_case(expr) for expr in CASES}
    traces = {name: {"code": code, "counts": record_traces(code)} for name, code in TRACES.items()}
    path = pathlib.Path(__file__).with_name("control_flow.json")
    path.write_text(json.dumps({"jax_version": jax.__version__, "cases": cases, "traces": traces},
                               indent=1) + "\n")
    print(f"wrote {len(cases)} cases and {len(traces)} trace scenarios to {path}")


if __name__ == "__main__":
    main()
