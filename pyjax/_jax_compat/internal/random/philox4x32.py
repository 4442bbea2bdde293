"""`jax._src.random.philox4x32`: the Philox-4x32 hash primitive and the "philox4x32" PRNG."""
from pyjax._jax_compat._unsupported import module_getattr
from pyjax._src.random.philox import philox4x32_fold_in as philox4x32_fold_in
from pyjax._src.random.philox import philox4x32_p as philox4x32_p
from pyjax._src.random.philox import philox4x32_prng_impl as philox4x32_prng_impl
from pyjax._src.random.philox import philox4x32_random_bits as philox4x32_random_bits
from pyjax._src.random.philox import philox4x32_seed as philox4x32_seed
from pyjax._src.random.philox import philox4x32_split as philox4x32_split

__getattr__ = module_getattr("jax._src.random.philox4x32")
