"""`jax._src.lax.lax`: JAX's module of the core lax operations; here, pyjax's lax namespace."""
from pyjax._jax_compat._unsupported import module_getattr
from pyjax.lax import *  # noqa: F401,F403 (the operations under JAX's internal path)



def remaining(original, *removed_lists):
    """The items of `original` not in any of `removed_lists`, in order."""
    removed = {i for lst in removed_lists for i in lst}
    return [i for i in original if i not in removed]


__getattr__ = module_getattr("jax._src.lax.lax")
