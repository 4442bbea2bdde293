"""Record what JAX 0.10.2 emits for tests/emitted_module_cases.py.

Run with a Python that has jax==0.10.2 installed (never by the test suite):
    /path/to/jaxref/bin/python tests/data/record_emitted_modules.py
writes tests/data/jax_emitted_modules.json: per module, how many ops of each compared kind JAX's
lowered module has; per matmul shape pair, the equations of JAX's jaxpr.
"""
import json
import pathlib
import sys

import jax
import jax.numpy as jnp
import numpy as np

HERE = pathlib.Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
from emitted_module_cases import MATMULS, MODULES, PRELUDE, matmul_eqns, op_counts  # noqa: E402

ns = {"jax": jax, "jnp": jnp, "np": np}
exec(PRELUDE, ns)
out = {"jax_version": jax.__version__,
       "op_counts": {name: op_counts(eval(expr, ns).as_text()) for name, expr in MODULES.items()},
       "matmul_eqns": [[list(a), list(b), matmul_eqns(jax.make_jaxpr, jnp, a, b)] for a, b in MATMULS]}
(HERE / "jax_emitted_modules.json").write_text(json.dumps(out, indent=1) + "\n")
print(json.dumps(out["op_counts"], indent=1))
