"""pyjax.debug: printing and callbacks that work inside jit, vmap, grad and scan, and pictures
of shardings (re-exports only; code in pyjax._src.callback and pyjax._src.sharding_viz)."""
from pyjax._src.callback import (
    DebugEffect as DebugEffect,
    OrderedDebugEffect as OrderedDebugEffect,
    breakpoint as breakpoint,
    debug_callback as callback,
    debug_log as log,
    debug_print as print,
)
from pyjax._src.sharding_viz import (
    inspect_array_sharding as inspect_array_sharding,
    visualize_array_sharding as visualize_array_sharding,
    visualize_sharding as visualize_sharding,
)
