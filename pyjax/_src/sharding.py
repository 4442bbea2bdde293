"""Shardings: how an array's data is laid out over devices. Single-device only for now; meshes
and named shardings come with the multi-device issue."""
from __future__ import annotations


class Sharding:
    """Base class of shardings."""

    @property
    def device_set(self) -> set:
        raise NotImplementedError

    @property
    def is_fully_replicated(self) -> bool:
        return True

    @property
    def is_fully_addressable(self) -> bool:
        return True


class Shard:
    """One piece of an array on one device: `data` holds `index` (a tuple of slices into the
    global array) of the array's value."""

    __slots__ = ("device", "index", "replica_id", "data")

    def __init__(self, device, index, replica_id, data):
        self.device, self.index, self.replica_id, self.data = device, index, replica_id, data

    def __repr__(self):
        return (f"Shard(device={self.device!r}, index={self.index}, "
                f"replica_id={self.replica_id}, data={self.data})")


class SingleDeviceSharding(Sharding):
    """All of the array on one device."""

    def __init__(self, device, *, memory_kind=None):
        self._device = device
        self.memory_kind = memory_kind

    @property
    def device_set(self):
        return {self._device}

    def devices_indices_map(self, global_shape):
        return {self._device: tuple(slice(None) for _ in global_shape)}

    def __eq__(self, other):
        return isinstance(other, SingleDeviceSharding) and other._device == self._device

    def __hash__(self):
        return hash(("SingleDeviceSharding", self._device))

    def __repr__(self):
        return f"SingleDeviceSharding(device={self._device!r})"
