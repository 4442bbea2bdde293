"""`jit`: trace once per signature, compile with XLA, and call the executable.

`jit(f)` is jaxlib's C++ `PjitFunction`: it flattens the arguments, looks their signature up in
its cache and runs the executable, all in C++. The first call of a signature (and any call C++
cannot answer: tracers, unknown leaf types) comes to `JitInfo.cache_miss`, which traces, compiles
through `dispatch.compile`, runs, and hands C++ the data for the next call. Under a
transformation (grad, vmap, an enclosing jit) the call binds the `pjit` primitive, whose rules let
every interpreter see through it; nested jits are inlined into the enclosing module when lowered.
"""
from __future__ import annotations

import dataclasses
import functools
import inspect
import logging
import os
import operator
import time
import weakref

import numpy as np
import optree

from pyjax._src import core, dispatch, dtypes, profiler, spmd, tree_util
from pyjax._src import sharding as sharding_lib
from pyjax._src import mesh as mesh_lib
from pyjax._src.mesh import SHARDING_IN_TYPES
from pyjax._src.array import Array, ArrayImpl, ShapeDtypeStruct, from_host
from pyjax._src.backend import xla
from pyjax._src.config import TRACE_FLAGS, config
from pyjax._src.core import Primitive
from pyjax._src.dispatch import Compiled, CompileRequest, register_cache
from pyjax._src.interpreters import ad, batching
from pyjax._src.interpreters import partial_eval as pe
from pyjax._src.interpreters.batching import BatchTrace
from pyjax._src.lax.barriers import reshard_p
from pyjax._src.state.types import AbstractRef, Ref
from pyjax._src.stages import Compiled, Lowered, Traced  # noqa: F401 (re-exported)
from pyjax._src.traceback_util import api_boundary

logger = logging.getLogger("pyjax")
_config_values = config._global  # (the global flags: a thread in a flag's block has its own)
_tls = config._tls

# The settings that change what tracing produces: part of every trace-cache key. Kept as one
# tuple, refreshed when a flag changes, so the jit hot path reads a single value.
_TRACE_FLAGS = TRACE_FLAGS
_trace_context = [None]


def _refresh_trace_context(_=None):
    _trace_context[0] = tuple(_config_values.get(name) for name in _TRACE_FLAGS)


_refresh_trace_context()
for _name in _TRACE_FLAGS:
    config.on_change(_name, _refresh_trace_context, local=lambda value, own: None)


def _current_trace_context():
    """The trace flags of this thread: the cached tuple unless it is inside a flag's block."""
    values = _tls.values
    if values is _config_values:
        return _trace_context[0]
    return tuple([values.get(name) for name in _TRACE_FLAGS])

# fun -> {signature: (closed jaxpr, out_tree)}: the traces shared by all jit wrappers of fun
_traces: "weakref.WeakKeyDictionary" = weakref.WeakKeyDictionary()
_trace_state = core._trace_state
_EvalTrace = core.EvalTrace
_flatten = optree._C.flatten  # the C entry point: saves a Python frame per call
_NAMESPACE = tree_util.NAMESPACE

# A call given (or closing over) Refs is checked and run by state.discharge, which imports pjit
# (its discharge rule binds pjit_p): it fills this slot when imported, with "check_ref_args" and
# "jit_call_operands" (STYLE rule 9: a registry the module above fills).
ref_call_rules: dict = {}

# -- the pjit primitive ----------------------------------------------------------------------

# NB: named `jit` in printed jaxprs, as in JAX 0.10 (the Python object keeps JAX's old name)
pjit_p = Primitive("jit", multiple_results=True)


@pjit_p.def_abstract_eval
def _pjit_abstract_eval(*avals, jaxpr, name, donated_invars=None):
    return jaxpr.out_avals


@pjit_p.def_impl
def _pjit_impl(*args, jaxpr, name, donated_invars=None):
    mesh = spmd.constrained_mesh(jaxpr.jaxpr) if xla.multiple_devices() else None
    if mesh is not None:  # e.g. the known half of a jitted shard_map under grad
        ins, _ = spmd.shardings_for(None, None, (), {}, list(args), None, name, mesh)
        return dispatch.compile(CompileRequest(jaxpr, name, donated_invars or (),
                                               spmd.mesh_devices(ins, None, mesh), ins, None))(args)
    return dispatch.compile(CompileRequest(jaxpr, name, donated_invars or ()))(args)


@pjit_p.def_lowering
def _pjit_lowering(ctx, *args, jaxpr, name, donated_invars=None):
    consts = [ctx.const(np.asarray(c), np.asarray(c).dtype, np.shape(c)) for c in jaxpr.consts]
    return ctx.lower_jaxpr(jaxpr.jaxpr, consts, list(args))


def _pjit_jvp(primals, tangents, *, jaxpr, name, donated_invars=None):
    nonzero = [type(t) is not ad.Zero for t in tangents]
    key = tuple(nonzero)
    cache = _jvp_jaxprs.setdefault(jaxpr, {})
    jvp_closed = cache.get(key)
    if jvp_closed is None:
        closed, kept = ad.jvp_jaxpr_nonzero(jaxpr, nonzero)
        jvp_closed = cache[key] = (closed, _as_const_free(closed), kept)
    closed, free, kept = jvp_closed
    outs = pjit_p.bind(*closed.consts, *primals, *[t for t in tangents if type(t) is not ad.Zero],
                       jaxpr=free, name=name)  # as in JAX, the user's name stays
    nout = len(jaxpr.out_avals)
    return outs[:nout], ad.merge_tangents(jaxpr.out_avals, kept, outs[nout:])


_jvp_jaxprs: "weakref.WeakKeyDictionary" = weakref.WeakKeyDictionary()


def _pjit_partial_eval(eqn, in_unknown):
    """Split a pjit equation into a known pjit (producing residuals) and an unknown one. The
    split jaxprs are cached per (jaxpr, unknowns), so repeated eager `grad(jit(f))` calls reuse
    the compiled known part."""
    closed = eqn.params["jaxpr"]
    cache = _split_jaxprs.setdefault(closed, {})
    split = cache.get(tuple(in_unknown))
    if split is None:
        nout = len(closed.out_avals)
        known, unknown, out_unknown, nres = ad.partial_eval_jaxpr(closed.jaxpr, in_unknown, [False] * nout)
        known, unknown, nres = _drop_unread_residuals(known, unknown, nres)
        known, forwarded = _forward_residuals(known, nres)
        split = cache[tuple(in_unknown)] = (core.ClosedJaxpr(known, closed.consts),
                                            core.ClosedJaxpr(unknown, []), out_unknown, forwarded)
    known, unknown, out_unknown, forwarded = split
    name = eqn.params["name"]
    known_outvars = [v for v, u in zip(eqn.outvars, out_unknown) if not u]
    unknown_outvars = [v for v, u in zip(eqn.outvars, out_unknown) if u]
    k_in = [v for v, u in zip(eqn.invars, in_unknown) if not u]
    u_in = [v for v, u in zip(eqn.invars, in_unknown) if u]
    new_res = [core.Var(v.aval) for v in known.jaxpr.outvars[len(known_outvars):]]
    it = iter(new_res)
    res_vars = [next(it) if f is None else (k_in if f[0] == "in" else known_outvars)[f[1]]
                for f in forwarded]
    k_eqn = core.JaxprEqn(k_in, known_outvars + new_res, pjit_p,
                          dict(jaxpr=known, name=name, donated_invars=None))
    u_eqn = core.JaxprEqn(res_vars + u_in, unknown_outvars, pjit_p,
                          dict(jaxpr=unknown, name=name, donated_invars=None))
    return [k_eqn], [u_eqn], out_unknown


def _forward_residuals(known: core.Jaxpr, nres: int):
    """`(known jaxpr, how each residual comes)`: a residual that is a known input or a known
    output is forwarded as that value (("in", i) / ("out", i)), not returned again, as JAX
    forwards them; the others (None) stay outputs of the known jaxpr."""
    nk = len(known.outvars) - nres
    forwarded = []
    for r in known.outvars[nk:]:
        if type(r) is core.Var and r in known.invars:
            forwarded.append(("in", known.invars.index(r)))
        elif type(r) is core.Var and r in known.outvars[:nk]:
            forwarded.append(("out", known.outvars.index(r)))
        else:
            forwarded.append(None)
    if all(f is None for f in forwarded):
        return known, forwarded
    outvars = known.outvars[:nk] + [r for r, f in zip(known.outvars[nk:], forwarded) if f is None]
    return core.Jaxpr(known.constvars, known.invars, outvars, known.eqns, known.effects,
                      known.debug_info), forwarded


def _drop_unread_residuals(known: core.Jaxpr, unknown: core.Jaxpr, nres: int):
    """Residuals the (dead-code-eliminated) unknown side never reads are not computed by the
    known side either: e.g. the derivative pieces of a `stop_gradient`ed max in log_softmax."""
    unknown = pe.prune_jaxpr(unknown)
    read = {v for eqn in unknown.eqns for v in eqn.invars if type(v) is core.Var}
    read.update(v for v in unknown.outvars if type(v) is core.Var)
    keep = [v in read for v in unknown.invars[:nres]]
    if all(keep):
        return known, unknown, nres
    unknown = core.Jaxpr(unknown.constvars,
                         [v for v, k in zip(unknown.invars[:nres], keep) if k] + unknown.invars[nres:],
                         unknown.outvars, unknown.eqns)
    n_out = len(known.outvars) - nres
    res_out = [v for v, k in zip(known.outvars[n_out:], keep) if k]
    known = pe.prune_jaxpr(core.Jaxpr(known.constvars, known.invars, known.outvars[:n_out] + res_out,
                                    known.eqns))
    return known, unknown, sum(keep)


_split_jaxprs: "weakref.WeakKeyDictionary" = weakref.WeakKeyDictionary()
_transpose_jaxprs: "weakref.WeakKeyDictionary" = weakref.WeakKeyDictionary()


def _pjit_transpose(cts, *args, jaxpr, name, donated_invars=None):
    """Transpose the inner linear jaxpr, traced into a new pjit so the backward pass of a jitted
    function is itself one compiled call."""
    mask = [ad.is_undefined_primal(a) for a in args]
    residuals = [a for a in args if not ad.is_undefined_primal(a)]
    ct_nonzero = [type(c) is not ad.Zero for c in cts]
    ct_avals = [core.get_aval(c) for c, nz in zip(cts, ct_nonzero) if nz]
    res_avals = [core.get_aval(r) for r in residuals]

    def bwd(*xs):
        res, cs = xs[:len(residuals)], iter(xs[len(residuals):])
        full_cts = [next(cs) if nz else ad.Zero(ad.tangent_aval(a)) for a, nz in zip(jaxpr.out_avals, ct_nonzero)]
        cts_in = ad.backward_pass(jaxpr.jaxpr, list(res), mask, full_cts)
        return [ad.instantiate(c) for c, m in zip(cts_in, mask) if m]
    # cached per signature, so repeated eager grad(jit(f)) calls reuse the compiled backward pass
    key = (tuple(mask), tuple(ct_nonzero), tuple(res_avals), tuple(ct_avals))
    cache = _transpose_jaxprs.setdefault(jaxpr, {})
    hit = cache.get(key)
    if hit is None:
        closed, _ = pe.trace_to_jaxpr(bwd, res_avals + ct_avals)
        hit = (closed.consts, _as_const_free(closed))
        if not any(isinstance(c, core.Tracer) for c in closed.consts):
            cache[key] = hit
    consts, free = hit
    outs = pjit_p.bind(*consts, *residuals, *[c for c in cts if type(c) is not ad.Zero],
                       jaxpr=free, name=name)
    it = iter(outs)
    return [next(it) if m else None for m in mask]


def _pjit_dce(used_outputs, eqn):
    """Keep only the outputs that are used (and what computes them): under `grad` a jitted
    function's primal value often is not (the backward pass needs only its residuals)."""
    closed = eqn.params["jaxpr"]
    key = tuple(used_outputs)
    cache = _dce_jaxprs.setdefault(closed, {})
    pruned = cache.get(key)
    if pruned is None:  # cached: the same pruned jaxpr, so its executable is compiled once
        pruned = cache[key] = core.ClosedJaxpr(pe.prune_jaxpr(closed.jaxpr, used_outputs), closed.consts)
    outvars = [v for v, u in zip(eqn.outvars, used_outputs, strict=True) if u]
    return None, core.JaxprEqn(eqn.invars, outvars, pjit_p, dict(eqn.params, jaxpr=pruned))


_dce_jaxprs: "weakref.WeakKeyDictionary" = weakref.WeakKeyDictionary()
pjit_p.dce = _pjit_dce
pjit_p.def_jvp(_pjit_jvp)
pjit_p.def_transpose(_pjit_transpose)
pjit_p.partial_eval = _pjit_partial_eval



def _pjit_batch(axis_data, args, dims, *, jaxpr, name, donated_invars=None):
    """Batch the inner jaxpr into a new pjit. An AxisBatchRule: it runs even when nothing is
    batched, since the body may use the vmap's named axis; the batched jaxpr is cached per
    (jaxpr, dims, axis), so vmap of a jitted function compiles once per batched signature."""
    batched, out_dims, consts = batching.batch_jaxpr(jaxpr, axis_data, dims)
    outs = pjit_p.bind(*consts, *args, jaxpr=batched, name=name, donated_invars=None)
    return outs, list(out_dims)


pjit_p.def_batch(batching.AxisBatchRule(_pjit_batch))


# -- signatures --------------------------------------------------------------------------------


class _Entry:
    __slots__ = ("closed", "out_tree", "compiled", "elsewhere", "consts_are_concrete", "donated",
                 "sharded", "mesh", "has_refs", "compile_options")

    def __init__(self, closed, out_tree, donated, compile_options=()):
        self.closed = closed
        self.compile_options = compile_options  # jit's compiler_options (XLA option overrides)
        self.out_tree = out_tree
        self.compiled = None  # for the default device
        self.elsewhere = {}   # device -> Compiled, for arguments committed to another device
        self.sharded = {}     # (in_shardings, out_shardings) -> Compiled over their mesh
        # the mesh its sharding constraints name (None: none), when there are several devices
        self.mesh = spmd.constrained_mesh(closed.jaxpr) if xla.multiple_devices() else None
        self.donated = donated
        self.consts_are_concrete = not any(isinstance(c, core.Tracer) for c in closed.consts)
        # Refs given or closed over: each call runs the discharged jaxpr (state.discharge)
        self.has_refs = any(type(v.aval) is AbstractRef
                            for v in closed.jaxpr.constvars + closed.jaxpr.invars)

    def request(self, name, device=None, layouts=(None, None)) -> CompileRequest:
        devices = (device,) if device is not None else ()
        return CompileRequest(self.closed, f"jit_{name}", self.donated, devices,
                              in_layouts=layouts[0], out_layouts=layouts[1],
                              compile_options=self.compile_options)

    def compiled_sharded(self, name, in_shardings, out_shardings,
                         layouts=(None, None)) -> Compiled:
        key = (in_shardings, out_shardings) + ((layouts,) if layouts != (None, None) else ())
        compiled = self.sharded.get(key)
        if compiled is None:
            request = CompileRequest(self.closed, f"jit_{name}", self.donated,
                                     spmd.mesh_devices(in_shardings, out_shardings, self.mesh),
                                     in_shardings, out_shardings, in_layouts=layouts[0],
                                     out_layouts=layouts[1], compile_options=self.compile_options)
            compiled = self.sharded[key] = dispatch.compile(request)
        return compiled

    def compiled_for(self, name, device, layouts=(None, None)) -> Compiled:
        if layouts != (None, None):  # (device-local layouts asked for: compiled each call)
            return dispatch.compile(self.request(name, device, layouts))
        if device is None or device == dispatch.default_devices()[0]:
            if self.compiled is None:
                self.compiled = dispatch.compile(self.request(name))
            return self.compiled
        compiled = self.elsewhere.get(device)
        if compiled is None:
            compiled = self.elsewhere[device] = dispatch.compile(self.request(name, device))
        return compiled


def _normalize_argnums(argnums, nargs_hint=None):
    """An int or a sequence of ints (NumPy ints too) as a tuple; anything else is a TypeError."""
    if argnums is None:
        return ()
    if hasattr(argnums, "__index__"):
        return (operator.index(argnums),)
    return tuple(operator.index(a) for a in argnums)


def _normalize_argnames(argnames, what):
    if argnames is None:
        return ()
    names = (argnames,) if isinstance(argnames, str) else tuple(argnames)
    for n in names:
        if not isinstance(n, str):
            raise TypeError(f"jit: {what} must be strings, got {argnames!r}")
    return names


def _check_callable(fun):
    if isinstance(fun, staticmethod):  # (JAX's words, then how to fix it)
        raise TypeError(f"staticmethod arguments are not supported, got {fun}; apply jit to the "
                        f"function before making it a staticmethod")
    if not callable(fun):
        raise TypeError(f"Expected a callable value, got {fun!r}")   # JAX's words
    if inspect.isgeneratorfunction(fun):
        raise TypeError(f"Expected a function, got a generator function: {fun}")


def _check_argnums(sig, argnums, what):
    """As JAX: argnums must name positional parameters unless the function takes *args."""
    params = sig.parameters.values()
    if any(p.kind is p.VAR_POSITIONAL for p in params) or not argnums:
        return
    n = sum(p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD) for p in params)
    if -min(argnums) > n or max(argnums) >= n:
        raise ValueError(f"jit: {what}={argnums} does not fit the function, which accepts only {n} "
                         f"positional arguments")


def _check_argnames(sig, argnames, what):
    """As JAX: argnames must name parameters that can be passed by keyword (any, with **kwargs)."""
    params = sig.parameters.values()
    positional_only = {p.name for p in params if p.kind in (p.POSITIONAL_ONLY, p.VAR_POSITIONAL)}
    if positional_only & set(argnames):
        raise ValueError(f"jit: {what} {sorted(positional_only & set(argnames))} are positional-only "
                         f"parameters, which cannot be passed by name")
    if any(p.kind is p.VAR_KEYWORD for p in params):
        return
    valid = {p.name for p in params if p.kind in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY)}
    if set(argnames) - valid:
        raise ValueError(f"jit: {what} {sorted(set(argnames) - valid)} are not parameters of the "
                         f"function (it takes {sorted(valid)})")


def _in_library(fun) -> bool:
    """Whether `fun` is an installed library's (a wrapper such as equinox's, serving many
    functions, recompiles by design: its users cannot act on a warning), or pyjax's own (also
    when pyjax is installed in place, outside site-packages)."""
    code = getattr(inspect.unwrap(fun), "__code__", None) if callable(fun) else None
    path = getattr(code, "co_filename", "")
    return "site-packages" in path or "dist-packages" in path or path.startswith(_PYJAX_DIR)


_PYJAX_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__))) + os.sep


def _unless_empty(shardings):
    return None if shardings is None or not tree_util.tree_leaves(shardings) else shardings


class JitInfo:
    """What `jit(fun)` knows besides the C++ dispatcher's cache: the function, its static and
    donated arguments, and the Python path every call takes when C++ cannot answer it (the
    first call of a signature, tracers, values C++ does not know)."""

    def __init__(self, fun, static_argnums=None, static_argnames=None, donate_argnums=None,
                 donate_argnames=None, keep_unused=False, inline=False, name=None,
                 in_shardings=None, out_shardings=None, compiler_options=None):
        _check_callable(fun)
        # XLA option overrides for this function's executables, as (name, value) pairs
        self.compiler_options = tuple(sorted(dict(compiler_options or {}).items()))
        # pytree prefixes of the positional arguments / of the outputs (None: unspecified)
        # shardings that are all None (unspecified: None is an empty pytree) are no shardings
        # (Formats give shardings and device-local layouts: the layouts are kept apart)
        in_shardings, self.in_layouts = spmd.split_formats(in_shardings)
        out_shardings, self.out_layouts = spmd.split_formats(out_shardings)
        self.in_shardings, self.out_shardings = _unless_empty(in_shardings), _unless_empty(out_shardings)
        self.fun = fun
        self.keep_unused = keep_unused  # (export keeps unused arguments in its module then)
        self.name = name or getattr(fun, "__name__", "fun")
        try:
            self._sig = inspect.signature(fun)
        except (TypeError, ValueError):
            self._sig = None
        static_argnums = _normalize_argnums(static_argnums)
        static_argnames = _normalize_argnames(static_argnames, "static_argnames")
        donate_argnums = _normalize_argnums(donate_argnums)
        donate_argnames = _normalize_argnames(donate_argnames, "donate_argnames")
        self._check_static_and_donated(static_argnums, static_argnames, donate_argnums, donate_argnames)
        self.static_argnums, self.static_argnames = self._infer_static(static_argnums, static_argnames)
        self.donate_argnums = donate_argnums + self._argnums_of(donate_argnames)
        self.inline = inline
        self.device = None
        self._has_static = bool(self.static_argnums or self.static_argnames)
        self._cache: dict = {}
        self._misses = 0
        self._last_sig = None
        self._miss_failed = False
        self.jitted = lambda: None  # a weak reference to the C++ function, once made
        # C++ shares compiled entries between jits of one function with equal settings (all of
        # them: another out_shardings or compiler_options is another executable); settings that
        # cannot be hashed (dict-shaped shardings) share with no other jit
        settings = (self.in_shardings, self.out_shardings, self.in_layouts, self.out_layouts,
                    self.compiler_options, keep_unused)
        try:
            hash(settings)
        except TypeError:
            settings = object()
        self.cpp_key = (self.static_argnums, self.static_argnames, self.donate_argnums, inline,
                        settings)
        _live_infos.add(self)

    def _check_static_and_donated(self, static_argnums, static_argnames, donate_argnums, donate_argnames):
        """JAX's checks of the argnums/argnames against the signature (when there is one)."""
        if self._sig is None:
            if donate_argnames:
                raise ValueError(f"Getting the signature of function {self.fun} failed. Pass "
                                 f"donate_argnums instead of donate_argnames.")
            return
        _check_argnums(self._sig, static_argnums, "static_argnums")
        _check_argnames(self._sig, static_argnames, "static_argnames")
        _check_argnums(self._sig, donate_argnums, "donate_argnums")
        _check_argnames(self._sig, donate_argnames, "donate_argnames")
        params = [p.name for p in self._params()]
        static = set(static_argnames) | {params[n] for n in static_argnums if -len(params) <= n < len(params)}
        donated = set(donate_argnames) | {params[n] for n in donate_argnums if -len(params) <= n < len(params)}
        if static & donated:  # (JAX's words; static arguments are not arrays to donate)
            raise ValueError(f"static_argnames and donate_argnames cannot intersect. Argument "
                             f"names {static & donated} appear in both static_argnames and "
                             f"donate_argnames")

    def _params(self):
        if self._sig is None:
            return []
        return [p for p in self._sig.parameters.values()
                if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]

    def _var_names(self):
        """The names of the *args and **kwargs parameters (for error messages)."""
        params = self._sig.parameters.values() if self._sig else ()
        return (next((p.name for p in params if p.kind == p.VAR_POSITIONAL), "args"),
                next((p.name for p in params if p.kind == p.VAR_KEYWORD), None))

    def _argnums_of(self, names):
        params = [p.name for p in self._params()]
        return tuple(params.index(n) for n in names if n in params)

    def _infer_static(self, nums, names):
        """JAX accepts static arguments named by position or by name; record both views."""
        params = [p.name for p in self._params()]
        nums = tuple(n % len(params) if n < 0 and params else n for n in nums)
        names = tuple(names) + tuple(params[n] for n in nums if 0 <= n < len(params) and params[n] not in names)
        nums = tuple(nums) + tuple(params.index(n) for n in names if n in params and params.index(n) not in nums)
        return tuple(sorted(set(nums))), names

    # -- calling ---------------------------------------------------------------------------

    @api_boundary  # the Python path only: C++ dispatch of cached calls never enters it
    def cache_miss(self, *args, **kwargs):
        """What C++ dispatch calls when its cache has no answer: run the call in Python and
        hand back `(outputs, fast-path data or None, whether to drop C++'s cache)`."""
        if self.inline and type(_trace_state.trace) is not _EvalTrace:
            # traced inline, as if not jitted (with the arguments as arrays, as JAX traces them)
            args, kwargs = self._host_values_as_arrays(args, kwargs)
            return self.fun(*args, **kwargs), None, False
        try:
            out, fastpath = self.call(args, kwargs)
        except BaseException:
            # C++ now sends this signature to Python until its cache is cleared (below)
            self._miss_failed = True
            raise
        if self._miss_failed and fastpath is not None:
            self._miss_failed = False
            jitted = self.jitted()
            if jitted is not None:
                jitted._clear_cache()
        return out, fastpath, False

    def _host_values_as_arrays(self, args, kwargs):
        """The dynamic arguments' Python scalars and NumPy values as arrays (weak-typed for
        Python scalars), as a jit's function sees them in JAX (blackjax reads `.dtype` of an
        inline jit's `1.0`); static arguments as they are."""
        if not kwargs and all(isinstance(a, core.Tracer) for a in args):
            return args, kwargs  # (the common case inside a trace: nothing to convert)
        statics, names = self.static_argnums, self.static_argnames
        args = tuple(a if i in statics else tree_util.tree_map(_host_value_as_array, a)
                     for i, a in enumerate(args))
        kwargs = {k: v if k in names else tree_util.tree_map(_host_value_as_array, v)
                  for k, v in kwargs.items()}
        return args, kwargs

    def call(self, args, kwargs):
        """The Python path of a call: `(outputs, fast-path data or None)`."""
        dyn_args, dyn_kwargs, static_key = (self._split_static(args, kwargs) if self._has_static
                                            else (args, kwargs, ()))
        leaves, in_tree = _flatten((dyn_args, dyn_kwargs), None, False, _NAMESPACE)
        try:
            avals = tuple([x.aval for x in leaves])
        except AttributeError:
            if self.inline and not all(map(dispatch.is_cpp_leaf, leaves)):
                # a library function given a list, a string, an object with __jax_array__:
                # run it as it is (its own checks name the problem)
                return self.fun(*args, **kwargs), None
            avals = tuple([self._arg_aval(x, i, in_tree) for i, x in enumerate(leaves)])
        if SHARDING_IN_TYPES[0]:  # arrays' types carry their shardings (explicit mesh axes)
            avals = tuple([core.with_context_sharding(_leaf_aval_checked(x)) for x in leaves])
        key = (in_tree, static_key, avals, _current_trace_context())
        if core.VMA_TRACING[0]:  # (traced in a check_vma shard_map body: with vma types)
            key += (core.vma_axes(),)
        entry = self._cache.get(key)
        if entry is None:
            entry = self._trace(dyn_args, dyn_kwargs, static_key, in_tree, avals, key)
        if entry.has_refs:
            return entry.out_tree.unflatten(self._call_with_refs(entry, leaves, dyn_args,
                                                                 dyn_kwargs, in_tree)), None
        if type(_trace_state.trace) is not _EvalTrace:
            closed = entry.closed
            outs = pjit_p.bind(*closed.consts, *leaves, jaxpr=_as_const_free(closed),
                               name=self.name, donated_invars=None)
            return entry.out_tree.unflatten(outs), None
        single = None  # the one device that given SingleDeviceShardings name
        layouts = self._layout_modes(dyn_args, avals, entry, leaves)
        if self.in_shardings is not None or self.out_shardings is not None:
            if self.in_shardings is not None and dyn_kwargs:
                raise ValueError("pjit does not support kwargs when in_shardings is specified.")
            single = spmd.single_device(self.in_shardings, self.out_shardings, dyn_args, leaves,
                                        entry.out_tree, self.name)
        if single is None and self.device is None and (
                self.in_shardings is not None or self.out_shardings is not None or (
                xla.multiple_devices() and (entry.mesh is not None or any(
                    type(x) is ArrayImpl and x._named_sharding is not None for x in leaves)))):
            ins, outs = spmd.shardings_for(
                self.in_shardings, self.out_shardings, dyn_args, dyn_kwargs, leaves,
                entry.out_tree, self.name, entry.mesh)
            if outs is None and SHARDING_IN_TYPES[0]:  # the types say the outputs' layouts
                outs = spmd.out_shardings_from_types(ins, entry.closed.out_avals)
            compiled = entry.compiled_sharded(self.name, ins, outs, layouts)
            if layouts != (None, None):  # arguments in the layouts it takes (no C++ dispatch)
                leaves = dispatch.in_layouts(compiled, leaves, ins)
                return entry.out_tree.unflatten(compiled(leaves)), None
            out = entry.out_tree.unflatten(compiled(leaves))
            return out, dispatch.fastpath_data_spmd(compiled, (dyn_args, dyn_kwargs), leaves, out)
        device = single if single is not None else self.device  # (jit(device=...): JAX's
        # deprecated placement, kept)
        if device is None and xla.multiple_devices():
            labels = [f"argument {n}" for n in _arg_origins(
                self._params(), dyn_args, dyn_kwargs, in_tree, self.static_argnums) or ()] or None
            device = dispatch.committed_device(leaves, self.name, labels)
        compiled = entry.compiled_for(self.name, device, layouts)
        if layouts != (None, None):
            leaves = dispatch.in_layouts(compiled, leaves, [sharding_lib.SingleDeviceSharding(
                compiled.exe.devices[0])] * len(leaves))
            return entry.out_tree.unflatten(compiled(leaves)), None
        out = entry.out_tree.unflatten(compiled(leaves))
        return out, dispatch.fastpath_data(compiled, (dyn_args, dyn_kwargs), leaves, out)

    def _layout_modes(self, dyn_args, avals, entry, leaves):
        """The `mhlo.layout_mode`s jit's Formats ask for: (per argument, per output); without
        Formats, the layouts of arguments in another than the default (as JAX compiles
        for them)."""
        if self.in_layouts is None and self.out_layouts is None:
            return dispatch.arg_layout_modes(leaves), None
        full = tree_util.tree_unflatten(entry.out_tree, [0] * entry.out_tree.num_leaves)
        return (spmd.layout_modes(self.in_layouts, dyn_args, avals, "in_shardings", self.name),
                spmd.layout_modes(self.out_layouts, full, entry.closed.out_avals,
                                  "out_shardings", self.name))

    def _call_with_refs(self, entry, leaves, args, kwargs, in_tree):
        """A call given Refs (or closing over them): JAX's checks, then the jit equation over
        the refs, which `state.discharge` runs on their values (writing the new ones back)."""
        ref_call_rules["check_ref_args"](
            lambda: pe.TraceDebug(self.fun, "jit", None).fun_str(), entry.closed, leaves,
            lambda: _arg_origins(self._params(), args, kwargs, in_tree, self.static_argnums,
                                 *self._var_names()))
        jaxpr, operands = ref_call_rules["jit_call_operands"](entry.closed, leaves)
        return pjit_p.bind(*operands, jaxpr=jaxpr, name=self.name, donated_invars=None)

    def _split_static(self, args, kwargs):
        static = []
        dyn_args = []
        for i, a in enumerate(args):
            if i in self.static_argnums:
                static.append((i, _hashable_static(a, i)))
            else:
                dyn_args.append(a)
        dyn_kwargs = {}
        for k, v in kwargs.items():
            if k in self.static_argnames:
                static.append((k, _hashable_static(v, k)))
            else:
                dyn_kwargs[k] = v
        return tuple(dyn_args), dyn_kwargs, tuple(static)

    def _rebuild_args(self, dyn_args, dyn_kwargs, static_key):
        """Interleave static values back into the positional/keyword arguments."""
        static = dict(static_key)
        args, it = [], iter(dyn_args)
        n = len(dyn_args) + sum(1 for k in static if isinstance(k, int))
        for i in range(n):
            args.append(static[i].value if i in static else next(it))
        kwargs = dict(dyn_kwargs)
        kwargs.update({k: v.value for k, v in static.items() if isinstance(k, str)})
        return args, kwargs

    def _trace(self, args, kwargs, static_key, in_tree, avals, key):
        self._explain_miss(key)
        with xla.internal_transfer():  # (host constants met while tracing: JAX embeds them)
            closed, out_tree = self._make_jaxpr(args, kwargs, static_key, in_tree, avals)
        donated = self._donated_leaves(args, kwargs, in_tree) if self.donate_argnums else ()
        entry = _Entry(closed, out_tree, donated, self.compiler_options)
        # a trace that saw named vmap axes may hold collectives over them: valid only there
        if entry.consts_are_concrete and not _named_axes_in_scope():
            self._cache[key] = entry
        return entry

    def _make_jaxpr(self, args, kwargs, static_key, in_tree, avals):
        """Trace the function, or reuse its trace: as in JAX, traces are shared by every `jit`
        wrapper (and `make_jaxpr`) of the same function with the same static configuration,
        so `jit(f)(x)` in a loop, or `make_jaxpr(f)` after `jit(f)`, runs f's body once."""
        key = (in_tree, static_key, avals, _current_trace_context(), self.static_argnums, self.static_argnames)
        try:
            per_fun = _traces.setdefault(self.fun, {})
        except TypeError:  # not weakly referenceable
            per_fun = {}
        hit = per_fun.get(key)
        if hit is None:
            hit = self._trace_fun(args, kwargs, static_key, in_tree, avals)
            if not any(isinstance(c, core.Tracer) for c in hit[0].consts) and not _named_axes_in_scope():
                per_fun[key] = hit
        return hit

    def _trace_fun(self, args, kwargs, static_key, in_tree, avals):
        debug = pe.TraceDebug(self.fun, "jit", lambda: _arg_origins(
            self._params(), args, kwargs, in_tree, self.static_argnums, *self._var_names()))
        out_tree_box = []

        def flat_fun(*flat):
            a, kw = tree_util.tree_unflatten(in_tree, flat)
            a, kw = self._rebuild_args(a, kw, static_key) if static_key else (a, kw)
            out = self.fun(*a, **kw)
            out_flat, out_tree = tree_util.tree_flatten(out)
            for i, o in enumerate(out_flat):
                if type(o) is Ref or (isinstance(o, core.Tracer) and type(o.aval) is AbstractRef):
                    _returned_ref_error(o, debug)
                _check_output(o, self.name, debug, out, i)
            out_tree_box.append(out_tree)
            return out_flat
        t0 = time.perf_counter()
        closed = pe.trace_to_jaxpr(flat_fun, list(avals), debug=debug)[0]
        _traced(self, t0)
        return closed, out_tree_box[0]

    def _donated_leaves(self, args, kwargs, in_tree):
        flags = []
        dyn_index = [i for i in range(len(args) + len(self.static_argnums)) if i not in self.static_argnums]
        for pos, a in enumerate(args):
            orig = dyn_index[pos] if pos < len(dyn_index) else pos
            n = len(tree_util.tree_leaves(a))
            flags += [orig in self.donate_argnums] * n
        params = [p.name for p in self._params()]
        donate_names = {params[i] for i in self.donate_argnums if 0 <= i < len(params)}
        for k in sorted(kwargs):  # the flattening order of a dict
            flags += [k in donate_names] * len(tree_util.tree_leaves(kwargs[k]))
        return tuple(flags)

    def _explain_miss(self, key):
        self._misses += 1
        prev, self._last_sig = self._last_sig, key
        # NB: pyjax explains repeated recompiles by default (JAX only with explain_cache_misses),
        # except for library functions (inline jits such as jnp.add, compiled per shape anyway).
        by_default = self._misses in (4, 16, 64) and not self.inline and not _in_library(self.fun)
        if prev is None or not (config.jax_explain_cache_misses or by_default):
            return
        what = []  # (JAX's phrases: "different input pytree", "different input types")
        if prev[0] != key[0]:
            what.append(f"different input pytree: now {key[0]} and before {prev[0]}")
        if prev[1] != key[1]:
            what.append(f"static arguments changed: {prev[1]} -> {key[1]}")
        if prev[0] == key[0] and prev[2] != key[2]:
            paths = self._leaf_names(key[0])
            diffs = [f"at {name}, now {_explained_aval(b)} and before {_explained_aval(a)}"
                     for name, a, b in zip(paths, prev[2], key[2]) if a != b]
            what.append("different input types: " + "; ".join(diffs[:5]))
        n = self._misses
        nth = f"{n}{'th' if 10 <= n % 100 <= 20 else {1: 'st', 2: 'nd', 3: 'rd'}.get(n % 10, 'th')}"
        logger.warning(f"jit({self.name}) is recompiling for the {nth} time: "
                       + ("; ".join(what) or "configuration changed"))

    def _arg_aval(self, x, i, in_tree):
        """Leaf i's aval, or JAX's TypeError naming the function and the argument's path."""
        try:
            return core.get_aval(x)
        except TypeError:
            if isinstance(x, core.ShapedArray):  # an abstract value is only traced (JAX's words)
                raise TypeError(f"Argument '{x.str_short(short_dtypes=False)}' of type {type(x)} "
                                f"is not a valid JAX type.") from None
            raise TypeError(
                f"Error interpreting argument to {self.fun} as an abstract array. The problematic "
                f"value is of type {type(x)} and was passed to the function at path "
                f"{self._leaf_names(in_tree)[i]}.\nThis typically means that a jit-wrapped "
                f"function was called with a non-array argument, and this argument was not "
                f"marked as static using the static_argnums or static_argnames parameters of "
                f"jax.jit.") from None

    def _leaf_names(self, in_tree):
        """Each argument leaf's name, the parameter and the path in it (`x`, `y['a'][0]`)."""
        params = [p.name for p in self._params()]
        dyn = [i for i in range(len(params) + len(self.static_argnums)) if i not in self.static_argnums]
        names = []
        for path, _ in tree_util.tree_flatten_with_path(tree_util.tree_unflatten(
                in_tree, range(in_tree.num_leaves)))[0]:
            where, top, rest = path[0].idx, path[1], path[2:]  # ((args, kwargs) first)
            if where == 0:  # positional: its parameter's name where it has one
                pos = dyn[top.idx] if top.idx < len(dyn) else top.idx
                head = params[pos] if pos < len(params) else f"args[{top.idx}]"
            else:
                head = str(top.key)
            names.append(head + tree_util.keystr(rest))
        return names

    # -- AOT -------------------------------------------------------------------------------

    def trace(self, *args, **kwargs) -> Traced:
        if self.static_argnums or self.static_argnames:
            args, kwargs, static_key = self._split_static(args, kwargs)
        else:
            static_key = ()
        leaves, in_tree = tree_util.tree_flatten((args, kwargs))
        if any(_is_key_struct(x) for x in leaves):  # eval_shape's keys: keys over their data's
            args, kwargs = tree_util.tree_unflatten(in_tree, [
                x.dtype.abstract_keys(x.shape) if _is_key_struct(x) else x for x in leaves])
            leaves, in_tree = tree_util.tree_flatten((args, kwargs))
        avals = tuple(_trace_leaf_aval(x) for x in leaves)
        closed, out_tree = self._make_jaxpr(args, kwargs, static_key, in_tree, avals)
        donated = self._donated_leaves(args, kwargs, in_tree) if self.donate_argnums else ()
        traced = Traced(self.name, closed, in_tree, out_tree, donated)
        traced.compile_options = self.compiler_options
        traced.arg_names = lambda: self._leaf_names(in_tree)  # (for the compiled call's errors)
        mesh = spmd.constrained_mesh(closed.jaxpr) if xla.multiple_devices() else None
        if self.in_shardings is not None and kwargs:
            raise ValueError("pjit does not support kwargs when in_shardings is specified.")
        if self.in_shardings is not None or self.out_shardings is not None:
            traced.device = spmd.single_device(self.in_shardings, self.out_shardings, args,
                                               leaves, out_tree, self.name)
        if traced.device is None:
            traced.device = self.device  # (jit(device=...))
        if traced.device is None and (self.in_shardings is not None or self.out_shardings is not
                                      None or any(spmd.leaf_sharding(x) is not None
                                                  for x in leaves) or mesh):
            traced.shardings = spmd.shardings_for(self.in_shardings, self.out_shardings, args,
                                                  kwargs, leaves, out_tree, self.name, mesh)
        traced.layouts = spmd.traced_layouts(self.in_layouts, self.out_layouts, args, leaves,
                                             closed, out_tree, self.name)
        return traced

    def lower(self, *args, **kwargs) -> Lowered:
        return self.trace(*args, **kwargs).lower()

    def eval_shape(self, *args, **kwargs):
        t = self.trace(*args, **kwargs)
        return tree_util.tree_unflatten(t.out_tree, [ShapeDtypeStruct.of_aval(a)
                                                     for a in t.jaxpr.out_avals])

    def clear_cache(self):
        self._cache.clear()
        try:
            _traces.pop(self.fun, None)
        except TypeError:  # not weakly referenceable: never cached
            pass


def _named_axes_in_scope() -> bool:
    trace = core.current_trace()
    while trace is not None:
        if isinstance(trace, BatchTrace) and trace.axis_data.name is not None:
            return True
        trace = trace.parent
    return False


def _as_const_free(closed: core.ClosedJaxpr) -> core.ClosedJaxpr:
    """The jaxpr with its constvars turned into leading invars (consts are passed as args)."""
    cached = _const_free_cache.get(closed)
    if cached is None:
        cached = _const_free_cache[closed] = pe.as_const_free(closed)[0]
    return cached


_const_free_cache: "weakref.WeakKeyDictionary" = weakref.WeakKeyDictionary()

# every live jit, so `clear_caches` can empty their per-signature caches
_live_infos: "weakref.WeakSet[JitInfo]" = weakref.WeakSet()


@register_cache
def _clear_jit_caches():
    _cpp_cache.clear()
    for info in list(_live_infos):
        info._cache.clear()
        info._misses, info._last_sig = 0, None  # a recompile after clearing is not a miss
    for cache in (_traces, _jvp_jaxprs, _split_jaxprs, _transpose_jaxprs, _dce_jaxprs,
                  _const_free_cache, batching._batched_jaxprs):
        cache.clear()


class _Static:
    __slots__ = ("value", "_hash")

    def __init__(self, value, h):
        self.value = value
        self._hash = h

    def __hash__(self):
        return self._hash

    def __eq__(self, other):
        # (values that compare equal but differ in type, 1, True and 1.0, are other keys: JAX's)
        return type(other) is _Static and (self.value is other.value or (
            type(self.value) is type(other.value) and self.value == other.value))

    def __repr__(self):
        return repr(self.value)


def _hashable_static(value, where):
    try:
        return _Static(value, hash(value))
    except TypeError:
        raise ValueError(f"Non-hashable static arguments are not supported: static argument "
                         f"{where} of type {type(value).__name__} ({value!r:.80}) cannot be hashed. "
                         f"Use a tuple instead of a list, or make the argument non-static.") from None


def _is_key_struct(x):
    """A ShapeDtypeStruct of a key dtype (whose dtype makes abstract keys of it)."""
    return type(x) is ShapeDtypeStruct and hasattr(x.dtype, "abstract_keys")


def _trace_leaf_aval(x):
    """An argument's aval when tracing without running (trace/lower/eval_shape/make_jaxpr):
    as in JAX, an abstract value itself (a ShapedArray, an AbstractRef) stands for a value of
    its type."""
    if type(x) in (core.ShapedArray, AbstractRef):
        aval = x
    else:
        try:
            aval = core.shaped_abstractify(x)  # (duck-typed structs too, as JAX)
        except TypeError:
            aval = _leaf_aval_checked(x)  # (its error)
    return core.with_context_sharding(aval) if SHARDING_IN_TYPES[0] else aval


_HOST_SCALARS = frozenset((bool, int, float, complex))


def _host_value_as_array(x):
    if type(x) in _HOST_SCALARS or isinstance(x, (np.ndarray, np.generic)):
        aval = core.get_aval(x)
        return from_host(np.asarray(x, aval.dtype), aval.weak_type)
    return x


def _leaf_aval_checked(x):
    try:
        return core.get_aval(x)
    except TypeError:
        raise TypeError(f"jit: argument leaf of type {type(x).__name__} ({x!r:.60}) is not a valid "
                        f"JAX type. Only arrays, scalars and pytrees of them can be passed; mark "
                        f"other arguments static with static_argnums/static_argnames.") from None


def _check_output(o, name, debug=None, out=None, i=0):
    if isinstance(o, (core.Tracer, Array, np.ndarray, np.generic, bool, int, float, complex)):
        return
    fun = f"function {debug.fun_str()}" if debug is not None else f"function {name}"
    path = tree_util.keystr(tree_util.tree_flatten_with_path(out)[0][i][0]) if out is not None else ""
    raise TypeError(f"{fun} traced for jit returned a value of type {type(o)} at output component "
                    f"{path}, which is not a valid JAX type ({o!r:.60}). Return arrays, scalars "
                    f"and pytrees of them.")  # (JAX's words first)


def _returned_ref_error(o, debug):
    """JAX's error for a Ref among a jitted function's outputs."""
    names = [n for _, n in o._provenance() if n] if isinstance(o, core.Tracer) else []
    where = f"\n\nThe returned mutable array was passed in as the argument {names[0]}." \
        if names else ""
    raise ValueError(f"function {debug.fun_str()} traced for jit returned a mutable array "
                     f"reference of type {core.get_aval(o)!r}, but mutable array references "
                     f"cannot be returned.{where}")


def _arg_origins(params, args, kwargs, in_tree, static_argnums=(), var_name="args", kw_name=None):
    """The flattened dynamic arguments' names by their path in the user's arguments, as JAX
    writes them (`p['w']`, `params.layers[0]`, `args[1]`, `kw['q']`), for error messages."""
    names = [p.name for p in params]
    positions = [i for i in range(len(args) + len(static_argnums)) if i not in static_argnums]
    out = []
    for pos, a in zip(positions, args):
        label = names[pos] if pos < len(names) else f"{var_name}[{pos - len(names)}]"
        paths, _ = tree_util.tree_flatten_with_path(a)
        out += [f"{label}{tree_util.keystr(p)}" for p, _ in paths]
    for k in sorted(kwargs):  # the flattening order of a dict
        label = f"{kw_name}[{k!r}]" if kw_name and k not in names else k
        paths, _ = tree_util.tree_flatten_with_path(kwargs[k])
        out += [f"{label}{tree_util.keystr(p)}" for p, _ in paths]
    return out if len(out) == in_tree.num_leaves else None


# -- the C++ fast path ------------------------------------------------------------------------
#
# `jit(fun)` is jaxlib's C++ `PjitFunction`. It flattens the arguments (with
# tree_util.dispatch_registry), computes their signature and, on a hit in its cache, runs the
# executable itself; on a miss it calls `JitInfo.cache_miss`, whose fast-path data
# (`dispatch.fastpath_data`) fills its cache. The methods jit objects have besides calling (`lower`, `trace`, ...) are
# attached to the C++ type, reading the JitInfo each object carries.

_cpp_cache = xla.PjitFunctionCache(capacity=8192)
# C++ dispatch can't tell apart NamedShardings with one layout but other names (sharding.py):
# when such a pair appears, forget what it cached; those layouts then go through Python
sharding_lib.on_ambiguous_layout.append(_cpp_cache.clear)


def _explained_aval(aval):
    return aval.str_short() + ("{weak_type=True}" if aval.weak_type else "")


def _refresh_jit_settings(_=None):
    # while debug_nans/infs check outputs or a profile records executions, calls take the
    # Python path: C++'s cached entries are keyed apart
    debug = bool(_config_values["jax_debug_nans"] or _config_values["jax_debug_infs"]
                 or profiler.session[0] is not None)
    xla.TRACE_SETTINGS.set_global((_trace_context[0], debug))


def _refresh_local_jit_settings(value=None, own=None):
    # a thread inside a flag's block keys C++'s cache by its own settings (jaxlib's
    # thread-local value), and by the global ones again when it leaves the last block.
    # NB: a global update of another trace flag made meanwhile (by another thread) does not
    # reach this thread's key until its next block
    values = _tls.values
    if values is _config_values:
        xla.TRACE_SETTINGS.set_local(xla.CONFIG_UNSET)
    else:
        debug = bool(values["jax_debug_nans"] or values["jax_debug_infs"]
                     or profiler.session[0] is not None)
        xla.TRACE_SETTINGS.set_local((_current_trace_context(), debug))


def _traced(info, t0):
    """A finished trace: a profiler event, and a log line under jax_log_compiles (the user's
    jits, not library wrappers such as jnp's)."""
    if profiler.session[0] is not None:
        profiler.record("trace", info.name, t0)
    if _tls.values["jax_log_compiles"] and not info.inline:
        logger.warning(f"traced {info.name} in {(time.perf_counter() - t0) * 1e3:.1f} ms")


for _name in (*_TRACE_FLAGS, "jax_debug_nans", "jax_debug_infs"):
    config.on_change(_name, _refresh_jit_settings, local=_refresh_local_jit_settings)
profiler.on_change.append(_refresh_jit_settings)
_refresh_jit_settings()


def jit_info(f) -> JitInfo:
    """The JitInfo of a function `jit` made."""
    return f.__dict__["_jit_info"]


_info = jit_info

xla.PjitFunction.lower = api_boundary(lambda self, *args, **kwargs: _info(self).lower(*args, **kwargs))
xla.PjitFunction.trace = api_boundary(lambda self, *args, **kwargs: _info(self).trace(*args, **kwargs))
xla.PjitFunction.eval_shape = api_boundary(lambda self, *args, **kwargs: _info(self).eval_shape(*args, **kwargs))


def _clear_cache(self):
    _info(self).clear_cache()
    self._clear_cache()


xla.PjitFunction.clear_cache = _clear_cache


def make_jit(info: JitInfo, fun):
    """The C++ dispatcher for `info`, dressed as `fun` (name, docstring, `__wrapped__`)."""
    f = xla.pjit(info.name, fun, info.cache_miss, info.static_argnums, info.static_argnames,
                 (*info.cpp_key, info.device), tree_util.dispatch_registry,
                 dispatch.shard_arg_fallback, _cpp_cache)
    functools.update_wrapper(f, fun, updated=())
    f.__dict__["_jit_info"] = info
    info.jitted = weakref.ref(f)
    return f


def jit(fun=None, *, static_argnums=None, static_argnames=None, donate_argnums=None,
        donate_argnames=None, keep_unused=False, device=None, backend=None, inline=False,
        in_shardings=None, out_shardings=None, abstracted_axes=None, compiler_options=None):
    """Compile `fun` with XLA: traced once per argument signature, then called from a cache.

    Example:
        >>> f = jit(lambda x, y: x @ y.T + 1.0)
        >>> f(jnp.ones((2, 3)), jnp.ones((2, 3)))
    """
    if device is not None and backend is not None:  # (JAX's checks of its deprecated args)
        raise ValueError(f"can't specify both a device and a backend for jit, got "
                         f"device={device!r} and backend={backend!r}")
    if device is not None or backend is not None:
        for what, given in (("in_shardings", in_shardings), ("out_shardings", out_shardings)):
            if given is not None:
                raise ValueError(f"If backend or device is specified on jit, then {what} "
                                 f"should not be specified.")
    if fun is None:
        return functools.partial(jit, static_argnums=static_argnums, static_argnames=static_argnames,
                                 donate_argnums=donate_argnums, donate_argnames=donate_argnames,
                                 keep_unused=keep_unused, inline=inline, device=device,
                                 backend=backend, in_shardings=in_shardings,
                                 out_shardings=out_shardings, abstracted_axes=abstracted_axes,
                                 compiler_options=compiler_options)
    info = JitInfo(fun, static_argnums, static_argnames, donate_argnums, donate_argnames,
                   keep_unused, inline, in_shardings=in_shardings, out_shardings=out_shardings,
                   compiler_options=compiler_options)
    info.device = device
    return make_jit(info, fun)


del dtypes
