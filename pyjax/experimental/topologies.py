"""pyjax.experimental.topologies: device topologies for AOT compilation (re-exports only; code
in pyjax._src.topologies)."""
from pyjax._src.topologies import (
    TopologyDescription as TopologyDescription,
    get_attached_topology as get_attached_topology,
    get_topology_desc as get_topology_desc,
    make_mesh as make_mesh,
)
