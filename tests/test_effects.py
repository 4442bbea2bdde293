"""Effects: jaxprs carry the effects of their equations through every transformation,
dead-code elimination keeps effectful equations, and ordered effects thread a token through
lowering. Exercised with a small test primitive (debug callbacks, the first real effects,
come with the debugging issue)."""
import numpy as np
import pytest

import pyjax
import pyjax.numpy as jnp
from pyjax import lax
from pyjax._src import core
from pyjax._src.interpreters import partial_eval as pe

log_effect = core.Effect("test_log", ordered=True)
touch_p = core.Primitive("touch")
touch_p.def_abstract_eval(lambda x: x)
touch_p.def_impl(lambda x: x)
touch_p.def_effects(lambda: frozenset({log_effect}))
touch_p.def_jvp(lambda primals, tangents: (touch_p.bind(*primals), tangents[0]))
touch_p.def_batch(lambda axis_size, args, dims: (touch_p.bind(*args), dims[0]))


@touch_p.def_lowering
def _touch_lowering(ctx, x):
    tok = ctx.token(log_effect)
    ctx.set_token(log_effect, ctx.fb.op("stablehlo.after_all", [tok], ["!stablehlo.token"])[0])
    return x


def touch(x):
    return touch_p.bind(x)


def f(x):
    return jnp.sin(touch(x)) * 2.0


def test_tracing_collects_effects():
    assert pyjax.make_jaxpr(f)(1.0).effects == {log_effect}
    assert pyjax.make_jaxpr(jnp.sin)(1.0).effects == frozenset()


@pytest.mark.parametrize("transform,x", [
    (lambda g: pyjax.jit(g), 1.0),
    (lambda g: pyjax.grad(g), 1.0),
    (lambda g: pyjax.vmap(g), np.ones(3, np.float32)),
    (lambda g: pyjax.checkpoint(g), 1.0),
    (lambda g: (lambda x: lax.cond(True, g, lambda v: v * 1.0, x)), 1.0),
    (lambda g: (lambda x: lax.scan(lambda c, _: (g(c), None), x, None, length=2)[0]), 1.0),
    (lambda g: (lambda x: lax.while_loop(lambda c: c < 3.0, g, x)), 1.0),
], ids=["jit", "grad", "vmap", "checkpoint", "cond", "scan", "while"])
def test_every_transformation_keeps_effects(transform, x):
    jaxpr = pyjax.make_jaxpr(transform(f))(x)
    assert log_effect in jaxpr.effects


def test_dce_keeps_effectful_equations():
    def g(x):
        touch(x)        # result unused: only its effect matters
        jnp.cos(x)      # pure and unused: dropped
        return x * 2.0
    jaxpr = pyjax.make_jaxpr(g)(1.0).jaxpr
    pruned = pe.prune_jaxpr(jaxpr)
    assert [e.primitive.name for e in pruned.eqns] == ["touch", "mul"]
    assert pruned.effects == {log_effect}


def test_ordered_effect_threads_a_token_and_runs():
    text = pyjax.jit(lambda x: touch(touch(x)) + 1.0).lower(1.0).as_text()
    assert text.count("stablehlo.after_all") == 3   # the first token and one per touch
    np.testing.assert_allclose(pyjax.jit(lambda x: touch(touch(x)) + 1.0)(1.0), 2.0)


def test_rules_are_declared_and_missing_ones_are_named():
    p = core.Primitive("no_rules")
    for kind in core.RULE_KINDS:
        assert hasattr(p, kind), kind
    with pytest.raises(core.MissingRuleError, match="lowering rule for 'no_rules' is not implemented"):
        p.rule("lowering")
    with pytest.raises(core.MissingRuleError, match="batching rule for 'no_rules'"):
        p.rule("batch")


def test_lowering_per_platform():
    p = core.Primitive("twice")
    p.def_abstract_eval(lambda x: x)
    p.def_lowering(lambda ctx, x: ctx.op("stablehlo.add", x, x))
    p.def_lowering(lambda ctx, x: ctx.op("stablehlo.multiply", x, x), platform="cpu")
    assert p.rule("lowering", "cpu") is not p.rule("lowering", "cuda")
    text = pyjax.jit(lambda x: p.bind(x)).lower(3.0).as_text()
    assert "stablehlo.multiply" in text and "stablehlo.add" not in text
    np.testing.assert_allclose(pyjax.jit(lambda x: p.bind(x))(3.0), 9.0)


def test_tokens_stay_inside_control_flow_regions():
    """A token made inside a cond branch or loop body is not used outside it (valid IR)."""
    g = pyjax.jit(lambda x: touch(lax.cond(x > 0, touch, lambda v: v * 2.0, touch(x))))
    np.testing.assert_allclose(g(1.0), 1.0)
    np.testing.assert_allclose(g(-1.0), -2.0)
    h = pyjax.jit(lambda x: lax.fori_loop(0, 3, lambda i, c: touch(c) + 1.0, touch(x)))
    np.testing.assert_allclose(h(1.0), 4.0)


class _ShapeEffect(core.Effect):
    pass


_small, _big = _ShapeEffect("small"), _ShapeEffect("big")


def test_def_effectful_abstract_eval_gives_avals_and_equation_effects():
    """JAX's `Primitive.def_effectful_abstract_eval(f)`: `f(*avals, **params) -> (aval, effects)`
    (JAX's export_test defines its effectful test primitive so); an equation's effects come from
    its operands' avals and params."""
    p = core.Primitive("effectful_for_test")
    p.def_effectful_abstract_eval(
        lambda x, *, tag: (x, {_small if x.size < 4 else _big} if tag else set()))
    closed, _ = pe.trace_to_jaxpr(lambda a, b: [p.bind(a, tag=True), p.bind(b, tag=True),
                                                p.bind(a, tag=False)],
                                  [core.ShapedArray((2,), np.dtype(np.float32)),
                                   core.ShapedArray((8,), np.dtype(np.float32))])
    assert [e.outvars[0].aval.shape for e in closed.jaxpr.eqns] == [(2,), (8,), (2,)]
    assert [e.effects for e in closed.jaxpr.eqns] == [{_small}, {_big}, set()]
    assert closed.jaxpr.effects == {_small, _big}
