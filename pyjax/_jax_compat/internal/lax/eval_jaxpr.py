"""`jax._src.lax.eval_jaxpr`: JAX's `eval_jaxpr_p`, a primitive that evaluates the closed jaxpr
given as its `jaxpr` parameter on its operands (pyjax itself does not use it: under the switch
it is a pyjax primitive with every rule, the jaxpr inlined under jvp, vmap and lowering)."""
from __future__ import annotations

from pyjax._src import core
from pyjax._src.api_vmap import vmap
from pyjax._src.interpreters import ad

eval_jaxpr_p = core.Primitive("eval_jaxpr", multiple_results=True)


def _run(jaxpr):
    return lambda *xs: core.eval_jaxpr(jaxpr.jaxpr, jaxpr.consts, *xs)


eval_jaxpr_p.def_abstract_eval(lambda *avals, jaxpr: jaxpr.out_avals)
eval_jaxpr_p.def_impl(lambda *args, jaxpr: _run(jaxpr)(*args))
eval_jaxpr_p.def_jvp(lambda primals, tangents, *, jaxpr: ad.jvp_flat(_run(jaxpr), primals, tangents))


@eval_jaxpr_p.def_batch
def _eval_jaxpr_batch(axis_size, args, dims, *, jaxpr):
    outs = vmap(_run(jaxpr), in_axes=list(dims), axis_size=axis_size)(*args)
    return outs, [0] * len(outs)


@eval_jaxpr_p.def_lowering
def _eval_jaxpr_lowering(ctx, *args, jaxpr):
    return ctx.lower_fun(_run(jaxpr), multiple_results=True)(*args)
