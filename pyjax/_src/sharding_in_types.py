"""Sharding in types, the parts below core: the sharding an aval carries for a NamedSharding
(over the AbstractMesh, one spec entry per dimension, Explicit axes only), how a sharded shape
prints (`8@x,4`), and JAX's ManualAxisType; the state of shard_map's varying-manual-axes (vma)
types (which check_vma body is being traced, how a vma prints). `core.ShapedArray` holds the result; see core's
"sharding in types" section for how abstract evaluation computes it."""
from __future__ import annotations

import enum
import threading
import weakref
from contextlib import contextmanager

from pyjax._src.sharding import NamedSharding, PartitionSpec

_aval_shardings: dict = {}  # (mesh, spec, ndim) -> the canonical aval sharding (or None)


def aval_sharding(sharding, ndim):
    """The sharding an aval of rank `ndim` carries for `sharding` (a NamedSharding over a Mesh or
    AbstractMesh): over the abstract mesh, one spec entry per dimension, naming Explicit axes
    only; None when no mesh axis is Explicit."""
    mesh, spec = sharding.mesh, sharding.spec
    key = (mesh, spec, ndim)
    out = _aval_shardings.get(key, False)
    if out is False:
        out = _aval_shardings[key] = _canonical_aval_sharding(mesh.abstract_mesh, spec, ndim)
    return out


def _canonical_aval_sharding(mesh, spec, ndim):
    if not mesh._any_axis_explicit:
        return None
    explicit = set(mesh.explicit_axes)
    if len(spec) > ndim:
        raise ValueError(f"PartitionSpec {spec!r} has {len(spec)} entries but the array has "
                         f"rank {ndim}")
    parts = []
    for p in tuple(spec) + (None,) * (ndim - len(spec)):
        names = () if p is None or p is PartitionSpec.UNCONSTRAINED else (
            (p,) if isinstance(p, str) else tuple(p))
        names = tuple(a for a in names if a in explicit)
        parts.append(None if not names else names[0] if len(names) == 1 else names)
    return NamedSharding(mesh, PartitionSpec(*parts))


class MemorySpace(enum.Enum):
    """Where an aval's data lives (JAX's): device memory, the host's (an array in its device's
    `pinned_host` memory kind: printed `float32<host>[4]`), or any."""
    Device = enum.auto()
    Host = enum.auto()
    Any = enum.auto()

    def __repr__(self):
        return f"MemorySpace.{self.name}"

    __hash__ = object.__hash__  # (identity, as JAX's)


def mem_kind_to_space(mem_kind) -> MemorySpace:
    """The memory space of a sharding's memory kind: `pinned_host` is the host's."""
    return MemorySpace.Host if mem_kind == "pinned_host" else MemorySpace.Device


def mem_space_to_kind(mem_space) -> str:
    if mem_space is MemorySpace.Device:
        return "device"
    if mem_space is MemorySpace.Host:
        return "pinned_host"
    raise ValueError(f"MemorySpace.Any has no memory kind")


def memory_space_str(mem_space) -> str:
    """`<host>` (between dtype and shape in a printed aval), nothing for device memory."""
    return "" if mem_space is MemorySpace.Device else f"<{mem_space.name.lower()}>"


def default_memory_space(prim, avals):
    """The memory space of a standard primitive's results (JAX's rule): its non-scalar
    operands' common one (they must agree, JAX's ValueError), Any if every operand is in Any,
    Device when all are scalars."""
    spaces = [getattr(a, "memory_space", MemorySpace.Device) for a in avals]
    if spaces and all(m is MemorySpace.Any for m in spaces):
        return MemorySpace.Any
    prev = None
    for a, m in zip(avals, spaces):
        if not getattr(a, "ndim", 0):
            continue
        if prev is not None and prev[1] is not m:
            raise ValueError(f"memory_space of all inputs passed to `{prim.name}` must be the "
                             f"same. Got one operand with type: {prev[0].str_short()} and "
                             f"another operand with type: {a.str_short()}")
        prev = (a, m)
    return MemorySpace.Device if prev is None else prev[1]


class ManualAxisType:
    """The manual-axes part of a type inside shard_map: the mesh axes a value varies over, and
    those it is unreduced / reduced over. Interned (equal ones are the same object), as JAX's.

    NB: pyjax's avals carry the varying part only (`ShapedArray.vma`; `aval.mat` builds one);
    unreduced / reduced stay empty."""

    __slots__ = ("varying", "unreduced", "reduced", "__weakref__")
    _interned: "weakref.WeakValueDictionary" = weakref.WeakValueDictionary()

    def __new__(cls, *, varying=frozenset(), unreduced=frozenset(), reduced=frozenset()):
        varying, unreduced, reduced = frozenset(varying), frozenset(unreduced), frozenset(reduced)
        if varying & unreduced:
            raise ValueError(f"varying and unreduced cannot have common mesh axes. Got "
                             f"varying={varying} and unreduced={unreduced}")
        if varying & reduced:
            raise ValueError(f"varying and reduced cannot have common mesh axes. Got "
                             f"varying={varying} and reduced={reduced}")
        key = (varying, unreduced, reduced)
        obj = cls._interned.get(key)
        if obj is None:
            obj = object.__new__(cls)
            for k, v in zip(cls.__slots__, key):
                object.__setattr__(obj, k, v)
            cls._interned[key] = obj
        return obj

    def __setattr__(self, name, value):
        raise AttributeError("ManualAxisType is immutable")

    def __repr__(self):
        return (f"ManualAxisType(varying={self.varying}, unreduced={self.unreduced}, "
                f"reduced={self.reduced})")

    def __getnewargs_ex__(self):
        return (), {"varying": self.varying, "unreduced": self.unreduced, "reduced": self.reduced}

    def update(self, **kwargs):
        return ManualAxisType(**{"varying": self.varying, "unreduced": self.unreduced,
                                 "reduced": self.reduced, **kwargs})

    @property
    def empty(self):
        return not (self.varying or self.unreduced or self.reduced)

    @property
    def vur(self) -> frozenset:
        return self.varying | self.unreduced | self.reduced

    def invarying(self, mesh) -> frozenset:
        """The manual axes of `mesh` along which the value is the same on every device."""
        return frozenset(getattr(mesh, "manual_axes", ())) - self.vur


def sharded_dims_str(shape, spec) -> str:
    """`8@x,4` / `8@(x,y)`: each dimension with the mesh axes it is split along (JAX's form)."""
    out = []
    for d, p in zip(shape, tuple(spec) + (None,) * (len(shape) - len(spec))):
        if p is None:
            out.append(f"{d}")
        elif isinstance(p, tuple):
            out.append(f"{d}@({','.join(p)})")
        else:
            out.append(f"{d}@{p}")
    return ",".join(out)


# -- varying manual axes (vma types; core's "Varying manual axes" section uses them) -----------

NO_VMA: frozenset = frozenset()  # the vma of every value outside shard_map bodies (shared)

# Mesh axis names in the order of the latest mesh a shard_map body was traced over: vma types
# print in mesh order (`{V:(x,y)}`), as JAX's.
vma_axis_order: dict = {}

# How many check_vma bodies are being traced now, in any thread: the staging trace looks for
# vma types only when this is nonzero, so tracing outside shard_map pays one list read.
VMA_TRACING = [0]


class _VmaState(threading.local):
    axes: frozenset | None = None  # the manual axes of the check_vma body this thread traces


_vma_state = _VmaState()


def vma_axes() -> frozenset | None:
    """The manual mesh axes of the check_vma=True shard_map body being traced (else None)."""
    return _vma_state.axes if VMA_TRACING[0] else None


@contextmanager
def tracing_with_vma(axes, axis_order=()):
    """Trace a shard_map body with vma types over the manual axes `axes` (None: without)."""
    state = _vma_state
    prev = state.axes
    state.axes = None if axes is None else frozenset(axes)
    vma_axis_order.update((a, i) for i, a in enumerate(axis_order))
    VMA_TRACING[0] += 1
    try:
        yield
    finally:
        VMA_TRACING[0] -= 1
        state.axes = prev


def order_axes(axes) -> tuple:
    """Mesh axis names in mesh order (as vma types print)."""
    return tuple(sorted(axes, key=lambda a: (vma_axis_order.get(a, len(vma_axis_order)),
                                             str(a))))


def vma_str(vma) -> str:
    names = order_axes(vma)
    return "{V:" + (str(names[0]) if len(names) == 1 else f"({','.join(map(str, names))})") + "}"
