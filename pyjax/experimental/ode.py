"""pyjax.experimental.ode: adaptive Dormand–Prince ODE integration (JAX's
`jax.experimental.ode`); re-exports only."""
from pyjax._src.ode import abs2 as abs2
from pyjax._src.ode import fit_4th_order_polynomial as fit_4th_order_polynomial
from pyjax._src.ode import initial_step_size as initial_step_size
from pyjax._src.ode import interp_fit_dopri as interp_fit_dopri
from pyjax._src.ode import mean_error_ratio as mean_error_ratio
from pyjax._src.ode import odeint as odeint
from pyjax._src.ode import optimal_step_size as optimal_step_size
from pyjax._src.ode import ravel_first_arg as ravel_first_arg
from pyjax._src.ode import runge_kutta_step as runge_kutta_step
