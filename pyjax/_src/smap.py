"""smap: `shard_map` over one mesh axis with vmap-style `in_axes` / `out_axes`, and the
deprecated `jax.experimental.shard_map.shard_map` signature (`legacy_shard_map`)."""
from __future__ import annotations

import functools

import numpy as np

from pyjax._src import core, tree_util
from pyjax._src.array import ArrayImpl
from pyjax._src.mesh import AbstractMesh, AxisType, Mesh, get_mesh
from pyjax._src.shard_map import Infer, _as_tuple, _enclosing_mesh, lay_out, shard_map
from pyjax._src.sharding import PartitionSpec
from pyjax._src.traceback_util import api_boundary


def smap(f=None, /, *, in_axes=Infer, out_axes, axis_name):
    """shard_map over the one mesh axis `axis_name` of the mesh in context (`set_mesh`), with
    vmap-style `in_axes` / `out_axes`: which dimension of each argument / output that axis
    splits (None: not split). `f` gets each device's shard, the mapped dimension kept.

    Example:
        >>> with pyjax.set_mesh(pyjax.make_mesh((8,), ("i",))):
        ...     y = smap(lambda b: b - lax.pmean(b, "i"), in_axes=0, out_axes=0, axis_name="i")(x)

    The other mesh axes stay automatic (XLA may split the body's work along them), as in JAX;
    an smap nested in one over another axis maps that axis too. `in_axes=Infer` reads the
    dimension from the arguments' NamedShardings.
    """
    if f is None:
        return functools.partial(smap, in_axes=in_axes, out_axes=out_axes, axis_name=axis_name)
    if not callable(f):
        raise TypeError(f"smap requires a callable, got {f!r}")

    def spec(axis, ndim):
        if axis is None:
            return PartitionSpec()
        if not -max(ndim, 1) <= axis < max(ndim, 1):
            raise ValueError(f"smap: axis {axis} is out of range for a value of rank {ndim}")
        return PartitionSpec(*[None] * (axis % ndim), axis_name)

    def _out_spec(a):
        if a is not None and a < 0:
            raise NotImplementedError(f"smap: negative out_axes ({a}) are not supported yet")
        return spec(a, a + 1 if a is not None else 0)

    @functools.wraps(f)
    @api_boundary
    def mapped(*args):
        mesh = _enclosing_mesh() or get_mesh()
        if not isinstance(mesh, (Mesh, AbstractMesh)) or axis_name not in mesh.axis_names:
            raise ValueError(f"smap: axis_name {axis_name!r} must be an axis of the mesh in "
                             f"context (pyjax.set_mesh(mesh)), got {mesh!r}")
        leaves, tree = tree_util.tree_flatten(args)
        if in_axes is Infer:
            kind = mesh._name_to_type[axis_name]
            if kind is not AxisType.Explicit:
                raise TypeError(f"in_axes was not specified when axis_name="
                                f"{frozenset({axis_name})} was of type {kind}")
            axes = [_sharded_dim(x, axis_name) for x in leaves]
        else:
            axes = tree_util.flatten_prefix(
                tuple(in_axes) if isinstance(in_axes, list) else in_axes, args, "smap in_axes")
        in_specs = tree_util.tree_unflatten(tree, [spec(a, np.ndim(x))
                                                   for a, x in zip(axes, leaves, strict=True)])
        out_specs = tree_util.tree_map(_out_spec, _as_tuple(out_axes),
                                       is_leaf=lambda a: a is None)
        out = shard_map(f, in_specs=in_specs, out_specs=out_specs,  # (the mesh in context)
                        axis_names=frozenset({axis_name}))(*args)
        return tree_util.tree_map(_full_rank, out)
    return mapped


def legacy_shard_map(f, mesh, in_specs, out_specs, check_rep=True):
    """`jax.experimental.shard_map.shard_map` (deprecated in JAX): `shard_map` with the mesh
    and specs positional and `check_rep` for `check_vma`."""
    return shard_map(f, mesh=mesh, in_specs=in_specs, out_specs=out_specs, check_vma=check_rep)


def _full_rank(o):
    """smap's eager results over an Explicit mesh report their spec at full rank (as JAX)."""
    s = o._named_sharding if type(o) is ArrayImpl else None
    if s is None or not s.mesh.axis_types or any(t is not AxisType.Explicit for t in s.mesh.axis_types):
        return o
    return lay_out(o, s.mesh, PartitionSpec(*s.spec, *[None] * (o.ndim - len(s.spec))))


def _sharded_dim(x, axis_name):
    s = (getattr(x.aval, "sharding", None) if isinstance(x, core.Tracer)  # (its type's)
         else getattr(x, "_named_sharding", None))
    if s is None:
        return None
    for d, p in enumerate(s.spec._normalized(len(s.spec))):
        if axis_name in p:
            return d
    return None
