"""`jax._src.earray`: JAX's arrays of extended dtypes. pyjax represents typed PRNG keys its own
way; the names import and raise when used."""
from pyjax._jax_compat._unsupported import module_getattr

__getattr__ = module_getattr("jax._src.earray", "pyjax has no EArray type")
