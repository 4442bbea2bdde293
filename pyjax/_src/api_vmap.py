"""`vmap`: vectorize a function over a mapped axis of its arguments.

The user-facing half of batching: match `in_axes`/`out_axes` against the argument and output
pytrees, check the mapped sizes agree, run the function under a `BatchTrace`
(`interpreters/batching.py`) and move each output's batch axis where `out_axes` asks.
"""
from __future__ import annotations

import functools
import inspect

from pyjax._src import core, tree_util
from pyjax._src.interpreters import batching
from pyjax._src.interpreters.batching import AxisData, not_mapped
from pyjax._src.lax import interpreter_ops  # noqa: F401  (fills batching's lax_ops slots)
from pyjax._src.state.types import RefView
from pyjax._src.traceback_util import api_boundary


def vmap(fun, in_axes=0, out_axes=0, axis_name=None, axis_size=None, spmd_axis_name=None):
    """Vectorize `fun` over an axis of its arguments.

    `in_axes` (an int, None, or a pytree prefix of the positional arguments) says which axis of
    each argument is mapped (None: not mapped; negative ints count from the end); keyword
    arguments are always mapped over axis 0. `out_axes` likewise places the mapped axis in the
    outputs. `axis_name` names the axis for collectives (`lax.psum(x, axis_name)`, ...);
    `axis_size` is needed when no argument is mapped. `spmd_axis_name` is accepted for
    compatibility (sharding constraints come with the sharding issue).

    Example:
        >>> vmap(jnp.dot, in_axes=(0, None))(jnp.ones((5, 3)), jnp.ones(3)).shape
        (5,)
        >>> vmap(lambda x: x - lax.pmean(x, "b"), axis_name="b")(jnp.arange(3.0))
        Array([-1.,  0.,  1.], dtype=float32)
    """
    if not callable(fun):
        raise TypeError(f"vmap requires a callable, got {fun!r} of type {type(fun).__name__}")
    if isinstance(in_axes, list):
        # lists and tuples are interchangeable to users; as a prefix of the args tuple it's a tuple
        in_axes = tuple(in_axes)
    if not (in_axes is None or type(in_axes) is tuple or isinstance(in_axes, int)
            or type(in_axes) in batching.spec_types):
        raise TypeError(f"vmap in_axes must be an int, None, or a tuple of entries corresponding to "
                        f"the positional arguments passed to the function, but got {in_axes}.")
    _check_axes_spec(in_axes, "in_axes")
    _check_axes_spec(out_axes, "out_axes")

    @functools.wraps(fun)
    @api_boundary
    def vmap_f(*args, **kwargs):
        if isinstance(in_axes, tuple) and len(in_axes) != len(args):
            raise ValueError(f"vmap in_axes must be an int, None, or a tuple of entries corresponding "
                             f"to the positional arguments passed to the function, but got "
                             f"len(in_axes)={len(in_axes)}, len(args)={len(args)}")
        for i, a in enumerate(args):
            if type(a) is RefView:
                _refuse_view(fun, i)
        # (registered vmappable containers are leaves here: their own rules map them)
        is_elt = batching.is_vmappable if batching.vmappables else None
        args_flat, in_tree = tree_util.tree_flatten((args, kwargs), is_elt)
        elts = {i for i, x in enumerate(args_flat) if is_elt and is_elt(x)}
        tree = (args, kwargs) if not elts else tree_util.tree_unflatten(
            in_tree, [_ELT if i in elts else x for i, x in enumerate(args_flat)])
        in_axes_flat = _flatten_axes("vmap in_axes", (in_axes, 0), tree, kws=True)
        names = _leaf_names(fun, *tree)
        in_dims = [not_mapped if i in elts else _canonical_in_axis(x, a)
                   for i, (x, a) in enumerate(zip(args_flat, in_axes_flat, strict=True))]
        if not args_flat and axis_size is None:
            raise ValueError("vmap wrapped function must be passed at least one argument "
                             "containing an array or axis_size must be specified, got empty "
                             f"*args={args} and **kwargs={kwargs}")
        size = _mapped_axis_size(args_flat, in_dims, in_axes_flat, names, axis_size, elts)
        _check_mapped_axis_specs(args_flat, in_dims, elts)
        out_tree_box, out_elts = [], {}

        def flat_fun(*flat):
            if elts:
                trace, flat = core.current_trace(), list(flat)
                for i in elts:
                    flat[i] = batching.to_elt(trace, size, flat[i], in_axes_flat[i])
            a, kw = tree_util.tree_unflatten(in_tree, flat)
            out_flat, out_tree = tree_util.tree_flatten(fun(*a, **kw), is_elt)
            out_tree_box.append(out_tree)
            if is_elt and any(map(is_elt, out_flat)):  # rebuilt here, by their from_elt rules
                skeleton = tree_util.tree_unflatten(out_tree, [_ELT if is_elt(x) else x for x in out_flat])
                specs = tree_util.flatten_prefix(out_axes, skeleton, "vmap out_axes")
                trace = core.current_trace()
                for i, x in enumerate(out_flat):
                    if is_elt(x):
                        out_elts[i] = batching.from_elt(trace, size, x, specs[i])
                        out_flat[i] = _ELT
            return out_flat
        outs, out_dims = batching.batch_flat(flat_fun, args_flat, in_dims,
                                             AxisData(axis_name, size, spmd_axis_name))
        out_tree = out_tree_box[0]
        out_axes_flat = _flatten_axes("vmap out_axes", out_axes,
                                      tree_util.tree_unflatten(out_tree, outs))
        placed = []
        for i, (x, d, a) in enumerate(zip(outs, out_dims, out_axes_flat, strict=True)):
            if i in out_elts:
                placed.append(out_elts[i])
                continue
            if a is None and d is not not_mapped:
                _raise_mapped_output(axis_name, tree_util.tree_unflatten(out_tree, outs), i, d)
            placed.append(_place_output(x, d, a, size))
        return tree_util.tree_unflatten(out_tree, placed)

    # JAX's docstring for the vmapped function
    name = getattr(fun, "__name__", type(fun).__name__)
    vmap_f.__doc__ = (f"Vectorized version of {name}. Takes similar arguments as {name} but with "
                      f"additional array axes over which {name} is mapped.")
    if getattr(fun, "__doc__", None):
        vmap_f.__doc__ += "\n\nOriginal documentation:\n\n" + fun.__doc__
    return vmap_f


class _Elt:
    """A stand-in leaf for a vmappable container (matched against in_axes/out_axes whole)."""

    def __repr__(self):
        return "<vmappable>"


_ELT = _Elt()


def _check_axes_spec(spec, what):
    leaves = tree_util.tree_leaves(spec, is_leaf=lambda x: x is None)
    if not all(x is None or (isinstance(x, int) and not isinstance(x, bool))
               or type(x) in batching.spec_types for x in leaves):
        raise TypeError(f"vmap {what} must be an int, None, or (nested) container with those types "
                        f"as leaves, but got {spec}.")


def _canonical_in_axis(x, axis):
    if axis is None:
        return not_mapped
    try:
        aval = core.get_aval(x)
    except TypeError:
        raise TypeError(f"vmap: cannot map over a value of type {type(x).__name__} ({x!r:.60}); "
                        f"give it in_axes=None (or pass an array)") from None
    if not -aval.ndim <= axis < aval.ndim:
        raise ValueError(f"vmap was requested to map its argument along axis {axis}, which implies "
                         f"that its rank should be at least {axis + 1 if axis >= 0 else -axis}, but "
                         f"is only {aval.ndim} (its shape is {aval.shape})")
    return axis % aval.ndim


def _refuse_view(fun, i):
    """JAX's TypeError for a view of a ref (`ref.at[...]`) given to vmap."""
    try:
        params = [p.name for p in inspect.signature(fun).parameters.values()
                  if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
    except (TypeError, ValueError):
        params = []
    name = params[i] if i < len(params) else f"args[{i}]"
    code = getattr(fun, "__code__", None)
    where = (f"{getattr(fun, '__name__', fun)} at {code.co_filename}:{code.co_firstlineno}"
             if code is not None else str(fun))
    raise TypeError(f"When tracing {where} for vmap, TransformedRefs are not allowed, but got a "
                    f"TransformedRef with name {name}.ref.")


def _flatten_axes(name, axes, tree, kws=False):
    """One axis spec per leaf of `tree`; where `axes` is no tree prefix of it, JAX's ValueError
    with each mismatching subtree described (`prefix_errors`; with `kws`, `axes` and `tree` are
    (positional, keyword) pairs and the positional ones are described)."""
    try:
        return tree_util.flatten_prefix(axes, tree, name)
    except ValueError as e:
        errors = tree_util.prefix_errors(*((axes[0], tree[0]) if kws else (axes, tree)))
        if not errors:
            raise
        details = "\n  ".join(err(name).args[0] for err in errors)
        raise ValueError(f"{name} specification must be a tree prefix of the corresponding "
                         f"value; \n  Mismatch details ({len(errors)} found):\n  {details}\n"
                         f"{e}") from None


def _leaf_names(fun, args, kwargs):
    """'argument x', "argument b['a']", ... for each leaf of (args, kwargs), for error messages."""
    try:
        params = [p.name for p in inspect.signature(fun).parameters.values()
                  if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
    except (TypeError, ValueError):
        params = []
    names = []  # (JAX's spelling: `argument x`, `args[2]` past the named ones, `kwargs['k']`)
    for i, a in enumerate(args):
        label = f"argument {params[i]}" if i < len(params) else f"args[{i}]"
        paths, _ = tree_util.tree_flatten_with_path(a)
        names += [f"{label}{tree_util.keystr(p)}" for p, _ in paths]
    for k, v in kwargs.items():
        paths, _ = tree_util.tree_flatten_with_path(v)
        names += [f"kwargs[{k!r}]{tree_util.keystr(p)}" for p, _ in paths]
    return names


def _mapped_axis_size(args_flat, in_dims, in_axes_flat, names, axis_size, elts=()):
    sizes = {}
    for i, (x, d, a, name) in enumerate(zip(args_flat, in_dims, in_axes_flat, names,
                                             strict=True)):
        if i in elts:
            # a vmappable container (BCOO, ...) with a shape: its mapped axis sizes the map, as
            # in JAX; other specs (a custom spec type) say nothing about the size
            if isinstance(a, int) and len(getattr(x, "shape", ())) > a:
                sizes.setdefault(x.shape[a], []).append(f"axis {a} of {name}")
        elif d is not not_mapped:
            aval = core.get_aval(x)
            sizes.setdefault(aval.shape[d], []).append(
                f"axis {a} of {name} of type {aval.str_short(short_dtypes=False)}")
    if not sizes:
        if axis_size is None:
            raise ValueError("vmap must have at least one non-None value in in_axes or axis_size "
                             "must be specified")
        return int(axis_size)
    if len(sizes) == 1 and (axis_size is None or axis_size in sizes):
        return next(iter(sizes))
    lines = [] if axis_size is None else [f"  * the `axis_size` argument was {axis_size};"]
    # (as JAX: the most common size first, then the others, each with its first axis)
    for k, (size, where) in enumerate(sorted(sizes.items(), key=lambda kv: -len(kv[1]))):
        if len(where) == 1:
            lines.append(f"  * one axis had size {size}: {where[0]};")
        else:
            lines.append(f"  * {'most' if k == 0 else 'some'} axes ({len(where)} of them) had "
                         f"size {size}, e.g. {where[0]};")
    raise ValueError("vmap got inconsistent sizes for array axes to be mapped:\n"
                     + "\n".join(lines)[:-1])


def _check_mapped_axis_specs(args_flat, in_dims, elts):
    """Under sharding in types the mapped axes must be laid out alike (JAX's ValueError): an
    axis split over a mesh axis and one that is not cannot be mapped together."""
    specs = [_axis_spec(x, d) for i, (x, d) in enumerate(zip(args_flat, in_dims, strict=True))
             if i not in elts and d is not not_mapped]
    for s in specs[1:]:
        if s != specs[0]:
            raise ValueError(f"Mapped away dimension of inputs passed to vmap should be sharded "
                             f"the same. Got inconsistent axis specs: {specs[0]} vs {s}")


def _axis_spec(x, d):
    s = getattr(core.get_aval(x), "sharding", None)
    return s.spec[d] if s is not None and d < len(s.spec) else None


def _raise_mapped_output(axis_name, outs_tree, i, bdim):
    """JAX's ValueError for an output batched along the axis where `out_axes` says None: by the
    axis name when there is one, else by the output's path."""
    if axis_name is not None:
        raise ValueError(f"vmap has mapped output (axis_name={axis_name}) but out_axes is None")
    path = tree_util.tree_flatten_with_path(outs_tree)[0][i][0]
    raise ValueError(f"at vmap out_axes{tree_util.keystr(path)}, got axis spec None but output "
                     f"was batched on axis {bdim}")


def _place_output(x, bdim, out_axis, size):
    if out_axis is None:
        return x
    rank = core.get_aval(x).ndim - (bdim is not not_mapped)
    if not -(rank + 1) <= out_axis <= rank:
        raise ValueError(f"vmap out_axes: axis {out_axis} is out of bounds for an output of "
                         f"dimension {rank + 1} (rank {rank} per example, plus the mapped axis)")
    return batching.matchaxis(x, bdim, out_axis % (rank + 1), size)
