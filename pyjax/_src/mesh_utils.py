"""Device meshes for `jax.sharding.Mesh`: `create_device_mesh` and `create_hybrid_device_mesh`
(public as `pyjax.experimental.mesh_utils`).

NB: JAX arranges TPU slices by their physical torus (per device kind, through
`device_kind_handler_dict`); pyjax runs on CPU and GPU, where a mesh is the devices in order
(GPUs by id), as in JAX. A handler registered in `device_kind_handler_dict` for a device kind is
still asked first.
"""
from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from pyjax._src.backend import xla

# device_kind -> handler(mesh_shape, devices, *, contiguous_submeshes) -> ndarray or None
device_kind_handler_dict: dict[str, Callable[..., np.ndarray | None]] = {}


def _axis_sizes(mesh_shape) -> tuple[int, ...] | None:
    try:
        return tuple(int(s) for s in mesh_shape)
    except (TypeError, ValueError):
        return None


def create_device_mesh(mesh_shape: Sequence[int], devices: Sequence[Any] | None = None, *,
                       contiguous_submeshes: bool = False,
                       allow_split_physical_axes: bool = False) -> np.ndarray:
    """An array of `devices` (default: all of them) of shape `mesh_shape`, to build a Mesh.

    >>> create_device_mesh((1,)).shape
    (1,)
    """
    if devices is None:
        devices = xla.devices()
    shape = _axis_sizes(mesh_shape)
    if shape is None:
        raise ValueError("`mesh_shape` passed to `create_device_mesh` should be a sequence of "
                         f"ints. Got {mesh_shape}")
    if math.prod(shape) != len(devices):
        raise ValueError(f"Number of devices {len(devices)} must equal the product of "
                         f"mesh_shape {shape}")
    last = devices[-1]
    handler = device_kind_handler_dict.get(last.device_kind)
    if handler is not None:
        mesh = handler(shape, devices, contiguous_submeshes=contiguous_submeshes)
        if mesh is not None:
            return mesh
    if last.platform in ("gpu", "cuda", "rocm"):  # topology-aware numbering is by id
        devices = sorted(devices, key=lambda d: d.id)
    out = np.empty(len(devices), dtype=object)
    out[:] = list(devices)
    return out.reshape(shape)


def create_hybrid_device_mesh(mesh_shape: Sequence[int], dcn_mesh_shape: Sequence[int],
                              devices: Sequence[Any] | None = None, *,
                              process_is_granule: bool = False,
                              should_sort_granules_by_key: bool = True,
                              allow_split_physical_axes: bool = False) -> np.ndarray:
    """A mesh of `mesh_shape` blocks (one per slice, or per process with
    `process_is_granule`) laid out as `dcn_mesh_shape`: axis i has size
    `mesh_shape[i] * dcn_mesh_shape[i]`."""
    if devices is None:
        devices = xla.devices()
    attr = "process_index" if process_is_granule else "slice_index"
    if not hasattr(devices[0], attr):
        raise ValueError(f"Device {devices[0]} does not have attribute {attr}. See "
                         "`process_is_granule` option.")
    groups: dict[Any, list] = {}
    for d in devices:
        groups.setdefault(getattr(d, attr), []).append(d)
    keys = sorted(groups) if should_sort_granules_by_key else list(groups)
    if math.prod(dcn_mesh_shape) != len(keys):
        raise ValueError(f"Number of slices {len(keys)} must equal the product of "
                         f"dcn_mesh_shape {dcn_mesh_shape}")
    blocks = [create_device_mesh(mesh_shape, groups[k],
                                 allow_split_physical_axes=allow_split_physical_axes) for k in keys]
    # block (i, j, ...) of the result is granule number ravel_multi_index((i, j, ...))
    layout = np.empty(len(blocks), dtype=object)
    layout[:] = blocks
    return np.block(layout.reshape(tuple(dcn_mesh_shape)).tolist())
