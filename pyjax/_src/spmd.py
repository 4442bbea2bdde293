"""jit over a device mesh: which NamedSharding each argument and output of a jitted call gets.

`jit(f, in_shardings=..., out_shardings=...)` (or a call on arrays already laid out over a
mesh) compiles one SPMD executable for the mesh's devices: the module's arguments and results
carry sharding annotations (Shardy's `sdy.sharding` by default, as JAX 0.10.2; GSPMD's
`mhlo.sharding` with `jax_use_shardy_partitioner` off: lowering/sdy.py) and XLA's partitioner
splits the computation (`dispatch.lower`). This module turns the user's pytree prefixes of shardings into one
NamedSharding per flat argument (and per output, or None: XLA chooses).
"""
from __future__ import annotations

import contextvars

from pyjax._src import core, tree_util
from pyjax._src.array import ArrayImpl, ShapeDtypeStruct, named_sharding_for
from pyjax._src.layout import AutoLayout, Format, Layout, layout_mode
from pyjax._src.mesh import Mesh
from pyjax._src.sharding import (NamedSharding, PartitionSpec, Sharding, SingleDeviceSharding,
                                 xla_memory_kind)
from pyjax._src.sharding_gspmd import GSPMDSharding


def _is_spec(x):
    return x is None or isinstance(x, (Sharding, PartitionSpec, Format))


def split_formats(shardings):
    """jit's in/out_shardings with Formats in them: `(the shardings, with each Format replaced
    by its sharding; the device-local layouts prefix, or None when no Format is given)`."""
    if shardings is None:
        return None, None
    leaves, tree = tree_util.tree_flatten(shardings, is_leaf=_is_spec_or_layout)
    for e in leaves:
        if isinstance(e, (Layout, AutoLayout)):
            raise ValueError(f"`jax.jit` does not accept device-local layouts directly. Create a "
                             f"`Format` instance wrapping this device-local layout and pass that "
                             f"to `jit` instead. Got {e}")
    if not any(isinstance(e, Format) for e in leaves):
        return shardings, None
    return (tree_util.tree_unflatten(tree, [e.sharding if isinstance(e, Format) else e
                                            for e in leaves]),
            tree_util.tree_unflatten(tree, [e.layout if isinstance(e, Format) else None
                                            for e in leaves]))


def traced_layouts(in_layouts, out_layouts, args, leaves, closed, out_tree, name):
    """The layout modes of a jit lowered ahead of time: jit's Formats', else (arguments) the
    device-local layout a ShapeDtypeStruct's Format gives."""
    in_avals, out_avals = closed.in_avals, closed.out_avals
    ins = layout_modes(in_layouts, args, in_avals, "in_shardings", name)
    own = [layout_mode(x._layout, len(x.shape)) if type(x) is ShapeDtypeStruct else None
           for x in leaves]
    if any(m is not None for m in own):
        ins = tuple(m if m is not None else o
                    for m, o in zip(ins or (None,) * len(own), own, strict=True))
    if out_layouts is None:  # (the common case: nothing to spread over the outputs)
        return ins, None
    # the output tree rebuilt with a struct per leaf (a user's node may look at its leaves)
    full = tree_util.tree_unflatten(out_tree, [ShapeDtypeStruct(a.shape, a.dtype)
                                               for a in out_avals[:out_tree.num_leaves]])
    return ins, layout_modes(out_layouts, full, out_avals, "out_shardings", name)


def _is_spec_or_layout(x):
    return _is_spec(x) or isinstance(x, (Layout, AutoLayout))


def layout_modes(layouts, tree, avals, what, name):
    """One `mhlo.layout_mode` (or None) per aval from a prefix of layouts over `tree` (whose
    leaves are the first avals: keyword arguments follow, with none), or None when none is
    given."""
    if layouts is None:
        return None
    per_leaf = _per_leaf(layouts, tree, what, name)
    per_leaf += [None] * (len(avals) - len(per_leaf))
    modes = tuple(layout_mode(lay, len(a.shape)) for lay, a in zip(per_leaf, avals, strict=True))
    return modes if any(m is not None for m in modes) else None


def _per_leaf(prefix, tree, what, name):
    """One entry of `prefix` (a Sharding / PartitionSpec, None, or a pytree prefix of them)
    per leaf of `tree`."""
    if _is_spec(prefix):
        return [prefix] * len(tree_util.tree_leaves(tree))
    if isinstance(prefix, list):
        prefix = tuple(prefix)
    out = []
    pre_leaves, pre_tree = tree_util.tree_flatten(prefix, is_leaf=_is_spec)
    try:
        subtrees = pre_tree.flatten_up_to(tree)
    except (ValueError, TypeError) as e:
        raise ValueError(f"jit {name}: {what} must be a pytree prefix of the "
                         f"{'arguments' if what == 'in_shardings' else 'outputs'}: {e}") from None
    for p, sub in zip(pre_leaves, subtrees, strict=True):
        out.extend([p] * len(tree_util.tree_leaves(sub)))
    return out


# Primitives of higher layers whose equations run over a mesh they name in their own way:
# primitive name -> rule(eqn) -> Mesh or None (export's call of a module exported for several
# devices: the mesh in context).
eqn_mesh_rules: dict = {}


def constrained_mesh(jaxpr: core.Jaxpr):
    """The mesh a sharding constraint or shard_map in `jaxpr` (or a jaxpr inside it) lays a
    value out on, or None: a jit of such a function runs partitioned over that mesh."""
    for eqn in jaxpr.eqns:
        s = (eqn.params.get("sharding") if eqn.primitive.name in ("sharding_constraint", "reshard")
             else None)
        if isinstance(s, NamedSharding) and isinstance(s.mesh, Mesh):
            return s.mesh
        if eqn.primitive.name == "shard_map" and isinstance(eqn.params["mesh"], Mesh):
            return eqn.params["mesh"]  # its body runs per device of that mesh
        rule = eqn_mesh_rules.get(eqn.primitive.name)
        if rule is not None and rule(eqn) is not None:
            return rule(eqn)
        for v in eqn.params.values():
            for inner in (v if isinstance(v, (tuple, list)) else (v,)):  # (cond's branches)
                inner = inner.jaxpr if isinstance(inner, core.ClosedJaxpr) else inner
                if isinstance(inner, core.Jaxpr):
                    mesh = constrained_mesh(inner)
                    if mesh is not None:
                        return mesh
    return None


def shardings_for(in_shardings, out_shardings, dyn_args, dyn_kwargs, leaves, out_tree, name,
                  mesh=None):
    """`(in, out)`: a NamedSharding per flat argument (given, else the argument's own, else
    replicated) and per output (None: XLA decides), all over one mesh (`mesh` when nothing
    else names one)."""
    ins = _per_leaf(in_shardings, dyn_args, "in_shardings", name) if in_shardings is not None \
        else [None] * len(tree_util.tree_leaves(dyn_args))
    ins += [None] * (len(leaves) - len(ins))  # keyword arguments: their own layout
    ins = [_over_mesh(named_sharding_for(s, f"jit {name}")) for s in ins]
    outs = None
    if out_shardings is not None:
        full = tree_util.tree_unflatten(out_tree, [0] * out_tree.num_leaves)
        outs = [_over_mesh(named_sharding_for(s, f"jit {name}"))
                for s in _per_leaf(out_shardings, full, "out_shardings", name)]
    mesh = _common_mesh(ins, outs, leaves, name, mesh)
    for s, x in zip(ins, leaves, strict=True):
        if s is not None and type(x) is ArrayImpl and x._committed:
            _check_committed(s, x)
    ins = tuple(s if s is not None else _own(x, mesh) for s, x in zip(ins, leaves, strict=True))
    return ins, (tuple(outs) if outs is not None else None)


def _check_committed(given, x):
    """An argument committed to a layout other than the one jit's in_shardings give is JAX's
    ValueError (an uncommitted one is laid out anew)."""
    ndim = len(x.shape)
    mine, theirs = given._to_xla_hlo_sharding(ndim), x.sharding._to_xla_hlo_sharding(ndim)
    replicated = [h.is_replicated() or h.num_devices() == 1 for h in (mine, theirs)]
    if mine != theirs and not all(replicated):
        raise ValueError(f"Sharding passed to jit does not match the sharding on the respective "
                         f"arg. Got jit sharding: {given},\narg sharding: {x.sharding} for arg "
                         f"type: {x.aval.str_short()}")


def single_device(in_shardings, out_shardings, dyn_args, leaves, out_tree, name):
    """The device of a jit whose given shardings are all SingleDeviceShardings in the device's
    default memory (and whose arguments are not laid out over several devices): it runs there,
    as a jit on committed arguments does. None otherwise (a mesh, or nothing, says where)."""
    given = []
    if in_shardings is not None:
        given += _per_leaf(in_shardings, dyn_args, "in_shardings", name)
    if out_shardings is not None:
        full = tree_util.tree_unflatten(out_tree, [0] * out_tree.num_leaves)
        given += _per_leaf(out_shardings, full, "out_shardings", name)
    given = [s for s in given if s is not None]
    if not given or not all(type(s) is SingleDeviceSharding and xla_memory_kind(
            s.memory_kind, s._device) is None for s in given):
        return None
    if any(type(x) is ArrayImpl and len(x.sharding.device_set) > 1 for x in leaves):
        return None
    devices = {s._device for s in given}
    if len(devices) > 1:
        raise ValueError(f"Received incompatible devices for jitted computation {name}: "
                         f"{', '.join(sorted(repr(s) for s in set(given)))}")
    return devices.pop()


def out_shardings_from_types(ins, out_avals):
    """Under sharding in types: each output laid out as its type says (over the arguments'
    mesh), or None when no output type carries a sharding (XLA decides). On a mesh that also
    has Auto axes the type says only how the Explicit axes split the output (the body's
    constraints pin that): XLA chooses the rest, as in JAX."""
    if not ins or not any(getattr(a, "sharding", None) is not None for a in out_avals):
        return None
    mesh = ins[0].mesh
    return tuple(None if getattr(a, "sharding", None) is None or _typed_as(mesh, a.sharding.mesh)
                 is None or a.sharding.mesh.auto_axes else NamedSharding(_typed_as(mesh, a.sharding.mesh), a.sharding.spec,
                                            memory_kind=_memory_kind(a))
                 for a in out_avals)


def _memory_kind(aval):
    """The memory kind of a value typed in host memory (None: the default memory)."""
    space = getattr(aval, "memory_space", core.MemorySpace.Device)
    return core.mem_space_to_kind(space) if space is core.MemorySpace.Host else None


def _typed_as(mesh, typed):
    """`mesh` with the axis types of the mesh an output's type names (the arguments' mesh may
    have other types: inside auto_axes, a reshard before the first output's); a type over
    other axes of as many devices (an exported function's results, typed over the mesh it was
    exported for) gets a mesh of those axes over the same devices, as in JAX; None when it
    has another number of devices (the lowering says why)."""
    names = getattr(typed, "axis_names", None)
    if isinstance(mesh, Mesh) and names is not None and names != mesh.axis_names:
        if typed.size != mesh.size:
            return None
        return Mesh(mesh.devices.reshape(typed.axis_sizes), names, axis_types=typed.axis_types)
    if (isinstance(mesh, Mesh) and getattr(typed, "axis_names", None) == mesh.axis_names
            and typed.axis_types != mesh.axis_types):
        return mesh.update_axis_types(dict(zip(typed.axis_names, typed.axis_types)))
    return mesh


def _over_mesh(s):
    """A GSPMDSharding as the NamedSharding of the same layout jit compiles with (NB: the
    outputs then report that NamedSharding, where JAX reports a GSPMDSharding)."""
    return s.as_named() if isinstance(s, GSPMDSharding) else s


def leaf_sharding(x):
    """The NamedSharding over a concrete mesh an argument brings (an array laid out over a
    mesh, or a ShapeDtypeStruct given one, as JAX's AOT lowering reads it), else None."""
    if type(x) is ArrayImpl:
        return _over_mesh(x._named_sharding)
    if type(x) is ShapeDtypeStruct:
        s = x.sharding
        if isinstance(s, NamedSharding) and isinstance(s.mesh, Mesh):
            return s
    return None


def _own(x, mesh):
    s = leaf_sharding(x)
    return s if s is not None else NamedSharding(mesh, PartitionSpec())


def _common_mesh(ins, outs, leaves, name, default=None):
    found = [s for s in ins + (outs or []) if isinstance(s, NamedSharding)]
    found += [s for s in map(leaf_sharding, leaves) if s is not None]
    for s in found:
        if not isinstance(s, NamedSharding):
            raise NotImplementedError(f"jit {name}: {type(s).__name__} shardings are not "
                                      f"supported with several devices yet")
    if not found and default is not None:
        return default
    if not found:
        raise ValueError(f"jit {name}: shardings given but none names a mesh")
    mesh = found[0].mesh
    devices = tuple(mesh.devices.flat)
    for s in found[1:]:
        if tuple(s.mesh.devices.flat) != devices:
            raise ValueError(f"Received incompatible devices for jitted computation {name}: "
                             f"{s!r} and {found[0]!r} use different meshes")
    return mesh


# What the module being lowered runs on, `(devices, mesh or None)` (set by `dispatch.lower`):
# rules that need it at lowering time (inspect_array_sharding) read it here.
lowering_target = contextvars.ContextVar("lowering_target", default=((), None))


def request_mesh(in_shardings, out_shardings):
    """The mesh of an SPMD compile's shardings, or None (not partitioned over a mesh)."""
    found = [s for s in (in_shardings or ()) + tuple(out_shardings or ()) if s is not None]
    return found[0].mesh if found else None


def mesh_devices(in_shardings, out_shardings, mesh=None) -> tuple:
    """The device assignment of an SPMD compile: the mesh's devices in flat order (the mesh
    of the first sharding given, else `mesh`: a function of no arguments whose outputs XLA
    lays out)."""
    found = [s for s in (in_shardings or ()) + tuple(out_shardings or ()) if s is not None]
    return tuple((found[0].mesh if found else mesh).devices.flat)


def eager_in_shardings(args, name) -> tuple:
    """For an eager op on arrays laid out over a mesh: each operand's own NamedSharding
    (replicated for the others)."""
    mesh = _common_mesh([], None, args, name)
    return tuple(_own(x, mesh) for x in args)
