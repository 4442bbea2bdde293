"""Image resampling (`jax.image`): `resize` and `scale_and_translate`.

Every method but nearest is separable: along each resized axis the output is the input
contracted with a (input size, output size) weight matrix sampled from the method's kernel (the
triangle for linear, Keys' cubic, Lanczos, box overlaps for area), widened by 1/scale when
downsampling with antialiasing, each column normalized to sum to 1. The matrices and the one
einsum that applies them are JAX 0.10.2's, so values agree with JAX's to rounding.
"""
from __future__ import annotations

import enum
import functools
import math
import operator

import numpy as np

from pyjax._src.lax.dot_general import Precision
from pyjax._src.lax.utils import canonicalize_axis
from pyjax._src.numpy import array_methods  # noqa: F401  (the code below uses Array operators)
from pyjax._src.numpy import creation, reductions as jred, ufuncs as jnp
from pyjax._src.numpy.lax_numpy import clip, where
from pyjax._src.numpy.linalg_ops import einsum
from pyjax._src.numpy.util import promote_dtypes_inexact
from pyjax._src.pjit import jit


class ResizeMethod(enum.Enum):
    """The resampling methods (`resize(..., method=ResizeMethod.LINEAR)` or by name)."""
    NEAREST = 0
    LINEAR = 1
    LANCZOS3 = 2
    LANCZOS5 = 3
    CUBIC = 4
    CUBIC_PYTORCH = 5
    AREA = 6

    @staticmethod
    def from_string(s: str):
        """The method a name means: 'nearest', 'linear' ('bilinear', 'trilinear', 'triangle'),
        'lanczos3', 'lanczos5', 'cubic' ('bicubic', 'tricubic'), 'cubic-pytorch'
        ('bicubic-pytorch'), 'area'."""
        method = _NAMES.get(s)
        if method is None:
            raise ValueError(f'Unknown resize method "{s}"')
        return method


_NAMES = {"nearest": ResizeMethod.NEAREST, "linear": ResizeMethod.LINEAR,
          "bilinear": ResizeMethod.LINEAR, "trilinear": ResizeMethod.LINEAR,
          "triangle": ResizeMethod.LINEAR, "lanczos3": ResizeMethod.LANCZOS3,
          "lanczos5": ResizeMethod.LANCZOS5, "cubic": ResizeMethod.CUBIC,
          "bicubic": ResizeMethod.CUBIC, "tricubic": ResizeMethod.CUBIC,
          "cubic-pytorch": ResizeMethod.CUBIC_PYTORCH, "bicubic-pytorch": ResizeMethod.CUBIC_PYTORCH,
          "area": ResizeMethod.AREA}


# -- the kernels, of the distance x >= 0 between a sample point and an input pixel centre --------

def _lanczos(radius, x):
    y = radius * jnp.sin(np.pi * x) * jnp.sin(np.pi * x / radius)
    # sinc(x) sinc(x / radius), with its limit 1 near 0
    out = where(x > 0.001, jnp.divide(y, where(x != 0, np.pi ** 2 * x ** 2, 1)), 1)
    return where(x > radius, 0.0, out)


def _keys_cubic(x):  # Keys' cubic convolution with a = -0.5
    out = (1.5 * x - 2.5) * x * x + 1.0
    out = where(x >= 1.0, ((-0.5 * x + 2.5) * x - 4.0) * x + 2.0, out)
    return where(x >= 2.0, 0.0, out)


def _opencv_cubic(x):  # the same with a = -0.75 (OpenCV's and PyTorch's)
    a = -0.75
    out = ((a + 2.0) * x - (a + 3.0)) * x * x + 1.0
    out = where(x >= 1.0, ((a * x - 5.0 * a) * x + 8.0 * a) * x - 4.0 * a, out)
    return where(x >= 2.0, 0.0, out)


def _triangle(x):
    return jnp.maximum(0, 1 - jnp.abs(x))


_AREA = object()  # (area weights are box overlaps, not a kernel of the distance)

_KERNELS = {  # method: (radius, kernel)
    ResizeMethod.LINEAR: (1, _triangle),
    ResizeMethod.LANCZOS3: (3, functools.partial(_lanczos, 3.0)),
    ResizeMethod.LANCZOS5: (5, functools.partial(_lanczos, 5.0)),
    ResizeMethod.CUBIC: (2, _keys_cubic),
    ResizeMethod.CUBIC_PYTORCH: (2, _opencv_cubic),
    ResizeMethod.AREA: (1, _AREA),
}

_MIN_TOTAL_WEIGHT = 1000.0 * float(np.finfo(np.float32).eps)


def _normalize_columns(weights):
    total = jred.sum(weights, axis=0, keepdims=True)
    return where(jnp.abs(total) > _MIN_TOTAL_WEIGHT, jnp.divide(weights, where(total != 0, total, 1)), 0)


def _edge_halo(radius, scale, antialias):
    """How many pixels beyond each edge the kernel reaches (they are clamped to the edge)."""
    if not antialias:
        return radius
    # (float() of a traced scale raises ConcretizationTypeError: the halo sets a shape)
    return math.ceil(radius * max(1.0 / float(scale), 1.0))


def compute_weight_mat(input_size, output_size, scale, translation, kernel, antialias,
                       edge_padding=False, radius=None):
    """The (input_size, output_size) resampling matrix of one axis."""
    dtype = promote_dtypes_inexact(scale, translation)[0].dtype
    inv_scale = 1.0 / scale
    kernel_scale = jnp.maximum(inv_scale, 1.0) if antialias else 1.0
    # output pixel centres, in input pixel coordinates
    sample_f = (creation.arange(output_size, dtype=dtype) + 0.5) * inv_scale - translation * inv_scale - 0.5
    halo = _edge_halo(radius, scale, antialias) if edge_padding else 0
    inputs = creation.arange(-halo, input_size + halo, dtype=dtype)
    if kernel is _AREA:
        left = creation.arange(output_size, dtype=dtype) * inv_scale - translation * inv_scale
        right, in_left = left + inv_scale, creation.arange(input_size, dtype=dtype)
        weights = jnp.maximum(0.0, jnp.minimum(right[None, :], in_left[:, None] + 1.0)
                              - jnp.maximum(left[None, :], in_left[:, None]))
    else:
        weights = kernel(jnp.abs(sample_f[None, :] - inputs[:, None]) / kernel_scale)
    if edge_padding:
        # the halo rows fold onto the edge pixels they are clamped to
        clamped = clip(inputs.astype(np.int32), 0, input_size - 1)
        cols = creation.arange(output_size)
        folded = creation.zeros((input_size, output_size), dtype=dtype)
        folded = folded.at[clamped[:, None], cols[None, :]].add(weights)
        return _normalize_columns(folded)
    weights = _normalize_columns(weights)
    inside = (sample_f >= -0.5) & (sample_f <= input_size - 0.5)  # samples off the image get 0
    return where(inside[None, :], weights, 0)


def _scale_and_translate(x, output_shape, spatial_dims, scale, translation, kernel, antialias,
                         precision, edge_padding=False, radius=None):
    if not spatial_dims:
        return x
    operands, out_axes = [], list(range(len(output_shape)))
    for i, d in enumerate(spatial_dims):
        d = canonicalize_axis(d, x.ndim)
        w = compute_weight_mat(x.shape[d], output_shape[d], scale[i], translation[i], kernel,
                               antialias, edge_padding, radius).astype(x.dtype)
        operands += [w, [d, len(output_shape) + i]]
        out_axes[d] = len(output_shape) + i
    return einsum(x, list(range(len(output_shape))), *operands, out_axes, precision=precision)


def _method(method):
    return ResizeMethod.from_string(method) if isinstance(method, str) else method


def _check_rank(fname, shape, image):
    if len(shape) != image.ndim:
        raise ValueError(f"image.{fname}: shape must have length equal to the number of "
                         f"dimensions of x; {shape} vs {image.shape}")


def _kernel_setup(method, antialias):
    if method == ResizeMethod.CUBIC_PYTORCH and antialias:
        method = ResizeMethod.CUBIC  # (PyTorch's kernel only without antialiasing, as JAX)
    radius, kernel = _KERNELS[method]
    return radius, kernel, method == ResizeMethod.CUBIC_PYTORCH and not antialias


def scale_and_translate(image, shape, spatial_dims, scale, translation, method, antialias=True,
                        precision=Precision.HIGHEST):
    """Resample `image` to `shape` along `spatial_dims`, mapping input coordinate u to output
    coordinate u * scale + translation (pixel centres at half-integers)."""
    shape = tuple(int(d) for d in shape)
    _check_rank("scale_and_translate", shape, image)
    method = _method(method)
    if method == ResizeMethod.NEAREST:
        raise ValueError("image.scale_and_translate: nearest neighbor resampling is not "
                         "supported (use resize)")
    radius, kernel, edge_padding = _kernel_setup(method, antialias)
    image, = promote_dtypes_inexact(image)
    scale, translation = promote_dtypes_inexact(scale, translation)
    return _scale_and_translate(image, shape, spatial_dims, scale, translation, kernel, antialias,
                                precision, edge_padding, radius)


def _resize_nearest(x, shape):
    for d, (m, n) in enumerate(zip(x.shape, shape, strict=True)):
        if m == n:
            continue
        # the input pixel under each output centre (computed in float32, as JAX)
        offsets = jnp.floor(((creation.arange(n, dtype=np.float32) + 0.5) * m / n).astype(np.float32))
        index = [slice(None)] * x.ndim
        index[d] = offsets.astype(np.int32)
        x = x[tuple(index)]
    return x


@functools.partial(jit, static_argnums=(1, 2, 3, 4))
def _resize(image, shape, method, antialias, precision):
    _check_rank("resize", shape, image)
    method = _method(method)
    if method == ResizeMethod.NEAREST:
        return _resize_nearest(image, shape)
    image, = promote_dtypes_inexact(image)
    spatial_dims = tuple(i for i in range(len(shape)) if image.shape[i] != shape[i])
    radius, kernel, edge_padding = _kernel_setup(method, antialias)
    scale = [1.0 if shape[d] == 0 else shape[d] / image.shape[d] for d in spatial_dims]
    return _scale_and_translate(image, shape, spatial_dims, scale, [0.0] * len(spatial_dims),
                                kernel, antialias, precision, edge_padding, radius)


def resize(image, shape, method, antialias=True, precision=Precision.HIGHEST):
    """`image` resampled to `shape` (every axis whose size changes), by `method` (a
    ResizeMethod or its name); `antialias` widens the kernel when downsampling.

    >>> import pyjax.numpy as jnp
    >>> resize(jnp.array([0., 1.]), (4,), "linear")
    Array([0.  , 0.25, 0.75, 1.  ], dtype=float32)
    """
    return _resize(image, _static_shape(shape), method, antialias, precision)


def _static_shape(shape):
    """`shape` as a tuple of ints; a float entry (10.5, or even 10.0) is JAX's TypeError."""
    try:
        return tuple(operator.index(d) for d in shape)
    except TypeError:
        raise TypeError(f"Shapes must be 1D sequences of concrete values of integer type, "
                        f"got {shape}.") from None
