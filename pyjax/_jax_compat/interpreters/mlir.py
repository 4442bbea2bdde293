"""`jax.interpreters.mlir`: registering lowering rules of a library's primitives.

`register_lowering(p, lower_fun(impl, multiple_results))` lowers `p` by tracing `impl` (written
with jax.numpy / lax, i.e. pyjax) and emitting its StableHLO through pyjax's emitter, which is
what equinox does for all its primitives.

NB: pyjax emits StableHLO as text, without MLIR's Python bindings, so a rule that builds MLIR
operations itself (`mlir.ir`, `hlo.*`, `ir_constant`) cannot run; the names that need the
bindings are absent or raise NotImplementedError when used."""
from __future__ import annotations

from pyjax._src.callback import emit_python_callback as emit_python_callback
from pyjax._src.lowering.lower import LoweringRuleContext as LoweringRuleContext
from pyjax._src.lowering.lower import ModuleContext as ModuleContext
from pyjax._src.lowering.lower import lower_fun as lower_fun
from pyjax._src.lowering.lower import register_lowering as register_lowering
from pyjax._src.lowering.mlir import aval_type as aval_to_ir_type
from pyjax._jax_compat._unsupported import unsupported

ir_constant = unsupported("jax.interpreters.mlir.ir_constant",
                          "pyjax's lowering rules emit StableHLO text: use lower_fun")
