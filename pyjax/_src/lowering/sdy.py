"""Shardings in a module, for XLA's two SPMD partitioners: Shardy's `sdy` dialect (JAX 0.10.2's
default, `jax_use_shardy_partitioner`) or GSPMD's `mhlo.sharding` strings (the legacy path).

With Shardy a module declares each mesh it names once (`sdy.mesh @mesh = <["x"=2, "y"=4]>`)
and a sharding lists, per dimension, the mesh axes splitting it (major first):
`#sdy.sharding<@mesh, [{"x"}, {}]>`; `{}` is a closed dimension (not split, and the partitioner
must not split it), `{?}` an open one (left to the partitioner), `{"x", ?}` split over "x" and
open to more. The devices of the module are the mesh's in flat order (the compile request's
device assignment), so meshes never need `device_ids`.

The functions here return attribute text; `ModuleContext.shardy` says which form to write.
"""
from __future__ import annotations

from pyjax._src import dtypes
from pyjax._src.sharding import NamedSharding, PartitionSpec


def mesh_symbol(module, axis_names, axis_sizes, device_ids=None) -> str:
    """The name of the module's `sdy.mesh` for these axes (declared on first use): `mesh`
    for the first, as JAX names it, then `mesh_1`, ...; `device_ids` (a mesh without axes,
    maximal on one device) gives `maximal_mesh_<id>`, and no axes `empty_mesh`."""
    key = (tuple(axis_names), tuple(axis_sizes), device_ids)
    name = module.sdy_meshes.get(key)
    if name is not None:
        return name[0]
    if device_ids is not None:
        name = f"maximal_mesh_{device_ids[0]}"
        body = f"[], device_ids=[{', '.join(str(d) for d in device_ids)}]"
    elif not axis_names:
        name, body = "empty_mesh", "[]"
    else:
        taken = sum(1 for k in module.sdy_meshes if k[0] and k[2] is None)
        name = "mesh" if taken == 0 else f"mesh_{taken}"
        body = "[" + ", ".join(f'"{a}"={s}' for a, s in zip(axis_names, axis_sizes,
                                                             strict=True)) + "]"
    op = f'  "sdy.mesh"() {{mesh = #sdy.mesh<{body}>, sym_name = "{name}"}} : () -> ()'
    module.sdy_meshes[key] = (name, op)
    return name


def mesh_ops(module) -> list[str]:
    """The `sdy.mesh` declarations a module's functions refer to (module-level ops)."""
    return [op for _, op in module.sdy_meshes.values()]


def _dims(parts, open_dims=(), open_all=False) -> str:
    out = []
    for i, p in enumerate(parts):
        names = [f'"{a}"' for a in p]
        if open_all or i in open_dims:
            names.append("?")
        out.append("{" + ", ".join(names) + "}")
    return "[" + ", ".join(out) + "]"


def _parts(sharding: NamedSharding, ndim):
    return sharding.spec._normalized(ndim)


def _open_dims(sharding: NamedSharding, ndim) -> tuple:
    return tuple(i for i, p in enumerate(tuple(sharding.spec) + (None,) * (ndim - len(sharding.spec)))
                 if p is PartitionSpec.UNCONSTRAINED)


def tensor_sharding(module, sharding: NamedSharding, ndim, *, open_all=False) -> str:
    """`<@mesh, [{"x"}, {}]>` (without the `#sdy.sharding` prefix): `sharding` laid over a
    rank-`ndim` value. `open_all` leaves every dimension open to further splitting (the axes
    a partly manual shard_map does not make manual)."""
    mesh = sharding.mesh
    name = mesh_symbol(module, mesh.axis_names, mesh.axis_sizes)
    return (f"<@{name}, "
            f"{_dims(_parts(sharding, ndim), _open_dims(sharding, ndim), open_all)}>")


def sharding_attr(module, sharding: NamedSharding, ndim) -> str:
    """The attribute of an argument or result laid out as `sharding`: Shardy's or GSPMD's."""
    if module.shardy:
        return f"sdy.sharding = #sdy.sharding{tensor_sharding(module, sharding, ndim)}"
    return f'mhlo.sharding = "{sharding._to_hlo(ndim)}"'


def constrain(ctx, x, sharding: NamedSharding, aval):
    """`x` (of `aval`) constrained to lie out as `sharding`: `sdy.sharding_constraint`, or
    GSPMD's `Sharding` custom call."""
    if ctx.module.shardy:
        attr = f"#sdy.sharding{tensor_sharding(ctx.module, sharding, aval.ndim)}"
        return ctx.op("sdy.sharding_constraint", x, out=aval, attrs={"sharding": attr})
    return ctx.op("stablehlo.custom_call", x, out=aval, attrs={
        "call_target_name": '"Sharding"', "backend_config": '""',
        "mhlo.sharding": f'"{sharding._to_hlo(aval.ndim)}"'})


def type_constraint(ctx, x, aval):
    """`x` constrained to the sharding its type carries (sharding in types), as JAX lowers
    each operation's result under a mesh with Explicit axes: the dimensions closed, or, when
    the mesh also has Auto axes, all open with the Explicit axes the spec leaves out marked
    `replicated` (so the partitioner may not use them). `x` itself where the type says nothing
    (no sharding, an extended dtype, every axis Auto or Manual, inside a shard_map body)."""
    s = getattr(aval, "sharding", None)
    if s is None or ctx.module.manual or not isinstance(s, NamedSharding):
        return x
    mesh = s.mesh
    if mesh.empty or mesh.are_all_axes_manual or mesh.are_all_axes_auto:
        return x
    if not hasattr(aval, "ndim") or dtypes.issubdtype(aval.dtype, dtypes.extended):
        return x
    parts = _parts(s, aval.ndim)
    some_auto = bool(mesh.auto_axes)
    if ctx.module.shardy:
        name = mesh_symbol(ctx.module, mesh.axis_names, mesh.axis_sizes)
        used = {a for p in parts for a in p} | set(s.spec.unreduced) | set(s.spec.reduced)
        replicated = [a for a in mesh.explicit_axes if a not in used] if some_auto else []
        rep = (", replicated={" + ", ".join(f'"{a}"' for a in replicated) + "}"
               if replicated else "")
        attr = (f"#sdy.sharding<@{name}, {_dims(parts, _open_dims(s, aval.ndim), some_auto)}"
                f"{rep}>")
        return ctx.op("sdy.sharding_constraint", x, out=aval, attrs={"sharding": attr})
    unspecified = ("unspecified_dims=[" + ",".join(str(i) for i in range(aval.ndim)) + "]"
                   if some_auto and aval.ndim else "")
    return ctx.op("stablehlo.custom_call", x, out=aval, attrs={
        "call_target_name": '"Sharding"', "backend_config": f'"{unspecified}"',
        "mhlo.sharding": f'"{s._to_hlo(aval.ndim)}"'})


def fully_manual(ctx, mesh, out_aval, body_fn):
    """`body_fn()`'s one result, computed where every mesh axis is manual: in a shard_map
    body manual over some axes only (Shardy), inside a nested `sdy.manual_computation` over
    the others, as JAX does for ops such as `partition_id` that mean nothing to the
    partitioner; elsewhere `body_fn()` itself."""
    module = ctx.module
    rest = [a for a in mesh.axis_names if a not in module.manual_axes]
    if not (module.shardy and module.manual and rest):
        return body_fn()
    name = mesh_symbol(module, mesh.axis_names, mesh.axis_sizes)
    axes = ", ".join(f'"{a}"' for a in rest)
    attrs = {"in_shardings": "#sdy.sharding_per_value<[]>",
             "manual_axes": f"#sdy<manual_axes{{{axes}}}>",
             "out_shardings": f"#sdy.sharding_per_value<[<@{name}, []>]>"}
    saved = module.manual_axes
    module.manual_axes = frozenset(mesh.axis_names)
    try:
        return ctx.op("sdy.manual_computation", out=out_aval, attrs=attrs,
                      regions=[([], lambda: [body_fn()], "sdy.return")])
    finally:
        module.manual_axes = saved


def side_effect_sharding(module, ranks=()) -> tuple[str, str] | None:
    """(attribute name, value) of the sharding a side-effecting op needs in a module over
    several devices (None for one device): in a shard_map body, Shardy's empty mesh or GSPMD's
    `{manual}`; elsewhere, maximal on the first device (which runs it), as JAX lowers them.
    An op of several results gets one per result (`ranks`: theirs)."""
    count = len(ranks)

    def per_value(mesh):
        return ("sdy.sharding", "#sdy.sharding_per_value<[" + ", ".join(
            f"<@{mesh}, [{', '.join(['{}'] * r)}]>" for r in (ranks or (0,))) + "]>")

    def hlo(one):
        return ("mhlo.sharding", f'"{one}"' if count <= 1 else
                '"{' + ", ".join([one] * count) + '}"')
    if module.manual:
        if module.shardy:
            return per_value(mesh_symbol(module, (), ()))
        return hlo("{manual}")
    if module.partitioned:
        if module.shardy:
            return per_value(mesh_symbol(module, (), (), device_ids=(0,)))
        return hlo("{maximal device=0}")
    return None
