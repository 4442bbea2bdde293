"""pyjax.stages: the ahead-of-time stages of a jitted function (re-exports only)."""
from pyjax._jax_compat.stages import CompilerOptions as CompilerOptions
from pyjax._jax_compat.stages import Wrapped as Wrapped
from pyjax._src.stages import ArgInfo as ArgInfo
from pyjax._src.stages import Compiled as Compiled
from pyjax._src.stages import Lowered as Lowered
from pyjax._src.stages import Traced as Traced
