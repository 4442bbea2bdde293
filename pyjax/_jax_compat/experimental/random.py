"""`jax.experimental.random`: a stateful generator (`stateful_rng(seed)`), a typed key and a
counter in a mutable reference; each draw folds the counter into the key and bumps it, so
repeated draws differ, eagerly and under jit (the ref is threaded through the jitted function).
NumPy's Generator method names (random, uniform, normal, integers, spawn)."""
from __future__ import annotations

import dataclasses
import operator

import numpy as np

import pyjax.numpy as jnp
from pyjax import random
from pyjax import ref as _ref
from pyjax._src import core, dtypes, tree_util
from pyjax._src.state.types import AbstractRef, Ref


def _size(size, *args) -> tuple:
    if size is None:
        return tuple(np.broadcast_shapes(*(np.shape(a) for a in args)))
    if isinstance(size, (int, np.integer)):
        return (operator.index(size),)
    return tuple(operator.index(s) for s in size)


def _is_ref(x) -> bool:
    return isinstance(x, Ref) or (isinstance(x, core.Tracer) and isinstance(x.aval, AbstractRef))


@tree_util.register_dataclass
@dataclasses.dataclass(frozen=True)
class StatefulPRNG:
    """A typed PRNG key (`_base_key`) and a scalar integer ref counting the draws
    (`_counter`); make one with `stateful_rng`."""
    _base_key: object
    _counter: object

    def __post_init__(self):
        if not hasattr(self._base_key, "dtype"):
            return  # (a placeholder leaf while pytrees are rebuilt)
        if not dtypes.issubdtype(self._base_key.dtype, dtypes.prng_key):
            raise ValueError(f"Expected base_key to be a typed PRNG key; got {self._base_key}")
        if not _is_ref(self._counter):
            raise ValueError(f"Expected counter to be a scalar integer ref; got {self._counter}")

    def key(self, shape=()):
        """A new key (or `shape` of them), independent of earlier ones: the base key folded
        with the counter, which then goes up by one."""
        if self._base_key.shape:
            raise ValueError("cannot operate on split stateful generator")
        key = random.fold_in(self._base_key, _ref.get(self._counter, ()))
        _ref.addupdate(self._counter, (), 1)
        shape = _size(shape)
        return random.split(key, shape) if shape else key

    def random(self, size=None, dtype=float):
        """Floats uniform in [0, 1)."""
        return random.uniform(self.key(), shape=_size(size), dtype=dtype)

    def uniform(self, low=0, high=1, size=None, *, dtype=float):
        return random.uniform(self.key(), _size(size, low, high), minval=low, maxval=high,
                              dtype=dtype)

    def normal(self, loc=0, scale=1, size=None, *, dtype=float):
        draws = random.normal(self.key(), _size(size, loc, scale), dtype)
        return (jnp.asarray(loc) + jnp.asarray(scale) * draws).astype(dtype)

    def integers(self, low, high=None, size=None, *, dtype=int):
        """Integers in [low, high) (in [0, low) when `high` is not given)."""
        if high is None:
            low, high = 0, low
        return random.randint(self.key(), _size(size, low, high), minval=low, maxval=high,
                              dtype=dtype)

    def split(self, num) -> StatefulPRNG:
        """One generator whose leaves are mapped over `num` (for jax.vmap)."""
        return StatefulPRNG(self.key(num), _ref.new_ref(jnp.zeros(num, dtype=int)))

    def spawn(self, n_children: int) -> list:
        """`n_children` independent generators, as a list."""
        return [type(self)(k, _ref.new_ref(0)) for k in self.key(n_children)]


def stateful_rng(seed=None, *, impl=None) -> StatefulPRNG:
    """A stateful generator seeded with `seed` (from NumPy's entropy when None, which is only
    allowed outside transformations)."""
    if seed is None:
        if not isinstance(core.current_trace(), core.EvalTrace):
            raise TypeError("When used within transformed code, jax.experimental.random."
                            "stateful_rng() requires an explicit seed to be set.")
        seed = np.int64(np.random.SeedSequence().entropy & np.iinfo(np.int64).max)
    return StatefulPRNG(random.key(seed, impl=impl), _ref.new_ref(0))
