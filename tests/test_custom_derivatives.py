"""Custom derivatives and rematerialization (issue 3): `custom_jvp` (defjvp, defjvps,
nondiff_argnums, under jit and vmap, nested, in reverse mode), `custom_vjp` (defvjp,
nondiff_argnums, pytree residuals, None cotangents, closure_convert, forward mode refused) and
`checkpoint` (same gradients under every policy; the policies shown to change the residuals the
linearized function saves)."""
import functools

import numpy as np
import pytest

import pyjax
import pyjax.numpy as jnp
from pyjax import lax
from pyjax._src import ad_api, core
from pyjax._src.ad_checkpoint import checkpoint_name, saved_residuals
from pyjax._src.interpreters import ad
from pyjax.test_util import check_grads


# -- custom_jvp --------------------------------------------------------------------------------

@pyjax.custom_jvp
def log1pexp(x):
    return jnp.log(1.0 + jnp.exp(x))


@log1pexp.defjvp
def _log1pexp_jvp(primals, tangents):
    (x,), (t,) = primals, tangents
    return log1pexp(x), (1 - 1 / (1 + jnp.exp(x))) * t


def test_custom_jvp_rule_is_used():
    assert np.isnan(pyjax.grad(lambda x: jnp.log(1.0 + jnp.exp(x)))(100.0))
    assert pyjax.grad(log1pexp)(100.0) == 1.0
    assert pyjax.jit(pyjax.grad(log1pexp))(100.0) == 1.0
    assert pyjax.grad(pyjax.jit(log1pexp))(100.0) == 1.0
    np.testing.assert_allclose(pyjax.vmap(pyjax.grad(log1pexp))(np.array([0.0, 100.0], np.float32)), [0.5, 1.0])
    check_grads(log1pexp, (np.float32(0.3),), order=2)
    # a rule differing from the true derivative shows it is really used, forward and reverse
    sq = pyjax.custom_jvp(lambda x: x ** 2)
    sq.defjvp(lambda p, t: (sq(p[0]), 100.0 * t[0]))
    assert pyjax.grad(sq)(1.0) == 100.0
    assert pyjax.jvp(sq, (1.0,), (1.0,)) == (1.0, 100.0)


def test_custom_jvp_nested_and_reverse():
    seen = []

    @pyjax.custom_jvp
    def f(x, y):
        return jnp.sin(x) * y

    @f.defjvp
    def f_jvp(primals, tangents):
        (x, y), (tx, ty) = primals, tangents
        seen.append(type(ty))
        return f(x, y), jnp.cos(x) * tx * y + jnp.sin(x) * ty

    x, y = np.float32(0.5), np.float32(2.0)
    np.testing.assert_allclose(pyjax.grad(f)(x, y), np.cos(x) * y, rtol=1e-6)
    assert not issubclass(seen[-1], ad.Zero)  # symbolic zeros off: an instantiated zero tangent
    np.testing.assert_allclose(pyjax.grad(pyjax.grad(f))(x, y), -np.sin(x) * y, rtol=1e-6)
    np.testing.assert_allclose(pyjax.grad(f, argnums=1)(x, y), np.sin(x), rtol=1e-6)
    np.testing.assert_allclose(pyjax.jit(pyjax.grad(f, argnums=(0, 1)))(x, y), (np.cos(x) * y, np.sin(x)), rtol=1e-6)
    np.testing.assert_allclose(pyjax.hessian(lambda v: f(v[0], v[1]))(np.array([x, y])),
                               [[-np.sin(x) * y, np.cos(x)], [np.cos(x), 0]], rtol=1e-5, atol=1e-6)
    check_grads(f, (x, y), order=2, modes=("fwd", "rev"))


def test_custom_jvp_defjvps_and_nondiff_argnums():
    @pyjax.custom_jvp
    def f(x, y):
        return x * y

    f.defjvps(lambda tx, ans, x, y: 10.0 * tx * y, lambda ty, ans, x, y: 20.0 * x * ty)
    assert pyjax.grad(f, argnums=(0, 1))(2.0, 3.0) == (30.0, 40.0)

    @functools.partial(pyjax.custom_jvp, nondiff_argnums=(0,))
    def apply(fn, x):
        return fn(x)

    @apply.defjvp
    def apply_jvp(fn, primals, tangents):
        return apply(fn, primals[0]), 2.0 * tangents[0]

    assert pyjax.grad(lambda x: apply(jnp.sin, x))(1.0) == 2.0
    assert pyjax.jit(pyjax.grad(lambda x: apply(jnp.sin, x)))(1.0) == 2.0
    np.testing.assert_allclose(apply(jnp.sin, 1.0), np.sin(1.0), rtol=1e-6)
    # pytree arguments and outputs
    tree_f = pyjax.custom_jvp(lambda d: {"s": d["a"] * d["b"]})
    tree_f.defjvp(lambda p, t: (tree_f(p[0]), {"s": t[0]["a"] * p[0]["b"] + p[0]["a"] * t[0]["b"]}))
    g = pyjax.grad(lambda d: tree_f(d)["s"])({"a": 2.0, "b": 5.0})
    assert g == {"a": 5.0, "b": 2.0}


# -- custom_vjp --------------------------------------------------------------------------------

@pyjax.custom_vjp
def clip_gradient(lo, hi, x):
    return x


def _clip_fwd(lo, hi, x):
    return x, (lo, hi)


def _clip_bwd(res, g):
    lo, hi = res
    return None, None, jnp.clip(g, lo, hi)


clip_gradient.defvjp(_clip_fwd, _clip_bwd)


def test_custom_vjp_clip_gradient():
    f = lambda x: 10.0 * clip_gradient(-0.5, 0.5, x)
    assert f(3.0) == 30.0
    assert pyjax.grad(f)(3.0) == 0.5
    assert pyjax.jit(pyjax.grad(f))(3.0) == 0.5
    assert pyjax.grad(pyjax.jit(f))(3.0) == 0.5
    np.testing.assert_allclose(pyjax.grad(lambda x: jnp.sum(0.1 * clip_gradient(-0.5, 0.5, x)))(np.ones(3, np.float32)), 0.1)
    np.testing.assert_allclose(pyjax.vmap(pyjax.grad(f))(np.ones(2, np.float32)), [0.5, 0.5])


def test_custom_vjp_rules_pytrees_and_nesting():
    calls = []

    @pyjax.custom_vjp
    def f(x, y):
        return jnp.sin(x) * y

    def f_fwd(x, y):
        calls.append("fwd")
        return f(x, y), {"cos": jnp.cos(x), "pair": (jnp.sin(x), y)}  # pytree residuals

    def f_bwd(res, g):
        calls.append("bwd")
        sin_x, y = res["pair"]
        return res["cos"] * g * y, sin_x * g

    f.defvjp(f_fwd, f_bwd)
    x, y = np.float32(0.5), np.float32(2.0)
    np.testing.assert_allclose(f(x, y), np.sin(x) * y, rtol=1e-6)
    assert calls == []  # calling f runs the function itself
    gx, gy = pyjax.grad(f, argnums=(0, 1))(x, y)
    np.testing.assert_allclose([gx, gy], [np.cos(x) * y, np.sin(x)], rtol=1e-6)
    assert calls == ["fwd", "bwd"]
    np.testing.assert_allclose(pyjax.jit(pyjax.grad(f))(x, y), np.cos(x) * y, rtol=1e-6)
    check_grads(f, (x, y), order=1, modes=("rev",))
    # reverse-over-reverse: bwd is differentiated like any function
    np.testing.assert_allclose(pyjax.grad(pyjax.grad(f))(x, y), -np.sin(x) * y, rtol=1e-6)
    # pytree arguments; bwd returns None for an argument with no gradient
    g = pyjax.custom_vjp(lambda d, s: d["a"] * d["b"] * s)
    g.defvjp(lambda d, s: (g(d, s), (d, s)),
             lambda res, ct: ({"a": res[0]["b"] * res[1] * ct, "b": None}, None))
    gd, gs = pyjax.grad(g, argnums=(0, 1))({"a": 2.0, "b": 3.0}, 4.0)
    assert gd == {"a": 12.0, "b": 0.0} and gs == 0.0


def test_custom_vjp_nondiff_argnums_and_closure_convert():
    @functools.partial(pyjax.custom_vjp, nondiff_argnums=(0,))
    def scale(k, x):
        return k * x

    scale.defvjp(lambda k, x: (scale(k, x), None), lambda k, res, g: (k * g * 100.0,))
    assert pyjax.grad(lambda x: scale(3.0, x))(1.0) == 300.0
    assert pyjax.jit(pyjax.grad(lambda x: scale(3.0, x)))(1.0) == 300.0

    def outer(x, w):
        f = lambda v: jnp.sin(v * w)  # closes over w, a tracer under grad
        conv, consts = pyjax.closure_convert(f, x)
        return conv(x, *consts)
    x, w = np.float32(0.3), np.float32(2.0)
    np.testing.assert_allclose(outer(x, w), np.sin(x * w), rtol=1e-6)
    np.testing.assert_allclose(pyjax.grad(outer, argnums=1)(x, w), x * np.cos(x * w), rtol=1e-6)


def test_custom_vjp_forward_mode_raises():
    with pytest.raises(TypeError, match="can't apply forward-mode autodiff"):
        pyjax.jvp(lambda x: clip_gradient(-1.0, 1.0, x), (1.0,), (1.0,))
    with pytest.raises(TypeError, match="can't apply forward-mode autodiff"):
        pyjax.jacfwd(lambda x: clip_gradient(-1.0, 1.0, x))(np.ones(2, np.float32))
    with pytest.raises(TypeError, match="must return"):
        bad = pyjax.custom_vjp(lambda x: x)
        bad.defvjp(lambda x: (x, None), lambda res, g: (g, g))
        pyjax.grad(bad)(1.0)


# -- checkpoint ----------------------------------------------------------------------------------

def _block(x, w):
    h = jnp.sin(x @ w)
    return jnp.sum(jnp.tanh(h @ w.T) * x)


def _residuals(f, *args):
    return ad_api.linearize_flat(lambda *a: ([f(*a)], []), list(args)).residuals


def _xw():
    rs = np.random.RandomState(0)
    return rs.randn(4, 3).astype(np.float32), rs.randn(3, 3).astype(np.float32)


def test_checkpoint_same_gradient():
    x, w = _xw()
    want = pyjax.grad(_block, argnums=(0, 1))(x, w)
    policies = [None, pyjax.checkpoint_policies.nothing_saveable, pyjax.checkpoint_policies.everything_saveable,
                pyjax.checkpoint_policies.dots_saveable, pyjax.checkpoint_policies.dots_with_no_batch_dims_saveable]
    for policy in policies:
        f = pyjax.checkpoint(_block, policy=policy)
        for g in (pyjax.grad(f, argnums=(0, 1)), pyjax.jit(pyjax.grad(f, argnums=(0, 1)))):
            for a, b in zip(g(x, w), want, strict=True):
                np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(pyjax.remat(_block, prevent_cse=False)(x, w), _block(x, w), rtol=1e-6)
    check_grads(pyjax.checkpoint(_block), (x, w), order=2, modes=("fwd", "rev"))
    # static_argnums and a remat inside a remat
    f = pyjax.checkpoint(lambda v, n: jnp.sum(jnp.sin(v) ** n), static_argnums=(1,))
    np.testing.assert_allclose(pyjax.grad(f)(x, 2), 2 * np.sin(x) * np.cos(x), rtol=1e-5, atol=1e-6)
    nested = pyjax.checkpoint(lambda v: pyjax.checkpoint(jnp.sin)(v) * v)
    np.testing.assert_allclose(pyjax.grad(lambda v: jnp.sum(nested(v)))(x), np.cos(x) * x + np.sin(x), rtol=1e-5)
    # linearized jaxprs type-check
    core.check_jaxpr(pyjax.make_jaxpr(pyjax.grad(pyjax.checkpoint(_block)))(x, w).jaxpr)


def test_checkpoint_backward_pass_is_a_remat_behind_an_optimization_barrier():
    """The transposed remat (its recomputation with the cotangent equations) is itself a remat
    equation, lowered behind an optimization barrier, as JAX's: XLA cannot merge the
    recomputation with the forward pass (which would keep alive what remat was asked not to
    save). A per-argument `prevent_cse` puts only the flagged operands behind the barrier; the
    module text prints as JAX prints it (MLIR's custom form), and as XLA's HLO with "hlo"."""
    g = pyjax.checkpoint(lambda x: (lax.sin(lax.sin(x)), 3.0))
    f = lambda x: g(x)[0]  # noqa: E731
    eqns = pyjax.make_jaxpr(pyjax.grad(f))(2.0).jaxpr.eqns
    assert [e.primitive.name for e in eqns] == ["remat2", "remat2"]
    assert [e.params["differentiated"] for e in eqns] == [False, True]
    assert "cos" in str(eqns[1].params["jaxpr"])
    assert "opt-barrier" not in pyjax.jit(f).lower(2.0).as_text("hlo")
    hlo = pyjax.jit(pyjax.grad(f)).lower(2.0).as_text("hlo")
    assert "HloModule" in hlo and "opt-barrier" in hlo
    np.testing.assert_allclose(pyjax.grad(f)(2.0), np.cos(np.sin(2.0)) * np.cos(2.0), rtol=1e-6)

    layer = pyjax.checkpoint(lambda w, x: jnp.tanh(x @ w), prevent_cse=(False, True))
    loss = lambda w, x: jnp.sum(layer(w, layer(w, x)))  # noqa: E731
    w, x = np.eye(3, dtype=np.float32) * 0.5, np.ones(3, np.float32)
    text = pyjax.jit(pyjax.grad(loss, (0, 1))).lower(w, x).as_text()
    barriers = [ln for ln in text.splitlines() if "stablehlo.optimization_barrier" in ln]
    # per layer: x and the cotangent behind the barrier, not w
    assert len(barriers) == 2 and all(ln.count("%") == 3 for ln in barriers), barriers
    want = pyjax.grad(lambda w, x: jnp.sum(jnp.tanh(jnp.tanh(x @ w) @ w)), (0, 1))(w, x)
    for a, b in zip(pyjax.jit(pyjax.grad(loss, (0, 1)))(w, x), want, strict=True):
        np.testing.assert_allclose(a, b, rtol=1e-6)
    with pytest.raises(TypeError, match="prevent_cse must be a bool or tuple of bools"):
        pyjax.checkpoint(jnp.sin, prevent_cse="yes")


def test_checkpoint_keeps_no_input_the_backward_pass_does_not_read():
    """A remat's unknown side takes only the known operands it reads: an input the derivative
    does not need is no residual (JAX's test_name_denylist: 0, 1, 2, 3 residuals)."""
    def f(x):
        y = checkpoint_name(jnp.multiply(2.0, 2.0), "y")
        z = checkpoint_name(jnp.multiply(2.0, 2.0), "z")
        return (x * y) * z * jnp.multiply(2.0, 2.0)

    P = pyjax.checkpoint_policies
    counts = [len(saved_residuals(pyjax.checkpoint(f, policy=P.save_any_names_but_these(*names)), 1.0))
              for names in (("y", "z"), ("z",), ())]
    assert counts == [0, 1, 2]
    np.testing.assert_allclose(pyjax.grad(pyjax.checkpoint(f))(1.0), 64.0)


def test_checkpoint_jvp_keeps_zero_tangents_symbolic():
    """Issue 24 (diffrax's test_sde_against): a remat's outputs the differentiated inputs do not
    reach keep symbolic-zero tangents, so a loop carrying one (diffrax's times) is not
    differentiated and a custom_jvp that refuses tangents (equinox's nondifferentiable) is not
    asked. Values recorded from JAX 0.10.2."""
    @pyjax.custom_jvp
    def no_tangent(x):
        return x

    @no_tangent.defjvp
    def _no_tangent_jvp(primals, tangents):
        raise RuntimeError("differentiated")

    def body(carry, _):
        x, t = carry
        x, t = pyjax.checkpoint(lambda x, t: (jnp.sin(x) * t, t + 1.0))(x, t)
        return (x, no_tangent(t)), None

    def f(x):
        (x, t), _ = lax.scan(body, (x, 1.0), None, length=3)
        return x * t

    np.testing.assert_allclose(pyjax.jvp(f, (0.5,), (1.0,)), (9.565648, 11.283449), rtol=1e-6)
    np.testing.assert_allclose(pyjax.grad(f)(0.5), 11.283448, rtol=1e-6)
    np.testing.assert_allclose(pyjax.jit(pyjax.grad(f))(0.5), 11.283448, rtol=1e-6)


def test_checkpoint_policies_change_the_residuals():
    x, w = _xw()
    size = lambda rs: sum(np.size(r) for r in rs)
    plain = _residuals(_block, x, w)
    nothing = _residuals(pyjax.checkpoint(_block, policy=pyjax.checkpoint_policies.nothing_saveable), x, w)
    default = _residuals(pyjax.checkpoint(_block), x, w)
    everything = _residuals(pyjax.checkpoint(_block, policy=pyjax.checkpoint_policies.everything_saveable), x, w)
    dots = _residuals(pyjax.checkpoint(_block, policy=pyjax.checkpoint_policies.dots_saveable), x, w)
    assert size(nothing) < size(plain)
    assert size(default) == size(nothing)  # no policy: save nothing but the inputs
    assert size(nothing) <= size(dots) < size(everything)
    # nothing_saveable keeps only the inputs themselves
    assert all(any(np.array_equal(np.asarray(r), a) for a in (x, w)) for r in nothing)
    # dots_saveable keeps the first matmul's result (x @ w)
    assert any(np.shape(r) == (4, 3) and np.allclose(r, x @ w, rtol=1e-5) for r in dots)
    assert not any(np.shape(r) == (4, 3) and np.allclose(r, x @ w, rtol=1e-5) for r in nothing)


def test_checkpoint_save_only_these_names():
    x, w = _xw()

    def block(x, w):
        h = checkpoint_name(jnp.sin(x @ w), "h")
        return jnp.sum(jnp.cos(h @ w) * h)

    h = np.sin(x @ w)
    is_h = lambda r: np.shape(r) == h.shape and np.allclose(r, h, rtol=1e-5, atol=1e-6)
    pol = pyjax.checkpoint_policies
    named = _residuals(pyjax.checkpoint(block, policy=pol.save_only_these_names("h")), x, w)
    other = _residuals(pyjax.checkpoint(block, policy=pol.save_only_these_names("other")), x, w)
    assert any(is_h(r) for r in named)
    assert not any(is_h(r) for r in other)
    want = pyjax.grad(block, argnums=(0, 1))(x, w)
    for policy in (pol.save_only_these_names("h"), pol.save_anything_except_these_names("h")):
        got = pyjax.grad(pyjax.checkpoint(block, policy=policy), argnums=(0, 1))(x, w)
        for a, b in zip(got, want, strict=True):
            np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-6)
    # checkpoint_name is the identity, and linear
    assert pyjax.grad(lambda v: checkpoint_name(v, "n") * 3.0)(1.0) == 3.0


def test_omitted_arguments_reach_the_rules_with_their_defaults():
    # JAX binds the call to the signature first: the rules see every positional argument
    @pyjax.custom_jvp
    def f(x, y=2.0):
        return x * y

    @f.defjvp
    def f_jvp(primals, tangents):
        (x, y), (tx, ty) = primals, tangents
        return f(x, y), tx * y * 10

    assert pyjax.grad(f)(1.0) == 20.0
    assert pyjax.grad(lambda x: f(x, y=3.0))(1.0) == 30.0

    @pyjax.custom_vjp
    def g(x, y=2.0):
        return x * y
    g.defvjp(lambda x, y: (x * y, y), lambda r, ct: (ct * r * 10, 0.0))
    assert pyjax.grad(g)(1.0) == 20.0


def test_keyword_only_arguments_cannot_be_passed():
    @pyjax.custom_jvp
    def f(x, *, scale=1.0):
        return x * scale
    f.defjvp(lambda p, t: (f(*p), t[0]))
    assert pyjax.grad(f)(2.0) == 1.0
    with pytest.raises(TypeError, match="could not be resolved to positions: scale"):
        f(1.0, scale=2.0)


def test_vmap_keeps_unbatched_operands_of_a_custom_jvp_unbatched():
    # a cond on an unbatched operand inside a custom_jvp stays a cond under vmap (as in JAX):
    # the call is not broadcast, and the JVP rule sees each tangent mapped like its primal
    from pyjax import lax

    @pyjax.custom_jvp
    def f(x, p):
        return lax.cond(p > 0, lambda v: v * 2.0, lambda v: v * 3.0, x)

    @f.defjvp
    def f_jvp(primals, tangents):
        (x, p), (tx, tp) = primals, tangents
        return f(x, p), tx * 10.0 + tp
    xs = jnp.arange(3.0)
    jaxpr = pyjax.make_jaxpr(pyjax.vmap(f, in_axes=(0, None)))(xs, 1.0)
    inner = jaxpr.jaxpr.eqns[0].params["call_jaxpr"].jaxpr
    assert [e.primitive.name for e in inner.eqns][-1] == "cond"
    np.testing.assert_array_equal(pyjax.vmap(f, in_axes=(0, None))(xs, -1.0), xs * 3.0)
    np.testing.assert_array_equal(pyjax.vmap(f, in_axes=(None, 0))(2.0, jnp.array([1.0, -1.0])), [4.0, 6.0])
    np.testing.assert_array_equal(pyjax.vmap(pyjax.grad(f), in_axes=(0, None))(xs, 1.0), [10.0] * 3)
    np.testing.assert_array_equal(pyjax.vmap(pyjax.grad(f, 1), in_axes=(0, None))(xs, 1.0), [1.0] * 3)
    np.testing.assert_array_equal(pyjax.jacfwd(lambda x: pyjax.vmap(f, in_axes=(0, None))(x, 1.0))(xs),
                                  np.eye(3) * 10.0)


def test_custom_gradient_tensorflow_style():
    # values recorded from JAX 0.10.2 (the same program): the rule's made-up gradients
    @pyjax.custom_gradient
    def f(x, y):
        z = jnp.sin(x) * y
        return z, lambda g: (g * jnp.cos(x) * y * 100, g * 7.0)
    gx, gy = pyjax.grad(f, argnums=(0, 1))(1.0, 2.0)
    np.testing.assert_allclose([gx, gy], [100 * np.cos(1.0) * 2, 7.0], rtol=1e-6)
    assert f(1.0, 2.0) == pytest.approx(np.sin(1.0) * 2)
    np.testing.assert_allclose(pyjax.jit(pyjax.grad(f))(1.0, 2.0), 100 * np.cos(1.0) * 2, rtol=1e-6)
    np.testing.assert_allclose(pyjax.vmap(pyjax.grad(f))(jnp.arange(3.0), jnp.ones(3)),
                               100 * np.cos(np.arange(3.0)), rtol=1e-5)

    @pyjax.custom_gradient
    def g(p):
        return {"a": p["w"] * 2}, lambda ct: ({"w": ct["a"] * 3},)
    out = pyjax.grad(lambda p: g(p)["a"].sum())({"w": jnp.ones(2)})
    np.testing.assert_array_equal(out["w"], [3.0, 3.0])


def test_checkpoint_policy_answers():
    from pyjax.ad_checkpoint import Offloadable, Recompute, Saveable, checkpoint, print_saved_residuals
    import contextlib
    import io

    def saved(answer):
        f = checkpoint(lambda x: jnp.cos(jnp.sin(x)) * 2,
                       policy=lambda prim, *a, **k: answer if prim.name == "sin" else Recompute)
        buf = io.StringIO()
        with contextlib.redirect_stdout(buf):
            print_saved_residuals(f, 1.0)
        assert pyjax.grad(f)(1.0) == pytest.approx(-2 * np.sin(np.sin(1.0)) * np.cos(1.0))
        return buf.getvalue().count("\n")
    assert saved(Saveable) == saved(True) == saved(Offloadable("device", "pinned_host")) == 2
    assert saved(Recompute) == saved(False) == 1


def test_custom_vjp_symbolic_zeros():
    # as JAX 0.10.2 (the same program recorded there): fwd sees CustomVJPPrimal leaves with
    # `perturbed`, bwd sees SymbolicZero for outputs with no cotangent
    from pyjax.custom_derivatives import CustomVJPPrimal, SymbolicZero, custom_vjp_primal_tree_values
    seen = []

    @pyjax.custom_vjp
    def f(x, y):
        return x * y, x + y

    def fwd(x, y):
        assert isinstance(x, CustomVJPPrimal)
        seen.append((x.perturbed, y.perturbed))
        x, y = custom_vjp_primal_tree_values((x, y))
        return (x * y, x + y), (x, y)

    def bwd(res, cts):
        (x, y), (c1, c2) = res, cts
        seen.append(tuple(isinstance(c, SymbolicZero) for c in cts))
        g1 = 0.0 if isinstance(c1, SymbolicZero) else c1
        g2 = 0.0 if isinstance(c2, SymbolicZero) else c2
        return g1 * y + g2, g1 * x + g2
    f.defvjp(fwd, bwd, symbolic_zeros=True)
    assert pyjax.grad(lambda x: f(x, 3.0)[0])(2.0) == 3.0
    assert seen == [(True, False), (False, True)]
    seen.clear()
    assert pyjax.grad(lambda x, y: f(x, y)[1], argnums=(0, 1))(2.0, 3.0) == (1.0, 1.0)
    assert seen == [(True, True), (True, False)]
    np.testing.assert_array_equal(pyjax.vmap(pyjax.grad(lambda x: f(x, 3.0)[0]))(jnp.arange(3.0)), [3.0] * 3)


def test_custom_vjp_bwd_none_stands_for_a_zero_subtree():
    @pyjax.custom_vjp
    def f(p):
        return p["a"] * p["b"][0]
    f.defvjp(lambda p: (f(p), p), lambda p, g: ({"a": g * p["b"][0], "b": None},))
    g = pyjax.grad(f)({"a": 2.0, "b": (3.0, 4.0)})
    assert g["a"] == 3.0 and g["b"] == (0.0, 0.0)
    f2 = pyjax.custom_vjp(lambda p: p["a"] * 2)
    f2.defvjp(lambda p: (f2(p), None), lambda r, g: ({"a": g, "x": 1.0},))
    with pytest.raises(TypeError, match="cotangent structure"):
        pyjax.grad(f2)({"a": 2.0})


def test_custom_jvp_call_on_linear_inputs_transposes_its_function():
    # as JAX: linear_transpose through a custom_jvp function, and a JVP rule that applies a
    # custom_jvp function to tangents (reverse mode then transposes that call)
    @pyjax.custom_jvp
    def lin(x):
        return 3.0 * x
    lin.defjvp(lambda p, t: (lin(p[0]), lin(t[0])))
    assert pyjax.linear_transpose(lambda x: lin(x) + 2 * x, 1.0)(1.0) == (5.0,)

    @pyjax.custom_jvp
    def g(x):
        return jnp.sin(x)
    g.defjvp(lambda p, t: (g(p[0]), lin(t[0]) * jnp.cos(p[0])))
    np.testing.assert_allclose(pyjax.grad(g)(0.5), 3 * np.cos(0.5), rtol=1e-6)
    np.testing.assert_allclose(pyjax.jit(pyjax.vmap(pyjax.grad(g)))(jnp.arange(3.0)),
                               3 * np.cos(np.arange(3.0)), rtol=1e-6)


def test_custom_vjp_bwd_runs_when_its_output_cotangents_are_zero():
    # JAX transposes every live linear equation: a custom_vjp whose outputs only reach a rule
    # that returns None still runs its bwd (on zeros), whose cotangents may be nonzero. flax's
    # fp8 layers return their updated scale/amax history this way (JAX 0.10.2: s -> [3.0]).
    calls = []

    @pyjax.custom_vjp
    def meta(x, s):
        return x * 2.0, s

    meta.defvjp(lambda x, s: ((x * 2.0, s), s * 3.0),
                lambda r, ct: (calls.append(ct) or None, r))

    @pyjax.custom_vjp
    def consume(a, b):
        return a * b

    consume.defvjp(lambda a, b: (a * b, None), lambda r, ct: (None, None))

    def loss(p):
        a, b = meta(jnp.ones(3), p["s"])
        return jnp.sum(consume(a, b)) + p["w"]

    p = {"s": jnp.ones(1), "w": 1.0}
    for g in (pyjax.grad(loss)(p), pyjax.jit(pyjax.grad(loss))(p)):
        np.testing.assert_array_equal(g["s"], [3.0])
        assert g["w"] == 1.0
    assert len(calls) == 2 and all(np.shape(c[0]) == (3,) for c in calls)
    # an unused output's equation is dead and is not transposed (JAX: s -> [0.0])
    g = pyjax.grad(lambda p: jnp.sum(pyjax.lax.stop_gradient(meta(jnp.ones(3), p["s"])[0])) + p["w"])(p)
    np.testing.assert_array_equal(g["s"], [0.0])


def test_every_checkpoint_policy_jax_names():
    """Issue 23: JAX 0.10.2's checkpoint_policies names, each saving what JAX's saves (residual
    counts recorded from JAX for this function: 3, 6, 5, 4, 5) with the same gradient."""
    P = pyjax.checkpoint_policies

    def f(x, w):
        a = checkpoint_name(jnp.sin(x @ w), "a")
        b = checkpoint_name(jnp.cos(a @ w), "b")
        return jnp.sum(jnp.tanh(b @ w))
    x, w = jnp.ones((2, 3)) * 0.3, jnp.eye(3) * 0.7
    policies = [P.save_any_names_but_these("a"),
                P.save_from_both_policies(P.save_only_these_names("a"), P.dots_saveable),
                P.offload_dot_with_no_batch_dims("device", "pinned_host"),
                P.save_and_offload_only_these_names(names_which_can_be_saved=["a"], names_which_can_be_offloaded=["b"],
                                                    offload_src="device", offload_dst="pinned_host"),
                P.checkpoint_dots_with_no_batch_dims]
    for policy, count in zip(policies, [3, 6, 5, 4, 5]):
        g = pyjax.grad(pyjax.checkpoint(f, policy=policy))(x, w)
        np.testing.assert_allclose(g, np.full((2, 3), -0.0312), atol=1e-4)
        assert len(saved_residuals(pyjax.checkpoint(f, policy=policy), x, w)) == count
    with pytest.raises(ValueError):
        P.save_and_offload_only_these_names(names_which_can_be_saved=["a"], names_which_can_be_offloaded=["a"],
                                            offload_src="device", offload_dst="pinned_host")


def test_symbolic_zeros_are_pytree_leaves():
    # as JAX 0.10.2: a symbolic-zeros rule sees SymbolicZero leaves (jax.tree functions visit
    # them), where AD's own Zero is a pytree node without children
    from pyjax.custom_derivatives import SymbolicZero
    seen = []

    @pyjax.custom_jvp
    def f(x, y):
        return x * y

    def f_jvp(primals, tangents):
        seen.append((type(tangents[0]).__name__, pyjax.tree.structure(tangents).num_leaves))
        tx = 0.0 if isinstance(tangents[0], SymbolicZero) else tangents[0]
        return f(*primals), primals[1] * tx + primals[0] * tangents[1]
    f.defjvp(f_jvp, symbolic_zeros=True)
    assert pyjax.jvp(lambda y: f(2.0, y), (3.0,), (1.0,)) == (6.0, 2.0)
    assert seen == [("SymbolicZero", 2)]


def test_nondiff_argnames():
    """Issue 23 (JAX's custom_api_test test_nondiff_argnums_argnames): custom_vjp/custom_jvp take
    nondiff_argnames (positional parameters by name), merged with nondiff_argnums."""
    @functools.partial(pyjax.custom_vjp, nondiff_argnums=(0,), nondiff_argnames=("g",))
    def app(f, g, x):
        return f(x) + g(x)

    app.defvjp(lambda f, g, x: (app(f, g, x), jnp.cos(x)), lambda f, g, cos_x, v: (cos_x * v,))
    assert app.nondiff_argnums == (0, 1)
    double = lambda x: 2 * x
    v, g = pyjax.value_and_grad(lambda x: app(double, double, x))(1.)
    np.testing.assert_allclose([v, g], [4., np.cos(1.)], rtol=1e-6)

    @functools.partial(pyjax.custom_jvp, nondiff_argnames=("n",))
    def power(x, n):
        return x ** n

    power.defjvp(lambda n, primals, tangents: (power(primals[0], n),
                                               n * primals[0] ** (n - 1) * tangents[0]))
    assert power.nondiff_argnums == (1,)
    np.testing.assert_allclose(pyjax.grad(power)(2., 3), 12.)


def test_custom_rule_errors_say_jax_words():
    """Issue 23 (JAX's custom_api_test *_error_message tests): a custom_jvp rule's or custom_vjp
    fwd rule's outputs that disagree with each other or with the function raise JAX's TypeError
    with JAX's words, naming the rule and the function."""
    import re

    @pyjax.custom_jvp
    def f(x):
        return (x ** 2,)

    @f.defjvp
    def foo_jvp(primals, tangents):
        return f(primals[0]), [2 * primals[0] * tangents[0], primals[0]]

    with pytest.raises(TypeError, match=re.escape(
            "Custom JVP rule foo_jvp for function f must produce primal and tangent outputs with "
            "equal container (pytree) structures, but got PyTreeDef((*,)) and PyTreeDef([*, *]) "
            "respectively.")):
        pyjax.jvp(f, (2.,), (1.,))

    @pyjax.custom_jvp
    def g(x):
        return x ** 2

    g.defjvp(lambda primals, tangents: (g(primals[0]), jnp.reshape(tangents[0], (1,))))
    with pytest.raises(TypeError, match=re.escape(
            "Custom JVP rule must produce primal and tangent outputs with corresponding shapes and "
            "dtypes. Expected float32[] (tangent type of float32[]) but got float32[1].")):
        pyjax.jvp(g, (jnp.float32(2.),), (jnp.float32(1.),))

    def scan_apply(fn, x):
        return pyjax.lax.scan(lambda c, _: (fn(c), None), x, None, length=1)[0]

    @pyjax.custom_jvp
    def h(x):
        return x

    @h.defjvp
    def h_jvp(primals, tangents):
        return (primals[0], primals[0]), (tangents[0], tangents[0])

    x = jnp.float32(1.)
    with pytest.raises(TypeError, match=re.escape(
            "Custom JVP rule h_jvp for function h must produce a pair (list or tuple of length two) "
            "where the first element represents the primal output (equal in value to the output "
            "of the custom_jvp-decorated function h, and in particular of the same container/"
            "pytree structure), but instead the JVP rule output's first element had container/"
            "pytree structure:\n    (float32[], float32[])\nwhile the custom_jvp-decorated "
            "function h had output container/pytree structure:\n    float32[].")):
        pyjax.jvp(lambda x: scan_apply(h, x), (x,), (x,))

    @pyjax.custom_vjp
    def k(x):
        return x

    def k_fwd(x):
        return (x, x), None

    k.defvjp(k_fwd, lambda _, g: (g,))
    with pytest.raises(TypeError, match="Custom VJP fwd rule k_fwd for function k must produce a pair "):
        pyjax.grad(lambda x: scan_apply(k, x))(x)

    @pyjax.custom_jvp
    def two(x, y, *, z=None):
        return x + y

    two.defjvp(lambda primals, tangents: (two(*primals), tangents[0]))
    with pytest.raises(TypeError, match=r"The input arguments to the custom_jvp-decorated function "
                                        r"two(.*)\nmissing a required argument: 'y'"):
        two(0.5)


def test_dce_prunes_custom_calls_and_dce_jaxpr_is_jax_s():
    """Issue 23 (JAX's custom_api_test test_dce, api_test DCETest): pe.dce_jaxpr has JAX's
    signature (used outputs in; the pruned jaxpr and the used inputs out), and a custom_jvp/
    custom_vjp call keeps only what its used outputs need, its rules pruned alike."""
    from pyjax._src.interpreters import partial_eval as pe
    from pyjax import lax

    @pyjax.custom_jvp
    def f(x, y):
        return jnp.sin(x), x + jnp.cos(y)

    @f.defjvp
    def f_jvp(primals, tangents):
        (x, y), (dx, dy) = primals, tangents
        return f(x, y), (2.0 * jnp.cos(x) * dx, 1.5 * dx - 0.5 * jnp.sin(y) * dy)

    jaxpr = pyjax.make_jaxpr(f)(0.1, -1.3).jaxpr
    for used, kept, gone in [([True, False], lax.sin_p, lax.cos_p),
                             ([False, True], lax.cos_p, lax.sin_p)]:
        pruned, used_inputs = pe.dce_jaxpr(jaxpr, used)
        call = pruned.eqns[0].params["call_jaxpr"]
        prims = [e.primitive for e in call.eqns]
        assert kept in prims and gone not in prims
        assert used_inputs == [True, True]  # (as JAX: the call keeps its operands)
    empty, used_inputs = pe.dce_jaxpr(jaxpr, [False, False])
    assert (empty.eqns, empty.invars, used_inputs) == ([], [], [False, False])
    f0 = lambda x, y: core.jaxpr_as_fun(pe.close_jaxpr(pe.dce_jaxpr(jaxpr, [True, False], True)[0]))(x, y)[0]
    out, tan = pyjax.jvp(f0, (0.1, -1.3), (1.0, 0.0))
    np.testing.assert_allclose([out, tan], [np.sin(0.1), 2.0 * np.cos(0.1)], rtol=1e-6)

    @pyjax.custom_vjp
    def g(x, y):
        return jnp.sin(x), x + jnp.cos(y)

    g.defvjp(lambda x, y: (g(x, y), (x, y)),
             lambda res, cts: (2.0 * jnp.cos(res[0]) * cts[0] + 1.5 * cts[1], -0.5 * jnp.sin(res[1]) * cts[1]))
    jaxpr = pyjax.make_jaxpr(g)(0.1, -1.3).jaxpr
    pruned, _ = pe.dce_jaxpr(jaxpr, [True, False], instantiate=True)
    g0 = lambda x, y: core.jaxpr_as_fun(pe.close_jaxpr(pruned))(x, y)[0]
    np.testing.assert_allclose(pyjax.grad(g0, argnums=(0, 1))(0.1, -1.3), [2.0 * np.cos(0.1), 0.0],
                               rtol=1e-6)


def test_optimize_remat_of_custom_vjp_fwd():
    """Issue 23 (JAX's custom_api_test test_optimize_remat*): a fwd rule wrapped by
    optimize_remat_of_custom_vjp_fwd computes the primal function where its residuals go unused
    (jit dead-code elimination, inside cond, under vmap); custom_vjp's defvjp(optimize_remat=True)
    uses it, so a remat recomputes the function itself. Values recorded from JAX 0.10.2."""
    from pyjax._src import custom_derivatives as cd
    x = jnp.linspace(0, 5.0, 10)
    fwd = cd.optimize_remat_of_custom_vjp_fwd(lambda x: x, None, lambda x: (x * x, (2 * x,)), None)
    np.testing.assert_allclose(pyjax.jit(fwd)(x)[0], x * x, rtol=1e-6)
    np.testing.assert_allclose(pyjax.jit(lambda x: fwd(x)[0])(x), x, rtol=1e-6)
    np.testing.assert_allclose(pyjax.jit(lambda x: pyjax.vmap(fwd)(x)[0])(x), x, rtol=1e-6)
    g = lambda x: pyjax.lax.cond(True, fwd, lambda x: (2.0 * x, (x,)), x)
    np.testing.assert_allclose(pyjax.jit(g)(x)[0], x * x, rtol=1e-6)
    np.testing.assert_allclose(pyjax.jit(lambda x: g(x)[0])(x), x, rtol=1e-6)

    @pyjax.custom_vjp
    def f(x):
        return jnp.tan(x)

    f.defvjp(lambda x: (jnp.sin(x), (x,)), lambda res, g: (jnp.cos(res[0]) * g,),
             optimize_remat=True)
    v, grad = pyjax.value_and_grad(lambda x: pyjax.remat(f)(x) ** 2)(3.2)
    np.testing.assert_allclose([v, grad], [0.0034192, -0.11674839], rtol=1e-5)


def test_custom_gradient_rule_may_return_a_single_cotangent():
    """Issue 23 (JAX's custom_api_test test_custom_gradient_can_return_singleton_value_in_vjp)."""
    @pyjax.custom_gradient
    def f(x):
        return x ** 2, lambda g: g * x

    np.testing.assert_allclose([f(3.), pyjax.grad(f)(3.), pyjax.grad(pyjax.grad(f))(3.)],
                               [9., 3., 1.])


def test_vmap_keeps_unbatched_operands_and_outputs_of_a_custom_vjp_unbatched():
    """Issue 24 (diffrax's implicit solvers under vmap): as JAX, a custom_vjp call under vmap
    keeps its unmapped operands unmapped (a loop counter inside stays unbatched: equinox's
    nonbatchable accepts it) and its outputs mapped only where the function maps them; bwd's
    cotangent of an unmapped operand is summed over the lanes. Values recorded from JAX 0.10.2."""
    @pyjax.custom_vjp
    def f(x, n):
        return x * n, n + 1.0

    def f_bwd(res, cts):
        (x, n), (ct_y, ct_n) = res, cts
        return ct_y * n, ct_y * x + ct_n
    f.defvjp(lambda x, n: (f(x, n), (x, n)), f_bwd)
    xs = jnp.arange(3.0)
    y, m = pyjax.vmap(f, in_axes=(0, None), out_axes=(0, None))(xs, 2.0)
    np.testing.assert_array_equal(y, [0.0, 2.0, 4.0])
    assert m == 3.0 and np.shape(m) == ()

    def loss(xs, n):
        y, m = pyjax.vmap(f, in_axes=(0, None), out_axes=(0, None))(xs, n)
        return jnp.sum(y * y) + m * m
    for grad in (pyjax.grad(loss, argnums=(0, 1)), pyjax.jit(pyjax.grad(loss, argnums=(0, 1)))):
        gx, gn = grad(xs, 2.0)
        np.testing.assert_array_equal(gx, [0.0, 8.0, 16.0])
        np.testing.assert_array_equal(gn, 38.0)

    @pyjax.custom_vjp
    def g(x, k):
        return lax.while_loop(lambda c: c[0] < k, lambda c: (c[0] + 1, c[1] * 2.0), (0, x))[1]
    g.defvjp(lambda x, k: (g(x, k), k), lambda k, ct: (ct * 2.0 ** k, None))
    jaxpr = pyjax.make_jaxpr(pyjax.vmap(g, in_axes=(0, None)))(xs, 3)
    loop, = [e for e in jaxpr.jaxpr.eqns[0].params["call_jaxpr"].jaxpr.eqns if e.primitive.name == "while"]
    assert [v.aval.shape for v in loop.outvars] == [(), (3,)]  # the counter is not batched
    np.testing.assert_array_equal(pyjax.vmap(g, in_axes=(0, None))(xs, 3), [0.0, 8.0, 16.0])
    np.testing.assert_array_equal(
        pyjax.grad(lambda xs: jnp.sum(pyjax.vmap(g, in_axes=(0, None))(xs, 3)))(xs), [8.0] * 3)


def test_symbolic_zero_tangents_under_vmap():
    """Issue 23 (JAX's custom_api_test test_symbolic_zero_custom_jvp vmap cases): under vmap a
    symbolic_zeros=True rule still sees SymbolicZero tangents, typed as one example's."""
    seen = []

    @pyjax.custom_jvp
    def f(a, x):
        return a + x

    @functools.partial(f.defjvp, symbolic_zeros=True)
    def f_jvp(primals, tangents):
        seen.append((type(tangents[0]).__name__, tuple(tangents[0].shape)))
        return f(*primals), tangents[1] + 91.

    batched = pyjax.vmap(f, in_axes=(0, 0))
    out, t = pyjax.jvp(lambda x: batched(jnp.ones((2, 3)), x), (jnp.ones((2, 3)),),
                       (jnp.ones((2, 3)),))
    np.testing.assert_allclose(t, np.full((2, 3), 92.))
    assert seen[-1] == ("SymbolicZero", (3,))


def test_remat_traces_once_per_signature_when_eager():
    """Issue 23 (JAX's api_test test_remat_retracing): a remat'd function called eagerly in a
    loop is traced once (JAX caches the trace; so does pyjax now)."""
    count = []

    @pyjax.remat
    def g(x):
        count.append(1)
        return pyjax.lax.sin(x), 3.

    for _ in range(5):
        y = g(2.)[0]
    assert len(count) == 1
    np.testing.assert_allclose(y, np.sin(2.), rtol=1e-6)
    g(jnp.ones(2))  # another signature: traced again
    assert len(count) == 2


def test_symbolic_zero_cotangents_under_vmap():
    """Issue 23 (JAX's custom_api_test test_symbolic_zero_custom_vjp vmap cases): under vmap a
    symbolic_zeros=True bwd still gets zero cotangents as SymbolicZeros, typed as one example's
    (recorded from JAX 0.10.2: SymbolicZero of shape (), gradient [2.])."""
    seen = []
    f = pyjax.custom_vjp(lambda a, x: (a, x * 2))

    def bwd(res, g):
        seen.append([(type(t).__name__, tuple(t.shape)) for t in g])
        return (None, g[1] * 2)

    f.defvjp(lambda a, x: (f(a.value, x.value), None), bwd, symbolic_zeros=True)
    g = lambda x: pyjax.vmap(f)(pyjax.lax.broadcast(1., (1,)), x)[1]
    np.testing.assert_allclose(pyjax.vjp(g, jnp.ones(1))[1](jnp.ones(1))[0], [2.])
    assert seen[-1] == [("SymbolicZero", ()), ("BatchTracer", ())]
