"""`check_grads`, `check_jvp`, `check_vjp`: derivatives from autodiff against finite differences
(as `jax.test_util`), and the value comparisons with JAX's per-dtype tolerances that
`jax._src.test_util` builds on (JAX's `jax._src.public_test_util`).

The checks follow JAX's: one random direction per check; forward mode compares `jvp` with a
central difference; reverse mode compares `<t, vjp(ct)>` with `<jvp_fd(t), ct>` (with JAX's
conjugations, so complex functions check their transpose, not their adjoint); order n
differentiates the jvp/vjp function itself, in both its primal and tangent (or cotangent) inputs.

Tolerances are JAX's: `atol`/`rtol` are a number or a dict {dtype: tolerance} merged over
JAX's per-dtype defaults (`default_gradient_tolerance`); an array is compared with the larger
of the tolerances of its two dtypes, scaled by its size, as JAX's `check_close` does.

The finite differences are JAX's: one central difference with steps of ±eps in the inputs'
dtype, `eps=1e-4` by default, along directions drawn as JAX draws them (`np.random.RandomState(0)`,
standard normal per leaf), so a check that crosses a kink or a `select` jump fails or passes as
it does on JAX. NB: two refinements that only remove rounding noise: the outputs' difference is
taken in 64-bit, and autodiff is checked along the step the rounded inputs really took. `eps`
may also be a dict {dtype: step} (pyjax's extension). Integer and bool arguments are allowed:
they get float0 tangents and are never perturbed. `check_grads_refined` (pyjax's own tests)
takes Richardson-extrapolated differences with larger per-dtype steps instead (`_Scheme`).
"""
from __future__ import annotations

import numpy as np

from pyjax._src import config, dtypes, tree_util
from pyjax._src import ad_api

EPS = 1e-4  # JAX's finite-difference step

# JAX's defaults (jax._src.public_test_util): for values, and for derivatives. The tiny floats
# are the same in both: 1 for float4_e2m1fn and float8_e8m0fnu, 0.1 for the other float8 types.
_TINY_FLOATS = {np.dtype(t): 1e0 if t in (dtypes.float4_e2m1fn, dtypes.float8_e8m0fnu) else 1e-1
                for t in (dtypes.float4_e2m1fn, dtypes.float8_e8m0fnu, dtypes.float8_e3m4,
                          dtypes.float8_e4m3, dtypes.float8_e4m3b11fnuz, dtypes.float8_e4m3fn,
                          dtypes.float8_e4m3fnuz, dtypes.float8_e5m2, dtypes.float8_e5m2fnuz)}
_default_tolerance = {
    dtypes.float0: 0, np.dtype(np.bool_): 0,
    **{d: 0 for d in dtypes.int_types | dtypes.uint_types}, **_TINY_FLOATS,
    np.dtype(dtypes.bfloat16): 1e-2, np.dtype(np.float16): 1e-3, np.dtype(np.float32): 1e-6,
    np.dtype(np.float64): 1e-15, np.dtype(np.complex64): 1e-6, np.dtype(np.complex128): 1e-15,
}


def default_tolerance():
    """JAX's default value tolerances, {dtype: tolerance}."""
    return _default_tolerance


default_gradient_tolerance = {
    **_TINY_FLOATS,
    np.dtype(dtypes.bfloat16): 1e-1, np.dtype(np.float16): 1e-2, np.dtype(np.float32): 2e-3,
    np.dtype(np.float64): 1e-5, np.dtype(np.complex64): 1e-3, np.dtype(np.complex128): 1e-5,
}


def _merge_tolerance(tol, default):
    """A number stays a number; a dict {dtype-like: tol} overrides entries of `default`."""
    if tol is None:
        return default
    if not isinstance(tol, dict):
        return tol
    return {**default, **{np.dtype(k): v for k, v in tol.items()}}


def tolerance(dtype, tol=None):
    """The tolerance for values of `dtype`: `tol` itself if a number, else its (or JAX's
    default) entry for the canonical dtype."""
    if tol is None:
        tol = {}
    if not isinstance(tol, dict):
        return tol
    tol = {np.dtype(k): v for k, v in tol.items()}
    dt = dtypes.canonicalize_dtype(np.dtype(dtype))
    return tol.get(dt, _default_tolerance.get(dt, 0))


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
    """JAX's random direction for `x` (drawn for integer leaves too, so later leaves get JAX's
    draws), float0 zeros for integer and bool leaves."""
    x = _np(x)
    t = rand_like(rng, x)
    return t if _inexact(x) else np.zeros(x.shape, dtypes.float0)


def _refined_rand_like(rng, x):
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


def _central_difference(f, primals, tangents, h):
    """(f(x + h t) - f(x - h t)) / 2h, the inputs perturbed in their own dtype (as JAX's
    numerical_jvp); the outputs' difference in 64-bit."""
    hi = f(*_perturb(primals, tangents, h))
    lo = f(*_perturb(primals, tangents, -h))
    return tree_util.tree_map(
        lambda a, b: _safe_sub(a, b) / (2 * h) if _inexact(a) else _safe_sub(a, b), hi, lo)


def numerical_jvp(f, primals, tangents, eps=EPS):
    """JAX's: one central difference with steps of ±eps."""
    return _central_difference(f, primals, tangents, eps)


def _step_taken(x, t, h):
    """The direction a step ±h t from `x` really takes once rounded to x's dtype."""
    hi = (_np(x) + h * _np(t)).astype(_np(x).dtype)
    lo = (_np(x) - h * _np(t)).astype(_np(x).dtype)
    return (_wide(hi) - _wide(lo)) / (2 * h)


class _Scheme:
    """How the finite differences are taken. JAX's (`check_grads`): one central difference at
    ±eps (1e-4), directions from `RandomState(0)`. The refined one (`check_grads_refined`, which
    pyjax's own tests use to check its rules tightly): steps eps and 2 eps per dtype (5e-3 for
    32-bit, 1.5e-2 for 16-bit, 5e-7 for 64-bit), Richardson-extrapolated (accurate to
    O(eps^4), so the step can be large enough that float32 rounding stays small), directions
    from `default_rng`. Both check autodiff along the step the rounded inputs really took."""

    def __init__(self, refined: bool):
        self.refined = refined

    def default_eps(self, dtype, eps):
        table = _REFINED_EPS if self.refined else {}
        if eps is None or isinstance(eps, dict):
            table = {**table, **{np.dtype(k): v for k, v in (eps or {}).items()}}
            return table.get(dtype, 1e-3 if self.refined else EPS)
        # a host number (an eps computed with jnp, as JAX's eigh_test does, would otherwise make
        # the steps jnp arithmetic, subject to jax_numpy_dtype_promotion='strict'; JAX's are NumPy's)
        return float(eps)

    def rng(self, seed):
        return np.random.default_rng(seed) if self.refined else np.random.RandomState(0)

    def draw(self, rng, x):
        return (_refined_rand_like if self.refined else _rand_like)(rng, x)

    def jvp(self, f, primals, tangents, eps):
        d1 = _central_difference(f, primals, tangents, eps)
        if not self.refined:
            return d1
        d2 = _central_difference(f, primals, tangents, 2 * eps)
        return tree_util.tree_map(lambda a, b: (4 * a - b) / 3 if _inexact(a) else a, d1, d2)

    def exact_direction(self, primals, tangents, eps):
        def exact(x, t):
            if not _inexact(x):
                return t
            if not self.refined:
                return _step_taken(x, t, eps)
            return (4 * _step_taken(x, t, eps) - _step_taken(x, t, 2 * eps)) / 3
        return tree_util.tree_map(exact, primals, tangents)


_REFINED_EPS = {np.dtype(np.float16): 1.5e-2, np.dtype(dtypes.bfloat16): 1.5e-2,
                np.dtype(np.float32): 5e-3, np.dtype(np.float64): 5e-7,
                np.dtype(np.complex64): 5e-3, np.dtype(np.complex128): 5e-7}
_JAX, _REFINED = _Scheme(False), _Scheme(True)


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
        _assert_close(_np(g), _np(w), atol, rtol, err_msg)


def _assert_close(g, w, atol, rtol, err_msg, dtype=None):
    """As JAX's check_close: the larger tolerance of the two dtypes, times the array's size."""
    dts = (dtype,) if dtype is not None else (g.dtype, w.dtype)
    size = max(np.size(g), 1)
    a = max(tolerance(d, atol) for d in dts) * size
    r = max(tolerance(d, rtol) for d in dts) * size
    np.testing.assert_allclose(_wide(g), _wide(w), atol=a, rtol=r, err_msg=err_msg)


def _check_tangent_dtypes(primals, tangents, err_msg):
    """Each tangent has the tangent dtype of its primal (float0 for integers and bools)."""
    for p, t in zip(tree_util.tree_leaves(primals), tree_util.tree_leaves(tangents), strict=True):
        want = _np(p).dtype if _inexact(p) else dtypes.float0
        got = _np(t).dtype
        if got != want:
            raise AssertionError(f"{err_msg}: tangent of dtype {got} for a primal of dtype "
                                 f"{_np(p).dtype} (expected {want})")


def _defaults(scheme, args, atol, rtol, eps):
    return (_merge_tolerance(atol, default_gradient_tolerance),
            _merge_tolerance(rtol, default_gradient_tolerance),
            scheme.default_eps(_widest_dtype(args), eps))


def check_jvp(f, f_jvp, args, atol=None, rtol=None, eps=EPS, err_msg=""):
    """Check `f_jvp(args, tangents) -> (out, t_out)` against a central finite difference of `f`
    along a random direction."""
    _check_jvp(_JAX, f, f_jvp, args, atol, rtol, eps, err_msg)


def _check_jvp(scheme, f, f_jvp, args, atol, rtol, eps, err_msg):
    atol, rtol, eps = _defaults(scheme, args, atol, rtol, eps)
    err_msg = err_msg or "JVP"
    rng = scheme.rng(0)
    tangent = tree_util.tree_map(lambda x: scheme.draw(rng, x), args)
    t_exact = scheme.exact_direction(args, tangent, eps)
    v_out, t_out = f_jvp(args, _like(t_exact, tangent))
    _check_tangent_dtypes(v_out, t_out, f"{err_msg} tangent dtype")
    _check_close(v_out, f(*args), atol, rtol, f"{err_msg} primal")
    t_expected = scheme.jvp(f, args, tangent, eps)
    _check_close(t_out, t_expected, atol, rtol, f"{err_msg} tangent vs finite differences")


def _like(xs, refs):
    """`xs` (64-bit) in the dtypes of `refs`."""
    return tree_util.tree_map(lambda x, r: _np(x).astype(_np(r).dtype) if _inexact(r) else r,
                              xs, refs)


def check_vjp(f, f_vjp, args, atol=None, rtol=None, eps=EPS, err_msg=""):
    """Check `f_vjp(*args) -> (out, vjp_fun)`: `<t, vjp(ct)>` must equal `<jvp_fd(t), ct>` for a
    random tangent `t` and cotangent `ct`."""
    _check_vjp(_JAX, f, f_vjp, args, atol, rtol, eps, err_msg)


def _check_vjp(scheme, f, f_vjp, args, atol, rtol, eps, err_msg):
    atol, rtol, eps = _defaults(scheme, args, atol, rtol, eps)
    err_msg = err_msg or "VJP"
    rng = scheme.rng(1)
    v_out, vjp_fun = f_vjp(*args)
    _check_close(v_out, f(*args), atol, rtol, f"{err_msg} primal")
    tangent = tree_util.tree_map(lambda x: scheme.draw(rng, x), args)
    tangent_out = scheme.jvp(f, args, tangent, eps)
    cotangent = tree_util.tree_map(lambda x: scheme.draw(rng, x), v_out)
    cotangent_out = _conj(vjp_fun(_conj(cotangent)))
    _check_tangent_dtypes(args, cotangent_out, f"{err_msg} cotangent dtype")
    t_exact = scheme.exact_direction(args, tangent, eps)
    ip, ip_expected = _inner(t_exact, cotangent_out), _inner(tangent_out, cotangent)
    # the inner products are float64 here; JAX computes them in the arguments' dtype
    _assert_close(np.float64(ip), np.float64(ip_expected), atol, rtol,
                  f"{err_msg} cotangent projection vs finite differences", _widest_dtype(args))


def check_grads(f, args, order, modes=("fwd", "rev"), atol=None, rtol=None, eps=None):
    """Check derivatives of `f` at `args` up to `order`, in the given modes ("fwd", "rev",
    "lin"), against finite differences (as `jax.test_util.check_grads`).

    Example:
        >>> check_grads(jnp.sin, (1.0,), order=2, modes=("fwd", "rev"))
    """
    _check_grads(_JAX, f, args, order, modes, atol, rtol, eps)


def check_grads_refined(f, args, order, modes=("fwd", "rev"), atol=None, rtol=None, eps=None):
    """`check_grads` with the refined finite differences (`_Scheme`): pyjax's own tests check
    its differentiation rules with these, tightly and without float32 rounding noise."""
    _check_grads(_REFINED, f, args, order, modes, atol, rtol, eps)


def _check_grads(scheme, f, args, order, modes, atol, rtol, eps):
    args = tuple(args)

    def _check(f, args, order, err_msg=""):
        if "fwd" in modes:
            msg = f"JVP of {err_msg}" if err_msg else "JVP"
            _check_jvp(scheme, f, lambda p, t: ad_api.jvp(f, p, t), args, atol, rtol, eps, msg)
            if order > 1:
                jvp_f = lambda primals, tangents: ad_api.jvp(f, primals, tangents)
                _check(jvp_f, (args, _tangents_like(args)), order - 1, msg)
        if "rev" in modes:
            msg = f"VJP of {err_msg}" if err_msg else "VJP"
            _check_vjp(scheme, f, lambda *a: ad_api.vjp(f, *a), args, atol, rtol, eps, msg)
            if order > 1:
                def f_vjp(*a):
                    out, vjp_fun = ad_api.vjp(f, *a)
                    return vjp_fun(out)  # the cotangent depends on the primals too
                _check(f_vjp, args, order - 1, msg)
        if "lin" in modes:
            msg = f"LIN of {err_msg}" if err_msg else "LIN"
            _check_jvp(scheme, f, lambda p, t: _jvp_from_linearize(f, p, t), args, atol, rtol,
                       eps, msg)
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


# -- comparisons of values (jtu.check_close, assertAllClose) ---------------------------------------

def _dtype(x):
    """The dtype of an array, or of a Python scalar as JAX sees it (int64, float64, ...)."""
    if hasattr(x, "dtype"):
        return x.dtype
    if type(x) in dtypes.python_scalar_dtypes:
        return np.dtype(dtypes.python_scalar_dtypes[type(x)])
    return np.asarray(x).dtype


def is_python_scalar(x) -> bool:
    return not isinstance(x, np.generic) and isinstance(x, (bool, int, float, complex))


_CUSTOM_FLOATS = frozenset(np.dtype(t) for t in (
    dtypes.bfloat16, dtypes.float4_e2m1fn, dtypes.float8_e8m0fnu, dtypes.float8_e3m4,
    dtypes.float8_e4m3, dtypes.float8_e4m3b11fnuz, dtypes.float8_e4m3fn, dtypes.float8_e4m3fnuz,
    dtypes.float8_e5m2, dtypes.float8_e5m2fnuz))


def _assert_numpy_allclose(a, b, atol=None, rtol=None, err_msg=""):
    """np.testing.assert_allclose after widening the ml_dtypes floats (which NumPy's printing
    and arithmetic handle poorly) and small ints; float0 arrays compare equal by shape."""
    a, b = np.asarray(a), np.asarray(b)
    if a.dtype == b.dtype == dtypes.float0:
        np.testing.assert_array_equal(a, b, err_msg=err_msg)
        return

    def widen(x):
        if x.dtype in _CUSTOM_FLOATS:
            return x.astype(np.float32)
        if x.dtype.kind in "iu" and x.dtype.itemsize == 1 and x.dtype.name.endswith(("2", "4")):
            return x.astype(np.int8 if x.dtype.name.startswith("int") else np.uint8)
        return x
    kw = {}
    if atol:
        kw["atol"] = atol
    if rtol:
        kw["rtol"] = rtol
    with np.errstate(invalid="ignore"):
        np.testing.assert_allclose(widen(a), widen(b), **kw, err_msg=err_msg)


def _assert_numpy_close(a, b, atol=None, rtol=None, err_msg=""):
    a, b = np.asarray(a), np.asarray(b)
    assert a.shape == b.shape
    atol = max(tolerance(a.dtype, atol), tolerance(b.dtype, atol))
    rtol = max(tolerance(a.dtype, rtol), tolerance(b.dtype, rtol))
    _assert_numpy_allclose(a, b, atol=atol * a.size, rtol=rtol * b.size, err_msg=err_msg)


def check_close(xs, ys, atol=None, rtol=None, err_msg=""):
    """Every leaf of `xs` close to the matching leaf of `ys` (tolerances scaled by size)."""
    tree_util.tree_map(lambda x, y: _assert_numpy_close(x, y, atol, rtol, err_msg), xs, ys)


def _check_dtypes_match(xs, ys):
    def check(x, y):
        dx, dy = _dtype(x), _dtype(y)
        if not config.x64_enabled():
            dx, dy = dtypes.canonicalize_dtype(dx), dtypes.canonicalize_dtype(dy)
        assert dx == dy, f"dtypes differ: {dx} vs {dy}"
    tree_util.tree_map(check, xs, ys)


def rand_like(rng, x):
    """Standard-normal values (complex: both parts) in the shape and dtype of `x`, drawn from
    the NumPy RandomState `rng`."""
    shape, dtype = np.shape(x), _dtype(x)
    r = lambda: np.asarray(rng.randn(*shape), dtype)
    return r() + 1j * r() if dtypes.issubdtype(dtype, np.complexfloating) else r()
