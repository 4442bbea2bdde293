"""Batching (vmap): the `BatchTrace` interpreter and the helpers batching rules are built from.

Under vmap a value is a `BatchTracer`: the raw value `val`, which has the mapped axis, and
`batch_dim`, the position of that axis in `val` (or `not_mapped`, None, when every example shares
the value). `BatchTrace.process_primitive` unwraps its tracers and calls the primitive's rule
`batch(axis_size, args, dims, **params) -> (out, out_dim)` under the parent trace, so the rule
computes on raw values with ordinary lax functions. Values that are not this trace's tracers
(constants, tracers of enclosing transformations) are unbatched.

Primitives that refer to named axes (collectives, `axis_index`) or whose body may (`pjit`) attach
an `AxisBatchRule` instead: it gets the trace's `AxisData` (name and size) in place of the size,
and runs under every vmap even when no operand is batched there.
"""
from __future__ import annotations

import threading
import weakref
from contextlib import contextmanager
from functools import partial
from typing import Any, NamedTuple

from pyjax._src import core, source_info, tracer_leaks
from pyjax._src.config import config as _config
from pyjax._src.core import Tracer
from pyjax._src.interpreters import partial_eval as pe
from pyjax._src.interpreters.array_ops import lax_ops
from pyjax._src.interpreters.rule_tables import RuleTable

not_mapped = None


class AxisData(NamedTuple):
    name: Any            # the vmap's axis_name (None when unnamed)
    size: int
    spmd_name: Any = None


class AxisBatchRule:
    """Marks a batching rule `rule(axis_data, args, dims, **params)` that needs the axis name and
    must run even when no operand is batched (see the module docstring)."""

    __slots__ = ("rule",)

    def __init__(self, rule):
        self.rule = rule

    def __call__(self, axis_data, args, dims, **params):
        return self.rule(axis_data, args, dims, **params)


class BatchTracer(Tracer):
    __slots__ = ("val", "batch_dim")

    def __init__(self, trace, val, batch_dim):
        self._trace = trace
        self.val = val
        self.batch_dim = batch_dim

    @property
    def aval(self):
        aval = core.get_aval(self.val)
        if self.batch_dim is not_mapped:
            return aval
        shape = aval.shape
        return aval.update(shape=shape[:self.batch_dim] + shape[self.batch_dim + 1:])

    def _provenance(self):
        return self.val._provenance() if isinstance(self.val, Tracer) else []

    def __repr__(self):  # as JAX: the per-example aval and the batched value's
        return f"VmapTracer(aval={self.aval}, batched={core.get_aval(self.val)})"


class BatchTrace(core.Trace):
    __slots__ = ("axis_data",)

    def __init__(self, parent, axis_size, axis_name=None, spmd_axis_name=None):
        super().__init__(parent)
        self.axis_data = AxisData(axis_name, axis_size, spmd_axis_name)

    def to_batch_info(self, x):
        """(raw value, batch dim) of any value seen by this trace."""
        if isinstance(x, BatchTracer) and x._trace is self:
            return x.val, x.batch_dim
        if isinstance(x, Tracer) and not x._trace.alive:
            raise core.escaped_tracer_error(x)
        return x, not_mapped

    def process_primitive(self, prim, args, params):
        vals, dims = [], []
        for x in args:
            v, d = self.to_batch_info(x)
            vals.append(v)
            dims.append(d)
        rule = prim.batch
        with core.set_current_trace(self.parent):
            if type(rule) is AxisBatchRule:
                out, out_dims = rule(self.axis_data, vals, dims, **params)
            elif all(d is not_mapped for d in dims):
                return prim.bind(*vals, **params)
            else:
                out, out_dims = prim.rule("batch")(self.axis_data.size, vals, dims, **params)
        # as JAX: an output the rule leaves unbatched is the value itself, not a tracer of this
        # trace (a function that vmap runs without batched inputs computes concrete values)
        if prim.multiple_results:
            return [o if d is not_mapped else BatchTracer(self, o, d)
                    for o, d in zip(out, out_dims, strict=True)]
        return out if out_dims is not_mapped else BatchTracer(self, out, out_dims)


def batch_flat(fun, args, in_dims, axis_data: AxisData):
    """Run the flat function `fun` (list in, list out) batched: `args[i]` is mapped along
    `in_dims[i]` (or not). Returns the raw outputs and their batch dims."""
    with core.new_trace(BatchTrace, axis_data.size, axis_data.name, axis_data.spmd_name) as trace, \
            source_info.transform_name_stack("vmap"):
        tracers = [x if d is not_mapped else BatchTracer(trace, x, d) for x, d in zip(args, in_dims, strict=True)]
        pairs = [trace.to_batch_info(o) for o in fun(*tracers)]
    if _config._values["jax_check_tracer_leaks"]:
        tracer_leaks.check_leaks(trace, tracers)
    return [v for v, _ in pairs], [d for _, d in pairs]


# -- batching a jaxpr (the rule of call primitives such as pjit) -------------------------------

_batched_jaxprs: "weakref.WeakKeyDictionary[core.ClosedJaxpr, dict]" = weakref.WeakKeyDictionary()


def batch_jaxpr(closed: core.ClosedJaxpr, axis_data: AxisData, in_dims):
    """The const-free jaxpr computing `closed` on batched inputs, its outputs' batch dims and the
    constants to pass as its leading arguments. Cached per (jaxpr, dims, axis), so a jitted
    function under vmap is traced and compiled once per batched signature."""
    in_dims = tuple(in_dims)
    per_jaxpr = _batched_jaxprs.setdefault(closed, {})
    key = (in_dims, axis_data)
    hit = per_jaxpr.get(key)
    if hit is not None:
        return hit
    in_avals = [a if d is not_mapped else a.update(shape=a.shape[:d] + (axis_data.size,) + a.shape[d:])
                for a, d in zip(closed.in_avals, in_dims, strict=True)]
    out_dims_box = []

    def fun(*args):
        outs, out_dims = batch_flat(partial(core.eval_jaxpr, closed.jaxpr, closed.consts), args, in_dims, axis_data)
        out_dims_box.append(tuple(out_dims))
        return outs
    traced, _ = pe.trace_to_jaxpr(fun, in_avals)
    result = (pe.as_const_free(traced)[0], out_dims_box[0], traced.consts)
    if not any(isinstance(c, Tracer) for c in traced.consts):
        per_jaxpr[key] = result
    return result


# -- JAX's batcher table --------------------------------------------------------------------------
# `primitive_batchers[p] = rule` takes a rule with JAX's signature, `rule(batched_args,
# batch_dims, **params) -> (out, out_dims)` (None for an unbatched value), and stores it on `p`
# adapted to pyjax's `batch(axis_size, args, dims, **params)`; reading gives a rule with JAX's
# signature. AxisBatchRules (collectives, pjit) are not in it: JAX keeps those elsewhere too.


def _jax_dim(d):
    return None if d is not_mapped else d


def _pyjax_dim(d):
    return not_mapped if d is None else d


def _convert_dims(convert, prim, out_dims):
    return [convert(d) for d in out_dims] if prim.multiple_results else convert(out_dims)


class JaxBatcher:
    """A batcher written with JAX's signature, stored on `prim` as its pyjax batch rule."""

    __slots__ = ("prim", "rule")

    def __init__(self, prim, rule):
        self.prim = prim
        self.rule = rule

    def __call__(self, axis_size, args, dims, **params):
        out, out_dims = self.rule(tuple(args), tuple(_jax_dim(d) for d in dims), **params)
        return out, _convert_dims(_pyjax_dim, self.prim, out_dims)


def _jax_signature(prim, rule):
    """`prim`'s pyjax batch rule called with JAX's signature (the axis size is read from a
    batched argument; with none batched, `prim` is just applied, as JAX's table does)."""
    def batcher(batched_args, batch_dims, **params):
        sizes = [core.get_aval(x).shape[d] for x, d in zip(batched_args, batch_dims, strict=True)
                 if d is not None]
        if not sizes:
            out = prim.bind(*batched_args, **params)
            return out, ([None] * len(out) if prim.multiple_results else None)
        out, out_dims = rule(sizes[0], list(batched_args), [_pyjax_dim(d) for d in batch_dims],
                             **params)
        return out, _convert_dims(_jax_dim, prim, out_dims)
    return batcher


def _batcher_from_primitive(prim, stored):
    if type(stored) is JaxBatcher:
        return stored.rule
    return None if type(stored) is AxisBatchRule else _jax_signature(prim, stored)


primitive_batchers = RuleTable("batching.primitive_batchers", "batch",
                               to_primitive=JaxBatcher, from_primitive=_batcher_from_primitive)


# -- named axes --------------------------------------------------------------------------------


class _MeshAxisFrames(threading.local):
    def __init__(self):
        self.frames = []  # (trace current when bound, {axis name: size}), innermost last


_mesh_axis_frames = _MeshAxisFrames()


@contextmanager
def extend_axis_env(sizes):
    """Bind named axes of the given sizes (`{name: size}`) for the block: shard_map binds its
    mesh axes while it traces its body, so collectives and `axis_index` inside see them. They
    are inner to the current trace, so a vmap started inside the block shadows them."""
    frames = _mesh_axis_frames.frames
    frames.append((core.current_trace(), dict(sizes)))
    try:
        yield
    finally:
        frames.pop()


def mesh_axes_bound() -> bool:
    """Whether the current trace runs inside a block of `extend_axis_env` (a shard_map body)."""
    frames = _mesh_axis_frames.frames
    trace = core.current_trace()
    while frames and trace is not None:
        if any(bound_at is trace for bound_at, _ in frames):
            return True
        trace = trace.parent
    return False


def is_mesh_axis(name) -> bool:
    """Whether the innermost binding of `name` is a mesh axis (`extend_axis_env`), not a vmap."""
    frames = _mesh_axis_frames.frames
    trace = core.current_trace()
    while frames and trace is not None:
        if any(bound_at is trace and name in sizes for bound_at, sizes in frames):
            return True
        if isinstance(trace, BatchTrace) and trace.axis_data.name == name:
            return False
        trace = trace.parent
    return False


def axis_data_of(name) -> AxisData:
    """The innermost enclosing vmap named `name` (or mesh axis bound by `extend_axis_env`),
    or NameError."""
    trace = core.current_trace()
    frames = _mesh_axis_frames.frames
    while trace is not None:
        for bound_at, sizes in reversed(frames):
            if bound_at is trace and name in sizes:
                return AxisData(name, sizes[name])
        if isinstance(trace, BatchTrace) and trace.axis_data.name is not None \
                and trace.axis_data.name == name:
            return trace.axis_data
        trace = trace.parent
    raise NameError(f"unbound axis name: {name!r}. Collectives and axis_index can only name the "
                    f"axis of an enclosing vmap(..., axis_name={name!r}) (or pmap/shard_map).")


# -- helpers for rules -------------------------------------------------------------------------
# These build lax ops through the `lax_ops` slots (interpreters/array_ops.py): lax sits above the
# interpreters in the import order (STYLE rule 9), and its factories attach these rules while
# lax's own shape ops are still being defined.


def moveaxis(x, src: int, dst: int):
    """Move axis `src` of `x` to position `dst` (a transpose; nothing when they agree)."""
    ndim = core.get_aval(x).ndim
    src, dst = src % ndim, dst % ndim
    if src == dst:
        return x
    perm = [i for i in range(ndim) if i != src]
    perm.insert(dst, src)
    return lax_ops.transpose(x, perm)


def broadcast(x, size: int, axis: int):
    """Insert a new axis of `size` at position `axis`, every slice being `x`."""
    aval = core.get_aval(x)
    shape = list(aval.shape)
    shape.insert(axis, size)
    dims = [i for i in range(aval.ndim + 1) if i != axis]
    return lax_ops.broadcast_in_dim(x, tuple(shape), tuple(dims))


def matchaxis(x, src, dst, size: int):
    """`x` batched along `src` (or unbatched) as a value batched along `dst`."""
    if src is not_mapped:
        return broadcast(x, size, dst)
    return moveaxis(x, src, dst)


# -- JAX's vmappable protocol: container types that vmap maps over with their own rules --------
# `to_elt(cont, axis_size, x, spec)` makes the per-example element of `x` (`cont(array, axis)`
# maps an array inside it); `from_elt(cont, axis_size, elt, spec)` rebuilds the batched value
# (`cont(axis_size, array_elt, axis)` places an array element's mapped axis).

vmappables: dict = {}   # type -> (spec_type, axis_size_type, to_elt, from_elt, make_iota)
spec_types: set = set()


def register_vmappable(data_type, spec_type, axis_size_type, to_elt, from_elt, make_iota):
    vmappables[data_type] = (spec_type, axis_size_type, to_elt, from_elt, make_iota)
    spec_types.add(spec_type)


def unregister_vmappable(data_type):
    spec_type = vmappables.pop(data_type)[0]
    if all(other is not spec_type for other, *_ in vmappables.values()):
        spec_types.discard(spec_type)


def is_vmappable(x) -> bool:
    return type(x) in vmappables


def to_elt(trace, size, x, spec):
    """The element of `x` seen by the function vmapped on `trace`."""
    if type(x) in vmappables:
        cont = lambda y, s: to_elt(trace, size, y, s)
        return vmappables[type(x)][2](cont, size, x, spec)
    return x if spec is not_mapped else BatchTracer(trace, x, spec)


def from_elt(trace, size, elt, spec):
    """The batched value of a function's output element `elt` (a vmappable one), as `spec` says."""
    if type(elt) in vmappables:
        cont = lambda n, y, s: from_elt(trace, n, y, s)
        return vmappables[type(elt)][3](cont, size, elt, spec)
    val, bdim = trace.to_batch_info(elt)
    return val if spec is not_mapped else matchaxis(val, bdim, spec, size)


def bdim_at_front(x, bdim, size: int):
    return matchaxis(x, bdim, 0, size)


def raw_axis(axis: int, bdim) -> int:
    """The position in the raw value of per-example axis `axis`, given the batch dim."""
    return axis + (bdim is not not_mapped and axis >= bdim)


def raw_axes(axes, bdim) -> tuple:
    return tuple(raw_axis(a, bdim) for a in axes)


def out_bdim_after_removing(bdim: int, axes) -> int:
    """Where the batch dim lands when the raw `axes` (not containing it) are removed."""
    return bdim - sum(1 for a in axes if a < bdim)


# -- rules for families ------------------------------------------------------------------------


def vectorized_batcher(prim, axis_size, args, dims, **params):
    """A primitive acting on each element independently: the batch dim stays where it is."""
    (x,), (d,) = args, dims
    return prim.bind(x, **params), d


def defvectorized(prim):
    prim.def_batch(partial(vectorized_batcher, prim))


def broadcast_batcher(prim, axis_size, args, dims, **params):
    """Elementwise n-ary primitives. lax elementwise operands have equal ranks with dims equal or
    1 (or rank 0), so an unbatched operand only gets a size-1 axis at the output's batch position
    (no copy). The output's batch axis is where the full-rank batched operands have theirs when
    they agree, so nothing moves in the common case."""
    ranks = [core.get_aval(x).ndim - (d is not not_mapped) for x, d in zip(args, dims)]
    rank = max(ranks)
    full = [d for d, r in zip(dims, ranks) if d is not not_mapped and r == rank]
    out_dim = full[0] if full else 0
    new_args = []
    for x, d, r in zip(args, dims, ranks, strict=True):
        if d is not_mapped:
            x = x if r == 0 else broadcast(x, 1, out_dim)  # expand_dims
        elif r == rank:
            x = moveaxis(x, d, out_dim)
        else:  # batched, rank 0 per example: (B,) -> (1, ..., B, ..., 1)
            shape = [1] * (rank + 1)
            shape[out_dim] = axis_size
            x = lax_ops.reshape(x, tuple(shape))
        new_args.append(x)
    out = prim.bind(*new_args, **params)
    return (out, [out_dim] * len(out)) if prim.multiple_results else (out, out_dim)


def defbroadcasting(prim):
    prim.def_batch(partial(broadcast_batcher, prim))


def full_rank(x, bdim, size: int, out_dim: int, shape):
    """`x`, whose per-example shape is `shape` or () (then broadcast to it), as a raw value of
    per-example shape `shape` batched along `out_dim` (for rules whose operands must have equal
    shapes, e.g. select_n and clamp)."""
    aval = core.get_aval(x)
    full = tuple(shape[:out_dim]) + (size,) + tuple(shape[out_dim:])
    per_example_rank = aval.ndim - (bdim is not not_mapped)
    if per_example_rank == len(shape):
        return matchaxis(x, bdim, out_dim, size)
    # per-example scalar
    dims = () if bdim is not_mapped else (out_dim,)
    return lax_ops.broadcast_in_dim(x, full, dims)


def per_example_shape(x, bdim) -> tuple:
    shape = core.get_aval(x).shape
    return shape if bdim is not_mapped else shape[:bdim] + shape[bdim + 1:]
