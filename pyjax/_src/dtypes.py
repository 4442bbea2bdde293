"""dtypes: the dtypes pyjax knows, 64-bit canonicalization, and JAX's type-promotion lattice.

Promotion follows JAX, not NumPy: the result of combining dtypes is the least upper bound of
their nodes in a small "promotes to" graph. Python scalars (and arrays marked `weak_type`) are
*weak*: they enter the graph as the nodes `i*`, `f*`, `c*`, which sit below every integer,
floating and complex type respectively, so `float16_array + 1.0` stays float16.

Without `jax_enable_x64`, 64-bit types are canonicalized to their 32-bit counterparts
(`canonicalize_dtype`), and the graph itself differs in one edge (uint32 promotes to int32).

    >>> promote_types(np.int8, np.uint8)
    dtype('int16')
    >>> result_type(np.float16, 1.0)        # a Python float is weak
    dtype('float16')
    >>> result_type(np.int32, 1.5, return_weak_type_flag=True)
    (dtype('float32'), True)
"""
from __future__ import annotations

import abc
import dataclasses
import types
import warnings
from typing import Any

import ml_dtypes
import numpy as np

from pyjax._src import config as _config

# the flags, read at call time through the current thread's dict (flags can change while
# running, and a `with jax.enable_x64():` block is thread-local)
_tls = _config.config._tls


# ---------------------------------------------------------------------------------------------
# The dtypes
# ---------------------------------------------------------------------------------------------

# Scalar types from ml_dtypes; `np.dtype(bfloat16)` works like `np.dtype(np.float16)`.
bfloat16 = ml_dtypes.bfloat16
float4_e2m1fn = ml_dtypes.float4_e2m1fn
float6_e2m3fn = ml_dtypes.float6_e2m3fn
float6_e3m2fn = ml_dtypes.float6_e3m2fn
float8_e3m4 = ml_dtypes.float8_e3m4
float8_e4m3 = ml_dtypes.float8_e4m3
float8_e4m3b11fnuz = ml_dtypes.float8_e4m3b11fnuz
float8_e4m3fn = ml_dtypes.float8_e4m3fn
float8_e4m3fnuz = ml_dtypes.float8_e4m3fnuz
float8_e5m2 = ml_dtypes.float8_e5m2
float8_e5m2fnuz = ml_dtypes.float8_e5m2fnuz
float8_e8m0fnu = ml_dtypes.float8_e8m0fnu
int2, int4 = ml_dtypes.int2, ml_dtypes.int4
uint2, uint4 = ml_dtypes.uint2, ml_dtypes.uint4
# 1-bit integers came with ml_dtypes 0.6; with an older ml_dtypes they are None, as in JAX.
int1 = getattr(ml_dtypes, "int1", None)
uint1 = getattr(ml_dtypes, "uint1", None)

# The tangent dtype of integer and boolean values: a zero-size type that carries no data.
float0 = np.dtype([("float0", np.void, 0)])

_d = np.dtype
_bool = _d(np.bool_)
_i8, _i16, _i32, _i64 = _d(np.int8), _d(np.int16), _d(np.int32), _d(np.int64)
_u8, _u16, _u32, _u64 = _d(np.uint8), _d(np.uint16), _d(np.uint32), _d(np.uint64)
_bf16, _f16, _f32, _f64 = _d(bfloat16), _d(np.float16), _d(np.float32), _d(np.float64)
_c64, _c128 = _d(np.complex64), _d(np.complex128)

# Types too narrow to promote implicitly: each only combines with bool, weak scalars and itself.
_small_int_types = tuple(_d(t) for t in (int1, int2, int4) if t is not None)
_small_uint_types = tuple(_d(t) for t in (uint1, uint2, uint4) if t is not None)
_small_float_types = tuple(_d(t) for t in (
    float4_e2m1fn, float6_e2m3fn, float6_e3m2fn, float8_e3m4, float8_e4m3, float8_e4m3b11fnuz,
    float8_e4m3fn, float8_e4m3fnuz, float8_e5m2, float8_e5m2fnuz, float8_e8m0fnu))
_custom_float_types = frozenset((_bf16, *_small_float_types))   # floats NumPy does not know

bool_types = frozenset({_bool})
int_types = frozenset({*_small_int_types, _i8, _i16, _i32, _i64})
uint_types = frozenset({*_small_uint_types, _u8, _u16, _u32, _u64})
float_types = frozenset({*_small_float_types, _bf16, _f16, _f32, _f64})
complex_types = frozenset({_c64, _c128})
inexact_types = float_types | complex_types
_jax_dtypes = bool_types | int_types | uint_types | inexact_types

_to_32bit = {_i64: _i32, _u64: _u32, _f64: _f32, _c128: _c64}

# Python scalar types and the dtype they have before canonicalization.
python_scalar_dtypes = {bool: _bool, int: _i64, float: _f64, complex: _c128}
_python_scalar_types = frozenset(python_scalar_dtypes)


def default_float_dtype() -> np.dtype:
    return _f64 if _tls.values["jax_enable_x64"] else _f32


def default_int_dtype() -> np.dtype:
    return _i64 if _tls.values["jax_enable_x64"] else _i32


def default_uint_dtype() -> np.dtype:
    return _u64 if _tls.values["jax_enable_x64"] else _u32


def default_complex_dtype() -> np.dtype:
    return _c128 if _tls.values["jax_enable_x64"] else _c64


# ---------------------------------------------------------------------------------------------
# Extended dtypes (PRNG keys and the like): not NumPy dtypes; each carries its own rules.
# ---------------------------------------------------------------------------------------------

# What annotations call a dtype (JAX's name; flax annotates its fp8 dtype with it).
DType = np.dtype


class extended(np.generic):
    """Abstract scalar category of all extended dtypes: `issubdtype(key.dtype, extended)`."""


class prng_key(extended):
    """Abstract scalar category of PRNG key dtypes."""


class ExtendedDType(abc.ABC):
    """Base class of non-NumPy dtypes; `type` is a subclass of `extended`, e.g. `prng_key`."""

    @property
    @abc.abstractmethod
    def type(self) -> type: ...

    @property
    @abc.abstractmethod
    def _rules(self) -> Any: ...

    @property
    def name(self) -> str:
        return str(self)


class TypePromotionError(ValueError):
    """The inputs have no implicit common dtype (e.g. int4 with int8, float8 with float16)."""


# ---------------------------------------------------------------------------------------------
# dtype-of and canonicalization
# ---------------------------------------------------------------------------------------------

def _invalid(x, d=None) -> TypeError:
    got = "" if d is None else f" (dtype {d})"
    return TypeError(f"{x!r}{got} is not a valid JAX dtype: only boolean, integer, floating and "
                     "complex types are supported")


def _from_dtype_like(x) -> np.dtype | ExtendedDType:
    """np.dtype of a dtype-like (string, scalar type, np.dtype); raises TypeError naming x."""
    if isinstance(x, type):
        if x in python_scalar_dtypes:
            return python_scalar_dtypes[x]
        if not issubclass(x, np.generic):
            d = getattr(x, "dtype", None)        # jnp.float32 and friends
            if isinstance(d, (np.dtype, ExtendedDType)):
                return d
            raise _invalid(x)
    try:
        d = np.dtype(x)
    except (TypeError, ValueError):
        raise TypeError(f"data type {x!r} not understood") from None  # (NumPy's and JAX's words)
    if d not in _jax_dtypes and d != float0:
        raise _invalid(x, d)
    return d


def dtype(x) -> np.dtype | ExtendedDType:
    """`jax._src.dtypes.dtype`, as JAX 0.10.2's: the dtype a value or dtype-like means to JAX.

    Python scalars and their types give the default types (`dtype(1.0)` is float32 unless x64
    is on); a dtype asked for by name or NumPy type follows jax_explicit_x64_dtypes (by default
    float64 warns and is float32); values that carry an aval (Arrays, tracers, typed literals)
    keep their dtype; other values (NumPy arrays and scalars) are canonicalized. None is a
    ValueError. (pyjax's own code uses `dtype_of`, which does not canonicalize.)
    """
    if x is None:
        raise ValueError(f"Invalid argument to dtype: {x}.")
    if isinstance(x, type):
        if x in python_scalar_dtypes:
            return canonicalize_dtype(python_scalar_dtypes[x])
        if issubclass(x, np.generic) and not issubclass(x, extended):
            return maybe_canonicalize_explicit_dtype(_from_dtype_like(x), "dtype")
    elif type(x) in _python_scalar_types:
        return canonicalize_dtype(python_scalar_dtypes[type(x)])
    elif hasattr(x, "aval") and isinstance(getattr(x, "dtype", None), (np.dtype, ExtendedDType)):
        # NB: JAX keeps the dtype of Arrays and typed literals, and canonicalizes a tracer's,
        # which is canonical already except under jax_explicit_x64_dtypes='allow'.
        return x.dtype
    if isinstance(x, (str, np.dtype)):
        return maybe_canonicalize_explicit_dtype(_from_dtype_like(x), "dtype")
    if isinstance(x, ExtendedDType):
        return x
    d = getattr(x, "dtype", None)
    if not isinstance(d, (np.dtype, ExtendedDType)):
        try:
            d = np.result_type(x)
        except TypeError as err:
            raise TypeError(f"Cannot determine dtype of {x}") from err
    if isinstance(d, np.dtype) and d not in _jax_dtypes and d != float0:
        raise TypeError(f"Value '{x}' with dtype {d} is not a valid JAX array type. Only arrays "
                        "of numeric types are supported by JAX.")
    return canonicalize_dtype(d, allow_extended_dtype=True)


def dtype_of(x, *, canonicalize: bool = False) -> np.dtype | ExtendedDType:
    """The dtype of a value or dtype-like, as given: `dtype_of(1.0)` is float64,
    `dtype_of("bfloat16")` bfloat16 (pyjax's internal helper; JAX's `dtype` canonicalizes).

    Python scalars map to bool/int64/float64/complex128; None means the default float type.
    With `canonicalize=True` the result goes through `canonicalize_dtype`.
    """
    t = type(x)
    if t in _python_scalar_types:
        d = python_scalar_dtypes[t]
    elif isinstance(d := getattr(x, "dtype", None), (np.dtype, ExtendedDType)) and t is not type:
        pass                                     # arrays, tracers, NumPy scalars
    elif x is None:
        d = default_float_dtype()
    elif isinstance(x, (np.dtype, ExtendedDType)):
        d = x
    elif isinstance(x, (str, type)):
        d = _from_dtype_like(x)
    elif isinstance(x, (bool, int, float, complex)):   # subclasses such as IntEnum
        d = python_scalar_dtypes[next(s for s in (bool, int, float, complex) if isinstance(x, s))]
    else:
        raise TypeError(f"Cannot determine dtype of {x!r}")
    if isinstance(d, np.dtype) and d not in _jax_dtypes and d != float0:
        raise _invalid(x, d)
    return canonicalize_dtype(d, allow_extended_dtype=True) if canonicalize else d


_canonical_cache: dict = {}


def canonicalize_dtype(dtype, allow_extended_dtype: bool = False) -> np.dtype | ExtendedDType:
    """The dtype arrays of `dtype` actually get: 64-bit types become 32-bit unless x64 is on."""
    key = (dtype, _tls.values["jax_enable_x64"], allow_extended_dtype)
    try:
        return _canonical_cache[key]
    except KeyError:
        pass
    except TypeError:                             # unhashable dtype-like: no caching
        return _canonicalize(*key)
    out = _canonical_cache[key] = _canonicalize(*key)
    return out


def public_canonicalize_dtype(dtype, allow_extended_dtype: bool = False):
    """`jax.dtypes.canonicalize_dtype`: np.dtype(dtype), narrowed to 32 bits unless x64 is on.

    Unlike pyjax's internal `canonicalize_dtype` it does not insist on a type JAX arrays can
    hold (as JAX: `canonicalize_dtype(object)` is dtype('O')).
    """
    if isinstance(dtype, ExtendedDType) or (isinstance(dtype, type) and issubclass(dtype, extended)):
        return canonicalize_dtype(dtype, allow_extended_dtype)
    try:
        d = np.dtype(dtype)
    except TypeError:
        raise TypeError(f"dtype {dtype!r} not understood") from None
    return d if _tls.values["jax_enable_x64"] else _to_32bit.get(d, d)


def _canonicalize(x, x64, allow_extended_dtype):
    if isinstance(x, ExtendedDType) or (isinstance(x, type) and issubclass(x, extended)):
        if allow_extended_dtype:
            return x
        raise TypeError(f"canonicalize_dtype: extended dtype {x} is not allowed here")
    d = default_float_dtype() if x is None else _from_dtype_like(x)
    return d if x64 else _to_32bit.get(d, d)


def check_and_canonicalize_user_dtype(dtype, fun_name: str | None = None) -> np.dtype:
    """Canonicalize a `dtype=` argument of a jnp function; warn if a 64-bit type is truncated.

    Python scalar types mean the default types: `zeros(3, dtype=float)` is float32 without x64.
    """
    if dtype is None:
        raise ValueError("dtype must be specified.")
    if isinstance(dtype, ExtendedDType):
        return dtype
    if not isinstance(dtype, (str, type, np.dtype)) and hasattr(dtype, "shape"):
        raise ValueError("Passing an array as a dtype argument is no longer supported; "
                         "use dtype=arr.dtype instead of dtype=arr.")
    if isinstance(dtype, type) and dtype in python_scalar_dtypes:
        return canonicalize_dtype(dtype)
    return maybe_canonicalize_explicit_dtype(_from_dtype_like(dtype), fun_name, stacklevel=4)


def maybe_canonicalize_explicit_dtype(d, fun_name: str | None = None, stacklevel: int = 3):
    """A dtype the user asked for by name while 64-bit types are off: as JAX's
    jax_explicit_x64_dtypes says, 'warn' (the default) warns and gives the 32-bit type, 'error'
    raises ValueError, 'allow' gives the 64-bit type anyway (Arrays of it then stay 64-bit)."""
    if _tls.values["jax_enable_x64"] or not isinstance(d, np.dtype):
        return d
    out = _to_32bit.get(d, d)
    if out == d:
        return d
    mode = _tls.values["jax_explicit_x64_dtypes"]
    if mode == _config.ExplicitX64Mode.ALLOW:
        return d
    where = f" requested in {fun_name}" if fun_name else ""
    # JAX's phrase "Explicitly requested dtype float64 ... is not available" is kept (tests match)
    if mode == _config.ExplicitX64Mode.ERROR:
        raise ValueError(f"Explicitly requested dtype {d}{where} is not available. Enable 64-bit "
                         f"types with jax_enable_x64, or allow explicit ones with "
                         f"jax_explicit_x64_dtypes='allow'.")
    warnings.warn(f"Explicitly requested dtype {d}{where} is not available, and will be "
                  f"truncated to dtype {out}. Enable 64-bit types with the jax_enable_x64 "
                  "configuration option or the JAX_ENABLE_X64 environment variable.",
                  stacklevel=stacklevel)
    return out


def is_python_scalar(x) -> bool:
    """True for Python bool/int/float/complex values (not NumPy scalars, which subclass them)."""
    return type(x) in _python_scalar_types or (
        isinstance(x, (bool, int, float, complex)) and not isinstance(x, np.generic))


def is_weakly_typed(x) -> bool:
    """True for Python int/float/complex values and arrays carrying `weak_type=True`.

    Python bools are not weak: `True + int8_array` promotes like a bool array would.
    """
    t = type(x)
    if t in _python_scalar_types:
        return t is not bool
    try:
        return bool(x.weak_type)
    except AttributeError:
        pass
    try:
        return bool(x.aval.weak_type)
    except AttributeError:
        return is_python_scalar(x) and not isinstance(x, bool)


def is_float0(dtype) -> bool:
    return dtype is float0 or (isinstance(dtype, np.dtype) and dtype == float0)


# ---------------------------------------------------------------------------------------------
# The promotion lattice
# ---------------------------------------------------------------------------------------------

class _WeakType:
    """A weak node of the lattice (`i*`, `f*`, `c*`): the type of a Python scalar."""
    __slots__ = ("name", "pytype")

    def __init__(self, name, pytype):
        self.name, self.pytype = name, pytype

    def __repr__(self):
        return self.name


_i_weak, _f_weak, _c_weak = _WeakType("i*", int), _WeakType("f*", float), _WeakType("c*", complex)
_weak_node_of_pytype = {int: _i_weak, float: _f_weak, complex: _c_weak}


def _weak_node(d: np.dtype):
    """The node of a weakly typed value of dtype d (a weak bool is just bool)."""
    if d in int_types or d in uint_types:
        return _i_weak
    if d in float_types:
        return _f_weak
    if d in complex_types:
        return _c_weak
    return d                                   # bool, or not a JAX type (lub reports it)


def _standard_edges(x64: bool) -> dict:
    """Edges of JAX's standard lattice: each node lists the nodes directly above it."""
    return {
        _bool: [_i_weak],
        _i_weak: [_u8, _i8, *_small_int_types, *_small_uint_types],
        _u8: [_u16, _i16], _u16: [_u32, _i32],
        # The one x64-dependent edge: without x64, uint32 and int32 meet at int32.
        _u32: [_u64, _i64 if x64 else _i32], _u64: [_f_weak],
        _i8: [_i16], _i16: [_i32], _i32: [_i64], _i64: [_f_weak],
        _f_weak: [_bf16, _f16, _c_weak, *_small_float_types],
        _bf16: [_f32], _f16: [_f32], _f32: [_f64, _c64], _f64: [_c128],
        _c_weak: [_c64], _c64: [_c128],
    }


def _strict_edges() -> dict:
    """Edges of the strict lattice: only weak scalars promote (into any type of their kind)."""
    return {
        _i_weak: [*int_types, *uint_types, _f_weak],
        _f_weak: [*float_types, _c_weak],
        _c_weak: [*complex_types],
    }


class _Lattice:
    """Upper-bound sets of every node, and caches of least upper bounds."""

    def __init__(self, edges: dict, mode: str):
        self.mode = mode
        nodes = [*_jax_dtypes, _i_weak, _f_weak, _c_weak]
        self.upper = {n: self._closure(edges, n) for n in nodes}
        self.cache: dict = {}          # frozenset of nodes -> node
        # (dtype, weak, dtype, weak) or ((dtype, weak), ...) -> (dtype, weak)
        self.pair_cache: dict = {}

    @staticmethod
    def _closure(edges, node) -> frozenset:
        seen, todo = {node}, [node]
        while todo:
            for m in edges.get(todo.pop(), ()):
                if m not in seen:
                    seen.add(m)
                    todo.append(m)
        return frozenset(seen)

    def lub(self, nodes):
        """Least upper bound of a collection of nodes (cached); TypePromotionError if none."""
        key = frozenset(nodes)
        try:
            return self.cache[key]
        except KeyError:
            pass
        try:
            common = frozenset.intersection(*(self.upper[n] for n in key))
        except KeyError:
            bad = next(n for n in key if n not in self.upper)
            raise ValueError(f"{bad} is not a valid dtype for JAX type promotion") from None
        least = [n for n in common if self.upper[n] == common]
        if not least:
            raise _promotion_error(key, self.mode)
        out = self.cache[key] = least[0]
        return out


def _promotion_error(nodes, mode) -> TypePromotionError:
    """JAX's TypePromotionError, its key phrases kept (tests match on them)."""
    names = tuple(sorted(str(n.pytype.__name__ if isinstance(n, _WeakType) else n)
                         for n in nodes))
    msg = f"Input dtypes {names} have no available implicit dtype promotion path"
    bits = lambda ds: [d for d in ds if any(n == d for n in nodes)]  # noqa: E731
    if mode == "strict":
        msg += (" when jax_numpy_dtype_promotion=strict. Cast the inputs explicitly to the type "
                "you want, or set jax_numpy_dtype_promotion=standard.")
    elif small := bits(_small_float_types):
        width = {itemsize_bits(d) for d in small}.pop()
        msg += (f". To avoid unintended promotion, {width}-bit floats do not support implicit "
                "promotion: cast explicitly, e.g. x.astype('float32').")
    elif bits(_small_int_types) or bits(_small_uint_types):
        msg += (". To avoid unintended promotion, 1-bit, 2-bit and 4-bit integers do not "
                "support implicit promotion: cast explicitly, e.g. x.astype('int32').")
    else:
        msg += ". Cast the inputs explicitly to the type you want."
    return TypePromotionError(msg)


_lattices = {("standard", False): _Lattice(_standard_edges(False), "standard"),
             ("standard", True): _Lattice(_standard_edges(True), "standard"),
             ("strict", False): _Lattice(_strict_edges(), "strict"),
             ("strict", True): _Lattice(_strict_edges(), "strict")}


def _lattice() -> _Lattice:
    return _lattices[_tls.values["jax_numpy_dtype_promotion"], _tls.values["jax_enable_x64"]]


# ---------------------------------------------------------------------------------------------
# Promotion
# ---------------------------------------------------------------------------------------------

def _node_of_dtype_arg(x):
    """Node of a promote_types argument: the Python types int/float/complex are weak; anything
    else is what np.dtype makes of it (None is float64, as in JAX: not canonicalized)."""
    if x is int or x is float or x is complex:
        return _weak_node_of_pytype[x]
    if isinstance(x, ExtendedDType):
        return x
    return np.dtype(x)


_promote_cache: dict = {}


def promote_types(a, b) -> np.dtype:
    """`jnp.promote_types`: JAX's lattice, no weak arrays, result NOT canonicalized.

    >>> promote_types(np.uint64, np.int64)     # no integer holds both: the default float
    dtype('float64')
    """
    lattice = _lattice()
    key = (a, b, lattice)
    try:
        return _promote_cache[key]
    except (KeyError, TypeError):
        pass
    na, nb = _node_of_dtype_arg(a), _node_of_dtype_arg(b)
    if isinstance(na, ExtendedDType) or isinstance(nb, ExtendedDType):
        if na == nb:
            return na
        raise TypePromotionError(f"cannot promote extended dtypes: {na}, {nb}")
    if is_float0(na) or is_float0(nb):
        raise ValueError("float0 is not a valid dtype for JAX type promotion")
    out = lattice.lub((na, nb))
    if isinstance(out, _WeakType):
        out = python_scalar_dtypes[out.pytype]
    try:
        _promote_cache[key] = out
    except TypeError:
        pass
    return out


def _canon(d, x64: bool):
    """canonicalize_dtype for a known np.dtype or ExtendedDType, without the cache lookup."""
    return d if x64 or not isinstance(d, np.dtype) else _to_32bit.get(d, d)


def _dtype_and_weak_type(x, x64: bool):
    """(canonical dtype, weak) of a promotion argument."""
    t = type(x)
    if t in _python_scalar_types:
        return _canon(python_scalar_dtypes[t], x64), t is not bool
    d = getattr(x, "dtype", None)
    if isinstance(d, (np.dtype, ExtendedDType)) and not isinstance(x, type):
        weak = getattr(x, "weak_type", None)
        if weak is None:
            weak = getattr(getattr(x, "aval", None), "weak_type", False)
        c = _canon(d, x64)
        if c is not d and hasattr(x, "aval"):
            c = d  # as JAX: an Array (or tracer) that is 64-bit stays so, whatever x64 says
        return c, bool(weak)
    if isinstance(x, type) and x in _weak_node_of_pytype:
        return _canon(python_scalar_dtypes[x], x64), True    # result_type(float) is weak
    if is_python_scalar(x):
        return _canon(dtype_of(x), x64), not isinstance(x, bool)
    if (isinstance(x, type) and not issubclass(x, np.generic)
            and isinstance(getattr(x, "dtype", None), np.dtype)):
        # jnp.float64 & co (not NumPy's types): canonicalized without a warning, as in JAX
        # (numpyro's von_mises_centered defaults to dtype=jnp.float64)
        return _canon(x.dtype, x64), False
    return maybe_canonicalize_explicit_dtype(dtype_of(x), "dtype", stacklevel=5), False


def lattice_result_type(*args) -> tuple[np.dtype, bool]:
    """(dtype, weak_type) that jnp operations promote their operands to.

    Inputs are canonicalized first, so without x64 a uint64 array meets an int8 one at int32.
    The result is weak when the least upper bound is a weak node (`int32_array + 1.5` is a weak
    float32) or when every input is weak. Unlike `result_type` it keeps the width of weak
    arrays: a weak float16 array plus 1 stays a weak float16.
    """
    x64 = _tls.values["jax_enable_x64"]
    if len(args) == 2:                         # the hot path: binary operations
        d0, w0 = _dtype_and_weak_type(args[0], x64)
        d1, w1 = _dtype_and_weak_type(args[1], x64)
        if d0 == d1 and not (w0 and w1):
            return d0, False
        lattice = _lattice()
        key = (d0, w0, d1, w1)
        try:
            out = lattice.pair_cache.get(key)
        except TypeError:                      # an unhashable extended dtype
            return _promote(((d0, w0), (d1, w1)), lattice, x64)
        if out is None:  # (outside the lookup, so a promotion error does not chain a KeyError)
            out = lattice.pair_cache[key] = _promote(((d0, w0), (d1, w1)), lattice, x64)
        return out if x64 or out[0] not in _to_32bit else _explicit_result(out)
    dws = tuple(_dtype_and_weak_type(x, x64) for x in args)
    if len(dws) == 1:
        d, w = dws[0]
        return d, w and d != _bool
    if not dws:
        raise ValueError("at least one array or dtype is required")
    d0 = dws[0][0]
    if all(d == d0 for d, _ in dws) and not all(w for _, w in dws):
        return d0, False
    lattice = _lattice()
    try:
        out = lattice.pair_cache.get(dws)
    except TypeError:
        return _promote(dws, lattice, x64)
    if out is None:
        out = lattice.pair_cache[dws] = _promote(dws, lattice, x64)
    return out if x64 or out[0] not in _to_32bit else _explicit_result(out)


def _explicit_result(out):
    """A 64-bit promotion result without x64 (a 64-bit array met another type): as JAX, it
    follows jax_explicit_x64_dtypes (warn and narrow, raise, or keep)."""
    d, weak = out
    return maybe_canonicalize_explicit_dtype(d, "dtype", stacklevel=6), weak


def _promote(dws, lattice: _Lattice, x64: bool) -> tuple[np.dtype, bool]:
    """(dtype, weak) from canonical (dtype, weak) pairs, past the same-dtype shortcut."""
    if any(isinstance(d, ExtendedDType) for d, _ in dws):
        raise TypePromotionError(
            f"cannot promote extended dtypes: {', '.join(str(d) for d, _ in dws)}")
    if lattice.mode == "standard" and all(w for _, w in dws):
        # All weak: promote the dtypes as if strong and keep the result weak, so that weak
        # arrays keep their width (weak int8 + weak int8 is a weak int8, not a weak int32).
        out = lattice.lub({d for d, _ in dws})
        weak = True
    else:
        out = lattice.lub({_weak_node(d) if w else d for d, w in dws})
        weak = isinstance(out, _WeakType)
    if isinstance(out, _WeakType):
        out = _canon(python_scalar_dtypes[out.pytype], x64)
    return out, weak and out != _bool


def result_type(*args, return_weak_type_flag: bool = False):
    """`jnp.result_type`: the canonical dtype that combining `args` gives.

    Python scalars are weak; a weak result is the default type of its kind.

    >>> result_type(np.uint8, 300)
    dtype('uint8')
    >>> result_type(1, 2.0, return_weak_type_flag=True)
    (dtype('float32'), True)
    """
    if not args:
        raise ValueError("at least one array or dtype is required")
    out, weak = lattice_result_type(*args)
    if weak:
        out = _default_of_kind(out)
    return (out, weak) if return_weak_type_flag else out


def _default_of_kind(d: np.dtype) -> np.dtype:
    # NB: JAX 0.10.2 raises KeyError for a weak int4/uint4 result; we give the default int/uint.
    if d in float_types:
        return default_float_dtype()
    if d in int_types:
        return default_int_dtype()
    if d in uint_types:
        return default_uint_dtype()
    if d in complex_types:
        return default_complex_dtype()
    return d


# ---------------------------------------------------------------------------------------------
# Categories, info objects and conversions between kinds
# ---------------------------------------------------------------------------------------------

# NumPy's abstract scalar classes; ml_dtypes types subclass np.generic directly, so we say
# where they belong ourselves.
_abstract_categories = frozenset({np.generic, np.number, np.integer, np.signedinteger,
                                  np.unsignedinteger, np.inexact, np.floating,
                                  np.complexfloating, np.flexible, np.character})
_custom_category = {**{d: np.floating for d in _custom_float_types},
                    **{d: np.signedinteger for d in _small_int_types},
                    **{d: np.unsignedinteger for d in _small_uint_types}}

_custom_scalar_types = frozenset(d.type for d in _custom_category)
_issubdtype_cache: dict = {}


def issubdtype(a, b) -> bool:
    """`jnp.issubdtype`: like NumPy's, and knows bfloat16/float8 are floating, int4 signed, and
    extended dtypes sit under `extended`.

    >>> issubdtype(bfloat16, np.floating)
    True
    """
    try:
        return _issubdtype_cache[a, b]
    except KeyError:
        pass
    except TypeError:
        return _issubdtype(a, b)
    out = _issubdtype_cache[a, b] = _issubdtype(a, b)
    return out


def _issubdtype(a, b) -> bool:
    # As JAX: extended dtypes first, then both sides become NumPy scalar types (anything
    # np.dtype accepts works: `issubdtype(x, object)` is just False), then NumPy decides, except
    # for the ml_dtypes types, which are not in NumPy's scalar hierarchy.
    if isinstance(b, type) and issubclass(b, extended):
        if isinstance(a, ExtendedDType):
            return issubclass(a.type, b)
        return issubclass(_scalar_type(a), b)
    if isinstance(b, ExtendedDType):
        return isinstance(a, ExtendedDType) and a == b
    a_type = a.type if isinstance(a, ExtendedDType) else _scalar_type(a)
    b_type = _scalar_type(b)
    category = _custom_category.get(np.dtype(a_type)) if a_type in _custom_scalar_types else None
    if category is not None:
        return b_type is a_type or (b_type in _abstract_categories and issubclass(category, b_type))
    return bool(np.issubdtype(a_type, b_type))


def _scalar_type(x) -> type:
    """The NumPy scalar type of a dtype-like: np.float32 for 'float32', np.object_ for object."""
    if isinstance(x, type) and issubclass(x, np.generic):
        return x
    return np.dtype(x).type


# `jnp.can_cast` is NumPy's (as in JAX): NumPy's casting rules, which know the ml_dtypes types.
can_cast = np.can_cast

_dtype_kinds = {
    "bool": bool_types,
    "signed integer": int_types,
    "unsigned integer": uint_types,
    "integral": int_types | uint_types,
    "real floating": float_types,
    "complex floating": complex_types,
    "numeric": int_types | uint_types | float_types | complex_types,
}


def isdtype(dtype, kind) -> bool:
    """`jnp.isdtype` (array API): whether `dtype` is of `kind`, a category name ('bool',
    'signed integer', 'unsigned integer', 'integral', 'real floating', 'complex floating',
    'numeric'), a dtype, or a tuple of these. Categories include bfloat16, float8 and int4.

    >>> isdtype(jnp.bfloat16, 'real floating')
    True
    """
    the_dtype = np.dtype(dtype)
    for k in kind if isinstance(kind, tuple) else (kind,):
        if isinstance(k, str) and k in _dtype_kinds:
            if the_dtype in _dtype_kinds[k]:
                return True
            continue
        try:
            if the_dtype == np.dtype(k):
                return True
        except TypeError:
            if isinstance(k, str):
                raise ValueError(f"isdtype: unknown kind {k!r}; expected one of "
                                 f"{list(_dtype_kinds)}, a dtype, or a tuple of these") from None
            raise TypeError(f"isdtype: kind must be a dtype, a kind name or a tuple of these, "
                            f"got {k!r}") from None
    return False


def _np_dtype(x) -> np.dtype:
    d = dtype_of(x)
    if not isinstance(d, np.dtype):
        raise TypeError(f"{x!r} has an extended dtype, which has no NumPy info")
    return d


def finfo(dtype_like) -> ml_dtypes.finfo:
    """Machine limits of a floating type, including bfloat16 and the float8 types."""
    return ml_dtypes.finfo(_np_dtype(dtype_like))


def iinfo(dtype_like) -> ml_dtypes.iinfo:
    """Machine limits of an integer type, including int4 and uint4."""
    return ml_dtypes.iinfo(_np_dtype(dtype_like))


def scalar_type_of(x) -> type:
    """The Python scalar type (bool, int, float or complex) of the kind of x's dtype."""
    d = dtype_of(x)
    if d == _bool:
        return bool
    if d in int_types or d in uint_types:
        return int
    if d in float_types:
        return float
    if d in complex_types:
        return complex
    raise TypeError(f"scalar_type_of: no Python scalar type for dtype {d}")


# -- JAX's type vocabulary: a "JAX type" is a dtype, or int/float/complex for a weak one --------

python_scalar_types_to_dtypes = python_scalar_dtypes   # JAX's name for the same table

# The scalar types JAX's default types stand for (64-bit; canonicalized where they are used).
bool_, int_, uint, float_, complex_ = np.bool_, np.int64, np.uint64, np.float64, np.complex128
# the default dtype of each kind (NumPy's kind letter) under the current x64 setting
default_types = {"b": lambda: _bool, "i": default_int_dtype, "u": default_uint_dtype,
                 "f": default_float_dtype, "c": default_complex_dtype}


def _jax_type(dtype, weak_type: bool):
    """The JAX type of `(dtype, weak_type)`: `dtype` itself when strong; when weak, the Python
    scalar type of its kind (a weak bool stays the bool dtype)."""
    if weak_type and dtype != _bool:
        return float if dtype in _custom_float_types else type(dtype.type(0).item())
    return dtype


def _dtype_and_weaktype(value) -> tuple:
    """`(dtype_of(value), weak)`: weak for the types int/float/complex and weakly typed values."""
    return dtype_of(value), any(value is t for t in (int, float, complex)) or is_weakly_typed(value)


def safe_to_cast(input_dtype_or_value, output_dtype_or_value) -> bool:
    """Whether a value of the first dtype (or like the first value) converts to the second dtype
    under the promotion rules in force: promoting it with the (strongly typed) output dtype
    gives that dtype. Raises TypePromotionError where the rules have no promotion path.

    Example:
        >>> safe_to_cast('int16', 'float32'), safe_to_cast('float32', 'int16')
        (True, False)
    """
    # NB: JAX's internal `dtype()` canonicalizes (int is int32 without x64); dtype_of does not
    # by default, so this asks for it
    input_dtype = dtype_of(input_dtype_or_value, canonicalize=True)
    output_dtype = dtype_of(output_dtype_or_value, canonicalize=True)
    if input_dtype == output_dtype:
        return True
    return result_type(input_dtype_or_value, output_dtype) == output_dtype


_sub_byte_bits = {**{d: int(d.name[-1]) for d in (*_small_int_types, *_small_uint_types)},
                  _d(float4_e2m1fn): 4, _d(float6_e2m3fn): 6, _d(float6_e3m2fn): 6}


def itemsize_bits(dtype_like) -> int:
    """Bits per element: 4 for int4 and float4_e2m1fn, 8 for bool, 32 for float32."""
    if dtype_like is None:
        raise ValueError("dtype cannot be None.")
    d = dtype_of(dtype_like)
    if is_float0(d):
        raise ValueError(f"itemsize_bits: float0 has no storage: {dtype_like!r}")
    if isinstance(d, ExtendedDType):
        return d.itemsize * 8
    return _sub_byte_bits.get(d, d.itemsize * 8)


def to_inexact_dtype(d: np.dtype) -> np.dtype:
    """The floating type jnp uses for an op like `sin` on d: ints of 64 bits to float64, other
    ints and bool to float32 (even with x64 on, as JAX); inexact types unchanged."""
    if d in inexact_types:
        return d
    return _f64 if d in (_i64, _u64) else _f32


def to_floating_dtype(d) -> np.dtype:
    """The real floating type of d: to_inexact_dtype's, with a complex type's real part."""
    d = to_inexact_dtype(np.dtype(d))
    return {_c64: _f32, _c128: _f64}.get(d, d)


def to_complex_dtype(d: np.dtype) -> np.dtype:
    """The complex type holding d: complex128 for 64-bit types, complex64 otherwise."""
    if d in complex_types:
        return d
    return _c128 if d in (_f64, _i64, _u64) else _c64


def to_numeric_dtype(d: np.dtype) -> np.dtype:
    """bool to int32 (as JAX, whatever x64 says); numeric types unchanged."""
    return _i32 if d == _bool else d


def tangent_dtype_of(d) -> np.dtype:
    """The dtype of tangents of d: itself if inexact, float0 for bool and integers (JAX's
    core.primal_dtype_to_tangent_dtype)."""
    if isinstance(d, ExtendedDType):
        return d._rules.tangent_dtype(d)
    return d if d in inexact_types else float0


class primal_tangent_dtype_scalar(extended):
    """Abstract scalar category of the dtypes `primal_tangent_dtype` makes."""


@dataclasses.dataclass(frozen=True, slots=True)
class PrimalTangentDType(ExtendedDType):
    """An extended dtype stored as `primal_dtype` whose tangents are `tangent_dtype` (JAX's
    differentiable int8 and the like). NB: pyjax has no arrays of user extended dtypes yet (its
    only extended dtypes are PRNG keys, carried as their data), so this dtype can be made,
    compared and printed, and `x.astype(it)` raises."""
    primal_dtype: Any
    tangent_dtype: Any
    name: str
    type = primal_tangent_dtype_scalar

    def __repr__(self):
        return self.name

    @property
    def _rules(self):
        return types.SimpleNamespace(
            physical_element_aval=lambda _: types.SimpleNamespace(shape=(), dtype=self.primal_dtype),
            tangent_dtype=lambda _: self.tangent_dtype, allow_conversion=True)


def primal_tangent_dtype(primal_dtype, tangent_dtype, name: str | None = None) -> PrimalTangentDType:
    """`jax.dtypes.primal_tangent_dtype`: an extended dtype with `primal_dtype`'s values and
    `tangent_dtype`'s tangents, named `PrimalTangentDType{i8/bf16}` unless `name` is given."""
    primal_dtype, tangent_dtype = dtype(primal_dtype), dtype(tangent_dtype)
    name = name or (f"PrimalTangentDType{{{short_dtype_name(primal_dtype)}"
                    f"/{short_dtype_name(tangent_dtype)}}}")
    return PrimalTangentDType(primal_dtype, tangent_dtype, name)


def canonicalize_value(x):
    """A value as JAX abstracts it: NumPy arrays and scalars of a 64-bit type narrowed unless
    x64 is on (float0 kept), Python scalars as NumPy scalars of the default types; values that
    carry an aval (Arrays, tracers, typed literals) unchanged. TypeError for other objects."""
    if hasattr(x, "aval") and isinstance(getattr(x, "dtype", None), (np.dtype, ExtendedDType)):
        return x
    if type(x) in _python_scalar_types:
        return np.asarray(x, canonicalize_dtype(python_scalar_dtypes[type(x)]))[()]
    if isinstance(x, (np.ndarray, np.generic)):
        if x.dtype == float0:
            return x
        d = canonicalize_dtype(x.dtype)
        return x if d == x.dtype else np.asarray(x, d) if isinstance(x, np.ndarray) else x.astype(d)
    raise TypeError(f"Argument '{x}' of type {type(x)} is not a valid JAX type.")


def supports_inf(d: np.dtype) -> bool:
    """Whether the inexact type d has an infinity (many float8 types do not)."""
    return d in inexact_types and bool(np.isinf(np.array(np.inf, _f32).astype(d)).all())


def short_dtype_name(d) -> str:
    """Short name used when printing avals: f32, bf16, i8, u32, c64, f8_e4m3fn, bool."""
    if isinstance(d, ExtendedDType):
        return d.name
    if is_float0(d):
        return "float0"
    return (d.name.replace("bfloat", "bf").replace("float", "f").replace("uint", "u")
            .replace("int", "i").replace("complex", "c"))
