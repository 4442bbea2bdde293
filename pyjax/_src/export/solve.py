"""The values of an exported function's dimension variables, solved from its arguments' shapes
as JAX 0.10.2 solves them, and the constraints those shapes must satisfy.

Each symbolic dimension of an argument is an equation `spec = size`, whose size is a fresh
("synthetic") variable named after the dimension (`args[0].shape[2]`, `kwargs['b'].shape[0]`).
The equations are processed in order, again and again: one whose terms are all known except
one `k*v` gives `v = (size - rest) // k` (with the constraints `rest % k == 0` and `v >= 1`);
one whose terms are all known gives the constraint `size == spec`; until every variable is
solved, or none more can be (a ValueError). The scope's explicit constraints (`"b >= 4"`)
are checked last. The solution and the constraints are expressions in the synthetic
variables, so the same solution serves

- a call traced in Python (`check`): the synthetic variables are the arguments' sizes
  (ints, or the caller's symbolic dimensions) and a failed constraint is JAX's ValueError;
- the exported module (`emit`): they are `stablehlo.get_dimension_size` of `main`'s
  arguments, and each constraint becomes a `shape_assertion` custom call with JAX's message.
"""
from __future__ import annotations

import dataclasses
import functools

import numpy as np

from pyjax._src import core, tree_util
from pyjax._src.export import shape_poly
from pyjax._src.export.shape_poly import DimExpr, InconclusiveDimensionOperation, UnexpectedDimVar

_MISMATCH = "Input shapes do not match the polymorphic shapes specification. "
_TRAILER = (". Please see https://docs.jax.dev/en/latest/export/shape_poly.html"
            "#shape-assertion-errors for more details.")
_MAX_MESSAGE_INPUTS = 32  # (the most a shape_assertion takes)


@dataclasses.dataclass(frozen=True)
class Constraint:
    """`left == right` or `left >= right`; its message is `pieces` joined, the dimensions among
    them shown by their values."""
    cmp: str
    left: object
    right: object
    pieces: tuple

    def message(self, env) -> str:
        return "".join(p if isinstance(p, str) else str(evaluate(p, env)) for p in self.pieces)


@dataclasses.dataclass(frozen=True)
class Solution:
    values: dict        # dimension variable -> its value, in the synthetic variables
    constraints: tuple  # of Constraint, in JAX's order
    synthetic: tuple    # (name, argument index, dimension index)


def evaluate(d, env):
    """The value of dimension expression `d` with the variables of `env` substituted (ints or
    symbolic dimensions); KeyError for a variable `env` lacks."""
    if not isinstance(d, DimExpr):
        return d
    total = 0
    for mono, c in d._terms:
        t = c
        for atom, p in mono:
            if isinstance(atom, str):
                a = env[atom]
            else:
                op, x, y = atom
                x, y = evaluate(x, env), evaluate(y, env)
                a = {"floordiv": lambda: shape_poly._divmod(x, y)[0],
                     "mod": lambda: shape_poly._divmod(x, y)[1],
                     "max": lambda: shape_poly.max_dim(x, y),
                     "min": lambda: shape_poly.min_dim(x, y)}[op]()
            for _ in range(p):
                t = t * a
        total = total + t
    return total


def arg_names(in_tree, avals) -> list[str]:
    """`args[0]`, `kwargs['b']`, ...: each flat argument's path in `(args, kwargs)`, as JAX
    names them in messages (the tree built with the avals as leaves)."""
    try:
        paths, _ = tree_util.tree_flatten_with_path(tree_util.tree_unflatten(in_tree, avals))
    except (ValueError, TypeError):
        paths = None
    if paths is None or len(paths) != len(avals):
        return [f"args[{i}]" for i in range(len(avals))]
    out = []
    for path, _ in paths:
        head = "args" if getattr(path[0], "idx", 0) == 0 else "kwargs"
        out.append(head + tree_util.keystr(tuple(path[1:])))
    return out


def shape_str(shape) -> str:
    return "(" + ", ".join(str(d) for d in shape) + ("," if len(shape) == 1 else "") + ")"


@functools.lru_cache(maxsize=256)
def solve(in_avals: tuple, in_tree) -> Solution:
    """The solution of the dimension variables of `in_avals` (raises JAX's ValueError when some
    cannot be solved)."""
    names = arg_names(in_tree, list(in_avals))
    eqns, specs, synthetic, scope = [], [], [], None
    for i, a in enumerate(in_avals):
        if not any(isinstance(d, DimExpr) for d in a.shape):
            continue
        specs.append(f"{names[i]}.shape = {shape_str(a.shape)}")
        for j, d in enumerate(a.shape):
            if isinstance(d, DimExpr):
                scope = scope or d._scope
                synthetic.append((f"{names[i]}.shape[{j}]", i, j))
                eqns.append((d, synthetic[-1][0]))
    if not eqns:
        return Solution({}, (), ())
    specs_msg = " Using the following polymorphic shapes specifications: " + ",".join(specs) + "."
    values: dict = {}
    constraints: list = []
    solved = [" Obtained dimension variables: "]  # (the message's account of the solution)

    def add(cmp, left, right, *pieces):
        constraints.append(Constraint(cmp, left, right, (*pieces, *solved, _TRAILER)))

    def process(d, name) -> bool:
        size = DimExpr._var(name, scope)
        rest, var, k = size, None, None
        for mono, c in d._terms:
            try:
                rest = rest - evaluate(DimExpr._make({mono: c}, scope), values)
                continue
            except KeyError:  # a term with a variable not yet solved: only `k*v` will do
                if var is None and len(mono) == 1 and mono[0][1] == 1 and isinstance(mono[0][0], str):
                    var, k = mono[0][0], c
                    continue
            return False
        if var is None:
            spec = evaluate(d, values)
            add("==", size, spec, f"{_MISMATCH}Found inconsistency between dimension size {name} "
                "(= ", size, f") and the specification '{d}' (= ", spec, ")." + specs_msg)
            return True
        value = rest
        if k != 1:
            value, rem = divmod(rest, k)
            add("==", rem, 0, f"{_MISMATCH}Division had remainder ", rem,
                f" when computing the value of '{var}'." + specs_msg)
        values[var] = value
        solved.extend([f"'{var}' = ", value, f" from specification '{d}' for dimension {name} "
                       "(= ", size, "), "])
        add(">=", value, 1, f"{_MISMATCH}Expected value >= 1 for dimension variable '{var}'."
            + specs_msg)
        return True

    while eqns:
        left = [e for e in eqns if not process(*e)]
        if len(left) == len(eqns):
            unsolved = set().union(*(d._variables() for d, _ in left)) - set(values)
            raise ValueError(
                f"Cannot solve for values of dimension variables {unsolved}. We can only solve "
                "linear uni-variate constraints." + specs_msg + " Unprocessed specifications: "
                + ", ".join(f"'{d}' for dimension size {name}" for d, name in left)
                + ". Please see https://docs.jax.dev/en/latest/export/shape_poly.html"
                "#dimension-variables-must-be-solvable-from-the-input-shapes for more details.")
        eqns = left
    for cmp, diff, text in scope._explicit:
        try:
            value = evaluate(diff, values)
        except KeyError as e:
            raise UnexpectedDimVar(
                f"Encountered dimension variable '{e.args[0]}' that is not appearing in the shapes "
                "of the function arguments.\nThe following dimension variables are appearing in "
                f"the shapes of the function arguments: {list(values)}.\nPlease see "
                "https://docs.jax.dev/en/latest/export/shape_poly.html"
                "#dimension-variables-must-be-solvable-from-the-input-shapes for more details."
            ) from None
        add(cmp, value, 0, f"Input shapes do not match the symbolic shape constraint {text}. "
            f"Expected '{diff}' to be {'greater or equal' if cmp == '>=' else 'equal'} to 0, "
            "but found ", value, ". " + specs_msg)
    return Solution(dict(values), tuple(constraints), tuple(synthetic))


def check(solution: Solution, avals) -> dict:
    """The values of the dimension variables for arguments of `avals` (ints, or the caller's
    symbolic dimensions); JAX's ValueError for the first constraint that fails (or cannot be
    decided)."""
    env = {name: avals[i].shape[j] for name, i, j in solution.synthetic}
    for c in solution.constraints:
        left, right = evaluate(c.left, env), evaluate(c.right, env)
        try:
            ok = left == right if c.cmp == "==" else left >= right
        except InconclusiveDimensionOperation:
            ok = False
        if not ok:
            raise ValueError(c.message(env))
    return {var: evaluate(v, env) for var, v in solution.values.items()}


def emit(ctx, solution: Solution, args) -> dict:
    """In an exported module's `main` (whose arguments' SSA names are `args`): the dimension
    variables' values (var -> SSA name of a `tensor<i32>`), after a `shape_assertion` custom
    call for each constraint not decided statically."""
    i1, i32 = core.ShapedArray((), np.bool_), core.ShapedArray((), np.int32)
    ctx.module.dim_values = {name: ctx.op("stablehlo.get_dimension_size", args[i], out=i32,
                                          attrs={"dimension": f"{j} : i64"})
                             for name, i, j in solution.synthetic}
    emitted: dict = {}  # (each dimension computed once: constraints and messages share them)

    def dim(e):
        key = (type(e), e)
        if key not in emitted:
            emitted[key] = shape_poly.emit_dim(ctx, e)
        return emitted[key]
    for c in solution.constraints:
        if shape_poly.is_constant_shape((c.left, c.right)):  # (decided now, as JAX)
            if not (c.left == c.right if c.cmp == "==" else c.left >= c.right):
                raise ValueError(c.message({}))
            continue
        pred = ctx.op("stablehlo.compare", dim(c.left), dim(c.right), out=i1, attrs={
                          "comparison_direction": "#stablehlo<comparison_direction "
                                                  f"{'EQ' if c.cmp == '==' else 'GE'}>",
                          "compare_type": "#stablehlo<comparison_type SIGNED>"})
        text, inputs, specifiers = [], [], {}
        for p in c.pieces:
            if isinstance(p, str):
                text.append(p)
            elif p in specifiers:
                text.append(specifiers[p])
            elif len(inputs) >= _MAX_MESSAGE_INPUTS:
                text.append("N/A")
            else:
                specifiers[p] = "{" + str(len(inputs)) + "}"
                text.append(specifiers[p])
                inputs.append(dim(p))
        message = "".join(text)
        ctx.fb.op("stablehlo.custom_call", [pred, *inputs], [], {
            "call_target_name": '"shape_assertion"', "api_version": "2 : i32",
            "error_message": '"' + message.replace("\\", "\\\\").replace('"', '\\"') + '"',
            "has_side_effect": "true"})
    dim_values = {var: dim(v) for var, v in solution.values.items()}
    ctx.module.dim_values = dim_values
    return dim_values
