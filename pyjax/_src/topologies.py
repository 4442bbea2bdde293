"""Device topologies for ahead-of-time compilation (JAX's `jax.experimental.topologies`): the
attached one (the devices this process sees) and meshes over a topology's devices.

    >>> topo = get_attached_topology()
    >>> make_mesh(topo, (len(topo.devices),), ("x",)).shape
    {'x': 8}

NB: pyjax compiles only for attached devices; a topology described by name (a TPU slice one
has not got, compile-only devices) raises NotImplementedError."""
from __future__ import annotations

from collections.abc import Sequence

from pyjax._src.backend import xla
from pyjax._src.mesh import Mesh
from pyjax._src.mesh_utils import create_device_mesh


class TopologyDescription:
    """The devices of a topology."""

    def __init__(self, devices: list):
        self.devices = devices


def get_attached_topology(platform=None) -> TopologyDescription:
    return TopologyDescription(xla.devices(platform))


def get_topology_desc(topology_name: str = "", platform: str | None = None,
                      **kwargs) -> TopologyDescription:
    raise NotImplementedError(
        f"get_topology_desc({topology_name!r}, platform={platform!r}): pyjax compiles only for "
        f"attached devices (get_attached_topology()); compile-only topologies need a PJRT "
        f"topology client")


def make_mesh(topo: TopologyDescription, mesh_shape: Sequence[int], axis_names: tuple, *,
              contiguous_submeshes: bool = False) -> Mesh:
    devices = create_device_mesh(mesh_shape, list(topo.devices),
                                 contiguous_submeshes=contiguous_submeshes)
    return Mesh(devices, axis_names)
