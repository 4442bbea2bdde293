"""`jnp.fft`: NumPy's FFT functions on `lax.fft` (fft/ifft/rfft/irfft and their 2-d and n-d
forms, hfft/ihfft, the frequency grids and the shifts), with `n`/`s` (crop or zero-pad each
transformed axis), `axes` and `norm` ('backward', 'ortho', 'forward') as JAX. Transforms of more
than three axes are split into transforms of at most three (XLA's limit), as JAX does."""
from __future__ import annotations

import operator

import numpy as np

from pyjax._src import core, dtypes
from pyjax._src.lax import elementwise as lax_elem
from pyjax._src.lax.convert import convert_element_type
from pyjax._src.lax.fft import FftType, fft as lax_fft
from pyjax._src.lax.shape_ops import concatenate, pad as lax_pad, slice as lax_slice
from pyjax._src.numpy.creation import arange
from pyjax._src.numpy.shape import moveaxis
from pyjax._src.numpy.util import asarray_value, check_arraylike

_NORMS = ("backward", "ortho", "forward")


def _norm_factor(s, func_name, norm, dtype):
    """The scale `norm` asks for, given the transform sizes `s` (inverse transforms scale by
    1/N already, so 'forward' multiplies them back)."""
    if norm is None or norm == "backward":
        return None
    if norm not in _NORMS:
        raise ValueError(f'Invalid norm value {norm}; should be "backward","ortho" or "forward".')
    size = float(np.prod(s)) if len(s) else 1.0
    inverse = func_name.startswith("i")
    if norm == "ortho":
        return np.sqrt(size) if inverse else 1 / np.sqrt(size)
    return size if inverse else 1 / size


def _resize(arr, shape):
    """Crop or zero-pad `arr` at the end of each axis to `shape`."""
    aval = core.get_aval(arr)
    crop = tuple(min(a, b) for a, b in zip(aval.shape, shape))
    if crop != aval.shape:
        arr = lax_slice(arr, (0,) * aval.ndim, crop)
    if crop != tuple(shape):
        arr = lax_pad(arr, np.zeros((), aval.dtype), [(0, t - c, 0) for c, t in zip(crop, shape)])
    return arr


def _fft_core(func_name, fft_type, a, s, axes, norm):
    full_name = f"jax.numpy.fft.{func_name}"
    check_arraylike(full_name, a)
    arr = asarray_value(a)
    ndim = core.get_aval(arr).ndim
    if s is not None:
        s = tuple(operator.index(n) for n in s)
        if any(n <= 0 for n in s):
            raise ValueError("Shape should be positive.")
    if s is not None and axes is not None and len(s) != len(axes):
        raise ValueError("Shape and axes have different lengths.")
    orig_axes = axes
    if axes is None:
        axes = tuple(range(ndim)) if s is None else tuple(range(ndim - len(s), ndim))
    if len(set(axes)) != len(axes):   # (the axes as given: JAX's message shows the user's list)
        raise ValueError(f"{full_name} does not support repeated axes. Got axes {axes}.")
    axes = tuple(axes)
    if orig_axes is not None:
        new_axes = tuple(range(ndim - len(axes), ndim))
        arr, axes = moveaxis(arr, orig_axes, new_axes), new_axes
    shape = core.get_aval(arr).shape
    if s is not None:
        in_s = list(shape)
        for ax, n in zip(axes, s):
            in_s[ax] = n
        if fft_type == FftType.IRFFT:
            in_s[-1] = in_s[-1] // 2 + 1
        arr = _resize(arr, in_s)
    elif fft_type == FftType.IRFFT:
        s = [shape[ax] for ax in axes[:-1]] + ([max(0, 2 * (shape[axes[-1]] - 1))] if axes else [])
    else:
        s = [shape[ax] for ax in axes]
    out = _fft_nd(arr, fft_type, tuple(s))
    scale = _norm_factor(s, func_name, norm, None)
    if scale is not None:
        out_dt = core.get_aval(out).dtype
        out = lax_elem.mul(out, np.asarray(scale, out_dt))
    if orig_axes is not None:
        out = moveaxis(out, axes, orig_axes)
    return out


def _fft_nd(arr, fft_type, s):
    """`lax.fft` over the last len(s) axes, split into transforms of <= 3 axes."""
    if len(s) <= 3:
        return lax_fft(arr, fft_type, s)
    n = 2 if len(s) == 4 else 3
    ndim = core.get_aval(arr).ndim
    src = tuple(range(ndim - len(s), ndim - n))
    dst = tuple(range(ndim - len(s) + n, ndim))
    if fft_type in (FftType.RFFT, FftType.FFT):
        arr = moveaxis(lax_fft(arr, fft_type, s[-n:]), src, dst)
        return moveaxis(_fft_nd(arr, FftType.FFT, s[:-n]), dst, src)
    arr = moveaxis(_fft_nd(moveaxis(arr, src, dst), FftType.IFFT, s[:-n]), dst, src)
    return lax_fft(arr, fft_type, s[-n:])


def _check_1d_axis(func_name, axis):
    if isinstance(axis, (list, tuple)):
        full = f"jax.numpy.fft.{func_name}"
        raise ValueError(f"{full} does not support multiple axes. Please use {full}n. Got axis = {axis!r}.")


def _fft_1d(func_name, fft_type, a, n, axis, norm):
    _check_1d_axis(func_name, axis)
    return _fft_core(func_name, fft_type, a, None if n is None else [n],
                     None if axis is None else [axis], norm)


def _fft_2d(func_name, fft_type, a, s, axes, norm):
    if len(axes) != 2:
        raise ValueError(f"jax.numpy.fft.{func_name} only supports 2 axes. Got axes = {axes!r}.")
    return _fft_core(func_name, fft_type, a, s, axes, norm)


def fft(a, n=None, axis=-1, norm=None):
    """The 1-d discrete Fourier transform along `axis` (`n`: crop or zero-pad it first).

    >>> jnp.fft.fft(jnp.array([1., 0., -1., 0.]))
    Array([0.+0.j, 2.+0.j, 0.+0.j, 2.+0.j], dtype=complex64)
    """
    return _fft_1d("fft", FftType.FFT, a, n, axis, norm)


def ifft(a, n=None, axis=-1, norm=None):
    """The inverse of `fft`."""
    return _fft_1d("ifft", FftType.IFFT, a, n, axis, norm)


def rfft(a, n=None, axis=-1, norm=None):
    """The FFT of real input: the `n // 2 + 1` non-negative frequencies."""
    return _fft_1d("rfft", FftType.RFFT, a, n, axis, norm)


def irfft(a, n=None, axis=-1, norm=None):
    """The inverse of `rfft`: `n` (default `2 * (m - 1)`) real values."""
    return _fft_1d("irfft", FftType.IRFFT, a, n, axis, norm)


def hfft(a, n=None, axis=-1, norm=None):
    """The FFT of a signal with Hermitian symmetry, given by its non-negative frequencies."""
    _check_1d_axis("hfft", axis)
    conj_a = lax_elem.conj(convert_element_type(asarray_value(a), dtypes.to_complex_dtype(
        core.get_aval(asarray_value(a)).dtype)))
    nn = (core.get_aval(conj_a).shape[axis] - 1) * 2 if n is None else n
    out = _fft_1d("hfft", FftType.IRFFT, conj_a, n, axis, norm)
    return lax_elem.mul(out, np.asarray(nn, core.get_aval(out).dtype))


def ihfft(a, n=None, axis=-1, norm=None):
    """The inverse of `hfft`."""
    _check_1d_axis("ihfft", axis)
    arr = asarray_value(a)
    nn = core.get_aval(arr).shape[axis] if n is None else n
    out = lax_elem.conj(_fft_1d("ihfft", FftType.RFFT, arr, n, axis, norm))
    return lax_elem.mul(out, np.asarray(1 / nn, core.get_aval(out).dtype))


def fft2(a, s=None, axes=(-2, -1), norm=None):
    """The 2-d FFT over `axes`."""
    return _fft_2d("fft2", FftType.FFT, a, s, axes, norm)


def ifft2(a, s=None, axes=(-2, -1), norm=None):
    """The inverse of `fft2`."""
    return _fft_2d("ifft2", FftType.IFFT, a, s, axes, norm)


def rfft2(a, s=None, axes=(-2, -1), norm=None):
    """The 2-d FFT of real input."""
    return _fft_2d("rfft2", FftType.RFFT, a, s, axes, norm)


def irfft2(a, s=None, axes=(-2, -1), norm=None):
    """The inverse of `rfft2`."""
    return _fft_2d("irfft2", FftType.IRFFT, a, s, axes, norm)


def fftn(a, s=None, axes=None, norm=None):
    """The n-d FFT over `axes` (default: all, or the last `len(s)`)."""
    return _fft_core("fftn", FftType.FFT, a, s, axes, norm)


def ifftn(a, s=None, axes=None, norm=None):
    """The inverse of `fftn`."""
    return _fft_core("ifftn", FftType.IFFT, a, s, axes, norm)


def rfftn(a, s=None, axes=None, norm=None):
    """The n-d FFT of real input (the last axis halved)."""
    return _fft_core("rfftn", FftType.RFFT, a, s, axes, norm)


def irfftn(a, s=None, axes=None, norm=None):
    """The inverse of `rfftn`."""
    return _fft_core("irfftn", FftType.IRFFT, a, s, axes, norm)


def _check_freq_args(name, n, d):
    if isinstance(n, (list, tuple)):
        raise ValueError(f"The n argument of jax.numpy.fft.{name} only takes an int. Got n = {list(n)}.")
    if isinstance(d, (list, tuple)):
        raise ValueError(f"The d argument of jax.numpy.fft.{name} only takes a single value. "
                         f"Got d = {list(d)}.")


def fftfreq(n, d=1.0, *, dtype=None, device=None):
    """The sample frequencies of an `n`-point FFT with sample spacing `d`.

    >>> jnp.fft.fftfreq(4)
    Array([ 0.  ,  0.25, -0.5 , -0.25], dtype=float32)
    """
    _check_freq_args("fftfreq", n, d)
    out_dtype = dtypes.canonicalize_dtype(dtype or dtypes.default_float_dtype())
    dt = dtypes.to_inexact_dtype(out_dtype)
    dt = np.dtype(np.float64 if dt == np.complex128 else np.float32 if dt == np.complex64 else dt)
    i = arange(n, dtype=dt)
    k = lax_elem.sub(lax_elem.rem(lax_elem.add(i, np.asarray(n // 2, dt)), np.asarray(n, dt)),
                     np.asarray(n // 2, dt))
    out = lax_elem.div(k, convert_element_type(asarray_value(d * n), dt))
    return convert_element_type(out, out_dtype)


def rfftfreq(n, d=1.0, *, dtype=None, device=None):
    """The non-negative sample frequencies of an `n`-point `rfft` with sample spacing `d`."""
    _check_freq_args("rfftfreq", n, d)
    dt = dtypes.canonicalize_dtype(dtype or dtypes.default_float_dtype())
    k = arange(0, n // 2 + 1, dtype=dt)
    return lax_elem.div(k, convert_element_type(asarray_value(d * n), dt))


def _roll(x, shifts, axes):
    for shift, ax in zip(shifts, axes):
        size = core.get_aval(x).shape[ax]
        if size == 0 or shift % size == 0:
            continue
        k = shift % size
        ndim = core.get_aval(x).ndim
        start, limit = [0] * ndim, list(core.get_aval(x).shape)
        head_start = list(start)
        head_start[ax] = size - k
        tail_limit = list(limit)
        tail_limit[ax] = size - k
        x = concatenate([lax_slice(x, head_start, limit), lax_slice(x, start, tail_limit)], ax)
    return x


def _shift(name, x, axes, sign):
    check_arraylike(name, x)
    x = asarray_value(x)
    shape = core.get_aval(x).shape
    if axes is None:
        axes = tuple(range(len(shape)))
    elif isinstance(axes, int):
        axes = (axes,)
    axes = tuple(a % len(shape) for a in axes)
    return _roll(x, [sign * (shape[a] // 2) for a in axes], axes)


def fftshift(x, axes=None):
    """Move the zero frequency to the middle (of every axis, or of `axes`)."""
    return _shift("fftshift", x, axes, 1)


def ifftshift(x, axes=None):
    """The inverse of `fftshift`."""
    return _shift("ifftshift", x, axes, -1)


def _fft_norm(s, func_name, norm):
    """JAX's private `_fft_norm`: the factor `norm` scales a transform of sizes `s` by, as an
    array, computed in an inexact dtype (integer sizes would overflow)."""
    if norm == "backward":
        return np.array(1)
    if norm not in _NORMS:
        raise ValueError(f'Invalid norm value {norm}; should be "backward","ortho" or "forward".')
    s = np.asarray(s)
    dt = dtypes.default_float_dtype() if s.dtype.kind in "biu" else dtypes.canonicalize_dtype(s.dtype)
    size = np.prod(s.astype(dt), dtype=dt)
    scale = np.sqrt(size) if norm == "ortho" else size
    return scale if func_name.startswith("i") else (1 / scale).astype(dt)
