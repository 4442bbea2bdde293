"""`jax._src.random.threefry4x32`: the Threefry-4x32 hash primitive and the "threefry4x32" PRNG."""
from pyjax._jax_compat._unsupported import module_getattr
from pyjax._src.random.threefry4x32 import threefry4x32_fold_in as threefry4x32_fold_in
from pyjax._src.random.threefry4x32 import threefry4x32_p as threefry4x32_p
from pyjax._src.random.threefry4x32 import threefry4x32_prng_impl as threefry4x32_prng_impl
from pyjax._src.random.threefry4x32 import threefry4x32_random_bits as threefry4x32_random_bits
from pyjax._src.random.threefry4x32 import threefry4x32_seed as threefry4x32_seed
from pyjax._src.random.threefry4x32 import threefry4x32_split as threefry4x32_split

__getattr__ = module_getattr("jax._src.random.threefry4x32")
