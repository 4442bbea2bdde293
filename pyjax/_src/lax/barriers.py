"""Primitives that compute nothing but constrain the compiler or the tracer:
`optimization_barrier` (XLA may not move work across it), `dce_sink` (keeps a value alive through
dead-code elimination), `stage` (lifts a constant into the current trace), `sharding_constraint`
(`with_sharding_constraint`: how a value is laid out across devices).
"""
from __future__ import annotations

import numpy as np

from pyjax._src import core, tree_util
from pyjax._src.array import put_named
from pyjax._src.interpreters.ad import Zero, deflinear, instantiate
from pyjax._src.interpreters.batching import defvectorized
from pyjax._src.lax import sharding_rules
from pyjax._src.lax.shape_ops import _unchanged
from pyjax._src.lax.utils import standard_primitive
from pyjax._src.lowering import sdy
from pyjax._src.mesh import AbstractMesh, Mesh, get_abstract_mesh, get_mesh
from pyjax._src.sharding import NamedSharding, PartitionSpec, Sharding, SingleDeviceSharding

# -- optimization_barrier --------------------------------------------------------------------

optimization_barrier_p = standard_primitive("optimization_barrier", multiple_results=True)


def optimization_barrier(operand, /):
    """The identity on a pytree of arrays, which XLA may not reorder work across: everything
    computing the outputs runs before anything using them.

        >>> x, y = optimization_barrier((jnp.ones(2), 3.0))
    """
    leaves, tree = tree_util.tree_flatten(operand)
    leaves = [_unchanged(x) for x in leaves]
    return tree_util.tree_unflatten(tree, optimization_barrier_p.bind(*leaves))


optimization_barrier_p.def_abstract_eval(lambda *avals: list(avals))
optimization_barrier_p.np_impl = lambda *xs: [np.asarray(x) for x in xs]


def _optimization_barrier_jvp(primals, tangents):
    """Both the primals and (materialized) tangents go through a barrier, as in JAX."""
    tangents = [instantiate(t) for t in tangents]
    return optimization_barrier_p.bind(*primals), optimization_barrier_p.bind(*tangents)


def _optimization_barrier_transpose(cts, *args):
    cts = [instantiate(ct) if type(ct) is Zero else ct for ct in cts]
    return optimization_barrier_p.bind(*cts)


optimization_barrier_p.def_jvp(_optimization_barrier_jvp)
optimization_barrier_p.def_transpose(_optimization_barrier_transpose)
optimization_barrier_p.def_batch(lambda axis_size, args, dims: (optimization_barrier_p.bind(*args), list(dims)))


@optimization_barrier_p.def_lowering
def _optimization_barrier_lowering(ctx, *xs):
    if not xs:
        return []
    return ctx.op_multi("stablehlo.optimization_barrier", *xs)


# -- dce_sink --------------------------------------------------------------------------------

no_dce_effect = core.Effect("no_dce")
dce_sink_p = standard_primitive("dce_sink", multiple_results=True)


def dce_sink(val, *, prevent_mlir_dce: bool = False):
    """Mark every leaf of `val` as used, so dead-code elimination of the jaxpr keeps what
    computes it. Returns None.

    NB: `prevent_mlir_dce=True` is accepted but, unlike JAX (which emits a side-effecting custom
    call), XLA may still drop the computation after lowering."""
    for leaf in tree_util.tree_leaves(val):
        dce_sink_p.bind(_unchanged(leaf), prevent_mlir_dce=bool(prevent_mlir_dce))


dce_sink_p.def_abstract_eval(lambda x, *, prevent_mlir_dce: [])
dce_sink_p.def_effects(lambda *, prevent_mlir_dce: frozenset({no_dce_effect}))
dce_sink_p.def_impl(lambda x, *, prevent_mlir_dce: [])
dce_sink_p.np_impl = lambda x, *, prevent_mlir_dce: []
dce_sink_p.def_jvp(lambda primals, tangents, **params: (dce_sink_p.bind(*primals, **params), []))
dce_sink_p.def_batch(lambda axis_size, args, dims, **params: (dce_sink_p.bind(*args, **params), []))
dce_sink_p.def_lowering(lambda ctx, x, *, prevent_mlir_dce: [])

# -- stage -----------------------------------------------------------------------------------

stage_p = standard_primitive("stage")


def stage(x, /):
    """The identity, lifting a NumPy array or Python scalar to a pyjax value (an Array).

        >>> stage(np.float32(2))
        Array(2., dtype=float32)

    NB: JAX's `stage` makes a constant a tracer of the current trace, which its jaxprs show as a
    constant; pyjax returns the constant as an Array (jaxprs read the same), so nothing binds
    `stage_p` here (it is exported, with its rules, for code that binds it itself)."""
    return x if isinstance(x, core.Tracer) else _unchanged(x)


stage_p.def_abstract_eval(lambda x: x)
stage_p.def_impl(lambda x: x)  # an Array already is what staging gives
stage_p.np_impl = np.asarray
stage_p.def_jvp(lambda primals, tangents: (stage_p.bind(*primals), tangents[0]))
defvectorized(stage_p)
stage_p.def_lowering(lambda ctx, x: x)

# -- sharding_constraint ---------------------------------------------------------------------

sharding_constraint_p = standard_primitive("sharding_constraint")
sharding_constraint_p.def_sharding_rule(sharding_rules.given_sharding)


def _check_constraint(s):
    if s is None:  # (JAX's words)
        raise ValueError("One of with_sharding_constraint arguments got sharding None which is "
                         "not allowed. Please only pass `jax.sharding.Sharding` instances.")
    if isinstance(s, PartitionSpec) and get_mesh() is not None:
        s = NamedSharding(get_mesh(), s)
    if isinstance(s, Sharding) and not isinstance(s, (SingleDeviceSharding, NamedSharding)):
        raise NotImplementedError(f"with_sharding_constraint: {type(s).__name__} is not supported yet; "
                                  f"got {s!r}")
    if not isinstance(s, Sharding):
        # JAX: a PartitionSpec needs a mesh in context, and pyjax has no meshes yet
        raise RuntimeError("with_sharding_constraint requires a non-empty mesh in context if you are "
                           f"passing `PartitionSpec`s to shardings (got {s!r}); pass a Sharding instead")
    return s


def _check_rank(x, s):
    """A NamedSharding's spec must not name more dimensions than `x` has (JAX's ValueError)."""
    ndim = np.ndim(x) if not hasattr(x, "aval") else len(core.get_aval(x).shape)
    if isinstance(s, NamedSharding) and len(s.spec) > ndim:
        raise ValueError(f"One of with_sharding_constraint arguments is incompatible with its "
                         f"sharding annotation {s!r}: Sharding {s!r} is only valid for values of "
                         f"rank at least {len(s.spec)}, but was applied to a value of rank {ndim}.")
    return s


def with_sharding_constraint(x, shardings):
    """`x` (a pytree), constrained to be laid out as `shardings` (one Sharding, or a pytree prefix
    of `x` of them) inside `jit`; the identity on values.

    NB: pyjax has one-device shardings only, so the constraint never moves data."""
    leaves, tree = tree_util.tree_flatten(x)
    if isinstance(shardings, (list, tuple, dict)) and not type(shardings).__name__ == "PartitionSpec":
        specs = tree_util.tree_leaves(shardings, is_leaf=lambda s: isinstance(s, Sharding))
        if len(specs) != len(leaves):
            raise ValueError(f"with_sharding_constraint: {len(specs)} shardings for {len(leaves)} arrays")
    else:  # one for every leaf
        specs = [shardings] * len(leaves)
    specs = [_check_rank(v, _check_constraint(s)) for v, s in zip(leaves, specs, strict=True)]
    am = get_abstract_mesh()
    explicit = not am.empty and am.are_all_axes_explicit
    outs = [_assert_laid_out(v, s) if explicit and isinstance(s, NamedSharding) else
            sharding_constraint_p.bind(_unchanged(v), sharding=s, layout=None,
                                       unconstrained_dims=frozenset())
            for v, s in zip(leaves, specs, strict=True)]
    return tree_util.tree_unflatten(tree, outs)


def _assert_laid_out(x, s):
    """Under a mesh whose axes are all Explicit a value's type says its layout, so the
    constraint only checks it (JAX's AssertionError) and stages nothing: `reshard` moves data."""
    aval = core.get_aval(x)
    have = tuple(aval.sharding.spec) if getattr(aval, "sharding", None) is not None else \
        (None,) * aval.ndim
    want = tuple(s.spec) + (None,) * (aval.ndim - len(s.spec))
    for h, w in zip(have, want, strict=True):
        if w is not PartitionSpec.UNCONSTRAINED and h != w:
            raise AssertionError(
                f"`with_sharding_constraint` acts as an assert when all axes of mesh are of type "
                f"`Explicit`. The array sharding: {PartitionSpec(*have)} did not match the "
                f"sharding provided: {PartitionSpec(*want)}. Please use `jax.sharding.reshard` "
                f"to shard your input to the sharding you want.")
    return x


sharding_constraint_p.def_abstract_eval(lambda x, **params: x)
sharding_constraint_p.np_impl = lambda x, **params: np.asarray(x)
deflinear(sharding_constraint_p, lambda ct, x, **params: [
    None if type(ct) is Zero else sharding_constraint_p.bind(ct, **params)])


def _sharding_constraint_lowering(ctx, x, *, sharding, **params):
    # Shardy's sdy.sharding_constraint, or GSPMD's `Sharding` custom call
    if not isinstance(sharding, NamedSharding):
        return x
    return sdy.constrain(ctx, x, sharding, ctx.avals_out[0])




def _sharding_constraint_batch(axis_size, vals, dims, *, sharding, _prim=None, **params):
    # the batch axis is not split: a None enters the spec at its position
    (x,), (d,) = vals, dims
    if isinstance(sharding, NamedSharding) and d is not None:
        ndim = core.get_aval(x).ndim - 1
        parts = list(sharding.spec) + [None] * (ndim - len(sharding.spec))
        parts.insert(d, None)
        sharding = sharding.with_spec(PartitionSpec(*parts))
    return (_prim or sharding_constraint_p).bind(x, sharding=sharding, **params), d


sharding_constraint_p.def_batch(_sharding_constraint_batch)
sharding_constraint_p.def_lowering(_sharding_constraint_lowering)


def _over_concrete_mesh(x, sharding):
    """A NamedSharding over an AbstractMesh, put over a concrete mesh of its shape to move data
    eagerly (as JAX's eager with_sharding_constraint): the one `x` is laid out over, else the
    mesh in context."""
    if not isinstance(sharding.mesh, AbstractMesh):
        return sharding
    own = getattr(x, "sharding", None)
    for mesh in (getattr(own, "mesh", None), get_mesh()):
        if isinstance(mesh, Mesh) and mesh.shape_tuple == sharding.mesh.shape_tuple:
            return NamedSharding(mesh, sharding.spec, memory_kind=sharding.memory_kind)
    if isinstance(own, NamedSharding):  # (JAX's class and words)
        raise ValueError(f"Mesh shape of the input {own.mesh.shape_tuple} does not match the mesh "
                         f"shape of the target sharding {sharding.mesh.shape_tuple} for shape "
                         f"{core.get_aval(x).str_short(short_dtypes=False)}")
    raise TypeError("The sharding on the input must be a `NamedSharding` since the target "
                    f"sharding has an `AbstractMesh` in it. Got sharding type {type(own)} for "
                    f"shape {core.get_aval(x).str_short()}")


# eagerly, a constraint over a mesh is a device_put (as in JAX)
sharding_constraint_p.def_impl(lambda x, *, sharding, **params: put_named(
    x, _over_concrete_mesh(x, sharding)) if isinstance(sharding, NamedSharding) else x)

# -- reshard (sharding in types) ----------------------------------------------------------------
# `jax.reshard(x, spec)` (reshard.py): the value laid out anew, its type saying so. `sharding`
# is a NamedSharding over the concrete mesh (the eager impl moves data with it); the aval carries
# its abstract form. Lowering and batching are sharding_constraint's.

reshard_p = standard_primitive("reshard")
reshard_p.def_sharding_rule(sharding_rules.given_sharding)
reshard_p.def_abstract_eval(lambda x, *, sharding: x.update(sharding=sharding))
reshard_p.np_impl = lambda x, **params: np.asarray(x)
reshard_p.def_impl(lambda x, *, sharding: put_named(x, sharding))


def _reshard_transpose(ct, x, *, sharding):
    # the cotangent goes back to the primal's layout
    if type(ct) is Zero:
        return [None]
    s = x.aval.sharding
    back = NamedSharding(sharding.mesh, s.spec if s is not None else PartitionSpec())
    return [reshard_p.bind(ct, sharding=back)]


deflinear(reshard_p, _reshard_transpose)


def reshard_to_type(x, sharding):
    """`x` (traced) laid out as `sharding`, an aval's sharding (over an AbstractMesh), over
    the mesh in context; `x` itself when that mesh is not the one the sharding names."""
    mesh = get_mesh()
    if mesh is None or mesh.axis_names != sharding.mesh.axis_names:
        return x
    if mesh.axis_types != sharding.mesh.axis_types:
        mesh = mesh.update_axis_types(sharding.mesh._name_to_type)
    return reshard_p.bind(x, sharding=NamedSharding(mesh, sharding.spec))
reshard_p.def_lowering(_sharding_constraint_lowering)
reshard_p.def_batch(lambda axis_size, vals, dims, *, sharding: _sharding_constraint_batch(
    axis_size, vals, dims, sharding=sharding, _prim=reshard_p))
