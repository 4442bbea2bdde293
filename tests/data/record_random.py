"""Record what JAX 0.10.2's random module gives for tests/random_cases.py.

Run with a Python that has jax==0.10.2 installed (never by the test suite):
    /path/to/jaxref/bin/python tests/data/record_random.py
writes tests/data/random.json: per case, the result's dtype, shape and bits (or its typed key's
data, or the class of the exception raised); and the public names of jax.random.
"""
import json
import pathlib
import sys
import warnings

import jax
import jax.numpy as jnp
import numpy as np
from jax import random

HERE = pathlib.Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
from random_cases import CASES, PRELUDE, evaluate  # noqa: E402

warnings.simplefilter("ignore")
ns = {"jax": jax, "jnp": jnp, "np": np, "random": random}
exec(PRELUDE, ns)
out = {"jax_version": jax.__version__, "cases": {},
       "public_names": sorted(n for n in dir(random) if not n.startswith("_"))}
for name, expr, x64 in CASES:
    assert name not in out["cases"], name
    jax.config.update("jax_enable_x64", x64)
    try:
        out["cases"][name] = evaluate(expr, ns, random)
    finally:
        jax.config.update("jax_enable_x64", False)
(HERE / "random.json").write_text(json.dumps(out, indent=None, separators=(",", ":")) + "\n")
print(len(out["cases"]), "cases;", sum("error" in v for v in out["cases"].values()), "errors")
