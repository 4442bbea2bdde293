"""Dict-like views of the rules stored on primitives, for code written against JAX's tables.

JAX keeps rules in module-level dicts keyed by primitive (`ad.primitive_jvps`,
`ad.primitive_transposes`, `batching.primitive_batchers`), and libraries such as equinox
register the rules of their own primitives by assigning into them. pyjax keeps every rule on its
`Primitive` (STYLE rule 2), so these tables are views: `ad.primitive_jvps[p] = rule` sets
`p.jvp`, `primitive_jvps[p]` reads it back (KeyError when `p` has none), `p in primitive_jvps`
and `primitive_jvps.get(p)` work, `del` removes the rule. A view may translate between JAX's
signature and pyjax's (`batching.primitive_batchers` does).
"""
from __future__ import annotations

from collections.abc import MutableMapping

from pyjax._src import core
from pyjax._src.core import Primitive


def _no_change(prim, rule):
    return rule


class RuleTable(MutableMapping):
    """The `kind` rules (a `Primitive` attribute: "jvp", "transpose", "batch", ...) of every
    primitive, as a mapping. `to_primitive(prim, rule)` turns an assigned rule into the one
    stored on the primitive; `from_primitive(prim, stored)` turns a stored rule back into the
    table's form, or None when the table does not hold it.

        >>> ad.primitive_jvps[my_p] = my_jvp_rule
        >>> my_p.jvp is my_jvp_rule
        True
    """

    def __init__(self, name: str, kind: str, to_primitive=_no_change, from_primitive=_no_change):
        self.name = name
        self.kind = kind
        self._to_primitive = to_primitive
        self._from_primitive = from_primitive

    def _rule(self, prim):
        if not isinstance(prim, Primitive):
            return None
        stored = getattr(prim, self.kind)
        return None if stored is None else self._from_primitive(prim, stored)

    def __getitem__(self, prim):
        rule = self._rule(prim)
        if rule is None:
            raise KeyError(prim)
        return rule

    def __contains__(self, prim):
        return self._rule(prim) is not None

    def __setitem__(self, prim, rule):
        if not isinstance(prim, Primitive):
            raise TypeError(f"{self.name}: keys are Primitives, got {prim!r} of type "
                            f"{type(prim).__name__}")
        if not callable(rule):
            raise TypeError(f"{self.name}[{prim}]: the rule must be callable, got {rule!r}")
        setattr(prim, self.kind, self._to_primitive(prim, rule))

    def __delitem__(self, prim):
        self[prim]  # KeyError when there is nothing to delete
        setattr(prim, self.kind, None)

    def __iter__(self):
        # NB: primitives are not registered anywhere (each rule lives on its primitive), so
        # iterating walks the live objects: slow, meant for inspection, not for dispatch.
        return iter([p for p in core.all_primitives() if p in self])

    def __len__(self):
        return sum(1 for _ in self)

    def __repr__(self):
        return f"<{self.name}: a view of each Primitive's {self.kind!r} rule>"
