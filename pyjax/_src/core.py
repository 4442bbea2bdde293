"""The core: abstract values, primitives, the jaxpr IR and the trace machinery.

Everything else builds on the few classes here:

- `ShapedArray(shape, dtype, weak_type)` is the abstract value (aval) every traced value carries.
- `Primitive` is one operation with all of its rules attached (impl, abstract eval, jvp,
  transpose, batching, lowering). Interpreters ask the primitive for its rules.
- `Var`, `Literal`, `JaxprEqn`, `Jaxpr`, `ClosedJaxpr` form the IR; `check_jaxpr` type-checks it,
  `eval_jaxpr` interprets it, and `str(jaxpr)` prints it the way JAX does.
- Tracing is *stackless*: a thread-local slot holds the current `Trace`; `bind` hands a primitive
  to it. Each trace knows its parent, and a rule that needs to compute on the "inside" values
  runs under the parent (`with set_current_trace(trace.parent)`).
"""
from __future__ import annotations

import itertools
import operator
import threading
import weakref
from contextlib import contextmanager
from typing import Any, NamedTuple

import numpy as np

from pyjax._src import dtypes
from pyjax._src import errors
from pyjax._src import source_info
from pyjax._src import mesh as mesh_lib
from pyjax._src.backend import xla
from pyjax._src.sharding import DuplicateSpecError, NamedSharding, PartitionSpec
from pyjax._src.avals import (  # noqa: F401 (core.X, as in JAX)
    AbstractToken, ShapedArray, primal_dtype_to_tangent_dtype, short_dtype_name, spec_parts,
    with_context_sharding)
from pyjax._src.sharding_in_types import (  # noqa: F401 (core.X, as in JAX)
    ManualAxisType, MemorySpace, aval_sharding, default_memory_space, mem_kind_to_space,
    mem_space_to_kind, memory_space_str, sharded_dims_str)
from pyjax._src.sharding_in_types import (  # noqa: F401 (core.X: the vma types' state)
    NO_VMA, VMA_TRACING, order_axes, tracing_with_vma, vma_axes, vma_str)

# --------------------------------------------------------------------------------------------
# Abstract values (the classes are in avals.py)

ShardingTypeError = errors.ShardingTypeError
UnexpectedTracerError = errors.UnexpectedTracerError  # (core.X, as in JAX)
_SHARDING_IN_TYPES = mesh_lib.SHARDING_IN_TYPES

# The types of symbolic dimensions (export's DimExpr, registered by pyjax._src.export): shape
# rules accept them where they accept ints.
symbolic_dim_types: tuple = ()


def is_symbolic_dim(v) -> bool:
    """Whether `v` is a symbolic dimension (`jax.export.symbolic_shape`'s)."""
    return isinstance(v, symbolic_dim_types)


def is_constant_dim(d) -> bool:
    """Whether the dimension `d` is a static integer."""
    try:
        operator.index(d)
        return True
    except Exception:  # (a symbolic dimension, a tracer, anything not an integer)
        return False


def is_dim(v) -> bool:
    return is_symbolic_dim(v) or is_constant_dim(v)


def is_constant_shape(shape) -> bool:
    return all(is_constant_dim(d) for d in shape)


def max_dim(d1, d2):
    """The larger of two dimensions (ints, or symbolic: `max(b - 5, 0)` when undecided)."""
    if is_constant_dim(d1) and is_constant_dim(d2):
        return max(d1, d2)
    return d2.rmax(d1) if is_constant_dim(d1) else d1.max(d2)


def min_dim(d1, d2):
    """The smaller of two dimensions (ints, or symbolic)."""
    if is_constant_dim(d1) and is_constant_dim(d2):
        return min(d1, d2)
    return d2.rmin(d1) if is_constant_dim(d1) else d1.min(d2)


# Python types whose values can be abstracted, and how (filled in by array.py etc.).
pytype_aval_mappings: dict[type, Any] = {}


def get_aval(x) -> ShapedArray:
    """The abstract value of a traced or concrete value (Arrays, NumPy values, Python scalars)."""
    if isinstance(x, Tracer):
        return x.aval
    handler = pytype_aval_mappings.get(type(x))
    if handler is not None:
        return handler(x)
    for t in type(x).__mro__[1:]:
        handler = pytype_aval_mappings.get(t)
        if handler is not None:
            return handler(x)
    if hasattr(x, "__jax_array__"):
        return get_aval(x.__jax_array__())
    raise TypeError(f"Argument '{x}' of type {type(x)} is not a valid JAX type.")  # (JAX's words)


def shaped_abstractify(x) -> ShapedArray:
    """The aval of a value that is only traced (eval_shape, make_jaxpr, lower, linear_transpose):
    as `get_aval`, and, as JAX, anything with a `shape` and a `dtype` (a user's struct, a
    SimpleNamespace) stands for an array of that type."""
    try:
        return get_aval(x)
    except TypeError:
        shape, dt = getattr(x, "shape", None), getattr(x, "dtype", None)
        if shape is None or dt is None:
            raise
        try:
            dt = dtypes.canonicalize_dtype(np.dtype(dt))
            shape = tuple(d if is_symbolic_dim(d) else operator.index(d) for d in shape)
        except TypeError:
            raise TypeError(f"Argument '{x}' of type {type(x)} is not a valid JAX type.") from None
        return ShapedArray(shape, dt, bool(getattr(x, "weak_type", False)))


def _numpy_aval(x):
    if type(x).__module__.startswith("numpy.ma"):  # (JAX's words)
        raise ValueError("numpy masked arrays are not supported as direct inputs to JAX functions. "
                         "Use arr.filled() to convert the value to a standard numpy array.")
    dt = dtypes.canonicalize_dtype(x.dtype)
    return ShapedArray(np.shape(x), dt, False)


def _python_scalar_aval(x):
    # Python bools are not weakly typed (as in JAX); int/float/complex are.
    return ShapedArray((), dtypes.canonicalize_dtype(dtypes.dtype(x)), type(x) is not bool)


pytype_aval_mappings[np.ndarray] = _numpy_aval
pytype_aval_mappings[np.generic] = _numpy_aval
for _t in (bool, int, float, complex):
    pytype_aval_mappings[_t] = _python_scalar_aval


# --------------------------------------------------------------------------------------------
# Primitives


class MissingRuleError(NotImplementedError):
    pass


class Effect:
    """A side effect of a primitive (printing, IO, ...): one instance per kind of effect.
    Jaxprs carry the set of effects of their equations; dead-code elimination keeps effectful
    equations; an *ordered* effect also threads a token through lowering, so its operations
    run in program order."""

    __slots__ = ("name", "ordered")

    def __init__(self, name: str, ordered: bool = False):
        self.name = name
        self.ordered = ordered

    def __repr__(self):
        return self.name


class JaxprInputEffect(Effect):
    """An effect on one input: on an equation, `input` is the operand's index; on a jaxpr, the
    input Var (a constvar or invar) it acts on, as in JAX (`Jaxpr.effects` maps them)."""

    __slots__ = ("input",)

    def __init__(self, name: str, input, ordered: bool = False):
        super().__init__(name, ordered)
        self.input = input

    def replace(self, *, input):
        return type(self)(input)


no_effects: frozenset = frozenset()


# The kinds of rule a primitive may have, and how a missing one is named in errors.
RULE_KINDS = {
    "impl": "evaluation", "abstract_eval": "abstract evaluation", "jvp": "differentiation",
    "transpose": "transpose", "batch": "batching", "partial_eval": "partial evaluation",
    "dce": "dead-code elimination", "lowering": "lowering", "effects": "effects",
}


class Primitive:
    """An operation, with every rule the interpreters need attached to it.

    Rules (each set by its `def_*` method, None when the primitive has none):
    - `impl(*args, **params)`: eager evaluation;
    - `abstract_eval(*avals, **params) -> aval(s)`;
    - `jvp(primals, tangents, **params) -> (outs, out_tangents)`;
    - `transpose(cts, *args, **params) -> cts_in` for primitives linear in some arguments;
    - `batch(axis_size, args, dims, **params) -> (outs, out_dims)`;
    - `partial_eval(eqn, in_unknown) -> (known_eqns, unknown_eqns, out_unknown)`: higher-order
      primitives split themselves when some inputs are known (reverse mode, checkpoint);
    - `dce(used_outputs, eqn) -> (used_inputs, new_eqn or None)`: prune unused outputs;
    - `lowering(ctx, *operands, **params)`, per platform (`def_lowering(rule, platform="cuda")`;
      the rule for platform None applies to every platform without its own);
    - `effects(**params) -> frozenset[Effect]`: the primitive's own effects (the effects of
      jaxprs in its params are added automatically, each effect on a jaxpr's input moved to
      the operand that feeds it: by default a jaxpr's inputs are the equation's last operands;
      `effect_operands(name, params, n_inputs)` gives the operand of each input of the jaxpr
      in param `name` where they are not (None: the default), e.g. a while loop's cond).
    `np_impl` is the NumPy reference implementation, the tests' oracle.
    `pure_abstract_eval`: the primitive's abstract evaluation reads nothing but its avals and
    params (no flags, no context), so its answers are cached per (avals, params): tracing a big
    model asks the same question of dot_general or add thousands of times. Set it before
    `def_abstract_eval`; single-result primitives only.
    `transpose_zero_cts`: the backward pass calls `transpose` even when every output cotangent
    is zero (as JAX transposes every live linear equation). Off for primitives whose transpose
    is linear (zeros in, zeros out, so skipping them saves work); on for `custom_lin`, whose
    transpose is the user's `bwd` and may return nonzero cotangents for zero ones.
    """

    def __init__(self, name: str, multiple_results: bool = False):
        self.name = name
        self.multiple_results = multiple_results
        self.impl = None
        self.abstract_eval = None
        self.jvp = None
        self.transpose = None
        self.batch = None
        self.partial_eval = None
        self.dce = None
        self.lowerings: dict = {}
        self.effects = None
        self.effectful_abstract_eval = None
        self.effect_operands = None
        self.np_impl = None
        self.transpose_zero_cts = False
        self.pure_abstract_eval = False
        self.sharding_rule = None
        self.memory_space_rule = None  # JAX's standard primitives': `default_memory_space`
        _primitives.add(self)

    def __repr__(self):
        return self.name

    def get_bind_params(self, params):
        """The keyword arguments that re-bind an equation of this primitive from its params (JAX
        0.10.2's spelling: equinox's jaxpr interpreters call it). pyjax's equations bind with
        their params as they are, subjaxprs included."""
        return params

    def bind(self, *args, **params):
        return _trace_state.trace.process_primitive(self, args, params)

    @property
    def lowering(self):
        """The platform-independent lowering rule (None if there is none)."""
        return self.lowerings.get(None)

    # setters, each returning the rule so they stack as decorators
    def def_impl(self, f):
        self.impl = f
        return f

    def def_abstract_eval(self, f):
        rule = _cached_abstract_eval(f) if self.pure_abstract_eval else f
        self.abstract_eval = rule if not _SHARDING_IN_TYPES[0] else _with_shardings(self, rule)
        return f

    def def_effectful_abstract_eval(self, f):
        """JAX's rule giving both: `f(*avals, **params) -> (out aval(s), effects)`; an
        equation's effects then come from its operands' avals and params."""
        self.def_abstract_eval(lambda *avals, **params: f(*avals, **params)[0])
        self.effectful_abstract_eval = f
        return f

    def def_jvp(self, f):
        self.jvp = f
        return f

    def def_transpose(self, f):
        self.transpose = f
        return f

    def def_batch(self, f):
        self.batch = f
        return f

    def def_partial_eval(self, f):
        self.partial_eval = f
        return f

    def def_dce(self, f):
        self.dce = f
        return f

    def def_lowering(self, f, platform=None):
        self.lowerings[platform] = f
        return f

    def def_effects(self, f):
        self.effects = f
        return f

    def def_sharding_rule(self, f):
        """`f(out_avals, *in_avals, **params)`: one PartitionSpec-like tuple per output (one
        entry per dimension), read under sharding in types; see `_abstract_eval_with_shardings`."""
        self.sharding_rule = f
        return f

    def rule(self, kind: str, platform=None):
        """The named rule, or a uniform, clear error when it is missing."""
        if kind == "lowering":
            r = self.lowerings.get(platform) or self.lowerings.get(None)
        else:
            r = getattr(self, kind)
        if r is None:
            what = RULE_KINDS.get(kind, kind) + (f" (platform {platform})" if platform else "")
            raise MissingRuleError(f"{what} rule for '{self.name}' is not implemented")
        return r


_primitives: "weakref.WeakSet[Primitive]" = weakref.WeakSet()


_ABSTRACT_EVAL_CACHE_SIZE = 8192


def _cached_abstract_eval(rule):
    """`rule` (a pure shape/dtype rule of a single-result primitive) answered from a cache keyed
    by its avals and params. Avals are immutable and hash once; a key that cannot be hashed or
    compared (a list param, undecidable symbolic dims) skips the cache; errors are never cached, so they are raised (with the user's line)
    every time."""
    cache = {}

    def abstract_eval(*avals, **params):
        key = (avals, tuple(params.items()))
        try:
            out = cache.get(key)
        except Exception:  # an unhashable param; symbolic dims that cannot decide equality
            return rule(*avals, **params)
        if out is None:
            out = rule(*avals, **params)
            if len(cache) >= _ABSTRACT_EVAL_CACHE_SIZE:
                cache.clear()
            cache[key] = out
        return out
    abstract_eval.uncached = rule
    return abstract_eval


def _with_shardings(prim, rule):
    """`rule` (an abstract evaluation rule) followed by the sharding rules, and the memory
    space rule of the primitives that have one (operands in host memory)."""
    def abstract_eval(*avals, **params):
        out = _abstract_eval_with_shardings(prim, rule, avals, params)
        if prim.memory_space_rule is None or all(
                getattr(a, "memory_space", MemorySpace.Device) is MemorySpace.Device
                for a in avals):
            return out
        space = prim.memory_space_rule(prim, avals)
        if not prim.multiple_results:
            return out.update(memory_space=space) if type(out) is ShapedArray else out
        return [o.update(memory_space=space) if type(o) is ShapedArray else o for o in out]
    abstract_eval.shape_rule = rule
    return abstract_eval


def _enable_sharding_in_types():
    """Called once, when the first mesh with an Explicit axis is made: from then on every
    primitive's abstract evaluation also computes its outputs' shardings. (So programs that
    never make such a mesh run the rules as they are, at no cost.)"""
    for p in all_primitives():
        if p.abstract_eval is not None and not hasattr(p.abstract_eval, "shape_rule"):
            p.abstract_eval = _with_shardings(p, p.abstract_eval)


mesh_lib.on_sharding_in_types.append(_enable_sharding_in_types)


def _abstract_eval_with_shardings(prim, rule, avals, params):
    """Abstract evaluation under sharding in types: the shape/dtype rule, then the outputs'
    shardings. The mesh is the operands' (they must agree), else the one in context; without
    an Explicit axis there nothing changes. The primitive's `sharding_rule` gives the specs; a
    primitive without one keeps the shardings its rule gave (higher-order primitives: their
    jaxprs' output types), else an output shaped like sharded operands takes their common spec.

    NB: where JAX has no rule it raises ShardingTypeError; pyjax's fallback for the rest is a
    replicated result, which is always a valid layout (XLA gathers the operands)."""
    out = rule(*avals, **params)
    mesh = None
    for a in avals:
        s = getattr(a, "sharding", None)
        if s is not None:
            if mesh is not None and s.mesh != mesh:
                raise ShardingTypeError(f"Mesh for all inputs should be equal. Got one mesh: "
                                        f"{mesh} and another mesh: {s.mesh}")
            mesh = s.mesh
    if mesh is None:
        mesh = mesh_lib.get_abstract_mesh()
        if not mesh._any_axis_explicit:
            return out
    outs = list(out) if prim.multiple_results else [out]
    if prim.sharding_rule is not None:
        specs = prim.sharding_rule(outs, *avals, **params)
    else:
        specs = [None if getattr(o, "sharding", None) is not None else _fallback_spec(o, avals)
                 for o in outs]
    new = []
    for o, spec in zip(outs, specs, strict=True):
        if spec is None or type(o) is not ShapedArray:
            new.append(o)
            continue
        if isinstance(spec, NamedSharding):
            sharding = spec
        else:
            try:
                sharding = NamedSharding(mesh, PartitionSpec(*spec))
            except DuplicateSpecError as e:
                ins = ", ".join(a.str_short() for a in avals)
                res = f"{short_dtype_name(o.dtype)}[{sharded_dims_str(o.shape, spec)}]"
                raise ShardingTypeError(f"{prim} operation with inputs: {ins} produces an "
                                        f"illegally sharded result: {res}") from e
        new.append(ShapedArray(o.shape, o.dtype, o.weak_type, sharding=sharding, vma=o.vma,
                               memory_space=o.memory_space))
    return new if prim.multiple_results else new[0]


def _fallback_spec(out, avals):
    shaped = [spec_parts(a) for a in avals if getattr(a, "sharding", None) is not None
              and a.shape == out.shape]
    if shaped and all(p == shaped[0] for p in shaped):
        return shaped[0]
    return (None,) * len(out.shape)


def all_primitives() -> list:
    """Every primitive defined so far (by pyjax or a library), e.g. for the rule-table views."""
    return list(_primitives)


def primitive_effects(prim: Primitive, params, in_avals=(), n_operands=None) -> frozenset:
    """The effects of one application: the primitive's own, plus those of any jaxpr it carries
    (the bodies of jit, cond, while, scan, checkpoint, custom rules...). Given the number of
    operands, an effect on a carried jaxpr's input becomes one on the operand feeding it (so a
    ref written in a cond branch is an effect of the jaxpr holding the cond, as in JAX)."""
    if prim.effects is not None:
        effects = prim.effects(**params)
    elif prim.effectful_abstract_eval is not None:
        effects = frozenset(prim.effectful_abstract_eval(*in_avals, **params)[1])
    else:
        effects = no_effects
    for name, v in params.items():
        for b in (v if type(v) in (tuple, list) else (v,)):
            if type(b) in (ClosedJaxpr, Jaxpr):
                effects = effects | _operand_effects(prim, name, params, b, n_operands)
    return effects


def _operand_effects(prim, name, params, sub, n_operands):
    effects = sub.effects
    invars = (sub.jaxpr if type(sub) is ClosedJaxpr else sub).invars
    if n_operands is None or not any(isinstance(e, JaxprInputEffect) for e in effects):
        return effects
    operands = None if prim.effect_operands is None else prim.effect_operands(
        name, params, len(invars))
    if operands is None:
        start = n_operands - len(invars)
        operands = range(start, n_operands) if start >= 0 else None
    if operands is None:
        return effects
    where = {v: i for v, i in zip(invars, operands)}
    return frozenset(e.replace(input=where[e.input]) if isinstance(e, JaxprInputEffect)
                     and type(e.input) is not int and e.input in where else e for e in effects)


def jaxprs_in_params(params):
    """The Jaxprs among an equation's parameters (bodies of jit, cond, scan, ...)."""
    for v in params.values():
        for x in (v if type(v) in (tuple, list) else (v,)):
            if type(x) is ClosedJaxpr:
                yield x.jaxpr
            elif type(x) is Jaxpr:
                yield x


def subjaxprs(jaxpr: Jaxpr):
    """The Jaxprs nested directly in `jaxpr`'s equations (not recursively, as JAX's)."""
    for eqn in jaxpr.eqns:
        yield from jaxprs_in_params(eqn.params)


class CustomCallPrimitive(Primitive):
    """A call of a Python function that carries user rules (`custom_jvp`, `custom_vjp`).

    `bind_call(fun, rules, *args, **params)` hands the *function* to the current trace, which
    decides what runs: the eval trace calls `fun` directly, the JVP trace calls the user's rules
    via `call_jvp`, and staging traces (jit, vmap) use `stage`, which traces `fun` into a jaxpr
    and binds the primitive with it (that staged form is an ordinary equation). So the user's
    Python runs exactly where JAX runs it.
    """

    def bind_call(self, fun, rules, *args, **params):
        return _trace_state.trace.process_custom_call(self, fun, rules, args, params)

    def call_jvp(self, rules, primals, tangents, **params):
        """`(outs, out_tangents)` from the user's rules (set by the defining module)."""
        raise NotImplementedError

    def stage(self, fun, rules, args, params):
        """Trace `fun` to a jaxpr and bind the staged form (set by the defining module)."""
        raise NotImplementedError


def bind(prim: Primitive, *args, **params):
    return _trace_state.trace.process_primitive(prim, args, params)


# --------------------------------------------------------------------------------------------
# Varying manual axes (vma types)
# While a `check_vma=True` shard_map body is traced, every aval carries the manual mesh axes its
# value may vary along (`ShapedArray.vma`). The staging trace joins them (partial_eval's
# `_stage_with_vma`): an operation's outputs vary along every axis any operand varies along, and
# an operand that varies along fewer gets a `pvary` (an invariant -> varying no-op cast) first,
# as JAX inserts one. Reverse mode relies on it: the transpose of pvary is a psum, so the
# gradient of a value replicated over the devices is summed over them. Collectives and
# higher-order primitives give their own outputs' vma (`vma_rule_primitives`). Which body is
# being traced, and the helpers below core, are in sharding_in_types.

# Primitives that compute their outputs' vma in their own abstract evaluation (collectives,
# pvary); staging neither joins their operands nor inserts pvary for them.
vma_rule_primitives: set = set()

# invariant -> varying along `axes` (a tuple in mesh order): no data moves; its transpose is a
# psum over `axes` (rules in lax/parallel.py)
pvary_p = Primitive("pvary")
vma_rule_primitives.add(pvary_p)


def pvary(x, axes):
    """`x` typed as varying along `axes` too (only inside a check_vma body; else `x`)."""
    if vma_axes() is None:
        return x
    new = frozenset(axes) - get_aval(x).vma
    return pvary_p.bind(x, axes=order_axes(new)) if new else x


# --------------------------------------------------------------------------------------------
# The IR


class Var:
    __slots__ = ("aval", "count")
    _counter = itertools.count()

    def __init__(self, aval: ShapedArray):
        self.aval = aval
        self.count = next(Var._counter)

    def __repr__(self):
        return f"Var({self.count}:{self.aval.str_short()})"


class Literal:
    """A scalar constant inlined into a jaxpr (`2.0:f32[]`)."""

    __slots__ = ("val", "aval")

    def __init__(self, val, aval: ShapedArray):
        self.val = val
        self.aval = aval

    def __repr__(self):
        return f"Literal({self.val})"


class JaxprEqn(NamedTuple):
    invars: list
    outvars: list
    primitive: Primitive
    params: dict
    source_info: Any = None

    @property
    def effects(self) -> frozenset:
        n = len(self.invars)
        if self.primitive.effectful_abstract_eval is None:
            return primitive_effects(self.primitive, self.params, n_operands=n)
        in_avals = [v.aval for v in self.invars]
        return primitive_effects(self.primitive, self.params, in_avals, n)


# The jaxpr printer lives in pretty_print (built on this module), which fills this slot when
# imported; the interpreters import it, so any traced jaxpr prints JAX's way.
jaxpr_printer = [lambda jaxpr: f"<Jaxpr with {len(jaxpr.eqns)} equations>"]


class Jaxpr:
    __slots__ = ("constvars", "invars", "outvars", "eqns", "_effects", "debug_info")

    def __init__(self, constvars, invars, outvars, eqns, effects=None, debug_info=None):
        self.constvars = list(constvars)
        self.invars = list(invars)
        self.outvars = list(outvars)
        self.eqns = list(eqns)
        self._effects = effects   # computed from the equations when first asked
        self.debug_info = debug_info

    @property
    def effects(self) -> frozenset:
        """The union of the equations' effects. An effect on an equation's operand (a
        JaxprInputEffect: a ref read or written) becomes one on the jaxpr's input Var it
        reaches; one on a ref the jaxpr allocates itself is not an effect of the jaxpr."""
        if self._effects is None:
            effects = set()
            inputs = None
            for eqn in self.eqns:
                for e in eqn.effects or ():
                    if isinstance(e, JaxprInputEffect):
                        inputs = inputs or {*self.constvars, *self.invars}
                        v = eqn.invars[e.input] if type(e.input) is int else e.input
                        if v not in inputs:
                            continue
                        e = e.replace(input=v)
                    effects.add(e)
            self._effects = frozenset(effects)
        return self._effects

    @property
    def in_avals(self):
        return [v.aval for v in self.invars]

    @property
    def out_avals(self):
        return [v.aval for v in self.outvars]

    def __str__(self):
        return jaxpr_printer[0](self)

    __repr__ = __str__

    def pretty_print(self, *, source_info=False, print_shapes=True, custom_pp_eqn_rules=True,
                     name_stack=False, print_effects=False, use_color=False, **kwargs) -> str:
        """The printed jaxpr, as `str` (JAX's method). NB: pyjax's printer has one style: the
        options are accepted and the text is JAX's default (shapes, custom rules, no color)."""
        del source_info, print_shapes, custom_pp_eqn_rules, name_stack, print_effects
        del use_color, kwargs
        return str(self)


class ClosedJaxpr:
    """A jaxpr with values bound to its constvars."""

    __slots__ = ("jaxpr", "consts", "__weakref__")

    def __init__(self, jaxpr: Jaxpr, consts):
        self.jaxpr = jaxpr
        self.consts = list(consts)

    in_avals = property(lambda self: self.jaxpr.in_avals)
    out_avals = property(lambda self: self.jaxpr.out_avals)
    constvars = property(lambda self: self.jaxpr.constvars)
    invars = property(lambda self: self.jaxpr.invars)
    outvars = property(lambda self: self.jaxpr.outvars)
    debug_info = property(lambda self: self.jaxpr.debug_info)
    eqns = property(lambda self: self.jaxpr.eqns)
    effects = property(lambda self: self.jaxpr.effects)

    def __str__(self):
        return str(self.jaxpr)

    __repr__ = __str__

    def pretty_print(self, **kwargs) -> str:
        return self.jaxpr.pretty_print(**kwargs)


def check_jaxpr(jaxpr: Jaxpr):
    """Type-check a jaxpr: every variable defined once before use, every equation's out avals
    equal to what its primitive's abstract eval computes."""
    env = set()

    def read(v):
        if isinstance(v, Literal):
            return v.aval
        if v not in env:
            raise errors.JaxprTypeError(f"variable {v} used before it is defined")
        return v.aval

    def write(v):
        if v in env:
            raise errors.JaxprTypeError(f"variable {v} defined twice")
        env.add(v)

    for v in jaxpr.constvars + jaxpr.invars:
        write(v)
    for eqn in jaxpr.eqns:
        in_avals = [read(v) for v in eqn.invars]
        out = eqn.primitive.rule("abstract_eval")(*in_avals, **eqn.params)
        outs = out if eqn.primitive.multiple_results else [out]
        if len(outs) != len(eqn.outvars):
            raise errors.JaxprTypeError(f"{eqn.primitive}: {len(outs)} results, {len(eqn.outvars)} outvars")
        for v, a in zip(eqn.outvars, outs, strict=True):
            if (v.aval.shape, v.aval.dtype) != (a.shape, a.dtype):
                raise errors.JaxprTypeError(
                    f"{eqn.primitive}: outvar has type {v.aval.str_short()}, rule says {a.str_short()}")
            write(v)
    for v in jaxpr.outvars:
        read(v)


def eval_jaxpr(jaxpr: Jaxpr, consts, *args):
    """Interpret a jaxpr under the current trace, returning the list of outputs."""
    env = {}

    def read(v):
        return v.val if type(v) is Literal else env[v]

    for v, x in zip(jaxpr.constvars, consts, strict=True):
        env[v] = x
    for v, x in zip(jaxpr.invars, args, strict=True):
        env[v] = x
    # an equation staged again (under jit, grad, vmap) keeps its name stack and user line
    state = _name_stack_state
    base, base_tb = state.stack, state.traceback
    try:
        for eqn in jaxpr.eqns:
            info = eqn.source_info
            if type(info) is _SourceInfo:
                state.stack = base + info.name_stack if info.name_stack else base
                state.traceback = info.traceback
            out = eqn.primitive.bind(*map(read, eqn.invars), **eqn.params)
            if eqn.primitive.multiple_results:
                for v, x in zip(eqn.outvars, out, strict=True):
                    env[v] = x
            else:
                env[eqn.outvars[0]] = out
    finally:
        state.stack, state.traceback = base, base_tb
    return [read(v) for v in jaxpr.outvars]


_name_stack_state = source_info.name_stack_state
_SourceInfo = source_info.SourceInfo


def jaxpr_as_fun(closed: ClosedJaxpr):
    return lambda *args: eval_jaxpr(closed.jaxpr, closed.consts, *args)


# --------------------------------------------------------------------------------------------
# Traces and tracers


class Trace:
    """Base class of the interpreters. `parent` is the trace that was current when this one
    started; rules that compute on unwrapped values run under it."""

    __slots__ = ("parent", "alive", "__weakref__")

    def __init__(self, parent: Trace | None = None):
        self.parent = parent
        self.alive = True

    def process_primitive(self, prim: Primitive, args, params):
        raise NotImplementedError

    def process_custom_call(self, prim: CustomCallPrimitive, fun, rules, args, params):
        return prim.stage(fun, rules, args, params)

    def invalidate(self):
        self.alive = False


class EvalTrace(Trace):
    """The bottom trace: primitives run eagerly on concrete values."""

    __slots__ = ()

    def process_primitive(self, prim, args, params):
        for x in args:
            if isinstance(x, Tracer):
                raise escaped_tracer_error(x)
        return prim.rule("impl")(*args, **params)

    def process_custom_call(self, prim, fun, rules, args, params):
        for x in args:
            if isinstance(x, Tracer):
                raise escaped_tracer_error(x)
        return fun(*args)


class _TraceState(threading.local):
    def __init__(self):
        self.trace = EvalTrace()


_trace_state = _TraceState()
# C++ jit dispatch keys on this (backend/xla.py): a jitted call made while a transformation
# traces must reach pyjax's Python path, even when its arguments are concrete
_set_tracing = xla.TRACING.set_local


def current_trace() -> Trace:
    return _trace_state.trace


class set_current_trace:
    """`with set_current_trace(t):` makes `t` the current trace for the block. (A class rather
    than a generator context manager: every rule of every interpreter enters one.)"""

    __slots__ = ("trace", "prev")

    def __init__(self, trace: Trace):
        self.trace = trace

    def __enter__(self):
        state = _trace_state
        self.prev = state.trace
        state.trace = trace = self.trace
        _set_tracing(type(trace) is not EvalTrace)
        return trace

    def __exit__(self, *exc):
        _trace_state.trace = prev = self.prev
        _set_tracing(type(prev) is not EvalTrace)


def eval_context():
    """JAX's `core.eval_context()`: the block computes eagerly, even inside a trace (values it
    makes from constants are concrete)."""
    return set_current_trace(EvalTrace())


@contextmanager
def new_trace(trace_type, *args, **kwargs):
    """Start a new trace whose parent is the current one; it dies (and its tracers become
    leaked if they escape) when the block ends."""
    state = _trace_state
    parent = state.trace
    trace = trace_type(parent, *args, **kwargs)
    state.trace = trace
    _set_tracing(True)
    try:
        yield trace
    finally:
        state.trace = parent
        _set_tracing(type(parent) is not EvalTrace)
        trace.invalidate()


def escaped_tracer_error(tracer) -> errors.UnexpectedTracerError:
    aval = getattr(tracer, "aval", None)
    desc = aval.str_short() if aval is not None else "?"
    origin = errors.tracer_origin(tracer)
    created = getattr(tracer, "_created_at", lambda: "")()
    return errors.UnexpectedTracerError(
        f"Encountered an unexpected tracer ({type(tracer).__name__} {desc}"
        + (f", {origin}" if origin else "") + "). A value traced inside a transformed "
        "function (jit, grad, vmap, ...) escaped it, e.g. by being stored in a global, a closure "
        "or an object attribute, and was then used after the transformation finished. Return the "
        "value from the transformed function instead of leaking it."
        + (f"\nThe leaked intermediate value was created on line {created}." if created else ""))


class Tracer:
    """A value being traced. Subclasses hold the trace-specific payload and an `aval`.

    Operators and array methods are attached by `pyjax._src.numpy.array_methods`.
    """

    __slots__ = ("_trace",)
    __array_priority__ = 1000

    @property
    def aval(self) -> ShapedArray:
        raise NotImplementedError

    shape = property(lambda self: self.aval.shape)
    dtype = property(lambda self: self.aval.dtype)
    ndim = property(lambda self: len(self.aval.shape))
    size = property(lambda self: self.aval.size)
    weak_type = property(lambda self: self.aval.weak_type)

    def __len__(self):
        if not self.aval.shape:
            raise TypeError("len() of unsized object")
        return self.aval.shape[0]

    def __iter__(self):
        if not self.aval.shape:
            raise TypeError("iteration over a 0-d array")
        return iter([self[i] for i in range(self.aval.shape[0])])

    def __hash__(self):
        raise TypeError(f"unhashable type: {type(self).__name__} (traced arrays are not hashable; "
                        "use a static argument or a concrete value)")

    def to_concrete_value(self):
        """The concrete value behind this tracer, or None. A JVP tracer outside `jit` has one
        (its primal is concrete), so Python control flow on it works as in JAX."""
        return None

    def _provenance(self):
        """[(TraceDebug or None, input name)]: the traced functions' inputs this value depends
        on (for error messages; computed only when one is raised)."""
        return []

    def __bool__(self):
        value = self.to_concrete_value()
        if value is not None:
            return bool(value)
        if self.aval.size != 1:
            raise ValueError("The truth value of an empty array is ambiguous. Use a.size > 0"
                             if self.aval.size == 0 else "The truth value of an array with more "
                             "than one element is ambiguous. Use a.any() or a.all()")
        raise errors.TracerBoolConversionError(
            self, "bool()",
            "The truth value of a traced array is not known while tracing (e.g. `if x > 0:` or "
            "`while x < n:` inside jit/vmap). Use lax.cond / lax.while_loop / jnp.where for "
            "value-dependent control flow, or mark the argument static (static_argnums / "
            "static_argnames) if it is a configuration value.")

    def _int_error(self, what):
        return errors.TracerIntegerConversionError(
            self, what,
            "An integer value is needed while tracing (e.g. as a shape, an index into a Python "
            "list, or a loop count). Pass it as a static argument (static_argnums / "
            "static_argnames), or use lax.dynamic_slice / lax.fori_loop for traced indices.")

    def __index__(self):
        value = self.to_concrete_value()
        if value is not None:
            return operator.index(value)
        if self.aval.shape or not dtypes.issubdtype(self.aval.dtype, np.integer):
            raise TypeError("Only integer scalar arrays can be converted to a scalar index; got "
                            f"a traced array with shape {self.aval.str_short()}")
        raise self._int_error("__index__()")

    def __int__(self):
        value = self.to_concrete_value()
        if value is not None:
            return int(value)
        _check_scalar_conversion(self)
        raise errors.ConcretizationTypeError(
            self, "int()", _astype_hint("int") +
            "\nA concrete Python int is needed from a traced value (e.g. a shape, a loop count "
            "or an index into a Python list). Pass it as a static argument (static_argnums / "
            "static_argnames), or use lax.fori_loop / lax.dynamic_slice for traced counts and "
            "indices.")

    def __float__(self):
        # NB: as JAX, float() and complex() never use a concrete value (only bool/int/index do)
        _check_scalar_conversion(self)
        raise errors.ConcretizationTypeError(
            self, "float()", _astype_hint("float") +
            "\nA concrete Python float is needed from a traced value: keep the computation in "
            "pyjax.numpy, or mark the argument static if it is a configuration value.")

    def __complex__(self):
        _check_scalar_conversion(self)
        raise errors.ConcretizationTypeError(self, "complex()", _astype_hint("complex"))

    def __array__(self, *args, **kwargs):
        raise errors.TracerArrayConversionError(
            self, "numpy.asarray()",
            "A traced value cannot be turned into a NumPy array. Use pyjax.numpy instead of "
            "numpy inside transformed functions, or jax.pure_callback for host code.")

    def tolist(self):
        raise errors.ConcretizationTypeError(self, "tolist()", "Values are not known while tracing.")

    def item(self, *args):
        value = self.to_concrete_value()
        if value is None:
            raise errors.ConcretizationTypeError(self, "item()", "Values are not known while tracing.")
        return np.asarray(value).item(*args)

    def __repr__(self):
        return f"Traced<{self.aval.str_short()}>with<{type(self._trace).__name__}>"

    def __copy__(self):
        return self

    def __deepcopy__(self, memo):
        return self


def _astype_hint(fun: str) -> str:
    """JAX's sentence for float()/int()/complex() of a traced value."""
    return (f"The problem arose with the `{fun}` function. If trying to convert the data type of "
            f"a value, try using `x.astype({fun})` or `jnp.array(x, {fun})` instead.")


def _check_scalar_conversion(tracer):
    if tracer.aval.shape:
        raise TypeError("Only scalar arrays can be converted to Python scalars; got a traced "
                        f"array with shape {tracer.aval.str_short()}")


def to_concrete_value(x):
    """`x` itself if it is not a tracer, the concrete value behind a tracer, or None."""
    return x.to_concrete_value() if isinstance(x, Tracer) else x


def is_concrete(x) -> bool:
    return to_concrete_value(x) is not None


def concrete_or_error(x, context=""):
    """Return the concrete NumPy value of `x`, or raise ConcretizationTypeError naming `context`."""
    if isinstance(x, Tracer):
        value = x.to_concrete_value()
        if value is None:
            raise errors.ConcretizationTypeError(
                x, context or "a function needing a concrete value",
                "This value must be known at trace time (it determines a shape or a static "
                "parameter). Pass it as a static argument (static_argnums / static_argnames) or "
                "compute it with NumPy outside the transformed function.")
        x = value
    return np.asarray(x)


def concrete_dim(x, context=""):
    if isinstance(x, Tracer):
        value = x.to_concrete_value()
        if value is None:
            raise x._int_error(context or "a shape")
        x = value
    return int(x)
