"""Shared pieces of `lax.linalg` (linalg.py, linalg_structured.py): the public enums, checks and
batched matrix helpers, and the emission of jaxlib's LAPACK custom calls."""
from __future__ import annotations

import enum
from functools import partial

import numpy as np

from pyjax._src import core
from pyjax._src.core import ShapedArray
from pyjax._src.interpreters import batching
from pyjax._src.lax import elementwise as lax_e
from pyjax._src.lax import reductions as lax_r
from pyjax._src.lax import shape_ops as lax_s
from pyjax._src.lax.convert import convert_element_type
from pyjax._src.lax.dot_general import Precision, dot_general
from pyjax._src.lax.slicing import GatherDimensionNumbers, gather
from pyjax._src.lowering.lower import LoweringRuleContext

# -- enums of the public API ---------------------------------------------------------------------


class EighImplementation(enum.Enum):
    """Which eigh algorithm to use (CPU always uses LAPACK's syevd/heevd)."""
    QR = "qr"
    JACOBI = "jacobi"
    QDWH = "qdwh"


class EigImplementation(enum.Enum):
    """Which eig backend to use (CPU always uses LAPACK's geev)."""
    CUSOLVER = "cusolver"
    MAGMA = "magma"
    LAPACK = "lapack"


class SvdAlgorithm(enum.Enum):
    """Which SVD algorithm to use (CPU: divide and conquer, LAPACK's gesdd).

    NB: pyjax uses gesdd for every value on CPU; JAX uses gesvd for `QR`."""
    DEFAULT = "default"
    QR = "QR"
    JACOBI = "Jacobi"
    POLAR = "polar"
    DIVIDE_AND_CONQUER = "divide_and_conquer"


# -- shared helpers: checks, batched matrix algebra ----------------------------------------------

_LAPACK_PREFIX = {np.dtype(np.float32): "s", np.dtype(np.float64): "d",
                  np.dtype(np.complex64): "c", np.dtype(np.complex128): "z"}
_INT32 = np.dtype(np.int32)


def _check_matrix(name, x, square=False, arg="input"):
    if x.ndim < 2:
        raise TypeError(f"{name}: the {arg} must have rank at least 2 (a batch of matrices "
                        f"[..., m, n]), got {x.str_short()}")
    if square and x.shape[-1] != x.shape[-2]:
        raise ValueError(f"{name}: the {arg} must be a square matrix [..., n, n], got {x.str_short()}")
    if x.dtype not in _LAPACK_PREFIX:
        raise TypeError(f"{name} does not accept dtype {x.dtype.name} for its {arg} (got "
                        f"{x.str_short()}); accepted: float32, float64, complex64, complex128")


def _is_complex(dt) -> bool:
    return np.dtype(dt).kind == "c"


def _T(x):
    nd = core.get_aval(x).ndim
    return lax_s.transpose(x, (*range(nd - 2), nd - 1, nd - 2))


def _H(x):
    return lax_e.conj(_T(x)) if _is_complex(core.get_aval(x).dtype) else _T(x)


def symmetrize(x):
    """(x + x^H) / 2: the Hermitian part the decompositions of symmetric matrices read."""
    return lax_e.div(lax_e.add(x, _H(x)), 2.0)


def _matmul(a, b):
    """Batched a @ b over equal leading dimensions, at full precision (as JAX's rules)."""
    nd = core.get_aval(a).ndim
    batch = tuple(range(nd - 2))
    return dot_general(a, b, (((nd - 1,), (nd - 2,)), (batch, batch)),
                       precision=Precision.HIGHEST)


def _full(shape, value, dtype):
    return lax_s.broadcast_in_dim(np.array(value, dtype), tuple(shape), ())


def _zeros_like(x):
    aval = core.get_aval(x)
    return _full(aval.shape, 0, aval.dtype)


def _tri_mask(shape, k, lower):
    """Bool mask of `shape` [..., N, M]: j <= i + k (lower) or j >= i + k (upper)."""
    nd = len(shape)
    i = lax_s.broadcasted_iota(_INT32, shape, nd - 2)
    j = lax_s.broadcasted_iota(_INT32, shape, nd - 1)
    i = lax_e.add(i, np.int32(k)) if k else i
    return lax_e.ge(i, j) if lower else lax_e.le(i, j)


def _tril(x, k=0):
    return lax_e.select(_tri_mask(core.get_aval(x).shape, k, True), x, _zeros_like(x))


def _triu(x, k=0):
    return lax_e.select(_tri_mask(core.get_aval(x).shape, k, False), x, _zeros_like(x))


def _eye(dtype, shape):
    """Identity matrices of `shape` [..., N, M] (ones where i == j)."""
    nd = len(shape)
    eq = lax_e.eq(lax_s.broadcasted_iota(_INT32, shape, nd - 2),
                  lax_s.broadcasted_iota(_INT32, shape, nd - 1))
    return convert_element_type(eq, dtype)


def _diagonal(x):
    """The diagonal [..., n] of square matrices [..., n, n]."""
    aval = core.get_aval(x)
    return lax_r.reduce_sum(lax_e.mul(x, _eye(aval.dtype, aval.shape)), (aval.ndim - 1,))


def _diag_matrix(d):
    """Diagonal matrices [..., n, n] from their diagonals [..., n]."""
    aval = core.get_aval(d)
    shape = aval.shape + aval.shape[-1:]
    return lax_e.mul(lax_s.broadcast_in_dim(d, shape, tuple(range(aval.ndim))), _eye(aval.dtype, shape))


def _slice_last2(x, rows, cols):
    """x[..., :rows, :cols]."""
    shape = core.get_aval(x).shape
    return lax_s.slice(x, (0,) * len(shape), shape[:-2] + (rows, cols))


def _permute_rows(x, perm):
    """x[..., perm, :] for a permutation [..., m] of the rows of x [..., m, n] (a gather with
    the leading dimensions as batching dimensions, as JAX's indexing emits)."""
    xa, pa = core.get_aval(x), core.get_aval(perm)
    nb = xa.ndim - 2
    batch = tuple(range(nb))
    dnums = GatherDimensionNumbers(offset_dims=(nb + 1,), collapsed_slice_dims=(nb,),
                                   start_index_map=(nb,), operand_batching_dims=batch,
                                   start_indices_batching_dims=batch)
    return gather(x, lax_s.expand_dims(perm, (pa.ndim,)), dnums, (1,) * (nb + 1) + (xa.shape[-1],),
                  indices_are_sorted=False, unique_indices=True)


def _real(x):
    return lax_e.real(x) if _is_complex(core.get_aval(x).dtype) else x


def _nan_unless(ok, x):
    """x where `ok` (a bool per matrix of the batch), NaN elsewhere (a failed LAPACK call)."""
    aval, oka = core.get_aval(x), core.get_aval(ok)
    ok = lax_s.broadcast_in_dim(ok, aval.shape, tuple(range(oka.ndim)))
    return lax_e.select(ok, x, _full(aval.shape, np.nan, aval.dtype))


def _batch_leading(prim, axis_size, args, dims, **params):
    """The kernels loop over leading batch dimensions: move the vmapped axis to the front."""
    args = [batching.bdim_at_front(x, d, axis_size) for x, d in zip(args, dims, strict=True)]
    out = prim.bind(*args, **params)
    return out, ([0] * len(out) if prim.multiple_results else 0)


def _def_batch_leading(prim):
    prim.def_batch(partial(_batch_leading, prim))


def _scipy_linalg():
    """scipy.linalg for the reference implementations, imported on first use (the LAPACK
    kernels need scipy at run time too, but only once a module calls one)."""
    import scipy.linalg
    return scipy.linalg


def _np_per_matrix(fn, *xs, n_out=1):
    """Apply `fn` (matrices -> tuple of n_out arrays) to each matrix of a batch and stack."""
    xs = [np.asarray(x) for x in xs]
    batch = xs[0].shape[:-2]
    outs = [fn(*[x[idx] for x in xs]) for idx in np.ndindex(*batch)]
    if not batch:
        return outs[0]
    return tuple(np.stack([o[i] for o in outs]).reshape(batch + np.shape(outs[0][i]))
                 for i in range(n_out))


# -- emitting LAPACK custom calls ----------------------------------------------------------------

def _layout(rank, nb):
    """Minor-to-major layout: the matrix dims of a [batch..., m, n] operand column-major (as
    LAPACK reads them), everything else row-major."""
    if rank - nb == 2:
        dims = [rank - 2, rank - 1] + list(range(nb - 1, -1, -1))
    else:
        dims = list(range(rank - 1, -1, -1))
    if not dims:
        return "dense<> : tensor<0xindex>"
    return f"dense<[{', '.join(map(str, dims))}]> : tensor<{rank}xindex>"


def _attr(v):
    """An FFI attribute: a character (LAPACK's 'L', 'N', ...) as ui8, ints as i32, bools."""
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, str):
        return f"{ord(v)} : ui8"
    return f"{int(v)} : i32"


def _lapack_call(ctx, fn, operands, avals_in, avals_out, nb, aliases=(), **attrs):
    """Emit `lapack_<s|d|c|z><fn>_ffi` for the dtype of the first operand."""
    target = f"lapack_{_LAPACK_PREFIX[np.dtype(avals_in[0].dtype)]}{fn}_ffi"
    return _ffi_call(ctx, target, operands, avals_in, avals_out, nb, aliases, **attrs)


def _ffi_call(ctx, target, operands, avals_in, avals_out, nb, aliases=(), **attrs):
    """Emit the custom call of a jaxlib CPU kernel as JAX does (API version 1, the FFI
    attributes in `mhlo.backend_config`, `nb` leading batch dimensions); `aliases` are
    (result, operand) pairs sharing a buffer."""
    alias_attrs = [f"#stablehlo.output_operand_alias<output_tuple_indices = "
                   f"{[r] if len(avals_out) > 1 else []}, operand_index = {o}, "
                   f"operand_tuple_indices = []>" for r, o in aliases]
    backend = ", ".join(f"{k} = {_attr(v)}" for k, v in sorted(attrs.items()))
    mlir_attrs = {
        "api_version": "1 : i32",
        "backend_config": '""',
        "call_target_name": f'"{target}"',
        "operand_layouts": "[" + ", ".join(_layout(a.ndim, nb) for a in avals_in) + "]",
        "output_operand_aliases": "[" + ", ".join(alias_attrs) + "]",
        "result_layouts": "[" + ", ".join(_layout(a.ndim, nb) for a in avals_out) + "]",
        "mhlo.backend_config": "{" + backend + "}",
        "mhlo.frontend_attributes": f'{{num_batch_dims = "{nb}"}}',
    }
    if len(avals_out) == 1:
        return [ctx.op("stablehlo.custom_call", *operands, out=avals_out[0], attrs=mlir_attrs)]
    return ctx.op_multi("stablehlo.custom_call", *operands, outs=list(avals_out), attrs=mlir_attrs)


def _emit(ctx, fn, avals, names):
    """Lower `fn` (pyjax lax ops on values of `avals`, returning a list) at this point of the
    module, on the SSA values `names`: the post-processing of a kernel's results."""
    sub = LoweringRuleContext(ctx.fb, ctx.module, list(avals), None)
    return sub.lower_fun(lambda *xs: list(fn(*xs)), multiple_results=True)(*names)


def _info_aval(batch):
    return ShapedArray(tuple(batch), _INT32)
