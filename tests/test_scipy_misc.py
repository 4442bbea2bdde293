"""pyjax.scipy.optimize (BFGS), pyjax.scipy.integrate and pyjax.scipy.cluster.vq against JAX
0.10.2's recorded results (`data/record_scipy_misc.py` → `data/scipy_misc.json`: the iterates,
counts and status codes, so the line search takes JAX's steps) and against SciPy."""
import doctest
import json
import pathlib

import numpy as np
import pytest
import scipy.cluster.vq
import scipy.integrate
import scipy.optimize

import pyjax
import pyjax.numpy as jnp
from pyjax._src.scipy import integrate as integrate_module, optimize as optimize_module
from pyjax._src.scipy import interpolate as interpolate_module, ndimage as ndimage_module
from pyjax._src.scipy import signal as signal_module
from pyjax._src.scipy.spatial import transform as transform_module
from pyjax._src.scipy.cluster import vq as vq_module
from pyjax.scipy.cluster.vq import vq
from pyjax.scipy.integrate import trapezoid
from pyjax.scipy.optimize import OptimizeResults, minimize

from recorded_cases import assert_matches, evaluate

RECORDED = json.loads((pathlib.Path(__file__).parent / "data" / "scipy_misc.json").read_text())


@pytest.fixture(scope="module")
def ns():
    ns = {"jax": pyjax, "jnp": jnp, "np": np}
    exec(RECORDED["prelude"].replace("from jax.", "from pyjax.").replace("import jax.", "import pyjax."), ns)
    return ns


@pytest.mark.parametrize("expr", list(RECORDED["cases"]))
def test_matches_jax(ns, expr):
    # BFGS's iterates pass through many steps: a few ulps of rounding in the line search's
    # arithmetic (fused differently by XLA) may grow, but the counts must be JAX's exactly
    # (spectra sum many products: a few float32 ulps apart from JAX's fused order)
    rtol = 2e-4 if "minimize" in expr else 2e-5 if "sig." in expr else 2e-6
    assert_matches(evaluate(expr, ns), RECORDED["cases"][expr], rtol=rtol, atol=1e-5, err_msg=expr)


def test_public_names():
    assert isinstance(OptimizeResults._fields, tuple)
    for module, names in [(pyjax.scipy.optimize, ["OptimizeResults", "minimize"]),
                          (pyjax.scipy.integrate, ["trapezoid"]), (pyjax.scipy.cluster.vq, ["vq"]),
                          (pyjax.scipy.ndimage, ["map_coordinates"]),
                          (pyjax.scipy.interpolate, ["RegularGridInterpolator"]),
                          (pyjax.scipy.signal, ["convolve", "convolve2d", "correlate", "correlate2d",
                                                "csd", "detrend", "fftconvolve", "istft", "stft", "welch"]),
                          (pyjax.scipy.spatial.transform, ["Rotation", "Slerp"])]:
        assert [n for n in names if not hasattr(module, n)] == []


def _rosen(x):
    return jnp.sum(100.0 * (x[1:] - x[:-1] ** 2) ** 2 + (1 - x[:-1]) ** 2)


# (from (-1.2, 1) JAX's line search fails, as pyjax's does: a recorded case checks that)
@pytest.mark.parametrize("x0", [[2.0, -1.0, 0.5, 1.5], [-0.5, 2.0]])
def test_bfgs_finds_scipys_minimum(x0):
    with pyjax.enable_x64(True):
        ours = minimize(_rosen, jnp.array(x0, jnp.float64), method="BFGS")
    theirs = scipy.optimize.minimize(scipy.optimize.rosen, np.array(x0), jac=scipy.optimize.rosen_der,
                                     method="BFGS")
    assert bool(ours.success) and theirs.success
    np.testing.assert_allclose(ours.x, theirs.x, atol=1e-4)
    np.testing.assert_allclose(ours.fun, theirs.fun, atol=1e-8)


def test_bfgs_on_a_quadratic_recovers_the_inverse_hessian():
    with pyjax.enable_x64(True):
        a = np.array([[3, 0.5, 0], [0.5, 2, 0.2], [0, 0.2, 1]])
        b = np.array([1.0, -2.0, 0.5])
        res = minimize(lambda x, a, b: 0.5 * x @ a @ x - b @ x, jnp.zeros(3), args=(a, b), method="BFGS")
    np.testing.assert_allclose(res.x, np.linalg.solve(a, b), atol=1e-5)
    np.testing.assert_allclose(res.hess_inv, np.linalg.inv(a), atol=0.05)


LBFGS = "l-bfgs-experimental-do-not-rely-on-this"


def test_lbfgs_iterates_as_jax():
    # JAX's experimental L-BFGS: final points (to the bit), status, iteration and evaluation
    # counts recorded from JAX 0.10.2 (float32). From (-1.2, 1) the line search zooms with cubic
    # steps (JAX's rounding: a 2x2 dot) and fails at iteration 17 as JAX's does; the eggholder's
    # gradient goes through sqrt's JVP (JAX's g * (0.5 / ans)).
    def rosen_diff(x):
        return jnp.sum(100.0 * jnp.diff(x) ** 2 + (1.0 - x[:-1]) ** 2)

    def eggholder(p):
        x, y = p
        return (-(y + 47) * jnp.sin(jnp.sqrt(jnp.abs(x / 2.0 + y + 47.0)))
                - x * jnp.sin(jnp.sqrt(jnp.abs(x - (y + 47.0)))))
    run = pyjax.jit(lambda f, x0, gtol: minimize(f, x0, method=LBFGS, options=dict(gtol=gtol)),
                    static_argnums=(0, 2))
    for f, x0, want in [(rosen_diff, jnp.zeros(2), ([1.0, 1.0], 0, 4, 16)),
                        (_rosen, jnp.array([-1.2, 1.0]), ([0.23273009061813354, 0.025799276307225227], 5, 17, 35)),
                        (eggholder, jnp.full(2, 100.0), ([97.27409362792969, 111.10054779052734], 4, 6, 7))]:
        r = run(f, x0, 1e-7)
        assert (r.x.tolist(), int(r.status), int(r.nit), int(r.nfev)) == want
        assert r.hess_inv is None and int(r.njev) == want[3]
    z0 = jnp.array([1.0, 2.0 - 3.0j, 4.0, -5.0j])
    r = run(lambda z: jnp.real(jnp.dot(jnp.conj(z - z0), z - z0)), jnp.zeros_like(z0), 1e-6)
    assert r.x.tolist() == z0.tolist() and int(r.nit) == 1
    with pytest.raises(TypeError, match="args argument to jax.scipy.optimize.minimize must be a tuple"):
        minimize(_rosen, jnp.zeros(2), args=1, method="BFGS")
    with pytest.raises(ValueError, match="Method nelder-mead not recognized"):
        minimize(_rosen, jnp.zeros(2), method="nelder-mead")


def test_trapezoid_matches_scipy():
    rng = np.random.default_rng(3)
    y, x = rng.normal(size=(4, 7)), np.sort(rng.uniform(size=7))
    np.testing.assert_allclose(trapezoid(np.float32(y), np.float32(x)), scipy.integrate.trapezoid(y, x), rtol=1e-5)
    np.testing.assert_allclose(trapezoid(np.float32(y), dx=0.25, axis=0),
                               scipy.integrate.trapezoid(y, dx=0.25, axis=0), rtol=1e-5)


def test_vq_matches_scipy():
    rng = np.random.default_rng(4)
    obs, book = rng.normal(size=(20, 3)), rng.normal(size=(5, 3))
    code, dist = vq(np.float32(obs), np.float32(book))
    want_code, want_dist = scipy.cluster.vq.vq(obs, book)
    np.testing.assert_array_equal(code, want_code)
    np.testing.assert_allclose(dist, want_dist, rtol=1e-5)


@pytest.mark.parametrize("module", [optimize_module, integrate_module, vq_module, ndimage_module,
                                    interpolate_module, signal_module, transform_module])
def test_docstring_examples(module):
    failures, tried = doctest.testmod(module, optionflags=doctest.NORMALIZE_WHITESPACE)[:2]
    assert tried > 0 and failures == 0


@pytest.mark.parametrize("mode", ["nearest", "wrap", "mirror", "reflect"])
@pytest.mark.parametrize("order", [0, 1])
def test_map_coordinates_matches_scipy(mode, order):
    import scipy.ndimage  # (SciPy's name for 'wrap' here is 'grid-wrap')
    x = np.random.default_rng(7).normal(size=(5, 6))
    coords = [np.float32([0.3, -1.2, 4.6, 2.5, 7.1]), np.float32([1.7, 0.0, 5.9, -2.4, 3.3])]
    ours = pyjax.scipy.ndimage.map_coordinates(np.float32(x), coords, order, mode=mode)
    theirs = scipy.ndimage.map_coordinates(x, [c.astype(np.float64) for c in coords], order=order,
                                           mode={"wrap": "grid-wrap"}.get(mode, mode))
    np.testing.assert_allclose(ours, theirs, rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("method", ["linear", "nearest"])
def test_regular_grid_interpolator_matches_scipy(method):
    import scipy.interpolate
    rng = np.random.default_rng(8)
    grid = (np.sort(rng.uniform(0, 4, 5)), np.sort(rng.uniform(-1, 1, 4)), np.arange(3.0))
    values = rng.normal(size=(5, 4, 3))
    pts = np.stack([rng.uniform(-0.5, 4.5, 30), rng.uniform(-1.2, 1.2, 30), rng.uniform(0, 2, 30)], -1)
    ours = pyjax.scipy.interpolate.RegularGridInterpolator(
        tuple(np.float32(g) for g in grid), np.float32(values), method=method)(np.float32(pts))
    theirs = scipy.interpolate.RegularGridInterpolator(grid, values, method=method, bounds_error=False)(
        pts.astype(np.float32).astype(np.float64))
    np.testing.assert_allclose(ours, theirs, rtol=1e-4, atol=1e-5)


def test_signal_matches_scipy():
    import scipy.signal
    rng = np.random.default_rng(9)
    a, b = rng.normal(size=(6, 7)), rng.normal(size=(3, 4))
    for fn in ("convolve", "correlate", "convolve2d", "correlate2d", "fftconvolve"):
        for mode in ("full", "same", "valid"):
            for x, y in ((a, b), (b, a)):
                np.testing.assert_allclose(getattr(pyjax.scipy.signal, fn)(np.float32(x), np.float32(y), mode),
                                           getattr(scipy.signal, fn)(x, y, mode), rtol=1e-4, atol=1e-5,
                                           err_msg=f"{fn} {mode} {x.shape}")
    x, y = rng.normal(size=(2, 200)), rng.normal(size=(2, 200))
    for kw in ({"nperseg": 64}, {"nperseg": 30, "noverlap": 5, "nfft": 40, "detrend": "linear"},
               {"nperseg": 32, "window": ("tukey", 0.3), "scaling": "spectrum", "average": "median"}):
        np.testing.assert_allclose(pyjax.scipy.signal.welch(np.float32(x), **kw)[1],
                                   scipy.signal.welch(x, **kw)[1], rtol=1e-4, atol=1e-6)
        np.testing.assert_allclose(pyjax.scipy.signal.csd(np.float32(x), np.float32(y), **kw)[1],
                                   scipy.signal.csd(x, y, **kw)[1], rtol=1e-4, atol=1e-6)
    _, _, z = pyjax.scipy.signal.stft(np.float32(x), nperseg=40)
    np.testing.assert_allclose(z, scipy.signal.stft(x, nperseg=40)[2], rtol=1e-4, atol=1e-6)
    _, back = pyjax.scipy.signal.istft(z, nperseg=40)
    np.testing.assert_allclose(np.asarray(back)[:, :200], x, atol=1e-5)
    np.testing.assert_allclose(pyjax.scipy.signal.detrend(np.float32(x), bp=[50, 120]),
                               scipy.signal.detrend(x, bp=[50, 120]), atol=1e-5)


def test_rotations_match_scipy():
    from scipy.spatial.transform import Rotation as SciRotation, Slerp as SciSlerp
    from pyjax.scipy.spatial.transform import Rotation, Slerp
    rng = np.random.default_rng(10)
    q = rng.normal(size=(6, 4))
    q /= np.linalg.norm(q, axis=1, keepdims=True)
    ours, theirs = Rotation.from_quat(np.float32(q)), SciRotation.from_quat(q)
    np.testing.assert_allclose(ours.as_matrix(), theirs.as_matrix(), atol=1e-6)
    for seq in ("xyz", "ZYX", "zxz", "XYX"):
        np.testing.assert_allclose(ours.as_euler(seq), theirs.as_euler(seq), atol=2e-6, err_msg=seq)
        back = Rotation.from_euler(seq, np.float32(theirs.as_euler(seq)))
        np.testing.assert_allclose(back.as_matrix(), theirs.as_matrix(), atol=2e-6, err_msg=seq)
    np.testing.assert_allclose(ours.as_rotvec(), theirs.as_rotvec(), atol=1e-6)
    np.testing.assert_allclose(ours.as_mrp(), theirs.as_mrp(), atol=1e-6)
    v = rng.normal(size=(6, 3))
    np.testing.assert_allclose(ours.apply(np.float32(v), inverse=True), theirs.apply(v, inverse=True), atol=1e-5)
    np.testing.assert_allclose(ours.mean().as_matrix(), theirs.mean().as_matrix(), atol=1e-5)
    times = [0.0, 1.0, 2.5, 3.0, 4.0, 6.0]
    at = np.float32([0.3, 2.0, 2.9, 5.5])
    np.testing.assert_allclose(Slerp.init(np.float32(times), ours)(at).as_matrix(),
                               SciSlerp(times, theirs)(at.astype(np.float64)).as_matrix(), atol=1e-5)


def test_rotation_inv_and_slerp_under_rank_promotion_raise():
    # as JAX 0.10.2: Rotation.inv (and Slerp, built on it) do no implicit rank promotion, so they
    # work with jax_numpy_rank_promotion='raise' (JAX's scipy_spatial_test sets it)
    from scipy.spatial.transform import Rotation as SciRotation
    from pyjax.scipy.spatial.transform import Rotation
    q = np.array([[0.1, 0.2, 0.3, 0.9], [0.5, -0.5, 0.5, 0.5]], np.float32)
    with pyjax.numpy_rank_promotion("raise"):
        got = Rotation.from_quat(q).inv().as_rotvec()
    np.testing.assert_allclose(got, SciRotation.from_quat(q).inv().as_rotvec(), rtol=1e-5, atol=1e-6)
