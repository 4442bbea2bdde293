"""`lax.cond` and `lax.switch`: the `cond` primitive, holding one jaxpr per branch.

`cond_p.bind(index, *operands, branches=(b0, b1, ...))` runs `branches[index](*operands)`. The
branches are const-free closed jaxprs all taking the same operands: the constants every branch
closes over are hoisted into operands, each branch ignoring the others' (`common.join_consts`).
As in JAX, `cond(pred, t, f)` is `branches=(f, t)` indexed by `convert(pred, int32)`, and
`switch` clamps its index into range.

Rules, in order: abstract eval, impl, jvp, partial eval (the residuals of all branches are
outputs of every branch, zeros where a branch does not compute them, so reverse mode saves the
taken branch's), transpose, batching (a batched predicate runs every branch and selects), and
lowering to `stablehlo.case`.
"""
from __future__ import annotations

import numpy as np

from pyjax._src import core, tree_util
from pyjax._src.array import Array, ArrayImpl, rewrap
from pyjax._src.config import config
from pyjax._src.core import Primitive
from pyjax._src.interpreters import ad, batching
from pyjax._src.interpreters import partial_eval as pe
from pyjax._src.lax import elementwise as lax_elem
from pyjax._src.lax.control_flow import common
from pyjax._src.lax.shape_ops import _unchanged, broadcast_in_dim
from pyjax._src.lax.utils import kind
from pyjax._src.traceback_util import api_boundary

cond_p = Primitive("cond", multiple_results=True)

_no_operand = object()


@api_boundary
def cond(pred, true_fun, false_fun, *operands, operand=_no_operand):
    """`true_fun(*operands)` if `pred` else `false_fun(*operands)`, with both branches traced
    and staged out (so `pred` may be a traced value).

    Example:
        >>> lax.cond(x > 0, jnp.sin, jnp.cos, x)
    """
    operands = _operands(operands, operand)
    if not (callable(true_fun) and callable(false_fun)):
        # the old per-branch form: cond(pred, true_operand, true_fun, false_operand, false_fun)
        if len(operands) == 2 and callable(false_fun) and callable(operands[1]):
            true_op, true_f, (false_op, false_f) = true_fun, false_fun, operands
            return cond(pred, lambda ops: true_f(ops[0]), lambda ops: false_f(ops[1]), (true_op, false_op))
        raise TypeError("lax.cond: true_fun and false_fun arguments should be callable.")
    pred = _check_index_operand("cond", "Pred", pred)
    if config._values["jax_disable_jit"] and core.is_concrete(pred):
        return true_fun(*operands) if bool(pred) else false_fun(*operands)
    if isinstance(pred, (Array, core.Tracer)):
        if kind(core.get_aval(pred).dtype) != "b":
            pred = lax_elem.ne(pred, lax_elem._convert_element_type(0, core.get_aval(pred).dtype))
        index = lax_elem.convert_element_type(pred, np.int32)
    else:  # a Python or NumPy scalar: the index is a constant (as JAX, which folds it)
        index = np.int32(np.asarray(pred) != 0)
    # (type errors name true_fun first, as JAX)
    return _bind_branches("cond branches", ["false_fun", "true_fun"], index, [false_fun, true_fun],
                          operands, check_order=(1, 0))


@api_boundary
def switch(index, branches, *operands, operand=_no_operand):
    """`branches[index](*operands)`, `index` clamped into `[0, len(branches) - 1]`.

    Example:
        >>> lax.switch(i, [jnp.sin, jnp.cos, jnp.tanh], x)
    """
    operands = _operands(operands, operand)
    branches = tuple(branches)
    if not branches:
        raise ValueError("Empty branch sequence")
    if not all(callable(b) for b in branches):
        raise TypeError("lax.switch: branches argument should be a sequence of callables.")
    index = _check_index_operand("switch", "Branch index", index)
    dt = core.get_aval(index).dtype
    if kind(dt) not in "iu":
        raise TypeError(f"Index type must be an integer, got {index} as {dt.name}")
    if len(branches) == 1:
        return branches[0](*operands)
    if isinstance(index, (Array, core.Tracer)):
        index = lax_elem.convert_element_type(index, np.int32)
    else:  # a Python or NumPy integer: a constant (as JAX, which folds the conversion)
        index = np.int32(index)
    index = lax_elem.clamp(np.int32(0), index, np.int32(len(branches) - 1))
    if config._values["jax_disable_jit"] and core.is_concrete(index):
        return branches[int(index)](*operands)
    names = [f"branch {i}" for i in range(len(branches))]
    return _bind_branches("switch branches", names, index, branches, operands)


def _operands(operands, operand):
    """The operands, given positionally or (the old form) as one `operand=` keyword."""
    if operand is _no_operand:
        return operands
    if operands:
        raise TypeError(f"if 'operand' keyword is passed then no positional operands can be "
                        f"passed, got operand={operand!r} and positional operands {operands!r}")
    return (operand,)


def _check_index_operand(fname, what, x):
    try:
        aval = core.get_aval(x)
    except TypeError:
        raise TypeError(f"{what} must be a scalar, got {x!r} of type {type(x)}") from None
    if aval.shape:
        raise TypeError(f"{what} must be a scalar, got {x} of shape {aval.shape}.")
    if kind(aval.dtype) not in "biuf":
        raise TypeError(f"{what} type must be either boolean or number, got {aval.dtype.name}.")
    return x


def _bind_branches(what, names, index, funs, operands, check_order=None):
    """Trace the branches (once per signature when eager), check their outputs agree, and bind
    `cond`. As in JAX, an output every branch passes through from the same operand is not an
    output of the `cond`: the operand itself (as an Array) is returned in its place."""
    leaves, in_tree = tree_util.tree_flatten(operands)
    in_avals = [core.get_aval(x) for x in leaves]
    tag = what.split()[0]  # as JAX: a function traced for cond is traced again for switch
    traced = [common.trace_jaxpr_cached(tag, f, in_tree, in_avals) for f in funs]
    out_trees = [t for _, _, t in traced]
    order = check_order or range(len(funs))
    common.check_outputs_agree(what, [names[i] for i in order], [out_trees[i] for i in order],
                               [traced[i][0].out_avals for i in order], [funs[i] for i in order])
    jaxprs, consts = common.join_consts([(j, c) for j, c, _ in traced])
    forwarded = _forwarded_inputs(jaxprs)
    if any(f is not None for f in forwarded):
        jaxprs = [_drop_outputs(j, forwarded) for j in jaxprs]
    outs = iter(cond_p.bind(index, *consts, *leaves, branches=tuple(jaxprs)))
    inputs = [*consts, *leaves]
    flat = [next(outs) if f is None else _unchanged(inputs[f]) for f in forwarded]
    return tree_util.tree_unflatten(out_trees[0], flat)


def _forwarded_inputs(jaxprs):
    """Per output: the input position every branch returns unchanged there, else None."""
    def positions(j):
        where = {id(v): i for i, v in enumerate(j.jaxpr.invars)}
        return [where.get(id(v)) if isinstance(v, core.Var) else None for v in j.jaxpr.outvars]
    per_branch = [positions(j) for j in jaxprs]
    return [ps[0] if len(set(ps)) == 1 else None for ps in zip(*per_branch)]


def _drop_outputs(closed, forwarded):
    j = closed.jaxpr
    outvars = [v for v, f in zip(j.outvars, forwarded, strict=True) if f is None]
    return core.ClosedJaxpr(core.Jaxpr(j.constvars, j.invars, outvars, j.eqns, j.effects), closed.consts)


@cond_p.def_abstract_eval
def _cond_abstract_eval(index, *avals, branches):
    if index.shape or index.dtype != np.int32:
        raise TypeError(f"cond: the branch index must be an int32 scalar, got {index.str_short()}")
    for b in branches:
        if [(a.shape, a.dtype) for a in b.in_avals] != [(a.shape, a.dtype) for a in avals]:
            raise TypeError(f"cond: branch inputs {[a.str_short() for a in b.in_avals]} do not "
                            f"match the operands {[a.str_short() for a in avals]}")
    return list(branches[0].out_avals)  # as JAX: the first branch's weak types


@cond_p.def_impl
def _cond_impl(index, *args, branches):
    # Eagerly only the taken branch runs, op by op (both were traced when the cond was built).
    # Its outputs take the cond's types: a Python scalar a branch returns becomes an Array.
    i = min(max(int(index), 0), len(branches) - 1)
    outs = core.eval_jaxpr(branches[i].jaxpr, [], *args)
    return [_as_output(v, a) for v, a in zip(outs, branches[0].out_avals, strict=True)]


def _as_output(v, aval):
    if type(v) is ArrayImpl:
        return v if v.aval.weak_type == aval.weak_type else rewrap(v, aval)
    return lax_elem._convert_element_type(v, aval.dtype, aval.weak_type)


@cond_p.def_jvp
def _cond_jvp(primals, tangents, *, branches):
    index, args, arg_ts = primals[0], primals[1:], tangents[1:]
    nonzero = [type(t) is not ad.Zero for t in arg_ts]
    # an output's tangent is nonzero when it is in any branch
    out_nz = [False] * len(branches[0].out_avals)
    for b in branches:
        _, _, nz = common.jvp_jaxpr(b, nonzero, False)
        out_nz = [x or y for x, y in zip(out_nz, nz, strict=True)]
    jvps = [common.jvp_jaxpr(b, nonzero, out_nz)[:2] for b in branches]
    jaxprs, consts = common.join_consts(jvps)
    outs = cond_p.bind(index, *consts, *args, *[t for t in arg_ts if type(t) is not ad.Zero],
                       branches=tuple(jaxprs))
    nout = len(out_nz)
    ts = iter(outs[nout:])
    out_ts = [next(ts) if nz else ad.Zero(ad.tangent_aval(a)) for nz, a in zip(out_nz, branches[0].out_avals)]
    return outs[:nout], out_ts


def _cond_partial_eval(eqn, in_unknown):
    """Known index: a known cond computing the known outputs and every branch's residuals (each
    branch outputs the residuals of all, zeros for the others'), and an unknown cond of the
    residuals and unknown operands."""
    if in_unknown[0]:
        return [], [eqn], [True] * len(eqn.outvars)
    branches = eqn.params["branches"]
    ops_uk = list(in_unknown[1:])
    nout = len(eqn.outvars)
    out_uk = [False] * nout
    for b in branches:
        _, _, uk, _ = ad.partial_eval_jaxpr(b.jaxpr, ops_uk, [False] * nout)
        out_uk = [x or y for x, y in zip(out_uk, uk, strict=True)]
    splits = [ad.partial_eval_jaxpr(b.jaxpr, ops_uk, out_uk) for b in branches]
    res_avals = [[v.aval for v in k.outvars[len(k.outvars) - nres:]] for k, _, _, nres in splits]
    all_res = [a for avals in res_avals for a in avals]
    n_known_out = nout - sum(out_uk)

    known_branches, unknown_branches = [], []
    before = 0
    for known, unknown, _, nres in splits:
        def known_fun(*xs, known=known, before=before, nres=nres):
            outs = core.eval_jaxpr(known, [], *xs)
            mine = iter(outs[n_known_out:])
            return outs[:n_known_out] + [next(mine) if before <= i < before + nres else common.zeros(a)
                                         for i, a in enumerate(all_res)]
        k_avals = [v.aval for v in known.invars]
        known_branches.append(common.trace_flat(known_fun, k_avals))
        # the unknown side takes all residuals and reads its own
        other = [core.Var(a) for a in all_res]
        invars = other[:before] + unknown.invars[:nres] + other[before + nres:] + unknown.invars[nres:]
        unknown_branches.append(core.ClosedJaxpr(core.Jaxpr([], invars, unknown.outvars, unknown.eqns), []))
        before += nres
    known_jaxprs, known_consts = common.join_consts(known_branches)
    known_consts = [_literal_or_const(c) for c in known_consts]
    res_vars = [core.Var(a) for a in all_res]
    index = eqn.invars[0]
    k_in = [v for v, u in zip(eqn.invars[1:], ops_uk) if not u]
    u_in = [v for v, u in zip(eqn.invars[1:], ops_uk) if u]
    known_outvars = [v for v, u in zip(eqn.outvars, out_uk) if not u]
    unknown_outvars = [v for v, u in zip(eqn.outvars, out_uk) if u]
    k_eqn = core.JaxprEqn([index, *known_consts, *k_in], known_outvars + res_vars, cond_p,
                          dict(branches=tuple(known_jaxprs)))
    u_eqn = core.JaxprEqn([index, *res_vars, *u_in], unknown_outvars, cond_p,
                          dict(branches=tuple(unknown_branches)))
    return [k_eqn], [u_eqn], out_uk


def _literal_or_const(c):
    # NB: equations hold Vars or Literals; the known branches are traced from literal zeros and
    # the given jaxprs, so any constant they captured is a host scalar we can inline.
    aval = core.get_aval(c)
    if aval.shape:
        raise NotImplementedError("cond partial eval: a non-scalar constant appeared in a branch")
    return core.Literal(np.asarray(c, aval.dtype)[()], aval)


cond_p.partial_eval = _cond_partial_eval


@cond_p.def_transpose
def _cond_transpose(cts, index, *args, branches):
    if ad.is_undefined_primal(index):
        raise ValueError("cond: cannot transpose with respect to the branch index")
    mask = [ad.is_undefined_primal(a) for a in args]
    res = [a for a in args if not ad.is_undefined_primal(a)]
    ct_nz = [type(c) is not ad.Zero for c in cts]
    res_avals = [core.get_aval(r) for r in res]
    ct_avals = [core.get_aval(c) for c, nz in zip(cts, ct_nz) if nz]

    def transposed(b):
        def bwd(*xs):
            rs, cs = xs[:len(res)], iter(xs[len(res):])
            full = [next(cs) if nz else ad.Zero(ad.tangent_aval(a)) for a, nz in zip(b.out_avals, ct_nz)]
            cts_in = ad.backward_pass(b.jaxpr, list(rs), mask, full)
            return [common.instantiate_zeros(c, ad.tangent_aval(a))
                    for c, m, a in zip(cts_in, mask, b.in_avals) if m]
        return common.trace_flat(bwd, res_avals + ct_avals)
    jaxprs, consts = common.join_consts([transposed(b) for b in branches])
    outs = cond_p.bind(index, *consts, *res, *[c for c in cts if type(c) is not ad.Zero],
                       branches=tuple(jaxprs))
    it = iter(outs)
    return [None] + [next(it) if m else None for m in mask]


def _cond_batch(axis_data, args, dims, *, branches):
    """An AxisBatchRule (branches may use the vmap's named axis). An unbatched index batches
    each branch; a batched one runs every branch on all lanes and selects per lane."""
    size = axis_data.size
    index, idim = args[0], dims[0]
    ops, op_dims = list(args[1:]), list(dims[1:])
    ops = [batching.bdim_at_front(x, d, size) if d is not batching.not_mapped else x
           for x, d in zip(ops, op_dims)]
    in_dims = [d if d is batching.not_mapped else 0 for d in op_dims]
    nout = len(branches[0].out_avals)
    if idim is batching.not_mapped:
        out_b = [False] * nout
        for b in branches:
            _, _, ob = common.batch_jaxpr(b, axis_data, in_dims, [False] * nout)
            out_b = [x or y for x, y in zip(out_b, ob, strict=True)]
        batched = [common.batch_jaxpr(b, axis_data, in_dims, out_b)[:2] for b in branches]
        jaxprs, consts = common.join_consts(batched)
        outs = cond_p.bind(index, *consts, *ops, branches=tuple(jaxprs))
        return outs, [0 if b else batching.not_mapped for b in out_b]
    # batched index: every branch on every lane, then a per-lane select (as JAX)
    index = batching.bdim_at_front(index, idim, size)
    per_branch = []
    for b in branches:
        outs, ods = batching.batch_flat(lambda *xs, b=b: core.eval_jaxpr(b.jaxpr, [], *xs), ops, in_dims, axis_data)
        per_branch.append([batching.bdim_at_front(o, d, size) for o, d in zip(outs, ods)])
    results = []
    for cases in zip(*per_branch):
        shape = core.get_aval(cases[0]).shape
        which = index if len(shape) == 1 else broadcast_in_dim(index, shape, (0,))
        results.append(lax_elem.select_n(which, *cases))
    return results, [0] * len(results)


cond_p.def_batch(batching.AxisBatchRule(_cond_batch))


@cond_p.def_lowering
def _cond_lowering(ctx, index, *args, branches):
    def region(b):
        return ctx.region([], lambda: ctx.lower_jaxpr(b.jaxpr, [], list(args)))
    return ctx.op_multi("stablehlo.case", index, regions=[region(b) for b in branches])


def _cond_dce(used_outputs, eqn):
    """Only the used outputs: every branch pruned alike (their equations' own dce rules apply,
    as JAX's cond dce: a custom_vjp's optimize_remat fwd inside a branch becomes its function)."""
    branches = tuple(core.ClosedJaxpr(pe.prune_jaxpr(b.jaxpr, used_outputs), b.consts)
                     for b in eqn.params["branches"])
    outvars = [v for v, u in zip(eqn.outvars, used_outputs, strict=True) if u]
    return None, core.JaxprEqn(eqn.invars, outvars, cond_p, dict(eqn.params, branches=branches),
                               eqn.source_info)


cond_p.def_dce(_cond_dce)
