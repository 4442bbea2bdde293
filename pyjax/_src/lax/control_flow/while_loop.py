"""`lax.while_loop`: the `while` primitive, holding the jaxprs of the loop condition and body.

`while_p.bind(*cond_consts, *body_consts, *init, cond_jaxpr, body_jaxpr, cond_nconsts,
body_nconsts)`: `cond_jaxpr(*cond_consts, *carry) -> bool[]` and `body_jaxpr(*body_consts,
*carry) -> carry` are const-free closed jaxprs; what the user's functions close over is hoisted
into the consts operands.

Rules, in order: abstract eval, impl (compiled), jvp (tangents ride along as extra carry),
partial eval (known carries run in a known loop; the unknown loop recomputes everything, as in
JAX), transpose (an error: reverse mode needs a static trip count, i.e. scan), batching (a
batched predicate runs until every lane is done, masking finished lanes' updates), and lowering
to `stablehlo.while`.
"""
from __future__ import annotations

import threading
from functools import partial

import numpy as np

from pyjax._src import core, dispatch, errors, tree_util
from pyjax._src.config import config
from pyjax._src.core import Primitive
from pyjax._src.interpreters import ad, batching
from pyjax._src.interpreters import partial_eval as pe
from pyjax._src.lax import elementwise as lax_elem
from pyjax._src.lax.control_flow import common
from pyjax._src.lax.reductions import reduce_or
from pyjax._src.lax.shape_ops import broadcast_in_dim
from pyjax._src.traceback_util import api_boundary

while_p = Primitive("while", multiple_results=True)


@api_boundary
def while_loop(cond_fun, body_fun, init_val):
    """`while cond_fun(val): val = body_fun(val)`, staged out as one loop.

    Forward-differentiable and batchable; reverse mode needs a static trip count (use
    `lax.scan` or `lax.fori_loop` with static bounds).

    Example:
        >>> lax.while_loop(lambda c: c[0] < 10, lambda c: (c[0] + 1, c[1] * 2.0), (0, 1.0))
    """
    return _while_loop(cond_fun, body_fun, init_val, (body_fun, "while_loop"))


def _while_loop(cond_fun, body_fun, init_val, cache_as):
    """`while_loop`, with the body's traces cached eagerly under `cache_as = (fun, tag)`
    (`common.cached_trace`): `fun` is the user's function `body_fun` stands for."""
    if config._values["jax_disable_jit"]:
        try:
            val = init_val
            while cond_fun(val):
                val = body_fun(val)
            return val
        except errors.ConcretizationTypeError:
            pass  # the predicate is traced (e.g. under vmap): stage the loop, as JAX does
    leaves, in_tree = tree_util.tree_flatten(init_val)
    avals = [core.get_aval(x) for x in leaves]
    body, body_consts, out_tree = _trace(cache_as, body_fun, in_tree, avals)
    if out_tree != in_tree:
        common.check_carry_agrees("while_loop body function", in_tree, avals, out_tree, [])
    leaves, promoted = common.promote_weak_carry(leaves, avals, body.out_avals)
    if promoted != avals:
        avals = promoted
        body, body_consts, out_tree = _trace(cache_as, body_fun, in_tree, avals)
    common.check_carry_agrees("while_loop body function", in_tree, avals, out_tree, body.out_avals,
                              body_fun)
    cond, cond_consts, cond_tree = _trace((cond_fun, "while_loop cond"), cond_fun, in_tree, avals)
    if cond_tree.num_leaves != 1 or not tree_util.treedef_is_leaf(cond_tree):
        raise TypeError(f"cond_fun must return a boolean scalar, but got pytree {cond_tree}.")
    out = cond.out_avals[0]
    if out.shape or out.dtype != np.bool_:
        raise TypeError(f"cond_fun must return a boolean scalar, but got output type(s) [{out!r}].")
    outs = while_p.bind(*cond_consts, *body_consts, *leaves, cond_jaxpr=cond, body_jaxpr=body,
                        cond_nconsts=len(cond_consts), body_nconsts=len(body_consts))
    return tree_util.tree_unflatten(in_tree, outs)


def _trace(cache_as, fun, in_tree, avals):
    fun_key, tag = cache_as
    return common.cached_trace(fun_key, (tag, in_tree, tuple(avals)), lambda: common.trace_jaxpr(
        fun, tree_util.treedef_tuple([in_tree]), avals, "while_loop"))


@while_p.def_abstract_eval
def _while_abstract_eval(*avals, cond_jaxpr, body_jaxpr, cond_nconsts, body_nconsts):
    carry = avals[cond_nconsts + body_nconsts:]
    outs = body_jaxpr.out_avals
    if [(a.shape, a.dtype) for a in carry] != [(a.shape, a.dtype) for a in outs]:
        raise TypeError(f"while: the body maps the carry {[a.str_short() for a in carry]} to "
                        f"{[a.str_short() for a in outs]}")
    return [a.update(weak_type=a.weak_type and o.weak_type) for a, o in zip(carry, outs)]


# compiled once per (body jaxpr, avals, params), held by the body so new loops are not leaked
while_p.def_impl(partial(dispatch.apply_jaxpr_primitive, while_p, "body_jaxpr"))
# the cond's inputs are its consts, then the carry (after the body's consts among the operands)
while_p.effect_operands = lambda name, params, n: (
    None if name != "cond_jaxpr" else
    [i if i < params["cond_nconsts"] else i + params["body_nconsts"] for i in range(n)])


@while_p.def_jvp
def _while_jvp(primals, tangents, *, cond_jaxpr, body_jaxpr, cond_nconsts, body_nconsts):
    nc, nb = cond_nconsts, body_nconsts
    cconsts, bconsts, init = primals[:nc], primals[nc:nc + nb], primals[nc + nb:]
    bconst_ts, init_ts = tangents[nc:nc + nb], tangents[nc + nb:]
    bconst_nz = [type(t) is not ad.Zero for t in bconst_ts]
    carry_nz = [type(t) is not ad.Zero for t in init_ts]
    while True:  # fixed point: a carry's tangent is nonzero if it may become so in some iteration
        _, _, out_nz = common.jvp_jaxpr(body_jaxpr, bconst_nz + carry_nz, False)
        new = [a or b for a, b in zip(carry_nz, out_nz, strict=True)]
        if new == carry_nz:
            break
        carry_nz = new
    body, consts, _ = common.jvp_jaxpr(body_jaxpr, bconst_nz + carry_nz, carry_nz)
    # body invars are (consts, bconsts, carry, bconst tangents, carry tangents): put the carry
    # (primal then tangent) last
    j = body.jaxpr
    k, ncarry, nbt = len(consts), len(init), sum(bconst_nz)
    iv = j.invars
    carry_v, bt_v, ct_v = iv[k + nb:k + nb + ncarry], iv[k + nb + ncarry:k + nb + ncarry + nbt], iv[k + nb + ncarry + nbt:]
    body = core.ClosedJaxpr(core.Jaxpr([], iv[:k + nb] + bt_v + carry_v + ct_v, j.outvars, j.eqns, j.effects), [])
    ct_avals = [ad.tangent_aval(a) for a, nz in zip(body_jaxpr.out_avals, carry_nz) if nz]
    cj = cond_jaxpr.jaxpr
    cond = core.ClosedJaxpr(core.Jaxpr([], cj.invars + [core.Var(a) for a in ct_avals], cj.outvars,
                                       cj.eqns, cj.effects), [])
    init_t = [common.instantiate_zeros(t, ad.tangent_aval(a))
              for t, a, nz in zip(init_ts, body_jaxpr.out_avals, carry_nz) if nz]
    outs = while_p.bind(*cconsts, *consts, *bconsts, *[t for t in bconst_ts if type(t) is not ad.Zero],
                        *init, *init_t, cond_jaxpr=cond, body_jaxpr=body, cond_nconsts=nc,
                        body_nconsts=k + nb + nbt)
    ps, ts = outs[:ncarry], iter(outs[ncarry:])
    return ps, [next(ts) if nz else ad.Zero(ad.tangent_aval(a)) for nz, a in zip(carry_nz, body_jaxpr.out_avals)]


def _while_partial_eval(eqn, in_unknown):
    """Carries that stay known (and a condition reading only those) run in a known loop; the
    unknown loop recomputes everything from the inputs, as in JAX (it is only transposable
    nowhere, so it costs nothing extra in forward mode)."""
    p = eqn.params
    nc, nb = p["cond_nconsts"], p["body_nconsts"]
    cond_uk, bconst_uk, carry_uk = in_unknown[:nc], in_unknown[nc:nc + nb], list(in_unknown[nc + nb:])
    body = p["body_jaxpr"].jaxpr
    ncarry = len(carry_uk)
    while True:
        _, _, out_uk, _ = ad.partial_eval_jaxpr(body, bconst_uk + carry_uk, [False] * ncarry)
        new = [a or b for a, b in zip(carry_uk, out_uk, strict=True)]
        if new == carry_uk:
            break
        carry_uk = new
    cond = p["cond_jaxpr"].jaxpr
    c_known, _, c_out_uk, _ = ad.partial_eval_jaxpr(cond, list(cond_uk) + carry_uk, [False])
    if c_out_uk[0] or all(carry_uk):
        return [], [eqn], [True] * ncarry
    b_known, _, _, b_nres = ad.partial_eval_jaxpr(body, bconst_uk + carry_uk, carry_uk)
    nk = ncarry - sum(carry_uk)
    b_known = pe.prune_jaxpr(core.Jaxpr([], b_known.invars, b_known.outvars[:nk], b_known.eqns))
    c_known = pe.prune_jaxpr(core.Jaxpr([], c_known.invars, c_known.outvars[:1], c_known.eqns))
    kc = [v for v, u in zip(eqn.invars[:nc], cond_uk) if not u]
    kb = [v for v, u in zip(eqn.invars[nc:nc + nb], bconst_uk) if not u]
    kcarry = [v for v, u in zip(eqn.invars[nc + nb:], carry_uk) if not u]
    known_outs = [v for v, u in zip(eqn.outvars, carry_uk) if not u]
    k_eqn = core.JaxprEqn(kc + kb + kcarry, known_outs, while_p,
                          dict(cond_jaxpr=core.ClosedJaxpr(c_known, []), body_jaxpr=core.ClosedJaxpr(b_known, []),
                               cond_nconsts=len(kc), body_nconsts=len(kb)))
    # the unknown loop recomputes all carries; its known outputs are dropped
    u_outvars = [v if u else core.Var(v.aval) for v, u in zip(eqn.outvars, carry_uk)]
    u_eqn = core.JaxprEqn(eqn.invars, u_outvars, while_p, p)
    return [k_eqn], [u_eqn], carry_uk


while_p.partial_eval = _while_partial_eval


@while_p.def_transpose
def _while_transpose(cts, *args, **params):
    raise ValueError("Reverse-mode differentiation does not work for lax.while_loop or "
                     "lax.fori_loop with dynamic start/stop values. Try using lax.scan, or using "
                     "fori_loop with static start/stop.")


def _while_batch(axis_data, args, dims, *, cond_jaxpr, body_jaxpr, cond_nconsts, body_nconsts):
    """An AxisBatchRule. Carries batched at the start or by the body are batched throughout;
    a batched predicate makes every carry batched, and the loop runs while any lane is live,
    each lane keeping its carry once its own predicate is false."""
    size = axis_data.size
    nc, nb = cond_nconsts, body_nconsts
    args = [x if d is batching.not_mapped else batching.bdim_at_front(x, d, size) for x, d in zip(args, dims)]
    dims = [d if d is batching.not_mapped else 0 for d in dims]
    cdims, bdims, carry_dims = dims[:nc], dims[nc:nc + nb], dims[nc + nb:]
    ncarry = len(carry_dims)
    carry_b = [d is not batching.not_mapped for d in carry_dims]
    while True:
        _, _, out_b = common.batch_jaxpr(body_jaxpr, axis_data, bdims + _dims(carry_b), carry_b)
        _, _, pred_b = common.batch_jaxpr(cond_jaxpr, axis_data, cdims + _dims(carry_b), [False])
        new = [a or b for a, b in zip(carry_b, out_b, strict=True)]
        if pred_b[0]:
            new = [True] * ncarry
        if new == carry_b:
            break
        carry_b = new
    cconsts, bconsts, init = args[:nc], args[nc:nc + nb], args[nc + nb:]
    init = [batching.broadcast(x, size, 0) if b and d is batching.not_mapped else x
            for x, d, b in zip(init, carry_dims, carry_b)]
    out_dims = _dims(carry_b)
    if not pred_b[0]:
        body, bc, _ = common.batch_jaxpr(body_jaxpr, axis_data, bdims + out_dims, carry_b)
        cond, cc, _ = common.batch_jaxpr(cond_jaxpr, axis_data, cdims + out_dims, [False])
        outs = while_p.bind(*cc, *cconsts, *bc, *bconsts, *init, cond_jaxpr=cond, body_jaxpr=body,
                            cond_nconsts=len(cc) + nc, body_nconsts=len(bc) + nb)
        return outs, out_dims
    # batched predicate: all carries batched
    carry_avals = [core.get_aval(x) for x in init]

    def lane_pred(cc, carry):
        (p,), (d,) = batching.batch_flat(lambda *xs: core.eval_jaxpr(cond_jaxpr.jaxpr, [], *xs),
                                         list(cc) + list(carry), cdims + out_dims, axis_data)
        return batching.bdim_at_front(p, d, size)

    def cond_fun(*xs):
        return [reduce_or(lane_pred(xs[:nc], xs[nc:]), (0,))]

    # NB: a cond with ordered effects (an ordered debug print) is not run again in the body to
    # mask the finished lanes: as in JAX 0.10.2 (its lowering evaluates such a cond once per
    # iteration), every lane then runs the body until the last is done
    cond_ordered = any(getattr(e, "ordered", False) for e in cond_jaxpr.effects)

    def body_fun(*xs):
        cc, bc, carry = xs[:nc], xs[nc:nc + nb], xs[nc + nb:]
        live = None if cond_ordered else lane_pred(cc, carry)
        masked_body.depth += 1
        try:
            new, ds = batching.batch_flat(lambda *ys: core.eval_jaxpr(body_jaxpr.jaxpr, [], *ys),
                                          list(bc) + list(carry), bdims + out_dims, axis_data)
        finally:
            masked_body.depth -= 1
        new = [batching.bdim_at_front(n, d, size) for n, d in zip(new, ds)]
        if live is None:
            return new
        return [lax_elem.select_n(_bcast(live, core.get_aval(n).shape), c, n) for c, n in zip(carry, new)]
    cavals = [core.get_aval(x) for x in cconsts]
    bavals = [core.get_aval(x) for x in bconsts]
    cond, cc = common.trace_flat(cond_fun, cavals + carry_avals)
    body, bc = common.trace_flat(body_fun, cavals + bavals + carry_avals)
    outs = while_p.bind(*cc, *cconsts, *bc, *cconsts, *bconsts, *init, cond_jaxpr=cond,
                        body_jaxpr=body, cond_nconsts=len(cc) + nc, body_nconsts=len(bc) + nc + nb)
    return outs, out_dims


class _MaskedBody(threading.local):
    depth = 0


# Nonzero while a batched-predicate loop body is traced: its finished lanes run too (their
# results are discarded), so a checkify `check` there could fail for a finished lane; checkify
# refuses such checks, as JAX refuses checkify of a batched while.
masked_body = _MaskedBody()


def _dims(batched):
    return [0 if b else batching.not_mapped for b in batched]


def _bcast(pred, shape):
    return pred if len(shape) == 1 else broadcast_in_dim(pred, shape, (0,))


while_p.def_batch(batching.AxisBatchRule(_while_batch))


@while_p.def_lowering
def _while_lowering(ctx, *args, cond_jaxpr, body_jaxpr, cond_nconsts, body_nconsts):
    # The consts are read from the enclosing scope (stablehlo regions may capture values).
    nc, nb = cond_nconsts, body_nconsts
    cconsts, bconsts, init = list(args[:nc]), list(args[nc:nc + nb]), list(args[nc + nb:])
    carry_avals = ctx.avals_in[nc + nb:]
    cond = ctx.region(carry_avals, lambda *c: ctx.lower_jaxpr(cond_jaxpr.jaxpr, [], cconsts + list(c)))
    body = ctx.region(carry_avals, lambda *c: ctx.lower_jaxpr(body_jaxpr.jaxpr, [], bconsts + list(c)))
    return ctx.op_multi("stablehlo.while", *init, regions=[cond, body])
