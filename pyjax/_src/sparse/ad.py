"""Sparse-aware `grad`, `value_and_grad`, `jacfwd`, `jacrev`/`jacobian`: with respect to a
sparse argument they differentiate its stored data only (the derivative lives on the sparsity
pattern) and return it as a sparse array with the argument's indices."""
from __future__ import annotations

import functools

from pyjax._src import ad_api, tree_util
from pyjax._src.api_vmap import vmap
from pyjax._src.sparse._base import JAXSparse


def _is_sparse(x):
    return isinstance(x, JAXSparse)


def _argnums_tuple(argnums):
    return (argnums,) if isinstance(argnums, int) else tuple(argnums)


def _split_sparse(args, argnums):
    """Replace each sparse array inside the differentiated arguments by its data; return the new
    arguments and a function rebuilding the originals (and a derivative) from data."""
    new_args, rebuild = list(args), {}
    for i in argnums:
        leaves, tree = tree_util.tree_flatten(args[i], is_leaf=_is_sparse)
        sparse_pos = [k for k, x in enumerate(leaves) if _is_sparse(x)]
        templates = {k: leaves[k] for k in sparse_pos}
        new_args[i] = tree_util.tree_unflatten(
            tree, [x.data if _is_sparse(x) else x for x in leaves])
        rebuild[i] = (tree, templates)
    return new_args, rebuild


def _with_data(template, data):
    bufs, tree = tree_util.tree_flatten(template)
    return tree_util.tree_unflatten(tree, [data, *bufs[1:]])


def _restore(rebuild, i, value, wrap_derivative=False):
    tree, templates = rebuild[i]
    leaves = tree_util.tree_flatten(value)[0]
    out = []
    for k, leaf in enumerate(leaves):
        if k in templates:
            t = templates[k]
            if wrap_derivative and leaf.ndim > t.data.ndim:   # a Jacobian: one sparse per output
                f = functools.partial(_with_data, t)
                for _ in range(leaf.ndim - t.data.ndim):
                    f = vmap(f)
                out.append(f(leaf))
            else:
                out.append(_with_data(t, leaf))
        else:
            out.append(leaf)
    return tree_util.tree_unflatten(tree, out)


def _wrap(transform, fun, argnums, has_aux=False, jacobian=False, **kwargs):
    nums = _argnums_tuple(argnums)

    def call(*args):
        new_args, rebuild = _split_sparse(args, nums)

        def f(*dargs):
            full = list(dargs)
            for i in nums:
                full[i] = _restore(rebuild, i, dargs[i])
            return fun(*full)
        t = transform(f, argnums=argnums, has_aux=has_aux, **kwargs)
        out = t(*new_args)
        return out, rebuild
    return call, nums


def _fix(derivs, nums, argnums, rebuild, jac):
    if isinstance(argnums, int):
        return _restore(rebuild, argnums, derivs, jac)
    return tuple(_restore(rebuild, i, d, jac) for i, d in zip(nums, derivs))


def value_and_grad(fun, argnums=0, has_aux=False, **kwargs):
    """`jax.value_and_grad` where the gradient with respect to a sparse argument is a sparse
    array on its pattern.

        >>> sparse.value_and_grad(lambda m, y: (m @ y).sum())(M, y)   # (value, BCOO)
    """
    call, nums = _wrap(ad_api.value_and_grad, fun, argnums, has_aux, **kwargs)

    @functools.wraps(fun)
    def wrapped(*args):
        (val, g), rebuild = call(*args)
        return val, _fix(g, nums, argnums, rebuild, False)
    return wrapped


def grad(fun, argnums=0, has_aux=False, **kwargs):
    """`jax.grad` where the gradient with respect to a sparse argument is a sparse array on
    its pattern.

        >>> sparse.grad(lambda m, y: (m @ y).sum())(M, y)   # a BCOO like M
    """
    vg = value_and_grad(fun, argnums, has_aux, **kwargs)

    @functools.wraps(fun)
    def wrapped(*args):
        val, g = vg(*args)
        return (g, val[1]) if has_aux else g
    return wrapped


def _jac(transform):
    def jac(fun, argnums=0, has_aux=False, **kwargs):
        call, nums = _wrap(transform, fun, argnums, has_aux, **kwargs)

        @functools.wraps(fun)
        def wrapped(*args):
            out, rebuild = call(*args)
            if has_aux:
                j, aux = out
                return _fix(j, nums, argnums, rebuild, True), aux
            return _fix(out, nums, argnums, rebuild, True)
        return wrapped
    jac.__doc__ = (f"Sparse-aware `jax.{transform.__name__}`: the Jacobian with respect to a "
                   f"sparse argument is a sparse array with the argument's indices (one batch "
                   f"dimension per output dimension).")
    return jac


jacfwd = _jac(ad_api.jacfwd)
jacrev = _jac(ad_api.jacrev)
jacobian = jacrev
