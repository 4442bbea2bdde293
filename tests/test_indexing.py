"""Basic indexing as JAX 0.10.2: out-of-bounds integers clamp on reads and drop on updates.

Two oracles: the results and exception classes recorded from JAX (tests/data/indexing.json,
written by tests/data/record_indexing.py) evaluated with pyjax bound to the same names, and NumPy
with the indices clamped (reads) or the update skipped (writes), over random mixed indices.
"""
import json
import pathlib
import warnings

import numpy as np
import pytest

import pyjax
import pyjax.numpy as jnp

DATA = json.loads((pathlib.Path(__file__).parent / "data" / "indexing.json").read_text())
CASES = DATA["cases"]

# Where JAX 0.10.2 is wrong (it drops an axis when None and scalar bools mix) and pyjax follows
# NumPy instead: the recorded expression and the NumPy one (the index clamped) it must equal.
DEVIATIONS = {"y[None, True, 7, False]": "y[None, True, 2, False]"}


def _env():
    return dict(jax=pyjax, jnp=jnp, np=np, x=jnp.arange(10.0), y=jnp.arange(12.0).reshape(3, 4),
                z=jnp.arange(24).reshape(2, 3, 4), e=jnp.zeros((0, 3)), s=jnp.asarray(2.0),
                ix=jnp.arange(5), u8=jnp.arange(5, dtype=jnp.uint8), b=jnp.array([True, False]))


def _check_result(got, expected):
    if "tuple" in expected:
        assert isinstance(got, (tuple, list)) and len(got) == len(expected["tuple"])
        for g, e in zip(got, expected["tuple"]):
            _check_result(g, e)
        return
    a = np.asarray(got)
    assert (a.dtype.name, list(a.shape), bool(got.weak_type)) == (
        expected["dtype"], expected["shape"], expected["weak_type"])
    value = np.asarray(expected["value"], dtype=a.dtype) if a.dtype.kind != "c" else \
        np.asarray(expected["value"][0]) + 1j * np.asarray(expected["value"][1])
    np.testing.assert_allclose(a, value.reshape(a.shape), rtol=1e-6)


@pytest.mark.parametrize("expr", [e for e in CASES if e not in DEVIATIONS])
def test_recorded_jax_case(expr):
    expected = CASES[expr]
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        if "error" in expected:
            with pytest.raises(Exception) as info:
                eval(expr, _env())
            assert expected["error"] in [c.__name__ for c in type(info.value).__mro__], info.value
        else:
            _check_result(eval(expr, _env()), expected["result"])
    future = sorted({w.category.__name__ for w in caught if issubclass(w.category, FutureWarning)})
    assert future == expected["warnings"]


def test_recorded_deviations_follow_numpy():
    y = np.arange(12.0).reshape(3, 4)
    for expr, np_expr in DEVIATIONS.items():
        assert expr in CASES  # the recorded JAX value stays in the data as evidence
        out = np.asarray(eval(expr, _env()))
        assert out.shape == eval(np_expr, {"y": y}).shape != tuple(CASES[expr]["result"]["shape"])


# -- NumPy with clamping as the oracle ------------------------------------------------------------

SHAPE = (2, 3, 4)
A = np.arange(24, dtype=np.float32).reshape(SHAPE)


def _random_index(rng):
    """A basic index over SHAPE: per axis an int (often out of bounds) or a slice; sometimes
    None entries and an Ellipsis standing for trailing axes."""
    entries = []
    for n in SHAPE[:rng.integers(1, 4)]:
        if rng.random() < 0.6:
            entries.append(int(rng.integers(-2 * n - 2, 2 * n + 2)))
        else:
            step = int(rng.choice([1, 2, -1, -2]))
            entries.append(slice(int(rng.integers(-6, 7)), int(rng.integers(-6, 7)), step))
        if rng.random() < 0.2:
            entries.append(None)
    if rng.random() < 0.3:
        entries.insert(int(rng.integers(0, len(entries) + 1)), Ellipsis)
    return tuple(entries)


def _clamped(idx):
    """The same index with each integer wrapped once and clamped, axis by axis (NumPy raises
    where JAX clamps)."""
    out, axis = [], 0
    n_ell = len(SHAPE) - sum(1 for i in idx if i is not None and i is not Ellipsis)
    for i in idx:
        if i is Ellipsis:
            axis += n_ell
        elif isinstance(i, int):
            n = SHAPE[axis]
            i = min(max(i + n if i < 0 else i, 0), n - 1)
            axis += 1
        elif isinstance(i, slice):
            axis += 1
        out.append(i)
    return tuple(out)


def _ints_traced(idx):
    """(positions of the ints in idx, a function rebuilding idx from traced ints)."""
    pos = [k for k, i in enumerate(idx) if isinstance(i, int)]

    def rebuild(ints):
        full = list(idx)
        for k, v in zip(pos, ints):
            full[k] = v
        return tuple(full)
    return [idx[k] for k in pos], rebuild


INDICES = [_random_index(np.random.default_rng(seed)) for seed in range(40)]


@pytest.mark.parametrize("idx", INDICES, ids=repr)
def test_read_clamps_like_numpy_with_clamped_indices(idx):
    expected = A[_clamped(idx)]
    x = jnp.asarray(A)
    np.testing.assert_array_equal(np.asarray(x[idx]), expected)
    ints, rebuild = _ints_traced(idx)
    traced = pyjax.jit(lambda a, *i: a[rebuild(i)])(x, *ints)
    np.testing.assert_array_equal(np.asarray(traced), expected)


def _np_update(idx, op, value):
    """NumPy with the update skipped when an integer is out of bounds (scatter drops)."""
    out = A.copy()
    axis = 0
    n_ell = len(SHAPE) - sum(1 for i in idx if i is not None and i is not Ellipsis)
    for i in idx:
        if i is Ellipsis:
            axis += n_ell
        elif isinstance(i, int):
            if not -SHAPE[axis] <= i < SHAPE[axis]:
                return out
            axis += 1
        elif isinstance(i, slice):
            axis += 1
    out[idx] = op(out[idx], value)
    return out


UNIT_STEP = [i for i in INDICES if all(not isinstance(e, slice) or e.step in (1, -1) for e in i)]


@pytest.mark.parametrize("idx", UNIT_STEP, ids=repr)
@pytest.mark.parametrize("method,op", [("set", lambda old, v: v), ("add", np.add),
                                       ("max", np.maximum)])
def test_update_drops_out_of_bounds_like_numpy(idx, method, op):
    expected = _np_update(idx, op, np.float32(100))
    x = jnp.asarray(A)
    np.testing.assert_array_equal(np.asarray(getattr(x.at[idx], method)(100.)), expected)
    ints, rebuild = _ints_traced(idx)
    traced = pyjax.jit(lambda a, *i: getattr(a.at[rebuild(i)], method)(100.))(x, *ints)
    np.testing.assert_array_equal(np.asarray(traced), expected)


def test_vmap_over_traced_indices_matches_a_loop():
    x = jnp.asarray(A)
    ii = np.array([-9, -3, 0, 1, 5], np.int32)
    jj = np.array([7, -1, -8, 2, 3], np.int32)
    out = pyjax.vmap(lambda i, j: x[i, :, j])(ii, jj)
    np.testing.assert_array_equal(np.asarray(out), np.stack([A[_clamped((int(i), slice(None), int(j)))]
                                                              for i, j in zip(ii, jj)]))
    out = pyjax.vmap(lambda i, j: x.at[i, :, j].add(1.))(ii, jj)
    np.testing.assert_array_equal(np.asarray(out), np.stack([_np_update((int(i), slice(None), int(j)), np.add, 1)
                                                              for i, j in zip(ii, jj)]))


@pytest.mark.parametrize("idx", [
    (True,), (False,), (True, 1), (1, True, slice(None)), (slice(None), 1, Ellipsis, True),
    (True, 1, Ellipsis, 2), (None, 1, True), (1, None, True), (slice(None), True, Ellipsis, 1, 2),
    (True, True), (False, slice(None), True), (np.bool_(True), -1), (slice(None), 1, None, True, 2),
], ids=repr)
def test_scalar_bools_follow_numpy(idx):
    # as NumPy: they are advanced indices (one axis, where the adjacent ints stand, else in front)
    np.testing.assert_array_equal(np.asarray(jnp.asarray(A)[idx]), A[idx])
    expected = A.copy()
    expected[idx] = -1
    np.testing.assert_array_equal(np.asarray(jnp.asarray(A).at[idx].set(-1.)), expected)


def test_options_that_need_gather_or_scatter_are_named():
    x = jnp.arange(10.0)
    with pytest.raises(NotImplementedError, match="mode='fill'"):
        x.at[3].get(mode="fill", fill_value=-1)
    with pytest.raises(NotImplementedError, match="mode='clip'"):
        x.at[13].set(5.0, mode="clip")
    with pytest.raises(NotImplementedError, match="strided slice"):
        x.at[::2].set(0.0)
    with pytest.raises(NotImplementedError, match="gather"):
        x[jnp.array([1, 2])]
