"""Abstract values: `ShapedArray`, the type every traced value carries (shape, dtype, weak type,
and where they apply its sharding, varying manual axes and memory space), and `AbstractToken`.

They sit below the trace machinery (core re-exports them as `core.ShapedArray`, as JAX names
them): nothing here knows about traces, primitives or jaxprs.
"""
from __future__ import annotations

import math

import numpy as np

from pyjax._src import dtypes
from pyjax._src import mesh as mesh_lib
from pyjax._src.sharding import NamedSharding, PartitionSpec
from pyjax._src.sharding_in_types import (
    NO_VMA, ManualAxisType, MemorySpace, aval_sharding, memory_space_str, sharded_dims_str,
    vma_str)


_SHORT_DTYPE_NAMES = {
    "bool": "bool", "int8": "i8", "int16": "i16", "int32": "i32", "int64": "i64",
    "uint8": "u8", "uint16": "u16", "uint32": "u32", "uint64": "u64",
    "float16": "f16", "bfloat16": "bf16", "float32": "f32", "float64": "f64",
    "complex64": "c64", "complex128": "c128",
}


def short_dtype_name(dtype) -> str:
    name = np.dtype(dtype).name
    if dtypes.is_float0(dtype):
        return "float0"
    return _SHORT_DTYPE_NAMES.get(name, name)


class ShapedArray:
    """The abstract value of an array: its shape, dtype, whether the dtype is weak, (under a
    mesh with Explicit axes only, else None) its sharding: a NamedSharding over an AbstractMesh
    whose spec names Explicit axes only (`float32[8@x,4]`), and (inside a `check_vma=True`
    shard_map body only, else empty) its varying manual axes `vma`: the mesh axes along which
    the value may differ from device to device (`float32[4]{V:x}`); its `memory_space`
    (MemorySpace.Device unless the data is in host memory: `float32<host>[4]`)."""

    __slots__ = ("shape", "dtype", "weak_type", "sharding", "vma", "memory_space", "_hash")
    array_abstraction_level = 1

    def __init__(self, shape, dtype, weak_type=False, sharding=None, vma=NO_VMA,
                 memory_space=MemorySpace.Device, **_jax_only):
        # (_jax_only: JAX's manual_axis_type=, which pyjax's avals ignore)
        self.shape = tuple(shape)
        self.dtype = np.dtype(dtype)
        self.weak_type = bool(weak_type)
        self.sharding = sharding if sharding is None else aval_sharding(sharding, len(self.shape))
        self.vma = vma if vma is NO_VMA or type(vma) is frozenset else frozenset(vma)
        self.memory_space = memory_space
        self._hash = None

    ndim = property(lambda self: len(self.shape))
    size = property(lambda self: math.prod(self.shape))  # (an expression for symbolic dims)

    @property
    def mat(self):  # JAX's manual axis type (its `varying` is the vma)
        return ManualAxisType(varying=self.vma)

    def update(self, shape=None, dtype=None, weak_type=None, sharding=None, vma=None,
               memory_space=None):
        s = self.sharding
        ms = self.memory_space if memory_space is None else memory_space
        if s is None and sharding is None:  # (the common case: no sharding in the type)
            return ShapedArray(self.shape if shape is None else shape,
                               self.dtype if dtype is None else dtype,
                               self.weak_type if weak_type is None else weak_type, None,
                               self.vma if vma is None else vma, ms)
        # a new shape drops the sharding unless one is given (the sharding rules say what it is)
        if sharding is not None:
            s = sharding
        elif shape is not None and tuple(shape) != self.shape:
            s = None
        return ShapedArray(self.shape if shape is None else shape,
                           self.dtype if dtype is None else dtype,
                           self.weak_type if weak_type is None else weak_type, sharding=s,
                           vma=self.vma if vma is None else vma, memory_space=ms)

    def strip_weak_type(self):
        return self if not self.weak_type else self.update(weak_type=False)

    def str_short(self, short_dtypes=True):
        dt = (short_dtype_name(self.dtype) if short_dtypes or dtypes.is_float0(self.dtype)
              else self.dtype.name)
        shape = (",".join(str(d) for d in self.shape) if self.sharding is None
                 else sharded_dims_str(self.shape, self.sharding.spec))
        if self.memory_space is not MemorySpace.Device:
            dt += memory_space_str(self.memory_space)
        return f"{dt}[{shape}]" if not self.vma else f"{dt}[{shape}]{vma_str(self.vma)}"

    def __repr__(self):
        weak = ", weak_type=True" if self.weak_type else ""
        return f"ShapedArray({self.str_short(short_dtypes=False)}{weak})"

    def __str__(self):  # as JAX: `float32[b,4]`, `~float32[]` when weakly typed
        return ("~" if self.weak_type else "") + self.str_short(short_dtypes=False)

    def __eq__(self, other):
        return (type(other) is ShapedArray and self.shape == other.shape
                and self.dtype == other.dtype and self.weak_type == other.weak_type
                and self.sharding == other.sharding and self.vma == other.vma
                and self.memory_space is other.memory_space)

    def __hash__(self):
        h = self._hash
        if h is None:
            h = self._hash = hash((self.shape, self.dtype, self.weak_type, self.sharding,
                                   self.vma, self.memory_space))
        return h


# -- sharding in types ----------------------------------------------------------------------------
# Under a mesh with Explicit axes (mesh.SHARDING_IN_TYPES tells whether one was ever made), avals
# carry a NamedSharding over an AbstractMesh and abstract evaluation runs each primitive's
# `sharding_rule` (see core's Primitive.rule and `_abstract_eval_with_shardings`). A None sharding, or
# one whose mesh has no Explicit axis, means "not in the type": XLA decides, as before.

def with_context_sharding(aval):
    """A traced argument's type under a mesh with Explicit axes: an aval without a sharding is
    replicated over that mesh (as JAX types every value traced there)."""
    if type(aval) is not ShapedArray or aval.sharding is not None:
        return aval
    mesh = mesh_lib.get_abstract_mesh()
    if not mesh._any_axis_explicit:
        return aval
    return aval.update(sharding=NamedSharding(mesh, PartitionSpec()))


def spec_parts(aval) -> tuple:
    """One spec entry per dimension of `aval` (None: not split; also for an unsharded aval)."""
    s = getattr(aval, "sharding", None)
    return (None,) * len(aval.shape) if s is None else tuple(s.spec)


class AbstractToken:
    """JAX's abstract value of an effect token. NB: pyjax threads tokens inside its lowering
    only, so no pyjax value has this type; it serves as the contents of a ref that orders
    state effects (`AbstractRef(AbstractToken())`), which reads and writes carry whole."""

    shape = ()
    ndim = 0
    dtype = None
    weak_type = False
    sharding = None

    def str_short(self, short_dtypes=True, **_):
        return "Tok"

    __repr__ = lambda self: "AbstractToken()"  # noqa: E731
    __eq__ = lambda self, other: type(other) is AbstractToken  # noqa: E731
    __hash__ = lambda self: hash(AbstractToken)  # noqa: E731

    def update(self, **_):
        return self

    def strip_weak_type(self):
        return self


def primal_dtype_to_tangent_dtype(primal_dtype):
    """The dtype of the tangents of values of `primal_dtype` (float0 for integers and bool)."""
    d = primal_dtype if isinstance(primal_dtype, dtypes.ExtendedDType) else np.dtype(primal_dtype)
    return dtypes.tangent_dtype_of(d)
