"""Helpers shared by the control-flow primitives (cond, while, scan).

A control-flow primitive holds *const-free* closed jaxprs as parameters: whatever the user's
function closes over (arrays, tracers of enclosing transformations) is hoisted into explicit
operands. The helpers here trace user functions that way, join the constants of several jaxprs
(the branches of a cond), check that output types agree with errors naming the leaves by key
path, and transform jaxprs (jvp, batching) into new const-free jaxprs plus constants.

    jaxpr, consts, out_tree = trace_jaxpr(f, in_tree, in_avals)   # jaxpr(*consts, *args)
    jaxprs, consts = join_consts([(j1, c1), (j2, c2)])              # each takes all consts
"""
from __future__ import annotations

import inspect
import weakref
from functools import partial

import numpy as np

from pyjax._src import core, dispatch, dtypes, tree_util
from pyjax._src.config import TRACE_FLAGS, config
from pyjax._src.interpreters import ad, batching
from pyjax._src.interpreters import partial_eval as pe
from pyjax._src.lax import elementwise as lax_elem
from pyjax._src.lax.shape_ops import broadcast_in_dim


# the tracing helpers live with the tracer; re-exported here for the control-flow modules
as_const_free = pe.as_const_free
trace_jaxpr = pe.trace_tree_to_jaxpr


def trace_flat(fun, in_avals, debug=None):
    """`trace_jaxpr` for a flat function (list of values in, list out): `(jaxpr, consts)`.
    `debug` (a pe.TraceDebug) names the user's function in tracer errors."""
    closed, _ = pe.trace_to_jaxpr(lambda *xs: list(fun(*xs)), list(in_avals), debug=debug)
    return as_const_free(closed)


# -- the eager trace cache ------------------------------------------------------------------------
#
# As in JAX, control flow called eagerly traces a user function once per signature: a Python loop
# calling `lax.scan(f, c, xs)` traces `f` on the first call only. Keyed by the function itself
# (held weakly, so its traces go with it), the construct and the avals; like jit, a trace keeps
# the values `fun` closed over when it was traced. Under a transformation (jit, grad, vmap) the
# trace may close over that transformation's tracers, so it is never cached; the enclosing jit
# cache covers that case.

_eager_traces: "weakref.WeakKeyDictionary" = weakref.WeakKeyDictionary()
dispatch.register_cache(_eager_traces.clear)

# the settings that change what tracing produces
_TRACE_FLAGS = TRACE_FLAGS


def cached_trace(fun, key, trace):
    """`trace()` (which traces `fun`), remembered per `(fun, key)` when called eagerly.

    `key` must hold everything else the trace depends on: the construct's name, the pytree
    structures and avals of the arguments, static parameters the traced wrapper uses."""
    if type(core.current_trace()) is not core.EvalTrace:
        return trace()
    try:
        per_fun = _eager_traces.get(fun)
        if per_fun is None:
            per_fun = _eager_traces[fun] = {}
        key = (key, tuple(config._values.get(name) for name in _TRACE_FLAGS))
        hit = per_fun.get(key)
    except TypeError:  # not weakly referenceable, or an unhashable key: trace every time
        return trace()
    if hit is None:
        hit = per_fun[key] = trace()
    return hit


def trace_jaxpr_cached(what, fun, in_tree, in_avals):
    """`trace_jaxpr(fun, in_tree, in_avals)` through the eager cache (`what` names the use)."""
    return cached_trace(fun, (what, in_tree, tuple(in_avals)),
                        lambda: trace_jaxpr(fun, in_tree, in_avals, what))


def join_consts(jaxprs_and_consts) -> tuple[list[core.ClosedJaxpr], list]:
    """Given const-free jaxprs each taking `(*its_consts, *args)`, return jaxprs all taking
    `(*all_consts, *args)` (the other jaxprs' constants as unused inputs) and `all_consts`.

    A value several jaxprs close over (the same object) is one shared input, as in JAX's jaxprs.
    """
    all_consts, slot_of, slots = [], {}, []
    for _, cs in jaxprs_and_consts:
        mine, taken = [], set()
        for c in cs:
            slot = slot_of.get(id(c))
            if slot is None or slot in taken:  # new, or the same value twice in one jaxpr
                slot = slot_of[id(c)] = len(all_consts)
                all_consts.append(c)
            taken.add(slot)
            mine.append(slot)
        slots.append(mine)
    out = []
    for (closed, cs), mine in zip(jaxprs_and_consts, slots):
        j = closed.jaxpr
        invars = [core.Var(core.get_aval(c)) for c in all_consts]
        for slot, v in zip(mine, j.invars[:len(cs)]):
            invars[slot] = v
        out.append(core.ClosedJaxpr(core.Jaxpr([], invars + j.invars[len(cs):], j.outvars, j.eqns,
                                               j.effects), []))
    return out, all_consts


# -- type checks with errors naming the leaves -------------------------------------------------


def leaf_paths(tree) -> list[str]:
    """The key path of every leaf of the treedef `tree` (`['a'][0]`), for error messages."""
    skeleton = tree_util.tree_unflatten(tree, range(tree.num_leaves))
    return [tree_util.keystr(p) for p, _ in tree_util.tree_flatten_with_path(skeleton)[0]]


def _type_diff(a, b) -> str:
    if a.shape != b.shape:
        return "the shapes do not match"
    return "the dtypes do not match"


def check_outputs_agree(what: str, names, out_trees, out_avals_lists, funs=None):
    """Raise a TypeError unless every function's outputs (as `names[i]` produced them) have the
    first one's pytree structure and, leaf by leaf, shape, dtype and (inside a check_vma
    shard_map body) varying manual axes; weak types may differ.

    `what` names the construct (`"cond branches"`, `"switch branches"`); `funs` are the
    functions, named with their source lines in a vma error (as JAX)."""
    tree0, avals0 = out_trees[0], out_avals_lists[0]
    for name, tree, avals in zip(names[1:], out_trees[1:], out_avals_lists[1:], strict=True):
        if tree != tree0:
            # JAX's words (`cond branch outputs ...`), then each function and its output's tree
            fun0, fun = (funs[0], funs[names.index(name)]) if funs else (None, None)
            raise TypeError(
                f"{what.split()[0]} branch outputs must have the same pytree structure, but they "
                f"differ:\n\n{names[0]} is {_source_info(fun0)}\n{name} is {_source_info(fun)}"
                f"\n\n{names[0]} output is {tree0} but {name} output is {tree}.\n\nRevise "
                f"{names[0]} and/or {name} so that they have the same pytree structure.")
        paths = leaf_paths(tree0)
        for path, a, b in zip(paths, avals0, avals, strict=True):
            if (a.shape, a.dtype) != (b.shape, b.dtype):
                at = f" at path {path}" if path else ""
                raise TypeError(
                    f"{what} must have equal output types but they differ. The output of "
                    f"{names[0]}{at} has type {a.str_short(False)} but the corresponding output of "
                    f"{name} has type {b.str_short(False)}, so {_type_diff(a, b)}. Revise "
                    f"{names[0]} and/or {name} so that all output types match.")
        if core.VMA_TRACING[0] and any(a.vma != b.vma for a, b in zip(avals0, avals)):
            _branch_vma_error(what, names[0], name, funs and funs[0],
                              funs and funs[names.index(name)], paths, avals0, avals)


def check_carry_agrees(what: str, in_tree, in_avals, out_tree, out_avals, body_fun=None):
    """Raise a TypeError unless a loop body's carry output matches its carry input in pytree
    structure and, leaf by leaf, shape, dtype (weak types may differ) and (inside a check_vma
    shard_map body) varying manual axes. Errors name `body_fun`'s carry parameter, as JAX's."""
    if in_tree != out_tree:
        raise TypeError(
            f"{what} carry input and carry output must have the same pytree structure, but they "
            f"differ: the input carry is {in_tree} but the output carry is {out_tree}. Revise the "
            f"function so that the carry output has the same pytree structure as the carry input.")
    for path, a, b in zip(leaf_paths(in_tree), in_avals, out_avals, strict=True):
        if (a.shape, a.dtype) != (b.shape, b.dtype):
            raise TypeError(
                f"{what} carry input and carry output must have equal types, but they differ: the "
                f"input carry component {carry_name(body_fun)}{path} has type "
                f"{a.str_short(False)} but the corresponding output carry component has type "
                f"{b.str_short(False)}, so {_type_diff(a, b)}. Revise the function so that all "
                f"output types match the corresponding input types.")
    if core.VMA_TRACING[0] and any(a.vma != b.vma for a, b in zip(in_avals, out_avals)):
        _carry_vma_error(what, carry_name(body_fun), [
            (p, a, b) for p, a, b in zip(leaf_paths(in_tree), in_avals, out_avals)
            if a.vma != b.vma])


def carry_name(body_fun) -> str:
    """The name of a loop body's carry parameter, for its type errors (as JAX)."""
    try:
        return next(iter(inspect.signature(body_fun).parameters))
    except (ValueError, TypeError, StopIteration):
        return "c"


# -- varying manual axes (inside a check_vma shard_map body): JAX's words ---------------------

_VMA_DOC = ("See https://docs.jax.dev/en/latest/notebooks/shard_map.html#scan-vma for more "
            "information.\n\n")


def _listed(items, loop) -> str:
    """One item as a sentence, several as bullets (JAX's loops and conds space them apart
    differently)."""
    if len(items) == 1:
        return f"{items[0]}.\n"
    if loop:
        return "\n".join(f"  * {d};\n" for d in items[:-1]) + f"  * {items[-1]}.\n"
    return "\n".join(f"  * {d};" for d in items[:-1]) + f"\n  * {items[-1]}.\n"


def _fixes(fixes, loop) -> str:
    if not fixes:
        return ""
    return ("This might be fixed by " + fixes[0] + ".\n" if len(fixes) == 1 else
            "This might be fixed by:\n" + _listed(fixes, loop)) + _VMA_DOC


def _capitalized(diffs, loop) -> str:
    return diffs[0][0].upper() + diffs[0][1:] + ".\n" if len(diffs) == 1 else _listed(diffs, loop)


def _pcast_hint(axes) -> str:
    return f"applying `jax.lax.pcast(..., {core.order_axes(axes)}, to='varying')`"


def _carry_vma_error(what, carry_name, bad):
    """A loop carry whose varying manual axes the body changes (JAX's TypeError)."""
    def component(p):
        return f"the input carry component {carry_name}{p}" if p else f"the input carry {carry_name}"
    diffs = [f"{component(p)} has type {a.str_short(False)} but the corresponding output carry "
             f"component has type {b.str_short(False)}, so the manual axis types do not match"
             for p, a, b in bad]
    fixes = [f"{_pcast_hint(b.vma - a.vma)}, to the initial carry value corresponding to "
             f"{component(p)}" for p, a, b in bad if b.vma - a.vma]
    raise TypeError(f"{what} carry input and carry output must have equal types, but they "
                    f"differ:\n\n{_capitalized(diffs, True)}\n{_fixes(fixes, True)}Revise the "
                    f"function so that all output types match the corresponding input types.")


def _branch_vma_error(what, name1, name2, f1, f2, paths, avals1, avals2):
    """Branches whose outputs differ in their varying manual axes (JAX's TypeError)."""
    def component(p):
        return f" at path {p}" if p else ""
    bad = [(p, a, b) for p, a, b in zip(paths, avals1, avals2) if a.vma != b.vma]
    diffs = [f"the output of {name1}{component(p)} has type {a.str_short(False)} but the "
             f"corresponding output of {name2} has type {b.str_short(False)}, so the manual axis "
             f"types do not match" for p, a, b in bad]
    # (as JAX words them: the axes one branch's output lacks, suggested for the other's)
    fixes = [f"{_pcast_hint(x.vma - y.vma)} to the output of {n}{component(p)}"
             for p, a, b in bad for n, x, y in ((name1, b, a), (name2, a, b)) if y.vma - x.vma]
    raise TypeError(f"{what} must have equal output types but they differ.\n\n"
                    f"{name1} is {_source_info(f1)}\n{name2} is {_source_info(f2)}\n\n"
                    f"{_capitalized(diffs, False)}\n{_fixes(fixes, False)}Revise {name1} and/or "
                    f"{name2} so that all output types match.")


def _source_info(fun) -> str:
    while isinstance(fun, partial):
        fun = fun.func
    fun = inspect.unwrap(fun) if fun is not None else fun
    code = getattr(fun, "__code__", None)
    if code is None:
        return "<unknown>"
    return f"{fun.__name__} at {code.co_filename}:{code.co_firstlineno}"


def promote_weak_carry(values, avals, out_avals):
    """As JAX: a weakly typed initial carry whose type the loop body changes takes the result
    type of the two (strongly typed), so the body can be traced again on it. Returns
    `(values, avals)`, converted where promoted."""
    promoted = [a.update(dtype=dtypes.result_type(a, o), weak_type=False)
                if a.weak_type and (a.shape, a.dtype) != (o.shape, o.dtype) else a
                for a, o in zip(avals, out_avals, strict=True)]
    values = [v if a == p else lax_elem._convert_element_type(v, p.dtype, False)
              for v, a, p in zip(values, avals, promoted)]
    return values, promoted


def join_weak(avals_lists) -> list:
    """Output avals of functions whose outputs agree up to weak types: weak only if all are."""
    return [a[0].update(weak_type=all(x.weak_type for x in a)) for a in zip(*avals_lists, strict=True)]


# -- transforming jaxprs --------------------------------------------------------------------


def jvp_jaxpr(closed: core.ClosedJaxpr, nonzero, instantiate):
    """The JVP of a const-free jaxpr, as `(jaxpr, consts, out_nonzero)`.

    `jaxpr` takes `(*consts, *primals, *tangents of the nonzero inputs)` and returns
    `(*primal outs, *tangents of the outputs flagged in out_nonzero)`; an output's tangent is
    there when it is not a symbolic zero or `instantiate[i]` is set (bool or list)."""
    n = len(closed.in_avals)
    nout = len(closed.out_avals)
    instantiate = [instantiate] * nout if isinstance(instantiate, bool) else list(instantiate)
    t_avals = [ad.tangent_aval(a) for a, nz in zip(closed.in_avals, nonzero, strict=True) if nz]
    box = []

    def fun(*args):
        ps, ts = args[:n], iter(args[n:])
        tans = [next(ts) if nz else ad.Zero(ad.tangent_aval(a)) for a, nz in zip(closed.in_avals, nonzero)]
        out_p, out_t = ad.jvp_flat(core.jaxpr_as_fun(closed), ps, tans)
        out_nz = [type(t) is not ad.Zero or inst for t, inst in zip(out_t, instantiate, strict=True)]
        box.append(out_nz)
        return out_p + [ad.instantiate(t) for t, nz in zip(out_t, out_nz) if nz]
    jaxpr, consts = trace_flat(fun, list(closed.in_avals) + t_avals)
    return jaxpr, consts, box[0]


def batch_jaxpr(closed: core.ClosedJaxpr, axis_data, in_dims, force_out):
    """Batch a const-free jaxpr: the batched inputs (`in_dims[i]` not None) are mapped along
    axis 0 as are the outputs that come out batched or are flagged in `force_out`.

    Returns `(jaxpr, consts, out_batched)` with `jaxpr` taking `(*consts, *inputs)`."""
    in_avals = [a if d is batching.not_mapped else a.update(shape=(axis_data.size,) + a.shape)
                for a, d in zip(closed.in_avals, in_dims, strict=True)]
    in_dims = [batching.not_mapped if d is batching.not_mapped else 0 for d in in_dims]
    box = []

    def fun(*args):
        outs, dims = batching.batch_flat(partial(core.eval_jaxpr, closed.jaxpr, closed.consts),
                                         args, in_dims, axis_data)
        batched = [d is not batching.not_mapped or f for d, f in zip(dims, force_out, strict=True)]
        box.append(batched)
        return [batching.bdim_at_front(o, d, axis_data.size) if b else o
                for o, d, b in zip(outs, dims, batched)]
    jaxpr, consts = trace_flat(fun, in_avals)
    return jaxpr, consts, box[0]


def zeros(aval):
    """Zeros of `aval` (of its weak type, as JAX's), staged as a literal broadcast (no array
    constant is created)."""
    z = lax_elem._weak_const(0, aval.dtype) if aval.weak_type else np.zeros((), aval.dtype)
    return broadcast_in_dim(z, aval.shape, ()) if aval.shape else z


def instantiate_zeros(t, aval):
    """A tangent or cotangent as a value: a symbolic zero becomes `zeros(aval)`."""
    return zeros(aval) if type(t) is ad.Zero else t
