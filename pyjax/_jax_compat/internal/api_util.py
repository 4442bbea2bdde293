"""`jax._src.api_util`: the flattening helpers of `jax.api_util` (what pyjax has of JAX's)."""
import inspect

from pyjax._jax_compat._unsupported import module_getattr
from pyjax._jax_compat.api_util import *  # noqa: F401,F403 (the same names under JAX's path)
from pyjax._jax_compat.api_util import debug_info as debug_info
from pyjax._jax_compat.api_util import PytreeLeaf, prefix_mismatch_error
from pyjax._src import tree_util


def rebase_donate_argnums(donate_argnums, static_argnums) -> tuple[int, ...]:
    """Donated argument positions counted among the non-static arguments only."""
    donate, static = sorted(set(donate_argnums)), sorted(set(static_argnums))
    if set(donate) & set(static):
        raise ValueError(f"`static_argnums` {static} and `donate_argnums` {donate} cannot "
                         "intersect.")
    return tuple(d - sum(s < d for s in static) for d in donate)


def donation_vector(donate_argnums, donate_argnames, in_tree, kws: bool = True) -> tuple[bool, ...]:
    """One flag per leaf of `in_tree` (the structure of `(args, kwargs)`, or of args alone
    with `kws=False`): whether its argument is donated."""
    args_tree, kwargs_tree = in_tree.children() if kws else (in_tree, None)
    out = []
    for i, arg in enumerate(args_tree.children()):
        out += [i in donate_argnums] * arg.num_leaves
    if kwargs_tree is not None:
        names = tree_util.tree_unflatten(kwargs_tree, [PytreeLeaf() for _ in range(kwargs_tree.num_leaves)])
        for name in sorted(names):
            out += [name in donate_argnames] * len(tree_util.tree_leaves(names[name]))
    return tuple(out)


def resolve_kwargs(fun, args, kwargs) -> tuple:
    """`args` and `kwargs` as positional arguments of `fun` (its defaults filled in)."""
    bound = inspect.signature(fun).bind(*args, **kwargs)
    if bound.kwargs:
        raise TypeError("The following keyword arguments could not be resolved to positions: "
                        + ", ".join(bound.kwargs))
    bound.apply_defaults()
    return bound.args


def flatten_axis_resources(what, tree, shardings, tupled_args) -> tuple:
    """`shardings` (a prefix of `tree`, None a leaf) broadcast to one entry per leaf of `tree`."""
    del tupled_args
    full = tree_util.tree_unflatten(tree, [PytreeLeaf() for _ in range(tree.num_leaves)])
    out = []
    try:
        tree_util.tree_map(lambda s, sub: out.extend([s] * len(tree_util.tree_leaves(sub))),
                           shardings, full, is_leaf=lambda x: x is None)
    except ValueError:
        raise prefix_mismatch_error(what, shardings, full, is_leaf=lambda x: x is None) from None
    return tuple(out)

__getattr__ = module_getattr("jax._src.api_util")
