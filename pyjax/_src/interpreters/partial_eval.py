"""Tracing Python functions into jaxprs (the trace used by `jit` and `make_jaxpr`).

`DynamicJaxprTrace` records every primitive applied to its tracers as an equation. Values that
are not its own tracers become inputs of the jaxpr: Python/NumPy scalars become inline
`Literal`s, other concrete arrays and tracers of enclosing traces become constvars (their values
are bound in the resulting `ClosedJaxpr`).
"""
from __future__ import annotations

import numpy as np

from pyjax._src import core
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


def _is_literalable(x) -> bool:
    """Scalars known on the host are inlined into the jaxpr as literals."""
    return type(x) in (bool, int, float, complex) or (
        isinstance(x, (np.generic, np.ndarray)) and np.ndim(x) == 0)


# Types that can answer `_host_value()` cheaply (host-resident Arrays register here).
literal_value_handlers: dict[type, object] = {}


class DynamicJaxprTrace(core.Trace):
    __slots__ = ("eqns", "invars", "constvars", "consts", "_const_ids")

    def __init__(self, parent):
        super().__init__(parent)
        self.eqns = []
        self.invars = []
        self.constvars = []
        self.consts = []
        self._const_ids = {}

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
        invars = [self.to_var(x) for x in args]
        out = prim.rule("abstract_eval")(*[v.aval for v in invars], **params)
        if prim.multiple_results:
            outvars = [Var(a) for a in out]
            self.eqns.append(JaxprEqn(invars, outvars, prim, params, None))
            return [DynamicJaxprTracer(self, v.aval, v) for v in outvars]
        outvar = Var(out)
        self.eqns.append(JaxprEqn(invars, [outvar], prim, params, None))
        return DynamicJaxprTracer(self, out, outvar)

    def to_jaxpr(self, out_tracers) -> ClosedJaxpr:
        outvars = [self.to_var(t) for t in out_tracers]
        jaxpr = Jaxpr(self.constvars, self.invars, outvars, self.eqns)
        return ClosedJaxpr(jaxpr, self.consts)


def trace_to_jaxpr(fun, in_avals, origins=None) -> tuple[ClosedJaxpr, list]:
    """Trace `fun(*tracers)` (flat list in, flat list out) into a ClosedJaxpr.

    Returns the closed jaxpr and the flat list of outputs as returned by `fun` (tracers of the
    finished trace, or constants) so callers can inspect them.
    """
    with core.new_trace(DynamicJaxprTrace) as trace:
        origins = origins or [None] * len(in_avals)
        args = [trace.new_arg(a, o) for a, o in zip(in_avals, origins, strict=True)]
        outs = fun(*args)
        closed = trace.to_jaxpr(outs)
    return closed, outs


def as_const_free(closed: ClosedJaxpr) -> tuple[ClosedJaxpr, list]:
    """The jaxpr with its constvars turned into leading invars, and the constants. Higher-order
    primitives carry such const-free jaxprs and pass the constants as operands."""
    return ClosedJaxpr(convert_constvars_jaxpr(closed.jaxpr), []), list(closed.consts)


def trace_tree_to_jaxpr(fun, in_tree, in_avals):
    """Trace `fun(*tree_unflatten(in_tree, leaves))` on `in_avals`.

    Returns `(jaxpr, consts, out_tree)`: `jaxpr` is a const-free ClosedJaxpr taking
    `(*consts, *leaves)` and returning the flat outputs of `fun`.
    """
    from pyjax._src import tree_util
    box = []

    def flat(*leaves):
        out = fun(*tree_util.tree_unflatten(in_tree, leaves))
        out_flat, out_tree = tree_util.tree_flatten(out)
        box.append(out_tree)
        return out_flat
    closed, _ = trace_to_jaxpr(flat, list(in_avals))
    jaxpr, consts = as_const_free(closed)
    return jaxpr, consts, box[0]


def convert_constvars_jaxpr(jaxpr: Jaxpr) -> Jaxpr:
    """Move constvars to the front of invars."""
    return Jaxpr([], jaxpr.constvars + jaxpr.invars, jaxpr.outvars, jaxpr.eqns, jaxpr.effects)


def dce_jaxpr(jaxpr: Jaxpr, used_outputs=None) -> Jaxpr:
    """Drop equations whose results are not needed (effectful equations are kept)."""
    outvars = jaxpr.outvars if used_outputs is None else [v for v, u in zip(jaxpr.outvars, used_outputs, strict=True) if u]
    live = {v for v in outvars if isinstance(v, Var)}
    new_eqns = []
    for eqn in reversed(jaxpr.eqns):
        if eqn.primitive.is_effectful or any(v in live for v in eqn.outvars):
            new_eqns.append(eqn)
            live.update(v for v in eqn.invars if isinstance(v, Var))
    new_eqns.reverse()
    return Jaxpr(jaxpr.constvars, jaxpr.invars, outvars, new_eqns, jaxpr.effects)
