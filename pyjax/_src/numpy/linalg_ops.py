"""Products: dot, matmul (`@`), vdot, inner, outer, tensordot, einsum (contraction order from
opt_einsum)."""
from __future__ import annotations

import operator

import numpy as np
import opt_einsum

from pyjax._src import core, dtypes
from pyjax._src.lax.convert import _convert_element_type
from pyjax._src.lax import sharding_rules, shape_ops as lax
from pyjax._src.lax.barriers import reshard_p
from pyjax._src.lax.dot_general import dot_general
from pyjax._src.lax.utils import canonicalize_axis
from pyjax._src.numpy import reductions as jred
from pyjax._src.numpy import ufuncs
from pyjax._src.numpy.lax_numpy import diagonal
from pyjax._src.numpy.util import asarray_value, check_arraylike, promote_dtypes
from pyjax._src.numpy.util import broadcast_shapes as _broadcast, broadcast_to as _broadcast_to


def _aval(x):
    return core.get_aval(x)


def _pet(preferred_element_type, x):
    """The dot_general result type: the one asked for, else the (promoted) operands' dtype, which
    JAX's products always pass (`dot_general[... preferred_element_type=float32]`)."""
    return _aval(x).dtype if preferred_element_type is None else preferred_element_type


def _promote_for_dot(*operands):
    """Operands of a product in the result dtype, and the result's weak type. NB: as JAX's
    dot/matmul/tensordot/einsum, an operand already of that dtype is used as it is (a weak one
    is not made strong first, so its cotangent is not converted back to weak); the others are
    converted to it (strong, as JAX's mixed-dtype dot_general computes them)."""
    dt, weak = dtypes.lattice_result_type(*operands)
    return ([asarray_value(x) if _aval(x).dtype == dt else _convert_element_type(x, dt, False)
             for x in operands], weak)


def _as_result(out, preferred_element_type, weak):
    """The product with the weak type of the promoted operands (strong when a result type was
    asked for)."""
    if preferred_element_type is not None:
        return out
    return _convert_element_type(out, _aval(out).dtype, weak)


def dot(a, b, *, precision=None, preferred_element_type=None, out_sharding=None):
    """NumPy's dot: scalar product, matrix product, or contraction of a's last axis with b's
    second-to-last."""
    check_arraylike("dot", a, b)
    if np.ndim(a) == 0 or np.ndim(b) == 0:
        return ufuncs.multiply(a, b)
    (a, b), weak = _promote_for_dot(a, b)
    aa, ba = _aval(a), _aval(b)
    contract_b = 0 if ba.ndim == 1 else ba.ndim - 2
    out = dot_general(a, b, (((aa.ndim - 1,), (contract_b,)), ((), ())), precision,
                      _pet(preferred_element_type, a), out_sharding)
    return _as_result(out, preferred_element_type, weak)


def matmul(a, b, *, precision=None, preferred_element_type=None, out_sharding=None):
    """Matrix product with NumPy's broadcasting of leading (batch) dimensions. A vector operand
    is contracted as it is (as JAX does): reshaping it to a 1-row matrix would leave size-1
    dimensions in every dot_general derived from it (vmap, transpose), which XLA compiles slower."""
    check_arraylike("matmul", a, b)
    (a, b), weak = _promote_for_dot(a, b)
    aa, ba = _aval(a), _aval(b)
    if aa.ndim == 0 or ba.ndim == 0:
        raise ValueError(f"matmul: operands must have at least 1 dimension, got shapes {aa.shape} and {ba.shape}")
    a_mat, b_mat = aa.ndim > 1, ba.ndim > 1
    k_a, k_b = aa.shape[-1], ba.shape[-2 if b_mat else 0]
    if k_a != k_b:
        raise TypeError(f"matmul: input operand 1 has a mismatch in its core dimension 0, with "
                        f"gufunc signature (n?,k),(k,m?)->(n?,m?) (size {k_b} is different "
                        f"from {k_a}); shapes {aa.shape} and {ba.shape}")
    a_batch, b_batch = aa.shape[:-2], ba.shape[:-2]
    try:
        batch = _broadcast(a_batch, b_batch)
    except ValueError:
        raise ValueError(f"matmul: batch dimensions {a_batch} and {b_batch} of operands "
                         f"{aa.str_short()} and {ba.str_short()} do not broadcast") from None
    nb = len(batch)

    def prep(x, x_batch):
        """Squeeze the batch dims of size 1 that broadcast against the other operand; return
        the operand and the result batch positions of the batch dims it keeps."""
        lead = nb - len(x_batch)
        drop = [i for i, d in enumerate(x_batch) if d != batch[lead + i]]
        keep = [lead + i for i in range(len(x_batch)) if i not in drop]
        return (lax.squeeze(x, drop) if drop else x), keep

    a, a_keep = prep(a, a_batch)
    b, b_keep = prep(b, b_batch)
    both = [i for i in a_keep if i in b_keep]
    a_only = [i for i in a_keep if i not in b_keep]
    b_only = [i for i in b_keep if i not in a_keep]
    dn = (((len(a_keep) + a_mat,), (len(b_keep),)),
          (tuple(a_keep.index(d) for d in both), tuple(b_keep.index(d) for d in both)))
    # dot_general gives (both..., a_only..., m?, b_only..., n?); put batch dims back in order
    m, n = (["m"] if a_mat else []), (["n"] if b_mat else [])
    have = both + a_only + m + b_only + n
    perm = [have.index(d) for d in list(range(nb)) + m + n]
    if out_sharding is not None:  # (the spec of the result, in dot_general's order)
        out_sharding = sharding_rules.permuted_spec(
            sharding_rules.out_sharding_param(out_sharding, "matmul"), perm)
    out = dot_general(a, b, dn, precision, _pet(preferred_element_type, a), out_sharding)
    out = lax.transpose(out, perm)
    return _as_result(out, preferred_element_type, weak)


def vdot(a, b, *, precision=None, preferred_element_type=None):
    """Dot product of the flattened arrays, conjugating `a`."""
    check_arraylike("vdot", a, b)
    a, b = asarray_value(a), asarray_value(b)  # (dot promotes them)
    a = ufuncs.conjugate(a)
    return dot(lax.reshape(a, (_aval(a).size,)), lax.reshape(b, (_aval(b).size,)),
               precision=precision, preferred_element_type=preferred_element_type)


def _axis_last(x, axis):
    nd = _aval(x).ndim
    a = canonicalize_axis(axis, nd)
    return lax.transpose(x, tuple(d for d in range(nd) if d != a) + (a,))


def vecdot(x1, x2, /, *, axis=-1, precision=None, preferred_element_type=None):
    check_arraylike("vecdot", x1, x2)
    s1, s2 = _aval(asarray_value(x1)).shape, _aval(asarray_value(x2)).shape
    n1 = s1[canonicalize_axis(axis, len(s1), "axis", "vecdot")]
    n2 = s2[canonicalize_axis(axis, len(s2), "axis", "vecdot")]
    if n1 != n2:
        raise ValueError(f"vecdot: axes must match; got shapes {s1} and {s2} with axis={axis}")
    # as JAX (a gufunc (n),(n)->()): `axis` of each operand is its vector; the others broadcast
    x1, x2 = promote_dtypes(asarray_value(x1), asarray_value(x2))
    x1, x2 = (_axis_last(x, axis) for x in (x1, x2))
    shape = _broadcast(_aval(x1).shape[:-1], _aval(x2).shape[:-1]) + (n1,)
    prod = ufuncs.multiply(ufuncs.conjugate(_broadcast_to(x1, shape)), _broadcast_to(x2, shape))
    return jred.sum(prod, axis=-1, dtype=_aval(prod).dtype)  # no integer promotion, as JAX


def inner(a, b, *, precision=None, preferred_element_type=None):
    check_arraylike("inner", a, b)
    a, b = asarray_value(a), asarray_value(b)  # (multiply and tensordot promote them)
    aa, ba = _aval(a), _aval(b)
    if aa.ndim == 0 or ba.ndim == 0:
        return ufuncs.multiply(a, b)
    return tensordot(a, b, ((aa.ndim - 1,), (ba.ndim - 1,)), precision=precision,
                     preferred_element_type=preferred_element_type)


def outer(a, b, out=None):
    if out is not None:
        raise NotImplementedError("The 'out' argument to jnp.outer is not supported (Arrays are immutable).")
    check_arraylike("outer", a, b)
    a, b = promote_dtypes(a, b)
    a = lax.reshape(a, (_aval(a).size, 1))
    b = lax.reshape(b, (1, _aval(b).size))
    return ufuncs.multiply(a, b)


def tensordot(a, b, axes=2, *, precision=None, preferred_element_type=None):
    """Contract `axes` (an int: last n of a with first n of b; or a pair of sequences)."""
    check_arraylike("tensordot", a, b)
    (a, b), weak = _promote_for_dot(a, b)
    aa, ba = _aval(a), _aval(b)
    if isinstance(axes, (int, np.integer)):
        n = int(axes)
        if n > min(aa.ndim, ba.ndim):
            raise TypeError(f"tensordot: axes={n} exceeds the ranks of {aa.shape} and {ba.shape}")
        # NB: as in JAX, a negative count contracts nothing (an outer product)
        ax_a, ax_b = tuple(range(aa.ndim - n, aa.ndim)), tuple(range(max(n, 0)))
    elif not (isinstance(axes, (tuple, list)) and len(axes) == 2):
        raise TypeError(f"tensordot: axes must be an int, a pair of ints, or a pair of sequences of "
                        f"ints, got {axes!r}")
    else:
        ax_a, ax_b = axes
        ax_a = (ax_a,) if isinstance(ax_a, int) else tuple(ax_a)
        ax_b = (ax_b,) if isinstance(ax_b, int) else tuple(ax_b)
        if len(ax_a) != len(ax_b):
            raise TypeError(f"tensordot: axes lists must have equal length, got {axes}")
        ax_a = tuple(canonicalize_axis(x, aa.ndim, "axes", "tensordot") for x in ax_a)
        ax_b = tuple(canonicalize_axis(x, ba.ndim, "axes", "tensordot") for x in ax_b)
    out = dot_general(a, b, ((ax_a, ax_b), ((), ())), precision, _pet(preferred_element_type, a))
    return _as_result(out, preferred_element_type, weak)


def einsum(subscripts, *operands, out=None, optimize="auto", precision=None,
           preferred_element_type=None, _dot_general=None, out_sharding=None):
    """Einstein summation; pairwise contraction order from opt_einsum. The subscripts are a string
    (`einsum("ij,jk->ik", a, b)`) or interleaved with the operands (`einsum(a, [0, 1], b, [1, 2])`)."""
    if out is not None:
        raise NotImplementedError("The 'out' argument to jnp.einsum is not supported (Arrays are immutable).")
    if not isinstance(subscripts, str):
        subscripts, operands = _interleaved_subscripts((subscripts,) + operands)
    check_arraylike("einsum", *operands)
    # as JAX: the operands keep their dtypes (dot_general takes mixed ones and computes in the
    # result dtype, its preferred_element_type); a sum converts its operand first
    operands = [asarray_value(x) for x in operands]
    if preferred_element_type is None:
        pet, weak = dtypes.lattice_result_type(*operands)
    else:
        pet, weak = dtypes.canonicalize_dtype(np.dtype(preferred_element_type)), False
    # (a symbolic dimension, under export, is planned for as if it were 8, as JAX does)
    shapes = [tuple(8 if type(d) in core.symbolic_dim_types else d for d in _aval(x).shape)
              for x in operands]
    opt = "greedy" if optimize in ("auto", True) else (optimize if optimize else False)
    _, path_info = opt_einsum.contract_path(subscripts, *[np.empty(s, dtype=np.float32) if 0 not in s else np.empty(s)
                                                        for s in shapes], shapes=False, optimize=opt or False)
    input_str, output_str = path_info.input_subscripts, path_info.output_subscript
    ops = list(zip(input_str.split(","), operands))
    for contraction in path_info.contraction_list:
        idx, _, einstr, _, _ = contraction[:5]
        ins, result = einstr.split("->")
        ins = ins.split(",")
        picked = [ops[i] for i in idx]
        for i in sorted(idx, reverse=True):
            ops.pop(i)
        if len(picked) > 2:
            raise NotImplementedError(
                "jax.numpy.einsum does not support simultaneous contraction of 3 or more operands. "
                "Typically this means you've passed an unsupported path to the einsum optimize "
                "parameter.")
        if len(picked) == 1:
            (s, x), = picked
            x = _einsum_unary(x, s, result, pet)
        else:
            (s1, x1), (s2, x2) = picked
            last = not ops and result == output_str  # its result is einsum's
            x = _einsum_binary(x1, s1, x2, s2, result, precision, pet,
                               out_sharding if last else None)
            if last:
                out_sharding = None
        ops.append((result, x))
    (s, x), = ops
    x = _einsum_unary(x, s, output_str, pet)
    if out_sharding is not None:  # (no contraction made the result: laid out afterwards)
        x = reshard_p.bind(x, sharding=sharding_rules.out_sharding_param(out_sharding, "einsum"))
    return _convert_element_type(x, pet, weak)


def _interleaved_subscripts(args):
    """`(op0, sublist0, op1, sublist1, ..., [output_sublist])` as a subscripts string and the
    operands (NumPy's second form of einsum); sublists hold ints (or Ellipsis)."""
    operands, sublists = list(args[0::2]), list(args[1::2])
    output = operands.pop() if len(operands) > len(sublists) else None
    # letters in the order of the integer labels, so the implicit output order (sorted) agrees
    labels = sorted({operator.index(i) for sub in sublists + [output or []] for i in sub if i is not Ellipsis})
    letters = {i: opt_einsum.get_symbol(k) for k, i in enumerate(labels)}

    def letter(i):
        return "..." if i is Ellipsis else letters[operator.index(i)]
    ins = ",".join("".join(letter(i) for i in sub) for sub in sublists)
    if output is None:
        return ins, tuple(operands)
    return ins + "->" + "".join(letter(i) for i in output), tuple(operands)


def _einsum_unary(x, s, result, pet):
    """Diagonals (repeated letters), sums over letters absent from `result` (in `pet` when the
    operand's dtype is narrower), then a transpose."""
    # repeated indices: take the diagonal
    while len(set(s)) != len(s):
        for c in s:
            if s.count(c) > 1:
                i = s.index(c)
                j = s.index(c, i + 1)
                x = _diagonal(x, i, j)
                s = s[:i] + s[i + 1:j] + s[j + 1:] + c
                break
    sum_axes = tuple(i for i, c in enumerate(s) if c not in result)
    if sum_axes:
        if dtypes.result_type(x, pet) != _aval(x).dtype:
            x = _convert_element_type(x, pet, False)
        x = jred.sum(x, axis=sum_axes, dtype=_aval(x).dtype)  # a contraction keeps its dtype, as in JAX
        s = "".join(c for c in s if c in result)
    if s != result:
        x = lax.transpose(x, [s.index(c) for c in result])
    return x


def _diagonal(x, i, j):
    return diagonal(x, 0, i, j)


def _einsum_binary(x1, s1, x2, s2, result, precision, pet, out_sharding=None):
    # an axis of size 1 against a longer one of the same letter broadcasts: drop it first
    x1, s1 = _filter_singleton_dims(x1, s1, _aval(x2).shape, s2)
    x2, s2 = _filter_singleton_dims(x2, s2, _aval(x1).shape, s1)
    # reduce letters used only by one operand and absent from the result first
    keep1 = "".join(c for c in s1 if c in s2 or c in result)
    keep2 = "".join(c for c in s2 if c in s1 or c in result)
    x1 = _einsum_unary(x1, s1, _dedup(keep1), pet) if keep1 != s1 or len(set(s1)) != len(s1) else x1
    x2 = _einsum_unary(x2, s2, _dedup(keep2), pet) if keep2 != s2 or len(set(s2)) != len(s2) else x2
    s1, s2 = _dedup(keep1), _dedup(keep2)
    # the names' order and the operands' order as JAX's, so jaxprs read the same: batch names in
    # result order, contracted names sorted, and (x2, x1) when that needs no transpose after
    batch = [c for c in result if c in s1 and c in s2]
    contract = sorted(c for c in s1 if c in s2 and c not in result)

    def rest(s):
        return "".join(c for c in s if c not in batch and c not in contract)
    if "".join(batch) + rest(s2) + rest(s1) == result:
        (x1, s1), (x2, s2) = (x2, s2), (x1, s1)
    dn = ((tuple(s1.index(c) for c in contract), tuple(s2.index(c) for c in contract)),
          (tuple(s1.index(c) for c in batch), tuple(s2.index(c) for c in batch)))
    out_s = "".join(batch) + rest(s1) + rest(s2)
    if out_sharding is not None:
        out_sharding = sharding_rules.permuted_spec(sharding_rules.out_sharding_param(
            out_sharding, "einsum"), [out_s.index(c) for c in result])
    out = dot_general(x1, x2, dn, precision, pet, out_sharding)
    return _einsum_unary(out, out_s, result, pet) if out_s != result else out


def _filter_singleton_dims(x, s, other_shape, other_s):
    """`x` without its axes of size 1 whose letter the other operand has at another size (as
    JAX: such an axis broadcasts against the other, which then carries the letter alone)."""
    def one(d):
        return type(d) not in core.symbolic_dim_types and d == 1
    shape = _aval(x).shape
    drop = [i for i, c in enumerate(s)
            if one(shape[i]) and c in other_s and not one(other_shape[other_s.index(c)])]
    if not drop:
        return x, s
    return lax.squeeze(x, drop), "".join(c for i, c in enumerate(s) if i not in drop)


def _dedup(s):
    return "".join(dict.fromkeys(s))


def einsum_path(subscripts, /, *operands, optimize="auto"):
    """The contraction order opt_einsum picks for `einsum(subscripts, *operands)` (without
    computing it): `(path, printable description)`; `optimize=False` contracts left to right.

        >>> path, info = jnp.einsum_path("ij,jk,kl", a, b, c, optimize="optimal")
    """
    if isinstance(optimize, bool):
        optimize = "optimal" if optimize else [(0, 1)] * max(len(operands) - 1, 1)
    return opt_einsum.contract_path(subscripts, *operands, optimize=optimize)


def matvec(x1, x2, /):
    """Matrix-vector products over broadcast batch dimensions: `(..., n, m) @ (..., m) -> (..., n)`.

        >>> jnp.matvec(jnp.ones((4, 2, 3)), jnp.ones(3)).shape
        (4, 2)
    """
    check_arraylike("matvec", x1, x2)
    x1, x2 = asarray_value(x1), asarray_value(x2)
    if _aval(x1).ndim < 2 or _aval(x2).ndim < 1 or _aval(x1).shape[-1] != _aval(x2).shape[-1]:
        raise ValueError(f"matvec: expected (..., n, m) and (..., m), got shapes {_aval(x1).shape} and {_aval(x2).shape}")
    return lax.squeeze(matmul(x1, lax.expand_dims(x2, (_aval(x2).ndim,))), (-1,))


def vecmat(x1, x2, /):
    """Vector-matrix products over broadcast batch dimensions, conjugating the vector:
    `conj(x1) (..., n) @ (..., n, m) -> (..., m)`."""
    check_arraylike("vecmat", x1, x2)
    x1, x2 = asarray_value(x1), asarray_value(x2)
    if _aval(x1).ndim < 1 or _aval(x2).ndim < 2 or _aval(x1).shape[-1] != _aval(x2).shape[-2]:
        raise ValueError(f"vecmat: expected (..., n) and (..., n, m), got shapes {_aval(x1).shape} and {_aval(x2).shape}")
    x1 = ufuncs.conjugate(x1)
    return lax.squeeze(matmul(lax.expand_dims(x1, (_aval(x1).ndim - 1,)), x2), (-2,))


def cross(a, b, axisa=-1, axisb=-1, axisc=-1, axis=None):
    """The cross product of 3-vectors (or 2-vectors, giving the z component) along `axisa` /
    `axisb`, the result's vectors along `axisc` (`axis` sets all three).

        >>> jnp.cross(jnp.array([1.0, 0.0, 0.0]), jnp.array([0.0, 1.0, 0.0]))
        Array([0., 0., 1.], dtype=float32)
    """
    check_arraylike("cross", a, b)
    a, b = promote_dtypes(asarray_value(a), asarray_value(b))
    if axis is not None:
        axisa = axisb = axisc = axis
    a = _to_last(a, axisa, "axisa")
    b = _to_last(b, axisb, "axisb")
    na, nb = _aval(a).shape[-1], _aval(b).shape[-1]
    if na not in (2, 3) or nb not in (2, 3):
        raise ValueError("Dimension must be either 2 or 3 for cross product")
    comp = lambda v, i: lax.squeeze(lax.slice_in_dim(v, i, i + 1, axis=_aval(v).ndim - 1), (-1,))  # noqa: E731
    a0, a1, b0, b1 = comp(a, 0), comp(a, 1), comp(b, 0), comp(b, 1)
    if na == 2 and nb == 2:
        return ufuncs.subtract(ufuncs.multiply(a0, b1), ufuncs.multiply(a1, b0))
    a2 = comp(a, 2) if na == 3 else ufuncs.multiply(a0, 0)
    b2 = comp(b, 2) if nb == 3 else ufuncs.multiply(b0, 0)
    c = [ufuncs.subtract(ufuncs.multiply(a1, b2), ufuncs.multiply(a2, b1)),
         ufuncs.subtract(ufuncs.multiply(a2, b0), ufuncs.multiply(a0, b2)),
         ufuncs.subtract(ufuncs.multiply(a0, b1), ufuncs.multiply(a1, b0))]
    shape = _broadcast(*(_aval(v).shape for v in c))
    c = lax.concatenate([lax.expand_dims(_broadcast_to(v, shape), (len(shape),)) for v in c], len(shape))
    return _from_last(c, axisc)


def _to_last(x, axis, name):
    nd = _aval(x).ndim
    axis = canonicalize_axis(axis, nd, name, "cross")
    return x if axis == nd - 1 else lax.transpose(x, tuple(i for i in range(nd) if i != axis) + (axis,))


def _from_last(x, axis):
    nd = _aval(x).ndim
    axis = canonicalize_axis(axis, nd, "axisc", "cross")
    perm = list(range(nd - 1))
    perm.insert(axis, nd - 1)
    return x if axis == nd - 1 else lax.transpose(x, tuple(perm))
