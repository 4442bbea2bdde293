"""Gradients of common layers (dense with gelu, conv + pooling, attention, layer norm, a scan
RNN) have JAX 0.10.2's bits, eagerly and under jit: pyjax's derivative rules follow JAX's
formulas, so the same XLA computes the same numbers (issue 23 item 5).

The bits were recorded from JAX on one machine (`data/record_layer_bits.py`). XLA's CPU code
generator rounds transcendental functions' last bits by CPU model, so the comparison is exact
only where this machine's XLA reproduces the recorded probes (tanh, exp, ... of fixed inputs)
bit for bit; elsewhere the gradients are compared to a few ulps.
"""
import json
import pathlib

import numpy as np
import pytest

import pyjax
import pyjax.numpy as jnp
from pyjax import lax

from layer_bits_cases import KNOWN_DIFFERENT, PRELUDE, PROBE, grads, probe_fn

RECORDED = json.loads((pathlib.Path(__file__).parent / "data" / "jax_layer_bits.json").read_text())


@pytest.fixture(scope="module")
def ns():
    ns = {"jax": pyjax, "jnp": jnp, "lax": lax, "np": np}
    exec(PRELUDE, ns)
    return ns


@pytest.fixture(scope="module")
def same_xla(ns):
    """Whether this machine computes the probes with the recording machine's bits."""
    return all(np.asarray(probe_fn(pyjax, fn)(ns["PROBE_X"])).tobytes().hex() == RECORDED["probe"][fn]
               for fn in PROBE)


def _ulps(a, b):
    a, b = (np.asarray(v, np.float32).view(np.int32).astype(np.int64) for v in (a, b))
    a, b = (np.where(v < 0, np.int64(-2**31) - v, v) for v in (a, b))  # monotone in the float
    return int(np.max(np.abs(a - b))) if a.size else 0


@pytest.mark.parametrize("mode", ["eager", "jit"])
@pytest.mark.parametrize("name", ["dense", "conv", "attention", "layer_norm", "scan_rnn"])
def test_gradients_have_jax_bits(ns, same_xla, name, mode):
    ours = grads(pyjax, ns["CASES"][name], mode)
    want = [np.frombuffer(bytes.fromhex(h), np.float32).reshape(np.shape(g))
            for h, g in zip(RECORDED["grads"][f"{name}/{mode}"], ours, strict=True)]
    worst = max(_ulps(g, w) for g, w in zip(ours, want))
    if same_xla and name not in KNOWN_DIFFERENT:
        assert worst == 0, f"{name}/{mode}: {worst} ulps from JAX's gradient"
    for g, w in zip(ours, want):  # (sums that cancel: an absolute tolerance at the leaf's scale)
        np.testing.assert_allclose(g, w, rtol=1e-5, atol=1e-6 * float(np.max(np.abs(w))))
    if same_xla and name in KNOWN_DIFFERENT:
        assert worst > 0, f"{name} now has JAX's bits: drop it from KNOWN_DIFFERENT"
