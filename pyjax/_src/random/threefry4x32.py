"""The "threefry4x32" PRNG, as JAX 0.10.2 has it: keys of four uint32 words.

`threefry4x32_p` is Threefry-4x32 (Salmon et al. 2011, Random123; 20 rounds): each round adds
word pairs, rotates one word of each pair left (Threefish's 32-bit 4-word rotation distances)
and xors; the pairing alternates between (0, 1)/(2, 3) and (0, 3)/(2, 1), and every fourth
round the next words of the key schedule (the key plus a parity word) and the round count are
added. split, fold_in and the random bits hash 64-bit positions split in two words, as JAX's,
so the bits are JAX's, bit for bit.
"""
from __future__ import annotations

from functools import partial

import numpy as np

from pyjax._src.lax import elementwise as lax
from pyjax._src.lax import shape_ops
from pyjax._src.random.philox import _ZERO, _check_bits, _combine, _stack_last, _word
from pyjax._src.random.prng import (
    PRNGImpl, counter_hash_primitive, iota_2x32_shape, library_jit, threefry_seed)

ROUNDS = 20
_ROTATIONS = ((10, 26), (11, 21), (13, 27), (23, 5), (6, 20), (17, 11), (25, 10), (18, 20))
_KS_PARITY = np.uint32(0x1BD11BDA)


class _LaxOps:  # the word operations the rounds use, on traced values ...
    add, xor, shl, shr = lax.add, lax.bitwise_xor, lax.shift_left, lax.shift_right_logical
    or_ = lax.bitwise_or


class _NumPyOps:  # ... and on NumPy uint32 arrays (the reference)
    add, xor, shl, shr, or_ = np.add, np.bitwise_xor, np.left_shift, np.right_shift, np.bitwise_or


def _rounds(ops, k0, k1, k2, k3, x0, x1, x2, x3):
    def rotl(v, d):
        return ops.or_(ops.shl(v, np.uint32(d)), ops.shr(v, np.uint32(32 - d)))

    def mix(a, b, d):  # (a + b, (b <<< d) ^ (a + b))
        a = ops.add(a, b)
        return a, ops.xor(a, rotl(b, d))

    parity = ops.xor(ops.xor(ops.xor(k0, k1), ops.xor(k2, k3)), _KS_PARITY)
    ks = (k0, k1, k2, k3, parity)
    x = [ops.add(x0, k0), ops.add(x1, k1), ops.add(x2, k2), ops.add(x3, k3)]
    for r in range(ROUNDS):
        d0, d1 = _ROTATIONS[r % 8]
        if r % 2 == 0:
            x[0], x[1] = mix(x[0], x[1], d0)
            x[2], x[3] = mix(x[2], x[3], d1)
        else:
            x[0], x[3] = mix(x[0], x[3], d0)
            x[2], x[1] = mix(x[2], x[1], d1)
        if r % 4 == 3:
            n = r // 4 + 1  # the n-th injection of the key schedule
            x = [ops.add(x[i], ks[(n + i) % 5]) for i in range(4)]
            x[3] = ops.add(x[3], np.uint32(n))
    return tuple(x)


threefry4x32_p = counter_hash_primitive("threefry4x32", 8, 4, partial(_rounds, _LaxOps),
                                        partial(_rounds, _NumPyOps))


def threefry4x32(k0, k1, k2, k3, x0, x1, x2, x3):
    """The four uint32 words of Threefry-4x32 of `(x0, ..., x3)` under the key `(k0, ..., k3)`."""
    return threefry4x32_p.bind(k0, k1, k2, k3, x0, x1, x2, x3)


def _words(key):
    return [_word(key, i) for i in range(4)]


@library_jit
def threefry4x32_seed(seed):
    """uint32[4]: the hash of the zero counter under the key (high, low, 0, 0) of the seed."""
    words = threefry_seed(seed)  # (its checks; the seed's (high, low) 32-bit words)
    return _stack_last(threefry4x32(_word(words, 0), _word(words, 1), *[_ZERO] * 6))


@library_jit(static_argnums=(1,))
def _threefry4x32_split(key, shape):
    hi, lo = iota_2x32_shape(shape)  # (the position goes in the last two counter words)
    return _stack_last(threefry4x32(*_words(key), _ZERO, _ZERO, hi, lo))


def threefry4x32_split(key, shape):
    return _threefry4x32_split(key, tuple(shape))


@library_jit
def threefry4x32_fold_in(key, data):
    return _stack_last(threefry4x32(*_words(key), _ZERO, _ZERO, _ZERO, data))


@library_jit(static_argnums=(1, 2))
def _threefry4x32_random_bits(key, bit_width, shape):
    hi, lo = iota_2x32_shape(shape)  # (here in the first two counter words)
    out = threefry4x32(*_words(key), hi, lo, _ZERO, _ZERO)
    return _combine(out, bit_width, (lax.bitwise_xor(out[0], out[2]),
                                     lax.bitwise_xor(out[1], out[3])))


def threefry4x32_random_bits(key, bit_width, shape):
    _check_bits("threefry4x32", key, (4,), bit_width)
    return _threefry4x32_random_bits(key, bit_width, tuple(shape))


threefry4x32_prng_impl = PRNGImpl(
    key_shape=(4,), seed=threefry4x32_seed, split=threefry4x32_split,
    random_bits=threefry4x32_random_bits, fold_in=threefry4x32_fold_in, name="threefry4x32",
    tag="fry4")
