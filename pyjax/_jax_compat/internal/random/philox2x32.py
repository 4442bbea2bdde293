"""`jax._src.random.philox2x32`: the Philox-2x32 hash primitive and the "philox2x32" PRNG."""
from pyjax._jax_compat._unsupported import module_getattr
from pyjax._src.random.philox import philox2x32_fold_in as philox2x32_fold_in
from pyjax._src.random.philox import philox2x32_p as philox2x32_p
from pyjax._src.random.philox import philox2x32_prng_impl as philox2x32_prng_impl
from pyjax._src.random.philox import philox2x32_random_bits as philox2x32_random_bits
from pyjax._src.random.philox import philox2x32_seed as philox2x32_seed
from pyjax._src.random.philox import philox2x32_split as philox2x32_split

__getattr__ = module_getattr("jax._src.random.philox2x32")
