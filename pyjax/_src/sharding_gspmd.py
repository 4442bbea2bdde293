"""`GSPMDSharding`: an array laid out over a list of devices as an XLA HloSharding says (JAX's
`jax._src.sharding_impls.GSPMDSharding`): the layout XLA itself speaks, with no mesh. Device i
of the HloSharding's tile assignment is `devices[i]`.

    >>> ns = NamedSharding(mesh, P("x"))
    >>> gs = GSPMDSharding(ns._device_assignment, ns._to_xla_hlo_sharding(2))
    >>> jax.device_put(x, gs).sharding == gs
    True
"""
from __future__ import annotations

import math

import numpy as np

from pyjax._src.backend import xla
from pyjax._src.mesh import Mesh
from pyjax._src.sharding import (NamedSharding, PartitionSpec, SdyArray, SdyDim, Sharding,
                                 canonical_memory_kind, check_divisible, remember_xla,
                                 xla_memory_kind)


def _hlo(op_sharding):
    """An HloSharding from an OpSharding proto (or an HloSharding)."""
    if isinstance(op_sharding, xla.HloSharding):
        return op_sharding
    if isinstance(op_sharding, xla.OpSharding):
        return xla.HloSharding.from_proto(op_sharding)
    raise TypeError(f"GSPMDSharding: expected an OpSharding or an HloSharding, got "
                    f"{type(op_sharding).__name__}")


def _data_dims(hlo) -> tuple[list, int]:
    """(the tile assignment's dimensions, how many of them split the data): the trailing ones
    are replication groups."""
    dims = list(hlo.tile_assignment_dimensions())
    if hlo.replicate_on_last_tile_dim():
        return dims, len(dims) - 1
    subgroups = hlo.subgroup_types()
    if subgroups:
        if any(t != xla.OpSharding.Type.REPLICATED for t in subgroups):
            raise NotImplementedError(f"GSPMDSharding: subgroups other than replicated in {hlo}")
        return dims, len(dims) - len(subgroups)
    return dims, len(dims)


def ways_per_dim(hlo) -> list:
    """How many pieces each data dimension is cut into (empty: replicated)."""
    if hlo.is_replicated() or hlo.is_maximal():
        return []
    dims, n = _data_dims(hlo)
    return dims[:n]


class GSPMDSharding(Sharding):
    """An array laid out over `devices` as the HloSharding (or OpSharding) `op_sharding`."""

    def __init__(self, devices, op_sharding, *, memory_kind=None):
        self._devices = tuple(devices)
        if not self._devices:
            raise ValueError("GSPMDSharding: no devices given")
        self._hlo_sharding = _hlo(op_sharding)
        self.memory_kind = canonical_memory_kind(memory_kind, self._devices[0])
        self._xla = {}

    @classmethod
    def get_replicated(cls, device_assignment, *, memory_kind=None):
        return cls(tuple(device_assignment), xla.HloSharding.replicate(), memory_kind=memory_kind)

    def __reduce__(self):  # (an OpSharding pickles; an HloSharding does not)
        return (_unpickle, (self._devices, self._hlo_sharding.to_proto(), self.memory_kind))

    def _key(self):
        hlo = self._hlo_sharding
        return "replicated" if hlo.is_replicated() else repr(hlo)

    def __eq__(self, other):
        if not isinstance(other, GSPMDSharding):
            return False
        if self is other:
            return True
        return (self._devices == other._devices and self.memory_kind == other.memory_kind
                and (self._hlo_sharding == other._hlo_sharding
                     or (self._hlo_sharding.is_replicated()
                         and other._hlo_sharding.is_replicated())))

    def __hash__(self):
        return hash((self._devices, self._key(), self.memory_kind))

    def __repr__(self):
        return f"GSPMDSharding({self._hlo_sharding!r}, memory_kind={self.memory_kind})"

    def with_memory_kind(self, kind):
        return GSPMDSharding(self._devices, self._hlo_sharding, memory_kind=kind)

    @property
    def _device_assignment(self):
        return self._devices

    @property
    def _internal_device_list(self):
        return xla.DeviceList(self._devices)

    @property
    def device_set(self):
        return set(self._devices)

    @property
    def addressable_devices(self):
        me = xla.process_index()
        return {d for d in self._devices if d.process_index == me}

    @property
    def num_devices(self):
        return len(self._devices)

    @property
    def is_fully_replicated(self):
        return self._hlo_sharding.is_replicated()

    @property
    def is_fully_addressable(self):
        me = xla.process_index()
        return all(d.process_index == me for d in self._devices)

    def check_compatible_aval(self, aval_shape):
        ways = ways_per_dim(self._hlo_sharding)
        if len(aval_shape) < len(ways):
            raise ValueError(f"Sharding {self} is only valid for values of rank at least "
                             f"{len(ways)}, but was applied to a value of rank {len(aval_shape)}")

    def shard_shape(self, global_shape):
        ways = ways_per_dim(self._hlo_sharding) or [1] * len(global_shape)
        self.check_compatible_aval(global_shape)
        check_divisible(self, ways, global_shape)
        return tuple(n // w for n, w in zip(global_shape, ways, strict=True))

    def devices_indices_map(self, global_shape):
        """Which block of the global array each device holds (XLA's tiling: ceil-sized
        pieces)."""
        self.check_compatible_aval(global_shape)
        blocks = hlo_indices(self._hlo_sharding, global_shape, len(self._devices))
        return {self._devices[i]: b for i, b in blocks.items()}

    def _replica_ids(self, ndim):
        """For every device (in order), its rank among the devices holding the same block."""
        # (on a shape of one element per piece, each piece's block names the piece)
        ways = ways_per_dim(self._hlo_sharding) or [1] * ndim
        blocks = hlo_indices(self._hlo_sharding, tuple(ways), len(self._devices))
        seen, out = {}, []
        for i in range(len(self._devices)):
            key = repr(blocks.get(i))
            out.append(seen.get(key, 0))
            seen[key] = out[-1] + 1
        return out

    def _to_xla_hlo_sharding(self, ndim):
        return self._hlo_sharding

    def _to_sdy_sharding(self, ndim):
        """In Shardy's terms: one mesh axis `_axis_i` per tile dimension, in the tile
        assignment's device order. NB: JAX factors the tile assignment into the smallest mesh;
        this is an equivalent, unfactored one."""
        hlo = self._hlo_sharding
        if hlo.is_replicated() or hlo.is_maximal():
            return SdyArray(mesh_shape=(), dim_shardings=tuple(SdyDim(()) for _ in range(ndim)))
        dims, n = _data_dims(hlo)
        names = [f"_axis_{i}" for i in range(len(dims))]
        ids = tuple(int(d) for d in hlo.tile_assignment_devices())
        return SdyArray(mesh_shape=tuple(zip(names, dims)),
                        dim_shardings=tuple(SdyDim((names[i],) if i < n and dims[i] > 1 else ())
                                            for i in range(ndim)),
                        logical_device_ids=None if ids == tuple(range(len(ids))) else ids)

    def as_named(self):
        """The same layout as a NamedSharding, over a mesh of one axis per tile dimension
        (`_axis_0`, ...) holding the devices as the tile assignment orders them: what jit
        compiles with (its device order is then the tile assignment's)."""
        hlo = self._hlo_sharding
        devices = np.empty(len(self._devices), dtype=object)
        devices[:] = self._devices
        if hlo.is_replicated():
            mesh = Mesh(devices, ("_axis_0",))
            return NamedSharding(mesh, PartitionSpec(), memory_kind=self.memory_kind)
        if hlo.is_maximal():
            raise NotImplementedError(f"jit: a maximal GSPMDSharding is not supported: {self!r}")
        dims, n = _data_dims(hlo)
        names = tuple(f"_axis_{i}" for i in range(len(dims)))
        ids = [int(d) for d in hlo.tile_assignment_devices()]
        mesh = Mesh(devices[ids].reshape(dims), names)
        return NamedSharding(mesh, PartitionSpec(*names[:n]), memory_kind=self.memory_kind)

    def _to_xla(self, ndim):
        s = self._xla.get(ndim)
        if s is None:
            s = self._xla[ndim] = xla.gspmd_sharding(
                self._devices, self._hlo_sharding, xla_memory_kind(self.memory_kind,
                                                                   self._devices[0]))
            remember_xla(s, self)
        return s


def _unpickle(devices, op_sharding, memory_kind):
    return GSPMDSharding(devices, op_sharding, memory_kind=memory_kind)


def hlo_indices(hlo, shape, num_devices) -> dict:
    """{device number: the block (a tuple of slices) it holds} of an array of `shape` laid out
    as the HloSharding `hlo` over `num_devices` devices (XLA's tiling: ceil-sized pieces)."""
    whole = tuple(slice(None) for _ in shape)
    if hlo.is_replicated():
        return {i: whole for i in range(num_devices)}
    if hlo.is_maximal():
        return {hlo.tile_assignment_devices()[0]: whole}
    dims, n = _data_dims(hlo)
    out = {}
    for pos, dev in enumerate(hlo.tile_assignment_devices()):
        tile = np.unravel_index(pos, dims)[:n]
        block = []
        for size, t, i in zip(shape, dims[:n], tile, strict=True):
            chunk = -(-size // t)
            block.append(slice(None) if t == 1 else
                         slice(min(int(i) * chunk, size), min((int(i) + 1) * chunk, size)))
        out[int(dev)] = tuple(block)
    return out


def num_ways_dim_sharded(hlo) -> tuple[list, int]:
    """(pieces per data dimension, size of the replication group), as JAX's
    `get_num_ways_dim_sharded`."""
    if hlo.is_replicated():
        return [], 1
    dims, n = _data_dims(hlo)
    return dims[:n], math.prod(dims[n:])
