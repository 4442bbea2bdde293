"""The top-level API that is not a transformation: make_jaxpr, eval_shape, device placement,
blocking. (`ShapeDtypeStruct` lives in array.py, beside the Array it stands in for.)"""
from __future__ import annotations

import contextlib
import functools
import platform
import sys
import warnings

import numpy as np

from pyjax._src import core, dispatch, dtypes, pjit, source_info, tree_util
from pyjax._src.lax.convert import _convert_element_type
from pyjax._src.lax.helpers import full
from pyjax._src.lax.placement import ArrayCopySemantics, device_put_p
from pyjax._src.array import (Array, ArrayImpl, ShapeDtypeStruct, canonical_host_value,
                              is_named_sharding, named_sharding_for, put_named, put_sharded)
from pyjax._src.backend import xla
from pyjax._src.backend.guard import JAXLIB_VERSION
from pyjax._src.layout import Format, Layout
from pyjax._src.mesh import Mesh
from pyjax._src.sharding import (NamedSharding, PartitionSpec, Sharding, SingleDeviceSharding,
                                 xla_memory_kind)
from pyjax._src.config import State
from pyjax._src.random.keys import KeyAval as _KeyAval
from pyjax._src.random.keys import PRNGKeyArray as _PRNGKeyArray
from pyjax._src.traceback_util import api_boundary


def make_jaxpr(fun, static_argnums=(), axis_env=None, return_shape=False, abstracted_axes=None):
    """A function returning the ClosedJaxpr of `fun` traced on the given arguments.

    Example:
        >>> print(make_jaxpr(lambda x: jnp.sin(x) * 2)(1.0))
        { lambda ; a:f32[]. let b:f32[] = sin a; c:f32[] = mul b 2.0:f32[] in (c,) }
    """
    static_argnums = (static_argnums,) if isinstance(static_argnums, int) else tuple(static_argnums)

    @functools.wraps(fun)
    @api_boundary
    def make(*args, **kwargs):
        # traced as `jit` traces it, sharing jit's traces of `fun` (as in JAX)
        traced = pjit.jit(fun, static_argnums=static_argnums).trace(*args, **kwargs)
        closed = traced.jaxpr
        if return_shape:
            shapes = [ShapeDtypeStruct.of_aval(a) for a in closed.out_avals]
            return closed, _key_structs(tree_util.tree_unflatten(traced.out_tree, shapes))
        return closed
    return make


def _key_structs(tree):
    """The key arrays among output shapes (keys over ShapeDtypeStructs of their data) as
    ShapeDtypeStructs of a key dtype, as JAX's `eval_shape` gives them."""
    is_key = lambda x: isinstance(x, _PRNGKeyArray)
    return tree_util.tree_map(lambda x: ShapeDtypeStruct(x.shape, x.dtype) if is_key(x) else x,
                              tree, is_leaf=is_key)


@api_boundary
def eval_shape(fun, *args, **kwargs):
    """The output shapes/dtypes of `fun(*args, **kwargs)` as ShapeDtypeStructs, without computing."""
    closed, shapes = make_jaxpr(_structs_as_values(fun), return_shape=True)(*args, **kwargs)
    return shapes


def _structs_as_values(fun):
    """`fun` with the ShapeDtypeStructs it returns replaced by zeros of their type: JAX's
    eval_shape passes returned ShapeDtypeStructs through (lineax's `structure_equal` is
    `eval_shape(lambda: tree)` on a tree that may hold them)."""
    def value(o):
        if not isinstance(o, ShapeDtypeStruct):
            return o
        return _convert_element_type(full(o.shape, 0, o.dtype), o.dtype, weak_type=o.weak_type)

    @functools.wraps(fun)
    def wrapped(*args, **kwargs):
        return tree_util.tree_map(value, fun(*args, **kwargs))
    return wrapped


def device_put(x, device=None, *, src=None, donate=False, may_alias=None):
    """Move a pytree of values onto a device (the default device if none is given), or lay
    them out over several as a sharding says (`NamedSharding`, or a `PartitionSpec` under
    `set_mesh`). `device` may also be a pytree prefix of `x`: one placement per subtree.

    >>> device_put({'a': np.ones(2), 'b': 1.0}, {'a': devices()[0], 'b': None})['a']
    Array([1., 1.], dtype=float32)
    """
    if may_alias and donate:  # (JAX's check and words)
        raise ValueError("may_alias and donate cannot be True at the same time.")
    with xla.explicit_transfer("device_put"):  # (transfer guards' *_explicit levels allow it)
        return _device_put(x, device, may_alias)


def _device_put(x, device, may_alias):
    if device is None or isinstance(device, (xla.Device, Sharding, PartitionSpec, Format)):
        return tree_util.tree_map(lambda v: _put_leaf(v, device, may_alias), x)
    leaves, treedef = tree_util.tree_flatten(x)
    try:
        placements = tree_util.flatten_prefix(device, x, "device_put device")
    except ValueError:
        # (JAX's report: every mismatch, None counted as a node there as in JAX's)
        errors = [e("device_put device") for e in tree_util.prefix_errors(device, x)]
        if not errors:
            raise
        raise ValueError(
            "device_put device specification must be a tree prefix of the corresponding value; \n"
            f"  Mismatch details ({len(errors)} found):\n"
            + "\n".join("  " + str(e) for e in errors)) from None
    return treedef.unflatten([_put_leaf(v, d, may_alias) for v, d in zip(leaves, placements)])


def _put_leaf(v, device, may_alias):
    if isinstance(device, Format):
        return _put_formatted(v, device)
    device = named_sharding_for(device, "device_put")
    if device is not None and not isinstance(device, (xla.Device, Sharding)):
        raise ValueError("`jax.device_put` only accepts `None`, `jax.sharding.Sharding`, `jax.Device` "
                         f"or a pytree of these values. Received invalid value: {device!r}")
    if isinstance(v, core.Tracer):
        if _moves_memory(v, device):  # staged: JAX's device_put primitive
            return device_put_p.bind(v, devices=(device,), srcs=(None,),
                                     copy_semantics=(ArrayCopySemantics.REUSE_INPUT,))[0]
        return v
    if is_named_sharding(device):
        if type(v) is ArrayImpl and isinstance(device, NamedSharding) and isinstance(
                v._named_sharding, NamedSharding) and v._named_sharding != device and \
                v.sharding._device_assignment == device._device_assignment:
            return dispatch.reshard(v, device)  # on device, by XLA
        return put_named(v, device)
    kind = None  # the memory the value goes to (None: the device's default memory)
    if isinstance(device, SingleDeviceSharding):
        kind = xla_memory_kind(device.memory_kind, device._device)
    if type(v) is ArrayImpl:
        if isinstance(device, Sharding) and hasattr(device, "_device"):
            device = device._device  # a SingleDeviceSharding: its device (aliasing as JAX's)
        if device is None or (device in xla.buffer_devices(v)
                              and kind == xla_memory_kind(xla.memory_kind_of(v), device)):
            # may_alias=False: a buffer of its own (donating one must not delete the other)
            out = v if not (may_alias is False) else xla.copy(v)
            # as in JAX, an array placed on a named device is committed to it (one already
            # committed there is itself: aliasing)
            return xla.committed(out) if device is not None and not (
                out is v and v._committed) else out
        return _put_on(np.asarray(v._value), v.aval, device, kind)
    host = canonical_host_value(v)
    aval = core.ShapedArray(host.shape, host.dtype, dtypes.is_weakly_typed(v))
    return _put_on(host, aval, device, kind)


def _put_formatted(v, fmt):
    """`v` placed as a Format says: its sharding, in its device-local layout (laid out by an
    identity computation whose result has that layout, as JAX does)."""
    if fmt.layout is None and fmt.sharding is None:
        return _put_leaf(v, None, None)
    if not isinstance(fmt.sharding, Sharding) or not isinstance(fmt.layout, (Layout, type(None))):
        aval = core.get_aval(v)
        raise ValueError(f"sharding and layout in `Layout` instance should be concrete. Got "
                         f"layout: {fmt} for input {aval.str_short()}")
    if getattr(v, "format", None) == fmt and getattr(v, "_committed", False):
        return v
    if fmt.layout is None:
        return _put_leaf(v, fmt.sharding, None)
    return pjit.jit(_identity, out_shardings=fmt)(v)


def _identity(x):
    return x


def _moves_memory(tracer, device) -> bool:
    """Whether placing a traced value as `device` says moves it to another memory space (the
    types then differ). NB: other traced placements give the value itself (no equation)."""
    kind = getattr(device, "memory_kind", None) if isinstance(device, Sharding) else None
    return kind is not None and type(tracer.aval) is core.ShapedArray and \
        core.mem_kind_to_space(kind) is not tracer.aval.memory_space


def _put_on(host, aval, device, memory_kind=None):
    space = core.mem_kind_to_space(memory_kind)
    if aval.memory_space is not space:  # (typed with the memory it is in)
        aval = aval.update(memory_space=space)
    return xla.put(host, _resolve_device(device), aval, committed=device is not None,
                   memory_kind=memory_kind)


def _resolve_device(device):
    if device is None:
        return xla.devices()[0]
    if hasattr(device, "_device"):  # a Sharding
        return device._device
    return device


def device_put_sharded(shards, devices):
    """The `shards` (a sequence of equally typed pytrees, one per device) stacked along a new
    leading axis, slice i on `devices[i]` (JAX's, deprecated at `jax.device_put_sharded`:
    `jax.device_put(stacked, NamedSharding(mesh, P(axis)))` says the same).

    >>> device_put_sharded([np.ones(3), np.zeros(3)], jax.devices()[:2]).shape
    (2, 3)
    """
    if not isinstance(shards, (list, tuple)):
        raise TypeError(f"device_put_sharded `shards` input must be a sequence; got {type(shards)}")
    if len(shards) != len(devices):
        raise ValueError(f"len(shards) = {len(shards)} must equal len(devices) = {len(devices)}.")
    sharding = _stacked_sharding(devices, "_device_put_sharded")

    def stack(*xs):
        if type(xs[0]) is _PRNGKeyArray:  # keys: their data, stacked alike
            return _PRNGKeyArray(xs[0]._impl, stack(*[x._base_array for x in xs]))
        avals = [core.get_aval(x) for x in xs]
        for a1, a2 in zip(avals[:-1], avals[1:]):
            if a1 != a2:
                raise ValueError(f"the shards passed to device_put_sharded must have consistent "
                                 f"shape and dtype, but got {a1} and {a2}.")
        value = np.stack([np.asarray(x) for x in xs])
        return put_sharded(value, avals[0].update(shape=value.shape), sharding)
    return tree_util.tree_map(stack, *shards, is_leaf=lambda v: type(v) is _PRNGKeyArray)


def device_put_replicated(x, devices):
    """`x` (a pytree) broadcast along a new leading axis of size `len(devices)`, slice i on
    `devices[i]` (JAX's, deprecated at `jax.device_put_replicated`)."""
    if not isinstance(devices, (list, tuple)) or not devices:
        raise ValueError("`devices` argument to `device_put_replicated must be a non-empty "
                         "sequence.")
    sharding = _stacked_sharding(devices, "_device_put_replicated")

    def replicate(v):
        if type(v) is _PRNGKeyArray:
            return _PRNGKeyArray(v._impl, replicate(v._base_array))
        aval = core.get_aval(v)
        value = np.broadcast_to(np.asarray(v, aval.dtype), (len(devices), *aval.shape))
        return put_sharded(value, aval.update(shape=value.shape), sharding)
    return tree_util.tree_map(replicate, x, is_leaf=lambda v: type(v) is _PRNGKeyArray)


def _stacked_sharding(devices, axis):
    return NamedSharding(Mesh(np.array(devices), (axis,)), PartitionSpec(axis))


def device_get(x):
    """Copy a pytree of Arrays to NumPy values on the host. As JAX: a tracer stays itself (chex's
    without_device variant calls this inside a fori_loop), anything else with `__array__` gives
    its NumPy value, and other leaves are returned as they are."""
    def get(v):
        if isinstance(v, core.Tracer):
            return v
        if isinstance(v, Array):
            with xla.explicit_transfer("device_get"):
                return v._value
        toarray = getattr(v, "__array__", None)
        return v if toarray is None else toarray()
    return tree_util.tree_map(get, x)


def block_until_ready(x):
    """Wait until every Array in the pytree `x` is computed; returns `x`."""
    bufs = [v for v in tree_util.tree_leaves(x) if type(v) is ArrayImpl]
    if bufs:
        xla.block_until_ready(bufs)
    return x


def devices(backend=None):
    return xla.devices(backend)


def local_devices(process_index=None, backend=None, host_id=None):
    """The devices of process `process_index` (None: this process) on `backend`.

    >>> local_devices(backend="cpu")  # doctest: +SKIP
    [CpuDevice(id=0)]
    """
    if host_id is not None:
        warnings.warn("The argument to jax.local_devices has been renamed from `host_id` to "
                      "`process_index`. This alias will eventually be removed; please update "
                      "your code.")
        process_index = host_id
    if process_index is not None and not 0 <= process_index < xla.process_count(backend):
        raise ValueError(f"Unknown process_index {process_index}")
    return xla.local_devices(process_index, backend)


def device_count(backend=None):
    return xla.device_count(backend)


def local_device_count(backend=None):
    return xla.local_device_count(backend)


def default_backend():
    return xla.default_backend()


def process_index(backend=None):
    return xla.process_index()


def process_count(backend=None):
    return xla.process_count()


def process_indices(backend=None):
    """The indices of the processes taking part (0 to process_count() - 1)."""
    return list(range(xla.process_count(backend)))


def _renamed(old, new, fn):
    def alias(backend=None):
        warnings.warn(f"jax.{old} has been renamed to jax.{new}. This alias will eventually be "
                      "removed; please update your code.", UserWarning, stacklevel=2)
        return fn(backend)
    alias.__name__ = old
    return alias


host_id = _renamed("host_id", "process_index", process_index)
host_count = _renamed("host_count", "process_count", process_count)
host_ids = _renamed("host_ids", "process_indices", process_indices)


def live_arrays(platform=None):
    """The arrays alive on a platform's devices (the default platform's if None)."""
    return xla.live_arrays(platform)


def copy_to_host_async(x):
    """Start copying every array leaf of `x` to the host (later reads are then cheap); returns
    `x`. Leaves without `copy_to_host_async` are left alone."""
    for leaf in tree_util.tree_leaves(x):
        copy = getattr(leaf, "copy_to_host_async", None)
        if copy is not None:
            copy()
    return x


def effects_barrier():
    """Wait until every computation already dispatched has run its host callbacks
    (`debug.print`, `io_callback`, `pure_callback`), e.g. before reading what they printed."""
    xla.effects_barrier()


def print_environment_info(return_string: bool = False):
    """Versions of pyjax (as the JAX API level), jaxlib, NumPy and Python, and the devices."""
    devs = devices()
    info = (f"jax:    {JAXLIB_VERSION} (pyjax: the JAX API level)\njaxlib: {JAXLIB_VERSION}\n"
            f"numpy:  {np.__version__}\npython: {sys.version}\n"
            f"device info: {devs[0].platform}-{len(devs)}, {len(local_devices())} local devices\n"
            f"process_count: {process_count()}\nplatform: {platform.uname()}\n")
    if return_string:
        return info
    print(info)


def clear_caches():
    """Drop every in-memory cache: jit signatures and traces, transformed jaxprs, compiled
    executables, eager control-flow traces (each registered with `dispatch.register_cache`).
    The on-disk compilation cache is kept, so recompiling is quick."""
    dispatch.clear_caches()


def typeof(x):
    """The abstract value (shape, dtype, weak type) of an array, tracer, number or key array."""
    if not isinstance(x, core.Tracer) and isinstance(getattr(x, "aval", None), _KeyAval):
        return x.aval  # a typed key array (see random.keys.KeyAval)
    return core.get_aval(x)


_eager_constant_folding = State("eager_constant_folding")


@contextlib.contextmanager
def ensure_compile_time_eval():
    """Inside the block, an operation whose operands are all concrete runs at once, even while
    `jit` traces: the result is a concrete Array usable in Python control flow, not a tracer.

    Example:
        >>> @jax.jit
        ... def f(x):
        ...     with jax.ensure_compile_time_eval():
        ...         n = jnp.sum(jnp.arange(4))     # 6, computed now
        ...         big = bool(n > 5)              # a concrete test (outside the block, the
        ...     return x * n if big else x         # comparison would be staged again)
    """
    with _eager_constant_folding(True):
        yield


def named_call(fun, *, name=None):
    """`fun`, whose operations are traced under the name `name` (default: the function's
    name): it appears in the name stack of their equations and in the lowered module's
    locations, as JAX's `named_call` (which adds no call to the jaxpr).

    >>> f = named_call(lambda x: x * 2, name="double")
    >>> str(make_jaxpr(f)(1.0).eqns[0].source_info.name_stack)
    'double'
    """
    scope = name if name is not None else getattr(fun, "__name__", "named_call")

    @functools.wraps(fun)
    @api_boundary
    def named(*args, **kwargs):
        with source_info.extend_name_stack(scope):
            return fun(*args, **kwargs)
    return named


def named_scope(name):
    """A block whose operations are traced under `name` (nested scopes join with '/'):
    `loc("jit(f)/outer/inner/sin"(...))` in `jit(f).lower(x).as_text(debug_info=True)`.

    >>> with named_scope("layer1"):
    ...     pass
    """
    if not isinstance(name, str):
        raise TypeError("named_scope name argument must be a string.")
    return source_info.extend_name_stack(name)
