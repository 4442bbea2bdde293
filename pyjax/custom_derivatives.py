"""pyjax.custom_derivatives (re-exports only)."""
from pyjax._src.custom_derivatives import (
    CustomVJPPrimal as CustomVJPPrimal,
    closure_convert as closure_convert,
    custom_gradient as custom_gradient,
    custom_jvp as custom_jvp,
    custom_jvp_call_p as custom_jvp_call_p,
    custom_vjp as custom_vjp,
    custom_vjp_call_p as custom_vjp_call_p,
    custom_vjp_primal_tree_values as custom_vjp_primal_tree_values,
    zero_from_primal as zero_from_primal,
)
from pyjax._src.interpreters.ad import SymbolicZero as SymbolicZero  # noqa: F401
from pyjax._src.remat_opt import remat_opt_p as remat_opt_p  # noqa: F401
