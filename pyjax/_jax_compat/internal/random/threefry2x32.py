"""`jax._src.random.threefry2x32`: the threefry PRNG implementation and its hash."""
from pyjax._jax_compat._unsupported import module_getattr
from pyjax._src.random.prng import threefry_2x32 as threefry_2x32  # (key pair, counts)
from pyjax._src.random.prng import threefry2x32_p as threefry2x32_p
from pyjax._src.random.prng import threefry_fold_in as threefry_fold_in
from pyjax._src.random.prng import threefry_prng_impl as threefry_prng_impl
from pyjax._src.random.prng import threefry_random_bits as threefry_random_bits
from pyjax._src.random.prng import threefry_seed as threefry_seed
from pyjax._src.random.prng import threefry_split as threefry_split

__getattr__ = module_getattr("jax._src.random.threefry2x32")
