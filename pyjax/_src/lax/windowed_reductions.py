"""Reductions over sliding windows (pooling) and reductions with a Python reducer.

- `reduce_window_sum_p`, `reduce_window_max_p`, `reduce_window_min_p`: a monoid over each window
  of the operand, with `window_strides`, `padding` (filled with the monoid's identity),
  `base_dilation` (holes between input elements, also the identity) and `window_dilation`.
  Sum is linear (its transpose a windowed sum of the padded, stride-dilated cotangent); max and
  min differentiate through `select_and_gather_add_p` (the tangent at each window's selected
  element), whose transpose `select_and_scatter_add_p` is max pooling's gradient.
- `reduce_window_p` and `reduce_p`: any reducer, traced to a jaxpr on scalars (variadic: pytrees
  of operands and init values); `lax.reduce_window` / `lax.reduce` use the monoid primitives
  when the reducer is `lax.add`/`max`/`min` (`mul`/`and`/`or` for reduce) with its identity, as
  JAX does. Their JVP reduces primals and tangents together with the reducer's JVP; like JAX's,
  it has no transpose (reverse mode through a custom reducer fails).

Rules of each primitive, in order: wrapper, abstract eval, NumPy reference, jvp/transpose,
batching (the vmapped axis gets a window of 1), lowering (`stablehlo.reduce_window`,
`stablehlo.select_and_scatter`, `stablehlo.reduce`).
"""
from __future__ import annotations

import math
import operator
import weakref
from functools import partial

import numpy as np

from pyjax._src import core, tree_util
from pyjax._src.core import Primitive, ShapedArray
from pyjax._src.dispatch import apply_jaxpr_primitive
from pyjax._src.interpreters import ad
from pyjax._src.interpreters import partial_eval as pe
from pyjax._src.interpreters.ad import Zero
from pyjax._src.interpreters.batching import AxisData, batch_flat, bdim_at_front, moveaxis, not_mapped
from pyjax._src.lax import elementwise as lax_elem
from pyjax._src.lax.convolution import _dilate_shape, _vjp_lhs_padding, padtype_to_pads
from pyjax._src.lax.reductions import (
    reduce_and, reduce_max, reduce_min, reduce_or, reduce_prod, reduce_sum, reduce_xor,
    reduction_identity)
from pyjax._src.lax.shape_ops import (
    broadcast_in_dim, pad, reshape, slice as lax_slice, slice_in_dim, transpose)
from pyjax._src.lax.utils import (
    ANY, NUM, broadcast_scalars_shape, check_dtype, emit_compare, kind, standard_primitive)
from pyjax._src.lowering.mlir import i64_array

# -- shapes ----------------------------------------------------------------------------------------


def _stride_dim(size, window, stride):
    return 0 if size < window else (size - window) // stride + 1


def reduce_window_shape_tuple(operand_shape, window_dimensions, window_strides, padding,
                              base_dilation=None, window_dilation=None):
    """The output shape of a windowed reduction."""
    if base_dilation is not None:
        operand_shape = _dilate_shape(operand_shape, base_dilation)
    if window_dilation is not None:
        window_dimensions = _dilate_shape(window_dimensions, window_dilation)
    return tuple(_stride_dim(d + lo + hi, w, s) for d, (lo, hi), w, s in
                 zip(operand_shape, padding, window_dimensions, window_strides, strict=True))


def _check_window_params(name, aval, window_dimensions, window_strides, padding, base_dilation,
                         window_dilation):
    if aval.ndim != len(window_dimensions):
        raise TypeError(f"{name} got the wrong number of window_dimensions for operand: got "
                        f"operand shape {aval.shape} with window_dimensions {window_dimensions}.")
    for what, v in (("window_strides", window_strides), ("padding", padding),
                    ("base_dilation", base_dilation), ("window_dilation", window_dilation)):
        if len(v) != len(window_dimensions):
            raise TypeError(f"{name} got inconsistent {what} and window_dimensions: got {what} "
                            f"{v} and window_dimensions {window_dimensions}.")
    for what, v in (("window_dimensions", window_dimensions), ("window_strides", window_strides),
                    ("base_dilation", base_dilation), ("window_dilation", window_dilation)):
        if any(d <= 0 for d in v):
            raise TypeError(f"{name} {what} must have every element be strictly positive, got "
                            f"{v}.")
    return reduce_window_shape_tuple(aval.shape, window_dimensions, window_strides, padding,
                                     base_dilation, window_dilation)


def _canonical_window(operand_shape, window_dimensions, window_strides, padding, base_dilation,
                      window_dilation):
    """The window parameters as the primitives take them: tuples of ints, padding as pairs."""
    nd = len(window_dimensions)
    ints = lambda v, default: (default,) * nd if v is None else tuple(operator.index(d) for d in v)  # noqa: E731
    window_dimensions = ints(window_dimensions, 1)
    window_strides = ints(window_strides, 1)
    base_dilation, window_dilation = ints(base_dilation, 1), ints(window_dilation, 1)
    if isinstance(padding, str):
        padding = padtype_to_pads(operand_shape, _dilate_shape(window_dimensions, window_dilation),
                                  window_strides, padding)
    padding = tuple((operator.index(lo), operator.index(hi)) for lo, hi in padding)
    return dict(window_dimensions=window_dimensions, window_strides=window_strides,
                padding=padding, base_dilation=base_dilation, window_dilation=window_dilation)


# -- the NumPy windows ----------------------------------------------------------------------------


def _np_windows(x, fill, window_dimensions, window_strides, padding, base_dilation=None,
                window_dilation=None):
    """Every window of `x` (holes of base dilation and padding hold `fill`):
    shape `out_shape + window_dimensions`."""
    x = np.asarray(x)
    nd = x.ndim
    base_dilation = base_dilation or (1,) * nd
    window_dilation = window_dilation or (1,) * nd
    if any(d > 1 for d in base_dilation):
        y = np.full(_dilate_shape(x.shape, base_dilation), fill, x.dtype)
        y[tuple(slice(None, None, d) for d in base_dilation)] = x
        x = y
    crop = tuple(slice(max(-lo, 0), x.shape[i] - max(-hi, 0)) for i, (lo, hi) in enumerate(padding))
    x = x[crop]
    x = np.pad(x, [(max(lo, 0), max(hi, 0)) for lo, hi in padding], constant_values=fill)
    eff = _dilate_shape(window_dimensions, window_dilation)
    out_shape = tuple(_stride_dim(d, w, s) for d, w, s in zip(x.shape, eff, window_strides))
    if 0 in out_shape:
        return np.zeros(out_shape + tuple(window_dimensions), x.dtype)
    win = np.lib.stride_tricks.sliding_window_view(x, eff)
    idx = tuple(slice(None, None, s) for s in window_strides) + tuple(
        slice(None, None, d) for d in window_dilation)
    return win[idx]


def _window_axes(nd):
    return tuple(range(nd, 2 * nd))


# -- reduce_window_{sum,max,min} ------------------------------------------------------------------


def _monoid_abstract_eval(name, accepted, x, **params):
    check_dtype(name, x, accepted)
    return ShapedArray(_check_window_params(name, x, **params), x.dtype, x.weak_type)


def _np_monoid(np_fn, ident_name, x, **params):
    x = np.asarray(x)
    fill = reduction_identity(ident_name, x.dtype)
    return np_fn(_np_windows(x, fill, **params), axis=_window_axes(x.ndim)).astype(x.dtype)


def _monoid_batch(prim, axis_size, args, dims, *, window_dimensions, window_strides, padding,
                  base_dilation, window_dilation):
    (x,), (d,) = args, dims
    ins = lambda t, v: t[:d] + (v,) + t[d:]  # noqa: E731
    out = prim.bind(x, window_dimensions=ins(window_dimensions, 1),
                    window_strides=ins(window_strides, 1), padding=ins(padding, (0, 0)),
                    base_dilation=ins(base_dilation, 1), window_dilation=ins(window_dilation, 1))
    return out, d


def _padding_attr(padding):
    n = len(padding)
    if not n:
        return "dense<> : tensor<0x2xi64>"
    return "dense<[" + ", ".join(f"[{lo}, {hi}]" for lo, hi in padding) + f"]> : tensor<{n}x2xi64>"


def _window_attrs(window_dimensions, window_strides, padding, base_dilation, window_dilation):
    return {"base_dilations": i64_array(base_dilation), "padding": _padding_attr(padding),
            "window_dilations": i64_array(window_dilation),
            "window_dimensions": i64_array(window_dimensions),
            "window_strides": i64_array(window_strides)}


def _monoid_hlo(ident_name, dtype):
    if ident_name == "sum":
        return "stablehlo.or" if np.dtype(dtype) == np.bool_ else "stablehlo.add"
    return "stablehlo.maximum" if ident_name == "max" else "stablehlo.minimum"


def _monoid_lowering(ident_name, ctx, x, **params):
    aval = ctx.avals_in[0]
    scalar = ShapedArray((), aval.dtype)
    init = ctx.const(reduction_identity(ident_name, aval.dtype), aval.dtype)
    hlo = _monoid_hlo(ident_name, aval.dtype)
    body = ctx.region([scalar, scalar], lambda a, b: [ctx.op(hlo, a, b, out=scalar)])
    return ctx.op("stablehlo.reduce_window", x, init, attrs=_window_attrs(**params), regions=[body])


def _monoid_primitive(ident_name, np_fn, accepted):
    name = f"reduce_window_{ident_name}"
    p = standard_primitive(name, partial(_monoid_abstract_eval, name, accepted),
                           partial(_np_monoid, np_fn, ident_name),
                           partial(_monoid_lowering, ident_name))
    p.def_batch(partial(_monoid_batch, p))
    return p


reduce_window_sum_p = _monoid_primitive("sum", np.sum, NUM)
reduce_window_max_p = _monoid_primitive("max", np.max, ANY)
reduce_window_min_p = _monoid_primitive("min", np.min, ANY)


def _reduce_window_sum_transpose(ct, x, *, window_dimensions, window_strides, padding,
                                 base_dilation, window_dilation):
    """Each input element receives the cotangents of the windows it is in: a windowed sum of the
    cotangent dilated by the strides and padded by the window's reach."""
    if type(ct) is Zero:
        return [None]
    in_shape = x.aval.shape
    ct_shape = core.get_aval(ct).shape
    pads = _vjp_lhs_padding(in_shape, window_dimensions, window_strides, ct_shape, padding,
                            base_dilation, window_dilation)
    config = [(lo, hi, s - 1) for (lo, hi), s in zip(pads, window_strides)]
    ct_aval = core.get_aval(ct)  # (padded with a zero of ct's weak type, as JAX's lax._zero)
    padded = pad(ct, lax_elem._convert_element_type(0, ct_aval.dtype, ct_aval.weak_type), config)
    ones = (1,) * len(in_shape)
    return [reduce_window_sum_p.bind(padded, window_dimensions=window_dimensions,
                                     window_strides=base_dilation, padding=((0, 0),) * len(in_shape),
                                     base_dilation=ones, window_dilation=window_dilation)]


ad.deflinear(reduce_window_sum_p, _reduce_window_sum_transpose)


def _chooser_jvp(select_prim, g, ans, x, **params):
    return select_and_gather_add_p.bind(g, x, select_prim=select_prim, **params)


ad.defjvp(reduce_window_max_p, partial(_chooser_jvp, lax_elem.ge_p))
ad.defjvp(reduce_window_min_p, partial(_chooser_jvp, lax_elem.le_p))


# -- select_and_gather_add: the tangent at each window's max (min) --------------------------------

select_and_gather_add_p = standard_primitive("select_and_gather_add")


def _select_identity(select_prim, dtype):
    return reduction_identity("max" if select_prim is lax_elem.ge_p else "min", dtype)


@select_and_gather_add_p.def_abstract_eval
def _select_and_gather_add_abstract_eval(t, x, *, select_prim, **params):
    if t.shape != x.shape:
        raise TypeError(f"select_and_gather_add tangents and operand shapes must match, got "
                        f"{t.shape} and {x.shape}.")
    return ShapedArray(_check_window_params("select_and_gather_add", x, **params), t.dtype,
                       t.weak_type)


def _np_select_and_gather_add(t, x, *, select_prim, **params):
    x, t = np.asarray(x), np.asarray(t)
    xw = _np_windows(x, _select_identity(select_prim, x.dtype), **params)
    tw = _np_windows(t, np.zeros((), t.dtype), **params)
    out_shape = xw.shape[:x.ndim]
    xw, tw = xw.reshape(out_shape + (-1,)), tw.reshape(out_shape + (-1,))
    pick = (np.argmax if select_prim is lax_elem.ge_p else np.argmin)(xw, axis=-1)
    return np.take_along_axis(tw, pick[..., None], -1)[..., 0]


select_and_gather_add_p.np_impl = _np_select_and_gather_add


@select_and_gather_add_p.def_jvp
def _select_and_gather_add_jvp(primals, tangents, **params):
    (t, x), (g, _) = primals, tangents
    ans = select_and_gather_add_p.bind(t, x, **params)
    if type(g) is Zero:
        return ans, Zero(ad.tangent_aval(core.get_aval(ans)))
    return ans, select_and_gather_add_p.bind(g, x, **params)


@select_and_gather_add_p.def_transpose
def _select_and_gather_add_transpose(ct, t, x, *, select_prim, window_dimensions, window_strides,
                                     padding, base_dilation, window_dilation):
    if any(d != 1 for d in window_dilation):
        raise NotImplementedError(f"the VJP of select_and_gather_add (max/min pooling) with "
                                  f"window dilation is not implemented (as in JAX), got "
                                  f"window_dilation={window_dilation}")
    if type(ct) is Zero:
        return [None, None]
    dilated = any(d != 1 for d in base_dilation)
    if dilated:  # the holes can never be selected: they hold the identity
        ident = np.asarray(_select_identity(select_prim, t.aval.dtype))
        x = pad(x, ident, [(0, 0, d - 1) for d in base_dilation])
    out = select_and_scatter_add_p.bind(ct, x, select_prim=select_prim,
                                        window_dimensions=window_dimensions,
                                        window_strides=window_strides, padding=padding)
    if dilated:
        out = lax_slice(out, (0,) * len(base_dilation), core.get_aval(out).shape, base_dilation)
    return [out, None]


def _select_and_gather_add(tangents, operand, select_prim, window_dimensions, window_strides,
                           padding, base_dilation, window_dilation):
    """The tangent at each window's max (`select_prim` lax.ge_p) or min (lax.le_p) of `operand`
    (JAX's internal entry point of the primitive that max/min pooling's JVP binds)."""
    return select_and_gather_add_p.bind(
        tangents, operand, select_prim=select_prim,
        window_dimensions=tuple(int(d) for d in window_dimensions),
        window_strides=tuple(int(s) for s in window_strides),
        padding=tuple((int(lo), int(hi)) for lo, hi in padding),
        base_dilation=tuple(int(d) for d in base_dilation),
        window_dilation=tuple(int(d) for d in window_dilation))


def _select_and_scatter_add(source, operand, select_prim, window_dimensions, window_strides,
                            padding):
    """`source` added into the position of each window's max (min) of `operand` (the transpose of
    `_select_and_gather_add`; JAX's internal entry point)."""
    return select_and_scatter_add_p.bind(
        source, operand, select_prim=select_prim,
        window_dimensions=tuple(int(d) for d in window_dimensions),
        window_strides=tuple(int(s) for s in window_strides),
        padding=tuple((int(lo), int(hi)) for lo, hi in padding))


def _batch_in_front(prim, axis_size, args, dims, **params):
    """Batching of the two-operand window primitives: both batch axes in front, a window of 1."""
    args = [bdim_at_front(a, d, axis_size) for a, d in zip(args, dims)]
    new = {k: ((1,) + v if k != "padding" else ((0, 0),) + v) if isinstance(v, tuple) else v
           for k, v in params.items()}
    return prim.bind(*args, **new), 0


select_and_gather_add_p.def_batch(partial(_batch_in_front, select_and_gather_add_p))


@select_and_gather_add_p.def_lowering
def _select_and_gather_add_lowering(ctx, t, x, *, select_prim, **params):
    """A two-operand reduce_window over (operand, tangent) pairs keeping the pair whose operand
    the select comparison prefers (JAX's CPU lowering)."""
    t_aval, x_aval = ctx.avals_in
    xs, ts = ShapedArray((), x_aval.dtype), ShapedArray((), t_aval.dtype)
    direction = "GE" if select_prim is lax_elem.ge_p else "LE"

    def body(ka, va, kb, vb):
        which = emit_compare(ctx, direction, ka, kb, xs)
        return [ctx.op("stablehlo.select", which, ka, kb, out=xs),
                ctx.op("stablehlo.select", which, va, vb, out=ts)]
    init_x = ctx.const(_select_identity(select_prim, x_aval.dtype), x_aval.dtype)
    init_t = ctx.const(0, t_aval.dtype)
    out = ctx.avals_out[0]
    outs = ctx.op_multi("stablehlo.reduce_window", x, t, init_x, init_t,
                        outs=[out.update(dtype=x_aval.dtype), out], attrs=_window_attrs(**params),
                        regions=[ctx.region([xs, ts, xs, ts], body)])
    return outs[1]


# -- select_and_scatter_add: max pooling's gradient -----------------------------------------------

select_and_scatter_add_p = standard_primitive("select_and_scatter_add")


@select_and_scatter_add_p.def_abstract_eval
def _select_and_scatter_add_abstract_eval(source, x, *, select_prim, window_dimensions,
                                          window_strides, padding):
    ones = (1,) * x.ndim
    out = _check_window_params("select_and_scatter_add", x, window_dimensions, window_strides,
                               padding, ones, ones)
    if source.shape != out:
        raise TypeError(f"select_and_scatter_add: source {source.str_short()} must have the shape "
                        f"of the windows of operand {x.str_short()}, {out}")
    return ShapedArray(x.shape, source.dtype, source.weak_type)


def _np_select_and_scatter_add(source, x, *, select_prim, window_dimensions, window_strides,
                               padding):
    x, source = np.asarray(x), np.asarray(source)
    xw = _np_windows(x, _select_identity(select_prim, x.dtype), window_dimensions, window_strides,
                     padding)
    out_shape = xw.shape[:x.ndim]
    pick = (np.argmax if select_prim is lax_elem.ge_p else np.argmin)(
        xw.reshape(out_shape + (-1,)), axis=-1)
    padded_shape = tuple(d + lo + hi for d, (lo, hi) in zip(x.shape, padding))
    acc = np.zeros(padded_shape, source.dtype)
    for pos in np.ndindex(*out_shape):
        offs = np.unravel_index(pick[pos], window_dimensions)
        where = tuple(p * s + o for p, s, o in zip(pos, window_strides, offs))
        acc[where] += source[pos]
    return acc[tuple(slice(lo, lo + d) for d, (lo, _) in zip(x.shape, padding))]


select_and_scatter_add_p.np_impl = _np_select_and_scatter_add


@select_and_scatter_add_p.def_jvp
def _select_and_scatter_add_jvp(primals, tangents, **params):
    (s, x), (g, _) = primals, tangents
    ans = select_and_scatter_add_p.bind(s, x, **params)
    if type(g) is Zero:
        return ans, Zero(ad.tangent_aval(core.get_aval(ans)))
    return ans, select_and_scatter_add_p.bind(g, x, **params)


@select_and_scatter_add_p.def_transpose
def _select_and_scatter_add_transpose(ct, s, x, *, select_prim, window_dimensions, window_strides,
                                      padding):
    if type(ct) is Zero:
        return [None, None]
    ones = (1,) * len(window_dimensions)
    return [select_and_gather_add_p.bind(ct, x, select_prim=select_prim,
                                         window_dimensions=window_dimensions,
                                         window_strides=window_strides, padding=padding,
                                         base_dilation=ones, window_dilation=ones), None]


select_and_scatter_add_p.def_batch(partial(_batch_in_front, select_and_scatter_add_p))


@select_and_scatter_add_p.def_lowering
def _select_and_scatter_add_lowering(ctx, source, x, *, select_prim, window_dimensions,
                                     window_strides, padding):
    """As JAX on CPU: the operand padded with the select identity, then a padding-free
    select_and_scatter, then the padding sliced off."""
    s_aval, x_aval = ctx.avals_in
    if any(lo < 0 or hi < 0 for lo, hi in padding):
        raise NotImplementedError(f"select_and_scatter_add: negative padding {padding}")
    xs, ss = ShapedArray((), x_aval.dtype), ShapedArray((), s_aval.dtype)
    padded = x_aval.update(shape=tuple(d + lo + hi for d, (lo, hi) in zip(x_aval.shape, padding)))
    if padded.shape != x_aval.shape:
        ident = ctx.const(_select_identity(select_prim, x_aval.dtype), x_aval.dtype)
        x = ctx.op("stablehlo.pad", x, ident, out=padded, attrs={
            "edge_padding_high": i64_array([hi for _, hi in padding]),
            "edge_padding_low": i64_array([lo for lo, _ in padding]),
            "interior_padding": i64_array([0] * len(padding))})
    direction = "GE" if select_prim is lax_elem.ge_p else "LE"
    select = ctx.region([xs, xs], lambda a, b: [emit_compare(ctx, direction, a, b, xs)])
    hlo_add = "stablehlo.or" if s_aval.dtype == np.bool_ else "stablehlo.add"
    scatter = ctx.region([ss, ss], lambda a, b: [ctx.op(hlo_add, a, b, out=ss)])
    out_padded = padded.update(dtype=s_aval.dtype, weak_type=False)
    out = ctx.op("stablehlo.select_and_scatter", x, source, ctx.const(0, s_aval.dtype),
                 out=out_padded, regions=[select, scatter], attrs={
                     "padding": _padding_attr(((0, 0),) * len(padding)),
                     "window_dimensions": i64_array(window_dimensions),
                     "window_strides": i64_array(window_strides)})
    if padded.shape == x_aval.shape:
        return out
    return ctx.op("stablehlo.slice", out, attrs={
        "start_indices": i64_array([lo for lo, _ in padding]),
        "limit_indices": i64_array([lo + d for d, (lo, _) in zip(x_aval.shape, padding)]),
        "strides": i64_array([1] * len(padding))})


# -- reductions with a Python reducer: reduce_window_p and reduce_p ------------------------------


def _trace_reducer(name, computation, init_avals, init_tree):
    """The reducer `computation(acc, x)` (pytrees shaped as the init values) as a closed jaxpr
    on scalars: `(*accs, *xs) -> outs`."""
    n = len(init_avals)

    def flat(*args):
        acc = tree_util.tree_unflatten(init_tree, args[:n])
        x = tree_util.tree_unflatten(init_tree, args[n:])
        out_flat, out_tree = tree_util.tree_flatten(computation(acc, x))
        if out_tree != init_tree:
            raise ValueError(f"{name} output must have the same tree structure as the operands "
                             f"{init_tree}, got {out_tree}")  # (JAX's words)
        return out_flat
    scalar = [ShapedArray((), a.dtype, a.weak_type) for a in init_avals]
    # one trace per reducer and signature, as JAX's: the eager primitive's executable is cached
    # under the jaxpr, so a loop calling reduce_window with the same reducer compiles once
    try:
        per_fn = _reducer_jaxprs.setdefault(computation, {})
    except TypeError:  # not weakly referenceable
        per_fn = {}
    key = (name, tuple(scalar), init_tree)
    closed = per_fn.get(key)
    if closed is None:
        closed, _ = pe.trace_to_jaxpr(flat, scalar + scalar)
        if not any(isinstance(c, core.Tracer) for c in closed.consts):
            per_fn[key] = closed
    return closed


_reducer_jaxprs: "weakref.WeakKeyDictionary" = weakref.WeakKeyDictionary()


def _flatten_operands(name, operands, init_values):
    flat_ops, op_tree = tree_util.tree_flatten(operands)
    flat_inits, init_tree = tree_util.tree_flatten(init_values)
    if op_tree != init_tree:
        raise ValueError(f"{name}: operands must have the same tree structure as init_values: "
                         f"{op_tree} vs. {init_tree}")
    if not flat_ops:
        raise ValueError(f"{name} must have at least one operand.")
    return flat_ops, flat_inits, op_tree


def _monoid_of(computation, init, monoids):
    """The monoid primitive wrapper for `computation` when `init` is concretely its identity.
    `monoids`: (function, identity name, wrapper); the bitwise ones ('and', 'or', 'xor') apply
    to bools and integers only, as in JAX."""
    aval = core.get_aval(init)
    if aval.shape != ():
        return None
    value = core.to_concrete_value(init) if isinstance(init, core.Tracer) else np.asarray(init)
    if value is None:
        return None
    for fn, ident_name, wrapper in monoids:
        if computation is not fn:
            continue
        if ident_name in ("and", "or", "xor") and kind(aval.dtype) not in "biu":
            return None
        ident = reduction_identity("or" if ident_name == "xor" else ident_name, aval.dtype)
        return wrapper if bool(np.asarray(value, aval.dtype) == ident) else None
    return None


def reduce_window(operand, init_value, computation, window_dimensions, window_strides=None,
                  padding="VALID", base_dilation=None, window_dilation=None):
    """Reduce each window of `operand` (a pytree of arrays) with `computation(acc, x)`, starting
    from `init_value` (scalars shaped as `operand`'s tree). `lax.add`/`max`/`min` with their
    identity use the windowed-sum/max/min primitives.

    >>> lax.reduce_window(jnp.arange(5.), 0., lax.add, (2,), (1,), 'VALID')
    Array([1., 3., 5., 7.], dtype=float32)
    """
    flat_ops, flat_inits, tree = _flatten_operands("reduce_window", operand, init_value)
    params = _canonical_window(core.get_aval(flat_ops[0]).shape, window_dimensions, window_strides,
                               padding, base_dilation, window_dilation)
    if len(flat_ops) == 1:
        monoid = _monoid_of(computation, flat_inits[0], (
            (lax_elem.add, "sum", reduce_window_sum_p), (lax_elem.max, "max", reduce_window_max_p),
            (lax_elem.min, "min", reduce_window_min_p)))
        if monoid is not None:
            return tree_util.tree_unflatten(tree, [monoid.bind(flat_ops[0], **params)])
    init_avals = [core.get_aval(v) for v in flat_inits]
    jaxpr = _trace_reducer("reduce_window", computation, init_avals, tree)
    outs = reduce_window_p.bind(*flat_ops, *flat_inits, jaxpr=jaxpr, **params)
    return tree_util.tree_unflatten(tree, outs)


# NB: the reducer is one ClosedJaxpr parameter `jaxpr` (JAX's equation has an open `jaxpr` and a
# `consts` tuple), so printed jaxprs lack JAX's `consts=()` line.
reduce_window_p = Primitive("reduce_window", multiple_results=True)
reduce_window_p.def_impl(partial(apply_jaxpr_primitive, reduce_window_p, "jaxpr"))


@reduce_window_p.def_abstract_eval
def _reduce_window_abstract_eval(*avals, jaxpr, **params):
    n = len(avals) // 2
    ops, inits = avals[:n], avals[n:]
    if any(o.dtype != i.dtype for o, i in zip(ops, inits)):
        raise TypeError(f"reduce_window got inconsistent dtypes for operands and init_values: got "
                        f"operand dtypes {[o.dtype.name for o in ops]} and init_value dtypes "
                        f"{[i.dtype.name for i in inits]}.")
    if any(i.shape for i in inits):
        raise TypeError(f"reduce_window expected init_values to be scalars but init_values have "
                        f"shapes {[i.shape for i in inits]}.")
    if any(o.shape != ops[0].shape for o in ops):
        raise TypeError(f"reduce_window: operands must have equal shapes, got "
                        f"{[o.str_short() for o in ops]}")
    shape = _check_window_params("reduce_window", ops[0], **params)
    return [ShapedArray(shape, o.dtype) for o in ops]


def _np_eval_jaxpr(closed, *args):
    """A (reducer) jaxpr run on NumPy values with each primitive's NumPy reference."""
    env = {}
    read = lambda v: np.asarray(v.val) if type(v) is core.Literal else env[v]  # noqa: E731
    for v, c in zip(closed.jaxpr.constvars, closed.consts):
        env[v] = np.asarray(c)
    for v, a in zip(closed.jaxpr.invars, args):
        env[v] = a
    for eqn in closed.jaxpr.eqns:
        out = eqn.primitive.np_impl(*[read(v) for v in eqn.invars], **eqn.params)
        outs = out if eqn.primitive.multiple_results else [out]
        for v, o in zip(eqn.outvars, outs):
            env[v] = np.asarray(o).astype(v.aval.dtype)
    return [read(v) for v in closed.jaxpr.outvars]


def _np_reduce_window(*args, jaxpr, **params):
    n = len(args) // 2
    ops, inits = [np.asarray(a) for a in args[:n]], [np.asarray(a) for a in args[n:]]
    wins = [_np_windows(o, i, **params) for o, i in zip(ops, inits)]
    nd = ops[0].ndim
    out_shape = wins[0].shape[:nd]
    outs = [np.empty(out_shape, o.dtype) for o in ops]
    for pos in np.ndindex(*out_shape):
        acc = list(inits)
        for w in np.ndindex(*params["window_dimensions"]):
            acc = _np_eval_jaxpr(jaxpr, *acc, *[win[pos + w] for win in wins])
        for o, a in zip(outs, acc):
            o[pos] = a
    return outs


reduce_window_p.np_impl = _np_reduce_window


def _jvp_reducer(jaxpr, n):
    """The reducer over (primals, tangents): `(*acc_p, *acc_t), (*x_p, *x_t)` ->
    `(*out_p, *out_t)` by the JVP of `jaxpr`."""
    fun = core.jaxpr_as_fun(jaxpr)

    def reducer(acc, x):
        primals = list(acc[:n]) + list(x[:n])
        tangents = list(acc[n:]) + list(x[n:])
        outs, out_t = ad.jvp_flat(fun, primals, tangents)
        return tuple(outs) + tuple(ad.instantiate(t) for t in out_t)
    return reducer


@reduce_window_p.def_jvp
def _reduce_window_jvp(primals, tangents, *, jaxpr, **params):
    n = len(primals) // 2
    if any(type(t) is not Zero for t in tangents[n:]):
        raise TypeError("reduce_window: differentiating with respect to the init values is not "
                        "supported (as in JAX)")
    ops, inits = list(primals[:n]), list(primals[n:])
    t_ops = [ad.instantiate(t) for t in tangents[:n]]
    t_inits = [np.zeros((), core.get_aval(i).dtype) for i in inits]
    tree = tree_util.tree_structure(tuple(range(2 * n)))
    init_avals = [core.get_aval(v) for v in inits + t_inits]
    reducer_jaxpr = _trace_reducer("reduce_window", _jvp_reducer(jaxpr, n), init_avals, tree)
    outs = reduce_window_p.bind(*ops, *t_ops, *inits, *t_inits, jaxpr=reducer_jaxpr, **params)
    return outs[:n], outs[n:]


@reduce_window_p.def_batch
def _reduce_window_batch(axis_size, args, dims, *, jaxpr, **params):
    n = len(args) // 2
    if any(d is not not_mapped for d in dims[n:]):
        raise NotImplementedError("reduce_window: batching over the init values is not "
                                  "implemented (as in JAX)")
    ops = [bdim_at_front(a, d, axis_size) for a, d in zip(args[:n], dims[:n])]
    new = {k: ((0, 0),) + v if k == "padding" else (1,) + v for k, v in params.items()}
    return reduce_window_p.bind(*ops, *args[n:], jaxpr=jaxpr, **new), [0] * n


def _region_of_jaxpr(ctx, closed, scalar_avals):
    def body(*args):
        consts = [ctx.const(np.asarray(c), np.asarray(c).dtype, np.shape(c)) for c in closed.consts]
        return ctx.lower_jaxpr(closed.jaxpr, consts, list(args))
    return ctx.region(scalar_avals + scalar_avals, body)


@reduce_window_p.def_lowering
def _reduce_window_lowering(ctx, *args, jaxpr, **params):
    n = len(args) // 2
    scalars = [ShapedArray((), a.dtype) for a in ctx.avals_in[n:]]
    return ctx.op_multi("stablehlo.reduce_window", *args, attrs=_window_attrs(**params),
                        regions=[_region_of_jaxpr(ctx, jaxpr, scalars)])


# NB: like JAX, no transpose: reverse mode through a custom windowed reducer fails.


def reduce(operands, init_values, computation, dimensions):
    """Reduce `operands` (a pytree of arrays) over `dimensions` with `computation(acc, x)` from
    `init_values`. `lax.add`/`mul`/`max`/`min`/`bitwise_and`/`bitwise_or`/`bitwise_xor` with
    their identity use the reduce_sum/prod/max/min/and/or/xor primitives, as in JAX.

    >>> lax.reduce(jnp.arange(6.).reshape(2, 3), 0., lax.add, (1,))
    Array([ 3., 12.], dtype=float32)
    """
    flat_ops, flat_inits, tree = _flatten_operands("reduce", operands, init_values)
    dims = tuple(sorted(operator.index(d) for d in dimensions))
    if len(flat_ops) == 1:
        monoid = _monoid_of(computation, flat_inits[0], (
            (lax_elem.add, "sum", reduce_sum), (lax_elem.mul, "prod", reduce_prod),
            (lax_elem.max, "max", reduce_max), (lax_elem.min, "min", reduce_min),
            (lax_elem.bitwise_and, "and", reduce_and), (lax_elem.bitwise_or, "or", reduce_or),
            (lax_elem.bitwise_xor, "xor", reduce_xor)))
        if monoid is not None:
            return tree_util.tree_unflatten(tree, [monoid(flat_ops[0], dims)])
    init_avals = [core.get_aval(v) for v in flat_inits]
    jaxpr = _trace_reducer("reduce", computation, init_avals, tree)
    outs = reduce_p.bind(*flat_ops, *flat_inits, jaxpr=jaxpr, dimensions=dims)
    return tree_util.tree_unflatten(tree, outs)


# NB: JAX's reduce equation also carries the Python reducer (`computation=<function ...>`); pyjax's
# parameters are the traced reducer and the dimensions only, so equal reductions share a cache key.
reduce_p = Primitive("reduce", multiple_results=True)
reduce_p.def_impl(partial(apply_jaxpr_primitive, reduce_p, "jaxpr"))


@reduce_p.def_abstract_eval
def _reduce_abstract_eval(*avals, jaxpr, dimensions):
    n = len(avals) // 2
    ops, inits = avals[:n], avals[n:]
    if any(o.dtype != i.dtype for o, i in zip(ops, inits)) or any(i.shape for i in inits):
        raise TypeError(f"reduce: init_values must be scalars of the operands' dtypes, got "
                        f"operands {[o.str_short() for o in ops]} and init_values "
                        f"{[i.str_short() for i in inits]}")
    if any(o.shape != ops[0].shape for o in ops):
        raise TypeError(f"reduce: operands must have equal shapes, got {[o.str_short() for o in ops]}")
    if any(not 0 <= d < ops[0].ndim for d in dimensions) or len(set(dimensions)) != len(dimensions):
        raise ValueError(f"reduce: dimensions {dimensions} are not distinct axes of "
                         f"{ops[0].str_short()}")
    shape = tuple(s for i, s in enumerate(ops[0].shape) if i not in dimensions)
    return [ShapedArray(shape, o.dtype) for o in ops]


def _np_reduce(*args, jaxpr, dimensions):
    n = len(args) // 2
    ops, inits = [np.asarray(a) for a in args[:n]], [np.asarray(a) for a in args[n:]]
    nd = ops[0].ndim
    kept = [d for d in range(nd) if d not in dimensions]
    moved = [np.transpose(o, kept + list(dimensions)) for o in ops]
    out_shape = moved[0].shape[:len(kept)]
    outs = [np.empty(out_shape, o.dtype) for o in ops]
    for pos in np.ndindex(*out_shape):
        acc = list(inits)
        for w in np.ndindex(*moved[0].shape[len(kept):]):
            acc = _np_eval_jaxpr(jaxpr, *acc, *[m[pos + w] for m in moved])
        for o, a in zip(outs, acc):
            o[pos] = a
    return outs


reduce_p.np_impl = _np_reduce


@reduce_p.def_jvp
def _reduce_jvp(primals, tangents, *, jaxpr, dimensions):
    """As JAX: the reduction rewritten as rounds of the reducer applied to pairs (the first half
    of the reduced elements with the second, padded with the init value when odd) and that
    differentiated. The primal outputs then depend on the primal operands only, as linearize and
    vjp need (one reduce over primals and tangents together would tie them to the tangents)."""
    n = len(primals) // 2
    if any(type(t) is not Zero for t in tangents[n:]):
        raise TypeError("reduce: differentiating with respect to the init values is not supported")
    ops, inits = list(primals[:n]), list(primals[n:])
    shape = core.get_aval(ops[0]).shape
    kept = [d for d in range(len(shape)) if d not in dimensions]
    size, rest = math.prod(shape[d] for d in dimensions), tuple(shape[d] for d in kept)
    reducer = core.jaxpr_as_fun(jaxpr)

    def tree(*xs):
        xs = [reshape(transpose(x, tuple(dimensions) + tuple(kept)), (size, math.prod(rest))) for x in xs]
        while core.get_aval(xs[0]).shape[0] > 1:
            m = core.get_aval(xs[0]).shape[0]
            half = (m + 1) // 2
            lo = [slice_in_dim(x, 0, half) for x in xs]
            hi = [slice_in_dim(x, half, m) for x in xs]
            if m % 2:
                hi = [pad(h, i, ((0, 1, 0), (0, 0, 0))) for h, i in zip(hi, inits)]
            xs = _elementwise(reducer, lo + hi)
        if size == 0:
            return [broadcast_in_dim(i, rest, ()) for i in inits]
        return [reshape(x, rest) for x in xs]
    outs, out_t = ad.jvp_flat(tree, ops, [ad.instantiate(t) for t in tangents[:n]])
    return outs, [ad.instantiate(t) for t in out_t]


def _elementwise(scalar_fun, args):
    """`scalar_fun` (scalars in, scalars out) applied at every position of equal-shaped arrays."""
    shape = core.get_aval(args[0]).shape
    count = math.prod(shape)
    flat = [reshape(a, (count,)) for a in args]
    outs, dims = batch_flat(scalar_fun, flat, [0] * len(flat), AxisData(None, count))
    return [reshape(bdim_at_front(o, d, count), shape) for o, d in zip(outs, dims)]


@reduce_p.def_batch
def _reduce_batch(axis_size, args, dims, *, jaxpr, dimensions):
    n = len(args) // 2
    if any(d is not not_mapped for d in dims[n:]):
        raise NotImplementedError("reduce: batching over the init values is not implemented")
    ops = [bdim_at_front(a, d, axis_size) for a, d in zip(args[:n], dims[:n])]
    outs = reduce_p.bind(*ops, *args[n:], jaxpr=jaxpr, dimensions=tuple(d + 1 for d in dimensions))
    return outs, [0] * n


@reduce_p.def_lowering
def _reduce_lowering(ctx, *args, jaxpr, dimensions):
    n = len(args) // 2
    scalars = [ShapedArray((), a.dtype) for a in ctx.avals_in[n:]]
    return ctx.op_multi("stablehlo.reduce", *args, attrs={"dimensions": i64_array(dimensions)},
                        regions=[_region_of_jaxpr(ctx, jaxpr, scalars)])


# -- select_and_scatter: the general form (select and scatter given as scalar functions) --------

select_and_scatter_p = standard_primitive("select_and_scatter")


def _select_and_scatter(operand, select, window_dimensions, window_strides, padding, source,
                        init_value, scatter):
    """Scatter each element of `source` into the element of its window of `operand` that
    `select(a, b)` (True: keep `a`) picks, combining with `scatter(acc, x)` from `init_value`.
    (JAX has no public wrapper; max pooling's gradient is `select_and_scatter_add_p`.)"""
    aval = core.get_aval(init_value)
    scalar = ShapedArray((), aval.dtype)
    select_jaxpr, _ = pe.trace_to_jaxpr(lambda a, b: [select(a, b)], [scalar, scalar])
    scatter_jaxpr, _ = pe.trace_to_jaxpr(lambda a, b: [scatter(a, b)], [scalar, scalar])
    return select_and_scatter_p.bind(
        operand, source, init_value, select_jaxpr=select_jaxpr, scatter_jaxpr=scatter_jaxpr,
        window_dimensions=tuple(window_dimensions), window_strides=tuple(window_strides),
        padding=tuple(tuple(p) for p in padding))


@select_and_scatter_p.def_abstract_eval
def _select_and_scatter_abstract_eval(x, source, init, *, select_jaxpr, scatter_jaxpr,
                                      window_dimensions, window_strides, padding):
    ones = (1,) * x.ndim
    out = _check_window_params("select_and_scatter", x, window_dimensions, window_strides,
                               padding, ones, ones)
    if source.shape != out or init.shape != () or len({x.dtype, source.dtype, init.dtype}) > 1:
        raise TypeError(f"select_and_scatter: source {source.str_short()} must have the shape of "
                        f"the windows of operand {x.str_short()}, {out}, and init_value "
                        f"{init.str_short()} must be a scalar, all of one dtype")
    return ShapedArray(x.shape, x.dtype)


def _np_select_and_scatter(x, source, init, *, select_jaxpr, scatter_jaxpr, window_dimensions,
                           window_strides, padding):
    """Windows run over the padded operand; padding elements are never selected."""
    x, source = np.asarray(x), np.asarray(source)
    out = np.full(x.shape, np.asarray(init), x.dtype)
    for pos in np.ndindex(*source.shape):
        best = None
        for w in np.ndindex(*window_dimensions):
            at = tuple(p * s + o - lo for p, s, o, (lo, _) in zip(pos, window_strides, w, padding))
            if any(not 0 <= a < d for a, d in zip(at, x.shape)):
                continue
            if best is None or not _np_eval_jaxpr(select_jaxpr, x[best], x[at])[0]:
                best = at
        if best is not None:
            out[best] = _np_eval_jaxpr(scatter_jaxpr, out[best], source[pos])[0]
    return out


select_and_scatter_p.np_impl = _np_select_and_scatter


@select_and_scatter_p.def_batch
def _select_and_scatter_batch(axis_size, args, dims, **params):
    (x, source, init), (xd, sd, idim) = args, dims
    if idim is not not_mapped:
        raise NotImplementedError("select_and_scatter: batching over init_value is not implemented")
    x, source = bdim_at_front(x, xd, axis_size), bdim_at_front(source, sd, axis_size)
    new = dict(params, window_dimensions=(1,) + params["window_dimensions"],
               window_strides=(1,) + params["window_strides"], padding=((0, 0),) + params["padding"])
    return select_and_scatter_p.bind(x, source, init, **new), 0


@select_and_scatter_p.def_lowering
def _select_and_scatter_lowering(ctx, x, source, init, *, select_jaxpr, scatter_jaxpr,
                                 window_dimensions, window_strides, padding):
    scalar = ShapedArray((), ctx.avals_in[0].dtype)

    def region(closed):
        def body(a, b):
            consts = [ctx.const(np.asarray(c), np.asarray(c).dtype, np.shape(c)) for c in closed.consts]
            return ctx.lower_jaxpr(closed.jaxpr, consts, [a, b])
        return ctx.region([scalar, scalar], body)
    return ctx.op("stablehlo.select_and_scatter", x, source, init,
                  regions=[region(select_jaxpr), region(scatter_jaxpr)],
                  attrs={"padding": _padding_attr(padding),
                         "window_dimensions": i64_array(window_dimensions),
                         "window_strides": i64_array(window_strides)})

# NB: as in JAX, select_and_scatter_p has no JVP (its select and scatter are arbitrary functions).
