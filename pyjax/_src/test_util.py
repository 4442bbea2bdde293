"""`check_grads`, `check_jvp`, `check_vjp`: derivatives from autodiff against finite differences
(as `jax.test_util`).

The checks follow JAX's: one random direction per check; forward mode compares `jvp` with a
central difference; reverse mode compares `<t, vjp(ct)>` with `<jvp_fd(t), ct>` (with JAX's
conjugations, so complex functions check their transpose, not their adjoint); order n
differentiates the jvp/vjp function itself, in both its primal and tangent (or cotangent) inputs.

NB: JAX takes the difference in the inputs' dtype with `eps=1e-4`. Here `eps` defaults per dtype
(1e-3 for 32-bit, 1e-6 for 64-bit) and the difference of the outputs is taken in 64-bit, which is
less noisy for float32 functions. Integer and bool arguments are allowed: they get float0
tangents and are never perturbed.
"""
from __future__ import annotations

import numpy as np

from pyjax._src import dtypes, tree_util
from pyjax._src import ad_api

_EPS = {np.dtype(np.float16): 3e-2, np.dtype(dtypes.bfloat16): 3e-2, np.dtype(np.float32): 1e-3,
        np.dtype(np.float64): 1e-6, np.dtype(np.complex64): 1e-3, np.dtype(np.complex128): 1e-6}
_TOL = {np.dtype(np.float16): 1e-1, np.dtype(dtypes.bfloat16): 1e-1, np.dtype(np.float32): 2e-2,
        np.dtype(np.float64): 1e-5, np.dtype(np.complex64): 2e-2, np.dtype(np.complex128): 1e-5}


def _np(x):
    """The value on the host in its canonical dtype (a Python 1.0 is float32 unless x64 is on)."""
    v = np.asarray(x)
    if v.dtype == object or dtypes.is_float0(v.dtype):
        return v
    dt = dtypes.canonicalize_dtype(v.dtype)
    return v if v.dtype == dt else v.astype(dt)


def _inexact(x) -> bool:
    return dtypes.issubdtype(_np(x).dtype, np.inexact)


def _wide(x):
    x = _np(x)
    return x.astype(np.complex128 if np.iscomplexobj(x) else np.float64)


def _widest_dtype(tree):
    inexact = [_np(x).dtype for x in tree_util.tree_leaves(tree) if _inexact(x)]
    return max(inexact, key=lambda d: d.itemsize) if inexact else np.dtype(np.float32)


def _rand_like(rng, x):
    x = _np(x)
    if not _inexact(x):
        return np.zeros(x.shape, dtypes.float0)
    t = rng.standard_normal(x.shape)
    if np.iscomplexobj(x):
        t = t + 1j * rng.standard_normal(x.shape)
    return t.astype(x.dtype)


def _perturb(xs, ts, scale):
    return tree_util.tree_map(
        lambda x, t: (_np(x) + scale * _np(t)).astype(_np(x).dtype) if _inexact(x) else x, xs, ts)


def _safe_sub(a, b):
    """a - b in 64-bit, with inf - inf == 0 (as JAX); non-float outputs have zero derivative."""
    if not _inexact(a):
        return np.zeros(_np(a).shape, dtypes.float0)
    a, b = _wide(a), _wide(b)
    with np.errstate(invalid="ignore"):
        return np.where(a == b, 0, a - b)


def numerical_jvp(f, primals, tangents, eps):
    hi = f(*_perturb(primals, tangents, eps / 2))
    lo = f(*_perturb(primals, tangents, -eps / 2))
    return tree_util.tree_map(lambda a, b: _safe_sub(a, b) / eps if _inexact(a) else _safe_sub(a, b),
                              hi, lo)


def _inner(xs, ys):
    """Re <x, y> over the float leaves (float0 leaves contribute nothing)."""
    total = 0.0
    for x, y in zip(tree_util.tree_leaves(xs), tree_util.tree_leaves(ys), strict=True):
        if _inexact(x) and _inexact(y):
            total += np.real(np.dot(np.conj(_wide(x)).ravel(), _wide(y).ravel()))
    return total


def _conj(tree):
    return tree_util.tree_map(lambda x: np.conj(_np(x)) if _inexact(x) else x, tree)


def _check_close(got, want, atol, rtol, err_msg):
    got_l, want_l = tree_util.tree_leaves(got), tree_util.tree_leaves(want)
    if len(got_l) != len(want_l):
        raise AssertionError(f"{err_msg}: {len(got_l)} leaves vs {len(want_l)} expected")
    for g, w in zip(got_l, want_l):
        if not (_inexact(g) and _inexact(w)):
            continue
        np.testing.assert_allclose(_wide(g), _wide(w), atol=atol, rtol=rtol, err_msg=err_msg)


def _check_tangent_dtypes(primals, tangents, err_msg):
    """Each tangent has the tangent dtype of its primal (float0 for integers and bools)."""
    for p, t in zip(tree_util.tree_leaves(primals), tree_util.tree_leaves(tangents), strict=True):
        want = _np(p).dtype if _inexact(p) else dtypes.float0
        got = _np(t).dtype
        if got != want:
            raise AssertionError(f"{err_msg}: tangent of dtype {got} for a primal of dtype "
                                 f"{_np(p).dtype} (expected {want})")


def _defaults(args, atol, rtol, eps):
    dt = _widest_dtype(args)
    return (_TOL.get(dt, 2e-2) if atol is None else atol, _TOL.get(dt, 2e-2) if rtol is None else rtol,
            _EPS.get(dt, 1e-3) if eps is None else eps)


def check_jvp(f, f_jvp, args, atol=None, rtol=None, eps=None, err_msg=""):
    """Check `f_jvp(args, tangents) -> (out, t_out)` against a central finite difference of `f`
    along a random direction."""
    atol, rtol, eps = _defaults(args, atol, rtol, eps)
    err_msg = err_msg or "JVP"
    tangent = tree_util.tree_map(lambda x: _rand_like(np.random.default_rng(0), x), args)
    v_out, t_out = f_jvp(args, tangent)
    _check_tangent_dtypes(v_out, t_out, f"{err_msg} tangent dtype")
    _check_close(v_out, f(*args), atol, rtol, f"{err_msg} primal")
    t_expected = numerical_jvp(f, args, tangent, eps)
    _check_close(t_out, t_expected, atol, rtol, f"{err_msg} tangent vs finite differences")


def check_vjp(f, f_vjp, args, atol=None, rtol=None, eps=None, err_msg=""):
    """Check `f_vjp(*args) -> (out, vjp_fun)`: `<t, vjp(ct)>` must equal `<jvp_fd(t), ct>` for a
    random tangent `t` and cotangent `ct`."""
    atol, rtol, eps = _defaults(args, atol, rtol, eps)
    err_msg = err_msg or "VJP"
    rng = np.random.default_rng(1)
    v_out, vjp_fun = f_vjp(*args)
    _check_close(v_out, f(*args), atol, rtol, f"{err_msg} primal")
    tangent = tree_util.tree_map(lambda x: _rand_like(rng, x), args)
    tangent_out = numerical_jvp(f, args, tangent, eps)
    cotangent = tree_util.tree_map(lambda x: _rand_like(rng, x), v_out)
    cotangent_out = _conj(vjp_fun(_conj(cotangent)))
    _check_tangent_dtypes(args, cotangent_out, f"{err_msg} cotangent dtype")
    ip, ip_expected = _inner(tangent, cotangent_out), _inner(tangent_out, cotangent)
    scale = max(1.0, abs(ip_expected))
    np.testing.assert_allclose(ip / scale, ip_expected / scale, atol=atol, rtol=rtol,
                               err_msg=f"{err_msg} cotangent projection vs finite differences")


def check_grads(f, args, order, modes=("fwd", "rev"), atol=None, rtol=None, eps=None):
    """Check derivatives of `f` at `args` up to `order`, in the given modes ("fwd", "rev",
    "lin"), against finite differences (as `jax.test_util.check_grads`).

    Example:
        >>> check_grads(jnp.sin, (1.0,), order=2, modes=("fwd", "rev"))
    """
    args = tuple(args)

    def _check(f, args, order, err_msg=""):
        if "fwd" in modes:
            msg = f"JVP of {err_msg}" if err_msg else "JVP"
            check_jvp(f, lambda p, t: ad_api.jvp(f, p, t), args, atol, rtol, eps, msg)
            if order > 1:
                jvp_f = lambda primals, tangents: ad_api.jvp(f, primals, tangents)
                _check(jvp_f, (args, _tangents_like(args)), order - 1, msg)
        if "rev" in modes:
            msg = f"VJP of {err_msg}" if err_msg else "VJP"
            check_vjp(f, lambda *a: ad_api.vjp(f, *a), args, atol, rtol, eps, msg)
            if order > 1:
                def f_vjp(*a):
                    out, vjp_fun = ad_api.vjp(f, *a)
                    return vjp_fun(out)  # the cotangent depends on the primals too
                _check(f_vjp, args, order - 1, msg)
        if "lin" in modes:
            msg = f"LIN of {err_msg}" if err_msg else "LIN"
            check_jvp(f, lambda p, t: _jvp_from_linearize(f, p, t), args, atol, rtol, eps, msg)
            if order > 1:
                _check(lambda p, t: _jvp_from_linearize(f, p, t), (args, _tangents_like(args)),
                       order - 1, msg)
    _check(f, args, order)


def _tangents_like(args):
    """The primals used as tangents (as JAX does), with float0 for integer leaves."""
    return tree_util.tree_map(lambda x: x if _inexact(x) else np.zeros(_np(x).shape, dtypes.float0), args)


def _jvp_from_linearize(f, primals, tangents):
    out, f_lin = ad_api.linearize(f, *primals)
    return out, f_lin(*tangents)
