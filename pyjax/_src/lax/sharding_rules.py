"""Sharding rules (sharding in types): given a primitive's output avals (shapes and dtypes) and
its operands' avals, the spec of each output under a mesh with Explicit axes, as JAX 0.10.2
computes them. A rule returns one tuple per output, one entry per dimension (None: not split;
a mesh axis name or a tuple of names), or a NamedSharding the caller gave (`out_sharding=`).
`core._abstract_eval_with_shardings` calls them; each primitive's family file attaches its rule
(`p.def_sharding_rule(...)`) beside its other rules.

Operands without a sharding count as unsplit (`core.spec_parts`)."""
from __future__ import annotations

import math

from pyjax._src import core
from pyjax._src.core import ShardingTypeError, spec_parts
from pyjax._src.mesh import get_abstract_mesh, get_mesh
from pyjax._src.sharding import NamedSharding, PartitionSpec


def out_sharding_param(s, where):
    """An `out_sharding=` argument as a primitive's param: a NamedSharding (a PartitionSpec over
    the mesh in context; its abstract mesh when only that is known)."""
    if isinstance(s, NamedSharding):
        return s
    if not isinstance(s, PartitionSpec):
        raise TypeError(f"{where}: out_sharding must be a NamedSharding or a PartitionSpec, "
                        f"got {s!r}")
    mesh = get_mesh()
    if mesh is None:
        mesh = get_abstract_mesh()
        if mesh.empty:
            raise ValueError(f"Using PartitionSpec when you are not under a mesh context is not "
                             f"allowed. Please pass a NamedSharding instance or enter into a "
                             f"mesh context via `jax.set_mesh`. Got {s!r}")
    return NamedSharding(mesh, s)


def canonical_out_sharding(s, where):
    """An optional `out_sharding=` as a primitive's `sharding` param: None when not given (or
    over an empty mesh, as JAX), else `out_sharding_param`."""
    if s is None or (isinstance(s, NamedSharding) and s.mesh.empty):
        return None
    return out_sharding_param(s, where)


def permuted_spec(s, perm):
    """`s` (a NamedSharding) for the array whose dimension perm[i] is the result's dimension
    i (the result being `transpose(that, perm)`)."""
    parts = list(s.spec) + [None] * (len(perm) - len(s.spec))
    out = [None] * len(perm)
    for i, p in enumerate(perm):
        out[p] = parts[i]
    return s.with_spec(PartitionSpec(*out))


def _one(spec):
    return [tuple(spec)]


# -- elementwise -----------------------------------------------------------------------------


def broadcasting(name):
    """Elementwise n-ary operations (rank-0 operands broadcast): per dimension, the operands'
    common entry; a size-1 unsplit dimension yields to the others; two different axes raise."""
    def rule(outs, *avals, **params):
        ranked = [a for a in avals if a.shape]
        if not ranked:
            return [()] * len(outs)
        specs = [spec_parts(a) for a in ranked]
        out = []
        for i, ss in enumerate(zip(*specs)):
            if all(s == ss[0] for s in ss):
                out.append(ss[0])
                continue
            nontrivial = [s for s, a in zip(ss, ranked) if not (a.shape[i] == 1 and s is None)]
            if not nontrivial or all(s == nontrivial[0] for s in nontrivial):
                out.append(nontrivial[0] if nontrivial else None)
                continue
            picked = None
            for s in ss:
                if picked is None:
                    picked = s
                elif s is not None and s != picked:
                    raise ShardingTypeError(
                        f"{name} got incompatible shardings for broadcasting: "
                        f"{', '.join(str(tuple(p)) for p in specs)}.")
            out.append(picked)
        return [tuple(out)] * len(outs)
    return rule


def same_as_operand(outs, x, *rest, **params):
    """The result is laid out as the (first) operand: casts, cumulative ops, rev, sort..."""
    return [spec_parts(x) if o.shape == x.shape else (None,) * len(o.shape) for o in outs]


def given_sharding(outs, *xs, sharding=None, **params):
    """reshard / sharding_constraint / iota: the sharding they are given (else the operand's;
    iota's: replicated)."""
    if isinstance(sharding, NamedSharding):
        return [sharding]
    return [spec_parts(xs[0]) if xs else (None,) * len(outs[0].shape)]


# -- shapes --------------------------------------------------------------------------------------


def broadcast_in_dim_rule(outs, x, *dyn, shape, broadcast_dimensions, sharding=None, **params):
    if isinstance(sharding, NamedSharding):
        return [sharding]
    spec = [None] * len(shape)
    for src, (d, p) in enumerate(zip(broadcast_dimensions, spec_parts(x))):
        if x.shape[src] == shape[d]:
            spec[d] = p
    return _one(spec)


def transpose_rule(outs, x, *, permutation):
    parts = spec_parts(x)
    return _one(parts[i] for i in permutation)


def squeeze_rule(outs, x, *, dimensions):
    return _one(p for i, p in enumerate(spec_parts(x)) if i not in dimensions)


def reduce_axes_rule(outs, x, *, axes, out_sharding=None, **params):
    """Reductions over `axes`: those dimensions leave the result."""
    if isinstance(out_sharding, NamedSharding):
        return [out_sharding]
    spec = tuple(p for i, p in enumerate(spec_parts(x)) if i not in axes)
    return [spec] * len(outs)


def concatenate_rule(outs, *xs, dimension):
    return broadcasting("concatenate")(outs, *xs)


def _reshape_error(x, new_sizes):
    raise ShardingTypeError(
        f"This reshape is not supported. Please specify the sharding of the output via the "
        f"`out_sharding` argument of jax.lax.reshape. Got operand type: {x}, new sizes: "
        f"{tuple(new_sizes)}")


def _groups(old, new):
    """Split the two shapes into consecutive blocks of equal size: [(old dims, new dims)]."""
    out, i, j = [], 0, 0
    while i < len(old) or j < len(new):
        a, b = [i], [j]
        pa, pb = (old[i] if i < len(old) else 1), (new[j] if j < len(new) else 1)
        i, j = i + 1, j + 1
        while pa != pb:
            if pa < pb:
                pa *= old[i]
                a.append(i)
                i += 1
            else:
                pb *= new[j]
                b.append(j)
                j += 1
        out.append(([k for k in a if k < len(old)], [k for k in b if k < len(new)]))
    return out


def _split_axes(mesh, axes, sizes, x, new_sizes):
    """Hand the mesh `axes` (major first) to the dimensions `sizes` (major first) as JAX does:
    each dimension takes axes while its size stays divisible."""
    it = iter(axes)
    out = []
    for n in sizes:
        mine = []
        while n > 1:
            a = next(it, None)
            if a is None:
                break
            n, rem = divmod(n, mesh.shape[a])
            if rem:
                _reshape_error(x, new_sizes)
            mine.append(a)
        out.append(None if not mine else mine[0] if len(mine) == 1 else tuple(mine))
    if next(it, None) is not None:
        _reshape_error(x, new_sizes)
    return out


def reshape_rule(outs, x, *dyn, new_sizes, dimensions=None, sharding=None):
    if isinstance(sharding, NamedSharding):
        return [sharding]
    parts = spec_parts(x)
    if all(p is None for p in parts):
        return _one((None,) * len(new_sizes))
    if dimensions is not None:
        _reshape_error(x, new_sizes)
    old_core = [d for d in x.shape if d != 1]
    if old_core == [d for d in new_sizes if d != 1]:  # only size-1 dimensions come or go
        it = iter(p for d, p in zip(x.shape, parts) if d != 1)
        return _one(None if d == 1 else next(it) for d in new_sizes)
    mesh = x.sharding.mesh
    spec = [None] * len(new_sizes)
    for old, new in _groups(x.shape, new_sizes):
        old = [i for i in old if x.shape[i] != 1 or parts[i] is not None]
        new_core = [j for j in new if new_sizes[j] != 1]
        axes = []
        for i in old:
            p = parts[i]
            axes.extend(() if p is None else (p,) if isinstance(p, str) else p)
        if not axes:
            continue
        if len(old) == 1:  # one dimension split into several
            for j, p in zip(new_core, _split_axes(mesh, axes, [new_sizes[j] for j in new_core],
                                                  x, new_sizes)):
                spec[j] = p
        elif len(new_core) == 1:  # several merged into one: the split ones must lead
            flat = [parts[i] for i in old]
            while flat and flat[-1] is None:
                flat.pop()
            if None in flat:
                _reshape_error(x, new_sizes)
            spec[new_core[0]] = _split_axes(mesh, axes, [new_sizes[new_core[0]]], x,
                                            new_sizes)[0]
        else:
            _reshape_error(x, new_sizes)
    return _one(spec)


def keep_rank_rule(outs, x, *rest, **params):
    """slice, pad, dynamic_slice: each dimension keeps its entry (as JAX, for these shapes)."""
    return _one(spec_parts(x))


# -- contractions ---------------------------------------------------------------------------------


def dot_general_rule(outs, lhs, rhs, *, dimension_numbers, out_sharding=None, **params):
    if isinstance(out_sharding, NamedSharding):
        return [out_sharding]
    (lc, rc), (lb, rb) = dimension_numbers
    ls, rs = spec_parts(lhs), spec_parts(rhs)
    lcs, rcs = tuple(ls[i] for i in lc), tuple(rs[i] for i in rc)
    lbs, rbs = tuple(ls[i] for i in lb), tuple(rs[i] for i in rb)
    for l_, r_, msg in (
            (lbs, rbs, f"dot_general requires lhs batch dimensions and rhs batch dimensions to "
                       f"have the consistent sharding, got {lbs} and {rbs}."),
            (lcs, rcs, f"dot_general requires contracting dimensions to have consistent "
                       f"sharding, got {lcs} and {rcs}.")):
        for a, b in zip(l_, r_):
            if a is not None and b is not None and a != b:
                raise ShardingTypeError(msg)
    for a, b in zip(lcs, rcs):
        if a is not None and b is not None:
            raise ShardingTypeError(
                "Contracting dimensions are sharded and it is ambiguous how the output should be "
                "sharded. Please specify the output sharding via the `out_sharding` parameter. "
                f"Got lhs_contracting_spec={lcs} and rhs_contracting_spec={rcs}")
    lfree = tuple(p for i, p in enumerate(ls) if i not in lc and i not in lb)
    rfree = tuple(p for i, p in enumerate(rs) if i not in rc and i not in rb)
    return [lbs + lfree + rfree]


# -- indexing -------------------------------------------------------------------------------------


def gather_rule(outs, x, indices, *, dimension_numbers, slice_sizes, **params):
    """As JAX 0.10.2 resolves a gather's layout: the operand dimensions the indices slice into
    must be whole or unsplit, the indices' non-batching dimensions unsplit, and operand and
    indices batching dimensions agree; then the offset dimensions keep the operand's entry and
    the others take the indices'. Otherwise the layout is ambiguous: ShardingTypeError, asking
    for `.at[...].get(out_sharding=)`."""
    d = dimension_numbers
    xs, ids = spec_parts(x), list(spec_parts(indices))
    if all(p is None for p in xs) and all(p is None for p in ids):
        return _one((None,) * len(outs[0].shape))
    pairs = list(zip(d.operand_batching_dims, d.start_indices_batching_dims))
    if not (all(slice_sizes[i] == x.shape[i] or xs[i] is None for i in d.start_index_map)
            and all(xs[o] is None or ids[i] is None or xs[o] == ids[i] for o, i in pairs)
            and all(p is None for i, p in enumerate(ids)
                    if i not in d.start_indices_batching_dims)):
        raise ShardingTypeError(
            f"Use `.at[...].get(out_sharding=)` to provide output PartitionSpec for the gather "
            f"indexing as out sharding could not be resolved unambiguously (or would require "
            f"collectives on inputs). Got operand={x.str_short()}, indices={indices.str_short()}")
    for o, i in pairs:
        ids[i] = ids[i] if ids[i] is not None else xs[o]
    window = iter(i for i in range(x.ndim)
                  if i not in d.collapsed_slice_dims and i not in d.operand_batching_dims)
    batch = iter(ids)
    return _one(xs[next(window)] if k in d.offset_dims else next(batch)
                for k in range(len(outs[0].shape)))


def sort_rule(outs, *xs, dimension, **params):
    """sort: the operands unsplit along the sorted dimension and laid out alike (JAX's
    ShardingTypeErrors); the results as the operands."""
    sharded = [x for x in xs if getattr(x, "sharding", None) is not None]
    for x in sharded:
        if x.sharding.spec[dimension] is not None:
            raise ShardingTypeError(
                f"Arguments to sort must be unsharded over the sorting dimension. Got arg "
                f"sharding={x.sharding} and sorting dimension={dimension}")
        if x.sharding != sharded[0].sharding:
            raise ShardingTypeError("Arguments to sort must have equal shardings, got: "
                                    + " ".join(str(y.sharding) for y in sharded))
    return same_as_operand(outs, *xs)


def mesh_axis_sizes(mesh) -> dict:
    return dict(zip(mesh.axis_names, mesh.axis_sizes, strict=True))


def check_divisible(aval):
    """The layout of `aval` divides its shape (JAX checks it where types are made)."""
    s = aval.sharding
    if s is None:
        return
    sizes = mesh_axis_sizes(s.mesh)
    for i, (n, p) in enumerate(zip(aval.shape, s.spec)):
        if p is None:
            continue
        ways = math.prod(sizes[a] for a in ((p,) if isinstance(p, str) else p))
        if n % ways:
            raise ValueError(f"Sharding spec {p!r} implies that array axis {i} is partitioned "
                             f"{ways} times, but does not evenly divide the dimension size {n}. "
                             f"Got shape: {aval.shape} and sharding {s}")


