"""`jax._src.lax.lax`: JAX's module of the core lax operations; here, pyjax's lax namespace."""
from pyjax._jax_compat._unsupported import module_getattr
from pyjax.lax import *  # noqa: F401,F403 (the operations under JAX's internal path)
from pyjax._src.lax.convert import _convert_element_type as _pyjax_convert_element_type


def _convert_element_type(operand, new_dtype=None, weak_type=False, sharding=None,
                          warn_on_complex_to_real_cast=True):
    """JAX's internal convert: to `new_dtype` (default: the operand's) with the given weak
    type. NB: pyjax's avals hold no sharding: `sharding` must be None."""
    del warn_on_complex_to_real_cast
    if sharding is not None:
        raise NotImplementedError("jax._src.lax.lax._convert_element_type: sharding= is not "
                                  "supported by pyjax")
    return _pyjax_convert_element_type(operand, new_dtype, weak_type=weak_type)



def remaining(original, *removed_lists):
    """The items of `original` not in any of `removed_lists`, in order."""
    removed = {i for lst in removed_lists for i in lst}
    return [i for i in original if i not in removed]


__getattr__ = module_getattr("jax._src.lax.lax")
