"""Collectives over named axes: psum, pmean, pmax, pmin, all_gather, psum_scatter, all_to_all,
ppermute, pshuffle, axis_index, axis_size.

Inside `vmap(f, axis_name="i")` the axis "i" is the vmap's batch axis, and each primitive's
batching rule (an `AxisBatchRule`, which gets the vmap's name and size) implements the collective
on it: `psum(x, "i")` sums the batch axis, `all_gather(x, "i")` materializes it, `axis_index("i")`
is an iota along it. A collective naming an enclosing vmap's axis passes through inner vmaps as an
ordinary batched operation. Several names (`psum(x, ("i", "j"))`) reduce over all of them; the
wrappers decompose gathers/scatters over several names into one primitive per name (the first
name is the major one).

Inside `shard_map` (and `pmap`, built on it) the names are mesh axes (bound while the body is
traced, `batching.extend_axis_env`) and the primitives lower to XLA's collectives in the
partitioned module: `stablehlo.all_reduce` / `all_gather` / `reduce_scatter` / `all_to_all` /
`collective_permute` with replica groups that are the mesh positions (partition ids: the mesh's
devices in flat order are the module's device assignment) along the named axes, a channel
handle and global device ids; `axis_index` is arithmetic on `stablehlo.partition_id`.

Primitive semantics (`axis_size` is a parameter where the result shape depends on it):
`all_gather_p`, `psum_scatter_p` and `all_to_all_p` are always *tiled* (no axis is added or
removed); the wrappers give the untiled forms by expanding or squeezing an axis, as JAX does.
"""
from __future__ import annotations

import math
from functools import partial

import numpy as np

from pyjax._src import core, dtypes, tree_util
from pyjax._src.core import ShapedArray
from pyjax._src.interpreters import batching
from pyjax._src.interpreters.ad import Zero, deflinear
from pyjax._src.interpreters.batching import AxisBatchRule, axis_data_of
from pyjax._src.lax import elementwise as elt
from pyjax._src.lax import dynamic_slicing, reductions, shape_ops
from pyjax._src.lax.utils import canonicalize_axis, kind, standard_primitive
from pyjax._src.lowering import mlir, sdy
from pyjax._src.mesh import Mesh, get_abstract_mesh


def _names(axis_name) -> tuple:
    return tuple(axis_name) if isinstance(axis_name, (tuple, list)) else (axis_name,)


def _no_groups(axis_index_groups, name):
    if axis_index_groups is not None:
        raise NotImplementedError(f"{name}: axis_index_groups is not supported yet")


def _single_name(axis_name, name):
    names = _names(axis_name)
    if len(names) != 1:
        raise NotImplementedError(f"{name} over several axis names {names} is not supported yet; "
                                  f"name one axis")
    return names[0]


def _one_or_mesh_names(axis_name, name):
    """One axis name, or a tuple of mesh axis names (shard_map's; the first one major): the
    collectives that exchange data in one step over several axes take a tuple only there."""
    names = _names(axis_name)
    if len(names) == 1:
        return names[0]
    if name != "all_to_all" and not all(batching.is_mesh_axis(n) for n in names):
        raise NotImplementedError(f"{name} over several axis names {names} is supported over "
                                  f"shard_map/pmap mesh axes only, not vmap axes; name one axis")
    return names


def _bound(name) -> bool:
    try:
        axis_data_of(name)
    except NameError:
        return False
    return True


def _size_of(axis_name):
    return math.prod(axis_data_of(n).size for n in _names(axis_name))


def _collective(name, abstract_eval, batch_rule, lowering, transpose=None) -> core.Primitive:
    """A collective: no reference implementation (it needs a named axis); `transpose` makes it
    linear (`utils.def_derivative`)."""
    p = standard_primitive(name, abstract_eval, None, lowering, transpose=transpose)
    p.def_batch(AxisBatchRule(batch_rule))
    return p


# -- lowering inside shard_map: replica groups over mesh axes ------------------------------------

def _mesh_for(ctx, name, axes):
    """The mesh of the enclosing shard_map being lowered, which must have the named axes."""
    mesh = ctx.module.axis_env
    if not isinstance(mesh, Mesh) or any(a not in mesh.axis_names for a in axes):
        raise NameError(f"Found an unbound axis name in {name} over {axes!r}: call it under "
                        f"vmap(..., axis_name=...), shard_map or pmap naming that axis")
    return mesh


def _groups(mesh, axes) -> np.ndarray:
    """Partition ids grouped along the mesh axes `axes` (one row per group, ordered by the
    position along `axes`, the first one major)."""
    ids = np.arange(mesh.size).reshape(mesh.axis_sizes)
    pos = [mesh.axis_names.index(a) for a in axes]
    rest = [i for i in range(len(mesh.axis_sizes)) if i not in pos]
    return ids.transpose(rest + pos).reshape(-1, math.prod(mesh.axis_sizes[i] for i in pos))


def _channel(ctx) -> str:
    n = getattr(ctx.module, "next_channel", 1)
    ctx.module.next_channel = n + 1
    return f"#stablehlo.channel_handle<handle = {n}, type = 1>"


def _group_attrs(ctx, groups, global_ids=True) -> dict:
    attrs = {"replica_groups": mlir.dense(groups, np.int64), "channel_handle": _channel(ctx)}
    if global_ids:
        attrs["use_global_device_ids"] = "unit"
    return attrs


def _scalar_region(ctx, op, aval):
    scalar = ShapedArray((), aval.dtype)
    return ctx.region([scalar, scalar], lambda a, b: [
        ctx.fb.op(op, [a, b], [mlir.aval_type(scalar)])[0]])


def _allreduce_lowering(name, op, ctx, x, *, axes, axis_index_groups=None):
    groups = _groups(_mesh_for(ctx, name, axes), axes)
    if axis_index_groups is not None:  # each group along the axis split further
        groups = np.asarray([[row[k] for k in g] for row in groups for g in axis_index_groups])
    if groups.shape[1] == 1:
        return x
    return ctx.op("stablehlo.all_reduce", x, attrs=_group_attrs(ctx, groups),
                  regions=[_scalar_region(ctx, op, ctx.avals_in[0])])


def _ct_or_zero(ct, f):
    return ct if type(ct) is Zero else f(ct)


# -- psum / pmax / pmin --------------------------------------------------------------------------

def _allreduce_abstract_eval(x, *, axes, axis_index_groups=None):
    # invariant along the axes it reduces over (reduced within groups only: still varying)
    if x.vma and axis_index_groups is None:
        return x.update(vma=x.vma - set(axes))
    return x


def _allreduce_batch(prim, reduce, on_unbatched, axis_data, args, dims, *, axes, axis_index_groups=None):
    """Over this vmap's axis: reduce the batch axis (the result is the same for every example);
    the other names are reduced by the enclosing vmaps."""
    (x,), (d,) = args, dims
    # (psum_invariant has no groups parameter, as JAX's)
    groups = {} if prim is psum_invariant_p else {"axis_index_groups": axis_index_groups}
    if axis_data.name not in axes:
        return prim.bind(x, axes=axes, **groups), d
    x = on_unbatched(x, axis_data.size) if d is None else reduce(x, (d,))
    rest = tuple(a for a in axes if a != axis_data.name)
    if rest:
        x = prim.bind(x, axes=rest, **groups)
    return x, None


def _allreduce_primitive(name, reduce, on_unbatched, op, transpose=None):
    p = standard_primitive(name, _allreduce_abstract_eval, None, partial(_allreduce_lowering, name, op),
                           transpose=transpose)
    p.def_batch(AxisBatchRule(partial(_allreduce_batch, p, reduce, on_unbatched)))
    return p


def _same(x, n):
    return x


# y_i = sum_j x_j for every i, so the transpose also sums: ct_x_j = sum_i ct_y_i.
psum_p = _allreduce_primitive("psum", reductions.reduce_sum, elt.mul, "stablehlo.add", transpose=lambda ct, x, **params: [
    _ct_or_zero(ct, lambda c: psum_p.bind(c, **params))])
# NB: pmax and pmin have no JVP rule yet.
pmax_p = _allreduce_primitive("pmax", reductions.reduce_max, _same, "stablehlo.maximum")
pmin_p = _allreduce_primitive("pmin", reductions.reduce_min, _same, "stablehlo.minimum")
# psum inside a check_vma=True shard_map body (JAX's name): from a value varying along `axes`
# to one invariant along them. Its transpose is a pvary (the cotangent of an invariant result
# is the same on every device, so no collective), where psum's is another psum.
psum_invariant_p = _allreduce_primitive(
    "psum_invariant", reductions.reduce_sum, elt.mul, "stablehlo.add",
    transpose=lambda ct, x, **params: [_ct_or_zero(ct, lambda c: core.pvary(c, params["axes"]))])


def _vary(v, names):
    """`v` typed as varying along the mesh axes among `names` (inside a check_vma body: the
    collectives take varying operands, as JAX's insert an implicit pvary)."""
    axes = core.vma_axes()
    if axes is None or not isinstance(v, core.Tracer):
        return v
    return core.pvary(v, axes.intersection(names))


# -- pvary: invariant -> varying (defined in core: staging inserts it) -------------------------

def _pvary_abstract_eval(x, *, axes):
    # (checked where vma types are joined; a jaxpr evaluated again elsewhere, as lowering
    # does with loop bodies, may carry operands typed more loosely)
    if set(axes) & x.vma and core.vma_axes() is not None:
        raise ValueError(f"pvary is a invariant->variant collective. This means that the axis "
                         f"names mentioned in `axes` passed to `pvary` must not be present in "
                         f"`jax.typeof(inp).mat.varying`. Got axes={axes} and "
                         f"jax.typeof(inp)={x}")
    return x.update(vma=x.vma | set(axes))


def _pvary_impl(x, *, axes):
    raise ValueError("pvary should be called under jax.shard_map.")


core.pvary_p.def_abstract_eval(_pvary_abstract_eval)
core.pvary_p.def_impl(_pvary_impl)
# y = x on every device along `axes`, so the cotangents of every device add up: a psum
deflinear(core.pvary_p, lambda ct, x, *, axes: [
    _ct_or_zero(ct, lambda c: psum_invariant_p.bind(_vary(c, axes), axes=axes))])
core.pvary_p.def_batch(lambda axis_size, args, dims, *, axes: (
    core.pvary_p.bind(args[0], axes=axes), dims[0]))
core.pvary_p.def_lowering(lambda ctx, x, *, axes: x)
core.vma_rule_primitives.update((psum_p, pmax_p, pmin_p, psum_invariant_p))


def _checked_groups(axis_index_groups, named, what):
    """`axis_index_groups` (lists of indices along one mesh axis, a partition of it into
    groups of equal size) as a tuple of tuples, or None. As in JAX 0.10.2's pmap; vmap axes
    refuse them (as JAX)."""
    if axis_index_groups is None:
        return None
    if len(named) != 1 or not batching.is_mesh_axis(named[0]):
        raise NotImplementedError(f"{what}: axis_index_groups is supported over one pmap/"
                                  f"shard_map axis only, not vmap collectives (as in JAX)")
    groups = tuple(tuple(int(i) for i in g) for g in axis_index_groups)
    size = axis_data_of(named[0]).size
    if (len({len(g) for g in groups}) != 1
            or sorted(i for g in groups for i in g) != list(range(size))):
        raise ValueError(f"{what}: axis_index_groups must split the {size} indices of axis "
                         f"{named[0]!r} into groups of equal size, got {axis_index_groups}")
    return groups


def _allreduce(prim, reduce, on_constant, x, axis_name, axis_index_groups):
    """Bind `prim` per leaf over the named axes; integer entries of `axis_name` are positional
    axes, reduced with `reduce` first (as in JAX)."""
    names = _names(axis_name)
    pos = tuple(a for a in names if isinstance(a, int))
    named = tuple(a for a in names if not isinstance(a, int))
    try:
        size = math.prod(axis_data_of(n).size for n in named)
    except NameError:
        unbound = next(n for n in named if not _bound(n))
        # (JAX's words, which name psum for every all-reduce)
        raise NameError(f"Found an unbound axis name: {unbound}. To fix this, please call "
                        f"psum under `jax.shard_map`.") from None
    groups = _checked_groups(axis_index_groups, named, prim.name)
    if groups is not None:
        size = len(groups[0])

    def leaf(v):
        if prim is psum_p and core.get_aval(v).dtype == np.bool_:
            v = elt.convert_element_type(v, np.int32)
        if pos:
            v = reduce(v, tuple(canonicalize_axis(a, core.get_aval(v).ndim) for a in pos))
        if not named:
            return v
        if type(v) in (int, float, complex):  # stays a Python number, as in JAX: axis_size is an int
            return v * size if prim is psum_p else v
        if not isinstance(v, core.Tracer):  # a constant is the same for every example
            return on_constant(v, size)
        vma = core.vma_axes()
        if vma is not None and groups is None and vma.intersection(named):
            # (a value invariant along an axis is made varying first: psum multiplies it by
            # the axis size, as JAX's)
            v = _vary(v, named)
            if prim is psum_p:
                return psum_invariant_p.bind(v, axes=named)
            return prim.bind(v, axes=named, axis_index_groups=None)
        return prim.bind(v, axes=named, axis_index_groups=groups)
    return tree_util.tree_map(leaf, x)


def psum(x, axis_name, *, axis_index_groups=None):
    """Sum `x` (a pytree) over the named axis (or axes) `axis_name`.

    Example:
        >>> vmap(lambda v: lax.psum(v, "i"), axis_name="i")(jnp.arange(4.0))
        Array([6., 6., 6., 6.], dtype=float32)
    """
    return _allreduce(psum_p, reductions.reduce_sum, elt.mul, x, axis_name, axis_index_groups)


def pmax(x, axis_name, *, axis_index_groups=None):
    """Maximum of `x` over the named axis (or axes)."""
    return _allreduce(pmax_p, reductions.reduce_max, _same, x, axis_name, axis_index_groups)


def pmin(x, axis_name, *, axis_index_groups=None):
    """Minimum of `x` over the named axis (or axes)."""
    return _allreduce(pmin_p, reductions.reduce_min, _same, x, axis_name, axis_index_groups)


def _axis_index_of_val(x, val, axis_name):
    """The smallest index along `axis_name` of the examples where `x` equals `val`."""
    idx = axis_index(axis_name)
    shape = np.shape(x) if not hasattr(x, "aval") else x.aval.shape
    mask = elt.eq(val, x)
    here = shape_ops.broadcast(idx, shape)
    never = shape_ops.broadcast(np.array(np.iinfo(np.int32).max, np.int32), shape)
    return pmin(elt.select(mask, here, never), axis_name)


def pargmax(x, axis_name):
    """The index along the (one) named axis of the example holding the maximum of `x`,
    elementwise (the first such example on ties)."""
    if isinstance(axis_name, (tuple, list)):
        raise TypeError(f"pargmax only accepts a single axis, got {axis_name}")
    return _axis_index_of_val(x, pmax(x, axis_name), axis_name)


def pargmin(x, axis_name):
    """As pargmax, for the minimum."""
    if isinstance(axis_name, (tuple, list)):
        raise TypeError(f"pargmin only accepts a single axis, got {axis_name}")
    return _axis_index_of_val(x, pmin(x, axis_name), axis_name)


def pmean(x, axis_name, *, axis_index_groups=None):
    """Mean of `x` over the named axis (or axes); integers give floats, as in JAX.

    Example:
        >>> vmap(lambda v: v - lax.pmean(v, "i"), axis_name="i")(jnp.arange(3.0))
        Array([-1.,  0.,  1.], dtype=float32)
    """
    names = _names(axis_name)
    n = math.prod(axis_data_of(a).size for a in names if not isinstance(a, int))
    if axis_index_groups is not None:
        n = len(axis_index_groups[0])

    def mean(v):
        if kind(core.get_aval(v).dtype) not in "fc":
            v = elt.convert_element_type(v, dtypes.default_float_dtype())
        aval = core.get_aval(v)
        count = n * math.prod(aval.shape[canonicalize_axis(a, aval.ndim)] for a in names if isinstance(a, int))
        return elt.div(psum(v, axis_name, axis_index_groups=axis_index_groups), count)
    return tree_util.tree_map(mean, x)


# -- axis_index / axis_size ----------------------------------------------------------------------

def _axis_index_batch(axis_data, args, dims, *, axis_name):
    if axis_name == axis_data.name:
        return shape_ops.iota(np.int32, axis_data.size), 0
    return axis_index_p.bind(axis_name=axis_name), None


def _axis_index_lowering(ctx, *, axis_name):
    """(partition id // stride) % size, the stride being the product of the later mesh axes."""
    mesh = _mesh_for(ctx, "axis_index", (axis_name,))
    i = mesh.axis_names.index(axis_name)
    size, stride = mesh.axis_sizes[i], math.prod(mesh.axis_sizes[i + 1:])
    if size == 1:
        return ctx.const(0, np.int32)
    u32 = ShapedArray((), np.uint32)

    def index():
        pid = ctx.op("stablehlo.partition_id", out=u32)
        if stride != 1:
            pid = ctx.op("stablehlo.divide", pid, ctx.const(stride, np.uint32), out=u32)
        pid = ctx.op("stablehlo.remainder", pid, ctx.const(size, np.uint32), out=u32)
        return ctx.op("stablehlo.convert", pid)
    # (in a partly manual shard_map body, the partition id is read where all axes are manual)
    return sdy.fully_manual(ctx, mesh, ctx.avals_out[0], index)


def _axis_index_abstract_eval(*, axis_name):
    vma = core.vma_axes()  # (inside a check_vma body: varying along its mesh axis)
    return ShapedArray((), np.int32, vma=core.NO_VMA if vma is None or axis_name not in vma
                       else frozenset((axis_name,)))


axis_index_p = _collective("axis_index", _axis_index_abstract_eval, _axis_index_batch,
                           _axis_index_lowering)


def axis_index(axis_name):
    """This example's index along the named axis; for several names, the row-major index over
    them (the first name is the major one).

    Example:
        >>> vmap(lambda: lax.axis_index("i"), axis_size=3, axis_name="i")()
        Array([0, 1, 2], dtype=int32)
    """
    names = _names(axis_name)
    index, inner = None, 1
    for name in reversed(names):
        size = axis_data_of(name).size
        i = axis_index_p.bind(axis_name=name)
        i = i if inner == 1 else elt.mul(i, inner)
        index = i if index is None else elt.add(index, i)
        inner *= size
    return index


def axis_size(axis_name):
    """The size of the named axis (the product, for several names): a Python int, as in JAX."""
    return psum(1, axis_name)


# -- all_gather ----------------------------------------------------------------------------------

def _all_gather_abstract_eval(x, *, axis_name, axis, axis_size, axis_index_groups=None):
    shape = list(x.shape)
    shape[axis] *= axis_size
    return x.update(shape=tuple(shape))


def _all_gather_batch(prim, axis_data, args, dims, *, axis_name, axis, axis_size, **params):
    """Over this vmap's axis: the batch axis itself, merged into `axis` (examples in order)."""
    (x,), (d,) = args, dims
    params = dict(axis_name=axis_name, axis_size=axis_size, **params)
    if axis_name != axis_data.name:
        if d is None:
            return prim.bind(x, axis=axis, **params), None
        return prim.bind(batching.moveaxis(x, d, 0), axis=axis + 1, **params), 0
    x = batching.matchaxis(x, d, axis, axis_data.size)
    shape = core.get_aval(x).shape
    return shape_ops.reshape(x, shape[:axis] + (shape[axis] * shape[axis + 1],) + shape[axis + 2:]), None


def _all_gather_transpose(ct, x, *, axis_name, axis, axis_size, axis_index_groups=None):
    """(tiled) all_gather and psum_scatter transpose into each other."""
    return [_ct_or_zero(ct, lambda c: psum_scatter_p.bind(
        c, axis_name=axis_name, scatter_dimension=axis, axis_size=axis_size,
        axis_index_groups=axis_index_groups))]


def _all_gather_lowering(ctx, x, *, axis_name, axis, axis_size, axis_index_groups=None):
    groups = _groups(_mesh_for(ctx, "all_gather", (axis_name,)), (axis_name,))
    if groups.shape[1] == 1:
        return x
    return ctx.op("stablehlo.all_gather", x,
                  attrs={"all_gather_dim": mlir.i64(axis), **_group_attrs(ctx, groups)})


all_gather_p = _collective("all_gather", _all_gather_abstract_eval, None, _all_gather_lowering,
                           _all_gather_transpose)
all_gather_p.def_batch(AxisBatchRule(partial(_all_gather_batch, all_gather_p)))


# all_gather(..., to="invarying"): the gathered value is the same on every device along the
# axis (invariant), so its transpose takes each device's block of the cotangent (no collective)
def _all_gather_invariant_abstract_eval(x, *, axis_name, axis, axis_size):
    out = _all_gather_abstract_eval(x, axis_name=axis_name, axis=axis, axis_size=axis_size)
    return out.update(vma=out.vma - {axis_name}) if out.vma else out


def _all_gather_invariant_transpose(ct, x, *, axis_name, axis, axis_size):
    def block(c):
        n = core.get_aval(c).shape[axis] // axis_size
        start = elt.mul(axis_index_p.bind(axis_name=axis_name), np.int32(n))
        return dynamic_slicing.dynamic_slice_in_dim(c, start, n, axis)
    return [_ct_or_zero(ct, block)]


all_gather_invariant_p = _collective(
    "all_gather_invariant", _all_gather_invariant_abstract_eval, None,
    lambda ctx, x, **params: _all_gather_lowering(ctx, x, **params),
    _all_gather_invariant_transpose)
all_gather_invariant_p.def_batch(AxisBatchRule(partial(_all_gather_batch,
                                                       all_gather_invariant_p)))


def all_gather(x, axis_name, *, axis_index_groups=None, axis=0, tiled=False, to="varying"):
    """Every example's `x` along the named axis, stacked into a new axis `axis` (or concatenated
    into the existing axis `axis` when `tiled`). Inside a check_vma shard_map body the result
    is typed as varying along the axis (`to="varying"`), or as the same on every device there
    (`to="invarying"`: its gradient is each device's block, with no collective).

    Example:
        >>> vmap(lambda v: lax.all_gather(v, "i"), axis_name="i")(jnp.arange(3))
        Array([[0, 1, 2],
               [0, 1, 2],
               [0, 1, 2]], dtype=int32)
    """
    if to not in ("varying", "reduced", "invarying"):
        raise ValueError(f"Got unexpected `to` value for `jax.lax.all_gather`. Allowed `to` "
                         f"values are: {{'varying', 'reduced', 'invarying'}}")
    if to == "reduced":
        raise NotImplementedError("all_gather(..., to='reduced'): pyjax's types have no reduced "
                                  "axes")
    _no_groups(axis_index_groups, "all_gather")
    names = _names(axis_name)
    prim = all_gather_p if to == "varying" or core.vma_axes() is None else all_gather_invariant_p

    def leaf(v):
        v = _vary(v, names)
        ndim = core.get_aval(v).ndim
        ax = canonicalize_axis(axis, ndim if tiled else ndim + 1)
        if not tiled:
            v = shape_ops.expand_dims(v, (ax,))
        for name in reversed(names):  # the first name is the major one
            size = axis_data_of(name).size
            v = (all_gather_p.bind(v, axis_name=name, axis=ax, axis_size=size,
                                   axis_index_groups=None) if prim is all_gather_p else
                 prim.bind(v, axis_name=name, axis=ax, axis_size=size))
        return v
    return tree_util.tree_map(leaf, x)


# -- psum_scatter --------------------------------------------------------------------------------

def _psum_scatter_abstract_eval(x, *, axis_name, scatter_dimension, axis_size, axis_index_groups=None):
    shape = list(x.shape)
    shape[scatter_dimension] //= axis_size
    return x.update(shape=tuple(shape))


def _psum_scatter_batch(axis_data, args, dims, *, axis_name, scatter_dimension, axis_size,
                        axis_index_groups=None):
    """Over this vmap's axis: sum the batch axis, then example i keeps block i of
    `scatter_dimension`, which is the new batch axis."""
    (x,), (d,) = args, dims
    params = dict(axis_name=axis_name, axis_size=axis_size, axis_index_groups=axis_index_groups)
    if axis_name != axis_data.name:
        if d is None:
            return psum_scatter_p.bind(x, scatter_dimension=scatter_dimension, **params), None
        return psum_scatter_p.bind(batching.moveaxis(x, d, 0), scatter_dimension=scatter_dimension + 1,
                                   **params), 0
    total = elt.mul(x, axis_data.size) if d is None else reductions.reduce_sum(x, (d,))
    shape = core.get_aval(total).shape
    sd, n = scatter_dimension, axis_data.size
    return shape_ops.reshape(total, shape[:sd] + (n, shape[sd] // n) + shape[sd + 1:]), sd


def _psum_scatter_transpose(ct, x, *, axis_name, scatter_dimension, axis_size, axis_index_groups=None):
    return [_ct_or_zero(ct, lambda c: all_gather_p.bind(
        c, axis_name=axis_name, axis=scatter_dimension, axis_size=axis_size,
        axis_index_groups=axis_index_groups))]


def _psum_scatter_lowering(ctx, x, *, axis_name, scatter_dimension, axis_size,
                           axis_index_groups=None):
    groups = _groups(_mesh_for(ctx, "psum_scatter", (axis_name,)), (axis_name,))
    if groups.shape[1] == 1:
        return x
    return ctx.op("stablehlo.reduce_scatter", x,
                  attrs={"scatter_dimension": mlir.i64(scatter_dimension),
                         **_group_attrs(ctx, groups)},
                  regions=[_scalar_region(ctx, "stablehlo.add", ctx.avals_in[0])])


psum_scatter_p = _collective("reduce_scatter", _psum_scatter_abstract_eval, _psum_scatter_batch,
                             _psum_scatter_lowering, _psum_scatter_transpose)


def psum_scatter(x, axis_name, *, scatter_dimension=0, axis_index_groups=None, tiled=False):
    """`psum` over the named axis, each example keeping its block of `scatter_dimension`
    (`tiled`), or its entry (untiled: that dimension must have the axis' size and is removed)."""
    _no_groups(axis_index_groups, "psum_scatter")
    names = _names(axis_name)
    total = math.prod(axis_data_of(n).size for n in names)

    def leaf(v):
        v = _vary(v, names)
        aval = core.get_aval(v)
        sd = canonicalize_axis(scatter_dimension, aval.ndim)
        n = aval.shape[sd]
        if (tiled and n % total) or (not tiled and n != total):
            need = "divisible by" if tiled else "equal to"
            raise ValueError(f"psum_scatter: the size of scatter_dimension {sd} of {aval.str_short()} "
                             f"must be {need} the size of the named axis {axis_name!r} ({total})")
        for name in names:  # the first name is the major one
            v = psum_scatter_p.bind(v, axis_name=name, scatter_dimension=sd,
                                    axis_size=axis_data_of(name).size, axis_index_groups=None)
        return v if tiled else shape_ops.squeeze(v, (sd,))
    return tree_util.tree_map(leaf, x)


# -- all_to_all ----------------------------------------------------------------------------------

def _all_to_all_abstract_eval(x, *, axis_name, split_axis, concat_axis, axis_size, axis_index_groups=None):
    shape = list(x.shape)
    shape[split_axis] //= axis_size
    shape[concat_axis] *= axis_size
    return x.update(shape=tuple(shape))


def _all_to_all_batch(axis_data, args, dims, *, axis_name, split_axis, concat_axis, axis_size,
                      axis_index_groups=None):
    """Over this vmap's axis: example i receives block i of `split_axis` from every example j,
    concatenated along `concat_axis` in order of j; a transpose of the batch axis with the
    split blocks."""
    (x,), (d,) = args, dims
    params = dict(axis_name=axis_name, axis_size=axis_size, axis_index_groups=axis_index_groups)
    if axis_name != axis_data.name:
        if d is None:
            return all_to_all_p.bind(x, split_axis=split_axis, concat_axis=concat_axis, **params), None
        return all_to_all_p.bind(batching.moveaxis(x, d, 0), split_axis=split_axis + 1,
                                 concat_axis=concat_axis + 1, **params), 0
    n = axis_data.size
    x = batching.bdim_at_front(x, d, n)                       # (j, ...)
    shape = list(batching.per_example_shape(x, 0))
    k = shape[split_axis] // n
    x = shape_ops.reshape(x, (n, *shape[:split_axis], n, k, *shape[split_axis + 1:]))
    x = batching.moveaxis(x, 1 + split_axis, 0)               # (i, j, ... k at split_axis ...)
    x = batching.moveaxis(x, 1, 1 + concat_axis)              # j right before concat_axis
    shape[split_axis] = k
    shape[concat_axis] *= n
    return shape_ops.reshape(x, (n, *shape)), 0


def _all_to_all_transpose(ct, x, *, axis_name, split_axis, concat_axis, axis_size, axis_index_groups=None):
    """The exchange back: split along concat_axis, concatenate along split_axis."""
    return [_ct_or_zero(ct, lambda c: all_to_all_p.bind(
        c, axis_name=axis_name, split_axis=concat_axis, concat_axis=split_axis, axis_size=axis_size,
        axis_index_groups=axis_index_groups))]


def _all_to_all_lowering(ctx, x, *, axis_name, split_axis, concat_axis, axis_size,
                         axis_index_groups=None):
    groups = _groups(_mesh_for(ctx, "all_to_all", _names(axis_name)), _names(axis_name))
    if groups.shape[1] == 1:
        return x
    return ctx.op("stablehlo.all_to_all", x, attrs={
        "split_dimension": mlir.i64(split_axis), "concat_dimension": mlir.i64(concat_axis),
        "split_count": mlir.i64(groups.shape[1]), **_group_attrs(ctx, groups, global_ids=False)})


all_to_all_p = _collective("all_to_all", _all_to_all_abstract_eval, _all_to_all_batch,
                           _all_to_all_lowering, _all_to_all_transpose)


def all_to_all(x, axis_name, split_axis, concat_axis, *, axis_index_groups=None, tiled=False):
    """Split `split_axis` into one block per example of the named axis and exchange the blocks:
    example i gets block i from every example, stacked at `concat_axis` (concatenated into it
    when `tiled`; untiled, `split_axis` must have the axis' size and is removed)."""
    _no_groups(axis_index_groups, "all_to_all")
    name = _one_or_mesh_names(axis_name, "all_to_all")
    size = _size_of(name)

    def leaf(v):
        v = _vary(v, _names(name))
        aval = core.get_aval(v)
        split, concat = split_axis % aval.ndim, concat_axis % aval.ndim
        if tiled and aval.shape[split] % size:
            raise ValueError(f"The size of all_to_all split_axis ({aval.shape[split]}) has to be "
                             f"divisible by the size of the named axis {name!r} ({size})")
        if not tiled:
            if aval.shape[split] != size:
                raise ValueError(f"all_to_all requires the size of the mapped axis axis_name to "
                                 f"equal x.shape[split_axis], but they are {size} and "
                                 f"{aval.shape[split]} respectively.")
            if split < concat:
                concat += 1  # concat_axis counts the axes after split_axis is removed
                v = shape_ops.expand_dims(v, (concat,))
            elif concat < split:
                v = shape_ops.expand_dims(v, (concat,))
                split += 1
        if isinstance(name, tuple) and not all(batching.is_mesh_axis(n) for n in name):
            out = _all_to_all_each_axis(v, name, split, concat)
        else:
            out = all_to_all_p.bind(v, axis_name=name, split_axis=split, concat_axis=concat,
                                    axis_size=size, axis_index_groups=None)
        return out if tiled or split == concat else shape_ops.squeeze(out, (split,))
    return tree_util.tree_map(leaf, x)


def _all_to_all_each_axis(v, names, split, concat):
    """A tiled all_to_all over several axes (vmap axes among them; the first name major) as one
    exchange per axis: `split` becomes one axis per name (and the block), each name's exchange
    swaps its axis with the senders' (the value at [q1..qm] is then sender q's block for this
    example), and the sender axes join `concat`, sender-major."""
    sizes = [axis_data_of(n).size for n in names]
    m, shape = len(names), core.get_aval(v).shape
    k = shape[split] // math.prod(sizes)
    v = shape_ops.reshape(v, (*shape[:split], *sizes, k, *shape[split + 1:]))
    for t, (n, size) in enumerate(zip(names, sizes)):
        v = all_to_all_p.bind(v, axis_name=n, split_axis=split + t, concat_axis=split + t,
                              axis_size=size, axis_index_groups=None)
    # the sender axes go right before the concat axis (the block's axis when concat is split)
    target = split + m if concat == split else concat + (m if concat > split else 0)
    senders = list(range(split, split + m))
    rest = [i for i in range(len(shape) + m) if i not in senders]
    at = rest.index(target)
    v = shape_ops.transpose(v, rest[:at] + senders + rest[at:])
    out_shape = list(shape)
    out_shape[split] = k
    out_shape[concat] = (k if concat == split else shape[concat]) * math.prod(sizes)
    return shape_ops.reshape(v, tuple(out_shape))


# -- ppermute / pshuffle -------------------------------------------------------------------------

def _ppermute_batch(axis_data, args, dims, *, axis_name, perm):
    """Over this vmap's axis: example t gets example s's value for each (s, t) in `perm`, zeros
    where no pair sends to t (static slices of the batch axis, concatenated)."""
    (x,), (d,) = args, dims
    if axis_name != axis_data.name:
        return ppermute_p.bind(x, axis_name=axis_name, perm=perm), d
    n = axis_data.size
    x = batching.bdim_at_front(x, d, n)
    src_of = {t: s for s, t in perm}
    aval = core.get_aval(x)
    zero = shape_ops.broadcast_in_dim(np.zeros((), aval.dtype), (1,) + aval.shape[1:], ())
    pieces = [shape_ops.slice_in_dim(x, src_of[t], src_of[t] + 1, axis=0) if t in src_of else zero
              for t in range(n)]
    return shape_ops.concatenate(pieces, 0), 0


def _ppermute_lowering(ctx, x, *, axis_name, perm):
    """One collective_permute: each (source, destination) pair in every group along the axis;
    destinations nobody sends to get zeros (as XLA defines it)."""
    mesh = _mesh_for(ctx, "ppermute", _names(axis_name))
    # NB: over several axes the indices of `perm` count in mesh-axis order, whatever the order
    # of the names (as JAX 0.10.2 does; its other collectives follow the names' order)
    groups = _groups(mesh, sorted(_names(axis_name), key=mesh.axis_names.index))
    pairs = [(g[s], g[t]) for g in groups for s, t in perm]
    if groups.shape[1] == 1 and pairs:
        return x
    if not pairs:
        aval = ctx.avals_in[0]
        return ctx.broadcast(ctx.const(0, aval.dtype), aval.update(shape=()), aval.shape)
    return ctx.op("stablehlo.collective_permute", x, attrs={
        "source_target_pairs": mlir.dense(np.asarray(pairs, np.int64), np.int64),
        "channel_handle": _channel(ctx)})


ppermute_p = _collective("ppermute", lambda x, *, axis_name, perm: x, _ppermute_batch,
                         _ppermute_lowering,
                         lambda ct, x, *, axis_name, perm: [_ct_or_zero(ct, lambda c: ppermute_p.bind(
                             c, axis_name=axis_name, perm=tuple((t, s) for s, t in perm)))])


core.vma_rule_primitives.update((axis_index_p, all_gather_p, all_gather_invariant_p,
                                 psum_scatter_p, all_to_all_p, ppermute_p))


def ppermute(x, axis_name, perm):
    """Send each example's `x` along the named axis: `perm` lists (source, destination) index
    pairs; destinations nobody sends to get zeros.

    Example:
        >>> shift = lambda v: lax.ppermute(v, "i", [(0, 1), (1, 2), (2, 0)])
        >>> vmap(shift, axis_name="i")(jnp.array([10, 20, 30]))
        Array([30, 10, 20], dtype=int32)
    """
    name = _one_or_mesh_names(axis_name, "ppermute")
    size = _size_of(name)
    perm = tuple((int(s), int(t)) for s, t in perm)
    srcs, dsts = [s for s, _ in perm], [t for _, t in perm]
    if len(set(srcs)) != len(srcs) or len(set(dsts)) != len(dsts):
        raise ValueError(f"ppermute sources and destinations must be unique, got {perm}.")
    if not all(0 <= i < size for i in srcs + dsts):
        raise ValueError(f"ppermute perm indices must be in [0, {size}) for the axis {name!r} of "
                         f"size {size}, got {perm}.")
    return tree_util.tree_map(
        lambda v: ppermute_p.bind(_vary(v, _names(name)), axis_name=name, perm=perm), x)


def pshuffle(x, axis_name, perm):
    """Example i gets the value of example `perm[i]` (ppermute with the other encoding)."""
    name = _one_or_mesh_names(axis_name, "pshuffle")
    size = _size_of(name)
    if sorted(perm) != list(range(size)):
        raise ValueError(f"`perm` does not represent a permutation of range({size}): {perm}")
    return ppermute(x, axis_name, list(zip(perm, range(len(perm)))))


# -- compositions of the collectives above ---------------------------------------------------------


def pswapaxes(x, axis_name, axis, *, axis_index_groups=None):
    """Swap the named axis with the positional `axis` (of the named axis' size): example i gets
    slice i of `axis` from every example. The same as `all_to_all(x, axis_name, axis, axis)`."""
    return all_to_all(x, axis_name, axis, axis, axis_index_groups=axis_index_groups)


def pbroadcast(x, axis_name, source):
    """Every example of the named axis gets example `source`'s `x` (a pytree).

    NB: computed as JAX documents it, a psum of `x` masked to the source example, not XLA's
    CollectiveBroadcast."""
    is_source = elt.eq(axis_index(axis_name), np.int32(source))

    def leaf(v):
        v = shape_ops._unchanged(v)
        return psum(elt.select_n(is_source, elt._full_like(v, 0), v), axis_name)
    return tree_util.tree_map(leaf, x)


_PCAST_TARGETS = ("unreduced", "reduced", "varying")


def pcast(x, axis_name, *, to: str):
    """Change how a value is typed along named mesh axes: `to="varying"` makes a value that is
    the same on every device along `axis_name` (invariant) typed as varying along it (a
    `pvary`, whose transpose is a psum), as JAX 0.10.2's.

    NB: pyjax's types have no reduced/unreduced parts: those casts return `x` unchanged, as
    does a cast to varying along bound axes outside a check_vma shard_map body. Eagerly, or
    naming an axis nothing binds, it raises JAX's errors."""
    if isinstance(axis_name, (set, frozenset)):
        raise TypeError(f"axis_name={axis_name!r} must be a tuple or a str. Got {axis_name}")
    axes = axis_name if isinstance(axis_name, tuple) else (axis_name,)
    if not axis_name:
        return x
    if to not in _PCAST_TARGETS:
        raise ValueError(f"Got unexpected `to` value. Allowed `to` values are: "
                         f"{set(_PCAST_TARGETS)}")

    if to == "varying" and core.vma_axes() is None:  # (JAX's errors outside a shard_map)
        if type(core.current_trace()) is core.EvalTrace:
            raise ValueError("pvary should be called under jax.shard_map.")
        ctx = get_abstract_mesh()
        for a in axes:
            if not _bound(a) and ctx.shape.get(a) != 1:  # (a mesh axis of size 1: a no-op)
                raise NameError(f"Found an unbound axis name: {a}. To fix this, please call "
                                f"pvary under `jax.shard_map`.")

    def leaf(v):
        v = shape_ops._unchanged(v)
        if to != "varying" or core.vma_axes() is None:
            return v
        aval = core.get_aval(v)
        state = {"varying" if a in aval.vma else "invarying" for a in axes}
        if len(state) > 1:
            raise ValueError(f"jax.lax.pcast can only accept axis_name which corresponds to one "
                             f"of varying, unreduced, reduced or invarying state of the input. "
                             f"Got input type: {aval}, axes: {axes} and input state: {state}")
        if state == {"varying"}:
            raise ValueError(f"Unsupported pcast from=varying, to={to!r}")
        return core.pvary(v, axes)
    return tree_util.tree_map(leaf, x)
