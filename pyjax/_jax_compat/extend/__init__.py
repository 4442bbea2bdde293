"""`jax.extend`: the API for writing primitives and interpreters against JAX (here: pyjax)."""
from pyjax._jax_compat.extend import backend as backend
from pyjax._jax_compat.extend import core as core
from pyjax._jax_compat.extend import linear_util as linear_util
from pyjax._jax_compat.extend import random as random
from pyjax._jax_compat.extend import source_info_util as source_info_util
