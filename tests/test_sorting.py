"""Sorting and searching: lax.sort/sort_key_val/top_k/approx_max_k/approx_min_k and
jnp.sort/argsort/lexsort/partition/argpartition/sort_complex/searchsorted/digitize against JAX
0.10.2's recorded results (`data/record_sorting.py` → `data/sorting.json`: NaN, -0.0, infinities,
ties, complex, several keys, errors, gradients, jit and vmap), and against NumPy over dtypes
(stable argsort equality), with check_grads. The op-table rows (tests/op_table.py) cover the
primitives' NumPy references, jit, vmap and gradients."""
import json
import pathlib

import ml_dtypes
import numpy as np
import pytest

import pyjax
import pyjax.numpy as jnp
from pyjax import lax
from pyjax._src import test_util as jtu
from pyjax.test_util import check_grads

from recorded_cases import assert_matches, evaluate

RECORDED = json.loads((pathlib.Path(__file__).parent / "data" / "sorting.json").read_text())


def recorded_ns():
    ns = {"jax": pyjax, "jnp": jnp, "np": np, "lax": lax}
    exec(RECORDED["prelude"], ns)
    return ns


def assert_matches_jax(actual, expected, err_msg):
    """As `assert_matches`; NumPy's AxisError is the ValueError (and IndexError) JAX raises."""
    if actual.get("error") == "AxisError" and expected.get("error") in ("ValueError", "IndexError"):
        return
    assert_matches(actual, expected, rtol=1e-6, atol=1e-6, err_msg=err_msg)


@pytest.fixture(scope="module")
def ns():
    return recorded_ns()


@pytest.mark.parametrize("expr", list(RECORDED["groups"]["sorting"]))
def test_matches_jax(ns, expr):
    assert_matches_jax(evaluate(expr, ns), RECORDED["groups"]["sorting"][expr], expr)


# -- against NumPy over dtypes -------------------------------------------------------------------

DTYPES = [np.bool_, np.int8, np.uint8, np.int32, np.uint32, np.float16, ml_dtypes.bfloat16,
          np.float32, np.complex64]


def _sample(dtype, shape=(3, 17), seed=0):
    rs = np.random.RandomState(seed)
    if dtype == np.bool_:
        return rs.rand(*shape) < 0.5
    if np.dtype(dtype).kind in "iu":
        return rs.randint(0, 6, shape).astype(dtype)  # many ties
    x = rs.randint(-4, 5, shape).astype(np.float32) / 2  # ties, -0.0 below
    x.flat[::7] = -0.0
    if np.dtype(dtype).kind == "c":
        return (x + 1j * rs.randint(-1, 2, shape)).astype(dtype)
    x.flat[3::11] = np.nan
    x.flat[5::13] = np.inf
    return x.astype(dtype)


def _np_comparable(x):
    x = np.asarray(x)
    return x.astype(np.float32) if x.dtype == ml_dtypes.bfloat16 else x


@pytest.mark.parametrize("dtype", DTYPES, ids=lambda d: np.dtype(d).name)
def test_sort_and_stable_argsort_match_numpy(dtype):
    x = _sample(dtype)
    for axis in (-1, 0):
        want_idx = np.argsort(_np_comparable(x), axis=axis, kind="stable")
        np.testing.assert_array_equal(jnp.argsort(x, axis=axis), want_idx)
        np.testing.assert_array_equal(_np_comparable(jnp.sort(x, axis=axis)),
                                      np.sort(_np_comparable(x), axis=axis, kind="stable"))
    if np.dtype(dtype).kind != "c":  # descending and stable: ties keep their original order
        flat = _np_comparable(x).ravel()
        np.testing.assert_array_equal(jnp.argsort(x, axis=None, descending=True), _descending_stable(flat))


def _descending_stable(flat):
    """Indices sorting `flat` descending (NaN first, as the reverse of NaN-last), ties in order."""
    def key(i):
        v = flat[i]
        return (0, 0.0, i) if np.isnan(v) else (1, -float(v), i)
    return np.array(sorted(range(flat.size), key=key))


def test_lexsort_matches_numpy():
    rs = np.random.RandomState(1)
    keys = [rs.randint(0, 3, (4, 9)), rs.randint(0, 2, (4, 9)).astype(np.float32), rs.randint(0, 4, (4, 9))]
    for axis in (-1, 0):
        np.testing.assert_array_equal(jnp.lexsort(keys, axis=axis), np.lexsort(keys, axis=axis))


@pytest.mark.parametrize("method", ["scan", "scan_unrolled", "sort", "compare_all"])
@pytest.mark.parametrize("side", ["left", "right"])
def test_searchsorted_matches_numpy(method, side):
    rs = np.random.RandomState(2)
    a = np.sort(rs.randint(0, 10, 15).astype(np.float32))
    v = np.concatenate([rs.randint(-1, 12, (2, 6)).astype(np.float32) / 1.0,
                        np.array([[0.5, np.nan, -np.inf, np.inf, 9., -0.]], np.float32)])
    got = jnp.searchsorted(a, v, side=side, method=method)
    np.testing.assert_array_equal(got, np.searchsorted(a, v, side=side))
    assert got.dtype == np.int32
    jitted = pyjax.jit(lambda a, v: jnp.searchsorted(a, v, side=side, method=method))(a, v)
    np.testing.assert_array_equal(jitted, got)


def test_digitize_matches_numpy():
    x = np.array([-1., 0., 0.5, 1., 2.5, 4., 7.], np.float32)
    for bins in (np.array([0., 1., 2.5, 4.]), np.array([4., 2.5, 1., 0.])):
        for right in (False, True):
            np.testing.assert_array_equal(jnp.digitize(x, bins, right=right), np.digitize(x, bins, right=right))


@pytest.mark.parametrize("kth", [0, 3, -1])
def test_partition_is_a_partition(kth):
    x = np.random.RandomState(3).randn(4, 9).astype(np.float32)
    p = np.asarray(jnp.partition(x, kth))
    idx = np.asarray(jnp.argpartition(x, kth))
    k = kth % 9
    np.testing.assert_array_equal(p[:, k], np.sort(x)[:, k])
    assert (p[:, :k] <= p[:, k:k + 1]).all() and (p[:, k + 1:] >= p[:, k:k + 1]).all()
    np.testing.assert_array_equal(np.sort(idx), np.tile(np.arange(9), (4, 1)))
    np.testing.assert_array_equal(np.take_along_axis(x, idx, 1)[:, k], p[:, k])


def test_top_k_matches_numpy_stable_descending():
    x = np.random.RandomState(4).randint(0, 5, (3, 11)).astype(np.int32)
    out = lax.top_k(x, 6)
    assert type(out) is list  # as JAX 0.10.2 (the primitive's outputs)
    xf = x.astype(np.float32)
    assert type(lax.approx_max_k(xf, 2)) is list and type(lax.approx_min_k(xf, 2)) is list
    v, i = out
    want = np.argsort(-x, axis=1, kind="stable")[:, :6]
    np.testing.assert_array_equal(i, want)
    np.testing.assert_array_equal(v, np.take_along_axis(x, want, 1))


# -- transformations --------------------------------------------------------------------------

def test_grads():
    x = np.random.RandomState(5).randn(3, 5).astype(np.float32)
    check_grads(lambda x: jnp.sort(x, axis=0), (x,), order=2, modes=("fwd", "rev"))
    keys = np.array([[2, 0, 1, 1, 0], [0, 0, 2, 1, 1], [1, 2, 0, 0, 1]], np.int32)
    check_grads(lambda v: lax.sort_key_val(keys, v, dimension=0)[1], (x,), order=2, modes=("fwd", "rev"))
    check_grads(lambda x: lax.top_k(x, 3)[0], (x,), order=2, modes=("fwd", "rev"))
    check_grads(lambda x: lax.approx_min_k(x, 2, reduction_dimension=0)[0], (x,), order=1,
                modes=("fwd", "rev"))
    check_grads(lambda x: jnp.partition(x, 2), (x,), order=1, modes=("fwd", "rev"))
    check_grads(pyjax.jit(lambda x: jnp.sort(x, descending=True)), (x,), order=1, modes=("rev",))


def test_unstable_sort_moves_values_with_keys():
    k = np.array([2, 1, 2, 1, 0, 2], np.int32)
    sk, sv = lax.sort_key_val(k, k * 10, is_stable=False)
    np.testing.assert_array_equal(sk, np.sort(k))
    np.testing.assert_array_equal(sv, np.sort(k) * 10)


def test_sort_vmap_matches_loop():
    x = np.random.RandomState(6).randn(4, 3, 5).astype(np.float32)
    out = pyjax.vmap(lambda m: lax.sort((m, -m), dimension=0, num_keys=1), in_axes=2, out_axes=1)(x)
    for j in range(5):
        np.testing.assert_array_equal(out[0][:, j], np.sort(x[..., j], axis=0))
        np.testing.assert_array_equal(out[1][:, j], -np.sort(x[..., j], axis=0))


def test_sort_jaxpr_reads_as_jax():
    text = str(pyjax.make_jaxpr(lambda x, y: lax.sort((x, y), num_keys=2))(np.zeros(3), np.zeros(3)))
    assert "sort[dimension=0 is_stable=True num_keys=2]" in text


def test_sort_transpose_rejects_keys():
    from pyjax._src.core import ShapedArray
    from pyjax._src.interpreters import ad
    from pyjax._src.lax.sorting import sort_p
    x = ad.UndefinedPrimal(ShapedArray((3,), np.dtype(np.float32)))
    with pytest.raises(NotImplementedError, match="not linear"):
        sort_p.rule("transpose")([np.ones(3, np.float32)], x, dimension=0, is_stable=True, num_keys=1)


# -- unique and the set operations -------------------------------------------------------------

@pytest.mark.parametrize("expr", list(RECORDED["groups"]["setops"]))
def test_setops_match_jax(ns, expr):
    assert_matches_jax(evaluate(expr, ns), RECORDED["groups"]["setops"][expr], expr)


def test_unique_matches_numpy():
    rs = np.random.RandomState(8)
    x = rs.randint(0, 6, (4, 5))
    for kw in ({}, {"return_index": True, "return_inverse": True, "return_counts": True}):
        got, want = jnp.unique(x, **kw), np.unique(x, **kw)
        for g, w in zip(got if kw else [got], want if kw else [want]):
            np.testing.assert_array_equal(g, w)
    got = jnp.unique(x, axis=1, return_inverse=True, return_counts=True)
    for g, w in zip(got, np.unique(x, axis=1, return_inverse=True, return_counts=True)):
        np.testing.assert_array_equal(g, w)


def test_set_operations_match_numpy():
    rs = np.random.RandomState(9)
    a, b = rs.randint(0, 12, 15), rs.randint(5, 20, 9)
    for name in ("union1d", "setdiff1d", "setxor1d", "intersect1d"):
        np.testing.assert_array_equal(getattr(jnp, name)(a, b), getattr(np, name)(a, b), err_msg=name)
    for method in ("auto", "compare_all", "binary_search", "sort"):
        np.testing.assert_array_equal(jnp.isin(a, b, method=method), np.isin(a, b))
    for g, w in zip(jnp.intersect1d(a, b, return_indices=True), np.intersect1d(a, b, return_indices=True)):
        np.testing.assert_array_equal(g, w)


def test_unique_size_under_jit_pads_with_the_smallest_value():
    x = np.array([4, 2, 4, 7], np.int32)
    out = pyjax.jit(lambda x: jnp.unique(x, size=5, return_counts=True))(x)
    np.testing.assert_array_equal(out[0], [2, 4, 7, 2, 2])
    np.testing.assert_array_equal(out[1], [1, 2, 1, 0, 0])


def test_sort_transpose_in_the_values_sends_cotangents_back():
    from pyjax._src.core import ShapedArray
    from pyjax._src.interpreters import ad
    from pyjax._src.lax.sorting import sort_p
    keys = np.array([[3, 1, 2, 1], [0, 2, 2, 1]], np.int32)
    ct = np.arange(8, dtype=np.float32).reshape(2, 4)
    v = ad.UndefinedPrimal(ShapedArray((2, 4), np.dtype(np.float32)))
    zero = ad.Zero(ShapedArray((2, 4), np.dtype(np.int32)))
    out = sort_p.rule("transpose")([zero, ct], keys, v, dimension=1, is_stable=True, num_keys=1)
    perm = np.argsort(keys, axis=1, kind="stable")
    want = np.zeros_like(ct)
    np.put_along_axis(want, perm, ct, axis=1)  # the value at perm[j] went to j
    assert out[0] is None
    np.testing.assert_array_equal(out[1], want)


def test_docstring_examples():
    import doctest

    from pyjax._src.lax import sorting as lax_sorting
    from pyjax._src.numpy import setops, statistics
    from pyjax._src.numpy import sorting as jnp_sorting
    for mod in (lax_sorting, jnp_sorting, statistics, setops):
        result = doctest.testmod(mod, extraglobs={"jnp": jnp, "lax": lax, "np": np},
                                 optionflags=doctest.NORMALIZE_WHITESPACE)
        assert result.failed == 0 and result.attempted > 0, mod.__name__


def test_sort_of_an_empty_array_differentiates():
    """Issue 23: the JVP of lax.sort on an empty array raised from gather's shape check (JAX leaves
    slice sizes unchecked when there are no indices, and bounds only a scatter's window axes)."""
    empty = np.zeros(0, np.float32)
    out, t = pyjax.jvp(lax.sort, (empty,), (empty,))
    assert out.shape == t.shape == (0,)
    x = np.zeros((0, 3), np.float32)
    (ct,) = pyjax.vjp(lambda a: lax.sort((a, 2 * a), num_keys=1), x)[1]((x, x))
    assert ct.shape == (0, 3) and ct.dtype == np.float32
    assert pyjax.grad(lambda a: jnp.sort(a, axis=0).sum())(x).shape == (0, 3)


def test_searchsorted_eager_calls_compile_once_per_signature():
    """Issue 23 (JAX's op-by-op checks of searchsorted, interp, histogramdd and the sparse
    conversions): the binary search's loop body is one function per side, so a second eager call
    of a signature reuses the traced and compiled loop (JAX's searchsorted is jitted)."""
    a, v = jnp.array([1., 2., 2., 3.]), jnp.array([2., 0., 5.])
    for side, want in (("left", [1, 0, 4]), ("right", [3, 0, 4])):
        assert jnp.searchsorted(a, v, side=side).tolist() == want
        jnp.interp(v, a, 2 * a)
        with jtu.count_primitive_compiles() as compiles:
            assert jnp.searchsorted(a, v, side=side).tolist() == want
            assert jnp.interp(v, a, 2 * a).tolist() == [4.0, 2.0, 6.0]
        assert compiles() == 0
