"""Exported functions laid out over several devices.

JAX 0.10.2's format carries one NamedSharding (or None: unspecified) per argument and result,
over an abstract mesh (axis names, sizes and types, and the kind of device), and the module is
partitioned with Shardy: it declares its meshes (`sdy.mesh @mesh = <["x"=8]>`) and its
functions name them in `#sdy.sharding<@mesh, ...>` attributes and sharding constraints.

Calling such a module (as JAX does): the caller's module must be partitioned with Shardy over
as many devices as the module was exported for; the arguments are constrained to the exported
in-shardings, the module's functions are placed in the caller's module with their meshes
renamed to the caller's declarations of the same axes (`lowering/sdy.py`), and the results
constrained to the exported out-shardings. The mesh's devices are the caller's: an exported
mesh names no devices.

Exporting: a jitted function with shardings over a mesh is lowered for the mesh's device count
with Shardy's annotations, and its shardings are written over the mesh's abstract mesh.
"""
from __future__ import annotations

import math
import re

from pyjax._src import spmd, tree_util
from pyjax._src.array import ArrayImpl
from pyjax._src.backend import xla
from pyjax._src.lowering import sdy
from pyjax._src.mesh import AbstractDevice, AbstractMesh, AxisType
from pyjax._src.sharding import NamedSharding, PartitionSpec

_AXIS_TYPES = {"Auto": AxisType.Auto, "Explicit": AxisType.Explicit, "Manual": AxisType.Manual}


# -- shardings: JAX's format (flatbuf's plain data) <-> NamedSharding over an AbstractMesh --------


def named_from_data(d) -> NamedSharding | None:
    """The NamedSharding (over an AbstractMesh) of a sharding as `flatbuf.decode` gives it."""
    if d is None:
        return None
    if "hlo_sharding_proto" in d:  # (exports before 1/2026 carried an HloSharding proto only)
        raise NotImplementedError("pyjax.export: blobs whose shardings are HloSharding protos "
                                  "(serialized by JAX before 1/2026) are not supported")
    m = d["mesh"]
    dev = m.get("device")
    mesh = AbstractMesh(tuple(m["axis_sizes"]), tuple(m["axis_names"]),
                        tuple(_AXIS_TYPES[t] for t in m["axis_types"]),
                        abstract_device=None if dev is None else AbstractDevice(
                            dev["device_kind"], dev["num_cores"], dev["platform"]))
    spec = PartitionSpec(*d["spec"], unreduced=frozenset(d["unreduced"]),
                         reduced=frozenset(d["reduced"]))
    return NamedSharding(mesh, spec, memory_kind=d["memory_kind"])


def data_from_named(s: NamedSharding | None):
    """A NamedSharding (over a Mesh or an AbstractMesh) as `flatbuf.encode` writes it: the
    spec as given, the mesh abstract (its device kind and platform kept)."""
    if s is None:
        return None
    mesh = s.mesh
    device = getattr(mesh.abstract_mesh, "abstract_device", None)
    if device is None and getattr(mesh, "devices", None) is not None and mesh.devices.size:
        d0 = mesh.devices.flat[0]
        device = AbstractDevice(d0.device_kind, None, d0.platform)
    return {
        "mesh": {"axis_sizes": list(mesh.axis_sizes), "axis_names": list(mesh.axis_names),
                 "axis_types": [t.name for t in mesh.axis_types],
                 "device": None if device is None else {
                     "device_kind": device.device_kind, "num_cores": device.num_cores,
                     "platform": device.platform}},
        "spec": tuple(None if p is PartitionSpec.UNCONSTRAINED else p for p in s.spec),
        "reduced": sorted(getattr(s.spec, "reduced", ()) or ()),
        "unreduced": sorted(getattr(s.spec, "unreduced", ()) or ()),
        "memory_kind": s.memory_kind or "device",
    }


def hlo_shardings(named, avals) -> tuple:
    """`in_shardings_hlo`/`out_shardings_hlo`: the HloSharding of each NamedSharding at its
    aval's rank (None stays None), in XLA's iota form as JAX's print (`{devices=[8,1]<=[8]}`)."""
    return tuple(None if s is None else _iota_hlo(s, a.ndim)
                 for s, a in zip(named, avals, strict=True))


def _iota_hlo(s: NamedSharding, ndim):
    """The HloSharding of `s` over the mesh's devices in flat order: the mesh's device ids
    reshaped to its axes, transposed to [axes of dim 0, ..., unused axes] and tiled (the same
    sharding as `NamedSharding._to_hlo`, spelled as an iota tile assignment)."""
    names, sizes = s.mesh.axis_names, s.mesh.axis_sizes
    parts = s.spec._normalized(ndim)
    used = [a for p in parts for a in p]
    rest = [a for a in names if a not in used and sizes[names.index(a)] > 1]
    size = dict(zip(names, sizes, strict=True))
    tiles = [math.prod(size[a] for a in p) for p in parts]
    replicated = math.prod(size[a] for a in rest)
    if math.prod(tiles) == 1:
        return xla.HloSharding.replicate()
    keep = [a for a in names if size[a] > 1]
    perm = [keep.index(a) for a in used + rest if size[a] > 1]
    dims = ",".join(map(str, tiles + ([replicated] if replicated > 1 else [])))
    if perm == sorted(perm):  # (no transpose: the ids in order)
        iota = f"<=[{math.prod(tiles) * replicated}]"
    else:
        iota = f"<=[{','.join(str(size[a]) for a in keep)}]T({','.join(map(str, perm))})"
    text = (f"{{devices=[{dims}]{iota}"
            f"{' last_tile_dim_replicate' if replicated > 1 else ''}}}")
    return xla.HloSharding.from_string(text)


def shardings_on(named, mesh) -> tuple:
    """`in_shardings_jax(mesh)`: the exported shardings over `mesh` (a Mesh or AbstractMesh of
    the same axes), as JAX; ValueError when its axes differ."""
    out = []
    for s in named:
        if s is None:
            out.append(None)
            continue
        m = s.mesh
        if (mesh.abstract_mesh.axis_sizes != m.axis_sizes or mesh.abstract_mesh.axis_names
                != m.axis_names or mesh.abstract_mesh.axis_types != m.axis_types):
            raise ValueError(f"NamedSharding new mesh {mesh} does not match the mesh used for "
                             f"export {m}.")
        out.append(NamedSharding(mesh, s.spec, memory_kind=s.memory_kind))
    return tuple(out)


# -- the module's meshes ---------------------------------------------------------------------------

_MESH_RE = re.compile(r'^\s*sdy\.mesh\s+@([\w$.\-]+)\s*=\s*<\[(.*?)\](?:,\s*device_ids=\[([\d,\s]*)\])?>',
                      re.MULTILINE)


def module_meshes(text) -> dict:
    """The `sdy.mesh` declarations of a module's text: name -> (axis names, axis sizes,
    device ids or None)."""
    out = {}
    for m in _MESH_RE.finditer(text):
        axes = re.findall(r'"([^"]*)"\s*=\s*(\d+)', m.group(2))
        ids = tuple(int(i) for i in m.group(3).split(",")) if m.group(3) else None
        out[m.group(1)] = (tuple(a for a, _ in axes), tuple(int(s) for _, s in axes), ids)
    return out


_GENERIC_MESH_RE = re.compile(r'^\s*"sdy\.mesh"\(\).*$', re.MULTILINE)


def mesh_declarations(text) -> list[str]:
    """The lines of a module's text that declare its meshes (to keep them in a module made from
    its functions): as MLIR prints them, or in the generic form pyjax's emitter writes."""
    return ([m.group(0).rstrip() + _rest_of_line(text, m.end()) for m in _MESH_RE.finditer(text)]
            + [m.group(0) for m in _GENERIC_MESH_RE.finditer(text)])


def _rest_of_line(text, pos):
    end = text.find("\n", pos)
    return text[pos:] if end < 0 else text[pos:end]


def rename_meshes(functions, meshes, module) -> list[tuple[str, str]]:
    """The functions (name, text) with each mesh of `meshes` (`module_meshes`) renamed to the
    calling `module`'s declaration of the same axes (made on first use)."""
    if not meshes:
        return functions
    to = {name: sdy.mesh_symbol(module, names, sizes, ids) for name, (names, sizes, ids)
          in meshes.items()}
    if all(k == v for k, v in to.items()):
        return functions
    pattern = re.compile(r"@(" + "|".join(re.escape(n) for n in sorted(to, key=len, reverse=True))
                         + r")(?![\w$.\-])")
    return [(name, pattern.sub(lambda m: "@" + to[m.group(1)], text)) for name, text in functions]


# -- calling -----------------------------------------------------------------------------------


def check_calling_context(ctx, exported, has_meshes: bool):
    """JAX's errors for a call whose module cannot be partitioned as exported: a Shardy module
    called with Shardy off, or a module exported for N devices called over M != N devices."""
    module = ctx.module
    if has_meshes and module.partitioned and not module.shardy:
        raise ValueError("The function was exported with shardy enabled but you are calling it "
                         "with Shardy disabled. Please enable Shardy using "
                         "`--jax_use_shardy_partitioner=True`.")
    devices, mesh = spmd.lowering_target.get()  # (an AbstractMesh has no devices: its size)
    num_devices = (len(devices) or (mesh.size if mesh is not None else 1)) if module.partitioned else 1
    if exported.nr_devices != 1 and num_devices != exported.nr_devices:
        raise ValueError(f"Function {exported.fun_name} was exported for {exported.nr_devices} "
                         f"devices and is called in a context with {num_devices} devices, "
                         "which is not allowed.")


def constrain_all(ctx, values, shardings, avals) -> list:
    """`values` constrained to the exported `shardings` (None: left as they are)."""
    if not ctx.module.partitioned:
        return list(values)
    return [x if s is None else sdy.constrain(ctx, x, s, a)
            for x, s, a in zip(values, shardings, avals, strict=True)]


# -- exporting ---------------------------------------------------------------------------------


def export_shardings(info, traced, args, kwargs):
    """`(ins, outs, mesh)` for exporting a traced jit: the NamedSharding of each flat argument and
    result (None: unspecified) over `mesh`, the concrete mesh they name (None: the function runs
    on one device, every sharding None). The jit's own shardings, else those of the argument
    specs (`ShapeDtypeStruct(..., sharding=)`); under sharding in types, an unspecified result
    is laid out as its type says."""
    n_in, n_out = len(traced.jaxpr.in_avals), len(traced.jaxpr.out_avals)
    if info.static_argnums or info.static_argnames:
        args, kwargs, _ = info._split_static(args, kwargs)
    leaves = tree_util.tree_leaves((args, kwargs))
    mesh = None
    if traced.shardings is not None:
        ins, outs = traced.shardings
        # (the mesh the jit runs over: also that of a shard_map or sharding constraint inside)
        mesh = spmd.request_mesh(ins, outs)
        # given for an argument (not None in the jit's in_shardings), or its own layout
        given = ([None] * len(leaves) if info.in_shardings is None else
                 spmd._per_leaf(info.in_shardings, args, "in_shardings", traced.name))
        given += [None] * (len(leaves) - len(given))  # (keyword arguments: their own layout)
        ins = tuple(s if g is not None or _placed(x) else None
                    for s, g, x in zip(ins, given, leaves, strict=True))
    else:
        ins = tuple(_placed(x) for x in leaves)
        outs = None
    named = [s for s in (*ins, *(outs or ())) if s is not None]
    if not named and mesh is None:
        return (None,) * n_in, (None,) * n_out, None
    mesh = mesh or named[0].mesh
    for s in named:  # (meshes of the same devices, or, abstract, of as many devices)
        concrete = devices_of(s.mesh) and devices_of(mesh)
        if (devices_of(s.mesh) != devices_of(mesh)) if concrete else s.mesh.size != mesh.size:
            raise ValueError(f"Received incompatible devices for jitted computation "
                             f"{traced.name}: {s!r} and {named[0]!r} use different meshes")
    if outs is None:
        outs = spmd.out_shardings_from_types(
            [s for s in ins if s is not None] or [NamedSharding(mesh, PartitionSpec())],
            traced.jaxpr.out_avals) or (None,) * n_out
    return tuple(ins), tuple(outs), mesh


def _placed(x):
    """The NamedSharding a leaf given to export is laid out as (an Array's, or a spec's), or
    None."""
    s = x._named_sharding if type(x) is ArrayImpl else getattr(x, "sharding", None)
    return s if isinstance(s, NamedSharding) else None


def devices_of(mesh) -> tuple:
    """A mesh's devices in flat order; () for an AbstractMesh."""
    return () if isinstance(mesh, AbstractMesh) else tuple(mesh.devices.flat)


def abstract(s: NamedSharding | None) -> NamedSharding | None:
    """`s` over its mesh's abstract mesh (with the kind of device), as an Exported keeps it."""
    if s is None:
        return None
    mesh = s.mesh
    if isinstance(mesh, AbstractMesh):
        return NamedSharding(mesh, s.spec, memory_kind=s.memory_kind or "device")
    d0 = mesh.devices.flat[0]
    am = mesh.abstract_mesh
    return NamedSharding(AbstractMesh(am.axis_sizes, am.axis_names, am.axis_types,
                                      abstract_device=AbstractDevice(d0.device_kind, None,
                                                                     d0.platform)),
                         s.spec, memory_kind=s.memory_kind or "device")


def main_attributes(module, ins, outs, avals_in, avals_out):
    """The sharding attributes of `main`'s arguments and results ("" where unspecified)."""
    return ([sdy.sharding_attr(module, s, a.ndim) if s is not None else ""
             for s, a in zip(ins, avals_in, strict=True)],
            [sdy.sharding_attr(module, s, a.ndim) if s is not None else ""
             for s, a in zip(outs, avals_out, strict=True)])


def with_sharding(avals, shardings) -> tuple:
    """The avals with their shardings in the type (Explicit mesh axes only, as JAX's)."""
    return tuple(a if s is None else a.update(sharding=s)
                 for a, s in zip(avals, shardings, strict=True))
