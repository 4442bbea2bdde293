"""Programs using named_scope / named_call, run on JAX 0.10.2 (tests/data/record_name_stack.py)
and on pyjax (tests/test_name_stack.py): the name stack of each top-level equation and the
named locations of the lowered module (`as_text(debug_info=True)`) must agree.

Never imports jax: `cases(jax, jnp)` builds the programs from the library it is given.
"""
import re


def cases(jax, jnp):
    def scopes(x):
        with jax.named_scope("outer"):
            y = jnp.sin(x)
            with jax.named_scope("inner"):
                y = y * 2
        z = jax.named_call(lambda a: jnp.cos(a), name="mycall")(y)
        return z + 1

    def default_name(x):
        def layer(a):
            return jnp.tanh(a)
        return jax.named_call(layer)(x)

    def decorated(x):
        @jax.named_scope("block")
        def block(a):
            return jnp.exp(a)
        return block(x) - 1

    def summed(x):
        with jax.named_scope("outer"):
            y = jnp.sin(x)
            with jax.named_scope("inner"):
                y = y * 2
        return jnp.sum(y)

    vec, mat = jnp.ones(3), jnp.ones((2, 3))
    return {"scopes": (scopes, 1.0), "default_name": (default_name, 1.0),
            "decorated": (decorated, 1.0),
            # transformations wrap the scopes: jvp(outer), transpose(jvp(outer)), vmap(...)
            "grad": (jax.grad(summed), vec), "vmap": (jax.vmap(summed), mat),
            "vmap_grad": (jax.vmap(jax.grad(summed)), mat)}


def eqn_stacks(jax, fun, x):
    return [[str(e.primitive), str(e.source_info.name_stack)]
            for e in jax.make_jaxpr(fun)(x).jaxpr.eqns]


_LOC = re.compile(r'loc\("(jit\([^"]*\)/[^"]*)"')


def location_names(jax, fun, x):
    """The op names of the module's locations, e.g. 'jit(scopes)/outer/sin'."""
    text = jax.jit(fun).lower(x).as_text(debug_info=True)
    return sorted(set(_LOC.findall(text)))
