"""The "rbg" and "unsafe_rbg" PRNG implementations: keys of four uint32 words whose random bits
come from XLA's `rng_bit_generator`. "rbg" derives keys (split, fold_in) with threefry on each
half of the key; "unsafe_rbg" derives them with the generator too.

NB (as in JAX): under vmap the bits of a whole batch of rbg keys come from its first key
(`rng_bit_generator`'s batching rule), so vmap over such keys is not the loop over them.
"""
from __future__ import annotations

import math

import numpy as np

from pyjax._src.api_vmap import vmap
from pyjax._src.lax import elementwise as lax
from pyjax._src.lax import shape_ops
from pyjax._src.lax.random_bits import rng_bit_generator
from pyjax._src.random import prng
from pyjax._src.random.prng import UINT_DTYPES, PRNGImpl, library_jit


@library_jit
def _rbg_seed(seed):
    half = prng.threefry_seed(seed)
    return shape_ops.concatenate([half, half], 0)


def _halves(key):
    return shape_ops.reshape(key, (2, 2))


@library_jit(static_argnums=(1,))
def _rbg_split(key, shape):
    halves = vmap(lambda half: prng.threefry_split(half, shape), out_axes=len(shape))(_halves(key))
    return shape_ops.reshape(halves, (*shape, 4))


@library_jit
def _rbg_fold_in(key, data):
    halves = vmap(lambda half: prng.threefry_fold_in(half, data))(_halves(key))
    return shape_ops.reshape(halves, (4,))


def _rbg_random_bits(key, bit_width, shape):
    if key.shape != (4,) or key.dtype != np.uint32:
        raise TypeError(f"rbg random_bits: invalid key data {key.dtype}{list(key.shape)} "
                        f"(expected uint32[4])")
    if bit_width not in UINT_DTYPES:
        raise TypeError(f"rbg random_bits: bit_width must be 8, 16, 32 or 64, got {bit_width}")
    _, bits = rng_bit_generator(key, tuple(shape), dtype=UINT_DTYPES[bit_width])
    return bits


@library_jit(static_argnums=(1,))
def _unsafe_rbg_split(key, shape):
    """Every tenth row of a block of generated keys."""
    num = math.prod(shape)
    _, keys = rng_bit_generator(key, (10 * num, 4), dtype=np.uint32)
    return shape_ops.reshape(shape_ops.slice_in_dim(keys, 0, 10 * num, 10, axis=0), (*shape, 4))


@library_jit
def _unsafe_rbg_fold_in(key, data):
    _, bits = rng_bit_generator(_rbg_seed(data), (10, 4), dtype=np.uint32)
    return lax.bitwise_xor(key, shape_ops.index_in_dim(bits, 9, 0, keepdims=False))


rbg_prng_impl = PRNGImpl(
    key_shape=(4,), seed=_rbg_seed, split=lambda key, shape: _rbg_split(key, tuple(shape)),
    random_bits=_rbg_random_bits, fold_in=_rbg_fold_in, name="rbg", tag="rbg")

unsafe_rbg_prng_impl = PRNGImpl(
    key_shape=(4,), seed=_rbg_seed, split=lambda key, shape: _unsafe_rbg_split(key, tuple(shape)),
    random_bits=_rbg_random_bits, fold_in=_unsafe_rbg_fold_in, name="unsafe_rbg", tag="urbg")
