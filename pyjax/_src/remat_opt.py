"""`optimize_remat_of_custom_vjp_fwd`: a custom_vjp's fwd rule that turns back into the primal
function when its residuals are not used (`f.defvjp(fwd, bwd, optimize_remat=True)`, JAX's
`custom_derivatives.optimize_remat_of_custom_vjp_fwd`).

The call is one `remat_opt` equation evaluating the fwd rule's jaxpr (residuals first, then the
outputs), which also carries the primal function's jaxpr: when dead-code elimination finds no
residual used (a remat recomputing the forward pass, `fwd(x)[0]` under jit), the equation
becomes the primal function's. JVP and vmap go through the fwd rule's jaxpr (vmap keeps the
pair: both jaxprs batched alike).
"""
from __future__ import annotations

import functools

from pyjax._src import core, tree_util
from pyjax._src.api_vmap import vmap
from pyjax._src.core import Primitive
from pyjax._src.interpreters import ad, batching
from pyjax._src.interpreters import partial_eval as pe

remat_opt_p = Primitive("remat_opt", multiple_results=True)


def optimize_remat_of_custom_vjp_fwd(fun, debug_fun, fwd, debug_fwd, nondiff_argnums=(),
                                     symbolic_zeros=False):
    """`fwd` (returning `(outputs, residuals)`) as a function that computes `fun` instead where
    its residuals turn out unused. `debug_fun`/`debug_fwd` (JAX's debug infos) are not used."""
    del debug_fun, debug_fwd
    if symbolic_zeros:
        raise NotImplementedError("remat optimization for custom_vjp does not support symbolic zeros")

    @functools.wraps(fwd)
    def wrapped_fwd(*args, **kwargs):
        if kwargs:
            raise TypeError("optimize_remat_of_custom_vjp_fwd: pass the arguments by position")
        nondiff = set(nondiff_argnums)
        dyn = [a for i, a in enumerate(args) if i not in nondiff]
        leaves, in_tree = tree_util.tree_flatten(dyn)

        def full(flat):
            it = iter(tree_util.tree_unflatten(in_tree, flat))
            return [a if i in nondiff else next(it) for i, a in enumerate(args)]

        trees = []

        def flat_fwd(*flat):
            out, res = fwd(*full(flat))
            out_flat, out_tree = tree_util.tree_flatten(out)
            res_flat, res_tree = tree_util.tree_flatten(res)
            trees[:] = [out_tree, res_tree, len(res_flat)]
            return [*res_flat, *out_flat]

        def flat_fun(*flat):
            return tree_util.tree_leaves(fun(*full(flat)))

        avals = [core.get_aval(x) for x in leaves]
        fwd_jaxpr, fwd_consts = pe.as_const_free(pe.trace_to_jaxpr(flat_fwd, avals)[0])
        fun_jaxpr, fun_consts = pe.as_const_free(pe.trace_to_jaxpr(flat_fun, avals)[0])
        out_tree, res_tree, num_res = trees
        outs = remat_opt_p.bind(*fwd_consts, *fun_consts, *leaves, jaxpr=fwd_jaxpr,
                                fun_jaxpr=fun_jaxpr, num_consts=len(fwd_consts),
                                num_fun_consts=len(fun_consts), num_res=num_res)
        res, out = outs[:num_res], outs[num_res:]
        return tree_util.tree_unflatten(out_tree, out), tree_util.tree_unflatten(res_tree, res)
    return wrapped_fwd


def _operands(args, num_consts, num_fun_consts):
    """(the evaluated jaxpr's operands, the primal function's operands)."""
    consts, fun_consts = args[:num_consts], args[num_consts:num_consts + num_fun_consts]
    leaves = args[num_consts + num_fun_consts:]
    return [*consts, *leaves], [*fun_consts, *leaves]


@remat_opt_p.def_abstract_eval
def _remat_opt_abstract_eval(*avals, jaxpr, **_):
    return jaxpr.out_avals


def _remat_opt_impl(*args, jaxpr, fun_jaxpr, num_consts, num_fun_consts, num_res):
    return core.eval_jaxpr(jaxpr.jaxpr, [], *_operands(args, num_consts, num_fun_consts)[0])


remat_opt_p.def_impl(_remat_opt_impl)


def _remat_opt_jvp(primals, tangents, *, jaxpr, fun_jaxpr, num_consts, num_fun_consts, num_res):
    # (through the fwd rule's jaxpr, as JAX; the operands of the primal function carry no tangent)
    ops, _ = _operands(list(primals), num_consts, num_fun_consts)
    t_ops, _ = _operands(list(tangents), num_consts, num_fun_consts)
    return ad.jvp_flat(lambda *xs: core.eval_jaxpr(jaxpr.jaxpr, [], *xs), ops, t_ops)


remat_opt_p.def_jvp(_remat_opt_jvp)


def _remat_opt_batch(axis_size, args, dims, *, jaxpr, fun_jaxpr, num_consts, num_fun_consts,
                     num_res):
    """Both jaxprs vmapped alike (every operand and output mapped at 0), still a remat_opt."""
    args = [batching.bdim_at_front(x, d, axis_size) for x, d in zip(args, dims)]
    ops, fun_ops = _operands(args, num_consts, num_fun_consts)
    batched = []
    for closed, xs in ((jaxpr, ops), (fun_jaxpr, fun_ops)):
        if closed is None:  # (already the primal function's equation)
            batched.append((None, [], xs))
            continue
        call = vmap(lambda *ys, c=closed: core.eval_jaxpr(c.jaxpr, [], *ys), axis_size=axis_size)
        batched.append((*pe.as_const_free(pe.trace_to_jaxpr(
            call, [core.get_aval(x) for x in xs])[0]), xs))
    (b_jaxpr, consts, ops), (b_fun, fun_consts, fun_ops) = batched
    leaves = args[num_consts + num_fun_consts:]
    outs = remat_opt_p.bind(*consts, *ops[:num_consts], *fun_consts, *fun_ops[:num_fun_consts],
                            *leaves, jaxpr=b_jaxpr, fun_jaxpr=b_fun,
                            num_consts=len(consts) + num_consts,
                            num_fun_consts=len(fun_consts) + num_fun_consts, num_res=num_res)
    return outs, [0] * len(outs)


remat_opt_p.def_batch(_remat_opt_batch)


def _remat_opt_dce(used_outputs, eqn):
    """No residual used: the primal function's equation (pruned to the used outputs)."""
    p = eqn.params
    num_res = p["num_res"]
    if any(used_outputs[:num_res]) or p["fun_jaxpr"] is None:
        return None, eqn
    used = used_outputs[num_res:]
    pruned = core.ClosedJaxpr(pe.prune_jaxpr(p["fun_jaxpr"].jaxpr, used), [])
    nc, nf = p["num_consts"], p["num_fun_consts"]
    invars = eqn.invars[nc:]  # the primal function's constants, then the leaves
    outvars = [v for v, u in zip(eqn.outvars[num_res:], used, strict=True) if u]
    return None, core.JaxprEqn(invars, outvars, remat_opt_p,
                               dict(jaxpr=pruned, fun_jaxpr=None, num_consts=nf,
                                    num_fun_consts=0, num_res=0), eqn.source_info)


remat_opt_p.def_dce(_remat_opt_dce)


def _remat_opt_lowering(ctx, *args, jaxpr, fun_jaxpr, num_consts, num_fun_consts, num_res):
    return ctx.lower_jaxpr(jaxpr.jaxpr, [], _operands(list(args), num_consts, num_fun_consts)[0])


remat_opt_p.def_lowering(_remat_opt_lowering)
