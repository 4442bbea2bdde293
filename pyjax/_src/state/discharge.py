"""State discharge: turning a jaxpr over refs into a functional jaxpr, and `run_state`.

`discharge_state(closed_jaxpr)` gives a jaxpr taking the same inputs, with each ref input now
an array input, and returning the original outputs followed by the final value of each ref
input. It is built by tracing `eval_discharged`, an interpreter that keeps the current value of
every ref in its environment: `get`/`swap`/`addupdate` become slices and updates of that value,
and an equation of a higher-order primitive that takes refs (a loop or cond closing over them)
uses the primitive's *discharge rule*, which threads the refs' values through it (refs closed
over by a `scan`/`fori_loop`/`while_loop` body become extra carries; a `cond`'s branches return
the refs' new values). Calls (`jit`, `checkpoint`, ...) holding refs are inlined.

    discharge_rules[prim] = rule(invars, is_ref, args, **params) -> (new_ref_values, outs)

`new_ref_values` has one entry per operand: the operand's new value if it is a ref, else None.

Refs cross `jit` boundaries as in JAX: a jitted function given (or closing over) Refs is traced
with `Ref{...}` inputs; the call runs its discharged jaxpr (`discharged_call_jaxpr`, compiled
once per signature) on the Refs' values and writes back those it writes (`_pjit_discharge`,
`AotCall` for `jit(f).lower`). Outside a jaxpr being traced, a loop, cond or jit call given Refs
is discharged at bind (`_bind_with_refs`), so grad and vmap see functional code.

NB: the discharge rules of scan/while/cond live here rather than beside those primitives (the
control-flow modules sit below state in the import order), as JAX keeps its in state/discharge.
"""
from __future__ import annotations

import weakref

import numpy as np

from pyjax._src import core, pjit, stages, tree_util
from pyjax._src.interpreters import ad
from pyjax._src.interpreters import partial_eval as pe
from pyjax._src.lax.control_flow import conditionals, scan as scan_mod, while_loop
from pyjax._src.numpy import creation
from pyjax._src.state.primitives import (addupdate_p, addupdate_value, get_p, get_value,
                                         new_ref_p, swap_p, swap_value)
from pyjax._src.state.types import AbstractRef, Ref, get_ref_aval_from_value, uninitialized

discharge_rules: dict = {}


def _is_ref(v) -> bool:
    return type(v) is not core.Literal and isinstance(v.aval, AbstractRef)


def has_refs(jaxpr: core.Jaxpr) -> bool:
    return any(_is_ref(v) for v in jaxpr.constvars + jaxpr.invars) or \
        any(_is_ref(v) for e in jaxpr.eqns for v in e.invars)


def eval_discharged(jaxpr: core.Jaxpr, consts, args, slots=None, kept=()):
    """Evaluate `jaxpr` under the current trace with its refs as values: returns `(outs,
    final_ref_values)`, the latter one per discharged ref invar, in order. `slots` (one per
    invar, None for a non-ref) marks ref invars that are the same ref outside (equal slots):
    they share a value. The ref invars in `kept` are not discharged: their args are refs (ref
    tracers) and their reads and writes are bound as such, as are those of ref constvars."""
    env = {}
    alias = {}
    # a ref the jaxpr closes over (a constvar: a ref of an enclosing trace, as a run_state body
    # nested in another sees its refs) is not the jaxpr's to discharge: it stays a ref
    kept = set(kept) | {v for v in jaxpr.constvars if _is_ref(v)}

    def discharged(v):
        return _is_ref(v) and key(v) not in kept
    if slots is not None:
        first = {}
        for v, s in zip(jaxpr.invars, slots, strict=True):
            if s is not None:
                alias[v] = first.setdefault(s, v)

    def key(v):
        return alias.get(v, v)

    def read(v):
        return v.val if type(v) is core.Literal else env[key(v)]

    for v, x in zip(jaxpr.constvars, consts, strict=True):
        env[v] = x
    for v, x in zip(jaxpr.invars, args, strict=True):
        env[v] = x
    for eqn in jaxpr.eqns:
        prim, ins = eqn.primitive, eqn.invars
        if prim in (get_p, swap_p, addupdate_p) and not discharged(ins[0]):
            out = prim.bind(*[read(v) for v in ins], **eqn.params)
            env.update(zip(eqn.outvars, out if prim.multiple_results else [out], strict=True))
        elif prim is get_p:
            env[eqn.outvars[0]] = get_value(read(ins[0]), eqn.params["spec"],
                                            [read(v) for v in ins[1:]])
        elif prim is swap_p:
            old, env[key(ins[0])] = swap_value(read(ins[0]), read(ins[1]), eqn.params["spec"],
                                               [read(v) for v in ins[2:]])
            env[eqn.outvars[0]] = old
        elif prim is addupdate_p:
            env[key(ins[0])] = addupdate_value(read(ins[0]), read(ins[1]), eqn.params["spec"],
                                               [read(v) for v in ins[2:]])
        elif prim is new_ref_p:
            env[eqn.outvars[0]] = read(ins[0])
        elif any(discharged(v) for v in ins):
            is_ref = [discharged(v) for v in ins]
            rule = _rule(prim, eqn.params)
            new_refs, outs = rule(ins, is_ref, [read(v) for v in ins], **eqn.params)
            for v, new in zip(ins, new_refs, strict=True):
                if new is not None:
                    env[key(v)] = new
            env.update(zip(eqn.outvars, outs, strict=True))
        else:
            out = prim.bind(*[read(v) for v in ins], **eqn.params)
            env.update(zip(eqn.outvars, out if prim.multiple_results else [out], strict=True))
    for v in eqn_outvars_refs(jaxpr):
        if discharged(v):
            raise NotImplementedError(
                f"discharge_state: a ref output ({v.aval.str_short()}) cannot be discharged "
                "(return jax.freeze(ref) or ref[...] instead)")
    return [read(v) for v in jaxpr.outvars], [read(v) for v in jaxpr.invars if discharged(v)]


def eqn_outvars_refs(jaxpr):
    return [v for v in jaxpr.outvars if _is_ref(v)]


def _rule(prim, params):
    rule = discharge_rules.get(prim)
    if rule is not None:
        return rule
    if isinstance(params.get("jaxpr"), core.ClosedJaxpr):
        return _inline_call_discharge
    raise NotImplementedError(f"discharge_state: no discharge rule for '{prim}', which takes refs")


def discharge_state(closed_jaxpr: core.ClosedJaxpr, *, should_discharge=True,
                    lower=True) -> core.ClosedJaxpr:
    """The functional form of `closed_jaxpr` (JAX 0.10.2's signature): each ref input to
    discharge (`should_discharge`, a bool or one per input) becomes an array input, and its
    final value is appended to the outputs; the other ref inputs stay refs.

    Example:
        >>> closed = make_jaxpr(lambda r: r.__setitem__(..., r[...] + 1))(ref_aval)   # refs in
        >>> discharge_state(closed)                                               # values out
    """
    del lower  # NB: pyjax has no hijax types to lower
    jaxpr = closed_jaxpr.jaxpr
    if isinstance(should_discharge, bool):
        should_discharge = [should_discharge] * len(jaxpr.invars)
    kept = [v for v, d in zip(jaxpr.invars, should_discharge, strict=True)
            if _is_ref(v) and not d]
    in_avals = [v.aval.inner_aval if _is_ref(v) and d else v.aval
                for v, d in zip(jaxpr.invars, should_discharge, strict=True)]

    def fun(*args):
        outs, finals = eval_discharged(jaxpr, closed_jaxpr.consts, args, kept=kept)
        return list(outs) + list(finals)
    closed, _ = pe.trace_to_jaxpr(fun, in_avals)
    return closed


def run_state(f):
    """`run_state(f)(init)`: run the stateful `f(refs)` on refs holding `init` (any pytree) and
    return their final values.

    Example:
        >>> def f(refs):
        ...     x_ref, y_ref = refs
        ...     y_ref[...] = x_ref[...] * 2
        >>> run_state(f)((jnp.ones(3), jnp.zeros(3)))   # (ones, twos)

    NB: JAX stages a `run_state` primitive; pyjax discharges `f` where it is called, so what runs
    (and what jit, grad and vmap see) is the functional program.
    """
    def wrapped(init):
        leaves, tree = tree_util.tree_flatten(init)
        avals, leaves = zip(*map(get_ref_aval_from_value, leaves)) if leaves else ((), ())
        leaves = [_filler(a.inner_aval) if x is uninitialized else x
                  for a, x in zip(avals, leaves)]

        def flat(*refs):
            out = f(tree_util.tree_unflatten(tree, refs))
            if tree_util.tree_leaves(out):
                raise ValueError("run_state: the function must return None (it writes its refs)")
            return []
        closed, _ = pe.trace_to_jaxpr(flat, avals)
        _, finals = eval_discharged(closed.jaxpr, closed.consts, leaves)
        return tree_util.tree_unflatten(tree, finals)
    return wrapped


def _filler(aval):
    """The value an uninitialized ref starts with (JAX's: its dtype's minimum integer, or NaN)."""
    fill = np.iinfo(aval.dtype).min if np.issubdtype(aval.dtype, np.integer) else np.nan
    return creation.full(aval.shape, fill, aval.dtype)


# -- discharge rules -------------------------------------------------------------------------------


def _inline_call_discharge(invars, is_ref, args, *, jaxpr, **_):
    """A call (jit, checkpoint, ...) whose body uses refs: inlined, discharged."""
    outs, finals = eval_discharged(jaxpr.jaxpr, jaxpr.consts, args)
    it = iter(finals)
    return [next(it) if r else None for r in is_ref], outs


def _slots(invars, is_ref, uniq):
    """For each operand, the index of its ref in `uniq` (the distinct ref variables) or None."""
    out = []
    for v, r in zip(invars, is_ref, strict=True):
        if not r:
            out.append(None)
            continue
        k = _index_of(uniq, v)
        if k is None:
            k = len(uniq)
            uniq.append(v)
        out.append(k)
    return out


def _index_of(items, v):
    """The position of `v` in `items` by identity (operands may be tracers, whose == is not)."""
    return next((k for k, u in enumerate(items) if u is v), None)


def _fill(args, slots, refvals):
    return [refvals[s] if s is not None else a for a, s in zip(args, slots, strict=True)]


def _kept(jaxpr, slots):
    """The ref invars of a body that stay refs (no slot: a ref not being discharged)."""
    return [v for v, s in zip(jaxpr.invars, slots, strict=True) if s is None and _is_ref(v)]


def _scatter_finals(refvals, slots, finals):
    new = list(refvals)
    for s, f in zip([s for s in slots if s is not None], finals, strict=True):
        new[s] = f
    return new


def _scan_discharge(invars, is_ref, args, *, jaxpr, num_consts, num_carry, length, reverse,
                    unroll, **_):
    if any(is_ref[num_consts:]):
        raise NotImplementedError("discharge_state: refs as scan carries or xs are not supported")
    uniq = []
    slots = _slots(invars[:num_consts], is_ref[:num_consts], uniq)
    nc = num_consts
    consts, init, xs = args[:nc], args[nc:nc + num_carry], args[nc + num_carry:]
    ref0 = [args[_index_of(invars, v)] for v in uniq]

    def body(carry, x):
        refvals, c = carry
        ins = _fill(consts, slots, refvals) + list(c) + (list(x) if x is not None else [])
        sl = slots + [None] * (len(args) - num_consts)
        outs, finals = eval_discharged(jaxpr.jaxpr, jaxpr.consts, ins, sl, _kept(jaxpr.jaxpr, sl))
        return (_scatter_finals(refvals, slots, finals), outs[:num_carry]), outs[num_carry:]
    (refvals, carry), ys = scan_mod.scan(body, (ref0, list(init)), list(xs) if xs else None,
                                         length=length, reverse=reverse, unroll=unroll)
    new_refs = [refvals[s] if s is not None else None for s in slots]
    return new_refs + [None] * (len(args) - num_consts), list(carry) + list(ys)


def _while_discharge(invars, is_ref, args, *, cond_jaxpr, body_jaxpr, cond_nconsts, body_nconsts):
    nc, nb = cond_nconsts, body_nconsts
    if any(is_ref[nc + nb:]):
        raise NotImplementedError("discharge_state: refs as while_loop carries are not supported")
    uniq = []
    cslots = _slots(invars[:nc], is_ref[:nc], uniq)
    bslots = _slots(invars[nc:nc + nb], is_ref[nc:nc + nb], uniq)
    cconsts, bconsts, init = args[:nc], args[nc:nc + nb], args[nc + nb:]
    ref0 = [args[_index_of(invars, v)] for v in uniq]

    def cond_f(carry):
        refvals, c = carry
        ins = _fill(cconsts, cslots, refvals) + list(c)
        sl = cslots + [None] * len(c)
        outs, _ = eval_discharged(cond_jaxpr.jaxpr, cond_jaxpr.consts, ins, sl,
                                  _kept(cond_jaxpr.jaxpr, sl))
        return outs[0]

    def body_f(carry):
        refvals, c = carry
        ins = _fill(bconsts, bslots, refvals) + list(c)
        sl = bslots + [None] * len(c)
        outs, finals = eval_discharged(body_jaxpr.jaxpr, body_jaxpr.consts, ins, sl,
                                       _kept(body_jaxpr.jaxpr, sl))
        return _scatter_finals(refvals, bslots, finals), list(outs)
    refvals, outs = while_loop.while_loop(cond_f, body_f, (ref0, list(init)))
    new_refs = [refvals[s] if s is not None else None for s in cslots + bslots]
    return new_refs + [None] * len(init), list(outs)


def _cond_discharge(invars, is_ref, args, *, branches, **_):
    index, ops = args[0], list(args[1:])
    uniq = []
    slots = _slots(invars[1:], is_ref[1:], uniq)
    first = [slots.index(k) for k in range(len(uniq))]   # the operand standing for each ref

    def branch(closed):
        def f(*ops):
            outs, finals = eval_discharged(closed.jaxpr, closed.consts, ops, slots,
                                           _kept(closed.jaxpr, slots))
            by_slot = dict(zip([s for s in slots if s is not None], finals))
            return list(outs) + [by_slot[k] for k in range(len(uniq))]
        return f
    outs = conditionals.switch(index, [branch(b) for b in branches], *ops)
    nout = len(outs) - len(uniq)
    del first
    return [None] + [outs[nout + s] if s is not None else None for s in slots], list(outs[:nout])


discharge_rules[scan_mod.scan_p] = _scan_discharge
discharge_rules[while_loop.while_p] = _while_discharge
discharge_rules[conditionals.cond_p] = _cond_discharge


# -- refs created while tracing (jax.new_ref under jit, in loop bodies) ---------------------------


def _discharge_local_refs(closed: core.ClosedJaxpr) -> core.ClosedJaxpr:
    """A traced jaxpr that creates refs (`new_ref`) and takes none: its refs are local, so it
    is discharged at once into a functional jaxpr with the same inputs and outputs. (One taking
    refs, a kernel or a run_state body, is discharged by whoever owns those refs.)"""
    jaxpr = closed.jaxpr
    if not any(e.primitive is new_ref_p for e in jaxpr.eqns):
        return closed
    if any(_is_ref(v) for v in jaxpr.constvars + jaxpr.invars):
        return closed
    return discharge_state(closed)


pe.traced_jaxpr_rewrites.append(_discharge_local_refs)


# -- eager Refs in loops: a loop whose body closed over an eager Ref runs discharged ---------------


def _ref_operand(a) -> bool:
    return type(a) is Ref or (isinstance(a, core.Tracer) and type(a.aval) is AbstractRef)


def _bind_with_refs(prim):
    """`prim.bind`, discharging Ref operands first when the current trace is not building a
    jaxpr: a loop, cond or jit call whose body closed over (or was given) a Ref runs on the
    Refs' values under whatever trace is current (eager, grad, vmap), and their final values
    are written back. An eager Ref (a box) is read and written directly; a Ref of an enclosing
    jit seen by vmap or jvp is read whole with `get` and written back with `swap`, so those
    primitives' rules apply (a batched ref's batch axis stays where it is). While a jaxpr is
    traced the Ref stays a `Ref{...}` operand, discharged when the jaxpr runs."""
    bind = prim.bind

    def wrapped(*args, **params):
        if type(core.current_trace()) is pe.DynamicJaxprTrace:
            return bind(*args, **params)
        is_ref = [_ref_operand(a) for a in args]
        if not any(is_ref):
            return bind(*args, **params)
        vals = [(a._value if type(a) is Ref else get_p.bind(a, spec=_whole(a))) if r else a
                for a, r in zip(args, is_ref)]
        new_refs, outs = _rule(prim, params)(list(args), is_ref, vals, **params)
        for a, old, new in zip(args, vals, new_refs, strict=True):
            if new is None or new is old:
                continue
            if type(a) is Ref:
                a._write(new)
            else:
                swap_p.bind(a, new, spec=_whole(a))
        return outs
    return wrapped


def _whole(ref):
    return tuple(("slice", 0, d, 1) for d in ref.aval.shape)


# -- refs crossing a jit boundary -------------------------------------------------------------------
#
# A jitted function given Refs (or closing over them) is traced with `Ref{...}` inputs, so its
# jaxpr reads and writes them as JAX's does (`make_jaxpr` prints `get`/`swap`). Running the call
# discharges that jaxpr (cached per jaxpr, so it is compiled once per signature): the executable
# takes the Refs' values and also returns their final values, which are written into the boxes.


_discharged_calls: "weakref.WeakKeyDictionary" = weakref.WeakKeyDictionary()


def discharged_call_jaxpr(closed: core.ClosedJaxpr):
    """`(jaxpr, written)`: `closed` (over refs) as a functional jaxpr returning its outputs and
    the final values of the refs it writes (`written`, one flag per ref input, in order). A ref
    that is only read is not returned: the call leaves its box alone (so reading an outer Ref
    under grad or vmap is no write of a differentiated or batched value)."""
    hit = _discharged_calls.get(closed)
    if hit is None:
        discharged_closed = discharge_state(closed)
        jaxpr, consts = discharged_closed.jaxpr, discharged_closed.consts
        ref_ins = [v for v, o in zip(jaxpr.invars, closed.jaxpr.invars, strict=True)
                   if _is_ref(o)]
        nout = len(closed.jaxpr.outvars)
        finals = jaxpr.outvars[nout:]
        written = tuple(f is not v for f, v in zip(finals, ref_ins, strict=True))
        jaxpr = core.Jaxpr(jaxpr.constvars, jaxpr.invars,
                           jaxpr.outvars[:nout] + [f for f, w in zip(finals, written) if w],
                           jaxpr.eqns)
        hit = _discharged_calls[closed] = (core.ClosedJaxpr(jaxpr, consts), written)
    return hit


def _pjit_discharge(invars, is_ref, args, *, jaxpr, name, donated_invars=None, **_):
    """A jit call taking refs stays one call: the discharged jaxpr, returning the refs' values."""
    refs = [v for v, r in zip(invars, is_ref) if r]
    if len({id(v) for v in refs}) < len(refs):
        raise ValueError(f"only one reference to a mutable array may be passed as an argument "
                         f"to a function, but the call of {name} passes one of type "
                         f"{_aval_of(refs[0])!r} twice")
    discharged, written = discharged_call_jaxpr(jaxpr)
    outs = pjit.pjit_p.bind(*args, jaxpr=discharged, name=name)
    nout = len(jaxpr.out_avals)
    trace = core.current_trace()
    if isinstance(trace, ad.JVPTrace):  # a ref's value that no differentiated input reaches
        outs = list(outs)               # is not differentiated (its tangent is an instantiated 0)
        for k in _independent_outputs(discharged.jaxpr, args, trace):
            if k >= nout and isinstance(outs[k], ad.JVPTracer):
                outs[k] = outs[k].primal
    finals = iter(outs[nout:])
    written = iter(written)
    return [(next(finals) if next(written) else None) if r else None for r in is_ref], \
        list(outs[:nout])


def _independent_outputs(jaxpr: core.Jaxpr, args, trace):
    """The positions of `jaxpr`'s outputs that depend on no operand carried by `trace`."""
    live = {v for v, a in zip(jaxpr.invars, args, strict=True)
            if isinstance(a, core.Tracer) and a._trace is trace}
    for eqn in jaxpr.eqns:
        if any(type(v) is core.Var and v in live for v in eqn.invars):
            live.update(eqn.outvars)
    return [k for k, v in enumerate(jaxpr.outvars) if not (type(v) is core.Var and v in live)]


def _aval_of(v):
    return v.aval if isinstance(v, core.Var) else core.get_aval(v)


def _is_ref_value(x) -> bool:
    return type(x) is Ref or (isinstance(x, core.Tracer) and isinstance(x.aval, AbstractRef))


def check_ref_args(fun_str, closed: core.ClosedJaxpr, leaves, names):
    """JAX's errors for a jit call given refs: the same ref at two arguments, or a ref both
    passed and closed over. `fun_str` and `names` (the arguments' names, or None) are thunks,
    called only for an error message."""
    seen = {}
    consts = {id(c) for c in closed.consts if _is_ref_value(c)}
    for i, x in enumerate(leaves):
        if not _is_ref_value(x):
            continue
        if id(x) in consts or id(x) in seen:
            arg_names = names()
            name = arg_names[i] if arg_names and i < len(arg_names) else f"argument {i}"
            if id(x) in consts:
                raise ValueError(f"when tracing {fun_str()} for jit, a mutable array reference "
                                 f"of type {core.get_aval(x)!r} was both closed over and passed "
                                 f"as the argument {name}")
            first = seen[id(x)]
            first = arg_names[first] if arg_names and first < len(arg_names) else \
                f"argument {first}"
            raise ValueError(f"only one reference to a mutable array may be passed as an "
                             f"argument to a function, but when tracing {fun_str()} for jit the "
                             f"mutable array reference of type {core.get_aval(x)!r} appeared at "
                             f"both {first} and {name}.")
        seen[id(x)] = i


_refs_last_cache: "weakref.WeakKeyDictionary" = weakref.WeakKeyDictionary()


def jit_call_operands(closed: core.ClosedJaxpr, leaves):
    """`(const-free jaxpr, operands)` of the jit equation of a call given `leaves`: as in JAX,
    the Refs the function closes over are its last operands (`jit[...] b a` with `a` the Ref),
    its other constants the first. The jaxpr is cached, so its executable is compiled once."""
    is_ref = [type(c) is Ref for c in closed.consts]
    jaxpr = _refs_last_cache.get(closed)
    if jaxpr is None:
        cv = closed.jaxpr.constvars
        jaxpr = _refs_last_cache[closed] = core.ClosedJaxpr(core.Jaxpr(
            [], [v for v, r in zip(cv, is_ref) if not r] + list(closed.jaxpr.invars)
            + [v for v, r in zip(cv, is_ref) if r], closed.jaxpr.outvars, closed.jaxpr.eqns), [])
    consts = closed.consts
    return jaxpr, ([c for c, r in zip(consts, is_ref) if not r] + list(leaves)
                   + [c for c, r in zip(consts, is_ref) if r])


def has_refs_in_signature(closed: core.ClosedJaxpr) -> bool:
    return any(_is_ref(v) for v in closed.jaxpr.constvars + closed.jaxpr.invars)


class AotCall:
    """What `jit(f).lower(...)` compiles for a function given (or closing over) Refs: the
    discharged jaxpr taking `(*closed-over refs' values, *args)`, and how a call of the compiled
    executable reads the refs and writes back those the function writes."""

    def __init__(self, closed: core.ClosedJaxpr, donated):
        cv, consts = closed.jaxpr.constvars, closed.consts
        self.ref_consts = [c for c in consts if type(c) is Ref]
        ref_vars = [v for v, c in zip(cv, consts) if type(c) is Ref]
        inner = core.Jaxpr([v for v, c in zip(cv, consts) if type(c) is not Ref],
                           ref_vars + closed.jaxpr.invars, closed.jaxpr.outvars, closed.jaxpr.eqns)
        self.jaxpr, self.written = discharged_call_jaxpr(
            core.ClosedJaxpr(inner, [c for c in consts if type(c) is not Ref]))
        self.donated = (False,) * len(ref_vars) + tuple(donated) if donated else ()
        self.nout = len(closed.jaxpr.outvars)

    def __call__(self, compiled, leaves):
        refs = self.ref_consts + [x for x in leaves if type(x) is Ref]
        vals = [r._value for r in self.ref_consts] + [x._value if type(x) is Ref else x
                                                      for x in leaves]
        outs = compiled(vals)
        finals = iter(outs[self.nout:])
        for r, w in zip(refs, self.written, strict=True):
            if w:
                r._write(next(finals))
        return outs[:self.nout]


def aot_call(closed: core.ClosedJaxpr, donated):
    """An `AotCall` for a traced jit over refs, or None when it takes and closes over none."""
    if not has_refs_in_signature(closed):
        return None
    return AotCall(closed, donated)


discharge_rules[pjit.pjit_p] = _pjit_discharge
pjit.ref_call_rules.update(check_ref_args=check_ref_args, jit_call_operands=jit_call_operands)
stages.ref_lowering.update(aot_call=aot_call)

# NB: set on the primitive objects (an instance attribute shadowing Primitive.bind), so every
# way of binding them (the lax wrappers, eval_jaxpr) sees eager Refs.
for _prim in list(discharge_rules):
    _prim.bind = _bind_with_refs(_prim)
