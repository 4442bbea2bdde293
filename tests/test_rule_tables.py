"""JAX's rule tables as views of the rules on each primitive (issue 9, part 2b).

Primitives are defined here the way equinox defines its own at import: a `Primitive` with an impl
and an abstract eval, and then `ad.primitive_jvps[p] = ...`, `ad.primitive_transposes[p] = ...`,
`batching.primitive_batchers[p] = ...` (JAX's batcher signature) and
`register_lowering(p, lower_fun(...))`. They are then used under jit, grad and vmap and checked
against NumPy and finite differences."""
import numpy as np
import pytest

import pyjax
import pyjax.numpy as jnp
from pyjax import lax
from pyjax._src.core import Primitive
from pyjax._src.interpreters import ad, batching
from pyjax._src.lax.parallel import psum_p
from pyjax._src.lowering.lower import lower_fun, register_lowering
from pyjax._src.pjit import pjit_p
from pyjax.test_util import check_grads

# -- the primitives, registered as equinox does ---------------------------------------------------

# my_sin: nonlinear, jvp through the table
my_sin_p = Primitive("my_sin")
my_sin_p.def_impl(lambda x: jnp.sin(x))
my_sin_p.def_abstract_eval(lambda x: x)


def _my_sin_jvp(primals, tangents):
    (x,), (t,) = primals, tangents
    return my_sin_p.bind(x), t * jnp.cos(x)


def _elementwise_batcher(prim):
    def batcher(batched_args, batch_dims, **params):
        (x,), (d,) = batched_args, batch_dims
        return prim.bind(x, **params), d
    return batcher


ad.primitive_jvps[my_sin_p] = _my_sin_jvp
batching.primitive_batchers[my_sin_p] = _elementwise_batcher(my_sin_p)
register_lowering(my_sin_p, lower_fun(lambda x: jnp.sin(x), multiple_results=False))

# scale: linear in x, so a jvp and a transpose
scale_p = Primitive("scale")
scale_p.def_impl(lambda x, *, c: x * c)
scale_p.def_abstract_eval(lambda x, *, c: x)
ad.primitive_jvps[scale_p] = lambda primals, tangents, *, c: (
    scale_p.bind(primals[0], c=c), scale_p.bind(tangents[0], c=c))
ad.primitive_transposes[scale_p] = lambda ct, x, *, c: [scale_p.bind(ct, c=c)]
batching.primitive_batchers[scale_p] = _elementwise_batcher(scale_p)
register_lowering(scale_p, lower_fun(lambda x, *, c: x * c, multiple_results=False))

# my_add: two operands; its batcher sees None for the unbatched one and moves axes itself
my_add_p = Primitive("my_add")
my_add_p.def_impl(lambda x, y: x + y)
my_add_p.def_abstract_eval(lambda x, y: x)
ad.primitive_jvps[my_add_p] = lambda primals, tangents: (
    my_add_p.bind(*primals), my_add_p.bind(*[ad.instantiate(t) for t in tangents]))
ad.primitive_transposes[my_add_p] = lambda ct, x, y: [ct, ct]
batch_calls = []


def _my_add_batcher(batched_args, batch_dims):
    batch_calls.append(tuple(batch_dims))
    size = next(x.shape[d] for x, d in zip(batched_args, batch_dims) if d is not None)
    x, y = [jnp.moveaxis(v, d, 0) if d is not None else jnp.broadcast_to(v, (size,) + v.shape)
            for v, d in zip(batched_args, batch_dims)]
    return my_add_p.bind(x, y), 0


batching.primitive_batchers[my_add_p] = _my_add_batcher
register_lowering(my_add_p, lower_fun(lambda x, y: x + y, multiple_results=False), platform="cpu")

# sincos: multiple results, as equinox's primitives are
sincos_p = Primitive("sincos", multiple_results=True)
sincos_p.def_impl(lambda x: [jnp.sin(x), jnp.cos(x)])
sincos_p.def_abstract_eval(lambda x: [x, x])


def _sincos_jvp(primals, tangents):
    (x,), (t,) = primals, tangents
    s, c = sincos_p.bind(x)
    return [s, c], [t * c, -t * s]


def _sincos_batcher(batched_args, batch_dims):
    (x,), (d,) = batched_args, batch_dims
    return sincos_p.bind(x), (d, d)


ad.primitive_jvps[sincos_p] = _sincos_jvp
batching.primitive_batchers[sincos_p] = _sincos_batcher
register_lowering(sincos_p, lower_fun(lambda x: [jnp.sin(x), jnp.cos(x)], multiple_results=True))

X = np.array([0.3, -1.2, 2.0], np.float32)
M = np.arange(6, dtype=np.float32).reshape(2, 3) / 4


def my_sin(x):
    return my_sin_p.bind(x)


def scale(x, c):
    return scale_p.bind(x, c=c)


def my_add(x, y):
    return my_add_p.bind(x, y)


def sincos(x):
    return sincos_p.bind(x)


# -- the tables are views of the rules on the primitive -------------------------------------------

def test_assignment_sets_the_rule_on_the_primitive():
    assert my_sin_p.jvp is _my_sin_jvp
    assert ad.primitive_jvps[my_sin_p] is _my_sin_jvp
    assert scale_p.transpose is ad.primitive_transposes[scale_p]
    # the batcher is stored adapted to pyjax's signature, and read back as written
    assert my_add_p.batch is not _my_add_batcher
    assert batching.primitive_batchers[my_add_p] is _my_add_batcher


def _primitive_of(f, *args):
    return pyjax.make_jaxpr(f)(*args).eqns[0].primitive


sin_p = _primitive_of(lax.sin, 1.0)
add_p = _primitive_of(lax.add, 1.0, 2.0)
transpose_p = _primitive_of(lambda x: lax.transpose(x, (1, 0)), M)


def test_rules_defined_on_primitives_are_in_the_tables():
    assert sin_p in ad.primitive_jvps
    assert ad.primitive_jvps[sin_p] is sin_p.jvp
    assert ad.primitive_transposes.get(sin_p) is None  # sin is not linear
    assert transpose_p in ad.primitive_transposes
    assert add_p in batching.primitive_batchers
    assert my_sin_p in list(ad.primitive_jvps)
    assert sin_p not in list(ad.primitive_transposes)


def test_missing_rules_and_other_keys():
    p = Primitive("bare")
    for table in (ad.primitive_jvps, ad.primitive_transposes, batching.primitive_batchers):
        assert p not in table and "bare" not in table and table.get(p) is None
        with pytest.raises(KeyError):
            table[p]
        with pytest.raises(KeyError):
            del table[p]
        with pytest.raises(TypeError, match="keys are Primitives"):
            table["bare"] = lambda *a, **k: None
        with pytest.raises(TypeError, match="must be callable"):
            table[p] = 1.0


def test_delete_removes_the_rule():
    p = Primitive("deleted")
    ad.primitive_transposes[p] = lambda ct, x: [ct]
    assert p.transpose is not None
    del ad.primitive_transposes[p]
    assert p.transpose is None and p not in ad.primitive_transposes


def test_axis_batch_rules_are_not_in_primitive_batchers():
    # collectives and pjit batch with the vmap's axis name: not rules of JAX's signature
    assert pjit_p.batch is not None and pjit_p not in batching.primitive_batchers
    assert psum_p.batch is not None and psum_p not in batching.primitive_batchers


def test_reading_a_pyjax_batcher_gives_jax_signature():
    rule = batching.primitive_batchers[add_p]
    x, y = np.arange(6.0, dtype=np.float32).reshape(3, 2), np.array([10.0, 20.0], np.float32)
    out, out_dim = rule([x.T, y], (1, None))  # x batched along axis 1, y unbatched
    np.testing.assert_allclose(np.moveaxis(np.asarray(out), out_dim, 0), x + y)
    out, out_dim = rule([x, x], (None, None))  # nothing batched: the primitive is just applied
    assert out_dim is None
    np.testing.assert_allclose(np.asarray(out), 2 * x)


def test_register_lowering_platforms():
    p = Primitive("platform_probe")
    p.def_abstract_eval(lambda x: x)
    register_lowering(p, lower_fun(lambda x: x + 1, multiple_results=False))

    def never(ctx, x):
        raise AssertionError("the cuda rule was used on cpu")
    register_lowering(p, never, platform="gpu")
    assert p.lowerings["cuda"] is not None and p.lowerings["rocm"] is not None
    np.testing.assert_allclose(pyjax.jit(p.bind)(X), X + 1)
    with pytest.raises(NotImplementedError, match="unknown platform tpuu. Known platforms are"):
        register_lowering(p, never, platform="tpuu")


# -- the primitives under jit, grad and vmap -------------------------------------------------------

def test_eager_and_jit():
    np.testing.assert_allclose(my_sin(X), np.sin(X), rtol=1e-6)
    np.testing.assert_allclose(pyjax.jit(my_sin)(X), np.sin(X), rtol=1e-6)
    np.testing.assert_allclose(pyjax.jit(lambda x: scale(x, 3.0))(X), 3 * X)
    np.testing.assert_allclose(pyjax.jit(my_add)(X, X), 2 * X)
    s, c = pyjax.jit(sincos)(X)
    np.testing.assert_allclose(s, np.sin(X), rtol=1e-6)
    np.testing.assert_allclose(c, np.cos(X), rtol=1e-6)
    assert "my_sin" in str(pyjax.make_jaxpr(my_sin)(X))


def test_grad_uses_the_table_rules():
    np.testing.assert_allclose(pyjax.grad(lambda x: my_sin(x).sum())(X), np.cos(X), rtol=1e-6)
    np.testing.assert_allclose(pyjax.grad(lambda x: scale(x, 3.0).sum())(X), np.full(3, 3.0))
    np.testing.assert_allclose(pyjax.jit(pyjax.grad(lambda x: (scale(x, -2.0) * x).sum()))(X),
                               -4 * X, rtol=1e-6)
    np.testing.assert_allclose(pyjax.grad(lambda x: sincos(x)[1].sum())(X), -np.sin(X), rtol=1e-6)


@pytest.mark.parametrize("f", [my_sin, lambda x: scale(x, 3.0), lambda x: my_add(x, jnp.sin(x)),
                               lambda x: sincos(x)[0] * sincos(x)[1]],
                         ids=["my_sin", "scale", "my_add", "sincos"])
def test_grads_against_finite_differences(f):
    check_grads(f, (X,), order=2, modes=("fwd", "rev"))


def test_vmap_uses_the_jax_signature_batcher():
    np.testing.assert_allclose(pyjax.vmap(my_sin, in_axes=1)(M), np.sin(M).T, rtol=1e-6)
    np.testing.assert_allclose(pyjax.vmap(lambda x: scale(x, 2.0))(M), 2 * M)
    batch_calls.clear()
    out = pyjax.vmap(my_add, in_axes=(1, None))(M, M[:, 0])
    assert batch_calls == [(1, None)]  # pyjax's not_mapped arrives as JAX's None
    np.testing.assert_allclose(out, M.T + M[:, 0])
    s, c = pyjax.vmap(sincos, in_axes=1, out_axes=1)(M)
    np.testing.assert_allclose(s, np.sin(M), rtol=1e-6)
    np.testing.assert_allclose(c, np.cos(M), rtol=1e-6)


def test_jit_of_vmap_of_grad():
    f = pyjax.jit(pyjax.vmap(pyjax.grad(lambda x: my_add(my_sin(x), scale(x, 2.0)))))
    np.testing.assert_allclose(f(X), np.cos(X) + 2, rtol=1e-6)
