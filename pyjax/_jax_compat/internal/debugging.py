"""`jax._src.debugging`: the debug print/callback primitives and effects."""
from pyjax._jax_compat._unsupported import module_getattr
from pyjax._src.callback import DebugEffect as DebugEffect
from pyjax._src.callback import OrderedDebugEffect as OrderedDebugEffect
from pyjax._src.callback import debug_callback as debug_callback
from pyjax._src.callback import debug_print as debug_print
from pyjax._src.sharding_viz import inspect_array_sharding as inspect_array_sharding
from pyjax._src.sharding_viz import visualize_array_sharding as visualize_array_sharding

__getattr__ = module_getattr("jax._src.debugging")
