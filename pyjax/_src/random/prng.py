"""The threefry2x32 hash as a primitive, and the threefry2x32 PRNG built on it.

`threefry2x32_p` hashes pairs of uint32 counters under a uint32 key pair (Salmon et al. 2011,
20 rounds, with JAX's rotation constants and key schedule), elementwise. The PRNG functions
(`threefry_seed`, `threefry_split`, `threefry_fold_in`, `threefry_random_bits`) are what a key
implementation provides (`PRNGImpl`); they work on raw key data (uint32[2]) and reproduce JAX
0.10.2's bits exactly, in both settings of `jax_threefry_partitionable` (True by default).
"""
from __future__ import annotations

import math
from functools import partial
from typing import Callable, NamedTuple

import numpy as np

from pyjax._src import core, dtypes
from pyjax._src.config import config
from pyjax._src.core import ShapedArray
from pyjax._src.interpreters.batching import defbroadcasting
from pyjax._src.lax import elementwise as lax
from pyjax._src.lax import shape_ops
from pyjax._src.lax.control_flow.scan import fori_loop
from pyjax._src.lax.utils import (
    broadcast_operands, broadcast_scalars_shape, standard_primitive, zero_derivative)
from pyjax._src.pjit import jit, jit_info


def library_jit(fun=None, **kwargs):
    """`jit` for the pieces of the random library. New shapes and dtypes are routine for them,
    so pjit's warning about repeated recompiles (which points users at their own functions)
    is switched off for these.

    NB: that warning is pyjax's (JAX explains misses only under jax_explain_cache_misses)."""
    if fun is None:
        return partial(library_jit, **kwargs)
    jitted = jit(fun, **kwargs)
    jit_info(jitted)._explain_miss = _no_explanation
    return jitted


def _no_explanation(key):
    return None


UINT_DTYPES = {8: np.dtype("uint8"), 16: np.dtype("uint16"), 32: np.dtype("uint32"),
               64: np.dtype("uint64")}

# Threefry-2x32's rotation distances, one set of four per alternate group of rounds, and the
# constant that makes the third word of the key schedule (Random123's SKEIN_KS_PARITY32).
_ROTATIONS = ((13, 15, 26, 6), (17, 29, 16, 24))
_KS_PARITY = 0x1BD11BDA

# -- threefry2x32_p: hash (x1, x2) under the key (k1, k2), elementwise ------------------------

threefry2x32_p = standard_primitive("threefry2x32", multiple_results=True, jvp=zero_derivative)


def threefry2x32(k1, k2, x1, x2):
    """The two uint32 words of Threefry-2x32 of the counters `(x1, x2)` under the key
    `(k1, k2)`; operands broadcast as lax operands do (rank 0, or equal ranks).

    >>> threefry2x32(np.uint32(0), np.uint32(0), np.uint32(0), np.uint32(0))
    [Array(1797259609, dtype=uint32), Array(2579123966, dtype=uint32)]
    """
    return threefry2x32_p.bind(k1, k2, x1, x2)


@threefry2x32_p.def_abstract_eval
def _threefry2x32_abstract_eval(*args):
    if any(a.dtype != np.uint32 for a in args):
        raise TypeError(f"threefry2x32: operands must have dtype uint32, got "
                        f"{', '.join(a.str_short() for a in args)}")
    shape = broadcast_scalars_shape("threefry2x32", args)
    return [ShapedArray(shape, np.dtype(np.uint32))] * 2


def _np_threefry2x32(k1, k2, x1, x2):
    """The reference: the same rounds on NumPy uint32 arrays (which wrap on overflow)."""
    k1, k2, x1, x2 = (np.asarray(a, np.uint32) for a in np.broadcast_arrays(k1, k2, x1, x2))
    with np.errstate(over="ignore"):
        ks = [k1, k2, k1 ^ k2 ^ np.uint32(_KS_PARITY)]
        x = [x1 + ks[0], x2 + ks[1]]
        for i in range(5):
            for r in _ROTATIONS[i % 2]:
                x0 = x[0] + x[1]
                x1 = (x[1] << np.uint32(r)) | (x[1] >> np.uint32(32 - r))
                x = [x0, x0 ^ x1]
            x = [x[0] + ks[(i + 1) % 3], x[1] + ks[(i + 2) % 3] + np.uint32(i + 1)]
    return [np.asarray(x[0], np.uint32), np.asarray(x[1], np.uint32)]


threefry2x32_p.np_impl = _np_threefry2x32
defbroadcasting(threefry2x32_p)


@threefry2x32_p.def_lowering
def _threefry2x32_lowering(ctx, *operands):
    """The 20 rounds unrolled (JAX's rule for accelerators)."""
    out = ctx.avals_out[0]
    k1, k2, x1, x2 = broadcast_operands(ctx, operands)

    def op(name, a, b):
        return ctx.op(f"stablehlo.{name}", a, b, out=out)

    def const(v):
        return ctx.const(v, np.uint32, out.shape)

    def rotate_left(v, d):
        return op("or", op("shift_left", v, const(d)), op("shift_right_logical", v, const(32 - d)))

    ks = [k1, k2, op("xor", op("xor", k1, k2), const(_KS_PARITY))]
    x = [op("add", x1, ks[0]), op("add", x2, ks[1])]
    for i in range(5):
        for r in _ROTATIONS[i % 2]:
            x0 = op("add", x[0], x[1])
            x = [x0, op("xor", x0, rotate_left(x[1], r))]
        x = [op("add", x[0], ks[(i + 1) % 3]),
             op("add", op("add", x[1], ks[(i + 2) % 3]), const(i + 1))]
    return x


def _threefry2x32_rolled(k1, k2, x1, x2):
    """The rounds as a loop of 5 steps of 4 (each step adds the next key-schedule word), with
    the key words and rotation sets rotating in the carry: XLA compiles this far faster than
    the unrolled rounds when the hash sits in loops (rejection samplers), as JAX lowers it on
    CPU."""
    shape = broadcast_scalars_shape("threefry2x32", [core.get_aval(a) for a in (k1, k2, x1, x2)])
    # the counters take the full shape; the key words stay as they are (scalars, usually), so
    # the loop carries no more full-size arrays than it must
    x1, x2 = (v if np.shape(v) == shape else shape_ops.broadcast_in_dim(v, shape, tuple(range(np.ndim(v))))
              for v in (x1, x2))
    ks = [k1, k2, lax.bitwise_xor(lax.bitwise_xor(k1, k2), np.uint32(_KS_PARITY))]

    def rotate_left(v, d):
        return lax.bitwise_or(lax.shift_left(v, d), lax.shift_right_logical(v, np.uint32(32) - d))

    def step(i, state):
        (x0, x1), ks, rotations = state
        for j in range(4):
            r = rotations[0, j]
            x0 = lax.add(x0, x1)
            x1 = lax.bitwise_xor(x0, rotate_left(x1, r))
        count = lax.convert_element_type(i + 1, np.uint32)
        x = (lax.add(x0, ks[0]), lax.add(lax.add(x1, ks[1]), count))
        return x, (ks[1], ks[2], ks[0]), shape_ops.rev(rotations, (0,))

    x = (lax.add(x1, ks[0]), lax.add(x2, ks[1]))
    x, _, _ = fori_loop(0, 5, step, (x, (ks[1], ks[2], ks[0]), np.array(_ROTATIONS, np.uint32)))
    return list(x)


# Unrolled rounds run ~6x faster on large arrays but cost XLA compile time at every use, which
# adds up in the rejection samplers' loops (poisson: 7.6 s instead of 1.9 s). So on CPU only
# hashes of many elements are unrolled (NB: JAX rolls every CPU hash; the bits are the same).
_UNROLL_MIN_SIZE = 1 << 16


def _threefry2x32_cpu_lowering(ctx, *args):
    size = math.prod(ctx.avals_out[0].shape)
    if type(size) is int and size >= _UNROLL_MIN_SIZE:  # (a symbolic size, under export: rolled)
        return _threefry2x32_lowering(ctx, *args)
    return ctx.lower_fun(_threefry2x32_rolled, True)(*args)


threefry2x32_p.def_lowering(_threefry2x32_cpu_lowering, platform="cpu")


# -- the hash of a counter array, and counters by position -------------------------------------


def threefry_2x32(keypair, count):
    """Threefry-2x32 of a uint32 `count` array of any shape under the key pair `keypair` (two
    uint32 scalars, or uint32[2] key data): the flattened counts (padded with a 0 to even
    length) are split in halves that form the pairs. One compiled computation (JAX's jit)."""
    k1, k2 = keypair
    k1, k2, count = (np.asarray(v) if isinstance(v, (int, np.generic)) else v
                     for v in (k1, k2, count))
    if any(v.dtype != np.uint32 for v in (k1, k2)):
        raise TypeError(f"threefry_2x32 requires uint32 arguments, got {[k1.dtype, k2.dtype]}")
    if count.dtype != np.uint32:
        raise TypeError(f"threefry_2x32 requires uint32 arguments, got {count.dtype}")
    return _threefry_2x32(k1, k2, count)


def _hash_counts(k1, k2, count):
    flat = shape_ops.reshape(count, (math.prod(count.shape),))
    odd = flat.shape[0] % 2
    if odd:
        flat = shape_ops.concatenate([flat, np.zeros(1, np.uint32)], 0)
    half = flat.shape[0] // 2
    x1, x2 = threefry2x32(k1, k2, _cut(flat, 0, half), _cut(flat, half, 2 * half))
    out = shape_ops.concatenate([x1, x2], 0)
    return shape_ops.reshape(_cut(out, 0, 2 * half - odd), count.shape)


_threefry_2x32 = library_jit(_hash_counts)


def _words(key):
    """The two uint32 scalars of threefry key data."""
    return [shape_ops.index_in_dim(key, i, 0, keepdims=False) for i in range(2)]


def _cut(x, start, stop):
    return shape_ops.slice_in_dim(x, start, stop, axis=0)


def iota_2x32_shape(shape):
    """The row-major position of every element of `shape` as a 64-bit count split into
    (high, low) uint32 words: the counters of the partitionable split and random bits.

    NB: JAX's own primitive computes the high words too; here arrays of 2**32 elements or more
    (16 GiB of uint32) are refused."""
    size = math.prod(shape)
    if type(size) is int and size >= 2 ** 32:
        raise NotImplementedError(f"random: arrays of 2**32 or more elements (shape {shape}) "
                                  f"are not supported")
    lo = shape_ops.reshape(shape_ops.iota(np.uint32, size), shape)
    if type(size) is not int:  # a symbolic shape (export)
        return shape_ops.broadcast_in_dim(np.uint32(0), shape, ()), lo
    return np.zeros(shape, np.uint32), lo


# -- the threefry2x32 PRNG: seed, split, fold_in, random bits -----------------------------------


@library_jit
def _threefry_seed(seed):
    """uint32[2] key data from an integer scalar: its high and low 32-bit words (the high
    word is 0 for seeds of 32 bits or fewer; narrower signed seeds are sign-extended)."""
    if seed.shape:
        raise TypeError(f"PRNG key seed must be a scalar; got {seed!r}.")
    if not dtypes.issubdtype(seed.dtype, np.integer):
        raise TypeError(f"PRNG key seed must be an integer; got {seed!r}")
    hi = lax.shift_right_logical(seed, lax._const(seed, 32))  # 0 unless 64-bit, as in XLA
    words = [lax.convert_element_type(w, np.uint32) for w in (hi, seed)]
    return shape_ops.concatenate([shape_ops.expand_dims(w, (0,)) for w in words], 0)


def threefry_seed(seed):
    """The threefry2x32 key data (uint32[2]) of an integer scalar seed."""
    return _threefry_seed(seed)


def _partitionable():
    """jax_threefry_partitionable (a trace flag: jit caches key on it)."""
    return config._values["jax_threefry_partitionable"]


@library_jit(static_argnums=(1,))
def _threefry_split(key, shape):
    if _partitionable():  # key i hashes the 64-bit counter i
        hi, lo = iota_2x32_shape(shape)
        bits1, bits2 = threefry2x32(*_words(key), hi, lo)
        return shape_ops.concatenate([shape_ops.expand_dims(b, (len(shape),)) for b in (bits1, bits2)],
                                     len(shape))
    counts = shape_ops.iota(np.uint32, math.prod(shape) * 2)
    return shape_ops.reshape(_hash_counts(*_words(key), counts), (*shape, 2))


def threefry_split(key, shape):
    """uint32[*shape, 2]: the key data of `math.prod(shape)` new keys."""
    return _threefry_split(key, tuple(shape))


@library_jit
def _threefry_fold_in(key, data):
    return _hash_counts(*_words(key), threefry_seed(data))


def threefry_fold_in(key, data):
    """The key data of `key` with the uint32 scalar `data` folded in."""
    return _threefry_fold_in(key, data)


def _bits_partitionable(key, bit_width, shape):
    hi, lo = iota_2x32_shape(shape)
    bits1, bits2 = threefry2x32(*_words(key), hi, lo)
    dtype = UINT_DTYPES[bit_width]
    if bit_width == 64:
        bits_hi, bits_lo = (lax.convert_element_type(b, dtype) for b in (bits1, bits2))
        return lax.bitwise_or(lax.shift_left(bits_hi, lax._const(bits_hi, 32)), bits_lo)
    return lax.convert_element_type(lax.bitwise_xor(bits1, bits2), dtype)


def _bits_original(key, bit_width, shape):
    """The stream of the original (non-partitionable) scheme: ceil(bits * size / 32) uint32
    words hashed from the counters 0, 1, ..., then cut into fields of `bit_width` bits."""
    size = math.prod(shape)
    max_count = -(-bit_width * size // 32)
    nblocks, rem = (divmod(max_count, np.iinfo(np.uint32).max) if type(max_count) is int
                    else (0, max_count))  # (a symbolic size, under export: one block)
    if nblocks:  # as JAX: more than 2**32 - 1 words come from one subkey per block
        raise NotImplementedError(f"random: arrays of 2**32 or more elements (shape {shape}) "
                                  f"are not supported")
    bits = _hash_counts(*_words(key), shape_ops.iota(np.uint32, rem))
    dtype = UINT_DTYPES[bit_width]
    if bit_width == 64:
        hi, lo = (lax.convert_element_type(b, dtype) for b in (_cut(bits, 0, size), _cut(bits, size, 2 * size)))
        bits = lax.bitwise_or(lax.shift_left(hi, lax._const(hi, 32)), lo)
    elif bit_width in (8, 16):  # each word's fields, lowest first: the bytes of a view
        per_word = 32 // bit_width
        shifts = shape_ops.broadcasted_iota(np.uint32, (max_count, per_word), 1)
        shifts = lax.mul(shifts, lax._const(shifts, bit_width))
        words = shape_ops.broadcast_in_dim(bits, (max_count, per_word), (0,))
        fields = lax.bitwise_and(lax.shift_right_logical(words, shifts),
                                 lax._const(words, np.iinfo(dtype).max))
        bits = _cut(shape_ops.reshape(fields, (max_count * per_word,)), 0, size)
        bits = lax.convert_element_type(bits, dtype)
    return shape_ops.reshape(bits, shape)


@library_jit(static_argnums=(1, 2))
def _threefry_random_bits(key, bit_width, shape):
    if _partitionable():
        return _bits_partitionable(key, bit_width, shape)
    return _bits_original(key, bit_width, shape)


def threefry_random_bits(key, bit_width, shape):
    """uint{bit_width}[*shape] random bits from the key data `key`."""
    if key.shape != (2,) or key.dtype != np.uint32:
        raise TypeError(f"threefry_random_bits: invalid key data {key.dtype}{list(key.shape)} "
                        f"(expected uint32[2])")
    if bit_width not in UINT_DTYPES:
        raise TypeError(f"threefry_random_bits: bit_width must be 8, 16, 32 or 64, got {bit_width}")
    return _threefry_random_bits(key, bit_width, tuple(shape))


# -- other counter-based hashes as primitives --------------------------------------------------


def counter_hash_primitive(name, n_in, n_out, rounds, np_rounds):
    """A primitive `name` of `n_in` uint32 operands (rank 0, or one shape with 1s stretched, as
    lax's elementwise operands) and `n_out` uint32 results of their common shape, computed by
    `rounds(*operands)` written with lax ops on operands of that shape (philox, threefry4x32);
    `np_rounds` is the same on NumPy uint32 arrays (the reference)."""
    p = standard_primitive(name, multiple_results=True, jvp=zero_derivative)

    def _np_impl(*args):
        full = np.broadcast_arrays(*(np.asarray(a, np.uint32) for a in args))
        with np.errstate(over="ignore"):
            return [np.asarray(o, np.uint32) for o in np_rounds(*full)]
    p.np_impl = _np_impl

    @p.def_abstract_eval
    def _abstract_eval(*args):
        if len(args) != n_in:
            raise TypeError(f"{name}_p expects {n_in} arguments, got {len(args)}.")
        if any(a.dtype != np.uint32 for a in args):
            raise TypeError(f"Arguments to {name} must have uint32 type, got "
                            f"{', '.join(a.str_short() for a in args)}")
        return [ShapedArray(broadcast_scalars_shape(name, args), np.dtype(np.uint32))] * n_out

    def _full_rounds(*args):
        shape = broadcast_scalars_shape(name, [core.get_aval(a) for a in args])
        full = [a if np.shape(a) == shape else shape_ops.broadcast_in_dim(
            a, shape, tuple(range(np.ndim(a)))) for a in args]  # (rank 0, or 1s stretched)
        return list(rounds(*full))

    p.def_lowering(lambda ctx, *args: ctx.lower_fun(_full_rounds, True)(*args))
    defbroadcasting(p)
    return p


# -- key implementations ---------------------------------------------------------------------


class PRNGImpl(NamedTuple):
    """A key implementation: the shape of a key's uint32 data and the functions on it:
    `seed(int scalar) -> data`, `split(data, shape) -> data[*shape]`,
    `random_bits(data, bit_width, shape) -> uint[*shape]`, `fold_in(data, uint32 scalar) -> data`.
    `tag` names its key dtype (`key<fry>`)."""
    key_shape: tuple
    seed: Callable
    split: Callable
    random_bits: Callable
    fold_in: Callable
    name: str = "<unnamed>"
    tag: str = "?"

    def __hash__(self):
        return hash(self.tag)

    def __str__(self):
        return self.tag

    def __repr__(self):  # (as a jaxpr parameter: the functions would only clutter it)
        return f"PRNGImpl({self.name})"


prngs: dict[str, PRNGImpl] = {}


def register_prng(impl: PRNGImpl) -> PRNGImpl:
    if impl.name in prngs:
        raise ValueError(f"register_prng: a PRNG named {impl.name!r} is already registered")
    prngs[impl.name] = impl
    return impl


# (registered with the others by random.keys, in JAX's order)
threefry_prng_impl = PRNGImpl(
    key_shape=(2,), seed=threefry_seed, split=threefry_split, random_bits=threefry_random_bits,
    fold_in=threefry_fold_in, name="threefry2x32", tag="fry")
