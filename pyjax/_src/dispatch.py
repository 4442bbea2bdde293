"""Running jaxprs on devices: one compile request, one cache, then execute.

Every executable pyjax runs is made by `compile(CompileRequest(...))`: jit calls, the impl of
`pjit`, eager primitives and eager control flow. A request names everything that decides the
executable (the jaxpr, its name, donation, the device assignment and shardings, the platform,
XLA options); lowering reads its platform and partition count from the request, and the cache
is keyed by exactly the request (the jaxpr by identity, held weakly, so executables leave with
the jaxprs they were compiled from).

`Compiled` wraps an XLA executable with what is needed to call it on pyjax values: the output
avals (to wrap result buffers into Arrays) and the constants passed as leading arguments.
`apply_primitive` is the impl of every primitive that has no hand-written one: the primitive is
compiled alone, as a one-equation jaxpr, once per (primitive, avals, params), and run.
"""
from __future__ import annotations

import collections
import dataclasses
import functools
import logging
import time
import weakref

import numpy as np

from pyjax._src import core, dtypes, profiler, source_info, spmd, tree_util
from pyjax._src import mesh as mesh_lib
from pyjax._src.array import ArrayImpl, check_divisible, deleted_error, put_named, put_value
from pyjax._src.backend import xla
from pyjax._src.config import config
from pyjax._src.lowering.lower import lower_jaxpr_to_module
from pyjax._src.sharding import (NamedSharding, PartitionSpec, is_ambiguous, named_from_hlo,
                                 xla_for_output)

logger = logging.getLogger("pyjax")


# -- the compile request -----------------------------------------------------------------------


@dataclasses.dataclass(frozen=True, slots=True)
class CompileRequest:
    """Everything that decides an executable. Build it with `CompileRequest(jaxpr, name, ...)`;
    the defaults are filled in canonically, so two requests meaning the same compile are equal.

    - `jaxpr`: the ClosedJaxpr to compile (its consts become leading arguments);
    - `donated`: one bool per invar of the jaxpr (`()`: none donated);
    - `devices`: the device assignment, a tuple of devices in logical order (`()`: the default
      device); one device today, several once shardings say how to split the computation;
    - `in_shardings` / `out_shardings`: None today (the devices issue fills them);
    - `platform`: the lowering platform (None: the devices' own);
    - `compile_options`: XLA option overrides, as (name, value) pairs or a dict.
    """

    jaxpr: core.ClosedJaxpr
    name: str
    donated: tuple = ()
    devices: tuple = ()
    in_shardings: tuple | None = None
    out_shardings: tuple | None = None
    platform: str | None = None
    compile_options: tuple = ()
    # per argument / result, its `mhlo.layout_mode` ("auto", "{1,0}"; None: the default
    # layout), or None for none given (jit's Formats: pyjax/_src/layout.py)
    in_layouts: tuple | None = None
    out_layouts: tuple | None = None

    def __post_init__(self):
        # canonical values, set only where they differ (this runs on every eager pjit call)
        if not self.devices or type(self.devices) is not tuple:
            object.__setattr__(self, "devices", tuple(self.devices) or default_devices())
        platform = self.devices[0].client.platform
        if self.platform != platform:
            if self.platform is not None:
                raise ValueError(f"compile request for {self.name}: platform {self.platform!r} "
                                 f"does not match the devices {list(self.devices)}, which are "
                                 f"{platform!r}")
            object.__setattr__(self, "platform", platform)
        if self.donated and (type(self.donated) is not tuple or not any(self.donated)):
            object.__setattr__(self, "donated", tuple(self.donated) if any(self.donated) else ())
        if self.compile_options:
            options = self.compile_options
            options = options.items() if isinstance(options, dict) else options
            object.__setattr__(self, "compile_options", tuple(sorted(options)))
        if len(self.devices) > 1 and self.in_shardings is None and self.out_shardings is None:
            raise NotImplementedError(
                f"compile request for {self.name}: {len(self.devices)} devices given but no "
                f"shardings to split the computation over them (multi-device jit comes with "
                f"shardings)")

    @property
    def num_replicas(self) -> int:
        return 1

    @property
    def num_partitions(self) -> int:
        """SPMD partitions: one per device of the assignment."""
        return len(self.devices)

    def cache_key(self) -> tuple:
        """The request without its jaxpr (which the cache holds weakly, by identity)."""
        return (self.name, self.donated, self.devices, self.in_shardings, self.out_shardings,
                self.platform, self.compile_options, self.in_layouts, self.out_layouts)


@functools.cache
def default_devices() -> tuple:
    """The device assignment of a request that names none: the default backend's first device
    (where pyjax puts host values, too). Fixed once the backend is up."""
    return (xla.devices()[0],)


# -- compiling ---------------------------------------------------------------------------------

# jaxpr -> {request.cache_key(): Compiled}. The one cache of compiled jaxprs; weak in the
# jaxpr, and a Compiled holds its jaxpr only weakly, so nothing here keeps a jaxpr alive.
_compiled: "weakref.WeakKeyDictionary[core.ClosedJaxpr, dict]" = weakref.WeakKeyDictionary()


def compile(request: CompileRequest, lowered=None) -> Compiled:  # noqa: A001 (as xla.compile)
    """The executable for `request`, compiled on the first request and cached after that.
    `lowered` (a (text, module context) pair from `lower(request)`) skips lowering again."""
    per_jaxpr = _compiled.get(request.jaxpr)
    if per_jaxpr is None:
        per_jaxpr = _compiled[request.jaxpr] = {}
    key = request.cache_key()
    compiled = per_jaxpr.get(key)
    if compiled is None:
        compiled = per_jaxpr[key] = _compile_now(request, lowered)
    return compiled


def lower(request: CompileRequest):
    """Lower a request's jaxpr to a StableHLO module: `(text, module context)`."""
    closed = request.jaxpr
    donated = request.donated
    if donated:  # the consts are leading arguments, never donated
        donated = (False,) * len(closed.jaxpr.constvars) + donated
    arg_shardings = result_shardings = None
    mesh = spmd.request_mesh(request.in_shardings, request.out_shardings)
    if request.in_shardings is not None:  # consts (leading arguments) are replicated
        const = None if mesh is None else NamedSharding(mesh, PartitionSpec())
        arg_shardings = [const] * len(closed.jaxpr.constvars) + _checked(request.in_shardings,
                                                                          closed.in_avals)
    if request.out_shardings is not None:
        result_shardings = _checked(request.out_shardings, closed.out_avals)
    target = spmd.lowering_target.set((request.devices, mesh))
    try:
        arg_layouts = None if request.in_layouts is None else (
            (None,) * len(closed.jaxpr.constvars) + tuple(request.in_layouts))
        return lower_jaxpr_to_module(request.name, closed.jaxpr, donated=donated,
                                     platform=request.platform, num_replicas=request.num_replicas,
                                     num_partitions=request.num_partitions,
                                     arg_shardings=arg_shardings, result_shardings=result_shardings,
                                     shardy=_use_shardy(request), arg_layouts=arg_layouts,
                                     result_layouts=request.out_layouts)
    finally:
        spmd.lowering_target.reset(target)


def _use_shardy(request) -> bool:
    """Whether `request` is partitioned with Shardy (JAX's default) rather than GSPMD."""
    return request.num_partitions > 1 and config._values["jax_use_shardy_partitioner"]


def _unannotated_outputs(request):
    if request.in_shardings is None:
        return None
    outs = request.out_shardings or (None,) * len(request.jaxpr.out_avals)
    return [s is None for s in outs]


def _checked(shardings, avals):
    """The NamedShardings (None: left to XLA) of arguments or results, which must divide them."""
    for s, a in zip(shardings, avals, strict=True):
        if s is not None:  # NB: uneven splits are refused (XLA aborts serializing them)
            check_divisible(s, a.shape)
    return list(shardings)


def _compile_now(request: CompileRequest, lowered) -> Compiled:
    t0 = time.perf_counter()
    text, module = lowered if lowered is not None else lower(request)
    closed = request.jaxpr
    if config._values["jax_enable_checks"]:
        core.check_jaxpr(closed.jaxpr)
    t1 = time.perf_counter()
    exe = xla.compile(text, request.devices, out_avals=[_physical_aval(a) for a in
                                                        _placed_avals(closed.out_avals, request)],
                      num_replicas=request.num_replicas, num_partitions=request.num_partitions,
                      host_callbacks=module.host_callbacks,
                      compile_options=request.compile_options, use_shardy=_use_shardy(request),
                      propagate_to_outputs=_unannotated_outputs(request))
    if profiler.session[0] is not None:
        profiler.record("lower", request.name, t0, end=t1)
        profiler.record("compile", request.name, t1, {"cache": exe.cache_source})
    if config.jax_log_compiles:
        logger.warning(f"lowered {request.name} in {(t1 - t0) * 1e3:.1f} ms; compile "
                       f"{(time.perf_counter() - t1) * 1e3:.1f} ms")
    if request.in_shardings is not None:  # SPMD over a mesh: see `Compiled._call_spmd`
        compiled = _spmd_compiled(exe, closed, text, request)
    else:
        with xla.internal_transfer():  # (JAX embeds these in the module: no guarded transfer)
            const_bufs = [_const_buffer(c, request.devices[0]) for c in closed.consts]
        compiled = Compiled(exe, closed, const_bufs, text, request.name, request.donated)
    if request.out_shardings:  # (the outputs' types, also on C++ dispatch's fast path)
        compiled.out_avals = _placed_avals(compiled.out_avals, request)
    return compiled


def _placed_avals(avals, request):
    """The outputs' avals, in the memory space their out_shardings' memory kinds name (an
    output jit is asked to put in pinned_host is typed `float32<host>[...]`, as JAX's)."""
    if not request.out_shardings:
        return avals
    return [a if s is None or type(a) is not core.ShapedArray else
            a.update(memory_space=core.mem_kind_to_space(s.memory_kind))
            for a, s in zip(avals, request.out_shardings, strict=True)]


def _physical_aval(aval):
    """What an output is on the device: float0 (the tangent type of integers) as booleans."""
    return aval.update(dtype=np.dtype(np.bool_)) if dtypes.is_float0(aval.dtype) else aval


def _float0_outputs(outs, positions, avals):
    """Outputs of type float0 made on the host, as JAX returns them (NumPy zeros of float0)."""
    outs = list(outs)
    for i in positions:
        outs[i] = np.zeros(avals[i].shape, dtypes.float0)
    return outs


def _spmd_compiled(exe, closed, text, request):
    """A Compiled partitioned over a mesh: its arguments are laid out as `in_shardings` says
    and its outputs carry the NamedShardings XLA gave them (as far as a PartitionSpec says)."""
    given = [s for s in (request.in_shardings or ()) + tuple(request.out_shardings or ())
             if s is not None]
    # (none given: a function of no arguments, on the mesh its sharding constraints name)
    mesh = given[0].mesh if given else spmd.constrained_mesh(closed.jaxpr)
    replicated = NamedSharding(mesh, PartitionSpec())
    with xla.internal_transfer():
        const_bufs = [put_named(_on_device_value(c), replicated) for c in closed.consts]
    compiled = Compiled(exe, closed, const_bufs, text, request.name, request.donated)
    compiled.in_shardings = request.in_shardings
    # (over the mesh an output's sharding was asked over: its axis types may differ)
    out_meshes = [mesh if o is None else o.mesh
                  for o in request.out_shardings or (None,) * len(closed.out_avals)]
    compiled.out_shardings = [_in_memory(_out_named(m, s, a, o), s) for s, a, m, o in zip(
        exe.out_shardings, closed.out_avals, out_meshes,
        request.out_shardings or (None,) * len(closed.out_avals), strict=True)]
    # outputs carry their NamedShardings' own jaxlib objects (as on C++ dispatch's fast path)
    exe.set_out_shardings([xs if s is None else xla_for_output(s, len(a.shape)) for s, xs, a in
                           zip(compiled.out_shardings, exe.out_shardings, closed.out_avals,
                               strict=True)])
    return compiled


def _out_named(mesh, xla_sharding, aval, given):
    """The NamedSharding an output reports: the simplest spec saying the layout XLA gave it;
    over Explicit mesh axes the one its type (the out sharding asked for) says when that is the
    same layout (they differ in spelling where a mesh axis has size 1)."""
    ndim = len(aval.shape)
    hlo = xla_sharding._to_xla_hlo_sharding(ndim)
    typed = getattr(aval, "sharding", None)
    if given is None and typed is not None and typed.mesh.axis_names == mesh.axis_names:
        given = NamedSharding(mesh, typed.spec)  # (an eager operation's result: its type's)
    if (isinstance(given, NamedSharding) and given.mesh._any_axis_explicit
            and len(given.spec) <= ndim):
        mine = given._to_xla_hlo_sharding(ndim)
        if mine == hlo or (mine.is_replicated() and hlo.is_replicated()):
            return given.with_spec(PartitionSpec(*given.spec, *[None] * (ndim - len(given.spec))))
    return named_from_hlo(mesh, hlo, ndim)


def _on_device_value(c):
    """A constant's host value as the device holds it (float0, an integer's tangent type, as
    booleans)."""
    v = np.asarray(c._value if type(c) is ArrayImpl else c)
    return np.zeros(v.shape, np.bool_) if dtypes.is_float0(v.dtype) else v


def _in_memory(named, xla_sharding):
    """`named` in the memory kind XLA put the output in (`mhlo.memory_kind` on a result)."""
    kind = getattr(xla_sharding, "_memory_kind", None)
    return named if named is None or kind is None else named.with_memory_kind(kind)


def _const_buffer(c, device):
    """The executable's own copy of a constant: donating the array it was traced from later
    must not break the executable (as in JAX)."""
    if type(c) is ArrayImpl and xla.buffer_devices(c)[0] == device:
        return xla.copy(c)
    buf = put_value(c, device)
    if xla.buffer_devices(buf)[0] == device:
        return buf
    return xla.put(np.asarray(buf._value), device, buf.aval)


# -- running -------------------------------------------------------------------------------------


class Compiled:
    """An executable plus the avals of its outputs; call it with a flat list of values.

    `donated` holds one bool per argument (empty: none donated); see `_call_donating`. The
    jaxpr compiled is held weakly (`jaxpr`: None once it is gone): only debug_nans reads it,
    and a strong reference would keep every cached jaxpr alive through its executable.
    """

    __slots__ = ("exe", "out_avals", "const_bufs", "text", "name", "donated", "_jaxpr",
                 "_one_primitive", "device", "in_shardings", "out_shardings", "float0_outs")

    def __init__(self, exe, closed, const_bufs, text, name, donated=()):
        self.exe = exe
        self.out_avals = closed.out_avals
        self.float0_outs = tuple(i for i, a in enumerate(self.out_avals) if dtypes.is_float0(a.dtype))
        self.const_bufs = const_bufs
        self.text = text
        self.name = name
        self.donated = tuple(donated) if any(donated) else ()
        self._jaxpr = weakref.ref(closed)
        # where arguments must be (None: one device in the process, nothing to check)
        self.device = exe.devices[0] if xla.multiple_devices() else None
        eqns = closed.jaxpr.eqns
        self._one_primitive = len(eqns) == 1 and eqns[0].primitive.name == name  # an eager op
        # over a mesh: NamedShardings of the arguments and outputs (None: one device)
        self.in_shardings = self.out_shardings = None

    @property
    def jaxpr(self):
        return self._jaxpr()

    def __call__(self, args) -> list[ArrayImpl]:
        if self.in_shardings is not None:
            return self._call_spmd(args)
        if self.device is None:
            bufs = [x if type(x) is ArrayImpl else put_value(x) for x in args]
        else:  # several devices: arguments elsewhere (uncommitted ones) move to ours
            bufs = [put_value(x, self.device) if type(x) is not ArrayImpl
                    or xla.buffer_devices(x) != [self.device] else x for x in args]
        if self.donated:
            self._check_donation(args)
        if self.const_bufs:
            bufs = self.const_bufs + bufs
        outs = self._run(bufs, args)
        if any_committed(args):
            outs = [xla.committed(o) for o in outs]
        if self.float0_outs:
            outs = _float0_outputs(outs, self.float0_outs, self.out_avals)
        return outs

    def _call_spmd(self, args):
        # NB: an argument laid out otherwise is gathered and put again (JAX reshards on device)
        bufs = [x if type(x) is ArrayImpl and x._named_sharding == s else put_named(x, s)
                for x, s in zip(args, self.in_shardings, strict=True)]
        if self.donated:
            self._check_donation(args)
        outs = self._run(self.const_bufs + bufs, args)
        for o, s in zip(outs, self.out_shardings, strict=True):
            if s is not None:
                o._named_sharding = s
        if self.float0_outs:
            outs = _float0_outputs(outs, self.float0_outs, self.out_avals)
        return outs

    def _check_donation(self, args):
        for x, d in zip(args, self.donated, strict=True):
            if d and type(x) is ArrayImpl and x.is_deleted():
                raise deleted_error(x.aval)

    def _run(self, bufs, args):
        try:
            return self.exe(bufs)
        except xla.JaxRuntimeError:
            for x in args:  # XLA's message for a deleted input names no Array: say which
                if type(x) is ArrayImpl and x.is_deleted():
                    raise deleted_error(x.aval) from None
            raise

    def _run_checking_floats(self, bufs, args):
        """`_run` while jax_debug_nans / jax_debug_infs is on (swapped in by `_float_checks`,
        so the usual path pays nothing): a NaN (inf) output raises FloatingPointError."""
        outs = Compiled._run_unchecked(self, bufs, args)
        bad = _first_invalid(outs)
        if bad is not None:
            self._explain_invalid(bad, args)
        return outs

    def _explain_invalid(self, bad, args):
        if self._one_primitive:  # an eager primitive
            raise FloatingPointError(f"invalid value ({bad}) encountered in {self.name}")
        # A jitted function: run it again one primitive at a time (each checks its outputs),
        # so the error names the primitive that made the value, as JAX does.
        closed = self.jaxpr
        if not self.donated and closed is not None:
            _eval_naming_equations(closed.jaxpr, closed.consts, args, self.name)
        # (JAX's phrase "the de-optimized function did not" is kept: tests match on it)
        raise FloatingPointError(
            f"invalid value ({bad}) encountered in the output of {self.name}; the de-optimized "
            f"function did not produce invalid values when run again one primitive at a time: "
            f"an input or a literal holds the value (e.g. jax.jit(lambda x: jnp.nan)), or the "
            f"arguments were donated, or jit's optimizations made it, so it cannot be traced "
            f"to a primitive")


Compiled._run_unchecked = Compiled._run


def _eval_naming_equations(jaxpr, consts, args, name, results=None):
    """`core.eval_jaxpr` for debug_nans' re-run: a FloatingPointError raised by an equation
    is raised again naming the equation's name stack (`jit(f)/outer/log`) and the user's line
    that traced it."""
    env = dict(zip(jaxpr.constvars, consts, strict=True))
    env.update(zip(jaxpr.invars, args, strict=True))

    def read(v):
        return v.val if type(v) is core.Literal else env[v]

    for eqn in jaxpr.eqns:
        try:
            out = eqn.primitive.bind(*map(read, eqn.invars), **eqn.params)
        except FloatingPointError as e:
            if getattr(e, "_pyjax_located", False):
                raise
            info = eqn.source_info
            stack = str(source_info.name_stack_of(info))
            where = "/".join(p for p in (name.replace("jit_", "jit(", 1) + ")"
                                         if name.startswith("jit_") else name, stack,
                                         eqn.primitive.name) if p)
            frame = source_info.user_frame_of(info)
            err = FloatingPointError(f"{e} (in {where}" + (f", traced at {frame}" if frame else "")
                                     + ")")
            err._pyjax_located = True
            if getattr(e, "__notes__", None):
                for note in e.__notes__:
                    err.add_note(note)
            else:
                _note_body_primitive(err, eqn.primitive, eqn.params, [read(v) for v in eqn.invars])
            raise err from None
        if eqn.primitive.multiple_results:
            env.update(zip(eqn.outvars, out, strict=True))
        else:
            env[eqn.outvars[0]] = out
    if results is not None:  # (the outputs, for a loop body run again)
        results["outs"] = [read(v) for v in jaxpr.outvars]


def _note_body_primitive(err, prim, params, args):
    """For a loop or cond that made an invalid value: run its body again one primitive at a
    time (a Python loop over the iterations) and add a note naming the primitive inside and its
    line. (pyjax only: JAX names just the loop.)"""
    try:
        if prim.name == "scan":
            _rerun_scan(args, **params)
        elif prim.name == "while":
            _rerun_while(args, **params)
        elif prim.name == "cond":
            branch = params["branches"][int(np.clip(np.asarray(args[0]), 0,
                                                    len(params["branches"]) - 1))]
            _eval_naming_equations(branch.jaxpr, branch.consts, args[1:], "cond")
    except FloatingPointError as inner:
        err.add_note(f"Inside the {prim.name}: {inner}")


def _rerun_scan(args, *, jaxpr, num_consts, num_carry, length, reverse, **_):
    consts, carry = list(args[:num_consts]), list(args[num_consts:num_consts + num_carry])
    xs = [np.asarray(x) for x in args[num_consts + num_carry:]]
    for i in (reversed(range(length)) if reverse else range(length)):
        outs = _run_body(jaxpr, consts + carry + [x[i] for x in xs], f"scan (iteration {i})")
        carry = outs[:num_carry]


def _rerun_while(args, *, cond_jaxpr, body_jaxpr, cond_nconsts, body_nconsts):
    cc, bc = list(args[:cond_nconsts]), list(args[cond_nconsts:cond_nconsts + body_nconsts])
    carry = list(args[cond_nconsts + body_nconsts:])
    i = 0
    while np.asarray(_run_body(cond_jaxpr, cc + carry, "while condition")[0]).all():
        carry = _run_body(body_jaxpr, bc + carry, f"while (iteration {i})")
        i += 1


def _run_body(closed, args, name):
    box = {}
    _eval_naming_equations(closed.jaxpr, closed.consts, args, name, box)
    return box["outs"]


def _first_invalid(outs):
    """'nan' or 'inf' if an output holds one that the debug flags ask about, else None."""
    nans, infs = config._values["jax_debug_nans"], config._values["jax_debug_infs"]
    for out in outs:
        if not dtypes.issubdtype(out.dtype, np.inexact):
            continue
        v = np.asarray(out._value, np.complex128 if out.dtype.kind == "c" else np.float64)
        if nans and np.isnan(v).any():
            return "nan"
        if infs and np.isinf(v).any():
            return "inf"
    return None


# debug_nans / debug_infs check every output in Python: while either is on, executables run
# through `_run_checking_floats` and nothing takes C++'s fast path (`fastpath_data`)
_debug_checks = [False]


def _float_checks(_=None):
    values = config._values
    on = _debug_checks[0] = bool(values["jax_debug_nans"] or values["jax_debug_infs"])
    Compiled._run = Compiled._run_checking_floats if on else Compiled._run_unchecked


config.on_change("jax_debug_nans", _float_checks)
config.on_change("jax_debug_infs", _float_checks)
_float_checks()


# while a profile runs (profiler.start_trace), every run of an executable is an event
_profiled = [None]  # (the run method wrapped, the wrapper) while a profile runs


def _profile_runs(on):
    if on and _profiled[0] is None:
        inner = Compiled._run

        def _run_recorded(self, bufs, args):
            t0 = time.perf_counter()
            try:
                return inner(self, bufs, args)
            finally:
                profiler.record("execute", self.name, t0)
        Compiled._run = _run_recorded
        _profiled[0] = (inner, _run_recorded)
    elif not on and _profiled[0] is not None:
        inner, wrapper = _profiled[0]
        _profiled[0] = None
        if Compiled._run is wrapper:  # (debug_nans switched meanwhile installed its own)
            Compiled._run = inner


profiler.on_change.append(_profile_runs)


# -- eager execution of single primitives --------------------------------------------------
#
# In front of `compile`, a lookup by (primitive, avals, params), since an eager op builds no
# jaxpr on a hit. A primitive carrying a jaxpr (scan, while) is looked up under that jaxpr,
# weakly, so loops traced anew do not accumulate executables.

_primitive_cache: dict = {}  # (primitive, avals, device, *params.items()) -> Compiled
_jaxpr_primitive_cache: "weakref.WeakKeyDictionary[core.ClosedJaxpr, dict]" = weakref.WeakKeyDictionary()


def apply_primitive(prim: core.Primitive, *args, **params):
    """Run `prim` on concrete values: through one C++ dispatcher per (primitive, params), which
    after the first call of each signature runs the executable without returning to Python."""
    key = (prim, *params.items()) if params else prim
    try:
        fn = _eager_fns.get(key)
    except TypeError:  # an unhashable parameter: compile without caching
        outs = compile_primitive(prim, _avals(args), params)(args)
        return outs if prim.multiple_results else outs[0]
    if fn is None:
        if len(_eager_fns) > 8192:
            _eager_fns.clear()
        fn = _eager_fns[key] = _eager_fn(prim, params, key)
    try:
        return fn(*args)
    except ValueError:
        for x in args:  # C++ passes on XLA's message, which names no array: say which
            if type(x) is ArrayImpl and x.is_deleted():
                raise deleted_error(x.aval) from None
        raise


# (primitive, *params.items()) -> its C++ dispatcher
_eager_fns: dict = {}


def _avals(args):
    # (under sharding in types an array's type is its aval with its sharding: the eager op's
    # result types, and the constraints its lowering writes, follow from them)
    if mesh_lib.SHARDING_IN_TYPES[0]:
        return tuple([core.get_aval(x) for x in args])
    return tuple([x.aval if type(x) is ArrayImpl else core.get_aval(x) for x in args])


def _eager_fn(prim, params, key):
    multiple = prim.multiple_results

    def run(*args):
        avals = _avals(args)
        device = in_shardings = None
        if xla.multiple_devices():
            if any(type(x) is ArrayImpl and x._named_sharding is not None for x in args):
                # an op on arrays laid out over a mesh runs partitioned over it
                in_shardings = spmd.eager_in_shardings(args, prim.name)
            else:
                device = committed_device(args, prim.name)
        ckey = (prim, avals, device, in_shardings, *params.items())
        compiled = _primitive_cache.get(ckey)
        if compiled is None:
            compiled = _primitive_cache[ckey] = compile_primitive(prim, avals, params, device,
                                                                  in_shardings)
        outs = compiled(args)
        return compiled, (outs if multiple else outs[0])

    def cache_miss(*args):
        compiled, out = run(*args)
        return out, fastpath_data(compiled, args, args, out), False

    # `run` is also what C++ calls under disable_jit
    return xla.pjit(prim.name, lambda *args: run(*args)[1], cache_miss, [], [], key,
                    tree_util.dispatch_registry, shard_arg_fallback,
                    xla.PjitFunctionCache(capacity=256))


def apply_jaxpr_primitive(prim: core.Primitive, jaxpr_param: str, *args, **params):
    """`apply_primitive` for a primitive whose parameter `jaxpr_param` is a jaxpr (its body):
    the executable is cached under that jaxpr, weakly, with the other parameters and the avals."""
    avals = tuple([core.get_aval(x) for x in args])
    per_jaxpr = _jaxpr_primitive_cache.get(params[jaxpr_param])
    if per_jaxpr is None:
        per_jaxpr = _jaxpr_primitive_cache[params[jaxpr_param]] = {}
    key = (prim, avals, *[(k, v) for k, v in params.items() if k != jaxpr_param])
    in_shardings = None
    if xla.multiple_devices():  # a body with a shard_map runs partitioned over its mesh
        mesh = per_jaxpr.get("mesh", False)
        if mesh is False:
            mesh = per_jaxpr["mesh"] = spmd.constrained_mesh(params[jaxpr_param].jaxpr)
        if mesh is not None:
            in_shardings = spmd.shardings_for(None, None, (), {}, list(args), None, prim.name,
                                              mesh)[0]
            key = (*key, in_shardings)
    compiled = per_jaxpr.get(key)
    if compiled is None:
        compiled = per_jaxpr[key] = compile_primitive(prim, avals, params,
                                                      in_shardings=in_shardings)
    try:
        return compiled(args)
    except FloatingPointError as e:  # debug_nans: name the primitive inside a loop's body
        if not getattr(e, "__notes__", None):
            _note_body_primitive(e, prim, params, args)
        raise


def compile_primitive(prim, avals, params, device=None, in_shardings=None) -> Compiled:
    """Compile one application of `prim` (on `device`; None: the default; or partitioned over
    the mesh of `in_shardings`, one NamedSharding per operand), through `compile`."""
    out = prim.rule("abstract_eval")(*avals, **params)
    out_avals = list(out) if prim.multiple_results else [out]
    invars = [core.Var(a) for a in avals]
    outvars = [core.Var(a) for a in out_avals]
    jaxpr = core.Jaxpr([], invars, outvars, [core.JaxprEqn(invars, outvars, prim, params)])
    if in_shardings is not None:
        return compile(CompileRequest(core.ClosedJaxpr(jaxpr, []), prim.name,
                                      devices=spmd.mesh_devices(in_shardings, None),
                                      in_shardings=in_shardings))
    devices = (device,) if device is not None else ()
    return compile(CompileRequest(core.ClosedJaxpr(jaxpr, []), prim.name, devices=devices))


_reshard_jaxprs: dict = {}  # (aval, from sharding, to sharding) -> the identity jaxpr compiled


def reshard(x: ArrayImpl, sharding: NamedSharding) -> ArrayImpl:
    """`x`, laid out over a mesh, moved on device to the layout `sharding` (over the same
    devices): an identity computation whose argument and result layouts differ, so XLA's
    partitioner does the moving."""
    aval = x.aval  # (without the old layout, if its type says one: the new one is `sharding`)
    aval = aval if aval.sharding is None else core.ShapedArray(aval.shape, aval.dtype, aval.weak_type)
    key = (aval, x._named_sharding, sharding)
    closed = _reshard_jaxprs.get(key)
    if closed is None:
        v = core.Var(aval)
        closed = _reshard_jaxprs[key] = core.ClosedJaxpr(core.Jaxpr([], [v], [v], []), [])
    compiled = compile(CompileRequest(closed, "reshard", devices=spmd.mesh_devices((sharding,), None),
                                      in_shardings=(x._named_sharding,), out_shardings=(sharding,)))
    out = compiled([x])[0]
    out._named_sharding = sharding  # as given (device_put keeps the user's spelling)
    return out


def in_layouts(compiled: Compiled, leaves, shardings) -> list:
    """`leaves`, each moved into the device-local layout `compiled` takes it in where it is in
    another (a host value, or a default-layout array, given to a function compiled for another
    layout): laid out anew by an identity computation with that result layout. `shardings`:
    where each leaf goes (an array stays where it is)."""
    params, _ = xla.executable_layouts(compiled.exe.xla_executable)
    params = params[len(params) - len(leaves):]
    out = list(leaves)
    for i, (x, want, s) in enumerate(zip(leaves, params, shardings, strict=True)):
        ndim = len(core.get_aval(x).shape)
        have = xla.buffer_layout(x) if type(x) is ArrayImpl else None
        if have == want or (have is None and tuple(want[0]) == tuple(range(ndim))[::-1]):
            continue
        out[i] = _relayout(x, want, x.sharding if have is not None else s)
    return out


def arg_layout_modes(leaves):
    """The `mhlo.layout_mode` of each array in a non-default device-local layout (None for the
    others), or None when all are in the default one."""
    modes = None
    for i, x in enumerate(leaves):
        if type(x) is ArrayImpl and x.aval.ndim > 1:
            lay = xla.buffer_layout(x)
            if lay is not None and lay[0] != tuple(range(x.aval.ndim))[::-1]:
                modes = modes or [None] * len(leaves)
                modes[i] = "{" + ",".join(str(d) for d in lay[0]) + "}"
    return None if modes is None else tuple(modes)


def _relayout(x, want, sharding):
    aval = core.get_aval(x)
    aval = core.ShapedArray(aval.shape, aval.dtype, aval.weak_type)
    v = core.Var(aval)
    closed = core.ClosedJaxpr(core.Jaxpr([], [v], [v], []), [])
    mode = "{" + ",".join(str(d) for d in want[0]) + "}"
    if isinstance(sharding, NamedSharding):
        request = CompileRequest(closed, "relayout", devices=spmd.mesh_devices((sharding,), None),
                                 in_shardings=(sharding,), out_shardings=(sharding,),
                                 out_layouts=(mode,))
    else:
        request = CompileRequest(closed, "relayout", devices=tuple(sharding._device_assignment),
                                 out_layouts=(mode,))
    return compile(request)([x])[0]


def committed_device(leaves, name, labels=None):
    """The device a computation on `leaves` runs on: that of its committed arguments (None when
    there are none: the default device). Arguments committed to different devices are a
    ValueError, as in JAX. `labels` name the leaves in the message (default: their positions)."""
    device = first = None
    for i, x in enumerate(leaves):
        if type(x) is ArrayImpl and x._committed:
            ds = xla.buffer_devices(x)
            if len(ds) > 1:  # NB: sharded arrays are gathered onto the device for now
                continue
            d = ds[0]
            if device is None:
                device, first = d, i
            elif d != device:
                def say(j, dev):
                    label = labels[j] if labels else f"argument {j}"
                    return (f"{label} of {name} with shape {_shape_str(leaves[j].aval)} and with "
                            f"device ids [{dev.id}] on platform {dev.platform.upper()}")
                raise ValueError(f"Received incompatible devices for jitted computation. Got "
                                 f"{say(first, device)} and {say(i, d)}")
    return device


def _shape_str(aval):
    return f"{aval.dtype.name}[{','.join(map(str, aval.shape))}]"


# -- C++ dispatch ------------------------------------------------------------------------------
#
# jit and eager primitives run on jaxlib's C++ dispatcher (`_jax.pjit`). On a miss it calls
# Python, which runs the call and returns, with the outputs, the data C++ needs to make the next
# call of the same signature by itself (`fastpath_data`).

FastpathData = collections.namedtuple("FastpathData", [
    "xla_executable", "out_pytree_def", "in_shardings", "out_shardings", "out_avals",
    "out_committed", "kept_var_bitvec", "in_device_local_layouts", "const_args"])

# the leaf types C++ dispatch handles itself (besides NumPy scalars)
_CPP_LEAF_TYPES = frozenset([ArrayImpl, np.ndarray, bool, int, float, complex])


def is_cpp_leaf(x) -> bool:
    """Whether C++ dispatch takes `x` as an argument itself (arrays, NumPy values, scalars)."""
    return type(x) in _CPP_LEAF_TYPES or isinstance(x, np.generic)
_dispatch_flatten = tree_util.dispatch_registry.flatten



def fastpath_data(compiled: Compiled, dyn_args, leaves, out):
    """The fast-path data for a call of `compiled` on `leaves` (the flattened `dyn_args`, the
    arguments C++ sees) that returned `out`; None when only the Python path is right for the
    signature: a debug flag checks outputs, C++ would see other leaves than pyjax did (a value
    it does not know, a struct sequence), or an argument lives on another device."""
    exe = compiled.exe
    if _debug_checks[0] or profiler.session[0] is not None or exe.with_tokens:
        return None  # (with host callbacks: each run leaves a token for effects_barrier)
    device = exe.devices[0]
    for x in leaves:
        if not is_cpp_leaf(x) or (type(x) is np.ndarray and dtypes.is_float0(x.dtype)):
            return None
        if type(x) is ArrayImpl and xla.buffer_devices(x) != [device]:
            return None
    outs = _cpp_view(dyn_args, leaves, out)
    if outs is None:
        return None
    out_leaves, out_treedef = outs
    n_in = len(compiled.const_bufs) + len(leaves)
    sharding = xla.single_device_sharding(device)
    committed = [any_committed(leaves)] * len(out_leaves)
    return FastpathData(exe.xla_executable, out_treedef, [sharding] * n_in, exe.out_shardings,
                        compiled.out_avals, committed, [True] * n_in, [None] * n_in,
                        compiled.const_bufs)


def _cpp_view(dyn_args, leaves, out):
    """(output leaves, treedef) as C++ flattens them, or None when C++ would see other argument
    leaves than pyjax did or an output that is not an Array."""
    if dyn_args is not leaves:
        cpp_leaves, _ = _dispatch_flatten(dyn_args)
        if len(cpp_leaves) != len(leaves) or any(a is not b for a, b in zip(cpp_leaves, leaves)):
            return None
    out_leaves, out_treedef = _dispatch_flatten(out)
    if any(type(o) is not ArrayImpl for o in out_leaves):
        return None
    return out_leaves, out_treedef


def fastpath_data_spmd(compiled: Compiled, dyn_args, leaves, out):
    """The fast-path data for a call partitioned over a mesh, or None. Only for arguments
    already laid out as the executable wants (C++ compares each argument's jaxlib sharding with
    `in_shardings` and calls back to Python when one differs); outputs are made with the
    jaxlib shardings of their NamedShardings, which map back to them (`named_for_xla`)."""
    if _debug_checks[0] or profiler.session[0] is not None or compiled.exe.with_tokens:
        return None
    for x, s in zip(leaves, compiled.in_shardings, strict=True):
        if type(x) is not ArrayImpl or x._named_sharding != s:
            return None
    outs = _cpp_view(dyn_args, leaves, out)
    if outs is None:
        return None
    out_leaves, out_treedef = outs
    exe = compiled.exe
    in_shardings = ([b._sharding for b in compiled.const_bufs]
                    + [s._to_xla(x.ndim) for x, s in zip(leaves, compiled.in_shardings)])
    if any(map(is_ambiguous, in_shardings)) or any(map(is_ambiguous, exe.out_shardings)):
        return None
    n_in = len(in_shardings)
    return FastpathData(exe.xla_executable, out_treedef, in_shardings, exe.out_shardings,
                        compiled.out_avals, [True] * len(out_leaves), [True] * n_in,
                        [None] * n_in, compiled.const_bufs)


def any_committed(leaves) -> bool:
    """As in JAX, a computation on an array committed to a device gives committed outputs."""
    return any(type(x) is ArrayImpl and x._committed for x in leaves)


def shard_arg_fallback(*args):
    raise TypeError(f"pyjax: cannot place argument {args[0]!r:.80} on a device")


# -- the in-memory cache registry ------------------------------------------------------------
#
# Every in-memory cache in pyjax (jit signatures, traced and transformed jaxprs, compiled
# executables, eager control-flow traces) registers how to empty itself, so `clear_caches` reaches
# all of them without this module importing the ones above it.

_cache_clearers: list = []


def register_cache(clear):
    """Register `clear()`, which empties one cache; returns `clear` (usable as a decorator)."""
    _cache_clearers.append(clear)
    return clear


def clear_caches():
    """Empty every registered in-memory cache (the on-disk compilation cache is kept)."""
    for clear in _cache_clearers:
        clear()


register_cache(_compiled.clear)
register_cache(_primitive_cache.clear)
register_cache(_eager_fns.clear)
register_cache(_jaxpr_primitive_cache.clear)
register_cache(_reshard_jaxprs.clear)
register_cache(xla.clear_caches)
