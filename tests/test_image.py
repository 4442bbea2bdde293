"""pyjax.image against JAX 0.10.2's recorded results (`data/record_image.py` → `data/image.json`:
every method up and down, antialiasing, scale_and_translate, dtypes, gradients, errors), and
against independent oracles: linear resizing is np.interp at the pixel centres, area
downsampling by an integer factor is block averaging, and resampling a constant keeps it."""
import doctest
import json
import pathlib

import numpy as np
import pytest

import pyjax
import pyjax.numpy as jnp
from pyjax._src import image as image_module
from pyjax.image import ResizeMethod, resize, scale_and_translate

from recorded_cases import assert_matches, evaluate

RECORDED = json.loads((pathlib.Path(__file__).parent / "data" / "image.json").read_text())


@pytest.fixture(scope="module")
def ns():
    ns = {"jax": pyjax, "jnp": jnp, "np": np}
    exec(RECORDED["prelude"].replace("from jax.", "from pyjax."), ns)
    return ns


@pytest.mark.parametrize("expr", list(RECORDED["cases"]))
def test_matches_jax(ns, expr):
    expected = RECORDED["cases"][expr]
    rtol = 1e-2 if expected.get("dtype") == "bfloat16" else 2e-5
    assert_matches(evaluate(expr, ns), expected, rtol=rtol, atol=2e-6, err_msg=expr)


def test_linear_upsampling_is_interpolation_at_pixel_centres():
    v = np.random.default_rng(1).normal(size=7)
    n = 19
    centres = (np.arange(n) + 0.5) * 7 / n - 0.5  # output centres in input coordinates
    np.testing.assert_allclose(resize(np.float32(v), (n,), "linear"), np.interp(centres, np.arange(7), v),
                               rtol=1e-5, atol=1e-6)


def test_area_downsampling_by_an_integer_factor_averages_blocks():
    x = np.random.default_rng(2).normal(size=(6, 9))
    np.testing.assert_allclose(resize(np.float32(x), (2, 3), "area"),
                               x.reshape(2, 3, 3, 3).mean(axis=(1, 3)), rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("method", ["linear", "cubic", "lanczos3", "lanczos5", "area", "cubic-pytorch"])
@pytest.mark.parametrize("shape", [(13, 4), (3, 9)])
def test_constants_stay_constant(method, shape):
    out = resize(np.full((6, 5), 2.5, np.float32), shape, method)
    np.testing.assert_allclose(out, 2.5, rtol=1e-5)


def test_public_names():
    assert [n for n in ["ResizeMethod", "resize", "scale_and_translate"] if not hasattr(pyjax.image, n)] == []
    assert ResizeMethod.from_string("trilinear") is ResizeMethod.LINEAR
    assert scale_and_translate is pyjax.image.scale_and_translate


def test_docstring_examples():
    failures, tried = doctest.testmod(image_module, optionflags=doctest.NORMALIZE_WHITESPACE)[:2]
    assert tried > 0 and failures == 0


def test_resize_shape_must_be_integers_as_jax():
    # JAX 0.10.2: an array shape is fine; a float entry (even 10.0) is a TypeError (int() truncated it)
    x = jnp.ones((3, 4))
    assert pyjax.image.resize(x, jnp.array((10, 17)), "nearest").shape == (10, 17)
    for shape in ([10.5, 17], [10.0, 17]):
        with pytest.raises(TypeError, match="Shapes must be 1D sequences of concrete values of integer type"):
            pyjax.image.resize(x, shape, "bicubic")
