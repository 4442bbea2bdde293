"""`jax._src.cudnn`: cuDNN fused kernels (GPU only; pyjax has none)."""
from pyjax._jax_compat._unsupported import module_getattr

__getattr__ = module_getattr("jax._src.cudnn", "cuDNN kernels are not available in pyjax")
