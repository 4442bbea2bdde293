"""Symbolic dimensions for exporting shape-polymorphic functions (`jax.export.symbolic_shape`).

A `DimExpr` is a polynomial with integer coefficients over dimension variables (`b`, `n`...)
and a few non-polynomial atoms (`floordiv(e, k)`, `mod(e, k)`, `max(e1, e2)`, `min(e1, e2)`).
Shape rules treat it like an int through its operators: `+ - * // %` give DimExprs (ints when
the result is constant), `==` is True only when the two are identical polynomials (as JAX),
`<`/`<=`/`>`/`>=` are decided from bounds (every variable is ≥ 1, or what the constraints say)
and raise `InconclusiveDimensionOperation` when the bounds do not decide. Using one where a
constant is required (`int(b)`, `range(b)`) raises the same error.

Lowering: a symbolic dimension prints as `?` in a tensor type; `emit_dim` computes its value
(a `tensor<i32>`) from the dimension variables' values, which the export lowering reads from its
arguments with `stablehlo.get_dimension_size`.

    >>> b, = symbolic_shape("b")
    >>> (2 * b + 4) // 2
    b + 2
"""
from __future__ import annotations

import itertools
import math
import io
import re
import tokenize
from typing import Any

import numpy as np

from pyjax._src import core, dtypes, tree_util
from pyjax._src.array import ShapeDtypeStruct
from pyjax._src.lowering import lower, mlir
from pyjax._src.errors import InconclusiveDimensionOperation as _BaseInconclusive


class InconclusiveDimensionOperation(_BaseInconclusive):
    """A symbolic dimension comparison or conversion whose result is not the same for every
    value of the dimension variables."""


_INF = math.inf


class UnexpectedDimVar(Exception):
    """A dimension variable (of a constraint) that no argument's shape has: it has no value."""


class SymbolicScope:
    """Where dimension variables live, with the constraints relating them. Expressions from
    different scopes cannot be mixed.

    >>> scope = SymbolicScope(["b >= 2"]); b, = symbolic_shape("b", scope=scope)
    """

    def __init__(self, constraints_str=()):
        if isinstance(constraints_str, str):
            raise ValueError("The symbolic constraints should be a sequence of strings. "
                             f"Got {constraints_str!r}")
        self._constraints_str = tuple(constraints_str)
        self._bounds: dict[str, tuple[float, float]] = {}   # variable -> (lo, hi)
        self._exprs: list = []    # constraints on expressions: (expr, lo, hi) with lo <= expr <= hi
        self._explicit: list = []  # each constraint as (">=" or "==", e1 - e2, its text)
        for c in self._constraints_str:
            self._add_constraint(c)

    def _add_constraint(self, text):
        m = re.fullmatch(r"\s*(.+?)\s*(>=|<=|==)\s*(.+?)\s*", text)
        if not m:
            raise ValueError(f"Constraint parsing error: '{text}' is not of the form "
                             "'e1 >= e2', 'e1 <= e2' or 'e1 == e2'")
        lhs, op, rhs = _parse_dim(m.group(1), self, text), m.group(2), _parse_dim(m.group(3), self, text)
        diff = lhs - rhs if op != "<=" else rhs - lhs
        if isinstance(diff, int):
            raise ValueError(f"Constraint '{text}' involves no dimension variables")
        hi = 0 if op == "==" else _INF
        self._explicit.append((">=" if op != "==" else "==", diff, text.strip()))
        var = diff._single_var()
        if var is not None:  # c*v + k >= 0 with c = ±1: a bound on v
            (coeff, k) = var[1], var[2]
            lo_v, hi_v = self._bounds.get(var[0], (1, _INF))
            if coeff == 1:
                lo_v = max(lo_v, -k)
                hi_v = min(hi_v, -k) if op == "==" else hi_v
            else:
                hi_v = min(hi_v, k)
                lo_v = max(lo_v, k) if op == "==" else lo_v
            self._bounds[var[0]] = (lo_v, hi_v)
        else:
            self._exprs.append((diff, 0, hi))

    def __str__(self):
        return f"SymbolicScope({list(self._constraints_str)})"

    __repr__ = __str__


_default_scope = SymbolicScope()


# -- expressions --------------------------------------------------------------------------------
# A monomial is a sorted tuple of (atom, power); an atom is a variable name (str) or an
# (op, operand, operand) tuple; a DimExpr is a sorted tuple of (monomial, coefficient).


def _atom_key(atom):
    return (0, atom) if isinstance(atom, str) else (1, atom[0], str(atom[1]), str(atom[2]))


def _mono_key(mono):
    return tuple((_atom_key(a), p) for a, p in mono)


class DimExpr:
    """A symbolic dimension: see the module docstring."""

    __slots__ = ("_terms", "_scope", "_hash")
    # as a value (`x * x.shape[0]`), a dimension is a weakly typed int32 scalar
    dtype = np.dtype(np.int32)
    weak_type = True

    def __init__(self, terms, scope):
        self._terms = terms
        self._scope = scope
        self._hash = None

    @staticmethod
    def _make(terms: dict, scope):
        terms = {m: c for m, c in terms.items() if c != 0}
        if not terms:
            return 0
        if list(terms) == [()]:
            return int(terms[()])
        return DimExpr(tuple(sorted(terms.items(), key=lambda mc: _mono_key(mc[0]))), scope)

    @staticmethod
    def _var(name, scope):
        return DimExpr(((((name, 1),), 1),), scope)

    @staticmethod
    def _atom(atom, scope):
        return DimExpr(((((atom, 1),), 1),), scope)

    # -- structure ---------------------------------------------------------------------------

    def _single_var(self):
        """(name, coeff, const) if this is ±v + const, else None."""
        var_terms = [(m, c) for m, c in self._terms if m]
        if len(var_terms) != 1:
            return None
        (mono, c), = var_terms
        if len(mono) != 1 or mono[0][1] != 1 or not isinstance(mono[0][0], str) or abs(c) != 1:
            return None
        return mono[0][0], c, dict(self._terms).get((), 0)

    def _single_var_linear(self):
        """(name, k, c) if this is k*v + c for one variable v, else None."""
        var_terms = [(m, c) for m, c in self._terms if m]
        if len(var_terms) != 1:
            return None
        (mono, k), = var_terms
        if len(mono) != 1 or mono[0][1] != 1 or not isinstance(mono[0][0], str):
            return None
        return mono[0][0], k, dict(self._terms).get((), 0)

    def _as_var(self):
        """The variable name if this is exactly one variable, else None."""
        if len(self._terms) == 1 and self._terms[0][1] == 1:
            mono = self._terms[0][0]
            if len(mono) == 1 and mono[0][1] == 1 and isinstance(mono[0][0], str):
                return mono[0][0]
        return None

    def _variables(self) -> set:
        out = set()
        for mono, _ in self._terms:
            for atom, _p in mono:
                if isinstance(atom, str):
                    out.add(atom)
                else:
                    for x in atom[1:]:
                        if isinstance(x, DimExpr):
                            out |= x._variables()
        return out

    # -- arithmetic ---------------------------------------------------------------------------

    def _coerce(self, other):
        if isinstance(other, DimExpr):
            if other._scope is not self._scope:
                raise ValueError(f"Invalid mixing of symbolic scopes: '{self}' and '{other}' come "
                                 "from different SymbolicScopes")
            return other
        if isinstance(other, (int, np.integer)) and not isinstance(other, bool):
            return DimExpr._make({(): int(other)}, self._scope) if other else 0
        if isinstance(other, bool):
            return int(other)
        return None

    def _terms_of(self, x):
        return dict(x._terms) if isinstance(x, DimExpr) else ({(): x} if x else {})

    def __add__(self, other):
        o = self._coerce(other)
        if o is None:
            return NotImplemented
        terms = dict(self._terms)
        for m, c in self._terms_of(o).items():
            terms[m] = terms.get(m, 0) + c
        return DimExpr._make(terms, self._scope)

    __radd__ = __add__

    def __neg__(self):
        return DimExpr._make({m: -c for m, c in self._terms}, self._scope)

    def __sub__(self, other):
        o = self._coerce(other)
        if o is None:
            return NotImplemented
        return self + (-o)

    def __rsub__(self, other):
        o = self._coerce(other)
        if o is None:
            return NotImplemented
        return (-self) + o

    def __mul__(self, other):
        o = self._coerce(other)
        if o is None:
            return NotImplemented
        terms: dict = {}
        for (m1, c1), (m2, c2) in itertools.product(self._terms, self._terms_of(o).items()):
            m = _mono_mul(m1, m2)
            terms[m] = terms.get(m, 0) + c1 * c2
        return DimExpr._make(terms, self._scope)

    __rmul__ = __mul__

    def __pow__(self, power):
        if not isinstance(power, int) or power < 0:
            raise InconclusiveDimensionOperation(f"Symbolic dimension '{self}' raised to a "
                                                 f"non-constant or negative power {power}")
        out = 1
        for _ in range(power):
            out = self * out
        return out

    def __floordiv__(self, other):
        o = self._coerce(other)
        if o is None:
            return NotImplemented
        return _divmod(self, o)[0]

    def __rfloordiv__(self, other):
        o = self._coerce(other)
        if o is None:
            return NotImplemented
        return _divmod(o, self)[0]

    def __mod__(self, other):
        o = self._coerce(other)
        if o is None:
            return NotImplemented
        return _divmod(self, o)[1]

    def __rmod__(self, other):
        o = self._coerce(other)
        if o is None:
            return NotImplemented
        return _divmod(o, self)[1]

    def __divmod__(self, other):
        return self // other, self % other

    def __truediv__(self, other):
        q, r = _divmod(self, self._coerce(other))
        if isinstance(r, int) and r == 0:
            return q
        raise InconclusiveDimensionOperation(f"Symbolic dimension '{self}' is not divisible by "
                                             f"'{other}'")

    # -- comparisons -------------------------------------------------------------------------

    def __eq__(self, other):
        if isinstance(other, DimExpr) and other._scope is not self._scope:
            return False  # (caches compare avals of different exports)
        o = self._coerce(other)
        if o is None:
            return NotImplemented
        return isinstance(self - o, int) and self - o == 0

    def __ne__(self, other):
        eq = self.__eq__(other)
        return eq if eq is NotImplemented else not eq

    def __hash__(self):
        if self._hash is None:
            self._hash = hash(self._terms)
        return self._hash

    def _ge(self, other, what):
        o = self._coerce(other)
        if o is None:
            return NotImplemented
        lo, hi = _bounds(self - o)
        if lo >= 0:
            return True
        if hi < 0:
            return False
        raise InconclusiveDimensionOperation(
            f"Symbolic dimension comparison {what} is inconclusive.\nThis error arises for "
            "comparison operations with shapes that are non-constant, and the result of the "
            "operation cannot be represented as a boolean value for all values of the symbolic "
            "dimensions involved.")

    def __ge__(self, other):
        return self._ge(other, f"'{self}' >= '{other}'")

    def __gt__(self, other):
        return self._ge(other + 1 if not isinstance(other, DimExpr) else other + 1,
                        f"'{self}' > '{other}'")

    def __le__(self, other):
        o = self._coerce(other)
        return NotImplemented if o is None else _ge_any(o, self, f"'{self}' <= '{other}'")

    def __lt__(self, other):
        o = self._coerce(other)
        return NotImplemented if o is None else _ge_any(o, self + 1, f"'{self}' < '{other}'")

    # -- conversions -------------------------------------------------------------------------

    def _not_constant(self):
        return InconclusiveDimensionOperation(
            f"Symbolic dimension '{self}' used in a context that requires a constant")

    def __int__(self):
        raise self._not_constant()

    __index__ = __int__

    def __float__(self):
        raise self._not_constant()

    # (JAX's names, which `core.max_dim` / `core.min_dim` call)
    def max(self, other):
        return max_dim(self, other)

    def rmax(self, other):
        return max_dim(other, self)

    def min(self, other):
        return min_dim(self, other)

    def rmin(self, other):
        return min_dim(other, self)

    def __jax_array__(self):
        """The dimension's value as an int32 scalar array (inside the function exported)."""
        return dim_as_value(self)

    def __str__(self):
        parts = []
        for mono, c in reversed(self._terms):
            body = "*".join(_atom_str(a) + (f"^{p}" if p > 1 else "") for a, p in mono)
            if not mono:
                text = str(abs(c))
            elif abs(c) == 1:
                text = body
            else:
                text = f"{abs(c)}*{body}"
            parts.append(("- " if c < 0 else "") + text if not parts else
                         (" - " if c < 0 else " + ") + text)
        return "".join(parts)

    __repr__ = __str__

    def __reduce__(self):  # dims are values: pickling keeps the structure, not the scope
        return (_rebuild, (str(self),))


def _rebuild(text):
    return _parse_dim(text, _default_scope, text)


def _ge_any(a, b, what):
    if isinstance(a, DimExpr):
        return a._ge(b, what)
    if isinstance(b, DimExpr):
        return (-b + a)._ge(0, what)
    return a >= b


def _atom_str(atom):
    if isinstance(atom, str):
        return atom
    return f"{atom[0]}({atom[1]}, {atom[2]})"


def _mono_mul(m1, m2):
    powers: dict = {}
    for a, p in m1 + m2:
        powers[a] = powers.get(a, 0) + p
    return tuple(sorted(powers.items(), key=lambda ap: _atom_key(ap[0])))


def _divmod(a, b):
    """floordiv and mod of dims a, b (ints or DimExprs): exact when b divides every term."""
    if isinstance(b, int) and b == 0:
        raise InconclusiveDimensionOperation(f"Symbolic dimension '{a}' divided by 0")
    if not isinstance(a, DimExpr) and not isinstance(b, DimExpr):
        return a // b, a % b
    scope = (a if isinstance(a, DimExpr) else b)._scope
    if isinstance(b, int):
        terms = dict(a._terms)
        if all(c % b == 0 for c in terms.values()):
            return DimExpr._make({m: c // b for m, c in terms.items()}, scope), 0
    elif isinstance(a, DimExpr) and len(b._terms) == 1 and b._terms[0][0]:
        (bm, bc), = b._terms
        q = {}
        for m, c in a._terms:
            rest = _mono_div(m, bm)
            if rest is None or c % bc:
                break
            q[rest] = c // bc
        else:
            return DimExpr._make(q, scope), 0
    elif isinstance(a, DimExpr):
        exact = _poly_div(a, b, scope)
        if exact is not None:
            return exact, 0
    if a == b:
        return 1, 0
    q = DimExpr._atom(("floordiv", a, b), scope)
    r = DimExpr._atom(("mod", a, b), scope)
    return q, r


def _leading(e):
    """The leading (monomial, coefficient) of `e`: highest total degree, then by key."""
    return max(e._terms, key=lambda mc: (sum(p for _, p in mc[0]), _mono_key(mc[0])))


def _poly_div(a, b, scope):
    """`a / b` when the polynomial `b` divides `a` exactly (long division by leading terms),
    else None: `3*c^2 + 36*c + 60` by `c + 2` is `3*c + 30`."""
    lead_m, lead_c = _leading(b)
    q, rem = {}, a
    for _ in range(64):  # (a bound: the key order of same-degree monomials is not a monomial order)
        if not isinstance(rem, DimExpr):
            break
        m, c = _leading(rem)
        d = _mono_div(m, lead_m)
        if d is None or c % lead_c:
            return None
        q[d] = q.get(d, 0) + c // lead_c
        rem = rem - DimExpr._make({d: c // lead_c}, scope) * b
    return DimExpr._make(q, scope) if rem == 0 else None


def _mono_div(m, d):
    powers = dict(m)
    for a, p in d:
        if powers.get(a, 0) < p:
            return None
        powers[a] -= p
    return tuple(sorted(((a, p) for a, p in powers.items() if p),
                        key=lambda ap: _atom_key(ap[0])))


def max_dim(a, b):
    """max of two dimensions: decided when the bounds allow, else a symbolic `max(a, b)`."""
    try:
        return a if _ge_any(a, b, "") else b
    except InconclusiveDimensionOperation:
        scope = (a if isinstance(a, DimExpr) else b)._scope
        return DimExpr._atom(("max", a, b), scope)


def min_dim(a, b):
    try:
        return b if _ge_any(a, b, "") else a
    except InconclusiveDimensionOperation:
        scope = (a if isinstance(a, DimExpr) else b)._scope
        return DimExpr._atom(("min", a, b), scope)


def _bounds(e) -> tuple[float, float]:
    if not isinstance(e, DimExpr):
        return e, e
    for expr, lo, hi in e._scope._exprs:  # a constraint on this very expression (+ const)
        diff = e - expr
        if isinstance(diff, int):
            return lo + diff, hi + diff
    lo = hi = 0
    for mono, c in e._terms:
        mlo, mhi = _mono_bounds(mono, e._scope)
        tlo, thi = sorted((_mul(c, mlo), _mul(c, mhi)))
        lo, hi = lo + tlo, hi + thi
    return lo, hi


def _mul(c, x):
    return 0 if x == 0 else c * x


def _mono_bounds(mono, scope):
    lo, hi = 1, 1
    for atom, p in mono:
        alo, ahi = _atom_bounds(atom, scope)
        if alo < 0:
            return -_INF, _INF
        lo, hi = lo * alo ** p, hi * ahi ** p
    return lo, hi


def _atom_bounds(atom, scope):
    if isinstance(atom, str):
        return scope._bounds.get(atom, (1, _INF))
    op, x, y = atom
    (xlo, xhi), (ylo, yhi) = _bounds(x), _bounds(y)
    if op == "mod":
        return (0, yhi - 1) if ylo > 0 else (-_INF, _INF)
    if op == "floordiv":
        if ylo > 0 and xlo >= 0:
            return xlo // yhi if yhi != _INF else 0, (xhi // ylo if xhi != _INF else _INF)
        return -_INF, _INF
    if op == "max":
        return max(xlo, ylo), max(xhi, yhi)
    return min(xlo, ylo), min(xhi, yhi)


def is_symbolic_dim(p: Any) -> bool:
    """Whether `p` is a symbolic dimension (not a constant)."""
    return isinstance(p, DimExpr)


def is_constant_shape(shape) -> bool:
    return all(not isinstance(d, DimExpr) for d in shape)


# -- parsing ------------------------------------------------------------------------------------


def symbolic_shape(shape_spec: str | None, *, constraints=(), scope: SymbolicScope | None = None,
                   like=None) -> tuple:
    """Parse a shape specification: a comma-separated list of dimension expressions
    (integers, variables, `+ - * // %`, `max(.,.)`, `min(.,.)`, parentheses); `_` or `...`
    take the dimension (or the rest) from `like`.

    >>> symbolic_shape("b, 4")
    (b, 4)
    """
    if scope is None:
        scope = SymbolicScope(constraints) if constraints else _default_scope
    elif constraints:
        raise ValueError("Cannot specify both a `scope` and `constraints`.")
    spec = (shape_spec or "").strip()
    if spec.startswith("(") and spec.endswith(")") and _balanced(spec[1:-1]):
        spec = spec[1:-1]
    if spec.endswith(","):
        spec = spec[:-1]
    pieces = _split_top(spec) if spec else []
    out = []
    for i, piece in enumerate(pieces):
        piece = piece.strip()
        if piece == "...":
            if like is None:
                raise ValueError(f"symbolic shape '{shape_spec}': '...' needs `like`")
            out.extend(like[len(out):len(like) - (len(pieces) - i - 1)])
        elif piece == "_":
            if like is None or len(out) >= len(like):
                raise ValueError(f"symbolic shape '{shape_spec}': '_' needs `like`")
            out.append(like[len(out)])
        else:
            out.append(_parse_dim(piece, scope, shape_spec, i))
    if like is not None and len(out) != len(like):
        raise ValueError(f"symbolic shape '{shape_spec}' has {len(out)} dimensions but the "
                         f"argument has shape {tuple(like)}")
    return tuple(out)


def _balanced(s):
    depth = 0
    for ch in s:
        depth += ch == "("
        depth -= ch == ")"
        if depth < 0:
            return False
    return depth == 0


def _split_top(s):
    parts, depth, cur = [], 0, ""
    for ch in s:
        if ch == "," and depth == 0:
            parts.append(cur)
            cur = ""
            continue
        depth += (ch == "(") - (ch == ")")
        cur += ch
    parts.append(cur)
    return parts


def _parse_dim(text, scope, spec, index=0):
    try:
        toks = [t for t in tokenize.generate_tokens(io.StringIO(text).readline)
                if t.type not in (tokenize.NEWLINE, tokenize.ENDMARKER, tokenize.NL)]
    except (tokenize.TokenError, IndentationError) as e:
        raise ValueError(f"syntax error in symbolic shape '{spec}' in dimension {index}: {e}") from None
    pos = [0]

    def err(msg):
        return ValueError(f"syntax error in symbolic shape '{spec}' in dimension {index}: {msg}")

    def peek():
        return toks[pos[0]].string if pos[0] < len(toks) else ""

    def take(expected=None):
        if pos[0] >= len(toks):
            raise err("unexpected end")
        t = toks[pos[0]]
        if expected is not None and t.string != expected:
            raise err(f"expected '{expected}' but found '{t.string}'")
        pos[0] += 1
        return t

    def atom():
        t = take()
        if t.string == "(":
            e = expr()
            take(")")
            return e
        if t.string == "-":
            return -atom()
        if t.type == tokenize.NUMBER:
            return int(t.string)
        if t.type == tokenize.NAME:
            if t.string in ("max", "min", "floordiv", "mod") and peek() == "(":
                take("(")
                a = expr()
                take(",")
                b = expr()
                take(")")
                return {"max": max_dim, "min": min_dim, "floordiv": lambda x, y: _divmod(x, y)[0],
                        "mod": lambda x, y: _divmod(x, y)[1]}[t.string](a, b)
            return DimExpr._var(t.string, scope)
        raise err(f"unexpected '{t.string}'")

    def power():
        a = atom()
        while peek() in ("^", "**"):
            take()
            a = a ** int(take().string)
        return a

    def term():
        a = power()
        while peek() in ("*", "//", "%"):
            op = take().string
            b = power()
            a = a * b if op == "*" else (_divmod(a, b)[0] if op == "//" else _divmod(a, b)[1])
        return a

    def expr():
        a = term()
        while peek() in ("+", "-"):
            op = take().string
            b = term()
            a = a + b if op == "+" else a - b
        return a

    if not toks:
        raise err("empty dimension")
    e = expr()
    if pos[0] != len(toks):
        raise err(f"unexpected '{toks[pos[0]].string}'")
    return e


def symbolic_args_specs(args, shapes_specs, constraints=(), scope=None):
    """ShapeDtypeStructs for `args` (a pytree of arrays) with the shapes given by
    `shapes_specs` (one string for all, or a pytree prefix of strings; None: the array's own
    shape), sharing one scope.

    >>> symbolic_args_specs((np.zeros((3, 4)),), "b, ...")
    """
    if scope is None:
        scope = SymbolicScope(constraints) if constraints else _default_scope
    leaves, tree = tree_util.tree_flatten(args)
    if isinstance(args, tuple) and isinstance(shapes_specs, list):
        shapes_specs = tuple(shapes_specs)  # (JAX accepts a list for a tuple of arguments)
    if isinstance(shapes_specs, (str, type(None))):
        specs = [shapes_specs] * len(leaves)
    else:
        specs = tree_util.flatten_prefix(shapes_specs, args, "shapes_specs")
    out = []
    for x, spec in zip(leaves, specs, strict=True):
        if isinstance(x, ShapeDtypeStruct):  # (specs given as specs: their shape and dtype)
            shape, dtype = x.shape, x.dtype
        else:
            shape, dtype = np.shape(x), dtypes.canonicalize_dtype(np.result_type(x))
        dims = shape if spec is None else symbolic_shape(spec, scope=scope, like=shape)
        out.append(ShapeDtypeStruct(dims, dtype))
    return tree_util.tree_unflatten(tree, out)


# -- values of dimensions -----------------------------------------------------------------------

dim_as_value_p = core.Primitive("dim_as_value")


def dim_as_value(d):
    """The value of dimension `d` as an int32 scalar: a constant for ints, computed from the
    arguments' shapes inside an exported function."""
    if not isinstance(d, DimExpr):
        return np.int32(d)
    return dim_as_value_p.bind(dim=d)


@dim_as_value_p.def_abstract_eval
def _dim_as_value_abstract_eval(*, dim):
    return core.ShapedArray((), np.int32, weak_type=True)


def _dim_as_value_impl(*, dim):
    raise NotImplementedError(
        f"the value of the symbolic dimension '{dim}' is known only inside a function being "
        "exported (jax.export.export); it cannot be computed eagerly")


dim_as_value_p.def_impl(_dim_as_value_impl)


def _dim_as_value_lowering(ctx, *, dim):
    return emit_dim(ctx, dim)


dim_as_value_p.def_lowering(_dim_as_value_lowering)


def _i32(ctx, shape=()):
    return core.ShapedArray(shape, np.int32)


def emit_dim(ctx, d) -> str:
    """The SSA name of a `tensor<i32>` holding dimension `d`, computed from the dimension
    variables' values (`ctx.module.dim_values`, set by the export lowering)."""
    if not isinstance(d, DimExpr):
        return ctx.const(int(d), np.int32)
    values = getattr(ctx.module, "dim_values", None)
    if values is None:
        raise ValueError(f"symbolic dimension '{d}' met outside an exported function's lowering")
    i32 = _i32(ctx)
    total = None
    for mono, c in d._terms:
        t = ctx.const(c, np.int32) if c != 1 or not mono else None
        for atom, p in mono:
            a = _emit_atom(ctx, atom, values)
            for _ in range(p):
                t = a if t is None else ctx.op("stablehlo.multiply", t, a, out=i32)
        total = t if total is None else ctx.op("stablehlo.add", total, t, out=i32)
    return total


def _emit_atom(ctx, atom, values):
    i32 = _i32(ctx)
    if isinstance(atom, str):
        try:
            return values[atom]
        except KeyError:
            raise ValueError(f"dimension variable '{atom}' does not appear alone as a dimension "
                             "of any argument, so its value cannot be read from the arguments' "
                             "shapes") from None
    op, x, y = atom
    a, b = emit_dim(ctx, x), emit_dim(ctx, y)
    if op in ("max", "min"):
        return ctx.op("stablehlo.maximum" if op == "max" else "stablehlo.minimum", a, b, out=i32)
    q = ctx.op("stablehlo.divide", a, b, out=i32)   # truncates; floor for mixed signs below
    r = ctx.op("stablehlo.remainder", a, b, out=i32)
    zero = ctx.const(0, np.int32)
    b1 = core.ShapedArray((), np.bool_)
    nonzero = ctx.op("stablehlo.compare", r, zero, out=b1,
                     attrs={"comparison_direction": "#stablehlo<comparison_direction NE>"})
    sign_differs = ctx.op("stablehlo.compare",
                          ctx.op("stablehlo.compare", r, zero, out=b1,
                                 attrs={"comparison_direction": "#stablehlo<comparison_direction LT>"}),
                          ctx.op("stablehlo.compare", b, zero, out=b1,
                                 attrs={"comparison_direction": "#stablehlo<comparison_direction LT>"}),
                          out=b1, attrs={"comparison_direction": "#stablehlo<comparison_direction NE>"})
    adjust = ctx.op("stablehlo.and", nonzero, sign_differs, out=b1)
    if op == "floordiv":
        return ctx.op("stablehlo.select", adjust, ctx.op("stablehlo.subtract", q,
                                                          ctx.const(1, np.int32), out=i32), q, out=i32)
    return ctx.op("stablehlo.select", adjust, ctx.op("stablehlo.add", r, b, out=i32), r, out=i32)


def emit_shape(ctx, shape) -> str:
    """A `tensor<Nxi32>` holding `shape` (ints and DimExprs), for the dynamic ops."""
    pieces = [ctx.op("stablehlo.reshape", emit_dim(ctx, d), out=_i32(ctx, (1,))) for d in shape]
    if len(pieces) == 1:
        return pieces[0]
    if not pieces:
        return ctx.const(np.zeros((0,), np.int32), np.int32, (0,))
    return ctx.op("stablehlo.concatenate", *pieces, out=_i32(ctx, (len(shape),)),
                  attrs={"dimension": "0 : i64"})


def _dynamic(name, keep_operands):
    def emit(ctx, operands, aval, attrs):
        if is_constant_shape(aval.shape):
            return ctx.fb.op(name, operands, [mlir.aval_type(aval)], attrs)[0]
        shape = emit_shape(ctx, aval.shape)
        return ctx.fb.op("stablehlo.dynamic_" + name.split(".")[1],
                         operands[:keep_operands] + [shape], [mlir.aval_type(aval)], attrs)[0]
    return emit


lower.dynamic_shape_ops["stablehlo.broadcast_in_dim"] = _dynamic("stablehlo.broadcast_in_dim", 1)
lower.dynamic_shape_ops["stablehlo.reshape"] = _dynamic("stablehlo.reshape", 1)
lower.dynamic_shape_ops["stablehlo.iota"] = _dynamic("stablehlo.iota", 0)
core.symbolic_dim_types = (DimExpr,)


def _slice(ctx, x, start, limit, strides):
    """`lax.slice`'s lowering under export: a `real_dynamic_slice` when a bound is symbolic."""
    out = mlir.aval_type(ctx.avals_out[0])
    if is_constant_shape((*start, *limit)):
        return ctx.fb.op("stablehlo.slice", [x], [out], {
            "start_indices": mlir.i64_array(start), "limit_indices": mlir.i64_array(limit),
            "strides": mlir.i64_array(strides)})[0]
    return ctx.fb.op("stablehlo.real_dynamic_slice",
                     [x, emit_shape(ctx, start), emit_shape(ctx, limit), emit_shape(ctx, strides)],
                     [out])[0]


lower.dynamic_shape_ops["slice"] = _slice
lower.dynamic_shape_ops["shape"] = emit_shape
