"""`jax._src.lax_reference`: NumPy reference implementations of lax operations, with lax's
signatures, for JAX's tests (`lax_test` checks each lax operation against the function of the
same name here).

The elementwise operations are pyjax's own NumPy reference implementations (each primitive's
`np_impl`, the oracle pyjax's own tests use); the structural ones are written here in NumPy.
Names without a reference yet raise NotImplementedError when used."""
from __future__ import annotations

import builtins
import itertools

import numpy as np

from pyjax import lax
from pyjax._jax_compat._unsupported import module_getattr
from pyjax._src import dtypes


def _impl(prim, **params):
    def reference(*args):
        args = [np.asarray(a) for a in args]
        out = prim.np_impl(*args, **params)
        # as JAX's references (scipy's results .astype(x.dtype)): a real floating result has its
        # operand's dtype (np_impl may compute bfloat16/float16 in a wider type)
        if args and _real_float(np.result_type(out)) and _real_float(args[0].dtype):
            out = np.asarray(out).astype(args[0].dtype)
        return out
    reference.__name__ = prim.name
    return reference


def _real_float(dt):
    return dtypes.issubdtype(dt, np.floating)


neg, sign, floor, ceil = (_impl(p) for p in (lax.neg_p, lax.sign_p, lax.floor_p, lax.ceil_p))
round = _impl(lax.round_p, rounding_method=lax.RoundingMethod.AWAY_FROM_ZERO)  # noqa: A001
nextafter, is_finite = _impl(lax.nextafter_p), _impl(lax.is_finite_p)
exp, exp2, expm1, log, log1p = (_impl(p) for p in (lax.exp_p, lax.exp2_p, lax.expm1_p,
                                                    lax.log_p, lax.log1p_p))
tanh, logistic, sin, cos, atan2 = (_impl(p) for p in (lax.tanh_p, lax.logistic_p, lax.sin_p,
                                                       lax.cos_p, lax.atan2_p))
sqrt, rsqrt, cbrt, square = (_impl(p) for p in (lax.sqrt_p, lax.rsqrt_p, lax.cbrt_p,
                                                 lax.square_p))
tan, asin, acos, atan = (_impl(p) for p in (lax.tan_p, lax.asin_p, lax.acos_p, lax.atan_p))
sinh, cosh, asinh, acosh, atanh = (_impl(p) for p in (lax.sinh_p, lax.cosh_p, lax.asinh_p,
                                                      lax.acosh_p, lax.atanh_p))
lgamma, digamma, igamma, igammac = (_impl(p) for p in (lax.lgamma_p, lax.digamma_p,
                                                       lax.igamma_p, lax.igammac_p))
betainc = _impl(lax.regularized_incomplete_beta_p)
erf, erfc, erf_inv = _impl(lax.erf_p), _impl(lax.erfc_p), _impl(lax.erf_inv_p)
bessel_i0e, bessel_i1e = _impl(lax.bessel_i0e_p), _impl(lax.bessel_i1e_p)
real, imag, complex = _impl(lax.real_p), _impl(lax.imag_p), _impl(lax.complex_p)  # noqa: A001
abs, pow = _impl(lax.abs_p), _impl(lax.pow_p)  # noqa: A001
bitwise_not, bitwise_and = _impl(lax.not_p), _impl(lax.and_p)
bitwise_or, bitwise_xor = _impl(lax.or_p), _impl(lax.xor_p)
population_count, clz = _impl(lax.population_count_p), _impl(lax.clz_p)
add, sub, mulhi, div, rem = (_impl(p) for p in (lax.add_p, lax.sub_p, lax.mulhi_p, lax.div_p,
                                                lax.rem_p))
max, min = _impl(lax.max_p), _impl(lax.min_p)  # noqa: A001
eq, ne, ge, gt, le, lt = (_impl(p) for p in (lax.eq_p, lax.ne_p, lax.ge_p, lax.gt_p, lax.le_p,
                                             lax.lt_p))


def conj(x):
    """lax.conj of a real operand is complex (as lax's)."""
    x = np.asarray(x)
    return np.conj(x) + np.complex64(0)


def reciprocal(x):
    x = np.asarray(x)
    return (np.ones((), x.dtype) / x).astype(x.dtype)


def mul(x, y, /, *, out_dtype=None):
    if out_dtype is not None:
        x, y = np.asarray(x).astype(out_dtype), np.asarray(y).astype(out_dtype)
    return lax.mul_p.np_impl(np.asarray(x), np.asarray(y))


# -- structural operations ------------------------------------------------------------------------

def convert_element_type(operand, dtype):
    return np.asarray(operand).astype(dtypes.canonicalize_dtype(dtype))


def bitcast_convert_type(operand, dtype):
    """The bits reinterpreted (pyjax's NumPy implementation: 4-bit types two to a byte)."""
    return lax.bitcast_convert_type_p.np_impl(np.asarray(operand), new_dtype=np.dtype(dtype))


def clamp(min, operand, max):  # noqa: A002
    return np.clip(operand, min, max).astype(np.asarray(operand).dtype)


def select(pred, on_true, on_false):
    return np.where(pred, on_true, on_false)


def concatenate(operands, dimension):
    return np.concatenate(operands, axis=dimension)


def broadcast(operand, sizes):
    operand = np.asarray(operand)
    return np.broadcast_to(operand, tuple(sizes) + operand.shape)


def broadcast_in_dim(operand, shape, broadcast_dimensions):
    operand = np.asarray(operand)
    in_shape = [1] * len(shape)
    for i, d in enumerate(broadcast_dimensions):
        in_shape[d] = operand.shape[i]
    return np.broadcast_to(operand.reshape(in_shape), shape)


def reshape(operand, new_sizes, dimensions=None):
    operand = np.asarray(operand)
    if dimensions is not None:
        operand = np.transpose(operand, dimensions)
    return np.reshape(operand, new_sizes)


def squeeze(array, dimensions):
    return np.squeeze(array, tuple(dimensions))


def transpose(operand, permutation):
    return np.transpose(operand, permutation)


def slice(operand, start_indices, limit_indices, strides=None):  # noqa: A001
    strides = strides or [1] * len(start_indices)
    return np.asarray(operand)[tuple(builtins.slice(s, e, k) for s, e, k in
                                     zip(start_indices, limit_indices, strides))]


def _clamped_starts(shape, starts, sizes):
    return [builtins.min(builtins.max(int(s), 0), d - n) for s, d, n in zip(starts, shape, sizes)]


def dynamic_slice(operand, start_indices, slice_sizes):
    operand = np.asarray(operand)
    starts = _clamped_starts(operand.shape, start_indices, slice_sizes)
    return operand[tuple(builtins.slice(s, s + n) for s, n in zip(starts, slice_sizes))]


def dynamic_update_slice(operand, update, start_indices):
    out, update = np.array(operand), np.asarray(update)
    starts = _clamped_starts(out.shape, start_indices, update.shape)
    out[tuple(builtins.slice(s, s + n) for s, n in zip(starts, update.shape))] = update
    return out


def pad(operand, padding_value, padding_config):
    """lax.pad: low/high padding (negative crops) and interior padding per axis."""
    operand = np.asarray(operand)
    for axis, (lo, hi, interior) in enumerate(padding_config):
        n = operand.shape[axis]
        if interior and n:
            shape = list(operand.shape)
            shape[axis] = n + (n - 1) * interior
            spread = np.full(shape, padding_value, operand.dtype)
            index = [builtins.slice(None)] * operand.ndim
            index[axis] = builtins.slice(None, None, interior + 1)
            spread[tuple(index)] = operand
            operand = spread
        widths = [(0, 0)] * operand.ndim
        widths[axis] = (builtins.max(lo, 0), builtins.max(hi, 0))
        operand = np.pad(operand, widths, constant_values=padding_value)
        index = [builtins.slice(None)] * operand.ndim
        index[axis] = builtins.slice(-lo if lo < 0 else None,
                                     operand.shape[axis] + hi if hi < 0 else None)
        operand = operand[tuple(index)]
    return operand


def dot(lhs, rhs):
    return np.dot(lhs, rhs)


def dot_general(lhs, rhs, dimension_numbers):
    """Batch dimensions first, then lhs's free dimensions, then rhs's."""
    (lc, rc), (lb, rb) = dimension_numbers
    lhs, rhs = np.asarray(lhs), np.asarray(rhs)
    letters = iter("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ")
    lhs_names = [next(letters) for _ in range(lhs.ndim)]
    rhs_names = [next(letters) for _ in range(rhs.ndim)]
    for i, j in itertools.chain(zip(lc, rc), zip(lb, rb)):
        rhs_names[j] = lhs_names[i]
    out = ([lhs_names[i] for i in lb] + [n for i, n in enumerate(lhs_names) if i not in lc
                                         and i not in lb]
           + [n for j, n in enumerate(rhs_names) if j not in rc and j not in rb])
    return np.einsum(f"{''.join(lhs_names)},{''.join(rhs_names)}->{''.join(out)}", lhs, rhs)


def sort(operand, dimension=-1, kind="stable"):
    """np.sort (JAX's reference is np.sort itself: `kind` as NumPy's)."""
    return np.sort(operand, axis=dimension, kind=kind)


def sort_key_val(keys, values, dimension=-1):
    idx = np.argsort(keys, axis=dimension, kind="stable")
    return (np.take_along_axis(np.asarray(keys), idx, dimension),
            np.take_along_axis(np.asarray(values), idx, dimension))


def top_k(operand, k):
    """The k largest along the last axis, and their indices (the first index on ties)."""
    operand = np.asarray(operand)
    key = operand.astype(np.float64) if operand.dtype.kind in "biu" else operand
    idx = np.argsort(-key, axis=-1, kind="stable")[..., :k]
    return np.take_along_axis(operand, idx, -1), idx.astype(np.int32)


def padtype_to_pads(in_shape, filter_shape, window_strides, padding):
    """(low, high) padding per spatial axis for 'SAME' / 'SAME_LOWER' / 'VALID'."""
    mode = padding.upper()
    if mode not in ("SAME", "SAME_LOWER"):
        return [(0, 0)] * len(in_shape)
    pads = []
    for n, k, s in zip(in_shape, filter_shape, window_strides):
        total = builtins.max((-(-n // s) - 1) * s + k - n, 0)
        small, big = total // 2, total - total // 2
        pads.append((small, big) if mode == "SAME" else (big, small))
    return pads


def _windows(x, window, strides):
    """The strided windows of `x` over its trailing len(window) axes (window axes last)."""
    axes = tuple(range(x.ndim - len(window), x.ndim))
    view = np.lib.stride_tricks.sliding_window_view(x, tuple(window), axis=axes)
    return view[(builtins.slice(None),) * (x.ndim - len(window))
                + tuple(builtins.slice(None, None, s) for s in strides)]


def _wide(x):
    """The dtype to compute a reference in (float64 / complex128 for floats)."""
    return np.complex128 if np.iscomplexobj(x) else np.float64 if x.dtype.kind == "f" or \
        x.dtype == dtypes.bfloat16 else x.dtype


def conv_with_general_padding(lhs, rhs, window_strides, padding, lhs_dilation, rhs_dilation):
    """lax.conv_with_general_padding (NCHW / OIHW): the dilated, padded lhs correlated with the
    dilated rhs at the strides."""
    lhs, rhs = np.asarray(lhs), np.asarray(rhs)
    nd = rhs.ndim - 2
    lhs_dilation, rhs_dilation = lhs_dilation or (1,) * nd, rhs_dilation or (1,) * nd
    x = pad(lhs.astype(_wide(lhs)), 0, [(0, 0, 0)] * 2
            + [(lo, hi, d - 1) for (lo, hi), d in zip(padding, lhs_dilation)])
    w = pad(rhs.astype(_wide(rhs)), 0, [(0, 0, 0)] * 2 + [(0, 0, d - 1) for d in rhs_dilation])
    view = _windows(x, w.shape[2:], window_strides)   # (n, i, out..., k...)
    out = np.tensordot(view, w, axes=([1, *range(2 + nd, 2 + 2 * nd)], [1, *range(2, 2 + nd)]))
    return np.moveaxis(out, -1, 1).astype(np.result_type(lhs, rhs))


def conv(lhs, rhs, window_strides, padding):
    """lax.conv: padding 'SAME'/'VALID' or (low, high) pairs, no dilation."""
    lhs, rhs = np.asarray(lhs), np.asarray(rhs)
    if isinstance(padding, str):
        padding = padtype_to_pads(lhs.shape[2:], rhs.shape[2:], window_strides, padding)
    return conv_with_general_padding(lhs, rhs, window_strides, padding, None, None)


def reduce_window(operand, init_value, computation, window_dimensions, window_strides, padding,
                  base_dilation):
    """lax.reduce_window with a NumPy binary reduction (np.add, np.maximum, ...): the operand
    dilated and padded with `init_value`, each strided window reduced from `init_value`."""
    operand = np.asarray(operand)
    dims, strides = tuple(window_dimensions), tuple(window_strides)
    if isinstance(padding, str):
        padding = padtype_to_pads(operand.shape, dims, strides, padding)
    dilation = base_dilation or (1,) * operand.ndim
    x = pad(operand, np.asarray(init_value, operand.dtype),
            [(lo, hi, d - 1) for (lo, hi), d in zip(padding or [(0, 0)] * operand.ndim, dilation)])
    view = _windows(x, dims, strides or (1,) * operand.ndim)
    flat = view.reshape(view.shape[:operand.ndim] + (-1,))
    init = np.full(flat.shape[:-1], init_value, operand.dtype)
    reduce = getattr(computation, "reduce", None)
    if reduce is not None:
        return computation(init, reduce(flat, axis=-1)).astype(operand.dtype)
    out = init
    for i in range(flat.shape[-1]):
        out = computation(out, flat[..., i])
    return np.asarray(out, operand.dtype)


def ragged_dot(lhs, rhs, group_sizes):
    """lax.ragged_dot: consecutive row groups of lhs [m, k] times their rhs [g, k, n] slice."""
    lhs, rhs, group_sizes = np.asarray(lhs), np.asarray(rhs), np.asarray(group_sizes)
    out = np.zeros((lhs.shape[0], rhs.shape[2]), lhs.dtype)
    start = 0
    for g, size in enumerate(group_sizes):
        rows = builtins.slice(start, builtins.min(start + int(size), lhs.shape[0]))
        wide = lhs[rows].astype(_wide(lhs)) @ rhs[g].astype(_wide(rhs))
        out[rows] = wide.astype(lhs.dtype)
        start += int(size)
    return out


__getattr__ = module_getattr("jax._src.lax_reference")
