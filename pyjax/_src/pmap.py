"""pmap: map a function over a leading axis, one slice per device, with a named axis for
collectives.

As in JAX 0.10.2, pmap is shard_map over a 1-D mesh of the devices: each mapped argument is
split along its mapped axis (one slice per device), the function runs on each slice, on its own
device, with the axis bound (`lax.psum(x, axis_name)`... are XLA collectives between the
devices), and mapped outputs are stacked back along `out_axes` and returned laid out over the
devices (slice i on device i). The whole map is jitted (one partitioned executable per
signature); donated arguments' buffers are given to it.
"""
from __future__ import annotations

import functools
import weakref

import numpy as np

from pyjax._src import core, tree_util
from pyjax._src.backend import xla
from pyjax._src.lax import shape_ops
from pyjax._src.mesh import Mesh
from pyjax._src.pjit import jit
from pyjax._src.shard_map import lay_out, shard_map
from pyjax._src.array import put_named
from pyjax._src.sharding import NamedSharding, PartitionSpec
from pyjax._src.traceback_util import api_boundary

_DEFAULT_AXIS = "_internal_pmap_axis_name"  # a pmap given no axis_name (as JAX names it)


def pmap(fun, axis_name=None, *, in_axes=0, out_axes=0, static_broadcasted_argnums=(),
         devices=None, backend=None, axis_size=None, donate_argnums=()):
    """Map `fun` over axis `in_axes` of its arguments, one slice per device.

    Example:
        >>> pmap(lambda x: x / lax.psum(x, "i"), axis_name="i")(jnp.arange(1.0, 5.0))

    `donate_argnums` donates those (non-static) arguments' buffers to the computation, as jit
    does. NB: `axis_size` and `backend` are checked against the arguments and devices only.
    """
    if not callable(fun):
        raise TypeError(f"pmap requires a callable, got {fun!r}")
    static = ((static_broadcasted_argnums,) if isinstance(static_broadcasted_argnums, int)
              else tuple(static_broadcasted_argnums))
    name = axis_name if axis_name is not None else _DEFAULT_AXIS
    in_axes = tuple(in_axes) if isinstance(in_axes, list) else in_axes
    for what, spec in (("in_axes", in_axes), ("out_axes", out_axes)):  # (JAX's check and words)
        if not all(a is None or (isinstance(a, int) and not isinstance(a, bool))
                   for a in tree_util.tree_leaves(spec, is_leaf=lambda a: a is None)):
            raise TypeError(f"pmap {what} must be an int, None, or (nested) container with those "
                            f"types as leaves, but got {spec}.")
    chosen = list(devices) if devices is not None else None
    donate = (donate_argnums,) if isinstance(donate_argnums, int) else tuple(donate_argnums)
    if set(donate) & set(static):
        raise ValueError(f"pmap: donate_argnums {donate} and static_broadcasted_argnums "
                         f"{static} must not overlap")
    jitted = _map_jit(fun, name, in_axes, out_axes, static, chosen, donate)

    @functools.wraps(fun)
    @api_boundary
    def pmapped(*args, **kwargs):
        dyn = [a for i, a in enumerate(args) if i not in static]
        n = _mapped_size(in_axes, dyn, kwargs, axis_size)
        mesh = _mesh(chosen, n, name)
        args, kwargs = _place_host_args(in_axes, static, args, kwargs, mesh)
        out = jitted(n, *args, **kwargs)
        return _place(out, out_axes, mesh)

    def lower(*args, **kwargs):
        """Ahead-of-time lowering for these arguments, as JAX's `pmap(f).lower(...)`: the
        `Lowered` of the map's jit; its `compile()` is called with the non-static arguments.
        NB: the compiled map's outputs are laid out as the partitioned executable leaves them."""
        dyn = [a for i, a in enumerate(args) if i not in static]
        n = _mapped_size(in_axes, dyn, kwargs, axis_size)
        args, kwargs = _place_host_args(in_axes, static, args, kwargs, _mesh(chosen, n, name))
        lower.fun = fun  # (the shared jit holds fun weakly: a lowering outlives its pmap)
        return jitted.lower(n, *args, **kwargs)
    pmapped.lower = lower
    return pmapped


# fun -> {configuration: the jit of its map}: every pmap of a function with the same
# configuration shares one jit, so its traces and executables (JAX's pmap cache is global too)
_map_jits: "weakref.WeakKeyDictionary" = weakref.WeakKeyDictionary()


def _map_jit(fun, name, in_axes, out_axes, static, chosen, donate):
    """The jit of `fun`'s map, shared by the pmaps of `fun` with this configuration."""
    key = (name, in_axes, out_axes, static, None if chosen is None else tuple(chosen), donate)
    try:
        per_fun = _map_jits.setdefault(fun, {})
        hit = per_fun.get(key)
        fun_ref = weakref.ref(fun)  # (the cache must not keep fun alive)
    except TypeError:  # not weakly referenceable, or an unhashable in_axes/out_axes
        per_fun, hit, fun_ref = None, None, lambda: fun
    if hit is None:
        def mapped(n, *args, **kwargs):
            return _pmap_body(fun_ref(), name, in_axes, out_axes, static, chosen, n, args, kwargs)
        hit = jit(mapped, static_argnums=(0, *[i + 1 for i in static]),
                  donate_argnums=tuple(i + 1 for i in donate))
        if per_fun is not None:
            per_fun[key] = hit
    return hit


def _mesh(devices, n, name):
    devs = devices if devices is not None else xla.devices()
    if n > len(devs):
        raise ValueError(f"pmap: compiling a computation that requires {n} logical devices, but "
                         f"only {len(devs)} XLA devices are available (the mapped axis has size "
                         f"{n})")
    arr = np.empty(n, dtype=object)
    arr[:] = devs[:n]
    return Mesh(arr, (name,))


def _place_host_args(in_axes, static, args, kwargs, mesh):
    """Mapped NumPy arguments sent straight to the devices, slice i to device i (not the whole
    array to every device)."""
    dyn = [a for i, a in enumerate(args) if i not in static]
    leaves, tree, axes = _flat_in_axes(in_axes, dyn, kwargs)
    if not any(type(x) is np.ndarray for x in leaves):
        return args, kwargs
    name = mesh.axis_names[0]
    leaves = [put_named(x, NamedSharding(mesh, PartitionSpec(*[None] * (a % x.ndim), name)))
              if type(x) is np.ndarray and a is not None else x
              for x, a in zip(leaves, axes, strict=True)]
    d_args, d_kwargs = tree_util.tree_unflatten(tree, leaves)
    it = iter(d_args)
    return tuple(args[i] if i in static else next(it) for i in range(len(args))), d_kwargs


def _flat_in_axes(in_axes, dyn, kwargs):
    leaves, tree = tree_util.tree_flatten((tuple(dyn), kwargs))
    if isinstance(in_axes, tuple) and len(in_axes) != len(dyn):
        raise ValueError(f"pmap in_axes must be an int, None, or a tuple of entries for the "
                         f"{len(dyn)} positional arguments, got {in_axes}")
    axes = tree_util.flatten_prefix((in_axes, 0), (tuple(dyn), kwargs), "pmap in_axes")
    return leaves, tree, axes


def _mapped_size(in_axes, dyn, kwargs, axis_size):
    leaves, _, axes = _flat_in_axes(in_axes, dyn, kwargs)
    sizes = set()
    for i, (x, a) in enumerate(zip(leaves, axes, strict=True)):
        if a is None:
            continue
        shape = np.shape(x)
        if not -len(shape) <= a < len(shape):
            raise ValueError(f"pmap got argument {i} of rank {len(shape)} (shape {shape}), "
                             f"which has no axis {a} to map over (in_axes)")
        sizes.add(shape[a])
    if len(sizes) > 1:
        raise ValueError(f"pmap got inconsistent sizes for the mapped axis: {sorted(sizes)}")
    if not sizes:
        if axis_size is None:
            raise ValueError("pmap requires at least one argument with a mapped axis "
                             "(or axis_size)")
        return int(axis_size)
    return sizes.pop()


def _pmap_body(fun, name, in_axes, out_axes, static, devices, n, args, kwargs):
    """Traced under jit: the map as a shard_map over the 1-D mesh of `n` devices."""
    mesh = _mesh(devices, n, name)
    dyn = [a for i, a in enumerate(args) if i not in static]
    leaves, tree, axes = _flat_in_axes(in_axes, dyn, kwargs)
    moved = [_moveaxis(x, a, 0) if a is not None else x
             for x, a in zip(leaves, axes, strict=True)]
    specs = tuple(PartitionSpec(name) if a is not None else PartitionSpec() for a in axes)

    def body(*blocks):
        xs = [shape_ops.squeeze(b, (0,)) if a is not None else b
              for b, a in zip(blocks, axes, strict=True)]
        d_args, d_kwargs = tree_util.tree_unflatten(tree, xs)
        it = iter(d_args)
        full = [args[i] if i in static else next(it) for i in range(len(args))]
        out = fun(*full, **d_kwargs)
        return tree_util.tree_map(lambda o, a: o if a is None else shape_ops.expand_dims(o, (0,)),
                                  out, _out_axes_tree(out_axes, out))

    out_specs = tree_util.tree_map(lambda a: PartitionSpec() if a is None else PartitionSpec(name),
                                   _as_tuple(out_axes), is_leaf=lambda a: a is None)
    # as JAX 0.10.2: no replication check (an out_axes=None output is one device's value)
    out = shard_map(body, mesh=mesh, in_specs=specs, out_specs=out_specs,
                    check_vma=False)(*moved)
    return tree_util.tree_map(lambda o, a: o if a is None else _moveaxis(o, 0, a),
                              out, _out_axes_tree(out_axes, out))


def _moveaxis(x, src, dst):
    nd = core.get_aval(x).ndim
    src = src % nd
    if src == dst:
        return x
    perm = [i for i in range(nd) if i != src]
    perm.insert(dst, src)
    return shape_ops.transpose(x, tuple(perm))


def _as_tuple(x):
    return tuple(x) if isinstance(x, list) else x


def _out_axes_tree(out_axes, out):
    """`out_axes` broadcast to the structure of `out` (one entry per leaf, canonical ints)."""
    flat = tree_util.flatten_prefix(_as_tuple(out_axes), out, "pmap out_axes")
    leaves, tree = tree_util.tree_flatten(out)
    flat = [a if a is None else a % (core.get_aval(o).ndim + 1) for a, o in zip(flat, leaves, strict=True)]
    return tree_util.tree_unflatten(tree, flat)


def _place(out, out_axes, mesh):
    """Mapped outputs laid out over the devices (slice i on device i), unmapped ones replicated."""
    name = mesh.axis_names[0]

    def place(o, a):
        spec = PartitionSpec() if a is None else PartitionSpec(*([None] * a), name)
        return lay_out(o, mesh, spec)
    return tree_util.tree_map(place, out, _out_axes_tree(out_axes, out))
