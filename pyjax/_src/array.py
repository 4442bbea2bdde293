"""`Array`: an immutable array on a device. Concrete arrays are jaxlib's own `ArrayImpl`.

jaxlib's C++ dispatch (the `_jax.pjit` fast path pyjax's `jit` runs on) accepts exactly one
array type, `ArrayImpl`, which cannot be subclassed. So pyjax's concrete arrays are `ArrayImpl`
instances, and pyjax's properties and methods are attached to that class (as JAX does): the
block below for the array itself, `pyjax._src.numpy.array_methods` for operators and the
NumPy-like methods (shared with tracers). `pyjax.Array` is the abstract type users see:
`isinstance(x, Array)` holds for concrete arrays and for tracers.

An array made from a host value keeps that value (small ones, or ones the device aliases) in its
instance dict as `_npy`: reading it back costs nothing, and 0-d host values stay static under
tracing (jaxpr literals, static indices).
"""
from __future__ import annotations

import math

import numpy as np

from pyjax._src import core, dtypes, tree_util
from pyjax._src.backend import xla
from pyjax._src.interpreters import partial_eval as pe
from pyjax._src.mesh import SHARDING_IN_TYPES, AxisType, get_mesh
from pyjax._src.sharding import (NamedSharding, PartitionSpec, Shard, Sharding,
                                 SingleDeviceSharding, named_for_xla, xla_memory_kind)
from pyjax._src.layout import AutoLayout, Format, Layout
from pyjax._src.sharding_gspmd import GSPMDSharding
from pyjax._src.sharding_in_types import ManualAxisType

ArrayImpl = xla.ArrayImpl


# Array types of higher layers that are pyjax Arrays too (typed PRNG key arrays register here).
extra_array_types: set = set()


class _ArrayMeta(type):
    """`isinstance(x, pyjax.Array)` holds for jaxlib arrays, traced arrays and the registered
    `extra_array_types` (typed key arrays), as with `jax.Array`."""

    def __instancecheck__(cls, obj):
        t = type(obj)
        return t is ArrayImpl or isinstance(obj, core.Tracer) or t in extra_array_types

    def __subclasscheck__(cls, sub):
        return (sub is cls or sub is ArrayImpl or issubclass(sub, core.Tracer)
                or sub in extra_array_types)


class Array(metaclass=_ArrayMeta):
    """The type of pyjax arrays (concrete `ArrayImpl`s and tracers); not instantiated itself."""

    __array_priority__ = 100

    def __new__(cls, *args, **kwargs):
        raise TypeError("pyjax.Array cannot be instantiated; use jnp.array or jnp.asarray")

    @staticmethod
    def from_host(value: np.ndarray, weak_type=False) -> ArrayImpl:
        """An array on the default device holding a NumPy value (already of a canonical dtype),
        which the caller hands over: it must never be written to afterwards."""
        return from_host(value, weak_type)


# -- construction ------------------------------------------------------------------------------

# Host values at most this big stay cached on their array (above it only when the device buffer
# aliases the host memory anyway): small ones are what tracing and printing read back.
_KEEP_HOST_BYTES = 1 << 16


def from_host(value: np.ndarray, weak_type=False, device=None) -> ArrayImpl:
    aval = core.ShapedArray(value.shape, value.dtype, weak_type)
    arr = xla.put(value, device or xla.devices()[0], aval, may_alias=True)
    if value.nbytes <= _KEEP_HOST_BYTES or xla.is_aliased(arr, value):
        arr._npy = value
    return arr


def put_value(x, device=None) -> ArrayImpl:
    """Any concrete value an executable takes (Array, NumPy value, Python scalar) as an array
    (on `device`, None: the default one)."""
    if type(x) is ArrayImpl and device is None:
        return x
    if isinstance(x, core.Tracer):
        raise core.escaped_tracer_error(x)
    if type(x) is ArrayImpl:  # on another device
        return xla.put(np.asarray(x._value), device, x.aval)
    aval = core.get_aval(x)
    if dtypes.is_float0(aval.dtype):  # (as JAX: float0 values, all zeros, travel as booleans)
        aval = aval.update(dtype=np.dtype(np.bool_))
        return xla.put(np.zeros(aval.shape, np.bool_), device or xla.devices()[0], aval)
    return xla.put(np.asarray(x, aval.dtype), device or xla.devices()[0], aval)


def is_named_sharding(s) -> bool:
    """Whether `s` lays an array out over several devices block by block (a NamedSharding, or
    a GSPMDSharding: an XLA HloSharding over a device list)."""
    return isinstance(s, (NamedSharding, GSPMDSharding))


def named_sharding_for(s, where):
    """`s`, with a bare PartitionSpec made a NamedSharding over the mesh in context."""
    if isinstance(s, PartitionSpec):
        mesh = get_mesh()
        if mesh is None:
            raise ValueError(f"{where}: a PartitionSpec ({s!r}) needs a mesh in context "
                             f"(pyjax.set_mesh(mesh) or `with mesh:`); or pass a NamedSharding")
        return NamedSharding(mesh, s)
    return s


def put_named(x, sharding) -> ArrayImpl:
    """`x` (an Array or a host value) laid out as the NamedSharding `sharding`, committed."""
    if type(x) is ArrayImpl:
        if x._named_sharding == sharding:
            return x
        _check_typed_divisible(sharding, x.shape)
        return put_sharded(x._value, x.aval, sharding)
    if isinstance(x, core.Tracer):
        raise core.escaped_tracer_error(x)
    host = canonical_host_value(x)
    _check_typed_divisible(sharding, host.shape)
    return put_sharded(host, core.ShapedArray(host.shape, host.dtype, dtypes.is_weakly_typed(x)),
                       sharding)


def put_sharded(value, aval, sharding, committed=True) -> ArrayImpl:
    """A host value (of `aval`) laid out over devices as `sharding` says: each device gets its
    block, and the Array remembers `sharding` (a NamedSharding)."""
    value = np.asarray(value)
    check_divisible(sharding, aval.shape)
    space = core.mem_kind_to_space(sharding.memory_kind)
    if aval.sharding is not None or aval.memory_space is not space:
        # (the layout it had before: its type says `sharding` and its memory kind now)
        aval = core.ShapedArray(aval.shape, aval.dtype, aval.weak_type, memory_space=space)
    indices = sharding.devices_indices_map(aval.shape)
    shard_aval = aval.update(shape=sharding.shard_shape(aval.shape))
    singles = [xla.put(value[indices[d]], d, shard_aval,
                       memory_kind=xla_memory_kind(sharding.memory_kind, d))
               for d in addressable_devices(sharding)]
    return assemble(aval, sharding, singles, committed)


def addressable_devices(sharding) -> list:
    """The devices of `sharding` this process feeds, in the sharding's order (all of them
    unless the mesh spans processes)."""
    devices = sharding._device_assignment
    if xla.distributed.num_processes == 1:
        return list(devices)
    me = xla.process_index()
    return [d for d in devices if d.process_index == me]


def _check_typed_divisible(sharding, shape):
    """Over Explicit mesh axes the placed value's type carries its sharding, and JAX checks
    that type first: a plain ValueError in its words (IndivisibleError is the layout's)."""
    mesh = getattr(sharding, "mesh", None)  # (a GSPMDSharding has none)
    if mesh is None or not mesh._any_axis_explicit:
        return
    sizes = dict(zip(mesh.axis_names, mesh.axis_sizes, strict=True))
    explicit = {a for a, t in zip(mesh.axis_names, mesh.axis_types, strict=True)
                if t is AxisType.Explicit}
    for dim, (p, n) in enumerate(zip(sharding.spec._normalized(len(shape)), shape, strict=True)):
        p = tuple(a for a in p if a in explicit)
        ways = math.prod(sizes[a] for a in p)
        if n % ways:
            raise ValueError(f"Sharding spec {p} implies that array axis {dim} is partitioned "
                             f"{ways} times, but does not evenly divide the dimension size {n}. "
                             f"Got shape: {tuple(shape)} and sharding "
                             f"{NamedSharding(mesh.abstract_mesh, sharding.spec)}")


def check_divisible(sharding, shape):
    """Array dimensions must split evenly over the mesh axes a NamedSharding names (as JAX)."""
    sharding.shard_shape(shape)  # raises JAX's IndivisibleError


def assemble(aval, sharding, singles, committed=True) -> ArrayImpl:
    """One Array of `aval` laid out as `sharding` from single-device arrays, one per
    addressable device of the sharding (in its order)."""
    if isinstance(sharding, SingleDeviceSharding):
        return singles[0] if not committed else xla.committed(singles[0])
    out = xla.assemble(aval, sharding._to_xla(len(aval.shape)), singles, committed)
    out._named_sharding = sharding
    return out


def rewrap(x: ArrayImpl, aval) -> ArrayImpl:
    """`x`'s buffer under another aval of the same shape and dtype (e.g. another weak type)."""
    out = x._rewrap_with_aval_and_sharding(aval, x._sharding)
    if x._npy is not None:
        out._npy = x._npy
    if x._named_sharding is not None:
        out._named_sharding = x._named_sharding
    return out


def deleted_error(aval) -> RuntimeError:
    shape = f"{aval.dtype.name}[{','.join(map(str, aval.shape))}]"  # JAX spells dtypes out here
    return RuntimeError(f"Array has been deleted with shape={shape}. It was donated "
                        f"to a jitted function (donate_argnums) or deleted with .delete().")


def canonical_host_value(x) -> np.ndarray:
    """A NumPy value of `x` in its canonical dtype (64-bit narrowed unless x64 is on)."""
    v = np.asarray(x)
    dt = dtypes.canonicalize_dtype(v.dtype)
    return v if v.dtype == dt else v.astype(dt)


# -- what ArrayImpl gains ----------------------------------------------------------------------


class _NamedShardingOf:
    """`x._named_sharding` when the array's own dict has none (a non-data descriptor: an
    instance value wins): the NamedSharding of its jaxlib sharding, or None."""

    def __get__(self, obj, cls=None):
        return None if obj is None else named_for_xla(obj._sharding)


class _ArrayImplMethods:
    """Copied onto `ArrayImpl` below (a jaxlib class: it cannot be subclassed, only extended)."""

    _npy = None  # the cached host value, when the array was made from one
    __array_priority__ = 100

    @property
    def _value(self) -> np.ndarray:
        if self.is_deleted():
            raise deleted_error(self.aval)
        npy = self._npy
        return npy if npy is not None else xla.to_numpy(self)

    shape = property(lambda self: self.aval.shape)
    dtype = property(lambda self: self.aval.dtype)
    ndim = property(lambda self: len(self.aval.shape))
    size = property(lambda self: self.aval.size)
    weak_type = property(lambda self: self.aval.weak_type)
    nbytes = property(lambda self: self.aval.size * self.aval.dtype.itemsize)
    itemsize = property(lambda self: self.aval.dtype.itemsize)
    committed = property(lambda self: self._committed)

    # the NamedSharding of a multi-device array: set where it is made, or (outputs of C++
    # dispatch) read from the jaxlib sharding it was made with
    _named_sharding = _NamedShardingOf()

    @property
    def sharding(self):
        named = self._named_sharding
        if named is not None:
            return named
        devices = xla.buffer_devices(self)
        if len(devices) == 1:
            return SingleDeviceSharding(devices[0], memory_kind=xla.memory_kind_of(self))
        raise NotImplementedError(f"pyjax: the sharding of this {self.aval.str_short()} array "
                                  f"over {len(devices)} devices has no pyjax name")

    @property
    def format(self):
        """The device-local layout of the array's buffers, with its sharding (JAX's Format)."""
        if self.is_deleted():
            return Format(None, self.sharding)
        lay = xla.buffer_layout(self)
        return Format(None if lay is None else Layout.from_xla(lay), self.sharding)

    @property
    def device(self):
        devices = xla.buffer_devices(self)
        # as JAX: an array on several devices answers with its sharding
        return devices[0] if len(devices) == 1 else self.sharding

    def devices(self):
        return set(xla.buffer_devices(self))

    @property
    def addressable_shards(self):
        """The pieces of the array on this process's devices, with the block (`index`) of the
        global array each holds."""
        named = self._named_sharding
        if named is None:
            return [Shard(self.device, tuple(slice(None) for _ in self.shape), 0, self)]
        indices = named.devices_indices_map(self.shape)
        replica = dict(zip(named._device_assignment, named._replica_ids(self.ndim), strict=True))
        out = []
        shard_aval = self.aval.update(shape=named.shard_shape(self.shape))
        for buf in xla.single_device_buffers(self):
            if buf.aval is None:  # jaxlib leaves the pieces' avals to its Python side (jax)
                buf = buf._rewrap_with_aval_and_sharding(shard_aval,
                                                         xla.jaxlib_sharding(buf._sharding))
            dev = xla.buffer_devices(buf)[0]
            out.append(Shard(dev, indices[dev], replica[dev], buf))
        return out

    global_shards = addressable_shards

    def addressable_data(self, index):
        """The single-device Array of this process's `index`-th shard."""
        return self.addressable_shards[index].data

    def delete(self):
        _native_delete(self)
        self.__dict__.pop("_npy", None)

    def copy_to_host_async(self):
        pass

    @property
    def is_fully_replicated(self):
        named = self._named_sharding
        return True if named is None else named.is_fully_replicated

    @property
    def is_fully_addressable(self):
        named = self._named_sharding
        return True if named is None else named.is_fully_addressable

    # -- NumPy protocols and Python conversions -----------------------------------------------

    def __array__(self, dtype=None, copy=None):
        v = self._value
        if dtype is not None and np.dtype(dtype) != v.dtype:
            return v.astype(dtype)
        return v.copy() if copy else v

    def __float__(self):
        return float(self._scalar("float"))

    def __int__(self):
        return int(self._scalar("int"))

    def __complex__(self):
        return complex(self._scalar("complex"))

    def __index__(self):
        # (JAX's words and rule: a 0-d integer array only, not NumPy's length-1 arrays)
        if self.ndim or (not np.issubdtype(self.dtype, np.integer) and self.dtype != np.bool_):
            raise TypeError(f"Only integer scalar arrays can be converted to a scalar index; got "
                            f"{self.aval.str_short()}")
        return int(self._scalar("index"))

    def __bool__(self):
        if self.size != 1:
            raise ValueError("The truth value of an empty array is ambiguous. Use a.size > 0"
                             if self.size == 0 else
                             f"The truth value of an array with more than one element is "
                             f"ambiguous ({self.aval.str_short()}). Use a.any() or a.all()")
        return bool(self._value.reshape(()))

    def _scalar(self, what):
        if self.ndim:  # (as JAX: 0-d arrays only, not NumPy's length-1 arrays)
            raise TypeError(f"Only scalar arrays can be converted to Python scalars; got {what}() "
                            f"of {self.aval.str_short()}")
        return self._value[()]

    def item(self, *args):
        return self._value.item(*args)

    def tolist(self):
        return self._value.tolist()

    def __len__(self):
        if not self.shape:
            raise TypeError("len() of unsized object")
        return self.shape[0]

    def __iter__(self):
        if not self.shape:
            raise TypeError("iteration over a 0-d array")
        return (self[i] for i in range(self.shape[0]))

    # not hashable, as JAX's arrays (so `isinstance(x, collections.abc.Hashable)` is False, which
    # libraries ask to tell static values from arrays): hash(x) raises "unhashable type"
    __hash__ = None

    def __reduce__(self):
        return (_reconstruct, (np.array(self._value), self.weak_type))

    def __repr__(self):
        prefix, suffix = "Array(", ""
        if self.weak_type:
            suffix += ", weak_type=True"
        if _spans_other_processes(self):  # as JAX: the value is not all here
            return f"{prefix}shape={self.shape}, dtype={self.dtype.name}{suffix})"
        v = self._value
        dtype_str = f"dtype={self.dtype.name}{suffix}"
        if v.size == 0:
            body = f"[], shape={v.shape}"
        else:  # NumPy's print options (threshold, linewidth, precision) apply, as in JAX
            body = np.array2string(v, prefix=prefix, suffix=",", separator=", ")
        # JAX's layout: when the dtype does not fit on the last line, it stays on that line
        # after as many spaces as the prefix is long
        line_width = np.get_printoptions()["linewidth"]
        last_line_len = len(body) - body.rfind("\n") + 1
        sep = " " * len(prefix) if last_line_len + len(dtype_str) + 2 > line_width else " "
        return f"{prefix}{body},{sep}{dtype_str})"

    def __str__(self):
        return repr(self) if _spans_other_processes(self) else str(self._value)

    def __format__(self, spec):
        if self.ndim == 0:
            return format(self._value[()], spec)
        return format(str(self), spec)

    def __dlpack__(self, *args, **kwargs):
        return self._value.__dlpack__(*args, **kwargs)

    def __dlpack_device__(self):
        return self._value.__dlpack_device__()


def _spans_other_processes(x) -> bool:
    """Whether some of `x`'s blocks live only on other processes' devices."""
    named = x._named_sharding
    return named is not None and not named.is_fully_addressable and not named.is_fully_replicated


def _reconstruct(value, weak_type):
    value.setflags(write=False)
    return from_host(value, weak_type)


_native_delete = ArrayImpl.delete
for _name, _member in vars(_ArrayImplMethods).items():
    if _name not in ("__module__", "__qualname__", "__dict__", "__weakref__", "__doc__"):
        setattr(ArrayImpl, _name, _member)
del _name, _member


def _literal_for_array(x):
    """Under tracing, a 0-d array whose host value is known becomes an inline literal."""
    if x._npy is not None and x.aval.ndim == 0:
        return core.Literal(x, x.aval)  # the array itself: evaluating keeps its weak type
    return None


def array_aval(x):
    """An array's abstract value; under sharding in types, with its sharding when that names
    Explicit mesh axes (`float32[8@x,4]`)."""
    aval = x.aval
    if not SHARDING_IN_TYPES[0] or aval.sharding is not None:
        return aval
    named = x._named_sharding
    if type(named) is not NamedSharding or not named.mesh._any_axis_explicit:
        return aval
    return aval.update(sharding=named)


core.pytype_aval_mappings[ArrayImpl] = array_aval
pe.literal_value_handlers[ArrayImpl] = _literal_for_array


class ShapeDtypeStruct:
    """A shape and dtype standing in for an array (for eval_shape and AOT lowering)."""

    __slots__ = ("shape", "dtype", "weak_type", "_sharding", "_layout", "manual_axis_type")

    def __init__(self, shape, dtype, *, weak_type=False, sharding=None, manual_axis_type=None):
        if manual_axis_type is not None and not isinstance(manual_axis_type, ManualAxisType):
            raise TypeError(f"`manual_axis_type` argument passed to ShapeDtypeStruct should be "
                            f"of type `jax.sharding.ManualAxisType`. Got type "
                            f"{type(manual_axis_type)}")
        # (inside a shard_map body: the mesh axes the value varies along, as eval_shape says)
        self.manual_axis_type = manual_axis_type
        self.shape = tuple(shape)
        if dtype is None:  # (JAX's words; np.dtype(None) would silently be float64)
            raise ValueError("ShapeDtypeStruct: dtype must be specified.")
        # an extended dtype (a PRNG key's `key<fry>`) is kept as it is, as in JAX
        self.dtype = dtype if isinstance(dtype, dtypes.ExtendedDType) else np.dtype(dtype)
        self.weak_type = weak_type
        if isinstance(sharding, Format) and isinstance(sharding.layout, AutoLayout):
            raise TypeError(f"`Layout.AUTO` cannot be used in place of a device-local layout in "
                            f"a `ShapeDtypeStruct`. Got {sharding}")
        # a Format gives the sharding and a device-local layout
        self._layout = sharding.layout if isinstance(sharding, Format) else None
        self._sharding = sharding.sharding if isinstance(sharding, Format) else sharding

    @property
    def format(self):
        return Format(self._layout, self.sharding)

    @property
    def sharding(self):
        """The sharding given; a PartitionSpec is read over the mesh in context when asked (as
        JAX's), which must exist."""
        s = self._sharding
        if not isinstance(s, PartitionSpec):
            return s
        mesh = get_mesh()
        if mesh is None or mesh.empty:
            raise TypeError("When specifying PartitionSpec to `ShapeDtypeStruct`, the context "
                            "mesh cannot be empty. Please use `jax.set_mesh` to set the mesh "
                            "context.")
        return NamedSharding(mesh, s)

    ndim = property(lambda self: len(self.shape))
    size = property(lambda self: int(np.prod(self.shape, dtype=np.int64)))

    def __len__(self):  # (as JAX's, and an array's)
        if not self.shape:
            raise TypeError("len() of unsized object")
        return self.shape[0]

    @classmethod
    def of_aval(cls, aval):
        """The struct of an abstract value (its varying manual axes included)."""
        mat = ManualAxisType(varying=aval.vma) if getattr(aval, "vma", None) else None
        return cls(aval.shape, aval.dtype, weak_type=aval.weak_type, manual_axis_type=mat)

    @classmethod
    def like(cls, x):
        """The shape, dtype and weak type of `x` (an array, a value or a ShapeDtypeStruct), with
        its sharding if it is committed to one (as JAX)."""
        aval = core.get_aval(x)
        sharding = getattr(x, "sharding", None) if getattr(x, "_committed", True) else None
        return cls(aval.shape, aval.dtype, weak_type=aval.weak_type, sharding=sharding)

    def update(self, **changes):
        """A copy with some of `shape`, `dtype`, `weak_type`, `sharding` replaced."""
        if self._layout is not None and isinstance(changes.get("sharding"), Sharding):
            raise ValueError(f"You are updating ShapeDtypeStruct with a "
                             f"{type(changes['sharding'])} when the original ShapeDtypeStruct "
                             f"had a concrete layout {self.format}. This might lead to bugs. If "
                             f"you want to do this, create a new ShapeDtypeStruct via the "
                             f"constructor.")
        fields = {"shape": self.shape, "dtype": self.dtype, "weak_type": self.weak_type,
                  "sharding": self._sharding if self._layout is None else Format(
                      self._layout, self._sharding),
                  "manual_axis_type": self.manual_axis_type, **changes}
        return type(self)(fields.pop("shape"), fields.pop("dtype"), **fields)

    def __repr__(self):
        weak = ", weak_type=True" if self.weak_type else ""
        mat = f", manual_axis_type={self.manual_axis_type}" if self.manual_axis_type else ""
        return f"ShapeDtypeStruct(shape={self.shape}, dtype={self.dtype.name}{weak}{mat})"

    def __eq__(self, other):
        return (isinstance(other, ShapeDtypeStruct) and self.shape == other.shape
                and self.dtype == other.dtype and self.weak_type == other.weak_type
                and self.manual_axis_type == other.manual_axis_type)

    def __hash__(self):
        return hash((self.shape, self.dtype, self.weak_type, self.manual_axis_type))


def _shape_dtype_struct_aval(x):
    """A ShapeDtypeStruct's abstract value; under sharding in types, with its sharding when that
    is a NamedSharding naming Explicit mesh axes (as an array's)."""
    aval = core.ShapedArray(x.shape, dtypes.canonicalize_dtype(x.dtype), x.weak_type,
                            vma=x.manual_axis_type.varying if x.manual_axis_type else core.NO_VMA)
    s = x._sharding
    if isinstance(s, PartitionSpec):
        s = x.sharding
    if (not SHARDING_IN_TYPES[0] or not isinstance(s, NamedSharding)
            or not s.mesh._any_axis_explicit):
        return aval
    return aval.update(sharding=s)


core.pytype_aval_mappings[ShapeDtypeStruct] = _shape_dtype_struct_aval


# -- assembling sharded arrays ------------------------------------------------------------------


def make_array_from_callback(shape, sharding, data_callback, dtype=None) -> ArrayImpl:
    """An array of `shape` laid out as `sharding`, each device's block computed by
    `data_callback(index)` (`index`: the block's tuple of slices into the global array).

    >>> make_array_from_callback((8, 4), NamedSharding(mesh, P("x")), lambda idx: X[idx])
    """
    shape = tuple(shape)
    sharding = named_sharding_for(sharding, "make_array_from_callback")
    devices = addressable_devices(sharding)
    indices = sharding.devices_indices_map(shape)
    blocks = [data_callback(indices[d]) for d in devices]
    if type(blocks[0]) in tree_util.opaque_leaf_types:  # key arrays: their data, laid out so
        data = [b._base_array for b in blocks]
        trailing = tuple(data[0].shape[blocks[0].ndim:])
        return blocks[0]._wrap(make_array_from_callback(
            shape + trailing, sharding, lambda index: data[_block_of(indices, devices, index)]))
    blocks = [canonical_host_value(b) for b in blocks]
    dt = dtypes.canonicalize_dtype(dtype) if dtype is not None else blocks[0].dtype
    if isinstance(sharding, SingleDeviceSharding):
        return xla.put(np.asarray(blocks[0], dt), devices[0], core.ShapedArray(shape, dt),
                       committed=True)
    check_divisible(sharding, shape)
    shard_aval = core.ShapedArray(sharding.shard_shape(shape), dt)
    aval = core.ShapedArray(shape, dt)
    singles = [xla.put(_block(b, shard_aval, aval, sharding), d, shard_aval)
               for b, d in zip(blocks, devices, strict=True)]
    return assemble(aval, sharding, singles)


def make_array_from_single_device_arrays(shape, sharding, arrays, *, dtype=None) -> ArrayImpl:
    """An array of `shape` laid out as `sharding` from one single-device Array per device of
    the sharding (each holding that device's block, any order)."""
    shape = tuple(shape)
    arrays = list(arrays)
    if arrays and type(arrays[0]) in tree_util.opaque_leaf_types:  # key arrays: their data
        trailing = tuple(arrays[0]._base_array.shape[arrays[0].ndim:])
        return arrays[0]._wrap(make_array_from_single_device_arrays(
            shape + trailing, sharding, [getattr(a, "_base_array", a) for a in arrays]))
    devices = addressable_devices(sharding)
    by_device = {}
    if any(isinstance(a, core.Tracer) for a in arrays):  # (JAX's words)
        raise ValueError(f"jax.make_array_from_single_device_arrays requires a list of concrete "
                         f"arrays as input, but got types {set(map(type, arrays))}")
    for a in arrays:
        if type(a) is not ArrayImpl or len(xla.buffer_devices(a)) != 1:
            raise ValueError("make_array_from_single_device_arrays: every array must be a "
                             "concrete Array on one device")
        by_device[xla.buffer_devices(a)[0]] = a
    missing = [d for d in devices if d not in by_device]
    if missing or len(arrays) != len(devices):
        raise ValueError(f"make_array_from_single_device_arrays: the sharding spans "
                         f"{len(devices)} devices of this process but {len(arrays)} arrays "
                         f"were given "
                         f"(no array for {missing})")
    dt = np.dtype(dtype) if dtype is not None else arrays[0].dtype
    if isinstance(sharding, NamedSharding):
        check_divisible(sharding, shape)
    want = sharding.shard_shape(shape)
    singles = []
    for d in devices:
        a = by_device[d]
        if a.shape != want or a.dtype != dt:
            raise ValueError(f"make_array_from_single_device_arrays: the array on {d} is "
                             f"{a.aval.str_short()}, but the sharding {sharding!r} of shape "
                             f"{shape} needs {np.dtype(dt).name}{list(want)}")
        singles.append(a)
    return assemble(core.ShapedArray(shape, dt), sharding, singles)


def _block_of(indices, devices, index) -> int:
    """Which device's block `index` (slices over the leading dims of a longer shape) is."""
    lead = tuple(index[:len(indices[devices[0]])])
    return next(i for i, d in enumerate(devices) if tuple(indices[d]) == lead)


def _block(b, shard_aval, aval, sharding):
    """A block the callback of make_array_from_callback returned, which must have the shard
    shape (JAX's ValueError)."""
    b = np.asarray(b, shard_aval.dtype)
    if b.shape != shard_aval.shape:
        raise ValueError(f"Expected shard shape {shard_aval.shape} doesn't match the single "
                         f"device array shape {b.shape}. Shape of Array is {aval.str_short()} "
                         f"with sharding {sharding}")
    return b


def make_array_from_process_local_data(sharding, local_data, global_shape=None) -> ArrayImpl:
    """An array laid out as `sharding` from this process's part of it (`local_data`).

    Along each dimension, the blocks this process's devices hold are taken from `local_data`
    in order (e.g. global rows 8:12 and 24:28 are rows 0:4 and 4:8 of the local data), unless
    that dimension of `global_shape` equals the local one, when the local data is the whole
    extent. Without `global_shape`, each process is assumed to hold only its own blocks.

    >>> x = make_array_from_process_local_data(NamedSharding(mesh, P("batch")), local_batch)
    """
    local = canonical_host_value(local_data)
    if isinstance(sharding, SingleDeviceSharding):
        if global_shape is not None and tuple(global_shape) != local.shape:
            raise ValueError(f"make_array_from_process_local_data: a SingleDeviceSharding "
                             f"holds all of the array, so global_shape={tuple(global_shape)} "
                             f"must equal the local data's shape {local.shape}")
        return xla.put(local, sharding._device, core.ShapedArray(local.shape, local.dtype),
                       committed=True)
    sharding = named_sharding_for(sharding, "make_array_from_process_local_data")
    ndim = local.ndim
    ways, pieces = sharding._tiles(ndim)
    mine = set(addressable_devices(sharding))
    flat = sharding._device_assignment
    # the pieces (per dimension) this process's devices hold, in order
    local_pieces = [sorted({p[d] for dev, p in zip(flat, pieces, strict=True) if dev in mine})
                    for d in range(ndim)]
    inferred = tuple(n * w // len(lp) for n, w, lp in zip(local.shape, ways, local_pieces,
                                                          strict=True))
    if global_shape is None:
        global_shape = inferred
    global_shape = tuple(int(n) for n in global_shape)
    if len(global_shape) != ndim:
        raise ValueError(f"make_array_from_process_local_data: global_shape {global_shape} "
                         f"has a different rank than the local data {local.shape}")
    for d, (g, n, i) in enumerate(zip(global_shape, local.shape, inferred, strict=True)):
        if g not in (n, i):
            raise ValueError(f"make_array_from_process_local_data: dimension {d} of "
                             f"global_shape {global_shape} must be the local size {n} or the "
                             f"size the sharding implies, {i} (local data {local.shape}, "
                             f"sharding {sharding!r})")
    aval = core.ShapedArray(global_shape, local.dtype)
    check_divisible(sharding, global_shape)
    shard_shape = sharding.shard_shape(global_shape)
    indices = sharding.devices_indices_map(global_shape)
    singles = []
    for dev, piece in zip(flat, pieces, strict=True):
        if dev not in mine:
            continue
        block = []
        for d, sl in enumerate(indices[dev]):
            if global_shape[d] == local.shape[d]:
                block.append(sl)
            else:
                k = local_pieces[d].index(piece[d])
                block.append(slice(k * shard_shape[d], (k + 1) * shard_shape[d]))
        singles.append(xla.put(np.ascontiguousarray(local[tuple(block)]), dev,
                               aval.update(shape=shard_shape)))
    return assemble(aval, sharding, singles)
