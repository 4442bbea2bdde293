"""Host callbacks: Python functions called from compiled code (`jax.debug.print`,
`jax.debug.callback`, `jax.pure_callback`, `jax.experimental.io_callback`).

Three primitives, each with every rule in one block:
- `debug_callback_p` calls a function for its side effect (printing) and returns nothing. It has
  a debug effect, so dead-code elimination keeps it; under differentiation it sees the primal
  values, under `vmap` it runs once per example, in order, as in JAX.
- `pure_callback_p` computes results the compiler may treat as a pure function of its operands
  (no effect: unused results are dropped; under `vmap` as its `vmap_method` says).
- `io_callback_p` computes results with an IO effect, `ordered=True` keeping program order.

In compiled code each call is a `stablehlo.custom_call @xla_ffi_python_cpu_callback` carrying
the index of a Python function in the executable's host callbacks (jaxlib's CPU runtime calls
it with NumPy arrays). jaxlib does not check what the function returns, so every result is
checked here, against the declared shapes and dtypes, before it reaches XLA. Ordered effects
pass a token through the calls, so XLA keeps them in program order within an executable (the
unordered ones get a token of their own, so prints come out in program order too).
"""
from __future__ import annotations

import dataclasses
import logging
import string
import sys
import traceback
from typing import Any, Callable

import numpy as np

from pyjax._src import ad_checkpoint, core, dtypes, errors, source_info, tree_util
from pyjax._src.array import Array, from_host, put_value
from pyjax._src.core import ShapedArray
from pyjax._src.lax import shape_ops
from pyjax._src.lax.control_flow.scan import scan
from pyjax._src.lowering import mlir, sdy



class DebugEffect(core.Effect):
    """The effect of debug callbacks: kept by dead-code elimination, in no particular order."""


class OrderedDebugEffect(core.Effect):
    """The effect of `ordered=True` debug callbacks: also kept in program order."""


debug_effect = DebugEffect("Debug")
ordered_debug_effect = OrderedDebugEffect("OrderedDebug", ordered=True)
io_effect = core.Effect("IO")
ordered_io_effect = core.Effect("OrderedIO", ordered=True)

_VMAP_METHODS = ("sequential", "sequential_unrolled", "expand_dims", "broadcast_all",
                 "legacy_vectorized", None)


@dataclasses.dataclass(frozen=True)
class FlatCallback:
    """The user's function, called with flat arguments (its `(args, kwargs)` tree rebuilt,
    static leaves put back) and returning flat results. Equal for the same function and
    argument structure, so the jit cache sees one key."""
    callback_func: Callable[..., Any]
    in_tree: Any
    static: tuple = ()   # (position among the leaves, value) of the non-array leaves

    def __call__(self, *flat_args):
        leaves = list(flat_args)
        for i, v in self.static:
            leaves.insert(i, v)
        args, kwargs = tree_util.tree_unflatten(self.in_tree, leaves)
        return tree_util.tree_leaves(self.callback_func(*args, **kwargs))


def _is_dynamic(x) -> bool:
    return isinstance(x, (Array, core.Tracer, np.ndarray, np.generic, bool, int, float, complex))


def _flatten_callback(callback, args, kwargs):
    """(FlatCallback, dynamic leaves): leaves that are not arrays or numbers (strings, None,
    functions) stay in Python with the callback, as JAX keeps them static."""
    leaves, in_tree = tree_util.tree_flatten((args, kwargs))
    static = tuple((i, x) for i, x in enumerate(leaves) if not _is_dynamic(x))
    dynamic = [x for x in leaves if _is_dynamic(x)]
    return FlatCallback(callback, in_tree, static), dynamic


def _result_avals(name, result_shape_dtypes):
    def aval(sd):
        if not (hasattr(sd, "shape") and hasattr(sd, "dtype")):
            raise TypeError(f"{name}: result_shape_dtypes must be a pytree of objects with "
                            f"`shape` and `dtype` (e.g. jax.ShapeDtypeStruct), got {sd!r}")
        dt = np.dtype(sd.dtype)
        if dtypes.canonicalize_dtype(dt) != dt:
            raise ValueError("result_shape_dtypes cannot specify 64-bit types when "
                             "`jax_enable_x64` is disabled")
        return ShapedArray(tuple(sd.shape), dt)
    avals = tree_util.tree_map(aval, result_shape_dtypes)
    return tree_util.tree_flatten(avals, is_leaf=lambda x: isinstance(x, ShapedArray))


def _checked_results(name, out_vals, result_avals):
    """The callback's results as NumPy arrays of exactly the declared shapes and dtypes (a
    mismatch reaching XLA would corrupt memory): RuntimeError otherwise, as in JAX."""
    out_vals = list(out_vals)
    if len(out_vals) != len(result_avals):
        raise RuntimeError(f"{name}: mismatched number of outputs from callback. Expected: "
                           f"{len(result_avals)}, Actual: {len(out_vals)}")
    checked = []
    for i, (v, aval) in enumerate(zip(out_vals, result_avals)):
        v = np.asarray(v)
        v = v.astype(dtypes.canonicalize_dtype(v.dtype), copy=False)
        if v.shape != aval.shape:
            raise RuntimeError(f"{name}: incorrect output shape for return value #{i}: "
                               f"Expected: {aval.shape}, Actual: {v.shape}")
        if v.dtype != aval.dtype:
            raise RuntimeError(f"{name}: incorrect output dtype for return value #{i}: "
                               f"Expected: {aval.dtype}, Actual: {v.dtype}")
        checked.append(v if v.flags.c_contiguous else v.copy(order="C"))  # (not ascontiguousarray: 0-d stays 0-d)
    return checked


def _emit_callback(ctx, name, host_fn, operands, result_avals, *, effect=None, side_effect,
                   operand_avals=None, partitioned=False):
    """The custom call of a host callback (and the token of an ordered `effect`). A
    `partitioned` call runs once per device on its shards of the operands (XLA's partitioned
    callback target), with no results."""
    operand_avals = ctx.avals_in if operand_avals is None else operand_avals
    index = len(ctx.module.host_callbacks)
    # NB: unordered effects are threaded too, on a token of their own: JAX lets XLA reorder
    # them, but prints that come out in program order are what a reader expects. Not in a
    # module over several devices, where XLA's partitioner wants a sharding on every
    # side-effecting op: there the call stands alone with JAX's sharding (every device runs it
    # in a shard_map/pmap body, else the first device) and ordered effects are refused, as JAX
    # does.
    sharding = sdy.side_effect_sharding(ctx.module, tuple(a.ndim for a in result_avals))
    if sharding is not None and effect is not None and effect.ordered:
        raise ValueError(f"The following ordered effects are not supported for more than 1 "
                         f"device: [{effect!r}]")
    ordered = effect is not None and sharding is None
    if ordered:
        def host(token, *args):
            return (token, *host_fn(*args))
        operands = [ctx.token(_token_key(effect)), *operands]
    else:
        def host(*args):
            return tuple(host_fn(*args))
    ctx.module.host_callbacks.append(host)
    in_layouts = ([_layout(None)] if ordered else []) + [_layout(a.ndim) for a in operand_avals]
    out_layouts = ([_layout(None)] if ordered else []) + [_layout(a.ndim) for a in result_avals]
    target = "xla_ffi_partitioned_python_cpu_callback" if partitioned else "xla_ffi_python_cpu_callback"
    attrs = {"call_target_name": f'"{target}"', "backend_config": '""',
             "mhlo.backend_config": f"{{index = {index} : ui64}}",
             "operand_layouts": "[" + ", ".join(in_layouts) + "]",
             "result_layouts": "[" + ", ".join(out_layouts) + "]"}
    if side_effect:
        attrs["has_side_effect"] = "true"
    if sharding is not None:
        attrs[sharding[0]] = sharding[1]
    types = (["!stablehlo.token"] if ordered else []) + [mlir.aval_type(a) for a in result_avals]
    outs = ctx.fb.op("stablehlo.custom_call", list(operands), types, attrs)
    if ordered:
        ctx.set_token(_token_key(effect), outs[0])
        outs = outs[1:]
    return outs


def emit_python_callback(ctx, callback, token, operands, operand_avals, result_avals, *,
                         has_side_effect, partitioned=False, sharding=None,
                         operand_layouts=None, result_layouts=None):
    """JAX's helper for lowering rules (`jax.interpreters.mlir.emit_python_callback`): emit a
    call of `callback` (NumPy arrays in, a sequence of NumPy arrays out, checked against
    `result_avals`). Returns (results, token, keepalive) as JAX does. NB: only without a token
    (pyjax threads ordered effects' tokens itself) and with the default layouts."""
    if token is not None or operand_layouts is not None or result_layouts is not None:
        raise NotImplementedError("emit_python_callback: pyjax supports token=None and default "
                                  "layouts only; use jax.io_callback(..., ordered=True)")
    def host(*xs):
        return _checked_results("callback", callback(*xs), result_avals)
    outs = _emit_callback(ctx, "callback", host, operands, list(result_avals),
                          side_effect=has_side_effect, operand_avals=list(operand_avals))
    return outs, None, None


_unordered_key = core.Effect("UnorderedCallbacks")


def _token_key(effect):
    return effect if effect.ordered else _unordered_key


def _layout(ndim):
    if ndim is None:  # a token
        return "dense<> : tensor<0xindex>"
    if ndim == 0:
        return "dense<> : tensor<0xindex>"
    return f"dense<[{', '.join(str(d) for d in range(ndim - 1, -1, -1))}]> : tensor<{ndim}xindex>"


def _unroll_batch(prim, axis_size, args, dims, **params):
    """A callback with no results under vmap: call it once per example, in order."""
    for i in range(axis_size):
        prim.bind(*[x if d is None else shape_ops.index_in_dim(x, i, d, keepdims=False)
                    for x, d in zip(args, dims)], **params)
    return [], []


def _front(x, d):
    return x if d in (None, 0) else shape_ops.transpose(
        x, (d,) + tuple(i for i in range(core.get_aval(x).ndim) if i != d))


def _sequential_batch(prim, axis_size, args, dims, unroll=1, **params):
    """Call the callback once per example, through a scan over the batched arguments."""
    batched = [_front(x, d) for x, d in zip(args, dims) if d is not None]

    def body(carry, xs):
        xs = iter(xs)
        return carry, prim.bind(*[next(xs) if d is not None else x for x, d in zip(args, dims)],
                                **params)
    _, outs = scan(body, (), batched, length=axis_size, unroll=unroll)
    return list(outs), [0] * len(outs)


# -- debug_callback ------------------------------------------------------------------------------

debug_callback_p = core.Primitive("debug_callback", multiple_results=True)


def debug_callback(callback=None, *args, ordered=False, partitioned=False, **kwargs):
    """Call `callback(*args, **kwargs)` for its side effect, from eager and from compiled code.

    The array arguments arrive as Arrays (NumPy values and Python numbers converted, as JAX);
    under `grad` the callback sees primal values; under `vmap` it runs once per example.
    `ordered=True` keeps program order among ordered callbacks; `partitioned=True` calls it on
    each device's shards instead of the whole value. Called with only options
    (`jax.debug.callback(ordered=True)`), returns the function that takes the callback and its
    arguments. Returns None.
    """
    def _callback(callback, *args, **kwargs):
        if not callable(callback):
            raise TypeError(f"first argument to jax.debug.callback must be callable, but got an "
                            f"object of type {type(callback)}")
        flat, dyn = _flatten_callback(callback, args, kwargs)
        debug_callback_p.bind(*dyn, callback=flat,
                              effect=ordered_debug_effect if ordered else debug_effect,
                              partitioned=partitioned)

    if callback is not None:
        return _callback(callback, *args, **kwargs)
    if args or kwargs:
        raise TypeError(f"debug_callback received unexpected arguments in the two-call form: "
                        f"args={args} kwargs={kwargs}")
    return _callback


@debug_callback_p.def_impl
def _debug_callback_impl(*args, callback, effect, partitioned):
    _logged("debug.callback", callback)(*_as_arrays(args))  # (raises the exception itself, as JAX)
    return []


def _as_arrays(xs):
    return [x if isinstance(x, Array) else put_value(x) for x in xs]


debug_callback_p.def_abstract_eval(lambda *avals, callback, effect, partitioned: [])
debug_callback_p.def_effects(lambda callback, effect, partitioned: frozenset({effect}))
debug_callback_p.def_jvp(lambda primals, tangents, **params: (debug_callback_p.bind(*primals, **params), []))
debug_callback_p.def_transpose(lambda cts, *args, **params: [None] * len(args))
debug_callback_p.def_batch(lambda axis_size, args, dims, **params:
                           _unroll_batch(debug_callback_p, axis_size, args, dims, **params))
ad_checkpoint.remat_debug_primitives.add(debug_callback_p)  # (recomputed under remat, as JAX)
ad_checkpoint.remat_disallowed_effects.update((io_effect, ordered_io_effect))  # (as JAX)


@debug_callback_p.def_lowering
def _debug_callback_lowering(ctx, *args, callback, effect, partitioned):
    def host(*xs):
        _logged("debug.callback", callback)(*_as_arrays(xs))
        return ()
    return _emit_callback(ctx, "debug.callback", host, args, [], effect=effect, side_effect=True,
                          partitioned=partitioned)


# -- debug.print ---------------------------------------------------------------------------------

class _FormatChecker(string.Formatter):
    """Checks a format string against its arguments without formatting anything."""

    def format_field(self, value, format_spec):
        return ""

    def check_unused_args(self, used_args, args, kwargs):
        unused = [a for i, a in enumerate(args) if i not in used_args]
        unused_kw = [k for k in kwargs if k not in used_args]
        if unused:
            raise ValueError(f"Unused positional arguments to `jax.debug.print`: {unused}")
        if unused_kw:
            raise ValueError(f"Unused keyword arguments to `jax.debug.print`: {unused_kw}. You "
                             "may be passing an f-string (f\"{x}\") to `jax.debug.print`: pass "
                             "a plain string and the values as arguments instead.")


_format_checker = _FormatChecker()


def debug_print(fmt=None, *args, ordered=False, partitioned=False, skip_format_check=False,
                _use_logging=False, **kwargs):
    """Print `fmt.format(*args, **kwargs)` with the values the arguments have at run time, from
    eager and from compiled code: `jax.debug.print("x = {x}", x=x)`. A format string without
    placeholders prints the arguments after it. Called with only options
    (`jax.debug.print(ordered=True)`), returns the printing function."""
    def _print(fmt, *args, **kwargs):
        if not isinstance(fmt, str):
            raise TypeError(f"debug.print: the format must be a str, got {type(fmt).__name__}")
        if not skip_format_check:
            _format_checker.format(fmt, *args, **kwargs)
        has_fields = any(field is not None for _, field, _, _ in string.Formatter().parse(fmt))
        printopts = np.get_printoptions()
        record = _log_record() if _use_logging else None

        def emit(*a, **kw):
            with np.printoptions(**printopts):
                a = [_printable(v) for v in a]
                kw = {k: _printable(v) for k, v in kw.items()}
                msg = fmt.format(*a, **kw) if has_fields else " ".join([fmt, *map(str, a)])
            if record is not None:  # (handled whatever the logger's level, as JAX's)
                logged = logging.makeLogRecord(record.__dict__)
                logged.msg = msg
                _debug_logger().handle(logged)
            else:
                sys.stdout.write(msg + "\n")
        debug_callback(emit, *args, ordered=ordered, partitioned=partitioned, **kwargs)

    if fmt is not None:
        return _print(fmt, *args, **kwargs)
    if args or kwargs:
        raise TypeError(f"debug_print received unexpected arguments in the two-call form: "
                        f"args={args} kwargs={kwargs}")
    return _print


def _printable(v):
    """A NumPy array for an Array of a NumPy dtype; other values (key arrays) print as they are."""
    if isinstance(v, Array) and not isinstance(v.dtype, dtypes.ExtendedDType):
        return np.asarray(v)
    return v


def _callback_logger():
    """`pyjax.callback`; under the switch JAX's name for it, `jax._src.callback`, which JAX
    programs filter (equinox's filter_jit drops "jax.pure_callback failed" records by it)."""
    return logging.getLogger("jax._src.callback" if _under_switch() else "pyjax.callback")


def _under_switch():
    jax = sys.modules.get("jax")
    return jax is not None and getattr(jax, "__name__", None) == "pyjax"


def _debug_logger():
    """`pyjax.debug`; under the switch (`jax` is pyjax) JAX's name for it, `jax._src.debugging`,
    where a JAX program looks for its records."""
    return logging.getLogger("jax._src.debugging" if _under_switch() else "pyjax.debug")


def _log_record():
    """An INFO record at the user's line that called debug.log (its message comes later)."""
    frame = source_info.user_frame()
    file, line = ((frame.f_code.co_filename, frame.f_lineno) if frame is not None
                  else ("(unknown file)", 0))
    logger = _debug_logger()
    return logger.makeRecord(logger.name, logging.INFO, file, line, "", (), None)


def debug_log(fmt=None, *args, ordered=False, partitioned=False, skip_format_check=False, **kwargs):
    """As `debug.print`, to the `pyjax.debug` logger (level INFO) instead of stdout (under the
    switch, to JAX's `jax._src.debugging`)."""
    return debug_print(fmt, *args, ordered=ordered, partitioned=partitioned,
                       skip_format_check=skip_format_check, _use_logging=True, **kwargs)


# -- pure_callback -------------------------------------------------------------------------------

pure_callback_p = core.Primitive("pure_callback", multiple_results=True)


def pure_callback(callback, result_shape_dtypes, *args, sharding=None, vmap_method=None, **kwargs):
    """Call a pure Python function on host values and use its results in compiled code.

    `result_shape_dtypes` (a pytree of `jax.ShapeDtypeStruct`) declares the results; what the
    function returns is checked against it. The compiler may drop or merge calls (it is
    pure). Under `vmap`, `vmap_method` says how: "sequential" (one call per example),
    "expand_dims" / "broadcast_all" (one call with a leading batch axis), "legacy_vectorized".
    Not differentiable: wrap it in `custom_jvp` / `custom_vjp`.
    """
    if vmap_method not in _VMAP_METHODS:
        raise ValueError(f"vmap_method must be on of the allowed methods {list(_VMAP_METHODS)}, "
                         f"but got: {vmap_method}")
    flat, dyn = _flatten_callback(callback, args, kwargs)
    result_avals, out_tree = _result_avals("pure_callback", result_shape_dtypes)
    outs = pure_callback_p.bind(*dyn, callback=flat, result_avals=tuple(result_avals),
                                vmap_method=vmap_method)
    return tree_util.tree_unflatten(out_tree, outs)


def _host_call(name, callback, result_avals, args):
    """An eager call: what XLA would do for a one-callback computation, without compiling one
    (an exception reaches the caller as the runtime's error, as from compiled code)."""
    try:
        outs = _logged(name, callback)(*[np.asarray(a) for a in args])
        outs = _checked_results(name, outs, result_avals)
    except Exception as e:  # noqa: BLE001 — re-raised as the runtime's error, as XLA does
        frames = "".join(f'  File "{f.filename}", line {f.lineno}, in {f.name}\n'
                         for f in traceback.extract_tb(e.__traceback__))
        raise errors.JaxRuntimeError(
            "INTERNAL: CpuCallback error calling callback: Traceback (most recent call last):\n"
            f"{frames}{traceback.format_exception_only(e)[-1].rstrip()}") from None
    return [from_host(v) for v in outs]


def _logged(name, callback):
    """`callback`, logging a failure with its traceback before it propagates (as JAX's
    "jax.pure_callback failed": XLA's error carries only the last frames)."""
    def call(*args):
        try:
            return callback(*args)
        except Exception:
            _callback_logger().exception(f"jax.{name} failed")
            raise
    return call


pure_callback_p.def_impl(lambda *args, callback, result_avals, vmap_method:
                         _host_call("pure_callback", callback, result_avals, args))
pure_callback_p.def_abstract_eval(lambda *avals, callback, result_avals, vmap_method: list(result_avals))


@pure_callback_p.def_jvp
def _pure_callback_jvp(primals, tangents, **params):
    raise ValueError("Pure callbacks do not support JVP. Please use `jax.custom_jvp` to use "
                     "callbacks while taking gradients.")


@pure_callback_p.def_transpose
def _pure_callback_transpose(cts, *args, **params):
    raise ValueError("Pure callbacks do not support transpose. Please use `jax.custom_vjp` to "
                     "use callbacks while taking gradients.")


@pure_callback_p.def_batch
def _pure_callback_batch(axis_size, args, dims, *, callback, result_avals, vmap_method):
    batched_avals = tuple(a.update(shape=(axis_size, *a.shape)) for a in result_avals)
    params = dict(callback=callback, vmap_method=vmap_method)
    if vmap_method in ("sequential", "sequential_unrolled"):
        return _sequential_batch(pure_callback_p, axis_size, args, dims,
                                 unroll=vmap_method == "sequential_unrolled",
                                 result_avals=result_avals, **params)
    if vmap_method in ("expand_dims", "broadcast_all"):
        size = axis_size if vmap_method == "broadcast_all" else 1
        args = [shape_ops.broadcast(x, (size,)) if d is None else _front(x, d)
                for x, d in zip(args, dims)]
    elif vmap_method == "legacy_vectorized":
        args = [_front(x, d) for x, d in zip(args, dims)]
    else:
        raise NotImplementedError(
            "vmap is only supported for the pure_callback primitive when vmap_method is one of "
            "'sequential', 'sequential_unrolled', 'expand_dims', 'broadcast_all', or "
            "'legacy_vectorized'.")
    outs = pure_callback_p.bind(*args, result_avals=batched_avals, **params)
    return outs, [0] * len(outs)


@pure_callback_p.def_lowering
def _pure_callback_lowering(ctx, *args, callback, result_avals, vmap_method):
    def host(*xs):
        return _checked_results("pure_callback", _logged("pure_callback", callback)(*xs),
                                result_avals)
    return _emit_callback(ctx, "pure_callback", host, args, result_avals, side_effect=False)


# -- io_callback ---------------------------------------------------------------------------------

io_callback_p = core.Primitive("io_callback", multiple_results=True)


def io_callback(callback, result_shape_dtypes, *args, sharding=None, ordered=False, **kwargs):
    """Call an impure Python function (IO, state) from compiled code; it always runs, and with
    `ordered=True` in program order among ordered callbacks. Results as for `pure_callback`."""
    flat, dyn = _flatten_callback(callback, args, kwargs)
    result_avals, out_tree = _result_avals("io_callback", result_shape_dtypes)
    outs = io_callback_p.bind(*dyn, callback=flat, result_avals=tuple(result_avals),
                              ordered=ordered)
    return tree_util.tree_unflatten(out_tree, outs)


io_callback_p.def_impl(lambda *args, callback, result_avals, ordered:
                       _host_call("io_callback", callback, result_avals, args))
io_callback_p.def_abstract_eval(lambda *avals, callback, result_avals, ordered: list(result_avals))
io_callback_p.def_effects(lambda callback, result_avals, ordered:
                          frozenset({ordered_io_effect if ordered else io_effect}))


@io_callback_p.def_jvp
def _io_callback_jvp(primals, tangents, **params):
    raise ValueError("IO callbacks do not support JVP.")


@io_callback_p.def_transpose
def _io_callback_transpose(cts, *args, **params):
    raise ValueError("IO callbacks do not support transpose.")


@io_callback_p.def_batch
def _io_callback_batch(axis_size, args, dims, *, callback, result_avals, ordered):
    if ordered:
        raise ValueError("Cannot `vmap` ordered IO callback.")
    return _sequential_batch(io_callback_p, axis_size, args, dims, callback=callback,
                             result_avals=result_avals, ordered=False)


@io_callback_p.def_lowering
def _io_callback_lowering(ctx, *args, callback, result_avals, ordered):
    def host(*xs):
        return _checked_results("io_callback", _logged("io_callback", callback)(*xs),
                                result_avals)
    return _emit_callback(ctx, "io_callback", host, args, result_avals,
                          effect=ordered_io_effect if ordered else io_effect, side_effect=True)


def breakpoint(*, backend=None, filter_frames=True, num_frames=None, ordered=False,
               token=None, **kwargs):
    """Stop in the Python debugger (`sys.breakpointhook`, pdb by default) when this point runs:
    at once in eager code; in compiled code when the call executes, with `values` holding the
    run-time values of the caller's arrays by name. NB: no JAX-style multi-frame debugger."""
    frame = sys._getframe(1)
    names = [k for k, v in frame.f_locals.items() if isinstance(v, (Array, core.Tracer))]

    def stop(*vals):
        values = dict(zip(names, vals))  # (for the user at the prompt)  # noqa: F841
        sys.breakpointhook()
    debug_callback(stop, *[frame.f_locals[k] for k in names], ordered=ordered)
