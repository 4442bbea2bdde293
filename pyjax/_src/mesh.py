"""Device meshes: an n-d array of devices with a name per axis (`Mesh`), the same without devices
(`AbstractMesh`), and the mesh in context (`with mesh:` / `set_mesh`).

Shardings (`pyjax._src.sharding.NamedSharding`) say which mesh axes split which array dimension;
the mesh says which device sits where.
"""
from __future__ import annotations

import collections
import contextlib
import dataclasses
import enum
import math
import threading

import numpy as np

from pyjax._src.backend import xla


class AxisType(enum.Enum):
    """How a mesh axis is treated by sharding-in-types: `Auto` (XLA decides), `Explicit` (in the
    types) or `Manual` (inside shard_map). pyjax records it; partitioning is XLA's either way."""
    Auto = enum.auto()
    Explicit = enum.auto()
    Manual = enum.auto()

    def __repr__(self):
        return self.name


# Set once a mesh with an Explicit axis exists: from then on avals may carry shardings, and
# abstract evaluation runs the primitives' sharding rules (core wraps every abstract_eval then).
# Programs that never make such a mesh pay nothing.
SHARDING_IN_TYPES = [False]
on_sharding_in_types: list = []  # called when it turns on (core wraps the abstract evaluations)


def _note_axis_types(axis_types):
    if not SHARDING_IN_TYPES[0] and AxisType.Explicit in axis_types:
        enable_typed_avals()


def enable_typed_avals():
    """Turn sharding in types on (also when the first sharding in host memory is made: avals
    then carry memory spaces, which the same wrapped abstract evaluations propagate)."""
    if not SHARDING_IN_TYPES[0]:
        SHARDING_IN_TYPES[0] = True
        for hook in on_sharding_in_types:
            hook()


def _axis_types(axis_types, n, default, where):
    if axis_types is None:
        return (default,) * n
    if isinstance(axis_types, AxisType):
        return (axis_types,) * n
    axis_types = tuple(axis_types)
    if len(axis_types) != n or not all(isinstance(t, AxisType) for t in axis_types):
        raise ValueError(f"{where}: axis_types must be {n} AxisType values, got {axis_types}")
    return axis_types


def _axis_names(axis_names, ndim, where):
    names = (axis_names,) if isinstance(axis_names, str) else tuple(axis_names)
    if len(names) != ndim:
        raise ValueError(f"{where}: {len(names)} axis names {names} for a device array of rank "
                         f"{ndim}")
    if len(set(names)) != len(names):
        raise ValueError(f"{where}: axis names must be unique, got {names}")
    return names


class _MeshBase:
    """What Mesh and AbstractMesh share: axis names, sizes and types."""

    axis_names: tuple
    axis_sizes: tuple
    axis_types: tuple

    @property
    def shape(self):
        return collections.OrderedDict(zip(self.axis_names, self.axis_sizes, strict=True))

    @property
    def shape_tuple(self):
        return tuple(zip(self.axis_names, self.axis_sizes, strict=True))

    @property
    def size(self) -> int:
        return math.prod(self.axis_sizes)

    @property
    def empty(self) -> bool:
        return not self.axis_names

    @property
    def _name_to_type(self):
        return dict(zip(self.axis_names, self.axis_types, strict=True))

    def _axes_of(self, kind):
        return tuple(n for n, t in zip(self.axis_names, self.axis_types, strict=True) if t is kind)

    explicit_axes = property(lambda self: self._axes_of(AxisType.Explicit))
    auto_axes = property(lambda self: self._axes_of(AxisType.Auto))
    manual_axes = property(lambda self: self._axes_of(AxisType.Manual))
    are_all_axes_explicit = property(lambda self: all(t is AxisType.Explicit for t in self.axis_types))
    are_all_axes_auto = property(lambda self: all(t is AxisType.Auto for t in self.axis_types))
    are_all_axes_manual = property(lambda self: all(t is AxisType.Manual for t in self.axis_types))
    _any_axis_explicit = property(lambda self: AxisType.Explicit in self.axis_types)
    _are_all_axes_auto_or_manual = property(
        lambda self: AxisType.Explicit not in self.axis_types)

    def _updated_types(self, name_to_type):
        for n in name_to_type:
            if n not in self.axis_names:
                raise ValueError(f"update_axis_types: {n!r} is not an axis of {self!r}")
        return tuple(name_to_type.get(n, t)
                     for n, t in zip(self.axis_names, self.axis_types, strict=True))

    def _types_str(self):
        names = [t.name for t in self.axis_types]
        return f"axis_types=({', '.join(names)}{',' if len(names) == 1 else ''})"


class Mesh(_MeshBase):
    """Devices laid out in an n-d array whose axes have names.

    >>> mesh = Mesh(np.array(pyjax.devices()).reshape(4, 2), ("data", "model"))
    >>> with mesh: ...   # the mesh in context (for PartitionSpecs without a mesh)
    """

    def __init__(self, devices, axis_names, axis_types=None):
        devices = np.asarray(devices, dtype=object)
        self.devices = devices
        self.axis_names = _axis_names(axis_names, devices.ndim, "Mesh")
        self.axis_sizes = tuple(devices.shape)
        self.axis_types = _axis_types(axis_types, devices.ndim, AxisType.Auto, "Mesh")
        _note_axis_types(self.axis_types)
        ids = [d.id for d in devices.flat] if devices.ndim else []  # (the empty mesh: none)
        if len(set(ids)) != len(ids):
            raise ValueError(f"Mesh: devices must be distinct, got ids {ids}")
        # compared and hashed on every sharded call: computed once
        self._key_value = (self.axis_names, self.axis_types, tuple(ids), self.axis_sizes)
        self._hash = hash(self._key_value)

    @property
    def device_ids(self):
        return np.vectorize(lambda d: d.id, otypes=[int])(self.devices)

    @property
    def local_devices(self):
        return [d for d in self.devices.flat if d.process_index == xla.process_index()]

    @property
    def _flat_devices_tuple(self):
        return tuple(self.devices.flat)

    @property
    def local_mesh(self):
        """The sub-mesh of this process's devices (they must form a block of the mesh)."""
        me = xla.process_index()
        mine = np.vectorize(lambda d: d.process_index == me, otypes=[bool])(self.devices)
        box = tuple(slice(int(i.min()), int(i.max()) + 1) for i in np.nonzero(mine))
        if not mine.any() or not mine[box].all():
            raise ValueError(f"Mesh.local_mesh: this process's devices do not form a block of "
                             f"the mesh {self!r} (devices {self.device_ids.tolist()})")
        return Mesh(self.devices[box], self.axis_names, self.axis_types)

    @property
    def is_multi_process(self) -> bool:
        return any(d.process_index != self.devices.flat[0].process_index
                   for d in self.devices.flat)

    @property
    def abstract_mesh(self):
        am = self.__dict__.get("_abstract")
        if am is None:
            am = self._abstract = AbstractMesh(self.axis_sizes, self.axis_names, self.axis_types)
        return am

    def update_axis_types(self, name_to_type):
        """This mesh with the axes named in `name_to_type` of the given AxisTypes."""
        return Mesh(self.devices, self.axis_names, self._updated_types(name_to_type))

    def _key(self):
        return self._key_value

    def __eq__(self, other):
        return self is other or (isinstance(other, Mesh) and self._hash == other._hash
                                 and self._key_value == other._key_value)

    def __hash__(self):
        return self._hash

    def __enter__(self):
        _context.meshes.append(self)
        return self

    def __exit__(self, *exc):
        _context.meshes.pop()
        return False

    def __repr__(self):
        return (f"Mesh(axis_sizes={self.axis_sizes}, axis_names={self.axis_names}, "
                f"{self._types_str()})")

    def _short_repr(self):  # how a NamedSharding shows its mesh, and str(mesh) (as JAX's)
        if self.empty:
            return "Mesh()"
        axes = ", ".join(f"{n!r}: {s}" for n, s in self.shape.items())
        return f"Mesh({axes}, {self._types_str()})"

    __str__ = _short_repr


@dataclasses.dataclass(frozen=True, slots=True)
class AbstractDevice:
    """What an AbstractMesh knows of its devices (`AbstractMesh(..., abstract_device=...)`)."""

    device_kind: str
    num_cores: int | None
    platform: str

    def __repr__(self):
        return (f"AbstractDevice(device_kind={self.device_kind}, num_cores={self.num_cores}, "
                f"platform={self.platform})")


class AbstractMesh(_MeshBase):
    """A mesh's axis names, sizes and types, without devices."""

    def __init__(self, axis_sizes=(), axis_names=(), axis_types=None, *, abstract_device=None):
        self.axis_sizes = tuple(int(s) for s in axis_sizes)
        self.axis_names = _axis_names(axis_names, len(self.axis_sizes), "AbstractMesh")
        self.axis_types = _axis_types(axis_types, len(self.axis_sizes), AxisType.Auto,
                                      "AbstractMesh")
        self.abstract_device = abstract_device
        _note_axis_types(self.axis_types)

    def update_axis_types(self, name_to_type):
        """This mesh with the axes named in `name_to_type` of the given AxisTypes."""
        return AbstractMesh(self.axis_sizes, self.axis_names, self._updated_types(name_to_type),
                            abstract_device=self.abstract_device)

    def update(self, axis_sizes=None, axis_names=None, axis_types=None):
        return AbstractMesh(self.axis_sizes if axis_sizes is None else axis_sizes,
                            self.axis_names if axis_names is None else axis_names,
                            self.axis_types if axis_types is None else axis_types,
                            abstract_device=self.abstract_device)

    @property
    def abstract_mesh(self):
        return self

    def __eq__(self, other):
        return (isinstance(other, AbstractMesh) and self.axis_sizes == other.axis_sizes
                and self.axis_names == other.axis_names and self.axis_types == other.axis_types)

    def __hash__(self):
        return hash((self.axis_sizes, self.axis_names, self.axis_types))

    def __repr__(self):
        axes = ", ".join(f"{n!r}: {s}" for n, s in self.shape.items())
        return f"AbstractMesh({axes if axes else '()'}, {self._types_str()})"

    _short_repr = __repr__


_EMPTY_ABSTRACT_MESH = AbstractMesh()
# A mesh of no axes and no devices: `set_mesh(empty_concrete_mesh)` runs a block with no mesh in
# context (eager operations on arrays laid out over a mesh run as usual), as in JAX 0.10.2.
empty_concrete_mesh = Mesh(np.empty((), dtype=object), ())


class _Context(threading.local):
    def __init__(self):
        self.meshes = []  # `with mesh:` / set_mesh, innermost last
        self.abstract = []  # use_abstract_mesh (auto_axes, explicit_axes...), innermost last


_context = _Context()


def get_mesh():
    """The concrete mesh in context (`with mesh:` or `set_mesh`), or None."""
    return _context.meshes[-1] if _context.meshes else None


def get_abstract_mesh():
    """The abstract mesh code is traced under: the innermost `use_abstract_mesh`, else the
    mesh in context's, else the empty AbstractMesh."""
    if _context.abstract:
        return _context.abstract[-1]
    mesh = get_mesh()
    return mesh.abstract_mesh if mesh is not None else _EMPTY_ABSTRACT_MESH


@contextlib.contextmanager
def use_abstract_mesh(mesh):
    """Trace the block under the AbstractMesh `mesh` (same axis names and sizes as the mesh in
    context, possibly other axis types; `auto_axes`/`explicit_axes` use it).

    >>> with use_abstract_mesh(mesh.abstract_mesh.update_axis_types({"x": AxisType.Auto})): ...
    """
    if not isinstance(mesh, AbstractMesh):
        raise ValueError(f"use_abstract_mesh: expected an AbstractMesh, got {mesh!r}")
    _context.abstract.append(mesh)
    try:
        yield
    finally:
        _context.abstract.pop()


class _SetMesh(contextlib.AbstractContextManager):
    """`set_mesh(mesh)` makes `mesh` the mesh in context; usable as a context manager, which
    restores the previous one on exit."""

    def __init__(self, mesh):
        if mesh is not None and not isinstance(mesh, Mesh):
            raise TypeError(f"set_mesh: expected a Mesh, got {type(mesh).__name__}")
        self.previous = list(_context.meshes), list(_context.abstract)
        # the empty mesh (`empty_concrete_mesh`) leaves no mesh in context, as None does
        _context.meshes[:] = [mesh] if mesh is not None and not mesh.empty else []
        _context.abstract[:] = []

    def __exit__(self, *exc):
        _context.meshes[:], _context.abstract[:] = self.previous
        return False


def set_mesh(mesh):
    return _SetMesh(mesh)


def make_mesh(axis_shapes, axis_names, axis_types=None, *, devices=None):
    """A mesh of `axis_shapes` over `devices` (default: all of them), in device order.

    >>> mesh = pyjax.make_mesh((4, 2), ("data", "model"))

    NB: JAX orders devices to follow the physical topology (TPU/GPU); on CPU that is device
    order, which pyjax always uses.
    """
    axis_shapes = tuple(int(s) for s in axis_shapes)
    devices = list(devices) if devices is not None else xla.devices()
    n = math.prod(axis_shapes)
    if n > len(devices):
        raise ValueError(f"make_mesh: number of devices {len(devices)} must be >= the product "
                         f"of the mesh shape {axis_shapes}")
    devices = devices[:n]  # as JAX: the first devices when there are more
    types = _axis_types(axis_types, len(axis_shapes), AxisType.Explicit, "make_mesh")
    arr = np.empty(len(devices), dtype=object)
    arr[:] = devices
    return Mesh(arr.reshape(axis_shapes), axis_names, types)
