"""lax.scan, fori_loop, map, associative_scan and the cumulative reductions: values against Python
loops / NumPy (eager and jit), gradients by finite differences, vmap against per-example loops,
nesting, and the error messages."""
import numpy as np
import pytest

import pyjax
import pyjax.numpy as jnp
from pyjax import lax
from pyjax._src import ad_api, core
from pyjax._src.interpreters import partial_eval as pe
from pyjax._src.public_test_util import check_grads_refined as check_grads

rng = np.random.default_rng(0)


def _f32(*shape):
    return rng.normal(size=shape).astype(np.float32)


def py_scan(f, init, xs, reverse=False):
    """The reference: a Python loop over the leading axis (NumPy values)."""
    n = len(xs)
    carry, ys = init, [None] * n
    for i in (reversed(range(n)) if reverse else range(n)):
        carry, ys[i] = f(carry, xs[i])
    return carry, np.stack(ys)


def cell(w, c, x):
    return jnp.tanh(c * w + x), c * x


def np_cell(w, c, x):
    return np.tanh(c * w + x), c * x


W, XS, C0 = _f32(3), _f32(6, 3), _f32(3)


# -- values -------------------------------------------------------------------------------------


@pytest.mark.parametrize("reverse", [False, True])
@pytest.mark.parametrize("unroll", [1, 2, 4, True])
def test_scan_matches_loop(reverse, unroll):
    want_c, want_ys = py_scan(lambda c, x: np_cell(W, c, x), C0, XS, reverse)
    f = lambda w, c, xs: lax.scan(lambda c, x: cell(w, c, x), c, xs, reverse=reverse, unroll=unroll)
    got_c, got_ys = pyjax.jit(f)(W, C0, XS)
    np.testing.assert_allclose(got_c, want_c, rtol=1e-5)
    np.testing.assert_allclose(got_ys, want_ys, rtol=1e-5)


def test_scan_eager_pytrees_and_xs_none():
    def f(carry, x):
        a, (b,) = carry["a"], carry["b"]
        return {"a": a + x["u"], "b": (b * 2,)}, (a, {"v": x["u"] * b})
    init = {"a": np.float32(1), "b": (np.ones(2, np.float32),)}
    xs = {"u": np.arange(4, dtype=np.float32)}
    carry, (ys_a, ys_v) = lax.scan(f, init, xs)
    np.testing.assert_allclose(carry["a"], 7.0)
    np.testing.assert_allclose(carry["b"][0], [16, 16])
    np.testing.assert_allclose(ys_a, [1, 1, 2, 4])
    np.testing.assert_allclose(ys_v["v"], np.arange(4)[:, None] * 2.0 ** np.arange(4)[:, None] * np.ones(2))
    c, ys = lax.scan(lambda c, _: (c + 1, c * 2), 0, None, length=5)
    assert int(c) == 5 and ys.tolist() == [0, 2, 4, 6, 8]


def test_scan_weak_init_takes_body_type():
    c, _ = pyjax.jit(lambda xs: lax.scan(lambda c, x: (c + x, None), 0, xs))(np.ones(3, np.float32))
    assert c.dtype == np.float32 and float(c) == 3.0


def test_scan_length_zero():
    c, ys = pyjax.jit(lambda xs: lax.scan(lambda c, x: (c + x, x * 2), jnp.ones(2), xs))(np.zeros((0, 2), np.float32))
    assert ys.shape == (0, 2) and c.tolist() == [1.0, 1.0]


def test_fori_loop_static_and_dynamic():
    body = lambda i, x: x * 1.5 + i
    want = 1.0
    for i in range(2, 7):
        want = want * 1.5 + i
    np.testing.assert_allclose(lax.fori_loop(2, 7, body, 1.0), want, rtol=1e-6)
    np.testing.assert_allclose(pyjax.jit(lambda n: lax.fori_loop(2, n, body, 1.0))(7), want, rtol=1e-6)
    jaxpr = pyjax.make_jaxpr(lambda x: lax.fori_loop(0, 3, body, x))(1.0)
    assert [e.primitive.name for e in jaxpr.eqns] == ["scan"]
    # static bounds are reverse-differentiable
    check_grads(lambda x: lax.fori_loop(0, 4, lambda i, c: jnp.sin(c) * x, x), (np.float32(0.7),), order=1)


@pytest.mark.parametrize("batch_size", [None, 0, 2, 5, 7])  # (0: one batch of all, as JAX)
def test_map(batch_size):
    xs = _f32(5, 3)
    f = lambda x: {"s": jnp.sum(x * x), "t": x[::-1]}
    got = pyjax.jit(lambda xs: lax.map(f, xs, batch_size=batch_size))(xs)
    np.testing.assert_allclose(got["s"], np.sum(xs * xs, 1), rtol=1e-5)
    np.testing.assert_allclose(got["t"], xs[:, ::-1])


# -- differentiation ------------------------------------------------------------------------------


def _loss(w, c, xs, reverse=False, unroll=1):
    c, ys = lax.scan(lambda c, x: cell(w, c, x), c, xs, reverse=reverse, unroll=unroll)
    return jnp.sum(c) + jnp.sum(ys * ys)


@pytest.mark.parametrize("reverse,unroll", [(False, 1), (True, 2)])
def test_scan_grads(reverse, unroll):
    f = pyjax.jit(lambda w, c, xs: _loss(w, c, xs, reverse, unroll))
    check_grads(f, (W, C0, XS), order=1, modes=["fwd", "rev"])


def test_scan_grads_order2():
    f = lambda w, c: _loss(w, c, XS[:3])
    check_grads(f, (W, C0), order=2, modes=["fwd", "rev"])


def test_jit_grad_matches_eager_grad():
    g = pyjax.grad(_loss, argnums=(0, 1, 2))
    for a, b in zip(g(W, C0, XS), pyjax.jit(g)(W, C0, XS)):
        np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-6)


def test_grad_int_carry_and_closure():
    M = _f32(3, 3)

    def f(m, x0):
        def body(c, _):
            i, x = c
            return (i + 1, jnp.tanh(m @ x) * i), x
        (_, x), xs = lax.scan(body, (0, x0), None, length=4)
        return jnp.sum(x) + jnp.sum(xs)
    check_grads(pyjax.jit(f), (M, C0), order=1, modes=["fwd", "rev"])


def test_linearize_saves_residuals_and_does_not_recompute():
    def flat(w, xs):
        c, ys = lax.scan(lambda c, x: (jnp.tanh(c * w + x), jnp.sin(c)), jnp.zeros(3), xs)
        return [jnp.sum(c) + jnp.sum(ys)], []
    lin = ad_api.linearize_flat(flat, [W, XS])
    scans = [e for e in lin.linear_jaxpr.eqns if e.primitive.name == "scan"]
    assert len(scans) == 1
    body_prims = {e.primitive.name for e in scans[0].params["jaxpr"].eqns}
    assert not body_prims & {"tanh", "sin"}, body_prims  # the forward pass is not recomputed
    # w (a const) is forwarded, not stacked per iteration; no more per-iteration arrays than
    # JAX 0.10.2 keeps (its linearized function holds 4 arrays of (6, 3): tanh's JVP, as JAX's,
    # reads tanh(x) and 1 - tanh(x))
    stacked = [r for r in lin.residuals if core.get_aval(r).shape[:1] == (6,)]
    assert all(np.shape(r) == (6, 3) for r in stacked) and len(stacked) <= 4
    t_out, = lin.jvp([np.ones(3, np.float32), np.zeros((6, 3), np.float32)])
    eps = 1e-3
    fd = (flat(W + eps, XS)[0][0] - flat(W - eps, XS)[0][0]) / (2 * eps)
    np.testing.assert_allclose(t_out, fd, rtol=2e-2)


# -- vmap ------------------------------------------------------------------------------------------


@pytest.mark.parametrize("in_axes", [(0, None, None), (None, 0, None), (None, None, 1), (0, 0, 0)])
def test_vmap_scan(in_axes):
    ws, cs, xss = _f32(4, 3), _f32(4, 3), _f32(4, 6, 3)
    args = [ws if in_axes[0] == 0 else W, cs if in_axes[1] == 0 else C0,
            (np.moveaxis(xss, 0, 1) if in_axes[2] == 1 else xss) if in_axes[2] is not None else XS]
    f = lambda w, c, xs: lax.scan(lambda c, x: cell(w, c, x), c, xs)
    got_c, got_ys = pyjax.jit(pyjax.vmap(f, in_axes=in_axes))(*args)
    for b in range(4):
        w = ws[b] if in_axes[0] == 0 else W
        c0 = cs[b] if in_axes[1] == 0 else C0
        xs = xss[b] if in_axes[2] is not None else XS
        want_c, want_ys = py_scan(lambda c, x: np_cell(w, c, x), c0, xs)
        np.testing.assert_allclose(got_c[b], want_c, rtol=1e-5, atol=1e-6)
        np.testing.assert_allclose(got_ys[b], want_ys, rtol=1e-5, atol=1e-6)


def test_vmap_carry_becomes_batched():
    # the carry starts unbatched and becomes batched through the batched xs
    f = lambda xs: lax.scan(lambda c, x: (c + x, c), 0.0, xs)
    c, ys = pyjax.vmap(f)(np.arange(6.0, dtype=np.float32).reshape(2, 3))
    np.testing.assert_allclose(c, [3.0, 12.0])
    np.testing.assert_allclose(ys, [[0, 0, 1], [0, 3, 7]])


# -- nesting ---------------------------------------------------------------------------------------


def test_scan_in_scan_grad():
    def f(w, xs):
        def outer(c, x):
            c2, _ = lax.scan(lambda d, y: (jnp.sin(d * w + y), None), c, x)
            return c2, jnp.sum(c2)
        return jnp.sum(lax.scan(outer, jnp.ones(2), xs)[1])
    xs = _f32(3, 4, 2)
    check_grads(pyjax.jit(f), (np.float32(0.3), xs), order=1, modes=["fwd", "rev"])


def test_grad_of_vmap_of_scan():
    ws = _f32(4, 3)
    f = lambda ws: jnp.sum(pyjax.vmap(lambda w: _loss(w, C0, XS))(ws))
    g = pyjax.jit(pyjax.grad(f))(ws)
    for b in range(4):
        np.testing.assert_allclose(g[b], pyjax.grad(_loss)(ws[b], C0, XS), rtol=1e-4, atol=1e-5)


def test_vmap_of_grad_of_scan():
    ws = _f32(4, 3)
    g = pyjax.jit(pyjax.vmap(pyjax.grad(_loss), in_axes=(0, None, None)))(ws, C0, XS)
    for b in range(4):
        np.testing.assert_allclose(g[b], pyjax.grad(_loss)(ws[b], C0, XS), rtol=1e-4, atol=1e-5)


# -- errors ----------------------------------------------------------------------------------------


def test_errors():
    ident = lambda c, x: (c, x)
    with pytest.raises(ValueError, match="different leading axis sizes: 3, 4"):
        lax.scan(ident, 0.0, (np.ones(3), np.ones(4)))
    with pytest.raises(ValueError, match="`length` argument of 5 which disagrees"):
        lax.scan(ident, 0.0, np.ones(3), length=5)
    with pytest.raises(ValueError, match="no values to scan over and `length` not provided"):
        lax.scan(ident, 0.0, None)
    with pytest.raises(TypeError, match=r"c\[1\] has type float32\[\] .* float32\[3\], so the shapes"):
        lax.scan(lambda c, x: ((c[0], jnp.ones(3)), x), (0.0, 1.0), np.ones(3))
    with pytest.raises(TypeError, match=r"c\['b'\] has type float32\[\] .* int32\[\], so the dtypes"):
        lax.scan(lambda c, x: ({"a": c["a"], "b": c["a"].astype(jnp.int32)}, x),
                 {"a": np.float32(0), "b": np.float32(1)}, np.ones(3))
    with pytest.raises(TypeError, match="same pytree structure"):
        lax.scan(lambda c, x: ((c, c), x), (0.0, 1.0), np.ones(3))


# -- associative_scan and cumulative reductions ----------------------------------------------------

CUMS = [(lax.cumsum, np.cumsum), (lax.cumprod, np.cumprod), (lax.cummax, np.maximum.accumulate),
        (lax.cummin, np.minimum.accumulate), (lax.cumlogsumexp, np.logaddexp.accumulate)]


def _np_cum(nf, x, axis, reverse):
    return np.flip(nf(np.flip(x, axis), axis=axis), axis) if reverse else nf(x, axis=axis)


@pytest.mark.parametrize("fn,nf", CUMS, ids=[c[0].__name__ for c in CUMS])
def test_cumulative(fn, nf):
    x = _f32(5, 4)
    for axis in (0, 1):
        for reverse in (False, True):
            want = _np_cum(nf, x, axis, reverse)
            np.testing.assert_allclose(fn(x, axis, reverse), want, rtol=1e-5)
            np.testing.assert_allclose(pyjax.jit(lambda x: fn(x, axis, reverse))(x), want, rtol=1e-5)
    np.testing.assert_allclose(pyjax.vmap(lambda r: fn(r, 0), in_axes=1)(x), _np_cum(nf, x, 0, False).T, rtol=1e-5)
    check_grads(lambda x: fn(x, 1, True), (x,), order=2 if fn is not lax.cummax else 1, modes=["fwd", "rev"])


@pytest.mark.parametrize("n", [1, 2, 5, 8, 13])
def test_associative_scan(n):
    x = _f32(3, n)
    got = lax.associative_scan(lax.add, x, axis=1)
    np.testing.assert_allclose(got, np.cumsum(x, 1), rtol=1e-5, atol=1e-5)
    got = lax.associative_scan(lax.add, x, reverse=True, axis=-1)
    np.testing.assert_allclose(got, np.flip(np.cumsum(np.flip(x, 1), 1), 1), rtol=1e-5, atol=1e-5)

    def affine(a, b):  # composition of x -> m*x + c maps: a pytree, non-commutative
        return (a[0] * b[0], a[1] * b[0] + b[1])
    m, c = _f32(n), _f32(n)
    got_m, got_c = pyjax.jit(lambda m, c: lax.associative_scan(affine, (m, c)))(m, c)
    want_m, want_c = np.cumprod(m), [c[0]]
    for i in range(1, n):
        want_c.append(want_c[-1] * m[i] + c[i])
    np.testing.assert_allclose(got_m, want_m, rtol=1e-4)
    np.testing.assert_allclose(got_c, want_c, rtol=1e-4, atol=1e-5)


def test_jnp_cumulative_uses_lax():
    x = np.array([[1, 2], [3, 4]], np.int32)
    assert pyjax.make_jaxpr(jnp.cumsum)(x).eqns[-1].primitive.name == "cumsum"
    np.testing.assert_array_equal(jnp.cumsum(x, axis=1), np.cumsum(x, 1))
    np.testing.assert_array_equal(jnp.cumprod(x), np.cumprod(x))
    assert jnp.cumsum(np.array([True, True])).dtype == np.int32


# -- eager trace caching, as recorded from JAX 0.10.2 (tests/data/record_control_flow.py) ------

class _Counter(dict):
    def __missing__(self, key):
        return 0


@pytest.mark.parametrize("name", ["scan", "scan_keeps_closed_over_values", "fori_loop", "clear_caches"])
def test_eager_loops_trace_each_body_once_per_signature(name):
    import json
    import pathlib
    data = json.loads((pathlib.Path(__file__).parent / "data" / "control_flow.json").read_text())
    scenario, n = data["traces"][name], _Counter()
    exec(scenario["code"], dict(jax=pyjax, jnp=jnp, np=np, lax=lax, n=n))
    assert dict(n) == scenario["counts"]


def test_fori_loop_with_traced_bounds_carries_the_bound_as_jax_does():
    jaxpr = pyjax.make_jaxpr(lambda n, x: lax.fori_loop(0, n, lambda i, c: c + i, x))(3, 1.0)
    (eqn,) = jaxpr.jaxpr.eqns  # no conversion of the already int32 bound
    assert eqn.primitive.name == "while" and len(eqn.outvars) == 3
    assert float(pyjax.jit(lambda n, x: lax.fori_loop(0, n, lambda i, c: c + i, x))(4, 1.0)) == 7.0


@pytest.mark.parametrize("lower,upper", [(0, 2.5), (0.0, 3), (np.int8(0), np.int32(3)), (0, True)])
@pytest.mark.parametrize("wrap", [lambda f: f, pyjax.jit], ids=["eager", "jit"])
def test_fori_loop_bounds_of_different_types_raise_as_jax(lower, upper, wrap):
    # JAX 0.10.2: only a weak (Python) int may take the other bound's signed integer dtype
    with pytest.raises(TypeError, match="lower and upper arguments to fori_loop must have equal types"):
        wrap(lambda lo, hi: lax.fori_loop(lo, hi, lambda i, c: c + i, 0))(lower, upper)


def test_fori_loop_weak_bound_takes_the_other_dtype():
    out = pyjax.jit(lambda hi: lax.fori_loop(0, hi, lambda i, c: c + i, 0))(np.int16(4))
    assert out.dtype == np.int16 and int(out) == 6  # as recorded from JAX 0.10.2


def test_fori_loop_index_type_as_jax():
    # JAX 0.10.2 (recorded): concrete bounds of any type count with a weak int from int(lower);
    # traced float bounds count in floats (blackjax's `fori_loop(0 * n, n, ...)` with a float n)
    seen = []

    def body(i, x):
        aval = core.get_aval(i)
        seen.append(("~" if aval.weak_type else "") + f"{aval.dtype.name}{list(aval.shape)}")
        return x + 1.0
    assert float(lax.fori_loop(np.int16(0), np.int16(3), body, 0.0)) == 3.0 and seen[-1] == "~int32[]"
    assert float(lax.fori_loop(np.float32(0), np.float32(3), body, 0.0)) == 3.0 and seen[-1] == "~int32[]"
    assert float(pyjax.jit(lambda n: lax.fori_loop(0 * n, n, body, 0.0))(np.float32(2.5))) == 3.0
    assert seen[-1] == "float32[]"


# -- dce: only the carries the used outputs need (JAX's api_test DCETest, values as JAX 0.10.2) --

def _shifted_sum_scan(lst):
    """Each carry reads itself and its left neighbour."""
    def body(c, _):
        return [c[0]] + [a + b for a, b in zip(c[:-1], c[1:])], None
    return lax.scan(body, lst, None, length=len(lst))[0]


@pytest.mark.parametrize("used_outputs, used_inputs, num_eqns", [
    ([True, True, True, False], [True, True, True, False], 1 + 2),
    ([False, False, True, False], [True, True, True, False], 1 + 2),
    ([True, True, False, False], [True, True, False, False], 1 + 1),
    ([False, False, False, True], [True, True, True, True], 1 + 3),
])
def test_scan_dce_keeps_the_carries_the_used_outputs_need(used_outputs, used_inputs, num_eqns):
    args = [1., 2., 3., 4.]
    jaxpr = pyjax.make_jaxpr(_shifted_sum_scan)(args).jaxpr
    dced, used = pe.dce_jaxpr(jaxpr, used_outputs)
    core.check_jaxpr(dced)
    assert used == used_inputs
    assert len(dced.eqns) + sum(len(j.eqns) for j in core.subjaxprs(dced)) == num_eqns
    full = core.eval_jaxpr(jaxpr, [], *args)
    outs = core.eval_jaxpr(dced, [], *[x for x, u in zip(args, used) if u])
    np.testing.assert_allclose([float(o) for o in outs],
                               [float(o) for o, u in zip(full, used_outputs) if u])


@pytest.mark.parametrize("make, message", [
    (lambda n: lambda c, z: lax.scan(lambda c, z: (c, z), c, (), n),
     "The `length` argument to `scan` expects a concrete `int` value."),
    (lambda n: lambda c, z: lax.scan(lambda c, z: (c, z), c, (), 10, unroll=n),
     "The `unroll` argument to `scan` expects a concrete `int` or `bool` value."),
])
def test_traced_length_or_unroll_is_jax_concretization_error(make, message):
    """JAX 0.10.2's class and words (lax_control_flow_test test_scan_*_concrete_error)."""
    f = pyjax.jit(lambda n, x: make(n)(x, None))
    with pytest.raises(pyjax.errors.ConcretizationTypeError, match=message.replace("`", ".")):
        f(3, 1.0)
