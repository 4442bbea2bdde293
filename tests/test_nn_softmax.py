"""nn.softmax / nn.log_softmax with `where=`: against NumPy references (masked-out elements take
no part and come out as 0 / -inf), under jit and vmap, and gradients by finite differences."""
import numpy as np
import pytest

import pyjax
import pyjax.numpy as jnp
from pyjax import nn
from pyjax._src.public_test_util import check_grads_refined as check_grads

rng = np.random.default_rng(0)
X = rng.normal(size=(3, 4)).astype(np.float32) * 3
MASK = rng.random(size=(3, 4)) < 0.6
MASK[1] = False  # a row with nothing to normalize over
MASK[2, 0] = True


def np_log_softmax(x, axis, where):
    x = np.asarray(x, np.float64)
    where = np.broadcast_to(True if where is None else where, x.shape)
    masked = np.where(where, x, -np.inf)
    top = np.max(masked, axis=axis, keepdims=True)
    top = np.where(np.isfinite(top), top, 0.0)
    with np.errstate(divide="ignore"):
        lse = np.log(np.sum(np.exp(masked - top), axis=axis, keepdims=True)) + top
    return np.where(where, x - lse, -np.inf)


def np_softmax(x, axis, where):
    out = np.exp(np_log_softmax(x, axis, where))
    return np.where(np.broadcast_to(True if where is None else where, np.shape(x)), out, 0.0)


CASES = [(-1, None), (-1, MASK), (0, MASK), (None, MASK), ((0, 1), MASK), (1, MASK[2]),
         (-1, np.array([True, False, True, True]))]


@pytest.mark.parametrize("axis,where", CASES, ids=[f"axis={a},where{np.shape(w)}" for a, w in CASES])
@pytest.mark.parametrize("fn,ref", [(nn.softmax, np_softmax), (nn.log_softmax, np_log_softmax)],
                         ids=["softmax", "log_softmax"])
def test_matches_numpy(fn, ref, axis, where):
    expected = ref(X, axis, where)
    out = fn(jnp.asarray(X), axis=axis, where=where)
    assert out.dtype == np.float32 and out.shape == X.shape
    np.testing.assert_allclose(np.asarray(out), expected, rtol=1e-5, atol=1e-6)
    jitted = pyjax.jit(lambda x, w: fn(x, axis=axis, where=w))(X, where)
    np.testing.assert_allclose(np.asarray(jitted), expected, rtol=1e-5, atol=1e-6)


def test_fully_masked_rows_are_zero_and_minus_inf():
    assert np.all(np.asarray(nn.softmax(X, where=MASK))[1] == 0.0)
    assert np.all(np.asarray(nn.log_softmax(X, where=MASK))[1] == -np.inf)


def test_vmap_over_rows_and_masks():
    out = pyjax.vmap(lambda x, w: nn.softmax(x, where=w))(X, MASK)
    np.testing.assert_allclose(np.asarray(out), np_softmax(X, -1, MASK), rtol=1e-5, atol=1e-6)


def test_gradients_with_where():
    check_grads(lambda x: nn.softmax(x, where=MASK), (X,), order=2, modes=("fwd", "rev"))
    # log_softmax is -inf where masked: differentiate the finite part
    check_grads(lambda x: jnp.where(MASK, nn.log_softmax(x, axis=0, where=MASK), 0.0), (X,), order=2,
                modes=("fwd", "rev"))
    g = pyjax.grad(lambda x: nn.softmax(x, where=MASK)[0].sum())(X)
    assert np.all(np.asarray(g)[~MASK] == 0.0)  # masked elements do not influence the result


def test_signature_as_jax():
    # JAX 0.10.2's public softmax takes no `initial` (its internal one is -inf) and a boolean where
    with pytest.raises(TypeError):
        nn.softmax(X, initial=0.0)
    with pytest.raises(ValueError, match="where"):
        nn.softmax(X, where=np.array([1, 0, 1, 1]))
    with pytest.raises(TypeError):
        nn.log_softmax([1.0, 2.0])
