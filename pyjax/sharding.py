"""pyjax.sharding: device meshes and how arrays are laid out over them (re-exports only)."""
from pyjax._src.mesh import (
    AbstractDevice as AbstractDevice,
    AbstractMesh as AbstractMesh,
    AxisType as AxisType,
    Mesh as Mesh,
    get_abstract_mesh as get_abstract_mesh,
    get_mesh as get_mesh,
    set_mesh as set_mesh,
    use_abstract_mesh as use_abstract_mesh,
)
from pyjax._src.core import ManualAxisType as ManualAxisType
from pyjax._src.sharding import (
    NamedSharding as NamedSharding,
    PartitionSpec as PartitionSpec,
    Sharding as Sharding,
    SingleDeviceSharding as SingleDeviceSharding,
    make_single_device_sharding as make_single_device_sharding,
)
from pyjax._src.reshard import auto_axes as auto_axes, explicit_axes as explicit_axes, reshard as reshard
