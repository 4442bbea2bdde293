"""`pallas_call`: the primitive that runs a kernel over a grid, and its interpreter.

`pallas_call(kernel, out_shape, grid=, in_specs=, out_specs=, scratch_shapes=, ...)(*args)`
traces `kernel(*in_refs, *out_refs, *scratch_refs)` once, on refs of the *block* shapes, into a
jaxpr over refs (the grid indices `program_id` reads are leading int32 inputs of that jaxpr),
traces each `index_map` into a jaxpr, and binds

    pallas_call_p.bind(*consts, *args, jaxpr, grid_mapping, out_avals, interpret, ...)

The primitive is backend-neutral: `jaxpr` + `grid_mapping` is what a GPU/TPU lowering would
compile. The one lowering that exists here is the interpreter (`interpret=True`), which turns the
call into ordinary XLA code: each operand is padded to whole blocks (with NaN / the integer
minimum / False, as JAX's interpreter, so out-of-bounds reads are visible), then a `fori_loop`
over the grid (row-major, the last axis fastest) computes each operand's block offsets from its
index map, `dynamic_slice`s the blocks, runs the *discharged* kernel on them and
`dynamic_update_slice`s every block back (so an output block revisited by later iterations,
e.g. along a reduction axis, accumulates), and the padding is sliced off the outputs.

Rules: abstract eval (the out_shape), impl and lowering (the interpreter; without
`interpret=True` the lowering raises JAX's error on CPU), jvp (of the interpreted program) and
batching (a new leading grid axis, as JAX).

NB: JAX 0.10.2 differentiates a pallas_call in forward mode only (reverse mode raises
ValueError); pyjax differentiates the interpreted program, so `grad` works too.
"""
from __future__ import annotations

import dataclasses
from functools import partial

import numpy as np

from pyjax._src import core, dispatch, dtypes, tree_util
from pyjax._src.array import ShapeDtypeStruct
from pyjax._src.core import Primitive
from pyjax._src.interpreters import ad, batching
from pyjax._src.interpreters import partial_eval as pe
from pyjax._src.lax import elementwise as lax_elem
from pyjax._src.lax import shape_ops
from pyjax._src.lax.control_flow import scan as scan_mod
from pyjax._src.lax.dynamic_slicing import dynamic_slice, dynamic_update_slice
from pyjax._src.lowering import lower as lowering
from pyjax._src.numpy import creation
from pyjax._src.pallas.core import (BlockSpec, BoundedSlice, Blocked, Element, MemoryRef,
                                    Squeezed, grid_env, no_block_spec)
from pyjax._src.state.discharge import eval_discharged
from pyjax._src.state.types import AbstractRef

pallas_call_p = Primitive("pallas_call", multiple_results=True)


@dataclasses.dataclass(frozen=True, eq=False)
class BlockMapping:
    """One operand's blocks: its array aval, block dims (Blocked/Element/Squeezed) and the traced
    index map (a const-free closed jaxpr from the grid indices to one index per axis, taking its
    constants first)."""
    array_aval: core.ShapedArray
    block_dims: tuple
    index_map: core.ClosedJaxpr
    index_map_consts: tuple

    @property
    def block_shape(self):
        return tuple(d.block_size for d in self.block_dims)

    @property
    def ref_shape(self):
        return tuple(d.block_size for d in self.block_dims if not isinstance(d, Squeezed))

    def __repr__(self):
        return f"BlockMapping(block_shape={self.block_dims})"


@dataclasses.dataclass(frozen=True, eq=False)
class GridMapping:
    """The grid, the block mappings of the inputs then the outputs, the scratch avals, and the
    scalar-prefetch operands (whole arrays the index maps and the kernel read as refs)."""
    grid: tuple
    block_mappings: tuple
    num_inputs: int
    num_outputs: int
    scratch_avals: tuple
    scalar_avals: tuple = ()

    def __repr__(self):
        return f"GridMapping(grid={self.grid}, block_mappings={self.block_mappings})"


# -- the wrapper: tracing the kernel and the index maps -------------------------------------------


def pallas_call(kernel, out_shape, *, grid_spec=None, grid=(), in_specs=no_block_spec,
                out_specs=no_block_spec, scratch_shapes=(), input_output_aliases=None,
                debug=False, interpret=False, name=None, compiler_params=None,
                cost_estimate=None, backend=None, metadata=None):
    """A function running `kernel` over `grid`, each instance on blocks of the operands.

    Example:
        >>> def add_kernel(x_ref, y_ref, o_ref):
        ...     o_ref[...] = x_ref[...] + y_ref[...]
        >>> f = pl.pallas_call(add_kernel, out_shape=jax.ShapeDtypeStruct((8, 128), jnp.float32),
        ...                    grid=(2,), in_specs=[pl.BlockSpec((4, 128), lambda i: (i, 0))] * 2,
        ...                    out_specs=pl.BlockSpec((4, 128), lambda i: (i, 0)), interpret=True)
        >>> f(x, y)   # x + y
    """
    num_scalars = 0
    if grid_spec is not None:
        grid, in_specs, out_specs = grid_spec.grid, grid_spec.in_specs, grid_spec.out_specs
        scratch_shapes = tuple(grid_spec.scratch_shapes or ())
        num_scalars = getattr(grid_spec, "num_scalar_prefetch", 0)
    grid = (grid,) if isinstance(grid, (int, np.integer)) else tuple(grid or ())
    grid = tuple(core.concrete_dim(g, "a pallas_call grid size") for g in grid)
    if isinstance(out_shape, list):  # as JAX, a list of outputs comes back as a tuple
        out_shape = tuple(out_shape)
    out_flat, out_tree = tree_util.tree_flatten(out_shape)
    out_avals = tuple(_out_aval(o) for o in out_flat)
    aliases = tuple(sorted((input_output_aliases or {}).items()))
    name = name or getattr(kernel, "__name__", "kernel")

    def wrapped(*args):
        scalars_flat = tree_util.tree_leaves(args[:num_scalars])
        scalar_avals = tuple(core.get_aval(a).strip_weak_type() for a in scalars_flat)
        args_flat, in_tree = tree_util.tree_flatten(args[num_scalars:])
        in_avals = [core.get_aval(a).strip_weak_type() for a in args_flat]
        in_maps = _block_mappings("in_specs", in_specs, in_tree, in_avals, grid, scalar_avals)
        out_maps = _block_mappings("out_specs", out_specs, out_tree, list(out_avals), grid,
                                   scalar_avals)
        scratch = tuple(_scratch_aval(s) for s in tree_util.tree_leaves(scratch_shapes))
        for i, o in aliases:
            i -= len(scalars_flat)   # as JAX, an alias counts the scalar-prefetch operands
            if in_avals[i].shape != out_avals[o].shape or in_avals[i].dtype != out_avals[o].dtype:
                raise ValueError(f"pallas_call: input_output_aliases {i}->{o}: input "
                                 f"{in_avals[i].str_short()} and output "
                                 f"{out_avals[o].str_short()} differ")
        mapping = GridMapping(grid, tuple(in_maps + out_maps), len(in_maps), len(out_maps),
                              scratch, scalar_avals)
        jaxpr, consts = _trace_kernel(kernel, in_tree, out_tree, mapping)
        outs = pallas_call_p.bind(*consts, *scalars_flat, *args_flat, jaxpr=jaxpr,
                                  num_consts=len(consts),
                                  grid_mapping=mapping, out_avals=out_avals,
                                  input_output_aliases=aliases, interpret=bool(interpret),
                                  debug=bool(debug), name=name)
        return tree_util.tree_unflatten(out_tree, outs)
    return wrapped


def _out_aval(o):
    if not hasattr(o, "shape") or not hasattr(o, "dtype"):
        raise TypeError(f"pallas_call: out_shape leaves must have a shape and a dtype "
                        f"(jax.ShapeDtypeStruct), got {o!r}")
    return core.ShapedArray(tuple(o.shape), dtypes.canonicalize_dtype(o.dtype))


def _scratch_aval(s):
    if isinstance(s, (MemoryRef, ShapeDtypeStruct)) or (
            hasattr(s, "shape") and hasattr(s, "dtype")):
        return core.ShapedArray(tuple(s.shape), dtypes.canonicalize_dtype(s.dtype))
    raise TypeError(f"pallas_call: scratch_shapes entries must have a shape and a dtype, got {s!r}")


def _block_mappings(what, specs, tree, avals, grid, scalar_avals):
    if specs is no_block_spec or specs is None:
        specs_flat = [None] * len(avals)
    else:
        specs_flat = _flatten_specs(what, specs, tree, len(avals))
    return [_block_mapping(what, i, s, a, grid, scalar_avals)
            for i, (s, a) in enumerate(zip(specs_flat, avals, strict=True))]


def _flatten_specs(what, specs, tree, n):
    is_leaf = lambda x: x is None or isinstance(x, BlockSpec) or x is no_block_spec
    if isinstance(specs, BlockSpec) and n == 1:
        return [specs]
    if tree.num_leaves == 1 and isinstance(specs, BlockSpec):
        return [specs]
    leaves = tree_util.tree_leaves(specs, is_leaf=is_leaf)
    if len(leaves) != n:
        # as JAX: a list of specs for a tuple of operands is fine, the counts must agree
        raise ValueError(f"pallas_call {what}: {len(leaves)} block specs for {n} operands")
    return [None if s is no_block_spec else s for s in leaves]


def _block_dim(d, axis_size):
    if d is None or isinstance(d, Squeezed):
        return Squeezed()
    if isinstance(d, (Blocked, Element)):
        return d
    if isinstance(d, BoundedSlice):
        return Blocked(d.block_size)
    return Blocked(core.concrete_dim(d, "a block size"))


def _block_mapping(what, i, spec, aval, grid, scalar_avals):
    block_shape = spec.block_shape if spec is not None else None
    if block_shape is None:
        block_shape = aval.shape
    if len(block_shape) != aval.ndim:
        raise ValueError(f"pallas_call {what}[{i}]: block shape {tuple(block_shape)} has rank "
                         f"{len(block_shape)}, but the operand is {aval.str_short()}")
    dims = tuple(_block_dim(d, n) for d, n in zip(block_shape, aval.shape))
    index_map = spec.index_map if spec is not None and spec.index_map is not None else \
        (lambda *idx: (0,) * aval.ndim)
    idx_avals = [core.ShapedArray((), np.int32)] * len(grid)
    idx_avals += [AbstractRef(a) for a in scalar_avals]   # scalar prefetch: read as refs

    def flat(*idx):
        out = index_map(*idx)
        out = tuple(out) if isinstance(out, (tuple, list)) else (out,)
        if len(out) != aval.ndim:
            raise ValueError(f"pallas_call {what}[{i}]: index_map returned {len(out)} indices for "
                             f"an operand of rank {aval.ndim} ({aval.str_short()})")
        out = [o if isinstance(o, core.Tracer) else creation.asarray(o) for o in out]
        return [lax_elem._convert_element_type(o, np.int32, False) for o in out]
    try:
        closed, _ = pe.trace_to_jaxpr(flat, idx_avals)
    except TypeError as e:
        raise TypeError(f"pallas_call {what}[{i}]: the index_map must take {len(grid)} grid "
                        f"indices and {len(scalar_avals)} scalar-prefetch refs: {e}") from None
    jaxpr, consts = pe.as_const_free(closed)
    return BlockMapping(aval, dims, jaxpr, tuple(consts))


def _trace_kernel(kernel, in_tree, out_tree, mapping: GridMapping):
    """The kernel as a const-free jaxpr `(*consts, *grid_indices, *refs)`, and its constants;
    the refs are the scalar-prefetch operands', the blocks' and the scratch buffers'."""
    ns = len(mapping.scalar_avals)
    ref_avals = [AbstractRef(a) for a in mapping.scalar_avals]
    ref_avals += [AbstractRef(core.ShapedArray(bm.ref_shape, bm.array_aval.dtype))
                  for bm in mapping.block_mappings]
    ref_avals += [AbstractRef(a) for a in mapping.scratch_avals]
    idx_avals = [core.ShapedArray((), np.int32)] * len(mapping.grid)
    nin, nout = mapping.num_inputs, mapping.num_outputs

    def flat(*args):
        idx, refs = args[:len(idx_avals)], args[len(idx_avals):]
        scalars, refs = refs[:ns], refs[ns:]
        ins = tree_util.tree_unflatten(in_tree, refs[:nin])
        outs = tree_util.tree_unflatten(out_tree, refs[nin:nin + nout])
        with grid_env(idx, mapping.grid):
            outs = outs if isinstance(outs, (tuple, list)) else (outs,)
            res = kernel(*scalars, *ins, *outs, *refs[nin + nout:])
        if res is not None and tree_util.tree_leaves(res):
            raise ValueError("pallas_call: the kernel must return None (it writes its output refs)")
        return []
    closed, _ = pe.trace_to_jaxpr(flat, idx_avals + ref_avals)
    jaxpr, consts = pe.as_const_free(closed)
    return jaxpr, consts


# -- abstract eval ---------------------------------------------------------------------------------


@pallas_call_p.def_abstract_eval
def _pallas_call_abstract_eval(*avals, out_avals, **_):
    return list(out_avals)


# -- the interpreter -------------------------------------------------------------------------------


def uninitialized_value(shape, dtype):
    """What an unwritten buffer holds when interpreting: NaN, the integer minimum or False."""
    dtype = np.dtype(dtype)
    if dtypes.issubdtype(dtype, np.inexact):
        return creation.full(shape, np.nan, dtype)
    if dtypes.issubdtype(dtype, np.integer):
        return creation.full(shape, np.iinfo(dtype).min, dtype)
    return creation.full(shape, False if dtype == np.bool_ else 0, dtype)


def _pad(x, bm: BlockMapping):
    """`x` padded so each Blocked axis holds whole blocks, and by each Element axis's padding."""
    shape = core.get_aval(x).shape
    config, need = [], False
    for n, d in zip(shape, bm.block_dims):
        if isinstance(d, Blocked):
            hi = -(-n // d.block_size) * d.block_size - n
            config.append((0, hi, 0))
        elif isinstance(d, Element):
            config.append((d.padding[0], d.padding[1], 0))
        else:
            config.append((0, 0, 0))
        need = need or config[-1][:2] != (0, 0)
    if not need:
        return x
    pad_value = uninitialized_value((), core.get_aval(x).dtype)
    return shape_ops.pad(x, pad_value, config)


def _unpad(x, bm: BlockMapping):
    starts = [d.padding[0] if isinstance(d, Element) else 0 for d in bm.block_dims]
    limits = [s + n for s, n in zip(starts, bm.array_aval.shape)]
    if tuple(core.get_aval(x).shape) == tuple(bm.array_aval.shape):
        return x
    return shape_ops.slice(x, starts, limits)


def _block_starts(bm: BlockMapping, idx, scalars):
    block_idx, _ = eval_discharged(bm.index_map.jaxpr, [],
                                   [*bm.index_map_consts, *idx, *scalars])
    return [lax_elem.mul(b, np.int32(d.block_size)) if isinstance(d, Blocked) else b
            for b, d in zip(block_idx, bm.block_dims)]


def _interpret(*args, jaxpr, num_consts, grid_mapping: GridMapping, out_avals,
               input_output_aliases, debug=False, **_):
    gm = grid_mapping
    ns = len(grid_mapping.scalar_avals)
    consts, scalars = list(args[:num_consts]), list(args[num_consts:num_consts + ns])
    ins = list(args[num_consts + ns:])
    alias = dict((o, i - ns) for i, o in input_output_aliases)
    outs = [ins[alias[k]] if k in alias else uninitialized_value(a.shape, a.dtype)
            for k, a in enumerate(out_avals)]
    bms = gm.block_mappings
    bufs = [_pad(x, bm) for x, bm in zip(ins + outs, bms, strict=True)]
    scratch = [uninitialized_value(a.shape, a.dtype) for a in gm.scratch_avals]
    if debug:
        print(f"\nThe kernel jaxpr of pallas_call:\n{jaxpr}")
    grid = gm.grid
    n_iter = int(np.prod(grid, dtype=np.int64))

    def body(step, carry):
        bufs, scratch = carry
        idx, rest = [], step
        for g in reversed(grid):   # row-major: the last grid axis varies fastest
            idx.append(lax_elem.rem(rest, np.int32(g)))
            rest = lax_elem.div(rest, np.int32(g))
        idx = idx[::-1]
        starts = [_block_starts(bm, idx, scalars) for bm in bms]
        blocks = []
        for buf, bm, st in zip(bufs, bms, starts):
            b = dynamic_slice(buf, st, bm.block_shape)
            if bm.ref_shape != bm.block_shape:
                b = shape_ops.reshape(b, bm.ref_shape)
            blocks.append(b)
        _, finals = eval_discharged(jaxpr.jaxpr, jaxpr.consts,
                                    consts + idx + scalars + blocks + list(scratch))
        finals = finals[ns:]
        new_blocks, new_scratch = finals[:len(bufs)], finals[len(bufs):]
        new_bufs = []
        for buf, bm, st, nb in zip(bufs, bms, starts, new_blocks):
            if bm.ref_shape != bm.block_shape:
                nb = shape_ops.reshape(nb, bm.block_shape)
            new_bufs.append(dynamic_update_slice(buf, nb, st))
        return new_bufs, list(new_scratch)
    step0 = np.int32(0)
    if n_iter == 1:
        bufs, _ = body(step0, (bufs, scratch))
    else:
        bufs, _ = scan_mod.fori_loop(step0, np.int32(n_iter), body, (bufs, scratch))
    nin = gm.num_inputs
    return [_unpad(b, bm) for b, bm in zip(bufs[nin:], bms[nin:], strict=True)]


def _pallas_call_lowering(ctx, *args, interpret, **params):
    if not interpret:
        raise ValueError("Only interpret mode is supported on CPU backend.")
    return lowering.lower_fun(partial(_interpret, **params), multiple_results=True)(ctx, *args)


def _pallas_call_lowering_gpu(ctx, *args, interpret, **params):
    if not interpret:
        raise NotImplementedError(
            "pallas_call: pyjax has no Triton or Mosaic GPU lowering; pass interpret=True to run "
            "the kernel through the interpreter (on any device)")
    return lowering.lower_fun(partial(_interpret, **params), multiple_results=True)(ctx, *args)


pallas_call_p.def_impl(partial(dispatch.apply_jaxpr_primitive, pallas_call_p, "jaxpr"))
pallas_call_p.def_lowering(_pallas_call_lowering)
pallas_call_p.def_lowering(_pallas_call_lowering_gpu, platform="cuda")
pallas_call_p.def_lowering(_pallas_call_lowering_gpu, platform="rocm")


# -- jvp and batching: of the interpreted program --------------------------------------------------


def _check_interpret(params, what):
    if not params["interpret"]:
        raise NotImplementedError(
            f"{what} of a pallas_call needs interpret=True in pyjax (it transforms the "
            "interpreted program; there is no GPU/TPU kernel lowering here)")


@pallas_call_p.def_jvp
def _pallas_call_jvp(primals, tangents, **params):
    _check_interpret(params, "differentiation")
    return ad.jvp_flat(lambda *xs: _interpret(*xs, **params), list(primals), list(tangents))


@pallas_call_p.def_batch
def _pallas_call_batch(axis_size, args, dims, *, jaxpr, num_consts, grid_mapping, out_avals,
                       input_output_aliases, **params):
    """vmap adds a leading grid axis (as JAX does): batched operands and every output get a
    leading squeezed block axis picked by it; the kernel does not see it (its program ids keep
    their axes). Batched kernel constants or scalar-prefetch operands: the interpreted program
    is vmapped instead."""
    gm = grid_mapping
    ns = len(gm.scalar_avals)
    if any(d is not None for d in dims[:num_consts + ns]):
        _check_interpret(params, "vmap with batched kernel constants or scalar prefetch")
        fun = partial(_interpret, jaxpr=jaxpr, num_consts=num_consts, grid_mapping=gm,
                      out_avals=out_avals, input_output_aliases=input_output_aliases, **params)
        return batching.batch_flat(fun, list(args), list(dims), batching.AxisData(None, axis_size))
    fixed, ins = list(args[:num_consts + ns]), list(args[num_consts + ns:])
    in_dims = dims[num_consts + ns:]
    aliased = {i - ns for i, _ in input_output_aliases}
    new_ins, new_maps = [], []
    for k, (x, d, bm) in enumerate(zip(ins, in_dims, gm.block_mappings[:gm.num_inputs])):
        if d is None and k in aliased:   # an aliased input becomes a (batched) output
            x = batching.broadcast(x, axis_size, 0)
            d = 0
        if d is None:
            new_ins.append(x)
            new_maps.append(_with_batch_axis(bm, batched=False))
        else:
            new_ins.append(batching.moveaxis(x, d, 0))
            new_maps.append(_with_batch_axis(bm, batched=True, size=axis_size))
    new_maps += [_with_batch_axis(bm, batched=True, size=axis_size)
                 for bm in gm.block_mappings[gm.num_inputs:]]
    new_gm = GridMapping((axis_size,) + gm.grid, tuple(new_maps), gm.num_inputs,
                         gm.num_outputs, gm.scratch_avals, gm.scalar_avals)
    j = jaxpr.jaxpr   # (*consts, *program ids, *refs): a new, unused program id in front
    bvar = core.Var(core.ShapedArray((), np.int32))
    new_j = core.Jaxpr([], j.invars[:num_consts] + [bvar] + j.invars[num_consts:], j.outvars,
                       j.eqns, j.effects)
    outs = pallas_call_p.bind(*fixed, *new_ins, jaxpr=core.ClosedJaxpr(new_j, []),
                              num_consts=num_consts, grid_mapping=new_gm,
                              out_avals=tuple(a.update(shape=(axis_size,) + a.shape)
                                              for a in out_avals),
                              input_output_aliases=input_output_aliases, **params)
    return outs, [0] * len(outs)


def _with_batch_axis(bm: BlockMapping, batched: bool, size: int = 0) -> BlockMapping:
    """`bm` under a new leading grid index `b`: a batched operand gains a leading squeezed block
    axis at `b`; an unbatched one ignores `b`."""
    j = bm.index_map.jaxpr
    nc = len(bm.index_map_consts)
    bvar = core.Var(core.ShapedArray((), np.int32))
    outvars = [bvar] + list(j.outvars) if batched else list(j.outvars)
    new_j = core.Jaxpr([], j.invars[:nc] + [bvar] + j.invars[nc:], outvars, j.eqns, j.effects)
    aval, dims = bm.array_aval, bm.block_dims
    if batched:
        aval, dims = aval.update(shape=(size,) + aval.shape), (Squeezed(),) + dims
    return BlockMapping(aval, dims, core.ClosedJaxpr(new_j, []), bm.index_map_consts)
