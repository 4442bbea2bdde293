"""`jax.custom_batching`: functions with their own vmap rule (`custom_vmap`) and functions vmapped
by a loop (`sequential_vmap`).

A `custom_vmap` function is traced to a jaxpr and bound as one `custom_vmap_call` equation that
carries the user's rule. Evaluating, lowering or differentiating it runs the jaxpr; batching it
calls the rule `rule(axis_size, in_batched, *args) -> (out, out_batched)` on the arguments with
their batch axes in front. Its JVP is again a `custom_vmap_call` (of the jaxpr's JVP), whose rule
is the JVP of the user's rule, so vmap-of-jvp uses the rule too, as in JAX.
"""
from __future__ import annotations

import functools
import inspect
import operator

from pyjax._src import core, tree_util
from pyjax._src.core import Primitive
from pyjax._src.interpreters import ad
from pyjax._src.interpreters import partial_eval as pe
from pyjax._src.interpreters.batching import AxisData, batch_flat, bdim_at_front, not_mapped
from pyjax._src.lax.control_flow.scan import map as lax_map
from pyjax._src.traceback_util import api_boundary


class custom_vmap:
    """Give `fun` its own vmap rule, set with `def_vmap`.

    >>> @jax.custom_batching.custom_vmap
    ... def f(x): return jnp.sin(x)
    >>> @f.def_vmap
    ... def rule(axis_size, in_batched, x): return jnp.cos(x), in_batched[0]
    >>> jax.vmap(f)(jnp.zeros(2))   # cos: the rule ran
    Array([1., 1.], dtype=float32)
    """

    def __init__(self, fun):
        functools.update_wrapper(self, fun)
        self.fun = fun
        self.vmap_rule = None

    def __getattr__(self, name):  # as JAX: a wrapped custom function's def* methods reach through
        fun = self.__dict__.get("fun")
        if name.startswith("def") and fun is not None:
            return getattr(fun, name)
        raise AttributeError(f"'custom_vmap' object has no attribute {name!r}")

    def def_vmap(self, vmap_rule):
        """Set the rule `vmap_rule(axis_size, in_batched, *args) -> (out, out_batched)` (batched
        arguments have their batch axis first; `in_batched`/`out_batched` are pytrees of bools
        shaped as the arguments/outputs). Returns the rule."""
        self.vmap_rule = vmap_rule
        return vmap_rule

    @api_boundary
    def __call__(self, *args, **kwargs):
        name = getattr(self.fun, "__name__", repr(self.fun))
        try:
            args = _resolve_kwargs(self.fun, args, kwargs)
        except TypeError as e:
            raise TypeError(f"The input arguments to the custom_vmap-decorated function {name} could "
                            f"not be resolved to positional-only arguments. Binding failed with the "
                            f"error:\n{e}") from e
        if not self.vmap_rule:
            raise AttributeError(f"No batching rule defined for custom_vmap function {name} using def_vmap.")
        args_flat, in_tree = tree_util.tree_flatten(args)
        box = []

        def flat_fun(*xs):
            out_flat, out_tree = tree_util.tree_flatten(self.fun(*tree_util.tree_unflatten(in_tree, xs)))
            box.append(out_tree)
            return out_flat
        closed, _ = pe.trace_to_jaxpr(flat_fun, [core.get_aval(x) for x in args_flat])
        call, consts = pe.as_const_free(closed)
        in_tree = tree_util.tree_structure((consts, args))
        out_flat = custom_vmap_p.bind(*consts, *args_flat, call=call, rule=ClosedRule(self.vmap_rule),
                                      in_tree=in_tree, out_tree=box[0])
        return tree_util.tree_unflatten(box[0], out_flat)

    def __get__(self, obj, objtype=None):  # as a method
        return self if obj is None else functools.partial(self, obj)


def _resolve_kwargs(fun, args, kwargs):
    try:
        sig = inspect.signature(fun)
    except (TypeError, ValueError):  # (no signature: positions only)
        if kwargs:
            raise TypeError("keyword arguments need an inspectable signature") from None
        return args
    bound = sig.bind(*args, **kwargs)
    bound.apply_defaults()
    if bound.kwargs:
        raise TypeError("The following keyword arguments could not be resolved to positions: "
                        + ", ".join(bound.kwargs))
    return bound.args


class ClosedRule:
    """The user's rule as an equation parameter (hashed and compared by identity); the constants
    of the function come first in the arguments, unbatched, and are not passed to it."""

    def __init__(self, rule):
        functools.update_wrapper(self, rule)
        self.rule = rule

    def __call__(self, axis_size, all_in_batched, *all_args):
        consts_batched, in_batched = all_in_batched
        if any(tree_util.tree_leaves(consts_batched)):
            raise NotImplementedError("custom_vmap: the function closes over a batched value; pass it "
                                      "as an argument instead")
        return _call_rule(self.rule, axis_size, in_batched, all_args[1])

    def __repr__(self):
        return repr(self.rule)


def _call_rule(rule, axis_size, in_batched, args):
    """The rule gets `in_batched` as a list (one entry per argument), as JAX's rules do."""
    in_batched = in_batched if type(in_batched) is list else list(in_batched)
    return rule(axis_size, in_batched, *args)


def _check_rule_trees(rule, out_tree, tree, batched_tree):
    name = getattr(rule, "__name__", "<unnamed rule>")
    if tree != batched_tree:  # (JAX's wording, which its tests match)
        raise ValueError(f"structure of output value and output batching specification returned by "
                         f"custom vmap rule ({name}) do not match.\nOutput values: {tree}\n"
                         f"Batching spec: {batched_tree}")
    if tree != out_tree:
        raise ValueError(f"structure of output returned by custom vmap rule ({name}) does not match "
                         f"that of original custom-vmapped function.\nOriginal output: {out_tree}\n"
                         f"Rule output: {tree}")


custom_vmap_p = Primitive("custom_vmap_call", multiple_results=True)


@custom_vmap_p.def_impl
def _custom_vmap_impl(*args, call, rule, in_tree, out_tree):
    return core.jaxpr_as_fun(call)(*args)


custom_vmap_p.def_abstract_eval(lambda *avals, call, **_: list(call.out_avals))
custom_vmap_p.def_lowering(lambda ctx, *args, call, **_: ctx.lower_jaxpr(call.jaxpr, [], list(args)))


@custom_vmap_p.def_batch
def _custom_vmap_batch(axis_size, args, dims, *, call, rule, in_tree, out_tree):
    args = [bdim_at_front(x, d, axis_size) if d is not not_mapped else x for x, d in zip(args, dims)]
    in_batched = tree_util.tree_unflatten(in_tree, [d is not not_mapped for d in dims])
    out, out_batched = _call_rule(rule, axis_size, in_batched, tree_util.tree_unflatten(in_tree, args))
    out_flat, tree = tree_util.tree_flatten(out)
    batched_flat, batched_tree = tree_util.tree_flatten(out_batched)
    _check_rule_trees(rule, out_tree, tree, batched_tree)
    return out_flat, [0 if b else not_mapped for b in batched_flat]


@custom_vmap_p.def_jvp
def _custom_vmap_jvp(primals, tangents, *, call, rule, in_tree, out_tree):
    tangents = [ad.instantiate(t) for t in tangents]
    jvp_call = ad.jvp_jaxpr(call, [True] * len(primals))
    outs = custom_vmap_p.bind(*primals, *tangents, call=jvp_call, rule=_JvpOfRule(rule, out_tree),
                              in_tree=_pair_tree(in_tree), out_tree=_pair_tree(out_tree))
    n = len(outs) // 2
    return outs[:n], outs[n:]


def _pair_tree(tree):
    """The tree of (x, x) for x of structure `tree`."""
    leaves = list(range(tree.num_leaves))
    x = tree_util.tree_unflatten(tree, leaves)
    return tree_util.tree_structure((x, x))


class _JvpOfRule:
    """The rule of a custom_vmap function's JVP: the JVP of its rule. Arguments batched as
    primals and tangents both go to the rule; a primal batched alone (or a tangent) is mapped
    over by vmap around the JVP, as JAX does."""
    __slots__ = ("rule", "out_tree")

    def __init__(self, rule, out_tree):
        self.rule, self.out_tree = rule, out_tree

    def __repr__(self):
        return f"jvp of {self.rule!r}"

    @property
    def __name__(self):
        return getattr(self.rule, "__name__", "<unnamed rule>")

    def __call__(self, axis_size, in_batched, primals, tangents):
        in_batched_ps, in_batched_ts = in_batched
        both = tree_util.tree_map(operator.and_, in_batched_ps, in_batched_ts)
        extra_ps = tree_util.tree_map(lambda p, t: p and not t, in_batched_ps, in_batched_ts)
        extra_ts = tree_util.tree_map(lambda p, t: t and not p, in_batched_ps, in_batched_ts)
        out_both = []

        def to_jvp(*ps):
            out, out_batched = _call_rule(self.rule, axis_size, both, ps)
            _check_rule_trees(self.rule, self.out_tree, tree_util.tree_structure(out),
                              tree_util.tree_structure(out_batched))
            out_both.append(out_batched)
            return out

        flat_ps, ps_tree = tree_util.tree_flatten(primals)
        flat_ts = tree_util.tree_leaves(tangents)
        n = len(flat_ps)

        def jvp_flat(*xs):
            out_p, out_t = ad.jvp_flat(
                lambda *p: tree_util.tree_leaves(to_jvp(*tree_util.tree_unflatten(ps_tree, p))),
                list(xs[:n]), list(xs[n:]))
            return list(out_p) + [ad.instantiate(t) for t in out_t]
        in_dims = [0 if b else not_mapped for b in tree_util.tree_leaves(extra_ps) + tree_util.tree_leaves(extra_ts)]
        outs, out_dims = batch_flat(jvp_flat, flat_ps + flat_ts, in_dims, AxisData(None, axis_size))
        outs = [bdim_at_front(o, d, axis_size) if d is not not_mapped else o for o, d in zip(outs, out_dims)]
        m = len(outs) // 2
        extra_out = [d is not not_mapped for d in out_dims]
        both_out = tree_util.tree_leaves(out_both[0])
        out_ps = tree_util.tree_unflatten(self.out_tree, outs[:m])
        out_ts = tree_util.tree_unflatten(self.out_tree, outs[m:])
        batched_ps = tree_util.tree_unflatten(self.out_tree, [a or b for a, b in zip(both_out, extra_out[:m])])
        batched_ts = tree_util.tree_unflatten(self.out_tree, [a or b for a, b in zip(both_out, extra_out[m:])])
        return (out_ps, out_ts), (batched_ps, batched_ts)


def sequential_vmap(f):
    """A custom_vmap function whose vmap is a loop (lax.map) over the batched arguments.

    >>> @jax.custom_batching.sequential_vmap
    ... def f(x): return x + 1
    >>> jax.vmap(f)(jnp.arange(3))
    Array([1, 2, 3], dtype=int32)
    """
    f = custom_vmap(f)

    @f.def_vmap
    def rule(axis_size, in_batched, *args):
        mask = list(in_batched)
        mapped = tree_util.tree_map(lambda m, x: x if m else None, mask, list(args))
        fixed = tree_util.tree_map(lambda m, x: None if m else x, mask, list(args))

        def one(mapped_args):
            return f(*tree_util.tree_map(lambda m, a, b: a if m else b, mask, mapped_args, fixed))
        out = lax_map(one, mapped)
        return out, tree_util.tree_map(lambda _: True, out)
    return f
