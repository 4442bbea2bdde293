"""The Philox PRNGs ("philox2x32", "philox4x32"), as JAX 0.10.2 has them.

Philox (Salmon et al. 2011, Random123) hashes a counter under a key with 10 rounds of a
multiply (the high and low 32-bit halves of the 64-bit product) and xor, bumping the key by a
Weyl constant between rounds. `philox2x32_p` hashes (x0, x1) under a one-word key, and
`philox4x32_p` hashes (x0, x1, x2, x3) under a two-word key, elementwise. The key
implementations use them as JAX does: a key is uint32[1] (philox2x32) or uint32[2]
(philox4x32); split, fold_in and the random bits hash 64-bit positions split in two words, so
the bits are JAX's, bit for bit.
"""
from __future__ import annotations

import numpy as np

from pyjax._src.lax import elementwise as lax
from pyjax._src.lax import shape_ops
from pyjax._src.random.prng import (
    UINT_DTYPES, PRNGImpl, counter_hash_primitive, iota_2x32_shape, library_jit, threefry_seed)

ROUNDS = 10
_MUL_2X32 = np.uint32(0xD256D193)                           # the 2x32 round's multiplier
_MUL_4X32 = (np.uint32(0xD2511F53), np.uint32(0xCD9E8D57))  # the 4x32 round's two multipliers
_BUMP = (np.uint32(0x9E3779B9), np.uint32(0xBB67AE85))      # key bumps: golden ratio, sqrt(3)-1


def _philox2x32_rounds(k, x0, x1):
    for r in range(ROUNDS):
        if r:
            k = lax.add(k, _BUMP[0])
        lo, hi = lax.mul(x0, _MUL_2X32), lax.mulhi(x0, _MUL_2X32)
        x0, x1 = lax.bitwise_xor(lax.bitwise_xor(hi, x1), k), lo
    return x0, x1


def _philox4x32_rounds(k0, k1, x0, x1, x2, x3):
    for r in range(ROUNDS):
        if r:
            k0, k1 = lax.add(k0, _BUMP[0]), lax.add(k1, _BUMP[1])
        lo_a, hi_a = lax.mul(x0, _MUL_4X32[0]), lax.mulhi(x0, _MUL_4X32[0])
        lo_b, hi_b = lax.mul(x2, _MUL_4X32[1]), lax.mulhi(x2, _MUL_4X32[1])
        x0, x1, x2, x3 = (lax.bitwise_xor(lax.bitwise_xor(hi_b, x1), k0), lo_b,
                          lax.bitwise_xor(lax.bitwise_xor(hi_a, x3), k1), lo_a)
    return x0, x1, x2, x3


def _np_mul_lo_hi(x, m):
    wide = x.astype(np.uint64) * np.uint64(m)
    return wide.astype(np.uint32), (wide >> np.uint64(32)).astype(np.uint32)


def _np_philox2x32_rounds(k, x0, x1):
    for r in range(ROUNDS):
        if r:
            k = k + _BUMP[0]
        lo, hi = _np_mul_lo_hi(x0, _MUL_2X32)
        x0, x1 = hi ^ x1 ^ k, lo
    return x0, x1


def _np_philox4x32_rounds(k0, k1, x0, x1, x2, x3):
    for r in range(ROUNDS):
        if r:
            k0, k1 = k0 + _BUMP[0], k1 + _BUMP[1]
        lo_a, hi_a = _np_mul_lo_hi(x0, _MUL_4X32[0])
        lo_b, hi_b = _np_mul_lo_hi(x2, _MUL_4X32[1])
        x0, x1, x2, x3 = hi_b ^ x1 ^ k0, lo_b, hi_a ^ x3 ^ k1, lo_a
    return x0, x1, x2, x3


philox2x32_p = counter_hash_primitive("philox2x32", 3, 2, _philox2x32_rounds,
                                      _np_philox2x32_rounds)
philox4x32_p = counter_hash_primitive("philox4x32", 6, 4, _philox4x32_rounds,
                                      _np_philox4x32_rounds)


def philox2x32(k, x0, x1):
    """The two uint32 words of Philox-2x32 of the counters `(x0, x1)` under the key word `k`."""
    return philox2x32_p.bind(k, x0, x1)


def philox4x32(k0, k1, x0, x1, x2, x3):
    """The four uint32 words of Philox-4x32 of `(x0, ..., x3)` under the key `(k0, k1)`."""
    return philox4x32_p.bind(k0, k1, x0, x1, x2, x3)


def _word(key, i):
    return shape_ops.index_in_dim(key, i, 0, keepdims=False)


def _stack_last(words):
    nd = len(np.shape(words[0]))
    return shape_ops.concatenate([shape_ops.expand_dims(w, (nd,)) for w in words], nd)


def _combine(words, bit_width, hi_lo):
    """JAX's random bits from hash words: 64-bit fields from the (high, low) pair `hi_lo`,
    narrower ones from the xor of all words."""
    dtype = UINT_DTYPES[bit_width]
    if bit_width == 64:
        hi, lo = (lax.convert_element_type(w, dtype) for w in hi_lo)
        return lax.bitwise_or(lax.shift_left(hi, lax._const(hi, 32)), lo)
    out = words[0]
    for w in words[1:]:
        out = lax.bitwise_xor(out, w)
    return out if bit_width == 32 else lax.convert_element_type(out, dtype)


def _check_bits(name, key, key_shape, bit_width):
    if np.shape(key) != key_shape or key.dtype != np.uint32:
        raise TypeError(f"{name}_random_bits got invalid prng key.")
    if bit_width not in UINT_DTYPES:
        raise TypeError("requires 8-, 16-, 32- or 64-bit field width.")


_ZERO = np.uint32(0)

# -- philox2x32: keys of one word ----------------------------------------------------------------


@library_jit
def philox2x32_seed(seed):
    """uint32[1]: the seed's high and low words hashed as a counter under the key 0."""
    words = threefry_seed(seed)  # (its checks; the seed's (high, low) 32-bit words)
    out0, _ = philox2x32(_ZERO, _word(words, 0), _word(words, 1))
    return shape_ops.expand_dims(out0, (0,))


@library_jit(static_argnums=(1,))
def _philox2x32_split(key, shape):
    hi, lo = iota_2x32_shape(shape)
    out0, _ = philox2x32(_word(key, 0), hi, lo)
    return shape_ops.expand_dims(out0, (len(shape),))


def philox2x32_split(key, shape):
    return _philox2x32_split(key, tuple(shape))


@library_jit
def philox2x32_fold_in(key, data):
    out0, _ = philox2x32(_word(key, 0), _ZERO, data)
    return shape_ops.expand_dims(out0, (0,))


@library_jit(static_argnums=(1, 2))
def _philox2x32_random_bits(key, bit_width, shape):
    hi, lo = iota_2x32_shape(shape)
    out = philox2x32(_word(key, 0), hi, lo)
    return _combine(out, bit_width, out)


def philox2x32_random_bits(key, bit_width, shape):
    _check_bits("philox2x32", key, (1,), bit_width)
    return _philox2x32_random_bits(key, bit_width, tuple(shape))


# -- philox4x32: keys of two words -------------------------------------------------------------


@library_jit
def philox4x32_seed(seed):
    """uint32[2]: the first two words of the hash of (0, 0, high, low, 0, 0) of the seed."""
    words = threefry_seed(seed)
    out = philox4x32(_ZERO, _ZERO, _word(words, 0), _word(words, 1), _ZERO, _ZERO)
    return _stack_last(out[:2])


@library_jit(static_argnums=(1,))
def _philox4x32_split(key, shape):
    hi, lo = iota_2x32_shape(shape)  # (the position goes in the last two counter words)
    out = philox4x32(_word(key, 0), _word(key, 1), _ZERO, _ZERO, hi, lo)
    return _stack_last(out[:2])


def philox4x32_split(key, shape):
    return _philox4x32_split(key, tuple(shape))


@library_jit
def philox4x32_fold_in(key, data):
    out = philox4x32(_word(key, 0), _word(key, 1), _ZERO, _ZERO, _ZERO, data)
    return _stack_last(out[:2])


@library_jit(static_argnums=(1, 2))
def _philox4x32_random_bits(key, bit_width, shape):
    hi, lo = iota_2x32_shape(shape)  # (here in the first two counter words)
    out = philox4x32(_word(key, 0), _word(key, 1), hi, lo, _ZERO, _ZERO)
    return _combine(out, bit_width, out[:2])


def philox4x32_random_bits(key, bit_width, shape):
    _check_bits("philox4x32", key, (2,), bit_width)
    return _philox4x32_random_bits(key, bit_width, tuple(shape))


philox2x32_prng_impl = PRNGImpl(
    key_shape=(1,), seed=philox2x32_seed, split=philox2x32_split,
    random_bits=philox2x32_random_bits, fold_in=philox2x32_fold_in, name="philox2x32",
    tag="phx2")

philox4x32_prng_impl = PRNGImpl(
    key_shape=(2,), seed=philox4x32_seed, split=philox4x32_split,
    random_bits=philox4x32_random_bits, fold_in=philox4x32_fold_in, name="philox4x32",
    tag="phx4")
