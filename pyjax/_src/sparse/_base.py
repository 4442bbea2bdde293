"""`JAXSparse`: the base class of the sparse array formats (BCOO, BCSR, COO, CSR)."""
from __future__ import annotations

import math

import numpy as np


class JAXSparse:
    """A sparse array: `data` and index buffers plus a static `shape`. Subclasses are pytrees
    whose leaves are the buffers, so they pass through jit and grad (w.r.t. `data`)."""

    data: object
    shape: tuple
    __hash__ = None   # buffers are arrays (unhashable), as in JAX
    nse: int
    dtype = property(lambda self: self.data.dtype)
    ndim = property(lambda self: len(self.shape))
    size = property(lambda self: math.prod(self.shape))

    def __init__(self, args, *, shape):
        self.shape = tuple(int(d) for d in shape)

    def __len__(self):
        if not self.shape:
            raise TypeError("len() of unsized object")
        return self.shape[0]

    def __repr__(self):
        name = type(self).__name__
        try:
            nse, dt = self.nse, np.dtype(self.dtype).name
        except Exception:  # noqa: BLE001 (a repr must not fail)
            return f"{name}(<invalid>)"
        extra = ""
        n_batch, n_dense = getattr(self, "n_batch", 0), getattr(self, "n_dense", 0)
        if n_batch:
            extra += f", n_batch={n_batch}"
        if n_dense:
            extra += f", n_dense={n_dense}"
        return f"{name}({dt}{list(self.shape)}, nse={nse}{extra})"

    @property
    def T(self):
        return self.transpose()

    def todense(self):
        raise NotImplementedError

    def transpose(self, axes=None):
        raise NotImplementedError

    def block_until_ready(self):
        for leaf in self.tree_flatten()[0]:
            leaf.block_until_ready()
        return self

    __array_priority__ = 2000


# vmap maps a BCOO/BCSR array whole (JAX's vmappable protocol, registered by each format):
# in_axes/out_axes name one of its batch dimensions, and the element's static shape drops (or
# gains) exactly that dimension. `batch_word` keeps each format's JAX wording.
def sparse_to_elt(cont, _, val, axis, batch_word="batch"):
    name = type(val).__name__
    if axis is None:
        return val
    if axis >= val.n_batch:
        raise ValueError(f"Cannot map in_axis={axis} for {name} array with n_batch={val.n_batch}. "
                         f"in_axes for batched {name} operations must correspond to a "
                         f"{batch_word} dimension.")
    return _rebuilt(val, [cont(b, axis) for b in val.tree_flatten()[0]],
                    val.shape[:axis] + val.shape[axis + 1:])


def sparse_from_elt(cont, axis_size, elt, axis):
    name = type(elt).__name__
    if axis is None:
        return elt
    if axis > elt.n_batch:
        raise ValueError(f"{name}: cannot add out_axis={axis} for {name} array with "
                         f"n_batch={elt.n_batch}. {name} batch axes must be a contiguous block "
                         "of leading dimensions.")
    return _rebuilt(elt, [cont(axis_size, b, axis) for b in elt.tree_flatten()[0]],
                    elt.shape[:axis] + (axis_size,) + elt.shape[axis:])


def _rebuilt(val, buffers, shape):
    flags = {k: v for k, v in val._info._asdict().items() if k != "shape"}
    return type(val)(tuple(buffers), shape=shape, **flags)

