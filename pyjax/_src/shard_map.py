"""shard_map: a function written for one device's block of its arguments, run on every device
of a mesh as one SPMD program (`shard_map_p`), plus `reshard` and `lay_out`.

`shard_map(f, mesh=mesh, in_specs=P("x"), out_specs=P("x"))(x)` traces `f` once on the
*per-device* block shapes that `NamedSharding(mesh, in_spec)` gives, with the mesh axes bound as
named axes (`batching.extend_axis_env`), so `lax.psum(v, "x")`, `all_gather`, `ppermute`,
`axis_index`... inside record collectives over them. The traced body becomes one `shard_map_p`
equation carrying the body jaxpr, the mesh, the specs and `check_vma`.

Lowering, with Shardy (JAX 0.10.2's default, `jax_use_shardy_partitioner`): one
`sdy.manual_computation` whose in/out shardings are the specs over the mesh and whose region is
the body on per-device shapes (`_manual_computation`). With GSPMD (the flag off), the manual
region of that partitioner: each operand goes through `custom_call @Sharding` (its
`mhlo.sharding` from the in_spec) and `@SPMDFullToShardShape` (`{manual}`), the body is emitted
on per-device shapes, and each result goes back through `@Sharding {manual}` and
`@SPMDShardToFullShape` (the out_spec's sharding). Either way the region sits inside the one
partitioned module of the enclosing jit (whose device assignment is the mesh's devices in flat
order, `spmd.constrained_mesh`), and collectives in the body lower to StableHLO collectives
whose replica groups are the mesh positions along the named axes (`lax/parallel.py`). Eager
calls run jitted, as in JAX; outputs are Arrays laid out as `NamedSharding(mesh, out_spec)`,
never gathered to the host.

Differentiation: the JVP is a shard_map of the body's JVP; partial evaluation splits the body
into a known and an unknown shard_map whose residuals travel as per-device blocks stacked
along a leading axis split over every mesh axis; the transpose is a shard_map of the body's
backward pass.

Types: with `check_vma=True` (the default) the body is traced with JAX's "varying manual axes"
types (core's vma section): each input varies along the mesh axes its in_spec splits it over,
staging inserts a `pvary` where an invariant value meets a varying one (its transpose is a
psum), `psum` binds `psum_invariant` (its transpose is a pvary), and each output is pvary'd to
the axes of its out_spec; an output varying along an axis its out_spec leaves out is JAX's
ValueError. So reverse mode needs no scaling: the gradient of a replicated value, inside the
body or of the shard_map, is summed over the devices by the transposed pvary, as in JAX. With
`check_vma=False` (and pmap) the body has no vma types and reverse mode uses JAX's rule for that
case: output cotangents are divided by the number of devices of the mesh axes their out_spec
leaves out, and input cotangents are summed (`psum`) over the axes their in_spec leaves out.

`axis_names=` (manual over some mesh axes only, the others left to XLA's partitioner) needs
Shardy: the region's shardings leave every dimension open to the automatic axes, the body sees
only the manual axes (its blocks are split along them alone), and ops that read the partition
id (`axis_index`) run in a nested region manual over the rest, as JAX lowers them. With GSPMD
it is refused: that form needs subgroup shardings (`last_tile_dims={manual, replicated}`),
which XLA handles poorly (JAX 0.10.2's own GSPMD lowering of a partly manual all_gather
aborts inside XLA).
"""
from __future__ import annotations

import contextlib
import functools
import math
import threading
import weakref

import numpy as np

from pyjax._src import core, dispatch, dtypes, errors, spmd, tree_util
from pyjax._src.config import config
from pyjax._src.array import ArrayImpl, named_sharding_for, put_named
from pyjax._src.backend import xla
from pyjax._src.interpreters import ad, batching
from pyjax._src.interpreters import partial_eval as pe
from pyjax._src.lax import barriers, shape_ops
from pyjax._src.lax import elementwise as elt
from pyjax._src.lax.parallel import psum_p
from pyjax._src.lowering import mlir, sdy
from pyjax._src.mesh import (AbstractMesh, AxisType, Mesh, get_abstract_mesh, get_mesh,
                             use_abstract_mesh)
from pyjax._src.pjit import _drop_unread_residuals, jit
from pyjax._src.sharding import NamedSharding, PartitionSpec, _hlo_sharding
from pyjax._src.traceback_util import api_boundary
from pyjax._src.shard_map_specs import (
    _as_tuple, _check_closed_over, _check_manual, _check_spec, _check_unreduced, _check_vma,
    _infer_in_specs, _is_spec, _matching, _outer_manual, _spec_axes, _spec_vma, _ways)

shard_map_p = core.Primitive("shard_map", multiple_results=True)


class _InferFromArgs:
    def __repr__(self):
        return "Infer"


Infer = _InferFromArgs()  # in_specs / in_axes left out: read from the arguments' layouts


def shard_map(f=None, /, *, out_specs, in_specs=Infer, mesh=None, axis_names=frozenset(),
              check_vma=True):
    """Map `f`, written for one device's block, over the devices of `mesh`.

    `in_specs` / `out_specs` are PartitionSpecs (or pytree prefixes of the arguments /
    outputs made of them): which mesh axes split which dimension. A mesh axis an output's spec
    does not name must not vary along it (checked with `check_vma`, else one device's block is
    taken), e.g. the result of `lax.psum` over that axis. A `None` in `in_specs` makes the
    arguments under it static (passed to `f` as they are; `in_specs=None`: all of them);
    `in_specs` left out is read from the arguments' layouts (over Explicit mesh axes only).

    Example:
        >>> mesh = pyjax.make_mesh((8,), ("i",))
        >>> f = shard_map(lambda b: b - lax.pmean(b, "i"), mesh=mesh, in_specs=P("i"),
        ...               out_specs=P("i"))
    """
    if f is None:
        return functools.partial(shard_map, out_specs=out_specs, in_specs=in_specs, mesh=mesh,
                                 axis_names=axis_names, check_vma=check_vma)
    if not callable(f):
        raise TypeError(f"shard_map requires a callable, got {f!r}")
    eager = {}  # mesh -> the jitted map (eager calls run jitted, traced once per signature)

    @functools.wraps(f)
    @api_boundary
    def mapped(*args):
        m = mesh if mesh is not None else _enclosing_mesh() or get_mesh()
        if m is None:
            raise ValueError("The context mesh cannot be empty. Use `jax.set_mesh(mesh)` to "
                             "enter into a mesh context")
        if (mesh is not None and _enclosing_mesh() is not None
                and mesh.abstract_mesh != get_abstract_mesh()):
            raise ValueError(f"The context mesh {get_abstract_mesh()} should match the mesh "
                             f"passed to shard_map {mesh}")
        if not isinstance(m, (Mesh, AbstractMesh)):
            raise TypeError(f"shard_map requires a `jax.sharding.Mesh` or a "
                            f"`jax.sharding.AbstractMesh` instance for its second argument, but "
                            f"got {m} of type {type(m)}.")
        if m.empty:
            raise ValueError(f"shard_map requires a non-empty mesh. Got {m}")
        manual = _manual_axes(m, axis_names)
        if in_specs is not Infer and in_specs is not None:
            _check_unreduced("in", m, manual, in_specs)
        _check_unreduced("out", m, manual, out_specs)
        specs = in_specs if in_specs is not Infer else _infer_in_specs(m, args, manual)
        fun, specs, args, static = _split_static(f, specs, args)
        if type(core.current_trace()) is core.EvalTrace:
            if isinstance(m, AbstractMesh):
                m = _mesh_from_args(args, get_mesh() or m)
            flat_specs, spec_tree = tree_util.tree_flatten(specs, is_leaf=_is_spec)
            key = (m, spec_tree, tuple(flat_specs), manual, static)
            j = eager.get(key) if static is not None else None
            if j is None:
                j = jit(functools.partial(_shard_map, fun, m, specs, out_specs, check_vma, manual))
                if static is not None:
                    eager[key] = j
            try:
                out = j(*_place_host_args(args, specs, m))
            except (errors.ConcretizationTypeError, errors.TracerIntegerConversionError):
                if set(manual) != set(m.axis_names):
                    raise
                out = _run_op_by_op(fun, m, specs, out_specs, check_vma, manual, args)
            flat, tree = tree_util.tree_flatten(out)
            specs = tree_util.flatten_prefix(_matching(out_specs, out), out, "shard_map out_specs")
            partly = manual != set(m.axis_names)  # (then the outputs' types say the layout)
            return tree_util.tree_unflatten(tree, [
                o if partly and getattr(core.get_aval(o), "sharding", None) is not None
                else lay_out(o, m, s) for o, s in zip(flat, specs, strict=True)])
        return _shard_map(fun, m, specs, out_specs, check_vma, manual, *args)
    return mapped


def _split_static(f, in_specs, args):
    """`(f', specs, args', static)`: the arguments whose in_spec is None are static, closed
    over by `f'`, which takes the others (flat, with their `specs`); `static` is a key of the
    static values (None when one is not hashable, () when there are none)."""
    specs = tree_util.flatten_prefix(_matching(in_specs, args), args, "shard_map in_specs")
    if all(s is not None for s in specs):
        return f, in_specs, args, ()
    leaves, tree = tree_util.tree_flatten(args)
    fixed = [(i, x) for i, (x, s) in enumerate(zip(leaves, specs, strict=True)) if s is None]

    def with_static(*dyn):
        full, it = list(leaves), iter(dyn)
        for i, s in enumerate(specs):
            full[i] = fixed_values[i] if s is None else next(it)
        return f(*tree_util.tree_unflatten(tree, full))
    fixed_values = dict(fixed)
    functools.update_wrapper(with_static, f)
    try:
        key = (tree, tuple(fixed))
        hash(key)
    except Exception:  # (a static argument that cannot be hashed: JAX never hashes them)
        key = None
    return (with_static, tuple(s for s in specs if s is not None),
            tuple(x for x, s in zip(leaves, specs, strict=True) if s is not None), key)


def _mesh_from_args(args, mesh):
    """An eager call over an AbstractMesh runs on the mesh in context, else on the mesh its
    arguments are laid out over (which must have the same axes), as in JAX 0.10.2."""
    for x in tree_util.tree_leaves(args):
        s = x._named_sharding if type(x) is ArrayImpl else None
        if s is None or s.mesh.empty:
            continue
        if s.mesh.shape_tuple != mesh.shape_tuple:
            raise ValueError(f"Mesh shape of the input {s.mesh.shape_tuple} does not match the "
                             f"mesh shape passed to shard_map  {mesh.shape_tuple} for shape "
                             f"{core.get_aval(x).str_short(short_dtypes=False)}")
        mesh = s.mesh
    if isinstance(mesh, AbstractMesh):
        raise ValueError("Please pass `jax.Array`s with a `NamedSharding` as input to "
                         "`shard_map` when passing `AbstractMesh` to the mesh argument.")
    return mesh


def _manual_axes(mesh, axis_names) -> frozenset:
    """The mesh axes a shard_map is newly manual over: `axis_names`, or all (the others stay
    with XLA's partitioner, which needs Shardy for a partly manual region), less those an
    enclosing shard_map is manual over already."""
    unknown = set(axis_names) - set(mesh.axis_names)
    if unknown:
        raise ValueError(f"shard_map: axis_names {sorted(unknown)} are not axes of the mesh "
                         f"{mesh.axis_names}")
    outer = _outer_manual(mesh)
    manual = frozenset(axis_names or mesh.axis_names) - outer
    if manual | outer != set(mesh.axis_names) and not config.jax_use_shardy_partitioner:
        raise NotImplementedError(
            f"shard_map: axis_names={set(axis_names)} (manual over some mesh axes only) needs "
            f"the Shardy partitioner (jax_use_shardy_partitioner, on by default); GSPMD's "
            f"subgroup-manual regions are not supported (see the NB in pyjax/_src/shard_map.py)")
    return manual


def _axis_env(mesh, manual_axes) -> dict:
    """The named axes a body sees: the manual ones, in mesh order, with their sizes."""
    return {a: n for a, n in mesh.shape.items() if a in manual_axes}


def _place_host_args(args, in_specs, mesh):
    """NumPy arguments sent straight to the devices as their in_specs split them (each device
    gets its block, not the whole array)."""
    leaves, tree = tree_util.tree_flatten(args)
    if not any(type(x) is np.ndarray for x in leaves):
        return args
    specs = tree_util.flatten_prefix(_matching(in_specs, args), args, "shard_map in_specs")
    out = []
    for x, s in zip(leaves, specs, strict=True):
        s = s if s is not None else PartitionSpec()
        if type(x) is np.ndarray and len(s) <= x.ndim and all(
                a in mesh.axis_names for p in s._normalized(x.ndim) for a in p) and all(
                n % w == 0 for n, w in zip(x.shape, _ways(s, x.ndim, mesh))):
            x = put_named(x, NamedSharding(mesh, s))
        out.append(x)
    return tree_util.tree_unflatten(tree, out)


class _Enclosing(threading.local):
    def __init__(self):
        self.meshes = []  # the meshes of the shard_map bodies being traced, innermost last


_enclosing = _Enclosing()


def _enclosing_mesh():
    """Inside a shard_map body: its mesh (a shard_map nested there without `mesh=` maps over
    it, as JAX reads the mesh in context), else None."""
    if _enclosing.meshes and get_abstract_mesh().manual_axes:
        return _enclosing.meshes[-1]
    return None


def _shard_map(f, mesh, in_specs, out_specs, check_vma, manual_axes, *args):
    if batching.mesh_axes_bound() and (not _outer_manual(mesh) or not manual_axes):
        # JAX 0.10.2 refuses a pmap in a pmap, and a shard_map in a shard_map unless it maps
        # axes the outer one left automatic (axis_names=...)
        raise ValueError("shard_map (or pmap) inside the body of another shard_map or pmap: "
                         "the outer map is manual over every mesh axis, so the inner one has "
                         "none left; use one shard_map over a mesh with all the axes")
    leaves, in_tree = tree_util.tree_flatten(args)
    specs = [s if s is not None else PartitionSpec() for s in
             tree_util.flatten_prefix(_matching(in_specs, args), args, "shard_map in_specs")]
    in_avals = [core.get_aval(x) for x in leaves]
    for i, (s, a) in enumerate(zip(specs, in_avals, strict=True)):
        _check_spec(s, a, mesh, f"in_specs[{i}]", f, global_shape=True)
        _check_manual(s, manual_axes, "in_specs")
    local = [_local_aval(a, s, mesh, manual_axes if check_vma else None, manual_axes)
             for a, s in zip(in_avals, specs, strict=True)]
    box = []

    def body(*bs):
        out = f(*tree_util.tree_unflatten(in_tree, bs))
        flat, tree = tree_util.tree_flatten(out)
        out_specs_flat = tree_util.flatten_prefix(_matching(out_specs, out), out,
                                                  "shard_map out_specs")
        if check_vma:  # an output split along an axis it is invariant along: a pvary (as JAX)
            flat = [core.pvary(o, _spec_vma(s, manual_axes, mesh)) if _is_spec(s) else o
                    for o, s in zip(flat, out_specs_flat, strict=True)]
        # the box keeps the output's structure and specs, never its tracers (which would
        # outlive the trace: jax.checking_leaks reports them)
        box.append((out_specs_flat, tree))
        return flat
    with _body_context(mesh, manual_axes, check_vma):
        closed, _ = pe.trace_to_jaxpr(body, local)
    out_flat_specs, out_tree = box[0]
    flat_out = [o if o is not None else PartitionSpec() for o in out_flat_specs]
    for i, (s, a) in enumerate(zip(flat_out, closed.out_avals, strict=True)):
        _check_spec(s, a, mesh, f"out_specs[{i}]", f)
        _check_manual(s, manual_axes, "out_specs")
    if check_vma:
        _check_vma(closed.out_avals, flat_out, out_specs, out_tree, mesh, f, manual_axes)
    jaxpr, consts = pe.as_const_free(closed)
    _check_closed_over(consts, mesh, manual_axes)
    all_specs = (PartitionSpec(),) * len(consts) + tuple(specs)
    outs = shard_map_p.bind(*consts, *leaves, jaxpr=jaxpr, mesh=mesh, in_specs=all_specs,
                            out_specs=tuple(flat_out), check_vma=check_vma,
                            manual_axes=manual_axes)
    return tree_util.tree_unflatten(out_tree, outs)


def _local_aval(aval, spec, mesh, vma_axes=None, manual_axes=frozenset()):
    """One device's block of a global value laid out as `spec`; with `vma_axes` (the manual
    axes of a check_vma body), typed as varying along the axes of those that split it. Its
    type keeps how the Explicit axes left automatic split it (over the mesh whose
    `manual_axes` are Manual), as JAX types a partly manual body."""
    ways = _ways(spec, aval.ndim, mesh)
    shape = tuple(n // w for n, w in zip(aval.shape, ways, strict=True))
    sharding = _local_sharding(getattr(aval, "sharding", None), manual_axes | _outer_manual(mesh))
    if vma_axes is None:
        return aval.update(shape=shape, sharding=sharding)
    return aval.update(shape=shape, sharding=sharding,
                       vma=aval.vma | _spec_vma(spec, vma_axes, mesh))


def _local_sharding(sharding, manual):
    """A typed value's sharding inside a body manual over `manual`: the other axes' part, over
    the mesh with those axes Manual (None when no Explicit axis is left)."""
    if sharding is None or not manual:
        return None
    amesh = sharding.mesh.update_axis_types(
        {a: AxisType.Manual for a in sharding.mesh.axis_names if a in manual})
    if not amesh._any_axis_explicit:
        return None
    parts = [tuple(a for a in p if a not in manual) for p in sharding.spec._normalized(
        len(sharding.spec))]
    return NamedSharding(amesh, PartitionSpec(*[p[0] if len(p) == 1 else (p or None)
                                                for p in parts]))


def _global_aval(aval, spec, mesh, manual_axes=None):
    """The value the blocks laid out as `spec` make; it varies along the axes of an enclosing
    shard_map its blocks vary along (`manual_axes`: this one's), and is split along the
    Explicit axes its blocks' type names as well as along `spec`'s."""
    ways = _ways(spec, aval.ndim, mesh)
    vma = core.NO_VMA if manual_axes is None else aval.vma - manual_axes
    shape = tuple(n * w for n, w in zip(aval.shape, ways, strict=True))
    inner = getattr(aval, "sharding", None)
    if inner is None or manual_axes is None:
        return aval.update(shape=shape, vma=vma if vma else core.NO_VMA)
    parts = [tuple(m) + tuple(e) for m, e in zip(spec._normalized(aval.ndim),
                                                 inner.spec._normalized(aval.ndim), strict=True)]
    outer = mesh.abstract_mesh.update_axis_types(
        {a: AxisType.Manual for a in _outer_manual(mesh)})
    sharding = NamedSharding(outer, PartitionSpec(*[p[0] if len(p) == 1 else (p or None)
                                                    for p in parts]))
    return aval.update(shape=shape, sharding=sharding, vma=vma if vma else core.NO_VMA)


def _unmentioned(spec, ndim, mesh, manual_axes):
    used = {a for p in spec._normalized(ndim) for a in p}
    return tuple(a for a in mesh.axis_names if a not in used and a in manual_axes)


def _trace(fun, avals, mesh, manual_axes, check_vma):
    """Trace a flat per-device function into a const-free jaxpr with the manual mesh axes
    bound (with vma types if `check_vma`); returns (jaxpr, consts)."""
    with _body_context(mesh, manual_axes, check_vma):
        closed, _ = pe.trace_to_jaxpr(fun, list(avals))
    return pe.as_const_free(closed)


@contextlib.contextmanager
def _body_context(mesh, manual_axes, check_vma):
    """Where a body is traced: its manual mesh axes bound, vma types on if `check_vma`, and
    (as JAX) `get_abstract_mesh()` the mesh with those axes of type Manual."""
    every = manual_axes | _outer_manual(mesh)  # (with an enclosing shard_map's)
    manual_mesh = mesh.abstract_mesh.update_axis_types(
        {a: AxisType.Manual for a in mesh.axis_names if a in every})
    _enclosing.meshes.append(mesh)
    try:
        with batching.extend_axis_env(_axis_env(mesh, manual_axes)), \
                core.tracing_with_vma(every if check_vma else None, mesh.axis_names), \
                use_abstract_mesh(manual_mesh):
            yield
    finally:
        _enclosing.meshes.pop()


# -- check_vma: outputs typed as varying along axes their out_specs leave out ----------------------

# -- the primitive -------------------------------------------------------------------------------

@shard_map_p.def_abstract_eval
def _shard_map_abstract_eval(*avals, jaxpr, mesh, in_specs, out_specs, check_vma, manual_axes):
    return [_global_aval(a, s, mesh, manual_axes)
            for a, s in zip(jaxpr.out_avals, out_specs, strict=True)]


# body jaxpr -> {(avals, in_shardings, other params): Compiled}; weak in the jaxpr (a Compiled
# holds its one-equation jaxpr only weakly, so nothing here keeps a body alive)
_impls: "weakref.WeakKeyDictionary" = weakref.WeakKeyDictionary()


@shard_map_p.def_impl
def _shard_map_impl(*args, jaxpr, mesh, in_specs, out_specs, check_vma, manual_axes):
    """Run as one partitioned executable over the mesh (as a jitted call in JAX)."""
    params = dict(jaxpr=jaxpr, mesh=mesh, in_specs=in_specs, out_specs=out_specs,
                  check_vma=check_vma, manual_axes=manual_axes)
    avals = tuple(core.get_aval(x) for x in args)
    ins = None
    if xla.multiple_devices() and isinstance(mesh, Mesh):
        ins = spmd.shardings_for(None, None, (), {}, list(args), None, "shard_map", mesh)[0]
    per = _impls.setdefault(jaxpr, {})
    key = (avals, ins, mesh, in_specs, out_specs, check_vma, manual_axes)
    compiled = per.get(key)
    if compiled is None:
        compiled = per[key] = dispatch.compile_primitive(shard_map_p, avals, params,
                                                         in_shardings=ins)
    outs = compiled(list(args))
    return [lay_out(o, mesh, s) for o, s in zip(outs, out_specs, strict=True)]


def _shard_map_jvp(primals, tangents, *, jaxpr, mesh, in_specs, out_specs, check_vma,
                   manual_axes):
    nonzero = [type(t) is not ad.Zero for t in tangents]
    with _body_context(mesh, manual_axes, check_vma):
        closed = ad.jvp_jaxpr(jaxpr, nonzero)
    free, consts = pe.as_const_free(closed)
    nout = len(jaxpr.out_avals)
    t_out_specs = [s for s, a in zip(out_specs, jaxpr.out_avals, strict=True)
                   if not _is_float0(ad.tangent_aval(a))]
    outs = shard_map_p.bind(
        *consts, *primals, *[t for t in tangents if type(t) is not ad.Zero], jaxpr=free,
        mesh=mesh, manual_axes=manual_axes, check_vma=check_vma,
        in_specs=(PartitionSpec(),) * len(consts) + tuple(in_specs)
        + tuple(s for s, nz in zip(in_specs, nonzero, strict=True) if nz),
        out_specs=tuple(out_specs) + tuple(t_out_specs))
    return outs[:nout], ad.merge_float0_tangents(jaxpr.out_avals, outs[nout:])


def _is_float0(aval):
    return dtypes.is_float0(aval.dtype)


def _all_axes_spec(mesh, manual_axes):
    return PartitionSpec(tuple(a for a in mesh.axis_names if a in manual_axes))


def _shard_map_partial_eval(eqn, in_unknown):
    """A known shard_map (the known outputs and the residuals) and an unknown one (reading the
    residuals). A residual that is a known input, or a known output laid out so that each
    device's block comes back (its spec names every manual axis, or check_vma says it is the
    same along those it leaves out), is forwarded as that value, as JAX forwards them; each
    device's block of the others (scalars as shape (1,)) is stacked along its leading axis,
    split over all mesh axes."""
    p = eqn.params
    closed, mesh = p["jaxpr"], p["mesh"]
    manual, check = p["manual_axes"], p["check_vma"]
    in_specs, out_specs = p["in_specs"], p["out_specs"]
    nout = len(closed.out_avals)
    known, unknown, out_unknown, nres = ad.partial_eval_jaxpr(closed.jaxpr, in_unknown,
                                                              [False] * nout)
    known, unknown, nres = _drop_unread_residuals(known, unknown, nres)
    nk = len(known.outvars) - nres
    k_in_specs = [s for s, u in zip(in_specs, in_unknown) if not u]
    k_out_specs = [s for s, u in zip(out_specs, out_unknown) if not u]
    k_outer_in = [v for v, u in zip(eqn.invars, in_unknown) if not u]
    k_outer_out = [v for v, u in zip(eqn.outvars, out_unknown) if not u]
    every = _spec_axes(_all_axes_spec(mesh, manual))
    # each residual: ("in", i) a known input, ("out", i) a known output, or ("new", None)
    sources = []
    for r in known.outvars[nk:]:
        if isinstance(r, core.Var) and r in known.invars:
            sources.append(("in", known.invars.index(r)))
        elif isinstance(r, core.Var) and r in known.outvars[:nk] and (
                check or every <= _spec_axes(k_out_specs[known.outvars.index(r)])):
            sources.append(("out", known.outvars.index(r)))
        else:
            sources.append(("new", None))
    new = [k == "new" for k, _ in sources]
    res_avals = [v.aval for v in known.outvars[nk:]]
    scalar = [a.ndim == 0 and n for a, n in zip(res_avals, new, strict=True)]

    def known_fun(*xs):
        outs = core.eval_jaxpr(known, [], *xs)
        return outs[:nk] + [shape_ops.reshape(r, (1,)) if s else r for r, s, n in
                            zip(outs[nk:], scalar, new, strict=True) if n]

    def unknown_fun(*xs):
        res = [shape_ops.reshape(r, ()) if s else r for r, s in zip(xs[:nres], scalar, strict=True)]
        return core.eval_jaxpr(unknown, [], *res, *xs[nres:])
    k_jaxpr, k_consts = _trace(known_fun, [v.aval for v in known.invars], mesh, manual, check)
    res_local = [a.update(shape=(1,)) if s else a for a, s in zip(res_avals, scalar, strict=True)]
    u_jaxpr, u_consts = _trace(unknown_fun, res_local + [v.aval for v in unknown.invars[nres:]],
                               mesh, manual, check)
    assert not k_consts and not u_consts
    res_spec = _all_axes_spec(mesh, manual)
    common = dict(mesh=mesh, check_vma=check, manual_axes=manual)
    res_vars, res_specs, new_vars = [], [], []
    for (kind, i), a in zip(sources, res_local, strict=True):
        if kind == "in":
            res_vars.append(k_outer_in[i])
            res_specs.append(k_in_specs[i])
        elif kind == "out":
            res_vars.append(k_outer_out[i])
            res_specs.append(k_out_specs[i])
        else:
            new_vars.append(core.Var(_global_aval(a, res_spec, mesh, manual)))
            res_vars.append(new_vars[-1])
            res_specs.append(res_spec)
    k_eqn = core.JaxprEqn(
        k_outer_in, k_outer_out + new_vars, shard_map_p,
        dict(common, jaxpr=k_jaxpr, in_specs=tuple(k_in_specs),
             out_specs=tuple(k_out_specs) + (res_spec,) * len(new_vars)), None)
    u_eqn = core.JaxprEqn(
        res_vars + [v for v, u in zip(eqn.invars, in_unknown) if u],
        [v for v, u in zip(eqn.outvars, out_unknown) if u], shard_map_p,
        dict(common, jaxpr=u_jaxpr,
             in_specs=tuple(res_specs) + tuple(s for s, u in zip(in_specs, in_unknown) if u),
             out_specs=tuple(s for s, u in zip(out_specs, out_unknown) if u)), None)
    return [k_eqn], [u_eqn], out_unknown


def _shard_map_transpose(cts, *args, jaxpr, mesh, in_specs, out_specs, check_vma, manual_axes):
    """A shard_map of the body's backward pass (see the module docstring's NB on how the
    cotangents of values replicated over some mesh axes are scaled and summed)."""
    mask = [ad.is_undefined_primal(a) for a in args]
    residuals = [a for a in args if not ad.is_undefined_primal(a)]
    res_specs = [s for s, m in zip(in_specs, mask) if not m]
    lin_specs = [s for s, m in zip(in_specs, mask) if m]
    lin_avals = [v.aval for v, m in zip(jaxpr.jaxpr.invars, mask) if m]
    # (float0 cotangents, of integer values, are zeros: they never enter the body)
    nonzero = [type(c) is not ad.Zero and not dtypes.is_float0(getattr(c, "dtype", None))
               for c in cts]
    int_lin = [_is_float0(ad.tangent_aval(a)) for a in lin_avals]
    ct_specs = [s for s, nz in zip(out_specs, nonzero) if nz]
    res_local = [v.aval for v, m in zip(jaxpr.jaxpr.invars, mask) if not m]
    ct_local = [a for a, nz in zip(jaxpr.out_avals, nonzero) if nz]

    def bwd(*xs):
        res, cs = xs[:len(residuals)], iter(xs[len(residuals):])
        full = []
        for a, nz, s in zip(jaxpr.out_avals, nonzero, out_specs, strict=True):
            if not nz:
                full.append(ad.Zero(ad.tangent_aval(a)))
                continue
            c = next(cs)
            n = 1 if check_vma else math.prod(
                mesh.shape[ax] for ax in _unmentioned(s, a.ndim, mesh, manual_axes))
            full.append(c if n == 1 or _is_float0(a) else elt.div(c, np.asarray(n, a.dtype)))
        in_cts = ad.backward_pass(jaxpr.jaxpr, list(res), mask, full)
        outs = []
        for c, a, s, i in zip([c for c, m in zip(in_cts, mask) if m], lin_avals, lin_specs,
                              int_lin, strict=True):
            if i:
                continue
            c = ad.instantiate(c)
            axes = () if check_vma else _unmentioned(s, a.ndim, mesh, manual_axes)
            if axes and not _is_float0(a):
                c = psum_p.bind(c, axes=axes, axis_index_groups=None)
            outs.append(c)
        return outs
    free, consts = _trace(bwd, res_local + ct_local, mesh, manual_axes, check_vma)
    outs = shard_map_p.bind(*consts, *residuals, *[c for c, nz in zip(cts, nonzero) if nz],
                            jaxpr=free, mesh=mesh, check_vma=check_vma, manual_axes=manual_axes,
                            in_specs=(PartitionSpec(),) * len(consts) + tuple(res_specs)
                            + tuple(ct_specs), out_specs=tuple(
                                s for s, i in zip(lin_specs, int_lin, strict=True) if not i))
    it, lin = iter(outs), iter(zip(lin_avals, int_lin, strict=True))
    result = []
    for m in mask:
        if not m:
            result.append(None)
            continue
        a, i = next(lin)
        result.append(ad.Zero(ad.tangent_aval(a)) if i else next(it))
    return result


def _shard_map_batch(axis_data, args, dims, *, jaxpr, mesh, in_specs, out_specs, check_vma,
                     manual_axes):
    """vmap of a shard_map: the batch axis leads every batched argument and output (their
    specs get a leading entry: vmap's `spmd_axis_name`, which splits the batch over those mesh
    axes, else None); the body is the batched body, on its devices' part of the batch.
    Outputs that do not depend on the batched arguments stay unbatched."""
    params = dict(jaxpr=jaxpr, mesh=mesh, in_specs=in_specs, out_specs=out_specs,
                  check_vma=check_vma, manual_axes=manual_axes)
    if all(d is batching.not_mapped for d in dims):
        return shard_map_p.bind(*args, **params), [batching.not_mapped] * len(jaxpr.out_avals)
    spmd = axis_data.spmd_name
    names = () if spmd is None else tuple(spmd) if isinstance(spmd, (tuple, list)) else (spmd,)
    if any(set(names) & _spec_axes(s) for s in (*in_specs, *out_specs)):
        # NB: a spec already splits along those axes (the residuals of a differentiated
        # shard_map name every axis; JAX leaves vmap's out of them): the batch stays whole
        names = ()
    lead = None if not names else spmd if isinstance(spmd, str) else names
    size = axis_data.size // math.prod(mesh.shape[n] for n in names)
    vary = frozenset(names) if check_vma else frozenset()
    args = [x if d is batching.not_mapped else batching.moveaxis(x, d, 0)
            for x, d in zip(args, dims, strict=True)]
    in_dims = [None if d is batching.not_mapped else 0 for d in dims]
    local = [v.aval for v in jaxpr.jaxpr.invars]
    local = [a if d is None else a.update(shape=(size, *a.shape), vma=a.vma | vary)
             for a, d in zip(local, in_dims, strict=True)]
    box = []

    def body(*xs):
        outs, out_dims = batching.batch_flat(
            functools.partial(core.eval_jaxpr, jaxpr.jaxpr, jaxpr.consts), xs, in_dims,
            batching.AxisData(None, size))
        box.append([None if d is batching.not_mapped else 0 for d in out_dims])
        return [o if d is batching.not_mapped else
                core.pvary(batching.moveaxis(o, d, 0), tuple(vary))
                for o, d in zip(outs, out_dims, strict=True)]
    free, consts = _trace(body, local, mesh, manual_axes, check_vma)
    out_dims = box[0]
    outs = shard_map_p.bind(
        *consts, *args, jaxpr=free, mesh=mesh, check_vma=check_vma, manual_axes=manual_axes,
        in_specs=(PartitionSpec(),) * len(consts) + tuple(
            s if d is None else PartitionSpec(lead, *s) for s, d in zip(in_specs, in_dims)),
        out_specs=tuple(s if d is None else PartitionSpec(lead, *s)
                        for s, d in zip(out_specs, out_dims)))
    return outs, [batching.not_mapped if d is None else 0 for d in out_dims]


def _shard_map_lowering(ctx, *args, jaxpr, mesh, in_specs, out_specs, check_vma, manual_axes):
    if not isinstance(mesh, Mesh):
        mesh = _concrete(mesh)
    module = ctx.module
    saved = getattr(module, "axis_env", ()), module.manual, module.manual_axes
    # (nested in a shard_map manual over other axes: manual over those too)
    module.axis_env, module.manual = mesh, mesh.size > 1
    module.manual_axes = manual_axes | (saved[2] if saved[0] == mesh else frozenset())
    try:
        if mesh.size == 1:  # one device: nothing to partition
            return ctx.lower_jaxpr(jaxpr.jaxpr, [], list(args))
        if module.shardy:
            return _manual_computation(ctx, args, jaxpr.jaxpr, mesh, in_specs, out_specs,
                                       manual_axes)
        local_args = []
        for x, a, v, s in zip(args, ctx.avals_in, jaxpr.jaxpr.invars, in_specs, strict=True):
            full = _custom_call(ctx, "Sharding", x, a, _hlo(mesh, s, a.ndim))
            local_args.append(_custom_call(ctx, "SPMDFullToShardShape", full, v.aval, "{manual}"))
        outs = ctx.lower_jaxpr(jaxpr.jaxpr, [], local_args)
        results = []
        for o, v, a, s in zip(outs, jaxpr.jaxpr.outvars, ctx.avals_out, out_specs, strict=True):
            manual = _custom_call(ctx, "Sharding", o, v.aval, "{manual}")
            results.append(_custom_call(ctx, "SPMDShardToFullShape", manual, a,
                                        _hlo(mesh, s, a.ndim)))
        return results
    finally:
        module.axis_env, module.manual, module.manual_axes = saved


def _concrete(amesh):
    """The devices an AbstractMesh's shard_map is lowered on: the module's mesh when it has
    the same axes, else the module's devices laid out as the mesh's axes (as JAX lowers one)."""
    devices, mesh = spmd.lowering_target.get()
    if isinstance(mesh, Mesh) and mesh.shape_tuple == amesh.shape_tuple:
        return mesh
    if len(devices) != amesh.size:
        raise ValueError(f"shard_map: lowering over {amesh!r} needs {amesh.size} devices; the "
                         f"computation runs on {len(devices)}")
    arr = np.empty(len(devices), dtype=object)
    arr[:] = list(devices)
    return Mesh(arr.reshape(amesh.axis_sizes), amesh.axis_names, amesh.axis_types)


def _manual_computation(ctx, args, jaxpr, mesh, in_specs, out_specs, manual_axes):
    """Shardy's form: one `sdy.manual_computation` whose region is the body on per-device
    blocks; its in/out shardings are the specs over the mesh (every dimension left open to
    the mesh axes the region is not manual over)."""
    partly = set(ctx.module.manual_axes) != set(mesh.axis_names)  # (with enclosing regions')

    def shardings(specs, avals):
        return "#sdy.sharding_per_value<[" + ", ".join(
            sdy.tensor_sharding(ctx.module, NamedSharding(mesh, s), a.ndim, open_all=partly)
            for s, a in zip(specs, avals, strict=True)) + "]>"
    axes = ", ".join(f'"{a}"' for a in mesh.axis_names if a in manual_axes)
    attrs = {"in_shardings": shardings(in_specs, ctx.avals_in),
             "manual_axes": f"#sdy<manual_axes{{{axes}}}>",
             "out_shardings": shardings(out_specs, ctx.avals_out)}
    region = ([mlir.aval_type(v.aval) for v in jaxpr.invars],
              lambda *xs: ctx.lower_jaxpr(jaxpr, [], list(xs)), "sdy.return")
    return ctx.op_multi("sdy.manual_computation", *args, attrs=attrs, regions=[region])


def _hlo(mesh, spec, ndim):
    return str(_hlo_sharding(mesh.axis_names, mesh.axis_sizes, tuple(spec._normalized(ndim))))


def _custom_call(ctx, target, x, out_aval, sharding):
    return ctx.op("stablehlo.custom_call", x, out=out_aval, attrs={
        "call_target_name": f'"{target}"', "backend_config": '""',
        "mhlo.sharding": f'"{sharding}"'})


def _shard_map_dce(used_outputs, eqn):
    """The outputs that are used, what computes them, and only the inputs that reads (as
    JAX's rule)."""
    p = eqn.params
    if all(used_outputs):
        return None, eqn
    pruned = pe.prune_jaxpr(p["jaxpr"].jaxpr, used_outputs)
    read = {v for e in pruned.eqns for v in e.invars} | set(pruned.outvars)
    keep = [v in read for v in pruned.invars]
    body = core.Jaxpr(pruned.constvars, [v for v, k in zip(pruned.invars, keep) if k],
                      pruned.outvars, pruned.eqns, pruned.effects)
    return keep, core.JaxprEqn(
        [v for v, k in zip(eqn.invars, keep, strict=True) if k],
        [v for v, u in zip(eqn.outvars, used_outputs, strict=True) if u], shard_map_p,
        dict(p, jaxpr=core.ClosedJaxpr(body, p["jaxpr"].consts),
             in_specs=tuple(s for s, k in zip(p["in_specs"], keep, strict=True) if k),
             out_specs=tuple(s for s, u in zip(p["out_specs"], used_outputs) if u)), None)


shard_map_p.def_jvp(_shard_map_jvp)
shard_map_p.def_partial_eval(_shard_map_partial_eval)
shard_map_p.def_transpose(_shard_map_transpose)
shard_map_p.def_batch(batching.AxisBatchRule(_shard_map_batch))
shard_map_p.def_lowering(_shard_map_lowering)
shard_map_p.def_dce(_shard_map_dce)


# -- laying values out over a mesh ---------------------------------------------------------------

def lay_out(o, mesh, spec):
    """The output laid out over the mesh as its out_spec says (under tracing: constrained)."""
    if not isinstance(mesh, Mesh):
        return o
    sharding = NamedSharding(mesh, spec if spec is not None else PartitionSpec())
    if type(o) is ArrayImpl:
        if o._named_sharding == sharding and o._named_sharding.spec != sharding.spec:
            # the same layout, spelled as out_specs says (as JAX reports it)
            out = o._rewrap_with_aval_and_sharding(o.aval, o._sharding)
            out._named_sharding = sharding
            return out
        return put_named(o, sharding)
    if isinstance(o, core.Tracer):
        return barriers.with_sharding_constraint(o, sharding)
    return put_named(np.asarray(o), sharding)


def reshard(xs, out_shardings):
    """`xs` (a pytree) laid out as `out_shardings` (NamedShardings or PartitionSpecs under
    `set_mesh`; one, or a pytree prefix of `xs`): a device_put eagerly, a sharding constraint
    under tracing."""
    leaves, tree = tree_util.tree_flatten(xs)
    specs = tree_util.flatten_prefix(_as_tuple(out_shardings), xs, "reshard out_shardings") \
        if not _is_spec(out_shardings) and not isinstance(out_shardings, NamedSharding) \
        else [out_shardings] * len(leaves)
    outs = []
    for x, s in zip(leaves, specs, strict=True):
        s = named_sharding_for(s, "reshard")
        if not isinstance(s, NamedSharding):
            raise TypeError(f"reshard: expected a NamedSharding or PartitionSpec, got {s!r}")
        outs.append(barriers.with_sharding_constraint(x, s) if isinstance(x, core.Tracer)
                    else put_named(x, s))
    return tree_util.tree_unflatten(tree, outs)


# -- eager calls whose body needs concrete values: op by op, as JAX runs every eager call ------
#
# An eager call runs jitted (one compile); a body that reads a value as a Python bool or int
# (`if psum(x, "i") > 0:`) cannot be traced, so it runs again op by op, as JAX 0.10.2 runs
# every eager shard_map: each value is a global array stacking the devices' blocks along a
# leading axis split over the mesh axes it varies along (one block when it varies along none),
# each operation a jitted shard_map over those blocks. A value varying along no axis (check_vma)
# has a concrete value: its block. NB: the body's Python code runs twice on such a call's first
# attempt (the failed trace, then op by op).

class _EagerTracer(core.Tracer):
    __slots__ = ("val", "vma")

    def __init__(self, trace, val, vma):
        self._trace, self.val, self.vma = trace, val, vma

    @property
    def aval(self):
        a = core.get_aval(self.val)
        return a.update(shape=a.shape[1:], vma=self.vma if self._trace.check else None)

    def to_concrete_value(self):
        if self._trace.check and not self.vma:
            return np.asarray(self.val)[0]
        return None


class _EagerTrace(core.Trace):
    __slots__ = ("mesh", "manual", "check")

    def __init__(self, parent, mesh, manual, check):
        super().__init__(parent)
        self.mesh, self.manual, self.check = mesh, manual, check

    def lift(self, x):
        """(value, its vma, whether it is stacked): a constant is one replicated value."""
        if isinstance(x, _EagerTracer) and x._trace is self:
            return x.val, x.vma, True
        return x, frozenset(), False

    def process_primitive(self, prim, args, params):
        vals, vmas, stacked = zip(*map(self.lift, args)) if args else ((), (), ())
        local = tuple(x.aval if s else core.get_aval(v) for x, v, s in
                      zip(args, vals, stacked, strict=True))
        run, out_vmas = _eager_op(prim, params, local, stacked, self.mesh, self.manual,
                                  self.check)
        with core.set_current_trace(self.parent), core.tracing_with_vma(None), \
                use_abstract_mesh(self.mesh.abstract_mesh):
            outs = run(*vals)
        outs = [_EagerTracer(self, o, v) for o, v in zip(outs, out_vmas, strict=True)]
        return outs if prim.multiple_results else outs[0]

    def process_custom_call(self, prim, fun, rules, args, params):
        return fun(*args)  # (as JAX: an eager body is never differentiated)


def _stacked_spec(vma, manual, check, mesh):
    """The layout of a stacked value: its leading axis split over the axes it varies along (all
    the manual axes without check_vma)."""
    axes = tuple(a for a in mesh.axis_names if a in (vma if check else manual))
    return PartitionSpec(axes if axes else None)


def _eager_op(prim, params, local, stacked, mesh, manual, check):
    """A jitted shard_map applying `prim` to each device's blocks (stacked values lose and
    regain their leading axis of one), and the vma of its outputs."""
    key = (prim, tuple(params.items()), local, stacked, mesh, manual, check)
    try:
        hit = _eager_ops.get(key)
    except TypeError:  # (an unhashable parameter: not cached)
        key, hit = None, None
    if hit is not None:
        return hit

    def apply(*xs):
        out = prim.bind(*xs, **params)
        return list(out) if prim.multiple_results else [out]
    body_avals = [a if s else _replicated_local(a, check) for a, s in zip(local, stacked)]
    jaxpr, _ = _trace(apply, body_avals, mesh, manual, check)
    out_vmas = [getattr(a, "vma", frozenset()) if check else manual for a in jaxpr.out_avals]

    def blocks(*xs):
        xs = [shape_ops.squeeze(x, (0,)) if s else x for x, s in zip(xs, stacked, strict=True)]
        return tuple(shape_ops.expand_dims(o, (0,)) for o in apply(*xs))
    run = jit(shard_map(
        blocks, mesh=mesh, check_vma=check, axis_names=manual,
        in_specs=tuple(_stacked_spec(a.vma if check else manual, manual, check, mesh) if s
                       else PartitionSpec() for a, s in zip(local, stacked, strict=True)),
        out_specs=tuple(_stacked_spec(v, manual, check, mesh) for v in out_vmas)))
    hit = run, out_vmas
    if key is not None:
        if len(_eager_ops) > 1024:
            _eager_ops.clear()
        _eager_ops[key] = hit
    return hit


_eager_ops: dict = {}


def _replicated_local(aval, check):
    return aval.update(vma=frozenset()) if check else aval


def _run_op_by_op(f, mesh, specs, out_specs, check_vma, manual, args):
    """The eager call `shard_map(f, ...)(*args)` run op by op (see above); its outputs laid
    out as `out_specs` says."""
    leaves, in_tree = tree_util.tree_flatten(args)
    flat_specs = [s if s is not None else PartitionSpec() for s in
                  tree_util.flatten_prefix(_matching(specs, args), args, "shard_map in_specs")]
    in_vmas = [_spec_vma(s, manual, mesh) if check_vma else manual for s in flat_specs]
    stacked = [_converter(s, _stacked_spec(v, manual, check_vma, mesh), mesh, manual, check_vma,
                          _stack)(x) for x, s, v in zip(leaves, flat_specs, in_vmas, strict=True)]
    with core.new_trace(_EagerTrace, mesh, manual, check_vma) as trace, \
            batching.extend_axis_env(_axis_env(mesh, manual)), \
            core.tracing_with_vma(manual if check_vma else None, mesh.axis_names), \
            use_abstract_mesh(mesh.abstract_mesh.update_axis_types(
                {a: AxisType.Manual for a in mesh.axis_names if a in manual})):
        ins = [_EagerTracer(trace, x, v) for x, v in zip(stacked, in_vmas, strict=True)]
        out = f(*tree_util.tree_unflatten(in_tree, ins))
        flat, out_tree = tree_util.tree_flatten(out)
        lifted = [trace.lift(o) for o in flat]
    flat_out = [s if s is not None else PartitionSpec() for s in
                tree_util.flatten_prefix(_matching(out_specs, out), out, "shard_map out_specs")]
    if check_vma:
        local = []
        for v, vma, s in lifted:
            a = core.get_aval(v)
            local.append(a.update(shape=a.shape[1:] if s else a.shape, vma=vma))
        _check_vma(local, flat_out, out_specs, out_tree, mesh, f, manual)
    outs = [_converter(_stacked_spec(vma, manual, check_vma, mesh) if s else PartitionSpec(), o,
                       mesh, manual, check_vma, _unstack if s else _same)(v)
            for (v, vma, s), o in zip(lifted, flat_out, strict=True)]
    return tree_util.tree_unflatten(out_tree, outs)


def _stack(b):
    return shape_ops.expand_dims(b, (0,))


def _unstack(b):
    return shape_ops.squeeze(b, (0,))


def _same(b):
    return b


@functools.lru_cache(maxsize=256)
def _converter(in_spec, out_spec, mesh, manual, check, block_fn):
    """A value laid out as `in_spec` taken to `out_spec` by `block_fn` on each device's block."""
    return jit(shard_map(block_fn, mesh=mesh, in_specs=in_spec, out_specs=out_spec,
                         check_vma=check, axis_names=manual))
