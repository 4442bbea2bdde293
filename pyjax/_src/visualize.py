"""`pyjax.visualize(f, *args, **kwargs)`: the jaxpr of `f` as a graph (pyjax-only).

One node per equation, labelled with its primitive, a summary of its parameters, the shapes and
dtypes of its outputs and XLA's cost estimate for it (flops, bytes accessed); one node per input
(named by its path in the arguments, `params['w']`), per captured constant and per output; edges
for data flow. Equations holding jaxprs (jit, scan, cond, while, custom_jvp...) are drawn with
their bodies as clusters.

Costs: each equation is lowered on its own, as a one-primitive StableHLO module over its
operands' types, and XLA's HLO cost analysis (the unoptimized module's: no compilation) gives its
flops and bytes accessed; cached per (primitive, parameters, types). An equation holding a body
reports the cost of its whole body as XLA counts it: a while/scan body once, not times its trip
count. The whole function's estimate, from its own module, is `Graph.total_cost`.

The DOT text is always available (`Graph.dot`); `Graph.svg()` (and the notebook rendering
`_repr_html_`) need Graphviz: the `dot` program, or the `graphviz` Python package with it.
"""
from __future__ import annotations

import inspect
import shutil
import subprocess

import numpy as np

from pyjax._src import core, pjit, tree_util
from pyjax._src.backend import xla
from pyjax._src.lowering.lower import lower_jaxpr_to_module

_PARAM_CHARS = 40   # a parameter's value is cut to this many characters in a label
_MAX_PARAMS = 4     # at most this many parameters per label


class Graph:
    """What `visualize` returns: `.dot` (Graphviz DOT text), `.svg()`, `.jaxpr`, per-equation
    `.costs` (in the order of the nodes `n0`, `n1`, ...; nested bodies included) and
    `.total_cost` (XLA's estimate for the whole function)."""

    def __init__(self, jaxpr, dot, costs, total_cost):
        self.jaxpr = jaxpr
        self.dot = dot
        self.costs = costs
        self.total_cost = total_cost

    def svg(self) -> str:
        """The graph rendered as SVG by Graphviz."""
        return render(self.dot, "svg")

    def _repr_html_(self):
        try:
            return self.svg()
        except RuntimeError as e:
            return f"<pre>{_html_escape(str(e))}\n\n{_html_escape(self.dot)}</pre>"

    def __repr__(self):
        return f"<pyjax.visualize graph: {len(self.costs)} equations; .dot, .svg()>"


def visualize(fun, *args, **kwargs) -> Graph:
    """The jaxpr of `fun(*args, **kwargs)` as a graph with XLA's cost per operation.

    >>> import pyjax, pyjax.numpy as jnp
    >>> g = pyjax.visualize(lambda w, x: jnp.tanh(x @ w).sum(), jnp.ones((3, 2)), jnp.ones((4, 3)))
    >>> g.dot.splitlines()[0]
    'digraph jaxpr {'
    >>> [c["primitive"] for c in g.costs]
    ['dot_general', 'tanh', 'reduce_sum']
    """
    traced = pjit.jit(fun).trace(*args, **kwargs)
    closed = traced.jaxpr
    names = _input_names(fun, args, kwargs)
    builder = _DotBuilder()
    builder.top(closed, names)
    return Graph(closed, builder.text(), builder.costs, _total_cost(traced))


def render(dot: str, fmt: str = "svg") -> str:
    """Render DOT text with Graphviz (`dot` on PATH, or the `graphviz` package)."""
    exe = shutil.which("dot")
    if exe is not None:
        done = subprocess.run([exe, f"-T{fmt}"], input=dot, capture_output=True, text=True,
                              timeout=60)
        if done.returncode != 0:
            raise RuntimeError(f"Graphviz's dot failed: {done.stderr.strip()}")
        return done.stdout
    try:
        import graphviz  # noqa: PLC0415 - an optional extra
    except ImportError:
        raise RuntimeError(
            "Rendering needs Graphviz: install the `dot` program (e.g. apt install graphviz) "
            "or the `graphviz` Python package with it. The DOT text is in `.dot`.") from None
    return graphviz.Source(dot).pipe(format=fmt, encoding="utf-8")


# -- building the DOT text -----------------------------------------------------------------------


class _DotBuilder:
    def __init__(self):
        self.lines = []
        self.costs = []
        self._ids = 0
        self._clusters = 0

    def fresh(self, prefix):
        self._ids += 1
        return f"{prefix}{self._ids}"

    def node(self, nid, label, indent, **attrs):
        extra = "".join(f", {k}={v}" for k, v in attrs.items())
        self.lines.append(f'{indent}{nid} [label="{_escape(label)}"{extra}];')

    def edge(self, src, dst, indent, **attrs):
        extra = " [" + ", ".join(f"{k}={v}" for k, v in attrs.items()) + "]" if attrs else ""
        self.lines.append(f"{indent}{src} -> {dst}{extra};")

    def top(self, closed, names):
        env = {}
        indent = "  "
        for i, v in enumerate(closed.jaxpr.invars):
            nid = f"in{i}"
            label = (names[i] if names and i < len(names) and names[i] else f"arg{i}")
            self.node(nid, f"{label}\n{v.aval.str_short()}", indent, shape="ellipse",
                      style="filled", fillcolor='"#dbeafe"')
            env[v] = nid
        for i, (v, c) in enumerate(zip(closed.jaxpr.constvars, closed.consts, strict=True)):
            nid = f"const{i}"
            self.node(nid, f"constant\n{v.aval.str_short()}", indent, shape="ellipse",
                      style="filled", fillcolor='"#f3f4f6"')
            env[v] = nid
        self.body(closed.jaxpr, env, indent)
        for i, v in enumerate(closed.jaxpr.outvars):
            nid = f"out{i}"
            self.node(nid, f"output {i}\n{v.aval.str_short()}", indent, shape="ellipse",
                      style="filled", fillcolor='"#dcfce7"')
            src = env.get(v) if isinstance(v, core.Var) else None
            if src is not None:
                self.edge(src, nid, indent)

    def body(self, jaxpr, env, indent):
        for eqn in jaxpr.eqns:
            nid = f"n{len(self.costs)}"
            cost = _eqn_cost(eqn)
            self.costs.append({"node": nid, "primitive": eqn.primitive.name,
                               "out_avals": [v.aval.str_short() for v in eqn.outvars], **cost})
            self.node(nid, _eqn_label(eqn, cost), indent, shape="box", style='"rounded,filled"',
                      fillcolor='"#fef3c7"' if _sub_jaxprs(eqn) else '"#ffffff"')
            for v in eqn.invars:
                src = env.get(v) if isinstance(v, core.Var) else None
                if src is not None:
                    self.edge(src, nid, indent)
            for v in eqn.outvars:
                env[v] = nid
            for what, sub in _sub_jaxprs(eqn):
                self.cluster(nid, eqn, what, sub, indent)

    def cluster(self, owner, eqn, what, sub, indent):
        self._clusters += 1
        name = f"cluster_{self._clusters}"
        inner = indent + "  "
        self.lines.append(f"{indent}subgraph {name} {{")
        self.lines.append(f'{inner}label="{_escape(f"{eqn.primitive.name}: {what}")}";')
        self.lines.append(f"{inner}style=dashed; color=gray40;")
        jaxpr = sub.jaxpr if isinstance(sub, core.ClosedJaxpr) else sub
        env = {}
        first = None
        for v in list(jaxpr.constvars) + list(jaxpr.invars):
            nid = self.fresh("p")
            self.node(nid, v.aval.str_short(), inner, shape="ellipse", fontsize=9)
            env[v] = nid
            first = first or nid
        self.body(jaxpr, env, inner)
        result = self.fresh("r")
        self.node(result, "results", inner, shape="point")
        for v in jaxpr.outvars:
            src = env.get(v) if isinstance(v, core.Var) else None
            if src is not None:
                self.edge(src, result, inner)
        self.lines.append(f"{indent}}}")
        self.edge(owner, first or result, indent, style="dashed", lhead=name,
                  arrowhead="odot", color="gray40")

    def text(self) -> str:
        head = ["digraph jaxpr {", "  compound=true;", "  rankdir=TB;",
                '  node [fontname="Helvetica", fontsize=10];']
        return "\n".join(head + self.lines + ["}"]) + "\n"


def _sub_jaxprs(eqn):
    """(what, jaxpr) for each jaxpr among the equation's parameters."""
    out = []
    for k, v in eqn.params.items():
        if isinstance(v, (core.ClosedJaxpr, core.Jaxpr)):
            out.append((k, v))
        elif isinstance(v, (tuple, list)) and v and all(
                isinstance(x, (core.ClosedJaxpr, core.Jaxpr)) for x in v):
            out += [(f"{k}[{i}]", x) for i, x in enumerate(v)]
    return out


def _eqn_label(eqn, cost) -> str:
    lines = [eqn.primitive.name]
    shown = 0
    for k, v in eqn.params.items():
        if shown >= _MAX_PARAMS or _is_jaxpr_param(v) or callable(v):
            continue
        text = repr(v)
        if len(text) > _PARAM_CHARS:
            text = text[:_PARAM_CHARS - 3] + "..."
        lines.append(f"{k}={text}")
        shown += 1
    lines.append("-> " + ", ".join(v.aval.str_short() for v in eqn.outvars))
    if cost.get("flops") is not None:
        lines.append(f"flops {_si(cost['flops'])}, bytes {_si(cost['bytes accessed'])}")
    return "\n".join(lines)


def _is_jaxpr_param(v):
    if isinstance(v, (core.ClosedJaxpr, core.Jaxpr)):
        return True
    return isinstance(v, (tuple, list)) and bool(v) and isinstance(v[0], (core.ClosedJaxpr, core.Jaxpr))


def _si(x) -> str:
    x = float(x)
    for unit, scale in (("G", 1e9), ("M", 1e6), ("k", 1e3)):
        if abs(x) >= scale:
            return f"{x / scale:.3g}{unit}"
    return f"{x:.3g}"


def _escape(text: str) -> str:
    return text.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n")


def _html_escape(text: str) -> str:
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def _input_names(fun, args, kwargs):
    leaves, in_tree = tree_util.tree_flatten((args, kwargs))
    try:
        params = list(inspect.signature(fun).parameters.values())
    except (TypeError, ValueError):
        params = []
    positional = [p for p in params if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
    var_pos = next((p.name for p in params if p.kind == p.VAR_POSITIONAL), "args")
    var_kw = next((p.name for p in params if p.kind == p.VAR_KEYWORD), None)
    return pjit._arg_origins(positional, args, kwargs, in_tree, (), var_pos, var_kw)


# -- costs ---------------------------------------------------------------------------------------

_cost_cache: dict = {}


def _eqn_cost(eqn) -> dict:
    """XLA's estimate for one equation lowered alone: {'flops', 'bytes accessed'} (None each
    when it cannot be lowered alone, e.g. an effect needing a token)."""
    try:
        key = (eqn.primitive, tuple(sorted((k, _hashable(v)) for k, v in eqn.params.items())),
               tuple(_operand_key(v) for v in eqn.invars))
        hash(key)
    except TypeError:
        key = None
    if key is not None and key in _cost_cache:
        return _cost_cache[key]
    cost = _compute_cost(eqn)
    if key is not None:
        _cost_cache[key] = cost
    return cost


def _operand_key(v):
    if isinstance(v, core.Literal):
        return ("lit", repr(v.val), v.aval)
    return v.aval


def _hashable(v):
    if isinstance(v, np.ndarray):
        return (v.dtype.str, v.shape, v.tobytes())
    if isinstance(v, list):
        return tuple(_hashable(x) for x in v)
    if isinstance(v, dict):
        return tuple(sorted((k, _hashable(x)) for k, x in v.items()))
    return v


def _compute_cost(eqn) -> dict:
    invars = [core.Var(v.aval) if isinstance(v, core.Var) else v for v in eqn.invars]
    outvars = [core.Var(v.aval) for v in eqn.outvars]
    one = eqn._replace(invars=invars, outvars=outvars)
    jaxpr = core.Jaxpr([], [v for v in invars if isinstance(v, core.Var)], outvars, [one])
    try:
        text, _ = lower_jaxpr_to_module("eqn", jaxpr, platform=_platform(), num_replicas=1,
                                        num_partitions=1)
        found = xla.module_cost_analysis(text, xla.devices()[0])
    except Exception:  # noqa: BLE001 - a cost is a courtesy: shown as unknown
        return {"flops": None, "bytes accessed": None}
    return {"flops": float(found.get("flops", 0.0)),
            "bytes accessed": float(found.get("bytes accessed", 0.0))}


def _platform():
    return xla.devices()[0].platform


def _total_cost(traced) -> dict | None:
    try:
        found = traced.lower().cost_analysis()
    except Exception:  # noqa: BLE001 - as above
        return None
    return {"flops": float(found.get("flops", 0.0)),
            "bytes accessed": float(found.get("bytes accessed", 0.0))}
