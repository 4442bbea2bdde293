"""Type conversion: `convert_element_type`, `bitcast_convert_type`, and how Python scalars given
to lax functions get their dtype (`lax_operands`).

The lowest of the lax modules: the elementwise, shape and reduction modules all convert.
"""
from __future__ import annotations

import numpy as np

from pyjax._src import core, dtypes
from pyjax._src.dispatch import register_cache
from pyjax._src.array import Array, ArrayImpl
from pyjax._src.core import ShapedArray
from pyjax._src.interpreters import batching
from pyjax._src.interpreters.ad import Zero, tangent_aval
from pyjax._src.lax.utils import emit_compare, kind, np_dtype_param, standard_primitive, zero_derivative

# -- Python scalars in lax calls --------------------------------------------------------------

_PY_SCALARS = (bool, int, float, complex)


def _weak_const(x, dtype) -> ArrayImpl:
    """A Python scalar as a weakly typed array of `dtype`. These constants only ever feed
    primitives (never returned to the user, who could donate them), so one array per value is
    shared: eager `lax.mul(x, 2.0)` does not transfer 2.0 again."""
    key = (dtype, type(x), repr(x))  # repr: -0.0 is not 0.0, nan is nan
    out = _weak_consts.get(key)
    if out is not None:
        return out
    if len(_weak_consts) > 4096:
        _weak_consts.clear()
    v = np.asarray(x, dtype)
    v.setflags(write=False)
    out = _weak_consts[key] = Array.from_host(v, weak_type=True)
    return out


_weak_consts: dict = {}
register_cache(_weak_consts.clear)


def lax_operands(*xs):
    """Give Python scalars the dtype of the other operands (weakly typed); leave arrays alone.

    NB: JAX 0.10.2 gives a Python scalar its default dtype (int32, float32...) and then requires
    equal dtypes, so `lax.add(x_f16, 1.0)` and `lax.add(x_f32, 1)` are TypeErrors there; pyjax
    converts the scalar to the array's dtype (tests/test_bad_inputs.py lists these rows)."""
    if not any(type(x) in _PY_SCALARS for x in xs):
        return xs
    ref = next((x for x in xs if type(x) not in _PY_SCALARS), None)
    if ref is None:
        dt = dtypes.result_type(*xs)
    else:
        dt = core.get_aval(ref).dtype
    return tuple(_weak_const(x, dt) if type(x) in _PY_SCALARS else x for x in xs)


def real_dtype(dt):
    """The dtype of the real part: float32 for complex64, float64 for complex128, else `dt`."""
    return np.finfo(dt).dtype if kind(dt) == "c" else dt


# -- convert_element_type --------------------------------------------------------------------

convert_element_type_p = standard_primitive("convert_element_type", pure_abstract_eval=True)


def convert_element_type(operand, new_dtype):
    """Cast to `new_dtype` (canonicalized: 64-bit types narrow unless x64 is on)."""
    return _convert_element_type(operand, new_dtype, weak_type=False)


def _convert_element_type(operand, new_dtype=None, weak_type=False, canonicalize=True):
    """`canonicalize=False` keeps a 64-bit `new_dtype` without x64 (the type of an existing
    array, which JAX's internal conversion keeps: `full_like` of a float64 array)."""
    if hasattr(operand, "__jax_array__"):
        operand = operand.__jax_array__()
    if new_dtype is None:
        new_dtype = core.get_aval(operand).dtype
    else:
        new_dtype = np_dtype_param(new_dtype) if canonicalize else dtypes.dtype_of(new_dtype)
    if type(operand) in _PY_SCALARS or isinstance(operand, (np.ndarray, np.generic)):
        # constants convert on the host: no device round trip, and they stay literal in jaxprs
        value = _np_convert(operand, new_dtype=new_dtype, weak_type=weak_type, sharding=None)
        return Array.from_host(value, weak_type)
    aval = core.get_aval(operand)
    if aval.dtype == new_dtype and aval.weak_type == weak_type:
        return operand
    if type(operand) is ArrayImpl and aval.ndim == 0 and operand._npy is not None:
        return Array.from_host(_np_convert(operand._npy, new_dtype=new_dtype, weak_type=weak_type, sharding=None), weak_type)
    return convert_element_type_p.bind(operand, new_dtype=new_dtype, weak_type=bool(weak_type), sharding=None)


@convert_element_type_p.def_abstract_eval
def _convert_element_type_abstract_eval(x, *, new_dtype, weak_type, sharding):
    return ShapedArray(x.shape, new_dtype, weak_type)


def _np_convert(x, *, new_dtype, weak_type, sharding):
    x = np.asarray(x)
    if np.iscomplexobj(x) and not np.issubdtype(new_dtype, np.complexfloating):
        x = x.real
    if kind(x.dtype) == "f" and kind(new_dtype) in "iu":
        # float -> int truncates, saturates out-of-range values and maps NaN to 0, as XLA does
        # (NumPy's astype would wrap around)
        info = np.iinfo(new_dtype)
        x = np.where(np.isnan(x), 0, np.clip(np.trunc(x.astype(np.float64)), info.min, info.max))
    return x.astype(new_dtype)


convert_element_type_p.np_impl = _np_convert


@convert_element_type_p.def_jvp
def _convert_jvp(primals, tangents, *, new_dtype, weak_type, sharding):
    (x,), (t,) = primals, tangents
    ans = convert_element_type_p.bind(x, new_dtype=new_dtype, weak_type=weak_type, sharding=sharding)
    out_t_aval = tangent_aval(core.get_aval(ans))
    if type(t) is Zero or dtypes.is_float0(out_t_aval.dtype):
        return ans, Zero(out_t_aval)
    return ans, convert_element_type_p.bind(t, new_dtype=new_dtype, weak_type=weak_type, sharding=sharding)


@convert_element_type_p.def_transpose
def _convert_transpose(ct, x, *, new_dtype, weak_type, sharding):
    if type(ct) is Zero:
        return [None]
    # as JAX: a complex cotangent of a real operand converts to its real part (what converting
    # complex to real does)
    in_aval = x.aval
    return [convert_element_type_p.bind(ct, new_dtype=in_aval.dtype, weak_type=in_aval.weak_type, sharding=None)]


batching.defvectorized(convert_element_type_p)


@convert_element_type_p.def_lowering
def _convert_lowering(ctx, x, *, new_dtype, weak_type, sharding):
    in_aval, out = ctx.avals_in[0], ctx.avals_out[0]
    if in_aval.dtype == out.dtype:
        return x
    if kind(in_aval.dtype) == "c" and kind(out.dtype) != "c":
        x = ctx.op("stablehlo.real", x, out=in_aval.update(dtype=real_dtype(in_aval.dtype)))
        in_aval = in_aval.update(dtype=real_dtype(in_aval.dtype))
    if out.dtype == np.bool_ and in_aval.dtype != np.bool_:  # nonzero test, as NumPy does
        return emit_compare(ctx, "NE", x, ctx.const(0, in_aval.dtype, in_aval.shape), in_aval, out)
    return ctx.op("stablehlo.convert", x)


# -- bitcast_convert_type ----------------------------------------------------------------------

bitcast_convert_type_p = standard_primitive("bitcast_convert_type", jvp=zero_derivative)


def bitcast_convert_type(operand, new_dtype):
    """Reinterpret the bits as `new_dtype`; a narrower type adds a last dimension, a wider one
    consumes it."""
    new_dtype = np_dtype_param(new_dtype)
    old = core.get_aval(operand).dtype
    if old != new_dtype and (kind(old) in "bc" or kind(new_dtype) in "bc"):
        raise TypeError(f"bitcast_convert_type: bool and complex values can only be bitcast to "
                        f"their own type, got {old.name} to {new_dtype.name}")
    return bitcast_convert_type_p.bind(operand, new_dtype=new_dtype)


@bitcast_convert_type_p.def_abstract_eval
def _bitcast_abstract_eval(x, *, new_dtype):
    a, b = dtypes.itemsize_bits(x.dtype), dtypes.itemsize_bits(new_dtype)  # (int4: 4 bits)
    if a == b:
        shape = x.shape
    elif a > b:
        shape = x.shape + (a // b,)
    else:
        if not x.shape or x.shape[-1] != b // a:
            raise ValueError(f"bitcast_convert_type: {x.str_short()} to {np.dtype(new_dtype).name} "
                             f"needs a last dimension of size {b // a}")
        shape = x.shape[:-1]
    return ShapedArray(shape, new_dtype, False)


def _np_bitcast(x, *, new_dtype):
    x, new_dtype = np.ascontiguousarray(x), np.dtype(new_dtype)
    a, b = dtypes.itemsize_bits(x.dtype), dtypes.itemsize_bits(new_dtype)
    shape = x.shape if a == b else x.shape + (a // b,) if a > b else x.shape[:-1]
    if a == 4 or b == 4:  # 4-bit types: two to a byte, the first in the low bits (as XLA)
        nibbles = (x.view(np.uint8) & 0xF if a == 4 else
                   np.stack([x.view(np.uint8) & 0xF, x.view(np.uint8) >> 4], -1))
        if b == 4:
            signed = np.where(nibbles > 7, nibbles.astype(np.int16) - 16, nibbles)
            return (signed if dtypes.issubdtype(new_dtype, np.signedinteger)
                    else nibbles).astype(new_dtype).reshape(shape)
        pairs = nibbles.reshape(-1, 2).astype(np.uint8)
        x = (pairs[:, 0] | (pairs[:, 1] << 4)).astype(np.uint8)
    return x.view(new_dtype).reshape(shape)


bitcast_convert_type_p.np_impl = _np_bitcast


@bitcast_convert_type_p.def_batch
def _bitcast_batch(axis_size, args, dims, *, new_dtype):
    """A widening bitcast consumes the last axis, which must not be the batch axis."""
    (x,), (d,) = args, dims
    if (dtypes.itemsize_bits(core.get_aval(x).dtype) < dtypes.itemsize_bits(new_dtype)
            and d == core.get_aval(x).ndim - 1):
        x, d = batching.moveaxis(x, d, 0), 0
    return bitcast_convert_type_p.bind(x, new_dtype=new_dtype), d


bitcast_convert_type_p.def_lowering(lambda ctx, x, *, new_dtype: ctx.op("stablehlo.bitcast_convert", x))
