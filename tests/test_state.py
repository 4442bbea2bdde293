"""Mutable refs (pyjax._src.state, jax.ref, jax.new_ref): stateful code against the same
computation written functionally, and discharge under jit, grad and vmap."""
import numpy as np
import pytest

import pyjax as jax
import pyjax.numpy as jnp
from pyjax import lax
from pyjax._src import core
from pyjax._src.interpreters import partial_eval as pe
from pyjax._src.state.discharge import discharge_state, run_state
from pyjax._src.state.types import AbstractRef, ReadEffect, WriteEffect, AccumEffect
from pyjax._src.state.types import shaped_array_ref
from pyjax._src.state.primitives import get_p, swap_p


def cumsum_state(refs):
    x_ref, out_ref = refs
    def body(i, _):
        out_ref[i] = out_ref[jnp.maximum(i - 1, 0)] * (i > 0) + x_ref[i]
        return _
    lax.fori_loop(0, x_ref.shape[0], body, None)


def gather_scatter_state(refs):
    x_ref, out_ref = refs
    out_ref[::2] = x_ref[jnp.array([3, 2, 1])]
    out_ref[1:3, 0] += x_ref[0:2, 1]


def while_state(refs):
    (x_ref,) = refs
    def cond(i):
        return x_ref[i] < 100.0
    def body(i):
        x_ref[i + 1] = x_ref[i] * 3.0
        return i + 1
    lax.while_loop(cond, body, 0)


def cond_state(refs):
    x_ref, flag_ref = refs
    lax.cond(flag_ref[...] > 0, lambda: x_ref.__setitem__(..., x_ref[...] * 2),
             lambda: x_ref.__setitem__(0, -1.0))


def scan_state(refs):
    x_ref, acc_ref = refs
    def body(c, row):
        acc_ref[...] += row * c
        return c + 1.0, acc_ref[0]
    _, ys = lax.scan(body, 1.0, x_ref[...])
    x_ref[:, 0] = ys


RNG = np.random.default_rng(0)
X5 = RNG.standard_normal(5).astype(np.float32)
X43 = RNG.standard_normal((4, 3)).astype(np.float32)

CASES = [
    ("cumsum", cumsum_state, (X5, np.zeros(5, np.float32)), lambda x, o: (x, np.cumsum(x))),
    ("gather_scatter", gather_scatter_state, (X43, np.zeros((5, 3), np.float32)),
     lambda x, o: (x, _gs(x, o))),
    ("while", while_state, (np.array([2.0, 0, 0, 0, 0, 0], np.float32),),
     lambda x: (np.array([2.0, 6, 18, 54, 162, 0], np.float32),)),
    ("cond_true", cond_state, (X5, np.int32(1)), lambda x, f: (2 * x, f)),
    ("cond_false", cond_state, (X5, np.int32(0)), lambda x, f: (np.r_[-1.0, x[1:]], f)),
    ("scan", scan_state, (X43, np.zeros(3, np.float32)), lambda x, a: _scan_ref(x, a)),
]


def _gs(x, o):
    o = o.copy()
    o[::2] = x[[3, 2, 1]]
    o[1:3, 0] += x[0:2, 1]
    return o


def _scan_ref(x, acc):
    x = x.copy()
    ys = []
    for c, row in enumerate(x.copy(), start=1):
        acc = acc + row * c
        ys.append(acc[0])
    x[:, 0] = ys
    return x, acc


def _check(out, want):
    for o, w in zip(out, want, strict=True):
        np.testing.assert_allclose(np.asarray(o), np.asarray(w), rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("name,f,init,ref", CASES, ids=[c[0] for c in CASES])
def test_run_state_eager_and_jit_vs_functional(name, f, init, ref):
    _check(run_state(f)(init), ref(*init))
    _check(jax.jit(run_state(f))(init), ref(*init))


@pytest.mark.parametrize("name,f,init,ref", CASES[:2] + CASES[3:], ids=[c[0] for c in CASES[:2] + CASES[3:]])
def test_run_state_vmap_vs_loop(name, f, init, ref):
    batched = tuple(np.stack([np.asarray(a), np.asarray(a) * 2 - 1]).astype(np.asarray(a).dtype) for a in init)
    out = jax.vmap(run_state(f))(batched)
    for b in range(2):
        _check([o[b] for o in out], ref(*[a[b] for a in batched]))


def test_run_state_grad_matches_functional():
    def loss_state(x):
        return run_state(cumsum_state)((x, jnp.zeros_like(x)))[1].sum()
    g = jax.grad(loss_state)(X5)
    np.testing.assert_allclose(g, jax.grad(lambda x: jnp.cumsum(x).sum())(X5), rtol=1e-6)
    from pyjax.test_util import check_grads
    check_grads(lambda x: run_state(scan_state)((x, jnp.zeros(3)))[0], (X43,), order=1,
                modes=("fwd", "rev"), atol=1e-2, rtol=1e-2)


def _ref_jaxpr(f, *avals):
    closed, _ = pe.trace_to_jaxpr(lambda *refs: f(refs) or [], [AbstractRef(a) for a in avals])
    return closed


def test_jaxpr_over_refs_prints_ref_types_and_has_effects():
    closed = _ref_jaxpr(gather_scatter_state, core.ShapedArray((4, 3), np.float32),
                        core.ShapedArray((5, 3), np.float32))
    text = str(closed)
    assert "Ref{f32[4,3]}" in text
    # as JAX prints state: reads `x <- ref[idx]`, writes `old, ref[idx] <- ref[idx], new`
    assert "d:f32[3,3] <- b[a,:]" in text and "f:f32[2] <- b[:2,1]" in text
    assert "c[1:3,0] <- g" in text   # the old value is dropped: a plain write
    # as JAX: an equation's effect names its operand, a jaxpr's the input Var it acts on
    src, dst = closed.jaxpr.invars
    assert {ReadEffect(0), WriteEffect(0)} <= set().union(*(e.effects for e in closed.jaxpr.eqns))
    assert closed.jaxpr.effects == {ReadEffect(src), ReadEffect(dst), WriteEffect(dst)}
    closed2 = _ref_jaxpr(lambda refs: jax.ref.addupdate(refs[0], 0, 1.0), core.ShapedArray((2,), np.float32))
    assert closed2.jaxpr.effects == {AccumEffect(closed2.jaxpr.invars[0])}


def test_discharge_state_gives_a_functional_jaxpr():
    closed = _ref_jaxpr(cumsum_state, core.ShapedArray((5,), np.float32), core.ShapedArray((5,), np.float32))
    discharged = discharge_state(closed)
    jaxpr, consts = discharged.jaxpr, discharged.consts
    core.check_jaxpr(jaxpr)
    assert not any(isinstance(v.aval, AbstractRef) for v in jaxpr.invars + jaxpr.outvars)
    assert [a.shape for a in jaxpr.out_avals] == [(5,), (5,)]
    out = core.eval_jaxpr(jaxpr, consts, X5, np.zeros(5, np.float32))
    np.testing.assert_allclose(out[1], np.cumsum(X5), rtol=1e-6)


@pytest.mark.parametrize("idx", [(1,), (slice(1, 3),), (Ellipsis, 2), (slice(None, None, 2), 0),
                                 (np.array([2, 0]),), (np.array([0, 3]), slice(1, 3)),
                                 (1, np.array([2, 0, 1]))])
def test_indexing_matches_numpy(idx):
    x = np.arange(12.0, dtype=np.float32).reshape(4, 3)
    r = jax.new_ref(x)
    np.testing.assert_array_equal(r[idx], x[idx])
    want = x.copy()
    want[idx] = -np.ones_like(x[idx])
    r[idx] = -jnp.ones_like(jnp.asarray(x[idx]))
    np.testing.assert_array_equal(jax.freeze(r), want)
    want[idx] += 5.0
    jax.ref.addupdate(r, idx, jnp.full(x[idx].shape, 5.0, jnp.float32))
    np.testing.assert_array_equal(jax.freeze(r), want)


def test_dynamic_slice_index_pl_ds():
    def f(refs):
        x_ref, o_ref = refs
        def body(i, c):
            o_ref[jax.ds(i * 2, 2)] = x_ref[jax.ds(i * 2, 2)][::-1]
            return c
        lax.fori_loop(0, 3, body, 0)
    x = np.arange(6.0, dtype=np.float32)
    _check(jax.jit(run_state(f))((x, np.zeros(6, np.float32))), (x, [1, 0, 3, 2, 5, 4]))


def test_new_ref_errors_match_jax_classes():
    r = jax.new_ref(jnp.zeros(3))
    with pytest.raises(ValueError, match="Invalid shape for `swap`"):
        r[0] = jnp.ones(2)
    with pytest.raises(ValueError, match="Invalid dtype for `swap`"):
        r[...] = jnp.ones(3, jnp.int32)
    with pytest.raises(TypeError):
        r + 1
    with pytest.raises(ValueError, match="must not be longer than"):
        r[0, 0]
    # as JAX: a plain Exception for a differentiated / vmapped value written into an outer ref
    with pytest.raises(Exception, match="differentiated value on a non-differentiated") as e:
        jax.grad(lambda v: (r.__setitem__(0, v), v)[1])(1.0)
    assert type(e.value) is Exception
    with pytest.raises(Exception, match="vmapped value on an unbatched array reference") as e:
        jax.vmap(lambda v: r.__setitem__(0, v))(jnp.ones(2))
    assert type(e.value) is Exception


def test_array_tracers_stay_immutable():
    with pytest.raises(TypeError, match="immutable"):
        jax.jit(lambda x: x.__setitem__(0, 1.0))(jnp.ones(3))


def _running_sum(x):
    acc = jax.new_ref(jnp.zeros((), x.dtype))
    out = jax.new_ref(jnp.zeros_like(x))
    def body(i, c):
        acc[...] += x[i]
        out[i] = acc[...]
        return c
    lax.fori_loop(0, x.shape[0], body, 0)
    lax.cond(acc[...] > 0, lambda: out.__setitem__(0, -out[0]), lambda: None)
    return jax.freeze(out), acc[...]


def test_new_ref_in_loops_under_jit_grad_vmap_vs_functional():
    def functional(x):
        c = jnp.cumsum(x)
        return c.at[0].set(jnp.where(c[-1] > 0, -c[0], c[0])), c[-1]
    for x in (jnp.asarray(X5), -jnp.abs(X5)):
        _check(jax.jit(_running_sum)(x), functional(x))
        _check(_running_sum(x), functional(x))   # eager Refs written by an eager loop
    xs = np.stack([X5, -np.abs(X5), X5 * 3])
    _check(jax.vmap(jax.jit(_running_sum))(xs), jax.vmap(functional)(xs))
    g = jax.grad(lambda x: jax.jit(_running_sum)(x)[0].sum())(X5)
    np.testing.assert_allclose(g, jax.grad(lambda x: functional(x)[0].sum())(X5), rtol=1e-6)


def test_new_ref_in_a_loop_body_is_local():
    def f(x):
        def body(i, c):
            r = jax.new_ref(c)
            r[0] += i
            return r[...]
        return lax.fori_loop(0, 4, body, x)
    _check([jax.jit(f)(jnp.zeros(2)), f(jnp.zeros(2))], [[6.0, 0.0], [6.0, 0.0]])
    text = str(jax.make_jaxpr(jax.jit(f))(jnp.zeros(2)))
    assert "Ref{" not in text   # discharged where traced: a loop carrying the value


def test_eager_ref_written_by_eager_loops():
    r = jax.new_ref(jnp.zeros(5))
    def body(i, c):
        r[i] = c
        return c * 2
    assert float(lax.fori_loop(0, 4, body, 1.0)) == 16.0
    i = lax.while_loop(lambda i: r[i] < 8, lambda i: (r.__setitem__(i + 1, r[i] + 3), i + 1)[1], 2)
    lax.cond(i > 0, lambda: r.__setitem__(4, -r[4]), lambda: None)
    np.testing.assert_array_equal(jax.freeze(r), [1, 2, 4, 7, -10])
    assert int(i) == 4


def test_new_ref_with_loops_under_vmap_and_grad_without_jit():
    def functional(x):
        c = jnp.cumsum(x)
        return c.at[0].set(jnp.where(c[-1] > 0, -c[0], c[0])), c[-1]
    xs = jnp.stack([jnp.asarray(X5), -jnp.abs(X5), jnp.asarray(X5) * 3])
    _check(jax.vmap(_running_sum)(xs), jax.vmap(functional)(xs))
    g = jax.grad(lambda x: _running_sum(x)[0].sum())(jnp.asarray(X5))
    np.testing.assert_allclose(g, jax.grad(lambda x: functional(x)[0].sum())(X5), rtol=1e-6)


# -- recorded from JAX 0.10.2 (tests/data/record_state.py): Refs crossing jit, vmap over refs,
#    differentiation through refs; values, printed jaxprs, error classes and messages ------------

import importlib.util  # noqa: E402
import json  # noqa: E402
import os  # noqa: E402

from recorded_cases import assert_matches, encode  # noqa: E402

_DATA_DIR = os.path.join(os.path.dirname(__file__), "data")
with open(os.path.join(_DATA_DIR, "state.json")) as _f:
    STATE_DATA = json.load(_f)
_spec = importlib.util.spec_from_file_location("record_state",
                                               os.path.join(_DATA_DIR, "record_state.py"))
record_state = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(record_state)  # the sources; imports jax only when run as a script
STATE_NS = {"jax": jax, "jnp": jnp, "lax": lax, "np": np}
exec(record_state.PRELUDE, STATE_NS)
STATE_SOURCES = dict(record_state.CASES)

# Cases whose error message (not class) differs from JAX's: id -> why.
MESSAGE_DIFFERS = {}


# Cases where pyjax deliberately differs from JAX 0.10.2: id -> why.
DIFFERENCES = {
    "vmap_jit_writes_constant_to_outer_ref":
        "JAX refuses any write into an unbatched Ref under vmap of a jit or loop; pyjax refuses only a "
        "batched value (an unbatched one, the same for every example, is written)",
}


@pytest.mark.parametrize("case", sorted(set(STATE_DATA["cases"]) - set(DIFFERENCES)))
def test_matches_recorded_jax(case):
    expected = STATE_DATA["cases"][case]
    actual = record_state.run_case(STATE_SOURCES[case], STATE_NS, encode)
    assert_matches(actual, expected, rtol=1e-5, atol=1e-6, err_msg=case)
    if "error" in expected and case not in MESSAGE_DIFFERS:
        assert actual["message"] == expected["message"], case


# -- Refs crossing jit: signatures, AOT, vmap against a loop, gradients ---------------------------


def test_jit_with_refs_traces_once_per_signature_and_ref_aval_is_part_of_it():
    traces = []

    def f(r, x):
        traces.append(core.get_aval(r) if not isinstance(r, core.Tracer) else r.aval)
        r[...] += x
        return r[0]
    jf = jax.jit(f)
    a, b = jax.new_ref(jnp.zeros(3)), jax.new_ref(jnp.ones(3))
    for _ in range(3):
        jf(a, jnp.ones(3))
        jf(b, jnp.ones(3))
    assert len(traces) == 1   # refs of one type share the trace (and the executable)
    np.testing.assert_array_equal(jax.freeze(a), [3.0] * 3)
    np.testing.assert_array_equal(jax.freeze(b), [4.0] * 3)
    jf(jax.new_ref(jnp.zeros(4)), jnp.ones(4))
    jf(jax.new_ref(jnp.zeros(3, jnp.int32)), jnp.ones(3, jnp.int32))
    assert len(traces) == 3
    with pytest.raises(TypeError, match="immutable"):   # an Array is another signature
        jf(jnp.zeros(3), jnp.ones(3))
    assert len(traces) == 4


def test_jit_lower_and_compile_with_refs():
    def f(r, x):
        r[...] += x
        return r[0] * 2
    r = jax.new_ref(jnp.arange(3.0))
    lowered = jax.jit(f).lower(r, jnp.ones(3))
    assert lowered.args_info[0][0].aval == AbstractRef(core.ShapedArray((3,), np.float32))
    # the module takes the Ref's value and also returns its final value
    assert "(%arg0: tensor<3xf32>, %arg1: tensor<3xf32>) -> (tensor<f32>, tensor<3xf32>)" in \
        lowered.as_text()
    compiled = lowered.compile()
    out = compiled(r, jnp.ones(3))
    out2 = compiled(r, jnp.ones(3))
    np.testing.assert_allclose([out, out2], [2.0, 4.0])
    np.testing.assert_allclose(jax.freeze(r), [2.0, 3.0, 4.0])
    c = jax.new_ref(jnp.zeros(2))
    g = jax.jit(lambda x: (c.__setitem__(1, c[1] + x), c[...].sum())[1]).lower(1.0).compile()
    assert [float(g(1.0)), float(g(2.0))] == [1.0, 3.0]
    np.testing.assert_allclose(jax.freeze(c), [0.0, 3.0])


def _rw(r, i, v):
    """Reads and writes at index patterns that take every path of the batching rules."""
    a = r[i]                      # dynamic (possibly batched) integer index
    r[i] = a + v[0]
    r[1:3, 0] += v[1:3]           # static slices
    b = r[jnp.array([2, 0]), 1]   # an index array next to an integer
    r[:, jnp.array([0, 2])] = -r[:, jnp.array([0, 2])]
    return a.sum() + b.sum() + r[...].sum()


@pytest.mark.parametrize("in_axes", [(0, 0, 0), (1, 0, None), (2, None, 0), (0, None, None),
                                     (1, 0, 0)])
@pytest.mark.parametrize("use_jit", [False, True])
def test_vmap_of_functions_taking_refs_matches_a_loop(in_axes, use_jit):
    rng = np.random.default_rng(1)
    B = 3
    base = rng.standard_normal((4, 3)).astype(np.float32)
    rax, iax, vax = in_axes
    full = np.stack([base + k for k in range(B)], axis=rax)
    idx = np.array([3, 0, 2], np.int32) if iax is not None else np.int32(1)
    v = rng.standard_normal((B, 3)).astype(np.float32) if vax is not None else \
        rng.standard_normal(3).astype(np.float32)
    r = jax.new_ref(jnp.asarray(full))
    fn = jax.vmap(_rw, in_axes=in_axes)
    out = (jax.jit(fn) if use_jit else fn)(r, jnp.asarray(idx), jnp.asarray(v))
    for k in range(B):
        rk = jax.new_ref(jnp.asarray(np.take(full, k, axis=rax)))
        want = _rw(rk, idx[k] if iax is not None else idx, v[k] if vax is not None else v)
        np.testing.assert_allclose(out[k], want, rtol=1e-5, atol=1e-5)
        np.testing.assert_allclose(np.take(np.asarray(jax.freeze(r)), k, axis=rax),
                                   jax.freeze(rk), rtol=1e-6)


def test_vmap_of_fori_loop_over_batched_ref_index_by_loop_counter():
    def f(r, x):
        def body(i, c):
            r[i] = c * x[i]
            return c + r[i]
        return lax.fori_loop(0, 4, body, 1.0)
    xs = np.arange(8.0, dtype=np.float32).reshape(2, 4)
    r = jax.new_ref(jnp.zeros((4, 2)))
    out = jax.jit(jax.vmap(f, in_axes=(1, 0)))(r, xs)
    for k in range(2):
        rk = jax.new_ref(jnp.zeros(4))
        np.testing.assert_allclose(out[k], f(rk, jnp.asarray(xs[k])), rtol=1e-6)
        np.testing.assert_allclose(jax.freeze(r)[:, k], jax.freeze(rk), rtol=1e-6)


def test_grad_through_jit_taking_a_ref_vs_finite_differences():
    from pyjax.test_util import check_grads

    def stateful(r, x):
        def body(i, c):
            r[i] = jnp.sin(c) * x[i]
            return c + r[i]
        out = lax.fori_loop(0, x.shape[0], body, 0.5)
        r[1:] += r[:-1] * x[1:]
        return out

    def loss(x):
        r = jax.new_ref(jnp.zeros_like(x))
        out = jax.jit(stateful)(r, x)
        return out * jnp.sum(r[...] ** 2)

    def functional(x):
        vals, c = [], 0.5
        for i in range(x.shape[0]):
            v = jnp.sin(c) * x[i]
            vals.append(v)
            c = c + v
        r = jnp.stack(vals)
        r = r.at[1:].add(r[:-1] * x[1:])
        return c * jnp.sum(r ** 2)
    x = jnp.asarray(X5)
    np.testing.assert_allclose(loss(x), functional(x), rtol=1e-5)
    np.testing.assert_allclose(jax.grad(loss)(x), jax.grad(functional)(x), rtol=1e-4, atol=1e-5)
    check_grads(loss, (x,), order=1, modes=("fwd", "rev"), atol=1e-2, rtol=1e-2)


def test_jvp_rules_with_a_differentiated_ref():
    """A ref whose tangent is a ref (JAX's state AD): get/swap/addupdate carry tangents."""
    from pyjax._src.interpreters import ad
    from pyjax._src.state import primitives as sp
    r, t = jax.new_ref(jnp.arange(3.0)), jax.new_ref(jnp.ones(3))
    spec = (("slice", 0, 3, 1),)
    out, out_t = sp._get_jvp([r], [t], spec=spec)
    np.testing.assert_array_equal(out_t, [1, 1, 1])
    old, old_t = sp._swap_jvp([r, jnp.full(3, 5.0)], [t, jnp.full(3, 2.0)], spec=spec)
    np.testing.assert_array_equal(old, [0, 1, 2])
    np.testing.assert_array_equal(old_t, [1, 1, 1])
    np.testing.assert_array_equal(jax.freeze(t), [2, 2, 2])
    sp._addupdate_jvp([r, jnp.ones(3)], [t, ad.Zero(core.ShapedArray((3,), np.float32))], spec=spec)
    np.testing.assert_array_equal(jax.freeze(r), [6, 6, 6])
    np.testing.assert_array_equal(jax.freeze(t), [2, 2, 2])


def test_vmap_writes_an_unbatched_value_into_an_outer_ref():
    """(A deliberate difference, DIFFERENCES above.) The value written does not depend on the
    mapped axis, so every example writes the same: pyjax writes it."""
    r = jax.new_ref(jnp.zeros(3))
    out = jax.vmap(jax.jit(lambda x: (r.__setitem__(0, 1.0), r[...].sum() * x)[1]))(
        jnp.arange(2.0))
    np.testing.assert_allclose(out, [0.0, 1.0])
    np.testing.assert_allclose(jax.freeze(r), [1.0, 0.0, 0.0])
    with pytest.raises(Exception, match="vmapped value on an unbatched"):
        jax.vmap(jax.jit(lambda x: (r.__setitem__(0, x), x)[1]))(jnp.arange(2.0))


def test_trace_to_jaxpr_dynamic_keeps_refs_and_partial_discharge():
    """JAX 0.10.2's internals as its state tests use them: `pe.trace_to_jaxpr_dynamic` over
    `shaped_array_ref` avals gives the jaxpr as traced (refs kept, effects on the input Vars),
    `discharge_state(closed, should_discharge=...)` discharges only the chosen refs."""

    def f(a_ref, b_ref):
        a_ref[...] = jnp.ones(4, jnp.float32)
        b_ref[...] = jnp.ones(4, jnp.float32)
        return [a_ref[...]]
    avals = [shaped_array_ref((4,), np.float32), shaped_array_ref((4,), np.float32)]
    jaxpr, out_avals, consts = pe.trace_to_jaxpr_dynamic(f, avals)
    a, b = jaxpr.invars
    assert [type(v.aval) for v in (a, b)] == [AbstractRef, AbstractRef]
    assert out_avals == [core.ShapedArray((4,), np.dtype(np.float32))]
    assert jaxpr.effects == {WriteEffect(a), WriteEffect(b), ReadEffect(a)}
    assert "b[...] <- " in jaxpr.pretty_print(use_color=False)
    out = discharge_state(core.ClosedJaxpr(jaxpr, consts), should_discharge=[False, True])
    assert isinstance(out.invars[0].aval, AbstractRef)
    assert isinstance(out.invars[1].aval, core.ShapedArray) and len(out.outvars) == 2
    assert out.effects == {WriteEffect(out.invars[0]), ReadEffect(out.invars[0])}
    assert [e.primitive for e in out.eqns].count(swap_p) == 1
    assert [e.primitive for e in out.eqns].count(get_p) == 1
    # as JAX: get/swap of a value that is not a ref is a ValueError naming the operation
    with pytest.raises(ValueError, match="`get` must be called on `Ref` types"):
        pe.trace_to_jaxpr_dynamic(lambda x: [jax.ref.get(x, ())],
                                  [core.ShapedArray((), np.dtype(np.float32))])


@pytest.mark.parametrize("at, idx, composable", [
    (((0,),), (np.array([0, 1]), slice(None), np.array([0, 1])), True),
    (((slice(0, 2),),), (slice(None), slice(0, 1), slice(1, 3), slice(None)), True),
    (((slice(None), slice(1, 3)), (0,)), (np.array([0, 1]), slice(None), np.array([1, 0])), True),
    # not one index: NumPy's rule would move the indexed block; an array view
    (((0,),), (slice(None), np.array([1, 0])), False),
    (((np.array([1, 0]),),), (0, slice(1, 2)), False),
])
def test_writes_through_views_are_one_primitive_on_the_ref(at, idx, composable):
    """`ref.at[i].at[j][k] op= v`: one get/swap/addupdate of the ref (JAX's transforms, so the
    effects are JAX's: a write is no read, an accumulation only Accum), with NumPy's values.
    JAX's state_test test_addupdate_abstract_eval ref_with_*_at, test_swap_abstract_eval."""
    base = np.arange(3 * 3 * 2 * 4, dtype=np.float32).reshape(3, 3, 2, 4)

    def view(r):
        for a in at:
            r = r.at[a]
        return r

    def window(x):
        for a in at:
            x = x[a]
        return x
    want_get = window(base)[idx]
    val = np.full(want_get.shape, 10, np.float32)

    def f(r, v):
        got = view(r)[idx]
        jax.ref.addupdate(view(r), idx, v)
        return [got]
    avals = [shaped_array_ref(base.shape, np.float32), core.ShapedArray(val.shape, np.float32)]
    jaxpr, _, _ = pe.trace_to_jaxpr_dynamic(f, avals)
    prims = [e.primitive.name for e in jaxpr.eqns if e.primitive.name in ("get", "swap",
                                                                           "addupdate")]
    assert prims == (["get", "addupdate"] if composable else ["get", "get", "swap"]), prims
    r = jax.new_ref(jnp.asarray(base))
    np.testing.assert_array_equal(view(r)[idx], want_get)
    jax.ref.addupdate(view(r), idx, jnp.asarray(val))
    want = base.copy()
    w = window(want)                  # a NumPy view of `want`, except under an array index:
    w[idx] += val
    if isinstance(at[0][0], np.ndarray):   # there NumPy copies: the window is written back
        want[at[0]] = w
    np.testing.assert_array_equal(jax.freeze(r), want)


def test_addupdate_jvp_accumulates_the_primal_then_the_tangent():
    """JAX's rule: addupdate of the primal, then of the tangent (zeros for a constant value);
    JAX's state_test test_addupdate_jvp."""
    def f(a):
        jax.ref.addupdate(a, (), jnp.float32(1.))
        return a[()]
    avals = [shaped_array_ref((), np.float32)] * 2
    jaxpr, _, _ = pe.trace_to_jaxpr_dynamic(lambda r, t: jax.jvp(f, (r,), (t,)), avals)
    assert [e.primitive.name for e in jaxpr.eqns][:4] == ["addupdate", "addupdate", "get", "get"]


def test_refs_written_in_control_flow_are_effects_of_the_enclosing_jaxpr():
    """An effect on a cond branch's or loop body's input is one on the operand feeding it, so
    the enclosing jaxpr reads/writes its own ref inputs (JAX's state_test test_cond_discharge).
    make_jaxpr takes AbstractRef avals as arguments, as JAX's."""
    def f(pred, x_ref, y_ref):
        lax.cond(pred, lambda: x_ref.__setitem__(..., 1.0), lambda: y_ref.__setitem__(..., 2.0))
        lax.while_loop(lambda c: c < x_ref[...], lambda c: (y_ref.__setitem__(..., c), c + 1)[1],
                       0.0)
        return x_ref[...]
    ref = shaped_array_ref((), np.float32)
    closed = jax.make_jaxpr(f)(False, ref, ref)
    _, x, y = closed.jaxpr.invars
    assert closed.effects == {ReadEffect(x), WriteEffect(x), WriteEffect(y)}
    # discharging y only keeps x's write (in the discharged cond) and its read
    out = discharge_state(closed, should_discharge=[False, False, True])
    assert isinstance(out.invars[1].aval, AbstractRef) and not isinstance(out.invars[2].aval,
                                                                          AbstractRef)
    assert out.effects == {ReadEffect(out.invars[1]), WriteEffect(out.invars[1])}


def test_nested_run_state_writes_the_outer_ref_from_a_cond():
    """A run_state body closing over an outer run_state's ref leaves it a ref (only its own refs
    are discharged), so a cond writing it writes the outer one; values from JAX 0.10.2."""
    def f(pred):
        def body(refs):
            x_ref, o_ref = refs

            def inner(z_ref):
                a = jnp.array(2.)
                lax.cond(pred, lambda: x_ref.__setitem__((), 1. * a),
                         lambda: z_ref.__setitem__((), 1.))
            o_ref[...] = run_state(inner)(0.)
        return run_state(body)((0., 0.))
    for pred, want in [(True, (2., 0.)), (False, (0., 1.))]:
        np.testing.assert_array_equal(f(pred), want)
        np.testing.assert_array_equal(jax.jit(f)(pred), want)


def test_run_state_with_an_uninitialized_ref():
    """A type registered in `_ref_type_aval_mappings` gives run_state a ref without an initial
    value (JAX's `uninitialized`); written before it is read (JAX's state_test
    test_run_state_with_uninitialized_input)."""
    from pyjax._src.state import types as state_types

    class Later:
        pass
    state_types._ref_type_aval_mappings[Later] = lambda _: (
        shaped_array_ref((), np.int32), state_types.uninitialized)
    try:
        def f(refs):
            x_ref, y_ref = refs
            y_ref[...] = x_ref[...] * 2
            x_ref[...] = y_ref[...] + x_ref[...]
        x, y = run_state(f)((jnp.int32(2), Later()))
        assert (int(x), int(y)) == (6, 4)
        # read before written: the dtype's minimum (NaN for floats), as JAX
        _, y = run_state(lambda refs: None)((jnp.int32(2), Later()))
        assert int(y) == np.iinfo(np.int32).min
    finally:
        del state_types._ref_type_aval_mappings[Later]


def test_a_ref_view_rebuilt_by_tree_map_holds_any_leaves():
    """A view is a pytree node; one rebuilt over other leaves (shard_map's default in_specs,
    a P() per leaf) flattens again (JAX's state_test test_write_transformed_ref_shard_map)."""
    from pyjax.sharding import PartitionSpec as P
    r = jax.new_ref(jnp.arange(10.0))
    specs = jax.tree.map(lambda _: P(), r.at[2:7])
    assert jax.tree.leaves(specs) == [P()]

    @jax.jit
    def f():
        x_ref = jax.new_ref(jnp.zeros(10))
        view = x_ref.at[2:7]
        assert jax.tree.leaves(jax.tree.map(lambda _: P(), view)) == [P()]
        view[...] = jnp.ones(5)
        return x_ref[...]
    np.testing.assert_array_equal(f(), np.r_[np.zeros(2), np.ones(5), np.zeros(3)])


def test_a_ref_of_a_token_is_read_and_written_whole():
    """`AbstractRef(core.AbstractToken())`: get/swap/addupdate of a token ref trace, and what
    is read is a token (JAX's state_test test_token)."""
    def f(x_ref):
        x = x_ref[...]
        x_ref[...] = x
        jax.ref.addupdate(x_ref, (), x)
        return [x]
    jaxpr, _, _ = pe.trace_to_jaxpr_dynamic(f, [AbstractRef(core.AbstractToken())])
    assert type(jaxpr.outvars[0].aval) is core.AbstractToken
    assert [e.primitive.name for e in jaxpr.eqns] == ["get", "swap", "addupdate"]
