"""Automatic differentiation: forward mode (JVP), linearization, and transposition.

- `JVPTrace` carries (primal, tangent) pairs; a tangent may be a symbolic `Zero`. Each primitive's
  `jvp(primals, tangents, **params) -> (primal_out, tangent_out)` rule runs under the parent trace.
- Reverse mode = linearize + transpose: the JVP of a function is traced into a jaxpr, split by
  `partial_eval_jaxpr` into the primal computation (evaluated now, producing residuals) and a
  linear jaxpr of the tangents, which `backward_pass` transposes (each linear primitive's
  `transpose(ct, *args, **params)` rule; arguments being transposed are `UndefinedPrimal`s).
"""
from __future__ import annotations

import contextlib

import numpy as np

from pyjax._src import core, dtypes, source_info, tree_util
from pyjax._src.core import Literal, Primitive, ShapedArray, Tracer, Var
from pyjax._src.interpreters import batching
from pyjax._src.interpreters import partial_eval as pe
from pyjax._src.interpreters.array_ops import lax_ops
from pyjax._src.interpreters.rule_tables import RuleTable
from pyjax._src.mesh import SHARDING_IN_TYPES


# -- symbolic zeros and tangent types ---------------------------------------------------------


class Zero:
    """A tangent or cotangent known to be zero, with the aval it would have."""

    __slots__ = ("aval",)

    def __init__(self, aval):
        self.aval = aval

    def __repr__(self):
        return f"Zero({self.aval.str_short()})"

    shape = property(lambda self: self.aval.shape)
    dtype = property(lambda self: self.aval.dtype)


# As JAX's: a pytree node without children, so a Zero that reaches user code (equinox's
# primitives return them from the functions they vmap) flattens to nothing.
tree_util.register_pytree_node(Zero, lambda z: ((), z.aval), lambda aval, _: Zero(aval))


class SymbolicZero(Zero):
    """A zero tangent or cotangent as custom_jvp/custom_vjp rules with `symbolic_zeros=True`
    see it: a pytree leaf (JAX's `jax.custom_derivatives.SymbolicZero`), unlike `Zero`."""
    __slots__ = ()

    def __repr__(self):
        return "SymbolicZero"

    @staticmethod
    def from_primal_value(val):
        return SymbolicZero(tangent_aval(core.get_aval(val)))


def to_symbolic(t):
    """A tangent as a symbolic-zeros rule receives it: `Zero`s become `SymbolicZero`s."""
    return SymbolicZero(t.aval) if type(t) is Zero else t


def from_symbolic(t):
    """What a symbolic-zeros rule returned, back in the interpreters' terms."""
    return Zero(t.aval) if type(t) is SymbolicZero else t


def tangent_aval(aval: ShapedArray) -> ShapedArray:
    """Integer and bool values have float0 tangents."""
    dt = aval.dtype
    if type(aval) is ShapedArray:  # (the common case, read without getattr calls)
        sharding, vma, space = aval.sharding, aval.vma, aval.memory_space
    else:
        sharding, vma = getattr(aval, "sharding", None), getattr(aval, "vma", core.NO_VMA)
        space = getattr(aval, "memory_space", core.MemorySpace.Device)
    if dtypes.issubdtype(dt, np.inexact):
        return ShapedArray(aval.shape, dt, aval.weak_type, sharding, vma, space)
    return ShapedArray(aval.shape, dtypes.float0, False, sharding, vma, space)


def zeros_like_aval(aval):
    if dtypes.is_float0(aval.dtype):
        return np.zeros(aval.shape, dtypes.float0)
    return lax_ops.zeros(aval)


def instantiate(t):
    return zeros_like_aval(t.aval) if type(t) is Zero else t


def add_tangents(a, b):
    if type(a) is Zero:
        return b
    if type(b) is Zero:
        return a
    return add_any_p.bind(a, b)


# `add_any` adds two tangents/cotangents of the same type (used to accumulate fan-out).
add_any_p = Primitive("add_any")
add_any_p.def_abstract_eval(lambda x, y: x)
add_any_p.np_impl = np.add


add_any_p.def_impl(lambda x, y: lax_ops.add(x, y))
add_any_p.def_lowering(lambda ctx, x, y: ctx.op("stablehlo.add", x, y))
add_any_p.def_jvp(lambda primals, tangents: (add_any_p.bind(*primals), add_tangents(*tangents)))
add_any_p.def_transpose(lambda ct, x, y: [ct, ct])


def _add_any_batch(axis_size, args, dims):
    (x, y), (dx, dy) = args, dims
    d = dx if dx is not batching.not_mapped else dy
    return add_any_p.bind(batching.matchaxis(x, dx, d, axis_size),
                          batching.matchaxis(y, dy, d, axis_size)), d


add_any_p.def_batch(_add_any_batch)


# -- rule helpers ---------------------------------------------------------------------------


def defjvp(prim: Primitive, *jvp_fns):
    """Elementwise-style JVP: `jvp_fns[i](g, ans, *primals, **params)` is the contribution of
    argument i's tangent `g` (None for non-differentiable arguments)."""
    def rule(primals, tangents, **params):
        ans = prim.bind(*primals, **params)
        out = Zero(tangent_aval(core.get_aval(ans)))
        for fn, t in zip(jvp_fns, tangents):
            if fn is not None and type(t) is not Zero:
                out = add_tangents(out, fn(t, ans, *primals, **params))
        return ans, out
    prim.def_jvp(rule)



def deflinear(prim: Primitive, transpose_rule):
    """A primitive linear in all its arguments: its JVP applies it to the tangents."""
    def jvp(primals, tangents, **params):
        ans = prim.bind(*primals, **params)
        if all(type(t) is Zero for t in tangents):
            return ans, Zero(tangent_aval(core.get_aval(ans)))
        return ans, prim.bind(*[instantiate(t) for t in tangents], **params)
    prim.def_jvp(jvp)
    prim.def_transpose(transpose_rule)


def deflinear_in(prim: Primitive, linear_argnums, transpose_rule):
    """A primitive linear in the arguments `linear_argnums` (the others are constant in its
    linear use, e.g. the indices of dynamic_slice or the padding value of pad when zero)."""
    def jvp(primals, tangents, **params):
        ans = prim.bind(*primals, **params)
        lin = [tangents[i] for i in linear_argnums]
        if all(type(t) is Zero for t in lin):
            return ans, Zero(tangent_aval(core.get_aval(ans)))
        args = list(primals)
        for i in linear_argnums:
            args[i] = instantiate(tangents[i])
        return ans, prim.bind(*args, **params)
    prim.def_jvp(jvp)
    prim.def_transpose(transpose_rule)


class UndefinedPrimal:
    """Marks the argument of a linear primitive that is being transposed."""

    __slots__ = ("aval",)

    def __init__(self, aval):
        self.aval = aval

    def __repr__(self):
        return f"UndefinedPrimal({self.aval.str_short()})"


def is_undefined_primal(x) -> bool:
    return type(x) is UndefinedPrimal


# JAX's tables, as views of the rules on each primitive (libraries such as equinox assign to
# them): `primitive_jvps[p] = rule` is `p.def_jvp(rule)`, with the same signatures.
primitive_jvps = RuleTable("ad.primitive_jvps", "jvp")
primitive_transposes = RuleTable("ad.primitive_transposes", "transpose")


# -- the JVP trace --------------------------------------------------------------------------


class JVPTracer(Tracer):
    __slots__ = ("primal", "tangent")

    def __init__(self, trace, primal, tangent):
        self._trace = trace
        self.primal = primal
        self.tangent = tangent

    @property
    def aval(self):
        primal = self.primal
        return primal.aval if isinstance(primal, Tracer) else core.get_aval(primal)

    def to_concrete_value(self):
        return core.to_concrete_value(self.primal)

    def _provenance(self):
        return self.primal._provenance() if isinstance(self.primal, Tracer) else []

    def __repr__(self):  # as JAX: grad/vjp/linearize's tracers are GradTracers, jvp's JVPTracers
        if isinstance(self.tangent, pe.DynamicJaxprTracer) and isinstance(self.tangent._trace, pe.PartialEvalTrace):
            return f"GradTracer(primal={self.primal}, typeof(tangent)={self.tangent.aval.str_short()})"
        return f"JVPTracer(primal={self.primal}, tangent={self.tangent})"


class JVPTrace(core.Trace):
    __slots__ = ()

    def to_pair(self, x):
        if isinstance(x, JVPTracer) and x._trace is self:
            return x.primal, x.tangent
        return x, Zero(tangent_aval(core.get_aval(x)))

    def process_primitive(self, prim, args, params):
        if not any(isinstance(x, JVPTracer) and x._trace is self for x in args):
            with core.set_current_trace(self.parent):  # every tangent is a symbolic zero
                return prim.bind(*args, **params)
        primals, tangents = [], []
        for x in args:
            p, t = self.to_pair(x)
            primals.append(p)
            tangents.append(t)
        with core.set_current_trace(self.parent):
            if all(type(t) is Zero for t in tangents):  # (tracers of Refs may carry a Zero)
                return prim.bind(*primals, **params)
            # tuples, as JAX's JVPTrace hands them (equinox passes them on as vmap's in_axes)
            out, out_t = (prim.jvp or prim.rule("jvp"))(tuple(primals), tuple(tangents),
                                                        **params)
        if prim.multiple_results:
            return [maybe_jvp_tracer(self, p, t) for p, t in zip(out, out_t, strict=True)]
        return maybe_jvp_tracer(self, out, out_t)

    def process_custom_call(self, prim, fun, rules, args, params):
        primals, tangents = zip(*[self.to_pair(x) for x in args]) if args else ((), ())
        with core.set_current_trace(self.parent):
            if all(type(t) is Zero for t in tangents):
                return prim.bind_call(fun, rules, *primals, **params)
            out, out_t = prim.call_jvp(rules, list(primals), list(tangents), **params)
        return [maybe_jvp_tracer(self, p, t) for p, t in zip(out, out_t, strict=True)]


def maybe_jvp_tracer(trace, primal, tangent):
    """As JAX: a value whose tangent is a symbolic zero (or of type float0) is the primal itself,
    not a tracer of this trace (equinox's filter_jvp tells differentiated outputs apart so)."""
    if type(tangent) is Zero or dtypes.is_float0(getattr(tangent, "dtype", None)):
        return primal
    return JVPTracer(trace, primal, tangent)


def jvp_flat(fun, primals, tangents):
    """JVP of a flat function (list in, list out): returns (primals_out, tangents_out) with
    symbolic zeros left as `Zero`."""
    with core.new_trace(JVPTrace) as trace, source_info.transform_name_stack("jvp"):
        ins = [maybe_jvp_tracer(trace, p, t) for p, t in zip(primals, tangents, strict=True)]
        outs = fun(*ins)
        pairs = [trace.to_pair(o) for o in outs]
    return [p for p, _ in pairs], [t for _, t in pairs]


def jvp_jaxpr(closed: core.ClosedJaxpr, nonzeros) -> core.ClosedJaxpr:
    """The JVP of a closed jaxpr as a new closed jaxpr: inputs are the primals followed by the
    tangents of the inputs flagged in `nonzeros`; outputs are the primal outputs followed by the
    output tangents (zeros instantiated), except float0 ones, which are never jaxpr values
    (`merge_float0_tangents` puts them back as Zeros). Higher-order primitives build their JVP
    with this."""
    n = len(closed.in_avals)
    t_avals = [tangent_aval(a) for a, nz in zip(closed.in_avals, nonzeros, strict=True) if nz]
    out, _ = pe.trace_to_jaxpr(_jvp_fun(closed, nonzeros, True, []), list(closed.in_avals) + t_avals)
    return out


def jvp_jaxpr_nonzero(closed: core.ClosedJaxpr, nonzeros):
    """As `jvp_jaxpr`, but the output tangents that are symbolic zeros are left out too (as
    JAX's pjit JVP: those outputs stay plain primals); returns (jaxpr, which output tangents
    it returns), for `merge_tangents`."""
    t_avals = [tangent_aval(a) for a, nz in zip(closed.in_avals, nonzeros, strict=True) if nz]
    box = []
    out, _ = pe.trace_to_jaxpr(_jvp_fun(closed, nonzeros, False, box), list(closed.in_avals) + t_avals)
    return out, box[0]


def _jvp_fun(closed, nonzeros, instantiate_zeros, box):
    n = len(closed.in_avals)

    def jvp_fun(*args):
        ps, ts = args[:n], iter(args[n:])
        tans = [next(ts) if nz else Zero(tangent_aval(a)) for a, nz in zip(closed.in_avals, nonzeros)]
        out_p, out_t = jvp_flat(core.jaxpr_as_fun(closed), ps, tans)
        kept = [not dtypes.is_float0(t.aval.dtype if type(t) is Zero else core.get_aval(t).dtype)
                and (instantiate_zeros or type(t) is not Zero) for t in out_t]
        box.append(kept)
        return out_p + [instantiate(t) for t, k in zip(out_t, kept) if k]
    return jvp_fun


def merge_tangents(out_avals, kept, tangents):
    """The full list of output tangents from those a `jvp_jaxpr_nonzero` jaxpr returned."""
    it = iter(tangents)
    return [next(it) if k else Zero(tangent_aval(a)) for a, k in zip(out_avals, kept, strict=True)]


def merge_float0_tangents(out_avals, tangents):
    """Rebuild the full list of output tangents from those a `jvp_jaxpr` returned."""
    it = iter(tangents)
    return [Zero(tangent_aval(a)) if dtypes.is_float0(tangent_aval(a).dtype) else next(it)
            for a in out_avals]


# -- partial evaluation of jaxprs (known/unknown split) -----------------------------------------


def partial_eval_jaxpr(jaxpr: core.Jaxpr, unknowns, instantiate_outs):
    """Split `jaxpr` into a known part and an unknown part.

    `unknowns[i]` says whether invar i is unknown. Returns `(known, unknown, out_unknowns,
    num_res)`: `known` maps the known inputs to (known outputs..., residuals...); `unknown` maps
    (residuals..., unknown inputs...) to the unknown outputs. Outputs with `instantiate_outs[i]`
    set are forced into the unknown part even if they are known.
    """
    unknown_vars = {v for v, u in zip(jaxpr.invars, unknowns, strict=True) if u}
    known_eqns, unknown_eqns = [], []
    for eqn in jaxpr.eqns:
        if not any(type(v) is Var and v in unknown_vars for v in eqn.invars):
            known_eqns.append(eqn)
            continue
        rule = eqn.primitive.partial_eval
        if rule is not None:
            in_unknown = [type(v) is Var and v in unknown_vars for v in eqn.invars]
            k_eqns, u_eqns, out_unknown = rule(eqn, in_unknown)
            known_eqns += k_eqns
            unknown_eqns += u_eqns
            unknown_vars.update(v for v, u in zip(eqn.outvars, out_unknown) if u)
        else:
            unknown_eqns.append(eqn)
            unknown_vars.update(eqn.outvars)
    out_unknowns = [(type(v) is Var and v in unknown_vars) or inst
                    for v, inst in zip(jaxpr.outvars, instantiate_outs, strict=True)]
    # residuals: known values the unknown side reads (incl. known outputs forced unknown)
    defined_known = set(jaxpr.constvars) | {v for v, u in zip(jaxpr.invars, unknowns) if not u}
    for eqn in known_eqns:
        defined_known.update(eqn.outvars)
    residuals = []
    seen = set()

    def need(v):
        if type(v) is Var and v in defined_known and v not in seen:
            seen.add(v)
            residuals.append(v)
    for eqn in unknown_eqns:
        for v in eqn.invars:
            need(v)
    for v, u in zip(jaxpr.outvars, out_unknowns):
        if u and not (type(v) is Var and v in unknown_vars):
            need(v)
    known_outs = [v for v, u in zip(jaxpr.outvars, out_unknowns) if not u]
    known = core.Jaxpr(jaxpr.constvars, [v for v, u in zip(jaxpr.invars, unknowns) if not u],
                       known_outs + residuals, known_eqns)
    unknown_ins = [v for v, u in zip(jaxpr.invars, unknowns) if u]
    unknown_outs = [v for v, u in zip(jaxpr.outvars, out_unknowns) if u]
    unknown = core.Jaxpr([], residuals + unknown_ins, unknown_outs, unknown_eqns)
    return known, unknown, out_unknowns, len(residuals)


# -- transposition ----------------------------------------------------------------------------


def backward_pass(jaxpr: core.Jaxpr, residuals, linear_avals_mask, cts_out, linear_avals=None):
    """Transpose a jaxpr that is linear in the invars flagged in `linear_avals_mask`.

    `residuals` are the values of the other invars (in order). Returns the cotangents of the
    linear invars (Zero where nothing flowed back). `linear_avals` (one per linear invar) are
    the types transpose rules see for those invars when they differ from the jaxpr's (as JAX:
    a scan carry's cotangent has the type of the cotangent flowing in, whose weak type may
    differ), so that e.g. a conversion transposes back to that type."""
    env = {}
    linear = set()
    undefined = {}
    res_it = iter(residuals)
    lin_avals = iter(linear_avals) if linear_avals is not None else None
    for v, is_lin in zip(jaxpr.invars, linear_avals_mask, strict=True):
        if is_lin:
            linear.add(v)
            if lin_avals is not None:
                undefined[v] = UndefinedPrimal(next(lin_avals))
        else:
            env[v] = next(res_it)

    def read(v):
        return v.val if type(v) is Literal else env[v]

    lin_eqns = []
    for eqn in jaxpr.eqns:  # forward: evaluate the non-linear equations
        if any(type(v) is Var and v in linear for v in eqn.invars):
            linear.update(eqn.outvars)
            lin_eqns.append(eqn)
        else:
            with _staged_as(eqn, None):
                out = eqn.primitive.bind(*[read(v) for v in eqn.invars], **eqn.params)
            outs = out if eqn.primitive.multiple_results else [out]
            for v, x in zip(eqn.outvars, outs, strict=True):
                env[v] = x

    ct_env = {}

    def write_ct(v, ct):
        if type(v) is Var and v in linear and ct is not None and type(ct) is not Zero:
            if SHARDING_IN_TYPES[0]:
                ct = _ct_in_primal_layout(v, ct)
            ct_env[v] = add_tangents(ct_env[v], ct) if v in ct_env else ct

    for v, ct in zip(jaxpr.outvars, cts_out, strict=True):
        write_ct(v, ct)
    for eqn in reversed(lin_eqns):
        cts = [ct_env.pop(v, None) for v in eqn.outvars]
        if all(c is None for c in cts) and not eqn.primitive.transpose_zero_cts:
            continue
        cts = [Zero(tangent_aval(v.aval)) if c is None else c for v, c in zip(eqn.outvars, cts)]
        invals = [(undefined.get(v) or UndefinedPrimal(v.aval)) if type(v) is Var and v in linear
                  else read(v) for v in eqn.invars]
        rule = eqn.primitive.transpose or eqn.primitive.rule("transpose")
        with _staged_as(eqn, "transpose"):
            cts_in = rule(cts if eqn.primitive.multiple_results else cts[0], *invals, **eqn.params)
        for v, ct in zip(eqn.invars, cts_in, strict=True):
            write_ct(v, ct)
    return [ct_env.get(v, Zero(tangent_aval(undefined[v].aval if v in undefined else v.aval)))
            if is_lin else None for v, is_lin in zip(jaxpr.invars, linear_avals_mask)]


def _ct_in_primal_layout(v, ct):
    """Sharding in types: a traced cotangent laid out as its primal (grads keep the primal
    shardings, as JAX's transpose rules arrange one by one)."""
    want = getattr(v.aval, "sharding", None)
    if want is None or not isinstance(ct, Tracer) or getattr(ct.aval, "sharding", None) == want:
        return ct
    return lax_ops.reshard(ct, want)


def _staged_as(eqn, transform):
    """Equations staged for `eqn` (its transpose, or itself again) keep its user line and its
    name stack (`transpose(jvp(outer))` as JAX names a transposed equation)."""
    info = eqn.source_info
    if not isinstance(info, source_info.SourceInfo):
        return contextlib.nullcontext()
    base = source_info.current_name_stack()
    own = info.name_stack
    if own[:len(base)] == base:  # staged under the same scopes (a linear jaxpr is not reset)
        own = own[len(base):]
    stack = base.transform(transform) if transform else base
    return source_info.user_context(info.traceback, stack + own)


def unbroadcast_ct(ct, x_aval):
    """Sum a cotangent over the dimensions that were broadcast (rank-0 or size-1 operands of
    elementwise primitives). Lives here, built from `lax_ops`, because lax's elementwise rules
    use it and load before `reduce_sum` is defined."""
    if type(ct) is Zero:
        return ct
    ct_aval = core.get_aval(ct)
    if ct_aval.shape == x_aval.shape:
        return ct
    if not x_aval.shape:
        return lax_ops.reduce_sum(ct, tuple(range(ct_aval.ndim)))
    axes = tuple(i for i, (a, b) in enumerate(zip(x_aval.shape, ct_aval.shape)) if a == 1 and b != 1)
    return lax_ops.reshape(lax_ops.reduce_sum(ct, axes), x_aval.shape)
