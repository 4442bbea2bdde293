"""FFTs: lax.fft and jnp.fft against JAX 0.10.2's recorded values, vjps, jvps and errors
(`data/record_fft.py` -> `data/fft.json`), against NumPy's np.fft over shapes, axes, n/s and
norms, and against finite differences (check_grads of each transform type)."""
import json
import pathlib

import numpy as np
import pytest

import pyjax
import pyjax.numpy as jnp
from pyjax import lax
from pyjax.test_util import check_grads

from recorded_cases import assert_matches, evaluate

RECORDED = json.loads((pathlib.Path(__file__).parent / "data" / "fft.json").read_text())


@pytest.fixture(scope="module")
def ns():
    ns = {"jax": pyjax, "jnp": jnp, "lax": lax, "np": np}
    exec(RECORDED["prelude"], ns)
    return ns


@pytest.mark.parametrize("expr", list(RECORDED["cases"]))
def test_matches_jax(ns, expr):
    tol = 1e-2 if "float16" in expr or "bfloat16" in expr else 2e-5
    assert_matches(evaluate(expr, ns), RECORDED["cases"][expr], rtol=tol, atol=tol, err_msg=expr)


NUMPY_CASES = [
    ("fft", dict()), ("fft", dict(n=5, axis=0, norm="ortho")), ("ifft", dict(n=9, norm="forward")),
    ("rfft", dict(axis=1)), ("irfft", dict(n=7)), ("hfft", dict(n=8)), ("ihfft", dict(axis=0)),
    ("fft2", dict(s=(3, 5))), ("ifft2", dict(axes=(0, 2))), ("rfft2", dict(norm="ortho")),
    ("irfft2", dict(s=(4, 6))), ("fftn", dict(axes=(1, 0, 2))), ("ifftn", dict(s=(2, 3, 4))),
    ("rfftn", dict(s=(2, 5), axes=(0, 2))), ("irfftn", dict(axes=(0, 1, 2))),
]


@pytest.mark.parametrize("name,kw", NUMPY_CASES, ids=[f"{n}-{kw}" for n, kw in NUMPY_CASES])
def test_matches_numpy(name, kw):
    rs = np.random.RandomState(0)
    x = rs.randn(4, 5, 6) + (1j * rs.randn(4, 5, 6) if name.startswith(("i", "h")) and name != "ihfft" else 0)
    x = x.astype(np.complex64 if np.iscomplexobj(x) else np.float32)
    got = getattr(jnp.fft, name)(x, **kw)
    want = getattr(np.fft, name)(x.astype(np.complex128 if np.iscomplexobj(x) else np.float64), **kw)
    assert got.shape == want.shape
    np.testing.assert_allclose(got, want, rtol=2e-4, atol=2e-4 * np.abs(want).max())


def test_frequencies_and_shifts_match_numpy():
    for n, d in ((5, 1.0), (8, 0.25)):
        np.testing.assert_allclose(jnp.fft.fftfreq(n, d), np.fft.fftfreq(n, d), rtol=1e-6)
        np.testing.assert_allclose(jnp.fft.rfftfreq(n, d), np.fft.rfftfreq(n, d), rtol=1e-6)
    x = np.arange(30).reshape(5, 6)
    for axes in (None, 0, (1,), (0, 1)):
        np.testing.assert_array_equal(jnp.fft.fftshift(x, axes), np.fft.fftshift(x, axes))
        np.testing.assert_array_equal(jnp.fft.ifftshift(x, axes), np.fft.ifftshift(x, axes))


@pytest.mark.parametrize("fft_type,shape,lengths", [
    ("fft", (2, 6), (6,)), ("ifft", (3, 4), (3, 4)), ("rfft", (2, 7), (7,)), ("rfft", (4, 6), (4, 6)),
    ("irfft", (2, 4), (6,)), ("irfft", (3, 4), (3, 7))])
def test_lax_fft_grads(fft_type, shape, lengths):
    rs = np.random.RandomState(1)
    x = rs.randn(*shape).astype(np.float32)
    if fft_type != "rfft":
        x = (x + 1j * rs.randn(*shape)).astype(np.complex64)
    if fft_type == "irfft":  # the zero (and Nyquist) frequencies' imaginary parts are ignored
        check_grads(lambda v: lax.fft(v, fft_type, lengths), (x,), order=2, modes=("fwd",),
                    atol=1e-2, rtol=1e-2)
        return
    check_grads(lambda v: lax.fft(v, fft_type, lengths), (x,), order=2, modes=("fwd", "rev"),
                atol=1e-2, rtol=1e-2)


def test_vmap_matches_loop():
    rs = np.random.RandomState(2)
    x = rs.randn(3, 4, 6).astype(np.float32)
    f = lambda v: jnp.fft.irfft(jnp.fft.rfft(v, axis=0) * 2, n=4, axis=0)
    np.testing.assert_allclose(pyjax.vmap(f, in_axes=2, out_axes=1)(x),
                               np.stack([f(x[:, :, i]) for i in range(6)], 1), rtol=1e-5, atol=1e-5)


def test_dct_matches_scipy():
    import scipy.fft as sfft
    x = np.random.RandomState(3).randn(4, 5, 6).astype(np.float32)
    dct = pyjax.scipy.fft
    for norm in (None, "ortho"):
        for axis in (0, -1):
            for n in (None, 4, 8):
                np.testing.assert_allclose(dct.dct(x, n=n, axis=axis, norm=norm),
                                           sfft.dct(x, n=n, axis=axis, norm=norm), rtol=1e-4, atol=1e-4)
                np.testing.assert_allclose(dct.idct(x, n=n, axis=axis, norm=norm),
                                           sfft.idct(x, n=n, axis=axis, norm=norm), rtol=1e-4, atol=1e-4)
        np.testing.assert_allclose(dct.dctn(x, axes=(0, 2), norm=norm), sfft.dctn(x, axes=(0, 2), norm=norm),
                                   rtol=1e-4, atol=1e-3)
        np.testing.assert_allclose(dct.idctn(x, s=(3, 7), norm=norm), sfft.idctn(x, s=(3, 7), norm=norm),
                                   rtol=1e-4, atol=1e-4)


def test_repeated_axes_error_shows_the_axes_as_given():
    """Issue 23: JAX's message shows the user's axes ('Got axes [1, 1].' for a list)."""
    for fn, name in ((jnp.fft.fftn, "fftn"), (jnp.fft.irfftn, "irfftn")):
        with pytest.raises(ValueError, match=rf"jax.numpy.fft.{name} does not support repeated "
                                             r"axes. Got axes \[1, 1\]\."):
            fn(np.ones((2, 3)), axes=[1, 1])

