"""`jnp.float32` and friends: usable as dtypes (`x.astype(jnp.float32)`) and callable to make
arrays (`jnp.float32(1)` is a strongly typed f32 scalar Array), as in JAX."""
from __future__ import annotations

import ml_dtypes
import numpy as np

from pyjax._src import dtypes
from pyjax._src.numpy.creation import array


class _ScalarMeta(type):
    def __hash__(cls):
        return hash(cls.dtype.type)

    def __eq__(cls, other):
        return id(cls) == id(other) or cls.dtype.type == other

    def __ne__(cls, other):
        return not cls == other

    def __call__(cls, x):
        return array(x, dtype=cls.dtype)

    def __instancecheck__(cls, instance):
        return isinstance(instance, cls.dtype.type)

    def __repr__(cls):
        return f"<class 'jax.numpy.{cls.__name__}'>"


def _make_scalar_type(np_type, name=None):
    dt = np.dtype(np_type)
    name = name or dt.name
    return _ScalarMeta(name, (object,), {"dtype": dt, "__doc__": f"The {name} scalar type."})


bool_ = _make_scalar_type(np.bool_, "bool")  # (JAX 0.10.2 names it jax.numpy.bool)
int8 = _make_scalar_type(np.int8)
int16 = _make_scalar_type(np.int16)
int32 = _make_scalar_type(np.int32)
int64 = _make_scalar_type(np.int64)
uint8 = _make_scalar_type(np.uint8)
uint16 = _make_scalar_type(np.uint16)
uint32 = _make_scalar_type(np.uint32)
uint64 = _make_scalar_type(np.uint64)
float16 = _make_scalar_type(np.float16)
float32 = _make_scalar_type(np.float32)
float64 = _make_scalar_type(np.float64)
bfloat16 = _make_scalar_type(dtypes.bfloat16, "bfloat16")
complex64 = _make_scalar_type(np.complex64)
complex128 = _make_scalar_type(np.complex128)
float8_e4m3fn = _make_scalar_type(dtypes.float8_e4m3fn, "float8_e4m3fn")
float8_e5m2 = _make_scalar_type(dtypes.float8_e5m2, "float8_e5m2")
float8_e3m4 = _make_scalar_type(ml_dtypes.float8_e3m4, "float8_e3m4")
float8_e4m3 = _make_scalar_type(ml_dtypes.float8_e4m3, "float8_e4m3")
float8_e4m3b11fnuz = _make_scalar_type(ml_dtypes.float8_e4m3b11fnuz, "float8_e4m3b11fnuz")
float8_e4m3fnuz = _make_scalar_type(ml_dtypes.float8_e4m3fnuz, "float8_e4m3fnuz")
float8_e5m2fnuz = _make_scalar_type(ml_dtypes.float8_e5m2fnuz, "float8_e5m2fnuz")
float8_e8m0fnu = _make_scalar_type(ml_dtypes.float8_e8m0fnu, "float8_e8m0fnu")
float6_e2m3fn = _make_scalar_type(ml_dtypes.float6_e2m3fn, "float6_e2m3fn")
float6_e3m2fn = _make_scalar_type(ml_dtypes.float6_e3m2fn, "float6_e3m2fn")
float4_e2m1fn = _make_scalar_type(ml_dtypes.float4_e2m1fn, "float4_e2m1fn")
int2 = _make_scalar_type(ml_dtypes.int2, "int2")
uint2 = _make_scalar_type(ml_dtypes.uint2, "uint2")
if dtypes.int1 is not None:  # ml_dtypes >= 0.6 (jnp.int1/uint1 are missing before, as in JAX)
    int1 = _make_scalar_type(dtypes.int1, "int1")
if dtypes.uint1 is not None:
    uint1 = _make_scalar_type(dtypes.uint1, "uint1")
int4 = _make_scalar_type(dtypes.int4, "int4")
uint4 = _make_scalar_type(dtypes.uint4, "uint4")

# as JAX, the default-width aliases are the 64-bit types (canonicalized to 32 bits when x64 is off,
# like any 64-bit dtype)
int_ = int64
uint = uint64
float_ = float64
complex_ = complex128
single, double = float32, float64
csingle, cdouble = complex64, complex128
half = float16
