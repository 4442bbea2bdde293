"""Record how often JAX 0.10.2 runs a user function's body for tests/call_count_cases.py.

    /path/to/jaxref/bin/python tests/data/record_call_counts.py   # -> jax_call_counts.json
"""
import json
import pathlib
import sys

import jax
import jax.numpy as jnp
from jax import lax

HERE = pathlib.Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
from call_count_cases import CASES, PRELUDE  # noqa: E402

counts = {}
for name, stmt in CASES.items():
    ns = {"jax": jax, "jnp": jnp, "lax": lax}
    exec(PRELUDE, ns)
    ns["f"], ns["fv"] = ns["fresh"](), ns["fresh"]("v")
    exec(stmt, ns)
    counts[name] = ns["n"][0]
(HERE / "jax_call_counts.json").write_text(json.dumps({"jax_version": jax.__version__,
                                                       "counts": counts}, indent=1) + "\n")
print(counts)
