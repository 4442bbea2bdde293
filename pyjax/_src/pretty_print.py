"""Print jaxprs the way JAX does: `{ lambda ; a:f32[2,3]. let b:f32[2,3] = sin a in (b,) }`."""
import numpy as np

from pyjax._src import core

_LETTERS = "abcdefghijklmnopqrstuvwxyz"


def _var_name(n: int) -> str:
    s = ""
    while True:
        s = _LETTERS[n % 26] + s
        n //= 26
        if n == 0:  # base 26 with digits a..z, so names go a..z, ba..bz, ca.. as in JAX
            return s


class _Names:
    def __init__(self):
        self.names = {}

    def __call__(self, v):
        if isinstance(v, core.Literal):
            return _pp_literal(v)
        name = self.names.get(v)
        if name is None:
            name = self.names[v] = _var_name(len(self.names))
        return name

    def binder(self, v):
        return f"{self(v)}:{v.aval.str_short()}"


def _pp_literal(lit):
    val = np.asarray(lit.val)
    if val.dtype == np.bool_:
        s = "True" if val else "False"
    elif np.issubdtype(val.dtype, np.integer):
        s = str(int(val))
    else:
        s = repr(val.item()) if np.issubdtype(val.dtype, np.complexfloating) else str(val.item())
    return f"{s}:{lit.aval.str_short()}"


def _pp_param(v, names, indent):
    if isinstance(v, core.ClosedJaxpr):
        v = v.jaxpr
    if isinstance(v, core.Jaxpr):
        return _pp_jaxpr(v, _Names(), indent + 2, force_multiline=True)
    if isinstance(v, (tuple, list)) and v and all(isinstance(x, (core.Jaxpr, core.ClosedJaxpr)) for x in v):
        return "(\n" + "".join(" " * (indent + 2) + _pp_param(x, names, indent + 2) + "\n" for x in v) + " " * indent + ")"
    if isinstance(v, np.dtype):
        return v.name
    if isinstance(v, type) and issubclass(v, np.generic):
        return np.dtype(v).name
    return str(v)


def _pp_eqn(eqn, names, indent):
    outs = " ".join(names.binder(v) for v in eqn.outvars)
    params = ""
    if eqn.params:
        params = "[" + " ".join(f"{k}={_pp_param(v, names, indent)}"
                                for k, v in sorted(eqn.params.items())) + "]"
    args = " ".join(names(v) for v in eqn.invars)
    return f"{outs} = {eqn.primitive.name}{params} {args}".rstrip()


def _pp_jaxpr(jaxpr, names, indent=0, force_multiline=False):
    consts = " ".join(names.binder(v) for v in jaxpr.constvars)
    args = " ".join(names.binder(v) for v in jaxpr.invars)
    eqns = [_pp_eqn(e, names, indent + 4) for e in jaxpr.eqns]
    outs = "(" + "".join(f"{names(v)}, " for v in jaxpr.outvars).rstrip(" ") + ")"
    if len(jaxpr.outvars) > 1:
        outs = "(" + ", ".join(names(v) for v in jaxpr.outvars) + ")"
    head = f"{{ lambda {consts}; {args}. let"
    one_line = f"{head} {' ; '.join(eqns)} in {outs} }}" if eqns else f"{head}  in {outs} }}"
    if not force_multiline and len(eqns) <= 1 and len(one_line) <= 80 and "\n" not in one_line:
        return one_line
    pad = " " * (indent + 4)
    body = "".join(f"\n{pad}{e}" for e in eqns)
    return f"{head}{body}\n{' ' * (indent + 2)}in {outs} }}"


def pp_jaxpr(jaxpr) -> str:
    return _pp_jaxpr(jaxpr, _Names())
