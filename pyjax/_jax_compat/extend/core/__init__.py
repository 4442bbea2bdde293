"""`jax.extend.core`: primitives, jaxprs and the trace state, as libraries define and inspect
them (equinox creates its primitives from here at import)."""
from __future__ import annotations

import contextlib
import weakref
from typing import NamedTuple

from pyjax._src import core as _core
from pyjax._src.core import ClosedJaxpr as ClosedJaxpr
from pyjax._src.core import Jaxpr as Jaxpr
from pyjax._src.core import JaxprEqn as JaxprEqn
from pyjax._src.core import Literal as Literal
from pyjax._src.core import Primitive as Primitive
from pyjax._src.core import ShapedArray
from pyjax._src.core import Var as Var
from pyjax._src.core import check_jaxpr as check_jaxpr
from pyjax._src.core import concrete_or_error as concrete_or_error
from pyjax._src.core import jaxprs_in_params as jaxprs_in_params
from pyjax._src.core import subjaxprs as subjaxprs
from pyjax._src.core import jaxpr_as_fun as jaxpr_as_fun
from pyjax._src.core import no_effects as no_effects
from pyjax._src.core import set_current_trace as set_current_trace
from pyjax._src.errors import JaxprTypeError as JaxprTypeError
from pyjax._src.interpreters.ad import tangent_aval
from pyjax._src.interpreters.batching import BatchTrace
from pyjax._src.interpreters.partial_eval import DynamicJaxprTrace
from pyjax._jax_compat._unsupported import UnsupportedType, unsupported
from pyjax._jax_compat.internal.abstract_arrays import array_types as array_types
from pyjax._jax_compat.extend.core import primitives as primitives

Effects = frozenset


class DebugInfo(NamedTuple):
    """What a traced function is, for messages: its role, a name and its argument names."""
    traced_for: str
    func_src_info: str | None
    arg_names: tuple | None
    result_paths: tuple | None = None


class Effect(_core.Effect):
    """The base class of effects a library defines. NB: JAX's effects are instances of
    argument-less subclasses (`class MyEffect(Effect): ...; my_effect = MyEffect()`); pyjax's
    Effect takes a name, which defaults here to the subclass's name."""

    def __init__(self, name: str | None = None, ordered: bool = False):
        super().__init__(type(self).__name__ if name is None else name, ordered)


def mapped_aval(size: int, axis: int | None, aval: ShapedArray) -> ShapedArray:
    """`aval` with its mapped axis `axis` (of length `size`) removed: one example's aval."""
    if axis is None:
        return aval
    if not 0 <= axis < aval.ndim or aval.shape[axis] != size:
        raise ValueError(f"mapped_aval: {aval.str_short()} has no axis {axis} of size {size}")
    return aval.update(shape=aval.shape[:axis] + aval.shape[axis + 1:])


def unmapped_aval(size: int, axis: int | None, aval: ShapedArray,
                  explicit_mesh_axis=None) -> ShapedArray:
    """`aval` with a new axis of length `size` inserted at `axis`: the batch's aval."""
    del explicit_mesh_axis  # (pyjax's vmap has no mesh axes)
    if axis is None:
        return aval
    if not 0 <= axis <= aval.ndim:
        raise ValueError(f"unmapped_aval: cannot insert axis {axis} into {aval.str_short()}")
    return aval.update(shape=aval.shape[:axis] + (size,) + aval.shape[axis:])


def primal_dtype_to_tangent_dtype(dtype):
    """The dtype of tangents of `dtype` values: itself when inexact, float0 otherwise."""
    return tangent_aval(ShapedArray((), dtype)).dtype


def valid_jaxtype(x) -> bool:
    """Whether `x` is a value pyjax can trace (an array, NumPy value or Python scalar)."""
    try:
        _core.get_aval(x)
    except TypeError:
        return False
    return True


def find_top_trace(xs):
    """The current trace. NB: in pyjax (stackless, as JAX today) this ignores `xs`, as JAX's
    does; traces have no `.level` (JAX's older API), and `.main` is the trace itself."""
    del xs
    return _core.current_trace()


# JAX-only attributes that libraries read off pyjax's own objects (equinox's filter_jvp and
# filter_primitive rules, which lineax and optimistix use).
# NB: set from here rather than in core.py, which names no JAX-compatibility attribute.
# `Trace.main` (deprecated in JAX) is the trace's tag, naming one transformation; equinox
# compares `tracer._trace.main is find_top_trace(...).main`. A pyjax trace object is one
# transformation, so it is its own tag.
_core.Trace.main = property(lambda self: self)
# `aval.to_tangent_aval()` (and its older name): the aval of a tangent of a value of this type.
_core.ShapedArray.to_tangent_aval = tangent_aval
_core.ShapedArray.at_least_vspace = tangent_aval


class TraceTag:
    """Names one transformation (JAX's `core.TraceTag`): libraries that write their own Trace
    give it one and tell their tracers apart by it (haiku's `to_dot`). Compared by identity."""

    __slots__ = ("__weakref__",)

    def __repr__(self):
        return f"TraceTag({id(self):#x})"


def _library_tracer_init(self, trace, aval=None):
    """JAX's `Tracer.__init__(trace, aval)`, for Tracer subclasses libraries write (haiku's
    DotTracer): the trace, and the aval the base class's `aval` then answers with."""
    self._trace = trace
    if aval is not None:
        self.__dict__["_library_aval"] = aval


def _library_tracer_aval(self):
    try:
        return self.__dict__["_library_aval"]
    except (AttributeError, KeyError):
        raise NotImplementedError(f"{type(self).__name__} has no aval") from None


def _bind_with_trace(self, trace, args, *rest):
    """JAX's `Primitive.bind_with_trace(trace, args, avals, params)` (and its older
    `(trace, args, params)`): process the primitive with `trace`, not the current one."""
    params = rest[-1]
    return trace.process_primitive(self, tuple(args), dict(params))


# A library's own Trace/Tracer pair (JAX 0.10.2's protocol): `Tracer(trace, aval)` subclasses
# whose trace processes primitives and binds them on its parent. pyjax's own tracers define
# their own __init__ and aval.
_core.Tracer.__init__ = _library_tracer_init
_core.Tracer.aval = property(_library_tracer_aval)
_core.Primitive.bind_with_trace = _bind_with_trace


def trace_state_clean() -> bool:
    """Whether no transformation is tracing (the current trace is the eager one)."""
    return type(_core.current_trace()) is _core.EvalTrace


# `from jax._src.core import trace_state_clean` (numpyro's MCMC asks before caching) reads
# pyjax's own core module, which the switch maps `jax._src.core` to.
_core.trace_state_clean = trace_state_clean


class OpaqueTraceState:
    """The identity of the current trace, for libraries to compare later: two states are equal
    when they were taken under the same trace (flax checks that a module is used where it was
    created)."""

    __slots__ = ("_trace_ref",)

    def __init__(self, trace):
        self._trace_ref = weakref.ref(trace)

    def __eq__(self, other):
        return isinstance(other, OpaqueTraceState) and self._trace_ref == other._trace_ref

    def __hash__(self):
        return hash(self._trace_ref)


def get_opaque_trace_state(convention=None) -> OpaqueTraceState:
    del convention  # (JAX also accepts and ignores it)
    return OpaqueTraceState(_core.current_trace())


class Token(UnsupportedType):
    """NB: pyjax threads effect tokens inside lowering only; there is no token value."""


class AbstractToken(UnsupportedType):
    pass


class DropVar(UnsupportedType):
    """NB: pyjax's jaxprs have no dropped-variable type, so no variable is one (haiku's
    jaxpr_info tests for it at import)."""


class CallPrimitive(UnsupportedType):
    """NB: pyjax's call-like primitives (pjit, custom rules) are ordinary Primitives."""


call_impl = unsupported("jax.extend.core.call_impl")


def gensym(suffix: str = ""):
    """A maker of fresh variables: `gensym()(aval)` is a new Var (pyjax numbers variables when
    printing, so `suffix` is not needed)."""
    del suffix
    return Var


def new_jaxpr_eqn(invars, outvars, primitive, params, effects=None, source_info=None,
                  ctx=None) -> JaxprEqn:
    """An equation (its effects follow from the primitive and params in pyjax)."""
    del effects, ctx
    return JaxprEqn(list(invars), list(outvars), primitive, dict(params), source_info)


@contextlib.contextmanager
def take_current_trace():
    yield _core.current_trace()


def _traces():
    trace = _core.current_trace()
    while trace is not None:
        yield trace
        trace = trace.parent


def unsafe_am_i_under_a_jit_DO_NOT_USE() -> bool:
    return any(isinstance(t, DynamicJaxprTrace) for t in _traces())


def unsafe_am_i_under_a_vmap_DO_NOT_USE() -> bool:
    return any(isinstance(t, BatchTrace) for t in _traces())


def unsafe_get_axis_names_DO_NOT_USE() -> list:
    return [t.axis_data.name for t in _traces()
            if isinstance(t, BatchTrace) and t.axis_data.name is not None]


def nonempty_axis_env_DO_NOT_USE() -> bool:
    return bool(unsafe_get_axis_names_DO_NOT_USE())
