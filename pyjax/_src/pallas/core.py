"""Pallas front-end types: block specs, grid specs, block dimensions and memory spaces.

A `BlockSpec(block_shape, index_map)` says which block of an operand a kernel instance sees: for
grid indices `idx`, `index_map(*idx)` gives one block index per axis; a `Blocked(n)` axis (a
plain int in `block_shape`) starts at `block_index * n`, an `Element(n)` axis at the element
offset `index_map` returns, and a `Squeezed` axis (`None` or `pl.squeezed`) is one element the
kernel's ref does not have. `GridSpec` bundles grid, in/out specs and scratch shapes.
"""
from __future__ import annotations

import dataclasses
import enum
import math
import threading
from typing import Any, Callable

import numpy as np

from pyjax._src import core
from pyjax._src.lax import elementwise as lax_elem


def cdiv(a, b):
    """Ceiling division: `cdiv(10, 4) == 3` (the number of blocks of 4 covering 10)."""
    if isinstance(a, int) and isinstance(b, int):
        return -(-a // b)
    return lax_elem.div(lax_elem.add(a, lax_elem.sub(b, 1)), b)


def next_power_of_2(x: int) -> int:
    """The smallest power of 2 >= x (`next_power_of_2(5) == 8`)."""
    if x < 0:
        raise ValueError("`next_power_of_2` requires a non-negative integer.")
    return 1 if x == 0 else 1 << (x - 1).bit_length()


def strides_from_shape(shape) -> tuple:
    """Row-major element strides of `shape` (`(3, 4) -> (4, 1)`)."""
    return tuple(int(np.prod(shape[i + 1:], dtype=np.int64)) for i in range(len(shape)))


def align_to(x: int, y: int) -> int:
    """`x` rounded up to a multiple of `y`."""
    return cdiv(x, y) * y


@dataclasses.dataclass(frozen=True)
class Blocked:
    """A block axis of `block_size` elements; the index map gives block indices."""
    block_size: int

    def __repr__(self):
        return f"Blocked(block_size={self.block_size})"


@dataclasses.dataclass(frozen=True)
class Element:
    """A block axis of `block_size` elements whose index map gives element offsets; `padding`
    (low, high) pads the operand on that axis first."""
    block_size: int
    padding: tuple = (0, 0)


@dataclasses.dataclass(frozen=True)
class Squeezed:
    """A block axis of one element, absent from the kernel's ref."""
    block_size: int = 1


squeezed = Squeezed()


@dataclasses.dataclass(frozen=True)
class BoundedSlice:
    """A block axis whose size varies up to `block_size` (TPU pipelines): interpreted as Blocked."""
    block_size: int


BlockDim = Blocked | Element | Squeezed | BoundedSlice


class MemorySpace(enum.Enum):
    """Where a kernel's buffer lives. Plain markers here: interpret mode keeps every buffer in
    the host's memory."""
    ANY = "any"
    HOST = "host"

    def __call__(self, shape, dtype):
        return MemoryRef(tuple(shape), np.dtype(dtype), self)

    def __str__(self):
        return self.value


ANY = MemorySpace.ANY
HOST = MemorySpace.HOST


@dataclasses.dataclass(frozen=True)
class MemoryRef:
    """A scratch buffer's type: shape, dtype and memory space (`pltpu.VMEM((8, 128), f32)`)."""
    shape: tuple
    dtype: Any
    memory_space: Any = None

    def get_array_aval(self):
        return core.ShapedArray(self.shape, self.dtype)


class _NoBlockSpec:
    def __repr__(self):
        return "NoBlockSpec"


no_block_spec = _NoBlockSpec()


@dataclasses.dataclass(frozen=True)
class BlockSpec:
    """Which block of an operand each kernel instance sees (see the module docstring).

    Example:
        >>> pl.BlockSpec((4, 128), lambda i: (i, 0))   # rows 4*i .. 4*i+3, all 128 columns
    """
    block_shape: Any = None
    index_map: Callable | None = None
    memory_space: Any = None
    pipeline_mode: Any = None


@dataclasses.dataclass(frozen=True)
class Buffered:
    """Pipelining depth of a block (TPU/GPU pipelines); accepted and ignored when interpreting."""
    buffer_count: int = 2
    use_lookahead: bool = False


@dataclasses.dataclass
class GridSpec:
    """The grid, the in/out block specs and the scratch buffers of a `pallas_call`."""
    grid: Any = ()
    in_specs: Any = no_block_spec
    out_specs: Any = no_block_spec
    scratch_shapes: Any = ()


@dataclasses.dataclass(frozen=True)
class CompilerParams:
    """Backend compiler parameters (base class; accepted and ignored when interpreting)."""
    BACKEND = None


@dataclasses.dataclass(frozen=True)
class CostEstimate:
    """A cost hint for XLA's scheduler: flops, transcendentals, bytes accessed."""
    flops: int
    transcendentals: int
    bytes_accessed: int
    remote_bytes_transferred: int = 0


class RevisitMode(enum.Enum):
    RETAIN = "retain"
    OVERWRITE = "overwrite"


class DeviceIdType(enum.Enum):
    MESH = "mesh"
    LOGICAL = "logical"


# -- the grid environment: what program_id / num_programs read while a kernel is traced ---------


class _GridEnv(threading.local):
    def __init__(self):
        self.stack = []


_grid_env = _GridEnv()


class grid_env:
    """`with grid_env(indices, grid):` while tracing a kernel: `program_id(a)` is `indices[a]`."""

    def __init__(self, indices, grid):
        self.entry = (list(indices), tuple(grid))

    def __enter__(self):
        _grid_env.stack.append(self.entry)

    def __exit__(self, *exc):
        _grid_env.stack.pop()


def current_grid_env():
    if not _grid_env.stack:
        raise ValueError("program_id and num_programs can only be called inside a Pallas kernel "
                         "(a function traced by pallas_call)")
    return _grid_env.stack[-1]


def prod(shape) -> int:
    return math.prod(shape)
