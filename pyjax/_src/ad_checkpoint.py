"""Rematerialization: `checkpoint` / `remat` and the saveability policies.

`checkpoint(f)` binds a `checkpoint_p` primitive (`remat2` in printed jaxprs) holding f's jaxpr.
Its partial-evaluation rule is where the policy acts: of the values the linearized function
needs, those produced by saveable equations (per `policy(prim, *avals, **params)`) and the
inputs are saved; the rest are recomputed (from the saved values) on the backward side inside a
new `checkpoint_p` equation.
"""
from __future__ import annotations

import dataclasses

import functools
import inspect
import itertools

import numpy as np

from pyjax._src import core, source_info, tree_util
from pyjax._src.ad_api import linearize_flat
from pyjax._src.core import Primitive
from pyjax._src.interpreters import ad, batching
from pyjax._src.interpreters import partial_eval as pe
from pyjax._src.lax.control_flow.common import cached_trace
from pyjax._src.lax.placement import ArrayCopySemantics, device_put_p
from pyjax._src.traceback_util import api_boundary

# -- policies --------------------------------------------------------------------------------


def everything_saveable(prim, *avals, **params):
    return True


def nothing_saveable(prim, *avals, **params):
    return False


def dots_saveable(prim, *avals, **params):
    return prim.name == "dot_general"


checkpoint_dots = dots_saveable


def dots_with_no_batch_dims_saveable(prim, *avals, **params):
    if prim.name != "dot_general":
        return False
    (_, _), (lb, rb) = params["dimension_numbers"]
    return not lb and not rb


def save_anything_except_these_names(*names):
    names = set(names)

    def policy(prim, *avals, **params):
        return not (prim is name_p and params["name"] in names)
    return policy


def save_only_these_names(*names):
    names = set(names)

    def policy(prim, *avals, **params):
        return prim is name_p and params["name"] in names
    return policy


class SaveableType:
    """What a policy returns for a value to save (`True` means the same)."""

    def __repr__(self):
        return "Saveable"


class RecomputeType:
    """What a policy returns for a value to recompute on the backward pass (`False` too)."""

    def __repr__(self):
        return "Recompute"


Saveable = SaveableType()
Recompute = RecomputeType()


@dataclasses.dataclass(frozen=True)
class Offloadable:
    """A policy's answer to save a value in another memory (`src` -> `dst`, e.g. "device" ->
    "pinned_host"): the residual is moved there (typed `f32<host>[...]`) and back when the
    backward pass reads it."""
    src: str
    dst: str


def _saves(decision) -> bool:
    return decision is Saveable or decision is True or isinstance(decision, Offloadable)


def save_any_names_but_these(*names):
    """Save the values named by checkpoint_name, except those `names` (nothing unnamed)."""
    names = frozenset(names)

    def policy(prim, *avals, **params):
        return prim is name_p and params["name"] not in names
    return policy


def offload_dot_with_no_batch_dims(offload_src, offload_dst):
    """Offload the results of dots without batch dimensions (src -> dst memory), recompute the
    rest."""
    def policy(prim, *avals, **params):
        if dots_with_no_batch_dims_saveable(prim, *avals, **params):
            return Offloadable(src=offload_src, dst=offload_dst)
        return Recompute
    return policy


def save_and_offload_only_these_names(*, names_which_can_be_saved, names_which_can_be_offloaded,
                                      offload_src, offload_dst):
    """Save the values of the first names, offload those of the second, recompute the rest."""
    saved, offloaded = set(names_which_can_be_saved), set(names_which_can_be_offloaded)
    if saved & offloaded:
        raise ValueError(f"The names should be exclusive and should not intersect in "
                         f"`names_which_can_be_saved` and `names_which_can_be_offloaded`. Got "
                         f"names_which_can_be_saved={saved}, names_which_can_be_offloaded={offloaded} "
                         f"and the intersection={saved & offloaded}")

    def policy(prim, *avals, **params):
        if prim is name_p and params["name"] in saved:
            return Saveable
        if prim is name_p and params["name"] in offloaded:
            return Offloadable(src=offload_src, dst=offload_dst)
        return Recompute
    return policy


def save_from_both_policies(policy_1, policy_2):
    """Save what either policy saves (both must answer True or False)."""
    def policy(prim, *avals, **params):
        out1, out2 = policy_1(prim, *avals, **params), policy_2(prim, *avals, **params)
        if not (isinstance(out1, bool) and isinstance(out2, bool)):
            raise ValueError(f"The return value of the policies should be a boolean. Got: {out1} and "
                             f"{out2}. Write a custom policy function directly instead of combining "
                             f"these with save_from_both_policies.")
        return out1 or out2
    return policy


class checkpoint_policies:
    everything_saveable = staticmethod(everything_saveable)
    nothing_saveable = staticmethod(nothing_saveable)
    dots_saveable = staticmethod(dots_saveable)
    checkpoint_dots = staticmethod(dots_saveable)
    dots_with_no_batch_dims_saveable = staticmethod(dots_with_no_batch_dims_saveable)
    checkpoint_dots_with_no_batch_dims = staticmethod(dots_with_no_batch_dims_saveable)
    offload_dot_with_no_batch_dims = staticmethod(offload_dot_with_no_batch_dims)
    save_anything_except_these_names = staticmethod(save_anything_except_these_names)
    save_any_names_but_these = staticmethod(save_any_names_but_these)
    save_only_these_names = staticmethod(save_only_these_names)
    save_from_both_policies = staticmethod(save_from_both_policies)
    save_and_offload_only_these_names = staticmethod(save_and_offload_only_these_names)


# -- checkpoint_name -------------------------------------------------------------------------------

name_p = Primitive("name")
name_p.def_abstract_eval(lambda x, *, name: x)
name_p.def_impl(lambda x, *, name: x)
name_p.def_lowering(lambda ctx, x, *, name: x)
name_p.np_impl = lambda x, *, name: x
ad.deflinear(name_p, lambda ct, x, *, name: [ct])
batching.defvectorized(name_p)


def checkpoint_name(x, name):
    """Tag every array in `x` with `name`, for the `save_*_these_names` policies."""
    return tree_util.tree_map(lambda v: name_p.bind(v, name=name), x)


# -- the checkpoint primitive ---------------------------------------------------------------------

# NB: named `remat2` in printed jaxprs, as in JAX 0.10 (the Python name keeps `checkpoint`)
checkpoint_p = Primitive("remat2", multiple_results=True)
checkpoint_p.def_abstract_eval(lambda *avals, jaxpr, prevent_cse, differentiated, policy: jaxpr.out_avals)
checkpoint_p.def_impl(lambda *args, jaxpr, **_: core.eval_jaxpr(jaxpr.jaxpr, [], *args))


def cse_flags(prevent_cse, n) -> tuple:
    """`prevent_cse` as one flag per operand: a bool applies to all of them; a tuple (JAX's
    per-argument form, kept aligned with the operands by every rule) is one flag each."""
    if isinstance(prevent_cse, bool):
        return (prevent_cse,) * n
    return tuple(prevent_cse) if len(prevent_cse) == n else (any(prevent_cse),) * n


def with_cse(prevent_cse, before=(), kept=None, after=()):
    """The per-operand flags of a remat whose operands change: `before` and `after` flags
    around those of the operands `kept` (a mask; all when None). A bool stays as it is."""
    if isinstance(prevent_cse, bool):
        return prevent_cse
    mine = prevent_cse if kept is None else [f for f, k in zip(prevent_cse, kept, strict=True) if k]
    return (*before, *mine, *after)


@checkpoint_p.def_lowering
def _checkpoint_lowering(ctx, *args, jaxpr, prevent_cse, differentiated, policy):
    args = list(args)
    flags = cse_flags(prevent_cse, len(args))
    if differentiated and any(flags):
        # an optimization barrier keeps XLA from merging the recomputation with the forward pass
        at = [i for i, f in enumerate(flags) if f]
        outs = ctx.op_multi("stablehlo.optimization_barrier", *[args[i] for i in at],
                            outs=[ctx.avals_in[i] for i in at])
        for i, o in zip(at, outs, strict=True):
            args[i] = o
    return ctx.lower_jaxpr(jaxpr.jaxpr, [], args)


@checkpoint_p.def_jvp
def _checkpoint_jvp(primals, tangents, *, jaxpr, prevent_cse, differentiated, policy):
    nonzero = [type(t) is not ad.Zero for t in tangents]
    # outputs the nonzero inputs do not reach keep symbolic-zero tangents, as JAX's remat JVP
    # (a loop carrying a remat's output learns it is not differentiated: diffrax's times)
    closed, kept = ad.jvp_jaxpr_nonzero(jaxpr, nonzero)
    free = pe.as_const_free(closed)[0]
    cse = with_cse(prevent_cse, before=(False,) * len(closed.consts), after=(True,) * sum(nonzero))
    outs = checkpoint_p.bind(*closed.consts, *primals, *[t for t in tangents if type(t) is not ad.Zero],
                             jaxpr=free, prevent_cse=cse, differentiated=True, policy=policy)
    nout = len(jaxpr.out_avals)
    return outs[:nout], ad.merge_tangents(jaxpr.out_avals, kept, outs[nout:])


# Primitives of debugging callbacks (debug.print/callback register theirs): a remat stages them
# into the recomputation as JAX does, so a print shows the recomputed values too.
remat_debug_primitives: set = set()

# Effects a remat cannot recompute (io_callback's: running the callback again would repeat its
# side effect), registered by their owners. NB: JAX keeps the other list, of the effects remat
# allows; pyjax's other effects (debug, state, checkify's) are all allowed there.
remat_disallowed_effects: set = set()


def _checkpoint_partial_eval(eqn, in_unknown):
    """Known side: compute the outputs and the saveable values the unknown side needs. Unknown
    side: recompute the other needed values (from the saved ones and the known inputs), then run
    the unknown (tangent) equations.

    As in JAX the policy is asked about each equation: a needed value whose equation it marks
    saveable is saved; any other is recomputed, and its own inputs are needed in turn (so under
    `dots_saveable`, `cos(x @ w)` is recomputed from the saved `x @ w`)."""
    params = eqn.params
    inner = params["jaxpr"].jaxpr
    disallowed = [e for e in inner.effects if e in remat_disallowed_effects]
    if disallowed:
        raise NotImplementedError("Effects not supported in partial-eval of `checkpoint`/`remat`: "
                                  f"{', '.join(map(str, disallowed))}")
    policy = params["policy"] or nothing_saveable
    nout = len(inner.outvars)
    known, unknown, out_unknown, nres = ad.partial_eval_jaxpr(inner, in_unknown, [False] * nout)
    residuals = known.outvars[len(known.outvars) - nres:]
    producer = {v: e for e in known.eqns for v in e.outvars}
    known_inputs = set(known.invars)
    saved, recompute = {}, set()  # dicts and sets of ids keep the jaxpr order deterministic

    def need(values):
        """Save or recompute each of `values` (and what recomputing them needs in turn)."""
        stack = list(reversed(values))
        while stack:  # (a loop, not recursion: chains of thousands of equations are common)
            v = stack.pop()
            if type(v) is not core.Var or v in known_inputs or v not in producer or v in saved:
                continue
            e = producer[v]
            if id(e) in recompute:
                continue
            if _saves(policy(e.primitive, *[x.aval for x in e.invars], **e.params)):
                saved[v] = None
                continue
            recompute.add(id(e))
            stack.extend(reversed(e.invars))

    def recomputed_anyway(v):  # (JAX: the equation that makes it is not saveable)
        e = producer.get(v)
        return e is not None and (id(e) in recompute or not _saves(
            policy(e.primitive, *[x.aval for x in e.invars], **e.params)))

    # Debug callbacks (JAX's rule for them): one the policy does not save is staged into the
    # recomputation too (it runs again, with its inputs recomputed or saved); one it saves is
    # staged too only when each of its inputs is recomputed anyway.
    debug = [e for e in known.eqns if e.primitive in remat_debug_primitives]
    staged = [e for e in debug
              if not _saves(policy(e.primitive, *[x.aval for x in e.invars], **e.params))]
    recompute.update(id(e) for e in staged)
    need(list(residuals) + [v for e in staged for v in e.invars])
    for e in debug:
        if id(e) not in recompute and all(type(v) is not core.Var or v in known_inputs
                                          or recomputed_anyway(v) for v in e.invars):
            recompute.add(id(e))
            need(e.invars)
    saved = list(saved)
    # offloaded values (an Offloadable decision) are saved in the policy's dst memory: moved
    # there on the known side, back to src on the unknown side before anything reads them
    offload = {}
    for v in saved:
        d = policy(producer[v].primitive, *[x.aval for x in producer[v].invars],
                   **producer[v].params) if v in producer else None
        if isinstance(d, Offloadable):
            offload[v] = d
    to_dst = [_move_eqn(v, offload[v].dst) for v in saved if v in offload]
    stored = {e.invars[0]: e.outvars[0] for e in to_dst}
    # a saved value that is also a known output is forwarded as that output (as JAX), not
    # returned twice
    prim_outs = known.outvars[:len(known.outvars) - nres]
    fwd = {v: prim_outs.index(v) for v in saved if v not in stored and v in prim_outs}
    # known side: only the known outputs and the saved values
    k_jaxpr = pe.prune_jaxpr(core.Jaxpr([], known.invars, prim_outs + [
        stored.get(v, v) for v in saved if v not in fwd], known.eqns + to_dst))
    # unknown side: the recomputation, then the unknown equations. They read the values through
    # the very Vars the known side defines, so the saved values bind them as inputs directly
    # (offloaded ones as the result of moving them back).
    recompute_eqns = [e for e in known.eqns if id(e) in recompute]
    u_saved = [core.Var(stored[v].aval) if v in stored else v for v in saved]
    to_src = [_move_eqn(h, offload[v].src, out=v) for v, h in zip(saved, u_saved, strict=True)
              if v in stored]
    u_eqns = to_src + recompute_eqns + unknown.eqns
    # the known operands the unknown side reads (the others are no residuals: JAX's remat
    # does not keep an input alive for the backward pass that does not need it)
    read = {v for e in u_eqns for v in e.invars if type(v) is core.Var} | {
        v for v in unknown.outvars if type(v) is core.Var}
    k_read = [v in read for v in known.invars]
    u_jaxpr = core.Jaxpr([], u_saved + [v for v, r in zip(known.invars, k_read) if r]
                         + unknown.invars[nres:], unknown.outvars, u_eqns)
    k_in = [v for v, u in zip(eqn.invars, in_unknown) if not u]
    u_in = [v for v, u in zip(eqn.invars, in_unknown) if u]
    known_outvars = [v for v, u in zip(eqn.outvars, out_unknown) if not u]
    saved_vars = [known_outvars[fwd[v]] if v in fwd else core.Var(h.aval)
                  for v, h in zip(saved, u_saved, strict=True)]
    unknown_outvars = [v for v, u in zip(eqn.outvars, out_unknown) if u]
    cse = params["prevent_cse"]
    known_in = [not u for u in in_unknown]
    k_cse = with_cse(cse, kept=known_in)
    u_cse = cse if isinstance(cse, bool) else (
        (True,) * len(saved_vars)
        + tuple(f for f, r in zip(with_cse(cse, kept=known_in), k_read, strict=True) if r)
        + with_cse(cse, kept=in_unknown))
    k_eqn = core.JaxprEqn(k_in, known_outvars + [sv for v, sv in zip(saved, saved_vars)
                                                 if v not in fwd], checkpoint_p,
                          dict(jaxpr=core.ClosedJaxpr(k_jaxpr, []), differentiated=False,
                               prevent_cse=k_cse, policy=params["policy"]))
    u_eqn = core.JaxprEqn(saved_vars + [v for v, r in zip(k_in, k_read, strict=True) if r] + u_in,
                          unknown_outvars, checkpoint_p,
                          dict(jaxpr=core.ClosedJaxpr(u_jaxpr, []), differentiated=True,
                               prevent_cse=u_cse, policy=params["policy"]))
    return [k_eqn], [u_eqn], out_unknown


checkpoint_p.partial_eval = _checkpoint_partial_eval


def _checkpoint_dce(used_outputs, eqn):
    """Keep only the outputs that are used (and what computes them), as JAX's rule: under grad
    a rematerialized function's primal outputs often are not."""
    closed = eqn.params["jaxpr"]
    pruned = core.ClosedJaxpr(pe.prune_jaxpr(closed.jaxpr, used_outputs), closed.consts)
    return None, core.JaxprEqn(eqn.invars, [v for v, u in zip(eqn.outvars, used_outputs,
                                                                strict=True) if u],
                               checkpoint_p, dict(eqn.params, jaxpr=pruned))


checkpoint_p.dce = _checkpoint_dce


def _move_eqn(v, memory_kind, out=None):
    """The equation moving `v` to the memory `memory_kind` names (into `out`, else a new
    variable typed in that memory), as JAX's offloading does."""
    space = core.mem_kind_to_space(memory_kind)
    if out is None:
        out = core.Var(v.aval.update(memory_space=space))
    return core.JaxprEqn([v], [out], device_put_p, dict(
        devices=(space,), srcs=(None,), copy_semantics=(ArrayCopySemantics.ALWAYS_COPY,)))


@checkpoint_p.def_transpose
def _checkpoint_transpose(cts, *args, jaxpr, prevent_cse, differentiated, policy):
    """The transposed body (its recomputation and the cotangent equations) traced into a new
    remat, as JAX's: lowered with an optimization barrier over its operands (`prevent_cse`),
    so XLA cannot merge the recomputation with the forward pass and keep the values alive
    that remat was asked not to save."""
    mask = [ad.is_undefined_primal(a) for a in args]
    residuals = [a for a in args if not ad.is_undefined_primal(a)]
    ct_nonzero = [type(c) is not ad.Zero for c in cts]
    zero_in = []  # which input cotangents came out symbolic zeros (known once traced)

    def bwd(*xs):
        res, cs = xs[:len(residuals)], iter(xs[len(residuals):])
        full = [next(cs) if nz else ad.Zero(ad.tangent_aval(a))
                for a, nz in zip(jaxpr.out_avals, ct_nonzero, strict=True)]
        cts_in = [c for c, m in zip(ad.backward_pass(jaxpr.jaxpr, list(res), mask, full), mask) if m]
        zero_in[:] = [type(c) is ad.Zero for c in cts_in]
        return [c for c in cts_in if type(c) is not ad.Zero]

    closed, _ = pe.trace_to_jaxpr(bwd, [core.get_aval(r) for r in residuals]
                                  + [core.get_aval(c) for c in cts if type(c) is not ad.Zero])
    free, consts = pe.as_const_free(closed)
    cse = with_cse(prevent_cse, before=(False,) * len(consts), kept=[not m for m in mask],
                    after=(True,) * sum(ct_nonzero))
    outs = iter(checkpoint_p.bind(*consts, *residuals, *[c for c in cts if type(c) is not ad.Zero],
                                  jaxpr=free, prevent_cse=cse, differentiated=True,
                                  policy=policy))
    zeros = iter(zero_in)
    return [(ad.Zero(ad.tangent_aval(a.aval)) if next(zeros) else next(outs)) if m else None
            for a, m in zip(args, mask, strict=True)]


def _checkpoint_batch(axis_data, args, dims, *, jaxpr, **params):
    """The body batched where its inputs are (an output that does not depend on a batched
    input stays unbatched, as in JAX: vmap of a remat's JVP keeps the primal out unbatched); an
    AxisBatchRule, so the body may use the vmap's named axis."""
    batched, out_dims, consts = batching.batch_jaxpr(jaxpr, axis_data, dims)
    params = dict(params, prevent_cse=with_cse(params["prevent_cse"], before=(False,) * len(consts)))
    outs = checkpoint_p.bind(*consts, *args, jaxpr=batched, **params)
    return outs, list(out_dims)


checkpoint_p.def_batch(batching.AxisBatchRule(_checkpoint_batch))


def checkpoint(fun=None, *, prevent_cse=True, policy=None, static_argnums=()):
    """Save memory under differentiation by recomputing `fun`'s intermediates on the backward
    pass, except those `policy` marks saveable.

    Example:
        >>> f = checkpoint(block, policy=checkpoint_policies.dots_saveable)
    """
    if fun is None:
        return functools.partial(checkpoint, prevent_cse=prevent_cse, policy=policy,
                                 static_argnums=static_argnums)
    static_argnums = (static_argnums,) if isinstance(static_argnums, int) else tuple(static_argnums)
    if isinstance(prevent_cse, (list, tuple)):
        prevent_cse = tuple(prevent_cse)  # (a pytree prefix of the positional arguments)
    elif isinstance(prevent_cse, (bool, np.bool_)):
        prevent_cse = bool(prevent_cse)
    else:
        raise TypeError(f"prevent_cse must be a bool or tuple of bools, got "
                        f"type(prevent_cse)={type(prevent_cse)}")

    @functools.wraps(fun)
    @api_boundary
    def remat_f(*args, **kwargs):
        static = {i: args[i] for i in static_argnums}
        dyn = [a for i, a in enumerate(args) if i not in static]
        leaves, in_tree = tree_util.tree_flatten((dyn, kwargs))

        def call(d, kw):
            it = iter(d)
            return fun(*[static[i] if i in static else next(it) for i in range(len(args))], **kw)
        avals = [core.get_aval(x) for x in leaves]
        # (traced once per signature when called eagerly, as JAX's remat: no retrace per call)
        key = ("checkpoint", in_tree, tuple(avals), len(args), tuple(static.items()))
        free, consts, out_tree = cached_trace(
            fun, key, lambda: pe.trace_tree_to_jaxpr(call, in_tree, avals))
        cse = prevent_cse
        if isinstance(cse, tuple):  # one flag per argument leaf, none for the constants
            cse_args = (tuple(dyn), kwargs) if kwargs else tuple(dyn)
            cse = (False,) * len(consts) + tuple(
                bool(f) for f in tree_util.flatten_prefix(cse, cse_args, "checkpoint prevent_cse"))
        outs = checkpoint_p.bind(*consts, *leaves, jaxpr=free, prevent_cse=cse,
                                 differentiated=False, policy=policy)
        return tree_util.tree_unflatten(out_tree, outs)
    return remat_f


remat = checkpoint


# -- print_saved_residuals ------------------------------------------------------------------------


def print_saved_residuals(f, *args, **kwargs):
    """Print, one line each, the values reverse-mode differentiation of `f` at `args` keeps for
    the backward pass, and where each comes from.

    Example:
        >>> print_saved_residuals(lambda x, y: jnp.sin(x) * y, x, y)
        f32[3] from the argument y
        f32[3] output of sin from /work/model.py:7:26 (<lambda>)
        f32[3] output of cos from /work/model.py:7:26 (<lambda>)
    """
    for aval, src in saved_residuals(f, *args, **kwargs):
        print(f"{aval.str_short()} {src}")


def saved_residuals(f, *args, **kwargs) -> list[tuple[core.ShapedArray, str]]:
    """`(aval, description)` of each residual, in JAX's order: literals, constants, arguments,
    then the outputs of equations in program order.

    f is linearized exactly as `vjp` does it, under a jaxpr trace that notes where each value
    was made: the residuals are the linear jaxpr's inputs that this trace owns."""
    leaves, in_tree = tree_util.tree_flatten((args, kwargs))

    def flat_f(*xs):
        a, kw = tree_util.tree_unflatten(in_tree, xs)
        return tree_util.tree_leaves(f(*a, **kw)), []

    with core.new_trace(_SourceTrace) as trace:
        primals = [trace.new_arg(core.get_aval(x)) for x in leaves]
        residuals = [trace.to_var(r) for r in linearize_flat(flat_f, primals).residuals]
        jaxpr = trace.to_jaxpr([]).jaxpr
    return _describe_residuals(jaxpr, residuals, _arg_names(f, args, kwargs), trace.sources)


class _SourceTrace(pe.DynamicJaxprTrace):
    """The jaxpr trace, noting for each variable it defines the user's source line."""

    __slots__ = ("sources",)

    def __init__(self, parent):
        super().__init__(parent)
        self.sources = {}

    def process_primitive(self, prim, args, params):
        n = len(self.eqns)
        out = super().process_primitive(prim, args, params)
        where = _user_location()
        for eqn in self.eqns[n:]:
            self.sources.update((v, where) for v in eqn.outvars)
        return out


def _user_location():
    """`file:line:column (function)` of the user's code running now, as JAX summarizes a
    source location (the column is left out when it is 0)."""
    frame = source_info.user_frame()
    if frame is None:
        return "unknown"
    code = frame.f_code
    line, _, col, _ = next(itertools.islice(code.co_positions(), frame.f_lasti // 2, None),
                           (frame.f_lineno, None, 0, None))
    where = f"{code.co_filename}:{line}" + (f":{col}" if col else "")
    return f"{where} ({code.co_qualname})"


def _arg_names(f, args, kwargs):
    """The name of each flattened argument (`x`, `params['w']`), as JAX's debug info names
    them: positional arguments first, then keyword arguments sorted by keyword."""
    try:
        sig = inspect.signature(f)
        bound = sig.bind(*args, **kwargs)
    except (TypeError, ValueError):  # no signature, or args that do not fit it
        named = [("args", args)] + sorted((f"kwargs['{k}']", v) for k, v in kwargs.items())
    else:
        var_kw = next((n for n, p in sig.parameters.items() if p.kind is p.VAR_KEYWORD), None)
        named = [(n, v) for n, v in bound.arguments.items() if n not in kwargs and n != var_kw]
        named += sorted((k if k in bound.arguments else f"{var_kw}['{k}']", v) for k, v in kwargs.items())
    return [name + tree_util.keystr(path)
            for name, value in named for path, _ in tree_util.tree_flatten_with_path(value)[0]]


def _describe_residuals(jaxpr, residuals, arg_names, sources):
    saved = {v for v in residuals if type(v) is core.Var}
    out = [(v.aval, "from a literal") for v in residuals if type(v) is core.Literal]
    out += [(v.aval, "from a constant") for v in jaxpr.constvars if v in saved]
    out += [(v.aval, f"from the argument {name}")
            for v, name in zip(jaxpr.invars, arg_names) if v in saved]
    for eqn in jaxpr.eqns:
        # an equation a partial-evaluation rule made defines new variables: use the location
        # of the equation it was split from, which shares its other results
        where = next((sources[v] for v in eqn.outvars if v in sources), "unknown")
        for v in eqn.outvars:
            if v not in saved:
                continue
            if eqn.primitive is name_p:
                out.append((v.aval, f"named '{eqn.params['name']}' from {where}"))
            elif eqn.primitive.name == "jit":
                out.append((v.aval, f"output of jitted function '{eqn.params['name']}' from {where}"))
            else:
                out.append((v.aval, f"output of {eqn.primitive.name} from {where}"))
    return out


def custom_remat(*args, **kwargs):
    """JAX's experimental `custom_remat` (a rematerialization rule per function); pyjax has
    none."""
    raise NotImplementedError("jax._src.ad_checkpoint.custom_remat is not implemented by pyjax")
