"""`lax.scan` and the loops built on it: `fori_loop` (static trip count) and `map`.

`scan_p.bind(*consts, *init, *xs, jaxpr, num_consts, num_carry, length, reverse, unroll)`:
`jaxpr` is a const-free closed jaxpr `(*consts, *carry, *x) -> (*carry, *y)` applied to the
slices of `xs` along axis 0 (last to first when `reverse`), the `y`s stacked along a new axis 0.

Rules, in order: abstract eval, impl (compiled), jvp (a scan over primals and tangents; which
carries have nonzero tangents is a fixed point), partial eval (a known scan computing the primal
outputs and the per-iteration residuals, stacked as extra `ys`, and an unknown scan consuming
them as `xs`: the forward pass is never recomputed; residuals that are loop-invariant are computed
once outside the loop and residuals that are consts or `xs` themselves are forwarded, not
stacked), transpose (a scan in the other direction over the residuals and output cotangents,
the cotangents of linear consts accumulated in the carry), batching (batched consts, carries and
xs; which carries are batched is a fixed point), dce (the used outputs and the carries they
need, a fixed point), and lowering (`stablehlo.while` over an index,
slicing `xs` and updating `ys` in place, `unroll` iterations per loop step).
"""
from __future__ import annotations

from functools import partial

import numpy as np

from pyjax._src import core, dispatch, dtypes, errors, tree_util
from pyjax._src.config import config
from pyjax._src.core import Primitive
from pyjax._src.interpreters import ad, batching
from pyjax._src.interpreters import partial_eval as pe
from pyjax._src.lax import elementwise as lax_elem
from pyjax._src.lax import shape_ops
from pyjax._src.lax.control_flow import common
from pyjax._src.lax.control_flow.while_loop import _while_loop
from pyjax._src.lax.dynamic_slicing import dynamic_slice_p, dynamic_update_slice_p
from pyjax._src.traceback_util import api_boundary

scan_p = Primitive("scan", multiple_results=True)


@api_boundary
def scan(f, init, xs=None, length=None, reverse=False, unroll=1, _split_transpose=False):
    """Loop `f(carry, x) -> (carry, y)` over the leading axis of `xs`, stacking the `y`s.

    Equivalent to (but staged out as one loop, traced once):

        def scan(f, init, xs, length=None):
            carry, ys = init, []
            for x in xs:
                carry, y = f(carry, x)
                ys.append(y)
            return carry, np.stack(ys)

    Example:
        >>> lax.scan(lambda c, x: (c + x, c * x), 0.0, jnp.arange(4.0))
        (Array(6., dtype=float32), Array([0., 0., 2., 9.], dtype=float32))
    """
    return _scan(f, init, xs, length, reverse, unroll, (f, "scan"))


def _scan(f, init, xs, length, reverse, unroll, cache_as):
    """`scan`, with `f`'s traces cached eagerly under `cache_as = (fun, tag)` (`common.cached_trace`):
    `fun` is the user's function `f` stands for (fori_loop wraps its body in a new `f` each call)."""
    xs_flat, xs_tree = tree_util.tree_flatten(xs)
    xs_avals = [core.get_aval(x) for x in xs_flat]
    length = _scan_length(xs_avals, length)
    unroll = _canonical_unroll(unroll, length)
    init_flat, init_tree = tree_util.tree_flatten(init)
    if config._values["jax_disable_jit"]:
        return _scan_python(f, init, xs_flat, xs_tree, length, reverse)
    x_avals = [a.update(shape=a.shape[1:]) for a in xs_avals]
    init_avals = [core.get_aval(c) for c in init_flat]
    jaxpr, consts, carry_tree, y_tree = _trace_body(f, init_tree, init_avals, xs_tree, x_avals, cache_as)
    nk = len(init_flat)
    init_flat, promoted = common.promote_weak_carry(init_flat, init_avals, jaxpr.out_avals[:nk])
    if promoted != init_avals:
        init_avals = promoted
        jaxpr, consts, carry_tree, y_tree = _trace_body(f, init_tree, init_avals, xs_tree, x_avals, cache_as)
    common.check_carry_agrees("scan body function", init_tree, init_avals, carry_tree,
                              jaxpr.out_avals[:nk], f)
    outs = scan_p.bind(*consts, *init_flat, *xs_flat, jaxpr=jaxpr, num_consts=len(consts),
                       num_carry=nk, length=length, reverse=bool(reverse), unroll=unroll)
    return tree_util.tree_unflatten(init_tree, outs[:nk]), tree_util.tree_unflatten(y_tree, outs[nk:])


def _scan_length(xs_avals, length):
    for a in xs_avals:
        if not a.shape:
            raise ValueError(f"scan got value with no leading axis to scan over: {a.str_short(False)}.")
    sizes = [a.shape[0] for a in xs_avals]
    if length is not None:
        _check_concrete(length, "length", "`int`", " For scan-like iteration with a dynamic "
                        "length, use `while_loop` or `fori_loop`.")
        length = core.concrete_dim(length, "the `length` argument of scan")
        if any(s != length for s in sizes):
            raise ValueError(f"scan got `length` argument of {length} which disagrees with leading "
                             f"axis sizes {sizes}.")
        return length
    if not sizes:
        raise ValueError("scan got no values to scan over and `length` not provided.")
    if len(set(sizes)) > 1:
        raise ValueError(f"scan got values with different leading axis sizes: "
                         f"{', '.join(str(s) for s in sizes)}.")
    return sizes[0]


def _check_concrete(x, name, kinds, more=""):
    """JAX's ConcretizationTypeError for a traced `length` or `unroll`, in its words."""
    if isinstance(x, core.Tracer) and x.to_concrete_value() is None:
        raise errors.ConcretizationTypeError(
            x, f"scan's `{name}`", f"The `{name}` argument to `scan` expects a concrete {kinds} "
            f"value.{more}")


def _canonical_unroll(unroll, length):
    _check_concrete(unroll, "unroll", "`int` or `bool`")
    if isinstance(unroll, (bool, np.bool_)):
        return max(length, 1) if unroll else 1
    unroll = core.concrete_dim(unroll, "the `unroll` argument of scan")
    if unroll < 0:
        raise ValueError(f"scan: unroll must be a non-negative integer or a bool, got {unroll}")
    return max(unroll, 1)


def _trace_body(f, init_tree, init_avals, xs_tree, x_avals, cache_as):
    fun, tag = cache_as
    key = (tag, init_tree, tuple(init_avals), xs_tree, tuple(x_avals))
    return common.cached_trace(fun, key, lambda: _trace_body_now(f, init_tree, init_avals, xs_tree, x_avals))


def _trace_body_now(f, init_tree, init_avals, xs_tree, x_avals):
    nk = len(init_avals)
    box = []

    def body(*args):
        out = f(tree_util.tree_unflatten(init_tree, args[:nk]), tree_util.tree_unflatten(xs_tree, args[nk:]))
        if not (isinstance(out, (tuple, list)) and len(out) == 2):
            raise TypeError(f"scan body output must be a pair `(carry, y)`, got "
                            f"{type(out).__name__}{f' of length {len(out)}' if isinstance(out, (tuple, list)) else ''}.")
        carry_flat, carry_tree = tree_util.tree_flatten(out[0])
        y_flat, y_tree = tree_util.tree_flatten(out[1])
        box.append((carry_tree, y_tree))
        return carry_flat + y_flat
    debug = pe.TraceDebug(f, "scan", lambda: pe.arg_paths(f, tree_util.treedef_tuple(
        [init_tree, xs_tree])))
    jaxpr, consts = common.trace_flat(body, list(init_avals) + list(x_avals), debug)
    carry_tree, y_tree = box[0]
    if carry_tree != init_tree:
        common.check_carry_agrees("scan body function", init_tree, init_avals, carry_tree, [])
    return jaxpr, consts, carry_tree, y_tree


def _scan_python(f, init, xs_flat, xs_tree, length, reverse):
    """The loop itself, under `disable_jit`."""
    carry, ys = init, []
    for i in (reversed(range(length)) if reverse else range(length)):
        x = tree_util.tree_unflatten(xs_tree, [shape_ops.index_in_dim(x, i, 0, False) for x in xs_flat])
        carry, y = f(carry, x)
        ys.append(y)
    if not ys:
        raise ValueError("scan: a scan of length 0 cannot run under disable_jit")
    ys.reverse() if reverse else None
    stacked = [shape_ops.concatenate([shape_ops.reshape(l, (1,) + np.shape(l)) for l in leaves], 0)
               for leaves in zip(*[tree_util.tree_leaves(y) for y in ys])]
    return carry, tree_util.tree_unflatten(tree_util.tree_structure(ys[0]), stacked)


# -- abstract eval and impl ---------------------------------------------------------------------


@scan_p.def_abstract_eval
def _scan_abstract_eval(*avals, jaxpr, num_consts, num_carry, length, reverse, unroll):
    expected = jaxpr.in_avals
    ncx = num_consts + num_carry
    got = list(avals[:ncx]) + [a.update(shape=a.shape[1:]) for a in avals[ncx:]]
    if len(got) != len(expected) or any(
            (g.shape, g.dtype) != (e.shape, e.dtype) for g, e in zip(got, expected)) or any(
            a.shape[:1] != (length,) for a in avals[ncx:]):
        raise TypeError(f"scan: operands {[a.str_short() for a in avals]} (length {length}) do not "
                        f"match the body's inputs {[a.str_short() for a in expected]}")
    outs = jaxpr.out_avals
    return list(outs[:num_carry]) + [a.update(shape=(length,) + a.shape) for a in outs[num_carry:]]


# compiled once per (body jaxpr, avals, params), held by the body so new scans are not leaked
scan_p.def_impl(partial(dispatch.apply_jaxpr_primitive, scan_p, "jaxpr"))


# -- jvp ----------------------------------------------------------------------------------------


def _is_float(aval):
    return dtypes.issubdtype(aval.dtype, np.inexact)


@scan_p.def_jvp
def _scan_jvp(primals, tangents, *, jaxpr, num_consts, num_carry, length, reverse, unroll):
    nc, nk = num_consts, num_carry
    nz = [type(t) is not ad.Zero and _is_float(a) for t, a in zip(tangents, jaxpr.in_avals)]
    const_nz, carry_nz, xs_nz = nz[:nc], nz[nc:nc + nk], nz[nc + nk:]
    nys = len(jaxpr.out_avals) - nk
    for _ in range(nk + 1):  # a carry's tangent is nonzero if it is nonzero after an iteration
        jvp, jvp_consts, out_nz = common.jvp_jaxpr(jaxpr, const_nz + carry_nz + xs_nz,
                                                   carry_nz + [False] * nys)
        new = [a or (b and _is_float(v)) for a, b, v in zip(carry_nz, out_nz[:nk], jaxpr.out_avals)]
        if new == carry_nz:
            break
        carry_nz = new
    # jvp takes (*jvp_consts, *primals, *nonzero tangents): regroup as consts, carry, xs
    n, nct, nkt = len(jaxpr.in_avals), sum(const_nz), sum(carry_nz)
    order = _regroup([len(jvp_consts), nc, nk, n - nc - nk], [nct, nkt, sum(xs_nz)])
    jvp = _permute_invars(jvp, order)
    nys_t = sum(out_nz[nk:])
    jvp = _permute_outvars(jvp, _regroup_outs(nk, nys, nkt, nys_t))
    consts, init, xs = primals[:nc], primals[nc:nc + nk], primals[nc + nk:]
    t_consts = [t for t, z in zip(tangents[:nc], const_nz) if z]
    t_init = [ad.instantiate(t) for t, z in zip(tangents[nc:nc + nk], carry_nz) if z]
    t_xs = [t for t, z in zip(tangents[nc + nk:], xs_nz) if z]
    outs = scan_p.bind(*jvp_consts, *consts, *t_consts, *init, *t_init, *xs, *t_xs, jaxpr=jvp,
                       num_consts=len(jvp_consts) + nc + nct, num_carry=nk + nkt, length=length,
                       reverse=reverse, unroll=unroll)
    carry, t_carry, ys, t_ys = _split(outs, [nk, nkt, nys])
    out_avals = _abstract_outs(jaxpr, nk, length)
    t_carry, t_ys = iter(t_carry), iter(t_ys)
    out_t = [next(t_carry) if z else ad.Zero(ad.tangent_aval(a))
             for z, a in zip(carry_nz, out_avals[:nk])]
    out_t += [next(t_ys) if z else ad.Zero(ad.tangent_aval(a))
              for z, a in zip(out_nz[nk:], out_avals[nk:])]
    return carry + ys, out_t


def _split(xs, sizes):
    out, i = [], 0
    for s in sizes:
        out.append(list(xs[i:i + s]))
        i += s
    out.append(list(xs[i:]))
    return out


def _abstract_outs(jaxpr, nk, length):
    outs = jaxpr.out_avals
    return list(outs[:nk]) + [a.update(shape=(length,) + a.shape) for a in outs[nk:]]


def _regroup(primal_sizes, tangent_sizes):
    """Invar order of a jvp jaxpr `(hoisted, consts, carry, xs, t_consts, t_carry, t_xs)` as
    `(hoisted, consts, t_consts, carry, t_carry, xs, t_xs)`: a list of old positions."""
    nh, nc, nk, nx = primal_sizes
    tc, tk, tx = tangent_sizes
    base_t = nh + nc + nk + nx
    r = list(range(nh + nc)) + list(range(base_t, base_t + tc))
    r += list(range(nh + nc, nh + nc + nk)) + list(range(base_t + tc, base_t + tc + tk))
    r += list(range(nh + nc + nk, base_t)) + list(range(base_t + tc + tk, base_t + tc + tk + tx))
    return r


def _regroup_outs(nk, nys, nkt, nyt):
    """Outvars `(carry, ys, t_carry, t_ys)` as `(carry, t_carry, ys, t_ys)`."""
    return (list(range(nk)) + list(range(nk + nys, nk + nys + nkt)) + list(range(nk, nk + nys))
            + list(range(nk + nys + nkt, nk + nys + nkt + nyt)))


def _permute_invars(closed, order):
    j = closed.jaxpr
    return core.ClosedJaxpr(core.Jaxpr([], [j.invars[i] for i in order], j.outvars, j.eqns, j.effects), [])


def _permute_outvars(closed, order):
    j = closed.jaxpr
    return core.ClosedJaxpr(core.Jaxpr([], j.invars, [j.outvars[i] for i in order], j.eqns, j.effects), [])


# -- partial eval -------------------------------------------------------------------------------


def _scan_partial_eval(eqn, in_unknown):
    """Known scan: the known outputs plus the residuals, stacked per iteration. Unknown scan: the
    unknown outputs from the residuals. See the module docstring for the residual kinds."""
    p = eqn.params
    closed, nc, nk, length = p["jaxpr"], p["num_consts"], p["num_carry"], p["length"]
    const_uk, carry_uk, xs_uk = in_unknown[:nc], list(in_unknown[nc:nc + nk]), in_unknown[nc + nk:]
    nys = len(closed.out_avals) - nk
    for _ in range(nk + 1):
        known, unknown, out_uk, nres = ad.partial_eval_jaxpr(
            closed.jaxpr, const_uk + carry_uk + xs_uk, carry_uk + [False] * nys)
        if out_uk[:nk] == carry_uk:
            break
        carry_uk = [a or b for a, b in zip(carry_uk, out_uk[:nk])]
    ys_uk = out_uk[nk:]
    residuals = known.outvars[len(known.outvars) - nres:]
    n_kc, n_kk = nc - sum(const_uk), nk - sum(carry_uk)
    k_consts_in, k_xs_in = known.invars[:n_kc], known.invars[n_kc + n_kk:]
    outer = lambda vs, uk, want: [v for v, u in zip(vs, uk) if u == want]  # noqa: E731
    consts_o, init_o, xs_o = eqn.invars[:nc], eqn.invars[nc:nc + nk], eqn.invars[nc + nk:]
    k_consts_o, k_xs_o = outer(consts_o, const_uk, False), outer(xs_o, xs_uk, False)
    const_of = dict(zip(k_consts_in, k_consts_o))
    xs_of = dict(zip(k_xs_in, k_xs_o))
    invariant = _loop_invariant(known, k_consts_in)
    hoist = [r for r in residuals if r in invariant and r not in const_of]
    stacked = [r for r in residuals if r not in invariant and r not in xs_of]
    fwd_consts = [r for r in residuals if r in const_of]
    fwd_xs = [r for r in residuals if r in xs_of and r not in invariant]
    # known side: loop-invariant residuals computed once, then the scan
    hoist_eqns, hoist_outer = _inline_invariant(known, k_consts_in, k_consts_o, hoist)
    k_body = pe.prune_jaxpr(core.Jaxpr([], known.invars, known.outvars[:len(known.outvars) - nres] + stacked,
                                     known.eqns))
    stacked_o = [core.Var(r.aval.update(shape=(length,) + r.aval.shape)) for r in stacked]
    k_outs = outer(eqn.outvars[:nk], carry_uk, False) + outer(eqn.outvars[nk:], ys_uk, False)
    k_eqn = core.JaxprEqn(k_consts_o + outer(init_o, carry_uk, False) + k_xs_o, k_outs + stacked_o,
                          scan_p, dict(p, jaxpr=core.ClosedJaxpr(k_body, []), num_consts=n_kc,
                                       num_carry=n_kk))
    # unknown side: residuals as consts (invariant) or xs (per iteration)
    uk_in = unknown.invars[nres:]
    n_uc, n_uk = sum(const_uk), sum(carry_uk)
    u_body = core.Jaxpr([], hoist + fwd_consts + uk_in[:n_uc] + uk_in[n_uc:n_uc + n_uk] + stacked
                        + fwd_xs + uk_in[n_uc + n_uk:], unknown.outvars, unknown.eqns)
    u_invars = (hoist_outer + [const_of[r] for r in fwd_consts] + outer(consts_o, const_uk, True)
                + outer(init_o, carry_uk, True) + stacked_o + [xs_of[r] for r in fwd_xs]
                + outer(xs_o, xs_uk, True))
    u_outs = outer(eqn.outvars[:nk], carry_uk, True) + outer(eqn.outvars[nk:], ys_uk, True)
    u_eqn = core.JaxprEqn(u_invars, u_outs, scan_p, dict(
        p, jaxpr=core.ClosedJaxpr(u_body, []), num_consts=len(hoist) + len(fwd_consts) + n_uc,
        num_carry=n_uk))
    return hoist_eqns + [k_eqn], [u_eqn], carry_uk + ys_uk


scan_p.partial_eval = _scan_partial_eval


def _loop_invariant(jaxpr, const_invars) -> set:
    """Variables of a scan body computed from its consts (and literals) only."""
    inv = set(const_invars)
    for e in jaxpr.eqns:
        if not e.effects and all(type(v) is core.Literal or v in inv for v in e.invars):
            inv.update(e.outvars)
    return inv


def _inline_invariant(jaxpr, const_invars, outer_consts, wanted):
    """Copies of the equations computing `wanted` from the consts, to run before the loop, with
    the body's const invars renamed to the outer operands; returns (eqns, outer vars)."""
    if not wanted:
        return [], []
    inv = _loop_invariant(jaxpr, const_invars)
    sub = pe.prune_jaxpr(core.Jaxpr([], const_invars, wanted, [
        e for e in jaxpr.eqns if e.outvars and all(v in inv for v in e.outvars)]))
    env = dict(zip(const_invars, outer_consts))
    eqns = []
    for e in sub.eqns:
        outs = [core.Var(v.aval) for v in e.outvars]
        env.update(zip(e.outvars, outs))
        eqns.append(e._replace(invars=[v if type(v) is core.Literal else env[v] for v in e.invars],
                               outvars=outs))
    return eqns, [env[v] for v in wanted]


# -- transpose ----------------------------------------------------------------------------------


@scan_p.def_transpose
def _scan_transpose(cts, *args, jaxpr, num_consts, num_carry, length, reverse, unroll):
    nc, nk = num_consts, num_carry
    lin = [ad.is_undefined_primal(a) for a in args]
    const_lin, carry_lin, xs_lin = lin[:nc], lin[nc:nc + nk], lin[nc + nk:]
    # NB: a carry whose init is known (instantiated zeros of a tangent) is still linear in the
    # loop; its cotangent is returned and dropped by backward_pass (as JAX does).
    carry_lin = [True] * nk
    consts, xs = args[:nc], args[nc + nk:]
    res_consts = [c for c, l in zip(consts, const_lin) if not l]
    res_xs = [x for x, l in zip(xs, xs_lin) if not l]
    lin_const_avals = [c.aval for c, l in zip(consts, const_lin) if l]
    # NB: as JAX, the carry's cotangent has the type of the cotangent flowing in (which may
    # differ from the carry's in weak type): the body is transposed at that type.
    ct_carry = [common.instantiate_zeros(c, a) for c, a in zip(cts[:nk], jaxpr.in_avals[nc:nc + nk])]
    carry_avals = [core.get_aval(c) for c in ct_carry]
    y_avals = jaxpr.out_avals[nk:]
    ys_nz = [type(c) is not ad.Zero for c in cts[nk:]]
    ct_ys = [c for c, z in zip(cts[nk:], ys_nz) if z]
    lin_avals = lin_const_avals + carry_avals + [a for a, l in zip(jaxpr.in_avals[nc + nk:], xs_lin) if l]
    x_avals = jaxpr.in_avals[nc + nk:]
    res_x_avals = [a for a, l in zip(x_avals, xs_lin) if not l]
    n_rc, n_lc = len(res_consts), len(lin_const_avals)
    mask = const_lin + carry_lin + xs_lin

    def body(*a):
        rc, acc, ck, cy, rx = _split(a, [n_rc, n_lc, nk, sum(ys_nz)])
        cy = iter(cy)
        full_cy = [next(cy) if z else ad.Zero(av) for z, av in zip(ys_nz, y_avals)]
        cts_in = ad.backward_pass(jaxpr.jaxpr, rc + rx, mask, ck + full_cy, lin_avals)
        ct_c, ct_k, ct_x = cts_in[:nc], cts_in[nc:nc + nk], cts_in[nc + nk:]
        ct_c = [c for c, l in zip(ct_c, const_lin) if l]
        new_acc = [common.instantiate_zeros(ad.add_tangents(s, c), av) for s, c, av in zip(acc, ct_c, lin_const_avals)]
        return (new_acc + [common.instantiate_zeros(c, av) for c, av in zip(ct_k, carry_avals)]
                + [common.instantiate_zeros(c, av) for c, av, l in zip(ct_x, x_avals, xs_lin) if l])
    in_avals = ([core.get_aval(c) for c in res_consts] + lin_const_avals + list(carry_avals)
                + [a.update(weak_type=core.get_aval(c).weak_type)
                   for a, c in zip([a for a, z in zip(y_avals, ys_nz) if z], ct_ys)] + res_x_avals)
    t_jaxpr, t_consts = common.trace_flat(body, in_avals)
    acc0 = [common.zeros(a) for a in lin_const_avals]
    outs = scan_p.bind(*t_consts, *res_consts, *acc0, *ct_carry, *ct_ys, *res_xs, jaxpr=t_jaxpr,
                       num_consts=len(t_consts) + n_rc, num_carry=n_lc + nk, length=length,
                       reverse=not reverse, unroll=unroll)
    ct_consts, ct_init, ct_xs = _split(outs, [n_lc, nk])
    ct_consts, ct_xs = iter(ct_consts), iter(ct_xs)
    return ([next(ct_consts) if l else None for l in const_lin] + ct_init
            + [next(ct_xs) if l else None for l in xs_lin])


# -- batching -----------------------------------------------------------------------------------


def _scan_batch(axis_data, args, dims, *, jaxpr, num_consts, num_carry, length, reverse, unroll):
    nc, nk = num_consts, num_carry
    size = axis_data.size
    batched = [d is not batching.not_mapped for d in dims]
    const_b, carry_b, xs_b = batched[:nc], batched[nc:nc + nk], batched[nc + nk:]
    nys = len(jaxpr.out_avals) - nk
    for _ in range(nk + 1):  # a carry is batched if it is batched after an iteration
        in_dims = [0 if b else None for b in const_b + carry_b + xs_b]
        body, consts, out_b = common.batch_jaxpr(jaxpr, axis_data, in_dims, carry_b + [False] * nys)
        if out_b[:nk] == carry_b:
            break
        carry_b = [a or b for a, b in zip(carry_b, out_b[:nk])]
    ys_b = out_b[nk:]
    c_args = [batching.bdim_at_front(x, d, size) if b else x
              for x, d, b in zip(args[:nc], dims[:nc], const_b)]
    k_args = [batching.bdim_at_front(x, d, size) if b else x
              for x, d, b in zip(args[nc:nc + nk], dims[nc:nc + nk], carry_b)]
    x_args = [batching.moveaxis(x, d, 1) if b else x
              for x, d, b in zip(args[nc + nk:], dims[nc + nk:], xs_b)]
    outs = scan_p.bind(*consts, *c_args, *k_args, *x_args, jaxpr=body, num_consts=len(consts) + nc,
                       num_carry=nk, length=length, reverse=reverse, unroll=unroll)
    return outs, [0 if b else None for b in carry_b] + [1 if b else None for b in ys_b]


scan_p.def_batch(batching.AxisBatchRule(_scan_batch))


# -- dce ----------------------------------------------------------------------------------------


def _scan_dce(used_outputs, eqn):
    """Only the used ys and the carries they (or the used carries) need: a carry is needed if
    its output is used or a needed output reads it, a fixed point over the body; the consts and
    xs no needed output reads are dropped. (Effects keep the whole loop.)"""
    p = eqn.params
    body, nc, nk = p["jaxpr"].jaxpr, p["num_consts"], p["num_carry"]
    if body.effects or p["jaxpr"].consts:
        return None, eqn
    used_carry, used_ys = list(used_outputs[:nk]), list(used_outputs[nk:])
    while True:
        pruned, used_in = pe.dce_jaxpr(body, used_carry + used_ys,
                                       instantiate=[False] * nc + used_carry + [False] * (len(body.invars) - nc - nk))
        needed = [a or b for a, b in zip(used_carry, used_in[nc:nc + nk], strict=True)]
        if needed == used_carry:
            break
        used_carry = needed
    invars = [v for v, u in zip(eqn.invars, used_in, strict=True) if u]
    outvars = [v for v, u in zip(eqn.outvars, used_carry + used_ys, strict=True) if u]
    params = dict(p, jaxpr=core.ClosedJaxpr(pruned, []), num_consts=sum(used_in[:nc]),
                  num_carry=sum(used_carry))
    return None, core.JaxprEqn(invars, outvars, scan_p, params, eqn.source_info)


scan_p.def_dce(_scan_dce)


# -- lowering -----------------------------------------------------------------------------------


@scan_p.def_lowering
def _scan_lowering(ctx, *args, jaxpr, num_consts, num_carry, length, reverse, unroll):
    # The loop state is (index, carry, ys); consts and xs are read from the enclosing scope.
    nc, nk = num_consts, num_carry
    consts, init, xs = list(args[:nc]), list(args[nc:nc + nk]), list(args[nc + nk:])
    xs_avals = ctx.avals_in[nc + nk:]
    carry_avals, ys_avals = ctx.avals_out[:nk], ctx.avals_out[nk:]
    # a symbolic length (export): a while loop of one step per iteration, its bounds computed
    symbolic = type(length) in core.symbolic_dim_types
    ys = [ctx.broadcast(ctx.const(np.zeros((), a.dtype), a.dtype), a.update(shape=()), a.shape)
          if symbolic else ctx.const(np.zeros((), a.dtype), a.dtype, a.shape) for a in ys_avals]
    if length == 0:
        return init + ys
    idx_aval = core.ShapedArray((), np.int32)
    state_avals = [idx_aval] + list(carry_avals) + list(ys_avals)
    unroll = 1 if symbolic else min(unroll, length)
    blocks, rem = divmod(length, unroll)
    i32 = lambda n: n.__jax_array__() if symbolic else np.int32(n)  # noqa: E731 (a dim's value)

    def steps(k):
        """`k` iterations from the traced index `i` (a function to trace into a jaxpr)."""
        def fun(i, *a):
            c_, carry, xs_, ys_ = _split(a, [nc, nk, len(xs)])
            for _ in range(k):
                t = lax_elem.sub(i32(length - 1), i) if reverse else i
                x = [_index(v, t) for v in xs_]
                outs = core.eval_jaxpr(jaxpr.jaxpr, [], *c_, *carry, *x)
                carry = outs[:nk]
                ys_ = [_update_index(v, y, t) for v, y in zip(ys_, outs[nk:])]
                i = lax_elem.add(i, np.int32(1))
            return [i] + list(carry) + list(ys_)
        return fun

    step_avals = [idx_aval] + list(ctx.avals_in[:nc]) + list(carry_avals) + list(xs_avals) + list(ys_avals)
    state = [ctx.const(np.int32(0), np.int32)] + init + ys
    if symbolic or blocks > 1:
        block = _trace(steps(unroll), step_avals)
        cond = _trace(lambda i: [lax_elem.lt(i, i32(blocks * unroll))], [idx_aval])

        def body_fn(i, *rest):
            carry, ys_ = rest[:nk], rest[nk:]
            return _inline(ctx, block, [i] + consts + list(carry) + xs + list(ys_))
        state = ctx.op_multi("stablehlo.while", *state, outs=state_avals, regions=[
            ctx.region(state_avals, lambda i, *_: _inline(ctx, cond, [i])),
            ctx.region(state_avals, body_fn)])
        rest_steps = rem
    else:
        rest_steps = length
    if rest_steps:  # the remaining iterations, unrolled after the loop
        tail = _trace(steps(rest_steps), step_avals)
        state = _inline(ctx, tail, [state[0]] + consts + list(state[1:1 + nk]) + xs + list(state[1 + nk:]))
    return list(state[1:])


# The loop index is always in bounds: bind the primitives directly (the wrappers would add the
# negative-index wrap-around, a select per slice).
def _index(x, i):
    shape = core.get_aval(x).shape
    zeros = [np.int32(0)] * (len(shape) - 1)
    out = dynamic_slice_p.bind(x, i, *zeros, slice_sizes=(1,) + shape[1:])
    return shape_ops.reshape(out, shape[1:])


def _update_index(x, y, i):
    shape = core.get_aval(x).shape
    zeros = [np.int32(0)] * (len(shape) - 1)
    return dynamic_update_slice_p.bind(x, shape_ops.reshape(y, (1,) + shape[1:]), i, *zeros)


def _trace(fun, avals):
    closed, _ = pe.trace_to_jaxpr(lambda *a: list(fun(*a)), list(avals))
    return closed


def _inline(ctx, closed, args):
    consts = [ctx.const(np.asarray(c), np.asarray(c).dtype, np.shape(c)) for c in closed.consts]
    return ctx.lower_jaxpr(closed.jaxpr, consts, list(args))


# -- loops built on scan -------------------------------------------------------------------------


@api_boundary
def fori_loop(lower, upper, body_fun, init_val, *, unroll=None):
    """`for i in range(lower, upper): val = body_fun(i, val)`.

    With concrete bounds it is a `scan` (so reverse-mode differentiable); with traced bounds a
    `while_loop`.

    Example:
        >>> lax.fori_loop(0, 10, lambda i, x: x + i, 0)
        Array(45, dtype=int32, weak_type=True)
    """
    dt = _fori_index_dtype(lower, upper)
    if not isinstance(lower, core.Tracer) and not isinstance(upper, core.Tracer):
        # as JAX: the index counts from int(lower), a weakly typed int whatever the bounds' type
        lo, hi = int(np.asarray(lower)), int(np.asarray(upper))
        (_, out), _ = _scan(_fori_scan_body(body_fun), (lo, init_val), None, max(hi - lo, 0), False,
                            1 if unroll is None else unroll, (body_fun, "fori_loop"))
        return out
    if unroll not in (None, 1, False):
        raise ValueError("fori_loop: unroll requires static (concrete) loop bounds")
    lower, upper = _common_index(lower, upper, dt)
    # as JAX: the bound rides in the carry, so the wrappers close over nothing but body_fun
    return _while_loop(_fori_cond, _fori_while_body(body_fun), (lower, upper, init_val),
                       (body_fun, "fori_loop"))[2]


def _fori_scan_body(body_fun):
    def scan_body(loop_carry, _):  # (JAX's name, which its carry type errors quote)
        i, x = loop_carry
        return (lax_elem.add(i, 1), body_fun(i, x)), None
    return scan_body


def _fori_cond(carry):
    return lax_elem.lt(carry[0], carry[1])


def _fori_while_body(body_fun):
    def body(loop_carry):
        i, upper, x = loop_carry
        return lax_elem.add(i, 1), upper, body_fun(i, x)
    return body


def _fori_index_dtype(lower, upper):
    """JAX 0.10.2's rule: the bounds have one dtype, or both are signed integers and exactly one
    is weakly typed (a Python int), which takes the other's dtype."""
    lo, hi = core.get_aval(lower), core.get_aval(upper)
    if lo.dtype == hi.dtype:
        return lo.dtype
    if dtypes.issubdtype(lo.dtype, np.signedinteger) and dtypes.issubdtype(hi.dtype, np.signedinteger) \
            and lo.weak_type != hi.weak_type:
        return hi.dtype if lo.weak_type else lo.dtype
    raise TypeError("lower and upper arguments to fori_loop must have equal types, got "
                    f"{lo.dtype.name} and {hi.dtype.name}")


def _common_index(lower, upper, dt):
    # (any numeric type, as JAX: traced float bounds count in floats)
    # as JAX, a bound already of that dtype is left alone (a weak one stays weak)
    return tuple(x if core.get_aval(x).dtype == dt else lax_elem._convert_element_type(x, dt, False)
                 for x in (lower, upper))


@api_boundary
def map(f, xs, *, batch_size=None):
    """`f` applied to each slice of `xs` along axis 0, as a `scan` (or a scan over batches of
    `batch_size` slices, each batch vmapped, when given).

    Example:
        >>> lax.map(lambda x: x @ x.T, jnp.ones((5, 2, 3)))   # shape (5, 2, 2)
    """
    if batch_size is None:
        return scan(lambda _, x: ((), f(x)), (), xs)[1]
    xs_flat, xs_tree = tree_util.tree_flatten(xs)
    n = _scan_length([core.get_aval(x) for x in xs_flat], None)
    batch_size = core.concrete_dim(batch_size, "the batch_size of lax.map")
    if batch_size == 0:  # as JAX: one batch of everything (a vmap)
        if n == 0:
            return scan(lambda _, x: ((), f(x)), (), xs)[1]
        batch_size = n
    if batch_size < 0:
        raise ValueError(f"lax.map: batch_size must be non-negative, got {batch_size}")
    num, rem = divmod(n, batch_size)
    vf, out_tree = _vmap_leading(f, xs_tree)
    parts = []
    if num:
        main = [shape_ops.reshape(shape_ops.slice_in_dim(x, 0, num * batch_size, 1, 0),
                                  (num, batch_size) + core.get_aval(x).shape[1:]) for x in xs_flat]
        ys = scan(lambda _, x: ((), vf(x)), (), main)[1]
        parts.append([shape_ops.reshape(y, (num * batch_size,) + core.get_aval(y).shape[2:]) for y in ys])
    if rem:
        parts.append(vf([shape_ops.slice_in_dim(x, num * batch_size, n, 1, 0) for x in xs_flat]))
    flat = parts[0] if len(parts) == 1 else [shape_ops.concatenate(list(p), 0) for p in zip(*parts)]
    return tree_util.tree_unflatten(out_tree[0], flat)


def _vmap_leading(f, xs_tree):
    """`f` vmapped over axis 0, as a function of the flat leaves of `xs` returning flat outputs
    (and a box that receives the output tree)."""
    box = []

    def vf(xs_flat):
        size = core.get_aval(xs_flat[0]).shape[0]

        def flat_f(*leaves):
            out_flat, out_tree = tree_util.tree_flatten(f(tree_util.tree_unflatten(xs_tree, leaves)))
            box[:] = [out_tree]
            return out_flat
        outs, dims = batching.batch_flat(flat_f, list(xs_flat), [0] * len(xs_flat),
                                         batching.AxisData(None, size))
        return [batching.bdim_at_front(o, d, size) for o, d in zip(outs, dims)]
    return vf, box
