"""Functions that map Python functions over arrays: `vectorize` (NumPy's generalized-ufunc
signatures), `apply_along_axis`, `apply_over_axes`, `fromfunction`, `piecewise`, and `select`.

This module sits in the api layer: the mapping is `vmap`, as in JAX, so the function is traced
once rather than called per element.
"""
from __future__ import annotations

import functools
import re
import warnings

import numpy as np

from pyjax._src import core
from pyjax._src.config import config
from pyjax._src.api_vmap import vmap
from pyjax._src.lax import elementwise as lax
from pyjax._src.lax.control_flow.conditionals import switch
from pyjax._src.lax.utils import canonicalize_axis
from pyjax._src.numpy import reductions as jred
from pyjax._src.numpy.creation import arange, array, asarray, zeros_like
from pyjax._src.numpy.shape import broadcast_arrays, concatenate, expand_dims, squeeze, stack
from pyjax._src.numpy.util import asarray_value, check_arraylike, promote_dtypes, shape_tuple

# -- vectorize -----------------------------------------------------------------------------------

_DIM = r"\w+"
_CORE = rf"\((?:{_DIM}(?:,{_DIM})*)?\)"
_SIGNATURE = re.compile(rf"^{_CORE}(?:,{_CORE})*->{_CORE}(?:,{_CORE})*$")


def _parse_signature(signature):
    """'(m,n),(n)->(m)' -> ([('m', 'n'), ('n',)], [('m',)])."""
    sig = signature.replace(" ", "")
    if not _SIGNATURE.match(sig):
        raise ValueError(f"not a valid gufunc signature: {signature}")
    ins, outs = sig.split("->")
    parse = lambda side: [tuple(re.findall(_DIM, group)) for group in re.findall(_CORE, side)]  # noqa: E731
    return parse(ins), parse(outs)


def _core_sizes(args, core_dims, context):
    """(the broadcast loop shape, {core dim name: size})."""
    sizes, loop_shapes = {}, []
    for arg, dims in zip(args, core_dims, strict=True):
        nd = np.ndim(arg)
        if nd < len(dims):
            raise ValueError(f"input with shape {np.shape(arg)} does not have enough dimensions for "
                             f"all core dimensions {dims} {context}")
        for name, size in zip(dims, np.shape(arg)[nd - len(dims):]):
            if sizes.setdefault(name, size) != size:
                raise ValueError(f"inconsistent size for core dimension {name!r}: {size} vs "
                                 f"{sizes[name]} {context}")
        loop_shapes.append(np.shape(arg)[:nd - len(dims)])
    try:
        return np.broadcast_shapes(*loop_shapes), sizes
    except ValueError:
        raise ValueError(f"the loop dimensions {loop_shapes} do not broadcast {context}") from None


def _check_rank_promotion(args, in_dims, signature):
    """jax_numpy_rank_promotion for the loop dimensions (a 0-d argument broadcasts freely)."""
    mode = config._values["jax_numpy_rank_promotion"]
    ranks = {np.ndim(a) - len(dims) for a, dims in zip(args, in_dims, strict=True) if np.ndim(a)}
    if mode == "allow" or len(ranks) < 2:
        return
    msg = (f"operands with shapes {[np.shape(a) for a in args]} require rank promotion for "
           f"jnp.vectorize function with signature {signature}. Set the jax_numpy_rank_promotion "
           f"config option to 'allow' to disable this message.")
    if mode == "raise":
        raise ValueError(msg)
    warnings.warn(msg, stacklevel=3)


def _checked_outputs(func, sizes, out_dims, context):
    """`func`, checking that its outputs have the signature's core dimensions."""
    def checked(*args):
        out = func(*args)
        outs = out if isinstance(out, tuple) else (out,)
        if len(out_dims) > 1 and not isinstance(out, tuple):
            raise TypeError(f"output must be a tuple when multiple outputs are expected, got: "
                            f"{out!r}\n{context}")
        if len(outs) != len(out_dims):
            raise TypeError(f"wrong number of output arguments: expected {len(out_dims)}, "
                            f"got {len(outs)} {context}")
        for o, dims in zip(outs, out_dims):
            if np.ndim(o) != len(dims):
                raise ValueError(f"output shape {np.shape(o)} does not match core dimensions {dims} {context}")
            for name, size in zip(dims, np.shape(o)):
                if sizes.setdefault(name, size) != size:
                    raise ValueError(f"inconsistent size for core dimension {name!r}: {size} vs "
                                     f"{sizes[name]} {context}")
        return out
    return checked


def _without_excluded(func, excluded, args, kwargs):
    """`func` with the excluded positional and keyword arguments bound, and the others."""
    fixed_pos = {i: args[i] for i in excluded if isinstance(i, int) and i < len(args)}
    fixed_kw = {k: v for k, v in kwargs.items() if k in excluded}
    free_pos = [a for i, a in enumerate(args) if i not in fixed_pos]
    free_kw = [k for k in kwargs if k not in excluded]

    def bound(*free):
        it = iter(free[:len(free_pos)])
        full = [fixed_pos[i] if i in fixed_pos else next(it) for i in range(len(args))]
        return func(*full, **fixed_kw, **dict(zip(free_kw, free[len(free_pos):])))
    return bound, free_pos + [kwargs[k] for k in free_kw]


def vectorize(pyfunc, *, excluded=frozenset(), signature=None):
    """`pyfunc` mapped over the leading (loop) dimensions of its arguments, broadcast together;
    with a `signature` such as '(n),(n)->()' the trailing core dimensions go to `pyfunc` whole.
    `excluded` names positional indices or keywords passed through unmapped.

        >>> jnp.vectorize(jnp.dot, signature='(n),(n)->()')(jnp.ones((3, 2)), jnp.ones(2))
        Array([2., 2., 2.], dtype=float32)
    """
    if any(not isinstance(e, (str, int)) for e in excluded):
        raise TypeError(f"jax.numpy.vectorize can only exclude integer or string arguments, "
                        f"but excluded={excluded!r}")
    if any(isinstance(e, int) and e < 0 for e in excluded):
        raise ValueError(f"excluded={excluded!r} contains negative numbers")

    @functools.wraps(pyfunc)
    def wrapped(*args, **kwargs):
        context = f"on vectorized function with excluded={excluded!r} and signature={signature!r}"
        func, free = _without_excluded(pyfunc, excluded, args, kwargs)
        if signature is None:
            in_dims, out_dims = [()] * len(free), None
        else:
            in_dims, out_dims = _parse_signature(signature)
            if len(in_dims) != len(free):
                raise TypeError(f"wrong number of positional arguments: expected {len(in_dims)}, "
                                f"got {len(free)} {context}")
        nones = {i for i, a in enumerate(free) if a is None}
        if nones:  # None arguments pass through, as excluded ones
            if any(in_dims[i] for i in nones):
                raise ValueError(f"Cannot pass None at locations {nones} with signature={signature!r}")
            func, free = _without_excluded(func, nones, free, {})
            in_dims = [d for i, d in enumerate(in_dims) if i not in nones]
        free = [asarray(a) for a in free]
        loop_shape, sizes = _core_sizes(free, in_dims, context)
        if out_dims is not None:
            func = _checked_outputs(func, sizes, out_dims, context)
        _check_rank_promotion(free, in_dims, signature)
        return _map_loop_dims(func, free, in_dims, loop_shape)
    return wrapped


def _map_loop_dims(func, args, in_dims, loop_shape):
    """vmap `func` over each loop dimension (innermost first); an argument of size 1 there is
    squeezed and unmapped, and a dimension every argument lacks is added to the results."""
    squeezed, filled = [], []
    for a, dims in zip(args, in_dims):
        loop = np.shape(a)[:np.ndim(a) - len(dims)]
        filled.append((1,) * (len(loop_shape) - len(loop)) + loop)
        squeezed.append(squeeze(a, tuple(i for i, s in enumerate(loop) if s == 1)))
    expand = []
    for d in reversed(range(len(loop_shape))):
        in_axes = tuple(None if shape[d] == 1 else 0 for shape in filled)
        if all(ax is None for ax in in_axes):
            expand.append(d)
        else:
            func = vmap(func, in_axes)
    out = func(*squeezed)
    if not expand:
        return out
    grow = lambda r: expand_dims(r, tuple(sorted(expand)))  # noqa: E731
    return tuple(grow(r) for r in out) if isinstance(out, tuple) else grow(out)


# -- mapping over axes ---------------------------------------------------------------------------


def apply_along_axis(func1d, axis, arr, *args, **kwargs):
    """`func1d` applied to every 1-D slice of `arr` along `axis` (its results take that axis'
    place).

        >>> jnp.apply_along_axis(jnp.sum, 1, jnp.ones((2, 3)))
        Array([3., 3.], dtype=float32)
    """
    check_arraylike("apply_along_axis", arr)
    nd = np.ndim(arr)
    if not -nd <= axis < nd:  # JAX's error class: a ValueError (not NumPy's AxisError)
        raise ValueError(f"apply_along_axis: axis {axis} is out of bounds for an array of rank {nd}")
    axis = canonicalize_axis(axis, nd, "axis", "apply_along_axis")
    func = lambda a: func1d(a, *args, **kwargs)  # noqa: E731
    for i in range(1, nd - axis):  # the axes after `axis`, mapped to the end of the result
        func = vmap(func, in_axes=i, out_axes=-1)
    for _ in range(axis):          # the axes before it, kept in front
        func = vmap(func, in_axes=0, out_axes=0)
    return func(asarray_value(arr))


def apply_over_axes(func, a, axes):
    """`func(a, axis)` for each of `axes` in turn; a result that lost the axis gets it back
    (size 1), so the rank never changes."""
    check_arraylike("apply_over_axes", a)
    a = asarray_value(a)
    for axis in axes:
        b = func(a, axis)
        if np.ndim(b) == np.ndim(a) - 1:
            b = expand_dims(b, axis)
        elif np.ndim(b) != np.ndim(a):
            raise ValueError("function is not returning an array of the correct shape")
        a = b
    return a


def fromfunction(function, shape, *, dtype=float, **kwargs):
    """`function(i0, i1, ...)` evaluated at every index of `shape` (the indices of `dtype`),
    by vmap over each axis.

        >>> jnp.fromfunction(lambda i, j: i + j, (2, 3), dtype=int)
        Array([[0, 1, 2],
               [1, 2, 3]], dtype=int32)
    """
    shape = shape_tuple(shape, "fromfunction")
    for i in range(len(shape)):
        in_axes = [0 if i == j else None for j in range(len(shape))]
        function = vmap(function, in_axes=tuple(in_axes[::-1]))
    return function(*(arange(s, dtype=dtype) for s in shape), **kwargs)


# -- choosing among values -----------------------------------------------------------------------


def select(condlist, choicelist, default=0):
    """For each element, the value of the first choice whose condition holds, else `default`.

        >>> x = jnp.arange(4)
        >>> jnp.select([x < 1, x > 2], [x, -x], 9)
        Array([ 0,  9,  9, -3], dtype=int32)
    """
    if len(condlist) != len(choicelist):
        raise ValueError(f"condlist must have length equal to choicelist ({len(condlist)} vs "
                         f"{len(choicelist)})")
    if not condlist:
        raise ValueError("condlist must be non-empty")
    check_arraylike("select", *condlist, *choicelist, default)
    choices = promote_dtypes(*(asarray(c) for c in (default, *choicelist)))
    conds = stack(broadcast_arrays(False, *(asarray(c) for c in condlist)))
    # argmax finds the first True; the default sits first, under an all-False condition
    which = jred.argmax(lax.convert_element_type(conds, bool), axis=0)
    return lax.select_n(*broadcast_arrays(which, *choices))


def piecewise(x, condlist, funclist, *args, **kw):
    """`funclist[i](x)` (or the constant `funclist[i]`) where `condlist[i]` holds (the last one
    that holds wins); one extra function gives the value where none holds (else 0).

        >>> x = jnp.array([-2.0, 0.5, 3.0])
        >>> jnp.piecewise(x, [x < 0, x > 1], [lambda v: -v, lambda v: v * 10, 0.0])
        Array([ 2.,  0., 30.], dtype=float32)
    """
    check_arraylike("piecewise", x)
    x = asarray_value(x)
    nc, nf = len(condlist), len(funclist)
    if nf == nc + 1:
        funclist = list(funclist[-1:]) + list(funclist[:-1])
    elif nf == nc:
        funclist = [0] + list(funclist)
    else:
        raise ValueError(f"with {nc} condition(s), either {nc} or {nc + 1} functions are expected; got {nf}")
    conds = asarray(condlist, dtype=bool)
    # the branch of the last condition holding: argmax of the running count of true conditions
    counts = jred.cumsum(concatenate([zeros_like(conds[:1]), conds], 0), 0)
    index = jred.argmax(counts, 0)
    dt = core.get_aval(x).dtype
    branches = [(lambda f: lambda v: asarray(f(v, *args, **kw)).astype(dt))(f) if callable(f)
                else (lambda c: lambda v: array(c, dtype=dt))(f) for f in funclist]
    return vectorize(switch, excluded=(1,))(index, branches, x)
