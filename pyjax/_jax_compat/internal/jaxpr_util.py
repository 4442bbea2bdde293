"""`jax._src.jaxpr_util`: statistics of a jaxpr's equations (counts by primitive, by source line,
by output type), walking the jaxprs nested in equations' parameters too; other names import and
raise when used."""
from __future__ import annotations

import collections

from pyjax._jax_compat._unsupported import module_getattr
from pyjax._jax_compat.extend.source_info_util import summarize
from pyjax._src import core


def _open(jaxpr):
    return jaxpr.jaxpr if isinstance(jaxpr, core.ClosedJaxpr) else jaxpr


def all_eqns(jaxpr, revisit_inner_jaxprs: bool = True):
    """`(jaxpr, eqn)` for every equation of `jaxpr` and of the jaxprs nested in it (a nested
    jaxpr met again is walked again unless `revisit_inner_jaxprs=False`)."""
    seen: set = set()
    todo = [_open(jaxpr)]
    while todo:
        j = todo.pop(0)
        yield from ((j, eqn) for eqn in j.eqns)
        for sub in core.subjaxprs(j):
            if revisit_inner_jaxprs or id(sub) not in seen:
                seen.add(id(sub))
                todo.append(sub)


def collect_eqns(jaxpr, key) -> dict:
    groups = collections.defaultdict(list)
    for _, eqn in all_eqns(jaxpr):
        groups[key(eqn)].append(eqn)
    return dict(groups)


def count_eqns(jaxpr, revisit_inner_jaxprs: bool = True) -> int:
    return sum(1 for _ in all_eqns(jaxpr, revisit_inner_jaxprs))


def histogram(jaxpr, key, key_fmt=lambda k: k) -> dict:
    return {key_fmt(k): len(eqns) for k, eqns in collect_eqns(jaxpr, key).items()}


def primitives(jaxpr) -> dict:
    """How many equations bind each primitive: {'sin': 2, 'add': 1, ...}."""
    return histogram(jaxpr, lambda eqn: eqn.primitive.name)


def primitives_by_source(jaxpr) -> dict:
    """{'sin @ file.py:12 (f)': 1, ...}: equations by primitive and the user's line."""
    return histogram(jaxpr, lambda eqn: (eqn.primitive.name, summarize(eqn.source_info)),
                     " @ ".join)


def primitives_by_shape(jaxpr) -> dict:
    """{'add :: float32[]': 1, ...}: equations by primitive and output types."""
    def key(eqn):
        return eqn.primitive.name, " ".join(v.aval.str_short(short_dtypes=False)
                                            for v in eqn.outvars)
    return histogram(jaxpr, key, " :: ".join)


def source_locations(jaxpr) -> dict:
    """How many equations each of the user's source lines staged."""
    return histogram(jaxpr, lambda eqn: summarize(eqn.source_info))


__getattr__ = module_getattr("jax._src.jaxpr_util")
