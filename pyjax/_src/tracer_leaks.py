"""`jax_check_tracer_leaks`: after a trace finishes, find its tracers that something still
holds (a global, a closure cell, an object's attribute) and say what holds each one."""
from __future__ import annotations

import gc
import sys
import types

from pyjax._src import errors
from pyjax._src import source_info
from pyjax._src.core import Tracer


def check_leaks(trace, *expected):
    """jax_check_tracer_leaks: raise if a tracer of the finished `trace` is still referenced by
    anything but the containers in `expected` (the trace's own inputs and outputs) and running
    frames: stored in a global, a closure cell, an object attribute... As JAX, a plain
    Exception listing each leaked tracer, where it was created and what refers to it."""
    gc.collect()
    # (plain loops: a comprehension naming a local would make it a closure cell, itself a
    # referrer of the tracers)
    mine = []
    for r in gc.get_referrers(trace):
        if isinstance(r, Tracer) and r._trace is trace:
            mine.append(r)
    skip = {id(mine)}
    for e in expected:
        skip.add(id(e))
    leaked, t = [], None
    for t in mine:
        refs = []
        for r in gc.get_referrers(t):
            if id(r) not in skip and not isinstance(r, types.FrameType):
                refs.append(r)
        if refs:
            leaked.append((t, refs))
    del mine, t
    if not leaked:
        return
    lines = [f"Leaked trace {type(trace).__name__}. Leaked tracer(s):", ""]
    for tracer, refs in leaked:
        lines.append(repr(tracer))
        origin = errors.tracer_origin(tracer)
        if origin:
            lines.append(f"It was {origin}.")
        where = _creation_line(tracer)
        if where:
            lines.append(f"This {type(tracer).__name__} was created on line {where}")
        for r in refs[:3]:
            lines.append(f"<{type(tracer).__name__} {id(tracer)}> is referred to by "
                         + _describe_referrer(r, tracer))
        lines.append("")
    del leaked, tracer, refs
    raise Exception("\n".join(lines))  # noqa: TRY002 - the class JAX raises


def _creation_line(tracer) -> str:
    """The user's line that made a jaxpr tracer (from its equation's source_info), or ''."""
    var = getattr(tracer, "_var", None)
    for eqn in getattr(tracer._trace, "eqns", ()):
        if var in eqn.outvars:
            return source_info.user_frame_of(eqn.source_info)
    return ""


def _describe_referrer(ref, target, depth=0) -> str:
    """`<list 1234>[0]`, and what holds that in turn: a module global (`__main__.store`), an
    object's attribute, a closure cell."""
    name = _global_name(ref) or f"<{type(ref).__name__} {id(ref)}>"
    if isinstance(ref, list):
        here = f"{name}[{next((i for i, x in enumerate(ref) if x is target), '?')}]"
    elif isinstance(ref, dict):
        key = next((k for k, v in ref.items() if v is target), None)
        here = f"{name}[{key!r}]"
        owner = next((o for o in gc.get_referrers(ref)
                      if getattr(o, "__dict__", None) is ref), None)
        if owner is not None:
            return f"the attribute {key!r} of <{type(owner).__name__} {id(owner)}>"
    elif isinstance(ref, types.CellType):
        return f"<cell {id(ref)}> (a closure variable)"
    else:
        here = name
    if depth < 2 and isinstance(ref, (list, dict)) and name.startswith("<"):
        for holder in gc.get_referrers(ref):
            outer = _global_name(holder, ref) if isinstance(holder, dict) else ""
            if outer:
                return f"{here}, which is referred to by {outer}"
    return here


def _global_name(obj, value=None) -> str:
    """`module.name` if `obj` is a module global (or, given `value`, if `obj` is a module's
    namespace holding `value`), else ''."""
    for mod in list(sys.modules.values()):
        ns = getattr(mod, "__dict__", None)
        if not isinstance(ns, dict):
            continue
        if value is not None:
            if ns is obj:
                key = next((k for k, v in ns.items() if v is value), None)
                return f"{mod.__name__}.{key}" if key else ""
            continue
        for k, v in ns.items():
            if v is obj and not k.startswith("__"):
                return f"{mod.__name__}.{k}"
    return ""
