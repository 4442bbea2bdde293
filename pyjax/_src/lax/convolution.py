"""`conv_general_dilated`, the general N-d convolution, and the helpers built on it (`conv`,
`conv_with_general_padding`, `conv_transpose`, the shape and dimension-number utilities).

`dimension_numbers` is canonical in the primitive's parameters: a `ConvDimensionNumbers` of three
permutations `(batch/out-feature dim, feature/in-feature dim, spatial dims...)` of lhs, rhs and
the output, the spatial dims listed in the order of the kernel's. With `lhs_dilation` (a
"transposed" convolution) zeros are inserted between input elements, with `rhs_dilation`
("atrous") between kernel taps. `feature_group_count = G` splits the input features (and the
kernel's output features) into G groups convolved separately; `batch_group_count = G` splits the
batch the same way (the form the kernel's gradient of a grouped convolution takes).

Rules, in order: wrapper, abstract eval (JAX's checks), NumPy reference (windows by
`sliding_window_view` and an einsum per group), JVP (bilinear) and the transposes for lhs and rhs
(convolutions of the cotangent, with the groups moved as JAX does), batching (the vmapped axis
folded into the batch or feature dimensions) and lowering (`stablehlo.convolution`; complex
operands as three real convolutions, as JAX does on CPU).
"""
from __future__ import annotations

import operator
from functools import partial
from typing import NamedTuple, Sequence, Union

import numpy as np

from pyjax._src import core
from pyjax._src.core import ShapedArray
from pyjax._src.interpreters import ad
from pyjax._src.interpreters.ad import Zero
from pyjax._src.lax.convert import convert_element_type
from pyjax._src.lax.dot_general import _bit_width, canonicalize_precision, dot_general, Precision
from pyjax._src.lax.elementwise import add, complex as lax_complex, imag, real, sub
from pyjax._src.lax.shape_ops import broadcast_in_dim, reshape, rev, transpose
from pyjax._src.lax.utils import NUM, check_dtype, kind, np_dtype_param, standard_primitive
from pyjax._src.lowering.mlir import i64_array

# -- dimension numbers ---------------------------------------------------------------------------


class ConvDimensionNumbers(NamedTuple):
    """Where the batch, feature and spatial dimensions of a convolution's arrays are:
    `lhs_spec = (batch dim, feature dim, spatial dims...)`, `rhs_spec = (out feature dim, in
    feature dim, spatial dims...)`, `out_spec = (batch dim, feature dim, spatial dims...)`."""
    lhs_spec: Sequence[int]
    rhs_spec: Sequence[int]
    out_spec: Sequence[int]


ConvGeneralDilatedDimensionNumbers = Union[tuple[str, str, str], ConvDimensionNumbers, None]


def conv_dimension_numbers(lhs_shape, rhs_shape, dimension_numbers) -> ConvDimensionNumbers:
    """`dimension_numbers` (None, three strings like `('NCHW', 'OIHW', 'NCHW')`, or a
    `ConvDimensionNumbers`) as a `ConvDimensionNumbers`. None means `('NC...', 'OI...', 'NC...')`.

    >>> lax.conv_dimension_numbers((1, 5, 5, 3), (3, 3, 3, 8), ('NHWC', 'HWIO', 'NHWC'))
    ConvDimensionNumbers(lhs_spec=(0, 3, 1, 2), rhs_spec=(3, 2, 0, 1), out_spec=(0, 3, 1, 2))
    """
    if isinstance(dimension_numbers, ConvDimensionNumbers):
        return ConvDimensionNumbers(*(tuple(int(d) for d in s) for s in dimension_numbers))
    if len(lhs_shape) != len(rhs_shape):
        raise TypeError(f"convolution requires lhs and rhs ndim to be equal, got "
                        f"{len(lhs_shape)} and {len(rhs_shape)} (shapes {tuple(lhs_shape)} and "
                        f"{tuple(rhs_shape)})")
    if dimension_numbers is None:
        iota = tuple(range(len(lhs_shape)))
        return ConvDimensionNumbers(iota, iota, iota)
    if not isinstance(dimension_numbers, (list, tuple)):
        raise TypeError(f"convolution dimension_numbers must be tuple/list or None, got "
                        f"{type(dimension_numbers)}")
    if len(dimension_numbers) != 3:
        raise TypeError(f"convolution dimension_numbers list/tuple must be length 3, got "
                        f"{len(dimension_numbers)}")
    if not all(isinstance(s, str) for s in dimension_numbers):
        raise TypeError(f"convolution dimension_numbers elements must be strings, got "
                        f"{tuple(type(s).__name__ for s in dimension_numbers)}")
    for i, s in enumerate(dimension_numbers):
        if len(s) != len(lhs_shape):
            raise TypeError(f"convolution dimension_numbers[{i}] must have len equal to the ndim "
                            f"of lhs and rhs, got {len(s)} for lhs and rhs shapes "
                            f"{tuple(lhs_shape)} and {tuple(rhs_shape)}")
    return ConvDimensionNumbers(*conv_general_permutations(dimension_numbers))


_SPEC_CHARS = (("N", "C"), ("O", "I"), ("N", "C"))


def conv_general_permutations(dimension_numbers):
    """The permutations `(lhs, rhs, out)` that the strings `dimension_numbers` stand for: each
    lists the positions of N/O, C/I, then the spatial characters in the kernel string's order."""
    lhs_s, rhs_s, out_s = dimension_numbers
    for i, (spec, (a, b)) in enumerate(zip(dimension_numbers, _SPEC_CHARS)):
        if spec.count(a) != 1 or spec.count(b) != 1:
            raise TypeError(f"convolution dimension_numbers[{i}] must contain the characters "
                            f"'{a}' and '{b}' exactly once, got {spec}.")
        if len(set(spec)) != len(spec):
            raise TypeError(f"convolution dimension_numbers[{i}] cannot have duplicate "
                            f"characters, got {spec}.")
    spatial = [set(s) - set(c) for s, c in zip(dimension_numbers, _SPEC_CHARS)]
    if not spatial[0] == spatial[1] == spatial[2]:
        raise TypeError(f"convolution dimension_numbers elements must each have the same set of "
                        f"spatial characters, got {tuple(dimension_numbers)}.")
    rhs_order = [c for c in rhs_s if c not in "OI"]

    def perm(spec, chars):
        return (spec.index(chars[0]), spec.index(chars[1])) + tuple(spec.index(c) for c in rhs_order)
    return tuple(perm(s, c) for s, c in zip(dimension_numbers, _SPEC_CHARS))


# -- shapes and padding --------------------------------------------------------------------------


def padtype_to_pads(in_shape, window_shape, window_strides, padding) -> list:
    """`(low, high)` pads per dimension for 'VALID' (none), 'SAME' (the output has
    `ceil(in / stride)` elements; an odd pad puts the extra element at the end) or 'SAME_LOWER'
    (the extra element at the start).

    >>> lax.padtype_to_pads((5,), (2,), (1,), 'SAME')
    [(0, 1)]
    """
    name = padding.name if hasattr(padding, "name") else padding
    if not isinstance(name, str) or name.upper() not in ("VALID", "SAME", "SAME_LOWER"):
        if isinstance(name, str):
            raise RuntimeError(f"Unrecognized padding type: expected 'VALID', 'SAME', or "
                               f"'SAME_LOWER', got {padding}.")
        raise TypeError(f"Unknown padding type: {padding}.")
    name = name.upper()
    if name == "VALID":
        return [(0, 0)] * len(in_shape)
    pads = []
    for d, w, s in zip(in_shape, window_shape, window_strides, strict=True):
        out = -(-int(d) // int(s))
        total = max((out - 1) * int(s) + int(w) - int(d), 0)
        small, big = total // 2, total - total // 2
        pads.append((small, big) if name == "SAME" else (big, small))
    return pads


def _dilate_shape(shape, dilation):
    return tuple(0 if d == 0 else 1 + r * (d - 1) for d, r in zip(shape, dilation, strict=True))


def _stride_dim(size, window, stride):
    return max(0, (size - window) // stride + 1) if size >= window else 0


def conv_shape_tuple(lhs_shape, rhs_shape, strides, pads, batch_group_count=1):
    """The output shape of a convolution of arrays in the canonical layouts `(N, C, spatial...)`
    and `(O, I, spatial...)`, with `pads` a padding string or `(low, high)` pairs."""
    if isinstance(pads, str):
        pads = padtype_to_pads(lhs_shape[2:], rhs_shape[2:], strides, pads)
    if len(pads) != len(lhs_shape) - 2:
        raise TypeError(f"Wrong number of explicit pads for convolution: expected "
                        f"{len(lhs_shape) - 2}, got {len(pads)}.")
    padded = [int(d) + lo + hi for d, (lo, hi) in zip(lhs_shape[2:], pads)]
    if any(p < 0 for p in padded):
        raise ValueError(f"Negative padding is larger than the size of the corresponding "
                         f"dimension: got padding={tuple(pads)} for lhs_shape[2:]={tuple(lhs_shape[2:])}")
    space = tuple(_stride_dim(p, int(k), int(s)) for p, k, s in zip(padded, rhs_shape[2:], strides))
    return (lhs_shape[0] // batch_group_count, int(rhs_shape[0])) + space  # (a symbolic batch)


def conv_general_shape_tuple(lhs_shape, rhs_shape, window_strides, padding, dimension_numbers):
    """`conv_shape_tuple` for arrays laid out as `dimension_numbers` (strings or
    `ConvDimensionNumbers`)."""
    lhs_perm, rhs_perm, out_perm = _perms(dimension_numbers)
    out = conv_shape_tuple(np.take(lhs_shape, lhs_perm), np.take(rhs_shape, rhs_perm),
                           window_strides, padding)
    return tuple(int(out[i]) for i in np.argsort(out_perm))


def _perms(dimension_numbers):
    if isinstance(dimension_numbers, ConvDimensionNumbers):
        return dimension_numbers
    return conv_general_permutations(dimension_numbers)


def _conv_transpose_padding(k, s, padding):
    """(before, after) padding of one dimension of `conv_transpose`, from the padding of the
    forward convolution it undoes."""
    if padding == "SAME":
        total = k + s - 2
        before = k - 1 if s > k - 1 else -(-total // 2)
    elif padding == "VALID":
        total = k + s - 2 + max(k - s, 0)
        before = k - 1
    elif isinstance(padding, tuple):
        before, after = k - padding[0] - 1, k - padding[1] - 1
        total = before + after
    else:
        raise ValueError(f"Invalid padding mode: {padding}")
    return before, total - before


def conv_transpose_shape_tuple(lhs_shape, rhs_shape, window_strides, padding, dimension_numbers):
    """The output shape of `conv_transpose` with these arguments."""
    lhs_perm, rhs_perm, out_perm = _perms(dimension_numbers)
    lhs_t, rhs_t = np.take(lhs_shape, lhs_perm), np.take(rhs_shape, rhs_perm)
    if isinstance(padding, str):
        padding = [_conv_transpose_padding(int(k), int(s), padding)
                   for k, s in zip(rhs_t[2:], window_strides)]
    space = [(int(i) - 1) * int(s) - int(k) + 2 + int(sum(p))
             for i, k, s, p in zip(lhs_t[2:], rhs_t[2:], window_strides, padding)]
    out = (int(lhs_t[0]), int(rhs_t[0])) + tuple(space)
    return tuple(out[i] for i in np.argsort(out_perm))


# -- the primitive -------------------------------------------------------------------------------

conv_general_dilated_p = standard_primitive("conv_general_dilated")


def _int_seq(values, what, n):
    try:
        out = tuple(operator.index(v) for v in values)
    except TypeError:
        raise TypeError(f"conv_general_dilated: {what} must be a sequence of integers, got "
                        f"{values!r}") from None
    if n is not None and len(out) != n:
        raise ValueError(f"conv_general_dilated: {what} must have {n} entries (one per spatial "
                         f"dimension), got {values!r}")
    return out


def conv_general_dilated(lhs, rhs, window_strides, padding, lhs_dilation=None, rhs_dilation=None,
                         dimension_numbers=None, feature_group_count=1, batch_group_count=1,
                         precision=None, preferred_element_type=None, out_sharding=None):
    """General N-d convolution with strides, padding ('SAME', 'SAME_LOWER', 'VALID' or
    `(low, high)` pairs), input (`lhs_dilation`) and kernel (`rhs_dilation`) dilation, and
    feature/batch groups. `dimension_numbers`: None (`('NCHW', 'OIHW', 'NCHW')` for 2-d),
    three strings, or a `ConvDimensionNumbers`.

    >>> x = jnp.ones((1, 1, 4, 4)); k = jnp.ones((1, 1, 2, 2))
    >>> lax.conv_general_dilated(x, k, (1, 1), 'VALID').shape
    (1, 1, 3, 3)
    """
    la, ra = core.get_aval(lhs), core.get_aval(rhs)
    dnums = conv_dimension_numbers(la.shape, ra.shape, dimension_numbers)
    nsp = la.ndim - 2
    lhs_dilation = (1,) * nsp if lhs_dilation is None else _int_seq(lhs_dilation, "lhs_dilation", None)
    rhs_dilation = (1,) * nsp if rhs_dilation is None else _int_seq(rhs_dilation, "rhs_dilation", None)
    window_strides = _int_seq(window_strides, "window_strides", None)
    if isinstance(padding, str):
        if any(d != 1 for d in lhs_dilation):
            raise ValueError("conv_general_dilated: string padding is not implemented for "
                             "transposed convolutions (lhs_dilation > 1): give the padding as "
                             "(low, high) pairs, or use lax.conv_transpose")
        kernel = [ra.shape[d] for d in dnums.rhs_spec[2:]]
        padding = padtype_to_pads([la.shape[d] for d in dnums.lhs_spec[2:]],
                                  _dilate_shape(kernel, rhs_dilation), window_strides, padding)
    try:
        padding = tuple((operator.index(lo), operator.index(hi)) for lo, hi in padding)
    except (TypeError, ValueError):
        raise ValueError(f"padding argument to conv_general_dilated should be a string or a "
                         f"sequence of (low, high) pairs, got {padding}") from None
    pet = None if preferred_element_type is None else np_dtype_param(preferred_element_type)
    return conv_general_dilated_p.bind(
        lhs, rhs, window_strides=window_strides, padding=padding, lhs_dilation=lhs_dilation,
        rhs_dilation=rhs_dilation, dimension_numbers=dnums,
        feature_group_count=operator.index(feature_group_count),
        batch_group_count=operator.index(batch_group_count),
        precision=canonicalize_precision(precision), preferred_element_type=pet,
        out_sharding=None)  # NB: one device: the output sharding is always None (JAX prints it)


def conv(lhs, rhs, window_strides, padding, precision=None, preferred_element_type=None):
    """`conv_general_dilated` in the NCHW/OIHW layout, without dilation or groups."""
    return conv_general_dilated(lhs, rhs, window_strides, padding, precision=precision,
                                preferred_element_type=preferred_element_type)


def conv_with_general_padding(lhs, rhs, window_strides, padding, lhs_dilation, rhs_dilation,
                              precision=None, preferred_element_type=None):
    """`conv_general_dilated` in the NCHW/OIHW layout, with dilations."""
    return conv_general_dilated(lhs, rhs, window_strides, padding, lhs_dilation=lhs_dilation,
                                rhs_dilation=rhs_dilation, precision=precision,
                                preferred_element_type=preferred_element_type)


_TRANSPOSE_DEFAULT_DNUMS = {2: ("NC", "IO", "NC"), 3: ("NHC", "HIO", "NHC"),
                            4: ("NHWC", "HWIO", "NHWC"), 5: ("NHWDC", "HWDIO", "NHWDC")}


def conv_transpose(lhs, rhs, strides, padding, rhs_dilation=None, dimension_numbers=None,
                   transpose_kernel=False, precision=None, preferred_element_type=None,
                   use_consistent_padding=False):
    """A fractionally strided ("transposed") convolution: the input dilated by `strides`.
    'SAME'/'VALID' (and, with `use_consistent_padding`, pairs) name the padding of the forward
    convolution this one transposes; otherwise pairs pad the transposed convolution itself.
    `transpose_kernel` flips the kernel's spatial axes and swaps its I/O axes (as Keras'
    Conv2DTranspose). The default layout is TensorFlow's (NHWC, HWIO, NHWC)."""
    la, ra = core.get_aval(lhs), core.get_aval(rhs)
    if la.ndim != ra.ndim or la.ndim < 2:
        raise ValueError(f"conv_transpose: lhs and rhs must have the same rank >= 2, got "
                         f"{la.str_short()} and {ra.str_short()}")
    if dimension_numbers is None:
        if la.ndim not in _TRANSPOSE_DEFAULT_DNUMS:
            raise ValueError("No 4+ dimensional dimension_number defaults.")
        dimension_numbers = _TRANSPOSE_DEFAULT_DNUMS[la.ndim]
    dn = conv_dimension_numbers(la.shape, ra.shape, dimension_numbers)
    kernel = [ra.shape[d] for d in dn.rhs_spec[2:]]
    rhs_dilation = (1,) * (ra.ndim - 2) if rhs_dilation is None else tuple(rhs_dilation)
    if use_consistent_padding or (isinstance(padding, str) and padding in ("SAME", "VALID")):
        per_dim = [padding] * len(strides) if isinstance(padding, str) else [tuple(p) for p in padding]
        pads = tuple(_conv_transpose_padding(k, s, p) for k, s, p in
                     zip(_dilate_shape(kernel, rhs_dilation), strides, per_dim))
    else:
        pads = padding
    if transpose_kernel:
        rhs = rev(rhs, dn.rhs_spec[2:])
        perm = list(range(ra.ndim))
        perm[dn.rhs_spec[0]], perm[dn.rhs_spec[1]] = perm[dn.rhs_spec[1]], perm[dn.rhs_spec[0]]
        rhs = transpose(rhs, perm)
    return conv_general_dilated(lhs, rhs, (1,) * (la.ndim - 2), pads, strides, rhs_dilation, dn,
                                precision=precision, preferred_element_type=preferred_element_type)


# -- abstract eval -------------------------------------------------------------------------------


def _conv_out_dtype(lhs, rhs, preferred_element_type):
    if lhs.dtype != rhs.dtype:
        raise TypeError(f"conv_general_dilated: lhs and rhs must have the same dtype, got "
                        f"{lhs.str_short()} and {rhs.str_short()} (jax.numpy functions promote; "
                        f"lax does not)")
    pet = preferred_element_type
    if pet is None or pet == lhs.dtype:
        return lhs.dtype
    if kind(lhs.dtype) != kind(pet) and not (kind(lhs.dtype) in "iu" and kind(pet) in "iu"):
        raise TypeError(f"conv_general_dilated: preferred_element_type {np.dtype(pet).name} must "
                        f"be of the kind of the operands' dtype {lhs.dtype.name}")
    if _bit_width(pet) < _bit_width(lhs.dtype):
        raise TypeError(f"conv_general_dilated: preferred_element_type {np.dtype(pet).name} is "
                        f"narrower than the operands' dtype {lhs.dtype.name}")
    return np.dtype(pet)


def _check_groups(lhs, rhs, dn, fgc, bgc):
    name = "conv_general_dilated"
    if fgc <= 0:
        raise ValueError(f"{name} feature_group_count must be a positive integer, got {fgc}.")
    if bgc <= 0:
        raise ValueError(f"{name} batch_group_count must be a positive integer, got {bgc}.")
    if fgc > 1 and bgc > 1:
        raise ValueError(f"At most one of batch_group_count and feature_group_count may be > 1, "
                         f"got batch_group_count={bgc} and feature_group_count={fgc}")
    c_in, i_k, o_k = lhs.shape[dn.lhs_spec[1]], rhs.shape[dn.rhs_spec[1]], rhs.shape[dn.rhs_spec[0]]
    if c_in % fgc:
        raise ValueError(f"{name} feature_group_count must divide lhs feature dimension size, "
                         f"but {fgc} does not divide {c_in} (lhs {lhs.str_short()}).")
    if c_in // fgc != i_k:
        raise ValueError(f"{name} lhs feature dimension size divided by feature_group_count must "
                         f"equal the rhs input feature dimension size, but {c_in} // {fgc} != "
                         f"{i_k} (lhs {lhs.str_short()}, rhs {rhs.str_short()}).")
    for g, what in ((fgc, "feature_group_count"), (bgc, "batch_group_count")):
        if o_k % g:
            raise ValueError(f"{name} rhs output feature dimension size must be a multiple of "
                             f"{what}, but {o_k} is not a multiple of {g} (rhs {rhs.str_short()}).")
    n = lhs.shape[dn.lhs_spec[0]]
    if bgc > 1 and n % bgc:
        raise ValueError(f"{name} batch_group_count must divide lhs batch dimension size, but "
                         f"{bgc} does not divide {n} (lhs {lhs.str_short()}).")


@conv_general_dilated_p.def_abstract_eval
def _conv_general_dilated_abstract_eval(lhs, rhs, *, window_strides, padding, lhs_dilation,
                                        rhs_dilation, dimension_numbers, feature_group_count,
                                        batch_group_count, precision, preferred_element_type,
                                        out_sharding=None):
    name = "conv_general_dilated"
    if lhs.ndim != rhs.ndim:
        raise ValueError(f"{name} lhs and rhs must have the same number of dimensions, but got "
                         f"{lhs.shape} and {rhs.shape}.")
    check_dtype(name, lhs, NUM, "lhs")
    dt = _conv_out_dtype(lhs, rhs, preferred_element_type)
    dn = dimension_numbers
    _check_groups(lhs, rhs, dn, feature_group_count, batch_group_count)
    nsp = len(dn.rhs_spec) - 2
    for what, v in (("window_strides", window_strides), ("padding", padding),
                    ("lhs_dilation", lhs_dilation), ("rhs_dilation", rhs_dilation)):
        if len(v) != nsp:
            raise ValueError(f"{name} window and {what} must have the same number of dimensions, "
                             f"but got {nsp} and {len(v)}")
    if any(s <= 0 for s in window_strides):  # (JAX: a ValueError from StableHLO's verifier)
        raise ValueError(f"{name}: window_strides must be positive, got {window_strides}")
    for what, dilation in (("lhs_dilation", lhs_dilation), ("rhs_dilation", rhs_dilation)):
        if any(d <= 0 for d in dilation):
            raise TypeError(f"{name}: all dilations must be positive, got {what}={dilation}")
    lhs_t = _dilate_shape([lhs.shape[d] for d in dn.lhs_spec], (1, 1) + lhs_dilation)
    rhs_t = _dilate_shape([rhs.shape[d] for d in dn.rhs_spec], (1, 1) + rhs_dilation)
    out_t = conv_shape_tuple(lhs_t, rhs_t, window_strides, padding, batch_group_count)
    shape = tuple(out_t[i] for i in np.argsort(dn.out_spec))
    return ShapedArray(shape, dt, lhs.weak_type and rhs.weak_type)


# -- NumPy reference -----------------------------------------------------------------------------


def _np_dilate_pad(x, dilation, padding):
    """Spatial dims (2...) of canonical `x`: zeros inserted by `dilation`, then padded (negative
    pads crop)."""
    for i, (d, (lo, hi)) in enumerate(zip(dilation, padding)):
        ax = i + 2
        if d > 1 and x.shape[ax] > 0:
            shape = list(x.shape)
            shape[ax] = (x.shape[ax] - 1) * d + 1
            y = np.zeros(shape, x.dtype)
            idx = [slice(None)] * x.ndim
            idx[ax] = slice(None, None, d)
            y[tuple(idx)] = x
            x = y
        idx = [slice(None)] * x.ndim
        idx[ax] = slice(max(-lo, 0), x.shape[ax] - max(-hi, 0))
        x = x[tuple(idx)]
        widths = [(0, 0)] * x.ndim
        widths[ax] = (max(lo, 0), max(hi, 0))
        x = np.pad(x, widths)
    return x


def _np_conv_canonical(lhs, rhs, strides, fgc, bgc):
    """lhs (N, C, *sp) already dilated and padded, rhs (O, I, *k) already dilated."""
    nsp = lhs.ndim - 2
    k = rhs.shape[2:]
    win = np.lib.stride_tricks.sliding_window_view(lhs, k, axis=tuple(range(2, 2 + nsp)))
    win = win[(slice(None), slice(None)) + tuple(slice(None, None, s) for s in strides)]
    # win: (N, C, *out_sp, *k)
    sp = "".join(chr(ord("p") + i) for i in range(nsp))
    kk = "".join(chr(ord("h") + i) for i in range(nsp))
    n, c = lhs.shape[:2]
    o = rhs.shape[0]
    outs = []
    for g in range(max(fgc, bgc)):
        if fgc > 1:
            w = win[:, g * (c // fgc):(g + 1) * (c // fgc)]
        elif bgc > 1:
            w = win[g * (n // bgc):(g + 1) * (n // bgc)]
        else:
            w = win
        r = rhs[g * (o // max(fgc, bgc)):(g + 1) * (o // max(fgc, bgc))]
        outs.append(np.einsum(f"nc{sp}{kk},oc{kk}->no{sp}", w, r))
    return np.concatenate(outs, axis=1)


def _np_conv_general_dilated(lhs, rhs, *, window_strides, padding, lhs_dilation, rhs_dilation,
                             dimension_numbers, feature_group_count, batch_group_count, precision,
                             preferred_element_type, out_sharding=None):
    dn = dimension_numbers
    out_aval = _conv_general_dilated_abstract_eval(
        core.get_aval(lhs), core.get_aval(rhs), window_strides=window_strides, padding=padding,
        lhs_dilation=lhs_dilation, rhs_dilation=rhs_dilation, dimension_numbers=dn,
        feature_group_count=feature_group_count, batch_group_count=batch_group_count,
        precision=precision, preferred_element_type=preferred_element_type)
    if out_aval.size == 0:
        return np.zeros(out_aval.shape, out_aval.dtype)
    wide = np.float64 if kind(out_aval.dtype) == "f" else (np.complex128 if kind(out_aval.dtype) == "c" else np.int64)
    lhs = np.transpose(np.asarray(lhs), dn.lhs_spec).astype(wide)
    rhs = np.transpose(np.asarray(rhs), dn.rhs_spec).astype(wide)
    lhs = _np_dilate_pad(lhs, lhs_dilation, padding)
    rhs = _np_dilate_pad(rhs, rhs_dilation, [(0, 0)] * len(rhs_dilation))
    out = _np_conv_canonical(lhs, rhs, window_strides, feature_group_count, batch_group_count)
    return np.transpose(out, np.argsort(dn.out_spec)).astype(out_aval.dtype)


conv_general_dilated_p.np_impl = _np_conv_general_dilated


# -- jvp and transposes --------------------------------------------------------------------------


@conv_general_dilated_p.def_jvp
def _conv_general_dilated_jvp(primals, tangents, **params):
    (lhs, rhs), (t_lhs, t_rhs) = primals, tangents
    ans = conv_general_dilated_p.bind(lhs, rhs, **params)
    out = Zero(ad.tangent_aval(core.get_aval(ans)))
    if type(t_lhs) is not Zero:
        out = ad.add_tangents(out, conv_general_dilated_p.bind(t_lhs, rhs, **params))
    if type(t_rhs) is not Zero:
        out = ad.add_tangents(out, conv_general_dilated_p.bind(lhs, t_rhs, **params))
    return ans, out


def _swap01(spec):
    return (spec[1], spec[0]) + tuple(spec[2:])


def _fold_axis_into(src, dst, x):
    """Merge axis `src` of `x` into axis `dst` (numbered after `src` is removed), `src` major."""
    shape = list(core.get_aval(x).shape)
    perm = [i for i in range(len(shape)) if i != src]
    perm.insert(dst, src)
    size = shape.pop(src)
    shape[dst] *= size
    return reshape(x, tuple(shape), perm)


def _split_axis(src, major, x):
    """Split axis `src` of `x` into `(major, size // major)`."""
    shape = list(core.get_aval(x).shape)
    shape[src:src + 1] = [major, shape[src] // major]
    return reshape(x, tuple(shape))


def _vjp_lhs_padding(in_shape, window, strides, out_shape, padding, lhs_dilation, rhs_dilation):
    """Padding of the convolution computing lhs's cotangent (a full correlation with the
    flipped kernel, the cotangent dilated by the forward strides)."""
    lhs_d = _dilate_shape(in_shape, lhs_dilation)
    rhs_d = _dilate_shape(window, rhs_dilation)
    out_d = _dilate_shape(out_shape, strides)
    before = [r - lo - 1 for r, (lo, _) in zip(rhs_d, padding)]
    after = [l + r - 1 - o - b for l, r, o, b in zip(lhs_d, rhs_d, out_d, before)]
    return tuple(zip(before, after))


def _vjp_rhs_padding(in_shape, window, strides, out_shape, padding, lhs_dilation, rhs_dilation):
    """Padding of the convolution computing rhs's cotangent (lhs correlated with the cotangent
    dilated by the forward strides)."""
    if not in_shape:
        return ()
    lhs_d = _dilate_shape(in_shape, lhs_dilation)
    rhs_d = _dilate_shape(window, rhs_dilation)
    out_d = _dilate_shape(out_shape, strides)
    return tuple((lo, o - l + r - lo - 1) for l, r, o, (lo, _) in zip(lhs_d, rhs_d, out_d, padding))


def _spatial(shape, spec):
    return tuple(shape[d] for d in spec[2:])


def _conv_transpose_lhs(ct, rhs, lhs_aval, *, window_strides, padding, lhs_dilation, rhs_dilation,
                        dimension_numbers, feature_group_count, batch_group_count, precision,
                        preferred_element_type, out_sharding=None):
    lhs_spec, rhs_spec, out_spec = dimension_numbers
    rhs_shape = core.get_aval(rhs).shape
    groups = feature_group_count
    if feature_group_count > 1 or batch_group_count > 1:
        # the group leaves the kernel's output features for its input features
        g = max(feature_group_count, batch_group_count)
        rhs = _fold_axis_into(rhs_spec[0], rhs_spec[1], _split_axis(rhs_spec[0], g, rhs))
        groups = g
    pads = _vjp_lhs_padding(_spatial(lhs_aval.shape, lhs_spec), _spatial(rhs_shape, rhs_spec),
                            window_strides, _spatial(core.get_aval(ct).shape, out_spec), padding,
                            lhs_dilation, rhs_dilation)
    w = rev(rhs, rhs_spec[2:])
    if core.get_aval(w).dtype != core.get_aval(ct).dtype:
        w = convert_element_type(w, core.get_aval(ct).dtype)
    out = conv_general_dilated(
        ct, w, window_strides=lhs_dilation, padding=pads, lhs_dilation=window_strides,
        rhs_dilation=rhs_dilation, dimension_numbers=ConvDimensionNumbers(out_spec, _swap01(rhs_spec), lhs_spec),
        feature_group_count=groups, batch_group_count=1, precision=precision,
        preferred_element_type=preferred_element_type)
    if core.get_aval(out).dtype != lhs_aval.dtype:
        out = convert_element_type(out, lhs_aval.dtype)
    if batch_group_count > 1:
        out = _fold_axis_into(lhs_spec[1], lhs_spec[0], _split_axis(lhs_spec[1], batch_group_count, out))
    return out


def _conv_transpose_rhs(ct, lhs, rhs_aval, *, window_strides, padding, lhs_dilation, rhs_dilation,
                        dimension_numbers, feature_group_count, batch_group_count, precision,
                        preferred_element_type, out_sharding=None):
    if core.get_aval(ct).size == 0:
        return Zero(rhs_aval)
    lhs_spec, rhs_spec, out_spec = dimension_numbers
    lhs_shape = core.get_aval(lhs).shape
    # a feature-grouped convolution's kernel gradient is batch-grouped, and the other way round
    fgc, bgc = batch_group_count, feature_group_count
    pads = _vjp_rhs_padding(_spatial(lhs_shape, lhs_spec), _spatial(rhs_aval.shape, rhs_spec),
                            window_strides, _spatial(core.get_aval(ct).shape, out_spec), padding,
                            lhs_dilation, rhs_dilation)
    if core.get_aval(lhs).dtype != core.get_aval(ct).dtype:
        lhs = convert_element_type(lhs, core.get_aval(ct).dtype)
    out = conv_general_dilated(
        lhs, ct, window_strides=rhs_dilation, padding=pads, lhs_dilation=lhs_dilation,
        rhs_dilation=window_strides,
        dimension_numbers=ConvDimensionNumbers(_swap01(lhs_spec), _swap01(out_spec), _swap01(rhs_spec)),
        feature_group_count=fgc, batch_group_count=bgc, precision=precision,
        preferred_element_type=preferred_element_type)
    if core.get_aval(out).dtype != rhs_aval.dtype:
        out = convert_element_type(out, rhs_aval.dtype)
    return out


@conv_general_dilated_p.def_transpose
def _conv_general_dilated_transpose(ct, lhs, rhs, **params):
    if type(ct) is Zero:
        return [None, None]
    if ad.is_undefined_primal(lhs):
        return [_conv_transpose_lhs(ct, rhs, lhs.aval, **params), None]
    return [None, _conv_transpose_rhs(ct, lhs, rhs.aval, **params)]


# -- batching ------------------------------------------------------------------------------------


@conv_general_dilated_p.def_batch
def _conv_general_dilated_batch(axis_size, args, dims, **params):
    """Fold the vmapped axis into the convolution: both operands batched, into the feature
    groups; only lhs, into its batch (inside the batch groups); only rhs, into the kernel's
    output features (inside the groups)."""
    (lhs, rhs), (ld, rd) = args, dims
    if axis_size == 0:  # nothing to fold into the convolution's dims: an empty result, as JAX
        avals = [core.get_aval(a) for a in args]
        avals = [a if d is None else a.update(shape=a.shape[:d] + a.shape[d + 1:])
                 for a, d in zip(avals, dims)]
        out = _conv_general_dilated_abstract_eval(*avals, **params)
        return broadcast_in_dim(np.zeros((), out.dtype), (0,) + out.shape, ()), 0
    lhs_spec, rhs_spec, out_spec = params["dimension_numbers"]
    fgc, bgc = params["feature_group_count"], params["batch_group_count"]
    if ld is not None and rd is not None:
        if bgc > 1:
            new_lhs = _fold_axis_into(ld, lhs_spec[0], lhs)
            params = dict(params, batch_group_count=bgc * axis_size)
        else:
            new_lhs = _fold_axis_into(ld, lhs_spec[1], lhs)
            params = dict(params, feature_group_count=fgc * axis_size)
        out = conv_general_dilated_p.bind(new_lhs, _fold_axis_into(rd, rhs_spec[0], rhs), **params)
        return _split_axis(out_spec[1], axis_size, out), out_spec[1]
    if ld is not None:
        if bgc == 1:
            out = conv_general_dilated_p.bind(_fold_axis_into(ld, lhs_spec[0], lhs), rhs, **params)
        else:
            # the vmapped axis goes inside each batch group: (G, B, N/G) -> (G * B * N/G)
            b0 = lhs_spec[0] + int(ld <= lhs_spec[0])
            x = _split_axis(b0, bgc, lhs)
            x = _fold_axis_into(ld + int(lhs_spec[0] < ld), lhs_spec[0] + 1, x)
            out = conv_general_dilated_p.bind(_fold_axis_into(lhs_spec[0], lhs_spec[0], x), rhs, **params)
        return _split_axis(out_spec[0], axis_size, out), out_spec[0]
    if fgc == 1 and bgc == 1:
        out = conv_general_dilated_p.bind(lhs, _fold_axis_into(rd, rhs_spec[0], rhs), **params)
        return _split_axis(out_spec[1], axis_size, out), out_spec[1]
    g = max(fgc, bgc)
    o0 = rhs_spec[0] + int(rd <= rhs_spec[0])
    w = _split_axis(o0, g, rhs)
    w = _fold_axis_into(rd + int(rhs_spec[0] < rd), rhs_spec[0] + 1, w)
    out = conv_general_dilated_p.bind(lhs, _fold_axis_into(rhs_spec[0], rhs_spec[0], w), **params)
    out = _split_axis(out_spec[1], g, out)
    out = _split_axis(out_spec[1] + 1, axis_size, out)
    return _fold_axis_into(out_spec[1], out_spec[1] + 1, out), out_spec[1]


# -- lowering ------------------------------------------------------------------------------------


def _dims_attr(lhs_spec, rhs_spec, out_spec):
    def labels(spec, first, second):
        out = [""] * len(spec)
        out[spec[0]], out[spec[1]] = first, second
        for i, d in enumerate(spec[2:]):
            out[d] = str(i)
        return "[" + ", ".join(out) + "]"
    return (f"#stablehlo.conv<{labels(lhs_spec, 'b', 'f')}x{labels(rhs_spec, 'o', 'i')}->"
            f"{labels(out_spec, 'b', 'f')}>")


def _conv_lowering(ctx, lhs, rhs, *, window_strides, padding, lhs_dilation, rhs_dilation,
                   dimension_numbers, feature_group_count, batch_group_count, precision,
                   preferred_element_type, out_sharding=None):
    nsp = len(window_strides)
    pad = ("dense<[" + ", ".join(f"[{lo}, {hi}]" for lo, hi in padding) + f"]> : tensor<{nsp}x2xi64>"
           if nsp else "dense<> : tensor<0x2xi64>")
    p = precision or (Precision.DEFAULT, Precision.DEFAULT)
    attrs = {
        "batch_group_count": f"{batch_group_count} : i64",
        "dimension_numbers": _dims_attr(*dimension_numbers),
        "feature_group_count": f"{feature_group_count} : i64",
        "lhs_dilation": i64_array(lhs_dilation),
        "padding": pad,
        "precision_config": "[" + ", ".join(f"#stablehlo<precision {x.name}>" for x in p) + "]",
        "rhs_dilation": i64_array(rhs_dilation),
        "window_strides": i64_array(window_strides),
    }
    return ctx.op("stablehlo.convolution", lhs, rhs, attrs=attrs)


def _gauss_complex_conv(conv_fn, x, y):
    """A complex product as three real ones (Gauss' trick), as JAX lowers complex convolutions
    on CPU and GPU."""
    xr, xi, yr, yi = real(x), imag(x), real(y), imag(y)
    k1 = conv_fn(add(xr, xi), yr)
    k2 = conv_fn(xr, sub(yi, yr))
    k3 = conv_fn(xi, add(yr, yi))
    return lax_complex(sub(k1, k3), add(k1, k2))


@conv_general_dilated_p.def_lowering
def _conv_general_dilated_lowering(ctx, lhs, rhs, **params):
    if kind(ctx.avals_in[0].dtype) != "c":
        return _conv_lowering(ctx, lhs, rhs, **params)
    pet = params["preferred_element_type"]
    real_params = dict(params, preferred_element_type=None if pet is None else
                       np.dtype(np.float64 if pet == np.complex128 else np.float32))
    fn = partial(_gauss_complex_conv, partial(conv_general_dilated_p.bind, **real_params))
    return ctx.lower_fun(fn)(lhs, rhs)


# -- patches and locally connected convolutions (composites) ----------------------------------


def _moveaxes(x, src, dst):
    """np.moveaxis as a lax transpose."""
    nd = core.get_aval(x).ndim
    rest = [d for d in range(nd) if d not in src]
    perm = [None] * nd
    for s, d in zip(src, dst):
        perm[d] = s
    it = iter(rest)
    perm = [p if p is not None else next(it) for p in perm]
    return transpose(x, perm)


def conv_general_dilated_patches(lhs, filter_shape, window_strides, padding, lhs_dilation=None,
                                 rhs_dilation=None, dimension_numbers=None, precision=None,
                                 preferred_element_type=None):
    """The patches a convolution with a `filter_shape` window sees, flattened into the output's
    feature dimension in the order `c` then the window's dims in `rhs_spec`'s order (a
    convolution with an identity kernel, one feature group per input channel)."""
    la = core.get_aval(lhs)
    filter_shape = tuple(operator.index(d) for d in filter_shape)
    dn = conv_dimension_numbers(la.shape, (1, 1) + filter_shape, dimension_numbers)
    size = int(np.prod(filter_shape, dtype=np.int64))
    channels = la.shape[dn.lhs_spec[1]]
    eye = np.eye(size, dtype=la.dtype).reshape((size, 1) + filter_shape)
    kernel = np.moveaxis(np.tile(eye, (channels, 1) + (1,) * len(filter_shape)),
                         (0, 1), (dn.rhs_spec[0], dn.rhs_spec[1]))
    return conv_general_dilated(
        lhs, kernel, window_strides, padding, lhs_dilation, rhs_dilation, dn,
        feature_group_count=channels,
        precision=None if precision is None else (precision, Precision.DEFAULT),
        preferred_element_type=preferred_element_type)


def conv_general_dilated_local(lhs, rhs, window_strides, padding, filter_shape, lhs_dilation=None,
                               rhs_dilation=None, dimension_numbers=None, precision=None):
    """A locally connected ("unshared") convolution: a separate kernel at each output position.
    `rhs`'s spatial dims index output positions and its `I` dim holds (input channel, window
    position) flattened, as `conv_general_dilated_patches` lays them out."""
    prec = canonicalize_precision(precision)
    patches = conv_general_dilated_patches(lhs, filter_shape, window_strides, padding,
                                           lhs_dilation, rhs_dilation, dimension_numbers,
                                           None if prec is None else prec[0])
    lhs_spec, rhs_spec, out_spec = conv_dimension_numbers(
        core.get_aval(lhs).shape, (1, 1) + tuple(filter_shape), dimension_numbers)
    # contract the patch features; the output positions are batch dims of the dot, in out order
    order = sorted(range(len(out_spec) - 2), key=lambda k: out_spec[2 + k])
    dn = (((out_spec[1],), (rhs_spec[1],)),
          (tuple(out_spec[2 + k] for k in order), tuple(rhs_spec[2 + k] for k in order)))
    out = dot_general(patches, rhs, dn, precision)
    nd = core.get_aval(out).ndim
    return _moveaxes(out, (nd - 2, nd - 1), (out_spec[0], out_spec[1]))
