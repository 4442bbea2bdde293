"""Record JAX 0.10.2's name stacks and debug locations for tests/name_stack_cases.py.

Run with the reference venv: /root/scratch/jaxref/bin/python tests/data/record_name_stack.py
"""
import json
import os
import sys

import jax
import jax.numpy as jnp

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
import name_stack_cases  # noqa: E402

out = {}
for name, (fun, x) in name_stack_cases.cases(jax, jnp).items():
    out[name] = {"eqns": name_stack_cases.eqn_stacks(jax, fun, x),
                 "locations": name_stack_cases.location_names(jax, fun, x)}
path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "name_stack.json")
with open(path, "w") as f:
    json.dump({"jax_version": jax.__version__, "cases": out}, f, indent=1, sort_keys=True)
print(json.dumps(out, indent=1))
