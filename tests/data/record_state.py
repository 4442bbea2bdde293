"""Record JAX 0.10.2's behaviour with mutable refs (`jax.new_ref`): Refs given to or closed over
by `jit` (values, the value written back, printed jaxprs, errors), vmap over Refs (batched refs,
batched indices, writes into unbatched refs) and differentiation through refs.

Run with the reference JAX environment (never needed by the tests):

    /root/scratch/jaxref/bin/python tests/data/record_state.py

It writes tests/data/state.json, which tests/test_state.py replays with pyjax. Each case is a
source snippet run with `jax`, `jnp`, `lax` and `np` in scope (and the PRELUDE's functions); it
leaves its value in `result` (Refs are read with `jax.freeze`).
"""
import json
import os
import sys

PRELUDE = '''
def add_then_bump(r, x):
    r[...] = r[...] + x
    r[0] += 1.0
    return r[1] * 2

def plain(r, x):
    r[...] = r[...] + x
    return r[1] * 2

def double_rows(r):
    r[...] = r[...] * 2
    return r[0]

def write_at(r, i):
    a = r[i]
    r[i] = a * 10
    return a

def set_and_add(r, x):
    r[0] = x
    r[1] += x
    return r[...]

def running_sum(r, x):
    def body(i, c):
        r[i] = c + x[i]
        return c + x[i]
    return lax.fori_loop(0, x.shape[0], body, 0.0)
'''

CASES = [
    # -- a Ref passed into jit: read, written, written back after the call
    ("jit_arg", """
r = jax.new_ref(jnp.arange(3.0))
f = jax.jit(add_then_bump)
a = f(r, jnp.ones(3))
b = f(r, jnp.full(3, 2.0))
result = (a, b, jax.freeze(r))
"""),
    ("jit_closed_over", """
c = jax.new_ref(jnp.arange(3.0))
@jax.jit
def h(x):
    c[...] += x
    return c[...].sum()
result = (h(1.0), h(2.0), jax.freeze(c))
"""),
    ("jit_pytree_of_refs", """
d = {"a": jax.new_ref(jnp.ones(2)), "b": jnp.ones(2), "n": jax.new_ref(jnp.zeros((), jnp.int32))}
@jax.jit
def k(d):
    d["a"][...] = d["a"][...] * 3 + d["b"]
    d["n"][...] += 1
    return d["b"] * 2
out = k(d)
k(d)
result = (out, jax.freeze(d["a"]), jax.freeze(d["n"]))
"""),
    ("jit_new_ref_shape_retraces", """
a = jax.new_ref(jnp.zeros(2)); b = jax.new_ref(jnp.zeros(4))
f = jax.jit(plain)
result = (f(a, jnp.ones(2)), f(b, jnp.arange(4.0)), f(a, jnp.ones(2)), jax.freeze(a), jax.freeze(b))
"""),
    ("jit_nested_jit_with_ref", """
r = jax.new_ref(jnp.arange(3.0))
inner = jax.jit(add_then_bump)
@jax.jit
def outer(r, x):
    return inner(r, x) + inner(r, 2 * x)
result = (outer(r, jnp.ones(3)), jax.freeze(r))
"""),
    ("jit_fori_loop_on_arg_ref", """
r = jax.new_ref(jnp.zeros(4))
out = jax.jit(running_sum)(r, jnp.arange(1.0, 5.0))
result = (out, jax.freeze(r))
"""),
    ("jit_fori_loop_on_closed_ref", """
r = jax.new_ref(jnp.zeros(4))
out = jax.jit(lambda x: running_sum(r, x))(jnp.arange(1.0, 5.0))
result = (out, jax.freeze(r))
"""),
    ("jit_cond_and_scan_on_ref", """
r = jax.new_ref(jnp.arange(4.0))
@jax.jit
def f(r, p):
    lax.cond(p > 0, lambda: r.__setitem__(0, -r[0] - 1), lambda: r.__setitem__(1, 7.0))
    def body(c, x):
        r[...] += x
        return c + r[0], None
    return lax.scan(body, 0.0, jnp.ones((3, 4)))[0]
a = f(r, 1)
b = f(r, 0)
result = (a, b, jax.freeze(r))
"""),
    ("jit_same_ref_twice", """
r = jax.new_ref(jnp.zeros(3))
result = jax.jit(lambda a, b: a[...].sum() + b[...].sum())(r, r)
"""),
    ("jit_ref_passed_and_closed_over", """
r = jax.new_ref(jnp.zeros(3))
result = jax.jit(lambda a: a[...].sum() + r[...].sum())(r)
"""),
    ("jit_returns_arg_ref", """
r = jax.new_ref(jnp.zeros(3))
result = jax.jit(lambda r: r)(r)
"""),
    ("jit_returns_closed_ref", """
r = jax.new_ref(jnp.zeros(3))
result = jax.jit(lambda: r)()
"""),
    ("jit_write_wrong_dtype", """
r = jax.new_ref(jnp.zeros(2))
result = jax.jit(lambda r: r.__setitem__(..., jnp.ones(2, jnp.int32)))(r)
"""),
    ("jit_write_wrong_shape", """
r = jax.new_ref(jnp.zeros(2))
result = jax.jit(lambda r: r.__setitem__(..., jnp.ones(3)))(r)
"""),
    ("eager_too_many_indices", """
r = jax.new_ref(jnp.zeros(3))
result = r[0, 0]
"""),
    # -- printed jaxprs
    ("make_jaxpr_of_jit_taking_ref", """
result = str(jax.make_jaxpr(jax.jit(add_then_bump))(jax.new_ref(jnp.zeros(3)), jnp.ones(3)))
"""),
    ("make_jaxpr_of_jit_closing_over_ref", """
c = jax.new_ref(jnp.arange(3.0))
@jax.jit
def h(x):
    c[...] += x
    return c[...].sum()
result = str(jax.make_jaxpr(h)(1.0))
"""),
    ("make_jaxpr_taking_ref", """
result = str(jax.make_jaxpr(plain)(jax.new_ref(jnp.zeros(3)), jnp.ones(3)))
"""),
    ("make_jaxpr_of_vmap_over_ref", """
result = str(jax.make_jaxpr(jax.vmap(double_rows))(jax.new_ref(jnp.zeros((2, 3)))))
"""),
    # -- vmap over refs
    ("vmap_batched_ref", """
r = jax.new_ref(jnp.arange(6.0).reshape(2, 3))
result = (jax.vmap(double_rows)(r), jax.freeze(r))
"""),
    ("jit_vmap_batched_ref", """
r = jax.new_ref(jnp.arange(6.0).reshape(2, 3))
result = (jax.jit(jax.vmap(double_rows))(r), jax.freeze(r))
"""),
    ("jit_vmap_batched_ref_axis1", """
r = jax.new_ref(jnp.arange(6.0).reshape(2, 3))
result = (jax.jit(jax.vmap(double_rows, in_axes=1))(r), jax.freeze(r))
"""),
    ("vmap_batched_ref_and_index", """
r = jax.new_ref(jnp.arange(12.0).reshape(3, 4))
result = (jax.vmap(write_at)(r, jnp.array([0, 1, 3])), jax.freeze(r))
"""),
    ("vmap_batched_ref_axis1_and_index", """
r = jax.new_ref(jnp.arange(12.0).reshape(3, 4))
result = (jax.jit(jax.vmap(write_at, in_axes=(1, 0)))(r, jnp.array([0, 1, 2, 0])), jax.freeze(r))
"""),
    ("vmap_unbatched_ref_batched_index_read", """
r = jax.new_ref(jnp.arange(12.0).reshape(3, 4))
result = jax.vmap(lambda i: r[i])(jnp.array([0, 2]))
"""),
    ("vmap_batched_ref_unbatched_value", """
r = jax.new_ref(jnp.zeros((4, 3)))
result = (jax.jit(jax.vmap(set_and_add, in_axes=(0, None)))(r, 2.0), jax.freeze(r))
"""),
    ("vmap_advanced_index_batched_ref", """
r = jax.new_ref(jnp.arange(120.0).reshape(2, 3, 4, 5))
def g(r):
    a = r[:, jnp.array([0, 2]), jnp.array([1, 3])]
    r[:, jnp.array([0, 2]), jnp.array([1, 3])] = -a
    b = r[jnp.array([1, 0]), :, 2]
    return a, b
out = jax.vmap(g, in_axes=2)(r)
result = (out, jax.freeze(r))
"""),
    ("vmap_loop_over_batched_ref", """
r = jax.new_ref(jnp.zeros((2, 4)))
out = jax.vmap(running_sum)(r, jnp.arange(8.0).reshape(2, 4))
result = (out, jax.freeze(r))
"""),
    ("vmap_write_batched_value_into_unbatched_ref", """
r = jax.new_ref(jnp.zeros(3))
result = jax.jit(jax.vmap(set_and_add, in_axes=(None, 0)))(r, jnp.ones(4))
"""),
    ("vmap_eager_write_into_outer_ref", """
r = jax.new_ref(jnp.zeros(3))
result = jax.vmap(lambda v: (r.__setitem__(0, v), v)[1])(jnp.ones(2))
"""),
    ("vmap_addupdate_into_outer_ref", """
r = jax.new_ref(jnp.zeros(3))
result = jax.vmap(lambda v: jax.ref.addupdate(r, 0, v))(jnp.ones(2))
"""),
    ("vmap_read_outer_ref", """
r = jax.new_ref(jnp.arange(3.0))
result = jax.vmap(lambda v: r[0] + r[2] * v)(jnp.arange(2.0))
"""),
    ("vmap_jit_closed_ref_batched_write", """
r = jax.new_ref(jnp.zeros(3))
result = jax.vmap(jax.jit(lambda x: (r.__setitem__(0, x), r[...].sum())[1]))(jnp.ones(2))
"""),
    # -- differentiation
    ("jvp_inside_jit_writes_outer_ref", """
r = jax.new_ref(jnp.zeros(3))
def k(r, x):
    return jax.jvp(lambda x: (r.__setitem__(..., x * 2), r[...] ** 2)[1], (x,), (jnp.ones(3),))
result = jax.jit(k)(r, jnp.arange(3.0))
"""),
    ("jvp_inside_jit_reads_outer_ref", """
r = jax.new_ref(jnp.arange(3.0))
def k(r, x):
    return jax.jvp(lambda x: r[...] * x, (x,), (jnp.ones(3),))
result = jax.jit(k)(r, jnp.arange(3.0))
"""),
    ("jvp_of_jit_taking_a_new_ref", """
result = jax.jvp(lambda x: jax.jit(set_and_add)(jax.new_ref(jnp.zeros(3)), x), (1.0,), (1.0,))
"""),
    ("grad_through_new_ref", """
def loss(x):
    r = jax.new_ref(jnp.zeros_like(x))
    r[...] = jnp.sin(x)
    r[1:] += r[:-1] * x[1:]
    return (r[...] ** 2).sum()
result = (jax.grad(loss)(jnp.arange(3.0)), jax.jit(jax.grad(loss))(jnp.arange(3.0)))
"""),
    ("grad_through_jit_taking_a_new_ref", """
def loss(x):
    r = jax.new_ref(jnp.zeros_like(x))
    out = jax.jit(running_sum)(r, x)
    return out * (r[...] ** 2).sum()
result = jax.grad(loss)(jnp.arange(1.0, 4.0))
"""),
    ("grad_jit_closed_ref_written", """
r = jax.new_ref(jnp.zeros(3))
result = jax.grad(lambda x: jax.jit(lambda x: (r.__setitem__(0, x), r[...].sum())[1])(x))(1.0)
"""),
    ("grad_jit_writes_constant_to_outer_ref", """
r = jax.new_ref(jnp.zeros(3))
g = jax.grad(lambda x: jax.jit(lambda x: (r.__setitem__(0, 1.0), r[...].sum() * x)[1])(x))(2.0)
result = (g, jax.freeze(r))
"""),
    ("vmap_jit_writes_constant_to_outer_ref", """
r = jax.new_ref(jnp.zeros(3))
out = jax.vmap(jax.jit(lambda x: (r.__setitem__(0, 1.0), r[...].sum() * x)[1]))(jnp.ones(2))
result = (out, jax.freeze(r))
"""),
    ("grad_eager_write_outer_ref", """
r = jax.new_ref(jnp.zeros(3))
result = jax.grad(lambda v: (r.__setitem__(0, v), v)[1])(1.0)
"""),
    ("grad_jit_closed_ref_read", """
r = jax.new_ref(jnp.arange(3.0))
result = jax.grad(lambda x: jax.jit(lambda x: (r[...] * x).sum())(x))(2.0)
"""),
    # a view of a ref (`ref.at[...]`) given to jit or remat reads and writes that window
    ("jit_reads_view_of_new_ref", """
def f():
    r = jax.new_ref(jnp.arange(10.0))
    return jax.jit(lambda v: v[...] * 2)(r.at[2:7])
result = jax.jit(f)()
"""),
    ("jit_writes_view_of_new_ref", """
def f():
    r = jax.new_ref(jnp.zeros((3, 4)))
    def inner(v):
        v[...] += 5.0
        v[0] = jnp.arange(2.0)
    jax.jit(inner)(r.at[1:, 1:3])
    return r[...]
result = jax.jit(f)()
"""),
    ("remat_updates_view_of_new_ref", """
def f(x):
    r = jax.new_ref(jnp.zeros(6))
    jax.remat(lambda v: v.__setitem__(Ellipsis, v[...] + x))(r.at[::2])
    return r[...]
result = jax.jit(f)(3.0)
"""),
    ("vmap_of_a_view_is_refused", """
def f():
    r = jax.new_ref(jnp.zeros(7))
    def inner(x_ref_view):
        x_ref_view[...] += 1.0
    jax.vmap(inner)(r.at[1:6])
    return r[...]
result = jax.jit(f)()
"""),
    ("jit_view_of_view", """
def f():
    r = jax.new_ref(jnp.arange(12.0).reshape(3, 4))
    jax.jit(lambda v: v.__setitem__(1, -1.0))(r.at[1].at[1:])
    return r[...]
result = jax.jit(f)()
"""),
]


def run_case(src, ns, encode):
    scope = dict(ns)
    try:
        exec(src, scope)
        return encode(scope["result"])
    except Exception as e:  # noqa: BLE001 (the class and message are the result)
        return {"error": type(e).__name__, "message": str(e)}


def main():
    import jax
    import jax.numpy as jnp
    import numpy as np
    from jax import lax
    sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    from recorded_cases import encode

    ns = {"jax": jax, "jnp": jnp, "lax": lax, "np": np}
    exec(PRELUDE, ns)
    out = {"jax_version": jax.__version__,
           "cases": {cid: run_case(src, ns, encode) for cid, src in CASES}}
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "state.json")
    with open(path, "w") as f:
        json.dump(out, f, indent=1, sort_keys=True)
    print(f"wrote {len(out['cases'])} state cases to {path}")


if __name__ == "__main__":
    main()
