"""jax.custom_batching (issue 23): custom_vmap's rule under vmap, jvp, vmap-of-jvp and jit, its
errors, and sequential_vmap. Values recorded from JAX 0.10.2 running the same code."""
import numpy as np
import pytest

import pyjax
import pyjax.numpy as jnp
from pyjax.custom_batching import custom_vmap, sequential_vmap


@custom_vmap
def f(x, y):
    return jnp.sin(x) * y


@f.def_vmap
def _rule(axis_size, in_batched, x, y):
    assert type(in_batched) is list  # (as JAX's rules get it)
    xb, yb = in_batched
    return jnp.cos(x) * y, xb or yb


X, Y = jnp.arange(3.), jnp.float32(2.)
RULE = [2.0, 1.0806046, -0.8322937]  # the rule's values (cos, not sin)


def test_custom_vmap_uses_the_rule_under_vmap_only():
    assert float(f(X[0], Y)) == 0.0
    np.testing.assert_allclose(pyjax.vmap(f, (0, None))(X, Y), RULE, rtol=1e-6)
    np.testing.assert_allclose(pyjax.jit(pyjax.vmap(f, (0, None)))(X, Y), RULE, rtol=1e-6)


def test_custom_vmap_jvp_and_vmap_of_jvp():
    p, t = pyjax.jvp(f, (X[1], Y), (1.0, 0.0))
    np.testing.assert_allclose((p, t), (1.6829419, 1.0806046), rtol=1e-6)
    for p, t in [pyjax.vmap(lambda a: pyjax.jvp(f, (a, Y), (1.0, 0.0)))(X),
                 pyjax.jvp(pyjax.vmap(f, (0, None)), (X, Y), (jnp.ones(3), 0.0))]:
        np.testing.assert_allclose(p, RULE, rtol=1e-6)
        np.testing.assert_allclose(t, [0.0, -1.6829419, -1.8185948], rtol=1e-6)


def test_custom_vmap_errors_as_jax():
    with pytest.raises(ValueError, match="Linearization failed"):  # (JAX: no reverse mode either)
        pyjax.grad(f)(1.0, 2.0)
    with pytest.raises(AttributeError, match="No batching rule defined for custom_vmap function"):
        custom_vmap(lambda x: x)(1.0)

    @custom_vmap
    def g(x):
        return x
    g.def_vmap(lambda n, b, x: ([x], b))
    with pytest.raises(ValueError, match="structure of output returned by custom vmap rule"):
        pyjax.vmap(g)(X)
    assert "custom_vmap_call" in str(pyjax.make_jaxpr(f)(1.0, 2.0))


def test_sequential_vmap_maps_a_loop_over_the_batched_arguments():
    g = sequential_vmap(lambda a, b: {"s": a + b["k"]})
    out = pyjax.vmap(g, (0, None))(X, {"k": Y})
    assert out["s"].tolist() == [2.0, 3.0, 4.0]
    assert "scan" in str(pyjax.make_jaxpr(pyjax.vmap(g, (0, None)))(X, {"k": Y}))


class _Named:
    """A container with named axes (JAX's batching_test NamedArray): a pytree, and vmappable."""

    def __init__(self, names, data):
        self.names, self.data = list(names), data


class _NamedSpec:
    def __init__(self, name, axis):
        self.name, self.axis = name, axis


pyjax.tree_util.register_pytree_node(_Named, lambda x: ((x.data,), x.names),
                                     lambda names, xs: _Named(names, xs[0]))


def _named_to_elt(cont, _, val, spec):
    if spec.name is None:
        return val
    names = list(val.names)
    assert names.pop(spec.axis) == spec.name
    return _Named(names, cont(val.data, spec.axis))


def _named_from_elt(cont, size, elt, spec):
    data = cont(size, elt.data, spec.axis)
    return _Named(elt.names if spec.axis is None
                  else elt.names[:spec.axis] + [spec.name] + elt.names[spec.axis:], data)


@pytest.mark.parametrize("jit", [False, True])
def test_vmappable_containers(jit):
    """Issue 23 (JAX's batching_test VmappableTest): register_vmappable types are mapped by their
    to_elt/from_elt rules, with specs of the registered spec type as in_axes/out_axes."""
    from pyjax._src.interpreters import batching  # (jax.interpreters.batching under the switch)
    before = dict(batching.vmappables), set(batching.spec_types)  # (BCOO/BCSR register too)
    batching.register_vmappable(_Named, _NamedSpec, int, _named_to_elt, _named_from_elt, None)
    try:
        f = lambda x: _Named(x.names, x.data * x.data)
        g = pyjax.vmap(pyjax.jit(f) if jit else f, in_axes=_NamedSpec("i", 0),
                       out_axes=_NamedSpec("i", 1), axis_size=3)
        out = g(_Named(["i", "j"], jnp.arange(12.).reshape(3, 4)))
        assert out.names == ["j", "i"]
        np.testing.assert_allclose(out.data, (np.arange(12.).reshape(3, 4) ** 2).T)

        class A:
            def __init__(self, data):
                self.data = data

        batching.register_vmappable(A, int, int, lambda cont, _, val, spec: cont(val.data + 1, spec),
                                    None, None)
        np.testing.assert_allclose(pyjax.vmap(lambda x: x - 1, axis_size=3)(A(jnp.arange(3.))),
                                   np.arange(3.))
        batching.unregister_vmappable(A)
    finally:
        batching.unregister_vmappable(_Named)
    assert (batching.vmappables, batching.spec_types) == before
