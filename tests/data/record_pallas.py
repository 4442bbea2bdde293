"""Record what JAX 0.10.2 gives for tests/pallas_cases.py (Pallas interpret mode and Refs).

Run with a Python that has jax==0.10.2 installed (never by the test suite):
    /root/scratch/jaxref/bin/python tests/data/record_pallas.py
writes tests/data/pallas.json: {"cases": {expr: encoded result or error class},
"names": {module: public names}}.
"""
import importlib
import json
import pathlib
import sys

import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.experimental.pallas import tpu as pltpu
from jax.experimental.pallas import triton as plgpu

HERE = pathlib.Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
from pallas_cases import CASES, NAME_MODULES, PRELUDE  # noqa: E402
from recorded_cases import evaluate_cases  # noqa: E402

ns = {"jax": jax, "jnp": jnp, "pl": pl, "plgpu": plgpu, "pltpu": pltpu}
out = {"jax_version": jax.__version__,
       "cases": evaluate_cases(PRELUDE, CASES, ns),
       "names": {m: sorted(n for n in dir(importlib.import_module(m)) if not n.startswith("_"))
                 for m in NAME_MODULES}}
(HERE / "pallas.json").write_text(json.dumps(out, indent=1, sort_keys=True) + "\n")
