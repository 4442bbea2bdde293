"""checkify: run-time checks as values (`pyjax.experimental.checkify`).

`checkify(f, errors=...)(*args)` returns `(err, out)`. The checks are *functionalized*: `f` is
traced to a jaxpr, and an interpreter (`checkify_jaxpr_flat`) runs that jaxpr under whatever
trace is current (eager, jit, vmap, grad...) while threading an error value through it. At each
equation it consults `error_checks`, a table of per-primitive rules: a rule runs the primitive and
folds a new error into the threaded one (`assert_func`). Higher-order primitives (cond, while,
scan, jit, checkpoint) have rules that checkify their bodies and thread the error through them as
extra operands and results, so checks work inside loops and branches and under jit. The rules
live in checkify_rules.py.

The error value (`Error`) is a pytree: for each kind of error (an `ErrorEffect`: the error class
plus the shapes of its payload) a flag, an integer code naming the check site, and a payload
(the values a message needs: an index, a user's format arguments). The first error of a kind
is kept; `err.get()` reports, among the kinds that fired, the one whose check site was traced
first (the smallest code), as JAX does. Under vmap the leaves are batched and `get()` reports
each failing batch element (`at mapped index 1: ...`).

`check(pred, msg, *fmt_args)` binds the `check` primitive, an effect in the core's effect system
(so dead-code elimination keeps it). Outside checkify it raises at once when run eagerly, and its
lowering refuses it (a staged check must be functionalized), as in JAX; `debug_check` is a
no-op outside checkify.

Error categories: `user_checks` (`check`), `nan_checks` (a primitive produced a NaN),
`div_checks` (division by zero), `index_checks` (out-of-bounds gather/scatter/dynamic slice
indices), their unions `float_checks`, `automatic_checks`, `all_checks`.
"""
from __future__ import annotations

import functools
import itertools
import threading
import types

import numpy as np

from pyjax._src import core, pretty_print, source_info, tree_util
from pyjax._src.array import Array
from pyjax._src.backend import xla
from pyjax._src.interpreters import batching
from pyjax._src.interpreters import partial_eval as pe
from pyjax._src.lax import elementwise as lax_elem
from pyjax._src.lax import shape_ops
from pyjax._src.lax.control_flow import while_loop
from pyjax._src.lax.control_flow.common import trace_flat
from pyjax._src.numpy import array_methods  # noqa: F401  (the code below indexes Arrays)
from pyjax._src.numpy import shape as jshape
from pyjax._src.numpy import sorting, ufuncs
from pyjax._src.traceback_util import api_boundary

__all__ = ["Error", "ErrorCategory", "JaxRuntimeError", "all_checks", "automatic_checks",
           "check", "check_error", "checkify", "debug_check", "div_checks", "float_checks",
           "index_checks", "init_error", "nan_checks", "user_checks"]


# --------------------------------------------------------------------------------------------
# Where a check was traced: the equation's source traceback (the user's line)

_where = threading.local()


def _current_traceback():
    """The traceback of the equation being checkified, else of the current Python stack."""
    tb = getattr(_where, "tb", None)
    return tb if tb is not None else xla.get_traceback()


def _user_frames(tb):
    """The frames of a jaxlib traceback that lie in the user's code, innermost first."""
    if tb is None:
        return []
    return [f for f in tb.frames if source_info.is_user_file(f.file_name)]


def user_line(tb) -> str:
    """`file:line (function)` of the innermost user frame of `tb`, or ''."""
    frames = _user_frames(tb)
    if not frames:
        return ""
    f = frames[0]
    return f"{f.file_name}:{f.line_num} ({f.function_name})"


def python_traceback(tb):
    """A Python traceback of the user frames of the jaxlib traceback `tb` (outermost first), to
    attach to an exception, or None."""
    if tb is None:
        return None
    try:
        full = tb.as_python_traceback()
    except Exception:  # noqa: BLE001 - a courtesy; never mask the error itself
        return None
    frames = []
    while full is not None:
        if source_info.is_user_file(full.tb_frame.f_code.co_filename):
            frames.append(full)
        full = full.tb_next
    out = None
    for t in reversed(frames):
        out = types.TracebackType(out, t.tb_frame, t.tb_lasti, t.tb_lineno)
    return out


# --------------------------------------------------------------------------------------------
# Error categories (exception classes): static metadata plus a payload of array leaves


class JaxException(Exception):
    """An error checkify can report. `traceback_info` is where its check was traced.

    Subclasses split themselves into static metadata (`_static`) and array leaves (`_leaves`),
    and are rebuilt from both by `_rebuild`, so an error site's message can be formed from the
    payload values computed at run time."""

    def __init__(self, traceback_info):
        super().__init__()
        self.traceback_info = traceback_info

    def _static(self):
        return ()

    def _leaves(self):
        return []

    @classmethod
    def _rebuild(cls, traceback_info, static, leaves):
        return cls(traceback_info, *static)

    def get_effect_type(self) -> ErrorEffect:
        return ErrorEffect(type(self), ())


class DivisionByZeroError(JaxException):
    def __str__(self):
        return "division by zero"


class NaNError(JaxException):
    def __init__(self, traceback_info, primitive_name):
        super().__init__(traceback_info)
        self.prim = primitive_name

    def _static(self):
        return (self.prim,)

    def __str__(self):
        return f"nan generated by primitive: {self.prim}."


class OOBError(JaxException):
    def __init__(self, traceback_info, primitive_name, operand_shape, payload):
        super().__init__(traceback_info)
        self.prim = primitive_name
        self.operand_shape = operand_shape
        self._payload = payload   # int32[3]: (index, axis, axis size) of the first bad index

    def _static(self):
        return (self.prim, self.operand_shape)

    def _leaves(self):
        return [self._payload]

    @classmethod
    def _rebuild(cls, traceback_info, static, leaves):
        return cls(traceback_info, *static, leaves[0])

    def get_effect_type(self):
        return ErrorEffect(OOBError, (((3,), np.dtype(np.int32)),))

    def __str__(self):
        index, axis, size = (int(v) for v in np.asarray(self._payload))
        return (f"out-of-bounds indexing for array of shape {self.operand_shape}: index {index} "
                f"is out of bounds for axis {axis} with size {size}. ")


class FailedCheckError(JaxException):
    def __init__(self, traceback_info, fmt_string, *a, **k):
        super().__init__(traceback_info)
        self.fmt_string = fmt_string
        self.args = a
        self.kwargs = k

    def _static(self):
        return (self.fmt_string, tree_util.tree_structure((self.args, self.kwargs)))

    def _leaves(self):
        return tree_util.tree_leaves((self.args, self.kwargs))

    @classmethod
    def _rebuild(cls, traceback_info, static, leaves):
        fmt, tree = static
        args, kwargs = tree_util.tree_unflatten(tree, leaves)
        return cls(traceback_info, fmt, *args, **kwargs)

    def get_effect_type(self):
        return ErrorEffect(FailedCheckError, tuple(
            (tuple(np.shape(x)), np.dtype(core.get_aval(x).dtype)) for x in self._leaves()))

    def __str__(self):
        return self.fmt_string.format(*self.args, **self.kwargs) + " (`check` failed)"


class BatchedError(JaxException):
    """Errors of several elements of a vmapped computation: {batch index tuple: error}."""

    def __init__(self, error_mapping):
        super().__init__(next(iter(error_mapping.values())).traceback_info)
        self.error_mapping = error_mapping

    def __str__(self):
        return "\n".join(f"at mapped index {', '.join(map(str, idx))}: {e}"
                         for idx, e in self.error_mapping.items())


ErrorCategory = type[JaxException]

user_checks = frozenset({FailedCheckError})
nan_checks = frozenset({NaNError})
index_checks = frozenset({OOBError})
div_checks = frozenset({DivisionByZeroError})
float_checks = nan_checks | div_checks
automatic_checks = float_checks | index_checks
all_checks = automatic_checks | user_checks


class JaxRuntimeError(ValueError):
    """Raised by `err.throw()`, `check_error` and an unfunctionalized `check` that failed."""


class ErrorEffect(core.Effect):
    """The effect of a check that may fail: one per error class and payload signature."""

    __slots__ = ("error_type", "shape_dtypes")

    def __init__(self, error_type, shape_dtypes):
        """`shape_dtypes`: the payload's (shape, dtype) pairs, or ShapeDtypeStructs (JAX's)."""
        super().__init__(f"ErrorEffect({error_type.__name__})")
        self.error_type = error_type
        self.shape_dtypes = tuple((tuple(x.shape), x.dtype) if hasattr(x, "shape") else tuple(x)
                                  for x in shape_dtypes)

    def _key(self):
        return (self.error_type.__name__, tuple((s, str(d)) for s, d in self.shape_dtypes))

    def __eq__(self, other):
        return (type(other) is ErrorEffect and self.error_type is other.error_type
                and self.shape_dtypes == other.shape_dtypes)

    def __hash__(self):
        return hash((self.error_type, self.shape_dtypes))

    def __lt__(self, other):
        return self._key() < other._key()

    def __repr__(self):
        sds = ", ".join(f"{np.dtype(d).name}{list(s)}" for s, d in self.shape_dtypes)
        return f"ErrorEffect({self.error_type.__name__}{', ' + sds if sds else ''})"


# --------------------------------------------------------------------------------------------
# The error value


class _Site:
    """Metadata of one check site (an error code): the error class and its static parts.
    Compared by identity (it lives in pytree structures)."""

    __slots__ = ("cls", "traceback", "static")

    def __init__(self, cls, traceback, static):
        self.cls = cls
        self.traceback = traceback
        self.static = static

    def exception(self, leaves):
        return self.cls._rebuild(self.traceback, self.static, list(leaves))


class Error:
    """The error state a checkified function returns: `get()`, `get_exception()`, `throw()`.

    A pytree whose leaves are, for each kind of error, a bool flag, an int32 code (the check
    site) and the payload arrays.

    Example:
        >>> err, out = checkify(lambda x: x // 0, errors=div_checks)(jnp.arange(3))
        >>> err.get()
        'division by zero'
    """

    __slots__ = ("_pred", "_code", "_metadata", "_payload")

    def __init__(self, pred, code, metadata, payload):
        self._pred = pred          # {ErrorEffect: bool}
        self._code = code          # {ErrorEffect: int32}
        self._metadata = metadata  # {int code: _Site}
        self._payload = payload    # {ErrorEffect: [arrays]}

    def get(self) -> str | None:
        """The error message if an error happened, else None."""
        exc = self.get_exception()
        return None if exc is None else str(exc)

    def get_exception(self) -> JaxException | None:
        """The exception of the first error (per batch element under vmap), else None."""
        if not self._pred:
            return None
        preds = {k: np.asarray(v) for k, v in self._pred.items()}
        codes = {k: np.asarray(v) for k, v in self._code.items()}
        shape = next(iter(preds.values())).shape
        if shape:
            mapping = {}
            for idx in np.ndindex(*shape):
                exc = self._first(preds, codes, idx)
                if exc is not None:
                    mapping[idx] = exc
            return BatchedError(mapping) if mapping else None
        return self._first(preds, codes, ())

    def _first(self, preds, codes, idx):
        best = None
        for effect, pred in preds.items():
            if pred[idx] and (best is None or codes[effect][idx] < codes[best][idx]):
                best = effect
        if best is None:
            return None
        site = self._metadata[int(codes[best][idx])]
        leaves = [np.asarray(x)[idx] if idx else x for x in self._payload[best]]
        return site.exception(leaves)

    def throw(self):
        """Raise JaxRuntimeError if an error happened (under a transformation, a check)."""
        _check_error(self)

    def __str__(self):
        return f"Error({self.get()})"

    __repr__ = __str__

    def _update(self, effect, pred, code, metadata, payload):
        return Error({**self._pred, effect: pred}, {**self._code, effect: code},
                     {**self._metadata, **metadata}, {**self._payload, effect: payload})

    def _add_placeholder_effects(self, effects):
        """The error with an entry (never set) for each effect in `effects` it lacks, so that
        branches and loop iterations all carry the same kinds of error."""
        pred, code, payload = dict(self._pred), dict(self._code), dict(self._payload)
        for effect in effects:
            if effect not in pred:
                pred[effect] = np.bool_(False)
                code[effect] = np.int32(-1)
                payload[effect] = [np.ones(s, d) for s, d in effect.shape_dtypes]
        return Error(pred, code, self._metadata, payload)

    def _replace(self, metadata):
        return Error(self._pred, self._code, metadata, self._payload)


def _flatten_error(err: Error):
    effects = tuple(sorted(err._pred))
    leaves = []
    for e in effects:
        leaves += [err._pred[e], err._code[e], *err._payload[e]]
    return leaves, (effects, _Meta(err._metadata))


def _unflatten_error(aux, leaves):
    effects, meta = aux
    it = iter(leaves)
    pred, code, payload = {}, {}, {}
    for e in effects:
        pred[e] = next(it)
        code[e] = next(it)
        payload[e] = [next(it) for _ in e.shape_dtypes]
    return Error(pred, code, meta.metadata, payload)


class _Meta:
    """The code -> site mapping in an Error's pytree structure (equal when the same sites)."""

    __slots__ = ("metadata",)

    def __repr__(self):
        return f"codes{sorted(self.metadata)}"

    def __init__(self, metadata):
        self.metadata = metadata

    def __eq__(self, other):
        return type(other) is _Meta and self.metadata.keys() == other.metadata.keys()

    def __hash__(self):
        return hash(tuple(sorted(self.metadata)))


tree_util.register_pytree_node(Error, _flatten_error, _unflatten_error)

init_error = Error({}, {}, {}, {})
_next_code = itertools.count(1).__next__  # globally unique check-site codes, in trace order


def assert_func(error: Error, pred, new_error: JaxException) -> Error:
    """`error` with `new_error` recorded where `pred` holds (and no earlier error of its kind)."""
    code = _next_code()
    site = _Site(type(new_error), new_error.traceback_info, new_error._static())
    return update_error(error, pred, np.int32(code), {code: site}, new_error._leaves(),
                        new_error.get_effect_type())


def update_error(error, pred, code, metadata, payload, effect):
    prev = error._pred.get(effect)
    if prev is None:
        return error._update(effect, pred, code, metadata, list(payload))
    out_pred = lax_elem.bitwise_or(prev, pred)
    out_code = lax_elem.select(prev, error._code[effect], code)
    out_payload = [lax_elem.select(_bcast(prev, p), p, n)
                   for p, n in zip(error._payload[effect], payload, strict=True)]
    return error._update(effect, out_pred, out_code, metadata, out_payload)


def _bcast(pred, like):
    shape = np.shape(like)
    return pred if not shape else shape_ops.broadcast_in_dim(pred, shape, ())


# --------------------------------------------------------------------------------------------
# The check primitive


check_p = core.Primitive("check", multiple_results=True)

_FUNCTIONALIZATION_MESSAGE = (
    "Cannot abstractly evaluate a checkify.check which was not functionalized. This probably "
    "means you tried to stage (jit/scan/pmap/...) a `check` without functionalizing it through "
    "`checkify.checkify`.")


_BATCHED_WHILE_MESSAGE = (
    "Checkify does not support batched while-loops (checkify-of-vmap-of-while). \nHint: if "
    "possible, move the vmap to the outer level to get vmap-of-checkify-of-while.")


def _raise_if_error(error: Error):
    exc = error.get_exception()
    if exc is not None:
        where = user_line(exc.traceback_info)
        tb = python_traceback(exc.traceback_info)
        if tb is not None:
            exc = exc.with_traceback(tb)
        err = JaxRuntimeError(str(exc))
        if where:
            err.add_note(f"The failing check was traced at {where}.")
        raise err from exc


@check_p.def_impl
def _check_impl(*args, err_tree, debug):
    if not debug:
        _raise_if_error(tree_util.tree_unflatten(err_tree, args))
    return []


@check_p.def_abstract_eval
def _check_abstract_eval(*avals, err_tree, debug):
    return []


@check_p.def_effects
def _check_effects(*, err_tree, debug):
    return frozenset(tree_util.tree_unflatten(err_tree, [None] * err_tree.num_leaves)._pred)


@check_p.def_jvp
def _check_jvp(primals, tangents, *, err_tree, debug):
    check_p.bind(*primals, err_tree=err_tree, debug=debug)
    return [], []


@check_p.def_batch
def _check_batch(axis_size, args, dims, *, err_tree, debug):
    if while_loop.masked_body.depth and not debug:
        raise ValueError(_BATCHED_WHILE_MESSAGE)
    args = [batching.bdim_at_front(x, d, axis_size) for x, d in zip(args, dims, strict=True)]
    _check_error(tree_util.tree_unflatten(err_tree, args), debug=debug)
    return [], []


# printed as JAX does: `check[debug=False] pred code payload...` (the error structure hidden)
pretty_print.PP_RULES["check"] = lambda eqn, ctx: [("debug", eqn.params["debug"])]


@check_p.def_lowering
def _check_lowering(ctx, *args, err_tree, debug):
    if debug:
        return []
    raise ValueError(_FUNCTIONALIZATION_MESSAGE)


def _reduce_any_error(error: Error) -> Error:
    """A batched error reduced to one element per kind (the last failing element, as JAX)."""
    out = init_error
    for effect, pred in error._pred.items():
        flat = jshape.ravel(pred)
        idx = sorting.argsort(flat)[-1]
        code = jshape.ravel(error._code[effect])[idx]
        payload = [jshape.reshape(p, (-1,) + tuple(np.shape(p)[np.ndim(pred):]))[idx]
                   for p in error._payload[effect]]
        out = out._update(effect, flat[idx], code, {}, payload)
    return out._replace(error._metadata)


def _check_error(error: Error, *, debug=False):
    if any(np.shape(v) for v in error._pred.values()):
        error = _reduce_any_error(error)
    leaves, tree = tree_util.tree_flatten(error)
    check_p.bind(*leaves, err_tree=tree, debug=debug)


def _is_scalar_pred(pred) -> bool:
    return isinstance(pred, bool) or (isinstance(pred, (Array, core.Tracer))
                                      and pred.shape == () and pred.dtype == np.dtype(bool))


def check(pred, msg: str, *fmt_args, debug: bool = False, **fmt_kwargs) -> None:
    """Check that the scalar boolean `pred` holds; otherwise the error `msg` (a format string
    filled with `fmt_args` / `fmt_kwargs`, arrays) is raised, or returned by `checkify`.

    Example:
        >>> def f(x):
        ...     check(x > 0, "x must be positive, got {}", x)
        ...     return jnp.log(x)
        >>> err, y = checkify(f)(jnp.float32(-1.0))
        >>> err.get()
        'x must be positive, got -1.0 (`check` failed)'
    """
    _check(pred, msg, debug, *fmt_args, **fmt_kwargs)


def debug_check(pred, msg: str, *fmt_args, **fmt_kwargs) -> None:
    """`check` that only takes effect under `checkify` (a no-op otherwise).

    Example:
        >>> debug_check(jnp.array(False), "ignored outside checkify")
    """
    _check(pred, msg, True, *fmt_args, **fmt_kwargs)


def _check(pred, msg, debug, *fmt_args, **fmt_kwargs):
    if not _is_scalar_pred(pred):
        name = "debug_check" if debug else "check"
        raise TypeError(f"{name} takes a scalar pred as argument, got {pred}")
    for arg in tree_util.tree_leaves((fmt_args, fmt_kwargs)):
        if not isinstance(arg, (Array, np.ndarray, core.Tracer)):
            raise TypeError("Formatting arguments to checkify.check need to be PyTrees of "
                            f"arrays, but got {arg!r} of type {type(arg)}.")
    new_error = FailedCheckError(xla.get_traceback(), msg, *fmt_args, **fmt_kwargs)
    error = assert_func(init_error, ufuncs.logical_not(pred), new_error)
    _check_error(error, debug=debug)


def check_error(error: Error) -> None:
    """Raise JaxRuntimeError if `error` holds one; under `checkify`, fold it into the result.

    Example:
        >>> err, out = jax.jit(checkify(jnp.log, errors=nan_checks))(-1.0)
        >>> check_error(err)   # raises JaxRuntimeError: nan generated by primitive: log.
    """
    if not isinstance(error, Error):
        raise TypeError(f"check_error takes an Error as argument, got type {type(error)} instead.")
    _check_error(error, debug=False)


# --------------------------------------------------------------------------------------------
# The checkify interpreter

# primitive -> rule(error, enabled_errors, *in_vals, **params) -> (error, out). The rules live
# in checkify_rules.py, which fills these tables when it is imported (pyjax.experimental.checkify
# imports it):
# the higher-order rules need jit, checkpoint, shard_map and custom_jvp, which sit beside
# this module and are kept out of its imports.
error_checks: dict = {}
# rules found by primitive name (families whose primitive objects live in many modules)
error_checks_by_name: dict = {}


def _rule_for(prim):
    rule = error_checks.get(prim)
    if rule is None:
        rule = error_checks_by_name.get(prim.name)
    return rule


def checkify_jaxpr_flat(jaxpr: core.Jaxpr, consts, enabled_errors, err_tree, *args):
    """Run `jaxpr` under the current trace on `(*error leaves, *args)`, threading the error.
    Returns `(error, outputs)`."""
    n = err_tree.num_leaves
    error = tree_util.tree_unflatten(err_tree, args[:n])
    env = {}

    def read(v):
        return v.val if type(v) is core.Literal else env[v]

    env.update(zip(jaxpr.constvars, consts, strict=True))
    env.update(zip(jaxpr.invars, args[n:], strict=True))
    # equations staged again keep their name stack and user line (as core.eval_jaxpr does)
    state = source_info.name_stack_state
    base, base_tb = state.stack, state.traceback
    try:
        for eqn in jaxpr.eqns:
            info = eqn.source_info
            if type(info) is source_info.SourceInfo:
                state.stack = base + info.name_stack if info.name_stack else base
                state.traceback = info.traceback
            invals = [read(v) for v in eqn.invars]
            rule = _rule_for(eqn.primitive)
            if rule is None:
                _no_checks_inside(eqn, enabled_errors)
                outs = eqn.primitive.bind(*invals, **eqn.params)
            else:
                prev = getattr(_where, "tb", None), getattr(_where, "prim", None)
                _where.tb, _where.prim = info, eqn.primitive
                try:
                    error, outs = rule(error, enabled_errors, *invals, **eqn.params)
                finally:
                    _where.tb, _where.prim = prev
            if eqn.primitive.multiple_results:
                env.update(zip(eqn.outvars, outs, strict=True))
            else:
                env[eqn.outvars[0]] = outs
    finally:
        state.stack, state.traceback = base, base_tb
    return error, [read(v) for v in jaxpr.outvars]


def _no_checks_inside(eqn, enabled_errors):
    if FailedCheckError in enabled_errors and any(
            isinstance(e, ErrorEffect) for e in eqn.effects):
        raise NotImplementedError(
            f"checkify: a `check` inside '{eqn.primitive.name}' cannot be functionalized (no "
            f"checkify rule for that primitive); call checkify inside it instead")


def _aval(x):
    return core.get_aval(x)


def _trace_checked(closed: core.ClosedJaxpr, enabled, err_tree, in_avals, err_pos=0):
    """Trace the checkified `closed` into a const-free jaxpr.

    The traced function takes `in_avals`: the jaxpr's inputs with the error leaves inserted at
    `err_pos`; it returns `(*error leaves, *outputs)`. Returns `(jaxpr, consts, out_err_tree,
    effects)`: `jaxpr` takes `(*consts, *inputs)`; `effects` are the error kinds it may set."""
    n = err_tree.num_leaves
    box = []

    def fun(*args):
        before, errs, after = args[:err_pos], args[err_pos:err_pos + n], args[err_pos + n:]
        err, outs = checkify_jaxpr_flat(closed.jaxpr, closed.consts, enabled, err_tree,
                                        *errs, *before, *after)
        leaves, tree = tree_util.tree_flatten(err)
        box.append(tree)
        return [*leaves, *outs]
    jaxpr, consts = trace_flat(fun, in_avals)
    tree = box[0]
    effects = set(tree_util.tree_unflatten(tree, [None] * tree.num_leaves)._pred)
    return jaxpr, consts, tree, effects


def _merged(error, closeds, enabled, in_avals_of, err_pos=0):
    """`error` widened with every error kind the checkified `closeds` may set, and the traces
    of them taking it: `(error, [(jaxpr, consts, out_tree)])`."""
    leaves, tree = tree_util.tree_flatten(error)
    effects = set()
    for c in closeds:
        effects |= _trace_checked(c, enabled, tree, in_avals_of(leaves), err_pos)[3]
    error = error._add_placeholder_effects(effects)
    leaves, tree = tree_util.tree_flatten(error)
    traced = [_trace_checked(c, enabled, tree, in_avals_of(leaves), err_pos)[:3] for c in closeds]
    return error, leaves, traced


def _merge_metadata(error, trees):
    meta = dict(error._metadata)
    for t in trees:
        meta.update(tree_util.tree_unflatten(t, [None] * t.num_leaves)._metadata)
    return meta


# --------------------------------------------------------------------------------------------
# The transformation


def checkify(f, errors: frozenset = user_checks):
    """`f` returning `(error, out)`: its `check`s, and the automatic checks named by `errors`,
    become an `Error` value instead of exceptions. Works under jit, vmap, grad and inside
    cond / while_loop / scan bodies.

    Example:
        >>> def f(x, i):
        ...     return jnp.log(x)[i]
        >>> err, out = checkify(f, errors=all_checks)(jnp.array([1.0, -1.0]), 1)
        >>> err.get()
        'nan generated by primitive: log.'
    """
    errors = frozenset(errors)

    @functools.wraps(f)
    @api_boundary
    def checked_fun(*args, **kwargs):
        box = []

        def flat():
            out_flat, out_tree = tree_util.tree_flatten(f(*args, **kwargs))
            box.append(out_tree)
            return out_flat
        # the arguments are closed over (not abstracted), as in JAX: the jaxpr's constants
        closed, _ = pe.trace_to_jaxpr(flat, [])
        jaxpr, consts = pe.as_const_free(closed)
        error, outs = checkify_jaxpr_flat(jaxpr.jaxpr, [], errors,
                                          tree_util.tree_structure(init_error), *consts)
        return error, tree_util.tree_unflatten(box[0], outs)
    return checked_fun
