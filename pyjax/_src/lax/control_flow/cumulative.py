"""`associative_scan` (the parallel prefix algorithm) and the cumulative reductions
`cumsum/cumprod/cummax/cummin/cumlogsumexp`.

The cumulative reductions are primitives (`axis`, `reverse` params) lowered, as JAX does on CPU,
to a `stablehlo.reduce_window` whose window spans the whole axis (XLA rewrites it into an efficient
prefix computation). `cumsum` is linear (its transpose is the reverse cumsum); the others
differentiate through `associative_scan` of their combining function.
"""
from __future__ import annotations

from functools import partial

import numpy as np

from pyjax._src import core, tree_util
from pyjax._src.core import ShapedArray
from pyjax._src.interpreters import ad, batching
from pyjax._src.interpreters import partial_eval as pe
from pyjax._src.lax import elementwise as lax
from pyjax._src.lax import shape_ops
from pyjax._src.lax.control_flow.scan import scan
from pyjax._src.lax.reductions import reduction_identity
from pyjax._src.lax.utils import ANY, FLOAT, NUM, canonicalize_axis, check_dtype, standard_primitive
from pyjax._src.lowering import mlir
from pyjax._src.traceback_util import api_boundary

# -- associative_scan ---------------------------------------------------------------------------


@api_boundary
def associative_scan(fn, elems, reverse=False, axis=0):
    """All prefix combinations `fn(...fn(fn(e[0], e[1]), e[2])..., e[i])` along `axis`, in
    O(log n) depth; `fn` must be associative and work elementwise on slices (pytrees).

    Example:
        >>> lax.associative_scan(lax.add, jnp.arange(5))
        Array([ 0,  1,  3,  6, 10], dtype=int32)
    """
    flat, tree = tree_util.tree_flatten(elems)
    if not flat:
        return elems
    avals = [core.get_aval(x) for x in flat]
    axis = canonicalize_axis(axis, avals[0].ndim)
    sizes = {a.shape[axis] if a.ndim > axis else None for a in avals}
    if len(sizes) != 1 or None in sizes:
        raise ValueError(f"associative_scan: array inputs must have the same size along axis "
                         f"{axis}, got {[a.str_short() for a in avals]}")

    def combine(a, b):
        out = fn(tree_util.tree_unflatten(tree, a), tree_util.tree_unflatten(tree, b))
        out_flat, out_tree = tree_util.tree_flatten(out)
        if out_tree != tree:
            raise ValueError(f"associative_scan: fn must return the structure of its inputs "
                             f"{tree}, got {out_tree}")
        return out_flat

    if reverse:
        flat = [shape_ops.rev(x, (axis,)) for x in flat]
    out = _prefix_scan(combine, flat, axis)
    if reverse:
        out = [shape_ops.rev(x, (axis,)) for x in out]
    return tree_util.tree_unflatten(tree, out)


def _prefix_scan(combine, elems, axis):
    """Combine neighbours pairwise, scan the half-length result recursively (the prefixes at odd
    positions), then fill in the even positions from them."""
    n = core.get_aval(elems[0]).shape[axis]
    if n < 2:
        return elems
    sl = partial(_slice, axis=axis)
    odd = _prefix_scan(combine, combine([sl(e, 0, n - 1, 2) for e in elems],
                                        [sl(e, 1, n, 2) for e in elems]), axis)
    m = n // 2  # the number of odd positions
    if n % 2:
        even = combine(odd, [sl(e, 2, n, 2) for e in elems])
    elif n > 2:
        even = combine([sl(o, 0, m - 1, 1) for o in odd], [sl(e, 2, n, 2) for e in elems])
    else:
        even = None
    firsts = [sl(e, 0, 1, 1) for e in elems]
    even = firsts if even is None else [shape_ops.concatenate([f, e], axis) for f, e in zip(firsts, even)]
    return [_interleave(e, o, axis) for e, o in zip(even, odd)]


def _slice(x, start, limit, stride, axis):
    return shape_ops.slice_in_dim(x, start, limit, stride, axis)


def _interleave(a, b, axis):
    """`[a0, b0, a1, b1, ...]` along `axis` (len(a) is len(b) or len(b) + 1): each spread with
    interior zero padding, then summed (or or-ed for bools)."""
    aval = core.get_aval(a)
    na, nb = aval.shape[axis], core.get_aval(b).shape[axis]
    zero = np.zeros((), aval.dtype)
    cfg_a = [(0, 0, 0)] * aval.ndim
    cfg_b = [(0, 0, 0)] * aval.ndim
    cfg_a[axis] = (0, 1 if na == nb else 0, 1)
    cfg_b[axis] = (1, 0 if na == nb else 1, 1)
    op = lax.bitwise_or if aval.dtype == np.bool_ else lax.add
    return op(shape_ops.pad(a, zero, cfg_a), shape_ops.pad(b, zero, cfg_b))


# -- cumulative reductions ----------------------------------------------------------------------


def _logaddexp(x, y):
    """log(exp(x) + exp(y)), stable; equal infinities (where x - y is nan) give x + y."""
    amax = lax.max(x, y)
    delta = lax.sub(x, y)
    out = lax.add(amax, lax.log1p(lax.exp(lax.neg(lax.abs(delta)))))
    return lax.select_n(lax.ne(delta, delta), out, lax.add(x, y))


def _np_cumulative(np_accumulate, x, *, axis, reverse):
    x = np.asarray(x)
    if reverse:
        return np.flip(np_accumulate(np.flip(x, axis), axis=axis), axis)
    return np_accumulate(x, axis=axis)


def _cumulative_abstract_eval(name, accepted, x, *, axis, reverse):
    check_dtype(name, x, accepted)
    if not 0 <= axis < x.ndim:
        raise ValueError(f"{name}: axis {axis} is out of bounds for an operand of type {x.str_short()}")
    return x


def _cumulative_lowering(combine, ident, ctx, x, *, axis, reverse):
    aval = ctx.avals_in[0]
    n = aval.shape[axis]
    if n == 0:
        return x
    if type(n) in core.symbolic_dim_types:  # a symbolic axis (export): a scan along it
        return ctx.lower_fun(partial(_cumulative_by_scan, combine, ident, axis, reverse))(x)
    scalar = ShapedArray((), aval.dtype)
    closed, _ = pe.trace_to_jaxpr(lambda a, b: [combine(a, b)], [scalar, scalar])
    padding = np.zeros((aval.ndim, 2), np.int64)
    padding[axis] = (0, n - 1) if reverse else (n - 1, 0)
    ones = [1] * aval.ndim
    attrs = {"window_dimensions": mlir.i64_array([n if i == axis else 1 for i in range(aval.ndim)]),
             "window_strides": mlir.i64_array(ones), "base_dilations": mlir.i64_array(ones),
             "window_dilations": mlir.i64_array(ones),
             "padding": mlir.dense(padding, np.int64, padding.shape)}
    init = ctx.const(ident(aval.dtype), aval.dtype)
    region = ctx.region([scalar, scalar], lambda a, b: ctx.lower_jaxpr(closed.jaxpr, [], [a, b]))
    return ctx.op("stablehlo.reduce_window", x, init, attrs=attrs, regions=[region])


def _cumulative_by_scan(combine, ident, axis, reverse, x):
    perm = [axis] + [i for i in range(core.get_aval(x).ndim) if i != axis]
    xs = shape_ops.transpose(x, perm) if axis else x
    aval = core.get_aval(xs)
    init = shape_ops.broadcast_in_dim(np.asarray(ident(aval.dtype), aval.dtype), aval.shape[1:], ())
    _, ys = scan(lambda c, r: (combine(c, r),) * 2, init, xs, reverse=reverse)
    return shape_ops.transpose(ys, np.argsort(perm)) if axis else ys


def _cumulative_batch(prim, axis_size, args, dims, *, axis, reverse):
    (x,), (d,) = args, dims
    return prim.bind(x, axis=batching.raw_axis(axis, d), reverse=reverse), d


def _cumulative_jvp_via_scan(combine, primals, tangents, *, axis, reverse):
    return ad.jvp_flat(lambda x: [associative_scan(combine, x, reverse, axis)], primals,
                       [ad.instantiate(t) for t in tangents])


def cumulative_primitive(name, combine, np_accumulate, ident, accepted):
    p = standard_primitive(name, partial(_cumulative_abstract_eval, name, accepted),
                           partial(_np_cumulative, np_accumulate),
                           partial(_cumulative_lowering, combine, ident))
    p.def_batch(partial(_cumulative_batch, p))
    p.def_jvp(lambda primals, tangents, **params: tuple(
        o[0] for o in _cumulative_jvp_via_scan(combine, primals, tangents, **params)))
    return p


def _np_logaddexp_accumulate(x, axis):
    return np.logaddexp.accumulate(x, axis=axis)


cumsum_p = cumulative_primitive("cumsum", lax.add, np.cumsum, partial(reduction_identity, "sum"), NUM)
cumprod_p = cumulative_primitive("cumprod", lax.mul, np.cumprod, partial(reduction_identity, "prod"), NUM)
cummax_p = cumulative_primitive("cummax", lax.max, np.maximum.accumulate, partial(reduction_identity, "max"), ANY)
cummin_p = cumulative_primitive("cummin", lax.min, np.minimum.accumulate, partial(reduction_identity, "min"), ANY)
cumlogsumexp_p = cumulative_primitive("cumlogsumexp", _logaddexp, _np_logaddexp_accumulate,
                                      lambda dt: np.array(-np.inf, dt), FLOAT)
ad.deflinear(cumsum_p, lambda ct, x, *, axis, reverse: [
    ct if type(ct) is ad.Zero else cumsum_p.bind(ct, axis=axis, reverse=not reverse)])


def _cumulative(prim, operand, axis=0, reverse=False):
    aval = core.get_aval(operand)
    return prim.bind(operand, axis=canonicalize_axis(axis, aval.ndim), reverse=bool(reverse))


def cumsum(operand, axis=0, reverse=False):
    """Cumulative sum along `axis` (from the end when `reverse`).

    Example:
        >>> lax.cumsum(jnp.arange(4.0))
        Array([0., 1., 3., 6.], dtype=float32)
    """
    return _cumulative(cumsum_p, operand, axis, reverse)


def cumprod(operand, axis=0, reverse=False):
    """Cumulative product along `axis`: `lax.cumprod(jnp.array([1, 2, 3]))` is `[1, 2, 6]`."""
    return _cumulative(cumprod_p, operand, axis, reverse)


def cummax(operand, axis=0, reverse=False):
    """Cumulative maximum along `axis`: `lax.cummax(jnp.array([1, 3, 2]))` is `[1, 3, 3]`."""
    return _cumulative(cummax_p, operand, axis, reverse)


def cummin(operand, axis=0, reverse=False):
    """Cumulative minimum along `axis`: `lax.cummin(jnp.array([3, 1, 2]))` is `[3, 1, 1]`."""
    return _cumulative(cummin_p, operand, axis, reverse)


def cumlogsumexp(operand, axis=0, reverse=False):
    """Cumulative `log(sum(exp(x)))` along `axis`, computed stably."""
    return _cumulative(cumlogsumexp_p, operand, axis, reverse)
