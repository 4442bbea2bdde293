"""shard_map's specs: reading them (inferred in_specs, the manual part of a spec, the axes a
block varies along) and JAX 0.10.2's checks and errors for them (ranks, axes that are not
manual, unreduced/reduced axes, outputs that claim a replication the body does not have, values
closed over that are laid out over Explicit axes)."""
from __future__ import annotations

import math

from pyjax._src import core, tree_util
from pyjax._src.array import ArrayImpl
from pyjax._src.config import config
from pyjax._src.mesh import AxisType, get_abstract_mesh
from pyjax._src.sharding import PartitionSpec


def _check_unreduced(prefix, mesh, manual, specs):
    """JAX's errors for specs with unreduced or reduced axes: only in a shard_map manual over
    the whole mesh, and only over Explicit axes."""
    for s in tree_util.tree_leaves(specs, is_leaf=_is_spec):
        if s is None or not (s.unreduced or s.reduced):
            continue
        if set(manual) != set(mesh.axis_names):
            raise NotImplementedError(
                f"unreduced/reduced can only be passed to {prefix}_specs when shard_map is in "
                f"full manual mode. Got mesh axis names {mesh.axis_names}, manual_axes: "
                f"{manual}, specs: {s}. Please file a bug at "
                f"https://github.com/jax-ml/jax/issues.")
        for kind, axes in (("unreduced", s.unreduced), ("reduced", s.reduced)):
            if not all(mesh._name_to_type[a] is AxisType.Explicit for a in axes):
                raise ValueError(
                    f"{kind} in {prefix}_specs {s} can only be used when the mesh passed to "
                    f"shard_map contains axis names all of type `Explicit`. Got mesh {mesh}")


def _infer_in_specs(mesh, args, manual):
    """in_specs left out: when the manual axes are all Explicit, each argument's own layout
    (a NamedSharding's spec, or the one its type carries; replicated otherwise) along the
    manual axes only, as JAX infers them."""
    types = [mesh._name_to_type[a] for a in mesh.axis_names if a in manual]
    if any(t is not AxisType.Explicit for t in types):
        raise TypeError(f"shard_map in_specs argument must be a pytree of PartitionSpec "
                        f"instances, but it was None when axis_names={set(manual)} are "
                        f"of type {', '.join(str(t) for t in types)} (in_specs can be left out "
                        f"only over Explicit mesh axes)")

    def spec(x):
        if isinstance(x, core.Tracer):  # (under jit: the layout its type carries)
            s = getattr(x.aval, "sharding", None)
        else:
            s = x._named_sharding if type(x) is ArrayImpl else None
        if s is None or s.mesh.axis_names != mesh.axis_names:
            return PartitionSpec()
        return _manual_spec(s.spec, manual)
    return tree_util.tree_map(spec, tuple(args))


def _manual_spec(spec, manual):
    """`spec` along the manual axes only (the others' entries dropped)."""
    out = []
    for p in spec:
        if isinstance(p, tuple):
            kept = [a if a in manual else None for a in p]
            while kept and kept[-1] is None:
                kept.pop()
            if None in kept:
                raise ValueError(f"Invalid spec: {spec}")
            out.append(tuple(kept) if kept else None)
        else:
            out.append(p if p in manual else None)
    return PartitionSpec(*out, unreduced=spec.unreduced, reduced=spec.reduced)


def _is_spec(s):
    return s is None or isinstance(s, PartitionSpec)


def _as_tuple(specs):
    return tuple(specs) if isinstance(specs, list) else specs


def _matching(specs, tree):
    """`specs` as a prefix of `tree`: as given (a list for a list), else a list of specs for a
    tuple of values (pyjax takes either)."""
    if isinstance(specs, list) and not isinstance(tree, list):
        return tuple(specs)
    return specs


def _outer_manual(mesh) -> frozenset:
    """The axes of `mesh` that an enclosing shard_map is manual over (a shard_map nested in
    one that left axes automatic maps those)."""
    ctx = get_abstract_mesh()
    return frozenset(ctx.manual_axes) if ctx.axis_names == mesh.axis_names else frozenset()


def _check_closed_over(consts, mesh, manual_axes):
    """JAX's NotImplementedError for a value the body closes over that is typed as split over
    Explicit axes, when the body has no Explicit axis left (pass it as an argument instead)."""
    body_mesh = mesh.abstract_mesh.update_axis_types(
        {a: AxisType.Manual for a in manual_axes | _outer_manual(mesh)})
    if body_mesh._any_axis_explicit:
        return
    for c in consts:
        aval = core.get_aval(c)
        # (a concrete array: its own layout; get_aval types it over the mesh in context)
        s = (getattr(aval, "sharding", None) if isinstance(c, core.Tracer)
             else getattr(c, "_named_sharding", None))
        # (a type over another mesh's axes is left alone: pyjax's eager dispatch can give an
        # array the type it had under an earlier mesh in context)
        if s is not None and s.mesh._any_axis_explicit and s.mesh.axis_names == mesh.axis_names:
            types: dict = {}
            for n, t in zip(s.mesh.axis_names, s.mesh.axis_types, strict=True):
                types.setdefault(t, []).append(n)
            types = {t: tuple(ns) for t, ns in types.items()}
            raise NotImplementedError(
                f"Closing over inputs to shard_map where the input is sharded on `Explicit` axes "
                f"is not implemented. As a workaround, please pass those inputs as an argument "
                f"to shard_map. Got input with shape {aval.str_short()}({types})")


def _fun_name(f):
    return getattr(f, "__name__", type(f).__name__)


def _check_spec(spec, aval, mesh, what, f, global_shape=False):
    if len(spec) > aval.ndim:
        prefix, where = what.split("_specs")
        base = "the passed args" if prefix == "in" else f"{_fun_name(f)}(*args)"
        raise ValueError(
            f"shard_map applied to the function '{_fun_name(f)}' was given an {prefix}_specs "
            f"entry which is too long to be compatible with the corresponding {prefix}put value "
            f"from the function:\n\n{prefix}_specs{where} is {spec} which has length "
            f"{len(spec)}, but {base}{where} has shape {aval.str_short()}, which has rank "
            f"{aval.ndim} (and {aval.ndim} < {len(spec)})\n\nEntries in {prefix}_specs must be "
            f"of length no greater than the number of axes in the corresponding {prefix}put "
            f"value.\n\nEither revise the spec to be shorter, or modify '{_fun_name(f)}' so "
            f"that its {prefix}puts have sufficient rank."
            + (f"\n\nFor scalar values (rank 0), consider using an {prefix}_specs entry of "
               f"`P()`, where `P = jax.sharding.PartitionSpec`." if not aval.ndim else ""))
    parts = spec._normalized(aval.ndim)
    used = [a for p in parts for a in p]
    for a in used:
        if a not in mesh.axis_names:
            raise ValueError(f"shard_map {what}: {spec!r} names {a!r}, which is not a mesh axis "
                             f"{mesh.axis_names}")
    if len(set(used)) != len(used):
        raise ValueError(f"shard_map {what}: {spec!r} uses a mesh axis twice")
    if global_shape:
        for d, (n, p) in enumerate(zip(aval.shape, parts, strict=True)):
            ways = math.prod(mesh.shape[a] for a in p)
            if n % ways:
                raise ValueError(f"shard_map applied to the function {_fun_name(f)!r} was given "
                                 f"an argument of shape {aval.str_short()} whose dimension {d} "
                                 f"(size {n}) is not divisible by the {ways} devices of mesh "
                                 f"axes {p} ({what} is {spec!r})")


def _check_manual(spec, manual_axes, what):
    for p in spec:
        for a in (p if isinstance(p, tuple) else (p,)):
            if a is not None and a is not PartitionSpec.UNCONSTRAINED and a not in manual_axes:
                raise ValueError(
                    f"shard_map {what} argument must refer to an axis marked as manual "
                    f"({manual_axes}), but:\n\n  {what} refers to {a!r}\n\nCheck the {what} "
                    f"values passed to shard_map.")


def _ways(spec, ndim, mesh):
    return [math.prod(mesh.shape[a] for a in p) for p in spec._normalized(ndim)]


def _spec_vma(spec, manual_axes, mesh) -> frozenset:
    """The manual axes a block laid out as `spec` varies along: those that split it (less the
    mesh axes of size 1 under jax_remove_size_one_mesh_axis_from_type, as JAX)."""
    axes = _spec_axes(spec) & manual_axes
    if config.jax_remove_size_one_mesh_axis_from_type:
        axes = frozenset(a for a in axes if mesh.shape[a] != 1)
    return axes


def _spec_axes(spec) -> frozenset:
    return frozenset(a for p in spec for a in (p if isinstance(p, tuple) else (p,))
                     if a is not None and a is not PartitionSpec.UNCONSTRAINED)


def _check_vma(out_avals, out_specs, specs_tree, out_tree, mesh, f, manual_axes):
    """JAX's error when an output varies along a mesh axis its out_spec does not split (so
    one device's block could not stand for all of them)."""
    full = tree_util.tree_unflatten(out_tree, out_avals)
    paths = tree_util.flatten_prefix(
        tree_util.tree_map_with_path(lambda p, s: tree_util.keystr(p),
                                     _matching(specs_tree, full), is_leaf=_is_spec),
        full, "shard_map out_specs")
    bad = []
    for aval, spec, path in zip(out_avals, out_specs, paths, strict=True):
        varying = getattr(aval, "vma", core.NO_VMA) & manual_axes
        named = _spec_axes(spec)
        if not varying - named:
            continue
        unmentioned = [a for a in mesh.axis_names if a not in named]
        if len(unmentioned) > 1:
            need, got = core.order_axes(named), core.order_axes(varying)
            diff = [a for a in unmentioned if a in varying]
            bad.append(f"* out_specs{path} is {spec} which implies that the corresponding "
                       f"output value is only varying across mesh axes {{{','.join(need)}}} and "
                       f"not {{{','.join(diff)}}}, but it was inferred to be possibly varying "
                       f"over {{{','.join(got)}}}")
        else:
            bad.append(f"* out_specs{path} is {spec} which implies that the corresponding "
                       f"output value is replicated across mesh axis '{unmentioned[0]}', but "
                       f"could not infer replication over any axes")
    if not bad:
        return
    if len(bad) == 1:
        bad = [bad[0][2:]]
    raise ValueError(
        f"shard_map applied to the function '{_fun_name(f)}' was given out_specs which require "
        f"replication which can't be statically inferred given the mesh:\n\n"
        f"The mesh given has shape {tuple(mesh.axis_sizes)} with corresponding axis names "
        f"{tuple(mesh.axis_names)}.\n\n" + "\n\n".join(bad) + "\n\nCheck if these output "
        f"values are meant to be replicated over those mesh axes. If not, consider revising "
        f"the corresponding out_specs entries. If so, consider disabling the check by "
        f"passing the check_vma=False argument to `jax.shard_map`.")
