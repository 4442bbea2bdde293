"""Moving data between processes of a multi-process program (`pyjax.distributed`): gathering
every process's value, broadcasting process 0's, barriers, and converting between per-process
("host-local") arrays and global arrays laid out over a mesh that spans processes.

Everything here is a `jit` over a mesh of all devices: the cross-process traffic is XLA's
collectives (gloo over TCP on CPU), nothing of pyjax's own. With one process each function is
the trivial thing (a NumPy copy, a no-op barrier).
"""
from __future__ import annotations

import zlib

import numpy as np

from pyjax._src import core, dtypes, tree_util
from pyjax._src.array import (ArrayImpl, canonical_host_value,
                              make_array_from_single_device_arrays)
from pyjax._src.backend import xla
from pyjax._src.mesh import Mesh
from pyjax._src.numpy.reductions import sum as _sum
from pyjax._src.pjit import jit
from pyjax._src.sharding import NamedSharding, PartitionSpec


class ProcessFailureError(Exception):
    """One or more processes of the program failed (JAX raises it from `live_devices`)."""


def _process_mesh():
    """All devices as a (process, local device) mesh."""
    devices = np.array(xla.devices(), dtype=object)
    return Mesh(devices.reshape(xla.process_count(), xla.local_device_count()),
                ("processes", "local_devices"))


def _jit(fn, out_sharding):
    return jit(fn, out_shardings=out_sharding)


def _identity(x):
    return x


def _sum_over_processes(x):
    return _sum(x, axis=0, dtype=x.dtype)


def _local_part(x) -> np.ndarray:
    """This process's copy of a replicated global array, on the host."""
    return np.asarray(x.addressable_data(0))


def _is_global(x) -> bool:
    return type(x) is ArrayImpl and not x.is_fully_addressable


def _stack_over_processes(host, mesh):
    """A global array whose block `i` along a new (or, `tiled`, the first) axis is process i's
    `host` value, replicated over that process's devices."""
    sharding = NamedSharding(mesh, PartitionSpec("processes"))
    aval = core.ShapedArray(host.shape, host.dtype)
    singles = [xla.put(host, d, aval, committed=True) for d in xla.local_devices()]
    shape = (host.shape[0] * xla.process_count(),) + host.shape[1:]
    return make_array_from_single_device_arrays(shape, sharding, singles)


def broadcast_one_to_all(in_tree, is_source: bool | None = None):
    """Every process gets the source process's (process 0 unless `is_source` says otherwise)
    value of each leaf of `in_tree`, as NumPy arrays; every process passes leaves of the same
    shapes.

    >>> config = broadcast_one_to_all(config if pyjax.process_index() == 0 else zeros)  # doctest: +SKIP
    """
    if xla.process_count() == 1:
        return tree_util.tree_map(np.asarray, in_tree)
    if is_source is None:
        is_source = xla.process_index() == 0
    mesh = _process_mesh()

    def one(x):
        host = canonical_host_value(x)
        if not is_source:
            host = np.zeros_like(host)
        stacked = _stack_over_processes(host[None], mesh)
        out = _jit(_sum_over_processes, NamedSharding(mesh, PartitionSpec()))(stacked)
        return _local_part(out)

    return tree_util.tree_map(one, in_tree)


def _allgather_one(x, tiled):
    if _is_global(x):
        if not tiled:
            raise ValueError("Gathering global non-fully-addressable arrays only supports "
                             "tiled=True")
        replicated = NamedSharding(x.sharding.mesh, PartitionSpec())
        return _local_part(_jit(_identity, replicated)(x))
    host = np.asarray(x)
    if xla.process_count() == 1:
        return host if tiled else host[None]
    if host.ndim == 0 or not tiled:
        host = host[None]
    mesh = _process_mesh()
    stacked = _stack_over_processes(canonical_host_value(host), mesh)
    return _local_part(_jit(_identity, NamedSharding(mesh, PartitionSpec()))(stacked))


def process_allgather(in_tree, tiled: bool = False):
    """Every process's value of each leaf of `in_tree`, as NumPy arrays on every process:
    stacked along a new first axis (concatenated along the first axis when `tiled`). A global
    array spanning processes comes back whole (needs `tiled=True`).

    >>> process_allgather(np.float32(pyjax.process_index()))   # [0., 1.] on 2 processes  # doctest: +SKIP
    """
    return tree_util.tree_map(lambda x: _allgather_one(x, tiled), in_tree)


def assert_equal(in_tree, fail_message: str = ""):
    """Raise AssertionError (on every process) unless all processes hold the same values."""
    def expected(x):
        if _is_global(x):
            return np.asarray(x.addressable_data(0))
        x = np.asarray(x)
        if x.ndim == 0:
            x = x[None]
        return np.concatenate([x] * xla.process_count())

    out = process_allgather(in_tree, tiled=True)
    want = tree_util.tree_map(expected, in_tree)
    ok = tree_util.tree_map(lambda a, b: bool(np.all(np.equal(a, b))), want, out)
    if not all(tree_util.tree_leaves(ok)):
        raise AssertionError(f"{fail_message}. Expected: {out}; got: {in_tree}.")


def sync_global_devices(name: str):
    """A barrier: returns once every process has called it with the same `name` (a
    mismatched name raises AssertionError)."""
    h = np.uint32(zlib.crc32(name.encode()))
    assert_equal(h, f"sync_global_devices name mismatch ('{name}')")


def reached_preemption_sync_point(step_id: int) -> bool:
    """Whether every process has reached the step at which to checkpoint after some process
    got a preemption notice (SIGTERM); False when not running distributed."""
    state = xla.distributed
    if state.client is None:
        return False
    if state.preemption_sync_manager is None:
        raise RuntimeError("Preemption sync manager has not been initialized. Make sure the "
                           "'jax_enable_preemption_service' config is enabled.")
    return state.preemption_sync_manager.reached_sync_point(step_id)


# -- host-local <-> global arrays ----------------------------------------------------------------


def _spec_leaves(pspecs, tree, where):
    """One PartitionSpec per leaf of `tree`: `pspecs` is a pytree prefix of it."""
    if isinstance(pspecs, PartitionSpec):
        return [pspecs] * tree.num_leaves
    if pspecs is None:
        raise ValueError("`None` is not a valid input to the pspecs argument. Please use "
                         "pyjax.sharding.PartitionSpec() if you wanted to replicate your input.")
    try:
        return _broadcast_prefix(pspecs, tree)
    except (ValueError, TypeError) as e:
        raise ValueError(f"{where}: pspecs must be a PartitionSpec or a pytree prefix of the "
                         f"inputs: {e}") from None


def _broadcast_prefix(prefix, treedef):
    full = tree_util.tree_unflatten(treedef, [object()] * treedef.num_leaves)
    out = []
    tree_util.tree_map(lambda p, sub: out.extend([p] * len(tree_util.tree_leaves(sub))),
                       prefix, full, is_leaf=lambda x: isinstance(x, PartitionSpec))
    return out


def _scale(mesh_from, mesh_to, spec, shape, where):
    """`shape` of an array laid out as `spec` over `mesh_from`, rescaled to `mesh_to` (local
    to global or back): each dimension grows with the ratio of the mesh axes it is split on."""
    parts = spec._normalized(len(shape))
    out = []
    for d, (n, axes) in enumerate(zip(shape, parts, strict=True)):
        a = int(np.prod([mesh_from.shape[x] for x in axes], dtype=np.int64))
        b = int(np.prod([mesh_to.shape[x] for x in axes], dtype=np.int64))
        if (n * b) % a:
            raise ValueError(f"{where}: dimension {d} of size {n} (shape {tuple(shape)}) does "
                             f"not divide over the mesh axes {axes} of spec {spec!r}")
        out.append(n * b // a)
    return tuple(out)


def _host_local_to_global(arr, mesh, spec):
    if isinstance(arr, core.Tracer):
        raise TypeError("host_local_array_to_global_array: pyjax converts concrete arrays "
                        "only; call it outside jit")
    if _is_global(arr):
        return arr
    if not isinstance(spec, PartitionSpec):
        raise TypeError(f"host_local_array_to_global_array: expected a PartitionSpec, got "
                        f"{spec!r}")
    host = canonical_host_value(arr)
    if host.dtype == dtypes.float0:
        host = np.zeros(host.shape, np.bool_)
    local_mesh = mesh.local_mesh
    local_sharding = NamedSharding(local_mesh, spec)
    shape = _scale(local_mesh, mesh, spec, host.shape, "host_local_array_to_global_array")
    indices = local_sharding.devices_indices_map(host.shape)
    block_aval = core.ShapedArray(local_sharding.shard_shape(host.shape), host.dtype)
    singles = [xla.put(np.ascontiguousarray(host[indices[d]]), d, block_aval, committed=True)
               for d in local_mesh.devices.flat]
    return make_array_from_single_device_arrays(shape, NamedSharding(mesh, spec), singles)


def host_local_array_to_global_array(local_inputs, global_mesh: Mesh, pspecs):
    """Each process's `local_inputs` (a pytree of arrays) become parts of global arrays over
    `global_mesh` laid out as `pspecs`: a dimension split over mesh axes that span processes
    grows by the number of processes along them. The mesh's devices of each process must
    form a block of it.

    >>> mesh = pyjax.make_mesh((pyjax.device_count(),), ("x",))                   # doctest: +SKIP
    >>> g = host_local_array_to_global_array(np.arange(4) * pyjax.process_index(), mesh, P("x"))  # doctest: +SKIP

    NB: JAX makes this a primitive usable under jit; pyjax converts concrete values only.
    """
    leaves, tree = tree_util.tree_flatten(local_inputs)
    specs = _spec_leaves(pspecs, tree, "host_local_array_to_global_array")
    out = [_host_local_to_global(x, global_mesh, s) for x, s in zip(leaves, specs, strict=True)]
    return tree_util.tree_unflatten(tree, out)


def _global_to_host_local(arr, mesh, spec):
    if isinstance(arr, core.Tracer):
        raise TypeError("global_array_to_host_local_array: pyjax converts concrete arrays "
                        "only; call it outside jit")
    if not isinstance(spec, PartitionSpec):
        raise TypeError(f"global_array_to_host_local_array: expected a PartitionSpec, got "
                        f"{spec!r}")
    if type(arr) is not ArrayImpl:
        arr = np.asarray(arr)
        return arr  # as JAX: host values are already host-local
    sharding = NamedSharding(mesh, spec)
    if arr.sharding != sharding:
        arr = _jit(_identity, sharding)(arr)
    local_mesh = mesh.local_mesh
    shape = _scale(mesh, local_mesh, spec, arr.shape, "global_array_to_host_local_array")
    singles = [s.data for s in arr.addressable_shards]
    return make_array_from_single_device_arrays(shape, NamedSharding(local_mesh, spec), singles)


def global_array_to_host_local_array(global_inputs, global_mesh: Mesh, pspecs):
    """The inverse of `host_local_array_to_global_array`: each global array's blocks on this
    process's devices, as an array over the process's part of the mesh.

    >>> local = global_array_to_host_local_array(g, mesh, P("x"))                 # doctest: +SKIP
    """
    leaves, tree = tree_util.tree_flatten(global_inputs)
    specs = _spec_leaves(pspecs, tree, "global_array_to_host_local_array")
    out = [_global_to_host_local(x, global_mesh, s) for x, s in zip(leaves, specs, strict=True)]
    return tree_util.tree_unflatten(tree, out)
