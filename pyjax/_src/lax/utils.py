"""Factories and shared rules for families of lax primitives.

A family member is one line:
`exp_p = unop("exp", np.exp, "stablehlo.exponential", jvp=lambda g, ans, x: mul(g, ans))`.
The factories attach the abstract eval (shape and dtype checks with clear errors), the NumPy
reference implementation, eager execution through XLA, the derivative rules, batching and the
lowering.
"""
from __future__ import annotations

import operator
from functools import partial

import numpy as np
from numpy.exceptions import AxisError

from pyjax._src import core, dtypes
from pyjax._src.core import Primitive, ShapedArray
from pyjax._src.dispatch import apply_primitive
from pyjax._src.interpreters.ad import Zero, defjvp, deflinear, tangent_aval
from pyjax._src.interpreters.batching import defbroadcasting, defvectorized
from pyjax._src.lax import sharding_rules
from pyjax._src.lowering import sdy
from pyjax._src.lowering.mlir import enum

# -- dtype categories ------------------------------------------------------------------------

_KIND_CACHE: dict = {}


def kind(dt) -> str:
    """'b' bool, 'i' signed int, 'u' unsigned int, 'f' float (incl. bfloat16/fp8), 'c' complex."""
    k = _KIND_CACHE.get(dt)
    if k is None:
        dt = np.dtype(dt)
        if dt == np.bool_:
            k = "b"
        elif dtypes.issubdtype(dt, np.complexfloating):
            k = "c"
        elif dtypes.issubdtype(dt, np.floating):
            k = "f"
        elif dtypes.issubdtype(dt, np.unsignedinteger):
            k = "u"
        elif dtypes.issubdtype(dt, np.signedinteger):
            k = "i"
        else:
            k = "?"
        _KIND_CACHE[dt] = k
    return k


# accepted-dtype sets, as strings of kinds
BOOL, INT, UINT, FLOAT, COMPLEX = "b", "iu", "u", "f", "c"
INEXACT = "fc"
NUM = "iufc"
ANY = "biufc"
INT_OR_BOOL = "biu"
ORDERED = "biuf"

_KIND_NAMES = {"b": "bool", "i": "signed integer", "u": "unsigned integer", "f": "floating",
               "c": "complex"}


def check_dtype(name: str, aval: ShapedArray, accepted: str, arg="operand"):
    if kind(aval.dtype) not in accepted:
        names = ", ".join(dict.fromkeys(_KIND_NAMES[k] for k in accepted))
        raise TypeError(f"{name} does not accept dtype {aval.dtype.name} for {arg} "
                        f"(got {aval.str_short()}); accepted: {names}")


def _shapes_str(avals):
    return ", ".join(a.str_short() for a in avals)


def broadcast_scalars_shape(name: str, avals) -> tuple:
    """Elementwise operands have equal ranks and each dimension equal or 1 (stretched), or are
    rank 0 (as in JAX 0.10's lax)."""
    shape = None
    for a in avals:
        if not a.shape:
            continue
        if shape is None:
            shape = a.shape
            continue
        if len(a.shape) != len(shape) or any(x != y and 1 not in (x, y) for x, y in zip(a.shape, shape)):
            raise TypeError(f"{name} got incompatible shapes for broadcasting: {_shapes_str(avals)}")
        shape = tuple(x if y == 1 else y for x, y in zip(a.shape, shape))
    return shape or ()


def check_same_dtypes(name: str, avals):
    dts = {a.dtype for a in avals}
    if len(dts) > 1:
        raise TypeError(f"{name}: operands must have the same dtype, got {_shapes_str(avals)}. "
                        f"Convert with lax.convert_element_type (jax.numpy functions promote "
                        f"automatically)")


def standard_primitive(name, abstract_eval=None, np_impl=None, lowering=None,
                       multiple_results=False, *, jvp=None, transpose=None,
                       pure_abstract_eval=False) -> Primitive:
    """A primitive evaluated eagerly by compiling its lowering (`dispatch.apply_primitive`).
    Rules not given here are attached next to it (`@p.def_abstract_eval`, ...).
    `pure_abstract_eval`: see `core.Primitive` (its abstract evaluation's answers are cached)."""
    p = Primitive(name, multiple_results)
    p.pure_abstract_eval = pure_abstract_eval and not multiple_results
    if not multiple_results:  # (barriers and the like pass each operand's type through)
        p.memory_space_rule = core.default_memory_space
    p.def_impl(partial(apply_primitive, p))
    if abstract_eval is not None:
        p.def_abstract_eval(abstract_eval)
    p.np_impl = np_impl
    if lowering is not None:
        p.def_lowering(lowering)
    def_derivative(p, jvp, transpose)
    return p


# -- derivative rules of family members --------------------------------------------------------

zero_derivative = object()
"""`jvp=zero_derivative`: the derivative is zero wherever it exists (floor, comparisons, bit
operations, argmax), so the tangents are symbolic zeros and nothing is computed."""


def def_zero_jvp(prim: Primitive):
    def rule(primals, tangents, **params):
        ans = prim.bind(*primals, **params)
        outs = ans if prim.multiple_results else [ans]
        zeros = [Zero(tangent_aval(core.get_aval(o))) for o in outs]
        return ans, (zeros if prim.multiple_results else zeros[0])
    prim.def_jvp(rule)


def def_derivative(prim: Primitive, jvp=None, transpose=None):
    """`jvp`: `zero_derivative`, or `ad.defjvp`'s `(g, ans, *operands, **params) -> tangent`
    function (a tuple of them, one per operand, None where an operand has none). `transpose`
    alone: the primitive is linear and its JVP applies it to the tangents (`ad.deflinear`); with
    `jvp`: the primitive is linear in one operand at a time (mul, div)."""
    if jvp is zero_derivative:
        def_zero_jvp(prim)
    elif jvp is not None:
        defjvp(prim, *(jvp if isinstance(jvp, tuple) else (jvp,)))
    if transpose is not None:
        if jvp is None:
            deflinear(prim, transpose)
        else:
            prim.def_transpose(transpose)


# -- elementwise families -------------------------------------------------------------------


def _unop_abstract_eval(name, accepted, result_dtype, x, **params):
    check_dtype(name, x, accepted)
    dt = x.dtype if result_dtype is None else result_dtype(x.dtype)
    return ShapedArray(x.shape, dt, x.weak_type)


def _simple_lowering(hlo_op, ctx, *args, **params):
    return ctx.op(hlo_op, *broadcast_operands(ctx, args))


def broadcast_operands(ctx, args):
    """Broadcast rank-0 operands of an elementwise op to the output shape. Under sharding in
    types an operand broadcast, or typed with another sharding than the result, is constrained
    to the result's sharding first, as JAX lowers it."""
    out = ctx.avals_out[0]
    shape, sharding = out.shape, getattr(out, "sharding", None)
    if sharding is None:
        return [ctx.broadcast(x, a, shape) if a.shape != shape else x
                for x, a in zip(args, ctx.avals_in, strict=True)]
    outs = []
    for x, a in zip(args, ctx.avals_in, strict=True):
        if a.shape != shape:
            x = sdy.type_constraint(ctx, ctx.broadcast(x, a, shape),
                                    ShapedArray(shape, a.dtype, sharding=sharding))
        elif getattr(a, "sharding", None) != sharding:
            x = sdy.type_constraint(ctx, x, ShapedArray(shape, a.dtype, sharding=sharding))
        outs.append(x)
    return outs


def unop(name, np_impl, hlo_op, accepted=INEXACT, result_dtype=None, lowering=None, *,
         jvp=None, transpose=None) -> Primitive:
    """A unary elementwise primitive: shape preserved, dtype preserved unless `result_dtype`.
    `jvp`/`transpose` as in `def_derivative`."""
    p = standard_primitive(
        name, partial(_unop_abstract_eval, name, accepted, result_dtype), np_impl,
        lowering or partial(_simple_lowering, hlo_op), jvp=jvp, transpose=transpose,
        pure_abstract_eval=True)
    defvectorized(p)
    p.def_sharding_rule(sharding_rules.same_as_operand)
    return p


def _naryop_abstract_eval(name, accepted, result_dtype, *avals, **params):
    for i, a in enumerate(avals):
        check_dtype(name, a, accepted, arg=f"operand {i}")
    check_same_dtypes(name, avals)
    shape = broadcast_scalars_shape(name, avals)
    dt = avals[0].dtype if result_dtype is None else result_dtype
    return ShapedArray(shape, dt, all(a.weak_type for a in avals))


def binop(name, np_impl, hlo_op, accepted=NUM, result_dtype=None, lowering=None, *,
          jvp=None, transpose=None) -> Primitive:
    """A binary elementwise primitive; operands have equal dtypes and shapes (or are rank 0).
    `jvp` (a pair, one per operand) and `transpose` as in `def_derivative`."""
    p = standard_primitive(
        name, partial(_naryop_abstract_eval, name, accepted, result_dtype), np_impl,
        lowering or partial(_simple_lowering, hlo_op), jvp=jvp, transpose=transpose,
        pure_abstract_eval=True)
    defbroadcasting(p)
    p.def_sharding_rule(sharding_rules.broadcasting(name))
    return p


def compare_type(dt) -> str:
    k = kind(dt)
    return {"f": "FLOAT", "c": "FLOAT", "i": "SIGNED", "u": "UNSIGNED", "b": "UNSIGNED"}[k]


def emit_compare(ctx, direction, x, y, operand_aval, out=None, total_order=False):
    """`total_order`: floats compare as -NaN < -inf < ... < -0 < +0 < ... < inf < NaN."""
    ctype = "TOTALORDER" if total_order and kind(operand_aval.dtype) in "fc" else compare_type(operand_aval.dtype)
    attrs = {"comparison_direction": enum("comparison_direction", direction),
             "compare_type": enum("comparison_type", ctype)}
    out = out if out is not None else operand_aval.update(dtype=np.bool_, weak_type=False)
    return ctx.op("stablehlo.compare", x, y, out=out, attrs=attrs)


def _compare_lowering(direction, total_order, ctx, x, y):
    x, y = broadcast_operands(ctx, (x, y))
    return emit_compare(ctx, direction, x, y, ctx.avals_in[0], ctx.avals_out[0], total_order)


def _compare_abstract_eval(name, accepted, x, y):
    out = _naryop_abstract_eval(name, accepted, np.dtype(np.bool_), x, y)
    return out.update(weak_type=False)


def compareop(name, np_impl, direction, accepted=ORDERED, total_order=False) -> Primitive:
    """A comparison: bool results, so a zero derivative. `total_order`: see `emit_compare`."""
    p = standard_primitive(name, partial(_compare_abstract_eval, name, accepted), np_impl,
                           partial(_compare_lowering, direction, total_order), jvp=zero_derivative,
                           pure_abstract_eval=True)
    defbroadcasting(p)
    p.def_sharding_rule(sharding_rules.broadcasting(name))
    return p


# -- misc helpers ----------------------------------------------------------------------------


def _where(fname, name):
    return f"{fname}: {name}" if fname else name


def canonicalize_axis(axis, ndim: int, name="axis", fname=None) -> int:
    """`axis` as an index in [0, ndim). Not an integer: TypeError (floats are not truncated);
    out of range: NumPy's AxisError, which is both the ValueError and the IndexError that JAX's
    functions variously raise."""
    if isinstance(axis, core.Tracer):  # a concrete tracer (under grad) is as good as its value
        value = axis.to_concrete_value()
        if value is None:
            raise axis._int_error(_where(fname, name))
        axis = value
    try:
        axis = operator.index(axis)
    except TypeError:
        raise TypeError(f"{_where(fname, name)} must be an integer, got {axis!r} of type "
                        f"{type(axis).__name__}") from None
    if not -ndim <= axis < ndim:
        raise AxisError(f"{_where(fname, name)} {axis} is out of bounds for an array of rank {ndim}")
    return axis % ndim


def canonicalize_axes(axes, ndim: int, name="axes", fname=None) -> tuple:
    """A sequence of axes as a sorted tuple of distinct indices in [0, ndim)."""
    out = tuple(sorted(canonicalize_axis(a, ndim, name, fname) for a in axes))
    if len(set(out)) != len(out):
        raise ValueError(f"{_where(fname, 'repeated axis in ' + name)}: {tuple(axes)}")
    return out


def np_dtype_param(dtype) -> np.dtype:
    """Static dtype parameters are canonical NumPy dtypes. A 64-bit type named explicitly while
    x64 is off follows jax_explicit_x64_dtypes (warn and narrow, raise, or keep), as in JAX."""
    d = dtypes.dtype_of(dtype)
    if not isinstance(d, np.dtype) or (isinstance(dtype, type) and dtype in dtypes.python_scalar_dtypes):
        return dtypes.canonicalize_dtype(d)  # Python types mean the default types, silently
    return dtypes.maybe_canonicalize_explicit_dtype(d, "convert_element_type", stacklevel=4)

