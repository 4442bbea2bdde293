"""`jax._src.tpu.linalg.stack`: a stack of fixed capacity usable inside jit and loops (a pytree of
arrays with a leading capacity axis, and the number of elements held)."""
from __future__ import annotations

from typing import Any

import pyjax.numpy as jnp
from pyjax import lax
from pyjax._src import tree_util


@tree_util.register_pytree_node_class
class Stack:
    """At most `capacity` elements shaped like a prototype pytree; push and pop return new
    stacks (it is immutable, as every JAX value)."""

    def __init__(self, size, data):
        self._size = size
        self._data = data

    def tree_flatten(self):
        return (self._size, self._data), None

    @classmethod
    def tree_unflatten(cls, aux, children):
        del aux
        return cls(*children)

    @staticmethod
    def create(capacity: int, prototype: Any) -> Stack:
        """An empty stack of `capacity` elements like `prototype` (a pytree of arrays)."""
        data = tree_util.tree_map(
            lambda x: jnp.zeros((capacity,) + tuple(jnp.shape(x)), jnp.result_type(x)), prototype)
        return Stack(jnp.asarray(0, jnp.int32), data)

    def empty(self):
        """Whether the stack holds no element (a boolean scalar)."""
        return self._size == 0

    def push(self, elem: Any) -> Stack:
        """The stack with `elem` on top (past capacity, the top slot is overwritten)."""
        data = tree_util.tree_map(
            lambda buf, x: lax.dynamic_update_index_in_dim(buf, jnp.asarray(x, buf.dtype),
                                                           self._size, 0),
            self._data, elem)
        return Stack(self._size + 1, data)

    def pop(self) -> tuple[Any, Stack]:
        """(the top element, the stack without it)."""
        size = self._size - 1
        elem = tree_util.tree_map(
            lambda buf: lax.dynamic_index_in_dim(buf, size, 0, keepdims=False), self._data)
        return elem, Stack(size, self._data)
