"""How many times each API runs the Python body of a user function (JAX's docs teach tracing by
printing from inside functions, so users see this count).

Shared by `test_call_counts.py` (pyjax) and `data/record_call_counts.py` (JAX 0.10.2). `PRELUDE`
runs with `jax`, `jnp`, `lax` bound; each case is a statement run with a fresh `f` (and `fv`)
whose body increments `n[0]`.
"""

PRELUDE = '''
n = [0]

def fresh(kind="f"):
    def f(x):
        n[0] += 1
        return jnp.sin(x) * 2.0 if kind == "f" else jnp.sin(x) * x
    return f

def s(g):
    return lambda x: jnp.sum(g(x))

x = jnp.arange(3.0)
'''

CASES = {
    "grad": "jax.grad(s(f))(x)",
    "value_and_grad": "jax.value_and_grad(s(f))(x)",
    "jvp": "jax.jvp(f, (x,), (x,))",
    "vjp": "jax.vjp(f, x)[1](x)",
    "linearize": "jax.linearize(f, x)[1](x)",
    "jacfwd": "jax.jacfwd(fv)(x)",
    "jacrev": "jax.jacrev(fv)(x)",
    "hessian": "jax.hessian(s(fv))(x)",
    "vmap": "jax.vmap(f)(x)",
    "jit_two_wrappers": "jax.jit(f)(x); jax.jit(f)(x)",
    "jit_new_values": "g = jax.jit(f); g(x); g(x + 1)",
    "jit_new_shape": "g = jax.jit(f); g(x); g(jnp.ones(2))",
    "make_jaxpr": "jax.make_jaxpr(f)(x)",
    "make_jaxpr_twice": "jax.make_jaxpr(f)(x); jax.make_jaxpr(f)(x)",
    "eval_shape": "jax.eval_shape(f, x)",
    "jit_then_make_jaxpr": "jax.jit(f)(x); jax.make_jaxpr(f)(x)",
    "checkpoint": "jax.checkpoint(f)(x)",
    "grad_checkpoint": "jax.grad(s(jax.checkpoint(f)))(x)",
    "scan": "lax.scan(lambda c, a: (f(c), None), x, None, length=3)",
    "scan_twice": "b = lambda c, a: (f(c), None); lax.scan(b, x, None, length=3); lax.scan(b, x, None, length=3)",
    "grad_scan": "jax.grad(lambda x: jnp.sum(lax.scan(lambda c, a: (f(c), None), x, None, length=3)[0]))(x)",
    "fori": "lax.fori_loop(0, 3, lambda i, c: f(c), x)",
    "while": "lax.while_loop(lambda c: c[1] < 3, lambda c: (f(c[0]), c[1] + 1), (x, 0))",
    "cond": "lax.cond(True, f, lambda v: v, x)",
    "cond_twice": "lax.cond(True, f, jnp.cos, x); lax.cond(False, f, jnp.cos, x)",
    "grad_cond": "jax.grad(lambda x: jnp.sum(lax.cond(True, f, lambda v: v, x)))(x)",
    "vmap_grad": "jax.vmap(jax.grad(s(f)))(jnp.ones((2, 3)))",
    "jit_grad": "jax.jit(jax.grad(s(f)))(x)",
    "grad_jit_twice": "g = jax.jit(f); jax.grad(s(g))(x); jax.grad(s(g))(x)",
    "map": "lax.map(f, jnp.ones((2, 3)))",
}
