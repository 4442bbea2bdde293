"""Print jaxprs the way JAX 0.10.2 does: `{ lambda ; a:f32[3]. let b:f32[3] = sin a in (b,) }`.

Three layers:

- a small Wadler-Lindig document printer (`_text`, `_brk`, `_group`, `_nest`, `_format`): a group
  prints on one line if it fits in the width, otherwise its breaks become newlines;
- the jaxpr layout built from those documents, with one naming context for the whole printout
  (names continue across nested jaxprs; unused top-level results print as `_`; a sub-jaxpr used
  more than once, or longer than ten equations, is printed once up front as `let name = ... in`);
- per-primitive rules that choose which params an equation shows and in what order (`PP_RULES`).
  By default the params are shown sorted by name, as JAX does.

NB: JAX registers each primitive's printing rule beside the primitive. Here the rules sit
together at the end of this module, keyed by primitive name, so the printer (a core-level
module) needs nothing from the layers above it.
"""
from __future__ import annotations

import inspect
import itertools
import re
from collections import Counter

import numpy as np

from pyjax._src import core, dtypes

WIDTH = 80

# --------------------------------------------------------------------------------------------
# Documents and the layout algorithm


class _Text:
    __slots__ = ("text",)

    def __init__(self, text):
        self.text = text


class _Break:
    """A space (or other text) when its group is flat; a newline plus indentation otherwise."""
    __slots__ = ("text",)

    def __init__(self, text):
        self.text = text


class _Concat:
    __slots__ = ("children",)

    def __init__(self, children):
        self.children = children


class _Nest:
    __slots__ = ("n", "child")

    def __init__(self, n, child):
        self.n, self.child = n, child


class _Group:
    __slots__ = ("child",)

    def __init__(self, child):
        self.child = child


_NIL = _Concat(())


def _text(s):
    return _Text(s)


def _brk(s=" "):
    return _Break(s)


def _concat(*docs):
    return _Concat(docs)


def _nest(n, doc):
    return _Nest(n, doc)


def _group(doc):
    return _Group(doc)


def _join(sep, docs):
    docs = list(docs)
    if not docs:
        return _NIL
    out = [docs[0]]
    for d in docs[1:]:
        out += [sep, d]
    return _Concat(out)


_FLAT, _BREAK = 0, 1


def _fits(doc, room) -> bool:
    """Whether `doc`, printed flat, takes at most `room` columns. Only the group itself is
    measured, not what follows it on the line (as in JAX's printer)."""
    stack = [doc]
    while stack and room >= 0:
        d = stack.pop()
        t = type(d)
        if t is _Text or t is _Break:
            room -= len(d.text)
        elif t is _Concat:
            stack.extend(reversed(d.children))
        else:  # _Nest, _Group: flat either way
            stack.append(d.child)
    return room >= 0


def _format(doc, width=WIDTH) -> str:
    out = []
    col = 0
    stack = [(0, _BREAK, doc)]
    while stack:
        indent, mode, d = stack.pop()
        t = type(d)
        if t is _Text:
            out.append(d.text)
            col += len(d.text)
        elif t is _Concat:
            stack.extend((indent, mode, c) for c in reversed(d.children))
        elif t is _Break:
            if mode == _BREAK:
                out.append("\n" + " " * indent)
                col = indent
            else:
                out.append(d.text)
                col += len(d.text)
        elif t is _Nest:
            stack.append((indent + d.n, mode, d.child))
        else:  # _Group
            flat = mode == _FLAT or _fits(d.child, width - col)
            stack.append((indent, _FLAT if flat else _BREAK, d.child))
    return "".join(out)


# --------------------------------------------------------------------------------------------
# Naming


def _var_name(n: int) -> str:
    """0 -> a, 25 -> z, 26 -> ba, ...: base 26 with the digits a..z, as JAX names variables."""
    s = ""
    while True:
        n, i = divmod(n, 26)
        s = chr(ord("a") + i) + s
        if n == 0:
            return s


class _Context:
    """One naming context for a whole printout, so names never restart inside sub-jaxprs."""

    def __init__(self, names):
        self.names = dict(names)
        self.shared = {}            # a sub-jaxpr printed once up front -> its name
        self.reserved = set()       # the shared jaxprs' names, never used for variables
        self._counter = itertools.count()

    def name(self, v) -> str:
        name = self.names.get(v)
        if name is None:
            name = _var_name(next(self._counter))
            while name in self.reserved:
                name = _var_name(next(self._counter))
            self.names[v] = name
        return name

    def suggest_same_names(self, inner, outer):
        """Give the not-yet-named variables `inner` of a sub-jaxpr the names of the `outer`
        atoms they stand for (a jit's invars are its operands, its outvars its results)."""
        if len(inner) != len(outer):
            return
        used = set()
        for v_in, v_out in zip(inner, outer):
            if (type(v_out) is not core.Literal and v_out not in used
                    and type(v_in) is not core.Literal and v_in not in self.names):
                used.add(v_out)
                self.names[v_in] = self.name(v_out)


def _literal_str(lit) -> str:
    if np.shape(lit.val):
        return f"[...]:{lit.aval.str_short()}"
    dtype = None if dtypes.is_float0(lit.aval.dtype) else lit.aval.dtype
    val = np.asarray(lit.val, dtype=dtype).item()  # a Python float prints as its f32 value
    return f"{val}:{lit.aval.str_short()}"


def _atom(v, ctx) -> str:
    return _literal_str(v) if type(v) is core.Literal else ctx.name(v)


def _pp_vars(vs, ctx, *, sep="", shapes=False):
    items = [_text(f"{_atom(v, ctx)}:{v.aval.str_short()}" if shapes else _atom(v, ctx)) for v in vs]
    return _nest(2, _group(_join(_concat(_text(sep), _group(_brk())), items)))


# --------------------------------------------------------------------------------------------
# Jaxprs and equations


def _pp_value(v, ctx):
    if isinstance(v, core.ClosedJaxpr):
        v = v.jaxpr
    if isinstance(v, core.Jaxpr):
        return _pp_jaxpr(v, ctx)
    if type(v) is tuple and all(isinstance(j, (core.Jaxpr, core.ClosedJaxpr)) for j in v):
        return _group(_concat(
            _nest(2, _concat(_text("("), _brk(""), _join(_brk(), [_pp_value(j, ctx) for j in v]))),
            _brk(""), _text(")")))
    if isinstance(v, frozenset):
        return _text("frozenset({" + ", ".join(repr(e) for e in sorted(v)) + "})")
    if isinstance(v, type) and issubclass(v, np.generic):
        # NB: a few pyjax params hold a NumPy scalar type where JAX holds its dtype
        v = np.dtype(v)
    # object addresses change from run to run, so they print masked (as in JAX)
    return _text(re.sub(r" at 0x([0-9a-fA-F]+)", lambda m: " at 0x" + "X" * len(m.group(1)), str(v)))


def _pp_params(items, ctx):
    if not items:
        return _NIL
    pairs = [_concat(_text(f"{k}="), _pp_value(v, ctx)) for k, v in items]
    return _group(_concat(_nest(2, _concat(_text("["), _brk(""), _join(_brk(), pairs))),
                          _brk(""), _text("]")))


# Equations printed in a syntax of their own, filled by upper layers: state's `b <- a[0:2]`.
# `printer(eqn, atom, typed) -> str`, `atom(v)` / `typed(v)` naming a variable (with its type).
EQN_PRINTERS: dict = {}


def _pp_eqn(eqn, ctx):
    printer = EQN_PRINTERS.get(eqn.primitive.name)
    if printer is not None:
        return _text(printer(eqn, lambda v: _atom(v, ctx),
                             lambda v: f"{_atom(v, ctx)}:{v.aval.str_short()}"))
    rule = PP_RULES.get(eqn.primitive.name)
    items = rule(eqn, ctx) if rule else sorted(eqn.params.items())
    # the order matters: the results are named before the sub-jaxprs' variables
    lhs = _pp_vars(eqn.outvars, ctx, shapes=True) if eqn.outvars else None
    rhs = [_text(eqn.primitive.name), _pp_params(items, ctx),
           _concat(_text(" "), _pp_vars(eqn.invars, ctx))]
    return _concat(lhs, _text(" = "), *rhs) if lhs is not None else _concat(*rhs)


def _pp_skeleton(jaxpr, ctx):
    constvars = _pp_vars(jaxpr.constvars, ctx, shapes=True)
    invars = _pp_vars(jaxpr.invars, ctx, shapes=True)
    eqns = _join(_brk("; "), [_pp_eqn(e, ctx) for e in jaxpr.eqns])
    outvars = _concat(_text("("), _pp_vars(jaxpr.outvars, ctx, sep=","),
                      _text(",)" if len(jaxpr.outvars) == 1 else ")"))
    return _group(_concat(_nest(2, _concat(
        _text("{ lambda "), constvars, _text("; "), invars, _text(". let"),
        _nest(2, _concat(_brk(), eqns)), _brk(), _text("in "), outvars)), _text(" }")))


def _pp_jaxpr(jaxpr, ctx):
    name = ctx.shared.get(jaxpr)
    return _text(name) if name is not None else _pp_skeleton(jaxpr, ctx)


def _sub_jaxprs(params):
    for v in params.values():
        for x in (v if isinstance(v, tuple) else (v,)):
            if isinstance(x, core.ClosedJaxpr):
                yield x.jaxpr
            elif isinstance(x, core.Jaxpr):
                yield x


def _unused_results(jaxpr) -> dict:
    """The top-level equations' results nothing reads, which print as `_`."""
    used = {v for v in jaxpr.outvars if type(v) is not core.Literal}
    unused = {}
    for eqn in reversed(jaxpr.eqns):
        unused.update((v, "_") for v in eqn.outvars if v not in used)
        used.update(v for v in eqn.invars if type(v) is not core.Literal)
    return unused


def _find_shared(top):
    """Sub-jaxprs met more than once (long ones count twice), with names from the `name`
    param of the equation holding them (`<lambda>` -> `lambda`), else `jaxpr`; repeated names
    get a counter."""
    counts, names = Counter(), {}
    queue = [top]
    for jaxpr in queue:  # breadth first; the queue grows as we go
        counts[jaxpr] += 1 + (jaxpr is not top and len(jaxpr.eqns) > 10)
        for eqn in jaxpr.eqns:
            name = eqn.params.get("name")
            for sub in _sub_jaxprs(eqn.params):
                queue.append(sub)
                if isinstance(name, str):
                    names.setdefault(sub, name.strip("<>"))
    name_counts, shared = Counter(), {}
    for jaxpr, c in counts.items():
        if c == 1:
            continue
        name = names.get(jaxpr, "jaxpr")
        if name_counts[name]:
            name_counts[name] += 1
            name += str(name_counts[name] - 1)
        name_counts[name] += 1
        shared[jaxpr] = name
    return shared


def pp_jaxpr(jaxpr, width: int = WIDTH) -> str:
    """The printout of `jaxpr` (what `str(make_jaxpr(f)(x))` shows)."""
    ctx = _Context(_unused_results(jaxpr))
    ctx.shared = _find_shared(jaxpr)
    ctx.reserved = set(ctx.shared.values())
    docs = [_concat(_text(f"let {name} = "), _pp_skeleton(j, ctx), _text(" in"), _brk())
            for j, name in ctx.shared.items()]
    docs.append(_pp_jaxpr(jaxpr, ctx))
    return _format(_Concat(docs), width)


# --------------------------------------------------------------------------------------------
# Per-primitive rules: eqn -> the (name, value) params to show, in order


def _jit_rule(eqn, ctx):
    jaxpr = eqn.params["jaxpr"]
    jaxpr = jaxpr.jaxpr if isinstance(jaxpr, core.ClosedJaxpr) else jaxpr
    if jaxpr not in ctx.shared:  # inside, the operands and results keep their outside names
        ctx.suggest_same_names(jaxpr.invars, eqn.invars)
        ctx.suggest_same_names(jaxpr.outvars, eqn.outvars)
    rest = [(k, v) for k, v in sorted(eqn.params.items())
            if k != "name" and not (k == "donated_invars" and not any(v or ()))]
    return [("name", eqn.params["name"])] + rest


def _closure_vars(fn) -> dict:
    """The variables a (possibly wrapped) function closes over, by name."""
    fn = inspect.unwrap(fn)
    code, cells = getattr(fn, "__code__", None), getattr(fn, "__closure__", None) or ()
    out = {}
    for name, cell in zip(code.co_freevars if code else (), cells):
        try:
            out[name] = cell.cell_contents
        except ValueError:  # an empty cell
            pass
    return out


def _custom_call_rule(*rules):
    """custom_jvp_call / custom_vjp_call: `name=` first, then the params sorted, the rules shown
    by the names of the user's functions, `num_consts` only when nonzero.

    NB: JAX keeps those names in the params' debug info. pyjax's rule params are closures
    (`flat_jvp`, ...) over the decorated function's `name` and the user's `user_jvp`/`user_fwd`/
    `user_bwd`; when they are not found the closure's own name prints."""
    def rule(eqn, ctx):
        params = {k: v for k, v in eqn.params.items()
                  if not (k == "num_consts" and not v) and k != "out_trees"}
        name = params.pop("name", None)
        for r in rules:
            if r in params:
                env = _closure_vars(params[r])
                name = name or env.get("name")
                user = env.get(f"user_{r}", params[r])
                params[r] = getattr(user, "__name__", user)
        return ([("name", name)] if isinstance(name, str) else []) + sorted(params.items())
    return rule


def _dot_general_rule(eqn, ctx):
    (lc, rc), (lb, rb) = eqn.params["dimension_numbers"]
    dims = ((list(lc), list(rc)), (list(lb), list(rb)))  # lists print shorter than tuples
    return [(k, dims if k == "dimension_numbers" else v) for k, v in sorted(eqn.params.items())
            if v is not None and k != "out_sharding"]


def _broadcast_in_dim_rule(eqn, ctx):
    # the shape (and sharding) show in the result's type; no dimensions is the common case
    return [(k, v) for k, v in sorted(eqn.params.items())
            if k not in ("shape", "sharding") and not (k == "broadcast_dimensions" and not v)]


PP_RULES = {
    "jit": _jit_rule,
    "custom_jvp_call": _custom_call_rule("jvp"),
    "custom_vjp_call": _custom_call_rule("fwd", "bwd"),
    "dot_general": _dot_general_rule,
    "broadcast_in_dim": _broadcast_in_dim_rule,
    "convert_element_type": lambda eqn, ctx: [(k, v) for k, v in sorted(eqn.params.items()) if k != "sharding"],
    "reshard": lambda eqn, ctx: [],  # its result's type says the layout
}


core.jaxpr_printer[0] = pp_jaxpr
