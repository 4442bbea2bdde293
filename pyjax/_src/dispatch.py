"""Running jaxprs on devices: compile (cached) and execute, eagerly or for jit.

`Compiled` wraps an XLA executable with what is needed to call it on pyjax values: the output
avals (to wrap result buffers into Arrays) and the constants passed as leading arguments.
`apply_primitive` is the impl of every primitive that has no hand-written one: the primitive is
lowered alone into a one-equation module, compiled once per (primitive, params, avals), and run.
"""
from __future__ import annotations

import logging
import time

import numpy as np

from pyjax._src import core, dtypes
from pyjax._src.array import (Array, buffer_to_donate, deleted_error, forget_donated,
                              mark_shared, to_buffer)
from pyjax._src.array import _scalar_buffers
from pyjax._src.backend import xla
from pyjax._src.config import config
from pyjax._src.lowering.lower import lower_jaxpr_to_module

logger = logging.getLogger("pyjax")


class Compiled:
    """An executable plus the avals of its outputs; call it with a flat list of values.

    `donated` holds one bool per argument (empty: none donated); see `_call_donating`.
    """

    __slots__ = ("exe", "out_avals", "const_bufs", "text", "name", "donated", "jaxpr")

    def __init__(self, exe, out_avals, const_bufs, text, name, donated=(), jaxpr=None):
        self.exe = exe
        self.out_avals = out_avals
        self.const_bufs = const_bufs
        self.text = text
        self.name = name
        self.donated = tuple(donated) if any(donated) else ()
        self.jaxpr = jaxpr  # the ClosedJaxpr compiled (debug_nans re-runs it op by op)

    def __call__(self, args) -> list[Array]:
        if self.donated:
            return self._call_donating(args)
        bufs = [x._buf if type(x) is Array and x._buf is not None else to_buffer(x) for x in args]
        if self.const_bufs:
            bufs = self.const_bufs + bufs
        return self._run(bufs, args)

    def _call_donating(self, args) -> list[Array]:
        """Donated arguments get buffers that only they own, so XLA's reuse of them deletes the
        donated Arrays and nothing else (a shared scalar or another executable's constant)."""
        bufs = [buffer_to_donate(x) if d else to_buffer(x)
                for x, d in zip(args, self.donated, strict=True)]
        try:
            return self._run(self.const_bufs + bufs, args)
        finally:
            forget_donated(args, self.donated)

    def _run(self, bufs, args):
        try:
            out_bufs = self.exe(bufs)
        except xla.JaxRuntimeError:
            for x in args:  # XLA's message for a deleted input names no Array: say which
                if type(x) is Array and x.is_deleted():
                    raise deleted_error(x.aval) from None
            raise
        return [Array(a, b) for a, b in zip(self.out_avals, out_bufs)]

    def _run_checking_floats(self, bufs, args):
        """`_run` while jax_debug_nans / jax_debug_infs is on (swapped in by `_float_checks`,
        so the usual path pays nothing): a NaN (inf) output raises FloatingPointError."""
        outs = Compiled._run_unchecked(self, bufs, args)
        bad = _first_invalid(outs)
        if bad is not None:
            self._explain_invalid(bad, args)
        return outs

    def _explain_invalid(self, bad, args):
        eqns = self.jaxpr.jaxpr.eqns if self.jaxpr is not None else ()
        if len(eqns) == 1 and eqns[0].primitive.name == self.name:  # an eager primitive
            raise FloatingPointError(f"invalid value ({bad}) encountered in {self.name}")
        # A jitted function: run it again one primitive at a time (each checks its outputs),
        # so the error names the primitive that made the value, as JAX does.
        if not self.donated and self.jaxpr is not None:
            core.eval_jaxpr(self.jaxpr.jaxpr, self.jaxpr.consts, *args)
        raise FloatingPointError(
            f"invalid value ({bad}) encountered in the output of {self.name}; running it again "
            f"one primitive at a time produced none (an input holds the value, or its arguments "
            f"were donated), so it cannot be traced to a primitive")


Compiled._run_unchecked = Compiled._run


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


def _float_checks(_=None):
    on = config._values["jax_debug_nans"] or config._values["jax_debug_infs"]
    Compiled._run = Compiled._run_checking_floats if on else Compiled._run_unchecked


config.on_change("jax_debug_nans", _float_checks)
config.on_change("jax_debug_infs", _float_checks)
_float_checks()


def compile_jaxpr(closed: core.ClosedJaxpr, name: str, donated=(), lowered=None) -> Compiled:
    """Lower (unless `lowered`, a (text, module context) pair, is given) and compile a closed
    jaxpr; its consts become leading arguments."""
    t0 = time.perf_counter()
    if lowered is None:
        lowered = lower_for_compile(closed, name, donated)
    text, module = lowered
    if config._values["jax_enable_checks"]:
        core.check_jaxpr(closed.jaxpr)
    t1 = time.perf_counter()
    exe = xla.compile(text, xla.devices()[:1], out_avals=closed.out_avals,
                      host_callbacks=module.host_callbacks)
    if config.jax_log_compiles:
        logger.warning(f"lowered {name} in {(t1 - t0) * 1e3:.1f} ms; compile {(time.perf_counter() - t1) * 1e3:.1f} ms")
    # the executable holds its constants' buffers: shared with whoever else holds them
    const_bufs = [mark_shared(to_buffer(c)) for c in closed.consts]
    return Compiled(exe, closed.out_avals, const_bufs, text, name, donated, closed)


def lower_for_compile(closed: core.ClosedJaxpr, name: str, donated=()):
    nconst = len(closed.jaxpr.constvars)
    donated = [False] * nconst + list(donated) if donated else ()
    return lower_jaxpr_to_module(name, closed.jaxpr, donated=donated)


# -- eager execution of single primitives --------------------------------------------------

_primitive_cache: dict = {}


def apply_primitive(prim: core.Primitive, *args, **params):
    avals = tuple([x.aval if type(x) is Array else core.get_aval(x) for x in args])
    key = (prim, avals, *params.items()) if params else (prim, avals)
    try:
        compiled = _primitive_cache.get(key)
    except TypeError:  # an unhashable parameter: compile without caching
        compiled, key = None, None
    if compiled is None:
        compiled = compile_primitive(prim, avals, params)
        if key is not None:
            _primitive_cache[key] = compiled
    outs = compiled(args)
    return outs if prim.multiple_results else outs[0]


def compile_primitive(prim, avals, params) -> Compiled:
    out = prim.rule("abstract_eval")(*avals, **params)
    out_avals = list(out) if prim.multiple_results else [out]
    invars = [core.Var(a) for a in avals]
    outvars = [core.Var(a) for a in out_avals]
    jaxpr = core.Jaxpr([], invars, outvars, [core.JaxprEqn(invars, outvars, prim, params)])
    return compile_jaxpr(core.ClosedJaxpr(jaxpr, []), prim.name)


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


register_cache(_primitive_cache.clear)
register_cache(xla.clear_caches)
register_cache(_scalar_buffers.clear)
