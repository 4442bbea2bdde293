"""`jax.interpreters.partial_eval`: tracing to jaxprs, with some inputs known (flax's lazy_init
and nn.scan use `trace_to_jaxpr_nounits` to find which outputs depend on which inputs)."""
from __future__ import annotations

from typing import Any, NamedTuple

from pyjax._src import core
from pyjax._src.core import ShapedArray
from pyjax._src.interpreters.partial_eval import DynamicJaxprTracer as DynamicJaxprTracer
from pyjax._src.interpreters.partial_eval import PartialEvalTrace
from pyjax._src.interpreters.partial_eval import dce_jaxpr as dce_jaxpr
from pyjax._src.interpreters.partial_eval import trace_to_jaxpr
from pyjax._src.interpreters.partial_eval import trace_to_jaxpr_dynamic as trace_to_jaxpr_dynamic


class PartialVal(NamedTuple):
    """A value known now (`aval` None, `const` the value) or unknown (`aval` its ShapedArray)."""
    aval: ShapedArray | None
    const: Any

    @classmethod
    def known(cls, const) -> PartialVal:
        return cls(None, const)

    @classmethod
    def unknown(cls, aval) -> PartialVal:
        return cls(aval, None)

    def is_known(self) -> bool:
        return self.aval is None

    def get_known(self):
        return self.const if self.aval is None else None

    def get_aval(self) -> ShapedArray:
        return core.get_aval(self.const) if self.aval is None else self.aval


JaxprTracer = DynamicJaxprTracer
Val = Any


def _call(fun, *args):
    call = getattr(fun, "call_wrapped", fun)
    return call(*args)


def trace_to_jaxpr_nounits(fun, pvals, instantiate=False):
    """Run `fun` on the known values and trace what depends on the unknown ones.

    Returns `(jaxpr, out_pvals, consts)`: known outputs were computed now (on the enclosing
    trace); the jaxpr computes the unknown outputs from the unknown inputs (its constvars are
    `consts`, the known values it reads)."""
    with core.new_trace(PartialEvalTrace) as trace:
        args = [trace.new_arg(pv.aval) if pv.aval is not None else pv.const for pv in pvals]
        outs = list(_call(fun, *args))
        inst = [instantiate] * len(outs) if isinstance(instantiate, bool) else list(instantiate)
        unknown = [not trace.is_known(x) or i for x, i in zip(outs, inst, strict=True)]
        closed = trace.to_jaxpr([x for x, u in zip(outs, unknown, strict=True) if u])
    out_pvals = [PartialVal.unknown(core.get_aval(x)) if u else PartialVal.known(x)
                 for x, u in zip(outs, unknown, strict=True)]
    return closed.jaxpr, out_pvals, list(closed.consts)
