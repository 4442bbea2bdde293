"""User-defined derivative rules: `custom_jvp` and `custom_vjp`.

A decorated function is traced to a jaxpr and bound as a `custom_jvp_call` / `custom_vjp_call`
primitive carrying the user's rule. Evaluation, lowering and batching see the ordinary function;
the JVP trace calls the user's rule instead. For custom_vjp, the JVP rule runs `fwd` and emits a
`custom_lin` primitive (linear in the tangents) whose transpose calls `bwd`.
"""
from __future__ import annotations

import dataclasses
import functools
import inspect
from collections.abc import Callable
from typing import Any, NamedTuple

import numpy as np

from pyjax._src import core, dtypes, tree_util
from pyjax._src.api_vmap import vmap
from pyjax._src.core import Primitive
from pyjax._src.interpreters import ad, batching
from pyjax._src.interpreters import partial_eval as pe
from pyjax._src.interpreters.array_ops import lax_ops
from pyjax._src.lax.elementwise import _convert_element_type
from pyjax._src.lax.shape_ops import index_in_dim
from pyjax._src.remat_opt import optimize_remat_of_custom_vjp_fwd as optimize_remat_of_custom_vjp_fwd
from pyjax._src.traceback_util import api_boundary


def _signature(fun):
    """`fun`'s signature, or None where it has none to bind against: a functools.partial is
    opaque (its bound arguments would move), as in JAX."""
    if isinstance(fun, functools.partial):
        return None
    try:
        return inspect.signature(fun)
    except (TypeError, ValueError):
        return None


_POSITIONAL = (inspect.Parameter.POSITIONAL_ONLY, inspect.Parameter.POSITIONAL_OR_KEYWORD)


def _resolve_args(sig, fname, args, kwargs):
    """The call's arguments as positions, omitted ones with their defaults (JAX passes them to
    the rules too). Keyword-only arguments cannot be positions: passing one is a TypeError."""
    if sig is None:
        if kwargs:
            raise TypeError(f"{fname}: a custom_jvp/custom_vjp function called with keyword "
                            "arguments needs an inspectable signature")
        return args
    bound = sig.bind(*args, **kwargs)
    bound.apply_defaults()
    passed = [k for k in bound.kwargs if k in kwargs]
    if passed:
        raise TypeError("The following keyword arguments could not be resolved to positions: "
                        + ", ".join(passed))
    return bound.args


def _split_nondiff(args, nondiff_argnums):
    nondiff = tuple(args[i] for i in nondiff_argnums)
    dyn = tuple(a for i, a in enumerate(args) if i not in nondiff_argnums)
    return nondiff, dyn


def _merge(nondiff_argnums, nondiff, dyn):
    out, nd, dy = [], iter(nondiff), iter(dyn)
    for i in range(len(nondiff) + len(dyn)):
        out.append(next(nd) if i in nondiff_argnums else next(dy))
    return out


def _trace_flat(fun, args):
    """Trace the flat function `fun` on the avals of `args`: (const-free closed jaxpr, consts)."""
    closed, _ = pe.trace_to_jaxpr(fun, [core.get_aval(x) for x in args])
    return pe.as_const_free(closed)


def _flat_call(fun, in_tree, out_tree_box):
    """`fun` on a pytree as a function of flat leaves; records its output structure."""
    def flat(*leaves):
        out_flat, out_tree = tree_util.tree_flatten(fun(*tree_util.tree_unflatten(in_tree, leaves)))
        # (the types too: the rules' errors compare their outputs with the function's)
        out_tree_box[:] = [out_tree, [core.get_aval(x) for x in out_flat]]
        return out_flat
    return flat


def _eval_call(*args, call_jaxpr, **_):
    return core.eval_jaxpr(call_jaxpr.jaxpr, [], *args)


def _lower_call(ctx, *args, call_jaxpr, **_):
    return ctx.lower_jaxpr(call_jaxpr.jaxpr, [], list(args))


def _batch_call(prim, axis_size, args, dims, *, call_jaxpr, num_consts, **params):
    """Batch the call and the user's rules alike, mapped operands along axis 0.

    A custom_jvp call keeps its unmapped operands unmapped, as JAX does (a `cond` on an
    unbatched predicate inside it stays a `cond`); its JVP rule sees each tangent mapped as its
    primal is. A custom_vjp call does too, and its outputs are mapped where the function maps
    them (equinox's loops keep their step counters unbatched so): see `_batch_vjp_call`."""
    if prim.rule_names != ("jvp",):
        return _batch_vjp_call(prim, axis_size, args, dims, call_jaxpr=call_jaxpr,
                               num_consts=num_consts, **params)
    axes = [None if d is None else 0 for d in dims]
    args = [x if d is None else batching.moveaxis(x, d, 0) for x, d in zip(args, dims)]
    call = vmap(lambda *xs: core.eval_jaxpr(call_jaxpr.jaxpr, [], *xs), in_axes=axes,
                axis_size=axis_size)
    free, new_consts = _trace_flat(call, args)
    consts, dyn = args[:num_consts], args[num_consts:]
    dyn_axes = axes[num_consts:]
    new_params = {k: _vmapped_jvp_rule(v, dyn_axes, axis_size) if k == "jvp" else v
                  for k, v in params.items()}
    outs = prim.bind(*new_consts, *consts, *dyn, call_jaxpr=free, num_consts=len(new_consts) + num_consts,
                     **new_params)
    return outs, [0] * len(outs)


def _batch_vjp_call(prim, axis_size, args, dims, *, call_jaxpr, num_consts, fwd, bwd, **params):
    """A custom_vjp call under vmap, as JAX's: unmapped operands stay unmapped and an output is
    mapped (along 0) when the function maps it. `fwd` gives its outputs mapped alike and every
    residual mapped; `bwd` gets the output cotangents mapped as the outputs are and sums a
    mapped cotangent of an unmapped operand over the lanes."""
    axis = batching.AxisData(None, axis_size)
    axes = [None if d is None else 0 for d in dims]
    args = [x if d is None else batching.moveaxis(x, d, 0) for x, d in zip(args, dims)]
    out_axes = []

    def call(*xs):
        outs, out_dims = batching.batch_flat(
            lambda *ys: core.eval_jaxpr(call_jaxpr.jaxpr, [], *ys), list(xs), axes, axis)
        out_axes[:] = [None if d is None else 0 for d in out_dims]
        return [o if d is None else batching.moveaxis(o, d, 0) for o, d in zip(outs, out_dims)]
    free, new_consts = _trace_flat(call, args)
    consts, dyn = args[:num_consts], args[num_consts:]
    dyn_axes = axes[num_consts:]
    out_axes = list(out_axes)
    outs = prim.bind(*new_consts, *consts, *dyn, call_jaxpr=free, num_consts=len(new_consts) + num_consts,
                     fwd=_vmapped_fwd(fwd, dyn_axes, out_axes, axis),
                     bwd=_vmapped_bwd(bwd, dyn_axes, out_axes, axis), **params)
    return outs, out_axes


def _at_axis(x, d, want, size):
    """`x` (mapped along `d` or not) mapped along 0 when `want` is 0, else unmapped: lanes of a
    value the function does not map are equal, so the first stands for them."""
    if want is None:
        return x if d is None else index_in_dim(x, 0, d, keepdims=False)
    return batching.bdim_at_front(x, d, size)


def _vmapped_fwd(rule, dyn_axes, out_axes, axis):
    def batched(primals, **kw):
        box = []

        def flat(*xs):
            out, res = rule(list(xs), **kw)
            box.append(len(out))
            return [*out, *res]
        vals, dims = batching.batch_flat(flat, list(primals), dyn_axes, axis)
        n = box[0]
        out = [_at_axis(v, d, a, axis.size) for v, d, a in zip(vals[:n], dims[:n], out_axes, strict=True)]
        return out, [batching.bdim_at_front(v, d, axis.size) for v, d in zip(vals[n:], dims[n:])]
    return functools.wraps(rule)(batched)


def _vmapped_bwd(rule, dyn_axes, out_axes, axis):
    """bwd mapped over (residuals, cotangents): a zero cotangent goes in unmapped, typed as one
    example's; a cotangent of an unmapped operand comes out summed over the lanes."""
    symbolic = getattr(rule, "symbolic_zeros", False)

    def batched(res, cts):
        ct_axes = [None if isinstance(c, ad.Zero) else a for c, a in zip(cts, out_axes, strict=True)]
        cts = [type(c)(c.aval.update(shape=c.aval.shape[1:])) if isinstance(c, ad.Zero) and a is not None
               else c for c, a in zip(cts, out_axes)]
        nres = len(res)
        zeros = {i: c for i, c in enumerate(cts) if isinstance(c, ad.Zero)}

        def flat(*xs):
            it = iter(xs[nres:])
            full = [zeros[i] if i in zeros else next(it) for i in range(len(cts))]
            return list(rule(list(xs[:nres]), full))
        live = [c for c in cts if not isinstance(c, ad.Zero)]
        live_axes = [a for c, a in zip(cts, ct_axes) if not isinstance(c, ad.Zero)]
        vals, dims = _batch_flat_optional(flat, [*res, *live], [0] * nres + live_axes, axis)
        return [None if v is None else _summed_to(v, d, a, axis.size)
                for v, d, a in zip(vals, dims, dyn_axes, strict=True)]
    batched = functools.wraps(rule)(batched)
    batched.symbolic_zeros = symbolic
    return batched


def _vmapped_jvp_rule(rule, dyn_axes, axis_size):
    """A custom_jvp rule vmapped over (primals, tangents), each mapped as its primal; a symbolic
    zero tangent goes in unmapped, typed as one example's (as JAX's)."""
    def batched(primals, tangents, **kw):
        t_axes = [None if isinstance(t, ad.SymbolicZero) else a
                  for t, a in zip(tangents, dyn_axes, strict=True)]
        tangents = [ad.SymbolicZero(t.aval.update(shape=t.aval.shape[1:]))
                    if isinstance(t, ad.SymbolicZero) and a is not None else t
                    for t, a in zip(tangents, dyn_axes, strict=True)]
        return vmap(functools.partial(rule, **kw), in_axes=(list(dyn_axes), t_axes),
                    axis_size=axis_size)(primals, tangents)
    return functools.wraps(rule)(batched)


def _batch_flat_optional(fun, args, in_dims, axis):
    """`batching.batch_flat` for a function some of whose outputs are None (zero cotangents)."""
    where = []

    def flat(*xs):
        outs = fun(*xs)
        where[:] = [o is not None for o in outs]
        return [o for o in outs if o is not None]
    vals, dims = batching.batch_flat(flat, args, in_dims, axis)
    vals, dims = iter(vals), iter(dims)
    pairs = [(next(vals), next(dims)) if w else (None, None) for w in where]
    return [v for v, _ in pairs], [d for _, d in pairs]


def _summed_to(x, d, want, size):
    """A cotangent mapped along `d` (or not) for an operand mapped along `want` (0 or None):
    summed over the lanes for an unmapped operand, as JAX's custom_vjp batching."""
    if want is None:
        return x if d is None else lax_ops.reduce_sum(x, (d,))
    return batching.bdim_at_front(x, d, size)


class _CustomCall(core.CustomCallPrimitive):
    """`custom_jvp_call` / `custom_vjp_call`: the user's function as `call_jaxpr` (const-free; its
    constants are the first `num_consts` operands) and the user's rules as the parameters named
    `rule_names`. Evaluation, lowering and batching see the function; the JVP trace calls the
    rules through `call_jvp` (one per subclass)."""

    def __init__(self, name, rule_names):
        super().__init__(name, multiple_results=True)
        self.rule_names = rule_names
        self.def_abstract_eval(lambda *avals, call_jaxpr, **_: call_jaxpr.out_avals)
        self.def_impl(_eval_call)
        self.def_jvp(self._jvp)
        self.def_batch(functools.partial(_batch_call, self))
        self.def_lowering(_lower_call)
        self.def_dce(self._dce)

    def _dce(self, used_outputs, eqn):
        """Keep the used outputs only: the function's jaxpr and the rules are pruned alike (as
        JAX's dce of custom_jvp_call/custom_vjp_call)."""
        p = eqn.params
        closed = p["call_jaxpr"]
        pruned = core.ClosedJaxpr(pe.prune_jaxpr(closed.jaxpr, used_outputs), closed.consts)
        rules = self.prune_rules([p[n] for n in self.rule_names], used_outputs, closed.out_avals)
        params = dict(p, call_jaxpr=pruned, **dict(zip(self.rule_names, rules, strict=True)))
        outvars = [v for v, u in zip(eqn.outvars, used_outputs, strict=True) if u]
        return None, core.JaxprEqn(eqn.invars, outvars, self, params, eqn.source_info)

    def stage(self, fun, rules, args, params):
        call_jaxpr, consts = _trace_flat(fun, args)
        return self.bind(*consts, *args, call_jaxpr=call_jaxpr,
                         **dict(zip(self.rule_names, rules, strict=True)),
                         num_consts=len(consts), **params)

    def _jvp(self, primals, tangents, *, call_jaxpr, num_consts, symbolic_zeros, **rules):
        return self.call_jvp(tuple(rules[n] for n in self.rule_names), primals[num_consts:],
                             tangents[num_consts:], symbolic_zeros=symbolic_zeros)


class _FlatCall(NamedTuple):
    """A call of a custom_jvp/custom_vjp function, its differentiable arguments flattened."""
    nondiff: tuple          # the nondiff_argnums arguments
    dyn: tuple              # the other arguments
    leaves: list            # ... flattened
    in_tree: object
    full_args: Callable     # dyn -> every argument, in order
    fun: Callable           # the function of the leaves (flat outputs)
    out_tree_box: list      # its output structure, once known


class _CustomFunction:
    """What custom_jvp and custom_vjp share: the wrapped function, its non-differentiable
    arguments, and how a call is flattened and bound."""

    def __init__(self, fun, nondiff_argnums=(), nondiff_argnames=()):
        functools.update_wrapper(self, fun)
        self.fun = fun
        self.symbolic_zeros = False
        self._sig = _signature(fun)
        # as JAX: arguments named in nondiff_argnames are the positional parameters of those names
        named = [i for i, (name, p) in enumerate(self._sig.parameters.items())
                 if name in nondiff_argnames and p.kind in _POSITIONAL] if nondiff_argnames else []
        self.nondiff_argnums = tuple(sorted({*nondiff_argnums, *named}))

    def __get__(self, obj, objtype=None):
        return self if obj is None else functools.partial(self, obj)

    def __getattr__(self, name):
        # as JAX: the def* methods of a wrapped custom function reach through (custom_vjp of a
        # custom_vmap function still has def_vmap)
        fun = self.__dict__.get("fun")
        if name.startswith("def") and fun is not None:
            return getattr(fun, name)
        raise AttributeError(f"{type(self).__name__!r} object has no attribute {name!r}")

    def _flatten_call(self, args, kwargs) -> _FlatCall:
        name = getattr(self, "__name__", type(self).__name__)
        try:
            args = _resolve_args(self._sig, name, args, kwargs)
        except TypeError as e:  # (JAX's words)
            raise TypeError(f"The input arguments to the {type(self).__name__}-decorated function "
                            f"{name} could not be resolved to positional-only arguments. Binding "
                            f"failed with the error:\n{e}") from e
        nondiff, dyn = _split_nondiff(args, self.nondiff_argnums)
        leaves, in_tree = tree_util.tree_flatten(dyn)
        full_args = functools.partial(_merge, self.nondiff_argnums, nondiff)
        out_tree_box = []
        fun = _flat_call(lambda *d: self.fun(*full_args(d)), in_tree, out_tree_box)
        return _FlatCall(nondiff, dyn, leaves, in_tree, full_args, fun, out_tree_box)

    def _bind(self, prim, call: _FlatCall, rules):
        outs = prim.bind_call(call.fun, rules, *call.leaves, symbolic_zeros=self.symbolic_zeros)
        return tree_util.tree_unflatten(call.out_tree_box[0], outs)


# -- custom_jvp ----------------------------------------------------------------------------------

class _CustomJVPCall(_CustomCall):
    def call_jvp(self, rules, primals, tangents, *, symbolic_zeros):
        (jvp,) = rules
        ts = ([ad.to_symbolic(t) for t in tangents] if symbolic_zeros
              else [ad.instantiate(t) for t in tangents])
        return jvp(list(primals), ts)


    @staticmethod
    def prune_rules(rules, used, out_avals):
        (jvp,) = rules

        def pruned_jvp(primals, tangents):
            p_out, t_out = jvp(primals, tangents)
            return _kept(p_out, used), _kept(t_out, used)
        return (pruned_jvp,)


def _kept(xs, used):
    return [x for x, u in zip(xs, used, strict=True) if u]


custom_jvp_call_p = _CustomJVPCall("custom_jvp_call", ("jvp",))


@custom_jvp_call_p.def_transpose
def _custom_jvp_call_transpose(cts, *args, call_jaxpr, num_consts, **params):
    """A custom_jvp function applied to linear inputs (inside a linearized function, or under
    linear_transpose) is linear: transpose its function, as JAX does; the JVP rule has no part
    in reverse mode."""
    mask = [ad.is_undefined_primal(a) for a in args]
    residuals = [a for a in args if not ad.is_undefined_primal(a)]
    cts_in = ad.backward_pass(call_jaxpr.jaxpr, residuals, mask, list(cts))
    return [c if m else None for c, m in zip(cts_in, mask, strict=True)]


class custom_jvp(_CustomFunction):
    """A function with a custom JVP rule.

    Example:
        >>> @custom_jvp
        ... def f(x): return jnp.sin(x)
        >>> @f.defjvp
        ... def f_jvp(primals, tangents): (x,), (t,) = primals, tangents; return f(x), jnp.cos(x) * t
    """

    def __init__(self, fun, nondiff_argnums=(), nondiff_argnames=()):
        super().__init__(fun, nondiff_argnums, nondiff_argnames)
        self.jvp = None

    def defjvp(self, jvp, symbolic_zeros=False):
        self.jvp = jvp
        self.symbolic_zeros = symbolic_zeros
        return jvp


    def defjvps(self, *jvps):
        """One rule per argument: `jvps[i](tangent_i, primal_out, *primals)` (None: not differentiable)."""
        def jvp(primals, tangents):
            ans = self(*primals)
            t_out = None
            for rule, t in zip(jvps, tangents):
                if rule is None:
                    continue
                c = rule(t, ans, *primals)
                t_out = c if t_out is None else tree_util.tree_map(lambda a, b: a + b, t_out, c)
            if t_out is None:
                t_out = tree_util.tree_map(lambda a: a * 0, ans)
            return ans, t_out
        self.defjvp(jvp)

    @api_boundary
    def __call__(self, *args, **kwargs):
        if self.jvp is None:
            raise AttributeError(f"No JVP defined for custom_jvp function {self.__name__} using defjvp.")
        call = self._flatten_call(args, kwargs)
        return self._bind(custom_jvp_call_p, call, (_flat_jvp(self.__name__, self.jvp, call),))


def _pair(out, rule, what):
    if not (isinstance(out, (tuple, list)) and len(out) == 2):
        raise TypeError(f"{rule} must return a pair {what}, got {type(out).__name__}")
    return out


def _without_values(call: _FlatCall) -> _FlatCall:
    """`call` as a rule keeps it: the arguments' structure without their values. A rule lives
    on in the jaxpr's equation; holding the arguments would keep the tracers of a finished
    trace alive (jax_check_tracer_leaks reports them)."""
    dyn = []
    for a in call.dyn:
        tree = tree_util.tree_structure(a)
        dyn.append(tree_util.tree_unflatten(tree, [_ARG] * tree.num_leaves))
    return call._replace(dyn=tuple(dyn), leaves=None, fun=None)


_ARG = object()  # a stand-in leaf


def _flat_jvp(name, user_jvp, call: _FlatCall):
    """The user's JVP rule on flat primals and tangents, its outputs checked."""
    call = _without_values(call)

    def flat_jvp(ps, ts):
        p_tree = tree_util.tree_unflatten(call.in_tree, ps)
        t_tree = tree_util.tree_unflatten(call.in_tree, ts)
        out = user_jvp(*call.nondiff, p_tree, t_tree) if call.nondiff else user_jvp(p_tree, t_tree)
        rule = f"Custom JVP rule {getattr(user_jvp, '__name__', user_jvp)} for function {name}"
        if not (isinstance(out, (tuple, list)) and len(out) == 2):  # (JAX's words, in its order)
            raise TypeError(f"{rule} must produce a pair (list or tuple of length two) "
                            f"representing primal and tangent outputs, but got {out}")
        p_out, t_out = out
        p_flat, p_tree_out = tree_util.tree_flatten(p_out)
        t_flat, t_tree_out = tree_util.tree_flatten(t_out)
        if t_tree_out != p_tree_out:
            raise TypeError(f"{rule} must produce primal and tangent outputs with equal container "
                            f"(pytree) structures, but got {p_tree_out} and {t_tree_out} "
                            f"respectively.")
        first = (f"{rule} must produce a pair (list or tuple of length two) where the first "
                 f"element represents the primal output (equal in value to the output of the "
                 f"custom_jvp-decorated function {name}, and in particular ")
        if call.out_tree_box and p_tree_out != call.out_tree_box[0]:
            raise TypeError(
                f"{first}of the same container/pytree structure), but instead the JVP rule "
                f"output's first element had container/pytree structure:\n    "
                f"{_types_str(p_tree_out, p_flat)}\nwhile the custom_jvp-decorated function "
                f"{name} had output container/pytree structure:\n    {_fun_types_str(call)}.")
        if len(call.out_tree_box) > 1 and _shapes_dtypes(call.out_tree_box[1]) != _shapes_dtypes(
                [core.get_aval(x) for x in p_flat]):
            raise TypeError(
                f"{first}with leaves of the same shape/dtype), but instead the JVP rule output's "
                f"first element had shapes/dtypes of:\n    {_types_str(p_tree_out, p_flat)}\n"
                f"while the custom_jvp-decorated function {name} had output shapes/dtypes of:"
                f"\n    {_fun_types_str(call)}")
        call.out_tree_box[:1] = [p_tree_out]
        return p_flat, [_check_tangent(t, core.get_aval(p), name) for t, p in zip(t_flat, p_flat)]
    return flat_jvp


def _types_str(tree, flat):
    """`(float32[], float32[3])`: a structure with its leaves' types (JAX's error format)."""
    types = tree_util.tree_unflatten(tree, [_TypeStr(core.get_aval(x)) for x in flat])
    return repr(types)


def _fun_types_str(call):
    if len(call.out_tree_box) < 2:
        return str(call.out_tree_box[0])
    return repr(tree_util.tree_unflatten(call.out_tree_box[0],
                                         [_TypeStr(a) for a in call.out_tree_box[1]]))


def _shapes_dtypes(avals):
    return [(a.shape, a.dtype) for a in avals]


class _TypeStr:
    __slots__ = ("aval",)

    def __init__(self, aval):
        self.aval = aval

    def __repr__(self):
        return self.aval.str_short(short_dtypes=False)


def _check_tangent(t, aval, name):
    t = ad.from_symbolic(t)
    if type(t) is ad.Zero:
        return t
    expected = ad.tangent_aval(aval)
    if dtypes.is_float0(expected.dtype):
        return ad.Zero(expected)
    ta = core.get_aval(t)
    if ta.shape != aval.shape:  # (JAX's class and words)
        raise TypeError(f"Custom JVP rule must produce primal and tangent outputs with "
                        f"corresponding shapes and dtypes. Expected "
                        f"{expected.str_short(short_dtypes=False)} (tangent type of "
                        f"{aval.str_short(short_dtypes=False)}) but got "
                        f"{ta.str_short(short_dtypes=False)}.")
    if ta.dtype != expected.dtype:
        t = _convert_element_type(t, expected.dtype, False)
    return t


# -- custom_vjp ----------------------------------------------------------------------------------

@dataclasses.dataclass(frozen=True)
class CustomVJPPrimal:
    """What a `symbolic_zeros=True` fwd rule gets for each input leaf: its value, and whether
    it is perturbed (carries a nonzero tangent), so fwd can skip work for the others."""
    value: Any
    perturbed: bool


def custom_vjp_primal_tree_values(tree):
    """`tree` with each CustomVJPPrimal leaf replaced by its value."""
    return tree_util.tree_map(lambda x: x.value if isinstance(x, CustomVJPPrimal) else x, tree,
                              is_leaf=lambda x: isinstance(x, CustomVJPPrimal))


def zero_from_primal(val, symbolic_zeros=False):
    """Zero cotangents shaped like `val` (a pytree): `SymbolicZero`s, or arrays of zeros."""
    def zero(x):
        aval = ad.tangent_aval(core.get_aval(x))
        return ad.SymbolicZero(aval) if symbolic_zeros else ad.zeros_like_aval(aval)
    return tree_util.tree_map(zero, val)


class _CustomVJPCall(_CustomCall):
    def call_jvp(self, rules, primals, tangents, *, symbolic_zeros):
        """Run `fwd` on the primals; the tangents go through `custom_lin`, whose transpose is
        `bwd` (forward mode through it is an error, as in JAX)."""
        fwd, bwd = rules
        if symbolic_zeros:  # fwd learns which inputs carry a (nonzero) tangent
            perturbed = tuple(type(t) is not ad.Zero for t in tangents)
            out, res_leaves = fwd(list(primals), perturbed=perturbed)
        else:
            out, res_leaves = fwd(list(primals))
        ts = [ad.instantiate(t) for t in tangents]
        t_avals = tuple(ad.tangent_aval(core.get_aval(o)) for o in out)
        t_out = custom_lin_p.bind(*res_leaves, *ts, num_res=len(res_leaves), bwd=bwd, out_avals=t_avals)
        return out, t_out


    @staticmethod
    def prune_rules(rules, used, out_avals):
        fwd, bwd = rules

        def pruned_fwd(primals, perturbed=None):
            out, res = fwd(primals) if perturbed is None else fwd(primals, perturbed=perturbed)
            return _kept(out, used), res

        def pruned_bwd(res, cts):  # the dropped outputs' cotangents are zeros
            it = iter(cts)
            return bwd(res, [next(it) if u else ad.Zero(ad.tangent_aval(a))
                             for u, a in zip(used, out_avals, strict=True)])
        pruned_bwd.symbolic_zeros = getattr(bwd, "symbolic_zeros", False)
        return pruned_fwd, pruned_bwd


custom_vjp_call_p = _CustomVJPCall("custom_vjp_call", ("fwd", "bwd"))


custom_lin_p = Primitive("custom_lin", multiple_results=True)
custom_lin_p.def_abstract_eval(lambda *avals, num_res, bwd, out_avals: list(out_avals))
# (its outputs' vma is the primal outputs': staging does not join its operands, nor pvary them)
core.vma_rule_primitives.add(custom_lin_p)
custom_lin_p.transpose_zero_cts = True  # bwd runs on zero cotangents too (flax's fp8 meta grads)


def _custom_lin_forward_error(*args, **params):
    raise TypeError("can't apply forward-mode autodiff (jvp) to a custom_vjp function.")


custom_lin_p.def_impl(_custom_lin_forward_error)
custom_lin_p.def_jvp(_custom_lin_forward_error)
custom_lin_p.def_batch(_custom_lin_forward_error)  # only forward mode batches it (jacfwd)
custom_lin_p.def_lowering(_custom_lin_forward_error)  # jvp of a jitted custom_vjp function


@custom_lin_p.def_transpose
def _custom_lin_transpose(cts, *args, num_res, bwd, out_avals):
    res = list(args[:num_res])
    if not getattr(bwd, "symbolic_zeros", False):
        cts = [ad.instantiate(c) if not dtypes.is_float0(a.dtype) else c for c, a in zip(cts, out_avals)]
    cts_in = bwd(res, cts)
    return [None] * num_res + list(cts_in)


class custom_vjp(_CustomFunction):
    """A function with a custom VJP rule: `f.defvjp(fwd, bwd)`; `fwd(*args) -> (out, res)`,
    `bwd(res, ct_out) -> tuple of cotangents, one per argument` (None for zero).

    Example:
        >>> @custom_vjp
        ... def clip_gradient(x): return x
        >>> clip_gradient.defvjp(lambda x: (x, None), lambda _, g: (jnp.clip(g, -1, 1),))
    """

    def __init__(self, fun, nondiff_argnums=(), nondiff_argnames=()):
        super().__init__(fun, nondiff_argnums, nondiff_argnames)
        self.fwd = None
        self.bwd = None

    def defvjp(self, fwd, bwd, symbolic_zeros=False, optimize_remat=False):
        if optimize_remat:  # (as JAX: fwd becomes fun where its residuals go unused)
            fwd = optimize_remat_of_custom_vjp_fwd(self.fun, None, fwd, None, self.nondiff_argnums,
                                                   symbolic_zeros)
        self.fwd = fwd
        self.bwd = bwd
        self.symbolic_zeros = symbolic_zeros

    @api_boundary
    def __call__(self, *args, **kwargs):
        if self.fwd is None:
            raise AttributeError(f"No VJP defined for custom_vjp function {self.__name__} using defvjp.")
        call = self._flatten_call(args, kwargs)
        res_tree_box = []
        rules = (_flat_fwd(self.__name__, self.fwd, call, res_tree_box),
                 _flat_bwd(self.__name__, self.bwd, call, res_tree_box, self.symbolic_zeros))
        return self._bind(custom_vjp_call_p, call, rules)


def _flat_fwd(name, user_fwd, call: _FlatCall, res_tree_box):
    """The user's fwd rule on flat primals: `(flat outputs, flat residuals)`."""
    call = _without_values(call)

    def flat_fwd(ps, perturbed=None):
        if perturbed is not None:  # symbolic_zeros=True: each leaf as CustomVJPPrimal
            ps = [CustomVJPPrimal(p, z) for p, z in zip(ps, perturbed, strict=True)]
        out = user_fwd(*call.full_args(tree_util.tree_unflatten(call.in_tree, ps)))
        out, res = _pair(out, f"custom_vjp fwd rule for {name}", "(output, residuals)")
        out_flat, fwd_tree = tree_util.tree_flatten(out)
        if call.out_tree_box and (fwd_tree != call.out_tree_box[0] or (
                len(call.out_tree_box) > 1 and _shapes_dtypes(call.out_tree_box[1])
                != _shapes_dtypes([core.get_aval(x) for x in out_flat]))):
            raise TypeError(  # (JAX's words)
                f"Custom VJP fwd rule {getattr(user_fwd, '__name__', user_fwd)} for function "
                f"{name} must produce a pair (list or tuple of length two) where the first "
                f"element represents the primal output (equal to the output of the "
                f"custom_vjp-decorated function {name}) and the second element represents "
                f"residuals (i.e. values stored from the forward pass for use on the backward "
                f"pass), but instead the fwd rule output's first element had shapes/dtypes of:"
                f"\n    {_types_str(fwd_tree, out_flat)}\nwhile the custom_vjp-decorated "
                f"function {name} had output shapes/dtypes of:\n    {_fun_types_str(call)}")
        call.out_tree_box[:1] = [fwd_tree]
        res_flat, res_tree = tree_util.tree_flatten(res)
        res_tree_box[:] = [res_tree]
        return out_flat, res_flat
    return flat_fwd


def _flat_bwd(name, user_bwd, call: _FlatCall, res_tree_box, symbolic_zeros=False):
    """The user's bwd rule on flat residuals and output cotangents: one cotangent (or None) per
    input leaf. With `symbolic_zeros`, zero cotangents reach bwd as `SymbolicZero`s."""
    in_avals = [core.get_aval(x) for x in call.leaves]
    call = _without_values(call)

    def flat_bwd(res_flat, cts_flat):
        res = tree_util.tree_unflatten(res_tree_box[0], res_flat)
        cts_flat = ([ad.to_symbolic(c) for c in cts_flat] if symbolic_zeros
                    else [_ct_value(c) for c in cts_flat])
        ct = tree_util.tree_unflatten(call.out_tree_box[0], cts_flat)
        out = user_bwd(*call.nondiff, res, ct) if call.nondiff else user_bwd(res, ct)
        cts_in = _bwd_leaves(name, call.dyn, out)
        if core.vma_axes() is not None:
            _check_ct_vma(call.dyn, cts_in, in_avals)
        return [None if c is None or isinstance(c, ad.Zero) else _cast_ct(c, a)
                for c, a in zip(cts_in, in_avals)]
    flat_bwd.symbolic_zeros = symbolic_zeros
    return flat_bwd


def _bwd_leaves(name, dyn, out):
    """The leaves of what bwd returned (one cotangent per argument in `dyn`, None for zero)."""
    if not isinstance(out, (tuple, list)):
        raise TypeError(f"custom_vjp bwd rule for {name} must return a tuple with one "
                        f"cotangent per (differentiable) argument, got {type(out).__name__}")
    out = tuple(out)
    if len(out) != len(dyn):
        raise TypeError(f"custom_vjp bwd rule for {name} must return {len(dyn)} cotangents "
                        f"(one per differentiable argument), got {len(out)}")
    cts_in = []
    for arg, ct_arg in zip(dyn, out):
        # as in JAX, a None anywhere in the cotangent stands for zeros of that whole subtree
        arg_tree = tree_util.tree_structure(arg)
        dummy = tree_util.tree_unflatten(arg_tree, [object()] * arg_tree.num_leaves)

        def add(ct, sub):
            n = tree_util.tree_structure(sub).num_leaves
            cts_in.extend([None] * n if ct is None else [ct])
        try:
            tree_util.tree_map(add, ct_arg, dummy, is_leaf=lambda x: x is None)
        except (ValueError, TypeError):
            raise TypeError(f"custom_vjp bwd rule for {name}: cotangent structure "
                            f"{tree_util.tree_structure(ct_arg, is_leaf=lambda x: x is None)} does "
                            f"not match the argument's structure {arg_tree}") from None
    return cts_in


def _check_ct_vma(dyn, cts_in, in_avals):
    """Inside a check_vma shard_map body, each cotangent varies along the mesh axes its primal
    does (JAX's ValueError otherwise)."""
    for i, (c, a) in enumerate(zip(cts_in, in_avals)):
        if c is None or isinstance(c, ad.Zero) or dtypes.is_float0(ad.tangent_aval(a).dtype):
            continue
        ca = core.get_aval(c)
        if ca.vma != a.vma and ca.shape == a.shape:
            paths = [tree_util.keystr(p) for p, _ in tree_util.tree_flatten_with_path(tuple(dyn))[0]]
            raise ValueError(
                f"Custom VJP bwd rule must produce an output with the same type as the args "
                f"tuple of the primal function, but at output{paths[i]} the bwd rule produced "
                f"an output of type {ca.str_short(False)} corresponding to an input of type "
                f"{a.str_short(False)}, so the manual axis types do not match")


def _ct_value(c):
    if type(c) is ad.Zero:
        return ad.zeros_like_aval(c.aval)
    return c


def _cast_ct(c, aval):
    if dtypes.is_float0(ad.tangent_aval(aval).dtype):
        return None
    ca = core.get_aval(c)
    if ca.dtype != aval.dtype:
        c = _convert_element_type(c, aval.dtype, False)
    return c


@api_boundary
def closure_convert(fun, *example_args):
    """Return `(converted_fun, consts)`: `fun` with closed-over arrays hoisted as extra trailing
    arguments, for use with custom_vjp."""
    leaves, in_tree = tree_util.tree_flatten(example_args)
    jaxpr, consts, out_tree = pe.trace_tree_to_jaxpr(fun, in_tree, [core.get_aval(x) for x in leaves])

    def converted(*args):
        *primal, = args[:len(args) - len(consts)]
        cs = args[len(args) - len(consts):]
        ls, _ = tree_util.tree_flatten(tuple(primal))
        return tree_util.tree_unflatten(out_tree, core.eval_jaxpr(jaxpr.jaxpr, [], *cs, *ls))
    return converted, consts


del np


# -- custom_gradient: TensorFlow's spelling of a custom VJP -------------------------------------

@tree_util.register_pytree_node_class
class _GradientRule:
    """A custom_gradient's backward function, traced to a jaxpr: its constants are the children
    (the residuals custom_vjp carries), the jaxpr and the result structure the aux data."""

    def __init__(self, jaxpr, consts, result_tree):
        self.jaxpr, self.consts, self.result_tree = jaxpr, consts, result_tree

    def tree_flatten(self):
        return list(self.consts), (self.jaxpr, self.result_tree)

    @classmethod
    def tree_unflatten(cls, aux, consts):
        return cls(aux[0], consts, aux[1])


def custom_gradient(fun):
    """A function with a custom gradient, TensorFlow's way: `fun(*args)` returns `(value,
    vjp)`, where `vjp(cotangent of value)` returns a tuple of cotangents, one per argument.

    Example:
        >>> @jax.custom_gradient
        ... def f(x):
        ...     return x ** 2, lambda g: (g * 10.0,)   # a made-up gradient
        >>> jax.grad(f)(3.0)
        Array(10., dtype=float32, weak_type=True)
    """
    @custom_vjp
    def wrapped(*args):
        value, _ = fun(*args)
        return value

    def fwd(*args):
        value, rule = fun(*args)
        out_flat, out_tree = tree_util.tree_flatten((value,))
        result_tree = []

        def flat_rule(*cts):
            res = rule(*tree_util.tree_unflatten(out_tree, list(cts)))
            leaves, tree = tree_util.tree_flatten(res)
            result_tree.append(tree)
            return leaves
        closed, _ = pe.trace_to_jaxpr(flat_rule, [ad.tangent_aval(core.get_aval(o)) for o in out_flat])
        return value, _GradientRule(closed.jaxpr, list(closed.consts), result_tree[0])

    def bwd(rule, ct):
        cts_in = core.eval_jaxpr(rule.jaxpr, rule.consts, *tree_util.tree_leaves((ct,)))
        cts_in = tree_util.tree_unflatten(rule.result_tree, cts_in)
        if rule.result_tree.num_nodes == 1:  # a single cotangent, not in a tuple: as JAX, fine
            return (cts_in,)
        return tuple(cts_in) if isinstance(cts_in, list) else cts_in
    wrapped.defvjp(fwd, bwd)
    return functools.wraps(fun)(wrapped)
