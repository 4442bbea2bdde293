"""`shard_alike(x, y)` (JAX's jax.experimental.shard_alike): `x` and `y` unchanged, with XLA's
partitioner told to lay them out alike (whatever layout it chooses for one, or one has, the
other gets): Shardy's `sdy.sharding_group`, or GSPMD's `shard_as` group on a Sharding custom
call, one group per application.

    >>> _, z = shard_alike(x, jnp.arange(16).reshape(8, 2))   # z laid out as x is
"""
from __future__ import annotations

import itertools

import numpy as np

from pyjax._src import core, tree_util
from pyjax._src.interpreters import batching
from pyjax._src.interpreters.ad import Zero, deflinear
from pyjax._src.lax.utils import standard_primitive

shard_alike_p = standard_primitive("shard_alike", multiple_results=True)


def shard_alike(x, y):
    """`(x, y)` (pytrees of one structure, leaves of equal shapes) laid out alike."""
    x_flat, x_tree = tree_util.tree_flatten(x)
    y_flat, y_tree = tree_util.tree_flatten(y)
    if x_tree != y_tree:
        raise ValueError(f"Trees should be equal. Got x_tree: {x_tree}, y_tree: {y_tree}")
    for a, b in zip(x_flat, y_flat, strict=True):
        a_shape, b_shape = core.get_aval(a).shape, core.get_aval(b).shape
        if a_shape != b_shape:
            raise ValueError(
                f"The leaves shapes of `x` and `y` should match. Got `x` leaf shape: {a_shape} "
                f"and `y` leaf shape: {b_shape}. File an issue at "
                f"https://github.com/jax-ml/jax/issues if you want this feature.")
    outs = [shard_alike_p.bind(a, b) for a, b in zip(x_flat, y_flat, strict=True)]
    xs, ys = zip(*outs) if outs else ((), ())
    return tree_util.tree_unflatten(x_tree, xs), tree_util.tree_unflatten(y_tree, ys)


shard_alike_p.def_abstract_eval(lambda x, y: [x, y])
shard_alike_p.np_impl = lambda x, y: (np.asarray(x), np.asarray(y))


def _shard_alike_transpose(cts, x, y):
    x_ct, y_ct = cts
    if type(x_ct) is Zero or type(y_ct) is Zero:
        return [x_ct, y_ct]
    return list(shard_alike(x_ct, y_ct))


deflinear(shard_alike_p, _shard_alike_transpose)


@shard_alike_p.def_batch
def _shard_alike_batch(axis_size, args, dims):
    (x, y), (xd, yd) = args, dims
    if xd is batching.not_mapped and yd is batching.not_mapped:
        return list(shard_alike(x, y)), (xd, yd)
    if xd is batching.not_mapped:
        x, xd = batching.broadcast(x, axis_size, yd), yd
    elif yd is batching.not_mapped:
        y, yd = batching.broadcast(y, axis_size, xd), xd
    elif xd != yd:
        y, yd = batching.moveaxis(y, yd, xd), xd
    return list(shard_alike(x, y)), (xd, yd)


_group_ids = itertools.count()


@shard_alike_p.def_lowering
def _shard_alike_lowering(ctx, x, y):
    group = next(_group_ids)
    if ctx.module.shardy:
        for v in (x, y):
            ctx.op_multi("sdy.sharding_group", v, outs=[], attrs={"group_id": f"{group} : i64"})
        return [x, y]
    # GSPMD: each wrapped in a Sharding custom call of an unknown sharding in shard group
    # `group` (shard_as: the partitioner gives the group one layout)
    return [ctx.op("stablehlo.custom_call", v, out=aval, attrs={
        "call_target_name": '"Sharding"', "backend_config": '""', "has_side_effect": "true",
        "mhlo.sharding": f'"{{unknown shard_as {group}}}"'})
        for v, aval in zip((x, y), ctx.avals_out, strict=True)]
