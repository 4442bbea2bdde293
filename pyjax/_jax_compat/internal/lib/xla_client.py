"""`jax._src.lib.xla_client`: the XLA types JAX's code builds shardings from (OpSharding protos,
HloSharding), jaxlib's own through pyjax's backend; other names raise when used."""
from pyjax._jax_compat._unsupported import module_getattr
from pyjax._src.backend.xla import Device as Device, HloSharding as HloSharding
from pyjax._src.backend.xla import OpSharding as OpSharding

__getattr__ = module_getattr("jax._src.lib.xla_client")
