"""Tracing Python functions into jaxprs (the trace used by `jit` and `make_jaxpr`).

`DynamicJaxprTrace` records every primitive applied to its tracers as an equation. Values that
are not its own tracers become inputs of the jaxpr: Python/NumPy scalars become inline
`Literal`s, other concrete arrays and tracers of enclosing traces become constvars (their values
are bound in the resulting `ClosedJaxpr`).
"""
from __future__ import annotations

import inspect

import numpy as np

from pyjax._src import core, source_info, tracer_leaks, tree_util
from pyjax._src.backend import xla
from pyjax._src.config import config
from pyjax._src import pretty_print  # noqa: F401 - installs the jaxpr printer in core
from pyjax._src.core import Var, Literal, JaxprEqn, Jaxpr, ClosedJaxpr, Tracer


class DynamicJaxprTracer(Tracer):
    __slots__ = ("_aval", "_var", "_origin")

    def __init__(self, trace, aval, var, origin=None):
        self._trace = trace
        self._aval = aval
        self._var = var
        self._origin = origin

    @property
    def aval(self):
        return self._aval

    def _provenance(self):
        return trace_provenance(self._trace, self._var)

    def _created_at(self) -> str:
        """`file:line (function)` of the user's line that made this value, or '' (for errors)."""
        for eqn in getattr(self._trace, "eqns", ()):
            if self._var in eqn.outvars:
                return source_info.user_frame_of(eqn.source_info)
        return ""

    def __repr__(self):  # as JAX: `JitTracer(float32[2])`, `JitTracer(~float32[])` when weak
        return f"JitTracer({self._aval})"


class TraceDebug:
    """What error messages say about a trace: the traced function, the transformation that
    traced it ('jit', 'scan', ...) and the names of its inputs by their path in the function's
    arguments (`p['w']`, `args[1]`). The names are a thunk: they are only computed when an
    error needs them, so tracing pays nothing for them."""

    __slots__ = ("fun", "what", "_names")

    def __init__(self, fun, what, names):
        self.fun = fun
        self.what = what
        self._names = names

    def arg_names(self):
        if callable(self._names):
            try:
                self._names = self._names()
            except Exception:  # noqa: BLE001 - names are a courtesy; never mask the real error
                self._names = None
        return self._names

    def fun_str(self):
        fun = self.fun
        name = getattr(fun, "__name__", None) or type(fun).__name__
        code = getattr(getattr(fun, "__wrapped__", fun), "__code__", None)
        return f"{name} at {code.co_filename}:{code.co_firstlineno}" if code else name


def arg_paths(fun, in_tree):
    """The names of the leaves of `in_tree` (a tuple of positional arguments of `fun`) by their
    parameter name and key path: `p['w']`, `params.layers[0]`, `args[1]`."""
    leaves = list(range(in_tree.num_leaves))
    args = tree_util.tree_unflatten(in_tree, leaves)
    try:
        params = list(inspect.signature(fun).parameters.values())
    except (TypeError, ValueError):
        params = []
    positional = [p.name for p in params if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
    var_pos = next((p.name for p in params if p.kind == p.VAR_POSITIONAL), "args")
    names = [None] * len(leaves)
    for i, a in enumerate(args):
        base = positional[i] if i < len(positional) else f"{var_pos}[{i - len(positional)}]"
        for path, leaf in tree_util.tree_flatten_with_path(a)[0]:
            names[leaf] = base + tree_util.keystr(path)
    return names


def trace_provenance(trace, var):
    """[(TraceDebug or None, input name)] of the inputs `var` of `trace` depends on, following
    values closed over from enclosing traces outwards. Computed only for error messages: a
    backwards walk over the recorded equations (nothing is tracked per operation)."""
    needed = {var}
    for eqn in reversed(trace.eqns):
        if any(v in needed for v in eqn.outvars):
            needed.update(v for v in eqn.invars if type(v) is Var)
    debug = getattr(trace, "debug", None)
    names = debug.arg_names() if debug is not None else None
    out = []
    for i, v in enumerate(trace.invars):
        if v in needed:
            name = names[i] if names and i < len(names) else None
            out.append((debug, name))
    for v, c in zip(trace.constvars, trace.consts):
        if v in needed and isinstance(c, Tracer):
            out += [o for o in c._provenance() if o not in out]
    return out


def _is_literalable(x) -> bool:
    """Scalars known on the host are inlined into the jaxpr as literals."""
    return type(x) in (bool, int, float, complex) or (
        isinstance(x, (np.generic, np.ndarray)) and np.ndim(x) == 0)


_flags = config._tls  # (read on every staged equation: the current thread's plain dict)
# Each staged equation's source_info: where it was traced (jaxlib's C++ traceback capture), read
# by checkify and debug_nans to name the user's line, and the name stack (named_scope).
_source_traceback = xla.get_traceback
_name_stack_state = source_info.name_stack_state
_SourceInfo = source_info.SourceInfo


def _source_info():
    state = _name_stack_state
    tb = state.traceback
    return _SourceInfo(_source_traceback() if tb is None else tb, state.stack)

# Types that can answer `_host_value()` cheaply (host-resident Arrays register here).
literal_value_handlers: dict[type, object] = {}


class DynamicJaxprTrace(core.Trace):
    __slots__ = ("eqns", "invars", "constvars", "consts", "_const_ids", "debug")

    def __init__(self, parent, debug=None):
        super().__init__(parent)
        self.eqns = []
        self.invars = []
        self.constvars = []
        self.consts = []
        self._const_ids = {}
        self.debug = debug  # a TraceDebug, for error messages

    def new_arg(self, aval, origin=None) -> DynamicJaxprTracer:
        var = Var(aval)
        self.invars.append(var)
        return DynamicJaxprTracer(self, aval, var, origin)

    def to_var(self, x):
        if isinstance(x, DynamicJaxprTracer) and x._trace is self:
            return x._var
        if isinstance(x, Tracer):
            if not x._trace.alive:
                raise core.escaped_tracer_error(x)
            return self._const_var(x)
        handler = literal_value_handlers.get(type(x))
        if handler is not None:
            lit = handler(x)
            if lit is not None:
                return lit
        if _is_literalable(x):
            aval = core.get_aval(x)
            # Python scalars stay as they are, so evaluating the jaxpr sees them weakly typed
            val = x if type(x) in (bool, int, float, complex) else np.asarray(x, aval.dtype)[()]
            return Literal(val, aval)
        return self._const_var(x)

    def _const_var(self, x):
        key = id(x)
        var = self._const_ids.get(key)
        if var is None:
            var = Var(core.get_aval(x))
            self._const_ids[key] = var
            self.constvars.append(var)
            self.consts.append(x)
        return var

    def process_primitive(self, prim, args, params):
        if _flags.values["eager_constant_folding"] and not any(isinstance(x, Tracer) for x in args):
            # ensure_compile_time_eval: an operation on constants only runs now, as in JAX
            with core.set_current_trace(core.EvalTrace()):
                return prim.bind(*args, **params)
        invars = [x._var if type(x) is DynamicJaxprTracer and x._trace is self else self.to_var(x)
                  for x in args]
        if core.VMA_TRACING[0] and core.vma_axes() is not None:
            return self._stage_with_vma(prim, invars, params)
        out = (prim.abstract_eval or prim.rule("abstract_eval"))(*[v.aval for v in invars], **params)
        if prim.multiple_results:
            outvars = [Var(a) for a in out]
            self.eqns.append(JaxprEqn(invars, outvars, prim, params, _source_info()))
            return [DynamicJaxprTracer(self, v.aval, v) for v in outvars]
        outvar = Var(out)
        self.eqns.append(JaxprEqn(invars, [outvar], prim, params, _source_info()))
        return DynamicJaxprTracer(self, out, outvar)

    def _stage_with_vma(self, prim, invars, params):
        """Stage an equation inside a check_vma shard_map body (core's "vma types"): the
        outputs vary along every axis an operand varies along, and operands that vary along
        fewer get a pvary first. Collectives, pvary and higher-order primitives (whose jaxprs
        were traced with their operands' types) give their outputs' vma themselves."""
        joined = prim not in core.vma_rule_primitives and not _carries_jaxpr(params)
        vma = core.NO_VMA
        if joined:
            vmas = [getattr(v.aval, "vma", core.NO_VMA) for v in invars]
            vma = frozenset().union(*vmas)
            if vma and not config._values["jax_auto_pcast"] and any(m != vma for m in vmas):
                raise ValueError(
                    f"Primitive {prim.name} requires varying manual axes to match, but got "
                    f"{vmas}. Please open an issue at https://github.com/jax-ml/jax/issues and "
                    f"as a temporary workaround pass the check_vma=False argument to "
                    f"`jax.shard_map`")
            if vma:
                invars = [self._pvary_var(v, vma - v.aval.vma)
                          if type(v.aval) is core.ShapedArray and v.aval.vma != vma else v
                          for v in invars]
        out = (prim.abstract_eval or prim.rule("abstract_eval"))(*[v.aval for v in invars], **params)
        outs = list(out) if prim.multiple_results else [out]
        if joined:
            outs = [o.update(vma=vma) if type(o) is core.ShapedArray and o.vma != vma else o
                    for o in outs]
        outvars = [Var(a) for a in outs]
        self.eqns.append(JaxprEqn(invars, outvars, prim, params, _source_info()))
        tracers = [DynamicJaxprTracer(self, v.aval, v) for v in outvars]
        return tracers if prim.multiple_results else tracers[0]

    def _pvary_var(self, v, axes):
        axes = core.order_axes(axes)
        out = Var(v.aval.update(vma=v.aval.vma | frozenset(axes)))
        self.eqns.append(JaxprEqn([v], [out], core.pvary_p, {"axes": axes}, _source_info()))
        return out

    def to_jaxpr(self, out_tracers) -> ClosedJaxpr:
        outvars = [self.to_var(t) for t in out_tracers]
        jaxpr = Jaxpr(self.constvars, self.invars, outvars, self.eqns)
        return ClosedJaxpr(jaxpr, self.consts)


def _carries_jaxpr(params) -> bool:
    for v in params.values():
        t = type(v)
        if t is ClosedJaxpr or t is Jaxpr or (t in (tuple, list) and v and type(v[0]) in (
                ClosedJaxpr, Jaxpr)):
            return True
    return False


class PartialEvalTrace(DynamicJaxprTrace):
    """Partial evaluation on the fly: the trace under a reverse-mode JVP.

    Its own tracers are the *unknown* values (tangents); anything else is *known* (a concrete
    value, or a tracer of an enclosing trace). A primitive applied to known values only runs at
    once on the parent trace, so primal values stay concrete outside `jit` and Python control
    flow on them works. A primitive that reads an unknown value is staged into the jaxpr, which
    captures the known values it reads as constvars: the residuals. Higher-order primitives with
    a `partial_eval` rule are split, so their known part runs now and only the rest is staged.
    """

    __slots__ = ()

    def is_known(self, x) -> bool:
        return not (isinstance(x, DynamicJaxprTracer) and x._trace is self)

    def process_primitive(self, prim, args, params):
        known = [not (type(x) is DynamicJaxprTracer and x._trace is self) for x in args]
        if all(known):
            with core.set_current_trace(self.parent):
                return prim.bind(*args, **params)
        rule = prim.partial_eval
        if rule is None or not any(known):
            return super().process_primitive(prim, args, params)
        return self._split_eqn(rule, prim, args, known, params)

    def process_custom_call(self, prim, fun, rules, args, params):
        if all(self.is_known(x) for x in args):
            with core.set_current_trace(self.parent):
                return prim.bind_call(fun, rules, *args, **params)
        return prim.stage(fun, rules, args, params)

    def _split_eqn(self, rule, prim, args, known, params):
        """Apply an equation-level `partial_eval` rule: run its known equations now (under the
        parent trace), stage its unknown ones."""
        env = {}
        invars = []
        for x, k in zip(args, known, strict=True):
            if k:
                v = Var(core.get_aval(x))
                env[v] = x
            else:
                v = x._var
            invars.append(v)
        out_avals = prim.rule("abstract_eval")(*[v.aval for v in invars], **params)
        out_avals = out_avals if prim.multiple_results else [out_avals]
        outvars = [Var(a) for a in out_avals]
        known_eqns, unknown_eqns, out_unknown = rule(
            JaxprEqn(invars, outvars, prim, params, None), [not k for k in known])
        with core.set_current_trace(self.parent):
            for eqn in known_eqns:
                outs = eqn.primitive.bind(*[_read(env, v) for v in eqn.invars], **eqn.params)
                outs = outs if eqn.primitive.multiple_results else [outs]
                env.update(zip(eqn.outvars, outs, strict=True))
        for eqn in unknown_eqns:
            ins = [self.to_var(env[v]) if type(v) is Var and v in env else v for v in eqn.invars]
            self.eqns.append(eqn._replace(invars=ins))
        outs = [DynamicJaxprTracer(self, v.aval, v) if u else env[v]
                for v, u in zip(outvars, out_unknown, strict=True)]
        return outs if prim.multiple_results else outs[0]


def _read(env, v):
    return v.val if type(v) is Literal else env[v]


def trace_to_jaxpr(fun, in_avals, origins=None, debug=None) -> tuple[ClosedJaxpr, list]:
    """Trace `fun(*tracers)` (flat list in, flat list out) into a ClosedJaxpr.

    Returns the closed jaxpr and the flat list of outputs as returned by `fun` (tracers of the
    finished trace, or constants) so callers can inspect them. `debug`, a TraceDebug, names
    the function and its inputs in tracer errors.
    """
    # as JAX, a traced body's equations carry names relative to it (the jit or scan equation
    # holds the enclosing scopes)
    with core.new_trace(DynamicJaxprTrace, debug) as trace, source_info.reset_name_stack():
        origins = origins or [None] * len(in_avals)
        args = [trace.new_arg(a, o) for a, o in zip(in_avals, origins, strict=True)]
        outs = fun(*args)
        closed = trace.to_jaxpr(outs)
    if _flags.values["jax_check_tracer_leaks"]:
        tracer_leaks.check_leaks(trace, args, outs)
    for rewrite in traced_jaxpr_rewrites:
        closed = rewrite(closed)
    return closed, outs


def trace_to_jaxpr_dynamic(fun, in_avals, *, keep_inputs=None, lower=False, auto_dce=False):
    """JAX's `pe.trace_to_jaxpr_dynamic`: trace `fun` (a callable or an `lu.WrappedFun`, flat
    list in and out) on `in_avals` to `(jaxpr, out_avals, consts)`, the jaxpr as traced: refs
    and their effects stay in it (no `traced_jaxpr_rewrites`), its constvars bound to `consts`."""
    del keep_inputs, lower
    call = getattr(fun, "call_wrapped", fun)
    with core.new_trace(DynamicJaxprTrace) as trace, source_info.reset_name_stack():
        args = [trace.new_arg(a) for a in in_avals]
        closed = trace.to_jaxpr(list(call(*args)))
    jaxpr = prune_jaxpr(closed.jaxpr) if auto_dce else closed.jaxpr
    return jaxpr, [v.aval for v in jaxpr.outvars], list(closed.consts)


# Rewrites applied to every traced jaxpr (same inputs and outputs), filled by upper layers:
# state.discharge turns a jaxpr that creates refs (`new_ref` under jit, in a loop body) into
# functional code right where it is traced.
traced_jaxpr_rewrites: list = []


def as_const_free(closed: ClosedJaxpr) -> tuple[ClosedJaxpr, list]:
    """The jaxpr with its constvars turned into leading invars, and the constants. Higher-order
    primitives carry such const-free jaxprs and pass the constants as operands."""
    return ClosedJaxpr(convert_constvars_jaxpr(closed.jaxpr), []), list(closed.consts)


def trace_tree_to_jaxpr(fun, in_tree, in_avals, what=None):
    """Trace `fun(*tree_unflatten(in_tree, leaves))` on `in_avals`.

    Returns `(jaxpr, consts, out_tree)`: `jaxpr` is a const-free ClosedJaxpr taking
    `(*consts, *leaves)` and returning the flat outputs of `fun`.
    """
    box = []

    def flat(*leaves):
        out = fun(*tree_util.tree_unflatten(in_tree, leaves))
        out_flat, out_tree = tree_util.tree_flatten(out)
        box.append(out_tree)
        return out_flat
    debug = TraceDebug(fun, what, lambda: arg_paths(fun, in_tree)) if what else None
    closed, _ = trace_to_jaxpr(flat, list(in_avals), debug=debug)
    jaxpr, consts = as_const_free(closed)
    return jaxpr, consts, box[0]


def convert_constvars_jaxpr(jaxpr: Jaxpr) -> Jaxpr:
    """Move constvars to the front of invars."""
    return Jaxpr([], jaxpr.constvars + jaxpr.invars, jaxpr.outvars, jaxpr.eqns, jaxpr.effects)


def prune_jaxpr(jaxpr: Jaxpr, used_outputs=None) -> Jaxpr:
    """Drop equations whose results are not needed (and the outputs not in `used_outputs`),
    keeping every input; effectful equations are kept. A primitive with a `dce` rule may instead
    shrink its equation to the outputs that are used. (JAX's `dce_jaxpr` below also drops
    unread inputs.)"""
    outvars = jaxpr.outvars if used_outputs is None else [v for v, u in zip(jaxpr.outvars, used_outputs, strict=True) if u]
    live = {v for v in outvars if isinstance(v, Var)}
    new_eqns = []
    for eqn in reversed(jaxpr.eqns):
        used = [v in live for v in eqn.outvars]
        if not any(used):
            if not eqn.effects:
                continue
        elif eqn.primitive.dce is not None and not all(used) and not eqn.effects:
            _, eqn = eqn.primitive.dce(used, eqn)
            if eqn is None:
                continue
        new_eqns.append(eqn)
        live.update(v for v in eqn.invars if isinstance(v, Var))
    new_eqns.reverse()
    return Jaxpr(jaxpr.constvars, jaxpr.invars, outvars, new_eqns)


def close_jaxpr(jaxpr: Jaxpr) -> ClosedJaxpr:
    """JAX's `pe.close_jaxpr`: a jaxpr without constants, closed over none."""
    return ClosedJaxpr(jaxpr, [])


def dce_jaxpr(jaxpr: Jaxpr, used_outputs, instantiate=False) -> tuple[Jaxpr, list[bool]]:
    """JAX's `pe.dce_jaxpr`: `(jaxpr pruned to the used outputs and the inputs they read, which
    inputs are kept)`; `instantiate` keeps inputs (all when True, or one flag per input) even
    when unread."""
    new = prune_jaxpr(jaxpr, used_outputs)
    read = {v for eqn in new.eqns for v in eqn.invars} | set(new.outvars)
    keep = [instantiate] * len(new.invars) if isinstance(instantiate, bool) else instantiate
    used_inputs = [k or v in read for v, k in zip(new.invars, keep, strict=True)]
    invars = [v for v, u in zip(new.invars, used_inputs, strict=True) if u]
    return Jaxpr(new.constvars, invars, new.outvars, new.eqns, new.effects), used_inputs
