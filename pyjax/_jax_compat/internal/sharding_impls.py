"""`jax._src.sharding_impls`: the sharding classes and helpers under JAX's internal path."""
from pyjax._jax_compat._unsupported import module_getattr
from pyjax._src.mesh import get_abstract_mesh as get_abstract_mesh, make_mesh as make_mesh
from pyjax._src.mesh import set_mesh as set_mesh
from pyjax._src.sharding import NamedSharding as NamedSharding, PartitionSpec as PartitionSpec
from pyjax._src.sharding import Sharding as Sharding, SingleDeviceSharding as SingleDeviceSharding
from pyjax._src.sharding import make_single_device_sharding as make_single_device_sharding
from pyjax._src.sharding_gspmd import GSPMDSharding as GSPMDSharding

UNSPECIFIED = None

__getattr__ = module_getattr("jax._src.sharding_impls")
