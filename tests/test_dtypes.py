"""Tests of pyjax._src.dtypes: JAX's promotion lattice, weak types, canonicalization, dtype info.

The tables below were generated with JAX 0.10.2 (`jnp.promote_types`, `jax._src.dtypes.result_type`
and `lattice_result_type`, the latter on weak arrays made with `weak_type=True`) and are stored as
literal data. Codes: b=bool, i8=int8, u4=uint4, bf16, f16, c64, e4m3fn=float8_e4m3fn, e5m2=float8_e5m2;
a trailing `*` marks a weak result; `-` means TypePromotionError.
Argument tokens: `int`/`float`/`complex`/`bool` are the Python scalars 1, 1.0, 1j, True;
`T:int` the Python type; `W:f16` a weakly typed float16 array; `A:i64` a NumPy array;
`S:f32` a NumPy scalar; `None`; anything else a dtype.

Every answer is compared exactly: dtype rules do not depend on the machine. They can depend on
the installed ml_dtypes (`jnp.can_cast` is NumPy's, which asks ml_dtypes about its types), so
tests/data/jax_dtype_queries.json holds JAX's answers per ml_dtypes version (0.5.4, 0.6.0, 0.7.0)
and the test compares with the recording for the installed one.
"""
import itertools
import sys
import warnings

import ml_dtypes
import numpy as np
import pytest

import pyjax as jax
import pyjax.numpy as jnp
from pyjax import lax
from pyjax._src import dtypes
from pyjax._src import config as config_module
from pyjax._src.config import config
from pyjax import numpy_dtype_promotion

PROMOTE_X64 = """
x      b      i4     i8     i16    i32    i64    u4     u8     u16    u32    u64    e4m3fn e5m2   bf16   f16    f32    f64    c64    c128
b      b      i4     i8     i16    i32    i64    u4     u8     u16    u32    u64    e4m3fn e5m2   bf16   f16    f32    f64    c64    c128
i4     i4     i4     -      -      -      -      -      -      -      -      -      -      -      -      -      -      -      -      -
i8     i8     -      i8     i16    i32    i64    -      i16    i32    i64    f64    e4m3fn e5m2   bf16   f16    f32    f64    c64    c128
i16    i16    -      i16    i16    i32    i64    -      i16    i32    i64    f64    e4m3fn e5m2   bf16   f16    f32    f64    c64    c128
i32    i32    -      i32    i32    i32    i64    -      i32    i32    i64    f64    e4m3fn e5m2   bf16   f16    f32    f64    c64    c128
i64    i64    -      i64    i64    i64    i64    -      i64    i64    i64    f64    e4m3fn e5m2   bf16   f16    f32    f64    c64    c128
u4     u4     -      -      -      -      -      u4     -      -      -      -      -      -      -      -      -      -      -      -
u8     u8     -      i16    i16    i32    i64    -      u8     u16    u32    u64    e4m3fn e5m2   bf16   f16    f32    f64    c64    c128
u16    u16    -      i32    i32    i32    i64    -      u16    u16    u32    u64    e4m3fn e5m2   bf16   f16    f32    f64    c64    c128
u32    u32    -      i64    i64    i64    i64    -      u32    u32    u32    u64    e4m3fn e5m2   bf16   f16    f32    f64    c64    c128
u64    u64    -      f64    f64    f64    f64    -      u64    u64    u64    u64    e4m3fn e5m2   bf16   f16    f32    f64    c64    c128
e4m3fn e4m3fn -      e4m3fn e4m3fn e4m3fn e4m3fn -      e4m3fn e4m3fn e4m3fn e4m3fn e4m3fn -      -      -      -      -      -      -
e5m2   e5m2   -      e5m2   e5m2   e5m2   e5m2   -      e5m2   e5m2   e5m2   e5m2   -      e5m2   -      -      -      -      -      -
bf16   bf16   -      bf16   bf16   bf16   bf16   -      bf16   bf16   bf16   bf16   -      -      bf16   f32    f32    f64    c64    c128
f16    f16    -      f16    f16    f16    f16    -      f16    f16    f16    f16    -      -      f32    f16    f32    f64    c64    c128
f32    f32    -      f32    f32    f32    f32    -      f32    f32    f32    f32    -      -      f32    f32    f32    f64    c64    c128
f64    f64    -      f64    f64    f64    f64    -      f64    f64    f64    f64    -      -      f64    f64    f64    f64    c128   c128
c64    c64    -      c64    c64    c64    c64    -      c64    c64    c64    c64    -      -      c64    c64    c64    c128   c64    c128
c128   c128   -      c128   c128   c128   c128   -      c128   c128   c128   c128   -      -      c128   c128   c128   c128   c128   c128
"""

PROMOTE_X32_CHANGES = {('i8', 'u32'): 'i32', ('i16', 'u32'): 'i32', ('i32', 'u32'): 'i32', ('u32', 'i8'): 'i32', ('u32', 'i16'): 'i32', ('u32', 'i32'): 'i32'}

EXOTIC_PARTNERS = {
    'int1': 'b int1',
    'int2': 'b int2',
    'uint1': 'b uint1',
    'uint2': 'b uint2',
    'float4_e2m1fn': 'b i8 i16 i32 i64 u8 u16 u32 u64 float4_e2m1fn',
    'float6_e2m3fn': 'b i8 i16 i32 i64 u8 u16 u32 u64 float6_e2m3fn',
    'float6_e3m2fn': 'b i8 i16 i32 i64 u8 u16 u32 u64 float6_e3m2fn',
    'float8_e3m4': 'b i8 i16 i32 i64 u8 u16 u32 u64 float8_e3m4',
    'float8_e4m3': 'b i8 i16 i32 i64 u8 u16 u32 u64 float8_e4m3',
    'float8_e4m3b11fnuz': 'b i8 i16 i32 i64 u8 u16 u32 u64 float8_e4m3b11fnuz',
    'float8_e4m3fnuz': 'b i8 i16 i32 i64 u8 u16 u32 u64 float8_e4m3fnuz',
    'float8_e5m2fnuz': 'b i8 i16 i32 i64 u8 u16 u32 u64 float8_e5m2fnuz',
    'float8_e8m0fnu': 'b i8 i16 i32 i64 u8 u16 u32 u64 float8_e8m0fnu',
}

RESULT_TYPE_WITH_SCALARS = """
x          bool/32    int/32     float/32   complex/32 bool/64    int/64     float/64   complex/64
b          b          i32*       f32*       c64*       b          i64*       f64*       c128*
i4         i4         i4         -          -          i4         i4         -          -
i8         i8         i8         f32*       c64*       i8         i8         f64*       c128*
i16        i16        i16        f32*       c64*       i16        i16        f64*       c128*
i32        i32        i32        f32*       c64*       i32        i32        f64*       c128*
i64        i32        i32        f32*       c64*       i64        i64        f64*       c128*
u4         u4         u4         -          -          u4         u4         -          -
u8         u8         u8         f32*       c64*       u8         u8         f64*       c128*
u16        u16        u16        f32*       c64*       u16        u16        f64*       c128*
u32        u32        u32        f32*       c64*       u32        u32        f64*       c128*
u64        u32        u32        f32*       c64*       u64        u64        f64*       c128*
e4m3fn     e4m3fn     e4m3fn     e4m3fn     -          e4m3fn     e4m3fn     e4m3fn     -
e5m2       e5m2       e5m2       e5m2       -          e5m2       e5m2       e5m2       -
bf16       bf16       bf16       bf16       c64        bf16       bf16       bf16       c64
f16        f16        f16        f16        c64        f16        f16        f16        c64
f32        f32        f32        f32        c64        f32        f32        f32        c64
f64        f32        f32        f32        c64        f64        f64        f64        c128
c64        c64        c64        c64        c64        c64        c64        c64        c64
c128       c64        c64        c64        c64        c128       c128       c128       c128
b          b          i32*       f32*       c64*       b          i64*       f64*       c128*
int        i32*       i32*       f32*       c64*       i64*       i64*       f64*       c128*
float      f32*       f32*       f32*       c64*       f64*       f64*       f64*       c128*
complex    c64*       c64*       c64*       c64*       c128*      c128*      c128*      c128*
"""

LATTICE_WEAK_ARRAYS_X32 = """
x         int       float     complex   W:i8      W:u8      W:f16     W:bf16    W:c64     i8        u8        f16       bf16      c64
W:b       i32*      f32*      c64*      i8*       u8*       f16*      bf16*     c64*      i8        u8        f16       bf16      c64
W:i4      -         -         -         -         -         -         -         -         i8        u8        f16       bf16      c64
W:i8      i32*      f32*      c64*      i8*       i16*      f16*      bf16*     c64*      i8        u8        f16       bf16      c64
W:i16     i32*      f32*      c64*      i16*      i16*      f16*      bf16*     c64*      i8        u8        f16       bf16      c64
W:i32     i32*      f32*      c64*      i32*      i32*      f16*      bf16*     c64*      i8        u8        f16       bf16      c64
W:u4      -         -         -         -         -         -         -         -         i8        u8        f16       bf16      c64
W:u8      i32*      f32*      c64*      i16*      u8*       f16*      bf16*     c64*      i8        u8        f16       bf16      c64
W:u16     i32*      f32*      c64*      i32*      u16*      f16*      bf16*     c64*      i8        u8        f16       bf16      c64
W:u32     i32*      f32*      c64*      i32*      u32*      f16*      bf16*     c64*      i8        u8        f16       bf16      c64
W:e4m3fn  e4m3fn*   -         -         e4m3fn*   e4m3fn*   -         -         -         f32*      f32*      f16       bf16      c64
W:e5m2    e5m2*     -         -         e5m2*     e5m2*     -         -         -         f32*      f32*      f16       bf16      c64
W:bf16    bf16*     f32*      c64*      bf16*     bf16*     f32*      bf16*     c64*      f32*      f32*      f16       bf16      c64
W:f16     f16*      f32*      c64*      f16*      f16*      f16*      f32*      c64*      f32*      f32*      f16       bf16      c64
W:f32     f32*      f32*      c64*      f32*      f32*      f32*      f32*      c64*      f32*      f32*      f16       bf16      c64
W:c64     c64*      c64*      c64*      c64*      c64*      c64*      c64*      c64*      c64*      c64*      c64       c64       c64
"""

LATTICE_WEAK_ARRAYS_X64 = """
x         int       float     complex   W:i8      W:u8      W:f16     W:bf16    W:c64     i8        u8        f16       bf16      c64
W:b       i64*      f64*      c128*     i8*       u8*       f16*      bf16*     c64*      i8        u8        f16       bf16      c64
W:i4      -         -         -         -         -         -         -         -         i8        u8        f16       bf16      c64
W:i8      i64*      f64*      c128*     i8*       i16*      f16*      bf16*     c64*      i8        u8        f16       bf16      c64
W:i16     i64*      f64*      c128*     i16*      i16*      f16*      bf16*     c64*      i8        u8        f16       bf16      c64
W:i32     i64*      f64*      c128*     i32*      i32*      f16*      bf16*     c64*      i8        u8        f16       bf16      c64
W:i64     i64*      f64*      c128*     i64*      i64*      f16*      bf16*     c64*      i8        u8        f16       bf16      c64
W:u4      -         -         -         -         -         -         -         -         i8        u8        f16       bf16      c64
W:u8      i64*      f64*      c128*     i16*      u8*       f16*      bf16*     c64*      i8        u8        f16       bf16      c64
W:u16     i64*      f64*      c128*     i32*      u16*      f16*      bf16*     c64*      i8        u8        f16       bf16      c64
W:u32     i64*      f64*      c128*     i64*      u32*      f16*      bf16*     c64*      i8        u8        f16       bf16      c64
W:u64     f64*      f64*      c128*     f64*      u64*      f16*      bf16*     c64*      i8        u8        f16       bf16      c64
W:e4m3fn  e4m3fn*   -         -         e4m3fn*   e4m3fn*   -         -         -         f64*      f64*      f16       bf16      c64
W:e5m2    e5m2*     -         -         e5m2*     e5m2*     -         -         -         f64*      f64*      f16       bf16      c64
W:bf16    bf16*     f64*      c128*     bf16*     bf16*     f32*      bf16*     c64*      f64*      f64*      f16       bf16      c64
W:f16     f16*      f64*      c128*     f16*      f16*      f16*      f32*      c64*      f64*      f64*      f16       bf16      c64
W:f32     f32*      f64*      c128*     f32*      f32*      f32*      f32*      c64*      f64*      f64*      f16       bf16      c64
W:f64     f64*      f64*      c128*     f64*      f64*      f64*      f64*      c128*     f64*      f64*      f16       bf16      c64
W:c64     c64*      c128*     c128*     c64*      c64*      c64*      c64*      c64*      c128*     c128*     c64       c64       c64
W:c128    c128*     c128*     c128*     c128*     c128*     c128*     c128*     c128*     c128*     c128*     c64       c64       c64
"""

# (mode, args, (result_type x32, lattice_result_type x32, result_type x64, lattice_result_type x64))
SPOT_CHECKS = [
    ('standard', ('int',), ('i32*', 'i32*', 'i64*', 'i64*')),
    ('standard', ('float',), ('f32*', 'f32*', 'f64*', 'f64*')),
    ('standard', ('complex',), ('c64*', 'c64*', 'c128*', 'c128*')),
    ('standard', ('bool',), ('b', 'b', 'b', 'b')),
    ('standard', ('T:int',), ('i32*', 'i32*', 'i64*', 'i64*')),
    ('standard', ('T:float',), ('f32*', 'f32*', 'f64*', 'f64*')),
    ('standard', ('T:complex',), ('c64*', 'c64*', 'c128*', 'c128*')),
    ('standard', ('T:bool',), ('b', 'b', 'b', 'b')),
    ('standard', ('None',), ('f32', 'n/a', 'f64', 'n/a')),
    ('standard', ('None', 'int'), ('f32', 'n/a', 'f64', 'n/a')),
    ('standard', ('f64',), ('f32', 'f32', 'f64', 'f64')),
    ('standard', ('i64', 'int'), ('i32', 'i32', 'i64', 'i64')),
    ('standard', ('u64', 'int'), ('u32', 'u32', 'u64', 'u64')),
    ('standard', ('u32', 'i32'), ('i32', 'i32', 'i64', 'i64')),
    ('standard', ('c128', 'int'), ('c64', 'c64', 'c128', 'c128')),
    ('standard', ('S:f32', 'int'), ('f32', 'f32', 'f32', 'f32')),
    ('standard', ('S:f64', 'float'), ('f32', 'f32', 'f64', 'f64')),
    ('standard', ('S:i64',), ('i32', 'i32', 'i64', 'i64')),
    ('standard', ('A:i64',), ('i32', 'i32', 'i64', 'i64')),
    ('standard', ('A:f64', 'int'), ('f32', 'f32', 'f64', 'f64')),
    ('standard', ('A:u8', 'A:i8'), ('i16', 'i16', 'i16', 'i16')),
    ('standard', ('W:f16',), ('f32*', 'f16*', 'f64*', 'f16*')),
    ('standard', ('W:f16', 'W:f16'), ('f32*', 'f16*', 'f64*', 'f16*')),
    ('standard', ('W:f16', 'f16'), ('f16', 'f16', 'f16', 'f16')),
    ('standard', ('W:bf16', 'int'), ('f32*', 'bf16*', 'f64*', 'bf16*')),
    ('standard', ('W:i8', 'W:i8', 'int'), ('i32*', 'i32*', 'i64*', 'i64*')),
    ('standard', ('W:b', 'int'), ('i32*', 'i32*', 'i64*', 'i64*')),
    ('standard', ('W:b',), ('b', 'b', 'b', 'b')),
    ('standard', ('W:u8', 'W:u8'), ('u32*', 'u8*', 'u64*', 'u8*')),
    ('standard', ('W:u8', 'W:i8'), ('i32*', 'i16*', 'i64*', 'i16*')),
    ('standard', ('W:f32', 'i8'), ('f32*', 'f32*', 'f64*', 'f64*')),
    ('standard', ('W:i32', 'f16'), ('f16', 'f16', 'f16', 'f16')),
    ('standard', ('i8', 'int', 'float'), ('f32*', 'f32*', 'f64*', 'f64*')),
    ('standard', ('i8', 'u8', 'f16'), ('f16', 'f16', 'f16', 'f16')),
    ('standard', ('bf16', 'f16', 'int'), ('f32', 'f32', 'f32', 'f32')),
    ('standard', ('b', 'b'), ('b', 'b', 'b', 'b')),
    ('standard', ('b', 'int', 'bool'), ('i32*', 'i32*', 'i64*', 'i64*')),
    ('standard', ('e4m3fn', 'float', 'f16'), ('-', '-', '-', '-')),
    ('standard', ('i4', 'int'), ('i4', 'i4', 'i4', 'i4')),
    ('standard', ('i4', 'float'), ('-', '-', '-', '-')),
    ('standard', ('u4', 'b'), ('u4', 'u4', 'u4', 'u4')),
    ('standard', ('e5m2', 'complex'), ('-', '-', '-', '-')),
    ('standard', ('i8', 'i16', 'i32', 'u32'), ('i32', 'i32', 'i64', 'i64')),
    ('standard', ('u16', 'i8', 'c64'), ('c64', 'c64', 'c64', 'c64')),
    ('standard', ('f16', 'c64', 'float'), ('c64', 'c64', 'c64', 'c64')),
    ('standard', ('int', 'float', 'complex'), ('c64*', 'c64*', 'c128*', 'c128*')),
    ('standard', ('bool', 'float'), ('f32*', 'f32*', 'f64*', 'f64*')),
    ('standard', ('W:f16', 'W:i32', 'W:c64'), ('c64*', 'c64*', 'c128*', 'c64*')),
    ('standard', ('u64', 'i8'), ('i32', 'i32', 'f64*', 'f64*')),
    ('standard', ('i64', 'u64'), ('i32', 'i32', 'f64*', 'f64*')),
    ('standard', ('u64', 'i32'), ('i32', 'i32', 'f64*', 'f64*')),
    ('standard', ('A:u64', 'A:i64'), ('i32', 'i32', 'f64*', 'f64*')),
    ('standard', ('f64', 'c64'), ('c64', 'c64', 'c128', 'c128')),
    ('standard', ('u32', 'i64'), ('i32', 'i32', 'i64', 'i64')),
    ('standard', ('W:e4m3fn', 'W:e4m3fn'), ('f32*', 'e4m3fn*', 'f64*', 'e4m3fn*')),
    ('standard', ('W:i4', 'W:i4'), ('JAX:KeyError', 'i4*', 'JAX:KeyError', 'i4*')),
    ('standard', ('W:b', 'W:b'), ('b', 'b', 'b', 'b')),
    ('standard', ('T:int', 'T:float'), ('f32*', 'f32*', 'f64*', 'f64*')),
    ('standard', ('T:bool', 'int'), ('i32*', 'i32*', 'i64*', 'i64*')),
    ('strict', ('i8', 'i16'), ('-', '-', '-', '-')),
    ('strict', ('f32', 'int'), ('f32', 'f32', 'f32', 'f32')),
    ('strict', ('f32', 'float'), ('f32', 'f32', 'f32', 'f32')),
    ('strict', ('i32', 'float'), ('-', '-', '-', '-')),
    ('strict', ('int', 'float'), ('f32*', 'f32*', 'f64*', 'f64*')),
    ('strict', ('b', 'int'), ('-', '-', '-', '-')),
    ('strict', ('bool', 'int'), ('-', '-', '-', '-')),
    ('strict', ('i8', 'int'), ('i8', 'i8', 'i8', 'i8')),
    ('strict', ('f16', 'complex'), ('-', '-', '-', '-')),
    ('strict', ('W:f16', 'int'), ('f32*', 'f32*', 'f64*', 'f64*')),
    ('strict', ('W:i8', 'W:i16'), ('i32*', 'i32*', 'i64*', 'i64*')),
    ('strict', ('W:f32', 'f32'), ('f32', 'f32', 'f32', 'f32')),
    ('strict', ('u8', 'int'), ('u8', 'u8', 'u8', 'u8')),
    ('strict', ('f32', 'f32'), ('f32', 'f32', 'f32', 'f32')),
    ('strict', ('int', 'int'), ('i32*', 'i32*', 'i64*', 'i64*')),
    ('strict', ('b', 'b'), ('b', 'b', 'b', 'b')),
    ('strict', ('e4m3fn', 'float'), ('e4m3fn', 'e4m3fn', 'e4m3fn', 'e4m3fn')),
    ('strict', ('i4', 'int'), ('i4', 'i4', 'i4', 'i4')),
    ('strict', ('c64', 'float'), ('c64', 'c64', 'c64', 'c64')),
    ('strict', ('float', 'complex'), ('c64*', 'c64*', 'c128*', 'c128*')),
    ('strict', ('c64', 'c128'), ('c64', 'c64', '-', '-')),
]

CODES = {"b": "bool", "i4": "int4", "i8": "int8", "i16": "int16", "i32": "int32", "i64": "int64",
         "u4": "uint4", "u8": "uint8", "u16": "uint16", "u32": "uint32", "u64": "uint64",
         "e4m3fn": "float8_e4m3fn", "e5m2": "float8_e5m2", "bf16": "bfloat16", "f16": "float16",
         "f32": "float32", "f64": "float64", "c64": "complex64", "c128": "complex128"}


def _dt(code):
    return np.dtype(CODES.get(code, code))


def _code(d, weak=False):
    inv = {np.dtype(v): k for k, v in CODES.items()}
    return inv.get(d, str(d)) + ("*" if weak else "")


class WeakArray:
    """A stand-in for a weakly typed Array: only `.dtype` and `.weak_type`."""

    def __init__(self, dtype):
        self.dtype, self.weak_type = np.dtype(dtype), True


class AvalArray:
    """A stand-in for a tracer: weak type found on `.aval`."""

    class _Aval:
        def __init__(self, dtype, weak_type):
            self.dtype, self.weak_type = dtype, weak_type

    def __init__(self, dtype, weak_type):
        self.dtype = np.dtype(dtype)
        self.aval = self._Aval(self.dtype, weak_type)


def _arg(tok):
    scalars = {"int": 1, "float": 1.0, "complex": 1j, "bool": True, "None": None}
    if tok in scalars:
        return scalars[tok]
    kind, _, code = tok.partition(":")
    if kind == "T":
        return {"int": int, "float": float, "complex": complex, "bool": bool}[code]
    if kind == "W":
        return WeakArray(_dt(code))
    if kind == "A":
        return np.zeros((), _dt(code))
    if kind == "S":
        return np.zeros((), _dt(code))[()]
    return _dt(tok)


def _table(text):
    """{(row, column): entry} of a whitespace-aligned table whose first row names the columns."""
    header, *rows = [line.split() for line in text.strip().splitlines()]
    return {(row[0], col): cell for row in rows for col, cell in zip(header[1:], row[1:], strict=True)}


def _outcome(fn, *args):
    try:
        d, weak = fn(*args)
    except dtypes.TypePromotionError:
        return "-"
    return _code(d, weak)


def _result_type(*args):
    return dtypes.result_type(*args, return_weak_type_flag=True)


@pytest.fixture(params=[False, True], ids=["x32", "x64"])
def x64(request):
    prev = config.read("jax_enable_x64")
    config.update("jax_enable_x64", request.param)
    yield request.param
    config.update("jax_enable_x64", prev)


@pytest.fixture
def promotion_mode(request):
    prev = config.read("jax_numpy_dtype_promotion")
    yield lambda mode: config.update("jax_numpy_dtype_promotion", mode)
    config.update("jax_numpy_dtype_promotion", prev)


# --- the lattice ------------------------------------------------------------------------------

def test_promote_types_table(x64):
    expected = _table(PROMOTE_X64)
    if not x64:
        expected.update(PROMOTE_X32_CHANGES)
    got = {(a, b): _outcome(lambda: (dtypes.promote_types(_dt(a), _dt(b)), False))
           for a, b in expected}
    assert got == expected


def test_promote_types_small_types(x64):
    every = [*CODES, *EXOTIC_PARTNERS]
    for small, partners in EXOTIC_PARTNERS.items():
        for other in every:
            want = small if other in partners.split() or other == small else "-"
            got = _outcome(lambda: (dtypes.promote_types(_dt(small), _dt(other)), False))
            assert got == want, (small, other)


def test_promote_types_python_types(x64):
    # Python types are weak in promote_types too, and the result is not canonicalized.
    assert dtypes.promote_types(int, float) == np.float64
    assert dtypes.promote_types(int, int) == np.int64
    assert dtypes.promote_types(int, np.uint8) == np.uint8
    assert dtypes.promote_types(bool, int) == np.int64
    assert dtypes.promote_types(float, "float16") == np.float16
    assert dtypes.promote_types(complex, dtypes.bfloat16) == np.complex64
    assert dtypes.promote_types("int4", int) == np.dtype(ml_dtypes.int4)


def test_lattice_laws(x64):
    # On lattice nodes (weak nodes included) the least upper bound is symmetric, idempotent and
    # associative wherever defined, with bool at the bottom. (promote_types itself is not
    # associative: it turns the weak f* into float64, as JAX does.)
    lattice = dtypes._lattice()
    nodes = [_dt(c) for c in CODES] + [dtypes._i_weak, dtypes._f_weak, dtypes._c_weak]

    def lub(*ns):
        try:
            return lattice.lub(ns)
        except dtypes.TypePromotionError:
            return None

    for a in nodes:
        assert lub(a, a) is a or lub(a, a) == a
        assert lub(np.dtype(np.bool_), a) == a
    for a, b in itertools.product(nodes, nodes):
        ab = lub(a, b)
        assert _same(ab, lub(b, a))
        for c in nodes:
            assert _same(lub(a, b, c), None if ab is None else lub(ab, c)), (a, b, c)


def _same(x, y):
    # NB: np.dtype("float64") == None is True, hence the explicit None checks.
    return (x is None) == (y is None) and (x is None or x == y)


def test_result_type_with_python_scalars(x64):
    expected = {(row, col): cell for (row, col), cell in _table(RESULT_TYPE_WITH_SCALARS).items()
                if col.endswith("/64" if x64 else "/32")}
    got = {(row, col): _outcome(_result_type, _arg(row), _arg(col.split("/")[0]))
           for row, col in expected}
    assert got == expected


def test_lattice_result_type_weak_arrays(x64):
    expected = _table(LATTICE_WEAK_ARRAYS_X64 if x64 else LATTICE_WEAK_ARRAYS_X32)
    got = {(row, col): _outcome(dtypes.lattice_result_type, _arg(row), _arg(col))
           for row, col in expected}
    assert got == expected


@pytest.mark.parametrize("mode,args,want", SPOT_CHECKS, ids=lambda v: repr(v))
def test_result_type_spot_checks(x64, promotion_mode, mode, args, want):
    promotion_mode(mode)
    rt32, lrt32, rt64, lrt64 = want
    want_rt, want_lrt = (rt64, lrt64) if x64 else (rt32, lrt32)
    if want_rt == "JAX:KeyError":      # NB: JAX 0.10.2 crashes on a weak int4 result.
        want_rt = "i64*" if x64 else "i32*"
    assert _outcome(_result_type, *map(_arg, args)) == want_rt
    if want_lrt != "n/a":
        assert _outcome(dtypes.lattice_result_type, *map(_arg, args)) == want_lrt


def test_result_type_examples_from_the_docs(x64):
    f, i, c = ((np.float64, np.int64, np.complex128) if x64 else
               (np.float32, np.int32, np.complex64))
    assert dtypes.result_type(np.float16, 1.0) == np.float16
    assert dtypes.result_type(np.int32, 1.5, return_weak_type_flag=True) == (f, True)
    assert dtypes.result_type(np.uint8, 300) == np.uint8
    assert dtypes.result_type(np.bool_, 1, return_weak_type_flag=True) == (i, True)
    assert dtypes.result_type(1, 2.0, 3j, return_weak_type_flag=True) == (c, True)
    assert dtypes.result_type(np.float32, np.float32, return_weak_type_flag=True) == (np.float32, False)
    assert dtypes.result_type(AvalArray(np.float16, True), 1) == f
    assert dtypes.lattice_result_type(AvalArray(np.float16, True), 1) == (np.float16, True)
    assert dtypes.lattice_result_type(AvalArray(np.float16, False), 1) == (np.float16, False)


def test_result_type_needs_an_argument():
    with pytest.raises(ValueError, match="at least one"):
        dtypes.result_type()


def test_promotion_errors_explain():
    with pytest.raises(dtypes.TypePromotionError, match="int4.*int8|int8.*int4"):
        dtypes.promote_types("int4", "int8")
    with pytest.raises(dtypes.TypePromotionError, match="float8_e4m3fn"):
        dtypes.result_type("float8_e4m3fn", np.float16)
    assert issubclass(dtypes.TypePromotionError, ValueError)


def test_result_type_follows_x64_at_call_time():
    prev = config.read("jax_enable_x64")
    try:
        for flag, want in [(False, np.float32), (True, np.float64), (False, np.float32)]:
            config.update("jax_enable_x64", flag)
            assert dtypes.result_type(1.0) == want
            assert dtypes.canonicalize_dtype(np.float64) == want
            assert dtypes.default_float_dtype() == want
            assert dtypes.promote_types(np.uint32, np.int32) == (np.int64 if flag else np.int32)
    finally:
        config.update("jax_enable_x64", prev)


# --- canonicalization and dtype() -------------------------------------------------------------

def test_canonicalize_dtype(x64):
    pairs = {np.int64: np.int32, np.uint64: np.uint32, np.float64: np.float32,
             np.complex128: np.complex64, int: np.int32, float: np.float32, complex: np.complex64,
             "float64": np.float32, "int64": np.int32, None: np.float32, bool: np.bool_}
    for given, narrow in pairs.items():
        want = np.dtype(given) if x64 and given is not None else np.dtype(narrow)
        if given is None and x64:
            want = np.dtype(np.float64)
        assert dtypes.canonicalize_dtype(given) == want, given
    for keep in [np.int8, np.uint16, np.float16, "bfloat16", "int4", "float8_e5m2", np.complex64]:
        assert dtypes.canonicalize_dtype(keep) == np.dtype(keep)
    assert isinstance(dtypes.canonicalize_dtype(np.float32), np.dtype)


def test_default_dtypes(x64):
    bits = 64 if x64 else 32
    assert dtypes.default_float_dtype() == np.dtype(f"float{bits}")
    assert dtypes.default_int_dtype() == np.dtype(f"int{bits}")
    assert dtypes.default_uint_dtype() == np.dtype(f"uint{bits}")
    assert dtypes.default_complex_dtype() == np.dtype(f"complex{2 * bits}")


def test_dtype_of_values_and_dtype_likes(x64):
    class ScalarType:                       # like jnp.float32: a class with a `.dtype`
        dtype = np.dtype(np.float16)

    assert dtypes.dtype_of(True) == np.bool_
    assert dtypes.dtype_of(1) == np.int64
    assert dtypes.dtype_of(1.0) == np.float64
    assert dtypes.dtype_of(1j) == np.complex128
    assert dtypes.dtype_of(float) == np.float64
    assert dtypes.dtype_of("bfloat16") == np.dtype(ml_dtypes.bfloat16)
    assert dtypes.dtype_of(dtypes.bfloat16) == np.dtype(ml_dtypes.bfloat16)
    assert dtypes.dtype_of(np.float32) == np.float32
    assert dtypes.dtype_of(np.dtype("int8")) == np.int8
    assert dtypes.dtype_of(np.zeros(3, np.uint16)) == np.uint16
    assert dtypes.dtype_of(np.float32(1)) == np.float32
    assert dtypes.dtype_of(ScalarType) == np.float16
    assert dtypes.dtype_of(WeakArray(np.int8)) == np.int8
    assert dtypes.dtype_of(None) == (np.float64 if x64 else np.float32)
    assert dtypes.dtype_of(1.0, canonicalize=True) == (np.float64 if x64 else np.float32)
    assert dtypes.dtype_of(np.int64, canonicalize=True) == (np.int64 if x64 else np.int32)
    assert dtypes.dtype_of(2**70) == np.int64          # the value is not checked here


@pytest.mark.parametrize("bad", ["floaty", "float33", "object", "S", "U", np.dtype("S3"),
                                 np.dtype(object)], ids=repr)
def test_invalid_dtypes_raise_type_error_naming_the_value(bad):
    for fn in [dtypes.dtype_of, dtypes.canonicalize_dtype, dtypes.result_type]:
        with pytest.raises(TypeError, match=str(bad).replace("|", r"\|").replace("'", "")):
            fn(bad)
    # as JAX: a name NumPy does not know is a TypeError, a NumPy type JAX can't promote a ValueError
    known_to_numpy = bad not in ("floaty", "float33")
    with pytest.raises(ValueError if known_to_numpy else TypeError):
        dtypes.promote_types(bad, np.float32)


def test_dtype_of_unknown_object():
    with pytest.raises(TypeError, match=r"\[1, 2\]"):
        dtypes.dtype_of([1, 2])
    with pytest.raises(TypeError, match="object"):
        dtypes.dtype_of(object())


# jax._src.dtypes.dtype of each value, per jax_explicit_x64_dtypes mode (x64 off), recorded from
# JAX 0.10.2: (dtype name or exception class, whether it warned)
_DTYPE_VALUES = ["float64", np.dtype("int64"), np.uint64, "float32", 1, 1.0, 1j, True, int, float,
                 complex, np.float64(1), np.zeros(2, np.int64), jnp.float64]
_JAX_DTYPE_OF = {
    "allow": "float64 int64 uint64 float32 int32 float32 complex64 bool int32 float32 complex64 "
             "float32 int32 float32",
    "warn": "float32! int32! uint32! float32 int32 float32 complex64 bool int32 float32 complex64 "
            "float32 int32 float32",
    "error": "ValueError ValueError ValueError float32 int32 float32 complex64 bool int32 float32 "
             "complex64 float32 int32 float32",
}


@pytest.mark.parametrize("mode", sorted(_JAX_DTYPE_OF))
def test_jax_internal_dtype_canonicalizes_as_jax(mode):
    """`jax._src.dtypes.dtype` canonicalizes Python scalars and NumPy values and applies the
    explicit-x64 mode to dtypes asked for by name or NumPy type (JAX's dtypes_test)."""
    got = []
    with jax.enable_x64(False), config_module.explicit_x64_dtypes(mode), \
            warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        for v in _DTYPE_VALUES:
            n = len(caught)
            try:
                got.append(str(dtypes.dtype(v)) + ("!" if len(caught) > n else ""))
            except ValueError as e:
                assert "Explicitly requested dtype" in str(e)
                got.append("ValueError")
    assert got == _JAX_DTYPE_OF[mode].split()
    with pytest.raises(ValueError, match="Invalid argument to dtype: None"):
        dtypes.dtype(None)
    with pytest.raises(TypeError, match="Cannot determine dtype of"):
        dtypes.dtype([1, 2])
    with pytest.raises(TypeError, match="with dtype object is not a valid JAX array type"):
        dtypes.dtype(np.zeros(2, object))


def test_dtype_helpers_as_jax():
    """JAX 0.10.2's values: the default scalar types, itemsize_bits(None), canonicalize_value,
    primal_tangent_dtype's name and equality, the wording of promotion errors."""
    assert (dtypes.bool_, dtypes.int_, dtypes.uint, dtypes.float_, dtypes.complex_) == (
        np.bool_, np.int64, np.uint64, np.float64, np.complex128)
    with pytest.raises(ValueError, match="dtype cannot be None"):
        dtypes.itemsize_bits(None)
    with jax.enable_x64(False):
        assert [str(dtypes.canonicalize_value(v).dtype)
                for v in (np.zeros(2, np.int64), np.float64(1))] == ["int32", "float32"]
    assert dtypes.canonicalize_value(np.zeros(2, dtypes.float0)).dtype == dtypes.float0
    dt = dtypes.primal_tangent_dtype(jnp.int8, jnp.bfloat16)
    assert repr(dt) == "PrimalTangentDType{i8/bf16}" and dt == dtypes.primal_tangent_dtype(np.int8, "bfloat16")
    assert (dt.primal_dtype, dt.tangent_dtype) == (np.int8, jnp.bfloat16)
    assert repr(dtypes.primal_tangent_dtype(np.int8, np.float32, name="di8")) == "di8"
    for a, b, phrase in [("float8_e4m3fn", "float32", "8-bit floats do not support implicit promotion"),
                         ("float4_e2m1fn", "float32", "4-bit floats do not support implicit promotion"),
                         ("int4", "int8", "1-bit, 2-bit and 4-bit integers do not support")]:
        with pytest.raises(dtypes.TypePromotionError,
                           match=rf"Input dtypes \('{min(a, b)}', '{max(a, b)}'\) have no available "
                                 rf"implicit dtype promotion path.*{phrase}"):
            dtypes.promote_types(a, b)
    with numpy_dtype_promotion("strict"), pytest.raises(
            dtypes.TypePromotionError, match="when jax_numpy_dtype_promotion=strict"):
        dtypes.promote_types("int32", "float32")


def test_check_and_canonicalize_user_dtype(x64):
    assert dtypes.check_and_canonicalize_user_dtype(int) == (np.int64 if x64 else np.int32)
    assert dtypes.check_and_canonicalize_user_dtype(bool) == np.bool_
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        got = dtypes.check_and_canonicalize_user_dtype("float64", "zeros")
    assert got == (np.float64 if x64 else np.float32)
    assert len(caught) == (0 if x64 else 1)
    if caught:
        assert "Explicitly requested dtype float64 requested in zeros" in str(caught[0].message)
    with pytest.raises(ValueError):
        dtypes.check_and_canonicalize_user_dtype(None)


def test_weak_types():
    assert dtypes.is_weakly_typed(1) and dtypes.is_weakly_typed(1.0) and dtypes.is_weakly_typed(1j)
    assert not dtypes.is_weakly_typed(True)          # as JAX: Python bools are not weak
    assert not dtypes.is_weakly_typed(np.float32(1)) and not dtypes.is_weakly_typed(np.float64(1))
    assert not dtypes.is_weakly_typed(np.zeros(3))
    assert dtypes.is_weakly_typed(WeakArray(np.int8))
    assert dtypes.is_weakly_typed(AvalArray(np.int8, True))
    assert not dtypes.is_weakly_typed(AvalArray(np.int8, False))


def test_is_python_scalar():
    assert all(map(dtypes.is_python_scalar, [True, 1, 1.0, 1j]))
    assert not any(map(dtypes.is_python_scalar, [np.float64(1), np.bool_(1), np.zeros(()), "1", None]))


# --- categories, info, conversions ------------------------------------------------------------

def test_categories():
    bf16, i4, u4 = (np.dtype(t) for t in (ml_dtypes.bfloat16, ml_dtypes.int4, ml_dtypes.uint4))
    assert bf16 in dtypes.float_types and bf16 in dtypes.inexact_types
    assert np.dtype(ml_dtypes.float8_e4m3fn) in dtypes.float_types
    assert i4 in dtypes.int_types and u4 in dtypes.uint_types
    assert np.dtype(np.complex64) in dtypes.inexact_types
    assert dtypes.bool_types == {np.dtype(np.bool_)}
    groups = [dtypes.bool_types, dtypes.int_types, dtypes.uint_types, dtypes.float_types,
              dtypes.complex_types]
    assert sum(map(len, groups)) == len(set().union(*groups))


def test_issubdtype():
    yes = [(dtypes.bfloat16, np.floating), ("bfloat16", np.inexact), ("bfloat16", "bfloat16"),
           (float, np.floating), ("float8_e4m3fn", np.number), (np.float32, "float32"),
           (np.float64, float), ("int4", np.signedinteger), ("int4", np.integer),
           ("uint4", np.unsignedinteger), ("int4", "int4"), ("float8_e5m2", np.floating),
           (dtypes.float0, np.generic), (dtypes.prng_key, dtypes.extended),
           (dtypes.prng_key, np.generic), (dtypes.extended, np.generic), (np.int8, np.integer),
           (np.complex64, np.complexfloating), (np.bool_, np.bool_)]
    no = [("bfloat16", np.float16), (np.float32, float), (np.int32, int), ("uint4", np.signedinteger),
          ("int4", "int8"), (dtypes.float0, np.number), (dtypes.float0, dtypes.extended),
          (np.float32, dtypes.extended), ("bfloat16", np.integer), (np.int8, np.floating)]
    for a, b in yes:
        assert dtypes.issubdtype(a, b), (a, b)
    for a, b in no:
        assert not dtypes.issubdtype(a, b), (a, b)


class FakeKeyDType(dtypes.ExtendedDType):
    """A minimal extended dtype, as a PRNG implementation would define."""
    type = dtypes.prng_key
    _rules = None
    itemsize = 8

    def __str__(self):
        return "key<fake>"


def test_extended_dtypes():
    key = FakeKeyDType()
    assert dtypes.issubdtype(key, dtypes.extended) and dtypes.issubdtype(key, dtypes.prng_key)
    assert not dtypes.issubdtype(key, np.floating)
    assert dtypes.issubdtype(key, key)
    assert dtypes.canonicalize_dtype(key, allow_extended_dtype=True) is key
    with pytest.raises(TypeError):
        dtypes.canonicalize_dtype(key)

    class KeyArray:
        dtype, weak_type = key, False

    assert dtypes.result_type(KeyArray(), KeyArray()) is key
    with pytest.raises(dtypes.TypePromotionError):
        dtypes.result_type(KeyArray(), np.float32)
    assert dtypes.short_dtype_name(key) == "key<fake>"


def test_float0():
    assert dtypes.float0 == np.dtype([("float0", np.void, 0)])
    assert dtypes.float0.itemsize == 0
    assert dtypes.is_float0(dtypes.float0) and not dtypes.is_float0(np.dtype(np.float32))
    assert dtypes.dtype_of(np.zeros(3, dtypes.float0)) == dtypes.float0
    assert dtypes.tangent_dtype_of(np.dtype(np.int32)) == dtypes.float0
    assert dtypes.tangent_dtype_of(np.dtype(np.bool_)) == dtypes.float0
    assert dtypes.tangent_dtype_of(np.dtype(ml_dtypes.bfloat16)) == np.dtype(ml_dtypes.bfloat16)
    with pytest.raises(ValueError):  # as JAX 0.10.2 (recorded in jax_dtype_queries.json)
        dtypes.promote_types(dtypes.float0, np.float32)
    assert dtypes.short_dtype_name(dtypes.float0) == "float0"


def test_finfo_iinfo():
    bf = dtypes.finfo(dtypes.bfloat16)
    assert bf.bits == 16 and float(bf.eps) == 2.0**-7 and float(bf.max) == pytest.approx(3.38953e38, rel=1e-5)
    assert float(dtypes.finfo("float8_e4m3fn").max) == 448.0
    assert dtypes.finfo(np.float32).eps == np.finfo(np.float32).eps
    assert (dtypes.iinfo("int4").min, dtypes.iinfo("int4").max) == (-8, 7)
    assert dtypes.iinfo(np.uint8).max == 255


def test_scalar_type_of():
    cases = [(1, int), (np.float32(1), float), (np.zeros(2, ml_dtypes.bfloat16), float), (True, bool),
             (np.zeros(3, np.int8), int), (np.zeros(3, np.uint32), int), (1j, complex), ("int4", int)]
    for x, want in cases:
        assert dtypes.scalar_type_of(x) is want, x


def test_itemsize_bits():
    got = [dtypes.itemsize_bits(t) for t in
           ["int4", "uint2", "bool", "float8_e4m3fn", "float32", "float4_e2m1fn", "float6_e2m3fn",
            "int1", "complex128"]]
    assert got == [4, 2, 8, 8, 32, 4, 6, 1, 128]
    with pytest.raises(ValueError):
        dtypes.itemsize_bits(dtypes.float0)


# to_inexact_dtype / to_complex_dtype / to_numeric_dtype as JAX 0.10.2 gives them (any x64).
KIND_CONVERSIONS = """
x      inexact complex numeric
b      f32     c64     i32
i4     f32     c64     i4
i8     f32     c64     i8
i32    f32     c64     i32
i64    f64     c128    i64
u8     f32     c64     u8
u32    f32     c64     u32
u64    f64     c128    u64
e4m3fn e4m3fn  c64     e4m3fn
bf16   bf16    c64     bf16
f16    f16     c64     f16
f32    f32     c64     f32
f64    f64     c128    f64
c64    c64     c64     c64
c128   c128    c128    c128
"""


def test_kind_conversions(x64):
    fns = {"inexact": dtypes.to_inexact_dtype, "complex": dtypes.to_complex_dtype,
           "numeric": dtypes.to_numeric_dtype}
    expected = _table(KIND_CONVERSIONS)
    assert {(r, c): _code(fns[c](_dt(r))) for r, c in expected} == expected


def test_short_dtype_name():
    names = ["bool", "int8", "uint32", "bfloat16", "float16", "float8_e4m3fn", "complex64", "int4",
             "float4_e2m1fn"]
    assert [dtypes.short_dtype_name(np.dtype(n)) for n in names] == \
        ["bool", "i8", "u32", "bf16", "f16", "f8_e4m3fn", "c64", "i4", "f4_e2m1fn"]


def test_supports_inf():
    assert dtypes.supports_inf(np.dtype(np.float16)) and dtypes.supports_inf(np.dtype("float8_e5m2"))
    assert not dtypes.supports_inf(np.dtype("float8_e4m3fn"))
    assert not dtypes.supports_inf(np.dtype(np.int32))


# --- the public module ------------------------------------------------------------------------

def test_public_module_reexports():
    import pyjax.dtypes as public
    names = {"TypePromotionError", "bfloat16", "canonicalize_dtype", "extended", "finfo", "float0",
             "iinfo", "issubdtype", "itemsize_bits", "prng_key", "result_type", "scalar_type_of"}
    assert {n for n in vars(public) if not n.startswith("_")} == names
    # canonicalize_dtype is JAX's lenient one (any NumPy dtype); the internal one validates
    assert all(getattr(public, n) is getattr(dtypes, n) for n in names - {"canonicalize_dtype"})
    assert public.canonicalize_dtype is dtypes.public_canonicalize_dtype


def test_no_jax_import():
    assert "jax" not in sys.modules


# --- dtype queries on odd inputs, against JAX 0.10.2 ---------------------------------------------
# tests/data/record_dtype_queries.py (run with a real JAX) lists the calls and recorded JAX's
# answers into tests/data/jax_dtype_queries.json; the same sources are evaluated here with pyjax.

def _dtype_query_table():
    import importlib.util
    import json
    import os
    here = os.path.join(os.path.dirname(__file__), "data")
    spec = importlib.util.spec_from_file_location(
        "record_dtype_queries", os.path.join(here, "record_dtype_queries.py"))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)  # defines the queries; imports jax only when run as a script
    with open(os.path.join(here, "jax_dtype_queries.json")) as f:
        data = json.load(f)
    # jnp.can_cast is NumPy's can_cast in JAX as in pyjax, and its answers for ml_dtypes' types
    # changed between ml_dtypes releases: compare with JAX's answers under the installed one.
    return module, module.expected_for(data, ml_dtypes.__version__)[1]


def test_dtype_queries_on_odd_inputs_match_jax():
    import pyjax.dtypes
    import pyjax.numpy as jnp
    record, expected = _dtype_query_table()
    scope = {"np": np, "jnp": jnp, "dtypes": pyjax.dtypes}
    mismatches = []
    for fn, args in record.queries():
        k = record.key(fn, args)
        got = record.evaluate(fn, args, scope)
        if got != expected[k]:
            mismatches.append(f"{k}: JAX {expected[k]}, pyjax {got}")
    assert not mismatches, f"{len(mismatches)} differ:\n" + "\n".join(mismatches[:40])


def test_issubdtype_of_object_and_str_is_false():
    import pyjax.numpy as jnp
    assert not jnp.issubdtype(np.float32, object)
    assert not jnp.issubdtype(jnp.bfloat16, np.object_)
    assert not jnp.issubdtype("float32", str)
    assert jnp.issubdtype(np.dtype("O"), object)
    assert jnp.issubdtype(jnp.bfloat16, np.floating) and not jnp.issubdtype(jnp.bfloat16, np.integer)


def test_isdtype_kinds():
    import pyjax.numpy as jnp
    assert jnp.isdtype(jnp.bfloat16, "real floating") and jnp.isdtype(jnp.int4, "signed integer")
    assert jnp.isdtype(np.uint8, ("bool", "integral")) and not jnp.isdtype(np.float32, "numeric" and "bool")
    with pytest.raises(ValueError, match="bogus"):
        jnp.isdtype(np.float32, "bogus")
    with pytest.raises(TypeError):
        jnp.isdtype(np.float32, np.floating)


def test_default_width_aliases_are_the_64_bit_types():
    """Issue 23: as JAX 0.10.2, jnp.int_/uint/float_/complex_ are the 64-bit scalar types, and
    (like any 64-bit dtype) canonicalize to 32 bits when x64 is off. Recorded from JAX:
    jnp.int_ is jnp.int64; repr(jnp.float_(1.5)) == 'Array(1.5, dtype=float32)';
    jnp.issubdtype(jnp.int32, jnp.int_) is False."""
    import pyjax
    import pyjax.numpy as jnp
    assert (jnp.int_, jnp.uint, jnp.float_, jnp.complex_) == (
        jnp.int64, jnp.uint64, jnp.float64, jnp.complex128)
    assert np.dtype(jnp.float_) == np.float64 and jnp.dtype(jnp.int_) == np.int64
    assert not jnp.issubdtype(np.int32, jnp.int_)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert repr(jnp.float_(1.5)) == "Array(1.5, dtype=float32)"
        assert jnp.zeros(2, jnp.complex_).dtype == np.complex64
        assert jnp.arange(3, dtype=jnp.uint).dtype == np.uint32
    assert pyjax.dtypes.canonicalize_dtype(jnp.float_) == np.float32


# safe_to_cast under 'standard' and 'strict' promotion, recorded from JAX 0.10.2
# (jax._src.dtypes.safe_to_cast; "error" is a TypePromotionError)
_SAFE_TO_CAST = [
    (("int16", "float32"), (True, "error")), (("float32", "int16"), (False, "error")),
    (("float32", "complex64"), (True, "error")), (("complex64", "float32"), (False, "error")),
    (("int8", int), (True, "error")), ((int, "int8"), (True, True)),
    (("float32", float), (True, True)), ((bool, int), (True, "error")),
    (("uint8", "int16"), (True, "error")), (("int32", "bfloat16"), (True, "error")),
]


@pytest.mark.parametrize("pair,expected", _SAFE_TO_CAST)
def test_safe_to_cast_matches_jax(pair, expected):
    for mode, want in zip(("standard", "strict"), expected):
        with numpy_dtype_promotion(mode):
            if want == "error":
                with pytest.raises(dtypes.TypePromotionError):
                    dtypes.safe_to_cast(*pair)
            else:
                assert dtypes.safe_to_cast(*pair) is want


def test_jax_type_of_dtype_and_weak_type():
    """JAX's type vocabulary (recorded from JAX 0.10.2): a weak dtype's JAX type is the Python
    scalar type of its kind, a weak bool stays bool; int/float/complex are weak."""
    weak = [dtypes._jax_type(np.dtype(d), True)
            for d in ("bool", "int8", "uint32", "float16", "bfloat16", "complex64")]
    assert weak == [np.dtype(bool), int, int, float, float, complex]
    back = [dtypes._jax_type(*dtypes._dtype_and_weaktype(v))
            for v in (int, float, complex, np.dtype("int8"), 1.0, True)]
    assert back == [int, float, complex, np.dtype("int8"), float, np.dtype(bool)]
    assert dtypes.python_scalar_types_to_dtypes[int] == np.dtype("int64")
    assert dtypes.default_types["i"]() == np.dtype("int32")   # x64 off


def test_a_64_bit_array_without_x64_promotes_as_jax():
    """Issue 23 (JAX's x64_context_test): an array made float64 inside `jax.enable_x64()` keeps
    its type alone and met with its own type, and promotes to the 32-bit result met with anything
    else (warning, as JAX's 'explicit' mode says); `*_like` without a dtype keeps its type.
    Dtypes as JAX 0.10.2 gives them."""
    with jax.enable_x64(True):
        x = jnp.array(5., jnp.float64)
        i = jnp.array(5, jnp.int64)
    assert [jnp.sin(x).dtype, (x + x).dtype, jnp.maximum(x, x).dtype] == [np.float64] * 3
    with pytest.warns(UserWarning, match="Explicitly requested dtype float64"):
        assert (x - 3.0).dtype == np.float32
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert [(x * 2.0).dtype, (x + jnp.float32(1)).dtype, (i + 1).dtype, (i + x).dtype,
                jnp.result_type(x, 1.0)] == [np.float32, np.float32, np.int32, np.float32,
                                             np.float32]
        assert jnp.ones_like(x, dtype=jnp.float64).dtype == np.float32
    assert [jnp.ones_like(x).dtype, jnp.zeros_like(x).dtype, jnp.full_like(x, 2).dtype,
            lax.full_like(x, 1).dtype] == [np.float64] * 4
    assert jnp.ones_like(np.ones(2, np.float64)).dtype == np.float32


def test_an_unknown_dtype_name_is_not_understood():
    """Issue 23 (JAX's dtypes_test testUnsupportedType): NumPy's and JAX's words."""
    with pytest.raises(TypeError, match="data type 'nonsense' not understood"):
        dtypes.canonicalize_dtype("nonsense")


def test_to_floating_dtype_as_jax():
    # jax._src.dtypes.to_floating_dtype (JAX's scipy_signal_test uses it): the real floating
    # type; recorded from JAX 0.10.2
    got = [str(dtypes.to_floating_dtype(d)) for d in [np.bool_, np.int8, np.int64, np.float16,
                                                       dtypes.bfloat16, np.complex64, np.complex128]]
    assert got == ["float32", "float32", "float64", "float16", "bfloat16", "float32", "float64"]


def test_promotion_error_is_not_raised_while_handling_a_cache_miss():
    """The TypePromotionError of a pair with no promotion path carries no chained KeyError
    (the promotion cache's miss) in its traceback."""
    with numpy_dtype_promotion("strict"), pytest.raises(dtypes.TypePromotionError) as e:
        dtypes.lattice_result_type(np.float32, np.int32)
    assert e.value.__context__ is None
