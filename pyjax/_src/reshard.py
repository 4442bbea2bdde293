"""Sharding in types at the API: `reshard` (lay a value out anew, its type saying so),
`auto_axes` and `explicit_axes` (run a function with some mesh axes of another type). All bind
`reshard_p` (lax/barriers.py); none compiles anything itself."""
from __future__ import annotations

import functools

from pyjax._src import core, tree_util
from pyjax._src import mesh as mesh_lib
from pyjax._src import sharding as sharding_lib
from pyjax._src.lax.barriers import reshard_p
from pyjax._src.numpy import indexing


def _reshard_target(s, x):
    if isinstance(s, sharding_lib.PartitionSpec):
        mesh = mesh_lib.get_mesh()
        if mesh is None:
            raise ValueError(f"Using PartitionSpec when you are not under a mesh context is not "
                             f"allowed. Please pass a NamedSharding instance or enter into a mesh "
                             f"context via `jax.set_mesh`. Got {s!r}")
        s = sharding_lib.NamedSharding(mesh, s)
    mesh = mesh_lib.get_mesh()
    if (isinstance(s, sharding_lib.NamedSharding) and isinstance(s.mesh, mesh_lib.AbstractMesh)
            and mesh is not None and mesh.shape_tuple == s.mesh.shape_tuple):
        # over the abstract form of the mesh in context (flax's): that mesh moves the data
        s = sharding_lib.NamedSharding(mesh.update_axis_types(s.mesh._name_to_type), s.spec,
                                       memory_kind=s.memory_kind)
    if not isinstance(s, sharding_lib.NamedSharding) or not isinstance(s.mesh, mesh_lib.Mesh):
        raise ValueError(f"Reshard should only be used with out_shardings which are non-None and "
                         f"have a non-empty mesh. Got sharding {s}.")
    am = mesh_lib.get_abstract_mesh()
    if am.axis_names == s.mesh.axis_names and am.axis_types != s.mesh.axis_types:
        # inside auto_axes/explicit_axes: the axis types traced under are the context's
        s = sharding_lib.NamedSharding(s.mesh.update_axis_types(am._name_to_type), s.spec)
    ndim = len(core.get_aval(x).shape)
    return s.with_spec(sharding_lib.PartitionSpec(*s.spec, *[None] * (ndim - len(s.spec))))


def reshard(xs, out_shardings):
    """`xs` (a pytree) laid out as `out_shardings` (NamedShardings, or PartitionSpecs over the
    mesh in context; one, or a pytree prefix of `xs`); under sharding in types the result's
    type says the new layout.

    >>> with jax.set_mesh(mesh):
    ...     y = jax.reshard(x, P(None, "x"))   # jax.typeof(y): float32[8,4@x]
    """
    leaves, tree = tree_util.tree_flatten(xs)
    one = isinstance(out_shardings, (sharding_lib.PartitionSpec, sharding_lib.NamedSharding))
    targets = [out_shardings] * len(leaves) if one else tree_util.flatten_prefix(
        out_shardings if not isinstance(out_shardings, list) else tuple(out_shardings), xs,
        "reshard out_shardings")
    outs = [reshard_p.bind(x, sharding=_reshard_target(s, x))
            for x, s in zip(leaves, targets, strict=True)]
    return tree_util.tree_unflatten(tree, outs)


def _new_mesh(axes, axis_type, name, shardings=None):
    """(the mesh traced under now, the same with `axes` of `axis_type`), or None without a mesh."""
    cur = mesh_lib.get_abstract_mesh()
    smesh = None
    for s in tree_util.tree_leaves(shardings):
        if isinstance(s, sharding_lib.NamedSharding):
            if smesh is not None and smesh != s.mesh.abstract_mesh:
                raise ValueError(f"Shardings passed to {name} should have the same mesh. Got one "
                                 f"mesh {smesh} and another {s.mesh}")
            smesh = s.mesh.abstract_mesh
    if smesh is None and cur.empty:
        return None
    if smesh is not None and not cur.empty and smesh.axis_names != cur.axis_names:
        raise ValueError(f"Context mesh {cur} must match the mesh passed to shardings {smesh}. "
                         f"Recommended approach is to use `jax.set_mesh` context manager.")
    base = cur if not cur.empty else smesh
    axes = base.axis_names if axes is None else (axes,) if isinstance(axes, str) else tuple(axes)
    for a in axes:
        if base._name_to_type[a] is mesh_lib.AxisType.Manual:
            raise NotImplementedError("Going from `Manual` AxisType to `Auto` or `Explicit` "
                                      "AxisType is not allowed.")
    return base, base.update_axis_types({a: axis_type for a in axes}), axes


def _spec_in(x, mesh):
    """x's spec with the axes that are not Explicit in `mesh` dropped."""
    s = core.get_aval(x).sharding
    if s is None:
        return sharding_lib.PartitionSpec()
    keep = set(mesh.explicit_axes)
    parts = []
    for p in s.spec:
        names = () if p is None else (p,) if isinstance(p, str) else p
        names = tuple(a for a in names if a in keep)
        parts.append(None if not names else names[0] if len(names) == 1 else names)
    return sharding_lib.PartitionSpec(*parts)


def _given_or_popped(value, kwargs, name):
    """The sharding given to auto_axes/explicit_axes, else the call's keyword `name`."""
    if value is not None:
        return value
    if name not in kwargs:
        raise TypeError(f"Missing required keyword argument: '{name}'")
    return kwargs.pop(name)


def auto_axes(f=None, /, *, axes=None, out_sharding=None):
    """`f` run with the mesh `axes` (default: all) of type Auto (XLA lays those out), its
    results resharded to `out_sharding` (here or a keyword of the call).

    >>> y = auto_axes(lambda v: v @ v.T, out_sharding=P("x", None))(x)
    """
    if f is None:
        return lambda g: auto_axes(g, axes=axes, out_sharding=out_sharding)

    @functools.wraps(f)
    def wrapped(*args, **kwargs):
        out_s = _given_or_popped(out_sharding, kwargs, "out_sharding")
        info = _new_mesh(axes, mesh_lib.AxisType.Auto, "auto_axes", out_s)
        if info is None:
            return f(*args, **kwargs)
        prev, new, names = info
        if set(prev.auto_axes) == set(names):
            return f(*args, **kwargs)
        with mesh_lib.use_abstract_mesh(new):
            args = reshard(args, tree_util.tree_map(lambda a: _spec_in(a, new), args))
            out = f(*args, **kwargs)
        return reshard(out, out_s)
    return wrapped


def explicit_axes(f=None, /, *, axes=None, in_sharding=None):
    """`f` run with the mesh `axes` (default: all) of type Explicit, its arguments resharded to
    `in_sharding` (here or a keyword of the call); its results go back to the context's types."""
    if f is None:
        return lambda g: explicit_axes(g, axes=axes, in_sharding=in_sharding)

    @functools.wraps(f)
    def wrapped(*args, **kwargs):
        in_s = _given_or_popped(in_sharding, kwargs, "in_sharding")
        info = _new_mesh(axes, mesh_lib.AxisType.Explicit, "explicit_axes")
        if info is None:
            raise ValueError("Context mesh cannot be empty. Please use `jax.set_mesh` API to "
                             "enter into a mesh context when using `explicit_axes` API.")
        prev, new, _ = info
        with mesh_lib.use_abstract_mesh(new):
            args = reshard(args, in_s)
            out = f(*args, **kwargs)
        return reshard(out, tree_util.tree_map(lambda o: _spec_in(o, prev), out))
    return wrapped


indexing.auto_axes_slot[:] = [auto_axes]  # (jnp's .at[...].get/set(out_sharding=): a layer below)
