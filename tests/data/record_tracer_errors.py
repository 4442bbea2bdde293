"""Record JAX 0.10.2's tracer errors for tests/tracer_error_cases.py.

Run with the reference venv: /root/scratch/jaxref/bin/python tests/data/record_tracer_errors.py
"""
import json
import os
import sys

import jax
import jax.numpy as jnp
import numpy as np

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
import tracer_error_cases  # noqa: E402

out = {}
for name, run in tracer_error_cases.cases(jax, jnp, np).items():
    try:
        run()
        out[name] = {"class": None, "sentence": ""}
    except Exception as e:  # noqa: BLE001 - recording whatever JAX raises
        out[name] = tracer_error_cases.describe(e)
path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "tracer_errors.json")
with open(path, "w") as f:
    json.dump({"jax_version": jax.__version__, "cases": out}, f, indent=1, sort_keys=True)
print(json.dumps(out, indent=1))
