"""`jax.extend.random`: defining PRNG implementations and the built-in ones (pyjax's
`PRNGImpl`s; keys of any of them are `jax.random` key arrays)."""
from __future__ import annotations

from pyjax._src.random.keys import PRNGSpec
from pyjax._src.random.keys import random_seed as random_seed
from pyjax._src.random.prng import PRNGImpl
from pyjax._src.random.prng import threefry2x32_p as threefry2x32_p
from pyjax._src.random.prng import threefry_2x32 as threefry_2x32
from pyjax._src.random.prng import threefry_prng_impl as threefry_prng_impl
from pyjax._src.random.rbg import rbg_prng_impl as rbg_prng_impl
from pyjax._src.random.rbg import unsafe_rbg_prng_impl as unsafe_rbg_prng_impl


def define_prng_impl(*, key_shape, seed, split, random_bits, fold_in, name: str = "<unnamed>",
                     tag: str = "?") -> PRNGSpec:
    """A PRNG implementation from its key shape and functions on one key's uint32 data, as the
    PRNGSpec naming it (not registered by name; pass it as `impl=` to jax.random.key /
    wrap_key_data), as JAX's."""
    return PRNGSpec(PRNGImpl(tuple(key_shape), seed, split, random_bits, fold_in, name, tag))


def seed_with_impl(impl: PRNGImpl, seed):
    """The key array of `impl` seeded with `seed` (an int or integer array)."""
    return random_seed(seed, impl)
