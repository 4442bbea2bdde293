"""`jax._src.cudnn.scaled_matmul_stablehlo` (GPU only; the names raise when used)."""
from pyjax._jax_compat._unsupported import module_getattr

__getattr__ = module_getattr("jax._src.cudnn.scaled_matmul_stablehlo",
                             "cuDNN kernels are not available in pyjax")
