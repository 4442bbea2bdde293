"""Indexing as JAX 0.10.2: basic and advanced (gather/scatter) reads and `.at[]` updates;
out-of-bounds integers clamp on reads and drop on updates unless `mode` says otherwise.

Three oracles: NumPy over hypothesis-generated index expressions (ints, slices with steps, None,
Ellipsis, integer and boolean arrays), and the results and exception classes recorded from JAX (tests/data/indexing.json,
written by tests/data/record_indexing.py) evaluated with pyjax bound to the same names, and NumPy
with the indices clamped (reads) or the update skipped (writes), over random mixed indices.
"""
import contextlib
import json
import pathlib
import warnings

import numpy as np
import pytest

import pyjax
import pyjax.numpy as jnp
from hypothesis import given, settings
from hypothesis import strategies as st
from pyjax import lax

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


def test_advanced_options_reach_gather_and_scatter():
    """mode/fill_value/unique_indices/indices_are_sorted become the primitives' parameters, and
    static slices without arrays stay slices (no gather), as in JAX."""
    x = jnp.arange(10.0)
    eqn = pyjax.make_jaxpr(lambda a: a.at[jnp.array([1, 12])].get(
        mode="fill", fill_value=-1.0, indices_are_sorted=True, unique_indices=True))(x).eqns[-1]
    assert eqn.primitive.name == "gather"
    assert (eqn.params["mode"], eqn.params["fill_value"]) == (lax.GatherScatterMode.FILL_OR_DROP, -1.0)
    assert eqn.params["indices_are_sorted"] and eqn.params["unique_indices"]
    eqns = pyjax.make_jaxpr(lambda a: a.at[::2].add(1.0, mode="clip"))(x).eqns
    assert any(e.params.get("mode") == lax.GatherScatterMode.CLIP for e in eqns)
    names = {e.primitive.name for e in pyjax.make_jaxpr(lambda a: a[1:, None, ::-2, 3])(jnp.zeros((4, 5, 6, 7))).eqns}
    assert not names & {"gather", "scatter"}, names
    with pytest.raises(NotImplementedError, match="one_hot"):
        x.at[jnp.array([1])].get(mode="one_hot")


# -- advanced indexing against NumPy, over generated index expressions ------------------------------

@st.composite
def _shapes_and_indices(draw, allow_bool=True, oob=False):
    shape = tuple(draw(st.lists(st.integers(1, 4), min_size=1, max_size=3)))
    block = tuple(draw(st.lists(st.integers(1, 3), min_size=0, max_size=2)))
    entries, axis = [], 0
    ellipsis = draw(st.booleans())  # then the entries after it index other axes: bound by the least
    for _ in range(draw(st.integers(0, len(shape) + 2))):
        kind = draw(st.sampled_from(["int", "slice", "none", "array", "array", "bool"] if allow_bool
                                    else ["int", "slice", "none", "array", "array"]))
        if kind == "none":
            entries.append(None)
            continue
        if axis >= len(shape):
            break
        n = min(shape) if ellipsis else shape[axis]
        lo, hi = (-2 * n - 1, 2 * n) if oob else (-n, n - 1)
        if kind == "int":
            entries.append(draw(st.integers(lo, hi)))
        elif kind == "slice":
            entries.append(slice(draw(st.sampled_from([None, 0, 1, -1, -3])),
                                 draw(st.sampled_from([None, 0, 2, -1, 5])),
                                 draw(st.sampled_from([None, 1, 2, 3, -1, -2]))))
        elif kind == "array":
            sub = tuple(draw(st.sampled_from([d, 1])) for d in block[draw(st.integers(0, len(block))):])
            vals = draw(st.lists(st.integers(lo, hi), min_size=int(np.prod(sub, dtype=int)),
                                 max_size=int(np.prod(sub, dtype=int))))
            entries.append(np.array(vals, np.int32).reshape(sub))
        else:
            entries.append(np.array(draw(st.lists(st.booleans(), min_size=n, max_size=n))))
        axis += 1
    if ellipsis:
        entries.insert(draw(st.integers(0, len(entries))), Ellipsis)
    return shape, tuple(entries)


def _numpy_or_none(fn):
    try:
        return fn()
    except (IndexError, ValueError):  # shapes that do not broadcast: JAX's ValueError below
        return None


@settings(max_examples=150, deadline=None, derandomize=True)
@given(_shapes_and_indices())
def test_generated_reads_match_numpy(case):
    shape, idx = case
    a = np.arange(int(np.prod(shape)), dtype=np.float32).reshape(shape)
    expected = _numpy_or_none(lambda: a[idx])
    if expected is None:
        with pytest.raises((IndexError, ValueError)):
            jnp.asarray(a)[idx]
        return
    np.testing.assert_array_equal(np.asarray(jnp.asarray(a)[idx]), expected)


def _flat_positions(shape, idx):
    return np.arange(int(np.prod(shape))).reshape(shape)[idx]


@settings(max_examples=100, deadline=None, derandomize=True)
@given(_shapes_and_indices(), st.sampled_from(["set", "add"]))
def test_generated_updates_match_numpy(case, method):
    """`.add` against np.add.at (repeated positions accumulate); `.set` where the positions are
    distinct (which of repeated writes wins is unspecified in XLA, as in JAX)."""
    shape, idx = case
    pos = _numpy_or_none(lambda: _flat_positions(shape, idx))
    if pos is None:
        return
    a = np.arange(pos.size, dtype=np.float32).reshape(pos.shape) * 10 + 1
    expected = np.zeros(int(np.prod(shape)), np.float32)
    if method == "add":
        np.add.at(expected, pos.ravel(), a.ravel())
    elif len(np.unique(pos)) == pos.size:
        expected[pos.ravel()] = a.ravel()
    else:
        return
    got = getattr(jnp.zeros(shape).at[idx], method)(jnp.asarray(a))
    np.testing.assert_array_equal(np.asarray(got), expected.reshape(shape))


def _axes_of(shape, idx):
    """The operand axis each entry indexes (None for None and Ellipsis); no masks here."""
    used = sum(1 for e in idx if e is not None and e is not Ellipsis)
    axes, axis = [], 0
    for e in idx:
        if e is Ellipsis:
            axis += len(shape) - used
        axes.append(None if e is None or e is Ellipsis else axis)
        axis += not (e is None or e is Ellipsis)
    return axes


def _oob_oracle(shape, idx, how):
    """The index on a padded copy of the operand where out-of-bounds integer indices point at one
    extra slot per axis ("fill": the fill value is there, "drop": writes there are cut off), or
    the index with integers wrapped once and clamped ("clip")."""
    pad, new = [(0, 0)] * len(shape), []
    for e, a in zip(idx, _axes_of(shape, idx)):
        if a is None or isinstance(e, slice):
            new.append(e)
            continue
        n, v = shape[a], np.asarray(e)
        wrapped = np.where(v < 0, v + n, v)
        if how == "clip":
            new.append(np.clip(wrapped, 0, n - 1))
        else:
            new.append(np.where((v >= -n) & (v < n), wrapped, n))
            pad[a] = (0, 1)
    return pad, tuple(new)


@settings(max_examples=60, deadline=None, derandomize=True)
@given(_shapes_and_indices(allow_bool=False, oob=True), st.sampled_from(["fill", "clip"]))
def test_generated_out_of_bounds_reads(case, mode):
    shape, idx = case
    a = np.arange(int(np.prod(shape)), dtype=np.float32).reshape(shape)
    pad, new = _oob_oracle(shape, idx, mode)
    expected = _numpy_or_none(lambda: np.pad(a, pad, constant_values=-1)[new])
    if expected is None:
        return
    got = jnp.asarray(a).at[idx].get(mode=mode, fill_value=-1.0)
    np.testing.assert_array_equal(np.asarray(got), expected)


@settings(max_examples=40, deadline=None, derandomize=True)
@given(_shapes_and_indices(allow_bool=False, oob=True), st.sampled_from(["fill", "clip", None]))
def test_generated_traced_index_arrays(case, mode):
    """The same with the index arrays traced (normalized and stacked by lax ops under jit)."""
    shape, idx = case
    a = np.arange(int(np.prod(shape)), dtype=np.float32).reshape(shape)
    pad, new = _oob_oracle(shape, idx, mode or "clip")
    expected = _numpy_or_none(lambda: np.pad(a, pad, constant_values=-1)[new])
    if expected is None:
        return
    pos = [k for k, e in enumerate(idx) if isinstance(e, np.ndarray)]

    def f(x, *arrays):
        full = list(idx)
        for k, v in zip(pos, arrays):
            full[k] = v
        return x.at[tuple(full)].get(mode=mode, fill_value=-1.0)
    got = pyjax.jit(f)(a, *[idx[k] for k in pos])
    np.testing.assert_array_equal(np.asarray(got), expected)


@settings(max_examples=60, deadline=None, derandomize=True)
@given(_shapes_and_indices(allow_bool=False, oob=True), st.sampled_from([None, "clip"]))
def test_generated_out_of_bounds_adds(case, mode):
    """Out-of-bounds updates are dropped (default) or land on the clamped index ("clip")."""
    shape, idx = case
    pad, new = _oob_oracle(shape, idx, "clip" if mode else "drop")
    pshape = tuple(n + p for n, (_, p) in zip(shape, pad))
    pos = _numpy_or_none(lambda: np.arange(int(np.prod(pshape))).reshape(pshape)[new])
    if pos is None:
        return
    vals = np.arange(pos.size, dtype=np.float32).reshape(pos.shape) + 1
    flat = np.zeros(int(np.prod(pshape)), np.float32)
    np.add.at(flat, pos.ravel(), vals.ravel())
    expected = flat.reshape(pshape)[tuple(slice(0, n) for n in shape)]
    got = jnp.zeros(shape).at[idx].add(jnp.asarray(vals), mode=mode)
    np.testing.assert_array_equal(np.asarray(got), expected)


@pytest.mark.parametrize("idx", [
    (np.array([0, 2, -1]),), (slice(None), np.array([[1], [0]])), (np.array([1, 0]), None, slice(1, None)),
    (np.array([[0], [1]]), slice(None, None, 2), np.array([3, -1])), (Ellipsis, np.array([0, 0, 3])),
], ids=repr)
def test_traced_index_arrays_and_vmap_and_grad(idx):
    a = A if len(idx) == 3 else np.arange(12, dtype=np.float32).reshape(3, 4)
    arrays = [k for k, i in enumerate(idx) if isinstance(i, np.ndarray)]

    def rebuild(vals):
        full = list(idx)
        for k, v in zip(arrays, vals):
            full[k] = v
        return tuple(full)
    vals = [idx[k] for k in arrays]
    np.testing.assert_array_equal(pyjax.jit(lambda x, *v: x[rebuild(v)])(a, *vals), a[idx])
    g = pyjax.jit(pyjax.grad(lambda x, *v: x[rebuild(v)].sum()))(a, *vals)
    expected = np.zeros(a.size, np.float32)
    np.add.at(expected, _flat_positions(a.shape, idx).ravel(), 1.0)
    np.testing.assert_array_equal(g, expected.reshape(a.shape))
    stacked = [np.stack([v, v[::-1] if v.ndim else v]) for v in vals]
    out = pyjax.vmap(lambda *v: jnp.asarray(a)[rebuild(v)])(*stacked)
    np.testing.assert_array_equal(out, np.stack([a[rebuild([s[k] for s in stacked])] for k in range(2)]))


def test_eager_static_indices_share_one_executable():
    # JAX's eager slice takes its starts as run-time operands: a loop over x[i] compiles once
    # per shape, not once per i (it used to compile 100 modules here)
    from pyjax._src.backend import xla
    x = jnp.arange(64.0).reshape(32, 2) + 1  # (a computed array: no host copy to slice)
    x[0], x[1], x[1:4], x[0:6:2], x[1:7:2]  # (a start of 0 takes a plain slice)
    before = xla.cache_stats()
    got = [x[i] for i in range(32)] + [x[i:i + 3] for i in range(29)] + [x[i:i + 6:2] for i in range(26)]
    after = xla.cache_stats()
    assert (after["compiles"] + after["memory_hits"] + after["disk_hits"]
            == before["compiles"] + before["memory_hits"] + before["disk_hits"])
    want = np.arange(64.0).reshape(32, 2) + 1
    expected = [want[i] for i in range(32)] + [want[i:i + 3] for i in range(29)] + [want[i:i + 6:2] for i in range(26)]
    for g, w in zip(got, expected):
        np.testing.assert_array_equal(g, w)


@pytest.mark.parametrize("wrap", [lambda f: f, pyjax.jit, pyjax.vmap])
def test_item_assignment_raises_jaxs_type_error(wrap):
    def assign(x):
        x[0] = 1.0
        return x
    with pytest.raises(TypeError, match=r"^JAX arrays are immutable and do not support in-place item "
                                        r"assignment\. Instead of x\[idx\] = y, use x = x\.at\[idx\]\.set\(y\)"):
        wrap(assign)(jnp.zeros((2, 3)))


def test_ds_windows_and_rewriting_take_strategies():
    # jax.ds is one Slice type for arrays and refs (a pytree of its traced parts); x[jax.ds(i, n)]
    # reads a dynamic_slice window, clamped into range. Values recorded from JAX 0.10.2.
    from pyjax._src import indexing
    from pyjax._src.numpy.indexing import IndexingStrategy as S, rewriting_take
    x = jnp.arange(10.0)
    for idx, want in [(pyjax.ds(1, 3), [1, 2, 3]), (pyjax.ds(8, 3), [7, 8, 9]),
                      (pyjax.ds(-3, 2), [7, 8]), (pyjax.ds(1, 3, 2), [1, 3, 5])]:
        np.testing.assert_array_equal(x[idx], want)
    f = pyjax.jit(lambda y, i: y[None, pyjax.ds(i, 2), 3])
    np.testing.assert_array_equal(f(jnp.arange(24.0).reshape(4, 6), 1), [[9.0, 15.0]])
    assert pyjax.ds(None) == slice(None) and pyjax.ds(3) == indexing.Slice(0, 3, 1)
    s = pyjax.ds(jnp.int32(2), 3)
    assert pyjax.tree.leaves(s) == [] and s == pyjax.ds(2, 3)
    np.testing.assert_array_equal(pyjax.jit(lambda s, y: y[s])(s, x), [2, 3, 4])
    # strategies: the values are getitem's; STATIC/DYNAMIC_SLICE refuse what they cannot read
    y = jnp.arange(6.0).reshape(2, 3)
    np.testing.assert_array_equal(rewriting_take(y, (-1, 5), strategy=S.STATIC_SLICE, mode="clip",
                                                 normalize_indices=False), 2.0)
    for idx, err, msg in [((0, 4), IndexError, "index 4 out of bounds for axis 1 with size 3"),
                          ((np.arange(2), 0), TypeError, "static_slice: indices must be static"),
                          ((1, 2, 3), IndexError, "Too many indices")]:
        with pytest.raises(err, match=msg):
            rewriting_take(y, idx, strategy=S.STATIC_SLICE)
    with pytest.raises(TypeError, match="dynamic_slice: only unit steps"):
        rewriting_take(y, (0, slice(None, None, 2)), strategy=S.DYNAMIC_SLICE)
    with pytest.raises(TypeError, match="Expected strategy to be IndexingStrategy"):
        rewriting_take(y, 0, strategy="gather")


def test_check_static_indices_and_empty_masks_as_jax():
    # jax_check_static_indices: a static int out of bounds is an IndexError (reads in the default
    # mode), eager, under jit and through .at[].get(); an empty mask axis matches any length.
    # Recorded from JAX 0.10.2.
    z = jnp.zeros((2, 3, 5))
    with _check_static_indices():
        for idx, msg in [(np.index_exp[:, [1, 2], 6], "index 6 out of bounds for axis 2 with size 5"),
                         (np.index_exp[..., -6], "index -6 out of bounds for axis 2 with size 5"),
                         (np.index_exp[np.arange(3), 6, None], "index 6 out of bounds for axis 1 with size 3")]:
            for read in (lambda: z[idx], lambda: pyjax.jit(lambda x: x[idx])(z), lambda: z.at[idx].get()):
                with pytest.raises(IndexError, match=msg):
                    read()
        assert z[1, -3].shape == (5,) and z.at[5].get(mode="clip").shape == (3, 5)
    assert z[5].shape == (3, 5)  # (off by default: clamps)
    y = jnp.zeros((3, 4))
    for m, want in [((0,), (0, 4)), ((0, 4), (0,)), ((3, 0), (0,))]:
        assert y[np.empty(m, bool)].shape == want


@contextlib.contextmanager
def _check_static_indices():
    pyjax.config.update("jax_check_static_indices", True)
    try:
        yield
    finally:
        pyjax.config.update("jax_check_static_indices", False)
