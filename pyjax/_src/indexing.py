"""`Slice` and `jax.ds`: a window of `size` elements from a start that may be traced.

One type serves both kinds of indexing, as in JAX: a ref's (`ref[pl.ds(i * 8, 8)]`, state and
pallas) and an array's (`x[jax.ds(i, 3)]`, jnp's indexing reads it as a dynamic slice). It is
a pytree whose children are its traced parts, so an index holding one crosses `jit`.
"""
from __future__ import annotations

import dataclasses
import operator
from typing import Any

import numpy as np

from pyjax._src import core, tree_util


@tree_util.register_pytree_node_class
@dataclasses.dataclass(slots=True)
class Slice:
    """`size` elements from `start` (static int or traced scalar), every `stride` elements; the
    size and stride are static (`jax.ds(start, size)` makes one)."""
    start: Any
    size: Any
    stride: int = 1

    def __post_init__(self):
        if self.stride < 0:
            raise ValueError("`stride` must be >= 0.")

    @property
    def is_dynamic_start(self) -> bool:
        return not core.is_dim(self.start)

    @property
    def is_dynamic_size(self) -> bool:
        return not core.is_dim(self.size)

    def tree_flatten(self):
        # a static start or size is metadata (a None child), a traced one a child
        dyn_start, dyn_size = self.is_dynamic_start, self.is_dynamic_size
        children = (self.start if dyn_start else None, self.size if dyn_size else None)
        aux = (None if dyn_start else self.start, None if dyn_size else self.size, self.stride)
        return children, aux

    @classmethod
    def tree_unflatten(cls, aux, children) -> Slice:
        start, size = (c if c is not None else a for c, a in zip(children, aux[:2], strict=True))
        return cls(start, size, aux[2])

    @classmethod
    def from_slice(cls, s: slice, dim: int) -> Slice:
        for b in (s.start, s.stop, s.step):
            if isinstance(b, core.Tracer):
                raise IndexError(f"ref indexing: slice bounds must be static, got {s}; use "
                                 "pl.ds(start, size) for a traced start")
        start, stop, step = s.indices(dim)
        if step < 1:
            raise ValueError(f"slice must have a step >= 1 (found: {step})")
        return cls(start, len(range(start, stop, step)), step)


def ds(start, size=None, stride=None) -> Slice | slice:
    """A dynamic slice `start:start + size` (`jax.ds(i * 4, 4)`); `ds(n)` is `0:n` and
    `ds(None)` is `:`.

    Example:
        >>> jax.jit(lambda x, i: x[jax.ds(i, 2)])(jnp.arange(10), 4)
        Array([4, 5], dtype=int32)
    """
    if start is None:
        return slice(None)
    stride = 1 if stride is None else stride
    if not isinstance(stride, (int, np.integer)):
        raise ValueError("Non-static stride in `dslice`")
    if size is None:
        start, size = 0, start
    size = core.concrete_dim(size, "the size of pl.ds")
    if not isinstance(start, core.Tracer):
        start = operator.index(start) if not isinstance(start, np.ndarray) else int(start)
    return Slice(start, size, int(stride))


dslice = ds
