"""pyjax.sharding (re-exports only; meshes and named shardings come with the multi-device issue)."""
from pyjax._src.sharding import Sharding as Sharding, SingleDeviceSharding as SingleDeviceSharding
