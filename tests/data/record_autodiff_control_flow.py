"""Record what JAX 0.10.2 gives for tests/autodiff_control_flow_cases.py.

Run with a Python that has jax==0.10.2 installed (never by the test suite):
    /path/to/jaxref/bin/python tests/data/record_autodiff_control_flow.py
writes tests/data/jax_autodiff_control_flow.json: for each case either
{"value": [leaves as nested lists]} or {"error": "ExceptionClassName"}.
"""
import json
import pathlib
import sys

import jax
import jax.numpy as jnp
import numpy as np
from jax import lax

HERE = pathlib.Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
from autodiff_control_flow_cases import CASES, PRELUDE  # noqa: E402

ns = {"jax": jax, "jnp": jnp, "lax": lax, "np": np}
exec(PRELUDE, ns)
out = {"jax_version": jax.__version__, "cases": {}}
for name, expr in CASES.items():
    try:
        value = eval(expr, ns)
        leaves = [np.asarray(v).tolist() for v in jax.tree_util.tree_leaves(value)
                  if not isinstance(v, str)]
        out["cases"][name] = {"value": leaves}
    except Exception as e:  # noqa: BLE001 - recording the class is the point
        out["cases"][name] = {"error": type(e).__name__}
(HERE / "jax_autodiff_control_flow.json").write_text(json.dumps(out, indent=1) + "\n")
print(json.dumps(out["cases"], indent=None)[:3000])
