"""`jax.api_util`: flattening wrapped functions and abstracting arguments (flax's lazy_init and
nn.scan build on these)."""
from __future__ import annotations

from pyjax._src import core, tree_util
from pyjax._jax_compat.extend.core import DebugInfo
from pyjax._jax_compat.extend.linear_util import Store, WrappedFun


def debug_info(traced_for: str, fun, args, kwargs, *, static_argnums=(), static_argnames=(),
               result_paths_thunk=None, sourceinfo=None, signature=None) -> DebugInfo:
    del args, kwargs, static_argnums, static_argnames, result_paths_thunk, signature
    name = sourceinfo or getattr(fun, "__qualname__", getattr(fun, "__name__", repr(fun)))
    return DebugInfo(traced_for, name, None)


def _flattened(f: WrappedFun, unflatten) -> tuple[WrappedFun, Store]:
    out_tree = Store()

    def flat_fun(*args_flat):
        args, kwargs = unflatten(args_flat)
        out_flat, tree = tree_util.tree_flatten(f.call_wrapped(*args, **kwargs))
        out_tree.store(tree)
        return out_flat
    return WrappedFun(flat_fun, debug_info=f.debug_info), out_tree


def flatten_fun(f: WrappedFun, in_tree):
    """`f(*args, **kwargs)` as a function of the flat leaves of `(args, kwargs)` (tree
    `in_tree`) returning flat leaves; the second result gives the output tree once it ran."""
    wrapped, store = _flattened(f, lambda flat: tree_util.tree_unflatten(in_tree, flat))
    return wrapped, lambda: store.val


def flatten_fun_nokwargs(f: WrappedFun, in_tree):
    """As `flatten_fun`, for `in_tree` the tree of the positional arguments only."""
    wrapped, store = _flattened(f, lambda flat: (tree_util.tree_unflatten(in_tree, flat), {}))
    return wrapped, lambda: store.val


shaped_abstractify = core.shaped_abstractify


def safe_map(f, *xs):
    """`map` that insists the sequences have one length."""
    return list(map(f, *xs)) if len({len(x) for x in xs}) <= 1 else _length_error(xs)


def _length_error(xs):
    raise ValueError(f"safe_map: sequences of different lengths {[len(x) for x in xs]}")


class PytreeLeaf:
    """Stands for each leaf of a tree structure when a prefix is matched against it."""

    def __repr__(self):
        return "pytree leaf"


def prefix_mismatch_error(name, prefix, full, is_leaf=None) -> ValueError:
    """JAX's error for a `name` that is not a tree prefix of `full`: every mismatch, detailed."""
    errors = [e(name) for e in tree_util.prefix_errors(prefix, full, is_leaf=is_leaf)]
    return ValueError(f"{name} specification must be a tree prefix of the corresponding value; \n"
                      f"  Mismatch details ({len(errors)} found):\n"
                      + "\n".join("  " + str(e) for e in errors))


def flatten_axes(name, treedef, axis_tree, *, kws=False, tupled_args=False):
    """`axis_tree` (a prefix of `treedef`, e.g. vmap's in_axes) broadcast to one entry per
    leaf of `treedef`."""
    del kws, tupled_args
    dummy = tree_util.tree_unflatten(treedef, [PytreeLeaf() for _ in range(treedef.num_leaves)])
    out = []

    def add(axis, subtree):
        out.extend([axis] * len(tree_util.tree_leaves(subtree)))
    try:
        tree_util.tree_map(add, axis_tree, dummy, is_leaf=lambda x: x is None)
    except ValueError:
        raise prefix_mismatch_error(name, axis_tree, dummy, is_leaf=lambda x: x is None) from None
    return out


