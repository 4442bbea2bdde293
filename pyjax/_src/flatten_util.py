"""`ravel_pytree`: a pytree of arrays as one flat vector, and the function that rebuilds it
(`jax.flatten_util`)."""
from __future__ import annotations

import numpy as np

from pyjax._src import core, dtypes, tree_util
from pyjax._src.lax import elementwise as lax
from pyjax._src.lax import shape_ops
from pyjax._src.numpy.util import asarray_value


class _HashablePartial:
    """`fun` with its leading arguments bound, equal (and hashing equal) to another binding the
    same `fun` to equal arguments, so an unravel function can be a static argument of jit."""

    def __init__(self, fun, *args):
        self.fun, self.args = fun, args

    def __eq__(self, other):
        return type(other) is _HashablePartial and self.fun is other.fun and self.args == other.args

    def __hash__(self):
        return hash((self.fun, self.args))

    def __call__(self, *args):
        return self.fun(*self.args, *args)


def ravel_pytree(pytree):
    """Flatten a pytree of arrays and scalars into one 1-D array (of the leaves' promoted dtype)
    and return it with `unravel`, which maps such a vector back to a pytree of the same structure.

    With one leaf dtype, `unravel` accepts vectors of any dtype; with several, it insists on the
    promoted dtype and converts each leaf back to its own. No leaves: an empty float32 vector.

    Example:
        >>> flat, unravel = ravel_pytree({"w": jnp.ones((2, 2)), "b": jnp.zeros(2)})
        >>> flat.shape, unravel(flat)["w"].shape
        ((6,), (2, 2))
    """
    leaves, treedef = tree_util.tree_flatten(pytree)
    flat, unravel_list = _ravel_list(leaves)
    return flat, _HashablePartial(_unravel_pytree, treedef, unravel_list)


def _unravel_pytree(treedef, unravel_list, flat):
    return tree_util.tree_unflatten(treedef, unravel_list(flat))


def _ravel_list(leaves):
    if not leaves:
        return asarray_value(np.zeros((0,), np.float32)), _unravel_nothing
    from_dtypes = tuple(dtypes.dtype_of(x, canonicalize=True) for x in leaves)
    to_dtype = dtypes.result_type(*from_dtypes)
    sizes = tuple(int(np.size(x)) for x in leaves)
    shapes = tuple(tuple(np.shape(x)) for x in leaves)
    if all(dt == to_dtype for dt in from_dtypes):
        # one dtype: no conversions, and an unravel that keeps whatever dtype it is given (as
        # JAX: jax-ml/jax#7809)
        flat = shape_ops.concatenate([_ravel(x) for x in leaves], 0)
        return flat, _HashablePartial(_unravel_list_single_dtype, sizes, shapes)
    flat = shape_ops.concatenate([_ravel(lax.convert_element_type(x, to_dtype)) for x in leaves], 0)
    return flat, _HashablePartial(_unravel_list, sizes, shapes, from_dtypes, to_dtype)


def _unravel_nothing(flat):
    return []


def _ravel(x):
    x = asarray_value(x)
    return shape_ops.reshape(x, (int(np.size(x)),)) if core.get_aval(x).ndim != 1 else x


def _chunks(flat, sizes, shapes):
    flat = asarray_value(flat)
    n = core.get_aval(flat).shape
    if len(n) != 1 or n[0] != sum(sizes):
        raise ValueError(f"unravel: the leaves have {sum(sizes)} elements in all, but the flat "
                         f"array has shape {n}")
    bounds = np.cumsum((0,) + sizes)
    return [shape_ops.reshape(shape_ops.slice_in_dim(flat, int(lo), int(hi)), shape)
            for lo, hi, shape in zip(bounds[:-1], bounds[1:], shapes)]


def _unravel_list_single_dtype(sizes, shapes, flat):
    return _chunks(flat, sizes, shapes)


def _unravel_list(sizes, shapes, from_dtypes, to_dtype, flat):
    flat_dtype = dtypes.dtype_of(flat)
    if flat_dtype != to_dtype:
        raise TypeError(f"unravel function given array of dtype {flat_dtype}, but expected "
                        f"dtype {to_dtype}")
    # NB: complex leaves of a real leaf's tree come back real without a ComplexWarning, as in JAX
    return [lax._convert_element_type(chunk, dt, False)
            for chunk, dt in zip(_chunks(flat, sizes, shapes), from_dtypes)]
