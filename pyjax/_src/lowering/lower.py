"""Lowering jaxprs to StableHLO modules, one primitive's lowering rule at a time.

A lowering rule has the signature `rule(ctx, *operands, **params)`: operands are SSA value
names, `ctx.avals_in` / `ctx.avals_out` give their abstract values, and the rule returns the
name of its result (or a list of names for multiple-result primitives). `ctx.op(...)` emits one
StableHLO op; `ctx.lower_fun(f)` lowers a composite written with pyjax.lax functions.
"""
from __future__ import annotations

import contextlib
import functools
import warnings

import numpy as np

from pyjax._src import core, source_info
from pyjax._src.interpreters import partial_eval as pe
from pyjax._src.lowering import mlir, sdy
from pyjax._src.lowering.mlir import aval_type
from pyjax._src.mesh import SHARDING_IN_TYPES


class ModuleContext:
    """State shared by every rule lowering into one module."""

    def __init__(self, platform, axis_env=()):
        self.platform = platform   # the compile request's: rules are looked up per platform
        self.host_callbacks = []
        self.axis_env = axis_env   # named axes of pmap/shard_map (later issues)
        self.functions = {}        # name -> text of a private function (an exported module's)
        self.dim_values = None     # symbolic dimension variable -> SSA name (export lowering)
        self.keepalives = []       # objects the executable's callbacks need alive (JAX's name)
        self.shardy = False        # shardings in Shardy's sdy dialect, else GSPMD's (sdy.py)
        self.sdy_meshes = {}       # the `sdy.mesh` ops the module declares (sdy.mesh_symbol)
        self.partitioned = False   # a module over several devices (SPMD) ...
        self.manual = False        # ... and inside a shard_map body there (GSPMD {manual}):
                                   # side-effecting ops need a sharding in both
        self.manual_axes = frozenset()  # the mesh axes that body is manual over

    def add_keepalive(self, keepalive):
        self.keepalives.append(keepalive)


class LoweringRuleContext:
    __slots__ = ("fb", "module", "avals_in", "avals_out")

    def __init__(self, fb, module, avals_in, avals_out):
        self.fb = fb
        self.module = module
        self.avals_in = avals_in
        self.avals_out = avals_out

    module_context = property(lambda self: self.module)  # (JAX's name for it)

    def op(self, name, *operands, out=None, attrs=None, regions=None) -> str:
        """Emit an op with one result (typed by `out`, default: this equation's only output)."""
        aval = self.avals_out[0] if out is None else out
        if self.module.dim_values is not None and name in dynamic_shape_ops:
            return dynamic_shape_ops[name](self, list(operands), aval, attrs)
        return self.fb.op(name, list(operands), [aval_type(aval)], attrs, regions)[0]

    def op_multi(self, name, *operands, outs=None, attrs=None, regions=None) -> list[str]:
        avals = self.avals_out if outs is None else outs
        return self.fb.op(name, list(operands), [aval_type(a) for a in avals], attrs, regions)

    def const(self, value, dtype, shape=()) -> str:
        return self.fb.constant(value, dtype, shape)

    def token(self, effect) -> str:
        """The current token of an ordered effect: a rule with that effect takes it as an
        operand and hands back its successor (`set_token`), so XLA keeps the order."""
        tok = self.fb.tokens.get(effect)
        if tok is None:
            tok = self.fb.tokens[effect] = self.fb.op("stablehlo.after_all", [], ["!stablehlo.token"])[0]
        return tok

    def set_token(self, effect, token: str):
        self.fb.tokens[effect] = token

    def region(self, arg_avals, body_fn):
        """A region for reductions/control flow: `body_fn(*names) -> list of names`."""
        return ([aval_type(a) for a in arg_avals], body_fn)

    def broadcast(self, x, x_aval, shape) -> str:
        """Broadcast `x` (rank 0 or already of rank len(shape), size-1 dims stretched) to `shape`."""
        shape = tuple(shape)
        if tuple(x_aval.shape) == shape:
            return x
        nd = len(shape)
        dims = list(range(nd - x_aval.ndim, nd))
        return self.op("stablehlo.broadcast_in_dim", x, out=x_aval.update(shape=shape),
                       attrs={"broadcast_dimensions": mlir.i64_array(dims)})

    def convert(self, x, x_aval, dtype) -> str:
        if x_aval.dtype == np.dtype(dtype):
            return x
        return self.op("stablehlo.convert", x, out=x_aval.update(dtype=dtype))

    def lower_jaxpr(self, jaxpr: core.Jaxpr, consts, args) -> list[str]:
        """Inline a jaxpr's body here; `consts`/`args` are names for its constvars/invars."""
        return lower_jaxpr_body(self.fb, self.module, jaxpr, consts, args)

    def lower_fun(self, fun, multiple_results=False):
        """Lower a composite written with pyjax ops: trace `fun` on this equation's input
        avals and inline the resulting jaxpr."""
        closed, _ = pe.trace_to_jaxpr(lambda *xs: _as_list(fun(*xs), multiple_results), self.avals_in)

        def emit(*operands):
            const_names = [self.fb.constant(np.asarray(c), np.asarray(c).dtype, np.shape(c))
                           for c in closed.consts]
            outs = self.lower_jaxpr(closed.jaxpr, const_names, list(operands))
            return outs if multiple_results else outs[0]
        return emit


# Ops whose result shape is an attribute or implicit, and their dynamic-shape variants: with
# symbolic dimensions (export) `LoweringRuleContext.op` hands them to these emitters
# (`rule(ctx, operands, out_aval, attrs) -> name`), which `export.shape_poly` fills.
dynamic_shape_ops: dict = {}


def _as_list(out, multiple_results):
    return list(out) if multiple_results else [out]


# -- registering rules the way JAX's `mlir` module does (equinox and others call these) ---------

KNOWN_PLATFORMS = ("cpu", "cuda", "rocm", "tpu", "oneapi")
_PLATFORM_ALIASES = {"gpu": ("cuda", "rocm", "oneapi")}


def register_lowering(prim: core.Primitive, rule, platform: str | None = None,
                      inline: bool = True, cacheable: bool = True) -> None:
    """Set `prim`'s lowering rule `rule(ctx, *operands, **params)` for `platform` (None: every
    platform without a rule of its own; "gpu" means cuda, rocm and oneapi). As in JAX, a rule
    may return a sequence of results also for a single-result primitive (`lower_fun` does).
    `inline` and `cacheable` are accepted for compatibility: pyjax always inlines and caches.

        register_lowering(my_p, lower_fun(my_impl, multiple_results=False))
    """
    if platform is None:
        platforms = (None,)
    else:
        platforms = _PLATFORM_ALIASES.get(platform, (platform,))
        if platforms[0] not in KNOWN_PLATFORMS:
            raise NotImplementedError(  # (JAX's words)
                f"Registering an MLIR lowering rule for primitive {prim} for an unknown platform "
                f"{platform}. Known platforms are: "
                f"{', '.join(sorted(KNOWN_PLATFORMS + ('gpu',)))}.")
    if not prim.multiple_results:
        rule = _single_result(rule)
    for p in platforms:
        prim.def_lowering(rule, platform=p)


def _single_result(rule):
    @functools.wraps(rule)
    def lowering(ctx, *operands, **params):
        out = rule(ctx, *operands, **params)
        return out[0] if isinstance(out, (list, tuple)) else out
    return lowering


def lower_fun(fun, multiple_results: bool = True):
    """A lowering rule that lowers `fun(*operands, **params)`, written with pyjax functions, in
    place of the primitive (JAX's `mlir.lower_fun`). The rule returns a list of results, so
    register it with `register_lowering`."""
    def rule(ctx, *operands, **params):
        emit = ctx.lower_fun(functools.partial(fun, **params), multiple_results)
        return _as_list(emit(*operands), multiple_results)
    return rule


def lower_jaxpr_body(fb, module, jaxpr: core.Jaxpr, consts, args) -> list[str]:
    env = {}

    def read(v):
        if type(v) is core.Literal:
            return fb.constant(v.val, v.aval.dtype)
        return env[v]

    for v, n in zip(jaxpr.constvars, consts, strict=True):
        env[v] = n
    for v, n in zip(jaxpr.invars, args, strict=True):
        env[v] = n
    prefix = fb.name_prefix
    platform = module.platform
    typed_shardings = SHARDING_IN_TYPES[0]
    for eqn in _live_eqns(jaxpr):
        lowerings = eqn.primitive.lowerings
        rule = (lowerings.get(platform) or lowerings.get(None)
                or eqn.primitive.rule("lowering", platform))  # (the last: its error)
        ctx = LoweringRuleContext(fb, module, [v.aval for v in eqn.invars], [v.aval for v in eqn.outvars])
        if prefix is None:
            out = rule(ctx, *[read(v) for v in eqn.invars], **eqn.params)
        else:  # debug locations: the equation's name stack and user line on its ops
            name, outer_frame = _eqn_name(prefix, eqn), fb.frame
            fb.frame = _user_frame(eqn.source_info) or outer_frame
            fb.loc, fb.name_prefix = mlir.name_loc(name, *(fb.frame or ())), name
            try:
                out = rule(ctx, *[read(v) for v in eqn.invars], **eqn.params)
            finally:
                fb.loc, fb.name_prefix, fb.frame = "", prefix, outer_frame
        if eqn.primitive.multiple_results:
            if typed_shardings and _constrains_results(eqn):
                out = [sdy.type_constraint(ctx, n, v.aval) for v, n in zip(eqn.outvars, out, strict=True)]
            for v, n in zip(eqn.outvars, out, strict=True):
                env[v] = n
        else:
            if typed_shardings and _constrains_results(eqn):
                out = sdy.type_constraint(ctx, out, eqn.outvars[0].aval)
            env[eqn.outvars[0]] = out
    return [read(v) for v in jaxpr.outvars]


# Sharding in types: JAX constrains the result of (nearly) every operation to the sharding its
# type carries (`sdy.sharding_constraint` after it), and of cond / while (scan lowers to a
# while), but not of calls whose body it lowers in place (jit, custom rules, checkpoint,
# shard_map...): their inner operations carry the constraints. Not after the operations that
# place data themselves either (device_put, sharding constraints) nor host callbacks, nor the
# few whose JAX rules emit a bare op (comparisons, sign, round, square, exp2, copy).
_CONSTRAINED_HIGHER_ORDER = frozenset({"cond", "while", "scan"})
_UNCONSTRAINED = frozenset({"sharding_constraint", "reshard", "device_put", "pure_callback",
                            "io_callback", "debug_callback", "ffi_call", "custom_call",
                            "eq", "ne", "lt", "le", "gt", "ge", "eq_to", "le_to", "lt_to",
                            "sign", "round", "square", "exp2", "copy", "copy_p"})


def _constrains_results(eqn) -> bool:
    if not any(getattr(v.aval, "sharding", None) is not None for v in eqn.outvars):
        return False
    name = eqn.primitive.name
    if name in _UNCONSTRAINED:
        return False
    if name in _CONSTRAINED_HIGHER_ORDER:
        return True
    return not any(type(p) in (core.Jaxpr, core.ClosedJaxpr) or (
        type(p) in (tuple, list) and any(type(b) in (core.Jaxpr, core.ClosedJaxpr) for b in p))
        for p in eqn.params.values())


# -- debug locations -------------------------------------------------------------------------
#
# `Lowered.as_text(debug_info=True)` lowers again with locations on every op, as JAX prints
# them: `loc("jit(f)/outer/inner/sin"("file.py":4:0))` (the jit, the equation's name stack from
# named_scope/named_call, the primitive; the user's line). Ops of a nested jaxpr (a jit's
# body, a scan's body) extend their equation's name. Ordinary lowering writes none.

_debug_locations = [False]


@contextlib.contextmanager
def debug_locations():
    """Lower with debug locations for the block."""
    prev, _debug_locations[0] = _debug_locations[0], True
    try:
        yield
    finally:
        _debug_locations[0] = prev


def _eqn_name(prefix, eqn) -> str:
    stack = str(source_info.name_stack_of(eqn.source_info))
    label = (f"jit({eqn.params['name']})" if eqn.primitive.name in ("jit", "pjit")
             and "name" in eqn.params else eqn.primitive.name)
    return "/".join(p for p in (prefix, stack, label) if p)


def _user_frame(info):
    """(file, line, column) of the user's line that traced the equation; None for equations
    traced while lowering (a rule's composite), which take their enclosing equation's."""
    if not isinstance(info, source_info.SourceInfo):
        return None
    frames = info.frames
    if any(f.file_name == __file__ for f in frames):
        return None
    for f in frames:
        if source_info.is_user_file(f.file_name):
            return f.file_name, f.line_num, 0
    return None


def _module_label(name: str) -> str:
    """`jit(f)` for the module `jit_f`."""
    return f"jit({name[4:]})" if name.startswith("jit_") else name


def _live_eqns(jaxpr: core.Jaxpr) -> list:
    """The equations whose results are used, plus those with effects, in order (a nested jit
    shrunk to its used outputs). A jaxpr from `grad` keeps primal computations its output does
    not need (JAX drops them with a dead-code pass before lowering); emitting them would only
    make XLA parse and delete them."""
    return pe.prune_jaxpr(jaxpr).eqns


def lower_jaxpr_to_module(name: str, jaxpr: core.Jaxpr, *, platform, num_replicas, num_partitions,
                          donated=(), arg_shardings=None,
                          result_shardings=None, shardy=False, arg_layouts=None,
                          result_layouts=None) -> tuple[str, ModuleContext]:
    """Lower a jaxpr whose constvars and invars all become arguments of `main`, in that order.
    `donated` holds one bool per (constvar + invar) argument. The platform (which lowering
    rules apply) and the replica/partition counts (written as `mhlo.num_replicas` /
    `mhlo.num_partitions`) come from the compile request (`dispatch.CompileRequest`).
    `arg_shardings` / `result_shardings` (one NamedSharding or None per argument / result)
    annotate `main` for XLA's SPMD partitioner: Shardy's `sdy.sharding` when `shardy`, else
    GSPMD's `mhlo.sharding` (lowering/sdy.py). `arg_layouts` / `result_layouts` (one
    `mhlo.layout_mode` or None per argument / result) ask XLA for device-local layouts."""
    fb = mlir.FuncBuilder()
    if _debug_locations[0]:
        fb.name_prefix = _module_label(name)
    module = ModuleContext(platform)
    module.partitioned, module.shardy = num_partitions > 1, shardy
    all_vars = jaxpr.constvars + jaxpr.invars
    donated = list(donated) or [False] * len(all_vars)
    if any(donated) and num_partitions == 1:
        _warn_unusable_donations(all_vars, donated, jaxpr.outvars)
    in_kinds = _memory_kinds([v.aval for v in all_vars], arg_shardings)
    out_kinds = _memory_kinds([v.aval for v in jaxpr.outvars], result_shardings)
    if all(k in (None, "device") for k in in_kinds + out_kinds):
        in_kinds = out_kinds = None  # (all in the default memory: JAX writes no kinds)
    args = []
    for i, (v, d) in enumerate(zip(all_vars, donated, strict=True)):
        n = f"%arg{i}"
        fb.types[n] = aval_type(v.aval)
        attrs = ["jax.buffer_donor = true"] if d else []
        if in_kinds and in_kinds[i]:
            attrs.append(f'mhlo.memory_kind = "{in_kinds[i]}"')
        if arg_shardings is not None and arg_shardings[i] is not None:
            attrs.append(sdy.sharding_attr(module, arg_shardings[i], v.aval.ndim))
        if arg_layouts is not None and arg_layouts[i] is not None:
            attrs.append(f'mhlo.layout_mode = "{arg_layouts[i]}"')
        args.append((n, fb.types[n], "{" + ", ".join(attrs) + "}" if attrs else ""))
    names = [a[0] for a in args]
    nconst = len(jaxpr.constvars)
    outs = lower_jaxpr_body(fb, module, jaxpr, names[:nconst], names[nconst:])
    result_attrs = []
    for i, v in enumerate(jaxpr.outvars):
        s = result_shardings[i] if result_shardings else None
        attrs = []
        if out_kinds and out_kinds[i]:
            attrs.append(f'mhlo.memory_kind = "{out_kinds[i]}"')
            if s is not None:  # a layout asked for: its memory too
                outs[i] = _annotate_placement(fb, outs[i], v.aval, out_kinds[i])
        if s is not None:
            attrs.append(sdy.sharding_attr(module, s, v.aval.ndim))
        if result_layouts is not None and result_layouts[i] is not None:
            attrs.append(f'mhlo.layout_mode = "{result_layouts[i]}"')
        result_attrs.append("{" + ", ".join(attrs) + "}" if attrs else "")
    text = mlir.module_text(_sanitize(name), args, [aval_type(v.aval) for v in jaxpr.outvars],
                            fb.lines, outs, num_replicas, num_partitions,
                            result_attrs if any(result_attrs) else None,
                            functions=list(module.functions.values()),
                            declarations=sdy.mesh_ops(module))
    return text, module


def _memory_kinds(avals, shardings) -> list:
    """Per argument or result, the memory kind it is in: its sharding's, else its type's
    memory space's (None for neither: a value of no array type)."""
    out = []
    for i, a in enumerate(avals):
        kind = getattr(shardings[i], "memory_kind", None) if shardings else None
        if kind is None:
            space = getattr(a, "memory_space", None)
            kind = core.mem_space_to_kind(space) if space in (
                core.MemorySpace.Device, core.MemorySpace.Host) else None
        out.append(kind)
    return out


def _annotate_placement(fb, x, aval, kind) -> str:
    """`x` marked for XLA to place in memory `kind` (JAX's `annotate_device_placement` custom
    call, which the host-offloading passes read)."""
    return fb.op("stablehlo.custom_call", [x], [aval_type(aval)], {
        "call_target_name": '"annotate_device_placement"', "backend_config": '""',
        "has_side_effect": "true",
        "mhlo.frontend_attributes": f'{{_xla_buffer_placement = "{kind}"}}'})[0]


def _warn_unusable_donations(in_vars, donated, out_vars):
    """JAX's warning for donated arguments no output can reuse (each output takes the first
    unused donated argument of its shape and dtype, as JAX's aliasing does)."""
    free = [v.aval for v, d in zip(in_vars, donated, strict=True) if d]
    for out in out_vars:
        match = next((i for i, a in enumerate(free)
                      if (a.shape, a.dtype) == (out.aval.shape, out.aval.dtype)), None)
        if match is not None:
            free.pop(match)
    if free:
        warnings.warn("Some donated buffers were not usable: "
                      f"{', '.join(a.str_short(short_dtypes=False) for a in free)}.\nSee an "
                      "explanation at https://docs.jax.dev/en/latest/faq.html#buffer-donation.",
                      stacklevel=2)


def _sanitize(name: str) -> str:
    s = "".join(c if c.isalnum() or c == "_" else "_" for c in name)
    return s if s and not s[0].isdigit() else "_" + s
