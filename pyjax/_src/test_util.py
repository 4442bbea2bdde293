"""`check_grads`: compare forward- and reverse-mode derivatives with finite differences."""
from __future__ import annotations

import numpy as np

from pyjax._src import core, dtypes, tree_util
from pyjax._src import ad_api

_EPS = {np.dtype(np.float16): 3e-2, np.dtype(dtypes.bfloat16): 3e-2, np.dtype(np.float32): 1e-3,
        np.dtype(np.float64): 1e-6, np.dtype(np.complex64): 1e-3, np.dtype(np.complex128): 1e-6}
_TOL = {np.dtype(np.float16): 1e-1, np.dtype(dtypes.bfloat16): 1e-1, np.dtype(np.float32): 2e-2,
        np.dtype(np.float64): 1e-5, np.dtype(np.complex64): 2e-2, np.dtype(np.complex128): 1e-5}


def _dtype_of(tree):
    leaves = [np.asarray(x) for x in tree_util.tree_leaves(tree)]
    inexact = [x.dtype for x in leaves if dtypes.issubdtype(x.dtype, np.inexact)]
    return max(inexact, key=lambda d: d.itemsize) if inexact else np.dtype(np.float32)


def _rand_like(rng, x):
    x = np.asarray(x)
    if dtypes.issubdtype(x.dtype, np.complexfloating):
        return (rng.standard_normal(x.shape) + 1j * rng.standard_normal(x.shape)).astype(x.dtype)
    return rng.standard_normal(x.shape).astype(x.dtype)


def _add(xs, ts, scale):
    return tree_util.tree_map(lambda x, t: np.asarray(x) + scale * np.asarray(t).astype(np.asarray(x).dtype), xs, ts)


def _inner(a, b):
    return sum(np.vdot(np.asarray(x, np.complex128 if np.iscomplexobj(x) else np.float64).ravel(),
                       np.asarray(y, np.complex128 if np.iscomplexobj(y) else np.float64).ravel())
               for x, y in zip(tree_util.tree_leaves(a), tree_util.tree_leaves(b)))


def _assert_close(name, got, want, atol, rtol):
    for g, w in zip(tree_util.tree_leaves(got), tree_util.tree_leaves(want), strict=True):
        np.testing.assert_allclose(np.asarray(g, np.complex128 if np.iscomplexobj(g) else np.float64),
                                   np.asarray(w, np.complex128 if np.iscomplexobj(w) else np.float64),
                                   atol=atol, rtol=rtol, err_msg=name)


def check_jvp(f, f_jvp, args, atol=None, rtol=None, eps=None, rng=None):
    """JVP along a random direction against a central finite difference."""
    rng = rng or np.random.default_rng(0)
    dt = _dtype_of(args)
    eps = eps or _EPS.get(dt, 1e-3)
    atol = atol or _TOL.get(dt, 2e-2)
    rtol = rtol or _TOL.get(dt, 2e-2)
    tangent = tree_util.tree_map(lambda x: _rand_like(rng, x), args)
    _, v_out = f_jvp(args, tangent)
    hi = f(*_add(args, tangent, eps / 2))
    lo = f(*_add(args, tangent, -eps / 2))
    fd = tree_util.tree_map(lambda a, b: (np.asarray(a, np.float64 if not np.iscomplexobj(a) else np.complex128)
                                          - np.asarray(b)) / eps, hi, lo)
    _assert_close("JVP vs finite differences", v_out, fd, atol, rtol)


def check_vjp(f, f_vjp, args, atol=None, rtol=None, eps=None, rng=None):
    """<vjp(ct), t> must equal <ct, jvp(t)> (the JVP itself checked by finite differences)."""
    rng = rng or np.random.default_rng(1)
    dt = _dtype_of(args)
    atol = atol or _TOL.get(dt, 2e-2)
    rtol = rtol or _TOL.get(dt, 2e-2)
    eps = eps or _EPS.get(dt, 1e-3)
    out, vjp_fn = f_vjp(*args)
    ct = tree_util.tree_map(lambda x: _rand_like(rng, x), out)
    tangent = tree_util.tree_map(lambda x: _rand_like(rng, x), args)
    ct_in = vjp_fn(ct)
    hi = f(*_add(args, tangent, eps / 2))
    lo = f(*_add(args, tangent, -eps / 2))
    fd = tree_util.tree_map(lambda a, b: (np.asarray(a, np.float64 if not np.iscomplexobj(a) else np.complex128)
                                          - np.asarray(b)) / eps, hi, lo)
    lhs = _inner(tangent, ct_in)
    rhs = _inner(fd, ct)
    scale = max(1.0, abs(rhs))
    np.testing.assert_allclose(lhs / scale, rhs / scale, atol=atol, rtol=rtol,
                               err_msg="VJP (reverse mode) disagrees with finite differences")


def check_grads(f, args, order, modes=("fwd", "rev"), atol=None, rtol=None, eps=None):
    """Check derivatives of `f` at `args` up to `order` in the given modes against finite
    differences (as `jax.test_util.check_grads`).

    Example:
        >>> check_grads(jnp.sin, (1.0,), order=2)
    """
    args = tuple(args)

    def _check(f, order):
        if "fwd" in modes:
            check_jvp(f, lambda p, t: ad_api.jvp(f, p, t), args, atol, rtol, eps)
            if order > 1:
                t = tree_util.tree_map(lambda x: _rand_like(np.random.default_rng(3), x), args)
                _check(lambda *a: ad_api.jvp(f, a, t)[1], order - 1)
        if "rev" in modes:
            check_vjp(f, lambda *a: ad_api.vjp(f, *a), args, atol, rtol, eps)
            if order > 1:
                ct_seed = np.random.default_rng(2)
                out = f(*args)
                ct = tree_util.tree_map(lambda x: _rand_like(ct_seed, x), out)
                _check(lambda *a: ad_api.vjp(f, *a)[1](ct), order - 1)
    _check(f, order)
