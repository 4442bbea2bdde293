"""`dot_general`, the general tensor contraction, with `dot` and the `Precision` settings.

`dimension_numbers = ((lhs_contract, rhs_contract), (lhs_batch, rhs_batch))`; the result has the
batch dimensions, then lhs's free dimensions, then rhs's. Operands may differ in dtype (the
result has the more precise one, as in XLA), and `preferred_element_type` asks for a wider
accumulation type.
"""
from __future__ import annotations

import enum
from typing import Any, NamedTuple, Sequence, Union

import numpy as np

from pyjax._src import core
from pyjax._src.config import config
from pyjax._src.core import ShapedArray
from pyjax._src.dtypes import finfo, itemsize_bits
from pyjax._src.interpreters import ad
from pyjax._src.interpreters.ad import Zero
from pyjax._src.interpreters.batching import raw_axes
from pyjax._src.lax import sharding_rules
from pyjax._src.lax.convert import convert_element_type, real_dtype
from pyjax._src.lax.shape_ops import _int_tuple, transpose
from pyjax._src.lax.utils import kind, np_dtype_param, standard_primitive
from pyjax._src.lowering.mlir import i64_list

# -- Precision -----------------------------------------------------------------------------------


class Precision(enum.Enum):
    """How precisely a matrix product of float32 values is computed on accelerators (CPU always
    computes in float32): DEFAULT (fastest), HIGH, HIGHEST. Strings name them too:
    'default'/'fastest'/'bfloat16', 'high'/'tensorfloat32'/'bfloat16_3x', 'highest'/'float32'.

    >>> lax.dot(a, b, precision=lax.Precision.HIGHEST)
    """
    DEFAULT = 0
    HIGH = 1
    HIGHEST = 2

    @classmethod
    def _missing_(cls, value):
        return _PRECISION_STRINGS.get(value)

    def __repr__(self):
        return f"Precision.{self.name}"  # as JAX prints it in jaxprs

    def __str__(self):
        return self.name


_PRECISION_STRINGS = {
    "highest": Precision.HIGHEST, "float32": Precision.HIGHEST,
    "high": Precision.HIGH, "bfloat16_3x": Precision.HIGH, "tensorfloat32": Precision.HIGH,
    "default": Precision.DEFAULT, "bfloat16": Precision.DEFAULT, "fastest": Precision.DEFAULT,
}


class DotAlgorithm(NamedTuple):
    """A dot-product algorithm: the types the operands are rounded to, the accumulation type,
    and how many components/products (JAX's `lax.DotAlgorithm`).

    NB: pyjax accepts only the algorithms that mean XLA's default on CPU (see
    `canonicalize_precision`)."""
    lhs_precision_type: Any
    rhs_precision_type: Any
    accumulation_type: Any
    lhs_component_count: int = 1
    rhs_component_count: int = 1
    num_primitive_operations: int = 1
    allow_imprecise_accumulation: bool = False


class DotAlgorithmPreset(enum.Enum):
    """The named dot algorithms of JAX 0.10.2 (`LHS_RHS_ACCUMULATION` types)."""
    DEFAULT = enum.auto()
    ANY_F8_ANY_F8_F32 = enum.auto()
    ANY_F8_ANY_F8_F32_FAST_ACCUM = enum.auto()
    ANY_F8_ANY_F8_ANY = enum.auto()
    ANY_F8_ANY_F8_ANY_FAST_ACCUM = enum.auto()
    F16_F16_F16 = enum.auto()
    F16_F16_F32 = enum.auto()
    BF16_BF16_BF16 = enum.auto()
    BF16_BF16_F32 = enum.auto()
    BF16_BF16_F32_X3 = enum.auto()
    BF16_BF16_F32_X6 = enum.auto()
    BF16_BF16_F32_X9 = enum.auto()
    TF32_TF32_F32 = enum.auto()
    TF32_TF32_F32_X3 = enum.auto()
    F32_F32_F32 = enum.auto()
    F64_F64_F64 = enum.auto()

    def __repr__(self):
        return f"{type(self).__name__}.{self.name}"

    def __str__(self):
        return self.name


class AccuracyMode(enum.Enum):
    """The accuracy asked of transcendental functions (the `accuracy=` of `lax.exp`, ...)."""
    HIGHEST = 1
    DEFAULT = 2


class Tolerance:
    """Tolerances for unary functions' `accuracy=`: atol and rtol, or atol and ulps."""

    def __init__(self, atol: float = 0.0, rtol: float = 0.0, ulps: int = 0):
        if atol < 0 or rtol < 0 or ulps < 0:
            raise ValueError(f"Tolerance: tolerances must be non-negative, got atol={atol}, "
                             f"rtol={rtol}, ulps={ulps}")
        if atol == 0 and rtol == 0 and ulps == 0:
            raise ValueError("Tolerance: at least one of atol, rtol, or ulps must be set")
        self.atol, self.rtol, self.ulps = atol, rtol, ulps


PrecisionLike = Union[None, str, Precision, tuple, DotAlgorithm, DotAlgorithmPreset]
DotDimensionNumbers = tuple[tuple[Sequence[int], Sequence[int]], tuple[Sequence[int], Sequence[int]]]


class RaggedDotDimensionNumbers:
    """The dimension numbers of `ragged_dot_general`: the dot's, plus lhs's ragged dimensions and
    rhs's group dimensions (all stored as tuples; immutable)."""
    __slots__ = ("dot_dimension_numbers", "lhs_ragged_dimensions", "rhs_group_dimensions")

    def __init__(self, dot_dimension_numbers, lhs_ragged_dimensions, rhs_group_dimensions):
        dn = tuple(tuple(tuple(d) for d in pair) for pair in dot_dimension_numbers)
        object.__setattr__(self, "dot_dimension_numbers", dn)
        object.__setattr__(self, "lhs_ragged_dimensions", tuple(lhs_ragged_dimensions))
        object.__setattr__(self, "rhs_group_dimensions", tuple(rhs_group_dimensions))

    def __setattr__(self, name, value):
        raise AttributeError(f"RaggedDotDimensionNumbers is immutable: cannot set {name}")

    def _key(self):
        return self.dot_dimension_numbers, self.lhs_ragged_dimensions, self.rhs_group_dimensions

    def __eq__(self, other):
        return type(other) is RaggedDotDimensionNumbers and self._key() == other._key()

    def __hash__(self):
        return hash(self._key())

    def __repr__(self):
        return (f"RaggedDotDimensionNumbers(dot_dimension_numbers={self.dot_dimension_numbers}, "
                f"lhs_ragged_dimensions={self.lhs_ragged_dimensions}, "
                f"rhs_group_dimensions={self.rhs_group_dimensions})")


def _one_precision(p):
    if isinstance(p, Precision):
        return p
    if p is DotAlgorithmPreset.DEFAULT:
        return Precision.DEFAULT
    return _PRECISION_STRINGS.get(p) if isinstance(p, str) else None


def canonicalize_precision(precision):
    """None (or the `jax_default_matmul_precision` setting), or a (lhs, rhs) pair of Precisions,
    the one form the primitive's parameter takes (one jit cache key per meaning).

    NB: of JAX's DotAlgorithm / DotAlgorithmPreset, only DotAlgorithmPreset.DEFAULT is supported.
    """
    if precision is None:
        default = config.jax_default_matmul_precision
        if default is None:
            return None
        try:
            return canonicalize_precision(default)
        except ValueError:
            raise ValueError(f"jax_default_matmul_precision must be None or one of "
                             f"{list(_PRECISION_STRINGS)}, got {default!r}") from None
    one = _one_precision(precision)
    if one is not None:
        return one, one
    if isinstance(precision, (tuple, list)) and len(precision) == 2:
        pair = tuple(_one_precision(p) for p in precision)
        if None not in pair:
            return pair
    raise ValueError(f"precision must be None, a lax.Precision, one of the strings "
                     f"{list(_PRECISION_STRINGS)}, or a pair of these (one per operand); "
                     f"got {precision!r}")


# -- dot_general ---------------------------------------------------------------------------------

dot_general_p = standard_primitive("dot_general", pure_abstract_eval=True)
dot_general_p.def_sharding_rule(sharding_rules.dot_general_rule)


def dot_general(lhs, rhs, dimension_numbers, precision=None, preferred_element_type=None,
                out_sharding=None):
    """General tensor contraction: `dimension_numbers = ((lhs_contract, rhs_contract),
    (lhs_batch, rhs_batch))`; the result is batch dims, then lhs free dims, then rhs free dims."""
    (lc, rc), (lb, rb) = dimension_numbers
    what = "dot_general: axes"
    dn = ((_int_tuple(lc, what), _int_tuple(rc, what)), (_int_tuple(lb, what), _int_tuple(rb, what)))
    pet = None if preferred_element_type is None else np_dtype_param(preferred_element_type)
    extra = {} if out_sharding is None else {"out_sharding": sharding_rules.out_sharding_param(
        out_sharding, "dot_general")}
    return dot_general_p.bind(lhs, rhs, dimension_numbers=dn, precision=canonicalize_precision(precision),
                              preferred_element_type=pet, **extra)


def dot(lhs, rhs, precision=None, preferred_element_type=None, out_sharding=None):
    """Vector/matrix dot product: contracts the last axis of `lhs` with the first of `rhs`."""
    la, ra = core.get_aval(lhs), core.get_aval(rhs)
    if la.ndim not in (1, 2) or ra.ndim not in (1, 2) or la.shape[-1] != ra.shape[0]:
        raise ValueError(f"dot: operands must be vectors or matrices with lhs.shape[-1] == "
                         f"rhs.shape[0], got {la.str_short()} and {ra.str_short()} (use "
                         f"lax.dot_general for other contractions)")
    return dot_general(lhs, rhs, (((la.ndim - 1,), (0,)), ((), ())), precision, preferred_element_type,
                       out_sharding)


@dot_general_p.def_abstract_eval
def _dot_general_abstract_eval(lhs, rhs, *, dimension_numbers, precision, preferred_element_type,
                               out_sharding=None):
    (lc, rc), (lb, rb) = dimension_numbers  # (bool dots are allowed: logical and/or, as in XLA)
    if len(lc) != len(rc) or len(lb) != len(rb):
        raise TypeError(f"dot_general: contracting/batch dimension lists must have equal lengths, "
                        f"got {dimension_numbers}")
    ls, rs = lhs.shape, rhs.shape
    ldims, rdims = lc + lb, rc + rb
    for dims, nd, a, side in ((ldims, len(ls), lhs, "lhs"), (rdims, len(rs), rhs, "rhs")):
        if dims and (min(dims) < 0 or max(dims) >= nd or len(set(dims)) != len(dims)):
            raise TypeError(f"dot_general: invalid dimensions {dims} for {side} {a.str_short()}")
    for ld, rd, what in ((lc, rc, "contracting"), (lb, rb, "batch")):
        if ld and [ls[d] for d in ld] != [rs[d] for d in rd]:
            l, r = next((l, r) for l, r in zip(ld, rd) if ls[l] != rs[r])
            raise TypeError(f"dot_general requires {what} dimensions to have the same shape, got "
                            f"{tuple(ls[d] for d in ld)} and {tuple(rs[d] for d in rd)}: "
                            f"{lhs.str_short()} (dim {l}) vs {rhs.str_short()} (dim {r})")
    batch = tuple([ls[d] for d in lb])
    lfree = tuple([s for i, s in enumerate(ls) if i not in ldims])
    rfree = tuple([s for i, s in enumerate(rs) if i not in rdims])
    dt = _dot_result_dtype(lhs, rhs, preferred_element_type)
    return ShapedArray(batch + lfree + rfree, dt, lhs.weak_type and rhs.weak_type)


def _bit_width(dt):
    """Bits of one element, of the real part for complex types (XLA's measure)."""
    return 1 if dt == np.bool_ else itemsize_bits(real_dtype(dt))


def _precision_rank(dt):
    """How XLA orders element types when a dot mixes two (its "higher precision type"):
    complex over real, then exponent range, mantissa, bit width, signed over unsigned."""
    real = real_dtype(dt)
    fi = finfo(real) if kind(real) == "f" else None
    return (kind(dt) == "c", fi.maxexp if fi else -1, fi.nmant if fi else -1, _bit_width(dt),
            kind(real) != "u")


def _dot_result_dtype(lhs, rhs, preferred_element_type):
    """As XLA (and JAX): operands may differ in dtype; the result has the more precise one,
    or `preferred_element_type` (an integer one may not be narrower)."""
    if lhs.dtype == rhs.dtype:
        dt = lhs.dtype
    else:
        lrank, rrank = _precision_rank(lhs.dtype), _precision_rank(rhs.dtype)
        if lrank == rrank:
            raise TypeError(f"dot_general: operand dtypes {lhs.str_short()} and "
                            f"{rhs.str_short()} have no common type")
        dt = lhs.dtype if lrank > rrank else rhs.dtype
    pet = preferred_element_type
    if pet is None or pet == dt:
        return dt
    if kind(dt) != "f" and _bit_width(pet) < _bit_width(dt):
        raise TypeError(f"dot_general: preferred_element_type {np.dtype(pet).name} is narrower "
                        f"than the result type {np.dtype(dt).name}")
    return pet


def _np_dot_general(lhs, rhs, *, dimension_numbers, precision, preferred_element_type, out_sharding=None):
    (lc, rc), (lb, rb) = dimension_numbers
    lhs, rhs = np.asarray(lhs), np.asarray(rhs)
    letters = iter("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ")
    ls = [next(letters) for _ in range(lhs.ndim)]
    rs = [next(letters) for _ in range(rhs.ndim)]
    for l, r in zip(lc + lb, rc + rb):
        rs[r] = ls[l]
    out = [ls[d] for d in lb] + [ls[i] for i in range(lhs.ndim) if i not in lc and i not in lb] + \
          [rs[i] for i in range(rhs.ndim) if i not in rc and i not in rb]
    dt = _dot_result_dtype(core.get_aval(lhs), core.get_aval(rhs), preferred_element_type)
    return np.einsum(f"{''.join(ls)},{''.join(rs)}->{''.join(out)}", lhs.astype(dt), rhs.astype(dt))


dot_general_p.np_impl = _np_dot_general


@dot_general_p.def_jvp
def _dot_general_jvp(primals, tangents, **params):
    x, y = primals
    tx, ty = tangents
    ans = dot_general_p.bind(x, y, **params)
    out = Zero(ad.tangent_aval(core.get_aval(ans)))
    if type(tx) is not Zero:
        out = ad.add_tangents(out, dot_general_p.bind(tx, y, **params))
    if type(ty) is not Zero:
        out = ad.add_tangents(out, dot_general_p.bind(x, ty, **params))
    return ans, out


def _dot_transpose_operand(ct, other, other_aval, x_aval, x_contract, x_batch, o_contract, o_batch,
                           precision, x_is_lhs):
    """Cotangent of one dot_general operand `x` given the other operand."""
    nb = len(x_batch)
    x_free = [d for d in range(x_aval.ndim) if d not in x_contract and d not in x_batch]
    o_free = [d for d in range(other_aval.ndim) if d not in o_contract and d not in o_batch]
    n_xfree, n_ofree = len(x_free), len(o_free)
    # ct dims: batch, then lhs free, then rhs free
    if x_is_lhs:
        ct_other_free = tuple(range(nb + n_xfree, nb + n_xfree + n_ofree))
    else:
        ct_other_free = tuple(range(nb, nb + n_ofree))
    dn = ((ct_other_free, tuple(o_free)), (tuple(range(nb)), tuple(o_batch)))
    # out dims: batch, ct's remaining (x free), other's remaining dims (o_contract, increasing)
    o_rest = sorted(o_contract)
    x_of_o = {o: x for x, o in zip(x_contract, o_contract)}
    out_to_x = list(x_batch) + x_free + [x_of_o[o] for o in o_rest]
    perm = [out_to_x.index(d) for d in range(x_aval.ndim)]
    # sharding in types: the cotangent is laid out as the primal (JAX's rule too)
    s = getattr(x_aval, "sharding", None)
    out = dot_general(ct, other, dn, precision,
                      out_sharding=None if s is None else sharding_rules.permuted_spec(s, perm))
    out = transpose(out, perm)
    if core.get_aval(out).dtype != x_aval.dtype:
        out = convert_element_type(out, x_aval.dtype)
    return out


@dot_general_p.def_transpose
def _dot_general_transpose(ct, x, y, *, dimension_numbers, precision, preferred_element_type,
                           out_sharding=None):
    if type(ct) is Zero:
        return [None, None]
    (lc, rc), (lb, rb) = dimension_numbers
    if ad.is_undefined_primal(x):
        y_aval = core.get_aval(y)
        return [_dot_transpose_operand(ct, y, y_aval, x.aval, lc, lb, rc, rb, precision, True), None]
    x_aval = core.get_aval(x)
    return [None, _dot_transpose_operand(ct, x, x_aval, y.aval, rc, rb, lc, lb, precision, False)]


@dot_general_p.def_batch
def _dot_general_batch(axis_size, args, dims, *, dimension_numbers, **params):
    """Both operands batched: their batch axes become the leading batch dimension. One batched:
    its batch axis is a free dimension, so it appears in the result where free dims go."""
    (lhs, rhs), (ld, rd) = args, dims
    (lc, rc), (lb, rb) = dimension_numbers
    lc, lb, rc, rb = raw_axes(lc, ld), raw_axes(lb, ld), raw_axes(rc, rd), raw_axes(rb, rd)
    if ld is not None and rd is not None:
        dn, out_d = ((lc, rc), ((ld,) + lb, (rd,) + rb)), 0
    elif ld is not None:
        lhs_free = [i for i in range(core.get_aval(lhs).ndim) if i not in lc + lb]
        dn, out_d = ((lc, rc), (lb, rb)), len(lb) + lhs_free.index(ld)
    else:
        n_lhs_free = core.get_aval(lhs).ndim - len(lc) - len(lb)
        rhs_free = [i for i in range(core.get_aval(rhs).ndim) if i not in rc + rb]
        dn, out_d = ((lc, rc), (lb, rb)), len(lb) + n_lhs_free + rhs_free.index(rd)
    return dot_general_p.bind(lhs, rhs, dimension_numbers=dn, **params), out_d


@dot_general_p.def_lowering
def _dot_general_lowering(ctx, lhs, rhs, *, dimension_numbers, precision, preferred_element_type,
                          out_sharding=None):
    (lc, rc), (lb, rb) = dimension_numbers
    l_aval, r_aval = ctx.avals_in
    out = ctx.avals_out[0]
    if l_aval.dtype != r_aval.dtype:
        # XLA's CPU and GPU code generators want one operand type: compute in the result's
        # (equal operand types stay as they are, e.g. bf16 x bf16 accumulating in f32)
        lhs = ctx.convert(lhs, l_aval, out.dtype)
        rhs = ctx.convert(rhs, r_aval, out.dtype)
    dn = (f"#stablehlo.dot<lhs_batching_dimensions = {i64_list(lb)}, rhs_batching_dimensions = "
          f"{i64_list(rb)}, lhs_contracting_dimensions = {i64_list(lc)}, rhs_contracting_dimensions "
          f"= {i64_list(rc)}>")
    p = precision or (Precision.DEFAULT, Precision.DEFAULT)  # canonical: a pair of Precisions
    prec = "[" + ", ".join(f"#stablehlo<precision {x.name}>" for x in p) + "]"
    return ctx.op("stablehlo.dot_general", lhs, rhs,
                  attrs={"dot_dimension_numbers": dn, "precision_config": prec})
