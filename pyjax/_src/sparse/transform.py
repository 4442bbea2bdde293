"""`sparsify`: run a function written for dense arrays with sparse (BCOO) arguments.

`SparsifyTrace` is an interpreter whose tracers (`SparseTracer`) stand for sparse arrays; each
primitive applied to one is replaced by its sparse counterpart from `_SPARSE_RULES` (the zero-
preserving elementwise functions act on the stored data, products and contractions call
bcoo_multiply/bcoo_dot_general, shape operations their bcoo_* versions). Primitives whose
inputs are all dense run unchanged on the parent trace, and calls (`jit`, custom derivatives,
remat) are inlined so their bodies are sparsified too. Operations that would turn a sparse array
dense raise NotImplementedError, as in JAX.

The BCOO operators (`+`, `*`, `@`, `-x`, indexing, `.sum()`, `.reshape()`) are defined here as
sparsified jnp functions, as JAX does.
"""
from __future__ import annotations

import functools
import operator

import numpy as np

from pyjax._src import core, tree_util
from pyjax._src.core import ShapedArray
from pyjax._src.lax import convert as lax_convert
from pyjax._src.lax import dot_general as lax_dot
from pyjax._src.lax import dynamic_slicing as lax_dynslice
from pyjax._src.lax import elementwise as lax_elem
from pyjax._src.lax import reductions as lax_red
from pyjax._src.lax import shape_ops as lax_shape
from pyjax._src.lax import slicing as lax_slicing
from pyjax._src.lax import special as lax_special
from pyjax._src.lax.control_flow.conditionals import switch
from pyjax._src.lax.control_flow.scan import scan
from pyjax._src.lax.control_flow.while_loop import while_loop
from pyjax._src.numpy import array_methods  # noqa: F401  (Array operators)
from pyjax._src.numpy import creation, linalg_ops, ufuncs
from pyjax._src.numpy import shape as jshape
from pyjax._src.numpy import util as jnp_util
from pyjax._src.sparse import bcoo_ops as ops
from pyjax._src.sparse._base import JAXSparse
from pyjax._src.sparse.bcoo import (BCOO, bcoo_todense, bcoo_transpose, bcoo_update_layout)
from pyjax._src.sparse.bcsr import BCSR
from pyjax._src.sparse.util import broadcast_batch, sparse_primitive


class SparseTracer(core.Tracer):
    """A sparse array inside `sparsify`: `spvalue` is a BCOO whose buffers belong to the parent
    trace."""

    __slots__ = ("spvalue",)

    def __init__(self, trace, spvalue):
        self._trace = trace
        self.spvalue = spvalue

    @property
    def aval(self):
        return ShapedArray(self.spvalue.shape, self.spvalue.dtype)

    def __repr__(self):
        return f"SparseTracer<{self.aval.str_short()}, nse={self.spvalue.nse}>"


class SparsifyTrace(core.Trace):
    __slots__ = ()

    def to_value(self, x):
        if isinstance(x, SparseTracer) and x._trace is self:
            return x.spvalue
        if isinstance(x, core.Tracer) and not x._trace.alive:
            raise core.escaped_tracer_error(x)
        return x

    def wrap(self, v):
        return SparseTracer(self, v) if isinstance(v, JAXSparse) else v

    def process_primitive(self, prim, args, params):
        vals = [self.to_value(x) for x in args]
        if not any(isinstance(v, JAXSparse) for v in vals):
            with core.set_current_trace(self.parent):
                return prim.bind(*vals, **params)
        if prim.name in _CONTROL_FLOW_RULES:
            return _CONTROL_FLOW_RULES[prim.name](self, args, params)
        rule = _SPARSE_RULES.get(prim)
        if rule is None:
            inner = _inner_jaxpr(params) if prim.name in _CALLS else None
            if inner is not None:   # a call (jit, custom_jvp/vjp, remat): sparsify its body
                with core.set_current_trace(self):
                    outs = core.eval_jaxpr(inner.jaxpr, inner.consts, *args)
                return outs if prim.multiple_results else outs[0]
            if prim.name in _DENSE_OUTPUT:
                raise NotImplementedError(
                    f"sparse rule for {prim.name} is not implemented because it would result in "
                    f"dense output. If this is your intent, use sparse.todense() to convert your "
                    f"arguments to dense matrices.")
            raise NotImplementedError(f"sparse rule for {prim.name} is not implemented.")
        with core.set_current_trace(self.parent):
            out = rule(*vals, **params)
        if prim.multiple_results:
            return [self.wrap(o) for o in out]
        return self.wrap(out)

    def process_custom_call(self, prim, fun, rules, args, params):
        # NB: custom derivative rules do not apply to sparse values (as in JAX): the primal runs
        return fun(*args)


_CALLS = {"jit", "pjit", "closed_call", "core_call", "custom_jvp_call", "custom_vjp_call",
          "remat2", "checkpoint", "name"}


def _inner_jaxpr(params):
    for key in ("jaxpr", "call_jaxpr", "fun_jaxpr"):
        j = params.get(key)
        if isinstance(j, core.ClosedJaxpr):
            return j
    return None


_DENSE_OUTPUT = {"cos", "cosh", "exp", "exp2", "log", "acos", "acosh", "logistic", "is_finite",
                 "erfc", "lgamma", "digamma", "rsqrt", "pow"}


# -- control flow: the bodies are sparsified on the buffers of the sparse operands --------------

def _sparsified_body(closed, in_tree, out_trees):
    """A function of flat buffers running `closed` with the sparse operands rebuilt, returning
    the flat buffers of its (possibly sparse) results; records the result structure."""
    def f(*bufs):
        ins = tree_util.tree_unflatten(in_tree, list(bufs))
        outs = sparsify(lambda *xs: core.eval_jaxpr(closed.jaxpr, closed.consts, *xs))(*ins)
        flat, tree = tree_util.tree_flatten(list(outs))
        out_trees.append((tree, [(np.shape(x), np.result_type(x)) for x in flat]))
        return flat
    return f


def _same_structure(name, out_trees):
    first = out_trees[0]
    for t in out_trees[1:]:
        if t != first:
            raise TypeError(f"sparsify: the branches of {name} give sparse results of different "
                            f"structures (layouts or nse): {first[0]} vs {t[0]}")
    return first[0]


def _cond_rule(trace, args, params):
    index, *ops = [trace.to_value(a) for a in args]
    leaves, in_tree = tree_util.tree_flatten(ops)
    out_trees = []
    branches = [_sparsified_body(b, in_tree, out_trees) for b in params["branches"]]
    with core.set_current_trace(trace.parent):
        flat = switch(index, branches, *leaves)
    tree = _same_structure("cond", out_trees)
    return [trace.wrap(o) for o in tree_util.tree_unflatten(tree, list(flat))]


def _while_rule(trace, args, params):
    vals = [trace.to_value(a) for a in args]
    nc, nb = params["cond_nconsts"], params["body_nconsts"]
    cconsts, bconsts, init = vals[:nc], vals[nc:nc + nb], vals[nc + nb:]
    c_leaves, c_tree = tree_util.tree_flatten(cconsts)
    b_leaves, b_tree = tree_util.tree_flatten(bconsts)
    init_leaves, carry_tree = tree_util.tree_flatten(init)
    out_trees = []

    def cond_fun(carry):
        consts = tree_util.tree_unflatten(c_tree, c_leaves)
        body = _sparsified_body(params["cond_jaxpr"], tree_util.tree_structure(consts + tree_util.tree_unflatten(carry_tree, list(carry))), [])
        return body(*c_leaves, *carry)[0]

    def body_fun(carry):
        full_tree = tree_util.tree_structure(tree_util.tree_unflatten(b_tree, b_leaves) +
                                             tree_util.tree_unflatten(carry_tree, list(carry)))
        out = _sparsified_body(params["body_jaxpr"], full_tree, out_trees)(*b_leaves, *carry)
        if out_trees[-1][0] != carry_tree:
            raise TypeError(f"sparsify: the body of a while loop must keep the sparse structure "
                            f"of its carry (layouts and nse): {carry_tree} vs {out_trees[-1][0]}")
        return list(out)

    with core.set_current_trace(trace.parent):
        flat = while_loop(cond_fun, body_fun, list(init_leaves))
    return [trace.wrap(o) for o in tree_util.tree_unflatten(carry_tree, list(flat))]


def _scan_rule(trace, args, params):
    """Sparse consts and carries (the carry keeps its structure); the scanned-over inputs are
    dense; sparse per-step outputs come back stacked along a new leading batch dimension."""
    vals = [trace.to_value(a) for a in args]
    nc, ncarry = params["num_consts"], params["num_carry"]
    consts, init, xs = vals[:nc], vals[nc:nc + ncarry], vals[nc + ncarry:]
    if any(isinstance(x, JAXSparse) for x in xs):
        raise NotImplementedError("sparsify: scanning over a sparse array is not implemented "
                                  "(sparse consts and carries are)")
    k_leaves, _ = tree_util.tree_flatten(consts)
    init_leaves, carry_tree = tree_util.tree_flatten(init)
    n_k, n_c = len(k_leaves), len(init_leaves)
    out_trees = []

    def body(carry, x):
        ins = tree_util.tree_unflatten(tree_util.tree_structure(consts), k_leaves) + \
            tree_util.tree_unflatten(carry_tree, list(carry)) + list(x)
        full_tree = tree_util.tree_structure(ins)
        out = _sparsified_body(params["jaxpr"], full_tree, out_trees)(*tree_util.tree_leaves(ins))
        tree = out_trees[-1][0]
        outs = tree_util.tree_unflatten(tree, list(out))
        new_carry, ys = outs[:ncarry], outs[ncarry:]
        c_flat, c_tree = tree_util.tree_flatten(new_carry)
        if c_tree != carry_tree:
            raise TypeError(f"sparsify: the body of a scan must keep the sparse structure of its "
                            f"carry (layouts and nse): {carry_tree} vs {c_tree}")
        return c_flat, ys

    del n_k, n_c
    with core.set_current_trace(trace.parent):
        carry, ys = scan(body, list(init_leaves), list(xs), length=params["length"],
                         reverse=params["reverse"])
    outs = tree_util.tree_unflatten(carry_tree, list(carry)) + list(ys)
    return [trace.wrap(o) for o in outs]


_CONTROL_FLOW_RULES = {"cond": _cond_rule, "while": _while_rule, "scan": _scan_rule}


# -- sparse rules -------------------------------------------------------------------------------

def _as_bcoo(x):
    return x if isinstance(x, BCOO) else x.to_bcoo()


def _zero_preserving(prim, linear: bool):
    """An elementwise function with f(0) == 0 acts on the stored values, in the operand's format
    (BCOO or BCSR). A nonlinear one first sums repeated indices (f(a) + f(b) != f(a + b)), as
    JAX's; a linear one keeps them."""
    def rule(x, **params):
        if not linear and not x.unique_indices:
            x = x.sum_duplicates(nse=x.nse, remove_zeros=False)
        data = prim.bind(x.data, **params)
        if isinstance(x, BCSR):
            return BCSR((data, x.indices, x.indptr), **x._info._asdict())
        return BCOO((data, x.indices), **x._info._asdict())
    return rule


def _integer_pow_rule(x, *, y):
    if y <= 0:
        raise NotImplementedError(f"sparse rule for integer_pow with non-positive exponent {y} is "
                                  f"not implemented because it would result in dense output.")
    return _zero_preserving(lax_elem.integer_pow_p, linear=False)(x, y=y)


def _mul_rule(x, y):
    if isinstance(x, JAXSparse) and isinstance(y, JAXSparse):
        return ops.bcoo_multiply_sparse(_as_bcoo(x), _as_bcoo(y))
    sp, dense = (x, y) if isinstance(x, JAXSparse) else (y, x)
    return ops._multiply_dense_sparse(_as_bcoo(sp), dense)


def _div_rule(x, y):
    if isinstance(y, JAXSparse):
        raise NotImplementedError("sparse rule for div is not implemented when the divisor is "
                                  "sparse (it would result in dense output).")
    x = _as_bcoo(x)
    y = creation.asarray(y)
    if y.ndim == 0:
        return BCOO((x.data / y, x.indices), **x._info._asdict())
    recip = ops.bcoo_extract(x, jnp_util.broadcast_to(y, x.shape), assume_unique=True).data
    return BCOO((x.data / recip, x.indices), **x._info._asdict())


def _add_sparse(x, y, sign):
    x, y = _as_bcoo(x), _as_bcoo(y)
    if x.shape != y.shape:
        raise NotImplementedError(f"Addition between sparse matrices of different shapes "
                                  f"{x.shape} and {y.shape} is not implemented.")
    y_data = y.data if sign > 0 else -y.data
    if x.indices is y.indices:
        return BCOO((x.data + y_data, x.indices), **x._info._asdict())
    if (x.n_batch, x.n_dense) != (y.n_batch, y.n_dense):
        nb, nd = min(x.n_batch, y.n_batch), min(x.n_dense, y.n_dense)
        x = bcoo_update_layout(x, n_batch=nb, n_dense=nd)
        y = bcoo_update_layout(y, n_batch=nb, n_dense=nd)
        y_data = y.data if sign > 0 else -y.data
    nb = x.n_batch
    (xd, xi), _ = broadcast_batch([x.data, x.indices], nb, x.shape[:nb])
    (yd, yi), _ = broadcast_batch([y_data, y.indices], nb, y.shape[:nb])
    return BCOO((jshape.concatenate([xd, yd.astype(xd.dtype)], axis=nb),
                 jshape.concatenate([xi, yi.astype(xi.dtype)], axis=nb)), shape=x.shape)


def _add_rule_signed(sign):
    def rule(x, y):
        if isinstance(x, JAXSparse) and isinstance(y, JAXSparse):
            return _add_sparse(x, y, sign)
        sp, dense = (x, y) if isinstance(x, JAXSparse) else (y, x)
        dense = creation.asarray(dense)
        out_shape = jnp_util.broadcast_shapes(sp.shape, dense.shape)
        if out_shape != dense.shape:
            raise NotImplementedError(
                "Addition between a sparse array X and a dense array Y is not implemented when "
                "the output shape is larger than Y.shape. This is to prevent silent "
                "densification of a large sparse array. If this is your intent, you can "
                "explicitly cast the sparse array to a dense matrix.")
        sp_dense = bcoo_todense(_as_bcoo(sp))
        if isinstance(x, JAXSparse):
            return sp_dense + dense if sign > 0 else sp_dense - dense
        return dense + sp_dense if sign > 0 else dense - sp_dense
    return rule


def _dot_general_rule(lhs, rhs, *, dimension_numbers, precision=None,
                      preferred_element_type=None, **_):
    lhs = _as_bcoo(lhs) if isinstance(lhs, JAXSparse) else lhs
    rhs = _as_bcoo(rhs) if isinstance(rhs, JAXSparse) else rhs
    return ops.bcoo_dot_general(lhs, rhs, dimension_numbers=dimension_numbers,
                                preferred_element_type=preferred_element_type)


def _densify_scalar(x):
    """A rank-0 sparse result is returned dense (as JAX's sparse reduce_sum rule does)."""
    return bcoo_todense(x) if x.ndim == 0 else x


def _dynamic_slice_rule(operand, *starts, slice_sizes):
    return ops.bcoo_dynamic_slice(_as_bcoo(operand), starts, slice_sizes)


def _concatenate_rule(*operands, dimension):
    ops_ = [_as_bcoo(o) if isinstance(o, JAXSparse) else
            BCOO.fromdense(o, nse=int(np.prod(np.shape(o)))) for o in operands]
    return ops.bcoo_concatenate(ops_, dimension=dimension)


def _gather_rule(operand, indices, *, dimension_numbers, slice_sizes, unique_indices,
                 indices_are_sorted, mode, fill_value):
    return ops.bcoo_gather(_as_bcoo(operand), indices, dimension_numbers, slice_sizes,
                           unique_indices=unique_indices, indices_are_sorted=indices_are_sorted,
                           mode=mode, fill_value=fill_value)


def _todense_rule(*bufs, tree):
    return tree_util.tree_unflatten(tree, bufs).todense() if not isinstance(bufs[0], JAXSparse) \
        else _as_bcoo(bufs[0]).todense()


_SPARSE_RULES = {
    lax_elem.mul_p: _mul_rule,
    lax_elem.div_p: _div_rule,
    lax_elem.add_p: _add_rule_signed(+1),
    lax_elem.sub_p: _add_rule_signed(-1),
    lax_elem.integer_pow_p: _integer_pow_rule,
    lax_dot.dot_general_p: _dot_general_rule,
    lax_red.reduce_sum_p: lambda x, *, axes, **_: _densify_scalar(ops.bcoo_reduce_sum(_as_bcoo(x), axes=axes)),
    lax_shape.transpose_p: lambda x, *, permutation: bcoo_transpose(_as_bcoo(x), permutation=permutation),
    lax_shape.reshape_p: lambda x, *, new_sizes, dimensions, **_: ops.bcoo_reshape(
        _as_bcoo(x), new_sizes=new_sizes, dimensions=dimensions),
    lax_shape.squeeze_p: lambda x, *, dimensions: ops.bcoo_squeeze(_as_bcoo(x), dimensions=dimensions),
    lax_shape.broadcast_in_dim_p: lambda x, *, shape, broadcast_dimensions, **_: ops.bcoo_broadcast_in_dim(
        _as_bcoo(x), shape=shape, broadcast_dimensions=broadcast_dimensions),
    lax_shape.slice_p: lambda x, *, start_indices, limit_indices, strides: ops.bcoo_slice(
        _as_bcoo(x), start_indices=start_indices, limit_indices=limit_indices, strides=strides),
    lax_dynslice.dynamic_slice_p: _dynamic_slice_rule,
    lax_shape.concatenate_p: _concatenate_rule,
    lax_shape.rev_p: lambda x, *, dimensions: ops.bcoo_rev(_as_bcoo(x), dimensions),
    lax_slicing.gather_p: _gather_rule,
}
for _p in (lax_elem.neg_p, lax_elem.real_p, lax_elem.imag_p, lax_elem.conj_p, lax_shape.copy_p):
    _SPARSE_RULES[_p] = _zero_preserving(_p, linear=True)
for _p in (lax_elem.sin_p, lax_elem.sinh_p, lax_elem.tan_p, lax_elem.tanh_p,
           lax_elem.asin_p, lax_elem.atan_p, lax_elem.asinh_p, lax_elem.atanh_p, lax_elem.abs_p,
           lax_elem.sign_p, lax_elem.sqrt_p, lax_elem.cbrt_p, lax_elem.expm1_p, lax_elem.log1p_p,
           lax_convert.convert_element_type_p, lax_elem.round_p, lax_elem.floor_p, lax_elem.ceil_p,
           lax_special.bessel_i1e_p, lax_elem.erf_p, lax_elem.erf_inv_p):
    _SPARSE_RULES[_p] = _zero_preserving(_p, linear=False)


# -- todense (any sparse format) ------------------------------------------------------------------

def _todense_impl(*bufs, tree):
    return tree_util.tree_unflatten(tree, bufs).todense()


todense_p = sparse_primitive("todense", _todense_impl, linear_argnums=(0,))
_SPARSE_RULES[todense_p] = lambda *bufs, tree: _as_bcoo(bufs[0]).todense() \
    if isinstance(bufs[0], JAXSparse) else _todense_impl(*bufs, tree=tree)


def todense(arr):
    """The dense array of a sparse array (any format; a dense array is returned unchanged).
    Inside `sparsify`, this is how a sparse value turns dense.

        >>> sparse.todense(sparse.BCOO.fromdense(x))   # == x
    """
    if isinstance(arr, core.Tracer) and isinstance(arr, SparseTracer):
        return todense_p.bind(arr, tree=None)
    if not isinstance(arr, JAXSparse):
        return arr
    bufs, tree = tree_util.tree_flatten(arr)
    return todense_p.bind(*bufs, tree=tree)


# -- sparsify -------------------------------------------------------------------------------------

def _is_sparse(x):
    return isinstance(x, JAXSparse)


def sparsify(f, use_tracer=False):
    """`f` made to accept sparse arrays: inside, each sparse argument is a tracer whose
    operations run their sparse versions; sparse results come back as BCOO arrays.

        >>> sparse.sparsify(lambda m, v: jnp.sin(m) @ v)(sparse.BCOO.fromdense(x), v)
    """
    del use_tracer   # NB: one implementation (the tracer one) serves both settings

    @functools.wraps(f)
    def wrapped(*args, **kwargs):
        leaves, tree = tree_util.tree_flatten((args, kwargs), is_leaf=_is_sparse)
        with core.new_trace(SparsifyTrace) as trace:
            ins = [SparseTracer(trace, x) if _is_sparse(x) else x for x in leaves]
            a, k = tree_util.tree_unflatten(tree, ins)
            out = f(*a, **k)
            out_leaves, out_tree = tree_util.tree_flatten(out)
            res = [trace.to_value(o) for o in out_leaves]
        return tree_util.tree_unflatten(out_tree, res)
    return wrapped


# -- BCOO operators, as sparsified jnp functions (JAX defines them the same way) ----------------

def _binop(fn, reverse=False):
    def op(self, other):
        if not isinstance(other, (JAXSparse, core.Tracer, np.ndarray, np.generic, int, float,
                                  complex, bool)) and not hasattr(other, "__jax_array__") and \
                not hasattr(other, "shape"):
            return NotImplemented
        return sparsify(lambda a, b: fn(b, a) if reverse else fn(a, b))(self, other)
    return op


def _getitem(self, idx):
    items = idx if isinstance(idx, tuple) else (idx,)
    axis = 0
    for item in items:   # static integers are bounds-checked, as for dense arrays
        if item is None:
            continue
        if item is Ellipsis:
            break
        if isinstance(item, (int, np.integer)) and not isinstance(item, bool):
            size = self.shape[axis] if axis < self.ndim else 0
            if not -size <= item < size:
                raise IndexError(f"index {item} is out of bounds for axis {axis} with size {size}")
        axis += 1
    return sparsify(lambda x: x[idx])(self)


def _sum(self, *args, **kwargs):
    return sparsify(lambda x: x.sum(*args, **kwargs))(self)


def _reshape(self, *args, **kwargs):
    return sparsify(lambda x: x.reshape(*args, **kwargs))(self)


BCOO.__neg__ = lambda self: sparsify(ufuncs.negative)(self)
BCOO.__pos__ = lambda self: self
BCOO.__matmul__ = _binop(linalg_ops.matmul)
BCOO.__rmatmul__ = _binop(linalg_ops.matmul, reverse=True)
BCOO.__mul__ = _binop(ufuncs.multiply)
BCOO.__rmul__ = _binop(ufuncs.multiply, reverse=True)
BCOO.__truediv__ = _binop(ufuncs.divide)
BCOO.__add__ = _binop(ufuncs.add)
BCOO.__radd__ = _binop(ufuncs.add, reverse=True)
BCOO.__sub__ = _binop(ufuncs.subtract)
BCOO.__rsub__ = _binop(ufuncs.subtract, reverse=True)
BCOO.__pow__ = _binop(operator.pow)
BCOO.__getitem__ = _getitem


def _bcsr_getitem(self, idx):
    """`BCSR[idx]` as JAX's (sparsified indexing): a result that keeps two sparse dimensions
    (new axes, slices) is a BCSR array again; others come back as BCOO."""
    out = _getitem(self, idx)
    return BCSR.from_bcoo(out) if isinstance(out, BCOO) and out.n_sparse == 2 else out


BCSR.__getitem__ = _bcsr_getitem
_bcsr_matmul_direct = BCSR.__matmul__     # bcsr_dot_general, for a vector or matrix operand


def _bcsr_matmul(self, other):
    """`BCSR @ x` as JAX's (sparsified jnp.matmul): an operand of rank 3 or more broadcasts
    its leading dimensions against the sparse array's."""
    if isinstance(other, JAXSparse) or np.ndim(other) <= 2:
        return _bcsr_matmul_direct(self, other)
    return sparsify(linalg_ops.matmul)(self, other)


BCSR.__matmul__ = _bcsr_matmul
BCOO.sum = _sum
BCOO.reshape = _reshape
