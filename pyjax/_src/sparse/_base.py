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
