"""Shardings: how an array's data is laid out over devices: all on one device
(`SingleDeviceSharding`), or split along a device mesh's named axes (`NamedSharding` with a
`PartitionSpec`). A sharding knows which block of the global array each device holds
(`devices_indices_map`) and gives jaxlib the equivalent HloSharding (`_to_xla`)."""
from __future__ import annotations

import dataclasses
import functools
import itertools
import math

import numpy as np

from pyjax._src.backend import xla
from pyjax._src.mesh import AbstractMesh, AxisType, Mesh, enable_typed_avals, get_mesh


class IndivisibleError(ValueError):
    """A sharding cuts an array dimension into pieces that do not divide it (JAX's class; a
    ValueError, as pyjax raised before)."""


def check_divisible(sharding, ways, shape):
    """Raise JAX's IndivisibleError when `ways[i]` pieces do not divide dimension `i`."""
    for i, (n, w) in enumerate(zip(shape, ways, strict=True)):
        if n % w:
            raise IndivisibleError(
                f"Sharding {sharding!r} implies that array axis {i} is partitioned {w} times, "
                f"but the dimension size is {n} (full shape: {tuple(shape)}, per-dimension "
                f"tiling factors: {list(ways)} should evenly divide the shape)")


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

    def is_equivalent_to(self, other, ndim: int) -> bool:
        """Whether a rank-`ndim` array laid out as this sharding and as `other` has the same
        pieces on the same devices (in the same order) in the same memory kind, as JAX
        decides it (two fully replicated layouts are equivalent)."""
        if not isinstance(other, Sharding):
            return False
        if (tuple(self._device_assignment) != tuple(other._device_assignment)
                or self.memory_kind != other.memory_kind):
            return False
        mine, theirs = (s._to_xla(ndim)._to_xla_hlo_sharding(ndim) for s in (self, other))
        return mine == theirs or (mine.is_replicated() and theirs.is_replicated())


class Shard:
    """One piece of an array on one device: `data` holds `index` (a tuple of slices into the
    global array) of the array's value."""

    __slots__ = ("device", "index", "replica_id", "data")

    def __init__(self, device, index, replica_id, data):
        self.device, self.index, self.replica_id, self.data = device, index, replica_id, data

    def __repr__(self):
        return (f"Shard(device={self.device!r}, index={self.index}, "
                f"replica_id={self.replica_id}, data={self.data})")


@functools.lru_cache(maxsize=256)
def canonical_memory_kind(memory_kind, device):
    """The memory kind a sharding on `device` names (None: the device's default memory, as
    JAX resolves it); a kind the device cannot address raises JAX's ValueError."""
    try:
        kinds = [m.kind for m in device.addressable_memories()]
        default = device.default_memory().kind
    except Exception:  # a client without memory spaces (some plugins): keep what was asked
        return memory_kind
    if memory_kind is None:
        return default
    if memory_kind not in kinds:
        raise ValueError(f"Could not find memory addressable by device {device.device_kind}. "
                         f"Device {device.device_kind} can address the following memory kinds: "
                         f"{', '.join(kinds)}. Got memory kind: {memory_kind}")
    if memory_kind == "pinned_host":  # avals in host memory are typed so
        enable_typed_avals()
    return memory_kind


def xla_memory_kind(memory_kind, device):
    """The memory kind to give jaxlib's sharding objects: None for the device's default memory
    (as pyjax's buffers are made), else the kind."""
    if memory_kind is None or memory_kind == canonical_memory_kind(None, device):
        return None
    return memory_kind


class SingleDeviceSharding(Sharding):
    """All of the array on one device (in one of its memories: `memory_kind`)."""

    def __init__(self, device, *, memory_kind=None):
        self._device = device
        self.memory_kind = canonical_memory_kind(memory_kind, device)

    @property
    def device_set(self):
        return {self._device}

    def devices_indices_map(self, global_shape):
        return {self._device: tuple(slice(None) for _ in global_shape)}

    def with_memory_kind(self, kind):
        return SingleDeviceSharding(self._device, memory_kind=kind)

    def __eq__(self, other):
        return (isinstance(other, SingleDeviceSharding) and other._device == self._device
                and other.memory_kind == self.memory_kind)

    def __hash__(self):
        return hash(("SingleDeviceSharding", self._device, self.memory_kind))

    def __repr__(self):
        mem = "" if self.memory_kind is None else f", memory_kind={self.memory_kind}"
        return f"SingleDeviceSharding(device={self._device!r}{mem})"

    def shard_shape(self, global_shape):
        return tuple(global_shape)

    @property
    def num_devices(self):
        return 1

    @property
    def _device_assignment(self):
        return (self._device,)

    def _to_xla(self, ndim):
        return xla.single_device_sharding(
            self._device, xla_memory_kind(self.memory_kind, self._device))

    def _to_xla_hlo_sharding(self, ndim):
        return xla.HloSharding.replicate()

    def _to_sdy_sharding(self, ndim):
        return SdyArray(mesh_shape=(), dim_shardings=tuple(SdyDim(()) for _ in range(ndim)))

    def check_compatible_aval(self, aval_shape):
        return None


def make_single_device_sharding(device, *, memory_kind=None):
    # (jaxlib's C++ calls this with memory_kind when it converts a bfloat16/float8 array to NumPy)
    return SingleDeviceSharding(device, memory_kind=memory_kind)


@dataclasses.dataclass(frozen=True)
class SdyDim:
    """One dimension of a Shardy sharding: the mesh axes splitting it (major first), and
    whether the partitioner may split it further (open)."""
    axes: tuple
    is_open: bool = False

    def __repr__(self):
        body = ", ".join(repr(a) for a in self.axes) + (", ?" if self.is_open and self.axes
                                                       else "?" if self.is_open else "")
        return "{" + body + "}"


@dataclasses.dataclass(frozen=True)
class SdyArray:
    """A sharding in Shardy's terms (JAX's `_to_sdy_sharding`): the mesh as (name, size)
    pairs, one SdyDim per dimension, and the mesh's device order when it is not the flat
    one."""
    mesh_shape: tuple
    dim_shardings: tuple
    logical_device_ids: tuple | None = None

    def __repr__(self):
        return f"SdyArray([{', '.join(map(repr, self.dim_shardings))}])"


# -- PartitionSpec -------------------------------------------------------------------------------


class _Unconstrained:
    def __repr__(self):
        return "UNCONSTRAINED"


class PartitionSpec(tuple):
    """For each array dimension, the mesh axis (a name, a tuple of names, or None: not split)
    it is split along; dimensions past the end are not split.

    >>> P("data", None)   # rows split over the mesh axis "data", columns whole
    """

    UNCONSTRAINED = _Unconstrained()

    def __new__(cls, *partitions, unreduced=frozenset(), reduced=frozenset()):
        parts = []
        for p in partitions:
            if isinstance(p, list):
                p = tuple(p)
            if not (p is None or isinstance(p, (str, tuple)) or p is cls.UNCONSTRAINED):
                raise TypeError(f"PartitionSpec entries are mesh axis names, tuples of names "
                                f"or None; got {p!r}")
            if isinstance(p, tuple):  # (JAX's words)
                for q in p:
                    if isinstance(q, tuple):
                        raise ValueError(f"A tuple inside PartitionSpec cannot contain a nested "
                                         f"tuple. Got partition: {p} and the nested tuple: {q}")
            parts.append(p)
        out = super().__new__(cls, parts)
        out.unreduced, out.reduced = frozenset(unreduced), frozenset(reduced)
        return out

    def __init_subclass__(cls, *args, **kwargs):
        raise TypeError("Subclassing `jax.P` is prohibited.")

    def __repr__(self):
        parts = f"{', '.join(map(repr, self))}{',' if len(self) == 1 else ''}"
        extra = ", ".join([f"unreduced={set(self.unreduced)!r}"] * bool(self.unreduced)
                          + [f"reduced={set(self.reduced)!r}"] * bool(self.reduced))
        if not extra:
            return f"P({parts})"
        return f"P({parts + ' ' if parts.endswith(',') else parts + ', ' if parts else ''}{extra})"

    def __eq__(self, other):
        # NB (as JAX): P('x') != P('x', None), and a PartitionSpec never equals a plain tuple;
        # the unreduced and reduced axes count
        return (type(other) is PartitionSpec and tuple.__eq__(self, other)
                and self.unreduced == other.unreduced and self.reduced == other.reduced)

    def __ne__(self, other):
        return not self == other

    def __hash__(self):
        if self.unreduced or self.reduced:
            return hash((tuple(self), self.unreduced, self.reduced))
        return tuple.__hash__(self)

    def __reduce__(self):
        if self.unreduced or self.reduced:
            return (functools.partial(PartitionSpec, unreduced=self.unreduced,
                                      reduced=self.reduced), tuple(self))
        return (PartitionSpec, tuple(self))

    def _normalized(self, ndim):
        """One tuple of axis names per dimension (empty: not split)."""
        if len(self) > ndim:
            raise ValueError(f"PartitionSpec {self!r} has {len(self)} entries but the array has "
                             f"rank {ndim}")
        out = []
        for p in tuple(self) + (None,) * (ndim - len(self)):
            if p is None or p is self.UNCONSTRAINED:
                out.append(())
            else:
                out.append((p,) if isinstance(p, str) else tuple(p))
        return out


# -- NamedSharding -------------------------------------------------------------------------------


class DuplicateSpecError(ValueError):
    """A PartitionSpec that names one mesh axis for two dimensions (JAX's class; a ValueError
    too, which pyjax raised before)."""

    def __init__(self, message, mesh=None, pspec=None):
        super().__init__(message)
        self.message, self.mesh, self.pspec = message, mesh, pspec


class NamedSharding(Sharding):
    """An array split along named axes of a device mesh.

    >>> mesh = pyjax.make_mesh((4, 2), ("data", "model"))
    >>> x = pyjax.device_put(x, NamedSharding(mesh, P("data", None)))
    """

    def __init__(self, mesh, spec=PartitionSpec(), *, memory_kind=None):
        if not isinstance(mesh, (Mesh, AbstractMesh)):
            raise TypeError(f"NamedSharding: mesh must be a Mesh, got {type(mesh).__name__}")
        if not isinstance(spec, PartitionSpec):
            if spec is None or not isinstance(spec, (tuple, list)):
                raise TypeError(f"__init__(): incompatible function arguments: NamedSharding "
                                f"takes a PartitionSpec as its spec, got {spec!r}")  # (JAX's)
            spec = PartitionSpec(*spec)
        if isinstance(mesh, Mesh) and mesh.devices.size:
            memory_kind = canonical_memory_kind(memory_kind, mesh.devices.flat[0])
        self.mesh, self.spec, self.memory_kind = mesh, spec, memory_kind
        used = [a for p in spec._normalized(len(spec)) for a in p]
        for a in used:
            if a not in mesh.axis_names:
                raise ValueError(f"Resource axis: {a} of {spec!r} is not found in mesh: "
                                 f"{tuple(mesh.axis_names)}.")
        if (PartitionSpec.UNCONSTRAINED in tuple(spec) and mesh.axis_types
                and AxisType.Auto not in mesh.axis_types):
            raise ValueError(f"{spec!r} cannot contain `P.UNCONSTRAINED` when no mesh "
                             f"axis_types are `Auto`. Got mesh axis_types: {mesh.axis_types}")
        if len(set(used)) != len(used):
            dup = next(a for a in used if used.count(a) > 1)
            raise DuplicateSpecError(
                f"A single NamedSharding spec specification can map every mesh axis to at most "
                f"one positional dimension, but {spec!r} has duplicate entries for `{dup}`",
                mesh, spec)

    def _canonical_spec(self):
        parts = list(self.spec)
        while parts and parts[-1] is None:
            parts.pop()
        return tuple(parts)

    def __eq__(self, other):
        return (isinstance(other, NamedSharding) and self.mesh == other.mesh
                and self._canonical_spec() == other._canonical_spec()
                and self.memory_kind == other.memory_kind)

    def __hash__(self):
        return hash((self.mesh, self._canonical_spec()))

    def __repr__(self):
        mem = f", memory_kind={self.memory_kind or 'device'}"
        return f"NamedSharding(mesh={self.mesh._short_repr()}, spec={self.spec!r}{mem})"

    def with_spec(self, spec):
        return NamedSharding(self.mesh, spec, memory_kind=self.memory_kind)

    def with_memory_kind(self, kind):
        return NamedSharding(self.mesh, self.spec, memory_kind=kind)

    def update(self, **kwargs):
        """This sharding with `mesh`, `spec` and/or `memory_kind` replaced."""
        spec = kwargs.get("spec", self.spec)
        return NamedSharding(kwargs.get("mesh", self.mesh),
                             spec if isinstance(spec, PartitionSpec) else PartitionSpec(*spec),
                             memory_kind=kwargs.get("memory_kind", self.memory_kind))

    @property
    def _device_assignment(self):
        return tuple(self.mesh.devices.flat)

    @property
    def device_set(self):
        return set(self.mesh.devices.flat)

    @property
    def addressable_devices(self):
        return set(self.mesh.local_devices)

    @property
    def num_devices(self):
        return self.mesh.size

    @property
    def is_fully_replicated(self):
        sizes = self.mesh.shape
        return all(sizes[a] == 1 for p in self.spec._normalized(len(self.spec)) for a in p)

    @property
    def is_fully_addressable(self):
        return not self.mesh.is_multi_process

    def _tiles(self, ndim):
        """`(ways, index)`: how many pieces each dimension is cut into, and for every device of
        the mesh (flat order) which piece of each dimension it holds."""
        return _tiles(self.mesh.axis_names, self.mesh.axis_sizes, tuple(self.spec._normalized(ndim)))

    def shard_shape(self, global_shape):
        ways, _ = self._tiles(len(global_shape))
        check_divisible(self, ways, global_shape)
        return tuple(n // w for n, w in zip(global_shape, ways, strict=True))

    def devices_indices_map(self, global_shape):
        ways, pieces = self._tiles(len(global_shape))
        out = {}
        for dev, piece in zip(self.mesh.devices.flat, pieces, strict=True):
            out[dev] = tuple(_piece_slice(n, w, i) for n, w, i in
                             zip(global_shape, ways, piece, strict=True))
        return out

    def _replica_ids(self, ndim):
        """For every device (flat order), its rank among the devices holding the same piece."""
        _, pieces = self._tiles(ndim)
        seen, out = {}, []
        for piece in pieces:
            out.append(seen.get(piece, 0))
            seen[piece] = out[-1] + 1
        return out

    def _to_hlo(self, ndim):
        return _hlo_sharding(self.mesh.axis_names, self.mesh.axis_sizes,
                             tuple(self.spec._normalized(ndim)))

    def _to_xla_hlo_sharding(self, ndim):
        """The HloSharding of a rank-`ndim` array laid out as this (devices numbered in the
        mesh's flat order), as JAX's."""
        return self._to_hlo(ndim)

    def _to_sdy_sharding(self, ndim):
        """This layout in Shardy's terms: per dimension the mesh axes splitting it."""
        return SdyArray(mesh_shape=tuple(zip(self.mesh.axis_names, self.mesh.axis_sizes)),
                        dim_shardings=tuple(SdyDim(p) for p in self.spec._normalized(ndim)))

    def check_compatible_aval(self, aval_shape):
        """JAX's ValueError when the spec names more dimensions than the value has."""
        if len(aval_shape) < len(self.spec):
            extra = " For scalars the PartitionSpec should be P()" if not aval_shape else ""
            raise ValueError(f"Sharding {self} is only valid for values of rank at least "
                             f"{len(self.spec)}, but was applied to a value of rank "
                             f"{len(aval_shape)}.{extra}")

    def _to_xla(self, ndim):
        """jaxlib's sharding for a rank-`ndim` array laid out as this one: one object per
        layout, which maps back to the NamedSharding (`named_for_xla`), so arrays that C++
        dispatch makes with it know their NamedSharding."""
        key = (self, ndim)
        s = _XLA_FOR_NAMED.get(key)
        if s is None:
            hlo = self._to_hlo(ndim)
            devices = self._device_assignment
            s = xla.gspmd_sharding(devices, hlo, xla_memory_kind(self.memory_kind, devices[0]))
            _XLA_FOR_NAMED[key] = s
            _NAMED_FOR_XLA[id(s)] = self  # s stays alive in _XLA_FOR_NAMED: its id is unique
            _note_layout(s, self, (tuple(d.id for d in devices), str(hlo), self.memory_kind))
        return s


_XLA_FOR_NAMED = {}  # (NamedSharding, ndim) -> its jaxlib sharding (one per distinct layout)
_NAMED_FOR_XLA = {}  # id(jaxlib sharding) -> NamedSharding
# jaxlib compares its shardings by layout (devices + HloSharding), so C++ dispatch cannot tell
# apart two NamedShardings that differ only in mesh axis names or spec spelling. Such layouts
# are "ambiguous": C++ dispatch serves them no more (the hooks clear its caches when one
# appears), so an output never comes back named after another mesh.
_LAYOUT_FIRST = {}  # (device ids, HloSharding text, memory kind) -> [NamedSharding, its jaxlib shardings]
_AMBIGUOUS = set()  # ids of jaxlib shardings whose layout another NamedSharding shares
on_ambiguous_layout = []  # callbacks (the jit layer clears C++ dispatch's caches)


def _note_layout(s, named, layout):
    first = _LAYOUT_FIRST.setdefault(layout, [named, []])
    first[1].append(s)
    if first[0] != named or (len(first[1]) > 1 and id(first[1][0]) in _AMBIGUOUS):
        _AMBIGUOUS.update(id(x) for x in first[1])
        for hook in on_ambiguous_layout:
            hook()


def is_ambiguous(xla_sharding) -> bool:
    """Whether another NamedSharding has the same layout as this jaxlib sharding's."""
    return id(xla_sharding) in _AMBIGUOUS


def remember_xla(xla_sharding, sharding):
    """From now on arrays made with the jaxlib sharding `xla_sharding` (kept alive by the
    caller) report `sharding` (a pyjax sharding without a mesh, e.g. a GSPMDSharding)."""
    _NAMED_FOR_XLA[id(xla_sharding)] = sharding


def named_for_xla(xla_sharding):
    """The NamedSharding a jaxlib sharding object was made for (`_to_xla`), or None."""
    return _NAMED_FOR_XLA.get(id(xla_sharding))


def xla_for_output(named, ndim):
    """`named._to_xla(ndim)`, which from now on maps back to `named` itself (of the equal
    NamedShardings, the one spelled as a jit output prints)."""
    s = named._to_xla(ndim)
    _NAMED_FOR_XLA[id(s)] = named
    return s


def _piece_slice(n, ways, i):
    if ways == 1:
        return slice(None)
    chunk = -(-n // ways)  # XLA tiles with ceil-sized pieces, the last ones short
    return slice(min(i * chunk, n), min((i + 1) * chunk, n))


@functools.lru_cache(maxsize=512)
def _tiles(axis_names, axis_sizes, parts):
    sizes = dict(zip(axis_names, axis_sizes, strict=True))
    ways = tuple(math.prod(sizes[a] for a in p) for p in parts)
    coords = np.indices(axis_sizes).reshape(len(axis_sizes), -1).T  # mesh position per device
    pieces = []
    for c in coords:
        at = dict(zip(axis_names, c, strict=True))
        piece = []
        for p in parts:  # the first axis of a tuple is the major one
            i = 0
            for a in p:
                i = i * sizes[a] + int(at[a])
            piece.append(i)
        pieces.append(tuple(piece))
    return ways, tuple(pieces)


@functools.lru_cache(maxsize=512)
def _hlo_sharding(axis_names, axis_sizes, parts):
    """The HloSharding of `parts` over a mesh whose devices are numbered in flat mesh order:
    mesh axes reordered as [axes of dim 0, ..., axes of the last dim, unused axes], so the
    unused (replicated) ones form the last tile dimension."""
    used = [a for p in parts for a in p]
    rest = [a for a in axis_names if a not in used]
    order = [axis_names.index(a) for a in used + rest]
    ids = np.arange(math.prod(axis_sizes)).reshape(axis_sizes).transpose(order)
    sizes = dict(zip(axis_names, axis_sizes, strict=True))
    tile_dims = [math.prod(sizes[a] for a in p) for p in parts]
    replicated = math.prod(sizes[a] for a in rest)
    if replicated > 1:
        tile_dims.append(replicated)
    return xla.tiled_hlo_sharding(tile_dims, ids.reshape(-1), replicate_last=replicated > 1)


def named_from_hlo(mesh, hlo, ndim):
    """The NamedSharding over `mesh` that lays out a rank-`ndim` array as the HloSharding `hlo`
    (what XLA chose for a jit output), or None when no PartitionSpec says it. Specs are tried
    simplest first, so the answer is the one JAX would print (trailing Nones dropped)."""
    if hlo.is_replicated():
        spec = PartitionSpec()
    else:
        spec = _spec_for(mesh.axis_names, mesh.axis_sizes, ndim, hlo)
        if spec is None:
            return None
    if mesh.axis_types and all(t is AxisType.Explicit for t in mesh.axis_types):
        # with Explicit axes the sharding is part of the type, which JAX prints at full rank
        spec = PartitionSpec(*spec, *[None] * (ndim - len(spec)))
    return NamedSharding(mesh, spec)


def _spec_for(axis_names, axis_sizes, ndim, hlo):
    names = [a for a, s in zip(axis_names, axis_sizes, strict=True) if s > 1]
    for choice in itertools.product(range(-1, ndim), repeat=len(names)):  # -1: axis unused
        for order in ((lambda x: x), (lambda x: x[::-1])):
            parts = [tuple(order([a for a, c in zip(names, choice, strict=True) if c == d]))
                     for d in range(ndim)]
            if _hlo_sharding(axis_names, axis_sizes, tuple(parts)) == hlo:
                while parts and not parts[-1]:
                    parts.pop()
                return PartitionSpec(*[None if not p else p[0] if len(p) == 1 else p
                                       for p in parts])
    return None
